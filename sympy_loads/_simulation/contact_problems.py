"""Private: the contact problems of rigid contacts with Coulomb friction,
written on contact-level data only (no model, no engine).

A *contact* ``j`` has a normal row and 0, 1 or 2 tangent rows of the
Delassus matrix ``G`` (``layout[j] = (normal_row, tangent_rows)``): an
impulse ``P`` (per row) changes the contact velocities by ``G P``, and
forces ``lam`` change the contact accelerations by ``G lam``. ``G`` is
symmetric positive semidefinite where the law rows and the impulse rows
are the same directions (then the kinetic energy changes by
``P . (v- + v+) / 2``).

:func:`solve_impact`
    the impulses of an impact. One contact: Stronge's energetic
    coefficient of restitution with Coulomb friction integrated over the
    normal impulse [Stronge2000]_, so that slip that stops, sticks or
    reverses during the impact is followed, and energy is never created
    (Newton's kinematic coefficient creates it in Kane's example
    [Kane1985]_); also one struck contact beside closed ones that it
    leaves unloaded. Several loaded contacts: Pfeiffer and Glocker's
    Poisson-type impact in two phases, compression then expansion, each a
    linear complementarity problem [Pfeiffer1996]_ [Glocker2001]_, with
    Coulomb's law exact for planar contacts and on the disc for spatial
    ones.
:func:`solve_contact`
    the forces and accelerations of closed contacts (normal
    complementarity, sticking or sliding friction) [Pfeiffer1996]_.

The LCPs are solved by :func:`.lcp.lemke`; a problem without solution
(Painleve's paradox, a secondary ray) raises :class:`.lcp.LCPError`
naming the contacts involved.

References
==========

.. [Stronge2000] W. J. Stronge, Impact Mechanics, Cambridge University
   Press, 2000, https://doi.org/10.1017/CBO9780511626432 (the energetic
   coefficient of restitution ``e*^2 = -W_expansion / W_compression``,
   the work of the normal impulse; friction integrated over the normal
   impulse, slip stopping, sticking and reversing).
.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, McGraw-Hill, 1985 (the double pendulum striking a rough
   floor, whose energy grows under Newton's law with friction).
.. [Pfeiffer1996] F. Pfeiffer, C. Glocker, Multibody Dynamics with
   Unilateral Contacts, Wiley, 1996, https://doi.org/10.1002/9783527618385
   (the contact problem as an LCP; the Poisson-type impact as two LCPs).
.. [Glocker2001] C. Glocker, Set-Valued Force Laws, Springer, 2001,
   https://doi.org/10.1007/978-3-540-44479-4
.. [Stewart1996] D. E. Stewart, J. C. Trinkle, "An implicit time-stepping
   scheme for rigid body dynamics with inelastic collisions and Coulomb
   friction", Int. J. Numer. Methods Eng. 39 (1996) 2673-2691 (the
   friction cone as an LCP with direction multipliers and the slip speed).
"""

import itertools
import math
from typing import NamedTuple

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from .lcp import LCPError, lemke

__all__ = []

# a tangential speed below this fraction of the speeds' scale is zero slip
SLIP_TOL = 1e-12
# segments of one impact beyond which the integration stops (never hangs)
MAX_SEGMENTS = 64
# slip (in units of the zero-slip tolerance) below which a turning slip is
# finished on a straight line
STRAIGHT = 1e3


class ImpactSolution(NamedTuple):
    """The result of :func:`solve_impact`.

    Attributes
    ==========

    P : numpy.ndarray
        Impulse per row of ``G`` (rows of no contact zero).
    v_plus : numpy.ndarray
        Contact velocities after the impact, ``v- + G P``.
    compression : numpy.ndarray
        Impulse per row at the end of compression (one contact: where the
        normal speed reaches zero; several: the compression LCP's).
    modes : tuple of str
        Per contact, the tangential mode at the end of the impact:
        ``'stick'``, ``'slide'``, ``'frictionless'`` (no tangent row or
        ``mu = 0``) or ``'open'`` (no impulse).
    phases : tuple of tuple of str
        Per contact, the modes in order: by Stronge's law (one loaded
        contact), each change of mode over the normal impulse (``('slide',
        'stick')`` for slip that stops and sticks, ``('slide', 'slide')``
        for slip that reverses; ``('open',)`` for the unloaded ones); by
        the two-phase law, ``(compression mode, expansion mode)``.
    restitution : tuple of float
        Per contact, the coefficient of restitution applied: ``e`` as
        given, except where several contacts with different coefficients
        would have created energy (see :func:`_poisson_impact`).
    """
    P: np.ndarray
    v_plus: np.ndarray
    compression: np.ndarray
    modes: tuple
    phases: tuple
    restitution: tuple = ()


