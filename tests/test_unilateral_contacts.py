"""Lasting unilateral contacts: an Impact whose contact comes to rest closes
(its gap held at zero by a normal force lambda_N >= 0, with Coulomb
friction) and opens where lambda_N vanishes. References: closed forms (the
bouncing ball's Zeno time, a block on an incline, a pulled block, the
locking ball on a vibrating table), statics, and the work of friction."""

import math

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import ContactInterval, Impact, SimulationError, simulate

G = 9.81


def ball(e=0.8, table=None, mass=1.0):
    """A particle moving vertically above the floor y = 0 (or a table
    whose height is the expression ``table`` of time)."""
    y, v = me.dynamicsymbols('y v')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', y * N.y)
    P.set_vel(N, v * N.y)
    kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v])
    kane.kanes_equations([me.Particle('ball', P, mass)],
                         [(P, -mass * G * N.y)])
    plane = O if table is None else O.locatenew('T', table * N.y)
    impact = Impact(P, plane, N.y, N, restitution=e, name='floor')
    return kane, impact, (y, v)


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_bouncing_ball_comes_to_rest_and_the_floor_carries_it(backend):
    """e = 0.8 from h = 1: the impacts accumulate at the Zeno time
    sqrt(2h/g) (1 + 2e/(1 - e)); the engine stops bouncing where the
    approach speed falls below 1e-4 of the first (a plastic impact, before
    the Zeno time by the rest of the geometric series, at most 2e 1e-4 v1
    / (g (1 - e))), and the contact then stays closed with lambda_N = m g
    and the ball at rest on the floor."""
    h, e, m = 1.0, 0.8, 2.0
    kane, impact, (y, v) = ball(e, mass=m)
    v1 = math.sqrt(2 * G * h)
    zeno = math.sqrt(2 * h / G) * (1 + 2 * e / (1 - e))
    res = simulate(kane, (0, 10), {y: h, v: 0.0}, {}, impacts=[impact],
                   backend=backend, t_eval=np.linspace(0, 10, 101),
                   rtol=1e-10, atol=1e-12)
    assert res.success
    interval, = res.contacts
    assert isinstance(interval, ContactInterval)
    assert interval.index == 0 and interval.name == 'floor'
    # the last impact is the plastic one: its approach speed is the first
    # below 1e-4 v1, the geometric series' e**k v1
    k = math.ceil(math.log(1e-4) / math.log(e))
    assert len(res.impacts) == k + 1
    last = res.impacts[-1]
    assert -last.normal_speed_before == pytest.approx(v1 * e ** k, abs=1e-8)
    assert last.normal_speed_after == pytest.approx(0.0, abs=1e-12)
    bound = 2 * e * 1e-4 * v1 / (G * (1 - e))
    assert zeno - bound <= interval.start <= zeno
    # the rest of the series after the plastic impact (rel. to the time)
    assert interval.start == pytest.approx(
        zeno - 2 * e * v1 * e ** k / (G * (1 - e)), abs=1e-8)
    assert interval.end == 10.0
    assert np.all(interval.t >= interval.start)
    assert interval.t.tolist() == res.t[res.t >= interval.start].tolist()
    assert interval.normal_force == pytest.approx(m * G, rel=1e-12)
    assert np.all(interval.tangential_force == 0.0)
    assert interval.sticking.all()
    rest = res.t >= interval.start
    assert np.abs(res.q[rest, 0]).max() < 1e-10
    assert np.abs(res.u[rest, 0]).max() < 1e-10
    assert interval.gap_drift < 1e-10
    assert 'floor' in repr(interval)


def test_ball_resting_at_the_start_stays_and_a_plastic_drop_closes():
    """At rest on the floor at t0 (every restitution): closed from t0 with
    lambda_N = m g. A plastic impact (e = 0) at sqrt(2h/g) closes the
    contact at once."""
    for e in (0.0, 0.8, 1.0):
        kane, impact, (y, v) = ball(e)
        res = simulate(kane, (0, 1), {y: 0.0, v: 0.0}, {}, impacts=[impact])
        assert res.success and not res.impacts
        interval, = res.contacts
        assert (interval.start, interval.end) == (0.0, 1.0)
        assert interval.normal_force == pytest.approx(G, rel=1e-12)
        assert np.abs(res.q[:, 0]).max() < 1e-12
    kane, impact, (y, v) = ball(0.0)
    res = simulate(kane, (0, 2), {y: 1.0, v: 0.0}, {}, impacts=[impact])
    assert res.success and len(res.impacts) == 1
    interval, = res.contacts
    assert interval.start == pytest.approx(math.sqrt(2 / G), rel=1e-9)
    assert res.impacts[0].time == interval.start
    assert interval.normal_force == pytest.approx(G, rel=1e-12)


