"""Simulated impacts with HuntCrossleyContact (KanesMethod + solve_ivp).

Each model is built once with symbolic parameters and lambdified once; the
cases only change the numbers. A single impact starts at first contact with
speed v0 and ends at the separation event; the measured coefficient of
restitution is the exit speed over v0.
"""

import functools

import numpy as np
import pytest
import sympy as sm
from scipy.integrate import solve_ivp
from sympy.physics.mechanics import (KanesMethod, Particle, Point,
                                     ReferenceFrame, RigidBody, dynamicsymbols,
                                     inertia)

from sympy_loads import (DAMPING_MODELS, HuntCrossleyContact,
                         effective_restitution, hertz_stiffness,
                         hysteresis_factor)
from sympy_loads._utils import _lambdify

# --------------------------------------------------------------------------
# A particle moving along the normal of a fixed plane, no gravity.


@functools.lru_cache(maxsize=None)
def _normal_impact_model():
    """Return (rhs, gap, params) for a particle on a plane; lambdified once.

    Parameters order: m, k, c, n, R (mass, stiffness, damping, exponent,
    radius).
    """
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    z, uz = dynamicsymbols('z u_z')
    P = O.locatenew('P', z * N.z)
    P.set_vel(N, uz * N.z)
    m, k, c, n, R = sm.symbols('m k c n R', positive=True)
    contact = HuntCrossleyContact(P, O, N.z, N, stiffness=k, damping=c,
                                  exponent=n, radius=R)
    kane = KanesMethod(N, [z], [uz], kd_eqs=[z.diff() - uz])
    kane.kanes_equations([Particle('p', P, m)], contact.to_loads())
    udot = kane.mass_matrix.LUsolve(kane.forcing)[0]
    args = (z, uz, m, k, c, n, R)
    acceleration = _lambdify(args, udot)
    force = _lambdify(args, contact.normal_force)

    def rhs(t, y, *p):
        return [y[1], acceleration(y[0], y[1], *p)]

    return rhs, force


def _single_impact(m, k, c, v0, n=1.5, radius=0.0):
    """Integrate one impact; return (restitution, max penetration, contact
    time, peak force)."""
    rhs, force = _normal_impact_model()
    p = (m, k, c, n, radius)
    d_scale = ((n + 1) * m * v0**2 / (2 * k))**(1 / (n + 1))

    def separation(t, y, *p):
        return y[0] - radius
    separation.terminal = True
    separation.direction = 1

    def deepest(t, y, *p):
        return y[1]
    deepest.direction = 1

    sol = solve_ivp(rhs, (0.0, 200 * d_scale / v0), [radius, -v0],
                    args=p, method='DOP853', events=[separation, deepest],
                    rtol=1e-11, atol=[1e-12 * d_scale, 1e-12 * v0])
    assert sol.status == 1, sol.message   # ended at separation
    t_out, (_, u_out) = sol.t_events[0][0], sol.y_events[0][0]
    z_low = sol.y_events[1][0][0]
    d_max = radius - z_low
    f_max = force(z_low, 0.0, *p)
    return u_out / v0, d_max, t_out, f_max


# --------------------------------------------------------------------------
# Restitution of the damping models against the exact relation.

@pytest.mark.parametrize('model', DAMPING_MODELS)
@pytest.mark.parametrize('e', [0.5, 0.85])
def test_measured_restitution_matches_exact_relation(model, e):
    m, k, v0 = 1.0, 1e6, 1.0
    chi = float(hysteresis_factor(e, model))
    measured = _single_impact(m, k, chi * k / v0, v0)[0]
    assert abs(measured - effective_restitution(chi)) < 1e-3


@pytest.mark.parametrize('model', DAMPING_MODELS)
def test_measured_restitution_is_independent_of_mass_stiffness_speed(model):
    chi = float(hysteresis_factor(0.7, model))
    cases = [(1.0, 1e6, 1.0, 1.5), (0.05, 3e8, 4.0, 1.5),
             (20.0, 1e4, 0.2, 1.5), (2.0, 5e5, 1.5, 1.0)]
    measured = [_single_impact(m, k, chi * k / v0, v0, n)[0]
                for m, k, v0, n in cases]
    assert np.ptp(measured) < 1e-3
    assert abs(np.mean(measured) - effective_restitution(chi)) < 1e-3


@pytest.mark.parametrize('model', ['gonthier', 'flores', 'hu-guo'])
@pytest.mark.parametrize('e', [0.3, 0.5, 0.7, 0.9])
def test_full_range_models_reproduce_requested_restitution(model, e):
    m, k, v0 = 0.5, 2e6, 2.0
    chi = float(hysteresis_factor(e, model))
    measured = _single_impact(m, k, chi * k / v0, v0)[0]
    assert abs(measured - e) < 0.05


