"""Simulating a ``System`` whose equations are not formed (issue 38): the
numeric model assembles Kane's equations from the bodies, joints and
loads (``sympy_loads._assembly``) without SymPy's ``form_eoms()``.

Oracles: SymPy's own equations of the same model (``form_eoms()``, its
``mass_matrix``/``forcing`` and ``mass_matrix_full``/``forcing_full``
lambdified by SymPy and integrated by SciPy), which share no code with the
assembly.
"""

from unittest import mock

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp

from sympy_loads import Simulation, simulate
from sympy_loads._numeric import eom_blocks

TIME = me.dynamicsymbols._t


def pin_chain(n, spatial=False, seed=0):
    """A chain of ``n`` rigid links joined by SymPy ``PinJoint``s (the way
    SymPy's joints tutorial writes it), each turning relative to its
    parent, under gravity, with a torsional spring-damper in each joint;
    spatial: the joint axes cycle through the parent's x, y and z."""
    rng = np.random.default_rng(seed)
    q = me.dynamicsymbols(f'q1:{n + 1}')
    u = me.dynamicsymbols(f'u1:{n + 1}')
    g = sm.Symbol('g')
    ls = sm.symbols(f'l1:{n + 1}')
    ms = sm.symbols(f'm1:{n + 1}')
    k, c = sm.symbols('k c')
    ground = me.RigidBody('ground')
    system = me.System.from_newtonian(ground)
    parent = ground
    constants = {g: 9.81, k: 2.0, c: 0.1}
    for i in range(n):
        A = me.ReferenceFrame(f'A{i + 1}')
        G = me.Point(f'G{i + 1}')
        moments = rng.uniform(0.02, 0.1, 3)
        body = me.RigidBody(f'b{i + 1}', masscenter=G, frame=A, mass=ms[i],
                            inertia=(me.inertia(A, *moments), G))
        axis = ([parent.frame.x, parent.frame.y, parent.frame.z][i % 3]
                if spatial else parent.frame.z)
        joint = me.PinJoint(
            f'J{i + 1}', parent, body, coordinates=q[i], speeds=u[i],
            parent_point=(-ls[i - 1] / 2 * parent.frame.y if i
                          else 0 * parent.frame.y),
            child_point=ls[i] / 2 * A.y, joint_axis=axis)
        system.add_joints(joint)
        system.add_actuators(me.TorqueActuator(
            -k * q[i] - c * u[i], axis, body, parent))
        constants[ls[i]] = float(rng.uniform(0.3, 0.8))
        constants[ms[i]] = float(rng.uniform(0.5, 2.0))
        parent = body
    system.apply_uniform_gravity(-g * ground.frame.y)
    initial = {s: float(rng.uniform(-0.6, 0.6)) for s in q}
    initial.update({s: float(rng.uniform(-1.0, 1.0)) for s in u})
    return system, constants, initial


def absolute_chain(n, particles=False, seed=1):
    """A planar chain of ``n`` links written with absolute angles (each
    link's frame oriented in the ground frame, its points located from the
    previous joint and their velocities by ``v2pt_theory``), as a
    ``System`` built from coordinates, speeds, bodies and loads."""
    rng = np.random.default_rng(seed)
    q = me.dynamicsymbols(f'q1:{n + 1}')
    u = me.dynamicsymbols(f'u1:{n + 1}')
    g, l, m = sm.symbols('g l m')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    system = me.System(N, O)
    system.add_coordinates(*q)
    system.add_speeds(*u)
    system.add_kdes(*[qi.diff() - ui for qi, ui in zip(q, u)])
    joint = O
    for i in range(n):
        A = me.ReferenceFrame(f'L{i + 1}')
        A.orient_axis(N, N.z, q[i])
        A.set_ang_vel(N, u[i] * N.z)
        end = joint.locatenew(f'P{i + 1}', -l * A.y)
        end.v2pt_theory(joint, N, A)
        if particles:
            body = me.Particle(f'p{i + 1}', end, m)
        else:
            G = joint.locatenew(f'G{i + 1}', -l / 2 * A.y)
            G.v2pt_theory(joint, N, A)
            body = me.RigidBody(f'b{i + 1}', G, A, m,
                                (me.inertia(A, 0, 0, m * l ** 2 / 12), G))
        system.add_bodies(body)
        system.add_loads(me.Force(body.masscenter, -m * g * N.y))
        joint = end
    constants = {g: 9.81, l: 1.0 / n, m: 1.0 / n}
    # released at rest from a gentle random shape: a long chain of short
    # links moving fast is chaotic, and integration errors of 1e-11 grow
    # past the 1e-8 the trajectories are compared to within a second
    initial = {s: float(rng.uniform(-0.3, 0.3)) for s in q}
    initial.update({s: 0.0 for s in u})
    return system, constants, initial


