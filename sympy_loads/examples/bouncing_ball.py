"""A ball bouncing and rolling on a plane, with Hunt-Crossley contact and
Coulomb friction.

Run ``python -m sympy_loads.examples.bouncing_ball [--duration 3]
[--output DIR] [--no-plot]``: prints, for every bounce, the impact speed,
the measured coefficient of restitution beside the one the force law
predicts (:func:`~sympy_loads.effective_restitution`, which neglects
gravity during the millisecond of contact), and the rebound height; saves
``bouncing_ball.png`` (height and speeds versus time) in ``DIR`` (default:
the current directory).

The ball (radius ``R``, mass ``m``, a solid sphere) moves in the x-z plane
of the Newtonian frame N under gravity; it is thrown sideways without spin,
its lowest point at height ``h0`` above the plane.
:class:`~sympy_loads.HuntCrossleyContact` with ``sphere_frame`` gives the
normal force ``k d^1.5 + c d^1.5 d'`` and the Coulomb friction that spins
the ball up until it rolls (``u_x = R omega``). The damping ``c`` is chosen
so that the first impact, at speed ``v0 = sqrt(2 g h0)``, rebounds with the
restitution ``e``: the hysteresis factor ``chi = c v0/k`` is the root of
the exact impact relation of :func:`~sympy_loads.effective_restitution`
(Gonthier's closed form ``chi = (1 - e^2)/e``, good near ``e = 1``, would
give a lower restitution; the example prints it). Because ``c`` is fixed,
slower later impacts dissipate less: the restitution rises from one bounce
to the next, as the printed table shows.

References
==========

.. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
   Torque", section "Collision".
   https://moorepants.github.io/learn-multibody-dynamics/
.. [Gonthier2004] Y. Gonthier, J. McPhee, C. Lange, J.-C. Piedboeuf, "A
   Regularized Contact Model with Asymmetric Damping and Dwell-Time
   Dependent Friction", Multibody Syst. Dyn. 11 (2004) 209-233.
   https://doi.org/10.1023/B:MUBO.0000029392.21648.bc
"""

import os

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import (HuntCrossleyContact, effective_restitution,
                         hysteresis_factor)
from sympy_loads.examples._report import one_line, parser, save_figure

#: The numbers of the example: mass m [kg], radius R [m], gravity g
#: [m/s^2], contact stiffness k [N/m^1.5], restitution e at the first
#: impact, friction coefficient mu, friction regularization speed eps
#: [m/s], drop height h0 of the ball's lowest point [m], initial sideways
#: speed vx0 [m/s].
PARAMETERS = {'m': 0.06, 'R': 0.033, 'g': 9.81, 'k': 1e7, 'e': 0.8,
              'mu': 0.4, 'eps': 1e-3, 'h0': 1.0, 'vx0': 2.0}


def damping_for_restitution(k, e, v0):
    """The damping ``c`` [N s/m^2.5] for which an impact at speed ``v0``
    rebounds with restitution ``e`` (gravity during the contact
    neglected): ``c = chi k/v0`` with ``chi`` the root of
    ``effective_restitution(chi) = e``.

    Examples
    ========

    >>> from sympy_loads import effective_restitution
    >>> from sympy_loads.examples.bouncing_ball import damping_for_restitution
    >>> c = damping_for_restitution(1e7, 0.8, 4.0)
    >>> round(c), round(effective_restitution(c*4.0/1e7), 12)
    (932866, 0.8)
    """
    from scipy.optimize import brentq
    if e >= 1:
        return 0.0
    high = 1.0
    while effective_restitution(high) > e:
        high *= 2
    chi = brentq(lambda x: effective_restitution(x) - e, 0.0, high,
                 xtol=1e-15, rtol=1e-15)
    return chi*k/v0


def build_model():
    """Return ``(rhs, args, energy)``: the ODE right-hand side
    ``rhs(t, y, p)`` for ``y = [x, z, theta, u_x, u_z, omega]``, the list of
    parameter symbols ``p`` follows (m, R, g, k, c, mu, eps), and the total
    energy ``energy(y, p)`` (kinetic + gravity + contact spring);
    everything is generated once."""
    x, z, th = me.dynamicsymbols('x z theta')
    ux, uz, w = me.dynamicsymbols('u_x u_z omega')
    m, R, g, k, c, mu, eps = sm.symbols('m R g k c mu epsilon',
                                        positive=True)
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', (th, N.y))
    B.set_ang_vel(N, w * N.y)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + z * N.z)
    P.set_vel(N, ux * N.x + uz * N.z)
    ball = me.RigidBody('ball', P, B, m,
                        (me.inertia(B, *3 * [2 * m * R**2 / 5]), P))
    contact = HuntCrossleyContact(
        P, O, N.z, N, stiffness=k, damping=c, radius=R,
        friction_coefficient=mu, sphere_frame=B,
        friction_regularization=eps)
    kane = me.KanesMethod(N, [x, z, th], [ux, uz, w],
                          kd_eqs=[x.diff() - ux, z.diff() - uz,
                                  th.diff() - w])
    kane.kanes_equations([ball], contact.to_loads() + [(P, -m * g * N.z)])
    udot = kane.mass_matrix.LUsolve(kane.forcing)
    exponent = contact.exponent
    energy = (ball.kinetic_energy(N) + m * g * z
              + k * contact.penetration**(exponent + 1) / (exponent + 1))
    args = ((x, z, th, ux, uz, w), (m, R, g, k, c, mu, eps))
    f_udot = sm.lambdify(args, list(udot), cse=True)
    f_energy = sm.lambdify(args, energy, cse=True)

    def rhs(t, y, p):
        return np.concatenate([y[3:], f_udot(y, p)])

    return rhs, f_energy


