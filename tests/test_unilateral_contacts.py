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

from _contact_models import (G, ROD_LENGTH, ROD_MASS, ball,
                             slider_crank_with_stop, two_ended_rod)


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_bouncing_ball_comes_to_rest_and_the_floor_carries_it(backend):
    """e = 0.8 from h = 1: the impacts accumulate at the Zeno time
    sqrt(2h/g) (1 + 2e/(1 - e)); the engine stops bouncing where the
    approach speed falls below 1e-4 of the first (a plastic impact, before
    the Zeno time by the rest of the geometric series, at most 2e 1e-4 v1
    / (g (1 - e))), and the contact then stays closed with lambda_N = m g
    and the ball at rest on the floor."""
    h, e, m = 1.0, 0.8, 2.0
    kane, impact, (y, v), constants = ball(e, mass=m)
    v1 = math.sqrt(2 * G * h)
    zeno = math.sqrt(2 * h / G) * (1 + 2 * e / (1 - e))
    res = simulate(kane, (0, 10), {y: h, v: 0.0}, constants,
                   impacts=[impact], backend=backend,
                   t_eval=np.linspace(0, 10, 101),
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
        kane, impact, (y, v), constants = ball(e)
        res = simulate(kane, (0, 1), {y: 0.0, v: 0.0}, constants,
                       impacts=[impact])
        assert res.success and not res.impacts
        interval, = res.contacts
        assert (interval.start, interval.end) == (0.0, 1.0)
        assert interval.normal_force == pytest.approx(G, rel=1e-12)
        assert np.abs(res.q[:, 0]).max() < 1e-12
    kane, impact, (y, v), constants = ball(0.0)
    res = simulate(kane, (0, 2), {y: 1.0, v: 0.0}, constants,
                   impacts=[impact])
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
    kane, impact, (y, v), constants = ball(e, table=A * sm.sin(w * t))
    res = simulate(kane, (0, 6), {y: 0.0, v: A * w}, constants,
                   impacts=[impact],
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


@pytest.mark.parametrize('mu', [0.0, 0.5])
def test_rod_resting_on_two_contacts_carries_the_statics(mu):
    """A horizontal rod at rest on both ends with a load F at s from the
    centre: lambda_A = m g / 2 + F (L/2 - s) / L, lambda_B = m g + F -
    lambda_A (moments about the ends); without friction or with it, no
    motion."""
    F, s = 3.0, 0.4
    kane, ends, (x, y, th, vx, vy, w) = two_ended_rod(0.5, mu, F, s)
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
    kane, ends, (x, y, th, vx, vy, w) = two_ended_rod(0.0)
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
    kane, ends, (x, y, th, vx, vy, w) = two_ended_rod(0.0, 0.0, F, s)
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


def incline(alpha, mu, push=0):
    """A particle (block) in the vertical plane, on the incline through O
    rising at ``alpha`` (normal -sin N.x + cos N.y), pushed up the slope
    by the force ``push`` (an expression of time). Returns the model, the
    impact, the coordinates and speeds, and the slope's unit vector up
    and the impact's tangents as numeric vectors in N."""
    x, y, vx, vy = me.dynamicsymbols('x y v_x v_y')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, vx * N.x + vy * N.y)
    up = math.cos(alpha) * N.x + math.sin(alpha) * N.y
    normal = -math.sin(alpha) * N.x + math.cos(alpha) * N.y
    kane = me.KanesMethod(N, [x, y], [vx, vy],
                          kd_eqs=[x.diff() - vx, y.diff() - vy])
    kane.kanes_equations([me.Particle('block', P, 1.0)],
                         [(P, -G * N.y + push * up)])
    impact = Impact(P, O, normal, N, restitution=0.5,
                    friction_coefficient=mu, name='incline')
    tangents = np.array([[float(t.dot(N.x)), float(t.dot(N.y))]
                         for t in impact.tangents])
    return kane, impact, (x, y, vx, vy), np.array(
        [math.cos(alpha), math.sin(alpha)]), tangents


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_block_on_an_incline_sticks_until_the_push_exceeds_friction(
        backend):
    """A unit block resting on a 20 degree incline with mu = 0.5 (tan 20
    < mu: it sticks), pushed up the slope by c t: friction holds it (the
    friction force along the slope is -(c t - g sin)) until c t - g sin =
    mu g cos, at t_s = g (sin + mu cos) / c; then it slides up with
    acceleration c (t - t_s), so s = c (t - t_s)**3 / 6."""
    alpha, mu, c = math.radians(20), 0.5, 2.0
    t = me.dynamicsymbols._t
    kane, impact, (x, y, vx, vy), up, tangents = incline(alpha, mu, c * t)
    t_s = G * (math.sin(alpha) + mu * math.cos(alpha)) / c
    samples = np.linspace(0, 6, 121)
    res = simulate(kane, (0, 6), {x: 0.0, y: 0.0, vx: 0.0, vy: 0.0}, {},
                   impacts=[impact], t_eval=samples, backend=backend,
                   rtol=1e-10, atol=1e-12)
    assert res.success and not res.impacts
    interval, = res.contacts
    assert (interval.start, interval.end) == (0.0, 6.0)
    assert interval.normal_force == pytest.approx(G * math.cos(alpha),
                                                  rel=1e-9)
    along = interval.tangential_force @ (tangents @ up)
    stick = interval.t < t_s
    assert interval.sticking.tolist() == stick.tolist()
    assert along[stick] == pytest.approx(
        -(c * interval.t[stick] - G * math.sin(alpha)), abs=1e-9)
    assert along[~stick] == pytest.approx(-mu * G * math.cos(alpha),
                                          rel=1e-9)
    s = res.q @ up
    assert np.abs(s[stick]).max() < 1e-9
    assert s[~stick] == pytest.approx(c * (res.t[~stick] - t_s) ** 3 / 6,
                                      abs=1e-8)


def test_block_released_on_a_steep_incline_slides_and_loses_the_work():
    """Released at rest on a 35 degree incline with mu = 0.3 (tan 35 >
    mu): it slides down at once with a = g (sin - mu cos); the energy
    lost equals the work of friction, the integral of lambda_T . v_t over
    the samples (trapezoidal, exact for the linear speed)."""
    alpha, mu = math.radians(35), 0.3
    kane, impact, (x, y, vx, vy), up, tangents = incline(alpha, mu)
    samples = np.linspace(0, 1, 51)
    res = simulate(kane, (0, 1), {x: 0.0, y: 0.0, vx: 0.0, vy: 0.0}, {},
                   impacts=[impact], t_eval=samples, rtol=1e-10, atol=1e-12)
    assert res.success
    interval, = res.contacts
    assert not interval.sticking.any()
    a = G * (math.sin(alpha) - mu * math.cos(alpha))
    assert res.q @ up == pytest.approx(-a * res.t ** 2 / 2, abs=1e-9)
    energy = 0.5 * (res.u ** 2).sum(axis=1) + G * res.q[:, 1]
    friction = interval.tangential_force @ tangents      # a vector in N
    power = (friction * res.u).sum(axis=1)
    work = np.concatenate([[0.0], np.cumsum(
        0.5 * (power[1:] + power[:-1]) * np.diff(res.t))])
    assert energy - energy[0] == pytest.approx(work, abs=1e-9)
    assert work[-1] < -1.0


def test_sliding_on_the_floor_in_space_stops_and_sticks():
    """A particle sliding on the floor y = 0 (3D, two tangent rows) with
    speed 2.5 along (3, 0, 4)/5 and mu = 0.4: it decelerates at mu g
    along a straight line, stops at t = v0 / (mu g) after v0**2 / (2 mu g),
    then sticks (no friction force at rest on a level floor)."""
    x, y, z, vx, vy, vz = me.dynamicsymbols('x y z v_x v_y v_z')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y + z * N.z)
    P.set_vel(N, vx * N.x + vy * N.y + vz * N.z)
    kane = me.KanesMethod(N, [x, y, z], [vx, vy, vz],
                          kd_eqs=[x.diff() - vx, y.diff() - vy,
                                  z.diff() - vz])
    kane.kanes_equations([me.Particle('p', P, 1.0)], [(P, -G * N.y)])
    mu, v0 = 0.4, 2.5
    floor = Impact(P, O, N.y, N, restitution=0.0, friction_coefficient=mu)
    direction = np.array([0.6, 0.0, 0.8])
    stop = v0 / (mu * G)
    res = simulate(kane, (0, 1.0), {x: 0.0, y: 0.0, z: 0.0, vx: 0.6 * v0,
                                    vy: 0.0, vz: 0.8 * v0}, {},
                   impacts=[floor], t_eval=np.linspace(0, 1, 41),
                   rtol=1e-10, atol=1e-12)
    assert res.success
    interval, = res.contacts
    assert interval.end == 1.0
    moving = res.t < stop
    travel = np.where(moving, v0 * res.t - mu * G * res.t ** 2 / 2,
                      v0 ** 2 / (2 * mu * G))
    assert res.q == pytest.approx(np.outer(travel, direction), abs=1e-8)
    assert interval.sticking.tolist() == (~moving).tolist()
    assert np.abs(interval.tangential_force[~moving]).max() < 1e-9
    friction = np.linalg.norm(interval.tangential_force[moving], axis=1)
    assert friction == pytest.approx(mu * G, rel=1e-9)


