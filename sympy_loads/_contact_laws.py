"""Restitution and material laws of the Hunt-Crossley contact.

:func:`hysteresis_factor` (the damping models of :data:`DAMPING_MODELS`),
:func:`damping_from_restitution`, :func:`effective_restitution` and
:func:`hertz_stiffness`. Private module: the public names are imported
from, and documented with, :mod:`sympy_loads.contact`.
"""

import sympy as sm

from ._utils import _sympify_scalar

# The names accepted by damping_from_restitution for ``model``; documented
# (for autodoc) where sympy_loads.contact binds it.
DAMPING_MODELS = ('hunt-crossley', 'herbert-mcwhannell', 'lee-wang',
                  'lankarani-nikravesh', 'gonthier', 'zhiying-qishao',
                  'flores', 'hu-guo')

# Models whose factor chi(e) grows without bound as e -> 0; they need e > 0.
_DIVIDE_BY_E = ('gonthier', 'flores', 'hu-guo')


def hysteresis_factor(restitution, model='gonthier'):
    r"""Return the dimensionless hysteresis damping factor :math:`\chi(e)`.

    Explanation
    ===========

    The Hunt-Crossley family writes the normal force as
    :math:`f = k d^n (1 + \chi \dot{d}/v_0)` where :math:`v_0` is the normal
    approach speed at the start of the impact; the models differ in the
    factor :math:`\chi` they assign to a coefficient of restitution
    :math:`e` [Flores2022]_:

    .. list-table::
       :header-rows: 1

       * - ``model``
         - :math:`\chi(e)`
         - source
       * - ``'hunt-crossley'``
         - :math:`3(1 - e)/2`
         - [Hunt1975]_
       * - ``'herbert-mcwhannell'``
         - :math:`6(1 - e)/((2e - 1)^2 + 3)`
         - [Herbert1977]_
       * - ``'lee-wang'``
         - :math:`3(1 - e)/4`
         - [Lee1983]_
       * - ``'lankarani-nikravesh'``
         - :math:`3(1 - e^2)/4`
         - [Lankarani1990]_
       * - ``'gonthier'``
         - :math:`(1 - e^2)/e`
         - [Gonthier2004]_
       * - ``'zhiying-qishao'``
         - :math:`3(1 - e^2) e^{2(1 - e)}/4`
         - [Zhiying2006]_
       * - ``'flores'``
         - :math:`8(1 - e)/(5e)`
         - [Flores2011]_
       * - ``'hu-guo'``
         - :math:`3(1 - e)/(2e)`
         - [HuGuo2015]_

    Models with a finite :math:`\chi` at :math:`e = 0` cannot give low
    restitution. The restitution a factor really gives is
    :func:`effective_restitution`; it is within 0.05 of the requested
    :math:`e` for:

    .. list-table::
       :header-rows: 1

       * - ``model``
         - within 0.05 for
         - never below
       * - ``'hunt-crossley'``
         - :math:`0.75 \le e \le 1`
         - 0.488
       * - ``'herbert-mcwhannell'``
         - :math:`0.61 \le e \le 1`
         - 0.488
       * - ``'lee-wang'``
         - :math:`0.91 \le e \le 1`
         - 0.663
       * - ``'lankarani-nikravesh'``
         - :math:`0.80 \le e \le 1`
         - 0.663
       * - ``'zhiying-qishao'``
         - :math:`0.24 \le e \le 1`
         - 0.179
       * - ``'gonthier'``, ``'flores'``, ``'hu-guo'``
         - :math:`0 < e \le 1`
         - 0

    with Gonthier's the closest overall.

    Examples
    ========

    >>> from sympy import Rational, symbols
    >>> from sympy_loads import hysteresis_factor
    >>> e = symbols('e', positive=True)
    >>> hysteresis_factor(e, 'hunt-crossley')
    3/2 - 3*e/2
    >>> hysteresis_factor(Rational(1, 2), 'gonthier')
    3/2

    Parameters
    ==========

    restitution : sympifiable
        Coefficient of restitution :math:`e`, :math:`0 \le e \le 1`
        (:math:`0 < e` for 'gonthier', 'flores' and 'hu-guo').
    model : str, optional
        One of :data:`DAMPING_MODELS`; default 'gonthier', the most
        accurate over the whole range.

    Raises
    ======

    TypeError
        If ``restitution`` is not a scalar.
    ValueError
        If ``model`` is unknown or ``restitution`` is outside its range.

    References
    ==========

    .. [Hunt1975] K. H. Hunt, F. R. E. Crossley, J. Appl. Mech. 42 (1975)
       440-445. https://doi.org/10.1115/1.3423596
    .. [Herbert1977] R. G. Herbert, D. C. McWhannell, J. Eng. Ind. 99 (1977)
       513-518.
    .. [Lee1983] T. W. Lee, A. C. Wang, J. Mech. Transm. Autom. Des. 105
       (1983) 534-540.
    .. [Lankarani1990] H. M. Lankarani, P. E. Nikravesh, J. Mech. Des. 112
       (1990) 369-376. https://doi.org/10.1115/1.2912617
    .. [Gonthier2004] Y. Gonthier, J. McPhee, C. Lange, J.-C. Piedboeuf,
       Multibody Syst. Dyn. 11 (2004) 209-233.
       https://doi.org/10.1023/B:MUBO.0000029392.21648.bc
    .. [Zhiying2006] Q. Zhiying, L. Qishao, Nonlinear Dyn. 46 (2006)
       307-316.
    .. [Flores2011] P. Flores, M. Machado, M. T. Silva, J. M. Martins,
       Multibody Syst. Dyn. 25 (2011) 357-375.
       https://doi.org/10.1007/s11044-010-9237-4
    .. [HuGuo2015] S. Hu, X. Guo, Multibody Syst. Dyn. 35 (2015) 131-151.
    .. [Flores2022] P. Flores, Multibody Syst. Dyn. 54 (2022) 127-177,
       table of hysteresis damping factors.
       https://doi.org/10.1007/s11044-021-09803-y
    """
    if model not in DAMPING_MODELS:
        raise ValueError(
            f'model must be one of {DAMPING_MODELS}, got {model!r}.')
    e = _sympify_scalar('restitution', restitution, nonnegative=True)
    if (e - 1).is_positive:
        raise ValueError(f'restitution must be at most 1, got {e}.')
    if model in _DIVIDE_BY_E and e.is_zero:
        raise ValueError(
            f'restitution must be positive for model {model!r} (its '
            f'damping is infinite at e = 0), got {e}.')
    one = sm.S.One
    if model == 'hunt-crossley':
        return 3 * (one - e) / 2
    if model == 'herbert-mcwhannell':
        return 6 * (one - e) / ((2 * e - 1)**2 + 3)
    if model == 'lee-wang':
        return 3 * (one - e) / 4
    if model == 'lankarani-nikravesh':
        return 3 * (one - e**2) / 4
    if model == 'gonthier':
        return (one - e**2) / e
    if model == 'zhiying-qishao':
        return 3 * (one - e**2) * sm.exp(2 * (one - e)) / 4
    if model == 'flores':
        return 8 * (one - e) / (5 * e)
    return 3 * (one - e) / (2 * e)


