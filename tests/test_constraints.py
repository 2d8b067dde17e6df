"""Tests of sympy_loads.constraints: position, velocity and acceleration
solves against closed-form slider-crank kinematics and Moore's four-bar
values, mobility/redundancy (seed 002), robustness from poor guesses,
singular (toggle) configurations, the KanesMethod/System constructors and
the argument checks. Both back ends (numba and the NumPy fallback) run
every numeric test."""

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import (ConstraintAnalysis, ConstraintSolverError,
                         HolonomicConstraintSolver)
from sympy_loads import _numeric

BACKENDS = (['compiled', 'numpy'] if _numeric.compiled_available()
            else ['numpy'])


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Run a test once with the compiled back end, once with NumPy."""
    return request.param


# -- mechanisms ---------------------------------------------------------------

theta, phi, x = sm.symbols('theta phi x')
r_crank, l_rod = sm.symbols('r l', positive=True)
t = sm.Symbol('t')
R_VALUE, L_VALUE = 1.0, 3.0


def slider_crank_constraints(r=r_crank, l=l_rod):
    """Crank angle theta, rod angle phi (clockwise), slider position x."""
    return [r*sm.cos(theta) + l*sm.cos(phi) - x,
            r*sm.sin(theta) - l*sm.sin(phi)]


q1, q2, q3 = sm.symbols('q1:4')
LA, LB, LC, LN = 1.0, 4.0, 3.0, 5.0
# Moore's four-bar: A at q1 from N, B at q2 from A, C at q3 from B; the loop
# la A.x + lb B.x + lc C.x - ln N.x = 0 in N.x and N.y.
FOUR_BAR_X = (LA*sm.cos(q1) + LB*sm.cos(q1 + q2) + LC*sm.cos(q1 + q2 + q3)
              - LN)
FOUR_BAR_Y = LA*sm.sin(q1) + LB*sm.sin(q1 + q2) + LC*sm.sin(q1 + q2 + q3)
# The loop projected on the coupler direction B.x: a consequence of the two.
FOUR_BAR_ALONG_B = FOUR_BAR_X*sm.cos(q1 + q2) + FOUR_BAR_Y*sm.sin(q1 + q2)
MOORE_GUESS = np.deg2rad([30.0, -75.0, 100.0])
MOORE_Q2_DEG = -79.9561178980214
MOORE_Q3_DEG = 108.613175851763

_SOLVERS = {}


def solver(name, backend):
    """Build each solver once per back end (numba compiles on first use)."""
    key = (name, backend)
    if key not in _SOLVERS:
        if name == 'slider-crank':
            _SOLVERS[key] = HolonomicConstraintSolver(
                slider_crank_constraints(), [theta, phi, x], [phi, x],
                constants={r_crank: R_VALUE, l_rod: L_VALUE},
                backend=backend)
        elif name == 'driven slider-crank':
            omega = sm.Symbol('omega')
            _SOLVERS[key] = HolonomicConstraintSolver(
                slider_crank_constraints() + [theta - omega*t],
                [theta, phi, x], [theta, phi, x], time=t,
                constants={r_crank: R_VALUE, l_rod: L_VALUE, omega: 2.0},
                backend=backend)
        elif name == 'four-bar':
            _SOLVERS[key] = HolonomicConstraintSolver(
                [FOUR_BAR_X, FOUR_BAR_Y], [q1, q2, q3], [q2, q3],
                backend=backend)
        elif name == 'redundant four-bar':
            _SOLVERS[key] = HolonomicConstraintSolver(
                [FOUR_BAR_X, FOUR_BAR_Y, FOUR_BAR_ALONG_B], [q1, q2, q3],
                [q2, q3], backend=backend)
        elif name == 'toggle slider-crank':
            # crank r = 2 longer than rod l = 1: toggle at sin(theta) = 1/2.
            _SOLVERS[key] = HolonomicConstraintSolver(
                slider_crank_constraints(2, 1), [theta, phi, x], [phi, x],
                backend=backend)
    return _SOLVERS[key]


def slider_closed_form():
    """x, x', x'' and phi of the slider-crank as functions of theta, theta'
    and theta'' from x = r cos(theta) + sqrt(l^2 - r^2 sin(theta)^2)
    (REFERENCES.md), differentiated symbolically."""
    th = me.dynamicsymbols('th')
    position = R_VALUE*sm.cos(th) + sm.sqrt(L_VALUE**2
                                            - R_VALUE**2*sm.sin(th)**2)
    velocity = position.diff(me.dynamicsymbols._t)
    acceleration = velocity.diff(me.dynamicsymbols._t)
    w, a, angle = sm.symbols('w a angle')
    replace = {th.diff(me.dynamicsymbols._t, 2): a,
               th.diff(me.dynamicsymbols._t): w}

    def numeric(expr):
        return sm.lambdify((angle, w, a),
                           expr.subs(replace).subs(th, angle), 'numpy')
    rod = sm.asin(R_VALUE/L_VALUE*sm.sin(angle))
    return (numeric(position), numeric(velocity), numeric(acceleration),
            sm.lambdify(angle, rod, 'numpy'))


# -- slider-crank against the closed form -----------------------------------

def test_slider_crank_over_a_revolution_matches_closed_form(backend):
    """Positions, velocities and accelerations of a batch of 361 crank
    angles over a full revolution agree with the closed form to 1e-10."""
    sc = solver('slider-crank', backend)
    angles = np.linspace(0.0, 2*np.pi, 361)
    omega, alpha = 2.0, 0.5
    guesses = np.column_stack([angles, np.full_like(angles, 0.1),
                               np.full_like(angles, 3.5)])
    q = sc.solve_positions(guesses)
    qd = sc.solve_velocities(q, np.column_stack(
        [np.full_like(angles, omega), np.zeros((361, 2))]))
    qdd = sc.solve_accelerations(q, qd, np.column_stack(
        [np.full_like(angles, alpha), np.zeros((361, 2))]))
    x_of, xd_of, xdd_of, phi_of = slider_closed_form()
    np.testing.assert_allclose(q[:, 0], angles, rtol=0, atol=0)
    np.testing.assert_allclose(q[:, 1], phi_of(angles), rtol=0, atol=1e-10)
    np.testing.assert_allclose(q[:, 2], x_of(angles, omega, alpha), rtol=0,
                               atol=1e-10)
    np.testing.assert_allclose(qd[:, 2], xd_of(angles, omega, alpha),
                               rtol=0, atol=1e-10)
    np.testing.assert_allclose(qdd[:, 2], xdd_of(angles, omega, alpha),
                               rtol=0, atol=1e-10)
    # one configuration at a time gives the same numbers
    k = 37
    single = sc.solve_positions(guesses[k])
    np.testing.assert_allclose(single, q[k], rtol=0, atol=1e-12)
    np.testing.assert_allclose(sc.solve_velocities(single, qd[k]), qd[k],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        sc.solve_accelerations(single, qd[k], qdd[k]), qdd[k], rtol=0,
        atol=1e-12)


def test_driven_slider_crank_trajectory_matches_closed_form(backend):
    """Seed 002's piston-crank driven by theta = omega t: solve_trajectory
    over one revolution (warm starts) against the closed form to 1e-10."""
    sc = solver('driven slider-crank', backend)
    omega = 2.0
    times = np.linspace(0.0, 2*np.pi/omega, 200)
    q, qd, qdd = sc.solve_trajectory([0.0, 0.0, 4.0], times)
    x_of, xd_of, xdd_of, _ = slider_closed_form()
    angles = omega*times
    np.testing.assert_allclose(q[:, 0], angles, rtol=0, atol=1e-12)
    np.testing.assert_allclose(qd[:, 0], omega, rtol=0, atol=1e-12)
    np.testing.assert_allclose(qdd[:, 0], 0.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(q[:, 2], x_of(angles, omega, 0.0), rtol=0,
                               atol=1e-10)
    np.testing.assert_allclose(qd[:, 2], xd_of(angles, omega, 0.0), rtol=0,
                               atol=1e-10)
    np.testing.assert_allclose(qdd[:, 2], xdd_of(angles, omega, 0.0),
                               rtol=0, atol=1e-10)


def test_driving_constraint_with_time_array(backend):
    """A batch with one time per row: theta = omega t row by row."""
    sc = solver('driven slider-crank', backend)
    times = np.array([0.0, 0.25, 1.0])
    q = sc.solve_positions(np.tile([0.0, 0.0, 4.0], (3, 1)), times)
    np.testing.assert_allclose(q[:, 0], 2.0*times, rtol=0, atol=1e-12)
    x_of = slider_closed_form()[0]
    np.testing.assert_allclose(q[:, 2], x_of(2.0*times, 0, 0), atol=1e-10)


# -- Moore's four-bar ---------------------------------------------------------

def test_moore_four_bar_check_values(backend):
    """Moore, Learn Multibody Dynamics: q1 = 30 deg from guesses -75 and 100
    deg gives q2 = -79.9561178980214 deg, q3 = 108.613175851763 deg."""
    q = solver('four-bar', backend).solve_positions(MOORE_GUESS)
    q2_deg, q3_deg = np.rad2deg(q[1:])
    assert abs(q2_deg - MOORE_Q2_DEG) < 1e-9
    assert abs(q3_deg - MOORE_Q3_DEG) < 1e-9
    assert q[0] == MOORE_GUESS[0]


def test_four_bar_velocities_satisfy_differentiated_constraints(backend):
    """Phi_q q' = 0 and the second derivative of Phi vanishes, checked with
    the Jacobian computed independently by finite differences."""
    fb = solver('four-bar', backend)
    q = fb.solve_positions(MOORE_GUESS)
    qd = fb.solve_velocities(q, [1.5, 0.0, 0.0])
    qdd = fb.solve_accelerations(q, qd, [-0.4, 0.0, 0.0])
    h = 1e-6
    # Phi(q(t)) with q(t) = q + qd t + qdd t^2/2 stays zero to O(t^3).
    for step in (h, -h):
        moved = q + qd*step*1e3 + 0.5*qdd*(step*1e3)**2
        assert np.abs(fb.residual(moved)).max() < 5 * (1e-3)**3 * 100
    jac = np.array([(fb.residual(q + h*e) - fb.residual(q - h*e))/(2*h)
                    for e in np.eye(3)]).T
    np.testing.assert_allclose(fb.jacobian(q), jac, atol=1e-8)
    np.testing.assert_allclose(jac @ qd, 0.0, atol=1e-8)


# -- redundancy ---------------------------------------------------------------

def test_redundant_four_bar_is_reported_and_still_solves(backend):
    """Seed 002: mobility nq - rank = 1, redundancy nc - rank = 1; the third
    constraint (a consequence of the loop closure) is named redundant; the
    least-squares solve gives the same positions, velocities and
    accelerations as the independent set."""
    fb = solver('four-bar', backend)
    red = solver('redundant four-bar', backend)
    q = red.solve_positions(MOORE_GUESS)
    np.testing.assert_allclose(q, fb.solve_positions(MOORE_GUESS), rtol=0,
                               atol=1e-12)
    analysis = red.analyze(q)
    assert isinstance(analysis, ConstraintAnalysis)
    assert analysis.rank == 2
    assert analysis.mobility == 1
    assert analysis.redundancy == 1
    assert analysis.redundant == (2,)
    assert analysis.redundant_constraints == (FOUR_BAR_ALONG_B,)
    assert analysis.dependent_rank == 2
    assert analysis.singular_values.shape == (3,)
    assert analysis.singular_values[-1] < 1e-12 * analysis.singular_values[0]
    qd = red.solve_velocities(q, [1.5, 0.0, 0.0])
    np.testing.assert_allclose(qd, fb.solve_velocities(q, [1.5, 0, 0]),
                               atol=1e-12)
    qdd = red.solve_accelerations(q, qd, [-0.4, 0.0, 0.0])
    np.testing.assert_allclose(
        qdd, fb.solve_accelerations(q, qd, [-0.4, 0, 0]), atol=1e-11)
    plain = fb.analyze(q)
    assert (plain.rank, plain.mobility, plain.redundancy,
            plain.redundant) == (2, 1, 0, ())


def test_analysis_of_a_duplicated_constraint_names_the_later_row():
    """Rows are added in order: a repeated constraint is the redundant one."""
    xs, ys = sm.symbols('x y')
    circle = xs**2 + ys**2 - 25
    s = HolonomicConstraintSolver([circle, 2*circle], [xs, ys], [ys],
                                  backend='numpy')
    analysis = s.analyze([3.0, 4.0])
    assert analysis.redundant == (1,)
    assert (analysis.rank, analysis.mobility, analysis.redundancy) == (1, 1,
                                                                       1)
    assert repr(analysis) == (
        'ConstraintAnalysis(rank=1, mobility=1, redundancy=1, '
        'redundant=(1,), singular_values=[22.36068,  0.     ])')


# -- robustness ---------------------------------------------------------------

def test_random_guesses_within_half_a_radian_converge(backend):
    """1000 starting guesses for (q2, q3) drawn uniformly within 0.5 rad of
    Moore's four-bar solution at q1 = 30 deg. Measured: 1000 of 1000
    converge (both back ends), every one to a configuration satisfying the
    loop to 1e-12, and to one of the mechanism's two assembly modes (here
    always the nearby one). The threshold asserted is the measured rate."""
    fb = solver('four-bar', backend)
    solution = fb.solve_positions(MOORE_GUESS)
    rng = np.random.default_rng(2024)
    guesses = np.tile(solution, (1000, 1))
    guesses[:, 1:] += rng.uniform(-0.5, 0.5, (1000, 2))
    q = fb.solve_positions(guesses)      # raises if any row fails
    residual = np.abs(fb.residual(q)).max(axis=1)
    assert np.mean(residual <= 1e-12) >= 1.0
    # the other assembly mode: mirror image about the line P2-P4
    wrapped = np.angle(np.exp(1j*(q[:, 1:] - solution[1:])))
    near = np.all(np.abs(wrapped) < 1e-9, axis=1)
    assert np.mean(near) >= 1.0


def test_poor_guess_converges_with_line_search(backend):
    """From the flipped guess (q2 = +75 deg, q3 = -100 deg) Newton with the
    line search reaches the other assembly mode, which also closes the
    loop."""
    fb = solver('four-bar', backend)
    q = fb.solve_positions(np.deg2rad([30.0, 75.0, -100.0]))
    assert np.abs(fb.residual(q)).max() <= 1e-12
    assert q[1] > 0


def test_toggle_configuration_raises_a_clear_error(backend):
    """Crank r = 2, rod l = 1: at theta = 30 deg the rod stands vertical (a
    toggle, Phi_q singular in the dependent coordinates) and beyond it no
    configuration exists. Both raise ConstraintSolverError naming the
    singular Jacobian and the coordinates, never returning a number."""
    sc = solver('toggle slider-crank', backend)
    with pytest.raises(ConstraintSolverError, match='singular') as info:
        sc.solve_positions([np.pi/6, 1.3, 1.7])
    assert set(info.value.coordinates) <= {phi, x}
    assert info.value.coordinates
    with pytest.raises(ConstraintSolverError,
                       match='no physically realizable') as info:
        sc.solve_positions([0.6, 1.3, 1.7])
    assert info.value.residual > 1e-3
    assert info.value.iterations >= 1
    # at the toggle itself the velocities are undefined and the analysis
    # shows the dependent columns losing rank (the mechanism as a whole
    # keeps rank 2: theta's column still counts)
    at_toggle = [np.pi/6, np.pi/2, 2*np.cos(np.pi/6)]
    with pytest.raises(ConstraintSolverError, match='singular'):
        sc.solve_velocities(at_toggle, [1.0, 0.0, 0.0])
    analysis = sc.analyze(at_toggle)
    assert analysis.dependent_rank == 1
    assert (analysis.rank, analysis.mobility, analysis.redundancy) == (2, 1,
                                                                       0)
    # the batch reports the failing row
    rows = np.array([[0.2, 0.3, 2.9], [0.6, 1.3, 1.7]])
    with pytest.raises(ConstraintSolverError) as info:
        sc.solve_positions(rows)
    assert info.value.rows == (1,)


def test_no_solution_reports_residual_and_iterations(backend):
    """x = 6 on a circle of radius 5: no y closes x^2 + y^2 = 25."""
    xs, ys = sm.symbols('x y')
    s = HolonomicConstraintSolver([xs**2 + ys**2 - 25], [xs, ys], [ys],
                                  backend=backend, max_iterations=20)
    with pytest.raises(ConstraintSolverError, match='residual') as info:
        s.solve_positions([6.0, 1.0])
    assert info.value.residual == pytest.approx(11.0, abs=1e-6)
    assert info.value.constraints == (0,)
    assert info.value.coordinates == (ys,)


def test_iteration_limit_is_reported(backend):
    """One Newton iteration is not enough from a far guess."""
    xs, ys = sm.symbols('x y')
    s = HolonomicConstraintSolver([xs**2 + ys**2 - 25], [xs, ys], [ys],
                                  backend=backend, max_iterations=1)
    with pytest.raises(ConstraintSolverError,
                       match='did not converge in 1 iterations') as info:
        s.solve_positions([3.0, 10.0])
    assert info.value.iterations == 1
    assert info.value.residual > 1e-6


# -- KanesMethod and System ---------------------------------------------------

def four_bar_kane():
    """Moore's four-bar as a KanesMethod with q2, q3 dependent."""
    qs = me.dynamicsymbols('q1:4')
    us = me.dynamicsymbols('u1:4')
    la, lb, lc, ln = sm.symbols('l_a l_b l_c l_n')
    N, A, B, C = sm.symbols('N A B C', cls=me.ReferenceFrame)
    A.orient_axis(N, qs[0], N.z)
    B.orient_axis(A, qs[1], A.z)
    C.orient_axis(B, qs[2], B.z)
    P1 = me.Point('P1')
    P4 = P1.locatenew('P4', la*A.x + lb*B.x + lc*C.x)
    loop = P4.pos_from(P1) - ln*N.x
    fh = sm.Matrix([loop.dot(N.x), loop.dot(N.y)])
    tt = me.dynamicsymbols._t
    qd_to_u = {q.diff(tt): u for q, u in zip(qs, us)}
    kane = me.KanesMethod(
        N, [qs[0]], [us[0]], kd_eqs=[u - q.diff(tt) for q, u in zip(qs, us)],
        q_dependent=qs[1:], u_dependent=us[1:],
        configuration_constraints=fh,
        velocity_constraints=fh.diff(tt).xreplace(qd_to_u))
    constants = {la: LA, lb: LB, lc: LC, ln: LN}
    return kane, fh, qs, constants


