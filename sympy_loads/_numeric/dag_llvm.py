"""Machine code for a large shared expression graph, through llvmlite.

SymEngine's ``Lambdify(..., cse=True)`` first looks for common
subexpressions itself; on the assembled equations of an unformed System
(:mod:`sympy_loads._assembly`), which are already a directed acyclic graph
with every repeat shared, its search for sums with common terms can take
minutes (it compares equal subexpressions made anew term by term, a time
exponential in the depth of the graph). The graph needs no search: each
distinct node is one instruction. :func:`graph_ir` writes them in
topological order as LLVM IR text, and :func:`compile_ir` compiles it
with llvmlite (which numba brings) to the calling convention of
:mod:`sympy_loads._numeric.codegen`, ``void f(double *out, const double
*in, void *data)`` (``data`` unused).

Nodes it does not know (a function without an LLVM or C library
counterpart here) raise :class:`UnsupportedNode`; the caller then uses
SymEngine's code generation.
"""

import ctypes
import ctypes.util
import struct

import numpy as np

__all__ = []

_BINDING = []       # llvmlite.binding, initialised on first use


class UnsupportedNode(Exception):
    """An expression node :func:`graph_ir` cannot emit."""


def _llvm():
    if not _BINDING:
        from llvmlite import binding
        binding.initialize_native_target()
        binding.initialize_native_asmprinter()
        _BINDING.append(binding)
    return _BINDING[0]


# functions of one argument: LLVM intrinsics, else the C library's
_INTRINSICS = {'sin': 'llvm.sin.f64', 'cos': 'llvm.cos.f64',
               'log': 'llvm.log.f64', 'Abs': 'llvm.fabs.f64',
               'floor': 'llvm.floor.f64', 'ceiling': 'llvm.ceil.f64'}
_LIBM = {'tan': 'tan', 'tanh': 'tanh', 'sinh': 'sinh', 'cosh': 'cosh',
         'asin': 'asin', 'acos': 'acos', 'atan': 'atan', 'asinh': 'asinh',
         'acosh': 'acosh', 'atanh': 'atanh', 'erf': 'erf'}
_NUMBERS = ('Integer', 'Rational', 'Half', 'RealDouble', 'Zero', 'One',
            'NegativeOne', 'Pi', 'Exp1')
_RELATIONS = {'StrictLessThan': 'olt', 'LessThan': 'ole',
              'Equality': 'oeq', 'Unequality': 'une'}


def _topological(outputs, sums):
    """The distinct nodes of ``outputs``, each after its arguments (for a
    node of ``sums``, after its two parts)."""
    order, done = [], set()
    stack = [(e, False) for e in reversed(outputs)]
    while stack:
        node, ready = stack.pop()
        if node in done:
            continue
        if ready:
            done.add(node)
            order.append(node)
            continue
        stack.append((node, True))
        parts = sums.get(node, node.args)
        stack.extend((a, False) for a in reversed(parts) if a not in done)
    return order


def _double(value):
    """An LLVM IR double constant, exact (its bits in hexadecimal)."""
    return '0x%016X' % struct.unpack('<Q', struct.pack('<d', float(value)))[0]