class ContactSolution(NamedTuple):
    """The result of :func:`solve_contact`.

    Attributes
    ==========

    lam : numpy.ndarray
        Contact force per row of ``G``.
    a : numpy.ndarray
        Contact accelerations per row, ``a_free + G lam``.
    modes : tuple of str
        Per contact: ``'open'`` (``lam_N = 0``, separating or grazing),
        ``'stick'`` (tangential acceleration zero inside the cone) or
        ``'slide'`` (friction ``-mu lam_N`` times ``directions[j]``).
        A closed contact without friction (no tangent rows or ``mu = 0``)
        is ``'slide'``.
    directions : tuple
        Per contact, the unit slip direction (an array with one entry per
        tangent row) of a sliding contact: the one given in ``sliding``,
        or the direction of the tangential acceleration for a contact
        starting to slide; None for the other modes.
    """
    lam: np.ndarray
    a: np.ndarray
    modes: tuple
    directions: tuple


# ---------------------------------------------------------------------------
# one contact: Stronge's energetic coefficient, friction over the impulse
# ---------------------------------------------------------------------------

class _Course:
    """State of one contact's impact, advanced over the normal impulse
    ``p``: impulse per row ``P``, velocities ``v``, work of the normal
    impulse ``W``; ``target`` is the work at which the impact ends (set
    when compression ends)."""

    def __init__(self, v):
        self.P = np.zeros(len(v))
        self.v = np.array(v, dtype=float)
        self.W = 0.0
        self.target = None
        self.compression = None
        self.done = False
        self.phases = []
        self.path = [self.P.copy()]

    def note(self, mode, fresh):
        """Record the mode of the next segment: a new phase where the
        mode changes or slip starts again from rest (a reversal)."""
        if fresh or not self.phases or self.phases[-1] != mode:
            self.phases.append(mode)


def _restart_direction(G, mu):
    """Direction ``s`` of the slip that starts from rest when sticking is
    impossible: ``dv_t/dp = G_tn - mu G_tt s = c s`` with ``c > 0``, so
    ``s = (c I + mu G_tt)^-1 G_tn`` of unit length (``|s|`` falls with
    ``c``, so the root is unique) [Stronge2000]_."""
    Gtn, Gtt = G[1:, 0], G[1:, 1:]
    if len(Gtn) == 1:
        return np.sign(Gtn)

    def direction(c):
        return np.linalg.solve(c * np.eye(2) + mu * Gtt, Gtn)

    high = np.linalg.norm(Gtn) + 1.0
    # c -> 0 gives |s| = |G_tt^-1 G_tn| / mu > 1 (or unbounded for a
    # singular G_tt): start just above zero
    low = 1e-12 * high
    c = brentq(lambda c: np.linalg.norm(direction(c)) - 1.0, low, high,
               xtol=1e-15 * high, rtol=4 * np.finfo(float).eps)
    s = direction(c)
    return s / np.linalg.norm(s)


def _tangential_rate(G, vt, mu, tiny):
    """``(rate, mode)``: ``dP_t/dp`` of the next segment and its mode;
    ``rate`` None where the slip direction turns (integrated by ODE)."""
    if len(vt) == 0 or mu == 0:
        return np.zeros(len(vt)), 'frictionless'
    slip = np.linalg.norm(vt)
    if slip <= tiny:
        # the impulse ratio holding the slip at zero (least squares: G_tt
        # may be singular, then holding is possible only if consistent)
        hold = np.linalg.lstsq(G[1:, 1:], -G[1:, 0], rcond=None)[0]
        held = np.linalg.norm(G[1:, 1:] @ hold + G[1:, 0]) <= 1e-12 * (
            np.abs(G).max())
        if held and np.linalg.norm(hold) <= mu * (1 + 1e-12):
            return hold, 'stick'
        return -mu * _restart_direction(G, mu), 'slide'
    s = vt / slip
    turn = G[1:, 0] - mu * G[1:, 1:] @ s
    across = turn - (turn @ s) * s
    if (np.linalg.norm(across) <= 1e-13 * (np.abs(turn).max() + tiny)
            or slip <= 2 * STRAIGHT * tiny):
        return -mu * s, 'slide'
    return None, 'slide'


