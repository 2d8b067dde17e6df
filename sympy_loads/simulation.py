r"""Numerical simulation of :class:`~sympy.physics.mechanics.KanesMethod` and
:class:`~sympy.physics.mechanics.System` models with holonomic constraints.

The equations of motion that ``KanesMethod`` forms for a closed kinematic
loop are an ordinary differential equation in *all* coordinates and speeds::

    k_kqdot(q, t) q' = -(k_ku(q, t) u + f_k(q, t))           kinematics
    M(q, t) u'       = F(q, u, t)                            dynamics

where the rows of ``M`` and ``F`` belonging to the dependent speeds are the
time derivatives of the velocity constraints. Integrated as they stand
(``mass_matrix_full`` / ``forcing_full``), only the *derivatives* of the
constraints are zero, so the integration error accumulates in the
configuration constraints ``f_h(q, t) = 0`` and the mechanism slowly comes
apart (see the tutorial "Simulating a closed-loop mechanism").

:func:`simulate` uses *coordinate partitioning* [Wehage1982]_ instead: the
independent coordinates and speeds are integrated, and whenever the
right-hand side is evaluated the dependent coordinates are recomputed by
Newton-Raphson on ``f_h(q, t) = 0`` (:class:`HolonomicConstraintSolver`,
seed 002) and the dependent speeds from the linear velocity constraints
``k_nh(q, t) u + f_nh(q, t) = 0``. The dependent coordinates are carried in
the integrator's state only as the starting guess for that Newton solve,
which therefore needs one or two iterations and always stays on the same
assembly branch; every value :func:`simulate` uses or returns is the
corrected one, so the constraint residual is at the Newton tolerance at
every sample, however long the run.

Why partitioning and not projection: projection after each step needs access
to the integrator's accepted steps (SciPy's ``solve_ivp`` gives none), and it
changes the state between steps, which invalidates the error estimate of the
step; with partitioning the right-hand side is an ordinary smooth function of
the independent state, so any SciPy integrator (including the implicit ones
for stiff contact models) can be used unchanged. Its limitation is that the
independent coordinates must parametrize the motion everywhere (the
dependent-coordinate Jacobian must stay regular); choose them accordingly,
e.g. the crank angle of a Grashof crank-rocker.

References
==========

.. [Wehage1982] R. A. Wehage, E. J. Haug, "Generalized coordinate
   partitioning for dimension reduction in analysis of constrained
   dynamic systems", J. Mech. Des. 104(1):247-255, 1982.
.. [Seed002] Autodesk, "Dynamic Simulation: Constraint Kinematics"
   (seed 002): Newton-Raphson position solve, velocity solve.
.. [Seed004] "Three-Dimensional Generalized Forces" (seed 004): Coulomb
   friction in joints from the joint reactions, by relaxation.
"""

import hashlib
import math
import numbers
import types
import warnings
import weakref
from dataclasses import dataclass, field

import numpy as np
import sympy as sm
from scipy.integrate import ODEintWarning, odeint, solve_ivp
from sympy.physics.mechanics import (KanesMethod, System, dynamicsymbols,
                                     find_dynamicsymbols, msubs)

from ._codegen import function_source, load_module
from ._utils import _kanes_parts, _lambdify

__all__ = ['simulate', 'SimulationResult', 'SimulationError']

_TIME = dynamicsymbols._t


class SimulationError(RuntimeError):
    """A failure while integrating the equations of motion.

    Raised by :func:`simulate` when the right-hand side cannot be evaluated:
    the holonomic constraints cannot be solved (the mechanism cannot be
    assembled, e.g. it reached a singular configuration), the mass matrix is
    singular, or the joint-friction iteration does not converge. The message
    names the time and the state; they are also available as attributes.

    Examples
    ========

    A point on a circle of radius 1 pushed along ``x`` by a constant force,
    with ``x`` independent and ``y`` dependent: the parametrization fails
    where the circle is tangent to ``y`` (``x = 1``, the Jacobian
    ``df/dy = 2 y`` vanishes) and the simulation stops there with the time
    and state:

    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import simulate, SimulationError
    >>> x, y, ux, uy = me.dynamicsymbols('x y u_x u_y')
    >>> N = me.ReferenceFrame('N')
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', x*N.x + y*N.y)
    >>> P.set_vel(N, ux*N.x + uy*N.y)
    >>> kane = me.KanesMethod(
    ...     N, [x], [ux], kd_eqs=[x.diff() - ux, y.diff() - uy],
    ...     q_dependent=[y], u_dependent=[uy],
    ...     configuration_constraints=[x**2 + y**2 - 1],
    ...     velocity_constraints=[x*ux + y*uy])
    >>> _ = kane.kanes_equations([me.Particle('p', P, 1)], [(P, N.x)])
    >>> try:
    ...     simulate(kane, (0, 5), {x: 0.0, y: 0.9, ux: 0.5}, {})
    ... except SimulationError as error:
    ...     failure = error
    >>> bool(0 < failure.time < 5), isinstance(failure, RuntimeError)
    (True, True)
    >>> print(str(failure)[:52])
    the holonomic constraints could not be solved at t =
    >>> print(round(float(failure.q[0]), 6))      # x reached the radius
    1.0

    Attributes
    ==========

    time : float
        Time at which the failure happened.
    q, u : ndarray
        Coordinates and speeds (in ``model.q``/``model.u`` order; dependent
        entries are the last guess) at that time.

    References
    ==========

    .. [Seed002error] Autodesk, "Dynamic Simulation: Constraint Kinematics"
       (seed 002), page 7: a singular constraint Jacobian (toggle or
       locked configuration) stops the position solve.
    .. [Wehage1982error] R. A. Wehage, E. J. Haug, "Generalized coordinate
       partitioning for dimension reduction in analysis of constrained
       dynamic systems", J. Mech. Des. 104(1):247-255, 1982: the
       independent coordinates must keep the dependent-coordinate
       Jacobian regular.
    """

    def __init__(self, message, *, time=None, q=None, u=None):
        super().__init__(message)
        self.time = time
        self.q = q
        self.u = u


