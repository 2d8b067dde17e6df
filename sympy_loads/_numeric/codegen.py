"""Model-specific numeric functions, generated once per model.

Every generated function has one calling convention, whichever back end
made it: a flat float64 input vector ``x`` (the caller owns its layout)
and a flat float64 output vector of ``n_out`` entries. Two back ends:

``'llvm'``
    SymEngine's ``Lambdify(..., backend='llvm', cse=True)`` compiles the
    expressions to machine code in milliseconds. ``address`` and
    ``data`` are the C function ``void f(double *out, const double *in,
    void *data)`` and the ``data`` pointer it needs (from
    ``Lambdify.as_ctypes()``), so the generic numba kernels call it
    directly; it is also callable from Python.
``'numpy'``
    ``sympy.lambdify(..., cse=True)`` with NumPy; ``address`` is None.
    It evaluates a batch too: ``x`` of shape ``(m, n_in)``.

A :class:`GeneratedFunction` keeps its SymEngine object alive as long as
its address may be used. It pickles as its expressions, plus, for the LLVM
back end, its machine code: a process on the same kind of processor loads
that code as it is (bit-identical results, no compilation), any other
generates the function again from the expressions.
"""

import ctypes
import pickle
import time

import numpy as np
import sympy as sm

from .._utils import _zero_indicator, euclidean_norm

__all__ = []

try:
    import symengine as _symengine
except ImportError:  # pragma: no cover - symengine is a run-time dependency
    _symengine = None


class CodegenError(ValueError):
    """The expressions cannot be compiled by the requested back end."""


def symengine_available():
    """True when SymEngine (with its LLVM back end) imports."""
    return _symengine is not None


def for_codegen(expr):
    """``expr`` with this package's private functions written out in
    SymPy's standard functions, which every back end prints:
    ``_zero_indicator(x)`` as ``Piecewise((1, Eq(x, 0)), (0, True))``
    and ``euclidean_norm(x, ...)`` as ``sqrt(x**2 + ...)``. Derivatives
    must be taken before (``_zero_indicator`` differentiates to 0)."""
    expr = sm.sympify(expr)
    if expr.has(euclidean_norm):
        expr = expr.replace(
            lambda e: isinstance(e, euclidean_norm),
            lambda e: sm.sqrt(sm.Add(*[a ** 2 for a in e.args])))
    if expr.has(_zero_indicator):
        expr = expr.replace(
            lambda e: isinstance(e, _zero_indicator),
            lambda e: sm.Piecewise((sm.S.One, sm.Eq(e.args[0], 0)),
                                   (sm.S.Zero, True)))
    return expr


def to_symengine(exprs):
    """Convert SymPy (or SymEngine) expressions to SymEngine."""
    converted = []
    for expr in exprs:
        if isinstance(expr, _symengine.Basic):
            converted.append(expr)
        else:
            converted.append(_symengine.sympify(for_codegen(expr)))
    return converted


