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

Inputs are renamed ``_in0, _in1, ...`` before code generation, whatever
the caller named them: both back ends name their common subexpressions
``x0, x1, ...`` and the NumPy code calls functions by name, so a constant
the user named ``x1`` (SymEngine 0.15 reuses the name of an argument the
outputs do not use for a temporary, and returns wrong values silently) or
``sin`` would otherwise be confused with them. Each compiled function is
then checked once against SymEngine's own evaluation of the expressions
(substitution, no code generation) at a random input; a mismatch beyond
round-off raises :class:`MiscompiledError`, which the callers answer with
the NumPy back end and a warning.

A :class:`GeneratedFunction` keeps its SymEngine object alive as long as
its address may be used. It pickles as its expressions, plus, for the LLVM
back end, its machine code: a process on the same kind of processor loads
that code as it is (bit-identical results, no compilation), any other
generates the function again from the expressions.
"""

import ctypes
import math
import pickle
import time
import warnings

import numpy as np
import sympy as sm

from .._utils import _placeholder_map, _zero_indicator, euclidean_norm
from .dag_llvm import GraphFunction, UnsupportedNode

__all__ = []

try:
    import symengine as _symengine
except ImportError:  # pragma: no cover - symengine is a run-time dependency
    _symengine = None


class CodegenError(ValueError):
    """The expressions cannot be compiled by the requested back end."""


class MiscompiledError(CodegenError):
    """The compiled code does not evaluate to the expressions it was made
    from (see :meth:`GeneratedFunction.verify`)."""


#: The check of compiled code: at :data:`CHECK_SEED`'s random input (every
#: entry uniform in [0.5, 1.5]), an output agrees when it is within
#: ``CHECK_RTOL * max(1, |reference|)`` of the reference; differences of
#: round-off (common subexpressions, another order of operations) are some
#: 1e-15 relative, and the wrong input of a miscompile is O(1).
CHECK_RTOL = 1e-8
CHECK_SEED = 20261125

#: The base of a fractional power (``b**(3/2)``, ``sqrt(b)``) is zero up to
#: round-off at an input where it is at most this, relative to the sum of
#: the sizes of its terms: evaluated in another order (common
#: subexpressions, another back end) it may come out a few units in the
#: last place below zero, and its power NaN (see :func:`explain_nonfinite`).
ROUNDOFF_RTOL = 1e-12


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
    opt_level : int, optional
        For ``'llvm'``: LLVM's optimization level (SymEngine's default, 3,
        when None). 0 compiles a large function (the Jacobians of
        :mod:`sympy_loads._simulation.linearization`) about three times
        faster, and with common subexpressions already eliminated its code
        runs about as fast.
    """

    def __init__(self, inputs, outputs, backend, name='function',
                 compiled=None, opt_level=None, graph=False, sums=()):
        self.opt_level = opt_level
        self.graph = graph
        self._sums = sums
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.backend = backend
        self.name = name
        self.n_in = len(self.inputs)
        self.n_out = len(self.outputs)
        self._converted = None
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
        if backend == 'llvm':
            self.verify()
        self._converted = None       # the converted copies are not kept
        self.seconds = time.perf_counter() - start

    def _placeholders(self, module, extra=()):
        """``(placeholders, outputs)``: the renamed inputs ``_in0, ...``
        and the outputs in them, as expressions of ``module`` (SymEngine
        or SymPy), followed, for SymEngine, by the SymEngine expressions
        ``extra`` renamed with them. An output symbol that is not an input
        is an error of the caller's bookkeeping."""
        if module is sm:
            inputs = [_as_sympy(s) for s in self.inputs]
            outputs = [for_codegen(_as_sympy(e)) for e in self.outputs]
        else:
            inputs, outputs = self._symengine_expressions()
        placeholders = [module.Symbol(f'_in{i}') for i in range(self.n_in)]
        symbols = free_symbols_of(outputs)
        mapping = _placeholder_map(inputs, symbols, placeholders)
        unknown = symbols - set(mapping)
        if unknown:
            raise ValueError(
                f'{self.name}: the outputs contain '
                f'{sorted(map(str, unknown))}, which are not among the '
                f'inputs of the function.')
        if module is sm:
            return placeholders, [e.xreplace(mapping) for e in outputs]
        return placeholders, shared_xreplace(list(outputs) + list(extra),
                                             mapping)

    def _build_llvm(self):
        if _symengine is None:
            raise CodegenError('SymEngine is not installed.')
        # the running sums of the graph (see dag_llvm.graph_ir), renamed
        # with the outputs
        flat = [e for triple in self._sums for e in triple]
        self._sums = ()
        inputs, outputs = self._placeholders(_symengine, flat)
        outputs, flat = outputs[:self.n_out], outputs[self.n_out:]
        # undefined functions and SymPy functions SymEngine only wraps
        # (``FunctionSymbol``, ``PyFunction``) cannot be compiled
        unknown = {f for f in _shared_nodes(outputs)
                   if type(f).__name__ in ('FunctionSymbol', 'PyFunction')}
        if unknown:
            raise CodegenError(
                f'{self.name}: SymEngine cannot compile the functions '
                f'{sorted(map(str, unknown))}.')
        if self.graph:
            # the first way each sum was made: its parts were made before
            # it, so that no sum is a part of its own parts (a later
            # (a + b) - b would make a cycle)
            sums = {}
            for k in range(0, len(flat), 3):
                sums.setdefault(flat[k], (flat[k + 1], flat[k + 2]))
            try:
                self._lambdify = GraphFunction.of(
                    inputs, outputs, 2 if self.opt_level is None else
                    int(self.opt_level), sums)
                self._take_address()
                return
            except UnsupportedNode:
                pass       # SymEngine compiles what the graph cannot
        options = ({} if self.opt_level is None else
                   {'opt_level': int(self.opt_level)})
        try:
            self._lambdify = _symengine.Lambdify(
                inputs, outputs or [0], backend='llvm', cse=True,
                real=True, **options)
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
        inputs, outputs = self._placeholders(sm)
        self._numpy = sm.lambdify(inputs, outputs, modules='numpy',
                                  cse=True)
        self.address = None
        self.data = 0

    def _symengine_expressions(self):
        """``(inputs, outputs)`` converted to SymEngine (once)."""
        if self._converted is None:
            self._converted = (to_symengine(self.inputs),
                               to_symengine(self.outputs))
        return self._converted

    def verify(self):
        """Check the compiled code once against SymEngine's evaluation of
        the expressions (numbers substituted for the inputs under their own
        names, no code generation) at a random input; raise
        :class:`MiscompiledError` naming the first output that differs by
        more than round-off (:data:`CHECK_RTOL`). Outputs whose reference
        is not a real number there (a complex square root, an undefined
        quotient) are not compared."""
        if self.n_out == 0:
            return
        x = np.random.default_rng(CHECK_SEED).uniform(0.5, 1.5, self.n_in)
        with np.errstate(all='ignore'):
            got = self(x)
        inputs, outputs = self._symengine_expressions()
        values = dict(zip(inputs, [_symengine.RealDouble(v) for v in x]))
        for i, value in enumerate(shared_xreplace(outputs, values)):
            reference = _real_number(value)
            if reference is None or not math.isfinite(reference):
                continue
            if abs(got[i] - reference) <= CHECK_RTOL * max(
                    1.0, abs(reference)):
                continue
            causes = (self.explain_nonfinite(x, [i])
                      if not math.isfinite(got[i]) else [])
            if causes and causes[0][0] == 'round-off':
                # not a miscompile: the expression is ill-conditioned
                warnings.warn(
                    f'{self.name}: output {i} is {got[i]!r} at a test '
                    f'input where it evaluates to {reference!r}, through '
                    f'round-off, not a miscompile: {causes[0][1]}',
                    RuntimeWarning, stacklevel=4)
                continue
            raise MiscompiledError(
                f'{self.name}: the code SymEngine '
                f'{_symengine.__version__} compiled gives {got[i]!r} '
                f'for output {i} at a test input where the expression '
                f'evaluates to {reference!r} (a miscompile: no round-off '
                f'in a fractional power explains it).')

    def explain_nonfinite(self, x, indices, names=None):
        """Why the outputs ``indices`` may not be finite at the input
        ``x``: ``[(kind, sentence), ...]`` for each fractional power
        (``b**(3/2)``, ``sqrt(b)``) in them whose base is, evaluated on
        its own, zero up to round-off (``kind`` ``'round-off'``: another
        order of evaluation can make it slightly negative and its power
        NaN; :data:`ROUNDOFF_RTOL`) or negative (``'negative'``), those of
        round-off first; empty when there is none. ``names`` maps input
        symbols' names to the names to print."""
        module = _symengine if _symengine is not None else sm
        if module is sm:
            inputs = [_as_sympy(v) for v in self.inputs]
            outputs = [for_codegen(_as_sympy(e)) for e in self.outputs]
            number = sm.Float
        else:
            inputs, outputs = self._symengine_expressions()
            number = _symengine.RealDouble
        values = dict(zip(inputs, [number(float(v)) for v in x]))
        shown = {v: module.Symbol(names[str(v)]) for v in inputs
                 if names and str(v) in names}
        # each distinct subexpression once (``atoms()`` walks every path
        # of a shared graph: exponential in its depth)
        roots = [outputs[i] for i in indices if hasattr(outputs[i], 'args')]
        found = []
        for power in _shared_nodes(roots):
            if isinstance(power, module.Pow):
                cause = _fractional_power_cause(power, values, shown)
                if cause is not None:
                    found.append(cause)
        return sorted(found, key=lambda c: (c[0] != 'round-off', c[1]))

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
        if isinstance(getattr(self, '_lambdify', None), GraphFunction):
            # its IR text, compiled again where unpickled (any processor)
            code = ('graph', pickle.dumps(self._lambdify))
        elif self.backend == 'llvm' and host_fingerprint() is not None:
            try:
                code = (host_fingerprint(), pickle.dumps(self._lambdify))
            except Exception:      # a SymEngine that cannot serialize it
                code = None
        return (_unpickle_function, (
            portable(self.inputs, self.backend),
            portable(self.outputs, self.backend), self.backend, self.name,
            code))


