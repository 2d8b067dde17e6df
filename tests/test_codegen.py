"""Tests of code generation (sympy_loads._numeric.codegen) against the
names users give their symbols: a constant named ``x1`` (SymEngine's name
for its first common subexpression), ``sin`` (a NumPy function), ``_q0``
(the model's own internal name) or ``lambda`` must give the same
trajectory as any other name, on both back ends; a compiled function that
does not evaluate to its expressions is caught when it is generated and
replaced by NumPy code with a warning; and simulate() never reports
success with samples off the constraints."""

import functools
import warnings

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sympy_loads import (HolonomicConstraintSolver, SimulationError,
                         simulate)
from sympy_loads import _numeric
from sympy_loads._numeric.codegen import (GeneratedFunction,
                                          MiscompiledError)
from sympy_loads._utils import _lambdify

COMPILED = _numeric.compiled_available()
needs_compiled = pytest.mark.skipif(not COMPILED,
                                    reason='needs symengine and numba')

# Moore's four-bar, Learn Multibody Dynamics, "Equations of Motion with
# Holonomic Constraints": la = 0.8, lb = 2, lc = 1, ln = 2, m = 1, g = 9.81
FOUR_BAR = {'la': 0.8, 'lb': 2.0, 'lc': 1.0, 'ln': 2.0, 'g': 9.81}


def four_bar(mass_name):
    """Moore's four-bar (two particles, gravity, crank ``q1`` independent)
    whose mass constant is named ``mass_name``: ``(kane, initial
    conditions, constants)``."""
    q1, q2, q3 = me.dynamicsymbols('q1, q2, q3')
    u1, u2, u3 = me.dynamicsymbols('u1, u2, u3')
    la, lb, lc, ln, g = sm.symbols('l_a, l_b, l_c, l_n, g')
    m = sm.Symbol(mass_name)
    t = me.dynamicsymbols._t
    N, A, B, C = sm.symbols('N A B C', cls=me.ReferenceFrame)
    A.orient_axis(N, q1, N.z)
    B.orient_axis(A, q2, A.z)
    C.orient_axis(B, q3, B.z)
    A.set_ang_vel(N, u1 * N.z)
    B.set_ang_vel(A, u2 * A.z)
    C.set_ang_vel(B, u3 * B.z)
    P1 = me.Point('P1')
    P2 = P1.locatenew('P2', la * A.x)
    P3 = P2.locatenew('P3', lb * B.x)
    P4 = P3.locatenew('P4', lc * C.x)
    P1.set_vel(N, 0)
    P2.v2pt_theory(P1, N, A)
    P3.v2pt_theory(P2, N, B)
    loop = P4.pos_from(P1) - ln * N.x
    fh = sm.Matrix([loop.dot(N.x), loop.dot(N.y)])
    qdot = {q1.diff(t): u1, q2.diff(t): u2, q3.diff(t): u3}
    kane = me.KanesMethod(
        N, [q1], [u1], kd_eqs=[q1.diff(t) - u1, q2.diff(t) - u2,
                               q3.diff(t) - u3],
        q_dependent=[q2, q3], u_dependent=[u2, u3],
        configuration_constraints=fh,
        velocity_constraints=fh.diff(t).xreplace(qdot))
    kane.kanes_equations(
        [me.Particle('pa', P2, m), me.Particle('pb', P3, m)],
        [(P2, -m * g * N.y), (P3, -m * g * N.y)])
    constants = {la: 0.8, lb: 2.0, lc: 1.0, ln: 2.0, g: 9.81, m: 1.0}
    initial = {q1: np.deg2rad(10.0), q2: np.deg2rad(5.0),
               q3: np.deg2rad(-100.0), u1: 0.0, u2: 0.0, u3: 0.0}
    return kane, initial, constants


# DOP853 at rtol = atol = 1e-10 over 3 s: two correct evaluations of the
# same equations (another order of operations) stay within a few hundred
# times the tolerance of each other; the miscompile this guards against
# put the crank 1.4 rad off.
RUN = dict(rtol=1e-10, atol=1e-10)
AGREE = 1e-7
T_EVAL = np.linspace(0.0, 3.0, 31)


@pytest.fixture(scope='module')
def four_bar_reference():
    kane, initial, constants = four_bar('m')
    return simulate(kane, (0.0, 3.0), initial, constants, t_eval=T_EVAL,
                    backend='numpy', **RUN)


