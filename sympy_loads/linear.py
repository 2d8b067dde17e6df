r"""Linear analysis of constrained models: :func:`~sympy_loads.linearize`,
:func:`~sympy_loads.equilibrium` and :class:`~sympy_loads.LinearModel`.

Explanation
===========

SymPy's ``KanesMethod.linearize`` forms the linear equations symbolically,
which for a model with dependent coordinates and speeds (a bicycle, a
closed loop) means differentiating and simplifying the whole constrained
system before any number is known. Here the model is prepared once
(:class:`~sympy_loads.Simulation`: its unconstrained equations and
constraints, generated as fast functions), the Jacobians of those
equations with respect to the coordinates, speeds and specified inputs
are derived symbolically and generated once more, and each operating
point is then a matter of evaluating them and applying the chain rule
through the numeric elimination of the dependent coordinates and speeds
(the implicit function theorem). The matrices are exact up
to round-off: no finite differences.

The states of the linear model are the independent coordinates and then
the independent speeds, in the model's order: ``x' = A x + B r`` for the
deviations ``x`` of those and ``r`` of the chosen specified inputs from
the operating point. For the Whipple bicycle at 5 m/s this gives the
eigenvalues of Meijaard et al. [Meijaard2007]_ to about 1e-12.

:func:`~sympy_loads.equilibrium` finds a static equilibrium (independent
speeds and accelerations zero, constraints satisfied) from a guess, with
SciPy's ``least_squares`` on the equations and their exact Jacobian.

Both eliminate the dependent coordinates and speeds where the model's
choice of them is well conditioned, and choose another independent set
where it is not, by the measure and the rule ``simulate()`` uses
(generalized coordinate partitioning, see
:class:`~sympy_loads.PartitionRecord`).

References
==========

.. [Meijaard2007] J. P. Meijaard, J. M. Papadopoulos, A. Ruina, A. L.
   Schwab, "Linearized dynamics equations for the balance and steer of a
   bicycle: a benchmark and review", Proc. R. Soc. A 463:1955-1982, 2007,
   https://doi.org/10.1098/rspa.2007.1857.
.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, McGraw-Hill, 1985, ch. 6 (linearized dynamical
   equations). https://hdl.handle.net/1813/638
"""

from ._errors import EquilibriumError
from ._simulation.linearization import LinearModel
from .simulation import Simulation

__all__ = ['linearize', 'equilibrium', 'LinearModel', 'EquilibriumError']

# documented and pickled under its public name
LinearModel.__module__ = __name__


def _prepared(model, backend):
    if isinstance(model, Simulation):
        return model
    return Simulation(model, backend=backend)


