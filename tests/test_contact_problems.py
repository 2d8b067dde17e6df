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
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sympy_loads._simulation.contact_problems import (ContactSolution,
                                                      ImpactSolution,
                                                      solve_contact,
                                                      solve_impact)
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


@settings(max_examples=150, deadline=None, derandomize=True)
@given(n=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_lemke_degenerate_integer_problems(n, seed):
    # small integer entries make ties in every ratio test; M = skew +
    # nonnegative diagonal (+ a PSD part) is positive semidefinite, so
    # copositive-plus: Lemke's method ends at a solution or on a ray, and a
    # ray means the LCP is infeasible (Cottle, Pang, Stone, Section 4.4)
    rng = np.random.default_rng(seed)
    A = rng.integers(-1, 2, size=(n, n)).astype(float)
    B = rng.integers(-1, 2, size=(n, 2)).astype(float)
    M = A - A.T + B @ B.T + np.diag(rng.integers(0, 2, size=n))
    q = rng.integers(-1, 2, size=n).astype(float)
    try:
        w, z = lemke(M, q)
    except LCPError:
        assert not enumerate_lcp(M, q)
    else:
        check_solution(M, q, w, z, 1e-12)


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


# ---------------------------------------------------------------------------
# One contact: Stronge's energetic coefficient with Coulomb friction
# ---------------------------------------------------------------------------

# the falling rod of the issue: mass 1, L = 1, I = 1/12, 45 degrees, the end
# on the floor, rows [n, t]; r = (L/2)(cos45, sin45) from the end to G gives
# G_nn = 1/m + r_x^2/I = 1 + 1.5, G_tt = 1/m + r_y^2/I = 2.5,
# G_nt = -r_x r_y / I = -1.5
ROD_G = np.array([[2.5, -1.5], [-1.5, 2.5]])
ROD_V = np.array([-1.0, 0.0])
PLANAR = [(0, (1,))]


def kinetic_change(G, v_minus, P):
    """Change of kinetic energy by the impulse P: 1/2 P . (v- + v+) with
    v+ = v- + G P (G the symmetric Delassus matrix)."""
    return 0.5 * P @ (2 * v_minus + G @ P)


def work_of_normal(segments):
    """Work of the normal impulse over a piecewise-linear v_n(p):
    segments of (v_n at the start, slope, length)."""
    return sum(v0 * h + 0.5 * s * h * h for v0, s, h in segments)


def test_falling_rod_sticks():
    # stick needs |P_t/P_n| = |G_tn/G_tt| = 0.6 <= mu: v_n rises along the
    # Schur complement 2.5 - 1.5^2/2.5 = 1.6, linear, so that Stronge's
    # coefficient equals Poisson's: P_n = (1 + e) / 1.6 = 0.9375
    sol = solve_impact(ROD_G, ROD_V, PLANAR, [0.5], [0.8])
    assert isinstance(sol, ImpactSolution)
    assert np.allclose(sol.P, [0.9375, 0.5625], atol=1e-12, rtol=0)
    assert np.allclose(sol.v_plus, ROD_V + ROD_G @ sol.P, atol=1e-12)
    assert abs(sol.v_plus[1]) < 1e-12              # stuck at the end
    assert math.isclose(sol.v_plus[0], 0.5, abs_tol=1e-12)
    assert sol.modes == ('stick',)


def test_falling_rod_slides():
    # 0.6 > mu = 0.3: the end slips from rest in the direction
    # sign(G_tn) = -1, P_t = +mu P_n, v_n slope 2.5 - 0.3 * 1.5 = 2.05
    sol = solve_impact(ROD_G, ROD_V, PLANAR, [0.5], [0.3])
    assert math.isclose(sol.P[0], 1.5 / 2.05, abs_tol=1e-12)
    assert math.isclose(sol.P[0], 0.731707317073, abs_tol=1e-12)
    assert math.isclose(sol.P[1], 0.3 * sol.P[0], abs_tol=1e-12)
    assert sol.v_plus[1] < 0
    assert sol.modes == ('slide',)


def test_slip_reverses_during_impact():
    # v_t- = 0.1 > 0, mu = 0.3: sliding forward, v' = (2.5 + 0.45,
    # -1.5 - 0.75) = (2.95, -2.25) per unit normal impulse; the slip stops at
    # p1 = 0.1/2.25, where sticking would need 0.6 > mu: it reverses, with
    # v' = (2.05, -0.75). Compression ends at v_n = 0, then v_n grows from 0
    # at the slope 2.05 until the work is -e^2 times that of compression.
    e, mu = 0.5, 0.3
    p1 = 0.1 / 2.25
    vn1 = -1 + 2.95 * p1
    pc = p1 - vn1 / 2.05
    Wc = work_of_normal([(-1, 2.95, p1), (vn1, 2.05, pc - p1)])
    pf = pc + math.sqrt(2 * e * e * -Wc / 2.05)
    Pt = -mu * p1 + mu * (pf - p1)
    sol = solve_impact(ROD_G, np.array([-1.0, 0.1]), PLANAR, [e], [mu])
    assert np.allclose(sol.P, [pf, Pt], atol=1e-12, rtol=0)
    assert sol.phases == (('slide', 'slide'),)
    assert np.allclose(sol.compression, [pc, -mu * p1 + mu * (pc - p1)],
                       atol=1e-12)
    # Poisson's coefficient (expansion impulse e times compression's) is
    # another law here: the slip reversal makes them differ
    assert abs(pf - (1 + e) * pc) > 4e-4       # 4.6e-4 by the formulas above


def test_slip_stops_and_sticks():
    # v_t- = 0.1, mu = 0.8: v' = (2.5 + 1.2, -1.5 - 2) while sliding;
    # stops at p1 = 0.1/3.5, then sticks (0.6 < 0.8) with slope 1.6
    e, mu = 0.5, 0.8
    p1 = 0.1 / 3.5
    vn1 = -1 + 3.7 * p1
    pc = p1 - vn1 / 1.6
    Wc = work_of_normal([(-1, 3.7, p1), (vn1, 1.6, pc - p1)])
    pf = pc + math.sqrt(2 * e * e * -Wc / 1.6)
    Pt = -mu * p1 + 0.6 * (pf - p1)
    sol = solve_impact(ROD_G, np.array([-1.0, 0.1]), PLANAR, [e], [mu])
    assert np.allclose(sol.P, [pf, Pt], atol=1e-12, rtol=0)
    assert abs(sol.v_plus[1]) < 1e-12
    assert sol.phases == (('slide', 'stick'),)


def test_kanes_paradox():
    # Kane's paradox (Kane and Levinson; Stronge): Newton's kinematic
    # restitution with the friction of the initial slip direction throughout
    # gives P_n = -(1 + e) v_n- / (G_nn - mu G_nt) (here 1.5 / 0.1 = 15) and
    # creates energy, because the slip in fact stops early in the impact.
    G = np.array([[1.0, 0.9], [0.9, 1.0]])
    v = np.array([-1.0, 0.1])
    e, mu = 0.5, 1.0
    Pn = -(1 + e) * v[0] / (G[0, 0] - mu * G[0, 1])
    newton = np.array([Pn, -mu * Pn])
    assert kinetic_change(G, v, newton) > 5.9      # = 6 by hand
    # ours: slides with v' = (0.1, -0.1) until p1 = 1, then sticks
    # (|G_tn/G_tt| = 0.9 < mu) with the slope 1 - 0.81 = 0.19
    pc = 1 + 0.9 / 0.19
    Wc = work_of_normal([(-1, 0.1, 1.0), (-0.9, 0.19, pc - 1)])
    pf = pc + math.sqrt(2 * e * e * -Wc / 0.19)
    sol = solve_impact(G, v, PLANAR, [e], [mu])
    assert np.allclose(sol.P, [pf, -1 - 0.9 * (pf - 1)], atol=1e-12, rtol=0)
    assert kinetic_change(G, v, sol.P) < 0
    # what is lost is (1 - e^2) of the normal work in compression and the
    # friction's work while sliding: -mu * int |v_t| dp = -1 * 0.1 * 1 / 2
    assert math.isclose(kinetic_change(G, v, sol.P),
                        (1 - e * e) * Wc - 0.05, abs_tol=1e-12)


def sphere_delassus(m, R):
    """G of a sphere (mass m, radius R, I = 2/5 m R^2) on the floor z = 0,
    rows [n = z, t1 = x, t2 = y], from the rigid body: an impulse P at the
    contact point C = centre - R z changes v by P/m and w by (r x P)/I,
    r = -R z, and C's velocity is v + w x r."""
    inertia = 0.4 * m * R * R
    r = np.array([0.0, 0.0, -R])
    cross = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
    G_xyz = np.eye(3) / m - cross @ cross / inertia      # [r]x^T = -[r]x
    rows = [2, 0, 1]
    return G_xyz[np.ix_(rows, rows)]


@pytest.mark.parametrize('mu, sticks', [(0.9, True), (0.05, False)])
def test_spinning_ball_hits_floor(mu, sticks):
    m, R, e = 2.0, 0.1, 0.6
    G = sphere_delassus(m, R)
    # by hand: G = diag(1/m, 1/m + R^2/I, 1/m + R^2/I) = diag(1, 7/2, 7/2)/m
    assert np.allclose(G, np.diag([1, 3.5, 3.5]) / m, atol=1e-15)
    vel = np.array([0.3, -0.2, -2.0])
    omega = np.array([5.0, 40.0, 1.0])
    # contact point velocity v + w x (-R z) = (v_x - R w_y, v_y + R w_x, v_z)
    vc = np.array([vel[2], vel[0] - R * omega[1], vel[1] + R * omega[0]])
    sol = solve_impact(G, vc, [(0, (1, 2))], [e], [mu])
    Pn = (1 + e) * m * 2.0          # normal decoupled: Newton = Stronge
    slip = vc[1:]
    assert math.isclose(sol.P[0], Pn, rel_tol=1e-12)
    if sticks:
        # slip stops at p = |s| m / (3.5 mu) < Pn, then it rolls: the
        # tangential impulse is the one that stops the slip, -s m / 3.5
        assert np.linalg.norm(slip) * m / (3.5 * mu) < Pn
        assert np.allclose(sol.P[1:], -slip * m / 3.5, atol=1e-12)
    else:
        assert np.allclose(sol.P[1:], -mu * Pn * slip / np.linalg.norm(slip),
                           atol=1e-12)
    # the rigid body after the impulse, by the body's own equations
    P_xyz = np.array([sol.P[1], sol.P[2], sol.P[0]])
    vel_plus = vel + P_xyz / m
    omega_plus = omega + np.cross([0, 0, -R], P_xyz) / (0.4 * m * R * R)
    roll = np.array([vel_plus[0] - R * omega_plus[1],
                     vel_plus[1] + R * omega_plus[0]])
    assert np.allclose(roll, sol.v_plus[1:], atol=1e-12)
    if sticks:
        assert np.allclose(roll, 0, atol=1e-12)     # rolling: v_t + w x r = 0
    else:
        # still slipping, the same way, slower
        assert np.allclose(roll / np.linalg.norm(roll),
                           slip / np.linalg.norm(slip), atol=1e-12)


def random_delassus(rng, n):
    A = rng.normal(size=(n, n))
    return A @ A.T + 0.05 * np.eye(n)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), spatial=st.booleans(),
       e=st.floats(0, 1), mu=st.floats(0, 2))
