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
does the same ahead of time. Processes that start together on an empty
cache compile once: the first takes a lock file in the cache directory
(:func:`compile_lock`), the others wait for it and then load. The time
announced is that of the last complete compilation into the same cache
directory where one was recorded (after an update of the package), else
the range measured on 2-core machines (:func:`expected`).

Where no trusted cache directory is usable (see :mod:`.kernel_cache`)
nothing is compiled ahead: the kernels are compiled in memory as each
run needs them, in every process.
"""

import contextlib
import json
import logging
import os
import time

__all__ = []

_LOG = logging.getLogger('sympy_loads')
# what the whole compilation takes on an idle 2-core machine, two groups at
# a time and in one process (seconds: the median of the wall times logged
# at a load average of about 1, see benchmarks/README.md), and how much
# longer it can take on a 2-core machine busy with other work (4.5 times,
# measured at a load average of 5 to 6): announced before a first
# compilation, in a cache directory without a record of an earlier one
EXPECTED = {2: 11, 1: 20}
BUSY_FACTOR = 5
# the files in the cache directory: the lock held while compiling, and
# the record of the last complete compilation (its wall time)
LOCK_FILE = 'sympy_loads-compile.lock'
RECORD_FILE = 'sympy_loads-compile-time.json'
# ensure_compiled() has run in this process
_ENSURED = []
# the first groups of groups() that the helper process compiles while
# this one compiles the others (about half of the CPU time each)
HELPER_GROUPS = 2

def groups():
    """``[(name, [(dispatcher, argument types), ...]), ...]``: every
    kernel that Python calls, with the argument types its callers pass,
    grouped as they are announced and compiled (the kernels they call are
    compiled with them, except those called by address: the right-hand
    side's, the stepping's and the impacts' calls, see
    :func:`.jit.native_caller`, and the calls of Newton-Raphson by the
    constraint solver and the constraint correction, which are entries
    of their own). The first ``HELPER_GROUPS`` groups, the stepping and
    the event location (which share the dense output), take about half of
    the time: they are compiled beside the others (:func:`compile_all`),
    so that each kernel is compiled in one process only: Newton-Raphson
    and its QR solve in the constraint solves' group, called by address
    from the right-hand side's (:func:`.rhs.correct`), and the impact's
    jump (:func:`.jump.impact_jump`), called by address from the event
    location (:func:`.dop853.strike`), with the right-hand side, whose
    velocity solve (:func:`.rhs.speed_basis`) it shares. Only the small
    dense LU solves are compiled in both."""
    from numba import types
    from . import dop853, jump, newton, rhs
    V, M, Ix = types.float64[::1], types.float64[:, ::1], types.int64[::1]
    f, i, b = types.float64, types.int64, types.boolean
    return [
        ('DOP853 stepping', [
            (dop853.advance, (V, V, V, V, V, M, V, Ix, Ix, V, M, V, V, V,
                              M, M, M, V, V, V, Ix, V, V, V, V, V, M))]),
        ('impacts: event location and dense output', [
            (dop853.strike, dop853.STRIKE_TYPES),
            (dop853.event_value, (f, i, V, M, V, V, V, Ix, Ix, V, Ix, V, V,
                                  V)),
            (dop853.dense, (M, V, f, V)),
            (dop853.samples_until, (M, V, f, f, f, f, V, i, V, M, i))]),
        ('constraint solves (Newton-Raphson, velocities, accelerations)', [
            (newton.newton, newton.NEWTON_TYPES),
            (newton.newton_packed, (Ix, V, Ix, V)),
            (newton.newton_batch, (Ix, M, Ix, i, f, f, i)),
            (newton.rates, (i, i, V, i, i, Ix, Ix, V, b, V, V, Ix)),
            (newton.rates_batch, (i, i, M, i, i, Ix, Ix, M, b))]),
        ('right-hand side of the equations of motion', [
            (rhs.correct, rhs.CORRECT_TYPES),
            (rhs.rhs_packed, (f, V, V, Ix, Ix, V, V)),
            (rhs.inputs_packed, (f, V, V, Ix, Ix, V)),
            (rhs.derivatives, (V, Ix, Ix, Ix, i, V)),
            (rhs.states, (M, M, Ix, Ix, Ix, V, b, M, Ix))]),
        ('impacts: the speeds\' jump', [
            (jump.impact_jump, jump.IMPACT_JUMP_TYPES)]),
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


# the helper process imports only the kernels' modules: a bare package
# object stands for sympy_loads (argv[1] is its directory), so that the
# package's __init__ (SymPy and the whole library, about 1 s on the
# compilation's critical path) does not run; the modules of _numeric
# import nothing else of the package
_CHILD = """
import sys, types
package = types.ModuleType('sympy_loads')
package.__path__ = [sys.argv[1]]
sys.modules['sympy_loads'] = package
from sympy_loads._numeric import kernel_set
kernel_set._child(sys.argv[2:])
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
    """Compile the stepping's and the event location's groups (the first
    ``HELPER_GROUPS`` of
    :func:`groups`, where both processes have some left; else the first
    of ``todo``) in a helper process while this process compiles the
    others: numba compiles under a lock held
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
    first = {name for name, _ in groups()[:HELPER_GROUPS]}
    helper_groups = [group for group in todo if group[0] in first]
    here = [group for group in todo if group[0] not in first]
    if not helper_groups or not here:
        helper_groups, here = todo[:1], todo[1:]
    counter = [0]
    lock = threading.Lock()

    def logged(*args):
        with lock:
            counter[0] += 1
            log(args[0], counter[0], total, *args[1:])

    try:
        helper = subprocess.Popen(
            [sys.executable, '-c', _CHILD,
             os.path.join(package_root, 'sympy_loads')]
            + [n for n, _ in helper_groups],
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


def _lock_file(fd, wait):
    """Take the exclusive lock of the open file ``fd`` (waiting for it
    where ``wait``); False where another process holds it and ``wait`` is
    false. The system releases the lock when its process ends, however
    it ends, so no lock outlives its holder."""
    try:
        import fcntl
    except ImportError:        # Windows
        import msvcrt
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return True
            except OSError:
                if not wait:
                    return False
                time.sleep(0.2)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def compile_lock(directory, log=_LOG.warning):
    """Hold the compilation lock of the cache ``directory`` (the file
    ``LOCK_FILE`` in it) for the ``with`` block, so that processes
    starting together on an empty cache (two Python sessions, the workers
    of a parameter study) compile the kernels once: the others wait,
    saying so through ``log``, and then find every kernel in the cache.
    Yields the seconds waited. Without a directory (no trusted cache) or
    where the file cannot be opened, nothing is locked."""
    fd = None
    if directory is not None:
        try:
            fd = os.open(os.path.join(directory, LOCK_FILE),
                         os.O_RDWR | os.O_CREAT
                         | getattr(os, 'O_NOFOLLOW', 0), 0o600)
        except OSError:
            fd = None
    start = time.perf_counter()
    try:
        if fd is not None and not _lock_file(fd, wait=False):
            log('sympy_loads: another process is compiling the numeric '
                'kernels into %s; waiting for it', directory)
            _lock_file(fd, wait=True)
        yield time.perf_counter() - start
    finally:
        if fd is not None:
            os.close(fd)        # releases the lock


def recorded_seconds(directory, jobs):
    """The wall time of the last complete compilation into the cache
    ``directory`` (its ``RECORD_FILE``) with as many ``jobs`` (1, or 2 for
    two or more), or None where there is none."""
    if directory is None:
        return None
    try:
        with open(os.path.join(directory, RECORD_FILE)) as file:
            record = json.load(file)
        seconds = float(record['seconds'])
        same = int(record['jobs']) == min(jobs, 2)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return seconds if same and 0.0 < seconds < 86400.0 else None


def record_seconds(directory, seconds, jobs):
    """Keep ``seconds`` as the wall time of a complete compilation with
    ``jobs`` groups at a time in the cache ``directory`` (written whole,
    then renamed into place)."""
    if directory is None:
        return
    path = os.path.join(directory, RECORD_FILE)
    temporary = f'{path}.{os.getpid()}'
    try:
        with open(temporary, 'w') as file:
            json.dump({'seconds': round(seconds, 1),
                       'jobs': min(jobs, 2)}, file)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def expected(directory, jobs):
    """The announcement's time to expect: ``(low, high, why)`` in seconds,
    from the record of the last complete compilation into ``directory``
    where there is one (the kernels are compiled again there after an
    update of the package), else the figures measured on an idle 2-core
    machine (``EXPECTED``, for ``jobs`` groups at a time) to
    ``BUSY_FACTOR`` times them."""
    last = recorded_seconds(directory, jobs)
    if last is not None:
        return (last, last, 'as long as the last compilation into this '
                            'cache directory')
    low = EXPECTED[2 if jobs > 1 else 1]
    return (low, BUSY_FACTOR * low, 'from an idle to a busy 2-core '
                                    'machine')


def compile_all(todo=None, log=_LOG.warning, jobs=None):
    """Compile (or load) the entries of ``todo`` (default: every entry of
    :func:`groups`), logging the announcement, one line per group and the
    time taken through ``log``; with ``jobs`` (default: 2 where the
    machine has two CPUs or more) above 1 the stepping's and the event
    location's groups are compiled in a helper process at the same time
    (:func:`_compile_parallel`). A compilation of every
    group records its wall time in the cache directory, announced as the
    time to expect at the next one there (:func:`expected`). Returns the
    seconds taken. The caller holds :func:`compile_lock`."""
    from .kernel_cache import location
    todo = groups() if todo is None else todo
    count = sum(len(entries) for _, entries in todo)
    where = location(todo[0][1][0][0]) if todo else None
    if jobs is None:
        jobs = 2 if (os.cpu_count() or 1) >= 2 else 1
    low, high, why = expected(where, jobs)
    if len(todo) < len(groups()):       # a part: scaled by its kernels
        share = count / sum(len(entries) for _, entries in groups())
        low, high = low * share, high * share
    span = f'about {low:.0f} s' if high == low else \
        f'{low:.0f}-{high:.0f} s'
    log('sympy_loads: compiling the numeric kernels once for this '
        'installation (%d kernels in %d group%s%s): %s %s; later runs '
        'load them from the cache%s', count, len(todo),
        's' if len(todo) > 1 else '',
        ', two at a time' if jobs > 1 and len(todo) > 1 else '',
        span, why, f' in {where}' if where else '')
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
    if len(todo) == len(groups()):
        record_seconds(where, seconds, jobs)
    return seconds


def ensure_compiled():
    """Compile every kernel a run may need where one of them is not yet
    in numba's cache (see the module documentation); once per process.
    Where another process is compiling them into the same cache, waits
    for it (:func:`compile_lock`) and compiles only what it left out.
    Returns the seconds spent compiling or waiting (0.0 when everything
    was cached)."""
    if _ENSURED:
        return 0.0
    _ENSURED.append(True)
    todo = missing()
    if not todo:
        return 0.0
    from .kernel_cache import location
    with compile_lock(location(todo[0][1][0][0])) as waited:
        todo = missing()        # what another process has not compiled
        return waited + (compile_all(todo) if todo else 0.0)
