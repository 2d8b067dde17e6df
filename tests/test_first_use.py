"""An installation's first use of the compiled back end (issue 39, item
1): it is announced before numba compiles, with the time to expect and a
line per group of kernels, on the stream users see (the ``sympy_loads``
logger, printed on standard error); every kernel a run may need is
compiled at once, so that a later kind of run (another model, feedback,
impacts, a constraint solver) compiles nothing; processes starting
together on an empty cache compile once (the others wait for it); and
``python -m sympy_loads --compile`` does it ahead of time.

The children run with ``NUMBA_CACHE_DIR`` set to a new, empty directory
(numba then reads and writes its cache there only), so they really
compile; the number of compilations a child made is read from numba's
dispatcher statistics (``stats.cache_misses``) of every kernel. One full
compilation serves the module (:func:`first_uses`). No time is
asserted."""

import os
import re
import shutil
import sys
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest

from _child import code_command, finish, last_json, run, start

from sympy_loads._numeric import kernel_set

pytest.importorskip('numba')
pytest.importorskip('symengine')
if os.name != 'posix':
    pytest.skip('the cache directory checks need POSIX modes',
                allow_module_level=True)

TIMEOUT = 900      # the compilation takes 10-60 s; far above it

# how many kernels the child compiled (numba's cache misses, over every
# dispatcher of the engine) and its results, as the JSON line it prints
_COUNT = """
def _compiled():
    from sympy_loads._numeric import dop853, jump, linalg, newton, rhs
    total = 0
    for module in (dop853, jump, linalg, newton, rhs):
        for name in dir(module):
            kernel = getattr(module, name)
            if hasattr(kernel, 'stats') and hasattr(kernel, 'py_func'):
                total += sum(kernel.stats.cache_misses.values())
    return total
"""

# a ball of radius 0.1 dropped from 1.1 onto the floor, e = 0.8, run by
# the compiled DOP853 stepping with an impact
_BALL = """
import sympy as sm, sympy.physics.mechanics as me
from sympy_loads import Impact, simulate
y, v = me.dynamicsymbols('y v')
m, g = sm.symbols('m g')
N = me.ReferenceFrame('N')
O = me.Point('O'); O.set_vel(N, 0)
P = O.locatenew('P', y*N.y); P.set_vel(N, v*N.y)
kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v])
kane.kanes_equations([me.Particle('ball', P, m)], [(P, -m*g*N.y)])
floor = Impact(P, O, N.y, N, restitution=0.8, radius=0.1)
ball = simulate(kane, (0, 1), {y: 1.1, v: 0.0}, {m: 1.0, g: 9.81},
                impacts=[floor])
hit = ball.impacts[0]
out['ball'] = [hit.time, hit.normal_speed_before, hit.normal_speed_after]
"""

# a particle on the unit circle pushed by a force given as a function of
# time (the right-hand side then returns to Python at every evaluation,
# as the slider-crank example's motor does): the constraint solves and
# the right-hand side, not the compiled stepping
_CIRCLE = """
import numpy as np, sympy as sm, sympy.physics.mechanics as me
from sympy_loads import simulate
x, y, vx, vy, F = me.dynamicsymbols('x y v_x v_y F')
g = sm.Symbol('g')
N = me.ReferenceFrame('N'); O = me.Point('O'); O.set_vel(N, 0)
P = O.locatenew('P', x*N.x + y*N.y); P.set_vel(N, vx*N.x + vy*N.y)
kane = me.KanesMethod(N, [x], [vx], q_dependent=[y], u_dependent=[vy],
                      kd_eqs=[x.diff() - vx, y.diff() - vy],
                      configuration_constraints=[x**2 + y**2 - 1],
                      velocity_constraints=[x*vx + y*vy])
kane.kanes_equations([me.Particle('p', P, 1)], [(P, -g*N.y + F*N.x)])
circle = simulate(kane, (0, 0.2), {x: 0.3, y: -0.95, vx: 1.0, vy: 0.0},
                  {g: 9.81}, specified={F: lambda t: 0.0})
out['circle'] = [float(np.abs(circle.q[:, 0]**2 + circle.q[:, 1]**2
                              - 1).max()), bool(circle.success)]
"""

