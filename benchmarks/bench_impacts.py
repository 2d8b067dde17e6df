"""Rigid impacts against the compliant Hunt-Crossley contact they replace.

Run: python benchmarks/bench_impacts.py [--repeat 20] [--bounces 5]
     [--model ball|slider-crank|both] [--cold N]

Two models, each simulated with rigid impacts and with the compliant
contact at three stiffnesses:

* ``ball``: a ball (unit mass, g = 9.81) dropped from h = 1 m onto the
  floor, e = 0.8, through ``--bounces`` impacts (default 5) to just past
  the apex of the last rebound; the apex against the closed form
  h e_eff^(2n);
* ``slider-crank``: the slider-crank of ``sympy_loads.examples.slider_crank``
  (no spring, damper or motor) started with the crank at 2 rad turning at
  -8 rad/s, its slider striking a stop at x = 0.37 m once in 0.4 s; the
  crank's speed at 0.4 s against the rigid run's.

Rigid: ``simulate(..., impacts=[Impact(..., restitution=e_eff)])``.
Compliant: ``HuntCrossleyContact`` with ``stiffness`` k = 1e5, 1e7 and 1e9
N/m^1.5 and ``damping_from_restitution(k, e, v0, model='hu-guo')`` (v0 the
first impact's approach speed), with DOP853 (simulate()'s default) and
LSODA (a stiff integrator). ``e_eff`` is the restitution the hu-guo
damping really produces (``effective_restitution``; 0.7992 for e = 0.8),
so the difference between the runs is the compliance alone.

Printed per run: the compared quantity and its error, the wall time (code
generated before the timings; best of ``--repeat`` rounds that alternate
between the runs, three calls in a row per round), the evaluations of the
right-hand side and the speed-up of the rigid run. ``--cold N`` first
times the ball's first call (set-up and code generation included) of the
rigid run and the stiffest compliant ones in N fresh processes each. The
goal of the issue "Rigid impacts": the rigid run at least 10x faster than
the stiffest compliant one. Nothing here asserts a timing.
"""

import argparse
import math
import subprocess
import sys
import time

import numpy as np
import sympy.physics.mechanics as me

from sympy_loads import (HuntCrossleyContact, Impact,
                         damping_from_restitution, effective_restitution,
                         hysteresis_factor, simulate)
from sympy_loads.examples import slider_crank

from _timing import interleaved_best

G, H, E, MODEL = 9.81, 1.0, 0.8, 'hu-guo'


def ball(contact_stiffness=None):
    y, v = me.dynamicsymbols('y v')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', y * N.y)
    P.set_vel(N, v * N.y)
    loads = [(P, -G * N.y)]
    if contact_stiffness is not None:
        k = contact_stiffness
        c = damping_from_restitution(k, E, math.sqrt(2 * G * H), model=MODEL)
        loads += HuntCrossleyContact(P, O, N.y, N, stiffness=k,
                                     damping=c).to_loads()
    kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v])
    kane.kanes_equations([me.Particle('ball', P, 1)], loads)
    return kane, (y, v), (P, O, N)


def ball_runs(bounces):
    """``(title, runs, exact, quantity)`` of the dropped ball."""
    e_eff = effective_restitution(float(hysteresis_factor(E, MODEL)))
    v1 = math.sqrt(2 * G * H)
    n = bounces
    # closed form: impacts at t1, t1 + 2 e v1/g, ...; the n-th apex
    apex = (math.sqrt(2 * H / G) + 2 * v1 / G * sum(
        e_eff ** k for k in range(1, n)) + e_eff ** n * v1 / G)
    half = 0.2 * e_eff ** n * v1 / G
    window = np.linspace(apex - half, apex + half, 401)
    end = apex + half
    exact = H * e_eff ** (2 * n)

    kane, (y, v), (P, O, N) = ball()
    floor = Impact(P, O, N.y, N, restitution=e_eff)

    def rigid():
        return simulate(kane, (0, end), {y: H, v: 0.0}, {}, t_eval=window,
                        impacts=[floor], rtol=1e-10, atol=1e-12)
    runs = {'rigid Impact (DOP853)': rigid}
    for k in (1e5, 1e7, 1e9):
        kane_c, (yc, vc), _ = ball(k)
        for method in ('DOP853', 'LSODA'):
            def compliant(kane_c=kane_c, yc=yc, vc=vc, method=method):
                return simulate(kane_c, (0, end), {yc: H, vc: 0.0}, {},
                                t_eval=window, method=method, rtol=1e-10,
                                atol=1e-12)
            runs[f'Hunt-Crossley k = {k:.0e} ({method})'] = compliant
    title = (f'ball dropped from {H} m, e = {E} ({MODEL} damping; effective '
             f'e = {e_eff:.6f}), {n} bounces, apex of the last '
             f'{exact:.9f} m')
    return title, runs, exact, ('apex [m]', lambda r: r.q[:, 0].max())


STOP, CRANK_START, CRANK_SPEED, SPAN = 0.37, 2.0, -8.0, 0.4


