"""The one-off cost of an installation's first use of the compiled back end.

Run: python benchmarks/bench_first_use.py [--keep]
     python benchmarks/bench_first_use.py --examples [--before COMMIT]

``--examples``: the six examples (``python -m sympy_loads.examples.<name>
--no-plot``), one after another, each in a fresh Python process, all
with one numba cache directory that is empty at the start; then the same
six again with that (now warm) cache. What each example paid for
compiling is its first process's time minus its second's in
CPU time (user + system of the child process and its helpers, from
``getrusage``). The compilation's wall time is read from what the run
logs (the difference of two wall times is mostly noise on a loaded
machine; the wall time there also counts the waits for a core).
Printed per example and in total. ``--before COMMIT`` runs the same on a
temporary clone of this repository at ``COMMIT`` first (e.g. the commit
before the kernels were compiled at once), so that both are measured on
the same machine at the same time. ``--order`` changes the order of the
examples (the first one compiles, today every kernel).

The compiled back end's generic numba kernels are compiled the first time
an installation uses them and are then loaded from numba's disk cache
(checked by ``sympy_loads/_numeric/kernel_cache.py``, normally
``__pycache__`` beside ``sympy_loads/_numeric``).
To measure that first time without touching the installed cache, a child
Python process runs with ``NUMBA_CACHE_DIR`` set to a new, empty temporary
directory (numba then reads and writes its cache only there, so the child
really compiles). The child imports sympy_loads, builds Moore's four-bar
(``sympy_loads.examples.four_bar``), calls ``simulate()`` once (defaults,
10 s) and solves a ``HolonomicConstraintSolver`` once, on a batch of
1,000 configurations and for the velocities once. The same child then
runs again with the same, now warm, cache directory. Printed: the wall
time of each child process (interpreter start-up included), the child's
own break-down, and the difference, i.e. what the first use of an
installation pays once.
``result.timings['kernels']`` of the first ``simulate()`` covers only part
of that compilation: its initial constraint solve compiles the Newton
kernel inside ``'setup'``.

Goal: first use under a minute on a 2-core machine.
"""

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

CHILD = r'''
import json, time
start = time.perf_counter()
import numpy as np
import sympy as sm
from sympy_loads import HolonomicConstraintSolver, simulate
from sympy_loads.examples import four_bar
out = {'import': time.perf_counter() - start}

mark = time.perf_counter()
model = four_bar.build_model()
out['build model'] = time.perf_counter() - mark
mark = time.perf_counter()
result = simulate(model.kane, (0.0, 10.0), four_bar.initial_conditions(model),
                  four_bar.constants_of(model),
                  t_eval=np.linspace(0.0, 10.0, 201))
out['simulate()'] = time.perf_counter() - mark
out['simulate timings'] = result.timings
out['backend'] = result.backend
out['residual'] = float(result.constraint_residual.max())

q1, q2, q3 = sm.symbols('q1:4')
loop = [sm.cos(q1) + 4*sm.cos(q1 + q2) + 3*sm.cos(q1 + q2 + q3) - 5,
        sm.sin(q1) + 4*sm.sin(q1 + q2) + 3*sm.sin(q1 + q2 + q3)]
mark = time.perf_counter()
solver = HolonomicConstraintSolver(loop, [q1, q2, q3], [q2, q3])
out['solver build'] = time.perf_counter() - mark
guess = np.deg2rad([30.0, -75.0, 100.0])
mark = time.perf_counter()
q = solver.solve_positions(guess)
out['solver: one solve'] = time.perf_counter() - mark
batch = np.tile(q, (1000, 1))
batch += np.random.default_rng(0).uniform(-0.2, 0.2, batch.shape)
mark = time.perf_counter()
solved = solver.solve_positions(batch)
out['solver: batch of 1000'] = time.perf_counter() - mark
mark = time.perf_counter()
solver.solve_velocities(q, [1.0, 0.0, 0.0])
out['solver: velocities'] = time.perf_counter() - mark
out['solver backend'] = solver.backend
out['solver residual'] = float(np.abs(solver.residual(solved)).max())
out['total in child'] = time.perf_counter() - start
print('RESULT ' + json.dumps(out))
'''


