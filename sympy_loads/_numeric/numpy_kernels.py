"""NumPy twins of the compiled kernels: the same algorithms in vectorized
NumPy on any :class:`.codegen.GeneratedFunction` (``f(X)`` on a batch of
input rows). They serve where numba or SymEngine cannot be imported and
are tested against the compiled kernels.
"""

import math

import numpy as np

from . import (ARMIJO, BAD_INPUT, CONVERGED, LINE_SEARCH_HALVINGS,
               MAX_ITERATIONS, MAX_STEP, NONFINITE, RANK_RATIO, STALL_DECREASE,
               STALL_ITERATIONS, STALLED, eom_blocks)

__all__ = []


def lstsq_batch(A, b):
    """Least-squares solutions of a stack ``A (m, r, k) x = b (m, r)`` via
    SVD, dropping relative singular values below ``RANK_RATIO``; also the
    smallest/largest singular value ratio per row (0 when rank
    deficient)."""
    m, _, k = A.shape
    if k == 0:
        return np.zeros((m, 0)), np.ones(m)
    with np.errstate(all='ignore'):
        try:
            U, s, Vt = np.linalg.svd(A, full_matrices=False)
        except np.linalg.LinAlgError:     # NaN entries
            return np.full((m, k), np.nan), np.zeros(m)
        smax = s[:, :1]
        keep = s > RANK_RATIO * smax
        inv = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
        coeff = np.einsum('mij,mi->mj', U, b) * inv
        x = np.einsum('mji,mj->mi', Vt, coeff)
        ratio = np.where(smax[:, 0] > 0, s[:, -1] / smax[:, 0], 0.0)
        ratio = np.where(keep.all(axis=1), ratio, 0.0)
    return x, ratio


def newton_batch(function, X, pos, nc, tol, step_tol, maxit):
    """Damped Newton-Raphson on the columns ``pos`` of every row of ``X``
    (in place), all rows together: the algorithm of
    :func:`.newton.newton`. Returns the status codes and info rows
    (iterations, largest residual, pivot ratio)."""
    m = X.shape[0]
    nd = len(pos)
    status = np.full(m, MAX_ITERATIONS, dtype=np.int64)
    info = np.zeros((m, 3))
    bad = ~np.isfinite(X).all(axis=1)
    status[bad] = BAD_INPUT
    info[bad, 1] = np.nan
    pos = np.asarray(pos, dtype=np.int64)
    # Only the rows still iterating (indices ``rows`` into X) are evaluated,
    # so a batch whose rows converge at different speeds costs what its
    # slow rows need, not that times the batch size.
    rows = np.nonzero(~bad)[0]
    if not len(rows):
        return status, info
    with np.errstate(all='ignore'):
        values = function(X[rows]).reshape(len(rows), -1)
        f = np.sum(values[:, :nc] ** 2, axis=1)
        info[rows, 1] = np.max(np.abs(values[:, :nc]), axis=1, initial=0.0)
        finite = np.isfinite(f)
        status[rows[~finite]] = NONFINITE
        rows, values, f = rows[finite], values[finite], f[finite]
        stalls = np.zeros(len(rows), dtype=np.int64)
        for it in range(maxit + 1):
            if not len(rows):
                break
            k = len(rows)
            phi = values[:, :nc]
            r = np.max(np.abs(phi), axis=1, initial=0.0)
            dx, ratio = lstsq_batch(values[:, nc:].reshape(k, nc, nd), -phi)
            xd = X[rows[:, None], pos]
            step = np.max(np.abs(dx), axis=1, initial=0.0)
            scale = np.max(np.abs(xd), axis=1, initial=1.0)
            info[rows, 0] = it
            info[rows, 1] = r
            info[rows, 2] = ratio
            done = (r <= tol) & (step <= step_tol * scale)
            X[rows[done][:, None], pos] = xd[done] + dx[done]
            status[rows[done]] = CONVERGED
            if it == maxit:
                break
            go = ~done
            rows, values, f, stalls = rows[go], values[go], f[go], stalls[go]
            dx, xd, step, scale = dx[go], xd[go], step[go], scale[go]
            if not len(rows):
                break
            alpha = np.minimum(1.0, MAX_STEP * scale / np.maximum(step,
                                                                  1e-300))
            searching = np.ones(len(rows), dtype=bool)
            new_values = values.copy()
            new_f = f.copy()
            for _ in range(LINE_SEARCH_HALVINGS):
                s = np.nonzero(searching)[0]
                Xt = X[rows[s]]
                Xt[:, pos] = xd[s] + alpha[s, None] * dx[s]
                trial = function(Xt).reshape(len(s), -1)
                ft = np.sum(trial[:, :nc] ** 2, axis=1)
                ok = np.isfinite(ft) & (
                    ft <= (1 - 2 * ARMIJO * alpha[s]) * f[s])
                accepted = s[ok]
                new_values[accepted] = trial[ok]
                new_f[accepted] = ft[ok]
                X[rows[accepted][:, None], pos] = Xt[ok][:, pos]
                searching[accepted] = False
                if not searching.any():
                    break
                alpha[s[~ok]] *= 0.5
            # no step reduces |Phi|^2: stalled at the last accepted iterate
            status[rows[searching]] = STALLED
            # too little progress too often: stalled (see .newton)
            tiny = f - new_f <= STALL_DECREASE * f
            stalls = np.where(tiny, stalls + 1, 0)
            crept = ~searching & (stalls >= STALL_ITERATIONS)
            status[rows[crept]] = STALLED
            info[rows[crept], 0] = it + 1
            info[rows[crept], 1] = np.max(np.abs(new_values[crept, :nc]),
                                          axis=1, initial=0.0)
            go = ~searching & ~crept
            rows, values, f = rows[go], new_values[go], new_f[go]
            stalls = stalls[go]
    return status, info