class _Emitter:
    """The LLVM IR text of the graph, one instruction per line: ``emit``
    returns the operand (a ``%name`` or a constant) of a node from those
    of its arguments (``values``)."""

    def __init__(self, inputs):
        self.inputs = {s: i for i, s in enumerate(inputs)}
        self.values = {}
        self.lines = []
        self.declared = {}
        self.libm = set()
        self.booleans = {'true', 'false'}      # operands of type i1
        self.count = 0

    def new(self, text, boolean=False):
        name = f'%v{self.count}'
        self.count += 1
        self.lines.append(f'  {name} = {text}')
        if boolean:
            self.booleans.add(name)
        return name

    def call(self, function, args, n_args=None, int_exponent=False):
        if function not in self.declared:
            types = ['double'] * (n_args or len(args))
            if int_exponent:
                types = ['double', 'i32']
            self.declared[function] = (f'declare double @{function}('
                                       f'{", ".join(types)})')
        operands = ', '.join(f'{t} {a}' for t, a in zip(
            ['double', 'i32'] if int_exponent else ['double'] * len(args),
            args))
        return self.new(f'call double @{function}({operands})')

    def chain(self, op, args):
        value = args[0]
        for a in args[1:]:
            value = self.new(f'{op} double {value}, {a}')
        return value

    def select(self, condition, yes, no):
        return self.new(f'select i1 {condition}, double {yes}, double {no}')

    def emit(self, node):
        kind = type(node).__name__
        if not node.args:
            return self.atom(node, kind)
        if kind == 'Pow':
            return self.power(node)
        if kind == 'Piecewise':
            return self.piecewise(node)
        args = [self.values[a] for a in node.args]
        if kind in ('Add', 'Mul'):
            return self.chain('fadd' if kind == 'Add' else 'fmul', args)
        if kind in _INTRINSICS:
            return self.call(_INTRINSICS[kind], args)
        if kind in _LIBM:
            self.libm.add(_LIBM[kind])
            return self.call(_LIBM[kind], args)
        if kind == 'atan2':
            self.libm.add('atan2')
            return self.call('atan2', args)
        if kind == 'sign':
            x, zero = args[0], _double(0)
            positive = self.select(self.new(
                f'fcmp ogt double {x}, {zero}', True), _double(1), zero)
            return self.select(self.new(f'fcmp olt double {x}, {zero}',
                                        True), _double(-1), positive)
        if kind in ('Max', 'Min'):
            value, relation = args[0], 'ugt' if kind == 'Max' else 'ult'
            for a in args[1:]:
                value = self.select(self.new(
                    f'fcmp {relation} double {a}, {value}', True), a, value)
            return value
        if kind in _RELATIONS:
            return self.new(f'fcmp {_RELATIONS[kind]} double {args[0]}, '
                            f'{args[1]}', True)
        if kind in ('And', 'Or'):
            value, op = args[0], kind.lower()
            for a in args[1:]:
                value = self.new(f'{op} i1 {value}, {a}', True)
            return value
        if kind == 'Not':
            return self.new(f'xor i1 {args[0]}, true', True)
        raise UnsupportedNode(kind)

    def atom(self, node, kind):
        if node in self.inputs:
            pointer = self.new(f'getelementptr double, ptr %in, i64 '
                               f'{self.inputs[node]}')
            return self.new(f'load double, ptr {pointer}')
        if kind in ('BooleanTrue', 'BooleanFalse'):
            return 'true' if kind == 'BooleanTrue' else 'false'
        if kind in _NUMBERS:
            return _double(float(node))
        raise UnsupportedNode(kind)

    def power(self, node):
        base, exponent = node.args
        if type(base).__name__ == 'Exp1':
            return self.call('llvm.exp.f64', [self.values[exponent]])
        x = self.values[base]
        kind = type(exponent).__name__
        one = _double(1)
        if kind == 'Integer':
            n = int(exponent)
            if n == 2:
                return self.new(f'fmul double {x}, {x}')
            if n == -1:
                return self.new(f'fdiv double {one}, {x}')
            if n == -2:
                square = self.new(f'fmul double {x}, {x}')
                return self.new(f'fdiv double {one}, {square}')
            return self.call('llvm.powi.f64.i32', [x, str(n)],
                             int_exponent=True)
        if kind in _NUMBERS and float(exponent) in (0.5, -0.5, 1.5):
            root = self.call('llvm.sqrt.f64', [x])
            e = float(exponent)
            if e == 0.5:
                return root
            if e == -0.5:
                return self.new(f'fdiv double {one}, {root}')
            return self.new(f'fmul double {x}, {root}')
        return self.call('llvm.pow.f64', [x, self.values[exponent]])

    def piecewise(self, node):
        """``(e1, c1, e2, c2, ...)``: the first ``e_k`` whose ``c_k``
        holds, as a chain of selects from the last."""
        args = list(node.args)
        value = _double(float('nan'))
        for expr, cond in reversed(list(zip(args[0::2], args[1::2]))):
            value = self.select(self.values[cond], self.values[expr], value)
        return value


