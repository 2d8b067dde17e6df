"""The woodpecker toy of Pfeiffer and Glocker: a sleeve that jams on a
pole and slips, a bird on a spring that swings and pecks the pole, with
Glocker's data.

Run ``python -m sympy_loads.examples.woodpecker [--duration 1]
[--output DIR] [--no-plot] [--animate]``: prints the beak impacts (time,
interval since the one before, height of the sleeve) and the descent per
pecking cycle; saves ``woodpecker.png`` (the sleeve's height and the two
angles against time); with ``--animate`` also ``woodpecker.gif``.

The toy: a sleeve M (mass ``mM``, moment of inertia ``JM``) with a hole of
radius ``rM`` and half height ``hM`` slides down a vertical pole of radius
``r0``; the bird S (``mS``, ``JS`` about its mass center) is joined to the
sleeve by a rotational spring (stiffness ``c_phi``). The coordinates are
Glocker's: the height ``y`` of the sleeve, the sleeve's angle ``phiM`` and
the bird's angle ``phiS`` (both from the horizontal, absolute); the
sleeve's center stays on the pole's axis. Glocker writes the kinematics
for small angles, as this example does: the spring's joint G is at ``lM``
from the sleeve's center, the bird's mass center at ``lG`` from G, the
beak at ``(lG - lS, hS)`` from G in the bird's axes, so that

* the mass matrix is constant, ``M = diag(mM, JM, JS) + mS a a^T`` with
  ``a = (1, lM, lG)`` (the vertical velocity of the bird's mass center is
  ``y' + lM phiM' + lG phiS'``), and the generalized gravity and spring
  forces are ``-(mM + mS) g``, ``-c_phi (phiM - phiS) - mS g lM``,
  ``-c_phi (phiS - phiM) - mS g lG``;
* the three contacts are points on the pole's surface plane ``x = r0``
  (normal along N.x), each an :class:`~sympy_loads.Impact` with Coulomb
  friction: the sleeve's lower edge (gap ``rM - r0 + hM phiM``), its upper
  edge (gap ``rM - r0 - hM phiM``), both plastic (``e = 0``), and the beak
  (gap ``lM + lG - lS - r0 - hS phiS``, ``e = 0.5``); ``mu = 0.3`` at all
  three.

The toy moves down the pole in a periodic cycle: the bird swings, the
sleeve jams on one edge (a closed, sticking contact) and releases, falls a
little, jams on the other edge, and the beak strikes the pole; the cycle
repeats with the same period and the same descent.

Where each number comes from. The masses, moments of inertia, lengths
and the spring stiffness are Glocker's, from his thesis (Glocker 1995,
p. 162 ff.; the model is that of Pfeiffer and Glocker 1996), as quoted
with that page reference in public re-implementations of the model:
``mM = 3.0e-4 kg``, ``JM = 5.0e-9 kg m^2``, ``mS = 4.5e-3 kg``,
``JS = 7.0e-7 kg m^2``, ``r0 = 2.5e-3 m``, ``rM = 3.1e-3 m``,
``hM = 5.8e-3 m``, ``lM = 1.0e-2 m``, ``lG = 1.5e-2 m``, ``hS = 2.0e-2 m``,
``lS = 2.01e-2 m``, ``c_phi = 5.6e-3 N m/rad``, ``g = 9.81 m/s^2``. The
restitution coefficients (beak 0.5, sleeve 0; no tangential restitution),
the friction coefficients ``mu = 0.3`` and the initial state on the
periodic cycle, ``q = (0, -0.1036, -0.2788)``, ``u = (-0.3411, 0,
-7.4583)``, are those of Baumann and Nuetzi's Moreau time-stepping of
Glocker's model (who note that ``c_phi`` is not printed in the
conference paper they follow and take the value above). The sleeve
angle of that state is rounded (``-0.1036`` penetrates the pole by 0.9
micrometres); this example starts at the angle where the lower edge just
touches, ``-(rM - r0)/hM``. Leine, Glocker and van Campen (2003) study
the same toy among other wooden toys with impacts and friction.

References
==========

.. [Glocker1995] Ch. Glocker, Dynamik von Starrkoerpersystemen mit Reibung
   und Stoessen, PhD thesis, TU Muenchen, 1995, p. 162 ff.
.. [PfeifferGlocker1996] F. Pfeiffer, Ch. Glocker, Multibody Dynamics with
   Unilateral Contacts, Wiley, 1996.
.. [Leine2003] R. I. Leine, Ch. Glocker, D. H. van Campen, "Nonlinear
   dynamics and modeling of various wooden toys with impact and
   friction", J. Vib. Control 9 (2003) 25-78.
.. [Baumann2017] M. Baumann, G. Nuetzi, "Simulating the woodpecker toy"
   (Moreau's time-stepping of Glocker's model, 2017).
   https://github.com/gabyx/Woodpecker
"""