@pytest.mark.parametrize('model, lowest', [('hunt-crossley', 0.49),
                                           ('lankarani-nikravesh', 0.66)])
def test_near_elastic_models_cannot_reach_low_restitution(model, lowest):
    # REFERENCES.md: Hunt-Crossley never goes below about 0.49,
    # Lankarani-Nikravesh below about 0.66, whatever e is requested.
    chi = float(hysteresis_factor(0, model))
    measured = _single_impact(1.0, 1e6, chi * 1e6, 1.0)[0]
    assert abs(measured - lowest) < 0.01


def test_hertz_steel_sphere_on_steel_plane():
    # REFERENCES.md: R = 10 mm, E = 210 GPa, nu = 0.3, rho = 7850, v0 = 1
    # m/s: k = 1.538e10 N/m^1.5, d_max = 23.5 um, t_c = 69.1 us,
    # f_max = 1.75 kN.
    radius, v0 = 0.01, 1.0
    m = 7850 * 4 / 3 * np.pi * radius**3
    k = float(hertz_stiffness(radius, 210e9, 0.3))
    assert k == pytest.approx(1.538e10, rel=1e-3)
    e, d_max, t_c, f_max = _single_impact(m, k, 0.0, v0, radius=radius)
    assert e == pytest.approx(1.0, abs=1e-6)
    assert d_max == pytest.approx(23.5e-6, rel=0.01)
    assert t_c == pytest.approx(69.1e-6, rel=0.01)
    assert f_max == pytest.approx(1.75e3, rel=0.01)
    # and the closed forms themselves, more tightly
    d_hertz = (5 * m * v0**2 / (4 * k))**0.4
    assert d_max == pytest.approx(d_hertz, rel=1e-6)
    assert t_c == pytest.approx(2.9433 * d_hertz / v0, rel=1e-4)
    assert f_max == pytest.approx(k * d_hertz**1.5, rel=1e-6)


# --------------------------------------------------------------------------
# A spinning ball sliding and bouncing on a plane, with friction.

@functools.lru_cache(maxsize=None)
def _rolling_ball_model():
    """Ball (rigid sphere) in the x-z plane under gravity, contact with
    friction and rotation; returns (rhs, energy, slip) lambdified once.

    Parameters: m, R, g, k, c, mu, eps.
    """
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    x, z, th = dynamicsymbols('x z theta')
    ux, uz, w = dynamicsymbols('u_x u_z omega')
    m, R, g, k, c, mu, eps = sm.symbols('m R g k c mu epsilon',
                                        positive=True)
    B = N.orientnew('B', 'Axis', (th, N.y))
    B.set_ang_vel(N, w * N.y)
    P = O.locatenew('P', x * N.x + z * N.z)
    P.set_vel(N, ux * N.x + uz * N.z)
    ball = RigidBody('ball', P, B, m,
                     (inertia(B, *(3 * [2 * m * R**2 / 5])), P))
    contact = HuntCrossleyContact(
        P, O, N.z, N, stiffness=k, damping=c, radius=R,
        friction_coefficient=mu, sphere_frame=B,
        friction_regularization=eps)
    kane = KanesMethod(N, [x, z, th], [ux, uz, w],
                       kd_eqs=[x.diff() - ux, z.diff() - uz, th.diff() - w])
    loads = contact.to_loads() + [(P, -m * g * N.z)]
    kane.kanes_equations([ball], loads)
    udot = kane.mass_matrix.LUsolve(kane.forcing)
    d = contact.penetration
    energy = (ball.kinetic_energy(N) + m * g * z
              + k * d**sm.Rational(5, 2) / sm.Rational(5, 2))
    slip = contact.slip_velocity.dot(N.x)
    args = ((x, z, th, ux, uz, w), (m, R, g, k, c, mu, eps))
    f_udot = _lambdify(args, list(udot))
    f_energy = _lambdify(args, energy)
    f_slip = _lambdify(args, slip)

    def rhs(t, y, p):
        return np.concatenate([y[3:], f_udot(y, p)])

    return rhs, f_energy, f_slip


