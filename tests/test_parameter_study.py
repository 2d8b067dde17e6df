"""simulate_many and results_table: a four-bar study run serially, on a
process pool, on a thread pool and on a Dask LocalCluster (2 worker
processes), and the pickling of everything that crosses to a worker."""

import concurrent.futures as cf
import multiprocessing
import pickle
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import (HolonomicConstraintSolver, Simulation,
                         SimulationResult, results_table, simulate,
                         simulate_many)
from sympy_loads import parameter_study
from sympy_loads._numeric import codegen
from sympy_loads.examples import four_bar
from sympy_loads.simulation import _NUMERIC_MODELS

cloudpickle = pytest.importorskip('cloudpickle')

T_SPAN = (0.0, 0.5)
T_EVAL = np.linspace(0.0, 0.5, 11)
FAILING = 2          # the case in the middle that cannot be assembled


@pytest.fixture(scope='module')
def study():
    """Five cases of Moore's four-bar; case 2 has a crank of 10 m, so the
    loop cannot close and the case fails at assembly."""
    model = four_bar.build_model()
    q1 = model.q[0]
    k, la = model.symbols['k'], model.symbols['la']
    cases = [{k: 10.0}, {k: 20.0, q1: 0.5}, {la: 10.0}, {k: 40.0},
             {q1: 1.0, k: 5.0}]
    options = dict(t_eval=T_EVAL, outputs={'energy': model.energy})
    initial = four_bar.initial_conditions(model)
    constants = four_bar.constants_of(model)
    serial = simulate_many(model.kane, T_SPAN, initial, constants, cases,
                           **options)
    return SimpleNamespace(model=model, cases=cases, options=options,
                           options_prepared={'outputs': options['outputs']},
                           initial=initial, constants=constants,
                           serial=serial, k=k, la=la, q1=q1)


@pytest.fixture(scope='module')
def process_pool():
    # spawn: the workers start from scratch, as on macOS and Windows
    with cf.ProcessPoolExecutor(
            2, mp_context=multiprocessing.get_context('spawn')) as pool:
        yield pool


@pytest.fixture(scope='module')
def dask_executor():
    distributed = pytest.importorskip('distributed')
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                  processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:
        yield client.get_executor()


@pytest.fixture(scope='module')
def thread_pool():
    with cf.ThreadPoolExecutor(2) as pool:
        yield pool


EXECUTORS = ['process_pool', 'dask_executor', 'thread_pool']


def assert_same_result(a, b, tolerance=1e-12):
    assert a.success == b.success
    assert a.message == b.message
    assert a.q_names == b.q_names and a.u_names == b.u_names
    assert a.coordinates == b.coordinates and a.speeds == b.speeds
    assert dict(a.constants) == dict(b.constants)
    for name in ('t', 'q', 'u', 'constraint_residual', 'velocity_residual'):
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape, name
        np.testing.assert_allclose(x, y, rtol=0, atol=tolerance, err_msg=name)
    assert a.outputs.keys() == b.outputs.keys()
    for name in a.outputs:
        np.testing.assert_allclose(a.outputs[name], b.outputs[name], rtol=0,
                                   atol=tolerance)


def test_serial_study_is_simulate_case_by_case(study):
    k, q1 = study.k, study.q1
    initial = {**study.initial, q1: 0.5}
    constants = {**study.constants, k: 20.0}
    alone = simulate(study.model.kane, T_SPAN, initial, constants,
                     **study.options)
    assert_same_result(study.serial[1], alone, tolerance=0.0)
    assert study.serial[1].q[0, 0] == 0.5


def test_failing_case_in_the_middle_loses_nothing_else(study):
    results = study.serial
    assert [r.success for r in results] == [True, True, False, True, True]
    failed = results[FAILING]
    assert failed.message.startswith('ConstraintSolverError: ')
    assert failed.status == -1
    assert failed.t.shape == (0,) and failed.q.shape == (0, 3)
    assert dict(failed.constants)[study.la] == 10.0
    for result in results[:FAILING] + results[FAILING + 1:]:
        assert result.constraint_residual.max() <= 1e-10
        np.testing.assert_allclose(result.t, T_EVAL, rtol=0, atol=0)