def damping_from_restitution(stiffness, restitution, impact_speed,
                             model='gonthier'):
    r"""Return the damping :math:`c` giving restitution :math:`e` at speed
    :math:`v_0`.

    Explanation
    ===========

    With :math:`f = k d^n + c d^n \dot{d}` and :math:`c = \chi(e) k / v_0`
    the force is :math:`k d^n (1 + \chi \dot{d}/v_0)`; :math:`\chi(e)` is
    the hysteresis factor of the chosen ``model`` (see
    :func:`hysteresis_factor` for the list and which range of :math:`e`
    each model is valid for) [Flores2022]_. Because :math:`v_0` enters
    :math:`c`, a contact built for one impact speed dissipates a different
    fraction of energy at another speed.

    Examples
    ========

    >>> from sympy import symbols
    >>> from sympy_loads import damping_from_restitution
    >>> k, e, v0 = symbols('k e v0', positive=True)
    >>> damping_from_restitution(k, e, v0, model='lankarani-nikravesh')
    k*(3/4 - 3*e**2/4)/v0
    >>> damping_from_restitution(1e6, 0.8, 2.0, model='flores')
    200000.000000000

    Parameters
    ==========

    stiffness : sympifiable
        Contact stiffness :math:`k` (nonnegative).
    restitution : sympifiable
        Coefficient of restitution :math:`e` in :math:`[0, 1]`
        (:math:`(0, 1]` for the models that divide by :math:`e`).
    impact_speed : sympifiable
        Normal approach speed :math:`v_0` at the start of the impact
        (positive).
    model : str, optional
        One of :data:`DAMPING_MODELS` (default 'gonthier').

    Raises
    ======

    TypeError
        If an argument is not a scalar.
    ValueError
        If a value is out of range or ``model`` is unknown.

    References
    ==========

    .. [Flores2022] P. Flores, "Contact mechanics for dynamical systems: a
       comprehensive review", Multibody Syst. Dyn. 54 (2022) 127-177.
       https://doi.org/10.1007/s11044-021-09803-y
    """
    k = _sympify_scalar('stiffness', stiffness, nonnegative=True)
    v0 = _sympify_scalar('impact_speed', impact_speed, positive=True)
    chi = hysteresis_factor(restitution, model)
    return chi * k / v0