@dataclass(frozen=True, repr=False)
class SimulationResult:
    """The result of :func:`simulate` (compare ``scipy.integrate.solve_ivp``).

    Explanation
    ===========

    Besides the trajectory, each sample records how well it satisfies the
    constraints of the model: ``constraint_residual`` is ``max_i |f_h,i(q,
    t)|`` over the configuration constraints and ``velocity_residual`` is
    ``max_i |(k_nh u + f_nh)_i|`` over the velocity constraints
    ``k_nh(q, t) u + f_nh(q, t) = 0``. With coordinate partitioning
    [Wehage1982result]_ both stay at the tolerance of the Newton-Raphson
    position solve [Seed002result]_ however long the run.

    Examples
    ========

    A pendulum of length 1 as a point on a circle, ``x`` independent and
    ``y`` dependent, released from ``x = 0.5``:

    >>> import numpy as np
    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import simulate
    >>> x, y, ux, uy = me.dynamicsymbols('x y u_x u_y')
    >>> g = sm.symbols('g')
    >>> N = me.ReferenceFrame('N')
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', x*N.x + y*N.y)
    >>> P.set_vel(N, ux*N.x + uy*N.y)
    >>> kane = me.KanesMethod(
    ...     N, [x], [ux], kd_eqs=[x.diff() - ux, y.diff() - uy],
    ...     q_dependent=[y], u_dependent=[uy],
    ...     configuration_constraints=[x**2 + y**2 - 1],
    ...     velocity_constraints=[x*ux + y*uy])
    >>> _ = kane.kanes_equations([me.Particle('p', P, 1)], [(P, -g*N.y)])
    >>> res = simulate(kane, (0, 2), {x: 0.5, y: -0.8, ux: 0.0}, {g: 9.81},
    ...                t_eval=np.linspace(0, 2, 5),
    ...                outputs={'energy': (ux**2 + uy**2)/2 + g*y})
    >>> res.success, res.q_names, res.u_names, res.y.shape
    (True, ('x', 'y'), ('u_x', 'u_y'), (5, 4))
    >>> print(np.round(res.q[0], 6))     # y solved from the guess -0.8
    [ 0.5      -0.866025]
    >>> bool(res.constraint_residual.max() <= 1e-12)
    True
    >>> bool(res.velocity_residual.max() <= 1e-12)
    True
    >>> energy = res.outputs['energy']       # conserved
    >>> bool(np.allclose(energy, energy[0], rtol=1e-7))
    True

    Attributes
    ==========

    t : ndarray, shape (m,)
        Sample times.
    q : ndarray, shape (m, n_q)
        Generalized coordinates; columns follow ``model.q``
        (see ``q_names``).
    u : ndarray, shape (m, n_u)
        Generalized speeds; columns follow ``model.u`` (see ``u_names``).
    constraint_residual : ndarray, shape (m,)
        Largest absolute holonomic (configuration) constraint residual at
        each sample; zeros for a model without configuration constraints.
    velocity_residual : ndarray, shape (m,)
        Largest absolute velocity-constraint residual at each sample.
    outputs : dict
        Name -> array of the values of each requested output at each sample
        (shape (m,) for a scalar expression, (m, k) for a column matrix).
    success : bool
        True if the integrator reached the end of ``t_span``.
    status : int
        SciPy's status: 0 end reached, -1 integration step failed.
    message : str
        Human-readable description of the termination.
    nfev, njev, nlu : int
        Right-hand side evaluations, Jacobian evaluations and LU
        decompositions of the integrator (as in ``solve_ivp``).
    q_names, u_names : tuple of str
        Names of the coordinates and speeds, in column order.
    coordinates, speeds : tuple
        The SymPy dynamic symbols of the columns.
    constants : tuple of (Symbol, float)
        The numeric constants used, in the fixed packing order (sorted by
        SymPy's ``default_sort_key``).

    References
    ==========

    .. [Wehage1982result] R. A. Wehage, E. J. Haug, "Generalized
       coordinate partitioning for dimension reduction in analysis of
       constrained dynamic systems", J. Mech. Des. 104(1):247-255, 1982.
    .. [Seed002result] Autodesk, "Dynamic Simulation: Constraint
       Kinematics" (seed 002): Newton-Raphson position solve and the
       velocity constraints.
    """

    t: np.ndarray
    q: np.ndarray
    u: np.ndarray
    constraint_residual: np.ndarray
    velocity_residual: np.ndarray
    outputs: dict
    success: bool
    status: int
    message: str
    nfev: int
    njev: int
    nlu: int
    q_names: tuple
    u_names: tuple
    coordinates: tuple = field(default=())
    speeds: tuple = field(default=())
    constants: tuple = field(default=())

    def __repr__(self):
        return (f'SimulationResult(success={self.success}, '
                f'message={self.message!r}, n_samples={len(self.t)}, '
                f'q_names={self.q_names}, u_names={self.u_names}, '
                f'max_constraint_residual='
                f'{_max_or_zero(self.constraint_residual):.3g}, '
                f'nfev={self.nfev})')

    @property
    def y(self):
        """The states ``[q, u]`` as one array of shape (m, n_q + n_u)."""
        return np.hstack([self.q, self.u])


def _name(symbol):
    """``x`` for the dynamic symbol ``x(t)`` (and for the Symbol ``x``)."""
    return getattr(symbol, 'name', str(symbol))


def _format_state(symbols, values):
    """``'x = 0.1, y = 2'``: a state for an error message."""
    if values is None:
        return '?'
    return ', '.join(f'{s.name} = {float(v):.10g}'
                     for s, v in zip(symbols, values))


def _max_or_zero(values):
    values = np.asarray(values)
    return float(np.max(np.abs(values))) if values.size else 0.0


# ---------------------------------------------------------------------------
# Reading the model

def _kanes_method_of(model):
    """Return the ``KanesMethod`` behind ``model`` (TypeError/ValueError)."""
    if isinstance(model, KanesMethod):
        kane = model
    elif isinstance(model, System):
        kane = model.eom_method
        if kane is None:
            raise ValueError(
                'model: the System has no equations of motion yet; call '
                'model.form_eoms() before simulate().')
        if not isinstance(kane, KanesMethod):
            raise TypeError(
                f'model: the System was formed with '
                f'{type(kane).__name__}; simulate() needs '
                f'form_eoms(KanesMethod).')
    else:
        raise TypeError(
            f'model must be a KanesMethod or a System, not '
            f'{type(model).__name__} {model!r}.')
    try:
        kane.mass_matrix
    except (ValueError, AttributeError, TypeError):
        raise ValueError(
            'model: the KanesMethod has no equations of motion yet; call '
            'kanes_equations(bodies, loads) before simulate().') from None
    return kane


def _symbol_key(symbol):
    return sm.default_sort_key(symbol)


class _NumericModel:
    """The numeric functions of one KanesMethod, generated once.

    Argument order of every generated function (fixed, documented in
    :func:`simulate`)::

        (t, q, u, c, s)

    ``q``/``u`` in ``kane.q``/``kane.u`` order, ``c`` the constants sorted
    by ``default_sort_key`` (``self.constants``), ``s`` the specified inputs
    sorted the same way (``self.specified``) followed by the joint-friction
    magnitudes in the order given (``self.friction``).
    """

    def __init__(self, kane, friction_symbols=()):
        self.kane = kane
        self.q = list(kane.q)
        self.u = list(kane.u)
        parts = _kanes_parts(kane)
        q_dep, u_dep, k_nh, f_nh = (parts.q_dep, parts.u_dep, parts.k_nh,
                                    parts.f_nh)
        f_h = sm.Matrix(parts.holonomic_constraints) \
            if parts.holonomic_constraints else sm.zeros(0, 1)
        self.q_dep_idx = np.array([self.q.index(s) for s in q_dep], int)
        self.u_dep_idx = np.array([self.u.index(s) for s in u_dep], int)
        self.q_ind_idx = np.array(
            [i for i in range(len(self.q)) if i not in set(self.q_dep_idx)],
            int)
        self.u_ind_idx = np.array(
            [i for i in range(len(self.u)) if i not in set(self.u_dep_idx)],
            int)
        self.has_config_constraints = len(f_h) > 0
        self.has_velocity_constraints = len(u_dep) > 0

        m_kin = sm.Matrix(kane.mass_matrix_kin)
        f_kin = sm.Matrix(kane.forcing_kin)
        mass = sm.Matrix(kane.mass_matrix)
        forcing = sm.Matrix(kane.forcing)
        self.kinematics_is_identity = m_kin == sm.eye(len(self.q))

        everything = sm.Matrix.vstack(
            m_kin.reshape(len(m_kin), 1), f_kin,
            mass.reshape(len(mass), 1), forcing,
            f_h, k_nh.reshape(len(k_nh), 1), f_nh)
        self.friction = list(friction_symbols)
        dynamic = set(find_dynamicsymbols(everything))
        derivatives = [s for s in dynamic if isinstance(s, sm.Derivative)]
        if derivatives:
            raise ValueError(
                f'model: the equations of motion contain the time '
                f'derivatives {sorted(map(str, derivatives))}; simulate() '
                f'needs equations in q, u and time functions only.')
        known = set(self.q) | set(self.u) | set(self.friction)
        self.specified = sorted(dynamic - known, key=_symbol_key)
        free = set(everything.free_symbols) - {_TIME}
        self.constants = sorted(free, key=_symbol_key)
        if self.has_config_constraints:
            in_constraints = set(find_dynamicsymbols(f_h)) - set(self.q)
            if in_constraints:
                raise ValueError(
                    f'model: the holonomic constraints contain the specified '
                    f'inputs {sorted(map(str, in_constraints))}; only '
                    f'coordinates and time may appear in them.')

        args = (_TIME, self.q, self.u, self.constants,
                self.specified + self.friction)
        self._args = args
        self.eom = _lambdify(args, [m_kin, f_kin, mass, forcing])
        self.velocity_matrices = _lambdify(args, [k_nh, f_nh])
        self.holonomic = _lambdify(args, f_h)
        self.f_h = f_h
        self._outputs = {}
        self._symbolic = (m_kin, f_kin, mass, forcing, k_nh, f_nh, f_h)
        self._compiled = None

    def compiled(self):
        """Return the numba-compiled ``(velocity, eom)`` kernels (see
        :func:`_compile_kernels`), or None when numba is unavailable or
        cannot compile this model; generated once."""
        if self._compiled is None:
            try:
                self._compiled = _compile_kernels(self, *self._symbolic)
            except Exception:   # no numba, or an expression it cannot type
                self._compiled = False
        return self._compiled or None

    def output_function(self, outputs):
        """Return ``(names, shapes, f(t, q, u, udot, c, s))`` for the
        ``outputs`` mapping, generated once per set of expressions."""
        key = tuple((name, expr) for name, expr in outputs.items())
        if key in self._outputs:
            return self._outputs[key]
        kindiff = self.kane.kindiffdict()
        udot = [s.diff(_TIME) for s in self.u]
        udot_symbols = [sm.Dummy(f'{s.name}_dot') for s in self.u]
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
            matrix = msubs(matrix, kindiff)
            matrix = matrix.xreplace(dict(zip(udot, udot_symbols)))
            unknown = [s for s in find_dynamicsymbols(matrix)
                       if s not in allowed]
            if unknown:
                raise ValueError(
                    f'outputs[{name!r}] contains {sorted(map(str, unknown))}, '
                    f'which are neither coordinates, speeds, their time '
                    f'derivatives nor specified inputs of the model.')
            exprs.append(matrix.reshape(len(matrix), 1))
            shapes.append(None if isinstance(expr, sm.Expr) and not
                          isinstance(expr, sm.MatrixBase) else len(matrix))
        extra = sorted(set().union(*[e.free_symbols for e in exprs])
                       - {_TIME} - set(self.constants) - set(udot_symbols),
                       key=_symbol_key) if exprs else []
        function = _lambdify(
            (_TIME, self.q, self.u, udot_symbols, self.constants + extra,
             self.specified + self.friction), exprs)
        uses_udot = any(e.has(*udot_symbols) for e in exprs)
        self._outputs[key] = (list(outputs), shapes, function, extra,
                              uses_udot)
        return self._outputs[key]


