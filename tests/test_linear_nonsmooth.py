"""linearize() and equilibrium() of models with piecewise-smooth loads
(issue 35, item 9): Abs, sign, Max, Min, Heaviside and Piecewise are
differentiated where they are smooth, and a linearization on a switch
where the model is not differentiable is refused. References: central
differences of SymPy's own equations (mass_matrix_full, forcing_full,
lambdified), and the Hertz contact's stiffness by hand."""

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import HuntCrossleyContact, equilibrium, linearize

BACKENDS = ['compiled', 'numpy']


def _line(force, mass=2.0):
    """A particle of ``mass`` on the line x, speed v, loaded by
    ``force(x, v, F)`` (F a specified input); returns ``(kane, x, v,
    F)``."""
    x, v, F = me.dynamicsymbols('x v F', real=True)
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x)
    P.set_vel(N, v * N.x)
    kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v])
    kane.kanes_equations([me.Particle('p', P, mass)],
                         [(P, force(x, v, F) * N.x)])
    return kane, x, v, F


def _central_differences(kane, states, inputs, point, values, h=1e-6):
    """``(A, B)`` of ``x' = f(x, r)`` by central differences of SymPy's
    own ``mass_matrix_full \\ forcing_full`` (lambdified with NumPy);
    error O(h^2 f''') plus round-off O(1e-16 |f| / h), some 1e-10 here."""
    args = list(states) + list(inputs)
    mass = sm.lambdify(args, kane.mass_matrix_full, 'numpy')
    forcing = sm.lambdify(args, kane.forcing_full, 'numpy')

    def f(z):
        return np.linalg.solve(np.asarray(mass(*z), float),
                               np.asarray(forcing(*z), float).ravel())
    z0 = np.array([point[s] for s in states] + [values[s] for s in inputs],
                  dtype=float)
    columns = []
    for j in range(len(z0)):
        step = np.zeros(len(z0))
        step[j] = h
        columns.append((f(z0 + step) - f(z0 - step)) / (2 * h))
    J = np.column_stack(columns)
    n = len(states)
    return J[:, :n], J[:, n:]


def _heaviside(backend):
    """Heaviside for the back end: SymEngine's compiled code has none
    (such a model runs on NumPy under 'auto', and backend='compiled'
    refuses it); for 'compiled' the same step as a Piecewise."""
    if backend != 'compiled':
        return sm.Heaviside
    return lambda a: sm.Piecewise((0, a < 0), (1, True))


def _nonsmooth_force(x, v, F, heaviside=sm.Heaviside):
    """Every kind of piecewise-smooth function, none at a switch at the
    test points below."""
    return (-3 * x - 2 * heaviside(x - 1) * (x - 1)**2
            - v * sm.Abs(v) - 0.5 * sm.sign(v) * v**2 * x
            + sm.Max(x, 2 * x - 1, -x) * F - sm.Min(x**2, 1 - x)
            + sm.Piecewise((x**3, x < sm.Rational(1, 2)), (x, True)))


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('xv', [(0.3, 0.7), (1.4, -0.2), (-0.8, 1.1),
                                (0.7, 0.4)])
def test_linearize_piecewise_smooth_loads_matches_central_differences(
        backend, xv):
    """Abs, sign, Max (three arguments), Min, Heaviside and Piecewise in
    one load: A and B equal central differences of SymPy's equations at
    points on every side of their switches (tolerance 1e-7: the
    differences' error, about 1e-10, with room; the entries are O(1-10))."""
    kane, x, v, F = _line(lambda x, v, F: _nonsmooth_force(
        x, v, F, _heaviside(backend)))
    point = {x: xv[0], v: xv[1]}
    lin = linearize(kane, point, {}, inputs=[F], specified={F: 0.6},
                    backend=backend)
    A, B = _central_differences(kane, [x, v], [F], point, {F: 0.6})
    np.testing.assert_allclose(lin.A, A, rtol=0, atol=1e-7)
    np.testing.assert_allclose(lin.B, B, rtol=0, atol=1e-7)


