"""Private helpers shared by several modules of :mod:`sympy_loads`.

Nothing here is public API. Every helper exists once; modules import it
rather than copying it.
"""

import math
import numbers
import random
from collections import namedtuple
from collections.abc import Iterable

import numpy as np
import sympy as sm
from sympy.core.logic import fuzzy_and
from sympy.physics.mechanics import (Force, Particle, Point, ReferenceFrame,
                                     RigidBody, Torque)
from sympy.physics.mechanics.body_base import BodyBase
from sympy.physics.vector import Vector

__all__ = []


def _as_load(item, argname='loads'):
    """Return ``item`` as a list of SymPy ``Force``/``Torque`` objects.

    Accepted: a ``Force`` or ``Torque``; a ``(Point, Vector)`` or
    ``(ReferenceFrame, Vector)`` tuple (a body in place of the point/frame
    means its mass center/frame, as in SymPy); any object with a
    ``to_loads()`` method (SymPy actuators and the loads of this package).
    """
    if isinstance(item, (Force, Torque)):
        return [item]
    if hasattr(item, 'to_loads') and callable(item.to_loads):
        loads = []
        for load in item.to_loads():
            loads.extend(_as_load(load, argname))
        return loads
    if isinstance(item, tuple) and len(item) == 2:
        location, vector = item
        if not isinstance(vector, Vector):
            if vector == 0:
                vector = Vector(0)
            else:
                raise TypeError(
                    f'{argname}: the second entry of {item!r} must be a '
                    f'sympy.physics.vector.Vector, not '
                    f'{type(vector).__name__}.')
        if isinstance(location, (Point, Particle)):
            return [Force(location, vector)]
        if isinstance(location, ReferenceFrame):
            return [Torque(location, vector)]
        if isinstance(location, RigidBody):
            # SymPy's convention: (RigidBody, Vector) is a force at its
            # mass center; use (body.frame, Vector) for a torque.
            return [Force(location, vector)]
    raise TypeError(
        f'{argname}: {item!r} is not a load; expected a Force, a Torque, '
        f'a (Point, Vector) or (ReferenceFrame, Vector) tuple, or an '
        f'object with a to_loads() method (e.g. a SymPy actuator).')


def _as_loads(loads, argname='loads'):
    """Flatten ``loads`` (one load or an iterable of loads) to a list of
    ``Force`` and ``Torque`` objects, raising ``TypeError`` naming the first
    item that is not a load."""
    if (isinstance(loads, (Force, Torque))
            or (isinstance(loads, tuple) and len(loads) == 2
                and isinstance(loads[1], Vector))
            or hasattr(loads, 'to_loads')):
        return _as_load(loads, argname)
    if not isinstance(loads, Iterable) or isinstance(loads, (str, Vector)):
        raise TypeError(
            f'{argname} must be a load or an iterable of loads, not '
            f'{type(loads).__name__} {loads!r}.')
    result = []
    for item in loads:
        result.extend(_as_load(item, argname))
    return result


def _check_type(name, value, types, expected=None):
    """Raise ``TypeError`` naming ``name`` unless ``value`` is a ``types``."""
    if not isinstance(value, types):
        if expected is None:
            if isinstance(types, tuple):
                expected = ' or '.join(t.__name__ for t in types)
            else:
                expected = types.__name__
        raise TypeError(
            f'{name} must be a {expected}, not {type(value).__name__} '
            f'{value!r}.')
    return value


