r"""Translational and rotational spring-damper-actuators (TSDA and RSDA).

The two elements of the course notes "Three-Dimensional Generalized Forces"
[Notes3D]_ that combine a linear spring, a linear damper, Coulomb friction
and an arbitrary actuator force (or torque) in one load [Moore]_.
They are SymPy actuators: :class:`SpringDamperActuator` is a
``ForceActuator`` that works on any SymPy pathway and
:class:`RotationalSpringDamperActuator` is a ``TorqueActuator``; their
``to_loads()`` output goes straight into ``KanesMethod`` or ``System``.

References
==========

.. [Notes3D] Course notes "Three-Dimensional Generalized Forces"
   (body-coordinate formulation): translational and rotational
   spring-damper-actuators.
.. [Moore] J. K. Moore, *Learn Multibody Dynamics*, "Force, Moment, and
   Torque", section "Springs & Dampers".
   https://moorepants.github.io/learn-multibody-dynamics/
"""

import sympy as sm
from sympy.physics.mechanics import (ForceActuator, LinearPathway,
                                     ObstacleSetPathway, PinJoint,
                                     TorqueActuator, WrappingPathway,
                                     dynamicsymbols)
from sympy.physics.vector import Vector

from ._utils import (_check_type, _is_default, _is_zero_vector, _set_once,
                     _sympify_scalar)
from .friction import _check_sign_method, smooth_sign

__all__ = ['SpringDamperActuator', 'RotationalSpringDamperActuator']


def _actuation_expression(actuation, position, rate, names):
    """Return the actuation as an expression; a callable is called once with
    the position-like and rate-like expressions."""
    if callable(actuation) and not isinstance(actuation, sm.Basic):
        value = actuation(position, rate)
        return _sympify_scalar(f'actuation({names})', value)
    return _sympify_scalar('actuation', actuation)


def _segments(pathway):
    """Pairs of attachments joined by straight segments (for the pathways of
    SymPy that are made of them); ``None`` for other pathways."""
    if isinstance(pathway, (LinearPathway, ObstacleSetPathway)):
        attachments = pathway.attachments
        return list(zip(attachments[:-1], attachments[1:]))
    return None


def _check_pathway_length(pathway):
    """Raise ``ValueError`` if the pathway (or a straight segment of it) has
    an identically zero length, where its direction is undefined and SymPy
    would divide zero by zero."""
    segments = _segments(pathway)
    if segments is None:
        if isinstance(pathway, WrappingPathway):
            segments = [pathway.attachments]
        else:
            segments = []
    for start, end in segments:
        if _is_zero_vector(end.pos_from(start)):
            raise ValueError(
                f'The pathway {pathway} has zero length between {start} and '
                f'{end} (the points coincide): the direction of the force is '
                f'undefined. Attach the ends to distinct points.')
    length = pathway.length
    if length == 0 or length.is_zero:
        raise ValueError(
            f'The pathway {pathway} has zero length: the direction of the '
            f'force is undefined.')


def _pathway_loads(pathway, expansile_force):
    """Return the loads of the expansile-positive ``expansile_force`` along
    ``pathway``.

    SymPy 1.14's ``WrappingPathway.to_loads(F)`` applies ``F`` along the
    geodesic end vectors, which point from each end into the path, so a
    positive ``F`` pulls the ends together: the power of its loads is
    ``-F l'``, the opposite of ``LinearPathway`` and ``ObstacleSetPathway``
    (and of its own docstring, which calls ``F`` expansile). This one
    function compensates. ``test_loads_follow_sympy_expansile_convention``
    in ``tests/test_actuators.py`` checks the power of the loads on every
    pathway type, so a change in SymPy shows up there.
    """
    if isinstance(pathway, WrappingPathway):
        return pathway.to_loads(-expansile_force)
    return pathway.to_loads(expansile_force)


