r"""The algebra of force systems: resultant, moment, couples, replacement
and equivalence.

A *load* here is anything SymPy Mechanics accepts as one: a ``Force`` (a
vector bound to a line of action through a point), a ``Torque`` (the torque
of a couple acting on a frame), the tuples ``(Point, Vector)`` and
``(ReferenceFrame, Vector)``, or an object with a ``to_loads()`` method such
as a SymPy actuator. Every function accepts a single load or an iterable of
loads.

References
==========

.. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
   Torque": sections "Moment", "Couple", "Equivalence & Replacement".
   https://moorepants.github.io/learn-multibody-dynamics/
.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, McGraw-Hill, 1985, sec. 1.5-1.8 (pg. 90-95) and sec. 4.1.
   https://hdl.handle.net/1813/638
"""

from sympy import Matrix
from sympy.physics.mechanics import (Force, Point, ReferenceFrame, RigidBody,
                                     Torque)
from sympy.physics.vector import Vector

from ._utils import _as_loads, _check_type, _is_zero_vector

__all__ = ['resultant', 'moment', 'Couple', 'Replacement', 'are_equivalent']


def resultant(loads):
    r"""Return the resultant (vector sum) of the forces in ``loads``.

    Explanation
    ===========

    The resultant of a set S of bound vectors is
    :math:`\bar{R}^S = \sum_i \bar{F}_i` [Moore]_. Torques of couples have a
    zero resultant and add nothing.

    Examples
    ========

    >>> from sympy.physics.mechanics import Point, ReferenceFrame
    >>> from sympy_loads import resultant
    >>> N = ReferenceFrame('N')
    >>> O = Point('O')
    >>> P1, P2 = O.locatenew('P1', 2*N.x), O.locatenew('P2', 3*N.x)
    >>> resultant([(P1, 2*N.x + 3*N.y), (P2, -4*N.x + 5*N.y), (N, 7*N.z)])
    - 2*N.x + 8*N.y

    Parameters
    ==========

    loads : load or iterable of loads
        Forces, torques, ``(Point, Vector)``/``(ReferenceFrame, Vector)``
        tuples or objects with ``to_loads()``.

    Returns
    =======

    Vector

    Raises
    ======

    TypeError
        If an item of ``loads`` is not a load.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Moment".
       https://moorepants.github.io/learn-multibody-dynamics/
    """
    total = Vector(0)
    for load in _as_loads(loads):
        if isinstance(load, Force):
            total += load.vector
    return total


def moment(loads, point):
    r"""Return the moment of ``loads`` about ``point``.

    Explanation
    ===========

    :math:`\bar{M}^{S/P} = \sum_i \bar{r}^{L_i/P} \times \bar{F}_i +
    \sum_j \bar{T}_j`: the moments of the bound forces about ``P`` plus the
    torques of the couples, which are the same about every point [Moore]_.
    Each force's point must have a position relative to ``point``
    (``Point.pos_from``).

    Examples
    ========

    Moore's example ("Force, Moment, and Torque"): two bound forces and
    their moment about the point P at :math:`-5 \hat{n}_x`.

    >>> from sympy.physics.mechanics import Point, ReferenceFrame
    >>> from sympy_loads import moment
    >>> N = ReferenceFrame('N')
    >>> O = Point('O')
    >>> P1, P2 = O.locatenew('P1', 2*N.x), O.locatenew('P2', 3*N.x)
    >>> P = O.locatenew('P', -5*N.x)
    >>> moment([(P1, 2*N.x + 3*N.y), (P2, -4*N.x + 5*N.y)], P)
    61*N.z

    Parameters
    ==========

    loads : load or iterable of loads
        See :func:`resultant`.
    point : Point
        The point about which moments are taken.

    Returns
    =======

    Vector

    Raises
    ======

    TypeError
        If ``point`` is not a Point or an item of ``loads`` is not a load.
    ValueError
        If a force's point has no known position relative to ``point``.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Moment".
       https://moorepants.github.io/learn-multibody-dynamics/
    """
    _check_type('point', point, Point)
    total = Vector(0)
    for load in _as_loads(loads):
        if isinstance(load, Torque):
            total += load.vector
            continue
        try:
            r = load.point.pos_from(point)
        except ValueError:
            raise ValueError(
                f'moment: the position of the force point {load.point} '
                f'relative to {point} is not known; connect the points with '
                f'set_pos or locatenew.') from None
        total += r.cross(load.vector)
    return total


