"""Tests of sympy_loads.linear: linearize, equilibrium and LinearModel,
against SymPy's KanesMethod.linearize, the Whipple bicycle of Meijaard et
al. (2007) and the nonlinear simulation itself."""

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy import linalg, optimize

from sympy_loads import (EquilibriumError, LinearModel, Simulation,
                         equilibrium, linearize)
from sympy_loads.examples import four_bar
from sympy_loads.examples._whipple import (MEIJAARD_CAPSIZE_SPEED,
                                           MEIJAARD_EIGENVALUES_5MS,
                                           MEIJAARD_WEAVE_SPEED,
                                           bicycle_initial_conditions)

# Meijaard et al. (2007), eq. (5.4): the benchmark bicycle's linear model
# M q'' + v C1 q' + (g K0 + v^2 K2) q = [T_phi, T_delta], q = [roll, steer]
MEIJAARD_M = np.array([[80.81722, 2.31941332208709],
                       [2.31941332208709, 0.29784188199686]])
MEIJAARD_C1 = np.array([[0.0, 33.86641391492494],
                        [-0.85035641456978, 1.68540397397560]])
MEIJAARD_K0 = np.array([[-80.95, -2.59951685249872],
                        [-2.59951685249872, -0.80329488458618]])
MEIJAARD_K2 = np.array([[0.0, 76.59734589573222],
                        [0.0, 2.65431523794604]])
# the published values have 14 significant digits (M11 and K011 are exact)
PUBLISHED_DIGITS = 1e-14


