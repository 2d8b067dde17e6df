"""The cost of checking that a model's cached code is still its own.

Run: python benchmarks/bench_cache_check.py [--calls 30] [--rounds 5]

``simulate()``, ``linearize()`` and ``equilibrium()`` keep the generated
code of a model between calls; since a ``KanesMethod`` can be formed again
in place (``kanes_equations()`` called after a change of a load), every
call first compares a fingerprint of the model's formed equations with the
one the cached code was made from (``sympy_loads.simulation.
_kanes_fingerprint``). This prints, for a particle on a spring (one degree
of freedom) and for the Whipple bicycle (one holonomic and three
nonholonomic constraints):

- the fingerprint and its comparison alone (best of ``--rounds`` rounds of
  2,000 calls);
- a warm ``simulate()`` of 0.01 s, with the check and with the
  fingerprint replaced by a constant (best of ``--rounds`` rounds of
  ``--calls`` calls), and the check's share of the call.

Nothing here asserts a timing.
"""

import argparse
import sys
import timeit

import sympy.physics.mechanics as me

import sympy_loads  # noqa: F401  (loads sympy_loads.simulation)
from sympy_loads import simulate
from sympy_loads.examples._whipple import whipple_bicycle

# the module, not the function simulate() that sympy_loads exports as
# sympy_loads.simulation's name
simulation_module = sys.modules['sympy_loads.simulation']


def spring():
    x, v = me.dynamicsymbols('x v')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x)
    P.set_vel(N, v * N.x)
    kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v])
    kane.kanes_equations([me.Particle('p', P, 1)], [(P, -x * N.x)])
    return kane, {x: 1.0, v: 0.0}, {}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--calls', type=int, default=30)
    parser.add_argument('--rounds', type=int, default=5)
    args = parser.parse_args(argv)
    bike = whipple_bicycle()
    cases = {'spring (1 dof)': spring(),
             'Whipple bicycle': (bike.kane, bike.initial_conditions,
                                 bike.constants)}
    fingerprint_of = simulation_module._kanes_fingerprint
    for name, (kane, start, constants) in cases.items():
        def run():
            simulate(kane, (0, 0.01), start, constants)
        run()                          # derivation, code generation, kernels
        n = 2000
        fingerprint = fingerprint_of(kane)
        check = min(timeit.repeat(
            lambda: fingerprint_of(kane) != fingerprint, number=n,
            repeat=args.rounds)) / n
        with_check = min(timeit.repeat(run, number=args.calls,
                                       repeat=args.rounds)) / args.calls
        simulation_module._kanes_fingerprint = lambda k: fingerprint
        try:
            without = min(timeit.repeat(run, number=args.calls,
                                        repeat=args.rounds)) / args.calls
        finally:
            simulation_module._kanes_fingerprint = fingerprint_of
        print(f'{name}: fingerprint and comparison {check * 1e6:.1f} us; '
              f'warm simulate() {with_check * 1e3:.3f} ms with the check, '
              f'{without * 1e3:.3f} ms without (the check: '
              f'{100 * check / with_check:.2f} % of the call)')


if __name__ == '__main__':
    main()
