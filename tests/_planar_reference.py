r"""An independent reference for planar closed-loop mechanisms: absolute
(body) coordinates and Lagrange multipliers, integrated by SciPy.

Private test helper. It shares no code with ``sympy_loads`` and does not use
SymPy's ``KanesMethod``: every body has the three coordinates
:math:`x, y, \theta` of its mass center and orientation in the ground frame,
the joints are algebraic constraints :math:`\Phi(q) = 0` on them, and the
joint reactions are the Lagrange multipliers. This is the formulation of the
piston-crank of the Autodesk Inventor course module "Dynamic Simulation:
Constraint Kinematics" (15 coordinates, 15 constraint equations, a
Jacobian, Newton-Raphson for positions, the derivatives of the constraints
for velocities and accelerations) and of Nikravesh's planar multibody
dynamics [Nikravesh1988]_. At a state :math:`(q, \dot{q})` the
accelerations and the multipliers solve

.. math::

   \begin{bmatrix} M & \Phi_q^T \\ \Phi_q & 0 \end{bmatrix}
   \begin{bmatrix} \ddot{q} \\ \lambda \end{bmatrix} =
   \begin{bmatrix} Q \\ \gamma \end{bmatrix}, \qquad
   \gamma = -(\Phi_q \dot{q})_q \dot{q}
            - 2 \alpha \dot{\Phi} - \beta^2 \Phi

(the last two terms are Baumgarte's stabilisation [Baumgarte1972]_; they
vanish on the constraint manifold), and the trajectory is integrated by
``scipy.integrate.solve_ivp`` (DOP853, tight tolerances) on
:math:`(q, \dot{q})` together with the work of every non-conservative load.

Sign convention of the multipliers (chosen so they read as reactions): each
joint ``(parent, child)`` writes its constraint as *parent's point minus
child's point* (or the ground's line minus the child's point), so the
generalized constraint force :math:`-\Phi_q^T \lambda` gives the child the
force :math:`\lambda` (ground x, y components) at the joint, and the parent
:math:`-\lambda` at the same place.

* :class:`Pin` ``(parent, child)``: ``reaction[name]`` is the force the parent
  exerts on the child at the pin, ``[Fx, Fy]`` in the ground frame.
* :class:`Guide` (a prismatic joint between the ground and a body):
  ``[N, T, F]`` with ``N`` the normal force the guide exerts on the body
  (along the guide's normal ``n = z x d``), ``T`` the torque it exerts on
  it, and ``F`` the friction force along the guide direction ``d`` (zero
  without friction).

Coulomb friction in a guide (coefficient ``mu``): :math:`F = -s \mu |N|`
with :math:`s` the sign of the sliding speed. With the signs of the speed
and of ``N`` fixed in a *phase*, the friction column is linear in
:math:`\lambda` and goes into the left-hand side (the matrix is no longer
symmetric). Phase changes are located by ``solve_ivp`` events: the speed
crossing zero (then the next phase is the slip direction whose acceleration
is consistent, or sticking when neither is), ``N`` crossing zero, and, while
stuck (the guide's holding force is one more multiplier), the holding force
reaching :math:`\mu |N|`.

Models: :func:`four_bar` (Moore's four-bar of
``sympy_loads/examples/four_bar.py``) and :func:`slider_crank` (the
example's slider-crank, optional piston friction).

References
==========

.. [Nikravesh1988] P. E. Nikravesh, Computer-Aided Analysis of Mechanical
   Systems, Prentice Hall, 1988 (planar body coordinates, the augmented
   equations of motion).
.. [Baumgarte1972] J. Baumgarte, Stabilization of constraints and integrals
   of motion in dynamical systems, Computer Methods in Applied Mechanics
   and Engineering 1 (1972) 1-16.
"""

from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

__all__ = ['Body', 'Pin', 'Guide', 'PlanarModel', 'Trajectory',
           'four_bar', 'slider_crank', 'FOUR_BAR', 'SLIDER_CRANK']

