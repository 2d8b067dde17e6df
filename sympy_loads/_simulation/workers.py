"""The worker side of :func:`~sympy_loads.simulate_many`: pickling the
prepared model and the options once, and running chunks of cases where the
executor puts them (a worker process, a thread or a Dask worker).

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
import weakref

from ..simulation import SimulationError, simulate
from .. import simulation as _simulation

# Options of simulate() that refer to the model's own objects (a joint
# friction holds a joint of the model, whose points and frames must be
# those of the worker's copy of the model): they are pickled with the model.
_BOUND_OPTIONS = ('joint_friction',)

# A worker keeps this many prepared models (and option sets) per thread.
_WORKER_CACHE_SIZE = 4
# Constraint solvers a worker keeps per model beyond those it was sent
# (simulate() builds one per set of values of the constraints' constants).
_WORKER_SOLVERS = 8


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


def _prepared_state(kane, constants):
    """The numeric models and constraint solvers that :func:`simulate`
    has cached for ``kane``, to be pickled with it: all numeric models, and
    the solvers built for the values of ``constants`` (at most four)."""
    # snapshots: another thread's simulate() may add to the caches
    models = dict(list(_simulation._CACHE.get(kane, {}).items()))
    solvers = {}
    for key, solver in list(_simulation._SOLVERS.get(kane, {}).items()):
        values = getattr(solver, 'constants', {})
        if all(constants.get(s, v) == v for s, v in values.items()):
            solvers[key] = solver
    return models, dict(list(solvers.items())[-4:])


# kane -> (weak reference to the model, the numeric models and solvers
# pickled, the pickle, its token): a study that follows another on the same
# prepared model sends the same bytes without pickling the SymPy model again
_PAYLOADS = weakref.WeakKeyDictionary()


def _split_options(options):
    """``options`` without the options bound to the model's objects, and
    those (see ``_BOUND_OPTIONS``)."""
    bound = {name: options[name] for name in _BOUND_OPTIONS
             if options.get(name) is not None}
    rest = {name: value for name, value in options.items()
            if name not in bound}
    return rest, bound


def _model_payload(model, kane, models, solvers, bound=None):
    """The pickled ``(model, kane, models, solvers, bound)`` and its token,
    reused while ``model``, the numeric models and solvers cached for
    ``kane`` and the ``bound`` options (a joint friction, pickled with the
    model so that it refers to the same copy of its joints and bodies) are
    the same objects and no numeric model has generated more output
    functions since (a new model, code generated for new constants or new
    outputs, or a new solver makes a new pickle)."""
    bound = dict(bound or {})
    items = []
    for name, value in bound.items():
        value = [value] if hasattr(value, 'prepare') else list(value)
        items.extend(((name, i), item, 0) for i, item in enumerate(value))
    parts = ([(key, nm, getattr(nm, 'generated', 0))
              for key, nm in models.items()],
             [(key, solver, 0) for key, solver in solvers.items()],
             items)
    entry = _PAYLOADS.get(kane)
    if (entry is not None and entry[0]() is model
            and _same_items(entry[1], parts)):
        return entry[2], entry[3]
    data = _dumps((model, kane, models, solvers, bound), 'the model')
    token = hashlib.sha256(data).hexdigest()
    try:
        reference = weakref.ref(model)
    except TypeError:      # pragma: no cover - a model without weak refs
        return data, token
    _PAYLOADS[kane] = (reference, parts, data, token)
    return data, token


def _same_items(old, new):
    """True when two ``(models, solvers)`` lists of ``(key, object,
    number of output functions)`` hold the same keys, the very same
    objects and the same numbers."""
    return len(old) == len(new) and all(len(a) == len(b) and all(
        ka == kb and va is vb and na == nb
        for (ka, va, na), (kb, vb, nb) in zip(a, b))
        for a, b in zip(old, new))


def _install_prepared_state(kane, models, solvers):
    """Put an unpickled model's numeric models and solvers into the caches
    of :func:`simulate`, which then reuses them."""
    _simulation._CACHE.setdefault(kane, {}).update(models)
    _simulation._SOLVERS.setdefault(kane, {}).update(solvers)


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


def _run_chunk(model_token, model_data, job_token, job, chunk, mark=None):
    """Run a chunk of cases where this is called (a worker, or a thread).

    ``model_data`` is the pickled ``(model, kane, numeric models, solvers,
    bound options)``, unpickled once per worker thread. ``job`` holds the
    common arguments: pickled (unpickled once per worker thread), or the
    dictionary itself on a thread of this process, which needs no copy.
    ``chunk`` is ``(indices, values, given)``: the case numbers, their
    values (one column per varied symbol) and which values each case gives.
    ``mark``, for a local process pool, is a file in which the number of
    the case about to run is written (``done`` at the end): if the worker
    dies, the study knows which case was running. Returns ``(records,
    info)``: one plain record per case and ``{'pid', 'loaded',
    'load_seconds'}``."""
    start = time.perf_counter()
    prepared, loaded = _cached_load(model_token, model_data)
    model, kane, models, solvers = prepared[:4]
    bound = prepared[4] if len(prepared) > 4 else {}
    if loaded:
        _install_prepared_state(kane, models, solvers)
    if isinstance(job, (bytes, bytearray)):
        job, _ = _cached_load(job_token, job)
    options = dict(job['options'], **bound)
    load_seconds = time.perf_counter() - start
    indices, values, given = chunk
    records = []
    for row, index in enumerate(indices):
        if mark is not None:
            _write_mark(mark, str(int(index)))
        initial, constants = _case_arguments(job, values[row], given[row])
        records.append((int(index), _run_case(
            model, job['t_span'], initial, constants, options)))
        _prune_solvers(kane, solvers)
    if mark is not None:
        _write_mark(mark, 'done')
    info = {'pid': os.getpid(), 'loaded': loaded,
            'load_seconds': load_seconds}
    return records, info


def _write_mark(path, text):
    with open(path, 'w') as file:
        file.write(text)


def _prune_solvers(kane, kept):
    """Bound the constraint solvers a long-running worker accumulates when
    the cases vary the constants of the constraints."""
    per_model = _simulation._SOLVERS.get(kane)
    if per_model is None or len(per_model) <= len(kept) + _WORKER_SOLVERS:
        return
    extra = [key for key in per_model if key not in kept]
    for key in extra[:len(extra) - _WORKER_SOLVERS]:
        del per_model[key]


def _case_arguments(job, values, given):
    initial = dict(job['initial_conditions'])
    constants = dict(job['constants'])
    for key, is_state, value, present in zip(job['keys'], job['is_state'],
                                             values, given):
        if present:
            (initial if is_state else constants)[key] = float(value)
    return initial, constants


def _simulate_case(model, t_span, initial, constants, options):
    """One case: its :class:`SimulationResult`, the partial run of a
    :class:`SimulationError` that kept one (impacts that accumulate) with
    ``success=False`` and the error in ``message``, or ``{'error':
    message}``."""
    try:
        return simulate(model, t_span, initial, constants, **options)
    except SimulationError as error:
        if getattr(error, 'result', None) is None:
            return {'error': _describe(error)}
        return dataclasses.replace(error.result, success=False,
                                   message=_describe(error))
    except Exception as error:   # one failing case loses nothing else
        return {'error': _describe(error)}


def _run_case(model, t_span, initial, constants, options):
    """One case: a plain record of the result, or of the failure."""
    outcome = _simulate_case(model, t_span, initial, constants, options)
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
