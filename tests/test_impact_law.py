"""The impact law's two implementations: the compiled one that the
compiled DOP853 stepping applies (``_numeric.jump.impact_jump``) and its
reference in Python (``ImpactEngine.jump``, which also serves the NumPy
back end, every SciPy method and contacts struck at once). Both must give
the same jump, and the jump must obey Newton's law."""

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import Impact, Simulation
from sympy_loads._numeric import compiled_available


@pytest.fixture(scope='module')
def pendulum():
    """A particle on a circle of radius r about O (x independent, y
    dependent through x**2 + y**2 = r**2), and a floor at height -h below
    its lowest point: the law applies at any state, touching or not."""
    x, y, ux, uy = me.dynamicsymbols('x y u_x u_y')
    g, r, m, h, e = sm.symbols('g r m h e')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    kane = me.KanesMethod(
        N, [x], [ux], kd_eqs=[x.diff() - ux, y.diff() - uy],
        q_dependent=[y], u_dependent=[uy],
        configuration_constraints=[x**2 + y**2 - r**2],
        velocity_constraints=[x * ux + y * uy])
    kane.kanes_equations([me.Particle('p', P, m)], [(P, -m * g * N.y)])
    floor = O.locatenew('F', -h * N.y)
    simulation = Simulation(kane, impacts=[Impact(P, floor, N.y, N,
                                                  restitution=e)])
    constants = {g: 9.81, r: 1.0, m: 2.0, h: 1.2, e: 0.7}
    return simulation, (x, y, ux, uy), constants


@pytest.mark.skipif(not compiled_available(), reason='needs numba')
@pytest.mark.parametrize('angle, speed', [(0.3, -2.0), (-0.45, 1.5),
                                          (0.1, -0.4)])
def test_compiled_jump_equals_its_python_reference(pendulum, angle, speed):
    from sympy_loads._numeric.jump import impact_jump
    simulation, (x, y, ux, uy), constants = pendulum
    if simulation.backend != 'compiled':
        pytest.skip('the model fell back to the NumPy back end')
    start = {x: np.sin(angle), y: -np.cos(angle), ux: speed}
    problem, _, engine, _, y0, _ = simulation._start(
        0.0, 1.0, start, constants, None, 1e-10, (1e-10, 100, 1.0))
    q, u = engine.state(0.0, y0)
    gap, vn, e, law, impulse = engine.values(0.0, q, u)
    assert vn[0] < 0 < gap[0]          # above the floor, moving down

    u_python, P_python = engine.jump(0.0, q, u, [0], vn[:1], e[:1],
                                     law[:1], impulse[:1])
    nm = problem.nm
    du = np.empty(len(u))
    P_compiled = impact_jump(problem.input_vector(0.0, q, u), nm.fn,
                             nm.dims, nm.idx, nm.eom_size, law[0].copy(),
                             impulse[0].copy(), e[0], vn[0], du)
    scale = np.max(np.abs(u))
    np.testing.assert_allclose(u + du, u_python, rtol=0,
                               atol=1e-12 * scale)
    assert abs(P_compiled - P_python[0]) <= 1e-12 * abs(P_python[0])
    # Newton's law: the normal speed reverses, scaled by e; the speeds
    # stay on the velocity constraint x ux + y uy = 0
    _, vn_after, _, _, _ = engine.values(0.0, q, u_python)
    assert abs(vn_after[0] + 0.7 * vn[0]) <= 1e-12 * abs(vn[0])
    assert abs(q @ u_python) <= 1e-12 * scale
