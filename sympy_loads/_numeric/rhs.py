"""The right-hand side of ``simulate()``, compiled by numba once per
installation.

A model is three generated functions of the input vector ``x = [t, q (nq),
u (nu), c, s]`` (:mod:`.codegen`), passed by address in ``fn = [hol
address, hol data, vel address, vel data, eom address, eom data]``:

``hol``
    ``[f_h (nh), df_h/dq_d (nh x nqd)]``, the holonomic constraints and
    their Jacobian in the dependent coordinates;
``vel``
    ``[K (m x nu), k (m)]``, the velocity constraints ``K u + k = 0``;
``eom``
    ``[MK (nq x nq, absent when it is the identity), fk (nq), M (nu x
    nu), F (nu), g (m)]``: the kinematic equations ``MK q' = fk``, the
    *unconstrained* dynamic equations ``M u' = F`` (every speed taken as
    independent) and ``g = K' u + k'``, so that the acceleration
    constraints read ``K u' + g = 0``.

The kernels below take that table followed by the addresses of
:func:`correct`, :func:`derivatives` and Newton-Raphson
(:func:`with_calls`), which they call by address: so numba compiles the
constraint correction, Newton-Raphson and the equations' solve once each,
not again into every kernel that calls them.

One evaluation (coordinate partitioning, Wehage and Haug 1982): Newton-
Raphson on the dependent coordinates from the guess in the state
(:func:`.newton.newton`), the dependent speeds from the velocity
constraints, ``q'`` from the kinematic equations, and ``u'`` by eliminating
the dependent speeds numerically: with ``u = C u_i + c0``,
``C = [I; -K_d^-1 K_i]`` and ``u'_d = Z u'_i + d``, ``Z = -K_d^-1 K_i``,
``d = -K_d^-1 g``, Kane's equations with nonholonomic partial velocities
are ``C^T M C u'_i = C^T (F - M [0; d])`` [Kane1985]_. No symbolic
inverse is formed, so nothing is 0/0 where ``K_d`` is regular.

``dims = [nq, nu, nh, nqd, m, kinematics_is_identity]``; ``idx =
[positions in x of the dependent coordinates (nqd), independent speeds
(nu - m), dependent speeds (m)]`` (speeds as indices into ``u``);
``opts = [tol, step_tol, max_iterations, branch, partition threshold,
scale of Phi_q, scale of K]`` (the Newton iteration's options, the
assembly branch followed, see :func:`correct`, the threshold below which
:func:`rhs` reports that a change of partition is due, 0 for never, and
the largest column norms of the full ``Phi_q`` and ``K`` where the
partition was chosen) and ``info = [iterations, residual, pivot ratio of
Phi_qd, status, measure of Phi_qd, measure of K_d]``. A block's *measure*
is its smallest pivot (QR with column pivoting for ``Phi_qd``, LU with
partial pivoting for ``K_d``) over that scale: unlike the block's own
pivot ratio it also falls where a block shrinks as a whole (a single
dependent coordinate or speed).

The partition (``idx`` and the ``hol`` function, whose Jacobian columns are
those of the dependent coordinates) is the caller's: the engine may choose
another than the model's and change it during a run
(:mod:`sympy_loads._simulation.partition`); these kernels only read it.

.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, 1985, sec. 4.4 and 6.1 (nonholonomic partial velocities,
   Kane's equations for nonholonomic systems).
"""

import numpy as np
from numba import types

from . import (BRANCH_CHANGED, MASS_SINGULAR, NEWTON_FAILED, NOT_FINITE, OK,
               PARTITION_DUE, PIVOT_HANDOVER, VELOCITY_SINGULAR)
from . import eom_blocks as _eom_blocks
from .jit import call, inline, jit, native_caller
from .linalg import lu_factor, lu_solve
from .newton import address as newton_address, call_newton

__all__ = []

# the layout of the equations-of-motion vector, compiled from its one
# definition (sympy_loads._numeric.eom_blocks)
eom_blocks = jit(_eom_blocks)

# the argument types of rhs_packed and inputs_packed: those of every caller
# (C-contiguous float64 and int64 vectors), and those the DOP853 stepping
# calls them with by address (.jit.native_caller)
RHS_PACKED_TYPES = (types.float64, types.float64[::1], types.float64[::1],
                    types.int64[::1], types.int64[::1], types.float64[::1],
                    types.float64[::1])
