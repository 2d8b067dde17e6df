"""Rigid impacts (Newton's restitution law) in simulate(): closed forms for
a dropped ball, a tilted rod and two colliding particles, a slider-crank
hitting a stop, accumulation, and the compliant (Hunt-Crossley) limit."""

import math

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import (HuntCrossleyContact, Impact, ImpactRecord,
                         SimulationError, damping_from_restitution,
                         effective_restitution, hysteresis_factor, simulate)
from sympy_loads.examples import slider_crank

from _contact_models import (G, ROD_LENGTH, ROD_MASS, ball,
                             slider_crank_with_stop, two_ended_rod)


def bounces(h, e, n):
    """Impact times and apex times of the first ``n`` bounces of a ball
    dropped from rest at height ``h`` (closed form)."""
    v1 = math.sqrt(2 * G * h)
    impacts, apexes = [math.sqrt(2 * h / G)], []
    for k in range(1, n + 1):
        speed = e ** k * v1
        apexes.append(impacts[-1] + speed / G)
        impacts.append(impacts[-1] + 2 * speed / G)
    return np.array(impacts[:n]), np.array(apexes)


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_ball_rebound_heights_and_times(backend):
    h, e = 1.0, 0.8
    kane, impact, (y, v), constants = ball(e)
    times, apexes = bounces(h, e, 5)
    res = simulate(kane, (0, apexes[-1] + 0.01), {y: h, v: 0.0}, constants,
                   impacts=[impact], t_eval=apexes, backend=backend,
                   rtol=1e-10, atol=1e-12)
    assert res.success
    assert len(res.impacts) == 5
    hit_times = np.array([r.time for r in res.impacts])
    assert np.max(np.abs(hit_times - times)) < 1e-8
    heights = h * e ** (2 * np.arange(1, 6))
    assert np.max(np.abs(res.q[:, 0] - heights)) < 1e-8
    for record in res.impacts:
        assert isinstance(record, ImpactRecord)
        assert record.name == 'floor' and record.index == 0
        assert record.normal_speed_after == pytest.approx(
            -e * record.normal_speed_before, rel=1e-12)
        # impulse on a unit mass = change of momentum
        assert record.impulse == pytest.approx(
            record.normal_speed_after - record.normal_speed_before,
            rel=1e-12)


def test_ball_samples_before_and_after_each_impact():
    kane, impact, (y, v), constants = ball(0.5, radius=0.1)
    res = simulate(kane, (0, 0.6), {y: 1.1, v: 0.0}, constants,
                   impacts=[impact])
    hit = res.impacts[0]
    at = np.nonzero(res.t == hit.time)[0]
    assert len(at) == 2                   # before and after the jump
    assert res.q[at[0], 0] == pytest.approx(0.1, abs=1e-12)
    assert res.u[at[0], 0] == pytest.approx(-math.sqrt(2 * G), rel=1e-9)
    assert res.u[at[1], 0] == pytest.approx(0.5 * math.sqrt(2 * G),
                                            rel=1e-9)
    # nowhere below the floor
    assert res.q[:, 0].min() >= 0.1 - 1e-12


def test_many_impacts_in_compiled_code_match_the_closed_form():
    """Eighty bounces (more than the compiled stepping records between
    returns to Python, 64): every impact time and rebound speed of the
    closed form, with and without t_eval."""
    h, e, n = 1.0, 0.9, 80
    kane, impact, (y, v), constants = ball(e)
    times, apexes = bounces(h, e, n)
    end = apexes[-1] + 0.5 * (apexes[-1] - times[-1])   # before the next
    for t_eval in (None, apexes[-3:]):
        res = simulate(kane, (0, end), {y: h, v: 0.0}, constants,
                       impacts=[impact], t_eval=t_eval, rtol=1e-10,
                       atol=1e-12)
        assert res.success and len(res.impacts) == n
        hit_times = np.array([r.time for r in res.impacts])
        assert np.max(np.abs(hit_times - times)) < 1e-8
        after = np.array([r.normal_speed_after for r in res.impacts])
        speeds = math.sqrt(2 * G * h) * e ** np.arange(1, n + 1)
        assert np.max(np.abs(after - speeds)) < 1e-8
        if t_eval is None:
            # each impact sampled twice: before and after the jump
            for record in res.impacts[::10]:
                at = np.nonzero(res.t == record.time)[0]
                assert len(at) == 2
                assert res.u[at[0], 0] == pytest.approx(
                    record.normal_speed_before, rel=1e-12)
                assert res.u[at[1], 0] == pytest.approx(
                    record.normal_speed_after, rel=1e-12)
        else:
            heights = h * e ** (2 * np.arange(n - 2, n + 1))
            assert np.max(np.abs(res.q[:, 0] - heights)) < 1e-8


