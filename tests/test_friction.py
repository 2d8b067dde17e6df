"""Tests of sympy_loads.friction: the scalar laws against the formulas of
seed 000 and Flores et al. (2023), their sign convention (friction never
adds energy), finite values at zero slip, and the argument checks."""

import math

import numpy as np
import pytest
import sympy as sm
from hypothesis import given, settings
from hypothesis import strategies as st

from sympy_loads import (coulomb_friction, friction_law, friction_magnitude,
                         smooth_sign, stribeck_friction, viscous_friction)

v = sm.Symbol('v', real=True)
N, mu_k, mu_s, v_s, c_v, eps = sm.symbols('N mu_k mu_s v_s c_v epsilon',
                                          positive=True)


class TestScalarLaws:

    def test_coulomb_is_seed_000_signum_form(self):
        # seed 000: Ff = -mu*Fn*sign(v)
        assert coulomb_friction(v, N, mu_k) == -mu_k * N * sm.sign(v)

    def test_coulomb_matches_seed_000_piecewise(self):
        # seed 000's Piecewise: mu Fn (v<0), -mu Fn (v>0), 0 (v=0)
        piecewise = sm.Piecewise((mu_k * N, v < 0), (-mu_k * N, v > 0),
                                 (0, True))
        law = coulomb_friction(v, N, mu_k)
        for value in (-3, -sm.Rational(1, 7), 0, sm.Rational(2, 5), 11):
            assert law.subs(v, value) == piecewise.subs(v, value)

    def test_viscous(self):
        assert viscous_friction(v, c_v) == -c_v * v

    def test_stribeck_formula(self):
        expected = (-(mu_k * N + (mu_s - mu_k) * N * sm.exp(-(v / v_s)**2))
                    * sm.sign(v) - c_v * v)
        law = stribeck_friction(v, N, mu_k, mu_s, v_s, viscous_coefficient=c_v)
        assert sm.simplify(law - expected) == 0

    def test_stribeck_general_exponent_uses_abs(self):
        law = stribeck_friction(v, N, mu_k, mu_s, v_s, exponent=1)
        expected = -(mu_k * N + (mu_s - mu_k) * N
                     * sm.exp(-sm.Abs(v) / v_s)) * sm.sign(v)
        assert sm.simplify(law - expected) == 0

    def test_stribeck_static_and_kinetic_limits(self):
        law = stribeck_friction(v, 10, 0.3, 0.5, 0.01)
        # just above zero slip: static level mu_s N = 5; far away: mu_k N = 3
        assert float(law.subs(v, 1e-9)) == pytest.approx(-5.0, rel=1e-12)
        assert float(law.subs(v, -1e-9)) == pytest.approx(5.0, rel=1e-12)
        assert float(law.subs(v, 1.0)) == pytest.approx(-3.0, rel=1e-12)

    def test_combined_law_reduces_to_parts(self):
        assert friction_law(v, N, kinetic_coefficient=mu_k) == \
            coulomb_friction(v, N, mu_k)
        assert friction_law(v, viscous_coefficient=c_v) == \
            viscous_friction(v, c_v)
        assert friction_law(v, N, kinetic_coefficient=mu_k,
                            viscous_coefficient=c_v) == \
            coulomb_friction(v, N, mu_k) + viscous_friction(v, c_v)

    @pytest.mark.parametrize('method, expected', [
        ('tanh', sm.tanh(v / eps)),
        ('atan', 2 / sm.pi * sm.atan(v / eps)),
        ('algebraic', v / sm.sqrt(v**2 + eps**2)),
        ('exact', sm.sign(v)),
    ])
    def test_regularized_sign_is_smooth_sign(self, method, expected):
        law = coulomb_friction(v, N, mu_k, regularization=eps,
                               sign_method=method)
        assert sm.simplify(law + mu_k * N * expected) == 0

    def test_friction_magnitude(self):
        s = sm.Symbol('s', nonnegative=True)
        assert friction_magnitude(
            s, N, kinetic_coefficient=mu_k, static_coefficient=mu_s,
            stribeck_speed=v_s, viscous_coefficient=c_v) == (
                mu_k * N + (mu_s - mu_k) * N * sm.exp(-s**2 / v_s**2)
                + c_v * s)