def test_from_kanes_method_agrees_with_raw_expressions(backend):
    kane, fh, qs, constants = four_bar_kane()
    from_kane = HolonomicConstraintSolver.from_kanes_method(
        kane, constants, backend=backend)
    assert from_kane.coordinates == tuple(qs)
    assert from_kane.dependent == tuple(qs[1:])
    raw = HolonomicConstraintSolver(fh, qs, qs[1:], constants=constants,
                                    backend='numpy')
    q = from_kane.solve_positions(MOORE_GUESS)
    np.testing.assert_allclose(q, raw.solve_positions(MOORE_GUESS),
                               atol=1e-13)
    assert abs(np.rad2deg(q[1]) - MOORE_Q2_DEG) < 1e-9
    qd = from_kane.solve_velocities(q, [0.7, 0, 0])
    np.testing.assert_allclose(qd, raw.solve_velocities(q, [0.7, 0, 0]),
                               atol=1e-13)
    np.testing.assert_allclose(
        from_kane.solve_accelerations(q, qd, [0.1, 0, 0]),
        raw.solve_accelerations(q, qd, [0.1, 0, 0]), atol=1e-12)
    # the velocities satisfy the model's own (symbolic) Jacobian
    jacobian = sm.lambdify([qs], fh.xreplace(constants).jacobian(qs))
    np.testing.assert_allclose(np.array(jacobian(q), dtype=float) @ qd, 0.0,
                               atol=1e-12)