class Couple(Torque):
    r"""The torque of a couple acting on a reference frame.

    Explanation
    ===========

    A couple is a set of forces whose resultant is zero; its torque is its
    moment about any point, the same about all points [Moore]_. A
    ``Couple`` is a SymPy :class:`~sympy.physics.mechanics.Torque` and can be
    used wherever one is accepted (``KanesMethod``, ``System``).

    Examples
    ========

    >>> from sympy.physics.mechanics import Point, ReferenceFrame
    >>> from sympy_loads import Couple
    >>> N = ReferenceFrame('N')
    >>> Couple(N, 3*N.z)
    Couple(N, 3*N.z)

    A simple couple: two opposite forces 2 apart along :math:`\hat{n}_x`.

    >>> O = Point('O')
    >>> A, B = O.locatenew('A', N.x), O.locatenew('B', -N.x)
    >>> Couple.from_forces(N, [(A, 5*N.y), (B, -5*N.y)])
    Couple(N, 10*N.z)

    Parameters
    ==========

    frame : ReferenceFrame or RigidBody
        The frame (or the body whose frame) the couple acts on.
    torque : Vector
        The torque of the couple.

    Raises
    ======

    TypeError
        If ``frame`` is not a frame/rigid body or ``torque`` not a Vector.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Couple".
       https://moorepants.github.io/learn-multibody-dynamics/
    """

    def __new__(cls, frame, torque):
        _check_type('frame', frame, (ReferenceFrame, RigidBody),
                    'ReferenceFrame or RigidBody')
        if torque == 0:
            torque = Vector(0)
        _check_type('torque', torque, Vector)
        return super().__new__(cls, frame, torque)

    def __repr__(self):
        return f'{type(self).__name__}({self.frame}, {self.vector})'

    @classmethod
    def from_forces(cls, frame, forces):
        """Return the couple formed by ``forces``, whose resultant must be
        zero.

        Examples
        ========

        >>> from sympy.physics.mechanics import Point, ReferenceFrame
        >>> from sympy_loads import Couple
        >>> N = ReferenceFrame('N')
        >>> O = Point('O')
        >>> A = O.locatenew('A', N.y)
        >>> Couple.from_forces(N, [(O, N.x), (A, -N.x)])
        Couple(N, N.z)

        Parameters
        ==========

        frame : ReferenceFrame or RigidBody
            The frame the couple acts on.
        forces : iterable of loads
            Forces (and possibly torques) forming the couple.

        Raises
        ======

        ValueError
            If the resultant of ``forces`` is not zero (the message shows
            it) or ``forces`` is empty.
        """
        loads = _as_loads(forces, 'forces')
        if not loads:
            raise ValueError('forces must contain at least one load.')
        total = resultant(loads)
        if not _is_zero_vector(total):
            raise ValueError(
                f'forces do not form a couple: their resultant is {total}, '
                f'not zero.')
        points = [load.point for load in loads if isinstance(load, Force)]
        about = points[0] if points else Point('_couple_origin')
        return cls(frame, moment(loads, about))


