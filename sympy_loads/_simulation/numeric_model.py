"""Private: the numeric model of a ``KanesMethod`` for :func:`simulate`.

:class:`NumericModel` reads a ``KanesMethod`` once, prepares the symbolic
quantities that the right-hand side needs and generates them as three
functions of one input vector (see :mod:`sympy_loads._numeric.rhs`)::

    x = [t, q (model.q order), u (model.u order), c (constants), s]

``c`` holds the constants sorted by ``default_sort_key`` and ``s`` the
specified inputs sorted the same way, then the rates ``Derivative(s, t)``
of those whose rates the equations need (an input in the velocity
constraints, the kinematic equations or a velocity: see
:func:`_input_rates`), followed by the joint-friction magnitudes. In a
model with auxiliary speeds, these and the reactions they bring into
evidence are zero in the equations of motion; the reactions are outputs
(:meth:`NumericModel.reaction_expressions`). With dependent speeds the dynamic equations are the
*unconstrained* ones (:mod:`sympy_loads._equations`); the elimination of
the dependent speeds happens numerically, so no symbolic inverse is
evaluated.
"""

import pickle
import re
import time
import warnings
import weakref
from typing import NamedTuple

import numpy as np
import sympy as sm
from sympy.physics.mechanics import dynamicsymbols, find_dynamicsymbols

from .._assembly import Assembly, UnformedKanesMethod
from .._equations import unconstrained_equations
from .arguments import evaluated_elsewhere
from .constraint_consistency import check_velocity_constraints
from ..constraints import HolonomicConstraintSolver
from .._numeric.codegen import (CodegenError, MiscompiledError,
                               free_symbols_of, generate,
                               symengine_available)
from .._numeric import eom_blocks
from .._numeric.codegen import to_symengine
from .._utils import (_as_loads, _internal_prefix, _kanes_parts,
                     _random_dependence, lru_get, lru_put)

__all__ = []

_TIME = dynamicsymbols._t


def _symbol_key(symbol):
    return sm.default_sort_key(symbol)


def _flat(rows):
    return [e for row in rows for e in row]


def _reactions(kane, u_aux, equations):
    """The reaction symbols of a model with the auxiliary speeds ``u_aux``
    (``KanesMethod(..., u_auxiliary=...)``): the functions of time in its
    auxiliary equations other than coordinates, speeds and their
    derivatives that the equations of motion (``equations``, with SymPy's
    reduced ones, where a noncontributing force cancels) do not contain.
    A load's symbol that the equations of motion do contain stays a
    specified input."""
    if not u_aux:
        return []
    aux = sm.Matrix(kane.auxiliary_eqs)
    known = set(kane.q) | set(kane.u) | set(u_aux)
    matrices = [sm.Matrix(equations), sm.Matrix(kane.mass_matrix),
                sm.Matrix(kane.forcing)]
    main = set()
    for matrix in matrices:
        main |= set(find_dynamicsymbols(matrix))
    found = {s for s in find_dynamicsymbols(aux)
             if not isinstance(s, sm.Derivative) and s not in known}
    # SymPy's reduced equations of a constrained model may keep a
    # reaction with a coefficient that is zero only after simplification
    # (a noncontributing force): it is a reaction too
    entries = [e for matrix in matrices for e in matrix]
    return sorted((s for s in found
                   if s not in main or not _random_dependence(entries, [s])),
                  key=_symbol_key)


def _velocity_parts(body, frame):
    """The measure numbers of the velocity of ``body``'s mass center and
    of its angular velocity in ``frame`` (each in the frames it is written
    in): an input there (a support moved at a prescribed speed) enters
    the unconstrained equations, and its rate their accelerations."""
    vectors = []
    try:
        vectors.append(body.masscenter.vel(frame))
        if hasattr(body, 'frame'):
            vectors.append(body.frame.ang_vel_in(frame))
    except ValueError:      # not defined: the equations say so later
        pass
    return [sm.Matrix(measure) for vector in vectors
            for measure, _ in vector.args]


