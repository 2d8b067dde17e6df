"""Tests of LoopJoint: its rows, the meaning of its multipliers (the
velocity form of every row is the relative velocity or angular velocity
along the stated axis, on generated spatial chains), the rows it drops, and
the equations of a loop closed by it against the same loop closed by hand
(SymPy's four-bar tutorial)."""

import warnings

import numpy as np
import pytest
import sympy as sm
import symengine as se
from sympy.physics.mechanics import (PinJoint, PrismaticJoint, RigidBody,
                                     SphericalJoint, System, dynamicsymbols,
                                     inertia)

from sympy_loads import (HolonomicConstraintSolver, LoopJoint, Simulation,
                         linearize, simulate)

t = dynamicsymbols._t


def _four_bar(closed_by_loop=True, rows='all', form=True):
    """Moore's four-bar (rods with mass) as a chain of pins, closed on the
    ground by a LoopJoint or by Moore's hand-written closure. ``rows``:
    the closure's rows added to the System: ``'all'``, ``'negated'`` (each
    times -1), ``'simplified'`` (``trigsimp``) or ``'none'``; ``form``:
    call ``form_eoms()``."""
    la, lb, lc, ln, m, g = sm.symbols('l_a l_b l_c l_n m g', positive=True)
    q1, q2, q3 = dynamicsymbols('q1:4')
    u1, u2, u3 = dynamicsymbols('u1:4')
    ground = RigidBody('N')
    N = ground.frame
    bodies = []
    for name, length in (('A', la), ('B', lb), ('C', lc)):
        body = RigidBody(name, mass=m)
        body.central_inertia = inertia(body.frame, 0, 0, m * length**2 / 12)
        bodies.append(body)
    A, B, C = bodies
    system = System.from_newtonian(ground)
    system.add_joints(
        PinJoint('P1', ground, A, q1, u1, child_point=-la / 2 * A.x,
                 joint_axis=N.z),
        PinJoint('P2', A, B, q2, u2, parent_point=la / 2 * A.x,
                 child_point=-lb / 2 * B.x, joint_axis=N.z),
        PinJoint('P3', B, C, q3, u3, parent_point=lb / 2 * B.x,
                 child_point=-lc / 2 * C.x, joint_axis=N.z))
    tip = C.masscenter.locatenew('P4c', lc / 2 * C.x)
    anchor = ground.masscenter.locatenew('P4n', ln * N.x)
    if closed_by_loop:
        loop = LoopJoint('P4', C, ground, parent_point=tip,
                         child_point=anchor, joint_axis=N.z)
        system.add_joints(loop)
        constraints = loop.holonomic_constraints
    else:
        loop = None
        r = tip.pos_from(anchor)
        constraints = [r.dot(N.x), r.dot(N.y)]
    constraints = {'all': constraints, 'none': [],
                   'negated': [-row for row in constraints],
                   'simplified': [sm.trigsimp(row) for row in constraints]
                   }[rows]
    if constraints:
        system.add_holonomic_constraints(*constraints)
    system.apply_uniform_gravity(-g * N.y)
    free = 3 - len(constraints)
    system.q_ind, system.q_dep = [q1, q2, q3][:free], [q1, q2, q3][free:]
    system.u_ind, system.u_dep = [u1, u2, u3][:free], [u1, u2, u3][free:]
    if form:
        system.form_eoms()
    constants = {la: 0.8, lb: 2.0, lc: 1.0, ln: 2.0, m: 1.0, g: 9.81}
    return system, loop, constants


def test_four_bar_rows_and_their_labels():
    _, loop, _ = _four_bar()
    assert loop.labels == ('Fx', 'Fy')
    assert loop.dropped == {'Fz': 'identically zero',
                            'Tx': 'identically zero',
                            'Ty': 'identically zero'}
    assert [str(s) for s in loop.multipliers] == ['lambda_P4_Fx(t)',
                                                  'lambda_P4_Fy(t)']
    assert loop.coordinates.shape[0] == 0 and loop.speeds.shape[0] == 0
    assert loop.kdes.shape[0] == 0
    assert loop.force_components[2] == 0 and loop.torque_components == (
        sm.zeros(3, 1))


