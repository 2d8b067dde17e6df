"""Friction laws and smooth sign functions.

The scalar laws take a slip speed ``v`` and a normal force magnitude ``N``
and return the friction force along ``v`` (opposing it).
"""

import sympy as sm

from ._utils import _sympify_scalar

__all__ = ['smooth_sign', 'SIGN_METHODS']

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
