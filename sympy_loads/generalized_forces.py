r"""Partial velocities, generalized active forces :math:`F_r`, generalized
inertia forces :math:`F_r^*` and a test for noncontributing forces.

Kane's method projects every load and every inertia load of a multibody
system onto the directions associated with its generalized speeds
:math:`u_1, \ldots, u_n` [Moore]_ [Kane1985]_:

.. math::

   F_r = \sum_i {}^N\bar{v}^{P_i}_r \cdot \bar{R}_i
         + \sum_j {}^N\bar{\omega}^{B_j}_r \cdot \bar{T}_j, \qquad
   F_r^* = \sum_i {}^N\bar{v}^{P_i}_r \cdot \bar{R}^*_i
         + \sum_j {}^N\bar{\omega}^{B_j}_r \cdot \bar{T}^*_j

and Kane's equations are :math:`F_r + F_r^* = 0`. The functions of this
module return the same :math:`F_r` and :math:`F_r^*` as SymPy's
``KanesMethod.kanes_equations`` (checked in the tests), as plain SymPy
objects, without requiring the whole equations of motion.

Conventions shared by every function:

* ``frame`` is the reference frame (usually the Newtonian frame) in which
  velocities, angular velocities and accelerations are taken.
* ``kinematic_substitutions`` maps the coordinates' time derivatives
  :math:`\dot{q}` to expressions in the speeds :math:`u` (for example
  ``{q1.diff(t): u1}``). It is applied to velocities *before* the partial
  derivatives are taken; the second derivatives :math:`\ddot{q}` that appear
  in accelerations are replaced by the time derivatives of these
  expressions, as ``KanesMethod`` does.
* With ``dependent_speeds`` and ``velocity_constraints`` (expressions that
  vanish and are linear in the speeds) the nonholonomic quantities
  :math:`\tilde{F}_r = F_r + \sum_s F_s A_{sr}` are returned for the
  independent speeds only, where :math:`u_{dep} = A\,u_{ind} + B`.

References
==========

.. [Moore] J. K. Moore, *Learn Multibody Dynamics*, "Generalized Forces":
   partial velocities, :math:`F_r`, :math:`F_r^*`.
   https://moorepants.github.io/learn-multibody-dynamics/
.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, McGraw-Hill, 1985, sec. 4.1: eq. (2)
   :math:`(F_r)_B = \bar{\omega}_r \cdot \bar{T} + \bar{v}_r \cdot \bar{R}`
   and the noncontributing forces. https://hdl.handle.net/1813/638
"""

import random
import time
from collections.abc import Iterable

import mpmath
import sympy as sm
from sympy.physics.mechanics import Force, Point, ReferenceFrame
from sympy.physics.vector import Vector

from ._utils import _as_loads
# Helpers shared with ._inertia_forces live in ._partials;
# generalized_inertia_forces is implemented in ._inertia_forces and
# re-exported here.
from ._partials import _project, _setup
from ._inertia_forces import generalized_inertia_forces

__all__ = ['partial_velocities', 'nonholonomic_partial_velocities',
           'generalized_active_forces', 'generalized_inertia_forces',
           'is_noncontributing']


# ---------------------------------------------------------------------------
# private helpers
# ---------------------------------------------------------------------------

def _group_loads(loads):
    """Sum forces acting at the same point and torques acting on the same
    frame (fewer partial velocities and dot products, same Fr)."""
    forces, torques = {}, {}
    for load in _as_loads(loads):
        if isinstance(load, Force):
            target = forces
            key = load.point
        else:
            target = torques
            key = load.frame
        target[key] = target.get(key, Vector(0)) + load.vector
    return forces, torques


# ---------------------------------------------------------------------------
# public functions
# ---------------------------------------------------------------------------

