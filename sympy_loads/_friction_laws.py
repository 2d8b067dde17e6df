"""Scalar friction laws and the smooth sign function.

:func:`smooth_sign` (methods :data:`SIGN_METHODS`), :func:`coulomb_friction`,
:func:`viscous_friction`, :func:`stribeck_friction`, their combination
:func:`friction_law` and its magnitude :func:`friction_magnitude`.
Private module: the public names are imported from, and documented with,
:mod:`sympy_loads.friction`.
"""

import sympy as sm

from ._utils import _equals, _sympify_scalar

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
       https://moorepants.github.io/learn-multibody-dynamics/
    .. [Brown2016] P. Brown, J. McPhee, "A Continuous Velocity-Based
       Friction Model for Dynamics and Control With Physically Meaningful
       Parameters", J. Comput. Nonlinear Dyn. 11 (2016) 054502.
       https://doi.org/10.1115/1.4033658
    """
    x = _sympify_scalar('x', x)
    eps = _sympify_scalar('regularization', regularization, nonnegative=True)
    _check_sign_method(method, 'method')
    if method == 'exact' or eps.is_zero:
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
       https://moorepants.github.io/learn-multibody-dynamics/
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
       https://doi.org/10.1016/j.mechmachtheory.2023.105305
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
       https://doi.org/10.1016/j.mechmachtheory.2023.105305
    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Friction".
       https://moorepants.github.io/learn-multibody-dynamics/
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
       https://doi.org/10.1016/j.mechmachtheory.2023.105305
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
        if _equals(delta, 2):
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
       https://doi.org/10.1016/j.mechmachtheory.2023.105305
    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Friction".
       https://moorepants.github.io/learn-multibody-dynamics/
    """
    speed = _sympify_scalar('speed', speed)
    params = _friction_parameters(
        normal_force, kinetic_coefficient, static_coefficient,
        stribeck_speed, exponent, viscous_coefficient)
    normal_force, mu_k, mu_s, v_s, delta, c_v = params
    s = speed if (mu_s is None or _equals(delta, 2)) else sm.Abs(speed)
    level, _ = _magnitude(s, *params)
    return (-level * smooth_sign(speed, regularization,
                                 _check_sign_method(sign_method))
            - c_v * speed)
