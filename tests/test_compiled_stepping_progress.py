"""The DOP853 stepping in compiled code always ends: runs that once
looped inside it (steps of a few units in the last place accepted, one
after another, so that the run crept on for ever and, without
``t_eval``, grew its output buffers to 24 GiB) now end with the right
answer or a clear failure.

Each run goes in a child process with a time and an address-space limit,
so that a regression fails as a fast assertion (a timeout or a
MemoryError in the child), not as a hung test session."""

import numpy as np
import sympy as sm
from scipy.integrate import solve_ivp

from _child import code_command, last_json, run

# the child's limits: far above what these runs need (a few seconds,
# some hundred MB; the kernels' first compilation included), far below
# what the runaway needed (for ever, 24 GiB)
CHILD_SECONDS = 300
CHILD_BYTES = 4 * 2**30


def _run_child(code):
    """Run ``code`` (which prints one JSON line last) in a child Python
    under the limits above; returns the decoded JSON."""
    done = run(code_command(code), timeout=CHILD_SECONDS, memory=CHILD_BYTES)
    return last_json(done.stdout)


# the particle on the unit circle, x independent, pushed by a constant
# force F along N.x: the dependent block d(x**2 + y**2)/dy = 2 y degrades
# as the particle passes x = 1, where the compiled stepping must stop
# and change the partition
_CIRCLE = """
import json, numpy as np, sympy as sm, sympy.physics.mechanics as me
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
start = {x: 0.3, y: -0.95, vx: 6.0, vy: 0.0}
out = {}
for backend in ('compiled', 'numpy'):
    # (without t_eval first: the runaway then ran out of memory at once)
    for t_eval in (None, np.linspace(0, 0.3, 7)):
        r = simulate(kane, (0, 0.3), start, {g: 9.81}, specified={F: 3.0},
                     t_eval=t_eval, rtol=1e-10, atol=1e-12, backend=backend)
        key = backend + ('' if t_eval is None else '_t_eval')
        out[key] = dict(success=bool(r.success), message=r.message,
                        t=r.t.tolist(), y=r.y.tolist(),
                        partitions=[p.time for p in r.partitions],
                        backend=r.backend)
print(json.dumps(out))
"""


def _circle_reference(model, t_eval):
    """SymPy's own equations of the particle on the circle (``model``,
    the conftest's ``circle_particle()``: its ``mass_matrix_full`` and
    ``forcing_full``, with the acceleration-level constraint) lambdified
    and integrated by SciPy at tight tolerance, from the state of the
    test: ``[x, y, v_x, v_y]`` at ``t_eval``."""
    kane, x, y, vx, vy = model.kane, model.x, model.y, model.vx, model.vy
    g, F = model.g, model.F
    state = [x, y, vx, vy]
    values = {g: 9.81, F: 3.0}
    M = sm.lambdify([state], kane.mass_matrix_full.subs(values))
    f = sm.lambdify([state], kane.forcing_full.subs(values))

    def rhs(t, s):
        return np.linalg.solve(np.asarray(M(s), dtype=float),
                               np.asarray(f(s), dtype=float).ravel())

    y0 = -np.sqrt(1 - 0.3**2)
    sol = solve_ivp(rhs, (0, 0.3), [0.3, y0, 6.0, -0.3 * 6.0 / y0],
                    method='DOP853', t_eval=t_eval, rtol=1e-13, atol=1e-13)
    assert sol.success
    return sol.y


