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

from _unformed_models import (absolute_chain, closed_chain, pin_chain,
                              sled)

TIME = me.dynamicsymbols._t


def _parts(model):
    """``(system, constants, initial_conditions)`` of an UnformedModel."""
    return model.system, model.constants, model.initial_conditions


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
    lambda: pin_chain(5, seed=0),
    lambda: pin_chain(4, spatial=True, seed=0),
    lambda: absolute_chain(6, seed=1),
    lambda: absolute_chain(5, particles=True, seed=1)],
    ids=['pin-planar', 'pin-spatial', 'absolute-rigid', 'absolute-particle'])
def test_assembled_equations_equal_kanes_method(build):
    """M and F generated for the unformed System equal SymPy's formed
    ones to 1e-12 at random states (relative to their size)."""
    system, constants, _ = _parts(build())
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
    system, constants, initial = _parts(pin_chain(3, seed=0))
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
    (lambda: absolute_chain(20, seed=1), 1e-13, 0.5)],
    ids=['pin8', 'absolute20'])
def test_trajectory_equals_formed_equations(build, rtol, t_end, backend):
    """q and u equal those of SymPy's formed equations integrated by
    SciPy to 1e-8 (the two integrations differ by less than 1e-9 at the
    tolerance and span used)."""
    system, constants, initial = _parts(build())
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
    system, constants, initial = _parts(pin_chain(4, seed=7))
    unformed = simulate(system, (0, 0.5), initial, constants,
                        t_eval=[0.5], rtol=1e-11, atol=1e-12)
    system.form_eoms()
    kane = system.eom_method
    formed = simulate(system, (0, 0.5), initial, constants, t_eval=[0.5],
                      rtol=1e-11, atol=1e-12)
    assert system.eom_method is kane
    assert np.abs(formed.y - unformed.y).max() <= 1e-8


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_closed_chain_equals_formed_equations(backend):
    """A closed 12-link chain (configuration and velocity constraints):
    the unformed System's trajectory equals the formed one's to 1e-8 at
    rtol 1e-11, and both keep the constraint."""
    system, constants, initial = _parts(closed_chain(12))
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
    system, constants, _ = _parts(pin_chain(4, spatial=True, seed=2))
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
    system, constants, initial = _parts(pin_chain(3, seed=4))
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


@pytest.mark.parametrize('slip', [False, True], ids=['no-slip', 'slip'])
def test_velocity_constraint_and_rates_equal_formed_equations(slip):
    """The sled (a velocity constraint; a damper whose force holds the
    coordinates' rates; with ``slip`` a specified input inside the
    constraint, whose rate the acceleration constraint needs): unformed
    and formed trajectories agree to 1e-8 over 2 s at rtol 1e-11, on both
    back ends."""
    for backend in ('compiled', 'numpy'):
        model = sled(slip)
        system, constants, initial = _parts(model)
        specified = model.specified
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
    system, constants, _ = _parts(pin_chain(2, seed=1))
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


# ---------------------------------------------------------------------------
# IFToMM A02, the N-four-bar; longer chains; a rolling disc; joint friction
# and state feedback (issue 38's remaining trajectory checks)

def _a02_start(model, phi0, omega0):
    """Every rod at ``phi0`` from ``N.x`` (the horizontal rods horizontal:
    ``psi_i = -phi0``), the first turning at ``omega0``."""
    start = dict(model.initial_conditions)
    for s in model.system.q:
        start[s] = phi0 if s.name.startswith('theta') else -phi0
    start[model.system.u[0]] = omega0
    return start


def test_n_four_bar_equals_formed_equations():
    """IFToMM A02 with N = 10 (PinJoints closed by LoopJoints: 21
    coordinates, 20 constraints). From the benchmark's start (rods
    vertical, the tip B0 at 1 m/s) over 0.6 s, before every rod reaches
    the ground line at 0.72 s (a singular configuration of the
    mechanism, which the engine passes for N = 2 only), and swinging
    about the hanging position (rods 0.5 rad off it, at rest) over 2 s:
    the unformed System's q and u equal the formed equations' to 1e-8 at
    rtol 1e-11, and every rod's angle follows the exact
    one-degree-of-freedom motion to 1e-8."""
    from _unformed_models import n_four_bar, n_four_bar_reference
    model = n_four_bar(10)
    system, constants = model.system, model.constants
    cases = [(np.pi / 2, -1.0, 0.6), (-np.pi / 2 + 0.5, 0.0, 2.0)]
    options = dict(rtol=1e-11, atol=1e-12)
    unformed_sim = Simulation(system)
    unformed = [unformed_sim.run((0, t_end), _a02_start(model, phi, w),
                                 constants, t_eval=np.linspace(0, t_end, 5),
                                 **options)
                for phi, w, t_end in cases]
    assert system.eom_method is None
    system.form_eoms()
    formed_sim = Simulation(system)
    theta = [list(system.q).index(s) for s in model.extra["theta"]]
    for (phi, w, t_end), a in zip(cases, unformed):
        assert a.success and a.constraint_residual.max() <= 1e-10
        b = formed_sim.run((0, t_end), _a02_start(model, phi, w), constants,
                           t_eval=a.t, **options)
        assert np.abs(a.y - b.y).max() <= 1e-8
        reference = n_four_bar_reference(10, a.t, phi, w)
        assert np.abs(a.q[:, theta] - reference[:, None]).max() <= 1e-8


