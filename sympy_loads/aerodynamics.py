r"""Quadratic aerodynamic drag on a point moving through air.

The drag force opposes the velocity of the aerodynamic center relative to
the air and grows with its square [Moore]_:

.. math::

   \bar{F} = -\tfrac{1}{2} \rho C_d A \, |\bar{v}_{rel}| \, \bar{v}_{rel},
   \qquad \bar{v}_{rel} = \bar{v}_P - \bar{v}_{wind}

The magnitude :math:`|\bar{v}_{rel}|` is written with
:class:`euclidean_norm`, a SymPy function equal to
:math:`\sqrt{\bar{v}_{rel} \cdot \bar{v}_{rel}}` whose derivative is written
so that it, too, evaluates to a finite number (zero) at rest. The force
itself is finite at rest with a plain square root as well (SymPy turns the
textbook's :math:`\operatorname{normalize}(\bar{v})\, (\bar{v} \cdot
\bar{v})` into :math:`\sqrt{\bar{v} \cdot \bar{v}}\, \bar{v}`), but the
symbolic derivative of that form contains :math:`v_i v_j / \sqrt{\bar{v}
\cdot \bar{v}}`, which is 0/0 at rest, so a linearization about rest would
evaluate to NaN.

References
==========

.. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
   Torque", section "Aerodynamic Drag".
   https://moorepants.github.io/learn-multibody-dynamics/
"""

from sympy.physics.mechanics import Force, Point, ReferenceFrame
from sympy.physics.mechanics.actuator import ActuatorBase
from sympy.physics.vector import Vector

from ._utils import (_check_type, _set_once, _sympify_scalar,
                     euclidean_norm)

__all__ = ['AerodynamicDrag', 'euclidean_norm']


