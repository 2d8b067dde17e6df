"""simulate() on Moore's four-bar (10 s) against PyDy and the textbook way.

Run: python benchmarks/bench_simulation.py [--duration 10] [--repeat 3]
[--no-pydy]

Every row integrates the same ``KanesMethod`` (Moore's four-bar with gravity
and a spring-damper, ``sympy_loads.examples.four_bar``) from the same
consistent initial state with the same integrator, DOP853 at rtol = 1e-8,
atol = 1e-10, sampled at 201 points, in this one process:

(a) ours: ``simulate()`` with its defaults (``backend='auto'``, i.e. the
    compiled back end: SymEngine LLVM model code and numba kernels loaded
    from numba's disk cache). *Cold* is the first call on a freshly built
    model (symbolic derivation, code generation, loading the kernels;
    ``result.timings`` says which); *warm* is the best of ``--repeat``
    further calls.
(b) ours with ``backend='numpy'`` (lambdified NumPy functions), warm.
(c) the textbook approach: lambdified (``cse=True``) configuration
    constraints and their Jacobian, velocity-constraint matrices, kinematic
    differential equations and ``KanesMethod.mass_matrix``/``forcing``;
    inside the right-hand side ``scipy.optimize.fsolve`` (with the
    Jacobian as ``fprime``) solves the dependent coordinates from the guess
    carried in the state, the dependent speeds come from the velocity
    constraints, then ``M u' = F``.
(d) PyDy: ``pydy.system.System`` on the same ``KanesMethod`` with its
    Cython code generator (``generator='cython'``, constants as an array,
    the fastest call form), integrated with ``solve_ivp`` DOP853 (its
    function returns one reused output array, so the wrapper copies it). PyDy
    integrates the unconstrained ODE (all coordinates and speeds,
    ``M u' = F`` with the velocity-constraint rows, i.e. ``mass_matrix_full
    \\ forcing_full``), so its configuration constraints drift.
(e) plain ``solve_ivp`` on lambdified ``mass_matrix_full``/``forcing_full``
    (the same unconstrained ODE in NumPy).

Two more rows compare SciPy's ``odeint`` (LSODA, stepping loop in Fortran),
PyDy's default integrator: ``System.integrate()`` with the Cython function
and ``simulate(method='odeint')``, at the same rtol/atol.

The set-up of each baseline (code generation; for PyDy the C compilation)
is timed separately from its run. Printed: wall times, right-hand-side
evaluations, the largest configuration-constraint residual over the samples
(for (c) after the fsolve correction of the dependent coordinates, for (d)
and (e) of the integrated coordinates, i.e. the drift) and the ratios.
"""

import argparse
import shutil
import tempfile
import time
import warnings

import numpy as np
import sympy as sm
from scipy.integrate import solve_ivp
from scipy.optimize import fsolve

from sympy_loads import simulate
from sympy_loads.examples import four_bar
from _timing import best_of, timed

