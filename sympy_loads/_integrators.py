"""Private: the integrators behind :func:`sympy_loads.simulate`.

All of them are SciPy's. ``solve_ivp`` drives every method with events
(impacts), dense output (``t_eval``) or a Jacobian; two of SciPy's
compiled drivers take the runs where their stepping loop in compiled code
is what matters:

- ``method='DOP853'`` (the default) without ``t_eval`` or events runs the
  compiled DOP853 of ``scipy.integrate.ode`` (E. Hairer and G. Wanner's
  code). ``solve_ivp``'s DOP853 is a Python port of the same method with
  the same error estimate and step-size control; its per-step Python work
  (about 0.1 ms per step of twelve stages) is several times a compiled
  right-hand side's cost for a small model, so the compiled loop halves a
  warm run (Andrews' squeezer: 11 ms instead of 20 ms, although it takes
  1,842 evaluations to ``solve_ivp``'s 1,526). The two choose slightly
  different steps (their initial step and step-size heuristics differ),
  so their results agree to the tolerances, not to the last digit.
- ``method='odeint'`` runs ``odeint`` (LSODA in Fortran).

Each returns the fields of ``solve_ivp``'s result that
:func:`~sympy_loads.simulate` uses.
"""

import math
import types
import warnings

import numpy as np
from scipy.integrate import ODEintWarning, ode, odeint, solve_ivp

__all__ = []

# odeint's limit on internal steps per output interval (solve_ivp has none)
_ODEINT_MAX_STEPS = 1_000_000
# the compiled DOP853's limit on steps (its counter is a 32-bit integer;
# solve_ivp has none)
_DOP853_MAX_STEPS = 2**31 - 1
# where the compiled DOP853 counts its function evaluations (E. Hairer's
# IWORK(17), zero-based)
_NFCN = 16


def integrate(fun, t_span, y0, *, method, t_eval, rtol, atol, max_step,
              jac=None, events=None):
    """Integrate ``y' = fun(t, y)`` over ``t_span`` from ``y0``.

    ``jac`` is passed to the implicit methods and ``events`` to
    ``solve_ivp``. ``method='DOP853'`` without ``t_eval`` or ``events``
    takes SciPy's compiled DOP853, ``'odeint'`` SciPy's ``odeint`` (which
    locates no events), every other case ``solve_ivp``.
    """
    if method == 'DOP853' and t_eval is None and events is None:
        return _compiled_dop853(fun, t_span, y0, rtol, atol, max_step)
    if method != 'odeint':
        options = {'jac': jac} if jac is not None and method in (
            'Radau', 'BDF') else {}
        return solve_ivp(fun, t_span, y0, method=method, t_eval=t_eval,
                         rtol=rtol, atol=atol, max_step=max_step,
                         events=events, **options)
    if events is not None:
        raise ValueError("method='odeint' cannot locate events; use "
                         "method='LSODA' (the same integrator).")
    if t_eval is None:
        # odeint returns only requested times; the integrator's own steps
        # come from the same LSODA driven step by step by solve_ivp
        return solve_ivp(fun, t_span, y0, method='LSODA', rtol=rtol,
                         atol=atol, max_step=max_step)
    return _odeint(fun, t_span, y0, t_eval, rtol, atol, max_step)


def _compiled_dop853(fun, t_span, y0, rtol, atol, max_step):
    """The accepted steps of SciPy's compiled DOP853 (``scipy.integrate.ode``
    with ``'dop853'``)."""
    t0, t1 = t_span
    times, states, errors = [], [], []

    failed = np.full(len(y0), np.nan)

    def rhs(t, y):
        # An error raised in the callback does not stop the compiled
        # driver reliably (with a step callback it may call again forever),
        # so it is kept and every later call returns NaN: each step is then
        # rejected until the step size underflows, within a few hundred
        # calls, and the error is raised after the driver returns.
        if errors:
            return failed
        try:
            return fun(t, y)
        except BaseException as error:
            errors.append(error)
            return failed

    def record(t, y):
        times.append(t)
        states.append(y.copy())
        return -1 if errors else 0

    solver = ode(rhs).set_integrator(
        'dop853', rtol=rtol, atol=atol, nsteps=_DOP853_MAX_STEPS,
        max_step=0.0 if math.isinf(max_step) else float(max_step))
    solver.set_solout(record)
    solver.set_initial_value(np.asarray(y0, dtype=float), t0)
    with warnings.catch_warnings():
        # a failure comes back as the return code, reported below
        warnings.simplefilter('ignore', UserWarning)
        solver.integrate(t1)
    if errors:
        raise errors[0]
    code = solver.get_return_code()
    success = code > 0
    # the evaluations counted by the driver; read from the integrator
    # object scipy.integrate.ode keeps (a private attribute)
    nfev = int(solver._integrator.iwork[_NFCN])
    message = ('The solver successfully reached the end of the '
               'integration interval.' if success else
               f'DOP853 (compiled) stopped at t = {solver.t:.10g}: '
               f'{_DOP853_MESSAGES.get(code, f"return code {code}")}')
    return types.SimpleNamespace(
        t=np.array(times), y=np.array(states).T.reshape(len(y0), -1),
        success=success, status=0 if success else -1, message=message,
        nfev=nfev, njev=0, nlu=0)


_DOP853_MESSAGES = {
    -1: 'the input is not consistent',
    -2: 'more steps are needed than the driver allows',
    -3: 'the step size became too small (a singularity, a blow-up or a '
        'right-hand side that is not finite)',
    -4: 'the problem is probably stiff (use Radau, BDF or LSODA)',
}


def _odeint(fun, t_span, y0, t_eval, rtol, atol, max_step):
    """``odeint`` at ``t_eval`` (which lies in ``t_span``)."""
    t0, t1 = t_span
    prepend = not (t_eval.size and t_eval[0] == t0)
    times = np.concatenate([[t0], t_eval]) if prepend else t_eval
    hmax = 0.0 if math.isinf(max_step) else float(max_step)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', ODEintWarning)
        y, info = odeint(fun, y0, times, rtol=rtol, atol=atol, hmax=hmax,
                         tfirst=True, full_output=True,
                         mxstep=_ODEINT_MAX_STEPS)
    success = info['message'] == 'Integration successful.'
    reached = len(times)
    if not success:
        # rows after the failure are not solutions; tcur[k] is the time
        # reached while computing row k + 1
        direction = math.copysign(1.0, t1 - t0)
        ok = (info['tcur'] - times[1:]) * direction >= 0
        reached = 1 + int(np.argmin(ok)) if not ok.all() else len(times)
    first = 1 if prepend else 0
    return types.SimpleNamespace(
        t=times[first:reached], y=y[first:reached].T, success=success,
        status=0 if success else -1,
        message=f"odeint (LSODA): {info['message']}",
        nfev=int(info['nfe'][-1]) if len(info['nfe']) else 0,
        njev=int(info['nje'][-1]) if len(info['nje']) else 0, nlu=0)
