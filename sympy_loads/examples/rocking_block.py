"""Housner's rocking block: a rigid block rocking on its two bottom
corners, each a rigid contact with friction that closes, sticks and opens.

Run ``python -m sympy_loads.examples.rocking_block [--duration 3]
[--output DIR] [--no-plot] [--animate]``: prints, for every impact, the
ratio of the angular speeds after and before it beside Housner's ``1 - 1.5
sin^2(alpha)`` and every amplitude beside the one energy conservation
predicts; saves ``rocking_block.png`` (the angle against time with the
predicted amplitudes); with ``--animate`` also ``rocking_block.gif``.

The block (width ``2b``, height ``2h``, mass ``m``, uniform: central moment
of inertia ``m (b^2 + h^2)/3``) moves in the x-y plane of N: the center G
at ``x, y``, the angle ``theta``. Its bottom corners are
:class:`~sympy_loads.Impact`\\ s with the floor ``y = 0``, restitution 0
and a friction coefficient ``mu`` large enough that the corners stick.
Tilted by ``theta0`` and let go, the block rocks about one corner (a
closed, sticking contact, the other corner in the air); when it comes
back flat the other corner strikes and sticks, the first lifts off, and
it rocks about the new corner. With ``R = sqrt(b^2 + h^2)`` and ``alpha =
atan(b/h)``, the angular momentum about the striking corner is conserved
through the impact (the impulse acts there; gravity is finite), which
gives Housner's ratio (Housner 1963, eq. 4)

    ``omega+/omega- = 1 - 3/2 sin^2(alpha)``

and, since energy is conserved while the block rocks about a fixed corner
(``m g R cos(alpha - |theta|) + I_O omega^2/2``, ``I_O = 4/3 m R^2``), the
amplitude after an impact ``theta_{n+1}`` from the one before,
``cos(alpha - theta_{n+1}) = cos(alpha) + r^2 (cos(alpha - theta_n) -
cos(alpha))`` with ``r`` the ratio. The block here is Housner's ``2b x 2h
= 0.2 x 0.8 m``: ``alpha = atan(1/4)``, ``r = 0.911765``. The impacts
accumulate at about 5.5 s: the block then comes to rest on both corners,
which stay closed, each carrying ``m g/2``; the default run stops well
before that.

References
==========

.. [Housner1963] G. W. Housner, "The behavior of inverted pendulum
   structures during earthquakes", Bull. Seismol. Soc. Am. 53 (1963)
   403-417.
.. [PfeifferGlocker1996] F. Pfeiffer, Ch. Glocker, Multibody Dynamics with
   Unilateral Contacts, Wiley, 1996: several unilateral contacts with
   friction as a linear complementarity problem.
"""

import math
from types import SimpleNamespace

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import (HuntCrossleyContact, Impact, animate,
                         simulate)
from sympy_loads.examples._report import (run_example, save_animation_gif,
                                          save_figure)

#: Housner's block: half width b [m], half height h [m]; mass m [kg],
#: gravity g [m/s^2], friction coefficient mu of the corners (sticking),
#: restitution e (plastic), the initial tilt theta0 [rad].
PARAMETERS = {'b': 0.1, 'h': 0.4, 'm': 1.0, 'g': 9.81, 'mu': 0.7, 'e': 0.0,
              'theta0': 0.15}


def slenderness(b, h):
    """``(R, alpha)``: the distance from a bottom corner to the center and
    the angle ``atan(b/h)`` of that line from the vertical."""
    return math.hypot(b, h), math.atan2(b, h)


def housner_ratio(b, h):
    """Housner's ratio ``omega+/omega- = 1 - 1.5 sin^2(alpha)`` of the
    angular speeds after and before an impact.

    Examples
    ========

    >>> from sympy_loads.examples.rocking_block import housner_ratio
    >>> round(housner_ratio(0.1, 0.4), 6)
    0.911765
    """
    _, alpha = slenderness(b, h)
    return 1 - 1.5 * math.sin(alpha)**2


def amplitudes(theta0, count, b, h):
    """The first ``count`` amplitudes ``|theta|`` of free rocking from rest
    at ``theta0`` (``theta0`` included), from energy conservation about
    each corner and Housner's ratio at each impact.

    Examples
    ========

    >>> from sympy_loads.examples.rocking_block import amplitudes
    >>> [round(a, 6) for a in amplitudes(0.15, 3, 0.1, 0.4)]
    [0.15, 0.112342, 0.087729]
    """
    _, alpha = slenderness(b, h)
    r2 = housner_ratio(b, h)**2
    result = [abs(theta0)]
    for _ in range(count - 1):
        level = math.cos(alpha) + r2 * (math.cos(alpha - result[-1])
                                        - math.cos(alpha))
        result.append(alpha - math.acos(level))
    return result


