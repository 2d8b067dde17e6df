"""IFToMM A01, the simple pendulum of the multibody benchmark library
(M. Gonzalez, D. Dopico, U. Lugris, J. Cuadrado, "A benchmarking system
for MBS simulation software: problem standardization and performance
measurement", Multibody Syst. Dyn. 16:179-190, 2006): a 1 kg point on a
massless 1 m link, gravity 9.81 m/s^2 along -y, released at rest from
x = +1 m, y = 0; the reference solution is the point's position, 4000
output steps over 2000 s, and a solution passes the high-precision level
where its error is at most 1e-3.

Written in *natural coordinates* (the point's x and y with
x^2 + y^2 = L^2) the engine re-selects its independent coordinate every
quarter swing. It used to keep a set until its dependent block had
degraded to 1e-2 of the Jacobian's scale, so the dependent coordinate and
speed carried the independent ones' error amplified up to a hundredfold:
15 times the error of the same pendulum written with its angle at
rtol = atol = 1e-10, 150 times at 1e-12, where the benchmark error was
1.95e-3 (failed). Both models are checked against the closed-form solution
(Jacobi's elliptic functions): the natural coordinates' error is within 5
times the angle model's (the issue's target; they were 15 and 150 times).

The full-length benchmark (2000 s, about a minute) is a long sweep,
marked ``sweep`` and deselected by default (``python -m pytest -m sweep``
runs it, see CONTRIBUTING.md).
"""

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy.special import ellipj, ellipk

from sympy_loads import Simulation

_t = me.dynamicsymbols._t
L, m, g = sm.symbols('L m g')
CONSTANTS = {L: 1.0, m: 1.0, g: 9.81}

def natural_pendulum():
    """The point (x, y) with x^2 + y^2 = L^2, y dependent (its block is
    singular at the release, so the engine chooses from the start)."""
    x, y = me.dynamicsymbols('x y')
    ux, uy = me.dynamicsymbols('u_x u_y')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x*N.x + y*N.y)
    P.set_vel(N, ux*N.x + uy*N.y)
    kane = me.KanesMethod(
        N, [x], [ux], kd_eqs=[x.diff(_t) - ux, y.diff(_t) - uy],
        q_dependent=[y], u_dependent=[uy],
        configuration_constraints=[x**2 + y**2 - L**2],
        velocity_constraints=[x*ux + y*uy])
    kane.kanes_equations([me.Particle('p', P, m)], [(P, -m*g*N.y)])
    return kane, {x: 1.0, y: 0.0, ux: 0.0, uy: 0.0}


