"""The numerics of rigid contacts with friction (private modules
``sympy_loads._simulation.lcp`` and ``.contact_problems``): Lemke's method
against brute-force enumeration of complementary bases, frictional impacts
(Stronge's energetic coefficient, Pfeiffer and Glocker's Poisson-type
two-phase LCP) against closed forms derived by hand, and the
acceleration-level contact problem against statics."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sympy_loads._simulation.lcp import LCPError, lemke

EPS = np.finfo(float).eps


# ---------------------------------------------------------------------------
# Lemke's method
# ---------------------------------------------------------------------------

def enumerate_lcp(M, q):
    """All solutions of the LCP found by trying every complementary basis
    (``z_a = -M_aa^-1 q_a`` on the set ``a``, ``z = 0`` elsewhere): the
    oracle, sharing no code with :func:`lemke`."""
    n = len(q)
    found = []
    for size in range(n + 1):
        for a in itertools.combinations(range(n), size):
            a = list(a)
            z = np.zeros(n)
            if a:
                Maa = M[np.ix_(a, a)]
                if abs(np.linalg.det(Maa)) < 1e-12:
                    continue
                z[a] = np.linalg.solve(Maa, -q[a])
            w = M @ z + q
            scale = 1e-9 * (1 + np.abs(q).max())
            if z.min() >= -scale and w.min() >= -scale:
                found.append((w, z))
    return found


def check_solution(M, q, w, z, tol):
    assert np.allclose(w, M @ z + q, atol=tol, rtol=0)
    assert z.min() >= -tol
    assert w.min() >= -tol
    assert np.abs(w * z).max() <= tol


@settings(max_examples=60, deadline=None, derandomize=True)
@given(n=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_lemke_p_matrix_matches_enumeration(n, seed):
    # M = diagonally dominant nonsymmetric matrix with positive diagonal,
    # or A A^T + I plus a skew part: a P-matrix, so the solution is unique
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    S = rng.normal(size=(n, n))
    M = A @ A.T + 0.1 * np.eye(n) + (S - S.T)
    q = rng.normal(size=n)
    w, z = lemke(M, q)
    (w_ref, z_ref), = enumerate_lcp(M, q)
    # error of a linear solve: a few eps times the condition number
    tol = 1e3 * EPS * np.linalg.cond(M) * (1 + np.abs(q).max()) * max(
        1.0, np.abs(z_ref).max())
    check_solution(M, q, w, z, tol)
    assert np.allclose(z, z_ref, atol=tol, rtol=0)
    assert np.allclose(w, w_ref, atol=tol, rtol=0)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(n=st.integers(1, 6), rank=st.integers(0, 6),
       seed=st.integers(0, 2**32 - 1))
def test_lemke_psd_plus_diagonal(n, rank, seed):
    # symmetric positive semidefinite (rank deficient) plus a nonnegative
    # diagonal with zeros; q made from a known complementary pair so that
    # a solution exists.  M z is the same for every solution of a
    # symmetric PSD LCP (the KKT points of a convex QP), so w is unique.
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, min(rank, n)))
    d = rng.uniform(0, 1, size=n) * (rng.uniform(size=n) < 0.5)
    M = A @ A.T + np.diag(d)
    active = rng.uniform(size=n) < 0.5
    z_star = np.where(active, rng.uniform(0.1, 2, size=n), 0.0)
    w_star = np.where(active, 0.0, rng.uniform(0, 2, size=n))
    w_star[rng.uniform(size=n) < 0.2] = 0.0        # degenerate pairs
    q = w_star - M @ z_star
    w, z = lemke(M, q)
    tol = 1e-9 * (1 + np.abs(M).max()) * (1 + np.abs(z_star).max()
                                           + np.abs(z).max())
    check_solution(M, q, w, z, tol)
    assert np.allclose(w, w_star, atol=tol, rtol=0)
    assert enumerate_lcp(M, q)  # the oracle agrees a solution exists


def test_lemke_trivial_and_degenerate():
    # q >= 0: z = 0 without a pivot
    w, z = lemke(np.eye(2), np.array([1.0, 0.0]))
    assert np.array_equal(z, [0, 0]) and np.array_equal(w, [1, 0])
    # ties in the ratio tests (equal entries of q, identical rows): the
    # lexicographic rule must not cycle.  z = (1, 1, 1)/4 by symmetry.
    M = np.ones((3, 3)) + np.eye(3)
    w, z = lemke(M, -np.ones(3))
    assert np.allclose(z, 0.25, atol=1e-14) and np.allclose(w, 0, atol=1e-14)
    # a singular M with a tie: rows 1 and 2 identical
    M = np.array([[1.0, 1, 1], [1, 1, 1], [1, 1, 1]])
    w, z = lemke(M, -np.ones(3))
    check_solution(M, -np.ones(3), w, z, 1e-14)
    assert math.isclose(z.sum(), 1, abs_tol=1e-14)


def test_lemke_refuses_unsolvable():
    # w = -z - 1 >= 0 has no solution with z >= 0: ray termination
    with pytest.raises(LCPError, match='ray') as info:
        lemke(np.array([[-1.0]]), np.array([-1.0]))
    assert isinstance(info.value, ValueError)
    assert info.value.residual > 0.5
    # a pivot limit reached says so
    M = np.ones((3, 3)) + np.eye(3)
    with pytest.raises(LCPError, match='pivot'):
        lemke(M, np.array([-1.0, -2.0, -3.0]), max_pivots=1)
    with pytest.raises(ValueError, match='square'):
        lemke(np.ones((2, 3)), np.ones(2))