def test_single_contact_never_creates_energy(seed, spatial, e, mu):
    rng = np.random.default_rng(seed)
    n = 3 if spatial else 2
    G = random_delassus(rng, n)
    v = rng.normal(size=n)
    v[0] = -abs(v[0]) - 0.01
    layout = [(0, (1, 2) if spatial else (1,))]
    sol = solve_impact(G, v, layout, [e], [mu])
    scale = np.abs(G).max() * np.abs(sol.P).max() ** 2 + 1e-300
    assert kinetic_change(G, v, sol.P) <= 1e-9 * scale
    assert sol.P[0] > 0 and sol.v_plus[0] >= -1e-9 * np.abs(v).max()
    assert np.linalg.norm(sol.P[1:]) <= mu * sol.P[0] * (1 + 1e-9) + 1e-15
    assert np.allclose(sol.v_plus, v + G @ sol.P, atol=1e-9 * scale)
    # energy lost at least (1 - e^2) of the compression's normal work: the
    # friction's work is never positive; e = 1 without friction keeps it
    if mu == 0:
        Wc = -0.5 * v[0] ** 2 / G[0, 0]
        assert math.isclose(kinetic_change(G, v, sol.P), (1 - e * e) * Wc,
                            rel_tol=1e-9, abs_tol=1e-12)