class TestZeroSlip:

    @pytest.mark.parametrize('method', ['tanh', 'atan', 'algebraic'])
    def test_smooth_law_is_finite_zero_at_rest_numerically(self, method):
        law = friction_law(v, 9.81, kinetic_coefficient=0.4,
                           static_coefficient=0.6, stribeck_speed=0.1,
                           viscous_coefficient=0.2, regularization=1e-3,
                           sign_method=method)
        f = sm.lambdify(v, law, modules='numpy', cse=True)
        values = f(np.array([0.0, -0.0]))
        assert np.all(np.isfinite(values))
        assert np.all(values == 0.0)

    def test_exact_law_is_zero_at_rest(self):
        law = friction_law(v, N, kinetic_coefficient=mu_k,
                           static_coefficient=mu_s, stribeck_speed=v_s)
        assert law.subs(v, 0) == 0
        f = sm.lambdify(v, law.subs({N: 2, mu_k: 0.3, mu_s: 0.5, v_s: 0.1}))
        assert f(0.0) == 0.0


@settings(max_examples=60, deadline=None)
@given(speed=st.floats(-1e3, 1e3, allow_nan=False),
       normal=st.floats(0, 1e4),
       kinetic=st.floats(0, 2),
       extra=st.floats(0, 1),
       stribeck=st.floats(1e-4, 10),
       viscous=st.floats(0, 100),
       epsilon=st.sampled_from([0, 1e-3, 0.1]),
       method=st.sampled_from(['tanh', 'atan', 'algebraic', 'exact']))
def test_friction_never_adds_energy(speed, normal, kinetic, extra, stribeck,
                                    viscous, epsilon, method):
    # power of the friction force on the sliding body, F v, is never > 0
    law = friction_law(speed, normal, kinetic_coefficient=kinetic,
                       static_coefficient=kinetic + extra,
                       stribeck_speed=stribeck, viscous_coefficient=viscous,
                       regularization=epsilon, sign_method=method)
    power = float(law) * speed
    assert math.isfinite(power)
    assert power <= 0.0


