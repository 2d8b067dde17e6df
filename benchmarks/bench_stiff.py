"""Stiff closed loop: a damped four-bar with a very stiff spring.

Moore's four-bar (the ``four_bar`` example) with the spring-damper's
stiffness raised to ``k = 1e6`` N/m and its damping to ``c = 1e5`` N s/m,
integrated over 2 s with every integrator ``simulate()`` offers, side by
side in one process (``rtol = 1e-8``, ``atol = 1e-10``, compiled back end,
the model's code generated before the timings). The explicit DOP853 is the
baseline: stable only with steps below the spring's time constant, it needs
hundreds of thousands of evaluations where the implicit methods need a few
thousand. Every run is checked against DOP853's final state and for its
constraint residual.

Run: ``python benchmarks/bench_stiff.py [--repeat N]``
"""

import argparse
import time

import numpy as np

from sympy_loads import simulate
from sympy_loads.examples import four_bar

METHODS = ('DOP853', 'LSODA', 'odeint', 'Radau', 'BDF')


def run(model, method, duration=2.0, k=1e6, c=1e5):
    start = time.perf_counter()
    result = simulate(model.kane, (0.0, duration),
                      four_bar.initial_conditions(model),
                      four_bar.constants_of(model, k=k, c=c),
                      t_eval=[0.0, duration], method=method, rtol=1e-8,
                      atol=1e-10)
    seconds = time.perf_counter() - start
    assert result.success, result.message
    return seconds, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=1,
                        help='runs per method (the best is reported)')
    args = parser.parse_args(argv)
    model = four_bar.build_model()
    run(model, 'LSODA', duration=1e-3)        # code generation, kernels
    rows = {}
    for method in METHODS:
        best = min((run(model, method) for _ in range(args.repeat)),
                   key=lambda item: item[0])
        rows[method] = best
    reference = rows['DOP853'][1].q[-1]
    baseline = rows['DOP853'][0]
    print(f'{"method":8s} {"seconds":>9s} {"nfev":>8s} {"vs DOP853":>10s} '
          f'{"|q - q_DOP853|":>15s} {"residual":>9s}')
    for method, (seconds, result) in rows.items():
        error = float(np.max(np.abs(result.q[-1] - reference)))
        print(f'{method:8s} {seconds:9.3f} {result.nfev:8d} '
              f'{baseline / seconds:9.1f}x {error:15.2e} '
              f'{result.constraint_residual.max():9.1e}')


if __name__ == '__main__':
    main()
