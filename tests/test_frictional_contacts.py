"""Rigid contacts with friction, model by model, against references that
share no code with the engine: a rod striking a rough floor (by hand,
Stronge's energetic coefficient), Housner's rocking block (the ratio
1 - 1.5 sin^2(alpha), the amplitudes from energy, and free rocking about
the corner as a one-degree-of-freedom pendulum integrated by SciPy), the
ball locking onto a vibrating table (take-off at the phase arcsin(1/Gamma),
the force of a ball riding the table) and the woodpecker toy's periodic
cycle (beside a Moreau time-stepping of Glocker's equations written out
by hand)."""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.interpolate import CubicHermiteSpline
from scipy.optimize import minimize_scalar

from sympy_loads import simulate
from sympy_loads.examples import (falling_rod, rocking_block,
                                  vibrating_table, woodpecker)


# --- the rod striking a rough floor --------------------------------------
#
# Rod m = 1, L = 1, I = 1/12 at 45 degrees, its center moving down at 1 m/s
# without spin when the end A lands; e = 0.5. With the rows [n, t] (A's
# vertical and horizontal speeds) the Delassus matrix is [[2.5, -1.5],
# [-1.5, 2.5]]. Stick (mu = 0.8): P_t/P_n = 1.5/2.5 = 0.6 < mu, the normal
# speed grows by 2.5 - 1.5*0.6 = 1.6 per unit impulse, compression ends at
# 1/1.6 and Stronge's energetic coefficient gives P_n = 1.5/1.6 = 0.9375,
# P_t = 0.5625; the angular impulse about G, (L/2)(P_t - P_n)/sqrt(2),
# over I: omega+ = -1.590990. Slip (mu = 0.3): P_t = 0.3 P_n throughout,
# slope 2.5 - 0.45 = 2.05, P_n = 1.5/2.05 = 0.731707, omega+ =
# 12*(0.5/sqrt(2))*(0.3 - 1)*P_n = -2.173060.
ROD_HAND = {0.8: (1.5 / 1.6, 0.6 * 1.5 / 1.6,
                  12 * 0.5 / math.sqrt(2) * (0.6 - 1) * 1.5 / 1.6),
            0.3: (1.5 / 2.05, 0.3 * 1.5 / 2.05,
                  12 * 0.5 / math.sqrt(2) * (0.3 - 1) * 1.5 / 2.05)}


def test_rod_hand_values_are_the_issues():
    """The hand derivation above gives the numbers of the issue."""
    assert ROD_HAND[0.8] == pytest.approx((0.9375, 0.5625, -1.590990),
                                          abs=1e-6)
    assert ROD_HAND[0.3][0] == pytest.approx(0.731707, abs=1e-6)
    assert ROD_HAND[0.3][2] == pytest.approx(-2.173060, abs=1e-6)


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
@pytest.mark.parametrize('mu', [0.8, 0.3], ids=['stick', 'slip'])
def test_rod_striking_rough_floor(mu, backend):
    model = falling_rod.build_model()
    s = model.symbols
    # no gravity: the rod arrives at 45 degrees, v_G = -1 m/s, no spin
    par = {'g': 0.0}
    start = falling_rod.initial_conditions(model, height=0.1,
                                           parameters=par)
    constants = {s['m']: 1.0, s['L']: 1.0, s['g']: 0.0, s['e']: 0.5,
                 s['mu']: mu}
    res = simulate(model.kane, (0, 0.2), start, constants,
                   impacts=[model.impact], rtol=1e-12, atol=1e-14,
                   backend=backend)
    assert res.success
    assert len(res.impacts) == 1
    hit = res.impacts[0]
    assert hit.time == pytest.approx(0.1, abs=1e-11)
    p_n, p_t, omega = ROD_HAND[mu]
    assert hit.impulse == pytest.approx(p_n, abs=1e-9)
    assert falling_rod.horizontal_impulse(model.impact, hit) == \
        pytest.approx(p_t, abs=1e-9)
    assert hit.u_after[2] == pytest.approx(omega, abs=1e-9)
    # momentum: the impulses are the changes of the center's speeds (m = 1)
    assert hit.u_after[0] == pytest.approx(p_t, abs=1e-9)
    assert hit.u_after[1] == pytest.approx(-1 + p_n, abs=1e-9)
    # energy never grows; stick: A leaves without slip
    kinetic = [0.5 * (u[0]**2 + u[1]**2) + u[2]**2 / 24
               for u in (hit.u_before, hit.u_after)]
    assert kinetic[1] < kinetic[0]
    slip_after = hit.tangential_speed_after[0]
    if mu == 0.8:
        assert abs(slip_after) < 1e-9
    else:
        assert slip_after < -1e-3       # still sliding towards -x


