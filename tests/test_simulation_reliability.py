"""Reliability of :func:`sympy_loads.simulate`: non-finite right-hand sides
stop with a :class:`SimulationError` naming the culprit (never a hang or
NaN samples reported as success), the implicit integrators work on closed
loops (stiff ones included) and agree with DOP853, no integrator crosses a
toggle configuration onto another assembly branch, and bad arguments are
TypeErrors or ValueErrors naming the argument. Every test runs on both
back ends.
"""

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import SimulationError, simulate
from sympy_loads.examples import four_bar, slider_crank

BACKENDS = ['compiled', 'numpy']
ALL_METHODS = ['DOP853', 'RK45', 'Radau', 'BDF', 'LSODA', 'odeint']


@pytest.fixture(scope='module')
def fourbar():
    return four_bar.build_model()


@pytest.fixture(scope='module')
def slidercrank():
    return slider_crank.build_model()


@pytest.fixture(scope='module')
def sqrt_spring(line_particle):
    """A particle with the force -sqrt(x): not finite (NaN) for x < 0."""
    F = me.dynamicsymbols('F')
    m = sm.Symbol('m', positive=True)
    line = line_particle(m, lambda x, v: -sm.sqrt(x) + F)
    return line.kane, line.x, line.v, F, m


# ---------------------------------------------------------------------------
# Non-finite right-hand side

@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('method', ALL_METHODS)
def test_pole_in_the_forces_stops_with_the_equations_named(sqrt_spring,
                                                           method, backend):
    """x starts at 0.1 moving at -1 m/s: x < 0 (NaN force) is reached at
    about t = 0.1; every method stops there and names the equations of
    motion (before: DOP853 and RK45 hung, LSODA and odeint reported
    success with NaN samples)."""
    kane, x, v, F, m = sqrt_spring
    with pytest.raises(SimulationError,
                       match='equations of motion are not finite') as info:
        simulate(kane, (0, 1), {x: 0.1, v: -1.0}, {m: 1.0},
                 specified={F: 0.0}, t_eval=np.linspace(0, 1, 11),
                 method=method, backend=backend)
    assert 'forcing vector' in str(info.value)
    assert 0.05 < info.value.time < 0.2


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('method', ['DOP853', 'LSODA', 'odeint', 'Radau'])
def test_nan_input_is_named(sqrt_spring, method, backend):
    kane, x, v, F, m = sqrt_spring

    def force(t):
        return np.nan if t > 0.3 else 0.0
    with pytest.raises(SimulationError, match=r'specified input F\(t\) is '
                       r'not finite') as info:
        simulate(kane, (0, 1), {x: 1.0, v: 0.0}, {m: 1.0},
                 specified={F: force}, method=method, backend=backend)
    assert info.value.time > 0.3


@pytest.mark.parametrize('backend', BACKENDS)
def test_nan_input_in_a_closed_loop_is_not_blamed_on_the_constraints(
        slidercrank, backend):
    """Before: "the holonomic constraints could not be solved"."""
    model = slidercrank

    def torque(t):
        return np.nan if t > 0.05 else 1.0
    with pytest.raises(SimulationError) as info:
        simulate(model.kane, (0, 0.2), slider_crank.initial_conditions(model),
                 slider_crank.constants_of(model),
                 specified={model.torque: torque}, backend=backend)
    message = str(info.value)
    assert 'specified input' in message and 'not finite' in message
    assert 'holonomic constraints' not in message


# ---------------------------------------------------------------------------
# Implicit methods on closed loops

def _final(model, method, backend, duration=1.0, **overrides):
    result = simulate(model.kane, (0, duration),
                      four_bar.initial_conditions(model),
                      four_bar.constants_of(model, **overrides),
                      t_eval=[duration], method=method, backend=backend,
                      rtol=1e-8, atol=1e-10)
    assert result.success, result.message
    assert result.constraint_residual.max() < 1e-10
    return result.q[-1]


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('method', ['Radau', 'BDF', 'LSODA', 'odeint'])
def test_implicit_methods_agree_with_dop853_on_the_four_bar(fourbar, method,
                                                            backend):
    reference = _final(fourbar, 'DOP853', 'compiled')
    assert np.max(np.abs(_final(fourbar, method, backend) - reference)) \
        < 1e-6


