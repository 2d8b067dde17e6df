"""Private: stick-slip of Coulomb friction in joints (exact sign).

With the exact sign, :class:`~sympy_loads.JointFriction` makes the
right-hand side jump where a joint speed ``v`` changes sign. A joint whose
friction limit exceeds the load driving it stops there and stays stopped,
and integrating ``-F sign(v)`` through that point chatters around
``v = 0`` with ever smaller steps. As in the event-driven treatment of
stick-slip by Pfeiffer and Glocker [Pfeiffer1996]_ (and the stick-slip
friction of multibody codes such as Adams and Chrono), the motion is
integrated in phases with
each joint either *slipping* in a fixed direction ``d`` (the friction
``-F d`` along the joint axis, a smooth right-hand side on both sides of
``v = 0``) or *sticking* (``v = 0``, ``v' = 0``, the friction being the
holding force ``h`` that keeps it so). Events end a phase:

* a slipping joint's speed reaches zero (``d v`` falls to 0): the joint
  sticks if the holding force it then needs is within the friction limit,
  ``|h| <= F``, and otherwise goes on slipping the way the load pushes it
  (``d = sign(h)``, e.g. a pendulum reversing at the end of its swing);
* a sticking joint's holding force reaches the limit (``F - |h|`` falls
  to 0): it breaks away in the direction ``sign(h)``.

The generated functions keep the loads ``-F sign(v)`` of the model. The
friction inputs are set so that these give the phase's friction: ``F d
sign(v)`` for a slipping joint and ``h sign(v)`` for a sticking one, ``v``
standing in for a speed that is exactly zero by ``d`` (or 1) times
:data:`TINY`, a speed too small to change anything but the sign. The
friction of a sticking joint enters the equations of motion linearly, so
the holding forces solve a small linear system (one evaluation per
sticking joint and one without them), inside the relaxation of the
friction magnitudes of the course notes "Three-Dimensional Generalized
Forces". Only joints whose friction uses the exact sign on one joint speed
(prismatic, pin, the two speeds of a cylindrical joint) take part;
regularized friction is smooth and needs none of this.

.. [Pfeiffer1996] F. Pfeiffer, C. Glocker, Multibody Dynamics with
   Unilateral Contacts, Wiley, 1996: the motion switches between
   sticking (relative speed held at zero, the friction force the one that
   holds it, while within the limit) and slipping at events.
"""

import math

import numpy as np
from scipy.integrate import solve_ivp

from .._errors import SimulationError
from .integrators import Outcome

__all__ = []

#: A joint speed standing in for an exact zero: only its sign matters.
TINY = 1e-300
# relative (absolute below 1) rounding margin of the friction limit
HOLD_MARGIN = 1e-12
# rates below this are taken as the stand-in speeds' contribution
TINY_EFFECT = 1e-250
# a sticking joint whose friction changes its own acceleration by less than
# this fraction of its largest effect on any acceleration cannot be held
UNHOLDABLE = 1e-12

# transitions of modes at one time (within TRANSITION_WINDOW times the
# span) that are taken as an accumulation of stick-slip events
MAX_TRANSITIONS_AT_ONCE = 50
TRANSITION_WINDOW = 1e-12


def _margin(limit):
    """The largest holding force a friction ``limit`` takes: the limit
    and a rounding margin, so that a joint with no friction and no load
    (``h = limit = 0``) stays at rest instead of meeting its breakaway
    event at once."""
    return limit + HOLD_MARGIN * np.maximum(1.0, limit)


