"""Private: lasting unilateral contacts (closed :class:`~sympy_loads.Impact`
contacts) inside :func:`sympy_loads.simulate`.

A contact whose impacts accumulate, or that a plastic impact leaves on its
plane while the loads press it in, or that rests on its plane at the start
while pressed, *closes*: its gap is held at zero by a normal force
:math:`\\lambda_N \\ge 0`, with Coulomb friction where its
``friction_coefficient`` is positive (sticking: the slip held at zero while
:math:`|\\lambda_T| < \\mu \\lambda_N`; sliding: :math:`\\lambda_T = -\\mu
\\lambda_N d` against the slip direction :math:`d`). Pfeiffer and Glocker's
formulation [PfeifferGlocker]_: between events the set of closed contacts
and each one's mode are fixed, and every evaluation of the right-hand side
solves that mode's linear equations (closed normal rows :math:`a_N = 0`,
sticking tangent rows :math:`a_T = 0`, sliding rows :math:`\\lambda_T =
-\\mu \\lambda_N d`) with the accessor's data
(:meth:`.impacts.ImpactEngine.contact_state`,
:meth:`~.impacts.ImpactEngine.free_response`, one evaluation of the
equations and one factorisation for both ``u'_free`` and ``A``):

    u' = u'_free + A lam,   A = C (C^T M C)^-1 C^T W^T,
    a  = R u'_free + bias + G lam,   G = R A,

where ``R`` and ``W`` are the law and impulse rows of the closed contacts'
active rows. Each event of such a phase is a terminal event of SciPy's
stepping (:func:`.integrators.integrate`, the right-hand side in Python):

* a closed contact's :math:`\\lambda_N` reaching zero: it opens;
* a sticking contact's :math:`\\mu \\lambda_N - |\\lambda_T|` reaching
  zero: it starts to slide against its friction force;
* a sliding contact's slip speed (along its slip direction) reaching zero:
  it sticks or slides back;
* an open contact's gap reaching zero: an impact with every closed contact
  in the layout (:meth:`.impacts.ImpactEngine.frictional_jump`, which
  solves it with :func:`.contact_problems.solve_impact`).

At each event the contacts that touch their planes without approaching
them are decided together by :func:`.contact_problems.solve_contact` (the
contact whose force vanished is left open, the one whose friction
saturated slides); the phase with no closed contact is the engine's
ordinary one (the compiled stepping where it applies, see
:func:`.impacts.run`).

The gap and the slip of sticking contacts are held at the acceleration
level only: they drift with the integrator's error; each
:class:`~sympy_loads.ContactInterval` reports the largest gap of its
samples (``gap_drift``).

References
==========

.. [PfeifferGlocker] F. Pfeiffer, Ch. Glocker, Multibody Dynamics with
   Unilateral Contacts, Wiley, 1996.
"""

import collections

import numpy as np

from .._errors import SimulationError
from .contact_problems import solve_contact
from .integrators import integrate
from .lcp import LCPError
from .problem import format_state

__all__ = []

# transitions at one instant (impacts and mode decisions) before the run
# stops
MAX_TRANSITIONS = 100
# transitions within CHATTER_WINDOW of the time span after which the run
# stops (the modes chatter: it would not end in reasonable time)
CHATTER_TRANSITIONS = 500
CHATTER_WINDOW = 1e-4


class ContactCloses(Exception):
    """Raised by :meth:`.impacts.ImpactEngine.resolve` where a contact
    comes to rest (accumulating impacts, a plastic impact on a pressing
    contact, a contact resting at the start while pressed):
    :func:`.impacts.run` hands the state ``(t, q, u)`` to :meth:`LastingContacts.settle`.
    ``keeps_run`` lets it through the compiled stepping with the samples
    reached."""

    keeps_run = True

    def __init__(self, t, q, u, index):
        super().__init__(f'contact {index} closes at t = {t!r}')
        self.t, self.q, self.u, self.index = t, q, u, index


class _Events:
    """The event functions of a closed phase, in the form
    :func:`.integrators._ivp_with_impacts` reads from an impact engine:
    ``impacts`` (one entry per event), ``event_values(t, y)`` ->
    ``(values plus offsets, rates)``, ``function.address`` None (SciPy
    steps it)."""

    class function:               # noqa: N801 (read as impacts.function)
        address = None

    def __init__(self, contacts, watch, offsets):
        self.contacts = contacts
        self.impacts = watch
        self.offsets = offsets

    def event_values(self, t, y):
        values, rates = self.contacts.event_functions(t, y, self.impacts)
        return values + self.offsets, rates


