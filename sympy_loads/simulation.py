r"""Numerical simulation of :class:`~sympy.physics.mechanics.KanesMethod` and
:class:`~sympy.physics.mechanics.System` models with holonomic constraints.

The equations of motion that ``KanesMethod`` forms for a closed kinematic
loop are an ordinary differential equation in *all* coordinates and speeds:

.. math::

   k_{k\dot{q}}(q, t)\, \dot{q} &= -\left(k_{ku}(q, t)\, u + f_k(q, t)\right)
   \qquad \text{(kinematics)} \\
   M(q, t)\, \dot{u} &= F(q, u, t) \qquad \text{(dynamics)}

where the rows of :math:`M` and :math:`F` belonging to the dependent speeds
are the time derivatives of the velocity constraints. Integrated as they
stand (``mass_matrix_full`` / ``forcing_full``), only the *derivatives* of
the constraints are zero, so the integration error accumulates in the
configuration constraints :math:`f_h(q, t) = 0` and the mechanism slowly
comes apart (see the tutorial "Simulating a closed-loop mechanism").

:func:`simulate` uses *coordinate partitioning* [Wehage1982]_ instead: the
independent coordinates and speeds are integrated, and whenever the
right-hand side is evaluated the dependent coordinates are recomputed by
Newton-Raphson on :math:`f_h(q, t) = 0` (:class:`HolonomicConstraintSolver`,
[Autodesk]_) and the dependent speeds from the linear velocity constraints
:math:`k_{nh}(q, t)\, u + f_{nh}(q, t) = 0`. The dependent coordinates are
carried in the integrator's state only as the starting guess for that Newton
solve, which therefore needs one or two iterations and always stays on the
same assembly branch; every value :func:`simulate` uses or returns is the
corrected one, so the constraint residual is at the Newton tolerance at every
sample, however long the run.

Why partitioning and not projection: projection after each step needs access
to the integrator's accepted steps (SciPy's ``solve_ivp`` gives none), and it
changes the state between steps, which invalidates the error estimate of the
step; with partitioning the right-hand side is an ordinary smooth function of
the independent state, so any SciPy integrator (including the implicit ones
for stiff contact models) can be used unchanged. The independent set is the
engine's, not the model's: where the model's dependent block turns
ill conditioned while the mechanism is regular (two links of a closed chain
lining up), the engine chooses another set and goes on
(:attr:`SimulationResult.partitions` records each change).

References
==========

.. [Wehage1982] R. A. Wehage, E. J. Haug, "Generalized coordinate
   partitioning for dimension reduction in analysis of constrained
   dynamic systems", J. Mech. Des. 104(1):247-255, 1982.
   https://doi.org/10.1115/1.3256318
.. [Autodesk] Autodesk Inventor, "Dynamic Simulation: Constraint
   Kinematics" (course module): Newton-Raphson position solve, velocity
   solve.
.. [Notes3D] Course notes "Three-Dimensional Generalized Forces": Coulomb
   friction in joints from the joint reactions, by relaxation.
"""

import logging
import numbers
import time
import warnings
import weakref
from dataclasses import dataclass, field

import numpy as np
import sympy as sm
from sympy.physics.mechanics import KanesMethod, System, dynamicsymbols

from ._assembly import unformed_kanes_method
from ._errors import MissingValuesError, SimulationError
from ._joint_reactions import check_loops_closed
from ._numeric import resolve_backend
from ._numeric.codegen import CodegenError, MiscompiledError
from ._simulation.arguments import (
    IMPLICIT_METHODS, _as_float, _check_impact_frames, _check_impacts,
    _check_joint_friction, _check_max_step, _check_method, _check_t_eval,
    _check_t_span, _initial_state, _pack_constants, _specified_functions)
from ._simulation.impacts import (ImpactEngine, contact_intervals,
                                  impact_outputs, run)
from ._simulation.integrators import integrate
from ._simulation.linearization import equilibrium_model, linearize_model
from ._simulation.multipliers import loop_multipliers
from ._simulation.numeric_model import NumericModel
from ._simulation.partition import PartitionRecord
from ._simulation.problem import Problem, evaluate_outputs
from ._simulation.stick_slip import StickSlip, is_forward, watch_unswitched
from ._utils import _kanes_fingerprint

__all__ = ['simulate', 'Simulation', 'SimulationResult', 'SimulationError',
           'PartitionRecord']

_TIME = dynamicsymbols._t


