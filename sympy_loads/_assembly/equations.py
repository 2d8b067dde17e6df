r"""Private: Kane's equations of a model assembled from the motion of its
bodies, without forming them symbolically.

With the partial velocities ``V_B`` and partial angular velocities
``W_B`` of each body (3 x n, from :mod:`.kinematics`) and its
velocity-product accelerations ``a_B``, ``alpha_B`` (``u' = 0``), Kane's
equations with every speed independent are ``M u' = F`` with
[Kane1985]_::

    M = sum_B  m_B V_B^T V_B + W_B^T I_B W_B
    F = sum_loads V_P^T f + W_A^T T
        - sum_B  m_B V_B^T a_B + W_B^T (I_B alpha_B + w_B x I_B w_B)

(``I_B`` the central inertia in the body frame, the angular quantities
in body components for it). Summed body by body, ``M`` would hold about
``n^3/6`` products for a chain of ``n`` links; instead the bodies that
move on the same twists (:class:`~.kinematics.Twist`) enter through their
composite inertia, and the inertia forces and loads on one twist through
their resultant and moment (:func:`mass_matrix`,
:func:`generalized_forces`): ``O(n^2)`` operations for ``M`` and ``O(n)``
for ``F`` on a chain, as in the composite-rigid-body and recursive
Newton-Euler algorithms [Featherstone2008]_.

References
==========

.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, McGraw-Hill, 1985, sec. 4.11 (generalized inertia
   forces) and 4.1 (generalized active forces).
   https://hdl.handle.net/1813/638
.. [Featherstone2008] R. Featherstone, Rigid Body Dynamics Algorithms,
   Springer, 2008, sec. 5.3 (the recursive Newton-Euler algorithm) and
   6.2 (the composite-rigid-body algorithm).
"""

import symengine as se
import sympy as sm
from sympy.physics.mechanics import Force, RigidBody, dynamicsymbols

from .._numeric.codegen import to_symengine
from .._utils import _as_loads
from .kinematics import (RECORD, TreeKinematics, add, cross, dot,
                         mat_vec, plus)
from .tree import frame_parents, point_parents, relative_position

__all__ = []

_TIME = dynamicsymbols._t
_ZERO = se.Integer(0)


def _transpose_times(R, vector):
    return [se.Add(*[R[k][i] * vector[k] for k in range(3)])
            for i in range(3)]