class LastingContacts:
    """The closed contacts of one run of :func:`.impacts.run` and their
    modes: ``modes`` maps a contact's index to None (sticking, or without
    friction) or its unit slip direction (over its tangent rows)."""

    def __init__(self, engine, span):
        self.engine = engine
        self.problem = engine.problem
        self.span = span
        self.nu = engine.nu
        self.k = len(engine.impacts)
        self.modes = {}
        self.mask = np.asarray(engine.tangent_mask, dtype=bool).reshape(
            self.k, 2)
        self._memo = (None, None)
        self._structures = {}        # the modes' rows and unknowns
        self._times = collections.deque(maxlen=CHATTER_TRANSITIONS)
        # per contact: the open interval's start and its chunks of samples
        self._open = {}
        self.intervals = []          # (index, start, end, chunks)

    # -- the mode's equations ---------------------------------------------

    def _tangents(self, j, mu):
        """The tangent rows (0, 1 of the contact's [t1, t2]) that carry
        friction at contact ``j``."""
        if not mu > 0.0:
            return []
        return [a for a in range(2) if self.mask[j, a]]

    def layout(self, contacts, state):
        """``(rows, layout)``: the rows (into the k x 3 stack of
        ``state.law``) of ``contacts`` and their ``(normal_row,
        tangent_rows)`` positions among them."""
        rows, layout = [], []
        for j in contacts:
            normal = len(rows)
            rows.append(3 * j)
            tangents = []
            for a in self._tangents(j, state.mu[j]):
                tangents.append(len(rows))
                rows.append(3 * j + 1 + a)
            layout.append((normal, tuple(tangents)))
        return rows, layout

    def delassus(self, t, q, u, state, rows):
        """``(A, G)``: the speed change per unit force of ``rows`` (nu x r)
        and the Delassus matrix ``R A``
        (:meth:`.impacts.ImpactEngine.response`)."""
        return self.engine.response(t, q, u, state, rows)

    def forces(self, t, q, u, modes=None):
        """``(q', u', state, lam)`` at ``(t, q, u)`` with the contacts of
        ``modes`` (default: the current ones) closed; ``lam`` (k, 3): each
        contact's normal and tangential forces."""
        modes = self.modes if modes is None else modes
        state = self.engine.contact_state(t, q, u)
        lam = np.zeros((self.k, 3))
        if not modes:
            qdot, udot, _ = self.problem.derivatives(t, q, u)
            return qdot, udot, state, lam
        contacts, rows, layout, S, equations = self._structure(modes, state)
        qdot, udot, A, G = self.engine.free_response(t, q, u, state, rows)
        a_free = (state.law.reshape(-1, self.nu)[rows] @ udot
                  + state.bias.reshape(-1)[rows])
        K = (G @ S)[equations]
        x = None
        if K.shape[0] == K.shape[1]:
            try:
                x = np.linalg.solve(K, -a_free[equations])
            except np.linalg.LinAlgError:
                pass        # redundant contacts: the least-norm forces
        if x is None:
            x = np.linalg.lstsq(K, -a_free[equations], rcond=None)[0]
        force = S @ x
        residual = np.abs(K @ x + a_free[equations]).max()
        scale = max(1.0, np.abs(a_free).max(), np.abs(G).max() *
                    np.abs(force).max())
        if not residual <= 1e-8 * scale:
            names = ', '.join(repr(self.engine.impacts[j].name)
                              for j in contacts)
            raise SimulationError(
                f'the closed contacts {names} at t = {t:.10g} have no '
                f'consistent forces in their modes (residual {residual:.3g}'
                f' of the acceleration equations; '
                f'{format_state(self.problem.nm.q, q)}).',
                time=t, q=q, u=u, keeps_run=True)
        for (normal, tangents), j in zip(layout, contacts):
            lam[j, 0] = force[normal]
            for row, a in zip(tangents, self._tangents(j, state.mu[j])):
                lam[j, 1 + a] = force[row]
        return qdot, udot + A @ force, state, lam

    def _structure(self, modes, state):
        """``(contacts, rows, layout, S, equations)`` of ``modes``
        (:meth:`layout`, :meth:`_mode_matrix`), kept while the modes stay
        the same unless a spatial contact slides (its slip direction
        turns with the state)."""
        key = tuple((j, None if d is None else tuple(d))
                    for j, d in sorted(modes.items()))
        cached = self._structures.get(key)
        if cached is not None:
            return cached
        contacts = sorted(modes)
        rows, layout = self.layout(contacts, state)
        S, equations = self._mode_matrix(contacts, layout, state, len(rows),
                                         modes)
        found = (contacts, rows, layout, S, equations)
        turning = any(modes[j] is not None and len(modes[j]) > 1
                      for j in contacts)
        if not turning:
            if len(self._structures) > 64:
                self._structures.clear()
            self._structures[key] = found
        return found

    def _mode_matrix(self, contacts, layout, state, r, modes):
        """``(S, equations)``: the forces of the rows are ``S x`` with the
        mode's unknowns ``x`` (each normal force, and each sticking
        contact's tangential forces; a sliding contact's tangential forces
        are ``-mu lam_N`` times its slip direction), and ``equations`` the
        rows whose acceleration is zero (normal rows; sticking tangent
        rows)."""
        columns, equations = [], []
        for j, (normal, tangents) in zip(contacts, layout):
            direction = modes.get(j)
            column = np.zeros(r)
            column[normal] = 1.0
            equations.append(normal)
            if tangents and direction is not None:
                direction = self._slip_direction(j, state, direction)
                column[list(tangents)] = -state.mu[j] * direction
            columns.append(column)
            if tangents and direction is None:
                for row in tangents:
                    column = np.zeros(r)
                    column[row] = 1.0
                    columns.append(column)
                    equations.append(row)
        return np.array(columns).T, equations

    def _slip_direction(self, j, state, stored):
        """The unit slip direction of sliding contact ``j``: along its
        slip velocity where that is not small and not against ``stored``
        (spatial contacts turn), else ``stored`` (planar ones)."""
        if len(stored) < 2:
            return stored
        slip = state.vt[j][self.mask[j]]
        norm = float(np.linalg.norm(slip))
        if norm > 1e-9 and float(slip @ stored) > 0.0:
            return slip / norm
        return stored

    # -- the right-hand side and the events --------------------------------

    def _at(self, t, y):
        key = (float(t), np.asarray(y, dtype=float).tobytes())
        if self._memo[0] != key:
            q, u = self.engine.state(t, y)
            self._memo = (key, (q, u) + self.forces(t, q, u))
        return self._memo[1]

    def rhs(self, t, y):
        """The integrator's ``y'`` with the current modes."""
        _, _, qdot, udot, _, _ = self._at(t, y)
        if self.problem.partitioned:
            udot = udot[self.problem.nm.u_ind_idx]
        ydot = np.concatenate([qdot, udot])
        if not np.all(np.isfinite(ydot)):
            raise SimulationError(f'the right-hand side with closed contacts'
                                  f' is not finite at t = {float(t):.10g}.',
                                  time=t, keeps_run=True)
        return ydot

    def watch_list(self):
        """The events of the current modes: ``(kind, j)`` with kind
        ``'gap'`` (an open contact), ``'lift'`` (lam_N of a closed one),
        ``'saturate'`` (a sticking one with friction) or ``'slip'`` (a
        sliding one)."""
        watch = [('gap', j) for j in range(self.k) if j not in self.modes]
        for j in sorted(self.modes):
            watch.append(('lift', j))
            if self.mask[j].any():
                watch.append(('slip' if self.modes[j] is not None
                              else 'saturate', j))
        return watch

    def event_functions(self, t, y, watch):
        """``(values, rates)`` of the events ``watch`` at ``(t, y)``; the
        gaps' rates are their normal speeds, the others' zero."""
        _, _, _, _, state, lam = self._at(t, y)
        values, rates = np.empty(len(watch)), np.zeros(len(watch))
        for n, (kind, j) in enumerate(watch):
            if kind == 'gap':
                values[n], rates[n] = state.gap[j], state.vn[j]
            elif kind == 'lift':
                values[n] = lam[j, 0]
            elif kind == 'saturate':
                values[n] = (state.mu[j] * lam[j, 0]
                             - np.linalg.norm(lam[j, 1:][self.mask[j]]))
            else:
                values[n] = float(state.vt[j][self.mask[j]]
                                  @ self.modes[j])
        return values, rates

    # -- a closed phase ----------------------------------------------------

    def integrate(self, t, t1, y, sample_times, options):
        """Integrate the closed phase from ``(t, y)`` to its first event
        (or ``t1``); returns ``(solution, event)``, ``event`` the ``(kind,
        j)`` that ended it (None at ``t1``). The phase's samples and each
        closed contact's forces at them are kept for the intervals."""
        watch = self.watch_list()
        values, _ = self.event_functions(t, y, watch)
        tiny = 64 * np.finfo(float).eps * max(1.0, float(np.abs(y).max()))
        offsets = np.maximum(0.0, -values) + tiny
        events = _Events(self, watch, offsets)
        options = dict(options, jac=None)
        solution = integrate(self.rhs, (t, t1), y, t_eval=sample_times,
                             impacts=events, problem=self.problem, **options)
        self._keep(solution)
        event = None
        if solution.status == 1:
            hits = [(float(te[0]), n) for n, te in
                    enumerate(solution.t_events) if len(te)]
            event = watch[min(hits)[1]]
        return solution, event

    def _keep(self, solution):
        """Each closed contact's forces and gap at the phase's samples."""
        times = np.asarray(solution.t, dtype=float)
        if not len(times):
            return
        q, u, _, _ = self.problem.samples(times, solution.y)
        lam, sticking, gaps = [], [], []
        for n, t in enumerate(times):
            _, _, state, forces = self.forces(t, q[n], u[n])
            lam.append(forces)
            gaps.append(state.gap.copy())
        lam, gaps = np.array(lam), np.array(gaps)
        for j in self.modes:
            sticking = np.full(len(times), self.modes[j] is None)
            self._open[j][1].append((times, lam[:, j, 0], lam[:, j, 1:],
                                     sticking, np.abs(gaps[:, j])))

    # -- transitions -------------------------------------------------------

    def settle(self, t, q, u, event=None):
        """The state after the transitions at ``t`` from ``(q, u)``: the
        impacts of the contacts that approach their planes (with every
        touching contact in the layout; plastic where the engine counts
        them as accumulating), then the modes of the touching contacts
        that do not move off their planes (``solve_contact``; ``event``,
        the ``(kind, j)`` that stopped the phase, leaves a contact whose
        force vanished open and makes one whose friction saturated
        slide). Sets :attr:`modes`; returns the integrator state."""
        engine = self.engine
        self._check_chatter(t, q, u)
        old = dict(self.modes)
        for _ in range(MAX_TRANSITIONS):
            state = engine.contact_state(t, q, u)
            floor = self._speed_floor()
            # (a closed contact's gap drifts with the integrator's error)
            touching = [j for j in range(self.k)
                        if state.gap[j] <= engine.tolerance
                        or j in self.modes]
            struck = [j for j in touching if state.vn[j] < -floor]
            if not struck:
                break
            u = self._impact(t, q, u, state, touching, floor)
        else:
            raise SimulationError(
                f'the contacts at t = {t:.10g} did not settle after '
                f'{MAX_TRANSITIONS} impacts '
                f'({format_state(engine.problem.nm.q, q)}).',
                time=t, q=q, u=u, keeps_run=True)
        resting = [j for j in touching if abs(state.vn[j]) <= floor]
        self.modes = self._decide(t, q, u, state, resting, event)
        # (the next phase may start from the same state, with new modes)
        self._memo = (None, None)
        self._check_supported(t)
        self._update_intervals(t, old)
        return self.problem.pack(q, u)

    def _check_chatter(self, t, q, u):
        """A :class:`SimulationError` (the run kept) where the last
        :data:`CHATTER_TRANSITIONS` transitions all fell within
        :data:`CHATTER_WINDOW` of the time span."""
        self._times.append(float(t))
        if (len(self._times) == CHATTER_TRANSITIONS and
                t - self._times[0] <= CHATTER_WINDOW * self.span):
            raise SimulationError(
                f'the contacts chatter at t = {t:.10g}: '
                f'{CHATTER_TRANSITIONS} impacts or changes of contact mode '
                f'since t = {self._times[0]:.10g} '
                f'({format_state(self.problem.nm.q, q)}); the simulation '
                f'up to this time is in the error\'s result.',
                time=t, q=q, u=u, keeps_run=True)

    def _check_supported(self, t):
        """``ValueError`` where a closed contact meets what the closed
        phases do not support: joint friction (its relaxation does not
        see the contact forces among the joints' reactions), or a contact
        whose speeds depend on a specified input (whose rate, needed for
        the contact's acceleration, is not known)."""
        engine = self.engine
        for j in sorted(self.modes):
            name = f'{engine.impacts[j].name!r} (impacts[{j}])'
            if self.problem.n_friction:
                raise ValueError(
                    f'the contact {name} comes to rest at t = {t:.10g}: a '
                    f'lasting (closed) contact with joint friction '
                    f'(joint_friction=) is not supported; model the contact '
                    f'with HuntCrossleyContact, or end the run before this '
                    f'time.')
            if not engine.bias_known[j]:
                raise ValueError(
                    f'the contact {name} comes to rest at t = {t:.10g}, '
                    f'but its normal or slip speed depends on a specified '
                    f'input (simulate()\'s specified=), whose rate a closed '
                    f'contact needs and which is not known; write that '
                    f'motion as an expression of time in the model (e.g. a '
                    f'plane_point located by A*sin(w*t)) instead.')

    def _speed_floor(self):
        """Normal speeds within this of zero count as resting."""
        largest = max(1.0, float(np.max(self.engine.largest, initial=0.0)))
        return max(1e-9 * largest, self.engine.tolerance)

    def _impact(self, t, q, u, state, touching, floor):
        """``u+`` after the impact of the contacts ``touching`` (those that
        approach, and those resting on their planes, with their
        restitution; plastic, at every one of them, where the impacts of
        one that approaches accumulate)."""
        engine = self.engine
        layout_contacts = [j for j in touching if state.vn[j] <= floor]
        e = state.e[layout_contacts].copy()
        resting = False
        for n, j in enumerate(layout_contacts):
            approach = -state.vn[j]
            if approach > floor:
                engine._check_restitution(t, q, u, j, e[n])
                if self._accumulating(j, approach):
                    # the contacts come to rest: the impact is plastic at
                    # every contact in it (a resting neighbour that took
                    # an impulse would else be lifted by its own
                    # restitution, and the two would rock on at the
                    # round-off level of the gaps)
                    e[:] = 0.0
                    resting = True
        u_new, P, tangential = engine.frictional_jump(t, q, u,
                                                      layout_contacts, e)
        after = engine.contact_state(t, q, u_new)
        if resting:
            u_new, P = self._stop_slow(t, q, u_new, after, layout_contacts,
                                       P, floor)
            after = engine.contact_state(t, q, u_new)
        for n, j in enumerate(layout_contacts):
            if P[n] == 0.0 and not any(tangential[n][0]):
                continue            # a resting contact that took nothing
            engine.records.append((
                float(t), j, float(state.vn[j]), float(after.vn[j]),
                float(P[n]), tuple(u), tuple(u_new)) + tangential[n])
            engine.count[j] += 1
            engine.largest[j] = max(engine.largest[j], -state.vn[j])
        return u_new

    def _stop_slow(self, t, q, u, state, contacts, P, floor):
        """``(u+, P)`` after the plastic impact that ends an accumulation:
        the ``contacts`` of that impact that leave their planes slower
        than the accumulation threshold are stopped too, by the normal
        impulses that bring every one of them to rest at once (a least
        squares solve of the Delassus matrix's normal rows). Without this
        a rocking block whose impacts accumulate would go on rocking
        about its two corners at the round-off level of its tilt: each
        plastic impact lifts the other corner by a speed near the
        threshold, which gravity brings back as fast. These impulses may
        pull, by at most the threshold's share of the momentum: the
        error the accumulation's cut-off makes anyway."""
        limit = self._rest_threshold()
        leaving = [j for j in contacts if floor < state.vn[j] <= limit]
        if not leaving:
            return u, P
        closing = [j for j in contacts if state.vn[j] <= limit]
        rows, layout = self.layout(closing, state)
        A, G = self.delassus(t, q, u, state, rows)
        speeds = np.concatenate([state.vn[:, None], state.vt], axis=1)
        extra = np.linalg.lstsq(G, -speeds.reshape(-1)[rows],
                                rcond=None)[0]
        P = np.array(P, dtype=float)
        for n, j in enumerate(contacts):
            if j in closing:
                P[n] += extra[layout[closing.index(j)][0]]
        return u + A @ extra, P

    def _rest_threshold(self):
        """The approach speed below which impacts accumulate, for the
        contacts without their own ``rest_speed``: ``RELATIVE_REST_SPEED``
        times the largest approach speed of any contact so far (the
        largest of the ``rest_speed`` given, if larger)."""
        engine = self.engine
        largest = float(np.max(engine.largest, initial=0.0))
        limits = [impact.RELATIVE_REST_SPEED * largest if
                  impact.rest_speed is None else impact.rest_speed
                  for impact in engine.impacts]
        return max(limits)

    def _accumulating(self, j, approach):
        """Whether contact ``j``'s impact at the approach speed
        ``approach`` counts as accumulating (then it is plastic): the
        engine's rule (:meth:`.impacts.ImpactEngine.accumulating`), or,
        without a ``rest_speed``, an approach below ``RELATIVE_REST_SPEED``
        times the largest approach speed of any contact so far: a contact
        that closed without striking hard (resting at the start, or lifted
        off a closed contact by a neighbour's impact) has no large
        approach of its own to compare with, and its micro-bounces would
        go on at the round-off level of the gaps."""
        impact = self.engine.impacts[j]
        if self.engine.accumulating(j, approach):
            return True
        return impact.rest_speed is None and approach <= (
            impact.RELATIVE_REST_SPEED * float(np.max(self.engine.largest,
                                                      initial=0.0)))

    def _decide(self, t, q, u, state, resting, event):
        """The modes of the ``resting`` contacts (``solve_contact``)."""
        kind, index = event if event is not None else (None, None)
        if kind == 'lift':
            resting = [j for j in resting if j != index]
        if not resting:
            return {}
        sliding = {}
        for n, j in enumerate(resting):
            tangents = self._tangents(j, state.mu[j])
            if not tangents:
                continue
            slip = state.vt[j][tangents]
            norm = float(np.linalg.norm(slip))
            if norm > self._speed_floor():
                sliding[n] = slip / norm
            elif kind == 'saturate' and j == index:
                lam = self._last_lam(t, q, u)[j, 1:][tangents]
                sliding[n] = -lam / np.linalg.norm(lam)
        rows, layout = self.layout(resting, state)
        _, udot, _, G = self.engine.free_response(t, q, u, state, rows)
        a_free = (state.law.reshape(-1, self.nu)[rows] @ udot
                  + state.bias.reshape(-1)[rows])
        try:
            solution = solve_contact(G, a_free, layout, state.mu[resting],
                                     sliding)
        except LCPError as error:
            raise self._unresolvable(t, q, u, resting, error,
                                     'contact') from None
        modes = {}
        for n, j in enumerate(resting):
            if solution.modes[n] == 'open':
                continue
            direction = solution.directions[n]
            # (a closed contact without friction is 'slide' there)
            modes[j] = (np.asarray(direction, dtype=float) if
                        solution.modes[n] == 'slide' and direction is not None
                        and self._tangents(j, state.mu[j]) else None)
        return modes

    def _last_lam(self, t, q, u):
        """The forces of the current modes at ``(t, q, u)``."""
        return self.forces(t, q, u)[3]

    def _unresolvable(self, t, q, u, contacts, error, what):
        names = ', '.join(f'{self.engine.impacts[j].name!r} (impacts[{j}])'
                          for j in contacts)
        return SimulationError(
            f'the {what} problem of the contacts {names} at t = {t:.10g} '
            f'has no solution ({error}; {format_state(self.problem.nm.q, q)}'
            f'): a rigid contact with Coulomb friction cannot be resolved '
            f'there (e.g. Painleve\'s paradox); the simulation up to this '
            f'time is in the error\'s result.', time=t, q=q, u=u,
            keeps_run=True)

    # -- the records ---------------------------------------------------------

    def _update_intervals(self, t, old):
        """Open an interval for each contact that closed at ``t``, end
        those of the contacts that opened."""
        for j in old:
            if j not in self.modes:
                start, chunks = self._open.pop(j)
                self.intervals.append((j, start, float(t), chunks))
        for j in self.modes:
            if j not in self._open:
                self._open[j] = (float(t), [])

    def finish(self, t):
        """End the intervals still open at ``t``, the run's last time."""
        for j in sorted(self._open):
            start, chunks = self._open.pop(j)
            self.intervals.append((j, start, float(t), chunks))