def test_from_system_agrees_with_from_kanes_method():
    kane, fh, qs, constants = four_bar_kane()
    system = me.System(me.ReferenceFrame('N'))
    system.add_coordinates(qs[0])
    system.add_coordinates(*qs[1:], independent=False)
    system.add_holonomic_constraints(*fh)
    s = HolonomicConstraintSolver.from_system(system, constants,
                                              backend='numpy')
    k = HolonomicConstraintSolver.from_kanes_method(kane, constants,
                                                    backend='numpy')
    np.testing.assert_allclose(s.solve_positions(MOORE_GUESS),
                               k.solve_positions(MOORE_GUESS), atol=1e-14)


def test_from_kanes_method_without_constraints_is_an_error():
    q, u = me.dynamicsymbols('q u')
    kane = me.KanesMethod(me.ReferenceFrame('N'), [q], [u],
                          kd_eqs=[u - q.diff()])
    with pytest.raises(ValueError, match='no configuration constraints'):
        HolonomicConstraintSolver.from_kanes_method(kane, {})
    with pytest.raises(TypeError, match='kane must be a KanesMethod'):
        HolonomicConstraintSolver.from_kanes_method('kane', {})
    with pytest.raises(TypeError, match='system must be a System'):
        HolonomicConstraintSolver.from_system(kane, {})


