r"""Private: linearization and static equilibrium of a numeric model, the
machinery behind :func:`sympy_loads.linearize`,
:func:`sympy_loads.equilibrium` and the methods of the same names of
:class:`sympy_loads.Simulation`.

The numeric model (:mod:`.numeric_model`) holds the *unconstrained*
equations and the constraints as expressions in the plain symbols of its
input vector. Written as residuals, with the rates ``q'``, ``u'`` and the
multipliers ``lambda`` of the velocity constraints as further symbols::

    kinematics     R_k = M_k(q) q' - f_k(q, u, s)                  = 0
    dynamics       R_d = M(q) u' - F(q, u, s) - K(q)^T lambda       = 0
    velocity       h   = K(q) u + k(q, s)                           = 0
    acceleration   R_a = K(q) u' + g(q, u, s, s')                   = 0
    configuration  phi(q)                                           = 0

(``C^T (F - M u') = 0`` with ``C`` a basis of the null space of ``K``,
the form :func:`.numpy_kernels.derivatives` solves, is the same as
``M u' - F`` lying in the row space of ``K``, i.e. ``R_d = 0`` for some
``lambda``.) Their Jacobians with respect to ``q``, ``u`` and the
specified inputs ``s`` are derived symbolically (SymEngine) and generated
as one function with the model's code generator, once per model. At an
operating point the implicit function theorem then gives the exact
derivatives of the independent rates along the constraint manifold: with
``dq = T_q dq_I`` (``T_q`` from ``phi_q``), ``du = T_u du_J + S dq + W
ds`` (from ``K``, ``h_q`` and ``h_s``: an input inside the velocity
constraints moves the dependent speeds)::

    M_k dq'                = -(R_k,q dq + R_k,u du + R_k,s ds)
    [M  -K^T] [du'     ]   = -[R_d,q dq + R_d,u du + R_d,s ds]
    [K    0 ] [dlambda ]      [R_a,q dq + R_a,u du + R_a,s ds]

so ``A`` and ``B`` are exact up to round-off: no finite differences. The
rate ``s'`` of an input whose rate the equations need (an input inside
the velocity constraints or the kinematic equations) is an input of its
own, ``Derivative(s, t)``: zero at the operating point unless given, and
a column of ``B`` when named in ``inputs``.

The independent coordinates and speeds (the states of the linear model)
are the model's, unless its dependent block of ``phi_q`` or ``K`` is ill
conditioned at the operating point: its measure
(:func:`.partition.block_measure`, the smallest pivot over the largest
column norm of the *full* Jacobian) below
:data:`.partition.PARTITION_RATIO`; then the dependent ones are those
chosen by QR with column pivoting, the best conditioned block, where it
is :data:`.partition.PARTITION_GAIN` times better: simulate()'s rule at
its start (:func:`choose_partition`). Measured against its own scale, a
1 x 1 block (``2 x`` of a circle at ``x = 1e-16``) would always look well
conditioned. The rates and multipliers at the operating point come from
the augmented system ``[M -K^T; K 0] [u'; lambda] = [F; -g]``, which
needs no such choice.

The equilibrium search (:func:`equilibrium_at`) uses the same choice at
the guess and makes it again where the blocks degrade on the way; its
dependent speeds are solved from the velocity constraints (independent
speeds zero), so that constraints moving with time give the quasi-static
rest.
"""

from typing import NamedTuple

import numpy as np
import sympy as sm
from scipy import optimize
from sympy.physics.mechanics import dynamicsymbols

from .arguments import _initial_state, _pack_constants, check_specified_keys
from .partition import (PARTITION_GAIN, PARTITION_RATIO, Partition,
                        best_columns, block_measure, full_jacobians)
from .piecewise_smooth import PiecewiseSmooth, check_sides
from .problem import format_state
from .shared_derivatives import shared_jacobian
from ..constraints import HolonomicConstraintSolver
from .._errors import (ConstraintSolverError, EquilibriumError,
                       MissingValuesError)
from .._numeric import eom_blocks
from .._numeric.codegen import (CodegenError, MiscompiledError, generate,
                               nodes_of, symengine_available, to_symengine)
from .._utils import _as_float

__all__ = []

_TIME = dynamicsymbols._t

#: Where even the best conditioned dependent block measures below this
#: (:func:`.partition.block_measure`), the full constraint Jacobian has
#: lost rank: no independent set parametrizes the motion (a ValueError).
CONDITION_RATIO = 1e-8


