"""numba's part of the compiled back end: the decorator of the generic
kernels, the intrinsic through which they call a generated function, and
the intrinsics through which the DOP853 stepping calls other kernels by
address (:func:`native_caller`).

The generic kernels (Newton-Raphson, velocity and acceleration solves, the
right-hand side, dense solves) are the same for every model. They are
compiled by numba once per installation (the machine code is kept on disk
in ``$NUMBA_CACHE_DIR``, ``__pycache__`` beside this package or numba's
user-wide cache directory, checked and authenticated by
:mod:`.kernel_cache`) and receive each model's SymEngine-compiled functions as
an address and a data pointer at run time, so a new model compiles nothing
here. Importing this module needs numba; the package then uses the NumPy
back end.
"""

from llvmlite import ir
from numba import njit, typeof, types
from numba.core import cgutils
from numba.extending import intrinsic

import warnings

try:
    from .kernel_cache import CheckedFunctionCache, warn_uncached
except ImportError as error:     # numba's caching internals have moved
    CheckedFunctionCache = warn_uncached = None
    _CACHE_PROBLEM = f'{type(error).__name__}: {error}'

__all__ = []

_compile = njit(nogil=True, error_model='numpy')
_compile_plain_cache = njit(nogil=True, error_model='numpy', cache=True)
_warned = []


def _plain_cache(function, problem):
    """``function`` compiled with numba's own ``cache=True``: the fallback
    where the checked cache cannot be set up on this numba (its internals,
    tested on numba 0.62 - 0.68, changed); warns once per process."""
    if not _warned:
        _warned.append(problem)
        import numba
        warnings.warn(
            f'sympy_loads: the checked kernel cache does not work with '
            f'numba {numba.__version__} ({problem}); using numba\'s own '
            f'on-disk cache instead.', RuntimeWarning, stacklevel=3)
    return _compile_plain_cache(function)


def jit(function):
    """The decorator of every generic kernel: ``numba.njit`` with the
    checked on-disk cache of :mod:`.kernel_cache` in place of numba's own
    ``cache=True`` (trusted directories only, sealed files, damaged entries
    rebuilt). Without a usable cache directory the kernel is compiled in
    memory in each process. Where a numba release has changed the
    internals that cache builds on, numba's own ``cache=True`` serves, with
    one ``RuntimeWarning``."""
    if CheckedFunctionCache is None:
        return _plain_cache(function, _CACHE_PROBLEM)
    dispatcher = _compile(function)
    try:
        # what numba's Dispatcher.enable_caching() does, with our class
        dispatcher._cache = CheckedFunctionCache(dispatcher.py_func)
    except RuntimeError:     # numba: no usable cache location
        warn_uncached(function.__name__)
    except (AttributeError, TypeError, ValueError) as error:
        # numba's FunctionCache or its locators changed shape
        return _plain_cache(function, f'{type(error).__name__}: {error}')
    return dispatcher


def inline(function):
    """The decorator of a kernel's helper that is only called from other
    kernels: its numba IR is inlined into each caller before compilation
    (``njit(inline='always')``), so it is not compiled, linked and
    optimized again as a function of its own. That matters for helpers
    that evaluate the right-hand side: every compiled function containing
    it costs seconds on an installation's first use."""
    return njit(nogil=True, error_model='numpy', inline='always')(function)


def entry_point(dispatcher, *args):
    """The compiled function of ``dispatcher`` for the types of ``args``,
    loaded (or compiled) now, to be called later without the dispatcher's
    type resolution: about 0.1-0.4 us of a 2-4 us single Newton solve or
    right-hand side. ``Dispatcher.compile(signature)`` returns it (numba's
    CPython-callable wrapper of the machine code). It does not check its
    arguments, so it is only for calls on the same work arrays (same
    dtypes, dimensions and layouts) as ``args``. Where numba cannot give
    it, the dispatcher itself is returned (its calls check and report)."""
    try:
        return dispatcher.compile(tuple(typeof(arg) for arg in args))
    except Exception:      # e.g. a typing error: the dispatcher reports it
        return dispatcher


@intrinsic
def call(typingctx, address, data, out, x):
    """``call(address, data, out, x)``: run the generated function
    ``void f(double *out, const double *in, void *data)`` at ``address``
    (an int) with the data pointer ``data`` (an int, from SymEngine's
    ``as_ctypes()``; it must not be NULL) on the contiguous float64
    arrays ``out`` and ``x``."""
    signature = types.void(address, data, out, x)

    def codegen(context, builder, sig, args):
        pointers = []
        for ty, value in zip(sig.args[2:], args[2:]):
            pointers.append(cgutils.create_struct_proxy(ty)(
                context, builder, value=value).data)
        double_ptr = ir.DoubleType().as_pointer()
        byte_ptr = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(),
                               [double_ptr, double_ptr, byte_ptr])
        function = builder.inttoptr(args[0], fnty.as_pointer())
        user_data = builder.inttoptr(args[1], byte_ptr)
        builder.call(function, [builder.bitcast(pointers[0], double_ptr),
                                builder.bitcast(pointers[1], double_ptr),
                                user_data])
        return context.get_dummy_value()

    return signature, codegen


def native_caller(argument_types, return_type=types.int64):
    """An intrinsic ``call_native(address, args)`` that calls the compiled
    kernel at ``address`` (its C wrapper, :func:`native_address`) with the
    tuple ``args``, whose types must be ``argument_types``, and returns
    its result, of type ``return_type`` (an int64 status code, or a
    float64).

    A kernel that calls another kernel directly has numba link the
    callee's machine code into its own and optimize the whole chain again:
    the DOP853 stepping, which calls the right-hand side (Newton-Raphson,
    the velocity and acceleration solves), took half of an installation's
    first compilation that way. Called by address, the callee is compiled
    once, by itself, and the caller compiles on its own (in another
    process at the same time, :mod:`.kernel_set`); the address is passed
    at run time, so the caller's cached machine code holds no address. A
    call costs an indirect jump, nothing next to an evaluation of the
    right-hand side."""
    expected = tuple(argument_types)

    @intrinsic
    def call_native(typingctx, address, args):
        if not isinstance(address, types.Integer) or \
                not isinstance(args, types.BaseTuple):
            return None
        if tuple(args.types) != expected:
            from numba.core.errors import TypingError
            raise TypingError(f'call_native: arguments {args.types}, '
                              f'expected {expected}')
        signature = return_type(address, args)

        def codegen(context, builder, sig, llargs):
            values = [builder.extract_value(llargs[1], k)
                      for k in range(len(expected))]
            fnty = ir.FunctionType(
                context.get_value_type(return_type),
                [context.get_value_type(t) for t in expected])
            function = builder.inttoptr(llargs[0], fnty.as_pointer())
            return builder.call(function, values)

        return signature, codegen

    return call_native


def native_address(dispatcher, argument_types, return_type=types.int64):
    """The address of the C wrapper of ``dispatcher``'s compiled code for
    ``argument_types`` (loaded from the cache, or compiled, now), for the
    intrinsics of :func:`native_caller`. The kernel must return
    ``return_type``: checked here, since the caller's code cannot check
    it."""
    signature = tuple(argument_types)
    dispatcher.compile(signature)
    result = dispatcher.overloads[signature]
    if result.signature.return_type != return_type:
        raise TypeError(f'{dispatcher.py_func.__name__} returns '
                        f'{result.signature.return_type}, not {return_type}')
    return result.library.get_pointer_to_function(
        result.fndesc.llvm_cfunc_wrapper_name)
