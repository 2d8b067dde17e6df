"""Rigid impacts against the compliant Hunt-Crossley contact they replace.

Run: python benchmarks/bench_impacts.py [--repeat 20] [--bounces 5]

A ball (unit mass, g = 9.81) dropped from h = 1 m onto the floor, e = 0.8,
simulated through ``--bounces`` impacts (default 5) to just past the apex
of the last rebound:

* rigid: ``simulate(..., impacts=[Impact(..., restitution=e_eff)])``;
* compliant: ``HuntCrossleyContact`` with ``stiffness`` k = 1e5, 1e7 and
  1e9 N/m^1.5 and ``damping_from_restitution(k, e, v0, model='hu-guo')``,
  with DOP853 (simulate()'s default) and LSODA (a stiff integrator).

``e_eff`` is the restitution the hu-guo damping really produces
(``effective_restitution``; 0.7992 for e = 0.8), so the difference between
the two runs is the compliance alone. Printed: the apex height of the last
rebound and its error against the rigid closed form h e_eff^(2n), the wall
time of a run (code generated before the timings, best of ``--repeat``),
and the speed-up of the rigid run over each compliant one. The goal of the
issue "Rigid impacts": the rigid run at least 10x faster than the stiffest
compliant one. Nothing here asserts a timing.
"""

import argparse
import math

import numpy as np
import sympy.physics.mechanics as me

from sympy_loads import (HuntCrossleyContact, Impact,
                         damping_from_restitution, effective_restitution,
                         hysteresis_factor, simulate)

from _timing import interleaved_best

G, H, E, MODEL = 9.81, 1.0, 0.8, 'hu-guo'


def ball(contact_stiffness=None):
    y, v = me.dynamicsymbols('y v')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', y * N.y)
    P.set_vel(N, v * N.y)
    loads = [(P, -G * N.y)]
    if contact_stiffness is not None:
        k = contact_stiffness
        c = damping_from_restitution(k, E, math.sqrt(2 * G * H), model=MODEL)
        loads += HuntCrossleyContact(P, O, N.y, N, stiffness=k,
                                     damping=c).to_loads()
    kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v])
    kane.kanes_equations([me.Particle('ball', P, 1)], loads)
    return kane, (y, v), (P, O, N)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--bounces', type=int, default=5)
    args = parser.parse_args(argv)

    e_eff = effective_restitution(float(hysteresis_factor(E, MODEL)))
    v1 = math.sqrt(2 * G * H)
    n = args.bounces
    # closed form: impacts at t1, t1 + 2 e v1/g, ...; the n-th apex
    apex = (math.sqrt(2 * H / G) + 2 * v1 / G * sum(
        e_eff ** k for k in range(1, n)) + e_eff ** n * v1 / G)
    half = 0.2 * e_eff ** n * v1 / G
    window = np.linspace(apex - half, apex + half, 401)
    end = apex + half
    exact = H * e_eff ** (2 * n)
    rows = []

    kane, (y, v), (P, O, N) = ball()
    floor = Impact(P, O, N.y, N, restitution=e_eff)

    def rigid():
        return simulate(kane, (0, end), {y: H, v: 0.0}, {}, t_eval=window,
                        impacts=[floor], rtol=1e-10, atol=1e-12)
    runs = {'rigid Impact (DOP853)': rigid}
    for k in (1e5, 1e7, 1e9):
        kane_c, (yc, vc), _ = ball(k)
        for method in ('DOP853', 'LSODA'):
            def compliant(kane_c=kane_c, yc=yc, vc=vc, method=method):
                return simulate(kane_c, (0, end), {yc: H, vc: 0.0}, {},
                                t_eval=window, method=method, rtol=1e-10,
                                atol=1e-12)
            runs[f'Hunt-Crossley k = {k:.0e} ({method})'] = compliant
    for run in runs.values():
        run()                                # code generation
    # alternating rounds: a drifting machine slows every run alike
    timings = interleaved_best({name: (run, 1) for name, run in
                                runs.items()}, args.repeat)
    rows = [(name, seconds, result.q[:, 0].max(), result.nfev)
            for name, (seconds, result) in timings.items()]

    rigid_seconds = rows[0][1]
    print(f'ball dropped from {H} m, e = {E} ({MODEL} damping; effective '
          f'e = {e_eff:.6f}), {n} bounces, apex of the last {exact:.9f} m')
    print(f'{"run":<36} {"apex [m]":>12} {"error":>9} {"time":>10} '
          f'{"nfev":>8} {"rigid faster":>12}')
    for name, seconds, height, nfev in rows:
        print(f'{name:<36} {height:12.9f} {abs(height - exact):9.2e} '
              f'{1e3 * seconds:8.2f}ms {nfev:8d} '
              f'{seconds / rigid_seconds:11.1f}x')


if __name__ == '__main__':
    main()
