"""Frictional rigid impacts in simulate(): the tangential impulse of
``Impact(..., friction_coefficient=mu)`` against hand derivations (a
spinning ball striking the floor, where the slip keeps its direction; a
rod whose tip strikes a rough floor, with and without a velocity
constraint), the new ``Impact`` attributes and their checks. The falling
rod of the issue and the showcase models are in
``test_frictional_contacts.py``; the impact laws themselves in
``test_contact_problems.py``."""

import math

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from hypothesis import given, settings
from hypothesis import strategies as st

from sympy_loads import Impact, ImpactRecord, simulate


def spinning_ball():
    """A sphere (mass m, radius R, I = 2/5 m R^2) above the floor y = 0,
    free in space: speeds are the center's velocity in N and the body-fixed
    angular velocity (B = N at the start)."""
    x, y, z, q1, q2, q3 = me.dynamicsymbols('x y z q1 q2 q3')
    vx, vy, vz, w1, w2, w3 = me.dynamicsymbols('v_x v_y v_z w1 w2 w3')
    m, R = sm.symbols('m R', positive=True)
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Body', (q1, q2, q3), '123')
    B.set_ang_vel(N, w1 * B.x + w2 * B.y + w3 * B.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y + z * N.z)
    P.set_vel(N, vx * N.x + vy * N.y + vz * N.z)
    inertia = me.inertia(B, 1, 1, 1) * sm.Rational(2, 5) * m * R**2
    body = me.RigidBody('ball', P, B, m, (inertia, P))
    kde = [x.diff() - vx, y.diff() - vy, z.diff() - vz]
    kde += me.kinematic_equations([w1, w2, w3], [q1, q2, q3], 'Body', '123')
    kane = me.KanesMethod(N, [x, y, z, q1, q2, q3],
                          [vx, vy, vz, w1, w2, w3], kd_eqs=kde)
    kane.kanes_equations([body], [])
    return kane, (P, O, N, B), (m, R)


def strike(e, mu, v, w, m_value=2.0, R_value=0.1, backend='auto'):
    """Simulate the spinning ball striking the floor; returns the record."""
    kane, (P, O, N, B), (m, R) = spinning_ball()
    floor = Impact(P, O, N.y, N, restitution=e, friction_coefficient=mu,
                   radius=R, sphere_frame=B, name='floor')
    q, u = kane.q, kane.u
    start = dict(zip(q, [0.0, R_value + 1e-3, 0.0, 0.0, 0.0, 0.0]))
    start.update(zip(u, list(v) + list(w)))
    result = simulate(kane, (0, 2e-3 / abs(v[1])), start,
                      {m: m_value, R: R_value}, impacts=[floor],
                      rtol=1e-12, atol=1e-12, backend=backend)
    (record,) = result.impacts
    # the angular speeds are body-fixed: their N components at the impact
    # (the ball has turned a little since the start)
    i = int(np.searchsorted(result.t, record.time))
    dcm = sm.lambdify(kane.q[3:], N.dcm(B))(*result.q[i, 3:])
    spin = (dcm @ np.array(record.u_before[3:]),
            dcm @ np.array(record.u_after[3:]))
    return record, floor, spin


def ball_by_hand(e, mu, v, w, m, R):
    """Center velocity and angular velocity after the impact, by hand.

    The contact's velocity-change matrix is diagonal (1/m along the
    normal, 1/m + R^2/I = 7/(2m) along either tangent), so the slip keeps
    its direction through the impact and every restitution law (Newton,
    Poisson, Stronge) gives P_n = (1 + e) m |v_n|; the slip s stops
    (rolling) if 2 m |s| / 7 <= mu P_n, else the friction impulse is
    mu P_n against it."""
    v, w = np.array(v, float), np.array(w, float)
    n = np.array([0.0, 1.0, 0.0])
    r = -R * n                                    # center to contact
    slip = v + np.cross(w, r)
    slip -= slip.dot(n) * n
    Pn = -(1 + e) * m * v.dot(n)
    s = np.linalg.norm(slip)
    if 2 * m * s / 7 <= mu * Pn:
        Pt = -2 * m * slip / 7
    else:
        Pt = -mu * Pn * slip / s
    impulse = Pn * n + Pt
    inertia = 2 / 5 * m * R**2
    return (v + impulse / m, w + np.cross(r, impulse) / inertia, Pn, Pt)