class TestArguments:

    @pytest.mark.parametrize('kwargs, match', [
        (dict(normal_force=-1), 'normal_force'),
        (dict(kinetic_coefficient=-0.1), 'kinetic_coefficient'),
        (dict(viscous_coefficient=-2), 'viscous_coefficient'),
        (dict(regularization=-1e-3), 'regularization'),
        (dict(static_coefficient=0.1, kinetic_coefficient=0.2,
              stribeck_speed=1), 'static_coefficient must be >='),
        (dict(static_coefficient=0.5), 'stribeck_speed'),
        (dict(stribeck_speed=0.5), 'static_coefficient'),
        (dict(static_coefficient=0.5, stribeck_speed=0), 'stribeck_speed'),
        (dict(static_coefficient=0.5, stribeck_speed=0.1, exponent=0),
         'exponent'),
        (dict(sign_method='sigmoid'), 'sign_method'),
    ])
    def test_bad_values_raise_value_error(self, kwargs, match):
        with pytest.raises(ValueError, match=match):
            friction_law(v, **kwargs)

    def test_every_law_names_its_sign_method_keyword(self):
        # one keyword convention: the laws say sign_method, smooth_sign
        # (whose argument is the sign itself) says method
        for law in (lambda: coulomb_friction(v, 1, 1, sign_method='erf'),
                    lambda: stribeck_friction(v, 1, 1, 2, 1,
                                              sign_method='erf'),
                    lambda: sliding_friction_force(
                        v * ReferenceFrame('A').x, 1, sign_method='erf')):
            with pytest.raises(ValueError, match="sign_method must be one"):
                law()
        with pytest.raises(ValueError, match="^method must be one"):
            smooth_sign(v, 1, method='erf')

    @pytest.mark.parametrize('kwargs, match', [
        (dict(speed='fast'), 'speed'),
        (dict(speed=v, normal_force=[1, 2]), 'normal_force'),
        (dict(speed=v, kinetic_coefficient='mu'), 'kinetic_coefficient'),
    ])
    def test_bad_types_raise_type_error(self, kwargs, match):
        with pytest.raises(TypeError, match=match):
            friction_law(**kwargs)

    def test_smooth_sign_unchanged(self):
        assert smooth_sign(v, eps) == sm.tanh(v / eps)
        assert smooth_sign(v) == sm.sign(v)
        assert smooth_sign(v, eps, method='exact') == sm.sign(v)

    @pytest.mark.parametrize('zero', [0.0, sm.Float(0), np.float64(0.0)])
    def test_float_zero_regularization_is_the_exact_sign(self, zero):
        """``Float(0.0) != 0`` in SymPy: a float zero regularization must
        still mean the exact sign, not ``tanh(zoo*v)``."""
        assert smooth_sign(v, zero) == sm.sign(v)
        assert coulomb_friction(v, N, mu_k, regularization=zero) == \
            -N * mu_k * sm.sign(v)
        law = friction_law(v, N, kinetic_coefficient=mu_k,
                           regularization=zero)
        assert not law.has(sm.zoo)
        f = sm.lambdify([v], law.subs({N: 2.0, mu_k: 0.5}))
        assert [f(-3.0), f(0.0), f(3.0)] == [1.0, 0.0, -1.0]
        A = ReferenceFrame('A')
        force = sliding_friction_force(v * A.x, N, kinetic_coefficient=mu_k,
                                       regularization=zero)
        assert not force.to_matrix(A).has(sm.zoo)

    def test_float_exponent_two_is_the_gaussian_stribeck_law(self):
        """exponent=2.0 gives the same (Gaussian, no Abs) law as 2."""
        assert stribeck_friction(v, N, mu_k, mu_s, v_s, exponent=2.0) == \
            stribeck_friction(v, N, mu_k, mu_s, v_s, exponent=2)


# --- the vector law and the sliding-friction load -------------------------

import warnings  # noqa: E402

from sympy.physics.mechanics import (CoulombKineticFriction,  # noqa
                                     KanesMethod, LinearPathway, Particle,
                                     Point, ReferenceFrame, RigidBody,
                                     dynamicsymbols)

from sympy_loads import SlidingFriction, sliding_friction_force  # noqa

t = dynamicsymbols._t


@pytest.fixture
def block_on_ground():
    """P moves freely in N; the ground is the N.x-N.y plane (normal N.z)."""
    x, y, z = dynamicsymbols('x y z')
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y + z * N.z)
    return N, O, P, (x, y, z)