@pytest.mark.parametrize('case', ['ball', 'slider-crank'])
def test_compiled_and_python_impacts_agree(case):
    """The impacts resolved in compiled code (the default DOP853 on the
    compiled back end) against the same run with the NumPy back end, whose
    impacts SciPy's solve_ivp locates and Python resolves."""
    if case == 'ball':
        kane, impact, (y, v), constants = ball(0.8)
        args = (kane, (0, 2.0), {y: 1.0, v: 0.0}, constants)
        options = {}
    else:
        model, impact, constants, initial = slider_crank_with_stop(0.7)
        args = (model.kane, (0, 0.4), initial, constants)
        options = {'specified': {model.torque: 0.0}}
    runs = [simulate(*args, impacts=[impact], backend=backend,
                     t_eval=np.linspace(0, args[1][1], 41), rtol=1e-10,
                     atol=1e-12, **options)
            for backend in ('compiled', 'numpy')]
    compiled, python = runs
    assert len(compiled.impacts) == len(python.impacts) >= 1
    for a, b in zip(compiled.impacts, python.impacts):
        assert a.index == b.index
        assert a.time == pytest.approx(b.time, abs=1e-9)
        assert a.impulse == pytest.approx(b.impulse, rel=1e-7)
        assert np.allclose(a.u_after, b.u_after, rtol=1e-7, atol=1e-9)
    assert np.max(np.abs(compiled.y - python.y)) < 1e-7


def test_accumulating_impacts_close_the_contact_near_the_zeno_time():
    """Issue 37: accumulating impacts no longer stop the run; the k-th
    impact whose approach speed falls below 1e-4 of the first is plastic
    and the contact closes there, before the Zeno time by the rest of the
    geometric series (lasting contacts: tests/test_unilateral_contacts)."""
    h, e = 1.0, 0.8
    kane, impact, (y, v), constants = ball(e)
    v1 = math.sqrt(2 * G * h)
    zeno = math.sqrt(2 * h / G) + 2 * e * v1 / (G * (1 - e))
    res = simulate(kane, (0, 10), {y: h, v: 0.0}, constants,
                   impacts=[impact], rtol=1e-10, atol=1e-12)
    assert res.success
    k = math.ceil(math.log(1e-4) / math.log(e))
    assert len(res.impacts) == k + 1
    speeds = [-r.normal_speed_before for r in res.impacts]
    assert speeds == pytest.approx(v1 * e ** np.arange(k + 1), abs=1e-8)
    assert res.impacts[-1].normal_speed_after == pytest.approx(0, abs=1e-12)
    interval, = res.contacts
    assert interval.start == res.impacts[-1].time
    assert zeno - 2 * e * 1e-4 * v1 / (G * (1 - e)) <= interval.start < zeno
    assert interval.normal_force == pytest.approx(G, rel=1e-12)


def test_rest_speed_threshold():
    """rest_speed=0.5 with e = 0.5: approach speeds 4.43, 2.21, 1.11,
    0.55, then 0.277 < 0.5, whose impact is plastic and closes the
    contact."""
    kane, floor, (y, v), constants = ball()
    impact = Impact(floor.point, floor.plane_point, floor.normal,
                    floor.frame, restitution=0.5, rest_speed=0.5)
    res = simulate(kane, (0, 10), {y: 1.0, v: 0.0}, constants,
                   impacts=[impact])
    assert res.success and len(res.impacts) == 5
    assert -res.impacts[-1].normal_speed_before == pytest.approx(
        math.sqrt(2 * G) / 16, rel=1e-7)
    assert res.impacts[-1].normal_speed_after == pytest.approx(0, abs=1e-12)
    assert res.contacts[0].start == res.impacts[-1].time


def test_plastic_impact_on_a_pressing_contact_closes_it():
    kane, impact, (y, v), constants = ball(0.0)
    res = simulate(kane, (0, 2), {y: 1.0, v: 0.0}, constants,
                   impacts=[impact])
    assert res.success and len(res.impacts) == 1
    interval, = res.contacts
    assert interval.start == pytest.approx(math.sqrt(2 / G), rel=1e-9)
    assert interval.end == 2.0
    assert interval.normal_force == pytest.approx(G, rel=1e-12)


def test_plastic_impact_that_separates_continues(line_particle):
    """A mass on a spring (rest position x = 0.5) thrown against a wall at
    x = 0 with e = 0: it stops there and the spring pulls it away."""
    line = line_particle(1, lambda x, v: -4 * (x - 0.5))
    kane, x, v, N = line.kane, line.x, line.v, line.N
    wall = Impact(line.P, line.O, N.x, N, restitution=0)
    res = simulate(kane, (0, 3), {x: 0.2, v: -3.0}, {}, impacts=[wall],
                   t_eval=[3.0])
    assert res.success and len(res.impacts) == 1
    assert res.impacts[0].normal_speed_after == pytest.approx(0, abs=1e-14)
    # from rest at x = 0 the spring gives x = 0.5 - 0.5 cos(2 (t - t1))
    t1 = res.impacts[0].time
    assert res.q[0, 0] == pytest.approx(0.5 - 0.5 * math.cos(2 * (3 - t1)),
                                        abs=1e-8)


def test_tilted_rod_closed_form():
    """A uniform rod falling tilted strikes a frictionless floor with its
    end A: centre velocity and angular velocity after the impact from the
    closed-form impulse."""
    e, m, L = 0.6, ROD_MASS, ROD_LENGTH
    inertia = m * L ** 2 / 12
    kane, (floor, _), (x, y, th, vx, vy, w) = two_ended_rod(e)
    res = simulate(kane, (0, 0.5), {x: 0.0, y: 1.0, th: 0.5, vx: 0.3,
                                    vy: 0.0, w: 0.7}, {},
                   impacts=[floor], rtol=1e-11, atol=1e-12)
    hit = res.impacts[0]
    i = np.nonzero(res.t == hit.time)[0][0]
    theta = res.q[i, 2]
    assert res.q[i, 1] - L / 2 * math.sin(theta) == pytest.approx(
        0, abs=1e-11)
    ux, uy, omega = hit.u_before
    rx = -L / 2 * math.cos(theta)
    v_a = uy + omega * rx
    impulse = -(1 + e) * v_a / (1 / m + rx ** 2 / inertia)
    expected = (ux, uy + impulse / m, omega + rx * impulse / inertia)
    assert np.max(np.abs(np.array(hit.u_after) - expected)) < 1e-10
    assert hit.impulse == pytest.approx(impulse, rel=1e-12)
    assert hit.normal_speed_before == pytest.approx(v_a, rel=1e-12)
    assert hit.normal_speed_after == pytest.approx(-e * v_a, rel=1e-10)