def test_spatial_contains_planar():
    # a spatial contact whose second tangent row is decoupled and at rest
    # must give the planar answer, for each regime of the rod
    G = np.zeros((3, 3))
    G[:2, :2] = ROD_G
    G[2, 2] = 3.0
    for vt, mu in [(0.0, 0.8), (0.0, 0.3), (0.1, 0.3), (0.1, 0.8)]:
        v = np.array([-1.0, vt, 0.0])
        planar = solve_impact(ROD_G, v[:2], PLANAR, [0.5], [mu])
        spatial = solve_impact(G, v, [(0, (1, 2))], [0.5], [mu])
        assert np.allclose(spatial.P[:2], planar.P, atol=1e-9)
        assert abs(spatial.P[2]) < 1e-9


def test_turning_slip_against_direct_integration():
    # a spatial contact whose slip direction turns (G_tn not along the slip
    # and G_tt anisotropic) and never stops: the reference integrates the
    # contact velocity itself, dv/dp = G (1, -mu v_t/|v_t|), with the work
    # of the normal impulse, by LSODA (another method, another state)
    from scipy.integrate import solve_ivp
    G = np.array([[2.0, 0.6, -0.4], [0.6, 3.0, 0.5], [-0.4, 0.5, 1.5]])
    v = np.array([-1.0, 1.5, -0.8])
    e, mu = 0.7, 0.25

    def rhs(p, y):
        vt = y[1:3]
        dP = np.concatenate([[1.0], -mu * vt / np.linalg.norm(vt)])
        return np.concatenate([G @ dP, [y[0]]])

    def compressed(p, y):
        return y[0]
    compressed.terminal, compressed.direction = True, 1
    first = solve_ivp(rhs, (0, 10), np.concatenate([v, [0.0]]),
                      method='LSODA', rtol=1e-12, atol=1e-14,
                      events=compressed)
    pc, Wc = first.t[-1], first.y[3, -1]

    def ended(p, y):
        return y[3] - (1 - e * e) * Wc
    ended.terminal, ended.direction = True, 1
    second = solve_ivp(rhs, (pc, 10), first.y[:, -1], method='LSODA',
                       rtol=1e-12, atol=1e-14, events=ended)
    v_ref = second.y[:3, -1]
    assert np.linalg.norm(v_ref[1:]) > 0.1          # still slipping
    sol = solve_impact(G, v, [(0, (1, 2))], [e], [mu])
    assert sol.phases == (('slide',),)
    # both integrations at rtol 1e-12: agreement to 1e-8 leaves room
    assert np.allclose(sol.v_plus, v_ref, atol=1e-8)
    assert math.isclose(sol.P[0], second.t[-1], rel_tol=1e-8)
    # the direction did turn
    s0, s1 = v[1:] / np.linalg.norm(v[1:]), v_ref[1:] / np.linalg.norm(
        v_ref[1:])
    assert s0 @ s1 < 0.999