def build_model(compliant=False):
    """Return a namespace with the block's ``KanesMethod`` (``kane``), its
    coordinates ``q = (x, y, theta)`` and speeds ``u = (v_x, v_y,
    omega)``, ``symbols``, the frame ``N``, the origin ``O`` and the
    corners ``(C1, C2, C3, C4)`` (bottom left, bottom right, top right,
    top left). Rigid (default): ``impacts`` holds the two bottom corners'
    :class:`~sympy_loads.Impact`\\ s. With ``compliant=True`` the corners
    are :class:`~sympy_loads.HuntCrossleyContact`\\ s instead (stiffness
    ``k``, damping ``c``, friction regularized over the slip speed
    ``eps``: symbols in ``symbols``) and ``impacts`` is empty.

    Examples
    ========

    >>> from sympy_loads.examples import rocking_block
    >>> model = rocking_block.build_model()
    >>> for impact in model.impacts:
    ...     print(impact.gap)
    -b*sin(theta(t)) - h*cos(theta(t)) + y(t)
    b*sin(theta(t)) - h*cos(theta(t)) + y(t)
    """
    x, y, th = me.dynamicsymbols('x y theta')
    vx, vy, w = me.dynamicsymbols('v_x v_y omega')
    b, h, m, g, mu, e = sm.symbols('b h m g mu e', positive=True)
    k, c, eps = sm.symbols('k c epsilon', positive=True)
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', (th, N.z))
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    G = O.locatenew('G', x * N.x + y * N.y)
    G.set_vel(N, vx * N.x + vy * N.y)
    corners = []
    for name, sx, sy in (('C1', -1, -1), ('C2', 1, -1), ('C3', 1, 1),
                         ('C4', -1, 1)):
        corner = G.locatenew(name, sx * b * B.x + sy * h * B.y)
        corner.v2pt_theory(G, N, B)
        corners.append(corner)
    block = me.RigidBody('block', G, B, m,
                         (me.inertia(B, 0, 0, m * (b**2 + h**2) / 3), G))
    loads = [(G, -m * g * N.y)]
    impacts = []
    for corner in corners[:2]:
        if compliant:
            contact = HuntCrossleyContact(
                corner, O, N.y, N, stiffness=k, damping=c,
                friction_coefficient=mu, friction_regularization=eps)
            loads += contact.to_loads()
        else:
            impacts.append(Impact(corner, O, N.y, N, restitution=e,
                                  friction_coefficient=mu,
                                  name=f'corner {corner.name}'))
    kane = me.KanesMethod(N, [x, y, th], [vx, vy, w],
                          kd_eqs=[x.diff() - vx, y.diff() - vy,
                                  th.diff() - w])
    kane.kanes_equations([block], loads)
    symbols = dict(b=b, h=h, m=m, g=g, mu=mu, e=e)
    if compliant:
        symbols.update(k=k, c=c, eps=eps)
    return SimpleNamespace(kane=kane, q=(x, y, th), u=(vx, vy, w),
                           symbols=symbols, impacts=impacts, frame=N,
                           origin=O, points=tuple(corners),
                           energy=(block.kinetic_energy(N)
                                   + m * g * y).xreplace(
                                       kane.kindiffdict()))


def constants_of(model, **overrides):
    """Map the model's symbols to :data:`PARAMETERS` (with overrides)."""
    values = dict(PARAMETERS, **overrides)
    return {symbol: values[name] for name, symbol in model.symbols.items()}


def initial_conditions(model, theta0=None, parameters=None):
    """The block at rest, tilted by ``theta0`` (default
    ``PARAMETERS['theta0']``, positive: on its bottom left corner, which is
    at the origin)."""
    par = dict(PARAMETERS, **(parameters or {}))
    theta0 = par['theta0'] if theta0 is None else theta0
    b, h = par['b'], par['h']
    x, y, th = model.q
    cx = b if theta0 >= 0 else -b
    # the corner on the floor at the origin: G = corner + R(theta)(b, h)
    gx = cx * math.cos(theta0) - h * math.sin(theta0)
    gy = cx * math.sin(theta0) + h * math.cos(theta0)
    return {x: gx, y: gy, th: theta0, **{u: 0.0 for u in model.u}}


def run(duration=3.0, parameters=None, **options):
    """Simulate the rigid block; return ``(model, result)``. ``options``
    go to :func:`~sympy_loads.simulate`."""
    par = dict(PARAMETERS, **(parameters or {}))
    model = build_model()
    options = dict(dict(rtol=1e-11, atol=1e-13, max_step=0.005), **options)
    result = simulate(model.kane, (0.0, duration),
                      initial_conditions(model, parameters=par),
                      constants_of(model, **par), impacts=model.impacts,
                      **options)
    return model, result


