"""Models with auxiliary speeds (``KanesMethod(..., u_auxiliary=[...])``,
SymPy's way to bring reactions into evidence), issue 35 item 11: they
simulate, and the reaction symbols of their loads are outputs solved from
the auxiliary equations. Reference: a pendulum's rod tension by hand,
``T = m (g cos(theta) + L theta'**2)``, and the pendulum's motion by
SciPy."""

from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp

from sympy_loads import linearize, simulate

RTOL, ATOL = 1e-10, 1e-12
# the engine's global error at these tolerances over one second of the
# swing is below 1e-8 (in the angle and the tension alike: T is smooth in
# theta, omega); 1e-7 leaves a margin, far below the defects tested
TOL = 1e-7
BACKENDS = ['compiled', 'numpy']
CONSTANTS = dict(m=0.7, L=1.3, g=9.81)


def _angle_pendulum():
    """A pendulum (angle ``theta`` from the downward N.x) with the
    auxiliary speed ``u_a`` along the rod bringing the tension ``T`` into
    evidence."""
    th, w, ua, T = me.dynamicsymbols('theta omega u_a T')
    m, L, g = sm.symbols('m L g', positive=True)
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (th, N.z))
    A.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', L * A.x)
    P.set_vel(N, L * w * A.y + ua * A.x)
    kane = me.KanesMethod(N, [th], [w], kd_eqs=[th.diff() - w],
                          u_auxiliary=[ua])
    kane.kanes_equations([me.Particle('p', P, m)],
                         [(P, m * g * N.x - T * A.x)])
    constants = {m: CONSTANTS['m'], L: CONSTANTS['L'], g: CONSTANTS['g']}
    return SimpleNamespace(kane=kane, T=T, ic={th: 0.5, w: 0.0},
                           constants=constants, th=th, w=w, P=P, A=A, N=N)


def _cartesian_pendulum():
    """The same pendulum in the coordinates ``x, y`` of the bob, with the
    configuration constraint ``x**2 + y**2 = L**2`` and the velocity
    constraint ``x u_x + y u_y = 0`` (``y``, ``u_y`` dependent), and the
    auxiliary speed ``u_r`` along the rod for the tension ``R``."""
    x, y, ux, uy, ur, R = me.dynamicsymbols('x y u_x u_y u_r R')
    m, L, g = sm.symbols('m L g', positive=True)
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    Q = O.locatenew('Q', x * N.x + y * N.y)
    Q.set_vel(N, ux * N.x + uy * N.y + ur * (x * N.x + y * N.y) / L)
    kane = me.KanesMethod(
        N, [x], [ux], kd_eqs=[x.diff() - ux, y.diff() - uy],
        q_dependent=[y], configuration_constraints=[x**2 + y**2 - L**2],
        u_dependent=[uy], velocity_constraints=[x * ux + y * uy],
        u_auxiliary=[ur])
    kane.kanes_equations([me.Particle('q', Q, m)],
                         [(Q, m * g * N.x - R * (x * N.x + y * N.y) / L)])
    constants = {m: CONSTANTS['m'], L: CONSTANTS['L'], g: CONSTANTS['g']}
    ic = {x: CONSTANTS['L'] * np.cos(0.5), y: CONSTANTS['L'] * np.sin(0.5),
          ux: 0.0}
    return SimpleNamespace(kane=kane, T=R, ic=ic, constants=constants)


def _reference(times):
    """``theta, omega`` of the pendulum from ``theta = 0.5`` at rest."""
    m, L, g = CONSTANTS['m'], CONSTANTS['L'], CONSTANTS['g']
    sol = solve_ivp(lambda t, z: [z[1], -g / L * np.sin(z[0])],
                    (0.0, times[-1]), [0.5, 0.0], t_eval=times,
                    method='DOP853', rtol=1e-13, atol=1e-14)
    return sol.y


def _tension(theta, omega):
    m, L, g = CONSTANTS['m'], CONSTANTS['L'], CONSTANTS['g']
    return m * (g * np.cos(theta) + L * omega**2)


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('build', [_angle_pendulum, _cartesian_pendulum])
def test_reaction_is_an_output(build, backend):
    model = build()
    r = simulate(model.kane, (0.0, 1.0), model.ic, model.constants,
                 outputs={'tension': model.T}, rtol=RTOL, atol=ATOL,
                 backend=backend)
    assert r.success, r.message
    theta, omega = _reference(r.t)
    np.testing.assert_allclose(r.outputs['tension'], _tension(theta, omega),
                               atol=TOL)
    if build is _cartesian_pendulum:
        L = CONSTANTS['L']
        np.testing.assert_allclose(r.q[:, 0], L * np.cos(theta), atol=TOL)
    else:
        np.testing.assert_allclose(r.q[:, 0], theta, atol=TOL)


