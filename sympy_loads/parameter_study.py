r"""Parameter studies: one model simulated for many cases, serially or on any
:class:`concurrent.futures.Executor`.

A parameter study sweeps a design parameter, runs Monte Carlo over
tolerances or maps stability against speed: the same model with other
initial conditions or constants, many times. :func:`simulate_many` runs
the cases of such a study with :func:`~sympy_loads.simulate`, in this
process or on an executor: a local ``ProcessPoolExecutor``, Dask's
``distributed.Client(...).get_executor()`` for a cluster, mpi4py's
``MPIPoolExecutor``. :func:`results_table` turns the results into one
table (a ``pandas.DataFrame``) with a row per case.

How the work is distributed
===========================

The symbolic derivation is done once, in this process: the study prepares
a :class:`~sympy_loads.Simulation` of the model (or takes the one given),
whose numeric code is generated once per model, and checks every argument
against it without running anything, so that argument errors are raised
before any work is sent. Then the cases are cut into chunks of consecutive
cases, and each chunk is sent with

* the prepared ``Simulation``, pickled once per ``Simulation`` (a study
  that follows another on the same ``Simulation`` sends the same bytes):
  the ``KanesMethod`` (or ``System``) with its numeric model, constraint
  solver, outputs, impacts and joint friction, whose generated functions
  pickle as their expressions plus the LLVM machine code
  (a worker on the same kind of processor loads that code as it is and
  gives bit-identical results; any other compiles the expressions again,
  in milliseconds to a second, and agrees to rounding);
* the options common to all cases, and the case values as one array.

A worker keeps the prepared simulations of the last studies it has seen (per
thread), so it is unpickled once per worker, not once per chunk or case,
and it never repeats the SymPy derivation. Each case's result comes back
as plain arrays and is rebuilt into a :class:`~sympy_loads.SimulationResult`
here. Pickling uses the standard :mod:`pickle`; options that it cannot
send, or that were defined in the script being run (a ``lambda`` or a
function of the script as a ``specified`` input), are sent with
``cloudpickle`` (installed with Dask), which sends them by value. A
``joint_friction`` refers to the model's joints and bodies; it belongs to
the ``Simulation``, so it is pickled with the model. A ``ThreadPoolExecutor`` runs in this process: its
threads get the options as they are (a callable holding a lock is fine),
and each thread still loads its own copy of the prepared model.

A worker process that dies (a crash in compiled code, the out-of-memory
killer) breaks a ``ProcessPoolExecutor`` and every case it had not
finished. Each chunk writes the number of the case it starts in a small
file, so the study knows which cases were running: the unfinished cases
run again on a fresh ``ProcessPoolExecutor`` with the same workers, start
method and initializer, the cases that were running first and each alone,
and only a case that kills its worker there fails, with a message that
names it.

Why the speed-up grows with the number of workers: a study of :math:`n`
cases of :math:`T` seconds each on :math:`N` workers takes about
:math:`n T / N` plus, per worker, one load of the prepared model (a fraction
of a second) and, per chunk, one round trip to the executor (milliseconds).
The cases share nothing, so as long as :math:`n T` is large against
:math:`N` times those overheads the speed-up is close to :math:`N`;
``benchmarks/bench_parameter_study.py`` measures it.
"""

import concurrent.futures
import hashlib
import inspect
import math
import numbers
import os
import shutil
import tempfile

import numpy as np
import sympy as sm
from sympy.core.function import AppliedUndef

from ._errors import MissingValuesError
from .simulation import Simulation, SimulationResult, _check_run_options
from ._simulation.workers import (_case_arguments, _describe, _dumps,
                                  _from_script, _run_chunk, _simulate_case,
                                  simulation_payload)

__all__ = ['simulate_many', 'results_table']


# ---------------------------------------------------------------------------
# Checking the arguments

#: The options of :class:`~sympy_loads.Simulation` (fixed when it is made);
#: the other keywords of :func:`simulate` are options of each run.
_PREPARED = ('outputs', 'impacts', 'joint_friction', 'backend',
             'constraint_options')