# Numbers of the compiled path: status codes of the kernels (0 = success).
_OK, _NEWTON_FAILED, _VELOCITY_SINGULAR, _MASS_SINGULAR = 0, 1, 2, 3
# The compiled right-hand side hands over to the NumPy path (the
# HolonomicConstraintSolver's solve with its diagnostics) when the Newton
# kernel did not converge or the smallest/largest pivot ratio of the last
# dependent-coordinate Jacobian is below this.
_PIVOT_HANDOVER = 1e-6

_SOLVE_SOURCE = '''
@JIT
def _solve(A, b, n):
    """Solve A x = b (n x n) by Gaussian elimination with partial pivoting,
    in place (x is left in b). Returns the ratio of the smallest to the
    largest pivot, 0.0 if A is singular or not finite.

    Not constraints._qr_solve_into on purpose: every system solved here is
    square (the kinematic and mass matrices, the dependent-speed block of
    the velocity constraints; the position constraints go through the
    constraint solver's Newton kernel and its QR), and elimination
    costs about half of a pivoted QR. It is part of the generated source
    so that the disk cache key covers it."""
    if n == 0:
        return 1.0
    big = 0.0
    small = math.inf
    for k in range(n):
        p = k
        amax = abs(A[k, k])
        for i in range(k + 1, n):
            if abs(A[i, k]) > amax:
                amax = abs(A[i, k])
                p = i
        if not (amax > 0.0) or amax == math.inf:
            return 0.0
        if p != k:
            for j in range(n):
                tmp = A[k, j]
                A[k, j] = A[p, j]
                A[p, j] = tmp
            tmp = b[k]
            b[k] = b[p]
            b[p] = tmp
        big = max(big, amax)
        small = min(small, amax)
        for i in range(k + 1, n):
            factor = A[i, k] / A[k, k]
            if factor != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= factor * A[k, j]
                b[i] -= factor * b[k]
    for i in range(n - 1, -1, -1):
        total = b[i]
        for j in range(i + 1, n):
            total -= A[i, j] * b[j]
        b[i] = total / A[i, i]
    return small / big
'''


