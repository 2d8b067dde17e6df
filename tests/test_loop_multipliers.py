"""The multipliers of LoopJoints as outputs of simulate(): solved by the
engine from the unconstrained equations at every sample, checked against
Newton-Euler per body (the forces at every joint that balance each body's
mass-center acceleration and angular acceleration, found by least squares
from those 3 equations per body, independently of Kane's method and of the
engine's Jacobian of the loops)."""

import pickle

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from sympy.physics.mechanics import (PinJoint, PrismaticJoint, RigidBody,
                                     System, dynamicsymbols, inertia)

from sympy_loads import (LoopJoint, SimulationError, Simulation, simulate,
                         simulate_many)

T = dynamicsymbols._t
BACKENDS = ['numpy', 'compiled']


def _bar(name, mass, length):
    frame = me.ReferenceFrame(f'{name}_frame')
    center = me.Point(f'{name}_masscenter')
    return RigidBody(name, center, frame, mass,
                     (inertia(frame, 0, 0, mass * length**2 / 12), center))


def four_bar(geared_pendulum=False, friction=None):
    """A planar four-bar under gravity: crank A pinned to the ground at
    O, coupler B pinned to A, rocker C pinned to the ground at l4 N.x; the
    LoopJoint D closes B to C (their far ends). ``geared_pendulum``: a
    pendulum E pinned to the ground whose angle q4 equals the crank's by a
    constraint written by hand. ``friction(joints)``: actuators to add
    (given the tree joints)."""
    q1, q2, q3, u1, u2, u3 = dynamicsymbols('q1:4 u1:4')
    l1, l2, l3, l4, m, g = sm.symbols('l1:5 m g', positive=True)
    N = RigidBody('N')
    A, B, C = _bar('A', m, l1), _bar('B', 2 * m, l2), _bar('C', m, l3)
    joints = [
        PinJoint('JA', N, A, q1, u1, child_point=-l1 / 2 * A.x,
                 joint_axis=N.z),
        PinJoint('JB', A, B, q2, u2, parent_point=l1 / 2 * A.x,
                 child_point=-l2 / 2 * B.x, joint_axis=N.z),
        PinJoint('JC', N, C, q3, u3, parent_point=l4 * N.x,
                 child_point=-l3 / 2 * C.x, joint_axis=N.z)]
    loop = LoopJoint('D', B, C, parent_point=l2 / 2 * B.x,
                     child_point=l3 / 2 * C.x, kind='pin', joint_axis=N.z)
    system = System.from_newtonian(N)
    system.add_bodies(A, B, C)
    system.add_joints(*joints, loop)
    system.add_holonomic_constraints(*loop.holonomic_constraints)
    constants = {l1: 0.3, l2: 1.0, l3: 0.8, l4: 0.9, m: 1.0, g: 9.81}
    initial = {q1: 1.2, q2: -0.5, q3: 1.5, u1: 2.0, u2: 0.0, u3: 0.0}
    q_dep, u_dep = [q2, q3], [u2, u3]
    if geared_pendulum:
        q4, u4 = dynamicsymbols('q4 u4')
        E = _bar('E', m, l1)
        system.add_bodies(E)
        system.add_joints(PinJoint('JE', N, E, q4, u4,
                                   parent_point=-0.5 * N.x,
                                   child_point=-l1 / 2 * E.x,
                                   joint_axis=N.z))
        system.add_holonomic_constraints(q4 - q1)
        q_dep, u_dep = q_dep + [q4], u_dep + [u4]
        initial.update({q4: 1.2, u4: 2.0})
    system.apply_uniform_gravity(-g * N.y)
    if friction is not None:
        system.add_actuators(*friction(joints))
    system.q_ind, system.q_dep = [q1], q_dep
    system.u_ind, system.u_dep = [u1], u_dep
    system.form_eoms(explicit_kinematics=True)
    return system, loop, constants, initial


