"""Private: the integrators behind :func:`sympy_loads.simulate`.

``method='DOP853'`` (the default) steps in compiled code
(:mod:`._numeric.dop853`: SciPy's ``solve_ivp`` DOP853, step for step, its
stages calling the compiled right-hand side without returning to Python)
wherever the right-hand side is wholly compiled: the compiled back end,
without joint friction or specified inputs given as functions. It takes
the integrator's own steps, ``t_eval`` (the dense output) and impacts
(their gaps' roots located as ``solve_ivp`` locates events, the simple
ones resolved without returning to Python). For a small
model this is where the time went: ``solve_ivp``'s Python work is about
0.1 ms per step of twelve stages and each evaluation's Python call 1-2
us, against 5.5 us for an evaluation of Andrews' squeezer (seven bodies).

Elsewhere SciPy drives the right-hand side (a Python function):

- ``method='DOP853'`` without ``t_eval`` or events runs the compiled
  DOP853 of ``scipy.integrate.ode`` (E. Hairer and G. Wanner's code),
  whose stepping loop is compiled; its initial step and step-size
  heuristics differ slightly from ``solve_ivp``'s, so the two agree to the
  tolerances, not to the last digit;
- ``method='odeint'`` runs ``odeint`` (LSODA in Fortran);
- every other case runs ``solve_ivp``.

Each returns the fields of ``solve_ivp``'s result that
:func:`~sympy_loads.simulate` uses.

Changes of partition (:mod:`.partition`): on a closed loop, every path
stops where a dependent block of the engine's partition has degraded
(``problem.change_due``; the compiled DOP853 by the kernel's PARTITION_DUE
status, which makes it shorten its steps until it stops at the threshold;
SciPy's one-step methods at the threshold's crossing within the step,
integrated to again from the step's start; LSODA and BDF at the step's
end), and :func:`integrate` restarts the integrator
there from the same physical state with the partition the problem chooses
(``problem.reselect``), as after an impact. ``'odeint'``, which cannot
stop at a step, hands a stretch where it fails, or where one of its
evaluations finds a change due, over to ``solve_ivp``'s LSODA (the same
integrator), which can. Where SciPy steps it, each step's tolerance is
the requested one divided by ``problem.tolerance_factor`` at the step's
start (every fourth step's for RK23, RK45 and BDF, see ``_FACTOR_EVERY``;
:func:`_tighten`), so that it holds for the dependent coordinates and
speeds too; ``'odeint'`` and SciPy's compiled DOP853 (which cannot
change it between steps) and the compiled stepping keep the requested
tolerance.

The compiled stepping always ends: its kernel stops after
``MAX_FAILURES`` failed evaluations short of a time it cannot pass (see
:mod:`._numeric.dop853`); a return to Python (FULL, PAUSED) after steps
of a few units in the last place of ``t``, at whose pace the rest would
take more than ``_DOP853_MAX_STEPS`` steps, or after that many steps in
all, ends the run with ``success=False`` (:func:`_stalled`); and its
output buffers without ``t_eval`` hold at most ``_OUTPUT_ROWS`` samples
before they are flushed.
"""

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.integrate import (BDF, DOP853, LSODA, RK23, RK45,
                             ODEintWarning, Radau, ode, odeint, solve_ivp)
from scipy.optimize import brentq

from .._errors import SimulationError
from .._numeric import (
    DIP_ITERATIONS, INVERSE_PHI, PARTITION_DUE, SCAN_POINTS, S_ATOL,
    S_BRACKET_END, S_DIRECTION, S_FRESH, S_H, S_IMPACTS, S_MAX_STEP,
    S_NEXT_SAMPLE, S_NFEV, S_PER_IMPACT, S_RESOLVE, S_RTOL, S_STRUCK, S_T,
    S_T_END, S_T_FAILED, S_T_OLD, S_WRITTEN, STATE_SIZE)

__all__ = []


@dataclass
class Outcome:
    """What every integration path returns: the fields of ``solve_ivp``'s
    result that :func:`sympy_loads.simulate` reads, plus ``next_step``
    (the compiled stepping's next step size, to go on from) and ``error``
    (a :class:`~sympy_loads.SimulationError` whose run up to its time is
    kept, ``keeps_run``)."""

    t: np.ndarray
    y: np.ndarray
    success: bool
    status: int
    message: str
    nfev: int = 0
    njev: int = 0
    nlu: int = 0
    t_events: list = None
    y_events: list = None
    next_step: float = None
    error: Exception = None
    #: ``(t, y)``: the run stopped at this accepted state because a change
    #: of partition is due there (its samples end before ``t``)
    repartition: tuple = None


def outcome(result):
    """The :class:`Outcome` of ``solve_ivp``'s result."""
    return Outcome(t=result.t, y=result.y, success=bool(result.success),
                   status=int(result.status), message=str(result.message),
                   nfev=int(result.nfev), njev=int(result.njev),
                   nlu=int(result.nlu),
                   t_events=getattr(result, 't_events', None),
                   y_events=getattr(result, 'y_events', None))


# odeint's limit on internal steps per output interval (solve_ivp has none)
_ODEINT_MAX_STEPS = 1_000_000
# the compiled DOP853's limit on steps (its counter is a 32-bit integer;
# solve_ivp has none); the stepping in compiled code stops where, at the
# pace of its last return to Python, it would need more
_DOP853_MAX_STEPS = 2**31 - 1
# the largest output buffers of the compiled stepping without t_eval (rows;
# full buffers are flushed into a list, so larger ones would only save
# flushes)
_OUTPUT_ROWS = 2**16
# steps shorter than this many spacings of the floating-point numbers at
# the end of the interval are no progress (a step that changes a
# coordinate moving at 0.05 of its size per unit time by one unit in its
# last place is some tens of such spacings)
_STALL_SPACINGS = 1e5