def graph_ir(inputs, outputs, sums=None):
    """``(text, libm)``: the LLVM IR of ``void graph(double *out, const
    double *in, void *data)`` writing the SymEngine ``outputs``
    (functions of the SymEngine symbols ``inputs``) to ``out``, and the C
    library functions it calls. ``sums`` maps a sum to two parts whose sum
    it is (each a node of the graph), added instead of its terms (see
    :func:`sympy_loads._assembly.kinematics.plus`). Raises
    :class:`UnsupportedNode` for a node it cannot emit."""
    # a sum that is one of its own parts (a + 0) would be a cycle
    sums = {node: parts for node, parts in (sums or {}).items()
            if not any(part == node for part in parts)}
    emitter = _Emitter(inputs)
    for node in _topological(list(outputs), sums):
        if node in sums:
            a, b = sums[node]
            emitter.values[node] = emitter.chain(
                'fadd', [emitter.values[a], emitter.values[b]])
        else:
            emitter.values[node] = emitter.emit(node)
    # a constraint Jacobian is mostly zeros: clear the output at once and
    # store the others (+0.0 is all zero bytes), a tenth of the
    # instructions for LLVM to compile
    zero = _double(0)
    cleared = sum(emitter.values[e] == zero for e in outputs) > 8
    if cleared:
        emitter.declared['llvm.memset'] = (
            'declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)')
        emitter.lines.append(f'  call void @llvm.memset.p0.i64(ptr %out, '
                             f'i8 0, i64 {8 * len(outputs)}, i1 false)')
    for i, expr in enumerate(outputs):
        value = emitter.values[expr]
        if cleared and value == zero:
            continue
        if value in emitter.booleans:
            value = emitter.new(f'uitofp i1 {value} to double')
        pointer = emitter.new(f'getelementptr double, ptr %out, i64 {i}')
        emitter.lines.append(f'  store double {value}, ptr {pointer}')
    text = '\n'.join(list(emitter.declared.values()) + [
        'define void @graph(ptr %out, ptr %in, ptr %data) {', 'entry:']
        + emitter.lines + ['  ret void', '}', ''])
    return text, tuple(sorted(emitter.libm))


def compile_ir(text, libm, opt_level=2):
    """``(engine, address)``: the machine code of the function ``graph``
    of :func:`graph_ir`; keep ``engine`` alive while ``address`` is
    used."""
    binding = _llvm()
    _register_libm(binding, libm)
    parsed = binding.parse_assembly(text)
    parsed.verify()
    target = binding.Target.from_default_triple()
    machine = target.create_target_machine(opt=opt_level)
    engine = binding.create_mcjit_compiler(parsed, machine)
    engine.finalize_object()
    return engine, engine.get_function_address('graph')


_LIBM_HANDLE = []


def _register_libm(binding, names):
    """Make the C library's ``names`` known to the JIT's linker."""
    if not names:
        return
    if not _LIBM_HANDLE:
        _LIBM_HANDLE.append(ctypes.CDLL(ctypes.util.find_library('m')))
    for name in names:
        address = ctypes.cast(getattr(_LIBM_HANDLE[0], name),
                              ctypes.c_void_p).value
        binding.add_symbol(name, address)


_SIGNATURE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_double),
                              ctypes.POINTER(ctypes.c_double),
                              ctypes.c_void_p)


class GraphFunction:
    """The compiled graph as the ``_lambdify`` of a
    :class:`~sympy_loads._numeric.codegen.GeneratedFunction`: callable on
    one input vector or a batch (rows), ``as_ctypes()`` gives the C
    function and its (null) data pointer. It pickles as its IR text, and
    compiles it again where unpickled: the same instructions in the same
    order, so the same results."""

    def __init__(self, n_in, n_out, text, libm, opt_level=2):
        self.n_in, self.n_out = n_in, n_out
        self.text, self.libm, self.opt_level = text, libm, opt_level
        self._engine, address = compile_ir(text, libm, opt_level)
        self._function = _SIGNATURE(address)

    @classmethod
    def of(cls, inputs, outputs, opt_level=2, sums=None):
        """The compiled :func:`graph_ir` of ``outputs``."""
        text, libm = graph_ir(inputs, outputs, sums)
        return cls(len(inputs), len(outputs), text, libm, opt_level)

    def as_ctypes(self):
        return self._function, ctypes.c_void_p(None)

    def __call__(self, x):
        x = np.ascontiguousarray(x, dtype=float)
        rows = x.reshape(-1, self.n_in)
        out = np.empty((rows.shape[0], self.n_out))
        double_p = ctypes.POINTER(ctypes.c_double)
        for row, target in zip(rows, out):
            self._function(target.ctypes.data_as(double_p),
                           row.ctypes.data_as(double_p), None)
        return out.reshape(-1) if x.ndim == 1 else out

    def __reduce__(self):
        return (GraphFunction, (self.n_in, self.n_out, self.text, self.libm,
                                self.opt_level))