# -- inputs -------------------------------------------------------------------

@pytest.mark.parametrize('bad, match', [
    ([np.nan, 0.1, 3.0], 'NaN or inf'),
    ([0.1, np.inf, 3.0], 'NaN or inf'),
    ([0.1, 3.0], r'shape \(3,\) or \(m, 3\)'),
    ([[[0.1, 0.2, 3.0]]], 'shape'),
])
def test_bad_states_are_rejected(backend, bad, match):
    sc = solver('slider-crank', backend)
    with pytest.raises(ConstraintSolverError, match=match):
        sc.solve_positions(bad)
    with pytest.raises(ValueError, match=match):  # it is a ValueError too
        sc.solve_velocities(bad, np.zeros_like(np.asarray(bad)))


def test_bad_arguments_of_the_solves(backend):
    sc = solver('slider-crank', backend)
    q = sc.solve_positions([0.3, 0.1, 3.5])
    with pytest.raises(TypeError, match='q must be an array of real'):
        sc.solve_positions('abc')
    with pytest.raises(ConstraintSolverError, match='t must be finite'):
        sc.solve_positions(q, np.nan)
    with pytest.raises(ConstraintSolverError, match=r'qdot must have shape'):
        sc.solve_velocities(q, [1.0, 0.0])
    with pytest.raises(ConstraintSolverError, match=r'shape \(2,\)'):
        sc.solve_positions(np.tile(q, (2, 1)), [0.0, 1.0, 2.0])
    with pytest.raises(ConstraintSolverError, match='NaN or inf'):
        sc.solve_accelerations(q, [1.0, 0, 0], [np.nan, 0, 0])
    with pytest.raises(ValueError, match='fully driven'):
        sc.solve_trajectory(q, [0.0, 1.0])
    with pytest.raises(ConstraintSolverError, match='non-empty 1-D'):
        solver('driven slider-crank', backend).solve_trajectory(q, [])
    with pytest.raises(ConstraintSolverError, match='qdot contains NaN'):
        sc.solve_velocities(q, [0.0, np.nan, 0.0])
    with pytest.raises(ConstraintSolverError, match='qdot contains NaN'):
        sc.solve_velocities(np.tile(q, (2, 1)), [[0.0, 1, 0], [np.inf, 0, 0]])