class LinearFunctions:
    """The generated Jacobians of one numeric model (see the module
    documentation): ``function(x)`` with ``x = [nm inputs, q', u',
    lambda]`` returns the blocks named in :attr:`layout`."""

    def __init__(self, nm):
        nq, nu = len(nm.q), len(nm.u)
        m = len(nm.u_dep_idx)
        nh = int(nm.dims[2])
        use_se = symengine_available()
        se = None
        if use_se:
            import symengine as se
            make, convert = se.Symbol, to_symengine
        else:
            make, convert = sm.Symbol, list
        inputs = convert(list(nm.inputs()))
        plain_q = inputs[1:1 + nq]
        plain_u = inputs[1 + nq:1 + nq + nu]
        n_in = len(inputs)
        ns = len(nm.specified)
        plain_s = inputs[n_in - ns - len(nm.friction):
                         n_in - len(nm.friction)] if ns else []
        tag = nm._tag
        qd = [make(f'{tag}Lqd{i}') for i in range(nq)]
        ud = [make(f'{tag}Lud{i}') for i in range(nu)]
        lam = [make(f'{tag}Llam{i}') for i in range(m)]
        hol = convert(list(nm.functions['hol'].outputs))[:nh]
        vel = convert(list(nm.functions['vel'].outputs))
        eom = convert(list(nm.functions['eom'].outputs))
        # Abs, Max, Heaviside, ...: differentiated where they are smooth
        self.smooth = PiecewiseSmooth(hol + vel + eom, se if use_se else sm,
                                      f'{tag}Lk')
        hol, vel, eom = (self.smooth.rewrite(v) for v in (hol, vel, eom))
        K = [vel[i * nu:(i + 1) * nu] for i in range(m)]
        k = vel[m * nu:m * nu + m]
        f_kin, mass, forcing, g0, end = eom_blocks(
            nq, nu, m, nm.kinematics_is_identity)
        if nm.kinematics_is_identity:
            one, zero = convert([sm.Integer(1), sm.Integer(0)])
            Mk = [[one if i == j else zero for j in range(nq)]
                  for i in range(nq)]
        else:
            Mk = [eom[i * nq:(i + 1) * nq] for i in range(nq)]
        fk = eom[f_kin:mass]
        M = [eom[mass + i * nu:mass + (i + 1) * nu] for i in range(nu)]
        F = eom[forcing:g0]
        g = eom[g0:end] if m else []
        h = [sum((K[i][j] * plain_u[j] for j in range(nu)), k[i])
             for i in range(m)]
        Rk = [sum((Mk[i][j] * qd[j] for j in range(nq)), -fk[i])
              for i in range(nq)]
        Rd = [sum((M[i][j] * ud[j] for j in range(nu)), -F[i])
              - sum((K[l][i] * lam[l] for l in range(m)), 0)
              for i in range(nu)]
        Ra = [sum((K[i][j] * ud[j] for j in range(nu)), g[i])
              for i in range(m)]

        if use_se and nm.assembled:
            # a shared graph: each subexpression differentiated once, for
            # all rows and variables together (see .shared_derivatives)
            variables = list(plain_q) + list(plain_u) + list(plain_s)
            rows = hol + h + Rk + Rd + Ra
            table = dict(zip(map(id, rows), shared_jacobian(rows,
                                                            variables)))
            column = {id(v): k for k, v in enumerate(variables)}

            def jac(rows, symbols):
                return [table[id(expr)][column[id(s)]] for expr in rows
                        for s in symbols]
        else:
            def jac(rows, symbols):
                return [expr.diff(s) for expr in rows for s in symbols]

        # the residuals' values are not needed: the operating point is
        # consistent, and the rates and multipliers come from the model's
        # own functions (see rates())
        blocks = [
            ('phi', hol), ('phi_q', jac(hol, plain_q)),
            ('h_q', jac(h, plain_q)), ('h_s', jac(h, plain_s)),
            ('K', [e for r in K for e in r]),
            ('Rk_q', jac(Rk, plain_q)), ('Rk_u', jac(Rk, plain_u)),
            ('Rk_s', jac(Rk, plain_s)),
            ('Mk', [e for r in Mk for e in r]),
            ('Rd_q', jac(Rd, plain_q)), ('Rd_u', jac(Rd, plain_u)),
            ('Rd_s', jac(Rd, plain_s)), ('M', [e for r in M for e in r]),
            ('Ra_q', jac(Ra, plain_q)), ('Ra_u', jac(Ra, plain_u)),
            ('Ra_s', jac(Ra, plain_s)),
        ]
        if self.smooth:
            # ... except to see a piecewise-smooth function jump at the
            # point (the residuals differ between the sides of its switch)
            blocks.append(('residuals', Rk + Rd + Ra + h))
        shapes = dict(phi=(nh,), phi_q=(nh, nq), h_q=(m, nq),
                      h_s=(m, ns), K=(m, nu),
                      Rk_q=(nq, nq), Rk_u=(nq, nu), Rk_s=(nq, ns),
                      Mk=(nq, nq), Rd_q=(nu, nq), Rd_u=(nu, nu),
                      Rd_s=(nu, ns), M=(nu, nu), Ra_q=(m, nq), Ra_u=(m, nu),
                      Ra_s=(m, ns), residuals=(nq + nu + 2 * m,))
        outputs, layout, start = [], {}, 0
        for name, values in blocks:
            values = list(values)
            layout[name] = (start, start + len(values), shapes[name])
            outputs += values
            start += len(values)
        if use_se:
            outputs = to_symengine(outputs)
        else:
            outputs = [sm.sympify(e) for e in outputs]
        _check_differentiated(outputs, se if use_se else sm)
        self.layout = layout
        self.sizes = (nq, nu, m, nh, ns)
        all_inputs = inputs + qd + ud + lam + self.smooth.selectors
        self.function = _generate(all_inputs, outputs, nm, 'linearization')
        self.switches = (_generate(inputs, self.smooth.distances, nm,
                                   'switches') if self.smooth else None)
        self._names = {plain: symbol for symbol, plain in nm._plain.items()}
        self._state = (nm.q, nm.u, nm.slices)

    def __call__(self, x, qdot, udot, lam, check=False):
        """The blocks at ``x``; a piecewise-smooth function of the model
        is taken on the side of its switch on which the point lies (see
        :mod:`.piecewise_smooth`). ``check``: ValueError where the point
        is on a switch and another side gives other blocks."""
        base = np.concatenate([x, qdot, udot, lam]).astype(float)
        if not self.smooth:
            return self._blocks(base)
        with np.errstate(all='ignore'):
            values = np.asarray(self.switches(x), dtype=float).ravel()
        sides, switching = self.smooth.sides(values)
        own, others = self.smooth.combinations(sides, switching)
        blocks = self._blocks(np.concatenate([base, own]))
        if check and others:
            q, u, slices = self._state
            where = (f'{format_state(q, x[slices[0]])}; '
                     f'{format_state(u, x[slices[1]])}')
            check_sides(blocks, own, [
                (changed, self._blocks(np.concatenate([base, vector])))
                for changed, vector in others],
                lambda i: self.smooth.label(i, self._names), where)
        return blocks

    def _blocks(self, inputs):
        with np.errstate(all='ignore'):
            values = np.asarray(self.function(inputs), dtype=float).ravel()
        return {name: values[a:b].reshape(shape)
                for name, (a, b, shape) in self.layout.items()}


def _generate(inputs, outputs, nm, name):
    """A generated function of the model's back end (NumPy where the
    compiled code fails its check)."""
    kind = 'llvm' if nm.backend == 'compiled' else 'numpy'
    try:
        # LLVM's level 0: a third of the compile time, the same speed
        # (see GeneratedFunction); an unformed System's derivatives are a
        # large shared graph, compiled node by node (_numeric.dag_llvm)
        return generate(inputs, outputs, kind, name, opt_level=0,
                        graph=nm.assembled)
    except CodegenError as error:
        if kind == 'numpy' or not isinstance(error, MiscompiledError):
            raise
        return generate(inputs, outputs, 'numpy', name)