def test_symengine_still_reuses_the_name_of_an_unused_argument():
    """SymEngine 0.15's LLVM and lambda back ends with cse=True name their
    temporaries x0, x1, ... and confuse them with arguments of the same
    name that the outputs do not use. If this test fails, SymEngine has
    changed: the renaming in GeneratedFunction stays (it costs nothing),
    but this record of the defect should be updated."""
    se = pytest.importorskip('symengine')
    x = [se.Symbol(f'x{i}') for i in range(9)]
    exprs = [-x[7] * se.sin(x[0]), -x[7] * se.sin(x[0]),
             -x[7] * se.sin(x[1])]
    values = np.r_[np.linspace(-1, 1, 6), 1.0, 1.0, 9.81]
    expected = [np.sin(1.0), np.sin(1.0), -np.sin(-0.6)]
    raw = se.Lambdify(x, exprs, backend='llvm', cse=True)(values)
    assert not np.allclose(raw, expected), (
        'SymEngine no longer confuses its temporaries with unused '
        'arguments named x0, x1, ...')
    # the same expressions through our code generation are right
    function = GeneratedFunction(x, exprs, 'llvm')
    np.testing.assert_allclose(function(values), expected, rtol=1e-15)
    function = GeneratedFunction(x, exprs, 'numpy')
    np.testing.assert_allclose(function(values), expected, rtol=1e-15)


@pytest.mark.parametrize('backend', ['numpy', 'llvm'])
def test_inputs_named_like_numpy_functions_and_temporaries(backend):
    """Arguments named ``sin``, ``pi``, ``x0`` (unused), ``_in1`` (the
    placeholder of another position) and ``lambda`` keep their meaning."""
    if backend == 'llvm' and not COMPILED:
        pytest.skip('needs symengine')
    sin, pi, x0, in1, lam = sm.symbols('sin pi x0 _in1 lambda')
    a = sm.Symbol('a')
    inputs = [in1, sin, x0, pi, lam, a]
    outputs = [sm.sin(sin) * pi + in1, sm.cos(lam) * a, pi ** 2]
    function = GeneratedFunction(inputs, outputs, backend)
    values = np.array([0.25, 0.5, 7.0, 2.0, 0.75, 3.0])
    expected = [np.sin(0.5) * 2.0 + 0.25, np.cos(0.75) * 3.0, 4.0]
    np.testing.assert_allclose(function(values), expected, rtol=1e-15)
    np.testing.assert_allclose(function(values[None, :])[0], expected,
                               rtol=1e-15)


def test_an_output_symbol_outside_the_inputs_is_an_error():
    a, b = sm.symbols('a b')
    with pytest.raises(ValueError, match=r"contain \['b'\], which are not "
                                         r'among the inputs'):
        GeneratedFunction([a], [a + b], 'numpy', 'f')


def test_lambdify_helper_renames_nested_arguments():
    """``_utils._lambdify`` (joint friction's NumPy code) with nested
    arguments named like NumPy functions and temporaries."""
    cos, x0, x1 = sm.symbols('cos x0 x1')
    q = sm.Dummy('q')
    f = _lambdify([[q, cos], x0, [x1]], sm.Matrix([sm.cos(q) * cos, x1]))
    value = np.asarray(f([0.3, 2.0], 5.0, [4.0]), dtype=float).ravel()
    np.testing.assert_allclose(value, [np.cos(0.3) * 2.0, 4.0], rtol=1e-15)


@pytest.mark.parametrize('mass_name', ['m'] + [f'x{i}' for i in range(10)])
def test_four_bar_with_any_mass_name(mass_name, four_bar_reference):
    """The issue's reproduction: Moore's four-bar with the mass named
    ``x0`` ... ``x9`` gives the trajectory of the mass named ``m`` on both
    back ends, on the constraints."""
    for backend in (['compiled'] if COMPILED else []) + ['numpy']:
        kane, initial, constants = four_bar(mass_name)
        result = simulate(kane, (0.0, 3.0), initial, constants,
                          t_eval=T_EVAL, backend=backend, **RUN)
        assert result.success and result.backend == backend
        np.testing.assert_allclose(result.q, four_bar_reference.q,
                                   rtol=0, atol=AGREE)
        np.testing.assert_allclose(result.u, four_bar_reference.u,
                                   rtol=0, atol=AGREE * 10)
        assert result.constraint_residual.max() <= 1e-12


def test_time_is_no_constant():
    """A constant named ``t`` would be the time itself: refused."""
    kane, constants, specified, outputs, initial = circle_pendulum(
        'm', 'g', 'k', 'r', 'F', 't')
    with pytest.raises(ValueError, match=r'constants: t is the time of the '
                                         r'equations of motion'):
        simulate(kane, (0.0, 1.0), initial, constants, specified=specified,
                 outputs=outputs)


