"""Tests of sympy_loads.aerodynamics: the seed 000 drag formulas, finite
values and derivatives at rest, energy dissipation, wind, and a KanesMethod
projectile whose terminal velocity is known in closed form."""

import warnings

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp
from sympy.physics.mechanics.loads import gravity
from sympy.physics.mechanics import (Force, KanesMethod, Particle, Point,
                                     ReferenceFrame, dynamicsymbols)

from sympy_loads import AerodynamicDrag
from sympy_loads.aerodynamics import euclidean_norm

A, Cd, rho = sm.symbols('A, C_d, rho', positive=True)
ux, uy, uz = dynamicsymbols('u_x, u_y, u_z', real=True)
t = dynamicsymbols._t


@pytest.fixture
def still_air():
    """Seed 000, "Aerodynamic Drag": P moves in still air with velocity
    u_x n_x + u_y n_y + u_z n_z."""
    N = ReferenceFrame('N')
    P = Point('P')
    P.set_vel(N, ux * N.x + uy * N.y + uz * N.z)
    drag = AerodynamicDrag(P, N, density=rho, drag_coefficient=Cd, area=A)
    return N, P, drag


def seed_drag(N):
    """The seed's expression, written as the seed writes it."""
    N_v_P = ux * N.x + uy * N.y + uz * N.z
    return -N_v_P.normalize() * Cd * A * rho / 2 * N_v_P.dot(N_v_P)


def components(vector, frame):
    return list(vector.to_matrix(frame))


class TestSeedFormulas:

    def test_one_dimensional_reduction_is_seeds(self, still_air):
        N, _, drag = still_air
        expected = -A * Cd * rho * ux * sm.Abs(ux) / 2
        assert drag.force.xreplace({uy: 0, uz: 0}) == expected * N.x

    def test_one_dimensional_reduction_equals_seed_cell(self, still_air):
        N, _, drag = still_air
        ours = drag.force.xreplace({uy: 0, uz: 0})
        seed = seed_drag(N).xreplace({uy: 0, uz: 0})
        for a, b in zip(components(ours, N), components(seed, N)):
            assert sm.simplify(a - b) == 0

    def test_three_dimensional_force_equals_seed_cell(self, still_air):
        N, _, drag = still_air
        ours = drag.force.to_matrix(N).applyfunc(
            lambda e: e.rewrite(sm.sqrt))
        seed = seed_drag(N).to_matrix(N)
        assert (ours - seed).applyfunc(sm.simplify) == sm.zeros(3, 1)

    def test_magnitude_is_half_rho_cd_a_v_squared(self, still_air):
        N, _, drag = still_air
        values = {ux: 1.5, uy: -2.0, uz: 0.5, rho: 1.2, Cd: 0.47, A: 0.3}
        force = np.array([float(c.rewrite(sm.sqrt).xreplace(values))
                          for c in components(drag.force, N)])
        v = np.array([1.5, -2.0, 0.5])
        expected = 0.5 * 1.2 * 0.47 * 0.3 * v.dot(v)
        assert np.linalg.norm(force) == pytest.approx(expected, rel=1e-14)
        # antiparallel to the velocity
        assert force.dot(v) == pytest.approx(-expected * np.linalg.norm(v),
                                             rel=1e-14)

    def test_to_loads_is_one_force_at_the_point(self, still_air):
        N, P, drag = still_air
        loads = drag.to_loads()
        assert loads == [Force(P, drag.force)]


def _lambdify_with_state(expr, extra=()):
    """lambdify ``expr`` of u_x, u_y, u_z (and their time derivatives,
    replaced by symbols)."""
    a = sm.symbols('a_x a_y a_z')
    rates = dict(zip([ux.diff(t), uy.diff(t), uz.diff(t)], a))
    x = sm.symbols('x_x x_y x_z')
    speeds = dict(zip([ux, uy, uz], x))
    expr = sm.Matrix(expr).xreplace(rates).xreplace(speeds)
    return sm.lambdify([*x, *a, *extra], expr, cse=True)


