"""The assembled equations of an unformed System on generated joint trees
(``sympy_loads._assembly``): the mass matrix summed through composite
inertias over the joints' twists, and its compiled code
(``sympy_loads._numeric.dag_llvm``).

Oracle: SymPy's own ``form_eoms()`` of the same System (its
``mass_matrix`` and ``forcing``, lambdified by SymPy), which shares no
code with the assembly. The trees are drawn at random: branches, pin,
prismatic and spherical joints with random axes and offsets, particles
carried by links, and a spring on each joint.
"""

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import Simulation
from sympy_loads._numeric import eom_blocks
from sympy_loads._numeric.codegen import _shared_nodes


def random_tree(n, seed):
    """A System of ``n`` rigid bodies, each joined to a random earlier one
    (or the ground) by a pin, prismatic or spherical joint with random
    axes and offsets; every other body carries a particle off its mass
    centre. Gravity and a spring-damper in every joint coordinate. Not
    formed. Returns ``(system, constants)``."""
    rng = np.random.default_rng(seed)
    g, k, c = sm.symbols('g k c')
    ground = me.RigidBody('ground')
    system = me.System.from_newtonian(ground)
    bodies = [ground]
    constants = {g: 9.81, k: 3.0, c: 0.2}
    kinds = ['pin', 'prismatic', 'spherical']
    for i in range(n):
        parent = bodies[int(rng.integers(0, len(bodies)))]
        A = me.ReferenceFrame(f'A{i}')
        m = sm.Symbol(f'm{i}')
        constants[m] = float(rng.uniform(0.5, 2.0))
        moments = rng.uniform(0.05, 0.2, 3)
        products = rng.uniform(-0.01, 0.01, 3)
        G = me.Point(f'G{i}')
        body = me.RigidBody(f'b{i}', G, A, m,
                            (me.inertia(A, *moments, *products), G))
        P, C = parent.frame, A
        parent_point = sum((float(v) * e for v, e in zip(
            rng.uniform(-0.4, 0.4, 3), (P.x, P.y, P.z))), P.x * 0)
        child_point = sum((float(v) * e for v, e in zip(
            rng.uniform(-0.4, 0.4, 3), (C.x, C.y, C.z))), C.x * 0)
        axis = sum((float(v) * e for v, e in zip(
            rng.uniform(-1, 1, 3), (P.x, P.y, P.z))), P.x * 0)
        kind = kinds[i % 3] if i else 'pin'
        if kind == 'spherical':
            q = me.dynamicsymbols(f'q{i}_1:4')
            u = me.dynamicsymbols(f'u{i}_1:4')
            joint = me.SphericalJoint(f'J{i}', parent, body, coordinates=q,
                                      speeds=u, parent_point=parent_point,
                                      child_point=child_point)
        else:
            q, u = [me.dynamicsymbols(f'q{i}')], [me.dynamicsymbols(f'u{i}')]
            joint_class = me.PinJoint if kind == 'pin' else me.PrismaticJoint
            joint = joint_class(f'J{i}', parent, body, coordinates=q[0],
                                speeds=u[0], parent_point=parent_point,
                                child_point=child_point, joint_axis=axis)
        system.add_joints(joint)
        for qi, ui in zip(q, u):
            system.add_loads(*_joint_spring(joint, kind, -k * qi - c * ui))
        if i % 2:
            point = body.masscenter.locatenew(f'R{i}', 0.3 * A.x + 0.1 * A.z)
            point.v2pt_theory(body.masscenter, system.frame, A)
            mp = sm.Symbol(f'mp{i}')
            constants[mp] = float(rng.uniform(0.1, 0.5))
            system.add_bodies(me.Particle(f'p{i}', point, mp))
        bodies.append(body)
    system.apply_uniform_gravity(-g * ground.frame.y)
    return system, constants


def _joint_spring(joint, kind, magnitude):
    """The spring-damper loads of one joint coordinate: a force along a
    slider's axis, a torque about a pin's axis (or, for a spherical joint,
    about the child's x axis)."""
    parent, child = joint.parent, joint.child
    if kind == 'prismatic':
        force = magnitude * joint.joint_axis.normalize()
        return [me.Force(joint.child_point, force),
                me.Force(joint.parent_point, -force)]
    axis = (joint.joint_axis if kind == 'pin' else child.frame.x)
    return [me.Torque(child.frame, magnitude * axis),
            me.Torque(parent.frame, -magnitude * axis)]