def _check_differentiated(outputs, module):
    """ValueError naming the functions of the model whose derivatives are
    not known (an unevaluated ``Derivative``, a ``DiracDelta``), which no
    back end can compile."""
    types = ((sm.Derivative, sm.DiracDelta) if module is sm else
             (module.Derivative, module.Function))
    unknown = {a for a in nodes_of(outputs, types) if (
        type(a).__name__ in ('Derivative', 'DiracDelta') or
        type(a).__name__ == 'PyFunction' and a.get_name() == 'DiracDelta')}
    if unknown:
        text = ', '.join(sorted(str(a) for a in unknown)[:3])
        text = text if len(text) <= 160 else text[:157] + '...'
        raise ValueError(
            f'linearization: the derivatives of the equations contain '
            f'{text}: a function whose derivative is not known. Smooth '
            f'functions, and Abs, sign, Max, Min, Heaviside and Piecewise '
            f'where they are smooth, can be linearized.')


def _kept(nm, name, build):
    """``build()``, made once per numeric model and kept with it
    (:meth:`.numeric_model.NumericModel.derived`)."""
    return nm.derived(('linearization', name), build)


def linear_functions(nm):
    """The :class:`LinearFunctions` of ``nm``, generated on first use and
    kept with the numeric model."""
    return _kept(nm, 'functions', lambda: LinearFunctions(nm))


def constraint_solver(nm, constants_map, options=None):
    """The :class:`HolonomicConstraintSolver` of the configuration
    constraints of ``nm`` (made once and kept with it) with the values of
    ``constants_map``; None without configuration constraints."""
    if not nm.has_config_constraints:
        return None
    solver = nm.constraint_solver(options)
    return solver.with_constants({k: constants_map[k]
                                  for k in solver.constants})


def _dependent_set(jacobian, model_dep, what, kind):
    """The dependent columns (indices, ascending) of ``jacobian``
    (``Phi_q`` or ``K``) at an operating point, by the rule simulate()
    applies at its start (:mod:`.partition`): the model's ``model_dep``
    while their block's measure (:func:`.partition.block_measure`: its
    smallest pivot over the largest column norm of the *full* Jacobian,
    so that a 1 x 1 block such as ``2 x`` at ``x = 1e-16`` counts as
    singular) is at least :data:`.partition.PARTITION_RATIO`; else the
    best conditioned set (QR with column pivoting) where that is
    :data:`.partition.PARTITION_GAIN` times better. ``ValueError`` naming
    ``what`` where the set taken measures below :data:`CONDITION_RATIO`:
    the full Jacobian has lost rank there."""
    dep = tuple(int(i) for i in model_dep)
    if not dep:
        return dep
    if not np.all(np.isfinite(jacobian)):
        raise ValueError(f'{what}: the {kind} constraints\' Jacobian is '
                         f'not finite there.')
    now = block_measure(jacobian, dep)
    if now < PARTITION_RATIO:
        best = best_columns(jacobian, len(dep))
        better = block_measure(jacobian, best)
        if better > PARTITION_GAIN * now:
            dep, now = best, better
    if not now > CONDITION_RATIO:
        kinds = 'coordinates' if kind == 'configuration' else 'speeds'
        raise ValueError(
            f'{what}: the {kind} constraints are singular there '
            f'(rank-deficient Jacobian): no set of independent {kinds} '
            f'parametrizes the motion about it.')
    return dep


def choose_partition(nm, x, what='operating_point'):
    """The :class:`.partition.Partition` (dependent coordinates and
    speeds) to linearize with at the consistent input ``x``: for each of
    ``Phi_q`` and ``K`` (:func:`.partition.full_jacobians`), the model's
    dependent set where it is well conditioned, another one where it is
    not (:func:`_dependent_set`)."""
    J, K = full_jacobians(nm, x)
    q_dep = () if J is None else _dependent_set(
        J, nm.q_dep_idx, what, 'configuration')
    u_dep = () if K is None else _dependent_set(
        K, nm.u_dep_idx, what, 'velocity')
    return Partition(q_dep, u_dep)


def _split(dependent, n):
    """``(independent, dependent)`` index arrays of ``range(n)``."""
    dep = np.array(sorted(int(i) for i in dependent), dtype=int)
    ind = np.array([i for i in range(n) if i not in set(dep)], dtype=int)
    return ind, dep


def rates(nm, x, what='operating_point'):
    """``(q', u', lambda)`` at the consistent state in ``x``: the
    unconstrained equations with the velocity constraints' multipliers,
    ``[M -K^T; K 0] [u'; lambda] = [F; -g]``, which needs no choice of
    dependent speeds (the model's may be singular at ``x``). A singular
    mass matrix (or matrix of the kinematic differential equations) is a
    ``ValueError`` naming ``what`` and the state, as simulate() names
    it."""
    try:
        return _rates(nm, x, what)
    except np.linalg.LinAlgError:
        raise ValueError(
            f'{what}: the mass matrix is singular at t = {float(x[0]):.10g} '
            f'({format_state(nm.q, x[nm.slices[0]])}; '
            f'{format_state(nm.u, x[nm.slices[1]])}).') from None