@pytest.mark.parametrize('method', ['Radau', 'BDF', 'LSODA', 'odeint'])
def test_implicit_methods_on_a_stiff_damped_four_bar(fourbar, method):
    """k = 1e6, c = 1e5 (before: Radau failed at t = 0.003); DOP853 needs
    about 50 times more evaluations than these."""
    stiff = dict(k=1e6, c=1e5)
    reference = _final(fourbar, 'DOP853', 'compiled', duration=0.5, **stiff)
    final = _final(fourbar, method, 'compiled', duration=0.5, **stiff)
    assert np.max(np.abs(final - reference)) < 1e-6


@pytest.mark.parametrize('method', ['Radau', 'BDF'])
def test_implicit_methods_on_a_very_stiff_spring(fourbar, method):
    """k = 1e8 (undamped): before, BDF lost the dependent coordinates'
    guesses (q3 = 35409) and stopped; now both run and keep the
    constraints."""
    _final(fourbar, method, 'compiled', duration=0.01, k=1e8)


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('method', ['Radau', 'BDF', 'LSODA'])
def test_implicit_methods_on_the_slider_crank(slidercrank, method, backend):
    model = slidercrank

    def run(method):
        return simulate(
            model.kane, (0, 0.5), slider_crank.initial_conditions(model),
            slider_crank.constants_of(model), t_eval=[0.5],
            specified={model.torque: slider_crank.motor_torque()},
            method=method, backend=backend, rtol=1e-8, atol=1e-10)
    reference, result = run('DOP853'), run(method)
    assert result.success
    # the crank turns 9.2 rad in 0.5 s: BDF's global error at rtol 1e-8
    assert np.allclose(result.q[-1], reference.q[-1], rtol=1e-6, atol=1e-6)


