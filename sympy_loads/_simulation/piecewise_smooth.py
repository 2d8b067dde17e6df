"""Private: derivatives of piecewise-smooth functions for the
linearization (:mod:`.linearization`).

``Abs``, ``sign``, ``Max``, ``Min``, ``Heaviside`` and ``Piecewise`` are
smooth except where they switch: ``|a|`` and ``sign(a)`` and
``Heaviside(a)`` at ``a = 0``, ``Max(a, b)`` and ``Min(a, b)`` at
``a = b``, a ``Piecewise`` where a relation of its conditions turns.
Neither SymEngine nor SymPy differentiates them into something a back end
can compile (``Derivative(abs(x), x)``, ``DiracDelta``). Each application
is therefore written, before differentiation, as a ``Piecewise`` over a
*selector* symbol ``k`` that picks its branch::

    |a|          ->  Piecewise((a, Eq(k, 1)), (-a, True))
    Max(a, b)    ->  Piecewise((a, Eq(k, 1)), (b, True))
    Heaviside(a) ->  Piecewise((1, Eq(k, 1)), (0, True))

whose derivative is the branch's (``d|a|/dx = a'`` or ``-a'``, zero for
``sign`` and ``Heaviside``): the derivative of the function where it is
smooth. The selectors are inputs of the generated Jacobian; their values
at an operating point come from the *distances* to the switches (``a``,
``a - b``, ``lhs - rhs`` of a relation), generated as a function of the
model's inputs: a branch whose conditions hold there. A distance within
round-off of zero (:data:`SWITCH_RTOL` of the size of its terms, plus
:data:`SWITCH_ATOL`) puts the operating point on the switch, where every
branch that may hold is a side: the Jacobian is the same from all of them
where the model is differentiable there (``u |u|`` at ``u = 0``), and
differs where it is not (``|x|`` at ``x = 0``).

Works on SymEngine expressions (the linearization's) or SymPy ones (where
SymEngine is not installed).
"""

import itertools

import numpy as np
import sympy as sm

from .._numeric.codegen import nodes_of, shared_xreplace

__all__ = []

#: A distance ``d`` to a switch is at the switch when ``|d| <= SWITCH_RTOL
#: * (sum of the sizes of its terms) + SWITCH_ATOL``: round-off of the
#: terms (1e-16 relative each) is far below the first, and a model that is
#: linearized within 1e-12 of a kink holds only over that distance.
SWITCH_RTOL = 1e-9
SWITCH_ATOL = 1e-12

#: The Jacobians from two sides of a switch agree when they differ by at
#: most this, relative to the largest entry of their block (at least 1).
SIDES_RTOL = 1e-8

#: At most this many combinations of sides are compared (2**6: six
#: switches met at one operating point).
MAX_COMBINATIONS = 64

_RELATIONS = {'StrictLessThan': '<', 'LessThan': '<=',
              'StrictGreaterThan': '>', 'GreaterThan': '>=',
              'Equality': '==', 'Unequality': '!='}
_KINDS = ('Abs', 'sign', 'Max', 'Min', 'Heaviside', 'Piecewise')


def _kind(expr):
    """The name of the piecewise-smooth function ``expr`` applies, or
    None (SymEngine wraps SymPy's Heaviside as a ``PyFunction``)."""
    name = type(expr).__name__
    if name == 'PyFunction':
        name = expr.get_name()
    return {'abs': 'Abs', 'Abs': 'Abs', 'sign': 'sign', 'Max': 'Max',
            'Min': 'Min', 'Heaviside': 'Heaviside',
            'Piecewise': 'Piecewise'}.get(name)


def _piecewise_pairs(expr):
    """The ``(value, condition)`` pairs of a SymPy or SymEngine
    Piecewise."""
    args = expr.args
    if args and hasattr(args[0], 'cond'):            # SymPy ExprCondPair
        return [(a.expr, a.cond) for a in args]
    return list(zip(args[0::2], args[1::2]))          # SymEngine: flat


def _terms(expr):
    """The terms of a sum (the expression itself otherwise)."""
    return list(expr.args) if type(expr).__name__ == 'Add' else [expr]