def _equations_at(sim, constants, state):
    """M and F of the simulation's generated equations at ``state``."""
    nm = sim._nm
    nq, nu = len(nm.q), len(nm.u)
    x = nm.pack(0.3, state[:nq], state[nq:],
                [constants[s] for s in nm.constants], [])
    e = nm.functions['eom'](x)
    _, mass, forcing, g0, _ = eom_blocks(nq, nu, len(nm.u_dep_idx),
                                        nm.kinematics_is_identity)
    return e[mass:forcing].reshape(nu, nu), e[forcing:g0]


@pytest.mark.parametrize('seed', [0, 1, 3])
def test_assembled_tree_equals_kanes_method(seed):
    """On generated trees, the compiled assembled M and F equal SymPy's
    formed ones at random states, to 1e-11 relative to their size (the
    two sum the same terms in other orders); M is symmetric."""
    system, constants = random_tree(4, seed)
    sim = Simulation(system, backend='compiled')
    assert system.eom_method is None
    system.form_eoms()
    kane = system.eom_method
    symbols = list(kane.q) + list(kane.u) + list(constants)
    f = sm.lambdify(symbols, [kane.mass_matrix, kane.forcing])
    rng = np.random.default_rng(seed)
    for _ in range(3):
        state = rng.uniform(-1.0, 1.0, len(kane.q) + len(kane.u))
        M, F = _equations_at(sim, constants, state)
        M_ref, F_ref = (np.asarray(a, float) for a in f(
            *state, *constants.values()))
        scale = max(1.0, np.abs(M_ref).max())
        assert np.abs(M - M_ref).max() <= 1e-11 * scale
        assert np.abs(M - M.T).max() <= 1e-13 * scale
        F_ref = F_ref.ravel()
        assert np.abs(F - F_ref).max() <= 1e-11 * max(1, np.abs(F_ref).max())


def _chain(n):
    """A planar chain of ``n`` PinJoint links, unformed."""
    q = me.dynamicsymbols(f'q1:{n + 1}')
    u = me.dynamicsymbols(f'u1:{n + 1}')
    l, m, g = sm.symbols('l m g')
    ground = me.RigidBody('ground')
    system = me.System.from_newtonian(ground)
    parent = ground
    for i in range(n):
        A = me.ReferenceFrame(f'A{i}')
        G = me.Point(f'G{i}')
        body = me.RigidBody(f'b{i}', G, A, m,
                            (me.inertia(A, 0, 0, m * l ** 2 / 12), G))
        system.add_joints(me.PinJoint(
            f'J{i}', parent, body, coordinates=q[i], speeds=u[i],
            parent_point=-l / 2 * parent.frame.y if i else 0 * A.y,
            child_point=l / 2 * A.y, joint_axis=parent.frame.z))
        parent = body
    system.apply_uniform_gravity(-g * ground.frame.y)
    return system


def test_assembled_equations_grow_as_n_squared():
    """The assembled equations of a PinJoint chain have O(n^2) distinct
    operations (the n^2 entries of M, each a few products of a composite
    inertia and two twists): doubling the links multiplies them by about
    4, not the 8 of summing every body's term into every entry, nor the
    exponential growth of a link's velocity written out in the ground
    frame."""
    sizes = {}
    for n in (8, 16):
        sim = Simulation(_chain(n), backend='compiled')
        sizes[n] = len(_shared_nodes(list(sim._nm.functions['eom'].outputs)))
    assert sizes[16] / sizes[8] < 5.0


def _kinematics_of(kane):
    return (kane.mass_matrix_kin, kane.forcing_kin, kane.kindiffdict())


