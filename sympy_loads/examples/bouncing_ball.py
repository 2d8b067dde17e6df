"""A ball bouncing and rolling on a plane, with Hunt-Crossley contact.

Run ``python -m sympy_loads.examples.bouncing_ball [--duration 3]
[--output DIR] [--no-plot]``: prints, for every bounce, the impact speed,
the measured coefficient of restitution beside the one the force law
predicts (:func:`~sympy_loads.effective_restitution`, which neglects
gravity during the millisecond of contact), and the rebound height; saves
``bouncing_ball.png`` (height and speeds versus time) in ``DIR`` (default:
the current directory).

The ball (radius ``R``, mass ``m``, a solid sphere) moves in the x-z plane
of the Newtonian frame N under gravity; it is thrown sideways without spin
from height ``h0``. :class:`~sympy_loads.HuntCrossleyContact` with
``sphere_frame`` gives the normal force, damped for restitution ``e`` at the
first impact speed (Gonthier's model), and the Coulomb friction that spins
the ball up until it rolls (``u_x = R omega``). Because the damping ``c`` is
fixed, slower later impacts dissipate less: the restitution rises from one
bounce to the next, as the printed table shows.

References
==========

.. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
   Torque", section "Collision".
.. [Gonthier2004] Y. Gonthier, J. McPhee, C. Lange, J.-C. Piedboeuf, "A
   Regularized Contact Model with Asymmetric Damping and Dwell-Time
   Dependent Friction", Multibody Syst. Dyn. 11 (2004) 209-233.
"""

import argparse
import os

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import (HuntCrossleyContact, damping_from_restitution,
                         effective_restitution)
from sympy_loads._utils import _lambdify

#: The numbers of the example (SI units).
PARAMETERS = {'m': 0.06, 'R': 0.033, 'g': 9.81, 'k': 1e7, 'e': 0.8,
              'mu': 0.4, 'eps': 1e-3, 'h0': 1.0, 'vx0': 2.0}


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
    f_udot = _lambdify(args, list(udot))
    f_energy = _lambdify(args, energy)

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
    v_first = np.sqrt(2 * g * (par['h0'] - R))
    c = float(damping_from_restitution(par['k'], par['e'], v_first,
                                       model='gonthier'))
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
    y0 = [0.0, par['h0'], 0.0, par['vx0'], 0.0, 0.0]
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
    return dict(t=sol.t, y=sol.y, energy=E, bounces=bounces,
                parameters=par, damping=c)


def report(result):
    """Return the table of bounces as text."""
    par = result['parameters']
    lines = [f"ball m = {par['m']} kg, R = {par['R']} m, dropped from "
             f"{par['h0']} m with u_x = {par['vx0']} m/s; "
             f"k = {par['k']:g}, c = {result['damping']:.4g} "
             f"(e = {par['e']} at the first impact), mu = {par['mu']}",
             f"{'bounce':>6} {'impact speed':>13} {'e measured':>11} "
             f"{'e predicted':>12} {'rebound height':>15}",
             f"{'':>6} {'m/s':>13} {'':>11} {'':>12} {'m':>15}"]
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
    ax1.set_ylabel('lowest point of the ball (m)')
    ax1.set_title('Ball bouncing on a plane (Hunt-Crossley contact)')
    ax2.plot(t, y[3], label='$u_x$')
    ax2.plot(t, R * y[5], '--', label=r'$R\,\omega$')
    ax2.set_xlabel('time (s)')
    ax2.set_ylabel('speed (m/s)')
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m sympy_loads.examples.bouncing_ball',
        description=__doc__.split('\n')[0])
    parser.add_argument('--duration', type=float, default=3.0,
                        help='simulated time in seconds (default 3)')
    parser.add_argument('--output', default='.',
                        help='directory for bouncing_ball.png (default: .)')
    parser.add_argument('--no-plot', action='store_true',
                        help='do not save the plot')
    options = parser.parse_args(argv)
    result = simulate(options.duration)
    print(report(result))
    if not options.no_plot:
        os.makedirs(options.output, exist_ok=True)
        path = plot(result, os.path.join(options.output,
                                         'bouncing_ball.png'))
        print(f'saved {path}')
    return result


if __name__ == '__main__':
    main()
