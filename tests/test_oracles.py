"""Oracles over generated models (issue 35).

The models come from the seeded builders of ``tests/_generated_models.py``
(open and closed chains, velocity constraints, specified inputs inside the
loads, the kinematics and the constraints, non-smooth loads, names like
the code generators' internals, models formed again after a change). Each
is checked against references that share no code with the engine:

(a) SymPy's own ``mass_matrix_full`` and ``forcing_full``, lambdified
    (``sympy.lambdify``, NumPy) and integrated over all coordinates and
    speeds by SciPy's ``solve_ivp`` (DOP853, rtol = atol = 1e-12) from a
    consistent initial state solved here, over a short span;
(b) central differences of that right-hand side along the constraints
    for :func:`sympy_loads.linearize`'s A and B;
(c) the energy balance (dE/dt equal to the power of the non-conservative
    loads);
(d) closed forms (the small-angle pendulum, the knife edge on its circle,
    the cart driven at a prescribed speed).

By default a bounded set of seeds runs (well under a minute); the
Hypothesis sweep over the same builders is marked ``sweep`` and runs with
``pytest -m sweep`` (``ORACLE_EXAMPLES`` sets its number of examples).

Cases that meet a defect of issue 35 known on today's code are marked
``xfail(strict=True)`` with the item's number, so each turns into a
failure when its fix lands; the oracle itself is never weakened.
"""

import os

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import integrate, linalg

import _generated_models as gm
from sympy_loads import equilibrium, linearize, simulate

TIME = me.dynamicsymbols._t
BACKENDS = ['auto', 'numpy']

# Tolerances of the trajectory comparison (oracle a). The reference runs
# at REF_TOL, simulate() at SIM_TOL. DOP853 controls the error per step;
# over a span T the global error of each is at most about
# C tol (exp(Lambda T) - 1) / (Lambda T) (Hairer, Norsett, Wanner, Solving
# ODE I, sec. II.3, Thm 3.4), with Lambda the Lipschitz constant of the
# right-hand side and C the controller's safety (10..100 in practice). The
# generated constants keep Lambda T <= ~2.5 over the 0.5 s spans of the
# comparisons with SymPy (longer spans only for neutral motions, the
# knife edge's circle and small swings, where errors grow linearly), so
# the growth factor is <= ~10. The engine controls the error of the
# independent coordinates only; the dependent ones carry it amplified by
# the dependent block's conditioning, which the engine keeps below 1e2 (it
# changes partition at a ratio of 1e-2). The bound is therefore SIM_TOL *
# 1e2 (conditioning) * 1e2 (C) * 10 (growth) = 1e5 * SIM_TOL, relative to
# max(1, |y|): 1e-5 (the runs show 1e-10..1e-9). A stale equation or a
# dropped input moves the state by 1e-2 or more.
SIM_TOL = 1e-10
REF_TOL = 1e-12
COMPARE = 1e5 * SIM_TOL


# ---------------------------------------------------------------------------
# The oracle: SymPy's equations, lambdified and integrated by SciPy

def _inputs_as_time_functions(expression, specified):
    """``expression`` with each specified input replaced by its
    expression (of time, and of q and u for feedback) and the inputs'
    time derivatives evaluated from those expressions."""
    if not specified:
        return expression
    replaced = expression.xreplace(specified)
    return replaced.replace(lambda e: isinstance(e, sm.Derivative),
                            lambda e: e.doit())


def _inputs_as_parameters(expression, parameters):
    """``expression`` with each input replaced by its parameter symbol
    and its rate by zero (linearize's operating values are numbers)."""
    rates = {s.diff(TIME): 0 for s in parameters}
    return expression.xreplace(rates).xreplace(parameters)


def _clamp_fractional_powers(matrix):
    """``b**e`` for a non-integer ``e`` as ``max(b, 0)**e``: the models'
    fractional powers (Hunt-Crossley's d**1.5) are of quantities that are
    non-negative by their mathematics, which round-off can push to -1e-16
    (a NaN); a truly negative base would be NaN in real numbers anyway."""
    return matrix.replace(
        lambda e: (e.is_Pow and e.exp.is_number and not e.exp.is_integer
                   and not e.base.is_number),
        lambda e: sm.Max(e.base, 0) ** e.exp)


