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


def _circle_pendulum(independent):
    """A unit-mass point on a circle of radius 1 under gravity, with
    ``independent`` ('x' or 'y') as the independent coordinate."""
    x, y, ux, uy = me.dynamicsymbols('x y u_x u_y')
    g = sm.Symbol('g')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    (qi, ui), (qd, ud) = (((x, ux), (y, uy)) if independent == 'x'
                          else ((y, uy), (x, ux)))
    kane = me.KanesMethod(
        N, [qi], [ui], kd_eqs=[x.diff() - ux, y.diff() - uy],
        q_dependent=[qd], u_dependent=[ud],
        configuration_constraints=[x ** 2 + y ** 2 - 1],
        velocity_constraints=[x * ux + y * uy])
    kane.kanes_equations([me.Particle('p', P, 1)], [(P, -g * N.y)])
    return kane, (x, y, ux, uy), g


def test_singular_dependent_block_switches_the_independent_set():
    # at x = 1, y = 0 the model's dependent coordinate y cannot follow x
    # (d phi / dy = 2 y = 0): the linearization uses y and u_y instead,
    # and equals that of the same model written with y independent
    kane, (x, y, ux, uy), g = _circle_pendulum('x')
    point = {x: 1.0, y: 0.0, ux: 0.0, uy: 0.3}
    lin = linearize(kane, point, {g: 9.81})
    assert lin.states == (y, uy)
    other, _, g2 = _circle_pendulum('y')
    reference = linearize(other, point, {g2: 9.81})
    assert reference.states == (y, uy)
    assert np.max(np.abs(lin.A - reference.A)) <= 1e-12 * np.max(
        np.abs(reference.A))
