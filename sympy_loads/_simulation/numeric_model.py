"""Private: the numeric model of a ``KanesMethod`` for :func:`simulate`.

:class:`NumericModel` reads a ``KanesMethod`` once, prepares the symbolic
quantities that the right-hand side needs and generates them as three
functions of one input vector (see :mod:`sympy_loads._numeric.rhs`)::

    x = [t, q (model.q order), u (model.u order), c (constants), s]

``c`` holds the constants sorted by ``default_sort_key`` and ``s`` the
specified inputs sorted the same way followed by the joint-friction
magnitudes. With dependent speeds the dynamic equations are the
*unconstrained* ones (:mod:`sympy_loads._equations`); the elimination of
the dependent speeds happens numerically, so no symbolic inverse is
evaluated.
"""

import pickle
import time
import warnings
import weakref
from typing import NamedTuple

import numpy as np
import sympy as sm
from sympy.physics.mechanics import dynamicsymbols, find_dynamicsymbols

from .._equations import unconstrained_equations
from .arguments import evaluated_elsewhere
from ..constraints import HolonomicConstraintSolver
from .._numeric.codegen import (CodegenError, MiscompiledError, generate,
                               symengine_available)
from .._numeric import eom_blocks
from .._numeric.codegen import to_symengine
from .._utils import (_as_loads, _internal_prefix, _kanes_parts, lru_get,
                     lru_put)

__all__ = []

_TIME = dynamicsymbols._t


def _symbol_key(symbol):
    return sm.default_sort_key(symbol)


def _flat(rows):
    return [e for row in rows for e in row]


