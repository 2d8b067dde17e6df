"""Specified inputs whose time derivatives enter the equations of motion
(issue 35, item 2): an input inside a velocity constraint (its rate enters
the acceleration constraints) or inside the kinematic differential
equations (its rate enters the accelerations). References: the equations
derived by hand below, integrated by SciPy, and central differences of
hand-written rates for ``linearize``."""

from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp

from sympy_loads import linearize, simulate

t = me.dynamicsymbols._t
RTOL, ATOL = 1e-10, 1e-12
# the engine's and SciPy's global errors at these tolerances over one
# second of a pendulum's swing are below 1e-8; 1e-7 leaves a margin and
# is far below the defects tested (an input's rate dropped moves the
# pendulum by 0.4 rad)
TOL = 1e-7
BACKENDS = ['compiled', 'numpy']


def _driven_cart(rate_in_constraint=False):
    """A cart moving along N.y at the prescribed speed ``s(t)`` (the
    velocity constraint ``v - s = 0``, ``v`` dependent) carrying a
    pendulum (angle ``theta`` from the downward N.x, length ``L``).

    By hand: ``y' = s`` and ``L theta'' = -(g sin(theta) + s' cos(theta))``
    (the bob's tangential acceleration ``s' cos(theta) + L theta''``).
    ``rate_in_constraint``: the constraint ``v - s' = 0`` instead."""
    y, th, v, w, s = me.dynamicsymbols('y theta v omega s')
    M, m, L, g = sm.symbols('M m L g', positive=True)
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (th, N.z))
    A.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    C = O.locatenew('C', y * N.y)
    C.set_vel(N, v * N.y)
    P = C.locatenew('P', L * A.x)
    P.v2pt_theory(C, N, A)
    kane = me.KanesMethod(N, [y, th], [w], kd_eqs=[y.diff() - v,
                                                   th.diff() - w],
                          u_dependent=[v], velocity_constraints=[
                              v - (s.diff(t) if rate_in_constraint else s)])
    kane.kanes_equations([me.Particle('cart', C, M),
                          me.Particle('bob', P, m)],
                         [(C, M * g * N.x), (P, m * g * N.x)])
    constants = {M: 2.0, m: 0.5, L: 1.0, g: 9.81}
    return SimpleNamespace(kane=kane, y=y, th=th, v=v, w=w, s=s,
                           constants=constants, L=1.0, g=9.81)


@pytest.fixture(scope='module')
def cart():
    return _driven_cart()


def _cart_reference(model, s, sdot, t1=1.0, theta0=0.0):
    """``(y, theta, omega)`` at ``t1`` from the hand-derived equations."""
    L, g = model.L, model.g

    def f(t_, z):
        _, th, w = z
        return [s(t_), w, -(g * np.sin(th) + sdot(t_) * np.cos(th)) / L]
    sol = solve_ivp(f, (0.0, t1), [0.0, theta0, 0.0], method='DOP853',
                    rtol=1e-13, atol=1e-14)
    return sol.y[:, -1]


def _run_cart(model, value, backend, extra=None):
    ic = {model.y: 0.0, model.th: 0.0, model.w: 0.0, model.v: 0.0}
    r = simulate(model.kane, (0.0, 1.0), ic, model.constants,
                 specified={model.s: value, **(extra or {})}, rtol=RTOL,
                 atol=ATOL, backend=backend)
    assert r.success, r.message
    return np.array([r.q[-1, 0], r.q[-1, 1], r.u[-1, 0]]), r


