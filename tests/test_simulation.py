"""Tests of sympy_loads.simulation: simulate() against closed-form
solutions, SciPy's solve_ivp on KanesMethod's own right-hand side, the
four-bar's energy and constraints, and the error messages."""

import time

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp

from sympy_loads.examples import four_bar
from sympy_loads.simulation import (SimulationError, SimulationResult,
                                    _numeric_model, simulate)
import sympy_loads._simulation.numeric_model as model_module
from sympy_loads import _numeric

BACKENDS = (['compiled', 'numpy'] if _numeric.compiled_available()
            else ['numpy'])


# --------------------------------------------------------------------------
# models

def spring_mass(specified_force=False):
    """Mass m on a spring k (and optionally a force F(t)) along N.x."""
    x, v = me.dynamicsymbols('x v')
    m, k = sm.symbols('m k', positive=True)
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x*N.x)
    P.set_vel(N, v*N.x)
    force = -k*x*N.x
    F = me.dynamicsymbols('F')
    if specified_force:
        force = force + F*N.x
    kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v])
    kane.kanes_equations([me.Particle('p', P, m)], [(P, force)])
    return kane, (x, v, m, k, F)


def double_pendulum():
    """Planar double pendulum of two particles; u are absolute rates."""
    q1, q2, u1, u2 = me.dynamicsymbols('q1 q2 u1 u2')
    m1, m2, l1, l2, g = sm.symbols('m1 m2 l1 l2 g')
    N, A, B = sm.symbols('N A B', cls=me.ReferenceFrame)
    A.orient_axis(N, q1, N.z)
    B.orient_axis(N, q2, N.z)
    A.set_ang_vel(N, u1*N.z)
    B.set_ang_vel(N, u2*N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P1 = O.locatenew('P1', -l1*A.y)
    P2 = P1.locatenew('P2', -l2*B.y)
    P1.v2pt_theory(O, N, A)
    P2.v2pt_theory(P1, N, B)
    kane = me.KanesMethod(N, [q1, q2], [u1, u2],
                          kd_eqs=[q1.diff() - u1, q2.diff() - u2])
    kane.kanes_equations([me.Particle('p1', P1, m1),
                          me.Particle('p2', P2, m2)],
                         [(P1, -m1*g*N.y), (P2, -m2*g*N.y)])
    constants = {m1: 1.0, m2: 0.7, l1: 1.2, l2: 0.8, g: 9.81}
    return kane, (q1, q2, u1, u2), constants


@pytest.fixture(scope='module')
def fourbar():
    return four_bar.build_model()


# --------------------------------------------------------------------------
# unconstrained models

def test_spring_mass_matches_closed_form():
    kane, (x, v, m, k, _) = spring_mass()
    t = np.linspace(0, 5, 51)
    res = simulate(kane, (0, 5), {x: 0.2, v: 0.5}, {m: 2.0, k: 18.0},
                   t_eval=t, rtol=1e-10, atol=1e-12)
    w = 3.0
    exact_x = 0.2*np.cos(w*t) + 0.5/w*np.sin(w*t)
    exact_v = -0.2*w*np.sin(w*t) + 0.5*np.cos(w*t)
    assert res.success and res.status == 0
    np.testing.assert_allclose(res.q[:, 0], exact_x, atol=1e-9)
    np.testing.assert_allclose(res.u[:, 0], exact_v, atol=1e-9)
    assert res.q.shape == (51, 1) and res.u.shape == (51, 1)
    assert res.q_names == ('x',) and res.u_names == ('v',)
    np.testing.assert_array_equal(res.constraint_residual, 0.0)


def test_unconstrained_model_matches_solve_ivp_on_kanes_rhs():
    kane, (q1, q2, u1, u2), constants = double_pendulum()
    # the reference: SymPy's own full mass matrix and forcing, lambdified
    # without cse, solved with the same SciPy integrator and tolerances
    args = [list(kane.q) + list(kane.u), list(constants)]
    mass = sm.lambdify(args, kane.mass_matrix_full)
    forcing = sm.lambdify(args, kane.forcing_full)
    c = list(constants.values())

    def rhs(t, y):
        return np.linalg.solve(mass(y, c), forcing(y, c)).ravel()

    y0 = [0.5, -0.3, 0.2, 1.0]
    t = np.linspace(0, 4, 81)
    ref = solve_ivp(rhs, (0, 4), y0, method='DOP853', t_eval=t,
                    rtol=1e-10, atol=1e-12)
    res = simulate(kane, (0, 4), dict(zip([q1, q2, u1, u2], y0)),
                   constants, t_eval=t, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res.y, ref.y.T, atol=1e-9)
    # the array form of the initial conditions gives the same trajectory
    res2 = simulate(kane, (0, 4), y0, constants, t_eval=t, rtol=1e-10,
                    atol=1e-12)
    np.testing.assert_array_equal(res2.y, res.y)


def test_system_model_gives_the_kanes_method_trajectory():
    x, v = me.dynamicsymbols('x v')
    m, k = sm.symbols('m k')
    system = me.System.from_newtonian(me.RigidBody('wall'))
    bob = me.Particle('bob', mass=m)
    system.add_joints(me.PrismaticJoint('J', system.bodies[0], bob, x, v))
    system.add_loads((bob.masscenter, -k*x*system.x))
    system.form_eoms()
    t = np.linspace(0, 2, 21)
    res = simulate(system, (0, 2), {x: 0.1, v: 0.0}, {m: 0.5, k: 2.0},
                   t_eval=t, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res.q[:, 0], 0.1*np.cos(2.0*t), atol=1e-9)


def test_specified_input_as_time_function():
    # x'' = -(k/m) x + F0 sin(W t)/m, from rest at x = 0: forced response
    kane, (x, v, m, k, F) = spring_mass(specified_force=True)
    w, W, F0, mass = 2.0, 3.0, 1.5, 0.5
    t = np.linspace(0, 3, 31)
    res = simulate(kane, (0, 3), {x: 0.0, v: 0.0}, {m: mass, k: mass*w**2},
                   t_eval=t, specified={F: lambda t: F0*np.sin(W*t)},
                   rtol=1e-10, atol=1e-12)
    amplitude = F0/mass/(w**2 - W**2)
    exact = amplitude*(np.sin(W*t) - W/w*np.sin(w*t))
    np.testing.assert_allclose(res.q[:, 0], exact, atol=1e-9)
    # a constant input: static deflection F/k is an equilibrium
    res = simulate(kane, (0, 1), {x: 0.25, v: 0.0}, {m: 1.0, k: 4.0},
                   specified={F: 1.0})
    np.testing.assert_allclose(res.q[:, 0], 0.25, atol=1e-12)


def test_outputs_with_accelerations_and_constants():
    kane, (x, v, m, k, _) = spring_mass()
    scale = sm.Symbol('scale')
    t = np.linspace(0, 1, 11)
    res = simulate(kane, (0, 1), {x: 0.1, v: 0.0}, {m: 1.0, k: 4.0,
                                                    scale: 10.0},
                   t_eval=t, rtol=1e-10, atol=1e-12,
                   outputs={'acceleration': v.diff(),
                            'scaled': scale*x.diff(),
                            'both': sm.Matrix([x, v])})
    np.testing.assert_allclose(res.outputs['acceleration'],
                               -4.0*res.q[:, 0], atol=1e-12)
    np.testing.assert_allclose(res.outputs['scaled'], 10*res.u[:, 0],
                               atol=1e-12)
    assert res.outputs['both'].shape == (11, 2)
    np.testing.assert_array_equal(res.outputs['both'], res.y)


def test_numeric_code_is_generated_once(monkeypatch):
    kane, (x, v, m, k, _) = spring_mass()
    first = simulate(kane, (0, 1), {x: 0.1, v: 0.0}, {m: 1.0, k: 1.0},
                     outputs={'e': v**2})
    calls = []
    original = model_module.generate
    monkeypatch.setattr(model_module, 'generate',
                        lambda *a: calls.append(a) or original(*a))
    second = simulate(kane, (0, 1), {x: 0.2, v: 0.0}, {m: 2.0, k: 1.0},
                      outputs={'e': v**2})
    assert calls == []
    assert second.timings['codegen'] == 0.0 < first.timings['codegen']
    assert (_numeric_model(kane, (), first.backend)
            is _numeric_model(kane, (), first.backend))
    assert not np.allclose(first.q[-1], second.q[-1])


# --------------------------------------------------------------------------
# the four-bar (holonomic constraints, dependent coordinates and speeds)

def test_kernel_time_includes_the_first_position_solve(monkeypatch):
    """timings['kernels'] counts the first position solve of a Simulation
    (where numba loads its Newton kernel in a new process), not the
    solves of its later runs."""
    from sympy_loads import Simulation
    from sympy_loads.constraints import HolonomicConstraintSolver
    model = four_bar.build_model()
    original = HolonomicConstraintSolver.solve_positions
    seen = []

    def slow_first_load(self, *args, **kwargs):
        if not seen:                  # a kernel load that takes 0.3 s
            seen.append(self)
            time.sleep(0.3)
        return original(self, *args, **kwargs)
    monkeypatch.setattr(HolonomicConstraintSolver, 'solve_positions',
                        slow_first_load)
    arguments = ((0, 0.01), four_bar.initial_conditions(model),
                 four_bar.constants_of(model))
    simulation = Simulation(model.kane)
    first = simulation.run(*arguments)
    second = simulation.run(*arguments)
    assert first.timings["kernels"] >= 0.3
    assert second.timings["kernels"] < 0.3
    for result in (first, second):
        parts = sum(result.timings[key] for key in
                    ('derivation', 'codegen', 'kernels'))
        assert parts <= result.timings['setup']


def _loop_closure(q, la=0.8, lb=2.0, lc=1.0, ln=2.0):
    """Independent check of the closure: position of P4 minus (ln, 0)."""
    a1, a2, a3 = q[:, 0], q[:, 0] + q[:, 1], q[:, 0] + q[:, 1] + q[:, 2]
    x = la*np.cos(a1) + lb*np.cos(a2) + lc*np.cos(a3) - ln
    y = la*np.sin(a1) + lb*np.sin(a2) + lc*np.sin(a3)
    return np.maximum(np.abs(x), np.abs(y))


def test_four_bar_initial_conditions_are_made_consistent(fourbar):
    q1, q2, q3 = fourbar.q
    u1, u2, u3 = fourbar.u
    constants = four_bar.constants_of(fourbar)
    guesses = {q1: np.deg2rad(10), q2: 0.1, q3: -2.6, u1: 1.5,
               u2: 7.0, u3: -3.0}
    res = simulate(fourbar.kane, (0, 0.01), guesses, constants,
                   t_eval=[0.0, 0.01])
    q0, u0 = res.q[0], res.u[0]
    assert q0[0] == np.deg2rad(10) and u0[0] == 1.5
    assert _loop_closure(res.q)[0] <= 1e-12
    # elbow-up assembly by the law of cosines (P3 above the line P2-P4)
    P2 = 0.8*np.array([np.cos(q0[0]), np.sin(q0[0])])
    d = np.array([2.0, 0.0]) - P2
    angle = np.arctan2(d[1], d[0]) + np.arccos(
        (2.0**2 + d @ d - 1.0**2)/(2*2.0*np.linalg.norm(d)))
    assert abs(q0[0] + q0[1] - angle) <= 1e-10
    # dependent speeds: the velocity of P4 vanishes
    a1, a2, a3 = q0[0], q0[0] + q0[1], q0[0] + q0[1] + q0[2]
    w1, w2, w3 = u0[0], u0[0] + u0[1], u0[0] + u0[1] + u0[2]
    vx = -0.8*np.sin(a1)*w1 - 2*np.sin(a2)*w2 - np.sin(a3)*w3
    vy = 0.8*np.cos(a1)*w1 + 2*np.cos(a2)*w2 + np.cos(a3)*w3
    assert max(abs(vx), abs(vy)) <= 1e-12


def test_conservative_four_bar_keeps_energy_and_constraints(fourbar):
    # spring but no damper: T + V is constant
    constants = four_bar.constants_of(fourbar, c=0.0)
    t = np.linspace(0, 10, 1001)
    res = simulate(fourbar.kane, (0, 10),
                   four_bar.initial_conditions(fourbar), constants,
                   t_eval=t, outputs={'energy': fourbar.energy})
    energy = res.outputs['energy']
    assert res.success
    assert np.max(np.abs(energy/energy[0] - 1)) <= 1e-6
    assert np.max(res.constraint_residual) <= 1e-9
    assert np.max(_loop_closure(res.q)) <= 1e-9
    assert np.max(res.velocity_residual) <= 1e-9
    # it moves: the crank swings through more than 90 degrees
    assert np.ptp(res.q[:, 0]) > np.pi/2


def test_damped_four_bar_energy_decreases_monotonically(fourbar):
    constants = four_bar.constants_of(fourbar, c=0.5)
    t = np.linspace(0, 10, 2001)
    res = simulate(fourbar.kane, (0, 10),
                   four_bar.initial_conditions(fourbar), constants,
                   t_eval=t, outputs={'energy': fourbar.energy,
                                      'damper': fourbar.damper_power})
    energy = res.outputs['energy']
    assert np.all(np.diff(energy) <= 1e-9*energy[0])
    assert energy[-1] < 0.8*energy[0]
    # energy balance: the loss equals the damper's work (trapezoid rule)
    work = np.concatenate([[0.0], np.cumsum(
        np.diff(t)*(res.outputs['damper'][1:] + res.outputs['damper'][:-1])
        / 2)])
    np.testing.assert_allclose(energy - energy[0], work,
                               atol=1e-4*energy[0])
    assert np.max(res.constraint_residual) <= 1e-9


def test_plain_integration_of_the_full_ode_drifts(fourbar):
    """The motivation: integrating mass_matrix_full/forcing_full leaves the
    constraint manifold, simulate() does not."""
    kane = fourbar.kane
    constants = four_bar.constants_of(fourbar, c=0.0)
    res = simulate(kane, (0, 10), four_bar.initial_conditions(fourbar),
                   constants, t_eval=np.linspace(0, 10, 101))
    used = sorted(kane.mass_matrix_full.free_symbols
                  | kane.forcing_full.free_symbols, key=str)
    used = [s for s in used if s != me.dynamicsymbols._t]
    c = [constants[s] for s in used]
    args = [list(kane.q) + list(kane.u), used]
    mass = sm.lambdify(args, kane.mass_matrix_full, cse=True)
    forcing = sm.lambdify(args, kane.forcing_full, cse=True)
    plain = solve_ivp(lambda t, y: np.linalg.solve(mass(y, c), forcing(y, c))
                      .ravel(), (0, 10), res.y[0], method='DOP853',
                      rtol=1e-8, atol=1e-10, t_eval=res.t)
    drift = _loop_closure(plain.y[:3].T)
    assert drift[-1] > 1e-8 > 1e-9 >= np.max(res.constraint_residual)


def test_numpy_constraint_backend_gives_the_same_motion(fourbar):
    constants = four_bar.constants_of(fourbar)
    ic = four_bar.initial_conditions(fourbar)
    t = np.linspace(0, 0.5, 11)
    fast = simulate(fourbar.kane, (0, 0.5), ic, constants, t_eval=t)
    plain = simulate(fourbar.kane, (0, 0.5), ic, constants, t_eval=t,
                     constraint_options={'backend': 'numpy'})
    np.testing.assert_allclose(plain.y, fast.y, atol=1e-10)


# --------------------------------------------------------------------------
# joint friction protocol (issue 8): magnitudes from the accelerations

class _AccelerationDependentFriction:
    """Test double: f = f0 + alpha m udot (a friction whose normal force
    depends on the acceleration), so that f = f0/(1 + alpha) exactly."""

    def __init__(self, symbol, f0, alpha, m):
        self.symbols = (symbol,)
        self.f0, self.alpha, self.m = f0, alpha, m
        self.prepared_with = None

    def prepare(self, model, constants):
        self.prepared_with = (model, dict(constants))
        return lambda q, u, udot, t: np.array(
            [self.f0 + self.alpha*self.m*udot[0]])


@pytest.fixture
def sliding_block(line_particle):
    f = me.dynamicsymbols('f')
    m = sm.Symbol('m')
    line = line_particle(m, lambda x, v: -f)
    return line.kane, line.x, line.v, f, m


@pytest.mark.parametrize('backend', BACKENDS)
def test_joint_friction_fixed_point_gives_the_exact_deceleration(
        backend, sliding_block):
    kane, x, v, f, m = sliding_block
    friction = _AccelerationDependentFriction(f, f0=3.0, alpha=0.5, m=2.0)
    t = np.linspace(0, 1, 11)
    res = simulate(kane, (0, 1), {x: 0.0, v: 5.0}, {m: 2.0}, t_eval=t,
                   joint_friction=[friction], outputs={'f': f},
                   backend=backend)
    a = -3.0/(1 + 0.5)/2.0
    np.testing.assert_allclose(res.q[:, 0], 5.0*t + a*t**2/2, atol=1e-9)
    np.testing.assert_allclose(res.outputs['f'], 2.0, atol=1e-9)
    assert friction.prepared_with[0] is kane
    assert friction.prepared_with[1] == {m: 2.0}


def test_joint_friction_that_does_not_converge_is_an_error(sliding_block):
    kane, x, v, f, m = sliding_block
    # f -> 3 - 1.5 f oscillates with growing amplitude (factor -1.5)
    friction = _AccelerationDependentFriction(f, f0=3.0, alpha=1.5, m=2.0)
    with pytest.raises(SimulationError,
                       match=r'did not converge at t = 0 ') as info:
        simulate(kane, (0, 1), {x: 0.0, v: 5.0}, {m: 2.0},
                 joint_friction=[friction])
    assert info.value.time == 0.0
    # under-relaxation makes the same fixed point converge
    res = simulate(kane, (0, 1), {x: 0.0, v: 5.0}, {m: 2.0},
                   joint_friction=[friction], friction_relaxation=0.5,
                   t_eval=[1.0])
    np.testing.assert_allclose(res.q[0, 0], 5.0 - 3.0/(1 + 1.5)/2.0/2,
                               atol=1e-9)


# --------------------------------------------------------------------------
# errors

def _circle_slider(vanishing=False):
    """A point on a circle of radius L described by x (independent) and y
    (dependent): the model's parametrization fails at x = L (where the
    engine changes it); ``vanishing``: the circle goes at t = 1."""
    x, y, ux, uy = me.dynamicsymbols('x y u_x u_y')
    L, m = sm.symbols('L m')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x*N.x + y*N.y)
    P.set_vel(N, ux*N.x + uy*N.y)
    # vanishing: at t = 1 the circle goes (its squared radius becomes
    # -L**2), and the constraint has no solution any more
    radius2 = (sm.Piecewise((L**2, me.dynamicsymbols._t < 1), (-L**2, True))
               if vanishing else L**2)
    kane = me.KanesMethod(
        N, [x], [ux], kd_eqs=[x.diff() - ux, y.diff() - uy],
        q_dependent=[y], u_dependent=[uy],
        configuration_constraints=[x**2 + y**2 - radius2],
        velocity_constraints=[2*x*ux + 2*y*uy])
    kane.kanes_equations([me.Particle('p', P, m)], [(P, m*N.x)])
    return kane, x, y, ux, L, m