class TestSlidingFrictionForce:

    @pytest.mark.parametrize('method', ['exact', 'tanh', 'atan',
                                        'algebraic'])
    def test_zero_slip_is_finite_zero_without_warnings(self, method):
        N = ReferenceFrame('N')
        vx, vy = sm.symbols('v_x v_y', real=True)
        F = sliding_friction_force(
            vx * N.x + vy * N.y, 9.81, kinetic_coefficient=0.5,
            static_coefficient=0.7, stribeck_speed=0.05,
            viscous_coefficient=0.3,
            regularization=0 if method == 'exact' else 1e-3,
            sign_method=method)
        f = sm.lambdify((vx, vy), F.to_matrix(N), modules='numpy', cse=True)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            at_rest = np.asarray(f(0.0, 0.0), dtype=float)
        assert np.all(at_rest == 0.0)

    @pytest.mark.parametrize('method', ['exact', 'tanh', 'algebraic'])
    def test_opposes_slip_with_law_magnitude(self, method):
        N = ReferenceFrame('N')
        vx, vy = sm.symbols('v_x v_y', real=True)
        eps = 0 if method == 'exact' else 1e-2
        law = dict(kinetic_coefficient=0.4, static_coefficient=0.6,
                   stribeck_speed=0.1, viscous_coefficient=2.0,
                   regularization=eps, sign_method=method)
        F = sliding_friction_force(vx * N.x + vy * N.y, 10.0, **law)
        f = sm.lambdify((vx, vy), F.to_matrix(N), modules='numpy')
        rng = np.random.default_rng(1)
        for _ in range(20):
            v = rng.normal(size=2)
            force = np.asarray(f(*v), dtype=float).ravel()[:2]
            speed = np.hypot(*v)
            # independent reference: the scalar law along the slip direction
            expected = float(friction_law(speed, 10.0, **law))
            assert force == pytest.approx(expected * v / speed, rel=1e-12)
            assert force @ v < 0

    def test_reduces_to_seed_000_component_form_away_from_zero(self):
        # seed 000: Fx = -|vx|/vx mu Fz (one-dimensional sliding)
        N = ReferenceFrame('N')
        vx = sm.Symbol('v_x', real=True)
        mu, Fz = sm.symbols('mu F_z', positive=True)
        F = sliding_friction_force(vx * N.x, Fz, kinetic_coefficient=mu)
        seed = -sm.Abs(vx) / vx * mu * Fz
        for value in (-2, -sm.Rational(1, 3), sm.Rational(5, 2)):
            assert F.dot(N.x).subs(vx, value) == seed.subs(vx, value)
        assert F.dot(N.x).subs(vx, 0) == 0   # seed's form is nan here

    def test_zero_slip_vector(self):
        assert sliding_friction_force(0 * ReferenceFrame('N').x, 1,
                                      kinetic_coefficient=1) == 0

    def test_slip_velocity_must_be_a_vector(self):
        with pytest.raises(TypeError, match='slip_velocity'):
            sliding_friction_force(v, 1, kinetic_coefficient=1)


