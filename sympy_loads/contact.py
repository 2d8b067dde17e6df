r"""Hunt-Crossley contact: a compliant normal force with Coulomb friction.

A sphere (or a point, radius zero) centered at a point P touches a plane
or another sphere. The normal force grows with the penetration :math:`d` and
its rate :math:`\dot{d}` (Hunt and Crossley's nonlinear spring-damper
[Hunt1975]_, as in Moore's "Force, Moment, and Torque", section "Collision"
[Moore]_):

.. math::

   f = k d^n + c d^n \dot{d} \qquad (n = 3/2: \text{Hertz})

and a Coulomb friction force of magnitude :math:`\mu f` opposes the slip
velocity in the tangent plane. The damping :math:`c` follows from a
coefficient of restitution :math:`e` and the impact speed :math:`v_0`
through one of the models of :func:`damping_from_restitution`.

References
==========

.. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
   Torque", section "Collision".
   https://moorepants.github.io/learn-multibody-dynamics/
.. [Hunt1975] K. H. Hunt, F. R. E. Crossley, "Coefficient of Restitution
   Interpreted as Damping in Vibroimpact", J. Appl. Mech. 42 (1975) 440-445.
   https://doi.org/10.1115/1.3423596
.. [Flores2022] P. Flores, "Contact mechanics for dynamical systems: a
   comprehensive review", Multibody Syst. Dyn. 54 (2022) 127-177.
   https://doi.org/10.1007/s11044-021-09803-y
"""

import sympy as sm
from sympy.physics.mechanics import (Force, Particle, Point,
                                     ReferenceFrame, RigidBody, Torque)
from sympy.physics.mechanics.actuator import ActuatorBase
from sympy.physics.vector import Vector

from ._contact_laws import DAMPING_MODELS as _DAMPING_MODELS
from ._contact_laws import (damping_from_restitution, effective_restitution,
                            hertz_stiffness, hysteresis_factor)
from ._utils import (_check_type, _is_unit_vector, _is_zero_vector,
                     _set_once, _sympify_scalar)
from .friction import (_check_sign_method, _sign_over_speed, _speed,
                       friction_magnitude)

__all__ = ['HuntCrossleyContact', 'damping_from_restitution',
           'hysteresis_factor', 'effective_restitution', 'hertz_stiffness',
           'DAMPING_MODELS']

# DAMPING_MODELS is defined in _contact_laws; it is bound here, below its
# doc comment, so that autodoc (sympy_loads.contact.DAMPING_MODELS) finds it.
#: Names accepted by :func:`damping_from_restitution` for ``model``, with
#: the range of restitution each model reproduces (see the tutorial
#: "Damping models").
DAMPING_MODELS = _DAMPING_MODELS


def _plane_point_velocity(plane_point, frame, center):
    """Velocity in ``frame`` of ``plane_point`` of a plane without
    ``plane_frame``, or the zero Vector if it is not known.

    It is the velocity set on ``plane_point``, else the one that follows
    from the nearest point (in the position tree) whose velocity is set,
    as SymPy's ``Point.vel`` finds it, except that the sphere's center
    ``center`` is never used: a plane point located from the center only
    (``P = O.locatenew('P', z*N.z)`` with ``O`` given no velocity) is the
    usual way to write a fixed plane, and SymPy would compute for it the
    velocity ``(u - z')*N.z``, nonzero in form. Unlike ``Point.vel`` this
    stores nothing on the point. SymPy 1.14 keeps the position tree and the
    velocities only in the private ``Point._pos_dict`` and ``_vel_dict``.
    """
    velocities = plane_point._vel_dict                 # private in SymPy 1.14
    if frame in velocities:
        return velocities[frame]
    visited, queue = {plane_point}, [plane_point]
    while queue:
        node = queue.pop(0)
        for neighbor in node._pos_dict:                 # private in SymPy 1.14
            if neighbor in visited or neighbor is center:
                continue
            visited.add(neighbor)
            known = neighbor._vel_dict.get(frame)       # private in SymPy 1.14
            if known is not None:
                try:
                    return known + plane_point.pos_from(neighbor).dt(frame)
                except ValueError:    # a position not expressible in frame
                    continue
            queue.append(neighbor)
    return Vector(0)