# --- Housner's rocking block ---------------------------------------------

B, H = 0.1, 0.4           # Housner's 0.2 m x 0.8 m block


def _pinned_block(theta0, t_end):
    """Free rocking about the bottom left corner, fixed: the pendulum
    ``I_O theta'' = -m g R sin(alpha - theta)``, ``I_O = 4/3 m R^2``,
    integrated by SciPy from rest at ``theta0`` until theta = 0."""
    R, alpha = math.hypot(B, H), math.atan2(B, H)
    g = rocking_block.PARAMETERS['g']

    def rhs(t, y):
        return [y[1], -g * math.sin(alpha - y[0]) / (4 / 3 * R)]

    def flat(t, y):
        return y[0]
    flat.terminal, flat.direction = True, -1
    return solve_ivp(rhs, (0, t_end), [theta0, 0.0], method='DOP853',
                     rtol=1e-12, atol=1e-14, events=flat,
                     dense_output=True)


@pytest.fixture(scope='module')
def rocking_to_rest():
    """The block from its tilt until it has come to rest (7 s)."""
    return rocking_block.run(duration=7.0)


@pytest.fixture(scope='module')
def rocking(rocking_to_rest):
    """The first 3 s (the free rocking cycles) of ``rocking_to_rest``:
    its samples and impacts up to then (one run serves both)."""
    model, result = rocking_to_rest
    kept = result.t <= 3.0
    return model, SimpleNamespace(
        t=result.t[kept], q=result.q[kept], u=result.u[kept],
        impacts=[r for r in result.impacts if r.time <= 3.0])


def _struck(result):
    return [r for r in result.impacts if r.normal_speed_before < 0
            and r.impulse > 0]


def test_rocking_about_a_corner_is_a_pinned_pendulum(rocking):
    """Until the first impact the block turns about its sticking corner:
    theta(t) and the impact time are those of the pinned pendulum."""
    _, result = rocking
    theta0 = rocking_block.PARAMETERS['theta0']
    pendulum = _pinned_block(theta0, 2.0)
    first = _struck(result)[0]
    assert first.time == pytest.approx(pendulum.t_events[0][0], abs=1e-8)
    before = result.t < first.time
    assert np.max(np.abs(result.q[before, 2]
                         - pendulum.sol(result.t[before])[0])) < 1e-8
    # the corner does not move: x, y of G follow theta
    th = result.q[before, 2]
    assert np.max(np.abs(result.q[before, 0] - (B * np.cos(th)
                                                - H * np.sin(th)))) < 1e-9
    assert np.max(np.abs(result.q[before, 1] - (B * np.sin(th)
                                                + H * np.cos(th)))) < 1e-9