def test_rod_sliding_on_one_end_strikes_with_the_other_closed():
    """A rod released at 30 degrees with end A on the frictionless floor:
    A stays closed (its force positive) while the rod falls and slides,
    the energy is kept (a frictionless closed contact does no work), and
    when the rod lies flat B strikes plastically with A closed in the
    impact: both ends stop (v_y = omega = 0; no horizontal force, so v_x =
    0 throughout) and then carry m g / 2 each."""
    th0 = math.radians(30)
    m, L = ROD_MASS, ROD_LENGTH
    kane, ends, (x, y, th, vx, vy, w) = two_ended_rod(0.0)
    res = simulate(kane, (0, 1.5), {x: 0.0, y: L / 2 * math.sin(th0),
                                    th: th0, vx: 0.0, vy: 0.0, w: 0.0}, {},
                   impacts=ends, rtol=1e-10, atol=1e-12)
    assert res.success
    a_rest, b_rest = res.contacts[0], res.contacts[-1]
    assert a_rest.name == 'A' and a_rest.start == 0.0
    strike, = [r for r in res.impacts if r.name == 'B']
    assert b_rest.name == 'B' and b_rest.start == strike.time
    before = res.t < strike.time
    energy = (m * G * res.q[:, 1] + m / 2 * (res.u[:, 0] ** 2
                                              + res.u[:, 1] ** 2)
              + m * L ** 2 / 24 * res.u[:, 2] ** 2)
    assert energy[before] == pytest.approx(energy[0], abs=1e-8)
    assert np.abs(res.u[:, 0]).max() < 1e-10
    assert a_rest.normal_force[a_rest.t < strike.time].min() > 0
    # held at the acceleration level, A's gap drifts with the integrator's
    # error only (rtol 1e-10 on coordinates of order 1)
    assert a_rest.gap_drift < 1e-9
    after = res.t > strike.time + 1e-9
    assert np.abs(res.u[after]).max() < 1e-9
    for interval in (a_rest, b_rest):
        late = interval.t > strike.time + 1e-9
        assert interval.normal_force[late] == pytest.approx(m * G / 2,
                                                            rel=1e-9)


