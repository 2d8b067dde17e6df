"""Newton-Raphson and the velocity and acceleration solves of holonomic
constraints, compiled by numba once per installation.

The constraint functions are generated per model (:mod:`.codegen`) and
called through :func:`.jit.call` with their address, so these kernels are
the same for every model. Each works on the input vector ``x`` of the
generated function; ``pos`` gives the entries of ``x`` that hold the
dependent coordinates. Algorithm (Autodesk, "Dynamic Simulation:
Constraint Kinematics"): ``Phi_qd dq = -Phi`` solved in the least-squares
sense (QR with column pivoting, so redundant sets work), a backtracking
(Armijo) line search on ``|Phi|^2`` whose first step is at most
``max(1, |q_d|)``, convergence when the largest residual is at most
``tol`` and the last correction at most ``step_tol * max(1, |q_d|)``.
The iteration stops early as stalled when no step reduces ``|Phi|^2``, or
when :data:`STALL_ITERATIONS` accepted steps in a row reduce it by less
than the fraction :data:`STALL_DECREASE` (an unreachable configuration).

The constraint solver's kernels :func:`newton_packed` and
:func:`newton_batch` call :func:`newton` by its address in their ``fn``
(:func:`with_newton`, :func:`.jit.native_caller`), so numba compiles
Newton-Raphson and its QR solve once (in the constraint solves' group of
:mod:`.kernel_set`), not again into each of them; :func:`.rhs.correct`
calls it by address too (:func:`address`).
"""

import numpy as np
from numba import types

from . import (ARMIJO, BAD_INPUT, CONVERGED, LINE_SEARCH_HALVINGS,
               MAX_ITERATIONS, MAX_STEP, NONFINITE, RANK_RATIO, SINGULAR,
               SINGULAR_RATIO, STALLED, STALL_DECREASE, STALL_ITERATIONS)
from .jit import call, jit, native_caller
from .linalg import qr_solve

__all__ = []

# the argument types of newton(): those of every caller (rhs.correct
# included), and those newton_packed and newton_batch call it with by
# address
_V, _I = types.float64[::1], types.int64[::1]
NEWTON_TYPES = (types.int64, types.int64, _V, _I, types.int64,
                types.float64, types.float64, types.int64, _V, _V, _I)
# the solver's fn (with_newton): the resjac function's address and data
# pointer, then newton()'s address
FN_NEWTON, FN_SIZE = 2, 3
# newton() called by address (here and in .rhs.correct)
call_newton = native_caller(NEWTON_TYPES)
_SHORT_FN = "fn lacks newton's address (newton.with_newton)"


def newton_work_size(nc, nd):
    """Length of the float workspace of :func:`newton`."""
    return 3 * nc * nd + 2 * (nc + nc * nd) + 2 * nc + 2 * nd


@jit
def newton(address, data, x, pos, nc, tol, step_tol, maxit, info, work,
           iwork):
    """Solve ``Phi(x) = 0`` for the entries ``x[pos]`` in place.

    The function at ``address`` writes ``[Phi (nc), Phi_qd (nc x nd, row
    major)]``. ``info`` receives the iterations, the largest residual and
    the smallest/largest pivot ratio of the last Jacobian; ``work`` (float,
    :func:`newton_work_size`) and ``iwork`` (int, ``nd``) are workspace.
    Returns a status code; on failure ``x`` holds the last accepted
    iterate."""
    nd = pos.shape[0]
    info[0] = 0.0
    info[1] = np.nan
    info[2] = 0.0
    for j in range(x.shape[0]):
        if not np.isfinite(x[j]):
            return BAD_INPUT
    size = nc + nc * nd
    cur = work[0:size]
    trial = work[size:2 * size]
    start = 2 * size
    R = work[start:start + nc * nd].reshape((nc, nd))
    start += nc * nd
    rhs = work[start:start + nc]
    v = work[start + nc:start + 2 * nc]
    start += 2 * nc
    dx = work[start:start + nd]
    xs = work[start + nd:start + 2 * nd]
    call(address, data, cur, x)
    r = 0.0
    f = 0.0
    for i in range(nc):
        r = max(r, abs(cur[i]))
        f += cur[i] * cur[i]
    info[1] = r
    if not np.isfinite(f):
        return NONFINITE
    it = 0
    stalls = 0
    while True:
        for i in range(nc):
            rhs[i] = -cur[i]
            for k in range(nd):
                R[i, k] = cur[nc + i * nd + k]
        ratio = qr_solve(R, rhs, dx, iwork, v, RANK_RATIO)
        step = 0.0
        scale = 1.0
        for k in range(nd):
            step = max(step, abs(dx[k]))
            scale = max(scale, abs(x[pos[k]]))
        info[0] = it
        info[1] = r
        info[2] = ratio
        if r <= tol and step <= step_tol * scale:
            for k in range(nd):
                x[pos[k]] += dx[k]
            return CONVERGED
        if it >= maxit:
            return MAX_ITERATIONS
        alpha = 1.0
        if step > MAX_STEP * scale:
            alpha = MAX_STEP * scale / step
        for k in range(nd):
            xs[k] = x[pos[k]]
        accepted = False
        ft = 0.0
        for _ in range(LINE_SEARCH_HALVINGS):
            for k in range(nd):
                x[pos[k]] = xs[k] + alpha * dx[k]
            call(address, data, trial, x)
            ft = 0.0
            for i in range(nc):
                ft += trial[i] * trial[i]
            if np.isfinite(ft) and ft <= (1.0 - 2.0 * ARMIJO * alpha) * f:
                accepted = True
                break
            alpha *= 0.5
        if not accepted:
            for k in range(nd):
                x[pos[k]] = xs[k]
            return STALLED
        it += 1
        r = 0.0
        for i in range(size):
            cur[i] = trial[i]
        for i in range(nc):
            r = max(r, abs(cur[i]))
        if f - ft <= STALL_DECREASE * f:
            stalls += 1
            if stalls >= STALL_ITERATIONS:
                info[0] = it
                info[1] = r
                return STALLED
        else:
            stalls = 0
        f = ft