from types import SimpleNamespace

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import (HuntCrossleyContact, Impact, animate,
                         simulate)
from sympy_loads.examples._report import (run_example, save_animation_gif,
                                          save_figure)

#: Glocker's data (see the module documentation for the sources): masses
#: [kg], moments of inertia [kg m^2], lengths [m], spring stiffness c_phi
#: [N m/rad], gravity g [m/s^2], friction coefficient mu, restitution of
#: the beak e_beak and of the sleeve's edges e_sleeve.
PARAMETERS = {'mM': 3.0e-4, 'JM': 5.0e-9, 'mS': 4.5e-3, 'JS': 7.0e-7,
              'r0': 2.5e-3, 'rM': 3.1e-3, 'hM': 5.8e-3, 'lM': 1.0e-2,
              'lG': 1.5e-2, 'hS': 2.0e-2, 'lS': 2.01e-2, 'c_phi': 5.6e-3,
              'g': 9.81, 'mu': 0.3, 'e_beak': 0.5, 'e_sleeve': 0.0}
#: The state on the periodic cycle used by Baumann and Nuetzi (2017):
#: ``(y, phiM, phiS)`` [m, rad] and their rates [m/s, rad/s].
CYCLE_STATE = ((0.0, -0.1036, -0.2788), (-0.3411, 0.0, -7.4583))


#: The state on the periodic cycle of this model just after a beak impact
#: (the beak on the pole: ``phiS = (lM + lG - lS - r0)/hS``, ``y = 0``):
#: ``(phiM, v, omegaM, omegaS)`` [rad, m/s, rad/s, rad/s], the fixed point
#: of :func:`return_map` found by :func:`find_cycle` (Newton's method,
#: residual below 1e-12). From it the beak strikes every PERIOD seconds and
#: the toy moves down DESCENT metres per cycle.
PERIODIC_STATE = (0.0869557443071371, -0.06585839866092028,
                  26.212927340817767, -6.898011830808525)
#: The period [s] and the descent per cycle [m] of :data:`PERIODIC_STATE`.
PERIOD, DESCENT = 0.17559869891, 0.03410815288


def _small_rotation(phi, a, b):
    """``R(phi) (a, b)`` for small ``phi``: ``(a - b phi, a phi + b)``."""
    return a - b * phi, a * phi + b


