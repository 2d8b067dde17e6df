"""Tests of sympy_loads.actuators: the TSDA and RSDA of seed 004 checked
against the seed's formulas and sign conventions, SymPy's pathways, energy
(power) arguments and the argument checks."""

import numpy as np
import pytest
import sympy as sm
from sympy.physics.mechanics import (Force, KanesMethod, LinearPathway,
                                     ObstacleSetPathway, Particle, PinJoint,
                                     Point, ReferenceFrame, RigidBody, Torque,
                                     WrappingCylinder, WrappingPathway,
                                     dynamicsymbols)

from sympy_loads import (RotationalSpringDamperActuator,
                         SpringDamperActuator)

t = dynamicsymbols._t
k, c, l0, fF, F, eps = sm.symbols('k c l_0 f_F F epsilon', positive=True)


def power(loads, frame):
    """Total power of ``loads`` (Forces at points, Torques on frames)."""
    total = sm.S.Zero
    for load in loads:
        if isinstance(load, Force):
            total += load.vector.dot(load.point.vel(frame))
        else:
            total += load.vector.dot(load.frame.ang_vel_in(frame))
    return total


@pytest.fixture
def line():
    """O fixed, P at x > 0 along N.x."""
    x = dynamicsymbols('x', positive=True)
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x)
    return N, O, P, x


@pytest.fixture
def space():
    """O fixed, P anywhere: d = x N.x + y N.y + z N.z."""
    x, y, z = dynamicsymbols('x y z', real=True)
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y + z * N.z)
    return N, O, P, (x, y, z)