# a closed loop's positions and velocities by the constraint solver
_SOLVER = """
import numpy as np, sympy as sm
from sympy_loads import HolonomicConstraintSolver
q1, q2, q3 = sm.symbols('q1:4')
loop = [sm.cos(q1) + 4*sm.cos(q1 + q2) + 3*sm.cos(q1 + q2 + q3) - 5,
        sm.sin(q1) + 4*sm.sin(q1 + q2) + 3*sm.sin(q1 + q2 + q3)]
solver = HolonomicConstraintSolver(loop, [q1, q2, q3], [q2, q3])
batch = solver.solve_positions(np.tile(np.deg2rad([30.0, -75.0, 100.0]),
                                       (4, 1)))
qd = solver.solve_velocities(batch[0], [1.0, 0.0, 0.0])
out['solver'] = [float(np.abs(solver.residual(batch)).max()),
                 batch[0].tolist(), qd.tolist()]
"""


def _code(*parts):
    """A child's code: the payloads ``parts``, then the JSON line of their
    results and of the number of kernels it compiled."""
    return code_command('import json\nout = {}\n' + _COUNT
                        + ''.join(textwrap.dedent(p) for p in parts)
                        + 'out["compiled"] = _compiled()\n'
                        + 'print(json.dumps(out))\n')


def _child(cache, *parts):
    """Run the payloads ``parts`` in a child Python with numba's cache in
    ``cache``; returns ``(JSON result, standard error)``."""
    done = run(_code(*parts), cache, timeout=TIMEOUT)
    return last_json(done.stdout), done.stderr


def _announcements(stderr):
    return [line for line in stderr.splitlines()
            if line.startswith('sympy_loads: ')]


def _check_ball(ball):
    """The first impact of the ball against the closed form: it falls
    1 m in sqrt(2 / 9.81) s and strikes at sqrt(2 * 9.81) m/s, leaving at
    0.8 times that speed. The run's rtol is 1e-8 and the impact is located
    by Brent's method on the dense output: 1e-6 (relative) is a hundred
    times that tolerance."""
    time, before, after = ball
    speed = np.sqrt(2 * 9.81)
    assert time == pytest.approx(np.sqrt(2 / 9.81), rel=1e-6)
    assert before == pytest.approx(-speed, rel=1e-6)
    assert after == pytest.approx(0.8 * speed, rel=1e-6)


def _check_solver(solver):
    """The loop's residual within the solver's tolerance (1e-12), and the
    velocities on the constraints' tangent: Phi_q qdot = 0 is checked by
    central differences of the loop equations along qdot."""
    residual, q, qd = solver
    assert residual <= 1e-12

    def loop(q):
        a, b, c = q
        return np.array([np.cos(a) + 4 * np.cos(a + b)
                         + 3 * np.cos(a + b + c) - 5,
                         np.sin(a) + 4 * np.sin(a + b)
                         + 3 * np.sin(a + b + c)])
    h = 1e-6
    rate = (loop(np.add(q, h * np.array(qd)))
            - loop(np.subtract(q, h * np.array(qd)))) / (2 * h)
    # central differences: error O(h^2 |qd|^3 |Phi'''|) ~ 1e-10 here
    assert np.abs(rate).max() < 1e-8
    assert qd[0] == 1.0


def _compiling(stderr):
    """The lines that say the kernels are being compiled (not those that
    say loading them took a while, which a busy machine can print)."""
    return [line for line in _announcements(stderr)
            if 'numeric kernels' in line
            or line.startswith('sympy_loads: [')]


def _compiles(stderr):
    return any('compiling the numeric kernels once' in line
               for line in _announcements(stderr))


@pytest.fixture(scope='module')
def first_uses(tmp_path_factory):
    """Two first uses started together on one empty cache: a closed loop
    whose input is a Python function (as the slider-crank example's
    motor is: it once compiled only the kernels that kind of run needs,
    and the bicycle then compiled the stepping for 7.6 s more), and the
    compiled stepping with an impact plus a constraint solver's batch and
    velocities; then a later process running all three. Returns their
    ``(JSON result, standard error)`` as ``circle``, ``ball``, ``later``,
    the cache directory, and which of the two first ones compiled."""
    cache = tmp_path_factory.mktemp('first-use') / 'numba-cache'
    processes = [start(_code(_CIRCLE), cache),
                 start(_code(_BALL, _SOLVER), cache)]
    outputs = [finish(process, TIMEOUT) for process in processes]
    circle, ball = [(last_json(out), err) for out, err in outputs]
    later = _child(cache, _CIRCLE, _BALL, _SOLVER)
    compiled = [run_ for run_ in (circle, ball) if _compiles(run_[1])]
    waited = [run_ for run_ in (circle, ball) if not _compiles(run_[1])]
    return SimpleNamespace(cache=cache, circle=circle, ball=ball,
                           later=later, compiled=compiled, waited=waited)


