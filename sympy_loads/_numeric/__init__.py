"""The private numeric engine of :mod:`sympy_loads`.

It turns SymPy expressions into fast functions and runs the loops; it
knows nothing of SymPy Mechanics objects (the public modules prepare the
expressions and check the input).

* :mod:`.codegen`: model-specific functions, generated once per model by
  SymEngine's LLVM JIT (or ``sympy.lambdify`` for the NumPy back end),
  all with the calling convention ``f(x) -> y`` on flat float vectors;
* :mod:`.jit`, :mod:`.linalg`, :mod:`.newton`, :mod:`.rhs`: the generic
  numba kernels (compiled once per installation, cached on disk) that call
  those functions by address: dense solves, Newton-Raphson, velocity and
  acceleration solves, the right-hand side of ``simulate()``;
* :mod:`.dop853`, :mod:`.jump`: the DOP853 stepping and the impacts'
  jumps on the compiled right-hand side;
* :mod:`.kernel_set`: every kernel with the argument types its callers
  pass, compiled all at once on an installation's first use (announced
  on the ``sympy_loads`` logger) or by ``python -m sympy_loads
  --compile``; :mod:`.kernel_cache`: numba's checked on-disk cache;
* :mod:`.numpy_kernels`: their NumPy twins, the fallback where numba or
  SymEngine cannot be imported, tested against the compiled kernels.

:func:`resolve_backend` decides which path a request gets.
"""

import importlib.util

__all__ = []

# Status codes of the Newton iteration, shared by both back ends.
CONVERGED, MAX_ITERATIONS, STALLED, NONFINITE, BAD_INPUT = 0, 1, 2, 3, 4
# ... and converged to a singular Jacobian (a toggle or locked
# configuration): the smallest/largest pivot ratio is below SINGULAR_RATIO.
SINGULAR, SINGULAR_RATIO = 5, 1e-7
# Status codes of one right-hand-side evaluation (0 = success).
OK, NEWTON_FAILED, VELOCITY_SINGULAR, MASS_SINGULAR = 0, 1, 2, 3
# ... the dependent coordinates converged on another assembly branch (the
# sign of det(Phi_qd) changed: a singular configuration was crossed), and
# the right-hand side is not finite.
BRANCH_CHANGED, NOT_FINITE = 4, 5
# ... and a change of partition is due: a pivot ratio of the dependent
# blocks (Phi_qd, K_d) fell below the threshold in opts[4] (see
# sympy_loads._simulation.partition); reported only where opts[4] > 0.
PARTITION_DUE = 6
# Directions with a relative pivot below this are dropped from a
# least-squares step.
RANK_RATIO = 1e-13
# The right-hand side hands over to the diagnosing path when the last
# Newton Jacobian's smallest/largest pivot ratio is below this.
PIVOT_HANDOVER = 1e-6

# The Newton iteration's line search and stall test (both back ends).
LINE_SEARCH_HALVINGS = 30
MAX_STEP = 1.0
ARMIJO = 1e-4
# A stall: STALL_ITERATIONS accepted steps in a row, each reducing |Phi|^2
# by less than the fraction STALL_DECREASE. Far from a solution the line
# search still finds such steps (Armijo with a step shortened 2**-15 times
# or more) while the iterate creeps towards a least-squares minimum with a
# nonzero residual (an unreachable configuration), so without this test
# the iteration would run to max_iterations at some 30 evaluations each.
STALL_DECREASE = 1e-8
STALL_ITERATIONS = 3

# The compiled DOP853's state vector (:func:`.dop853.advance`, which
# documents each entry): the indices by name.
(S_T, S_H, S_T_END, S_RTOL, S_ATOL, S_MAX_STEP, S_NEXT_SAMPLE, S_WRITTEN,
 S_NFEV, S_T_OLD, S_DIRECTION, S_T_FAILED, S_IMPACTS, S_PER_IMPACT,
 S_STRUCK, S_RESOLVE, S_FRESH, S_BRACKET_END, S_FAILURES,
 S_FAILED_UNTIL) = range(20)
STATE_SIZE = 20

# The search of a gap that dips below zero inside a step, shared by the
# compiled stepping (dop853.first_closing, dip_theta) and its Python twin
# (_simulation.integrators._first_closing, _dip_time): the points at which
# a closing gap is scanned, and the golden-section iterations towards its
# minimum (0.618**60: 3e-13 of the step).
SCAN_POINTS = 8
DIP_ITERATIONS = 60
INVERSE_PHI = 0.6180339887498949

BACKENDS = ('auto', 'compiled', 'numba', 'numpy')


def eom_blocks(nq, nu, m, identity):
    """The layout of the generated equations-of-motion vector, the one
    place that defines it (the numeric model builds the vector in this
    order; the kernels, compiled as ``rhs.eom_blocks``, and the Python
    paths read it through this function)::

        [M_kin (nq x nq, row-major; absent when identity), f_kin (nq),
         M (nu x nu, row-major), F (nu), g (m)]

    ``M_kin q' = f_kin`` are the kinematic differential equations (``q' =
    f_kin`` when ``identity``), ``M u' = F`` the dynamic equations and
    ``g`` the time derivative of the velocity constraints' ``m`` rows at
    ``u' = 0``. Returns the start of each block and the end: ``(f_kin, M,
    F, g, end)``; ``M_kin`` starts at 0."""
    f_kin = 0 if identity else nq * nq
    mass = f_kin + nq
    forcing = mass + nu * nu
    g = forcing + nu
    return f_kin, mass, forcing, g, g + m


# compiled_available()'s positive answer, once found
_AVAILABLE = []


def compiled_available():
    """True when both SymEngine and numba can be imported (checked without
    importing numba, which takes a noticeable fraction of a second; a
    positive answer is kept for the process)."""
    if not _AVAILABLE:
        if all(importlib.util.find_spec(name) is not None
               for name in ('symengine', 'numba')):
            _AVAILABLE.append(True)
    return bool(_AVAILABLE)


def resolve_backend(backend, argname='backend'):
    """``'compiled'`` or ``'numpy'`` for a user's ``backend`` argument:
    ``'auto'`` (the default) is compiled when SymEngine and numba import;
    ``'numba'`` is an alias of ``'compiled'``."""
    if backend is None:
        backend = 'auto'
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"{argname} must be one of 'auto', 'compiled' or "
                         f"'numpy', not {backend!r}.")
    if backend == 'numpy':
        return 'numpy'
    available = compiled_available()
    if backend == 'auto':
        return 'compiled' if available else 'numpy'
    if not available:
        raise ValueError(f"{argname}={backend!r} needs SymEngine and numba, "
                         f"which could not be imported; use "
                         f"{argname}='numpy' or install them.")
    return 'compiled'
