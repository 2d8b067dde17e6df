"""Small dense solves for the generic kernels (compiled by numba).

The systems met here are small (a few to a few dozen unknowns) and solved
at every right-hand-side evaluation, so they are written out: a LAPACK
call through numba costs more than the whole solve at this size, and
numba's ``np.linalg`` costs seconds of compile time. Two solvers, on
purpose: LU with partial pivoting for square systems (mass matrices, the
dependent block of velocity constraints), and Householder QR with column
pivoting for least-squares (redundant constraint sets have more rows than
dependent coordinates and may be rank deficient). The NumPy back end uses
``numpy.linalg`` for the same solves.
"""

import math

from .jit import jit

__all__ = []


@jit
def lu_factor(A, n, perm):
    """Factor the leading ``n x n`` block of ``A`` in place (``P A = L
    U``, partial pivoting; the row order goes into ``perm``). Returns the
    ratio of the smallest to the largest pivot, 0.0 when ``A`` is singular
    or not finite."""
    big = 0.0
    small = math.inf
    for k in range(n):
        perm[k] = k
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
            tmp_index = perm[k]
            perm[k] = perm[p]
            perm[p] = tmp_index
        big = max(big, amax)
        small = min(small, amax)
        pivot = A[k, k]
        for i in range(k + 1, n):
            factor = A[i, k] / pivot
            A[i, k] = factor
            if factor != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= factor * A[k, j]
    if n == 0:
        return 1.0
    return small / big


@jit
def lu_solve(A, n, perm, b, x):
    """Solve with the factors of :func:`lu_factor`: ``x = A^-1 b`` (``b``
    is not changed; ``x`` may not be ``b``)."""
    for i in range(n):
        x[i] = b[perm[i]]
    for i in range(n):
        total = x[i]
        for j in range(i):
            total -= A[i, j] * x[j]
        x[i] = total
    for i in range(n - 1, -1, -1):
        total = x[i]
        for j in range(i + 1, n):
            total -= A[i, j] * x[j]
        x[i] = total / A[i, i]


@jit
def qr_solve(R, y, x, perm, v, rank_ratio):
    """Least-squares solution of ``R x = y`` (rows >= columns) by
    Householder QR with column pivoting, overwriting ``R`` and ``y``;
    ``perm`` (columns) and ``v`` (rows) are workspace. Directions whose
    pivot is below ``rank_ratio`` times the first are dropped (basic
    solution). Returns the ratio of the last to the first pivot (0.0 when
    rank deficient)."""
    m, k = R.shape
    for j in range(k):
        perm[j] = j
    rank = k
    first = 0.0
    last = 0.0
    for j in range(k):
        best = j
        best_norm = -1.0
        for c in range(j, k):
            s = 0.0
            for r in range(j, m):
                s += R[r, c] * R[r, c]
            if s > best_norm:
                best_norm = s
                best = c
        if best != j:
            for r in range(m):
                tmp = R[r, j]
                R[r, j] = R[r, best]
                R[r, best] = tmp
            tmp_index = perm[j]
            perm[j] = perm[best]
            perm[best] = tmp_index
        alpha = math.sqrt(best_norm)
        if j == 0:
            first = alpha
        if not (alpha > rank_ratio * first) or alpha == 0.0:
            rank = j
            break
        last = alpha
        if R[j, j] > 0.0:
            alpha = -alpha
        for r in range(j, m):
            v[r] = R[r, j]
        v[j] -= alpha
        vnorm2 = 0.0
        for r in range(j, m):
            vnorm2 += v[r] * v[r]
        if vnorm2 > 0.0:
            for c in range(j, k):
                s = 0.0
                for r in range(j, m):
                    s += v[r] * R[r, c]
                s = 2.0 * s / vnorm2
                for r in range(j, m):
                    R[r, c] -= s * v[r]
            s = 0.0
            for r in range(j, m):
                s += v[r] * y[r]
            s = 2.0 * s / vnorm2
            for r in range(j, m):
                y[r] -= s * v[r]
    for i in range(k):
        x[i] = 0.0
    for i in range(rank - 1, -1, -1):
        s = y[i]
        for c in range(i + 1, rank):
            s -= R[i, c] * x[perm[c]]
        x[perm[i]] = s / R[i, i]
    if k == 0:
        return 1.0
    if rank < k or first == 0.0:
        return 0.0
    return last / first
