"""Private: the Jacobian of SymEngine expressions that share
subexpressions, with each shared subexpression differentiated once.

The assembled equations of an unformed ``System``
(:mod:`sympy_loads._assembly`) are a directed acyclic graph: a link's
position, velocity and composite inertia are used by every link after it.
SymEngine's ``diff`` remembers the derivatives it has made only within one
call, so differentiating the outputs one by one (each entry of a Jacobian
is one call) makes, for every output, new copies of the derivatives of the
subexpressions they share. The copies are equal but distinct objects, and
comparing two of them (a dictionary lookup in the later passes over the
graph, :func:`~sympy_loads._numeric.codegen.shared_xreplace`) walks every
path below them: a time exponential in the depth of the graph (the
linearization of a 14-link ``PinJoint`` chain took 52 s, a 20-link one did
not finish).

:func:`shared_jacobian` differentiates in forward mode over the distinct
nodes, children before parents, with one memory for all outputs and all
variables: ``d node / d x = sum_k (d node / d child_k) (d child_k / d x)``.
Sums, products and powers use their rules directly; any other node (an
elementary function, ``atan2``, ...) gets its partial derivatives from
SymEngine's ``diff`` of the node with its children replaced by symbols, so
only that one level is differentiated there. A derivative exists only for
the variables a node depends on (a sparse map per node), so the cost is
the number of (node, variable) pairs, O(n^3) for an n-link chain.

Equal derivatives made in different places are kept as one object (each
new node is looked up in a table of those made before): SymEngine
compares two objects by their addresses first and by their structure
only when they differ, so equal but distinct copies, built up level by
level, would make the later comparisons deep again (a 20-link chain took
167 s without the table).

References
==========

.. [Griewank] A. Griewank and A. Walther, Evaluating Derivatives:
   Principles and Techniques of Algorithmic Differentiation, 2nd ed.,
   SIAM, 2008, chapter 3 (the forward mode).
"""

import symengine as se
from symengine.lib.symengine_wrapper import Boolean

__all__ = []

_ZERO = se.Integer(0)


def _children_first(exprs):
    """The distinct subexpressions of ``exprs``, each after its
    arguments."""
    order, done = [], set()
    for root in exprs:
        stack = [(root, False)]
        while stack:
            expr, ready = stack.pop()
            if expr in done:
                continue
            if not ready and expr.args:
                stack.append((expr, True))
                stack.extend((a, False) for a in expr.args if a not in done)
                continue
            done.add(expr)
            order.append(expr)
    return order


class _Table(dict):
    """One object per distinct expression made (see the module
    documentation)."""

    def __call__(self, expr):
        return self.setdefault(expr, expr)


def _add_into(total, gradient, one, factor=None):
    """``total[i] += factor * gradient[i]`` (terms kept as lists; ``one``,
    the :class:`_Table`)."""
    for i, d in gradient.items():
        total.setdefault(i, []).append(d if factor is None
                                       else one(factor * d))


def _local_partials(expr, one):
    """``[d expr / d arg_k]`` for a node that is neither a sum, a product
    nor a power, from SymEngine's ``diff`` of the node rebuilt on symbols;
    None where it cannot be rebuilt from its arguments (a ``Piecewise``,
    whose arguments are its pieces and conditions)."""
    args = expr.args
    names = [se.Dummy() for _ in args]
    try:
        local = expr.func(*names)
    except (TypeError, ValueError, RuntimeError, AttributeError):
        return None
    back = dict(zip(names, args))
    return [one(local.diff(name).subs(back)) for name in names]


def _gradient(expr, gradients, one):
    """The sparse gradient ``{variable index: [terms]}`` of ``expr`` from
    those of its arguments (``gradients``, by argument; ``one``, the
    :class:`_Table`)."""
    args = expr.args
    terms = {}
    if isinstance(expr, se.Add):
        for g in gradients:
            _add_into(terms, g, one)
        return terms
    if isinstance(expr, se.Mul):
        for k, g in enumerate(gradients):
            if g:
                _add_into(terms, g, one,
                          one(se.Mul(*(args[:k] + args[k + 1:]))))
        return terms
    if isinstance(expr, se.Pow):
        base, exponent = args
        if gradients[0]:
            _add_into(terms, gradients[0], one,
                      one(exponent * one(base ** (exponent - 1))))
        if gradients[1]:
            _add_into(terms, gradients[1], one, one(expr * se.log(base)))
        return terms
    partials = _local_partials(expr, one)
    if partials is None:
        return None
    for partial, g in zip(partials, gradients):
        if g and partial != 0:
            _add_into(terms, g, one, partial)
    return terms


def shared_jacobian(exprs, symbols):
    """``[[d e / d s for s in symbols] for e in exprs]``: SymEngine
    expressions, differentiated once per distinct subexpression (see the
    module documentation). A node that cannot be rebuilt from its
    arguments (a ``Piecewise``) is differentiated by SymEngine's ``diff``
    whole, for the variables it depends on; a condition (a relational)
    has no derivative."""
    index = {s: i for i, s in enumerate(symbols)}
    one = _Table()
    gradient = {}
    for node in _children_first(exprs):
        one(node)
        if not node.args:
            i = index.get(node)
            gradient[node] = {} if i is None else {i: se.Integer(1)}
            continue
        if isinstance(node, Boolean):
            gradient[node] = {}
            continue
        below = [gradient[a] for a in node.args]
        if not any(below):
            gradient[node] = {}
            continue
        terms = _gradient(node, below, one)
        if terms is None:
            used = sorted({i for g in below for i in g})
            terms = {i: [one(node.diff(symbols[i]))] for i in used}
        sums = {i: (t[0] if len(t) == 1 else one(se.Add(*t)))
                for i, t in terms.items()}
        gradient[node] = {i: d for i, d in sums.items() if d != 0}
    return [[gradient[e].get(i, _ZERO) for i in range(len(symbols))]
            for e in exprs]