class AerodynamicDrag(ActuatorBase):
    r"""Quadratic aerodynamic drag acting at the aerodynamic center of a
    body moving through air.

    Explanation
    ===========

    The force on ``point`` opposes its velocity relative to the air and has
    magnitude :math:`\tfrac{1}{2} \rho C_d A v_{rel}^2` [Moore]_:

    .. math::

       \bar{F} = -\tfrac{1}{2} \rho C_d A \, |\bar{v}_{rel}| \,
       \bar{v}_{rel}, \qquad \bar{v}_{rel} = \bar{v}_P - \bar{v}_{wind}

    Sign convention::

               v_rel
        F <-----o----->        (F is antiparallel to v_rel)
                P

    :math:`\bar{v}_P` is the velocity of ``point`` in ``frame`` and
    :math:`\bar{v}_{wind}` the velocity of the air in ``frame`` (``wind``,
    zero for still air; it may depend on time). :math:`|\bar{v}_{rel}|` is
    :class:`euclidean_norm` of the components of :math:`\bar{v}_{rel}` in
    ``frame``, that is :math:`\sqrt{\bar{v}_{rel} \cdot \bar{v}_{rel}}`, so
    the force is continuous with a continuous derivative and evaluates to
    exactly zero, not NaN, at :math:`\bar{v}_{rel} = 0`; its derivatives
    (time derivative, linearization about rest) are finite there too. The
    power of the force relative to the air, :math:`\bar{F} \cdot
    \bar{v}_{rel} = -\tfrac{1}{2} \rho C_d A |\bar{v}_{rel}|^3`, is never
    positive. The reaction on the air is not modelled.
    Units: density [kg/m^3], area [m^2], speeds [m/s], force [N].

    Examples
    ========

    The textbook's point P moving in still air with velocity u_x n_x + u_y n_y
    + u_z n_z; for motion along n_x only the force reduces to
    :math:`-A C_d \rho u_x |u_x| / 2` along n_x:

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import (Point, ReferenceFrame,
    ...                                      dynamicsymbols)
    >>> from sympy_loads import AerodynamicDrag
    >>> A, Cd, rho = symbols('A, C_d, rho')
    >>> ux, uy, uz = dynamicsymbols('u_x, u_y, u_z', real=True)
    >>> N = ReferenceFrame('N')
    >>> P = Point('P')
    >>> P.set_vel(N, ux*N.x + uy*N.y + uz*N.z)
    >>> drag = AerodynamicDrag(P, N, density=rho, drag_coefficient=Cd, area=A)
    >>> drag
    AerodynamicDrag(P, N, density=rho, drag_coefficient=C_d, area=A)
    >>> drag.force.xreplace({uy: 0, uz: 0})
    - A*C_d*rho*u_x(t)*Abs(u_x(t))/2*N.x

    ``to_loads()`` gives the SymPy ``Force`` for ``KanesMethod`` or
    ``System``:

    >>> drag.to_loads()[0].point
    P

    With a wind w n_x the force vanishes when P moves with the air:

    >>> w = dynamicsymbols('w', real=True)
    >>> gust = AerodynamicDrag(P, N, density=rho, drag_coefficient=Cd,
    ...                        area=A, wind=w*N.x)
    >>> gust.force.xreplace({ux: w, uy: 0, uz: 0})
    0

    Parameters
    ==========

    point : Point
        The aerodynamic center; its velocity in ``frame`` must be known when
        the force is computed.
    frame : ReferenceFrame
        The frame in which the velocity of ``point`` and ``wind`` are taken
        (the frame the air is at rest in when ``wind`` is None).
    density : Expr
        Air density rho (nonnegative; may vary with time).
    drag_coefficient : Expr
        Drag coefficient C_d (nonnegative; may vary with time or state).
    area : Expr
        Frontal (reference) area A (nonnegative; may vary).
    wind : Vector, optional
        Velocity of the air in ``frame``; None (default) means still air.

    Raises
    ======

    TypeError
        If ``point`` is not a Point, ``frame`` not a ReferenceFrame, a
        parameter is not a scalar expression or ``wind`` not a Vector.
    ValueError
        If ``density``, ``drag_coefficient`` or ``area`` is a negative
        number, or the velocity of ``point`` in ``frame`` is unknown when
        the force is computed.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Aerodynamic Drag".
       https://moorepants.github.io/learn-multibody-dynamics/
    """

    def __init__(self, point, frame, *, density, drag_coefficient, area,
                 wind=None):
        self.point = point
        self.frame = frame
        self.density = density
        self.drag_coefficient = drag_coefficient
        self.area = area
        self.wind = wind

    @property
    def point(self):
        """The aerodynamic center (``Point``) the force acts at."""
        return self._point

    @point.setter
    def point(self, point):
        _set_once(self, 'point', _check_type('point', point, Point))

    @property
    def frame(self):
        """The ``ReferenceFrame`` velocities are taken in."""
        return self._frame

    @frame.setter
    def frame(self, frame):
        _set_once(self, 'frame', _check_type('frame', frame, ReferenceFrame))

    @property
    def density(self):
        """Air density rho."""
        return self._density

    @density.setter
    def density(self, density):
        _set_once(self, 'density',
                  _sympify_scalar('density', density, nonnegative=True))

    @property
    def drag_coefficient(self):
        """Drag coefficient C_d."""
        return self._drag_coefficient

    @drag_coefficient.setter
    def drag_coefficient(self, drag_coefficient):
        _set_once(self, 'drag_coefficient',
                  _sympify_scalar('drag_coefficient', drag_coefficient,
                                  nonnegative=True))

    @property
    def area(self):
        """Frontal (reference) area A."""
        return self._area

    @area.setter
    def area(self, area):
        _set_once(self, 'area', _sympify_scalar('area', area,
                                                nonnegative=True))

    @property
    def wind(self):
        """Velocity of the air in ``frame`` (None for still air)."""
        return self._wind

    @wind.setter
    def wind(self, wind):
        if wind is not None and not isinstance(wind, Vector):
            if wind == 0:
                wind = Vector(0)
            else:
                raise TypeError(
                    f'wind must be a sympy.physics.vector.Vector (the air '
                    f'velocity in the frame) or None, not '
                    f'{type(wind).__name__} {wind!r}.')
        _set_once(self, 'wind', wind)

    @property
    def relative_velocity(self):
        r"""Velocity of ``point`` relative to the air,
        :math:`\bar{v}_P - \bar{v}_{wind}`."""
        try:
            velocity = self.point.vel(self.frame)
        except ValueError as error:
            raise ValueError(
                f'AerodynamicDrag: the velocity of {self.point} in '
                f'{self.frame} is not known ({error}); set it with set_vel '
                f'or define its position so SymPy can compute it.') from None
        if self.wind is not None:
            velocity = velocity - self.wind
        return velocity

    @property
    def airspeed(self):
        r"""The airspeed, the :class:`euclidean_norm` of the components of
        the relative velocity in ``frame``, :math:`|\bar{v}_{rel}|`."""
        components = self.relative_velocity.to_matrix(self.frame)
        return euclidean_norm(*components)

    @property
    def force(self):
        r"""The drag force vector,
        :math:`-\tfrac{1}{2} \rho C_d A |\bar{v}_{rel}| \bar{v}_{rel}`."""
        factor = self.density * self.drag_coefficient * self.area / 2
        return -factor * self.airspeed * self.relative_velocity

    def to_loads(self):
        """Return ``[Force(point, force)]`` for ``KanesMethod``/``System``.

        Examples
        ========

        >>> from sympy import symbols
        >>> from sympy.physics.mechanics import (Point, ReferenceFrame,
        ...                                      dynamicsymbols)
        >>> from sympy_loads import AerodynamicDrag
        >>> u = dynamicsymbols('u', real=True)
        >>> N, P = ReferenceFrame('N'), Point('P')
        >>> P.set_vel(N, u*N.y)
        >>> AerodynamicDrag(P, N, density=1, drag_coefficient=2,
        ...                 area=3).to_loads()
        [Force(point=P, force=- 3*u(t)*Abs(u(t))*N.y)]
        """
        return [Force(self.point, self.force)]

    def __repr__(self):
        text = (f'{type(self).__name__}({self.point}, {self.frame}, '
                f'density={self.density}, '
                f'drag_coefficient={self.drag_coefficient}, '
                f'area={self.area}')
        if self.wind is not None:
            text += f', wind={self.wind}'
        return text + ')'