@pytest.mark.parametrize('backend', BACKENDS)
def test_linearize_on_a_switch_where_differentiable(backend):
    """u |u| (drag) and Heaviside(x - 1) (x - 1)^2 are differentiable at
    their switches (u = 0, x = 1), with derivative 0: accepted there, with
    A by hand; the central differences straddle the switches, where the
    second derivatives jump (by 5 and 2): their error is h times that,
    some 1e-6 (tolerance 1e-5)."""
    kane, x, v, F = _line(lambda x, v, F: -4 * x - v * sm.Abs(v)
                          - 5 * _heaviside(backend)(x - 1) * (x - 1)**2)
    point = {x: 1.0, v: 0.0}
    lin = linearize(kane, point, {}, backend=backend)
    A, _ = _central_differences(kane, [x, v], [], point, {})
    np.testing.assert_allclose(lin.A, [[0, 1], [-2, 0]], rtol=0, atol=1e-12)
    np.testing.assert_allclose(lin.A, A, rtol=0, atol=1e-5)


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('force, point, name', [
    (lambda x, v, F: -sm.Abs(x), {'x': 0.0, 'v': 0.3}, r'Abs\(x\(t\)\)'),
    (lambda x, v, F: -sm.Max(x, 1 - x), {'x': 0.5, 'v': 0.0},
     r'Max\(.*x\(t\)'),
    (lambda x, v, F: -sm.Min(x, 1 - x), {'x': 0.5, 'v': 0.0},
     r'Min\(.*x\(t\)'),
    (lambda x, v, F: -2 * sm.Heaviside(x - 1), {'x': 1.0, 'v': 0},
     r'Heaviside\(x\(t\) - 1'),
    (lambda x, v, F: -sm.sign(v) * x, {'x': 0.5, 'v': 1e-17},
     r'sign\(v\(t\)\)'),
    (lambda x, v, F: sm.Piecewise((-x, v < 0), (-2 * x, True)),
     {'x': 0.5, 'v': 0.0}, 'Piecewise'),
])
def test_linearize_refuses_a_kink(backend, force, point, name):
    """On the switch of a function that is not differentiable there (|x|
    at 0, Max and Min where their arguments are equal, a jump of
    Heaviside, sign or Piecewise), linearize() raises ValueError naming
    the function and the operating point (sign(v) at v = 1e-17: within
    round-off of its switch)."""
    if backend == 'compiled' and 'Heaviside' in name:
        backend = 'auto'          # SymEngine compiles no Heaviside
    kane, x, v, F = _line(force)
    point = {x: point['x'], v: point['v']}
    with pytest.raises(ValueError, match=name) as info:
        linearize(kane, point, {}, backend=backend)
    message = str(info.value)
    assert 'not differentiable' in message
    assert f'x = {point[x]:.10g}' in message


def _resting_particle(damping):
    """A particle of mass m on the floor z = 0 through a Hertz contact
    (stiffness k, damping c, exponent 3/2), under gravity."""
    z, w = me.dynamicsymbols('z w', real=True)
    m, g, k, c = sm.symbols('m g k c', positive=True)
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', z * N.z)
    P.set_vel(N, w * N.z)
    contact = HuntCrossleyContact(P, O, N.z, N, stiffness=k, damping=c)
    kane = me.KanesMethod(N, [z], [w], kd_eqs=[z.diff() - w])
    kane.kanes_equations([me.Particle('p', P, m)],
                         contact.to_loads() + [(P, -m * g * N.z)])
    constants = {m: 2.0, g: 9.81, k: 1e6, c: damping}
    return kane, z, w, constants


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('damping', [0.0, 500.0])
def test_hunt_crossley_resting_equilibrium_and_frequency(backend, damping):
    """A particle resting on a Hertz contact: equilibrium() finds the
    penetration d = (m g / k)^(2/3) (k d^(3/2) = m g), and linearize()
    there gives the stiffness k_eff = 3/2 k d^(1/2) and the damping
    c d^(3/2): A = [[0, 1], [-k_eff/m, -c d^(3/2)/m]], vertical frequency
    sqrt(k_eff/m) (by hand; tolerance 1e-9 relative: the equilibrium's
    residual, 1e-10 of m g, moves d by 7e-11 relative)."""
    kane, z, w, constants = _resting_particle(damping)
    m, g, k = 2.0, 9.81, 1e6
    d = (m * g / k) ** (2 / 3)
    found = equilibrium(kane, {z: -0.5 * d}, constants, backend=backend)
    assert found[z] == pytest.approx(-d, rel=1e-9)
    lin = linearize(kane, {z: found[z], w: 0.0}, constants, backend=backend)
    k_eff = 1.5 * k * np.sqrt(d)
    np.testing.assert_allclose(
        lin.A, [[0, 1], [-k_eff / m, -damping * d**1.5 / m]], rtol=1e-9,
        atol=0)
    if damping == 0:
        assert np.allclose(np.abs(lin.eigenvalues().imag),
                           np.sqrt(k_eff / m), rtol=1e-9, atol=0)
    # in free flight the contact adds nothing: A = [[0, 1], [0, 0]]
    lin = linearize(kane, {z: 0.1, w: -1.0}, constants, backend=backend)
    np.testing.assert_array_equal(lin.A, [[0, 1], [0, 0]])


