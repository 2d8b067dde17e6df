"""The worker side of :func:`~sympy_loads.simulate_many`: pickling the
prepared :class:`~sympy_loads.Simulation` and the options once, and
running chunks of cases where the executor puts them (a worker process, a
thread or a Dask worker).

Private module: :mod:`sympy_loads.parameter_study` holds the public
functions and explains how the work is distributed.
"""

import collections
import dataclasses
import hashlib
import os
import pickle
import threading
import time

from .._errors import ConstraintSolverError, SimulationError

# A worker keeps this many prepared simulations (and option sets) per
# thread.
_WORKER_CACHE_SIZE = 4


# ---------------------------------------------------------------------------
# Serialization

def _dumps(obj, what, by_value=False):
    """``obj`` pickled for the workers: with :mod:`pickle` (fast), or with
    cloudpickle when ``by_value`` or when :mod:`pickle` cannot (a lambda,
    a function defined in a script: cloudpickle sends them by value)."""
    if not by_value:
        try:
            return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            pass
    try:
        import cloudpickle
    except ImportError:  # pragma: no cover - cloudpickle comes with Dask
        cloudpickle = None
    try:
        if cloudpickle is None:
            return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        return cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:
        raise TypeError(
            f'simulate_many: {what} cannot be sent to the executor\'s '
            f'workers: pickling failed with {type(error).__name__}: '
            f'{error}') from None


def _from_script(options):
    """True when an option holds a function or object defined in the
    script being run (``__main__``), which a worker cannot import."""
    stack = list(options.values())
    while stack:
        value = stack.pop()
        if hasattr(value, 'items'):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
        elif (getattr(value, '__module__', None) == '__main__'
              or type(value).__module__ == '__main__'):
            return True
    return False


def simulation_payload(simulation):
    """The pickled :class:`~sympy_loads.Simulation` and its token, made
    once per ``Simulation`` (kept with it, outside its own pickle): a study
    that follows another on the same prepared simulation sends the same
    bytes without pickling the model again. The pickle holds the model,
    its generated code and what the ``Simulation`` was prepared with (a
    joint friction refers to the model's joints, so it travels with the
    model)."""
    cached = getattr(simulation, '_pickle', None)
    if cached is None:
        data = _dumps(simulation, 'the model')
        cached = (data, hashlib.sha256(data).hexdigest())
        simulation._pickle = cached
    return cached


# ---------------------------------------------------------------------------
# The worker side

_LOCAL = threading.local()


def _worker_cache():
    cache = getattr(_LOCAL, 'cache', None)
    if cache is None:
        cache = _LOCAL.cache = collections.OrderedDict()
    return cache


def _cached_load(token, data):
    """``pickle.loads(data)``, once per thread for a given ``token``;
    returns ``(object, loaded_now)``."""
    cache = _worker_cache()
    if token in cache:
        cache.move_to_end(token)
        return cache[token], False
    value = pickle.loads(data)
    cache[token] = value
    while len(cache) > 2 * _WORKER_CACHE_SIZE:
        cache.popitem(last=False)
    return value, True


def _run_chunk(simulation_token, simulation_data, job_token, job, chunk,
               mark=None):
    """Run a chunk of cases where this is called (a worker, or a thread).

    ``simulation_data`` is the pickled :class:`~sympy_loads.Simulation`,
    unpickled once per worker thread. ``job`` holds the common arguments
    (the run's options among them): pickled (unpickled once per worker
    thread), or the dictionary itself on a thread of this process, which
    needs no copy. ``chunk`` is ``(indices, values, given)``: the case
    numbers, their values (one column per varied symbol) and which values
    each case gives. ``mark``, for a local process pool, is a file in
    which the number of the case about to run is written (``done`` at the
    end): if the worker dies, the study knows which case was running.
    Returns ``(records, info)``: one plain record per case and ``{'pid',
    'loaded', 'load_seconds'}``."""
    start = time.perf_counter()
    simulation, loaded = _cached_load(simulation_token, simulation_data)
    if isinstance(job, (bytes, bytearray)):
        job, _ = _cached_load(job_token, job)
    load_seconds = time.perf_counter() - start
    indices, values, given = chunk
    records = []
    for row, index in enumerate(indices):
        if mark is not None:
            _write_mark(mark, str(int(index)))
        initial, constants = _case_arguments(job, values[row], given[row])
        records.append((int(index), _run_case(
            simulation, job['t_span'], initial, constants, job['options'])))
    if mark is not None:
        _write_mark(mark, 'done')
    info = {'pid': os.getpid(), 'loaded': loaded,
            'load_seconds': load_seconds}
    return records, info


def _write_mark(path, text):
    with open(path, 'w') as file:
        file.write(text)


def _case_arguments(job, values, given):
    initial = dict(job['initial_conditions'])
    constants = dict(job['constants'])
    for key, is_state, value, present in zip(job['keys'], job['is_state'],
                                             values, given):
        if present:
            (initial if is_state else constants)[key] = float(value)
    return initial, constants


def _simulate_case(simulation, t_span, initial, constants, options):
    """One case: its :class:`SimulationResult`, the partial run of a
    :class:`SimulationError` that kept one (e.g. a restitution out of
    [0, 1] at an impact) with ``success=False`` and the error in
    ``message``, or ``{'error':
    message, 'argument': whether it is a TypeError or ValueError}``."""
    try:
        return simulation.run(t_span, initial, constants, **options)
    except SimulationError as error:
        if error.result is None:
            return {'error': _describe(error), 'argument': False}
        return dataclasses.replace(error.result, success=False,
                                   message=_describe(error))
    except Exception as error:   # one failing case loses nothing else
        return {'error': _describe(error), 'argument': isinstance(
            error, (TypeError, ValueError)) and not isinstance(
                error, ConstraintSolverError)}


def _run_case(simulation, t_span, initial, constants, options):
    """One case: a plain record of the result, or of the failure."""
    outcome = _simulate_case(simulation, t_span, initial, constants,
                             options)
    if isinstance(outcome, dict):
        return outcome
    return _record(outcome)


def _describe(error):
    return f'{type(error).__name__}: {error}'


def _record(result):
    """The fields of a :class:`SimulationResult` as plain values (the
    coordinates and speeds are restored by simulate_many)."""
    return {name: getattr(result, name)
            for name in result.__dataclass_fields__
            if name not in ('coordinates', 'speeds')}
