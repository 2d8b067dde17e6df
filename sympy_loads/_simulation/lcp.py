"""Private: Lemke's complementary pivoting method for small linear
complementarity problems (LCPs).

The LCP ``(q, M)`` asks for ``z`` with

    w = M z + q >= 0,    z >= 0,    w . z = 0.

Neither NumPy nor SciPy offers an LCP solver (SciPy's optimizers solve
linear and bound-constrained least-squares problems, not complementarity
problems), so the contact problems of
:mod:`sympy_loads._simulation.contact_problems` use this small dense
implementation of Lemke's method [Lemke1965]_, written from the
description in [Cottle1992]_ (Section 4.4, the scheme with an artificial
variable ``z0`` and covering vector ``d``):

    w - M z - d z0 = q.

Starting from ``w = q + d z0`` with the smallest ``z0`` making it
nonnegative, each pivot brings in the complement of the variable that
left the basis, until ``z0`` leaves (a solution) or the entering column
has no positive entry (a secondary ray: for the matrices met in contact
problems, copositive-plus ones among them, this means the LCP has no
solution). Degenerate steps (ties in the minimum ratio test) are broken
by the lexicographic rule ([Cottle1992]_, Section 4.9): the rows
``(q_bar_i, B^-1_i) / a_i`` are compared lexicographically, which makes
every basis nondegenerate in the lexicographic sense, so that no basis
repeats and the method terminates.

The problems here have a few tens of rows at most (two or three per
contact), so the tableau is dense and each pivot a rank-one update. The
complementary basis found is then solved once more directly
(``M_aa z_a = -q_a``) to remove the rounding accumulated over the pivots.

References
==========

.. [Lemke1965] C. E. Lemke, "Bimatrix equilibrium points and mathematical
   programming", Management Science 11 (1965) 681-689,
   https://doi.org/10.1287/mnsc.11.7.681
.. [Cottle1992] R. W. Cottle, J.-S. Pang, R. E. Stone, The Linear
   Complementarity Problem, Academic Press, 1992 (Section 4.4, Lemke's
   method; Section 4.9, degeneracy and the lexicographic rule).
"""

import numpy as np

__all__ = []

# relative size below which an entry of the entering column is no pivot
PIVOT_TOL = 1e-11
# relative difference below which two ratios tie
TIE_TOL = 1e-11
# accepted natural-map residual, relative to the problem's scale
RESIDUAL_TOL = 1e-8


class LCPError(ValueError):
    """A linear complementarity problem was not solved.

    Attributes
    ==========

    residual : float
        The natural-map residual ``max_i |min(w_i, z_i)|`` (with
        ``w = M z + q``) of the last point reached; for a contact problem,
        that of the contact problem.
    contacts : tuple of int
        The contacts involved, where the caller knows them (empty for a
        bare LCP).
    """

    def __init__(self, message, residual=float('nan'), contacts=()):
        super().__init__(message)
        self.residual = float(residual)
        self.contacts = tuple(contacts)


def natural_residual(M, q, z):
    """``max_i |min(w_i, z_i)|`` with ``w = M z + q``: zero exactly at a
    solution ([Cottle1992]_, Section 1.5, the natural map)."""
    if len(q) == 0:
        return 0.0
    return float(np.abs(np.minimum(M @ z + q, z)).max())


def _leaving_row(T, col, basis, n):
    """The row leaving the basis when column ``col`` enters: the minimum
    ratio test, ties broken lexicographically on ``(q_bar, B^-1)``, and
    the artificial variable preferred when it is among the tied rows.
    None where the column has no positive entry (a ray)."""
    column = T[:, col]
    big = np.abs(column).max()
    rows = np.flatnonzero(column > PIVOT_TOL * big) if big > 0 else []
    if len(rows) == 0:
        return None
    # rhs first, then the columns of B^-1 (those of w in the tableau)
    for k, key in enumerate([T.shape[1] - 1, *range(n)]):
        ratios = T[rows, key] / column[rows]
        low = ratios.min()
        rows = rows[ratios <= low + TIE_TOL * max(1.0, abs(low))]
        if k == 0:
            artificial = [r for r in rows if basis[r] == 2 * n]
            if artificial:
                return artificial[0]
        if len(rows) == 1:
            break
    return rows[0]


def _pivot(T, row, col):
    T[row] /= T[row, col]
    factor = T[:, col].copy()
    factor[row] = 0.0
    T -= np.outer(factor, T[row])