class TestFiniteAtRest:

    def test_force_is_exactly_zero_at_rest(self, still_air):
        N, _, drag = still_air
        force = drag.force.to_matrix(N).subs({rho: 1.2, Cd: 1.1, A: 0.5})
        f = _lambdify_with_state(force)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            value = f(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        assert np.all(value == 0.0)

    def test_jacobian_is_finite_zero_at_rest(self, still_air):
        N, _, drag = still_air
        force = drag.force.to_matrix(N).subs({rho: 1.2, Cd: 1.1, A: 0.5})
        jacobian = force.jacobian([ux, uy, uz])
        f = _lambdify_with_state(jacobian)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            value = f(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        assert value.shape == (3, 3)
        assert np.all(value == 0.0)

    def test_time_derivative_is_finite_zero_at_rest(self, still_air):
        N, _, drag = still_air
        force = drag.force.to_matrix(N).subs({rho: 1.2, Cd: 1.1, A: 0.5})
        f = _lambdify_with_state(force.diff(t))
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            value = f(0.0, 0.0, 0.0, 3.0, -2.0, 7.0)
        assert np.all(value == 0.0)

    def test_jacobian_matches_finite_differences_and_is_continuous(
            self, still_air):
        N, _, drag = still_air
        k = 1.2 * 1.1 * 0.5 / 2
        force = drag.force.to_matrix(N).subs({rho: 1.2, Cd: 1.1, A: 0.5})
        f = _lambdify_with_state(force)
        jac = _lambdify_with_state(force.jacobian([ux, uy, uz]))
        rng = np.random.default_rng(3)
        for scale in (1e-8, 1e-3, 1.0, 30.0):
            v = scale * rng.normal(size=3)
            analytic = jac(*v, 0, 0, 0)
            # exact Jacobian of -k |v| v: -k (|v| I + v v^T / |v|)
            speed = np.linalg.norm(v)
            exact = -k * (speed * np.eye(3) + np.outer(v, v) / speed)
            np.testing.assert_allclose(analytic, exact, rtol=1e-12,
                                       atol=1e-14 * scale)
            # central differences, an independent check of fdiff
            h = 1e-6 * scale
            numeric = np.column_stack([
                (f(*(v + h * e), 0, 0, 0) - f(*(v - h * e), 0, 0, 0))[:, 0]
                / (2 * h) for e in np.eye(3)])
            np.testing.assert_allclose(analytic, numeric, rtol=1e-6,
                                       atol=1e-9 * scale)
            # continuity at rest: ||J(v)|| <= 2 k |v| -> 0
            assert np.linalg.norm(analytic, 2) <= 2 * k * speed * (1 + 1e-12)

    def test_airspeed_printed_as_sqrt_for_numeric_code(self):
        x, y = sm.symbols('x y')
        for code in (sm.pycode(euclidean_norm(x, y)),
                     sm.ccode(euclidean_norm(x, y)),
                     sm.latex(euclidean_norm(x, y))):
            assert 'sqrt' in code and 'euclidean_norm' not in code


class TestEnergy:

    def test_power_relative_to_air_is_minus_k_speed_cubed(self):
        N = ReferenceFrame('N')
        P = Point('P')
        P.set_vel(N, ux * N.x + uy * N.y + uz * N.z)
        w = dynamicsymbols('w_x w_y', real=True)
        wind = w[0] * N.x + w[1] * N.y
        drag = AerodynamicDrag(P, N, density=rho, drag_coefficient=Cd,
                               area=A, wind=wind)
        v_rel = P.vel(N) - wind
        power = drag.force.dot(v_rel).rewrite(sm.sqrt)
        expected = -rho * Cd * A / 2 * v_rel.dot(v_rel)**sm.Rational(3, 2)
        assert sm.simplify(power - expected) == 0

    def test_power_never_positive_on_random_states(self, still_air):
        N, P, drag = still_air
        power = drag.force.dot(P.vel(N)).subs({rho: 1.2, Cd: 0.9, A: 0.7})
        f = _lambdify_with_state([power])
        rng = np.random.default_rng(0)
        states = rng.normal(scale=[[1.0], [10.0], [1e-3]],
                            size=(3, 3, 2000)).transpose(1, 0, 2)
        states = states.reshape(3, -1)
        states[:, :5] = 0.0  # include exact rest
        values = f(*states, 0, 0, 0)[0, 0]
        assert values.shape == (6000,)
        assert np.all(values <= 0.0)
        assert np.all(values[:5] == 0.0)


class TestWind:

    def test_no_force_when_moving_with_time_varying_wind(self):
        N = ReferenceFrame('N')
        P = Point('P')
        P.set_vel(N, ux * N.x + uy * N.y)
        gust = sm.sin(t) * N.x + 2 * N.y
        drag = AerodynamicDrag(P, N, density=rho, drag_coefficient=Cd,
                               area=A, wind=gust)
        assert drag.force.xreplace({ux: sm.sin(t), uy: 2}) == 0
        assert drag.relative_velocity == ((ux - sm.sin(t)) * N.x
                                          + (uy - 2) * N.y)

    def test_body_at_rest_in_wind_is_pushed_downwind(self):
        N = ReferenceFrame('N')
        P = Point('P')
        P.set_vel(N, 0)
        drag = AerodynamicDrag(P, N, density=2, drag_coefficient=1, area=3,
                               wind=4 * N.x)
        assert drag.force == 48 * N.x  # 1/2 * 2 * 1 * 3 * 4 * 4

    def test_velocity_in_rotating_frame_uses_true_speed(self):
        N = ReferenceFrame('N')
        q = dynamicsymbols('q')
        B = N.orientnew('B', 'Axis', (q, N.z))
        P = Point('P')
        P.set_vel(N, 3 * B.x + 4 * B.y)
        drag = AerodynamicDrag(P, N, density=2, drag_coefficient=1, area=1)
        assert sm.simplify(drag.airspeed) == 5
        force = drag.force.express(B).to_matrix(B).applyfunc(
            lambda e: sm.simplify(e.rewrite(sm.sqrt)))
        assert force == sm.Matrix([-15, -20, 0])


class TestConstruction:

    def test_repr_mirrors_constructor(self, still_air):
        _, _, drag = still_air
        assert repr(drag) == ('AerodynamicDrag(P, N, density=rho, '
                              'drag_coefficient=C_d, area=A)')
        N = ReferenceFrame('N')
        windy = AerodynamicDrag(Point('Q'), N, density=1, drag_coefficient=2,
                                area=3, wind=5 * N.y)
        assert repr(windy) == ('AerodynamicDrag(Q, N, density=1, '
                               'drag_coefficient=2, area=3, wind=5*N.y)')

    @pytest.mark.parametrize('name, value, error, match', [
        ('density', -1, ValueError, 'density must be nonnegative'),
        ('drag_coefficient', 'fast', TypeError, 'drag_coefficient'),
        ('area', -0.5, ValueError, 'area must be nonnegative'),
        ('wind', 3, TypeError, 'wind must be a'),
    ])
    def test_invalid_parameters(self, name, value, error, match):
        kwargs = dict(density=1, drag_coefficient=1, area=1)
        kwargs[name] = value
        with pytest.raises(error, match=match):
            AerodynamicDrag(Point('P'), ReferenceFrame('N'), **kwargs)

    def test_invalid_point_and_frame(self):
        N = ReferenceFrame('N')
        kwargs = dict(density=1, drag_coefficient=1, area=1)
        with pytest.raises(TypeError, match='point must be a Point'):
            AerodynamicDrag(N, N, **kwargs)
        with pytest.raises(TypeError, match='frame must be a ReferenceFrame'):
            AerodynamicDrag(Point('P'), Point('Q'), **kwargs)

    def test_parameters_are_immutable(self, still_air):
        _, _, drag = still_air
        with pytest.raises(AttributeError, match='fixed at construction'):
            drag.density = 3

    def test_unknown_velocity_is_a_clear_error(self):
        N = ReferenceFrame('N')
        drag = AerodynamicDrag(Point('P'), N, density=1, drag_coefficient=1,
                               area=1)
        with pytest.raises(ValueError, match='velocity of P in N'):
            drag.to_loads()

    def test_still_air_accepts_zero_wind(self):
        N = ReferenceFrame('N')
        P = Point('P')
        P.set_vel(N, ux * N.x)
        drag = AerodynamicDrag(P, N, density=1, drag_coefficient=1, area=2,
                               wind=0)
        assert drag.force == -ux * sm.Abs(ux) * N.x


class TestEuclideanNorm:

    def test_evaluation_rules(self):
        x, y, z = sm.symbols('x y z', real=True)
        assert euclidean_norm(3, 4, 12) == 13
        assert euclidean_norm(0, 0) == 0
        assert euclidean_norm(x, 0, 0) == sm.Abs(x)
        assert euclidean_norm(x, 0, y) == euclidean_norm(x, y)
        assert euclidean_norm(x, y).is_nonnegative is True
        assert euclidean_norm(x, y, z).rewrite(sm.sqrt) == sm.sqrt(
            x**2 + y**2 + z**2)
        with pytest.raises(TypeError):
            euclidean_norm()

    def test_derivative_value_away_from_and_at_origin(self):
        x, y = sm.symbols('x y', real=True)
        d = euclidean_norm(x, y).diff(x)
        assert d.subs({x: 3, y: 4}) == sm.Rational(3, 5)
        assert d.subs({x: 0, y: 0}) == 0

    def test_linearization_of_dragged_particle_about_rest(self):
        # KanesMethod.linearize differentiates the drag; at rest the
        # linearized drag is exactly zero (not NaN).
        q = dynamicsymbols('q1:3')
        u = dynamicsymbols('u1:3', real=True)
        N = ReferenceFrame('N')
        O = Point('O')
        P = O.locatenew('P', q[0] * N.x + q[1] * N.y)
        P.set_vel(N, u[0] * N.x + u[1] * N.y)
        m, g = sm.symbols('m g', positive=True)
        particle = Particle('p', P, m)
        drag = AerodynamicDrag(P, N, density=rho, drag_coefficient=Cd, area=A)
        kane = KanesMethod(N, q, u, kd_eqs=[q[0].diff() - u[0],
                                            q[1].diff() - u[1]])
        loads = drag.to_loads() + gravity(-g * N.y, particle)
        kane.kanes_equations([particle], loads)
        op = {q[0]: 0, q[1]: 0, u[0]: 0, u[1]: 0}
        A_mat = kane.linearize(op_point=op, A_and_B=True)[0]
        assert A_mat == sm.Matrix([[0, 0, 1, 0], [0, 0, 0, 1],
                                   [0, 0, 0, 0], [0, 0, 0, 0]])


def _projectile(wind_speed=0):
    """Particle in the vertical plane under SymPy's gravity() and drag."""
    q = dynamicsymbols('x y')
    u = dynamicsymbols('v_x v_y', real=True)
    m, g, w = sm.symbols('m g w', positive=True)
    N = ReferenceFrame('N')
    O = Point('O')
    P = O.locatenew('P', q[0] * N.x + q[1] * N.y)
    P.set_vel(N, u[0] * N.x + u[1] * N.y)
    particle = Particle('p', P, m)
    drag = AerodynamicDrag(P, N, density=rho, drag_coefficient=Cd, area=A,
                           wind=(w * N.x if wind_speed else None))
    kane = KanesMethod(N, q, u, kd_eqs=[q[0].diff() - u[0],
                                        q[1].diff() - u[1]])
    kane.kanes_equations([particle], drag.to_loads()
                         + gravity(-g * N.y, particle))
    constants = [m, g, rho, Cd, A, w]
    rhs = sm.lambdify([*q, *u, *constants], kane.rhs(), cse=True)
    return rhs


class TestKanesMethodProjectile:

    m, g, rho_v, cd_v, area_v = 2.0, 9.81, 1.225, 0.47, 0.05

    def terminal_speed(self):
        return np.sqrt(2 * self.m * self.g / (self.rho_v * self.cd_v
                                               * self.area_v))

    def integrate(self, rhs, y0, wind=0.0, t_end=None):
        p = (self.m, self.g, self.rho_v, self.cd_v, self.area_v, wind)
        v_t = self.terminal_speed()
        tau = v_t / self.g
        t_end = 25 * tau if t_end is None else t_end
        return solve_ivp(lambda _t, y: rhs(*y, *p)[:, 0], (0, t_end), y0,
                         rtol=1e-11, atol=1e-12, method='DOP853')

    def test_falling_from_rest_reaches_terminal_velocity(self):
        rhs = _projectile()
        sol = self.integrate(rhs, [0, 0, 0, 0])
        assert sol.success
        v_t = self.terminal_speed()
        # vertical free fall with drag: v(t) = -v_t tanh(g t / v_t)
        t_end = sol.t[-1]
        exact = -v_t * np.tanh(self.g * t_end / v_t)
        assert sol.y[3, -1] == pytest.approx(exact, rel=1e-9)
        assert sol.y[3, -1] == pytest.approx(-v_t, rel=1e-9)
        assert sol.y[2, -1] == 0.0

    def test_fall_matches_closed_form_along_the_way(self):
        rhs = _projectile()
        v_t = self.terminal_speed()
        tau = v_t / self.g
        p = (self.m, self.g, self.rho_v, self.cd_v, self.area_v, 0.0)
        t_eval = np.linspace(0, 3 * tau, 7)
        sol = solve_ivp(lambda _t, y: rhs(*y, *p)[:, 0], (0, 3 * tau),
                        [0, 0, 0, 0], t_eval=t_eval, rtol=1e-11, atol=1e-12,
                        method='DOP853')
        # y(t) = -tau v_t ln cosh(t / tau), v(t) = -v_t tanh(t / tau)
        np.testing.assert_allclose(sol.y[3], -v_t * np.tanh(t_eval / tau),
                                   rtol=1e-8, atol=1e-9 * v_t)
        np.testing.assert_allclose(
            sol.y[1], -tau * v_t * np.log(np.cosh(t_eval / tau)),
            rtol=1e-8, atol=1e-9 * v_t * tau)

    def test_thrown_body_drifts_with_wind_and_falls_at_terminal_speed(self):
        rhs = _projectile(wind_speed=1)
        wind = 5.0
        sol = self.integrate(rhs, [0, 0, 20.0, 10.0], wind=wind,
                             t_end=80 * self.terminal_speed() / self.g)
        assert sol.success
        # steady state: v_rel = -v_t n_y, so v_P = w n_x - v_t n_y
        assert sol.y[2, -1] == pytest.approx(wind, rel=1e-7)
        assert sol.y[3, -1] == pytest.approx(-self.terminal_speed(),
                                             rel=1e-7)


def test_plain_square_root_form_is_nan_at_rest_where_ours_is_not():
    """Why euclidean_norm exists: the Jacobian of the seed's sqrt form is
    0/0 at rest, the same Jacobian of AerodynamicDrag.force is 0."""
    N = ReferenceFrame('N')
    P = Point('P')
    v = ux * N.x + uy * N.y + uz * N.z
    P.set_vel(N, v)
    ours = AerodynamicDrag(P, N, density=1, drag_coefficient=1, area=2)
    plain = -sm.sqrt(v.dot(v)) * v
    results = []
    for force in (plain, ours.force):
        f = _lambdify_with_state(force.to_matrix(N).jacobian([ux, uy, uz]))
        with np.errstate(invalid='ignore', divide='ignore'):
            results.append(f(0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    assert np.all(np.isnan(results[0]))
    assert np.all(results[1] == 0.0)


def test_system_add_actuators_gives_drag_equation_of_motion():
    """AerodynamicDrag is a SymPy actuator: System takes it directly."""
    y = dynamicsymbols('y')
    v = dynamicsymbols('v', real=True)
    m, g = sm.symbols('m g', positive=True)
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    system = me.System(N, O)
    Q = O.locatenew('Q', y * N.y)
    Q.set_vel(N, v * N.y)
    body = Particle('body', Q, m)
    system.add_coordinates(y)
    system.add_speeds(v)
    system.add_kdes(y.diff() - v)
    system.add_bodies(body)
    system.add_actuators(AerodynamicDrag(Q, N, density=rho,
                                         drag_coefficient=Cd, area=A))
    system.add_loads(*gravity(-g * N.y, body))
    system.form_eoms()
    expected = -g - rho * Cd * A * v * sm.Abs(v) / (2 * m)
    assert sm.simplify(system.rhs()[1] - expected) == 0
