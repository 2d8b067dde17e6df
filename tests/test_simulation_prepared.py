"""Tests of the prepared simulation (sympy_loads.simulation.Simulation):
the same results as simulate(), runs with new constants (a constraint
constant included) on one prepared object, pickling and process pools,
simulate_many with a Simulation in place of the model, and its checks."""

import concurrent.futures as cf
import multiprocessing
import pickle

import numpy as np
import pytest

from sympy_loads import Simulation, simulate, simulate_many
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