# the steps between two measures of Problem.tolerance_factor on the
# SciPy-stepped paths (each corrects 2n + 1 states for n independent
# entries): every step, but every fourth for RK23, RK45 and BDF, whose
# many short steps see it change little (on IFToMM A01 the same accuracy
# in 40 % less time; LSODA measured every fourth step lost half of its
# gain)
_FACTOR_EVERY = {'RK23': 4, 'RK45': 4, 'BDF': 4}

# consecutive stops for a change of partition at one time (each changes
# it or lowers the threshold) after which the run goes on without
# looking for another change
_MAX_STOPS_AT_ONCE = 8


def integrate(fun, t_span, y0, *, method, t_eval, rtol, atol, max_step,
              jac=None, impacts=None, problem=None, first_step=None,
              resolve=None):
    """Integrate ``y' = fun(t, y)`` over ``t_span`` from ``y0``
    (:func:`_integrate`), in stretches between the changes of partition
    of ``problem`` (see the module documentation): a stretch stopped at
    ``(t, y)`` for a change goes on from there with the state in the new
    partition, its samples before ``t`` kept (with ``t_eval``: those
    before ``t``; without: the steps before ``t``, the new stretch
    starting with ``t``). An impact's event ends the run as in
    :func:`_integrate`, with the samples of every stretch."""
    if problem is None or not problem.reselects:
        return _integrate(fun, t_span, y0, method=method, t_eval=t_eval,
                          rtol=rtol, atol=atol, max_step=max_step, jac=jac,
                          impacts=impacts, problem=problem,
                          first_step=first_step, resolve=resolve)
    t0, t1 = float(t_span[0]), float(t_span[1])
    direction = 1.0 if t1 >= t0 else -1.0
    t, y = t0, np.asarray(y0, dtype=float)
    times, states = [], []
    counts = dict(nfev=0, njev=0, nlu=0)
    stops, last_stop = 0, None
    sample_times = t_eval
    while True:
        solution = _integrate(fun, (t, t1), y, method=method,
                              t_eval=sample_times, rtol=rtol, atol=atol,
                              max_step=max_step, jac=jac, impacts=impacts,
                              problem=problem, first_step=first_step,
                              resolve=resolve)
        for name in counts:
            counts[name] += int(getattr(solution, name) or 0)
        seg_t = np.asarray(solution.t, dtype=float)
        seg_y = np.asarray(solution.y, dtype=float).reshape(len(y), -1)
        if solution.repartition is None:
            times.append(seg_t)
            states.append(seg_y)
            break
        t_stop, y_stop = solution.repartition
        keep = direction * (seg_t - t_stop) < 0
        times.append(seg_t[keep])
        states.append(seg_y[:, keep])
        stops = stops + 1 if t_stop == last_stop else 1
        last_stop = t_stop
        new = problem.reselect(t_stop, y_stop)
        if stops >= _MAX_STOPS_AT_ONCE:
            problem.threshold = 0.0
        t, y = float(t_stop), (np.asarray(y_stop, dtype=float) if new is
                               None else new)
        first_step = None
        if t_eval is not None:
            sample_times = t_eval[direction * (t_eval - t) >= 0]
    solution.t = np.concatenate(times)
    solution.y = np.hstack(states).reshape(len(y), -1)
    for name, value in counts.items():
        setattr(solution, name, value)
    return solution


def _integrate(fun, t_span, y0, *, method, t_eval, rtol, atol, max_step,
               jac=None, impacts=None, problem=None, first_step=None,
               resolve=None):
    """Integrate ``y' = fun(t, y)`` over ``t_span`` from ``y0``, in one
    partition: where ``problem`` says a change of partition is due, the
    result stops there (its ``repartition``).

    ``impacts`` (an :class:`~.impacts.ImpactEngine`) makes each impact a
    terminal event; ``problem`` is the :class:`~.problem.Problem` whose
    right-hand side ``fun`` is. ``method='DOP853'`` steps in compiled code
    (:func:`_kernel_dop853`) where the problem's right-hand side is wholly
    compiled; otherwise without ``t_eval`` or impacts it takes SciPy's
    compiled DOP853. The
    ``'odeint'`` method takes SciPy's ``odeint`` (which locates no
    events), every other case ``solve_ivp``. ``first_step`` (the compiled
    stepping only; by default it is chosen as ``solve_ivp`` does) goes on
    from an earlier run's ``next_step``. ``resolve(t, y)`` (the compiled
    stepping only, see :func:`_kernel_dop853`) applies the impacts at
    ``t`` without ending the run; elsewhere each impact ends it.
    """
    if (method == 'DOP853' and problem is not None and problem.steppable
            and (impacts is None or impacts.function.address is not None)):
        return _kernel_dop853(problem, fun, t_span, y0, t_eval, rtol, atol,
                              max_step, impacts, first_step, resolve)
    watch = problem if problem is not None and problem.threshold else None
    if method == 'DOP853' and t_eval is None and impacts is None:
        return _compiled_dop853(fun, t_span, y0, rtol, atol, max_step,
                                watch)
    if method != 'odeint':
        options = {'jac': jac} if jac is not None and method in (
            'Radau', 'BDF') else {}
        if impacts:
            return _ivp_with_impacts(fun, t_span, y0, method, t_eval, rtol,
                                     atol, max_step, impacts, watch=watch,
                                     **options)
        if watch is not None:
            return _ivp_stepped(fun, t_span, y0, method, t_eval, rtol, atol,
                                max_step, watch, **options)
        return outcome(solve_ivp(fun, t_span, y0, method=method,
                                 t_eval=t_eval, rtol=rtol, atol=atol,
                                 max_step=max_step, **options))
    if impacts is not None:
        raise ValueError("method='odeint' cannot locate events; use "
                         "method='LSODA' (the same integrator).")
    if t_eval is None:
        # odeint returns only requested times; the integrator's own steps
        # come from the same LSODA driven step by step by solve_ivp
        return _integrate(fun, t_span, y0, method='LSODA', t_eval=None,
                          rtol=rtol, atol=atol, max_step=max_step,
                          problem=problem)
    if watch is None:
        return _odeint(fun, t_span, y0, t_eval, rtol, atol, max_step)
    # where no partition is much better, change_due lowers the threshold:
    # the stretch run again from its start begins with it as it was
    threshold = watch.threshold
    try:
        solution = _odeint(_watched_for_change(fun, t_span, watch), t_span,
                           y0, t_eval, rtol, atol, max_step)
    except (SimulationError, _ChangeDue):
        solution = None
    if solution is not None and solution.success:
        return solution
    watch.threshold = threshold
    # odeint cannot stop at a step for a change of partition: the stretch
    # goes to solve_ivp's LSODA (the same integrator), which can
    return _ivp_stepped(fun, t_span, y0, 'LSODA', t_eval, rtol, atol,
                        max_step, watch)