def _kernel_source(nm, m_kin, f_kin, mass, forcing, k_nh, f_nh, f_h):
    """Python source (for numba) of the compiled right-hand side.

    One module with, in the fixed argument order of :class:`_NumericModel`:

    ``rhs(t, y, c, s, address, params, ints, work, info) -> ydot``
        the whole right-hand side of the integrator state ``y`` (the
        layout of :meth:`_Problem.pack`): Newton-Raphson on the dependent
        coordinates from the guess carried in ``y`` by the
        :class:`HolonomicConstraintSolver`'s compiled kernel
        (``address, params, ints, work`` from its ``_compiled_newton()``;
        placeholders without configuration constraints), dependent speeds
        from the velocity constraints, ``qdot`` and ``udot`` from the
        kinematic and dynamic equations; ``info[0]`` is a status code
        (nonzero: hand over to the NumPy path, which reports the failure
        or recovers);
    ``states(T, Y, c, S, address, params, ints, work, out, status)``
        the corrected ``[q, u, constraint residual, velocity residual]``
        of every row of ``Y`` (the samples), into ``out``;
    ``eom(t, q, u, c, s, info) -> [qdot, udot]``
        the derivatives at a corrected state (used with joint friction).

    Small dense solves are Gaussian elimination written out here: numba's
    ``np.linalg.solve`` costs seconds of compile time and a LAPACK call
    per solve, both more than these 2x2 .. 10x10 systems need.
    """
    from sympy.printing.pycode import PythonCodePrinter
    printer = PythonCodePrinter({'standard': 'python3',
                                 'fully_qualified_modules': True})
    groups = {'q': nm.q, 'u': nm.u, 'c': nm.constants,
              's': nm.specified + nm.friction}
    plain = {_TIME: sm.Symbol('t')}
    unpack = []
    for name, symbols in groups.items():
        for i, symbol in enumerate(symbols):
            var = sm.Symbol(f'{name}_{i}_')
            plain[symbol] = var
            unpack.append((var, f'{name}[{i}]'))
    nq, nu = len(nm.q), len(nm.u)
    dep_u = [int(i) for i in nm.u_dep_idx]
    ind_u = [int(i) for i in nm.u_ind_idx]
    nc, ud = len(f_h), len(dep_u)
    partitioned = nm.has_config_constraints or nm.has_velocity_constraints
    ny = nq + (len(ind_u) if partitioned else nu)

    def function(name, arguments, matrices, targets):
        """``def name(arguments)`` writing each matrix into its target
        array (allocated by the caller; lower-case targets are vectors),
        after cse."""
        outputs = []
        for target, matrix in zip(targets, matrices):
            matrix = sm.Matrix(matrix).xreplace(plain)
            for i in range(matrix.shape[0]):
                for j in range(matrix.shape[1]):
                    index = f'{i}' if matrix.shape[1] == 1 and \
                        target.islower() else f'{i}, {j}'
                    outputs.append((f'{target}[{index}]', matrix[i, j]))
        return ['', ''] + function_source(
            name, arguments, unpack, outputs, printer,
            decorator='@JIT').splitlines()

    lines = ['import math', '', 'import numba', 'import numpy as np', '']
    if nc:
        lines += ['from sympy_loads.constraints import _numba_generic', '',
                  "_newton = _numba_generic()['newton']"]
    lines += ['CACHE = True',
              "JIT = numba.njit(cache=CACHE, error_model='numpy')", '', '',
              _SOLVE_SOURCE]
    # generated matrix functions: lower-case targets are vectors
    lines += function('_eom_matrices', ['t', 'q', 'u', 'c', 's', 'MK', 'fk',
                                        'M', 'f'],
                      [m_kin, f_kin, mass, forcing], ['MK', 'fk', 'M', 'f'])
    if ud:
        lines += function('_velocity_matrices', ['t', 'q', 'u', 'c', 's',
                                                 'K', 'f'],
                          [k_nh, f_nh], ['K', 'f'])
    if nc:
        lines += function('_residual', ['t', 'q', 'c', 'phi'], [f_h],
                          ['phi'])

    # _correct: dependent coordinates (Newton) and speeds, in place. The
    # Newton iteration is the constraint solver's compiled kernel
    # (constraints._newton_kernel, damped, least squares for redundant
    # sets), called directly: no Python between here and it.
    body = ['', '', '@JIT',
            'def _correct(t, q, u, c, s, address, params, ints, work):']
    if nc:
        body += [
            f'    out = np.empty({nq + 3})',
            '    status = _newton(address, q, t, params, ints, out, work)',
            f'    if status != 0 or not out[{nq + 2}] >= '
            f'{_PIVOT_HANDOVER!r}:',
            f'        return {_NEWTON_FAILED}',
            f'    for j in range({nq}):',
            '        q[j] = out[j]']
    if ud:
        body += [f'    K = np.empty(({ud}, {nu}))', f'    f = np.empty({ud})',
                 '    _velocity_matrices(t, q, u, c, s, K, f)',
                 f'    A = np.empty(({ud}, {ud}))', f'    b = np.empty({ud})']
        for i in range(ud):
            terms = ' + '.join([f'K[{i}, {j}]*u[{j}]' for j in ind_u]
                               + [f'f[{i}]'])
            body.append(f'    b[{i}] = -({terms})')
            body += [f'    A[{i}, {k}] = K[{i}, {j}]'
                     for k, j in enumerate(dep_u)]
        body += [f'    if _solve(A, b, {ud}) == 0.0:',
                 f'        return {_VELOCITY_SINGULAR}']
        body += [f'    u[{j}] = b[{k}]' for k, j in enumerate(dep_u)]
    body.append(f'    return {_OK}')
    lines += body

    # _derivatives: qdot, udot into out[0:nq], out[nq:nq+nu]
    lines += ['', '', '@JIT',
              'def _derivatives(t, q, u, c, s, out):',
              f'    MK = np.empty(({nq}, {nq}))', f'    fk = np.empty({nq})',
              f'    M = np.empty(({nu}, {nu}))', f'    f = np.empty({nu})',
              '    _eom_matrices(t, q, u, c, s, MK, fk, M, f)']
    if not nm.kinematics_is_identity:
        lines += [f'    if _solve(MK, fk, {nq}) == 0.0:',
                  f'        return {_MASS_SINGULAR}']
    lines += [f'    if _solve(M, f, {nu}) == 0.0:',
              f'        return {_MASS_SINGULAR}',
              f'    for i in range({nq}):', '        out[i] = fk[i]',
              f'    for i in range({nu}):', f'        out[{nq} + i] = f[i]',
              f'    return {_OK}']

    # entry points
    unpack_y = [f'    q = y[:{nq}].copy()']
    if partitioned:
        unpack_y += [f'    u = np.zeros({nu})']
        unpack_y += [f'    u[{j}] = y[{nq + k}]' for k, j in enumerate(ind_u)]
    else:
        unpack_y += [f'    u = y[{nq}:].copy()']
    lines += ['', '', '@JIT',
              'def rhs(t, y, c, s, address, params, ints, work, info):'
              ] + unpack_y + [
        '    status = _correct(t, q, u, c, s, address, params, ints, work)',
        f'    out = np.empty({nq + nu})',
        '    if status == 0:',
        '        status = _derivatives(t, q, u, c, s, out)',
        '    info[0] = status']
    if partitioned:
        lines += [f'    ydot = np.empty({ny})',
                  f'    ydot[:{nq}] = out[:{nq}]']
        lines += [f'    ydot[{nq + k}] = out[{nq + j}]'
                  for k, j in enumerate(ind_u)]
        lines += ['    return ydot']
    else:
        lines += ['    return out']

    lines += ['', '', '@JIT',
              'def states(T, Y, c, S, address, params, ints, work, out, '
              'status):',
              '    for row in range(T.shape[0]):', '        t = T[row]',
              '        y = Y[row]', '        s = S[row]']
    lines += ['    ' + line for line in unpack_y]
    lines += ['        status[row] = _correct(t, q, u, c, s, address, params, '
              'ints, work)',
              f'        out[row, :{nq}] = q',
              f'        out[row, {nq}:{nq + nu}] = u',
              f'        out[row, {nq + nu}] = 0.0',
              f'        out[row, {nq + nu + 1}] = 0.0']
    if nc:
        lines += [f'        phi = np.empty({nc})',
                  '        _residual(t, q, c, phi)',
                  f'        for i in range({nc}):',
                  f'            out[row, {nq + nu}] = max(out[row, {nq + nu}],'
                  f' abs(phi[i]))']
    if ud:
        lines += [f'        K = np.empty(({ud}, {nu}))',
                  f'        f = np.empty({ud})',
                  '        _velocity_matrices(t, q, u, c, s, K, f)',
                  f'        for i in range({ud}):',
                  '            total = f[i]',
                  f'            for j in range({nu}):',
                  '                total += K[i, j] * u[j]',
                  f'            out[row, {nq + nu + 1}] = max('
                  f'out[row, {nq + nu + 1}], abs(total))']
    lines += ['    return']

    lines += ['', '', '@JIT',
              'def eom(t, q, u, c, s, info):',
              f'    out = np.empty({nq + nu})',
              '    info[0] = _derivatives(t, q, u, c, s, out)',
              '    return out']
    return '\n'.join(lines) + '\n'


def _compile_kernels(nm, *matrices):
    """The compiled (numba) path: the module of :func:`_kernel_source`,
    written to the kernel cache directory (``$SYMPY_LOADS_CACHE_DIR``) and
    imported from there by :func:`._codegen.load_module`, so that numba's
    ``cache=True`` compiles it once per model and machine. numba compiles
    each function on its first call (or loads it from the disk cache)."""
    import numba
    from . import constraints
    # numba's cache keeps the Newton kernel compiled into the module: a
    # change of constraints.py must give a new module
    with open(constraints.__file__, 'rb') as file:
        solver_version = hashlib.sha256(file.read()).hexdigest()
    return load_module(_kernel_source(nm, *matrices), 'sympy_loads_kernels',
                       disk_cache=True,
                       versions=(numba.__version__, np.__version__,
                                 solver_version))


_CACHE = weakref.WeakKeyDictionary()
# odeint's limit on internal steps per output interval (solve_ivp has none)
_ODEINT_MAX_STEPS = 1_000_000


def _numeric_model(kane, friction_symbols=()):
    """Return the cached :class:`_NumericModel` of ``kane`` (generated on
    the first call for this model and set of friction symbols)."""
    per_model = _CACHE.setdefault(kane, {})
    key = tuple(friction_symbols)
    if key not in per_model:
        per_model[key] = _NumericModel(kane, key)
    return per_model[key]


# ---------------------------------------------------------------------------
# Input validation

def _as_float(name, value):
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise TypeError(f'{name} must be a real number, not '
                        f'{type(value).__name__} {value!r}.') from None
    if not math.isfinite(number):
        raise ValueError(f'{name} must be finite, got {value!r}.')
    return number


def _check_t_span(t_span):
    try:
        t0, t1 = t_span
    except (TypeError, ValueError):
        raise ValueError(f't_span must be a pair (t0, tf), got '
                         f'{t_span!r}.') from None
    t0, t1 = _as_float('t_span[0]', t0), _as_float('t_span[1]', t1)
    if t1 == t0:
        raise ValueError(f't_span must have tf != t0, got {t_span!r}.')
    return t0, t1


