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
.. [Flores2023] P. Flores, J. Ambrosio, H. M. Lankarani, "Contact-impact
   events with friction in multibody dynamics: Back to basics", Mech. Mach.
   Theory 184 (2023) 105305.
"""

import sympy as sm
from sympy.physics.mechanics import (ActuatorBase, Force, Point,
                                     ReferenceFrame, RigidBody)
from sympy.physics.vector import Vector

from ._utils import (_check_type, _is_zero_vector, _nonzero_norm, _set_once,
                     _sympify_scalar, _zero_indicator, euclidean_norm)

__all__ = ['smooth_sign', 'SIGN_METHODS', 'coulomb_friction', 'viscous_friction',
           'stribeck_friction', 'friction_law', 'friction_magnitude',
           'sliding_friction_force', 'SlidingFriction']

#: Names accepted by :func:`smooth_sign` for its ``method`` argument.
SIGN_METHODS = ('exact', 'tanh', 'atan', 'algebraic')


def _check_sign_method(value, argname='sign_method'):
    """Return ``value`` if it is one of :data:`SIGN_METHODS`, else raise
    ``ValueError`` naming ``argname`` (the one check every module uses)."""
    if not isinstance(value, str) or value not in SIGN_METHODS:
        raise ValueError(
            f'{argname} must be one of {SIGN_METHODS}, got {value!r}.')
    return value


def smooth_sign(x, regularization=0, method='tanh'):
    r"""Return the sign of ``x``, exact or regularized by a speed
    :math:`\varepsilon`.

    Explanation
    ===========

    Regularized sign functions replace the jump of
    :math:`\operatorname{sgn}(x)` at zero by a smooth ramp of width
    :math:`\varepsilon` so that friction laws can be integrated by ordinary
    ODE solvers:

    ===============  ==================================================
    ``method``       sign of :math:`x`
    ===============  ==================================================
    ``'tanh'``       :math:`\tanh(x/\varepsilon)`
    ``'atan'``       :math:`\frac{2}{\pi} \arctan(x/\varepsilon)`
    ``'algebraic'``  :math:`x/\sqrt{x^2 + \varepsilon^2}`
    ``'exact'``      :math:`\operatorname{sgn}(x)` (used whenever
                     :math:`\varepsilon = 0`)
    ===============  ==================================================

    All are odd, bounded by 1 and exactly zero at :math:`x = 0`; the same
    :math:`\varepsilon` gives different laws (at :math:`x = 3 \varepsilon`
    they reach 0.995, 0.795 and 0.949).

    Examples
    ========

    >>> from sympy import symbols
    >>> from sympy_loads import smooth_sign
    >>> v, eps = symbols('v epsilon', positive=True)
    >>> smooth_sign(v, eps)
    tanh(v/epsilon)
    >>> smooth_sign(v, eps, method='algebraic')
    v/sqrt(epsilon**2 + v**2)
    >>> smooth_sign(v)
    1

    Parameters
    ==========

    x : sympifiable
        The argument, typically a slip speed.
    regularization : sympifiable, optional
        The regularization speed :math:`\varepsilon` (nonnegative). Zero
        (the default) gives the exact ``sign`` whatever the method.
    method : str, optional
        One of ``'tanh'`` (default), ``'atan'``, ``'algebraic'`` or
        ``'exact'``.

    Raises
    ======

    TypeError
        If ``x`` or ``regularization`` is not a scalar.
    ValueError
        If ``method`` is unknown or ``regularization`` is negative.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Coulomb's Law of Friction".
    .. [Brown2016] P. Brown, J. McPhee, "A Continuous Velocity-Based
       Friction Model for Dynamics and Control With Physically Meaningful
       Parameters", J. Comput. Nonlinear Dyn. 11 (2016) 054502.
    """
    x = _sympify_scalar('x', x)
    eps = _sympify_scalar('regularization', regularization, nonnegative=True)
    _check_sign_method(method, 'method')
    if method == 'exact' or eps == 0:
        return sm.sign(x)
    if method == 'tanh':
        return sm.tanh(x / eps)
    if method == 'atan':
        return 2 / sm.pi * sm.atan(x / eps)
    return x / sm.sqrt(x**2 + eps**2)


def coulomb_friction(speed, normal_force, coefficient, *, regularization=0,
                     sign_method='tanh'):
    r"""Return Coulomb's kinetic friction force along the slip speed.

    Explanation
    ===========

    The force has the constant magnitude :math:`\mu_k N` and opposes the
    slip speed :math:`v` [Moore]_:

    .. math::

       F = -\mu_k N \operatorname{sgn}(v) =
       \begin{cases}
          -\mu_k N & v > 0 \\
          0 & v = 0 \\
          +\mu_k N & v < 0
       \end{cases}

    with the exact sign; a smooth sign turns the step at :math:`v = 0` into
    a ramp. With ``regularization`` :math:`\varepsilon > 0` the sign is
    replaced by the smooth sign of :func:`smooth_sign`, so the law is
    continuous through :math:`v = 0` and can be integrated by ordinary ODE
    solvers. At :math:`v = 0` the force is exactly zero either way; the
    static range :math:`|F| \le \mu_s N` of a body at rest cannot be
    expressed by an explicit function of :math:`v`. The tutorial
    :doc:`/tutorials/springs_dampers_friction` plots the law.

    Examples
    ========

    >>> from sympy import symbols
    >>> from sympy_loads import coulomb_friction
    >>> v, N, mu, eps = symbols('v N mu_k epsilon')
    >>> coulomb_friction(v, N, mu)
    -N*mu_k*sign(v)
    >>> coulomb_friction(v, N, mu, regularization=eps)
    -N*mu_k*tanh(v/epsilon)
    >>> coulomb_friction(-2, 10, 0.3)
    3.00000000000000

    Parameters
    ==========

    speed : sympifiable
        The slip speed :math:`v` of the body the force acts on, relative to
        the surface it slides on (positive in the direction the force is
        measured in).
    normal_force : sympifiable
        The magnitude :math:`N \ge 0` of the normal force between the
        surfaces.
    coefficient : sympifiable
        The coefficient of kinetic friction :math:`\mu_k \ge 0`.
    regularization : sympifiable, optional
        The regularization speed :math:`\varepsilon \ge 0` of the smooth
        sign; 0 (the default) gives the exact ``sign``.
    sign_method : str, optional
        ``'tanh'`` (default), ``'atan'``, ``'algebraic'`` or ``'exact'``; see
        :func:`smooth_sign`.

    Returns
    =======

    Expr
        The friction force along the positive direction of :math:`v`.

    Raises
    ======

    TypeError
        If an argument is not a scalar.
    ValueError
        If a numeric ``normal_force``, ``coefficient`` or ``regularization``
        is negative, or ``sign_method`` is unknown.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Friction", eq. "coulomb-kinetic-friction".
    """
    speed = _sympify_scalar('speed', speed)
    normal_force = _sympify_scalar('normal_force', normal_force,
                                   nonnegative=True)
    coefficient = _sympify_scalar('coefficient', coefficient,
                                  nonnegative=True)
    return -coefficient * normal_force * smooth_sign(
        speed, regularization, _check_sign_method(sign_method))


def viscous_friction(speed, coefficient):
    r"""Return the viscous friction force :math:`-c_v v` along the slip
    speed.

    Explanation
    ===========

    A force proportional to the slip speed that opposes it, e.g. a
    lubricated contact [Flores2023]_:

    .. math::

       F = -c_v v

    Examples
    ========

    >>> from sympy import symbols
    >>> from sympy_loads import viscous_friction
    >>> v, c = symbols('v c_v')
    >>> viscous_friction(v, c)
    -c_v*v

    Parameters
    ==========

    speed : sympifiable
        The slip speed :math:`v`.
    coefficient : sympifiable
        The viscous friction coefficient :math:`c_v \ge 0` (force per
        speed).

    Returns
    =======

    Expr

    Raises
    ======

    TypeError
        If an argument is not a scalar.
    ValueError
        If a numeric ``coefficient`` is negative.

    References
    ==========

    .. [Flores2023] P. Flores, J. Ambrosio, H. M. Lankarani,
       "Contact-impact events with friction in multibody dynamics: Back to
       basics", Mech. Mach. Theory 184 (2023) 105305, fig. 18(c).
    """
    speed = _sympify_scalar('speed', speed)
    coefficient = _sympify_scalar('coefficient', coefficient,
                                  nonnegative=True)
    return -coefficient * speed


def stribeck_friction(speed, normal_force, kinetic_coefficient,
                      static_coefficient, stribeck_speed, *, exponent=2,
                      viscous_coefficient=0, regularization=0,
                      sign_method='tanh'):
    r"""Return Coulomb friction with a static peak (Stribeck curve) and an
    optional viscous term.

    Explanation
    ===========

    At low slip speed the friction level falls from the static value
    :math:`\mu_s N` to the kinetic value :math:`\mu_k N` over a speed scale
    :math:`v_s` (the Stribeck effect); a viscous term may be added
    [Flores2023]_:

    .. math::

       F = -\left[\mu_k N + (\mu_s - \mu_k) N
           e^{-(|v|/v_s)^\delta}\right] \operatorname{sgn}(v) - c_v v

    With the exact sign the level starts at the static peak and decays to
    the kinetic level (plus the viscous part :math:`c_v |v|`):

    .. math::

       |F| \to \mu_s N \quad (|v| \to 0), \qquad
       |F| \approx \mu_k N + c_v |v| \quad (|v| \gg v_s)

    (plotted in the tutorial :doc:`/tutorials/springs_dampers_friction`).
    :math:`\delta = 2` (the default) is the usual Gaussian form, written
    with ``v**2`` instead of ``Abs(v)**2``. The sign is exact unless a
    ``regularization`` speed is given (see :func:`smooth_sign`); choose
    :math:`\varepsilon` well below :math:`v_s` or the smooth ramp hides the
    static peak.

    Examples
    ========

    >>> from sympy import symbols
    >>> from sympy_loads import stribeck_friction
    >>> v, N, mu_k, mu_s, v_s = symbols('v N mu_k mu_s v_s')
    >>> stribeck_friction(v, N, mu_k, mu_s, v_s)
    (-N*mu_k - N*(-mu_k + mu_s)*exp(-v**2/v_s**2))*sign(v)

    Just above zero slip the level is the static one, far above it the
    kinetic one:

    >>> round(float(stribeck_friction(1e-6, 10, 0.3, 0.5, 0.01)), 6)
    -5.0
    >>> round(float(stribeck_friction(1.0, 10, 0.3, 0.5, 0.01)), 6)
    -3.0

    Parameters
    ==========

    speed : sympifiable
        The slip speed :math:`v`.
    normal_force : sympifiable
        The normal force magnitude :math:`N \ge 0`.
    kinetic_coefficient : sympifiable
        :math:`\mu_k \ge 0`.
    static_coefficient : sympifiable
        :math:`\mu_s \ge \mu_k`.
    stribeck_speed : sympifiable
        The Stribeck speed :math:`v_s > 0`.
    exponent : sympifiable, optional
        The exponent :math:`\delta > 0` of the Stribeck curve; 2 by
        default.
    viscous_coefficient : sympifiable, optional
        :math:`c_v \ge 0`; 0 by default.
    regularization, sign_method : optional
        As in :func:`coulomb_friction`.

    Returns
    =======

    Expr

    Raises
    ======

    TypeError
        If an argument is not a scalar.
    ValueError
        If a numeric parameter has the wrong sign (:math:`N`,
        :math:`\mu_k`, :math:`c_v`, :math:`\varepsilon` negative;
        :math:`v_s` or :math:`\delta` not positive) or
        :math:`\mu_s < \mu_k`.

    References
    ==========

    .. [Flores2023] P. Flores, J. Ambrosio, H. M. Lankarani,
       "Contact-impact events with friction in multibody dynamics: Back to
       basics", Mech. Mach. Theory 184 (2023) 105305, fig. 18.
    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Friction".
    """
    return friction_law(
        speed, normal_force, kinetic_coefficient=kinetic_coefficient,
        static_coefficient=static_coefficient, stribeck_speed=stribeck_speed,
        exponent=exponent, viscous_coefficient=viscous_coefficient,
        regularization=regularization, sign_method=sign_method)


def friction_magnitude(slip_speed, normal_force=0, *, kinetic_coefficient=0,
                       static_coefficient=None, stribeck_speed=None,
                       exponent=2, viscous_coefficient=0):
    r"""Return the magnitude :math:`f(s) \ge 0` of the friction force at
    the slip speed :math:`s = |v|`.

    Explanation
    ===========

    The combined law of :func:`friction_law` is
    :math:`F = -f(|v|) \operatorname{sgn}(v)` with

    .. math::

       f(s) = \mu_k N + (\mu_s - \mu_k) N e^{-(s/v_s)^\delta} + c_v s

    (the Stribeck term only when :math:`\mu_s` is given). The vector
    friction force of :class:`SlidingFriction` is :math:`-f(s)` times the
    smoothed unit slip direction. ``slip_speed`` is treated as a magnitude
    (:math:`s \ge 0`).

    Examples
    ========

    >>> from sympy import symbols
    >>> from sympy_loads import friction_magnitude
    >>> s, N, mu, c = symbols('s N mu_k c_v', nonnegative=True)
    >>> friction_magnitude(s, N, kinetic_coefficient=mu, viscous_coefficient=c)
    N*mu_k + c_v*s

    Parameters
    ==========

    See :func:`friction_law`.

    References
    ==========

    .. [Flores2023] P. Flores, J. Ambrosio, H. M. Lankarani,
       "Contact-impact events with friction in multibody dynamics: Back to
       basics", Mech. Mach. Theory 184 (2023) 105305, fig. 18.
    """
    s = _sympify_scalar('slip_speed', slip_speed)
    params = _friction_parameters(
        normal_force, kinetic_coefficient, static_coefficient,
        stribeck_speed, exponent, viscous_coefficient)
    level, viscous = _magnitude(s, *params)
    return level + viscous


def _friction_parameters(normal_force, kinetic_coefficient,
                         static_coefficient, stribeck_speed, exponent,
                         viscous_coefficient):
    """Validate the parameters of the combined law; return them sympified
    as ``(N, mu_k, mu_s or None, v_s or None, delta, c_v)``."""
    normal_force = _sympify_scalar('normal_force', normal_force,
                                   nonnegative=True)
    mu_k = _sympify_scalar('kinetic_coefficient', kinetic_coefficient,
                           nonnegative=True)
    c_v = _sympify_scalar('viscous_coefficient', viscous_coefficient,
                          nonnegative=True)
    delta = _sympify_scalar('exponent', exponent, positive=True)
    if static_coefficient is None:
        if stribeck_speed is not None:
            raise ValueError(
                'stribeck_speed was given without static_coefficient; the '
                'Stribeck curve needs both.')
        return normal_force, mu_k, None, None, delta, c_v
    mu_s = _sympify_scalar('static_coefficient', static_coefficient,
                           nonnegative=True)
    if (mu_s - mu_k).is_negative:
        raise ValueError(
            f'static_coefficient must be >= kinetic_coefficient, got '
            f'mu_s = {mu_s} < mu_k = {mu_k}.')
    if stribeck_speed is None:
        raise ValueError(
            'static_coefficient needs a stribeck_speed > 0 (the speed over '
            'which friction falls from the static to the kinetic level).')
    v_s = _sympify_scalar('stribeck_speed', stribeck_speed, positive=True)
    if v_s.is_zero:
        raise ValueError('stribeck_speed must be positive, got 0.')
    return normal_force, mu_k, mu_s, v_s, delta, c_v


def _magnitude(s, normal_force, mu_k, mu_s, v_s, delta, c_v):
    """``f(s)`` of the combined law for ``s = |v|`` (or ``v`` itself when
    only even powers of it occur)."""
    level = mu_k * normal_force
    if mu_s is not None:
        if delta == 2:
            decay = sm.exp(-s**2 / v_s**2)
        else:
            decay = sm.exp(-(s / v_s)**delta)
        level += (mu_s - mu_k) * normal_force * decay
    return level, c_v * s


def friction_law(speed, normal_force=0, *, kinetic_coefficient=0,
                 static_coefficient=None, stribeck_speed=None, exponent=2,
                 viscous_coefficient=0, regularization=0,
                 sign_method='tanh'):
    r"""Return the combined Coulomb, Stribeck and viscous friction force
    along the slip speed.

    Explanation
    ===========

    The general scalar law from which :func:`coulomb_friction`,
    :func:`stribeck_friction` and :func:`viscous_friction` are special
    cases [Flores2023]_:

    .. math::

       F = -\left[\mu_k N + (\mu_s - \mu_k) N e^{-(|v|/v_s)^\delta}\right]
           \operatorname{sgn}(v) - c_v v

    Leave ``static_coefficient`` out for plain Coulomb (plus viscous)
    friction. :math:`\operatorname{sgn}` is the exact sign, or the smooth
    sign of :func:`smooth_sign` when ``regularization > 0``. Sign
    convention: :math:`F` and :math:`v` are measured along the same
    direction, so :math:`F v \le 0`: the law never adds energy.

    Examples
    ========

    >>> from sympy import symbols
    >>> from sympy_loads import friction_law
    >>> v, N, mu, c, eps = symbols('v N mu_k c_v epsilon')
    >>> friction_law(v, N, kinetic_coefficient=mu, viscous_coefficient=c)
    -N*mu_k*sign(v) - c_v*v
    >>> friction_law(v, N, kinetic_coefficient=mu, regularization=eps,
    ...              sign_method='algebraic')
    -N*mu_k*v/sqrt(epsilon**2 + v**2)

    Parameters
    ==========

    speed : sympifiable
        The slip speed :math:`v`.
    normal_force : sympifiable, optional
        The normal force magnitude :math:`N \ge 0`.
    kinetic_coefficient : sympifiable, optional
        :math:`\mu_k \ge 0`; 0 by default.
    static_coefficient : sympifiable, optional
        :math:`\mu_s \ge \mu_k`; needs ``stribeck_speed``. ``None``
        (default): no Stribeck term.
    stribeck_speed : sympifiable, optional
        :math:`v_s > 0`.
    exponent : sympifiable, optional
        :math:`\delta > 0` of the Stribeck curve; 2 by default.
    viscous_coefficient : sympifiable, optional
        :math:`c_v \ge 0`; 0 by default.
    regularization : sympifiable, optional
        The regularization speed :math:`\varepsilon \ge 0` of the sign; 0
        (default) gives the exact ``sign``.
    sign_method : str, optional
        See :func:`smooth_sign`.

    Returns
    =======

    Expr

    Raises
    ======

    TypeError
        If an argument is not a scalar.
    ValueError
        If a numeric parameter has the wrong sign, :math:`\mu_s < \mu_k`, or
        only one of ``static_coefficient`` and ``stribeck_speed`` is given.

    References
    ==========

    .. [Flores2023] P. Flores, J. Ambrosio, H. M. Lankarani,
       "Contact-impact events with friction in multibody dynamics: Back to
       basics", Mech. Mach. Theory 184 (2023) 105305, fig. 18.
    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Friction".
    """
    speed = _sympify_scalar('speed', speed)
    params = _friction_parameters(
        normal_force, kinetic_coefficient, static_coefficient,
        stribeck_speed, exponent, viscous_coefficient)
    normal_force, mu_k, mu_s, v_s, delta, c_v = params
    s = speed if (mu_s is None or delta == 2) else sm.Abs(speed)
    level, _ = _magnitude(s, *params)
    return (-level * smooth_sign(speed, regularization,
                                 _check_sign_method(sign_method))
            - c_v * speed)


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
    if method == 'exact' or eps == 0:
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
    .. [Flores2023] P. Flores, J. Ambrosio, H. M. Lankarani,
       "Contact-impact events with friction in multibody dynamics: Back to
       basics", Mech. Mach. Theory 184 (2023) 105305.
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
    level, _ = _magnitude(sm.sqrt(s2) if params[4] == 2 else s, *params)
    if sign_method == 'algebraic' and eps != 0:
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
    .. [Flores2023] P. Flores, J. Ambrosio, H. M. Lankarani,
       "Contact-impact events with friction in multibody dynamics: Back to
       basics", Mech. Mach. Theory 184 (2023) 105305.
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
                       doc='The surface body or frame (None: ``frame``).')
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
            if value != default:
                parts.append(f'{name}={value!r}' if isinstance(value, str)
                             else f'{name}={value}')
        if self.surface is not None:
            parts.append(f'surface={self.surface}')
        return f'{type(self).__name__}({", ".join(parts)})'