def test_results_follow_the_order_of_the_cases(study):
    q1 = study.q1
    for case, result in zip(study.cases, study.serial):
        constants = dict(result.constants)
        for key, value in case.items():
            if key == q1:
                assert result.q[0, 0] == value
            else:
                assert constants[key] == value
    # the stiffer spring moves the crank differently
    finals = [r.q[-1, 0] for r in study.serial if r.success]
    assert len(set(np.round(finals, 9))) == 4


@pytest.mark.parametrize('executor_name', EXECUTORS)
def test_parallel_results_equal_the_serial_ones(study, executor_name,
                                                request):
    executor = request.getfixturevalue(executor_name)
    results = simulate_many(study.model.kane, T_SPAN, study.initial,
                            study.constants, study.cases, executor=executor,
                            chunksize=2, **study.options)
    assert len(results) == len(study.cases)
    for parallel, serial in zip(results, study.serial):
        assert isinstance(parallel, SimulationResult)
        assert_same_result(parallel, serial)
    assert not results[FAILING].success


def test_a_worker_loads_the_model_once(study, process_pool):
    simulation, run_options = parameter_study._prepare(study.model.kane,
                                                       study.options)
    data = parameter_study._dumps(simulation, 'model')
    job = {'t_span': T_SPAN, 'initial_conditions': study.initial,
           'constants': study.constants, 'keys': [study.k],
           'is_state': [False], 'options': run_options}
    job_data = parameter_study._dumps(job, 'options')
    chunk = (np.array([0]), np.array([[15.0]]), np.array([[True]]))
    futures = [process_pool.submit(parameter_study._run_chunk, 'token-a',
                                   data, 'job-a', job_data, chunk)
               for _ in range(8)]
    outcomes = [f.result() for f in futures]
    loads = {}
    for records, info in outcomes:
        assert records[0][1]['success']
        loads.setdefault(info['pid'], []).append(info['loaded'])
    assert len(loads) <= 2
    assert sum(sum(flags) for flags in loads.values()) == len(loads)
    finals = {tuple(records[0][1]['q'][-1]) for records, _ in outcomes}
    assert len(finals) == 1


def test_specified_input_defined_here_crosses_to_processes(process_pool,
                                                            line_particle):
    """A lambda in ``specified`` travels by cloudpickle."""
    force = me.dynamicsymbols('F')
    m, k = sm.symbols('m k')
    line = line_particle(m, lambda x, v: force - k*x)
    kane, x, v = line.kane, line.x, line.v
    args = (kane, (0, 2), {x: 0.0, v: 0.0}, {m: 1.0})
    cases = [{k: value} for value in (1.0, 4.0, 9.0)]
    options = dict(specified={force: lambda t: np.sin(0.5*t)},
                   t_eval=[1.0, 2.0])
    serial = simulate_many(*args, cases, **options)
    parallel = simulate_many(*args, cases, executor=process_pool,
                             **options)
    for a, b in zip(serial, parallel):
        assert_same_result(a, b)
    # x'' + k x = sin(t/2) from rest: x = (sin(t/2) - sin(w t)/(2 w))/(k - 1/4)
    for case, result in zip(cases, serial):
        w = np.sqrt(case[k])
        t = result.t
        exact = (np.sin(0.5*t) - 0.5*np.sin(w*t)/w)/(case[k] - 0.25)
        np.testing.assert_allclose(result.q[:, 0], exact, atol=1e-8)


class RecordingExecutor(cf.Executor):
    """Counts submissions, and fails each one as a lost worker would."""

    def __init__(self):
        self.submitted = 0

    def submit(self, fn, *args, **kwargs):
        self.submitted += 1
        future = cf.Future()
        future.set_exception(RuntimeError('worker lost'))
        return future