class Reference:
    """SymPy's ``mass_matrix_full``/``forcing_full`` of a generated model
    as NumPy functions of ``(t, y)``, y = [q, u] in the model's order,
    with its configuration and velocity constraints. With ``inputs=None``
    the specified inputs are their expressions of time (and state);
    with a list of inputs, those are numbers set by :meth:`set_inputs`
    (their rates zero), as in linearize()."""

    def __init__(self, gen, inputs=None):
        kane = gen.kane
        self.gen = gen
        q, u = list(kane.q), list(kane.u)
        self.q, self.u = q, u
        ys = sm.symbols(f'y0:{len(q) + len(u)}')
        tau = sm.Symbol('tau')
        ps = sm.symbols(f'p0:{len(inputs or ())}')
        self.inputs = list(inputs or ())
        self.input_values = np.zeros(len(ps))
        to_plain = dict(zip(q + u, ys))
        to_plain[TIME] = tau
        numbers = {s: sm.Float(v) for s, v in gen.constants.items()}

        def prepare(matrix):
            matrix = sm.Matrix(matrix)
            if inputs is None:
                matrix = _inputs_as_time_functions(matrix, gen.specified)
            else:
                matrix = _inputs_as_parameters(matrix,
                                               dict(zip(self.inputs, ps)))
            return _clamp_fractional_powers(
                matrix.xreplace(numbers).xreplace(to_plain))

        M, F = kane.mass_matrix_full, kane.forcing_full
        # a reaction brought into evidence by auxiliary speeds may be left
        # in SymPy's forcing with a coefficient that is zero only after
        # simplification: checked, then set to 0
        reactions = gen.extra.get('reactions', ())
        for reaction in reactions:
            assert sm.simplify(F.diff(reaction)) == sm.zeros(*F.shape)
        F = F.xreplace({reaction: 0 for reaction in reactions})
        M, F = prepare(M), prepare(F)
        leftover = (M.free_symbols | F.free_symbols) - set(ys) - set(ps) \
            - {tau}
        assert not leftover, f'oracle: unset symbols {leftover}'
        args = (tau, ys, ps)
        self._mf = sm.lambdify(args, [M, F], 'numpy', cse=True)
        holonomic = prepare(gen.holonomic or sm.zeros(0, 1))
        velocity = prepare(gen.velocity or sm.zeros(0, 1))
        yq, yu = sm.Matrix(ys[:len(q)]), sm.Matrix(ys[len(q):])
        self._h = sm.lambdify(args, [holonomic, holonomic.jacobian(yq)],
                              'numpy')
        # the velocity constraints are linear in u: K(q, t) u = -k(q, t)
        K = velocity.jacobian(yu)
        rest = velocity.xreplace({s: 0 for s in yu})
        self._v = sm.lambdify(args, [K, rest], 'numpy')

    def rhs(self, t, y):
        M, F = self._mf(t, y, self.input_values)
        return linalg.solve(np.asarray(M, float),
                            np.asarray(F, float).ravel())

    def assemble(self, t, q, u, free_q, free_u):
        """The state on the constraints: the coordinates of ``free_q``
        (indices) kept and the others solved by Newton-Raphson from their
        values in ``q``; the speeds of ``free_u`` kept and the others
        solved from the velocity constraints."""
        y = np.concatenate([q, u]).astype(float)
        nq = len(self.q)
        solve_q = [i for i in range(nq) if i not in free_q]
        for _ in range(60):
            h, J = self._h(t, y, self.input_values)
            h = np.asarray(h, float).ravel()
            if not h.size or not solve_q:
                break
            step = linalg.lstsq(np.asarray(J, float)[:, solve_q], h)[0]
            y[solve_q] -= step
            # converged when the step is at round-off of the coordinates
            if np.max(np.abs(step)) <= 1e-15 * max(1.0, np.max(np.abs(y))):
                break
        else:
            raise AssertionError(f'oracle: no assembly, residual {h}')
        K, rest = self._v(t, y, self.input_values)
        K, rest = np.asarray(K, float), np.asarray(rest, float).ravel()
        solve_u = [i for i in range(len(self.u)) if i not in free_u]
        if K.size and solve_u:
            known = [i for i in range(len(self.u)) if i in free_u]
            rhs = -(rest + K[:, known] @ y[nq:][known])
            y[nq + np.array(solve_u)] = linalg.solve(K[:, solve_u], rhs)
        return y

    def initial_state(self, t0=0.0):
        """The consistent state at ``t0`` from the generated model's
        initial values (the model's independent coordinates and speeds
        kept)."""
        gen = self.gen
        q0 = np.array([gen.initial.get(s, 0.0) for s in self.q], float)
        u0 = np.array([gen.initial.get(s, 0.0) for s in self.u], float)
        free_q = [self.q.index(s) for s in gen.q_ind]
        free_u = [self.u.index(s) for s in gen.u_ind]
        return self.assemble(t0, q0, u0, free_q, free_u)

    def integrate(self, t_eval, y0=None):
        y0 = self.initial_state(t_eval[0]) if y0 is None else y0
        solution = integrate.solve_ivp(
            self.rhs, (t_eval[0], t_eval[-1]), y0, method='DOP853',
            t_eval=t_eval, rtol=REF_TOL, atol=REF_TOL)
        assert solution.success, solution.message
        return solution.y.T


def _simulate(gen, t_eval, backend, **options):
    options.setdefault('rtol', SIM_TOL)
    options.setdefault('atol', SIM_TOL)
    result = simulate(gen.model, (t_eval[0], t_eval[-1]), gen.initial,
                      gen.constants, specified=gen.specified or None,
                      t_eval=t_eval, backend=backend, **options)
    assert result.success, result.message
    return result


def assert_matches_sympy(gen, backend, span=0.5, samples=11, start=0.0,
                         **options):
    """Oracle (a): simulate() against SymPy's equations integrated by
    SciPy (see COMPARE for the tolerance), from ``start`` over ``span``
    (negative: backward in time)."""
    t_eval = np.linspace(start, start + span, samples)
    reference = Reference(gen).integrate(t_eval)
    result = _simulate(gen, t_eval, backend, **options)
    error = np.abs(result.y - reference)
    scale = np.maximum(1.0, np.abs(reference))
    worst = np.unravel_index(np.argmax(error / scale), error.shape)
    names = [str(s) for s in list(gen.kane.q) + list(gen.kane.u)]
    assert np.all(error <= COMPARE * scale), (
        f'{gen.name}: {names[worst[1]]} at t = {t_eval[worst[0]]:.3g} is '
        f'{result.y[worst]:.10g}, SymPy + SciPy give '
        f'{reference[worst]:.10g}')
    return result, reference


# ---------------------------------------------------------------------------
# The generated cases

def _xfail(item, why, raises=AssertionError):
    """Strict: the case fails today for the reason of issue 35's item
    ``item``, and turns into a failure when its fix lands (then the lead
    removes the mark). ``raises`` is what today's code does, so that any
    other outcome (a clear refusal, another error) is reported."""
    return pytest.mark.xfail(strict=True, raises=raises,
                             reason=f'issue 35 item {item}: {why}')


def _case(builder, *args, marks=(), **kwargs):
    """A pytest parameter that builds its model when the test runs (so
    collection stays cheap), with an id naming the model."""
    words = [builder.__name__] + [str(a) for a in args] + [
        f'{v}' for v in kwargs.values()]
    return pytest.param((builder, args, kwargs), id='-'.join(words),
                        marks=marks)


def _build(case):
    builder, args, kwargs = case
    return builder(*args, **kwargs)


# Open and closed chains, velocity constraints, inputs, non-smooth loads
# and internal names: simulate() on both back ends against SymPy + SciPy.
TRAJECTORY_CASES = [
    _case(gm.chain, 1, n=1, body='particle'),
    _case(gm.chain, 2, n=2, body='rigid', spatial=True),
    _case(gm.chain, 3, n=3, body='particle', names='internal',
          loads=('abs', 'max')),
    _case(gm.chain, 4, n=4, body='rigid', formulation='system',
          damping=True),
    _case(gm.chain, 5, n=2, body='rigid', spatial=True,
          formulation='system', loads=('heaviside', 'sign')),
    _case(gm.four_bar, 6, body='rigid', damping=True),
    _case(gm.slider_crank, 7),
    _case(gm.circle_pendulum, 8, independent='y', names='internal'),
    _case(gm.circle_pendulum, 9, independent='x', support='explicit',
          formulation='system'),
    _case(gm.sled, 10, offset=True, dependent='u_x', damping=True),
    _case(gm.relay_oscillator, 11, law='sign', names='internal'),
    _case(gm.relay_oscillator, 12, law='max'),
]