class SpringDamperActuator(ForceActuator):
    r"""Translational spring-damper-actuator (TSDA) along a pathway.

    Explanation
    ===========

    A linear spring, a linear damper, Coulomb friction and an actuator
    acting in parallel along a pathway of length :math:`l`. The
    scalar *tension* (positive when it pulls the ends together) is
    [Notes3D]_ [Moore]_

    .. math::

       f = k (l - l_0) + c \dot{l} + f_F \operatorname{sgn}(\dot{l})
           + f_{ACT}(l, \dot{l}, t)

    with :math:`\dot{l}` the pathway's lengthening speed. Sign convention,
    shown for a straight pathway between ``P`` and ``Q``::

             tension f > 0: pulls the ends together
        P o----->            <-----o Q
          |<-------- l(t) -------->|         l' > 0: the ends move apart

    SymPy's ``ForceActuator`` uses the opposite (expansile-positive)
    convention; :attr:`force` keeps SymPy's convention and is :math:`-f`, so
    the actuator is a drop-in SymPy actuator and ``to_loads()`` is SymPy's
    ``pathway.to_loads(-f)`` (for ``WrappingPathway``, whose ``to_loads``
    has the opposite sign in SymPy 1.14, ``pathway.to_loads(f)``: on every
    pathway the power of the loads is :math:`-f \dot{l}`). For a straight
    pathway the force on ``P`` is :math:`f/l` times the vector from ``P`` to
    ``Q`` and the force on ``Q`` is its opposite (the course notes'
    :math:`\bar{F}_i = f \bar{d}_{ij}/l` [Notes3D]_).

    Power: the spring part is conservative (its power
    :math:`-k (l - l_0) \dot{l}` is the rate of decrease of
    :math:`k (l - l_0)^2 / 2`); the damper's power :math:`-c \dot{l}^2` and
    the friction's :math:`-f_F \operatorname{sgn}(\dot{l})\, \dot{l}` are
    never positive.

    Zero length: where the pathway's length is zero its direction is
    undefined (:math:`0/0`). A pathway whose length is *identically* zero
    (two attachments at the same point) raises ``ValueError`` as soon as the
    tension, force or loads are requested. A length that only passes through
    zero during a motion cannot be detected symbolically: the loads (and,
    for ``LinearPathway``, the lengthening speed :math:`\bar{d} \cdot
    \dot{\bar{d}} / l`) then evaluate to ``nan`` at that instant, so model
    the element so that its ends cannot meet (e.g. a positive free length
    with a stiff enough spring, or an end stop).

    Examples
    ========

    A mass on a spring-damper-actuator along ``N.x``:

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import (LinearPathway, Point,
    ...     ReferenceFrame, dynamicsymbols)
    >>> from sympy_loads import SpringDamperActuator
    >>> k, c, l0, F = symbols('k c l_0 F')
    >>> x = dynamicsymbols('x', positive=True)
    >>> N = ReferenceFrame('N')
    >>> O, P = Point('O'), Point('P')
    >>> P.set_pos(O, x*N.x)
    >>> tsda = SpringDamperActuator(LinearPathway(O, P), stiffness=k,
    ...     damping=c, free_length=l0, actuation=F)
    >>> tsda
    SpringDamperActuator(LinearPathway(O, P), stiffness=k, damping=c, free_length=l_0, actuation=F)
    >>> tsda.tension
    F + c*Derivative(x(t), t) + k*(-l_0 + x(t))
    >>> tsda.to_loads()[1]
    Force(point=P, force=(-F - c*Derivative(x(t), t) - k*(-l_0 + x(t)))*N.x)

    A stretched spring pulls ``P`` back towards ``O``. The actuation may
    depend on the length and lengthening speed through a callable, and the
    friction sign may be smoothed:

    >>> fF, eps = symbols('f_F epsilon', positive=True)
    >>> tsda = SpringDamperActuator(LinearPathway(O, P), friction=fF,
    ...     regularization=eps, actuation=lambda l, ldot: -k*l**3)
    >>> tsda.tension
    f_F*tanh(Derivative(x(t), t)/epsilon) - k*x(t)**3

    Parameters
    ==========

    pathway : PathwayBase
        Any SymPy pathway (``LinearPathway``, ``ObstacleSetPathway``,
        ``WrappingPathway``, ...).
    stiffness : sympifiable, optional
        Spring stiffness :math:`k \ge 0` (force/length). Default 0.
    damping : sympifiable, optional
        Damping coefficient :math:`c \ge 0` (force/speed). Default 0.
    free_length : sympifiable, optional
        Free (unstretched) length :math:`l_0 \ge 0`. Default 0.
    friction : sympifiable, optional
        Coulomb friction force magnitude :math:`f_F \ge 0`. Default 0.
    actuation : sympifiable or callable, optional
        Actuator tension :math:`f_{ACT}`: an expression (which may contain
        time and other dynamic symbols) or a callable ``f(length,
        lengthening_speed)`` returning one; the callable is called once with
        the pathway's expressions. Default 0.
    regularization : sympifiable, optional
        Regularization speed :math:`\varepsilon \ge 0` of the friction sign;
        0 (default) gives the exact ``sign``. See
        :func:`sympy_loads.smooth_sign`.
    sign_method : str, optional
        ``'tanh'`` (default), ``'atan'``, ``'algebraic'`` or ``'exact'``.

    Raises
    ======

    TypeError
        If ``pathway`` is not a SymPy pathway, or a parameter is not a
        scalar (or, for ``actuation``, a callable returning one).
    ValueError
        If a numeric ``stiffness``, ``damping``, ``free_length``,
        ``friction`` or ``regularization`` is negative, ``sign_method`` is
        unknown, or (when the loads are requested) the pathway's length is
        identically zero.

    See Also
    ========

    sympy.physics.mechanics.actuator.LinearSpring
    sympy.physics.mechanics.actuator.LinearDamper

    References
    ==========

    .. [Notes3D] Course notes "Three-Dimensional Generalized Forces",
       translational spring-damper-actuator.
    .. [Moore] J. K. Moore, *Learn Multibody Dynamics*, "Force, Moment, and
       Torque", section "Springs & Dampers" (tension-positive convention).
       https://moorepants.github.io/learn-multibody-dynamics/
    """

    def __init__(self, pathway, *, stiffness=0, damping=0, free_length=0,
                 friction=0, actuation=0, regularization=0,
                 sign_method='tanh'):
        self.pathway = pathway
        self.stiffness = stiffness
        self.damping = damping
        self.free_length = free_length
        self.friction = friction
        self.regularization = regularization
        self.sign_method = sign_method
        self.actuation = actuation

    @property
    def stiffness(self):
        """Spring stiffness :math:`k`."""
        return self._stiffness

    @stiffness.setter
    def stiffness(self, value):
        _set_once(self, 'stiffness',
                  _sympify_scalar('stiffness', value, nonnegative=True))

    @property
    def damping(self):
        """Damping coefficient :math:`c`."""
        return self._damping

    @damping.setter
    def damping(self, value):
        _set_once(self, 'damping',
                  _sympify_scalar('damping', value, nonnegative=True))

    @property
    def free_length(self):
        """Free length :math:`l_0` of the spring."""
        return self._free_length

    @free_length.setter
    def free_length(self, value):
        _set_once(self, 'free_length',
                  _sympify_scalar('free_length', value, nonnegative=True))

    @property
    def friction(self):
        """Coulomb friction force magnitude :math:`f_F`."""
        return self._friction

    @friction.setter
    def friction(self, value):
        _set_once(self, 'friction',
                  _sympify_scalar('friction', value, nonnegative=True))

    @property
    def regularization(self):
        """Regularization speed of the friction sign (0 for the exact sign)."""
        return self._regularization

    @regularization.setter
    def regularization(self, value):
        _set_once(self, 'regularization',
                  _sympify_scalar('regularization', value, nonnegative=True))

    @property
    def sign_method(self):
        """Name of the sign function used for the friction term."""
        return self._sign_method

    @sign_method.setter
    def sign_method(self, value):
        _set_once(self, 'sign_method', _check_sign_method(value))

    @property
    def actuation(self):
        """Actuator tension :math:`f_{ACT}` (an expression; a callable given to
        the constructor has been evaluated on the pathway's length and
        lengthening speed)."""
        return self._actuation

    @actuation.setter
    def actuation(self, value):
        if hasattr(self, '_actuation'):
            _set_once(self, 'actuation', None)
        if callable(value) and not isinstance(value, sm.Basic):
            value = _actuation_expression(
                value, self.pathway.length, self.pathway.extension_velocity,
                'length, lengthening_speed')
        else:
            value = _sympify_scalar('actuation', value)
        _set_once(self, 'actuation', value)

    @property
    def length(self):
        """The pathway's length :math:`l`."""
        return self.pathway.length

    @property
    def lengthening_speed(self):
        r"""The pathway's lengthening speed :math:`\dot{l}` (SymPy's
        ``extension_velocity``), positive when the ends move apart."""
        return self.pathway.extension_velocity

    @property
    def tension(self):
        r"""The tension-positive scalar of the course notes
        "Three-Dimensional Generalized Forces",
        :math:`k (l - l_0) + c \dot{l} + f_F \operatorname{sgn}(\dot{l})
        + f_{ACT}` (positive pulls the ends together)."""
        _check_pathway_length(self.pathway)
        length = self.length
        speed = self.lengthening_speed
        tension = S0 = sm.S.Zero
        if self.stiffness != S0:
            tension += self.stiffness * (length - self.free_length)
        if self.damping != S0:
            tension += self.damping * speed
        if self.friction != S0:
            tension += self.friction * smooth_sign(
                speed, self.regularization, self.sign_method)
        return tension + self.actuation

    @property
    def force(self):
        """SymPy's expansile-positive force along the pathway, ``-tension``.
        """
        return -self.tension

    @force.setter
    def force(self, value):
        raise AttributeError(
            "Can't set the computed attribute force of SpringDamperActuator; "
            'give stiffness, damping, friction or actuation instead.')

    def to_loads(self):
        """Return the loads (``Force`` objects) the element exerts on the
        pathway's points.

        Examples
        ========

        >>> from sympy import symbols
        >>> from sympy.physics.mechanics import (LinearPathway, Point,
        ...     ReferenceFrame, dynamicsymbols)
        >>> from sympy_loads import SpringDamperActuator
        >>> k = symbols('k')
        >>> q = dynamicsymbols('q', positive=True)
        >>> N = ReferenceFrame('N')
        >>> O, P = Point('O'), Point('P')
        >>> P.set_pos(O, q*N.x)
        >>> SpringDamperActuator(LinearPathway(O, P), stiffness=k).to_loads()
        [Force(point=O, force=k*q(t)*N.x), Force(point=P, force=- k*q(t)*N.x)]

        Raises
        ======

        ValueError
            If the pathway's length is identically zero.
        """
        return _pathway_loads(self.pathway, self.force)

    def __repr__(self):
        parts = [repr(self.pathway)]
        for name in ('stiffness', 'damping', 'free_length', 'friction',
                     'actuation', 'regularization'):
            value = getattr(self, name)
            if not _is_default(value, 0):        # 0 and 0.0 alike
                parts.append(f'{name}={value}')
        if self.sign_method != 'tanh':
            parts.append(f'sign_method={self.sign_method!r}')
        return f'{type(self).__name__}({", ".join(parts)})'