def test_argument_errors_are_raised_before_any_work(study):
    kane, k = study.model.kane, study.k
    executor = RecordingExecutor()
    base = (kane, T_SPAN, study.initial, study.constants)
    z = sm.Symbol('z')
    other = me.dynamicsymbols('w')
    bad = [
        (ValueError, 'neither coordinates, speeds nor constants',
         [{k: 1.0}, {z: 2.0}], {}),
        (ValueError, 'not a coordinate or speed', [{other: 1.0}], {}),
        (ValueError, 'neither a coordinate', [{'k': 1.0}], {}),
        (TypeError, r'cases\[1\]\[k\] must be a real number',
         [{k: 1.0}, {k: 'stiff'}], {}),
        (ValueError, 'must be finite', [{k: np.nan}], {}),
        (TypeError, r'cases\[0\] must be a mapping', [[k, 1.0]], {}),
        (TypeError, 'cases must be a sequence', {k: 1.0}, {}),
        (ValueError, 'method', [{k: 1.0}], {'method': 'Euler'}),
        (ValueError, 't_eval', [{k: 1.0}], {'t_eval': [0.0, 9.0]}),
        (TypeError, 'unexpected keyword', [{k: 1.0}], {'rtoll': 1e-6}),
        (ValueError, 'chunksize', [{k: 1.0}], {'chunksize': 0}),
    ]
    for error, match, cases, options in bad:
        with pytest.raises(error, match=match):
            simulate_many(*base, cases, executor=executor, **options)
    # a constant missing in one case only
    constants = dict(study.constants)
    del constants[k]
    with pytest.raises(ValueError, match=r'cases\[1\]: .*missing constants'):
        simulate_many(kane, T_SPAN, study.initial, constants,
                      [{k: 1.0}, {study.q1: 0.2}], executor=executor)
    with pytest.raises(TypeError, match='executor must be'):
        simulate_many(*base, [{k: 1.0}], executor=object())
    assert executor.submitted == 0
    assert simulate_many(*base, [], executor=executor) == []


def test_a_lost_worker_fails_its_cases_only(study):
    executor = RecordingExecutor()
    results = simulate_many(study.model.kane, T_SPAN, study.initial,
                            study.constants, study.cases[:3],
                            executor=executor, chunksize=2)
    assert executor.submitted == 2
    assert [r.success for r in results] == [False] * 3
    assert results[0].message == ('the worker failed: RuntimeError: worker '
                                  'lost')


def test_progress_bar_counts_cases_and_failures(study, capsys):
    pytest.importorskip('tqdm')
    simulate_many(study.model.kane, T_SPAN, study.initial, study.constants,
                  study.cases, progress=True, **study.options)
    err = capsys.readouterr().err
    assert '5/5' in err and 'failures=1' in err


def test_results_table_holds_final_states_and_outputs(study):
    pd = pytest.importorskip('pandas')
    table = results_table(study.serial, study.cases)
    assert isinstance(table, pd.DataFrame)
    assert list(table.columns) == [
        'k', 'q1_0', 'l_a', 'success', 'message', 't_final', 'q1', 'q2',
        'q3', 'u1', 'u2', 'u3', 'energy']
    assert table.index.name == 'case' and len(table) == 5
    assert list(table['success']) == [True, True, False, True, True]
    for i, result in enumerate(study.serial):
        if not result.success:
            continue
        assert table.loc[i, 'q2'] == result.q[-1, 1]
        assert table.loc[i, 'u3'] == result.u[-1, 2]
        assert table.loc[i, 'energy'] == result.outputs['energy'][-1]
        assert table.loc[i, 't_final'] == 0.5
    assert table.loc[1, 'q1_0'] == 0.5 and np.isnan(table.loc[0, 'q1_0'])
    assert np.isnan(table.loc[FAILING, 'q1']) and table.loc[FAILING,
                                                            'l_a'] == 10.0
    only = results_table(study.serial, outputs=[])
    assert 'energy' not in only.columns and 'k' not in only.columns
    with pytest.raises(ValueError, match='not outputs'):
        results_table(study.serial, outputs=['power'])
    with pytest.raises(ValueError, match='4 entries for 5 results'):
        results_table(study.serial, study.cases[:4])


# ---------------------------------------------------------------------------
# Pickling of what crosses to a worker

@pytest.mark.parametrize('dumps', [pickle.dumps, cloudpickle.dumps],
                         ids=['pickle', 'cloudpickle'])