class PiecewiseSmooth:
    """The rewriting of the piecewise-smooth functions in a set of
    expressions (see the module documentation).

    Parameters
    ==========

    expressions : list
        SymEngine or SymPy expressions (the model's, in its plain input
        symbols).
    module : module
        ``symengine`` or ``sympy``: the library of ``expressions``.
    prefix : str
        Names of the selector symbols: ``prefix0, prefix1, ...``.

    Attributes
    ==========

    selectors : list
        One symbol per function application, to add to the inputs of the
        generated function of :meth:`rewrite`'s expressions.
    distances : list
        The distances to the switches, then the sizes of their terms (one
        each), in the original (natural) form: the outputs of the switch
        function.
    """

    def __init__(self, expressions, module, prefix):
        self._module = module      # not pickled (see __getstate__)
        # SymPy's Max and Min are no Functions; SymEngine's Piecewise and
        # wrapped Heaviside are
        types = ((sm.Abs, sm.sign, sm.Max, sm.Min, sm.Heaviside,
                  sm.Piecewise) if module is sm else (module.Function,))
        expressions = list(expressions)
        found = {f for f in nodes_of(expressions, types) if _kind(f)}
        powers = {p for p in nodes_of(expressions, (module.Pow,))
                  if p.args[0] in found or _kind(p.args[0])}
        # innermost first: a function's arguments are rewritten before it
        ordered = sorted(found | powers, key=lambda f: (len(str(f)), str(f)))
        self._mapping = {}
        self.applications = []    # (original, branch conditions)
        self.selectors = []
        distances, sizes = [], []
        for f in ordered:
            if f in powers:
                self._power(f)
                continue
            branches = self._branches(f, distances, sizes)
            if branches is None:       # a condition this cannot read
                continue
            k = module.Symbol(f'{prefix}{len(self.selectors)}')
            values = [value.xreplace(self._mapping) if hasattr(
                value, 'xreplace') else value for value, _ in branches]
            pairs = [(v, module.Eq(k, j + 1))
                     for j, v in enumerate(values[:-1])]
            pairs.append((values[-1], True))
            self._mapping[f] = module.Piecewise(*pairs)
            self.selectors.append(k)
            self.applications.append((f, [c for _, c in branches]))
        self.n_distances = len(distances)
        self.distances = distances + sizes

    def _power(self, power):
        """A power of a rewritten function, ``Piecewise((a, c1), (b,
        True))**e``, as ``Piecewise((a**e, c1), (b**e, True))``: the same
        value, and a derivative that is not ``0 * oo`` where the branch
        taken is 0 and ``e < 1`` (``max(0, -z)**(1/2)`` above the
        plane)."""
        base, exponent = power.args
        written = self._mapping.get(base)
        if written is None:
            return
        exponent = exponent.xreplace(self._mapping)
        pairs = [(value**exponent, condition)
                 for value, condition in _piecewise_pairs(written)]
        self._mapping[power] = self._module.Piecewise(*pairs)

    def __getstate__(self):
        # a module does not pickle, and the rewriting is done by then: what
        # a pickle needs is the reading of the switches (sides, labels)
        state = self.__dict__.copy()
        state['_module'] = None
        state['_mapping'] = None
        return state

    def __bool__(self):
        return bool(self.selectors)

    def rewrite(self, expressions):
        """``expressions`` with every function application written over
        its selector."""
        if not self._mapping:
            return list(expressions)
        expressions = list(expressions)
        if self._module not in (None, sm) and all(
                isinstance(e, self._module.Basic) for e in expressions):
            # one memory for all: a subexpression shared by several
            # expressions (the assembled equations of an unformed System)
            # is replaced once and stays shared
            return shared_xreplace(expressions, self._mapping)
        return [e.xreplace(self._mapping) if hasattr(e, 'xreplace') else e
                for e in expressions]

    def _distance(self, lhs, rhs, distances, sizes):
        """The index of the new distance ``lhs - rhs``."""
        module = self._module
        distances.append(lhs - rhs)
        sizes.append(sum((module.Abs(t) for t in _terms(lhs)
                          + _terms(rhs)), module.Integer(0)))
        return len(distances) - 1

    def _branches(self, f, distances, sizes):
        """``[(value, condition), ...]`` of the application ``f``, the
        last condition True; a condition is True, ``(op, index)`` (the
        relation ``distance[index] op 0``) or ``('and' | 'or' | 'not',
        [conditions])``. None for a Piecewise with a condition that is
        not made of relations."""
        kind, args = _kind(f), list(f.args)
        if kind in ('Abs', 'sign', 'Heaviside'):
            d = self._distance(args[0], 0, distances, sizes)
            if kind == 'Abs':
                return [(args[0], ('>=', d)), (-args[0], True)]
            if kind == 'sign':
                return [(1, ('>', d)), (-1, True)]
            return [(1, ('>', d)), (0, True)]
        if kind in ('Max', 'Min'):
            op = '>=' if kind == 'Max' else '<='
            pair = {}
            for i, j in itertools.combinations(range(len(args)), 2):
                pair[i, j] = self._distance(args[i], args[j], distances,
                                            sizes)
            flip = {'>=': '<=', '<=': '>='}
            branches = []
            for i, value in enumerate(args[:-1]):
                leaves = [(op, pair[i, j]) if i < j else
                          (flip[op], pair[j, i])
                          for j in range(len(args)) if j != i]
                branches.append((value, ('and', leaves)))
            return branches + [(args[-1], True)]
        try:
            pairs = [(value, self._condition(c, distances, sizes))
                     for value, c in _piecewise_pairs(f)]
        except _Unreadable:
            return None
        if pairs[-1][1] is not True:     # no default branch: keep as is
            return None
        return pairs

    def _condition(self, c, distances, sizes):
        name = type(c).__name__
        if name == 'BooleanTrue' or c is True:
            return True
        if name == 'BooleanFalse' or c is False:
            return ('or', [])
        if name in _RELATIONS:
            lhs, rhs = c.args
            return (_RELATIONS[name], self._distance(lhs, rhs, distances,
                                                     sizes))
        if name in ('And', 'Or', 'Not'):
            return (name.lower(), [self._condition(a, distances, sizes)
                                   for a in c.args])
        raise _Unreadable(name)

    # -- at an operating point -------------------------------------------

    def sides(self, values):
        """For the switch function's ``values``: per application, the
        branches (0-based) that hold at the point or, on a switch, may
        hold on one of its sides, the branch that holds at the point
        first; and the applications found on a switch."""
        n = self.n_distances
        d, size = values[:n], values[n:]
        on = np.abs(d) <= SWITCH_RTOL * np.abs(size) + SWITCH_ATOL
        result, switching = [], []
        for index, (_, conditions) in enumerate(self.applications):
            exact = _first_true(conditions, d, None)
            possible = [j for j in range(len(conditions))
                        if _may_hold(conditions, j, d, on)]
            result.append([exact] + [j for j in possible if j != exact])
            if len(result[-1]) > 1:
                switching.append(index)
        return result, switching

    def combinations(self, sides, switching):
        """``(own, others)``: the selector vector (1-based branch numbers)
        of the branches that hold at the point, and the vectors of the
        other sides of the switching applications, each with the indices
        of the applications it changes: every combination (at most
        :data:`MAX_COMBINATIONS`), else each application's sides in turn,
        the others at the point's."""
        own = np.array([s[0] + 1 for s in sides], dtype=float)
        choices = [sides[i] for i in switching]
        total = int(np.prod([len(c) for c in choices])) if choices else 1
        if total <= MAX_COMBINATIONS:
            picks = [dict(zip(switching, pick))
                     for pick in itertools.product(*choices)]
        else:
            picks = [{i: side} for i in switching for side in sides[i][1:]]
        others = []
        for pick in picks:
            vector = own.copy()
            for i, side in pick.items():
                vector[i] = side + 1
            changed = [i for i in pick if pick[i] != sides[i][0]]
            if changed:
                others.append((changed, vector))
        return own, others

    def label(self, index, names):
        """The application ``index`` as the user wrote it: SymPy, in the
        model's symbols (``names`` maps the plain input symbols to them),
        shortened to 120 characters."""
        f = self.applications[index][0]
        if not isinstance(f, sm.Basic):
            f = f._sympy_()
        text = str(f.xreplace(names))
        return text if len(text) <= 120 else text[:117] + '...'