def linearize(model, operating_point, constants, *, inputs=None,
              specified=None, time=0.0, backend='auto'):
    r"""The linear model of ``model`` about an operating point.

    Explanation
    ===========

    Returns the :class:`~sympy_loads.LinearModel` ``x' = A x + B r`` of
    the equations of motion, with the constraints, about
    ``operating_point``. ``x`` holds the deviations of the independent
    coordinates, then of the independent speeds (``.states``, in the
    model's order), and ``r`` those of the specified ``inputs``.

    The independent coordinates and speeds are the model's where its
    dependent block of the constraint Jacobian is well conditioned at the
    operating point. Where it is not (a pendulum in natural coordinates
    ``(x, y)`` with ``y`` independent at its lowest point, where ``y``
    does not parametrize the motion; a knife edge whose dependent speed
    is across its blade), another set is used, chosen as
    :func:`~sympy_loads.simulate` chooses it: the model's block is kept
    while its smallest pivot is at least 1e-2 of the largest column norm
    of the *full* Jacobian, and replaced by the best conditioned set (QR
    with column pivoting) where that is ten times better. ``.states``
    then says which set, and the values of ``operating_point`` that are
    kept are those of *that* set's independent coordinates and speeds
    (the others are solved, see ``.operating_point``).

    The operating point need not be an equilibrium: a steady motion, such
    as a bicycle running straight at constant speed, is linearized the
    same way (``A`` is the Jacobian of the right-hand side there).

    The Jacobians of the unconstrained equations and of the constraint
    functions are derived symbolically and generated once per model
    (kept with the prepared model, see :class:`~sympy_loads.Simulation`;
    pass one as ``model`` to linearize at many points), then combined by
    the chain rule through the numeric elimination of the dependent
    coordinates and speeds: the result is exact up to round-off.

    Loads with ``Abs``, ``sign``, ``Max``, ``Min``, ``Heaviside`` or
    ``Piecewise`` (:class:`~sympy_loads.HuntCrossleyContact`, quadratic
    drag, a step) are differentiated where they are smooth, on the side
    of their switch on which the operating point lies:
    :math:`d|a|/dx = \operatorname{sign}(a)\, a'`, the derivative of the
    larger argument of ``Max``, 0 for ``sign`` and ``Heaviside``, a
    ``Piecewise`` branch by branch. An operating point on a switch
    (``a = 0`` for ``Abs``, ``sign`` and ``Heaviside``, two equal
    arguments of ``Max`` or ``Min``, a turning condition of
    ``Piecewise``; within 1e-9 of the size of the terms of ``a``, plus
    1e-12) is linearized from each side; the result is returned where all
    sides agree (``u |u|`` at ``u = 0``) and refused where they do not
    (``|x|`` at ``x = 0``).

    Examples
    ========

    A cart with an inverted pendulum, pushed by a force ``F``, about the
    upright position:

    >>> import numpy as np
    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import linearize
    >>> x, th, v, w, F = me.dynamicsymbols('x theta v omega F')
    >>> m, M, l, g = sm.symbols('m M l g')
    >>> N = me.ReferenceFrame('N'); B = N.orientnew('B', 'Axis', (th, N.z))
    >>> B.set_ang_vel(N, w*N.z)
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> C = O.locatenew('C', x*N.x); C.set_vel(N, v*N.x)
    >>> P = C.locatenew('P', l*B.y); _ = P.v2pt_theory(C, N, B)
    >>> kane = me.KanesMethod(N, [x, th], [v, w],
    ...                       kd_eqs=[x.diff() - v, th.diff() - w])
    >>> _ = kane.kanes_equations(
    ...     [me.Particle('cart', C, M), me.Particle('bob', P, m)],
    ...     [(C, F*N.x - M*g*N.y), (P, -m*g*N.y)])
    >>> lin = linearize(kane, {x: 0.0, th: 0.0, v: 0.0, w: 0.0},
    ...                 {m: 1.0, M: 4.0, l: 1.0, g: 9.81},
    ...                 inputs=[F], specified={F: 0.0})
    >>> np.round(lin.A, 6)
    array([[ 0.    ,  0.    ,  1.    ,  0.    ],
           [ 0.    ,  0.    ,  0.    ,  1.    ],
           [ 0.    ,  2.4525,  0.    ,  0.    ],
           [ 0.    , 12.2625,  0.    ,  0.    ]])
    >>> np.round(lin.B.ravel(), 6)
    array([0.  , 0.  , 0.25, 0.25])
    >>> bool(max(lin.eigenvalues().real) > 0)      # it falls over
    True

    Parameters
    ==========

    model : KanesMethod, System or Simulation
        The model (after ``kanes_equations`` or ``form_eoms``), or a
        prepared :class:`~sympy_loads.Simulation` of it.
    operating_point : mapping
        Coordinates and speeds to values, as ``simulate()``'s
        ``initial_conditions``: the independent ones are required, the
        dependent ones are starting guesses and are solved for (the
        dependent speeds of the set chosen at the operating point, see
        above).
    constants : mapping
        Values of the model's constants.
    inputs : list, optional
        Specified inputs of the model (functions of time such as
        ``dynamicsymbols('F')``) to differentiate with respect to: the
        columns of ``B`` (none by default). An input inside the velocity
        constraints acts through them too (a cart driven at a prescribed
        speed ``s`` by ``v - s = 0`` has ``d x'/d s = 1``); where the
        equations need an input's rate (an input inside the velocity
        constraints or the kinematic equations), ``Derivative(s, t)`` may
        be named too, for its own column.
    specified : mapping, optional
        The operating values (numbers) of all the model's specified
        inputs; the rate ``Derivative(s, t)`` of an input whose rate the
        equations need is 0 unless given.
    time : float, optional
        The time of the operating point (for models that depend on time).
    backend : str, optional
        As for :func:`~sympy_loads.simulate`; ignored when ``model`` is a
        ``Simulation``.

    Returns
    =======

    LinearModel

    Raises
    ======

    TypeError, ValueError
        For arguments of the wrong type or value, naming the argument
        (``operating_point[...]``, ``specified[...]``, ``inputs``); a
        ``ValueError`` lists every missing value, and names the operating
        point where its mass matrix is singular or the constraint
        Jacobian loses rank (no independent set parametrizes the motion).
        A ``ValueError`` too where the operating point is on the switch
        of a piecewise-smooth function whose sides give different linear
        models, naming the function and the point.
    ConstraintSolverError
        When the configuration constraints cannot be solved at the
        operating point.

    Notes
    =====

    SymPy's ``KanesMethod.linearize`` gives the same ``A`` and ``B`` (the
    tests compare them to 1e-12) but works symbolically: for the Whipple
    bicycle it needs minutes before any operating point is substituted,
    where this takes about a second once and well under a millisecond per
    further operating point (``benchmarks/bench_linear.py``).

    References
    ==========

    .. [Meijaard2007] J. P. Meijaard, J. M. Papadopoulos, A. Ruina, A. L.
       Schwab, "Linearized dynamics equations for the balance and steer of
       a bicycle: a benchmark and review", Proc. R. Soc. A 463:1955-1982,
       2007, https://doi.org/10.1098/rspa.2007.1857.
    """
    return _prepared(model, backend).linearize(
        operating_point, constants, inputs=inputs, specified=specified,
        time=time)