@pytest.mark.parametrize('method, backend', [
    ('DOP853', 'numpy'), ('odeint', 'numpy')] + [
    ('DOP853', b) for b in BACKENDS if b != 'numpy'])
def test_constraint_failure_during_integration_reports_time_and_state(
        method, backend):
    # compiled, the Newton kernel hands the failing configuration over to
    # the constraint solver, which reports it. (Where the circle stays,
    # the point goes round it: at x = L the engine takes x as dependent.)
    kane, x, y, ux, L, m = _circle_slider(vanishing=True)
    with pytest.raises(SimulationError, match=r'(at|near) t = ') as info:
        simulate(kane, (0, 5), {x: 0.0, y: 0.9, ux: 0.5}, {L: 1.0, m: 1.0},
                 constraint_options={'backend': 'numpy'}, method=method,
                 backend=backend)
    error = info.value
    assert 1 <= error.time < 1.1
    assert 'could not be solved' in str(error)
    assert error.q is not None and len(error.q) == 2
    assert f'x = {error.q[0]:.10g}' in str(error)


def test_missing_constants_are_listed_in_one_error():
    kane, (q1, q2, u1, u2), constants = double_pendulum()
    partial = {k: v for k, v in constants.items() if str(k) not in
               ('g', 'l2')}
    with pytest.raises(ValueError, match=r'missing constants: \[g, l2\]'):
        simulate(kane, (0, 1), [0, 0, 0, 0], partial)