def _rates(nm, x, what):
    nq, nu, m = len(nm.q), len(nm.u), len(nm.u_dep_idx)
    with np.errstate(all='ignore'):
        e = np.asarray(nm.functions['eom'](x), dtype=float).ravel()
        f_kin, mass, forcing, g0, end = eom_blocks(
            nq, nu, m, nm.kinematics_is_identity)
        if nm.kinematics_is_identity:
            qdot = e[:nq].copy()
        else:
            try:
                qdot = np.linalg.solve(e[:f_kin].reshape(nq, nq),
                                       e[f_kin:mass])
            except np.linalg.LinAlgError:
                raise ValueError(
                    f'{what}: the kinematic differential equations cannot '
                    f'be solved for the coordinates\' rates at t = '
                    f'{float(x[0]):.10g} '
                    f'({format_state(nm.q, x[nm.slices[0]])}): their '
                    f'matrix is singular there.') from None
        M = e[mass:forcing].reshape(nu, nu)
        F = e[forcing:g0]
        if m:
            g = e[g0:end]
            vel = np.asarray(nm.functions['vel'](x), dtype=float).ravel()
            K = vel[:m * nu].reshape(m, nu)
            system = np.block([[M, -K.T], [K, np.zeros((m, m))]])
            solution = np.linalg.solve(system, np.concatenate([F, -g]))
            udot, lam = solution[:nu], solution[nu:]
        else:
            udot, lam = np.linalg.solve(M, F), np.zeros(0)
    if not (np.all(np.isfinite(qdot)) and np.all(np.isfinite(udot))):
        raise ValueError(f'{what}: the equations of motion are not finite '
                         f'there.')
    return qdot, udot, lam


def linearize_at(nm, x, input_columns, partition=None, check=False,
                 what='operating_point'):
    """``(A, B, q_ind, u_ind)`` about the consistent state in ``x`` (the
    numeric model's input vector); ``input_columns`` are the indices of
    the inputs in ``nm.specified``; ``partition``: the dependent
    coordinates and speeds to eliminate (a :class:`.partition.Partition`;
    by default :func:`choose_partition` chooses them at ``x``);
    ``check``: ValueError where a piecewise-smooth function of the model
    is not differentiable at ``x`` (see :class:`LinearFunctions`);
    ``what`` names the argument in messages."""
    nq, nu, m = len(nm.q), len(nm.u), len(nm.u_dep_idx)
    nh = int(nm.dims[2])
    functions = linear_functions(nm)
    if partition is None:
        partition = choose_partition(nm, x)
    qdot, udot, lam = rates(nm, x, what)
    J = functions(x, qdot, udot, lam, check=check)
    # dependent coordinates: dq = Tq dq_I
    if nh:
        q_ind, q_dep = _split(partition.q_dep, nq)
        Tq = np.zeros((nq, len(q_ind)))
        Tq[q_ind, np.arange(len(q_ind))] = 1.0
        Tq[q_dep] = -np.linalg.solve(J['phi_q'][:, q_dep],
                                     J['phi_q'][:, q_ind])
    else:
        q_ind, Tq = np.arange(nq), np.eye(nq)
    # dependent speeds: du = Tu du_J + S dq
    if m:
        u_ind, u_dep = _split(partition.u_dep, nu)
        Kd = J['K'][:, u_dep]
        Tu = np.zeros((nu, len(u_ind)))
        Tu[u_ind, np.arange(len(u_ind))] = 1.0
        Tu[u_dep] = -np.linalg.solve(Kd, J['K'][:, u_ind])
        S = np.zeros((nu, nq))
        S[u_dep] = -np.linalg.solve(Kd, J['h_q'])
    else:
        u_ind, Tu, S = np.arange(nu), np.eye(nu), np.zeros((nu, nq))
    cols = np.asarray(input_columns, dtype=int)
    ds = len(cols)
    # the dependent speeds move with an input in the velocity constraints
    W = np.zeros((nu, ds))
    if m and ds:
        W[u_dep] = -np.linalg.solve(Kd, J['h_s'][:, cols])
    # the state x = [dq_I, du_J] and the inputs ds
    nj = len(u_ind)
    dq = np.hstack([Tq, np.zeros((nq, nj))])
    du = np.hstack([S @ Tq, Tu])
    # kinematics
    rk = J['Rk_q'] @ dq + J['Rk_u'] @ du
    qd_x = -np.linalg.solve(J['Mk'], rk)
    qd_s = -np.linalg.solve(J['Mk'], J['Rk_s'][:, cols] + J['Rk_u'] @ W)
    # dynamics (with the acceleration constraints and multipliers)
    rd = J['Rd_q'] @ dq + J['Rd_u'] @ du
    rd_s = J['Rd_s'][:, cols] + J['Rd_u'] @ W
    if m:
        ra = J['Ra_q'] @ dq + J['Ra_u'] @ du
        ra_s = J['Ra_s'][:, cols] + J['Ra_u'] @ W
        system = np.block([[J['M'], -J['K'].T],
                           [J['K'], np.zeros((m, m))]])
        ud_x = -np.linalg.solve(system, np.vstack([rd, ra]))[:nu]
        ud_s = -np.linalg.solve(system, np.vstack([rd_s, ra_s]))[:nu]
    else:
        ud_x = -np.linalg.solve(J['M'], rd)
        ud_s = -np.linalg.solve(J['M'], rd_s)
    A = np.vstack([qd_x[q_ind], ud_x[u_ind]])
    B = np.vstack([qd_s[q_ind], ud_s[u_ind]])
    return A, B, q_ind, u_ind


#: The most changes of the independent set in one equilibrium search.
MAX_SET_CHANGES = 8


class _SetChange(Exception):
    """Inside the equilibrium search: the set's block degraded at ``q``;
    search on from there with ``partition``."""

    def __init__(self, partition, q):
        super().__init__()
        self.partition, self.q = partition, q