def equilibrium(model, guess, constants, *, specified=None, time=0.0,
                tolerance=1e-10, backend='auto'):
    r"""A static equilibrium of ``model`` near ``guess``.

    Explanation
    ===========

    Finds the coordinates at which the model rests: independent speeds
    and accelerations zero, the constraints satisfied, the generalized
    active forces balanced. The unknowns are the independent coordinates;
    the dependent ones are solved from the configuration constraints at
    every step (as in ``simulate()``, so the search stays on the assembly
    branch of the guess), and the equations are the independent
    accelerations, solved by ``scipy.optimize.least_squares`` with their
    exact Jacobian (the static part of :func:`~sympy_loads.linearize`'s).
    Returns ``{coordinate: value}`` for every coordinate, ready to pass
    to ``simulate()`` with zero speeds (the dependent ones are solved
    there).

    The independent set is chosen at the guess as
    :func:`~sympy_loads.linearize` chooses it, and chosen again during
    the search where its block of the constraint Jacobian turns ill
    conditioned or the dependent coordinates cannot be solved (a
    pendulum in natural coordinates with ``y`` independent rests where
    ``y`` is extreme; a knife edge's dependent speed may be across its
    blade at the rest position).

    Where the constraints depend on time (a driven mechanism, a moving
    guide), rest is *quasi-static*: at ``time`` the independent speeds
    are zero and the dependent ones are those the velocity constraints
    give, which need not be zero; the result is where the independent
    accelerations vanish in that state. The model's independent speeds
    are the ones held at zero (unless their block is ill conditioned at
    the guess).

    Piecewise-smooth loads (``Abs``, ``Max``, ``Heaviside``,
    :class:`~sympy_loads.HuntCrossleyContact`, ...) are differentiated on
    the side of their switch on which each step of the search lies (see
    :func:`~sympy_loads.linearize`).

    Examples
    ========

    A pendulum with a torsional spring ``k (theta0 - theta)`` rests where
    the spring holds the weight, ``k (theta0 - theta) = m g l
    sin(theta)``:

    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import equilibrium
    >>> th, w = me.dynamicsymbols('theta omega')
    >>> m, g, l, k = sm.symbols('m g l k')
    >>> N = me.ReferenceFrame('N'); A = N.orientnew('A', 'Axis', (th, N.z))
    >>> A.set_ang_vel(N, w*N.z)
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', -l*A.y); _ = P.v2pt_theory(O, N, A)
    >>> kane = me.KanesMethod(N, [th], [w], kd_eqs=[th.diff() - w])
    >>> _ = kane.kanes_equations([me.Particle('p', P, m)],
    ...                          [(P, -m*g*N.y), (A, k*(1 - th)*N.z)])
    >>> values = {m: 1.0, g: 9.81, l: 1.0, k: 20.0}
    >>> rest = equilibrium(kane, {th: 0.5}, values)
    >>> angle = rest[th]
    >>> abs(20.0*(1 - angle) - 9.81*float(sm.sin(angle))) < 1e-12
    True

    Parameters
    ==========

    model : KanesMethod, System or Simulation
        As for :func:`~sympy_loads.linearize`.
    guess : mapping
        Coordinates to starting values (the independent ones required,
        the dependent ones optional: those left out are solved from the
        configuration constraints, starting from 0, then 1, then -1;
        give them to choose the assembly branch); speeds, if given, must
        be zero.
    constants : mapping
        Values of the model's constants.
    specified : mapping, optional
        Values (numbers) of the model's specified inputs.
    time : float, optional
        The time (for models that depend on time).
    tolerance : float, optional
        The largest independent acceleration accepted at the solution,
        relative to the largest one at the guess (at least 1).
    backend : str, optional
        As for :func:`~sympy_loads.linearize`.

    Returns
    =======

    dict
        ``{coordinate: value}`` for every coordinate of the model.

    Raises
    ======

    EquilibriumError
        When the residual reached is above ``tolerance``; the message and
        the attributes give the residual and the equations not satisfied.
    TypeError, ValueError
        For arguments of the wrong type or value, naming the argument
        (``guess[...]``, ``specified[...]``); a singular mass matrix at the
        guess is a ``ValueError`` naming the guess and its state.

    References
    ==========

    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, McGraw-Hill, 1985, sec. 6.1 (static equilibrium).
       https://hdl.handle.net/1813/638
    """
    return _prepared(model, backend).equilibrium(
        guess, constants, specified=specified, time=time,
        tolerance=tolerance)