def test_painleve_rod_stops_the_run_naming_the_contact():
    """A rod at 45 degrees on its end A, sliding towards -x with mu = 2:
    with the Delassus entries of the end, G_nn = 2.5/m and G_nt = -1.5/m
    (by hand), the sliding friction +mu lambda_N makes the normal
    acceleration -g + (2.5 - 1.5 mu) lambda_N / m < 0 for every lambda_N
    >= 0 (Painleve): no consistent contact force. The run stops with a
    SimulationError naming the contact, its start kept."""
    th0, mu = math.radians(45), 2.0
    assert 2.5 - 1.5 * mu < 0
    kane, ends, (x, y, th, vx, vy, w) = two_ended_rod(0.0, mu)
    with pytest.raises(SimulationError, match=r"'A' \(impacts\[0\]\)") as info:
        simulate(kane, (0, 1), {x: 0.0, y: ROD_LENGTH / 2 * math.sin(th0),
                                th: th0, vx: -1.0, vy: 0.0, w: 0.0}, {},
                 impacts=ends[:1])
    error = info.value
    assert error.keeps_run and error.time == 0.0
    assert 'Painleve' in str(error)
    assert error.result.t.tolist() == [0.0]
    # sliding the other way, the same rod is resolved (lambda_N > 0)
    res = simulate(kane, (0, 0.05), {x: 0.0, y: ROD_LENGTH / 2 *
                                     math.sin(th0), th: th0, vx: 1.0,
                                     vy: 0.0, w: 0.0}, {}, impacts=ends[:1])
    assert res.success and res.contacts[0].normal_force[0] > 0