class TestInputInVelocityConstraint:

    @pytest.mark.parametrize('backend', BACKENDS)
    def test_ramp_expression_swings_the_pendulum(self, cart, backend):
        # s = 2t: the cart accelerates at 2 m/s^2, the pendulum swings back
        got, r = _run_cart(cart, 2 * t, backend)
        ref = _cart_reference(cart, lambda t_: 2 * t_, lambda t_: 2.0)
        assert ref[1] < -0.3                    # the reference swings
        np.testing.assert_allclose(got, ref, atol=TOL)
        # the cart's speed is the prescribed one at every sample
        np.testing.assert_allclose(r.u[:, 1], 2 * r.t, atol=1e-12)

    @pytest.mark.parametrize('backend', BACKENDS)
    def test_callable_rate_by_central_difference(self, cart, backend):
        # the rate of a callable f(t) is its central difference (error
        # ~1e-10 relative, see the simulate() docstring)
        got, _ = _run_cart(cart, lambda t_: np.sin(3 * t_), backend)
        ref = _cart_reference(cart, lambda t_: np.sin(3 * t_),
                              lambda t_: 3 * np.cos(3 * t_))
        np.testing.assert_allclose(got, ref, atol=TOL)

    @pytest.mark.parametrize('backend', BACKENDS)
    def test_callable_with_given_rate(self, cart, backend):
        calls = []

        def rate(t_):
            calls.append(t_)
            return 3 * np.cos(3 * t_)
        got, _ = _run_cart(cart, lambda t_: np.sin(3 * t_), backend,
                           {cart.s.diff(t): rate})
        ref = _cart_reference(cart, lambda t_: np.sin(3 * t_),
                              lambda t_: 3 * np.cos(3 * t_))
        np.testing.assert_allclose(got, ref, atol=TOL)
        assert calls                            # the given rate was used

    def test_expression_of_the_state(self, cart):
        # s = sin(theta) + t: its rate is cos(theta) omega + 1, compiled
        got, _ = _run_cart(cart, sm.sin(cart.th) + t, 'compiled')
        L, g = cart.L, cart.g

        def f(t_, z):
            _, th, w = z
            sdot = np.cos(th) * w + 1.0
            return [np.sin(th) + t_, w,
                    -(g * np.sin(th) + sdot * np.cos(th)) / L]
        ref = solve_ivp(f, (0.0, 1.0), [0.0, 0.0, 0.0], method='DOP853',
                        rtol=1e-13, atol=1e-14).y[:, -1]
        np.testing.assert_allclose(got, ref, atol=TOL)

    def test_number_has_zero_rate(self, cart):
        got, _ = _run_cart(cart, 1.5, 'compiled')
        np.testing.assert_allclose(got, [1.5, 0.0, 0.0], atol=1e-9)

    def test_state_feedback_callable_is_refused(self, cart):
        with pytest.raises(ValueError,
                           match=r"specified\[s\(t\)\].*velocity "
                           r'constraints'):
            _run_cart(cart, lambda t_, q, u: q[1], 'compiled')

    def test_expression_of_speeds_is_refused(self, cart):
        with pytest.raises(ValueError, match=r'specified\[s\(t\)\].*omega'):
            _run_cart(cart, cart.w, 'compiled')

    @pytest.mark.parametrize('backend', BACKENDS)
    def test_linearize_input_column(self, cart, backend):
        # states (y, theta, omega): y' = s, theta' = omega, and omega'
        # depends on the rate of s only: B = [1, 0, 0]; the rate's column
        # is [0, 0, -cos(theta)/L]
        th0 = 0.3
        lin = linearize(cart.kane, {cart.y: 0.0, cart.th: th0,
                                    cart.w: 0.0}, cart.constants,
                        inputs=[cart.s, cart.s.diff(t)],
                        specified={cart.s: 0.0}, backend=backend)
        assert lin.states == (cart.y, cart.th, cart.w)
        np.testing.assert_allclose(lin.B[:, 0], [1.0, 0.0, 0.0],
                                   atol=1e-12)
        np.testing.assert_allclose(lin.B[:, 1],
                                   [0.0, 0.0, -np.cos(th0) / cart.L],
                                   atol=1e-12)


def _sled():
    """A Chaplygin sled (knife edge at its mass center, position ``x,
    y``, heading ``theta``) whose side slip is prescribed: the velocity
    constraint ``-sin(theta) u_x + cos(theta) u_y = s`` with ``u_y``
    dependent."""
    x, y, th, ux, uy, w, s = me.dynamicsymbols('x y theta u_x u_y omega s')
    m, I = sm.symbols('m I', positive=True)
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', (th, N.z))
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    body = me.RigidBody('sled', P, B, m, (me.inertia(B, 0, 0, I), P))
    kane = me.KanesMethod(
        N, [x, y, th], [ux, w],
        kd_eqs=[x.diff() - ux, y.diff() - uy, th.diff() - w],
        u_dependent=[uy],
        velocity_constraints=[-sm.sin(th) * ux + sm.cos(th) * uy - s])
    kane.kanes_equations([body], [])
    return SimpleNamespace(kane=kane, x=x, y=y, th=th, ux=ux, uy=uy, w=w,
                           s=s, constants={m: 1.5, I: 0.2})


def _sled_rates(z, s, sdot):
    """By hand: the rates of ``(x, y, theta, u_x, omega)``. The constraint
    force is along the blade's normal ``e = (-sin, cos)``, so ``u' = l e``
    with ``e . u' = s' + omega (cos u_x + sin u_y)`` (the constraint's
    time derivative); ``u_y = (s + sin u_x) / cos``."""
    _, _, th, ux, w = z
    c, sn = np.cos(th), np.sin(th)
    uy = (s + sn * ux) / c
    lam = sdot + w * (c * ux + sn * uy)
    return np.array([ux, uy, w, -sn * lam, 0.0])