def test_housner_ratio(rocking):
    _, result = rocking
    alpha = math.atan2(B, H)
    ratio = 1 - 1.5 * math.sin(alpha)**2
    struck = _struck(result)
    assert len(struck) >= 6
    for record in struck:
        assert record.u_after[2] / record.u_before[2] == pytest.approx(
            ratio, abs=1e-8)
        # the struck corner sticks: no slip after the impact
        assert abs(record.tangential_speed_after[0]) < 1e-9
        # the impulses are the changes of the center's momentum (m = 1),
        # all on the struck corner (the old pivot lifts off without one):
        # G moves as omega x r_G about the old corner before and about the
        # new one after, so P_n = b (1 + r) |omega-| and
        # |P_t|/P_n = h (1 - r)/(b (1 + r))
        same = [r for r in result.impacts if r.time == record.time]
        assert sum(r.impulse for r in same) == pytest.approx(
            record.u_after[1] - record.u_before[1], abs=1e-12)
        assert record.impulse == pytest.approx(
            B * (1 + ratio) * abs(record.u_before[2]), rel=1e-9)
        p_t = sum(r.tangential_impulse[0] for r in same)
        assert p_t == pytest.approx(record.u_after[0] - record.u_before[0],
                                    abs=1e-12)
        assert abs(p_t) / record.impulse == pytest.approx(
            H * (1 - ratio) / (B * (1 + ratio)), rel=1e-9)


def _extrema(result):
    """The largest |theta| between successive impacts, from the cubic
    Hermite interpolant of the samples (theta and omega) around the
    sample of largest |theta|."""
    t, th, w = result.t, result.q[:, 2], result.u[:, 2]
    times = [0.0] + [r.time for r in _struck(result)] + [t[-1]]
    found = []
    for start, end in zip(times[1:-1], times[2:]):
        inside = np.nonzero((t > start) & (t < end))[0]
        i = inside[np.argmax(np.abs(th[inside]))]
        j = slice(max(i - 1, inside[0]), min(i + 2, inside[-1] + 1))
        spline = CubicHermiteSpline(t[j], np.abs(th[j]),
                                    np.sign(th[j]) * w[j])
        best = minimize_scalar(lambda s: -spline(s), bounds=(t[j][0],
                               t[j][-1]), method='bounded',
                               options={'xatol': 1e-12})
        found.append(-best.fun)
    return np.array(found)


def test_rocking_amplitudes_from_energy(rocking):
    """Between impacts the block rocks about a fixed corner with constant
    energy, m g R cos(alpha - |theta|) at the top; each impact keeps r^2 of
    the kinetic energy: cos(alpha - theta_{n+1}) = cos(alpha) +
    r^2 (cos(alpha - theta_n) - cos(alpha))."""
    _, result = rocking
    alpha = math.atan2(B, H)
    r2 = (1 - 1.5 * math.sin(alpha)**2)**2
    expected = [rocking_block.PARAMETERS['theta0']]
    extrema = _extrema(result)
    assert len(extrema) >= 5
    for _ in extrema:
        level = math.cos(alpha) + r2 * (math.cos(alpha - expected[-1])
                                        - math.cos(alpha))
        expected.append(alpha - math.acos(level))
    np.testing.assert_allclose(extrema, expected[1:], rtol=0, atol=1e-8)
    # the example's own accounting (energy just after each impact) agrees
    np.testing.assert_allclose(rocking_block.rocking_amplitudes(result)[1:
                               len(extrema) + 1], expected[1:], atol=1e-8)


# --- the ball locking onto a vibrating table -----------------------------

@pytest.fixture(scope='module', params=['compiled', 'numpy'])
def locking(request):
    return vibrating_table.run(duration=3.0, backend=request.param)


def test_locking_ball_takes_off_at_arcsin(locking):
    _, result = locking
    par = vibrating_table.PARAMETERS
    phase = math.asin(1 / par['Gamma'])
    takeoffs = vibrating_table.takeoffs(result)
    assert len(takeoffs) >= 3
    for time, found in takeoffs:
        assert found == pytest.approx(phase, abs=1e-6), time


def test_locked_ball_rides_the_table(locking):
    """While closed, the ball moves with the table: its force is
    m (g + y_T'') = m (g - A w^2 sin(w t)) and its height A sin(w t)."""
    _, result = locking
    par = vibrating_table.PARAMETERS
    A, w = vibrating_table.amplitude(), par['w']
    assert result.contacts
    for contact in result.contacts:
        if len(contact.t) == 0:
            continue
        expected = par['m'] * (par['g'] - A * w**2 * np.sin(w * contact.t))
        np.testing.assert_allclose(contact.normal_force, expected, rtol=0,
                                   atol=1e-8 * par['m'] * par['g'])
        inside = (result.t >= contact.start) & (result.t <= contact.end)
        np.testing.assert_allclose(result.q[inside, 0],
                                   A * np.sin(w * result.t[inside]),
                                   rtol=0, atol=1e-9)