def test_constructor_checks():
    constants = {r_crank: 1.0, l_rod: 3.0}
    loop = slider_crank_constraints()
    with pytest.raises(ValueError, match=r"\['l'\].*constants"):
        HolonomicConstraintSolver(loop, [theta, phi, x], [phi, x],
                                  constants={r_crank: 1.0})
    with pytest.raises(ValueError, match='not in coordinates'):
        HolonomicConstraintSolver(loop, [theta, phi], [phi, x],
                                  constants=constants)
    with pytest.raises(ValueError, match='at least as many constraints'):
        HolonomicConstraintSolver(loop[:1], [theta, phi, x], [phi, x],
                                  constants=constants)
    qt = me.dynamicsymbols('qt')
    with pytest.raises(ValueError, match='derivatives'):
        HolonomicConstraintSolver([qt.diff() - 1], [qt], [qt])
    with pytest.raises(TypeError, match='coordinates'):
        HolonomicConstraintSolver(loop, [theta, phi, 'x'], [phi],
                                  constants=constants)
    with pytest.raises(TypeError, match='constraints'):
        HolonomicConstraintSolver(loop + ['x + 1'], [theta, phi, x], [phi],
                                  constants=constants)
    with pytest.raises(ValueError, match='tolerance must be a positive'):
        HolonomicConstraintSolver(loop, [theta, phi, x], [phi, x],
                                  constants=constants, tolerance=-1.0)
    with pytest.raises(TypeError, match='max_iterations must be an int'):
        HolonomicConstraintSolver(loop, [theta, phi, x], [phi, x],
                                  constants=constants, max_iterations=2.5)
    with pytest.raises(ValueError, match='constants: the value of r'):
        HolonomicConstraintSolver(loop, [theta, phi, x], [phi, x],
                                  constants={r_crank: np.nan, l_rod: 3.0})
    with pytest.raises(ValueError, match='backend'):
        HolonomicConstraintSolver(loop, [theta, phi, x], [phi, x],
                                  constants=constants, backend='fortran')


def test_attributes_are_read_only_and_repr_mirrors_constructor():
    sc = HolonomicConstraintSolver(
        slider_crank_constraints(), [theta, phi, x], [phi, x],
        constants={r_crank: 1.0, l_rod: 3.0}, tolerance=1e-10,
        backend='numpy')
    loop = slider_crank_constraints()
    assert repr(sc) == (
        f'HolonomicConstraintSolver([{loop[0]}, {loop[1]}], [theta, phi, x], '
        "[phi, x], constants={r: 1.0, l: 3.0}, tolerance=1e-10, "
        "backend='numpy')")
    assert sc.independent == (theta,)
    assert sc.backend == 'numpy'
    with pytest.raises(AttributeError):
        sc.tolerance = 1.0
    with pytest.raises(AttributeError):
        sc.dependent = (x,)


def test_symbolic_acceleration_term_follows_seed_002():
    """gamma = -(Phi_q q')_q q' - 2 Phi_qt q' - Phi_tt, rebuilt by hand for
    a driven pendulum-like constraint with explicit time."""
    xs, ys, tt = sm.symbols('x y t')
    s = HolonomicConstraintSolver([xs**2 + ys**2 - (2 + sm.sin(tt))**2],
                                  [xs, ys], [ys], time=tt, backend='numpy')
    gamma = s.symbolic['gamma']
    _q0, _q1, _u0, _u1, _t = sm.symbols('_q0 _q1 _u0 _u1 _t')
    # d2/dt2 of x^2 + y^2 - (2 + sin t)^2 = 0 gives
    # 2x x'' + 2y y'' = -2x'^2 - 2y'^2 + d2/dt2 (2 + sin t)^2
    expected = (-2*_u0**2 - 2*_u1**2
                + sm.diff((2 + sm.sin(_t))**2, _t, 2))
    assert sm.simplify(gamma[0] - expected) == 0


# -- linear algebra shared by the back ends -----------------------------------