def slider_crank(friction=None):
    """A slider-crank under gravity: crank A pinned to the ground, rod B
    pinned to A, piston C on a PrismaticJoint along N.x; the LoopJoint P
    pins the rod's end to the piston."""
    q1, q2, q3, u1, u2, u3 = dynamicsymbols('q1:4 u1:4')
    l1, l2, m, g = sm.symbols('l1 l2 m g', positive=True)
    N = RigidBody('N')
    A, B = _bar('A', m, l1), _bar('B', m, l2)
    C = _bar('C', 3 * m, 0.1)
    piston = PrismaticJoint('JC', N, C, q3, u3, joint_axis=N.x)
    joints = [
        PinJoint('JA', N, A, q1, u1, child_point=-l1 / 2 * A.x,
                 joint_axis=N.z),
        PinJoint('JB', A, B, q2, u2, parent_point=l1 / 2 * A.x,
                 child_point=-l2 / 2 * B.x, joint_axis=N.z),
        piston]
    loop = LoopJoint('P', B, C, parent_point=l2 / 2 * B.x,
                     child_point=C.masscenter, kind='pin', joint_axis=N.z)
    system = System.from_newtonian(N)
    system.add_bodies(A, B, C)
    system.add_joints(*joints, loop)
    system.add_holonomic_constraints(*loop.holonomic_constraints)
    system.apply_uniform_gravity(-g * N.y)
    if friction is not None:
        system.add_actuators(friction(piston))
    system.q_ind, system.q_dep = [q1], [q2, q3]
    system.u_ind, system.u_dep = [u1], [u2, u3]
    system.form_eoms(explicit_kinematics=True)
    constants = {l1: 0.2, l2: 0.6, m: 1.0, g: 9.81}
    initial = {q1: 0.7, q2: -1.0, q3: 0.6, u1: 8.0, u2: 0.0, u3: 0.0}
    return system, loop, constants, initial


def _planar(vector, frame):
    return [vector.dot(frame.x), vector.dot(frame.y)]


def newton_euler(system, unknowns, constants):
    """``f(q, u, u') -> (reactions, residual)``: the planar Newton-Euler
    equations of every body (m a = sum of forces, I alpha = sum of moments
    about the mass center), gravity being the only applied load, solved by
    least squares for ``unknowns``: ``(joint, kind)`` with ``kind`` 'pin'
    (a force of two components in N on the child at ``child_point``, minus
    it on the parent) or 'slide' (force along N.y and torque about N.z,
    for a PrismaticJoint along N.x)."""
    N = system.frame
    q, u = list(system.q), list(system.u)
    ud = [sm.Symbol(f'ud{i}') for i in range(len(u))]
    qdot = {qi.diff(T): ui for qi, ui in zip(q, u)}
    accel = {ui.diff(T): d for ui, d in zip(u, ud)}
    moving = [body for body in system.bodies if body.frame != N]
    rows = {}
    for body in moving:
        a = body.masscenter.acc(N).xreplace(qdot).xreplace(accel)
        alpha = body.frame.ang_acc_in(N).xreplace(qdot).xreplace(accel)
        weight = [f for p, f in ((ld.point, ld.force) for ld in
                                 system.loads) if p == body.masscenter]
        lhs = [body.mass * c for c in _planar(a, N)]
        lhs = [c - w for c, w in zip(lhs, _planar(weight[0], N))]
        lhs.append(body.central_inertia.dot(N.z).dot(N.z)
                   * alpha.dot(N.z))
        rows[body] = lhs
    A_rows = {body: [[] for _ in range(3)] for body in moving}
    for joint, kind in unknowns:
        at = joint.child_point
        basis = ([(N.x, 0), (N.y, 0)] if kind == 'pin'
                 else [(N.y, 0), (0, N.z)])
        for force, torque in basis:
            column = {body: [0, 0, 0] for body in moving}
            for body, sign in ((joint.child, 1), (joint.parent, -1)):
                if body not in column:
                    continue
                f = sign * (force if force != 0 else 0 * N.x)
                t = sign * (torque if torque != 0 else 0 * N.x)
                arm = at.pos_from(body.masscenter)
                column[body] = _planar(f, N) + [(arm.cross(f) + t).dot(N.z)]
            for body in moving:
                for i in range(3):
                    A_rows[body][i].append(column[body][i])
    A = sm.Matrix([A_rows[b][i] for b in moving for i in range(3)])
    b = sm.Matrix([rows[b][i] for b in moving for i in range(3)])
    A, b = A.xreplace(constants), b.xreplace(constants)
    fA = sm.lambdify([q, u], A)
    fb = sm.lambdify([q, u, ud], b)

    def solve(qv, uv, udv):
        Av = np.asarray(fA(qv, uv), dtype=float)
        bv = np.asarray(fb(qv, uv, udv), dtype=float).ravel()
        x, *_ = np.linalg.lstsq(Av, bv, rcond=None)
        return x, float(np.max(np.abs(Av @ x - bv)))
    return solve


