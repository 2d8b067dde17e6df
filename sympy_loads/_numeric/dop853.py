"""DOP853 stepping in compiled code on the compiled right-hand side, with
its dense output and the sign changes of the impacts' gaps.

The method and its step-size control are those of SciPy's ``solve_ivp``
DOP853 (E. Hairer's DOP853 [Hairer1993]_: the 8th-order pair of Dormand
and Prince with the combined 5th- and 3rd-order error estimate, the
7th-order dense output from three extra stages, and SciPy's initial step,
safety factor 0.9 and step ratios 0.2 to 10), step for step, so the two
take the same steps and agree to rounding errors. What differs is where
the loop runs: here the stages call the compiled right-hand side
(:func:`.rhs.rhs_packed`, called by its address, :func:`with_calls`)
without returning to Python, which saves the
0.1 ms of Python work per step of ``solve_ivp`` and the 1-2 us of every
evaluation's Python call; a run returns to Python only when it ends, when
an impact's gap changes sign within a step (Python then locates the root
on the dense output, see :func:`event_value`), every ``PAUSE_STEPS`` steps
(so a long run stays interruptible), or when an evaluation fails at a step
that cannot shrink further (the diagnosing path then reports why).

One departure from ``solve_ivp``: an evaluation that fails at a trial
stage (the dependent coordinates cannot be solved there, or the
derivatives are not finite) rejects the step, which is retried at a fifth
of its size, as a step whose error estimate is not finite already is.
``solve_ivp`` would stop at the exception; but a long step into a stiff
contact can put a trial stage far from the solution, e.g. off a closed
loop's assembly, which is no failure of the solution itself. Such
failures end the stepping (FAILED, the last accepted state kept) when
the step cannot shrink further, or after ``MAX_FAILURES`` of them before
the stepping has passed the end of the first failed trial step: where
the evaluations fail beyond a time the solution cannot pass (a
dependent block at the threshold of a change of partition, a
right-hand side that turns NaN), the steps that stay short of it are
accepted while they shrink, and once they are too short to change the
state (a unit in the last place of a slowly moving coordinate, much
longer than the ten units of ``t`` at which a step "cannot shrink") the
stepping would otherwise creep on for ever.

Impacts: where :func:`strike` can (one contact struck alone, clearly
approaching and leaving, room for its record), the impact is located (the
root of its gap on the dense output, by Brent's method [Brent1973]_) and
its jump applied (:mod:`.jump`) without returning to Python; every other
case returns EVENT, and Python resolves it
(:class:`sympy_loads._simulation.impacts.ImpactEngine`).

The Butcher tableau is Hairer's published one, as SciPy's public
``scipy.integrate.DOP853`` holds it (:func:`tableau`); it is passed in as
arrays.

``state`` (floats, read and updated by :func:`advance`), its entries named
in :mod:`sympy_loads._numeric` (``state[S_T]``, ...):

=================  =====================================================
name               meaning
=================  =====================================================
``S_T``            ``t``, the time of ``y``
``S_H``            the size of the next step to try (absolute)
``S_T_END``        the end of the interval
``S_RTOL``,        ``rtol``, ``atol``
``S_ATOL``
``S_MAX_STEP``     the largest step
``S_NEXT_SAMPLE``  index of the next sample of ``t_eval`` (the run's
                   samples)
``S_WRITTEN``      samples written into ``out_t``, ``out_y``
``S_NFEV``         evaluations of the right-hand side
``S_T_OLD``        the start of the last step (its dense output is in
                   ``F`` and ``y_old``)
``S_DIRECTION``    direction of integration (1 or -1)
``S_T_FAILED``     the time of a failed evaluation (its state is in
                   ``stage``)
``S_IMPACTS``      number of impacts
``S_PER_IMPACT``   outputs per impact in the impact function
``S_STRUCK``       impacts resolved in compiled code (:func:`strike`) and
                   recorded
``S_RESOLVE``      nonzero: resolve impacts in compiled code where
                   :func:`strike` can
``S_FRESH``        nonzero: ``f`` is not yet the derivative at ``(t, y)``;
                   :func:`advance` evaluates it first (and, where
                   ``state[S_H]`` is NaN, chooses the first step as
                   ``solve_ivp`` does, :func:`start`)
``S_BRACKET_END``  at an EVENT: the end of the bracket of the gaps' roots,
                   ``t_new`` or, where a gap dips below zero inside the
                   step and returns (:func:`first_closing`), the first
                   time found in the step at which a gap is zero or below
``S_FAILURES``     trial steps rejected for a failed evaluation since the
                   stepping last passed ``S_FAILED_UNTIL`` (0: none)
``S_FAILED_UNTIL`` the end of the first of those trial steps
=================  =====================================================

Gaps that dip inside a step: a contact that approaches at the step's
start (``v_n < 0``) or leaves at its end (``v_n > 0``) may have a minimum
of its gap inside the step, below zero even where the gap is positive at
both ends: a long step can carry a rod's second end through the floor
and back (and down again, so that the gap's sign change over the step
points at a later root than the first). For such contacts, and those
whose gap closes over the step, the gap on the dense output is scanned
for the first time it is zero or below (:func:`first_closing`); that
time ends the bracket of the event roots, so the first impact is found.
A gap that rises at the step's start and falls at its end has its
minimum at an end and is not scanned.

.. [Hairer1993] E. Hairer, S. P. Norsett, G. Wanner, Solving Ordinary
   Differential Equations I: Nonstiff Problems, 2nd ed., Springer, 1993,
   sec. II.5 (DOP853) and II.6 (dense output).
.. [Brent1973] R. P. Brent, Algorithms for Minimization without
   Derivatives, Prentice-Hall, 1973, ch. 4 (the zero of a function:
   bisection safeguarding secant and inverse quadratic interpolation).
"""