def _double_pendulum():
    q1, q2, u1, u2, T = me.dynamicsymbols('q1 q2 u1 u2 T')
    m1, m2, l1, l2, g = sm.symbols('m1 m2 l1 l2 g')
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (q1, N.z))
    B = N.orientnew('B', 'Axis', (q2, N.z))
    A.set_ang_vel(N, u1 * N.z)
    B.set_ang_vel(N, u2 * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P1 = O.locatenew('P1', -l1 * A.y)
    P1.v2pt_theory(O, N, A)
    P2 = P1.locatenew('P2', -l2 * B.y)
    P2.v2pt_theory(P1, N, B)
    kane = me.KanesMethod(N, [q1, q2], [u1, u2],
                          kd_eqs=[q1.diff() - u1, q2.diff() - u2])
    kane.kanes_equations(
        [me.Particle('a', P1, m1), me.Particle('b', P2, m2)],
        [(P1, -m1 * g * N.y), (P2, -m2 * g * N.y), (A, T * N.z),
         (B, -T * N.z)])
    constants = {m1: 1.0, m2: 2.0, l1: 1.5, l2: 0.7, g: 9.81}
    return kane, (q1, q2, u1, u2), T, constants


def _sympy_linearization(kane, point, input_, value, constants):
    """``A, B`` of SymPy's ``KanesMethod.linearize`` at ``point`` (with
    the accelerations there in the operating point: SymPy's linearizer
    needs them away from an equilibrium)."""
    rhs = kane.rhs().xreplace(constants).xreplace({input_: value})
    rhs = rhs.xreplace(point)
    nq = len(kane.q)
    udot = {s.diff(): float(rhs[nq + i]) for i, s in enumerate(kane.u)}
    A, B, r = kane.linearize(A_and_B=True, new_method=True,
                             op_point=[point, udot, constants,
                                       {input_: value}])
    assert list(r) == [input_]
    return (np.array(A.xreplace(constants), dtype=float),
            np.array(B.xreplace(constants), dtype=float))


class TestAgainstKanesMethodLinearize:
    """Unconstrained models: A and B equal SymPy's to 1e-12 (relative to
    the largest entry; both are exact up to round-off)."""

    def test_cart_pendulum_upright_with_input_force(self, cart_pendulum):
        kane, (x, th, v, w), F, constants = cart_pendulum()
        point = {x: 0.0, th: 0.0, v: 0.0, w: 0.0}
        A, B = _sympy_linearization(kane, point, F, 0.0, constants)
        lin = linearize(kane, point, constants, inputs=[F],
                        specified={F: 0.0})
        assert lin.states == (x, th, v, w)
        assert lin.inputs == (F,)
        scale = np.max(np.abs(A))
        assert np.max(np.abs(lin.A - A)) <= 1e-12 * scale
        assert np.max(np.abs(lin.B - B)) <= 1e-12 * np.max(np.abs(B))

    def test_double_pendulum_at_a_nonzero_angle_and_speed(self):
        kane, (q1, q2, u1, u2), T, constants = _double_pendulum()
        point = {q1: 0.3, q2: -0.5, u1: 0.4, u2: -1.1}
        A, B = _sympy_linearization(kane, point, T, 0.2, constants)
        lin = linearize(kane, point, constants, inputs=[T],
                        specified={T: 0.2})
        assert np.max(np.abs(lin.A - A)) <= 1e-12 * np.max(np.abs(A))
        assert np.max(np.abs(lin.B - B)) <= 1e-12 * np.max(np.abs(B))

    def test_same_result_on_the_numpy_back_end(self):
        kane, (q1, q2, u1, u2), T, constants = _double_pendulum()
        point = {q1: 0.3, q2: -0.5, u1: 0.4, u2: -1.1}
        compiled = linearize(kane, point, constants, inputs=[T],
                             specified={T: 0.2})
        numpy = linearize(kane, point, constants, inputs=[T],
                          specified={T: 0.2}, backend='numpy')
        assert np.max(np.abs(numpy.A - compiled.A)) <= 1e-12 * np.max(
            np.abs(compiled.A))


class TestWhippleBicycle:
    """The Whipple bicycle (one holonomic, three nonholonomic
    constraints) against Meijaard et al. (2007)."""

    @staticmethod
    def _linear(model, v):
        point = bicycle_initial_conditions(model, v)
        return model.simulation.linearize(
            point, model.constants, inputs=[model.steer_torque],
            specified={model.steer_torque: 0.0})

    @staticmethod
    def _roll_steer(lin):
        names = [str(s) for s in lin.states]
        rows = [names.index(n) for n in ('q2(t)', 'q5(t)', 'u2(t)',
                                         'u5(t)')]
        return lin.A[np.ix_(rows, rows)], lin.B[rows]

    def test_states_are_the_independent_coordinates_then_speeds(
            self, whipple_with_steer_torque):
        model = whipple_with_steer_torque
        lin = self._linear(model, 5.0)
        q1, q2, q5, q4 = model.kane.q
        u2, u3, u5, u1, u4, u6 = model.kane.u
        assert lin.states == (q1, q2, q5, u2, u3, u5)
        # the dependent pitch and speeds are solved at the operating point
        assert abs(lin.operating_point[u6] - 5.0 / model.front_radius) \
            <= 1e-12 * 5.0 / model.front_radius

    def test_eigenvalues_at_5_m_s_equal_table_2(self,
                                                 whipple_with_steer_torque):
        lin = self._linear(whipple_with_steer_torque, 5.0)
        values = lin.eigenvalues()
        # two zero eigenvalues: the yaw angle and the forward speed
        # (ignorable and conserved at this operating point)
        order = np.argsort(np.abs(values))
        assert np.max(np.abs(values[order[:2]])) <= 1e-12
        nonzero = values[order[2:]]
        want = MEIJAARD_EIGENVALUES_5MS
        nonzero = nonzero[np.lexsort((nonzero.imag, nonzero.real))]
        want = want[np.lexsort((want.imag, want.real))]
        assert np.max(np.abs(nonzero - want)) <= 1e-10

    def test_roll_steer_block_equals_published_model_from_0_to_10_m_s(
            self, whipple_with_steer_torque):
        model = whipple_with_steer_torque
        g = 9.81
        Minv = np.linalg.inv(MEIJAARD_M)
        for v in np.linspace(0.0, 10.0, 11):
            A, B = self._roll_steer(self._linear(model, v))
            want = np.block([
                [np.zeros((2, 2)), np.eye(2)],
                [-Minv @ (g * MEIJAARD_K0 + v ** 2 * MEIJAARD_K2),
                 -Minv @ (v * MEIJAARD_C1)]])
            # the published entries are rounded to 14 digits; M^-1 (cond
            # ~ 1e3 here) and the products amplify that by ~1e4
            tolerance = 1e4 * PUBLISHED_DIGITS * max(1.0, np.max(
                np.abs(want)))
            assert np.max(np.abs(A - want)) <= tolerance, v
            # the steer torque enters as M^-1 [0, 1]
            assert np.max(np.abs(B[2:, 0] - Minv[:, 1])) <= 1e4 * \
                PUBLISHED_DIGITS * np.max(np.abs(Minv))
            assert np.max(np.abs(B[:2])) <= 1e-14

    def test_weave_and_capsize_speeds(self, whipple_with_steer_torque):
        model = whipple_with_steer_torque

        def roll_steer_eigenvalues(v):
            # the yaw angle and the forward speed decouple (their zero
            # eigenvalues would be confused with the capsize one near 0)
            return np.linalg.eigvals(
                self._roll_steer(self._linear(model, v))[0])

        def weave_real(v):
            values = roll_steer_eigenvalues(v)
            return values[np.argmax(values.imag)].real

        def capsize(v):
            values = roll_steer_eigenvalues(v)
            return np.max(values[values.imag == 0].real)

        weave = optimize.brentq(weave_real, 4.0, 4.5, xtol=1e-14)
        capsize_speed = optimize.brentq(capsize, 5.5, 6.5, xtol=1e-14)
        assert abs(weave - MEIJAARD_WEAVE_SPEED) <= 1e-10
        assert abs(capsize_speed - MEIJAARD_CAPSIZE_SPEED) <= 1e-10


class TestFourBarEquilibrium:
    """Moore's four-bar with its spring-damper and gravity: the rest
    position, and small motions about it."""

    @pytest.fixture(scope='class')
    @classmethod
    def four(cls):
        model = four_bar.build_model()
        model.simulation = Simulation(model.kane)
        model.constants = four_bar.constants_of(model)
        model.rest = model.simulation.equilibrium(
            {model.q[0]: np.deg2rad(10.0), model.q[1]: np.deg2rad(5.0),
             model.q[2]: np.deg2rad(-150.0)}, model.constants)
        return model

    def test_equilibrium_satisfies_the_loop_and_balances_the_loads(self,
                                                                   four):
        q1, q2, q3 = four.q
        values = {**four.rest, **four.constants}
        assert np.max(np.abs(np.array(four.fh.xreplace(values),
                                      dtype=float))) <= 1e-12
        # at rest the potential energy is stationary along the loop:
        # dV/dq1 + dV/dq_dep dq_dep/dq1 = 0
        V = four.potential
        phi_q = four.fh.jacobian([q1, q2, q3]).xreplace(values)
        phi_q = np.array(phi_q, dtype=float)
        dV = np.array([float(V.diff(s).xreplace(values)) for s in four.q])
        dep = -np.linalg.solve(phi_q[:, 1:], phi_q[:, :1])
        gradient = dV[0] + dV[1:] @ dep[:, 0]
        assert abs(gradient) <= 1e-9 * np.max(np.abs(dV))

    def test_simulating_from_rest_at_equilibrium_nothing_moves(self, four):
        start = {**four.rest, **{u: 0.0 for u in four.u}}
        result = four.simulation.run((0, 5), start, four.constants,
                                     rtol=1e-10, atol=1e-12)
        assert result.success
        drift = np.max(np.abs(result.q - np.array(
            [four.rest[s] for s in four.q])))
        # the forces balance to round-off: any motion is round-off too
        assert drift <= 1e-9

    def test_small_motion_follows_the_matrix_exponential(self, four):
        q1 = four.q[0]
        point = {**four.rest, **{u: 0.0 for u in four.u}}
        lin = four.simulation.linearize(point, four.constants)
        assert [str(s) for s in lin.states] == ['q1(t)', 'u1(t)']
        times = np.linspace(0.0, 3.0, 31)
        errors = []
        for size in (1e-4, 5e-5):
            start = dict(point)
            start[q1] = four.rest[q1] + size
            result = four.simulation.run((0, 3), start, four.constants,
                                         t_eval=times, rtol=1e-12,
                                         atol=1e-14)
            linear = np.array([(linalg.expm(lin.A * t) @ [size, 0.0])[0]
                               for t in times])
            errors.append(np.max(np.abs(result.q[:, 0] - four.rest[q1]
                                        - linear)))
        # the difference is the quadratic remainder: small against the
        # motion, and a quarter when the amplitude is halved
        assert errors[0] <= 1e-2 * 1e-4
        assert errors[1] / errors[0] == pytest.approx(0.25, abs=0.03)

    def test_modes_are_a_damped_oscillation(self, four):
        point = {**four.rest, **{u: 0.0 for u in four.u}}
        lin = four.simulation.linearize(point, four.constants)
        values, vectors = lin.modes()
        assert np.all(values.real < 0) and np.all(values.imag != 0)
        for j in range(2):
            residual = lin.A @ vectors[:, j] - values[j] * vectors[:, j]
            assert np.max(np.abs(residual)) <= 1e-12 * np.max(np.abs(lin.A))

    def test_no_equilibrium_is_reported_with_the_residual(self,
                                                          line_particle):
        line = line_particle(1, lambda x, v: 2.0)
        with pytest.raises(EquilibriumError, match='the acceleration of '
                           r'v\(t\)') as info:
            equilibrium(line.kane, {line.x: 0.0}, {})
        assert info.value.residual == pytest.approx(2.0)


class TestArguments:

    def test_missing_values_are_listed(self, cart_pendulum):
        kane, (x, th, v, w), F, constants = cart_pendulum()
        with pytest.raises(ValueError, match=r'missing specified inputs.*F'):
            linearize(kane, {x: 0.0, th: 0.0, v: 0.0, w: 0.0}, constants)

    def test_inputs_must_be_specified_inputs(self, cart_pendulum):
        kane, (x, th, v, w), F, constants = cart_pendulum()
        with pytest.raises(ValueError, match='inputs: theta'):
            linearize(kane, {x: 0.0, th: 0.0, v: 0.0, w: 0.0}, constants,
                      inputs=[th], specified={F: 0.0})

    def test_operating_value_of_an_input_is_a_number(self, cart_pendulum):
        kane, (x, th, v, w), F, constants = cart_pendulum()
        with pytest.raises(TypeError, match=r'specified\[F\(t\)\] must be '
                           'a number'):
            linearize(kane, {x: 0.0, th: 0.0, v: 0.0, w: 0.0}, constants,
                      specified={F: lambda t: 0.0})

    def test_equilibrium_refuses_moving_guesses(self, cart_pendulum):
        kane, (x, th, v, w), F, constants = cart_pendulum()
        with pytest.raises(ValueError, match='speeds of a static '
                           'equilibrium are zero'):
            equilibrium(kane, {x: 0.0, th: 0.1, v: 1.0}, constants,
                        specified={F: 0.0})

    def test_linear_model_is_immutable(self):
        lin = LinearModel([[0.0]], [[1.0]], ['x'], ['F'], {})
        with pytest.raises(ValueError):
            lin.A[0, 0] = 1.0
        with pytest.raises(AttributeError):
            lin.A = np.eye(1)


def test_singular_dependent_block_switches_the_independent_set():
    # at x = 1, y = 0 the model's dependent coordinate y cannot follow x
    # (d phi / dy = 2 y = 0): the linearization uses y and u_y instead,
    # and equals that of the same model written with y independent
    kane, (x, y, ux, uy), constants = _natural_pendulum('x')
    constants = {**constants, sm.Symbol('l'): 1.0}      # unit radius
    point = {x: 1.0, y: 0.0, ux: 0.0, uy: 0.3}
    lin = linearize(kane, point, constants)
    assert lin.states == (y, uy)
    other, _, _ = _natural_pendulum('y')
    reference = linearize(other, point, constants)
    assert reference.states == (y, uy)
    assert np.max(np.abs(lin.A - reference.A)) <= 1e-12 * np.max(
        np.abs(reference.A))


# ---------------------------------------------------------------------------
# Issue 35: the independent set at the edges, equilibria of moving
# constraints, the arguments' names in messages

_t = me.dynamicsymbols._t


def _natural_pendulum(independent):
    """A unit-mass point (x, y) on a circle of radius ``l`` under gravity
    ``-g N.y`` (the pendulum in natural coordinates), with ``independent``
    ('x' or 'y') the model's independent coordinate and speed."""
    x, y, ux, uy = me.dynamicsymbols('x y u_x u_y')
    g, l = sm.symbols('g l')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    (qi, ui), (qd, ud) = (((x, ux), (y, uy)) if independent == 'x'
                          else ((y, uy), (x, ux)))
    kane = me.KanesMethod(
        N, [qi], [ui], kd_eqs=[x.diff(_t) - ux, y.diff(_t) - uy],
        q_dependent=[qd], u_dependent=[ud],
        configuration_constraints=[x ** 2 + y ** 2 - l ** 2],
        velocity_constraints=[x * ux + y * uy])
    kane.kanes_equations([me.Particle('p', P, 1)], [(P, -g * N.y)])
    return kane, (x, y, ux, uy), {g: 9.81, l: 2.0}


def _sympy_rates(kane, constants):
    """``f(q, u) -> (q', u')`` in model order from SymPy's own
    ``mass_matrix_full`` and ``forcing_full`` (lambdified; no code of
    sympy_loads)."""
    states = list(kane.q) + list(kane.u)
    plain = sm.symbols(f'z0:{len(states)}')
    swap = dict(zip(states, plain))
    # the states first: a value of the time (a key of constants) must
    # not reach inside x(t)
    M = sm.lambdify(plain, kane.mass_matrix_full.xreplace(swap).xreplace(
        constants))
    F = sm.lambdify(plain, kane.forcing_full.xreplace(swap).xreplace(
        constants))

    def rates(q, u):
        z = list(q) + list(u)
        out = np.linalg.solve(np.array(M(*z), dtype=float),
                              np.array(F(*z), dtype=float).ravel())
        return out[:len(kane.q)], out[len(kane.q):]
    return rates


@pytest.mark.parametrize('x0', [2.0 * np.cos(np.pi / 2), 1e-9])
def test_pendulum_at_a_round_off_zero_of_its_dependent_block(x0):
    """The pendulum with y independent at its lowest point, x = l cos(pi/2)
    (1.2e-16, not 0) or 1e-9: its 1 x 1 block dphi/dx = 2x is tiny against
    dphi/dy = -2l but was kept (a block measured against itself is always
    well conditioned), and y, which does not parametrize the motion there,
    gave eigenvalues +-4.43i. The linear model is in x, u_x, with the
    closed form A = [[0, 1], [-g/l, 0]] and eigenvalues +-i sqrt(g/l)."""
    kane, (x, y, ux, uy), constants = _natural_pendulum('y')
    g, l = 9.81, 2.0
    lin = linearize(kane, {x: x0, y: -np.sqrt(l ** 2 - x0 ** 2), ux: 0.0,
                           uy: 0.0}, constants)
    assert lin.states == (x, ux)
    # the exact linearization at x0 differs from the closed form at 0 by
    # O(x0^2 / l^2) (< 1e-18): round-off only
    expected = np.array([[0.0, 1.0], [-g / l, 0.0]])
    assert np.max(np.abs(lin.A - expected)) <= 1e-12 * g / l
    np.testing.assert_allclose(
        lin.eigenvalues(), [-1j * np.sqrt(g / l), 1j * np.sqrt(g / l)],
        rtol=1e-12)


def test_pendulum_swinging_through_a_near_singular_block():
    """Through its lowest point at u_x = 0.5 with y independent: u_x was
    'solved' from u_y = 0 as 0 (the motion lost) and A was taken in y.
    Now u_x is kept, and A equals central differences of SymPy's own
    equations of the model written with x independent (the dependent y,
    u_y from the circle)."""
    kane, (x, y, ux, uy), constants = _natural_pendulum('y')
    l, x0, v0 = 2.0, 1e-9, 0.5
    lin = linearize(kane, {x: x0, y: -l, ux: v0, uy: 0.0}, constants)
    assert lin.states == (x, ux)
    assert lin.operating_point[ux] == v0
    reference_model, _, _ = _natural_pendulum('x')
    rates = _sympy_rates(reference_model, constants)

    def reduced(z):            # (x, u_x) -> (x', u_x') on the circle
        y_ = -np.sqrt(l ** 2 - z[0] ** 2)
        qd, ud = rates([z[0], y_], [z[1], -z[0] * z[1] / y_])
        return np.array([qd[0], ud[0]])
    h = 1e-5
    columns = [(reduced(np.array([x0, v0]) + h * e)
                - reduced(np.array([x0, v0]) - h * e)) / (2 * h)
               for e in np.eye(2)]
    reference = np.array(columns).T
    # central differences: truncation O(h^2 f''') with f''' of order
    # g/l^3 and v0^2/l^3, i.e. about 1e-10
    assert np.max(np.abs(lin.A - reference)) <= 1e-8


def _chaplygin_sled():
    """A Chaplygin sled: knife edge at P = (x, y) along B.x (heading
    theta), mass center G at a along the edge, central inertia I; the
    edge cannot slide sideways, -sin(theta) v_x + cos(theta) v_y = 0,
    with v_y dependent."""
    th, x, y = me.dynamicsymbols('theta x y')
    w, vx, vy = me.dynamicsymbols('omega v_x v_y')
    m, I, a = sm.symbols('m I a')
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', (th, N.z))
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, vx * N.x + vy * N.y)
    G = P.locatenew('G', a * B.x)
    G.v2pt_theory(P, N, B)
    kane = me.KanesMethod(
        N, [th, x, y], [w, vx], u_dependent=[vy],
        kd_eqs=[th.diff(_t) - w, x.diff(_t) - vx, y.diff(_t) - vy],
        velocity_constraints=[P.vel(N).dot(B.y)])
    kane.kanes_equations(
        [me.RigidBody('sled', G, B, m, (me.inertia(B, 0, 0, I), G))], [])
    return kane, (th, x, y, w, vx, vy), {m: 2.0, I: 0.1, a: 0.3}


