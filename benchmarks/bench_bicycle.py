"""The Whipple bicycle: simulate() and HolonomicConstraintSolver timings.

Run: python benchmarks/bench_bicycle.py [--speed 5] [--batch 10000]
     [--repeat 200] [--backend auto|compiled|numpy]

The bicycle of ``benchmarks/models.py`` (built like SymPy's own bicycle test,
with the benchmark parameters of J. P. Meijaard, J. M. Papadopoulos, A. Ruina
and A. L. Schwab, "Linearized dynamics equations for the balance and steer
of a bicycle: a benchmark and review", 2007; its linearization is checked
against their eigenvalues first). Measures, in one process:

1. ``KanesMethod.kanes_equations`` (SymPy, for scale);
2. the first ``simulate()`` of 1 s right after it (goal <= 1.5 s) and a
   second 1 s run (best of 3; goal <= 0.015 s), both DOP853 at simulate()'s
   default tolerances, from upright straight running at ``--speed`` with a
   roll-rate kick; the final state is compared with a run of a plain
   SymPy/SciPy right-hand side (``models.bicycle_rhs``);
3. ``HolonomicConstraintSolver.from_kanes_method(kane, constants)`` on a
   second, fresh model plus its first ``solve_positions`` of the pitch
   (goal <= 0.3 s);
4. one pitch solve, best of ``--repeat`` taken in rounds alternating with
   ``scipy.optimize.fsolve`` on the lambdified constraint with its
   lambdified derivative, same tolerance 1e-12 (goal >= 20x);
5. a batch of ``--batch`` random configurations (yaw, roll, steer; pitch
   guess 0) in one call against an fsolve loop, per configuration
   (goal >= 100x).

Nothing here asserts a timing.
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np
import sympy as sm
from scipy.integrate import solve_ivp
from scipy.optimize import fsolve

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import models  # noqa: E402
from _timing import best_of, interleaved_best  # noqa: E402
from sympy_loads import HolonomicConstraintSolver, simulate  # noqa: E402

TOL = 1e-12


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--speed', type=float, default=5.0,
                        help='forward speed [m/s]')
    parser.add_argument('--duration', type=float, default=1.0)
    parser.add_argument('--batch', type=int, default=10_000)
    parser.add_argument('--repeat', type=int, default=200)
    parser.add_argument('--backend', default=None,
                        help="simulate(backend=...); default: simulate()'s "
                             "default")
    args = parser.parse_args(argv)
    options = {} if args.backend is None else {'backend': args.backend}
    span = (0.0, args.duration)

    model = models.whipple_bicycle(v=args.speed)
    t_kanes = model.timings['kanes_equations']
    kane, constants = model.kane, model.constants
    ic = model.initial_conditions

    start = time.perf_counter()
    res = simulate(kane, span, ic, constants, **options)
    t_first = time.perf_counter() - start
    first_timings = getattr(res, 'timings', None)
    t_second, res = best_of(
        lambda: simulate(kane, span, ic, constants, **options), 3)

    # Solver on a model the process has not solved before.
    fresh = models.whipple_bicycle(v=args.speed)
    q_names = [str(q.name) for q in fresh.kane.q]     # q1, q2, q5, q4
    guess = np.array([0.3, 0.2, 0.4, 0.0])
    start = time.perf_counter()
    solver = HolonomicConstraintSolver.from_kanes_method(fresh.kane,
                                                         fresh.constants)
    solved = solver.solve_positions(guess)
    t_solver_first = time.perf_counter() - start

    # fsolve on the lambdified constraint and its derivative.
    q = list(fresh.kane.q)
    symbols = sorted(fresh.constants, key=sm.default_sort_key)
    c = np.array([fresh.constants[k] for k in symbols])
    expr = fresh.configuration_constraints[0]
    phi = sm.lambdify([q, symbols], expr, cse=True)
    dphi = sm.lambdify([q, symbols], expr.diff(q[3]), cse=True)

    def fsolve_one(row):
        qv = np.array(row, dtype=float)

        def fun(x):
            qv[3] = x[0]
            return [phi(qv, c)]

        def fprime(x):
            qv[3] = x[0]
            return [[dphi(qv, c)]]

        with warnings.catch_warnings():   # "not making good progress"
            warnings.simplefilter('ignore', RuntimeWarning)   # at 1e-12
            qv[3] = fsolve(fun, row[3:4], fprime=fprime, xtol=TOL)[0]
        return qv

    # alternating rounds: a machine whose speed drifts slows both alike
    rounds = 10
    calls = max(args.repeat // rounds, 2)
    timings = interleaved_best({
        'ours': (lambda: solver.solve_positions(guess), calls),
        'fsolve': (lambda: fsolve_one(guess), calls)}, rounds)
    (t_one, solved), (t_fsolve, fsolved) = timings['ours'], timings['fsolve']
    agree_one = float(np.max(np.abs(fsolved - solved)))

    rng = np.random.default_rng(0)
    batch = np.column_stack([rng.uniform(-np.pi, np.pi, args.batch),
                             rng.uniform(-0.3, 0.3, args.batch),
                             rng.uniform(-0.6, 0.6, args.batch),
                             np.zeros(args.batch)])
    t_batch, solved_batch = best_of(lambda: solver.solve_positions(batch), 3)
    start = time.perf_counter()
    fsolved_batch = np.array([fsolve_one(row) for row in batch])
    t_loop = time.perf_counter() - start
    agree_batch = float(np.max(np.abs(fsolved_batch - solved_batch)))

    # Correctness of the simulation: the same run with a plain SymPy/SciPy
    # right-hand side (independent of sympy_loads).
    rhs, full_state = models.bicycle_rhs(model)
    iq = [list(kane.q).index(s) for s in (model.yaw, model.roll,
                                          model.steer)]
    x0 = np.concatenate([res.q[0][iq], res.u[0][:3]])
    ref = solve_ivp(lambda t, x: rhs(x), span, x0, method='DOP853',
                    rtol=1e-10, atol=1e-12)
    q_ref, u_ref = full_state(ref.y[:, -1])
    deviation = max(float(np.max(np.abs(res.q[-1] - q_ref))),
                    float(np.max(np.abs(res.u[-1] - u_ref))))
    eig = models.check_bicycle_eigenvalues(model)

    backend = getattr(res, 'backend', args.backend or 'default')
    print(f"Whipple bicycle (Meijaard et al. 2007 benchmark), v = "
          f"{args.speed:g} m/s, roll-rate kick "
          f"{ic[model.roll_rate_symbol]:g} rad/s, simulate(backend="
          f"{backend!r})")
    print(f"linearization vs Meijaard et al. Table 2 (5 m/s): largest "
          f"eigenvalue error {eig['max_error']:.1e}; weave real part at "
          f"4.2924 m/s {eig['weave_real']:.1e}, capsize eigenvalue at "
          f"6.0243 m/s {eig['capsize']:.1e}")
    print(f"{'step':58}{'time':>12}   goal")
    print(f"{'kanes_equations (SymPy)':58}{t_kanes:>10.3f} s")
    print(f"{'first simulate(), ' + f'{args.duration:g} s':58}"
          f"{t_first:>10.3f} s   <= 1.5 s")
    print(f"{'second simulate() (best of 3)':58}"
          f"{t_second*1e3:>9.2f} ms   <= 15 ms")
    print(f"{'from_kanes_method + first solve_positions (fresh model)':58}"
          f"{t_solver_first:>10.3f} s   <= 0.3 s")
    print(f"{'one pitch solve, ours (best of ' + str(args.repeat) + ')':58}"
          f"{t_one*1e6:>9.1f} us")
    print(f"{'one pitch solve, fsolve (lambdified, fprime)':58}"
          f"{t_fsolve*1e6:>9.1f} us   ratio {t_fsolve/t_one:.1f}x "
          f"(goal >= 20x)")
    per_ours, per_loop = t_batch/args.batch, t_loop/args.batch
    print(f"{f'batch of {args.batch} configurations, ours (per config)':58}"
          f"{per_ours*1e6:>9.2f} us   (whole batch {t_batch*1e3:.1f} ms)")
    print(f"{'fsolve loop (per configuration)':58}{per_loop*1e6:>9.2f} us"
          f"   ratio {per_loop/per_ours:.1f}x (goal >= 100x)")
    print(f"ours vs fsolve: one solve {agree_one:.1e}, batch "
          f"{agree_batch:.1e} (largest difference, rad)")
    print(f"simulate() vs a plain SymPy/SciPy run (DOP853 rtol 1e-10): "
          f"largest difference of the final q, u {deviation:.1e}; "
          f"max constraint residual "
          f"{float(np.max(res.constraint_residual)):.1e}; RHS evaluations "
          f"{res.nfev}; coordinates {q_names}")
    for label, timings in (('first', first_timings),
                           ('second', getattr(res, 'timings', None))):
        if timings:
            print(f'simulate(), where the {label} call went [s]: '
                  + ', '.join(f'{k} {v:.4f}' for k, v in timings.items()))
    return dict(kanes=t_kanes, first=t_first, second=t_second,
                solver_first=t_solver_first, one=(t_one, t_fsolve),
                batch=(per_ours, per_loop))


if __name__ == '__main__':
    main()
