"""Andrews' squeezing mechanism: simulate() against the textbook approach.

Run: python benchmarks/bench_andrews.py [--repeat 3]
     [--backend auto|compiled|numpy]

The seven-body mechanism of E. Hairer and G. Wanner, *Solving Ordinary
Differential Equations II*, sec. VII.7, with the data and the reference
solution of F. Mazzia and C. Magherini, *Test Set for Initial Value Problem
Solvers*, problem "Andrews' squeezing mechanism", built as an ordinary
``KanesMethod`` (``benchmarks/models.py``: six holonomic constraints, one
degree of freedom), integrated over 0 <= t <= 0.03 s with DOP853 at
rtol = atol = 1e-10 by

- ours: ``sympy_loads.simulate(kane, (0, 0.03), ic, constants, rtol=1e-10,
  atol=1e-10)`` (default back end unless ``--backend``; on the compiled
  back end its DOP853 steps in compiled code, taking ``solve_ivp``'s
  steps);
- the textbook approach (``models.andrews_textbook``): ``lambdify`` (cse) of
  the constraints, their Jacobian, the velocity constraints and the
  KanesMethod's mass matrix and forcing, ``solve_ivp`` (DOP853, its Python
  port) with ``fsolve`` on the dependent coordinates inside the right-hand
  side. Its time is almost all ``fsolve`` (over 0.2 ms per evaluation),
  so a compiled stepping loop would not change it.

Both get a ``KanesMethod`` this process has not integrated before (built
before the clocks start). Cold = ours' first ``simulate()`` call on a new
model (all its derivation, code generation and set-up) against the
textbook's lambdify + first run. It is measured twice: on the process's
first model, which also pays the once-per-process costs (importing numba
and loading the generic kernels from numba's disk cache), and on a second,
new model (the process has simulated before; nothing of this model is
cached anywhere). Warm = the best of ``--repeat`` later ``simulate()`` calls
against the best textbook run. Also prints the error of the final positions against the
published reference (must be <= 1e-6) and checks the model's mass matrix,
forcing and constraints against the published ones. Goals: cold >= 3x,
warm >= 20x. Nothing here asserts a timing.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import models  # noqa: E402
from sympy_loads import simulate  # noqa: E402

T_FINAL, RTOL, ATOL = 0.03, 1e-10, 1e-10


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=3,
                        help='warm runs of each (best time is shown)')
    parser.add_argument('--backend', default=None,
                        help="simulate(backend=...); default: simulate()'s "
                             "default")
    args = parser.parse_args(argv)
    options = {} if args.backend is None else {'backend': args.backend}

    # Fresh models (each KanesMethod is built before any clock starts).
    first_model = models.andrews_squeezer()
    ours_model = models.andrews_squeezer()
    book_model = models.andrews_squeezer()
    kane, ic, constants = (ours_model.kane, ours_model.initial_conditions,
                           ours_model.constants)
    reference = ours_model.reference

    def ours(kane=kane):
        start = time.perf_counter()
        res = simulate(kane, (0.0, T_FINAL), ic, constants, rtol=RTOL,
                       atol=ATOL, **options)
        return time.perf_counter() - start, res

    process_first, first_res = ours(first_model.kane)
    if not first_res.success:
        raise SystemExit(f'the first model failed: {first_res.message}')
    cold_ours, res = ours()
    first_timings = getattr(res, 'timings', None)
    warm_ours, res = min((ours() for _ in range(args.repeat)),
                         key=lambda pair: pair[0])

    setup_book, run_book = models.andrews_textbook_setup(book_model)
    first_book, q_book, info = run_book(T_FINAL, RTOL, ATOL)
    cold_book = setup_book + first_book
    warm_book, q_book, info = min(
        (run_book(T_FINAL, RTOL, ATOL) for _ in range(args.repeat)),
        key=lambda triple: triple[0])

    q_ours = res.q[-1]
    err_ours = float(np.max(np.abs(q_ours - reference)))
    err_book = float(np.max(np.abs(q_book - reference)))
    err_u_ours = float(np.max(np.abs(res.u[-1] - ours_model.reference_speeds)
                              / np.abs(ours_model.reference_speeds)))
    checked = models.check_andrews_against_published()

    backend = getattr(res, 'backend', args.backend or 'default')
    print(f"Andrews' squeezing mechanism (7 bodies, 6 holonomic constraints),"
          f" t = 0..{T_FINAL:g} s, DOP853 rtol={RTOL:g} atol={ATOL:g}")
    print(f"model checked against the published M, f, g, G (largest "
          f"relative difference {max(checked.values()):.1e})")
    print(f"ours: simulate(backend={backend!r}) (DOP853 stepping in compiled code); "
          f"textbook: lambdify(cse) + solve_ivp with fsolve in the RHS")
    print(f"{'':34}{'ours':>12}{'textbook':>12}{'ratio':>9}   goal")
    print(f"{'cold, new model [s]':34}{cold_ours:>12.4f}"
          f"{cold_book:>12.4f}{cold_book/cold_ours:>8.1f}x   >= 3x")
    print(f"{'  (first model of the process) [s]':34}{process_first:>12.4f}"
          f"{cold_book:>12.4f}{cold_book/process_first:>8.1f}x")
    print(f"{'  (textbook lambdify alone [s])':34}{'':>12}"
          f"{setup_book:>12.4f}")
    print(f"{'warm: run [s]':34}{warm_ours:>12.4f}{warm_book:>12.4f}"
          f"{warm_book/warm_ours:>8.1f}x   >= 20x")
    print(f"{'RHS evaluations':34}{res.nfev:>12d}{info['nfev']:>12d}")
    print(f"{'max |q(0.03) - reference| [rad]':34}{err_ours:>12.1e}"
          f"{err_book:>12.1e}{'':>9}   <= 1e-6")
    print(f"{'max constraint residual':34}"
          f"{float(np.max(res.constraint_residual)):>12.1e}"
          f"{info['residual']:>12.1e}")
    print(f"ours: largest relative error of the speeds at 0.03 s against the "
          f"published ones: {err_u_ours:.1e}; success={res.success}")
    for label, timings in (('first (new model)', first_timings),
                           ('warm', getattr(res, 'timings', None))):
        if timings:
            print(f'ours, where the {label} call went [s]: '
                  + ', '.join(f'{k} {v:.4f}' for k, v in timings.items()))
    print(f"speed-ups: cold {cold_book/cold_ours:.1f}x (goal >= 3x; "
          f"{cold_book/process_first:.1f}x on the process's first model), "
          f"warm "
          f"{warm_book/warm_ours:.1f}x (goal >= 20x); accuracy "
          f"{'OK' if err_ours <= 1e-6 else 'NOT MET'} "
          f"({err_ours:.1e} <= 1e-6)")
    return dict(cold=(cold_ours, cold_book), first=process_first,
                warm=(warm_ours, warm_book),
                error=(err_ours, err_book))


if __name__ == '__main__':
    main()