class StickSlip:
    """The stick-slip modes of the exact-sign joint frictions of one
    :class:`~.problem.Problem` and the phased integration."""

    def __init__(self, problem, joints):
        # joints: (friction slot, index of the joint speed in model u,
        # name of the friction symbol)
        self.problem = problem
        self.slots = np.array([j[0] for j in joints], dtype=int)
        self.speeds = np.array([j[1] for j in joints], dtype=int)
        self.names = [j[2] for j in joints]
        self.stuck = np.zeros(len(joints), dtype=bool)
        self.direction = np.ones(len(joints))
        # (start time, stuck, direction) of each phase, for the outputs
        self.schedule = []
        # state indices of the joint speeds (None: a dependent speed)
        nq = problem.nq
        if problem.partitioned:
            ind = list(problem.nm.u_ind_idx)
            self.state_index = [nq + ind.index(k) if k in ind else None
                                for k in self.speeds]
        else:
            self.state_index = [nq + int(k) for k in self.speeds]

    @classmethod
    def attach(cls, problem, friction_items):
        """Attach to ``problem`` the stick-slip handling of the joint
        frictions with the exact sign among ``friction_items`` (None if
        there are none)."""
        symbols = list(problem.nm.friction)
        u = list(problem.nm.u)
        joints = []
        for item in friction_items:
            speeds = getattr(item, '_stick_slip_speeds', None)
            for symbol, speed in (speeds() if speeds else ()):
                if symbol in symbols and speed in u:
                    joints.append((symbols.index(symbol), u.index(speed),
                                   symbol.name))
        if not joints:
            return None
        problem.stick_slip = cls(problem, joints)
        return problem.stick_slip

    # -- the right-hand side in a mode --------------------------------------

    def derivatives(self, t, q, u):
        """``(q', u', f)`` in the current mode; ``f`` holds the friction
        magnitudes, with the holding force ``h`` (signed: the friction on
        the child is ``-h`` along the joint axis) for a sticking joint."""
        qdot, udot, f, h, _ = self.evaluate(t, q, u, self.stuck,
                                            self.direction)
        out = f.copy()
        out[self.slots[self.stuck]] = h[self.stuck]
        return qdot, udot, out

    def evaluate(self, t, q, u, stuck, direction):
        """``(q', u', F, h, limit)``: derivatives, friction magnitudes
        (limits for sticking joints), holding forces ``h`` (nan for the
        slipping joints) and limits at ``(t, q, u)`` with the joints
        ``stuck`` sticking and the others slipping in ``direction``."""
        p = self.problem
        spec = p.specified(t, q, u)
        u_eval = np.array(u, dtype=float)
        k = self.speeds
        zero = u_eval[k] == 0.0
        u_eval[k[zero]] = np.where(stuck[zero], 1.0,
                                   direction[zero]) * TINY
        sgn = np.sign(u_eval[k])
        held = np.nonzero(stuck)[0]
        slip = ~stuck

        def solve(f):
            """``(q', u', h)`` with the friction magnitudes ``f``."""
            slots = f.copy()
            slots[self.slots[slip]] = (f[self.slots[slip]] * direction[slip]
                                       * sgn[slip])
            h = np.full(len(k), np.nan)
            if not len(held):
                return p.solve_eom(t, q, u_eval, spec + list(slots)) + (
                    h, (u_eval, slots))
            slots[self.slots[held]] = 0.0
            qdot, udot0 = p.solve_eom(t, q, u_eval, spec + list(slots))
            columns = []
            for i in held:
                trial = slots.copy()
                trial[self.slots[i]] = sgn[i]
                columns.append(p.solve_eom(t, q, u_eval,
                                           spec + list(trial))[1] - udot0)
            columns = np.array(columns).T          # (nu, len(held))
            # a joint whose friction does not act on its own speed (a
            # dependent speed at a singular configuration: the piston of a
            # slider-crank at a dead centre) cannot be held: it moves on
            # the way it accelerates (an infinite holding force of that
            # sign, see settle()); the others are held
            free = np.abs(columns[k[held], np.arange(len(held))]) <= (
                UNHOLDABLE * np.max(np.abs(columns), axis=0, initial=0.0))
            h[held[free]] = np.copysign(np.inf, udot0[k[held[free]]])
            holds = held[~free]
            columns = columns[:, ~free]
            B = columns[k[holds]]
            try:
                # (+ 0.0: no -0.0 holding forces in the outputs)
                h[holds] = np.linalg.solve(B, -udot0[k[holds]]) + 0.0
            except np.linalg.LinAlgError:
                raise SimulationError(
                    f'the friction of the sticking joints '
                    f'{[self.names[i] for i in holds]} cannot hold them '
                    f'at t = {float(t):.10g}: it does not act on their '
                    f'speeds independently.'.replace("'", ''),
                    time=t, q=q, u=u) from None
            udot = udot0 + columns @ h[holds]
            udot[k[holds]] = 0.0
            # the slots that give these accelerations (the equations are
            # linear in them): the holding forces times the sign
            slots[self.slots[holds]] = sgn[holds] * h[holds]
            return qdot, udot, h, (u_eval, slots)

        qdot, udot, f, h = p.relax(t, q, u, solve)
        if zero.any():
            # what the stand-in speeds added (of the order of TINY) is not
            # motion: a joint at rest stays exactly at rest
            qdot[np.abs(qdot) < TINY_EFFECT] = 0.0
            udot[np.abs(udot) < TINY_EFFECT] = 0.0
        return qdot, udot, f, h, f[self.slots]

    # -- modes ----------------------------------------------------------------

    def settle(self, t, q, u, at_rest):
        """Choose the modes at ``t`` of the joints ``at_rest`` (their speed
        is zero) and of the sticking ones: they stick where the holding
        forces stay within the limits; the joint exceeding its limit most
        breaks away in the direction of its load, and the rest are checked
        again."""
        stuck = self.stuck | at_rest
        direction = self.direction.copy()
        while stuck.any():
            _, _, _, h, limit = self.evaluate(t, q, u, stuck, direction)
            excess = np.where(stuck, np.abs(h) - _margin(limit), -np.inf)
            worst = int(np.argmax(excess))
            if excess[worst] <= 0.0:
                break
            stuck[worst] = False
            direction[worst] = np.sign(h[worst])
        self.stuck, self.direction = stuck, direction

    def _partition_event(self):
        """A terminal event where the smallest measure of the current
        dependent blocks falls through the problem's threshold."""
        p = self.problem

        def event(t, y):
            return min(p.block_ratios(t, y)) - p.threshold
        event.terminal, event.direction = True, -1
        return event

    def _events(self):
        p = self.problem
        events = []
        for j in range(len(self.speeds)):
            if self.stuck[j]:
                def event(t, y, j=j):
                    q, u = p.full_state(t, y)
                    _, _, _, h, limit = self.evaluate(t, q, u, self.stuck,
                                                      self.direction)
                    return _margin(limit[j]) - abs(h[j])
            else:
                def event(t, y, j=j):
                    index = self.state_index[j]
                    v = (y[index] if index is not None
                         else p.full_state(t, y)[1][self.speeds[j]])
                    return self.direction[j] * v
            event.terminal, event.direction = True, -1
            events.append(event)
        return events

    def mode_at(self, t):
        """Take the mode of the phase that holds ``t`` (the later one at a
        transition)."""
        for start, stuck, direction in reversed(self.schedule):
            if t >= start:
                self.stuck, self.direction = stuck.copy(), direction.copy()
                return
        if self.schedule:
            _, stuck, direction = self.schedule[0]
            self.stuck, self.direction = stuck.copy(), direction.copy()

    # -- the phased integration ---------------------------------------------

    def integrate(self, fun, t_span, y0, *, method, t_eval, rtol, atol,
                  max_step, jac=None):
        """Integrate from ``y0`` over ``t_span`` phase by phase with
        ``solve_ivp`` (``'odeint'`` is LSODA, which it runs too); a result
        with ``solve_ivp``'s fields."""
        p = self.problem
        t0, t1 = float(t_span[0]), float(t_span[1])
        method = 'LSODA' if method == 'odeint' else method
        options = dict(method=method, rtol=rtol, atol=atol,
                       max_step=max_step)
        if jac is not None and method in ('Radau', 'BDF'):
            options['jac'] = jac
        t_eval = None if t_eval is None else np.asarray(t_eval, dtype=float)
        y = np.array(y0, dtype=float)
        q, u = p.full_state(t0, y)
        self.direction = np.where(u[self.speeds] < 0, -1.0, 1.0)
        self.settle(t0, q, u, u[self.speeds] == 0.0)
        times, states = [], []
        counts = dict(nfev=0, njev=0, nlu=0)
        t, done_eval = t0, 0
        recent = []
        while True:
            self.schedule.append((t, self.stuck.copy(),
                                  self.direction.copy()))
            phase_eval = None
            if t_eval is not None:
                phase_eval = t_eval[done_eval:]
                phase_eval = phase_eval[phase_eval >= t]
            events = self._events()
            if p.threshold:
                # the engine's partition is chosen again where a dependent
                # block degrades (see .partition), as between phases
                events.append(self._partition_event())
            solution = solve_ivp(fun, (t, t1), y, t_eval=phase_eval,
                                 events=events, **options)
            for name in counts:
                counts[name] += int(getattr(solution, name, 0))
            phase_t = solution.t
            phase_y = (solution.y if len(phase_t)
                       else np.zeros((len(y), 0)))    # (0,) from SciPy
            if t_eval is not None:
                done_eval += len(phase_t)
            times.append(phase_t)
            states.append(phase_y)
            status, message = solution.status, solution.message
            if status != 1:
                break
            fired = [i for i, te in enumerate(solution.t_events) if len(te)]
            j = fired[0]
            t_new = float(solution.t_events[j][0])
            y = np.array(solution.y_events[j][0], dtype=float)
            if j == len(self.speeds):         # the partition event
                changed = p.reselect(t_new, y)
                if changed is not None:
                    y = np.asarray(changed, dtype=float)
                    if t_eval is None and len(times[-1]):
                        # the event's sample, in the old layout, is taken
                        # again by the next phase in the new one
                        times[-1] = times[-1][:-1]
                        states[-1] = states[-1][:, :-1]
                t = t_new
                if t < t1:
                    continue
                if t_eval is None:
                    times.append(np.array([t]))
                    states.append(y[:, None])
                status, message = 0, ('The solver successfully reached the '
                                      'end of the integration interval.')
                break
            at_rest = np.zeros(len(self.speeds), dtype=bool)
            if not self.stuck[j]:
                index = self.state_index[j]
                if index is not None:
                    y[index] = 0.0
                at_rest[j] = True
            else:
                at_rest[j] = False
            q, u = p.full_state(t_new, y)
            if self.stuck[j]:
                _, _, _, h, _ = self.evaluate(t_new, q, u, self.stuck,
                                              self.direction)
                self.stuck[j] = False
                self.direction[j] = np.sign(h[j]) or self.direction[j]
            self.settle(t_new, q, u, at_rest)
            if t_eval is None and len(times[-1]):
                # the phase's last sample is the event state before the
                # speed is set to exactly zero; the next phase's first
                # sample is that state, and is kept
                times[-1], states[-1] = times[-1][:-1], states[-1][:, :-1]
            window = TRANSITION_WINDOW * max(abs(t1 - t0), 1.0)
            recent = [s for s in recent if t_new - s <= window] + [t_new]
            if len(recent) > MAX_TRANSITIONS_AT_ONCE:
                raise SimulationError(
                    f'stick-slip transitions of the joint friction '
                    f'{self.names[j]} accumulate at t = {t_new:.10g} '
                    f'({len(recent)} within {window:.3g} s): the joint '
                    f'neither sticks nor slips; a regularized friction law '
                    f'(JointFriction(..., regularization=...)) follows such '
                    f'a motion.', time=t_new)
            t = t_new
            if t >= t1:
                # an event at the end: its state (with the speed set to
                # zero) is the last sample
                if t_eval is None:
                    times.append(np.array([t]))
                    states.append(y[:, None])
                status = 0
                message = ('The solver successfully reached the end of the '
                           'integration interval.')
                break
        t_all = np.concatenate(times) if times else np.zeros(0)
        y_all = (np.concatenate(states, axis=1) if states
                 else np.zeros((len(y0), 0)))
        return Outcome(
            t=t_all, y=y_all, success=status >= 0, status=int(status),
            message=message, **counts)