def _check_t_eval(t_eval, t0, t1):
    if t_eval is None:
        return None
    t_eval = np.asarray(t_eval, dtype=float)
    if t_eval.ndim != 1:
        raise ValueError(f't_eval must be one-dimensional, got shape '
                         f'{t_eval.shape}.')
    lo, hi = min(t0, t1), max(t0, t1)
    if t_eval.size and (t_eval.min() < lo or t_eval.max() > hi):
        raise ValueError(f't_eval must lie within t_span = ({t0}, {t1}).')
    steps = np.diff(t_eval) * np.sign(t1 - t0)
    if np.any(steps <= 0):
        raise ValueError('t_eval must be strictly monotonic in the '
                         'direction of t_span.')
    return t_eval


def _pack_constants(nm, constants, extra=()):
    """Return the constants vector in ``nm.constants`` order (+ ``extra``),
    the missing ones (collected for one ValueError) and the whole mapping of
    the user's constants as floats (loads that do no work, e.g. a reaction's
    load in joint friction, may need constants absent from the EOMs)."""
    if constants is None:
        constants = {}
    if not hasattr(constants, 'items'):
        raise TypeError(f'constants must be a mapping from SymPy symbols to '
                        f'numbers, not {type(constants).__name__}.')
    values = {}
    for key, value in constants.items():
        if not isinstance(key, sm.Symbol):
            if isinstance(key, sm.Expr) and key in nm.specified:
                raise TypeError(
                    f'constants: {key} is a specified input (a function of '
                    f'time); pass it with specified={{{key}: ...}}.')
            raise TypeError(f'constants: key {key!r} is not a SymPy Symbol.')
        values[key] = _as_float(f'constants[{key}]', value)
    needed = list(nm.constants) + list(extra)
    missing = [s for s in needed if s not in values]
    packed = np.array([values.get(s, np.nan) for s in needed], dtype=float)
    return packed, missing, values


def _specified_functions(nm, specified, t0):
    """Return a list of callables of t (in ``nm.specified`` order) and the
    missing inputs."""
    specified = {} if specified is None else specified
    if not hasattr(specified, 'items'):
        raise TypeError(f'specified must be a mapping from time functions '
                        f'to numbers or callables f(t), not '
                        f'{type(specified).__name__}.')
    functions, missing = [], []
    for symbol in nm.specified:
        if symbol not in specified:
            missing.append(symbol)
            continue
        value = specified[symbol]
        if callable(value):
            check = value(t0)
            _as_float(f'specified[{symbol}]({t0})', check)
            functions.append(value)
        else:
            number = _as_float(f'specified[{symbol}]', value)
            functions.append(lambda t, number=number: number)
    unknown = [k for k in specified if k not in nm.specified]
    if unknown:
        raise ValueError(
            f'specified: {sorted(map(str, unknown))} do not appear in the '
            f'equations of motion; the specified inputs are '
            f'{[str(s) for s in nm.specified]}.')
    return functions, missing


def _initial_state(nm, initial_conditions):
    """Return full ``q0, u0`` (dependent entries are guesses; dependent
    speeds default to 0 and are solved for) and missing names."""
    nq, nu = len(nm.q), len(nm.u)
    if hasattr(initial_conditions, 'items'):
        q0, u0 = np.zeros(nq), np.zeros(nu)
        missing = []
        unknown = [k for k in initial_conditions
                   if k not in nm.q and k not in nm.u]
        if unknown:
            raise ValueError(
                f'initial_conditions: {sorted(map(str, unknown))} are not '
                f'coordinates or speeds of the model; they are '
                f'{[str(s) for s in nm.q + nm.u]}.')
        for i, s in enumerate(nm.q):
            if s in initial_conditions:
                q0[i] = _as_float(f'initial_conditions[{s}]',
                                  initial_conditions[s])
            else:
                missing.append(s)
        for i, s in enumerate(nm.u):
            if s in initial_conditions:
                u0[i] = _as_float(f'initial_conditions[{s}]',
                                  initial_conditions[s])
            elif i not in set(nm.u_dep_idx):
                missing.append(s)
        return q0, u0, missing
    try:
        values = np.asarray(initial_conditions, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            'initial_conditions must be a mapping from coordinates and '
            'speeds to numbers, or an array of [q, u] in model order.'
        ) from None
    if values.shape != (nq + nu,):
        raise ValueError(
            f'initial_conditions must have shape ({nq + nu},) (the '
            f'{nq} coordinates then the {nu} speeds in model order), got '
            f'shape {values.shape}.')
    if not np.all(np.isfinite(values)):
        raise ValueError('initial_conditions must be finite.')
    return values[:nq].copy(), values[nq:].copy(), []


# ---------------------------------------------------------------------------
# The numeric problem