def test_constant_input_and_a_change_of_partition_end_with_the_right_answer(
        circle_particle):
    """A constant specified input (a value, which the compiled stepping
    takes) and a change of partition: the particle reaches the threshold
    with x' = 0.048, so a step of 5e-15 s moves x by less than half a unit
    in the last place while the step after it, ten times longer, crosses
    the threshold. The stepping, which shortened its steps until one
    "could not shrink further" (ten units in the last place of t), went
    on accepting those steps, which change nothing, for ever (with
    ``t_eval``; without it, doubling its buffers until numpy could not
    allocate 24 GiB). Now it stops at the threshold, changes the
    partition and agrees with SymPy's own equations integrated by SciPy
    and with the NumPy back end, with and without ``t_eval``.

    Tolerance: both runs at rtol 1e-10, the reference at 1e-13, over
    0.3 s of some hundred steps on speeds of 6 m/s: 1e-7 is a hundred
    times the accumulated integrator tolerance."""
    out = _run_child(_CIRCLE)
    t_eval = np.linspace(0, 0.3, 7)
    reference = _circle_reference(circle_particle(), t_eval)
    for key in ('compiled_t_eval', 'numpy_t_eval', 'compiled', 'numpy'):
        run = out[key]
        assert run['success'], (key, run['message'])
        # the change was made where x passes 1 (y = -0.0095: the block's
        # measure 2 |y| / 1.91 at the threshold 1e-2), at t = 0.2154
        assert len(run['partitions']) >= 1, key
        assert 0.2 < run['partitions'][0] < 0.23, (key, run['partitions'])
        # (SimulationResult.y: one row per sample, [x, y, v_x, v_y])
        t, y = np.array(run['t']), np.array(run['y']).T
        assert t[-1] == 0.3
        if key.endswith('t_eval'):
            np.testing.assert_array_equal(t, t_eval)
            np.testing.assert_allclose(y, reference, atol=1e-7, err_msg=key)
        else:
            assert np.all(np.diff(t) > 0), key
            np.testing.assert_allclose(y[:, -1], reference[:, -1],
                                       atol=1e-7, err_msg=key)
    assert out['compiled_t_eval']['backend'] == 'compiled'


# a box whose corner C meets the floor through the textbook's penetration
# (|h| - h)/2, to the power 3/2: where h > 0 its round-off can come out
# negative (-2e-16) and the load NaN; the seeded draw of a user's sweep
_BLOCK = """
import json, numpy as np, sympy as sm, sympy.physics.mechanics as me
from sympy_loads import SimulationError, simulate
N, B = me.ReferenceFrame('N'), me.ReferenceFrame('B')
q = me.dynamicsymbols('x y z q1 q2 q3', real=True)
u = me.dynamicsymbols('u1:7', real=True)
B.orient_body_fixed(N, q[3:], 'XYZ')
w = B.ang_vel_in(N)
kd = [q[i].diff() - u[i] for i in range(3)] + [
    w.dot(B.x) - u[3], w.dot(B.y) - u[4], w.dot(B.z) - u[5]]
B.set_ang_vel(N, u[3]*B.x + u[4]*B.y + u[5]*B.z)
O = me.Point('O'); O.set_vel(N, 0)
G = O.locatenew('G', q[0]*N.x + q[1]*N.y + q[2]*N.z)
G.set_vel(N, u[0]*N.x + u[1]*N.y + u[2]*N.z)
rng = np.random.default_rng(1)
for trial in range(3):
    a, b, c = (sm.Float(v) for v in rng.uniform(0.1, 1.0, 3))
    angles, speeds = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 6)
C = G.locatenew('C', -a/2*B.x - b/2*B.y - c/2*B.z); C.v2pt_theory(G, N, B)
m, g, k = sm.symbols('m g k', positive=True)
I = me.inertia(B, m*(b**2 + c**2)/12, m*(a**2 + c**2)/12,
               m*(a**2 + b**2)/12)
h = C.pos_from(O).dot(N.z)
d = (sm.Abs(h) - h)/2
kane = me.KanesMethod(N, q, u, kd_eqs=kd)
kane.kanes_equations([me.RigidBody('b', G, B, m, (I, G))],
                     [(C, k*d**sm.Rational(3, 2)*N.z), (G, -m*g*N.z)])
ic = dict(zip(q, [0, 0, 1.0] + list(angles))); ic.update(zip(u, speeds))
out = {}
for backend in ('compiled', 'numpy'):
    try:
        r = simulate(kane, (0, 0.3), ic, {m: 1.0, g: 9.81, k: 1e4},
                     backend=backend)
    except SimulationError as e:
        out[backend] = dict(success=False, message=str(e), error=True)
    else:
        out[backend] = dict(success=bool(r.success), message=r.message,
                            t=r.t.tolist(), y=r.y.tolist(), error=False)
print(json.dumps(out))
"""


