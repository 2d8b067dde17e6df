"""A ball on a vibrating table that chatters, locks onto the table and
takes off again when the table's downward acceleration reaches g.

Run ``python -m sympy_loads.examples.vibrating_table [--duration 3]
[--output DIR] [--no-plot] [--animate]``: prints every interval during
which the ball rests on the table (a closed contact) and the phase of the
table at each take-off beside ``arcsin(1/Gamma)``; saves
``vibrating_table.png`` (the heights of the ball and of the table, and
the contact force, against time); with ``--animate`` also
``vibrating_table.gif``.

A ball (a point of mass ``m``) moves vertically above a table whose
surface moves as ``y_T = A sin(w t)``; the table is a plane with a
prescribed motion (it takes no impulse), the contact an
:class:`~sympy_loads.Impact` with the restitution ``e``. With the
dimensionless acceleration ``Gamma = A w^2/g > 1`` and a small ``e`` the
ball's bounces shrink geometrically and accumulate (Luck and Mehta call
it the *locked* state): the ball then rides on the table, pressed onto it
by the force ``lambda = m (g + y_T'') = m (g - A w^2 sin(w t))``, until
that force reaches zero, at the table phase ``w t = arcsin(1/Gamma)``
(mod 2 pi), where it takes off. Here ``e = 0.3`` and ``Gamma = 1.2``
(``w = 2 pi 5`` rad/s, ``A = Gamma g/w^2``).

References
==========

.. [LuckMehta1993] J. M. Luck, A. Mehta, "Bouncing ball with a finite
   restitution: Chattering, locking, and chaos", Phys. Rev. E 48 (1993)
   3988-3997.
.. [PfeifferGlocker1996] F. Pfeiffer, Ch. Glocker, Multibody Dynamics with
   Unilateral Contacts, Wiley, 1996.
"""

import math
from types import SimpleNamespace

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import Impact, animate, simulate
from sympy_loads.examples._report import (run_example, save_animation_gif,
                                          save_figure)

#: The numbers of the example: mass m [kg], gravity g [m/s^2], restitution
#: e, dimensionless acceleration Gamma = A w^2/g, angular frequency w
#: [rad/s] of the table, height h0 [m] from which the ball is dropped.
PARAMETERS = {'m': 0.01, 'g': 9.81, 'e': 0.3, 'Gamma': 1.2,
              'w': 2 * math.pi * 5, 'h0': 0.02}


def amplitude(parameters=None):
    """The table's amplitude ``A = Gamma g/w^2`` [m]."""
    par = dict(PARAMETERS, **(parameters or {}))
    return par['Gamma'] * par['g'] / par['w']**2


def takeoff_phase(gamma):
    """The table's phase ``arcsin(1/Gamma)`` at which a ball resting on it
    takes off.

    Examples
    ========

    >>> from sympy_loads.examples.vibrating_table import takeoff_phase
    >>> round(takeoff_phase(1.2), 10)
    0.9851107833
    """
    return math.asin(1 / gamma)


def build_model():
    """Return a namespace with the ball's ``KanesMethod`` (``kane``), its
    coordinate ``q = (y,)`` and speed ``u = (v,)``, ``symbols`` (``m, g,
    e, A, w``), the table contact (``impact``), the frame ``N``, the origin
    ``O`` and the points ``(P, T)`` (the ball, the table's center).

    Examples
    ========

    >>> from sympy_loads.examples import vibrating_table
    >>> model = vibrating_table.build_model()
    >>> model.impact.gap
    -A*sin(t*w) + y(t)
    >>> model.impact.normal_speed
    -A*w*cos(t*w) + v(t)
    """
    y, v = me.dynamicsymbols('y v')
    m, g, e, A, w = sm.symbols('m g e A w', positive=True)
    t = me.dynamicsymbols._t
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', y * N.y)
    P.set_vel(N, v * N.y)
    T = O.locatenew('T', A * sm.sin(w * t) * N.y)
    T.set_vel(N, A * w * sm.cos(w * t) * N.y)
    kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v])
    kane.kanes_equations([me.Particle('ball', P, m)], [(P, -m * g * N.y)])
    table = Impact(P, T, N.y, N, restitution=e, name='table')
    return SimpleNamespace(kane=kane, q=(y,), u=(v,),
                           symbols=dict(m=m, g=g, e=e, A=A, w=w),
                           impact=table, frame=N, origin=O, points=(P, T))