def build_model(compliant=False):
    """Return a namespace with the toy's ``KanesMethod`` (``kane``), the
    coordinates ``q = (y, phiM, phiS)`` and speeds ``u = (v, omegaM,
    omegaS)``, ``symbols``, the frame ``N``, the origin ``O`` (on the
    pole's axis), the ``points`` to draw (a dict) and ``impacts`` (the
    sleeve's lower and upper edges and the beak, in that order). With
    ``compliant=True`` the three contacts are
    :class:`~sympy_loads.HuntCrossleyContact`\\ s (stiffness ``k``,
    damping ``c_sleeve`` at the sleeve's edges and ``c_beak`` at the beak,
    friction regularized over the slip speed ``eps``) and ``impacts`` is
    empty.

    Examples
    ========

    >>> from sympy_loads.examples import woodpecker
    >>> model = woodpecker.build_model()
    >>> for impact in model.impacts:
    ...     print(impact.gap)
    h_M*phi_M(t) - r_0 + r_M
    -h_M*phi_M(t) - r_0 + r_M
    -h_S*phi_S(t) + l_G + l_M - l_S - r_0
    >>> model.kane.mass_matrix[0, :]
    Matrix([[m_M + m_S, l_M*m_S, l_G*m_S]])
    """
    y, phi_m, phi_s = me.dynamicsymbols('y phi_M phi_S')
    v, w_m, w_s = me.dynamicsymbols('v omega_M omega_S')
    names = ('m_M J_M m_S J_S r_0 r_M h_M l_M l_G h_S l_S c_phi g mu '
             'e_beak e_sleeve k c_beak c_sleeve epsilon')
    (mM, JM, mS, JS, r0, rM, hM, lM, lG, hS, lS, c_phi, g, mu, e_beak,
     e_sleeve, k, c_beak, c_sleeve, eps) = sm.symbols(names, positive=True)
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (phi_m, N.z))       # the sleeve
    A.set_ang_vel(N, w_m * N.z)
    B = N.orientnew('B', 'Axis', (phi_s, N.z))       # the bird
    B.set_ang_vel(N, w_s * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)

    def point(name, base, phi, a, b):
        # a point at (a, b) from base in axes turned by phi (small angle)
        dx, dy = _small_rotation(phi, a, b)
        p = base.locatenew(name, dx * N.x + dy * N.y)
        p.set_vel(N, base.vel(N) + sm.diff(dy, phi) * phi.diff() * N.y
                  + sm.diff(dx, phi) * phi.diff() * N.x)
        return p

    M = O.locatenew('M', y * N.y)
    M.set_vel(N, v * N.y)
    G = point('G', M, phi_m, lM, 0)
    S = point('S', G, phi_s, lG, 0)
    drawn = {'M': M, 'G': G, 'S': S,
             'lower': point('lower', M, phi_m, rM, -hM),
             'upper': point('upper', M, phi_m, rM, hM),
             'lower_left': point('lower_left', M, phi_m, -rM, -hM),
             'upper_left': point('upper_left', M, phi_m, -rM, hM),
             'head': point('head', G, phi_s, lG, hS),
             'beak': point('beak', G, phi_s, lG - lS, hS)}
    kinematics = {phi_m.diff(): w_m, phi_s.diff(): w_s, y.diff(): v}
    for p in drawn.values():
        p.set_vel(N, p.vel(N).xreplace(kinematics))
    sleeve = me.RigidBody('sleeve', M, A, mM, (me.inertia(A, 0, 0, JM), M))
    bird = me.RigidBody('bird', S, B, mS, (me.inertia(B, 0, 0, JS), S))
    spring = c_phi * (phi_s - phi_m) * N.z
    loads = [(M, -mM * g * N.y), (S, -mS * g * N.y), (A, spring),
             (B, -spring)]
    pole = O.locatenew('pole', r0 * N.x)
    contacts = (('sleeve, lower edge', drawn['lower'], e_sleeve, c_sleeve),
                ('sleeve, upper edge', drawn['upper'], e_sleeve, c_sleeve),
                ('beak', drawn['beak'], e_beak, c_beak))
    impacts = []
    for name, p, e, c in contacts:
        if compliant:
            loads += HuntCrossleyContact(
                p, pole, N.x, N, stiffness=k, damping=c,
                friction_coefficient=mu,
                friction_regularization=eps).to_loads()
        else:
            impacts.append(Impact(p, pole, N.x, N, restitution=e,
                                  friction_coefficient=mu, name=name))
    kane = me.KanesMethod(N, [y, phi_m, phi_s], [v, w_m, w_s],
                          kd_eqs=[y.diff() - v, phi_m.diff() - w_m,
                                  phi_s.diff() - w_s])
    kane.kanes_equations([sleeve, bird], loads)
    symbols = dict(mM=mM, JM=JM, mS=mS, JS=JS, r0=r0, rM=rM, hM=hM, lM=lM,
                   lG=lG, hS=hS, lS=lS, c_phi=c_phi, g=g, mu=mu)
    if compliant:
        symbols.update(k=k, c_beak=c_beak, c_sleeve=c_sleeve, eps=eps)
    else:
        symbols.update(e_beak=e_beak, e_sleeve=e_sleeve)
    return SimpleNamespace(kane=kane, q=(y, phi_m, phi_s), u=(v, w_m, w_s),
                           symbols=symbols, impacts=impacts, frame=N,
                           origin=O, points=drawn, pole=pole)