class _Search:
    """The equations of the equilibrium search in one partition: the
    independent coordinates are the unknowns, the dependent ones are
    solved from the configuration constraints (``solver``, a solver of
    this partition's dependent set), the independent speeds are zero and
    the dependent ones are solved from the velocity constraints (not zero
    where the constraints move with time), and the residuals are the
    independent accelerations. Where the current blocks degrade
    (:func:`_dependent_set` would change them) or the solve fails and
    another set is better conditioned, :class:`_SetChange` is raised."""

    def __init__(self, nm, solver, x, q, partition):
        self.nm, self.solver, self.x = nm, solver, x
        self.partition = partition
        self.q_ind, self.q_dep = _split(partition.q_dep, len(nm.q))
        self.u_ind, self.u_dep = _split(partition.u_dep, len(nm.u))
        self.current = np.array(q, dtype=float)
        self._last = (None, None)

    def state(self, z):
        """The input vector at the independent coordinates ``z`` (the
        last one again where ``z`` is the last: least_squares asks for
        the residual and the Jacobian at the same point)."""
        z = np.array(z, dtype=float)
        if self._last[0] is not None and np.array_equal(z, self._last[0]):
            return self._last[1]
        x = self._state(z)
        self._last = (z, x)
        return x

    def _state(self, z):
        nm, t = self.nm, float(self.x[0])
        q = self.current.copy()
        q[self.q_ind] = z
        if self.solver is not None:
            try:
                q = np.asarray(self.solver.solve_positions(q, t),
                               dtype=float)
            except ConstraintSolverError as error:
                self._change_from(self.current, error)
        x = self.x.copy()
        x[nm.slices[0]] = q
        self._check(x, q)
        if len(self.u_dep):
            vel = np.asarray(nm.functions['vel'](x), dtype=float).ravel()
            try:
                x[nm.slices[1]] = _dependent_speeds(
                    nm, vel, np.zeros(len(nm.u)), self.u_dep)
            except np.linalg.LinAlgError:
                raise EquilibriumError(
                    f'equilibrium: the velocity constraints lose rank at '
                    f'{format_state(nm.q, q)} (no set of independent speeds '
                    f'parametrizes the motion there); try another guess.',
                    residual=float('nan'),
                    equations=('velocity constraints',),
                    solution=q) from None
        self.current[:] = q
        return x

    def _check(self, x, q):
        """:class:`_SetChange` where the rule of :func:`_dependent_set`
        changes a block of the current partition at ``x``."""
        J, K = full_jacobians(self.nm, x)
        new = []
        for matrix, dep, kind in ((J, self.partition.q_dep, 'configuration'),
                                  (K, self.partition.u_dep, 'velocity')):
            if matrix is None or not len(dep):
                new.append(tuple(dep))
                continue
            try:
                new.append(_dependent_set(matrix, dep, 'equilibrium', kind))
            except ValueError:
                new.append(tuple(dep))    # singular mechanism: as before
        partition = Partition(*new)
        if partition != self.partition:
            raise _SetChange(partition, q)

    def _change_from(self, q, error):
        """The solve failed from the last accepted ``q``: search on from
        there in any better conditioned set of coordinates (as simulate()
        does after a failed step), else report the failure."""
        x = self.x.copy()
        x[self.nm.slices[0]] = q
        J, _ = full_jacobians(self.nm, x)
        best = best_columns(J, len(self.q_dep))
        if best != tuple(self.partition.q_dep) and block_measure(
                J, best) > block_measure(J, self.partition.q_dep):
            raise _SetChange(Partition(best, self.partition.u_dep),
                             q.copy()) from None
        raise EquilibriumError(
            f'equilibrium: the configuration constraints could not be '
            f'solved during the search ({error}); try another guess.',
            residual=error.residual, equations=('configuration constraints',),
            solution=q) from error

    def residual(self, z, what='equilibrium'):
        """The independent accelerations at the independent coordinates
        ``z`` (``what`` names the search or the guess in messages)."""
        return rates(self.nm, self.state(z), what)[1][self.u_ind]

    def jacobian(self, z):
        A, _, q_i, _ = linearize_at(self.nm, self.state(z), [],
                                    self.partition, what='equilibrium')
        return A[len(q_i):, :len(q_i)]

    def run(self):
        """``(residual, evaluations)`` at the end of ``least_squares``
        (Levenberg-Marquardt where there are at least as many equations
        as unknowns: a neutral direction such as an ignorable coordinate
        does not stop it)."""
        z0 = self.current[self.q_ind].copy()
        method = 'lm' if len(self.u_ind) >= len(self.q_ind) else 'trf'
        with np.errstate(all='ignore'):
            solution = optimize.least_squares(
                self.residual, z0, jac=self.jacobian, method=method,
                xtol=1e-15, ftol=1e-15, gtol=1e-15,
                max_nfev=100 * (len(self.q_ind) + 1))
        return self.residual(solution.x), solution.nfev


def equilibrium_at(nm, solver_for, q_guess, x, partition, tolerance):
    """The coordinates of a static equilibrium near ``q_guess``: the
    independent accelerations zero with the independent speeds zero
    (the dependent speeds as the velocity constraints give them), the
    constraints satisfied.

    The unknowns are the independent coordinates of ``partition`` (chosen
    at the guess as :func:`linearize_at` chooses them); the dependent ones
    are solved from the configuration constraints at every evaluation
    (``solver_for(dependent)`` gives the solver, as in ``simulate()``, so
    the search stays on the assembly branch of the guess), and the
    equations are the independent accelerations, whose exact Jacobian is
    the static block of :func:`linearize_at`, solved by
    ``scipy.optimize.least_squares`` (see :class:`_Search`). Where the
    partition's blocks degrade on the way, the search goes on from there
    in a better conditioned set (at most :data:`MAX_SET_CHANGES` times).
    :class:`EquilibriumError` when the accelerations reached are above
    ``tolerance`` (relative to those at the guess, at least 1)."""
    x = np.array(x, dtype=float)
    q = np.array(q_guess, dtype=float)
    scale = None
    for _ in range(MAX_SET_CHANGES + 1):
        search = _Search(nm, solver_for(partition.q_dep), x, q, partition)
        try:
            if scale is None:
                start = search.residual(q[search.q_ind], 'guess')
                scale = max(1.0, float(np.max(np.abs(start), initial=0.0)))
            final, evaluations = search.run()
            break
        except _SetChange as change:
            partition, q = change.partition, change.q
    else:
        raise EquilibriumError(
            f'equilibrium: the set of independent coordinates and speeds '
            f'changed {MAX_SET_CHANGES} times during the search (its '
            f'blocks keep turning ill conditioned); try another guess.',
            residual=float('nan'), solution=q)
    q = search.current.copy()
    names = [f'the acceleration of {nm.u[i]}' for i in search.u_ind]
    worst = np.argsort(-np.abs(final))
    failed = [i for i in worst if not abs(final[i]) <= tolerance * scale]
    if failed:
        largest = float(np.max(np.abs(final)))
        listed = ', '.join(f'{names[i]} ({final[i]:.3g})'
                           for i in failed[:4])
        raise EquilibriumError(
            f'equilibrium: no static equilibrium found from the guess '
            f'(largest residual {largest:.3g} after {evaluations} '
            f'evaluations, tolerance {tolerance:g} x {scale:.3g}; not '
            f'satisfied: {listed}); try another guess.', residual=largest,
            equations=tuple(names[i] for i in failed), solution=q)
    return q