@pytest.mark.parametrize('e', [0.5, 1.0])
def test_rod_falling_flat_strikes_with_both_ends_at_once(e):
    """Both ends reach the floor together: struck at once, the rod
    rebounds without rotating, v+ = -e v- (one impulse after the other
    would set it spinning for e < 1)."""
    kane, ends, (x, y, th, vx, vy, w) = two_ended_rod(e)
    res = simulate(kane, (0, 0.5), {x: 0.0, y: 1.0, th: 0.0, vx: 0.0,
                                    vy: 0.0, w: 0.0}, {}, impacts=ends)
    first, second = res.impacts
    assert first.time == second.time
    assert {first.name, second.name} == {'A', 'B'}
    v = math.sqrt(2 * G)
    assert first.u_after == pytest.approx((0.0, e * v, 0.0), abs=1e-9)
    assert first.impulse == pytest.approx(ROD_MASS * (1 + e) * v / 2,
                                          rel=1e-9)
    assert second.impulse == pytest.approx(first.impulse, rel=1e-12)


def two_particles(e, m1=1.0, m2=3.0):
    """Particle 1 at x1 moving towards particle 2 at x2, whose left face
    (a plane fixed on it, normal -N.x) it strikes."""
    x1, x2, v1, v2 = me.dynamicsymbols('x1 x2 v1 v2')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P1 = O.locatenew('P1', x1 * N.x)
    P1.set_vel(N, v1 * N.x)
    P2 = O.locatenew('P2', x2 * N.x)
    P2.set_vel(N, v2 * N.x)
    p2 = me.Particle('p2', P2, m2)
    kane = me.KanesMethod(N, [x1, x2], [v1, v2],
                          kd_eqs=[x1.diff() - v1, x2.diff() - v2])
    kane.kanes_equations([me.Particle('p1', P1, m1), p2], [])
    face = Impact(P1, P2, -N.x, N, restitution=e, radius=0.1,
                  plane_frame=p2)
    return kane, face, (x1, x2, v1, v2)


@pytest.mark.parametrize('e', [0.0, 0.5, 1.0])
def test_moving_plane_takes_the_opposite_impulse(e):
    m1, m2 = 1.0, 3.0
    kane, face, (x1, x2, v1, v2) = two_particles(e, m1, m2)
    a, b = 2.0, -0.5
    res = simulate(kane, (0, 1), {x1: 0.0, x2: 1.0, v1: a, v2: b}, {},
                   impacts=[face], t_eval=[1.0])
    hit = res.impacts[0]
    assert hit.time == pytest.approx(0.9 / (a - b), rel=1e-12)
    common = (m1 * a + m2 * b) / (m1 + m2)
    after1 = common - m2 * e * (a - b) / (m1 + m2)
    after2 = common + m1 * e * (a - b) / (m1 + m2)
    assert hit.u_after == pytest.approx((after1, after2), abs=1e-12)
    # momentum conserved, energy lost (1 - e^2) of the relative part
    assert m1 * after1 + m2 * after2 == pytest.approx(m1 * a + m2 * b)
    lost = 0.5 * m1 * m2 / (m1 + m2) * (a - b) ** 2 * (1 - e ** 2)
    before = 0.5 * (m1 * a ** 2 + m2 * b ** 2)
    assert 0.5 * (m1 * after1 ** 2 + m2 * after2 ** 2) == pytest.approx(
        before - lost, rel=1e-12)


def test_prescribed_moving_wall():
    """A wall moving at a constant speed V (plane_point a function of
    time, no plane_frame): the ball's speed relative to it reverses."""
    x, v = me.dynamicsymbols('x v')
    V = sm.symbols('V')
    t = me.dynamicsymbols._t
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x)
    P.set_vel(N, v * N.x)
    W = O.locatenew('W', (1 + V * t) * N.x)
    kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v])
    kane.kanes_equations([me.Particle('p', P, 1)], [])
    wall = Impact(P, W, -N.x, N, restitution=0.5)
    assert sm.simplify(wall.normal_speed - (V - v)) == 0
    res = simulate(kane, (0, 1), {x: 0.0, v: 3.0}, {V: 1.0},
                   impacts=[wall])
    hit = res.impacts[0]
    assert hit.time == pytest.approx(0.5, rel=1e-12)
    # relative speed 2 -> -1: the ball leaves at 1 - 0.5*2 = 0 m/s
    assert hit.u_after[0] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize('e', [1.0, 0.7, 0.0])
