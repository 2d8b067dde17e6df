"""simulate() on Moore's four-bar (10 s) against the two usual alternatives.

Run: python benchmarks/bench_simulation.py [--duration 10] [--repeat 3]

(a) ``solve_ivp`` on the unconstrained full ODE ``mass_matrix_full \\
    forcing_full`` (fast, but the configuration constraints drift);
(b) the textbook approach: ``scipy.optimize.fsolve`` on the lambdified
    configuration constraints inside the right-hand side (dependent
    coordinates from the integrated state as the guess), dependent speeds
    from the velocity constraints, then ``M udot = F``;
and ``simulate()`` (coordinate partitioning on HolonomicConstraintSolver)
with its NumPy right-hand side (lambdified functions) and its numba one
(one compiled call per evaluation: Newton, dependent speeds, M udot = F).
(a), (b) and the two simulate() rows use DOP853 with rtol = 1e-8,
atol = 1e-10; (a) and (b) use the same lambdified (cse) equations as the
NumPy path. One more row runs simulate(backend='numba',
method='odeint'): SciPy's odeint (LSODA, stepping loop in Fortran) at the
same tolerances; it is compared with (b) but is a different integrator.
The times are the best of ``--repeat`` runs after one warm-up run (code
generation, and the numba compile or its loading from the disk cache,
reported separately). Prints wall times, the largest constraint residual
over the run and the ratios. Goal: simulate() at least 5x faster than (b)
with a residual <= 1e-9.
"""

import argparse
import time

import numpy as np
import sympy as sm
from scipy.integrate import solve_ivp
from scipy.optimize import fsolve

from sympy_loads.simulation import simulate
from sympy_loads.examples import four_bar
from sympy_loads.simulation import _numeric_model

RTOL, ATOL = 1e-8, 1e-10