def _unpickle_function(inputs, outputs, backend, name, code=None):
    """The :class:`GeneratedFunction` of a pickle (see its ``__reduce__``);
    machine code that fails its check is compiled again."""
    if code is not None and code[0] in ('graph', host_fingerprint()):
        try:
            return GeneratedFunction(inputs, outputs, backend, name,
                                     compiled=pickle.loads(code[1]))
        except MiscompiledError:
            pass
    graph = code is not None and code[0] == 'graph'
    return GeneratedFunction(inputs, outputs, backend, name,
                             opt_level=0 if graph else None, graph=graph)


def _fractional_power_cause(power, values, shown):
    """``(kind, sentence)`` for the fractional power ``power`` at the input
    ``values`` (a mapping of the inputs to numbers) whose base is zero up
    to round-off or negative there, else None."""
    base, exponent = power.args
    e = _real_number(exponent.xreplace(values))
    if e is None or not math.isfinite(e) or e == round(e):
        return None
    b = _real_number(base.xreplace(values))
    if b is None or not math.isfinite(b):
        return None
    terms = list(base.args) if type(base).__name__ == 'Add' else [base]
    size = sum(abs(_real_number(t.xreplace(values)) or 0.0) for t in terms)
    text = str(power.xreplace(shown))
    text = text if len(text) <= 160 else text[:157] + '...'
    if abs(b) <= ROUNDOFF_RTOL * size:
        return ('round-off', (
            f'the base of {text} is {b:.3g}, zero up to round-off (its '
            f'terms are of size {size:.3g}), and computed in another order '
            f'it can come out slightly negative, making the power NaN; '
            f'write the base so that it cannot be negative (e.g. '
            f'Max(0, ...) rather than (Abs(h) - h)/2)'))
    if b < 0:
        return ('negative', f'the base of {text} is negative ({b:.6g}): '
                            f'the power is not a real number there')
    return None