class TestSpringDamperActuator:

    def test_tension_is_seed_004_formula(self, line):
        N, O, P, x = line
        xd = x.diff(t)
        tsda = SpringDamperActuator(LinearPathway(O, P), stiffness=k,
                                    damping=c, free_length=l0, friction=fF,
                                    actuation=F)
        expected = k * (x - l0) + c * xd + fF * sm.sign(xd) + F
        assert sm.simplify(tsda.tension - expected) == 0
        assert sm.simplify(tsda.force + expected) == 0

    def test_loads_are_seed_004_end_forces_in_3d(self, space):
        # seed 004: F_on_i = f/l d_ij, F_on_j = -f/l d_ij with d_ij = r_j - r_i
        N, O, P, (x, y, z) = space
        tsda = SpringDamperActuator(LinearPathway(O, P), stiffness=k,
                                    damping=c, free_length=l0)
        d = P.pos_from(O)
        ell = sm.sqrt(x**2 + y**2 + z**2)
        ell_dot = d.dot(d.dt(N)) / ell
        f = k * (ell - l0) + c * ell_dot
        on_O, on_P = tsda.to_loads()
        assert on_O.point == O and on_P.point == P
        for load, expected in ((on_O, f / ell * d), (on_P, -f / ell * d)):
            difference = (load.vector - expected).to_matrix(N)
            assert difference.applyfunc(sm.simplify) == sm.zeros(3, 1)

    def test_stretched_spring_pulls_ends_together(self, line):
        N, O, P, x = line
        tsda = SpringDamperActuator(LinearPathway(O, P), stiffness=100,
                                    free_length=1)
        on_O, on_P = tsda.to_loads()
        stretched = {x: sm.Rational(3, 2)}
        compressed = {x: sm.Rational(1, 2)}
        assert on_P.vector.dot(N.x).subs(stretched) == -50   # toward O
        assert on_O.vector.dot(N.x).subs(stretched) == 50    # toward P
        assert on_P.vector.dot(N.x).subs(compressed) == 50   # pushes apart
        assert tsda.tension.subs(stretched) == 50

    def test_spring_power_is_rate_of_potential_energy(self, space):
        N, O, P, _ = space
        tsda = SpringDamperActuator(LinearPathway(O, P), stiffness=k,
                                    free_length=l0)
        V = k * (tsda.length - l0)**2 / 2
        assert sm.simplify(power(tsda.to_loads(), N) + V.diff(t)) == 0

    def test_damper_and_friction_power_never_positive(self, space):
        N, O, P, coords = space
        tsda = SpringDamperActuator(LinearPathway(O, P), damping=c,
                                    friction=fF, regularization=eps)
        ldot = tsda.lengthening_speed
        expected = -c * ldot**2 - fF * sm.tanh(ldot / eps) * ldot
        assert sm.simplify(power(tsda.to_loads(), N) - expected) == 0
        f = sm.lambdify([*coords, *[q.diff(t) for q in coords], c, fF, eps],
                        power(tsda.to_loads(), N))
        rng = np.random.default_rng(0)
        for _ in range(50):
            state = rng.normal(size=6)
            assert f(*state, 2.0, 3.0, 0.1) <= 0.0

    @pytest.mark.parametrize('method, sign', [
        ('tanh', lambda v: sm.tanh(v / eps)),
        ('atan', lambda v: 2 / sm.pi * sm.atan(v / eps)),
        ('algebraic', lambda v: v / sm.sqrt(v**2 + eps**2)),
        ('exact', sm.sign),
    ])
    def test_friction_sign_is_selectable(self, line, method, sign):
        N, O, P, x = line
        tsda = SpringDamperActuator(LinearPathway(O, P), friction=fF,
                                    regularization=eps, sign_method=method)
        assert sm.simplify(tsda.tension - fF * sign(x.diff(t))) == 0

    def test_exact_friction_sign_without_regularization(self, line):
        N, O, P, x = line
        tsda = SpringDamperActuator(LinearPathway(O, P), friction=fF)
        assert tsda.tension == fF * sm.sign(x.diff(t))

    def test_callable_actuation_gets_length_and_speed(self, line):
        N, O, P, x = line
        seen = []

        def actuation(length, lengthening_speed):
            seen.append((length, lengthening_speed))
            return F * sm.sin(t) - 3 * length * lengthening_speed

        tsda = SpringDamperActuator(LinearPathway(O, P), actuation=actuation)
        assert seen == [(x, x.diff(t))]
        assert tsda.actuation == F * sm.sin(t) - 3 * x * x.diff(t)
        assert tsda.tension == tsda.actuation

    def test_callable_actuation_must_return_a_scalar(self, line):
        N, O, P, x = line
        with pytest.raises(TypeError, match='actuation'):
            SpringDamperActuator(LinearPathway(O, P),
                                 actuation=lambda l, ld: N.x)

    def test_zero_length_pathway_is_an_error_not_nan(self, line):
        N, O, P, x = line
        Q = O.locatenew('Q', 0 * N.x)
        tsda = SpringDamperActuator(LinearPathway(O, Q), stiffness=k)
        for attribute in ('tension', 'force'):
            with pytest.raises(ValueError, match='zero length'):
                getattr(tsda, attribute)
        with pytest.raises(ValueError, match='zero length'):
            tsda.to_loads()

    def test_zero_length_segment_of_obstacle_set_is_an_error(self, line):
        N, O, P, x = line
        Q = O.locatenew('Q', sm.sin(x)**2 * N.y + sm.cos(x)**2 * N.y - N.y)
        tsda = SpringDamperActuator(ObstacleSetPathway(P, O, Q), stiffness=k)
        with pytest.raises(ValueError, match='between O and Q'):
            tsda.to_loads()

    def test_obstacle_set_pathway_spring_is_conservative(self):
        # a spring from a fixed point A over a fixed pulley B to the bob of
        # a pendulum: its generalized force is -dV/dq with V = k(l - l0)^2/2
        q, u = dynamicsymbols('q u')
        N = ReferenceFrame('N')
        A, B, O = Point('A'), Point('B'), Point('O')
        for point in (A, B, O):
            point.set_vel(N, 0)
        A.set_pos(O, -2 * N.x)
        B.set_pos(O, 1 * N.y)
        bob = Point('bob')
        bob.set_pos(O, 2 * (sm.sin(q) * N.x - sm.cos(q) * N.y))
        bob.set_vel(N, bob.pos_from(O).dt(N).subs(q.diff(t), u))
        tsda = SpringDamperActuator(ObstacleSetPathway(A, B, bob),
                                    stiffness=k, free_length=l0)
        kane = KanesMethod(N, [q], [u], kd_eqs=[q.diff(t) - u])
        fr, _ = kane.kanes_equations([Particle('p', bob, 1)],
                                     tsda.to_loads())
        V = k * (tsda.length - l0)**2 / 2
        check = sm.lambdify([q, k, l0], [fr[0], -V.diff(q)])
        for angle in (-2.0, -0.3, 0.4, 1.7):
            got, expected = check(angle, 30.0, 1.2)
            assert got == pytest.approx(expected, rel=1e-12)

    def test_wrapping_pathway_spring(self):
        # a cord of a spring wrapped on a cylinder of radius r from A (fixed)
        # to the particle at angle q: l = r q, generalized force -k(rq-l0) r
        q, u = dynamicsymbols('q u')
        r = sm.Symbol('r', positive=True)
        N = ReferenceFrame('N')
        O, A, B = Point('O'), Point('A'), Point('B')
        O.set_vel(N, 0)
        A.set_pos(O, r * N.x)
        A.set_vel(N, 0)
        B.set_pos(O, r * (sm.cos(q) * N.x + sm.sin(q) * N.y))
        B.set_vel(N, B.pos_from(O).dt(N).subs(q.diff(t), u))
        pathway = WrappingPathway(A, B, WrappingCylinder(r, O, N.z))
        tsda = SpringDamperActuator(pathway, stiffness=k, free_length=l0,
                                    damping=c)
        kane = KanesMethod(N, [q], [u], kd_eqs=[q.diff(t) - u])
        fr, _ = kane.kanes_equations([Particle('p', B, 1)], tsda.to_loads())
        expected = -(k * (r * q - l0) + c * r * u) * r
        check = sm.lambdify([q, u, k, l0, c, r], [fr[0], expected])
        for angle, speed in ((0.5, 0.0), (1.0, -2.0), (2.5, 3.0)):
            got, want = check(angle, speed, 30.0, 0.2, 1.5, 0.7)
            assert got == pytest.approx(want, rel=1e-12)

    def test_loads_follow_sympy_expansile_convention(self):
        # on every pathway the power of the loads is force * l' = -tension l'
        # (SymPy 1.14's WrappingPathway.to_loads has the opposite sign; the
        # actuator compensates, see actuators._pathway_loads)
        q = dynamicsymbols('q')
        r = sm.Symbol('r', positive=True)
        N = ReferenceFrame('N')
        O, A, B, C = Point('O'), Point('A'), Point('B'), Point('C')
        O.set_vel(N, 0)
        A.set_pos(O, r * N.x)
        A.set_vel(N, 0)
        B.set_pos(O, r * (sm.cos(q) * N.x + sm.sin(q) * N.y))
        B.set_vel(N, B.pos_from(O).dt(N))
        C.set_pos(O, 3 * r * N.y)
        C.set_vel(N, 0)
        pathways = [LinearPathway(A, B), ObstacleSetPathway(A, C, B),
                    WrappingPathway(A, B, WrappingCylinder(r, O, N.z))]
        for pathway in pathways:
            tsda = SpringDamperActuator(pathway, stiffness=k, actuation=F)
            got = power(tsda.to_loads(), N)
            expected = -tsda.tension * tsda.lengthening_speed
            check = sm.lambdify([q, q.diff(t), r, k, F], got - expected)
            for state in ((0.4, 1.1), (1.3, -0.7), (2.9, 2.0)):
                assert abs(check(*state, 0.5, 40.0, 3.0)) < 1e-12, pathway

    def test_repr_omits_defaults(self, line):
        N, O, P, x = line
        pathway = LinearPathway(O, P)
        assert repr(SpringDamperActuator(pathway)) == \
            'SpringDamperActuator(LinearPathway(O, P))'
        assert repr(SpringDamperActuator(
            pathway, stiffness=k, friction=fF, regularization=eps,
            sign_method='atan')) == (
            "SpringDamperActuator(LinearPathway(O, P), stiffness=k, "
            "friction=f_F, regularization=epsilon, sign_method='atan')")
        # defaults given as floats are defaults too (Float(0.0) != 0)
        assert repr(SpringDamperActuator(
            pathway, stiffness=2, damping=0.0, friction=0.0)) == \
            'SpringDamperActuator(LinearPathway(O, P), stiffness=2)'

    @pytest.mark.parametrize('name', ['stiffness', 'damping', 'free_length',
                                      'friction', 'regularization'])
    def test_negative_parameter_is_rejected(self, line, name):
        N, O, P, x = line
        with pytest.raises(ValueError, match=name):
            SpringDamperActuator(LinearPathway(O, P), **{name: -1})
        negative = sm.Symbol('a', negative=True)
        with pytest.raises(ValueError, match=name):
            SpringDamperActuator(LinearPathway(O, P), **{name: negative})

    def test_bad_types(self, line):
        N, O, P, x = line
        with pytest.raises(TypeError, match='pathway'):
            SpringDamperActuator((O, P), stiffness=k)
        with pytest.raises(TypeError, match='stiffness'):
            SpringDamperActuator(LinearPathway(O, P), stiffness='k')
        with pytest.raises(ValueError, match='sign_method'):
            SpringDamperActuator(LinearPathway(O, P), sign_method='sigmoid')

    def test_parameters_are_immutable(self, line):
        N, O, P, x = line
        tsda = SpringDamperActuator(LinearPathway(O, P), stiffness=k)
        for name, value in (('stiffness', 2), ('damping', 1),
                            ('actuation', F), ('pathway', tsda.pathway)):
            with pytest.raises(AttributeError):
                setattr(tsda, name, value)
        with pytest.raises(AttributeError):
            tsda.force = 3

    def test_works_in_system(self, line):
        from sympy.physics.mechanics import System
        N, O, P, x = line
        u = dynamicsymbols('u')
        system = System(N, O)
        system.add_coordinates(x)
        system.add_speeds(u)
        system.add_kdes(x.diff(t) - u)
        system.add_bodies(Particle('p', P, 2))
        P.set_vel(N, u * N.x)
        system.add_actuators(SpringDamperActuator(
            LinearPathway(O, P), stiffness=k, damping=c, free_length=l0))
        eom = system.form_eoms()
        expected = -2 * u.diff(t) - k * (x - l0) - c * u
        assert sm.simplify(eom[0] - expected) == 0