def _smallest_step(course, g, rate, e, tiny):
    """Length of the linear segment with ``dv/dp = g`` and which event ends
    it: 'compressed', 'slip stops', 'end'."""
    vn, gn = course.v[0], g[0]
    steps = []
    if course.target is None:
        if gn > 0:
            steps.append((-vn / gn, 'compressed'))
    else:
        D = max(course.target - course.W, 0.0)
        disc = vn * vn + 2 * gn * D
        if D == 0:
            steps.append((0.0, 'end'))
        elif disc >= 0 and vn + math.sqrt(disc) > 0:
            steps.append((2 * D / (vn + math.sqrt(disc)), 'end'))
        elif gn < 0:        # the normal speed falls back to zero first
            steps.append((-vn / gn, 'end'))
    vt = course.v[1:]
    if len(vt) and np.linalg.norm(vt) > tiny and rate is not None:
        s = vt / np.linalg.norm(vt)
        closing = s @ g[1:]
        if closing < 0:
            steps.append((-np.linalg.norm(vt) / closing, 'slip stops'))
    if not steps:
        raise LCPError('solve_impact: the normal speed of contact 0 does not '
                       'rise with the normal impulse (G is not positive '
                       'definite on the contact)', abs(vn), (0,))
    return min(steps, key=lambda x: x[0])


def _advance_linear(course, G, rate, e, tiny):
    g = G[:, 0] + G[:, 1:] @ rate
    h, event = _smallest_step(course, g, rate, e, tiny)
    h = max(h, 0.0)
    course.W += course.v[0] * h + 0.5 * g[0] * h * h
    course.P += h * np.concatenate([[1.0], rate])
    course.path.append(course.P.copy())
    course.v += h * g
    _settle(course, event, e, tiny)


def _settle(course, event, e, tiny):
    """Apply the event that ended a segment."""
    if event == 'compressed':
        course.v[0] = 0.0
        course.compression = course.P.copy()
        course.target = course.W * (1 - e * e)
        course.done = e == 0
    elif event == 'slip stops':
        course.v[1:] = 0.0
    elif event == 'end':
        course.done = True
        course.v[0] = max(course.v[0], 0.0)


def _advance_ode(course, G, mu, e, tiny):
    """A sliding segment whose slip direction turns: ``dP_t/dp = -mu s``,
    ``s = v_t/|v_t|``, integrated by ``solve_ivp`` in the normal impulse
    with events at the end of compression or of the impact and where the
    slip falls to ``STRAIGHT * tiny`` (the rest of the slip is finished on
    a straight line by the caller)."""
    v0, P0 = course.v.copy(), course.P.copy()

    def velocity(p, y):
        return v0 + G[:, 0] * (p - P0[0]) + G[:, 1:] @ (y[:-1] - P0[1:])

    def rhs(p, y):
        v = velocity(p, y)
        slip = np.linalg.norm(v[1:])
        return np.concatenate([-mu * v[1:] / max(slip, tiny), [v[0]]])

    def slip(p, y):
        return np.linalg.norm(velocity(p, y)[1:]) - STRAIGHT * tiny

    def normal(p, y):
        return velocity(p, y)[0]

    def work(p, y):
        return y[-1] - course.target

    slip.terminal = normal.terminal = work.terminal = True
    slip.direction, normal.direction = -1, 1
    events = [slip, normal] if course.target is None else [slip, work]
    span = (np.abs(v0).max() + tiny) / max(np.linalg.eigvalsh(G)[0], 1e-300)
    y0 = np.concatenate([P0[1:], [course.W]])
    start = P0[0]
    for _ in range(MAX_SEGMENTS):
        sol = solve_ivp(rhs, (start, start + 4 * span), y0, method='DOP853',
                        rtol=1e-12, atol=1e-14 * (np.abs(y0).max() + span),
                        events=events)
        start, y0 = sol.t[-1], sol.y[:, -1]
        course.path.extend(np.column_stack([sol.t, sol.y[:-1].T]))
        if sol.status == 1:
            break
    else:
        raise LCPError('solve_impact: the slip of contact 0 was followed '
                       'over too long a normal impulse', float('nan'), (0,))
    hit = [i for i, te in enumerate(sol.t_events) if len(te)][0]
    course.v = velocity(start, y0)
    course.P = np.concatenate([[start], y0[:-1]])
    course.W = y0[-1]
    if hit:
        _settle(course, 'compressed' if course.target is None else 'end', e,
                tiny)