def _prepare(model, options):
    """The :class:`~sympy_loads.Simulation` of the study and the options of
    its runs: ``model`` itself when it is one (a construction option given
    again here is a TypeError), else one made with the construction options
    among ``options`` (its code is generated once per model and kept, as
    for :func:`simulate`)."""
    prepared = {name: options[name] for name in _PREPARED if name in options}
    run_options = {name: value for name, value in options.items()
                   if name not in prepared}
    if isinstance(model, Simulation):
        if prepared:
            raise TypeError(f'simulate_many(): {sorted(prepared)} belong to '
                            f'the Simulation given as the model; give them '
                            f'to Simulation(), not here.')
        return model, run_options
    return Simulation(model, **prepared), run_options


def _check_run(simulation, t_span, run_options):
    """Every run option checked as :meth:`Simulation.run` checks it (an
    unknown keyword is a TypeError, as for a function call)."""
    try:
        inspect.signature(simulation.run).bind(t_span, {}, {},
                                               **run_options)
    except TypeError as error:
        raise TypeError(f'simulate_many(): {error}') from None
    defaults = {name: parameter.default for name, parameter in
                inspect.signature(simulation.run).parameters.items()
                if parameter.kind is inspect.Parameter.KEYWORD_ONLY}
    options = dict(defaults, **run_options)
    options.pop('specified')
    _check_run_options(t_span, options,
                       impacts=simulation.options['impacts'])


def _check_cases(cases):
    if isinstance(cases, (str, bytes)) or hasattr(cases, 'items'):
        raise TypeError(f'cases must be a sequence of mappings '
                        f'{{symbol: value}}, not {type(cases).__name__}.')
    try:
        cases = list(cases)
    except TypeError:
        raise TypeError(f'cases must be a sequence of mappings '
                        f'{{symbol: value}}, not {type(cases).__name__}.'
                        ) from None
    for i, case in enumerate(cases):
        if not hasattr(case, 'items'):
            raise TypeError(f'cases[{i}] must be a mapping {{symbol: '
                            f'value}}, not {type(case).__name__} {case!r}.')
    return cases


def _case_value(i, key, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (numbers.Real, np.floating, np.integer)):
        if not (isinstance(value, sm.Expr) and value.is_number
                and value.is_real):
            raise TypeError(f'cases[{i}][{key}] must be a real number, not '
                            f'{type(value).__name__} {value!r}.')
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f'cases[{i}][{key}] must be finite, got '
                         f'{value!r}.')
    return number


def _initial_mapping(kane, initial_conditions):
    """``initial_conditions`` as a mapping (an array is ``[q, u]``)."""
    if hasattr(initial_conditions, 'items'):
        return dict(initial_conditions)
    states = list(kane.q) + list(kane.u)
    try:
        values = np.asarray(initial_conditions, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            'initial_conditions must be a mapping from coordinates and '
            'speeds to numbers, or an array of [q, u] in model order.'
        ) from None
    if values.shape != (len(states),):
        raise ValueError(
            f'initial_conditions must have shape ({len(states)},) (the '
            f'coordinates then the speeds in model order), got shape '
            f'{values.shape}.')
    return dict(zip(states, values.tolist()))


def _classify(kane, cases):
    """The varied symbols in order of first appearance, whether each is a
    coordinate or speed, and the values array with its mask."""
    states = set(kane.q) | set(kane.u)
    keys, is_state, column = [], [], {}
    for i, case in enumerate(cases):
        for key in case:
            if key in column:
                continue
            if key in states:
                state = True
            elif isinstance(key, sm.Symbol):
                state = False
            elif isinstance(key, AppliedUndef):
                raise ValueError(
                    f'cases[{i}]: {key} is not a coordinate or speed of the '
                    f'model; the coordinates and speeds are '
                    f'{[str(s) for s in list(kane.q) + list(kane.u)]} '
                    f'(a specified input is given with specified=, the same '
                    f'for every case).')
            else:
                raise ValueError(
                    f'cases[{i}]: the key {key!r} is neither a coordinate, '
                    f'a speed nor a constant (a SymPy Symbol) of the model.')
            column[key] = len(keys)
            keys.append(key)
            is_state.append(state)
    values = np.zeros((len(cases), len(keys)))
    given = np.zeros((len(cases), len(keys)), dtype=bool)
    for i, case in enumerate(cases):
        for key, value in case.items():
            j = column[key]
            values[i, j] = _case_value(i, key, value)
            given[i, j] = True
    return keys, is_state, values, given


#: The parameters of a JointFriction (its public attributes) whose symbols
#: a case may vary.
_FRICTION_PARAMETERS = ('coefficient', 'radius', 'end_coefficient',
                        'end_radius', 'alpha', 'preload', 'regularization')