# Inputs inside the velocity constraints: supported with their rates, or
# refused with a message naming the input; never dropped.
INPUT_IN_CONSTRAINT_CASES = [
    _case(gm.cart_at_prescribed_speed, 20, profile='ramp'),
    _case(gm.sled, 21, offset=True, slip='sine'),
    _case(gm.circle_pendulum, 22, support='specified'),
    _case(gm.conveyor, 23),
]


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('case', TRAJECTORY_CASES)
def test_simulate_matches_sympy_and_scipy(case, backend):
    assert_matches_sympy(_build(case), backend)


@pytest.mark.parametrize('case, start, span', [
    ((gm.circle_pendulum, (17,), dict(independent='y', support='explicit')),
     1.2, -0.5),
    ((gm.sled, (18,), dict(offset=True, dependent='u_y')), 0.7, 0.5),
    ((gm.four_bar, (19,), dict(body='particle')), 0.5, -0.5)],
    ids=['circle_pendulum-explicit-backward', 'sled-from-0.7',
         'four_bar-backward'])
def test_simulate_from_another_start_and_backward(case, start, span):
    """Time-dependent constraints from t0 != 0, and runs backward in
    time, against SymPy + SciPy run the same way."""
    assert_matches_sympy(_build(case), 'auto', span=span, start=start)


# Symbols named as Python keywords, NumPy and SymPy objects and the code
# generators' internals, also colliding with each other (an input and a
# constant both named in1, a coordinate and a constant both named q)
NAMES = [('x', 'v', 'F', ('pi', 'E', 'I')),
         ('lambda', 'def', 'F', ('sqrt', 'numpy', 'exp')),
         ('in0', 'in1', '_in0', ('in1', 'x0', '_in1')),
         ('q', 'cse0', 'x0', ('q', '_Dummy_12', 'tau'))]


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('names', NAMES, ids=lambda n: '-'.join(
    [n[0], n[1], n[2], *n[3]]))
def test_symbols_named_like_internals(names, backend):
    assert_matches_sympy(gm.named_line(20, names), backend)


@pytest.mark.parametrize('case', INPUT_IN_CONSTRAINT_CASES)
def test_inputs_in_constraints_and_kinematics_are_used_or_refused(case):
    """An input in the velocity constraints (or in the kinematic
    differential equations, or in time-dependent configuration
    constraints) changes the accelerations through its rate: simulate()
    either follows SymPy's equations, whose acceleration-level rows
    hold that rate, or refuses the model naming the input."""
    gen = _build(case)
    names = [str(s) for s in gen.specified]
    try:
        assert_matches_sympy(gen, 'auto')
    except ValueError as error:
        message = str(error)
        assert any(name in message for name in names), message


@pytest.mark.parametrize('law', [
    'sign', 'abs', 'max',
    'heaviside'])
def test_feedback_with_a_switch_runs_on_the_default_back_end(law):
    """A state-feedback input with a switch, compiled into the right-hand
    side: SymEngine may not compile it, the model then runs on NumPy (as
    a model whose loads SymEngine cannot compile does), and it follows
    SymPy's equations either way."""
    assert_matches_sympy(gm.relay_oscillator(13, law=law), 'auto')


@pytest.mark.parametrize('backend', [
    'numpy',
    'auto'])
def test_block_dropped_on_its_corner(backend):
    """A tilted block in free flight lands on its corner (the library's
    Hunt-Crossley contact): simulate() follows SymPy's equations through
    the flight and the first 0.1 s of contact. The contact is stiff, so
    both run with an implicit method."""
    gen = gm.block_drop(14)
    assert_matches_sympy(gen, backend, span=0.35, samples=15,
                         method='Radau')


@pytest.mark.parametrize('constrained', [False, True])
def test_auxiliary_speeds_are_simulated_or_refused(constrained):
    """SymPy's auxiliary speeds bring a reaction (here the rod's tension
    R) into evidence; R is in the loads but not in the equations of
    motion (with constraints, SymPy's reduced equations keep it with a
    coefficient that is zero only after simplification). simulate()
    follows SymPy's equations without a value for R."""
    gen = gm.auxiliary_pendulum(15, constrained=constrained)
    assert_matches_sympy(gen, 'auto')


def test_mistyped_velocity_constraint_is_refused_or_harmless():
    """The pendulum in natural coordinates with its velocity constraint
    mistyped (x u_x - y u_y instead of x u_x + y u_y): simulate() refuses
    it naming the velocity constraints, or (were it to repair it) the
    returned motion keeps the energy, as the true pendulum does. It used
    to return success=True with the energy changed by 2.2 J."""
    gen = gm.circle_pendulum(17, independent='x', mistyped=True)
    t_eval = np.linspace(0.0, 1.0, 101)
    try:
        result = _simulate(gen, t_eval, 'auto')
    except ValueError as error:
        assert 'velocity' in str(error), str(error)
        return
    right = gm.circle_pendulum(17, independent='x')
    energy = _lambdified(right, right.energy)(result.y)
    assert np.ptp(energy) <= COMPARE * max(1.0, np.abs(energy).max())


# ---------------------------------------------------------------------------
# Oracle (b): linearize() against central differences of SymPy's equations

#: Central-difference step, relative to max(1, |x|), Richardson-
#: extrapolated from the steps h and h/2: ``(4 D(h/2) - D(h))/3`` cancels
#: the h**2 term, leaving h**4/480 |f'''''| <= 2e-8 for fifth derivatives
#: up to 1e15. Plain central differences (h**2/6 |f'''|) were not enough
#: near the edge of a model's dependent block, where the derivatives grow
#: as powers of 1/ratio: the circle pendulum of seed 134 (ratio 0.106)
#: has |f'''| ~ 1e8, an error of 1.7e-3 at h = 1e-5 against 4e-8
#: extrapolated. Round-off 3 eps |f| / h <= 7e-9 for |f| <= 1e2, the
#: oracle's Newton tolerance 3e-15 / h = 3e-10: LINEAR_TOL = 1e-6 of the
#: largest entry is a margin of 30 over their sum.
STEP = 1e-5
LINEAR_TOL = 1e-6