# ---------------------------------------------------------------------------
# Several contacts: Poisson-type impact in two LCPs
# ---------------------------------------------------------------------------

def planar_delassus(m, inertia, corners):
    """G of points ``corners`` (offsets from the centre of mass) of one
    planar rigid body, rows [n1 = y, t1 = x, n2, t2, ...]: the point
    acceleration a_i = F/m + alpha z x r_i with alpha = sum_j (r_j x F_j)/I,
    z x r = (-r_y, r_x), (r x x)_z = -r_y, (r x y)_z = r_x."""
    k = len(corners)
    G = np.zeros((2 * k, 2 * k))
    for i, ri in enumerate(corners):
        for j, rj in enumerate(corners):
            G[2 * i, 2 * j] = 1 / m + ri[0] * rj[0] / inertia
            G[2 * i + 1, 2 * j + 1] = 1 / m + ri[1] * rj[1] / inertia
            G[2 * i, 2 * j + 1] = -ri[0] * rj[1] / inertia
            G[2 * i + 1, 2 * j] = -ri[1] * rj[0] / inertia
    return G


BLOCK = dict(m=3.0, b=0.1, h=0.4)


def block_delassus():
    m, b, h = BLOCK['m'], BLOCK['b'], BLOCK['h']
    inertia = m * (b * b + h * h) / 3
    return planar_delassus(m, inertia, [(-b, -h), (b, -h)])


TWO_PLANAR = [(0, (1,)), (2, (3,))]


def test_block_lands_flat():
    # both bottom corners strike at v_n = -1, no spin, no slip: by symmetry
    # equal normal impulses (1 + e) m / 2 and no friction (the corners'
    # tangential speed stays zero: -r_y (r_1x + r_2x) P / I = 0)
    m, e = BLOCK['m'], 0.4
    sol = solve_impact(block_delassus(), [-1.0, 0, -1.0, 0], TWO_PLANAR,
                       [e, e], [0.5, 0.5])
    assert np.allclose(sol.P, [(1 + e) * m / 2, 0, (1 + e) * m / 2, 0],
                       atol=1e-12)
    assert np.allclose(sol.v_plus, [e, 0, e, 0], atol=1e-12)
    assert sol.modes == ('stick', 'stick')