def _check_same_symbols(keys, is_state, constants):
    """A varied constant must be the very symbol that ``constants`` (or
    another case) gives under its name: simulate() matches constants by
    name only where one symbol has that name, so a case's
    ``Symbol('k', positive=True)`` beside the shared ``Symbol('k')`` would
    be ignored and every case would run with the shared value."""
    symbols = {}
    for key in list(constants) + [k for k, state in zip(keys, is_state)
                                  if not state]:
        if isinstance(key, sm.Symbol):
            symbols.setdefault(key.name, []).append(key)
    for key, state in zip(keys, is_state):
        if state:
            continue
        others = [s for s in symbols[key.name] if s != key]
        if others:
            where = ('constants' if any(s in constants for s in others)
                     else 'another case')
            raise ValueError(
                f'cases: the constant {sm.srepr(key)} has the name of '
                f'{sm.srepr(others[0])} in {where} but other assumptions, '
                f'so it would not replace it; use the same symbol in the '
                f'cases and in constants.')


def _check_constant_keys(simulation, keys, is_state, constants):
    """Each varied constant must be a key of ``constants`` or a constant of
    the model, its outputs or impacts, or its joint friction (matched by
    name, as :meth:`Simulation.run` does)."""
    names = {getattr(k, 'name', None) for k in constants}
    names |= {s.name for s in simulation.constants}
    # the parameters of joint friction (a coefficient, a radius, ...)
    friction = simulation.options['joint_friction'] or ()
    for item in [friction] if hasattr(friction, 'prepare') else friction:
        for name in _FRICTION_PARAMETERS:
            value = getattr(item, name, None)
            if isinstance(value, sm.Basic):
                names |= {s.name for s in value.free_symbols
                          if isinstance(s, sm.Symbol)}
    unknown = [k for k, state in zip(keys, is_state)
               if not state and k.name not in names]
    if unknown:
        raise ValueError(
            f'cases: {sorted(map(str, unknown))} are neither coordinates, '
            f'speeds nor constants of the model (nor keys of constants).')


def _check_values(simulation, job, values, given):
    """A case that lacks a constant, a specified input or an initial
    condition is an error of the study, raised before any case runs: the
    first case of each distinct set of varied symbols is checked (which
    keys a case gives, not its values, decides it). Nothing is run."""
    t0 = float(job['t_span'][0])
    specified = job['options'].get('specified')
    seen = set()
    for i in range(len(values)):
        pattern = given[i].tobytes()
        if pattern in seen:
            continue
        seen.add(pattern)
        initial, constants = _case_arguments(job, values[i], given[i])
        try:
            simulation._values(initial, constants, specified, t0)
        except MissingValuesError as error:
            if i == 0:
                raise
            raise MissingValuesError(f'cases[{i}]: {error}') from None


def _raise_if_all_failed(records):
    """Raise the argument error (TypeError or ValueError) that every case
    failed with: then it is the study's, not one case's."""
    first = records[0] if records else None
    if not (isinstance(first, dict) and first.get('argument')):
        return
    if all(isinstance(record, dict) and record.get('argument')
           for record in records):
        kind = (TypeError if first['error'].startswith('TypeError')
                else ValueError)
        raise kind(f'simulate_many(): every case failed; cases[0]: '
                   f'{first["error"]}')


def _progress_bar(progress, total):
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        raise ImportError(
            'simulate_many(progress=True) needs tqdm: pip install tqdm (or '
            'the extra sympy_loads[studies]).') from None
    bar = tqdm(total=total, desc='simulate_many', unit='case')
    bar.set_postfix(failures=0)
    return bar


def _default_chunksize(n, executor):
    workers = (_pool_settings(executor)['max_workers'] or os.cpu_count()
               or 1)
    return max(1, math.ceil(n / (4 * workers)))


# ---------------------------------------------------------------------------
# Results

def _failure(kane, message, constants, backend):
    """The result of a case that failed."""
    nq, nu = len(kane.q), len(kane.u)
    return SimulationResult(
        t=np.empty(0), q=np.empty((0, nq)), u=np.empty((0, nu)),
        constraint_residual=np.empty(0), velocity_residual=np.empty(0),
        outputs={}, success=False, status=-1, message=message, nfev=0,
        njev=0, nlu=0, q_names=tuple(s.name for s in kane.q),
        u_names=tuple(s.name for s in kane.u),
        coordinates=tuple(kane.q), speeds=tuple(kane.u),
        constants=tuple(constants.items()), backend=backend)