#: Moore's four-bar with the example's spring-damper (SI units).
FOUR_BAR = {'la': 0.8, 'lb': 2.0, 'lc': 1.0, 'ln': 2.0, 'm': 1.0,
            'g': 9.81, 'k': 20.0, 'c': 0.5, 'l0': 2.5}
#: The slider-crank example's numbers, motor T0 (1 - exp(-t/tau)).
SLIDER_CRANK = {'r': 0.1, 'l': 0.3, 'mc': 0.5, 'mr': 1.0, 'ms': 0.8,
                'k': 400.0, 'c': 5.0, 'l0': 0.3, 'cb': 0.02,
                'T0': 2.0, 'tau': 0.2}


def _rot(theta, s):
    """A(theta) s: the body vector s in ground components."""
    c, n = np.cos(theta), np.sin(theta)
    return np.array([c*s[0] - n*s[1], n*s[0] + c*s[1]])


def _perp(v):
    """z x v (a quarter turn), also d(A s)/d(theta) = z x (A s)."""
    return np.array([-v[1], v[0]])


def _cross(a, b):
    return a[0]*b[1] - a[1]*b[0]


@dataclass
class Body:
    """A body: mass, central moment of inertia about z (either may be
    zero: the augmented matrix stays regular while the mechanism's motion
    moves some mass)."""
    name: str
    mass: float
    inertia: float = 0.0


@dataclass
class Pin:
    """A revolute joint: ``parent``'s point ``s_parent`` (body components
    from its mass center; ground coordinates if ``parent`` is None) on
    ``child``'s point ``s_child``."""
    name: str
    parent: object
    child: int
    s_parent: tuple
    s_child: tuple
    rows: int = 2


@dataclass
class Guide:
    """A prismatic joint between the ground and ``child``: its point
    ``s_child`` stays on the line through ``origin`` along unit ``d`` and its
    angle stays ``angle``; Coulomb friction ``mu`` along the line."""
    name: str
    child: int
    s_child: tuple
    origin: tuple = (0.0, 0.0)
    d: tuple = (1.0, 0.0)
    angle: float = 0.0
    mu: float = 0.0
    rows: int = 2


@dataclass
class Trajectory:
    """Samples of a run: ``t``, coordinates ``q``, rates ``qd``,
    accelerations ``qdd`` (rows per sample, ``3 * body + (0, 1, 2)`` for x,
    y, theta), ``reaction[joint name]`` (rows per sample), the work of each
    non-conservative load ``work[name]``, the ``energy`` (kinetic plus
    potential), the guide phases ``phases`` as ``(t_start, s, sigma)``."""
    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    reaction: dict
    work: dict
    energy: np.ndarray
    phases: list = field(default_factory=list)