# Names that broke, or could break, code generation: SymEngine's and
# SymPy's temporaries, the internal names of the model, the solver and
# the generated functions, NumPy and SymPy names, and a Python keyword.
TRICKY = ['x0', 'x1', 'x2', 'x9', '_t', '_q0', '_u0', '_s0', '_p0', '_ud0',
          '_e0', '_in0', '_in1', '_a0', '__q0', 'sin', 'cos', 'pi', 'E',
          'I', 'N', 'S', 'lambda', 'numpy', 'sqrt', 'exp', 'gamma', 'beta',
          'Dummy', 'k']
names = st.one_of(st.sampled_from(TRICKY),
                  st.from_regex(r'\A(x[0-9]|_{1,2}[a-z]{1,2}[0-9]?)\Z'))


def circle_pendulum(mass, gravity, stiffness, radius, force, extra):
    """A particle on a circle of radius ``radius`` (x independent, y
    dependent), gravity along -y, a spring of ``stiffness`` to the origin
    of x and a specified force ``force(t)`` along x; all parameter names
    given. Returns ``(kane, constants, specified, outputs, initial)``."""
    x, y, ux, uy = me.dynamicsymbols('x y u_x u_y')
    m, g, k, r, c = sm.symbols([mass, gravity, stiffness, radius, extra])
    F = me.dynamicsymbols(force)
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    kane = me.KanesMethod(
        N, [x], [ux], kd_eqs=[x.diff() - ux, y.diff() - uy],
        q_dependent=[y], u_dependent=[uy],
        configuration_constraints=[x ** 2 + y ** 2 - r ** 2],
        velocity_constraints=[x * ux + y * uy])
    kane.kanes_equations([me.Particle('p', P, m)],
                         [(P, (-k * x + F) * N.x - m * g * N.y)])
    constants = {m: 1.5, g: 9.81, k: 4.0, r: 1.0, c: 0.5}
    outputs = {'energy': m * (ux ** 2 + uy ** 2) / 2 + m * g * y
               + k * x ** 2 / 2,
               'scaled': c * x + ux.diff()}
    initial = {x: 0.4, y: -0.9, ux: 0.0}
    return kane, constants, {F: 0.25}, outputs, initial


def _both_back_ends(labels):
    """The runs of :func:`circle_pendulum` with the parameter names
    ``labels`` on the compiled and the NumPy back ends."""
    mass, gravity, stiffness, radius, force, extra = labels
    runs = []
    for backend in ('compiled', 'numpy'):
        kane, constants, specified, outputs, initial = circle_pendulum(
            mass, gravity, stiffness, radius, force, extra)
        with warnings.catch_warnings():
            warnings.simplefilter('error', RuntimeWarning)
            result = simulate(kane, (0.0, 1.0), initial, constants,
                              specified=specified, outputs=outputs,
                              t_eval=np.linspace(0, 1, 11),
                              backend=backend, **RUN)
        assert result.success and result.backend == backend
        runs.append(result)
    return runs


@functools.lru_cache(maxsize=None)
def _reference_runs():
    """:func:`_both_back_ends` with the plain names, run once for all the
    drawn examples (they are the same every time)."""
    return _both_back_ends(['m', 'g', 'k', 'r', 'F', 'c'])


@needs_compiled
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(names, min_size=6, max_size=6, unique=True))
def test_any_names_give_the_same_results_on_both_back_ends(chosen):
    """Constants, a specified input and an output constant under drawn
    names: the compiled and NumPy back ends agree, and with the reference
    names too."""
    runs = _both_back_ends(chosen) + _reference_runs()
    reference = runs[-1]
    for result in runs[:-1]:
        np.testing.assert_allclose(result.q, reference.q, rtol=0,
                                   atol=AGREE)
        np.testing.assert_allclose(result.u, reference.u, rtol=0,
                                   atol=AGREE * 10)
        for name in ('energy', 'scaled'):
            np.testing.assert_allclose(result.outputs[name],
                                       reference.outputs[name], rtol=0,
                                       atol=AGREE * 100)
    # the forced, undamped motion keeps its energy balance: the force F is
    # constant, so energy - F x is conserved
    energy = reference.outputs['energy'] - 0.25 * reference.q[:, 0]
    assert np.ptp(energy) < 1e-8


def _corrupt(monkeypatch, names, change=lambda e: 2 * e + 1):
    """Make SymEngine compile, for the functions called ``names``, the
    expressions with their first output changed by ``change`` (their
    ``outputs`` stay the true ones): a stand-in for a miscompile."""
    placeholders = GeneratedFunction._placeholders

    def corrupted(self, module, extra=()):
        inputs, outputs = placeholders(self, module, extra)
        if self.name in names and module is not sm and outputs:
            outputs = [change(outputs[0])] + list(outputs[1:])
        return inputs, outputs
    monkeypatch.setattr(GeneratedFunction, '_placeholders', corrupted)