def simulate_many(model, t_span, initial_conditions, constants, cases, *,
                  executor=None, progress=False, chunksize=None,
                  **simulate_options):
    r"""Simulate ``model`` once per case, serially or on an executor.

    Explanation
    ===========

    Each case is a mapping ``{symbol: value}`` whose entries replace those
    of ``initial_conditions`` (for coordinates and speeds of the model) or
    of ``constants`` (for constants); everything else is the same for
    every case: ``t_span`` and the keywords of :func:`simulate`
    (``t_eval``, ``method``, ``outputs``, ...). The result is a list of
    :class:`SimulationResult`, one per case, in the order of ``cases``.

    A case that cannot be assembled or fails during the integration does
    not stop the study: its slot holds a result with ``success=False`` and
    the error in ``message`` (and no samples, except a run stopped by a
    :class:`SimulationError` that keeps its run, such as a contact that
    cannot be resolved or a restitution outside [0, 1] at an impact: it
    keeps the samples and impacts up to that time, the ``result`` of the
    error). Argument errors, the
    same for every case, are raised before any case runs, without running
    anything: the model is prepared once, here (a
    :class:`~sympy_loads.Simulation`: its numeric code is generated or
    found), every option is checked as :meth:`Simulation.run` checks it,
    and a case that lacks a constant, a specified input or an initial
    condition is an argument error of the study. A TypeError or ValueError
    of one case only (a start that penetrates an impact's plane, a
    restitution above 1 from the case's constants) fails that case's slot;
    it is raised after the study only when every case fails with one.

    ``executor=None`` runs the cases one after the other in this process.
    Any :class:`concurrent.futures.Executor` runs them there instead, in
    chunks of ``chunksize`` consecutive cases: ``ProcessPoolExecutor``,
    ``ThreadPoolExecutor``, Dask's ``Client(...).get_executor()`` or
    mpi4py's ``MPIPoolExecutor``. Each worker receives the pickled
    :class:`~sympy_loads.Simulation` (the model with its numeric code, not
    the SymPy derivation) and loads it once; see the module documentation. With the default back end on workers with the
    same kind of processor, the results are bit-identical to the serial
    ones. A ``ThreadPoolExecutor`` gets the options without pickling. When
    a worker process of a ``ProcessPoolExecutor`` dies, the cases it had
    not finished run again on a fresh pool like it (the pool passed stays
    broken: a later study on it runs on a fresh pool too); only the case
    that kills its worker fails, and its message names it.

    Examples
    ========

    A pendulum of length ``r`` as a point on a circle (``x`` independent,
    ``y`` dependent), released at three values of ``x``; the middle one
    lies outside the circle, so the mechanism cannot be assembled:

    >>> import numpy as np
    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import simulate_many
    >>> x, y, ux, uy = me.dynamicsymbols('x y u_x u_y')
    >>> g, r = sm.symbols('g r')
    >>> N = me.ReferenceFrame('N')
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', x*N.x + y*N.y)
    >>> P.set_vel(N, ux*N.x + uy*N.y)
    >>> kane = me.KanesMethod(
    ...     N, [x], [ux], kd_eqs=[x.diff() - ux, y.diff() - uy],
    ...     q_dependent=[y], u_dependent=[uy],
    ...     configuration_constraints=[x**2 + y**2 - r**2],
    ...     velocity_constraints=[x*ux + y*uy])
    >>> _ = kane.kanes_equations([me.Particle('p', P, 1)], [(P, -g*N.y)])
    >>> cases = [{x: 0.2}, {x: 1.5}, {x: 0.6, g: 1.62}]
    >>> results = simulate_many(kane, (0, 1), {x: 0.0, y: -1.0, ux: 0.0},
    ...                         {g: 9.81, r: 1.0}, cases)
    >>> [res.success for res in results]
    [True, False, True]
    >>> print(results[1].message)
    ConstraintSolverError: ...
    >>> print(np.round(results[0].q[0], 6))      # y solved for x = 0.2
    [ 0.2      -0.979796]

    The same study on two threads (or processes: any executor) gives the
    same numbers:

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as pool:
    ...     parallel = simulate_many(
    ...         kane, (0, 1), {x: 0.0, y: -1.0, ux: 0.0}, {g: 9.81, r: 1.0},
    ...         cases, executor=pool)
    >>> all(np.array_equal(a.y, b.y) for a, b in zip(results, parallel))
    True

    A ball dropped from 1 m on a floor, for three coefficients of
    restitution: with ``e = 0.3`` the impacts accumulate before 1.5 s and
    the ball comes to rest on the floor (the contact closes, see
    ``result.contacts``):

    >>> from sympy_loads import Impact
    >>> h, vh, e = *me.dynamicsymbols('h v_h'), sm.Symbol('e')
    >>> B = O.locatenew('B', h*N.y); B.set_vel(N, vh*N.y)
    >>> drop = me.KanesMethod(N, [h], [vh], kd_eqs=[h.diff() - vh])
    >>> _ = drop.kanes_equations([me.Particle('b', B, 1)], [(B, -g*N.y)])
    >>> floor = Impact(B, O, N.y, N, restitution=e)
    >>> sweep = simulate_many(drop, (0, 1.5), {h: 1.0, vh: 0.0}, {g: 9.81},
    ...                       [{e: 0.3}, {e: 0.6}, {e: 0.9}],
    ...                       impacts=[floor])
    >>> [res.success for res in sweep], [len(res.contacts) for res in sweep]
    ([True, True, True], [1, 0, 0])
    >>> print(round(sweep[0].contacts[0].start, 2))
    0.84

    (the bounces of ``e = 0.3`` end at :math:`\sqrt{2h/g}\,(1 + 2e/(1 -
    e))` = 0.8385 s).

    Parameters
    ==========

    model : KanesMethod, System or Simulation
        As for :func:`simulate`, or a :class:`~sympy_loads.Simulation`
        prepared with the options that do not change between runs
        (``outputs``, ``impacts``, ``joint_friction``, ``backend``,
        ``constraint_options``), which are then not given here.
    t_span : (float, float)
        Start and end time, the same for every case.
    initial_conditions : mapping or array_like
        The initial conditions shared by the cases (as for
        :func:`simulate`); a case may give the missing ones.
    constants : mapping
        The constants shared by the cases; a case may give the missing
        ones.
    cases : sequence of mappings
        ``{symbol: number}`` per case. A key must be a coordinate or speed
        of the model, or a constant (a key of ``constants``, a constant of
        the equations of motion, of ``outputs``, of the impacts or of the
        joint friction). Constants are matched by name, as in
        :func:`simulate`, so a case's constant must be the very symbol that
        ``constants`` gives under its name: ``Symbol('k', positive=True)``
        beside a shared ``Symbol('k')`` is refused.
    executor : concurrent.futures.Executor, optional
        Where the cases run (default: serially, here). The workers must be
        able to import ``sympy_loads``.
    progress : bool, optional
        Show a progress bar (tqdm) with the cases done, the failures and
        the estimated time left.
    chunksize : int, optional
        Cases per task sent to the executor; default: about four tasks per
        worker (``executor._max_workers``, else the number of processors
        here). With a large cluster, give it (for example ``n_cases /
        (4 * n_workers)``).
    **simulate_options
        Keywords of :func:`simulate`, the same for every case.

    Returns
    =======

    list of SimulationResult
        In the order of ``cases``. A failed case has ``success=False``,
        ``status=-1``, the exception's type and text in ``message`` and no
        samples (but the samples up to the stop for a
        :class:`SimulationError` that keeps its run).

    Raises
    ======

    TypeError, ValueError
        Any argument error of :func:`simulate`; ``cases`` not a sequence of
        mappings, a key that is not a coordinate, speed or constant of the
        model, a value that is not a finite real number, a constant named
        like another symbol of ``constants`` or of another case; a case
        without an initial condition or constant it needs; an error that
        every case raises; options that cannot be pickled for the
        executor's workers (other than threads).
    ImportError
        ``progress=True`` without tqdm.

    See Also
    ========

    results_table : the results as one table, a row per case.
    """
    simulation, run_options = _prepare(model, simulate_options)
    kane = simulation._kane
    cases = _check_cases(cases)
    if executor is not None and not callable(getattr(executor, 'submit',
                                                     None)):
        raise TypeError(f'executor must be a concurrent.futures.Executor '
                        f'(with a submit method), not '
                        f'{type(executor).__name__} {executor!r}.')
    if chunksize is not None and (isinstance(chunksize, bool) or not
                                  isinstance(chunksize, numbers.Integral)
                                  or chunksize < 1):
        raise ValueError(f'chunksize must be a positive int, got '
                         f'{chunksize!r}.')
    _check_run(simulation, t_span, run_options)
    initial = _initial_mapping(kane, initial_conditions)
    if constants is None:
        constants = {}
    if not hasattr(constants, 'items'):
        raise TypeError(f'constants must be a mapping from SymPy symbols to '
                        f'numbers, not {type(constants).__name__}.')
    constants = dict(constants)
    keys, is_state, values, given = _classify(kane, cases)
    _check_same_symbols(keys, is_state, constants)
    _check_constant_keys(simulation, keys, is_state, constants)
    if not cases:
        return []
    job = {'t_span': t_span, 'initial_conditions': initial,
           'constants': constants, 'keys': keys, 'is_state': is_state,
           'options': run_options}
    _check_values(simulation, job, values, given)
    bar = _progress_bar(progress, len(cases))
    try:
        if executor is None:
            records = _run_serial(simulation, job, values, given, bar)
        else:
            records = _run_parallel(simulation, job, values, given,
                                    executor, chunksize, bar)
    finally:
        if bar is not None:
            bar.close()
    _raise_if_all_failed(records)
    results = []
    for i, record in enumerate(records):
        if isinstance(record, SimulationResult):
            results.append(record)
        elif 'error' in record:
            _, case_constants = _case_arguments(job, values[i], given[i])
            results.append(_failure(kane, record['error'], case_constants,
                                    simulation.backend))
        else:
            results.append(SimulationResult(
                coordinates=tuple(kane.q), speeds=tuple(kane.u), **record))
    return results