#: What the blocks of the linearization's function are, for messages.
_BLOCKS = {
    'phi': 'the configuration constraints',
    'phi_q': 'the Jacobian of the configuration constraints',
    'h_q': 'the derivative of the velocity constraints by the coordinates',
    'K': 'the velocity constraints\' coefficients of the speeds',
    'Mk': 'the kinematic equations\' coefficients of the rates',
    'M': 'the mass matrix',
    'Rk_q': 'the derivative of the kinematic equations by the coordinates',
    'Rk_u': 'the derivative of the kinematic equations by the speeds',
    'Rk_s': 'the derivative of the kinematic equations by the inputs',
    'Rd_q': 'the derivative of the dynamic equations by the coordinates',
    'Rd_u': 'the derivative of the dynamic equations by the speeds',
    'Rd_s': 'the derivative of the dynamic equations by the inputs',
    'Ra_q': 'the derivative of the acceleration constraints by the '
            'coordinates',
    'Ra_u': 'the derivative of the acceleration constraints by the speeds',
    'residuals': 'the equations themselves (a jump)'}


def check_sides(blocks, own, others, label, where):
    """Raise ValueError when a Jacobian from another side of a switch
    (``others``: ``(changed applications, blocks)``) differs from the
    point's own (``blocks``) by more than :data:`SIDES_RTOL`: the model is
    not differentiable there. ``label(i)`` names application ``i`` and
    ``where`` the operating point."""
    for changed, other in others:
        for name, value in blocks.items():
            scale = max(1.0, float(np.max(np.abs(value), initial=0.0)))
            difference = np.max(np.abs(other[name] - value), initial=0.0)
            if not difference <= SIDES_RTOL * scale:     # NaN too
                functions = ', '.join(label(i) for i in changed)
                raise ValueError(
                    f'operating_point: the model is not differentiable '
                    f'there: {functions} switches at the operating point '
                    f'({where}), and its two sides give different linear '
                    f'models ({_BLOCKS.get(name, name)} differ by '
                    f'{difference:.3g}). Linearize on either side of the '
                    f'switch (a kink of Abs, sign or Heaviside at an '
                    f'argument 0, of Max or Min where two arguments are '
                    f'equal, of Piecewise where a condition turns).')


