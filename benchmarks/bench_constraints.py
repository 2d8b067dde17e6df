"""Position solves: HolonomicConstraintSolver against scipy.optimize.fsolve.

Run: python benchmarks/bench_constraints.py [--batch 10000] [--repeat 200]

For Moore's four-bar and a slider-crank, times (1) one position solve from a
perturbed guess and (2) a batch of perturbed configurations, with both back
ends of the solver: ``'compiled'`` (the default ``backend='auto'``:
SymEngine LLVM constraint functions and numba kernels loaded from numba's
disk cache) and ``'numpy'`` (lambdified functions, vectorized NumPy
solves). The baseline is ``fsolve`` on the lambdified (``cse=True``)
constraints with their lambdified Jacobian as ``fprime`` (the textbook /
PyDy-example approach) at the same tolerance, ``xtol = 1e-12``; for the
batch, an fsolve loop (timed on up to 500 rows and scaled). Times are the
best of ``--repeat`` solves (single; a tenth of them for the slower NumPy
back end) and of 9 runs (batch, fsolve loop), taken in rounds that
alternate between ours and fsolve, so that a machine whose speed drifts
slows both alike (``_timing.interleaved_best``). The solver's
build time and its first solve (loading the kernels from numba's cache, or
compiling them on an installation's first use; see bench_first_use.py) are
printed separately and are not in the per-solve times. Every solution is
checked against fsolve's.

Goals (default back end): one solve >= 20x faster than fsolve, a batch
>= 100x faster per configuration than the fsolve loop.
"""

import argparse
import time

import numpy as np
import sympy as sm
from scipy.optimize import fsolve

from sympy_loads import HolonomicConstraintSolver

from _timing import interleaved_best

TOL = 1e-12
GOAL_SINGLE, GOAL_BATCH = 20.0, 100.0


def four_bar():
    q1, q2, q3 = sm.symbols('q1:4')
    la, lb, lc, ln = 1.0, 4.0, 3.0, 5.0
    loop = [la*sm.cos(q1) + lb*sm.cos(q1 + q2) + lc*sm.cos(q1 + q2 + q3)
            - ln,
            la*sm.sin(q1) + lb*sm.sin(q1 + q2) + lc*sm.sin(q1 + q2 + q3)]
    guess = np.deg2rad([30.0, -75.0, 100.0])
    return 'four-bar', loop, [q1, q2, q3], [q2, q3], guess, 0.3


def slider_crank():
    theta, phi, x = sm.symbols('theta phi x')
    r, l = 1.0, 3.0
    loop = [r*sm.cos(theta) + l*sm.cos(phi) - x,
            r*sm.sin(theta) - l*sm.sin(phi)]
    guess = np.array([0.7, 0.2, 3.5])
    return 'slider-crank', loop, [theta, phi, x], [phi, x], guess, 0.2


