"""The integrators behind simulate(): SciPy's compiled DOP853 (the default
method where the right-hand side calls Python) against ``solve_ivp``'s
DOP853 and an analytic solution, and its failures: an error in the
right-hand side is raised as it is (never a hang), a driver that gives up
is reported with the time reached. Then the DOP853 stepping in compiled
code (the default where the right-hand side is wholly compiled) against
``solve_ivp``'s DOP853, step for step."""

import time

import numpy as np
import pytest
import sympy as sm
from scipy.integrate import solve_ivp

from sympy_loads import SimulationError, simulate
from sympy_loads._simulation.integrators import integrate
from sympy_loads.examples import four_bar

INF = float('inf')


def _oscillator(t, y):
    return np.array([y[1], -y[0]])


@pytest.mark.parametrize('t_span', [(0.0, 10.0), (2.0, -3.0)])
def test_compiled_dop853_matches_the_analytic_solution(t_span):
    """x'' = -x from x = 1, v = 0 at t0: x = cos(t - t0), its own steps,
    forwards and backwards."""
    sol = integrate(_oscillator, t_span, [1.0, 0.0], method='DOP853',
                    t_eval=None, rtol=1e-12, atol=1e-12, max_step=INF)
    assert sol.success and sol.status == 0
    assert sol.t[0] == t_span[0] and sol.t[-1] == t_span[1]
    assert np.all(np.diff(sol.t) * np.sign(t_span[1] - t_span[0]) > 0)
    assert sol.y.shape == (2, len(sol.t))
    tau = sol.t - t_span[0]
    np.testing.assert_allclose(sol.y[0], np.cos(tau), atol=1e-10)
    np.testing.assert_allclose(sol.y[1], -np.sin(tau), atol=1e-10)
    # twelve evaluations per step, and at least one step per pi / 5
    assert sol.nfev >= 12 * (len(sol.t) - 1)


def test_compiled_dop853_respects_max_step():
    free = integrate(_oscillator, (0, 10), [1.0, 0.0], method='DOP853',
                     t_eval=None, rtol=1e-6, atol=1e-8, max_step=INF)
    limited = integrate(_oscillator, (0, 10), [1.0, 0.0], method='DOP853',
                        t_eval=None, rtol=1e-6, atol=1e-8, max_step=0.01)
    assert np.diff(free.t).max() > 0.1
    # E. Hairer's driver stretches the last step by up to 1 % to end at tf
    assert np.diff(limited.t)[:-1].max() <= 0.01 * (1 + 1e-12)
    assert np.diff(limited.t)[-1] <= 0.0101 * (1 + 1e-12)


def test_an_error_in_the_right_hand_side_is_raised_unchanged():
    """SciPy's compiled driver would replace the error by a ValueError of
    its own, or with a step callback keep calling; the original error comes
    out, and quickly."""
    class Stop(Exception):
        pass

    calls = []

    def fun(t, y):
        calls.append(t)
        if t > 0.5:
            raise Stop(f'at {t}')
        return -y

    start = time.perf_counter()
    with pytest.raises(Stop, match='at 0.5'):
        integrate(fun, (0, 1), [1.0], method='DOP853', t_eval=None,
                  rtol=1e-8, atol=1e-10, max_step=INF)
    assert time.perf_counter() - start < 5
    # the calls after the error return NaN without calling fun again
    assert sum(t > 0.5 for t in calls) == 1


def test_a_driver_that_gives_up_reports_the_time():
    """A right-hand side that turns NaN at t = 0.5 (without raising): the
    driver shrinks the step until it gives up there."""
    def fun(t, y):
        return np.full(1, np.nan) if t > 0.5 else -y

    sol = integrate(fun, (0, 1), [1.0], method='DOP853', t_eval=None,
                    rtol=1e-8, atol=1e-10, max_step=INF)
    assert not sol.success and sol.status == -1
    assert 'DOP853 (compiled) stopped at t = 0.5' in sol.message
    assert 'step size became too small' in sol.message
    assert sol.t[-1] == pytest.approx(0.5, abs=1e-6)
    np.testing.assert_allclose(sol.y[0], np.exp(-sol.t), rtol=1e-7)


