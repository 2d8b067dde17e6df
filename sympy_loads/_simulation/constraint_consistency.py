"""Private: the check that a model's velocity constraints contain the time
derivatives of its configuration constraints.

The engine solves the dependent speeds from the velocity constraints
``K(q, t) u + k(q, t) = 0`` alone and the dependent coordinates from the
configuration constraints ``f_h(q, t) = 0``; nothing else ties the two.
A model whose velocity constraints leave out (or mistype) the time
derivative of a configuration constraint therefore moves off the
constraint's velocities while its coordinates are pulled back onto the
constraint at every step: energy is not conserved and the motion is
wrong, yet the integration succeeds. ``KanesMethod`` takes both sets from
the user as given; SymPy's ``System`` derives the velocity constraints
from ``add_holonomic_constraints`` unless ``velocity_constraints`` is set.

The condition checked (once per numeric model): with the kinematic
differential equations ``q' = Q(q, t) u + Q0(q, t)``, the time derivative
of each row of ``f_h``::

    d f_h/dt = J Q u + (J Q0 + df_h/dt|_q),    J = df_h/dq,

is linear in ``u``; its row ``[J Q, J Q0 + df_h/dt]`` must lie in the row
space of ``[K, k]`` (the velocity constraints may be any independent
combination of the derivatives, scaled, with other nonholonomic rows).
It is evaluated numerically at a reproducible random point (coordinates, time,
constants and specified inputs all random), first where it lands, then,
if a row fails there, on the configuration constraints (the point's
coordinates projected onto ``f_h = 0`` by Gauss-Newton steps), since a
velocity constraint may be written with the configuration constraints
used to simplify it. The expressions are differentiated and evaluated
by SymEngine (its ``Lambdify`` without LLVM) or, without it, by SymPy's
``lambdify``: they share no code with the engine's generated functions.
"""

import numpy as np
import sympy as sm
from sympy.core.function import AppliedUndef
from sympy.physics.mechanics import dynamicsymbols

from .._numeric.codegen import symengine_available, to_symengine

try:
    import symengine
except ImportError:          # the NumPy back end: SymPy does the work
    symengine = None

__all__ = ['check_velocity_constraints']

_TIME = dynamicsymbols._t
# the random points' fixed generator state: the check gives the same
# answer each run
RANDOM_STATE = 35
# random points tried for one on the configuration constraints
ATTEMPTS = 12
# a row lies in the row space where its distance from it is below this,
# relative to the size of the terms that make it up (the values are O(1),
# computed to about 1e-15 relative; a wrong row is O(1) away)
RELATIVE_TOLERANCE = 1e-8
# singular values of [K, k] below this, relative to the largest, are zero
RANK_CUTOFF = 1e-10


def check_velocity_constraints(f_h, k_nh, f_nh, kindiff, q, u, plain):
    """Raise ValueError if a row of the configuration constraints ``f_h``
    has no time derivative among the velocity constraints ``k_nh u +
    f_nh = 0`` (see the module documentation). ``kindiff`` maps each
    ``q'`` to its expression in ``u``; ``plain`` maps time, ``q``, ``u``
    and the specified inputs to the numeric model's plain symbols (the
    specified inputs get random values)."""
    if not len(f_h):
        return
    evaluate = _functions(f_h, k_nh, f_nh, kindiff, q, u, plain)
    if evaluate is None:
        return
    failed, on_constraints = _failed_rows(evaluate)
    if failed:
        raise ValueError(_message(f_h, k_nh, f_nh, kindiff, u, failed,
                                  on_constraints))


def _functions(f_h, k_nh, f_nh, kindiff, q, u, plain):
    """``evaluate(q, t, s, c)`` -> ``[F, J, F_t, Q, Q0, K, k]`` (arrays;
    None where a value is not finite), with its sizes as attributes, or
    None where the expressions have other functions of time than ``q``,
    ``u`` and the specified inputs (the numeric model refuses or reports
    those itself) or cannot be evaluated."""
    exprs = [sm.Matrix(m).xreplace(plain) for m in (
        f_h, [kindiff[s.diff(_TIME)] for s in q], k_nh, f_nh)]
    if any(m.atoms(AppliedUndef, sm.Derivative) for m in exprs):
        return None
    inputs = set(plain.values())
    # a constant is known by its name, as in the numeric model (two
    # symbols of one name with other assumptions are one constant)
    named = {c: sm.Symbol(c.name) for c in set().union(
        *(m.free_symbols for m in exprs)) - inputs}
    exprs = [m.xreplace(named) for m in exprs]
    qs, us = [plain[s] for s in q], [plain[s] for s in u]
    ss = sorted(inputs - set(qs) - set(us) - {plain[_TIME]}, key=str)
    symbols = [qs, us, ss, [plain[_TIME]],
               sorted(set(named.values()), key=str)]
    function = None
    for use_symengine in ([True, False] if symengine_available() else
                          [False]):
        try:
            function = _build(exprs, symbols, use_symengine)
            break
        except Exception:   # noqa: BLE001 -- a function it cannot build
            continue
    if function is None:
        return None
    nq, nu, nh, m = len(q), len(u), len(f_h), len(f_nh)
    shapes = [(nh, 1), (nh, nq), (nh, 1), (nq, nu), (nq, 1), (m, nu), (m, 1)]
    ends = np.cumsum([a * b for a, b in shapes])

    def evaluate(qv, t, sv, cv):
        with np.errstate(all='ignore'):
            try:
                values = np.asarray(function(np.concatenate(
                    [qv, [t], sv, cv])), dtype=float).ravel()
            except (ArithmeticError, ValueError, TypeError, NameError,
                    RuntimeError):
                return None
        if not np.all(np.isfinite(values)):
            return None
        return [values[e - a * b:e].reshape(a, b)
                for e, (a, b) in zip(ends, shapes)]
    evaluate.sizes = (nq, len(ss), len(symbols[-1]))
    return evaluate


