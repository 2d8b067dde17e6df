"""Tests of sympy_loads.joint_friction: joint reactions and joint friction.

References used: hand derivations (Newton's second law for a pendulum bob,
Newton-Euler for a chain), SymPy's own KanesMethod(u_auxiliary=...) and the
friction laws of seed 004.
"""

import numpy as np
import pytest
import sympy as sm
from sympy.physics.mechanics import (CylindricalJoint, Force, KanesMethod,
                                     Particle, PinJoint, Point,
                                     PrismaticJoint, ReferenceFrame,
                                     RigidBody, SphericalJoint, System, Torque,
                                     WeldJoint, dynamicsymbols, inertia)

from sympy_loads import JointFriction, JointReaction, joint_reactions

m, m2, g, L, L2, mu, R = sm.symbols('m m2 g L L2 mu R', positive=True)
q, u = dynamicsymbols('q u')
t = dynamicsymbols._t


def point_mass(name, mass):
    body = RigidBody(name, mass=mass)
    body.central_inertia = inertia(body.frame, 0, 0, 0)
    return body


def pendulum(bob_inertia=0, friction=None):
    """Bob on a pin at distance L; theta = q - pi/2 from the downward
    vertical; bob.x points from the bob to the pin."""
    ceiling = RigidBody('ceiling')
    bob = RigidBody('bob', mass=m)
    bob.central_inertia = inertia(bob.frame, 0, 0, bob_inertia)
    pin = PinJoint('pin', ceiling, bob, coordinates=q, speeds=u,
                   child_point=L * bob.frame.x, joint_axis=ceiling.z)
    system = System.from_newtonian(ceiling)
    system.add_bodies(bob)
    system.add_joints(pin)
    system.apply_uniform_gravity(-g * ceiling.y)
    if friction is not None:
        system.add_actuators(JointFriction(pin, **friction))
    return system, pin


def double_pendulum():
    """Two point masses on pins in a chain, gravity along -y:
    ``(system, (j1, j2), (q1, q2, u1, u2))``."""
    q1, q2, u1, u2 = dynamicsymbols('q1 q2 u1 u2')
    ceiling = RigidBody('ceiling')
    b1, b2 = point_mass('b1', m), point_mass('b2', m2)
    j1 = PinJoint('j1', ceiling, b1, coordinates=q1, speeds=u1,
                  child_point=L * b1.frame.x, joint_axis=ceiling.z)
    j2 = PinJoint('j2', b1, b2, coordinates=q2, speeds=u2,
                  child_point=L2 * b2.frame.x, joint_axis=b1.z)
    system = System.from_newtonian(ceiling)
    system.add_bodies(b1, b2)
    system.add_joints(j1, j2)
    system.apply_uniform_gravity(-g * ceiling.y)
    return system, (j1, j2), (q1, q2, u1, u2)


