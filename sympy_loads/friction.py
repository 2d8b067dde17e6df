r"""Friction laws, smooth sign functions and a sliding-friction load.

The scalar laws take a slip speed :math:`v` and a normal force magnitude
:math:`N` and return the friction force along :math:`v` (opposing it, so
:math:`F v \le 0`):
:func:`coulomb_friction`, :func:`viscous_friction`,
:func:`stribeck_friction` and their combination :func:`friction_law`, with
the exact sign or a smooth one (:func:`smooth_sign`).
:func:`sliding_friction_force` is the same law for a slip velocity *vector*
and :class:`SlidingFriction` the load on a point sliding on a surface.

Differences from SymPy 1.14's ``CoulombKineticFriction``
=========================================================

SymPy 1.14 has one friction actuator, ``CoulombKineticFriction(mu_k, f_n,
pathway, *, v_s=None, sigma=None, mu_s=None)``. It was not used as a base
here because:

- *Sign conventions disagree.* Its docstring states

  .. math::

     F = \left(\mu_k f_n + (\mu_s - \mu_k) f_n e^{-(v/v_s)^2}\right)
         \operatorname{sgn}(v) + \sigma v

  (along the motion), its code returns the negative of that as the
  expansile ``force`` of a ``ForceActuator``. Here one convention is
  stated and tested: the force opposes the slip and never adds energy.
- *It measures slip along a pathway.* :math:`v` is the pathway's extension
  velocity. On a ``LinearPathway`` from a fixed point O to a block at
  :math:`x \hat{n}_x` that is :math:`\operatorname{sgn}(x) \dot{x}`, and
  the loads contain
  :math:`\operatorname{sgn}(\operatorname{sgn}(x) \dot{x}) \, x/|x|`:
  right for :math:`x \ne 0` but :math:`0/0` (NaN) when the block passes
  O, and wrong for sliding that is not along the line through the two
  points. :class:`SlidingFriction` uses the tangential
  slip velocity vector of the point relative to the surface, needs no
  second point, and is finite (zero) at zero slip.
- *Magic defaults and no validation.* ``mu_k=None`` becomes 1 and
  ``v_s=None`` becomes 0.01; ``v_s=0`` is accepted and gives
  ``exp(zoo ...)``; negative coefficients (friction that pushes) are
  accepted. Here a Stribeck term needs both ``static_coefficient`` and a
  positive ``stribeck_speed``, :math:`\mu_s \ge \mu_k` is checked, and
  negative numeric coefficients raise ``ValueError``.
- *Exact sign only*, and a ``repr`` that misses a comma and does not
  follow the constructor. Here the sign may be regularized (tanh, atan,
  algebraic) for numerical integration, and ``repr`` mirrors the
  constructor.

References
==========

.. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
   Torque", sections "Friction" and "Collision".
   https://moorepants.github.io/learn-multibody-dynamics/
.. [Flores2023] P. Flores, J. Ambrosio, H. M. Lankarani, "Contact-impact
   events with friction in multibody dynamics: Back to basics", Mech. Mach.
   Theory 184 (2023) 105305.
   https://doi.org/10.1016/j.mechmachtheory.2023.105305
"""

import sympy as sm
from sympy.physics.mechanics import (ActuatorBase, Force, Point,
                                     ReferenceFrame, RigidBody)
from sympy.physics.vector import Vector

from ._friction_laws import SIGN_METHODS as _SIGN_METHODS
from ._friction_laws import (_check_sign_method,
                             _friction_parameters, _magnitude,
                             coulomb_friction, friction_law,
                             friction_magnitude, smooth_sign,
                             stribeck_friction, viscous_friction)
from ._utils import (_check_type, _equals, _is_default, _is_zero_vector,
                     _nonzero_norm, _set_once, _sympify_scalar,
                     _zero_indicator, euclidean_norm)

__all__ = ['smooth_sign', 'SIGN_METHODS', 'coulomb_friction', 'viscous_friction',
           'stribeck_friction', 'friction_law', 'friction_magnitude',
           'sliding_friction_force', 'SlidingFriction']

# SIGN_METHODS is defined in _friction_laws; it is bound here, below its doc
# comment, so that autodoc (sympy_loads.friction.SIGN_METHODS) finds it.
#: Names accepted by :func:`smooth_sign` for its ``method`` argument.
SIGN_METHODS = _SIGN_METHODS