def simulate(duration=3.0, parameters=None):
    """Simulate the ball; return a dict with ``t``, ``y`` (rows: x, z,
    theta, u_x, u_z, omega), ``energy``, ``bounces`` (a list of dicts:
    ``impact_speed``, ``restitution``, ``predicted``, ``height``) and the
    parameters used."""
    from scipy.integrate import solve_ivp

    par = dict(PARAMETERS, **(parameters or {}))
    rhs, energy = build_model()
    R, g = par['R'], par['g']
    v_first = np.sqrt(2 * g * par['h0'])
    c = damping_for_restitution(par['k'], par['e'], v_first)
    p = (par['m'], R, g, par['k'], c, par['mu'], par['eps'])

    def touchdown(t, y, p):
        return y[1] - R
    touchdown.direction = -1

    def liftoff(t, y, p):
        return y[1] - R
    liftoff.direction = 1

    def apex(t, y, p):
        return y[4]
    apex.direction = -1

    t = np.linspace(0.0, duration, int(2000 * duration) + 1)
    y0 = [0.0, par['h0'] + R, 0.0, par['vx0'], 0.0, 0.0]
    sol = solve_ivp(rhs, (0.0, duration), y0, args=(p,), t_eval=t,
                    events=[touchdown, liftoff, apex], method='DOP853',
                    rtol=1e-9, atol=1e-11)
    if not sol.success:
        raise RuntimeError(f'integration failed: {sol.message}')
    speeds_in = -sol.y_events[0][:, 4]
    speeds_out = sol.y_events[1][:, 4]
    apexes = [(ta, ya[1]) for ta, ya in zip(sol.t_events[2],
                                            sol.y_events[2])
              if ya[1] > R]
    bounces = []
    for i, (v_in, v_out) in enumerate(zip(speeds_in, speeds_out)):
        t_out = sol.t_events[1][i]
        later = [h for ta, h in apexes if ta > t_out]
        bounces.append(dict(
            impact_speed=v_in, restitution=v_out / v_in,
            predicted=effective_restitution(c * v_in / par['k']),
            height=later[0] - R if later else float('nan')))
    E = np.array([energy(yi, p) for yi in sol.y.T])
    gonthier = effective_restitution(float(hysteresis_factor(
        par['e'], 'gonthier')))
    return dict(t=sol.t, y=sol.y, energy=E, bounces=bounces,
                parameters=par, damping=c, impact_speed=v_first,
                gonthier_restitution=gonthier)


def report(result):
    """Return the table of bounces as text."""
    par = result['parameters']
    lines = [f"ball: m = {par['m']} kg, R = {par['R']} m, lowest point "
             f"dropped from {par['h0']} m with u_x = {par['vx0']} m/s, no "
             f"spin",
             f"contact: k = {par['k']:.3g} N/m^1.5, c = "
             f"{result['damping']:.4g} N s/m^2.5, mu = {par['mu']}",
             f"c gives e = {par['e']} at the first impact speed "
             f"{result['impact_speed']:.4f} m/s (exact impact relation; "
             f"Gonthier's closed form would give e = "
             f"{result['gonthier_restitution']:.4f})",
             f"{'bounce':>6} {'impact speed':>13} {'e measured':>11} "
             f"{'e predicted':>12} {'rebound height':>15}",
             f"{'':>6} {'[m/s]':>13} {'':>11} {'':>12} {'[m]':>15}"]
    for i, b in enumerate(result['bounces'], 1):
        height = ('(not reached)' if np.isnan(b['height'])
                  else f"{b['height']:.4f}")
        lines.append(f"{i:6d} {b['impact_speed']:13.4f} "
                     f"{b['restitution']:11.4f} {b['predicted']:12.4f} "
                     f"{height:>15}")
    y, R = result['y'], par['R']
    lines.append(f"final u_x = {y[3, -1]:.4f} m/s, R omega = "
                 f"{R * y[5, -1]:.4f} m/s (rolling); energy "
                 f"{result['energy'][0]:.4f} J -> "
                 f"{result['energy'][-1]:.4f} J")
    return '\n'.join(lines)


def plot(result, path):
    """Save height and speeds versus time to ``path`` (needs
    matplotlib)."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    t, y, R = result['t'], result['y'], result['parameters']['R']
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    ax1.plot(t, y[1] - R)
    ax1.set_ylabel('height of the lowest point [m]')
    ax2.plot(t, y[3], label='horizontal speed of the centre $u_x$')
    ax2.plot(t, R * y[5], '--', label=r'$R\,\omega$ (equal when rolling)')
    ax2.set_xlabel('time [s]')
    ax2.set_ylabel('speed [m/s]')
    ax2.legend()
    return save_figure(fig, 'Ball bouncing on a plane (Hunt-Crossley '
                       'contact, Coulomb friction)', os.path.dirname(path),
                       os.path.basename(path))


def main(argv=None):
    """Command-line entry point; returns the dict of :func:`simulate`."""
    options = parser('python -m sympy_loads.examples.bouncing_ball',
                     one_line(__doc__), 3.0).parse_args(argv)
    result = simulate(options.duration)
    print(report(result))
    if not options.no_plot:
        path = plot(result, os.path.join(options.output,
                                         'bouncing_ball.png'))
        print(f'plot saved to {path}')
    return result


if __name__ == '__main__':
    main()