class TestJointReactions:

    def test_pendulum_radial_and_tangential_reaction(self):
        # Newton for the bob (point mass): tension m (g cos(theta) + L
        # theta'^2) toward the pin, tangential component m (g sin(theta) +
        # L theta'') with theta = q - pi/2, here written in q.
        system, pin = pendulum()
        r = joint_reactions(pin, system)
        fx, fy, fz = r.force_components
        theta = q - sm.pi / 2
        tension = m * (g * sm.cos(theta) + L * u**2)
        tangential = -m * (g * sm.sin(theta) + L * u.diff(t))
        assert sm.simplify(fx - tension) == 0
        assert sm.simplify(fy - tangential) == 0
        assert fz == 0
        assert list(r.torque_components) == [0, 0, 0]
        assert isinstance(r, JointReaction)

    def test_pendulum_reaction_with_equations_of_motion(self):
        # Along the motion u' = g cos(q)/L: the bob's tangential reaction
        # vanishes and the tension is m(g sin q + L u^2).
        system, pin = pendulum()
        system.form_eoms()
        kane = system.eom_method
        udot = sm.solve(kane.forcing - kane.mass_matrix
                        * sm.Matrix([u.diff(t)]), u.diff(t))[u.diff(t)]
        r = joint_reactions(pin, system)
        assert sm.simplify(udot - g * sm.cos(q) / L) == 0
        assert sm.simplify(r.force_components[1].subs(u.diff(t), udot)) == 0

    def test_compound_pendulum_carries_tangential_reaction(self):
        # With a central inertia I, the EoM is (I + m L^2) u' = m g L cos q
        # and the tangential reaction m (g cos q - L u') is I m g cos q /
        # (I + m L^2), nonzero.
        I = sm.Symbol('I', positive=True)
        system, pin = pendulum(bob_inertia=I)
        r = joint_reactions(pin, system)
        udot = m * g * L * sm.cos(q) / (I + m * L**2)
        fy = r.force_components[1].subs(u.diff(t), udot)
        assert sm.simplify(fy - I * m * g * sm.cos(q) / (I + m * L**2)) == 0

    def test_matches_sympy_auxiliary_speeds(self):
        # Independent reference: the same pendulum written by hand with two
        # auxiliary speeds along A.x, A.y and the reaction as unknown loads;
        # SymPy's KanesMethod(u_auxiliary=...) gives auxiliary_eqs.
        ua1, ua2 = dynamicsymbols('ua1 ua2')
        R1, R2 = sm.symbols('R1 R2')
        N = ReferenceFrame('N')
        A = ReferenceFrame('A')
        A.orient_axis(N, q, N.z)
        A.set_ang_vel(N, u * N.z)
        O = Point('O')
        O.set_vel(N, 0)
        P = O.locatenew('P', -L * A.x)
        P.set_vel(N, -L * u * A.y + ua1 * A.x + ua2 * A.y)
        kane = KanesMethod(N, [q], [u], kd_eqs=[q.diff(t) - u],
                           u_auxiliary=[ua1, ua2])
        kane.kanes_equations([Particle('p', P, m)],
                             [(P, -m * g * N.y + R1 * A.x + R2 * A.y)])
        aux = kane.auxiliary_eqs.subs({ua1: 0, ua2: 0})
        sol = sm.solve(aux, [R1, R2])
        system, pin = pendulum()
        r = joint_reactions(pin, system)
        assert sm.simplify(r.force_components[0] - sol[R1]) == 0
        assert sm.simplify(r.force_components[1] - sol[R2]) == 0

    def test_chain_reaction_includes_descendants(self):
        # Double pendulum: the upper pin carries both bobs. Newton-Euler by
        # hand: R1 = m a1 + m2 a2 + (m + m2) g y, R2 = m2 a2 + m2 g y,
        # compared numerically at random states.
        system, (j1, j2), (q1, q2, u1, u2) = double_pendulum()
        N = j1.parent.frame
        a1 = j1.child.masscenter.acc(N)
        a2 = j2.child.masscenter.acc(N)
        hand1 = m * a1 + m2 * a2 + (m + m2) * g * N.y
        hand2 = m2 * a2 + m2 * g * N.y
        kd = {q1.diff(t): u1, q2.diff(t): u2}
        rng = np.random.default_rng(1)
        for joint, hand in ((j1, hand1), (j2, hand2)):
            r = joint_reactions(joint, system)
            diff = (r.force - hand).to_matrix(N).xreplace(kd)
            args = [q1, q2, u1, u2, u1.diff(t), u2.diff(t), m, m2, g, L, L2]
            f = sm.lambdify(args, diff)
            for _ in range(3):
                vals = rng.uniform(0.3, 2.0, len(args))
                assert np.allclose(np.asarray(f(*vals), float), 0,
                                   atol=1e-12)
            assert list(r.torque_components) == [0, 0, 0]

    def test_kanes_method_model_and_explicit_child_bodies(self):
        system, pin = pendulum()
        system.form_eoms()
        from_system = joint_reactions(pin, system)
        from_kane = joint_reactions(pin, system.eom_method)
        explicit = joint_reactions(pin, system, child_bodies=[pin.child])
        for other in (from_kane, explicit):
            difference = other.force_components - from_system.force_components
            assert sm.simplify(difference) == sm.zeros(3, 1)

    def test_prismatic_incline_normal_force(self):
        a = sm.Symbol('alpha', positive=True)
        ground, block = RigidBody('ground'), RigidBody('block', mass=m)
        slide = PrismaticJoint('s', ground, block, joint_axis=sm.cos(a)
                               * ground.x - sm.sin(a) * ground.y)
        system = System.from_newtonian(ground)
        system.add_bodies(block)
        system.add_joints(slide)
        system.apply_uniform_gravity(-g * ground.y)
        r = joint_reactions(slide, system)
        fx, fy, fz = r.force_components
        assert sm.simplify(fx**2 + fy**2 - (m * g * sm.cos(a))**2) == 0
        assert fz == 0
        # The axes are orthonormal and right-handed, z along the slope.
        ex, ey, ez = r.axes
        N = ground.frame
        assert sm.simplify(ex.cross(ey).dot(ez)) == 1
        assert sm.simplify(ez.dot(sm.cos(a) * N.x - sm.sin(a) * N.y)) == 1

    def test_spherical_pendulum_reaction(self):
        ceiling = RigidBody('ceiling')
        bob = point_mass('bob', m)
        ball = SphericalJoint('ball', ceiling, bob,
                              child_point=L * bob.frame.z)
        system = System.from_newtonian(ceiling)
        system.add_bodies(bob)
        system.add_joints(ball)
        system.apply_uniform_gravity(-g * ceiling.z)
        r = joint_reactions(ball, system)
        N = ceiling.frame
        hand = m * bob.masscenter.acc(N) + m * g * N.z
        diff = (r.force - hand).to_matrix(N).xreplace(
            {qi.diff(t): ui for qi, ui in zip(ball.coordinates, ball.speeds)})
        args = list(ball.coordinates) + list(ball.speeds) + [
            ui.diff(t) for ui in ball.speeds] + [m, g, L]
        f = sm.lambdify(args, diff)
        vals = np.random.default_rng(2).uniform(0.2, 1.5, len(args))
        assert np.allclose(np.asarray(f(*vals), float), 0, atol=1e-12)
        assert list(r.torque_components) == [0, 0, 0]

    def test_cylindrical_reaction_components(self):
        # A rod on a vertical-axis cylinder joint in gravity along -y (axis
        # x): the joint carries the weight and the moment of it.
        ground, rod = RigidBody('ground'), point_mass('rod', m)
        cyl = CylindricalJoint('c', ground, rod, joint_axis=ground.x,
                               child_point=-L * rod.frame.y)
        system = System.from_newtonian(ground)
        system.add_bodies(rod)
        system.add_joints(cyl)
        system.apply_uniform_gravity(-g * ground.z)
        r = joint_reactions(cyl, system)
        assert r.force_components[2] == 0 and r.torque_components[2] == 0
        # At rest, the radial load is the weight.
        rest = {ui: 0 for ui in cyl.speeds}
        rest.update({ui.diff(t): 0 for ui in cyl.speeds})
        fx, fy, _ = r.force_components.xreplace(rest)
        assert sm.simplify(fx**2 + fy**2 - (m * g)**2) == 0

    def test_load_at_a_point_fixed_in_the_child_is_on_the_child_side(self):
        # A force F at a tip point (not the mass center) of the bob: as a
        # function of q, u, u' the reaction changes by exactly -F.
        system, pin = pendulum()
        before = joint_reactions(pin, system).force
        bob, N = pin.child, system.frame
        tip = bob.masscenter.locatenew('tip', -L / 2 * bob.frame.x)
        tip.v2pt_theory(bob.masscenter, N, bob.frame)
        F = sm.Symbol('F') * N.x
        system.add_loads(Force(tip, F))
        # A force on the ceiling (parent side) changes nothing.
        system.add_loads(Force(pin.parent.masscenter, 7 * N.y))
        after = joint_reactions(pin, system).force
        assert sm.simplify((after - before + F).to_matrix(N)) == sm.zeros(3, 1)

    def test_load_on_unattached_point_needs_child_loads(self):
        system, pin = pendulum()
        stray = Point('stray')
        stray.set_vel(system.frame, 0)
        system.add_loads(Force(stray, system.frame.x))
        with pytest.raises(ValueError, match='child_loads'):
            joint_reactions(pin, system)
        # Stating the child's loads explicitly gives the plain pendulum.
        r = joint_reactions(pin, system, child_loads=[
            (pin.child.masscenter, -m * g * system.frame.y)])
        plain_system, plain_pin = pendulum()
        plain = joint_reactions(plain_pin, plain_system)
        assert r.force_components == plain.force_components

    def test_closed_loop_needs_child_bodies(self):
        ground, a = RigidBody('ground'), RigidBody('a')
        j1 = PinJoint('j1', ground, a, joint_axis=ground.z)
        j2 = WeldJoint('j2', a, ground)
        system = System.from_newtonian(ground)
        system.add_bodies(a)
        system.add_joints(j1, j2)
        with pytest.raises(ValueError, match='loop'):
            joint_reactions(j1, system)

    def test_constrained_model_needs_child_bodies(self):
        system, pin = pendulum()
        x, w = dynamicsymbols('x w')
        system.add_coordinates(x)
        system.add_speeds(w, independent=False)
        system.add_kdes(x.diff(t) - w)
        system.add_nonholonomic_constraints(w - u)
        with pytest.raises(ValueError, match='dependent speeds'):
            joint_reactions(pin, system)

    def test_reaction_loads_balance_the_child(self):
        # Newton for the bob: applied loads + reaction = m a (resultant).
        from sympy_loads import resultant
        system, pin = pendulum()
        r = joint_reactions(pin, system)
        on_child = [ld for ld in r.to_loads()
                    if ld.location in (pin.child_point, pin.child.frame)]
        total = resultant(on_child + [(pin.child.masscenter,
                                       -m * g * system.frame.y)])
        ma = m * pin.child.masscenter.acc(system.frame)
        diff = (total - ma).to_matrix(system.frame).xreplace(
            {q.diff(t): u})
        assert sm.simplify(diff) == sm.zeros(3, 1)
        # The parent takes the opposite force.
        assert r.to_loads()[0].force + r.to_loads()[1].force == 0

    def test_reaction_repr_lists_its_components(self):
        # a block on a horizontal slider: the slider carries its weight m g
        ground, block = RigidBody('ground'), RigidBody('block', mass=m)
        slider = PrismaticJoint('s', ground, block, joint_axis=ground.x)
        system = System.from_newtonian(ground)
        system.add_bodies(block)
        system.add_joints(slider)
        system.apply_uniform_gravity(-g * ground.y)
        r = joint_reactions(slider, system)
        assert repr(r) == (
            f'JointReaction({slider}, force_components=[g*m, 0, 0], '
            f'torque_components=[0, 0, 0])')
        assert r.force == g * m * block.frame.y
        with pytest.raises(AttributeError):
            r.force_components = sm.zeros(3, 1)

    def test_joint_of_another_model_is_named(self):
        """A joint that is not in the model: a ValueError naming it (SymPy
        said "Velocity of point b_masscenter has not been defined")."""
        system, pin = pendulum()
        a, b = RigidBody('a', mass=m), RigidBody('b', mass=m)
        stray = PinJoint('stray', a, b, joint_axis=a.z)
        with pytest.raises(ValueError, match="joint 'stray' is not part of "
                           r"the model: its coordinates \(q_stray\(t\)\)"):
            joint_reactions(stray, system)
        kane = KanesMethod(system.frame, system.q, system.u,
                           kd_eqs=system.kdes, bodies=system.bodies)
        with pytest.raises(ValueError, match="joint 'stray' is not part"):
            joint_reactions(stray, kane)
        # the model's own joint still gives the bob's tension m L u**2
        r = joint_reactions(pin, kane)
        assert sm.simplify(r.force_components[0] - m * L * u**2) == 0

    def test_bad_arguments(self):
        system, pin = pendulum()
        with pytest.raises(TypeError, match='joint must be'):
            joint_reactions('pin', system)
        with pytest.raises(TypeError, match='model must be'):
            joint_reactions(pin, [pin.child])

    @staticmethod
    def welded_arm():
        """An arm on a pin at O (its mass center) carrying a block welded
        at distance d along the arm, the weld's child point at c along the
        block's y axis from the block's mass center; gravity along -y."""
        mA, mB, d, c, Izz = sm.symbols('m_A m_B d c I_zz', positive=True)
        ground = RigidBody('ground')
        arm = RigidBody('arm', mass=mA)
        block = RigidBody('block', mass=mB)
        block.central_inertia = inertia(block.frame, 0, 0, Izz)
        pin = PinJoint('pin', ground, arm, coordinates=q, speeds=u,
                       joint_axis=ground.z)
        weld = WeldJoint('weld', arm, block, parent_point=d * arm.frame.x,
                         child_point=c * block.frame.y)
        system = System.from_newtonian(ground)
        system.add_bodies(arm, block)
        system.add_joints(pin, weld)
        system.apply_uniform_gravity(-g * ground.y)
        return system, pin, weld, (mA, mB, d, c, Izz)

    def test_weld_joint_transmits_all_six_components(self):
        """Hand derivation: the block's mass center is at d x - c y from O
        in the arm's frame, a = u' z x r - u**2 r, so the weld's force on the
        block is m_B (c u' - d u**2 + g sin q, d u' + c u**2 + g cos q, 0)
        and its torque about the child point c F_x + I_zz u' (z)."""
        system, pin, weld, (mA, mB, d, c, Izz) = self.welded_arm()
        r = joint_reactions(weld, system)
        block = weld.child
        assert r.axes == (block.frame.x, block.frame.y, block.frame.z)
        ud = u.diff(t)
        Fx = mB * (c * ud - d * u**2 + g * sm.sin(q))
        Fy = mB * (d * ud + c * u**2 + g * sm.cos(q))
        expected_force = sm.Matrix([Fx, Fy, 0])
        expected_torque = sm.Matrix([0, 0, c * Fx + Izz * ud])
        assert sm.simplify(r.force_components - expected_force) == \
            sm.zeros(3, 1)
        assert sm.simplify(r.torque_components - expected_torque) == \
            sm.zeros(3, 1)
        # The pin carries the block too (the arm's mass center at O does
        # not accelerate): the weld's force plus the arm's weight.
        rp = joint_reactions(pin, system)
        diff = (rp.force - r.force - mA * g * system.frame.y).to_matrix(
            system.frame)
        assert sm.simplify(diff) == sm.zeros(3, 1)

    def test_weld_joint_outside_the_model_or_in_a_kanes_method(self):
        system, pin, weld, _ = self.welded_arm()
        other, _, _, _ = self.welded_arm()
        with pytest.raises(ValueError, match="joint 'weld' is not part of "
                           'the model: it is not among model.joints'):
            joint_reactions(weld, other)
        kane = KanesMethod(system.frame, system.q, system.u,
                           kd_eqs=system.kdes, bodies=system.bodies,
                           forcelist=system.loads)
        with pytest.raises(ValueError, match='has no speeds.*child_bodies'):
            joint_reactions(weld, kane)
        r = joint_reactions(weld, kane, child_bodies=[weld.child])
        assert sm.simplify(r.force_components - joint_reactions(
            weld, system).force_components) == sm.zeros(3, 1)

    def test_parent_of_a_prismatic_joint_balances_with_to_loads(self):
        """A block sliding on a swinging arm: the arm's Newton-Euler
        closes with the loads of to_loads() of both joints; the parent of
        the slider takes its force at the block's place, i.e. -force at
        the parent point and the couple -r x force (it was missing)."""
        x, w = dynamicsymbols('x w')
        mA, mB, IA = sm.symbols('m_A m_B I_A', positive=True)
        ground = RigidBody('ground')
        arm = RigidBody('arm', mass=mA)
        arm.central_inertia = inertia(arm.frame, 0, 0, IA)
        block = point_mass('block', mB)
        pin = PinJoint('pin', ground, arm, coordinates=q, speeds=u,
                       child_point=-L * arm.frame.x, joint_axis=ground.z)
        slider = PrismaticJoint('slider', arm, block, coordinates=x,
                                speeds=w, parent_point=L * arm.frame.y,
                                joint_axis=arm.frame.x)
        system = System.from_newtonian(ground)
        system.add_bodies(arm, block)
        system.add_joints(pin, slider)
        system.apply_uniform_gravity(-g * ground.y)
        N = system.frame
        loads = joint_reactions(pin, system).to_loads()[::2] + \
            joint_reactions(slider, system).to_loads()[1::2]
        loads.append(Force(arm.masscenter, -mA * g * N.y))
        G = arm.masscenter
        F = sum((ld.force for ld in loads if isinstance(ld, Force)),
                0 * N.x) - mA * G.acc(N)
        M = sum((ld.point.pos_from(G).cross(ld.force)
                 if isinstance(ld, Force) else ld.torque
                 for ld in loads), 0 * N.x)
        M -= arm.central_inertia.dot(arm.frame.ang_acc_in(N))
        # The reactions hold along the motion: u', w' from SymPy's
        # equations of motion at a state.
        values = {q: 0.7, x: 1.3, u: -0.4, w: 0.9, mA: 2.0, mB: 1.5,
                  IA: 0.4, L: 0.8, g: 9.81}
        system.form_eoms()
        rates = system.mass_matrix.LUsolve(system.forcing).subs(values)
        values = {u.diff(t): rates[0], w.diff(t): rates[1]} | values
        kin = {q.diff(t): u, x.diff(t): w}
        for vec in (F, M):
            residual = vec.to_matrix(N).xreplace(kin)
            residual = residual.subs(
                {k: v for k, v in values.items()
                 if isinstance(k, sm.Derivative)}).subs(values)
            assert max(abs(float(c)) for c in residual) < 1e-12


