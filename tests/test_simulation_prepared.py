"""Tests of the prepared simulation (sympy_loads.simulation.Simulation):
the same results as simulate(), runs with new constants (a constraint
constant included) on one prepared object, pickling and process pools,
simulate_many with a Simulation in place of the model, and its checks."""

import concurrent.futures as cf
import multiprocessing
import pickle

import numpy as np
import pytest
import sympy.physics.mechanics as me

from sympy_loads import (Simulation, equilibrium, linearize, simulate,
                         simulate_many)
from sympy_loads.examples import four_bar

T_SPAN = (0.0, 0.5)
T_EVAL = np.linspace(0.0, 0.5, 11)
RUN = dict(t_eval=T_EVAL, rtol=1e-10, atol=1e-12)


@pytest.fixture(scope='module')
def model():
    return four_bar.build_model()


@pytest.fixture(scope='module')
def prepared(model):
    return Simulation(model.kane, outputs={'energy': model.energy})


def assert_same(a, b):
    """Identical runs: the same code, the same steps."""
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(a.q, b.q)
    np.testing.assert_array_equal(a.u, b.u)
    assert a.outputs.keys() == b.outputs.keys()
    for name in a.outputs:
        np.testing.assert_array_equal(a.outputs[name], b.outputs[name])
    assert (a.success, a.nfev) == (b.success, b.nfev)


def _run_prepared(data, constants, initial):
    """A worker's run of a pickled Simulation."""
    simulation = pickle.loads(data)
    return simulation.run(T_SPAN, initial, constants, **RUN)


def test_run_is_simulate(model, prepared):
    initial = four_bar.initial_conditions(model)
    for overrides in ({}, {'k': 5.0, 'c': 0.0}, {'ln': 2.1}):
        constants = four_bar.constants_of(model, **overrides)
        ours = prepared.run(T_SPAN, initial, constants, **RUN)
        reference = simulate(model.kane, T_SPAN, initial, constants,
                             outputs={'energy': model.energy}, **RUN)
        assert_same(ours, reference)
        # on the constraints, whatever the constraint constant ln
        assert ours.constraint_residual.max() <= 1e-12


def test_the_energy_balance_holds_with_a_new_stiffness(model, prepared):
    """A physical check of a run with constants the object was not made
    with: without damping the energy is conserved (to the tolerance)."""
    constants = four_bar.constants_of(model, k=35.0, c=0.0)
    result = prepared.run(T_SPAN, four_bar.initial_conditions(model),
                          constants, **RUN)
    energy = result.outputs['energy']
    assert np.ptp(energy) < 1e-7 * np.abs(energy).max()


def test_attributes(model, prepared):
    assert prepared.model is model.kane
    assert prepared.coordinates == tuple(model.kane.q)
    assert prepared.speeds == tuple(model.kane.u)
    assert set(prepared.constants) == set(model.symbols.values())
    assert prepared.backend in ('compiled', 'numpy')
    assert prepared.options['outputs'] == {'energy': model.energy}
    assert repr(prepared).startswith('Simulation(<KanesMethod: q=[q1(t)')


def test_it_pickles_and_runs_in_a_process_pool(model, prepared):
    initial = four_bar.initial_conditions(model)
    constants = four_bar.constants_of(model, k=12.0)
    reference = prepared.run(T_SPAN, initial, constants, **RUN)
    data = pickle.dumps(prepared)
    again = pickle.loads(data).run(T_SPAN, initial, constants, **RUN)
    assert_same(again, reference)
    context = multiprocessing.get_context('spawn')
    with cf.ProcessPoolExecutor(1, mp_context=context) as pool:
        remote = pool.submit(_run_prepared, data, constants,
                             initial).result()
    np.testing.assert_allclose(remote.q, reference.q, rtol=0, atol=1e-9)
    np.testing.assert_allclose(remote.outputs['energy'],
                               reference.outputs['energy'], rtol=1e-9)


def test_simulate_many_takes_a_simulation(model, prepared):
    initial = four_bar.initial_conditions(model)
    constants = four_bar.constants_of(model)
    k = model.symbols['k']
    cases = [{k: 10.0}, {k: 30.0}]
    ours = simulate_many(prepared, T_SPAN, initial, constants, cases, **RUN)
    reference = simulate_many(model.kane, T_SPAN, initial, constants, cases,
                              outputs={'energy': model.energy}, **RUN)
    for a, b in zip(ours, reference):
        assert_same(a, b)
    with pytest.raises(TypeError, match=r"\['outputs'\] belong to the "
                                        r'Simulation'):
        simulate_many(prepared, T_SPAN, initial, constants, cases,
                      outputs={'energy': model.energy}, **RUN)


