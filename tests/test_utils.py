"""Tests of the private helpers shared by several modules (_utils.py)."""

import numpy as np
import pytest
import sympy as sm
from sympy.physics.mechanics import KanesMethod, ReferenceFrame, dynamicsymbols

from sympy_loads._utils import _kanes_parts, _lambdify, _nonzero_norm


def test_kanes_parts_reads_the_partition_of_a_constrained_model():
    q1, q2, u1, u2 = dynamicsymbols('q1 q2 u1 u2')
    N = ReferenceFrame('N')
    kane = KanesMethod(N, [q1], [u1], kd_eqs=[q1.diff() - u1,
                                              q2.diff() - u2],
                       q_dependent=[q2], u_dependent=[u2],
                       configuration_constraints=[q1**2 - q2],
                       velocity_constraints=[2 * q1 * u1 - u2])
    parts = _kanes_parts(kane)
    assert parts.frame is N
    assert (parts.q_ind, parts.q_dep) == ([q1], [q2])
    assert (parts.u_ind, parts.u_dep) == ([u1], [u2])
    assert parts.holonomic_constraints == [q1**2 - q2]
    # k_nh u + f_nh = 0 is the velocity constraint, up to a factor
    residual = (parts.k_nh * sm.Matrix([u1, u2]) + parts.f_nh)[0]
    assert sm.simplify(residual / (2 * q1 * u1 - u2)).is_constant()


def test_kanes_parts_of_an_unconstrained_model_has_empty_constraints():
    q, u = dynamicsymbols('q u')
    parts = _kanes_parts(KanesMethod(ReferenceFrame('N'), [q], [u],
                                     kd_eqs=[q.diff() - u]))
    assert (parts.q_dep, parts.u_dep, parts.holonomic_constraints) == (
        [], [], [])
    assert parts.k_nh.shape == (0, 1) and parts.f_nh.shape == (0, 1)


def test_nonzero_norm_is_the_norm_away_from_rest_and_one_at_rest():
    x, y = sm.symbols('x y', real=True)
    norm = sm.sqrt(x**2 + y**2)
    direction_x = _lambdify((x, y), x / _nonzero_norm(norm))
    assert direction_x(0.0, 0.0) == 0.0
    assert abs(direction_x(3.0, 4.0) - 0.6) < 1e-15


def test_zero_indicator_values_derivative_and_printing():
    from sympy.printing.numpy import NumPyPrinter
    from sympy.printing.pycode import PythonCodePrinter
    from sympy_loads._utils import _zero_indicator
    x = sm.Symbol('x')
    assert _zero_indicator(0) == 1 and _zero_indicator(-2.5) == 0
    assert _zero_indicator(sm.Symbol('p', positive=True)) == 0
    assert _zero_indicator(x).diff(x) == 0
    assert _zero_indicator(x**2).diff(x) == 0
    # elementwise in NumPy (arrays, no warnings) and scalar with math
    f = _lambdify((x,), x + _zero_indicator(x))
    np.testing.assert_array_equal(f(np.array([0.0, -0.0, 2.0, -3.0])),
                                  [1.0, 1.0, 2.0, -3.0])
    g = sm.lambdify(x, 1 / (x + _zero_indicator(x)), modules='math')
    assert (g(0.0), g(4.0)) == (1.0, 0.25)
    # the printers of the generated numba and NumPy kernels
    for printer in (PythonCodePrinter({'standard': 'python3',
                                       'fully_qualified_modules': True}),
                    NumPyPrinter({'strict': True})):
        code = printer.doprint(_zero_indicator(x + 1))
        assert eval(code, {'x': -1.0}) == 1.0
        assert eval(code, {'x': 0.5}) == 0.0
    assert sm.ccode(_zero_indicator(x)) == '(((x) == 0) ? 1.0 : 0.0)'
    assert sm.latex(_zero_indicator(x)) == r'\left[x = 0\right]'


def test_zero_indicator_compiles_with_numba():
    numba = pytest.importorskip('numba')
    from sympy.printing.pycode import PythonCodePrinter
    from sympy_loads._utils import _zero_indicator
    x = sm.Symbol('x')
    code = PythonCodePrinter({'standard': 'python3'}).doprint(
        x / (x + _zero_indicator(x)))
    namespace = {}
    exec(f'def f(x):\n    return {code}\n', namespace)
    f = numba.njit(namespace['f'])
    assert (f(0.0), f(3.0)) == (0.0, 1.0)


def test_nonzero_norm_derivative_has_no_dirac_delta():
    x, y = sm.symbols('x y', real=True)
    d = (x / _nonzero_norm(sm.sqrt(x**2 + y**2))).diff(x)
    assert not d.has(sm.DiracDelta)
    assert abs(_lambdify((x, y), d)(3.0, 4.0) - 16 / 125) < 1e-15


def test_euclidean_norm_of_one_non_real_component_stays_differentiable():
    from sympy_loads._utils import euclidean_norm
    u = dynamicsymbols('u')
    assert euclidean_norm(u, 0) == euclidean_norm(u)
    assert euclidean_norm(sm.Symbol('r', real=True)) == sm.Abs(
        sm.Symbol('r', real=True))
    d = (euclidean_norm(u) * u).diff(u)
    f = sm.lambdify(u, d)
    assert (f(0.0), f(-2.0)) == (0.0, 4.0)


def test_random_dependence_sees_through_coefficients_that_cancel():
    """A reaction R whose coefficient is zero only after simplification
    (sin^2 + cos^2 - 1) is not a dependence; q, in a derivative too, is;
    a derivative that cannot be evaluated (log of a negative number)
    counts as one rather than being taken for zero."""
    from sympy.physics.mechanics import dynamicsymbols
    from sympy_loads._utils import _random_dependence
    q, R, S = dynamicsymbols('q R S')
    c = sm.Symbol('c')
    cancelling = (sm.sin(q)**2 + sm.cos(q)**2 - 1) * R
    assert _random_dependence([cancelling + c * q.diff()], [R]) == []
    assert _random_dependence([cancelling + c * q.diff()],
                              [R, q.diff()]) == [1]
    assert _random_dependence(sm.Matrix([cancelling, S * q]),
                              [S, R]) == [0]
    assert _random_dependence([sm.log(-c) * S], [S]) == [0]
