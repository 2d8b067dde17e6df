"""Tests of the numeric engine behind simulate() and the constraint solver
(sympy_loads._numeric, _equations, _model): the unconstrained equations
against a fresh KanesMethod, the numeric elimination of dependent speeds at
a state where KanesMethod's symbolically reduced mass matrix is 0/0, the
compiled path against the NumPy path on every example model, and pickling
of generated functions."""

import pickle

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import HolonomicConstraintSolver, simulate
from sympy_loads import _numeric
from sympy_loads._equations import _fast, _from_kanes_method
from sympy_loads._numeric.codegen import GeneratedFunction
from sympy_loads.examples import four_bar, slider_crank

COMPILED = _numeric.compiled_available()
needs_compiled = pytest.mark.skipif(not COMPILED,
                                    reason='needs symengine and numba')


def _plain_map(kane):
    t = me.dynamicsymbols._t
    plain = {s: sm.Symbol(f'_q{i}') for i, s in enumerate(kane.q)}
    plain.update({s: sm.Symbol(f'_u{i}') for i, s in enumerate(kane.u)})
    plain[t] = sm.Symbol('_t')
    return plain


def _evaluate(expr, values):
    return float(sm.sympify(expr).xreplace(values))


@pytest.fixture(scope='module')
def fourbar():
    return four_bar.build_model()


@pytest.fixture(scope='module')
def crank():
    return slider_crank.build_model()


@needs_compiled
@pytest.mark.parametrize('name', ['four-bar', 'slider-crank'])
def test_unconstrained_equations_equal_a_fresh_kanes_method(name, fourbar,
                                                           crank):
    """The fast derivation (SymPy vector algebra, SymEngine calculus)
    against KanesMethod with every speed independent, at a random state."""
    model = fourbar if name == 'four-bar' else crank
    kane = model.kane
    plain = _plain_map(kane)
    specified = [s for s in me.find_dynamicsymbols(
        sm.Matrix([load[1].to_matrix(kane._inertial)
                   for load in kane.loads]).reshape(3 * len(kane.loads), 1))
        if s not in set(kane.q) | set(kane.u)]
    plain.update({s: sm.Symbol(f'_s{i}') for i, s in enumerate(specified)})
    M, F = _fast(kane, plain)
    M_ref, F_ref = _from_kanes_method(kane, plain)
    rng = np.random.default_rng(1)
    symbols = set()
    for e in F_ref + [e for row in M_ref for e in row]:
        symbols |= set(sm.sympify(e).free_symbols)
    values = {s: rng.uniform(0.2, 1.5) for s in symbols}
    for i in range(len(F)):
        assert _evaluate(F[i], values) == pytest.approx(
            _evaluate(F_ref[i], values), rel=1e-12, abs=1e-12)
        for j in range(len(F)):
            assert _evaluate(M[i][j], values) == pytest.approx(
                _evaluate(M_ref[i][j], values), rel=1e-12, abs=1e-12)


def test_reduced_mass_matrix_is_singular_at_crank_angle_zero(crank):
    """Why the elimination is numeric: KanesMethod's symbolically reduced
    mass matrix of the slider-crank example is 0/0 (NaN) at crank angle 0,
    a legal state."""
    kane = crank.kane
    values = dict(zip(kane.q, [0.0, 0.0, 0.4]))
    constants = slider_crank.constants_of(crank)
    with np.errstate(all='ignore'):
        mass = sm.lambdify([], kane.mass_matrix.xreplace(values).xreplace(
            constants))()
    assert not np.isfinite(np.asarray(mass, dtype=float)).all()


@pytest.mark.parametrize('backend', ['numpy'] + (['compiled'] if COMPILED
                                                 else []))
def test_slider_crank_from_crank_angle_zero_is_finite(crank, backend):
    """From the dead-center position the motor turns the crank: the run is
    finite, stays on the constraints and the energy balance holds."""
    kane = crank.kane
    q1, q2, q3 = crank.q
    u1 = crank.u[0]
    ic = {q1: 0.0, q2: 0.0, q3: 0.4, u1: 0.0}
    t = np.linspace(0, 0.5, 51)
    res = simulate(kane, (0, 0.5), ic, slider_crank.constants_of(crank),
                   t_eval=t, specified={crank.torque:
                                        slider_crank.motor_torque()},
                   backend=backend, outputs={'energy': crank.energy})
    assert res.success and res.backend == backend
    assert np.isfinite(res.y).all()
    assert res.q[0, 0] == 0.0 and res.u[-1, 0] > 0
    assert np.max(res.constraint_residual) <= 1e-10


def _example_cases():
    fb = four_bar.build_model()
    sc = slider_crank.build_model()
    q1, q2, q3 = sc.q
    return [
        ('four-bar', fb.kane, four_bar.initial_conditions(fb),
         four_bar.constants_of(fb), None),
        ('slider-crank', sc.kane, slider_crank.initial_conditions(sc),
         slider_crank.constants_of(sc),
         {sc.torque: slider_crank.motor_torque()}),
    ]