class _ChangeDue(Exception):
    """Raised through ``odeint`` by :func:`_watched_for_change`."""


def _watched_for_change(fun, t_span, problem):
    """``fun`` for ``odeint``, which cannot stop at a step: each
    evaluation that advances the integration (the predictor of a new
    step, not a Jacobian's or corrector's evaluations at the same time)
    asks ``problem.change_due`` at its state and raises
    :class:`_ChangeDue` where a change is due, so that the stretch goes to
    ``solve_ivp``'s LSODA, stopped at an accepted step for the change.
    Unwatched, ``odeint`` steps on through a dependent block's zero (a
    nonholonomic model's 1 x 1 block is well conditioned relative to
    itself) and returns a wrong path as a success."""
    direction = 1.0 if t_span[1] >= t_span[0] else -1.0
    front = [-math.inf]

    def watched(t, y):
        value = fun(t, y)
        if direction * t > front[0]:
            front[0] = direction * t
            if problem.change_due(t, y):
                raise _ChangeDue
        return value
    return watched


def _ivp_stepped(fun, t_span, y0, method, t_eval, rtol, atol, max_step,
                 problem, **options):
    """``solve_ivp`` stepped here (the same steps, dense output and
    samples), stopping at the first accepted step at which
    ``problem.change_due`` (the result's ``repartition``). A step that
    fails with a :class:`SimulationError` stops there too where another
    partition at its start would serve (``problem.change_due`` then
    forces the check) and is raised otherwise."""
    t0, t1 = float(t_span[0]), float(t_span[1])
    y0 = np.asarray(y0, dtype=float)
    solver = _SOLVERS[method](fun, t0, y0, t1, rtol=rtol, atol=atol,
                              max_step=max_step, **options)
    times, states = ([], []) if t_eval is not None else ([t0], [y0])
    i_eval = 0
    status, stop, message = None, None, ''
    steps, every = 0, _FACTOR_EVERY.get(method, 1)
    while status is None:
        start = (solver.t, solver.y.copy())
        if not steps % every:
            _tighten(solver, method, problem.tolerance_factor(
                solver.t, solver.y, rtol, atol), rtol, atol)
        steps += 1
        try:
            message = solver.step()
        except SimulationError:
            if not _better_elsewhere(problem, solver.t, solver.y):
                raise
            stop = (solver.t, solver.y.copy())
            break
        if solver.status == 'failed':
            if _better_elsewhere(problem, solver.t, solver.y):
                stop = (solver.t, solver.y.copy())
                break
            status = -1
            break
        if solver.status == 'finished':
            status = 0
        t = solver.t
        if t_eval is not None:
            direction = 1.0 if t1 >= t0 else -1.0
            stop_index = int(np.searchsorted(direction * t_eval,
                                             direction * t, side='right'))
            if stop_index > i_eval:
                chunk = t_eval[i_eval:stop_index]
                values = solver.dense_output()(chunk)
                times.extend(chunk.tolist())
                states.extend(values.T)
                i_eval = stop_index
        else:
            times.append(t)
            states.append(solver.y.copy())
        if status is None and problem.change_due(t, solver.y):
            # (a multistep method restarts at order one: the step's end
            # serves it better than a second restart at the crossing)
            stop = ((t, solver.y.copy()) if method in ('LSODA', 'BDF') else
                    _threshold_crossing(problem, solver, start, method,
                                        rtol, atol, options))
            break
    n = y0.size
    messages = {0: 'The solver successfully reached the end of the '
                'integration interval.'}
    if stop is not None:
        status = 0
    return Outcome(
        t=np.array(times, dtype=float),
        y=np.array(states, dtype=float).T.reshape(n, len(times)),
        success=status >= 0, status=status,
        message=messages.get(status, message), nfev=solver.nfev,
        njev=solver.njev, nlu=solver.nlu, repartition=stop)