def partial_velocities(items, speeds, frame, *, kinematic_substitutions=None):
    r"""Return the partial velocities of ``items`` in ``frame`` with respect
    to ``speeds``.

    Explanation
    ===========

    Every velocity and angular velocity of a holonomic system is linear in
    the generalized speeds, :math:`\bar{v} = \sum_r \bar{v}_r u_r +
    \bar{v}_t`, and the *r*-th partial velocity is the coefficient
    :math:`\bar{v}_r = \partial \bar{v} / \partial u_r` [Moore]_. The
    coefficients are read off each component frame of the vector with one
    Jacobian, so vectors are not re-expressed.

    Examples
    ========

    The first example of Moore's "Generalized Forces": A moves along n_x
    with speed u1, R rotates
    about n_z with u2 and B is fixed in R.

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import (Point, ReferenceFrame,
    ...                                      dynamicsymbols)
    >>> from sympy_loads import partial_velocities
    >>> L = symbols('L')
    >>> q2, u1, u2 = dynamicsymbols('q2, u1, u2')
    >>> N, R = ReferenceFrame('N'), ReferenceFrame('R')
    >>> R.orient_axis(N, q2, N.z)
    >>> R.set_ang_vel(N, u2*N.z)
    >>> O = Point('O')
    >>> A = O.locatenew('A', 0)
    >>> A.set_vel(N, u1*N.x)
    >>> B = A.locatenew('B', -L*R.x)
    >>> _ = B.v2pt_theory(A, N, R)
    >>> partial_velocities([A, B, R], [u1, u2], N)
    [[N.x, 0], [N.x, - L*R.y], [0, N.z]]

    Parameters
    ==========

    items : iterable of Point, ReferenceFrame or Vector
        Points (their velocity in ``frame`` is used), frames (their angular
        velocity in ``frame``) or velocity vectors.
    speeds : iterable
        The generalized speeds :math:`u_1, \ldots, u_n`.
    frame : ReferenceFrame
        The frame the velocities are taken in.
    kinematic_substitutions : dict, optional
        Maps :math:`\dot{q}` to expressions in the speeds; applied before
        the partial derivatives are taken.

    Returns
    =======

    list of lists of Vector
        One list per item, holding one partial velocity per speed (like
        SymPy's ``partial_velocity``).

    Raises
    ======

    TypeError
        If an item is not a Point, ReferenceFrame or Vector, or ``frame`` is
        not a ReferenceFrame.
    ValueError
        If a velocity is not linear in the speeds (the message names the
        item) or a point's velocity in ``frame`` is unknown.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Generalized Forces",
       section "Partial Velocities".
       https://moorepants.github.io/learn-multibody-dynamics/
    """
    partials = _setup(speeds, frame, None, None, kinematic_substitutions)
    items = _item_list(items)
    return [list(partials.of(item)) for item in items]


def _item_list(items):
    if isinstance(items, (Point, ReferenceFrame, Vector)):
        return [items]
    if not isinstance(items, Iterable):
        raise TypeError(f'items must be an iterable of Points, '
                        f'ReferenceFrames or Vectors, not {items!r}.')
    return list(items)