def constants_of(model, parameters=None):
    """The constants of the model from :data:`PARAMETERS` (with
    ``parameters`` overriding them); ``A`` from ``Gamma``."""
    par = dict(PARAMETERS, **(parameters or {}))
    s = model.symbols
    return {s['m']: par['m'], s['g']: par['g'], s['e']: par['e'],
            s['A']: amplitude(par), s['w']: par['w']}


def run(duration=3.0, parameters=None, **options):
    """Drop the ball from ``h0`` at rest; return ``(model, result)``.
    ``options`` go to :func:`~sympy_loads.simulate`."""
    par = dict(PARAMETERS, **(parameters or {}))
    model = build_model()
    options = dict(dict(rtol=1e-11, atol=1e-13, max_step=0.002), **options)
    (y,), (v,) = model.q, model.u
    result = simulate(model.kane, (0.0, duration),
                      {y: par['h0'], v: 0.0}, constants_of(model, par),
                      impacts=[model.impact], **options)
    return model, result


def takeoffs(result, parameters=None):
    """``[(time, phase)]``: the end of every closed interval of the table
    contact before the end of the run, and the table's phase ``w t`` there
    reduced to ``[0, 2 pi)``."""
    par = dict(PARAMETERS, **(parameters or {}))
    return [(c.end, math.fmod(par['w'] * c.end, 2 * math.pi))
            for c in result.contacts if c.end < result.t[-1]]


def summary(result, parameters=None):
    """The closed intervals and the take-off phases, as text."""
    par = dict(PARAMETERS, **(parameters or {}))
    expected = takeoff_phase(par['Gamma'])
    lines = [f"e = {par['e']}, Gamma = {par['Gamma']}: {len(result.impacts)} "
             f"impacts; take-off phase arcsin(1/Gamma) = {expected:.10f}",
             f"{'locked from [s]':>16} {'to [s]':>12} {'phase':>14} "
             f"{'- arcsin(1/Gamma)':>18}"]
    for contact in result.contacts:
        phase = math.fmod(par['w'] * contact.end, 2 * math.pi)
        still = contact.end >= result.t[-1]
        lines.append(f"{contact.start:16.8f} {contact.end:12.8f} "
                     + ('(end of run)' if still else
                        f"{phase:14.10f} {phase - expected:18.2e}"))
    return '\n'.join(lines)


def plot(result, output_dir, parameters=None):
    """Save ``vibrating_table.png``; return its path."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    par = dict(PARAMETERS, **(parameters or {}))
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    axes[0].plot(result.t, amplitude(par) * np.sin(par['w'] * result.t),
                 color='0.5', label='table')
    axes[0].plot(result.t, result.q[:, 0], label='ball')
    for contact in result.contacts:
        axes[1].plot(contact.t, contact.normal_force, color='C1')
        for ax in axes:
            ax.axvspan(contact.start, contact.end, color='C1', alpha=0.15)
    axes[0].set_ylabel('height [m]')
    axes[0].legend(loc='upper right', fontsize='small')
    axes[1].set_ylabel('contact force [N]')
    axes[1].set_xlabel('time [s] (shaded: locked onto the table)')
    return save_figure(fig, 'Ball on a vibrating table (e = 0.3, Gamma = '
                       '1.2)', output_dir, 'vibrating_table.png')


def save_animation(model, result, output_dir, fps=25, dpi=80):
    """Save ``vibrating_table.gif`` (slowed down four times) in
    ``output_dir``; return its path."""
    import matplotlib
    matplotlib.use('Agg')
    P, T = model.points
    N = model.frame
    left, right = (T.locatenew('table_left', -0.02 * N.x),
                   T.locatenew('table_right', 0.02 * N.x))
    constants = constants_of(model)
    anim = animate(result, [[P], [left, right]], N, origin=model.origin,
                   constants=constants, fps=fps, speed=0.25,
                   title='Ball on a vibrating table', figsize=(4, 4),
                   units='m', limits=((-0.03, 0.03), (-0.02, 0.03)))
    return save_animation_gif(anim, output_dir, 'vibrating_table.gif', dpi)


def main(argv=None):
    """Command-line entry point; returns ``(model, result)``."""
    return run_example(
        'python -m sympy_loads.examples.vibrating_table', __doc__, 3.0, run,
        lambda model, result: summary(result),
        lambda model, result, output: plot(result, output),
        lambda model, result, output: save_animation(model, result, output), argv)


if __name__ == '__main__':
    main()