def _sign_over_speed(s, eps, method):
    """Return ``g(s)`` with ``g(s) v = sgn(s) v/s`` for a slip speed
    ``s = |v|`` (a :class:`~sympy_loads._utils.euclidean_norm`), finite at
    ``s = 0`` together with its derivative.

    ``sgn(s)/(s + [s = 0]) + slope [s = 0]``: the indicator
    (:func:`~sympy_loads._utils._zero_indicator`, derivative 0) guards the
    division, and ``slope = sgn'(0)`` (``1/eps`` for ``'tanh'`` and
    ``'algebraic'``, ``2/(pi eps)`` for ``'atan'``) is the limit of
    ``sgn(s)/s`` at rest, so ``d(g(s) v)/dv`` at ``v = 0`` is the exact
    ``slope * I``, the linearization about rest. The force ``g(s) v`` is
    unchanged (``v = 0`` where the indicator is 1). The exact sign
    (``eps = 0``) has no derivative at rest; it is written
    ``(1 - [s = 0])/(s + [s = 0])`` (``sign(s)`` for ``s >= 0`` without
    ``DiracDelta``), so the friction force contributes 0 to a Jacobian at
    rest.
    """
    indicator = _zero_indicator(s)
    if method == 'exact' or sm.sympify(eps).is_zero:
        return (1 - indicator) / _nonzero_norm(s)
    if method == 'algebraic':
        return 1 / sm.sqrt(s**2 + eps**2)
    slope = 1 / eps if method == 'tanh' else 2 / (sm.pi * eps)
    return smooth_sign(s, eps, method) / _nonzero_norm(s) + slope * indicator


def _speed(vector, frame=None):
    """``|vector|`` as a :class:`~sympy_loads._utils.euclidean_norm` of its
    components in ``frame`` (default: the first frame it is written in);
    its derivative is finite at rest, unlike that of ``sqrt(v . v)``."""
    return euclidean_norm(*vector.to_matrix(
        vector.args[0][1] if frame is None else frame))


def _unit_vector(name, vector):
    """Return ``vector`` normalized (unchanged if its magnitude simplifies
    to 1); ``ValueError`` naming ``name`` if it is zero."""
    _check_type(name, vector, Vector)
    if _is_zero_vector(vector):
        raise ValueError(f'{name} must be a nonzero Vector, got 0.')
    magnitude = sm.simplify(vector.magnitude())
    return vector if magnitude == 1 else vector / magnitude