class TestSlidingFriction:

    def test_normal_slip_is_ignored(self, block_on_ground):
        N, O, P, (x, y, z) = block_on_ground
        friction = SlidingFriction(P, N.z, N, normal_force=N_,
                                   viscous_coefficient=c_v)
        assert friction.slip_velocity == x.diff(t) * N.x + y.diff(t) * N.y
        assert friction.force == -c_v * (x.diff(t) * N.x + y.diff(t) * N.y)

    def test_inclined_normal_is_normalized(self, block_on_ground):
        N, O, P, (x, y, z) = block_on_ground
        friction = SlidingFriction(P, N.y + N.z, N, normal_force=N_,
                                   viscous_coefficient=c_v)
        n = (N.y + N.z) / sm.sqrt(2)
        assert (friction.normal - n).simplify() == 0
        assert sm.simplify(friction.slip_velocity.dot(n)) == 0

    def test_agrees_with_sympy_coulomb_kinetic_friction_where_defined(
            self, block_on_ground):
        # 1-D block at x > 0: SymPy's actuator gives -mu m g sign(x') there
        N, O, P, _ = block_on_ground
        x = dynamicsymbols('x', positive=True)
        Q = O.locatenew('Q', x * N.x)
        m, g, mu = sm.symbols('m g mu', positive=True)
        ours = SlidingFriction(Q, N.z, N, normal_force=m * g,
                               kinetic_coefficient=mu).force.dot(N.x)
        theirs = CoulombKineticFriction(mu, m * g, LinearPathway(O, Q),
                                        v_s=1).to_loads()[1].vector.dot(N.x)
        for speed in (-3, -sm.Rational(1, 2), sm.Rational(7, 4)):
            values = {x.diff(t): speed}
            assert ours.subs(values) == theirs.subs(values).simplify()

    def test_kanes_equations_of_block_with_viscous_friction(
            self, block_on_ground):
        # m x'' = -c_v x' and m y'' = -c_v y' on the ground plane
        N, O, P, (x, y, z) = block_on_ground
        ux, uy = dynamicsymbols('u_x u_y')
        Pp = O.locatenew('Pp', x * N.x + y * N.y)
        Pp.set_vel(N, ux * N.x + uy * N.y)
        m = sm.Symbol('m', positive=True)
        friction = SlidingFriction(Pp, N.z, N, normal_force=N_,
                                   viscous_coefficient=c_v)
        kane = KanesMethod(N, [x, y], [ux, uy],
                           kd_eqs=[x.diff(t) - ux, y.diff(t) - uy])
        fr, frstar = kane.kanes_equations([Particle('b', Pp, m)],
                                          friction.to_loads())
        assert sm.simplify(fr + frstar - sm.Matrix(
            [-m * ux.diff(t) - c_v * ux, -m * uy.diff(t) - c_v * uy])) == \
            sm.zeros(2, 1)

    def test_reaction_on_surface_body_and_internal_power(self):
        # block P slides on a cart that moves along N.x: the pair of forces
        # is equal and opposite and its total power F . v_slip is <= 0
        s, x, us, ux = dynamicsymbols('s x u_s u_x')
        N = ReferenceFrame('N')
        O = Point('O')
        O.set_vel(N, 0)
        cart = RigidBody('cart')
        cart.frame.orient_axis(N, N.z, 0)
        cart.masscenter.set_pos(O, s * N.x)
        cart.masscenter.set_vel(N, us * N.x)
        P = cart.masscenter.locatenew('P', x * N.x)
        P.set_vel(N, (us + ux) * N.x)
        mu, Fn, eps = sm.symbols('mu F_n epsilon', positive=True)
        friction = SlidingFriction(P, N.y, N, normal_force=Fn,
                                   kinetic_coefficient=mu,
                                   regularization=eps, surface=cart)
        on_P, on_cart = friction.to_loads()
        assert on_cart.point is friction.reaction_point
        assert (on_P.vector + on_cart.vector).simplify() == 0
        assert friction.slip_velocity == x.diff(t) * N.x
        assert friction.reaction_point.vel(N) == us * N.x
        total = (on_P.vector.dot(on_P.point.vel(N))
                 + on_cart.vector.dot(on_cart.point.vel(N)))
        f = sm.lambdify([us, ux, x.diff(t), mu, Fn, eps],
                        total.subs(x.diff(t), ux))
        for state in ((1.0, 0.5, 0.5), (-2.0, -0.3, -0.3), (0.0, 0.0, 0.0)):
            value = f(*state, 0.3, 10.0, 1e-2)
            assert np.isfinite(value) and value <= 0.0
        # the cart's own motion does no work through friction
        assert f(5.0, 0.0, 0.0, 0.3, 10.0, 1e-2) == 0.0

    def test_frame_surface_has_no_reaction(self, block_on_ground):
        N, O, P, (x, y, z) = block_on_ground
        belt = ReferenceFrame('B')
        belt.orient_axis(N, N.z, 0)
        O.set_vel(belt, 0)   # a point fixed in the belt frame
        friction = SlidingFriction(P, N.z, N, normal_force=1,
                                   viscous_coefficient=1, surface=belt)
        assert len(friction.to_loads()) == 1
        assert friction.reaction_point is None

    def test_repr_and_immutability(self, block_on_ground):
        N, O, P, _ = block_on_ground
        friction = SlidingFriction(P, N.z, N, normal_force=N_,
                                   kinetic_coefficient=mu_k,
                                   static_coefficient=mu_s,
                                   stribeck_speed=v_s, regularization=eps,
                                   sign_method='atan')
        assert repr(friction) == (
            "SlidingFriction(P, N.z, N, normal_force=N, "
            "kinetic_coefficient=mu_k, static_coefficient=mu_s, "
            "stribeck_speed=v_s, regularization=epsilon, "
            "sign_method='atan')")
        with pytest.raises(AttributeError):
            friction.point = O
        with pytest.raises(AttributeError):
            friction.normal_force = 2

    def test_argument_checks(self, block_on_ground):
        N, O, P, _ = block_on_ground
        with pytest.raises(TypeError, match='point'):
            SlidingFriction(N, N.z, N, normal_force=1)
        with pytest.raises(ValueError, match='normal'):
            SlidingFriction(P, 0 * N.z, N, normal_force=1)
        with pytest.raises(TypeError, match='frame'):
            SlidingFriction(P, N.z, O, normal_force=1)
        with pytest.raises(TypeError, match='surface'):
            SlidingFriction(P, N.z, N, normal_force=1, surface=O)
        with pytest.raises(ValueError, match='kinetic_coefficient'):
            SlidingFriction(P, N.z, N, normal_force=1,
                            kinetic_coefficient=-1)
        with pytest.raises(ValueError, match='normal_force'):
            SlidingFriction(P, N.z, N, normal_force=-1)
        with pytest.raises(ValueError, match='sign_method'):
            SlidingFriction(P, N.z, N, normal_force=1, sign_method='x')


