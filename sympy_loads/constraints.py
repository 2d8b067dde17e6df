r"""Numerical solution of holonomic constraints: positions, velocities,
accelerations, mobility and redundancy.

SymPy Mechanics stores the configuration (holonomic) constraints of a
``KanesMethod`` or ``System`` but never solves them. This module does, as
the constraint-kinematics module of the Autodesk dynamic simulation course
describes [Autodesk]_. The constraint set is made of kinematic constraints
and driving constraints that are explicit functions of time:

.. math::

   \Phi(q, t) = \begin{bmatrix} \Phi_K(q, t) \\ \Phi_D(q, t) \end{bmatrix} = 0

* positions: Newton-Raphson on the dependent coordinates,
  :math:`\Phi_q \, \Delta q = -\Phi`,
  :math:`q \leftarrow q + \alpha \, \Delta q` (:math:`\alpha` from a
  backtracking line search);
* velocities: :math:`\Phi_q \dot{q} = -\Phi_t`;
* accelerations: :math:`\Phi_q \ddot{q} = -(\Phi_q \dot{q})_q \dot{q}
  - 2 \Phi_{qt} \dot{q} - \Phi_{tt}`;
* mobility :math:`n_q - \operatorname{rank}(\Phi_q)` and redundancy
  :math:`n_c - \operatorname{rank}(\Phi_q)`.

All symbolic work (``Phi``, ``Phi_q``, ``Phi_t`` and the acceleration
right-hand side) is done once, when the solver is built, and turned into
numeric code with common subexpressions eliminated: SymEngine's LLVM JIT
compiles it in milliseconds and generic numba kernels, compiled once per
installation, run the Newton iteration and the rate solves on it. Without
SymEngine or numba, ``lambdify``-generated NumPy code and vectorized NumPy
solves do the same (``backend='numpy'``; see the API page's "Back ends").

References
==========

.. [Autodesk] Autodesk, "Dynamic Simulation: Constraint Kinematics",
   Section 4, Module 4 (2011), pages 2-14.
"""

import copy
import math

import numpy as np
import sympy as sm
from sympy.physics.mechanics import dynamicsymbols

from ._constraint_errors import (constraint_error, raise_position_failure,
                                 raise_singular)
from ._errors import ConstraintSolverError
from ._joint_reactions import check_loops_closed
from ._numeric import (BAD_INPUT as _BAD_INPUT, CONVERGED as _CONVERGED,
                       SINGULAR as _SINGULAR,
                       SINGULAR_RATIO as _SINGULAR_RATIO, resolve_backend)
from ._numeric.codegen import symengine_available, to_symengine
from ._numeric.constraint_engine import ConstraintEngine
from ._utils import (_as_float, _check_type, _internal_prefix, _kanes_parts,
                     _real_array)

__all__ = ['HolonomicConstraintSolver', 'ConstraintAnalysis',
           'ConstraintSolverError']

_FLOAT64 = np.dtype(np.float64)


def _derivatives(phi, q, u, t):
    r""":math:`\Phi_q` (rows of lists), :math:`\Phi_t` and the acceleration
    right-hand side :math:`\gamma = -(\Phi_q u)_q u - 2 \Phi_{qt} u -
    \Phi_{tt}` [Autodesk]_ of the constraint expressions ``phi`` in the
    symbols ``q``, ``u`` (the velocities) and ``t``. Differentiated by
    SymEngine when it is installed (milliseconds where SymPy takes a large
    fraction of a second for a model such as a bicycle), else by SymPy."""
    if symengine_available():
        try:
            return _derivatives_in(to_symengine(phi), to_symengine(q),
                                   to_symengine(u), to_symengine([t])[0])
        except (RuntimeError, TypeError, NotImplementedError):
            pass    # a function SymEngine cannot differentiate: use SymPy
    return _derivatives_in(phi, q, u, t)


def _to_sympy(expr):
    """A SymPy expression from a SymEngine or SymPy one."""
    return expr._sympy_() if hasattr(expr, '_sympy_') else sm.sympify(expr)


def _derivatives_in(phi, q, u, t):
    n = len(q)
    jac = [[expr.diff(qj) for qj in q] for expr in phi]
    phi_t = [expr.diff(t) for expr in phi]
    gamma = []
    for i, row in enumerate(jac):
        velocity = sum((row[j] * u[j] for j in range(n)), 0 * t)
        value = -phi_t[i].diff(t)
        for j in range(n):
            value -= (velocity.diff(q[j]) + 2 * row[j].diff(t)) * u[j]
        gamma.append(value)
    return jac, phi_t, gamma


class ConstraintAnalysis:
    r"""Rank, mobility and redundancy of a constraint Jacobian.

    Explanation
    ===========

    Returned by :meth:`HolonomicConstraintSolver.analyze`. With
    :math:`n_q` coordinates, :math:`n_c` constraints and
    :math:`n_{ic} = \operatorname{rank}(\Phi_q)` independent constraints,
    the degree of mobility is :math:`n_q - n_{ic}` and the degree of
    redundancy is :math:`n_c - n_{ic}` [Autodesk]_. The redundant
    constraints are found as Autodesk Inventor does, by adding the rows of
    the Jacobian one at a time in order: a row that does not raise the rank
    is redundant.

    Examples
    ========

    >>> from sympy_loads import ConstraintAnalysis
    >>> analysis = ConstraintAnalysis(rank=2, nq=3, nc=3, redundant=(2,),
    ...                               singular_values=[2.0, 1.0, 0.0])
    >>> analysis.mobility, analysis.redundancy, analysis.redundant
    (1, 1, (2,))

    Parameters
    ==========

    rank : int
        Numerical rank of ``Phi_q``.
    nq, nc : int
        Number of coordinates and of constraints.
    redundant : tuple of int
        Indices of the redundant constraints.
    singular_values : array_like
        Singular values of ``Phi_q``, largest first.
    dependent_rank : int, optional
        Rank of the columns of ``Phi_q`` that belong to the dependent
        coordinates; smaller than their number at a singular (toggle)
        configuration.
    constraints : sequence of Expr, optional
        The constraint expressions (to name the redundant ones).

    References
    ==========

    .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint Kinematics",
       pages 13-17.
    """

    def __init__(self, rank, nq, nc, redundant, singular_values,
                 dependent_rank=None, constraints=None):
        self._rank = int(rank)
        self._nq = int(nq)
        self._nc = int(nc)
        self._redundant = tuple(int(i) for i in redundant)
        self._singular_values = np.array(singular_values, dtype=float)
        self._singular_values.flags.writeable = False
        self._dependent_rank = dependent_rank
        self._constraints = (None if constraints is None
                             else tuple(constraints))

    @property
    def rank(self):
        """Number of independent constraints (rank of ``Phi_q``)."""
        return self._rank

    @property
    def mobility(self):
        """Degree of mobility ``nq - rank``."""
        return self._nq - self._rank

    @property
    def redundancy(self):
        """Degree of redundancy ``nc - rank``."""
        return self._nc - self._rank

    @property
    def redundant(self):
        """Indices of the redundant constraints (tuple of int)."""
        return self._redundant

    @property
    def redundant_constraints(self):
        """The redundant constraint expressions (tuple), if known."""
        if self._constraints is None:
            return None
        return tuple(self._constraints[i] for i in self._redundant)

    @property
    def singular_values(self):
        """Singular values of ``Phi_q`` (read-only array, largest first)."""
        return self._singular_values

    @property
    def dependent_rank(self):
        """Rank of the dependent-coordinate columns of ``Phi_q``."""
        return self._dependent_rank

    def __repr__(self):
        values = np.array2string(self._singular_values, separator=', ',
                                 precision=6, suppress_small=True)
        return (f'ConstraintAnalysis(rank={self.rank}, mobility='
                f'{self.mobility}, redundancy={self.redundancy}, redundant='
                f'{self.redundant}, singular_values={values})')


