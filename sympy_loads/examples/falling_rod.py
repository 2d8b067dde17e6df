"""A slender rod striking a rough floor: a rigid impact with Coulomb
friction, in both regimes (the end sticks, or it slips through the whole
impact).

Run ``python -m sympy_loads.examples.falling_rod [--duration 0.6]
[--output DIR] [--no-plot] [--animate]``: prints, for the friction
coefficients ``mu = 0.8`` (stick) and ``mu = 0.3`` (slip), the normal and
tangential impulses of the impact and the rod's speeds after it beside
the closed forms below, and saves ``falling_rod.png`` (height of the
center and angle against time, both runs); with ``--animate`` also
``falling_rod.gif``.

The rod (mass ``m``, length ``L``, central moment of inertia ``m L^2/12``)
moves in the x-y plane of N with the coordinates ``x, y`` of its center G
and its angle ``theta`` from N.x. Its end A strikes the floor ``y = 0``
(an :class:`~sympy_loads.Impact` with restitution ``e`` and friction
coefficient ``mu``). Dropped at ``theta = 45`` degrees without spin it
reaches the floor with its center moving down at ``v0``; with the rows
``[n, t]`` of A's normal and horizontal speeds, the impact's Delassus
matrix is ``G = [[1 + 3 c^2, -3 c s], [-3 c s, 1 + 3 s^2]]/m``
(``c = cos theta, s = sin theta``), ``[[2.5, -1.5], [-1.5, 2.5]]`` here.

*Stick* (``mu = 0.8``): holding A's slip at zero needs ``P_t/P_n =
-G_nt/G_tt = 0.6 < mu``; the normal speed then grows by ``G_nn -
G_nt^2/G_tt = 1.6`` per unit normal impulse, compression ends at ``P_c =
v0/1.6`` and Stronge's energetic coefficient gives ``P_n = (1 + e) P_c =
0.9375`` N s and ``P_t = 0.6 P_n = 0.5625`` N s. *Slip* (``mu = 0.3``):
A slides towards -x through the whole impact, ``P_t = mu P_n``, the normal
speed grows by ``G_nn + mu G_nt = 2.05`` per unit impulse and ``P_n = (1 +
e) v0/2.05 = 0.731707`` N s (Stronge, *Impact Mechanics*, ch. 5). The
spin after the impact follows from the angular impulse about G.

References
==========

.. [Stronge2000] W. J. Stronge, Impact Mechanics, Cambridge University
   Press, 2000: planar impact of a rod with friction, the energetic
   coefficient of restitution.
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

#: The numbers of the example: mass m [kg], length L [m], gravity g
#: [m/s^2], restitution e, the drop angle theta0 [rad], the speed v0 [m/s]
#: of the center when A reaches the floor, and the friction coefficients
#: of the two runs (stick, slip).
PARAMETERS = {'m': 1.0, 'L': 1.0, 'g': 9.81, 'e': 0.5,
              'theta0': math.pi / 4, 'v0': 1.0}
#: Friction coefficients of the two regimes.
FRICTION = {'stick': 0.8, 'slip': 0.3}


def build_model():
    """Return a namespace with the rod's ``KanesMethod`` (``kane``), its
    coordinates ``q = (x, y, theta)`` and speeds ``u = (v_x, v_y,
    omega)``, ``symbols`` (``m, L, g, e, mu``), the floor impact of the
    end A (``impact``), the frame ``N`` and the points ``(A, G, B)`` (the
    two ends and the center) for drawing.

    Examples
    ========

    >>> from sympy_loads.examples import falling_rod
    >>> model = falling_rod.build_model()
    >>> model.impact.gap
    -L*sin(theta(t))/2 + y(t)
    """
    x, y, th = me.dynamicsymbols('x y theta')
    vx, vy, w = me.dynamicsymbols('v_x v_y omega')
    m, L, g, e, mu = sm.symbols('m L g e mu', positive=True)
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', (th, N.z))
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    G = O.locatenew('G', x * N.x + y * N.y)
    G.set_vel(N, vx * N.x + vy * N.y)
    A = G.locatenew('A', -L / 2 * B.x)
    A.v2pt_theory(G, N, B)
    end_b = G.locatenew('B_end', L / 2 * B.x)
    end_b.v2pt_theory(G, N, B)
    rod = me.RigidBody('rod', G, B, m, (me.inertia(B, 0, 0, m * L**2 / 12),
                                        G))
    kane = me.KanesMethod(N, [x, y, th], [vx, vy, w],
                          kd_eqs=[x.diff() - vx, y.diff() - vy,
                                  th.diff() - w])
    kane.kanes_equations([rod], [(G, -m * g * N.y)])
    floor = Impact(A, O, N.y, N, restitution=e, friction_coefficient=mu,
                   name='end A')
    return SimpleNamespace(kane=kane, q=(x, y, th), u=(vx, vy, w),
                           symbols=dict(m=m, L=L, g=g, e=e, mu=mu),
                           impact=floor, frame=N, origin=O,
                           points=(A, G, end_b))


def closed_form(mu, parameters=None):
    """The impact of the rod by hand: ``(P_n, P_t, omega_after)`` for the
    friction coefficient ``mu`` (the rod at ``theta0``, its center moving
    down at ``v0``, no spin), Stronge's energetic coefficient with the
    slip that either stops at once (stick) or keeps its direction (see the
    module documentation). ``P_t`` is along N.x.

    Examples
    ========

    >>> from sympy_loads.examples.falling_rod import closed_form
    >>> [round(v, 6) for v in closed_form(0.8)]
    [0.9375, 0.5625, -1.59099]
    >>> [round(v, 6) for v in closed_form(0.3)]
    [0.731707, 0.219512, -2.17306]
    """
    par = dict(PARAMETERS, **(parameters or {}))
    m, L, e, th, v0 = (par[k] for k in ('m', 'L', 'e', 'theta0', 'v0'))
    inertia = m * L**2 / 12
    # A relative to G, and the rows of A's normal (y) and tangential (x)
    # speeds in (v_x, v_y, omega)
    rx, ry = -L / 2 * math.cos(th), -L / 2 * math.sin(th)
    normal, tangent = np.array([0, 1, rx]), np.array([1, 0, -ry])
    minv = np.diag([1 / m, 1 / m, 1 / inertia])
    gnn, gnt, gtt = (normal @ minv @ normal, normal @ minv @ tangent,
                     tangent @ minv @ tangent)
    ratio = -gnt / gtt          # P_t/P_n that keeps the slip at zero
    if abs(ratio) <= mu:
        slope = gnn + gnt * ratio
    else:
        # slides the way the impulse without friction would drive it,
        # friction against it
        ratio = mu * math.copysign(1.0, -gnt)
        slope = gnn + gnt * ratio
    p_n = (1 + e) * v0 / slope
    p_t = ratio * p_n
    omega = (rx * p_n - ry * p_t) / inertia
    return float(p_n), float(p_t), float(omega)


def initial_conditions(model, height=0.05, parameters=None):
    """The rod at ``theta0``, its end A ``height`` above the floor, falling
    without spin so that its center moves down at ``v0`` when A lands."""
    par = dict(PARAMETERS, **(parameters or {}))
    x, y, th = model.q
    vx, vy, w = model.u
    drop = math.sqrt(par['v0']**2 - 2 * par['g'] * height)
    return {x: 0.0, y: par['L'] / 2 * math.sin(par['theta0']) + height,
            th: par['theta0'], vx: 0.0, vy: -drop, w: 0.0}


def run(duration=0.6, parameters=None, **options):
    """Simulate both regimes; return ``(model, {'stick': result, 'slip':
    result})``. ``options`` go to :func:`~sympy_loads.simulate`."""
    par = dict(PARAMETERS, **(parameters or {}))
    model = build_model()
    s = model.symbols
    options = dict(dict(rtol=1e-10, atol=1e-12, max_step=0.005), **options)
    results = {}
    for regime, mu in FRICTION.items():
        constants = {s['m']: par['m'], s['L']: par['L'], s['g']: par['g'],
                     s['e']: par['e'], s['mu']: mu}
        results[regime] = simulate(model.kane, (0.0, duration),
                                   initial_conditions(model, parameters=par),
                                   constants, impacts=[model.impact],
                                   **options)
    return model, results


def horizontal_impulse(impact, record):
    """The tangential impulse of ``record`` along N.x (the impact's
    ``tangents`` are along N.x and -N.z for this floor)."""
    N = impact.frame
    t1, t2 = impact.tangents
    p1, p2 = record.tangential_impulse
    return float(p1 * t1.dot(N.x) + p2 * t2.dot(N.x))


def summary(model, results):
    """The table of impulses and spins, simulated beside the closed form,
    as text."""
    lines = [f"{'regime':>6} {'mu':>4} {'':>10} {'P_n [N s]':>10} "
             f"{'P_t [N s]':>10} {'omega+ [rad/s]':>15}"]
    for regime, result in results.items():
        record = result.impacts[0]
        mu = FRICTION[regime]
        p_n, p_t, omega = closed_form(mu)
        lines.append(f"{regime:>6} {mu:4.1f} {'simulated':>10} "
                     f"{record.impulse:10.6f} "
                     f"{horizontal_impulse(model.impact, record):10.6f} "
                     f"{record.u_after[2]:15.6f}")
        lines.append(f"{'':>6} {'':>4} {'by hand':>10} {p_n:10.6f} "
                     f"{p_t:10.6f} {omega:15.6f}")
    return '\n'.join(lines)


def plot(model, results, output_dir):
    """Save ``falling_rod.png``: the height of the center and the angle
    against time, both regimes; return its path."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    for regime, result in results.items():
        label = f'{regime}, mu = {FRICTION[regime]}'
        axes[0].plot(result.t, result.q[:, 1], label=label)
        axes[1].plot(result.t, np.rad2deg(result.q[:, 2]), label=label)
    axes[0].set_ylabel('height of the center y [m]')
    axes[1].set_ylabel('angle theta [deg]')
    axes[1].set_xlabel('time [s]')
    axes[0].legend()
    return save_figure(fig, 'Rod striking a rough floor (e = 0.5)',
                       output_dir, 'falling_rod.png')


def save_animation(model, results, output_dir, fps=25, dpi=80):
    """Save ``falling_rod.gif`` (the stick run, slowed down five times) in
    ``output_dir``; return its path."""
    import matplotlib
    matplotlib.use('Agg')
    A, G, B = model.points
    left = model.origin.locatenew('floor_left', -0.6 * model.frame.x)
    right = model.origin.locatenew('floor_right', 0.8 * model.frame.x)
    anim = animate(results['stick'], [[A, G, B], [left, right]],
                   model.frame, origin=model.origin, fps=fps, speed=0.2,
                   title='Rod on a rough floor (mu = 0.8: the end sticks)',
                   figsize=(6, 4), units='m', limits=((-0.6, 0.8),
                                                      (-0.05, 0.9)))
    return save_animation_gif(anim, output_dir, 'falling_rod.gif', dpi)


def main(argv=None):
    """Command-line entry point; returns ``(model, result)``."""
    return run_example(
        'python -m sympy_loads.examples.falling_rod', __doc__, 0.6, run,
        lambda model, result: summary(model, result),
        lambda model, result, output: plot(model, result, output),
        lambda model, result, output: save_animation(model, result, output), argv)


if __name__ == '__main__':
    main()
