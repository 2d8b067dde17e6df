"""simulate_many(): a four-bar parameter study serially, on a process pool
and on a Dask LocalCluster.

Run: python benchmarks/bench_parameter_study.py [--cases 32] [--duration 2]
     [--workers 1,2] [--repeat 3] [--pairs 7] [--no-dask]

The study: Moore's four-bar with gravity and a spring-damper
(``sympy_loads.examples.four_bar``), ``--cases`` cases of ``--duration``
seconds each (DOP853 at simulate()'s default tolerances), varying the spring
stiffness ``k`` (5 to 80 N/m) and the initial crank angle (5 to 40 deg). The
model is derived and its code generated once, before any timing (a first
``simulate_many`` in this process); then, for each mode, wall times of
``simulate_many`` over all cases:

* serial: ``executor=None`` (best of ``--repeat``);
* ``ProcessPoolExecutor(N)`` for each N of ``--workers``: *cold* creates the
  pool inside the timing (processes started with the platform's default
  method, each loads the prepared model once); *warm* reruns the study on
  that pool, whose workers have the model (best of ``--repeat``); then
  ``--pairs`` serial and pool runs alternate and the median of their
  ratios is printed (the fairest figure on a machine whose load varies);
* Dask ``LocalCluster(n_workers=N, threads_per_worker=1)`` through
  ``Client.get_executor()`` for the largest N: the cluster's start-up is
  printed apart; *first* is the first study on the new cluster (the workers
  load the model), *warm* the best of ``--repeat`` reruns.

Every parallel result is compared with the serial one (largest absolute
difference of the sampled states). Printed: wall times, speed-ups against
serial, the time per case, the load average of the machine before and
after and the share of a processor the serial runs got (CPU time / wall
time: below 1 when other work competes for the processors, and then no
speed-up can be expected). Nothing here asserts a timing.
"""

import argparse
import concurrent.futures as cf
import os
import time

import numpy as np

from sympy_loads import simulate_many
from sympy_loads.examples import four_bar

from _timing import best_of, timed


def max_difference(results, reference):
    worst = 0.0
    for a, b in zip(results, reference):
        assert a.success == b.success, (a.message, b.message)
        if a.success:
            worst = max(worst, float(np.max(np.abs(a.y - b.y))))
    return worst


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--cases', type=int, default=32)
    parser.add_argument('--duration', type=float, default=2.0)
    parser.add_argument('--workers', default='1,2',
                        help='comma-separated numbers of workers')
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--no-dask', action='store_true')
    parser.add_argument('--pairs', type=int, default=7,
                        help='alternated serial/pool runs per pool size')
    args = parser.parse_args(argv)
    workers = [int(w) for w in args.workers.split(',')]

    load_before = os.getloadavg()
    model = four_bar.build_model()
    q1 = model.q[0]
    k = model.symbols['k']
    n = args.cases
    cases = [{k: float(stiffness), q1: float(np.deg2rad(angle))}
             for stiffness, angle in zip(np.linspace(5.0, 80.0, n),
                                         np.linspace(5.0, 40.0, n))]
    study = (model.kane, (0.0, args.duration),
             four_bar.initial_conditions(model), four_bar.constants_of(model),
             cases)

    first, _ = timed(lambda: simulate_many(*study))
    cpu = os.times()
    serial, reference = best_of(lambda: simulate_many(*study), args.repeat)
    cpu_share = ((os.times().user - cpu.user + os.times().system - cpu.system)
                 / (os.times().elapsed - cpu.elapsed))
    failures = sum(not r.success for r in reference)
    rows = [('serial (derivation + codegen + run, first call)', first, None),
            ('serial', serial, 0.0)]

    paired = {}
    for count in workers:
        start = time.perf_counter()
        pool = cf.ProcessPoolExecutor(count)
        try:
            results = simulate_many(*study, executor=pool)
            cold = time.perf_counter() - start
            rows.append((f'ProcessPoolExecutor({count}), cold', cold,
                         max_difference(results, reference)))
            warm, results = best_of(
                lambda: simulate_many(*study, executor=pool), args.repeat)
            rows.append((f'ProcessPoolExecutor({count}), warm', warm,
                         max_difference(results, reference)))
            # serial and pool runs alternated: each ratio compares runs
            # that met the same load on the machine
            ratios = []
            for _ in range(args.pairs):
                one, _ = timed(lambda: simulate_many(*study))
                other, _ = timed(
                    lambda: simulate_many(*study, executor=pool))
                ratios.append(one / other)
            paired[count] = ratios
        finally:
            pool.shutdown()

    if not args.no_dask:
        try:
            import distributed
        except ImportError:
            print('Dask (distributed) is not installed: skipped.')
        else:
            count = max(workers)
            startup, cluster = timed(lambda: distributed.LocalCluster(
                n_workers=count, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=40))
            client = distributed.Client(cluster)
            try:
                # pure=False: Dask must not reuse an earlier identical task
                executor = client.get_executor(pure=False)
                cold, results = timed(
                    lambda: simulate_many(*study, executor=executor))
                rows.append((f'Dask LocalCluster({count}), first study',
                             cold, max_difference(results, reference)))
                warm, results = best_of(
                    lambda: simulate_many(*study, executor=executor),
                    args.repeat)
                rows.append((f'Dask LocalCluster({count}), warm', warm,
                             max_difference(results, reference)))
            finally:
                client.close()
                cluster.close()
            print(f'Dask LocalCluster({count}) start-up (not in the times '
                  f'below): {startup:.2f} s')

    print(f'{n} four-bar cases of {args.duration:g} s (DOP853, rtol 1e-8, '
          f'atol 1e-10), {failures} failed; {os.cpu_count()} processors')
    print(f'load average before: {load_before[0]:.2f}, after: '
          f'{os.getloadavg()[0]:.2f} (1-minute); the serial runs got '
          f'{cpu_share:.2f} of a processor')
    print(f'{"mode":<52} {"wall [s]":>9} {"per case":>10} {"speed-up":>9} '
          f'{"max |diff|":>11}')
    for name, seconds, difference in rows:
        speedup = serial / seconds
        diff = '' if difference is None else f'{difference:.1e}'
        print(f'{name:<52} {seconds:9.3f} {1e3*seconds/n:8.2f}ms '
              f'{speedup:8.2f}x {diff:>11}')
    for count, ratios in paired.items():
        print(f'ProcessPoolExecutor({count}) against serial, {len(ratios)} '
              f'alternated pairs: median speed-up {np.median(ratios):.2f}x '
              f'(range {min(ratios):.2f}-{max(ratios):.2f}x)')


if __name__ == '__main__':
    main()