# --- the woodpecker toy --------------------------------------------------
#
# Glocker's equations written out by hand (Glocker 1995; Leine, Glocker and
# van Campen 2003): q = (y, phiM, phiS), constant mass matrix, the force
# vector h(q), and per contact (sleeve lower edge, upper edge, beak) the
# gap, the normal and tangential directions w_N, w_T (columns of W).

WP = woodpecker.PARAMETERS


def _glocker():
    p = WP
    a = np.array([1.0, p['lM'], p['lG']])
    mass = np.diag([p['mM'], p['JM'], p['JS']]) + p['mS'] * np.outer(a, a)

    def forces(q):
        _, phi_m, phi_s = q
        return np.array([-(p['mM'] + p['mS']) * p['g'],
                         -p['c_phi'] * (phi_m - phi_s) - p['mS'] * p['g']
                         * p['lM'],
                         -p['c_phi'] * (phi_s - phi_m) - p['mS'] * p['g']
                         * p['lG']])

    def gaps(q):
        _, phi_m, phi_s = q
        return np.array([p['rM'] - p['r0'] + p['hM'] * phi_m,
                         p['rM'] - p['r0'] - p['hM'] * phi_m,
                         p['lM'] + p['lG'] - p['lS'] - p['r0']
                         - p['hS'] * phi_s])
    w_n = np.array([[0, p['hM'], 0], [0, -p['hM'], 0], [0, 0, -p['hS']]]).T
    w_t = np.array([[1, p['rM'], 0], [1, p['rM'], 0],
                    [1, p['lM'], p['lG'] - p['lS']]]).T
    return mass, forces, gaps, w_n, w_t