class TestJointFriction:

    def joints(self):
        a, b = RigidBody('a'), RigidBody('b')
        return {'pin': PinJoint('p', a, b, joint_axis=a.z),
                'prismatic': PrismaticJoint('s', a, b, joint_axis=a.x),
                'cylindrical': CylindricalJoint('c', a, b, joint_axis=a.y),
                'spherical': SphericalJoint('b', a, b)}

    def test_symbols_and_loads_of_each_joint(self):
        j = self.joints()
        pin = JointFriction(j['pin'], coefficient=mu, radius=R)
        (T,) = pin.symbols
        a_z = j['pin'].parent.frame.z
        u_p = j['pin'].speeds[0]
        assert pin.to_loads() == [
            Torque(j['pin'].child.frame, -T * sm.sign(u_p) * a_z),
            Torque(j['pin'].parent.frame, T * sm.sign(u_p) * a_z)]
        pri = JointFriction(j['prismatic'], coefficient=mu,
                            regularization=sm.Rational(1, 10),
                            sign_method='algebraic')
        (f,) = pri.symbols
        v = j['prismatic'].speeds[0]
        a_x = j['prismatic'].parent.frame.x
        s = v / sm.sqrt(v**2 + sm.Rational(1, 100))
        loads = pri.to_loads()
        assert loads[0].point is j['prismatic'].child_point
        assert sm.simplify((loads[0].force - (-f * s * a_x)).magnitude()) == 0
        cyl = JointFriction(j['cylindrical'], coefficient=mu, radius=R)
        assert len(cyl.symbols) == 2 and len(cyl.to_loads()) == 4
        sph = JointFriction(j['spherical'], coefficient=mu, radius=R)
        assert len(sph.symbols) == 1 and len(sph.to_loads()) == 2

    def test_spherical_friction_torque_is_finite_at_rest(self):
        joint = self.joints()['spherical']
        sph = JointFriction(joint, coefficient=mu, radius=R,
                            regularization=0.01)
        vector = sph.to_loads()[0].torque
        (torque, frame), = vector.args  # components in one frame
        assert frame is joint.child_interframe
        args = list(joint.coordinates) + list(joint.speeds) + list(sph.symbols)
        f = sm.lambdify(args, torque)
        at_rest = np.asarray(f(0.1, 0.2, 0.3, 0, 0, 0, 5.0), float)
        assert np.all(at_rest == 0)
        fast = np.asarray(f(0.1, 0.2, 0.3, 2.0, 0, 0, 5.0), float)
        # |torque| = T tanh(|w|/eps) -> T, opposing w.
        assert np.isclose(np.linalg.norm(fast), 5.0, rtol=1e-12)

    def test_magnitude_formulas(self):
        # Independent: the seed 004 formulas evaluated by hand for a given
        # reaction (the pendulum at rest hanging down: tension m g along x).
        system, pin = pendulum(friction=dict(
            coefficient=mu, radius=R, end_coefficient=2 * mu, end_radius=L,
            preload=3))
        (friction,) = system.actuators
        rest = {q: sm.pi / 2, u: 0, u.diff(t): 0}
        value = friction.magnitudes(system)[0].xreplace(rest)
        assert sm.simplify(value - mu * R * (m * g + 3)) == 0

    def test_prepare_matches_symbolic_magnitudes(self):
        system, pin = pendulum(bob_inertia=sm.Symbol('I'), friction=dict(
            coefficient=0.2, radius=0.05, preload=1.5))
        (friction,) = system.actuators
        constants = {m: 2.0, g: 9.81, L: 0.7, sm.Symbol('I'): 0.1}
        func = friction.prepare(system, constants)
        expr = friction.magnitudes(system)[0].subs(constants)
        for qv, uv, av in [(0.3, 1.2, -0.4), (2.0, -0.5, 3.0)]:
            ref = float(expr.subs({u.diff(t): av}).subs({q: qv, u: uv}))
            got = func(np.array([qv]), np.array([uv]), np.array([av]), 0.0)
            assert got.shape == (1,)
            assert np.isclose(got[0], ref, rtol=1e-12)

    def test_prepare_reports_missing_constants(self):
        system, pin = pendulum(friction=dict(coefficient=mu, radius=R))
        (friction,) = system.actuators
        with pytest.raises(ValueError, match='missing constants.*R.*mu'):
            friction.prepare(system, {m: 1.0, g: 9.81, L: 1.0})

    def test_prepare_drops_cancelling_friction_of_other_joints(self):
        # Double pendulum with friction in both pins: the lower pin's
        # friction is internal to the upper pin's child side.
        system, (j1, j2), (q1, q2, u1, u2) = double_pendulum()
        f1 = JointFriction(j1, coefficient=0.1, radius=0.01)
        f2 = JointFriction(j2, coefficient=0.1, radius=0.01)
        system.add_actuators(f1, f2)
        constants = {m: 1.0, m2: 0.5, g: 9.81, L: 1.0, L2: 0.8}
        func = f1.prepare(system, constants)
        # Hanging at rest: the upper pin carries both weights.
        value = func(np.array([np.pi / 2, 0.0]), np.zeros(2), np.zeros(2), 0)
        assert np.isclose(value[0], 0.1 * 0.01 * 1.5 * 9.81, rtol=1e-12)

    def test_spherical_prepare_at_rest_and_moving(self):
        ceiling = RigidBody('ceiling')
        bob = point_mass('bob', m)
        ball = SphericalJoint('ball', ceiling, bob,
                              child_point=L * bob.frame.z)
        system = System.from_newtonian(ceiling)
        system.add_bodies(bob)
        system.add_joints(ball)
        system.apply_uniform_gravity(-g * ceiling.z)
        fr = JointFriction(ball, coefficient=0.2, radius=0.1, alpha=0.5)
        system.add_actuators(fr)
        func = fr.prepare(system, {m: 1.0, g: 10.0, L: 1.0})
        zeros = np.zeros(3)
        # Hanging at rest: |F| = m g, no axis of rotation -> all radial.
        assert np.isclose(func(zeros, zeros, zeros, 0)[0], 0.2 * 0.1 * 10.0)
        # Spinning about the vertical (the rod axis, bob.z) at rest
        # otherwise: the weight is axial -> mu R alpha m g.
        spin = np.array([0.0, 0.0, 3.0])
        assert np.isclose(func(zeros, spin, zeros, 0)[0],
                          0.2 * 0.1 * 0.5 * 10.0, rtol=1e-9)

    def test_spherical_symbolic_magnitude_at_rest_and_moving(self):
        """The symbolic magnitudes() agree with prepare(): finite (not 0/0)
        with no relative rotation, all load radial."""
        ceiling = RigidBody('ceiling')
        bob = point_mass('bob', m)
        ball = SphericalJoint('ball', ceiling, bob,
                              child_point=L * bob.frame.z)
        system = System.from_newtonian(ceiling)
        system.add_bodies(bob)
        system.add_joints(ball)
        system.apply_uniform_gravity(-g * ceiling.z)
        fr = JointFriction(ball, coefficient=0.2, radius=0.1, alpha=0.5)
        system.add_actuators(fr)
        magnitude = fr.magnitudes(system)[0]
        q, u = list(system.q), list(system.u)
        udot = [ui.diff() for ui in u]
        values = {m: 1.0, g: 10.0, L: 1.0}
        func = sm.lambdify([q, u, udot], magnitude.xreplace(values),
                           modules='numpy')
        zeros = [0.0, 0.0, 0.0]
        with np.errstate(all='raise'):
            at_rest = func(zeros, zeros, zeros)
            spinning = func(zeros, [0.0, 0.0, 3.0], zeros)
        assert np.isclose(at_rest, 0.2 * 0.1 * 10.0, rtol=1e-12)
        assert np.isclose(spinning, 0.2 * 0.1 * 0.5 * 10.0, rtol=1e-9)

    @pytest.mark.parametrize('kwargs, error, match', [
        (dict(coefficient=-1, radius=1), ValueError, 'coefficient'),
        (dict(coefficient='mu', radius=1), TypeError, 'coefficient'),
        (dict(coefficient=1), ValueError, 'radius'),
        (dict(coefficient=1, radius=0), ValueError, 'radius'),
        (dict(coefficient=1, radius=1, preload=-2), ValueError, 'preload'),
        (dict(coefficient=1, radius=1, regularization=-1), ValueError,
         'regularization'),
        (dict(coefficient=1, radius=1, sign_method='erf'), ValueError,
         'sign_method'),
        (dict(coefficient=1, radius=1, alpha=0.5), ValueError, 'alpha'),
    ])
    def test_invalid_arguments(self, kwargs, error, match):
        with pytest.raises(error, match=match):
            JointFriction(self.joints()['pin'], **kwargs)

    def test_invalid_joint_and_options_per_joint(self):
        j = self.joints()
        a, b = RigidBody('wa'), RigidBody('wb')
        with pytest.raises(TypeError, match='joint must be'):
            JointFriction(WeldJoint('w', a, b), coefficient=1)
        with pytest.raises(ValueError, match='radius'):
            JointFriction(j['prismatic'], coefficient=1, radius=1)
        with pytest.raises(ValueError, match='thrust'):
            JointFriction(j['cylindrical'], coefficient=1, radius=1,
                          end_coefficient=1)
        with pytest.raises(ValueError, match='alpha'):
            JointFriction(j['spherical'], coefficient=1, radius=1, alpha=2)

    def test_float_defaults_are_the_defaults(self):
        """``Float(0.0) != 0`` in SymPy: float zeros and ones given for the
        defaults are accepted where the integers are, zero regularization
        is the exact sign, and ``repr`` omits them."""
        j = self.joints()
        pin = JointFriction(j['pin'], coefficient=0.1, radius=0.02,
                            regularization=0.0, alpha=1.0, preload=0.0)
        (T,) = pin.symbols
        w = j['pin'].speeds[0]
        torque = pin.to_loads()[0].vector.dot(j['pin'].parent.frame.z)
        assert sm.simplify(torque - (-T * sm.sign(w))) == 0
        assert not torque.has(sm.zoo)
        assert repr(pin) == ('JointFriction(PinJoint: p  parent: a  child: '
                             'b, coefficient=0.100000000000000, '
                             'radius=0.0200000000000000)')
        slide = JointFriction(j['prismatic'], coefficient=0.3,
                              end_coefficient=0.0, end_radius=0.0,
                              regularization=np.float64(0.0))
        (F,) = slide.symbols
        assert slide.to_loads()[0].vector.dot(j['prismatic'].parent.frame.x) \
            == -F * sm.sign(j['prismatic'].speeds[0])
        ball = JointFriction(j['spherical'], coefficient=0.1, radius=0.02,
                             regularization=0.0)
        assert not ball.to_loads()[0].vector.to_matrix(
            j['spherical'].parent.frame).has(sm.zoo)
        with pytest.raises(ValueError, match='thrust'):
            JointFriction(j['prismatic'], coefficient=0.3,
                          end_coefficient=0.1)
        with pytest.raises(ValueError, match='alpha'):
            JointFriction(j['pin'], coefficient=0.3, radius=1, alpha=0.5)

    def test_immutable_and_repr(self):
        j = self.joints()
        fr = JointFriction(j['pin'], coefficient=mu, radius=R, preload=2,
                           regularization=0.1, sign_method='atan')
        assert repr(fr) == (
            "JointFriction(PinJoint: p  parent: a  child: b, coefficient=mu, "
            "radius=R, preload=2, regularization=0.100000000000000, "
            "sign_method='atan')")
        with pytest.raises(AttributeError):
            fr.coefficient = 2
        assert fr.alpha == 1 and fr.end_radius == 0