def is_forward(t_span):
    """Stick-slip phases are integrated forward in time only."""
    return float(t_span[1]) > float(t_span[0]) and all(
        math.isfinite(float(x)) for x in t_span)


def watch_unswitched(problem, friction_items, stick_slip):
    """Whether exact-sign friction among ``friction_items`` is left to
    chatter where its joint sticks (a spherical joint, a run with impacts
    or backward in time, friction other than :class:`JointFriction`); if
    so, ``problem.stall_hint`` says what to do when the integration stalls
    there (:meth:`~sympy_loads._simulation.problem.Problem.watched`)."""
    switched = set()
    if stick_slip is not None:
        switched = {problem.nm.friction[slot] for slot in stick_slip.slots}
    names = []
    for item in friction_items:
        regularization = getattr(item, 'regularization', None)
        exact = (regularization is not None
                 and getattr(regularization, 'is_zero', False) is True)
        if exact:
            names += [s.name for s in item.symbols if s not in switched]
    if not names:
        return False
    problem.stall_hint = (
        f'the joint friction {", ".join(names)} with the exact sign chatters '
        f'where its joint comes to rest and sticks; simulate() switches to '
        f'sticking only for prismatic, pin and cylindrical joints, without '
        f'impacts and forward in time. Give the JointFriction a '
        f'regularization (the joint then creeps at speeds of that order), '
        f'or end the simulation before this time.')
    return True