def test_pulled_block_lifts_off_where_its_normal_force_vanishes():
    """A block of mass m resting on the floor, pulled up by F = c t: the
    floor carries m g - c t until t0 = m g / c, then the block rises with
    y = c (t - t0)**3 / (6 m)."""
    y, v = me.dynamicsymbols('y v')
    t = me.dynamicsymbols._t
    m, c = 2.0, 5.0
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', y * N.y)
    P.set_vel(N, v * N.y)
    kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v])
    kane.kanes_equations([me.Particle('block', P, m)],
                         [(P, (c * t - m * G) * N.y)])
    floor = Impact(P, O, N.y, N, restitution=0.5, name='floor')
    t0 = m * G / c
    samples = np.linspace(0, 6, 61)
    for backend in ('compiled', 'numpy'):
        res = simulate(kane, (0, 6), {y: 0.0, v: 0.0}, {}, impacts=[floor],
                       t_eval=samples, backend=backend, rtol=1e-10,
                       atol=1e-12)
        assert res.success and not res.impacts
        interval, = res.contacts
        assert interval.start == 0.0
        assert interval.end == pytest.approx(t0, abs=1e-9)
        assert interval.normal_force == pytest.approx(
            m * G - c * interval.t, abs=1e-9)
        after = res.t > t0
        assert res.q[after, 0] == pytest.approx(
            c * (res.t[after] - t0) ** 3 / (6 * m), rel=1e-7)


def test_ball_on_a_vibrating_table_locks_and_takes_off_at_arcsin():
    """A ball with e = 0.3 on a table moving y_T = A sin(w t), Gamma =
    A w**2 / g = 1.2, resting on it at t = 0: it is carried until the
    table's downward acceleration reaches g, at the phase arcsin(1/Gamma),
    flies, chatters down onto the table, locks again and takes off at the
    same phase in every later cycle."""
    w = 2 * math.pi
    gamma, e = 1.2, 0.3
    A = gamma * G / w ** 2
    t = me.dynamicsymbols._t
    kane, impact, (y, v) = ball(e, table=A * sm.sin(w * t))
    res = simulate(kane, (0, 6), {y: 0.0, v: A * w}, {}, impacts=[impact],
                   rtol=1e-11, atol=1e-12)
    assert res.success
    take_offs = [interval.end for interval in res.contacts
                 if interval.end < 6.0]
    assert len(take_offs) >= 4
    phase = math.asin(1 / gamma)
    for time in take_offs:
        assert (w * time) % (2 * math.pi) == pytest.approx(phase, abs=1e-6)
    # while locked the floor carries m (g + table acceleration)
    for interval in res.contacts:
        table_acceleration = -A * w ** 2 * np.sin(w * interval.t)
        assert interval.normal_force == pytest.approx(
            G + table_acceleration, abs=1e-7)


ROD_MASS, ROD_LENGTH = 2.0, 1.2


def rod(e, mu=0.0, load=0.0, at=0.0):
    """A uniform planar rod (centre x, y, angle theta) under gravity with
    a contact at each end (A at -L/2 along the rod, B at +L/2) on the
    floor y = 0, and a vertical load ``load`` at ``at`` along the rod."""
    x, y, th = me.dynamicsymbols('x y theta')
    vx, vy, w = me.dynamicsymbols('v_x v_y omega')
    m, L = ROD_MASS, ROD_LENGTH
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', (th, N.z))
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    Gc = O.locatenew('G', x * N.x + y * N.y)
    Gc.set_vel(N, vx * N.x + vy * N.y)
    ends = []
    for name, sign in (('A', -1), ('B', 1)):
        end = Gc.locatenew(name, sign * L / 2 * B.x)
        end.v2pt_theory(Gc, N, B)
        ends.append(Impact(end, O, N.y, N, restitution=e,
                           friction_coefficient=mu, name=name))
    Q = Gc.locatenew('Q', at * B.x)
    Q.v2pt_theory(Gc, N, B)
    body = me.RigidBody('rod', Gc, B, m,
                        (me.inertia(B, 0, 0, m * L ** 2 / 12), Gc))
    kane = me.KanesMethod(N, [x, y, th], [vx, vy, w],
                          kd_eqs=[x.diff() - vx, y.diff() - vy,
                                  th.diff() - w])
    kane.kanes_equations([body], [(Gc, -m * G * N.y), (Q, -load * N.y)])
    return kane, ends, (x, y, th, vx, vy, w)