@pytest.mark.parametrize('backend', ['auto', 'numpy'])
def test_chaplygin_sled_heading_where_its_dependent_speed_is_singular(
        backend):
    """Heading along N.y at V = 1.7 m/s, the model's dependent v_y has the
    block cos(pi/2) = 6e-17: it was kept, v_y 'solved' from v_x = 0, and
    the sled silently linearized at rest (yaw mode lost). With v_x
    dependent, the sled's equations (forward speed v, yaw rate w) are
    v' = a w^2, (I + m a^2) w' = -m a v w, and with x' = v_y cot(theta),
    y' = v_y the linear model in (theta, x, y, omega, v_y) is exact in
    closed form: the yaw mode is -m a V / (I + m a^2)."""
    kane, (th, x, y, w, vx, vy), constants = _chaplygin_sled()
    m, I, a, V = 2.0, 0.1, 0.3, 1.7
    lin = linearize(kane, {th: np.pi / 2, x: 0.0, y: 0.0, w: 0.0, vx: 0.0,
                           vy: V}, constants, backend=backend)
    assert lin.states == (th, x, y, w, vy)
    assert lin.operating_point[vy] == V
    yaw = -m * a * V / (I + m * a ** 2)
    expected = np.zeros((5, 5))
    expected[0, 3] = 1.0            # theta' = omega
    expected[1, 0] = -V             # x' = v_y cot(theta)
    expected[2, 4] = 1.0            # y' = v_y
    expected[3, 3] = yaw
    # theta = pi/2 in floating point: cos = 6e-17 enters the entries
    assert np.max(np.abs(lin.A - expected)) <= 1e-12 * abs(yaw)
    assert np.min(lin.eigenvalues().real) == pytest.approx(yaw, rel=1e-12)


