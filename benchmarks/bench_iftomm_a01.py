"""IFToMM A01 (the simple pendulum) in natural coordinates against the same
pendulum written with its angle: position error and its ratio.

Run: python benchmarks/bench_iftomm_a01.py [--duration 2000]
     [--tolerances 1e-10 1e-12] [--methods DOP853 LSODA]
     [--backends compiled numpy]

The benchmark of M. Gonzalez, D. Dopico, U. Lugris and J. Cuadrado ("A
benchmarking system for MBS simulation software: problem standardization
and performance measurement", Multibody Syst. Dyn. 16:179-190, 2006): a
1 kg point on a massless 1 m link, gravity 9.81 m/s^2 along -y, released
at rest from x = +1 m, y = 0, 2000 s; the reference solution is the
point's position at 4000 output steps, and the high-precision level asks
for an error of at most 1e-3 (the largest relative error of x and y where
the reference's magnitude is at least the threshold 1e-3).

The natural-coordinate model is the point (x, y) with x^2 + y^2 = L^2
(y dependent in the model; the engine re-selects its independent
coordinate every quarter swing); the angle model has one coordinate and no
constraint. Both are compared with the closed-form solution (Jacobi's
elliptic functions), at each tolerance rtol = atol. Printed per method and
back end: the largest position error of each model, their ratio
(natural / angle; the engine's target is at most 5), the benchmark's error
of the natural model, its changes of partition and the wall times.
Nothing here asserts anything; ``tests/integration/test_iftomm_a01.py``
checks the ratio.
"""

import argparse
import time

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me
from scipy.special import ellipj, ellipk

from sympy_loads import Simulation

_t = me.dynamicsymbols._t
L, m, g = sm.symbols('L m g')
CONSTANTS = {L: 1.0, m: 1.0, g: 9.81}


def natural_pendulum():
    """``(kane, initial conditions)``: the point (x, y) on the circle
    x^2 + y^2 = L^2, y dependent."""
    x, y = me.dynamicsymbols('x y')
    ux, uy = me.dynamicsymbols('u_x u_y')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x*N.x + y*N.y)
    P.set_vel(N, ux*N.x + uy*N.y)
    kane = me.KanesMethod(
        N, [x], [ux], kd_eqs=[x.diff(_t) - ux, y.diff(_t) - uy],
        q_dependent=[y], u_dependent=[uy],
        configuration_constraints=[x**2 + y**2 - L**2],
        velocity_constraints=[x*ux + y*uy])
    kane.kanes_equations([me.Particle('p', P, m)], [(P, -m*g*N.y)])
    return kane, {x: 1.0, y: 0.0, ux: 0.0, uy: 0.0}


def angle_pendulum():
    """``(kane, initial conditions)``: the angle theta from the downward
    vertical."""
    th, w = me.dynamicsymbols('theta omega')
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (th, N.z))
    A.set_ang_vel(N, w*N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', -L*A.y)
    P.v2pt_theory(O, N, A)
    kane = me.KanesMethod(N, [th], [w], kd_eqs=[th.diff(_t) - w])
    kane.kanes_equations([me.Particle('p', P, m)], [(P, -m*g*N.y)])
    return kane, {th: np.pi/2, w: 0.0}


def exact_position(times):
    """``(n, 2)`` positions of the point released at rest at pi/2 from the
    downward vertical: sin(phi/2) = k cd(w t | k^2), k = sin(pi/4)."""
    k = np.sin(np.pi/4)
    u = np.mod(np.sqrt(9.81)*np.asarray(times), 4*ellipk(k*k))
    _, cn, dn, _ = ellipj(u, k*k)
    s = k*cn/dn
    return np.column_stack([2*s*np.sqrt(1.0 - s*s), -(1.0 - 2*s*s)])


def benchmark_error(q, exact, threshold=1e-3):
    """The largest relative error of x and y where the reference's
    magnitude is at least ``threshold``."""
    kept = np.abs(exact) >= threshold
    return float(np.max(np.abs(q - exact)[kept]/np.abs(exact)[kept]))


def run(simulation, start, times, tolerance, method):
    begin = time.perf_counter()
    result = simulation.run((0.0, times[-1]), start, CONSTANTS,
                            t_eval=times, rtol=tolerance, atol=tolerance,
                            method=method)
    return result, time.perf_counter() - begin


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--duration', type=float, default=2000.0)
    parser.add_argument('--tolerances', type=float, nargs='+',
                        default=[1e-10, 1e-12])
    parser.add_argument('--methods', nargs='+', default=['DOP853'])
    parser.add_argument('--backends', nargs='+', default=['compiled'])
    args = parser.parse_args(argv)
    times = np.linspace(0.0, args.duration, int(round(2*args.duration)) + 1)
    exact = exact_position(times)
    natural_kane, natural_start = natural_pendulum()
    angle_kane, angle_start = angle_pendulum()
    print(f'IFToMM A01 pendulum, {args.duration:g} s, '
          f'{len(times) - 1} output steps; errors: largest distance from '
          f'the exact position (m)')
    print(f'{"method":8s} {"backend":9s} {"tol":>6s} {"angle":>10s} '
          f'{"natural":>10s} {"ratio":>7s} {"bench.":>9s} {"changes":>7s} '
          f'{"t angle":>8s} {"t natural":>9s}')
    for backend in args.backends:
        natural = Simulation(natural_kane, backend=backend)
        angle = Simulation(angle_kane, backend=backend)
        for method in args.methods:
            for tolerance in args.tolerances:
                reference, t_angle = run(angle, angle_start, times,
                                         tolerance, method)
                result, t_natural = run(natural, natural_start, times,
                                        tolerance, method)
                theta = reference.q[:, 0]
                at_angle = np.column_stack([np.sin(theta), -np.cos(theta)])
                e_angle = np.max(np.linalg.norm(at_angle - exact, axis=1))
                e_natural = np.max(np.linalg.norm(result.q - exact, axis=1))
                print(f'{method:8s} {backend:9s} {tolerance:6.0e} '
                      f'{e_angle:10.3g} {e_natural:10.3g} '
                      f'{e_natural/e_angle:7.3g} '
                      f'{benchmark_error(result.q, exact):9.3g} '
                      f'{len(result.partitions):7d} {t_angle:7.2f}s '
                      f'{t_natural:8.2f}s'
                      + ('' if result.success and reference.success else
                         '  (failed)'), flush=True)


if __name__ == '__main__':
    main()