def _check_against_newton_euler(system, loop, constants, result, unknowns,
                                index):
    """The LoopJoint's force (in N) at every sample equals the one that
    Newton-Euler finds (unknowns ``index``), to 1e-6 of the largest
    reaction, and each body's balance closes."""
    solve = newton_euler(system, unknowns, constants)
    worst, largest = 0.0, 0.0
    for k in range(len(result.t)):
        x, residual = solve(result.q[k], result.u[k], result.outputs['ud'][k])
        scale = max(np.max(np.abs(x)), 1.0)
        assert residual <= 1e-9 * scale
        mine = np.array([result.outputs['Fx'][k], result.outputs['Fy'][k]])
        worst = max(worst, np.max(np.abs(mine - x[index])))
        largest = max(largest, np.max(np.abs(x)))
    assert largest > 1.0              # a test with forces that matter
    assert worst <= 1e-6 * largest


@pytest.mark.parametrize('backend', BACKENDS)
def test_four_bar_loop_force_matches_newton_euler(backend):
    system, loop, constants, initial = four_bar()
    N = system.frame
    result = simulate(
        system, (0.0, 1.0), initial, constants, backend=backend,
        t_eval=np.linspace(0.0, 1.0, 21), rtol=1e-10, atol=1e-12,
        outputs={'Fx': loop.force.dot(N.x), 'Fy': loop.force.dot(N.y),
                 'lam': loop.multipliers,
                 'ud': sm.Matrix(system.u).diff(T)})
    assert result.success
    # the multipliers are the components along the parent-fixed axes
    ex, ey = (loop.axes[0].express(N), loop.axes[1].express(N))
    f_axes = sm.lambdify([system.q], sm.Matrix(
        [[ex.dot(N.x), ey.dot(N.x)], [ex.dot(N.y), ey.dot(N.y)]]))
    for k in range(len(result.t)):
        Fxy = np.asarray(f_axes(result.q[k]), float) @ result.outputs[
            'lam'][k]
        assert np.allclose(Fxy, [result.outputs['Fx'][k],
                                 result.outputs['Fy'][k]], atol=1e-12)
    joints = {j.name: j for j in system.joints}
    unknowns = [(joints['JA'], 'pin'), (joints['JB'], 'pin'),
                (joints['JC'], 'pin'), (loop, 'pin')]
    _check_against_newton_euler(system, loop, constants, result, unknowns,
                                [6, 7])


@pytest.mark.parametrize('backend', BACKENDS)
def test_slider_crank_loop_force_matches_newton_euler(backend):
    system, loop, constants, initial = slider_crank()
    N = system.frame
    result = simulate(
        system, (0.0, 1.0), initial, constants, backend=backend,
        t_eval=np.linspace(0.0, 1.0, 21), rtol=1e-10, atol=1e-12,
        outputs={'Fx': loop.force.dot(N.x), 'Fy': loop.force.dot(N.y),
                 'ud': sm.Matrix(system.u).diff(T)})
    assert result.success
    joints = {j.name: j for j in system.joints}
    unknowns = [(joints['JA'], 'pin'), (joints['JB'], 'pin'),
                (joints['JC'], 'slide'), (loop, 'pin')]
    _check_against_newton_euler(system, loop, constants, result, unknowns,
                                [6, 7])