@pytest.mark.parametrize('method', ['tanh', 'exact'])
def test_spherical_friction_torque_jacobian_finite_at_rest(method):
    """The spherical joint's friction torque and its Jacobian w.r.t. the
    joint speeds (coordinates fixed) lambdify (NumPy) and are finite,
    without warnings, at zero relative rotation and at a rotating state,
    where the Jacobian matches central finite differences (step 1e-7, abs.
    tolerance 1e-5 on entries up to 200). The exact sign has no derivative
    at rest; its friction contributes 0 there."""
    a, b = RigidBody('a'), RigidBody('b')
    ball = SphericalJoint('ball', a, b)
    friction = JointFriction(ball, coefficient=0.1, radius=0.02,
                             regularization=0.01 if method == 'tanh' else 0,
                             sign_method=method)
    (T,) = friction.symbols
    w = sm.symbols('w1:4', real=True)
    torque = friction.to_loads()[0].vector.to_matrix(
        ball.child_interframe).xreplace(
        dict(zip(ball.speeds, w))).subs(T, 2.0).subs(
        dict(zip(ball.coordinates, [0.3, -0.4, 0.2])))
    J_sym = torque.jacobian(w)
    assert not J_sym.has(sm.DiracDelta, sm.Piecewise, sm.Derivative)
    f = sm.lambdify([w], torque, cse=True)
    jac = sm.lambdify([w], J_sym, cse=True)
    h = 1e-7
    for x0 in (np.zeros(3), np.array([0.3, -0.2, 0.5])):
        with np.errstate(all='raise'):
            J = np.asarray(jac(x0), dtype=float)
            fd = np.column_stack([
                (np.asarray(f(x0 + h * e), dtype=float)
                 - np.asarray(f(x0 - h * e), dtype=float)).ravel() / (2 * h)
                for e in np.eye(3)])
        if method == 'exact' and not x0.any():
            assert np.all(np.asarray(f(x0), dtype=float) == 0)
            np.testing.assert_array_equal(J, np.zeros((3, 3)))
        else:
            assert abs(J).max() > 1
            np.testing.assert_allclose(J, fd, rtol=0, atol=1e-5)