def test_reaction_is_not_a_specified_input():
    model = _angle_pendulum()
    with pytest.raises(ValueError, match=r"specified: \['T\(t\)'\] are "
                       r'reactions .*u_auxiliary.*outputs='):
        simulate(model.kane, (0.0, 1.0), model.ic, model.constants,
                 specified={model.T: 1.0})


def test_linearize_ignores_the_reaction():
    model = _angle_pendulum()
    lin = linearize(model.kane, {model.th: 0.0, model.w: 0.0},
                    model.constants)
    g, L = CONSTANTS['g'], CONSTANTS['L']
    np.testing.assert_allclose(lin.A, [[0.0, 1.0], [-g / L, 0.0]],
                               atol=1e-12)


def test_outputs_written_with_the_auxiliary_speed():
    # the auxiliary speed is zero in the motion: the bob's velocity along
    # the rod (written with u_a) is zero, across it L omega
    model = _angle_pendulum()
    v = model.P.vel(model.N)
    r = simulate(model.kane, (0.0, 1.0), model.ic, model.constants,
                 outputs={'radial': v.dot(model.A.x),
                          'across': v.dot(model.A.y)}, rtol=RTOL,
                 atol=ATOL)
    assert r.success, r.message
    np.testing.assert_allclose(r.outputs['radial'], 0.0, atol=1e-15)
    np.testing.assert_allclose(r.outputs['across'],
                               CONSTANTS['L'] * r.u[:, 0], rtol=1e-14)


def test_rolling_disc_contact_force_obeys_newtons_second_law():
    # SymPy's documented rolling disc with auxiliary speeds at the contact
    # point C bringing the contact force f into evidence: along any motion
    # f - m g Y.z = m a (the mass center's acceleration, an output of the
    # speeds' rates), and upright steady rolling has f = m g Y.z
    q1, q2, q3, u1, u2, u3 = me.dynamicsymbols('q1 q2 q3 u1 u2 u3')
    u4, u5, u6, f1, f2, f3 = me.dynamicsymbols('u4 u5 u6 f1 f2 f3')
    r, m, g = sm.symbols('r m g', positive=True)
    N = me.ReferenceFrame('N')
    Y = N.orientnew('Y', 'Axis', [q1, N.z])
    L = Y.orientnew('L', 'Axis', [q2, Y.x])
    R = L.orientnew('R', 'Axis', [q3, L.y])
    w_R_N_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    C = me.Point('C')
    C.set_vel(N, u4 * L.x + u5 * (Y.z ^ L.x) + u6 * Y.z)
    G = C.locatenew('G', r * L.z)
    G.v2pt_theory(C, N, R)
    inertia = me.inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2)
    kd = [(R.ang_vel_in(N) - w_R_N_qd).dot(uv) for uv in L]
    f = f1 * L.x + f2 * (Y.z ^ L.x) + f3 * Y.z
    kane = me.KanesMethod(N, q_ind=[q1, q2, q3], u_ind=[u1, u2, u3],
                          kd_eqs=kd, u_auxiliary=[u4, u5, u6])
    kane.kanes_equations([me.RigidBody('disc', G, R, m, (inertia, G))],
                         [(G, -m * g * Y.z), (C, f)])
    values = {r: 0.3, m: 2.0, g: 9.81}
    # Newton: f - m g Y.z - m a_G = 0, in L (the auxiliary speeds zero)
    newton = (f - m * g * Y.z - m * G.acc(N)).to_matrix(L)
    newton = newton.xreplace({s: 0 for s in (u4, u5, u6)}).xreplace(
        {s.diff(): 0 for s in (u4, u5, u6)})
    result = simulate(kane, (0.0, 1.0), {q1: 0.0, q2: 0.3, q3: 0.0,
                                         u1: 0.4, u2: 5.0, u3: -1.0},
                      values, outputs={'newton': newton, 'f3': f3},
                      rtol=RTOL, atol=ATOL)
    assert result.success, result.message
    # round-off of forces of order m g (20 N) and m r u2**2 (15 N)
    np.testing.assert_allclose(result.outputs['newton'], 0.0, atol=1e-11)
    upright = simulate(kane, (0.0, 0.1), {q1: 0.0, q2: 0.0, q3: 0.0,
                                          u1: 0.0, u2: 5.0, u3: 0.0},
                       values, outputs={'f': sm.Matrix([f1, f2, f3])})
    np.testing.assert_allclose(upright.outputs['f'][-1], [0.0, 0.0, 19.62],
                               atol=1e-10)
