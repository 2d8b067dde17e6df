"""Large models without the symbolic wait (issue 38): an unformed System.

Run: python benchmarks/bench_large_models.py [--n 10 20 40]
     [--formed-max-pin 8] [--formed-max-absolute 20] [--span 2.0]

For each n, in one process, two chains of n uniform links (total length
1 m, mass 1 kg, gravity; ``benchmarks/models.py``): ``pin_chain_system``
(PinJoints, relative angles, as SymPy's joints tutorial writes it) and
``absolute_chain_system`` (absolute angles). Printed per model:

- ``first result``: building the System, ``Simulation(system)`` on the
  unformed System (assembled equations, ``sympy_loads._assembly``) and a
  0.1 s run; with its ``derivation`` and ``codegen`` parts;
- ``form_eoms``: SymPy's symbolic derivation alone, for n up to
  ``--formed-max-*`` (a PinJoint chain's doubles with each link);
- ``warm``: a ``--span`` s run of the prepared Simulation (DOP853 at the
  default tolerances) and, where formed, the same run on the formed
  equations, with the cost of one evaluation (warm time / nfev).

Nothing here asserts a timing. The A02 N-four-bar of the issue is not in
``benchmarks/models.py`` yet and is not measured.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import models  # noqa: E402
from sympy_loads import Simulation  # noqa: E402


def first_result(builder, n):
    start = time.perf_counter()
    model = builder(n)
    sim = Simulation(model.system)
    result = sim.run((0.0, 0.1), model.initial_conditions, model.constants)
    total = time.perf_counter() - start
    return model, sim, total, result.timings


def warm(sim, model, span):
    sim.run((0.0, span), model.initial_conditions, model.constants)
    start = time.perf_counter()
    result = sim.run((0.0, span), model.initial_conditions, model.constants)
    seconds = time.perf_counter() - start
    return seconds, seconds / max(result.nfev, 1)


def row(name, builder, n, formed_max, span):
    model, sim, first, seconds = first_result(builder, n)
    warm_s, per_eval = warm(sim, model, span)
    line = (f'{name:9s} {n:4d} {first:8.2f} {seconds["derivation"]:8.2f} '
            f'{seconds["codegen"]:8.2f} {warm_s:8.3f} {per_eval * 1e6:8.1f}')
    if n <= formed_max:
        fresh = builder(n)
        start = time.perf_counter()
        fresh.system.form_eoms()
        form = time.perf_counter() - start
        formed = Simulation(fresh.system)
        f_warm, f_eval = warm(formed, fresh, span)
        line += f' {form:9.2f} {f_warm:8.3f} {f_eval * 1e6:8.1f}'
    else:
        line += f' {"-":>9s} {"-":>8s} {"-":>8s}'
    print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, nargs='+', default=[10, 20, 40])
    parser.add_argument('--formed-max-pin', type=int, default=8)
    parser.add_argument('--formed-max-absolute', type=int, default=20)
    parser.add_argument('--span', type=float, default=2.0)
    args = parser.parse_args()
    print('model        n    first    deriv  codegen     warm  us/eval'
          '  form_eoms  f.warm  f.us/ev')
    for n in args.n:
        row('pin', models.pin_chain_system, n, args.formed_max_pin,
            args.span)
        row('absolute', models.absolute_chain_system, n,
            args.formed_max_absolute, args.span)


if __name__ == '__main__':
    main()
