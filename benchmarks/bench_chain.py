"""Scaling with model size: an n-link planar chain with its tip on a line.

Run: python benchmarks/bench_chain.py [--n 2 4 8 16 24 32]
     [--backend auto|compiled|numpy] [--markdown]

The chain of ``benchmarks/models.py`` (``planar_chain(n)``: n uniform links,
total length 1 m and mass 1 kg, gravity, the tip held on a horizontal line,
one holonomic constraint, the last angle and rate dependent; it starts
straight at 0.6 rad from the vertical, at rest). For each n, in one process:

- ``kanes_equations``: SymPy's derivation time;
- ``first call``: the first ``simulate()`` of the model (code generation,
  set-up and a run over ``--first-span`` seconds);
- ``warm``: the best of ``--repeat`` later runs over ``--span`` seconds,
  and the cost of one right-hand-side evaluation estimated as warm time /
  ``result.nfev`` (it includes the integrator's own overhead per step);
- ``ops``: ``sympy.count_ops`` of ``kane.mass_matrix`` plus
  ``kane.forcing`` (after common-subexpression elimination with ``--cse``);
- ``min |sin qn|``: how far the run stayed from the configurations where
  the last link is vertical and the partition is singular.

DOP853 at simulate()'s default tolerances. Nothing here asserts a timing.
The default sizes take about two minutes, most of it in SymPy's
``kanes_equations`` for n = 24 and 32.
"""

import argparse
import os
import sys
import time

import numpy as np
import sympy as sm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import models  # noqa: E402
from sympy_loads import simulate  # noqa: E402


def count_operations(kane, use_cse):
    exprs = list(kane.mass_matrix) + list(kane.forcing)
    if use_cse:
        replacements, reduced = sm.cse(exprs)
        return (sum(sm.count_ops(e) for _, e in replacements)
                + sum(sm.count_ops(e) for e in reduced))
    return sum(sm.count_ops(e) for e in exprs)


def measure(n, args, options):
    model = models.planar_chain(n)
    kane, ic, constants = model.kane, model.initial_conditions, model.constants
    start = time.perf_counter()
    res = simulate(kane, (0.0, args.first_span), ic, constants, **options)
    first = time.perf_counter() - start
    warm, res = np.inf, None
    for _ in range(args.repeat):
        start = time.perf_counter()
        run = simulate(kane, (0.0, args.span), ic, constants, **options)
        seconds = time.perf_counter() - start
        if seconds < warm:
            warm, res = seconds, run
    ops = count_operations(kane, args.cse) if not args.no_ops else None
    return dict(n=n, kanes=model.timings['kanes_equations'], first=first,
                warm=warm, nfev=res.nfev, per_rhs=warm/res.nfev, ops=ops,
                min_sin=float(np.min(np.abs(np.sin(res.q[:, -1])))),
                residual=float(np.max(res.constraint_residual)),
                success=res.success,
                backend=getattr(res, 'backend', args.backend or 'default'))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, nargs='+',
                        default=[2, 4, 8, 16, 24, 32])
    parser.add_argument('--first-span', type=float, default=0.05,
                        help='duration of the first simulate() call [s]')
    parser.add_argument('--span', type=float, default=0.2,
                        help='duration of the warm runs [s] (the chain '
                             'reaches a singular configuration after '
                             '~0.27 s for n = 32)')
    parser.add_argument('--repeat', type=int, default=2)
    parser.add_argument('--backend', default=None,
                        help="simulate(backend=...); default: simulate()'s "
                             "default")
    parser.add_argument('--cse', action='store_true',
                        help='count operations after cse')
    parser.add_argument('--no-ops', action='store_true',
                        help='skip the operation count')
    parser.add_argument('--markdown', action='store_true',
                        help='print the table as markdown')
    args = parser.parse_args(argv)
    options = {} if args.backend is None else {'backend': args.backend}

    rows = []
    for n in args.n:
        row = measure(n, args, options)
        rows.append(row)
        if not args.markdown:
            print(f'n = {n} done ({row["kanes"] + row["first"]:.1f} s)',
                  file=sys.stderr, flush=True)

    ops_label = 'ops (cse)' if args.cse else 'ops'
    header = ['n', 'kanes_equations [s]', 'first call [s]', 'warm run [s]',
              'RHS evals', 'per RHS [us]', ops_label, 'min abs(sin qn)',
              'max residual']
    table = [[str(r['n']), f"{r['kanes']:.2f}", f"{r['first']:.3f}",
              f"{r['warm']:.4f}", str(r['nfev']), f"{r['per_rhs']*1e6:.1f}",
              '-' if r['ops'] is None else str(r['ops']),
              f"{r['min_sin']:.2f}", f"{r['residual']:.0e}"]
             for r in rows]
    backend = rows[0]['backend'] if rows else args.backend
    title = (f"Planar chain with its tip on a line, simulate(backend="
             f"{backend!r}), first call {args.first_span:g} s, warm runs "
             f"{args.span:g} s (best of {args.repeat}), DOP853 defaults")
    if args.markdown:
        print(f'**{title}**\n')
        print('| ' + ' | '.join(header) + ' |')
        print('|' + '|'.join('---:' for _ in header) + '|')
        for line in table:
            print('| ' + ' | '.join(line) + ' |')
    else:
        print(title)
        widths = [max(len(h), *(len(line[i]) for line in table)) + 2
                  for i, h in enumerate(header)]
        print(''.join(h.rjust(w) for h, w in zip(header, widths)))
        for line in table:
            print(''.join(v.rjust(w) for v, w in zip(line, widths)))
    failed = [r['n'] for r in rows if not r['success']]
    if failed:
        print(f'runs that did not reach the end: n = {failed}')
    return rows


if __name__ == '__main__':
    main()