def _sympify_scalar(name, value, *, nonnegative=False, positive=False):
    """Sympify ``value`` strictly and check its sign where it is numeric.

    Raises ``TypeError`` naming ``name`` for a non-scalar (e.g. a string or
    a Vector) and ``ValueError`` when a number violates the requested sign
    or when the value is or contains NaN or an infinity (``nan``, ``oo``,
    ``zoo``, ``float('inf')``). Symbolic values are accepted unless their
    assumptions contradict the requested sign or finiteness.
    """
    if isinstance(value, Vector):
        raise TypeError(f'{name} must be a scalar expression, not a Vector.')
    try:
        expr = sm.sympify(value, strict=True)
    except sm.SympifyError:
        raise TypeError(
            f'{name} must be a number or a SymPy scalar expression, not '
            f'{type(value).__name__} {value!r}.') from None
    if not isinstance(expr, sm.Expr) or isinstance(expr, sm.MatrixBase):
        raise TypeError(
            f'{name} must be a scalar expression, not '
            f'{type(expr).__name__} {value!r}.')
    if expr.has(sm.nan, sm.oo, -sm.oo, sm.zoo) or expr.is_finite is False:
        # NaN and infinities are never a legal parameter: they would only
        # show up later as NaN forces or a silently zero stiffness.
        raise ValueError(f'{name} must be finite, got {expr}.')
    if positive and expr.is_positive is False:
        raise ValueError(f'{name} must be positive, got {expr}.')
    if nonnegative and expr.is_nonnegative is False:
        raise ValueError(f'{name} must be nonnegative, got {expr}.')
    return expr


def _set_once(obj, attribute, value):
    """Set the private ``_attribute`` of ``obj`` once; a second assignment
    raises ``AttributeError`` (constructor arguments are immutable)."""
    private = '_' + attribute
    if hasattr(obj, private):
        raise AttributeError(
            f"Can't set attribute {attribute} of {type(obj).__name__}: it is "
            f'fixed at construction.')
    setattr(obj, private, value)


def _body_masscenter_and_frame(body, argname):
    """Return ``(mass center, frame or None)`` of a Particle or RigidBody."""
    _check_type(argname, body, BodyBase, 'Particle or RigidBody')
    frame = body.frame if isinstance(body, RigidBody) else None
    return body.masscenter, frame


def _equals(expr, number):
    """Whether the SymPy number ``expr`` has the value ``number``:
    ``Float(0.0) == 0`` is False in SymPy, so values are compared, not
    objects (a symbolic ``expr`` is not known to equal it).

    >>> import sympy as sm
    >>> from sympy_loads._utils import _equals, _is_default
    >>> sm.Float(0.0) == 0, _equals(sm.Float(0.0), 0)
    (False, True)
    >>> _is_default(sm.Float(1.0), 1), _is_default(sm.Symbol('R'), None)
    (True, False)
    """
    return (expr - number).is_zero is True


def _is_default(value, default):
    """Whether an argument has its default, for a ``__repr__`` that omits
    defaults: by value for a SymPy number and a numeric default (``0.0``
    is the default ``0``), by ``==`` otherwise (strings, None)."""
    if isinstance(value, sm.Basic) and isinstance(default, numbers.Number):
        return _equals(value, default)
    return value == default


def _internal_prefix(names, base='_'):
    """The shortest run of underscores, at least ``base``, that starts none
    of ``names``: symbols a module generates under this prefix cannot take
    the name of one of the user's symbols.

    >>> from sympy_loads._utils import _internal_prefix
    >>> _internal_prefix(['m', 'g']), _internal_prefix(['m', '_q0', '__x'])
    ('_', '___')
    """
    names = [str(name) for name in names]
    prefix = base
    while any(name.startswith(prefix) for name in names):
        prefix += '_'
    return prefix


def _placeholder_map(inputs, symbols, placeholders):
    """``{symbol: placeholder}``: each of ``inputs`` maps to the placeholder
    at its position, and so does any other of ``symbols`` with its name
    (code printers identify symbols by name, so ``Symbol('m')`` and
    ``Symbol('m', positive=True)`` were always one input). Dummies and
    anything but SymPy symbols (functions of time, SymEngine's symbols,
    which are equal by name anyway) are matched by identity only."""

    def named(symbol):
        return isinstance(symbol, sm.Symbol) and not isinstance(symbol,
                                                                sm.Dummy)
    mapping = dict(zip(inputs, placeholders))
    by_name = {}
    for symbol, placeholder in zip(inputs, placeholders):
        if named(symbol):
            by_name.setdefault(symbol.name, placeholder)
    for symbol in symbols:
        if symbol not in mapping and named(symbol) and \
                symbol.name in by_name:
            mapping[symbol] = by_name[symbol.name]
    return mapping