@pytest.mark.parametrize('shape', [(2, 2), (3, 2), (5, 3)])
def test_pivoted_qr_solve_matches_lstsq(shape):
    """The compiled least-squares kernel (and its pure-Python source)
    against numpy.linalg.lstsq (full column rank)."""
    rng = np.random.default_rng(shape[0])
    A = rng.normal(size=shape)
    b = rng.normal(size=shape[0])
    pytest.importorskip('numba')
    from sympy_loads._numeric.linalg import qr_solve
    for kernel in (qr_solve, qr_solve.py_func):
        x = np.zeros(shape[1])
        ratio = kernel(A.copy(), b.copy(), x, np.zeros(shape[1], np.int64),
                       np.zeros(shape[0]), 1e-13)
        np.testing.assert_allclose(x, np.linalg.lstsq(A, b, rcond=None)[0],
                                   atol=1e-12)
        s = np.linalg.svd(A, compute_uv=False)
        assert 0 < ratio <= 1
        assert ratio >= 0.1 * s[-1] / s[0]


@pytest.mark.parametrize('n', [1, 3, 6])
def test_lu_solve_matches_numpy(n):
    pytest.importorskip('numba')
    from sympy_loads._numeric.linalg import lu_factor, lu_solve
    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, n))
    b = rng.normal(size=n)
    factors, perm, x = A.copy(), np.zeros(n, np.int64), np.zeros(n)
    ratio = lu_factor(factors, n, perm)
    lu_solve(factors, n, perm, b, x)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-10)
    assert 0 < ratio <= 1
    assert lu_factor(np.zeros((n, n)), n, perm) == 0.0


def test_numpy_backend_is_used_when_asked():
    sc = solver('slider-crank', 'numpy')
    assert sc.backend == 'numpy'
    assert sc._engine.resjac.address is None


@pytest.mark.skipif('compiled' not in BACKENDS, reason='needs numba')
def test_piecewise_constraints_compile():
    """SymEngine's LLVM back end compiles Piecewise (a half-plane circle)."""
    xs, ys = sm.symbols('x y')
    s = HolonomicConstraintSolver(
        [sm.Piecewise((xs**2, xs > 0), (0, True)) + ys**2 - 25], [xs, ys],
        [ys], backend='compiled')
    assert s.backend == 'compiled'
    q = s.solve_positions([3.0, 3.0])
    np.testing.assert_allclose(q, [3.0, 4.0], atol=1e-12)
    np.testing.assert_allclose(s.solve_velocities(q, [1.0, 0.0]),
                               [1.0, -0.75], atol=1e-12)


@pytest.mark.skipif('compiled' not in BACKENDS, reason='needs numba')
def test_code_symengine_cannot_compile_falls_back_to_numpy_with_a_warning():
    """SymEngine cannot compile Heaviside: with backend='auto' the solver
    warns and solves with the NumPy back end; asked for 'compiled' it
    refuses with the function's name."""
    xs, ys = sm.symbols('x y')
    loop = [xs**2 + ys**2 - 25 + sm.Heaviside(xs - 10)]
    with pytest.warns(RuntimeWarning, match='NumPy back end'):
        s = HolonomicConstraintSolver(loop, [xs, ys], [ys])
    assert s.backend == 'numpy'
    np.testing.assert_allclose(s.solve_positions([3.0, 3.0]), [3.0, 4.0],
                               atol=1e-12)
    with pytest.raises(ValueError, match='Heaviside'):
        HolonomicConstraintSolver(loop, [xs, ys], [ys], backend='compiled')


def test_without_numba_the_numpy_back_end_is_chosen(monkeypatch):
    """As if numba or SymEngine were not installed: backend='auto' falls
    back to NumPy and backend='compiled' is refused with a clear
    message."""
    monkeypatch.setattr(_numeric, 'compiled_available', lambda: False)
    loop = slider_crank_constraints(1, 3)
    s = HolonomicConstraintSolver(loop, [theta, phi, x], [phi, x])
    assert s.backend == 'numpy'
    np.testing.assert_allclose(s.solve_positions([np.pi/2, 0.0, 3.0])[2],
                               np.sqrt(8.0), atol=1e-12)
    with pytest.raises(ValueError, match='needs SymEngine and numba'):
        HolonomicConstraintSolver(loop, [theta, phi, x], [phi, x],
                                  backend='compiled')


# -- reliability: empty sets, per-row batch results, stalls, chunks ----------

def test_empty_constraints_or_dependent_is_a_clear_value_error(backend):
    # used to be a raw SymPy TypeError or "stalled after 0 iterations"
    with pytest.raises(ValueError, match='constraints is empty'):
        HolonomicConstraintSolver([], [theta], [], backend=backend)
    with pytest.raises(ValueError, match='constraints is empty'):
        HolonomicConstraintSolver(sm.Matrix([]), [theta], [theta],
                                  backend=backend)
    with pytest.raises(ValueError, match='dependent is empty'):
        HolonomicConstraintSolver(slider_crank_constraints(1, 3),
                                  [theta, phi, x], [], backend=backend)


def test_batch_with_unreachable_rows_keeps_the_converged_rows(backend):
    """Crank r = 2, rod l = 1: configurations with |sin(theta)| > 1/2
    cannot be assembled. A sweep over theta loses only those rows."""
    sc = solver('toggle slider-crank', backend)
    angles = np.array([0.1, 0.3, 1.2, -0.2, 2.0, 3.0])
    rows = np.column_stack([angles, np.full(6, 0.1), np.full(6, 2.5)])
    reachable = np.abs(np.sin(angles)) < 0.5
    q, status = sc.solve_positions(rows, on_failure='nan',
                                   return_status=True)
    assert status.dtype.kind == 'i' and status.shape == (6,)
    assert (status[reachable] == 0).all()
    assert (status[~reachable] != 0).all()
    assert np.isnan(q[~reachable][:, 1:]).all()
    assert (q[:, 0] == angles).all()             # independent entries kept
    # the converged rows solve the constraints: rod sin(phi) = 2 sin(theta)
    good = q[reachable]
    assert np.allclose(np.sin(good[:, 1]), 2 * np.sin(good[:, 0]),
                       rtol=0, atol=1e-12)
    assert np.allclose(sc.residual(good), 0.0, atol=1e-12)
    # on_failure='raise' (default) attaches the same per-row result
    with pytest.raises(ConstraintSolverError) as info:
        sc.solve_positions(rows)
    err = info.value
    assert err.rows == tuple(np.nonzero(~reachable)[0])
    np.testing.assert_array_equal(err.status, status)
    np.testing.assert_array_equal(err.solution, q)
    # a single configuration: NaN in the dependent entries and a status
    single, code = sc.solve_positions(rows[2], on_failure='nan',
                                      return_status=True)
    assert code != 0 and np.isnan(single[1:]).all() and single[0] == 1.2
    assert HolonomicConstraintSolver.STATUS[0] == 'converged'