def test_four_bar_closed_by_a_loop_joint_moves_as_closed_by_hand():
    """The same mechanism closed by Moore's hand-written closure: the same
    trajectory (both runs at rtol 1e-11: agreement to 1e-7)."""
    results = []
    for closed_by_loop in (True, False):
        system, _, constants = _four_bar(closed_by_loop)
        q1, q2, q3 = system.q
        u1 = system.u[0]
        result = simulate(system, (0.0, 1.0),
                          {q1: np.deg2rad(10), q2: -1.0, q3: 2.0, u1: 0.0},
                          constants, t_eval=np.linspace(0, 1, 11),
                          rtol=1e-11, atol=1e-11)
        assert result.success, result.message
        results.append(result)
    np.testing.assert_allclose(results[0].q, results[1].q, atol=1e-7)
    np.testing.assert_allclose(results[0].u, results[1].u, atol=1e-6)
    assert np.max(results[0].constraint_residual) < 1e-9


@pytest.mark.parametrize('form', [False, True])
def test_a_loop_joint_without_its_rows_is_refused(form):
    """``add_joints`` adds a LoopJoint's bodies, not its constraints:
    without ``add_holonomic_constraints`` the System is an open chain,
    which simulate() ran with success=True, the rocker's tip leaving its
    ground point. Simulating, linearizing or solving such a System,
    formed or not, names the open loop. (A part of the rows is accepted:
    a redundant row may be left out on purpose, as the statically
    indeterminate double parallelogram of test_loop_multipliers does.)"""
    system, _, constants = _four_bar(rows='none', form=form)
    q1, q2, q3 = system.q
    start = {q1: np.deg2rad(10), q2: -1.0, q3: 2.0,
             **{u: 0.0 for u in system.u}}
    match = r"the loop joint 'P4' .* not closed .*add_holonomic_constraints"
    with pytest.raises(ValueError, match=r'^model: ' + match):
        simulate(system, (0.0, 0.1), start, constants)
    with pytest.raises(ValueError, match=match):
        Simulation(system)
    with pytest.raises(ValueError, match=match):
        linearize(system, start, constants)
    with pytest.raises(ValueError, match=r'^system: ' + match):
        HolonomicConstraintSolver.from_system(system, constants)


def test_a_loop_joint_with_its_rows_negated_or_simplified_is_closed():
    """The rows added times -1, or simplified (``trigsimp``, another form
    of the same constraint), close the same loop: the same trajectory as
    with the rows as given (all at rtol 1e-11: 1e-7), on the
    constraints."""
    runs = []
    for rows in ('all', 'negated', 'simplified'):
        system, _, constants = _four_bar(rows=rows)
        q1, q2, q3 = system.q
        result = simulate(system, (0.0, 1.0),
                          {q1: np.deg2rad(10), q2: -1.0, q3: 2.0,
                           system.u[0]: 0.0}, constants,
                          t_eval=np.linspace(0, 1, 11), rtol=1e-11,
                          atol=1e-11)
        assert result.success, result.message
        assert np.max(result.constraint_residual) < 1e-9
        runs.append(result)
    np.testing.assert_allclose(runs[0].q, runs[1].q, atol=1e-7)
    np.testing.assert_allclose(runs[0].q, runs[2].q, atol=1e-7)


# -- the meaning of the multipliers on generated spatial chains -------------

def _chain(rng, kinds):
    """A chain of bodies on ``kinds`` of tree joints (pin about a random
    axis, or spherical), with random joint points."""
    ground = RigidBody('G')
    bodies = [ground]
    joints = []
    for i, kind in enumerate(kinds):
        body = RigidBody(f'B{i}')
        parent = bodies[-1]
        parent_point = sum((float(c) * e for c, e in zip(
            rng.uniform(-1, 1, 3), parent.frame)), 0 * parent.frame.x)
        child_point = sum((float(c) * e for c, e in zip(
            rng.uniform(-1, 1, 3), body.frame)), 0 * body.frame.x)
        if kind == 'pin':
            axis = sum((float(c) * e for c, e in zip(
                rng.uniform(-1, 1, 3), parent.frame)), 0 * parent.frame.x)
            joint = PinJoint(f'J{i}', parent, body,
                             parent_point=parent_point,
                             child_point=child_point, joint_axis=axis)
        elif kind == 'slider':
            axis = sum((float(c) * e for c, e in zip(
                rng.uniform(-1, 1, 3), parent.frame)), 0 * parent.frame.x)
            joint = PrismaticJoint(f'J{i}', parent, body,
                                   parent_point=parent_point,
                                   child_point=child_point, joint_axis=axis)
        else:
            joint = SphericalJoint(f'J{i}', parent, body,
                                   parent_point=parent_point,
                                   child_point=child_point)
        joints.append(joint)
        bodies.append(body)
    return bodies, joints