def _threshold_crossing(problem, solver, start, method, rtol, atol,
                        options):
    """``(t, y)`` where the measures of the current dependent blocks fell
    through ``problem.threshold`` within the step ``solver`` has just
    taken from ``start`` (located on its dense output, then integrated to
    from ``start`` with ``method`` again, so that the run goes on from a
    state as accurate as the steps'; the step's end where they had not
    fallen at its start): a change of partition is due there, not at the
    step's end, where the dependent coordinates may already carry the
    independent ones' error much amplified (the compiled DOP853 stops at
    the threshold itself)."""
    t, y = solver.t, solver.y.copy()
    t_old, y_old = start
    if t_old == t:
        return t, y
    dense = solver.dense_output()

    def excess(s):
        return min(problem.block_ratios(s, dense(s))) - problem.threshold

    try:
        if not excess(t_old) > 0.0:
            return t, y
        root = brentq(excess, t_old, t, xtol=4 * np.finfo(float).eps
                      * max(abs(t_old), abs(t), 1.0))
    except (ValueError, ArithmeticError):
        return t, y
    if root == t_old:
        return t, y
    try:
        part = _SOLVERS[method](solver.fun, t_old, y_old, root,
                                rtol=solver.rtol, atol=solver.atol,
                                first_step=abs(root - t_old),
                                **options)
        while part.status == 'running':
            part.step()
    except SimulationError:
        return t, y
    if part.status != 'finished':
        return t, y
    return root, part.y.copy()


def _tighten(solver, method, factor, rtol, atol):
    """Give ``solver`` (a ``solve_ivp`` solver of ``method``) the
    tolerances ``rtol, atol`` divided by ``factor``
    (:meth:`.problem.Problem.tolerance_factor`) for its next step (``rtol``
    no lower than the ``100 eps`` that ``solve_ivp`` allows)."""
    tight_rtol = max(rtol / factor, 100 * _EPS)
    tight_atol = np.asarray(atol, dtype=float) / factor
    if method == 'LSODA':
        _set_lsoda_tolerances(solver, tight_rtol, tight_atol)
    else:
        solver.rtol, solver.atol = tight_rtol, tight_atol
    if method in ('BDF', 'Radau'):
        # their Newton iterations' tolerance follows rtol; SciPy sets it
        # once, from the rtol they were made with (the same formula)
        solver.newton_tol = max(10 * _EPS / tight_rtol,
                                min(0.03, tight_rtol ** 0.5))


def _set_lsoda_tolerances(solver, rtol, atol):
    """LSODA's tolerances for its next steps. SciPy's ``LSODA`` passes
    them to ODEPACK's LSODA at every call (its ``call_args``; a private
    attribute, read and written here only), which weighs the error with
    them anew at every step (ODEPACK allows changing them between
    calls)."""
    try:
        integrator = solver._lsoda_solver._integrator
        integrator.call_args[0] = rtol
        integrator.call_args[1] = atol if np.ndim(atol) else float(atol)
    except (AttributeError, IndexError, TypeError):
        # another SciPy keeps them elsewhere: LSODA keeps the requested
        # tolerance, which then bounds the independent entries only
        warnings.warn('LSODA: this SciPy does not let its tolerance be '
                      'tightened between steps; the requested tolerance '
                      'bounds the independent coordinates and speeds only.',
                      RuntimeWarning, stacklevel=2)


def _better_elsewhere(problem, t, y):
    """Whether a step that failed from the accepted ``(t, y)`` should stop
    there for a change of partition (``problem.better_elsewhere``)."""
    return problem is not None and problem.better_elsewhere(t, y)


def _kernel_dop853(problem, fun, t_span, y0, t_eval, rtol, atol, max_step,
                   impacts, first_step=None, resolve=None):
    """DOP853 stepping in compiled code (:mod:`._numeric.dop853`): the
    fields of ``solve_ivp``'s result, with the same steps, samples, events
    and event roots as ``solve_ivp``'s DOP853 (Brent's method on the dense
    output to ``solve_ivp``'s tolerances: SciPy's ``brentq`` here, the
    kernel's own where it resolves an impact itself).

    Without ``resolve`` the run ends at the first impact (a terminal
    event). With it, ``resolve(t, y)`` returns the state after the impacts
    at ``t`` and the stepping goes on from there with its last step size
    (as ``solve_ivp`` restarted with that ``first_step`` would); without
    ``t_eval`` an impact's time is then sampled twice, before and after
    the jump. An error ``resolve`` raises with ``keeps_run`` set ends the
    run: it is returned as the result's ``error``, with the samples
    reached; any other error propagates.

    Where an evaluation fails in the kernel at a step that cannot shrink
    further, ``fun`` (whose diagnosing path reports why) is called at that
    state; if it succeeds there the rest of the interval is left to
    ``solve_ivp``."""
    from .._numeric import dop853 as kernel
    t0, t1 = float(t_span[0]), float(t_span[1])
    y = np.array(y0, dtype=float)
    n = y.size
    ints, floats, x, fn = problem.packed_arguments()
    fn = kernel.with_calls(fn)      # the kernels it calls, by address
    # the kernel's right-hand side reports PARTITION_DUE below the
    # threshold (this run only: other callers see no such status)
    problem._opts[4] = problem.threshold if problem.reselects else 0.0
    try:
        return _kernel_dop853_run(kernel, problem, fun, t0, t1, y, n, ints,
                                  floats, x, fn, t_eval, rtol, atol,
                                  max_step, impacts, first_step, resolve)
    finally:
        problem._opts[4] = 0.0