import functools
import math

import numpy as np
from numba import types

from . import (
    DIP_ITERATIONS, INVERSE_PHI, SCAN_POINTS, S_ATOL, S_BRACKET_END,
    S_DIRECTION, S_FAILED_UNTIL, S_FAILURES, S_FRESH, S_H, S_IMPACTS,
    S_MAX_STEP, S_NEXT_SAMPLE, S_NFEV, S_PER_IMPACT, S_RESOLVE, S_RTOL,
    S_STRUCK, S_T, S_T_END, S_T_FAILED, S_T_OLD, S_WRITTEN)
from .jit import call, inline, jit, native_caller
from . import jump
from .rhs import FN_MODEL_SIZE, INPUTS_PACKED_TYPES, RHS_PACKED_TYPES

__all__ = []

# advance() return codes
FINISHED, EVENT, FULL, FAILED, TOO_SMALL, PAUSED = 0, 1, 2, 3, 4, 5
# steps per call of advance() before it returns to Python
PAUSE_STEPS = 20_000
# trial steps rejected for a failed evaluation, before the stepping has
# passed the end of the first of them, after which it stops (FAILED)
MAX_FAILURES = 100
# stages of the method, and of the method with the dense output's
N_STAGES, N_EXTENDED = 12, 16
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
ERROR_EXPONENT = -1.0 / 8.0         # -1 / (error estimator order + 1)
EPS = np.finfo(np.float64).eps
# iterations of Brent's method (it converges in far fewer)
ROOT_ITERATIONS = 200
# the stepping's fn: the right-hand side's (the model's six entries and
# the addresses of correct, derivatives and Newton-Raphson, see
# .rhs.with_calls), then the addresses of rhs_packed, inputs_packed, strike
# and the impact's jump (with_calls)
FN_RHS, FN_INPUTS, FN_STRIKE, FN_JUMP = range(FN_MODEL_SIZE,
                                             FN_MODEL_SIZE + 4)
FN_SIZE = FN_JUMP + 1
# rhs_packed and inputs_packed called by address (see .jit.native_caller):
# so they are not compiled into the stepping again
_rhs = native_caller(RHS_PACKED_TYPES)
_inputs = native_caller(INPUTS_PACKED_TYPES)
# the argument types of strike(), which advance() calls by address: the
# impact's location is compiled once, by itself (after the stepping, in the
# same process, see .kernel_set), not into advance
_V, _M, _I = types.float64[::1], types.float64[:, ::1], types.int64[::1]
_f, _i = types.float64, types.int64
STRIKE_TYPES = (_f, _f, _f, _V, _V, _M, _V, _V, _V, _V, _I, _I, _V, _I, _V,
                _V, _V, _V, _i, _i, _V, _M, _i)
_strike = native_caller(STRIKE_TYPES, types.float64)
# strike() calls the impact's jump (.jump.impact_jump) by address, so that
# it is compiled by itself, in the process that does not compile strike
_jump = native_caller(jump.IMPACT_JUMP_TYPES, types.float64)


@functools.lru_cache(maxsize=None)
def tableau():
    """``(A, C, E3, E5, D)`` of DOP853 as contiguous float arrays: the
    published coefficients of Hairer's code, with the three extra stages of
    the 7th-order dense output (``A`` is 16 x 16: the 12 stages, the
    solution's weights in row 12, the extra stages in rows 13-15).

    They are assembled from the class attributes of SciPy's public
    ``scipy.integrate.DOP853`` (``A``, ``B``, ``C``, ``A_EXTRA``,
    ``C_EXTRA``, ``E3``, ``E5``, ``D``), which SciPy has kept since 1.4.
    """
    from scipy.integrate import DOP853
    stages = DOP853.A.shape[0]
    extra = DOP853.A_EXTRA.shape[0]
    size = stages + 1 + extra
    A = np.zeros((size, size))
    A[:stages, :stages] = DOP853.A
    A[stages, :stages] = DOP853.B
    A[stages + 1:, :DOP853.A_EXTRA.shape[1]] = DOP853.A_EXTRA
    C = np.concatenate([DOP853.C, [1.0], DOP853.C_EXTRA])
    return tuple(np.ascontiguousarray(a, dtype=float) for a in (
        A, C, DOP853.E3, DOP853.E5, DOP853.D))