class Assembly:
    """The unconstrained Kane's equations of the bodies ``bodies`` under
    ``loads`` in the inertial ``frame``, for the coordinates ``q`` and
    speeds ``u`` with ``q' = kindiff[q']``."""

    def __init__(self, frame, q, u, kindiff, bodies, loads):
        self.frame = frame
        self.q, self.u = list(q), list(u)
        self.kindiff = kindiff
        self.bodies = list(bodies)
        self.loads = _as_loads(list(loads or []))

    def local_parts(self):
        """The SymPy matrices that the assembly reads (masses, inertias,
        the loads' vectors, the relative orientations, angular velocities
        and positions of the tree), for collecting the model's symbols
        before the plain names are chosen."""
        parts = []
        frames = frame_parents(self.frame)
        for child, parent in frames.items():
            if parent is not None:
                parts.append(sm.Matrix(parent.dcm(child)))
                parts += [m for m, _ in child.ang_vel_in(parent).args]
        points = self._points()
        for point, parent in point_parents(points, self.frame).items():
            vector = (point.vel(self.frame) if parent is None
                      else relative_position(point, parent))
            parts += [m for m, _ in vector.args]
        return parts

    def _points(self):
        points = [body.masscenter for body in self.bodies]
        points += [load.point for load in self.loads
                   if isinstance(load, Force)]
        return points

    def equations(self, plain, zero):
        """``(M, F, sums)``: rows of ``M`` (lists) and ``F`` (list),
        SymEngine expressions of the plain symbols ``plain``, with the
        functions of time in ``zero`` set to zero, and the running sums
        made on the way (``(a + b, a, b)``, see
        :func:`~sympy_loads._assembly.kinematics.plus`), for the code
        generator."""
        RECORD.sums = []
        try:
            M, F = self._equations(plain, zero)
            return M, F, RECORD.sums
        finally:
            RECORD.sums = None

    def _equations(self, plain, zero):
        kinematics = self._kinematics(plain, zero)
        n = len(self.u)
        members = [self._body_terms(kinematics, body, plain)
                   for body in self.bodies]
        # what acts on the bodies: the inertia forces and torques of each
        # body (-m a, -(I alpha + w x I w)) at its mass centre, and the
        # loads; a torque (no point) enters directly
        wrenches = [_Wrench(b.x, [-e for e in b.force],
                            [-e for e in b.torque], b.twists, b.V, b.W)
                    for b in members]
        forcing = [[] for _ in range(n)]
        for load in self.loads:
            if isinstance(load, Force):
                point = kinematics.point_motion(load.point)
                vector = kinematics.vector(load.force, f'the force on '
                                           f'{load.point}')
                wrenches.append(_Wrench(point.x, vector, None, point.T,
                                        point.V, {}))
                continue
            V = kinematics.frame_motion(load.frame).V
            vector = kinematics.vector(load.torque, f'the torque on '
                                       f'{load.frame}')
            for r, partial in V.items():
                forcing[r].append(dot(partial, vector))
        generalized_forces(wrenches, forcing)
        M = mass_matrix(members, n)
        F = [se.Add(*entry) for entry in forcing]
        return M, F

    def _kinematics(self, plain, zero):
        qs = to_symengine([plain[s] for s in self.q])
        us = to_symengine([plain[s] for s in self.u])
        ts = to_symengine([plain[_TIME]])[0]
        qd = to_symengine([self.kindiff[s.diff(_TIME)].xreplace(zero)
                           .xreplace(plain) for s in self.q])
        with_rates = [s for s in plain if isinstance(s, sm.Derivative)]
        rates = dict(zip(to_symengine([plain[s.expr] for s in with_rates]),
                         to_symengine([plain[s] for s in with_rates])))
        specified = set(to_symengine(
            [plain[s] for s in plain if s not in set(self.q) | set(self.u)
             and s != _TIME and not isinstance(s, sm.Derivative)]))
        q_rate = dict(zip(qs, qd))
        kindiff = self.kindiff

        def local(matrix):
            matrix = sm.Matrix(matrix).xreplace(kindiff).xreplace(
                zero).xreplace(plain)
            if matrix.atoms(sm.Derivative):
                raise ValueError(
                    f'model: the kinematics contain the time derivatives '
                    f'{sorted(map(str, matrix.atoms(sm.Derivative)))}, '
                    f'neither of a coordinate nor of a specified input.')
            return to_symengine(list(matrix))

        def rate(expr):
            found = expr.free_symbols
            value = expr.diff(ts) if ts in found else _ZERO
            for s in found:
                if s in q_rate:
                    value += expr.diff(s) * q_rate[s]
                elif s in specified:
                    if s not in rates:
                        raise ValueError(
                            f'model: the motion depends on the specified '
                            f'input {s} and needs its rate.')
                    value += expr.diff(s) * rates[s]
            return value

        return TreeKinematics(self.frame, self._points(), local, rate, us)

    def _body_terms(self, kinematics, body, plain):
        """The :class:`_Member` of ``body``: what the mass matrix needs,
        and its inertia force ``m a`` and torque ``I alpha + w x I w``
        (``N`` components) at ``u' = 0``."""
        m_sym = sm.sympify(body.mass)
        if m_sym.free_symbols & set(plain) or m_sym.has(
                *[s for s in plain if isinstance(s, sm.Function)]):
            raise ValueError(f'model: the mass of {body} varies; the '
                             f'assembled equations need a constant mass '
                             f'(call form_eoms() for this model).')
        m = to_symengine([m_sym])[0]
        point = kinematics.point_motion(body.masscenter)
        force = [m * e for e in point.a]
        if not isinstance(body, RigidBody):
            return _Member(kinematics, m, point, None, None, force,
                           [_ZERO] * 3)
        rotation = kinematics.rotation(body.frame)
        motion = kinematics.frame_motion(body.frame)
        inertia = kinematics._local(
            body.central_inertia.to_matrix(body.frame))
        I = [inertia[3 * i:3 * i + 3] for i in range(3)]
        w = _transpose_times(rotation, motion.v)
        alpha = _transpose_times(rotation, motion.a)
        Iw = mat_vec(I, w)
        torque = mat_vec(rotation, [x + y for x, y in zip(
            mat_vec(I, alpha), cross(w, Iw))])
        # the central inertia in N components, R I R^T
        RI = [mat_vec(I, row) for row in rotation]   # rows of R I (I sym.)
        inertia_n = [[dot(RI[i], rotation[k]) for k in range(3)]
                     for i in range(3)]
        return _Member(kinematics, m, point, motion, inertia_n, force,
                       torque)