def _flat_leaves(args):
    """The leaves of nested lists and tuples of symbols, in order."""
    if isinstance(args, (list, tuple)):
        return [leaf for arg in args for leaf in _flat_leaves(arg)]
    return [args]


def _lambdify(args, expr):
    """Generate NumPy code for ``expr`` of ``args`` (nested lists of
    symbols, as ``lambdify`` takes them) once, with common subexpressions
    eliminated.

    Every argument is renamed ``_a0, _a1, ...`` first: the generated code
    names its common subexpressions ``x0, x1, ...`` and calls NumPy
    functions by name, so a user's symbol named ``x1`` or ``sin`` could
    otherwise take the place of either.

    >>> import sympy as sm
    >>> from sympy_loads._utils import _lambdify
    >>> sin, x0 = sm.symbols('sin x0')
    >>> f = _lambdify([[x0, sin]], sm.cos(x0)*sin + sm.sin(sin))
    >>> round(float(f([0.0, 2.0])), 12) == round(2 + float(sm.sin(2)), 12)
    True
    """
    leaves = _flat_leaves(args)
    placeholders = [sm.Symbol(f'_a{i}') for i in range(len(leaves))]
    iterator = iter(placeholders)

    def rebuild(arg):
        if isinstance(arg, (list, tuple)):
            return type(arg)(rebuild(a) for a in arg)
        return next(iterator)

    renamed = rebuild(args)
    exprs = expr if isinstance(expr, (list, tuple)) else [expr]
    symbols = set()
    for e in exprs:
        symbols |= sm.sympify(e).free_symbols
    mapping = _placeholder_map(leaves, symbols, placeholders)
    if isinstance(expr, (list, tuple)):
        expr = type(expr)(sm.sympify(e).xreplace(mapping) for e in expr)
    else:
        expr = sm.sympify(expr).xreplace(mapping)
    return sm.lambdify(renamed, expr, modules='numpy', cse=True)


def _is_zero_vector(vector):
    """Return True if every component of ``vector``, expressed in one frame,
    simplifies to zero (components in several frames may cancel)."""
    if vector == 0:
        return True
    frame = vector.args[0][1]
    return all(sm.simplify(component) == 0
               for component in vector.to_matrix(frame))


_UNIT_TOLERANCE = 1e-12


def _is_unit_vector(vector):
    """Return True if ``vector`` has magnitude 1.

    Exact (``simplify(v . v - 1) == 0``) for a vector with exact
    components; a vector with floating-point components, e.g.
    ``0.5773502691896258*(N.x + N.y + N.z)``, whose squared magnitude is
    ``1 + 2.2e-16``, is a unit vector when ``|v . v - 1| <= 1e-12``
    (numeric squared magnitude) or when that holds at three random values
    of its symbols (symbolic components with float coefficients).
    """
    if vector == Vector(0):
        return False
    square = sm.expand(vector.dot(vector))
    if not square.has(sm.Float):
        return sm.simplify(square - 1) == 0
    if square.is_number:
        return abs(complex(sm.N(square)) - 1) <= _UNIT_TOLERANCE
    functions = square.atoms(sm.core.function.AppliedUndef)
    derivatives = square.atoms(sm.Derivative)
    rng = random.Random(12345)
    for _ in range(3):
        values = {d: rng.uniform(-2, 2) for d in derivatives}
        values.update({f: rng.uniform(-2, 2) for f in functions})
        values.update({s: rng.uniform(-2, 2) for s in square.free_symbols})
        number = square.xreplace(values) if values else square
        try:
            value = complex(sm.N(number))
        except (TypeError, ValueError):
            return False
        if not abs(value - 1) <= _UNIT_TOLERANCE:
            return False
    return True


_KanesParts = namedtuple('_KanesParts', [
    'frame', 'q_ind', 'q_dep', 'u_ind', 'u_dep', 'holonomic_constraints',
    'k_nh', 'f_nh', 'u_aux'])


