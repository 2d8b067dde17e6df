"""State feedback in simulate(): specified inputs given as callables
f(t, q, u) or as SymPy expressions of the state, with LQR gains from
sympy_loads.linearize (scipy.linalg.solve_continuous_are)."""

import numpy as np
import pytest
import sympy as sm
from scipy import linalg

from sympy_loads import Simulation, simulate
from sympy_loads.examples._whipple import bicycle_initial_conditions

RTOL, ATOL = 1e-10, 1e-12


@pytest.fixture(scope='module')
def cart(cart_pendulum):
    """The cart with an inverted pendulum, pushed by F, with the LQR gain
    of its linearization about the upright position."""
    kane, (x, th, v, w), F, constants = cart_pendulum()
    simulation = Simulation(kane, outputs={'force': F})
    lin = simulation.linearize({x: 0.0, th: 0.0, v: 0.0, w: 0.0}, constants,
                               inputs=[F], specified={F: 0.0})
    Q = np.diag([10.0, 10.0, 1.0, 1.0])
    S = linalg.solve_continuous_are(lin.A, lin.B, Q, np.eye(1))
    K = lin.B.T @ S
    return dict(kane=kane, states=(x, th, v, w), F=F, constants=constants,
                simulation=simulation, lin=lin, K=K)


def _callable(K):
    return lambda t, q, u: -float(K[0] @ np.concatenate([q, u]))


def _expression(K, states):
    return -sum(float(k) * s for k, s in zip(K[0], states))


class TestCartPendulumLQR:

    def test_upright_is_unstable_and_the_gain_stabilizes_it(self, cart):
        assert np.max(cart['lin'].eigenvalues().real) > 0
        closed = np.linalg.eigvals(cart['lin'].A - cart['lin'].B @ cart['K'])
        assert np.max(closed.real) < 0

    @pytest.mark.parametrize('form', ['callable', 'expression'])
    def test_small_motion_follows_the_closed_loop_linear_model(self, cart,
                                                               form):
        x, th, v, w = cart['states']
        K, lin = cart['K'], cart['lin']
        law = (_callable(K) if form == 'callable'
               else _expression(K, cart['states']))
        times = np.linspace(0.0, 4.0, 41)
        closed = lin.A - lin.B @ K
        errors = []
        for angle in (1e-3, 5e-4):
            result = cart['simulation'].run(
                (0, 4), {x: 0.0, th: angle, v: 0.0, w: 0.0},
                cart['constants'], specified={cart['F']: law},
                t_eval=times, rtol=RTOL, atol=ATOL)
            linear = np.array([linalg.expm(closed * t) @ [0, angle, 0, 0]
                               for t in times])
            state = np.hstack([result.q, result.u])
            errors.append(np.max(np.abs(state - linear)))
            # the feedback's value is what the outputs see
            force = -(state @ K[0])
            assert np.max(np.abs(result.outputs['force'] - force)) <= \
                1e-12 * np.max(np.abs(force))
        # the difference is the remainder of the linearization, cubic here
        # (the equations are odd in the state about the upright position):
        # an eighth when the amplitude is halved
        assert errors[0] <= 1e-2 * 1e-3
        assert errors[1] / errors[0] == pytest.approx(0.125, abs=0.02)

    def test_large_angle_is_caught_by_both_forms_alike(self, cart):
        x, th, v, w = cart['states']
        start = {x: 0.0, th: 0.3, v: 0.0, w: 0.0}
        runs = {}
        for form, law in (('callable', _callable(cart['K'])),
                          ('expression', _expression(cart['K'],
                                                     cart['states']))):
            runs[form] = cart['simulation'].run(
                (0, 10), start, cart['constants'],
                specified={cart['F']: law}, rtol=RTOL, atol=ATOL)
        a, b = runs['callable'], runs['expression']
        assert a.success and b.success
        # balanced: from 0.3 rad to the upright position at rest
        assert np.max(np.abs(np.hstack([a.q[-1], a.u[-1]]))) <= 1e-3
        # the same closed loop, integrated to RTOL twice
        assert np.max(np.abs(a.q[-1] - b.q[-1])) <= 100 * RTOL
        without = cart['simulation'].run((0, 3), start, cart['constants'],
                                         specified={cart['F']: 0.0})
        assert np.max(np.abs(without.q[:, 1])) > 1.0      # it falls

    @pytest.mark.parametrize('form', ['callable', 'expression'])
    def test_numpy_back_end_agrees(self, cart, form):
        x, th, v, w = cart['states']
        law = (_callable(cart['K']) if form == 'callable'
               else _expression(cart['K'], cart['states']))
        start = {x: 0.1, th: 0.2, v: 0.0, w: 0.0}
        runs = [simulate(cart['kane'], (0, 2), start, cart['constants'],
                         specified={cart['F']: law}, backend=backend,
                         t_eval=[0.5, 1.0, 1.5, 2.0], rtol=RTOL, atol=ATOL)
                for backend in ('compiled', 'numpy')]
        assert runs[1].backend == 'numpy'
        # two integrations (different step sequences) of a stable closed
        # loop, each with a global error of a few RTOL per unit of time
        assert np.max(np.abs(runs[0].q - runs[1].q)) <= 1000 * RTOL

    def test_expression_may_use_the_model_constants(self, cart):
        x, th, v, w = cart['states']
        m, M, l, g = sm.symbols('m M l g')
        # the inverted pendulum stays at rest relative to the cart when the
        # whole accelerates towards its lean at g tan(theta) (theta > 0
        # leans towards -x): F = -(M + m) g tan(theta)
        law = -(M + m) * g * sm.tan(th)
        angle = 0.2
        result = cart['simulation'].run(
            (0, 1), {x: 0.0, th: angle, v: 0.0, w: 0.0}, cart['constants'],
            specified={cart['F']: law}, rtol=RTOL, atol=ATOL)
        assert np.max(np.abs(result.q[:, 1] - angle)) <= 1e-8