class _Member:
    """What the mass matrix needs of one body: its mass ``m``, position
    ``x``, partial velocities ``V`` and partial angular velocities ``W``
    (``N`` components), central inertia ``inertia`` in ``N`` components
    (None for a particle), per speed the :class:`Twist` its motion lies on
    (None where it lies on none, see :meth:`twist`), and its inertia force
    ``force`` and torque ``torque``."""

    __slots__ = ('m', 'x', 'V', 'W', 'inertia', 'twists', 'force', 'torque')

    def __init__(self, kinematics, m, point, frame, inertia, force, torque):
        self.m, self.x, self.V = m, point.x, point.V
        self.force, self.torque = force, torque
        self.W = frame.V if frame is not None else {}
        self.inertia = inertia
        self.twists = {j: self.twist(kinematics, point, j) for j in self.V}
        for j in self.W:
            self.twists.setdefault(j, None)

    def twist(self, kinematics, point, j):
        """The twist of the body for speed ``j``: its mass centre's when
        the body turns with that twist's ``omega``; a translation when the
        body does not turn with ``u_j``; else None."""
        known = point.T.get(j)
        omega = self.W.get(j) if self.inertia is not None else None
        if known is not None and (known.omega is omega or (
                self.inertia is None and omega is None)):
            return known
        if omega is None and (known is None or self.inertia is not None):
            return kinematics.translation(j, self.V[j])
        return None

    def entry(self, r, s):
        """``m V_r . V_s + W_r . I W_s``, the body's own term."""
        zero = [_ZERO] * 3
        value = self.m * dot(self.V.get(r, zero), self.V.get(s, zero))
        if self.inertia is not None and r in self.W and s in self.W:
            value += dot(self.W[r], mat_vec(self.inertia, self.W[s]))
        return value


def _composite(members):
    """``(mass, h, J)`` of the bodies ``members``: total mass, first
    moment ``sum m x`` and inertia about the root's origin ``sum I + m
    (|x|^2 1 - x x^T)``, in ``N`` components [Featherstone2008]_."""
    mass = se.Add(*[b.m for b in members])
    h = [se.Add(*[b.m * b.x[i] for b in members]) for i in range(3)]
    J = [[[] for _ in range(3)] for _ in range(3)]
    for b in members:
        mx = [b.m * e for e in b.x]
        square = dot(b.x, mx)
        for i in range(3):
            for k in range(3):
                term = -mx[i] * b.x[k] + (square if i == k else _ZERO)
                if b.inertia is not None:
                    term += b.inertia[i][k]
                J[i][k].append(term)
    return mass, h, [[se.Add(*e) for e in row] for row in J]


def _momentum(composite, twist):
    """``(p, L)``, the momentum and the moment of momentum about the
    root's origin of the bodies of ``composite`` ``(mass, h, J)`` moving
    on ``twist`` with unit speed: ``p = m c + omega x h``, ``L = h x c +
    J omega`` [Featherstone2008]_."""
    mass, h, J = composite
    p = [mass * e for e in twist.c]
    L = cross(h, twist.c)
    if twist.omega is not None:
        p = add(p, cross(twist.omega, h))
        L = add(L, mat_vec(J, twist.omega))
    return p, L


def _on_twists(momentum, tr):
    """``sum_B`` of the mass-matrix terms of the bodies on the twist
    ``tr`` (speed r) whose momentum for speed s is ``momentum``:
    ``c_r . p + omega_r . L``."""
    p, L = momentum
    value = dot(tr.c, p)
    if tr.omega is not None:
        value += dot(tr.omega, L)
    return value


class _Wrench:
    """A force ``f`` applied at the point at ``x`` and a couple ``tau``
    (None for none), with the point's partial velocities ``V``, the
    partial angular velocities ``W`` the couple works through, and, per
    speed, the :class:`Twist` they lie on (None where none)."""

    __slots__ = ('x', 'f', 'tau', 'twists', 'V', 'W')

    def __init__(self, x, f, tau, twists, V, W):
        self.x, self.f, self.tau = x, f, tau
        self.twists, self.V, self.W = twists, V, W

    def moment(self):
        """``x x f + tau``, its moment about the root's origin."""
        moment = cross(self.x, self.f)
        return moment if self.tau is None else add(moment, self.tau)

    def direct(self, r):
        """``V_r . f + W_r . tau``."""
        value = dot(self.V[r], self.f) if r in self.V else _ZERO
        if self.tau is not None and r in self.W:
            value += dot(self.W[r], self.tau)
        return value