def effective_restitution(hysteresis_factor):
    r"""Return the restitution a hysteresis factor :math:`\chi` really
    produces.

    Explanation
    ===========

    Integrating :math:`m \ddot{d} = -k d^n (1 + \chi \dot{d}/v_0)` over an
    impact in the phase plane gives a rebound speed :math:`e v_0` with
    :math:`e` independent of :math:`m`, :math:`k`, :math:`v_0` and
    :math:`n`, the root in :math:`[0, 1]` of

    .. math::

       \ln\frac{1 + \chi}{1 - \chi e} = \chi (1 + e)

    (the force stays nonnegative throughout such an impact, so clamping it
    changes nothing). This is the exact curve against which the models of
    :func:`hysteresis_factor` are judged.

    Examples
    ========

    >>> from sympy_loads import effective_restitution, hysteresis_factor
    >>> round(effective_restitution(0), 12)
    1.0
    >>> chi = float(hysteresis_factor(0, 'hunt-crossley'))
    >>> round(effective_restitution(chi), 4)   # Hunt-Crossley's lowest e
    0.4877

    Parameters
    ==========

    hysteresis_factor : float
        :math:`\chi \ge 0`.

    Returns
    =======

    float

    Raises
    ======

    ValueError
        If ``hysteresis_factor`` is negative or not a finite number.

    References
    ==========

    .. [Flores2022] P. Flores, "Contact mechanics for dynamical systems: a
       comprehensive review", Multibody Syst. Dyn. 54 (2022) 127-177.
       https://doi.org/10.1007/s11044-021-09803-y
    .. [Hunt1975] K. H. Hunt, F. R. E. Crossley, J. Appl. Mech. 42 (1975)
       440-445. https://doi.org/10.1115/1.3423596
    """
    import math

    from scipy.optimize import brentq

    try:
        chi = float(hysteresis_factor)
    except (TypeError, ValueError):
        raise ValueError(
            f'hysteresis_factor must be a nonnegative number, got '
            f'{hysteresis_factor!r}.') from None
    if not math.isfinite(chi) or chi < 0:
        raise ValueError(
            f'hysteresis_factor must be a finite nonnegative number, got '
            f'{hysteresis_factor!r}.')
    if chi == 0:
        return 1.0

    # With u = -ln(1 - chi e) the relation becomes g(u) = 0 with
    # g(u) = u + expm1(-u) - (chi - log1p(chi)), increasing for u > 0,
    # negative at 0 and positive at u = chi - log1p(chi) + 1: a bracketed,
    # well-conditioned root for every chi > 0 (e -> 1/chi as chi -> oo).
    target = chi - math.log1p(chi)

    def g(u):
        return u + math.expm1(-u) - target

    u = brentq(g, 0.0, target + 1.0, xtol=1e-300, rtol=1e-15)
    return min(1.0, -math.expm1(-u) / chi)