def nonholonomic_partial_velocities(items, independent_speeds,
                                    dependent_speeds, velocity_constraints,
                                    frame, *, kinematic_substitutions=None):
    r"""Return the nonholonomic partial velocities of ``items`` in ``frame``.

    Explanation
    ===========

    Velocity constraints that are linear in the speeds can be solved for the
    dependent speeds, :math:`u_{dep} = A u_{ind} + B`. Substituting this in
    a velocity gives :math:`\bar{v} = \sum_{r=1}^p \tilde{v}_r u_r +
    \tilde{v}_t` with the nonholonomic partial velocities [Moore]_
    [Kane1985]_

    .. math::

       \tilde{v}_r = \bar{v}_r + \sum_{s} \bar{v}_s A_{sr}

    where :math:`s` runs over the dependent speeds.

    Examples
    ========

    A wheel of radius r rolls on a line: its center moves with speed u2 and
    it spins with u1; the rolling constraint is u2 + r u1 = 0 (u2 dependent).
    The contact point has zero nonholonomic partial velocity.

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import (Point, ReferenceFrame,
    ...                                      dynamicsymbols)
    >>> from sympy_loads import nonholonomic_partial_velocities
    >>> r = symbols('r')
    >>> q, u1, u2 = dynamicsymbols('q, u1, u2')
    >>> N, W = ReferenceFrame('N'), ReferenceFrame('W')
    >>> W.orient_axis(N, q, N.z)
    >>> W.set_ang_vel(N, u1*N.z)
    >>> C = Point('C')
    >>> C.set_vel(N, u2*N.x)
    >>> P = C.locatenew('P', -r*N.y)
    >>> _ = P.v2pt_theory(C, N, W)
    >>> nonholonomic_partial_velocities([C, P, W], [u1], [u2],
    ...                                 [u2 + r*u1], N)
    [[- r*N.x], [0], [N.z]]

    Parameters
    ==========

    items : iterable of Point, ReferenceFrame or Vector
        See :func:`partial_velocities`.
    independent_speeds : iterable
        The p independent speeds.
    dependent_speeds : iterable
        The m dependent speeds.
    velocity_constraints : iterable
        m expressions, linear in the speeds, that vanish.
    frame : ReferenceFrame
        The frame the velocities are taken in.
    kinematic_substitutions : dict, optional
        Maps :math:`\dot{q}` to expressions in the speeds.

    Returns
    =======

    list of lists of Vector
        One list per item with p nonholonomic partial velocities.

    Raises
    ======

    TypeError, ValueError
        For bad arguments, a different number of constraints and dependent
        speeds, or velocities/constraints that are not linear in the speeds.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Generalized Forces",
       nonholonomic partial velocities.
       https://moorepants.github.io/learn-multibody-dynamics/
    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, 1985, sec. 2.14 and 4.4. https://hdl.handle.net/1813/638
    """
    partials = _setup(independent_speeds, frame, dependent_speeds,
                      velocity_constraints, kinematic_substitutions)
    if not partials.dependent:
        raise ValueError('dependent_speeds must contain at least one speed; '
                         'use partial_velocities for a holonomic system.')
    p = len(partials.independent)
    result = []
    for item in _item_list(items):
        full = partials.of(item)
        reduced = []
        for r in range(p):
            vector = full[r]
            for s, dependent in enumerate(full[p:]):
                coefficient = partials.A[s, r]
                if dependent != 0 and coefficient != 0:
                    vector = vector + coefficient * dependent
            reduced.append(vector)
        result.append(reduced)
    return result