@pytest.fixture
def hinge():
    """B rotates about N.z by q relative to N."""
    q = dynamicsymbols('q')
    N, B = ReferenceFrame('N'), ReferenceFrame('B')
    B.orient_axis(N, N.z, q)
    return N, B, q


class TestRotationalSpringDamperActuator:

    def test_torque_is_seed_004_formula(self, hinge):
        N, B, q = hinge
        theta0 = sm.Symbol('theta_0')
        rsda = RotationalSpringDamperActuator(
            q, N.z, B, N, stiffness=k, damping=c, free_angle=theta0,
            friction=fF, actuation=F)
        qd = q.diff(t)
        T = k * (q - theta0) + c * qd + fF * sm.sign(qd) + F
        assert sm.simplify(rsda.resisting_torque - T) == 0
        assert sm.simplify(rsda.torque + T) == 0
        on_B, on_N = rsda.to_loads()
        # seed 004: Q_on_j = -T h; the reaction frame gets +T h
        assert on_B == Torque(B, -rsda.resisting_torque * N.z)
        assert on_N == Torque(N, rsda.resisting_torque * N.z)

    def test_angular_speed_is_axis_dot_relative_angular_velocity(self):
        # general frames: theta' = h . (w_target - w_reaction)
        q1, q2, q3 = dynamicsymbols('q1:4')
        N, A, B = (ReferenceFrame(name) for name in 'NAB')
        A.orient_body_fixed(N, (q1, q2, 0), 'ZXY')
        B.orient_axis(A, A.y, q3)
        rsda = RotationalSpringDamperActuator(q3, A.y, B, A, damping=c)
        expected = A.y.dot(B.ang_vel_in(N) - A.ang_vel_in(N))
        assert sm.simplify(rsda.angular_speed - expected) == 0
        assert sm.simplify(rsda.angular_speed - q3.diff(t)) == 0

    def test_spring_pulls_back_towards_free_angle(self, hinge):
        N, B, q = hinge
        rsda = RotationalSpringDamperActuator(q, N.z, B, N, stiffness=10,
                                              free_angle=0.5)
        on_B = rsda.to_loads()[0].vector.dot(N.z)
        assert on_B.subs(q, 1.0) == pytest.approx(-5.0)
        assert on_B.subs(q, 0.0) == pytest.approx(5.0)

    def test_power_of_damper_and_friction_never_positive(self, hinge):
        N, B, q = hinge
        rsda = RotationalSpringDamperActuator(q, N.z, B, N, damping=c,
                                              friction=fF)
        qd = q.diff(t)
        assert sm.simplify(power(rsda.to_loads(), N)
                           - (-c * qd**2 - fF * sm.sign(qd) * qd)) == 0

    def test_at_pin_joint(self):
        parent, child = RigidBody('P'), RigidBody('C')
        pin = PinJoint('pin', parent, child, joint_axis=parent.frame.x)
        rsda = RotationalSpringDamperActuator.at_pin_joint(
            pin, stiffness=k, damping=c)
        q, u = pin.coordinates[0], pin.speeds[0]
        assert rsda.angle == q
        assert rsda.axis == parent.frame.x
        assert rsda.target_frame == pin.child_interframe
        assert rsda.reaction_frame == pin.parent_interframe
        assert rsda.angular_speed == u
        assert rsda.resisting_torque == k * q + c * u
        with pytest.raises(TypeError, match='pin_joint'):
            RotationalSpringDamperActuator.at_pin_joint(parent, stiffness=k)

    def test_without_reaction_frame_uses_angle_rate(self, hinge):
        N, B, q = hinge
        rsda = RotationalSpringDamperActuator(q, N.z, B, damping=c)
        assert rsda.to_loads() == [Torque(B, -c * q.diff(t) * N.z)]

    def test_axis_is_normalized_and_must_be_nonzero(self, hinge):
        N, B, q = hinge
        rsda = RotationalSpringDamperActuator(q, 3 * N.z, B, N, stiffness=k)
        assert rsda.axis == N.z
        with pytest.raises(ValueError, match='axis'):
            RotationalSpringDamperActuator(q, 0 * N.z, B, N)
        with pytest.raises(TypeError, match='axis'):
            RotationalSpringDamperActuator(q, (0, 0, 1), B, N)

    def test_callable_actuation(self, hinge):
        N, B, q = hinge
        rsda = RotationalSpringDamperActuator(
            q, N.z, B, N, actuation=lambda angle, rate: F * angle * rate)
        assert rsda.actuation == F * q * q.diff(t)

    def test_validation_and_repr(self, hinge):
        N, B, q = hinge
        for name in ('stiffness', 'damping', 'friction', 'regularization'):
            with pytest.raises(ValueError, match=name):
                RotationalSpringDamperActuator(q, N.z, B, N, **{name: -2})
        rsda = RotationalSpringDamperActuator(q, N.z, B, N, stiffness=k,
                                              free_angle=-1)
        assert repr(rsda) == ('RotationalSpringDamperActuator(q(t), N.z, B, '
                              'N, stiffness=k, free_angle=-1)')
        with pytest.raises(AttributeError):
            rsda.stiffness = 3
        with pytest.raises(AttributeError):
            rsda.torque = 3


@pytest.mark.parametrize('bad', [np.nan, np.inf, -np.inf, sm.oo, sm.zoo,
                                 float('nan')])
@pytest.mark.parametrize('name', ['stiffness', 'damping', 'free_length',
                                  'friction', 'actuation'])
def test_nan_and_infinite_parameters_are_rejected(line, name, bad):
    # SpringDamperActuator(stiffness=nan) used to be accepted
    N, O, P, x = line
    with pytest.raises(ValueError, match=f'{name} must be finite'):
        SpringDamperActuator(LinearPathway(O, P), **{name: bad})


def test_rotational_actuator_rejects_nan_stiffness():
    q = dynamicsymbols('q')
    A = ReferenceFrame('A')
    B = A.orientnew('B', 'Axis', (q, A.z))
    with pytest.raises(ValueError, match='stiffness must be finite'):
        RotationalSpringDamperActuator(q, A.z, B, A, stiffness=np.nan)
    with pytest.raises(ValueError, match='free_angle must be finite'):
        RotationalSpringDamperActuator(q, A.z, B, A, free_angle=sm.oo)