class RotationalSpringDamperActuator(TorqueActuator):
    r"""Rotational spring-damper-actuator (RSDA) about an axis.

    Explanation
    ===========

    A torsional spring, a rotational damper, Coulomb friction and an
    actuator acting in parallel between two frames about a unit axis
    :math:`\hat{h}` [Notes3D]_. The angle :math:`\theta` is measured
    positive counterclockwise about :math:`\hat{h}` from the reaction frame
    to the target frame, and the scalar torque (positive when it resists a
    positive :math:`\theta`) is

    .. math::

       T = k (\theta - \theta_0) + c \dot{\theta}
           + T_F \operatorname{sgn}(\dot{\theta}) + T_{ACT}, \qquad
       \dot{\theta} = \hat{h} \cdot (\bar{\omega}_{target}
           - \bar{\omega}_{reaction})

    Sign convention::

            h ^    target frame: torque -T h
              |      ___
              |   .-'   '-.  theta, theta' positive CCW about h
              |  (    +    )---->
              |   '-.___.-'
              |    reaction frame: torque +T h

    The target frame receives the torque :math:`-T \hat{h}` and the reaction
    frame (if given) the equal and opposite :math:`+T \hat{h}`, as in the
    course notes (:math:`\bar{Q}_j = -T \hat{h}`). SymPy's
    ``TorqueActuator`` convention (a positive torque drives the target
    positively about the axis) is kept on :attr:`torque`, which is
    :math:`-T`; :attr:`resisting_torque` is the course notes' :math:`T`.

    :math:`\theta` is whatever angle expression the user supplies (for a pin
    joint, :meth:`at_pin_joint` uses the joint coordinate).
    :math:`\dot{\theta}` is :math:`\hat{h} \cdot \bar{\omega}` of the target
    frame relative to the reaction frame, which for a rotation about a
    fixed axis equals :math:`d\theta/dt`; without a reaction frame it is
    :math:`d\theta/dt`. A non-unit ``axis`` is normalized.

    Examples
    ========

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import (PinJoint, ReferenceFrame,
    ...     RigidBody, dynamicsymbols)
    >>> from sympy_loads import RotationalSpringDamperActuator
    >>> k, c, theta0 = symbols('k c theta_0')
    >>> parent, child = RigidBody('P'), RigidBody('C')
    >>> pin = PinJoint('pin', parent, child, joint_axis=parent.frame.z)
    >>> rsda = RotationalSpringDamperActuator.at_pin_joint(
    ...     pin, stiffness=k, damping=c, free_angle=theta0)
    >>> rsda.resisting_torque
    c*u_pin(t) + k*(-theta_0 + q_pin(t))
    >>> rsda.to_loads()  # doctest: +NORMALIZE_WHITESPACE
    [Torque(frame=C_frame, torque=(-c*u_pin(t) - k*(-theta_0 + q_pin(t)))*P_frame.z),
     Torque(frame=P_frame, torque=(c*u_pin(t) + k*(-theta_0 + q_pin(t)))*P_frame.z)]

    Parameters
    ==========

    angle : sympifiable
        The rotation angle :math:`\theta` of the target frame relative to
        the reaction frame about ``axis``.
    axis : Vector
        The rotation axis :math:`\hat{h}` (normalized if it is not a unit
        vector).
    target_frame : ReferenceFrame or RigidBody
        The frame (or body) that receives :math:`-T \hat{h}`.
    reaction_frame : ReferenceFrame or RigidBody, optional
        The frame (or body) that receives :math:`+T \hat{h}`; ``None``
        applies no reaction torque (the reaction is on the Newtonian frame).
    stiffness : sympifiable, optional
        Torsional stiffness :math:`k \ge 0` (torque/angle). Default 0.
    damping : sympifiable, optional
        Rotational damping :math:`c \ge 0` (torque/angular speed).
        Default 0.
    free_angle : sympifiable, optional
        Free angle :math:`\theta_0` of the spring. Default 0.
    friction : sympifiable, optional
        Coulomb friction torque magnitude :math:`T_F \ge 0`. Default 0.
    actuation : sympifiable or callable, optional
        Actuator torque :math:`T_{ACT}` (positive like :math:`T`): an
        expression or a callable ``f(angle, angular_speed)`` returning one.
        Default 0.
    regularization : sympifiable, optional
        Regularization speed of the friction sign; 0 (default) is exact.
    sign_method : str, optional
        ``'tanh'`` (default), ``'atan'``, ``'algebraic'`` or ``'exact'``.

    Raises
    ======

    TypeError
        If ``axis`` is not a Vector, a frame is not a ReferenceFrame or
        RigidBody, or a parameter is not a scalar.
    ValueError
        If ``axis`` is zero, a numeric ``stiffness``, ``damping``,
        ``friction`` or ``regularization`` is negative or ``sign_method``
        is unknown.

    References
    ==========

    .. [Notes3D] Course notes "Three-Dimensional Generalized Forces",
       rotational spring-damper-actuator.
    """

    def __init__(self, angle, axis, target_frame, reaction_frame=None, *,
                 stiffness=0, damping=0, free_angle=0, friction=0,
                 actuation=0, regularization=0, sign_method='tanh'):
        self.angle = angle
        self.axis = axis
        self.target_frame = target_frame
        self.reaction_frame = reaction_frame
        self.stiffness = stiffness
        self.damping = damping
        self.free_angle = free_angle
        self.friction = friction
        self.regularization = regularization
        self.sign_method = sign_method
        self.actuation = actuation

    @classmethod
    def at_pin_joint(cls, pin_joint, **parameters):
        r"""Return the RSDA acting in a SymPy ``PinJoint``.

        Explanation
        ===========

        The angle is the joint's coordinate, the axis the joint's axis, the
        target frame the child's joint frame and the reaction frame the
        parent's, so :math:`\dot{\theta}` is the joint's generalized speed
        and a positive ``resisting_torque`` opposes a positive joint
        rotation.

        Examples
        ========

        >>> from sympy import symbols
        >>> from sympy.physics.mechanics import PinJoint, RigidBody
        >>> from sympy_loads import RotationalSpringDamperActuator
        >>> parent, child = RigidBody('P'), RigidBody('C')
        >>> pin = PinJoint('pin', parent, child, joint_axis=parent.frame.z)
        >>> RotationalSpringDamperActuator.at_pin_joint(
        ...     pin, stiffness=symbols('k'))
        RotationalSpringDamperActuator(q_pin(t), P_frame.z, C_frame, P_frame, stiffness=k)

        Parameters
        ==========

        pin_joint : PinJoint
            The joint.
        **parameters
            The keyword arguments of the constructor (``stiffness``,
            ``damping``, ``free_angle``, ``friction``, ``actuation``,
            ``regularization``, ``sign_method``).

        Raises
        ======

        TypeError
            If ``pin_joint`` is not a ``PinJoint``.
        """
        _check_type('pin_joint', pin_joint, PinJoint)
        return cls(pin_joint.coordinates[0], pin_joint.joint_axis,
                   pin_joint.child_interframe, pin_joint.parent_interframe,
                   **parameters)

    @property
    def angle(self):
        r"""The angle :math:`\theta` of the target frame about the axis."""
        return self._angle

    @angle.setter
    def angle(self, value):
        _set_once(self, 'angle', _sympify_scalar('angle', value))

    @property
    def axis(self):
        r"""The unit axis :math:`\hat{h}` of the rotation."""
        return self._axis

    @axis.setter
    def axis(self, axis):
        _check_type('axis', axis, Vector)
        if hasattr(self, '_axis'):
            _set_once(self, 'axis', None)
        if _is_zero_vector(axis):
            raise ValueError('axis must be a nonzero Vector, got 0.')
        magnitude = sm.simplify(axis.magnitude())
        if magnitude != 1:
            axis = axis / magnitude
        _set_once(self, 'axis', axis)

    stiffness = SpringDamperActuator.stiffness
    damping = SpringDamperActuator.damping
    friction = SpringDamperActuator.friction
    regularization = SpringDamperActuator.regularization
    sign_method = SpringDamperActuator.sign_method

    @property
    def free_angle(self):
        r"""Free angle :math:`\theta_0` of the torsional spring."""
        return self._free_angle

    @free_angle.setter
    def free_angle(self, value):
        _set_once(self, 'free_angle', _sympify_scalar('free_angle', value))

    @property
    def actuation(self):
        """Actuator torque :math:`T_{ACT}` (an expression; a callable given
        to the constructor has been evaluated on the angle and angular
        speed)."""
        return self._actuation

    @actuation.setter
    def actuation(self, value):
        if hasattr(self, '_actuation'):
            _set_once(self, 'actuation', None)
        if callable(value) and not isinstance(value, sm.Basic):
            value = _actuation_expression(value, self.angle,
                                          self.angular_speed,
                                          'angle, angular_speed')
        else:
            value = _sympify_scalar('actuation', value)
        _set_once(self, 'actuation', value)

    @property
    def angular_speed(self):
        r""":math:`\dot{\theta} = \hat{h} \cdot (\bar{\omega}_{target} -
        \bar{\omega}_{reaction})` (:math:`d\theta/dt` when there is no
        reaction frame)."""
        if self.reaction_frame is None:
            return self.angle.diff(dynamicsymbols._t)
        return self.target_frame.ang_vel_in(self.reaction_frame).dot(
            self.axis)

    @property
    def resisting_torque(self):
        r"""The resisting torque of the course notes, positive when it
        resists a positive :math:`\theta`,
        :math:`T = k (\theta - \theta_0) + c \dot{\theta}
        + T_F \operatorname{sgn}(\dot{\theta}) + T_{ACT}`."""
        speed = self.angular_speed
        torque = S0 = sm.S.Zero
        if self.stiffness != S0:
            torque += self.stiffness * (self.angle - self.free_angle)
        if self.damping != S0:
            torque += self.damping * speed
        if self.friction != S0:
            torque += self.friction * smooth_sign(
                speed, self.regularization, self.sign_method)
        return torque + self.actuation

    @property
    def torque(self):
        """SymPy's ``TorqueActuator`` torque (positive drives the target
        positively about the axis): ``-resisting_torque``."""
        return -self.resisting_torque

    @torque.setter
    def torque(self, value):
        raise AttributeError(
            "Can't set the computed attribute torque of "
            'RotationalSpringDamperActuator; give stiffness, damping, '
            'friction or actuation instead.')

    def to_loads(self):
        r"""Return ``[Torque(target, ...), Torque(reaction, ...)]`` with the
        torques :math:`-T \hat{h}` and :math:`T \hat{h}` (the second only
        with a reaction frame).

        Examples
        ========

        >>> from sympy import symbols
        >>> from sympy.physics.mechanics import ReferenceFrame, dynamicsymbols
        >>> from sympy_loads import RotationalSpringDamperActuator
        >>> N, A = ReferenceFrame('N'), ReferenceFrame('A')
        >>> q = dynamicsymbols('q')
        >>> A.orient_axis(N, N.z, q)
        >>> RotationalSpringDamperActuator(q, N.z, A, N,
        ...     damping=symbols('c')).to_loads()  # doctest: +NORMALIZE_WHITESPACE
        [Torque(frame=A, torque=- c*Derivative(q(t), t)*N.z),
         Torque(frame=N, torque=c*Derivative(q(t), t)*N.z)]
        """
        return super().to_loads()

    def __repr__(self):
        parts = [str(self.angle), str(self.axis), str(self.target_frame)]
        if self.reaction_frame is not None:
            parts.append(str(self.reaction_frame))
        for name in ('stiffness', 'damping', 'free_angle', 'friction',
                     'actuation', 'regularization'):
            value = getattr(self, name)
            if not _is_default(value, 0):        # 0 and 0.0 alike
                parts.append(f'{name}={value}')
        if self.sign_method != 'tanh':
            parts.append(f'sign_method={self.sign_method!r}')
        return f'{type(self).__name__}({", ".join(parts)})'