def test_lasting_contact_with_joint_friction_is_refused():
    """A block on a vertical prismatic joint with joint friction, resting
    on the floor at the start: the joint's friction would need the
    contact force among its reactions, which the relaxation does not
    have; the run is refused with a ValueError naming both."""
    from sympy.physics.mechanics import PrismaticJoint, RigidBody, System
    from sympy_loads import JointFriction
    ground, block = RigidBody('ground'), RigidBody('block', mass=1.0)
    slider = PrismaticJoint('s', ground, block, joint_axis=ground.y)
    friction = JointFriction(slider, coefficient=0.3)
    system = System.from_newtonian(ground)
    system.add_bodies(block)
    system.add_joints(slider)
    system.add_actuators(friction)
    system.apply_uniform_gravity(-G * ground.y)
    system.form_eoms()
    floor = Impact(block.masscenter, ground.masscenter, ground.y,
                   ground.frame, restitution=0.5, name='floor')
    q, u = slider.coordinates[0], slider.speeds[0]
    with pytest.raises(ValueError, match="'floor'.*joint friction"):
        simulate(system, (0, 1), {q: 0.0, u: 0.0}, {}, impacts=[floor],
                 joint_friction=[friction])


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_slider_crank_driven_into_its_stop_rests_there(backend):
    """A closed loop (dependent coordinates and speeds): the slider-crank
    with a constant crank torque T strikes its stop at x = 0.37 plastically
    and stays there, the mechanism locked; the stop carries lambda = |T /
    (dx/dq1)| (virtual work, dx/dq1 by central differences of the closed
    form x = r cos q1 + sqrt(l**2 - r**2 sin(q1)**2)), the constraints
    held."""
    model, impact, constants, initial = slider_crank_with_stop(0.0)
    T = 5.0
    res = simulate(model.kane, (0, 0.4), initial, constants,
                   specified={model.torque: T}, impacts=[impact],
                   rtol=1e-10, atol=1e-12, backend=backend)
    assert res.success
    interval, = res.contacts
    assert interval.start == res.impacts[-1].time
    r, l = 0.1, 0.3

    def x(q1):
        return r * math.cos(q1) + math.sqrt(l ** 2 - (r * math.sin(q1)) ** 2)
    q1 = res.q[-1, 0]
    assert x(q1) == pytest.approx(0.37, abs=1e-9)
    h = 1e-6
    slope = (x(q1 + h) - x(q1 - h)) / (2 * h)
    assert interval.normal_force == pytest.approx(abs(T / slope), rel=1e-7)
    resting = res.t > interval.start + 1e-9
    assert np.abs(res.u[resting]).max() < 1e-9
    assert res.constraint_residual.max() < 1e-9
    assert res.velocity_residual.max() < 1e-9


@pytest.mark.parametrize('mu', [0.2, 0.6])
def test_rough_rod_rocks_down_onto_both_ends_without_gaining_energy(mu):
    """The rod released at 30 degrees on end A, now on a rough floor (mu)
    with e = 0.3: A slides and sticks, B strikes with A closed in the
    impact (frictional, A's and B's tangential impulses recorded), B
    bounces ever lower until its impacts accumulate, and the rod comes to
    rest on both ends carrying m g / 2 each. The energy never increases
    (up to the integrator's error)."""
    th0 = math.radians(30)
    m, L = ROD_MASS, ROD_LENGTH
    kane, ends, (x, y, th, vx, vy, w) = two_ended_rod(0.3, mu)
    res = simulate(kane, (0, 1.0), {x: 0.0, y: L / 2 * math.sin(th0),
                                    th: th0, vx: 0.0, vy: 0.0, w: 0.0}, {},
                   impacts=ends, rtol=1e-10, atol=1e-12)
    assert res.success
    energy = (m * G * res.q[:, 1] + m / 2 * (res.u[:, 0] ** 2
                                              + res.u[:, 1] ** 2)
              + m * L ** 2 / 24 * res.u[:, 2] ** 2)
    assert np.diff(energy).max() < 1e-9
    first = [r for r in res.impacts if r.time == res.impacts[0].time]
    assert {r.name for r in first} == {'A', 'B'}
    assert any(r.tangential_impulse[0] != 0.0 for r in first)
    assert all(r.normal_speed_after >= -1e-10 for r in first)
    assert {(i.name, i.end) for i in res.contacts} == {('A', 1.0),
                                                       ('B', 1.0)}
    for interval in res.contacts:
        assert interval.normal_force[-1] == pytest.approx(m * G / 2,
                                                          rel=1e-9)
    assert np.abs(res.u[-1]).max() < 1e-9