class Replacement:
    r"""The replacement of a set of loads by a force at a point plus a
    couple.

    Explanation
    ===========

    Any set S of loads is equivalent to the resultant
    :math:`\bar{R}^S` bound to a line of action through a chosen point P
    together with a couple whose torque is the moment
    :math:`\bar{M}^{S/P}` [Moore]_ [Kane1985]_:

    .. math::

       \bar{R} = \bar{R}^S = \sum_i \bar{F}_i \ \text{(bound to P)},
       \qquad
       \bar{T} = \bar{M}^{S/P} = \sum_i \bar{r}^{L_i/P} \times \bar{F}_i
                 + \sum_j \bar{T}_j

    (:math:`\bar{F}_i` the forces of S with points :math:`L_i` on their
    lines of action, :math:`\bar{T}_j` the torques of its couples). Kane's
    generalized active force of a rigid body uses exactly this pair:
    :math:`(F_r)_B = \bar{\omega}_r \cdot \bar{T} + \bar{v}_r \cdot \bar{R}`
    [Kane1985]_.

    Examples
    ========

    >>> from sympy.physics.mechanics import Point, ReferenceFrame
    >>> from sympy_loads import Replacement
    >>> N = ReferenceFrame('N')
    >>> O = Point('O')
    >>> P1, P2 = O.locatenew('P1', 2*N.x), O.locatenew('P2', 3*N.x)
    >>> r = Replacement([(P1, 2*N.x + 3*N.y), (P2, -4*N.x + 5*N.y)], O, N)
    >>> r.force
    Force(point=O, force=- 2*N.x + 8*N.y)
    >>> r.torque
    Torque(frame=N, torque=21*N.z)
    >>> r.to_matrix(N, N).T
    Matrix([[-2, 8, 0, 0, 0, 21]])

    Parameters
    ==========

    loads : load or iterable of loads
        The set S to replace (see :func:`resultant`).
    point : Point
        The point P the resultant is bound to, e.g. a body's mass center or
        local origin.
    frame : ReferenceFrame or RigidBody
        The frame (body) the couple acts on.

    Raises
    ======

    TypeError
        If an argument has the wrong type.
    ValueError
        If a force's point has no known position relative to ``point``.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Equivalence & Replacement".
       https://moorepants.github.io/learn-multibody-dynamics/
    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, 1985, pg. 95 and sec. 4.1, eq. (2).
       https://hdl.handle.net/1813/638
    .. [Nikravesh] Course notes "Three-Dimensional Generalized Forces"
       (generalized force on a body about its local origin).
    """

    def __init__(self, loads, point, frame):
        _check_type('point', point, Point)
        if hasattr(frame, 'frame') and not isinstance(frame, ReferenceFrame):
            frame = frame.frame
        _check_type('frame', frame, ReferenceFrame,
                    'ReferenceFrame or RigidBody')
        loads = tuple(_as_loads(loads))
        self._loads = loads
        self._point = point
        self._frame = frame
        self._force = Force(point, resultant(loads))
        self._torque = Torque(frame, moment(loads, point))

    @property
    def loads(self):
        """The replaced loads, as a tuple of ``Force``/``Torque``."""
        return self._loads

    @property
    def point(self):
        """The point the resultant is bound to."""
        return self._point

    @property
    def frame(self):
        """The frame the couple acts on."""
        return self._frame

    @property
    def force(self):
        """The resultant as a ``Force`` bound to :attr:`point`."""
        return self._force

    @property
    def torque(self):
        """The couple's torque (the moment about :attr:`point`) as a
        ``Torque`` on :attr:`frame`."""
        return self._torque

    def __repr__(self):
        return (f'{type(self).__name__}({list(self.loads)}, {self.point}, '
                f'{self.frame})')

    def to_loads(self):
        """Return ``[force, torque]``, ready for ``KanesMethod``/``System``.

        Examples
        ========

        >>> from sympy.physics.mechanics import Point, ReferenceFrame
        >>> from sympy_loads import Replacement
        >>> N = ReferenceFrame('N')
        >>> O = Point('O')
        >>> Replacement([(O.locatenew('A', N.x), N.y)], O, N).to_loads()
        [Force(point=O, force=N.y), Torque(frame=N, torque=N.z)]
        """
        return [self.force, self.torque]

    def to_matrix(self, force_frame, torque_frame=None):
        r"""Return the 6x1 generalized force
        :math:`\begin{bmatrix} \bar{R} \\ \bar{T} \end{bmatrix}` of the set
        about :attr:`point`.

        Explanation
        ===========

        In the body-coordinate formulation [Nikravesh]_ the generalized
        force on body i about its local origin is

        .. math::

           Q_i = \begin{bmatrix} \bar{F} \\ \bar{T}' \end{bmatrix}

        with the components of the force :math:`\bar{F}` along the global
        directions and those of the torque :math:`\bar{T}'` along the
        body's local directions. Pass the global frame as ``force_frame``
        and the body frame as ``torque_frame`` (the default,
        :attr:`frame`).

        Examples
        ========

        >>> from sympy import symbols
        >>> from sympy.physics.mechanics import Point, ReferenceFrame
        >>> from sympy_loads import Replacement
        >>> q = symbols('q')
        >>> N, B = ReferenceFrame('N'), ReferenceFrame('B')
        >>> B.orient_axis(N, q, N.z)
        >>> O = Point('O')
        >>> s = O.locatenew('S', B.x)
        >>> Replacement([(s, N.y)], O, B).to_matrix(N).T
        Matrix([[0, 1, 0, 0, 0, cos(q)]])

        Parameters
        ==========

        force_frame : ReferenceFrame
            Frame whose unit vectors give the force components (global).
        torque_frame : ReferenceFrame, optional
            Frame for the torque components; defaults to :attr:`frame`.

        Returns
        =======

        Matrix
            Shape (6, 1).

        References
        ==========

        .. [Nikravesh] Course notes "Three-Dimensional Generalized Forces",
           "Generalized force on body i about local origin".
        """
        _check_type('force_frame', force_frame, ReferenceFrame)
        if torque_frame is None:
            torque_frame = self.frame
        _check_type('torque_frame', torque_frame, ReferenceFrame)
        force = self.force.vector.to_matrix(force_frame)
        torque = self.torque.vector.to_matrix(torque_frame)
        return Matrix.vstack(force, torque).applyfunc(
            lambda expr: expr.simplify())