@pytest.mark.parametrize('mu', [0.0, 0.5])
def test_rod_resting_on_two_contacts_carries_the_statics(mu):
    """A horizontal rod at rest on both ends with a load F at s from the
    centre: lambda_A = m g / 2 + F (L/2 - s) / L, lambda_B = m g + F -
    lambda_A (moments about the ends); without friction or with it, no
    motion."""
    F, s = 3.0, 0.4
    kane, ends, (x, y, th, vx, vy, w) = rod(0.5, mu, F, s)
    res = simulate(kane, (0, 1), {x: 0.0, y: 0.0, th: 0.0, vx: 0.0,
                                  vy: 0.0, w: 0.0}, {}, impacts=ends)
    assert res.success and not res.impacts
    first, second = res.contacts
    assert {first.name, second.name} == {'A', 'B'}
    forces = {i.name: i.normal_force for i in res.contacts}
    lam_a = ROD_MASS * G / 2 + F * (ROD_LENGTH / 2 - s) / ROD_LENGTH
    assert forces['A'] == pytest.approx(lam_a, rel=1e-10)
    assert forces['B'] == pytest.approx(ROD_MASS * G + F - lam_a, rel=1e-10)
    assert np.abs(res.y).max() < 1e-10


def test_rod_falling_flat_plastically_comes_to_rest_on_both_ends():
    """Dropped flat from 0.3 with e = 0: both ends strike at once, the rod
    stops, and both contacts close carrying m g / 2 each."""
    kane, ends, (x, y, th, vx, vy, w) = rod(0.0)
    res = simulate(kane, (0, 1), {x: 0.0, y: 0.3, th: 0.0, vx: 0.0,
                                  vy: 0.0, w: 0.0}, {}, impacts=ends)
    assert res.success and len(res.impacts) == 2
    strike = math.sqrt(2 * 0.3 / G)
    for interval in res.contacts:
        assert interval.start == pytest.approx(strike, rel=1e-9)
        assert interval.normal_force == pytest.approx(ROD_MASS * G / 2,
                                                      rel=1e-9)
    # (the impact time is sampled before and after the jump)
    assert np.abs(res.u[res.t > strike + 1e-6]).max() < 1e-9


def test_rod_pivots_on_one_end_when_the_other_would_pull():
    """A horizontal rod resting on both ends with a load F beyond end B (s
    > L/2) large enough to make the statics' lambda_A = m g / 2 + F (L/2 -
    s) / L negative: A does not close; the rod pivots on B, which carries
    lambda_B = m g + F - m (L/2) theta'' with theta'' = ((L/2)(m g + F) -
    F s) / (m L**2 / 3) (Newton-Euler at the start, B held on the
    frictionless floor), and end A rises."""
    F, s = 30.0, 1.0
    m, L = ROD_MASS, ROD_LENGTH
    assert m * G / 2 + F * (L / 2 - s) / L < 0
    kane, ends, (x, y, th, vx, vy, w) = rod(0.0, 0.0, F, s)
    res = simulate(kane, (0, 0.05), {x: 0.0, y: 0.0, th: 0.0, vx: 0.0,
                                     vy: 0.0, w: 0.0}, {}, impacts=ends,
                   t_eval=[0.0, 0.001], rtol=1e-10, atol=1e-12)
    assert res.success
    interval, = res.contacts
    assert interval.name == 'B' and interval.end == 0.05
    alpha = (L / 2 * (m * G + F) - F * s) / (m * L ** 2 / 3)
    assert interval.normal_force[0] == pytest.approx(
        m * G + F - m * L / 2 * alpha, rel=1e-10)
    assert res.q[1, 2] == pytest.approx(alpha * 0.001 ** 2 / 2, rel=1e-3)
    assert res.q[1, 1] - L / 2 * math.sin(res.q[1, 2]) > 0      # A rises