def _check_circle(circle):
    residual, success = circle
    assert success and residual <= 1e-12      # the Newton tolerance


def test_first_run_announces_and_compiles_every_kind_of_run(first_uses):
    """The first compiled run of an installation says, before numba
    starts, that it compiles and how long that takes (a range on an idle
    to a busy 2-core machine, in an empty cache directory), then one line
    per group of kernels, then the total; a later process running other
    kinds of runs compiles nothing and gets the right answers."""
    assert len(first_uses.compiled) == 1, [
        err[-2000:] for _, err in (first_uses.circle, first_uses.ball)]
    result, stderr = first_uses.compiled[0]
    lines = _announcements(stderr)
    start_line = [line for line in lines if 'compiling the numeric' in line]
    assert start_line, stderr[-3000:]
    assert re.search(r': \d+-\d+ s from an idle to a busy 2-core '
                     r'machine;', start_line[0]), start_line
    groups = [line for line in lines if line.startswith('sympy_loads: [')]
    total = len(kernel_set.groups())
    assert len(groups) == total, lines
    assert {line.split('] ')[0] for line in groups} == {
        f'sympy_loads: [{k}/{total}' for k in range(1, total + 1)}
    assert any('compiled the numeric kernels in' in line for line in lines)
    assert result['compiled'] > 0
    later, stderr = first_uses.later
    assert later['compiled'] == 0, later['compiled']
    assert not _compiling(stderr), stderr[-3000:]
    _check_ball(later['ball'])
    _check_solver(later['solver'])
    _check_circle(later['circle'])


def test_first_uses_started_together_compile_once(first_uses):
    """Two processes starting together on an empty cache (two sessions,
    the workers of a parameter study) compile the kernels once: one
    compiles, the other says it waits for it, compiles nothing (numba
    finds every kernel in the cache) and gets the right answers."""
    assert len(first_uses.compiled) == 1
    assert len(first_uses.waited) == 1
    result, stderr = first_uses.waited[0]
    assert result['compiled'] == 0, result['compiled']
    assert any('another process is compiling the numeric kernels' in line
               and 'waiting for it' in line
               for line in _announcements(stderr)), stderr[-3000:]
    _check_circle(first_uses.circle[0]['circle'])
    _check_ball(first_uses.ball[0]['ball'])
    _check_solver(first_uses.ball[0]['solver'])


def test_compile_time_is_recorded_for_the_next_announcement(first_uses,
                                                             tmp_path):
    """The compilation keeps its wall time in the cache directory (the
    figure it logged), and a later compilation there (after an update of
    the package) announces that figure; without a record (or with a
    damaged one, or one of another number of jobs) the measured range is
    announced."""
    _, stderr = first_uses.compiled[0]
    logged = float(re.search(r'compiled the numeric kernels in ([0-9.]+) s',
                             stderr).group(1))
    directory = next(p.parent for p in first_uses.cache.rglob('*.nbi'))
    assert kernel_set.recorded_seconds(str(directory), 2) == \
        pytest.approx(logged, abs=0.051)
    assert kernel_set.expected(str(directory), 2)[:2] == \
        pytest.approx((logged, logged), abs=0.051)
    low, high, why = kernel_set.expected(str(directory), 1)
    assert (low, high) == (kernel_set.EXPECTED[1],
                           kernel_set.BUSY_FACTOR * kernel_set.EXPECTED[1])
    assert 'from an idle to a busy 2-core machine' in why
    (tmp_path / kernel_set.RECORD_FILE).write_text('{"seconds": "x"}')
    assert kernel_set.recorded_seconds(str(tmp_path), 2) is None
    assert kernel_set.expected(str(tmp_path), 2)[0] == kernel_set.EXPECTED[2]
    kernel_set.record_seconds(str(tmp_path), 12.34, 2)
    assert kernel_set.expected(str(tmp_path), 2)[:2] == (12.3, 12.3)