N_ = N  # the normal force symbol, under a name that does not clash


# -- Jacobians at zero slip (no DiracDelta, no Piecewise, no NaN) ------------

def _jacobian_check(force, variables, point, fd_tol, step=1e-6):
    """Lambdify ``force`` (a column Matrix) and its Jacobian, evaluate both
    at ``point`` with warnings as errors, compare the Jacobian with central
    finite differences of the force (absolute tolerance ``fd_tol``) and
    return it."""
    f = sm.lambdify([variables], force, modules='numpy', cse=True)
    jac = sm.lambdify([variables], force.jacobian(variables),
                      modules='numpy', cse=True)
    x = np.array(point, dtype=float)
    with np.errstate(all='raise'):
        value = np.asarray(f(x), dtype=float)
        J = np.asarray(jac(x), dtype=float)
        fd = np.column_stack([
            (np.asarray(f(x + step * e), dtype=float)
             - np.asarray(f(x - step * e), dtype=float)).ravel() / (2 * step)
            for e in np.eye(len(x))])
    assert np.all(np.isfinite(value)) and np.all(np.isfinite(J))
    np.testing.assert_allclose(J, fd, rtol=0, atol=fd_tol)
    return J


class TestJacobianAtZeroSlip:
    """d F/d v of SlidingFriction lambdifies (NumPy) and is finite at exactly
    zero slip and at a sliding state, where it matches central finite
    differences (step 1e-6, abs. tolerance 1e-6 for forces of order 1)."""

    def friction_force(self, **options):
        from sympy.physics.mechanics import Point, ReferenceFrame
        from sympy_loads import SlidingFriction
        Nf = ReferenceFrame('N')
        speeds = sm.symbols('v_x v_y v_z', real=True)
        O = Point('O')
        O.set_vel(Nf, 0)
        P = Point('P')
        P.set_vel(Nf, sum((s * e for s, e in zip(speeds, Nf)), 0 * Nf.x))
        friction = SlidingFriction(P, Nf.z, Nf, normal_force=2, **options)
        force = friction.to_loads()[0].vector.to_matrix(Nf)
        return force, list(speeds)

    @pytest.mark.parametrize('method, slope', [
        ('tanh', 1 / 0.1), ('atan', 2 / (math.pi * 0.1)),
        ('algebraic', 1 / 0.1)])
    def test_smooth_sign_at_rest_and_sliding(self, method, slope):
        force, speeds = self.friction_force(
            kinetic_coefficient=0.5, static_coefficient=0.7,
            stribeck_speed=0.3, viscous_coefficient=0.2,
            regularization=0.1, sign_method=method)
        for name in ('DiracDelta', 'Piecewise'):
            assert not force.jacobian(speeds).has(getattr(sm, name))
        J0 = _jacobian_check(force, speeds, [0, 0, 0.4], 1e-6)
        # at rest: -(mu_s N sgn'(0) + c_v) in the plane, 0 along the normal
        expected = -(0.7 * 2 * slope + 0.2)
        np.testing.assert_allclose(J0, np.diag([expected, expected, 0]),
                                   rtol=1e-12, atol=1e-12)
        _jacobian_check(force, speeds, [0.3, -0.2, 0.4], 1e-6)

    def test_exact_coulomb_jacobian_finite_at_rest(self):
        force, speeds = self.friction_force(kinetic_coefficient=0.5,
                                            viscous_coefficient=0.2)
        jac = sm.lambdify([speeds], force.jacobian(speeds), cse=True)
        with np.errstate(all='raise'):
            J0 = np.asarray(jac(np.zeros(3)), dtype=float)
        # the set-valued Coulomb part has no derivative at rest: only the
        # viscous part remains
        np.testing.assert_array_equal(J0, np.diag([-0.2, -0.2, 0.0]))
        _jacobian_check(force, speeds, [0.3, -0.2, 0.4], 1e-6)

    def test_sliding_friction_force_value_at_rest_unchanged(self):
        from sympy.physics.mechanics import ReferenceFrame
        from sympy_loads import sliding_friction_force
        Nf = ReferenceFrame('N')
        vx, vy = sm.symbols('v_x v_y', real=True)
        F = sliding_friction_force(vx * Nf.x + vy * Nf.y, 2,
                                   kinetic_coefficient=0.5,
                                   regularization=0.1)
        assert F.subs({vx: 0, vy: 0}) == 0
        f = sm.lambdify((vx, vy), F.to_matrix(Nf), cse=True)
        np.testing.assert_allclose(
            np.asarray(f(0.3, 0.4), dtype=float).ravel(),
            [-np.tanh(5) * 0.6, -np.tanh(5) * 0.8, 0], rtol=1e-14)
        # a scalar lambdify call works with the math module, too
        g = sm.lambdify((vx, vy), F.to_matrix(Nf)[0], modules='math')
        assert g(0.0, 0.0) == 0.0
        assert abs(g(0.3, 0.4) + math.tanh(5) * 0.6) < 1e-15