class _Problem:
    """Right-hand side and state reconstruction for one simulate() call."""

    def __init__(self, nm, constants, spec_functions, solver,
                 friction_functions, friction_options, backend='numpy'):
        self.nm = nm
        self.c = constants
        self.spec_functions = spec_functions
        self.solver = solver
        self.solver_error = solver_error_class() if solver else None
        self.friction_functions = friction_functions
        self.n_friction = len(nm.friction)
        self.friction_values = np.zeros(self.n_friction)
        (self.friction_tolerance, self.friction_max_iterations,
         self.friction_relaxation) = friction_options
        self.kernels = nm.compiled() if backend == 'numba' else None
        if backend == 'numba' and self.kernels is None:
            raise ValueError("backend='numba' needs numba (pip install "
                             "numba) and a model it can compile.")
        self.partitioned = nm.has_config_constraints or \
            nm.has_velocity_constraints
        self.nq, self.nu = len(nm.q), len(nm.u)
        self._info = np.zeros(1, dtype=np.int64)
        self._c = np.ascontiguousarray(self.c, dtype=float)
        # The whole right-hand side in one compiled call, without joint
        # friction (an iteration around the kinematics and dynamics). Its
        # Newton iteration is the constraint solver's compiled kernel, so
        # that needs numba to compile the solver's constraint code too.
        self._newton = (0, np.zeros(0), np.zeros(0, dtype=np.int64),
                        np.zeros(0))
        newton = solver._compiled_newton() if (
            solver is not None and self.kernels is not None) else None
        if newton is not None:
            self._newton = newton
        self.fused = self.kernels is not None and not self.n_friction and \
            (solver is None or newton is not None)

    def compile(self, t, y):
        """Compile (or load from the disk cache) the kernels this problem
        uses, by calling them once at the initial state: numba compiles a
        function on its first call, and only the ones needed."""
        if self.kernels is None:
            return
        import numba
        try:
            if self.fused:
                self.fast_rhs()(t, y)
                self.samples(np.array([t]), np.asarray(y)[:, None])
            else:
                q, u = self.full_state(t, y)
                self._solve_eom(t, q, u, self.specified(t) + [0.0] * len(
                    self.nm.friction))
        except numba.core.errors.NumbaError as error:
            raise ValueError(f"backend='numba' cannot compile this model "
                             f"({error}); use backend='numpy'.") from None

    def fast_rhs(self):
        """Return ``f(t, y)``: the right-hand side for the integrator.

        With the compiled kernels, one call evaluates everything; any
        nonzero status (Newton not converged in its plain iterations,
        nearly singular Jacobian or mass matrix) repeats the evaluation on
        the NumPy path, which recovers (damped Newton of the constraint
        solver) or raises the :class:`SimulationError` with the details.
        """
        if not self.fused:
            return self.rhs
        kernel, c, info = self.kernels.rhs, self._c, self._info
        address, params, ints, work = self._newton
        slow, functions, empty = self.rhs, self.spec_functions, np.zeros(0)

        def rhs(t, y):
            s = np.array([f(t) for f in functions], dtype=float) \
                if functions else empty
            try:
                ydot = kernel(t, y, c, s, address, params, ints, work, info)
            except TypeError:   # not a contiguous float array
                ydot = kernel(float(t), np.ascontiguousarray(y, dtype=float),
                              c, s, address, params, ints, work, info)
            if info[0]:
                return slow(t, y)
            return ydot
        return rhs

    def samples(self, times, states):
        """Return the corrected ``q, u`` and the configuration and
        velocity constraint residuals at the integrator's samples
        (``states`` has one column per sample, as ``solve_ivp``'s ``y``)."""
        n = len(times)
        if self.fused and n:
            Y = np.ascontiguousarray(np.asarray(states, dtype=float).T)
            T = np.ascontiguousarray(times, dtype=float)
            S = np.array([self.specified(t) for t in T],
                         dtype=float).reshape(n, len(self.spec_functions))
            out = np.empty((n, self.nq + self.nu + 2))
            status = np.zeros(n, dtype=np.int64)
            self.kernels.states(T, Y, self._c, S, *self._newton, out, status)
            q, u = out[:, :self.nq], out[:, self.nq:self.nq + self.nu]
            for i in np.nonzero(status)[0]:    # NumPy path: recover/report
                q[i], u[i] = self.full_state(times[i], Y[i])
            residual, velocity = out[:, -2].copy(), out[:, -1].copy()
            if status.any():
                bad = np.nonzero(status)[0]
                residual[bad], velocity[bad] = _residuals(
                    self, times[bad], q[bad], u[bad])
            return q.copy(), u.copy(), residual, velocity
        q = np.empty((n, self.nq))
        u = np.empty((n, self.nu))
        for i in range(n):
            q[i], u[i] = self.full_state(times[i], states[:, i])
        residual, velocity = _residuals(self, times, q, u)
        return q, u, residual, velocity

    # state layout: [q (all), u (all)] if not partitioned, else
    # [q (all; dependent entries only as Newton guesses), u_ind]
    def state_size(self):
        if self.partitioned:
            return self.nq + len(self.nm.u_ind_idx)
        return self.nq + self.nu

    def pack(self, q, u):
        if self.partitioned:
            return np.concatenate([q, u[self.nm.u_ind_idx]])
        return np.concatenate([q, u])

    def specified(self, t):
        return [f(t) for f in self.spec_functions]

    def solve_positions(self, t, q):
        if not self.nm.has_config_constraints:
            return q
        try:
            return np.asarray(self.solver.solve_positions(q, t), dtype=float)
        except self.solver_error as error:
            raise SimulationError(
                f'the holonomic constraints could not be solved at t = '
                f'{float(t):.10g} ({_format_state(self.nm.q, q)}): {error}',
                time=t, q=q) from error

    def dependent_speeds(self, t, q, u, s):
        nm = self.nm
        if not nm.has_velocity_constraints:
            return u
        k_nh, f_nh = nm.velocity_matrices(t, q, u, self.c, s)
        k_nh = np.asarray(k_nh, dtype=float)
        rhs = -(k_nh[:, nm.u_ind_idx] @ u[nm.u_ind_idx]
                + np.asarray(f_nh, dtype=float).ravel())
        try:
            u = u.copy()
            u[nm.u_dep_idx] = np.linalg.solve(k_nh[:, nm.u_dep_idx], rhs)
        except np.linalg.LinAlgError:
            raise SimulationError(
                f'the velocity constraints are singular in the dependent '
                f'speeds at t = {float(t):.10g} '
                f'({_format_state(nm.q, q)}); choose other '
                f'independent speeds.', time=t, q=q, u=u) from None
        return u

    def full_state(self, t, y):
        """Return the corrected ``(q, u)`` for the integrator state ``y``."""
        q = np.array(y[:self.nq], dtype=float)
        if self.partitioned:
            u = np.zeros(self.nu)
            u[self.nm.u_ind_idx] = y[self.nq:]
            q = self.solve_positions(t, q)
            s = self.specified(t) + list(self.friction_values)
            u = self.dependent_speeds(t, q, u, s)
        else:
            u = np.array(y[self.nq:], dtype=float)
        return q, u

    def _solve_eom(self, t, q, u, s):
        if self.kernels is not None:
            out = self.kernels.eom(
                float(t), np.ascontiguousarray(q, dtype=float),
                np.ascontiguousarray(u, dtype=float), self._c,
                np.asarray(s, dtype=float), self._info)
            if not self._info[0]:
                return out[:self.nq], out[self.nq:]
            # else: the NumPy path below reports the singular matrix
        m_kin, f_kin, mass, forcing = self.nm.eom(t, q, u, self.c, s)
        f_kin = np.asarray(f_kin, dtype=float).ravel()
        forcing = np.asarray(forcing, dtype=float).ravel()
        try:
            qdot = f_kin if self.nm.kinematics_is_identity else \
                np.linalg.solve(np.asarray(m_kin, dtype=float), f_kin)
            udot = np.linalg.solve(np.asarray(mass, dtype=float), forcing)
        except np.linalg.LinAlgError:
            raise SimulationError(
                f'the mass matrix is singular at t = {float(t):.10g} '
                f'({_format_state(self.nm.q, q)}; '
                f'{_format_state(self.nm.u, u)}).',
                time=t, q=q, u=u) from None
        return qdot, udot

    def derivatives(self, t, q, u):
        """Return ``qdot, udot`` and the joint-friction values at a
        consistent state (friction by relaxation, seed 004)."""
        spec = self.specified(t)
        if not self.n_friction:
            qdot, udot = self._solve_eom(t, q, u, spec)
            return qdot, udot, self.friction_values
        f = self.friction_values.copy()
        change = np.inf
        for _ in range(self.friction_max_iterations):
            qdot, udot = self._solve_eom(t, q, u, spec + list(f))
            new = np.concatenate([
                np.atleast_1d(np.asarray(func(q, u, udot, t), dtype=float))
                for func in self.friction_functions])
            change = np.max(np.abs(new - f))
            f = f + self.friction_relaxation * (new - f)
            if change <= self.friction_tolerance * max(1.0,
                                                       np.max(np.abs(f))):
                self.friction_values = f
                return qdot, udot, f
        raise SimulationError(
            f'the joint-friction iteration did not converge at t = '
            f'{float(t):.10g} '
            f'after {self.friction_max_iterations} iterations (last change '
            f'{change:.3g} > friction_tolerance = '
            f'{self.friction_tolerance:g}; {_format_state(self.nm.q, q)}; '
            f'{_format_state(self.nm.u, u)}); try a smaller '
            f'friction_relaxation.', time=t, q=q, u=u)

    def rhs(self, t, y):
        q, u = self.full_state(t, y)
        qdot, udot, _ = self.derivatives(t, q, u)
        if self.partitioned:
            return np.concatenate([qdot, udot[self.nm.u_ind_idx]])
        return np.concatenate([qdot, udot])


def solver_error_class():
    """Return :class:`ConstraintSolverError` (imported where needed)."""
    from .constraints import ConstraintSolverError
    return ConstraintSolverError


_SOLVERS = weakref.WeakKeyDictionary()


def _constraint_solver(nm, constants_mapping, options):
    """Return the :class:`HolonomicConstraintSolver` of the model, cached
    per model, values of the constants in its constraints and options (its
    numeric code, compiled by numba when available, is generated once)."""
    from .constraints import HolonomicConstraintSolver
    used = sorted(nm.f_h.free_symbols - {_TIME}, key=_symbol_key)
    values = {s: constants_mapping[s] for s in used}
    key = (tuple(values.items()), tuple(sorted(options.items())))
    per_model = _SOLVERS.setdefault(nm.kane, {})
    if key not in per_model:
        per_model[key] = HolonomicConstraintSolver.from_kanes_method(
            nm.kane, values, **options)
    return per_model[key]


def _check_joint_friction(joint_friction):
    if joint_friction is None:
        return []
    if hasattr(joint_friction, 'prepare'):
        joint_friction = [joint_friction]
    items = list(joint_friction)
    for i, item in enumerate(items):
        if not (hasattr(item, 'symbols') and callable(
                getattr(item, 'prepare', None))):
            raise TypeError(
                f'joint_friction[{i}] must have .symbols and .prepare(model, '
                f'constants), not {type(item).__name__} {item!r}.')
    return items