class PlanarModel:
    """Bodies, joints and applied loads in absolute coordinates.

    ``applied(t, q, qd)`` returns ``(Q, powers)``: the generalized applied
    force (length ``3 n``) and a dict of the power of each non-conservative
    load; ``potential(q)`` the potential energy.
    """

    def __init__(self, bodies, joints, applied, potential, alpha=10.0,
                 beta=10.0):
        self.bodies, self.joints = list(bodies), list(joints)
        self.applied, self.potential = applied, potential
        self.alpha, self.beta = alpha, beta
        self.n = 3*len(self.bodies)
        diag = []
        for b in self.bodies:
            diag += [b.mass, b.mass, b.inertia]
        self.M = np.diag(diag)
        self.m = sum(j.rows for j in self.joints)
        self.work_names = list(applied(0.0, np.ones(self.n),
                                       np.ones(self.n))[1])
        guides = [j for j in self.joints if isinstance(j, Guide) and j.mu]
        self.friction_guide = guides[0] if guides else None

    # -- kinematics of the constraints ------------------------------------
    def _point(self, q, body, s):
        i = 3*body
        return q[i:i + 2] + _rot(q[i + 2], s)

    def constraints(self, q, qd, stick=None):
        """``(Phi, Phi_q, gamma0)``: residuals, Jacobian and
        :math:`-(\\Phi_q \\dot q)_q \\dot q`; ``stick`` (a Guide position)
        adds the holding row of the friction guide."""
        rows = self.m + (stick is not None)
        Phi, J, gam = np.zeros(rows), np.zeros((rows, self.n)), np.zeros(rows)
        k = 0
        for jt in self.joints:
            if isinstance(jt, Pin):
                self._pin_rows(jt, q, qd, Phi[k:k + 2], J[k:k + 2],
                               gam[k:k + 2])
            else:
                self._guide_rows(jt, q, qd, Phi[k:k + 2], J[k:k + 2],
                                 gam[k:k + 2])
            k += jt.rows
        if stick is not None:
            g = self.friction_guide
            d = np.asarray(g.d, float)
            Phi[k], J[k], gam[k] = self._line_row(g, q, qd, d, stick)
        return Phi, J, gam

    def _pin_rows(self, jt, q, qd, Phi, J, gam):
        i = 3*jt.child
        sc = _rot(q[i + 2], jt.s_child)
        Phi[:] = -(q[i:i + 2] + sc)
        J[:, i:i + 2] = -np.eye(2)
        J[:, i + 2] = -_perp(sc)
        gam[:] = -sc*qd[i + 2]**2
        if jt.parent is None:
            Phi += np.asarray(jt.s_parent, float)
            return
        p = 3*jt.parent
        sp = _rot(q[p + 2], jt.s_parent)
        Phi += q[p:p + 2] + sp
        J[:, p:p + 2] = np.eye(2)
        J[:, p + 2] = _perp(sp)
        gam += sp*qd[p + 2]**2

    def _line_row(self, g, q, qd, direction, offset):
        """Row ``direction . (origin - point) + offset``: its multiplier is
        the force along ``direction`` on the child."""
        i = 3*g.child
        sc = _rot(q[i + 2], g.s_child)
        point = q[i:i + 2] + sc
        phi = direction @ (np.asarray(g.origin, float) - point) + offset
        row = np.zeros(self.n)
        row[i:i + 2] = -direction
        row[i + 2] = -direction @ _perp(sc)
        return phi, row, -direction @ sc*qd[i + 2]**2

    def _guide_rows(self, g, q, qd, Phi, J, gam):
        normal = _perp(np.asarray(g.d, float))
        Phi[0], J[0], gam[0] = self._line_row(g, q, qd, normal, 0.0)
        i = 3*g.child
        Phi[1] = g.angle - q[i + 2]
        J[1, i + 2] = -1.0

    # -- the augmented equations ------------------------------------------
    def _friction_column(self, q):
        """Generalized force of a unit friction force along the guide
        direction on the child (at its guide point)."""
        g = self.friction_guide
        i, d = 3*g.child, np.asarray(g.d, float)
        col = np.zeros(self.n)
        col[i:i + 2] = d
        col[i + 2] = _cross(_rot(q[i + 2], g.s_child), d)
        return col

    def _normal_index(self):
        k = 0
        for jt in self.joints:
            if jt is self.friction_guide:
                return k
            k += jt.rows
        raise ValueError('the model has no guide with friction')

    def solve(self, t, q, qd, phase=(0, 1), stick=None):
        """Accelerations and multipliers at a state: ``(qdd, lam)``.

        ``phase = (s, sigma)``: the signs of the sliding speed and of the
        normal force of the friction guide (``s = 0`` and ``stick`` the
        guide position: stuck, ``lam[-1]`` the holding force).
        """
        Q = self.applied(t, q, qd)[0]
        Phi, J, gam = self.constraints(q, qd, stick)
        gam = gam - 2*self.alpha*(J @ qd) - self.beta**2*Phi
        rows = len(Phi)
        A = np.zeros((self.n + rows, self.n + rows))
        A[:self.n, :self.n] = self.M
        A[:self.n, self.n:] = J.T
        A[self.n:, :self.n] = J
        s, sigma = phase
        if self.friction_guide is not None and s != 0:
            # F = -s mu sigma N on the child: moved to the left-hand side
            mu = self.friction_guide.mu
            A[:self.n, self.n + self._normal_index()] += (
                s*mu*sigma*self._friction_column(q))
        x = np.linalg.solve(A, np.concatenate([Q, gam]))
        return x[:self.n], x[self.n:]

    def reactions(self, t, q, qd, phase=(0, 1), stick=None):
        """``(qdd, {joint name: reaction})`` at a state (see the module
        docstring for the components)."""
        qdd, lam = self.solve(t, q, qd, phase, stick)
        out, k = {}, 0
        for jt in self.joints:
            r = lam[k:k + 2]
            if isinstance(jt, Guide):
                friction = 0.0
                if jt is self.friction_guide:
                    s, sigma = phase
                    friction = (-s*jt.mu*sigma*r[0] if s != 0
                                else lam[-1])
                r = np.array([r[0], r[1], friction])
            out[jt.name] = np.array(r)
            k += jt.rows
        return qdd, out

    def energy(self, q, qd):
        return 0.5*qd @ self.M @ qd + self.potential(q)

    def slider_speed(self, q, qd):
        g = self.friction_guide
        i = 3*g.child
        v = qd[i:i + 2] + _perp(_rot(q[i + 2], g.s_child))*qd[i + 2]
        return np.asarray(g.d, float) @ v

    def slider_position(self, q):
        g = self.friction_guide
        return np.asarray(g.d, float) @ (
            self._point(q, g.child, g.s_child) - np.asarray(g.origin, float))

    # -- assembly ----------------------------------------------------------
    def assemble(self, q_guess, index, value, rate, tol=1e-14):
        """Consistent ``(q, qd)``: Newton-Raphson on the constraints with
        coordinate ``index`` held at ``value`` (the course module's
        position solve), then the velocities with its rate ``rate``."""
        q = np.array(q_guess, float)
        q[index] = value
        zero = np.zeros(self.n)
        for _ in range(50):
            Phi, J, _ = self.constraints(q, zero)
            J[:, index] = 0.0
            step = np.linalg.lstsq(J, -Phi, rcond=None)[0]
            q += step
            if np.max(np.abs(step)) < tol:
                break
        else:
            raise RuntimeError('assembly did not converge')
        _, J, _ = self.constraints(q, zero)
        A = np.vstack([J, np.eye(self.n)[index]])
        b = np.zeros(len(A))
        b[-1] = rate
        qd = np.linalg.lstsq(A, b, rcond=None)[0]
        return q, qd

    # -- phases of the friction guide --------------------------------------
    def slider_acceleration(self, q, qd, qdd):
        g = self.friction_guide
        i = 3*g.child
        sc = _rot(q[i + 2], g.s_child)
        a = qdd[i:i + 2] + _perp(sc)*qdd[i + 2] - sc*qd[i + 2]**2
        return np.asarray(g.d, float) @ a

    def next_phase(self, t, q, qd):
        """The phase ``(s, sigma, stick)`` that starts at a state where the
        guide's sliding speed is zero: a slip direction whose acceleration
        has its sign, with a normal force of the assumed sign, or sticking
        if the holding force is within mu |N|; ValueError if neither or
        more than one (Painleve's paradox) is consistent."""
        iN = self._normal_index()
        found = []
        for s in (1, -1):
            for sigma in (1, -1):
                qdd, lam = self.solve(t, q, qd, (s, sigma))
                if (sigma*lam[iN] >= 0
                        and s*self.slider_acceleration(q, qd, qdd) > 0):
                    found.append((s, sigma, None))
        if len(found) > 1 and len({f[0] for f in found}) == 1:
            found = found[:1]       # N = 0 exactly: either sigma holds
        if len(found) == 1:
            return found[0]
        if found:
            raise ValueError(f'both slip directions consistent at t={t}')
        stick = self.slider_position(q)
        _, lam = self.solve(t, q, qd, (0, 1), stick)
        mu = self.friction_guide.mu
        if abs(lam[-1]) <= mu*abs(lam[iN]):
            return (0, 1 if lam[iN] >= 0 else -1, stick)
        raise ValueError(f'no consistent phase of the guide at t={t}')

    def _rhs(self, phase, stick):
        n = self.n
        friction = self.friction_guide is not None
        iN = self._normal_index() if friction else None

        def rhs(t, y):
            q, qd = y[:n], y[n:2*n]
            qdd, lam = self.solve(t, q, qd, phase, stick)
            powers = list(self.applied(t, q, qd)[1].values())
            if friction:
                s, sigma = phase
                force = -s*self.friction_guide.mu*sigma*lam[iN]
                powers.append(force*self.slider_speed(q, qd) if s else 0.0)
            return np.concatenate([qd, qdd, powers])
        return rhs

    def _events(self, phase, stick):
        n, s, sigma = self.n, phase[0], phase[1]
        iN = self._normal_index()
        mu = self.friction_guide.mu

        def speed(t, y):
            return self.slider_speed(y[:n], y[n:2*n])

        def normal(t, y):
            return self.solve(t, y[:n], y[n:2*n], phase, stick)[1][iN]

        def holding(t, y):
            lam = self.solve(t, y[:n], y[n:2*n], phase, stick)[1]
            return mu*abs(lam[iN]) - abs(lam[-1])
        events = [speed, normal] if s else [holding]
        directions = [-s, -sigma] if s else [-1]
        for e, direction in zip(events, directions):
            e.terminal, e.direction = True, direction
        return events

    def simulate(self, t_eval, q0, qd0, rtol=1e-11, atol=1e-12,
                 max_phases=1000):
        """Integrate from ``(q0, qd0)`` at ``t_eval[0]`` and return a
        :class:`Trajectory` sampled at ``t_eval``."""
        t_eval = np.asarray(t_eval, float)
        y = np.concatenate([q0, qd0, np.zeros(len(self.work_names)
                                               + bool(self.friction_guide))])
        t0, t_end = t_eval[0], t_eval[-1]
        phase, stick = (0, 1), None
        if self.friction_guide is not None:
            v = self.slider_speed(q0, qd0)
            phase, stick = self._first_phase(t0, q0, qd0, v)
        times, states, phases = [], [], []
        pending = t_eval
        for _ in range(max_phases):
            phases.append((t0, phase[0], phase[1]))
            events = (self._events(phase, stick) if self.friction_guide
                      else None)
            sol = solve_ivp(self._rhs(phase, stick), (t0, t_end), y,
                            method='DOP853', rtol=rtol, atol=atol,
                            t_eval=pending, events=events)
            if sol.status == -1:
                raise RuntimeError(sol.message)
            times.append(sol.t)
            states += [(yk, phase, stick) for yk in np.reshape(
                sol.y, (len(y), len(sol.t))).T]
            pending = pending[len(sol.t):]
            if sol.status == 0:
                break
            t0, y, which = _last_event(sol)
            if phase[0] and which == 1:     # N crossed zero: flip sigma
                phase = (phase[0], -phase[1])
            elif not phase[0]:              # let go
                phase, stick = self._break_away(t0, y, phase, stick), None
            else:                           # stopped
                s, sigma, stick = self.next_phase(t0, y[:self.n],
                                                  y[self.n:2*self.n])
                phase = (s, sigma)
        else:
            raise RuntimeError('too many phase changes')
        return self._trajectory(np.concatenate(times), states, phases)

    def _break_away(self, t, y, phase, stick):
        """The slip phase after the holding force reached mu |N|: the
        friction is continuous there, so the slider slips against the
        holding force, ``s = -sign(H)`` (Pfeiffer and Glocker's
        stick-slip transition), with the normal force's sign. (Testing
        the slip directions' accelerations instead, as at a stop, fails
        here: they start at zero, and the event's location leaves them,
        and ``|H| - mu |N|``, at round-off of either sign.)"""
        lam = self.solve(t, y[:self.n], y[self.n:2*self.n], phase, stick)[1]
        s = -1 if lam[-1] > 0 else 1
        return (s, 1 if lam[self._normal_index()] >= 0 else -1)

    def _first_phase(self, t, q, qd, v):
        """Phase at the start: sliding keeps the sign of ``v``, with the
        normal force's sign; at rest, :meth:`next_phase`."""
        if v != 0:
            s = 1 if v > 0 else -1
            for sigma in (1, -1):
                lam = self.solve(t, q, qd, (s, sigma))[1]
                if sigma*lam[self._normal_index()] >= 0:
                    return (s, sigma), None
        s, sigma, stick = self.next_phase(t, q, qd)
        return (s, sigma), stick

    def _trajectory(self, t, states, phases):
        n = self.n
        q = np.array([y[:n] for y, _, _ in states])
        qd = np.array([y[n:2*n] for y, _, _ in states])
        qdd, reaction = [], {jt.name: [] for jt in self.joints}
        for (y, phase, stick), tk in zip(states, t):
            a, r = self.reactions(tk, y[:n], y[n:2*n], phase, stick)
            qdd.append(a)
            for name, value in r.items():
                reaction[name].append(value)
        names = self.work_names + (['friction'] if self.friction_guide
                                   else [])
        work = {name: np.array([y[2*n + k] for y, _, _ in states])
                for k, name in enumerate(names)}
        energy = np.array([self.energy(a, b) for a, b in zip(q, qd)])
        return Trajectory(t, q, qd, np.array(qdd),
                          {k: np.array(v) for k, v in reaction.items()},
                          work, energy, phases)


