"""Rigid contacts with friction against Hunt-Crossley approximations of the
same problems.

Run: python benchmarks/bench_frictional_contacts.py [--repeat 3]
     [--model block|woodpecker|both] [--stiffness 1e7 1e9]

Two models of ``sympy_loads.examples``, each simulated warm (the model
built and its code generated before the timings) with rigid contacts
(``Impact`` with ``friction_coefficient``: impacts, lasting contacts that
stick and slide) and with ``HuntCrossleyContact`` at the corners/edges
instead (stiffness k from ``--stiffness``; damping from Hu and Guo's law
for the rigid model's restitution at the impact speed, a restitution of
0.1 for the block's plastic corners and 0.05 for the woodpecker's plastic
sleeve; friction regularized over 1e-4 m/s; LSODA):

* ``block``: Housner's rocking block (``rocking_block``, 0.2 m x 0.8 m,
  tilted by 0.15 rad) through ten rocking cycles (twenty impacts); the
  error is the largest difference of the twenty amplitudes from those of
  Housner's ratio and energy conservation (``rocking_block.amplitudes``);
* ``woodpecker``: one second of Glocker's woodpecker toy
  (``woodpecker``) from its periodic state (``woodpecker.PERIODIC_STATE``,
  just after a beak impact); the error is the difference of the mean
  pecking period and of the mean descent per cycle from the rigid run's
  (which are ``woodpecker.PERIOD`` and ``DESCENT``).

Printed per run: the error, the wall time (best of ``--repeat`` rounds
alternating between the runs), the evaluations of the right-hand side and
the time of each compliant run over the rigid one. Nothing here asserts a
timing.
"""

import argparse
import math

import numpy as np
from scipy.interpolate import CubicHermiteSpline

from sympy_loads import damping_from_restitution, simulate
from sympy_loads.examples import rocking_block, woodpecker

from _timing import interleaved_best

CYCLES = 10
#: The restitution the compliant sleeve's damping is chosen for (the rigid
#: one is plastic, which a Hunt-Crossley contact cannot be).
SLEEVE_RESTITUTION = 0.05


def block_rigid(duration):
    model = rocking_block.build_model()
    constants = rocking_block.constants_of(model)
    start = rocking_block.initial_conditions(model)

    def run():
        return simulate(model.kane, (0, duration), start, constants,
                        impacts=model.impacts, rtol=1e-10, atol=1e-12)
    return run


def block_compliant(duration, k):
    par = rocking_block.PARAMETERS
    model = rocking_block.build_model(compliant=True)
    R, alpha = rocking_block.slenderness(par['b'], par['h'])
    # the corner's approach speed at the first impact, from energy
    omega = math.sqrt(2 * par['g'] * R * (math.cos(alpha - par['theta0'])
                                          - math.cos(alpha)) / (4 / 3 * R**2))
    v0 = 2 * par['b'] * omega
    c = float(damping_from_restitution(k, 0.1, v0, model='hu-guo'))
    constants = rocking_block.constants_of(model, k=k, c=c, eps=1e-4)
    start = rocking_block.initial_conditions(model)
    # the corner starts exactly on the floor (no force): let it settle in
    # the contact as the rigid one starts pressed

    def run():
        return simulate(model.kane, (0, duration), start, constants,
                        method='LSODA', rtol=1e-8, atol=1e-11,
                        max_step=1e-3)
    return run


def turning_amplitudes(result, count):
    """The largest |theta| between zero crossings of theta (cubic Hermite
    interpolation of theta and omega around the largest sample)."""
    t, th, w = result.t, result.q[:, 2], result.u[:, 2]
    crossings = np.nonzero(np.diff(np.sign(th)) != 0)[0]
    bounds = [0] + list(crossings + 1) + [len(t)]
    found = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        if b - a < 3:
            continue
        i = a + int(np.argmax(np.abs(th[a:b])))
        j = slice(max(i - 1, a), min(i + 2, b))
        if j.stop - j.start < 2:
            found.append(abs(th[i]))
            continue
        spline = CubicHermiteSpline(t[j], np.abs(th[j]),
                                    np.sign(th[j]) * w[j])
        s = np.linspace(t[j][0], t[j][-1], 201)
        found.append(float(np.max(spline(s))))
    return np.array(found[:count])


def block(repeat, stiffnesses):
    par = rocking_block.PARAMETERS
    expected = np.array(rocking_block.amplitudes(
        par['theta0'], 2 * CYCLES + 1, par['b'], par['h']))[1:]
    # the time of the twentieth impact, plus a quarter of the last cycle
    # (before the block comes to rest, at about 5.5 s)
    probe = block_rigid(5.0)()
    struck = [r.time for r in probe.impacts if r.impulse > 0]
    duration = struck[2 * CYCLES - 1] + 0.25 * (struck[2 * CYCLES - 1]
                                                - struck[2 * CYCLES - 2])
    runs = {'rigid (Impact, mu = 0.7)': (block_rigid(duration), 1)}
    for k in stiffnesses:
        runs[f'Hunt-Crossley k = {k:.0e}'] = (block_compliant(duration, k),
                                              1)
    timings = interleaved_best(runs, repeat)
    print(f"Housner's block, {CYCLES} rocking cycles ({duration:.4f} s): "
          f"error = largest difference of {2 * CYCLES} amplitudes from "
          f"Housner's [rad]")
    report(timings, lambda result, name: amplitude_error(result, name,
                                                         expected))