def simulate(model, t_span, initial_conditions, constants, *, t_eval=None,
             rtol=1e-8, atol=1e-10, method='DOP853', specified=None,
             outputs=None, joint_friction=None, max_step=np.inf,
             friction_tolerance=1e-10, friction_max_iterations=100,
             friction_relaxation=1.0, constraint_options=None,
             backend='numpy'):
    r"""Integrate the equations of motion of ``model`` over ``t_span``.

    Explanation
    ===========

    ``model`` is a ``KanesMethod`` (after ``kanes_equations``) or a
    ``System`` (after ``form_eoms()``), with or without dependent
    coordinates and speeds. Without constraints the right-hand side is
    ``mass_matrix_full \ forcing_full``, solved numerically. With
    holonomic constraints the independent coordinates and speeds are
    integrated and the dependent ones recomputed at every evaluation by
    the :class:`HolonomicConstraintSolver` (Newton-Raphson, seed 002) and
    the linear velocity constraints (coordinate partitioning, see the
    module documentation, [Wehage1982simulate]_), so the constraint
    residual of every returned sample is at the Newton tolerance.

    The numeric code (mass matrices and forcing vectors with common
    subexpressions eliminated, constraint matrices, outputs) is generated
    once per model and cached; further calls with other constants, initial
    conditions or inputs reuse it. Every generated function takes its
    arguments in the fixed order ``(t, q, u, c, s)``: ``q`` and ``u`` in
    ``model.q``/``model.u`` order, ``c`` the constants sorted by SymPy's
    ``default_sort_key`` (``result.constants`` lists them), ``s`` the
    specified inputs sorted the same way followed by the joint-friction
    magnitudes.

    Examples
    ========

    A mass on a spring, ``x'' = -(k/m) x``, against the exact solution:

    >>> import numpy as np
    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import simulate
    >>> x, v = me.dynamicsymbols('x v')
    >>> m, k = sm.symbols('m k', positive=True)
    >>> N = me.ReferenceFrame('N')
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', x*N.x); P.set_vel(N, v*N.x)
    >>> kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v])
    >>> _ = kane.kanes_equations([me.Particle('p', P, m)], [(P, -k*x*N.x)])
    >>> res = simulate(kane, (0, 1), {x: 0.1, v: 0.0}, {m: 2.0, k: 8.0},
    ...                t_eval=[0.5, 1.0],
    ...                outputs={'energy': m*v**2/2 + k*x**2/2})
    >>> res.q_names, res.success
    (('x',), True)
    >>> np.allclose(res.q[:, 0], 0.1*np.cos(2.0*res.t), atol=1e-9)
    True
    >>> np.allclose(res.outputs['energy'], 0.04, rtol=1e-8)
    True

    Missing constants are a ``ValueError`` that lists them:

    >>> simulate(kane, (0, 1), {x: 0.1, v: 0.0}, {m: 2.0})
    Traceback (most recent call last):
    ...
    ValueError: simulate(): missing constants: [k]

    The tutorial "Simulating a closed-loop mechanism" integrates a four-bar
    linkage with dependent coordinates and speeds.

    Parameters
    ==========

    model : KanesMethod or System
        The equations of motion (``System`` formed with ``KanesMethod``).
    t_span : (float, float)
        Start and end time.
    initial_conditions : mapping or array_like
        Values of the coordinates and speeds at ``t_span[0]``. Every
        independent coordinate and speed is required. Dependent coordinates
        are required as *starting guesses* (they choose the assembly
        branch) and are solved for; dependent speeds may be omitted and are
        always computed from the velocity constraints. An array is
        ``[q, u]`` in ``model.q``/``model.u`` order.
    constants : mapping
        Symbol -> number for every constant symbol of the model (and of
        ``outputs``). Missing ones raise ``ValueError``; there are no
        defaults.
    t_eval : array_like, optional
        Times at which to store the solution (within ``t_span``); default:
        the integrator's steps.
    rtol, atol : float, optional
        Integrator tolerances (``solve_ivp``'s meaning).
    method : str, optional
        ``solve_ivp`` method; the default ``'DOP853'`` suits non-stiff
        mechanisms, ``'Radau'`` or ``'LSODA'`` stiff ones (stiff contact).
        ``'odeint'`` uses SciPy's ``odeint`` (LSODA, automatic switching
        between Adams and BDF) whose stepping loop runs in Fortran: with
        ``backend='numba'`` the integrator's Python overhead then dominates
        no longer, and a run is several times faster than with
        ``solve_ivp`` (same ``rtol``/``atol`` meaning; the trajectory
        differs from DOP853's within the tolerances). ``t_eval`` samples
        are interpolated by LSODA as ``solve_ivp`` interpolates them;
        without ``t_eval`` the result has the integrator's steps (the same
        LSODA stepped by ``solve_ivp``). On failure the result keeps the
        samples reached and ``success`` is False.
    specified : mapping, optional
        Values of the specified inputs (time functions other than the
        coordinates and speeds appearing in the equations): a number or a
        callable ``f(t) -> float`` for each.
    outputs : mapping, optional
        Name -> SymPy expression (scalar or column matrix) evaluated at
        every sample, e.g. ``{'energy': T + V}``. Expressions may contain
        the coordinates, speeds, their time derivatives, time, specified
        inputs and constants; they are lambdified once and cached.
    joint_friction : sequence, optional
        Objects with ``.symbols`` (dynamic symbols that appear in the
        loads as unknown friction magnitudes) and ``.prepare(model,
        constants)`` returning ``f(q, u, udot, t) -> ndarray`` with the
        values of ``.symbols`` computed from the joint reactions. At every
        evaluation the magnitudes start from their previous values, ``M
        udot = F(q, u, t, f)`` is solved, ``f`` is updated as ``f + w (f_new
        - f)`` (``w = friction_relaxation``) until the change is below
        ``friction_tolerance`` (relative to ``max(1, |f|)``), the
        relaxation of seed 004 [Seed004simulate]_.
    max_step : float, optional
        Largest integrator step.
    friction_tolerance, friction_max_iterations, friction_relaxation :
        Options of the joint-friction iteration.
    backend : {'numpy', 'numba'}, optional
        How the right-hand side is evaluated: ``'numpy'`` (default) calls
        the lambdified NumPy functions, with no start-up cost; ``'numba'``
        generates one compiled function that does a whole evaluation
        (the constraint solver's compiled Newton-Raphson on the dependent
        coordinates from the guess carried in the state, the dependent
        speeds, ``M udot = F``) and hands any difficulty (no convergence,
        a nearly singular Jacobian or mass matrix) to the NumPy path, which
        recovers or reports it.
        numba compiles it on the first call for a model, which takes
        seconds; the generated module is written to
        ``$SYMPY_LOADS_CACHE_DIR`` (default ``~/.cache/sympy_loads``; an
        empty value disables the disk cache) so that numba's cache makes
        later processes load it in a fraction of a second. Use it for long
        runs or many runs of one model. Both give the same results to the
        integrator's tolerance.
    constraint_options : dict, optional
        Keyword options of the :class:`HolonomicConstraintSolver`
        (``tolerance``, ``max_iterations``, ``backend``, ...). The solver
        is built once per model, constraint constants and options, and
        cached.

    Returns
    =======

    SimulationResult

    Raises
    ======

    TypeError
        ``model`` is not a KanesMethod/System, or an argument has the wrong
        type.
    ValueError
        Missing constants, specified inputs or initial conditions (all
        listed in one message), wrong shapes, unknown names, a bad
        ``t_span``/``t_eval``.
    ConstraintSolverError
        The initial configuration cannot be assembled from the guesses.
    SimulationError
        The constraints cannot be solved, the mass matrix is singular or the
        joint-friction iteration fails during the integration; the message
        gives the time and the state.

    References
    ==========

    .. [Wehage1982simulate] R. A. Wehage, E. J. Haug, "Generalized
       coordinate partitioning for dimension reduction in analysis of
       constrained dynamic systems", J. Mech. Des. 104(1):247-255, 1982.
    .. [Seed004simulate] "Three-Dimensional Generalized Forces" (seed 004),
       Coulomb friction in joints by relaxation.
    """
    kane = _kanes_method_of(model)
    t0, t1 = _check_t_span(t_span)
    t_eval = _check_t_eval(t_eval, t0, t1)
    if backend not in ('numba', 'numpy'):
        raise ValueError(f"backend must be 'numpy' or 'numba', not "
                         f"{backend!r}.")
    rtol = _as_float('rtol', rtol)
    atol = _as_float('atol', atol)
    if rtol <= 0 or atol <= 0:
        raise ValueError(f'rtol and atol must be positive, got rtol={rtol}, '
                         f'atol={atol}.')
    friction_items = _check_joint_friction(joint_friction)
    friction_symbols = []
    for item in friction_items:
        friction_symbols.extend(item.symbols)
    if outputs is not None and not hasattr(outputs, 'items'):
        raise TypeError(f'outputs must be a mapping from names to SymPy '
                        f'expressions, not {type(outputs).__name__}.')
    outputs = dict(outputs or {})
    for name, expr in outputs.items():
        if not isinstance(expr, (sm.Basic, sm.MatrixBase, numbers.Number)):
            raise TypeError(f'outputs[{name!r}] must be a SymPy expression, '
                            f'not {type(expr).__name__}.')
        outputs[name] = sm.sympify(expr)

    nm = _numeric_model(kane, friction_symbols)
    output_spec = nm.output_function(outputs) if outputs else None
    extra_constants = output_spec[3] if output_spec else []
    c_all, missing_c, all_constants = _pack_constants(nm, constants,
                                                      extra_constants)
    spec_functions, missing_s = _specified_functions(nm, specified, t0)
    q0, u0, missing_x = _initial_state(nm, initial_conditions)
    problems = []
    if missing_c:
        problems.append(f'missing constants: {[_name(s) for s in missing_c]}'
                        .replace("'", ''))
    if missing_s:
        problems.append(f'missing specified inputs (specified=): '
                        f'{[_name(s) for s in missing_s]}'.replace("'", ''))
    if missing_x:
        problems.append(f'missing initial conditions: '
                        f'{[_name(s) for s in missing_x]}'.replace("'", ''))
    if problems:
        raise ValueError('simulate(): ' + '; '.join(problems))
    c = c_all[:len(nm.constants)]
    constants_map = dict(zip(nm.constants + extra_constants, c_all))

    solver = None
    if nm.has_config_constraints:
        solver = _constraint_solver(nm, constants_map,
                                    dict(constraint_options or {}))
    friction_functions = [item.prepare(model, all_constants)
                          for item in friction_items]
    friction_tolerance = _as_float('friction_tolerance', friction_tolerance)
    friction_relaxation = _as_float('friction_relaxation',
                                    friction_relaxation)
    if not 0 < friction_relaxation <= 1:
        raise ValueError(f'friction_relaxation must be in (0, 1], got '
                         f'{friction_relaxation}.')
    problem = _Problem(nm, c, spec_functions, solver, friction_functions,
                       (friction_tolerance, int(friction_max_iterations),
                        friction_relaxation), backend)

    # Consistent initial conditions: dependent entries are guesses.
    if nm.has_config_constraints:
        q0 = np.asarray(solver.solve_positions(q0, t0), dtype=float)
    u0 = problem.dependent_speeds(
        t0, q0, u0, problem.specified(t0) + [0.0] * len(nm.friction))
    y0 = problem.pack(q0, u0)
    problem.compile(t0, y0)

    solution = _integrate(problem.fast_rhs(), (t0, t1), y0, method=method,
                          t_eval=t_eval, rtol=rtol, atol=atol,
                          max_step=max_step)

    times = solution.t
    q, u, residual, velocity_residual = problem.samples(times, solution.y)
    values = _evaluate_outputs(problem, output_spec, times, q, u, c_all) \
        if output_spec else {}
    return SimulationResult(
        t=times, q=q, u=u, constraint_residual=residual,
        velocity_residual=velocity_residual, outputs=values,
        success=bool(solution.success), status=int(solution.status),
        message=str(solution.message), nfev=int(solution.nfev),
        njev=int(solution.njev), nlu=int(solution.nlu),
        q_names=tuple(str(s.name) for s in nm.q),
        u_names=tuple(str(s.name) for s in nm.u),
        coordinates=tuple(nm.q), speeds=tuple(nm.u),
        constants=tuple(constants_map.items()))