def slider_crank_closed_at_the_slider():
    """The slider-crank whose tree ends at the piston, pinned to the rod
    (q3, relative), and whose LoopJoint G is a prismatic joint between the
    ground and the piston along N.x: its multipliers are a force across
    the guide and a torque about N.z (a torque row of B)."""
    q1, q2, q3, u1, u2, u3 = dynamicsymbols('q1:4 u1:4')
    l1, l2, m, g = sm.symbols('l1 l2 m g', positive=True)
    N = RigidBody('N')
    A, B = _bar('A', m, l1), _bar('B', m, l2)
    C = _bar('C', 3 * m, 0.1)
    joints = [
        PinJoint('JA', N, A, q1, u1, child_point=-l1 / 2 * A.x,
                 joint_axis=N.z),
        PinJoint('JB', A, B, q2, u2, parent_point=l1 / 2 * A.x,
                 child_point=-l2 / 2 * B.x, joint_axis=N.z),
        PinJoint('JC', B, C, q3, u3, parent_point=l2 / 2 * B.x,
                 joint_axis=N.z)]
    loop = LoopJoint('G', N, C, parent_point=N.masscenter,
                     child_point=C.masscenter, kind='prismatic',
                     joint_axis=N.x)
    system = System.from_newtonian(N)
    system.add_bodies(A, B, C)
    system.add_joints(*joints, loop)
    system.add_holonomic_constraints(*loop.holonomic_constraints)
    system.apply_uniform_gravity(-g * N.y)
    system.q_ind, system.q_dep = [q1], [q2, q3]
    system.u_ind, system.u_dep = [u1], [u2, u3]
    system.form_eoms(explicit_kinematics=True)
    constants = {l1: 0.2, l2: 0.6, m: 1.0, g: 9.81}
    initial = {q1: 0.7, q2: -1.0, q3: 0.3, u1: 8.0, u2: 0.0, u3: 0.0}
    return system, loop, constants, initial


@pytest.mark.parametrize('backend', BACKENDS)
def test_prismatic_loop_force_and_torque_match_newton_euler(backend):
    system, loop, constants, initial = slider_crank_closed_at_the_slider()
    N = system.frame
    assert len(loop.multipliers) == 2
    result = simulate(
        system, (0.0, 1.0), initial, constants, backend=backend,
        t_eval=np.linspace(0.0, 1.0, 21), rtol=1e-10, atol=1e-12,
        outputs={'Fx': loop.force.dot(N.y), 'Fy': loop.torque.dot(N.z),
                 'ud': sm.Matrix(system.u).diff(T)})
    assert result.success
    joints = {j.name: j for j in system.joints}
    unknowns = [(joints['JA'], 'pin'), (joints['JB'], 'pin'),
                (joints['JC'], 'pin'), (loop, 'slide')]
    # (the checker's 'Fx', 'Fy' are here the guide's force along N.y and
    # its torque about N.z)
    _check_against_newton_euler(system, loop, constants, result, unknowns,
                                [6, 7])


def test_multiplier_output_of_a_kanes_method_names_the_system():
    """A KanesMethod knows no joints: an output with a multiplier says to
    give the System."""
    system, loop, constants, initial = four_bar()
    with pytest.raises(ValueError, match=r'lambda_D_Fx.*LoopJoint.*System'):
        Simulation(system.eom_method,
                   outputs={'Fx': loop.multipliers[0]})
    # and a multiplier is no specified input: specified= refuses it
    with pytest.raises(ValueError, match='lambda_D_Fx'):
        simulate(system, (0, 0.1), initial, constants,
                 specified={loop.multipliers[0]: 1.0})


def test_hand_closed_constraint_beside_a_loop_joint_is_refused():
    """A constraint that no LoopJoint carries (here a pendulum E geared to
    the crank, q4 = q1, written by hand) has a force that is none of the
    multipliers: the residual check says so."""
    system, loop, constants, initial = four_bar(geared_pendulum=True)
    with pytest.raises(SimulationError,
                       match='constraint forces that are not its LoopJoi'):
        simulate(system, (0, 0.1), initial, constants,
                 outputs={'Fx': loop.multipliers[0]})