def test_linearize_block_with_smooth_sliding_friction():
    """KanesMethod.linearize of a block on the ground (default, not real,
    dynamicsymbols) pushed by a force F, with smooth SlidingFriction, about
    a sliding state: A lambdifies and matches central finite differences of
    the nonlinear right-hand side (abs. tolerance 1e-6)."""
    from sympy.physics.mechanics import (KanesMethod, Particle, Point,
                                         ReferenceFrame, dynamicsymbols)
    from sympy_loads import SlidingFriction
    x, y, ux, uy = dynamicsymbols('x y u_x u_y')
    Nf = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(Nf, 0)
    P = O.locatenew('P', x * Nf.x + y * Nf.y)
    P.set_vel(Nf, ux * Nf.x + uy * Nf.y)
    m, g, mu, F = 2.0, 9.81, 0.3, sm.Symbol('F')
    friction = SlidingFriction(P, Nf.z, Nf, normal_force=m * g,
                               kinetic_coefficient=mu, regularization=0.05,
                               viscous_coefficient=0.1)
    kane = KanesMethod(Nf, [x, y], [ux, uy],
                       kd_eqs=[x.diff() - ux, y.diff() - uy])
    kane.kanes_equations([Particle('b', P, m)],
                         friction.to_loads() + [(P, F * Nf.x)])
    states = [x, y, ux, uy]
    op = {x: 0.5, y: -0.2, ux: 0.4, uy: -0.3, F: 1.5}
    A = kane.linearize(op_point=op, A_and_B=True)[0]
    A = np.asarray(A.evalf(), dtype=float)
    rhs = sm.lambdify([states], kane.rhs().subs(F, op[F]), cse=True)
    x0 = np.array([op[s] for s in states])
    h = 1e-6
    fd = np.column_stack([(np.asarray(rhs(x0 + h * e), dtype=float)
                           - np.asarray(rhs(x0 - h * e), dtype=float)
                           ).ravel() / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(A, fd, rtol=0, atol=1e-6)
    # and the symbolic A (no op_point) lambdifies and is finite at rest
    A_sym = kane.linearize(A_and_B=True)[0]
    assert not A_sym.has(sm.DiracDelta)
    f_A = sm.lambdify([states, F], A_sym, cse=True)
    with np.errstate(all='raise'):
        A0 = np.asarray(f_A(np.zeros(4), 0.0), dtype=float)
    # at rest: d(udot)/du = -(mu m g/eps + c_v)/m on the diagonal
    np.testing.assert_allclose(
        A0[2:, 2:], -(mu * m * g / 0.05 + 0.1) / m * np.eye(2), rtol=1e-12)