def newton(function, x, pos, nc, tol, step_tol, maxit):
    """:func:`newton_batch` for one input vector (in place); returns the
    status and the info row. Square systems use an LU solve, cheaper
    than an SVD, with the SVD where it fails."""
    nd = len(pos)
    if not np.isfinite(x).all():
        return BAD_INPUT, np.array([0.0, np.nan, 0.0])
    with np.errstate(all='ignore'):
        values = function(x)
        phi, jd = values[:nc], values[nc:].reshape(nc, nd)
        f = float(phi @ phi)
        r = float(np.max(np.abs(phi), initial=0.0))
        if not math.isfinite(f):
            return NONFINITE, np.array([0.0, r, 0.0])
        it = 0
        stalls = 0
        while True:
            dx = None
            if nc == nd:
                try:
                    dx = np.linalg.solve(jd, -phi)
                except np.linalg.LinAlgError:
                    dx = None
            ratio = None
            if dx is None or not np.isfinite(dx).all():
                dx, ratio = lstsq_batch(jd[None], -phi[None])
                dx, ratio = dx[0], float(ratio[0])
            step = float(np.max(np.abs(dx), initial=0.0))
            scale = float(np.max(np.abs(x[pos]), initial=1.0))
            done = r <= tol and step <= step_tol * scale
            if done or it >= maxit:
                if ratio is None:
                    ratio = _pivot_ratio(jd)
                info = np.array([it, r, ratio], dtype=float)
                if done:
                    x[pos] += dx
                    return CONVERGED, info
                return MAX_ITERATIONS, info
            alpha = 1.0
            if step > MAX_STEP * scale:
                alpha = MAX_STEP * scale / step
            saved = x[pos].copy()
            for _ in range(LINE_SEARCH_HALVINGS):
                x[pos] = saved + alpha * dx
                trial = function(x)
                ft = float(trial[:nc] @ trial[:nc])
                if math.isfinite(ft) and ft <= (
                        1.0 - 2.0 * ARMIJO * alpha) * f:
                    break
                alpha *= 0.5
            else:
                x[pos] = saved
                return STALLED, np.array([it, r, _pivot_ratio(jd)])
            it += 1
            values = trial
            phi, jd = values[:nc], values[nc:].reshape(nc, nd)
            r = float(np.max(np.abs(phi), initial=0.0))
            if f - ft <= STALL_DECREASE * f:   # see .newton
                stalls += 1
                if stalls >= STALL_ITERATIONS:
                    return STALLED, np.array([it, r, _pivot_ratio(jd)])
            else:
                stalls = 0
            f = ft