def _last_event(sol):
    """Time, state and index of the terminal event that stopped ``sol``."""
    for k, (te, ye) in enumerate(zip(sol.t_events, sol.y_events)):
        if len(te):
            return te[-1], ye[-1], k
    raise RuntimeError('solve_ivp stopped without an event')


def _spring(point, rate, k, c, l0):
    """Force on ``point`` (ground components, its velocity ``rate``) of a
    spring-damper to the ground origin, its damping power and energy."""
    length = np.hypot(*point)
    e = point/length
    lengthening = e @ rate
    force = -(k*(length - l0) + c*lengthening)*e
    return force, -c*lengthening**2, k*(length - l0)**2/2


def four_bar(**overrides):
    """Moore's four-bar of ``sympy_loads/examples/four_bar.py`` in body
    coordinates; returns ``(model, initial)`` with ``initial(q1_deg=10)``
    the consistent ``(q, qd)`` of the example's start (elbow of the guesses
    q2 = 5 deg, q3 = -150 deg, at rest).

    Bodies: 0 crank (P1-P2, its mass ``m`` at P2), 1 coupler (P2-P3, its
    mass ``m`` at P3), 2 rocker (P3-P4, massless; its "mass center" is P4).
    Pins ``'P1'`` (ground, crank), ``'P2'`` (crank, coupler), ``'P3'``
    (coupler, rocker), ``'P4'`` (ground, rocker). Gravity ``-g`` along y;
    the spring-damper between P1 and P3 acts on the coupler.
    """
    p = dict(FOUR_BAR, **overrides)
    la, lb, lc, ln, m, g = (p[k] for k in ('la', 'lb', 'lc', 'ln', 'm',
                                           'g'))
    bodies = [Body('crank', m), Body('coupler', m), Body('rocker', 0.0)]
    joints = [Pin('P1', None, 0, (0.0, 0.0), (-la, 0.0)),
              Pin('P2', 0, 1, (0.0, 0.0), (-lb, 0.0)),
              Pin('P3', 1, 2, (0.0, 0.0), (-lc, 0.0)),
              Pin('P4', None, 2, (ln, 0.0), (0.0, 0.0))]

    def applied(t, q, qd):
        Q = np.zeros(9)
        Q[1] = Q[4] = -m*g
        force, damper, _ = _spring(q[3:5], qd[3:5], p['k'], p['c'], p['l0'])
        Q[3:5] += force
        return Q, {'damper': damper}

    def potential(q):
        spring = _spring(q[3:5], np.zeros(2), p['k'], p['c'], p['l0'])[2]
        return m*g*(q[1] + q[4]) + spring

    model = PlanarModel(bodies, joints, applied, potential)

    def initial(q1_deg=10.0, u1=0.0):
        a = np.deg2rad(q1_deg)
        b, c = a + np.deg2rad(5.0), a + np.deg2rad(5.0 - 150.0)
        p2 = la*np.array([np.cos(a), np.sin(a)])
        p3 = p2 + lb*np.array([np.cos(b), np.sin(b)])
        p4 = p3 + lc*np.array([np.cos(c), np.sin(c)])
        guess = np.concatenate([p2, [a], p3, [b], p4, [c]])
        return model.assemble(guess, 2, a, u1)
    return model, initial