def test_numeric_model_round_trips_with_identical_results(study, dumps):
    kane = study.model.kane
    for numeric_model in _NUMERIC_MODELS[kane].values():
        copy = pickle.loads(dumps(numeric_model))
        assert copy.constants == numeric_model.constants
        assert copy.backend == numeric_model.backend
        assert not np.array_equal(copy.fn, numeric_model.fn) or \
            numeric_model.backend == 'numpy'
        rng = np.random.default_rng(1)
        for name, function in numeric_model.functions.items():
            x = rng.normal(size=(4, function.n_in))
            assert np.array_equal(copy.functions[name](x), function(x))


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
@pytest.mark.parametrize('dumps', [pickle.dumps, cloudpickle.dumps],
                         ids=['pickle', 'cloudpickle'])
def test_constraint_solver_round_trips_after_a_solve(study, backend, dumps):
    model = study.model
    constants = {s: study.constants[s] for s in model.fh.free_symbols
                 if s in study.constants}
    solver = HolonomicConstraintSolver.from_kanes_method(
        model.kane, constants, backend=backend)
    angles = np.linspace(0.0, 1.2, 7)
    guesses = np.column_stack([angles, np.full(7, 0.1), np.full(7, -2.6)])
    before = solver.solve_positions(guesses)     # a compiled solve first
    copy = pickle.loads(dumps(solver))
    assert copy.backend == solver.backend == backend
    assert repr(copy) == repr(solver)
    after = copy.solve_positions(guesses)
    assert np.array_equal(after, before)
    assert np.max(np.abs(copy.residual(after))) <= 1e-12
    qdot = np.array([1.0, 0.0, 0.0])
    assert np.array_equal(copy.solve_velocities(before[3], qdot),
                          solver.solve_velocities(before[3], qdot))
    # and the copy pickles again
    again = pickle.loads(dumps(copy))
    assert np.array_equal(again.solve_positions(guesses), before)


def test_a_sweep_over_a_constraint_constant_makes_one_solver(study):
    """The constraint solver is made once per model and options and kept
    with the numeric model; each run takes a copy with its own values of
    the constraints' constants, so a study over a link length generates no
    code per case, and every run still solves its own loop."""
    kane = study.model.kane
    simulation = Simulation(kane, outputs=study.options['outputs'])
    solver = simulation._solver
    assert Simulation(kane)._solver is solver       # shared by the model
    lengths = [0.75, 0.8, 0.85]
    results = simulate_many(simulation, T_SPAN, study.initial,
                            study.constants, [{study.la: la}
                                              for la in lengths],
                            t_eval=T_EVAL)
    assert simulation._solver is solver
    solvers = [value for key, value in simulation._nm._derived.items()
               if key[0] == 'constraint solver']
    assert solvers == [solver]
    assert solver.constants[study.la] == 1.0        # a placeholder, kept
    # each case closes its own loop (the lengths differ by 5 cm, so a
    # solver with another length would leave residuals of centimetres)
    for la, result in zip(lengths, results):
        assert result.success
        check = solver.with_constants({**{s: study.constants[s] for s in
                                          solver.constants if s in
                                          study.constants},
                                       study.la: la})
        assert np.max(np.abs(check.residual(result.q))) <= 1e-10


def test_a_second_study_sends_the_same_pickled_simulation(study,
                                                          thread_pool):
    """A Simulation is pickled once for its studies; the pickle is not
    part of its own pickle, and it loads into a Simulation that runs as
    the original does."""
    simulation = Simulation(study.model.kane, **study.options_prepared)
    args = (simulation, T_SPAN, study.initial, study.constants,
            study.cases[:2])
    simulate_many(*args, executor=thread_pool, t_eval=T_EVAL)
    first = simulation._pickle
    simulate_many(*args, executor=thread_pool, t_eval=T_EVAL)
    assert simulation._pickle is first
    copy = pickle.loads(first[0])
    assert isinstance(copy, Simulation) and '_pickle' not in vars(copy)
    assert '_pickle' not in vars(pickle.loads(pickle.dumps(simulation)))
    assert_same_result(
        copy.run(T_SPAN, study.initial, study.constants, t_eval=T_EVAL),
        simulation.run(T_SPAN, study.initial, study.constants,
                       t_eval=T_EVAL), tolerance=0.0)