def _function(args, exprs):
    """``f(values) -> ndarray`` of SymPy ``exprs`` in the functions of
    time and symbols ``args``, by SymEngine (fast on the large expressions
    of a spatial chain)."""
    plain = [sm.Dummy() for _ in args]
    exprs = [sm.sympify(e).xreplace(dict(zip(args, plain))) for e in exprs]
    function = se.Lambdify([se.sympify(p) for p in plain],
                           [se.sympify(e) for e in exprs], backend='lambda',
                           real=True)
    return lambda values: np.asarray(function(np.asarray(
        values, dtype=float)), dtype=float).ravel()


def _assembled_at(q, point, vector, frame):
    """The components in ``frame`` of ``vector`` at the configuration
    ``point`` of the coordinates ``q`` (floats)."""
    return _function(q, list(vector.to_matrix(frame)))(point)


@pytest.mark.parametrize('kind', ['pin', 'spherical', 'prismatic',
                                  'cylindrical', 'weld'])
@pytest.mark.parametrize('case', range(2))
def test_rows_rates_are_the_relative_velocities_along_the_axes(kind, case):
    """On the manifold, d/dt of each force row is e_k . (v_C - v_P') and of
    each torque row e_k . (w_child - w_parent), for any speeds: the
    multipliers are the force and torque components the docstring states.
    Generated spatial chains of three joints (seven degrees of freedom:
    enough for a weld)."""
    rng = np.random.default_rng(100 * case + len(kind))
    bodies, joints = _chain(rng, ['spherical', 'slider', 'spherical'])
    ground, child = bodies[0], bodies[-1]
    G = ground.frame
    q = [c for j in joints for c in j.coordinates]
    u = [s for j in joints for s in j.speeds]
    # the loop closes at a random configuration q0: the child's point, axis
    # and interframe are where the parent's are there
    q0 = rng.uniform(-np.pi, np.pi, len(q))
    tip = child.masscenter.locatenew('Cp', 0.3 * child.frame.x)
    target = _assembled_at(q, q0, tip.pos_from(ground.masscenter), G)
    options = dict(parent_point=tip,
                   child_point=ground.masscenter.locatenew(
                       'Gp', sum((float(c) * e for c, e in zip(target, G)),
                                 0 * G.x)))
    if kind in ('pin', 'prismatic', 'cylindrical'):
        axis = sum((float(c) * e for c, e in zip(
            rng.uniform(-1, 1, 3), child.frame)), 0 * child.frame.x)
        at_q0 = _assembled_at(q, q0, axis, G)
        options.update(joint_axis=axis, child_axis=sum(
            (float(c) * e for c, e in zip(at_q0, G)), 0 * G.x))
    if kind in ('prismatic', 'weld'):
        frame = sm.physics.vector.ReferenceFrame('Gi')
        dcm = [_assembled_at(q, q0, e, G) for e in child.frame]
        # Gi's axes are the child frame's at q0 (rows: components in G)
        frame.orient_explicit(G, sm.Matrix(dcm).T)
        options.update(child_interframe=frame)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        loop = LoopJoint('L', child, ground, kind=kind, **options)
    expected = {'pin': 5, 'spherical': 3, 'prismatic': 5,
                'cylindrical': 4, 'weld': 6}[kind]
    assert len(loop.labels) == expected and not loop.dropped
    point = q0
    residual = _function(q, loop.holonomic_constraints)(point)
    np.testing.assert_allclose(residual, 0, atol=1e-12)
    N = ground.frame
    kdes = sm.Matrix([k for j in joints for k in j.kdes])
    qdots = [qi.diff(t) for qi in q]
    A, b = sm.linear_eq_to_matrix(kdes, qdots)
    kindiff = dict(zip(qdots, A.LUsolve(b)))
    rates = loop.holonomic_constraints.diff(t).xreplace(kindiff)
    P, C = loop.parent_point, loop.child_point
    r = C.pos_from(P)
    parent, child_body = loop.parent, loop.child
    # velocities as time derivatives of positions from the ground's mass
    # center (SymPy's automatic Point.vel takes a wrong path in some of
    # these chains)
    O = ground.masscenter
    v_rel = (C.pos_from(O).dt(N) - P.pos_from(O).dt(N)
             - parent.frame.ang_vel_in(N).cross(r)).xreplace(kindiff)
    w_rel = child_body.frame.ang_vel_in(N) - parent.frame.ang_vel_in(N)
    projected = []
    for label in loop.labels:
        e = loop.axes['xyz'.index(label[1])]
        projected.append(e.dot(v_rel if label[0] == 'F' else w_rel)
                         .xreplace(kindiff))
    difference = _function(q + u, rates - sm.Matrix(projected))
    scale = _function(q + u, projected)
    for _ in range(3):
        state = np.concatenate([point, rng.uniform(-2, 2, len(u))])
        d = difference(state)
        s = np.max(np.abs(scale(state)))
        assert s > 1e-3
        np.testing.assert_allclose(d, 0, atol=1e-9 * s)


