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
It is evaluated numerically at a seeded random point (coordinates, time,
constants and specified inputs all random), first where it lands, then,
if a row fails there, on the configuration constraints (the point's
coordinates projected onto ``f_h = 0`` by Gauss-Newton steps), since a
velocity constraint may be written with the configuration constraints
used to simplify it. The expressions are evaluated by SymPy's
``lambdify``, sharing no code with the engine's generated functions.
"""

import numpy as np
import sympy as sm
from sympy.core.function import AppliedUndef
from sympy.physics.mechanics import dynamicsymbols

__all__ = ['check_velocity_constraints']

_TIME = dynamicsymbols._t
# the seed of the random points: the check gives the same answer each run
SEED = 35
# random points tried for one on the configuration constraints
ATTEMPTS = 12
# a row lies in the row space where its distance from it is below this,
# relative to the size of the terms that make it up (the values are O(1),
# computed to about 1e-15 relative; a wrong row is O(1) away)
RELATIVE_TOLERANCE = 1e-8
# singular values of [K, k] below this, relative to the largest, are zero
RANK_CUTOFF = 1e-10


def check_velocity_constraints(f_h, k_nh, f_nh, kindiff, q, u, specified):
    """Raise ValueError if a row of the configuration constraints ``f_h``
    has no time derivative among the velocity constraints ``k_nh u +
    f_nh = 0`` (see the module documentation). ``kindiff`` maps each
    ``q'`` to its expression in ``u``; ``specified`` are the model's
    specified inputs (functions of time; they get random values)."""
    if not len(f_h):
        return
    evaluate = _functions(f_h, k_nh, f_nh, kindiff, q, u, specified)
    if evaluate is None:
        return
    failed, on_constraints = _failed_rows(evaluate, len(q), len(specified))
    if failed:
        raise ValueError(_message(f_h, k_nh, f_nh, kindiff, u, failed,
                                  on_constraints))


def _functions(f_h, k_nh, f_nh, kindiff, q, u, specified):
    """``evaluate(q, t, s, c)`` -> ``(F, J, F_t, Q, Q0, K, k)`` as arrays,
    and the number of constants, or None where SymPy cannot lambdify
    them (the engine's own code generation then reports the model)."""
    qs = [sm.Dummy(f'q{i}') for i in range(len(q))]
    us = [sm.Dummy(f'u{i}') for i in range(len(u))]
    ss = [sm.Dummy(f's{i}') for i in range(len(specified))]
    tau = sm.Dummy('t')
    plain = dict(zip(q, qs)) | dict(zip(u, us)) | dict(zip(specified, ss))
    plain[_TIME] = tau
    F = sm.Matrix(f_h).xreplace(plain)
    qdot = sm.Matrix([kindiff[s.diff(_TIME)] for s in q]).xreplace(plain)
    K = sm.Matrix(k_nh).xreplace(plain)
    k = sm.Matrix(f_nh).xreplace(plain)
    parts = [F, F.jacobian(qs), F.diff(tau), qdot.jacobian(us),
             qdot.xreplace({s: 0 for s in us}), K, k]
    names = set(qs) | set(ss) | {tau}
    constants = sorted(set().union(*(p.free_symbols for p in parts))
                       - names - set(us), key=sm.default_sort_key)
    if any(p.has(*us) for p in parts if us) or any(
            p.atoms(AppliedUndef, sm.Derivative) for p in parts):
        # not linear in the speeds, or other functions of time (the
        # numeric model refuses or reports these itself): no check
        return None
    try:
        function = sm.lambdify([qs, tau, ss, constants], parts, 'numpy',
                               cse=True)
    except Exception:      # noqa: BLE001 -- any printer failure: no check
        return None

    def evaluate(qv, t, sv, cv):
        with np.errstate(all='ignore'):
            try:
                values = function(list(qv), t, list(sv), list(cv))
            except (ArithmeticError, ValueError, TypeError):
                return None
        shapes = [p.shape for p in parts]
        out = [np.asarray(v, dtype=complex).reshape(shape)
               for v, shape in zip(values, shapes)]
        if not all(np.all(np.isfinite(v)) and not np.any(v.imag)
                   for v in out):
            return None
        return [v.real for v in out]
    evaluate.n_constants = len(constants)
    return evaluate


def _failed_rows(evaluate, nq, ns):
    """The rows of ``f_h`` whose derivative is not in the velocity
    constraints' row space, and whether that was found on the
    configuration constraints (True) or only off them (False, where no
    random point could be projected onto them)."""
    rng = np.random.default_rng(SEED)
    first = None
    for _ in range(ATTEMPTS):
        qv = rng.uniform(0.1, 1.0, nq)
        t = float(rng.uniform(0.1, 1.0))
        sv = rng.uniform(0.1, 1.0, ns)
        cv = rng.uniform(0.5, 1.5, evaluate.n_constants)
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
        if np.max(np.abs(F)) <= 1e-13 * max(1.0, np.max(np.abs(qv))):
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
    """The ValueError's message: the rows, what was expected and what the
    model has."""
    given = list(sm.Matrix(k_nh) * sm.Matrix(u) + sm.Matrix(f_nh)) if len(
        f_nh) else []
    have = (f'the velocity constraints {_short(given)}' if given else
            'no velocity constraints')
    where = ('at a random point on the configuration constraints'
             if on_constraints else
             'at random points (none could be put on the configuration '
             'constraints)')
    lines = []
    for i in failed:
        rate = sm.diff(f_h[i], _TIME).xreplace(kindiff)
        lines.append(f'row {i}, {_short(f_h[i])} = 0: its time derivative '
                     f'{_short(sm.expand(rate))} is not a linear '
                     f'combination of the velocity constraints')
    return (
        f'model: the velocity constraints do not contain the time '
        f'derivative of {len(failed)} configuration constraint(s) '
        f'({where}, with the kinematic differential equations): '
        + '; '.join(lines) + f'. The model has {have}. Without them the '
        f'motion is not held to the constraints and the result is wrong. '
        f'Expected: the velocity constraints include the time derivative '
        f'of each configuration constraint (any independent combination '
        f'of them), with as many dependent speeds as velocity '
        f'constraints; for a KanesMethod pass them as velocity_constraints '
        f'with u_dependent; a System derives them from '
        f'add_holonomic_constraints unless velocity_constraints is set.')