def _failed(record):
    if isinstance(record, SimulationResult):
        return not record.success
    return 'error' in record or not record['success']


def _update(bar, done, failures):
    if bar is not None:
        bar.update(done)
        bar.set_postfix(failures=failures)


def _run_serial(simulation, job, values, given, bar):
    records, failures = [], 0
    for i in range(len(values)):
        initial, constants = _case_arguments(job, values[i], given[i])
        record = _simulate_case(simulation, job['t_span'], initial,
                                constants, job['options'])
        failures += _failed(record)
        records.append(record)
        _update(bar, 1, failures)
    return records


def _run_parallel(simulation, job, values, given, executor, chunksize,
                  bar):
    n = len(values)
    model_data, model_token = simulation_payload(simulation)
    if isinstance(executor, concurrent.futures.ThreadPoolExecutor):
        # threads share this process: the options need no pickling (the
        # simulation is still copied, once per thread, so that no two
        # threads run the same generated functions' buffers)
        job_data, job_token = job, None
    else:
        job_data = _dumps(job, 'the options',
                          by_value=_from_script(job['options']))
        job_token = hashlib.sha256(job_data).hexdigest()
    size = chunksize or _default_chunksize(n, executor)
    # a dead worker process breaks a ProcessPoolExecutor: the cases that
    # did not finish are run again on a fresh pool like it, and the case
    # each worker was running (written in a file per chunk) is run alone
    # there to find the one that kills its worker
    recover = isinstance(executor, concurrent.futures.ProcessPoolExecutor)
    marks = tempfile.mkdtemp(prefix='sympy_loads_study_') if recover \
        else None
    records = [None] * n
    failures = 0
    submitted = 0

    def store(chunk_records):
        nonlocal failures
        for index, record in chunk_records:
            records[index] = record
            failures += _failed(record)
        _update(bar, len(chunk_records), failures)

    def run_round(pool, pieces):
        """Run ``pieces`` (``(start, stop)``) on ``pool``; returns those
        lost with the pool, as ``(start, stop, mark, error, sent)``."""
        nonlocal submitted
        futures, lost = {}, []
        try:
            for start, stop in pieces:
                chunk = (np.arange(start, stop), values[start:stop],
                         given[start:stop])
                args = (model_token, model_data, job_token, job_data, chunk)
                mark = None
                if recover:
                    mark = os.path.join(marks, str(submitted))
                    args += (mark,)
                submitted += 1
                try:
                    future = pool.submit(_run_chunk, *args)
                except concurrent.futures.BrokenExecutor as error:
                    if not recover:
                        raise
                    lost.append((start, stop, None, error, False))
                    continue
                futures[future] = (start, stop, mark)
            for future in concurrent.futures.as_completed(futures):
                start, stop, mark = futures[future]
                try:
                    chunk_records, _ = future.result()
                except Exception as error:    # the worker itself failed
                    if recover and isinstance(
                            error, concurrent.futures.BrokenExecutor):
                        lost.append((start, stop, mark, error, True))
                        continue
                    message = f'the worker failed: {_describe(error)}'
                    chunk_records = [(i, {'error': message})
                                     for i in range(start, stop)]
                store(chunk_records)
        finally:
            for future in futures:
                future.cancel()
        return lost

    pools = []
    try:
        pool = executor
        pieces = [(start, min(n, start + size))
                  for start in range(0, n, size)]
        while pieces:
            lost = run_round(pool, pieces)
            if lost and not pools and not any(sent for *_, sent in lost):
                # the pool was broken before the study: nothing ran there
                pool = _fresh_pool(executor)
                pools.append(pool)
                pieces = [(start, stop) for start, stop, *_ in lost]
                continue
            pieces, running = [], []
            for start, stop, mark, error, _ in lost:
                index = _read_mark(mark)
                if index is None:        # it had not started, or finished
                    pieces.append((start, stop))
                    continue
                running.append((index, error))
                pieces += [piece for piece in ((start, index),
                                               (index + 1, stop))
                           if piece[0] < piece[1]]
            if lost and not running:
                # the pool broke outside any case (loading the model):
                # running the cases again would break the next pool too
                for start, stop, _, error, _ in lost:
                    message = f'the worker failed: {_describe(error)}'
                    store([(i, {'error': message})
                           for i in range(start, stop)])
                break
            if running:
                pool = _fresh_pool(executor)
                pools.append(pool)
            for index, error in sorted(running):
                if run_round(pool, [(index, index + 1)]):
                    store([(index, {'error': (
                        f'the worker process died while running '
                        f'cases[{index}] ({_describe(error)})')})])
                    pool = _fresh_pool(executor)
                    pools.append(pool)
        return records
    finally:
        for pool in pools:
            pool.shutdown(wait=True, cancel_futures=True)
        if marks is not None:
            shutil.rmtree(marks, ignore_errors=True)