def _unrelated_normal(normal, frame, detail, plane_frame=False):
    """The ``ValueError`` of a ``normal`` that cannot be related to
    ``frame`` (or, where ``plane_frame``, to the plane's frame), naming
    the frames it is expressed in; ``detail`` says why."""
    names = sorted({part[1].name for part in normal.args})
    return ValueError(
        f'normal {normal} (in the frame{"s" if len(names) > 1 else ""} '
        f'{", ".join(names)}) cannot be related to the frame {frame.name}'
        + (' or to plane_frame' if plane_frame else '')
        + f': {detail} Give the normal in a frame oriented relative to '
        f'{frame.name}.')


def _check_oriented(normal, frame):
    """``ValueError`` naming the normal and its frames unless each frame
    ``normal`` is expressed in is oriented relative to ``frame`` (SymPy's
    own message says only which path is missing)."""
    for part in (part[1] for part in normal.args):
        try:
            part.dcm(frame)
        except ValueError as error:
            raise _unrelated_normal(normal, frame, (
                f'the frame {part.name} is not oriented relative to '
                f'{frame.name} ({error}).')) from None


def _check_plane(normal, frame, plane_frame):
    """Check a plane's ``normal`` (a unit Vector fixed in the plane) and
    ``plane_frame`` (None, a frame, a rigid body or a particle); return
    ``(stored, rotating)``: ``plane_frame`` as the contact keeps it (a
    frame, a Particle or None) and the frame the plane rotates with (None
    if it does not rotate)."""
    _check_type('normal', normal, Vector)
    if normal == Vector(0):
        raise ValueError('normal must be a unit Vector, not zero.')
    _check_oriented(normal, frame)
    if not _is_unit_vector(normal):
        raise ValueError(
            f'normal must be a unit Vector; {normal} has squared '
            f'magnitude {sm.simplify(normal.dot(normal))}.')
    if isinstance(plane_frame, Particle):
        # a translating plane: it takes the reaction, has no rotation
        stored, rotating = plane_frame, None
    else:
        stored = rotating = _frame_of('plane_frame', plane_frame)
    fixed_in = rotating or frame
    try:
        rate = normal.dt(fixed_in)
    except ValueError as error:      # SymPy's words on frames it cannot
        raise _unrelated_normal(normal, frame, error,    # relate
                                plane_frame is not None) from None
    if not _is_zero_vector(rate):
        raise ValueError(
            f'normal {normal} must be fixed in {fixed_in} (the frame the '
            f'plane is fixed in; pass plane_frame for a moving plane).')
    return stored, rotating


def _plane_velocity(contact, anchor, anchor_frame, reaction, frame, center):
    """Velocity in ``frame`` of the plane's material point at the point
    ``contact``: ``anchor`` is a point of the plane, fixed in
    ``anchor_frame`` (None if the plane does not rotate), and ``reaction``
    whether the plane is a body of the model (``plane_frame`` given)."""
    if reaction:
        velocity = anchor.vel(frame)
        if anchor_frame is not None:
            velocity = velocity + anchor_frame.ang_vel_in(frame).cross(
                contact.pos_from(anchor))
        return velocity
    # No plane_frame: the plane does not rotate (its normal is fixed in
    # frame) and takes no load, but its point may still move (a prescribed
    # motion); its material points then share that velocity.
    return _plane_point_velocity(anchor, frame, center)


def _frame_of(name, value):
    """Return the ReferenceFrame of a frame or rigid body (None stays)."""
    if value is None:
        return None
    _check_type(name, value, (ReferenceFrame, RigidBody),
                'ReferenceFrame or RigidBody')
    return value.frame if isinstance(value, RigidBody) else value