def generalized_active_forces(loads, speeds, frame, *, dependent_speeds=None,
                              velocity_constraints=None,
                              kinematic_substitutions=None):
    r"""Return the generalized active forces :math:`F_r` of ``loads``.

    Explanation
    ===========

    A force :math:`\bar{R}` acting at a point P contributes
    :math:`{}^N\bar{v}^P_r \cdot \bar{R}` and a torque :math:`\bar{T}` on a
    frame B contributes :math:`{}^N\bar{\omega}^B_r \cdot \bar{T}`
    [Moore]_. Loads acting on a rigid body can therefore be given as they
    are or as their :class:`~sympy_loads.Replacement` about a point Q of the
    body, which gives Kane's :math:`(F_r)_B = \bar{\omega}_r \cdot \bar{T} +
    \bar{v}_r \cdot \bar{R}` [Kane1985]_ and the same :math:`F_r`. Forces at
    the same point and torques on the same frame are summed first.

    With ``dependent_speeds`` and ``velocity_constraints`` the nonholonomic
    :math:`\tilde{F}_r = F_r + \sum_s F_s A_{sr}` (one per independent
    speed) is returned, as ``KanesMethod`` does.

    Examples
    ========

    The double pendulum of Moore's "Generalized Forces": the rod tensions
    T1 and T2 drop out.

    >>> from sympy import symbols, simplify
    >>> from sympy.physics.mechanics import (Point, ReferenceFrame,
    ...                                      dynamicsymbols)
    >>> from sympy.physics.vector import vprint
    >>> from sympy_loads import generalized_active_forces
    >>> q1, q2, u1, u2 = dynamicsymbols('q1, q2, u1, u2')
    >>> T1, T2 = dynamicsymbols('T1, T2')
    >>> L, m1, m2, g = symbols('L, m1, m2, g')
    >>> N, A, B = ReferenceFrame('N'), ReferenceFrame('A'), ReferenceFrame('B')
    >>> A.orient_axis(N, q1, N.z)
    >>> B.orient_axis(N, q2, N.z)
    >>> O = Point('O')
    >>> O.set_vel(N, 0)
    >>> P1 = O.locatenew('P1', -L*A.y)
    >>> P2 = P1.locatenew('P2', -L*B.y)
    >>> _ = P1.v2pt_theory(O, N, A)
    >>> _ = P2.v2pt_theory(P1, N, B)
    >>> loads = [(P1, -m1*g*N.y + T1*A.y - T2*B.y), (P2, -m2*g*N.y + T2*B.y)]
    >>> Fr = generalized_active_forces(
    ...     loads, [u1, u2], N,
    ...     kinematic_substitutions={q1.diff(): u1, q2.diff(): u2})
    >>> F1, F2 = [simplify(entry).factor() for entry in Fr]
    >>> vprint(F1)
    -L*g*(m1 + m2)*sin(q1)
    >>> vprint(F2)
    -L*g*m2*sin(q2)

    Parameters
    ==========

    loads : load or iterable of loads
        ``Force``/``Torque`` objects, ``(Point, Vector)``/``(ReferenceFrame,
        Vector)`` tuples, actuators or anything with ``to_loads()`` (e.g. a
        :class:`~sympy_loads.Replacement`).
    speeds : iterable
        The generalized speeds (the independent ones for a nonholonomic
        system).
    frame : ReferenceFrame
        The frame velocities are taken in (usually Newtonian).
    dependent_speeds : iterable, optional
        Dependent speeds, one per velocity constraint.
    velocity_constraints : iterable, optional
        Expressions linear in the speeds that vanish.
    kinematic_substitutions : dict, optional
        Maps :math:`\dot{q}` to expressions in the speeds; applied to the
        velocities before the partials are taken and to the loads.

    Returns
    =======

    Matrix
        Column of :math:`F_r` (or :math:`\tilde{F}_r`), not simplified.

    Raises
    ======

    TypeError
        If an item of ``loads`` is not a load or an argument has the wrong
        type.
    ValueError
        If a velocity or constraint is not linear in the speeds, a point's
        velocity is unknown, or the constraints do not match the dependent
        speeds.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Generalized Forces",
       section "Generalized Active Forces".
       https://moorepants.github.io/learn-multibody-dynamics/
    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, 1985, sec. 4.1, eq. (2). https://hdl.handle.net/1813/638
    """
    partials = _setup(speeds, frame, dependent_speeds, velocity_constraints,
                      kinematic_substitutions)
    forces, torques = _group_loads(loads)
    return _project(partials, list(forces.items()) + list(torques.items()))


def _node_count(expr, limit):
    """The number of nodes of ``expr``'s tree, counting stops past
    ``limit``."""
    count = 0
    for _ in sm.preorder_traversal(expr):
        count += 1
        if count > limit:
            break
    return count