def test_slider_crank_hits_a_stop(e):
    model, impact, constants, initial = slider_crank_with_stop(e)
    res = simulate(model.kane, (0, 0.4), initial, constants,
                   specified={model.torque: 0.0}, impacts=[impact],
                   outputs={'kinetic': model.kinetic}, rtol=1e-10,
                   atol=1e-12)
    assert res.success and len(res.impacts) >= 1
    hit = res.impacts[0]
    i, j = np.nonzero(res.t == hit.time)[0]
    assert res.q[i, 2] == pytest.approx(0.37, abs=1e-11)
    assert res.constraint_residual[j] <= 1e-9
    assert res.velocity_residual[j] <= 1e-9
    assert hit.normal_speed_before < 0
    assert hit.normal_speed_after == pytest.approx(
        -e * hit.normal_speed_before, abs=1e-10)
    assert -res.u[j, 2] == pytest.approx(hit.normal_speed_after, abs=1e-10)
    kinetic = res.outputs['kinetic']
    if e == 1.0:
        assert kinetic[j] == pytest.approx(kinetic[i], rel=1e-10)
        # no loads: kinetic energy is constant over the whole run
        assert np.ptp(kinetic) <= 1e-7 * kinetic[0]
    else:
        assert kinetic[j] < kinetic[i]
    assert np.max(res.constraint_residual) <= 1e-9


def test_slider_crank_stop_with_radau_and_numpy():
    model, impact, constants, initial = slider_crank_with_stop(0.7)
    reference = simulate(model.kane, (0, 0.4), initial, constants,
                         specified={model.torque: 0.0}, impacts=[impact],
                         t_eval=[0.4], rtol=1e-10, atol=1e-12)
    for options in ({'method': 'Radau'}, {'backend': 'numpy'}):
        res = simulate(model.kane, (0, 0.4), initial, constants,
                       specified={model.torque: 0.0}, impacts=[impact],
                       t_eval=[0.4], rtol=1e-10, atol=1e-12, **options)
        assert len(res.impacts) == len(reference.impacts)
        assert np.max(np.abs(res.y - reference.y)) < 1e-6


def test_compliant_contact_converges_to_the_rigid_rebound():
    """Hunt-Crossley with damping_from_restitution: the apex after the
    first bounce approaches the rigid one as the stiffness grows (the
    rigid run uses the restitution the damping model really gives)."""
    e, h, model = 0.8, 1.0, 'hu-guo'
    v0 = math.sqrt(2 * G * h)
    e_eff = effective_restitution(float(hysteresis_factor(e, model)))
    assert e_eff == pytest.approx(e, abs=1e-3)
    kane, impact, (y, v), constants = ball(e_eff)
    rigid = simulate(kane, (0, 1.2), {y: h, v: 0.0}, constants,
                     impacts=[impact])
    apex = rigid.impacts[0].time + rigid.impacts[0].normal_speed_after / G
    rigid_height = h * e_eff ** 2
    errors = []
    for k in (1e5, 1e7, 1e9):
        def contact(P, O, N, k=k):
            return HuntCrossleyContact(
                P, O, N.y, N, stiffness=k,
                damping=damping_from_restitution(k, e, v0, model=model))
        kane_c, _, (yc, vc), constants_c = ball(contact=contact)
        t = np.linspace(apex - 0.02, apex + 0.02, 401)
        res = simulate(kane_c, (0, apex + 0.02), {yc: h, vc: 0.0},
                       constants_c, method='LSODA', t_eval=t, rtol=1e-10,
                       atol=1e-12)
        errors.append(abs(res.q[:, 0].max() - rigid_height))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 2e-3 * rigid_height
    assert errors[2] < errors[0] / 10


def test_compliant_stop_of_a_slider_crank_converges_to_the_rigid_one():
    """The slider-crank's stop as a Hunt-Crossley contact (a load of the
    closed-loop model, built with slider_crank.build_model's extra_loads):
    the crank speed after the impact approaches the rigid run's as the
    stiffness grows. The softest contact is also run with LSODA: with
    DOP853 a trial stage of a step into the contact lands far off the
    loop's assembly, where the dependent coordinates cannot be solved;
    that evaluation must reject the step, not end the run."""
    e, model_name, span = 0.8, 'hu-guo', 0.4
    e_eff = effective_restitution(float(hysteresis_factor(e, model_name)))
    model, impact, constants, initial = slider_crank_with_stop(e_eff)
    rigid = simulate(model.kane, (0, span), initial, constants,
                     specified={model.torque: 0.0}, impacts=[impact],
                     t_eval=[span], rtol=1e-10, atol=1e-12)
    assert len(rigid.impacts) == 1
    approach = -rigid.impacts[0].normal_speed_before
    errors = []
    for k in (1e5, 1e7, 1e9):
        def stop(points, N, k=k):
            O, _, S = points
            return HuntCrossleyContact(
                S, O.locatenew('stop', 0.37 * N.x), -N.x, N, stiffness=k,
                damping=damping_from_restitution(
                    k, e, approach, model=model_name)).to_loads()
        compliant = slider_crank.build_model(stop)
        q1, q2, q3 = compliant.q
        options = dict(specified={compliant.torque: 0.0}, t_eval=[span],
                       rtol=1e-10, atol=1e-12)
        start = {q1: 2.0, q2: 0.0, q3: 0.25, compliant.u[0]: -8.0}
        constants_c = slider_crank.constants_of(compliant, k=0.0, c=0.0,
                                                cb=0.0)
        res = simulate(compliant.kane, (0, span), start, constants_c,
                       **options)
        assert res.success
        assert res.constraint_residual[-1] <= 1e-9
        if k == 1e5:
            lsoda = simulate(compliant.kane, (0, span), start, constants_c,
                             method='LSODA', **options)
            assert res.u[-1, 0] == pytest.approx(lsoda.u[-1, 0], abs=1e-6)
        errors.append(abs(res.u[-1, 0] - rigid.u[-1, 0]))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 5e-3 * abs(rigid.u[-1, 0])