def are_equivalent(loads_a, loads_b, point=None):
    r"""Return True if two sets of loads are equivalent.

    Explanation
    ===========

    Two sets are equivalent (replacements of each other) when they have
    equal resultants and equal moments about any point [Moore]_. With equal
    resultants, equal moments about one point imply equal moments about
    every point
    (:math:`\bar{M}^P = \bar{M}^Q + \bar{r}^{Q/P} \times \bar{R}`), so one
    point is checked: ``point`` if given, else the first force's point.
    Equality is decided by simplifying the differences' components.

    Examples
    ========

    >>> from sympy.physics.mechanics import Point, ReferenceFrame
    >>> from sympy_loads import are_equivalent
    >>> N = ReferenceFrame('N')
    >>> O = Point('O')
    >>> A, B = O.locatenew('A', N.x), O.locatenew('B', -N.x)
    >>> are_equivalent([(A, N.y), (B, N.y)], [(O, 2*N.y)])
    True
    >>> are_equivalent([(A, N.y), (B, -N.y)], [(N, 2*N.z)])
    True
    >>> are_equivalent([(A, N.y)], [(B, N.y)])
    False

    Parameters
    ==========

    loads_a, loads_b : load or iterable of loads
        The two sets (see :func:`resultant`).
    point : Point, optional
        The point about which moments are compared.

    Returns
    =======

    bool

    Raises
    ======

    TypeError
        If an item is not a load or ``point`` is not a Point.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Equivalence & Replacement".
       https://moorepants.github.io/learn-multibody-dynamics/
    """
    loads_a = _as_loads(loads_a, 'loads_a')
    loads_b = _as_loads(loads_b, 'loads_b')
    if not _is_zero_vector(resultant(loads_a) - resultant(loads_b)):
        return False
    if point is None:
        points = [load.point for load in loads_a + loads_b
                  if isinstance(load, Force)]
        point = points[0] if points else Point('_equivalence_origin')
    _check_type('point', point, Point)
    return _is_zero_vector(moment(loads_a, point) - moment(loads_b, point))