def _random_dependence(expr, targets, samples=3, seed=0):
    """The indices of ``targets`` (symbols or functions of time) on which
    the entries of ``expr`` (a Matrix or a sequence of expressions)
    depend, judged by their derivatives at ``samples`` random points,
    every other symbol, function of time and derivative given a value in
    [0.5, 1.5]: a derivative above ``1e-9 (1 + the largest)``, or one that
    cannot be evaluated there, counts. It finds a coefficient that is zero
    only after simplification, where ``simplify`` would be slow or
    unreliable.

    >>> import sympy as sm
    >>> from sympy.physics.mechanics import dynamicsymbols
    >>> from sympy_loads._utils import _random_dependence
    >>> q, R = dynamicsymbols('q R')
    >>> _random_dependence([(sm.sin(q)**2 + sm.cos(q)**2 - 1)*R + q], [R, q])
    [1]
    """
    rng = np.random.default_rng(seed)
    column = sm.Matrix([e for e in (expr if hasattr(expr, '__iter__')
                                    else [expr])])
    dummies = [sm.Dummy() for _ in targets]
    column = column.xreplace(dict(zip(targets, dummies)))
    others = (column.atoms(sm.Derivative)
              | column.atoms(sm.core.function.AppliedUndef)
              | column.free_symbols) - set(dummies)
    others = sorted(others, key=str)
    values = [sm.Dummy() for _ in others]
    # xreplace takes a Derivative(q(t), t) whole, q(t) elsewhere
    grad = column.xreplace(dict(zip(others, values))).jacobian(dummies)
    function = _lambdify([values, dummies], grad)
    found = set()
    for _ in range(samples):
        with np.errstate(all='ignore'):
            g = np.asarray(function(rng.uniform(0.5, 1.5, len(values)),
                                    rng.uniform(0.5, 1.5, len(dummies))),
                           dtype=float).reshape(len(column), len(dummies))
        limit = 1e-9 * (1 + np.max(np.abs(g[np.isfinite(g)]), initial=0.0))
        found |= set(np.nonzero(np.any(~(np.abs(g) <= limit), axis=0))[0])
    return sorted(int(i) for i in found)


def _kanes_parts(kane):
    """Return the partition of a ``KanesMethod`` as a ``_KanesParts``
    named tuple.

    Fields: ``frame`` (the inertial frame); ``q_ind``, ``q_dep``, ``u_ind``,
    ``u_dep`` (lists); ``holonomic_constraints`` (list of the configuration
    constraint expressions, zero when satisfied); ``k_nh`` and ``f_nh``
    (Matrices with the velocity constraints ``k_nh u + f_nh = 0``, shapes
    ``(len(u_dep), len(u))`` and ``(len(u_dep), 1)``, empty without
    dependent speeds); ``u_aux`` (list of the auxiliary speeds, see
    ``KanesMethod``'s ``u_auxiliary``).

    SymPy 1.14's ``KanesMethod`` exposes ``q`` and ``u`` (independent first,
    then dependent) but keeps the inertial frame, the dependent coordinates
    and speeds, the constraints and the auxiliary speeds only in private
    attributes (``_inertial``, ``_qdep``, ``_udep``, ``_f_h``, ``_k_nh``,
    ``_f_nh``, ``_uaux``); this function and :func:`_kanes_fingerprint`
    (which only compares them) are the places in the package that read
    them.
    """
    frame = kane._inertial                        # private in SymPy 1.14
    q_dep = list(kane._qdep)                      # private in SymPy 1.14
    u_dep = list(kane._udep)                      # private in SymPy 1.14
    holonomic = list(kane._f_h)                   # private in SymPy 1.14
    q_all, u_all = list(kane.q), list(kane.u)
    if u_dep:
        k_nh = sm.Matrix(kane._k_nh)              # private in SymPy 1.14
        f_nh = sm.Matrix(kane._f_nh)              # private in SymPy 1.14
    else:
        k_nh, f_nh = sm.zeros(0, len(u_all)), sm.zeros(0, 1)
    u_aux = list(getattr(kane, '_uaux', None) or [])   # private in 1.14
    return _KanesParts(frame, q_all[:len(q_all) - len(q_dep)], q_dep,
                       u_all[:len(u_all) - len(u_dep)], u_dep, holonomic,
                       k_nh, f_nh, u_aux)