def _one_contact(G, v, e, mu):
    """Stronge's energetic impact of one contact (rows [n, t...]):
    ``(P, compression, phases, path)``, ``path`` the impulses at the
    segments' ends (and the ODE's steps)."""
    course = _Course(v)
    if v[0] >= 0:
        return course.P, course.P.copy(), ('open',), np.array(course.path)
    tiny = SLIP_TOL * np.abs(v).max()
    for _ in range(MAX_SEGMENTS):
        rate, mode = _tangential_rate(G, course.v[1:], mu, tiny)
        course.note(mode, mode == 'slide' and bool(course.phases)
                    and not np.any(course.v[1:]))
        if rate is None:
            _advance_ode(course, G, mu, e, tiny)
        else:
            _advance_linear(course, G, rate, e, tiny)
        if course.done:
            return (course.P, course.compression, tuple(course.phases),
                    np.array(course.path))
    raise LCPError(f'solve_impact: more than {MAX_SEGMENTS} changes of slip '
                   f'in one impact at contact 0', abs(course.v[0]), (0,))


# ---------------------------------------------------------------------------
# public entry points
# ---------------------------------------------------------------------------

def _check(G, v, layout, e_or_mu, mu, name):
    G = np.array(G, dtype=float)
    v = np.array(v, dtype=float).ravel()
    r = len(v)
    if G.shape != (r, r):
        raise ValueError(f'{name}: G must be {r} x {r} (one row per entry '
                         f'of the velocities), got shape {G.shape}')
    layout = [(int(n), tuple(int(t) for t in ts)) for n, ts in layout]
    k = len(layout)
    for j, (n, ts) in enumerate(layout):
        if len(ts) > 2 or not all(0 <= i < r for i in (n, *ts)):
            raise ValueError(f'{name}: layout[{j}] = {(n, ts)} must be a '
                             f'normal row and at most 2 tangent rows < {r}')
    arrays = []
    for label, x in zip(('e', 'mu'), (e_or_mu, mu)):
        x = np.broadcast_to(np.array(x, dtype=float), (k,)).copy()
        if not np.isfinite(x).all() or (x < 0).any() or (
                label == 'e' and (x > 1).any()):
            bound = ' and <= 1' if label == 'e' else ''
            raise ValueError(f'{name}: {label} must be finite, >= 0{bound} '
                             f'per contact, got {x}')
        arrays.append(x)
    return G, v, layout, arrays[0], arrays[1]


def solve_impact(G, v_minus, layout, e, mu):
    """Impulses of an impact at the closed contacts of ``layout``.

    Explanation
    ===========

    One contact (rows ``[n, t...]``): the impact is followed over the
    normal impulse ``p`` [Stronge2000]_. While the contact slides the
    tangential impulse grows as ``dP_t/dp = -mu s`` (``s`` the unit slip
    direction, followed as it turns); when the slip stops the contact
    sticks if the impulse ratio that holds it, ``|G_tt^-1 G_tn| <= mu``,
    and otherwise slides on in the direction of
    :func:`_restart_direction` (planar: reverses). Planar contacts and
    slip of fixed direction are piecewise linear in ``p`` and solved in
    closed form; a turning slip is integrated by ``solve_ivp``.
    Compression ends where the normal speed reaches zero, with the work
    ``W_c = int v_n dp < 0``; the impact ends where the work of the normal
    impulse is ``(1 - e^2) W_c`` (Stronge's energetic coefficient: the
    expansion gives back ``e^2`` of the work done in compression). Energy
    is never created: the friction's work ``int v_t . dP_t`` is never
    positive.

    Several contacts, one of them struck (``v_n < 0``), the others
    resting: Stronge's impact of the struck contact alone where the others
    stay unloaded (their normal speeds stay ``>= 0`` all through it), so
    that listing a resting contact that lifts off changes nothing.
    Otherwise: Pfeiffer and Glocker's Poisson-type impact as two
    LCPs [Pfeiffer1996]_ (see :func:`_phase`): compression (normal
    speeds after it ``>= 0``, complementary to the normal impulses), then
    expansion from those speeds with normal impulse ``e_j P_Nc_j +
    dP_j``, ``dP_j >= 0`` complementary to the final normal speed; in each
    phase Coulomb's law at the impulse level (stick, or slide against the
    phase's final slip). The kinetic energy does not grow (the proof is in
    :func:`_poisson_impact`; where different coefficients at coupled
    contacts would make it grow, the smallest of them is used for all).

    Parameters
    ==========

    G : array_like, shape (r, r)
        Delassus matrix of the contact rows.
    v_minus : array_like, shape (r,)
        Contact velocities before the impact.
    layout : sequence of (int, tuple of int)
        Per contact, its normal row and tangent rows (0, 1 or 2).
    e, mu : float or array_like, shape (k,)
        Per contact, the coefficient of restitution (Stronge's energetic
        coefficient where one contact is loaded, Poisson's for several) and
        of friction.

    Returns
    =======

    ImpactSolution

    Raises
    ======

    LCPError
        Where the impact problem has no solution found (naming the
        contacts and the residual reached).
    ValueError
        For inconsistent shapes, a layout row out of range, ``e`` outside
        ``[0, 1]`` or a negative ``mu``.
    """
    G, v, layout, e, mu = _check(G, v_minus, layout, e, mu, 'solve_impact')
    if not layout:
        return ImpactSolution(np.zeros(len(v)), v.copy(), np.zeros(len(v)),
                              (), (), ())
    tiny = SLIP_TOL * (np.abs(v).max() + 1e-300)
    struck = [j for j, (n, ts) in enumerate(layout) if v[n] < -tiny]
    if len(layout) == 1 or len(struck) == 1:
        sol = _stronge(G, v, layout, e, mu, struck[0] if struck else 0, tiny)
        if sol is not None:
            return sol
    return _poisson_impact(G, v, layout, e, mu)