class HuntCrossleyContact(ActuatorBase):
    r"""Hunt-Crossley contact of a sphere (or point) with a plane or sphere.

    Explanation
    ===========

    A sphere of ``radius`` :math:`R` (zero: a point) centered at ``point``
    P meets a plane through ``plane_point`` O with unit ``normal``
    :math:`\hat{n}` pointing out of the plane, towards the free side. The
    gap between them (negative when penetrating) is

    .. math::

       h = \bar{r}^{P/O} \cdot \hat{n} - R

    and the contact location C is P projected on the plane.

    The penetration is exactly zero when separated, as in Moore's
    "Collision" section [Moore]_, which writes it :math:`(|h| - h)/2`; here
    it is

    .. math::

       d = \max(0, -h) \ge 0, \qquad
       \dot{d} = -(\bar{v}_{P^*} - \bar{v}_{C^*}) \cdot \hat{n}

    the same value, but non-negative in floating point too: once the
    equations are expanded and common subexpressions are taken out,
    :math:`|h|` and :math:`h` of the textbook's form are computed in
    different orders, their difference can come out as -2e-16 where the
    point is far from the plane, and :math:`d^{3/2}` of it is NaN. The
    maximum of 0 and a number is never negative, however that number is
    computed (SymEngine's compiled code and NumPy both take it as one
    operation).

    where :math:`\bar{v}_{P^*}`, :math:`\bar{v}_{C^*}` are the velocities
    in ``frame`` of the material points of the sphere and of the plane's
    body at C (:math:`\dot{d} > 0` while compressing; the textbook's code
    cell puts the height rate :math:`\dot{z} = -\dot{d}` in the damping
    term, which would make the damper feed energy in). The normal force on
    the sphere, along +n, is Hunt and Crossley's [Hunt1975]_:

    .. math::

       f_{raw} = k d^n + c d^n \dot{d}, \qquad
       f = d^n \max(0, k + c \dot{d}) \ge 0

    clamped to be non-adhesive unless ``clamped=False`` (then
    :math:`f = f_{raw}`, the textbook's formula, which pulls during the end
    of a strongly damped rebound; the friction below still uses the clamped
    :math:`f`, since Coulomb's law needs a pressing normal force and
    :math:`\mu f_{raw} < 0` would drive the slip). A Coulomb friction force
    of magnitude :math:`\mu f` opposes the slip velocity
    :math:`\bar{v}_t = \bar{v} - (\bar{v} \cdot \hat{n}) \hat{n}`
    (:math:`\bar{v} = \bar{v}_{P^*} - \bar{v}_{C^*}`):

    .. math::

       \bar{F}_t = -\mu f \operatorname{sgn}(|\bar{v}_t|)
       \frac{\bar{v}_t}{|\bar{v}_t|}

    with :math:`\operatorname{sgn}` the exact or regularized sign of
    :func:`~sympy_loads.smooth_sign`. It is coded as
    :math:`\operatorname{sgn}(s) \bar{v}_t/(s + [s = 0])` with
    :math:`s = |\bar{v}_t|` (:math:`[\cdot]` is 1 when the condition holds,
    else 0), which equals the above for :math:`s > 0` and is
    exactly zero, not NaN, at zero slip; its derivatives are finite there
    too (no ``DiracDelta``), so a lambdified Jacobian or linearization
    evaluates at zero slip (see :func:`~sympy_loads.sliding_friction_force`
    for the value at rest).

    ``to_loads()`` gives the force :math:`\bar{F} = f \hat{n} + \bar{F}_t`
    on ``point``; when ``sphere_frame`` is given the moment of
    :math:`\bar{F}` about P is added as a torque
    :math:`\bar{r}^{C/P} \times \bar{F}` on it (so the ball spins), and when
    the plane is fixed in a moving ``plane_frame`` (or body) the equal and
    opposite force :math:`-\bar{F}` acts on the plane's body at the contact
    point C. Action and reaction then share the line of action through C.
    A plane without ``plane_frame`` is fixed in ``frame`` and takes no
    load.

    :meth:`between_spheres` builds the contact of two spheres; the plane is
    then the tangent plane of the other sphere.

    Examples
    ========

    Moore's particle P above a fixed plane with normal n_z ("Collision"):

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import (Point, ReferenceFrame,
    ...                                      dynamicsymbols)
    >>> from sympy_loads import HuntCrossleyContact
    >>> N = ReferenceFrame('N')
    >>> x, y, z = dynamicsymbols('x y z', real=True)
    >>> ux, uy, uz = dynamicsymbols('u_x u_y u_z', real=True)
    >>> O = Point('O')
    >>> O.set_vel(N, 0)
    >>> P = O.locatenew('P', x*N.x + y*N.y + z*N.z)
    >>> P.set_vel(N, ux*N.x + uy*N.y + uz*N.z)
    >>> k, c = symbols('k c', positive=True)
    >>> contact = HuntCrossleyContact(P, O, N.z, N, stiffness=k, damping=c)
    >>> contact
    HuntCrossleyContact(P, O, N.z, N, stiffness=k, damping=c)
    >>> contact.penetration
    Max(0, -z(t))
    >>> contact.penetration_rate
    -u_z(t)

    Zero force above the plane; below it, while compressing
    (:math:`u_z < 0`), the textbook's spring-damper force along
    :math:`+\hat{n}_z`:

    >>> delta, w = symbols('delta w', positive=True)
    >>> contact.to_loads()[0].vector.subs(z, delta)
    0
    >>> contact.normal_force.subs({z: -delta, uz: -w}).simplify()
    delta**(3/2)*(c*w + k)

    Parameters
    ==========

    point : Point
        Center of the sphere; its velocity in ``frame`` must be known.
    plane_point : Point
        A point of the plane (fixed in ``plane_frame`` if given).
    normal : Vector
        Unit normal of the plane, pointing towards the free side, fixed in
        ``plane_frame`` (or ``frame``).
    frame : ReferenceFrame
        The frame in which velocities are taken (usually Newtonian).
    stiffness : sympifiable
        :math:`k \ge 0` (:math:`\mathrm{N/m}^n`); see
        :func:`hertz_stiffness`.
    damping : sympifiable, optional
        :math:`c \ge 0` (s/m); see :func:`damping_from_restitution`.
        Default 0.
    exponent : sympifiable, optional
        :math:`n > 0`; default 3/2 (Hertz).
    radius : sympifiable, optional
        Sphere radius :math:`R \ge 0`; default 0 (a point).
    friction_coefficient : sympifiable, optional
        Coulomb coefficient :math:`\mu \ge 0`; default 0 (frictionless).
    plane_frame : ReferenceFrame, RigidBody or Particle, optional
        The frame or body the plane is fixed in, when it moves; it then
        takes the reaction. A Particle means a plane translating with
        ``plane_point``. Default: fixed in ``frame``, no reaction.
    sphere_frame : ReferenceFrame or RigidBody, optional
        The frame or body the sphere is fixed in; its rotation enters the
        slip velocity and it takes the friction torque. Default: none (a
        particle; the force acts at its center).
    clamped : bool, optional
        True (default): the normal force is clamped to :math:`f \ge 0`.
        False:
        the textbook's raw formula (the friction magnitude still uses the clamped
        normal force).
    friction_regularization : sympifiable, optional
        Regularization speed :math:`\varepsilon \ge 0` of the sign of the
        slip; default 0
        (exact Coulomb).
    friction_sign_method : str, optional
        Smooth sign used when ``friction_regularization`` is not zero, one
        of ``'tanh'`` (default), ``'atan'``, ``'algebraic'``; see
        :func:`~sympy_loads.smooth_sign`.
    static_coefficient, stribeck_speed : sympifiable, optional
        Give both for Stribeck friction of magnitude
        :math:`\mu f + (\mu_s - \mu) f e^{-(s/v_s)^2}` at slip speed
        :math:`s`
        (:func:`~sympy_loads.friction_magnitude`); default: Coulomb.

    Raises
    ======

    TypeError
        If an argument has the wrong type.
    ValueError
        If a parameter has the wrong sign, ``normal`` is not a unit vector
        or is not fixed in the plane's frame, or ``friction_sign_method`` is
        unknown.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Collision".
       https://moorepants.github.io/learn-multibody-dynamics/
    .. [Hunt1975] K. H. Hunt, F. R. E. Crossley, "Coefficient of Restitution
       Interpreted as Damping in Vibroimpact", J. Appl. Mech. 42 (1975)
       440-445. https://doi.org/10.1115/1.3423596
    .. [Flores2022] P. Flores, "Contact mechanics for dynamical systems: a
       comprehensive review", Multibody Syst. Dyn. 54 (2022) 127-177.
       https://doi.org/10.1007/s11044-021-09803-y
    """

    def __init__(self, point, plane_point, normal, frame, *, stiffness,
                 damping=0, exponent=sm.Rational(3, 2), radius=0,
                 friction_coefficient=0, plane_frame=None, sphere_frame=None,
                 clamped=True, friction_regularization=0,
                 friction_sign_method='tanh', static_coefficient=None,
                 stribeck_speed=None):
        self._set_common(point, frame, stiffness, damping, exponent, radius,
                         friction_coefficient, sphere_frame, clamped,
                         friction_regularization, friction_sign_method,
                         static_coefficient, stribeck_speed)
        _set_once(self, 'plane_point', _check_type(
            'plane_point', plane_point, Point))
        stored, rotating = _check_plane(normal, self.frame, plane_frame)
        _set_once(self, 'normal', normal)
        _set_once(self, 'plane_frame', stored)
        self._kind = 'plane'
        self._other_point = None
        self._other_radius = None
        height = point.pos_from(plane_point).dot(normal)
        self._build(height, plane_point, rotating,
                    self.plane_frame is not None)

    @classmethod
    def between_spheres(cls, point, other_point, frame, *, radius,
                        other_radius, stiffness, damping=0,
                        exponent=sm.Rational(3, 2), friction_coefficient=0,
                        sphere_frame=None, other_sphere_frame=None,
                        clamped=True, friction_regularization=0,
                        friction_sign_method='tanh', static_coefficient=None,
                        stribeck_speed=None):
        r"""Contact of the sphere at ``point`` with one at ``other_point``.

        Explanation
        ===========

        The normal is :math:`\hat{n} = \bar{r}^{P/Q}/|\bar{r}^{P/Q}|` (from
        the other center Q to P), the gap
        :math:`h = |\bar{r}^{P/Q}| - R - R_{other}` and the contact point C
        lies on the other sphere's surface,
        :math:`\bar{r}^{C/Q} = R_{other} \hat{n}`; otherwise the force law
        is that of the class. The other sphere always takes the reaction
        :math:`-\bar{F}` at C. Coincident centers (a penetration equal to
        :math:`R + R_{other}`) leave the normal undefined and are outside
        the model.

        Examples
        ========

        >>> from sympy import symbols
        >>> from sympy.physics.mechanics import (Point, ReferenceFrame,
        ...                                      dynamicsymbols)
        >>> from sympy_loads import HuntCrossleyContact
        >>> N = ReferenceFrame('N')
        >>> x, u = dynamicsymbols('x u', real=True)
        >>> Q = Point('Q')
        >>> Q.set_vel(N, 0)
        >>> P = Q.locatenew('P', x*N.x)
        >>> P.set_vel(N, u*N.x)
        >>> c = HuntCrossleyContact.between_spheres(
        ...     P, Q, N, radius=1, other_radius=2, stiffness=10)
        >>> c
        HuntCrossleyContact.between_spheres(P, Q, N, radius=1, other_radius=2, stiffness=10)
        >>> c.penetration.subs(x, 2.5)
        0.500000000000000
        >>> [load.vector.subs(x, 2.5).subs(u, 0) for load in c.to_loads()]
        [3.53553390593274*N.x, - 3.53553390593274*N.x]

        Parameters
        ==========

        point, other_point : Point
            The two centers; their velocities in ``frame`` must be known.
        frame : ReferenceFrame
            The frame in which velocities are taken.
        radius, other_radius : sympifiable
            The radii (nonnegative).
        sphere_frame, other_sphere_frame : ReferenceFrame or RigidBody
            Frames the spheres are fixed in (optional; their rotation
            enters the slip, and the friction torque acts on them).
        stiffness, damping, exponent, friction_coefficient : sympifiable
            As for the class; :func:`hertz_stiffness` takes
            ``other_radius`` for two spheres.
        clamped, friction_regularization, friction_sign_method
            As for the class.
        static_coefficient, stribeck_speed
            As for the class.

        References
        ==========

        .. [Flores2022] P. Flores, "Contact mechanics for dynamical
           systems: a comprehensive review", Multibody Syst. Dyn. 54
           (2022) 127-177. https://doi.org/10.1007/s11044-021-09803-y
        """
        self = cls.__new__(cls)
        self._set_common(point, frame, stiffness, damping, exponent, radius,
                         friction_coefficient, sphere_frame, clamped,
                         friction_regularization, friction_sign_method,
                         static_coefficient, stribeck_speed)
        _check_type('other_point', other_point, Point)
        self._other_point = other_point
        self._other_radius = _sympify_scalar('other_radius', other_radius,
                                             nonnegative=True)
        other_frame = _frame_of('other_sphere_frame', other_sphere_frame)
        _set_once(self, 'plane_frame', other_frame)
        r = point.pos_from(other_point)
        distance = sm.sqrt(r.dot(r))
        normal = r / distance
        _set_once(self, 'normal', normal)
        _set_once(self, 'plane_point', other_point.locatenew(
            f'{other_point.name}_surface', self._other_radius * normal))
        self._kind = 'spheres'
        self._build(distance - self._other_radius, other_point, other_frame,
                    True)
        return self

    @classmethod
    def from_restitution(cls, point, plane_point, normal, frame, *,
                         stiffness, restitution, impact_speed,
                         model='gonthier', **options):
        r"""Contact whose damping gives restitution :math:`e` at speed
        :math:`v_0`.

        Explanation
        ===========

        Same as the constructor with
        ``damping=damping_from_restitution(stiffness, restitution,
        impact_speed, model)``; the other keywords pass through.

        Examples
        ========

        >>> from sympy.physics.mechanics import Point, ReferenceFrame
        >>> from sympy_loads import HuntCrossleyContact
        >>> N = ReferenceFrame('N')
        >>> O = Point('O')
        >>> P = O.locatenew('P', N.z)
        >>> P.set_vel(N, 0)
        >>> HuntCrossleyContact.from_restitution(
        ...     P, O, N.z, N, stiffness=10**6, restitution=0.5,
        ...     impact_speed=3, model='hu-guo').damping
        500000.000000000

        Parameters
        ==========

        restitution, impact_speed, model
            See :func:`damping_from_restitution`.
        point, plane_point, normal, frame, stiffness, options
            See the class.

        References
        ==========

        .. [Flores2022] P. Flores, "Contact mechanics for dynamical
           systems: a comprehensive review", Multibody Syst. Dyn. 54
           (2022) 127-177. https://doi.org/10.1007/s11044-021-09803-y
        """
        if 'damping' in options:
            raise TypeError(
                'from_restitution() computes damping; do not pass it.')
        damping = damping_from_restitution(stiffness, restitution,
                                           impact_speed, model)
        return cls(point, plane_point, normal, frame, stiffness=stiffness,
                   damping=damping, **options)

    # -- construction helpers -------------------------------------------

    def _set_common(self, point, frame, stiffness, damping, exponent, radius,
                    friction_coefficient, sphere_frame, clamped,
                    friction_regularization, friction_sign_method,
                    static_coefficient, stribeck_speed):
        _set_once(self, 'point', _check_type('point', point, Point))
        _set_once(self, 'frame', _check_type('frame', frame, ReferenceFrame))
        _set_once(self, 'stiffness', _sympify_scalar(
            'stiffness', stiffness, nonnegative=True))
        _set_once(self, 'damping', _sympify_scalar(
            'damping', damping, nonnegative=True))
        _set_once(self, 'exponent', _sympify_scalar(
            'exponent', exponent, positive=True))
        _set_once(self, 'radius', _sympify_scalar(
            'radius', radius, nonnegative=True))
        _set_once(self, 'friction_coefficient', _sympify_scalar(
            'friction_coefficient', friction_coefficient, nonnegative=True))
        _set_once(self, 'sphere_frame',
                  _frame_of('sphere_frame', sphere_frame))
        _check_type('clamped', clamped, bool)
        _set_once(self, 'clamped', clamped)
        _set_once(self, 'friction_regularization', _sympify_scalar(
            'friction_regularization', friction_regularization,
            nonnegative=True))
        _set_once(self, 'friction_sign_method', _check_sign_method(
            friction_sign_method, 'friction_sign_method'))
        if (static_coefficient is None) != (stribeck_speed is None):
            raise ValueError(
                'static_coefficient and stribeck_speed go together: give '
                'both (Stribeck friction) or neither (Coulomb).')
        if static_coefficient is not None:
            static_coefficient = _sympify_scalar(
                'static_coefficient', static_coefficient, nonnegative=True)
            stribeck_speed = _sympify_scalar(
                'stribeck_speed', stribeck_speed, positive=True)
        _set_once(self, 'static_coefficient', static_coefficient)
        _set_once(self, 'stribeck_speed', stribeck_speed)

    def _build(self, center_height, anchor, anchor_frame, reaction):
        """Form the expressions once.

        ``center_height`` is the height of the center above the plane,
        ``anchor`` a point fixed in ``anchor_frame`` (the plane's body, None
        if it does not rotate) and ``reaction`` whether the plane's body
        takes the reaction.
        """
        n, N = self.normal, self.frame
        gap = center_height - self.radius
        self._gap = gap
        # max(0, -h), not (|h| - h)/2: never negative in floating point
        # (see the class documentation)
        self._penetration = sm.Max(0, -gap)
        contact = self.point.locatenew(f'{self.point.name}_contact',
                                       -center_height * n)
        self._contact_point = contact
        # Velocity of the sphere's material point at C.
        v_sphere = self.point.vel(N)
        if self.sphere_frame is not None:
            v_sphere = v_sphere + self.sphere_frame.ang_vel_in(N).cross(
                contact.pos_from(self.point))
        v_plane = _plane_velocity(contact, anchor, anchor_frame, reaction, N,
                                  self.point)
        if reaction:
            contact.set_vel(N, v_plane)
        self._reaction = reaction
        v = v_sphere - v_plane
        v_normal = v.dot(n)
        self._penetration_rate = -v_normal
        self._slip_velocity = v - v_normal * n
        d, k, c = self._penetration, self.stiffness, self.damping
        dn = d**self.exponent
        stiff_damp = k + c * self._penetration_rate
        compressive = dn * sm.Max(0, stiff_damp)
        self._normal_force = (compressive if self.clamped
                              else k * dn + c * dn * self._penetration_rate)
        # Coulomb's law needs a pressing normal force: friction always uses
        # the compressive part, also when the normal force is not clamped.
        self._friction_force = self._coulomb_friction(compressive)

    def _coulomb_friction(self, normal_force):
        """Coulomb friction on the sphere for the (nonnegative)
        ``normal_force``, finite at zero slip."""
        mu = self.friction_coefficient
        # (Vector == 0 compares after simplification: slow, avoided here)
        if mu.is_zero or not self._slip_velocity.args:    # 0 or 0.0
            return Vector(0)
        vt = self._slip_velocity
        s = _speed(vt, self.frame)
        # sgn(s)/s for s > 0, finite with its derivative at s = 0
        direction = _sign_over_speed(s, self.friction_regularization,
                                     self.friction_sign_method)
        if self.static_coefficient is None:
            magnitude = mu * normal_force
        else:
            magnitude = friction_magnitude(
                s, normal_force, kinetic_coefficient=mu,
                static_coefficient=self.static_coefficient,
                stribeck_speed=self.stribeck_speed)
        self._friction_scale = -magnitude * direction
        return self._friction_scale * vt

    # -- read-only constructor arguments ---------------------------------

    point = property(lambda self: self._point,
                     lambda self, v: _set_once(self, 'point', v),
                     doc='Center of the sphere (Point).')
    plane_point = property(lambda self: self._plane_point,
                           lambda self, v: _set_once(self, 'plane_point', v),
                           doc='A point of the plane (Point).')
    normal = property(lambda self: self._normal,
                      lambda self, v: _set_once(self, 'normal', v),
                      doc='Unit normal of the plane, out of it (Vector).')
    frame = property(lambda self: self._frame,
                     lambda self, v: _set_once(self, 'frame', v),
                     doc='Frame in which velocities are taken.')
    stiffness = property(lambda self: self._stiffness,
                         lambda self, v: _set_once(self, 'stiffness', v),
                         doc='Contact stiffness :math:`k`.')
    damping = property(lambda self: self._damping,
                       lambda self, v: _set_once(self, 'damping', v),
                       doc='Hysteresis damping :math:`c`.')
    exponent = property(lambda self: self._exponent,
                        lambda self, v: _set_once(self, 'exponent', v),
                        doc='Stiffness exponent :math:`n`.')
    radius = property(lambda self: self._radius,
                      lambda self, v: _set_once(self, 'radius', v),
                      doc='Sphere radius :math:`R`.')
    friction_coefficient = property(
        lambda self: self._friction_coefficient,
        lambda self, v: _set_once(self, 'friction_coefficient', v),
        doc=r'Coulomb friction coefficient :math:`\mu`.')
    plane_frame = property(lambda self: self._plane_frame,
                           lambda self, v: _set_once(self, 'plane_frame', v),
                           doc='Frame, body or particle the plane is fixed '
                               'in, or None.')
    sphere_frame = property(
        lambda self: self._sphere_frame,
        lambda self, v: _set_once(self, 'sphere_frame', v),
        doc='Frame the sphere is fixed in, or None.')
    clamped = property(lambda self: self._clamped,
                       lambda self, v: _set_once(self, 'clamped', v),
                       doc=r'Whether the normal force is clamped to '
                           r':math:`f \ge 0`.')
    friction_regularization = property(
        lambda self: self._friction_regularization,
        lambda self, v: _set_once(self, 'friction_regularization', v),
        doc='Regularization speed of the slip sign (0 for the exact sign).')
    friction_sign_method = property(
        lambda self: self._friction_sign_method,
        lambda self, v: _set_once(self, 'friction_sign_method', v),
        doc='Smooth sign method for the slip.')

    static_coefficient = property(
        lambda self: self._static_coefficient,
        lambda self, v: _set_once(self, 'static_coefficient', v),
        doc=r'Static coefficient :math:`\mu_s` of Stribeck friction, or '
            'None.')
    stribeck_speed = property(
        lambda self: self._stribeck_speed,
        lambda self, v: _set_once(self, 'stribeck_speed', v),
        doc='Stribeck speed :math:`v_s`, or None.')

    # -- derived quantities ----------------------------------------------

    @property
    def penetration(self):
        r"""Penetration :math:`d = \max(0, -h)` (zero when separated)."""
        return self._penetration

    @property
    def penetration_rate(self):
        r"""Penetration rate
        :math:`\dot{d} = -(\bar{v}_{P^*} - \bar{v}_{C^*}) \cdot \hat{n}`
        (:math:`> 0` while approaching), whether or not in contact."""
        return self._penetration_rate

    @property
    def normal_force(self):
        """Normal force magnitude :math:`f` on the sphere along
        ``+normal``."""
        return self._normal_force

    @property
    def slip_velocity(self):
        """Tangential velocity of the sphere's contact point relative to the
        plane's (Vector)."""
        return self._slip_velocity

    @property
    def contact_point(self):
        """Contact location C, the center projected on the plane (Point);
        the plane's body takes the reaction there."""
        return self._contact_point

    @property
    def friction_force(self):
        """Coulomb friction force on the sphere (Vector, in the tangent
        plane, zero at zero slip and when separated)."""
        return self._friction_force

    @property
    def force(self):
        r"""Total contact force :math:`f \hat{n} + \bar{F}_t` on the sphere
        (Vector)."""
        return self._normal_force * self.normal + self.friction_force

    def to_loads(self):
        """Return the loads of the contact for ``KanesMethod``/``System``.

        The force on ``point``, the friction torque on ``sphere_frame``
        (if given) and the reaction on the plane's body at
        :attr:`contact_point` (if the plane moves or for two spheres).

        Examples
        ========

        >>> from sympy.physics.mechanics import Point, ReferenceFrame
        >>> from sympy_loads import HuntCrossleyContact
        >>> N = ReferenceFrame('N')
        >>> O = Point('O')
        >>> P = O.locatenew('P', -N.z/4)
        >>> P.set_vel(N, 0)
        >>> HuntCrossleyContact(P, O, N.z, N, stiffness=8).to_loads()
        [Force(point=P, force=N.z)]
        """
        force = self.force
        loads = [Force(self.point, force)]
        if self.sphere_frame is not None and self.friction_force.args:
            # r_{C/P} x (scale v_t): cross the small vectors, then scale
            arm = self._contact_point.pos_from(self.point)
            loads.append(Torque(self.sphere_frame, self._friction_scale
                                * arm.cross(self._slip_velocity)))
        if self._reaction:
            loads.append(Force(self._contact_point, -force))
        return loads

    def __repr__(self):
        defaults = dict(damping=0, exponent=sm.Rational(3, 2), radius=0,
                        friction_coefficient=0, plane_frame=None,
                        sphere_frame=None, clamped=True,
                        friction_regularization=0, friction_sign_method='tanh',
                        static_coefficient=None, stribeck_speed=None)
        if self._kind == 'spheres':
            head = (f'{type(self).__name__}.between_spheres({self.point}, '
                    f'{self._other_point}, {self.frame}, '
                    f'radius={self.radius}, '
                    f'other_radius={self._other_radius}, '
                    f'stiffness={self.stiffness}')
            names = ['damping', 'exponent', 'friction_coefficient',
                     'sphere_frame', 'plane_frame', 'clamped',
                     'friction_regularization', 'friction_sign_method',
                     'static_coefficient', 'stribeck_speed']
            rename = {'plane_frame': 'other_sphere_frame'}
        else:
            head = (f'{type(self).__name__}({self.point}, '
                    f'{self.plane_point}, {self.normal}, {self.frame}, '
                    f'stiffness={self.stiffness}')
            names = ['damping', 'exponent', 'radius', 'friction_coefficient',
                     'plane_frame', 'sphere_frame', 'clamped',
                     'friction_regularization', 'friction_sign_method',
                     'static_coefficient', 'stribeck_speed']
            rename = {}
        parts = [head]
        for name in names:
            value = getattr(self, name)
            if not self._is_default(value, defaults[name]):
                shown = repr(value) if isinstance(value, str) else value
                parts.append(f'{rename.get(name, name)}={shown}')
        return ', '.join(parts) + ')'

    @staticmethod
    def _is_default(value, default):
        """Whether ``value`` is the constructor default (a Float such as
        1.5 is shown even when equal to the default 3/2)."""
        if default is None or isinstance(default, (bool, str)):
            return value == default and type(value) is type(default)
        return not isinstance(value, sm.Float) and value == default