def test_missing_initial_conditions_and_inputs_are_listed():
    kane, (x, v, m, k, F) = spring_mass(specified_force=True)
    with pytest.raises(ValueError, match=r'missing specified inputs.*F.*'
                                         r'missing initial conditions: \[v\]'):
        simulate(kane, (0, 1), {x: 0.0}, {m: 1.0, k: 1.0})


@pytest.mark.parametrize('initial, match', [
    ([0.0, 0.0, 0.0], r'shape \(4,\)'),
    ([[0.0, 0.0], [0.0, 0.0]], r'shape \(4,\)'),
])
def test_wrong_shape_of_initial_conditions(initial, match):
    kane, _, constants = double_pendulum()
    with pytest.raises(ValueError, match=match):
        simulate(kane, (0, 1), initial, constants)


@pytest.mark.parametrize('kwargs, error, match', [
    (dict(t_span=(0, 0)), ValueError, 't_span'),
    (dict(t_span=(0,)), ValueError, 't_span'),
    (dict(t_span=('a', 1)), TypeError, r't_span\[0\]'),
    (dict(t_eval=[0.5, 2.0]), ValueError, 't_eval must lie within'),
    (dict(t_eval=[-0.1, 0.5]), ValueError, 't_eval must lie within'),
    (dict(t_eval=[0.5, 0.2]), ValueError, 'monotonic'),
    (dict(t_eval=[0.5, 0.5]), ValueError, 'monotonic'),
    (dict(t_span=(1, 0), t_eval=[0.2, 0.5]), ValueError, 'monotonic'),
    (dict(t_eval=[0.1, np.nan, 0.5]), ValueError, 't_eval must be finite'),
    (dict(t_eval=[0.1, np.inf]), ValueError, 't_eval must be finite'),
    (dict(t_eval=[np.nan]), ValueError, 't_eval must be finite'),
    (dict(t_eval=[[0.1]]), ValueError, 'one-dimensional'),
    (dict(rtol=0.0), ValueError, 'rtol'),
    (dict(initial_conditions={'x': 1}), TypeError, 'not strings'),
    (dict(constants={'m': 1.0}), TypeError, 'not a SymPy Symbol'),
    (dict(constants=[1.0]), TypeError, 'constants must be a mapping'),
    (dict(outputs={'e': 'x'}), TypeError, 'SymPy expression'),
    (dict(specified={sm.Symbol('z'): 1.0}), ValueError,
     'do not appear in the equations'),
])
def test_bad_arguments_name_the_parameter(kwargs, error, match):
    kane, (x, v, m, k, _) = spring_mass()
    call = dict(t_span=(0, 1), initial_conditions={x: 0.1, v: 0.0},
                constants={m: 1.0, k: 1.0})
    call.update(kwargs)
    with pytest.raises(error, match=match):
        simulate(kane, **call)


