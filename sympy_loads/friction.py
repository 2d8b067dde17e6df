"""Friction laws and smooth sign functions.

The scalar laws take a slip speed ``v`` and a normal force magnitude ``N``
and return the friction force along ``v`` (opposing it).
"""

import sympy as sm

from ._utils import _sympify_scalar

__all__ = ['smooth_sign', 'SIGN_METHODS', 'coulomb_friction', 'viscous_friction',
           'stribeck_friction', 'friction_law', 'friction_magnitude']

#: Names accepted by :func:`smooth_sign` for its ``method`` argument.
SIGN_METHODS = ('exact', 'tanh', 'atan', 'algebraic')


def smooth_sign(x, regularization=0, method='tanh'):
    r"""Return the sign of ``x``, exact or regularized by a speed ``eps``.

    Explanation
    ===========

    Regularized sign functions replace the jump of ``sign(x)`` at zero by a
    smooth ramp of width ``eps`` so that friction laws can be integrated by
    ordinary ODE solvers::

        'tanh'       tanh(x/eps)
        'atan'       (2/pi) atan(x/eps)
        'algebraic'  x/sqrt(x**2 + eps**2)
        'exact'      sign(x)            (used whenever eps = 0)

    All are odd, bounded by 1 and exactly zero at ``x = 0``; the same
    ``eps`` gives different laws (at ``x = 3 eps`` they reach 0.995, 0.795
    and 0.949).

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
        The regularization speed ``eps`` (nonnegative). Zero (the default)
        gives the exact ``sign`` whatever the method.
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
    if method not in SIGN_METHODS:
        raise ValueError(
            f'method must be one of {SIGN_METHODS}, got {method!r}.')
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

    The force has the constant magnitude ``mu_k N`` and opposes the slip
    speed ``v`` [Moore]_::

        F = -mu_k N sgn(v)

            F ^
        muN |------           v > 0: F = -mu N
            |                 v = 0: F = 0 (exact sign) or a smooth ramp
          --+------> v        v < 0: F = +mu N
            |------ -muN

    With ``regularization`` ``eps > 0`` the sign is replaced by the smooth
    sign of :func:`smooth_sign`, so the law is continuous through ``v = 0``
    and can be integrated by ordinary ODE solvers. At ``v = 0`` the force is
    exactly zero either way; the static range ``|F| <= mu_s N`` of a body at
    rest cannot be expressed by an explicit function of ``v``.

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
        The slip speed ``v`` of the body the force acts on, relative to the
        surface it slides on (positive in the direction the force is
        measured in).
    normal_force : sympifiable
        The magnitude ``N >= 0`` of the normal force between the surfaces.
    coefficient : sympifiable
        The coefficient of kinetic friction ``mu_k >= 0``.
    regularization : sympifiable, optional
        The regularization speed ``eps >= 0`` of the smooth sign; 0 (the
        default) gives the exact ``sign``.
    sign_method : str, optional
        ``'tanh'`` (default), ``'atan'``, ``'algebraic'`` or ``'exact'``; see
        :func:`smooth_sign`.

    Returns
    =======

    Expr
        The friction force along the positive direction of ``v``.

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
        speed, regularization, sign_method)


def viscous_friction(speed, coefficient):
    r"""Return the viscous friction force ``-c_v v`` along the slip speed.

    Explanation
    ===========

    A force proportional to the slip speed that opposes it, e.g. a
    lubricated contact [Flores2023]_::

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
        The slip speed ``v``.
    coefficient : sympifiable
        The viscous friction coefficient ``c_v >= 0`` (force per speed).

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
    ``mu_s N`` to the kinetic value ``mu_k N`` over a speed scale ``v_s``
    (the Stribeck effect); a viscous term may be added [Flores2023]_::

        F = -[mu_k N + (mu_s - mu_k) N exp(-(|v|/v_s)**delta)] sgn(v) - c_v v

            |F|
        musN |  .
             |    ` .
        mukN |        ` - - - - -      (plus c_v |v| if viscous)
             +--------------------> |v|
                 v_s

    ``delta = 2`` (the default) is the usual Gaussian form, written with
    ``v**2`` instead of ``Abs(v)**2``. The sign is exact unless a
    ``regularization`` speed is given (see :func:`smooth_sign`); choose
    ``eps`` well below ``v_s`` or the smooth ramp hides the static peak.

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
        The slip speed ``v``.
    normal_force : sympifiable
        The normal force magnitude ``N >= 0``.
    kinetic_coefficient : sympifiable
        ``mu_k >= 0``.
    static_coefficient : sympifiable
        ``mu_s >= mu_k``.
    stribeck_speed : sympifiable
        The Stribeck speed ``v_s > 0``.
    exponent : sympifiable, optional
        The exponent ``delta > 0`` of the Stribeck curve; 2 by default.
    viscous_coefficient : sympifiable, optional
        ``c_v >= 0``; 0 by default.
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
        If a numeric parameter has the wrong sign (``N``, ``mu_k``, ``c_v``,
        ``eps`` negative; ``v_s`` or ``delta`` not positive) or
        ``mu_s < mu_k``.

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
    r"""Return the magnitude ``f(s) >= 0`` of the friction force at the slip
    speed ``s = |v|``.

    Explanation
    ===========

    The combined law of :func:`friction_law` is ``F = -f(|v|) sgn(v)``
    with::

        f(s) = mu_k N + (mu_s - mu_k) N exp(-(s/v_s)**delta) + c_v s

    (the Stribeck term only when ``mu_s`` is given). The vector friction
    force of :class:`SlidingFriction` is ``-f(s)`` times the smoothed unit
    slip direction. ``slip_speed`` is treated as a magnitude (``s >= 0``).

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
    cases [Flores2023]_::

        F = -[mu_k N + (mu_s - mu_k) N exp(-(|v|/v_s)**delta)] sgn(v) - c_v v

    Leave ``static_coefficient`` out for plain Coulomb (plus viscous)
    friction. ``sgn`` is the exact sign, or the smooth sign of
    :func:`smooth_sign` when ``regularization > 0``. Sign convention: ``F``
    and ``v`` are measured along the same direction, so ``F v <= 0``: the
    law never adds energy.

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
        The slip speed ``v``.
    normal_force : sympifiable, optional
        The normal force magnitude ``N >= 0``.
    kinetic_coefficient : sympifiable, optional
        ``mu_k >= 0``; 0 by default.
    static_coefficient : sympifiable, optional
        ``mu_s >= mu_k``; needs ``stribeck_speed``. ``None`` (default): no
        Stribeck term.
    stribeck_speed : sympifiable, optional
        ``v_s > 0``.
    exponent : sympifiable, optional
        ``delta > 0`` of the Stribeck curve; 2 by default.
    viscous_coefficient : sympifiable, optional
        ``c_v >= 0``; 0 by default.
    regularization : sympifiable, optional
        The regularization speed ``eps >= 0`` of the sign; 0 (default)
        gives the exact ``sign``.
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
        If a numeric parameter has the wrong sign, ``mu_s < mu_k``, or only
        one of ``static_coefficient`` and ``stribeck_speed`` is given.

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
    return (-level * smooth_sign(speed, regularization, sign_method)
            - c_v * speed)