@pytest.mark.parametrize('backend', ['auto', 'numpy'])
def test_chaplygin_sled_near_its_singular_heading_keeps_the_given_speed(
        backend):
    """5 mrad short of heading along N.y at 1.7 m/s along the blade, given
    as the model's independent v_x = 1.7 cos(theta) (v_y, dependent, left
    out): the model's block cos(theta) = 0.005 is solvable but ill
    conditioned, so the linearization eliminates v_x instead. The point
    must stay the moving sled's (v_y = 1.7 sin(theta)): it used to keep
    v_y at its default 0, solve v_x from it and linearize the sled at
    rest with no warning. Exactly along N.y, where the model's block is
    singular, v_y must be given, and given speeds that violate the
    constraint are refused."""
    kane, (th, x, y, w, vx, vy), constants = _chaplygin_sled()
    V, heading = 1.7, np.pi / 2 - 0.005
    lin = linearize(kane, {th: heading, x: 0.0, y: 0.0, w: 0.0,
                           vx: V * np.cos(heading)}, constants,
                    backend=backend)
    assert vy in lin.states and vx not in lin.states
    assert lin.operating_point[vx] == pytest.approx(V * np.cos(heading),
                                                    rel=1e-12)
    assert lin.operating_point[vy] == pytest.approx(V * np.sin(heading),
                                                    rel=1e-12)
    # the yaw mode of the moving sled, -m a V/(I + m a^2), not 0 (rest)
    m, I, a = 2.0, 0.1, 0.3
    yaw = -m * a * V / (I + m * a ** 2)
    assert np.min(lin.eigenvalues().real) == pytest.approx(yaw, rel=1e-6)
    with pytest.raises(ValueError, match=r'give v_y\(t\) too'):
        linearize(kane, {th: np.pi / 2, x: 0.0, y: 0.0, w: 0.0, vx: 0.0},
                  constants, backend=backend)
    with pytest.raises(ValueError, match=r'violate .* v_x\(t\) would be'):
        linearize(kane, {th: np.pi / 2, x: 0.0, y: 0.0, w: 0.0, vx: 0.5,
                         vy: V}, constants, backend=backend)


