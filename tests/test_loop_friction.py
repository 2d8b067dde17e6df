"""Coulomb friction in a tree joint of a mechanism closed by a LoopJoint:
the slider-crank's piston guide against the independent body-coordinate
reference of tests/_planar_reference.py (Lagrange multipliers, friction
phases by events), and stick-slip of a four-bar's pin."""

import pickle

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from sympy.physics.mechanics import (PinJoint, PrismaticJoint, RigidBody,
                                     System, dynamicsymbols, inertia)

from sympy_loads import (JointFriction, LoopJoint, Simulation, simulate,
                         simulate_many)
from _planar_reference import SLIDER_CRANK, slider_crank

T = dynamicsymbols._t
BACKENDS = ['numpy', 'compiled']
MU = 0.3


def _bar(name, mass, length):
    frame = me.ReferenceFrame(f'{name}_frame')
    center = me.Point(f'{name}_masscenter')
    return RigidBody(name, center, frame, mass,
                     (inertia(frame, 0, 0, mass * length**2 / 12), center))


def crank_model(mu):
    """The reference's slider-crank (``_planar_reference.slider_crank``)
    as a System: crank (q1) pinned to the ground at O, rod pinned to the
    crank (q2, relative), slider on a PrismaticJoint along N.x through O
    (q3), the LoopJoint S pinning the rod's end to the slider; the motor
    torque T0 (1 - exp(-t/tau)) and the bearing damper on the crank, the
    spring-damper from O to the slider (which stays at x > 0), and
    JointFriction ``mu`` in the guide."""
    q1, q2, q3, u1, u2, u3 = dynamicsymbols('q1:4 u1:4')
    names = ['r', 'l', 'mc', 'mr', 'ms', 'k', 'c', 'l0', 'cb', 'T0', 'tau',
             'mu']
    p = dict(zip(names, sm.symbols(names, positive=True)))
    N = RigidBody('N')
    crank, rod = _bar('crank', p['mc'], p['r']), _bar('rod', p['mr'], p['l'])
    slider = _bar('slider', p['ms'], 0)
    guide = PrismaticJoint('guide', N, slider, q3, u3, joint_axis=N.x)
    tree = [
        PinJoint('O', N, crank, q1, u1, child_point=-p['r'] / 2 * crank.x,
                 joint_axis=N.z),
        PinJoint('P', crank, rod, q2, u2, parent_point=p['r'] / 2 * crank.x,
                 child_point=-p['l'] / 2 * rod.x, joint_axis=N.z),
        guide]
    loop = LoopJoint('S', rod, slider, parent_point=p['l'] / 2 * rod.x,
                     child_point=slider.masscenter, kind='pin',
                     joint_axis=N.z)
    system = System.from_newtonian(N)
    system.add_bodies(crank, rod, slider)
    system.add_joints(*tree, loop)
    system.add_holonomic_constraints(*loop.holonomic_constraints)
    motor = p['T0'] * (1 - sm.exp(-T / p['tau']))
    system.add_loads(
        me.Torque(crank, (motor - p['cb'] * u1) * N.z),
        me.Force(slider, -(p['k'] * (q3 - p['l0']) + p['c'] * u3) * N.x))
    friction = JointFriction(guide, coefficient=p['mu'])
    system.add_actuators(friction)
    system.q_ind, system.q_dep = [q1], [q2, q3]
    system.u_ind, system.u_dep = [u1], [u2, u3]
    system.form_eoms(explicit_kinematics=True)
    constants = {p[n]: SLIDER_CRANK[n] for n in names if n != 'mu'}
    constants[p['mu']] = mu
    return system, friction, loop, constants


def _energy(system, constants):
    """Kinetic energy plus the spring's potential energy."""
    N = system.frame
    kinetic = sum(body.kinetic_energy(N) for body in system.bodies
                  if body.frame != N)
    k, l0 = [s for s in constants if s.name in ('k', 'l0')]
    k, l0 = (k, l0) if k.name == 'k' else (l0, k)
    q3 = system.q[2]
    return kinetic + k * (q3 - l0)**2 / 2


@pytest.fixture(scope='module')
def reference():
    model, initial = slider_crank(mu=MU)
    q, qd = initial()
    run = model.simulate(np.linspace(0.0, 1.0, 101), q, qd)
    return q, run