class TestBicycleSteerControl:
    """The Whipple bicycle at 2 m/s, below the weave speed: unstable; an
    LQR steer torque on roll and steer balances it."""

    SPEED = 2.0

    @pytest.fixture(scope='class')
    @classmethod
    def bike(cls, whipple_with_steer_torque):
        model = whipple_with_steer_torque
        T = model.steer_torque
        lin = model.simulation.linearize(
            bicycle_initial_conditions(model, cls.SPEED), model.constants,
            inputs=[T], specified={T: 0.0})
        names = [str(s) for s in lin.states]
        rows = [names.index(n) for n in ('q2(t)', 'q5(t)', 'u2(t)',
                                         'u5(t)')]
        A, B = lin.A[np.ix_(rows, rows)], lin.B[rows]
        S = linalg.solve_continuous_are(A, B, np.eye(4), np.eye(1))
        K = B.T @ S
        return dict(model=model, A=A, B=B, K=K)

    def test_open_loop_is_unstable_closed_loop_is_not(self, bike):
        assert np.max(np.linalg.eigvals(bike['A']).real) > 2.0
        closed = np.linalg.eigvals(bike['A'] - bike['B'] @ bike['K'])
        assert np.max(closed.real) < -1.0

    def test_steer_torque_balances_the_bicycle(self, bike):
        model, K = bike['model'], bike['K']
        q1, q2, q5, q4 = model.kane.q
        u2, u3, u5, u1, u4, u6 = model.kane.u
        start = bicycle_initial_conditions(model, self.SPEED, roll_rate=0.5)
        laws = {
            'callable': lambda t, q, u: -float(
                K[0] @ [q[1], q[2], u[0], u[2]]),
            'expression': -(K[0, 0] * q2 + K[0, 1] * q5 + K[0, 2] * u2
                            + K[0, 3] * u5)}
        finals = []
        for law in laws.values():
            result = model.simulation.run(
                (0, 5), start, model.constants,
                specified={model.steer_torque: law})
            assert result.success
            # the slowest closed-loop mode decays as exp(-2.65 t): from the
            # kick's ~0.1 rad to ~1e-7 rad in 5 s
            assert abs(result.q[-1, 1]) <= 1e-4          # roll
            assert abs(result.q[-1, 2]) <= 1e-4          # steer
            assert np.max(np.abs(result.q[:, 1])) <= 0.3
            # still riding: the wheel rate is about the start's
            assert result.u[-1, 1] == pytest.approx(
                self.SPEED / model.rear_radius, rel=0.05)
            finals.append(result.q[-1])
        assert np.max(np.abs(finals[0] - finals[1])) <= 1e-6


class TestArguments:

    def test_a_callable_of_two_arguments_is_refused(self, cart):
        x, th, v, w = cart['states']
        with pytest.raises(TypeError, match=r'f\(t\) or f\(t, q, u\)'):
            cart['simulation'].run((0, 1), {x: 0, th: 0, v: 0, w: 0},
                                   cart['constants'],
                                   specified={cart['F']: lambda t, q: 0.0})

    def test_a_gain_is_a_constant_of_the_run(self, cart):
        """A constant of the feedback that the equations do not have (a
        gain) takes its value from constants: the run equals the one with
        the number written in, and a run without it lists it as
        missing."""
        x, th, v, w = cart['states']
        gain = sm.Symbol('k_p')
        start = {x: 0, th: 0.05, v: 0, w: 0}
        with pytest.raises(ValueError, match=r'missing constants: \[k_p\]'):
            cart['simulation'].run((0, 1), start, cart['constants'],
                                   specified={cart['F']: -gain * th})
        runs = [cart['simulation'].run(
            (0, 1), start, {**cart['constants'], gain: value},
            specified={cart['F']: -gain * th}, t_eval=[0.5, 1.0],
            rtol=RTOL, atol=ATOL) for value in (40.0, 80.0)]
        written = cart['simulation'].run(
            (0, 1), start, cart['constants'],
            specified={cart['F']: -80.0 * th}, t_eval=[0.5, 1.0],
            rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(runs[1].y, written.y, rtol=1e-12,
                                   atol=1e-14)
        assert not np.allclose(runs[0].y, runs[1].y, rtol=1e-3)

    def test_function_of_time_is_still_a_function_of_time(self, cart):
        x, th, v, w = cart['states']
        result = cart['simulation'].run(
            (0, 1), {x: 0, th: 0, v: 0, w: 0}, cart['constants'],
            specified={cart['F']: lambda t: 2.5}, t_eval=[1.0],
            rtol=RTOL, atol=ATOL)
        # the outputs report the force given
        assert result.outputs['force'][-1] == 2.5

    def test_a_failing_feedback_names_the_input(self, cart):
        x, th, v, w = cart['states']
        with pytest.raises(Exception, match=r'F\(t\)'):
            cart['simulation'].run(
                (0, 1), {x: 0, th: 0.1, v: 0, w: 0}, cart['constants'],
                specified={cart['F']: lambda t, q, u: float('nan')})
