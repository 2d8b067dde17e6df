"""A Hunt-Crossley contact at a corner of a rotating block (issue 35, item
7): the penetration of a point fixed on a rigid body, in free flight at
the start, then through one touchdown, on both back ends, against SymPy's
own equations integrated by SciPy."""

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp

from sympy_loads import HuntCrossleyContact, simulate

BACKENDS = ['compiled', 'numpy']


def _block(a, b, c, corner):
    """A free block (sides a, b, c; mass m) whose ``corner`` (signs along
    B.x, B.y, B.z) carries a Hunt-Crossley contact with the floor
    z = 0, under gravity. Returns ``(kane, q, u, constants, height)``;
    ``height(q)`` is the corner's height."""
    N, B = me.ReferenceFrame('N'), me.ReferenceFrame('B')
    q = me.dynamicsymbols('x y z q1 q2 q3', real=True)
    u = me.dynamicsymbols('u1:7', real=True)
    B.orient_body_fixed(N, q[3:], 'XYZ')
    w = B.ang_vel_in(N)
    kd = [q[i].diff() - u[i] for i in range(3)]
    kd += [w.dot(B.x) - u[3], w.dot(B.y) - u[4], w.dot(B.z) - u[5]]
    B.set_ang_vel(N, u[3] * B.x + u[4] * B.y + u[5] * B.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    G = O.locatenew('G', q[0] * N.x + q[1] * N.y + q[2] * N.z)
    G.set_vel(N, u[0] * N.x + u[1] * N.y + u[2] * N.z)
    sx, sy, sz = corner
    C = G.locatenew('C', sx * a / 2 * B.x + sy * b / 2 * B.y
                    + sz * c / 2 * B.z)
    C.v2pt_theory(G, N, B)
    m, g, k, damp = sm.symbols('m g k c', positive=True)
    inertia = me.inertia(B, m * (b**2 + c**2) / 12, m * (a**2 + c**2) / 12,
                         m * (a**2 + b**2) / 12)
    body = me.RigidBody('block', G, B, m, (inertia, G))
    contact = HuntCrossleyContact(C, O, N.z, N, stiffness=k, damping=damp)
    kane = me.KanesMethod(N, q, u, kd_eqs=kd)
    kane.kanes_equations([body], contact.to_loads() + [(G, -m * g * N.z)])
    constants = {m: 1.0, g: 9.81, k: 1e4, damp: 20.0}
    height = sm.lambdify([q], C.pos_from(O).dot(N.z), 'numpy')
    return kane, q, u, constants, height


def _scipy_reference(kane, q, u, constants, y0, t1, t_eval):
    """SymPy's own mass_matrix_full \\ forcing_full, lambdified and
    integrated by SciPy's DOP853 at rtol 1e-12."""
    states = list(q) + list(u)
    values = list(constants.values())
    args = (states, list(constants))
    mass = sm.lambdify(args, kane.mass_matrix_full, 'numpy', cse=True)
    forcing = sm.lambdify(args, kane.forcing_full, 'numpy', cse=True)

    def rhs(t, y):
        return np.linalg.solve(mass(y, values),
                               np.asarray(forcing(y, values), float).ravel())
    return solve_ivp(rhs, (0.0, t1), y0, method='DOP853', rtol=1e-12,
                     atol=1e-12, t_eval=t_eval)


def _case(seed):
    """A seeded block shape, corner, orientation and motion; the corner
    starts 5 cm above the floor and the block falls at 1 m/s (its spin
    adds less than that to the corner's speed): the corner touches the
    floor within the run."""
    rng = np.random.default_rng(seed)
    a, b, c = (sm.Float(v) for v in rng.uniform(0.1, 1.0, 3))
    corner = tuple(int(s) for s in rng.choice([-1, 1], 3))
    kane, q, u, constants, height = _block(a, b, c, corner)
    angles = rng.uniform(-1.0, 1.0, 3)
    speeds = rng.uniform(-1.0, 1.0, 6)
    speeds[2] = -1.0       # falling at 1 m/s: the corner reaches the floor
    offset = height(np.r_[0.0, 0.0, 0.0, angles])
    y0 = np.r_[0.0, 0.0, 0.05 - offset, angles, speeds]
    return kane, q, u, constants, y0, height


def _simulate(kane, q, u, constants, y0, t1, t_eval, backend, rtol=1e-10):
    initial = dict(zip(list(q) + list(u), y0))
    return simulate(kane, (0.0, t1), initial, constants, t_eval=t_eval,
                    rtol=rtol, atol=1e-12, backend=backend)


@pytest.mark.parametrize('backend', BACKENDS)
def test_block_corner_free_flight_is_finite(backend):
    """Four block shapes of a seeded sweep, the corner above the floor
    all along (checked), moving freely: with the penetration (|h| - h)/2 the
    compiled back end stopped at t = 0 on two of them (NaN from a
    penetration of -2e-16) and ran out of memory on a third, NumPy stopped
    at t = 0 on the first. The contact force is exactly zero and the
    center falls freely, z(t) = z0 + w t - g t^2/2 (to 1e-9: the
    integrator's tolerance 1e-10 on a polynomial path)."""
    rng = np.random.default_rng(1)
    for seed in range(4):
        a, b, c = (sm.Float(v) for v in rng.uniform(0.1, 1.0, 3))
        kane, q, u, constants, height = _block(a, b, c, (-1, -1, -1))
        angles = rng.uniform(-1, 1, 3)
        speeds = rng.uniform(-1, 1, 6)
        y0 = np.r_[0.0, 0.0, 1.0, angles, speeds]
        t = np.linspace(0.0, 0.3, 4)
        result = _simulate(kane, q, u, constants, y0, 0.3, t, backend)
        assert result.success, result.message
        assert np.all(height(result.q.T) > 0)     # never touched
        z = 1.0 + speeds[2] * t - 9.81 * t**2 / 2
        np.testing.assert_allclose(result.q[:, 2], z, rtol=0, atol=1e-9)


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('seed', range(6))
def test_block_corner_touchdown_matches_sympy_equations(seed, backend):
    """Six seeded shapes, corners and orientations, through a touchdown of
    the corner: the state agrees with SymPy's own equations integrated by
    SciPy. Both are integrated at rtol = atol = 1e-12 over 0.25 s; at the
    touchdown the force ~ d^(3/2) has an infinite second derivative, where
    the step-size control loses up to four orders (2e-6 on a speed of 4
    at rtol 1e-10, 1.4e-8 at 1e-12): 1e-6 on states up to 7 bounds both
    runs' errors with room."""
    kane, q, u, constants, y0, height = _case(seed)
    t = np.linspace(0.0, 0.25, 26)
    result = _simulate(kane, q, u, constants, y0, 0.25, t, backend,
                       rtol=1e-12)
    assert result.success, result.message
    assert height(result.q[0]) > 0.04          # starts in free flight
    assert np.min(height(result.q.T)) < -1e-4   # and touches down
    reference = _scipy_reference(kane, q, u, constants, y0, 0.25, t)
    assert reference.success
    got = np.hstack([result.q, result.u])
    np.testing.assert_allclose(got, reference.y.T, rtol=0, atol=1e-6)
