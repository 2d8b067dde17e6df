"""Private: the one generator and loader of the package's numeric code.

:mod:`sympy_loads.constraints` and :mod:`sympy_loads.simulation` both turn
SymPy matrices into plain Python functions that write each entry into an
array given by the caller, after common subexpression elimination, and then
compile them with numba. :func:`function_source` writes such a function and
:func:`load_module` turns generated source into a module (on disk, where
numba can cache the machine code, or in memory).

The two modules pass different printers on purpose: the constraint solver's
functions also run vectorized on NumPy arrays (the batch is the last axis),
so it prints with ``NumPyPrinter`` (``numpy.sin``, ``numpy.select`` for
``Piecewise``); simulate()'s functions run only on scalars inside numba, so
it prints with ``PythonCodePrinter`` (``math.sin``, a conditional expression
for ``Piecewise`` and ``sign``, which numba compiles and ``numpy.select``
on scalars it does not).
"""

import hashlib
import importlib.util
import os
import sys
import types

import sympy as sm

__all__ = []


def function_source(name, arguments, unpack, outputs, printer, *,
                    decorator=None, skip_zeros=False):
    """Return the source of ``def name(*arguments)`` that evaluates
    ``outputs`` after common subexpression elimination.

    ``outputs`` are pairs ``(target, expr)``, ``target`` a string such as
    ``'phi[0]'`` or ``'M[1, 2]'`` naming an array entry the caller
    allocates; with ``skip_zeros`` the identically zero ones are not
    written (the caller's array is zeroed). ``unpack`` are pairs ``(local,
    source)``: the line ``local = source`` is emitted for each local that
    the expressions use (``local`` a Symbol or its name). ``printer`` is a
    SymPy code printer (see the module documentation); ``decorator`` an
    optional line such as ``'@JIT'`` put before the ``def``.
    """
    outputs = [(target, sm.sympify(expr)) for target, expr in outputs]
    if skip_zeros:
        outputs = [(target, expr) for target, expr in outputs if expr != 0]
    exprs = [expr for _, expr in outputs]
    replacements, reduced = sm.cse(exprs, symbols=sm.numbered_symbols('_x'))
    used = {str(symbol) for expr in exprs for symbol in expr.free_symbols}
    lines = [decorator] if decorator else []
    lines.append(f'def {name}({", ".join(arguments)}):')
    lines += [f'    {local} = {source}' for local, source in unpack
              if str(local) in used]
    lines += [f'    {symbol} = {printer.doprint(expr)}'
              for symbol, expr in replacements]
    lines += [f'    {target} = {printer.doprint(expr)}'
              for (target, _), expr in zip(outputs, reduced)]
    lines.append('    return')
    return '\n'.join(lines) + '\n'


def cache_dir():
    """Directory for generated modules and numba's cache of their machine
    code: ``$SYMPY_LOADS_CACHE_DIR``, else ``$XDG_CACHE_HOME/sympy_loads``
    or ``~/.cache/sympy_loads``; None (no disk cache) when
    ``SYMPY_LOADS_CACHE_DIR`` is set to an empty string."""
    path = os.environ.get('SYMPY_LOADS_CACHE_DIR')
    if path is not None:
        return path or None
    base = os.environ.get('XDG_CACHE_HOME') or os.path.join(
        os.path.expanduser('~'), '.cache')
    return os.path.join(base, 'sympy_loads')


def load_module(source, prefix, *, disk_cache, versions=()):
    """Import the generated ``source`` as a module.

    numba can cache compiled machine code on disk only for functions
    defined in a file, so with ``disk_cache`` the source is written to
    :func:`cache_dir` under a name made from ``prefix`` and a hash of its
    text and ``versions`` (e.g. the numba and NumPy versions) and imported
    from there: a source that decorates with ``numba.njit(cache=CACHE)``
    is then compiled once per machine. Without ``disk_cache``, or without
    a writable directory, the source is executed in memory with ``CACHE =
    True`` replaced by ``CACHE = False``.
    """
    digest = hashlib.sha256('\n'.join([source, *versions]).encode())
    name = f'{prefix}_{digest.hexdigest()[:24]}'
    directory = cache_dir() if disk_cache else None
    if directory is not None:
        try:
            os.makedirs(directory, exist_ok=True)
            path = os.path.join(directory, name + '.py')
            if not os.path.exists(path):
                temporary = f'{path}.{os.getpid()}.tmp'
                with open(temporary, 'w', encoding='utf-8') as file:
                    file.write(source)
                os.replace(temporary, path)
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            # numba's cached code refers to its module by name
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
            return module
        except (OSError, ImportError):
            pass    # read-only or odd file system: compile in memory
    module = types.ModuleType(name)
    exec(compile(source.replace('CACHE = True', 'CACHE = False'),
                 f'<{name}>', 'exec'), module.__dict__)
    return module