def test_simulate_without_t_eval_agrees_with_solve_ivp_dop853():
    """The four-bar (one degree of freedom, two holonomic constraints) over
    1 s: the compiled DOP853's samples against solve_ivp's DOP853 asked for
    the same times (its dense output), on both back ends."""
    model = four_bar.build_model()
    kane = model.kane
    ic = four_bar.initial_conditions(model)
    constants = four_bar.constants_of(model)
    for backend in ('compiled', 'numpy'):
        own = simulate(kane, (0, 1), ic, constants, rtol=1e-11, atol=1e-11,
                       backend=backend)
        dense = simulate(kane, (0, 1), ic, constants, rtol=1e-11,
                         atol=1e-11, t_eval=own.t, backend=backend)
        assert own.success and dense.success
        np.testing.assert_allclose(own.q, dense.q, atol=1e-8)
        np.testing.assert_allclose(own.u, dense.u, atol=1e-7)
        assert own.constraint_residual.max() < 1e-10


def test_a_pole_in_the_forces_without_t_eval(line_particle):
    """The force -sqrt(x) is NaN for x < 0, reached at about t = 0.1: the
    compiled DOP853 stops there with the equations named."""
    m = sm.Symbol('m', positive=True)
    line = line_particle(m, lambda x, v: -sm.sqrt(x))
    for backend in ('compiled', 'numpy'):
        with pytest.raises(SimulationError,
                           match='equations of motion are not finite') as e:
            simulate(line.kane, (0, 1), {line.x: 0.1, line.v: -1.0},
                     {m: 1.0}, backend=backend)
        assert 0.05 < e.value.time < 0.2


def test_solve_ivp_dop853_reference():
    """The reference of the tests above is SciPy's own: solve_ivp's DOP853
    and the compiled one agree on the oscillator to the tolerance."""
    compiled = integrate(_oscillator, (0, 10), [1.0, 0.0], method='DOP853',
                         t_eval=None, rtol=1e-10, atol=1e-10, max_step=INF)
    port = solve_ivp(_oscillator, (0, 10), [1.0, 0.0], method='DOP853',
                     rtol=1e-10, atol=1e-10, dense_output=True)
    np.testing.assert_allclose(compiled.y, port.sol(compiled.t), atol=1e-8)


# -- DOP853 stepping in compiled code (simulate()'s default) ---------------

def _duffing(t, y):
    return np.array([y[1], -y[0] - y[0] ** 3 - 0.1 * y[1]])


@pytest.fixture(scope='module')
def duffing(line_particle):
    m = sm.Symbol('m', positive=True)
    return line_particle(m, lambda x, v: -x - x ** 3 - 0.1 * v), m


@pytest.mark.parametrize('t_span', [(0.0, 20.0), (3.0, -17.0)])
def test_compiled_stepping_takes_solve_ivps_steps(duffing, t_span):
    """A damped Duffing oscillator through simulate()'s compiled DOP853
    against solve_ivp's DOP853 on the same equations written by hand: the
    same steps (number, evaluations and times), forwards and backwards in
    time. The times agree to a bound, not to the last digit: the error
    estimate is a difference of nearly equal stage sums (12 of them, of
    size |y|, estimating an error of rtol |y|), so the rounding of the two
    right-hand sides (generated code against NumPy, on any BLAS kernel)
    moves it by up to some 12 eps / rtol relative, and each step size by an
    eighth of that (DOP853's controller takes err**(-1/8)); over the span
    the times can drift by that fraction of its length."""
    line, m = duffing
    ours = simulate(line.kane, t_span, {line.x: 1.0, line.v: 0.5}, {m: 1.0},
                    rtol=1e-9, atol=1e-12)
    scipy = solve_ivp(_duffing, t_span, [1.0, 0.5], method='DOP853',
                      rtol=1e-9, atol=1e-12)
    assert ours.t.size == scipy.t.size > 50
    assert ours.nfev == scipy.nfev
    # the first step, chosen in compiled code as solve_ivp chooses it
    assert ours.t[1] - ours.t[0] == pytest.approx(scipy.t[1] - scipy.t[0],
                                                  rel=1e-12)
    drift = 12 * np.finfo(float).eps / 1e-9 / 8 * abs(t_span[1] - t_span[0])
    np.testing.assert_allclose(ours.t, scipy.t, rtol=0, atol=drift)
    # the states at those times: the global error (1e-7) plus the drift
    # times the largest rate (|x'|, |v'| stay below 3 here)
    np.testing.assert_allclose(ours.q[:, 0], scipy.y[0], rtol=0,
                               atol=1e-7 + 3 * drift)
    np.testing.assert_allclose(ours.u[:, 0], scipy.y[1], rtol=0,
                               atol=1e-7 + 3 * drift)


