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
.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, McGraw-Hill, 1985, sec. 4.1: eq. (2)
   :math:`(F_r)_B = \bar{\omega}_r \cdot \bar{T} + \bar{v}_r \cdot \bar{R}`
   and the noncontributing forces.
"""

import random
import time
from collections.abc import Iterable

import mpmath
import sympy as sm
from sympy.physics.mechanics import (Force, Particle, Point, ReferenceFrame,
                                     RigidBody, dynamicsymbols)
from sympy.physics.vector import Vector
from sympy.physics.vector.frame import CoordinateSym

from ._utils import _as_loads, _check_type

__all__ = ['partial_velocities', 'nonholonomic_partial_velocities',
           'generalized_active_forces', 'generalized_inertia_forces',
           'is_noncontributing']


# ---------------------------------------------------------------------------
# private helpers
# ---------------------------------------------------------------------------

def _speed_list(name, speeds, allow_empty=False):
    """Return ``speeds`` as a list of distinct scalars (TypeError/ValueError
    naming ``name`` otherwise)."""
    if speeds is None:
        speeds = []
    if isinstance(speeds, (sm.Basic, Vector, str)) and not isinstance(
            speeds, sm.MatrixBase):
        raise TypeError(f'{name} must be an iterable of generalized speeds '
                        f'(e.g. a list of dynamicsymbols), not {speeds!r}.')
    if not isinstance(speeds, Iterable):
        raise TypeError(f'{name} must be an iterable of generalized speeds, '
                        f'not {type(speeds).__name__} {speeds!r}.')
    result = []
    for speed in speeds:
        if not isinstance(speed, sm.Expr) or speed.is_number:
            raise TypeError(f'{name}: {speed!r} is not a generalized speed; '
                            f'expected a SymPy symbol or dynamicsymbol.')
        result.append(speed)
    if len(set(result)) != len(result):
        raise ValueError(f'{name} contains repeated speeds: {result}.')
    if not result and not allow_empty:
        raise ValueError(f'{name} must contain at least one speed.')
    return result


def _kinematic_map(kinematic_substitutions):
    """Return the replacement dict {q': f(q, u), q'': d/dt f(q, u)} used on
    velocities (q') and accelerations (q' and q'')."""
    if not kinematic_substitutions:
        return {}
    if not isinstance(kinematic_substitutions, dict):
        raise TypeError('kinematic_substitutions must be a dict mapping the '
                        "coordinates' time derivatives to expressions in the "
                        f'speeds, not {type(kinematic_substitutions).__name__}.')
    qdot_map = {}
    for key, value in kinematic_substitutions.items():
        key = sm.sympify(key)
        if not isinstance(key, sm.Derivative):
            raise ValueError(f'kinematic_substitutions: the key {key} is not '
                             f"a time derivative q'(t).")
        qdot_map[key] = sm.sympify(value)
    t = dynamicsymbols._t
    full = dict(qdot_map)
    for key, value in qdot_map.items():
        full[key.diff(t)] = value.diff(t).xreplace(qdot_map)
    return full


def _substitute(vector, replacements):
    if not replacements or vector == 0:
        return vector
    return vector.xreplace(replacements)


def _linear_partials(vector, speeds, what):
    """Return the partial velocities of ``vector`` with respect to
    ``speeds``: its coefficients of the speeds, taken component frame by
    component frame (no re-expression). The speeds are swapped for plain
    symbols first, because differentiating with respect to a symbol is much
    faster than with respect to a function of time."""
    n = len(speeds)
    if vector == 0:
        return [Vector(0)] * n
    dummies = [sm.Dummy(f'u{r}') for r in range(n)]
    to_dummy = dict(zip(speeds, dummies))
    dummy_set = set(dummies)
    columns = [[] for _ in range(n)]
    for measure, component_frame in vector.args:
        if any(d.expr in to_dummy for d in measure.atoms(sm.Derivative)):
            # a speed's time derivative occurs: differentiate directly
            jac = measure.jacobian(speeds)
            nonlinear = jac.has(*speeds)
        else:
            plain = [entry.xreplace(to_dummy) for entry in measure]
            present = [entry.free_symbols & dummy_set for entry in plain]
            jac = sm.Matrix(3, n, lambda i, r: plain[i].diff(dummies[r])
                            if dummies[r] in present[i] else 0)
            nonlinear = any(entry.free_symbols & dummy_set for entry in jac)
        if nonlinear:
            raise ValueError(
                f'{what} is not linear in the speeds {list(speeds)}: '
                f'{vector}. Check kinematic_substitutions.')
        for r in range(n):
            col = jac[:, r]
            if any(col):
                columns[r].append((col, component_frame))
    return [Vector(col) for col in columns]


def _velocity_of(item, frame, replacements):
    """The velocity (Point), angular velocity (ReferenceFrame) or the vector
    itself, with the kinematic substitutions applied, and a description."""
    if isinstance(item, Point):
        try:
            vector = item.vel(frame)
        except ValueError as error:
            raise ValueError(f'the velocity of point {item} in {frame} is '
                             f'not known: {error}') from None
        what = f'the velocity of {item} in {frame}'
    elif isinstance(item, ReferenceFrame):
        vector = item.ang_vel_in(frame)
        what = f'the angular velocity of {item} in {frame}'
    elif isinstance(item, Vector) or item == 0:
        vector = Vector(0) if item == 0 else item
        what = f'the vector {item}'
    else:
        raise TypeError(f'items: {item!r} is not a Point, ReferenceFrame or '
                        f'Vector.')
    return _substitute(vector, replacements), what


class _Partials:
    """Partial velocities with respect to ``speeds`` (independent then
    dependent), computed once per point/frame and reused."""

    def __init__(self, frame, speeds, dependent, constraints, replacements):
        self.frame = frame
        self.independent = speeds
        self.dependent = dependent
        self.speeds = speeds + dependent
        self.replacements = replacements
        self._cache = {}
        self.A = _constraint_matrix(constraints, speeds, dependent,
                                    replacements)

    def of(self, item):
        key = item
        if key not in self._cache:
            vector, what = _velocity_of(item, self.frame, self.replacements)
            self._cache[key] = _linear_partials(vector, self.speeds, what)
        return self._cache[key]

    def reduce(self, column):
        """Holonomic column over all speeds -> column over the independent
        speeds: F~ = F_ind + A^T F_dep."""
        if not self.dependent:
            return column
        p = len(self.independent)
        return column[:p, :] + self.A.T * column[p:, :]


def _constraint_matrix(constraints, independent, dependent, replacements):
    """Return A in u_dep = A u_ind + B from velocity constraints that are
    linear in the speeds (KanesMethod's ``_Ars``)."""
    if not dependent and not constraints:
        return None
    if constraints is None or isinstance(constraints, (sm.Basic, str)) and \
            not isinstance(constraints, sm.MatrixBase):
        raise TypeError('velocity_constraints must be an iterable of '
                        'expressions that vanish, one per dependent speed.')
    constraints = sm.Matrix(list(constraints))
    if len(constraints) != len(dependent):
        raise ValueError(
            f'velocity_constraints has {len(constraints)} entries but there '
            f'are {len(dependent)} dependent_speeds; they must be equal.')
    if replacements:
        constraints = constraints.xreplace(replacements)
    speeds = list(independent) + list(dependent)
    jac = constraints.jacobian(speeds)
    if jac.has(*speeds):
        raise ValueError('velocity_constraints must be linear in the speeds.')
    p = len(independent)
    B_ind, B_dep = jac[:, :p], jac[:, p:]
    return -B_dep.LUsolve(B_ind)


def _setup(speeds, frame, dependent_speeds, velocity_constraints,
           kinematic_substitutions):
    _check_type('frame', frame, ReferenceFrame)
    speeds = _speed_list('speeds', speeds)
    dependent = _speed_list('dependent_speeds', dependent_speeds,
                            allow_empty=True)
    if set(speeds) & set(dependent):
        raise ValueError('a speed cannot be both independent (speeds) and '
                         'in dependent_speeds.')
    if velocity_constraints is not None and not dependent:
        raise ValueError('velocity_constraints were given without '
                         'dependent_speeds.')
    replacements = _kinematic_map(kinematic_substitutions)
    return _Partials(frame, speeds, dependent, velocity_constraints,
                     replacements)


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


def _measure_in(vector, frame):
    """Return the 3x1 measure numbers of ``vector`` in ``frame`` (the sum of
    ``frame.dcm(F) * m`` over its components, without matrix overhead)."""
    total = [sm.S.Zero] * 3
    for measure, component_frame in vector.args:
        if component_frame == frame:
            for i in range(3):
                total[i] += measure[i]
            continue
        dcm = frame.dcm(component_frame)
        for i in range(3):
            total[i] += sm.Add(*[dcm[i, j] * measure[j] for j in range(3)
                                 if measure[j] != 0 and dcm[i, j] != 0])
    return total


class _Expressed:
    """A load vector and its measure numbers in every frame it has been
    dotted with (each frame's expression is computed once and reused)."""

    def __init__(self, vector):
        self.vector = vector
        self._cache = {}

    def dot(self, other):
        """``other . vector`` taken component frame by component frame."""
        terms = []
        for measure, component_frame in other.args:
            expressed = self._cache.get(component_frame)
            if expressed is None:
                expressed = _measure_in(self.vector, component_frame)
                self._cache[component_frame] = expressed
            terms.extend(measure[i] * expressed[i] for i in range(3)
                         if measure[i] != 0 and expressed[i] != 0)
        return sm.Add(*terms)


def _project(partials, groups):
    """Return the column sum over (item, vector) of v_r(item) . vector."""
    n = len(partials.speeds)
    column = [[] for _ in range(n)]
    for item, vector in groups:
        vector = _substitute(vector, partials.replacements)
        if vector == 0:
            continue
        expressed = _Expressed(vector)
        for r, partial in enumerate(partials.of(item)):
            if partial != 0:
                column[r].append(expressed.dot(partial))
    return partials.reduce(sm.Matrix([sm.Add(*terms) for terms in column]))


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
    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, 1985, sec. 2.14 and 4.4.
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
    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, 1985, sec. 4.1, eq. (2).
    """
    partials = _setup(speeds, frame, dependent_speeds, velocity_constraints,
                      kinematic_substitutions)
    forces, torques = _group_loads(loads)
    return _project(partials, list(forces.items()) + list(torques.items()))


def _explicit_accelerations(point, frame):
    """Return the acceleration of ``point`` and the angular acceleration of
    its frame set explicitly with ``set_acc``/``set_ang_acc``, or None.

    SymPy keeps these in the private dicts ``Point._acc_dict`` and
    ``ReferenceFrame._ang_acc_dict``; ``Point.acc`` and
    ``ReferenceFrame.ang_acc_in`` otherwise differentiate the velocity. This
    is the only place the private attributes are read.
    """
    return getattr(point, '_acc_dict', {}).get(frame)


def _explicit_angular_acceleration(body_frame, frame):
    """See :func:`_explicit_accelerations` (reads ``_ang_acc_dict``)."""
    return getattr(body_frame, '_ang_acc_dict', {}).get(frame)


class _Kinematics:
    """Time derivatives in ``frame`` with the angular velocity of every
    component frame expressed in that frame once (cached)."""

    def __init__(self, frame, replacements):
        self.frame = frame
        self.replacements = replacements
        self._omega = {}

    def omega(self, component_frame):
        """^N omega^F as measure numbers in F (kinematic substitutions
        applied)."""
        if component_frame not in self._omega:
            omega = _substitute(component_frame.ang_vel_in(self.frame),
                                self.replacements)
            self._omega[component_frame] = sm.Matrix(
                _measure_in(omega, component_frame))
        return self._omega[component_frame]

    def dt(self, vector):
        """The time derivative of ``vector`` in ``frame`` (what
        ``Vector.dt`` computes: d/dt of each component's measure numbers
        plus omega^F x measure, here with omega^F expressed in F)."""
        if vector == 0:
            return Vector(0)
        if any(isinstance(symbol, CoordinateSym)
               for measure, _ in vector.args
               for symbol in measure.free_symbols):
            return _substitute(vector.dt(self.frame), self.replacements)
        t = dynamicsymbols._t
        components = []
        for measure, component_frame in vector.args:
            derivative = measure.diff(t)
            if component_frame != self.frame:
                omega = self.omega(component_frame)
                if any(omega):
                    derivative += omega.cross(measure)
            components.append((derivative, component_frame))
        return _substitute(Vector(components), self.replacements)

    def acceleration(self, point):
        acc = _explicit_accelerations(point, self.frame)
        if acc is None:
            vel = _substitute(point.vel(self.frame), self.replacements)
            return self.dt(vel)
        return _substitute(acc, self.replacements)

    def angular_acceleration(self, body_frame):
        alpha = _explicit_angular_acceleration(body_frame, self.frame)
        if alpha is None:
            return self.dt(self.omega_vector(body_frame))
        return _substitute(alpha, self.replacements)

    def omega_vector(self, body_frame):
        return _substitute(body_frame.ang_vel_in(self.frame),
                           self.replacements)


def _inertia_loads(body, kinematics):
    """Return [(mass center, R*), (body frame, T*)] of a Particle or
    RigidBody with R* = -m a and T* = -(alpha . I + omega x I . omega); T*
    is formed from measure numbers in the body frame."""
    if not isinstance(body, (Particle, RigidBody)):
        raise TypeError(f'bodies: {body!r} is not a Particle or RigidBody.')
    point = body.masscenter
    loads = [(point, -body.mass * kinematics.acceleration(point))]
    if isinstance(body, RigidBody):
        B = body.frame
        F = _expression_frame(body)
        omega = sm.Matrix(_measure_in(kinematics.omega_vector(B), F))
        alpha = sm.Matrix(_measure_in(kinematics.angular_acceleration(B), F))
        inertia = body.central_inertia.to_matrix(F)
        torque = -(inertia.T * alpha + omega.cross(inertia * omega))
        if F != B:
            # d(I . omega)/dt in N = I . alpha + (dI/dt in B) . omega
            # + omega x I . omega; the middle term vanishes when I is
            # constant in B (as KanesMethod, which also keeps it).
            rate = _substitute(body.central_inertia.dt(B),
                               kinematics.replacements)
            if rate != 0:
                torque -= rate.to_matrix(F) * omega
        loads.append((B, Vector([(torque, F)])))
    return loads


def _expression_frame(body):
    """The frame whose measure numbers express the inertia torque of the
    rigid ``body``: its own frame when it is oriented relative to the frame
    its central inertia is given in, else that frame.

    A body frame may have only an angular velocity and no orientation (the
    wheels of SymPy's Whipple bicycle: ``WR.set_ang_vel(C, u3*C.y)``, their
    spin angle ignorable); ``KanesMethod`` accepts it, working with vectors
    and dyadics, which need angular velocities only. Measure numbers in the
    inertia's frame need no orientation of the body frame either.
    """
    B = body.frame
    frames = [B] + [frame for _, first, second in body.central_inertia.args
                    for frame in (first.args[0][1], second.args[0][1])]
    for frame in dict.fromkeys(frames):
        try:
            body.central_inertia.to_matrix(frame)
        except ValueError:         # no orientation path
            continue
        return frame
    raise ValueError(
        f'bodies: the central inertia of {body} is given in frames that '
        f'are not oriented relative to each other.')


def generalized_inertia_forces(bodies, speeds, frame, *,
                               dependent_speeds=None,
                               velocity_constraints=None,
                               kinematic_substitutions=None):
    r"""Return the generalized inertia forces :math:`F_r^*` of ``bodies``.

    Explanation
    ===========

    For a particle of mass m, :math:`(F_r^*)_P = \bar{v}^P_r \cdot
    \bar{R}^*` with :math:`\bar{R}^* = -m\,{}^N\bar{a}^P`; for a rigid body
    B with mass center :math:`B_o` and central inertia dyadic
    :math:`\breve{I}` [Moore]_:

    .. math::

       (F_r^*)_B = \bar{v}^{B_o}_r \cdot \bar{R}^*
                 + \bar{\omega}^B_r \cdot \bar{T}^*, \quad
       \bar{T}^* = -\left(\bar{\alpha}^B \cdot \breve{I}
                 + \bar{\omega}^B \times \breve{I} \cdot \bar{\omega}^B
                 \right)

    Masses and central inertias are taken as constant. The accelerations
    come from ``Point.acc`` and ``ReferenceFrame.ang_acc_in``; with
    ``kinematic_substitutions`` their :math:`\ddot{q}` and :math:`\dot{q}`
    are replaced by expressions in :math:`u` and :math:`\dot{u}`. With
    dependent speeds :math:`\tilde{F}_r^* = F_r^* + \sum_s F_s^* A_{sr}` is
    returned [Kane1985]_ (the dependent speeds and their derivatives are
    kept, as in ``KanesMethod``).

    Examples
    ========

    A particle of mass m on a string of length L swinging about O.

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import (Particle, Point, ReferenceFrame,
    ...                                      dynamicsymbols)
    >>> from sympy.physics.vector import vprint
    >>> from sympy_loads import generalized_inertia_forces
    >>> q, u = dynamicsymbols('q, u')
    >>> m, L = symbols('m, L')
    >>> N, A = ReferenceFrame('N'), ReferenceFrame('A')
    >>> A.orient_axis(N, q, N.z)
    >>> A.set_ang_vel(N, u*N.z)
    >>> O = Point('O')
    >>> O.set_vel(N, 0)
    >>> P = O.locatenew('P', -L*A.y)
    >>> _ = P.v2pt_theory(O, N, A)
    >>> vprint(generalized_inertia_forces([Particle('P', P, m)], [u], N))
    Matrix([[-L**2*m*u']])

    Parameters
    ==========

    bodies : iterable of Particle or RigidBody
        The bodies of the system.
    speeds, frame, dependent_speeds, velocity_constraints, kinematic_substitutions
        As in :func:`generalized_active_forces`.

    Returns
    =======

    Matrix
        Column of :math:`F_r^*` (or :math:`\tilde{F}_r^*`), not simplified.

    Raises
    ======

    TypeError
        If an item of ``bodies`` is not a Particle or RigidBody.
    ValueError
        As in :func:`generalized_active_forces`.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Generalized Forces",
       section "Generalized Inertia Forces".
    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, 1985, sec. 4.11.
    """
    partials = _setup(speeds, frame, dependent_speeds, velocity_constraints,
                      kinematic_substitutions)
    if isinstance(bodies, (Particle, RigidBody)):
        bodies = [bodies]
    _check_type('bodies', bodies, Iterable, 'iterable of Particle or '
                'RigidBody')
    kinematics = _Kinematics(frame, partials.replacements)
    groups = []
    for body in bodies:
        groups.extend(_inertia_loads(body, kinematics))
    return _project(partials, groups)


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
    .. [Moore] J. K. Moore, *Learn Multibody Dynamics*, "Generalized
       Forces".
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