# -- bad input ---------------------------------------------------------------

def test_impact_arguments_are_checked():
    N = me.ReferenceFrame('N')
    O, P = me.Point('O'), me.Point('P')
    with pytest.raises(ValueError, match=r'restitution must be in \[0, 1\]'):
        Impact(P, O, N.y, N, restitution=1.5)
    with pytest.raises(ValueError, match='restitution must be nonnegative'):
        Impact(P, O, N.y, N, restitution=-0.1)
    with pytest.raises(ValueError, match='radius must be nonnegative'):
        Impact(P, O, N.y, N, restitution=0.5, radius=-1)
    with pytest.raises(ValueError, match='normal must be a unit Vector'):
        Impact(P, O, 2 * N.y, N, restitution=0.5)
    with pytest.raises(TypeError, match='point must be a Point'):
        Impact(N.x, O, N.y, N, restitution=0.5)
    with pytest.raises(TypeError, match='normal must be a Vector'):
        Impact(P, O, 1, N, restitution=0.5)
    with pytest.raises(ValueError, match='rest_speed must be positive'):
        Impact(P, O, N.y, N, restitution=0.5, rest_speed=0)
    with pytest.raises(TypeError, match='restitution must be a number'):
        Impact(P, O, N.y, N, restitution='high')
    B = N.orientnew('B', 'Axis', (me.dynamicsymbols('a'), N.z))
    with pytest.raises(ValueError, match='must be fixed in N'):
        Impact(P, O, B.x, N, restitution=0.5)
    with pytest.raises(ValueError, match='position of P from O is not'):
        Impact(P, O, N.y, N, restitution=0.5)


def test_simulate_checks_impacts():
    kane, impact, (y, v), constants = ball()
    start = {y: 1.0, v: 0.0}
    with pytest.raises(TypeError, match='put a single one in a list'):
        simulate(kane, (0, 1), start, constants, impacts=impact)
    with pytest.raises(TypeError, match=r'impacts\[1\] must be an Impact'):
        simulate(kane, (0, 1), start, constants, impacts=[impact, 3])
    with pytest.raises(ValueError, match="method='LSODA'"):
        simulate(kane, (0, 1), start, constants, impacts=[impact],
                 method='odeint')
    with pytest.raises(ValueError, match='forward time span'):
        simulate(kane, (1, 0), start, constants, impacts=[impact])
    with pytest.raises(ValueError, match='penetrates the plane'):
        simulate(kane, (0, 1), {y: -0.01, v: 0.0}, constants,
                 impacts=[impact])
    A = impact.frame.orientnew('A', 'Axis', (0.1, impact.frame.z))
    assert A.name != impact.frame.name
    impact.point.set_vel(A, v * impact.frame.y)
    impact.plane_point.set_vel(A, 0)
    other = Impact(impact.point, impact.plane_point, A.y, A, restitution=1)
    z = me.dynamicsymbols('z')
    stray = Impact(impact.point.locatenew('Q', z * impact.frame.y),
                   impact.plane_point, impact.normal, impact.frame,
                   restitution=1)
    with pytest.raises(ValueError, match=r"impacts\[0\] \(impact of Q\)"
                       r".*'z\(t\)'\]"):
        simulate(kane, (0, 1), start, constants, impacts=[stray])
    with pytest.raises(ValueError, match="not the model's inertial frame"):
        simulate(kane, (0, 1), start, constants, impacts=[other])
    e = sm.Symbol('e')
    symbolic = Impact(impact.point, impact.plane_point, impact.normal,
                      impact.frame, restitution=e)
    with pytest.raises(ValueError, match=r'missing constants: \[e\]'):
        simulate(kane, (0, 1), start, constants, impacts=[symbolic])
    with pytest.raises(ValueError, match=r'must be in \[0, 1\], got 2'):
        simulate(kane, (0, 1), start, {**constants, e: 2.0},
                 impacts=[symbolic])
    res = simulate(kane, (0, 1), start, {**constants, e: 0.5},
                   impacts=[symbolic])
    assert res.impacts[0].normal_speed_after == pytest.approx(
        -0.5 * res.impacts[0].normal_speed_before)


def test_impact_starting_in_contact_and_approaching():
    kane, impact, (y, v), constants = ball(0.5)
    res = simulate(kane, (0, 0.1), {y: 0.0, v: -2.0}, constants,
                   impacts=[impact])
    assert res.impacts[0].time == 0.0
    assert res.impacts[0].normal_speed_after == pytest.approx(1.0)


def test_impacts_in_a_parameter_study_on_a_process_pool():
    """The model and the impacts reach the workers pickled apart."""
    import concurrent.futures
    from sympy_loads import simulate_many
    kane, impact, (y, v), constants = ball(0.8)
    cases = [{y: h} for h in (1.0, 2.0, 3.0)]
    serial = simulate_many(kane, (0, 1.0), {y: 1.0, v: 0.0}, constants,
                           cases, impacts=[impact])
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        parallel = simulate_many(kane, (0, 1.0), {y: 1.0, v: 0.0},
                                 constants, cases, executor=pool,
                                 impacts=[impact])
    for h, a, b in zip((1.0, 2.0, 3.0), serial, parallel):
        assert a.success and b.success, (a.message, b.message)
        assert a.impacts[0].time == pytest.approx(math.sqrt(2 * h / G),
                                                  rel=1e-12)
        assert b.impacts == a.impacts