def test_caches_do_not_keep_a_model_alive():
    """simulate()'s caches and the study's pickle cache hold the
    KanesMethod weakly: once the user drops it, it is freed."""
    import gc
    import weakref

    def run():
        model = four_bar.build_model()
        initial = four_bar.initial_conditions(model)
        constants = four_bar.constants_of(model)
        simulate(model.kane, (0.0, 0.01), initial, constants)
        with cf.ThreadPoolExecutor(1) as pool:
            simulate_many(model.kane, (0.0, 0.01), initial, constants,
                          [{model.symbols['k']: 5.0}], executor=pool)
        assert model.kane in _NUMERIC_MODELS
        return weakref.ref(model.kane)

    reference = run()
    gc.collect()
    assert reference() is None


def test_a_numeric_model_without_its_kanes_method_does_not_pickle():
    """A NumericModel holds its KanesMethod weakly; pickled alone after
    the KanesMethod is gone, it says so instead of writing a broken
    copy."""
    import gc
    model = four_bar.build_model()
    simulate(model.kane, (0.0, 0.01), four_bar.initial_conditions(model),
             four_bar.constants_of(model))
    numeric_models = list(_NUMERIC_MODELS[model.kane].values())
    del model
    gc.collect()
    assert numeric_models[0].kane is None
    with pytest.raises(pickle.PicklingError, match='together with its'):
        pickle.dumps(numeric_models[0])


def test_generated_function_on_another_processor_is_compiled_again(
        monkeypatch):
    if not codegen.symengine_available() or codegen.host_fingerprint() is \
            None:
        pytest.skip('needs SymEngine and llvmlite')
    x, y = sm.symbols('x y')
    exprs = [sm.sin(x)*y + x**3/7, sm.sqrt(1 + y**2)*sm.exp(-x)]
    function = codegen.GeneratedFunction([x, y], exprs, 'llvm')
    data = pickle.dumps(function)
    builds = []
    build = codegen.GeneratedFunction._build_llvm
    monkeypatch.setattr(codegen.GeneratedFunction, '_build_llvm',
                        lambda self: builds.append(1) or build(self))
    same = pickle.loads(data)          # machine code loaded as it is
    assert builds == []
    monkeypatch.setattr(codegen, '_HOST', [('elsewhere',)])
    other = pickle.loads(data)         # compiled again from expressions
    assert builds == [1]
    point = np.array([0.3, -1.7])
    assert np.array_equal(same(point), function(point))
    np.testing.assert_allclose(other(point), function(point), rtol=1e-15)
    assert other.data != function.data


def test_results_table_spreads_a_column_output_and_names_initial_values(
        line_particle):
    pytest.importorskip('pandas')
    m, k = sm.symbols('m k')
    line = line_particle(m, lambda x, v: -k*x)
    kane, x, v = line.kane, line.x, line.v
    cases = [{x: 0.1}, {x: 0.2, k: 9.0}]
    results = simulate_many(kane, (0, 1), {x: 0.0, v: 0.0},
                            {m: 1.0, k: 4.0}, cases,
                            outputs={'state': sm.Matrix([x, v])})
    table = results_table(results, cases)
    assert list(table.columns) == ['x_0', 'k', 'success', 'message',
                                   't_final', 'x', 'v', 'state[0]',
                                   'state[1]']
    assert np.isnan(table.loc[0, 'k']) and table.loc[1, 'k'] == 9.0
    # x(1) = x0 cos(sqrt(k/m)), the output equals the state
    np.testing.assert_allclose(table['x'], [0.1*np.cos(2.0),
                                            0.2*np.cos(3.0)], atol=1e-8)
    assert list(table['state[0]']) == list(table['x'])
    assert list(table['state[1]']) == list(table['v'])


# ---------------------------------------------------------------------------
# Impacts, joint friction, symbols, executors and crashes (issue 27)