def _central_differences(gen, point, states, inputs, values, time):
    """A, B of the independent rates (the states that linearize() chose,
    ``states``) with respect to those states and the ``inputs``, by
    central differences of SymPy's equations along the constraints."""
    reference = Reference(gen, inputs=list(values))
    q, u = reference.q, reference.u
    reference.input_values = np.array([values[s] for s in values], float)
    q0 = np.array([point.get(s, 0.0) for s in q], float)
    u0 = np.array([point.get(s, 0.0) for s in u], float)
    # the operating point on the constraints, its values of linearize()'s
    # independent set kept (points at the edge of the model's dependent
    # block are given whole and consistent, so either set gives them)
    free_q = [q.index(s) for s in states if s in q]
    free_u = [u.index(s) for s in states if s in u]
    base = reference.assemble(time, q0, u0, free_q, free_u)
    columns = free_q + [len(q) + i for i in free_u]

    def rates(x, r):
        y = base.copy()
        y[columns] = x
        reference.input_values = r
        y = reference.assemble(time, y[:len(q)], y[len(q):], free_q, free_u)
        return reference.rhs(time, y)[columns]

    x0 = base[columns]
    r0 = np.array([values[s] for s in values], float)
    where = [list(values).index(s) for s in inputs]

    def difference(function, at, i, h):
        plus, minus = at.copy(), at.copy()
        plus[i] += h
        minus[i] -= h
        return (function(plus) - function(minus)) / (2 * h)

    def jacobian(function, at, indices):
        out = np.zeros((len(columns), len(indices)))
        for j, i in enumerate(indices):
            h = STEP * max(1.0, abs(at[i]))
            out[:, j] = (4 * difference(function, at, i, h / 2)
                         - difference(function, at, i, h)) / 3
        return out

    A = jacobian(lambda x: rates(x, r0), x0, range(len(x0)))
    B = jacobian(lambda r: rates(x0, r), r0, where)
    return A, B


def assert_linearization_matches(gen, point, inputs=(), values=None,
                                 time=0.0, backend='auto', oracle=None):
    """linearize() of ``gen`` at ``point`` against central differences.
    ``oracle``: the same model written with the independent set that is
    well conditioned at ``point`` (SymPy's own equations divide by the
    model's dependent block, useless where it vanishes); linearize() must
    then have chosen that set."""
    values = dict(values or {})
    lin = linearize(gen.model, point, gen.constants, inputs=list(inputs),
                    specified=values or None, time=time, backend=backend)
    if oracle is not None:
        expected = tuple(oracle.q_ind) + tuple(oracle.u_ind)
        assert set(lin.states) == set(expected), (
            f'{gen.name}: linearize() chose {lin.states}, the well '
            f'conditioned set is {expected}')
    A, B = _central_differences(oracle or gen, point, lin.states,
                                list(inputs), values, time)
    scale = max(1.0, np.max(np.abs(A), initial=0.0),
                np.max(np.abs(B), initial=0.0))
    assert np.max(np.abs(lin.A - A), initial=0.0) <= LINEAR_TOL * scale, (
        f'{gen.name}: A =\n{lin.A}\ncentral differences:\n{A}\n'
        f'states {lin.states}')
    assert np.max(np.abs(lin.B - B), initial=0.0) <= LINEAR_TOL * scale, (
        f'{gen.name}: B = {lin.B.ravel()}, central differences: '
        f'{B.ravel()}, states {lin.states}')
    return lin


def _moving_point(gen, seed):
    """The model's initial values with new random speeds: an operating
    point that is a motion, not an equilibrium."""
    rng = np.random.default_rng(seed)
    point = dict(gen.initial)
    point.update({s: float(rng.uniform(-1, 1)) for s in gen.u_ind})
    return point


LINEAR_CASES = [
    _case(gm.chain, 31, n=3, body='rigid', spatial=True),
    _case(gm.chain, 32, n=2, body='rigid', formulation='system',
          damping=True),
    _case(gm.four_bar, 33, body='particle'),
    _case(gm.slider_crank, 34),
    _case(gm.circle_pendulum, 35, independent='y'),
    _case(gm.circle_pendulum, 36, independent='x', support='explicit'),
    _case(gm.sled, 37, offset=True, damping=True),
    _case(gm.chain, 38, n=2, body='particle', loads=('sign', 'heaviside')),
    _case(gm.chain, 39, n=2, body='particle', loads=('abs', 'max')),
]


@pytest.mark.parametrize('case', LINEAR_CASES)
def test_linearize_matches_central_differences(case):
    gen = _build(case)
    assert_linearization_matches(gen, _moving_point(gen, 1))


@pytest.mark.parametrize('backend', BACKENDS)
def test_linearize_with_an_input_in_the_loads(backend):
    """B of an input force, named like an internal (and a constant named
    like the input), with the state in the force too."""
    gen = gm.named_line(44, NAMES[2])
    (force,) = gen.specified
    assert_linearization_matches(gen, _moving_point(gen, 4), inputs=[force],
                                 values={force: 0.3}, backend=backend)


@pytest.mark.parametrize('time', [0.0, 0.7])
@pytest.mark.parametrize('independent', ['x', 'y'])
def test_linearize_with_a_moving_support_at_a_time(independent, time):
    """The pendulum whose support moves as A sin(w t) (time in the
    constraints), 0.8 rad from hanging below the support's position at
    ``time``, its independent speed 0.3 (away from the blocks' zeros,
    where central differences lose their accuracy)."""
    gen = gm.circle_pendulum(45, independent=independent,
                             support='explicit')
    values = {s.name: v for s, v in gen.constants.items()}
    support = values['A'] * np.sin(values['omega'] * time)
    x, y = gen.extra['x'], gen.extra['y']
    point = {x: support + values['L'] * np.sin(0.8),
             y: -values['L'] * np.cos(0.8), gen.u_ind[0]: 0.3}
    assert_linearization_matches(gen, point, time=time)


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('case', [
    _case(gm.cart_at_prescribed_speed, 40),
    _case(gm.sled, 41, offset=False, slip='ramp')])