@pytest.mark.parametrize('backend', BACKENDS)
def test_piston_friction_against_body_coordinate_reference(reference,
                                                           backend):
    """Crank angle and speed to 1e-6 over 1 s; the energy lost equals the
    work of the loads that dissipate (the friction, the dampers) minus the
    motor's, the friction's work being the reference's, to 1e-6."""
    q_ref, run = reference
    system, friction, loop, constants = crank_model(MU)
    q1, q2, q3, u1, u2, u3 = list(system.q) + list(system.u)
    initial = {q1: q_ref[2], q2: q_ref[5] - q_ref[2], q3: q_ref[6],
               u1: 0.0, u2: 0.0, u3: 0.0}
    f = friction.symbols[0]
    energy = _energy(system, constants)
    # (the friction mu |N| has a kink where the normal force changes
    # sign, which the engine does not locate by an event, unlike the
    # reference: the integrator steps over it, and the tolerances are
    # tight enough for 1e-6 there; at rtol=1e-11, atol=1e-12 the speed
    # differs by 4e-6 on the NumPy back end)
    result = simulate(system, (0.0, 1.0), initial, constants,
                      joint_friction=[friction], backend=backend,
                      t_eval=run.t, rtol=1e-12, atol=1e-13,
                      outputs={'energy': energy, 'f': f})
    assert result.success
    # the run goes through slip in both directions (dead centres)
    assert np.any(result.u[:, 2] > 1e-3) and np.any(result.u[:, 2] < -1e-3)
    assert np.max(np.abs(result.q[:, 0] - run.q[:, 2])) <= 1e-6
    assert np.max(np.abs(result.u[:, 0] - run.qd[:, 2])) <= 1e-6
    # the friction magnitude is mu |N| of the reference's guide normal
    normal = np.abs(run.reaction['guide'][:, 0])
    assert np.max(np.abs(result.outputs['f'] - MU * normal)) <= 1e-6 * max(
        1.0, np.max(normal))
    # energy: E(t) - E(0) = work of motor, dampers and friction
    work = sum(run.work[name] for name in run.work)
    assert run.work['friction'][-1] < -1e-2       # friction that matters
    change = result.outputs['energy'] - result.outputs['energy'][0]
    assert np.max(np.abs(change - work)) <= 1e-6


def _sticking_four_bar():
    """The four-bar of test_loop_multipliers with Coulomb friction in the
    crank's ground pin JA and a viscous damper there: it swings, comes to
    rest and sticks under gravity."""
    from test_loop_multipliers import four_bar
    made = []

    def friction(joints):
        made.append(JointFriction(joints[0], coefficient=0.4, radius=0.05))
        u1 = joints[0].speeds[0]
        damper = me.Torque(joints[0].child.frame,
                           -0.3 * u1 * joints[0].parent.frame.z)
        return [made[0]] + [_Damper(damper, joints[0])]
    system, loop, constants, initial = four_bar(friction=friction)
    return system, loop, constants, initial, made[0]


class _Damper(me.actuator.ActuatorBase):
    """A torque on the child of a joint and its opposite on the parent."""

    def __init__(self, torque, joint):
        self.torque, self.joint = torque, joint

    def to_loads(self):
        return [self.torque, me.Torque(self.joint.parent.frame,
                                       -self.torque.torque)]


@pytest.mark.parametrize('backend', BACKENDS)
def test_four_bar_pin_friction_sticks_under_gravity(backend):
    """The crank comes to rest and sticks: the speeds stay exactly zero,
    the crank angle constant, and the holding torque equals the gravity
    torque of the mechanism at that angle (minus the derivative of the
    potential energy along the loop, by central differences of an
    independent closure solve), within the friction limit."""
    from scipy.optimize import fsolve
    system, loop, constants, initial, friction = _sticking_four_bar()
    result = simulate(system, (0.0, 6.0), initial, constants,
                      joint_friction=[friction], backend=backend,
                      t_eval=np.linspace(0.0, 6.0, 61), rtol=1e-10,
                      atol=1e-12, outputs={'h': friction.symbols[0]})
    assert result.success
    rest = np.nonzero(np.all(result.u == 0.0, axis=1))[0]
    assert len(rest) >= 10 and rest[-1] == len(result.t) - 1
    first = rest[0]
    assert np.all(np.diff(rest) == 1)           # it stays at rest
    assert np.all(result.q[first:] == result.q[first])
    # the gravity torque on the crank along the loop at the rest angle
    values = {s.name: v for s, v in constants.items()}
    l1, l2, l3, l4, m, g = (values[n] for n in ('l1', 'l2', 'l3', 'l4',
                                                'm', 'g'))

    def potential(a):
        def closure(x):
            b, c = x              # absolute angles of coupler and rocker
            tip = (l1 * np.cos(a) + l2 * np.cos(b),
                   l1 * np.sin(a) + l2 * np.sin(b))
            return [tip[0] - l4 - l3 * np.cos(c), tip[1] - l3 * np.sin(c)]
        q = result.q[first]
        b, c = fsolve(closure, [q[0] + q[1], q[2]], xtol=1e-12)
        heights = [l1 / 2 * np.sin(a), l1 * np.sin(a) + l2 / 2 * np.sin(b),
                   l3 / 2 * np.sin(c)]
        masses = [m, 2 * m, m]
        return g * sum(mi * y for mi, y in zip(masses, heights))
    a, step = result.q[first, 0], 1e-5
    torque = -(potential(a + step) - potential(a - step)) / (2 * step)
    h = result.outputs['h'][first:]
    assert np.allclose(h, torque, rtol=0, atol=1e-6 * max(1.0, abs(torque)))
    assert abs(torque) > 1e-2           # friction that really holds