def _kanes_fingerprint(kane):
    """The fingerprint of what the numeric model of ``kane`` is derived
    from: its coordinates and speeds, kinematic equations, constraints,
    the equations ``kanes_equations()`` formed (Fr, Fr*, the mass matrix
    and forcing) and the loads and bodies it formed them from. Two
    fingerprints compare equal (``==``) when the model's equations are the
    same. The entries are the model's own objects: SymPy makes new
    matrices each time the equations are formed, so comparing with an
    unchanged model's fingerprint is a comparison of identities (about a
    microsecond, however large the equations); a model formed again with
    the same equations compares equal entry by entry (Matrix ``==``),
    still far cheaper than their derivation.

    SymPy 1.14's ``KanesMethod`` keeps the formed equations, the
    constraints and the kinematic matrices only in private attributes
    (``_fr``, ``_frstar``, ``_k_d``, ``_f_d``, ``_k_dnh``, ``_f_dnh``,
    ``_f_h``, ``_k_nh``, ``_f_nh``, ``_k_kqdot``, ``_k_ku``, ``_f_k`` and
    their ``_implicit`` forms, ``_qdep``, ``_udep``, ``_uaux``,
    ``_inertial``); this function only reads them, to compare. It and
    :func:`_kanes_parts` are the only places in the package that read
    them."""
    bodies = tuple(kane.bodies or ())
    private = (                                   # private in SymPy 1.14
        kane._qdep, kane._udep, kane._inertial, kane._k_kqdot, kane._k_ku,
        kane._f_k, getattr(kane, '_k_kqdot_implicit', None),
        getattr(kane, '_k_ku_implicit', None),
        getattr(kane, '_f_k_implicit', None), kane._f_h, kane._k_nh,
        kane._f_nh, kane._k_dnh, kane._f_dnh, kane._fr, kane._frstar,
        getattr(kane, '_k_d', None), getattr(kane, '_f_d', None),
        getattr(kane, '_uaux', None))   # (_k_d, _f_d: once formed)
    return (kane.q, kane.u, kane.explicit_kinematics, private,
            tuple(kane.loads or ()), bodies,
            tuple((b.mass, getattr(b, 'central_inertia', None))
                  for b in bodies))


class _zero_indicator(sm.Function):
    r"""``[x = 0]``: 1 where ``x`` is zero and 0 elsewhere, with derivative 0.

    Used as a division guard: ``_nonzero_norm(s) = s + [s = 0]`` is ``s``
    away from zero and 1 at zero. Away from ``x = 0`` the indicator is
    constant, so 0 is its exact derivative there; at ``x = 0`` the
    classical derivative does not exist (``d sign(x)/dx`` is
    ``2 DiracDelta(x)``). 0 is the right value for a guard: wherever it is
    used, the guarded quotient (e.g. ``w/|w|``) is multiplied by a factor
    that vanishes where ``x`` does, so the derivative of the product does
    not depend on it; and it keeps ``DiracDelta``, which numeric printers
    cannot print, out of Jacobians and linearizations.

    Every Python-family code printer (``lambdify`` with the NumPy, SciPy,
    math or mpmath modules, ``pycode``, and the code generated for numba
    and NumPy kernels) prints it as the elementwise comparison
    ``1.0*((x) == 0)``; C and C++ print a conditional, LaTeX an Iverson
    bracket. Numbers, and expressions known to be zero or nonzero,
    evaluate.

    >>> import sympy as sm
    >>> from sympy_loads._utils import _zero_indicator
    >>> x = sm.Symbol('x')
    >>> _zero_indicator(0), _zero_indicator(2.5), _zero_indicator(x).diff(x)
    (1, 0, 0)
    >>> sm.pycode(_zero_indicator(x))
    '(1.0*((x) == 0))'
    """

    @classmethod
    def eval(cls, x):
        if x.is_zero:
            return sm.S.One
        if x.is_zero is False:
            return sm.S.Zero
        return None

    def fdiff(self, argindex=1):
        return sm.S.Zero

    def _eval_is_integer(self):
        return True

    def _eval_is_nonnegative(self):
        return True

    def _print_comparison(self, printer, *args, **kwargs):
        return f'(1.0*(({printer._print(self.args[0])}) == 0))'

    def _ccode(self, printer, *args, **kwargs):
        return f'((({printer._print(self.args[0])}) == 0) ? 1.0 : 0.0)'

    def _latex(self, printer, *args, **kwargs):
        return rf'\left[{printer._print(self.args[0])} = 0\right]'

    # printmethods of PythonCodePrinter (lambdify 'math'), the NumPy family
    # (set per instance from the module name), mpmath and LambdaPrinter
    _pythoncode = _numpycode = _scipycode = _cupycode = _jaxcode = \
        _mpmathcode = _cmathcode = _lambdacode = _print_comparison
    _cxxcode = _ccode