def sliding_friction_force(slip_velocity, normal_force=0, *,
                           kinetic_coefficient=0, static_coefficient=None,
                           stribeck_speed=None, exponent=2,
                           viscous_coefficient=0, regularization=0,
                           sign_method='tanh'):
    r"""Return the friction force vector opposing a (tangential) slip
    velocity, finite at zero slip.

    Explanation
    ===========

    The vector form of :func:`friction_law`: with :math:`s = |\bar{v}_t|`
    the slip speed and :math:`f(s)` the level of :func:`friction_magnitude`
    without the viscous part,

    .. math::

       \bar{F} = -f(s) \operatorname{sgn}(s) \frac{\bar{v}_t}{s}
                 - c_v \bar{v}_t

    :math:`\operatorname{sgn}(s)/s` is written so that no :math:`0/0`
    occurs at :math:`\bar{v}_t = 0`:

    - ``'algebraic'``: :math:`1/\sqrt{s^2 + \varepsilon^2}` (no special
      case at all);
    - ``'tanh'``, ``'atan'``, ``'exact'``: :math:`\operatorname{sgn}(s)/s^*`
      with :math:`s^* = s + [s = 0]` (:math:`[\cdot]` is 1 when the
      condition holds, else 0) and :math:`s` computed as
      ``euclidean_norm`` of the components of :math:`\bar{v}_t`; at zero
      slip :math:`\bar{v}_t` is the zero vector so the force is exactly
      zero there, and NumPy evaluates it without warnings. A term
      :math:`\operatorname{sgn}'(0) \, [s = 0]` (zero force, since
      :math:`\bar{v}_t = 0` there) makes the Jacobian at zero slip the
      limit :math:`-f(0) \operatorname{sgn}'(0) I`.

    The force then opposes the slip direction in every direction of the
    plane, with no hand-derived signs (compare the textbook's per-component
    :math:`-\frac{|v_x|}{v_x} \mu F_z`, which is :math:`0/0` at
    :math:`v_x = 0`). The derivatives (a Jacobian,
    ``KanesMethod.linearize``) contain no ``Piecewise`` or ``DiracDelta``
    and are finite everywhere; at zero slip the exact sign, which has no
    derivative there, contributes 0.

    Examples
    ========

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import ReferenceFrame, dynamicsymbols
    >>> from sympy_loads import sliding_friction_force
    >>> N = ReferenceFrame('N')
    >>> vx, vy = dynamicsymbols('v_x v_y')
    >>> mu, Fn, eps = symbols('mu F_n epsilon', positive=True)
    >>> sliding_friction_force(vx*N.x + vy*N.y, Fn, kinetic_coefficient=mu,
    ...     regularization=eps, sign_method='algebraic')
    - F_n*mu*v_x(t)/sqrt(epsilon**2 + v_x(t)**2 + v_y(t)**2)*N.x - F_n*mu*v_y(t)/sqrt(epsilon**2 + v_x(t)**2 + v_y(t)**2)*N.y

    Parameters
    ==========

    slip_velocity : Vector
        The tangential slip velocity :math:`\bar{v}_t` of the body the force
        acts on relative to the surface (project out the normal component
        first; :class:`SlidingFriction` does this).
    normal_force, kinetic_coefficient, static_coefficient, stribeck_speed, exponent, viscous_coefficient, regularization, sign_method
        As in :func:`friction_law`.

    Returns
    =======

    Vector

    Raises
    ======

    TypeError, ValueError
        As in :func:`friction_law`; ``TypeError`` if ``slip_velocity`` is
        not a Vector.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", sections "Friction" and "Collision".
       https://moorepants.github.io/learn-multibody-dynamics/
    .. [Flores2023] P. Flores, J. Ambrosio, H. M. Lankarani,
       "Contact-impact events with friction in multibody dynamics: Back to
       basics", Mech. Mach. Theory 184 (2023) 105305.
       https://doi.org/10.1016/j.mechmachtheory.2023.105305
    """
    _check_type('slip_velocity', slip_velocity, Vector)
    params = _friction_parameters(
        normal_force, kinetic_coefficient, static_coefficient,
        stribeck_speed, exponent, viscous_coefficient)
    eps = _sympify_scalar('regularization', regularization, nonnegative=True)
    _check_sign_method(sign_method)
    if slip_velocity == Vector(0):
        return Vector(0)
    s2 = slip_velocity.dot(slip_velocity)
    s = _speed(slip_velocity)
    c_v = params[-1]
    # the law has only even powers of s for exponent 2: sqrt(s2)**2 is s2
    level, _ = _magnitude(sm.sqrt(s2) if _equals(params[4], 2) else s,
                          *params)
    if sign_method == 'algebraic' and not eps.is_zero:
        direction_factor = 1 / sm.sqrt(s2 + eps**2)
    else:
        direction_factor = _sign_over_speed(s, eps, sign_method)
    return -level * direction_factor * slip_velocity - c_v * slip_velocity


