"""Every generic kernel with the argument types a run calls it with, and
the one place that compiles them all on an installation's first use.

The kernels (:mod:`.newton`, :mod:`.rhs`, :mod:`.dop853`) are the same
for every model and every kind of run: every caller passes arrays of the
same types (C-contiguous float64 and int64 vectors and matrices, Python
ints, floats and bools), with or without constraints, feedback or
impacts. So one compilation serves every later run, whatever the model.
:func:`ensure_compiled`, called before the first compiled constraint
solve or simulation of a process, reads numba's cache index
(:func:`.kernel_cache.has_entry`); where an entry is missing it says so
on the ``sympy_loads`` logger (a warning, which Python prints on standard
error unless logging is configured otherwise) with the time to expect,
compiles every kernel of :func:`groups`, one log line per group, and
says how long it took. Later processes find every entry and compile
nothing. ``python -m sympy_loads --compile`` (:mod:`sympy_loads.__main__`)
does the same ahead of time.

Where no trusted cache directory is usable (see :mod:`.kernel_cache`)
nothing is compiled ahead: the kernels are compiled in memory as each
run needs them, in every process.
"""

import logging
import os
import time

__all__ = []

_LOG = logging.getLogger('sympy_loads')
# what the whole compilation takes on an idle 2-core machine (seconds,
# measured with benchmarks/bench_first_use.py): announced before it starts
EXPECTED = 30
# ensure_compiled() has run in this process
_ENSURED = []


def groups():
    """``[(name, [(dispatcher, argument types), ...]), ...]``: every
    kernel that Python calls, with the argument types its callers pass,
    grouped as they are announced and compiled (the kernels they call are
    compiled with them). The first group, the stepping, takes about half
    of the time: it is compiled beside the others (:func:`compile_all`)."""
    from numba import types
    from . import dop853, newton, rhs
    V, M, Ix = types.float64[::1], types.float64[:, ::1], types.int64[::1]
    f, i, b = types.float64, types.int64, types.boolean
    return [
        ('DOP853 stepping with impacts', [
            (dop853.advance, (V, V, V, V, V, M, V, Ix, Ix, V, M, V, V, V,
                              M, M, M, V, V, V, Ix, V, V, V, V, V, M))]),
        ('right-hand side of the equations of motion', [
            (rhs.rhs_packed, (f, V, V, Ix, Ix, V, V)),
            (rhs.inputs_packed, (f, V, V, Ix, Ix, V)),
            (rhs.derivatives, (V, Ix, Ix, Ix, i, V)),
            (rhs.states, (M, M, Ix, Ix, Ix, V, b, M, Ix))]),
        ('constraint solves (Newton-Raphson, velocities, accelerations)', [
            (newton.newton_packed, (Ix, V, Ix, V)),
            (newton.newton_batch, (i, i, M, Ix, i, f, f, i)),
            (newton.rates, (i, i, V, i, i, Ix, Ix, V, b, V, V, Ix)),
            (newton.rates_batch, (i, i, M, i, i, Ix, Ix, M, b))]),
        ('event location and dense output', [
            (dop853.event_value, (f, i, V, M, V, V, V, Ix, Ix, V, Ix, V, V,
                                  V)),
            (dop853.dense, (M, V, f, V)),
            (dop853.samples_until, (M, V, f, f, f, f, V, i, V, M, i))]),
    ]


def missing():
    """The entries of :func:`groups` not in numba's cache, as
    ``[(group name, [(dispatcher, types), ...]), ...]`` (groups with none
    missing left out); None where the cache cannot be read (then nothing
    is compiled ahead)."""
    from .kernel_cache import has_entry
    result = []
    for name, entries in groups():
        absent = []
        for dispatcher, signature in entries:
            found = has_entry(dispatcher, signature)
            if found is None:
                return None
            if not found:
                absent.append((dispatcher, signature))
        if absent:
            result.append((name, absent))
    return result


def _compile_here(todo, log, number, total):
    """Compile the groups ``todo`` in this process, one log line each."""
    for name, entries in todo:
        mark = time.perf_counter()
        for dispatcher, signature in entries:
            dispatcher.compile(signature)
        number += 1
        log('sympy_loads: [%d/%d] %s: %.1f s', number, total, name,
            time.perf_counter() - mark)
    return number