def _nonzero_norm(norm):
    """Return ``norm + [norm = 0]`` (:class:`_zero_indicator`) for a
    nonnegative ``norm``: equal to ``norm`` when it is positive and 1 when
    it is zero.

    Dividing a vector ``w`` (or a smooth sign of ``|w|``) by it gives the
    direction ``w/|w|`` away from rest and 0, not 0/0, at rest, without a
    ``Piecewise`` (which lambdify's NumPy code evaluates with
    ``numpy.select``, some 20x slower per scalar call) and with a
    derivative free of ``DiracDelta``.
    """
    return norm + _zero_indicator(norm)


class euclidean_norm(sm.Function):
    r"""Euclidean norm ``sqrt(x1**2 + x2**2 + ...)`` of real components,
    with a derivative that is finite at the origin.

    Explanation
    ===========

    The norm itself is continuous and zero at the origin, but its exact
    derivative ``x_i / sqrt(x1**2 + ...)`` is 0/0 there when it is
    evaluated numerically. ``euclidean_norm`` differentiates to

    .. math:: \frac{\partial \|x\|}{\partial x_i} =
              \frac{x_i}{\|x\| + [\|x\| = 0]}

    where ``[.]`` is 1 when the condition holds and 0 otherwise
    (``_zero_indicator``, printed numerically as an elementwise comparison;
    no ``Piecewise``, no ``DiracDelta``). Away from the origin this is the exact derivative; at
    the origin it is 0, the value of ``x_i/|x|`` times the vanishing factor
    that always multiplies it in ``|x| x`` (whose derivative is continuous).
    So a product such as ``euclidean_norm(u) * u``, and its time or
    state derivative (e.g. in a linearization), evaluate to finite values
    everywhere, without division by zero or warnings.

    Numeric and code printers (lambdify, C, ...), LaTeX and pretty printing
    show the norm as ``sqrt(x1**2 + ...)``; ``rewrite(sqrt)`` gives that form symbolically.
    With a single nonzero component that is known to be real it evaluates
    to ``Abs`` of it, so one-dimensional motion in real speeds reduces to
    the familiar ``u*Abs(u)``. A component not known to be real (e.g. a
    default ``dynamicsymbols``) stays ``euclidean_norm(u)``: SymPy
    differentiates ``Abs`` of a possibly complex function into ``re`` and
    ``im`` derivatives that do not evaluate, so a linearization would not
    lambdify.

    Examples
    ========

    >>> from sympy import symbols, sqrt, lambdify
    >>> from sympy_loads.aerodynamics import euclidean_norm
    >>> x, y = symbols('x y', real=True)
    >>> euclidean_norm(3, 4)
    5
    >>> euclidean_norm(x, 0)
    Abs(x)
    >>> euclidean_norm(x, y).rewrite(sqrt)
    sqrt(x**2 + y**2)
    >>> f = lambdify((x, y), (euclidean_norm(x, y)*x).diff(x))
    >>> float(f(0.0, 0.0)), float(f(3.0, 4.0))
    (0.0, 6.8)

    Parameters
    ==========

    *components : Expr
        Real scalar components.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Aerodynamic Drag" (the drag law that needs it).
       https://moorepants.github.io/learn-multibody-dynamics/
    """

    @classmethod
    def eval(cls, *components):
        if not components:
            raise TypeError('euclidean_norm needs at least one component.')
        nonzero = [c for c in components if not c.is_zero]
        if not nonzero:
            return sm.S.Zero
        if len(nonzero) == 1 and nonzero[0].is_extended_real:
            return sm.Abs(nonzero[0])
        if all(c.is_number for c in nonzero):
            return sm.sqrt(sm.Add(*[c**2 for c in nonzero]))
        if len(nonzero) < len(components):
            return cls(*nonzero)
        return None

    def fdiff(self, argindex=1):
        return self.args[argindex - 1] / _nonzero_norm(self)

    def _eval_rewrite_as_sqrt(self, *components, **kwargs):
        return sm.sqrt(sm.Add(*[c**2 for c in components]))

    def _eval_is_extended_real(self):
        return fuzzy_and(c.is_extended_real for c in self.args)

    def _eval_is_extended_nonnegative(self):
        return fuzzy_and(c.is_extended_real for c in self.args)

    def _eval_is_finite(self):
        return fuzzy_and(c.is_finite for c in self.args)

    def _eval_simplify(self, **kwargs):
        components = [sm.simplify(c, **kwargs) for c in self.args]
        square = sm.simplify(sm.Add(*[c**2 for c in components]), **kwargs)
        if square.is_number:
            return sm.sqrt(square)
        return self.func(*components)

    def _eval_is_zero(self):
        return fuzzy_and(c.is_zero for c in self.args)

    def _print_as_sqrt(self, printer, *args, **kwargs):
        return printer._print(self.rewrite(sm.sqrt), *args, **kwargs)