def _stronge(G, v, layout, e, mu, j, tiny):
    """Stronge's impact of contact ``j`` alone (:func:`_one_contact`), or
    None where another contact of ``layout`` would be pressed into its
    surface on the way (its normal speed below ``-tiny`` at a vertex of
    the impulse's path)."""
    rows = [layout[j][0], *layout[j][1]]
    Pj, compression_j, phases, path = _one_contact(
        G[np.ix_(rows, rows)], v[rows], e[j], mu[j])
    others = [n for i, (n, ts) in enumerate(layout) if i != j]
    if others and (v[others, None] + G[np.ix_(others, rows)] @ path.T
                   ).min() < -tiny:
        return None
    P, compression = np.zeros(len(v)), np.zeros(len(v))
    P[rows], compression[rows] = Pj, compression_j
    modes = tuple(phases[-1] if i == j else 'open' for i in range(len(
        layout)))
    phases = tuple(phases if i == j else ('open',) for i in range(len(
        layout)))
    return ImpactSolution(P, v + G @ P, compression, modes, phases,
                          tuple(float(x) for x in e))


# ---------------------------------------------------------------------------
# several contacts: one LCP per phase
# ---------------------------------------------------------------------------

#: directions of the polygon that stands in for a friction disc in the LCP
#: (refined to the exact disc afterwards, see :func:`_refine_discs`)
FACETS = 16


class _Unknowns:
    """Index of the LCP's unknowns: per contact ``j`` its normal impulse
    beyond the base (``normal[j]``), the friction multipliers along the
    directions ``D[j]`` (columns) and the slip speed ``slip[j]`` (None for
    a contact without cone)."""

    def __init__(self, layout, mu, fixed):
        self.normal, self.friction, self.slip, self.D = [], [], [], []
        size = 0
        for j, (n, ts) in enumerate(layout):
            self.normal.append(size)
            size += 1
            if ts and mu[j] > 0 and j not in fixed:
                if len(ts) == 1:
                    D = np.array([[1.0, -1.0]])
                else:
                    angles = 2 * np.pi * np.arange(FACETS) / FACETS
                    D = np.vstack([np.cos(angles), np.sin(angles)])
                self.D.append(D)
                self.friction.append(list(range(size, size + D.shape[1])))
                self.slip.append(size + D.shape[1])
                size += D.shape[1] + 1
            else:
                self.D.append(None)
                self.friction.append([])
                self.slip.append(None)
        self.size = size


def _impulse_map(G, layout, mu, base, fixed, idx):
    """``P = P0 + B x`` per row of ``G`` from the LCP unknowns ``x``: the
    base normal impulses (with the friction of a contact of fixed slip
    direction ``d``, ``-mu d`` per unit normal impulse) and the friction
    multipliers along their directions."""
    r = G.shape[0]
    P0, B = np.zeros(r), np.zeros((r, idx.size))
    for j, (n, ts) in enumerate(layout):
        column = np.zeros(r)
        column[n] = 1.0
        if j in fixed and ts:
            column[list(ts)] = -mu[j] * np.asarray(fixed[j], dtype=float)
        B[:, idx.normal[j]] = column
        P0 += base[j] * column
        if idx.D[j] is not None:
            B[np.ix_(list(ts), idx.friction[j])] = idx.D[j]
    return P0, B