@jit
def _stages(first, last, t, h, y, K, A, C, stage, x, fn, ints, floats):
    """``K[s] = f(t + C[s] h, y + h sum_j A[s, j] K[j])`` for ``first <= s
    < last``; returns the number of evaluations and their status (the
    state of the last one is left in ``stage``). Row ``N_STAGES`` of ``A``
    holds the weights of the solution, so stage ``N_STAGES`` is the step's
    end. The right-hand side is called by its address in ``fn``
    (:func:`with_calls`), so its code (Newton, the solves) is not compiled
    into the stepping again. Its callers pass ``first`` and ``last`` as
    ``np.int64``, not as literal numbers: numba compiles a called kernel
    once per literal value it is given (three copies, two seconds each
    on an installation's first use, before)."""
    n = y.shape[0]
    count = 0
    for s in range(first, last):
        for i in range(n):
            total = 0.0
            for j in range(s):
                total += A[s, j] * K[j, i]
            stage[i] = y[i] + h * total
        count += 1
        status = _rhs(fn[FN_RHS], (t + C[s] * h, stage, x, fn, ints, floats,
                                      K[s]))
        if status != 0:
            return count, status
    return count, 0


@inline
def _rms_scaled(a, b, scale):
    """The root mean square of ``(a - b) / scale``, as ``solve_ivp``
    computes it (the norm, then divided by the square root of the
    size)."""
    n = a.shape[0]
    total = 0.0
    for i in range(n):
        value = (a[i] - b[i]) / scale[i]
        total += value * value
    return math.sqrt(total) / math.sqrt(n)