def test_compile_ahead_from_the_command_line(first_uses, tmp_path):
    """``python -m sympy_loads --compile`` compiles what is missing from
    the cache (here ``--jobs 1``, in one process, on a copy of the cache
    whose event-location kernels were removed), announced with the time
    to expect and one line for the group; a second call says there is
    nothing to do, and then no run compiles anything."""
    cache = tmp_path / 'numba-cache'
    shutil.copytree(first_uses.cache, cache)
    removed = [path for path in cache.rglob('*.nbi') if path.name.split(
        '-')[0] in ('dop853.event_value', 'dop853.dense',
                    'dop853.samples_until')]
    assert len(removed) == 3, sorted(p.name for p in cache.rglob('*.nbi'))
    for path in removed:
        path.unlink()
    command = [sys.executable, '-m', 'sympy_loads', '--compile']
    stderr = run(command + ['--jobs', '1'], cache, timeout=TIMEOUT).stderr
    lines = _announcements(stderr)
    assert 'compiling the numeric kernels once' in lines[0], stderr
    assert '(3 kernels in 1 group)' in lines[0], lines[0]
    assert [line.split(': ', 1)[1].rsplit(': ', 1)[0]
            for line in lines[1:-1]] == [
        '[1/1] impacts: event location and dense output'], lines
    assert 'compiled the numeric kernels in' in lines[-1]
    stderr = run(command, cache, timeout=TIMEOUT).stderr
    assert 'already compiled' in stderr and '[1/' not in stderr
    after, stderr = _child(cache, _BALL, _SOLVER)
    assert after['compiled'] == 0, after['compiled']
    assert not _compiling(stderr), stderr[-3000:]
    _check_ball(after['ball'])
    _check_solver(after['solver'])


_STAGES = """
import json
from numba import types
from sympy_loads._numeric import dop853, newton, rhs
V, M, Ix = types.float64[::1], types.float64[:, ::1], types.int64[::1]
i, f = types.int64, types.float64
dop853._stages.compile((i, i, f, f, V, M, M, V, V, V, Ix, Ix, V))
print(json.dumps({kernel.py_func.__name__: sum(
    kernel.stats.cache_misses.values()) for kernel in (
        dop853._stages, rhs.rhs_packed, rhs.correct, newton.newton)}))
"""


def test_the_stepping_does_not_compile_the_right_hand_side_again(tmp_path):
    """The stepping's stages call the right-hand side by address
    (``dop853.with_calls``): compiling them in an empty cache compiles
    neither the right-hand side nor the constraint solves it calls (which
    the other group compiles, at the same time in the other process),
    where numba once compiled and optimized that whole chain again into
    the stepping, half of the first use's compilation."""
    done = run(code_command(_STAGES), tmp_path / 'numba-cache',
               timeout=TIMEOUT)
    assert last_json(done.stdout) == {'_stages': 1, 'rhs_packed': 0,
                                      'correct': 0, 'newton': 0}


def test_numpy_back_end_compiles_nothing(tmp_path):
    """``backend='numpy'`` (the fallback where numba or SymEngine cannot
    be imported) announces nothing, compiles nothing and writes nothing
    to numba's cache, and still gets the ball's impact right."""
    cache = tmp_path / 'numba-cache'
    ball = _BALL.replace('impacts=[floor])',
                         "impacts=[floor], backend='numpy')")
    assert ball != _BALL
    result, stderr = _child(cache, ball)
    assert result['compiled'] == 0
    assert not _compiling(stderr), stderr[-3000:]
    assert not cache.exists() or not any(cache.rglob('*.nbi'))
    _check_ball(result['ball'])


def _defined_functions(entries, names):
    """A child script printing, as JSON, which of ``names`` each kernel
    of ``entries`` (code making the list ``entries`` of ``(kernel,
    signature)``) defines in its final (linked) LLVM module: numba's
    mangled names hold the module, then the function's name after its
    length and before its ABI tags (``6newton``, ``B2v...``)."""
    return f"""
import json, re
from sympy_loads._numeric import dop853, kernel_set
{entries}
found = {{}}
for kernel, signature in entries:
    kernel.compile(signature)
    found[kernel.py_func.__name__] = sorted({{
        name for name in {tuple(names)!r}
        for line in kernel.inspect_llvm(signature).splitlines()
        if line.startswith('define') and re.search(
            r'@\\S*\\d' + name + r'B\\d', line)}})
print(json.dumps(found))
"""


_RHS_GROUP = _defined_functions(
    "from sympy_loads._numeric import newton\n"
    "entries = dict(kernel_set.groups())["
    "'right-hand side of the equations of motion']\n"
    "entries.append((newton.newton, newton.NEWTON_TYPES))",
    ('correct', 'newton', 'qr_solve'))