@pytest.mark.parametrize('mu, rolls', [(0.5, True), (0.05, False)])
@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_spinning_ball_sticks_or_slides_in_its_slip_direction(mu, rolls,
                                                              backend):
    e, m, R = 0.6, 2.0, 0.1
    v, w = (0.7, -2.0, -0.4), (3.0, 1.0, 5.0)
    record, floor, (w_before, w_after_n) = strike(e, mu, v, w, m, R,
                                                  backend)
    v_after, w_after, Pn, Pt = ball_by_hand(e, mu, v, w_before, m, R)
    assert record.impulse == pytest.approx(Pn, rel=1e-10)
    # tangents of the floor y = 0: t1 = N.x, t2 = N.y x N.x = -N.z
    assert str(floor.tangents) == '(N.x, - N.z)'
    assert record.tangential_impulse == pytest.approx(
        (Pt[0], -Pt[2]), rel=1e-9, abs=1e-12)
    assert record.u_after[:3] == pytest.approx(v_after, rel=1e-9, abs=1e-12)
    assert w_after_n == pytest.approx(w_after, rel=1e-9, abs=1e-12)
    slip_after = np.hypot(*record.tangential_speed_after)
    if rolls:
        assert slip_after == pytest.approx(0.0, abs=1e-12)
    else:
        assert slip_after > 0.1
        # the slip keeps its direction
        before = np.array(record.tangential_speed_before)
        after = np.array(record.tangential_speed_after)
        assert before[0] * after[1] - before[1] * after[0] == pytest.approx(
            0.0, abs=1e-12)
        assert before.dot(after) > 0


@settings(max_examples=15, deadline=None)
@given(e=st.floats(0.0, 1.0), mu=st.floats(0.0, 1.5),
       v=st.tuples(st.floats(-3, 3), st.floats(-5, -0.1), st.floats(-3, 3)),
       w=st.tuples(st.floats(-30, 30), st.floats(-30, 30),
                   st.floats(-30, 30)))
def test_generated_ball_strikes_match_the_hand_solution_and_lose_energy(
        e, mu, v, w):
    m, R = 2.0, 0.1
    record, _, (w_before, w_after_n) = strike(e, mu, v, w, m, R)
    v_after, w_after, Pn, _ = ball_by_hand(e, mu, v, w_before, m, R)
    scale = 1 + max(map(abs, v + w))
    assert np.allclose(np.r_[record.u_after[:3], w_after_n],
                       np.r_[v_after, w_after], rtol=1e-8, atol=1e-9 * scale)

    def energy(u):
        u = np.asarray(u)
        return 0.5 * m * u[:3] @ u[:3] + 0.5 * 0.4 * m * R**2 * u[3:] @ u[3:]
    assert energy(record.u_after) <= energy(record.u_before) * (1 + 1e-12)


