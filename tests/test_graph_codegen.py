"""Machine code for a shared expression graph
(``sympy_loads._numeric.dag_llvm``), used for the assembled equations of
an unformed System.

Oracle: SymPy's evaluation of the expressions with numbers substituted
(no code generation), or plain Python arithmetic.
"""

import ctypes
import math
import pickle

import numpy as np
import pytest
import symengine as se

from sympy_loads._numeric.codegen import generate
from sympy_loads._numeric.dag_llvm import (GraphFunction, UnsupportedNode,
                                           graph_ir)

x, y, z = se.symbols('x y z')

EXPRESSIONS = [
    x + y * z, x ** 2 - 3 / y, se.sin(x) * se.cos(y) + se.exp(z),
    se.sqrt(x) * y ** se.Rational(3, 2), x ** -0.5, x ** y, se.tan(x),
    se.tanh(y), se.atan2(x, y), se.Abs(x - 2), se.sign(x - 1),
    se.Max(x, y, z), se.Min(x, y), se.Piecewise((x, x < y), (y, True)),
    se.Piecewise((1, se.Eq(x, 1.0)), (0, True)), x ** 7, x ** -2,
    se.log(y), se.pi * x, se.E ** 2 * x, se.asin(x / 3),
    y ** se.Rational(-1, 2), se.Piecewise((x, se.And(x < y, y < z)),
                                          (z, se.Or(x > 2, se.Not(y < 1))),
                                          (0, True))]


def _reference(expr, point):
    """SymPy's value of ``expr`` at ``point``."""
    value = expr._sympy_().subs(dict(zip(
        (x._sympy_(), y._sympy_(), z._sympy_()), point)))
    return complex(value.evalf(30))


@pytest.mark.parametrize('point', [(1.0, 2.0, 3.0), (2.5, 0.7, 1.1),
                                   (-1.0, 2.0, 0.5), (1.0, 1.0, -2.0)])
def test_every_node_kind_evaluates_as_symengine(point):
    """Each kind of node the generator emits gives SymPy's value to
    round-off; a bare condition gives 1.0 or 0.0."""
    f = GraphFunction.of([x, y, z], EXPRESSIONS + [x < y])
    got = f(np.array(point))
    for value, expr in zip(got, EXPRESSIONS):
        reference = _reference(expr, point)
        if reference.imag:
            continue                      # not real there: not compared
        assert math.isclose(value, reference.real, rel_tol=1e-13,
                            abs_tol=1e-14), expr
    assert got[-1] == float(point[0] < point[1])


def test_a_deeply_shared_graph_compiles_node_by_node():
    """60 levels of x_{k+1} = x_k**2/2 + sin(x_k)/(1 + x_k**2), each level
    using the previous one three times: written out as a tree it has
    3**60 nodes; the generator emits each distinct node once, and the
    value equals the recurrence evaluated in Python."""
    e = x
    for _ in range(60):
        e = e ** 2 / 2 + se.sin(e) / (1 + e ** 2)
    text, _ = graph_ir([x], [e])
    assert text.count('\n') < 60 * 20
    value, expected = GraphFunction.of([x], [e])(np.array([0.7]))[0], 0.7
    for _ in range(60):
        expected = expected ** 2 / 2 + math.sin(expected) / (
            1 + expected ** 2)
    assert math.isclose(value, expected, rel_tol=1e-12)


def test_batch_and_pickle_give_identical_values():
    """A batch of rows gives each row's values; a pickled copy (its IR
    compiled again) gives bit-identical values."""
    f = generate([x, y, z], EXPRESSIONS[:10], 'llvm', 'f', opt_level=0,
                 graph=True)
    rows = np.random.default_rng(3).uniform(0.5, 2.0, (4, 3))
    batch = f(rows)
    for row, values in zip(rows, batch):
        assert np.array_equal(f(row), values)
    copy = pickle.loads(pickle.dumps(f))
    assert isinstance(copy._lambdify, GraphFunction)
    assert copy.address and copy.address != f.address
    assert np.array_equal(copy(rows), batch)