def test_run_checks_its_arguments_before_any_work(model, prepared):
    initial = four_bar.initial_conditions(model)
    constants = four_bar.constants_of(model)
    with pytest.raises(ValueError, match='t_span'):
        prepared.run((0.0, np.nan), initial, constants)
    with pytest.raises(ValueError, match='rtol and atol must be positive'):
        prepared.run(T_SPAN, initial, constants, rtol=0.0)
    with pytest.raises(ValueError, match='friction_relaxation'):
        prepared.run(T_SPAN, initial, constants, friction_relaxation=2.0)
    with pytest.raises(ValueError, match='friction_max_iterations must be '
                                         'a positive integer'):
        prepared.run(T_SPAN, initial, constants,
                     friction_max_iterations=0)
    with pytest.raises(ValueError, match='missing constants: .*l_n'):
        prepared.run(T_SPAN, initial, {model.symbols['g']: 9.81})


def test_construction_checks_its_options(model):
    with pytest.raises(TypeError, match='model must be a KanesMethod or a '
                                        'System'):
        Simulation('four-bar')
    with pytest.raises(TypeError, match='outputs must be a mapping'):
        Simulation(model.kane, outputs=[model.energy])
    with pytest.raises(TypeError, match='constraint_options must be a '
                                        'mapping'):
        Simulation(model.kane, constraint_options=1e-12)


def test_a_sweep_over_a_constraint_constant_generates_its_code_once(
        monkeypatch):
    """Runs with new values of the loop's closing length ``ln`` share one
    constraint solver's generated code (HolonomicConstraintSolver.
    with_constants): the constraint functions are generated once, and
    every run is on its own constraints."""
    from sympy_loads._numeric import codegen
    made = []
    original = codegen.GeneratedFunction.__init__

    def counting(self, inputs, outputs, backend, name='function', **kw):
        made.append(name)
        original(self, inputs, outputs, backend, name, **kw)
    monkeypatch.setattr(codegen.GeneratedFunction, '__init__', counting)
    fresh = four_bar.build_model()
    linkage = Simulation(fresh.kane)
    initial = four_bar.initial_conditions(fresh)
    for ln in (2.0, 2.05, 2.1, 1.95):
        result = linkage.run(T_SPAN, initial,
                             four_bar.constants_of(fresh, ln=ln), **RUN)
        assert result.constraint_residual.max() <= 1e-12
        # the loop closes on ln: P4's x is ln
        q1, q2, q3 = result.q[-1]
        la, lb, lc = 0.8, 2.0, 1.0
        tip = (la * np.cos(q1) + lb * np.cos(q1 + q2)
               + lc * np.cos(q1 + q2 + q3))
        assert tip == pytest.approx(ln, abs=1e-12)
    assert made.count('resjac') == 1 and made.count('rates') == 1


# ---------------------------------------------------------------------------
# Models formed again after a change (the notebook loop: change a load,
# form the equations again, run again). The references are closed forms:
# x'' = -k x from x(0) = 1 at rest is x = cos(sqrt(k) t); the linear model
# is A = [[0, 1], [-k, 0]]. Integrated at rtol 1e-10 over one second, the
# error is far below the 1e-8 allowed, and a stale model is off by ~1.

REFORMED_RUN = dict(t_eval=[1.0], rtol=1e-10, atol=1e-12)


def _spring_on_a_line(line_particle, stiffness):
    """A unit mass on a line pulled back by ``stiffness * x``; returns the
    namespace of ``line_particle`` and a function forming the equations
    again with another stiffness (the same KanesMethod)."""
    spring = line_particle(1, lambda x, v: -stiffness * x)

    def form_again(new_stiffness):
        spring.kane.kanes_equations(
            spring.kane.bodies, [(spring.P, -new_stiffness * spring.x
                                  * spring.N.x)])
    return spring, form_again


@pytest.mark.parametrize('backend', ['auto', 'numpy'])
def test_kanes_equations_formed_again_are_the_ones_simulated(
        line_particle, backend):
    spring, form_again = _spring_on_a_line(line_particle, 1)
    kane, x, v = spring.kane, spring.x, spring.v

    def end():
        return simulate(kane, (0, 1), {x: 1.0, v: 0.0}, {},
                        backend=backend, **REFORMED_RUN).q[-1, 0]

    assert end() == pytest.approx(np.cos(1.0), abs=1e-8)
    for stiffness in (4.0, 1.0, 9.0):     # back to the first one, too
        form_again(stiffness)
        assert end() == pytest.approx(np.cos(np.sqrt(stiffness)), abs=1e-8)


