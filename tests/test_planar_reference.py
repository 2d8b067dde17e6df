"""Checks of the body-coordinate reference in ``tests/_planar_reference.py``
(used by the closed-loop reaction and friction tests of issue 36): energy
balances, constraint residuals, Newton-Euler per body with the reported
reactions, a static slider-crank against a hand calculation, and the
stick and break-away of the piston guide's Coulomb friction.

Tolerances: the reference integrates with rtol = 1e-11 (atol 1e-12), so
energy balances hold to about 1e-9 of the energy scale; the Baumgarte
terms keep the position residual at the integration error; the
Newton-Euler balances are equalities of a linear solve (about 1e-12 of the
largest force).
"""

import numpy as np
import pytest

from _planar_reference import (FOUR_BAR, SLIDER_CRANK, _rot, four_bar,
                               slider_crank)


@pytest.fixture(scope='module')
def four_bar_run():
    model, initial = four_bar()
    q, qd = initial()
    return model, model.simulate(np.linspace(0.0, 2.0, 201), q, qd)


@pytest.fixture(scope='module', params=[0.0, 0.3], ids=['smooth', 'mu0.3'])
def crank_run(request):
    model, initial = slider_crank(mu=request.param)
    q, qd = initial()
    return model, model.simulate(np.linspace(0.0, 1.0, 201), q, qd)


def _residuals(model, run):
    pos = [np.max(np.abs(model.constraints(q, qd)[0]))
           for q, qd in zip(run.q, run.qd)]
    vel = [np.max(np.abs(model.constraints(q, qd)[1] @ qd))
           for q, qd in zip(run.q, run.qd)]
    return max(pos), max(vel)


def test_four_bar_energy_balance_and_closure(four_bar_run):
    model, run = four_bar_run
    balance = run.energy - run.energy[0] - run.work['damper']
    scale = np.max(np.abs(run.energy))
    assert np.max(np.abs(balance)) <= 1e-9*scale
    assert run.work['damper'][-1] < 0
    pos, vel = _residuals(model, run)
    assert pos <= 1e-10 and vel <= 1e-9


def test_slider_crank_energy_balance_and_closure(crank_run):
    model, run = crank_run
    works = sum(run.work.values())
    balance = run.energy - run.energy[0] - works
    assert np.max(np.abs(balance)) <= 1e-9*np.max(np.abs(run.work['motor']))
    if model.friction_guide is not None:
        assert run.work['friction'][-1] < 0
        # the crank turns through dead centres: slip phases only
        assert all(s != 0 for _, s, _ in run.phases)
        assert len(run.phases) > 4
    pos, vel = _residuals(model, run)
    assert pos <= 1e-10 and vel <= 1e-9


def _point_force(point_rel, force):
    """Moment about the mass center of ``force`` at ``point_rel``."""
    return point_rel[0]*force[1] - point_rel[1]*force[0]


def _newton_euler(masses, inertias, qdd, loads):
    """Largest residual of m a - sum F and I alpha - sum M per body;
    ``loads[b]`` lists (point relative to the mass center, force) and
    pure torques (None, torque)."""
    worst = 0.0
    for b, (m, inertia) in enumerate(zip(masses, inertias)):
        force, moment = np.zeros(2), 0.0
        for rel, f in loads[b]:
            if rel is None:
                moment += f
            else:
                force += f
                moment += _point_force(rel, f)
        worst = max(worst, np.max(np.abs(m*qdd[3*b:3*b + 2] - force)),
                    abs(inertia*qdd[3*b + 2] - moment))
    return worst


def test_four_bar_newton_euler_closes_per_body(four_bar_run):
    """Crank, coupler and (massless) rocker each balance with gravity, the
    spring-damper on the coupler at P3 and the pin reactions (force on the
    child, minus that on the parent)."""
    model, run = four_bar_run
    p = FOUR_BAR
    m, g = p['m'], p['g']
    for k in range(0, len(run.t), 20):
        q, qd, qdd = run.q[k], run.qd[k], run.qdd[k]
        R = {name: run.reaction[name][k] for name in run.reaction}
        P3, v3 = q[3:5], qd[3:5]
        length = np.hypot(*P3)
        e = P3/length
        spring = -(p['k']*(length - p['l0']) + p['c']*(e @ v3))*e
        weight = np.array([0.0, -m*g])
        a = lambda b, s: _rot(q[3*b + 2], s)      # noqa: E731
        loads = [
            [((0, 0), weight), (a(0, (-p['la'], 0)), R['P1']),
             ((0, 0), -R['P2'])],
            [((0, 0), weight + spring), (a(1, (-p['lb'], 0)), R['P2']),
             ((0, 0), -R['P3'])],
            [(a(2, (-p['lc'], 0)), R['P3']), ((0, 0), R['P4'])]]
        scale = max(np.max(np.abs(r)) for r in R.values())
        assert _newton_euler([m, m, 0], [0, 0, 0], qdd, loads) <= (
            1e-10*scale)


