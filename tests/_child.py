"""Child Python processes for tests that need a fresh interpreter: a
first use of numba's cache (``NUMBA_CACHE_DIR`` set to a directory of the
test's own), or a run that must end within a time and memory limit (so
that a runaway fails as an assertion instead of hanging the session).
Children import this checkout's ``sympy_loads`` (``PYTHONPATH``)."""

import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def environment(cache=None):
    """The children's environment: this checkout first on the path and,
    with ``cache``, numba's cache directory there."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if cache is not None:
        env['NUMBA_CACHE_DIR'] = str(cache)
    return env


def code_command(code):
    """The command running the Python source ``code`` (dedented)."""
    return [sys.executable, '-c', textwrap.dedent(code)]


def _limits(memory):
    if memory is None:
        return None

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    return limit


def run(command, cache=None, timeout=900, memory=None):
    """Run ``command`` (see :func:`code_command`) to its end and return
    its ``CompletedProcess``; a non-zero exit status or a run longer than
    ``timeout`` seconds fails the test, and ``memory`` (bytes) limits its
    address space."""
    try:
        done = subprocess.run(command, cwd=ROOT, env=environment(cache),
                              capture_output=True, text=True,
                              timeout=timeout, preexec_fn=_limits(memory))
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f'the run did not end within {timeout} s') from None
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def start(command, cache=None):
    """Start ``command`` without waiting; :func:`finish` collects it."""
    return subprocess.Popen(command, cwd=ROOT, env=environment(cache),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(process, timeout=900):
    """``(stdout, stderr)`` of a :func:`start`-ed process, which must end
    within ``timeout`` seconds with exit status 0."""
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError(
            f'the run did not end within {timeout} s') from None
    assert process.returncode == 0, stderr[-3000:]
    return stdout, stderr


def last_json(stdout):
    """The JSON object on the last line of ``stdout``, or None."""
    lines = stdout.strip().splitlines()
    if lines and lines[-1].startswith('{'):
        return json.loads(lines[-1])
    return None