@pytest.mark.parametrize('backend', ['auto', 'numpy'])
def test_kanes_equations_formed_again_are_the_ones_linearized(
        line_particle, backend):
    spring, form_again = _spring_on_a_line(line_particle, 1)
    point = {spring.x: 0.0, spring.v: 0.0}
    for stiffness in (1.0, 4.0):
        form_again(stiffness)
        A = linearize(spring.kane, point, {}, backend=backend).A
        np.testing.assert_allclose(A, [[0.0, 1.0], [-stiffness, 0.0]],
                                   rtol=0, atol=1e-12)
        rest = equilibrium(spring.kane, {spring.x: 0.3}, {},
                           backend=backend)
        assert rest[spring.x] == pytest.approx(0.0, abs=1e-9)


def test_a_model_with_velocity_constraints_formed_again():
    """A particle in a plane kept on the diagonal by the velocity
    constraint v_y - v_x = 0, pulled by -k x N.x: the generalized force
    along v_x is -k x and the inertia force -2 m x'', so
    x = cos(sqrt(k / 2) t). Such a model is derived from its loads and
    bodies (the unconstrained equations), not from the mass matrix."""
    x, y, vx, vy = me.dynamicsymbols('x y v_x v_y')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, vx * N.x + vy * N.y)
    kane = me.KanesMethod(N, [x, y], [vx], u_dependent=[vy],
                          kd_eqs=[x.diff() - vx, y.diff() - vy],
                          velocity_constraints=[vy - vx])
    bodies = [me.Particle('p', P, 1)]
    for stiffness in (2.0, 8.0):
        kane.kanes_equations(bodies, [(P, -stiffness * x * N.x)])
        result = simulate(kane, (0, 1), {x: 1.0, y: 1.0, vx: 0.0, vy: 0.0},
                          {}, **REFORMED_RUN)
        expected = np.cos(np.sqrt(stiffness / 2))
        np.testing.assert_allclose(result.q[-1], [expected, expected],
                                   rtol=0, atol=1e-8)


def test_a_system_formed_again_after_a_change():
    x, v = me.dynamicsymbols('x v')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x)
    P.set_vel(N, v * N.x)
    system = me.System(N, O)
    system.add_coordinates(x)
    system.add_speeds(v)
    system.add_kdes(x.diff() - v)
    system.add_bodies(me.Particle('p', P, 1))
    system.add_loads(me.Force(P, -x * N.x))
    for stiffness in (1.0, 4.0):
        system.form_eoms()
        result = simulate(system, (0, 1), {x: 1.0, v: 0.0}, {},
                          **REFORMED_RUN)
        assert result.q[-1, 0] == pytest.approx(np.cos(np.sqrt(stiffness)),
                                                abs=1e-8)
        A = linearize(system, {x: 0.0, v: 0.0}, {}).A
        assert A[1, 0] == pytest.approx(-stiffness, abs=1e-12)
        system.add_loads(me.Force(P, -3 * x * N.x))   # k = 1 + 3


def test_a_simulation_keeps_the_equations_it_was_made_from(line_particle):
    """The documented contract: a Simulation is a snapshot of the model's
    equations when it was made (it pickles as such); a new one (and
    simulate()) takes the equations formed since."""
    spring, form_again = _spring_on_a_line(line_particle, 1)
    kane, x, v = spring.kane, spring.x, spring.v
    before = Simulation(kane)
    form_again(4.0)
    after = Simulation(kane)
    start = {x: 1.0, v: 0.0}
    for simulation, stiffness in ((before, 1.0), (after, 4.0),
                                  (pickle.loads(pickle.dumps(before)), 1.0)):
        result = simulation.run((0, 1), start, {}, **REFORMED_RUN)
        assert result.q[-1, 0] == pytest.approx(
            np.cos(np.sqrt(stiffness)), abs=1e-8)
        A = simulation.linearize({x: 0.0, v: 0.0}, {}).A
        assert A[1, 0] == pytest.approx(-stiffness, abs=1e-12)


def test_equations_formed_again_unchanged_keep_their_code(line_particle):
    """The cache is keyed by the content of the equations: forming them
    again with the same loads (new SymPy objects, equal) reuses the code;
    another load does not."""
    spring, form_again = _spring_on_a_line(line_particle, 2)
    first = Simulation(spring.kane)
    form_again(2)
    assert Simulation(spring.kane)._nm is first._nm
    form_again(3)
    assert Simulation(spring.kane)._nm is not first._nm


@pytest.mark.parametrize('backend', ['auto', 'numpy'])
def test_an_output_at_another_time_is_refused(line_particle, backend):
    """x(0) in an output is not the state at the sample's time: refused
    by name (it raised a bare NameError from the generated code)."""
    spring = line_particle(1, lambda x, v: -x)
    with pytest.raises(ValueError, match=r"outputs\['start'\] contains "
                                         r"\['x\(0\)'\]"):
        Simulation(spring.kane, outputs={'start': spring.x.func(0) + 1},
                   backend=backend)