def rocking_amplitudes(result, parameters=None):
    """The amplitude of each rocking half-cycle of ``result``: the angle
    at which the block, rocking freely about a fixed corner with the
    energy of the samples after each impact, comes to rest
    (``cos(alpha - |theta|) = E/(m g R)``), from the first sample after
    each impact."""
    par = dict(PARAMETERS, **(parameters or {}))
    R, alpha = slenderness(par['b'], par['h'])
    m, g = par['m'], par['g']
    inertia = m * (par['b']**2 + par['h']**2) / 3
    vx, vy, w = result.u.T
    energy = (m * (vx**2 + vy**2) / 2 + inertia * w**2 / 2
              + m * g * result.q[:, 1])
    starts = [0] + [int(np.nonzero(result.t == r.time)[0][-1])
                    for r in result.impacts if r.impulse > 0]
    return [alpha - math.acos(min(1.0, energy[i] / (m * g * R)))
            for i in starts]


def summary(result, parameters=None):
    """The impacts' ratios and the amplitudes beside Housner's, as text."""
    par = dict(PARAMETERS, **(parameters or {}))
    ratio = housner_ratio(par['b'], par['h'])
    lines = [f"Housner's ratio 1 - 1.5 sin^2(alpha) = {ratio:.10f}",
             f"{'impact':>6} {'time [s]':>10} {'omega+/omega-':>14} "
             f"{'amplitude [rad]':>16} {'by energy':>12}"]
    struck = [r for r in result.impacts if r.impulse > 0 and r.index in
              (0, 1) and r.normal_speed_before < 0]
    found = rocking_amplitudes(result, par)
    predicted = amplitudes(par['theta0'], len(found), par['b'], par['h'])
    lines.append(f"{0:6d} {0.0:10.6f} {'':>14} {found[0]:16.10f} "
                 f"{predicted[0]:12.10f}")
    for n, record in enumerate(struck, 1):
        if n >= len(found):
            break
        lines.append(f"{n:6d} {record.time:10.6f} "
                     f"{record.u_after[2] / record.u_before[2]:14.10f} "
                     f"{found[n]:16.10f} {predicted[n]:12.10f}")
    return '\n'.join(lines)


def plot(result, output_dir, parameters=None):
    """Save ``rocking_block.png``: the angle against time with the
    amplitudes energy conservation predicts; return its path."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    par = dict(PARAMETERS, **(parameters or {}))
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(result.t, result.q[:, 2], label='simulated')
    times = [0.0] + [r.time for r in result.impacts if r.impulse > 0]
    predicted = amplitudes(par['theta0'], len(times), par['b'], par['h'])
    for n, (start, amplitude) in enumerate(zip(times, predicted)):
        end = times[n + 1] if n + 1 < len(times) else result.t[-1]
        sign = 1 if n % 2 == 0 else -1
        ax.plot([start, end], [sign * amplitude] * 2, 'k:', lw=1,
                label='amplitudes by energy and Housner' if n == 0 else None)
    ax.set_xlabel('time [s]')
    ax.set_ylabel('angle theta [rad]')
    ax.legend(loc='upper right', fontsize='small')
    return save_figure(fig, "Housner's rocking block, 0.2 m x 0.8 m",
                       output_dir, 'rocking_block.png')


def save_animation(model, result, output_dir, fps=25, dpi=80):
    """Save ``rocking_block.gif`` in ``output_dir``; return its path."""
    import matplotlib
    matplotlib.use('Agg')
    C1, C2, C3, C4 = model.points
    left = model.origin.locatenew('floor_left', -0.4 * model.frame.x)
    right = model.origin.locatenew('floor_right', 0.6 * model.frame.x)
    anim = animate(result, [[C1, C2, C3, C4, C1], [left, right]],
                   model.frame, origin=model.origin, fps=fps,
                   title="Housner's rocking block", figsize=(4, 5),
                   units='m', limits=((-0.4, 0.6), (-0.05, 0.95)))
    return save_animation_gif(anim, output_dir, 'rocking_block.gif', dpi)


def main(argv=None):
    """Command-line entry point; returns ``(model, result)``."""
    return run_example(
        'python -m sympy_loads.examples.rocking_block', __doc__, 3.0, run,
        lambda model, result: summary(result),
        lambda model, result, output: plot(result, output),
        lambda model, result, output: save_animation(model, result, output), argv)


if __name__ == '__main__':
    main()