@pytest.mark.parametrize('backend', BACKENDS)
def test_sled_linearize_matches_central_differences(backend):
    sled = _sled()
    z0 = np.array([0.2, -0.1, 0.4, 0.7, 0.9])
    lin = linearize(sled.kane, {sled.x: z0[0], sled.y: z0[1],
                                sled.th: z0[2], sled.ux: z0[3],
                                sled.w: z0[4]}, sled.constants,
                    inputs=[sled.s, sled.s.diff(t)],
                    specified={sled.s: 0.0}, backend=backend)
    assert lin.states == (sled.x, sled.y, sled.th, sled.ux, sled.w)
    # the hand value of the issue: y' = u_y has d/ds = 1/cos(theta)
    assert lin.B[1, 0] == pytest.approx(1 / np.cos(z0[2]), abs=1e-12)
    h = 1e-6
    # central differences: error h^2/6 |f'''| ~ 1e-12 plus round-off
    # eps/h ~ 1e-10
    B = np.column_stack([
        (_sled_rates(z0, h, 0.0) - _sled_rates(z0, -h, 0.0)) / (2 * h),
        (_sled_rates(z0, 0.0, h) - _sled_rates(z0, 0.0, -h)) / (2 * h)])
    A = np.column_stack([
        (_sled_rates(z0 + e, 0.0, 0.0) - _sled_rates(z0 - e, 0.0, 0.0))
        / (2 * h) for e in np.eye(5) * h])
    np.testing.assert_allclose(lin.B, B, atol=1e-8)
    np.testing.assert_allclose(lin.A, A, atol=1e-8)


@pytest.mark.parametrize('backend', BACKENDS)
def test_sled_simulation_with_slip(backend):
    sled = _sled()
    z0 = np.array([0.0, 0.0, 0.4, 0.7, 0.9])
    s_of_t = (lambda t_: 0.3 * np.sin(2 * t_),
              lambda t_: 0.6 * np.cos(2 * t_))
    ref = solve_ivp(lambda t_, z: _sled_rates(z, s_of_t[0](t_),
                                              s_of_t[1](t_)),
                    (0.0, 1.0), z0, method='DOP853', rtol=1e-13,
                    atol=1e-14).y[:, -1]
    r = simulate(sled.kane, (0.0, 1.0),
                 {sled.x: 0.0, sled.y: 0.0, sled.th: z0[2], sled.ux: z0[3],
                  sled.w: z0[4]}, sled.constants,
                 specified={sled.s: 0.3 * sm.sin(2 * t)}, rtol=RTOL,
                 atol=ATOL, backend=backend)
    assert r.success, r.message
    got = np.concatenate([r.q[-1], r.u[-1, :2]])
    np.testing.assert_allclose(got, ref, atol=TOL)


def _belt_particle():
    """A particle on a belt moving at ``s(t)``: its position ``x`` has
    ``x' = v + s`` (``v`` the speed relative to the belt), held by a
    spring ``k``: by hand ``m x'' = -k x``, so ``v' = -k x/m - s'``."""
    x, v, s = me.dynamicsymbols('x v s')
    m, k = sm.symbols('m k', positive=True)
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x)
    kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v - s])
    P.set_vel(N, (v + s) * N.x)
    kane.kanes_equations([me.Particle('p', P, m)], [(P, -k * x * N.x)])
    return SimpleNamespace(kane=kane, x=x, v=v, s=s,
                           constants={m: 2.0, k: 8.0})


@pytest.mark.parametrize('backend', BACKENDS)
def test_input_in_kinematic_equations(backend):
    belt = _belt_particle()
    r = simulate(belt.kane, (0.0, 1.0), {belt.x: 0.1, belt.v: 0.0},
                 belt.constants, specified={belt.s: sm.sin(3 * t)},
                 rtol=RTOL, atol=ATOL, backend=backend)
    assert r.success, r.message
    # x'' = -4 x, x(0) = 0.1, x'(0) = v + s = 0: x = 0.1 cos 2t
    np.testing.assert_allclose(r.q[:, 0], 0.1 * np.cos(2 * r.t), atol=TOL)
    np.testing.assert_allclose(r.u[:, 0] + np.sin(3 * r.t),
                               -0.2 * np.sin(2 * r.t), atol=TOL)