class LinearModel:
    r"""The linear model ``x' = A x + B r`` of a model about an operating
    point, made by :func:`~sympy_loads.linearize` and
    :meth:`Simulation.linearize <sympy_loads.Simulation.linearize>`.

    Explanation
    ===========

    ``x`` holds the deviations of the independent coordinates, then of the
    independent speeds, from the operating point (:attr:`states`, each in
    the model's order), and ``r`` the deviations of the specified inputs
    named in :attr:`inputs`. The dependent coordinates and speeds follow
    from ``x`` through the constraints (to first order). Where the model's
    own dependent block is ill conditioned at the operating point
    (measured against the whole constraint Jacobian, as
    :func:`~sympy_loads.simulate` measures it), another independent set
    is used (chosen by QR with column pivoting), and :attr:`states` says
    which.

    Examples
    ========

    A mass on a spring, ``m x'' = -k x + F``: ``A = [[0, 1], [-k/m, 0]]``
    and ``B = [[0], [1/m]]``.

    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import linearize
    >>> x, v, F = me.dynamicsymbols('x v F')
    >>> m, k = sm.symbols('m k')
    >>> N = me.ReferenceFrame('N')
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', x*N.x); P.set_vel(N, v*N.x)
    >>> kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v])
    >>> _ = kane.kanes_equations([me.Particle('p', P, m)],
    ...                          [(P, (-k*x + F)*N.x)])
    >>> lin = linearize(kane, {x: 0.0, v: 0.0}, {m: 2.0, k: 8.0},
    ...                 inputs=[F], specified={F: 0.0})
    >>> lin.states, lin.inputs
    ((x(t), v(t)), (F(t),))
    >>> print(lin.A, lin.B.ravel())
    [[ 0.  1.]
     [-4.  0.]] [0.  0.5]
    >>> lin.eigenvalues()
    array([0.-2.j, 0.+2.j])

    Attributes
    ==========

    A : numpy.ndarray, shape (n, n)
    B : numpy.ndarray, shape (n, len(inputs))
    states : tuple
        The independent coordinates then the independent speeds
        (functions of time, as in the model).
    inputs : tuple
        The specified inputs of the columns of ``B``.
    operating_point : dict
        Every coordinate and speed at the operating point (the dependent
        ones solved), ready for ``simulate()``.
    time : float
        The time of the operating point.
    """

    def __init__(self, A, B, states, inputs, operating_point, time=0.0):
        # + 0.0: no negative zeros in the printed matrices
        self._A = np.array(A, dtype=float) + 0.0
        self._B = np.array(B, dtype=float) + 0.0
        self._A.flags.writeable = False
        self._B.flags.writeable = False
        self._states = tuple(states)
        self._inputs = tuple(inputs)
        self._point = dict(operating_point)
        self._time = float(time)

    A = property(lambda self: self._A, doc='The state matrix.')
    B = property(lambda self: self._B, doc='The input matrix.')
    states = property(lambda self: self._states,
                      doc='The independent coordinates, then speeds.')
    inputs = property(lambda self: self._inputs,
                      doc='The specified inputs of the columns of B.')
    time = property(lambda self: self._time,
                    doc='The time of the operating point.')

    @property
    def operating_point(self):
        """Every coordinate and speed at the operating point."""
        return dict(self._point)

    def __repr__(self):
        return (f'LinearModel(states={list(self._states)}, '
                f'inputs={list(self._inputs)})')

    def eigenvalues(self):
        """The eigenvalues of ``A``, sorted by real part, then imaginary
        part.

        Examples
        ========

        See :class:`~sympy_loads.LinearModel`.
        """
        values = np.linalg.eigvals(self._A)
        return values[np.lexsort((values.imag, values.real))]

    def modes(self):
        """``(eigenvalues, vectors)``: the eigenvalues sorted as in
        :meth:`eigenvalues` and the eigenvectors as the columns of
        ``vectors`` (rows follow :attr:`states`), each scaled to unit
        length with its largest entry real and positive.

        Examples
        ========

        >>> import numpy as np
        >>> from sympy_loads.linear import LinearModel
        >>> lin = LinearModel([[-1.0, 0.0], [0.0, -3.0]], np.zeros((2, 0)),
        ...                   ['a', 'b'], [], {})
        >>> values, vectors = lin.modes()
        >>> values, vectors
        (array([-3., -1.]), array([[0., 1.],
               [1., 0.]]))
        """
        values, vectors = np.linalg.eig(self._A)
        order = np.lexsort((values.imag, values.real))
        values, vectors = values[order], vectors[:, order]
        for j in range(vectors.shape[1]):
            column = vectors[:, j]
            big = column[np.argmax(np.abs(column))]
            if big != 0:
                vectors[:, j] = column * (abs(big) / big)
            norm = np.linalg.norm(vectors[:, j])
            if norm > 0:
                vectors[:, j] /= norm
        if np.all(values.imag == 0) and np.all(vectors.imag == 0):
            return values.real, vectors.real
        return values, vectors

    def to_control(self):
        """The linear model as a python-control ``StateSpace`` (outputs:
        the states; ``D = 0``), named after :attr:`states` and
        :attr:`inputs`. Needs the ``control`` package (not a dependency
        of sympy_loads); ImportError otherwise.

        Examples
        ========

        >>> import numpy as np
        >>> from sympy_loads.linear import LinearModel
        >>> lin = LinearModel([[0.0, 1.0], [-4.0, 0.0]], [[0.0], [0.5]],
        ...                   ['x', 'v'], ['F'], {})
        >>> try:
        ...     system = lin.to_control()
        ... except ImportError:
        ...     system = None
        >>> system is None or system.nstates == 2
        True
        """
        try:
            import control
        except ImportError:
            raise ImportError('LinearModel.to_control() needs the '
                              'python-control package (pip install '
                              'control).') from None
        n = len(self._A)
        names = [str(s) for s in self._states]
        return control.ss(self._A, self._B, np.eye(n),
                          np.zeros((n, self._B.shape[1])),
                          states=names, outputs=names,
                          inputs=[str(s) for s in self._inputs])