@pytest.mark.parametrize('n, backend', [(2, 'numpy'), (10, 'compiled')])
def test_n_four_bar_passes_its_singular_positions_unformed(n, backend):
    """IFToMM A02 on the unformed System for the benchmark's 10 s from its
    start, through the horizontal positions where the whole Jacobian of
    the constraints loses rank (the A02 run of tests/test_partitioning.py,
    there N = 2 formed): the tip B0 of the first rod stays within 2e-5 m
    of the exact one-degree-of-freedom motion, the reference A02 publishes
    for N = 40 (its data file is not part of this repository; 4e-8 m at
    N = 10, 3e-6 m at N = 2 measured)."""
    from _unformed_models import n_four_bar, n_four_bar_reference
    model = n_four_bar(n)
    times = np.linspace(0.0, 10.0, 1001)
    result = simulate(model.system, (0.0, 10.0), model.initial_conditions,
                      model.constants, t_eval=times, rtol=1e-10, atol=1e-10,
                      backend=backend)
    assert result.success, result.message
    assert model.system.eom_method is None
    phi = n_four_bar_reference(n, times)
    tip = np.column_stack([np.cos(result.q[:, 0]), np.sin(result.q[:, 0])])
    reference = np.column_stack([np.cos(phi), np.sin(phi)])
    assert np.max(np.linalg.norm(tip - reference, axis=1)) < 2e-5
    assert np.min(np.abs(np.sin(phi))) < 0.05      # it passed them


def test_n_four_bar_linearizes_and_rests_as_its_one_freedom_model():
    """A02 with N = 3, unformed: equilibrium() finds the rods hanging
    (theta_i = -pi/2, the horizontal rods horizontal), and linearize() at
    a swing angle phi gives, in the independent state (theta0, omega0),
    A = [[0, 1], [k sin(phi), 0]] of the exact one-degree-of-freedom
    equation phi'' = -k cos(phi) (k = g ((N + 1)/2 + N)/((N + 1)/3 + N),
    see n_four_bar_reference), to 1e-9; the System stays unformed."""
    from sympy_loads import equilibrium, linearize
    from _unformed_models import n_four_bar
    model = n_four_bar(3)
    system, constants = model.system, model.constants
    guess = {s: (-1.4 if s.name.startswith('theta') else 1.4)
             for s in system.q}
    rest = equilibrium(system, guess, constants)
    for s, value in rest.items():
        expected = -np.pi / 2 if s.name.startswith('theta') else np.pi / 2
        assert abs(value - expected) <= 1e-9
    phi = -np.pi / 2 + 0.3
    point = _a02_start(model, phi, 0.0)
    A = np.asarray(linearize(system, point, constants).A, float)
    k = 9.81 * (4 / 2 + 3) / (4 / 3 + 3)
    assert np.abs(A - [[0, 1], [k * np.sin(phi), 0]]).max() <= 1e-9
    assert system.eom_method is None


def _cumulative(model):
    """The absolute angles and rates of a planar PinJoint chain's links
    (the relative angles summed)."""
    return np.hstack([np.cumsum(model.q, axis=1), np.cumsum(model.u, axis=1)])


def test_ten_link_pin_chain_equals_formed_absolute_chain():
    """A 10-link PinJoint chain (uniform links, released straight at
    0.3 rad), unformed: its links' absolute angles and rates equal those
    of the same chain written with absolute angles, whose formed
    equations (SymPy's mass_matrix_full, forcing_full) SciPy integrates,
    to 1e-8 over 1 s at rtol 1e-11. Compiled back end only: the NumPy
    back end's code for this chain takes some 90 s to generate (see the
    tutorial's limits); the 8-link chain above runs on both."""
    from _unformed_models import absolute_chain
    pins = pin_chain(10)
    t_eval = np.linspace(0, 1, 6)
    result = simulate(pins.system, (0, 1), pins.initial_conditions,
                      pins.constants, t_eval=t_eval, rtol=1e-11,
                      atol=1e-12)
    assert result.success and pins.system.eom_method is None
    chain = absolute_chain(10)
    chain.system.form_eoms()
    reference = _scipy_reference(chain.system, chain.constants,
                                 chain.initial_conditions, 1, t_eval, 1e-11)
    assert np.abs(_cumulative(result) - reference).max() <= 1e-8


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_rolling_disc_with_spring_equals_formed_equations(backend):
    """A disc rolling without slipping (two nonholonomic constraints) tied
    to a fixed point by a spring and a damper whose force holds the
    coordinates' rates: unformed and formed trajectories agree to 1e-8
    over 1.5 s at rtol 1e-11, the unformed one keeps rolling, and
    linearize() gives the formed System's A to 1e-9 (relative) at the
    start, spinning."""
    from _unformed_models import rolling_disc
    model = rolling_disc()
    system = model.system
    options = dict(t_eval=np.linspace(0, 1.5, 4), rtol=1e-11, atol=1e-12,
                   backend=backend)
    unformed = simulate(system, (0, 1.5), model.initial_conditions,
                        model.constants, **options)
    assert unformed.success and system.eom_method is None
    assert unformed.velocity_residual.max() <= 1e-10
    from sympy_loads import linearize
    A = np.asarray(linearize(system, model.initial_conditions,
                             model.constants).A, float)
    system.form_eoms()
    formed = simulate(system, (0, 1.5), model.initial_conditions,
                      model.constants, **options)
    assert np.abs(unformed.y - formed.y).max() <= 1e-8
    A_ref = np.asarray(linearize(system, model.initial_conditions,
                                 model.constants).A, float)
    assert np.abs(A - A_ref).max() <= 1e-9 * np.abs(A_ref).max()


