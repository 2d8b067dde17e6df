"""Benchmark: Fr and Fr* of an n-link 3D pendulum, sympy_loads against
SymPy's ``KanesMethod.kanes_equations`` on the same model.

Every link is a rigid body hanging from a pin joint whose axis alternates
between the parent's x and z axes (so the motion is three-dimensional),
with gravity and a rotational spring-damper (stiffness k, damping c) at
every joint. For each n the model is built twice (fresh objects, so no
cache is shared) and the formation of Fr and Fr* is timed:

* ours: ``generalized_active_forces`` + ``generalized_inertia_forces``;
* SymPy: ``KanesMethod(...)`` + ``kanes_equations``.

Printed per n: the best time of ``--repeat`` runs, the ratio ours/SymPy
(goal <= 1) and the expression sizes (``count_ops`` of the result after
``cse``, replacements included; goal: ours no larger), plus the largest
difference of the two Fr + Fr* at a random numeric point.

Run::

    python benchmarks/bench_generalized_forces.py            # n = 3, 6, 10
    python benchmarks/bench_generalized_forces.py --n 3 6 --repeat 3
"""

import argparse
import random
import time

import sympy as sm
from sympy.physics.mechanics import (KanesMethod, Point, ReferenceFrame,
                                     RigidBody, TorqueActuator,
                                     dynamicsymbols, inertia)

from sympy_loads import generalized_active_forces, generalized_inertia_forces

try:  # another module of this package; plain SymPy torques otherwise
    from sympy_loads import RotationalSpringDamperActuator
except ImportError:  # pragma: no cover - depends on the checkout
    RotationalSpringDamperActuator = None


def build_pendulum(n):
    """Return a dict describing an n-link 3D pendulum with gravity and a
    rotational spring-damper at every joint."""
    q = dynamicsymbols(f'q1:{n + 1}')
    u = dynamicsymbols(f'u1:{n + 1}')
    m, L, g, k, c, Ixx, Iyy, Izz = sm.symbols('m L g k c Ixx Iyy Izz')
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    parent, joint = N, O
    bodies, actuators = [], []
    for i in range(n):
        axis = parent.x if i % 2 == 0 else parent.z
        B = ReferenceFrame(f'B{i + 1}')
        B.orient_axis(parent, q[i], axis)
        B.set_ang_vel(parent, u[i] * axis)
        G = joint.locatenew(f'G{i + 1}', -L / 2 * B.y)
        G.v2pt_theory(joint, N, B)
        body = RigidBody(f'body{i + 1}', G, B, m,
                         (inertia(B, Ixx, Iyy, Izz), G))
        bodies.append(body)
        actuators.append((G, -m * g * N.y))
        reaction = None if parent is N else parent
        if RotationalSpringDamperActuator is not None:
            actuators.append(RotationalSpringDamperActuator(
                q[i], axis, B, reaction, stiffness=k, damping=c))
        else:
            actuators.append(TorqueActuator(-k * q[i] - c * u[i], axis, B,
                                            reaction))
        nxt = joint.locatenew(f'P{i + 2}', -L * B.y)
        nxt.v2pt_theory(joint, N, B)
        parent, joint = B, nxt
    return dict(q=q, u=u, N=N, bodies=bodies, actuators=actuators)


def flat_loads(actuators):
    loads = []
    for item in actuators:
        loads.extend(item.to_loads() if hasattr(item, 'to_loads') else [item])
    return loads


def form_ours(model):
    q, u, N = model['q'], model['u'], model['N']
    kin = {qi.diff(): ui for qi, ui in zip(q, u)}
    fr = generalized_active_forces(model['actuators'], u, N,
                                   kinematic_substitutions=kin)
    frstar = generalized_inertia_forces(model['bodies'], u, N,
                                        kinematic_substitutions=kin)
    return fr, frstar


def form_kane(model):
    q, u, N = model['q'], model['u'], model['N']
    kane = KanesMethod(N, q, u, kd_eqs=[qi.diff() - ui
                                        for qi, ui in zip(q, u)])
    return kane.kanes_equations(model['bodies'],
                                flat_loads(model['actuators']))


def cse_size(matrix):
    replacements, reduced = sm.cse(list(matrix))
    return (sum(sm.count_ops(rhs) for _, rhs in replacements)
            + sum(sm.count_ops(expr) for expr in reduced))


def best_time(n, former, repeat):
    best, result = float('inf'), None
    for _ in range(repeat):
        model = build_pendulum(n)
        start = time.perf_counter()
        result = former(model)
        best = min(best, time.perf_counter() - start)
    return best, result, model


def numeric_difference(n, ours, kane, model):
    values = {}
    rng = random.Random(n)
    expr_ours = ours[0] + ours[1]
    expr_kane = kane[0] + kane[1]
    for f in sorted((expr_ours.atoms(sm.Derivative)
                     | expr_kane.atoms(sm.Derivative)), key=str):
        values[f] = rng.uniform(-1, 1)
    for s in sorted(model['q'] + model['u'], key=str):
        values[s] = rng.uniform(-1, 1)
    for s in sm.symbols('m L g k c Ixx Iyy Izz'):
        values[s] = rng.uniform(0.5, 2)
    diff = (expr_ours - expr_kane).xreplace(values)
    return max(abs(float(entry)) for entry in diff)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, nargs='+', default=[3, 6, 10])
    parser.add_argument('--repeat', type=int, default=1)
    args = parser.parse_args(argv)
    rsda = ('sympy_loads RotationalSpringDamperActuator'
            if RotationalSpringDamperActuator is not None
            else 'SymPy TorqueActuator')
    print('n-link 3D pendulum, gravity + rotational spring-damper per joint '
          f'({rsda})')
    print(f'{"n":>3} {"ours [s]":>10} {"Kane [s]":>10} {"ratio":>7} '
          f'{"size ours":>10} {"size Kane":>10} {"max |diff|":>11}')
    for n in args.n:
        t_ours, ours, model = best_time(n, form_ours, args.repeat)
        t_kane, kane, _ = best_time(n, form_kane, args.repeat)
        size_ours = cse_size(ours[0].col_join(ours[1]))
        size_kane = cse_size(kane[0].col_join(kane[1]))
        diff = numeric_difference(n, ours, kane, model)
        print(f'{n:>3} {t_ours:>10.3f} {t_kane:>10.3f} '
              f'{t_ours / t_kane:>7.2f} {size_ours:>10} {size_kane:>10} '
              f'{diff:>11.2e}', flush=True)


if __name__ == '__main__':
    main()