def run_child(cache_dir):
    """Wall time, the child's report and its stderr."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, '-c', CHILD], env=env,
                          capture_output=True, text=True, timeout=900)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f'child failed (exit {done.returncode}):\n'
                           f'{done.stdout}\n{done.stderr}')
    line = [s for s in done.stdout.splitlines() if s.startswith('RESULT ')]
    return wall, json.loads(line[-1][len('RESULT '):]), done.stderr.strip()


def cache_files(directory):
    return sum(len(files) for _, _, files in os.walk(directory))


EXAMPLES = ('slider_crank', 'bicycle', 'four_bar', 'bicycle_stability',
            'bouncing_ball', 'car_replacement')


def run_example(root, name, cache_dir, workdir):
    """``(wall, cpu, stderr)`` of ``python -m sympy_loads.examples.<name>
    --no-plot`` with ``root`` first on the path and ``cache_dir`` as
    numba's cache; cpu is the child's user + system time."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=root,
               MPLBACKEND='Agg')
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, '-m',
                           f'sympy_loads.examples.{name}', '--no-plot'],
                          cwd=workdir, env=env, capture_output=True,
                          text=True, timeout=1800)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f'{name} failed (exit {done.returncode}):\n'
                           f'{done.stderr[-3000:]}')
    cpu = (after.ru_utime - before.ru_utime
           + after.ru_stime - before.ru_stime)
    return wall, cpu, done.stderr


def examples_from_empty_cache(root, order):
    """``{name: (cold wall, cold cpu, warm wall, warm cpu, stderr)}``."""
    cache_dir = tempfile.mkdtemp(prefix='sympy_loads_numba_cache_')
    workdir = tempfile.mkdtemp(prefix='sympy_loads_examples_')
    try:
        cold = {name: run_example(root, name, cache_dir, workdir)
                for name in order}
        warm = {name: run_example(root, name, cache_dir, workdir)
                for name in order}
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
        shutil.rmtree(workdir, ignore_errors=True)
    return {name: cold[name][:2] + warm[name][:2] + (cold[name][2],)
            for name in order}


def logged_compile(stderr):
    """The compilation's wall time as the child logged it: the line
    ``compiled the numeric kernels in X s`` (kernels compiled at once),
    else the line ``loading the compiled kernels ... took X s`` (before:
    kernels compiled as each run needed them; printed above 2 s), else
    0."""
    found = re.search(r'compiled the numeric kernels in ([0-9.]+) s',
                      stderr)
    if found is None:
        found = re.search(r'loading the compiled kernels .* took '
                          r'([0-9.]+) s', stderr)
    return float(found.group(1)) if found else 0.0


def print_examples(label, runs, order):
    print(f'{label}: the examples one after another from one empty numba '
          f'cache, fresh processes. compile cpu = first run - second run '
          f'(user + system, helper processes included); compile wall = '
          f'what the run logged')
    print(f"  {'example':<20}{'first wall':>11}{'first cpu':>10}"
          f"{'compile wall':>14}{'compile cpu':>13}")
    total_wall = total_cpu = 0.0
    later = 0.0
    for number, name in enumerate(order):
        cold_wall, cold_cpu, warm_wall, warm_cpu, stderr = runs[name]
        wall = logged_compile(stderr)
        total_wall += wall
        total_cpu += cold_cpu - warm_cpu
        if number:
            later = max(later, wall)
        print(f'  {name:<20}{cold_wall:>11.1f}{cold_cpu:>10.1f}'
              f'{wall:>14.1f}{cold_cpu - warm_cpu:>13.1f}')
    print(f"  {'total':<20}{'':>21}{total_wall:>14.1f}{total_cpu:>13.1f}")
    print(f'  largest compile wall time after the first example: '
          f'{later:.1f} s (goals: total <= 12 s, later <= 2 s on a quiet '
          f'2-core machine)')
    for name in order:
        lines = [line for line in runs[name][4].splitlines()
                 if line.startswith('sympy_loads:')]
        if lines:
            print(f'  stderr of {name} (first run):')
            for line in lines:
                print(f'    {line}')