_CHILD = """
import sys
from sympy_loads._numeric import kernel_set
kernel_set._child(sys.argv[1:])
"""


def _child(names):
    """A helper process of :func:`_compile_parallel`: compile the groups
    ``names`` (into the shared cache), printing ``<seconds> <name>`` as
    each ends."""
    chosen = [group for group in groups() if group[0] in names]
    for name, entries in chosen:
        mark = time.perf_counter()
        for dispatcher, signature in entries:
            dispatcher.compile(signature)
        print(f'{time.perf_counter() - mark:.3f} {name}', flush=True)


def _compile_parallel(todo, log, total):
    """Compile the stepping's group (the first) in a helper process while
    this process compiles the others: numba compiles under a lock held
    by the process, so threads would not overlap, but two processes
    writing different entries into one cache directory do. Returns the
    number of groups logged; groups the helper could not compile are
    left to the caller (its :func:`missing` finds them)."""
    import subprocess
    import sys
    import threading
    from numba.core import config
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [package_root] + [p for p in [os.environ.get('PYTHONPATH')] if p]))
    if config.CACHE_DIR:
        env['NUMBA_CACHE_DIR'] = str(config.CACHE_DIR)
    helper_groups, here = todo[:1], todo[1:]
    counter = [0]
    lock = threading.Lock()

    def logged(*args):
        with lock:
            counter[0] += 1
            log(args[0], counter[0], total, *args[1:])

    try:
        helper = subprocess.Popen(
            [sys.executable, '-c', _CHILD] + [n for n, _ in helper_groups],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True)
    except OSError:
        return 0

    def read():
        for line in helper.stdout:
            seconds, _, name = line.strip().partition(' ')
            logged('sympy_loads: [%d/%d] %s: %.1f s', name, float(seconds))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        for name, entries in here:
            mark = time.perf_counter()
            for dispatcher, signature in entries:
                dispatcher.compile(signature)
            logged('sympy_loads: [%d/%d] %s: %.1f s', name,
                   time.perf_counter() - mark)
    except BaseException:      # e.g. KeyboardInterrupt: stop the helper
        helper.kill()
        raise
    finally:
        helper.wait()
        reader.join()
    return counter[0]


def compile_all(todo=None, log=_LOG.warning, jobs=None):
    """Compile (or load) the entries of ``todo`` (default: every entry of
    :func:`groups`), logging the announcement, one line per group and the
    time taken through ``log``; with ``jobs`` (default: 2 where the
    machine has two CPUs or more) above 1 the stepping's group is
    compiled in a helper process at the same time. Returns the seconds
    taken."""
    from .kernel_cache import location
    todo = groups() if todo is None else todo
    count = sum(len(entries) for _, entries in todo)
    where = location(todo[0][1][0][0]) if todo else None
    if jobs is None:
        jobs = 2 if (os.cpu_count() or 1) >= 2 else 1
    log('sympy_loads: compiling the numeric kernels once for this '
        'installation (%d kernels in %d groups%s): about %d s on an idle '
        '2-core machine, longer on a busy one; later runs load them from '
        'the cache%s', count, len(todo),
        ', two at a time' if jobs > 1 and len(todo) > 1 else '',
        EXPECTED, f' in {where}' if where else '')
    start = time.perf_counter()
    done = 0
    if jobs > 1 and len(todo) > 1:
        done = _compile_parallel(todo, log, len(todo))
        rest = missing() or []
    else:
        rest = todo
    if rest:
        _compile_here(rest, log, done, max(len(todo), done + len(rest)))
    seconds = time.perf_counter() - start
    log('sympy_loads: compiled the numeric kernels in %.1f s', seconds)
    return seconds


def ensure_compiled():
    """Compile every kernel a run may need where one of them is not yet
    in numba's cache (see the module documentation); once per process.
    Returns the seconds spent compiling (0.0 when everything was
    cached)."""
    if _ENSURED:
        return 0.0
    _ENSURED.append(True)
    todo = missing()
    if not todo:
        return 0.0
    return compile_all(todo)