RTOL, ATOL = 1e-8, 1e-10
GOAL = ("goal: ours (defaults, warm) faster than both PyDy (Cython) and the "
        "textbook fsolve approach, same integrator and tolerances, with a "
        "constraint residual <= 1e-9")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--duration', type=float, default=10.0)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--no-pydy', action='store_true',
                        help='skip the PyDy rows')
    args = parser.parse_args(argv)
    # fsolve warns when its start is already the solution to round-off
    warnings.filterwarnings('ignore', category=RuntimeWarning,
                            message='The iteration is not making good')
    duration, repeat = args.duration, max(args.repeat, 1)
    t_eval = np.linspace(0.0, duration, 201)
    span = (0.0, duration)

    t_build, model = timed(four_bar.build_model)
    kane = model.kane
    constants = four_bar.constants_of(model)
    ic = four_bar.initial_conditions(model)

    # (a) ours, defaults: first call on the fresh model, then warm
    def ours(**options):
        return simulate(kane, span, ic, constants, t_eval=t_eval, rtol=RTOL,
                        atol=ATOL, **options)

    t_cold, res_cold = timed(ours)
    cold_timings = dict(res_cold.timings)
    t_ours, res = best_of(ours, repeat)
    # (b) ours, NumPy back end (its first call generates the NumPy code)
    _, res_numpy_cold = timed(lambda: ours(backend='numpy'))
    t_numpy, res_numpy = best_of(lambda: ours(backend='numpy'), repeat)
    ours(method='odeint')
    t_ours_odeint, res_odeint = best_of(lambda: ours(method='odeint'),
                                          repeat)

    q_syms, u_syms = list(kane.q), list(kane.u)
    nq, nu = len(q_syms), len(u_syms)
    y0 = res.y[0]                       # the consistent initial state
    # KanesMethod orders q and u as [independent, dependent]
    dq = list(range(nq - len(model.fh), nq))
    du = list(range(nu - len(model.fh), nu))
    iu = [i for i in range(nu) if i not in du]
    c_syms = sorted((model.fh.free_symbols | kane.mass_matrix_full.free_symbols
                     | kane.forcing_full.free_symbols)
                    - {me_time()}, key=sm.default_sort_key)
    c = np.array([constants[s] for s in c_syms])
    phi = sm.lambdify([q_syms, c_syms], model.fh, cse=True)

    def closure(q):
        return float(np.max(np.abs(phi(q, c))))

    def max_closure(qs):
        return max(closure(q) for q in qs)

    # (c) the textbook approach
    def textbook_setup():
        t = me_time()
        qd = sm.Matrix([q_syms[i] for i in dq])
        kin = kane.kindiffdict()
        fhd = model.fh.diff(t).xreplace(kin)       # velocity constraints
        u_vec = sm.Matrix(u_syms)
        k_nh = fhd.jacobian(u_vec)
        f_nh = fhd.xreplace({s: 0 for s in u_syms})
        qdot = sm.Matrix([kin[s.diff(t)] for s in q_syms])
        lam = dict(
            phi=sm.lambdify([q_syms, c_syms], model.fh, cse=True),
            jac=sm.lambdify([q_syms, c_syms], model.fh.jacobian(qd),
                            cse=True),
            vel=sm.lambdify([q_syms, c_syms], [k_nh, f_nh], cse=True),
            kin=sm.lambdify([q_syms, u_syms, c_syms], qdot, cse=True),
            eom=sm.lambdify([q_syms, u_syms, c_syms],
                            [kane.mass_matrix, kane.forcing], cse=True))
        return lam

    t_textbook_setup, lam = timed(textbook_setup)

    def full_state(y):
        q = np.array(y[:nq])

        def residual(x):
            q[dq] = x
            return lam['phi'](q, c).ravel()

        def jacobian(x):
            q[dq] = x
            return lam['jac'](q, c)

        q[dq] = fsolve(residual, y[dq], fprime=jacobian, xtol=1e-12)
        u = np.zeros(nu)
        u[iu] = y[nq:]
        k_nh, f_nh = lam['vel'](q, c)
        u[du] = np.linalg.solve(k_nh[:, du],
                                -(k_nh[:, iu] @ u[iu] + f_nh.ravel()))
        return q, u

    def textbook_rhs(t, y):
        q, u = full_state(y)
        mass, forcing = lam['eom'](q, u, c)
        udot = np.linalg.solve(mass, forcing.ravel())
        return np.concatenate([lam['kin'](q, u, c).ravel(), udot[iu]])

    y0_textbook = np.concatenate([y0[:nq], y0[nq:][iu]])

    def textbook():
        return solve_ivp(textbook_rhs, span, y0_textbook, method='DOP853',
                         t_eval=t_eval, rtol=RTOL, atol=ATOL)

    t_textbook, sol_c = best_of(textbook, repeat)
    residual_c = max_closure(full_state(y)[0] for y in sol_c.y.T)

    # (e) plain solve_ivp on the unconstrained full ODE
    def plain_setup():
        return sm.lambdify([q_syms, u_syms, c_syms],
                           [kane.mass_matrix_full, kane.forcing_full],
                           cse=True)

    t_plain_setup, full = timed(plain_setup)

    def plain_rhs(t, y):
        mass, forcing = full(y[:nq], y[nq:], c)
        return np.linalg.solve(mass, forcing.ravel())

    def plain():
        return solve_ivp(plain_rhs, span, y0, method='DOP853', t_eval=t_eval,
                         rtol=RTOL, atol=ATOL)

    t_plain, sol_e = best_of(plain, repeat)
    drift_e = max_closure(sol_e.y[:nq].T)

    # (d) PyDy
    pydy_rows, pydy_note = [], ''
    if not args.no_pydy:
        pydy_rows, pydy_note = run_pydy(kane, constants, y0, t_eval, span,
                                        repeat, max_closure, plain_rhs, c)

    rows = [
        ('(a) ours, cold (first call)', None, t_cold,
         res_cold.constraint_residual.max(), res_cold.nfev),
        ('(a) ours, warm', None, t_ours, res.constraint_residual.max(),
         res.nfev),
        ("(b) ours, backend='numpy'", res_numpy_cold.timings['setup'],
         t_numpy,
         res_numpy.constraint_residual.max(), res_numpy.nfev),
        ('(c) textbook (fsolve in RHS)', t_textbook_setup, t_textbook,
         residual_c, sol_c.nfev),
    ]
    rows += [r for r in pydy_rows if r[0].startswith('(d)')]
    rows.append(('(e) solve_ivp, full ODE', t_plain_setup, t_plain,
                 drift_e, sol_e.nfev))

    print(f"Moore's four-bar (gravity, spring-damper), {duration:g} s, "
          f"DOP853 rtol={RTOL:g} atol={ATOL:g}, {len(t_eval)} samples; "
          f"best of {repeat} runs")
    print(GOAL)
    other = cold_timings['setup'] - sum(
        cold_timings[k] for k in ('derivation', 'codegen', 'kernels'))
    print(f"ours: backend {res.backend!r}; cold call {t_cold:.2f} s = "
          f"derivation {cold_timings['derivation']:.2f} + codegen "
          f"{cold_timings['codegen']:.2f} + kernels (load from numba's "
          f"cache) {cold_timings['kernels']:.2f} + other set-up "
          f"{other:.2f} (not itemized in result.timings) + integration "
          f"{cold_timings['integration']:.2f} s "
          f"(building the model: {t_build:.2f} s, not included)")
    if pydy_note:
        print(pydy_note)
    header = (f"{'method':<36}{'set-up [s]':>11}{'run [s]':>10}"
              f"{'max residual':>14}{'RHS evals':>11}{'run / ours':>12}")
    print(header)
    print('-' * len(header))
    for name, setup, wall, residual, nfev in rows:
        setup_text = '' if setup is None else f'{setup:.2f}'
        print(f'{name:<36}{setup_text:>11}{wall:>10.3f}{residual:>14.2e}'
              f'{nfev:>11d}{wall / t_ours:>12.1f}')
    print('(residual: largest |configuration constraint| over the samples; '
          "set-up: code generation / compilation before the first run; "
          "for ours it is inside the cold call)")

    print()
    print(f"ratios, warm run: textbook / ours = {t_textbook / t_ours:.1f}x, "
          + (f"PyDy / ours = {pydy_rows[0][2] / t_ours:.1f}x, "
             if pydy_rows else 'PyDy skipped, ')
          + f"numpy back end / ours = {t_numpy / t_ours:.1f}x, "
          f"plain full ODE / ours = {t_plain / t_ours:.2f}x")
    first_use = [f'ours {t_cold:.2f} s',
                 f'textbook {t_textbook_setup + t_textbook:.2f} s']
    if pydy_rows:
        first_use.append(f'PyDy {pydy_rows[0][1] + pydy_rows[0][2]:.2f} s')
    print('set-up + first run on a new model: ' + ', '.join(first_use))
    residual = float(res.constraint_residual.max())
    faster = t_ours < t_textbook and all(
        t_ours < r[2] for r in pydy_rows if r[0].startswith('(d)'))
    print(f"goal {'met' if faster and residual <= 1e-9 else 'NOT met'}: "
          f"ours warm {t_ours*1e3:.0f} ms vs textbook {t_textbook*1e3:.0f} "
          f"ms" + (f", PyDy {pydy_rows[0][2]*1e3:.0f} ms" if pydy_rows
                    else ' (PyDy not run)')
          + f"; residual {residual:.1e}")

    print()
    print(f"odeint (LSODA; PyDy's default integrator), rtol={RTOL:g} "
          f"atol={ATOL:g}:")
    print(f"  ours simulate(method='odeint') {t_ours_odeint*1e3:8.1f} ms, "
          f"{res_odeint.nfev} RHS evals, residual "
          f"{res_odeint.constraint_residual.max():.1e}")
    for name, setup, wall, resid, nfev in pydy_rows:
        if not name.startswith('(d)'):
            print(f"  {name:<31}{wall*1e3:8.1f} ms, {nfev} RHS evals, "
                  f"drift {resid:.1e} -> PyDy / ours "
                  f"{wall / t_ours_odeint:.1f}x")
    return rows


