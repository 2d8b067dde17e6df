r"""Private: the motion of every frame and point of a model, composed link
by link as SymEngine expressions of the state.

For each frame ``F`` (parent ``P`` in the tree of :mod:`.tree`) and each
point ``Q`` (parent ``O``), in components along the inertial frame ``N``
and with ``u' = 0`` in the accelerations (the velocity-product terms;
the ``u'`` terms are the partial velocities times ``u'``)
[Kane1985]_::

    R_F = R_P C_PF                         C_PF = P.dcm(F), local
    w_F = w_P + sum_X R_X m_X              m_X: measures of F.ang_vel_in(P)
    W_F = W_P + sum_X R_X dm_X/du          (partial angular velocities)
    a_F = a_P + sum_X R_X m_X' + w_X x R_X m_X

    r = sum_X R_X m_X                      m_X: measures of Q.pos_from(O)
    v_Q = v_O + sum_X R_X m_X' + w_X x r_X
    V_Q = V_O + sum_X R_X dm_X'/du + W_X x r_X
    a_Q = a_O + sum_X R_X m_X'' + 2 w_X x R_X m_X' + a_X x r_X
                + w_X x (w_X x r_X)

where ``'`` is the time derivative at ``u' = 0`` of a measure (through
``q' = f(q, u, t)`` and the rates of specified inputs). Only the small
relative measures are differentiated, by SymEngine; the inertial
quantities are products and sums of earlier ones, which SymEngine keeps
shared (a directed acyclic graph whose size grows with the number of
links, not exponentially as a link's velocity written out in ``N``
does), and code generation with common subexpressions evaluates each
once. A point whose velocity in ``N`` is given (``set_vel``) takes that
velocity instead of its parent's plus the rate of its position.

References
==========

.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, McGraw-Hill, 1985, sec. 2.6 (transport theorem), 2.8
   (two points fixed on a rigid body), 2.9 (one point moving on a body)
   and 2.16 (angular acceleration). https://hdl.handle.net/1813/638
"""

import threading

import symengine as se

from .tree import (frame_parents, point_parents, relative_position,
                   velocity_is_given)

__all__ = []

_ZERO = se.Integer(0)


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return se.Add(*[x * y for x, y in zip(a, b)])


def mat_vec(R, m):
    return [se.Add(*[R[i][k] * m[k] for k in range(3)]) for i in range(3)]


class SumRecord(threading.local):
    """The sums made while recording (see :func:`plus`): SymEngine
    flattens ``a + b`` into one sum of all the terms, so a running sum
    (a point's position along a chain, a composite inertia) loses its
    steps; the code generator (:mod:`sympy_loads._numeric.dag_llvm`)
    adds ``a`` and ``b`` instead, one addition per step."""

    def __init__(self):
        self.sums = None


RECORD = SumRecord()


def plus(a, b):
    """``a + b``, recorded as ``(a + b, a, b)`` while recording, where
    either is a sum."""
    value = a + b
    sums = RECORD.sums
    if sums is not None and isinstance(value, se.Add) and (
            isinstance(a, se.Add) or isinstance(b, se.Add)) and not (
            a == 0 or b == 0 or value == a or value == b):
        sums.append((value, a, b))
    return value


def add(a, b):
    return [plus(x, y) for x, y in zip(a, b)]


def scale(s, a):
    return [s * x for x in a]


def add_partials(target, extra):
    """``target[j] += extra[j]`` for the partial-velocity dicts
    ``{speed index: 3-vector}``."""
    for j, vector in extra.items():
        target[j] = add(target[j], vector) if j in target else vector


class Motion:
    """Rotation ``R`` (frames), velocity ``v``, partials ``V`` (dict of
    speed index -> 3-vector) and velocity-product acceleration ``a`` of a
    frame (angular) or point (linear), in ``N`` components. A point's
    also has its position ``x`` from the root of its tree (see
    :func:`~sympy_loads._assembly.tree.point_parents`) and the
    :class:`Twist` ``T[j]`` its partial velocity ``V[j]`` lies on, where
    known."""

    __slots__ = ('R', 'v', 'V', 'a', 'x', 'T')

    def __init__(self, R, v, V, a, x=None, T=None):
        self.R, self.v, self.V, self.a = R, v, V, a
        self.x, self.T = x, T if T is not None else {}