INPUTS_PACKED_TYPES = RHS_PACKED_TYPES[:-1]
# the argument types of correct() and derivatives(), which the kernels
# below call by address (so numba does not link and optimize Newton's
# method, the solves and the equations of motion again into each of them)
_V, _I = types.float64[::1], types.int64[::1]
CORRECT_TYPES = (_V, _I, _I, _I, _V, _V, _V, _I)
DERIVATIVES_TYPES = (_V, _I, _I, _I, types.int64, _V)
# the right-hand side's fn (with_calls): the model's six entries, then the
# addresses of correct(), derivatives() and Newton-Raphson (.newton.newton,
# which correct() calls by address: it is compiled once, in the constraint
# solves' group of .kernel_set, not linked into correct() again)
FN_CORRECT, FN_DERIVATIVES, FN_NEWTON, FN_MODEL_SIZE = 6, 7, 8, 9
_correct = native_caller(CORRECT_TYPES)
_derivatives = native_caller(DERIVATIVES_TYPES)

# the dependent block of the velocity constraints counts as singular below
# this smallest/largest pivot ratio (the diagnosing path then reports it)
VELOCITY_RATIO = 1e-12


@inline
def branch_sign(work, nc, nd, perm):
    """Sign of ``det(Phi_qd)`` from the Jacobian that :func:`newton` left
    at the start of ``work`` (square sets only; 0.0 when singular). The
    scratch part of ``work`` holds the factors."""
    size = nc + nc * nd
    A = work[2 * size:2 * size + nd * nd].reshape((nd, nd))
    for i in range(nd):
        for k in range(nd):
            A[i, k] = work[nc + i * nd + k]
    if not lu_factor(A, nd, perm) > 0.0:
        return 0.0
    sign = 1.0
    cycles = 0
    for k in range(nd):
        if A[k, k] < 0.0:
            sign = -sign
        # k is the smallest index of its cycle of the row permutation
        j = perm[k]
        while j > k:
            j = perm[j]
        if j == k:
            cycles += 1
    if (nd - cycles) % 2:     # an odd permutation
        sign = -sign
    return sign


@jit
def correct(x, fn, dims, idx, opts, info, work, iwork):
    """Solve the dependent coordinates and speeds in ``x`` in place;
    returns a status code. ``opts = [tol, step_tol, max_iterations,
    branch, threshold, scales...]``: a nonzero ``branch`` is the sign of
    ``det(Phi_qd)`` on the assembly branch being followed, and a solution
    on the other side of a singular configuration is refused; the
    measures of the dependent blocks go to ``info[4]`` and ``info[5]``
    (see the module documentation)."""
    nq, nu, nh, nqd, m = dims[0], dims[1], dims[2], dims[3], dims[4]
    ni = nu - m
    info[2] = 1.0
    info[4] = 1.0
    info[5] = 1.0
    if nh > 0:
        status = call_newton(fn[FN_NEWTON], (
            fn[0], fn[1], x, idx[:nqd], nh, opts[0], opts[1], int(opts[2]),
            info, work, iwork))
        if status != 0 or not info[2] >= PIVOT_HANDOVER:
            return NEWTON_FAILED
        if opts[5] > 0.0 and nqd > 0:
            # the last Jacobian's QR factors are at the start of the
            # scratch part of work (newton's R)
            start = 2 * (nh + nh * nqd)
            smallest = np.inf
            for k in range(nqd):
                smallest = min(smallest, abs(work[start + k * nqd + k]))
            info[4] = smallest / opts[5]
        if opts[3] != 0.0 and nh == nqd:
            if branch_sign(work, nh, nqd, iwork) != opts[3]:
                return BRANCH_CHANGED
    if m > 0:
        vel = np.empty(m * nu + m)
        call(fn[2], fn[3], vel, x)
        uind = idx[nqd:nqd + ni]
        udep = idx[nqd + ni:nqd + nu]
        A = np.empty((m, m))
        b = np.empty(m)
        sol = np.empty(m)
        perm = np.empty(m, dtype=np.int64)
        for i in range(m):
            b[i] = -vel[m * nu + i]
            for k in range(ni):
                b[i] -= vel[i * nu + uind[k]] * x[1 + nq + uind[k]]
            for j in range(m):
                A[i, j] = vel[i * nu + udep[j]]
        ratio = lu_factor(A, m, perm)
        if opts[6] > 0.0:
            smallest = np.inf
            for j in range(m):
                smallest = min(smallest, abs(A[j, j]))
            info[5] = smallest / opts[6]
        if not ratio >= VELOCITY_RATIO:
            return VELOCITY_SINGULAR
        lu_solve(A, m, perm, b, sol)
        for j in range(m):
            x[1 + nq + udep[j]] = sol[j]
    return OK