@needs_compiled
def test_a_miscompiled_function_is_caught():
    a, b = sm.symbols('a b')
    function = GeneratedFunction([a, b], [a * b, a - b], 'llvm', 'f')
    function.verify()                       # the true code passes
    function._lambdify = GeneratedFunction([a, b], [a * b, a + b],
                                           'llvm')._lambdify
    with pytest.raises(MiscompiledError, match=r'f: .* output 1 at a test '
                                               r'input .*miscompile'):
        function.verify()


@needs_compiled
def test_simulate_falls_back_to_numpy_when_the_model_is_miscompiled(
        monkeypatch, four_bar_reference):
    _corrupt(monkeypatch, {'hol'})
    kane, initial, constants = four_bar('m')
    with pytest.warns(RuntimeWarning, match=r'hol: .*miscompile.*NumPy'):
        result = simulate(kane, (0.0, 3.0), initial, constants,
                          t_eval=T_EVAL, backend='compiled', **RUN)
    assert result.success and result.backend == 'numpy'
    np.testing.assert_allclose(result.q, four_bar_reference.q, rtol=0,
                               atol=AGREE)


@needs_compiled
def test_the_solver_falls_back_to_numpy_when_miscompiled(monkeypatch):
    _corrupt(monkeypatch, {'resjac'})
    x, y, r = sm.symbols('x y r')
    with pytest.warns(RuntimeWarning, match=r'resjac: .*miscompile'):
        solver = HolonomicConstraintSolver(
            [x ** 2 + y ** 2 - r ** 2], [x, y], [y], constants={r: 5.0},
            backend='compiled')
    assert solver.backend == 'numpy'
    np.testing.assert_allclose(solver.solve_positions([3.0, 1.0]),
                               [3.0, 4.0], rtol=1e-12)


@needs_compiled
def test_outputs_fall_back_to_numpy_when_miscompiled(monkeypatch):
    kane, constants, specified, outputs, initial = circle_pendulum(
        'm', 'g', 'k', 'r', 'F', 'c')
    reference = simulate(kane, (0.0, 1.0), initial, constants,
                         specified=specified, outputs=outputs,
                         t_eval=np.linspace(0, 1, 11), **RUN)
    _corrupt(monkeypatch, {'outputs'})
    kane, constants, specified, outputs, initial = circle_pendulum(
        'm', 'g', 'k', 'r', 'F', 'c')
    with pytest.warns(RuntimeWarning, match=r'outputs: .*miscompile'):
        result = simulate(kane, (0.0, 1.0), initial, constants,
                          specified=specified, outputs=outputs,
                          t_eval=np.linspace(0, 1, 11), **RUN)
    assert result.backend == 'compiled'       # the model's own code is right
    np.testing.assert_allclose(result.outputs['energy'],
                               reference.outputs['energy'], rtol=1e-12)


@needs_compiled
def test_no_success_with_samples_off_the_constraints(monkeypatch):
    """With the check of compiled code switched off, a miscompiled
    constraint function (the model's, shifted by 1 mm: Newton-Raphson
    converges on it; the solver's own is right) makes simulate() raise,
    naming the violation, instead of returning success=True."""
    monkeypatch.setattr(GeneratedFunction, 'verify', lambda self: None)
    _corrupt(monkeypatch, {'hol'}, lambda e: e + 1e-3)
    kane, initial, constants = four_bar('m')
    with pytest.raises(SimulationError,
                       match=r'violates the holonomic constraints by .*'
                             r'more than the Newton-Raphson tolerance'):
        simulate(kane, (0.0, 3.0), initial, constants, t_eval=T_EVAL,
                 backend='compiled', **RUN)



# -- round-off in a fractional power is not a miscompile (issue 35, item 7) --

def _roundoff_case():
    """``(inputs, output)``: (|a - b| - (a - b))**(3/2) with a > b at the
    check's test input: exactly 0 there, but zero only up to round-off
    once |a - b| and a - b are computed in different orders."""
    from sympy_loads._numeric.codegen import CHECK_SEED
    a, b = sm.symbols('a b', real=True)
    x = np.random.default_rng(CHECK_SEED).uniform(0.5, 1.5, 2)
    if x[0] < x[1]:
        a, b = b, a
    h = a - b
    return [*sm.symbols('a b', real=True)], (sm.Abs(h) - h)**sm.Rational(3, 2)