@pytest.fixture(scope='module')
def ball():
    """A ball of mass m under gravity g dropped on a floor y = 0 with the
    restitution e (a constant)."""
    from sympy_loads import Impact
    y, v = me.dynamicsymbols('y v')
    m, g, e = sm.symbols('m g e')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', y * N.y)
    P.set_vel(N, v * N.y)
    kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v])
    kane.kanes_equations([me.Particle('ball', P, m)], [(P, -m * g * N.y)])
    floor = Impact(P, O, N.y, N, restitution=e, name='floor')
    return SimpleNamespace(kane=kane, y=y, v=v, m=m, g=g, e=e, floor=floor,
                           initial={y: 1.0, v: 0.0},
                           constants={m: 1.0, g: 9.81, e: 0.5})


def test_a_run_stopped_by_an_impact_keeps_its_partial_run(ball,
                                                         thread_pool):
    """A restitution that grows with time, e (1 + t), leaves [0, 1] at
    the second impact for e = 0.5 (t = 1.10): simulate() raises with the
    run so far in error.result, and the study keeps that run in the case's
    slot instead of dropping its samples. (Accumulating impacts, which
    stopped the run before issue 37, now close the contact: e = 0.3 comes
    to rest on the floor.)"""
    from sympy_loads import Impact, SimulationError
    e, t = ball.e, me.dynamicsymbols._t
    floor = Impact(ball.floor.point, ball.floor.plane_point,
                   ball.floor.normal, ball.floor.frame,
                   restitution=e * (1 + t), name='floor')
    args = (ball.kane, (0, 2.0), ball.initial, ball.constants)
    with pytest.raises(SimulationError, match='outside') as caught:
        simulate(*args, impacts=[floor])
    alone = caught.value.result
    assert len(alone.t) > 5 and len(alone.impacts) == 1
    assert caught.value.time == pytest.approx(1.10, abs=0.01)
    cases = [{e: 0.5}, {e: 0.3}]
    for executor in (None, thread_pool):
        results = simulate_many(*args, cases, impacts=[floor],
                                executor=executor)
        partial = results[0]
        assert not partial.success and len(partial.t) == len(alone.t)
        assert partial.message == f'SimulationError: {caught.value}'
        assert len(partial.impacts) == len(alone.impacts)
        np.testing.assert_array_equal(partial.t, alone.t)
        np.testing.assert_array_equal(partial.q, alone.q)
        assert partial.coordinates == (ball.y,)
        # e = 0.3 bounces with 0.3 (1 + t) < 1 until it comes to rest
        assert results[1].success and results[1].t[-1] == 2.0
        assert results[1].impacts[0].time == pytest.approx(
            np.sqrt(2 / 9.81), rel=1e-9)
        rest, = results[1].contacts
        assert 1.5 < rest.start < rest.end == 2.0


def test_a_bad_case_first_fails_its_own_slot(ball):
    """A penetrating start or e = 1.5 in the first case fails that case
    only, as in any other place; an error of every case is raised."""
    e, y = ball.e, ball.y
    args = (ball.kane, (0, 0.4), ball.initial, ball.constants)
    options = dict(impacts=[ball.floor], t_eval=[0.4])
    for bad, good in (({e: 1.5}, {e: 0.5}), ({y: -0.1}, {y: 1.0}),
                      ({y: -0.1}, {e: 0.5})):
        for cases, slot in (([bad, good], 0), ([good, bad], 1)):
            results = simulate_many(*args, cases, **options)
            failed, passed = results[slot], results[1 - slot]
            assert not failed.success and len(failed.t) == 0
            assert failed.message.startswith('ValueError: impacts[0] (floor)')
            assert ('penetrates' in failed.message if y in bad else
                    'got 1.5' in failed.message)
            # the good case fell 0.4 s from 1 m (before its first
            # impact): y = 1 - g t^2/2
            assert passed.success
            np.testing.assert_allclose(passed.q[-1, 0],
                                       1.0 - 9.81 * 0.16 / 2, atol=1e-9)
    with pytest.raises(ValueError, match='got 1.5'):
        simulate_many(*args, [{e: 1.5}, {e: 2.0}], **options)
    with pytest.raises(ValueError, match='method'):
        simulate_many(*args, [{e: 1.5}, {e: 0.5}], method='Euler',
                      **options)