class _Unreadable(Exception):
    """A Piecewise condition that is not made of relations."""


def _leaf(op, value):
    """``value op 0``."""
    return {'<': value < 0, '<=': value <= 0, '>': value > 0,
            '>=': value >= 0, '==': value == 0, '!=': value != 0}[op]


def _holds(condition, d, on):
    """Three-valued truth of ``condition`` for the distances ``d``:
    True, False, or None where a relation on a switch (``on``; None:
    none) decides it."""
    if condition is True:
        return True
    op, arg = condition
    if op in ('<', '<=', '>', '>=', '==', '!='):
        if on is not None and on[arg]:
            return None
        return bool(_leaf(op, d[arg]))
    values = [_holds(c, d, on) for c in arg]
    if op == 'not':
        return None if values[0] is None else not values[0]
    if op == 'and':
        if any(v is False for v in values):
            return False
        return True if all(v is True for v in values) else None
    if any(v is True for v in values):
        return True
    return False if all(v is False for v in values) else None


def _first_true(conditions, d, on):
    """The branch that holds (the first whose condition is true)."""
    for j, c in enumerate(conditions):
        if _holds(c, d, on):
            return j
    return len(conditions) - 1


def _may_hold(conditions, j, d, on):
    """Whether branch ``j`` may hold: its condition may be true and no
    earlier one must be."""
    if _holds(conditions[j], d, on) is False:
        return False
    return not any(_holds(c, d, on) is True for c in conditions[:j])