def slider_crank_model(contact_stiffness=None, approach_speed=None):
    """The slider-crank (no spring, damper or motor) and its stop: an
    ``Impact`` (rigid) or a ``HuntCrossleyContact`` among its loads."""
    def stop_contact(points, N):
        O, _, S = points
        stop = O.locatenew('stop', STOP * N.x)
        c = damping_from_restitution(contact_stiffness, E, approach_speed,
                                     model=MODEL)
        return HuntCrossleyContact(S, stop, -N.x, N,
                                   stiffness=contact_stiffness,
                                   damping=c).to_loads()
    model = slider_crank.build_model(
        None if contact_stiffness is None else stop_contact)
    q1, q2, q3 = model.q
    initial = {q1: CRANK_START, q2: 0.0, q3: 0.25, model.u[0]: CRANK_SPEED}
    constants = slider_crank.constants_of(model, k=0.0, c=0.0, cb=0.0)

    def run(**options):
        return simulate(model.kane, (0, SPAN), initial, constants,
                        specified={model.torque: 0.0},
                        t_eval=np.linspace(0, SPAN, 401), rtol=1e-10,
                        atol=1e-12, **options)
    return model, run


def slider_crank_runs():
    """``(title, runs, exact, quantity)`` of the slider-crank's stop."""
    e_eff = effective_restitution(float(hysteresis_factor(E, MODEL)))
    model, run = slider_crank_model()
    O, _, S = model.points
    N = model.frame
    stop = Impact(S, O.locatenew('stop', STOP * N.x), -N.x, N,
                  restitution=e_eff, name='stop')

    def rigid():
        return run(impacts=[stop])
    reference = rigid()
    approach = -reference.impacts[0].normal_speed_before
    runs = {'rigid Impact (DOP853)': rigid}
    for k in (1e5, 1e7, 1e9):
        _, run_c = slider_crank_model(k, approach)
        for method in ('DOP853', 'LSODA'):
            runs[f'Hunt-Crossley k = {k:.0e} ({method})'] = (
                lambda run_c=run_c, method=method: run_c(method=method))
    title = (f'slider-crank striking a stop, e = {E} ({MODEL} damping; '
             f'effective e = {e_eff:.6f}), {len(reference.impacts)} '
             f'impact(s) in {SPAN} s, crank speed at {SPAN} s '
             f'{reference.u[-1, 0]:.9f} rad/s (rigid)')
    return title, runs, reference.u[-1, 0], ('u1 [rad/s]', lambda r:
                                              r.u[-1, 0])


def report(title, runs, exact, quantity, repeat):
    label, value_of = quantity
    for run in runs.values():
        run()                                # code generation
    # alternating rounds: a drifting machine slows every run alike; three
    # calls in a row per round, the best counted: the first call after
    # another model's run finds the processor's caches filled with that
    # run's code and data, which costs a short run (the rigid one) a
    # third or more of its time, and a user's repeated runs do not pay it
    timings = interleaved_best({name: (run, 3) for name, run in
                                runs.items()}, repeat)
    rows = [(name, seconds, value_of(result), result.nfev)
            for name, (seconds, result) in timings.items()]
    rigid_seconds = rows[0][1]
    print(title)
    print(f'{"run":<36} {label:>12} {"error":>9} {"time":>10} '
          f'{"nfev":>8} {"rigid faster":>12}')
    for name, seconds, value, nfev in rows:
        print(f'{name:<36} {value:12.9f} {abs(value - exact):9.2e} '
              f'{1e3 * seconds:8.2f}ms {nfev:8d} '
              f'{seconds / rigid_seconds:11.1f}x')


COLD_RUNS = ('rigid Impact (DOP853)', 'Hunt-Crossley k = 1e+09 (DOP853)',
             'Hunt-Crossley k = 1e+09 (LSODA)')


def cold_report(bounces, processes):
    """The ball's first ``simulate()`` in fresh processes (numba's cache as
    it is: warm after any earlier run), the rigid run and the stiffest
    compliant ones; best of ``processes`` rounds that alternate between
    them."""
    best = {name: math.inf for name in COLD_RUNS}
    for _ in range(processes):
        for name in COLD_RUNS:
            done = subprocess.run(
                [sys.executable, __file__, '--bounces', str(bounces),
                 '--child', name], capture_output=True, text=True,
                check=True)
            best[name] = min(best[name], float(done.stdout.split()[-1]))
    print(f'cold: the first simulate() of a fresh process on a new model '
          f'(code generated in the call), best of {processes} processes')
    print(f'{"run":<36} {"first call":>10} {"rigid faster":>12}')
    for name in COLD_RUNS:
        print(f'{name:<36} {best[name]:9.3f}s '
              f'{best[name] / best[COLD_RUNS[0]]:11.1f}x')


def child(bounces, name):
    """Print the wall time of the first call of the ball's run ``name``."""
    _, runs, _, _ = ball_runs(bounces)
    start = time.perf_counter()
    runs[name]()
    print(time.perf_counter() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--bounces', type=int, default=5)
    parser.add_argument('--model', default='both',
                        choices=('ball', 'slider-crank', 'both'))
    parser.add_argument('--cold', type=int, default=0, metavar='N',
                        help='also time the ball\'s first call in N fresh '
                        'processes per run')
    parser.add_argument('--child', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.bounces, args.child)
        return
    if args.cold:
        cold_report(args.bounces, args.cold)
        print()
    if args.model in ('ball', 'both'):
        report(*ball_runs(args.bounces), args.repeat)
    if args.model == 'both':
        print()
    if args.model in ('slider-crank', 'both'):
        report(*slider_crank_runs(), args.repeat)


if __name__ == '__main__':
    main()