def _real_number(value):
    """``value`` (a SymEngine expression) as a float where it is a real
    number, else None."""
    try:
        number = complex(value)
    except (TypeError, RuntimeError, ValueError):
        return None
    return number.real if number.imag == 0 else None


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


def _shared_nodes(exprs):
    """Every distinct subexpression of the SymEngine (or SymPy) ``exprs``,
    each visited once: expressions that share subexpressions (the assembled
    equations of :mod:`sympy_loads._assembly`, a directed acyclic graph)
    would take SymEngine's ``atoms()`` a time exponential in their depth,
    as it walks each path."""
    seen = set()
    stack = list(exprs)
    while stack:
        expr = stack.pop()
        if expr in seen:
            continue
        seen.add(expr)
        stack.extend(expr.args)
    return seen


def nodes_of(exprs, types):
    """The subexpressions of ``exprs`` that are instances of ``types``.
    SymEngine expressions are walked through their distinct subexpressions
    once (:func:`_shared_nodes`): their ``atoms()`` walks every path of a
    shared graph, a time exponential in its depth on the assembled
    equations of an unformed System. SymPy expressions use ``atoms()``."""
    found, shared = set(), []
    for expr in exprs:
        if _symengine is not None and isinstance(expr, _symengine.Basic):
            shared.append(expr)
        elif hasattr(expr, 'atoms'):
            found |= set(expr.atoms(*types))
    if shared:
        found |= {node for node in _shared_nodes(shared)
                  if isinstance(node, types)}
    return found


