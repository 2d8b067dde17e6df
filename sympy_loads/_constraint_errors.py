"""Private: the failure reports of :class:`HolonomicConstraintSolver`.

When a solve fails, these functions find what went wrong (a singular
Jacobian with respect to the dependent coordinates, a Newton correction
that stays large at a multiple root, constraints that evaluate to NaN or
inf, no convergence) and raise a
:class:`~sympy_loads.constraints.ConstraintSolverError` that says so, with
the residual reached and the coordinates and constraints involved. They
take the solver as their first argument and only read it.
"""

import numpy as np
import scipy.linalg

from ._errors import ConstraintSolverError
from ._numeric import (CONVERGED as _CONVERGED,
                       MAX_ITERATIONS as _MAX_ITERATIONS,
                       NONFINITE as _NONFINITE, SINGULAR,
                       STALLED as _STALLED)

__all__ = []


def constraint_error(message, **details):
    """A :class:`~sympy_loads.ConstraintSolverError`."""
    return ConstraintSolverError(message, **details)


def singular_direction(solver, q, t):
    """Dependent coordinates and constraints spanning the smallest
    singular direction of ``Phi_qd`` at ``q``."""
    J = solver.jacobian(q, t)[:, list(solver._dep_index)]
    if J.size == 0:
        return (), (), 1.0
    U, s, Vt = np.linalg.svd(J)
    ratio = s[-1] / s[0] if s[0] > 0 else 0.0
    v = np.abs(Vt[len(s) - 1])
    coordinates = tuple(solver._dependent[k] for k in
                        np.nonzero(v > 0.1 * v.max())[0])
    u = np.abs(U[:, len(s) - 1])
    constraints = tuple(int(i) for i in np.nonzero(u > 0.1 * u.max())[0])
    return coordinates, constraints, ratio


#: The full Jacobian ``Phi_q`` counts as rank deficient (a singular
#: configuration of the mechanism, which no choice of dependent
#: coordinates removes) below this smallest/largest singular value ratio.
#: One threshold for every message that says so (the constraint solver's
#: and the simulation engine's), so that where a run stops does not decide
#: which of the two explanations it gives.
FULL_RANK_RATIO = 1e-5


def well_posed_choice(solver, q, t):
    """What the Jacobian with respect to *all* coordinates says where the
    dependent block is singular: a sentence naming dependent coordinates
    that would make the solve well posed there (the best conditioned set,
    by QR with column pivoting of ``Phi_q``: E. J. Haug, Computer Aided
    Kinematics and Dynamics of Mechanical Systems, sec. 6.3), or saying
    that the mechanism itself is singular there (``Phi_q`` loses rank)."""
    try:
        J = np.asarray(solver.jacobian(q, t), dtype=float)
    except Exception:          # a failure report must not fail itself
        return ''
    nd = len(solver._dep_index)
    if J.size == 0 or not np.all(np.isfinite(J)):
        return ''
    values = np.linalg.svd(J, compute_uv=False)
    full = values[min(nd, len(values)) - 1] / values[0] if values[0] > 0 \
        else 0.0
    if full < FULL_RANK_RATIO:
        return (f' The Jacobian with respect to all coordinates loses rank '
                f'there too (singular value ratio {full:.2g}): the '
                f'mechanism itself is singular, and no other choice of '
                f'dependent coordinates helps.')
    perm = scipy.linalg.qr(J, mode='r', pivoting=True)[1]
    chosen = sorted(int(k) for k in perm[:nd])
    if chosen == sorted(int(k) for k in solver._dep_index):
        return (f' The Jacobian with respect to all coordinates is nearly '
                f'rank deficient there (singular value ratio {full:.2g}) '
                f'and no other choice of dependent coordinates is better '
                f'conditioned: the mechanism itself is singular or close '
                f'to it.')
    best = [solver.coordinates[k] for k in chosen]
    return (f' The Jacobian with respect to all coordinates keeps its rank '
            f'there (singular value ratio {full:.2g}): only this choice of '
            f'dependent coordinates is singular; dependent coordinates '
            f'{best} would make the solve well posed.')


def raise_singular(solver, q, t, ratio, rows=(), residual=None,
                   iterations=None, prefix='', solution=None, status=None):
    """Raise the error of a singular dependent Jacobian at ``q``, naming
    the coordinates and constraints that lose rank and, where the
    Jacobian with respect to all coordinates keeps its rank, dependent
    coordinates that would make the solve well posed
    (:func:`well_posed_choice`)."""
    coordinates, constraints, _ = singular_direction(solver, q, t)
    where = (f' (batch rows {[int(i) for i in rows[:10]]})' if len(rows)
             else '')
    reached = ('' if residual is None else
               f' Largest residual {residual:.3g} (tolerance '
               f'{solver._tolerance:.3g}) after {iterations} iterations.')
    raise constraint_error(
        f'{prefix}the Jacobian of the constraints with respect to the '
        f'dependent coordinates is singular at t = {t}{where} (smallest/'
        f'largest pivot {ratio:.3g}): a toggle or locked configuration, '
        f'or one with no physically realizable solution. The rank is '
        f'lost in coordinates {list(coordinates)} through constraints '
        f'{list(constraints)} at q = {np.array2string(q, precision=6)}.'
        f'{well_posed_choice(solver, q, t)}{reached}', residual=residual,
        iterations=iterations,
        constraints=constraints, coordinates=coordinates, rows=rows,
        solution=solution, status=status)