def _build(exprs, symbols, use_symengine):
    """The function of the flat ``[F, J, F_t, Q, Q0, K, k]`` of the
    plain expressions ``exprs = [f_h, q', K, k]`` at the vector ``[q, t,
    s, c]`` (``symbols = [q, u, s, [t], c]``): differentiated and built
    by SymEngine (some ten times faster than SymPy: 30 ms for the
    four-bar against 0.4 s) or by SymPy."""
    if use_symengine:
        F, qdot, K, k = (to_symengine(list(m)) for m in exprs)
        qs, us, ss, (tau,), cs = (to_symengine(v) for v in symbols)
    else:
        F, qdot, K, k = (list(m) for m in exprs)
        qs, us, ss, (tau,), cs = symbols
    parts = [F, [f.diff(s) for f in F for s in qs], [f.diff(tau) for f in F],
             [e.diff(s) for e in qdot for s in us],
             [e.subs({s: 0 for s in us}) for e in qdot], K, k]
    args = list(qs) + [tau] + list(ss) + list(cs)
    flat = [e for part in parts for e in part]
    if use_symengine:
        return symengine.Lambdify(args, flat, backend='lambda', cse=True)
    return sm.lambdify([args], flat, 'numpy', cse=True)


def _failed_rows(evaluate):
    """The rows of ``f_h`` whose derivative is not in the velocity
    constraints' row space, and whether that was found on the
    configuration constraints (True) or only off them (False, where no
    random point could be projected onto them)."""
    rng = np.random.default_rng(RANDOM_STATE)
    nq, ns, nc = evaluate.sizes
    first = None
    for _ in range(ATTEMPTS):
        qv = rng.uniform(0.1, 1.0, nq)
        t = float(rng.uniform(0.1, 1.0))
        sv = rng.uniform(0.1, 1.0, ns)
        cv = rng.uniform(0.5, 1.5, nc)
        values = evaluate(qv, t, sv, cv)
        if values is None:
            continue
        failed = _rows_outside(values)
        if not failed:
            return [], True
        first = failed if first is None else first
        on = _project(evaluate, qv, t, sv, cv)
        if on is not None:
            return _rows_outside(on), True
    return (first or []), False


def _project(evaluate, qv, t, sv, cv, iterations=50):
    """The values of the functions at the coordinates ``qv`` moved onto
    ``f_h = 0`` (Gauss-Newton steps of least norm), or None where they do
    not get there."""
    for _ in range(iterations):
        values = evaluate(qv, t, sv, cv)
        if values is None:
            return None
        F, J = values[0].ravel(), values[1]
        # round-off of F: that of its terms, about |J| |q|
        if np.max(np.abs(F)) <= 1e-12 * (1.0 + np.max(np.abs(J)) *
                                         np.max(np.abs(qv))):
            return values
        qv = qv - np.linalg.lstsq(J, F, rcond=None)[0]
    return None


def _rows_outside(values):
    """The indices of the rows of ``d f_h/dt`` (at the point whose
    function ``values`` are given) that are not linear combinations of
    the velocity constraints' rows ``[K, k]``."""
    _, J, F_t, Q, Q0, K, k = values
    rows = np.hstack([J @ Q, J @ Q0 + F_t])
    sizes = np.abs(J) @ np.hstack([np.abs(Q), np.abs(Q0)]) + np.hstack(
        [np.zeros_like(J @ Q), np.abs(F_t)])
    if K.size:
        _, sigma, vt = np.linalg.svd(np.hstack([K, k]))
        basis = vt[:int(np.sum(sigma > RANK_CUTOFF * sigma[0]))] if (
            sigma.size and sigma[0] > 0) else vt[:0]
        rows = rows - (rows @ basis.T) @ basis
    distance = np.linalg.norm(rows, axis=1)
    scale = np.linalg.norm(sizes, axis=1)
    return [i for i in range(len(rows))
            if not distance[i] <= RELATIVE_TOLERANCE * scale[i]]


def _short(expr, limit=300):
    text = str(expr)
    return text if len(text) <= limit else text[:limit] + ' ...'


def _message(f_h, k_nh, f_nh, kindiff, u, failed, on_constraints):
    """The ValueError's message: each row, its expected derivative, the
    velocity constraints the model has and what to do."""
    given = list(sm.Matrix(k_nh) * sm.Matrix(u) + sm.Matrix(f_nh)) if len(
        f_nh) else []
    have = (f'the velocity constraints {_short(given)}' if given else
            'the velocity constraints, of which the model has none')
    where = ('at a random point on the configuration constraints'
             if on_constraints else
             'at random points, none of which could be put on the '
             'configuration constraints')
    rows = '; '.join(
        f'row {i}, {_short(f_h[i])} = 0, whose time derivative is '
        f'{_short(sm.diff(f_h[i], _TIME).xreplace(kindiff))}'
        for i in failed)
    return (
        f'model: the velocity constraints do not contain the time '
        f'derivative of the configuration constraint{"s" * (len(failed) > 1)}'
        f' {rows} (with the kinematic differential equations): it is not '
        f'a linear combination of {have} ({where}). Without it the motion '
        f'is not held to the constraint and the result would be wrong. '
        f'Expected: velocity constraints that include the time derivative '
        f'of every configuration constraint (scaled or combined with other '
        f'rows as you like), one dependent speed per velocity constraint: '
        f'pass them to KanesMethod as velocity_constraints with '
        f'u_dependent; a System derives them from its holonomic '
        f'constraints unless its velocity_constraints are set.')