def clone_at(commit):
    """A temporary clone of this repository at ``commit``; its path."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = tempfile.mkdtemp(prefix='sympy_loads_before_')
    subprocess.run(['git', 'clone', '--quiet', '--shared', '--no-checkout',
                    here, target], check=True)
    subprocess.run(['git', '-C', target, 'checkout', '--quiet', commit],
                   check=True)
    return target


def main_examples(args):
    order = tuple(args.order.split(',')) if args.order else EXAMPLES
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(f'{os.cpu_count()} CPUs, load average '
          f'{" ".join(f"{x:.1f}" for x in os.getloadavg())}, Python '
          f'{sys.version.split()[0]}')
    if args.before:
        clone = clone_at(args.before)
        try:
            runs = examples_from_empty_cache(clone, order)
        finally:
            shutil.rmtree(clone, ignore_errors=True)
        print_examples(f'before ({args.before})', runs, order)
    runs = examples_from_empty_cache(here, order)
    print_examples('this checkout', runs, order)
    print(f'load average at the end '
          f'{" ".join(f"{x:.1f}" for x in os.getloadavg())}')
    return runs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--keep', action='store_true',
                        help='keep the temporary numba cache directory')
    parser.add_argument('--examples', action='store_true',
                        help='time the six examples one after another '
                             'from one empty cache')
    parser.add_argument('--before', metavar='COMMIT',
                        help='with --examples: measure COMMIT first, on a '
                             'temporary clone')
    parser.add_argument('--order', help='with --examples: comma-separated '
                                        'example names')
    args = parser.parse_args(argv)
    if args.examples:
        return main_examples(args)
    cache_dir = tempfile.mkdtemp(prefix='sympy_loads_numba_cache_')
    try:
        runs = []
        for label in ('first use (empty cache)', 'second use (warm cache)'):
            wall, report, stderr = run_child(cache_dir)
            runs.append((label, wall, report, stderr, cache_files(cache_dir)))
    finally:
        if not args.keep:
            shutil.rmtree(cache_dir, ignore_errors=True)

    print(f'First use of the compiled back end: child Python processes with '
          f'NUMBA_CACHE_DIR={cache_dir}'
          + (' (kept)' if args.keep else ' (removed afterwards)'))
    print(f'{os.cpu_count()} CPUs, Python {sys.version.split()[0]}; goal: '
          f'first use under 60 s on a 2-core machine')
    steps = ['import', 'build model', 'simulate()', 'solver build',
             'solver: one solve', 'solver: batch of 1000',
             'solver: velocities', 'total in child']
    header = (f"{'':<28}"
              + ''.join(f'{label.split(" (")[0]:>14}' for label, *_ in runs)
              + f"{'difference':>14}")
    print(header)
    print('-' * len(header))
    first, second = runs[0][2], runs[1][2]
    rows = [('process wall time [s]', runs[0][1], runs[1][1])]
    rows += [(f'  {step} [s]', first[step], second[step]) for step in steps]
    for key in ('derivation', 'codegen', 'kernels', 'setup', 'integration'):
        rows.append((f'    simulate {key} [s]', first['simulate timings'][key],
                     second['simulate timings'][key]))
    for name, a, b in rows:
        print(f'{name:<28}{a:>14.2f}{b:>14.2f}{a - b:>14.2f}')
    print(f"{'files in the numba cache':<28}{runs[0][4]:>14d}"
          f"{runs[1][4]:>14d}")
    print(f"back ends: simulate {first['backend']!r}, solver "
          f"{first['solver backend']!r}; residuals: simulate "
          f"{first['residual']:.1e}, batch {first['solver residual']:.1e}")
    for label, _, _, stderr, _ in runs:
        if stderr:
            print(f'stderr of the {label} child:')
            print('  ' + stderr.replace('\n', '\n  '))
    one_off = runs[0][1] - runs[1][1]
    verdict = 'met' if runs[0][1] < 60 else 'NOT met'
    print(f'one-off cost of the first use: {one_off:.1f} s (first use '
          f'{runs[0][1]:.1f} s, goal < 60 s: {verdict}; later processes '
          f'{runs[1][1]:.1f} s)')
    return runs


if __name__ == '__main__':
    main()