def four_bar_angles(q):
    """Moore's relative angles ``(q1, q2, q3)`` of body coordinates (rows
    of samples)."""
    q = np.atleast_2d(q)
    return np.column_stack([q[:, 2], q[:, 5] - q[:, 2], q[:, 8] - q[:, 5]])


def slider_crank(mu=0.0, **overrides):
    """The slider-crank of ``sympy_loads/examples/slider_crank.py`` in body
    coordinates, with Coulomb friction ``mu`` in the piston guide; returns
    ``(model, initial)`` with ``initial(q1=0.3, u1=0)`` the consistent
    ``(q, qd)``.

    Bodies: 0 crank (uniform rod O-P), 1 connecting rod (uniform, P-S), 2
    slider (mass ``ms`` at S, no rotational inertia). Joints ``'O'``
    (ground, crank), ``'P'`` (crank, rod), ``'S'`` (rod, slider) and the
    guide ``'guide'`` (ground, slider; along x through O). Loads: motor
    torque ``T0 (1 - exp(-t/tau))`` and bearing damper ``-cb u1`` on the
    crank (from the ground), the spring-damper from O to the slider.
    """
    p = dict(SLIDER_CRANK, **overrides)
    r, l = p['r'], p['l']
    bodies = [Body('crank', p['mc'], p['mc']*r**2/12),
              Body('rod', p['mr'], p['mr']*l**2/12),
              Body('slider', p['ms'], 0.0)]
    joints = [Pin('O', None, 0, (0.0, 0.0), (-r/2, 0.0)),
              Pin('P', 0, 1, (r/2, 0.0), (-l/2, 0.0)),
              Pin('S', 1, 2, (l/2, 0.0), (0.0, 0.0)),
              Guide('guide', 2, (0.0, 0.0), mu=mu)]

    def motor(t):
        return p['T0']*(1.0 - np.exp(-t/p['tau']))

    def applied(t, q, qd):
        Q = np.zeros(9)
        torque = motor(t)
        Q[2] = torque - p['cb']*qd[2]
        force, damper, _ = _spring(q[6:8], qd[6:8], p['k'], p['c'], p['l0'])
        Q[6:8] += force
        return Q, {'motor': torque*qd[2], 'damper': damper,
                   'bearing': -p['cb']*qd[2]**2}

    def potential(q):
        return _spring(q[6:8], np.zeros(2), p['k'], p['c'], p['l0'])[2]

    model = PlanarModel(bodies, joints, applied, potential)
    model.motor = motor

    def initial(q1=0.3, u1=0.0):
        phi = -np.arcsin(r*np.sin(q1)/l) + 0.01     # a guess, assembled
        pin = r*np.array([np.cos(q1), np.sin(q1)])
        guess = np.concatenate([
            pin/2, [q1], pin + l/2*np.array([np.cos(phi), np.sin(phi)]),
            [phi], [0.4, 0.0, 0.0]])
        return model.assemble(guess, 2, q1, u1)
    return model, initial


def slider_crank_coordinates(q):
    """The example's ``(q1, q2, q3)``: crank angle, rod angle, slider x."""
    q = np.atleast_2d(q)
    return np.column_stack([q[:, 2], q[:, 5], q[:, 6]])