class SlidingFriction(ActuatorBase):
    r"""Friction on a point sliding on a surface.

    Explanation
    ===========

    The force on ``point`` opposes its tangential slip velocity relative to
    the surface, with the magnitude of the combined Coulomb, Stribeck and
    viscous law (:func:`friction_law`, :func:`sliding_friction_force`).
    With :math:`\bar{v}` the velocity of ``point`` relative to the surface
    frame S and :math:`\hat{n}` the unit normal, the tangential slip
    velocity and the force on ``point`` are

    .. math::

       \bar{v}_t = \bar{v} - (\bar{v} \cdot \hat{n}) \hat{n}, \qquad
       \bar{F} = -f(|\bar{v}_t|) \operatorname{sgn}(|\bar{v}_t|)
                 \frac{\bar{v}_t}{|\bar{v}_t|} - c_v \bar{v}_t

    and :math:`-\bar{F}` acts on the surface body, at the point of S
    coincident with ``point``.

    It is exactly zero, and finite when evaluated numerically, at zero slip.
    If ``surface`` is a ``RigidBody`` the reaction :math:`-\bar{F}` is
    applied to it at :attr:`reaction_point`, a point fixed in the body that
    coincides with ``point`` (its velocity in ``frame`` is that of
    ``point`` minus :math:`\bar{v}`).

    The normal force magnitude is given (e.g. :math:`m g` on a horizontal
    plane, or a contact model's normal force); friction does not know the
    constraint force of a contact that is modelled as a constraint.

    Unlike SymPy 1.14's ``CoulombKineticFriction`` it acts on the slip
    velocity *vector* (sliding in any direction, no second point, no NaN
    when the point passes an anchor), has one tested sign convention
    (:math:`\bar{F} \cdot \bar{v}_t \le 0`), validates its parameters and
    has no magic defaults; see the module documentation for the details.

    Examples
    ========

    A block sliding on the ground (the ``N.x``-``N.y`` plane):

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import (Point, ReferenceFrame,
    ...     dynamicsymbols)
    >>> from sympy_loads import SlidingFriction
    >>> m, g, mu = symbols('m g mu', positive=True)
    >>> x, y, z = dynamicsymbols('x y z')
    >>> N = ReferenceFrame('N')
    >>> O = Point('O')
    >>> O.set_vel(N, 0)
    >>> P = O.locatenew('P', x*N.x + y*N.y + z*N.z)
    >>> friction = SlidingFriction(P, N.z, N, normal_force=m*g,
    ...     kinetic_coefficient=mu)
    >>> friction
    SlidingFriction(P, N.z, N, normal_force=g*m, kinetic_coefficient=mu)
    >>> friction.slip_velocity
    Derivative(x(t), t)*N.x + Derivative(y(t), t)*N.y

    Sliding along ``N.x`` alone it is Moore's :math:`-\mu m g
    \operatorname{sgn}(\dot{x})` ("Force, Moment, and Torque"), and
    it is zero at rest:

    >>> F = friction.to_loads()[0].vector
    >>> xd, yd = x.diff(), y.diff()
    >>> F.subs({xd: -3, yd: 0})
    g*m*mu*N.x
    >>> F.subs({xd: 0, yd: 0})
    0
    >>> F.subs({xd: 3, yd: 4})
    - 3*g*m*mu/5*N.x - 4*g*m*mu/5*N.y

    Parameters
    ==========

    point : Point
        The sliding (contact) point; its velocity in ``frame`` and in the
        surface's frame must be computable.
    normal : Vector
        The surface normal (normalized if not a unit vector); only the slip
        perpendicular to it counts.
    frame : ReferenceFrame
        The Newtonian frame of the equations of motion; the surface is fixed
        in it unless ``surface`` is given.
    normal_force : sympifiable
        The normal force magnitude :math:`N \ge 0`.
    kinetic_coefficient, static_coefficient, stribeck_speed, exponent, viscous_coefficient, regularization, sign_method : optional
        The friction law, as in :func:`friction_law`.
    surface : RigidBody or ReferenceFrame, optional
        The body (or frame) the point slides on. A ``RigidBody`` receives
        the reaction force; a ``ReferenceFrame`` only defines the slip
        velocity (e.g. a prescribed moving belt).

    Raises
    ======

    TypeError
        If an argument has the wrong type.
    ValueError
        If ``normal`` is zero or a law parameter is invalid (see
        :func:`friction_law`).

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", sections "Friction" and "Collision".
       https://moorepants.github.io/learn-multibody-dynamics/
    .. [Flores2023] P. Flores, J. Ambrosio, H. M. Lankarani,
       "Contact-impact events with friction in multibody dynamics: Back to
       basics", Mech. Mach. Theory 184 (2023) 105305.
       https://doi.org/10.1016/j.mechmachtheory.2023.105305
    """

    _LAW_DEFAULTS = (('kinetic_coefficient', 0), ('static_coefficient', None),
                     ('stribeck_speed', None), ('exponent', 2),
                     ('viscous_coefficient', 0), ('regularization', 0),
                     ('sign_method', 'tanh'))

    def __init__(self, point, normal, frame, *, normal_force,
                 kinetic_coefficient=0, static_coefficient=None,
                 stribeck_speed=None, exponent=2, viscous_coefficient=0,
                 regularization=0, sign_method='tanh', surface=None):
        _set_once(self, 'point', _check_type('point', point, Point))
        _set_once(self, 'normal', _unit_vector('normal', normal))
        _set_once(self, 'frame', _check_type('frame', frame, ReferenceFrame))
        _check_type('surface', surface,
                    (RigidBody, ReferenceFrame, type(None)),
                    'RigidBody, ReferenceFrame or None')
        _set_once(self, 'surface', surface)
        # validate the law once, with the same checks as friction_law
        law = dict(kinetic_coefficient=kinetic_coefficient,
                   static_coefficient=static_coefficient,
                   stribeck_speed=stribeck_speed, exponent=exponent,
                   viscous_coefficient=viscous_coefficient)
        (normal_force, law['kinetic_coefficient'], law['static_coefficient'],
         law['stribeck_speed'], law['exponent'],
         law['viscous_coefficient']) = _friction_parameters(
            normal_force, **law)
        law['regularization'] = _sympify_scalar(
            'regularization', regularization, nonnegative=True)
        law['sign_method'] = _check_sign_method(sign_method)
        _set_once(self, 'normal_force', normal_force)
        _set_once(self, 'law', law)
        if isinstance(surface, RigidBody):
            reaction = Point(f'{point.name}_on_{surface.name}')
            reaction.set_pos(point, 0)
        else:
            reaction = None
        _set_once(self, 'reaction_point', reaction)

    point = property(lambda self: self._point,
                     doc='The sliding point that receives the friction force.')
    normal = property(lambda self: self._normal,
                      doc='The unit surface normal.')
    frame = property(lambda self: self._frame, doc='The Newtonian frame.')
    surface = property(lambda self: self._surface,
                       doc='The surface body or frame (None for ``frame``).')
    normal_force = property(lambda self: self._normal_force,
                            doc='The normal force magnitude.')
    reaction_point = property(
        lambda self: self._reaction_point,
        doc='The point of the surface body that receives the reaction '
            '(None without a surface body).')

    @property
    def law(self):
        """The friction-law keyword arguments (a copy)."""
        return dict(self._law)

    @property
    def surface_frame(self):
        """The frame the slip velocity is measured in."""
        if self.surface is None:
            return self.frame
        if isinstance(self.surface, RigidBody):
            return self.surface.frame
        return self.surface

    def _relative_velocity(self):
        """Return the velocity of :attr:`point` relative to the surface
        frame and, for a surface body, the velocity in :attr:`frame` of the
        body's point coincident with it (else None)."""
        surface = self.surface
        if isinstance(surface, RigidBody):
            try:
                r = self.point.pos_from(surface.masscenter)
            except ValueError:
                r = None
            if r is not None:
                # v_P/B = dr/dt in B; v_Q = v_Bo + w_B x r (Q fixed in B)
                relative = r.dt(surface.frame)
                coincident = (surface.masscenter.vel(self.frame)
                              + surface.frame.ang_vel_in(self.frame).cross(r))
                return relative, coincident
            relative = self.point.vel(surface.frame)
            return relative, self.point.vel(self.frame) - relative
        return self.point.vel(self.surface_frame), None

    @property
    def slip_velocity(self):
        r"""The tangential slip velocity
        :math:`\bar{v} - (\bar{v} \cdot \hat{n}) \hat{n}` of the point
        relative to the surface."""
        v, _ = self._relative_velocity()
        return v - v.dot(self.normal) * self.normal

    @property
    def force(self):
        """The friction force (Vector) on :attr:`point`."""
        return sliding_friction_force(self.slip_velocity, self.normal_force,
                                      **self._law)

    def to_loads(self):
        """Return ``[Force(point, F)]`` plus ``Force(reaction_point, -F)``
        when the surface is a rigid body.

        Examples
        ========

        >>> from sympy import symbols
        >>> from sympy.physics.mechanics import (Point, ReferenceFrame,
        ...     RigidBody, dynamicsymbols)
        >>> from sympy_loads import SlidingFriction
        >>> x, s = dynamicsymbols('x s')
        >>> N = ReferenceFrame('N')
        >>> O = Point('O')
        >>> O.set_vel(N, 0)
        >>> cart = RigidBody('cart')
        >>> cart.masscenter.set_pos(O, s*N.x)
        >>> cart.masscenter.set_vel(N, s.diff()*N.x)
        >>> cart.frame.orient_axis(N, N.z, 0)
        >>> P = cart.masscenter.locatenew('P', x*N.x)
        >>> friction = SlidingFriction(P, N.y, N, normal_force=1,
        ...     viscous_coefficient=symbols('c'), surface=cart)
        >>> friction.to_loads()  # doctest: +NORMALIZE_WHITESPACE
        [Force(point=P, force=- c*Derivative(x(t), t)*N.x),
         Force(point=P_on_cart, force=c*Derivative(x(t), t)*N.x)]
        >>> friction.reaction_point.vel(N)
        Derivative(s(t), t)*N.x
        """
        force = self.force
        loads = [Force(self.point, force)]
        if self.reaction_point is not None:
            _, coincident = self._relative_velocity()
            self.reaction_point.set_vel(self.frame, coincident)
            loads.append(Force(self.reaction_point, -force))
        return loads

    def __repr__(self):
        parts = [str(self.point), str(self.normal), str(self.frame),
                 f'normal_force={self.normal_force}']
        for name, default in self._LAW_DEFAULTS:
            value = self._law[name]
            if not _is_default(value, default):
                parts.append(f'{name}={value!r}' if isinstance(value, str)
                             else f'{name}={value}')
        if self.surface is not None:
            parts.append(f'surface={self.surface}')
        return f'{type(self).__name__}({", ".join(parts)})'
