"""Private helpers shared by several modules of :mod:`sympy_loads`.

Nothing here is public API. Every helper exists once; modules import it
rather than copying it.
"""

from collections import namedtuple
from collections.abc import Iterable

import sympy as sm
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
    a Vector) and ``ValueError`` when a number violates the requested sign.
    Symbolic values are accepted unless their assumptions contradict the
    requested sign.
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


def _lambdify(args, expr):
    """Generate NumPy code for ``expr`` of ``args`` once, with common
    subexpressions eliminated (the one place numeric code is generated)."""
    return sm.lambdify(args, expr, modules='numpy', cse=True)


def _is_zero_vector(vector):
    """Return True if every component of ``vector``, expressed in one frame,
    simplifies to zero (components in several frames may cancel)."""
    if vector == 0:
        return True
    frame = vector.args[0][1]
    return all(sm.simplify(component) == 0
               for component in vector.to_matrix(frame))


_KanesParts = namedtuple('_KanesParts', [
    'frame', 'q_ind', 'q_dep', 'u_ind', 'u_dep', 'holonomic_constraints',
    'k_nh', 'f_nh'])


def _kanes_parts(kane):
    """Return the partition of a ``KanesMethod`` as a ``_KanesParts``
    named tuple.

    Fields: ``frame`` (the inertial frame); ``q_ind``, ``q_dep``, ``u_ind``,
    ``u_dep`` (lists); ``holonomic_constraints`` (list of the configuration
    constraint expressions, zero when satisfied); ``k_nh`` and ``f_nh``
    (Matrices with the velocity constraints ``k_nh u + f_nh = 0``, shapes
    ``(len(u_dep), len(u))`` and ``(len(u_dep), 1)``, empty without
    dependent speeds).

    SymPy 1.14's ``KanesMethod`` exposes ``q`` and ``u`` (independent first,
    then dependent) but keeps the inertial frame, the dependent coordinates
    and speeds and the constraints only in private attributes (``_inertial``,
    ``_qdep``, ``_udep``, ``_f_h``, ``_k_nh``, ``_f_nh``); this is the one
    place in the package that reads them.
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
    return _KanesParts(frame, q_all[:len(q_all) - len(q_dep)], q_dep,
                       u_all[:len(u_all) - len(u_dep)], u_dep, holonomic,
                       k_nh, f_nh)


def _nonzero_norm(norm):
    """Return ``norm + 1 - sign(norm)`` for a nonnegative ``norm``: equal to
    ``norm`` when it is positive and 1 when it is zero.

    Dividing a vector ``w`` (or a smooth sign of ``|w|``) by it gives the
    direction ``w/|w|`` away from rest and 0, not 0/0, at rest, without a
    ``Piecewise`` (which lambdify's NumPy code evaluates with
    ``numpy.select``, some 20x slower per scalar call). Its derivative
    contains ``DiracDelta(norm)``, which numeric printers do not know.
    """
    return norm + 1 - sm.sign(norm)