def rod_on_a_slider(mu, e, constrained):
    """A rod of mass 1, length 1 at 45 degrees, its center moving down at
    1 m/s, its lower end A striking the floor. ``constrained``: the
    center's speeds are written as three speeds with the velocity
    constraint v_x + v_s = 0 on an extra speed v_s (dependent), the same
    motion through a velocity constraint."""
    x, y, th = me.dynamicsymbols('x y theta')
    vx, vy, w, vs = me.dynamicsymbols('v_x v_y omega v_s')
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', (th, N.z))
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    G = O.locatenew('G', x * N.x + y * N.y)
    G.set_vel(N, vx * N.x + vy * N.y)
    A = G.locatenew('A', -B.x / 2)
    A.v2pt_theory(G, N, B)
    rod = me.RigidBody('rod', G, B, 1, (me.inertia(B, 0, 0, 1 / 12), G))
    kde = [x.diff() - vx, y.diff() - vy, th.diff() - w]
    if constrained:
        # a massless follower S moving with -v_x, its own speed v_s
        S = O.locatenew('S', -x * N.x)
        S.set_vel(N, vs * N.x)
        kane = me.KanesMethod(N, [x, y, th], [vx, vy, w], kd_eqs=kde,
                              u_dependent=[vs],
                              velocity_constraints=[vx + vs])
        kane.kanes_equations([rod, me.Particle('s', S, 0)], [])
        speeds = {vx: 0.0, vy: -1.0, w: 0.0, vs: 0.0}
    else:
        kane = me.KanesMethod(N, [x, y, th], [vx, vy, w], kd_eqs=kde)
        kane.kanes_equations([rod], [])
        speeds = {vx: 0.0, vy: -1.0, w: 0.0}
    floor = Impact(A, O, N.y, N, restitution=e, friction_coefficient=mu)
    start = {x: 0.0, y: math.sin(math.pi / 4) / 2 + 1e-6,
             th: math.pi / 4, **speeds}
    return simulate(kane, (0, 1e-4), start, {}, impacts=[floor],
                    rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('constrained', [False, True])
@pytest.mark.parametrize('mu, Pn, Pt', [
    # by hand (see test_contact_problems): G = [[2.5, -1.5], [-1.5, 2.5]]
    # in [n, t]; stick: 1.6 P_n = 1.5, P_t = 0.6 P_n; slide: (2.5 - 1.5
    # mu) P_n = 1.5, P_t = mu P_n
    (0.8, 1.5 / 1.6, 0.6 * 1.5 / 1.6),
    (0.3, 1.5 / 2.05, 0.3 * 1.5 / 2.05)])
def test_rod_tip_on_a_rough_floor(constrained, mu, Pn, Pt):
    result = rod_on_a_slider(mu, 0.5, constrained)
    (record,) = result.impacts
    assert record.impulse == pytest.approx(Pn, rel=1e-10)
    assert record.tangential_impulse[0] == pytest.approx(Pt, rel=1e-10)
    assert record.normal_speed_after == pytest.approx(0.5, rel=1e-10)
    # angular velocity from the moment of the impulse about the center:
    # r_A/G = -(a, a), a = sqrt(2)/4; dw = 12 (r x P) = 12 a (P_t - P_n)
    a = math.sqrt(2) / 4
    assert record.u_after[2] == pytest.approx(12 * a * (Pt - Pn), rel=1e-10)
    if constrained:
        assert record.u_after[3] == pytest.approx(-record.u_after[0],
                                                  abs=1e-12)


def test_frictionless_impact_records_no_tangential_impulse():
    record, floor, _ = strike(0.5, 0.0, (0.7, -2.0, -0.4), (3.0, 1.0, 5.0))
    assert record.tangential_impulse == (0.0, 0.0)
    assert 'tangential' not in repr(record)
    assert floor.friction_coefficient.is_zero
    assert 'friction' not in repr(floor)


def test_impact_attributes_and_checks():
    x, y, vx, vy = me.dynamicsymbols('x y v_x v_y')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, vx * N.x + vy * N.y)
    a = sm.symbols('alpha')
    incline = sm.cos(a) * N.y - sm.sin(a) * N.x
    impact = Impact(P, O, incline, N, restitution=0,
                    friction_coefficient=sm.Rational(1, 2))
    t1, t2 = impact.tangents
    # N.z is perpendicular to the normal: t1 = N.z, t2 = n x N.z
    assert t1 == N.z
    for u, v in ((t1, t1), (t2, t2)):
        assert sm.simplify(u.dot(v)) == 1
    assert sm.simplify(t2.dot(incline)) == 0
    assert impact.tangential_speeds[0] == 0
    assert sm.simplify(impact.tangential_speeds[1]
                       - (vx * sm.cos(a) + vy * sm.sin(a))) == 0
    assert 'friction_coefficient=1/2' in repr(impact)
    with pytest.raises(ValueError, match='friction_coefficient'):
        Impact(P, O, N.y, N, restitution=0, friction_coefficient=-1)
    with pytest.raises(TypeError, match='friction_coefficient'):
        Impact(P, O, N.y, N, restitution=0, friction_coefficient='a lot')
    with pytest.raises(TypeError, match='sphere_frame'):
        Impact(P, O, N.y, N, restitution=0, sphere_frame=P)


def test_record_defaults_keep_old_calls():
    record = ImpactRecord(time=0.1, index=0, name='floor',
                          normal_speed_before=-1.0, normal_speed_after=0.5,
                          impulse=1.5, u_before=(-1.0,), u_after=(0.5,))
    assert record.tangential_impulse == (0.0, 0.0)
    assert record.tangential_speed_before == (0.0, 0.0)