def test_block_lands_flat_sliding():
    # landing flat while moving at u = 0.5 along +x, mu = 0.1: both corners
    # slide (P_T = -mu P_N) and stay pressed in compression, so the spin
    # change is zero: b (P2 - P1) = mu h (P1 + P2) and P1 + P2 = m (the
    # vertical speed stopped). Expansion: e times that (the normal speeds
    # rise to e, both positive), still sliding (u = 0.5 - (1 + e) mu > 0).
    m, b, h = BLOCK['m'], BLOCK['b'], BLOCK['h']
    e, mu = 0.5, 0.1
    total, diff = m, mu * h * m / b
    Pc = np.array([(total - diff) / 2, -mu * (total - diff) / 2,
                   (total + diff) / 2, -mu * (total + diff) / 2])
    sol = solve_impact(block_delassus(), [-1.0, 0.5, -1.0, 0.5], TWO_PLANAR,
                       [e, e], [mu, mu])
    assert np.allclose(sol.compression, Pc, atol=1e-12)
    assert np.allclose(sol.P, (1 + e) * Pc, atol=1e-12)
    assert np.allclose(sol.v_plus, [e, 0.5 - (1 + e) * mu] * 2, atol=1e-12)
    assert sol.phases == (('slide', 'slide'), ('slide', 'slide'))


def test_struck_contact_beside_resting_one():
    # the slip-reversal impact of the rod beside a resting contact that it
    # does not load (G block diagonal: the second contact's normal speed
    # stays 0): Stronge's law as for the contact alone, not the two-phase
    # law (which differs here, see test_slip_reverses_during_impact)
    G = np.zeros((4, 4))
    G[:2, :2], G[2:, 2:] = ROD_G, np.eye(2)
    v = np.array([-1.0, 0.1, 0.0, 0.3])
    alone = solve_impact(ROD_G, v[:2], PLANAR, [0.5], [0.3])
    sol = solve_impact(G, v, TWO_PLANAR, [0.5, 0.5], [0.3, 0.3])
    assert np.allclose(sol.P[:2], alone.P, atol=1e-15)
    assert np.array_equal(sol.P[2:], [0, 0])
    assert sol.phases == (('slide', 'slide'), ('open',))
    # coupled so that the struck contact's impulse presses the resting one
    # (G_n2,n1 < 0): both are loaded, by the two-phase law
    G[0, 2] = G[2, 0] = -0.5
    sol = solve_impact(G, v, TWO_PLANAR, [0.5, 0.5], [0.3, 0.3])
    assert sol.P[2] > 0 and len(sol.phases[1]) == 2
    assert kinetic_change(G, v, sol.P) < 0


def phase_by_enumeration(G, v0, mu, base):
    """Every solution of one phase for planar contacts (rows n, t per
    contact) by trying every pattern: normal impulse at its base or the
    normal speed zero; tangent sticking (v_t = 0) or sliding either way
    (P_t = -+mu P_N); a linear solve per pattern, then its inequalities."""
    k = len(base)
    found = []
    for pattern in itertools.product(
            itertools.product(('base', 'pressed'), ('stick', 1, -1)),
            repeat=k):
        A, rhs = np.zeros((2 * k, 2 * k)), np.zeros(2 * k)
        for j, (normal, tangent) in enumerate(pattern):
            n, t = 2 * j, 2 * j + 1
            if normal == 'base':
                A[n, n], rhs[n] = 1, base[j]
            else:
                A[n], rhs[n] = G[n], -v0[n]
            if tangent == 'stick':
                A[t], rhs[t] = G[t], -v0[t]
            else:
                A[t, t], A[t, n] = 1, mu[j] * tangent
        if abs(np.linalg.det(A)) < 1e-10:
            continue
        P = np.linalg.solve(A, rhs)
        v = v0 + G @ P
        tol = 1e-10 * (1 + np.abs(P).max())
        ok = all(P[2 * j] >= base[j] - tol and v[2 * j] >= -tol
                 for j in range(k))
        for j, (normal, tangent) in enumerate(pattern):
            vt, Pt, Pn = v[2 * j + 1], P[2 * j + 1], P[2 * j]
            if tangent == 'stick':
                ok &= abs(Pt) <= mu[j] * Pn + tol
            else:
                ok &= tangent * vt >= -tol
        if ok and not any(np.allclose(P, Q, atol=1e-8) for Q in found):
            found.append(P)
    return found


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 3))
def test_several_planar_contacts_match_enumeration(seed, k):
    rng = np.random.default_rng(seed)
    G = random_delassus(rng, 2 * k)
    v = rng.normal(size=2 * k)
    v[0::2] = np.minimum(v[0::2], 0)                  # struck or resting
    v[0:4:2] = -np.abs(v[0:4:2]) - 0.1                # two of them struck
    e, mu = rng.uniform(0, 1, k), rng.uniform(0, 1, k)
    layout = [(2 * j, (2 * j + 1,)) for j in range(k)]
    compression = phase_by_enumeration(G, v, mu, np.zeros(k))
    assume(len(compression) == 1)
    Pc = compression[0]
    expansion = phase_by_enumeration(G, v + G @ Pc, mu, e * Pc[0::2])
    assume(len(expansion) == 1)
    sol = solve_impact(G, v, layout, e, mu)
    tol = 1e-9 * (1 + np.abs(Pc).max()) * np.linalg.cond(G)
    assert np.allclose(sol.compression, Pc, atol=tol)
    assert np.allclose(sol.P, Pc + expansion[0], atol=tol)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1),
       tangents=st.lists(st.integers(0, 2), min_size=2, max_size=3))