def _numeric_m_f(sim, constants, state, rng):
    """M and F of the simulation's generated equations at ``state``."""
    nm = sim._nm
    nq, nu = len(nm.q), len(nm.u)
    c = [constants[s] for s in nm.constants]
    s = rng.uniform(-1, 1, len(nm.specified))
    x = nm.pack(0.3, state[:nq], state[nq:], c, s)
    e = nm.functions['eom'](x)
    _, mass, forcing, g0, _ = eom_blocks(nq, nu, len(nm.u_dep_idx),
                                        nm.kinematics_is_identity)
    return e[mass:forcing].reshape(nu, nu), e[forcing:g0]


def _sympy_m_f(system, constants, state):
    """SymPy's mass matrix and forcing of the formed ``system``."""
    kane = system.eom_method
    symbols = list(kane.q) + list(kane.u) + list(constants)
    f = sm.lambdify(symbols, [kane.mass_matrix, kane.forcing])
    M, F = f(*state, *constants.values())
    return np.asarray(M, float), np.asarray(F, float).ravel()


def _no_symbolic_equations():
    """Context: form_eoms, kanes_equations and SymPy's private _form_fr /
    _form_frstar raise if anything calls them."""
    def refuse(*args, **kwargs):
        raise AssertionError('symbolic equations were formed')
    patches = [mock.patch.object(me.System, 'form_eoms', refuse),
               mock.patch.object(me.KanesMethod, 'kanes_equations', refuse),
               mock.patch.object(me.KanesMethod, '_form_fr', refuse),
               mock.patch.object(me.KanesMethod, '_form_frstar', refuse)]
    return patches


@pytest.mark.parametrize('build', [
    lambda: pin_chain(5),
    lambda: pin_chain(4, spatial=True),
    lambda: absolute_chain(6),
    lambda: absolute_chain(5, particles=True)],
    ids=['pin-planar', 'pin-spatial', 'absolute-rigid', 'absolute-particle'])
def test_assembled_equations_equal_kanes_method(build):
    """M and F generated for the unformed System equal SymPy's formed
    ones to 1e-12 at random states (relative to their size)."""
    system, constants, _ = build()
    patches = _no_symbolic_equations()
    for p in patches:
        p.start()
    try:
        sim = Simulation(system, backend='numpy')
    finally:
        for p in patches:
            p.stop()
    assert system.eom_method is None
    system.form_eoms()
    rng = np.random.default_rng(5)
    nq = len(sim._nm.q)
    for _ in range(3):
        state = rng.uniform(-1.5, 1.5, nq + len(sim._nm.u))
        M, F = _numeric_m_f(sim, constants, state, rng)
        M_ref, F_ref = _sympy_m_f(system, constants, state)
        assert np.abs(M - M_ref).max() <= 1e-12 * max(1, np.abs(M_ref).max())
        assert np.abs(F - F_ref).max() <= 1e-12 * max(1, np.abs(F_ref).max())


def test_unformed_system_simulates_without_symbolic_equations():
    """simulate() on an unformed System calls none of form_eoms,
    kanes_equations, _form_fr, _form_frstar, and the System stays
    unformed."""
    system, constants, initial = pin_chain(3)
    patches = _no_symbolic_equations()
    for p in patches:
        p.start()
    try:
        result = simulate(system, (0, 0.2), initial, constants)
    finally:
        for p in patches:
            p.stop()
    assert result.success
    assert system.eom_method is None