@pytest.mark.parametrize('case', ['tree', 'coupled'])
def test_kinematic_equations_as_kanes_method_makes_them(case):
    """The unformed model's kinematic matrices (made without SymPy's
    Jacobians) equal those of SymPy's ``KanesMethod`` of the same
    equations: a tree with spherical joints (q' a function of q and u),
    and hand-written equations whose q' are coupled (a non-diagonal
    coefficient matrix) and hold a time function."""
    from sympy_loads._assembly import unformed_kanes_method
    if case == 'tree':
        system, _ = random_tree(3, 0)
    else:
        q1, q2, u1, u2 = me.dynamicsymbols('q1 q2 u1 u2')
        f = me.dynamicsymbols('f')
        N = me.ReferenceFrame('N')
        O = me.Point('O')
        O.set_vel(N, 0)
        system = me.System(N, O)
        system.add_coordinates(q1, q2)
        system.add_speeds(u1, u2)
        system.add_kdes(q1.diff() + sm.cos(q2) * q2.diff() - u1,
                        2 * q2.diff() - u2 * sm.sin(q1) - f)
        P = O.locatenew('P', q1 * N.x + q2 * N.y)
        P.set_vel(N, u1 * N.x + u2 * N.y)
        system.add_bodies(me.Particle('p', P, sm.Symbol('m')))
    ours = unformed_kanes_method(system)
    theirs = me.KanesMethod(
        system.frame, q_ind=list(system.q_ind), u_ind=list(system.u_ind),
        kd_eqs=list(system.kdes), explicit_kinematics=False)
    for a, b in zip(_kinematics_of(ours)[:2], _kinematics_of(theirs)[:2]):
        assert sm.simplify(a - b) == sm.zeros(*a.shape)
    map_ours, map_theirs = ours.kindiffdict(), theirs.kindiffdict()
    assert set(map_ours) == set(map_theirs)
    for key in map_ours:
        assert sm.simplify(map_ours[key] - map_theirs[key]) == 0



def _constraint_system(explicit):
    """Two coordinates whose kinematic equations are coupled and hold a
    time function ``f``, tied by a holonomic constraint that holds time
    and a function of time ``h``; ``explicit``: the System's velocity
    constraints are set by hand (the time derivative written out)."""
    q1, q2, u1, u2 = me.dynamicsymbols('q1 q2 u1 u2')
    f, h = me.dynamicsymbols('f h')
    t = me.dynamicsymbols._t
    L, w = sm.symbols('L w')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    system = me.System(N, O)
    system.add_coordinates(q1)
    system.add_coordinates(q2, independent=False)
    system.add_speeds(u1)
    system.add_speeds(u2, independent=False)
    system.add_kdes(q1.diff() + sm.cos(q2) * q2.diff() - u1,
                    2 * q2.diff() - u2 * sm.sin(q1) - f)
    constraint = (q1 ** 2 + L * sm.sin(q2) * sm.cos(w * t)
                  + h * q1 - L ** 2)
    system.add_holonomic_constraints(constraint)
    if explicit:
        system.velocity_constraints = [constraint.diff(t)]
    P = O.locatenew('P', q1 * N.x + q2 * N.y)
    P.set_vel(N, u1 * N.x + u2 * N.y)
    system.add_bodies(me.Particle('p', P, sm.Symbol('m')))
    return system


@pytest.mark.parametrize('case', ['derived', 'explicit', 'four_bar'])
def test_constraint_matrices_as_kanes_method_makes_them(case):
    """The unformed model's velocity constraints ``k_nh u + f_nh = 0``,
    derived from the holonomic constraints by partial derivatives (not
    SymPy's time derivative), equal those of SymPy's ``KanesMethod`` given
    ``System.velocity_constraints``, at random values of every symbol and
    function: coupled kinematic equations with a time function and a
    constraint holding time (derived, or set by hand on the System), and
    IFToMM's N-four-bar (N = 2: PinJoints closed by LoopJoints)."""
    from _unformed_models import n_four_bar
    from sympy_loads._assembly import unformed_kanes_method
    from sympy_loads._utils import _kanes_parts
    system = (n_four_bar(2).system if case == 'four_bar'
              else _constraint_system(case == 'explicit'))
    ours = unformed_kanes_method(system)
    assert ours.derives_holonomic_rates == (case != 'explicit')
    theirs = me.KanesMethod(
        system.frame, q_ind=list(system.q_ind), u_ind=list(system.u_ind),
        kd_eqs=list(system.kdes), q_dependent=list(system.q_dep),
        u_dependent=list(system.u_dep),
        configuration_constraints=list(system.holonomic_constraints),
        velocity_constraints=list(system.velocity_constraints),
        explicit_kinematics=False)
    a, b = _kanes_parts(ours), _kanes_parts(theirs)
    difference = sm.Matrix.hstack(a.k_nh - b.k_nh, a.f_nh - b.f_nh)
    functions = sorted(me.find_dynamicsymbols(difference), key=str)
    rng = np.random.default_rng(3)
    for _ in range(3):
        values = {s: rng.uniform(0.5, 1.5) for s in functions}
        numbers = difference.xreplace(values)
        numbers = numbers.xreplace({s: rng.uniform(0.5, 1.5)
                                    for s in numbers.free_symbols})
        assert np.abs(np.array(numbers, dtype=float)).max() <= 1e-12
    assert a.k_nh.shape == b.k_nh.shape and a.k_nh != sm.zeros(*a.k_nh.shape)