def _phase_lcp(G, v0, layout, mu, base, fixed):
    """The LCP ``(M, q)`` of one phase (impulses and velocities, or forces
    and accelerations) with Coulomb's law on polygonal cones
    [Stewart1996]_: per contact, the normal speed ``>= 0`` complementary to
    the normal impulse beyond the base; ``D^T v_t + slip >= 0``
    complementary to the multipliers ``beta >= 0`` (``P_t = D beta``); and
    ``mu (base + P_N) - sum(beta) >= 0`` complementary to ``slip``. Planar
    contacts (``D = [1, -1]``) give Coulomb's law exactly."""
    idx = _Unknowns(layout, mu, fixed)
    P0, B = _impulse_map(G, layout, mu, base, fixed, idx)
    S = np.zeros((idx.size, G.shape[0]))        # rows paired with velocity
    for j, (n, ts) in enumerate(layout):
        S[idx.normal[j], n] = 1.0
        if idx.D[j] is not None:
            S[np.ix_(idx.friction[j], list(ts))] = idx.D[j].T
    M = S @ G @ B
    q = S @ (v0 + G @ P0)
    for j in range(len(layout)):
        if idx.slip[j] is not None:
            M[idx.friction[j], idx.slip[j]] = 1.0
            M[idx.slip[j], idx.normal[j]] = mu[j]
            M[idx.slip[j], idx.friction[j]] = -1.0
            q[idx.slip[j]] = mu[j] * base[j]
    return M, q, P0, B, idx


def _modes(G, v0, P, layout, mu, base, fixed, scale):
    """Per contact its mode and slip direction from the impulses ``P``."""
    v = v0 + G @ P
    modes, directions = [], []
    for j, (n, ts) in enumerate(layout):
        ts = list(ts)
        if P[n] <= 1e-12 * scale and base[j] == 0:
            modes.append('open')
            directions.append(None)
        elif j in fixed or not ts or mu[j] == 0:
            modes.append('slide')
            directions.append(np.asarray(fixed[j], dtype=float)
                              if j in fixed and ts else None)
        elif np.linalg.norm(v[ts]) <= 1e-9 * scale:
            modes.append('stick')
            directions.append(None)
        else:
            modes.append('slide')
            directions.append(v[ts] / np.linalg.norm(v[ts]))
    return modes, directions


def _suspects(G, layout, mu, fixed):
    """The contacts to name when a phase has no solution: the sliding ones
    whose friction drives them into the surface at least as fast as their
    normal force drives them out (``G_NN - mu G_NT d <= 0``, Painleve's
    condition), else all of them."""
    named = tuple(j for j, (n, ts) in enumerate(layout) if j in fixed and ts
                  and G[n, n] - mu[j] * G[n, list(ts)] @ fixed[j] <= 0)
    return named or tuple(range(len(layout)))


def _phase(G, v0, layout, mu, base, fixed=None):
    """One phase: the impulses ``P`` (per row) with the velocities ``v0 +
    G P`` complementary to them as in :func:`_phase_lcp`, spatial cones
    made exact by :func:`_refine_discs`. ``(P, modes, directions)``."""
    fixed = {} if fixed is None else fixed
    M, q, P0, B, idx = _phase_lcp(G, v0, layout, mu, base, fixed)
    try:
        w, x = lemke(M, q)
    except LCPError as err:
        contacts = _suspects(G, layout, mu, fixed)
        raise LCPError(f'contacts {contacts}: no solution of the contact '
                       f'problem ({err})', err.residual, contacts) from None
    P = P0 + B @ x
    scale = np.abs(v0).max() + np.abs(G).max() * np.abs(P).max() + 1e-300
    modes, directions = _modes(G, v0, P, layout, mu, base, fixed, scale)
    if any(len(ts) == 2 and modes[j] == 'slide' and j not in fixed
           and mu[j] > 0 for j, (n, ts) in enumerate(layout)):
        P = _refine_discs(G, v0, layout, mu, base, fixed, P, modes)
        modes, directions = _modes(G, v0, P, layout, mu, base, fixed, scale)
    return P, tuple(modes), tuple(directions)