class NumericModel:
    """The numeric functions of one ``KanesMethod`` (and set of joint-
    friction symbols), generated once for one back end (``'compiled'`` or
    ``'numpy'``). ``seconds`` records the time of the symbolic preparation
    (``'derivation'``) and of code generation (``'codegen'``)."""

    def __init__(self, kane, friction_symbols=(), backend='compiled'):
        start = time.perf_counter()
        # weakly: simulate()'s cache of numeric models is keyed weakly by the
        # KanesMethod, and a strong reference from their values would keep
        # every model (and its machine code) alive for the whole session
        self._kane = weakref.ref(kane)
        self.kindiff = kane.kindiffdict()
        self.q = list(kane.q)
        self.u = list(kane.u)
        parts = _kanes_parts(kane)
        self.frame = parts.frame
        q_dep, u_dep = parts.q_dep, parts.u_dep
        self.q_dep_idx = np.array([self.q.index(s) for s in q_dep], int)
        self.u_dep_idx = np.array([self.u.index(s) for s in u_dep], int)
        self.q_ind_idx = np.array([i for i in range(len(self.q))
                                   if i not in set(self.q_dep_idx)], int)
        self.u_ind_idx = np.array([i for i in range(len(self.u))
                                   if i not in set(self.u_dep_idx)], int)
        f_h = (sm.Matrix(parts.holonomic_constraints)
               if parts.holonomic_constraints else sm.zeros(0, 1))
        self.f_h = f_h
        self.has_config_constraints = len(f_h) > 0
        self.has_velocity_constraints = len(u_dep) > 0
        self.friction = list(friction_symbols)
        qdot_map = self.kindiff
        k_nh = sm.Matrix(parts.k_nh).xreplace(qdot_map)
        f_nh = sm.Matrix(parts.f_nh).xreplace(qdot_map)
        m_kin = sm.Matrix(kane.mass_matrix_kin)
        f_kin = sm.Matrix(kane.forcing_kin)
        self.kinematics_is_identity = m_kin == sm.eye(len(self.q))
        if self.has_velocity_constraints:
            reduced = sm.zeros(0, 1)     # not used: never evaluated
        else:
            reduced = sm.Matrix.vstack(
                sm.Matrix(kane.mass_matrix).reshape(len(self.u) ** 2, 1),
                sm.Matrix(kane.forcing))
        everything = sm.Matrix.vstack(
            m_kin.reshape(len(m_kin), 1), f_kin, f_h,
            k_nh.reshape(len(k_nh), 1), f_nh, reduced)
        self._check_and_collect(everything, f_h, kane)

        # the plain symbols of the input vector, under a prefix that starts
        # no constant's name (the constants keep their own names)
        tag = self._tag = _internal_prefix(self._candidates)
        plain = {_TIME: sm.Symbol(f'{tag}t')}
        self._inputs = [plain[_TIME]]
        for prefix, symbols in ((f'{tag}q', self.q), (f'{tag}u', self.u)):
            for i, symbol in enumerate(symbols):
                plain[symbol] = sm.Symbol(f'{prefix}{i}')
                self._inputs.append(plain[symbol])
        for i, symbol in enumerate(self.specified + self.friction):
            plain[symbol] = sm.Symbol(f'{tag}s{i}')
            self._inputs.append(plain[symbol])
        self._plain = plain
        self.dims = np.array([len(self.q), len(self.u), len(f_h),
                              len(q_dep), len(u_dep),
                              int(self.kinematics_is_identity)], np.int64)
        self.idx = np.concatenate([
            self.q_dep_idx + 1, self.u_ind_idx, self.u_dep_idx]).astype(
                np.int64)
        self._prepare(f_h, k_nh, f_nh, m_kin, f_kin, q_dep, plain)
        self.seconds = {'derivation': time.perf_counter() - start}
        self.backend = backend
        start = time.perf_counter()
        self._generate(backend)
        self.seconds['codegen'] = time.perf_counter() - start
        self._outputs = {}
        # what is derived from the model once and reused by every run
        # (see derived()): the constraint solver, the impacts' functions
        self._derived = {}

    def _check_and_collect(self, everything, f_h, kane):
        """Set ``specified`` and the candidate constants (by name)."""
        dynamic = set(find_dynamicsymbols(everything))
        derivatives = [s for s in dynamic if isinstance(s, sm.Derivative)]
        if derivatives:
            raise ValueError(
                f'model: the equations of motion contain the time '
                f'derivatives {sorted(map(str, derivatives))}; simulate() '
                f'needs equations in q, u and time functions only.')
        # the loads and bodies enter the unconstrained equations, derived
        # later: collect their symbols too
        free = set(everything.free_symbols)
        parts = []
        for load in _as_loads(list(kane.loads or [])):
            parts += [sm.Matrix(c[0]) for c in load[1].args]
        for body in kane.bodies:
            parts.append(sm.Matrix([body.mass]))
            if hasattr(body, 'central_inertia'):
                parts += [sm.Matrix([d[0]]) for d in
                          body.central_inertia.args]
        for part in parts:
            free |= part.free_symbols
            dynamic |= {s for s in find_dynamicsymbols(part)
                        if not isinstance(s, sm.Derivative)}
        known = set(self.q) | set(self.u) | set(self.friction)
        self.specified = sorted(dynamic - known, key=_symbol_key)
        self._candidates = {str(s): s for s in free - {_TIME}}
        if self.has_config_constraints:
            in_constraints = set(find_dynamicsymbols(f_h)) - set(self.q)
            if in_constraints:
                raise ValueError(
                    f'model: the holonomic constraints contain the specified '
                    f'inputs {sorted(map(str, in_constraints))}; only '
                    f'coordinates and time may appear in them.')

    def _prepare(self, f_h, k_nh, f_nh, m_kin, f_kin, q_dep, plain):
        """The flat outputs of the three functions, in plain symbols."""
        nu, m = len(self.u), len(self.u_dep_idx)
        use_se = symengine_available()

        def conv(matrix):
            values = list(sm.Matrix(matrix).xreplace(plain))
            return to_symengine(values) if use_se else values

        phi = conv(f_h)
        qd_syms = conv(sm.Matrix([plain[s] for s in q_dep]))
        hol = list(phi) + [e.diff(s) for e in phi for s in qd_syms]
        velocity = conv(k_nh) + conv(f_nh)
        kinematics = ([] if self.kinematics_is_identity else conv(m_kin))
        kinematics += conv(f_kin)
        if m:
            mass, forcing = unconstrained_equations(self.kane, plain)
            mass = _flat(mass)
            # g = (K u + k)' with u' = 0: the acceleration constraints
            # are K u' + g = 0
            qdot_map = self.kindiff
            qd = conv(sm.Matrix([qdot_map[s.diff(_TIME)] for s in self.q]))
            qs = conv(sm.Matrix([plain[s] for s in self.q]))
            us = conv(sm.Matrix([plain[s] for s in self.u]))
            ts = conv(sm.Matrix([plain[_TIME]]))[0]
            g = []
            for i in range(m):
                expr = sum((velocity[i * nu + j] * us[j] for j in range(nu)),
                           velocity[m * nu + i])
                value = expr.diff(ts)
                for qi, qdi in zip(qs, qd):
                    value += expr.diff(qi) * qdi
                g.append(value)
            spec = set(conv(sm.Matrix([plain[s] for s in self.specified])))
            if any(set(e.free_symbols) & spec for e in g):
                raise ValueError(
                    'model: the velocity constraints contain specified '
                    'inputs; simulate() needs their time derivatives, '
                    'which it does not know.')
        else:
            mass = conv(sm.Matrix(self.kane.mass_matrix))
            forcing = conv(sm.Matrix(self.kane.forcing))
            g = []
        # in the layout that _numeric.eom_blocks defines for its readers
        eom = kinematics + mass + list(forcing) + g
        if len(eom) != eom_blocks(len(self.q), nu, m,
                                  self.kinematics_is_identity)[-1]:
            raise RuntimeError('the equations of motion do not have the '
                               'layout of _numeric.eom_blocks')
        used = set()
        for expr in hol + velocity + eom:
            used |= {str(s) for s in expr.free_symbols}
        used -= {str(s) for s in plain.values()}
        self.constants = sorted((self._candidates.get(name, sm.Symbol(name))
                                 for name in used), key=_symbol_key)
        self._outputs_of = {'hol': hol, 'vel': velocity, 'eom': eom}
        self.eom_size = len(eom)

    def _generate(self, backend):
        kind = 'llvm' if backend == 'compiled' else 'numpy'
        inputs = self.inputs()
        functions = {}
        for name, outputs in self._outputs_of.items():
            functions[name] = generate(inputs, outputs, kind, name)
        self.functions = functions
        self.fn = self._addresses()

    def _addresses(self):
        """The addresses and data pointers of the three functions, as the
        compiled kernels take them (0 for the NumPy back end)."""
        functions = self.functions
        return np.array([
            functions['hol'].address or 0, functions['hol'].data,
            functions['vel'].address or 0, functions['vel'].data,
            functions['eom'].address or 0, functions['eom'].data],
            dtype=np.int64)

    # Pickling (to send the model to worker processes, see
    # sympy_loads.parameter_study): the generated functions pickle
    # themselves (expressions and machine code, see _numeric.codegen) and
    # get new addresses where they are unpickled, so the address table is
    # made afresh there; the expressions kept for _generate are the
    # functions' own and are not sent twice.
    def __getstate__(self):
        state = self.__dict__.copy()
        # a copy of the outputs' cache, taken at once: another thread's
        # simulate() may add to it while pickle walks it
        state['_outputs'] = state['_outputs'].copy()
        state['_derived'] = state.get('_derived', {}).copy()
        state.pop('_outputs_of', None)
        state.pop('fn', None)
        state['_kane'] = self.kane
        if state['_kane'] is None:
            raise pickle.PicklingError(
                'a NumericModel whose KanesMethod no longer exists cannot be '
                'pickled; pickle it together with its KanesMethod.')
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._kane = weakref.ref(state['_kane'])
        self.fn = self._addresses()

    @property
    def kane(self):
        """The ``KanesMethod`` (held weakly: ``None`` once it no longer
        exists; :func:`simulate` always passes a live one)."""
        return self._kane()

    def inputs(self):
        """The symbols of the input vector ``x``."""
        nq, nu = len(self.q), len(self.u)
        head = self._inputs[:1 + nq + nu]
        tail = [self._plain[s] for s in self.specified + self.friction]
        return head + list(self.constants) + tail

    def pack(self, t, q, u, c, s):
        """The input vector ``x``."""
        return np.concatenate([[t], q, u, c, s]).astype(float)

    @property
    def slices(self):
        """Slices of ``x``: ``q``, ``u``, ``c`` and ``s``."""
        nq, nu, nc = len(self.q), len(self.u), len(self.constants)
        return (slice(1, 1 + nq), slice(1 + nq, 1 + nq + nu),
                slice(1 + nq + nu, 1 + nq + nu + nc),
                slice(1 + nq + nu + nc, None))

    def derived(self, key, build):
        """``build()``, made once per ``key`` for this model and kept with
        it (the last :data:`OUTPUT_CACHE_SIZE` keys): the constraint solver
        of a set of options, the functions of a list of impacts. What a
        prepared :class:`~sympy_loads.Simulation` needs beyond the
        equations lives here, so that every ``Simulation`` of the model
        shares it."""
        found = lru_get(self._derived, key)
        if found is None:
            found = build()
            lru_put(self._derived, key, found, OUTPUT_CACHE_SIZE)
        return found

    def constraint_solver(self, options=None):
        """The :class:`~sympy_loads.HolonomicConstraintSolver` of the
        configuration constraints under ``options`` (its keyword
        options), made once per set of options and kept with the model
        (:meth:`derived`); None without configuration constraints. Its
        constants are placeholders: a run takes a copy with its own values
        (:meth:`~sympy_loads.HolonomicConstraintSolver.with_constants`,
        which shares the generated code)."""
        if not self.has_config_constraints:
            return None
        options = dict(options or {})
        used = sorted(self.f_h.free_symbols - {_TIME}, key=_symbol_key)

        def build():
            return HolonomicConstraintSolver.from_kanes_method(
                self.kane, {s: 1.0 for s in used}, **options)
        return self.derived(
            ('constraint solver', tuple(sorted(options.items()))), build)

    def output_function(self, outputs):
        """The :class:`OutputSpec` of the ``outputs`` mapping, generated
        once per set of expressions (its ``function`` takes the rows
        ``[x, extra constants, u']``). The last :data:`OUTPUT_CACHE_SIZE`
        sets used are kept
        (:func:`lru_get`): a sweep with new expressions per call does not
        keep every generated function."""
        key = tuple((name, expr) for name, expr in outputs.items())
        found = lru_get(self._outputs, key)
        if found is not None:
            return found
        kindiff = self.kindiff
        udot = [s.diff(_TIME) for s in self.u]
        # internal names of the outputs' own inputs: a prefix that starts
        # no name of the model or of the outputs
        names = set(self._candidates)
        for expr in outputs.values():
            names |= {s.name for s in sm.sympify(expr).free_symbols}
        tag = _internal_prefix(names, self._tag)
        udot_symbols = [sm.Symbol(f'{tag}ud{i}') for i in range(len(self.u))]
        allowed = (set(self.q) | set(self.u) | set(self.specified)
                   | set(self.friction))
        exprs, shapes = [], []
        for name, expr in outputs.items():
            matrix = sm.Matrix([expr]) if not isinstance(
                expr, sm.MatrixBase) else sm.Matrix(expr)
            if matrix.shape[1] != 1 and matrix.shape[0] != 1:
                raise ValueError(
                    f'outputs[{name!r}] must be a scalar or a column/row '
                    f'matrix, not shape {matrix.shape}.')
            matrix = matrix.xreplace(kindiff)
            matrix = matrix.xreplace(dict(zip(udot, udot_symbols)))
            unknown = [s for s in find_dynamicsymbols(matrix)
                       if s not in allowed]
            if unknown:
                raise ValueError(
                    f'outputs[{name!r}] contains {sorted(map(str, unknown))}, '
                    f'which are neither coordinates, speeds, their time '
                    f'derivatives nor specified inputs of the model.')
            elsewhere = evaluated_elsewhere(matrix, allowed)
            if elsewhere:
                raise ValueError(
                    f'outputs[{name!r}] contains {elsewhere}, not functions '
                    f'of the time t only; an output is evaluated at each '
                    f'sample from the state then (give a value at another '
                    f'time as a constant).')
            exprs.append(matrix.reshape(len(matrix), 1))
            shapes.append(None if not isinstance(expr, sm.MatrixBase)
                          else len(matrix))
        # a constant of the equations known only by name (see
        # simulation._pack_constants) is the same constant here
        by_name = {c.name: c for c in self.constants}
        exprs = [e.xreplace({s: by_name[s.name] for s in e.free_symbols
                             if s.name in by_name}) for e in exprs]
        extra = sorted(set().union(*[e.free_symbols for e in exprs])
                       - {_TIME} - set(self.constants) - set(udot_symbols),
                       key=_symbol_key) if exprs else []
        # the extra constants under internal names too: one of them may
        # have the name of an internal symbol of the model
        renamed = {s: sm.Symbol(f'{tag}e{i}') for i, s in
                   enumerate(extra)}
        flat = [e.xreplace(renamed).xreplace(self._plain)
                for matrix in exprs for e in matrix]
        inputs = self.inputs() + list(renamed.values()) + udot_symbols
        kind = 'llvm' if self.backend == 'compiled' else 'numpy'
        try:
            function = generate(inputs, flat, kind, 'outputs')
        except CodegenError as error:
            if isinstance(error, MiscompiledError):
                warnings.warn(f'{error} Using the NumPy back end for the '
                              f'outputs.', RuntimeWarning, stacklevel=4)
            function = generate(inputs, flat, 'numpy', 'outputs')
        sizes = [len(e) for e in exprs]
        uses_udot = any(e.has(*udot_symbols) for e in exprs)
        entry = OutputSpec(list(outputs), shapes, sizes, function, extra,
                           uses_udot)
        lru_put(self._outputs, key, entry, OUTPUT_CACHE_SIZE)
        return entry


class OutputSpec(NamedTuple):
    """The generated function of a mapping of outputs
    (:meth:`NumericModel.output_function`)."""

    names: list
    #: per output: None for a scalar, else the length of its column
    shapes: list
    #: per output: the number of its entries in the function's output
    sizes: list
    #: of the rows ``[x, extra constants, u']``
    function: object
    #: the constants of the outputs that the model's equations do not have
    extra_constants: list
    #: whether an output contains a time derivative of a speed
    uses_udot: bool


# output functions kept per numeric model (simulate()'s outputs), and
# entries of NumericModel.derived (constraint solvers, the impacts'
# functions, feedback variants, other partitions' functions, the
# linearization's)
OUTPUT_CACHE_SIZE = 16