@jit
def newton_packed(fn, x, ints, buf):
    """:func:`newton` with its arguments packed into four arrays (numba's
    dispatcher costs time per argument, which matters for a single solve
    of a few microseconds): ``fn = [address, data, newton's address]``
    (:func:`with_newton`), ``ints = [pos (nd), iwork (nd)]``, ``buf = [nc,
    tol, step_tol, max_iterations, info (3), work...]``. A converged solve
    whose Jacobian is singular (pivot ratio below ``SINGULAR_RATIO``)
    returns ``SINGULAR``."""
    if fn.shape[0] < FN_SIZE:
        raise ValueError(_SHORT_FN)
    nd = ints.shape[0] // 2
    status = call_newton(fn[FN_NEWTON], (
        fn[0], fn[1], x, ints[:nd], int(buf[0]), buf[1], buf[2],
        int(buf[3]), buf[4:7], buf[7:], ints[nd:]))
    if status == CONVERGED and buf[6] < SINGULAR_RATIO:
        return SINGULAR
    return status


@jit
def newton_batch(fn, X, pos, nc, tol, step_tol, maxit):
    """:func:`newton` on every row of ``X`` (in place), ``fn`` as in
    :func:`newton_packed`; returns the status codes and the info rows."""
    if fn.shape[0] < FN_SIZE:
        raise ValueError(_SHORT_FN)
    m = X.shape[0]
    nd = pos.shape[0]
    status = np.empty(m, dtype=np.int64)
    info = np.empty((m, 3))
    work = np.zeros(3 * nc * nd + 2 * (nc + nc * nd) + 2 * nc + 2 * nd)
    iwork = np.zeros(max(nd, 1), dtype=np.int64)
    for row in range(m):
        status[row] = call_newton(fn[FN_NEWTON], (
            fn[0], fn[1], X[row], pos, nc, tol, step_tol, maxit, info[row],
            work, iwork))
    return status, info


# newton()'s address in this process, found at the first address()
_ADDRESS = []


def with_newton(function):
    """The ``fn`` of :func:`newton_packed` and :func:`newton_batch` for the
    generated function ``function`` (its address and data pointer),
    followed by the address of the compiled :func:`newton` (loaded, or
    compiled, at the first call in a process), which they call by address.
    Call it after :func:`.kernel_set.ensure_compiled`, so that a first
    compilation is announced."""
    return np.array([function.address, function.data, address()],
                    dtype=np.int64)


def address():
    """The address of the compiled :func:`newton` in this process (loaded,
    or compiled, at the first call), for the kernels that call it by
    address: :func:`newton_packed`, :func:`newton_batch` and
    :func:`.rhs.correct`."""
    if not _ADDRESS:
        from .jit import native_address
        _ADDRESS.append(native_address(newton, NEWTON_TYPES))
    return _ADDRESS[0]


@jit
def rates(address, data, x, n, nc, dep, ind, known, second, out, work,
          iwork):
    """Dependent velocities (``second`` False) or accelerations (True).

    The function at ``address`` writes ``[Phi_q (nc x n), Phi_t (nc),
    gamma (nc)]`` at ``x`` (which holds the coordinates and, for
    accelerations, the velocities); ``known`` has the independent rates.
    Solves ``Phi_qd r_d = rhs - Phi_qi r_i`` with ``rhs = -Phi_t`` or
    ``gamma`` and writes the full rate vector into ``out``. Returns the
    pivot ratio, -1.0 for a non-finite input."""
    for j in range(x.shape[0]):
        if not np.isfinite(x[j]):
            return -1.0
    for j in range(n):
        if not np.isfinite(known[j]):
            return -1.0
    nd = dep.shape[0]
    buf = work[0:nc * n + 2 * nc]
    A = work[nc * n + 2 * nc:nc * n + 2 * nc + nc * nd].reshape((nc, nd))
    start = nc * n + 2 * nc + nc * nd
    rhs = work[start:start + nc]
    v = work[start + nc:start + 2 * nc]
    dx = work[start + 2 * nc:start + 2 * nc + nd]
    call(address, data, buf, x)
    for j in range(n):
        out[j] = known[j]
    for i in range(nc):
        if second:
            rhs[i] = buf[nc * n + nc + i]
        else:
            rhs[i] = -buf[nc * n + i]
        for k in range(ind.shape[0]):
            rhs[i] -= buf[i * n + ind[k]] * known[ind[k]]
        for k in range(nd):
            A[i, k] = buf[i * n + dep[k]]
    ratio = qr_solve(A, rhs, dx, iwork, v, RANK_RATIO)
    for k in range(nd):
        out[dep[k]] = dx[k]
    return ratio


def rates_work_size(n, nc, nd):
    """Length of the float workspace of :func:`rates`."""
    return nc * n + 4 * nc + nc * nd + nd


@jit
def rates_batch(address, data, X, n, nc, dep, ind, KNOWN, second):
    """:func:`rates` on every row; returns the rates and pivot ratios."""
    m = X.shape[0]
    nd = dep.shape[0]
    out = np.empty((m, n))
    ratio = np.empty(m)
    work = np.zeros(nc * n + 4 * nc + nc * nd + nd)
    iwork = np.zeros(max(nd, 1), dtype=np.int64)
    for row in range(m):
        ratio[row] = rates(address, data, X[row], n, nc, dep, ind,
                           KNOWN[row], second, out[row], work, iwork)
    return out, ratio