def shared_xreplace(exprs, mapping):
    """``[e.xreplace(mapping) for e in exprs]`` for SymEngine
    expressions, with one memory for all of them: a subexpression shared
    by several outputs stays one object in the results. SymEngine's
    ``xreplace`` remembers only within one call, and its common
    subexpression elimination recognises repeats by identity, so
    expressions replaced one by one lose their sharing and eliminating it
    again takes time exponential in the depth of the shared graph (the
    assembled equations of :mod:`sympy_loads._assembly`)."""
    memo = dict(mapping)
    out = []
    for root in exprs:
        stack = [(root, False)]
        while stack:
            expr, ready = stack.pop()
            if expr in memo:
                continue
            args = expr.args
            if not ready and args:
                stack.append((expr, True))
                stack.extend((a, False) for a in args if a not in memo)
                continue
            new = [memo[a] for a in args]
            if all(n is a for n, a in zip(new, args)):
                memo[expr] = expr
                continue
            try:
                memo[expr] = expr.func(*new)
            except (TypeError, ValueError, RuntimeError, AttributeError):
                memo[expr] = expr.xreplace(dict(zip(args, new)))
        out.append(memo[root])
    return out


def free_symbols_of(exprs):
    """The free symbols of all ``exprs`` together; SymEngine expressions
    are walked once through their shared subexpressions (asked one by one,
    each would walk the whole shared graph again)."""
    symbols, shared = set(), []
    for expr in exprs:
        if _symengine is not None and isinstance(expr, _symengine.Basic):
            shared.append(expr)
        else:
            symbols |= set(sm.sympify(expr).free_symbols)
    if shared:
        symbols |= {node for node in _shared_nodes(shared)
                    if isinstance(node, _symengine.Symbol)}
    return symbols


def _as_sympy(expr):
    """A SymPy expression (SymEngine ones are converted)."""
    if _symengine is not None and isinstance(expr, _symengine.Basic):
        return expr._sympy_()
    return sm.sympify(expr)


# with graph='auto', a function of at least this many outputs is compiled
# node by node at LLVM's level 0 (see _numeric.dag_llvm): the constraints'
# Jacobians of some 40 coordinates, mostly zeros, compile there in some 60 %
# of the time SymEngine's Lambdify takes (IFToMM's N-four-bar at N = 40:
# four functions of 6,500 outputs, 0.35 s against 0.6 s)
LARGE_OUTPUTS = 1000


def generate(inputs, outputs, backend, name='function', opt_level=None,
             graph=False, sums=()):
    """A :class:`GeneratedFunction`; ``backend='llvm'`` falls back to
    nothing: it raises :class:`CodegenError` when SymEngine cannot compile
    the expressions, :class:`MiscompiledError` when the compiled code fails
    its check (the caller decides whether NumPy may serve).
    ``graph='auto'``: node by node at level 0 for :data:`LARGE_OUTPUTS`
    outputs or more, else SymEngine's Lambdify."""
    if graph == 'auto':
        graph = len(outputs) >= LARGE_OUTPUTS
        if graph:
            opt_level = 0
    return GeneratedFunction(inputs, outputs, backend, name,
                             opt_level=opt_level, graph=graph, sums=sums)