def angle_pendulum():
    """The same pendulum with its angle theta from the downward
    vertical: x = L sin(theta), y = -L cos(theta)."""
    th, w = me.dynamicsymbols('theta omega')
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (th, N.z))
    A.set_ang_vel(N, w*N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', -L*A.y)
    P.v2pt_theory(O, N, A)
    kane = me.KanesMethod(N, [th], [w], kd_eqs=[th.diff(_t) - w])
    kane.kanes_equations([me.Particle('p', P, m)], [(P, -m*g*N.y)])
    return kane, {th: np.pi/2, w: 0.0}


def exact_position(times, length=1.0, gravity=9.81, amplitude=np.pi/2):
    """``(x, y)`` of the pendulum released at rest at ``amplitude`` from
    the downward vertical: sin(phi/2) = k cd(w t | k^2), k =
    sin(amplitude/2), w = sqrt(g/L) (the argument reduced by the period
    4K before the elliptic functions are evaluated)."""
    k = np.sin(amplitude/2)
    parameter = k*k
    u = np.mod(np.sqrt(gravity/length)*np.asarray(times),
               4*ellipk(parameter))
    _, cn, dn, _ = ellipj(u, parameter)
    s = k*cn/dn                                  # sin(phi/2)
    c = np.sqrt(1.0 - s*s)
    return length*2*s*c, -length*(1.0 - 2*s*s)


def position_errors(duration, tolerance, backend='auto', method='DOP853'):
    """The largest distance of the point from its exact position at
    the benchmark's output steps (every 0.5 s) for the natural and the
    angle model, and the natural model's result."""
    times = np.linspace(0.0, duration, int(round(2*duration)) + 1)
    exact = np.column_stack(exact_position(times))
    kane, start = natural_pendulum()
    result = Simulation(kane, backend=backend).run(
        (0.0, duration), start, CONSTANTS, t_eval=times, rtol=tolerance,
        atol=tolerance, method=method)
    assert result.success, result.message
    kane, angle_start = angle_pendulum()
    reference = Simulation(kane, backend=backend).run(
        (0.0, duration), angle_start, CONSTANTS, t_eval=times,
        rtol=tolerance, atol=tolerance, method=method)
    assert reference.success, reference.message
    theta = reference.q[:, 0]
    at_angle = np.column_stack([np.sin(theta), -np.cos(theta)])
    natural_error = np.max(np.linalg.norm(result.q - exact, axis=1))
    angle_error = np.max(np.linalg.norm(at_angle - exact, axis=1))
    return natural_error, angle_error, result, exact


def benchmark_error(q, exact, threshold=1e-3):
    """The benchmark's error measure: the largest relative error of x and
    y over the output steps where the reference's magnitude is at least
    ``threshold``."""
    q, exact = np.asarray(q), np.asarray(exact)
    kept = np.abs(exact) >= threshold
    return float(np.max(np.abs(q - exact)[kept]/np.abs(exact)[kept]))


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_natural_coordinates_are_as_accurate_as_the_angle(backend):
    """30 s (12 swings, 50 changes of partition) at rtol = atol = 1e-10:
    the natural coordinates' largest position error is within 5 times the
    angle model's (it was 15 times)."""
    natural_error, angle_error, result, _ = position_errors(30.0, 1e-10,
                                                            backend)
    assert len(result.partitions) >= 48          # every quarter swing
    assert natural_error <= 5*angle_error, (natural_error, angle_error)


@pytest.mark.parametrize('method', ['LSODA', 'RK45'])
def test_scipy_stepped_methods_hold_the_tolerance(method):
    """The methods SciPy steps (here on the compiled back end's
    right-hand side): 30 s at rtol = atol = 1e-10, the natural
    coordinates' largest position error within 5 times the angle
    model's, as for DOP853 (RK45 was already: 1.8 times; it walks the
    one-step methods' path). LSODA was 38 times less accurate: the
    tolerance governed the independent coordinates only, and the dependent
    speed near the end of a chart (u_x = -y u_y / x) carried their error
    amplified about tenfold; the engine now tightens the tolerance by the
    dependent entries' sensitivity (Problem.tolerance_factor)."""
    natural_error, angle_error, result, _ = position_errors(
        30.0, 1e-10, 'compiled', method)
    assert len(result.partitions) >= 48          # every quarter swing
    assert natural_error <= 5*angle_error, (natural_error, angle_error)


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_tolerance_factor_is_the_dependent_entries_sensitivity(backend):
    """The factor by which the SciPy-stepped paths tighten the tolerance,
    against its hand derivation. With x independent (the model's
    partition at x = 0.8, y = -0.6), y = -sqrt(L^2 - x^2) and
    u_y = -x u_x / y, so dy/dx = du_y/du_x = -x/y and
    du_y/dx = -u_x L^2/y^3; with the error weights w = atol + rtol |.|
    the factor is the larger of |x/y| w_x/w_y and
    (|u_x/y^3| w_x + |x/y| w_ux)/w_uy (5.28 at u_x = 1.5). The central
    differences (step 1e-6 of the entry) are exact to O(1e-12) for these
    quadratics' curvature and carry Newton's rounding (1e-16) over 2e-6:
    a relative 1e-6 is ample."""
    kane, _ = natural_pendulum()
    x, y, ux, uy = 0.8, -0.6, 1.5, -0.8*1.5/(-0.6)
    start = dict(zip(list(kane.q) + list(kane.u), [x, y, ux, uy]))
    simulation = Simulation(kane, backend=backend)
    problem, *_, y0, _ = simulation._start(
        0.0, 1.0, start, CONSTANTS, None, 1e-10, (1e-10, 100, 1.0))
    assert [s.name for s in problem.nm.q if s not in
            [problem.nm.q[i] for i in problem.nm.q_dep_idx]] == ['x']
    def expected(rtol, atol):
        w = {name: atol + rtol*abs(value) for name, value in
             dict(x=x, y=y, ux=ux, uy=uy).items()}
        return max(1.0, abs(x/y)*w['x']/w['y'],
                   (abs(ux/y**3)*w['x'] + abs(x/y)*w['ux'])/w['uy'])

    assert expected(1e-10, 1e-10) == pytest.approx(5.28, abs=0.01)
    for rtol, atol in ((1e-10, 1e-10), (1e-12, 1e-12), (1e-3, 1e-6)):
        assert problem.tolerance_factor(0.0, y0, rtol, atol) == \
            pytest.approx(expected(rtol, atol), rel=1e-6)


@pytest.mark.sweep
def test_iftomm_a01_passes_in_natural_coordinates():
    """The full benchmark (2000 s, 845 swings): within 5 times the angle
    model's error at 1e-10 and at 1e-12, and at 1e-12 the benchmark's
    high precision level (error at most 1e-3; it was 1.95e-3)."""
    for tolerance in (1e-10, 1e-12):
        natural_error, angle_error, result, exact = position_errors(
            2000.0, tolerance)
        assert natural_error <= 5*angle_error, (tolerance, natural_error,
                                                angle_error)
    assert benchmark_error(result.q, exact) <= 1e-3