def constants_of(model, **overrides):
    """Map the model's symbols to :data:`PARAMETERS` (with overrides)."""
    values = dict(PARAMETERS, **overrides)
    return {symbol: values[name] for name, symbol in model.symbols.items()}


def initial_conditions(model, parameters=None):
    """The state on the cycle of :data:`CYCLE_STATE`, with the sleeve's
    angle where its lower edge just touches the pole."""
    par = dict(PARAMETERS, **(parameters or {}))
    (y0, _, phi_s0), speeds = CYCLE_STATE
    phi_m0 = -(par['rM'] - par['r0']) / par['hM']
    values = dict(zip(model.q, (y0, phi_m0, phi_s0)))
    values.update(zip(model.u, speeds))
    return values


def run(duration=1.0, parameters=None, **options):
    """Simulate the toy from :func:`initial_conditions`; return ``(model,
    result)``. ``options`` go to :func:`~sympy_loads.simulate`."""
    par = dict(PARAMETERS, **(parameters or {}))
    model = build_model()
    options = dict(dict(rtol=1e-10, atol=1e-13, max_step=1e-3), **options)
    result = simulate(model.kane, (0.0, duration),
                      initial_conditions(model, par),
                      constants_of(model, **par), impacts=model.impacts,
                      **options)
    return model, result


def beak_angle(parameters=None):
    """The bird's angle ``phiS`` at which the beak touches the pole,
    ``(lM + lG - lS - r0)/hS`` [rad]."""
    par = dict(PARAMETERS, **(parameters or {}))
    return (par['lM'] + par['lG'] - par['lS'] - par['r0']) / par['hS']


def return_map(model, state, **options):
    """The pecking cycle's return map: from ``state`` = ``(phiM, v,
    omegaM, omegaS)`` just after a beak impact (``y = 0``, the beak on the
    pole), simulate to the next beak impact and return ``(state after it,
    period, descent)``. ``options`` go to :func:`~sympy_loads.simulate`
    (default ``rtol=1e-12, atol=1e-14``)."""
    phi_m, v, w_m, w_s = state
    start = dict(zip(model.q, (0.0, phi_m, beak_angle())))
    start.update(zip(model.u, (v, w_m, w_s)))
    options = dict(dict(rtol=1e-12, atol=1e-14), **options)
    result = simulate(model.kane, (0.0, 3 * PERIOD), start,
                      constants_of(model), impacts=model.impacts, **options)
    hit = beak_impacts(result)[0]
    i = int(np.nonzero(result.t == hit.time)[0][0])
    after = np.array([result.q[i, 1], *hit.u_after])
    return after, hit.time, -result.q[i, 0]


def find_cycle(state=PERIODIC_STATE, tolerance=1e-12, iterations=10):
    """The fixed point of :func:`return_map` near ``state`` by Newton's
    method (the Jacobian by forward differences); returns ``(state,
    period, descent)``.

    The Jacobian has one eigenvalue away from zero, about -0.6: the
    plastic, sticking jams of the sleeve forget the other directions, and
    a cycle started near the periodic one approaches it, alternately
    above and below, by that factor per cycle."""
    model = build_model()
    x = np.asarray(state, dtype=float)
    scale = np.array([1.0, 1.0, 10.0, 10.0])
    for _ in range(iterations):
        fx, period, descent = return_map(model, x)
        residual = fx - x
        if np.max(np.abs(residual) / scale) < tolerance:
            return x, period, descent
        jacobian = np.empty((4, 4))
        for k in range(4):
            dx = np.zeros(4)
            dx[k] = 1e-7 * max(1.0, abs(x[k]))
            jacobian[:, k] = (return_map(model, x + dx)[0] - fx) / dx[k]
        x = x - np.linalg.solve(jacobian - np.eye(4), residual)
    raise RuntimeError(f'no periodic cycle found near {state}: residual '
                       f'{residual}')