def test_a_case_symbol_with_other_assumptions_is_refused(line_particle):
    """k and k (positive) are different symbols: a case giving the second
    beside the shared first would be ignored, so it is refused; given
    alone it replaces the model's k by name, as simulate() does."""
    m, k = sm.symbols('m k')
    line = line_particle(m, lambda x, v: -k * x)
    kane, x, v = line.kane, line.x, line.v
    k_positive = sm.Symbol('k', positive=True)
    base = (kane, (0, 1), {x: 0.1, v: 0.0})
    with pytest.raises(ValueError, match=r"Symbol\('k', positive=True\) "
                       r"has the name of Symbol\('k'\) in constants"):
        simulate_many(*base, {m: 1.0, k: 4.0}, [{k_positive: 9.0}])
    with pytest.raises(ValueError, match='in another case'):
        simulate_many(*base, {m: 1.0}, [{k_positive: 9.0}, {k: 4.0}])
    results = simulate_many(*base, {m: 1.0}, [{k_positive: 9.0},
                                              {k_positive: 4.0}],
                            t_eval=[1.0])
    # x(1) = x0 cos(sqrt(k/m)) with the case's own k
    np.testing.assert_allclose([r.q[-1, 0] for r in results],
                               [0.1 * np.cos(3.0), 0.1 * np.cos(2.0)],
                               atol=1e-8)


@pytest.fixture(scope='module')
def incline():
    """A block of mass m sliding down a slope of angle 0.5 with joint
    friction of coefficient mu (a constant)."""
    from sympy_loads import JointFriction
    m, g, mu = sm.symbols('m g mu', positive=True)
    angle = 0.5
    ground, block = me.RigidBody('ground'), me.RigidBody('block', mass=m)
    slide = me.PrismaticJoint('s', ground, block, joint_axis=np.cos(angle)
                              * ground.x + np.sin(angle) * ground.y)
    friction = JointFriction(slide, coefficient=mu)
    system = me.System.from_newtonian(ground)
    system.add_bodies(block)
    system.add_joints(slide)
    system.add_actuators(friction)
    system.apply_uniform_gravity(-g * ground.y)
    system.form_eoms()
    x, v = slide.coordinates[0], slide.speeds[0]
    return SimpleNamespace(system=system, friction=friction, angle=angle,
                           m=m, g=g, mu=mu, x=x, v=v)


@pytest.mark.parametrize('executor_name', [None, 'thread_pool',
                                           'process_pool'])
def test_joint_friction_runs_on_any_executor(incline, executor_name,
                                             request):
    """Sliding down (v < 0), the friction mu m g cos(a) slows the block:
    v(t) = v0 + g (mu cos(a) - sin(a)) t, for each case's own mu."""
    executor = (request.getfixturevalue(executor_name) if executor_name
                else None)
    mu, g, a = incline.mu, 9.81, incline.angle
    cases = [{mu: 0.1}, {mu: 0.3}, {incline.m: 5.0}]
    results = simulate_many(
        incline.system, (0, 0.2), {incline.x: 0.0, incline.v: -0.1},
        {incline.m: 2.0, incline.g: g, mu: 0.2}, cases,
        joint_friction=[incline.friction], t_eval=[0.2], executor=executor)
    assert [r.success for r in results] == [True] * 3, results[0].message
    for result, coefficient in zip(results, (0.1, 0.3, 0.2)):
        expected = -0.1 + g * (coefficient * np.cos(a) - np.sin(a)) * 0.2
        np.testing.assert_allclose(result.u[-1, 0], expected, rtol=1e-6)
    if executor is None:
        # the coefficient is a constant of the study even when only the
        # cases give it (it appears in no equation of motion)
        results = simulate_many(
            incline.system, (0, 0.2), {incline.x: 0.0, incline.v: -0.1},
            {incline.m: 2.0, incline.g: g}, cases[:2],
            joint_friction=[incline.friction], t_eval=[0.2])
        np.testing.assert_allclose(
            [r.u[-1, 0] for r in results],
            [-0.1 + g * (c * np.cos(a) - np.sin(a)) * 0.2 for c in (0.1, 0.3)],
            rtol=1e-6)