@dataclass(frozen=True, repr=False)
class SimulationResult:
    r"""The result of :func:`simulate` (compare ``scipy.integrate.solve_ivp``).

    Explanation
    ===========

    Besides the trajectory, each sample records how well it satisfies the
    constraints of the model: ``constraint_residual`` is
    :math:`\max_i |f_{h,i}(q, t)|` over the configuration constraints and
    ``velocity_residual`` is :math:`\max_i |(k_{nh} u + f_{nh})_i|` over
    the velocity constraints :math:`k_{nh}(q, t)\, u + f_{nh}(q, t) = 0`.
    With coordinate partitioning [Wehage1982]_ both stay at the tolerance
    of the Newton-Raphson position solve [Autodesk]_ however long the run.

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
    backend : str
        ``'compiled'`` or ``'numpy'``: the back end that ran.
    timings : dict
        Seconds spent in ``'derivation'`` (symbolic preparation of the
        numeric model), ``'codegen'`` (code generation; both are paid by
        the first call for a model and are 0 afterwards), ``'kernels'``
        (loading, or on an installation's first use compiling, the generic
        kernels), ``'setup'`` (everything before the integration,
        including the three before) and ``'integration'`` (the integration
        and the samples).
    impacts : tuple of ImpactRecord
        Every rigid impact of the run (``simulate(..., impacts=...)``), in
        time order: time, which impact, normal speeds before and after,
        impulse and speeds before and after. Without ``t_eval`` the
        samples include each impact time twice, before and after the jump.
    partitions : tuple of PartitionRecord
        Every change of the partition the engine integrates with, in time
        order: ``(time, coordinates, speeds)``, the independent
        coordinates and speeds (dynamic symbols, model order) from that
        time on. Empty when the run kept the model's partition
        throughout. On a closed loop the engine changes it where the
        model's choice of dependent coordinates or speeds turns singular
        while the mechanism does not (generalized coordinate partitioning
        with re-selection [Wehage1982]_; see the tutorial "Simulating a
        closed-loop mechanism"); a change at ``t_span[0]`` means the
        model's partition was singular or ill conditioned at the start.
        The columns of ``q`` and ``u`` are always in model order.
    contacts : tuple of ContactInterval
        Every interval during which an impact's contact was closed (it
        came to rest on its plane and stayed there while pressed), in time
        order, with its normal and friction forces at the samples in it.

    References
    ==========

    .. [Wehage1982] R. A. Wehage, E. J. Haug, "Generalized
       coordinate partitioning for dimension reduction in analysis of
       constrained dynamic systems", J. Mech. Des. 104(1):247-255, 1982,
       doi:10.1115/1.3256318.
    .. [Autodesk] Autodesk Inventor, "Dynamic Simulation: Constraint
       Kinematics" (course module): Newton-Raphson position solve and the
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
    backend: str = 'numpy'
    timings: dict = field(default_factory=dict)
    impacts: tuple = field(default=())
    partitions: tuple = field(default=())
    contacts: tuple = field(default=())

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


_LOG = logging.getLogger('sympy_loads')
# set-up steps longer than this (seconds) are logged as warnings
_SLOW = 2.0


def _log_slow(what, seconds):
    """Log a set-up step: a warning (shown by default) when it took more
    than two seconds, else at debug level."""
    if seconds > _SLOW:
        _LOG.warning('sympy_loads: %s took %.1f s', what, seconds)
    else:
        _LOG.debug('sympy_loads: %s took %.3f s', what, seconds)


def _max_or_zero(values):
    values = np.asarray(values)
    return float(np.max(np.abs(values))) if values.size else 0.0


# ---------------------------------------------------------------------------
# Reading the model

def _check_no_multipliers_in_equations(nm, multipliers):
    """ValueError where the equations of motion contain a LoopJoint's
    multiplier (a load written from its force): it is unknown, not a
    specified input."""
    found = [s for s in nm.specified if s in set(multipliers)]
    if found:
        raise ValueError(
            f'model: the equations of motion contain the LoopJoint '
            f'multipliers {", ".join(str(s) for s in found)} (a load '
            f'written from the force of a LoopJoint); they are unknowns of '
            f'the equations, not specified inputs. Coulomb friction driven '
            f'by a reaction is JointFriction on a tree joint of the loop '
            f'(joint_friction=), which simulate() resolves by relaxation.')


def _kanes_method_of(model):
    """Return the ``KanesMethod`` behind ``model`` (TypeError/ValueError)."""
    if isinstance(model, KanesMethod):
        kane = model
    elif isinstance(model, System):
        check_loops_closed(model)
        kane = model.eom_method
        if kane is None:
            # not formed: the numeric model assembles the equations
            # (sympy_loads._assembly), no symbolic form_eoms()
            return unformed_kanes_method(model)
        if not isinstance(kane, KanesMethod):
            raise TypeError(
                f'model: the System was formed with '
                f'{type(kane).__name__}; simulate() needs '
                f'form_eoms(KanesMethod).')
    else:
        raise TypeError(
            f'model must be a KanesMethod or a System, not '
            f'{type(model).__name__} {model!r}.')
    if kane in _NUMERIC_MODELS:
        return kane         # its equations have been generated before
    try:
        kane.mass_matrix
    except (ValueError, AttributeError, TypeError):
        raise ValueError(
            'model: the KanesMethod has no equations of motion yet; call '
            'kanes_equations(bodies, loads) before simulate().') from None
    return kane


#: Round-off allowed in a returned sample's constraint residuals beyond the
#: Newton-Raphson tolerance, relative to the size of the coordinates (and,
#: for the velocity constraints, of the speeds too): a million units in the
#: last place, far above what evaluating the constraints at a converged
#: solution leaves and far below any violation that matters.
RESIDUAL_ROUNDOFF = 1e-9


def _check_residuals(problem, solver, times, q, u, residual,
                     velocity_residual):
    """Raise :class:`SimulationError` if a sample violates the holonomic
    or velocity constraints by more than the Newton-Raphson tolerance plus
    round-off (:data:`RESIDUAL_ROUNDOFF`): a run never reports success
    with samples off the constraints. The holonomic residual is taken
    both from the model's functions and from the constraint solver's,
    generated separately, so that one wrong function cannot hide its own
    error."""
    if not len(times):
        return
    if solver is not None:
        independent = np.abs(solver.residual(q, times)).max(axis=1,
                                                            initial=0.0)
        residual = np.maximum(residual, independent)   # NaN stays
    tolerance = problem.newton_tolerance
    size_q = max(1.0, float(np.max(np.abs(q), initial=0.0)))
    size_u = max(1.0, float(np.max(np.abs(u), initial=0.0)))
    bound_q = tolerance + RESIDUAL_ROUNDOFF * size_q
    bound_u = tolerance + RESIDUAL_ROUNDOFF * size_q * size_u
    if (np.max(residual, initial=0.0) <= bound_q and      # NaN: not <=
            np.max(velocity_residual, initial=0.0) <= bound_u):
        return
    for values, bound, kind in (
            (residual, bound_q, 'holonomic constraints'),
            (velocity_residual, bound_u, 'velocity constraints')):
        values = np.asarray(values, dtype=float)
        bad = ~(values <= bound)          # NaN counts as a violation
        if bad.any():
            i = int(np.argmax(np.where(bad, np.nan_to_num(values,
                                                         nan=np.inf), -1)))
            raise SimulationError(
                f'the sample at t = {times[i]:.10g} violates the {kind} by '
                f'{values[i]:.3g}, more than the Newton-Raphson tolerance '
                f'{tolerance:.3g} plus round-off ({bound:.3g}); '
                f'{int(bad.sum())} of {len(times)} samples do. The numeric '
                f'functions of the model disagree with each other (please '
                f"report it); backend='numpy' computes them another way.",
                time=float(times[i]), q=q[i].copy(), u=u[i].copy())


# KanesMethod -> {(friction symbols, back end): NumericModel} (a _PerModel):
# the one cache of prepared code, so that simulate() (a new Simulation per
# call) and every Simulation of a model share its generated code; everything
# else a Simulation needs is kept with the numeric model
# (NumericModel.derived) or the Simulation itself. Held weakly: it goes with
# the model. A KanesMethod is mutable (kanes_equations() forms its
# equations again in place), so an entry serves only while the model's
# fingerprint (_utils._kanes_fingerprint) is the one it was made from.
_NUMERIC_MODELS = weakref.WeakKeyDictionary()


class _PerModel(dict):
    """The numeric models of one model (see ``_NUMERIC_MODELS``), with the
    ``fingerprint`` (``_utils._kanes_fingerprint``) of the equations they
    were made from."""

    def __init__(self, fingerprint):
        super().__init__()
        self.fingerprint = fingerprint


def _numeric_model(kane, friction_symbols, backend, strict=False):
    """The cached :class:`._simulation.numeric_model.NumericModel` of
    ``kane`` (generated on the first call for this model, set of friction
    symbols and back end, and again after the model's equations changed;
    a model SymEngine cannot compile falls back to NumPy under 'auto')."""
    fingerprint = _kanes_fingerprint(kane)
    per_model = _NUMERIC_MODELS.get(kane)
    if per_model is None or per_model.fingerprint != fingerprint:
        # new, or formed again with other equations: what was made for the
        # old ones is dropped (a Simulation made from them keeps its own)
        per_model = _NUMERIC_MODELS[kane] = _PerModel(fingerprint)
    key = (tuple(friction_symbols), backend)
    if key not in per_model:
        try:
            per_model[key] = model = NumericModel(kane, key[0], backend)
            _log_slow('deriving the equations for numeric code',
                      model.seconds['derivation'])
            _log_slow(f'generating {backend} code for the model',
                      model.seconds['codegen'])
        except CodegenError as error:
            # a miscompile is no fault of the model: NumPy serves it even
            # where the compiled back end was asked for
            if backend != 'compiled' or (
                    strict and not isinstance(error, MiscompiledError)):
                raise ValueError(f'simulate(): {error}') from None
            warnings.warn(f'{error} Using the NumPy back end.',
                          RuntimeWarning, stacklevel=3)
            per_model[key] = _numeric_model(kane, key[0], 'numpy')
    return per_model[key]


def simulate(model, t_span, initial_conditions, constants, *, t_eval=None,
             rtol=1e-8, atol=1e-10, method='DOP853', specified=None,
             outputs=None, joint_friction=None, max_step=np.inf,
             friction_tolerance=1e-10, friction_max_iterations=100,
             friction_relaxation=1.0, constraint_options=None,
             backend='auto', impacts=None):
    r"""Integrate the equations of motion of ``model`` over ``t_span``.

    Explanation
    ===========

    ``model`` is a ``KanesMethod`` (after ``kanes_equations``) or a
    ``System`` (formed or not: see ``model``), with or without dependent
    coordinates and speeds. Without constraints the right-hand side is
    ``mass_matrix_full \ forcing_full``, solved numerically. With
    holonomic constraints the independent coordinates and speeds are
    integrated and the dependent ones recomputed at every evaluation by
    the :class:`HolonomicConstraintSolver` (Newton-Raphson, [Autodesk]_)
    and the linear velocity constraints (coordinate partitioning, see the
    module documentation, [Wehage1982]_), so the constraint
    residual of every returned sample is at the Newton tolerance. The
    dependent speeds come from the velocity constraints alone, so these
    must contain the time derivative of every configuration constraint
    (SymPy's ``System`` derives them so unless its
    ``velocity_constraints`` are set; a ``KanesMethod`` takes them as
    given): a model whose velocity constraints leave one out or mistype
    it is refused with a ``ValueError`` naming the configuration
    constraint, checked once per model at a random point.

    Which coordinates and speeds are integrated is the engine's choice:
    it starts with the model's (``q_ind``/``u_ind``) where their blocks
    of the constraint Jacobians are well conditioned, and changes them
    where those blocks turn ill conditioned (smallest/largest pivot below
    ``1e-2``) while the Jacobian with respect to all coordinates keeps its
    rank, e.g. where two links of a closed chain line up: the best
    conditioned dependent set comes from a QR factorization with column
    pivoting of the full Jacobian (Haug, sec. 6.3, [Haug1989]_) and the
    integrator restarts there from the same state; once it has taken the
    partition over from the model it keeps to the best conditioned sets
    (changing where another set is 1.15 times better), so that the
    dependent coordinates and speeds, which carry the independent ones'
    error amplified by their block's conditioning, keep the requested
    accuracy too. ``result.partitions``
    records each change (time and the new independent coordinates and
    speeds); the columns of ``q`` and ``u`` stay in model order. Only a
    singular configuration of the mechanism itself (the full Jacobian
    losing rank) that the run cannot pass stops it, with a
    :class:`SimulationError` that says so.

    The numeric code (mass matrices and forcing vectors with common
    subexpressions eliminated, constraint matrices, outputs) is generated
    once per model and cached; further calls with other constants, initial
    conditions or inputs reuse it. The cache follows the model: after
    ``kanes_equations()`` is called again on the same ``KanesMethod`` (a
    load changed, say), the next call sees the new equations (each call
    compares the model's formed equations with those the cached code was
    made from, which costs microseconds) and generates the code again.
    Every generated function takes its
    arguments in the fixed order ``(t, q, u, c, s)``: ``q`` and ``u`` in
    ``model.q``/``model.u`` order, ``c`` the constants sorted by SymPy's
    ``default_sort_key`` (``result.constants`` lists them), ``s`` the
    specified inputs sorted the same way, then the rates ``Derivative(s,
    t)`` of those whose rates the equations need (see ``specified``),
    followed by the joint-friction magnitudes.

    Examples
    ========

    A mass on a spring, :math:`\ddot{x} = -(k/m) x`, against the exact
    solution:

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

    >>> try:
    ...     simulate(kane, (0, 1), {x: 0.1, v: 0.0}, {m: 2.0})
    ... except ValueError as error:
    ...     print(error)
    simulate(): missing constants: [k]

    The tutorial "Simulating a closed-loop mechanism" integrates a four-bar
    linkage with dependent coordinates and speeds.

    Parameters
    ==========

    model : KanesMethod or System
        The equations of motion (``System`` formed with ``KanesMethod``),
        or a ``System`` whose equations are not formed (``form_eoms()``
        not called): Kane's equations are then assembled numerically from
        its bodies, joints, loads and constraints, without forming them
        symbolically, and the ``System`` stays unformed (see the tutorial
        "Large models without the symbolic wait"; auxiliary speeds and
        varying masses need ``form_eoms()``).
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
        Integrator tolerances (``solve_ivp``'s meaning). On a closed loop
        they bound the integrated (independent) coordinates and speeds;
        where ``solve_ivp``'s solvers step the run, each step's tolerance
        is tightened by the dependent coordinates' and speeds' sensitivity
        to them so that it bounds those too (see the closed-loop
        tutorial).
    method : str, optional
        One of ``'RK45'``, ``'RK23'``, ``'DOP853'`` (default), ``'Radau'``,
        ``'BDF'``, ``'LSODA'`` (SciPy's ``solve_ivp``) or ``'odeint'``
        (SciPy's ``odeint``, LSODA with its stepping loop in Fortran;
        ``t_eval`` samples are interpolated by it). ``'DOP853'`` suits
        non-stiff mechanisms and steps in compiled code where the model is
        wholly compiled; stiff ones (stiff springs, dampers, contacts) run
        several times faster with ``'odeint'`` or ``'LSODA'``. Every method
        gives the same trajectory to the tolerances; when one gives up, the
        result keeps the samples reached and ``success`` is False. How
        each runs: :doc:`/performance`.
    specified : mapping, optional
        Values of the specified inputs (time functions other than the
        coordinates and speeds appearing in the equations): a number, a
        callable ``f(t) -> float``, a callable ``f(t, q, u)`` of the full
        coordinates and speeds in model order (state feedback) or a SymPy
        expression of the coordinates, speeds, time and constants
        (compiled into the right-hand side) for each. A constant of such
        an expression that the equations do not have (a gain) is given in
        ``constants`` like the others; its value is compiled in, so each
        new value generates the equations once more (the last 16 sets of
        expressions and values are kept). An expression SymEngine cannot
        compile (a relay ``-k*Heaviside(theta)``) runs on the NumPy back
        end, with a ``RuntimeWarning`` naming the input. The coordinates
        and speeds in an expression are their values at the current time:
        a value at another time (``theta(0)``) is refused (give it as a
        constant).

        Where the equations need an input's time derivative ``s'`` (an
        input inside the velocity constraints, such as a speed
        prescribed by ``v - s = 0``, whose acceleration constraint holds
        ``s'``; or inside the kinematic differential equations), it is
        taken from the input's value: 0 for a number, the total time
        derivative of an expression (compiled with the model), and for a
        callable ``f(t)`` the central difference ``(f(t + h) - f(t -
        h))/(2h)``, ``h = eps**(1/3) max(1, |t|)``, whose error is at most
        ``h**2/6 max|f'''| + eps max|f|/h`` (``6e-12 |f'''| + 3.7e-11
        |f|`` for ``|t| <= 1``, far below the integration tolerances for
        a smooth ``f``; ``f`` must be defined within ``h`` outside the
        time span). Give the rate yourself as ``specified[s.diff(t)]``
        (a number, callable or expression) where ``f`` is not smooth or
        its derivative is known. A callable ``f(t, q, u)`` or an
        expression of the speeds is refused for an input inside the
        velocity constraints (they must stay linear in the speeds), and
        for an input whose rate is needed, unless its rate is given.
    outputs : mapping, optional
        Name -> SymPy expression (scalar or column matrix) evaluated at
        every sample, e.g. ``{'energy': T + V}``. Expressions may contain
        the coordinates, speeds, their time derivatives, time, specified
        inputs and constants; they are lambdified once and cached. In a
        model with auxiliary speeds (``KanesMethod(..., u_auxiliary=...)``)
        they may contain the reactions those bring into evidence (the
        functions of time of the auxiliary equations that the equations of
        motion lack): their values are solved from the auxiliary
        equations (see the tutorial "Simulating a closed-loop
        mechanism"). In a ``System`` closed by
        :class:`~sympy_loads.LoopJoint`\ s they may contain the loops'
        ``multipliers`` (the reactions of :func:`~sympy_loads.joint_reactions`
        do): at each sample they are solved from :math:`M \dot{u} - F =
        B^T \lambda` (the unconstrained equations and the Jacobian
        :math:`B` of the loops' velocity constraints with respect to the
        speeds), with the friction of the run included. A
        :class:`SimulationError` says where they are not determined
        (dependent rows: a statically indeterminate mechanism) or where
        the equations have constraint forces that are not the loops' (a
        loop closed by hand). Give the ``System``, not its
        ``KanesMethod``, which knows no joints.
    joint_friction : sequence, optional
        Objects with ``.symbols`` (dynamic symbols that appear in the
        loads as unknown friction magnitudes) and ``.prepare(model,
        constants)`` returning ``f(q, u, udot, t) -> ndarray`` with the
        values of ``.symbols`` computed from the joint reactions (in a
        ``System`` closed by LoopJoints, ``f(q, u, udot, t,
        multipliers)``: the multipliers are solved, at each step of the
        relaxation, from the equations evaluated with the current
        friction values). At every
        evaluation the magnitudes start from their previous values,
        :math:`M \dot{u} = F(q, u, t, f)` is solved, :math:`f` is updated as
        :math:`f + w (f_{new} - f)` (:math:`w` = ``friction_relaxation``)
        until the change is below ``friction_tolerance`` (relative to
        :math:`\max(1, |f|)`), the
        relaxation of the course notes "Three-Dimensional Generalized
        Forces" [Notes3D]_. Friction with the exact sign
        (:class:`~sympy_loads.JointFriction` without ``regularization``,
        except in a spherical joint) sticks and slips: a joint whose speed
        reaches zero stays at rest while the friction limit holds it, and
        its friction symbol then gives the holding force (without impacts
        and forward in time; see the joint-friction tutorial).
    max_step : float, optional
        Largest integrator step.
    friction_tolerance, friction_max_iterations, friction_relaxation :
        Options of the joint-friction iteration.
    backend : {'auto', 'compiled', 'numpy'}, optional
        How the right-hand side is evaluated. ``'auto'`` (default) is
        ``'compiled'`` when SymEngine and numba import, else ``'numpy'``.
        ``'compiled'``: the model's functions (constraints and their
        Jacobian, velocity constraints, the unconstrained mass matrix and
        forcing) are compiled by SymEngine's LLVM JIT, in milliseconds to a
        second for large models, and one call of a generic numba kernel
        evaluates the whole right-hand side (Newton-Raphson on the
        dependent coordinates from the guess carried in the state, the
        dependent speeds, the numeric elimination of the dependent speeds
        and :math:`M \dot{u} = F`); the kernels are compiled once per
        installation (up to a minute, the first time) and then load from
        numba's disk cache. Any difficulty (no convergence, a nearly
        singular matrix) is handed to the diagnosing NumPy path, which
        recovers or reports it. ``'numpy'``: ``lambdify``-generated NumPy
        functions and NumPy's linear algebra. Both give the same results to
        the integrator's tolerance, whatever the symbols are named (code
        generation renames them). Each compiled function is checked once,
        when it is generated, against SymEngine's evaluation of its
        expressions at a random input; should they disagree (a
        miscompile), that model runs on ``'numpy'`` with a
        ``RuntimeWarning`` saying why, even where ``'compiled'`` was asked
        for. ``'numba'`` is an alias of ``'compiled'``. ``result.timings``
        says where the time went.
    constraint_options : dict, optional
        Keyword options of the :class:`HolonomicConstraintSolver`
        (``tolerance``, ``max_iterations``, ``backend``, ...). The solver
        is built once per model and options and kept with the model; each
        run uses it with its own values of the constants.
    impacts : sequence of Impact, optional
        Rigid impacts (:class:`~sympy_loads.Impact`, Newton's restitution
        law): each is located by the integrator's event location (its gap
        reaching zero while the contact point approaches the plane), the
        speeds jump by the impulse, consistently with the velocity
        constraints, and the integration goes on from the new state. A
        contact closer than
        :math:`\max(10\, \mathrm{atol}, 10^{-12})` at an impact and
        approaching is struck at the same instant (see
        :class:`~sympy_loads.Impact` for how simultaneous contacts are
        resolved). A contact that comes to rest (its impacts accumulate,
        or it rests on its plane while pressed) closes: its gap is held
        at zero by a normal force, with Coulomb friction, until that force
        vanishes (``result.contacts``; the closed phases run in Python and
        do not support joint friction). Needs a forward ``t_span`` and a
        ``solve_ivp`` method (not ``'odeint'``). See ``result.impacts``,
        ``result.contacts`` and the tutorial "Rigid impacts".

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
        ``t_span``/``t_eval``, an initial state that penetrates an
        impact's plane; velocity constraints that do not contain the time
        derivative of a configuration constraint (the message names it
        and gives the expected derivative); a System holding a
        :class:`~sympy_loads.LoopJoint` none of whose rows is among its
        holonomic constraints (the loop would not be closed).
    ConstraintSolverError
        The initial configuration cannot be assembled from the guesses.
    SimulationError
        The constraints cannot be solved, the mass matrix is singular or the
        joint-friction iteration fails during the integration, a closed
        contact cannot be resolved or a restitution leaves [0, 1] at an
        impact (its ``result`` then holds the run up to that time), or
        a sample violates the holonomic or velocity constraints by more
        than the Newton-Raphson tolerance plus round-off (never returned as
        a success); the message gives the time and the state.

    References
    ==========

    .. [Wehage1982] R. A. Wehage, E. J. Haug, "Generalized
       coordinate partitioning for dimension reduction in analysis of
       constrained dynamic systems", J. Mech. Des. 104(1):247-255, 1982,
       doi:10.1115/1.3256318.
    .. [Autodesk] Autodesk Inventor, "Dynamic Simulation: Constraint
       Kinematics" (course module): Newton-Raphson position solve.
    .. [Notes3D] Course notes "Three-Dimensional Generalized Forces",
       Coulomb friction in joints by relaxation.
    .. [Haug1989] E. J. Haug, Computer Aided Kinematics and Dynamics of
       Mechanical Systems, Vol. I: Basic Methods, Allyn and Bacon, 1989,
       sec. 6.3 (generalized coordinate partitioning).
    """
    start = time.perf_counter()
    # the run's own arguments are checked before the model's code is made
    checked = _check_run_options(t_span, dict(
        t_eval=t_eval, rtol=rtol, atol=atol, method=method,
        max_step=max_step, friction_tolerance=friction_tolerance,
        friction_max_iterations=friction_max_iterations,
        friction_relaxation=friction_relaxation), impacts=impacts)
    simulation = Simulation(model, outputs=outputs, impacts=impacts,
                            joint_friction=joint_friction, backend=backend,
                            constraint_options=constraint_options)
    # the clock started before the Simulation was made: its preparation is
    # counted once, by the clock
    simulation._setup_seconds = 0.0
    return simulation._run(start, checked, initial_conditions, constants,
                           specified)


def _check_run_options(t_span, options, impacts=None):
    """The checked ``(t0, t1, t_eval, method, max_step, rtol, atol,
    friction options)`` of a run: TypeError/ValueError naming the
    argument."""
    t0, t1 = _check_t_span(t_span)
    t_eval = _check_t_eval(options['t_eval'], t0, t1)
    method = _check_method(options['method'])
    max_step = _check_max_step(options['max_step'])
    rtol = _as_float('rtol', options['rtol'])
    atol = _as_float('atol', options['atol'])
    if rtol <= 0 or atol <= 0:
        raise ValueError(f'rtol and atol must be positive, got rtol={rtol}, '
                         f'atol={atol}.')
    _check_impacts(impacts, method, t0, t1)
    friction_tolerance = _as_float('friction_tolerance',
                                   options['friction_tolerance'])
    friction_relaxation = _as_float('friction_relaxation',
                                    options['friction_relaxation'])
    if not 0 < friction_relaxation <= 1:
        raise ValueError(f'friction_relaxation must be in (0, 1], got '
                         f'{friction_relaxation}.')
    iterations = options['friction_max_iterations']
    if isinstance(iterations, bool) or not isinstance(
            iterations, numbers.Integral) or iterations < 1:
        raise ValueError(f'friction_max_iterations must be a positive '
                         f'integer, got {iterations!r}.')
    return (t0, t1, t_eval, method, max_step, rtol, atol,
            (friction_tolerance, int(iterations), friction_relaxation))


class Simulation:
    r"""A model prepared for simulation: set up once, run many times.

    Explanation
    ===========

    Everything that depends only on the model and the options given here
    is done once, when the object is made: the checks of the model (among
    them that its velocity constraints contain the time derivatives of its
    configuration constraints, see :func:`simulate`) and the
    options, the derivation of the equations for numeric code, the code
    generation (see :func:`simulate`'s ``backend``), and the functions of
    the ``outputs`` and ``impacts``. Each :meth:`run` then takes the time
    span, initial conditions, constants and integrator options, checks them
    all before any work, and returns a :class:`SimulationResult`.
    ``simulate(model, ...)`` is ``Simulation(model, ...).run(...)``; the
    parameters mean the same in both, and so do the results. A
    ``Simulation`` pickles (with its model), so it can be sent to other
    processes; :func:`~sympy_loads.simulate_many` takes one in place of the
    model.

    Examples
    ========

    A particle on a spring, ``x'' = -k x``, prepared once and run for two
    stiffnesses (the exact solution is ``x = cos(sqrt(k) t)``):

    >>> import numpy as np
    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import Simulation
    >>> x, v = me.dynamicsymbols('x v')
    >>> k = sm.Symbol('k')
    >>> N = me.ReferenceFrame('N')
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', x*N.x); P.set_vel(N, v*N.x)
    >>> kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v])
    >>> _ = kane.kanes_equations([me.Particle('p', P, 1)], [(P, -k*x*N.x)])
    >>> spring = Simulation(kane, outputs={'energy': (v**2 + k*x**2)/2})
    >>> for stiffness in (1.0, 4.0):
    ...     result = spring.run((0, 1), {x: 1.0, v: 0.0}, {k: stiffness},
    ...                         t_eval=[1.0], rtol=1e-10, atol=1e-12)
    ...     print(round(float(result.q[-1, 0]), 8),
    ...           round(float(np.cos(np.sqrt(stiffness))), 8),
    ...           round(float(result.outputs['energy'][-1]), 8))
    0.54030231 0.54030231 0.5
    -0.41614684 -0.41614684 2.0

    Parameters
    ==========

    model : KanesMethod or System
        As for :func:`simulate`.
    outputs, impacts, joint_friction, backend, constraint_options
        As for :func:`simulate`.

    Attributes
    ==========

    model : KanesMethod or System
        The model, as given.
    backend : str
        ``'compiled'`` or ``'numpy'``: the back end of the generated code.
    coordinates, speeds : tuple
        ``model.q`` and ``model.u``, the columns of a result's ``q`` and
        ``u``.
    constants : tuple of Symbol
        The constants a run needs values for (those of the equations of
        motion, the outputs and the impacts; a joint friction may need
        more).
    options : dict
        The options given when it was made.

    Notes
    =====

    A ``Simulation`` is a snapshot of the model's equations of motion as
    they were when it was made: it keeps them, and so does a pickled copy,
    if the model is changed afterwards (``kanes_equations()`` called again
    on the ``KanesMethod``, or ``form_eoms()`` on the ``System``, after a
    change of a load or a body). Its :meth:`run`, :meth:`linearize` and
    :meth:`equilibrium` all use the equations of the snapshot. Make a new
    ``Simulation`` to take the new equations; :func:`simulate`,
    :func:`~sympy_loads.linearize` and :func:`~sympy_loads.equilibrium`
    given the model itself always use the equations formed last (their
    cached code is generated again after a change). A ``joint_friction``
    is the exception: its joint reactions are derived from the model at
    each run.
    """

    def __init__(self, model, *, outputs=None, impacts=None,
                 joint_friction=None, backend='auto',
                 constraint_options=None):
        start = time.perf_counter()
        kane = _kanes_method_of(model)
        chosen = resolve_backend(backend)
        friction_items = _check_joint_friction(joint_friction)
        impact_items = _check_impacts(impacts, None, 0.0, 1.0)
        if outputs is not None and not hasattr(outputs, 'items'):
            raise TypeError(f'outputs must be a mapping from names to SymPy '
                            f'expressions, not {type(outputs).__name__}.')
        outputs = dict(outputs or {})
        for name, expr in outputs.items():
            if not isinstance(expr, (sm.Basic, sm.MatrixBase,
                                     numbers.Number)):
                raise TypeError(f'outputs[{name!r}] must be a SymPy '
                                f'expression, not {type(expr).__name__}.')
            outputs[name] = sm.sympify(expr)
        if constraint_options is not None and not hasattr(
                constraint_options, 'items'):
            raise TypeError(f'constraint_options must be a mapping of '
                            f'HolonomicConstraintSolver options, not '
                            f'{type(constraint_options).__name__}.')
        friction_symbols = []
        for item in friction_items:
            friction_symbols.extend(item.symbols)
        nm = _numeric_model(kane, friction_symbols, chosen,
                            strict=backend in ('compiled', 'numba'))
        _check_impact_frames(impact_items, nm.frame)
        self.model = model
        self._kane = kane
        self._nm = nm
        self._friction_items = friction_items
        self._impact_items = impact_items
        # the LoopJoints' multipliers: outputs may contain them, and the
        # reactions of joint friction in a closed loop do
        loops, loop_symbols = loop_multipliers(model)
        _check_no_multipliers_in_equations(nm, loop_symbols)
        self._output_spec = (nm.output_function(outputs, loop_symbols)
                             if outputs else None)
        self._loops = (nm.loop_multipliers(loops) if loops and (
            friction_items or (self._output_spec
                               and self._output_spec.multipliers))
            else None)
        self._impact_spec = (impact_outputs(nm, impact_items)
                             if impact_items else None)
        extra = (list(self._output_spec.extra_constants)
                 if self._output_spec else [])
        if self._impact_spec:
            extra += [s for s in self._impact_spec.extra_constants
                      if s not in extra]
        self._extra_constants = extra
        self._constraint_options = dict(constraint_options or {})
        # the constants of the configuration constraints get their values
        # per run (a copy of this solver, sharing its code)
        self._solver = nm.constraint_solver(self._constraint_options)
        # the first run's first solve loads numba's Newton kernel (it is
        # reported with the kernels' loading, not the set-up)
        self._first_run = True
        # as given, for simulate_many (which sends the model itself)
        self._options = dict(outputs=outputs or None,
                             impacts=impact_items or None,
                             joint_friction=joint_friction, backend=backend,
                             constraint_options=constraint_options)
        self._setup_seconds = time.perf_counter() - start

    def __getstate__(self):
        # the pickle of itself that simulate_many keeps (see
        # _simulation.workers.simulation_payload) is not part of it
        state = self.__dict__.copy()
        state.pop('_pickle', None)
        return state

    @property
    def options(self):
        """The options given when it was made (``outputs``, ``impacts``,
        ``joint_friction``, ``backend``, ``constraint_options``)."""
        return dict(self._options)

    @property
    def backend(self):
        """``'compiled'`` or ``'numpy'``: the back end of its code."""
        return self._nm.backend

    @property
    def coordinates(self):
        """``model.q``: the columns of a result's ``q``."""
        return tuple(self._nm.q)

    @property
    def speeds(self):
        """``model.u``: the columns of a result's ``u``."""
        return tuple(self._nm.u)

    @property
    def constants(self):
        """The constants a run needs values for."""
        return tuple(self._nm.constants) + tuple(self._extra_constants)

    def __repr__(self):
        return (f'Simulation(<{type(self.model).__name__}: '
                f'q={list(self.coordinates)}, u={list(self.speeds)}>, '
                f'backend={self.backend!r})')

    def run(self, t_span, initial_conditions, constants, *, t_eval=None,
            rtol=1e-8, atol=1e-10, method='DOP853', specified=None,
            max_step=np.inf, friction_tolerance=1e-10,
            friction_max_iterations=100, friction_relaxation=1.0):
        """Integrate over ``t_span`` from ``initial_conditions`` with the
        values of ``constants``; returns a :class:`SimulationResult`. The
        parameters are :func:`simulate`'s; every one is checked before any
        work.

        Examples
        ========

        A particle falling from rest under gravity, run for two values of
        ``g`` (the exact fall is ``g t**2 / 2``):

        >>> import sympy as sm
        >>> import sympy.physics.mechanics as me
        >>> from sympy_loads import Simulation
        >>> y, v = me.dynamicsymbols('y v')
        >>> g = sm.Symbol('g')
        >>> N = me.ReferenceFrame('N')
        >>> O = me.Point('O'); O.set_vel(N, 0)
        >>> P = O.locatenew('P', y*N.y); P.set_vel(N, v*N.y)
        >>> kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v])
        >>> _ = kane.kanes_equations([me.Particle('p', P, 1)],
        ...                          [(P, -g*N.y)])
        >>> fall = Simulation(kane)
        >>> [round(float(fall.run((0, 2), {y: 0.0, v: 0.0}, {g: value},
        ...                       t_eval=[2.0]).q[-1, 0]), 9)
        ...  for value in (9.81, 1.62)]
        [-19.62, -3.24]
        """
        start = time.perf_counter()
        checked = _check_run_options(t_span, dict(
            t_eval=t_eval, rtol=rtol, atol=atol, method=method,
            max_step=max_step, friction_tolerance=friction_tolerance,
            friction_max_iterations=friction_max_iterations,
            friction_relaxation=friction_relaxation),
            impacts=self._impact_items or None)
        return self._run(start, checked, initial_conditions, constants,
                         specified)

    def _run(self, start, checked, initial_conditions, constants,
             specified):
        """:meth:`run` after its checks (``checked``, from
        :func:`_check_run_options`), its clock started at ``start``."""
        (t0, t1, t_eval, method, max_step, rtol, atol,
         friction_options) = checked
        problem, solver, engine, stick_slip, y0, constants_map = \
            self._start(t0, t1, initial_conditions, constants, specified,
                        atol, friction_options)
        # the first run reports the preparation too (as simulate() does)
        setup = time.perf_counter() - start + self._setup_seconds
        self._setup_seconds = 0.0
        # (their compilation, on an installation's first use, has logged
        # itself: sympy_loads._numeric.kernel_set)
        _log_slow('loading the compiled kernels',
                  problem.kernel_seconds - problem.compile_seconds)
        nm, friction_items = self._nm, self._friction_items
        output_spec = self._output_spec

        start = time.perf_counter()
        problem.tolerant = method in IMPLICIT_METHODS
        problem.t_span = (t0, t1)
        fun = problem.fast_rhs()
        if problem.tolerant or watch_unswitched(problem, friction_items,
                                                stick_slip):
            fun = problem.watched(fun)
        options = dict(method=method, t_eval=t_eval, rtol=rtol, atol=atol,
                       max_step=max_step, jac=problem.jacobian(fun) if method
                       in IMPLICIT_METHODS else None)
        try:
            if engine:
                solution = run(engine, fun, (t0, t1), y0, **options)
            elif stick_slip:
                solution = stick_slip.integrate(fun, (t0, t1), y0, **options)
            else:
                solution = integrate(fun, (t0, t1), y0, problem=problem,
                                     **options)
        except ValueError as error:
            # SciPy's implicit methods meet the NaN of a failed evaluation in
            # a linear solve ("array must not contain infs or NaNs")
            if problem.deferred is None:
                raise
            raise problem.deferred from error
        if (not solution.success and problem.deferred is not None
                and solution.error is None):
            error = problem.deferred
            error.args = (f'{error.args[0]} ({method} could not continue: '
                          f'{solution.message})',)
            raise error
        times = solution.t
        q, u, residual, velocity_residual = problem.samples(times, solution.y)
        _check_residuals(problem, solver, times, q, u, residual,
                         velocity_residual)
        values = evaluate_outputs(
            problem, output_spec, times, q, u,
            [constants_map[s] for s in output_spec.extra_constants]) \
            if output_spec else {}
        timings = {'derivation': nm.seconds['derivation'],
                   'codegen': nm.seconds['codegen'],
                   'kernels': problem.kernel_seconds, 'setup': setup,
                   'integration': time.perf_counter() - start}
        nm.seconds['derivation'] = nm.seconds['codegen'] = 0.0   # paid once
        result = SimulationResult(
            t=times, q=q, u=u, constraint_residual=residual,
            velocity_residual=velocity_residual, outputs=values,
            success=bool(solution.success), status=int(solution.status),
            message=str(solution.message), nfev=int(solution.nfev),
            njev=int(solution.njev), nlu=int(solution.nlu),
            q_names=tuple(str(s.name) for s in nm.q),
            u_names=tuple(str(s.name) for s in nm.u),
            coordinates=tuple(nm.q), speeds=tuple(nm.u),
            constants=tuple(constants_map.items()),
            backend=problem.nm.backend,   # a feedback's may be NumPy
            timings=timings,
            impacts=engine.result_records() if engine else (),
            partitions=tuple(problem.partitions),
            contacts=contact_intervals(engine) if engine else ())
        if solution.error is not None:
            solution.error.result = result      # its run is kept
            raise solution.error
        return result

    def _values(self, initial_conditions, constants, specified, t0):
        """The run's values: ``(constants packed, constants by symbol,
        specified functions, q0, u0)``; a :class:`MissingValuesError` lists
        every missing constant, specified input and initial condition."""
        nm = self._nm
        c_all, missing_c, all_constants = _pack_constants(
            nm, constants, self._extra_constants)
        spec_functions, missing_s, missing_g = _specified_functions(
            nm, specified, t0, all_constants)
        missing_c = missing_c + missing_g
        q0, u0, missing_x = _initial_state(nm, initial_conditions)
        problems = [f'{what}: {[_name(s) for s in missing]}'.replace(
            "'", '') for what, missing in (
                ('missing constants', missing_c),
                ('missing specified inputs (specified=)', missing_s),
                ('missing initial conditions', missing_x)) if missing]
        if problems:
            raise MissingValuesError('simulate(): ' + '; '.join(problems))
        return c_all, all_constants, spec_functions, q0, u0

    def _start(self, t0, t1, initial_conditions, constants, specified,
               atol, friction_options):
        """The run's numeric problem at its consistent start: ``(problem,
        solver, impact engine, stick-slip, y0, constants by symbol)``
        (ValueError listing every missing value)."""
        nm, model = self._nm, self.model
        friction_items = self._friction_items
        impact_items = self._impact_items
        impact_spec = self._impact_spec
        (c_all, all_constants, spec_functions, q0,
         u0) = self._values(initial_conditions, constants, specified, t0)
        c = c_all[:len(nm.constants)]
        constants_map = dict(zip(nm.constants + self._extra_constants,
                                 c_all))

        solver = None
        if self._solver is not None:
            solver = self._solver.with_constants(
                {s: float(constants_map[s]) for s in self._solver.constants})
        friction_functions = [item.prepare(model, all_constants)
                              for item in friction_items]
        problem = Problem(nm, c, spec_functions, solver, friction_functions,
                          friction_options)
        problem.loops = self._loops
        stick_slip = (StickSlip.attach(problem, friction_items)
                      if friction_items and not impact_items
                      and is_forward((t0, t1)) else None)
        engine = None
        if impact_items:
            engine = ImpactEngine(problem, impact_items, impact_spec,
                                  [constants_map[s] for s in
                                   impact_spec.extra_constants],
                                  max(10 * atol, 1e-12))

        # Consistent initial conditions: dependent entries are guesses.
        if nm.has_config_constraints:
            solve_start = time.perf_counter()
            q0 = problem.assemble(t0, q0)
            if self._first_run:
                # the first solve loads (or on an installation's first use
                # compiles) numba's Newton kernel; the solve itself takes
                # microseconds
                problem.kernel_seconds += time.perf_counter() - solve_start
                self._first_run = False
            problem.set_branch(t0, q0)
        else:
            # without configuration constraints the partition of the speeds
            # is still the engine's (assemble() chooses it otherwise)
            problem.choose_at_start(t0, q0)
        u0 = problem.dependent_speeds(
            t0, q0, u0, problem.specified(t0) + [0.0] * len(nm.friction))
        y0 = problem.pack(q0, u0)
        if engine:
            engine.check_start(t0, q0, u0)
        problem.warm_up(t0, y0, impacts=engine is not None)
        return problem, solver, engine, stick_slip, y0, constants_map

    def linearize(self, operating_point, constants, *, inputs=None,
                  specified=None, time=0.0):
        r"""The linear model ``x' = A x + B r`` about ``operating_point``:
        :func:`sympy_loads.linearize` with this prepared model (its
        Jacobians are generated on the first call and kept with it).

        Examples
        ========

        A pendulum ``theta'' = -(g/l) sin(theta)`` about its lowest
        position: ``A = [[0, 1], [-g/l, 0]]``.

        >>> import sympy as sm
        >>> import sympy.physics.mechanics as me
        >>> from sympy_loads import Simulation
        >>> th, w = me.dynamicsymbols('theta omega')
        >>> g, l = sm.symbols('g l')
        >>> N = me.ReferenceFrame('N'); A = N.orientnew('A', 'Axis', (th, N.z))
        >>> A.set_ang_vel(N, w*N.z)
        >>> O = me.Point('O'); O.set_vel(N, 0)
        >>> P = O.locatenew('P', -l*A.y); _ = P.v2pt_theory(O, N, A)
        >>> kane = me.KanesMethod(N, [th], [w], kd_eqs=[th.diff() - w])
        >>> _ = kane.kanes_equations([me.Particle('p', P, 1)],
        ...                          [(P, -g*N.y)])
        >>> pendulum = Simulation(kane)
        >>> pendulum.linearize({th: 0.0, w: 0.0}, {g: 9.81, l: 2.0}).A
        array([[ 0.   ,  1.   ],
               [-4.905,  0.   ]])
        """
        return linearize_model(self._nm, operating_point, constants, inputs,
                               specified, time, self._constraint_options)

    def equilibrium(self, guess, constants, *, specified=None, time=0.0,
                    tolerance=1e-10):
        r"""A static equilibrium near ``guess``:
        :func:`sympy_loads.equilibrium` with this prepared model.

        Examples
        ========

        A pendulum pushed by a constant horizontal force ``F = m g``
        rests at 45 degrees:

        >>> import sympy as sm
        >>> import sympy.physics.mechanics as me
        >>> from sympy_loads import Simulation
        >>> th, w = me.dynamicsymbols('theta omega')
        >>> g = sm.symbols('g')
        >>> N = me.ReferenceFrame('N'); A = N.orientnew('A', 'Axis', (th, N.z))
        >>> A.set_ang_vel(N, w*N.z)
        >>> O = me.Point('O'); O.set_vel(N, 0)
        >>> P = O.locatenew('P', -A.y); _ = P.v2pt_theory(O, N, A)
        >>> kane = me.KanesMethod(N, [th], [w], kd_eqs=[th.diff() - w])
        >>> _ = kane.kanes_equations([me.Particle('p', P, 1)],
        ...                          [(P, -g*N.y + g*N.x)])
        >>> rest = Simulation(kane).equilibrium({th: 0.1}, {g: 9.81})
        >>> round(float(sm.deg(rest[th])), 10)
        45.0
        """
        return equilibrium_model(self._nm, guess, constants, specified, time,
                                 tolerance, self._constraint_options)