def _disc_equations(G, v0, layout, mu, base, fixed, pressed, sliding):
    """Residual ``F(P)`` of the equations of one pattern of modes: per
    contact, ``v_n = 0`` if ``pressed[j]`` else ``P_N = base``; friction
    ``P_t = -mu P_N s`` for a sliding contact (``s`` the slip direction of
    ``v_t``, or the fixed one), ``v_t = 0`` for a sticking one, ``P_t = 0``
    without friction; rows of no contact ``P = 0``."""
    rows = np.zeros(G.shape[0], dtype=bool)

    def F(P):
        v = v0 + G @ P
        out = np.where(rows, 0.0, P)
        for j, (n, ts) in enumerate(layout):
            ts = list(ts)
            out[n] = v[n] if pressed[j] else P[n] - base[j]
            if not ts:
                continue
            if j in fixed:
                out[ts] = P[ts] + mu[j] * P[n] * np.asarray(fixed[j])
            elif mu[j] == 0 or (not pressed[j] and base[j] == 0):
                out[ts] = P[ts]
            elif sliding[j]:
                slip = np.linalg.norm(v[ts])
                out[ts] = P[ts] + mu[j] * P[n] * v[ts] / max(slip, 1e-300)
            else:
                out[ts] = v[ts]
        return out

    for n, ts in layout:
        rows[[n, *ts]] = True
    return F


def _pattern_holds(G, v0, layout, mu, base, P, pressed, sliding, scale):
    """Whether ``P`` satisfies the inequalities of its pattern of modes."""
    v = v0 + G @ P
    tol = 1e-9 * scale
    for j, (n, ts) in enumerate(layout):
        ts = list(ts)
        if P[n] < base[j] - tol or v[n] < -tol:
            return False
        if ts and mu[j] > 0 and not sliding[j]:
            if np.linalg.norm(P[ts]) > mu[j] * P[n] * (1 + 1e-9) + tol:
                return False
        if ts and sliding[j] and np.linalg.norm(v[ts]) <= tol:
            return False
    return True


def _refine_discs(G, v0, layout, mu, base, fixed, P, modes):
    """Replace the polygonal cones of spatial contacts that slide by
    Coulomb's disc: solve the equations of the polygon's pattern of modes
    (and, where they fail, of the patterns with some of those contacts
    sticking) by Powell's hybrid method from the polygon's impulses, and
    keep the first whose inequalities hold. A contact that sticks on the
    polygon sticks on the disc too (the polygon is inscribed), so only
    sliding ones change. Where no pattern holds, the polygon's impulses
    are kept: their friction is within ``1 - cos(pi / FACETS)`` (1.9 %)
    of the disc's."""
    from scipy.optimize import root
    scale = np.abs(v0).max() + np.abs(G).max() * np.abs(P).max() + 1e-300
    pressed = [P[n] > base[j] + 1e-12 * scale or (base[j] == 0 and P[n] > 0)
               for j, (n, ts) in enumerate(layout)]
    slide = [modes[j] == 'slide' and len(ts) > 0 and mu[j] > 0
             for j, (n, ts) in enumerate(layout)]
    spatial = [j for j, (n, ts) in enumerate(layout)
               if len(ts) == 2 and slide[j] and j not in fixed]
    for stuck in itertools.chain.from_iterable(
            itertools.combinations(spatial, r) for r in range(
                len(spatial) + 1)):
        sliding = [s and j not in stuck for j, s in enumerate(slide)]
        F = _disc_equations(G, v0, layout, mu, base, fixed, pressed, sliding)
        sol = root(F, P, method='hybr', options={'xtol': 1e-14})
        if (np.abs(F(sol.x)).max() <= 1e-11 * scale and _pattern_holds(
                G, v0, layout, mu, base, sol.x, pressed, sliding, scale)):
            return sol.x
    return P


def _two_phases(G, v, layout, mu, e):
    """Compression, then expansion with base ``e_j P_Nc_j``:
    ``(P_c, P, phases, final modes)``."""
    k = len(layout)
    Pc, modes_c, _ = _phase(G, v, layout, mu, np.zeros(k))
    base = e * np.array([Pc[n] for n, ts in layout])
    Pe, modes_e, _ = _phase(G, v + G @ Pc, layout, mu, base)
    return Pc, Pc + Pe, tuple(zip(modes_c, modes_e)), modes_e