def _moving_line():
    """A particle of mass m at (x, y) kept on the line y = r(t) x, r = 1 +
    t, which turns about the origin; a spring -k x N.x, viscous damping
    -c v and gravity -m g N.y act on it. x independent, y dependent."""
    x, y, ux, uy = me.dynamicsymbols('x y u_x u_y')
    m, g, k, c = sm.symbols('m g k c')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    r = 1 + _t
    kane = me.KanesMethod(
        N, [x], [ux], kd_eqs=[x.diff(_t) - ux, y.diff(_t) - uy],
        q_dependent=[y], u_dependent=[uy],
        configuration_constraints=[y - r * x],
        velocity_constraints=[uy - r.diff(_t) * x - r * ux])
    kane.kanes_equations([me.Particle('p', P, m)], [
        (P, -k * x * N.x - c * (ux * N.x + uy * N.y) - m * g * N.y)])
    return kane, (x, y, ux, uy), {m: 1.0, g: 9.81, k: 100.0, c: 5.0}


def test_equilibrium_on_a_moving_constraint_is_quasi_static():
    """At t = 1 the line y = r x moves (r = 2, r' = 1): at u_x = 0 the
    point has u_y = r' x, so the damper pulls with -c r' x N.y. The
    generalized force along u_x (partial velocity N.x + r N.y) vanishes
    where -k x - c r r' x - m g r = 0, i.e. x = -m g r / (k + c r r')
    = -0.17836 (by hand). All speeds were set to zero instead, which
    violates the velocity constraint: x = -m g r / k = -0.1962, where
    SymPy's own equations give u_x' = -0.12."""
    kane, (x, y, ux, uy), constants = _moving_line()
    m, g, k, c, r, r_dot = 1.0, 9.81, 100.0, 5.0, 2.0, 1.0
    rest = equilibrium(kane, {x: 0.0, y: 0.0}, constants, time=1.0)
    expected = -m * g * r / (k + c * r * r_dot)
    # the search stops at accelerations below 1e-10 (relative, scale
    # m g r / (m (1 + r^2)) ~ 4): x within 1e-10 * 4 / (110 / 5)
    assert rest[x] == pytest.approx(expected, abs=1e-9)
    assert rest[y] == pytest.approx(r * rest[x], abs=1e-12)
    # released there with the speeds the constraint gives, SymPy's own
    # equations (at t = 1) accelerate it not at all
    at_one = {**constants, _t: 1.0}
    rates = _sympy_rates(kane, at_one)
    _, udot = rates([rest[x], rest[y]], [0.0, r_dot * rest[x]])
    assert abs(udot[0]) <= 1e-8