def test_several_contacts_never_create_energy(seed, tangents):
    rng = np.random.default_rng(seed)
    layout, row = [], 0
    for m in tangents:
        layout.append((row, tuple(range(row + 1, row + 1 + m))))
        row += 1 + m
    G = random_delassus(rng, row)
    v = rng.normal(size=row)
    for j, (n, ts) in enumerate(layout):
        v[n] = min(v[n], 0.0)
    v[0] = -abs(v[0]) - 0.1
    k = len(layout)
    e, mu = rng.uniform(0, 1, k), rng.uniform(0, 1.5, k)
    sol = solve_impact(G, v, layout, e, mu)
    scale = np.abs(G).max() * np.abs(sol.P).max() ** 2
    assert kinetic_change(G, v, sol.P) <= 1e-9 * scale
    tol = 1e-9 * (np.abs(v).max() + np.abs(G).max() * np.abs(sol.P).max())
    for j, (n, ts) in enumerate(layout):
        assert sol.P[n] >= -tol and sol.v_plus[n] >= -tol
        assert np.linalg.norm(sol.P[list(ts)]) <= mu[j] * sol.P[n] + tol


def test_different_restitution_would_create_energy():
    # Poisson's law with e = (1, 0) at two coupled contacts: applied per
    # contact it gives energy to the system (+2.09 here; Glocker's
    # energetic consistency conditions fail for unequal coefficients), so
    # the smallest coefficient of the loaded contacts is used for both
    from sympy_loads._simulation.contact_problems import _two_phases
    G = np.array([[20.0, -1, 4, 16], [-1, 24, 0, 8], [4, 0, 7, 9],
                  [16, 8, 9, 24]])
    v = np.array([-1.0, -2.0, -1.0, 0.0])
    e, mu = np.array([1.0, 0.0]), np.array([1.0, 1.0])
    _, P_each, _, _ = _two_phases(G, v, TWO_PLANAR, mu, e)
    assert kinetic_change(G, v, P_each) > 2.0
    sol = solve_impact(G, v, TWO_PLANAR, e, mu)
    assert sol.restitution == (0.0, 0.0)
    assert kinetic_change(G, v, sol.P) < 0
    _, P_zero, _, _ = _two_phases(G, v, TWO_PLANAR, mu, np.zeros(2))
    assert np.allclose(sol.P, P_zero, atol=1e-12)
    # equal coefficients are kept as given
    sol = solve_impact(G, v, TWO_PLANAR, [0.5, 0.5], mu)
    assert sol.restitution == (0.5, 0.5)


def test_two_spheres_slide_on_the_disc():
    # two independent spheres (G block diagonal), slip directions between
    # the polygon's facets: Coulomb's disc exactly, P_t = -mu P_n s with
    # P_n = (1 + e) m |v_n| (Poisson = Stronge here: the normal is
    # decoupled and the slip direction fixed)
    m, R, e, mu = 2.0, 0.1, 0.6, 0.05
    Gs = sphere_delassus(m, R)
    G = np.zeros((6, 6))
    G[:3, :3] = G[3:, 3:] = Gs
    angles = np.radians([10.0, 117.0])
    v = np.array([-2.0, 3 * np.cos(angles[0]), 3 * np.sin(angles[0]),
                  -1.0, 2 * np.cos(angles[1]), 2 * np.sin(angles[1])])
    sol = solve_impact(G, v, [(0, (1, 2)), (3, (4, 5))], [e, e], [mu, mu])
    for n, a in zip((0, 3), angles):
        Pn = (1 + e) * m * -v[n]
        assert math.isclose(sol.P[n], Pn, rel_tol=1e-10)
        assert np.allclose(sol.P[n + 1:n + 3],
                           -mu * Pn * np.array([np.cos(a), np.sin(a)]),
                           atol=1e-10)
    assert sol.modes == ('slide', 'slide')