def _zero_entries(entries, *, points, precision, time_budget, size_budget):
    """Decide, for each expression of ``entries``, whether it is
    identically zero, by evaluation at ``points`` random points; see
    :func:`is_noncontributing`. Raises ``RuntimeError`` when the budget is
    exceeded."""
    start = time.perf_counter()
    entries = [sm.sympify(entry) for entry in entries]
    open_ = [i for i, entry in enumerate(entries) if entry != 0]
    decided = [True] * len(entries)
    if not open_:
        return decided
    size = 0
    for i in open_:
        size += _node_count(entries[i], size_budget - size)
        if size > size_budget:
            raise RuntimeError(
                f'is_noncontributing cannot decide: the generalized active '
                f'forces have more than size_budget={size_budget} '
                f'expression nodes; raise size_budget to try anyway.')
    # Functions of time and their derivatives (derivatives first, so that
    # xreplace replaces a Derivative as a whole) become plain symbols.
    exprs = [entries[i] for i in open_]
    derivatives = set().union(*(e.atoms(sm.Derivative) for e in exprs))
    functions = set().union(*(e.atoms(sm.core.function.AppliedUndef)
                              for e in exprs))
    dummies = {f: sm.Dummy() for f in sorted(
        derivatives, key=sm.default_sort_key) + sorted(
        functions, key=sm.default_sort_key)}
    plain = [e.xreplace(dummies) for e in exprs]
    symbols = sorted(set().union(*(e.free_symbols for e in plain)),
                     key=sm.default_sort_key)
    function = sm.lambdify(symbols, plain, modules='mpmath', cse=True)
    rng = random.Random(len(symbols))
    zero_at_all = [True] * len(plain)
    shrink = mpmath.mpf(10)**(-(precision // 2))
    evaluated = 0
    for _ in range(4 * points):
        if evaluated == points or not any(zero_at_all):
            break
        if time.perf_counter() - start > time_budget:
            raise RuntimeError(
                f'is_noncontributing cannot decide within time_budget='
                f'{time_budget} s (evaluated at {evaluated} of {points} '
                f'points); raise time_budget to try anyway.')
        values = [rng.uniform(0.3, 1.7) for _ in symbols]
        try:
            with mpmath.workdps(precision):
                low = function(*[mpmath.mpf(v) for v in values])
            with mpmath.workdps(2 * precision):
                high = function(*[mpmath.mpf(v) for v in values])
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            continue     # a singular point: draw another
        low = [abs(mpmath.mpmathify(v)) for v in low]
        high = [abs(mpmath.mpmathify(v)) for v in high]
        if not all(mpmath.isfinite(v) for v in low + high):
            continue
        evaluated += 1
        for k, (a, b) in enumerate(zip(low, high)):
            # zero: the value is round-off, which shrinks by about
            # 10**-precision when the precision doubles; a nonzero value
            # stays (to within its own round-off)
            if not (b == 0 or b <= shrink * a
                    or (a == 0 and b <= mpmath.mpf(10)**(-precision))):
                zero_at_all[k] = False
    if evaluated < points and any(zero_at_all):
        raise RuntimeError(
            f'is_noncontributing cannot decide: the generalized active '
            f'forces could be evaluated at only {evaluated} of {points} '
            f'random points (singular or complex values elsewhere).')
    for i, zero in zip(open_, zero_at_all):
        decided[i] = zero
    return decided


def is_noncontributing(loads, speeds, frame, *, dependent_speeds=None,
                       velocity_constraints=None,
                       kinematic_substitutions=None, points=4, precision=30,
                       time_budget=60.0, size_budget=2_000_000):
    r"""Return True if ``loads`` contribute nothing to any generalized
    active force.

    Explanation
    ===========

    Noncontributing forces [Kane1985]_ [Moore]_ -- contact across smooth
    surfaces, the mutual forces of two points of one rigid body, the
    tensions of inextensible rods, rolling contact -- give :math:`F_r = 0`
    (or :math:`\tilde{F}_r = 0`) identically. This function forms the
    :math:`F_r` of ``loads`` with :func:`generalized_active_forces` and
    decides whether each entry is identically zero without ``simplify``
    (which can run for tens of minutes on a real model, e.g. the rolling
    contact force of a bicycle wheel): every symbol, coordinate, speed and
    derivative is given a random value in [0.3, 1.7] and the entries are
    evaluated with mpmath at ``precision`` significant digits and again at
    twice as many. An entry that is identically zero evaluates to round-off
    only, which shrinks by about :math:`10^{-\mathrm{precision}}` when the
    precision is doubled; a nonzero value stays. An entry counts as zero at
    a point when the second value is below
    :math:`10^{-\mathrm{precision}/2}` times the first, and as identically
    zero when it is zero at all ``points`` points.

    Confidence: a nonzero expression built from the usual elementary
    functions is analytic, so it vanishes only on a set of measure zero and
    a point drawn at random lands there with probability zero; with
    ``points`` independent points (default 4) a wrong True needs that many
    coincidences, or a nonzero entry smaller than
    :math:`10^{-\mathrm{precision}/2}` (relative) of the round-off of its
    terms at every point -- negligible for physical models. A False is
    certain: it shows a point where an entry is not zero. Points where an
    entry is singular (a division by zero, a complex value) are skipped and
    others drawn.

    Budget: entries larger than ``size_budget`` expression nodes in total,
    or a decision that would take longer than ``time_budget`` seconds (the
    evaluations are checked between points; generating the evaluation code
    is linear in the size), raise ``RuntimeError`` saying so -- the answer
    is then unknown, never a guess.

    Examples
    ========

    Two points of one rigid body push on each other along the line joining
    them: noncontributing. Gravity on one of them is not.

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import (Point, ReferenceFrame,
    ...                                      dynamicsymbols)
    >>> from sympy_loads import is_noncontributing
    >>> q, u = dynamicsymbols('q, u')
    >>> S, g, m, L = symbols('S, g, m, L')
    >>> N, B = ReferenceFrame('N'), ReferenceFrame('B')
    >>> B.orient_axis(N, q, N.z)
    >>> B.set_ang_vel(N, u*N.z)
    >>> O = Point('O')
    >>> O.set_vel(N, 0)
    >>> P1, P2 = O.locatenew('P1', L*B.x), O.locatenew('P2', 2*L*B.y)
    >>> _ = P1.v2pt_theory(O, N, B), P2.v2pt_theory(O, N, B)
    >>> d = P2.pos_from(P1)
    >>> is_noncontributing([(P1, S*d), (P2, -S*d)], [u], N)
    True
    >>> is_noncontributing([(P1, -m*g*N.y)], [u], N)
    False

    Parameters
    ==========

    loads, speeds, frame, dependent_speeds, velocity_constraints, kinematic_substitutions
        As in :func:`generalized_active_forces`.
    points : int, optional
        Random points an entry must vanish at (default 4, at least 1).
    precision : int, optional
        Significant digits of the first evaluation (default 30, at least
        15); the second uses twice as many.
    time_budget : float, optional
        Seconds after which the decision is abandoned (default 60).
    size_budget : int, optional
        Largest total size of the entries, in expression nodes (default
        2,000,000; the front contact force of SymPy's Whipple bicycle has
        some 140,000).

    Returns
    =======

    bool

    Raises
    ======

    RuntimeError
        If it cannot decide within ``size_budget`` or ``time_budget``, or
        the entries cannot be evaluated at enough points.
    TypeError, ValueError
        As in :func:`generalized_active_forces`, and for a budget option
        that is not a positive number.

    References
    ==========

    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, 1985, sec. 4.1, noncontributing forces.
       https://hdl.handle.net/1813/638
    .. [Moore] J. K. Moore, *Learn Multibody Dynamics*, "Generalized
       Forces". https://moorepants.github.io/learn-multibody-dynamics/
    """
    for name, value, smallest in (('points', points, 1),
                                  ('precision', precision, 15),
                                  ('size_budget', size_budget, 1)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f'{name} must be an int, not '
                            f'{type(value).__name__} {value!r}.')
        if value < smallest:
            raise ValueError(f'{name} must be at least {smallest}, got '
                             f'{value}.')
    if isinstance(time_budget, bool) or not isinstance(time_budget,
                                                       (int, float)):
        raise TypeError(f'time_budget must be a number of seconds, not '
                        f'{type(time_budget).__name__} {time_budget!r}.')
    if not time_budget > 0:
        raise ValueError(f'time_budget must be positive, got '
                         f'{time_budget}.')
    fr = generalized_active_forces(
        loads, speeds, frame, dependent_speeds=dependent_speeds,
        velocity_constraints=velocity_constraints,
        kinematic_substitutions=kinematic_substitutions)
    return all(_zero_entries(list(fr), points=points, precision=precision,
                             time_budget=float(time_budget),
                             size_budget=size_budget))