def best_time(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return min(times), value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--duration', type=float, default=10.0)
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args(argv)
    duration = args.duration

    model = four_bar.build_model()
    kane = model.kane
    constants = four_bar.constants_of(model)
    ic = four_bar.initial_conditions(model)
    t_eval = np.linspace(0, duration, 201)

    start = time.perf_counter()
    res = simulate(kane, (0, duration), ic, constants, t_eval=t_eval,
                   rtol=RTOL, atol=ATOL)
    first_call = time.perf_counter() - start

    def ours():
        return simulate(kane, (0, duration), ic, constants, t_eval=t_eval,
                        rtol=RTOL, atol=ATOL)

    t_numpy, res_numpy = best_time(ours, args.repeat)

    start = time.perf_counter()
    simulate(kane, (0, duration), ic, constants, t_eval=t_eval, rtol=RTOL,
             atol=ATOL, backend='numba')
    first_numba = time.perf_counter() - start

    def ours_numba():
        return simulate(kane, (0, duration), ic, constants, t_eval=t_eval,
                        rtol=RTOL, atol=ATOL, backend='numba')

    t_ours, res = best_time(ours_numba, args.repeat)

    def ours_odeint():
        return simulate(kane, (0, duration), ic, constants, t_eval=t_eval,
                        rtol=RTOL, atol=ATOL, backend='numba',
                        method='odeint')

    t_odeint, res_odeint = best_time(ours_odeint, args.repeat)
    y0 = res.y[0]

    # shared numeric code for the baselines (same generation as simulate)
    nm = _numeric_model(kane)
    c = np.array([constants[s] for s in nm.constants])
    args_ = (sm.Symbol('t'), list(kane.q), list(kane.u), nm.constants)
    full = sm.lambdify(args_[1:3] + (nm.constants,),
                       [kane.mass_matrix_full, kane.forcing_full], cse=True)
    phi = sm.lambdify([list(kane.q), nm.constants], model.fh, cse=True)

    def closure(q):
        return np.max(np.abs(np.asarray(phi(q, c), dtype=float)))

    # (a) unconstrained full ODE
    def plain():
        def rhs(t, y):
            mass, forcing = full(y[:3], y[3:], c)
            return np.linalg.solve(mass, forcing).ravel()
        return solve_ivp(rhs, (0, duration), y0, method='DOP853',
                         t_eval=t_eval, rtol=RTOL, atol=ATOL)

    t_plain, sol_a = best_time(plain, args.repeat)
    drift_a = max(closure(y[:3]) for y in sol_a.y.T)

    # (b) fsolve inside the right-hand side
    dq = nm.q_dep_idx
    iu, du = nm.u_ind_idx, nm.u_dep_idx

    def full_state(t, y):
        q = np.array(y[:3])

        def residual(qd):
            q[dq] = qd
            return np.asarray(phi(q, c), dtype=float).ravel()
        q[dq] = fsolve(residual, y[dq])
        u = np.zeros(3)
        u[iu] = y[3:]
        k_nh, f_nh = nm.velocity_matrices(t, q, u, c, [])
        k_nh = np.asarray(k_nh, dtype=float)
        u[du] = np.linalg.solve(k_nh[:, du], -(k_nh[:, iu] @ u[iu]
                                               + np.ravel(f_nh)))
        return q, u

    def textbook():
        def rhs(t, y):
            q, u = full_state(t, y)
            m_kin, f_kin, mass, forcing = nm.eom(t, q, u, c, [])
            udot = np.linalg.solve(mass, np.ravel(forcing))
            return np.concatenate([np.ravel(f_kin), udot[iu]])
        y = np.concatenate([y0[:3], y0[3:][iu]])
        return solve_ivp(rhs, (0, duration), y, method='DOP853',
                         t_eval=t_eval, rtol=RTOL, atol=ATOL)

    t_fsolve, sol_b = best_time(textbook, args.repeat)
    residual_b = max(closure(full_state(t, y)[0])
                     for t, y in zip(sol_b.t, sol_b.y.T))

    rows = [
        ("simulate(numba, odeint)", t_odeint,
         np.max(res_odeint.constraint_residual), res_odeint.nfev),
        ("simulate(backend='numba')", t_ours,
         np.max(res.constraint_residual), res.nfev),
        ("simulate(backend='numpy')", t_numpy,
         np.max(res_numpy.constraint_residual), res_numpy.nfev),
        ('(a) solve_ivp, full ODE', t_plain, drift_a, sol_a.nfev),
        ('(b) fsolve inside RHS', t_fsolve, residual_b, sol_b.nfev),
    ]
    print(f"Four-bar (Moore, gravity, spring-damper), {duration:g} s, "
          f"DOP853 rtol={RTOL:g} atol={ATOL:g}")
    print(f"simulate() first call (code generation, constraint solver "
          f"compile): {first_call:.2f} s; first backend='numba' call "
          f"(kernel compile, or loading it from the disk cache): "
          f"{first_numba:.2f} s (not in the wall times below)")
    print("(time / ours: relative to simulate(backend='numba') with "
          "DOP853)")
    print(f"{'method':<28}{'wall [s]':>10}{'max residual':>15}"
          f"{'RHS evals':>11}{'time / ours':>13}")
    for name, wall, residual, nfev in rows:
        print(f'{name:<28}{wall:>10.3f}{residual:>15.2e}{nfev:>11d}'
              f'{wall/t_ours:>13.2f}')
    print(f"speed-up over (b), same integrator (DOP853): "
          f"simulate(backend='numba') {t_fsolve/t_ours:.1f}x, "
          f"simulate(backend='numpy') {t_fsolve/t_numpy:.1f}x "
          f'(goal >= 5x), residual {np.max(res.constraint_residual):.1e} '
          f'(goal <= 1e-9)')
    print(f"with method='odeint' (LSODA, Fortran stepping loop): "
          f"{t_fsolve/t_odeint:.1f}x over (b); its largest deviation from "
          f"the DOP853 run: "
          f"{np.max(np.abs(res_odeint.q - res.q)):.1e} rad")
    return rows


if __name__ == '__main__':
    main()