def _poisson_impact(G, v, layout, e, mu):
    """Pfeiffer and Glocker's Poisson-type impact of several contacts
    [Pfeiffer1996]_ [Glocker2001]_: compression from ``v-`` with base
    zero, then expansion from the compression's velocities with base
    ``e_j P_Nc_j``, each phase the LCP of :func:`_phase` (Coulomb's law at
    the impulse level on the phase's final slip; planar cones exact,
    spatial ones refined to the disc).

    With one coefficient ``e`` for all contacts, ``v_c = v- + G P_c`` and
    ``P_e`` the expansion's impulse, the change of kinetic energy is
    ``(1 + e) P_c . v_c - (1 - e^2)/2 P_c G P_c + (P_Te - e P_Tc) . v_T+ -
    D G D / 2`` (``D = P_e - e P_c``): the first term is ``<= 0`` by the
    compression's complementarity, and the third is ``<= 0`` because
    ``|P_Tc| <= mu P_Nc``, ``P_Ne >= e P_Nc`` and ``P_Te . v_T+ = -mu
    P_Ne |v_T+|``, so the impact never creates energy (``G`` symmetric
    positive semidefinite). With coefficients that differ between
    coupled contacts it can (Glocker's energetic consistency conditions
    for Poisson-type laws are then not met): where the result would
    create energy, the expansion is recomputed with the smallest
    coefficient of the contacts loaded in compression, for all of them.
    ``ImpactSolution.restitution`` says which coefficients were used."""
    Pc, P, phases, modes_e = _two_phases(G, v, layout, mu, e)
    loaded = [j for j, (n, ts) in enumerate(layout) if Pc[n] > 0]
    gain = 0.5 * P @ (2 * v + G @ P)
    if loaded and gain > 1e-12 * (P @ G @ P) and np.ptp(e[loaded]) > 0:
        e = np.full(len(layout), e[loaded].min())
        Pc, P, phases, modes_e = _two_phases(G, v, layout, mu, e)
    modes = tuple('open' if not P[n] else mode if layout[j][1] and mu[j] > 0
                  else 'frictionless' for j, ((n, ts), mode)
                  in enumerate(zip(layout, modes_e)))
    return ImpactSolution(P, v + G @ P, Pc, modes, phases,
                          tuple(float(x) for x in e))


def solve_contact(G, a_free, layout, mu, sliding):
    """Forces and accelerations of the closed contacts of ``layout``.

    Explanation
    ===========

    The contact problem of Pfeiffer and Glocker [Pfeiffer1996]_
    [Glocker2001]_ at the acceleration level, ``a = a_free + G lam``: per
    contact ``a_N >= 0``, ``lam_N >= 0``, ``a_N lam_N = 0``; a contact of
    ``sliding`` has the friction ``lam_T = -mu lam_N d`` of its given slip
    direction ``d``; any other contact with friction sticks (``a_T = 0``,
    ``|lam_T| <= mu lam_N``) or starts to slide (``lam_T = -mu lam_N
    a_T/|a_T|``). Solved as one LCP (:func:`_phase_lcp`; a contact with
    two tangent rows that starts to slide refined to Coulomb's disc) by
    Lemke's method: a few pivots for the few contacts of a model.

    Parameters
    ==========

    G : array_like, shape (r, r)
    a_free : array_like, shape (r,)
        Contact accelerations with the contact forces zero.
    layout : sequence of (int, tuple of int)
    mu : float or array_like, shape (k,)
    sliding : dict
        Contact index -> unit slip direction (one entry per tangent row) of
        the contacts that slide.

    Returns
    =======

    ContactSolution

    Notes
    =====

    Where the problem has several solutions (redundant contacts share a
    force in any proportion, e.g. the friction of two supports of one
    body; Painleve's indeterminate case, a sliding contact with ``G_NN -
    mu G_NT d < 0`` that the free acceleration lifts), the one Lemke's
    method reaches is returned: with nothing pressing (``q >= 0``) that is
    all contacts open.

    Raises
    ======

    LCPError
        Where no forces satisfy the conditions: Painleve's paradox (a
        sliding contact whose friction presses it into the surface faster
        than its normal force pushes it out, ``G_NN - mu G_NT d < 0``, while
        the free acceleration presses it), naming the contacts and the
        residual reached.
    ValueError
        For inconsistent shapes, negative ``mu`` or a slip direction of
        the wrong length or not of unit length.
    """
    G, a, layout, _, mu = _check(G, a_free, layout, 0.0, mu, 'solve_contact')
    sliding = dict(sliding or {})
    for j, d in sliding.items():
        d = np.asarray(d, dtype=float).ravel()
        if not 0 <= j < len(layout) or len(d) != len(layout[j][1]) or (
                len(d) and abs(np.linalg.norm(d) - 1) > 1e-9):
            raise ValueError(f'solve_contact: sliding[{j}] must be a unit '
                             f'vector with one entry per tangent row of '
                             f'contact {j}, got {d}')
        sliding[j] = d
    if not layout:
        return ContactSolution(np.zeros(len(a)), a.copy(), (), ())
    lam, modes, directions = _phase(G, a, layout, mu, np.zeros(len(layout)),
                                    sliding)
    return ContactSolution(lam, a + G @ lam, modes, directions)