class Operating(NamedTuple):
    """A checked operating point (or equilibrium guess): the numeric
    model's input vector ``x`` with the dependent coordinates and speeds
    solved, its ``q`` and ``u``, the configuration constraints' solver
    (None without) and the :class:`.partition.Partition` chosen there."""

    x: np.ndarray
    q: np.ndarray
    u: np.ndarray
    solver: object
    partition: Partition


def _specified_values(nm, specified):
    """``(values, missing)``: the operating values of the specified
    inputs in ``nm.specified`` order (NaN where missing)."""
    specified = {} if specified is None else specified
    if not hasattr(specified, 'items'):
        raise TypeError(f'specified must be a mapping from the specified '
                        f'inputs to numbers (their operating values), not '
                        f'{type(specified).__name__}.')
    check_specified_keys(nm, specified)
    s, missing_s = [], []
    for symbol in nm.specified:
        if symbol not in specified:
            # an input's rate (where the equations need it) is zero at
            # the operating point unless given
            rate = isinstance(symbol, sm.Derivative)
            if not rate:
                missing_s.append(symbol)
            s.append(0.0 if rate else np.nan)
            continue
        value = specified[symbol]
        if callable(value) or isinstance(value, sm.Basic) and not \
                isinstance(value, sm.Number):
            raise TypeError(
                f'specified[{symbol}] must be a number (the operating value '
                f'of the input), not {type(value).__name__} {value!r}.')
        s.append(_as_float(f'specified[{symbol}]', value))
    return np.array(s, dtype=float), missing_s


def _at_rest(nm, point):
    """An equilibrium guess with every speed zero (``ValueError`` for a
    nonzero one)."""
    speeds = set(nm.u)
    moving = [str(k) for k in point if k in speeds and _as_float(
        f'guess[{k}]', point[k]) != 0.0]
    if moving:
        raise ValueError(f'guess: the speeds of a static equilibrium '
                         f'are zero, not {moving}.')
    point = {k: v for k, v in point.items() if k not in speeds}
    point.update({s_: 0.0 for s_ in nm.u})
    return point


def _operating_values(nm, point, constants, specified, time, what,
                      speeds=True, options=None):
    """The checked :class:`Operating` point of ``point``
    (MissingValuesError listing every missing value). ``what`` names the
    argument (``operating_point`` or ``guess``); ``speeds=False``: an
    equilibrium guess, at rest, whose dependent coordinates may be left
    out (they are solved for)."""
    if nm.friction:
        raise ValueError(f'{what}: models with joint friction cannot be '
                         f'linearized (its magnitude is not smooth).')
    time = _as_float('time', time)
    c, missing_c, values = _pack_constants(nm, constants)
    s, missing_s = _specified_values(nm, specified)
    if not hasattr(point, 'items'):
        raise TypeError(f'{what} must be a mapping from coordinates and '
                        f'speeds to numbers, not {type(point).__name__}.')
    if not speeds:
        point = _at_rest(nm, point)
    q, u, missing_x = _initial_state(nm, point, what)
    unknown = []
    if not speeds:       # dependent coordinates: optional in a guess
        dependent = {nm.q[i]: int(i) for i in nm.q_dep_idx}
        unknown = [dependent[k] for k in missing_x if k in dependent]
        missing_x = [k for k in missing_x if k not in dependent]
    problems = [f'{label}: {[str(m) for m in missing]}'.replace("'", '')
                for label, missing in (
                    ('missing constants', missing_c),
                    ('missing specified inputs (specified=)', missing_s),
                    (f'missing values in {what}', missing_x)) if missing]
    if problems:
        raise MissingValuesError(f'{what}: ' + '; '.join(problems))
    solver = constraint_solver(nm, dict(zip(nm.constants, c)), options)
    x = nm.pack(time, q, u, c, s)
    if solver is not None:
        # assembled from the guess first, as simulate() does: the
        # equilibrium search then starts on the constraint manifold
        q = _assemble(nm, solver, x, q, unknown)
        x[nm.slices[0]] = q
    partition = choose_partition(nm, x, what)
    if nm.has_velocity_constraints and speeds:
        given = ({i for i, s in enumerate(nm.u) if s in point}
                 if hasattr(point, 'items') else set(range(len(nm.u))))
        u = _operating_speeds(nm, x, u, given, partition.u_dep, what)
        x[nm.slices[1]] = u
    return Operating(x, q, u, solver, partition)


def _operating_speeds(nm, x, u, given, dependent, what):
    """The speeds of the operating point: the dependent speeds of the
    model's own set solved from the independent ones given (where its
    block can be solved at all), then those of ``dependent`` (the set the
    linearization eliminates, which may be another one) from the rest, so
    that no speed given in ``u`` (indices ``given``) is overwritten by
    another value and none left out stays at 0. A ``MissingValuesError``
    where the model's block is singular and a speed independent in
    ``dependent``'s set was left out; a ``ValueError`` where the given
    speeds violate the velocity constraints."""
    vel = np.asarray(nm.functions['vel'](x), dtype=float).ravel()
    nu, m = len(nm.u), len(nm.u_dep_idx)
    K = vel[:m * nu].reshape(m, nu)
    own = tuple(int(i) for i in nm.u_dep_idx)
    solved = False
    if np.all(np.isfinite(K)) and block_measure(K, own) > CONDITION_RATIO:
        try:
            u = _dependent_speeds(nm, vel, u, own)
            solved = True
        except np.linalg.LinAlgError:
            pass
    if not solved:
        missing = [nm.u[i] for i in range(nu)
                   if i not in set(dependent) and i not in given]
        if missing:
            raise MissingValuesError(
                f'{what}: the model\'s dependent speeds cannot be solved '
                f'there (their block of the velocity constraints is '
                f'singular): give {", ".join(map(str, missing))} too.')
    result = _dependent_speeds(nm, vel, u, dependent)
    scale = 1.0 + float(np.max(np.abs(u), initial=0.0))
    # the model's dependent speeds, where given, are guesses (as in
    # simulate()); its independent ones are the point's
    off = [nm.u[i] for i in sorted(given - set(own))
           if abs(result[i] - u[i]) > 1e-9 * scale]
    if off:
        raise ValueError(
            f'{what}: the speeds given violate the velocity constraints '
            f'there: solved from the others, '
            + ', '.join(f'{s} would be {result[nm.u.index(s)]:.10g}'
                        for s in off) + '.')
    return result


