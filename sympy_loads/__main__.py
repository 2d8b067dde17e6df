"""The package's command line: ``python -m sympy_loads --compile``.

``--compile`` compiles the generic numba kernels of the compiled back end
ahead of time (what the first compiled run of an installation otherwise
does: :mod:`sympy_loads._numeric.kernel_set`), printing what it does on
standard error, one line per group of kernels; when they are already in
numba's cache it says so and compiles nothing. Run it once after
installing (for example in a Dockerfile or a CI set-up step), so that no
run waits for the compiler. ``NUMBA_CACHE_DIR`` chooses the cache
directory, as for every run.
"""

import argparse
import sys

__all__ = []


def compile_kernels(out=sys.stderr, jobs=None):
    """Compile the kernels that are not in numba's cache, reporting on
    ``out``, ``jobs`` groups at a time (default: two on a machine with
    two CPUs or more); returns the exit status (0, or 1 where the
    compiled back end cannot be used or nothing could be kept).

    Examples
    ========

    >>> import io
    >>> from sympy_loads.__main__ import compile_kernels
    >>> report = io.StringIO()
    >>> compile_kernels(report)
    0
    >>> 'sympy_loads: ' in report.getvalue()
    True
    """
    from ._numeric import compiled_available
    if not compiled_available():
        print('sympy_loads: SymEngine or numba cannot be imported: there is '
              'nothing to compile (the NumPy back end is used).', file=out)
        return 1
    from ._numeric import kernel_set

    def log(message, *args):
        print(message % args, file=out, flush=True)

    from ._numeric.kernel_cache import location
    where = location(kernel_set.groups()[0][1][0][0])
    with kernel_set.compile_lock(where, log):
        return _compile_missing(kernel_set, log, out, jobs)


def _compile_missing(kernel_set, log, out, jobs):
    """:func:`compile_kernels` holding the compilation lock."""
    todo = kernel_set.missing()
    if todo is None:
        print('sympy_loads: no trusted numba cache directory (set '
              'NUMBA_CACHE_DIR to a directory owned by you and writable by '
              'nobody else): kernels compiled now would not be kept.',
              file=out)
        return 1
    if not todo:
        print('sympy_loads: every numeric kernel is already compiled (in '
              'the numba cache); nothing to do.', file=out)
        return 0
    kernel_set.compile_all(todo, log=log, jobs=jobs)
    return 0


def main(argv=None):
    """Parse ``argv`` and run; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog='python -m sympy_loads',
        description='sympy_loads command line.')
    parser.add_argument('--compile', action='store_true',
                        help='compile the numba kernels of the compiled '
                             'back end now (once per installation), so '
                             'that no later run waits for them')
    parser.add_argument('--jobs', type=int, choices=(1, 2), default=None,
                        help='with --compile: 1 compiles in this process '
                             'only (less CPU time in all), 2 compiles the '
                             'stepping and the event location in a helper '
                             'process at the same time '
                             '(the default on two CPUs or more)')
    args = parser.parse_args(argv)
    if not args.compile:
        parser.print_help()
        return 0
    return compile_kernels(jobs=args.jobs)


if __name__ == '__main__':
    sys.exit(main())