# -- issue 27: impacts never missed, resting starts, touching rows ------------

def ceiling_ball(e, clearance=0.01):
    """A ball thrown up from the floor to an apex of 1 under a ceiling
    ``clearance`` below the apex (the ceiling's plane faces down)."""
    kane, floor, (y, v), constants = ball(e)
    N, O = floor.frame, floor.plane_point
    ceiling = Impact(floor.point, O.locatenew('C', (1 - clearance) * N.y),
                     -N.y, N, restitution=e, name='ceiling')
    return kane, ceiling, (y, v), constants


@pytest.mark.parametrize('e', [1.0, 0.0])
@pytest.mark.parametrize('method, backend', [
    ('DOP853', 'compiled'), ('DOP853', 'numpy'), ('RK45', 'compiled'),
    ('Radau', 'compiled'), ('LSODA', 'compiled')])
def test_gap_dipping_below_zero_inside_a_step_is_struck(method, backend, e):
    """The ceiling is 1 cm below the apex: the gap approaches and leaves
    within one step (both ends of the step below the ceiling), and the
    impact must still be found, at its closed-form time, with the ball
    never above the ceiling at dense samples."""
    clearance = 0.01
    kane, ceiling, (y, v), constants = ceiling_ball(e, clearance)
    v0 = math.sqrt(2 * G)
    approach = math.sqrt(2 * G * clearance)
    t_hit = (v0 - approach) / G
    res = simulate(kane, (0, 0.5), {y: 0.0, v: v0}, constants,
                   impacts=[ceiling], method=method, backend=backend,
                   t_eval=np.linspace(0, 0.5, 2001))
    assert res.success
    assert len(res.impacts) == 1
    hit = res.impacts[0]
    assert hit.time == pytest.approx(t_hit, abs=1e-7)
    assert hit.normal_speed_before == pytest.approx(-approach, rel=1e-6)
    assert hit.normal_speed_after == pytest.approx(e * approach, abs=1e-6)
    assert res.q[:, 0].max() <= 1 - clearance + 1e-9
    # after the impact the ball falls from the ceiling at e times the
    # approach speed: y = c - e a (t - t_hit) - G (t - t_hit)^2 / 2
    later = res.t > t_hit
    s = res.t[later] - t_hit
    expected = 1 - clearance - e * approach * s - G * s ** 2 / 2
    assert np.max(np.abs(res.q[later, 0] - expected)) < 1e-6


@pytest.mark.parametrize('method, backend', [('DOP853', 'compiled'),
                                             ('RK45', 'numpy')])
@pytest.mark.parametrize('e, theta, omega, height', [
    (0.9, 0.1, -0.7, 2.0), (1.0, 0.1, 2.0, 1.0), (1.0, 0.8, 0.7, 2.0)])
def test_rod_end_dipping_inside_a_step_is_struck(e, theta, omega, height,
                                                 method, backend):
    """A tilted, spinning rod: after one end strikes, a long step can
    carry the other end below the floor and back (and down again). Neither
    end is ever below the floor at dense samples, and the energy never
    grows."""
    kane, ends, (x, y, th, vx, vy, w) = two_ended_rod(e)
    start = {x: 0.0, y: height, th: theta, vx: 0.3, vy: 0.0, w: omega}
    res = simulate(kane, (0, 1.5), start, {}, impacts=ends, method=method,
                   backend=backend, t_eval=np.linspace(0, 1.5, 3001))
    assert res.success and len(res.impacts) >= 2
    half = ROD_LENGTH / 2 * np.sin(res.q[:, 2])
    assert min((res.q[:, 1] - half).min(), (res.q[:, 1] + half).min()) \
        >= -1e-9
    inertia = ROD_MASS * ROD_LENGTH ** 2 / 12
    energy = (ROD_MASS * G * res.q[:, 1]
              + ROD_MASS / 2 * (res.u[:, 0] ** 2 + res.u[:, 1] ** 2)
              + inertia / 2 * res.u[:, 2] ** 2)
    assert energy.max() <= energy[0] * (1 + 1e-7)


@pytest.mark.parametrize('e', [0.0, 0.8, 1.0])
def test_body_resting_on_the_plane_at_the_start_stays_there(e):
    """Resting on the floor under gravity at t0: the contact is closed
    from t0 for every restitution (no chatter of micro-impacts) and the
    floor carries the weight."""
    kane, impact, (y, v), constants = ball(e)
    res = simulate(kane, (0, 1), {y: 0.0, v: 0.0}, constants,
                   impacts=[impact])
    assert res.success and len(res.impacts) == 0
    interval, = res.contacts
    assert (interval.start, interval.end) == (0.0, 1.0)
    assert interval.normal_force == pytest.approx(G, rel=1e-12)
    assert np.abs(res.q).max() == 0.0 and np.abs(res.u).max() == 0.0


def test_plastic_impact_at_the_start_closes_the_contact_there():
    """A plastic impact at t0 on a pressing contact: the contact closes at
    t0 and stays (the samples start after the jump, as for any impact at
    t0)."""
    kane, impact, (y, v), constants = ball(0.0)
    res = simulate(kane, (0, 1), {y: 0.0, v: -1.0}, constants,
                   impacts=[impact])
    assert res.success
    assert res.t[0] == 0.0 and res.q[0, 0] == 0.0
    assert len(res.impacts) == 1
    assert res.impacts[0].normal_speed_before == -1.0
    assert res.impacts[0].normal_speed_after == pytest.approx(0.0,
                                                              abs=1e-15)
    interval, = res.contacts
    assert interval.start == 0.0
    assert np.abs(res.u[:, 0]).max() < 1e-15


