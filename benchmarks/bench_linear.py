"""Linearizing the Whipple bicycle: sympy_loads.linearize against SymPy's
KanesMethod.linearize.

Run: python benchmarks/bench_linear.py [--speeds 1000] [--sympy-timeout 600]
     [--backend auto|compiled|numpy]

The bicycle of ``sympy_loads.examples._whipple`` (built like SymPy's own
bicycle test: one holonomic and three nonholonomic constraints; the
benchmark parameters of J. P. Meijaard, J. M. Papadopoulos, A. Ruina and
A. L. Schwab, "Linearized dynamics equations for the balance and steer of a
bicycle: a benchmark and review", Proc. R. Soc. A 463, 2007). Measures:

1. ``KanesMethod.kanes_equations`` (SymPy, for scale; paid by both);
2. the first ``linearize()`` at 5 m/s, set-up included (the model's
   preparation and code generation, the Jacobians' derivation and code
   generation; goal <= 3 s), and its eigenvalues against Meijaard's
   Table 2;
3. each further operating point: the eigenvalues-against-speed sweep of
   ``--speeds`` speeds from 0 to 10 m/s on the prepared model (goal <= 10
   ms per point);
4. the baseline: SymPy's ``KanesMethod.linearize(A_and_B=True,
   new_method=True)`` at one operating point (5 m/s, numbers substituted
   in ``op_point``), in a child process stopped after ``--sympy-timeout``
   seconds; its ``A`` is compared with ours when it finishes.

Nothing here asserts a timing.
"""

import argparse
import multiprocessing
import os
import sys
import time

import numpy as np

from sympy_loads import Simulation
from sympy_loads.examples._whipple import (MEIJAARD_EIGENVALUES_5MS,
                                           bicycle_initial_conditions,
                                           whipple_bicycle)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import timed  # noqa: E402


def _sympy_linearize(v, queue):
    """Child process: SymPy's linearization of the bicycle at ``v``."""
    import sympy as sm
    model = whipple_bicycle()
    kane = model.kane
    point = bicycle_initial_conditions(model, v)
    # the consistent dependent values (from our own solve, so that SymPy
    # gets the same operating point)
    lin = Simulation(kane).linearize(point, model.constants)
    op = lin.operating_point
    udot = {s.diff(): 0.0 for s in kane.u}          # steady straight running
    start = time.perf_counter()
    A, _, _ = kane.linearize(A_and_B=True, new_method=True,
                             op_point=[op, udot, model.constants])
    seconds = time.perf_counter() - start
    A = np.array(sm.Matrix(A).xreplace(model.constants).evalf(), dtype=float)
    queue.put((seconds, A, [str(s) for s in kane.q] + [str(s) for s in
                                                       kane.u]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--speeds', type=int, default=1000)
    parser.add_argument('--sympy-timeout', type=float, default=600.0,
                        help='seconds; 0 skips the SymPy baseline')
    parser.add_argument('--backend', default='auto')
    args = parser.parse_args(argv)

    seconds, model = timed(whipple_bicycle)
    print(f'kanes_equations (SymPy, both pay it): {seconds:.2f} s')
    kane = model.kane

    def first():
        simulation = Simulation(kane, backend=args.backend)
        lin = simulation.linearize(bicycle_initial_conditions(model, 5.0),
                                   model.constants)
        return simulation, lin
    first_seconds, (simulation, lin) = timed(first)
    values = lin.eigenvalues()
    nonzero = values[np.argsort(np.abs(values))[2:]]
    nonzero = nonzero[np.lexsort((nonzero.imag, nonzero.real))]
    want = MEIJAARD_EIGENVALUES_5MS[np.lexsort(
        (MEIJAARD_EIGENVALUES_5MS.imag, MEIJAARD_EIGENVALUES_5MS.real))]
    print(f'first linearize() at 5 m/s, set-up included: '
          f'{first_seconds:.2f} s (goal <= 3 s); backend {simulation.backend}')
    print(f'  eigenvalues vs Meijaard et al. (2007) Table 2: largest '
          f'difference {np.max(np.abs(nonzero - want)):.1e}')

    speeds = np.linspace(0.0, 10.0, args.speeds)
    start = time.perf_counter()
    for v in speeds:
        simulation.linearize(bicycle_initial_conditions(model, v),
                             model.constants)
    per_point = (time.perf_counter() - start) / len(speeds)
    print(f'each further operating point ({len(speeds)} speeds 0..10 m/s): '
          f'{per_point * 1e3:.3f} ms (goal <= 10 ms); the whole sweep '
          f'{per_point * len(speeds):.2f} s')

    if args.sympy_timeout <= 0:
        return
    context = multiprocessing.get_context('spawn')
    queue = context.Queue()
    child = context.Process(target=_sympy_linearize, args=(5.0, queue))
    child.start()
    try:
        sympy_seconds, A, _ = queue.get(timeout=args.sympy_timeout + 60)
    except Exception:
        sympy_seconds, A = None, None
    finally:
        if child.is_alive():
            child.terminate()
        child.join()
    if sympy_seconds is None:
        print(f'KanesMethod.linearize (one operating point): did not finish '
              f'within {args.sympy_timeout:.0f} s; ratio to our first '
              f'linearization > {args.sympy_timeout / first_seconds:.0f}x, '
              f'to a further point > '
              f'{args.sympy_timeout / per_point:.0f}x')
        return
    print(f'KanesMethod.linearize (one operating point, 5 m/s): '
          f'{sympy_seconds:.1f} s; ratio to our first linearization '
          f'{sympy_seconds / first_seconds:.0f}x, to a further point '
          f'{sympy_seconds / per_point:.0f}x')
    # SymPy's A is in all q and u (dependent ones included, with the
    # constraints' null space already applied); compare eigenvalues
    bad = int(np.sum(~np.isfinite(A)))
    if bad:
        print(f'  its A has {bad} entries that are not finite (0/0 where the '
              f'operating point is substituted into the symbolic result)')
        return
    eig = np.linalg.eigvals(A)
    eig = eig[np.abs(eig) > 1e-6]
    eig = eig[np.lexsort((eig.imag, eig.real))]
    if len(eig) == len(want):
        print(f'  its eigenvalues vs Table 2: largest difference '
              f'{np.max(np.abs(eig - want)):.1e}')
    else:
        print(f'  its non-zero eigenvalues: {np.round(eig, 8)}')


if __name__ == '__main__':
    main()