def _poisson_ratio(name, value):
    """Sympify a Poisson's ratio; numeric values must be in (-1, 1/2]."""
    nu = _sympify_scalar(name, value)
    if nu.is_number and nu.is_real and not (-1 < nu <= sm.Rational(1, 2)):
        raise ValueError(
            f"{name} (Poisson's ratio) must satisfy -1 < {name} <= 1/2, "
            f'got {nu}.')
    return nu


def hertz_stiffness(radius, youngs_modulus, poisson_ratio, *,
                    other_radius=sm.oo, other_youngs_modulus=None,
                    other_poisson_ratio=None):
    r"""Return the Hertz contact stiffness
    :math:`k = \frac{4}{3} E^* \sqrt{R^*}`.

    Explanation
    ===========

    .. math::

       \frac{1}{E^*} = \frac{1 - \nu_1^2}{E_1} + \frac{1 - \nu_2^2}{E_2},
       \qquad \frac{1}{R^*} = \frac{1}{R_1} + \frac{1}{R_2}

    a plane has :math:`R_2 = \infty` (the default) and the second body is
    of the same material unless given [Flores2022]_. Use it with
    ``exponent=3/2``.

    Examples
    ========

    Steel ball of radius 10 mm on a steel plane (:math:`E = 210` GPa,
    :math:`\nu = 0.3`):

    >>> from sympy_loads import hertz_stiffness
    >>> k = hertz_stiffness(0.01, 210e9, 0.3)
    >>> print(f'{float(k):.4g}')
    1.538e+10

    Parameters
    ==========

    radius, youngs_modulus, poisson_ratio : sympifiable
        Radius :math:`R_1 > 0`, Young's modulus :math:`E_1 > 0` and
        Poisson's ratio :math:`\nu_1` of the first body.
    other_radius : sympifiable, optional
        :math:`R_2 > 0`; ``oo`` (default) for a plane.
    other_youngs_modulus, other_poisson_ratio : sympifiable, optional
        Material of the second body; default: same as the first.

    Raises
    ======

    TypeError
        If an argument is not a scalar.
    ValueError
        If a radius or modulus is not positive, or a numeric Poisson's
        ratio is outside :math:`-1 < \nu \le 1/2` (the range of an
        isotropic elastic material; :math:`\nu = \pm 1` would make
        :math:`E^*` infinite).

    References
    ==========

    .. [Flores2022] P. Flores, "Contact mechanics for dynamical systems: a
       comprehensive review", Multibody Syst. Dyn. 54 (2022) 127-177.
       https://doi.org/10.1007/s11044-021-09803-y
    """
    r1 = _sympify_scalar('radius', radius, positive=True)
    e1 = _sympify_scalar('youngs_modulus', youngs_modulus, positive=True)
    nu1 = _poisson_ratio('poisson_ratio', poisson_ratio)
    r2 = sm.sympify(other_radius, strict=True)
    if r2 != sm.oo:   # oo (a plane) is not "positive" to SymPy
        r2 = _sympify_scalar('other_radius', other_radius, positive=True)
    e2 = e1 if other_youngs_modulus is None else _sympify_scalar(
        'other_youngs_modulus', other_youngs_modulus, positive=True)
    nu2 = nu1 if other_poisson_ratio is None else _poisson_ratio(
        'other_poisson_ratio', other_poisson_ratio)
    e_star = 1 / ((1 - nu1**2) / e1 + (1 - nu2**2) / e2)
    r_star = r1 if r2 == sm.oo else 1 / (1 / r1 + 1 / r2)
    return sm.Rational(4, 3) * e_star * sm.sqrt(r_star)