def _kernel_dop853_run(kernel, problem, fun, t0, t1, y, n, ints, floats, x,
                       fn, t_eval, rtol, atol, max_step, impacts,
                       first_step, resolve):
    """:func:`_kernel_dop853` after its set-up."""
    stop = None
    A, C, E3, E5, D = kernel.tableau()
    # the kernel evaluates the derivative at the start (state[S_FRESH]) and
    # chooses the first step as solve_ivp does where h is NaN
    f = np.empty(n)
    h = math.nan if first_step is None else min(first_step, abs(t1 - t0),
                                                max_step)
    direction = 1.0 if t1 >= t0 else -1.0
    # an empty t_eval integrates as solve_ivp does, keeping no sample (the
    # kernel's empty t_eval means every step's end: kept, then dropped)
    discard = t_eval is not None and len(t_eval) == 0
    if discard:
        t_eval = None
    samples = np.zeros(0) if t_eval is None else np.ascontiguousarray(
        t_eval, dtype=float)
    capacity = samples.size if t_eval is not None else 256
    out_t, out_y = np.empty(capacity), np.empty((capacity, n))
    impact, row, out, g, k, per, limits, records = _impact_arguments(
        impacts, t0, y)
    g_new = g.copy()
    state = _stepper_state(t0, t1, h, direction, rtol, atol, max_step, k,
                           per, resolve is not None and k)
    K = np.empty((kernel.N_EXTENDED, n))
    F = np.empty((D.shape[0] + 3, n))
    y_old, y_new, stage = np.empty(n), np.empty(n), np.empty(n)
    times, states = [], []
    buffers = [out_t, out_y]

    if t_eval is None:
        times.append(np.array([t0]))
        states.append(y[:, None].copy())
    events = [np.zeros(0)] * k
    y_events = [np.zeros((0, n))] * k
    status, message, error = 0, 'The solver successfully reached the ' \
        'end of the integration interval.', None
    total_steps = 0
    while True:
        out_t, out_y = buffers
        t_before, written_before = state[S_T], int(state[S_WRITTEN])
        code = kernel.advance(state, y, f, samples, out_t, out_y, x, fn,
                              ints, floats, A, C, E3, E5, D, K, F, y_old,
                              y_new, stage, impact, row, out, g, g_new,
                              limits, records)
        written = int(state[S_WRITTEN])
        if code in (kernel.FULL, kernel.PAUSED):
            total_steps, stall = _progress(kernel, code, state, t_before,
                                           written_before, t1, total_steps)
            if stall:
                status, message = -1, stall
                code = kernel.TOO_SMALL     # ends the run, samples kept
        if state[S_STRUCK]:
            records = impacts.absorb(records, int(state[S_STRUCK]), limits, g)
            state[S_STRUCK] = 0
        if code == kernel.EVENT:
            t_hit, i_hit, y_hit = _locate(kernel, state, g, g_new, k, F,
                                          y_old, stage, x, fn, ints,
                                          floats, impact, row, out)
            t_old = state[S_T_OLD]
            state[S_NEXT_SAMPLE], written = kernel.samples_until(
                F, y_old, t_old, state[S_T] - t_old, t_hit, direction,
                samples, int(state[S_NEXT_SAMPLE]), out_t, out_y, written)
            if t_eval is None:
                written = _record(buffers, times, states, t_hit, y_hit,
                                  written)
            if resolve is not None:
                try:
                    y_after = resolve(t_hit, y_hit)
                except Exception as exc:
                    if not getattr(exc, 'keeps_run', False):
                        raise
                    error, status, message = exc, -1, str(exc)
                else:
                    if t_eval is None:
                        written = _record(buffers, times, states, t_hit,
                                          y_after, written)
                    y[:] = y_after
                    g[:] = impacts.kernel_gaps(t_hit, y)
                    limits[:] = impacts.kernel_limits()
                    records = impacts.kernel_records()
                    state[S_T], state[S_WRITTEN] = t_hit, written
                    state[S_FRESH] = 1       # the kernel evaluates f there
                    continue
            else:
                events = [np.array([t_hit]) if i == i_hit else np.zeros(0)
                          for i in range(k)]
                y_events = [y_hit[None, :] if i == i_hit else
                            np.zeros((0, n)) for i in range(k)]
                status, message = 1, 'A termination event occurred.'
        if code in (kernel.FULL, kernel.PAUSED) and t_eval is None:
            buffers[:] = _flush(times, states, out_t, out_y, written,
                                grow=code == kernel.FULL)
            state[S_WRITTEN] = 0
            continue
        if code == kernel.PAUSED:
            continue
        out_t, out_y = buffers
        times.append(out_t[:written].copy())
        states.append(out_y[:written].T.copy())
        if code == kernel.FAILED:
            stop, rest = _after_failure(problem, fun, state, stage, y, t1,
                                        t_eval, samples, rtol, atol,
                                        max_step, impacts, times, states)
            status = 0 if rest is None else rest.status
            if rest is not None:
                message = rest.message
                if rest.status == 1:
                    events, y_events = rest.t_events, rest.y_events
        elif code == kernel.TOO_SMALL and status >= 0:
            status = -1
            message = 'Required step size is less than spacing between ' \
                'numbers.'
        break
    if discard:
        times, states = [np.zeros(0)], [np.zeros((n, 0))]
    return Outcome(
        t=np.concatenate(times), y=np.hstack(states).reshape(n, -1),
        t_events=events, y_events=y_events, success=status >= 0,
        status=status, message=message, nfev=int(state[S_NFEV]), njev=0,
        nlu=0, next_step=state[S_H], error=error, repartition=stop)


def _after_failure(problem, fun, state, stage, y, t1, t_eval, samples,
                   rtol, atol, max_step, impacts, times, states):
    """``(stop, rest)`` after the compiled stepping returned FAILED: a
    change of partition due at the last accepted state (``stop``, the
    state; ``rest`` None), or the rest of the run handed over to SciPy's
    DOP853 (:func:`_hand_over`; its samples appended to ``times`` and
    ``states``, ``stop`` the change of partition it stopped for, if
    any)."""
    if (int(problem._info[3]) == PARTITION_DUE
            or _better_elsewhere(problem, state[S_T], y.copy())):
        return (float(state[S_T]), y.copy()), None
    rest_eval = None if t_eval is None else samples[
        int(state[S_NEXT_SAMPLE]):]
    rest = _hand_over(fun, state, stage, y, t1, rest_eval, rtol, atol,
                      max_step, impacts,
                      problem if problem.threshold else None)
    skip = 1 if t_eval is None else 0       # (state[S_T], y) again
    times.append(rest.t[skip:])
    states.append(rest.y[:, skip:])
    state[S_NFEV] += rest.nfev
    return rest.repartition, rest


