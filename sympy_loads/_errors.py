"""The exceptions of :mod:`sympy_loads`, at the bottom of the package: this
module imports nothing from it, so every module can raise them. They are
documented and imported under their public names
(``sympy_loads.ConstraintSolverError``, ``sympy_loads.SimulationError``,
also ``sympy_loads.constraints.ConstraintSolverError`` and
``sympy_loads.simulation.SimulationError``).
"""

__all__ = ['ConstraintSolverError', 'EquilibriumError', 'SimulationError']


class ConstraintSolverError(ValueError):
    """A holonomic constraint solve failed.

    Raised when the Newton-Raphson iteration does not converge, when the
    Jacobian with respect to the dependent coordinates is singular (a toggle
    or locked configuration, or one with no physically realizable solution
    [Autodesk]_), and for inputs that are not finite or have the wrong shape.
    It subclasses ``ValueError`` (like ``numpy.linalg.LinAlgError``).

    Attributes
    ==========

    residual : float or None
        Largest absolute constraint residual reached.
    iterations : int or None
        Newton iterations taken.
    constraints : tuple of int
        Indices of the constraints involved (largest residuals, or those
        spanning the singular direction).
    coordinates : tuple
        The coordinates involved (the dependent coordinates that lose rank,
        or all dependent coordinates).
    rows : tuple of int
        For a batch, the rows that failed (empty for a single solve).
    solution : numpy.ndarray or None
        For a failed batch of
        :meth:`HolonomicConstraintSolver.solve_positions`, the result of
        every row, with NaN in the dependent entries of the failed rows
        (the converged rows are not lost); else None.
    status : numpy.ndarray or None
        For that batch, the status of every row (see
        :attr:`HolonomicConstraintSolver.STATUS`); else None.

    Examples
    ========

    >>> from sympy_loads import ConstraintSolverError
    >>> err = ConstraintSolverError('no convergence', residual=0.5)
    >>> err.residual, isinstance(err, ValueError)
    (0.5, True)

    References
    ==========

    .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint Kinematics",
       page 7 (singular Jacobian errors).
    """

    def __init__(self, message, *, residual=None, iterations=None,
                 constraints=(), coordinates=(), rows=(), solution=None,
                 status=None):
        super().__init__(message)
        self.residual = residual
        self.iterations = iterations
        self.constraints = tuple(constraints)
        self.coordinates = tuple(coordinates)
        self.rows = tuple(int(i) for i in rows)
        self.solution = solution
        self.status = status


class SimulationError(RuntimeError):
    r"""A failure while integrating the equations of motion.

    Raised by :func:`simulate` when the right-hand side cannot be evaluated:
    the holonomic constraints cannot be solved (the mechanism cannot be
    assembled, e.g. it reached a singular configuration), the mass matrix is
    singular, or the joint-friction iteration does not converge. The message
    names the time and the state; they are also available as attributes.

    Examples
    ========

    A point on a circle of radius 1 pushed along ``x`` by a constant force,
    with ``x`` independent and ``y`` dependent; at ``t = 1`` the circle
    goes (its squared radius becomes -1): the constraint has no solution
    any more, and the simulation stops there with the time and state:

    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import simulate, SimulationError
    >>> x, y, ux, uy = me.dynamicsymbols('x y u_x u_y')
    >>> t = me.dynamicsymbols._t
    >>> N = me.ReferenceFrame('N')
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', x*N.x + y*N.y)
    >>> P.set_vel(N, ux*N.x + uy*N.y)
    >>> radius2 = sm.Piecewise((1, t < 1), (-1, True))
    >>> kane = me.KanesMethod(
    ...     N, [x], [ux], kd_eqs=[x.diff() - ux, y.diff() - uy],
    ...     q_dependent=[y], u_dependent=[uy],
    ...     configuration_constraints=[x**2 + y**2 - radius2],
    ...     velocity_constraints=[x*ux + y*uy])
    >>> _ = kane.kanes_equations([me.Particle('p', P, 1)], [(P, N.x)])
    >>> try:
    ...     simulate(kane, (0, 5), {x: 0.0, y: 0.9, ux: 0.5}, {})
    ... except SimulationError as error:
    ...     failure = error
    >>> bool(1 <= failure.time < 1.1), isinstance(failure, RuntimeError)
    (True, True)
    >>> 'could not be solved' in str(failure)
    True

    (Where the circle stays, the point goes round it: at ``x = 1``, where
    ``y`` cannot parametrize the circle, the engine takes ``x`` as the
    dependent coordinate; see ``SimulationResult.partitions``.)

    Attributes
    ==========

    time : float
        Time at which the failure happened.
    q, u : ndarray
        Coordinates and speeds (in ``model.q``/``model.u`` order; dependent
        entries are the last guess) at that time.
    result : SimulationResult or None
        The simulation up to ``time`` where it is kept: when a closed
        contact cannot be resolved (see :class:`~sympy_loads.Impact`), a
        restitution leaves [0, 1] or more than the limit of impacts
        happen in one run.
    keeps_run : bool
        True for the failures whose run up to ``time`` is kept in
        ``result`` (the integration ends there, with its samples).

    References
    ==========

    .. [Autodesk] Autodesk Inventor, "Dynamic Simulation: Constraint
       Kinematics" (course module), page 7: a singular constraint Jacobian
       (toggle or locked configuration) stops the position solve.
    .. [Wehage1982] R. A. Wehage, E. J. Haug, "Generalized coordinate
       partitioning for dimension reduction in analysis of constrained
       dynamic systems", J. Mech. Des. 104(1):247-255, 1982: the
       independent coordinates must keep the dependent-coordinate
       Jacobian regular. https://doi.org/10.1115/1.3256318
    """

    def __init__(self, message, *, time=None, q=None, u=None, result=None,
                 keeps_run=False):
        super().__init__(message)
        self.time = time
        self.q = q
        self.u = u
        self.result = result
        self.keeps_run = bool(keeps_run)


class MissingValuesError(ValueError):
    """Values a run needs and was not given: constants, specified inputs or
    initial conditions, all listed in one message (a ``ValueError``; not
    part of the public API: catch ``ValueError``)."""


class EquilibriumError(ValueError):
    """No static equilibrium was found from the guess.

    Raised by :func:`~sympy_loads.equilibrium` (and
    :meth:`Simulation.equilibrium <sympy_loads.Simulation.equilibrium>`)
    when the least-squares search ends with a residual above its
    tolerance: the guess is too far from an equilibrium, or the model has
    none there (a load that keeps pushing). It subclasses ``ValueError``.

    Attributes
    ==========

    residual : float
        Largest absolute residual reached.
    equations : tuple of str
        The equations left unsatisfied, worst first (``'the acceleration
        of u2(t)'``, ...).
    solution : numpy.ndarray or None
        The coordinates reached (model order).

    Examples
    ========

    >>> from sympy_loads import EquilibriumError
    >>> err = EquilibriumError('none found', residual=0.5,
    ...                        equations=('the acceleration of u(t)',))
    >>> err.residual, err.equations, isinstance(err, ValueError)
    (0.5, ('the acceleration of u(t)',), True)
    """

    def __init__(self, message, *, residual=None, equations=(),
                 solution=None):
        super().__init__(message)
        self.residual = residual
        self.equations = tuple(equations)
        self.solution = solution
