"""Large models without the symbolic wait (issue 38): an unformed System.

Run: python benchmarks/bench_large_models.py [--n 40] [--growth 10 20 40 80]
     [--a02 40] [--span 2.0] [--repeat 3] [--formed-max-pin 8]
     [--skip-formed] [--linearize 10 14 20]
Quick run: python benchmarks/bench_large_models.py --n 10 --growth 10 20
     --a02 4 --skip-formed --linearize 10

The models are the builders shared with the tests
(``tests/_unformed_models.py``, re-exported by ``benchmarks/models.py``):
IFToMM's A02 N-four-bar (``n_four_bar``: PinJoints closed by LoopJoints,
rods of 1 m and 1 kg, the benchmark's start) and two chains of n uniform
links (total length 1 m, mass 1 kg, gravity): ``pin_chain`` (PinJoints,
relative angles, as SymPy's joints tutorial writes it) and
``absolute_chain`` (absolute angles). Four tables, in one process:

1. ``model to first result`` for A02 at N = ``--a02`` and the two chains
   at n = ``--n``: building the System, ``Simulation(system)`` on the
   unformed System (assembled equations, ``sympy_loads._assembly``) and a
   0.1 s run, with its ``derivation`` and ``codegen`` parts; beside it
   ``form_eoms()`` alone on a fresh copy of the same model (SymPy's
   symbolic derivation; for a PinJoint chain only up to
   ``--formed-max-pin`` links, since it doubles with each link) and the
   ratio form_eoms / first result;
2. ``warm``: a ``--span`` s run of the prepared Simulation of each
   n-link chain (DOP853 at the default tolerances, best of ``--repeat``)
   against the same run on the formed equations of the absolute-angle
   chain (whose ``form_eoms()`` takes some 25 s at n = 40);
3. ``growth``: the PinJoint chain at n = ``--growth``: the CPU time of
   ``Simulation(system)`` (its derivation and code generation, split as
   ``result.timings`` reports them, in wall seconds) and the cost of one
   evaluation of the right-hand side (a warm ``--span`` s run's time over
   its number of evaluations, best of ``--repeat``);
4. ``linearize``: the CPU time of ``linearize()`` on the unformed
   PinJoint chain at n = ``--linearize`` (its exact Jacobians, made by
   forward-mode derivatives over the shared graph).

Times are CPU seconds of this process (``time.process_time``: the
machine may be shared) and, for the first result, also wall seconds.
``--skip-formed`` leaves out every ``form_eoms()`` (the slow part).
It measures the ``sympy_loads`` of the checkout it is in (not an
installed copy). Nothing here asserts a timing.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))     # this checkout's sympy_loads

import models  # noqa: E402
from sympy_loads import Simulation  # noqa: E402

BUILDERS = {'A02': models.n_four_bar, 'pin': models.pin_chain,
            'absolute': models.absolute_chain}


def first_result(builder, n):
    """Build the model, prepare its Simulation unformed and run 0.1 s:
    ``(model, simulation, cpu, wall, cpu of Simulation(system), timings
    of the first run)``."""
    cpu, wall = time.process_time(), time.perf_counter()
    model = builder(n)
    prepare = time.process_time()
    sim = Simulation(model.system)
    prepare = time.process_time() - prepare
    result = sim.run((0.0, 0.1), model.initial_conditions, model.constants)
    if model.system.eom_method is not None:
        raise RuntimeError('the unformed path formed the equations')
    return (model, sim, time.process_time() - cpu,
            time.perf_counter() - wall, prepare, result.timings)


def form_eoms_alone(builder, n):
    """CPU seconds of ``form_eoms()`` on a fresh copy, and that copy."""
    model = builder(n)
    start = time.process_time()
    model.system.form_eoms()
    return time.process_time() - start, model


def warm(sim, model, span, repeat):
    """Best CPU time of a ``span`` s run (after one untimed run) and the
    CPU time per evaluation of the right-hand side."""
    sim.run((0.0, span), model.initial_conditions, model.constants)
    best, nfev = float('inf'), 1
    for _ in range(repeat):
        start = time.process_time()
        result = sim.run((0.0, span), model.initial_conditions,
                         model.constants)
        seconds = time.process_time() - start
        if seconds < best:
            best, nfev = seconds, max(result.nfev, 1)
    return best, best / nfev


def first_result_table(args):
    print('1. Model to first result (build + Simulation(system) + 0.1 s '
          'run), unformed, against form_eoms() alone [CPU s]')
    print('   (first: CPU s, and wall s on a shared machine; Simulation: '
          'CPU s of Simulation(system), and its derivation/codegen split '
          'in wall s as result.timings gives it)')
    print(f'{"model":9s} {"n":>4s} {"first":>8s} {"(wall)":>8s} '
          f'{"Simul.":>8s} {"deriv":>8s} {"codegen":>8s} {"form_eoms":>10s} '
          f'{"ratio":>7s}')
    prepared = {}
    for name, n in (('A02', args.a02), ('pin', args.n),
                    ('absolute', args.n)):
        model, sim, cpu, wall, prepare, timings = first_result(
            BUILDERS[name], n)
        prepared[name] = (model, sim)
        line = (f'{name:9s} {n:4d} {cpu:8.2f} {wall:8.2f} {prepare:8.2f} '
                f'{timings["derivation"]:8.2f} {timings["codegen"]:8.2f}')
        formed = not args.skip_formed and (name != 'pin'
                                            or n <= args.formed_max_pin)
        if formed:
            form, copy = form_eoms_alone(BUILDERS[name], n)
            prepared[f'{name} formed'] = (copy, form)
            line += f' {form:10.2f} {form / cpu:7.1f}'
        else:
            line += f' {"-":>10s} {"-":>7s}'
        print(line, flush=True)
    return prepared


def warm_table(args, prepared):
    print(f'\n2. Warm {args.span:g} s run of the {args.n}-link chain '
          f'(best of {args.repeat}) [CPU s]')
    print(f'{"model":28s} {"run":>8s} {"us/eval":>8s} {"/ formed":>9s}')
    rows = [(f'{name} chain, unformed', *prepared[name])
            for name in ('pin', 'absolute')]
    formed_seconds = None
    if not args.skip_formed:
        model, form = prepared['absolute formed']
        sim = Simulation(model.system)
        sim.run((0.0, 0.1), model.initial_conditions, model.constants)
        formed_seconds, per_eval = warm(sim, model, args.span, args.repeat)
        print(f'{"absolute chain, formed":28s} {formed_seconds:8.3f} '
              f'{per_eval * 1e6:8.1f} {1:9.2f}   '
              f'(form_eoms {form:.1f} s)', flush=True)
    for label, model, sim in rows:
        seconds, per_eval = warm(sim, model, args.span, args.repeat)
        ratio = (f'{seconds / formed_seconds:9.2f}' if formed_seconds
                 else f'{"-":>9s}')
        print(f'{label:28s} {seconds:8.3f} {per_eval * 1e6:8.1f} {ratio}',
              flush=True)


def growth_table(args):
    print(f'\n3. Growth, PinJoint chain, unformed: Simulation(system) and '
          f'one evaluation ({args.span:g} s runs, best of {args.repeat}) '
          f'[CPU]')
    print('   (Simulation: CPU s of Simulation(system); deriv and codegen: '
          'its split in wall s, result.timings; us/eval: CPU)')
    print(f'{"n":>4s} {"Simulation":>11s} {"deriv":>8s} {"codegen":>8s} '
          f'{"us/eval":>9s}')
    for n in args.growth:
        model = models.pin_chain(n)
        start = time.process_time()
        sim = Simulation(model.system)
        prepare = time.process_time() - start
        first = sim.run((0.0, 0.1), model.initial_conditions,
                        model.constants)
        _, per_eval = warm(sim, model, args.span, args.repeat)
        print(f'{n:4d} {prepare:11.2f} {first.timings["derivation"]:8.2f} '
              f'{first.timings["codegen"]:8.2f} {per_eval * 1e6:9.1f}',
              flush=True)


def linearize_table(args):
    """CPU seconds of linearize() on the unformed PinJoint chain (at its
    start, released straight at 0.3 rad), after Simulation(system)."""
    from sympy_loads import linearize
    print('\n4. linearize() of the PinJoint chain, unformed [CPU s]')
    print(f'{"n":>4s} {"linearize":>10s}')
    for n in args.linearize:
        model = models.pin_chain(n)
        Simulation(model.system)
        start = time.process_time()
        linearize(model.system, model.initial_conditions, model.constants)
        print(f'{n:4d} {time.process_time() - start:10.2f}', flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, default=40,
                        help='links of the chains of tables 1 and 2')
    parser.add_argument('--a02', type=int, default=40,
                        help='four-bar loops N of the A02 model')
    parser.add_argument('--growth', type=int, nargs='*',
                        default=[10, 20, 40, 80])
    parser.add_argument('--linearize', type=int, nargs='*',
                        default=[10, 14, 20],
                        help='links of the chains of table 4')
    parser.add_argument('--formed-max-pin', type=int, default=8)
    parser.add_argument('--span', type=float, default=2.0)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--skip-formed', action='store_true',
                        help='leave out every form_eoms()')
    args = parser.parse_args(argv)
    prepared = first_result_table(args)
    warm_table(args, prepared)
    if args.growth:
        growth_table(args)
    if args.linearize:
        linearize_table(args)


if __name__ == '__main__':
    main()