@jit
def speed_basis(x, fn, idx, nu, m, nqd, Kd, permd, Z):
    """``Z = -K_d^-1 K_i`` (``m x (nu - m)``) at the state in ``x``, so
    that the speeds on the velocity constraints are ``u_d = Z u_i + ...``;
    ``K_d`` is left factored in ``Kd`` (row order in ``permd``). Returns
    OK or VELOCITY_SINGULAR."""
    ni = nu - m
    uind = idx[nqd:nqd + ni]
    udep = idx[nqd + ni:nqd + nu]
    vel = np.empty(m * nu + m)
    call(fn[2], fn[3], vel, x)
    for i in range(m):
        for j in range(m):
            Kd[i, j] = vel[i * nu + udep[j]]
    if not lu_factor(Kd, m, permd) >= VELOCITY_RATIO:
        return VELOCITY_SINGULAR
    column = np.empty(m)
    sol = np.empty(m)
    for k in range(ni):
        for i in range(m):
            column[i] = -vel[i * nu + uind[k]]
        lu_solve(Kd, m, permd, column, sol)
        for i in range(m):
            Z[i, k] = sol[i]
    return OK


@jit
def derivatives(x, fn, dims, idx, eom_size, out):
    """``q'`` and ``u'`` (all speeds) at the consistent state in ``x``,
    into ``out[:nq]`` and ``out[nq:]``; returns a status code."""
    nq, nu, nqd, m = dims[0], dims[1], dims[3], dims[4]
    identity = dims[5] != 0
    ni = nu - m
    e = np.empty(eom_size)
    call(fn[4], fn[5], e, x)
    f_kin, mass, forcing, g0, end = eom_blocks(nq, nu, m, identity)
    if identity:
        for i in range(nq):
            out[i] = e[i]
    else:
        MK = np.empty((nq, nq))
        for i in range(nq):
            for j in range(nq):
                MK[i, j] = e[i * nq + j]
        perm = np.empty(nq, dtype=np.int64)
        if not lu_factor(MK, nq, perm) > 0.0:
            return MASS_SINGULAR
        lu_solve(MK, nq, perm, e[f_kin:mass], out[:nq])
    M = e[mass:forcing].reshape((nu, nu))
    F = e[forcing:g0]
    g = e[g0:end]
    if m == 0:
        A = M.copy()
        perm = np.empty(nu, dtype=np.int64)
        if not lu_factor(A, nu, perm) > 0.0:
            return MASS_SINGULAR
        lu_solve(A, nu, perm, F, out[nq:nq + nu])
        return OK
    uind = idx[nqd:nqd + ni]
    udep = idx[nqd + ni:nqd + nu]
    Kd = np.empty((m, m))
    permd = np.empty(m, dtype=np.int64)
    Z = np.empty((m, ni))
    if speed_basis(x, fn, idx, nu, m, nqd, Kd, permd, Z) != OK:
        return VELOCITY_SINGULAR
    # d = -Kd^-1 g
    column = np.empty(m)
    for i in range(m):
        column[i] = -g[i]
    d = np.empty(m)
    lu_solve(Kd, m, permd, column, d)
    # A = M C (nu x ni); Mh = C^T A; Fh = C^T (F - M [0; d])
    A = np.empty((nu, ni))
    for a in range(nu):
        for k in range(ni):
            total = M[a, uind[k]]
            for j in range(m):
                total += M[a, udep[j]] * Z[j, k]
            A[a, k] = total
    r = np.empty(nu)
    for a in range(nu):
        total = F[a]
        for j in range(m):
            total -= M[a, udep[j]] * d[j]
        r[a] = total
    Mh = np.empty((ni, ni))
    Fh = np.empty(ni)
    for k1 in range(ni):
        for k2 in range(ni):
            total = A[uind[k1], k2]
            for j in range(m):
                total += Z[j, k1] * A[udep[j], k2]
            Mh[k1, k2] = total
        total = r[uind[k1]]
        for j in range(m):
            total += Z[j, k1] * r[udep[j]]
        Fh[k1] = total
    permi = np.empty(ni, dtype=np.int64)
    if not lu_factor(Mh, ni, permi) > 0.0:
        return MASS_SINGULAR
    udi = np.empty(ni)
    lu_solve(Mh, ni, permi, Fh, udi)
    for k in range(ni):
        out[nq + uind[k]] = udi[k]
    for j in range(m):
        total = d[j]
        for k in range(ni):
            total += Z[j, k] * udi[k]
        out[nq + udep[j]] = total
    return OK