def test_linearize_with_an_input_in_the_velocity_constraints(case, backend):
    """B of the cart driven at s(t) is [1, 0, 0] (x' = s); that of the
    sled with a prescribed side slip s has d(y')/ds = 1/cos(theta)."""
    gen = _build(case)
    (s,) = gen.specified
    assert_linearization_matches(gen, _moving_point(gen, 2), inputs=[s],
                                 values={s: 0.7}, backend=backend)


# Edges of the dependent blocks: a pendulum in natural coordinates with
# the bob horizontal (the dependent y's block 2y = 2 L cos(pi/2) is
# 1e-16, not 0) or hanging 1e-9 off the vertical with y independent (the
# dependent x's block is 2e-9); the sled heading along N.y (u_y's block
# cos(pi/2) = 6e-17).
@pytest.mark.parametrize('independent, angle', [
    ('x', np.pi / 2),
    ('y', 1e-9),
    ('x', 0.0), ('y', 0.0), ('x', 1e-9), ('y', np.pi / 2)])
def test_linearize_at_the_edge_of_the_dependent_block(independent, angle):
    gen = gm.circle_pendulum(42, independent=independent)
    L = gen.constants[gen.extra['L']]
    x, y = gen.extra['x'], gen.extra['y']
    start = {x: L * np.sin(angle), y: -L * np.cos(angle)}
    point = {**start, gen.extra['ux']: 0.0, gen.extra['uy']: 0.0}
    # the dependent coordinate is the one with the larger partial
    # derivative of the constraint, 2x or 2y
    well = 'x' if abs(np.cos(angle)) >= abs(np.sin(angle)) else 'y'
    oracle = gm.circle_pendulum(42, independent=well)
    assert_linearization_matches(gen, point, oracle=oracle)


def test_linearize_the_sled_heading_along_its_singular_direction():
    """Heading along N.y at 1.7 m/s, the model's dependent u_y cannot be
    solved from u_x (its block is cos(pi/2) = 6e-17): the point is given
    whole (u_x = 0 as the constraint demands) and the linear model must
    be that of the moving sled, not of the sled at rest."""
    gen = gm.sled(43, offset=True, dependent='u_y')
    x, y, th = gen.q
    point = {x: 0.0, y: 0.0, th: np.pi / 2, gen.extra['ux']: 0.0,
             gen.extra['uy']: 1.7, gen.extra['omega']: 0.3}
    oracle = gm.sled(43, offset=True, dependent='u_x')
    assert_linearization_matches(gen, point, oracle=oracle)


# ---------------------------------------------------------------------------
# Oracle (c): energy and power balance

def _lambdified(gen, expression):
    """``expression`` of q and u as a NumPy function of the result's
    samples (our own lambdify, constants substituted)."""
    numbers = {s: sm.Float(v) for s, v in gen.constants.items()}
    ys = sm.symbols(f'y0:{len(gen.kane.q) + len(gen.kane.u)}')
    plain = sm.sympify(expression).xreplace(numbers).xreplace(
        dict(zip(list(gen.kane.q) + list(gen.kane.u), ys)))
    function = sm.lambdify([ys], plain, 'numpy')
    return lambda y: np.broadcast_to(function(y.T), (len(y),))


ENERGY_CASES = [
    _case(gm.chain, 51, n=3, body='rigid', spatial=True),
    _case(gm.chain, 52, n=4, body='particle', damping=True,
          names='internal'),
    _case(gm.chain, 53, n=2, body='rigid', formulation='system',
          damping=True),
    _case(gm.four_bar, 54, body='rigid', damping=True),
    _case(gm.slider_crank, 55),
    _case(gm.circle_pendulum, 56, independent='y', formulation='system'),
    _case(gm.sled, 57, offset=True, damping=True, dependent='u_x'),
]


@pytest.mark.parametrize('case', ENERGY_CASES)
def test_energy_changes_by_the_work_of_the_dampers(case):
    """E(t) - E(0) equals the integral of the dampers' power (zero for a
    conservative model). The integral is Simpson's rule on 401 samples
    over 1 s (error <= T h**4 max|P''''| / 180 ~ 1e-12 here); E is
    compared at COMPARE relative to max(1, |E|), the state's own bound."""
    gen = _build(case)
    t_eval = np.linspace(0.0, 1.0, 401)
    result = _simulate(gen, t_eval, 'auto')
    energy = _lambdified(gen, gen.energy)(result.y)
    power = _lambdified(gen, gen.power)(result.y)
    work = integrate.cumulative_simpson(power, x=t_eval, initial=0.0)
    imbalance = np.abs(energy - energy[0] - work)
    assert imbalance.max() <= COMPARE * max(1.0, np.abs(energy).max()), (
        f'{gen.name}: energy off its balance by {imbalance.max():.3g}')


# ---------------------------------------------------------------------------
# Oracle (d): closed forms

@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('independent', ['x', 'y'])
def test_small_swings_of_a_pendulum_in_natural_coordinates(independent,
                                                           backend):
    """Released at 1e-3 rad, the bob follows x = L theta0 cos(w t), w =
    sqrt(g/L), up to the pendulum's nonlinearity: sin differs from its
    argument by theta0**2/6 relatively, the frequency by theta0**2/16
    (so the phase by w t theta0**2/16), the third harmonic has theta0**3
    /192 (Landau and Lifshitz, Mechanics, sec. 28); the integrator adds
    its COMPARE bound. With y independent the model's dependent block 2x
    passes zero at every swing."""
    gen = gm.circle_pendulum(61, independent=independent)
    L = gen.constants[gen.extra['L']]
    g = gen.constants[gen.extra['g']]
    x, y = gen.extra['x'], gen.extra['y']
    theta0 = 1e-3
    start = {x: L * np.sin(theta0), y: -L * np.cos(theta0),
             gen.u_ind[0]: 0.0}
    gen.initial = start
    w = np.sqrt(g / L)
    t_eval = np.linspace(0.0, 2.0, 41)
    result = _simulate(gen, t_eval, backend, atol=1e-14)
    column = list(gen.kane.q).index(x)
    exact = L * theta0 * np.cos(w * t_eval)
    bound = L * theta0 * (theta0 ** 2 * (1 / 6 + w * t_eval[-1] / 16
                                         + 1 / 192)) * 2 + COMPARE * L
    assert np.max(np.abs(result.q[:, column] - exact)) <= bound