def _suffix_sum(key, memo, own, combine):
    """The sum over the items ``key`` (sorted indices) of ``own(i)``, made
    as ``combine(own(key[0]), sum of key[1:])`` and kept in ``memo`` for
    every suffix on the way: nested sets (the bodies after each joint of a
    chain) then cost one ``combine`` each."""
    pending, found = [], key
    while found and found not in memo:
        pending.append(found)
        found = found[1:]
    for part in reversed(pending):
        rest = memo.get(part[1:])
        memo[part] = (own(part[0]) if rest is None
                      else combine(own(part[0]), rest))
    return memo[key]


def generalized_forces(wrenches, forcing):
    r"""Add to ``forcing[r]`` the generalized forces of the
    :class:`_Wrench` es, ``sum V_r . f + W_r . tau`` [Kane1985]_.

    The wrenches whose points move on the same twist ``(omega, c)`` for
    speed ``r`` enter through their sums: ``c . sum f + omega . sum (x x f
    + tau)``, each sum made once per set of wrenches (each set from the
    next smaller one, as the composite inertias of :func:`mass_matrix`):
    for a chain every row costs a few products, and ``F`` costs ``O(n)``
    operations after the kinematics, as the recursive Newton-Euler
    algorithm's [Featherstone2008]_. The other wrenches add their own
    terms."""
    sums = {}
    index = {id(w): i for i, w in enumerate(wrenches)}
    groups = {}
    for wrench in wrenches:
        speeds = set(wrench.V) | (set(wrench.W) if wrench.tau is not None
                                  else set())
        for r in speeds:
            twist = wrench.twists.get(r)
            if twist is None:
                forcing[r].append(wrench.direct(r))
            else:
                groups.setdefault((r, id(twist)), (twist, []))[1].append(
                    wrench)

    def total(members):
        def own(i):
            return wrenches[i].f, wrenches[i].moment()

        def combine(a, b):
            return add(a[0], b[0]), add(a[1], b[1])
        return _suffix_sum(
            tuple(sorted(index[id(w)] for w in members)), sums, own, combine)

    for (r, _), (twist, members) in groups.items():
        f, moment = total(members)
        value = dot(twist.c, f)
        if twist.omega is not None:
            value += dot(twist.omega, moment)
        forcing[r].append(value)


def mass_matrix(members, n):
    r"""The mass matrix ``M = sum_B m V^T V + W^T I W`` (rows of SymEngine
    expressions) of the bodies ``members`` (:class:`_Member`).

    The bodies that lie on the same pair of twists for speeds ``r`` and
    ``s`` enter ``M_rs`` through their composite inertia, the sum made
    once for each set of bodies (each set from the next smaller one
    reached by leaving out its first body): for a chain, whose speed
    ``r`` moves the links from ``r`` on rigidly, every entry is then a few
    products of the twists and one composite, and ``M`` costs ``O(n^2)``
    operations, as in the composite-rigid-body algorithm
    [Featherstone2008]_, instead of the ``O(n^3)`` of summing each body's
    term. The other bodies add their own terms."""
    index = {id(b): i for i, b in enumerate(members)}
    groups, direct = {}, [[[] for _ in range(n)] for _ in range(n)]
    for body in members:
        speeds = sorted(body.twists)
        for a, r in enumerate(speeds):
            for s in speeds[a:]:
                tr, ts = body.twists[r], body.twists[s]
                if tr is None or ts is None:
                    direct[r][s].append(body.entry(r, s))
                    continue
                key = (r, s, id(tr), id(ts))
                groups.setdefault(key, (tr, ts, []))[2].append(body)
    composites = {}

    def composite(bodies):
        def combine(a, b):
            return (plus(a[0], b[0]), add(a[1], b[1]),
                    [add(x, y) for x, y in zip(a[2], b[2])])
        return _suffix_sum(
            tuple(sorted(index[id(b)] for b in bodies)), composites,
            lambda i: _composite([members[i]]), combine)

    momenta = {}
    for (r, s, _, _), (tr, ts, bodies) in groups.items():
        found = composite(bodies)
        key = (id(found), id(ts))
        if key not in momenta:
            momenta[key] = _momentum(found, ts)
        direct[r][s].append(_on_twists(momenta[key], tr))
    M = [[None] * n for _ in range(n)]
    for r in range(n):
        for s in range(r, n):
            M[r][s] = M[s][r] = se.Add(*direct[r][s])
    return M