def test_joint_friction_equals_formed_equations():
    """Friction (JointFriction, regularized) in the first two pins of a
    3-link PinJoint chain, resolved from the joint reactions by the
    simulation (joint_friction=): the unformed and the formed System give
    the same trajectory to 1e-8 over 0.5 s at rtol 1e-11."""
    from sympy_loads import JointFriction
    model = pin_chain(3, seed=5)
    system = model.system
    friction = [JointFriction(joint, coefficient=0.3, radius=0.05,
                              regularization=0.1)
                for joint in system.joints[:2]]
    system.add_actuators(*friction)
    options = dict(t_eval=np.linspace(0, 0.5, 5), rtol=1e-11, atol=1e-12,
                   joint_friction=friction)
    unformed = simulate(system, (0, 0.5), model.initial_conditions,
                        model.constants, **options)
    assert unformed.success and system.eom_method is None
    system.form_eoms()
    formed = simulate(system, (0, 0.5), model.initial_conditions,
                      model.constants, **options)
    assert np.abs(unformed.y - formed.y).max() <= 1e-8
    # the friction acted: without it the chain moves otherwise
    free = pin_chain(3, seed=5)
    plain = simulate(free.system, (0, 0.5), free.initial_conditions,
                     free.constants, t_eval=options['t_eval'], rtol=1e-11,
                     atol=1e-12)
    assert np.abs(plain.y - unformed.y).max() > 1e-4


@pytest.mark.parametrize('form', ['callable', 'expression'])
def test_state_feedback_equals_formed_equations(form):
    """A torque T(t) on the first link of a 3-link PinJoint chain given as
    state feedback, a callable f(t, q, u) or an expression of the state:
    the unformed and the formed System give the same trajectory to 1e-8
    over 1 s at rtol 1e-11, and the feedback acted."""
    model = pin_chain(3, seed=6)
    system = model.system
    T = me.dynamicsymbols('T')
    ground, link = system.bodies[0], system.bodies[1]
    system.add_actuators(me.TorqueActuator(T, ground.frame.z, link, ground))
    q1, u1 = system.q[0], system.u[0]
    gains = np.array([4.0, 1.5])
    law = ((lambda t, q, u: -gains[0] * q[0] - gains[1] * u[0])
           if form == 'callable' else -gains[0] * q1 - gains[1] * u1)
    options = dict(t_eval=np.linspace(0, 1, 5), rtol=1e-11, atol=1e-12,
                   specified={T: law}, outputs={'T': T})
    unformed = simulate(system, (0, 1), model.initial_conditions,
                        model.constants, **options)
    assert unformed.success and system.eom_method is None
    expected = -gains[0] * unformed.q[:, 0] - gains[1] * unformed.u[:, 0]
    assert np.abs(unformed.outputs['T'] - expected).max() <= 1e-12
    system.form_eoms()
    formed = simulate(system, (0, 1), model.initial_conditions,
                      model.constants, **options)
    assert np.abs(unformed.y - formed.y).max() <= 1e-8
    zero = simulate(system, (0, 1), model.initial_conditions,
                    model.constants, **{**options, 'specified': {T: 0.0}})
    assert np.abs(zero.y - unformed.y).max() > 1e-3


def test_tests_and_benchmarks_build_the_same_models():
    """One builder for each unformed model: benchmarks/models.py hands out
    those of tests/_unformed_models.py (the chains were written three
    times before, twice in the benchmarks and once here), and its formed
    planar_chain is that module's closed_chain with form_eoms() called."""
    import importlib.util
    import pathlib
    import _unformed_models
    path = pathlib.Path(__file__).parents[1] / 'benchmarks' / 'models.py'
    spec = importlib.util.spec_from_file_location('_bench_models', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ('pin_chain', 'absolute_chain', 'closed_chain',
                 'n_four_bar', 'n_four_bar_reference'):
        assert getattr(module, name) is getattr(_unformed_models, name)
    formed = module.planar_chain(3)
    chain = closed_chain(3)
    assert formed.kane.q == chain.system.q
    assert formed.constants == chain.constants
    assert formed.initial_conditions == chain.initial_conditions
