"""The Jacobian of shared SymEngine graphs
(``sympy_loads._simulation.shared_derivatives``), and the linearization of
an unformed PinJoint chain that it makes possible."""

import numpy as np
import pytest

se = pytest.importorskip('symengine')

from sympy_loads._numeric.codegen import generate  # noqa: E402
from sympy_loads._simulation.shared_derivatives import (  # noqa: E402
    shared_jacobian)


def _random_graph(rng, symbols, size):
    """A random expression graph over ``symbols``: each new node combines
    two earlier ones (so later nodes share earlier ones) by a sum, a
    product, a power or an elementary function."""
    nodes = list(symbols)
    for _ in range(size):
        a, b = (nodes[i] for i in rng.integers(len(nodes), size=2))
        kind = rng.integers(8)
        if kind == 0:
            node = a + b
        elif kind == 1:
            node = a * b
        elif kind == 2:
            node = a - 2 * b
        elif kind == 3:
            node = se.sin(a) * b
        elif kind == 4:
            node = se.cos(a + b)
        elif kind == 5:
            node = se.sqrt(1 + a * a) / (2 + b * b)
        elif kind == 6:
            node = se.atan2(a, 1 + b * b)
        else:
            node = se.exp(a / (3 + b * b)) ** (b / 4)
        nodes.append(node)
    return nodes


@pytest.mark.parametrize('seed', range(6))
def test_shared_jacobian_equals_symengine_diff(seed):
    """On generated graphs, every entry of the Jacobian equals SymEngine's
    own ``diff`` of that output, at random points (to 1e-12 relative)."""
    rng = np.random.default_rng(seed)
    symbols = list(se.symbols('x0:4'))
    nodes = _random_graph(rng, symbols, 14)
    outputs = nodes[-5:] + [se.Integer(2), symbols[0]]
    J = shared_jacobian(outputs, symbols)
    ours = se.Lambdify(symbols, [d for row in J for d in row],
                       backend='lambda')
    reference = se.Lambdify(symbols, [e.diff(s) for e in outputs
                                      for s in symbols], backend='lambda')
    for _ in range(3):
        point = rng.uniform(-1, 1, len(symbols))
        got, expected = np.ravel(ours(point)), np.ravel(reference(point))
        assert np.all(np.isfinite(expected))
        assert np.all(np.abs(got - expected)
                      <= 1e-12 * (1 + np.abs(expected)))


def test_shared_jacobian_of_a_deep_shared_graph():
    """``a_{k+1} = sin(a_k) a_k + y a_k``, 60 levels (3^60 nodes written
    as a tree): the derivatives with respect to ``x`` (``a_0 = x``) and
    ``y``, compiled node by node, equal the forward recurrence computed in
    Python; SymEngine's ``diff`` per output would not finish."""
    x, y = se.symbols('x y')
    a = x
    for _ in range(60):
        a = se.sin(a) * a + y * a
    (dx, dy), = shared_jacobian([a], [x, y])
    f = generate([x, y], [a, dx, dy], 'llvm', 'deep', opt_level=0,
                 graph=True)
    xv, yv = 0.3, 0.2
    v, vx, vy = xv, 1.0, 0.0
    for _ in range(60):
        v, vx, vy = (np.sin(v) * v + yv * v,
                     (np.cos(v) * v + np.sin(v) + yv) * vx,
                     (np.cos(v) * v + np.sin(v) + yv) * vy + v)
    got = np.asarray(f(np.array([xv, yv])), float).ravel()
    assert np.allclose(got, [v, vx, vy], rtol=1e-12, atol=0)


def test_fourteen_link_pin_chain_linearizes_as_the_absolute_chain():
    """linearize() of a 14-link PinJoint chain, unformed (before: 52 s,
    the Jacobian's shared subexpressions copied per entry), equals that of
    the same chain written with absolute angles, formed by SymPy, after
    the change of coordinates ``q_abs = T q_rel`` (T: lower triangle of
    ones): ``A_rel = S^-1 A_abs S``, ``S = diag(T, T)``, to 1e-9."""
    import sys
    import os
    sys.path.insert(0, os.path.dirname(__file__))
    from _unformed_models import absolute_chain, pin_chain
    from sympy_loads import linearize
    n = 14
    pins = pin_chain(n)
    A_rel = np.asarray(linearize(pins.system, pins.initial_conditions,
                                 pins.constants).A, float)
    assert pins.system.eom_method is None
    chain = absolute_chain(n)
    chain.system.form_eoms()
    A_abs = np.asarray(linearize(chain.system, chain.initial_conditions,
                                 chain.constants).A, float)
    T = np.tril(np.ones((n, n)))
    S = np.block([[T, np.zeros((n, n))], [np.zeros((n, n)), T]])
    expected = np.linalg.solve(S, A_abs @ S)
    assert np.abs(A_rel - expected).max() <= 1e-9 * np.abs(expected).max()