def test_axes_are_fixed_in_the_parent_and_right_handed():
    rng = np.random.default_rng(5)
    bodies, _ = _chain(rng, ['pin', 'pin'])
    parent = bodies[-1]
    loop = LoopJoint('L', parent, bodies[0], kind='pin',
                     joint_axis=parent.frame.x + 2 * parent.frame.y,
                     child_axis=bodies[0].frame.z)
    ex, ey, ez = (e.to_matrix(parent.frame) for e in loop.axes)
    assert sm.simplify(ez - sm.Matrix([1, 2, 0]) / sm.sqrt(5)) == (
        sm.zeros(3, 1))
    assert sm.simplify(ex.cross(ey) - ez) == sm.zeros(3, 1)
    assert sm.simplify(ex.dot(ez)) == 0


def test_redundant_row_of_an_overconstrained_loop_is_dropped_and_named():
    """The RSSR-like loop: crank on a pin, coupler on a spherical joint,
    rocker on a pin, closed by a pin between coupler and rocker: Kutzbach
    counts 6*3 - 5*3 - 3 = 0 but the planar loop moves, so one of the
    five rows is redundant (the Autodesk module's overconstrained
    four-bar). A warning names it; four rows stay, of full rank."""
    la, lb, lc, ln = 0.8, 2.0, 1.0, 2.0
    ground = RigidBody('N')
    N = ground.frame
    A, B, C = (RigidBody(n) for n in 'ABC')
    PinJoint('P1', ground, A, child_point=-la / 2 * A.x, joint_axis=N.z)
    SphericalJoint('P2', A, B, parent_point=la / 2 * A.x,
                   child_point=-lb / 2 * B.x)
    PinJoint('P4', ground, C, parent_point=ln * N.x,
             child_point=lc / 2 * C.x, joint_axis=N.z)
    with pytest.warns(UserWarning, match=r"LoopJoint 'P3'.*redundant"):
        loop = LoopJoint('P3', B, C, parent_point=lb / 2 * B.x,
                         child_point=-lc / 2 * C.x, joint_axis=B.z,
                         child_axis=C.z)
    assert list(loop.dropped.values()) == ['redundant']
    assert len(loop.labels) == 4
    assert len(loop.multipliers) == 4