def _integrate(fun, t_span, y0, *, method, t_eval, rtol, atol, max_step):
    """``solve_ivp``, or for ``method='odeint'`` SciPy's ``odeint`` (LSODA
    with its stepping loop in Fortran), returning the fields of
    ``solve_ivp``'s result that :func:`simulate` uses."""
    if method != 'odeint':
        return solve_ivp(fun, t_span, y0, method=method, t_eval=t_eval,
                         rtol=rtol, atol=atol, max_step=max_step)
    t0, t1 = t_span
    if t_eval is None:
        # odeint returns only requested times; the integrator's own steps
        # come from the same LSODA driven step by step by solve_ivp
        return solve_ivp(fun, t_span, y0, method='LSODA', rtol=rtol,
                         atol=atol, max_step=max_step)
    prepend = not (t_eval.size and t_eval[0] == t0)
    times = np.concatenate([[t0], t_eval]) if prepend else t_eval
    hmax = 0.0 if math.isinf(max_step) else float(max_step)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', ODEintWarning)
        y, info = odeint(fun, y0, times, rtol=rtol, atol=atol, hmax=hmax,
                         tfirst=True, full_output=True,
                         mxstep=_ODEINT_MAX_STEPS)
    success = info['message'] == 'Integration successful.'
    reached = len(times)
    if not success:
        # rows after the failure are not solutions; tcur[k] is the time
        # reached while computing row k + 1
        direction = math.copysign(1.0, t1 - t0)
        ok = (info['tcur'] - times[1:]) * direction >= 0
        reached = 1 + int(np.argmin(ok)) if not ok.all() else len(times)
    first = 1 if prepend else 0
    return types.SimpleNamespace(
        t=times[first:reached], y=y[first:reached].T, success=success,
        status=0 if success else -1,
        message=f"odeint (LSODA): {info['message']}",
        nfev=int(info['nfe'][-1]) if len(info['nfe']) else 0,
        njev=int(info['nje'][-1]) if len(info['nje']) else 0, nlu=0)


def _residuals(problem, times, q, u):
    nm = problem.nm
    n = len(times)
    residual = np.zeros(n)
    velocity = np.zeros(n)
    for i, t in enumerate(times):
        s = problem.specified(t) + [0.0] * len(nm.friction)
        if nm.has_config_constraints:
            residual[i] = np.max(np.abs(np.asarray(
                nm.holonomic(t, q[i], u[i], problem.c, s), dtype=float)))
        if nm.has_velocity_constraints:
            k_nh, f_nh = nm.velocity_matrices(t, q[i], u[i], problem.c, s)
            velocity[i] = np.max(np.abs(
                np.asarray(k_nh, dtype=float) @ u[i]
                + np.asarray(f_nh, dtype=float).ravel()))
    return residual, velocity


def _evaluate_outputs(problem, output_spec, times, q, u, c_all):
    names, shapes, function, _, uses_udot = output_spec
    columns = [[] for _ in names]
    for i, t in enumerate(times):
        udot = np.zeros(len(problem.nm.u))
        f = problem.friction_values
        if uses_udot or problem.n_friction:
            _, udot, f = problem.derivatives(t, q[i], u[i])
        s = problem.specified(t) + list(f)
        values = function(t, q[i], u[i], udot, c_all, s)
        for j, value in enumerate(values):
            columns[j].append(np.asarray(value, dtype=float).ravel())
    result = {}
    for name, shape, column in zip(names, shapes, columns):
        array = np.array(column)
        result[name] = array[:, 0] if shape is None else array
    return result