def _scipy_reference(system, constants, initial, t_end, t_eval, rtol):
    """SymPy's full equations of the formed System, lambdified by SymPy
    and integrated by SciPy's DOP853 at ``rtol``."""
    kane = system.eom_method
    q, u = list(kane.q), list(kane.u)
    symbols = q + u + list(constants)
    f = sm.lambdify(symbols, [kane.mass_matrix_full, kane.forcing_full],
                    cse=True)
    values = list(constants.values())

    def rhs(t, y):
        M, F = f(*y, *values)
        return np.linalg.solve(np.asarray(M, float),
                               np.asarray(F, float).ravel())
    y0 = [initial[s] for s in q + u]
    sol = solve_ivp(rhs, (0, t_end), y0, method='DOP853', rtol=rtol,
                    atol=rtol / 10, t_eval=t_eval)
    return sol.y.T


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
@pytest.mark.parametrize('build, rtol, t_end', [
    (lambda: pin_chain(8, seed=3), 1e-11, 1.0),
    # the 20-link chain whips its last links at 25 rad/s and is chaotic:
    # two integrations at rtol 1e-13 differ by 2e-9 (SciPy 1.16) to 2e-8
    # (SciPy 1.12) after 1 s, by 1e-10 to 2e-10 after 0.5 s
    (lambda: absolute_chain(20), 1e-13, 0.5)], ids=['pin8', 'absolute20'])
def test_trajectory_equals_formed_equations(build, rtol, t_end, backend):
    """q and u equal those of SymPy's formed equations integrated by
    SciPy to 1e-8 (the two integrations differ by less than 1e-9 at the
    tolerance and span used)."""
    system, constants, initial = build()
    t_eval = np.linspace(0, t_end, 6)
    result = simulate(system, (0, t_end), initial, constants,
                      t_eval=t_eval, rtol=rtol, atol=rtol / 10,
                      backend=backend)
    assert result.success and system.eom_method is None
    system.form_eoms()
    reference = _scipy_reference(system, constants, initial, t_end, t_eval,
                                 rtol)
    got = np.hstack([result.q, result.u])
    assert np.abs(got - reference).max() <= 1e-8


def test_formed_system_unchanged():
    """With form_eoms() called first the formed equations serve: the
    results equal those of the unformed path to the integrator's
    tolerance and the System keeps its KanesMethod."""
    system, constants, initial = pin_chain(4, seed=7)
    unformed = simulate(system, (0, 0.5), initial, constants,
                        t_eval=[0.5], rtol=1e-11, atol=1e-12)
    system.form_eoms()
    kane = system.eom_method
    formed = simulate(system, (0, 0.5), initial, constants, t_eval=[0.5],
                      rtol=1e-11, atol=1e-12)
    assert system.eom_method is kane
    assert np.abs(formed.y - unformed.y).max() <= 1e-8


def closed_chain(n):
    """:func:`absolute_chain` with the tip of its last link held on the
    line ``y = -h`` (a holonomic constraint; the last angle and speed
    dependent), released at rest from the straight chain at 0.6 rad."""
    system, constants, _ = absolute_chain(n)
    q, u = list(system.q), list(system.u)
    h = sm.Symbol('h')
    l = next(s for s in constants if s.name == 'l')
    system.add_holonomic_constraints(h - l * sum(sm.cos(qi) for qi in q))
    system.q_ind, system.q_dep = q[:-1], q[-1:]
    system.u_ind, system.u_dep = u[:-1], u[-1:]
    initial = {qi: 0.6 for qi in q}
    initial.update({ui: 0.0 for ui in u})
    constants[h] = constants[l] * n * float(np.cos(0.6))
    return system, constants, initial


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_closed_chain_equals_formed_equations(backend):
    """A closed 12-link chain (configuration and velocity constraints):
    the unformed System's trajectory equals the formed one's to 1e-8 at
    rtol 1e-11, and both keep the constraint."""
    system, constants, initial = closed_chain(12)
    t_eval = np.linspace(0, 0.3, 4)
    options = dict(t_eval=t_eval, rtol=1e-11, atol=1e-12, backend=backend)
    unformed = simulate(system, (0, 0.3), initial, constants, **options)
    assert unformed.success and system.eom_method is None
    assert unformed.constraint_residual.max() <= 1e-10
    system.form_eoms()
    formed = simulate(system, (0, 0.3), initial, constants, **options)
    assert np.abs(unformed.y - formed.y).max() <= 1e-8