def test_contact_whose_speed_has_a_specified_input_is_refused_at_rest():
    """A ball whose vertical speed is v + s(t) with s a specified input:
    resting on the floor, its contact would need ds/dt, which the engine
    does not have; a ValueError names the contact and the input's role,
    for a constant input and for a function alike."""
    y, v, s = me.dynamicsymbols('y v s')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', y * N.y)
    P.set_vel(N, (v + s) * N.y)
    kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v - s])
    kane.kanes_equations([me.Particle('ball', P, 1.0)], [(P, -G * N.y)])
    floor = Impact(P, O, N.y, N, restitution=0.5, name='floor')
    for input_ in (0.0, lambda t: 0.0):
        with pytest.raises(ValueError, match=r"'floor' \(impacts\[0\]\) "
                           r"comes to rest at t = 0.*specified input"):
            simulate(kane, (0, 1), {y: 0.0, v: 0.0}, {}, impacts=[floor],
                     specified={s: input_})


def test_chattering_modes_stop_the_run_with_its_samples(monkeypatch):
    """The guard against modes that chatter (so many transitions in so
    short a time that the run would not end): with the limit lowered to
    four transitions within the whole span, the rough rod's run (more
    than four) stops with a SimulationError that keeps its samples."""
    from sympy_loads._simulation import unilateral
    monkeypatch.setattr(unilateral, 'CHATTER_TRANSITIONS', 4)
    monkeypatch.setattr(unilateral, 'CHATTER_WINDOW', 1.0)
    th0 = math.radians(30)
    kane, ends, (x, y, th, vx, vy, w) = two_ended_rod(0.3, 0.2)
    with pytest.raises(SimulationError, match='chatter') as info:
        simulate(kane, (0, 1.0), {x: 0.0, y: ROD_LENGTH / 2 * math.sin(th0),
                                  th: th0, vx: 0.0, vy: 0.0, w: 0.0}, {},
                 impacts=ends)
    error = info.value
    assert error.keeps_run and 0 < error.time < 1.0
    assert error.result.t[-1] == pytest.approx(error.time)
    assert error.result.contacts[0].name == 'A'


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
@pytest.mark.parametrize('case', ['incline', 'slider-crank'])
def test_a_closed_phase_evaluates_the_equations_once_per_step(
        case, backend, monkeypatch):
    """Each right-hand side of a phase with closed contacts needs the
    free accelerations M^-1 F and the response M^-1 W^T of the contact
    forces: one evaluation of the generated equations of motion gives M
    and F (counted: calls of the ``eom`` function, from Python or, for
    the compiled back end, through the compiled derivative kernel), for
    a contact with friction that sticks and slides (the block pushed up
    the incline) and for a closed loop's dependent speeds (the slider-
    crank resting on its stop)."""
    from sympy_loads._numeric.codegen import GeneratedFunction
    from sympy_loads._simulation import problem, unilateral
    calls = []
    call = GeneratedFunction.__call__
    compiled = problem.Problem._compiled_derivatives

    def counted(self, x):
        calls.extend([self.name] if self.name == 'eom' else [])
        return call(self, x)

    def counted_compiled(self, x):
        calls.append('eom')
        return compiled(self, x)
    per_step = []
    rhs = unilateral.LastingContacts.rhs

    def counted_rhs(self, t, y):
        before = len(calls)
        ydot = rhs(self, t, y)
        per_step.append(len(calls) - before)
        return ydot
    monkeypatch.setattr(GeneratedFunction, '__call__', counted)
    monkeypatch.setattr(problem.Problem, '_compiled_derivatives',
                        counted_compiled)
    monkeypatch.setattr(unilateral.LastingContacts, 'rhs', counted_rhs)
    if case == 'incline':
        alpha, mu, c = math.radians(20), 0.5, 2.0
        kane, impact, (x, y, vx, vy), up, _ = incline(
            alpha, mu, c * me.dynamicsymbols._t)
        res = simulate(kane, (0, 4), {x: 0.0, y: 0.0, vx: 0.0, vy: 0.0},
                       {}, impacts=[impact], backend=backend, rtol=1e-10,
                       atol=1e-12)
        t_s = G * (math.sin(alpha) + mu * math.cos(alpha)) / c
        expected = c * (4 - t_s) ** 3 / 6         # sticks, then slides
        assert res.q[-1] @ up == pytest.approx(expected, abs=1e-8)
    else:
        model, impact, constants, initial = slider_crank_with_stop(0.0)
        res = simulate(model.kane, (0, 0.4), initial, constants,
                       specified={model.torque: 5.0}, impacts=[impact],
                       backend=backend)
        assert res.contacts[0].end == 0.4
    assert res.success and len(per_step) > 10
    assert set(per_step) <= {0, 1} and 1 in per_step