def test_sliding_bouncing_ball_loses_energy_monotonically():
    rhs, energy, slip = _rolling_ball_model()
    R, m, g = 0.05, 0.2, 9.81
    k, e, h0 = 2e6, 0.8, 0.3
    v0 = np.sqrt(2 * g * (h0 - R))
    chi = float(hysteresis_factor(e, 'gonthier'))
    p = (m, R, g, k, chi * k / v0, 0.3, 1e-3)
    y0 = [0.0, h0, 0.0, 2.0, 0.0, 0.0]   # sliding forward, not spinning
    t = np.linspace(0.0, 1.2, 6001)
    sol = solve_ivp(rhs, (t[0], t[-1]), y0, args=(p,), t_eval=t,
                    method='DOP853', rtol=1e-10, atol=1e-12)
    assert sol.success, sol.message
    E = np.array([energy(y, p) for y in sol.y.T])
    E0 = E[0]
    # never gains energy (beyond integration noise), loses a lot overall
    assert np.max(np.diff(E)) < 1e-8 * E0
    assert E[-1] < 0.8 * E0
    # friction spun the ball up until it rolls: after the first impact the
    # contact point no longer slips while in contact, and the ball keeps
    # ux = R omega, close to the rigid-ball value 5/7 of the initial speed
    # (the friction's lever arm is R - d, a few percent shorter here)
    s = np.array([slip(y, p) for y in sol.y.T])
    assert abs(s[0] - 2.0) < 1e-12
    first_separation = np.argmax((sol.y[1] > R) & (sol.y[4] > 0))
    later_contact = (sol.y[1] < R - 1e-4) & (np.arange(t.size)
                                             > first_separation)
    assert later_contact.sum() > 10
    assert np.max(np.abs(s[later_contact])) < 1e-2
    assert sol.y[5, -1] * R == pytest.approx(sol.y[3, -1], rel=1e-2)
    assert sol.y[3, -1] == pytest.approx(5 / 7 * 2.0, rel=0.03)


def test_bouncing_ball_example(tmp_path, capsys):
    from sympy_loads.examples import bouncing_ball

    result = bouncing_ball.main(['--duration', '1.2', '--output',
                                 str(tmp_path)])
    out = capsys.readouterr().out
    assert 'rebound height' in out
    assert (tmp_path / 'bouncing_ball.png').stat().st_size > 10_000
    bounces = result['bounces']
    assert len(bounces) == 2
    for b in bounces:   # gravity during the ~1 ms contact shifts e slightly
        assert abs(b['restitution'] - b['predicted']) < 2e-3
    # first rebound: e**2 of the drop height h0 (of the ball's lowest point)
    par = result['parameters']
    assert bounces[0]['height'] == pytest.approx(
        bounces[0]['restitution']**2 * par['h0'], rel=1e-3)
    assert np.max(np.diff(result['energy'])) < 1e-8 * result['energy'][0]


# --------------------------------------------------------------------------
# A ball hitting a free platform: the reaction on the plane's body.

@functools.lru_cache(maxsize=None)
def _ball_on_platform_model():
    """Ball particle (z1) over a platform particle (z2) that carries the
    plane, no gravity; parameters m, M, k, c."""
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    z1, z2, u1, u2 = dynamicsymbols('z1 z2 u1 u2')
    P = O.locatenew('P', z1 * N.z)
    P.set_vel(N, u1 * N.z)
    S = O.locatenew('S', z2 * N.z)
    S.set_vel(N, u2 * N.z)
    m, M, k, c = sm.symbols('m M k c', positive=True)
    platform = Particle('platform', S, M)
    contact = HuntCrossleyContact(P, S, N.z, N, stiffness=k, damping=c,
                                  plane_frame=platform)
    kane = KanesMethod(N, [z1, z2], [u1, u2],
                       kd_eqs=[z1.diff() - u1, z2.diff() - u2])
    kane.kanes_equations([Particle('ball', P, m), platform],
                         contact.to_loads())
    udot = _lambdify(((z1, z2, u1, u2), (m, M, k, c)),
                     list(kane.mass_matrix.LUsolve(kane.forcing)))

    def rhs(t, y, p):
        return np.concatenate([y[2:], udot(y, p)])

    return rhs


@pytest.mark.parametrize('e', [1.0, 0.6])
def test_ball_on_free_platform_conserves_momentum(e):
    rhs = _ball_on_platform_model()
    m, M, k, v0 = 0.3, 1.2, 1e6, 2.0
    chi = float(hysteresis_factor(e, 'gonthier'))
    p = (m, M, k, chi * k / v0)

    def separation(t, y, p):
        return y[0] - y[1]
    separation.terminal, separation.direction = True, 1

    sol = solve_ivp(rhs, (0.0, 1.0), [0.0, 0.0, -v0, 0.0], args=(p,),
                    events=separation, method='DOP853', rtol=1e-11,
                    atol=1e-13)
    assert sol.status == 1
    u1, u2 = sol.y_events[0][0][2:]
    # the platform took the equal and opposite force: momentum conserved
    assert m * u1 + M * u2 == pytest.approx(-m * v0, rel=1e-9)
    # relative rebound follows the exact relation (mass-independent)
    assert (u1 - u2) / v0 == pytest.approx(effective_restitution(chi),
                                           abs=1e-3)
    if e == 1.0:   # elastic: kinetic energy conserved too
        assert 0.5 * (m * u1**2 + M * u2**2) == pytest.approx(
            0.5 * m * v0**2, rel=1e-8)