class Twist:
    r"""A rigid velocity field ``v(x) = c + omega x x`` (``omega`` None
    for a translation): the partial velocities, for one speed, of every
    point that moves rigidly with a joint's child as that speed varies
    [Featherstone2008]_. Points on one twist have positions ``x`` from
    the same root. The mass matrix sums the bodies on a pair of twists
    through their composite inertia
    (:mod:`sympy_loads._assembly.equations`)."""

    __slots__ = ('omega', 'c')

    def __init__(self, omega, c):
        self.omega, self.c = omega, c


class TreeKinematics:
    """The motions of the frames and points of a model with inertial
    frame ``frame``, as SymEngine expressions of the plain symbols of
    :class:`~sympy_loads._simulation.numeric_model.NumericModel`:
    ``local`` turns a SymPy expression into one (the kinematic
    equations, the zeroed symbols and the plain names applied), ``rate``
    is its time derivative at ``u' = 0`` and ``speeds`` are the plain
    speeds."""

    def __init__(self, frame, points, local, rate, speeds):
        self.frame = frame
        self._frame_parent = frame_parents(frame)
        self._point_parent = point_parents(points, frame)
        self._local, self._rate = local, rate
        self._speeds = list(speeds)
        self._rotations = {frame: [[se.Integer(int(i == k)) for k in
                                    range(3)] for i in range(3)]}
        zero = [_ZERO] * 3
        self._frames = {frame: Motion(self._rotations[frame], zero, {},
                                      zero)}
        self._points = {}
        # twists made once: (anchor point, speed, id(omega)) -> Twist, and
        # the translations (speed, c) -> Twist (see translation())
        self._anchored = {}
        self._translations = {}

    # -- helpers -----------------------------------------------------------
    def _partials(self, measure):
        """``{j: d measure/d u_j}`` for the speeds in ``measure``."""
        found = set()
        for entry in measure:
            found |= entry.free_symbols
        out = {}
        for j, speed in enumerate(self._speeds):
            if speed in found:
                out[j] = [e.diff(speed) for e in measure]
        return out

    def _measures(self, vector, what):
        """``[(R_X, measure, X)]`` of a SymPy ``Vector``."""
        out = []
        for matrix, X in vector.args:
            out.append((self.rotation(X, what), self._local(matrix), X))
        return out

    # -- frames ------------------------------------------------------------
    def rotation(self, frame, what='a frame'):
        """``R`` with ``v_N = R v_frame``."""
        chain = []
        current = frame
        while current not in self._rotations:
            if current not in self._frame_parent:
                raise ValueError(
                    f'model: {what} is expressed in the frame {frame}, '
                    f'which is not oriented (directly or through other '
                    f'frames) against the inertial frame {self.frame}.')
            chain.append(current)
            current = self._frame_parent[current]
        for child in reversed(chain):
            parent = self._frame_parent[child]
            C = self._local(parent.dcm(child))
            P = self._rotations[parent]
            C = [C[3 * i:3 * i + 3] for i in range(3)]
            self._rotations[child] = [
                [se.Add(*[P[i][k] * C[k][j] for k in range(3)])
                 for j in range(3)] for i in range(3)]
        return self._rotations[frame]

    def frame_motion(self, frame):
        """The :class:`Motion` of ``frame`` (angular velocity, partial
        angular velocities, angular acceleration at ``u' = 0``)."""
        chain = []
        current = frame
        while current not in self._frames:
            self.rotation(current)
            chain.append(current)
            current = self._frame_parent[current]
        for child in reversed(chain):
            self._frames[child] = self._frame_step(child)
        return self._frames[frame]

    def _frame_step(self, child):
        parent = self._frame_parent[child]
        base = self._frames[parent]
        w, V, a = list(base.v), dict(base.V), list(base.a)
        relative = self._measures(child.ang_vel_in(parent),
                                  f'the angular velocity of {child}')
        terms = []
        for R, m, X in relative:
            w = add(w, mat_vec(R, m))
            add_partials(V, {j: mat_vec(R, d) for j, d in
                             self._partials(m).items()})
            terms.append((R, m, X))
        for R, m, X in terms:
            w_X = w if X is child else self.frame_motion(X).v
            a = add(a, add(mat_vec(R, [self._rate(e) for e in m]),
                           cross(w_X, mat_vec(R, m))))
        return Motion(self._rotations[child], w, V, a)

    # -- points ------------------------------------------------------------
    def point_motion(self, point):
        """The :class:`Motion` of ``point`` (``R`` is None)."""
        chain = []
        current = point
        while current not in self._points:
            if current not in self._point_parent:
                # a point the tree was not made for: grow it
                self._point_parent.update(point_parents([current],
                                                        self.frame))
            chain.append(current)
            current = self._point_parent[current]
            if current is None:
                break
        for child in reversed(chain):
            self._points[child] = self._point_step(child)
        return self._points[point]

    def _point_step(self, point):
        parent = self._point_parent[point]
        if parent is None:
            motion = self._given_velocity(point)
            motion.x = [_ZERO] * 3
            return motion
        base = self._points[parent]
        measures = self._measures(relative_position(point, parent),
                                  f'the position of {point}')
        x = list(base.x)
        for R, m, _ in measures:
            x = add(x, mat_vec(R, m))
        if velocity_is_given(point, self.frame):
            motion = self._given_velocity(point)
            motion.x = x
            return motion
        v, V, a = list(base.v), dict(base.V), list(base.a)
        sliding = set()
        for R, m, X in measures:
            motion = self.frame_motion(X)
            r = mat_vec(R, m)
            md = [self._rate(e) for e in m]
            mdd = [self._rate(e) for e in md]
            Rmd = mat_vec(R, md)
            v = add(v, add(Rmd, cross(motion.v, r)))
            partial = {j: mat_vec(R, d) for j, d in
                       self._partials(md).items()}
            sliding |= set(partial)
            add_partials(partial, {j: cross(W, r) for j, W in
                                   motion.V.items()})
            add_partials(V, partial)
            a = add(a, add(add(mat_vec(R, mdd), scale(2, cross(motion.v,
                                                                 Rmd))),
                           add(cross(motion.a, r),
                               cross(motion.v, cross(motion.v, r)))))
        T = (dict(base.T) if not measures else
             self._twists(parent, base, measures, V, sliding))
        return Motion(None, v, V, a, x, T)

    def _twists(self, parent, base, measures, V, sliding):
        """The :class:`Twist` of each partial velocity ``V[j]`` of a point
        located from ``parent`` (motion ``base``) by ``measures``: the
        point moves rigidly with the frames of its position for speed
        ``j`` when they all turn with the same partial angular velocity
        (the same object, or none) and the position's measures do not
        depend on ``u_j`` (``sliding``). It is then on its parent's twist
        when that turns with the same ``omega``, or else on a twist
        anchored at its parent."""
        out = {}
        for j in V:
            if j in sliding:
                continue
            omegas = [self.frame_motion(X).V.get(j) for _, _, X in measures]
            omega = omegas[0]
            if any(w is not omega for w in omegas):
                continue
            known = base.T.get(j)
            if known is not None and known.omega is omega:
                out[j] = known
                continue
            key = (parent, j, id(omega))
            if key not in self._anchored:
                c = base.V.get(j, [_ZERO] * 3)
                if omega is None:
                    self._anchored[key] = self.translation(j, c)
                else:
                    self._anchored[key] = Twist(omega, add(
                        c, scale(-1, cross(omega, base.x))))
            out[j] = self._anchored[key]
        return out

    def translation(self, j, c):
        """The translation :class:`Twist` of speed ``j`` with velocity
        ``c``, one object for equal ``c``."""
        key = (j, tuple(c))
        if key not in self._translations:
            self._translations[key] = Twist(None, list(c))
        return self._translations[key]

    def _given_velocity(self, point):
        zero = [_ZERO] * 3
        v, V, a = zero, {}, zero
        for R, m, X in self._measures(point.vel(self.frame),
                                      f'the velocity of {point}'):
            motion = self.frame_motion(X)
            Rm = mat_vec(R, m)
            v = add(v, Rm)
            add_partials(V, {j: mat_vec(R, d) for j, d in
                             self._partials(m).items()})
            a = add(a, add(mat_vec(R, [self._rate(e) for e in m]),
                           cross(motion.v, Rm)))
        return Motion(None, v, V, a)

    def vector(self, vector, what):
        """A SymPy ``Vector`` in ``N`` components."""
        out = [_ZERO] * 3
        for R, m, X in self._measures(vector, what):
            out = add(out, mat_vec(R, m))
        return out