@pytest.mark.parametrize('backend', BACKENDS)
def test_hunt_crossley_at_touchdown_is_refused(backend):
    """At z = 0 with n = 1 (a linear spring-damper contact), the
    stiffness jumps from 0 to k: not differentiable, refused."""
    z, w = me.dynamicsymbols('z w', real=True)
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', z * N.z)
    P.set_vel(N, w * N.z)
    contact = HuntCrossleyContact(P, O, N.z, N, stiffness=100, exponent=1)
    kane = me.KanesMethod(N, [z], [w], kd_eqs=[z.diff() - w])
    kane.kanes_equations([me.Particle('p', P, 1)], contact.to_loads())
    with pytest.raises(ValueError, match=r'Max\(0, -z\(t\)\)'):
        linearize(kane, {z: 0.0, w: 0.0}, {}, backend=backend)


@pytest.mark.parametrize('backend', ['auto', 'numpy'])
def test_equilibrium_with_heaviside_and_abs_loads(backend):
    """m x'' = -4 x + 2 Heaviside(x + 1) - v |v|: the static equilibrium
    beyond the step's switch is x = 1/2 (by hand), and the linear model
    there is A = [[0, 1], [-2, 0]] (m = 2; the drag's derivative is 0 at
    rest). Before: CodegenError / NameError: DiracDelta."""
    kane, x, v, F = _line(lambda x, v, F: -4 * x + 2 * sm.Heaviside(x + 1)
                          - v * sm.Abs(v))
    found = equilibrium(kane, {x: 0.0}, {}, backend=backend)
    assert found[x] == pytest.approx(0.5, abs=1e-12)
    lin = linearize(kane, {x: found[x], v: 0.0}, {}, backend=backend)
    np.testing.assert_allclose(lin.A, [[0, 1], [-2, 0]], rtol=0, atol=1e-12)


@pytest.mark.parametrize('backend', BACKENDS)
def test_contact_with_exponent_below_one_in_free_flight(backend):
    """k max(0, -z)^(1/2): identically zero above the plane, so A has no
    stiffness there (the chain rule alone gives 0 * oo = NaN)."""
    z, w = me.dynamicsymbols('z w', real=True)
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', z * N.z)
    P.set_vel(N, w * N.z)
    contact = HuntCrossleyContact(P, O, N.z, N, stiffness=100, damping=3,
                                  exponent=sm.Rational(1, 2))
    kane = me.KanesMethod(N, [z], [w], kd_eqs=[z.diff() - w])
    kane.kanes_equations([me.Particle('p', P, 1)], contact.to_loads())
    lin = linearize(kane, {z: 0.2, w: -1.0}, {}, backend=backend)
    np.testing.assert_array_equal(lin.A, [[0, 1], [0, 0]])
    # in contact: k_eff = k d^(-1/2)/2 + c w d^(-1/2)/2 ... by differences
    point = {z: -0.01, w: -0.5}
    lin = linearize(kane, point, {}, backend=backend)
    A, _ = _central_differences(kane, [z, w], [], point, {})
    np.testing.assert_allclose(lin.A, A, rtol=1e-7, atol=1e-7)


def test_prepared_model_with_kinks_pickles(line_particle):
    """A Simulation that has linearized a model with Abs pickles, and the
    copy linearizes the same and still refuses the kink."""
    import pickle

    from sympy_loads import Simulation
    s = line_particle(2.0, lambda x, v: -3 * sm.Abs(x) - v * sm.Abs(v))
    simulation = Simulation(s.kane)
    A = simulation.linearize({s.x: 0.5, s.v: 0.1}, {}).A
    copy = pickle.loads(pickle.dumps(simulation))
    np.testing.assert_array_equal(copy.linearize({s.x: 0.5, s.v: 0.1},
                                                 {}).A, A)
    np.testing.assert_allclose(A, [[0, 1], [-1.5, -0.1]], rtol=1e-15)
    with pytest.raises(ValueError, match='Abs'):
        copy.linearize({s.x: 0.0, s.v: 0.0}, {})
