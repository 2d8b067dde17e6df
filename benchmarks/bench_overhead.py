"""Per-run overhead: a short run of Moore's four-bar through simulate() and
through a prepared Simulation.

Run: python benchmarks/bench_overhead.py [--duration 0.1] [--rounds 20]

Both integrate the same ``KanesMethod`` (``sympy_loads.examples.four_bar``,
with its energy as an output) from the same state with DOP853 at the
default tolerances, in this one process, after a first call that generated
the code and loaded the kernels:

(a) ``simulate(model, ...)``: every call checks the options, finds the
    model's generated code in its cache and runs;
(b) ``Simulation(model, outputs=...)`` made once, then ``.run(...)``: the
    checks of the model and options and the look-ups are done once.

The run itself is short (``--duration`` 0.1 s of motion, a few dozen
steps), so the difference is the work each call does besides integrating.
Each figure is the best of ``--rounds`` rounds of five calls, the rounds
alternating between (a) and (b). Nothing here asserts a timing.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from _timing import interleaved_best  # noqa: E402

from sympy_loads import simulate  # noqa: E402
from sympy_loads.examples import four_bar  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--duration', type=float, default=0.1)
    parser.add_argument('--rounds', type=int, default=20)
    args = parser.parse_args(argv)
    model = four_bar.build_model()
    outputs = {'energy': model.energy}
    arguments = ((0.0, args.duration), four_bar.initial_conditions(model),
                 four_bar.constants_of(model))
    simulate(model.kane, *arguments, outputs=outputs)       # code, kernels
    contenders = {
        'simulate()': (lambda: simulate(model.kane, *arguments,
                                        outputs=outputs), 5)}
    try:
        from sympy_loads import Simulation
    except ImportError:                  # an older sympy_loads: (a) only
        Simulation = None
    if Simulation is not None:
        prepared = Simulation(model.kane, outputs=outputs)
        contenders['Simulation.run()'] = (
            lambda: prepared.run(*arguments), 5)
    results = interleaved_best(contenders, args.rounds)
    print(f'four-bar, {args.duration} s of motion, DOP853, best of '
          f'{args.rounds} rounds')
    for name, (best, result) in results.items():
        integration = result.timings['integration'] * 1e3
        print(f'  {name:18s} {best * 1e3:8.3f} ms  ({result.nfev} '
              f'evaluations, integration {integration:.3f} ms)')
    if len(results) == 2:
        a, b = (results[name][0] for name in results)
        print(f'  simulate() / Simulation.run() = {a / b:.2f}')


if __name__ == '__main__':
    main()