def double_parallelogram():
    """Three parallel bars A, C, E of length l pinned to the ground at 0,
    d and 2d along N.x, and a coupler B of length 2d pinned to A's tip,
    closed to C by the LoopJoint D and to E by the LoopJoint F: the
    classic statically indeterminate mechanism (the rows of D and F are
    dependent everywhere). The model keeps only F's row Fx."""
    q1, q2, q3, q4, u1, u2, u3, u4 = dynamicsymbols('q1:5 u1:5')
    l, d, m, g = sm.symbols('l d m g', positive=True)
    N = RigidBody('N')
    A, C, E = _bar('A', m, l), _bar('C', m, l), _bar('E', m, l)
    B = _bar('B', m, 2 * d)
    joints = [
        PinJoint('JA', N, A, q1, u1, child_point=-l / 2 * A.x,
                 joint_axis=N.z),
        PinJoint('JB', A, B, q2, u2, parent_point=l / 2 * A.x,
                 child_point=-d * B.x, joint_axis=N.z),
        PinJoint('JC', N, C, q3, u3, parent_point=d * N.x,
                 child_point=-l / 2 * C.x, joint_axis=N.z),
        PinJoint('JE', N, E, q4, u4, parent_point=2 * d * N.x,
                 child_point=-l / 2 * E.x, joint_axis=N.z)]
    D = LoopJoint('D', B, C, parent_point=B.masscenter,
                  child_point=l / 2 * C.x, kind='pin', joint_axis=N.z)
    F = LoopJoint('F', B, E, parent_point=d * B.x,
                  child_point=l / 2 * E.x, kind='pin', joint_axis=N.z)
    system = System.from_newtonian(N)
    system.add_bodies(A, B, C, E)
    system.add_joints(*joints, D, F)
    system.add_holonomic_constraints(*D.holonomic_constraints,
                                     F.holonomic_constraints[0])
    system.apply_uniform_gravity(-g * N.y)
    system.q_ind, system.q_dep = [q1], [q2, q3, q4]
    system.u_ind, system.u_dep = [u1], [u2, u3, u4]
    system.form_eoms(explicit_kinematics=True)
    constants = {l: 0.5, d: 0.7, m: 1.0, g: 9.81}
    initial = {q1: 1.0, q2: -1.0, q3: 1.0, q4: 1.0, u1: 0.5, u2: -0.5,
               u3: 0.5, u4: 0.5}
    return system, (D, F), constants, initial


def test_statically_indeterminate_loops_are_refused():
    """The multipliers of dependent rows are not determined: an error
    naming the LoopJoints and their rows, not a least-squares answer."""
    system, (D, F), constants, initial = double_parallelogram()
    # the motion itself is determined
    free = simulate(system, (0.0, 0.2), initial, constants)
    assert free.success
    with pytest.raises(SimulationError, match=r'LoopJoints D, F are not '
                       r'determined.*rows D\.Fx.*F\.F.*statically '
                       r'indeterminate'):
        simulate(system, (0.0, 0.2), initial, constants,
                 outputs={'D': D.multipliers})


def test_a_multiplier_in_the_loads_is_refused():
    """The equations may not contain a multiplier (a load written from a
    LoopJoint's force): it is no specified input, and simulate() says so
    instead of asking for its values."""
    q1, u1 = dynamicsymbols('q1 u1')
    system, loop, constants, initial = four_bar()
    A = [b for b in system.bodies if b.name == 'A'][0]
    system.add_loads(me.Torque(A.frame, -0.1 * loop.multipliers[0]
                               * system.frame.z))
    system.form_eoms(explicit_kinematics=True)
    with pytest.raises(ValueError, match=r'lambda_D_Fx.*JointFriction'):
        simulate(system, (0.0, 0.1), initial, constants)


@pytest.mark.parametrize('backend', BACKENDS)
def test_multipliers_in_a_pickled_simulation_and_simulate_many(backend):
    """A Simulation with multiplier outputs pickles (simulate_many sends
    it to workers) and gives the same values there."""
    system, loop, constants, initial = four_bar()
    outputs = {'lam': loop.multipliers}
    options = dict(t_eval=np.linspace(0.0, 0.3, 4), rtol=1e-10, atol=1e-12)
    simulation = Simulation(system, outputs=outputs, backend=backend)
    direct = simulation.run((0.0, 0.3), initial, constants, **options)
    again = pickle.loads(pickle.dumps(simulation)).run(
        (0.0, 0.3), initial, constants, **options)
    assert np.array_equal(direct.outputs['lam'], again.outputs['lam'])
    q1 = system.q[0]
    results = simulate_many(system, (0.0, 0.3), initial, constants,
                            [{}, {q1: 1.1}], outputs=outputs,
                            backend=backend, **options)
    assert np.allclose(results[0].outputs['lam'], direct.outputs['lam'],
                       rtol=0, atol=1e-12)
    assert not np.allclose(results[1].outputs['lam'],
                           direct.outputs['lam'])
