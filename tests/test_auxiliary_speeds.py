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
