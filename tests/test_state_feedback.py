"""State feedback in simulate(): specified inputs given as callables
f(t, q, u) or as SymPy expressions of the state, with LQR gains from
sympy_loads.linearize (scipy.linalg.solve_continuous_are)."""

import gc
import warnings

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy import linalg
from scipy.integrate import solve_ivp

from sympy_loads import Simulation, simulate
from sympy_loads._simulation.numeric_model import (OUTPUT_CACHE_SIZE,
                                                   NumericModel)
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


def _pendulum_with_torque():
    """A unit point mass on a massless rod of unit length (angle theta
    from the lowest position), driven by the specified torque T:
    theta'' = -g sin(theta) + T. Returns ``(kane, theta, omega, T, g)``."""
    th, w, T = me.dynamicsymbols('theta omega T')
    g = sm.Symbol('g')
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (th, N.z))
    A.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', -A.y)
    P.v2pt_theory(O, N, A)
    kane = me.KanesMethod(N, [th], [w], kd_eqs=[th.diff() - w])
    kane.kanes_equations([me.Particle('p', P, 1)],
                         [(P, -g * N.y), (A, T * N.z)])
    return kane, th, w, T, g


class TestFeedbackExpressionsOfEveryKind:

    @pytest.mark.parametrize('backend', ['auto', 'numpy'])
    def test_a_relay_symengine_cannot_compile_runs_on_numpy(self, backend):
        """T = k Heaviside(theta) (a relay SymEngine cannot compile, as a
        Heaviside in the model's own loads): the run falls back to NumPy,
        as the model does, and says so. With k = 20 > g the torque
        overcomes gravity and theta stays positive from 0.1, so the
        reference is theta'' = -g sin(theta) + k, integrated by SciPy."""
        kane, th, w, T, g = _pendulum_with_torque()
        k = sm.Symbol('k')
        constants = {g: 9.81, k: 20.0}
        times = np.linspace(0.0, 1.0, 6)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            result = simulate(kane, (0, 1), {th: 0.1, w: 0.0}, constants,
                              specified={T: k * sm.Heaviside(th)},
                              backend=backend, t_eval=times, rtol=RTOL,
                              atol=ATOL)
        reference = solve_ivp(
            lambda t, y: [y[1], -9.81 * np.sin(y[0]) + 20.0], (0, 1),
            [0.1, 0.0], t_eval=times, rtol=1e-12, atol=1e-14).y
        assert result.success and result.q[:, 0].min() > 0
        np.testing.assert_allclose(result.q[:, 0], reference[0], rtol=0,
                                   atol=1e-7)
        np.testing.assert_allclose(result.u[:, 0], reference[1], rtol=0,
                                   atol=1e-7)
        assert result.backend == 'numpy'
        fell_back = [w for w in caught if 'NumPy' in str(w.message)]
        if backend == 'numpy' or Simulation(kane).backend == 'numpy':
            assert not fell_back
        else:
            assert len(fell_back) == 1
            assert 'specified[T(t)]' in str(fell_back[0].message)

    @pytest.mark.parametrize('backend', ['auto', 'numpy'])
    @pytest.mark.parametrize('term', ['theta(0)', 'omega(1)', 'f(k)',
                                      'Subs(theta(t)**2, t, 0)'])
    def test_a_function_at_another_argument_than_t_is_refused(self, backend,
                                                              term):
        """theta(0) is not the state: a feedback expression holding it
        is refused, naming the input and the term."""
        kane, th, w, T, g = _pendulum_with_torque()
        k, t = sm.Symbol('k'), me.dynamicsymbols._t
        namespace = {'theta': th.func, 'omega': w.func, 'k': k, 't': t,
                     'f': sm.Function('f'), 'Subs': sm.Subs}
        expression = -k * th + eval(term, namespace)
        shown = str(eval(term, namespace)).replace('(', r'\(').replace(
            ')', r'\)').replace('*', r'\*')
        with pytest.raises(ValueError, match=r'specified\[T\(t\)\].*'
                                             + shown):
            simulate(kane, (0, 1), {th: 0.1, w: 0.0}, {g: 9.81, k: 2.0},
                     specified={T: expression}, backend=backend)


def _model_of(obj, kane):
    """Whether ``obj`` (any object the garbage collector tracks) is a
    numeric model of ``kane``."""
    try:
        return isinstance(obj, NumericModel) and obj.kane is kane
    except ReferenceError:   # a weakref.proxy whose referent is gone
        return False


class TestGainSweeps:

    def test_a_sweep_over_gains_keeps_a_bounded_number_of_variants(self):
        """Each new gain compiles a variant of the equations; a sweep over
        many keeps at most OUTPUT_CACHE_SIZE of them alive (the model's
        cache of derived code), and no variant carries a cache of its
        own holding earlier ones."""
        kane, th, w, T, g = _pendulum_with_torque()
        k = sm.Symbol('k')
        simulation = Simulation(kane)
        base = simulation._nm
        for gain in np.linspace(1.0, 10.0, 3 * OUTPUT_CACHE_SIZE):
            result = simulation.run((0, 0.2), {th: 0.1, w: 0.0},
                                    {g: 9.81, k: float(gain)},
                                    specified={T: -k * th}, t_eval=[0.2],
                                    rtol=RTOL, atol=ATOL)
            # a check that each run is its own gain's: small angles,
            # theta'' = -(g + k) theta
            assert result.q[-1, 0] == pytest.approx(
                0.1 * np.cos(np.sqrt(9.81 + gain) * 0.2), rel=1e-2)
        gc.collect()
        alive = [o for o in gc.get_objects() if _model_of(o, kane)]
        assert base in alive
        assert len(alive) <= 1 + OUTPUT_CACHE_SIZE
        variants = [v for v in base._variants.values()
                    if isinstance(v, NumericModel)]
        assert 0 < len(variants) <= OUTPUT_CACHE_SIZE
        # the variants have a cache of their own: the sweep evicted
        # nothing else derived from the model (its constraint solver, ...)
        assert not any(isinstance(v, NumericModel)
                       for v in base._derived.values())
        for variant in variants:
            assert not any(isinstance(v, NumericModel) and v not in variants
                           for v in variant._variants.values())


def test_a_relay_on_a_closed_chain_runs_on_numpy_with_partition_changes(
        circle_particle):
    """A particle on a circle of unit radius written in (x, y) with
    x**2 + y**2 = 1, under gravity and a horizontal relay force
    F = k Heaviside(y + 2) (always k on the circle): the NumPy variant
    made for the relay integrates the constrained model, changing the
    partition where the particle passes y = 0 (x dependent there), and
    conserves the energy (v**2/2 + g y - k x, the force being constant)
    to the integration tolerance."""
    model = circle_particle()
    kane, x, y, vx, vy, F, g = (model.kane, model.x, model.y, model.vx,
                                model.vy, model.F, model.g)
    k = sm.Symbol('k')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)
        result = simulate(kane, (0, 1), {x: 0.3, y: -0.95, vx: 6.0, vy: 0.0},
                          {g: 9.81, k: 3.0},
                          specified={F: k * sm.Heaviside(y + 2)},
                          t_eval=np.linspace(0, 1, 21), rtol=RTOL,
                          atol=ATOL)
    assert result.success and result.backend == 'numpy'
    assert len(result.partitions) >= 1
    (xs, ys), (us, ws) = result.q.T, result.u.T
    energy = (us**2 + ws**2) / 2 + 9.81 * ys - 3.0 * xs
    assert np.ptp(energy) <= 1e-6 * np.abs(energy).max()
    assert np.max(np.abs(xs**2 + ys**2 - 1)) <= 1e-10