@inline
def load_state(y, x, dims, idx, partitioned):
    """Copy the integrator state ``y`` into ``x`` (dependent speeds of a
    partitioned state are left to :func:`correct`)."""
    nq, nu, nqd, m = dims[0], dims[1], dims[3], dims[4]
    for i in range(nq):
        x[1 + i] = y[i]
    if partitioned:
        ni = nu - m
        for k in range(ni):
            x[1 + nq + idx[nqd + k]] = y[nq + k]
    else:
        for i in range(nu):
            x[1 + nq + i] = y[nq + i]


@inline
def rhs(t, y, x, fn, dims, idx, opts, partitioned, eom_size, info, work,
        iwork, ydot):
    """The whole right-hand side: ``ydot`` of the integrator state ``y``
    (``[q, u]``, or ``[q, u_i]`` when ``partitioned``). ``x`` holds the
    constants and inputs; ``info[3]`` receives the status code. Where
    ``opts[4] > 0`` and a measure of the dependent blocks (``info[4]``,
    ``info[5]``) is below it, the status is PARTITION_DUE (the derivatives
    are not computed): the compiled DOP853 then shortens its steps until it
    stops at the threshold, where the caller chooses another partition."""
    nq, nu, nqd, m = dims[0], dims[1], dims[3], dims[4]
    x[0] = t
    load_state(y, x, dims, idx, partitioned)
    status = _correct(fn[FN_CORRECT], (x, fn, dims, idx, opts, info, work,
                                       iwork))
    if status == OK and opts[4] > 0.0 and (info[4] < opts[4]
                                           or info[5] < opts[4]):
        status = PARTITION_DUE
    if status == OK:
        out = np.empty(nq + nu)
        status = _derivatives(fn[FN_DERIVATIVES], (x, fn, dims, idx,
                                                   eom_size, out))
        if status == OK:
            for i in range(nq):
                ydot[i] = out[i]
            if partitioned:
                ni = nu - m
                for k in range(ni):
                    ydot[nq + k] = out[nq + idx[nqd + k]]
            else:
                for i in range(nu):
                    ydot[nq + i] = out[nq + i]
            for i in range(ydot.shape[0]):
                if not np.isfinite(ydot[i]):
                    status = NOT_FINITE
    info[3] = status
    return status


@jit
def rhs_packed(t, y, x, fn, ints, floats, ydot):
    """:func:`rhs` with its arguments packed into two arrays, for the
    integrator's calls (numba's dispatcher costs time per argument, about
    a fifth of an evaluation of a small model): ``ints = [dims (6), idx
    (nqd + nu), partitioned, eom_size, iwork...]`` and ``floats = [opts
    (7), info (6), work...]`` (see :func:`packed_layout`); ``fn`` is
    :func:`with_calls`'s."""
    if fn.shape[0] < FN_MODEL_SIZE:
        raise ValueError(_SHORT_FN)
    nqd, nu = ints[3], ints[1]
    end = 6 + nqd + nu
    return rhs(t, y, x, fn, ints[:6], ints[6:end], floats[:7],
               ints[end] != 0, ints[end + 1], floats[7:13], floats[13:],
               ints[end + 2:], ydot)