def test_loop_joint_four_bar_equals_formed_equations():
    """The four-bar of the examples (PinJoints closed by a LoopJoint, a
    SpringDamperActuator): formed, then unformed again (setting its
    independent speeds resets the System's equations), the trajectories
    agree to 1e-8."""
    from sympy_loads.examples.four_bar import build_model
    model = build_model()
    s = model.symbols
    constants = {s['la']: 1.0, s['lb']: 4.0, s['lc']: 2.0, s['ln']: 4.0,
                 s['m']: 1.0, s['g']: 9.81, s['k']: 20.0, s['c']: 0.5,
                 s['l0']: 3.0}
    q1, q2, q3 = model.q
    u1 = model.u[0]
    initial = {q1: 0.3, q2: 1.6, q3: 1.4, u1: 0.5}
    options = dict(t_eval=np.linspace(0, 1, 5), rtol=1e-11, atol=1e-12)
    formed = simulate(model.system, (0, 1), initial, constants, **options)
    model.system.u_ind = list(model.system.u_ind)
    assert model.system.eom_method is None
    unformed = simulate(model.system, (0, 1), initial, constants, **options)
    assert model.system.eom_method is None
    assert unformed.success
    assert np.abs(unformed.y - formed.y).max() <= 1e-8


def test_linearize_equals_formed_equations():
    """linearize() on the unformed System (no symbolic equations formed)
    gives the A of the formed System to 1e-9 at the hanging equilibrium,
    and equilibrium() finds that equilibrium."""
    from sympy_loads import equilibrium, linearize
    system, constants, _ = pin_chain(4, spatial=True, seed=2)
    point = {**{s: 0.0 for s in system.q}, **{s: 0.0 for s in system.u}}
    patches = _no_symbolic_equations()
    for p in patches:
        p.start()
    try:
        unformed = linearize(system, point, constants)
        found = equilibrium(system, {s: 0.1 for s in system.q}, constants)
    finally:
        for p in patches:
            p.stop()
    assert system.eom_method is None
    assert max(abs(v) for v in found.values()) <= 1e-9
    system.form_eoms()
    formed = linearize(system, point, constants)
    A, A_ref = np.asarray(unformed.A, float), np.asarray(formed.A, float)
    assert np.abs(A - A_ref).max() <= 1e-9 * max(1, np.abs(A_ref).max())


def test_unformed_simulation_pickles_and_runs_studies():
    """A Simulation of an unformed System pickles (its copy gives the same
    run) and simulate_many runs cases on it; the System stays unformed."""
    import pickle
    from sympy_loads import simulate_many
    system, constants, initial = pin_chain(3, seed=4)
    sim = Simulation(system)
    copy = pickle.loads(pickle.dumps(sim))
    options = dict(t_eval=[0.5], rtol=1e-10, atol=1e-12)
    a = sim.run((0, 0.5), initial, constants, **options)
    b = copy.run((0, 0.5), initial, constants, **options)
    assert np.array_equal(a.y, b.y)
    k = sm.Symbol('k')
    results = simulate_many(system, (0, 0.5), initial, constants,
                            [{}, {k: 4.0}], **options)
    assert all(r.success for r in results)
    assert np.abs(results[0].y - a.y).max() <= 1e-12
    assert np.abs(results[1].y - a.y).max() > 1e-6      # k changed it
    assert system.eom_method is None