def test_input_in_configuration_constraint_is_refused():
    # a coordinate driven by an input through a configuration constraint
    # would need the input's first and second rates in the velocity and
    # acceleration constraints: refused, naming the input and the remedy
    q1, q2, u1, u2, s = me.dynamicsymbols('q1 q2 u1 u2 s')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', q1 * N.x + q2 * N.y)
    P.set_vel(N, u1 * N.x + u2 * N.y)
    kane = me.KanesMethod(N, [q1], [u1], kd_eqs=[q1.diff() - u1,
                                                 q2.diff() - u2],
                          q_dependent=[q2],
                          configuration_constraints=[q2 - s],
                          u_dependent=[u2],
                          velocity_constraints=[u2 - s.diff(t)])
    kane.kanes_equations([me.Particle('p', P, 1)], [(P, -N.y)])
    with pytest.raises(ValueError, match=r"holonomic constraints.*\['s\(t\)'\]"
                       r".*expression of time"):
        simulate(kane, (0, 1), {q1: 0.0, q2: 0.0, u1: 0.0}, {},
                 specified={s: 0.0})


def test_rate_inside_a_velocity_constraint_is_refused():
    # v - s' = 0 would need s'' in the acceleration constraint
    model = _driven_cart(rate_in_constraint=True)
    s, kane = model.s, model.kane
    with pytest.raises(ValueError, match=r"velocity constraints contain "
                       r"the time derivatives of the specified inputs "
                       r"\['Derivative\(s\(t\), t\)'\].*second"):
        simulate(kane, (0, 1), {model.y: 0.0, model.th: 0.0, model.w: 0.0},
                 model.constants, specified={s: 0.0})


def _sympy_reference(kane, s, s_of_t, x0, constants, t1=1.0):
    """The state ``[q, u]`` at ``t1`` from SymPy's own
    ``mass_matrix_full``/``forcing_full`` (which hold the input's rate
    through the acceleration constraints), lambdified and integrated by
    SciPy: a reference that shares no code with the engine."""
    values, rate = sm.symbols('_s _sd')
    states = list(kane.q) + list(kane.u)
    plain = sm.symbols(f'_x0:{len(states)}')
    subs = {s.diff(t): rate, s: values, **dict(zip(states, plain))}
    M = kane.mass_matrix_full.xreplace(constants).xreplace(subs)
    F = kane.forcing_full.xreplace(constants).xreplace(subs)
    mass = sm.lambdify((t, plain, values, rate), M, 'numpy')
    force = sm.lambdify((t, plain, values, rate), F, 'numpy')

    def f(t_, x):
        args = (t_, x, s_of_t[0](t_), s_of_t[1](t_))
        return np.linalg.solve(mass(*args), force(*args).ravel())
    return solve_ivp(f, (0.0, t1), x0, method='DOP853', rtol=1e-13,
                     atol=1e-14).y[:, -1]


@pytest.mark.parametrize('backend', BACKENDS)
def test_sled_against_sympys_own_equations(backend):
    sled = _sled()
    s_of_t = (lambda t_: 0.3 * np.sin(2 * t_),
              lambda t_: 0.6 * np.cos(2 * t_))
    th0, ux0, w0 = 0.4, 0.7, 0.9
    uy0 = (s_of_t[0](0.0) + np.sin(th0) * ux0) / np.cos(th0)
    # states [x, y, theta, u_x, omega, u_y] in kane's order
    ref = _sympy_reference(sled.kane, sled.s, s_of_t,
                           [0.0, 0.0, th0, ux0, w0, uy0], sled.constants)
    r = simulate(sled.kane, (0.0, 1.0),
                 {sled.x: 0.0, sled.y: 0.0, sled.th: th0, sled.ux: ux0,
                  sled.w: w0}, sled.constants,
                 specified={sled.s: lambda t_: 0.3 * np.sin(2 * t_)},
                 rtol=RTOL, atol=ATOL, backend=backend)
    assert r.success, r.message
    np.testing.assert_allclose(np.concatenate([r.q[-1], r.u[-1]]), ref,
                               atol=TOL)