# ---------------------------------------------------------------------------
# Closed contacts: forces and accelerations
# ---------------------------------------------------------------------------

GRAVITY = 9.81


@pytest.mark.parametrize('incline, mu', [(20, 0.5), (30, 0.5), (30, 0.6)])
def test_block_on_incline(incline, mu):
    # a block (a particle, G = I/m) on an incline: rows [n, t downhill];
    # free acceleration (-g cos, g sin)
    m, a = 2.0, math.radians(incline)
    G = np.eye(2) / m
    a_free = GRAVITY * np.array([-math.cos(a), math.sin(a)])
    sol = solve_contact(G, a_free, PLANAR, [mu], {})
    assert isinstance(sol, ContactSolution)
    assert math.isclose(sol.lam[0], m * GRAVITY * math.cos(a), rel_tol=1e-12)
    assert math.isclose(sol.a[0], 0, abs_tol=1e-12)
    if math.tan(a) < mu:
        assert sol.modes == ('stick',)
        assert math.isclose(sol.lam[1], -m * GRAVITY * math.sin(a),
                            rel_tol=1e-12)
        assert math.isclose(sol.a[1], 0, abs_tol=1e-12)
    else:
        assert sol.modes == ('slide',)
        assert np.array_equal(sol.directions[0], [1.0])
        assert math.isclose(sol.a[1], GRAVITY * (math.sin(a) - mu * math.cos(
            a)), rel_tol=1e-12)
    # already sliding downhill (or up): friction against the given slip
    for d in (1.0, -1.0):
        sol = solve_contact(G, a_free, PLANAR, [mu], {0: [d]})
        assert sol.modes == ('slide',)
        expected = GRAVITY * (math.sin(a) - d * mu * math.cos(a))
        assert math.isclose(sol.a[1], expected, rel_tol=1e-12)


def test_rod_resting_on_two_supports():
    # horizontal rod (m, I) on supports at x1 < 0 < x2 from its centre:
    # statics gives lam1 = m g x2/(x2 - x1), lam2 = -m g x1/(x2 - x1)
    m, x1, x2 = 1.5, -0.3, 0.5
    G = planar_delassus(m, m * 1.2 ** 2 / 12, [(x1, 0.0), (x2, 0.0)])
    a_free = np.array([-GRAVITY, 0, -GRAVITY, 0])
    sol = solve_contact(G, a_free, TWO_PLANAR, [0.4, 0.4], {})
    W = m * GRAVITY
    assert np.allclose(sol.lam[0::2],
                       [W * x2 / (x2 - x1), -W * x1 / (x2 - x1)], rtol=1e-12)
    assert np.allclose(sol.a, 0, atol=1e-12)
    assert sol.modes == ('stick', 'stick')
    # pushed along its axis by F: sticks while F < mu m g (the split of the
    # holding force is indeterminate: only its sum is), else slides with
    # a = F/m - mu g
    for F in (0.3 * W, 0.6 * W):
        sol = solve_contact(G, a_free + F / m * np.array([0, 1, 0, 1]),
                            TWO_PLANAR, [0.4, 0.4], {})
        if F < 0.4 * W:
            assert sol.modes == ('stick', 'stick')
            assert math.isclose(sol.lam[1] + sol.lam[3], -F, rel_tol=1e-12)
        else:
            assert sol.modes == ('slide', 'slide')
            assert np.allclose(sol.a[1::2], F / m - 0.4 * GRAVITY, rtol=1e-12)
            assert np.allclose(sol.lam[1::2], -0.4 * sol.lam[0::2], rtol=1e-12)


@pytest.mark.parametrize('push', [0.5, 2.0])
def test_particle_pushed_on_rough_plane(push):
    # spatial contact, rows [n, t1, t2]; pushed along (cos 20, sin 20) by
    # push * m g: sticks below mu = 1, else slides exactly along the push
    # (between the polygon's directions) with a = (push - mu) g
    m, mu = 1.0, 1.0
    d = np.array([math.cos(0.35), math.sin(0.35)])
    a_free = np.concatenate([[-GRAVITY], push * GRAVITY * d])
    sol = solve_contact(np.eye(3) / m, a_free, [(0, (1, 2))], [mu], {})
    if push < mu:
        assert sol.modes == ('stick',)
        assert np.allclose(sol.a, 0, atol=1e-12)
    else:
        assert sol.modes == ('slide',)
        assert np.allclose(sol.directions[0], d, atol=1e-10)
        assert np.allclose(sol.a[1:], (push - mu) * GRAVITY * d, atol=1e-9)