class GeneratedFunction:
    """``f(x) -> y``: the flat vector of ``outputs`` at the inputs ``x``.

    Parameters
    ==========

    inputs : sequence of Symbol
        The symbols of the entries of ``x``, in order.
    outputs : sequence of Expr
        SymPy or SymEngine expressions in ``inputs`` (and numbers).
    backend : {'llvm', 'numpy'}
    name : str
        For messages.
    compiled : SymEngine Lambdify, optional
        For ``'llvm'``: the already compiled ``outputs`` (from a pickle,
        see ``__reduce__``), used instead of compiling them.
    """

    def __init__(self, inputs, outputs, backend, name='function',
                 compiled=None):
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.backend = backend
        self.name = name
        self.n_in = len(self.inputs)
        self.n_out = len(self.outputs)
        start = time.perf_counter()
        if backend == 'llvm' and compiled is not None:
            self._lambdify = compiled    # machine code from a pickle
            self._take_address()
        elif backend == 'llvm':
            self._build_llvm()
        elif backend == 'numpy':
            self._build_numpy()
        else:
            raise ValueError(f'unknown code generation back end {backend!r}')
        self.seconds = time.perf_counter() - start

    def _build_llvm(self):
        if _symengine is None:
            raise CodegenError('SymEngine is not installed.')
        inputs = to_symengine(self.inputs)
        outputs = to_symengine(self.outputs)
        # undefined functions and SymPy functions SymEngine only wraps
        # (``FunctionSymbol``, ``PyFunction``) cannot be compiled
        unknown = set()
        for expr in outputs:
            unknown |= {f for f in expr.atoms(_symengine.Function)
                        if type(f).__name__ in ('FunctionSymbol',
                                                'PyFunction')}
        if unknown:
            raise CodegenError(
                f'{self.name}: SymEngine cannot compile the functions '
                f'{sorted(map(str, unknown))}.')
        try:
            self._lambdify = _symengine.Lambdify(
                inputs, outputs or [0], backend='llvm', cse=True,
                real=True)
        except (RuntimeError, TypeError, NotImplementedError) as error:
            raise CodegenError(f'{self.name}: SymEngine could not compile '
                               f'the expressions ({error}).') from None
        self._take_address()

    def _take_address(self):
        function, data = self._lambdify.as_ctypes()
        self._ctypes = function          # keeps the code alive
        self.address = ctypes.cast(function, ctypes.c_void_p).value
        self.data = data.value or 0

    def _build_numpy(self):
        outputs = [for_codegen(_as_sympy(e)) for e in self.outputs]
        self._numpy = sm.lambdify(self.inputs, outputs, modules='numpy',
                                  cse=True)
        self.address = None
        self.data = 0

    def __call__(self, x):
        """Evaluate at ``x`` (shape ``(n_in,)``, or ``(m, n_in)`` for a
        batch); returns shape ``(n_out,)`` or ``(m, n_out)``."""
        x = np.asarray(x, dtype=float)
        if self.backend == 'llvm':
            if x.ndim == 1:
                return np.asarray(self._lambdify(x), dtype=float).reshape(
                    -1)[:self.n_out]
            out = np.asarray(self._lambdify(x), dtype=float)
            return out.reshape(x.shape[0], -1)[:, :self.n_out]
        if x.ndim == 1:
            values = self._numpy(*x)
            return np.array([float(v) for v in values]) if values else \
                np.zeros(0)
        m = x.shape[0]
        values = self._numpy(*x.T)
        out = np.empty((m, self.n_out))
        for j, value in enumerate(values):
            out[:, j] = value
        return out

    def __reduce__(self):
        # An address is only valid in its own process. The LLVM back end
        # sends its machine code too (SymEngine serializes it), tagged with
        # the processor it was compiled for: on the same kind of processor
        # it is loaded as it is (no compilation, bit-identical results),
        # elsewhere the expressions are compiled again.
        code = None
        if self.backend == 'llvm' and host_fingerprint() is not None:
            try:
                code = (host_fingerprint(), pickle.dumps(self._lambdify))
            except Exception:      # a SymEngine that cannot serialize it
                code = None
        return (_unpickle_function, (
            portable(self.inputs, self.backend),
            portable(self.outputs, self.backend), self.backend, self.name,
            code))


def _unpickle_function(inputs, outputs, backend, name, code=None):
    """The :class:`GeneratedFunction` of a pickle (see its ``__reduce__``)."""
    if code is not None and code[0] == host_fingerprint():
        return GeneratedFunction(inputs, outputs, backend, name,
                                 compiled=pickle.loads(code[1]))
    return GeneratedFunction(inputs, outputs, backend, name)


_HOST = []


def host_fingerprint():
    """What compiled machine code depends on: the processor (its LLVM name
    and features, as llvmlite reports them) and the SymEngine version;
    None when llvmlite or SymEngine cannot be imported."""
    if not _HOST:
        try:
            import platform
            from llvmlite import binding
            _HOST.append((platform.machine(), _symengine.__version__,
                          binding.get_host_cpu_name(),
                          binding.get_host_cpu_features().flatten()))
        except Exception:
            _HOST.append(None)
    return _HOST[0]


def portable(exprs, backend):
    """``exprs`` as a :class:`GeneratedFunction` of ``backend`` pickles them.

    For ``'llvm'`` they are kept as they are (SymEngine serializes its
    expressions quickly; a detour through SymPy costs seconds on a large
    model). The NumPy back end works on SymPy expressions, so they are
    converted first, as ``_build_numpy`` converts them."""
    if backend == 'llvm':
        return tuple(exprs)
    return tuple(_as_sympy(e) for e in exprs)


def _as_sympy(expr):
    """A SymPy expression (SymEngine ones are converted)."""
    if _symengine is not None and isinstance(expr, _symengine.Basic):
        return expr._sympy_()
    return sm.sympify(expr)


def generate(inputs, outputs, backend, name='function'):
    """A :class:`GeneratedFunction`; ``backend='llvm'`` falls back to
    nothing: it raises :class:`CodegenError` when SymEngine cannot compile
    the expressions (the caller decides whether NumPy may serve)."""
    return GeneratedFunction(inputs, outputs, backend, name)