def me_time():
    import sympy.physics.mechanics as me
    return me.dynamicsymbols._t


def run_pydy(kane, constants, y0, t_eval, span, repeat, max_closure,
             reference_rhs, c_reference):
    """Rows for PyDy's System (Cython generator, falling back to lambdify)
    and a note saying which generator ran."""
    try:
        import pydy.system
    except ImportError as error:
        return [], f'PyDy: not installed ({error}); its rows are skipped'
    nq = len(kane.q)
    system = pydy.system.System(kane)
    symbols = list(system.constants_symbols)
    system.constants = {s: constants[s] for s in symbols}
    system.initial_conditions = dict(zip(system.states, y0))
    system.times = t_eval
    tmp_dir = tempfile.mkdtemp(prefix='bench_pydy_')
    note = ''
    try:
        for generator in ('cython', 'lambdify'):
            options = dict(generator=generator, constants_arg_type='array')
            if generator == 'cython':
                options.update(tmp_dir=tmp_dir, force_c_contiguous=True)
            try:
                start = time.perf_counter()
                rhs = system.generate_ode_function(**options)
                setup = time.perf_counter() - start
                break
            except Exception as error:        # no compiler, Cython, ...
                note += (f'PyDy generator {generator!r} failed '
                         f'({type(error).__name__}: {error}); ')
        else:
            return [], note + 'PyDy rows skipped'
        note += (f"PyDy {pydy.__version__}: System(kane), "
                 f"generate_ode_function(generator={generator!r}) "
                 f"{setup:.2f} s (code generation + compilation)")
        p = np.array([constants[s] for s in symbols])
        check = rhs(y0, 0.0, p)
        expected = reference_rhs(0.0, y0)
        assert np.allclose(check, expected, rtol=1e-10, atol=1e-10), \
            'PyDy right-hand side differs from mass_matrix_full \\ ' \
            'forcing_full'

        # PyDy's function returns the same output array on every call
        # (fine for odeint, which copies it); solve_ivp keeps references to
        # earlier derivatives, so the wrapper must copy.
        def pydy_ivp():
            return solve_ivp(lambda t, y: rhs(y, t, p).copy(), span, y0,
                             method='DOP853', t_eval=t_eval, rtol=RTOL,
                             atol=ATOL)

        wall, sol = best_of(pydy_ivp, repeat)
        rows = [(f'(d) PyDy System ({generator})', setup, wall,
                 max_closure(sol.y[:nq].T), sol.nfev)]
        final = max_closure([sol.y[:nq, -1]])
        note += (f"; its constraint drift at t = {t_eval[-1]:g} s: "
                 f"{final:.1e}")

        # PyDy's documented route: System.integrate() with odeint
        system_default = pydy.system.System(
            kane, constants=system.constants,
            initial_conditions=system.initial_conditions, times=t_eval)
        start = time.perf_counter()
        if generator == 'cython':
            system_default.generate_ode_function(generator='cython',
                                                 tmp_dir=tmp_dir)
        else:
            system_default.generate_ode_function(generator=generator)
        setup_default = time.perf_counter() - start

        def pydy_integrate():
            return system_default.integrate(rtol=RTOL, atol=ATOL,
                                            full_output=True)

        wall_default, (x, info) = best_of(pydy_integrate, repeat)
        rows.append((f'PyDy System.integrate() ({generator})',
                     setup_default, wall_default, max_closure(x[:, :nq]),
                     int(info['nfe'][-1])))
        return rows, note
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)


if __name__ == '__main__':
    main()