@pytest.mark.parametrize('backend', BACKENDS)
def test_support_moved_at_a_prescribed_speed_in_a_constrained_model(
        backend):
    # a pendulum hung from a point C moved at s(t) (no coordinate: C's
    # velocity is set), beside a particle with a velocity constraint (so
    # the engine derives the unconstrained equations): by hand
    # L theta'' = -(g sin(theta) + s' cos(theta)) as for the driven cart
    th, w, x, z, ux, uz, s = me.dynamicsymbols('theta omega x z u_x u_z s')
    m, L, g = sm.symbols('m L g', positive=True)
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (th, N.z))
    A.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    C = me.Point('C')
    C.set_vel(N, s * N.y)
    P = C.locatenew('P', L * A.x)
    P.v2pt_theory(C, N, A)
    Q = O.locatenew('Q', x * N.x + z * N.z)
    Q.set_vel(N, ux * N.x + uz * N.z)
    kane = me.KanesMethod(N, [th, x, z], [w, ux], u_dependent=[uz],
                          velocity_constraints=[uz - ux],
                          kd_eqs=[th.diff() - w, x.diff() - ux,
                                  z.diff() - uz])
    kane.kanes_equations([me.Particle('p', P, m), me.Particle('q', Q, m)],
                         [(P, m * g * N.x)])
    r = simulate(kane, (0.0, 1.0), {th: 0.0, w: 0.0, x: 0.0, z: 0.0,
                                    ux: 0.0}, {m: 0.5, L: 1.0, g: 9.81},
                 specified={s: 2 * t}, rtol=RTOL, atol=ATOL,
                 backend=backend)
    assert r.success, r.message
    ref = _cart_reference(SimpleNamespace(L=1.0, g=9.81),
                          lambda t_: 2 * t_, lambda t_: 2.0)
    np.testing.assert_allclose([r.q[-1, 0], r.u[-1, 0]], ref[1:], atol=TOL)


def test_state_feedback_whose_rate_is_needed_is_refused_unless_given():
    belt = _belt_particle()
    run = dict(t_span=(0.0, 1.0), initial_conditions={belt.x: 0.1,
                                                      belt.v: 0.0},
               constants=belt.constants, rtol=RTOL, atol=ATOL)
    feedback = {belt.s: lambda t_, q, u: np.sin(3 * t_)}
    with pytest.raises(ValueError, match=r"specified\[s\(t\)\]: the "
                       r"equations need the time derivative.*"
                       r"specified\[Derivative\(s\(t\), t\)\]"):
        simulate(belt.kane, specified=feedback, **run)
    # with its rate given, the run is the closed form's
    feedback[belt.s.diff(t)] = lambda t_: 3 * np.cos(3 * t_)
    r = simulate(belt.kane, specified=feedback, **run)
    assert r.success, r.message
    np.testing.assert_allclose(r.q[:, 0], 0.1 * np.cos(2 * r.t), atol=TOL)


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('kind', ['expression', 'callable'])
def test_sled_with_slip_through_a_partition_change(backend, kind):
    # the heading passes pi/2 at t ~ 1.3 s, where the model's dependent
    # speed u_y (block cos(theta)) cannot be solved for: the engine takes
    # u_x instead, and the input's rate must enter the new partition's
    # accelerations too. Reference: every speed integrated, the
    # constraint force along the blade's normal e, u' = l e with l = s' +
    # omega (cos u_x + sin u_y) (no singular block)
    sled = _sled()
    s_of_t = (lambda t_: 0.3 * np.sin(2 * t_),
              lambda t_: 0.6 * np.cos(2 * t_))
    th0, ux0, w0 = 0.4, 0.7, 0.9

    def f(t_, z):
        _, _, th, ux, uy, w = z
        lam = s_of_t[1](t_) + w * (np.cos(th) * ux + np.sin(th) * uy)
        return [ux, uy, w, -np.sin(th) * lam, np.cos(th) * lam, 0.0]
    uy0 = (s_of_t[0](0.0) + np.sin(th0) * ux0) / np.cos(th0)
    ref = solve_ivp(f, (0.0, 2.5), [0.0, 0.0, th0, ux0, uy0, w0],
                    method='DOP853', rtol=1e-13, atol=1e-14).y[:, -1]
    value = 0.3 * sm.sin(2 * t) if kind == 'expression' else s_of_t[0]
    r = simulate(sled.kane, (0.0, 2.5),
                 {sled.x: 0.0, sled.y: 0.0, sled.th: th0, sled.ux: ux0,
                  sled.w: w0}, sled.constants, specified={sled.s: value},
                 rtol=RTOL, atol=ATOL, backend=backend)
    assert r.success, r.message
    # the first change takes u_x as dependent before the heading reaches
    # pi/2 (at t ~ 1.3 s); the engine may change back once cos(theta) is
    # the better pivot again (heading past 3 pi/4 ... within its
    # hysteresis), never before
    first = r.partitions[0]
    assert sled.uy in first.speeds and sled.ux not in first.speeds
    assert np.pi / 4 < th0 + w0 * first.time <= np.pi / 2
    for change in r.partitions[1:]:
        heading = th0 + w0 * change.time
        assert abs(np.cos(heading)) > abs(np.sin(heading))
    # kane's order: u_x, omega, u_y
    got = np.concatenate([r.q[-1], r.u[-1]])
    np.testing.assert_allclose(got, ref[[0, 1, 2, 3, 5, 4]], atol=TOL)