def _impact_arguments(impacts, t0, y):
    """``(impact, row, out, g, k, per, limits, records)`` of the compiled
    stepping (see :meth:`.impacts.ImpactEngine.kernel_arguments`); without
    impacts, arrays of the same types (no gaps, no room for records), so
    that every run calls the one compiled variant of the stepping."""
    if impacts is None:
        return (np.zeros(2, dtype=np.int64), np.zeros(1), np.zeros(1),
                np.zeros(0), 0, 0, np.zeros(1), np.zeros((0, 1)))
    impact, row, out, g, k, per = impacts.kernel_arguments(t0, y)
    return (impact, row, out, g, k, per, impacts.kernel_limits(),
            impacts.kernel_records())


def _stepper_state(t0, t1, h, direction, rtol, atol, max_step, k, per,
                   resolve):
    """The compiled DOP853's state vector (the named indices ``S_...`` of
    :mod:`sympy_loads._numeric`) at the start of a run: the kernel
    evaluates the derivative first (``S_FRESH``) and, with ``resolve``,
    resolves impacts in compiled code where it can (``S_RESOLVE``)."""
    state = np.zeros(STATE_SIZE)
    state[S_T], state[S_H], state[S_T_END] = t0, h, t1
    state[S_RTOL], state[S_ATOL], state[S_MAX_STEP] = rtol, atol, max_step
    state[S_T_OLD], state[S_DIRECTION], state[S_T_FAILED] = (t0, direction,
                                                             np.nan)
    state[S_IMPACTS], state[S_PER_IMPACT] = k, per
    state[S_RESOLVE] = 1 if resolve else 0
    state[S_FRESH] = 1
    state[S_BRACKET_END] = t1
    return state


def _hand_over(fun, state, stage, y, t1, rest_eval, rtol, atol, max_step,
               impacts, watch=None):
    """The rest of a compiled DOP853 run whose evaluation failed at the
    trial ``stage`` of the step from ``(state[S_T], y)``: the diagnosing
    path (``fun``) raises, or copes, and then SciPy's own DOP853 takes the
    rest from ``state[S_T]`` (it calls the same function), with the impacts'
    events where there are impacts, and stopping where a change of
    partition is due (``watch``, the problem; the outcome's
    ``repartition``)."""
    fun(state[S_T_FAILED], stage.copy())
    first = min(state[S_H], abs(t1 - state[S_T])) if state[S_H] > 0 else None
    if impacts:
        return _ivp_with_impacts(fun, (state[S_T], t1), y, 'DOP853',
                                 rest_eval, rtol, atol, max_step, impacts,
                                 watch=watch, first_step=first)
    if watch is not None:
        return _ivp_stepped(fun, (state[S_T], t1), y, 'DOP853', rest_eval,
                            rtol, atol, max_step, watch, first_step=first)
    return outcome(solve_ivp(fun, (state[S_T], t1), y, method='DOP853',
                             t_eval=rest_eval, rtol=rtol, atol=atol,
                             max_step=max_step, first_step=first))


def _record(buffers, times, states, t, y_sample, written):
    """Append one sample to the output ``buffers`` (no t_eval), flushing
    them into ``times`` and ``states`` when full; returns the new count."""
    if written == buffers[0].size:
        buffers[:] = _flush(times, states, buffers[0], buffers[1], written)
        written = 0
    buffers[0][written], buffers[1][written] = t, y_sample
    return written + 1


def _flush(times, states, out_t, out_y, written, grow=True):
    """Keep the first ``written`` samples; fresh buffers, twice as large
    where ``grow`` (full buffers), up to :data:`_OUTPUT_ROWS` rows."""
    times.append(out_t[:written].copy())
    states.append(out_y[:written].T.copy())
    size = min(2 * out_t.size, _OUTPUT_ROWS) if grow else out_t.size
    return np.empty(size), np.empty((size, out_y.shape[1]))


def _stalled(t_before, t_after, t1, steps):
    """Whether the compiled stepping, whose last ``steps`` steps took it
    from ``t_before`` to ``t_after``, makes no progress: its steps were
    on average shorter than :data:`_STALL_SPACINGS` times the spacing of
    the floating-point numbers at ``t1`` and at that pace it would need
    more than :data:`_DOP853_MAX_STEPS` steps to reach ``t1`` (also where
    it did not move at all)."""
    remaining = abs(t1 - t_after)
    moved = abs(t_after - t_before)
    steps = max(steps, 1)
    spacing = np.spacing(max(abs(t1), abs(t_after)))
    return remaining > 0.0 and (
        moved < _STALL_SPACINGS * spacing * steps
        and remaining * steps >= _DOP853_MAX_STEPS * moved)


