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
    [Kane1985]_). Several contacts: Pfeiffer and Glocker's Poisson-type
    impact in two phases, compression then expansion, each a linear
    complementarity problem [Pfeiffer1996]_ [Glocker2001]_.
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
        Per contact, the modes in order: one contact, each change of mode
        over the normal impulse (``('slide', 'stick')`` for slip that
        stops and sticks); several contacts, ``(compression mode,
        expansion mode)``.
    """
    P: np.ndarray
    v_plus: np.ndarray
    compression: np.ndarray
    modes: tuple
    phases: tuple


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

    def excess(c):
        return np.linalg.norm(np.linalg.solve(
            c * np.eye(2) + mu * Gtt, Gtn)) - 1.0
    high = np.linalg.norm(Gtn) + 1.0
    c = brentq(excess, 0.0, high, xtol=1e-15 * high, rtol=1e-15)
    s = np.linalg.solve(c * np.eye(2) + mu * Gtt, Gtn)
    return s / np.linalg.norm(s)


def _tangential_rate(G, vt, mu, tiny):
    """``(rate, mode)``: ``dP_t/dp`` of the next segment and its mode;
    ``rate`` None where the slip direction turns (integrated by ODE)."""
    if len(vt) == 0 or mu == 0:
        return np.zeros(len(vt)), 'frictionless'
    slip = np.linalg.norm(vt)
    if slip <= tiny:
        hold = -np.linalg.solve(G[1:, 1:], G[1:, 0])
        if np.linalg.norm(hold) <= mu * (1 + 1e-12):
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
    ``(P, compression, phases)``."""
    course = _Course(v)
    if v[0] >= 0:
        return course.P, course.P.copy(), ('open',)
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
            return course.P, course.compression, tuple(course.phases)
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
        if not np.isfinite(x).all() or (x < 0).any():
            raise ValueError(f'{name}: {label} must be finite and >= 0 per '
                             f'contact, got {x}')
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

    Several contacts: Pfeiffer and Glocker's Poisson-type impact as two
    LCPs [Pfeiffer1996]_ (see :func:`_phase`): compression (normal
    speeds after it ``>= 0``, complementary to the normal impulses), then
    expansion from those speeds with normal impulse ``e_j P_Nc_j +
    dP_j``, ``dP_j >= 0`` complementary to the final normal speed; in each
    phase Coulomb's law at the impulse level (stick, or slide against the
    phase's final slip). The kinetic energy does not grow (proof in the
    module's tests' docstring).

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
        coefficient for one contact, Poisson's for several) and of
        friction.

    Returns
    =======

    ImpactSolution

    Raises
    ======

    LCPError
        Where the impact problem has no solution found (naming the
        contacts and the residual reached).
    ValueError
        For inconsistent shapes or negative coefficients.
    """
    G, v, layout, e, mu = _check(G, v_minus, layout, e, mu, 'solve_impact')
    P = np.zeros(len(v))
    if len(layout) == 1:
        rows = [layout[0][0], *layout[0][1]]
        Pj, compression_j, phases = _one_contact(
            G[np.ix_(rows, rows)], v[rows], e[0], mu[0])
        P[rows] = Pj
        compression = np.zeros(len(v))
        compression[rows] = compression_j
        return ImpactSolution(P, v + G @ P, compression, (phases[-1],),
                              (phases,))
    return _poisson_impact(G, v, layout, e, mu)


def _poisson_impact(G, v, layout, e, mu):
    raise NotImplementedError('several contacts: not yet')