def _polish(M, q, basis, n):
    """``z`` of the complementary basis found, solved directly."""
    active = [b - n for b in basis if n <= b < 2 * n]
    z = np.zeros(n)
    if active:
        try:
            z[active] = np.linalg.solve(M[np.ix_(active, active)], -q[active])
        except np.linalg.LinAlgError:
            return None
    return z


def lemke(M, q, *, max_pivots=None):
    """Solve the LCP ``w = M z + q >= 0, z >= 0, w . z = 0`` by Lemke's
    method with the lexicographic rule.

    Parameters
    ==========

    M : array_like, shape (n, n)
    q : array_like, shape (n,)
    max_pivots : int, optional
        Pivots allowed (default ``50 * (n + 1)``).

    Returns
    =======

    w, z : numpy.ndarray
        The solution (``w`` computed as ``M z + q``, entries within
        rounding of zero set to zero).

    Raises
    ======

    LCPError
        On ray termination (no solution for copositive-plus ``M``), when
        the pivot limit is reached, or when the point found does not
        satisfy the conditions to a relative residual of ``1e-8``.
    ValueError
        For ``M`` not square, ``q`` of another length, or values that are
        not finite.
    """
    M = np.array(M, dtype=float)
    q = np.array(q, dtype=float).ravel()
    n = len(q)
    if M.shape != (n, n):
        raise ValueError(f'lemke: M must be square with len(q) = {n} rows, '
                         f'got shape {M.shape}')
    if not (np.isfinite(M).all() and np.isfinite(q).all()):
        raise ValueError('lemke: M and q must be finite')
    if n == 0 or q.min() >= 0:
        return q.copy(), np.zeros(n)
    max_pivots = 50 * (n + 1) if max_pivots is None else int(max_pivots)
    # columns: w (n), z (n), z0, rhs
    T = np.hstack([np.eye(n), -M, -np.ones((n, 1)), q[:, None]])
    basis = list(range(n))
    # z0 enters at the row of the most negative q (ties: the last such row,
    # which keeps every row lexicographically positive)
    row = int(np.flatnonzero(q <= q.min() + TIE_TOL * abs(q.min()))[-1])
    entering = 2 * n
    for pivots in range(1, max_pivots + 1):
        _pivot(T, row, entering)
        leaving, basis[row] = basis[row], entering
        if leaving == 2 * n:
            return _finish(M, q, basis, T, n)
        entering = leaving + n if leaving < n else leaving - n
        row = _leaving_row(T, entering, basis, n)
        if row is None:
            z = _basic_z(T, basis, n)
            raise LCPError(
                f'lemke: ray termination after {pivots} pivots (column of '
                f'{_name(entering, n)} has no positive entry): the LCP has '
                f'no solution reachable by complementary pivoting; natural '
                f'residual {natural_residual(M, q, z):.3g}',
                natural_residual(M, q, z))
    z = _basic_z(T, basis, n)
    raise LCPError(f'lemke: pivot limit of {max_pivots} pivots reached; '
                   f'natural residual {natural_residual(M, q, z):.3g}',
                   natural_residual(M, q, z))


def _name(column, n):
    return 'z0' if column == 2 * n else (
        f'w[{column}]' if column < n else f'z[{column - n}]')


def _basic_z(T, basis, n):
    z = np.zeros(n)
    for row, b in enumerate(basis):
        if n <= b < 2 * n:
            z[b - n] = T[row, -1]
    return z


def _finish(M, q, basis, T, n):
    """The solution of the complementary basis reached, polished and
    checked."""
    scale = 1.0 + np.abs(q).max()
    tableau_z = np.maximum(_basic_z(T, basis, n), 0.0)
    polished = _polish(M, q, basis, n)
    candidates = [tableau_z] if polished is None else [
        np.maximum(polished, 0.0), tableau_z]
    best = min(candidates, key=lambda z: natural_residual(M, q, z))
    residual = natural_residual(M, q, best)
    tol = RESIDUAL_TOL * scale * (1.0 + np.abs(M).max()
                                  * (1.0 + np.abs(best).max()))
    if residual > tol:
        raise LCPError(f'lemke: the point found has a natural residual of '
                       f'{residual:.3g} (accepted {tol:.3g}): M is too ill '
                       f'conditioned for complementary pivoting', residual)
    w = M @ best + q
    w[np.abs(w) <= tol] = 0.0
    return np.maximum(w, 0.0), best