def _progress(kernel, code, state, t_before, written_before, t1,
              total_steps):
    """``(total_steps, stall)`` after the compiled stepping returned
    ``code`` (FULL or PAUSED) to Python, having started that call at
    ``t_before`` with ``written_before`` samples written: the steps taken
    so far, and the message of a stepping that makes no progress
    (:func:`_stalled`, or more than :data:`_DOP853_MAX_STEPS` steps in
    all), naming the kernel's status; otherwise an empty ``stall``."""
    steps = (kernel.PAUSE_STEPS if code == kernel.PAUSED
             else int(state[S_WRITTEN]) - written_before)
    total_steps += steps
    t_after = state[S_T]
    if not (_stalled(t_before, t_after, t1, steps)
            or total_steps > _DOP853_MAX_STEPS):
        return total_steps, ''
    name = 'PAUSED' if code == kernel.PAUSED else 'FULL'
    return total_steps, (
        f'the compiled DOP853 stepping made no progress: {steps} steps '
        f'from t = {t_before!r} advanced it by only '
        f'{abs(t_after - t_before):.3g} (kernel status {name}); the run '
        f'would take more than {_DOP853_MAX_STEPS} steps')


def _locate(kernel, state, g, g_new, k, F, y_old, stage, x, fn, ints,
            floats, impact, row, out):
    """``(t, i, y)``: the first root within the last step of the gaps that
    fell to zero or below in it (``solve_ivp``'s event location: ``brentq``
    on the dense output, :func:`find_root`), up to
    ``state[S_BRACKET_END]``: the step's end or the time inside it where
    a gap that dipped below zero was found negative."""
    t_old, t_new = state[S_T_OLD], state[S_BRACKET_END]
    work = g.copy()
    hits = []
    event_value = kernel.event_value_entry(
        t_old, 0, state, F, y_old, stage, x, fn, ints, floats, impact, row,
        out, work)
    for i in range(k):
        if not (g[i] >= 0.0 and g_new[i] <= 0.0):
            continue
        hits.append((find_root(event_value, t_old, t_new, args=(
            i, state, F, y_old, stage, x, fn, ints, floats, impact, row, out,
            work)), i))
    direction = state[S_DIRECTION]
    t_hit, i_hit = min(hits, key=lambda hit: direction * hit[0])
    y_hit = np.empty(y_old.size)
    kernel.dense(F, y_old, (t_hit - t_old) / (state[S_T] - t_old), y_hit)
    return t_hit, i_hit, y_hit


# Brent's iterations before the bisection takes over (SciPy's default,
# 100, is too few for a gap evaluated on a long run's dense output, whose
# rounding near the root makes Brent's method creep)
_BRENT_ITERATIONS = 500


def find_root(function, a, b, args=()):
    """The root of ``function`` in ``[a, b]``, where it changes sign:
    SciPy's ``brentq`` to ``solve_ivp``'s tolerances (four rounding units)
    or, where that does not converge, bisection to adjacent floats (on the
    side of ``b``'s sign)."""
    root, info = brentq(function, a, b, xtol=4 * _EPS, rtol=4 * _EPS,
                        maxiter=_BRENT_ITERATIONS, args=args,
                        full_output=True, disp=False)
    if info.converged:
        return root
    fa = function(a, *args)
    while True:
        middle = 0.5 * (a + b)
        if middle in (a, b):
            return b
        value = function(middle, *args)
        if value == 0.0:
            return middle
        if (value > 0.0) == (fa > 0.0):
            a, fa = middle, value
        else:
            b = middle


_EPS = np.finfo(float).eps

_SOLVERS = {'RK23': RK23, 'RK45': RK45, 'DOP853': DOP853, 'Radau': Radau,
            'BDF': BDF, 'LSODA': LSODA}


def _ivp_with_impacts(fun, t_span, y0, method, t_eval, rtol, atol,
                      max_step, impacts, watch=None, **options):
    """``solve_ivp`` with each impact a terminal event (its gap crossing
    zero downwards), stepping SciPy's solver itself: the same steps, dense
    output, samples and event roots as ``solve_ivp``, and in addition the
    gaps that dip below zero inside a step and return (a contact that
    approaches at the step's start and leaves at its end, which
    ``solve_ivp``, looking at the step's ends only, misses): the gap of a
    contact that approaches at the step's start or leaves at its end is
    scanned on the dense output for the first time it is zero or below
    (:func:`_first_closing`), and the event's root is found before it.
    Forward in time only (impacts need it). With ``watch`` (a problem)
    the run stops at the first accepted step without an impact at which
    ``watch.change_due`` (the result's ``repartition``)."""
    t0, t1 = float(t_span[0]), float(t_span[1])
    y0 = np.asarray(y0, dtype=float)
    solver = _SOLVERS[method](fun, t0, y0, t1, rtol=rtol, atol=atol,
                              max_step=max_step, **options)
    k = len(impacts.impacts)

    def gap(t, y, i):
        return impacts.event_values(t, y)[0][i]

    def gap_and_speed(t, sol, i):
        values = impacts.event_values(t, sol(t))
        return values[0][i], values[1][i]

    g, speed = impacts.event_values(t0, y0)
    times, states = ([], []) if t_eval is not None else ([t0], [y0])
    i_eval = 0
    status, t_hit, i_hit, y_hit = None, None, None, None
    halt = None
    while status is None:
        if watch is not None:
            _tighten(solver, method, watch.tolerance_factor(
                solver.t, solver.y, rtol, atol), rtol, atol)
        message = solver.step()
        if solver.status == 'failed':
            status = -1
            break
        if solver.status == 'finished':
            status = 0
        t_old, t = solver.t_old, solver.t
        g_new, speed_new = impacts.event_values(t, solver.y)
        active = [i for i in range(k) if g[i] >= 0 and g_new[i] <= 0]
        closing = [i for i in range(k) if g[i] >= 0 and (
            g_new[i] <= 0 or speed[i] < 0 or speed_new[i] > 0)]
        sol = None
        if closing or (t_eval is not None and i_eval < t_eval.size
                       and t_eval[i_eval] <= t):
            sol = solver.dense_output()
        t_end = t
        if closing:
            # the first time a gap is found closed within the step (see
            # _numeric.dop853.first_closing): the end of the roots' bracket
            earliest = min(_first_closing(
                lambda s, i=i: gap_and_speed(s, sol, i), t_old, t,
                speed[i]) for i in closing)
            if earliest < t:
                g_end = impacts.event_values(earliest, sol(earliest))[0]
                closed = [i for i in range(k)
                          if g[i] >= 0 and g_end[i] <= 0]
                if closed:
                    t_end, active = earliest, closed
        if active:
            roots = [(find_root(lambda s, i=i: gap(s, sol(s), i), t_old,
                                t_end), i) for i in active]
            t_hit, i_hit = min(roots)
            y_hit = sol(t_hit)
            status = 1
            t = t_hit
        if t_eval is not None:
            stop = int(np.searchsorted(t_eval, t, side='right'))
            if stop > i_eval:
                chunk = t_eval[i_eval:stop]
                values = sol(chunk)
                times.extend(chunk.tolist())
                states.extend(values.T)
                i_eval = stop
        elif status == 1:
            times.append(t_hit)
            states.append(y_hit)
        else:
            times.append(t)
            states.append(solver.y.copy())
        g, speed = g_new, speed_new
        if status is None and watch is not None and watch.change_due(
                t, solver.y):
            halt, status = (t, solver.y.copy()), 0
    n = y0.size
    events = [np.array([t_hit]) if i == i_hit else np.zeros(0)
              for i in range(k)]
    y_events = [y_hit[None, :] if i == i_hit else np.zeros((0, n))
                for i in range(k)]
    messages = {0: 'The solver successfully reached the end of the '
                'integration interval.', 1: 'A termination event occurred.'}
    return Outcome(
        t=np.array(times, dtype=float),
        y=np.array(states, dtype=float).T.reshape(n, len(times)),
        t_events=events, y_events=y_events, success=status >= 0,
        status=status, message=messages.get(status, message),
        nfev=solver.nfev, njev=solver.njev, nlu=solver.nlu,
        repartition=halt)