@pytest.mark.parametrize('guess', [(0.0, -2.0), (0.5, -np.sqrt(3.75)),
                                   (-1.2, -1.6)])
def test_equilibrium_of_the_pendulum_with_y_independent(guess):
    """The natural-coordinates pendulum with y independent rests at its
    lowest point (x, y) = (0, -l), where its own dependent block 2x
    vanishes: the search in y failed from every guess, the exact one
    included. The set is chosen as linearize and simulate choose it."""
    kane, (x, y, ux, uy), constants = _natural_pendulum('y')
    rest = equilibrium(kane, {x: guess[0], y: guess[1]}, constants)
    # x'' = -(g/l) x near the bottom: an acceleration residual of 1e-10
    # (relative to the guess's, at most g) is an x of ~1e-10 * l
    assert abs(rest[x]) <= 1e-8
    assert rest[y] == pytest.approx(-2.0, abs=1e-12)


def _loaded_knife_edge():
    """A knife edge at P = (x, y) heading theta (inertia I about P), held
    by a spring -k r_P at P and a torsional spring -k_t theta; its
    dependent speed u_x has the block -sin(theta), zero at theta = 0."""
    x, y, th = me.dynamicsymbols('x y theta')
    ux, uy, w = me.dynamicsymbols('u_x u_y omega')
    m, I, k, kt = sm.symbols('m I k k_t')
    N = me.ReferenceFrame('N')
    B = me.ReferenceFrame('B')
    B.orient_axis(N, N.z, th)
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    kane = me.KanesMethod(
        N, [x, y, th], [uy, w], u_dependent=[ux],
        kd_eqs=[x.diff(_t) - ux, y.diff(_t) - uy, th.diff(_t) - w],
        velocity_constraints=[-sm.sin(th) * ux + sm.cos(th) * uy])
    kane.kanes_equations(
        [me.RigidBody('sled', P, B, m, (me.inertia(B, 0, 0, I), P))],
        [(P, -k * (x * N.x + y * N.y)), (B, -kt * th * N.z)])
    return kane, (x, y, th), {m: 1.0, I: 0.1, k: 10.0, kt: 2.0}