def test_a_weld_in_a_planar_loop_keeps_three_rows():
    """A planar two-link chain welded to the ground at its tip: rows x, y
    and the rotation about z; the out-of-plane rows are zero."""
    ground = RigidBody('N')
    N = ground.frame
    A, B = RigidBody('A'), RigidBody('B')
    PinJoint('J1', ground, A, child_point=-A.x, joint_axis=N.z)
    PinJoint('J2', A, B, parent_point=A.x, child_point=-B.x, joint_axis=N.z)
    loop = LoopJoint('W', B, ground, parent_point=B.x,
                     child_point=2 * N.x, kind='weld')
    assert loop.labels == ('Fx', 'Fy', 'Tz')
    assert set(loop.dropped) == {'Fz', 'Tx', 'Ty'}


def test_bad_input_is_refused_with_the_argument_named():
    ground, body = RigidBody('N'), RigidBody('A')
    PinJoint('J', ground, body, joint_axis=ground.z)
    with pytest.raises(ValueError, match='kind must be one of'):
        LoopJoint('L', body, ground, kind='hinge')
    with pytest.raises(TypeError, match='kind'):
        LoopJoint('L', body, ground, kind=3)
    with pytest.raises(ValueError, match='joint_axis is required'):
        LoopJoint('L', body, ground, kind='pin')
    with pytest.raises(ValueError, match='joint_axis and child_axis apply'):
        LoopJoint('L', body, ground, kind='spherical', joint_axis=ground.z)
    with pytest.raises(TypeError, match='joint_axis'):
        LoopJoint('L', body, ground, kind='pin', joint_axis=(0, 0, 1))
    with pytest.raises(ValueError, match='not fixed in'):
        # ground.x is not fixed in the turning body
        LoopJoint('L', body, ground, kind='pin', joint_axis=ground.x)
    with pytest.raises(ValueError, match='or a frame it is fixed in'):
        # the pin's axis is fixed in the body, not in the body's frame's
        # neighbour that turns about another axis
        tilted = sm.physics.vector.ReferenceFrame('T')
        tilted.orient_axis(ground.frame, dynamicsymbols('s'), ground.x)
        LoopJoint('L', body, ground, kind='pin', joint_axis=ground.z,
                  frame=tilted)
    with pytest.raises(TypeError, match='frame'):
        LoopJoint('L', body, ground, kind='pin', joint_axis=ground.z,
                  frame='N')
    loose = RigidBody('loose')
    with pytest.raises(ValueError, match='is not known; build the '
                       'LoopJoint after'):
        LoopJoint('L', loose, ground, kind='spherical')
    with pytest.raises(TypeError):
        LoopJoint('L', 'body', ground, kind='spherical')


def test_sympys_own_reduced_equations_are_right_with_the_default_frame():
    """The four-bar closed on the ground with ``joint_axis=N.z``: its rows
    are resolved in N (the default frame), so SymPy's form_eoms() with its
    default LU solve of the velocity constraints gives the accelerations
    that Cramer's rule gives, at consistent states (resolved in the
    rocker's frame, the LU pivots on an entry that vanishes on the loop)."""
    from sympy_loads import HolonomicConstraintSolver
    accelerations = []
    for solver in ('LU', 'CRAMER'):
        system, loop, constants = _four_bar()
        assert loop.frame is system.frame
        system.form_eoms(constraint_solver=solver)
        q, u = list(system.q), list(system.u)
        values = list(constants.items())
        rhs = _function(q + u + [s for s, _ in values], list(
            system.mass_matrix_full.LUsolve(system.forcing_full)))
        positions = HolonomicConstraintSolver.from_system(system, constants)
        rng = np.random.default_rng(3)
        out = []
        for q1 in (0.2, 1.0, 2.5):
            qs = positions.solve_positions([q1, -1.0, 2.0])
            J = _function(q + [s for s, _ in values], list(sm.Matrix(
                system.holonomic_constraints).jacobian(q)))(
                list(qs) + [v for _, v in values]).reshape(2, 3)
            # dependent speeds from the velocity constraints, u1 random
            u1 = rng.uniform(-2, 2)
            ud = np.linalg.solve(J[:, 1:], -J[:, 0] * u1)
            state = list(qs) + [u1, *ud] + [v for _, v in values]
            out.append(rhs(state)[3:])
        accelerations.append(np.array(out))
    np.testing.assert_allclose(accelerations[0], accelerations[1],
                               rtol=1e-9, atol=1e-9)