def test_the_right_hand_side_does_not_compile_the_constraint_solve_again(
        tmp_path):
    """The right-hand side's kernels call the constraint correction
    (``rhs.correct``: Newton-Raphson, its QR solve, the velocity solve)
    by its address in the model's ``fn`` (``rhs.with_calls``), and
    ``correct`` calls Newton-Raphson (``newton.newton``) by address too:
    none of them links and optimizes that chain again into its own code,
    where ``rhs_packed``, ``inputs_packed`` and ``states`` once each did
    (a third of their group's compilation) and ``correct`` compiled
    Newton-Raphson a second time in the process that compiles the
    constraint solves. Read from the functions each kernel's final LLVM
    module defines, in a child compiling into an empty cache; ``newton``
    itself defines the chain, which shows that the names are found."""
    done = run(code_command(_RHS_GROUP), tmp_path / 'numba-cache',
               timeout=TIMEOUT)
    assert last_json(done.stdout) == {
        'correct': ['correct'], 'rhs_packed': [], 'inputs_packed': [],
        'derivatives': [], 'states': [], 'newton': ['newton', 'qr_solve']}


_ADVANCE = _defined_functions(
    "from sympy_loads._numeric import jump\n"
    "entries = dict(kernel_set.groups())['DOP853 stepping']\n"
    "entries.append((dop853.strike, dop853.STRIKE_TYPES))\n"
    "entries.append((jump.impact_jump, jump.IMPACT_JUMP_TYPES))",
    ('strike', 'impact_jump', 'speed_basis'))


def test_the_stepping_does_not_compile_the_impacts_jump_again(tmp_path):
    """The stepping (``dop853.advance``) calls ``dop853.strike``, which
    locates an impact, by its address in the stepping's ``fn``
    (``dop853.with_calls``), and ``strike`` calls the impact's jump
    (``jump.impact_jump`` and the velocity solve) by address too: the
    stepping's code defines none of them, where numba once inlined
    ``strike`` into it and compiled that chain again there (half of the
    stepping's compilation), and ``strike``'s code does not define the
    jump, which the other process compiles. ``impact_jump`` itself
    defines its chain, which shows that the names are found."""
    done = run(code_command(_ADVANCE), tmp_path / 'numba-cache',
               timeout=TIMEOUT)
    assert last_json(done.stdout) == {
        'advance': [], 'strike': ['strike'],
        'impact_jump': ['impact_jump', 'speed_basis']}


_NEWTON_KERNELS = _defined_functions(
    "entries = [(kernel, signature) for _, group in kernel_set.groups()\n"
    "           for kernel, signature in group\n"
    "           if kernel.py_func.__module__.endswith('_numeric.newton')]",
    ('newton', 'qr_solve'))


def test_the_constraint_solves_do_not_compile_newton_again(tmp_path):
    """The constraint solver's kernels (``newton.newton_packed``, a single
    solve, and ``newton.newton_batch``, a batch) call Newton-Raphson
    (``newton.newton`` and its QR solve) by its address in the engine's
    ``fn`` (``newton.with_newton``): neither links and optimizes that
    chain again into its own code, where both once did (and the
    right-hand side's ``rhs.correct`` a third time, in the other
    process). ``newton`` is an entry of :func:`.kernel_set.groups` of its
    own; it and the velocity and acceleration solves (``rates``, which
    call ``qr_solve`` directly) define the names, which shows that they
    are found."""
    done = run(code_command(_NEWTON_KERNELS), tmp_path / 'numba-cache',
               timeout=TIMEOUT)
    assert last_json(done.stdout) == {
        'newton': ['newton', 'qr_solve'], 'newton_packed': [],
        'newton_batch': [], 'rates': ['qr_solve'],
        'rates_batch': ['qr_solve']}


def test_the_helper_process_imports_only_the_kernels():
    """The helper process of a first compilation starts on the kernels'
    modules alone (its critical path): neither SymPy nor the package's
    other modules are imported there (they took about 1 s)."""
    import subprocess
    package = os.path.dirname(os.path.abspath(kernel_set.__file__))
    code = (kernel_set._CHILD + "\nprint('IMPORTED', sorted(m for m in "
            "sys.modules if m == 'sympy' or m.startswith('sympy_loads.')"
            " and not m.startswith('sympy_loads._numeric')))")
    done = subprocess.run(
        [sys.executable, '-c', code, os.path.dirname(package)],
        capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert 'IMPORTED []' in done.stdout, done.stdout