def test_nan_rows_are_failed_rows_with_on_failure_nan(backend):
    sc = solver('slider-crank', backend)
    rows = np.array([[0.5, 0.1, 3.0], [np.nan, 0.1, 3.0]])
    q, status = sc.solve_positions(rows, on_failure='nan',
                                   return_status=True)
    assert status.tolist() == [0, 4]
    assert np.isfinite(q[0]).all() and np.isnan(q[1, 1:]).all()
    with pytest.raises(ConstraintSolverError, match='NaN or inf'):
        sc.solve_positions(rows)
    with pytest.raises(ValueError, match='on_failure'):
        sc.solve_positions(rows, on_failure='skip')
    with pytest.raises(TypeError, match='return_status'):
        sc.solve_positions(rows, return_status=1)


def test_unreachable_configuration_stops_at_a_stall(backend):
    """Crank 3, rod 1 at theta = 90 deg: sin(phi) = 3 has no solution. The
    iteration creeps towards phi = 90 deg with a residual stuck at 2; both
    back ends stop after a few iterations instead of running to
    max_iterations (50, at some 30 line-search evaluations each)."""
    sc = HolonomicConstraintSolver(slider_crank_constraints(3, 1),
                                   [theta, phi, x], [phi, x],
                                   backend=backend, max_iterations=50)
    rows = np.tile([np.pi / 2, 0.1, 0.1], (64, 1))
    q, status = sc.solve_positions(rows, on_failure='nan',
                                   return_status=True)
    assert (status == 2).all()
    with pytest.raises(ConstraintSolverError, match='stalled') as info:
        sc.solve_positions(rows[0])
    assert info.value.iterations <= 15
    assert info.value.residual == pytest.approx(2.0, abs=1e-6)


def test_large_batches_are_solved_in_chunks(backend, monkeypatch):
    """Rows are solved in chunks; results do not depend on the chunking,
    and a failure in a later chunk reports its row of the whole batch."""
    from sympy_loads._numeric import constraint_engine
    sc = solver('toggle slider-crank', backend)
    angles = np.linspace(-0.4, 0.4, 40)
    rows = np.column_stack([angles, np.full(40, 0.1), np.full(40, 2.5)])
    whole, status = sc.solve_positions(rows, return_status=True)
    monkeypatch.setattr(constraint_engine, 'CHUNK_ROWS', 7)
    chunked, status_chunked = sc.solve_positions(rows, return_status=True)
    np.testing.assert_array_equal(status, status_chunked)
    np.testing.assert_allclose(chunked, whole, rtol=0, atol=1e-14)
    rows[33, 0] = 1.2           # unreachable, in the fifth chunk
    with pytest.raises(ConstraintSolverError) as info:
        sc.solve_positions(rows)
    assert info.value.rows == (33,)
    velocities = sc.solve_velocities(whole, np.column_stack(
        [np.ones(40), np.zeros(40), np.zeros(40)]))
    # x' = -2 sin(theta) - 2 cos(theta) tan(phi) theta' (r = 2, l = 1)
    expected = (-2 * np.sin(whole[:, 0])
                - 2 * np.cos(whole[:, 0]) * np.tan(whole[:, 1]))
    np.testing.assert_allclose(velocities[:, 2], expected, rtol=1e-10)


def test_batch_memory_stays_bounded(backend):
    """100 000 rows (2.4 MB of input): the solve allocates the result and
    small per-row arrays (status, iterations, residual, pivot ratio: 1.3x
    the input together) plus the work arrays of one chunk (a few MB,
    whatever the batch size), not copies of the input in proportion to the
    batch (it used to take 24x the input with NumPy, 6x with numba)."""
    import tracemalloc
    sc = solver('slider-crank', backend)
    m = 100_000
    rows = np.column_stack([np.linspace(0, 2 * np.pi, m), np.zeros(m),
                            np.full(m, 3.0)])
    sc.solve_positions(rows[:10])          # compile and warm up
    tracemalloc.start()
    q = sc.solve_positions(rows)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert np.allclose(sc.residual(q[::1000]), 0.0, atol=1e-12)
    assert peak < 2.5 * rows.nbytes + 6e6, peak / rows.nbytes