class HolonomicConstraintSolver:
    r"""Solve holonomic constraints :math:`\Phi(q, t) = 0` for the dependent
    coordinates, their velocities and accelerations.

    Explanation
    ===========

    The constraint set is the kinematic constraints plus any driving
    constraints that are explicit functions of time [Autodesk]_; positions,
    velocities and accelerations satisfy

    .. math::

       \Phi(q, t) &= 0 \\
       \Phi_q \dot{q} &= -\Phi_t \\
       \Phi_q \ddot{q} &= -(\Phi_q \dot{q})_q \dot{q}
           - 2 \Phi_{qt} \dot{q} - \Phi_{tt}

    where :math:`\Phi_q` is the Jacobian :math:`\partial \Phi_i / \partial
    q_j`. The coordinates are split into independent ones, whose values are
    given, and dependent ones, which are solved for; only the columns of
    :math:`\Phi_q` that belong to the dependent coordinates enter the
    solves. Positions are found by Newton-Raphson, :math:`\Phi_{q_d} \,
    \Delta q_d = -\Phi`, with a backtracking (Armijo) line search on
    :math:`|\Phi|^2` so that poor starting guesses still converge. A solve
    has converged when the largest residual is at most ``tolerance`` and the
    Newton correction at the final point is at most ``step_tolerance``
    (relative to ``max(1, |q_dependent|)``); the first trial step is limited
    to ``max(1, |q_dependent|)`` so that angles do not jump by many turns. A
    converged configuration at which the dependent columns of :math:`\Phi_q`
    are numerically singular (pivot ratio below 1e-7: a toggle or locked
    position) is an error, not a result. With more constraints than
    dependent coordinates (a redundant set) each step is a least-squares
    (Gauss-Newton) step; a consistent redundant set still solves, and
    :meth:`analyze` names the redundant rows.

    ``Phi``, ``Phi_q``, ``Phi_t`` and the acceleration right-hand side are
    derived once, here, and generated as numeric code with common
    subexpressions eliminated, compiled by SymEngine's LLVM JIT in
    milliseconds and solved by numba kernels compiled once per installation
    (see ``backend``). Batches of configurations of shape ``(m, n)`` are
    solved together in either back end.

    Examples
    ========

    A slider-crank: crank angle ``theta`` (independent), rod angle ``phi``
    and slider position ``x`` (dependent), crank ``r`` and rod ``l``::

        y
        |    *
        |  r/  \ l
        | /th    \
        O-----------[x]----> x

    >>> import numpy as np
    >>> import sympy as sm
    >>> from sympy_loads import HolonomicConstraintSolver
    >>> theta, phi, x, r, l = sm.symbols('theta phi x r l')
    >>> loop = [r*sm.cos(theta) + l*sm.cos(phi) - x,
    ...         r*sm.sin(theta) - l*sm.sin(phi)]
    >>> solver = HolonomicConstraintSolver(loop, [theta, phi, x], [phi, x],
    ...                                    constants={r: 1.0, l: 3.0})
    >>> q = solver.solve_positions([np.pi/2, 0.0, 3.0])
    >>> np.round(q, 6)
    array([1.570796, 0.339837, 2.828427])
    >>> float(np.sqrt(3.0**2 - 1.0**2))  # closed form x = sqrt(l^2 - r^2)
    2.8284271247461903
    >>> qd = solver.solve_velocities(q, [2.0, 0.0, 0.0])  # theta' = 2
    >>> np.round(qd, 6)
    array([ 2.,  0., -2.])

    Parameters
    ==========

    constraints : sequence of Expr or Matrix
        The constraint expressions ``Phi(q, t)``, each meaning ``= 0``.
    coordinates : sequence
        All generalized coordinates (symbols or dynamic symbols); numeric
        ``q`` vectors follow this order.
    dependent : sequence
        The coordinates to solve for (a subset of ``coordinates``); there
        must be at least as many constraints as dependent coordinates.
    constants : dict, optional
        Numeric values of every other symbol in ``constraints``. A missing
        value is an error (there are no defaults).
    time : Symbol, optional
        The time symbol of driving constraints; default
        ``dynamicsymbols._t``.
    tolerance : float, optional
        Largest absolute constraint residual accepted (default 1e-12).
    max_iterations : int, optional
        Newton iteration limit (default 50).
    step_tolerance : float, optional
        Largest Newton correction accepted at the solution, relative to
        ``max(1, |q_dependent|)`` (default 1e-10).
    backend : {'auto', 'compiled', 'numpy'}, optional
        ``'auto'`` (default): compiled when SymEngine and numba import,
        else NumPy. ``'compiled'``: the constraint functions are compiled
        by SymEngine's LLVM JIT (milliseconds) and solved by numba kernels
        compiled once per installation. ``'numpy'``: ``lambdify``-generated
        NumPy functions and vectorized NumPy solves. ``'numba'`` is an
        alias of ``'compiled'``.

    Raises
    ======

    TypeError
        If an argument has the wrong type.
    ValueError
        If ``constraints`` or ``dependent`` is empty, a dependent coordinate
        is not among ``coordinates``, there are fewer constraints than
        dependent coordinates, a constraint contains
        a derivative of a coordinate or a symbol without a value in
        ``constants``, or an option is out of range.

    See Also
    ========

    from_kanes_method, from_system

    References
    ==========

    .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint Kinematics",
       Section 4, Module 4 (2011), pages 2-14.
    """


    def __init__(self, constraints, coordinates, dependent, *,
                 constants=None, time=None, tolerance=1e-12,
                 max_iterations=50, step_tolerance=1e-10, backend='auto'):
        self._set_symbolic(constraints, coordinates, dependent, constants,
                           time)
        self._tolerance = self._positive_float('tolerance', tolerance)
        self._step_tolerance = self._positive_float('step_tolerance',
                                                    step_tolerance)
        if (isinstance(max_iterations, bool)
                or not isinstance(max_iterations, (int, np.integer))):
            raise TypeError(f'max_iterations must be an int, not '
                            f'{type(max_iterations).__name__} '
                            f'{max_iterations!r}.')
        if max_iterations < 1:
            raise ValueError(f'max_iterations must be at least 1, got '
                             f'{max_iterations}.')
        self._max_iterations = int(max_iterations)
        self._backend_choice = resolve_backend(backend)
        self._backend_request = 'auto' if backend is None else backend
        self._generate()

    # -- construction ------------------------------------------------------

    def _set_symbolic(self, constraints, coordinates, dependent, constants,
                      time):
        if isinstance(constraints, sm.MatrixBase):
            constraints = list(constraints)
        elif isinstance(constraints, sm.Basic):
            constraints = [constraints]
        constraints = _check_type('constraints', constraints, (list, tuple),
                                  'sequence of expressions or a Matrix')
        exprs = []
        for expr in constraints:
            try:
                expr = sm.sympify(expr, strict=True)
            except sm.SympifyError:
                raise TypeError(f'constraints: {expr!r} is not a SymPy '
                                f'expression.') from None
            if isinstance(expr, sm.Equality):
                expr = expr.lhs - expr.rhs
            if not isinstance(expr, sm.Expr):
                raise TypeError(f'constraints: {expr!r} is not a scalar '
                                f'expression.')
            exprs.append(expr)
        if isinstance(coordinates, sm.MatrixBase):
            coordinates = list(coordinates)
        if isinstance(dependent, sm.MatrixBase):
            dependent = list(dependent)
        _check_type('coordinates', coordinates, (list, tuple), 'sequence')
        _check_type('dependent', dependent, (list, tuple), 'sequence')
        coordinates = tuple(coordinates)
        dependent = tuple(dependent)
        for q in coordinates:
            if not (isinstance(q, sm.Symbol)
                    or (isinstance(q, sm.Function) and q.args
                        and all(isinstance(a, sm.Symbol) for a in q.args))):
                raise TypeError(f'coordinates: {q!r} is not a Symbol or a '
                                f'dynamic symbol.')
        if len(set(coordinates)) != len(coordinates):
            raise ValueError(f'coordinates contains duplicates: '
                             f'{coordinates}.')
        if len(set(dependent)) != len(dependent):
            raise ValueError(f'dependent contains duplicates: {dependent}.')
        if not exprs:
            raise ValueError(
                'constraints is empty: give at least one constraint '
                'expression Phi(q, t) (meaning Phi = 0) to solve.')
        if not dependent:
            raise ValueError(
                f'dependent is empty: give the coordinates to solve the '
                f'{len(exprs)} constraints for (a nonempty subset of '
                f'coordinates {list(coordinates)}).')
        missing = [q for q in dependent if q not in coordinates]
        if missing:
            raise ValueError(f'dependent coordinates {missing} are not in '
                             f'coordinates {list(coordinates)}.')
        if len(exprs) < len(dependent):
            raise ValueError(
                f'{len(exprs)} constraints cannot determine '
                f'{len(dependent)} dependent coordinates; give at least as '
                f'many constraints as dependent coordinates.')
        if time is None:
            time = dynamicsymbols._t
        _check_type('time', time, sm.Symbol)
        if constants is None:
            constants = {}
        _check_type('constants', constants, dict)
        values = {}
        for key, value in constants.items():
            if not isinstance(key, sm.Basic):
                raise TypeError(f'constants: key {key!r} is not a SymPy '
                                f'symbol.')
            values[key] = _as_float(
                lambda: f'constants: the value of {key}', value)

        n = len(coordinates)
        # internal names under a prefix that starts no name of the user's
        names = {str(s) for e in exprs for s in sm.sympify(e).free_symbols}
        tag = _internal_prefix(names | {str(key) for key in values})
        q_syms = [sm.Symbol(f'{tag}q{i}') for i in range(n)]
        u_syms = [sm.Symbol(f'{tag}u{i}') for i in range(n)]
        t_sym = sm.Symbol(f'{tag}t')
        used = sorted((key for key in values
                       if any(e.has(key) for e in exprs)), key=str)
        p_syms = [sm.Symbol(f'{tag}p{i}') for i in range(len(used))]
        mapping = dict(zip(coordinates, q_syms))
        mapping.update(zip(used, p_syms))
        mapping[time] = t_sym
        phi = sm.Matrix([e.xreplace(mapping) for e in exprs])
        allowed = set(q_syms) | set(p_syms) | {t_sym}
        derivatives = phi.atoms(sm.Derivative)
        if derivatives:
            raise ValueError(f'constraints contain derivatives '
                             f'{sorted(map(str, derivatives))}: holonomic '
                             f'constraints depend on coordinates and time '
                             f'only.')
        unknown = (phi.free_symbols - allowed) | phi.atoms(
            sm.core.function.AppliedUndef)
        if unknown:
            raise ValueError(
                f'constraints contain {sorted(map(str, unknown))}, which are '
                f'neither coordinates, nor time, nor keys of constants; give '
                f'their numeric values in constants.')

        self._constraints = tuple(exprs)
        self._coordinates = coordinates
        self._dependent = dependent
        self._single = (n,)
        self._dep_index = tuple(coordinates.index(q) for q in dependent)
        self._ind_index = tuple(i for i in range(n)
                                if i not in self._dep_index)
        self._constants = {key: values[key] for key in constants}
        self._time = time
        self._p = np.array([values[key] for key in used], dtype=float)
        self._used = tuple(used)
        self._symbols = (q_syms, u_syms, t_sym, p_syms, phi)

    def _generate(self):
        q_syms, u_syms, t_sym, p_syms, phi = self._symbols
        n, nc = len(q_syms), len(phi)
        dep = self._dep_index
        jac, phi_t, gamma = _derivatives(list(phi), q_syms, u_syms, t_sym)
        self._derived = (jac, phi_t, gamma)
        inputs = [t_sym, *q_syms, *u_syms, *p_syms]
        resjac = list(phi) + [jac[i][j] for i in range(nc) for j in dep]
        rates = ([jac[i][j] for i in range(nc) for j in range(n)]
                 + list(phi_t) + list(gamma))
        self._engine = ConstraintEngine(
            inputs, resjac, rates, n, nc, dep, self._ind_index, self._p,
            (self._tolerance, self._step_tolerance, self._max_iterations),
            self._backend_choice,
            strict=self._backend_request in ('compiled', 'numba'))

    @classmethod
    def from_kanes_method(cls, kane, constants, **options):
        r"""Build the solver from a ``KanesMethod``'s configuration
        constraints.

        Explanation
        ===========

        The coordinates are ``kane.q`` (independent ones first, then the
        dependent ones given to ``KanesMethod(q_dependent=...)``) and the
        constraints are its ``configuration_constraints``.

        Examples
        ========

        >>> import sympy as sm
        >>> import sympy.physics.mechanics as me
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> q1, q2, u1, u2 = me.dynamicsymbols('q1 q2 u1 u2')
        >>> L = sm.symbols('L')
        >>> N = me.ReferenceFrame('N')
        >>> kane = me.KanesMethod(N, [q1], [u1], kd_eqs=[u1 - q1.diff(),
        ...     u2 - q2.diff()], q_dependent=[q2], u_dependent=[u2],
        ...     configuration_constraints=[q1**2 + q2**2 - L**2],
        ...     velocity_constraints=[q1*u1 + q2*u2])
        >>> solver = HolonomicConstraintSolver.from_kanes_method(
        ...     kane, {L: 5.0})
        >>> solver.solve_positions([3.0, 1.0])
        array([3., 4.])

        Parameters
        ==========

        kane : KanesMethod
            A model with holonomic (configuration) constraints.
        constants : dict
            Numeric values of the constants in the constraints.
        **options
            Passed on to the constructor (``tolerance``, ...).

        Raises
        ======

        TypeError
            If ``kane`` is not a ``KanesMethod``.
        ValueError
            If it has no configuration constraints.

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", page 2.
        """
        from sympy.physics.mechanics import KanesMethod
        _check_type('kane', kane, KanesMethod)
        parts = _kanes_parts(kane)
        q_ind, q_dep = parts.q_ind, parts.q_dep
        exprs = parts.holonomic_constraints
        if not exprs:
            raise ValueError('kane has no configuration constraints to '
                             'solve.')
        return cls(exprs, list(q_ind) + list(q_dep), list(q_dep),
                   constants=constants, **options)

    @classmethod
    def from_system(cls, system, constants, **options):
        r"""Build the solver from a ``System``'s holonomic constraints.

        Explanation
        ===========

        The coordinates are ``system.q`` and the dependent ones
        ``system.q_dep``; the constraints are
        ``system.holonomic_constraints``.

        Examples
        ========

        >>> import sympy as sm
        >>> import sympy.physics.mechanics as me
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> q1, q2 = me.dynamicsymbols('q1 q2')
        >>> L = sm.symbols('L')
        >>> system = me.System()
        >>> system.add_coordinates(q1)
        >>> system.add_coordinates(q2, independent=False)
        >>> system.add_holonomic_constraints(q1**2 + q2**2 - L**2)
        >>> solver = HolonomicConstraintSolver.from_system(system, {L: 5.0})
        >>> solver.solve_positions([4.0, 2.0])
        array([4., 3.])

        Parameters
        ==========

        system : System
        constants : dict
            Numeric values of the constants in the constraints.
        **options
            Passed on to the constructor.

        Raises
        ======

        TypeError
            If ``system`` is not a ``System``.
        ValueError
            If it has no holonomic constraints, or a
            :class:`~sympy_loads.LoopJoint` among its joints none of whose
            rows is among them (its loop would not be closed).

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", page 2.
        """
        from sympy.physics.mechanics import System
        _check_type('system', system, System)
        check_loops_closed(system, 'system')
        exprs = list(system.holonomic_constraints)
        if not exprs:
            raise ValueError('system has no holonomic constraints to '
                             'solve.')
        return cls(exprs, list(system.q_ind) + list(system.q_dep),
                   list(system.q_dep), constants=constants, **options)

    # -- read-only attributes ----------------------------------------------

    @property
    def constraints(self):
        """The constraint expressions (tuple)."""
        return self._constraints

    @property
    def coordinates(self):
        """All coordinates, in the order of numeric ``q`` vectors."""
        return self._coordinates

    @property
    def dependent(self):
        """The dependent coordinates (solved for)."""
        return self._dependent

    @property
    def independent(self):
        """The independent coordinates (kept as given)."""
        return tuple(self._coordinates[i] for i in self._ind_index)

    @property
    def constants(self):
        """Numeric values of the constants (a copy)."""
        return dict(self._constants)

    def with_constants(self, constants):
        r"""A solver of the same constraints with other values of (some of)
        the constants, sharing this solver's generated code: nothing is
        derived or compiled again, so a sweep over a constant of the
        constraints costs one solver's set-up.

        Examples
        ========

        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> x, y, r = sm.symbols('x y r')
        >>> circle = HolonomicConstraintSolver(
        ...     [x**2 + y**2 - r**2], [x, y], [y], constants={r: 5.0})
        >>> circle.with_constants({r: 13.0}).solve_positions([5.0, 1.0])
        array([ 5., 12.])
        >>> circle.solve_positions([3.0, 1.0])       # unchanged
        array([3., 4.])

        Parameters
        ==========

        constants : dict
            New values of keys of :attr:`constants`; the others keep
            theirs.

        Raises
        ======

        TypeError
            ``constants`` is not a dict, or a value is not a real number.
        ValueError
            A key is not one of this solver's constants.
        """
        _check_type('constants', constants, dict)
        unknown = [key for key in constants if key not in self._constants]
        if unknown:
            raise ValueError(
                f'constants: {unknown} are not constants of this solver '
                f'(those are {list(self._constants)}); make a new solver '
                f'for other symbols.')
        values = dict(self._constants)
        for key, value in constants.items():
            values[key] = _as_float(
                lambda: f'constants: the value of {key}', value)
        new = copy.copy(self)
        new._constants = values
        new._p = np.array([values[key] for key in self._used], dtype=float)
        new._engine = self._engine.with_parameters(new._p)
        return new

    @property
    def time(self):
        """The time symbol."""
        return self._time

    @property
    def tolerance(self):
        """Residual tolerance."""
        return self._tolerance

    @property
    def step_tolerance(self):
        """Tolerance on the final Newton correction."""
        return self._step_tolerance

    @property
    def max_iterations(self):
        """Newton iteration limit."""
        return self._max_iterations

    @property
    def backend(self):
        """``'compiled'`` or ``'numpy'``: the back end in use."""
        return self._engine.backend

    @property
    def symbolic(self):
        """The derived symbolic quantities, in internal symbols ``_q<i>``,
        ``_u<i>`` (velocities), ``_t`` and ``_p<i>``: a dict with keys
        ``'Phi'``, ``'Phi_q'``, ``'Phi_t'`` and ``'gamma'`` (the
        acceleration right-hand side)."""
        q_syms, u_syms, t_sym, p_syms, phi = self._symbols
        jac, phi_t, gamma = self._derived

        def matrix(rows):
            return sm.Matrix([[_to_sympy(e) for e in row] for row in rows])
        return {'Phi': phi, 'Phi_q': matrix(jac) if jac else
                sm.zeros(0, len(q_syms)),
                'Phi_t': matrix([[e] for e in phi_t]),
                'gamma': matrix([[e] for e in gamma])}

    def __repr__(self):
        parts = [f'{list(self._constraints)}', f'{list(self._coordinates)}',
                 f'{list(self._dependent)}']
        if self._constants:
            parts.append(f'constants={self._constants}')
        if self._time != dynamicsymbols._t:
            parts.append(f'time={self._time}')
        for name, default in (('tolerance', 1e-12), ('max_iterations', 50),
                              ('step_tolerance', 1e-10)):
            value = getattr(self, name)
            if value != default:
                parts.append(f'{name}={value!r}')
        if self._backend_request != 'auto':
            parts.append(f'backend={self._backend_request!r}')
        return f'HolonomicConstraintSolver({", ".join(parts)})'

    def analyze(self, q, t=0.0, *, rank_tolerance=1e-9):
        r"""Rank, mobility and redundancy of the constraints at ``q``.

        Explanation
        ===========

        The rank of ``Phi_q`` is the number of its singular values above
        ``rank_tolerance`` times the largest; mobility is ``nq - rank`` and
        redundancy ``nc - rank`` [Autodesk]_. A constraint is reported as
        redundant when its row of ``Phi_q`` does not raise the rank of the
        rows before it (rows are added in order, as Autodesk Inventor adds
        constraints). Analyze at a configuration that satisfies the
        constraints (see :meth:`solve_positions`).

        Examples
        ========

        A four-bar loop closure plus its projection on the coupler, a
        consequence of the other two:

        >>> import numpy as np
        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> q1, q2, q3 = sm.symbols('q1:4')
        >>> cx = sm.cos(q1) + 4*sm.cos(q1 + q2) + 3*sm.cos(q1 + q2 + q3) - 5
        >>> cy = sm.sin(q1) + 4*sm.sin(q1 + q2) + 3*sm.sin(q1 + q2 + q3)
        >>> along = cx*sm.cos(q1 + q2) + cy*sm.sin(q1 + q2)
        >>> solver = HolonomicConstraintSolver([cx, cy, along], [q1, q2, q3],
        ...                                    [q2, q3])
        >>> q = solver.solve_positions(np.deg2rad([30, -75, 100]))
        >>> analysis = solver.analyze(q)
        >>> analysis.mobility, analysis.redundancy, analysis.redundant
        (1, 1, (2,))

        Parameters
        ==========

        q : array_like, shape (n,)
        t : float, optional
        rank_tolerance : float, optional
            Relative threshold on the singular values.

        Returns
        =======

        ConstraintAnalysis

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", pages 13-17 (redundant constraints).
        """
        rank, n, nc, redundant, s, dependent_rank = self._rank_analysis(
            q, t, rank_tolerance)
        return ConstraintAnalysis(rank, n, nc, redundant, s,
                                  dependent_rank=dependent_rank,
                                  constraints=self._constraints)

    #: Meaning of the status codes of :meth:`solve_positions`, by code.
    STATUS = ('converged', 'iteration limit reached',
              'stalled (the residual no longer decreases)',
              'constraints not finite', 'q not finite',
              'converged to a singular Jacobian')

    # -- input checks ------------------------------------------------------

    @staticmethod
    def _positive_float(name, value):
        if isinstance(value, bool) or not isinstance(
                value, (int, float, np.integer, np.floating)):
            raise TypeError(f'{name} must be a positive float, not '
                            f'{type(value).__name__} {value!r}.')
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f'{name} must be a positive finite number, '
                             f'got {value!r}.')
        return float(value)

    def _as_states(self, name, value, batch=None, check_finite=True):
        """Return ``value`` as a float array of shape (n,) or (m, n)."""
        if (type(value) is np.ndarray and value.dtype is _FLOAT64
                and value.flags.c_contiguous):
            array = value  # fast path for calls inside an ODE right side
        else:
            try:
                array = np.ascontiguousarray(_real_array(name, value))
            except ValueError:
                raise TypeError(
                    f'{name} must be an array of real numbers, not '
                    f'{type(value).__name__} {value!r}.') from None
        n = len(self._coordinates)
        if array.ndim not in (1, 2) or array.shape[-1] != n or (
                batch is not None and array.shape != batch):
            expected = (f'{batch}' if batch is not None else
                        f'({n},) or (m, {n})')
            raise constraint_error(
                f'{name} must have shape {expected} (one column per '
                f'coordinate {list(self._coordinates)}), got shape '
                f'{array.shape}.', coordinates=self._coordinates)
        if check_finite and not np.isfinite(array).all():
            rows = np.nonzero(~np.isfinite(array).reshape(-1, n).all(
                axis=1))[0]
            raise constraint_error(
                f'{name} contains NaN or inf values.',
                coordinates=self._coordinates, rows=rows)
        return array

    def _as_times(self, t, m):
        if m is None:
            if isinstance(t, float):   # also numpy.float64
                if t - t != 0.0:   # NaN or inf
                    raise constraint_error(f't must be finite, got {t}.')
                return float(t)
            if isinstance(t, (int, np.floating, np.integer)) and \
                    not isinstance(t, bool):
                t = float(t)
            else:
                t = _real_array('t', t)
                if t.ndim != 0:
                    raise constraint_error(
                        f't must be a scalar for a single configuration, got '
                        f'shape {t.shape}.')
                t = float(t)
            if not math.isfinite(t):
                raise constraint_error(f't must be finite, got {t}.')
            return t
        try:
            times = _real_array('t', t)
        except ValueError:
            raise TypeError(f't must be a real number or an array, not '
                            f'{t!r}.') from None
        if times.ndim == 0:
            times = np.full(m, float(times))
        if times.shape != (m,):
            raise constraint_error(
                f't must be a scalar or have shape ({m},) for a batch of {m} '
                f'configurations, got shape {times.shape}.')
        if not np.isfinite(times).all():
            raise constraint_error('t contains NaN or inf values.')
        return np.ascontiguousarray(times)

    # -- solves ------------------------------------------------------------

    def solve_positions(self, q, t=0.0, *, on_failure='raise',
                        return_status=False):
        r"""Solve :math:`\Phi(q, t) = 0` for the dependent coordinates.

        Explanation
        ===========

        Newton-Raphson iteration :math:`q_d \leftarrow q_d + \alpha\,
        \Delta q_d` with :math:`\Phi_{q_d}\, \Delta q_d = -\Phi` (least
        squares for a redundant set) and a backtracking line search
        choosing :math:`\alpha` [Autodesk]_. The
        independent entries of ``q`` are kept; its dependent entries are the
        starting guess. A batch of shape ``(m, n)`` is solved row by row in
        compiled code (or all rows at once in NumPy), each row from its own
        guess, in chunks of a few thousand rows so that the memory beyond
        the result stays bounded.

        The iteration stops early, as stalled, when the residual no longer
        decreases (no step reduces :math:`|\Phi|^2`, or three steps in a row
        reduce it by less than a fraction 1e-8): a configuration the
        mechanism cannot reach costs a few iterations, not
        ``max_iterations``.

        A batch in which some rows fail (a sweep over configurations, some
        of them unreachable) loses only those rows: with
        ``on_failure='nan'`` their dependent entries are NaN and the
        converged rows are returned; with the default
        ``on_failure='raise'`` the :class:`ConstraintSolverError` carries
        the same array as its ``solution`` attribute, with the status of
        every row in ``status``.

        Examples
        ========

        Moore's four-bar (``la = 1, lb = 4, lc = 3, ln = 5``) at
        ``q1 = 30 deg`` from guesses ``-75 deg`` and ``100 deg``:

        >>> import numpy as np
        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> q1, q2, q3 = sm.symbols('q1:4')
        >>> la, lb, lc, ln = 1, 4, 3, 5
        >>> loop = [la*sm.cos(q1) + lb*sm.cos(q1 + q2)
        ...         + lc*sm.cos(q1 + q2 + q3) - ln,
        ...         la*sm.sin(q1) + lb*sm.sin(q1 + q2)
        ...         + lc*sm.sin(q1 + q2 + q3)]
        >>> solver = HolonomicConstraintSolver(loop, [q1, q2, q3], [q2, q3])
        >>> q = solver.solve_positions(np.deg2rad([30, -75, 100]))
        >>> print(np.rad2deg(q[1:]).round(9).tolist())
        [-79.956117898, 108.613175852]

        A sweep in which one configuration cannot be assembled (a link of
        length 10 cannot close a loop whose other links reach at most 8):

        >>> long = HolonomicConstraintSolver(
        ...     [loop[0] + ln - 10, loop[1]], [q1, q2, q3], [q2, q3])
        >>> rows = np.deg2rad([[30, -75, 100], [0, -75, 100]])
        >>> Q, status = solver.solve_positions(rows, return_status=True)
        >>> status.tolist()
        [0, 0]
        >>> Q, status = long.solve_positions(rows, on_failure='nan',
        ...                                  return_status=True)
        >>> status.tolist(), bool(np.isnan(Q[:, 1:]).all())
        ([2, 2], True)

        Parameters
        ==========

        q : array_like, shape (n,) or (m, n)
            Coordinates in the order of ``coordinates``.
        t : float or array_like of shape (m,), optional
            Time (for driving constraints).
        on_failure : {'raise', 'nan'}, optional
            ``'raise'`` (default): a failed row raises
            :class:`ConstraintSolverError`. ``'nan'``: the dependent entries
            of failed rows are NaN and nothing is raised; rows of ``q`` that
            are not finite are then failed rows too (status 4).
        return_status : bool, optional
            Also return the status of each row (default False).

        Returns
        =======

        q : numpy.ndarray of the shape of ``q``
            The solved coordinates (NaN dependent entries in failed rows).
        status : int or numpy.ndarray of shape (m,)
            Only with ``return_status=True``; per row: 0 converged, 1
            iteration limit reached, 2 stalled (the residual no longer
            decreases: no solution near the guess), 3 the constraints
            evaluate to NaN or inf, 4 ``q`` not finite, 5 converged to a
            singular Jacobian (a toggle or locked configuration). The
            meanings are also in :attr:`STATUS`.

        Raises
        ======

        ConstraintSolverError
            With ``on_failure='raise'``: if the iteration does not converge
            (the error gives the residual reached, the iterations and the
            constraints involved), if the Jacobian with respect to the
            dependent coordinates is singular at the solution (a toggle or
            locked configuration; the error names the coordinates and
            constraints that lose rank), or if ``q`` is not finite; for a
            batch its ``rows`` are the failed rows, ``solution`` the result
            with NaN in them and ``status`` the status of every row. Also if
            ``q`` has the wrong shape or ``t`` is not finite.
        ValueError
            If ``on_failure`` is not ``'raise'`` or ``'nan'``.
        TypeError
            If ``q`` is not numeric.

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", page 3 (Newton-Raphson).
        """
        if on_failure != 'raise' and on_failure != 'nan':
            raise ValueError(f"on_failure must be 'raise' or 'nan', not "
                             f"{on_failure!r}.")
        if return_status is not False and return_status is not True:
            raise TypeError(f'return_status must be a bool, not '
                            f'{type(return_status).__name__} '
                            f'{return_status!r}.')
        raising = on_failure == 'raise'
        # a single float configuration goes straight to the kernels (which
        # copy it, so its layout does not matter, and check it is finite)
        single = (type(q) is np.ndarray and q.dtype is _FLOAT64
                  and q.shape == self._single)
        if not single:
            q = self._as_states('q', q, check_finite=False)
            single = q.ndim == 1
        if single:
            t = self._as_times(t, None)
            x, status, info = self._engine.newton(q, t)
            if status:
                if raising:
                    if status == _BAD_INPUT:     # the kernels check q
                        self._as_states('q', q)
                    raise_position_failure(self, x, t, status, *info)
                x[list(self._dep_index)] = np.nan
            return (x, status) if return_status else x
        q = self._as_states('q', q, check_finite=raising)
        # one time for all rows stays a float (no array of m copies)
        t = self._as_times(t, None if np.ndim(t) == 0 else q.shape[0])
        X, status, it, r, ratio = self._engine.newton_batch(q, t)
        status[(status == _CONVERGED) & (ratio < _SINGULAR_RATIO)] = _SINGULAR
        bad = np.nonzero(status != _CONVERGED)[0]
        if len(bad):
            row = bad[0]
            last = X[row].copy()       # the last iterate, for the report
            X[np.ix_(bad, self._dep_index)] = np.nan
            if raising:
                raise_position_failure(
                    self, last, t if np.ndim(t) == 0 else t[row], status[row],
                    it[row], r[row], ratio[row], rows=bad, solution=X,
                    status_array=status)
        return (X, status) if return_status else X

    def solve_velocities(self, q, qdot, t=0.0):
        r"""Solve :math:`\Phi_q \dot{q} = -\Phi_t` for the dependent
        velocities.

        Explanation
        ===========

        ``q`` must satisfy the constraints (see :meth:`solve_positions`).
        The independent entries of ``qdot`` are kept; its dependent entries
        are replaced by the solution of
        :math:`\Phi_{q_d} \dot{q}_d = -\Phi_t - \Phi_{q_i} \dot{q}_i`
        [Autodesk]_.

        Examples
        ========

        >>> import numpy as np
        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> x, y = sm.symbols('x y')
        >>> circle = HolonomicConstraintSolver([x**2 + y**2 - 25], [x, y],
        ...                                    [y])
        >>> circle.solve_velocities([3.0, 4.0], [1.0, 0.0])  # y' = -x x'/y
        array([ 1.  , -0.75])

        Parameters
        ==========

        q : array_like, shape (n,) or (m, n)
        qdot : array_like, same shape as ``q``
        t : float or array_like of shape (m,), optional

        Returns
        =======

        numpy.ndarray
            ``qdot`` with its dependent entries solved.

        Raises
        ======

        ConstraintSolverError
            If the Jacobian with respect to the dependent coordinates is
            singular, or for non-finite inputs or wrong shapes.

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", page 4 (velocities).
        """
        return self._solve_rates(q, qdot, None, t, False)

    def solve_accelerations(self, q, qdot, qddot, t=0.0):
        r"""Solve :math:`\Phi_q \ddot{q} = -(\Phi_q \dot{q})_q \dot{q}
        - 2 \Phi_{qt} \dot{q} - \Phi_{tt}` for the dependent accelerations.

        Explanation
        ===========

        ``q`` and ``qdot`` must satisfy the position and velocity
        constraints. The independent entries of ``qddot`` are kept; its
        dependent entries are solved [Autodesk]_.

        Examples
        ========

        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> x, y = sm.symbols('x y')
        >>> circle = HolonomicConstraintSolver([x**2 + y**2 - 25], [x, y],
        ...                                    [y])
        >>> # y'' = -(x'^2 + y'^2 + x x'')/y with x' = 1, y' = -3/4, x'' = 0
        >>> print(circle.solve_accelerations([3.0, 4.0], [1.0, -0.75],
        ...                                  [0.0, 0.0]).tolist())
        [0.0, -0.390625]

        Parameters
        ==========

        q, qdot, qddot : array_like, shape (n,) or (m, n)
        t : float or array_like of shape (m,), optional

        Returns
        =======

        numpy.ndarray
            ``qddot`` with its dependent entries solved.

        Raises
        ======

        ConstraintSolverError
            If the Jacobian with respect to the dependent coordinates is
            singular, or for non-finite inputs or wrong shapes.

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", pages 5 and 11-12 (accelerations).
        """
        return self._solve_rates(q, qdot, qddot, t, True)

    def _solve_rates(self, q, qdot, qddot, t, second):
        # Both back ends check single states for NaN/inf themselves.
        q = self._as_states('q', q, check_finite=False)
        qdot = self._as_states('qdot', qdot, q.shape, check_finite=False)
        qddot = (self._as_states('qddot', qddot, q.shape, check_finite=False)
                 if second else qdot)
        if q.ndim == 1:
            t = self._as_times(t, None)
            out, ratio = self._engine.rates(q, qdot, qddot, t, second)
            if ratio < _SINGULAR_RATIO:
                if ratio < 0.0:
                    for name, value in (('q', q), ('qdot', qdot),
                                        ('qddot', qddot)):
                        self._as_states(name, value)
                raise_singular(self, q, t, ratio)
            return out
        for name, value in (('q', q), ('qdot', qdot), ('qddot', qddot)):
            self._as_states(name, value)
        t = self._as_times(t, q.shape[0])
        out, ratio = self._engine.rates_batch(
            np.ascontiguousarray(q), np.ascontiguousarray(qdot),
            np.ascontiguousarray(qddot), t, second)
        bad = np.nonzero(ratio < _SINGULAR_RATIO)[0]
        if len(bad):
            raise_singular(self, q[bad[0]], t[bad[0]], ratio[bad[0]],
                           rows=bad)
        return out

    def solve_trajectory(self, q0, times):
        r"""Kinematic analysis of a fully driven mechanism over time.

        Explanation
        ===========

        For a mechanism whose coordinates are all fixed by kinematic and
        driving constraints (every coordinate dependent, mobility zero), as
        the Autodesk course module's piston-crank driven by
        :math:`\theta = \omega t`: solve
        positions, velocities and accelerations at each of ``times`` in
        turn. Each position solve starts from a second-order prediction
        :math:`q + \dot{q}\, \Delta t + \ddot{q}\, \Delta t^2/2` of the
        previous solution, so only the
        first needs a good guess, ``q0`` [Autodesk]_.

        Examples
        ========

        >>> import numpy as np
        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> theta, phi, x, t = sm.symbols('theta phi x t')
        >>> r, l, omega = 1.0, 3.0, 2.0
        >>> phis = [r*sm.cos(theta) + l*sm.cos(phi) - x,
        ...         r*sm.sin(theta) - l*sm.sin(phi),
        ...         theta - omega*t]                     # driving constraint
        >>> solver = HolonomicConstraintSolver(phis, [theta, phi, x],
        ...                                    [theta, phi, x], time=t)
        >>> q, qd, qdd = solver.solve_trajectory([0, 0, 4],
        ...                                      np.linspace(0, np.pi, 5))
        >>> q[:, 2].round(6)      # slider position
        array([4.      , 2.828427, 2.      , 2.828427, 4.      ])
        >>> print(qdd[0, 2].round(6))    # -r omega^2 (1 + r/l) at theta = 0
        -5.333333

        Parameters
        ==========

        q0 : array_like, shape (n,)
            Starting guess for the configuration at ``times[0]``.
        times : array_like, shape (k,)
            Increasing or decreasing times.

        Returns
        =======

        q, qdot, qddot : numpy.ndarray, each of shape (k, n)

        Raises
        ======

        ValueError
            If some coordinate is independent (not driven).
        ConstraintSolverError
            If a solve fails; the message gives the time.

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", pages 2-12.
        """
        if self._ind_index:
            raise ValueError(
                f'solve_trajectory needs a fully driven mechanism (every '
                f'coordinate dependent); {list(self.independent)} are '
                f'independent: add driving constraints for them.')
        q = self._as_states('q0', q0)
        if q.ndim != 1:
            raise ConstraintSolverError(
                f'q0 must have shape ({len(self._coordinates)},), got '
                f'{q.shape}.')
        try:
            times = np.asarray(times, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f'times must be an array of real numbers, not '
                            f'{times!r}.') from None
        if times.ndim != 1 or len(times) == 0:
            raise ConstraintSolverError(
                f'times must be a non-empty 1-D array, got shape '
                f'{times.shape}.')
        if not np.isfinite(times).all():
            raise ConstraintSolverError('times contains NaN or inf values.')
        n = len(self._coordinates)
        Q = np.empty((len(times), n))
        QD = np.empty_like(Q)
        QDD = np.empty_like(Q)
        zero = np.zeros(n)
        guess = q
        for k, t in enumerate(times):
            t = float(t)
            try:
                q = self.solve_positions(guess, t)
                qd = self.solve_velocities(q, zero, t)
                qdd = self.solve_accelerations(q, qd, zero, t)
            except ConstraintSolverError as error:
                raise ConstraintSolverError(
                    f'at t = {t} (sample {k}): {error}',
                    residual=error.residual, iterations=error.iterations,
                    constraints=error.constraints,
                    coordinates=error.coordinates, rows=(k,)) from error
            Q[k], QD[k], QDD[k] = q, qd, qdd
            if k + 1 < len(times):
                dt = times[k + 1] - t
                guess = q + qd * dt + 0.5 * qdd * dt * dt
        return Q, QD, QDD

    # -- Jacobian, residual and rank -----------------------------------------

    def jacobian(self, q, t=0.0):
        r"""Return the constraint Jacobian :math:`\Phi_q` at ``q``.

        Explanation
        ===========

        Entry :math:`(i, j)` is :math:`\partial \Phi_i / \partial q_j` over
        all coordinates [Autodesk]_.

        Examples
        ========

        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> x, y = sm.symbols('x y')
        >>> circle = HolonomicConstraintSolver([x**2 + y**2 - 25], [x, y],
        ...                                    [y])
        >>> circle.jacobian([3.0, 4.0])
        array([[6., 8.]])

        Parameters
        ==========

        q : array_like, shape (n,) or (m, n)
        t : float or array_like of shape (m,), optional

        Returns
        =======

        numpy.ndarray, shape (nc, n) or (m, nc, n)

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", page 7 (the Jacobian).
        """
        q = self._as_states('q', q)
        if q.ndim == 1:
            t = self._as_times(t, None)
            return self._engine.jacobian(q[None, :], np.array([t]))[0][0]
        return self._engine.jacobian(q, self._as_times(t, q.shape[0]))[0]

    def residual(self, q, t=0.0):
        r"""Return :math:`\Phi(q, t)`, shape (nc,) or (m, nc).

        Examples
        ========

        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> x, y = sm.symbols('x y')
        >>> circle = HolonomicConstraintSolver([x**2 + y**2 - 25], [x, y],
        ...                                    [y])
        >>> circle.residual([3.0, 4.5])
        array([4.25])

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", page 2.
        """
        q = self._as_states('q', q)
        if q.ndim == 1:
            t = self._as_times(t, None)
            return self._engine.residual(q[None, :], np.array([t]))[0]
        return self._engine.residual(q, self._as_times(t, q.shape[0]))

    def _rank_analysis(self, q, t, rank_tolerance):
        """For :meth:`analyze`, after checking its arguments: the rank of
        ``Phi_q`` at ``q``, ``nq``, ``nc``, the redundant rows (those that do
        not raise the rank of the rows before them), the singular values
        and the rank of the dependent columns."""
        q = self._as_states('q', q)
        if q.ndim != 1:
            raise constraint_error(
                f'analyze takes one configuration of shape '
                f'({len(self._coordinates)},), got {q.shape}.')
        rank_tolerance = self._positive_float('rank_tolerance',
                                              rank_tolerance)
        J = self.jacobian(q, t)
        nc, n = J.shape
        if J.size == 0:
            s = np.zeros(0)
        else:
            s = np.linalg.svd(J, compute_uv=False)
        threshold = rank_tolerance * (s[0] if len(s) else 0.0)

        def rank_of(matrix):
            if matrix.size == 0:
                return 0
            values = np.linalg.svd(matrix, compute_uv=False)
            return int(np.sum(values > threshold))

        rank = int(np.sum(s > threshold)) if len(s) else 0
        redundant = []
        previous = 0
        for i in range(nc):
            current = rank_of(J[:i + 1])
            if current == previous:
                redundant.append(i)
            previous = current
        dependent_rank = rank_of(J[:, list(self._dep_index)])
        return rank, n, nc, redundant, s, dependent_rank