def test_woodpecker_model_is_glockers():
    """The SymPy model (bodies, loads, Impact points) gives Glocker's mass
    matrix, forces, gaps and contact directions, at random states."""
    import sympy as sm
    model = woodpecker.build_model()
    constants = woodpecker.constants_of(model)
    mass, forces, gaps, w_n, w_t = _glocker()
    states = list(model.q) + list(model.u)
    M = sm.lambdify(states, model.kane.mass_matrix.xreplace(constants))
    F = sm.lambdify(states, model.kane.forcing.xreplace(constants))
    rows = [impact.contact_directions(model.u, model.kane.kindiffdict())[0]
            for impact in model.impacts]
    W = sm.lambdify(states, sm.Matrix.hstack(*[r[:2, :].T for r in rows])
                    .xreplace(constants))
    g = sm.lambdify(states, [i.gap.xreplace(constants)
                             for i in model.impacts])
    rng = np.random.default_rng(7)
    for _ in range(5):
        x = rng.uniform(-0.3, 0.3, 6)
        np.testing.assert_allclose(M(*x), mass, rtol=1e-12, atol=0)
        np.testing.assert_allclose(np.ravel(F(*x)), forces(x[:3]),
                                   rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(g(*x), gaps(x[:3]), rtol=0, atol=1e-15)
        directions = np.asarray(W(*x), dtype=float)
        np.testing.assert_allclose(directions[:, 0::2], w_n, atol=1e-15)
        np.testing.assert_allclose(directions[:, 1::2], w_t, atol=1e-15)


def _moreau(duration, dt):
    """Moreau's midpoint time-stepping of Glocker's equations (Acary and
    Brogliato 2008; the impact law at velocity level with Newton's
    restitution e_N per contact, e_T = 0), the contact impulses of each
    step by projected Gauss-Seidel on the Delassus matrix. Returns
    ``[(time, y)]`` of the beak's impacts (the midpoint of the first step
    of each closed phase of the beak) and the sleeve's height there. First
    order: the times are right to about dt. Up to the first beak impact
    the impacts are plastic (the sleeve's), where Newton's law and
    Stronge's (the engine's) agree; at the beak (e = 0.5, the slip
    stopping during the impact) they differ, so only the first cycle is a
    reference."""
    mass, forces, gaps, w_n, w_t = _glocker()
    minv = np.linalg.inv(mass)
    mu = np.full(3, WP['mu'])
    e_n = np.array([WP['e_sleeve'], WP['e_sleeve'], WP['e_beak']])
    (q0, u0) = woodpecker.CYCLE_STATE
    q = np.array([q0[0], -(WP['rM'] - WP['r0']) / WP['hM'], q0[2]])
    u = np.array(u0, dtype=float)
    beak, closed_before = [], False
    for step in range(int(round(duration / dt))):
        q_mid = q + dt / 2 * u
        free = minv @ forces(q_mid) * dt
        active = gaps(q_mid) <= 0
        u_new = u + free
        if active.any():
            n = int(active.sum())
            W = np.hstack([w_n[:, active], w_t[:, active]])
            G = W.T @ minv @ W
            gamma = W.T @ u
            bias = gamma + W.T @ free + np.concatenate(
                [e_n[active], np.zeros(n)]) * gamma
            P = _gauss_seidel(G.tolist(), bias.tolist(),
                              mu[active].tolist())
            u_new = u_new + minv @ (W @ np.array(P))
            if active[2] and not closed_before:
                beak.append(((step + 0.5) * dt, q_mid[0]))
        closed_before = bool(active[2])
        q = q + dt / 2 * (u + u_new)
        u = u_new
    return np.array(beak)


def _gauss_seidel(G, bias, mu):
    """The impulses ``[P_N, P_T]`` of projected Gauss-Seidel on the
    Delassus matrix ``G`` (lists of floats: the contacts are few, and
    plain floats are several times faster here than small arrays): each
    normal impulse projected on P_N >= 0, each tangential one on |P_T| <=
    mu P_N, until no impulse changes by 1e-15 (at most 500 sweeps)."""
    n, size = len(mu), len(bias)
    P = [0.0] * size
    for _ in range(500):
        change = 0.0
        for j in range(n):
            for k in (j, n + j):
                row = G[k]
                value = P[k] - (sum(row[i] * P[i] for i in range(size))
                                + bias[k]) / row[k]
                bound = mu[j] * P[j]
                value = (max(0.0, value) if k == j else
                         min(bound, max(-bound, value)))
                change = max(change, abs(value - P[k]))
                P[k] = value
        if change < 1e-15:
            break
    return P


def test_woodpecker_first_beak_impact_matches_moreau():
    """From the state on the cycle to the first beak impact: the sleeve's
    lower edge closed (sticking, then sliding) for 67 ms, released, the
    upper edge struck plastically with friction, the beak struck. Moreau's
    scheme at dt and dt/2, extrapolated to dt = 0 (first order); its error
    is bounded by the difference of the two plus the step (the detection
    of the impact to within a step)."""
    coarse, fine = 1e-5, 5e-6
    first = [_moreau(0.082, dt)[0] for dt in (coarse, fine)]
    extrapolated = 2 * first[1] - first[0]
    bound = 2 * np.abs(first[1] - first[0]) + np.array([fine, 0.0])
    _, result = woodpecker.run(duration=0.082)
    times, heights = woodpecker.cycles(result)
    assert len(times) == 1
    assert abs(times[0] - extrapolated[0]) <= bound[0] + fine
    assert abs(heights[0] - extrapolated[1]) <= bound[1] + 1e-6
    # the first closed interval is the lower edge's, from the start,
    # sticking and then sliding
    closed = result.contacts[0]
    assert closed.name == 'sleeve, lower edge' and closed.start == 0
    assert closed.sticking.any() and not closed.sticking.all()


def test_woodpecker_periodic_cycle():
    """From the periodic state, the beak strikes every PERIOD seconds, the
    toy moves down DESCENT per cycle, and the state after each beak impact
    is the start again: to the integration's accuracy (rtol 1e-10: about
    1e-11 s a cycle; the periodic state itself has a residual below 1e-12,
    and the cycle's multiplier, about -0.6, damps any deviation)."""
    model = woodpecker.build_model()
    phi_m, v, w_m, w_s = woodpecker.PERIODIC_STATE
    start = dict(zip(model.q, (0.0, phi_m, woodpecker.beak_angle())))
    start.update(zip(model.u, (v, w_m, w_s)))
    result = simulate(model.kane, (0, 3.2 * woodpecker.PERIOD), start,
                      woodpecker.constants_of(model),
                      impacts=model.impacts, rtol=1e-10, atol=1e-13)
    times, heights = woodpecker.cycles(result)
    assert len(times) == 3
    np.testing.assert_allclose(np.diff(np.concatenate([[0.0], times])),
                               woodpecker.PERIOD, rtol=0, atol=1e-9)
    np.testing.assert_allclose(-np.diff(np.concatenate([[0.0], heights])),
                               woodpecker.DESCENT, rtol=0, atol=1e-10)
    for record in woodpecker.beak_impacts(result):
        i = int(np.nonzero(result.t == record.time)[0][0])
        state = np.array([result.q[i, 1], *record.u_after])
        np.testing.assert_allclose(state, woodpecker.PERIODIC_STATE,
                                   rtol=0, atol=1e-7)


def test_woodpecker_approaches_the_cycle():
    """From the published state on the cycle (Glocker's model with
    Newton's restitution at the beak), the engine's cycle (Stronge's
    coefficient at the beak) is approached alternately from above and
    below, the deviation shrinking by about 0.6 a cycle."""
    _, result = woodpecker.run(duration=1.0)
    times, _ = woodpecker.cycles(result)
    deviation = np.diff(times) - woodpecker.PERIOD
    assert len(deviation) >= 5
    assert np.all(np.sign(deviation[1:]) == -np.sign(deviation[:-1]))
    assert abs(deviation[-1]) < 0.5 * abs(deviation[0])


def test_rocking_block_comes_to_rest_on_both_corners(rocking_to_rest):
    """The rocking impacts accumulate (each keeps r of the angular speed
    and the half-cycles shorten with the amplitude): the block comes to
    rest flat, both corners closed, each carrying m g/2, at the sum of
    the pinned pendulum's half-cycles over the amplitudes from energy.
    The engine ends the series where the approach speed falls below
    RELATIVE_REST_SPEED (1e-4) of the first: the half-cycles left then
    are shorter than 1e-4 of the first times 1/(1 - r)."""
    model, result = rocking_to_rest
    alpha = math.atan2(B, H)
    r = 1 - 1.5 * math.sin(alpha)**2
    r2 = r**2
    theta = rocking_block.PARAMETERS['theta0']
    quarter = _pinned_block(theta, 2.0).t_events[0][0]
    rest, first = quarter, None
    while theta > 1e-14:
        level = math.cos(alpha) + r2 * (math.cos(alpha - theta)
                                        - math.cos(alpha))
        theta = alpha - math.acos(level)
        half = 2 * _pinned_block(theta, 2.0).t_events[0][0]
        first = first or half
        rest += half
    closed = {c.name: c for c in result.contacts if c.end == 7.0}
    assert sorted(closed) == ['corner C1', 'corner C2']
    start = max(c.start for c in closed.values())
    assert start == pytest.approx(rest, abs=1e-4 * first / (1 - r))
    at_rest = result.t > start + 1e-6
    assert np.max(np.abs(result.u[at_rest])) < 1e-12
    g = rocking_block.PARAMETERS['g']
    m = rocking_block.PARAMETERS.get('m', 1.0)
    for contact in closed.values():
        flat = contact.t > start + 1e-6
        assert flat.sum() > 100
        np.testing.assert_allclose(contact.normal_force[flat], m * g / 2,
                                   rtol=1e-9)