def test_an_unknown_node_falls_back_to_symengine():
    """A function the generator does not know (here ``gamma``) raises
    UnsupportedNode; ``generate(..., graph=True)`` then compiles with
    SymEngine, with the same values."""
    expr = se.gamma(x) + y
    with pytest.raises(UnsupportedNode):
        graph_ir([x, y], [expr])
    f = generate([x, y], [expr], 'llvm', 'f', graph=True)
    assert not isinstance(f._lambdify, GraphFunction)
    assert math.isclose(f(np.array([4.0, 1.0]))[0], 7.0, rel_tol=1e-13)


def test_running_sums_are_added_by_steps_without_cycles():
    """Sums recorded as ``(a + b, a, b)`` are compiled as one addition of
    their parts, with the value of the sum; a sum recorded again from
    parts made after it ((a + b) - b gives back a) keeps its first parts,
    so no sum waits for itself."""
    from sympy_loads._assembly.kinematics import RECORD, plus
    a = x + y
    RECORD.sums = []
    try:
        s1 = plus(a, z)                       # x + y + z
        s2 = plus(s1, 2 * x)                  # 3x + y + z
        back = plus(s2, -2 * x)               # x + y + z again
        recorded = RECORD.sums
    finally:
        RECORD.sums = None
    assert back == s1 and len(recorded) == 3
    f = generate([x, y, z], [s2, back], 'llvm', 'f', opt_level=0,
                 graph=True, sums=recorded)
    assert isinstance(f._lambdify, GraphFunction)
    assert f._lambdify.text.count('fadd') <= 4
    assert np.allclose(f(np.array([1.0, 2.0, 3.0])), [8.0, 6.0],
                       rtol=1e-15)


def test_nodes_of_walks_a_shared_graph_once():
    """``nodes_of`` (used by the linearization's checks) finds the nodes of
    a type in a 60-level shared graph, where SymEngine's ``atoms()`` walks
    each of its 2**60 paths; SymPy expressions go through ``atoms()``."""
    import sympy as sm
    from sympy_loads._numeric.codegen import nodes_of
    e = x
    for _ in range(60):
        e = e * e + se.sqrt(e)
    powers = nodes_of([e, se.sin(y)], (se.Pow,))
    assert len(powers) == 120             # e**2 and sqrt(e) per level
    assert all(isinstance(p, se.Pow) for p in powers)
    assert nodes_of([e, se.sin(y)], (se.Function,)) >= {se.sin(y)}
    a = sm.Symbol('a')
    assert nodes_of([sm.sin(a) + sm.cos(a) ** 2], (sm.Pow,)) == {
        sm.cos(a) ** 2}


def test_mostly_zero_outputs_are_cleared_at_once():
    """A function whose outputs are mostly exact zeros (a constraint
    Jacobian) clears its output at once and stores only the others: the
    zeros are +0.0 wherever the output buffer held other values, -0.0
    stays -0.0, and the IR holds one store per nonzero output."""
    zero, minus_zero = se.Integer(0), se.Float(-0.0)
    outputs = [x * y] + [zero] * 20 + [y - z, minus_zero, zero, se.sin(x)]
    text, _ = graph_ir([x, y, z], outputs)
    assert 'llvm.memset' in text
    assert text.count('store double') == 3 + 1
    engine = GraphFunction(3, len(outputs), text, ())
    point = np.array([0.5, 2.0, 3.0])
    out = np.full(len(outputs), np.nan)
    double_p = ctypes.POINTER(ctypes.c_double)
    engine._function(out.ctypes.data_as(double_p),
                     point.ctypes.data_as(double_p), None)
    zeros = list(range(1, 21)) + [22, 23]
    assert np.all(out[zeros] == 0.0)
    assert list(np.signbit(out[zeros])) == [False] * 20 + [True, False]
    # (sin from the C library: to round-off, not to the last bit)
    assert np.allclose(out[[0, 21, 24]], [1.0, -1.0, np.sin(0.5)],
                       rtol=1e-15, atol=0)