@pytest.mark.parametrize('independent', ['x', 'y'])
def test_linear_model_of_the_hanging_pendulum_has_sqrt_g_over_l(
        independent):
    gen = gm.circle_pendulum(62, independent=independent)
    L = gen.constants[gen.extra['L']]
    g = gen.constants[gen.extra['g']]
    x, y = gen.extra['x'], gen.extra['y']
    lin = linearize(gen.model, {x: 0.0, y: -L, gen.extra['ux']: 0.0,
                                gen.extra['uy']: 0.0}, gen.constants)
    frequencies = np.sort(lin.eigenvalues().imag)
    np.testing.assert_allclose(frequencies, [-np.sqrt(g / L),
                                             np.sqrt(g / L)], rtol=1e-10)
    np.testing.assert_allclose(lin.eigenvalues().real, 0.0, atol=1e-10)


@pytest.mark.parametrize('dependent, method', [
    ('u_y', 'DOP853'), ('u_x', 'DOP853'), ('u_y', 'LSODA'),
    ('u_x', 'LSODA'), ('u_y', 'odeint'),
    ('u_x', 'odeint')])
def test_knife_edge_runs_on_its_circle(dependent, method):
    """The sled with its mass centre on the edge, free of loads, keeps
    its speed v along the edge and its turning rate w: the edge runs on
    the circle of radius v/w. Over 6 s it heads through both N.x and N.y,
    where either model's dependent speed has a zero block."""
    gen = gm.sled(71, offset=False, dependent=dependent)
    e = gen.extra
    x0, y0 = gen.initial[e['x']], gen.initial[e['y']]
    heading, v, w = e['heading'], e['speed'], e['turn']
    t_eval = np.linspace(0.0, 6.0, 61)
    result = _simulate(gen, t_eval, 'auto', method=method)
    angle = heading + w * t_eval
    R = v / w
    exact_x = x0 + R * (np.sin(angle) - np.sin(heading))
    exact_y = y0 - R * (np.cos(angle) - np.cos(heading))
    scale = max(1.0, abs(R) + abs(x0) + abs(y0))
    assert np.max(np.abs(result.q[:, 0] - exact_x)) <= COMPARE * scale
    assert np.max(np.abs(result.q[:, 1] - exact_y)) <= COMPARE * scale


@pytest.mark.parametrize('backend', BACKENDS)
def test_cart_accelerated_at_a_constant_rate_carries_its_pendulum_steadily(
        backend):
    """Driven at v = s(t) = b t, the cart moves as x0 + b t**2/2 and the
    pendulum, released at the angle -atan(b/g) where the pseudo-gravity
    of the acceleration holds it, stays there."""
    gen = gm.cart_at_prescribed_speed(81, profile='ramp')
    e = gen.extra
    b = [v for s, v in gen.constants.items() if s.name == 'b'][0]
    g = [v for s, v in gen.constants.items() if s.name == 'g'][0]
    gen.initial[e['theta']] = -np.arctan(b / g)
    gen.initial[e['omega']] = 0.0
    t_eval = np.linspace(0.0, 1.0, 11)
    result = _simulate(gen, t_eval, backend)
    x0 = gen.initial[e['x']]
    np.testing.assert_allclose(result.q[:, 0], x0 + b * t_eval ** 2 / 2,
                               rtol=0, atol=COMPARE * max(1.0, b))
    np.testing.assert_allclose(result.q[:, 1], -np.arctan(b / g), rtol=0,
                               atol=COMPARE)


# ---------------------------------------------------------------------------
# Models formed again after a change

@pytest.mark.parametrize('case', [
    _case(gm.chain, 91, n=2, body='particle'),
    _case(gm.chain, 92, n=2, body='rigid', formulation='system')])
def test_simulate_after_the_equations_are_formed_again(case):
    """The notebook loop: run, change a load, form the equations again on
    the same object, run again: the second run follows the new
    equations."""
    gen = _build(case)
    _simulate(gen, np.linspace(0.0, 0.2, 3), 'auto')
    changed = gm.reform(gen, 93)
    assert_matches_sympy(changed, 'auto')


@pytest.mark.parametrize('case', [
    _case(gm.chain, 94, n=2, body='rigid'),
    _case(gm.chain, 95, n=1, body='rigid', formulation='system')])
def test_linearize_after_the_equations_are_formed_again(case):
    gen = _build(case)
    point = _moving_point(gen, 3)
    linearize(gen.model, point, gen.constants)
    changed = gm.reform(gen, 96)
    assert_linearization_matches(changed, point)


# ---------------------------------------------------------------------------
# Static equilibrium

def _independent_accelerations(gen, rest, time=0.0):
    """SymPy's independent accelerations at the coordinates ``rest`` with
    the independent speeds zero and the dependent ones as the velocity
    constraints demand (all zero where they do not depend on time)."""
    reference = Reference(gen)
    q = np.array([rest[s] for s in reference.q], float)
    y = reference.assemble(time, q, np.zeros(len(reference.u)),
                           list(range(len(q))),
                           [reference.u.index(s) for s in gen.u_ind])
    rates = reference.rhs(time, y)[len(q):]
    return rates[[reference.u.index(s) for s in gen.u_ind]]


def _tilted_chain(seed):
    """A chain pushed sideways (a torque T0 on its first joint, gravity
    turned): its rest is not the hanging position."""
    return gm.reform(gm.chain(seed, n=2, body='rigid',
                              formulation='system'), seed + 1)


@pytest.mark.parametrize('case', [
    _case(gm.four_bar, 111, body='rigid'), _case(gm.slider_crank, 112),
    _case(gm.four_bar, 113, body='particle', damping=True),
    _case(_tilted_chain, 114)])