#: Starting values of the dependent coordinates left out of an
#: equilibrium guess, tried in turn (0 alone may be a singular point of
#: the constraints, as y = 0 is of x^2 + y^2 = l^2).
DEPENDENT_STARTS = (0.0, 1.0, -1.0)


def _assemble(nm, solver, x, q, unknown):
    """The configuration solved from ``q`` (dependent entries are
    guesses; those at the indices ``unknown`` were not given and are
    tried from each of :data:`DEPENDENT_STARTS`). Where the model's
    dependent block is singular at the guess, another set is solved
    (:func:`_assemble_other_set`)."""
    time = float(x[0])
    starts = DEPENDENT_STARTS if unknown else (None,)
    for start in starts:
        trial = np.array(q, dtype=float)
        if start is not None:
            trial[unknown] = start
        try:
            return np.asarray(solver.solve_positions(trial, time),
                              dtype=float)
        except ConstraintSolverError as error:
            failure = error
    if unknown:
        raise failure
    return _assemble_other_set(nm, x, q, failure)


def _assemble_other_set(nm, x, q, error):
    """The configuration from the guess ``q`` where the model's dependent
    coordinates cannot be solved for (their block of the constraint
    Jacobian is singular there): the coordinates chosen by QR with column
    pivoting are solved instead (``scipy.optimize.root``), the others
    keep their given values. Re-raises ``error`` when that fails too."""
    nq, nu, m = len(nm.q), len(nm.u), len(nm.u_dep_idx)
    functions = linear_functions(nm)
    x = x.copy()

    def blocks(values):
        x[nm.slices[0]] = values
        J = functions(x, np.zeros(nq), np.zeros(nu), np.zeros(m))
        return J['phi'], J['phi_q']
    phi_q = blocks(q)[1]
    if not np.all(np.isfinite(phi_q)):
        raise error
    dep = list(best_columns(phi_q, len(nm.q_dep_idx)))
    if dep == [int(i) for i in nm.q_dep_idx]:
        raise error
    q = np.array(q, dtype=float)

    def residual(z):
        q[dep] = z
        phi, phi_q = blocks(q)
        return phi, phi_q[:, dep]
    solution = optimize.root(residual, q[dep], jac=True, method='hybr',
                             options={'xtol': 1e-15})
    phi, _ = residual(solution.x)
    if not np.all(np.abs(phi) <= 1e-12):
        raise error
    return q


def _dependent_speeds(nm, vel, u, dependent):
    """``u`` with the speeds at the indices ``dependent`` solved from the
    velocity constraints (``vel`` from the model's function), the others
    keeping their given values."""
    nu, m = len(nm.u), len(nm.u_dep_idx)
    K = vel[:m * nu].reshape(m, nu)
    ind, dep = _split(dependent, nu)
    u = np.array(u, dtype=float)
    u[dep] = np.linalg.solve(K[:, dep], -(K[:, ind] @ u[ind]
                                           + vel[m * nu:]))
    return u


def _solver_for(nm, solver, dependent, options):
    """The configuration constraints' solver with the coordinates at the
    indices ``dependent`` as its dependent set: ``solver`` (the model's)
    for the model's own set, else one made once per set and options and
    kept with the model (:meth:`.numeric_model.NumericModel.derived`),
    with ``solver``'s constants."""
    dependent = tuple(int(i) for i in dependent)
    if solver is None or dependent == tuple(int(i) for i in nm.q_dep_idx):
        return solver
    options = dict(options or {})
    placeholders = {k: 1.0 for k in solver.constants}

    def build():
        return HolonomicConstraintSolver(
            list(nm.f_h), list(nm.q), [nm.q[i] for i in dependent],
            constants=placeholders, **options)
    other = _kept(nm, ('solver', dependent, tuple(sorted(options.items()))),
                  build)
    return other.with_constants(solver.constants)


def linearize_model(nm, operating_point, constants, inputs, specified,
                    time, constraint_options=None):
    """:meth:`Simulation.linearize`'s work on its numeric model."""
    if inputs is None:
        inputs = []
    elif not isinstance(inputs, (list, tuple)):
        raise TypeError(f'inputs must be a list of specified inputs of the '
                        f'model, not {type(inputs).__name__}.')
    columns = []
    for item in inputs:
        if item not in nm.specified:
            raise ValueError(
                f'inputs: {item} is not a specified input of the model; '
                f'they are {[str(s) for s in nm.specified]}.')
        columns.append(nm.specified.index(item))
    point = _operating_values(nm, operating_point, constants, specified,
                              time, 'operating_point',
                              options=constraint_options)
    A, B, q_ind, u_ind = linearize_at(nm, point.x, columns, point.partition,
                                   check=True)
    states = [nm.q[i] for i in q_ind] + [nm.u[i] for i in u_ind]
    values = dict(zip(nm.q, map(float, point.q)))
    values.update(zip(nm.u, map(float, point.u)))
    return LinearModel(A, B, states, inputs, values, point.x[0])


def equilibrium_model(nm, guess, constants, specified, time, tolerance,
                      constraint_options=None):
    """:meth:`Simulation.equilibrium`'s work on its numeric model."""
    tolerance = _as_float('tolerance', tolerance)
    if not tolerance > 0:
        raise ValueError(f'tolerance must be positive, got {tolerance}.')
    point = _operating_values(nm, guess, constants, specified, time,
                              'guess', speeds=False,
                              options=constraint_options)
    x = point.x.copy()
    x[nm.slices[1]] = 0.0
    q = equilibrium_at(
        nm, lambda dep: _solver_for(nm, point.solver, dep,
                                    constraint_options),
        point.q, x, point.partition, tolerance)
    return dict(zip(nm.q, map(float, q)))