def test_t_eval_backwards_in_time():
    """A decreasing ``t_eval`` within a backward ``t_span`` is sampled as
    given: the spring-mass's exact solution from x(1) = 0.1, v(1) = 0."""
    kane, (x, v, m, k, _) = spring_mass()
    t_eval = [1.0, 0.6, 0.25, 0.0]
    result = simulate(kane, (1, 0), {x: 0.1, v: 0.0}, {m: 1.0, k: 4.0},
                      t_eval=t_eval, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(result.t, t_eval)
    np.testing.assert_allclose(result.q[:, 0],
                               0.1 * np.cos(2.0 * (result.t - 1.0)),
                               atol=1e-9)


def test_model_must_be_kanes_method_or_system_with_coordinates():
    with pytest.raises(TypeError, match='KanesMethod or a System'):
        simulate('model', (0, 1), {}, {})
    # an unformed System is assembled (issue 38), but it needs coordinates
    system = me.System.from_newtonian(me.RigidBody('wall'))
    with pytest.raises(ValueError, match='no generalized coordinates'):
        simulate(system, (0, 1), {}, {})


def test_result_is_a_typed_immutable_object():
    kane, (x, v, m, k, _) = spring_mass()
    res = simulate(kane, (0, 1), {x: 0.1, v: 0.0}, {m: 1.0, k: 1.0})
    assert isinstance(res, SimulationResult)
    assert res.nfev > 0 and res.message
    assert res.constants == ((k, 1.0), (m, 1.0))
    assert 'success=True' in repr(res)
    with pytest.raises(AttributeError):
        res.success = False


def test_compiled_backend_gives_the_numpy_trajectory():
    pytest.importorskip('numba')
    pytest.importorskip('symengine')
    kane, x, y, ux, L, m = _circle_slider()
    call = dict(t_span=(0, 0.5), initial_conditions={x: 0.0, y: 0.9,
                                                     ux: 0.3},
                constants={L: 1.0, m: 1.0}, t_eval=np.linspace(0, 0.5, 6),
                constraint_options={'backend': 'numpy'})
    plain = simulate(kane, backend='numpy', **call)
    fast = simulate(kane, backend='compiled', **call)
    assert (plain.backend, fast.backend) == ('numpy', 'compiled')
    np.testing.assert_allclose(fast.y, plain.y, atol=1e-12)
    # 'numba' is an alias of 'compiled'
    np.testing.assert_array_equal(simulate(kane, backend='numba',
                                           **call).y, fast.y)
    # work-energy: the constraint force is normal to the path, so the
    # kinetic energy gained equals the work of the 1 N force along x
    speed2 = fast.u[:, 0]**2 + fast.u[:, 1]**2
    np.testing.assert_allclose(speed2/2 - 0.3**2/2, fast.q[:, 0], atol=1e-8)
    assert np.max(fast.constraint_residual) <= 1e-12
    with pytest.raises(ValueError, match='backend'):
        simulate(kane, backend='fortran', **call)


def test_odeint_method_gives_the_solve_ivp_trajectory(fourbar):
    # method='odeint' (LSODA, Fortran stepping loop) against the default
    # DOP853 through solve_ivp, both far tighter than the comparison
    ic = four_bar.initial_conditions(fourbar)
    constants = four_bar.constants_of(fourbar)
    t = np.linspace(0.5, 3, 26)     # t_eval need not start at t_span[0]
    call = dict(t_eval=t, rtol=1e-10, atol=1e-12)
    reference = simulate(fourbar.kane, (0, 3), ic, constants, **call)
    res = simulate(fourbar.kane, (0, 3), ic, constants, method='odeint',
                   **call)
    assert res.success and 'odeint' in res.message
    np.testing.assert_array_equal(res.t, t)
    np.testing.assert_allclose(res.q, reference.q, atol=1e-7)
    np.testing.assert_allclose(res.u, reference.u, atol=1e-7)
    assert np.max(res.constraint_residual) <= 1e-9
    assert res.nfev > 0
    # without t_eval: the integrator's own steps, ending at t_span[1]
    steps = simulate(fourbar.kane, (0, 1), ic, constants, method='odeint')
    assert steps.success and steps.t[0] == 0 and steps.t[-1] == 1
    assert np.all(np.diff(steps.t) > 0)
    assert np.max(steps.constraint_residual) <= 1e-9


@pytest.mark.filterwarnings('ignore:overflow:RuntimeWarning')
def test_blow_up_stops_with_the_state_named(line_particle):
    # x'' = x**2 with x(0) = 1, x'(0) = 2/sqrt(6): x = 6/(t - sqrt(6))**2
    # blows up at t = sqrt(6) < 3; odeint used to return the samples
    # reached with success=False, it now stops as every method does where
    # the equations of motion overflow, naming the time and the state
    line = line_particle(1, lambda x, v: x**2)
    kane, x, v = line.kane, line.x, line.v
    blow_up = np.sqrt(6.0)
    t = np.linspace(0, 3, 31)
    with pytest.raises(SimulationError, match='not finite') as info:
        simulate(kane, (0, 3), {x: 1.0, v: 2/blow_up}, {}, t_eval=t,
                 method='odeint', max_step=0.05)
    assert info.value.time == pytest.approx(blow_up, abs=1e-3)
    assert 'x = ' in str(info.value)
    # DOP853 gives up before overflowing: a failed result with the
    # (finite, exact) samples reached
    res = simulate(kane, (0, 3), {x: 1.0, v: 2/blow_up}, {}, t_eval=t,
                   method='DOP853', max_step=0.05)
    assert not res.success and res.t[-1] < blow_up < res.t[-1] + 0.1
    np.testing.assert_allclose(res.q[:, 0], 6/(res.t - blow_up)**2,
                               rtol=1e-5)


def test_compiled_backend_with_specified_inputs():
    pytest.importorskip('numba')
    pytest.importorskip('symengine')
    kane, (x, v, m, k, F) = spring_mass(specified_force=True)
    call = dict(t_span=(0, 3), initial_conditions={x: 0.0, v: 0.0},
                constants={m: 0.5, k: 2.0}, t_eval=np.linspace(0, 3, 31),
                specified={F: lambda t: 1.5*np.sin(3.0*t)}, rtol=1e-10,
                atol=1e-12)
    plain = simulate(kane, backend='numpy', **call)
    fast = simulate(kane, backend='compiled', **call)
    np.testing.assert_allclose(fast.y, plain.y, atol=1e-11)


def test_simulate_counts_its_set_up_once():
    """simulate() (a Simulation made and run at once) reports a set-up
    that, with the integration, fits in the wall time of the call: the
    Simulation's own preparation was counted twice before (the set-up of
    the four-bar's first use came out at twice its time)."""
    from sympy_loads import simulate
    model = four_bar.build_model()          # a new model: derived anew
    start = time.perf_counter()
    result = simulate(model.kane, (0, 0.01), four_bar.initial_conditions(
        model), four_bar.constants_of(model))
    wall = time.perf_counter() - start
    assert result.timings['derivation'] > 0
    assert (result.timings['setup'] + result.timings['integration']
            <= wall + 1e-3)