@needs_compiled
def test_check_calls_roundoff_nan_round_off_not_a_miscompile():
    """Compiled code that gives NaN for (|h| - h)**(3/2) at a point where
    the base is zero up to round-off (stubbed: another order of
    evaluation) is not a miscompile: a RuntimeWarning says round-off and
    names the power; NaN for an output without such a power is a
    miscompile (MiscompiledError saying so)."""
    import math

    class NaNFirst(GeneratedFunction):
        def __call__(self, x):
            out = super().__call__(x).copy()
            out[0] = math.nan
            return out

    inputs, power = _roundoff_case()
    with pytest.warns(RuntimeWarning, match='round-off, not a miscompile'):
        NaNFirst(inputs, [power, inputs[0]], 'llvm', 'f')
    with pytest.raises(MiscompiledError, match='a miscompile'):
        NaNFirst(inputs, [inputs[0] + inputs[1]], 'llvm', 'g')


@pytest.mark.parametrize('backend', ['llvm', 'numpy'])
def test_explain_nonfinite_names_round_off_and_negative_bases(backend):
    """explain_nonfinite: (x - y)**(3/2) at x = 0.1 + 0.2, y = 0.3 (base
    5.6e-17 of terms 0.6: round-off), at x = 0, y = 1 (negative), and
    nothing for 1/(x - y)."""
    if backend == 'llvm' and not COMPILED:
        pytest.skip('needs symengine and numba')
    from sympy_loads._numeric.codegen import generate
    x, y = sm.symbols('x y', real=True)
    f = generate([x, y], [(x - y)**sm.Rational(3, 2), 1 / (x - y)],
                 backend, 'f')
    causes = f.explain_nonfinite([0.1 + 0.2, 0.3], [0])
    assert [c[0] for c in causes] == ['round-off']
    assert 'zero up to round-off' in causes[0][1]
    causes = f.explain_nonfinite([0.0, 1.0], [0], names={'x': 'z(t)'})
    assert causes[0][0] == 'negative' and 'z(t)' in causes[0][1]
    assert f.explain_nonfinite([0.3, 0.3], [1]) == []


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_nonfinite_equations_say_round_off(line_particle, backend):
    """m x'' = -(x^2 - w)^(3/2) at x = 0.3 with w one unit in the last
    place above 0.3 * 0.3: the base is negative by less than round-off, in
    any order of evaluation, and the power NaN. simulate() says so
    (round-off, the power, the remedy) instead of asking about a pole; at
    x = 0.2 the base is really negative, and the message says that."""
    if backend == 'compiled' and not COMPILED:
        pytest.skip('needs symengine and numba')
    w = sm.Symbol('w')
    s = line_particle(1, lambda x, v: -(x**2 - w)**sm.Rational(3, 2))
    w_value = float(np.nextafter(0.3 * 0.3, 1.0))
    with pytest.raises(SimulationError, match=r'round-off: the base of .*'
                       r'x\(t\).*zero up to round-off.*Max\(0'):
        simulate(s.kane, (0, 0.1), {s.x: 0.3, s.v: 0.0}, {w: w_value},
                 backend=backend)
    with pytest.raises(SimulationError, match='negative: the base of'):
        simulate(s.kane, (0, 0.1), {s.x: 0.2, s.v: 0.0}, {w: w_value},
                 backend=backend)


@needs_compiled
def test_explain_nonfinite_walks_a_shared_graph_once():
    """x_{k+1} = x_k**2 + 1/x_k for 60 levels shares x_k twice per level,
    as the assembled equations of an unformed System share their
    subexpressions: walked path by path (SymEngine's ``atoms``) it has
    2**60 paths (about 60 s already at 24 levels); walked once per
    distinct node it is small. explain_nonfinite of x_60 + sqrt(y) at
    y = -1 names the negative base of sqrt(y), and nothing for the
    integer powers of the chain, whose values overflow there."""
    import symengine as se
    from sympy_loads._numeric.codegen import generate
    x, y = se.symbols('x y')
    chain = x
    for _ in range(60):
        chain = chain * chain + 1 / chain
    f = generate([x, y], [chain + se.sqrt(y), chain], 'llvm', 'f')
    with np.errstate(all='ignore'):
        assert not np.isfinite(f([2.0, -1.0])).any()
    causes = f.explain_nonfinite([2.0, -1.0], [0, 1], names={'y': 'w(t)'})
    assert [c[0] for c in causes] == ['negative']
    assert 'sqrt(w(t))' in causes[0][1] and '(-1)' in causes[0][1]
    assert f.explain_nonfinite([2.0, 4.0], [0, 1]) == []