def sled_system(slip):
    """A Chaplygin sled as a System (knife edge at (x, y) heading theta,
    mass centre a ahead; the edge's lateral speed prescribed, zero or the
    specified input s(t): a velocity constraint) tied to the origin by a
    spring and a damper (the damper's force holds the coordinates'
    rates); not formed."""
    x, y, th = me.dynamicsymbols('x y theta')
    ux, uy, w = me.dynamicsymbols('u_x u_y omega')
    s = me.dynamicsymbols('s')
    m, inertia, a, k, c, l0 = sm.symbols('m I a k c l0')
    N = me.ReferenceFrame('N')
    B = me.ReferenceFrame('B')
    B.orient_axis(N, N.z, th)
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    G = P.locatenew('G', a * B.x)
    G.v2pt_theory(P, N, B)
    system = me.System(N, O)
    system.add_coordinates(x, y, th)
    system.add_speeds(ux, w)
    system.add_speeds(uy, independent=False)
    system.add_kdes(x.diff() - ux, y.diff() - uy, th.diff() - w)
    system.add_nonholonomic_constraints(
        -sm.sin(th) * ux + sm.cos(th) * uy - (s if slip else 0))
    system.add_bodies(me.RigidBody('sled', G, B, m,
                                   (me.inertia(B, 0, 0, inertia), G)))
    path = me.LinearPathway(O, G)
    system.add_actuators(me.LinearSpring(k, path, l0),
                         me.LinearDamper(c, path))
    constants = {m: 1.3, inertia: 0.12, a: 0.3, k: 4.0, c: 0.4, l0: 0.5}
    initial = {x: 0.8, y: -0.2, th: 0.4, ux: 0.5, w: 1.5, uy: 0.0}
    specified = {s: 0.2 * sm.sin(3 * TIME)} if slip else None
    return system, constants, initial, specified


@pytest.mark.parametrize('slip', [False, True], ids=['no-slip', 'slip'])
def test_velocity_constraint_and_rates_equal_formed_equations(slip):
    """The sled (a velocity constraint; a damper whose force holds the
    coordinates' rates; with ``slip`` a specified input inside the
    constraint, whose rate the acceleration constraint needs): unformed
    and formed trajectories agree to 1e-8 over 2 s at rtol 1e-11, on both
    back ends."""
    for backend in ('compiled', 'numpy'):
        system, constants, initial, specified = sled_system(slip)
        options = dict(t_eval=np.linspace(0, 2, 5), rtol=1e-11, atol=1e-12,
                       specified=specified, backend=backend)
        unformed = simulate(system, (0, 2), initial, constants, **options)
        assert unformed.success and system.eom_method is None
        assert unformed.velocity_residual.max() <= 1e-10
        system.form_eoms()
        formed = simulate(system, (0, 2), initial, constants, **options)
        assert np.abs(unformed.y - formed.y).max() <= 1e-8


def test_impacts_and_outputs_equal_formed_equations():
    """A 2-link PinJoint chain swinging into a wall (an Impact at the mass
    centre of its last link, restitution 0.8), with an output (the height
    of that point): unformed and formed runs agree to 1e-8, impact and
    output included."""
    from sympy_loads import Impact
    system, constants, _ = pin_chain(2, seed=1)
    N, O = system.frame, system.fixed_point
    tip = system.bodies[-1].masscenter
    impact = Impact(tip, O.locatenew('W', 0.3 * N.x), -N.x, N,
                    restitution=0.8)
    initial = {**{s: 0.0 for s in system.q}, **{s: 0.0 for s in system.u}}
    initial[system.q[0]] = -0.8
    options = dict(t_eval=np.linspace(0, 1.5, 4), rtol=1e-11, atol=1e-12,
                   impacts=[impact],
                   outputs={'height': tip.pos_from(O).dot(N.y)})
    unformed = simulate(system, (0, 1.5), initial, constants, **options)
    assert unformed.success and len(unformed.impacts) >= 1
    assert system.eom_method is None
    system.form_eoms()
    formed = simulate(system, (0, 1.5), initial, constants, **options)
    assert len(formed.impacts) == len(unformed.impacts)
    assert abs(formed.impacts[0].time - unformed.impacts[0].time) <= 1e-9
    assert np.abs(unformed.y - formed.y).max() <= 1e-8
    assert np.abs(unformed.outputs['height']
                  - formed.outputs['height']).max() <= 1e-8