@needs_compiled
@pytest.mark.parametrize('method', ['DOP853', 'LSODA'])
def test_compiled_and_numpy_paths_give_the_same_trajectory(method):
    """Every example model, same integrator and tolerances (rtol 1e-10):
    the two back ends round differently, so an adaptive integrator may take
    other steps (LSODA also other orders) on each; each run stays within
    the integrator's global error of the exact trajectory (a DOP853 run at
    rtol 1e-13 stands for it), so they differ by at most the sum of their
    two errors, and neither error is far above the tolerance."""
    for name, kane, ic, constants, specified in _example_cases():
        t = np.linspace(0, 1, 21)
        runs = [simulate(kane, (0, 1), ic, constants, t_eval=t,
                         specified=specified, method=method, rtol=1e-10,
                         atol=1e-12, backend=backend)
                for backend in ('compiled', 'numpy')]
        exact = simulate(kane, (0, 1), ic, constants, t_eval=t,
                         specified=specified, method='DOP853', rtol=1e-13,
                         atol=1e-14, backend='compiled')
        assert [r.backend for r in runs] == ['compiled', 'numpy']
        errors = [np.abs(r.y - exact.y).max() for r in runs]
        assert max(errors) < 1e-6, (name, errors)
        np.testing.assert_allclose(runs[0].y, runs[1].y, rtol=0,
                                   atol=sum(errors) + 1e-12, err_msg=name)
        if method == 'LSODA':
            # one integrator on both back ends, tightened alike
            assert runs[0].nfev == pytest.approx(runs[1].nfev, rel=0.05)
        else:
            # on these closed loops SciPy's DOP853 (the NumPy back end)
            # tightens each step's tolerance for the dependent entries
            # (Problem.tolerance_factor) and the compiled stepping does
            # not: it takes more evaluations, never fewer
            assert runs[1].nfev >= 0.95 * runs[0].nfev


@needs_compiled
def test_constraint_solver_back_ends_agree_on_a_batch():
    th, ph, x = sm.symbols('theta phi x')
    loop = [sm.cos(th) + 3*sm.cos(ph) - x, sm.sin(th) - 3*sm.sin(ph)]
    solvers = [HolonomicConstraintSolver(loop, [th, ph, x], [ph, x],
                                         backend=b)
               for b in ('compiled', 'numpy')]
    assert [s.backend for s in solvers] == ['compiled', 'numpy']
    angles = np.linspace(0, 2*np.pi, 50)
    guesses = np.column_stack([angles, np.zeros(50), np.full(50, 3.0)])
    a, b = (s.solve_positions(guesses) for s in solvers)
    np.testing.assert_allclose(a, b, atol=1e-12)
    exact = np.cos(angles) + np.sqrt(9 - np.sin(angles)**2)
    np.testing.assert_allclose(a[:, 2], exact, atol=1e-12)


@pytest.mark.parametrize('backend', ['numpy'] + (['llvm'] if COMPILED
                                                 else []))
def test_generated_function_evaluates_and_pickles(backend):
    x, y = sm.symbols('x y')
    f = GeneratedFunction([x, y], [sm.sin(x)*y, x**2 + y,
                                   sm.Piecewise((1, sm.Eq(x, 0)), (0, True))],
                          backend)
    expected = [np.sin(0.5)*2.0, 2.25, 0.0]
    np.testing.assert_allclose(f(np.array([0.5, 2.0])), expected)
    batch = f(np.array([[0.5, 2.0], [0.0, 1.0]]))
    np.testing.assert_allclose(batch, [expected, [0.0, 1.0, 1.0]])
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_allclose(g(np.array([0.5, 2.0])), expected)
    if backend == 'llvm':
        assert f.address and f.data


@pytest.mark.parametrize('backend', ['numpy'] + (['compiled'] if COMPILED
                                                 else []))
def test_constants_with_assumptions_found_only_in_positions(backend):
    """A constant that appears only in a position vector (the arm ``a``,
    declared real) is matched to the user's symbol. A bob on an arm of
    length ``a`` turning by ``th``, and a slider at height ``y`` held at
    ``y = sin(th)``: the energy is conserved."""
    th, y, w, uy = me.dynamicsymbols('theta y omega u_y')
    a = sm.Symbol('a', real=True)
    g = sm.Symbol('g', positive=True)
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', [th, N.z])
    B.set_ang_vel(N, w*N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', a*B.x)
    P.v2pt_theory(O, N, B)
    Q = O.locatenew('Q', y*N.y)
    Q.set_vel(N, uy*N.y)
    kane = me.KanesMethod(
        N, [th], [w], kd_eqs=[th.diff() - w, y.diff() - uy],
        q_dependent=[y], u_dependent=[uy],
        configuration_constraints=[y - sm.sin(th)],
        velocity_constraints=[uy - sm.cos(th)*w])
    kane.kanes_equations([me.Particle('p', P, 1), me.Particle('q', Q, 1)],
                         [(P, -g*N.y)])
    res = simulate(kane, (0, 1), {th: 0.2, y: 0.0, w: 0.0},
                   {a: 0.7, g: 9.81}, t_eval=[0, 0.5, 1], backend=backend,
                   outputs={'e': (a**2*w**2 + uy**2)/2 + g*a*sm.sin(th)})
    assert res.success
    np.testing.assert_allclose(res.outputs['e'], res.outputs['e'][0],
                               rtol=1e-7)
    np.testing.assert_allclose(res.q[:, 1], np.sin(res.q[:, 0]), atol=1e-12)