def _first_closing(function, a, b, speed, points=SCAN_POINTS):
    """The first time in ``(a, b]`` found where a gap is zero or below
    (inf if none): ``function(t)`` gives the gap and its rate (the normal
    speed), ``speed`` the rate at ``a``. As the compiled stepping's
    :func:`._numeric.dop853.first_closing`: the gap at ``points`` equal
    parts of the step and, within a part where it falls at the start and
    rises at the end, its minimum (:func:`_dip_time`)."""
    left, rate = a, speed
    for j in range(1, points + 1):
        right = a + (b - a) * j / points if j < points else b
        value, rate_right = function(right)
        if not math.isfinite(value):
            break
        if value <= 0.0:
            return right
        if rate < 0.0 < rate_right:
            dip = _dip_time(lambda s: function(s)[0], left, right)
            if dip < math.inf:
                return dip
        left, rate = right, rate_right
    return math.inf


def _dip_time(function, a, b):
    """A time in ``(a, b)`` where ``function`` (a gap, positive at both
    ends and with one minimum between them) is zero or below, or inf:
    golden sections towards its minimum, stopping at the first value that
    is not positive (as the compiled stepping's
    :func:`._numeric.dop853.dip_theta`)."""
    ratio = INVERSE_PHI
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = function(c), function(d)
    for _ in range(DIP_ITERATIONS):
        if not (math.isfinite(fc) and math.isfinite(fd)):
            break
        if fc <= 0.0:
            return c
        if fd <= 0.0:
            return d
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = function(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = function(d)
    return math.inf


def _compiled_dop853(fun, t_span, y0, rtol, atol, max_step, problem=None):
    """The accepted steps of SciPy's compiled DOP853 (``scipy.integrate.ode``
    with ``'dop853'``), stopping at the first at which
    ``problem.change_due`` (the result's ``repartition``)."""
    t0, t1 = t_span
    times, states, errors = [], [], []
    due = []
    calls = [0]      # the driver's evaluations (its own count is private)

    failed = np.full(len(y0), np.nan)

    def rhs(t, y):
        # An error raised in the callback does not stop the compiled
        # driver reliably (with a step callback it may call again forever),
        # so it is kept and every later call returns NaN: each step is then
        # rejected until the step size underflows, within a few hundred
        # calls, and the error is raised after the driver returns.
        calls[0] += 1
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
        if errors:
            return -1
        if problem is not None and len(times) > 1 and problem.change_due(
                t, y):
            due.append((t, y.copy()))
            return -1
        return 0

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
        if _better_elsewhere(problem, times[-1], states[-1]):
            due.append((times[-1], states[-1].copy()))
        else:
            raise errors[0]
    if due:
        return Outcome(
            t=np.array(times), y=np.array(states).T.reshape(len(y0), -1),
            success=True, status=0, message='', nfev=calls[0], njev=0,
            nlu=0, repartition=due[0])
    code = solver.get_return_code()
    success = code > 0
    nfev = calls[0]
    message = ('The solver successfully reached the end of the '
               'integration interval.' if success else
               f'DOP853 (compiled) stopped at t = {solver.t:.10g}: '
               f'{_DOP853_MESSAGES.get(code, f"return code {code}")}')
    return Outcome(
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
    return Outcome(
        t=times[first:reached], y=y[first:reached].T, success=success,
        status=0 if success else -1,
        message=f"odeint (LSODA): {info['message']}",
        nfev=int(info['nfe'][-1]) if len(info['nfe']) else 0,
        njev=int(info['nje'][-1]) if len(info['nje']) else 0, nlu=0)