def test_singular_jacobian_at_a_multiple_root_is_named(backend):
    """(y - 1)^3 = 0: the residual falls below the tolerance long before
    the Newton correction does (a triple root, Phi_y = 0 there). The error
    used to read 'did not converge ... in constraints []'; it names the
    singular Jacobian, the residual reached and what is involved."""
    xs, ys = sm.symbols('x y')
    s = HolonomicConstraintSolver([(ys - 1)**3], [xs, ys], [ys],
                                  backend=backend)
    with pytest.raises(ConstraintSolverError) as info:
        s.solve_positions([0.0, 2.0])
    message = str(info.value)
    assert 'constraints []' not in message
    assert 'singular' in message and 'within the tolerance' in message
    assert info.value.constraints == (0,)
    assert info.value.coordinates == (ys,)
    assert info.value.residual < 1e-12


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
@pytest.mark.parametrize('q, t, name', [
    (np.deg2rad([30, -75, 100]), '1', 't'),
    (np.deg2rad([30, -75, 100]), True, 't'),
    (np.deg2rad([30, -75, 100]) + 0j, 0.0, 'q'),
    (['0.5', '-1.3', '1.7'], 0.0, 'q'),
    (np.deg2rad([[30, -75, 100]]), ['1'], 't')])
def test_strings_booleans_and_complex_numbers_are_refused(backend, q, t,
                                                          name):
    """Before, '1' and True were read as 1.0 and a complex q lost its
    imaginary part silently."""
    q1, q2, q3 = sm.symbols('q1:4')
    loop = [sm.cos(q1) + 4*sm.cos(q1 + q2) + 3*sm.cos(q1 + q2 + q3) - 5,
            sm.sin(q1) + 4*sm.sin(q1 + q2) + 3*sm.sin(q1 + q2 + q3)]
    solver = HolonomicConstraintSolver(loop, [q1, q2, q3], [q2, q3],
                                       backend=backend)
    with pytest.raises(TypeError, match=f'^{name} must be'):
        solver.solve_positions(q, t)


def test_single_solves_from_several_threads_match_the_serial_ones(backend):
    """One solver shared by threads (a thread-pool parameter study): its
    work arrays are the engine's and the compiled kernels release the GIL,
    so without the engine's lock concurrent solves overwrote each other's
    iterates. Every threaded result equals the serial one exactly, and the
    velocity solves (which share the same arrays) too."""
    from concurrent.futures import ThreadPoolExecutor
    four_bar = solver('four-bar', backend)
    rng = np.random.default_rng(3)
    rows = np.tile(MOORE_GUESS, (400, 1))
    rows[:, 0] += rng.uniform(-0.3, 0.3, 400)
    rows[:, 1:] += rng.uniform(-0.2, 0.2, (400, 2))
    rates = rng.uniform(-1, 1, (400, 3))
    serial = [four_bar.solve_positions(row) for row in rows]
    serial_rates = [four_bar.solve_velocities(q, qd)
                    for q, qd in zip(serial, rates)]

    def work(k):
        q = four_bar.solve_positions(rows[k])
        return q, four_bar.solve_velocities(q, rates[k])

    for _ in range(3):
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(work, range(len(rows))))
        for (q, qd), q_ref, qd_ref in zip(results, serial, serial_rates):
            np.testing.assert_array_equal(q, q_ref)
            np.testing.assert_array_equal(qd, qd_ref)


@pytest.mark.parametrize('name', ['slider-crank', 'driven slider-crank'])
def test_empty_batches_give_empty_arrays_of_the_right_shape(backend, name):
    """A batch of no configurations, shape (0, n), gives empty results of
    the batch shapes on both back ends (SymEngine raised "Broadcasting
    failed" for residual() and jacobian()); one row of the same batch
    still gives the slider-crank's values."""
    s = solver(name, backend)
    empty = np.empty((0, 3))
    assert s.residual(empty).shape == (0, 3 if 'driven' in name else 2)
    nc = s.residual(empty).shape[1]
    assert s.jacobian(empty).shape == (0, nc, 3)
    assert s.residual(empty, np.empty(0)).shape == (0, nc)
    assert s.jacobian(empty, np.empty(0)).shape == (0, nc, 3)
    assert s.solve_positions(empty).shape == (0, 3)
    assert s.solve_positions(empty, np.empty(0)).shape == (0, 3)
    assert s.solve_velocities(empty, empty).shape == (0, 3)
    assert s.solve_accelerations(empty, empty, empty).shape == (0, 3)
    # the same calls on one row
    theta0 = 0.5
    x0 = R_VALUE * np.cos(theta0) + np.sqrt(
        L_VALUE**2 - (R_VALUE * np.sin(theta0))**2)
    row = np.array([[theta0, np.arcsin(R_VALUE * np.sin(theta0) / L_VALUE),
                     x0]])
    t_row = theta0 / 2.0 if 'driven' in name else 0.0
    np.testing.assert_allclose(s.residual(row, t_row), np.zeros((1, nc)),
                               atol=1e-12)
    J = s.jacobian(row, t_row)
    np.testing.assert_allclose(J[0, 0], [-R_VALUE * np.sin(theta0),
                                         -L_VALUE * np.sin(row[0, 1]), -1.0],
                               rtol=1e-12)


def test_with_constants_shares_the_code_and_checks_its_keys():
    x, y, r, s = sm.symbols('x y r s')
    circle = HolonomicConstraintSolver([x**2 + y**2 - r**2], [x, y], [y],
                                       constants={r: 5.0})
    bigger = circle.with_constants({r: 13.0})
    np.testing.assert_allclose(bigger.solve_positions([5.0, 1.0]),
                               [5.0, 12.0], rtol=1e-14)
    np.testing.assert_allclose(circle.solve_positions([3.0, 1.0]),
                               [3.0, 4.0], rtol=1e-14)
    assert bigger.constants == {r: 13.0} and circle.constants == {r: 5.0}
    assert bigger._engine.resjac is circle._engine.resjac
    with pytest.raises(ValueError, match=r'\[s\] are not constants of '
                                         r'this solver'):
        circle.with_constants({s: 1.0})
    with pytest.raises(TypeError, match='constants'):
        circle.with_constants([13.0])