@jit
def inputs_packed(t, y, x, fn, ints, floats):
    """The consistent input ``x`` of the integrator state ``y`` at ``t``
    (the dependent coordinates and speeds solved, as :func:`rhs_packed`
    leaves it) without the derivatives: what the impacts' gaps need, at a
    fraction of an evaluation's cost. Returns the status code; ``fn`` is
    :func:`with_calls`'s."""
    if fn.shape[0] < FN_MODEL_SIZE:
        raise ValueError(_SHORT_FN)
    nqd, nu = ints[3], ints[1]
    end = 6 + nqd + nu
    x[0] = t
    load_state(y, x, ints[:6], ints[6:end], ints[end] != 0)
    status = _correct(fn[FN_CORRECT], (x, fn, ints[:6], ints[6:end],
                                       floats[:7], floats[7:13], floats[13:],
                                       ints[end + 2:]))
    floats[10] = status
    return status


# the addresses of correct() and derivatives() in this process, found at
# the first with_calls()
_CALLS = []


def with_calls(fn):
    """The right-hand side's ``fn`` (:func:`rhs_packed`,
    :func:`inputs_packed`, :func:`states`): the model's six entries of
    ``fn`` followed by the addresses of the compiled :func:`correct` and
    :func:`derivatives` (loaded, or compiled, at the first call in a
    process), which those kernels call by address
    (:func:`.jit.native_caller`), and that of Newton-Raphson
    (:func:`.newton.address`), which :func:`correct` calls by address: so
    numba compiles and optimizes the constraint correction, Newton-Raphson
    and the equations' solve once each, not again into each kernel that
    calls them. Call it after :func:`.kernel_set.ensure_compiled`, so that
    a first compilation is announced."""
    if not _CALLS:
        from .jit import native_address
        _CALLS.append(np.array(
            [native_address(correct, CORRECT_TYPES),
             native_address(derivatives, DERIVATIVES_TYPES),
             newton_address()],
            dtype=np.int64))
    return np.concatenate([np.asarray(fn, dtype=np.int64)[:FN_CORRECT],
                           _CALLS[0]])


_SHORT_FN = "fn lacks the kernels' addresses (rhs.with_calls)"


def packed_layout(dims, idx, partitioned, eom_size, work_size,
                  iwork_size):
    """``(ints, floats, views)`` for :func:`rhs_packed`; ``views`` holds
    ``opts``, ``info``, ``work`` and ``iwork`` as views into them."""
    head = np.concatenate([dims, idx, [int(partitioned), eom_size]])
    ints = np.concatenate([head, np.zeros(iwork_size)]).astype(np.int64)
    floats = np.zeros(13 + work_size)
    views = {'opts': floats[:7], 'info': floats[7:13], 'work': floats[13:],
             'iwork': ints[head.shape[0]:]}
    return ints, floats, views


@jit
def states(Y, X, fn, dims, idx, opts, partitioned, out, status):
    """Corrected ``[q, u, constraint residual, velocity residual]`` of
    every sample (rows of ``Y``; rows of ``X`` hold each sample's time,
    constants and inputs), into ``out``; status codes into ``status``.
    ``fn`` is :func:`with_calls`'s."""
    if fn.shape[0] < FN_MODEL_SIZE:
        raise ValueError(_SHORT_FN)
    nq, nu, nh, nqd, m = dims[0], dims[1], dims[2], dims[3], dims[4]
    info = np.zeros(6)
    work = np.zeros(3 * nh * nqd + 2 * (nh + nh * nqd) + 2 * nh + 2 * nqd)
    iwork = np.zeros(max(nqd, 1), dtype=np.int64)
    hol = np.empty(nh + nh * nqd)
    vel = np.empty(m * nu + m)
    for row in range(Y.shape[0]):
        x = X[row]
        load_state(Y[row], x, dims, idx, partitioned)
        status[row] = _correct(fn[FN_CORRECT], (x, fn, dims, idx, opts, info,
                                                work, iwork))
        for i in range(nq + nu):
            out[row, i] = x[1 + i]
        out[row, nq + nu] = 0.0
        out[row, nq + nu + 1] = 0.0
        if nh > 0:
            call(fn[0], fn[1], hol, x)
            for i in range(nh):
                out[row, nq + nu] = max(out[row, nq + nu], abs(hol[i]))
        if m > 0:
            call(fn[2], fn[3], vel, x)
            for i in range(m):
                total = vel[m * nu + i]
                for j in range(nu):
                    total += vel[i * nu + j] * x[1 + nq + j]
                out[row, nq + nu + 1] = max(out[row, nq + nu + 1],
                                            abs(total))