def test_friction_in_the_loop_joint_itself_is_refused():
    """JointFriction on the LoopJoint: a TypeError that says to put it on
    a tree joint."""
    system, friction, loop, constants = crank_model(MU)
    with pytest.raises(TypeError, match='LoopJoint S.*tree joint'):
        JointFriction(loop, coefficient=0.1, radius=0.01)


def test_piston_friction_in_simulate_many_and_a_pickled_simulation():
    """simulate_many and a pickled Simulation carry the friction of a
    closed loop: the same run as simulate()."""
    system, friction, loop, constants = crank_model(MU)
    q1, q2, q3 = system.q
    model, initial_of = slider_crank(mu=MU)
    q_ref, _ = initial_of()
    initial = {q1: q_ref[2], q2: q_ref[5] - q_ref[2], q3: q_ref[6]}
    initial.update(dict.fromkeys(system.u, 0.0))
    options = dict(t_eval=np.linspace(0.0, 0.3, 7), rtol=1e-10, atol=1e-12)
    simulation = Simulation(system, joint_friction=[friction],
                            outputs={'f': friction.symbols[0]})
    direct = simulation.run((0.0, 0.3), initial, constants, **options)
    again = pickle.loads(pickle.dumps(simulation)).run(
        (0.0, 0.3), initial, constants, **options)
    assert np.array_equal(direct.q, again.q)
    assert np.array_equal(direct.outputs['f'], again.outputs['f'])
    many = simulate_many(system, (0.0, 0.3), initial, constants,
                         [{}], joint_friction=[friction],
                         outputs={'f': friction.symbols[0]}, **options)
    assert many[0].success
    assert np.allclose(many[0].q, direct.q, rtol=0, atol=1e-12)
    assert np.max(direct.outputs['f']) > 0.1


@pytest.mark.parametrize('backend', BACKENDS)
def test_four_bar_friction_in_a_moving_pin_balances_energy(backend):
    """Friction (regularized, so that its power is smooth) in the pin JB
    between crank and coupler, whose reaction contains the loop's
    multipliers: the mechanical energy lost equals the work of the
    friction torques (Simpson's rule on 2001 samples of their power), to
    1e-6 of the energy."""
    from scipy.integrate import simpson
    from test_loop_multipliers import four_bar
    made = []

    def friction(joints):
        made.append(JointFriction(joints[1], coefficient=0.3, radius=0.05,
                                  regularization=0.05))
        return made
    system, loop, constants, initial = four_bar(friction=friction)
    N = system.frame
    origin = [j for j in system.joints if j.name == 'JA'][0].parent_point
    g = [s for s in constants if s.name == 'g'][0]
    energy = sum(body.kinetic_energy(N) + body.mass * g * body.masscenter
                 .pos_from(origin).dot(N.y)
                 for body in system.bodies if body.frame != N)
    power = sum(load.torque.dot(load.frame.ang_vel_in(N))
                for load in made[0].to_loads())
    times = np.linspace(0.0, 1.0, 2001)
    result = simulate(system, (0.0, 1.0), initial, constants,
                      joint_friction=made, backend=backend, t_eval=times,
                      rtol=1e-11, atol=1e-12,
                      outputs={'E': energy, 'P': power,
                               'T': made[0].symbols[0]})
    assert result.success
    work = np.concatenate([[0.0], [simpson(result.outputs['P'][:k + 1],
                                           x=times[:k + 1])
                                   for k in range(200, 2001, 200)]])
    change = (result.outputs['E'] - result.outputs['E'][0])[
        np.r_[0, 200:2001:200]]
    scale = np.max(np.abs(result.outputs['E']))
    assert work[-1] < -1e-3 * scale           # friction that matters
    assert np.max(np.abs(change - work)) <= 1e-6 * scale
    assert np.all(result.outputs['T'] > 0)