def beak_impacts(result):
    """The impact records of the beak (``impacts[2]``) that struck it
    (normal speed before below zero)."""
    return [r for r in result.impacts
            if r.index == 2 and r.normal_speed_before < 0]


def cycles(result):
    """``(times, heights)``: the time of each beak impact and the sleeve's
    height ``y`` there (one per pecking cycle)."""
    times, heights = [], []
    for record in beak_impacts(result):
        i = int(np.nonzero(result.t == record.time)[0][0])
        times.append(record.time)
        heights.append(result.q[i, 0])
    return np.array(times), np.array(heights)


def summary(result):
    """The beak impacts and the descent per cycle, as text."""
    times, heights = cycles(result)
    lines = [f"{'beak impact':>11} {'time [s]':>10} {'interval [s]':>13} "
             f"{'y [mm]':>10} {'descent [mm]':>13}"]
    for n, (t, y) in enumerate(zip(times, heights), 1):
        if n == 1:
            lines.append(f'{n:11d} {t:10.6f} {"":>13} {1e3 * y:10.4f}')
            continue
        lines.append(f'{n:11d} {t:10.6f} {t - times[n - 2]:13.6f} '
                     f'{1e3 * y:10.4f} {1e3 * (heights[n - 2] - y):13.6f}')
    if len(times) > 2:
        period = np.diff(times)[1:].mean()
        descent = -np.diff(heights)[1:].mean()
        lines.append(f'cycle: period {period:.6f} s, descent '
                     f'{1e3 * descent:.6f} mm, mean speed '
                     f'{descent / period:.6f} m/s')
    return '\n'.join(lines)


def plot(result, output_dir):
    """Save ``woodpecker.png``; return its path."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 6))
    axes[0].plot(result.t, 1e3 * result.q[:, 0])
    axes[0].set_ylabel('sleeve height y [mm]')
    axes[1].plot(result.t, result.q[:, 1])
    axes[1].set_ylabel('sleeve angle [rad]')
    axes[2].plot(result.t, result.q[:, 2])
    axes[2].set_ylabel('bird angle [rad]')
    axes[2].set_xlabel('time [s]')
    for record in beak_impacts(result):
        for ax in axes:
            ax.axvline(record.time, color='0.7', lw=0.8, ls=':')
    for contact in result.contacts:
        axes[1].axvspan(contact.start, contact.end, color='C1', alpha=0.15)
    return save_figure(fig, 'Woodpecker toy, Glocker\'s data (dotted: beak '
                       'impacts; shaded: a closed contact)', output_dir,
                       'woodpecker.png')


def save_animation(model, result, output_dir, fps=25, dpi=80):
    """Save ``woodpecker.gif`` (slowed down ten times, the pole drawn
    around the toy) in ``output_dir``; return its path."""
    import matplotlib
    matplotlib.use('Agg')
    p = model.points
    N, O = model.frame, model.origin
    r0 = PARAMETERS['r0']
    low = result.q[:, 0].min() - 0.04
    pole = [[O.locatenew(f'pole_{side}{end}', side * r0 * N.x + y * N.y)
             for y, end in ((low, 0), (0.03, 1))] for side in (-1, 1)]
    chains = [[p['upper'], p['lower']], [p['upper_left'], p['lower_left']],
              [p['M'], p['G'], p['S'], p['head'], p['beak']]] + pole
    anim = animate(result, chains, N, origin=O, fps=fps, speed=0.1,
                   title='Woodpecker (10x slower)',
                   figsize=(4.5, 7), units='m', trace=p['beak'],
                   limits=((-0.015, 0.04), (low, 0.03)))
    return save_animation_gif(anim, output_dir, 'woodpecker.gif', dpi)


def main(argv=None):
    """Command-line entry point; returns ``(model, result)``."""
    return run_example(
        'python -m sympy_loads.examples.woodpecker', __doc__, 1.0, run,
        lambda model, result: summary(result),
        lambda model, result, output: plot(result, output),
        lambda model, result, output: save_animation(model, result, output), argv)


if __name__ == '__main__':
    main()