def test_painleve_rod_raises():
    # Painleve's rod: uniform rod (m, half length l, I = m l^2 / 3) at 45
    # degrees, its lower end A sliding on a rough floor; r = A - centre =
    # -l (cos, sin). Rows [n = y, t = x]: G_nn = (1 + 3 cos^2)/m,
    # G_nt = -3 sin cos / m. Sliding with d = -1 (A moving towards -x, the
    # friction +mu lam_N along x): a_N = -g + (G_nn - mu d G_nt) lam_N
    # = -g + (2.5 - 1.5 mu) lam_N / m: with mu = 2 the coefficient is
    # negative and -g < 0, so no lam_N >= 0 gives a_N >= 0
    m, l, th = 1.0, 0.5, math.radians(45)
    inertia = m * l * l / 3
    G = planar_delassus(m, inertia, [(-l * math.cos(th), -l * math.sin(th))])
    assert math.isclose(G[0, 0] + 2 * G[0, 1], -0.5 / m, rel_tol=1e-12)
    a_free = np.array([-GRAVITY, 0.0])
    with pytest.raises(LCPError, match='contacts \\(0,\\)') as info:
        solve_contact(G, a_free, PLANAR, [2.0], {0: [-1.0]})
    assert info.value.contacts == (0,)
    assert info.value.residual > 0
    # lifted instead (a_N free > 0): indeterminate (open, or a force that
    # pulls it down faster); the open solution is the one returned
    sol = solve_contact(G, [1.0, 0.0], PLANAR, [2.0], {0: [-1.0]})
    assert sol.modes == ('open',) and sol.lam[0] == 0
    # with mu = 1 it is solvable: lam_N = m g / (2.5 - 1.5)
    sol = solve_contact(G, a_free, PLANAR, [1.0], {0: [-1.0]})
    assert math.isclose(sol.lam[0], GRAVITY * m / 1.0, rel_tol=1e-12)
    # beside a second contact that is fine (a particle resting on its own
    # floor), only the rod's contact is named
    G2 = np.zeros((4, 4))
    G2[:2, :2], G2[2:, 2:] = np.eye(2), G
    with pytest.raises(LCPError) as info:
        solve_contact(G2, [-GRAVITY, 0, -GRAVITY, 0], TWO_PLANAR, [0.5, 2.0],
                      {1: [-1.0]})
    assert info.value.contacts == (1,)


def test_tangent_without_effect():
    # a tangent row that no impulse moves (G_tt = 0, G_tn = 0): the slip
    # never changes, friction -mu P_n all through; at rest it holds with
    # no tangential impulse
    G = np.diag([2.0, 0.0])
    sol = solve_impact(G, [-1.0, 0.5], PLANAR, [0.5], [0.4])
    assert np.allclose(sol.P, [0.75, -0.3], atol=1e-15)
    sol = solve_impact(G, [-1.0, 0.0], PLANAR, [0.5], [0.4])
    assert np.allclose(sol.P, [0.75, 0.0], atol=1e-15)
    assert sol.modes == ('stick',)


def test_arguments_are_checked():
    with pytest.raises(ValueError, match='G must be 2 x 2'):
        solve_impact(np.eye(3), [-1.0, 0], PLANAR, 0.5, 0.3)
    with pytest.raises(ValueError, match=r'e must be finite, >= 0 and <= 1'):
        solve_impact(ROD_G, ROD_V, PLANAR, [1.5], [0.3])
    with pytest.raises(ValueError, match='mu must be finite, >= 0'):
        solve_contact(ROD_G, ROD_V, PLANAR, [-0.1], {})
    with pytest.raises(ValueError, match=r'layout\[0\]'):
        solve_impact(ROD_G, ROD_V, [(0, (1, 2))], 0.5, 0.3)
    with pytest.raises(ValueError, match=r'sliding\[0\] must be a unit'):
        solve_contact(ROD_G, ROD_V, PLANAR, [0.3], {0: [0.5]})
    # nothing to solve
    assert solve_impact(np.zeros((0, 0)), [], [], [], []).P.shape == (0,)
    assert solve_contact(np.zeros((0, 0)), [], [], [], {}).modes == ()