# Code printers, LaTeX and pretty printing find a printing method on the
# expression by the printer's ``printmethod`` name; every one prints the sqrt
# form (str and repr keep the function's name).
for _printmethod in ('_latex', '_pretty', '_lambdacode', '_pythoncode',
                     '_numpycode', '_scipycode', '_cupycode', '_jaxcode', '_mpmathcode',
                     '_numexprcode', '_ccode', '_cxxcode', '_fcode',
                     '_octave', '_julia', '_javascript', '_rust_code',
                     '_rcode', '_glsl', '_mcode', '_maple',
                     '_tensorflowcode', '_torchcode', '_cmathcode'):
    setattr(euclidean_norm, _printmethod, euclidean_norm._print_as_sqrt)
del _printmethod


def _as_float(name, value):
    """``value`` as a finite float; strings, booleans and complex numbers
    are refused (``float('1')`` and ``float(True)`` would accept them).
    ``name`` (for the error) is a string or a function returning one, so
    that a caller in a loop formats it only on an error."""
    if type(value) is float and math.isfinite(value):
        return value                                    # the common case
    if isinstance(value, (str, bytes, bool, np.bool_, complex,
                          np.complexfloating)):
        raise TypeError(f'{_label(name)} must be a real number, not '
                        f'{type(value).__name__} {value!r}.')
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise TypeError(f'{_label(name)} must be a real number, not '
                        f'{type(value).__name__} {value!r}.') from None
    if not math.isfinite(number):
        raise ValueError(f'{_label(name)} must be finite, got {value!r}.')
    return number


def _label(name):
    return name() if callable(name) else name


def _real_array(name, values):
    """``values`` as a float array; arrays of strings, booleans, complex
    numbers or objects are a TypeError naming ``name``."""
    array = np.asarray(values)
    if array.dtype.kind not in 'iuf':
        if array.dtype.kind == 'O':
            try:
                return np.array([_as_float(f'{name}[{i}]', v) for i, v in
                                 enumerate(array.ravel())]).reshape(
                                     array.shape)
            except TypeError:
                pass
        raise TypeError(f'{name} must be an array of real numbers, not of '
                        f'{array.dtype} ({values!r}).')
    return array.astype(float)


def lru_get(cache, key):
    """``cache[key]`` (None if absent), moved to the end of the dict's
    order: the most recently used. Safe against another thread's use of
    the same cache (a plain dict: its single operations are atomic)."""
    value = cache.pop(key, None)
    if value is not None:
        cache[key] = value
    return value


def lru_put(cache, key, value, size):
    """``cache[key] = value``, dropping the least recently used entries
    beyond ``size``."""
    cache[key] = value
    while len(cache) > size:
        try:
            cache.pop(next(iter(cache)), None)
        except (RuntimeError, StopIteration):   # another thread's change
            break