def _read_mark(mark):
    """The case a chunk was running when its worker died (None when it had
    not started or had finished)."""
    if mark is None:
        return None
    try:
        with open(mark) as file:
            text = file.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _pool_settings(executor):
    """The constructor's arguments of an executor (``max_workers``, and for
    a ``ProcessPoolExecutor`` its start method, initializer and tasks per
    child), None where unknown. The one place that reads them: they are
    private attributes of ``concurrent.futures``' executors (under these
    names since Python 3.7; ``_max_tasks_per_child`` since 3.11)."""
    options = {'max_workers': getattr(executor, '_max_workers', None),
               'mp_context': getattr(executor, '_mp_context', None),
               'initializer': getattr(executor, '_initializer', None),
               'initargs': getattr(executor, '_initargs', ())}
    tasks = getattr(executor, '_max_tasks_per_child', None)
    if tasks is not None:
        options['max_tasks_per_child'] = tasks
    return options


def _fresh_pool(executor):
    """A new ``ProcessPoolExecutor`` with the workers, start method and
    initializer of ``executor``, which a dead worker has broken."""
    return concurrent.futures.ProcessPoolExecutor(**_pool_settings(executor))


def results_table(results, cases=None, *, outputs=None):
    r"""The results of a parameter study as a table, one row per case.

    Explanation
    ===========

    Returns a ``pandas.DataFrame`` (pandas is an optional dependency: ``pip
    install pandas`` or ``sympy_loads[studies]``) whose index is the case
    number and whose columns are, in order:

    * the values each case gave (from ``cases``), under the symbol's name
      for a constant and the name followed by ``_0`` for an initial
      condition (``u3_0``);
    * ``success``, ``message`` and ``t_final`` (the last time reached);
    * the coordinates and speeds at the last sample, under their names;
    * the outputs at the last sample (a column-matrix output ``F`` gives the
      columns ``F[0]``, ``F[1]``, ...).

    A case without samples (one that failed) has NaN in the last two
    groups. A sweep is then plotted in one line, e.g.
    ``results_table(results, cases).plot(x='k', y='energy')``.

    Examples
    ========

    A mass on a spring of three stiffnesses, started at :math:`x = 0.1`,
    for one second: :math:`x(1) = 0.1 \cos(\sqrt{k/m})` and the energy stays
    :math:`k\, x(0)^2/2`:

    >>> import numpy as np
    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import simulate_many, results_table
    >>> x, v = me.dynamicsymbols('x v')
    >>> m, k = sm.symbols('m k')
    >>> N = me.ReferenceFrame('N')
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', x*N.x); P.set_vel(N, v*N.x)
    >>> kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v])
    >>> _ = kane.kanes_equations([me.Particle('p', P, m)],
    ...                          [(P, -k*x*N.x)])
    >>> cases = [{k: 2.0}, {k: 4.0}, {k: 8.0}]
    >>> results = simulate_many(kane, (0, 1), {x: 0.1, v: 0.0},
    ...                         {m: 1.0}, cases,
    ...                         outputs={'energy': v**2/2 + k*x**2/2})
    >>> table = results_table(results, cases)
    >>> list(table.columns)
    ['k', 'success', 'message', 't_final', 'x', 'v', 'energy']
    >>> print(table[['k', 'x', 'energy']].round(6))
            k         x  energy
    case
    0     2.0  0.015594    0.01
    1     4.0 -0.041615    0.02
    2     8.0 -0.095136    0.04

    Parameters
    ==========

    results : sequence of SimulationResult
        From :func:`simulate_many` (or any list of results of one model).
    cases : sequence of mappings, optional
        The cases of the study, for the first columns.
    outputs : sequence of str, optional
        The outputs to include (default: all of them).

    Returns
    =======

    pandas.DataFrame
    """
    try:
        import pandas as pd
    except ImportError:
        raise ImportError('results_table() needs pandas: pip install pandas '
                          '(or the extra sympy_loads[studies]).') from None
    results = list(results)
    for i, result in enumerate(results):
        if not isinstance(result, SimulationResult):
            raise TypeError(f'results[{i}] must be a SimulationResult, not '
                            f'{type(result).__name__}.')
    if cases is not None:
        cases = _check_cases(cases)
        if len(cases) != len(results):
            raise ValueError(f'cases has {len(cases)} entries for '
                             f'{len(results)} results.')
    # the shape of each output, from a result that has samples
    widths = {}
    for result in results:
        for name, value in result.outputs.items():
            value = np.asarray(value)
            widths.setdefault(name, None if value.ndim == 1
                              else value.shape[1])
    if outputs is None:
        chosen = list(widths)
    else:
        chosen = [outputs] if isinstance(outputs, str) else list(outputs)
        unknown = [name for name in chosen if name not in widths]
        if unknown:
            raise ValueError(f'outputs: {unknown} are not outputs of the '
                             f'results; they have {list(widths)}.')
    # the case columns, in order of first appearance
    columns = {}
    for case in (cases or ()):
        for key in case:
            name = getattr(key, 'name', str(key))
            columns.setdefault(key, name + '_0' if isinstance(
                key, AppliedUndef) else name)
    rows = []
    for i, result in enumerate(results):
        row = {name: float(cases[i][key]) if key in cases[i] else np.nan
               for key, name in columns.items()}
        if any(name in row for name in ('success', 'message', 't_final')):
            raise ValueError('cases: a symbol named success, message or '
                             't_final clashes with the columns of the '
                             'table; rename it.')
        row['success'] = bool(result.success)
        row['message'] = result.message
        has = len(result.t) > 0
        row['t_final'] = float(result.t[-1]) if has else np.nan
        final = {}
        for names, values in ((result.q_names, result.q),
                              (result.u_names, result.u)):
            for j, name in enumerate(names):
                final[name] = float(values[-1, j]) if has else np.nan
        for name in chosen:
            width = widths[name]
            value = np.asarray(result.outputs[name]) if (
                has and name in result.outputs) else None
            if width is None:
                final[name] = float(value[-1]) if value is not None \
                    else np.nan
            else:
                for j in range(width):
                    final[f'{name}[{j}]'] = (float(value[-1, j]) if value
                                             is not None else np.nan)
        clash = sorted(set(final) & set(row))
        if clash:
            raise ValueError(f'the columns {clash} of the cases clash with '
                             f'the final states or outputs; rename them.')
        row.update(final)
        rows.append(row)
    table = pd.DataFrame(rows, index=pd.RangeIndex(len(rows), name='case'))
    return table