@inline
def start(state, y, f, K, A, C, y_new, stage, x, fn, ints, floats):
    """The derivative ``f`` at ``(state[S_T], y)`` and, where ``state[S_H]``
    is NaN, the first step into ``state[S_H]``: ``solve_ivp``'s choice for
    DOP853 (its ``select_initial_step``, error estimator order 7,
    [Hairer1993]_ sec. II.4), one more evaluation. Returns the number of
    evaluations and their status (a failed one's state is in ``stage``,
    its time in ``state[S_T_FAILED]``)."""
    t = state[S_T]
    n = y.shape[0]
    count, status = _stages(np.int64(0), np.int64(1), t, 0.0, y, K, A, C,
                            stage, x, fn, ints, floats)
    if status != 0:
        state[S_T_FAILED] = t
        return count, status
    for i in range(n):
        f[i] = K[0, i]
    if not math.isnan(state[S_H]):
        return count, 0
    t_bound, rtol, atol = state[S_T_END], state[S_RTOL], state[S_ATOL]
    max_step, direction = state[S_MAX_STEP], state[S_DIRECTION]
    interval = abs(t_bound - t)
    if interval == 0.0:
        state[S_H] = 0.0
        return count, 0
    scale = np.empty(n)
    zero = np.zeros(n)
    for i in range(n):
        scale[i] = atol + abs(y[i]) * rtol
    d0 = _rms_scaled(y, zero, scale)
    d1 = _rms_scaled(f, zero, scale)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, interval)
    for i in range(n):
        y_new[i] = y[i] + h0 * direction * f[i]
    extra, status = _stages(np.int64(0), np.int64(1), t + h0 * direction,
                            0.0, y_new, K, A, C, stage, x, fn, ints, floats)
    count += extra
    if status != 0:
        state[S_T_FAILED] = t + h0 * direction
        return count, status
    d2 = _rms_scaled(K[0], f, scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    state[S_H] = min(100.0 * h0, h1, interval, max_step)
    return count, 0


@jit
def dense(F, y_old, theta, out):
    """The dense output at ``theta = (t - t_old) / h`` of the last step
    (SciPy's ``Dop853DenseOutput``) into ``out``."""
    n = y_old.shape[0]
    power = F.shape[0]
    for i in range(n):
        value = 0.0
        for r in range(power):
            value += F[power - 1 - r, i]
            if r % 2 == 0:
                value *= theta
            else:
                value *= 1.0 - theta
        out[i] = value + y_old[i]


@jit
def samples_until(F, y_old, t_old, h, t_end, direction, t_eval, i_eval,
                  out_t, out_y, n_out):
    """Write the samples ``t_eval[i_eval:]`` up to and including
    ``t_end`` (within the last step, from ``t_old`` over ``h``) by the
    dense output into ``out_t[n_out:]``, ``out_y[n_out:]``; returns the
    new ``(i_eval, n_out)``."""
    while i_eval < t_eval.shape[0] and \
            direction * (t_eval[i_eval] - t_end) <= 0.0:
        dense(F, y_old, (t_eval[i_eval] - t_old) / h, out_y[n_out])
        out_t[n_out] = t_eval[i_eval]
        n_out += 1
        i_eval += 1
    return i_eval, n_out


@jit
def gaps(x, impact, row, out, g, k, per):
    """The impacts' gaps plus their offsets into ``g[:k]`` at the
    consistent input ``x`` (what the right-hand side left in it):
    ``impact = [address, data]`` of the impacts' output function, whose
    input ``row`` is ``x`` followed by its extra constants; ``g[k:2k]``
    holds the offsets and ``g[2k:3k]``, where ``g`` has room for it,
    receives the normal speeds."""
    for i in range(x.shape[0]):
        row[i] = x[i]
    call(impact[0], impact[1], out, row)
    for i in range(k):
        g[i] = out[i * per] + g[k + i]
    if g.shape[0] >= 3 * k:
        for i in range(k):
            g[2 * k + i] = out[i * per + 1]


@jit
def event_value(t, i, state, F, y_old, stage, x, fn, ints, floats, impact,
                row, out, g):
    """Impact ``i``'s gap plus its offset on the dense output of the last
    step at ``t`` (NaN where the dependent coordinates cannot be
    solved)."""
    if fn.shape[0] < FN_SIZE:
        raise ValueError('event_value: fn lacks the kernels\' addresses '
                         '(dop853.with_calls)')
    t_old = state[S_T_OLD]
    return _gap_at(t, i, t_old, state[S_T] - t_old, F, y_old, stage, x,
                   fn, ints, floats, impact, row, out, g,
                   int(state[S_IMPACTS]), int(state[S_PER_IMPACT]))


@inline
def _gap_at(t, i, t_old, h, F, y_old, stage, x, fn, ints, floats, impact,
            row, out, g, k, per):
    """:func:`event_value` on the step from ``t_old`` over ``h``."""
    dense(F, y_old, (t - t_old) / h, stage)
    if _inputs(fn[FN_INPUTS], (t, stage, x, fn, ints, floats)) != 0:
        return np.nan
    gaps(x, impact, row, out, g, k, per)
    return g[i]


@jit
def gap_theta(theta, i, t_old, h, F, y_old, stage, x, fn, ints, floats,
              impact, row, out, g, k, per):
    """:func:`_gap_at` at ``t_old + theta h`` (one compiled copy for
    :func:`dip_theta`'s calls)."""
    return _gap_at(t_old + theta * h, i, t_old, h, F, y_old, stage, x, fn,
                   ints, floats, impact, row, out, g, k, per)


@jit
def dip_theta(i, a, b, t_old, h, F, y_old, stage, x, fn, ints, floats,
              impact, row, out, g, k, per):
    """``theta`` in ``(a, b)`` where impact ``i``'s gap (plus offset) on
    the dense output of the step from ``t_old`` over ``h`` is zero or
    below, or -1 where none is found: golden sections towards its minimum
    in ``(a, b)`` (fractions of the step), stopping at the first value
    that is not positive. ``g`` (size ``3k``, its offsets in ``g[k:2k]``)
    is the work array of the evaluations."""
    c = b - INVERSE_PHI * (b - a)
    d = a + INVERSE_PHI * (b - a)
    fc = gap_theta(c, i, t_old, h, F, y_old, stage, x, fn, ints, floats,
                   impact, row, out, g, k, per)
    fd = gap_theta(d, i, t_old, h, F, y_old, stage, x, fn, ints, floats,
                   impact, row, out, g, k, per)
    for _ in range(DIP_ITERATIONS):
        if not (math.isfinite(fc) and math.isfinite(fd)):
            return -1.0
        if fc <= 0.0:
            return c
        if fd <= 0.0:
            return d
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - INVERSE_PHI * (b - a)
            fc = gap_theta(c, i, t_old, h, F, y_old, stage, x, fn, ints,
                           floats, impact, row, out, g, k, per)
        else:
            a, c, fc = c, d, fd
            d = a + INVERSE_PHI * (b - a)
            fd = gap_theta(d, i, t_old, h, F, y_old, stage, x, fn, ints,
                           floats, impact, row, out, g, k, per)
    return -1.0


@jit
def first_closing(i, g0, v0, t_old, h, F, y_old, stage, x, fn, ints,
                  floats, impact, row, out, g, k, per):
    """The fraction ``theta`` of the step from ``t_old`` over ``h`` at
    which impact ``i``'s gap (plus offset, ``g0 >= 0`` with normal speed
    ``v0`` at the start) is first found zero or below, or -1: the gap at
    ``SCAN_POINTS`` equal fractions of the step, and within each part
    where the contact approaches at its start and leaves at its end (a
    minimum inside), its minimum (:func:`dip_theta`). The first root lies
    between ``theta`` and the scan point before it, where Brent's method
    on ``(0, theta)`` then finds it (on the whole step it may find a later
    one: a rod's end can pass below the floor, rise, and fall again within
    one long step)."""
    a, va = 0.0, v0
    for j in range(1, SCAN_POINTS + 1):
        b = j / SCAN_POINTS
        fb = gap_theta(b, i, t_old, h, F, y_old, stage, x, fn, ints,
                       floats, impact, row, out, g, k, per)
        if not math.isfinite(fb):
            return -1.0
        vb = g[2 * k + i]
        if fb <= 0.0:
            return b
        if va < 0.0 < vb:
            theta = dip_theta(i, a, b, t_old, h, F, y_old, stage, x, fn,
                              ints, floats, impact, row, out, g, k, per)
            if theta > 0.0:
                return theta
        a, va = b, vb
    return -1.0


@inline
def event_root(i, t_old, h, t_new, F, y_old, stage, x, fn, ints, floats,
               impact, row, out, g, k, per):
    """The root of impact ``i``'s gap (plus offset) on the dense output of
    the step from ``t_old`` over ``h`` to ``t_new``, where it falls from
    >= 0 to <= 0, by Brent's method [Brent1973]_ to ``solve_ivp``'s
    tolerance (about four rounding units); NaN where an evaluation fails
    or the gap does not change sign. SciPy's ``brentq`` cannot be called
    from compiled code without a C callback; the Python path of the
    impacts (:func:`sympy_loads._simulation.integrators._locate`) uses it."""
    a, b = t_old, t_new
    fa = _gap_at(a, i, t_old, h, F, y_old, stage, x, fn, ints, floats,
                 impact, row, out, g, k, per)
    fb = _gap_at(b, i, t_old, h, F, y_old, stage, x, fn, ints, floats,
                 impact, row, out, g, k, per)
    if not (math.isfinite(fa) and math.isfinite(fb)) or fa * fb > 0.0:
        return np.nan
    if fa == 0.0:
        return a
    c, fc = a, fa
    d = e = b - a
    for _ in range(ROOT_ITERATIONS):
        if fb * fc > 0.0:
            c, fc = a, fa
            d = e = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tolerance = 2.0 * EPS * abs(b) + 2.0 * EPS
        middle = 0.5 * (c - b)
        if abs(middle) <= tolerance or fb == 0.0:
            return b
        if abs(e) >= tolerance and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:                  # secant
                p = 2.0 * middle * s
                q = 1.0 - s
            else:                       # inverse quadratic interpolation
                q = fa / fc
                r = fb / fc
                p = s * (2.0 * middle * q * (q - r) - (b - a) * (r - 1.0))
                q = (q - 1.0) * (r - 1.0) * (s - 1.0)
            if p > 0.0:
                q = -q
            else:
                p = -p
            if 2.0 * p < min(3.0 * middle * q - abs(tolerance * q),
                             abs(e * q)):
                e = d
                d = p / q
            else:                       # bisection
                d = middle
                e = d
        else:
            d = middle
            e = d
        a, fa = b, fb
        b += d if abs(d) > tolerance else math.copysign(tolerance, middle)
        fb = _gap_at(b, i, t_old, h, F, y_old, stage, x, fn, ints, floats,
                     impact, row, out, g, k, per)
        if not math.isfinite(fb):
            return np.nan
    return np.nan


@jit
def strike(t_old, h, t_new, y, f, F, y_old, y_hit, stage, x, fn, ints,
           floats, impact, row, out, g, g_new, k, per, limits, records,
           n_records):
    """Resolve the impact within the accepted step from ``t_old`` over
    ``h`` (``g`` at its start, ``g_new`` at its end ``t_new``) in compiled
    code when it is the simple case: one contact due, approaching faster
    than its thresholds, struck alone and leaving the plane, no other
    contact due after it, room for its record. Returns the impact's time;
    then ``y`` and ``f`` hold the state after it and its derivative,
    ``y_hit`` the state before, ``g`` the gaps after (with new offsets),
    and row ``n_records`` of ``records`` the record ``[t, index, normal
    speed before, after, impulse, u before (nu), u after (nu)]``. Returns
    NaN, leaving ``y``, ``f``, ``g`` and ``g_new`` as they were, for every
    other case, which
    :class:`sympy_loads._simulation.impacts.ImpactEngine` resolves.

    ``limits = [contact tolerance, then per impact: rest speed (NaN for
    none), relative rest speed, largest approach speed so far, impacts so
    far]`` (the last two updated here)."""
    if n_records >= records.shape[0]:
        return np.nan
    work = np.empty(2 * k)
    for i in range(k):
        work[k + i] = g[k + i]
    t_hit = np.inf
    for i in range(k):
        if g[i] >= 0.0 and g_new[i] <= 0.0:
            root = event_root(i, t_old, h, t_new, F, y_old, stage, x, fn,
                              ints, floats, impact, row, out, work, k, per)
            if not math.isfinite(root):
                return np.nan
            t_hit = min(t_hit, root)
    if not math.isfinite(t_hit):
        return np.nan
    # the consistent state at the hit and the impacts' outputs there
    n = y.shape[0]
    dense(F, y_old, (t_hit - t_old) / h, y_hit)
    if _inputs(fn[FN_INPUTS], (t_hit, y_hit, x, fn, ints, floats)) != 0:
        return np.nan
    raw = np.zeros(2 * k)       # the gaps without offsets
    gaps(x, impact, row, out, raw, k, per)
    largest = 1.0
    for i in range(k):
        largest = max(largest, limits[1 + 2 * k + i])
    floor = 1e-12 * largest
    tolerance = limits[0]
    due = -1
    for i in range(k):
        if raw[i] <= tolerance and out[i * per + 1] < -floor:
            if due >= 0:
                return np.nan   # simultaneous contacts
            due = i
    if due < 0:
        return np.nan
    base = due * per
    approach = -out[base + 1]
    if not 0.0 <= out[base + 2] <= 1.0:
        return np.nan           # a restitution outside [0, 1]: Python says
    rest, relative = limits[1 + due], limits[1 + k + due]
    count, biggest = limits[1 + 3 * k + due], limits[1 + 2 * k + due]
    if math.isfinite(rest):
        if approach <= rest:
            return np.nan
    elif count > 0.0 and approach <= relative * biggest:
        return np.nan
    dims = ints[:6]
    nq, nu, nqd = dims[0], dims[1], dims[3]
    idx = ints[6:6 + nqd + nu]
    eom_size = ints[6 + nqd + nu + 1]
    law = out[base + 3:base + 3 + nu].copy()
    w = out[base + 3 + nu:base + 3 + 2 * nu].copy()
    du = np.empty(nu)
    P = _jump(fn[FN_JUMP], (x, fn, dims, idx, eom_size, law, w,
                            out[base + 2], out[base + 1], du))
    if not math.isfinite(P):
        return np.nan
    u_before = x[1 + nq:1 + nq + nu].copy()
    for a in range(nu):
        x[1 + nq + a] = u_before[a] + du[a]
    after = np.zeros(2 * k)
    gaps(x, impact, row, out, after, k, per)
    vn_after = out[base + 1]
    if not vn_after > relative * approach:
        return np.nan           # perhaps pressing into the plane
    speeds = np.empty(k)
    for i in range(k):
        speeds[i] = out[i * per + 1]
    largest = max(largest, approach)
    for i in range(k):
        if i != due and after[i] <= tolerance and \
                out[i * per + 1] < -1e-12 * largest:
            return np.nan       # another contact struck in turn
    u_after = x[1 + nq:1 + nq + nu].copy()
    # the state after (a partitioned one holds the independent speeds)
    # and its derivative
    y_after = np.empty(n)
    scale = 1.0
    for i in range(nq):
        y_after[i] = x[1 + i]
        scale = max(scale, abs(x[1 + i]))
    if ints[6 + nqd + nu] != 0:
        for j in range(n - nq):
            y_after[nq + j] = u_after[idx[nqd + j]]
    else:
        for a in range(nu):
            y_after[nq + a] = u_after[a]
    f_after = np.empty(n)
    if _rhs(fn[FN_RHS], (t_hit, y_after, x, fn, ints, floats,
                          f_after)) != 0:
        return np.nan
    # commit: the record, the state after, the offsets
    record = records[n_records]
    record[0], record[1], record[2] = t_hit, due, -approach
    record[3], record[4] = vn_after, P
    for a in range(nu):
        record[5 + a] = u_before[a]
        record[5 + nu + a] = u_after[a]
    limits[1 + 2 * k + due] = max(biggest, approach)
    limits[1 + 3 * k + due] = count + 1.0
    for i in range(n):
        y[i] = y_after[i]
        f[i] = f_after[i]
    tiny = 64.0 * EPS * scale
    for i in range(k):
        g[k + i] = max(0.0, -after[i]) + tiny
        g[i] = after[i] + g[k + i]
    if g.shape[0] >= 3 * k:
        for i in range(k):
            g[2 * k + i] = speeds[i]
    return t_hit


@jit
def advance(state, y, f, t_eval, out_t, out_y, x, fn, ints, floats, A, C,
            E3, E5, D, K, F, y_old, y_new, stage, impact, row, out, g,
            g_new, limits, records):
    """Step from ``(state[S_T], y)`` (``f`` = the derivative there, or
    evaluated first where ``state[S_FRESH]`` says so, :func:`start`) towards
    ``state[S_T_END]``; returns one of the codes above. Samples: the points of
    ``t_eval`` passed (by the dense output) or, when ``t_eval`` is empty,
    every step's end, into ``out_t`` and ``out_y`` (FULL when those are
    full). Impacts (``state[S_IMPACTS] > 0``): ``g[:k]`` holds the gaps at
    ``y``; a step at whose end one of them has fallen to zero or below
    returns EVENT with its dense output in ``F`` and ``y_old``, ``y`` and
    ``f`` left at the step's start and ``g_new`` at its end, unless
    ``state[S_RESOLVE]`` is nonzero and :func:`strike` resolves the impact here
    (``limits`` and ``records`` are its; ``state[S_STRUCK]`` counts the records
    written): the stepping then goes on from the state after it, and
    without ``t_eval`` the impact's time is sampled twice, before and
    after. Without impacts ``k`` is 0 and ``limits`` and ``records`` are
    arrays that are never read (one row, no rows): every run calls the
    same compiled variant, so an installation compiles it once
    (:mod:`.kernel_set`)."""
    if fn.shape[0] < FN_SIZE:
        raise ValueError('advance: fn lacks the kernels\' addresses '
                         '(dop853.with_calls)')
    n = y.shape[0]
    t, h_abs, t_bound = state[S_T], state[S_H], state[S_T_END]
    rtol, atol, max_step = state[S_RTOL], state[S_ATOL], state[S_MAX_STEP]
    i_eval, n_out = int(state[S_NEXT_SAMPLE]), int(state[S_WRITTEN])
    nfev = int(state[S_NFEV])
    direction = state[S_DIRECTION]
    k, per = int(state[S_IMPACTS]), int(state[S_PER_IMPACT])
    n_eval = t_eval.shape[0]
    capacity = out_t.shape[0]
    code = FINISHED
    steps = 0
    if state[S_FRESH] != 0.0:
        count, status = start(state, y, f, K, A, C, y_new, stage, x, fn,
                              ints, floats)
        state[S_NFEV] += count
        if status != 0:
            return FAILED
        state[S_FRESH] = 0.0
        h_abs = state[S_H]
        nfev = int(state[S_NFEV])
    while True:
        if direction * (t - t_bound) >= 0.0:
            code = FINISHED
            break
        if steps == PAUSE_STEPS:
            code = PAUSED
            break
        if n_eval == 0 and n_out == capacity:
            code = FULL
            break
        steps += 1
        min_step = 10.0 * abs(np.nextafter(t, direction * np.inf) - t)
        if h_abs > max_step:
            h_abs = max_step
        elif h_abs < min_step:
            h_abs = min_step
        rejected = False
        failed = False
        while True:
            if h_abs < min_step:
                # a step that cannot shrink further: it failed on an
                # evaluation (its state is in stage) or on its error
                code = FAILED if failed else TOO_SMALL
                break
            failed = False
            t_new = t + h_abs * direction
            if direction * (t_new - t_bound) > 0.0:
                t_new = t_bound
            h = t_new - t
            h_abs = abs(h)
            for i in range(n):
                K[0, i] = f[i]
            count, status = _stages(np.int64(1), np.int64(N_STAGES + 1),
                                    t, h, y, K, A, C, stage, x, fn, ints,
                                    floats)
            nfev += count
            if status != 0:
                # an evaluation failed at a trial stage (too long a step
                # can take it far from the solution, e.g. off the
                # constraints' assembly): the step is rejected like one
                # whose error is not finite
                state[S_T_FAILED] = t + C[count] * h
                failed = True
                if state[S_FAILURES] == 0.0:
                    state[S_FAILED_UNTIL] = t_new
                state[S_FAILURES] += 1.0
                if state[S_FAILURES] > MAX_FAILURES:
                    code = FAILED       # no progress (see the module doc)
                    break
                h_abs *= MIN_FACTOR
                rejected = True
                continue
            for i in range(n):
                y_new[i] = stage[i]     # the last stage: the step's end
            err5, err3 = 0.0, 0.0
            for i in range(n):
                scale = atol + max(abs(y[i]), abs(y_new[i])) * rtol
                e5, e3 = 0.0, 0.0
                for j in range(N_STAGES + 1):
                    e5 += K[j, i] * E5[j]
                    e3 += K[j, i] * E3[j]
                e5 /= scale
                e3 /= scale
                err5 += e5 * e5
                err3 += e3 * e3
            if err5 == 0.0 and err3 == 0.0:
                error = 0.0
            else:
                error = h_abs * err5 / math.sqrt((err5 + 0.01 * err3) * n)
            if error < 1.0:
                if error == 0.0:
                    factor = MAX_FACTOR
                else:
                    factor = min(MAX_FACTOR,
                                 SAFETY * error ** ERROR_EXPONENT)
                if rejected:
                    factor = min(1.0, factor)
                h_abs *= factor
                break
            factor = SAFETY * error ** ERROR_EXPONENT
            if not factor > MIN_FACTOR:      # also a NaN error estimate
                factor = MIN_FACTOR
            h_abs *= factor
            rejected = True
        if code == FAILED or code == TOO_SMALL:
            break
        # the accepted step [t, t_new]: events at its end (x holds the
        # consistent input there, from the last evaluation)
        active = False
        suspect = False
        t_end = t_new       # the end of the bracket of the gaps' roots
        if k > 0:
            for i in range(k):
                g_new[k + i] = g[k + i]
            gaps(x, impact, row, out, g_new, k, per)
            for i in range(k):
                if g[i] >= 0.0 and g_new[i] <= 0.0:
                    active = True
            if g.shape[0] >= 3 * k:
                for i in range(k):
                    if g[i] >= 0.0 and g_new[i] > 0.0 and (
                            g[2 * k + i] < 0.0 or g_new[2 * k + i] > 0.0):
                        suspect = True
        samples = (n_eval > 0 and i_eval < n_eval
                   and direction * (t_eval[i_eval] - t_new) <= 0.0)
        if active or samples or suspect:
            # the dense output of the step (three more stages)
            count, status = _stages(np.int64(N_STAGES + 1),
                                    np.int64(N_EXTENDED), t, h, y, K, A, C,
                                    stage, x, fn, ints, floats)
            nfev += count
            if status != 0:
                state[S_T_FAILED] = t + C[N_STAGES + count] * h
                code = FAILED
                break
            for i in range(n):
                delta = y_new[i] - y[i]
                F[0, i] = delta
                F[1, i] = h * K[0, i] - delta
                F[2, i] = 2.0 * delta - h * (K[N_STAGES, i] + K[0, i])
                for r in range(F.shape[0] - 3):
                    total = 0.0
                    for j in range(N_EXTENDED):
                        total += D[r, j] * K[j, i]
                    F[3 + r, i] = h * total
                y_old[i] = y[i]
            state[S_T_OLD] = t
        if active or suspect:
            # the first time within the step at which a gap closes: the
            # end of the roots' bracket (see first_closing)
            probe = np.empty(3 * k)
            for i in range(k):
                probe[k + i] = g[k + i]
            earliest = 1.0
            for i in range(k):
                if g[i] >= 0.0 and (g_new[i] <= 0.0 or g[2 * k + i] < 0.0
                                    or g_new[2 * k + i] > 0.0):
                    theta = first_closing(i, g[i], g[2 * k + i], t, h, F,
                                          y_old, stage, x, fn, ints, floats,
                                          impact, row, out, probe, k, per)
                    if 0.0 < theta < earliest:
                        earliest = theta
            if earliest < 1.0:
                value = gap_theta(earliest, np.int64(0), t, h, F, y_old,
                                  stage, x, fn, ints, floats, impact, row,
                                  out, probe, k, per)
                closing = False
                for i in range(k):
                    if g[i] >= 0.0 and probe[i] <= 0.0:
                        closing = True
                if math.isfinite(value) and closing:
                    t_end = t + earliest * h
                    active = True
                    for i in range(k):
                        g_new[i] = probe[i]
                        g_new[2 * k + i] = probe[2 * k + i]
        if active and state[S_RESOLVE] != 0.0 and (
                n_eval > 0 or n_out + 2 <= capacity):
            t_hit = _strike(fn[FN_STRIKE], (
                t, h, t_end, y, f, F, y_old, y_new, stage, x, fn, ints,
                floats, impact, row, out, g, g_new, k, per, limits, records,
                int(state[S_STRUCK])))
            if math.isfinite(t_hit):
                state[S_STRUCK] += 1
                nfev += 1           # the derivative after the impact
                i_eval, n_out = samples_until(F, y_old, t, h, t_hit,
                                              direction, t_eval, i_eval,
                                              out_t, out_y, n_out)
                if n_eval == 0:
                    out_t[n_out] = t_hit
                    out_t[n_out + 1] = t_hit
                    for i in range(n):
                        out_y[n_out, i] = y_new[i]     # before
                        out_y[n_out + 1, i] = y[i]     # after
                    n_out += 2
                t = t_hit
                continue
        if active:
            # Python finds the root; y and f stay at the step's start
            state[S_T] = t_new     # the end of the step (for event_value)
            state[S_BRACKET_END] = t_end    # the end of the roots' bracket
            state[S_H] = h_abs
            state[S_NEXT_SAMPLE] = i_eval
            state[S_WRITTEN] = n_out
            state[S_NFEV] = nfev
            return EVENT
        if samples:
            i_eval, n_out = samples_until(F, y_old, t, h, t_new, direction,
                                          t_eval, i_eval, out_t, out_y,
                                          n_out)
        t = t_new
        if state[S_FAILURES] != 0.0 and direction * (
                t - state[S_FAILED_UNTIL]) > 0.0:
            state[S_FAILURES] = 0.0     # past the failures
        for i in range(n):
            y[i] = y_new[i]
            f[i] = K[N_STAGES, i]
        if n_eval == 0:
            out_t[n_out] = t
            for i in range(n):
                out_y[n_out, i] = y[i]
            n_out += 1
        for i in range(k):
            g[i] = g_new[i]
        if g.shape[0] >= 3 * k:
            for i in range(k):
                g[2 * k + i] = g_new[2 * k + i]
    state[S_T] = t
    state[S_H] = h_abs
    state[S_NEXT_SAMPLE] = i_eval
    state[S_WRITTEN] = n_out
    state[S_NFEV] = nfev
    return code


# the addresses of rhs_packed, inputs_packed, strike and impact_jump in this
# process, found at the first with_calls()
_CALLS = []


def with_calls(fn):
    """The stepping's ``fn`` (:func:`advance`, :func:`event_value`): the
    right-hand side's ``fn`` (:func:`.rhs.with_calls`, made from the
    model's six entries of ``fn``) followed by the addresses of the
    compiled :func:`.rhs.rhs_packed`, :func:`.rhs.inputs_packed`,
    :func:`strike` and :func:`.jump.impact_jump` (loaded, or compiled, at
    the first call in a process), which the stepping and the event
    location call by address (:func:`.jit.native_caller`)."""
    from . import rhs
    if not _CALLS:
        from .jit import native_address
        _CALLS.append(np.array(
            [native_address(rhs.rhs_packed, RHS_PACKED_TYPES),
             native_address(rhs.inputs_packed, INPUTS_PACKED_TYPES),
             native_address(strike, STRIKE_TYPES, types.float64),
             native_address(jump.impact_jump, jump.IMPACT_JUMP_TYPES,
                            types.float64)],
            dtype=np.int64))
    return np.concatenate([rhs.with_calls(fn), _CALLS[0]])


# event_value's compiled entry point (the same argument types for every
# model), made at its first use by event_value_entry()
_EVENT_VALUE = []


def event_value_entry(*args):
    """:func:`event_value` for repeated calls on arguments of the types of
    ``args`` (its compiled entry point, :func:`.jit.entry_point`: no type
    resolution per call, a third of a call's cost)."""
    if not _EVENT_VALUE:
        from .jit import entry_point
        _EVENT_VALUE.append(entry_point(event_value, *args))
    return _EVENT_VALUE[0]


def load(n, ints, floats, x, fn):
    """Load (on an installation's first use: compile) :func:`advance` and
    :func:`dense` for a state of size ``n`` and the right-hand side's
    arguments (in the order of ``Problem.packed_arguments()``), without
    running them (the argument types are those of
    :func:`sympy_loads._simulation.integrators._kernel_dop853`, with or
    without impacts). Every model passes arrays of the same types, so one
    call per process is enough: its caller, ``Problem.warm_up``, makes
    only that one."""
    from .jit import entry_point
    fn = with_calls(fn)
    A, C, E3, E5, D = tableau()
    vector, matrix = np.zeros(n), np.zeros((2, n))
    ints64 = np.zeros(2, dtype=np.int64)
    entry_point(advance, vector, vector, vector, vector, vector, matrix, x,
                fn, ints, floats, A, C, E3, E5, D, matrix, matrix, vector,
                vector, vector, ints64, vector, vector, vector, vector,
                vector, matrix)
    entry_point(dense, matrix, vector, 0.0, vector)