def test_compiled_stepping_samples_t_eval_on_the_dense_output(duffing):
    """With ``t_eval`` the samples come from DOP853's 7th-order dense
    output, as solve_ivp's (including the extra evaluations it costs)."""
    line, m = duffing
    t_eval = np.linspace(0.0, 20.0, 333)
    ours = simulate(line.kane, (0, 20), {line.x: 1.0, line.v: 0.5},
                    {m: 1.0}, rtol=1e-9, atol=1e-12, t_eval=t_eval)
    scipy = solve_ivp(_duffing, (0, 20), [1.0, 0.5], method='DOP853',
                      rtol=1e-9, atol=1e-12, t_eval=t_eval)
    np.testing.assert_array_equal(ours.t, t_eval)
    assert ours.nfev == scipy.nfev
    np.testing.assert_allclose(ours.q[:, 0], scipy.y[0], atol=1e-11)
    np.testing.assert_allclose(ours.u[:, 0], scipy.y[1], atol=1e-11)


def test_compiled_stepping_over_many_steps(line_particle):
    """30,000 steps (``max_step``): the kernel returns to Python to grow
    its buffer and every 20,000 steps; the samples still follow one
    another and the analytic solution ``x = cos t``."""
    k = sm.Symbol('k', positive=True)
    line = line_particle(1, lambda x, v: -k * x)
    result = simulate(line.kane, (0, 3), {line.x: 1.0, line.v: 0.0},
                      {k: 1.0}, max_step=1e-4)
    assert result.t.size == 30_001
    assert np.all(np.diff(result.t) > 0)
    np.testing.assert_allclose(result.q[:, 0], np.cos(result.t), atol=1e-9)


def test_compiled_stepping_hands_a_failed_evaluation_to_the_numpy_path():
    """A pendulum whose dependent coordinates x, y solve a badly scaled
    constraint pair (the Jacobian's pivot ratio 3e-7, below the compiled
    Newton's hand-over threshold 1e-6 and above the singular one 1e-7):
    every compiled evaluation hands over, so the compiled stepping stops
    at its first step and the diagnosing NumPy path, which copes, lets
    solve_ivp take the run. The result is the NumPy back end's and
    conserves energy."""
    import sympy.physics.mechanics as me
    theta, x, y = me.dynamicsymbols('theta x y')
    w, vx, vy = me.dynamicsymbols('omega v_x v_y')
    L, g, scale = 1.0, 9.81, 3e-7
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, vx * N.x + vy * N.y)
    holonomic = [scale * (x - L * sm.sin(theta)), y + L * sm.cos(theta)]
    t = me.dynamicsymbols._t
    rates = {theta.diff(t): w, x.diff(t): vx, y.diff(t): vy}
    velocity = [c.diff(t).xreplace(rates) for c in holonomic]
    kane = me.KanesMethod(
        N, [theta], [w], kd_eqs=[theta.diff(t) - w, x.diff(t) - vx,
                                 y.diff(t) - vy],
        q_dependent=[x, y], u_dependent=[vx, vy],
        configuration_constraints=holonomic,
        velocity_constraints=velocity)
    kane.kanes_equations([me.Particle('bob', P, 1.0)], [(P, -g * N.y)])
    energy = 0.5 * (vx**2 + vy**2) + g * y
    runs = [simulate(kane, (0, 1.0), {theta: 1.0, x: 0.8, y: -0.5,
                                      w: 0.0}, {}, backend=backend,
                     t_eval=np.linspace(0, 1, 11), rtol=1e-10,
                     atol=1e-12, outputs={'energy': energy})
            for backend in ('compiled', 'numpy')]
    compiled, numpy_run = runs
    assert compiled.success and compiled.backend == 'compiled'
    assert np.max(np.abs(compiled.y - numpy_run.y)) < 1e-9
    assert np.ptp(compiled.outputs['energy']) < 1e-8
    assert np.max(compiled.constraint_residual) < 1e-9


def test_dop853_tableau_is_hairers():
    """The tableau assembled from SciPy's public ``DOP853`` class equals
    the full table of SciPy's coefficient module (where it still exists),
    and its weights are consistent: each stage's ``A`` row sums to its
    node ``C``, and the solution's weights (row 12) sum to 1."""
    from sympy_loads._numeric.dop853 import tableau
    A, C, E3, E5, D = tableau()
    assert A.shape == (16, 16) and C.shape == (16,)
    np.testing.assert_allclose(A.sum(axis=1), C, rtol=0, atol=1e-14)
    assert A[12].sum() == pytest.approx(1.0, abs=1e-14)
    assert np.abs(np.triu(A)).max() == 0.0          # explicit stages
    try:
        from scipy.integrate._ivp import dop853_coefficients as published
    except ImportError:      # pragma: no cover - SciPy reorganised it
        return
    for ours, theirs in zip((A, C, E3, E5, D), (
            published.A, published.C, published.E3, published.E5,
            published.D)):
        np.testing.assert_array_equal(ours, theirs)