def amplitude_error(result, name, expected):
    if name.startswith('rigid'):
        found = np.array(rocking_block.rocking_amplitudes(result))[1:]
    else:
        found = turning_amplitudes(result, len(expected) + 1)[1:]
    n = min(len(found), len(expected))
    if n < len(expected):
        return f'{np.max(np.abs(found[:n] - expected[:n])):.2e} ({n} found)'
    return f'{np.max(np.abs(found[:n] - expected[:n])):.2e}'


def woodpecker_run(compliant=False, k=None):
    model = woodpecker.build_model(compliant=compliant)
    if compliant:
        # damping for the rigid model's restitution (the beak's 0.5; the
        # sleeve's 0 approached by SLEEVE_RESTITUTION) at the approach
        # speeds of the rigid cycle: the beak's 0.34 m/s, the sleeve's
        # edges' about 0.1 m/s
        par = woodpecker.PARAMETERS
        c_beak = float(damping_from_restitution(
            k, par['e_beak'], 0.34, model='hu-guo'))
        c_sleeve = float(damping_from_restitution(
            k, SLEEVE_RESTITUTION, 0.1, model='hu-guo'))
        constants = woodpecker.constants_of(model, k=k, c_beak=c_beak,
                                            c_sleeve=c_sleeve, eps=1e-4)
        options = dict(method='LSODA', rtol=1e-8, atol=1e-12, max_step=1e-4)
        impacts = None
    else:
        constants = woodpecker.constants_of(model)
        options = dict(rtol=1e-10, atol=1e-13)
        impacts = model.impacts
    # on the periodic cycle, just after a beak impact
    phi_m, v, w_m, w_s = woodpecker.PERIODIC_STATE
    start = dict(zip(model.q, (0.0, phi_m, woodpecker.beak_angle())))
    start.update(zip(model.u, (v, w_m, w_s)))

    def run():
        return simulate(model.kane, (0, 1.0), start, constants,
                        impacts=impacts, **options)
    return run


def beak_cycles(result, name):
    """Mean period and descent per cycle over the run (which starts just
    after a beak impact): rigid from the impact records, compliant from
    the beak's gap closing (phiS crossing the impact angle upwards)."""
    if name.startswith('rigid'):
        times, heights = woodpecker.cycles(result)
    else:
        angle = woodpecker.beak_angle()
        phi = result.q[:, 2]
        idx = np.nonzero((phi[:-1] < angle) & (phi[1:] >= angle))[0]
        times, heights = result.t[idx], result.q[idx, 0]
        keep = np.concatenate([[True], np.diff(times) > 0.05])
        times, heights = times[keep], heights[keep]
    times = np.concatenate([[0.0], times])
    heights = np.concatenate([[0.0], heights])
    return np.diff(times).mean(), -np.diff(heights).mean()


def woodpecker_bench(repeat, stiffnesses):
    runs = {'rigid (Impact, mu = 0.3)': (woodpecker_run(), 1)}
    for k in stiffnesses:
        runs[f'Hunt-Crossley k = {k:.0e}'] = (woodpecker_run(True, k), 1)
    timings = interleaved_best(runs, repeat)
    rigid = beak_cycles(timings[next(iter(runs))][1], 'rigid')
    print(f'Woodpecker toy, 1 s: rigid period {rigid[0] * 1e3:.4f} ms, '
          f'descent {rigid[1] * 1e3:.4f} mm per cycle; error = '
          f'differences of period [ms] and descent [mm] from the rigid run')

    def error(result, name):
        period, descent = beak_cycles(result, name)
        return (f'{(period - rigid[0]) * 1e3:+.3f} ms, '
                f'{(descent - rigid[1]) * 1e3:+.3f} mm')
    report(timings, error)


def report(timings, error):
    names = list(timings)
    base = timings[names[0]][0]
    print(f"{'run':<28} {'error':>26} {'time [s]':>9} {'RHS evals':>10} "
          f"{'time/rigid':>10}")
    for name in names:
        seconds, result = timings[name]
        print(f'{name:<28} {error(result, name):>26} {seconds:9.4f} '
              f'{result.nfev:10d} {seconds / base:10.1f}')
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--model', choices=['block', 'woodpecker', 'both'],
                        default='both')
    parser.add_argument('--stiffness', type=float, nargs='+',
                        default=[1e7, 1e9])
    args = parser.parse_args()
    if args.model in ('block', 'both'):
        block(args.repeat, args.stiffness)
    if args.model in ('woodpecker', 'both'):
        woodpecker_bench(args.repeat, args.stiffness)


if __name__ == '__main__':
    main()