def test_the_jacobian_has_zero_columns_for_the_dependent_guesses(
        fourbar, monkeypatch):
    """The right-hand side does not depend on the dependent coordinates'
    guesses; the implicit methods' Jacobian says so exactly, and its other
    columns match central differences."""
    from sympy_loads import simulation
    captured = {}
    original = simulation.integrate

    def spy(fun, *args, jac=None, **kwargs):
        captured['fun'], captured['jac'] = fun, jac
        return original(fun, *args, jac=jac, **kwargs)
    monkeypatch.setattr(simulation, 'integrate', spy)
    result = simulate(fourbar.kane, (0, 0.01),
                      four_bar.initial_conditions(fourbar),
                      four_bar.constants_of(fourbar), t_eval=[0.0],
                      method='Radau')
    fun, jac = captured['fun'], captured['jac']
    y = np.concatenate([result.q[0], [0.7]])
    J = jac(0.0, y)
    assert np.all(J[:, 1:3] == 0.0)
    assert np.any(J[:, 0] != 0.0) and np.any(J[:, 3] != 0.0)
    for j in (0, 3):
        h = 1e-6
        e = np.zeros(4)
        e[j] = h
        central = (fun(0.0, y + e) - fun(0.0, y - e)) / (2 * h)
        assert np.allclose(J[:, j], central, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# No silent change of assembly branch at a toggle

NON_GRASHOF = dict(la=1.0, lb=1.5, lc=1.2, ln=2.5, k=0.0, c=0.0)


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('method', ALL_METHODS)
def test_every_method_passes_the_cranks_limit_position(fourbar, method,
                                                       backend):
    """A non-Grashof four-bar whose crank reaches its limit at t = 0.2545,
    where the coupler and the rocker line up: the model's dependent block
    (q2, q3) is singular there, but the Jacobian with respect to all three
    angles keeps its rank (the crank's column is independent of the
    other two), so the mechanism is regular and the crank swings back.
    Before, every method stopped there (LSODA and odeint first stepped
    across it onto the other assembly branch); now each changes the
    partition just before and follows the crank back, on the same
    assembly branch and with the energy kept (no spring, no damper)."""
    q1, q2, q3 = fourbar.q
    initial = {q1: np.deg2rad(60), q2: np.deg2rad(-60),
               q3: np.deg2rad(-100), fourbar.u[0]: 3.0}
    result = simulate(fourbar.kane, (0, 2), initial,
                      four_bar.constants_of(fourbar, **NON_GRASHOF),
                      t_eval=np.linspace(0, 2, 201), method=method,
                      backend=backend, outputs={'energy': fourbar.energy})
    assert result.success, result.message
    first = result.partitions[0]
    assert 0.24 < first.time < 0.2545
    assert q1 not in first.coordinates
    # the crank turns back at its limit (u1 changes sign)
    assert np.any(np.diff(np.sign(result.u[:, 0])) != 0)
    energy = result.outputs['energy']
    # (rtol = 1e-8 over several changes of partition)
    assert np.max(np.abs(energy - energy[0])) < 1e-4 * np.max(np.abs(
        energy))
    # one assembly branch: the coupler angle moves continuously
    assert np.max(np.abs(np.diff(result.q[:, 1]))) < 0.5


# ---------------------------------------------------------------------------
# Arguments

@pytest.fixture(scope='module')
def spring(line_particle):
    m, k = sm.symbols('m k', positive=True)
    line = line_particle(m, lambda x, v: -k * x)
    return line.kane, {line.x: 0.1, line.v: 0.0}, {m: 1.0, k: 4.0}


@pytest.mark.parametrize('max_step', [0, -1.0, 0.0])
def test_max_step_must_be_positive(spring, max_step):
    kane, initial, constants = spring
    for method in ('DOP853', 'odeint'):
        with pytest.raises(ValueError, match='max_step must be positive'):
            simulate(kane, (0, 1), initial, constants, max_step=max_step,
                     method=method, t_eval=[0.5, 1.0])


def test_max_step_limits_odeint(spring):
    kane, initial, constants = spring
    free = simulate(kane, (0, 1), initial, constants, method='odeint',
                    t_eval=[1.0])
    limited = simulate(kane, (0, 1), initial, constants, method='odeint',
                       t_eval=[1.0], max_step=1e-3)
    assert limited.nfev > max(1000, 2 * free.nfev)
    assert limited.q[-1, 0] == pytest.approx(0.1 * np.cos(2.0), abs=1e-7)


def test_t_eval_with_nan_is_refused(spring):
    kane, initial, constants = spring
    with pytest.raises(ValueError, match='t_eval must be finite'):
        simulate(kane, (0, 1), initial, constants, t_eval=[0.0, np.nan, 1])


def test_unknown_method_lists_odeint(spring):
    kane, initial, constants = spring
    with pytest.raises(ValueError, match="method must be one of.*'odeint'"):
        simulate(kane, (0, 1), initial, constants, method='Euler')


def test_string_keys_in_initial_conditions(spring):
    kane, _, constants = spring
    with pytest.raises(TypeError, match=r"not strings \['x', 'v'\]"):
        simulate(kane, (0, 1), {'x': 0.1, 'v': 0.0}, constants)


@pytest.mark.parametrize('t_span, name', [
    (('0', '1'), r't_span\[0\]'), ((0, True), r't_span\[1\]'),
    ((0, 1 + 0j), r't_span\[1\]')])
def test_t_span_must_be_real_numbers(spring, t_span, name):
    kane, initial, constants = spring
    with pytest.raises(TypeError, match=name):
        simulate(kane, t_span, initial, constants)


@pytest.mark.parametrize('value', ['4.0', True, 4 + 1j, np.complex128(4)])
def test_constants_must_be_real_numbers(spring, value):
    kane, initial, constants = spring
    k = [s for s in constants if s.name == 'k'][0]
    with pytest.raises(TypeError, match=r'constants\[k\] must be a real'):
        simulate(kane, (0, 1), initial, {**constants, k: value})


def test_complex_arrays_are_refused(spring):
    kane, _, constants = spring
    with pytest.raises(TypeError, match='initial_conditions must be'):
        simulate(kane, (0, 1), np.array([0.1 + 1j, 0.0]), constants)
    with pytest.raises(TypeError, match='t_eval must be an array of real'):
        simulate(kane, (0, 1), [0.1, 0.0], constants,
                 t_eval=np.array([0.5 + 0j, 1.0]))
    with pytest.raises(ValueError, match='t_eval must be finite'):
        simulate(kane, (0, 1), [0.1, 0.0], constants,
                 t_eval=[0.5, np.inf])