def _pivot_ratio(J):
    """Smallest/largest singular value of ``J`` (1 when empty)."""
    if J.size == 0:
        return 1.0
    s = np.linalg.svd(J, compute_uv=False)
    return float(s[-1] / s[0]) if s[0] > 0 else 0.0


def rates_batch(function, X, n, nc, dep, ind, KNOWN, second):
    """The dependent velocities or accelerations of every row (the
    algorithm of :func:`.newton.rates`, by SVD least squares); returns
    the full rates and the pivot ratios (-1 for a non-finite row)."""
    m = X.shape[0]
    bad = ~(np.isfinite(X).all(axis=1) & np.isfinite(KNOWN).all(axis=1))
    with np.errstate(all='ignore'):
        values = function(X)
        J = values[:, :nc * n].reshape(m, nc, n)
        rhs = (values[:, nc * n + nc:] if second else
               -values[:, nc * n:nc * n + nc])
        rhs = rhs - np.einsum('mij,mj->mi', J[:, :, ind], KNOWN[:, ind])
        x, ratio = lstsq_batch(J[:, :, dep], rhs)
    out = KNOWN.copy()
    out[:, dep] = x
    ratio = np.where(bad, -1.0, ratio)
    return out, ratio


# -- simulate()'s right-hand side (the twins of .rhs) -------------------------

def dependent_speeds(vel, u, nu, m, uind, udep):
    """The speeds ``u`` with the dependent ones solved from ``K u + k =
    0`` (``vel = [K (m x nu), k (m)]``, from the ``vel`` function).
    Raises ``numpy.linalg.LinAlgError`` when ``K_d`` is singular."""
    K = vel[:m * nu].reshape(m, nu)
    b = -(K[:, uind] @ u[uind] + vel[m * nu:])
    u = u.copy()
    u[udep] = np.linalg.solve(K[:, udep], b)
    if not np.isfinite(u).all():
        raise np.linalg.LinAlgError('singular velocity constraints')
    return u


def derivatives(e, vel, nq, nu, m, identity, uind, udep, columns=None):
    """``(q', u')`` from the ``eom`` output ``e`` (and ``vel`` when there
    are dependent speeds): the elimination of :func:`.rhs.derivatives`
    with ``numpy.linalg``. With ``columns`` (nu x r: generalized forces
    or impulses) also the change of all speeds per unit of each, ``A = C
    (C^T M C)^-1 C^T columns`` (``M^-1 columns`` without dependent
    speeds), solved with the same factorisation: ``(q', u', A)``. Raises
    ``numpy.linalg.LinAlgError`` for a singular kinematic, mass or
    constraint matrix."""
    f_kin, mass, forcing, g0, end = eom_blocks(nq, nu, m, identity)
    if identity:
        qdot = e[:nq].copy()
    else:
        qdot = np.linalg.solve(e[:f_kin].reshape(nq, nq), e[f_kin:mass])
    M = e[mass:forcing].reshape(nu, nu)
    F = e[forcing:g0]
    if m == 0:
        if columns is None:
            return qdot, np.linalg.solve(M, F)
        both = np.linalg.solve(M, np.column_stack([F, columns]))
        return qdot, both[:, 0], both[:, 1:]
    g = e[g0:end]
    K = vel[:m * nu].reshape(m, nu)
    Kd = K[:, udep]
    Z = -np.linalg.solve(Kd, K[:, uind])
    d = -np.linalg.solve(Kd, g)
    C = np.zeros((nu, nu - m))
    C[uind, np.arange(nu - m)] = 1.0
    C[udep] = Z
    shift = np.zeros(nu)
    shift[udep] = d
    free = C.T @ (F - M @ shift)
    if columns is None:
        udot_i = np.linalg.solve(C.T @ M @ C, free)
        return qdot, C @ udot_i + shift
    both = np.linalg.solve(C.T @ M @ C,
                           np.column_stack([free, C.T @ columns]))
    return qdot, C @ both[:, 0] + shift, C @ both[:, 1:]