def _input_rates(dynamic, known):
    """``(inputs, rates)``: the specified inputs among the functions of
    time ``dynamic`` (those not in ``known``: coordinates, speeds and
    friction magnitudes) and the first time derivatives of inputs among
    them (``Derivative(s(t), t)``, which become inputs of their own: see
    :func:`.arguments._specified_functions`). ValueError for any other
    derivative (of a coordinate or speed, or of second order)."""
    derivatives = {s for s in dynamic if isinstance(s, sm.Derivative)}
    inputs = {s for s in dynamic - derivatives if s not in known}
    rates = {d for d in derivatives if d.variables == (_TIME,)
             and d.expr not in known}
    others = derivatives - rates
    if others:
        raise ValueError(
            f'model: the equations of motion contain the time derivatives '
            f'{sorted(map(str, others))}; simulate() needs equations in q, '
            f'u, time functions and first time derivatives of specified '
            f'inputs only.')
    return inputs | {d.expr for d in rates}, rates


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
        # an unformed System's equations are assembled (see sympy_loads.
        # _assembly): no symbolic mass matrix or forcing to read
        self.assembled = isinstance(kane, UnformedKanesMethod)
        self._assembly = (Assembly(self.frame, self.q, self.u, self.kindiff,
                                   kane.bodies, kane.loads)
                          if self.assembled else None)
        if self.has_velocity_constraints or self._assembly is not None:
            reduced = sm.zeros(0, 1)     # not used: never evaluated
        else:
            reduced = sm.Matrix.vstack(
                sm.Matrix(kane.mass_matrix).reshape(len(self.u) ** 2, 1),
                sm.Matrix(kane.forcing))
        everything = sm.Matrix.vstack(
            m_kin.reshape(len(m_kin), 1), f_kin, f_h,
            k_nh.reshape(len(k_nh), 1), f_nh, reduced)
        # the reactions brought into evidence by auxiliary speeds: outputs,
        # not inputs (see reaction_expressions)
        self.u_aux = parts.u_aux
        self.reactions = _reactions(kane, parts.u_aux, everything)
        self._reaction_expressions = None
        # what the unconstrained equations set to zero: the auxiliary
        # speeds, and the reactions, noncontributing (their part lies in
        # the span of the velocity constraints' multipliers)
        self._zero = {s: 0 for s in self.u_aux + self.reactions}
        self._check_and_collect(everything, f_h, kane,
                                sm.Matrix.vstack(k_nh.reshape(len(k_nh), 1),
                                                 f_nh))

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
        if not (self.assembled and kane.derives_holonomic_rates):
            # (derived there from f_h: consistent by construction)
            check_velocity_constraints(f_h, k_nh, f_nh, self.kindiff,
                                       self.q, self.u, plain)
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
        # (see derived()): the constraint solver, the impacts' functions;
        # and, apart, the variants with feedback expressions compiled in
        # (see variant()), so that a sweep over gains evicts only those
        self._derived = {}
        self._variants = {}

    def _check_and_collect(self, everything, f_h, kane, constraint_part):
        """Set ``specified`` (the specified inputs, then the rates of those
        whose rates the equations need, see :func:`_input_rates`),
        ``velocity_inputs`` and the candidate constants (by name)."""
        dynamic = set(find_dynamicsymbols(everything))
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
            if self.has_velocity_constraints and self._assembly is None:
                # (the unconstrained equations, derived later, read them)
                parts += _velocity_parts(body, self.frame)
        if self._assembly is not None:
            parts += [sm.Matrix(m) for m in self._assembly.local_parts()]
        known = (set(self.q) | set(self.u) | set(self.friction)
                 | set(self.reactions) | set(self.u_aux))
        for part in parts:
            free |= part.free_symbols
            # (the loads' q' become u through the kinematic equations)
            dynamic |= {s for s in find_dynamicsymbols(part) if not (
                isinstance(s, sm.Derivative) and s.expr in known)}
        inputs, rates = _input_rates(dynamic, known)
        self.specified = sorted(inputs, key=_symbol_key)
        # the rates of inputs in the velocity constraints (the
        # acceleration constraints need them), the kinematic equations or
        # a point's velocity (the accelerations need them): the reduced
        # equations hold them as derivatives (found above), the
        # unconstrained ones, derived later, may need any (slots that no
        # equation uses are dropped in _prepare)
        in_velocity = set(find_dynamicsymbols(constraint_part)) & inputs
        if self.has_velocity_constraints or self._assembly is not None:
            rates |= {s.diff(_TIME) for s in inputs}
        self.velocity_inputs = sorted(in_velocity, key=_symbol_key)
        self.specified += sorted(rates, key=_symbol_key)
        self._candidates = {str(s): s for s in free - {_TIME}}
        if self.has_config_constraints:
            in_constraints = set(find_dynamicsymbols(f_h)) - set(self.q)
            if in_constraints:
                raise ValueError(
                    f'model: the holonomic constraints contain the specified '
                    f'inputs {sorted(map(str, in_constraints))}; only '
                    f'coordinates and time may appear in them (a coordinate '
                    f'driven through them would need the inputs\' first and '
                    f'second rates): write the input as an expression of '
                    f'time in the constraint (and its time derivative in '
                    f'the velocity constraint).')

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
        if self._assembly is not None:
            mass, forcing = self._assembly_equations(plain)
            g = self._acceleration_terms(velocity, conv, plain) if m else []
        elif m:
            mass, forcing = unconstrained_equations(self.kane, plain,
                                                    self._zero)
            mass = _flat(mass)
            g = self._acceleration_terms(velocity, conv, plain)
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
        used = {str(s) for s in free_symbols_of(hol + velocity + eom)}
        # the slots of inputs' rates that no equation uses (see
        # _check_and_collect) are dropped
        self.specified = [s for s in self.specified if not isinstance(
            s, sm.Derivative) or str(plain[s]) in used]
        used -= {str(s) for s in plain.values()}
        self.constants = sorted((self._candidates.get(name, sm.Symbol(name))
                                 for name in used), key=_symbol_key)
        self._outputs_of = {'hol': hol, 'vel': velocity, 'eom': eom}
        self.eom_size = len(eom)

    def _acceleration_terms(self, velocity, conv, plain):
        """``g``, the time derivative of the velocity constraints ``K u +
        k`` at ``u' = 0`` (the acceleration constraints are ``K u' + g =
        0``): through the time, the coordinates (``q'`` from the kinematic
        equations) and the specified inputs (their rates are inputs of
        their own, see :func:`_input_rates`). ValueError where a
        constraint contains an input's rate (its second rate would be
        needed)."""
        nu, m = len(self.u), len(self.u_dep_idx)
        qdot_map = self.kindiff
        qd = conv(sm.Matrix([qdot_map[s.diff(_TIME)] for s in self.q]))
        qs = conv(sm.Matrix([plain[s] for s in self.q]))
        us = conv(sm.Matrix([plain[s] for s in self.u]))
        ts = conv(sm.Matrix([plain[_TIME]]))[0]
        bases = [s for s in self.specified if not isinstance(
            s, sm.Derivative) and s.diff(_TIME) in plain]
        pairs = list(zip(conv(sm.Matrix([plain[s] for s in bases])),
                         conv(sm.Matrix([plain[s.diff(_TIME)]
                                         for s in bases]))))
        rates = {str(r): s for (_, r), s in zip(pairs, bases)}
        g = []
        for i in range(m):
            expr = sum((velocity[i * nu + j] * us[j] for j in range(nu)),
                       velocity[m * nu + i])
            found = [rates[str(s)] for s in expr.free_symbols
                     if str(s) in rates]
            if found:
                raise ValueError(
                    f'model: the velocity constraints contain the time '
                    f'derivatives of the specified inputs '
                    f'{sorted(str(s.diff(_TIME)) for s in found)}; the '
                    f'acceleration constraints would need their second '
                    f'derivatives. Give the rate as an input of its own '
                    f'(another dynamicsymbol).')
            value = expr.diff(ts)
            for qi, qdi in zip(qs, qd):
                value += expr.diff(qi) * qdi
            for s, rate in pairs:
                value += expr.diff(s) * rate
            g.append(value)
        return g

    def _assembly_equations(self, plain):
        """The flat mass matrix and the forcing of an unformed System,
        assembled (:mod:`sympy_loads._assembly`; SymEngine needed)."""
        if not symengine_available():
            raise ValueError(
                'model: simulating a System whose equations are not formed '
                'needs SymEngine; install it or call model.form_eoms() '
                'before simulate().')
        mass, forcing, self._sums = self._assembly.equations(plain,
                                                             self._zero)
        self._assembly = None      # its frames and points are not kept
        return _flat(mass), forcing

    def _generate(self, backend):
        kind = 'llvm' if backend == 'compiled' else 'numpy'
        inputs = self.inputs()
        functions = {}
        for name, outputs in self._outputs_of.items():
            # assembled equations (an unformed System) are a large shared
            # graph: compiled node by node (_numeric.dag_llvm), at LLVM's
            # level 0, several times faster to compile
            # and the constraints' large Jacobians too (codegen.generate)
            graph = self.assembled and name == 'eom'
            functions[name] = generate(
                inputs, outputs, kind, name, opt_level=0 if graph else None,
                graph=graph or 'auto', sums=getattr(self, '_sums', ())
                if graph else ())
        self._sums = ()          # (the code is made; not kept, not pickled)
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
        state['_variants'] = state.get('_variants', {}).copy()
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
        return _kept(self._derived, key, build)

    def variant(self, key, build):
        """As :meth:`derived`, for the variants of this model with
        feedback expressions compiled in (:mod:`.feedback`), in a cache of
        their own (the last :data:`OUTPUT_CACHE_SIZE`), which the variants
        share: a sweep over many gains keeps that many variants and evicts
        nothing else derived from the model."""
        return _kept(self._variants, key, build)

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

    @property
    def aux_zero(self):
        """``{u_a': 0, u_a: 0}`` for the auxiliary speeds ``u_a``: they
        vanish in the motion (a velocity written with them, in an output
        or an impact, is the velocity of the motion without them)."""
        zero = {s.diff(_TIME): 0 for s in self.u_aux}
        zero.update({s: 0 for s in self.u_aux})
        return zero

    def reaction_expressions(self, name=None):
        """``{reaction: expression}``: the reactions brought into evidence
        by the auxiliary speeds (:attr:`reactions`), solved from the
        auxiliary equations of the ``KanesMethod`` (linear in them) as
        expressions of the coordinates, speeds, their time derivatives,
        the specified inputs and the constants; outputs take them from
        here. ValueError (naming the output ``name``) where the auxiliary
        equations do not determine them."""
        if self._reaction_expressions is None:
            aux = [e for e in sm.Matrix(self.kane.auxiliary_eqs)]
            A, b = sm.linear_eq_to_matrix(aux, self.reactions)
            rows = [i for i in range(A.rows) if any(A.row(i))]
            A, b = A.extract(rows, list(range(A.cols))), b.extract(rows, [0])
            if A.rows != A.cols or A.det() == 0:
                raise ValueError(
                    f'outputs[{name!r}]: the auxiliary equations of the '
                    f'model do not determine the reactions '
                    f'{[str(s) for s in self.reactions]} (their '
                    f'coefficients form a {A.rows}x{A.cols} matrix that is '
                    f'not invertible); add an auxiliary speed in the '
                    f'direction of each reaction.')
            self._reaction_expressions = dict(zip(self.reactions,
                                                  A.LUsolve(b)))
        return self._reaction_expressions

    def loop_multipliers(self, loops):
        """The :class:`.multipliers.LoopMultipliers` of the LoopJoints
        ``loops`` (their ``B``, generated once per set of loops and kept
        with the model, see :meth:`derived`)."""
        from .multipliers import LoopMultipliers
        key = ('loop multipliers', tuple(
            (loop.name, sm.ImmutableMatrix(loop.holonomic_constraints))
            for loop in loops))
        return self.derived(key, lambda: LoopMultipliers(self, loops))

    def output_function(self, outputs, multipliers=()):
        """The :class:`OutputSpec` of the ``outputs`` mapping, generated
        once per set of expressions (its ``function`` takes the rows
        ``[x, extra constants, u', lambda]``, ``lambda`` the values of the
        LoopJoints' ``multipliers`` it uses, none if it uses none). The
        last :data:`OUTPUT_CACHE_SIZE` sets used are kept
        (:func:`lru_get`): a sweep with new expressions per call does not
        keep every generated function."""
        multipliers = list(multipliers)
        key = (tuple((name, expr) for name, expr in outputs.items()),
               tuple(multipliers))
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
        lam_symbols = [sm.Symbol(f'{tag}l{i}')
                       for i in range(len(multipliers))]
        allowed = (set(self.q) | set(self.u) | set(self.specified)
                   | set(self.friction) | set(multipliers))
        exprs, shapes = [], []
        for name, expr in outputs.items():
            matrix = sm.Matrix([expr]) if not isinstance(
                expr, sm.MatrixBase) else sm.Matrix(expr)
            if matrix.shape[1] != 1 and matrix.shape[0] != 1:
                raise ValueError(
                    f'outputs[{name!r}] must be a scalar or a column/row '
                    f'matrix, not shape {matrix.shape}.')
            if self.reactions and matrix.has(*self.reactions):
                matrix = matrix.xreplace(self.reaction_expressions(name))
            matrix = matrix.xreplace(self.aux_zero)
            matrix = matrix.xreplace(kindiff)
            matrix = matrix.xreplace(dict(zip(udot, udot_symbols)))
            unknown = [s for s in find_dynamicsymbols(matrix)
                       if s not in allowed]
            if unknown:
                raise ValueError(
                    f'outputs[{name!r}] contains {sorted(map(str, unknown))}, '
                    f'which are neither coordinates, speeds, their time '
                    f'derivatives nor specified inputs of the model'
                    f'{_multiplier_hint(unknown, multipliers)}.')
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
        used = [i for i, s in enumerate(multipliers)
                if any(e.has(s) for e in exprs)]
        used_multipliers = [multipliers[i] for i in used]
        lam_symbols = [lam_symbols[i] for i in used]
        lam_plain = dict(zip(used_multipliers, lam_symbols))
        flat = [e.xreplace(lam_plain).xreplace(renamed).xreplace(self._plain)
                for matrix in exprs for e in matrix]
        inputs = (self.inputs() + list(renamed.values()) + udot_symbols
                  + lam_symbols)
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
                           uses_udot, used_multipliers)
        lru_put(self._outputs, key, entry, OUTPUT_CACHE_SIZE)
        return entry


