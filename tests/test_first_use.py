"""An installation's first use of the compiled back end (issue 39, item
1): it is announced before numba compiles, with the time to expect and a
line per group of kernels, on the stream users see (the ``sympy_loads``
logger, printed on standard error); every kernel a run may need is
compiled at once, so that a later kind of run (another model, feedback,
impacts, a constraint solver) compiles nothing; and
``python -m sympy_loads --compile`` does it ahead of time.

Each test runs child processes with ``NUMBA_CACHE_DIR`` set to a new,
empty directory (numba then reads and writes its cache there only), so
the children really compile; the number of compilations a child made is
read from numba's dispatcher statistics (``stats.cache_misses``) of
every kernel. No time is asserted."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip('numba')
pytest.importorskip('symengine')
if os.name != 'posix':
    pytest.skip('the cache directory checks need POSIX modes',
                allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
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


def _child(cache, *parts):
    """Run the code ``parts`` in a child Python with numba's cache in
    ``cache``; returns ``(JSON result, standard error)``."""
    code = ('import json\nout = {}\n' + _COUNT
            + ''.join(textwrap.dedent(p) for p in parts)
            + 'out["compiled"] = _compiled()\nprint(json.dumps(out))\n')
    return _run([sys.executable, '-c', code], cache)


def _run(command, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache),
               PYTHONPATH=str(ROOT))
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    result = json.loads(lines[-1]) if lines and lines[-1].startswith('{') \
        else None
    return result, done.stderr


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


def test_first_run_announces_and_compiles_every_kind_of_run(tmp_path):
    """The first compiled run of an installation (here a closed loop whose
    input is a Python function, which the slider-crank example's motor
    is: it once compiled only the kernels that kind of run needs, and the
    bicycle then compiled the stepping for 7.6 s more) says, before
    numba starts, that it compiles and how long that takes, then one line
    per group of kernels, then the total; a later process running other
    kinds of runs (the compiled stepping with an impact, a constraint
    solver's batch and velocities) compiles nothing and gets the right
    answers."""
    cache = tmp_path / 'numba-cache'
    first, stderr = _child(cache, _CIRCLE)
    lines = _announcements(stderr)
    assert lines, stderr[-3000:]
    assert 'compiling the numeric kernels once' in lines[0]
    assert 'about 30 s on an idle 2-core machine' in lines[0]
    groups = [line for line in lines if line.startswith('sympy_loads: [')]
    assert len(groups) == 4, lines
    assert {line.split('] ')[0] for line in groups} == {
        f'sympy_loads: [{k}/4' for k in range(1, 5)}
    assert any('compiled the numeric kernels in' in line for line in lines)
    assert first['compiled'] > 0
    residual, success = first['circle']
    assert success and residual <= 1e-12      # the Newton tolerance
    later, stderr = _child(cache, _BALL, _SOLVER)
    assert later['compiled'] == 0, later['compiled']
    assert not [line for line in _announcements(stderr)
                if 'compil' in line], stderr[-3000:]
    _check_ball(later['ball'])
    _check_solver(later['solver'])


def test_compile_ahead_from_the_command_line(tmp_path):
    """``python -m sympy_loads --compile`` compiles every kernel into the
    cache (announced, one line per group; here ``--jobs 1``, all in one
    process, where the first-use test above takes the default, the
    stepping in a helper process), a second call says there is nothing
    to do, and then no run compiles anything."""
    cache = tmp_path / 'numba-cache'
    command = [sys.executable, '-m', 'sympy_loads', '--compile']
    _, stderr = _run(command + ['--jobs', '1'], cache)
    lines = _announcements(stderr)
    assert 'compiling the numeric kernels once' in lines[0], stderr
    assert sum(line.startswith('sympy_loads: [') for line in lines) == 4
    assert 'compiled the numeric kernels in' in lines[-1]
    _, stderr = _run(command, cache)
    assert 'already compiled' in stderr and '[1/4]' not in stderr
    after, stderr = _child(cache, _CIRCLE, _BALL, _SOLVER)
    assert after['compiled'] == 0, after['compiled']
    assert not [line for line in _announcements(stderr)
                if 'compil' in line], stderr[-3000:]
    _check_ball(after['ball'])
    _check_solver(after['solver'])
    residual, success = after['circle']
    assert success and residual <= 1e-12


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
    assert not [line for line in _announcements(stderr)
                if 'compil' in line], stderr[-3000:]
    assert not cache.exists() or not any(cache.rglob('*.nbi'))
    _check_ball(result['ball'])