def raise_position_failure(solver, x, t, status, iterations, residual,
                           ratio, rows=(), solution=None, status_array=None):
    """Raise the error of a failed position solve ending at ``x`` with
    the kernels' ``status``: a singular Jacobian, a correction that stays
    large, constraints that are not finite, or no convergence."""
    residual = float(residual)
    iterations = int(iterations)
    status = int(status)
    batch = dict(rows=rows, solution=solution, status=status_array)
    where = (f' (batch rows {[int(i) for i in rows[:10]]})' if len(rows)
             else '')
    phi = solver.residual(x, t) if np.isfinite(x).all() else None
    _, _, true_ratio = (singular_direction(solver, x, t)
                        if phi is not None else ((), (), 1.0))
    if status in (_CONVERGED, SINGULAR) or true_ratio < 1e-6:
        reason = {_CONVERGED: 'converged to ',
                  SINGULAR: 'converged to ',
                  _MAX_ITERATIONS: 'did not converge, ending near ',
                  _STALLED: 'stalled near ',
                  _NONFINITE: 'failed near '}[status]
        raise_singular(
            solver, x, t, min(ratio, true_ratio), residual=residual,
            iterations=iterations,
            prefix=f'Newton-Raphson {reason}a configuration where ',
            **batch)
    if (phi is not None and np.isfinite(phi).all()
            and status in (_MAX_ITERATIONS, _STALLED)
            and not (np.abs(phi) > solver._tolerance).any()):
        _raise_slow_correction(solver, x, t, phi, status, iterations,
                               residual, where, batch)
    if status == _NONFINITE or phi is None or not np.isfinite(
            phi).all():
        message = ('the constraints evaluate to NaN or inf (e.g. the '
                   'square root of a negative number)')
        worst = (() if phi is None else
                 tuple(int(i) for i in np.nonzero(~np.isfinite(phi))[0]))
    else:
        worst = tuple(int(i) for i in np.argsort(-np.abs(phi))
                      if abs(phi[i]) > solver._tolerance)
        message = {
            _MAX_ITERATIONS: f'Newton-Raphson did not converge in '
                             f'{iterations} iterations',
            _STALLED: f'Newton-Raphson stalled after {iterations} '
                      f'iterations (the residual no longer decreases: '
                      f'the constraints may have no solution near the '
                      f'guess)',
        }[status]
    raise constraint_error(
        f'{message} at t = {t}{where}: largest residual {residual:.3g} '
        f'(tolerance {solver._tolerance:.3g}) in constraints '
        f'{list(worst)}, solving for {list(solver._dependent)}.',
        residual=residual, iterations=iterations, constraints=worst,
        coordinates=solver._dependent, **batch)


def _raise_slow_correction(solver, x, t, phi, status, iterations,
                           residual, where, batch):
    """The residual is within the tolerance but the Newton correction
    did not become small: the dependent Jacobian is singular or nearly
    so at the root (a multiple root), whatever its pivot ratio (a 1x1
    Jacobian always has ratio 1)."""
    dep = list(solver._dep_index)
    J = solver.jacobian(x, t)[:, dep]
    singular_values = np.linalg.svd(J, compute_uv=False)
    correction = np.linalg.lstsq(J, -phi, rcond=None)[0]
    step = float(np.max(np.abs(correction), initial=0.0))
    scale = max(1.0, float(np.max(np.abs(x[dep]), initial=0.0)))
    coordinates, constraints, _ = singular_direction(solver, x, t)
    what = ('did not converge in' if status == _MAX_ITERATIONS else
            'stalled after')
    raise constraint_error(
        f'Newton-Raphson {what} {iterations} iterations at t = {t}'
        f'{where}: the largest residual {residual:.3g} is within the '
        f'tolerance {solver._tolerance:.3g}, but the Newton correction is '
        f'still {step:.3g} (step tolerance {solver._step_tolerance:.3g} '
        f'times {scale:.3g}), so the Jacobian of the constraints with '
        f'respect to the dependent coordinates is singular or nearly so '
        f'at this root (singular values {singular_values[-1]:.3g} to '
        f'{singular_values[0]:.3g}; a multiple root, e.g. a toggle '
        f'configuration). The weakest direction involves coordinates '
        f'{list(coordinates)} through constraints {list(constraints)} '
        f'at q = {np.array2string(x, precision=6)}.',
        residual=residual, iterations=iterations,
        constraints=constraints, coordinates=coordinates, **batch)