def test_equilibrium_balances_sympys_equations(case):
    """At the coordinates equilibrium() returns, the configuration
    constraints hold and SymPy's accelerations at rest vanish (relative
    to the accelerations at the guess)."""
    gen = _build(case)
    guess = {s: gen.initial.get(s, 0.0) for s in gen.q}
    rest = equilibrium(gen.model, guess, gen.constants)
    scale = max(1.0, np.max(np.abs(_independent_accelerations(gen,
                                                              guess))))
    assert np.max(np.abs(_independent_accelerations(gen, rest))) <= \
        1e-10 * scale
    reference = Reference(gen)
    y = np.concatenate([[rest[s] for s in reference.q],
                        np.zeros(len(reference.u))])
    residual = np.asarray(reference._h(0.0, y, reference.input_values)[0],
                          float)
    assert np.max(np.abs(residual), initial=0.0) <= 1e-12


# found by this suite, not in issue 35's list: from x = L sin(0.9) on,
# where the model's block 2y is well conditioned, the least-squares step
# takes x past L, the constraint has no solution there and the search
# gives up (EquilibriumError) instead of shortening the step
_FAR_GUESS = pytest.mark.xfail(
    strict=True, raises=Exception,
    reason='found by the oracle suite (not in issue 35): the equilibrium '
    'search steps out of |x| <= L and stops')


@pytest.mark.parametrize('independent, offset', [
    ('x', 0.0), ('x', 0.3), ('x', 0.6),
    pytest.param('x', 1.0, marks=_FAR_GUESS),
    ('y', 0.0), ('y', 0.3)])
def test_equilibrium_of_the_pendulum_in_natural_coordinates(independent,
                                                            offset):
    """From a guess ``offset`` rad off (the exact one included) the bob
    rests hanging, x = 0, y = -L."""
    gen = gm.circle_pendulum(101, independent=independent)
    L = gen.constants[gen.extra['L']]
    x, y = gen.extra['x'], gen.extra['y']
    rest = equilibrium(gen.model, {x: L * np.sin(offset),
                                   y: -L * np.cos(offset)}, gen.constants)
    assert abs(rest[x]) <= 1e-9 * L and abs(rest[y] + L) <= 1e-9 * L


def test_every_configuration_of_a_free_sled_is_an_equilibrium():
    """Heading 0, the model's dependent speed u_x has the block
    -sin(0) = 0 (SymPy's own reduced equations divide by it there): the
    returned rest is checked with the same sled written with u_y
    dependent."""
    gen = gm.sled(102, offset=True, dependent='u_x')
    x, y, th = gen.q
    guess = {x: 0.3, y: -0.2, th: 0.0}
    rest = equilibrium(gen.model, guess, gen.constants)
    oracle = gm.sled(102, offset=True, dependent='u_y')
    assert np.max(np.abs(_independent_accelerations(oracle, rest))) <= 1e-10
    assert all(abs(rest[s] - guess[s]) <= 1e-9 for s in guess)


def test_equilibrium_with_a_moving_support_rests_relative_to_it():
    """The pendulum whose support moves as A sin(w t): at the returned
    coordinates, with the independent speed zero and the dependent one
    as the moving constraint demands, the independent acceleration
    vanishes."""
    gen = gm.circle_pendulum(103, independent='x', support='explicit')
    L = gen.constants[gen.extra['L']]
    x, y = gen.extra['x'], gen.extra['y']
    time = 0.4
    rest = equilibrium(gen.model, {x: 0.1, y: -L}, gen.constants,
                       time=time)
    acceleration = _independent_accelerations(gen, rest, time)
    assert np.max(np.abs(acceleration)) <= 1e-8


# ---------------------------------------------------------------------------
# The sweep: Hypothesis draws models from the same builders (marked
# 'sweep', deselected by default; run with ``pytest -m sweep``,
# ``ORACLE_EXAMPLES=n`` examples, 40 by default)

def _reformed_chain(seed, n, formulation):
    """A chain run once (so that its equations are generated and cached),
    then changed and formed again on the same object."""
    gen = gm.chain(seed, n=n, body='rigid', formulation=formulation)
    _simulate(gen, np.linspace(0.0, 0.1, 2), 'numpy')
    return gm.reform(gen, seed + 1)


_models = st.one_of(
    st.builds(lambda seed, n, body, spatial, system, damping, names, loads:
              (gm.chain, (seed,), dict(
                  n=n, body=body if not system else 'rigid',
                  spatial=spatial,
                  formulation='system' if system else 'kane',
                  damping=damping, names=names, loads=loads)),
              st.integers(0, 10 ** 6), st.integers(1, 4),
              st.sampled_from(['particle', 'rigid']), st.booleans(),
              st.booleans(), st.booleans(),
              st.sampled_from(['plain', 'internal']),
              st.lists(st.sampled_from(['abs', 'max', 'heaviside', 'sign']),
                       max_size=2, unique=True).map(tuple)),
    st.builds(lambda seed, body, damping: (gm.four_bar, (seed,), dict(
        body=body, damping=damping)), st.integers(0, 10 ** 6),
        st.sampled_from(['particle', 'rigid']), st.booleans()),
    st.builds(lambda seed: (gm.slider_crank, (seed,), {}),
              st.integers(0, 10 ** 6)),
    st.builds(lambda seed, ind, support, formulation, names: (
        gm.circle_pendulum, (seed,), dict(
            independent=ind, support=support, formulation=formulation,
            names=names)), st.integers(0, 10 ** 6),
        st.sampled_from(['x', 'y']), st.sampled_from([None, 'explicit']),
        st.sampled_from(['kane', 'system']),
        st.sampled_from(['plain', 'internal'])),
    st.builds(lambda seed, offset, dependent, damping: (gm.sled, (seed,),
              dict(offset=offset, dependent=dependent, damping=damping)),
              st.integers(0, 10 ** 6), st.booleans(),
              st.sampled_from(['u_x', 'u_y']), st.booleans()),
    st.builds(lambda seed, law, names: (gm.relay_oscillator, (seed,), dict(
        law=law, names=names)), st.integers(0, 10 ** 6),
        st.sampled_from(['sign', 'abs', 'max']),
        st.sampled_from(['plain', 'internal'])),
    st.builds(lambda seed, slip, offset: (gm.sled, (seed,), dict(
        slip=slip, offset=offset)), st.integers(0, 10 ** 6),
        st.sampled_from(['ramp', 'sine']), st.booleans()),
    st.builds(lambda seed, profile: (gm.cart_at_prescribed_speed, (seed,),
                                     dict(profile=profile)),
              st.integers(0, 10 ** 6), st.sampled_from(['ramp', 'sine'])),
    st.builds(lambda seed, n, formulation: (_reformed_chain, (seed,), dict(
        n=n, formulation=formulation)), st.integers(0, 10 ** 6),
        st.integers(1, 3), st.sampled_from(['kane', 'system'])),
)