def test_slider_crank_newton_euler_closes_per_body(crank_run):
    """Crank (motor, bearing, pins O and P), rod (pins P and S), slider
    (pin S, spring-damper, guide normal force, friction, guide torque)."""
    model, run = crank_run
    p = SLIDER_CRANK
    r, l = p['r'], p['l']
    for k in range(0, len(run.t), 10):
        t, q, qd, qdd = run.t[k], run.q[k], run.qd[k], run.qdd[k]
        R = {name: run.reaction[name][k] for name in run.reaction}
        x, v = q[6], qd[6]
        spring = -(p['k']*(x - p['l0']) + p['c']*v)
        torque = p['T0']*(1 - np.exp(-t/p['tau'])) - p['cb']*qd[2]
        N, T, F = R['guide']
        a = lambda b, s: _rot(q[3*b + 2], s)      # noqa: E731
        loads = [
            [(a(0, (-r/2, 0)), R['O']), (a(0, (r/2, 0)), -R['P']),
             (None, torque)],
            [(a(1, (-l/2, 0)), R['P']), (a(1, (l/2, 0)), -R['S'])],
            [((0, 0), R['S'] + np.array([spring + F, N])), (None, T)]]
        masses, inertias = [p['mc'], p['mr'], p['ms']], [
            p['mc']*r**2/12, p['mr']*l**2/12, 0.0]
        scale = max(np.max(np.abs(v)) for v in R.values())
        assert _newton_euler(masses, inertias, qdd, loads) <= 1e-10*scale


def _static_torque(q1):
    """Hand calculation of the slider-crank at rest at crank angle ``q1``
    (no gravity, no speed): the rod carries a force ``R`` along
    ``e = (S - P)/l`` (a two-force member), the slider's x balance gives
    ``R e_x = k (x - l0)``, the guide pushes ``N = -R e_y`` and the crank
    needs the motor torque ``T = R (P x e)``."""
    p = SLIDER_CRANK
    r, l = p['r'], p['l']
    P = r*np.array([np.cos(q1), np.sin(q1)])
    x = P[0] + np.sqrt(l**2 - P[1]**2)
    e = (np.array([x, 0.0]) - P)/l
    R = p['k']*(x - p['l0'])/e[0]
    return R, e, P[0]*e[1] - P[1]*e[0]


def test_slider_crank_statics_against_hand_calculation():
    q1 = 0.7
    R, e, arm = _static_torque(q1)
    # the motor at its full torque R * arm from the start (tau tiny)
    model, initial = slider_crank(T0=R*arm, tau=1e-9)
    q, qd = initial(q1)
    qdd, react = model.reactions(1.0, q, qd)
    assert np.max(np.abs(qdd)) <= 1e-10*R
    np.testing.assert_allclose(react['S'], R*e, atol=1e-10*R)
    np.testing.assert_allclose(react['P'], R*e, atol=1e-10*R)
    np.testing.assert_allclose(react['O'], R*e, atol=1e-10*R)
    np.testing.assert_allclose(react['guide'], [-R*e[1], 0.0, 0.0],
                               atol=1e-10*R)


def test_guide_sticks_then_breaks_away_where_the_hand_calculation_says():
    """At crank angle -0.7 the spring (pushing the slider to -x) is held by
    a positive motor torque through the rod, ``R = T/arm``. The guide
    holds with ``H = k (x - l0) - R e_x`` against the normal force
    ``N = -R e_y`` while ``|H| <= mu |N|``: for ``T`` between
    ``k (x - l0) arm/(e_x + mu e_y)`` and ``k (x - l0) arm/(e_x - mu e_y)``.
    Started at rest inside that band, the slider stays put until the
    motor's exponential rise reaches the upper bound, then the crank turns
    forward."""
    q1, mu, T0, tau = -0.7, 0.4, 4.0, 0.2
    R_static, e, arm = _static_torque(q1)
    k_spring = R_static*e[0]            # k (x - l0)
    T_low = k_spring*arm/(e[0] + mu*e[1])
    T_up = k_spring*arm/(e[0] - mu*e[1])
    start = -tau*np.log(1 - 0.5*(T_low + T_up)/T0)
    t_break = -tau*np.log(1 - T_up/T0)
    model, initial = slider_crank(mu=mu, T0=T0, tau=tau)
    q, qd = initial(q1)
    t_eval = np.linspace(start, t_break + 0.05, 101)
    run = model.simulate(t_eval, q, qd)
    assert run.phases[0][1] == 0                # stuck at first
    assert abs(run.phases[1][0] - t_break) <= 1e-8
    assert run.phases[1][1] == 1                # then slides forward
    stuck = run.t < t_break
    np.testing.assert_allclose(run.q[stuck], np.tile(q, (stuck.sum(), 1)),
                               atol=1e-10)
    R = T0*(1 - np.exp(-run.t[stuck]/tau))/arm
    N, _, H = run.reaction['guide'][stuck].T
    np.testing.assert_allclose(N, -R*e[1], rtol=1e-9)
    np.testing.assert_allclose(H, k_spring - R*e[0], rtol=1e-9)
    assert np.all(np.abs(H) <= mu*np.abs(N)*(1 + 1e-12))
    assert run.qd[-1, 2] > 0