class LockedForce:
    """A specified input that holds a lock (it cannot be pickled)."""

    def __init__(self):
        import threading
        self.lock = threading.Lock()
        self.calls = 0

    def __call__(self, t):
        with self.lock:
            self.calls += 1
        return np.sin(0.5 * t)


def test_a_thread_pool_does_not_pickle_the_options(line_particle,
                                                   thread_pool):
    force = me.dynamicsymbols('F')
    m, k = sm.symbols('m k')
    line = line_particle(m, lambda x, v: force - k * x)
    kane, x, v = line.kane, line.x, line.v
    specified = LockedForce()
    with pytest.raises(TypeError):
        pickle.dumps(specified)
    cases = [{k: value} for value in (1.0, 4.0, 9.0)]
    results = simulate_many(kane, (0, 2), {x: 0.0, v: 0.0}, {m: 1.0},
                            cases, executor=thread_pool, t_eval=[1.0, 2.0],
                            specified={force: specified})
    assert specified.calls > 0      # the very object ran on the threads
    for case, result in zip(cases, results):
        assert result.success, result.message
        w = np.sqrt(case[k])
        exact = (np.sin(0.5 * result.t) - 0.5 * np.sin(w * result.t) / w
                 ) / (case[k] - 0.25)
        np.testing.assert_allclose(result.q[:, 0], exact, atol=1e-8)
    # a process pool cannot take it, and says so before any work
    executor = RecordingExecutor()
    with pytest.raises(TypeError, match='the options cannot be sent'):
        simulate_many(kane, (0, 2), {x: 0.0, v: 0.0}, {m: 1.0}, cases,
                      executor=executor, specified={force: specified})
    assert executor.submitted == 0


CRASH_STIFFNESS = 17.0


def _die_on_one_case():
    """Executor initializer: the worker process dies (os._exit) when it
    runs the case with k = CRASH_STIFFNESS."""
    import os
    from sympy_loads._simulation import workers
    simulate_here = workers._simulate_case

    def simulate_or_die(simulation, t_span, initial, constants, options):
        if CRASH_STIFFNESS in constants.values():
            os._exit(3)
        return simulate_here(simulation, t_span, initial, constants,
                             options)

    workers._simulate_case = simulate_or_die


def test_a_dead_worker_loses_only_its_case(line_particle):
    """Case 5 of 12 kills its worker process: the pool breaks, the cases
    that did not finish run again on a fresh pool, and only case 5 fails,
    with a message that names it."""
    m, k = sm.symbols('m k')
    line = line_particle(m, lambda x, v: -k * x)
    kane, x, v = line.kane, line.x, line.v
    stiffness = np.linspace(1.0, 9.0, 12)
    stiffness[5] = CRASH_STIFFNESS
    cases = [{k: value} for value in stiffness]
    with cf.ProcessPoolExecutor(
            2, mp_context=multiprocessing.get_context('spawn'),
            initializer=_die_on_one_case) as pool:
        results = simulate_many(kane, (0, 1), {x: 0.1, v: 0.0}, {m: 1.0},
                                cases, executor=pool, t_eval=[1.0],
                                chunksize=2)
        # the pool passed stays broken: a later study runs on a fresh one
        again = simulate_many(kane, (0, 1), {x: 0.1, v: 0.0}, {m: 1.0},
                              cases[:2], executor=pool, t_eval=[1.0])
    assert [r.q[-1, 0] for r in again] == [r.q[-1, 0] for r in results[:2]]
    assert [i for i, r in enumerate(results) if not r.success] == [5]
    assert 'cases[5]' in results[5].message
    assert 'BrokenProcessPool' in results[5].message
    others = np.delete(stiffness, 5)
    finals = np.delete([r.q[-1, 0] if r.success else np.nan
                        for r in results], 5)
    np.testing.assert_allclose(finals, 0.1 * np.cos(np.sqrt(others)),
                               atol=1e-7)