def test_long_span_elastic_bouncing_locates_every_impact():
    """e = 1 over (0, 5e4): the first steps are long and the roots are
    located on the dense output of steps far larger than a bounce (SciPy's
    brentq failed to converge there and the run was lost). Every bounce
    is found, and the energy is kept."""
    kane, impact, (y, v), constants = ball(1.0)
    span = 5e4
    res = simulate(kane, (0, span), {y: 1.0, v: 0.0}, constants,
                   impacts=[impact], t_eval=[span])
    assert res.success
    first, period = math.sqrt(2 / G), 2 * math.sqrt(2 / G)
    expected = math.floor((span - first) / period) + 1
    assert abs(len(res.impacts) - expected) <= 1
    energy = G * res.q[-1, 0] + res.u[-1, 0] ** 2 / 2
    assert energy == pytest.approx(G, rel=1e-5)
    times = np.array([r.time for r in res.impacts[:100]])
    assert np.max(np.abs(times - (first + period * np.arange(100)))) < 1e-6


def ball_row(n, e):
    """Ball 1 at x = -0.5 moving at 1 towards n - 1 touching balls at rest
    (unit masses, contacts of radius 0.1 between neighbours, no loads)."""
    xs = me.dynamicsymbols(f'x1:{n + 1}')
    vs = me.dynamicsymbols(f'v1:{n + 1}')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    points, particles = [], []
    for i in range(n):
        P = O.locatenew(f'P{i + 1}', xs[i] * N.x)
        P.set_vel(N, vs[i] * N.x)
        points.append(P)
        particles.append(me.Particle(f'b{i + 1}', P, 1.0))
    kane = me.KanesMethod(N, xs, vs, kd_eqs=[a.diff() - b
                                             for a, b in zip(xs, vs)])
    kane.kanes_equations(particles, [])
    impacts = [Impact(points[i], points[i + 1], -N.x, N, restitution=e,
                      radius=0.1, plane_frame=particles[i + 1],
                      name=f'c{i + 1}') for i in range(n - 1)]
    start = {xs[0]: -0.5, vs[0]: 1.0}
    for i in range(1, n):
        start.update({xs[i]: 0.1 * (i - 1), vs[i]: 0.0})
    return kane, impacts, start


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
@pytest.mark.parametrize('n', [3, 4])
@pytest.mark.parametrize('e', [0.0, 0.1, 0.5, 1.0])
def test_ball_striking_a_row_of_touching_balls_shares_momentum(e, n,
                                                               backend):
    """Every impulse is at the strike (t = 0.4); momentum is kept, energy
    does not grow and no ball is left approaching the one ahead. With
    e = 0 all move on at 1/n; with e = 1 the impulses pass along the row
    one after another and only the last ball leaves, at the striker's
    speed (Newton's cradle)."""
    kane, impacts, start = ball_row(n, e)
    res = simulate(kane, (0, 1), start, {}, impacts=impacts, t_eval=[1.0],
                   backend=backend)
    assert res.success
    times = [r.time for r in res.impacts]
    assert times == pytest.approx([0.4] * len(times), abs=1e-12)
    speeds = res.u[-1]
    assert speeds.sum() == pytest.approx(1.0, rel=1e-12)
    assert 0.5 * np.sum(speeds ** 2) <= 0.5 + 1e-12
    assert np.all(np.diff(speeds) >= -1e-12)
    if e == 0.0:
        assert speeds == pytest.approx([1 / n] * n, abs=1e-12)
    if e == 1.0:
        assert speeds == pytest.approx([0.0] * (n - 1) + [1.0], abs=1e-12)


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_state_dependent_restitution_is_checked_at_every_impact(backend):
    """restitution = v**2/4 is 0 at the start but 4.9 at the impact: the
    run stops there (no impact applied, energy kept); one that stays in
    [0, 1], e = 1/(1 + v**2), is applied at the impact's speed."""
    kane, impact, (y, v), constants = ball()
    args = (kane, (0, 0.6), {y: 1.0, v: 0.0}, constants)
    growing = Impact(impact.point, impact.plane_point, impact.normal,
                     impact.frame, restitution=v ** 2 / 4)
    with pytest.raises(SimulationError, match=r'restitution v\(t\)\*\*2/4 '
                       r'is 4.905 at the impact') as info:
        simulate(*args, impacts=[growing], backend=backend)
    t_hit = math.sqrt(2 / G)
    assert info.value.time == pytest.approx(t_hit, rel=1e-9)
    result = info.value.result
    assert len(result.impacts) == 0
    energy = G * result.q[:, 0] + result.u[:, 0] ** 2 / 2
    assert energy.max() <= G * (1 + 1e-9)
    bounded = Impact(impact.point, impact.plane_point, impact.normal,
                     impact.frame, restitution=1 / (1 + v ** 2))
    res = simulate(*args, impacts=[bounded], backend=backend)
    hit = res.impacts[0]
    speed = math.sqrt(2 * G)
    assert hit.normal_speed_before == pytest.approx(-speed, rel=1e-9)
    assert hit.normal_speed_after == pytest.approx(
        speed / (1 + speed ** 2), rel=1e-9)
    # 2 at the start (at rest), in [0, 1] at the first impact: not
    # refused at the start, where no impact happens (the rebound's slower
    # second impact would have e > 1: the run ends before it)
    starting_high = Impact(impact.point, impact.plane_point, impact.normal,
                           impact.frame, restitution=2 / (1 + v ** 2))
    res = simulate(kane, (0, 0.5), {y: 1.0, v: 0.0}, constants,
                   impacts=[starting_high], backend=backend)
    assert res.impacts[0].normal_speed_after == pytest.approx(
        2 * speed / (1 + speed ** 2), rel=1e-9)


