"""The cost of joint forces and joint friction in closed loops (issue 36).

Run: python benchmarks/bench_loop_reactions.py [--rounds 5]

(a) Moore's four-bar of ``sympy_loads.examples.four_bar`` (a ``System`` of
    three ``PinJoint`` closed by the ``LoopJoint`` P4), 2 s of motion at 201
    samples, DOP853 at the defaults (rtol 1e-8, atol 1e-10), warm: with the
    force in all four pins as outputs (``joint_reactions(...).force`` of the
    tree pins and the loop joint's force, their x and y components: 8
    outputs containing the loop's multipliers, solved at every sample)
    against the energy output alone. Target: at most 1.2 x.
(b) The slider-crank of ``sympy_loads.examples.slider_crank``, 1 s at 1001
    samples, warm: Coulomb friction mu = 0.3 in the piston's guide
    (``JointFriction`` on the ``PrismaticJoint``, the relaxation of the
    course notes at every evaluation, stick-slip events) against the same
    run without friction. No target: the friction run does more work (the
    iteration, the events); the ratio and the evaluations are printed.

Each pair is timed in alternating rounds (``_timing.interleaved_best``,
best of ``--rounds`` rounds of one call each), so a machine whose speed
drifts slows both alike. Nothing is asserted.
"""

import argparse

import numpy as np

from sympy_loads import simulate
from sympy_loads.examples import four_bar, slider_crank
from sympy_loads.examples._report import joint_force_outputs
from _timing import interleaved_best


def four_bar_runs():
    """``{name: (function, 1)}`` of the four-bar with and without the
    joint forces as outputs, each run once (warm-up) first."""
    model = four_bar.build_model()
    forces = joint_force_outputs(four_bar.joint_forces(model),
                                 model.frames[0])
    args = (model.system, (0.0, 2.0), four_bar.initial_conditions(model),
            four_bar.constants_of(model))
    t_eval = np.linspace(0.0, 2.0, 201)
    plain = {'energy': model.energy}

    def without():
        return simulate(*args, t_eval=t_eval, outputs=plain)

    def with_forces():
        return simulate(*args, t_eval=t_eval, outputs={**plain, **forces})
    without(), with_forces()
    return {'without joint forces': (without, 1),
            'with the forces in all 4 pins': (with_forces, 1)}


def slider_crank_runs(mu=0.3):
    """``{name: (function, 1)}`` of the slider-crank with and without
    friction in the piston's guide, each run once (warm-up) first."""
    runs = {}
    for label, coefficient in (('without friction', None),
                               (f'friction mu = {mu:g} in the guide', mu)):
        model = slider_crank.build_model(friction=coefficient)
        options = dict(
            t_eval=np.linspace(0.0, 1.0, 1001),
            specified={model.torque: slider_crank.motor_torque()},
            outputs={'energy': model.energy})
        if coefficient is not None:
            options['joint_friction'] = [model.friction]
        args = (model.system, (0.0, 1.0),
                slider_crank.initial_conditions(model),
                slider_crank.constants_of(model))

        def run(args=args, options=options):
            return simulate(*args, **options)
        run()
        runs[label] = (run, 1)
    return runs


def report(title, results):
    print(title)
    names = list(results)
    base = results[names[0]][0]
    for name in names:
        best, result = results[name]
        print(f'  {name:<36} {best*1e3:9.2f} ms  {best/base:5.2f} x  '
              f'nfev {result.nfev}')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=5)
    args = parser.parse_args(argv)
    rounds = max(args.rounds, 1)
    report('(a) four-bar, 2 s, warm (target: with forces <= 1.2 x)',
           interleaved_best(four_bar_runs(), rounds))
    report('(b) slider-crank, 1 s, warm',
           interleaved_best(slider_crank_runs(), rounds))


if __name__ == '__main__':
    main()