def _multiplier_hint(unknown, multipliers):
    """What to say of the ``unknown`` functions of an output that look
    like a LoopJoint's multipliers (``lambda_<name>_<Fx...Tz>``) the model
    does not have (a KanesMethod knows no joints)."""
    names = [str(s) for s in unknown
             if re.fullmatch(r'lambda_.+_[FT][xyz]\(t\)', str(s))]
    if not names:
        return ''
    return (f' ({", ".join(names)} look like LoopJoint multipliers; '
            f'outputs may contain the multipliers of the LoopJoints of a '
            f'System given as the model (simulate(system, ...), not its '
            f'KanesMethod)'
            + (f', here {[str(s) for s in multipliers]}'.replace("'", '')
               if multipliers else '') + ')')


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
    #: the LoopJoints' multipliers the outputs contain (the last inputs of
    #: ``function``, in this order)
    multipliers: list = []


# output functions kept per numeric model (simulate()'s outputs), and
# entries of NumericModel.derived (constraint solvers, the impacts'
# functions, other partitions' functions, the linearization's) and, apart,
# of NumericModel.variant (feedback variants)
OUTPUT_CACHE_SIZE = 16


def _kept(cache, key, build):
    """``cache[key]``, made by ``build()`` where it is not there (the last
    :data:`OUTPUT_CACHE_SIZE` keys are kept)."""
    found = lru_get(cache, key)
    if found is None:
        found = build()
        lru_put(cache, key, found, OUTPUT_CACHE_SIZE)
    return found