def test_negative_radius_constant_and_loose_plane_point_are_refused():
    kane, impact, (y, v), constants = ball()
    R = sm.Symbol('R')
    sphere = Impact(impact.point, impact.plane_point, impact.normal,
                    impact.frame, restitution=0.5, radius=R)
    with pytest.raises(ValueError, match=r'radius R must be nonnegative, '
                       r'got -0.1'):
        simulate(kane, (0, 1), {y: 1.0, v: 0.0}, {**constants, R: -0.1},
                 impacts=[sphere])
    res = simulate(kane, (0, 1), {y: 1.0, v: 0.0}, {**constants, R: 0.1},
                   impacts=[sphere])
    assert res.impacts[0].time == pytest.approx(math.sqrt(1.8 / G))
    # the face of particle 2 through a point fixed in N, not on particle 2
    _, face, _ = two_particles(0.5)
    N, P2 = face.frame, face.plane_point
    origin = next(iter(P2._pos_dict))
    with pytest.raises(ValueError, match=r'plane_point O must be fixed in '
                       r'plane_frame p2'):
        Impact(face.point, origin, -N.x, N, restitution=0.5, radius=0.1,
               plane_frame=face.plane_frame)
    body = me.RigidBody('wall', P2, N.orientnew('W', 'Axis', (0, N.z)),
                        1.0, (me.inertia(N, 1, 1, 1), P2))
    with pytest.raises(ValueError, match=r'plane_point O must be fixed in '
                       r'plane_frame wall'):
        Impact(face.point, origin, -N.x, N, restitution=0.5,
               plane_frame=body)


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_empty_t_eval_integrates_and_keeps_no_sample(backend):
    kane, impact, (y, v), constants = ball(0.8)
    res = simulate(kane, (0, 1.2), {y: 1.0, v: 0.0}, constants,
                   impacts=[impact], t_eval=[], backend=backend)
    assert res.success and res.t.size == 0 and res.q.shape == (0, 1)
    times, _ = bounces(1.0, 0.8, 2)
    assert [r.time for r in res.impacts] == pytest.approx(times, abs=1e-9)


def test_sweep_with_new_impacts_and_outputs_keeps_a_bounded_cache():
    """New Impact objects and outputs per call: the generated functions
    of only the last few are kept (the earlier Impact objects are freed)."""
    import gc
    import weakref
    from sympy_loads._simulation import numeric_model as _model
    bound = getattr(_model, 'OUTPUT_CACHE_SIZE', 16)
    kane, impact, (y, v), constants = ball()
    alive = []
    for i in range(bound + 8):
        new = Impact(impact.point, impact.plane_point, impact.normal,
                     impact.frame, restitution=0.5 + i / 100)
        res = simulate(kane, (0, 0.5), {y: 1.0, v: 0.0}, constants,
                       impacts=[new], outputs={'h': y + i})
        assert res.outputs['h'][0] == pytest.approx(1.0 + i)
        alive.append(weakref.ref(new))
        del new
    gc.collect()
    assert sum(ref() is not None for ref in alive) <= bound
    assert alive[-1]() is not None       # the last ones stay cached


def test_messages_name_the_impacts_restitution_and_normal():
    kane, impact, (y, v), constants = ball()
    E = me.dynamicsymbols('E')
    varying = Impact(impact.point, impact.plane_point, impact.normal,
                     impact.frame, restitution=E)
    with pytest.raises(ValueError, match=r'impacts\[0\] \(impact of P\): '
                       r'its restitution E\(t\) contains') as info:
        simulate(kane, (0, 1), {y: 1.0, v: 0.0}, constants,
                 impacts=[varying], specified={E: lambda t: 0.5})
    assert 'e0' not in str(info.value)
    A = me.ReferenceFrame('A')
    for plane_frame in (None, A):
        with pytest.raises(ValueError, match=r'normal A.y \(in the frame '
                           r'A\) cannot be related to the frame N'):
            Impact(impact.point, impact.plane_point, A.y, impact.frame,
                   restitution=0.5, plane_frame=plane_frame)


def test_event_root_falls_back_to_bisection(monkeypatch):
    """Where Brent's method does not converge in its iterations (SciPy's
    brentq raised "Failed to converge" and the run was lost), bisection
    finishes: the root of the gap to adjacent floats."""
    from sympy_loads._simulation import integrators as _integrators
    monkeypatch.setattr(_integrators, '_BRENT_ITERATIONS', 2)
    t_hit = math.sqrt(2 / G) + 4e4          # a late root: large times
    root = _integrators.find_root(lambda t: (t_hit - t) * (1 + t_hit - t),
                                  4e4, 4e4 + 0.9)
    assert root == pytest.approx(t_hit, abs=4 * np.spacing(t_hit))