@pytest.mark.parametrize('heading, backend', [(0.0, 'auto'), (0.3, 'auto'),
                                             (0.3, 'numpy')])
def test_equilibrium_of_a_knife_edge_where_its_dependent_block_vanishes(
        heading, backend):
    """At rest the springs balance where they do no work in the motions
    the edge allows (along B.x, and turning): theta = 0 and the spring's
    pull along the edge, -k (x cos theta + y sin theta), is zero. From
    theta = 0 the search raised a bare LinAlgError; from 0.3 it ended at
    theta = 0 with x = 0.296: there the model's independent u_y cannot
    move along the edge, so any x looked balanced."""
    kane, (x, y, th), constants = _loaded_knife_edge()
    rest = equilibrium(kane, {x: 0.4, y: 0.3, th: heading}, constants,
                       backend=backend)
    # accelerations within 1e-10 of those at the guess (k x / m ~ 4):
    # positions within ~1e-10 * 4 / (k / m)
    assert abs(rest[th]) <= 1e-9
    assert abs(rest[x] * np.cos(rest[th])
               + rest[y] * np.sin(rest[th])) <= 1e-9


class TestMessagesNameTheArgument:
    """Issue 35, item 13: the messages of linearize and equilibrium name
    their own arguments."""

    @pytest.mark.parametrize('bad, match', [
        ('nan', r'operating_point\[x\(t\)\] must be finite'),
        ('str', r'operating_point: keys must be'),
        ('unknown', r"operating_point: \['F\(t\)'\] are not coordinates")])
    def test_linearize(self, cart_pendulum, bad, match):
        kane, (x, th, v, w), F, constants = cart_pendulum()
        point = {x: 0.0, th: 0.0, v: 0.0, w: 0.0}
        if bad == 'nan':
            point[x] = np.nan
        elif bad == 'str':
            point['x'] = 0.0
        else:
            point[F] = 0.0
        with pytest.raises((TypeError, ValueError), match=match):
            linearize(kane, point, constants, specified={F: 0.0})

    @pytest.mark.parametrize('bad, match', [
        ('nan', r'guess\[x\(t\)\] must be finite'),
        ('str', r'guess\[x\(t\)\] must be a real number'),
        ('unknown', r"guess: \['F\(t\)'\] are not coordinates")])
    def test_equilibrium(self, cart_pendulum, bad, match):
        kane, (x, th, v, w), F, constants = cart_pendulum()
        guess = {x: 0.0, th: 0.0}
        if bad == 'nan':
            guess[x] = np.nan
        elif bad == 'str':
            guess[x] = 'a'
        else:
            guess[F] = 0.0
        with pytest.raises((TypeError, ValueError), match=match):
            equilibrium(kane, guess, constants, specified={F: 0.0})

    @pytest.mark.parametrize('function', ['linearize', 'equilibrium'])
    def test_singular_mass_matrix(self, cart_pendulum, function):
        kane, (x, th, v, w), F, constants = cart_pendulum()
        massless = {s: (0.0 if s.name in ('m', 'M') else value)
                    for s, value in constants.items()}
        if function == 'linearize':
            call = lambda: linearize(kane, {x: 0.0, th: 0.1, v: 0.0,
                                            w: 0.0}, massless,
                                     specified={F: 0.0})
            where = 'operating_point'
        else:
            call = lambda: equilibrium(kane, {x: 0.0, th: 0.1}, massless,
                                       specified={F: 0.0})
            where = 'guess'
        with pytest.raises(ValueError, match=where + r': the mass matrix '
                           r'is singular at t = 0 \(x = 0, theta = 0.1'):
            call()

    def test_dependent_coordinates_of_a_guess_are_optional(self):
        """As documented: the dependent y is solved from the circle."""
        kane, (x, y, ux, uy), constants = _natural_pendulum('x')
        rest = equilibrium(kane, {x: 0.3}, constants)
        assert abs(rest[x]) <= 1e-8
        assert abs(rest[y]) == pytest.approx(2.0, abs=1e-12)