def test_a_right_hand_side_that_turns_nan_ends_the_compiled_stepping():
    """The compiled right-hand side of this box is NaN at points next to
    its trajectory (round-off makes the corner's penetration -2e-16
    above the floor, and d**1.5 is NaN): the stepping rejected each
    step with a NaN stage and accepted the steps of 2e-16 s between them,
    creeping on for ever while its output buffers doubled to 268 million
    rows. Now such a run ends: it stops where the stepping cannot make
    progress and hands the step to the diagnosing path, which reports a
    NaN (``the equations of motion are not finite at t = ...``) or,
    where it copes, lets SciPy's DOP853 take the rest. Either way the
    answer is never silently wrong: a finished run agrees with the NumPy
    back end (free flight at 1 m above the floor over 0.3 s: the
    trajectory is a parabola and a rotation, 1e-6 is a hundred times the
    default tolerances' global error)."""
    out = _run_child(_BLOCK)
    numpy_run, compiled = out['numpy'], out['compiled']
    assert numpy_run['success'], numpy_run['message']
    if compiled['success']:
        np.testing.assert_allclose(np.array(compiled['y'])[-1],
                                   np.array(numpy_run['y'])[-1],
                                   atol=1e-6)
        assert compiled['t'][-1] == 0.3
    else:
        assert 'not finite at t = ' in compiled['message'], compiled


def test_output_buffers_stay_bounded():
    """Flushing the compiled stepping's output buffers (without
    ``t_eval``) keeps the samples written and grows the buffers only up to
    a bound: a run of many pauses no longer doubles them each time."""
    from sympy_loads._simulation.integrators import _OUTPUT_ROWS, _flush
    n = 3
    out_t, out_y = np.empty(4), np.empty((4, n))
    out_t[:] = np.arange(4)
    out_y[:] = np.arange(12).reshape(4, n)
    times, states = [], []
    out_t, out_y = _flush(times, states, out_t, out_y, 3)
    np.testing.assert_array_equal(times[0], [0, 1, 2])
    np.testing.assert_array_equal(states[0], np.arange(9).reshape(3, n).T)
    assert out_t.size == 8 and out_y.shape == (8, n)
    for _ in range(60):
        out_t, out_y = _flush(times, states, out_t, out_y, 0)
    assert out_t.size == _OUTPUT_ROWS and out_y.shape == (_OUTPUT_ROWS, n)


def test_a_stepping_that_stalls_is_recognised():
    """The guard on the compiled stepping's progress between its returns
    to Python: 20 000 steps that moved t by 1e-10 out of 0.3 (steps of
    90 spacings of the numbers at 0.3) would need some 10**13 more; 20 000
    that moved it by 1e-3, 6 * 10**6. A stiff start, 20 000 steps over
    1e-4 s of a 20 s run, would need 4 * 10**9 more at that pace but its
    steps of 5e-9 s are progress (1.4 million spacings at 20)."""
    from sympy_loads._simulation.integrators import _stalled
    assert _stalled(0.2, 0.2 + 1e-10, 0.3, 20_000)
    assert not _stalled(0.2, 0.2 + 1e-3, 0.3, 20_000)
    assert not _stalled(0.2, 0.3, 0.3, 20_000)
    assert _stalled(0.2, 0.2, 0.3, 20_000)
    assert _stalled(-0.2, -0.2 - 1e-12, -0.3, 20_000)
    assert not _stalled(0.0, 1e-4, 20.0, 20_000)


def test_a_stalled_stepping_is_reported_with_the_kernels_status():
    """What the run loop does with the guard's answer: the message names
    the kernel's status and the time; a stepping that moves on gets
    none, and the total of steps is counted across returns."""
    from sympy_loads._numeric import S_T, S_WRITTEN, STATE_SIZE
    from sympy_loads._numeric import dop853 as kernel
    from sympy_loads._simulation.integrators import (_DOP853_MAX_STEPS,
                                                     _progress)
    state = np.zeros(STATE_SIZE)
    state[S_T] = 0.2 + 1e-10
    total, stall = _progress(kernel, kernel.PAUSED, state, 0.2, 0, 0.3, 0)
    assert total == kernel.PAUSE_STEPS
    assert 'made no progress' in stall and 'kernel status PAUSED' in stall
    assert 't = 0.2 ' in stall
    state[S_T], state[S_WRITTEN] = 0.25, 256
    total, stall = _progress(kernel, kernel.FULL, state, 0.2, 0, 0.3, total)
    assert total == kernel.PAUSE_STEPS + 256 and stall == ''
    total, stall = _progress(kernel, kernel.FULL, state, 0.2, 0, 0.3,
                             _DOP853_MAX_STEPS)
    assert 'kernel status FULL' in stall