_SWEEP = settings(max_examples=int(os.environ.get('ORACLE_EXAMPLES', 40)),
                  deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))


@pytest.mark.sweep
@_SWEEP
@given(case=_models, backend=st.sampled_from(BACKENDS))
def test_sweep_simulate_matches_sympy_and_scipy(case, backend):
    builder, args, kwargs = case
    gen = builder(*args, **kwargs)
    result, _ = assert_matches_sympy(gen, backend, samples=201)
    if gen.energy is not None:
        energy = _lambdified(gen, gen.energy)(result.y)
        power = _lambdified(gen, gen.power)(result.y)
        work = integrate.cumulative_simpson(power, x=result.t, initial=0.0)
        # 201 samples over 0.5 s: Simpson's error T h**4 |P''''| / 180 is
        # below 1e-8 for the drawn constants; the state's own bound rules
        assert np.max(np.abs(energy - energy[0] - work)) <= COMPARE * max(
            1.0, np.abs(energy).max())


@pytest.mark.sweep
@_SWEEP
@given(case=_models, seed=st.integers(0, 10 ** 6))
def test_sweep_linearize_matches_central_differences(case, seed):
    builder, args, kwargs = case
    if kwargs.get('loads') or builder is gm.relay_oscillator:
        return      # non-smooth loads and feedback inputs: above
    gen = builder(*args, **kwargs)
    point = _moving_point(gen, seed)
    # central differences lose their accuracy (truncation ~ h**2 times
    # derivatives growing as powers of 1/ratio) near a zero of the
    # model's dependent block; the default cases cover those edges
    assume(_dependent_block_ratio(gen, point) > 0.1)
    values = {s: 0.5 for s in gen.specified}
    assert_linearization_matches(gen, point, inputs=list(values),
                                 values=values)


def _dependent_block_ratio(gen, point):
    """Smallest singular value of the configuration constraints'
    Jacobian with respect to the model's dependent coordinates over the
    largest of the whole Jacobian, at ``point`` (1 without constraints)."""
    if not gen.holonomic:
        return 1.0
    reference = Reference(gen)
    q = np.array([point.get(s, 0.0) for s in reference.q], float)
    y = reference.assemble(0.0, q, np.zeros(len(reference.u)),
                           [reference.q.index(s) for s in gen.q_ind],
                           [reference.u.index(s) for s in gen.u_ind])
    _, J = reference._h(0.0, y, reference.input_values)
    J = np.asarray(J, float)
    dependent = [reference.q.index(s) for s in gen.q_dep]
    return (linalg.svdvals(J[:, dependent]).min()
            / linalg.svdvals(J).max())


# at 1e-12 over 50 s the natural coordinates' error is still 19 (x) and
# 56 (y) times the angle model's: about 1e-12 per change of partition
# (85 of them), where the angle model's own global error stays at 9e-12;
# over the benchmark's 2000 s the angle model's drift dominates and the
# ratio is 2.2 (tests/integration/test_iftomm_a01.py)
_AT_1E_12 = _xfail(14, 'natural coordinates at rtol 1e-12 over 50 s: an '
                   'error of about the tolerance per change of partition')


@pytest.mark.sweep
@pytest.mark.parametrize('independent, tolerance', [
    ('x', 1e-10), ('y', 1e-10),
    pytest.param('x', 1e-12, marks=_AT_1E_12),
    pytest.param('y', 1e-12, marks=_AT_1E_12)])
def test_pendulum_in_natural_coordinates_as_accurate_as_with_an_angle(
        independent, tolerance):
    """The IFToMM A01 pendulum (L = 1 m, released horizontal) for 50 s,
    as a point (x, y) on its circle and as an angle, both against SciPy's
    DOP853 at 1e-13 on the angle equation: the requested tolerance holds
    for every coordinate, so the natural-coordinate model's error is
    within 5 times the angle model's (issue 35's target)."""
    gen = gm.circle_pendulum(0, independent=independent)
    L, g = gen.extra['L'], gen.extra['g']
    constants = {**gen.constants, L: 1.0}
    x, y = gen.extra['x'], gen.extra['y']
    t_eval = np.linspace(0.0, 50.0, 501)
    exact = integrate.solve_ivp(
        lambda t, s: [s[1], -constants[g] * np.sin(s[0])], (0.0, 50.0),
        [np.pi / 2, 0.0], method='DOP853', rtol=1e-13, atol=1e-13,
        t_eval=t_eval).y[0]
    # released exactly horizontal: a guess of the dependent coordinate
    # there would be solved only to the square root of the constraint
    # tolerance (the constraint has a double root in it: y = -2e-9 from
    # a guess of -1e-3), which shifts the release by 2e-9 rad and the
    # phase after 50 s by 1e-7 m, more than the tolerances tested
    start = {x: 1.0, y: 0.0}
    natural = simulate(gen.model, (0.0, 50.0), {**start, gen.u_ind[0]: 0.0},
                       constants, t_eval=t_eval, rtol=tolerance,
                       atol=tolerance)
    column = list(gen.kane.q).index(x)
    error_natural = np.max(np.abs(natural.q[:, column] - np.sin(exact)))
    th, w = me.dynamicsymbols('theta omega')
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (th, N.z))
    A.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', -L * A.y)
    P.v2pt_theory(O, N, A)
    kane = me.KanesMethod(N, [th], [w], kd_eqs=[th.diff() - w])
    kane.kanes_equations([me.Particle('p', P, 1)], [(P, -g * N.y)])
    angle = simulate(kane, (0.0, 50.0), {th: np.pi / 2, w: 0.0},
                     {g: constants[g], L: 1.0}, t_eval=t_eval,
                     rtol=tolerance, atol=tolerance)
    error_angle = np.max(np.abs(np.sin(angle.q[:, 0]) - np.sin(exact)))
    assert error_natural <= 5 * max(error_angle, tolerance)