def verdict(ratio, goal):
    return 'met' if ratio >= goal else 'NOT met'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--batch', type=int, default=10_000)
    parser.add_argument('--repeat', type=int, default=200)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    summary = []
    for name, loop, coords, dep, guess, spread in (four_bar(),
                                                   slider_crank()):
        dep_index = [coords.index(c) for c in dep]
        ind_index = [i for i in range(len(coords)) if i not in dep_index]
        solvers, build, first = {}, {}, {}
        for backend in ('auto', 'numpy'):
            start = time.perf_counter()
            solver = HolonomicConstraintSolver(loop, coords, dep,
                                               tolerance=TOL,
                                               backend=backend)
            build[backend] = time.perf_counter() - start
            start = time.perf_counter()
            solver.solve_positions(guess)
            first[backend] = time.perf_counter() - start
            solvers[backend] = solver
        default = solvers['auto'].backend   # 'compiled' unless unavailable

        # The fsolve baseline: lambdified residual and Jacobian.
        qi = sm.Matrix([coords[i] for i in ind_index])
        qd = sm.Matrix(dep)
        f = sm.lambdify((qd, qi), sm.Matrix(loop), cse=True)
        jac = sm.lambdify((qd, qi), sm.Matrix(loop).jacobian(qd), cse=True)

        def fsolve_one(q):
            known = q[ind_index]
            sol = fsolve(lambda x: f(x, known).ravel(), q[dep_index],
                         fprime=lambda x: jac(x, known), xtol=TOL)
            out = q.copy()
            out[dep_index] = sol
            return out

        reference = fsolve_one(guess)
        rounds = 20
        contenders = {
            backend: (lambda solver=solver: solver.solve_positions(guess),
                      max(args.repeat // rounds // (
                          1 if backend == 'auto' else 10), 2))
            for backend, solver in solvers.items()}
        contenders['fsolve'] = (lambda: fsolve_one(guess),
                                max(args.repeat // rounds, 2))
        timings = interleaved_best(contenders, rounds)
        single = {}
        for backend in solvers:
            single[backend], solved = timings[backend]
            assert np.allclose(solved, reference, atol=1e-9), backend
        t_fsolve = timings['fsolve'][0]

        batch = np.tile(reference, (args.batch, 1))
        batch[:, ind_index] += rng.uniform(-spread, spread,
                                           (args.batch, len(ind_index)))
        batch[:, dep_index] += rng.uniform(-spread, spread,
                                           (args.batch, len(dep_index)))
        loop_rows = min(args.batch, 500)
        many, first_batch, agree = {}, {}, {}
        for backend, solver in solvers.items():
            start = time.perf_counter()
            solver.solve_positions(batch[:2])
            first_batch[backend] = time.perf_counter() - start
        contenders = {
            backend: (lambda solver=solver: solver.solve_positions(batch), 1)
            for backend, solver in solvers.items()}
        contenders['fsolve'] = (lambda: np.array(
            [fsolve_one(row) for row in batch[:loop_rows]]), 1)
        timings = interleaved_best(contenders, 9)
        t_loop, fsolved = timings['fsolve']
        t_loop *= args.batch / loop_rows
        for backend, solver in solvers.items():
            many[backend], solved = timings[backend]
            assert np.abs(solver.residual(solved)).max() <= TOL, backend
            close = np.abs(fsolved - solved[:loop_rows]).max(axis=1) < 1e-8
            agree[backend] = close.mean()

        label = {'auto': f'{default} (default)', 'numpy': 'numpy'}
        print(f'{name}: {len(loop)} constraints, {len(dep)} dependent '
              f'coordinates, tolerance {TOL:g}')
        for backend in solvers:
            print(f'  {label[backend]:<20} build {build[backend]:.3f} s, '
                  f'first solve {first[backend]:.3f} s, first batch call '
                  f'{first_batch[backend]:.3f} s (not in the times below)')
        print(f"  {'':<20}{'one solve':>12}{'vs fsolve':>11}"
              f"{'batch of ' + str(args.batch):>18}{'per config':>13}"
              f"{'vs fsolve':>11}{'same as fsolve':>16}")
        for backend in solvers:
            print(f'  {label[backend]:<20}'
                  f'{single[backend]*1e6:>9.1f} us'
                  f'{t_fsolve/single[backend]:>10.1f}x'
                  f'{many[backend]*1e3:>15.1f} ms'
                  f'{many[backend]/args.batch*1e6:>10.2f} us'
                  f'{t_loop/many[backend]:>10.1f}x'
                  f'{agree[backend]:>15.1%}')
        print(f"  {'fsolve':<20}{t_fsolve*1e6:>9.1f} us{'':>11}"
              f'{t_loop*1e3:>15.1f} ms{t_loop/args.batch*1e6:>10.2f} us'
              f'   (loop timed on {loop_rows} rows)')
        ratios = (t_fsolve / single['auto'], t_loop / many['auto'])
        summary.append((name, default) + ratios)
        print(f'  goals ({default}): one solve >= {GOAL_SINGLE:g}x: '
              f'{ratios[0]:.1f}x {verdict(ratios[0], GOAL_SINGLE)}; batch '
              f'>= {GOAL_BATCH:g}x per configuration: {ratios[1]:.1f}x '
              f'{verdict(ratios[1], GOAL_BATCH)}')
    return summary


if __name__ == '__main__':
    main()
