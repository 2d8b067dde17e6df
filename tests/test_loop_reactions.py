"""Joint reactions in mechanisms closed by a LoopJoint (issue 36, item 2).

References, sharing no code with :func:`sympy_loads.joint_reactions`:

* the accelerations: SymPy's own Kane's equations of the open tree
  (``KanesMethod(...).kanes_equations()``, lambdified) with a hand-written
  closure of the loop by Lagrange multipliers, solved by NumPy at random
  consistent states found from that closure (solved by SciPy);
* the joint forces: Newton-Euler per body in the plane with those
  accelerations (3 equations per moving body, 2 unknowns per pin, a normal
  force and a moment at the slider), the over-determined but consistent
  system solved by least squares with its residual checked;
* the loop multipliers: the loop pin's force of that reference, projected
  on the loop joint's axes.

The models are generated from a fixed random state (lengths, mass center
offsets, masses, inertias, gravity, a torque on the crank, which end of
the loop is its parent), besides the hand-picked four-bar of Moore's
*Learn Multibody Dynamics* (la = 1, lb = 4, lc = 3, ln = 5).
"""

import os

import numpy as np
import pytest
import sympy as sm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import least_squares
from sympy.physics.mechanics import (Force, KanesMethod, PinJoint,
                                     PrismaticJoint, RigidBody, System,
                                     Torque, dynamicsymbols, inertia)

from sympy_loads import JointReaction, LoopJoint, joint_reactions

t = dynamicsymbols._t
RNG_STATE = 36

# A reaction of the reference and of joint_reactions agree to this
# fraction of the largest reaction: both are exact up to rounding of
# expressions of a few hundred operations and a 9x8 least-squares solve
# of condition below 1e4 (checked), so 1e-9 leaves a margin of 1e3.
RTOL = 1e-9


def _rot(theta):
    return sm.Matrix([[sm.cos(theta), -sm.sin(theta)],
                      [sm.sin(theta), sm.cos(theta)]])


def _cross2(r, f):
    return r[0] * f[1] - r[1] * f[0]


def _vec(body, p):
    """The Vector of body-frame coordinates ``p`` (x, y)."""
    return p[0] * body.frame.x + p[1] * body.frame.y


class Planar:
    """A planar mechanism: the SymPy System closed by a LoopJoint, and an
    independent description of the same mechanism for the reference.

    ``bodies`` maps a body to ``(angle, mass center)``, plain SymPy
    expressions of the coordinates; ``pins`` lists each pin as
    ``(joint, parent, child, location)``, ``location`` the 2-vector of the
    joint's point, ``None`` for the ground; ``closure`` are the loop's
    position equations written independently; ``slider`` is
    ``(joint, location, piston)`` for a joint that holds the piston on the
    ground's x axis (a normal force along y and a moment on the piston)."""

    def __init__(self, system, joints, loop, bodies, pins, closure, q_ind,
                 q_dep, constants, slider=None):
        self.system, self.joints, self.loop = system, joints, loop
        self.bodies, self.pins, self.closure = bodies, pins, closure
        self.q_ind, self.q_dep = list(q_ind), list(q_dep)
        self.q = self.q_ind + self.q_dep
        self.u = [qi.diff(t) for qi in self.q]
        self.constants = constants
        self.slider = slider


def _point_masses_inertia(rng, body, mass):
    body.mass = mass
    body.central_inertia = inertia(body.frame, rng.uniform(0.01, 0.1),
                                   rng.uniform(0.01, 0.1),
                                   rng.uniform(0.05, 0.5) * mass)


def _body_coords(rng, length):
    """Two pin points of a link of about ``length``, in its frame, from a
    mass center off the line between them."""
    off = rng.uniform(-0.2, 0.2, size=2) * length
    a = np.array([-length / 2, 0.0]) + off
    b = np.array([length / 2, 0.0]) + off + rng.uniform(-0.1, 0.1,
                                                         size=2) * length
    return [sm.Float(v) for v in a], [sm.Float(v) for v in b]


def four_bar(rng=None, swap=False, kind='pin'):
    """Crank A on a pin to the ground at O, coupler B pinned to A, rocker C
    pinned to the ground at X; B and C closed by a LoopJoint pin (parent B,
    child C, or the other way round if ``swap``), or a ball joint if
    ``kind='spherical'``."""
    if rng is None:
        la, lb, lc, ln = 1.0, 4.0, 3.0, 5.0
        pO, pAB_A = [-la / 2, 0], [la / 2, 0]
        pAB_B, pBC_B = [-lb / 2, 0], [lb / 2, 0]
        pX_C, pBC_C = [-lc / 2, 0], [lc / 2, 0]
        masses, X = (1.0, 2.0, 3.0), [ln, 0]
        g, tau = 9.81, 0.0
        inertias = [m * l**2 / 12 for m, l in zip(masses, (la, lb, lc))]
    else:
        la, lb, lc = rng.uniform(0.8, 1.2), rng.uniform(3.5, 4.5), \
            rng.uniform(2.5, 3.5)
        pO, pAB_A = _body_coords(rng, la)
        pAB_B, pBC_B = _body_coords(rng, lb)
        pX_C, pBC_C = _body_coords(rng, lc)
        masses = tuple(rng.uniform(0.5, 3.0, size=3))
        X = [rng.uniform(4.5, 5.5), rng.uniform(-0.5, 0.5)]
        g, tau = rng.uniform(1.0, 10.0), rng.uniform(-5.0, 5.0)
        inertias = [rng.uniform(0.05, 0.5) * m * l**2
                    for m, l in zip(masses, (la, lb, lc))]
    N = RigidBody('N')
    A, B, C = (RigidBody(n, mass=m) for n, m in zip('ABC', masses))
    for b, izz in zip((A, B, C), inertias):
        b.central_inertia = inertia(b.frame, 0, 0, izz)
    q1, q2, q3, u1, u2, u3 = dynamicsymbols('q1:4 u1:4')
    j1 = PinJoint('j1', N, A, q1, u1, child_point=_vec(A, pO),
                  joint_axis=N.z)
    j2 = PinJoint('j2', A, B, q2, u2, parent_point=_vec(A, pAB_A),
                  child_point=_vec(B, pAB_B), joint_axis=A.z)
    j3 = PinJoint('j3', N, C, q3, u3, parent_point=X[0] * N.x + X[1] * N.y,
                  child_point=_vec(C, pX_C), joint_axis=N.z)
    axis = {} if kind == 'spherical' else {
        'joint_axis': C.z if swap else B.z}
    if swap:
        loop = LoopJoint('D', C, B, parent_point=_vec(C, pBC_C),
                         child_point=_vec(B, pBC_B), kind=kind, **axis)
    else:
        loop = LoopJoint('D', B, C, parent_point=_vec(B, pBC_B),
                         child_point=_vec(C, pBC_C), kind=kind, **axis)
    system = System.from_newtonian(N)
    system.add_bodies(A, B, C)
    system.add_joints(j1, j2, j3, loop)
    system.add_holonomic_constraints(*loop.holonomic_constraints)
    system.apply_uniform_gravity(-g * N.y)
    system.add_loads(Torque(A.frame, tau * N.z))
    system.q_ind, system.q_dep = [q1], [q2, q3]
    system.u_ind, system.u_dep = [u1], [u2, u3]
    # The independent description: angles and positions in the plane.
    M = lambda p: sm.Matrix(p)  # noqa: E731
    thA, thB, thC = q1, q1 + q2, q3
    GA = -_rot(thA) * M(pO)
    xAB = GA + _rot(thA) * M(pAB_A)
    GB = xAB - _rot(thB) * M(pAB_B)
    GC = M(X) - _rot(thC) * M(pX_C)
    xBC_B = GB + _rot(thB) * M(pBC_B)
    xBC_C = GC + _rot(thC) * M(pBC_C)
    bodies = {A: (thA, GA), B: (thB, GB), C: (thC, GC)}
    pins = [(j1, None, A, sm.zeros(2, 1)), (j2, A, B, xAB),
            (j3, None, C, M(X)),
            (loop, C, B, xBC_B) if swap else (loop, B, C, xBC_C)]
    model = Planar(system, (j1, j2, j3), loop, bodies, pins,
                   list(xBC_B - xBC_C), [q1], [q2, q3],
                   {'g': g, 'tau': tau, 'masses': masses})
    model.applied = {A: tau}
    model.gravity = g
    return model


def _slider_crank_numbers(rng=None):
    """The numbers of a slider-crank: hand-picked, or drawn from ``rng``
    (crank and rod lengths, guide offset, joint points in body axes,
    masses, gravity, the crank's torque, central inertias)."""
    if rng is None:
        r, l, e = 1.0, 3.0, 0.0
        pO, pAB_A = [-r / 2, 0], [r / 2, 0]
        pAB_B, pBP_B = [-l / 2, 0], [l / 2, 0]
        pS_P, pBP_P = [0, 0], [0, 0]
        masses, g, tau = (1.0, 2.0, 0.5), 9.81, 0.0
        inertias = (r**2 / 12, 2 * l**2 / 12, 0.05)
    else:
        r, l = rng.uniform(0.8, 1.2), rng.uniform(2.5, 3.5)
        e = rng.uniform(-0.3, 0.3)
        pO, pAB_A = _body_coords(rng, r)
        pAB_B, pBP_B = _body_coords(rng, l)
        pS_P = [sm.Float(v) for v in rng.uniform(-0.2, 0.2, size=2)]
        pBP_P = [sm.Float(v) for v in rng.uniform(-0.2, 0.2, size=2)]
        masses = tuple(rng.uniform(0.5, 3.0, size=3))
        g, tau = rng.uniform(1.0, 10.0), rng.uniform(-5.0, 5.0)
        inertias = tuple(rng.uniform(0.05, 0.5) * m * ll**2
                         for m, ll in zip(masses, (r, l, 0.5)))
    return (r, l, e, pO, pAB_A, pAB_B, pBP_B, pS_P, pBP_P, masses, g, tau,
            inertias)


def _crank_and_rod(masses, inertias, pO, pAB_A, pAB_B):
    """The ground N, the crank A, the rod B and the piston P of a
    slider-crank, with the crank's pin j1 on the ground and the rod's pin
    j2 on the crank: ``(N, A, B, P, q, u, j1, j2)``, ``q`` and ``u`` the
    three coordinates and speeds (the piston's joint is the builder's)."""
    N = RigidBody('N')
    A, B, P = (RigidBody(n, mass=m) for n, m in zip('ABP', masses))
    for b, izz in zip((A, B, P), inertias):
        b.central_inertia = inertia(b.frame, 0, 0, izz)
    q1, q2, q3, u1, u2, u3 = dynamicsymbols('q1:4 u1:4')
    j1 = PinJoint('j1', N, A, q1, u1, child_point=_vec(A, pO),
                  joint_axis=N.z)
    j2 = PinJoint('j2', A, B, q2, u2, parent_point=_vec(A, pAB_A),
                  child_point=_vec(B, pAB_B), joint_axis=A.z)
    return N, A, B, P, (q1, q2, q3), (u1, u2, u3), j1, j2


def slider_crank(rng=None, swap=False):
    """Crank A on a pin at O, rod B pinned to A, piston P on a
    PrismaticJoint along the ground's x axis (at height ``e``); the rod's
    end and the piston closed by a LoopJoint pin (parent B, child P, or the
    other way round if ``swap``)."""
    (r, l, e, pO, pAB_A, pAB_B, pBP_B, pS_P, pBP_P, masses, g, tau,
     inertias) = _slider_crank_numbers(rng)
    (N, A, B, P, (q1, q2, q3), (u1, u2, u3), j1, j2) = _crank_and_rod(
        masses, inertias, pO, pAB_A, pAB_B)
    s = PrismaticJoint('s', N, P, q3, u3, parent_point=e * N.y,
                       child_point=_vec(P, pS_P), joint_axis=N.x)
    if swap:
        loop = LoopJoint('D', P, B, parent_point=_vec(P, pBP_P),
                         child_point=_vec(B, pBP_B), kind='pin',
                         joint_axis=P.z)
    else:
        loop = LoopJoint('D', B, P, parent_point=_vec(B, pBP_B),
                         child_point=_vec(P, pBP_P), kind='pin',
                         joint_axis=B.z)
    system = System.from_newtonian(N)
    system.add_bodies(A, B, P)
    system.add_joints(j1, j2, s, loop)
    system.add_holonomic_constraints(*loop.holonomic_constraints)
    system.apply_uniform_gravity(-g * N.y)
    system.add_loads(Torque(A.frame, tau * N.z))
    system.q_ind, system.q_dep = [q1], [q2, q3]
    system.u_ind, system.u_dep = [u1], [u2, u3]
    M = lambda p: sm.Matrix(p)  # noqa: E731
    thA, thB = q1, q1 + q2
    GA = -_rot(thA) * M(pO)
    xAB = GA + _rot(thA) * M(pAB_A)
    GB = xAB - _rot(thB) * M(pAB_B)
    xS = sm.Matrix([q3, e])
    GP = xS - M(pS_P)
    xBP_B = GB + _rot(thB) * M(pBP_B)
    xBP_P = GP + M(pBP_P)
    bodies = {A: (thA, GA), B: (thB, GB), P: (sm.S.Zero, GP)}
    pins = [(j1, None, A, sm.zeros(2, 1)), (j2, A, B, xAB),
            (loop, P, B, xBP_B) if swap else (loop, B, P, xBP_P)]
    model = Planar(system, (j1, j2, s), loop, bodies, pins,
                   list(xBP_B - xBP_P), [q1], [q2, q3],
                   {'g': g, 'tau': tau, 'masses': masses},
                   slider=(s, xS, P))
    model.applied = {A: tau}
    model.gravity = g
    return model


def _derivative_symbols(q, order):
    """``(symbols, mapping)``: one symbol per coordinate for its value and
    each time derivative up to ``order``, and the replacement of the
    derivatives (highest first) and the coordinates by them."""
    names = ('q', 'qd', 'qdd')
    syms = [[sm.Dummy(f'{names[k]}{i}') for i in range(len(q))]
            for k in range(order + 1)]
    mapping = {}
    for k in range(order, 0, -1):
        mapping.update({qi.diff(t, k): s for qi, s in zip(q, syms[k])})
    mapping.update(zip(q, syms[0]))
    return syms, mapping


def _replace(expr, mapping):
    """Replace derivatives before the functions they are derivatives of."""
    derivs = {k: v for k, v in mapping.items() if isinstance(k, sm.Derivative)}
    rest = {k: v for k, v in mapping.items() if k not in derivs}
    return sm.sympify(expr).xreplace(derivs).xreplace(rest)


def slider_crank_closed_at_slider(rng=None, swap=False):
    """The slider-crank with the loop closed at the slider: crank A and rod
    B on pins, the piston P pinned to the rod (a tree PinJoint), and a
    LoopJoint of kind 'prismatic' between the ground and the piston along
    the ground's x axis (parent the ground, or the piston if ``swap``):
    its rows keep a force and a torque."""
    (r, l, e, pO, pAB_A, pAB_B, pBP_B, pS_P, pBP_P, masses, g, tau,
     inertias) = _slider_crank_numbers(rng)
    (N, A, B, P, (q1, q2, q3), (u1, u2, u3), j1, j2) = _crank_and_rod(
        masses, inertias, pO, pAB_A, pAB_B)
    j3 = PinJoint('j3', B, P, q3, u3, parent_point=_vec(B, pBP_B),
                  child_point=_vec(P, pBP_P), joint_axis=B.z)
    if swap:
        loop = LoopJoint('S', P, N, parent_point=_vec(P, pS_P),
                         child_point=e * N.y, kind='prismatic',
                         joint_axis=P.x)
    else:
        loop = LoopJoint('S', N, P, parent_point=e * N.y,
                         child_point=_vec(P, pS_P), kind='prismatic',
                         joint_axis=N.x)
    system = System.from_newtonian(N)
    system.add_bodies(A, B, P)
    system.add_joints(j1, j2, j3, loop)
    system.add_holonomic_constraints(*loop.holonomic_constraints)
    system.apply_uniform_gravity(-g * N.y)
    system.add_loads(Torque(A.frame, tau * N.z))
    system.q_ind, system.q_dep = [q1], [q2, q3]
    system.u_ind, system.u_dep = [u1], [u2, u3]
    M = lambda p: sm.Matrix(p)  # noqa: E731
    thA, thB, thP = q1, q1 + q2, q1 + q2 + q3
    GA = -_rot(thA) * M(pO)
    xAB = GA + _rot(thA) * M(pAB_A)
    GB = xAB - _rot(thB) * M(pAB_B)
    xBP = GB + _rot(thB) * M(pBP_B)
    GP = xBP - _rot(thP) * M(pBP_P)
    xS = GP + _rot(thP) * M(pS_P)
    bodies = {A: (thA, GA), B: (thB, GB), P: (thP, GP)}
    pins = [(j1, None, A, sm.zeros(2, 1)), (j2, A, B, xAB),
            (j3, B, P, xBP)]
    model = Planar(system, (j1, j2, j3), loop, bodies, pins,
                   [xS[1] - e, thP], [q1], [q2, q3],
                   {'g': g, 'tau': tau, 'masses': masses},
                   slider=(loop, xS, P))
    model.applied = {A: tau}
    model.gravity = g
    model.ground_point = np.array([0.0, float(e)])
    return model


class Reference:
    """Consistent states, SymPy's accelerations and the Newton-Euler joint
    forces of a :class:`Planar` mechanism."""

    def __init__(self, model):
        self.model = model
        system = model.system
        q = model.q
        syms, mapping = _derivative_symbols(q, 2)
        self.syms = syms
        closure = sm.Matrix(model.closure)
        args = [syms[0]]
        self._closure = sm.lambdify(args, _replace(closure, mapping))
        self._jac_dep = sm.lambdify(args, _replace(
            closure.jacobian(model.q_dep), mapping))
        self._jac_ind = sm.lambdify(args, _replace(
            closure.jacobian(model.q_ind), mapping))
        # SymPy's own equations of motion of the open tree, M u' = F, and
        # the hand-written closure: M u' = F + C^T mu, C u' = -C' u (C the
        # closure's Jacobian; q' = u). Its Lagrange multipliers mu belong
        # to the closure as written here, not to the LoopJoint's rows.
        # (SymPy's form_eoms() of the closed System eliminates the dependent
        # speeds with a symbolic LU whose pivot can vanish on the manifold:
        # the four-bar's first row along the coupler, differentiated with
        # respect to the coupler's angle, is zero on the loop, so the
        # default LU divides rounding errors; test_reference_accelerations_
        # are_sympys compares with form_eoms() by Cramer's rule.)
        u = list(system.u)
        # The kinematic differential equations are q' = u (pin, slider).
        assert all(sm.expand(k + qi.diff(t) - ui) == 0
                   for k, qi, ui in zip(system.kdes, system.q, u))
        assert list(system.q) == q
        kane = KanesMethod(system.frame, q, u, kd_eqs=system.kdes,
                           bodies=system.bodies, forcelist=system.loads)
        kane.kanes_equations()
        umap = dict(zip(u, syms[1]))
        state = args + [syms[1]]
        self._mass = sm.lambdify(state, _replace(
            kane.mass_matrix, mapping).xreplace(umap), cse=True)
        self._forcing = sm.lambdify(state, _replace(
            kane.forcing, mapping).xreplace(umap), cse=True)
        C = _replace(closure.jacobian(q), mapping)
        U = sm.Matrix(syms[1])
        self._jac = sm.lambdify(args, C)
        self._jac_rate = sm.lambdify(state, (C * U).jacobian(syms[0]) * U)
        # The hand-written kinematics, differentiated twice.
        all_args = [syms[0], syms[1], syms[2]]
        self._kin = {}
        for body, (theta, G) in model.bodies.items():
            G = sm.Matrix(G)
            self._kin[body] = sm.lambdify(all_args, [
                _replace(G, mapping), _replace(G.diff(t, 2), mapping),
                _replace(sm.sympify(theta).diff(t, 2), mapping)])
        self._where = sm.lambdify(all_args, [
            _replace(sm.Matrix(x), mapping) for (_, _, _, x) in model.pins]
            + ([_replace(model.slider[1], mapping)] if model.slider else []))

    def states(self, rng, n):
        """``n`` random states (q, u) satisfying the loop's position and
        velocity equations (the hand-written closure)."""
        out = []
        nq = len(self.model.q_dep)
        while len(out) < n:
            q_ind = rng.uniform(-np.pi, np.pi, size=len(self.model.q_ind))
            guess = rng.uniform(-4.0, 4.0, size=nq)
            sol = least_squares(
                lambda x: np.ravel(self._closure(np.r_[q_ind, x])), guess,
                xtol=1e-15, ftol=1e-15, gtol=1e-15)
            q = np.r_[q_ind, sol.x]
            if np.max(np.abs(self._closure(q))) > 1e-12:
                continue
            jd = np.asarray(self._jac_dep(q), dtype=float)
            if np.linalg.cond(jd) > 1e2:
                continue        # near a singular configuration
            u_ind = rng.uniform(-2.0, 2.0, size=len(self.model.q_ind))
            ji = np.asarray(self._jac_ind(q), dtype=float)
            u_dep = np.linalg.solve(jd, -ji @ u_ind)
            out.append((q, np.r_[u_ind, u_dep]))
        return out

    def accelerations(self, q, u):
        """u' from SymPy's open-tree equations and the closure."""
        M = np.asarray(self._mass(q, u), dtype=float)
        F = np.asarray(self._forcing(q, u), dtype=float).ravel()
        C = np.asarray(self._jac(q), dtype=float)
        c = np.asarray(self._jac_rate(q, u), dtype=float).ravel()
        n, m = len(q), len(C)
        K = np.block([[M, -C.T], [C, np.zeros((m, m))]])
        return np.linalg.solve(K, np.r_[F, -c])[:n]

    def joint_forces(self, q, u, ud):
        """Newton-Euler per body: ``{joint: force on its child (2,)}``, and
        for a slider ``{slider: (normal force along y, moment about z)}``;
        the least-squares residual relative to the largest term."""
        model = self.model
        where = [np.ravel(w) for w in self._where(q, u, ud)]
        bodies = list(model.bodies)
        npins = len(model.pins)
        ncols = 2 * npins + (2 if model.slider else 0)
        A = np.zeros((3 * len(bodies), ncols))
        b = np.zeros(3 * len(bodies))
        g = model.gravity
        for i, body in enumerate(bodies):
            G, aG, alpha = self._kin[body](q, u, ud)
            G, aG = np.ravel(G), np.ravel(aG)
            m, izz = float(body.mass), float(body.central_inertia.to_matrix(
                body.frame)[2, 2])
            rows = slice(3 * i, 3 * i + 3)
            b[rows] = [m * aG[0], m * aG[1] + m * g,
                       izz * float(alpha) - model.applied.get(body, 0.0)]
            for k, (_, parent, child, _) in enumerate(model.pins):
                s = 1.0 if body is child else -1.0 if body is parent else 0.0
                if s:
                    r = where[k] - G
                    A[3 * i:3 * i + 2, 2 * k:2 * k + 2] += s * np.eye(2)
                    A[3 * i + 2, 2 * k:2 * k + 2] += s * np.array([-r[1],
                                                                   r[0]])
            if model.slider and body is model.slider[2]:
                r = where[-1] - G
                A[3 * i + 1, -2] += 1.0          # normal force along y
                A[3 * i + 2, -2] += r[0]         # its moment about G
                A[3 * i + 2, -1] += 1.0          # the slider's moment
        x, *_ = np.linalg.lstsq(A, b, rcond=None)
        assert np.linalg.cond(A) < 1e4
        residual = np.max(np.abs(A @ x - b)) / np.max(np.abs(b))
        forces = {pin[0]: x[2 * k:2 * k + 2]
                  for k, pin in enumerate(model.pins)}
        if model.slider:
            forces[model.slider[0]] = x[-2:]
        return forces, residual, where


def _evaluator(exprs, model):
    """``f(q, u, ud, lam)`` evaluating SymPy expressions of the model's
    q(t), u(t), u'(t) and the loop's multipliers."""
    system = model.system
    q, u, lam = list(system.q), list(system.u), list(model.loop.multipliers)
    Q = [sm.Dummy() for _ in q]
    U = [sm.Dummy() for _ in u]
    UD = [sm.Dummy() for _ in u]
    L = [sm.Dummy() for _ in lam]
    mapping = {ui.diff(t): d for ui, d in zip(u, UD)}
    mapping.update({qi.diff(t): d for qi, d in zip(q, U)})
    first = [sm.sympify(e).xreplace(mapping) for e in exprs]
    rest = dict(zip(q, Q)) | dict(zip(u, U)) | dict(zip(lam, L))
    f = sm.lambdify([Q, U, UD, L], [e.xreplace(rest) for e in first])
    return lambda *a: np.array(f(*a), dtype=float)


# (builder, seed or None for the hand-picked model, loop parent swapped)
CASES = [('four_bar', None, False), ('four_bar', 1, False),
         ('four_bar', 2, True), ('slider_crank', None, False),
         ('slider_crank', 3, False), ('slider_crank', 4, True),
         ('closed_at_slider', None, False), ('closed_at_slider', 5, False),
         ('closed_at_slider', 6, True), ('four_bar_ball', None, False),
         ('four_bar_ball', 9, True)]
BUILDERS = {'four_bar': four_bar, 'slider_crank': slider_crank,
            'closed_at_slider': slider_crank_closed_at_slider,
            'four_bar_ball': lambda rng, swap: four_bar(rng, swap,
                                                        'spherical')}


@pytest.fixture(scope='module', params=CASES,
                ids=[f'{b}-{s}-{"swap" if w else "plain"}'
                     for b, s, w in CASES])
def case(request):
    name, seed, swap = request.param
    rng = None if seed is None else np.random.default_rng([RNG_STATE, seed])
    model = BUILDERS[name](rng, swap=swap)
    reference = Reference(model)
    states = reference.states(np.random.default_rng([RNG_STATE, 99]), 3)
    return model, reference, states


def _pad(v):
    return np.r_[np.ravel(v), np.zeros(3 - np.size(v))]


def _loop_load(model, forces, where):
    """The reference force and torque (3-vectors in the ground's frame) on
    the loop joint's child, the force at ``loop.child_point``: the loop
    pin's force, or the slider's normal force and moment on the piston;
    if the ground is the child, their opposite moved from the piston's
    slider point to the ground's point (adding its moment)."""
    loop = model.loop
    if model.slider is None or model.slider[0] is not loop:
        return _pad(forces[loop]), np.zeros(3)
    normal, moment = forces[loop]
    if loop.child is model.slider[2]:
        return np.r_[0.0, normal, 0.0], np.r_[0.0, 0.0, moment]
    arm = where[-1] - model.ground_point       # slider point from C
    return (np.r_[0.0, -normal, 0.0],
            np.r_[0.0, 0.0, -moment + _cross2(arm, [0.0, -normal])])


def _multipliers(model, q, forces, where):
    """The loop's multipliers from the reference: the components of its
    force and torque on the loop's child along the loop's axes (fixed in
    the loop's parent)."""
    loop, N = model.loop, model.system.frame
    axes = _evaluator([c for e in loop.axes for c in e.to_matrix(N)],
                      model)(q, q * 0, q * 0, [0] * len(loop.multipliers))
    axes = axes.reshape(3, 3)
    F, T = _loop_load(model, forces, where)
    return np.array([(F if label[0] == 'F' else T)
                     @ axes['xyz'.index(label[1])]
                     for label in loop.labels])


def _reference_at(model, reference, q, u):
    ud = reference.accelerations(q, u)
    forces, residual, where = reference.joint_forces(q, u, ud)
    # Over-determined by the mechanism's one degree of freedom, and
    # consistent: SymPy's accelerations satisfy every body's balance.
    assert residual < 1e-10
    lam = _multipliers(model, q, forces, where)
    return ud, forces, lam, where


def test_reference_accelerations_are_sympys(case):
    """The reference's u' equal those of SymPy's equations of the closed
    System (form_eoms() with Cramer's rule for the dependent speeds:
    SymPy's default LU may pivot on an entry that vanishes on the loop)."""
    model, reference, states = case
    system = model.system
    system.form_eoms(constraint_solver='CRAMER')
    f = sm.lambdify([system.q, system.u], [system.mass_matrix_full,
                                           system.forcing_full], cse=True)
    for q, u in states:
        M, F = f(q, u)
        xdot = np.linalg.solve(np.asarray(M, dtype=float),
                               np.ravel(np.asarray(F, dtype=float)))
        ud = reference.accelerations(q, u)
        np.testing.assert_allclose(xdot[:len(q)], u, rtol=0, atol=1e-12)
        np.testing.assert_allclose(xdot[len(q):], ud, rtol=0,
                                   atol=1e-9 * np.max(np.abs(ud)))


def test_loop_rows_are_the_planar_ones(case):
    """The rows the plane leaves: a pin's or a ball joint's two in-plane
    force rows (the ball's out-of-plane row, zero for the model, is named
    as dropped; with it the out-of-plane reactions, Fz and the tilting
    torques of the tree pins, are zero and determined), a slider's normal
    force and torque about z."""
    model, _, _ = case
    planar = ('Fx', 'Ty') if model.loop.kind == 'prismatic' else ('Fx', 'Fy')
    assert model.loop.labels == planar
    assert len(model.loop.multipliers) == 2
    if model.loop.kind == 'spherical':
        assert set(model.loop.dropped) == {'Fz'}


def test_tree_joint_reactions_match_newton_euler(case):
    """Every tree joint's reaction with the reference multipliers equals
    the Newton-Euler joint force; the slider's normal force and moment
    too; the planar pins transmit no torque."""
    _assert_reactions_match(*case)


def _assert_reactions_match(model, reference, states):
    N = model.system.frame
    reactions = {j: joint_reactions(j, model.system) for j in model.joints}
    lam_syms = set(model.loop.multipliers)
    for j, r in reactions.items():
        found = set().union(*(sm.sympify(c).atoms(sm.Function)
                              for c in r.force_components))
        assert found & lam_syms, f'{j.name} does not feel the loop'
    f = {j: _evaluator(list(r.force.to_matrix(N))
                       + list(r.torque.to_matrix(N)), model)
         for j, r in reactions.items()}
    for q, u in states:
        ud, forces, lam, where = _reference_at(model, reference, q, u)
        scale = max(np.max(np.abs(v)) for v in forces.values())
        for j in model.joints:
            value = f[j](q, u, ud, lam)
            if isinstance(j, PrismaticJoint):
                normal, moment = forces[j]
                expected = np.r_[0.0, normal, 0.0, 0.0, 0.0, moment]
            else:
                expected = np.r_[_pad(forces[j]), 0.0, 0.0, 0.0]
            np.testing.assert_allclose(value, expected, rtol=0,
                                       atol=RTOL * scale, err_msg=j.name)


def test_slider_normal_force(case):
    """The piston's normal force is the first force component of the
    PrismaticJoint's reaction (along the piston's y axis = ground y)."""
    model, reference, states = case
    if model.slider is None or model.slider[0] is model.loop:
        pytest.skip('no tree slider (the loop\'s own reaction is tested '
                    'below)')
    s = model.slider[0]
    r = joint_reactions(s, model.system)
    assert r.axes[0] == s.child_interframe.y
    f = _evaluator([r.force_components[0], r.force_components[1]], model)
    for q, u in states:
        ud, forces, lam, where = _reference_at(model, reference, q, u)
        scale = max(np.max(np.abs(v)) for v in forces.values())
        normal, _ = forces[s]
        np.testing.assert_allclose(f(q, u, ud, lam), [normal, 0.0],
                                   rtol=0, atol=RTOL * scale)


def test_loop_joint_reaction_is_its_multipliers(case):
    model, reference, states = case
    loop, N = model.loop, model.system.frame
    r = joint_reactions(loop, model.system)
    assert isinstance(r, JointReaction)
    assert r.axes == tuple(loop.axes)
    assert r.force_components == sm.ImmutableMatrix(loop.force_components)
    assert r.torque_components == sm.ImmutableMatrix(loop.torque_components)
    f = _evaluator(list(r.force.to_matrix(N))
                   + list(r.torque.to_matrix(N)), model)
    for q, u in states[:1]:
        ud, forces, lam, where = _reference_at(model, reference, q, u)
        scale = max(np.max(np.abs(v)) for v in forces.values())
        np.testing.assert_allclose(f(q, u, ud, lam),
                                   np.r_[_loop_load(model, forces, where)],
                                   rtol=0, atol=RTOL * scale)


def test_every_body_balances_with_its_joint_reactions(case):
    """Newton-Euler of each moving body with the loads of the reactions of
    all its joints (JointReaction.to_loads, the loop's included), gravity
    and the crank torque: sum of forces = m a, moment about the mass
    center = I alpha."""
    model, reference, states = case
    system, N = model.system, model.system.frame
    joints = list(model.joints) + [model.loop]
    on = {b: [] for b in model.bodies}
    for j in joints:
        child_f, parent_f, child_t, parent_t = joint_reactions(
            j, system).to_loads()
        for body, loads in ((j.child, (child_f, child_t)),
                            (j.parent, (parent_f, parent_t))):
            if body in on:
                on[body].extend(loads)
    exprs = []
    for body, loads in on.items():
        G = body.masscenter
        loads = loads + [Force(G, -model.gravity * body.mass * N.y)]
        loads += [Torque(body.frame, model.applied[body] * N.z)] \
            if body in model.applied else []
        F = sum((ld.force for ld in loads if isinstance(ld, Force)),
                0 * N.x) - body.mass * G.acc(N)
        M = sum((ld.point.pos_from(G).cross(ld.force)
                 if isinstance(ld, Force) else ld.torque for ld in loads),
                0 * N.x)
        M -= body.central_inertia.dot(body.frame.ang_acc_in(N))
        exprs += list(F.to_matrix(N)) + list(M.to_matrix(N))
    f = _evaluator(exprs, model)
    for q, u in states:
        ud, forces, lam, where = _reference_at(model, reference, q, u)
        scale = max(np.max(np.abs(v)) for v in forces.values())
        np.testing.assert_allclose(f(q, u, ud, lam), 0.0, rtol=0,
                                   atol=RTOL * 10 * scale)



@pytest.mark.sweep
@settings(max_examples=int(os.environ.get('ORACLE_EXAMPLES', 40)),
          deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(builder=st.sampled_from(sorted(BUILDERS)),
       seed=st.integers(0, 10 ** 6), swap=st.booleans())
def test_sweep_reactions_match_newton_euler(builder, seed, swap):
    """The same comparison over drawn four-bars and slider-cranks."""
    model = BUILDERS[builder](np.random.default_rng([RNG_STATE, seed]),
                              swap=swap)
    reference = Reference(model)
    states = reference.states(np.random.default_rng([RNG_STATE, seed]), 2)
    _assert_reactions_match(model, reference, states)

def spatial_loop(rng):
    """A spatial mechanism of one degree of freedom: crank A on a pin about
    the ground's z axis, link B on a pin about A's y axis, rocker C on a
    pin about the ground's x axis, link E on a pin about C's z axis, and B
    and E closed by a LoopJoint of kind 'spherical' (R-R-S-R-R)."""
    N = RigidBody('N')
    bodies = [RigidBody(n, mass=sm.Float(m))
              for n, m in zip('ABCE', rng.uniform(0.5, 2.0, size=4))]
    A, B, C, E = bodies
    for b in bodies:
        d = rng.uniform(0.05, 0.3, size=3)
        b.central_inertia = inertia(b.frame, *[sm.Float(v) for v in d],
                                    *[sm.Float(v) for v in
                                      rng.uniform(-0.01, 0.01, size=3)])
    F = lambda body, v: sum((sm.Float(c) * e for c, e in  # noqa: E731
                             zip(v, body.frame)), 0 * body.frame.x)
    q = dynamicsymbols('q1:5')
    u = dynamicsymbols('u1:5')
    j1 = PinJoint('j1', N, A, q[0], u[0], child_point=F(A, [-0.5, 0, 0]),
                  joint_axis=N.z)
    j2 = PinJoint('j2', A, B, q[1], u[1], parent_point=F(A, [0.5, 0, 0]),
                  child_point=F(B, [-1.0, 0.1, 0]), joint_axis=A.y)
    j3 = PinJoint('j3', N, C, q[2], u[2], parent_point=2.0 * N.x + N.y,
                  child_point=F(C, [0, -0.6, 0]), joint_axis=N.x)
    j4 = PinJoint('j4', C, E, q[3], u[3], parent_point=F(C, [0, 0.6, 0]),
                  child_point=F(E, [-0.5, 0, 0.1]), joint_axis=C.z)
    loop = LoopJoint('S', B, E, parent_point=F(B, [1.0, 0, 0.1]),
                     child_point=F(E, [0.5, 0.1, 0]), kind='spherical')
    system = System.from_newtonian(N)
    system.add_bodies(*bodies)
    system.add_joints(j1, j2, j3, j4, loop)
    system.add_holonomic_constraints(*loop.holonomic_constraints)
    system.apply_uniform_gravity(-9.81 * N.z)
    system.add_loads(Torque(A.frame, 2.0 * N.z))
    system.q_ind, system.q_dep = [q[0]], list(q[1:])
    system.u_ind, system.u_dep = [u[0]], list(u[1:])
    return system, (j1, j2, j3, j4), loop


class TestSpatialLoop:
    """The R-R-S-R-R mechanism: u' and the multipliers from SymPy's
    Kane's equations of the open tree closed by the loop's rows,
    M u' = F + B^T lambda and B u' = -B' u (B the rows' Jacobian: the
    generalized force of the force and torque of the spec's multipliers),
    then each body's six Newton-Euler equations with the reactions of all
    its joints."""

    @pytest.fixture(scope='class')
    @classmethod
    def spatial(cls):
        rng = np.random.default_rng([RNG_STATE, 7])
        system, joints, loop = spatial_loop(rng)
        q, u = list(system.q), list(system.u)
        qd = {qi.diff(t): ui for qi, ui in zip(q, u)}
        assert all(sm.expand(k + qi.diff(t) - ui) == 0
                   for k, qi, ui in zip(system.kdes, q, u))
        rows = sm.Matrix(loop.holonomic_constraints)
        Q, U = sm.symbols('Q1:5'), sm.symbols('U1:5')
        sub = lambda e: sm.sympify(e).xreplace(qd).xreplace(  # noqa: E731
            dict(zip(q, Q))).xreplace(dict(zip(u, U)))
        closure = sm.lambdify([Q], sub(rows))
        jac = sm.lambdify([Q], sub(rows.jacobian(q)))
        Bu = sub(rows.jacobian(q)) * sm.Matrix(U)
        jac_rate = sm.lambdify([Q, U], Bu.jacobian(Q) * sm.Matrix(U))
        # The open tree (no constraints): SymPy's Kane's equations.
        kane = KanesMethod(system.frame, q, u, kd_eqs=system.kdes,
                           bodies=system.bodies, forcelist=system.loads)
        kane.kanes_equations()
        tree_mass = sm.lambdify([Q, U], sub(kane.mass_matrix), cse=True)
        tree_forcing = sm.lambdify([Q, U], sub(kane.forcing), cse=True)
        states = []
        srng = np.random.default_rng([RNG_STATE, 8])
        while len(states) < 3:
            q1 = srng.uniform(-np.pi, np.pi)
            sol = least_squares(
                lambda x: np.ravel(closure(np.r_[q1, x])),
                srng.uniform(-np.pi, np.pi, size=3),
                xtol=1e-15, ftol=1e-15, gtol=1e-15)
            qv = np.r_[q1, sol.x]
            if np.max(np.abs(closure(qv))) > 1e-12:
                continue
            B = np.asarray(jac(qv), dtype=float)
            if np.linalg.cond(B[:, 1:]) > 1e2:
                continue
            u1 = srng.uniform(-2, 2)
            uv = np.r_[u1, np.linalg.solve(B[:, 1:], -B[:, 0] * u1)]
            M = np.asarray(tree_mass(qv, uv), dtype=float)
            K = np.block([[M, -B.T], [B, np.zeros((3, 3))]])
            x = np.linalg.solve(K, np.r_[np.ravel(tree_forcing(qv, uv)),
                                         -np.ravel(jac_rate(qv, uv))])
            states.append((qv, uv, x[:4], x[4:]))
        return system, joints, loop, states

    def test_rows_and_reactions_contain_the_multipliers(self, spatial):
        system, joints, loop, _ = spatial
        assert loop.labels == ('Fx', 'Fy', 'Fz')
        for j in joints:
            r = joint_reactions(j, system)
            found = set().union(*(sm.sympify(c).atoms(sm.Function) for c in
                                  list(r.force_components)
                                  + list(r.torque_components)))
            assert set(loop.multipliers) <= found, j.name
            assert r.torque_components[2] == 0     # a pin: no axial torque

    def test_every_body_balances(self, spatial):
        system, joints, loop, states = spatial
        N = system.frame
        on = {b: [] for b in system.bodies if b.frame is not N}
        for j in list(joints) + [loop]:
            cf, pf, ct, pt = joint_reactions(j, system).to_loads()
            for body, loads in ((j.child, (cf, ct)), (j.parent, (pf, pt))):
                if body in on:
                    on[body].extend(loads)
        for load in system.loads:
            body = next((b for b in on if load.location in
                         (b.masscenter, b.frame)), None)
            if body is not None:        # gravity on the ground is left out
                on[body].append(load)
        exprs = []
        for body, loads in on.items():
            G = body.masscenter
            Fv = sum((ld.force for ld in loads if isinstance(ld, Force)),
                     0 * N.x) - body.mass * G.acc(N)
            w = body.frame.ang_vel_in(N)
            I = body.central_inertia
            Mv = sum((ld.point.pos_from(G).cross(ld.force)
                      if isinstance(ld, Force) else ld.torque
                      for ld in loads), 0 * N.x)
            Mv -= I.dot(body.frame.ang_acc_in(N)) + w.cross(I.dot(w))
            exprs += list(Fv.to_matrix(N)) + list(Mv.to_matrix(N))
        q, u, lam = list(system.q), list(system.u), list(loop.multipliers)
        Q, U, UD, L = (sm.symbols(f'{n}1:{len(v) + 1}') for n, v in
                       (('Q', q), ('U', u), ('UD', u), ('L', lam)))
        first = {ui.diff(t): s for ui, s in zip(u, UD)}
        first.update({qi.diff(t): s for qi, s in zip(q, U)})
        rest = dict(zip(q, Q)) | dict(zip(u, U)) | dict(zip(lam, L))
        f = sm.lambdify([Q, U, UD, L], [sm.sympify(e).xreplace(first)
                                        .xreplace(rest) for e in exprs])
        reactions = [joint_reactions(j, system) for j in joints]
        g = sm.lambdify([Q, U, UD, L], [
            sm.sympify(c).xreplace(first).xreplace(rest) for r in reactions
            for c in list(r.force_components) + list(r.torque_components)])
        for qv, uv, ud, lv in states:
            scale = max(np.max(np.abs(g(qv, uv, ud, lv))),
                        np.max(np.abs(lv)))
            np.testing.assert_allclose(f(qv, uv, ud, lv), 0.0, rtol=0,
                                       atol=RTOL * 10 * scale)


class TestRefusals:
    """Constraints whose forces are not carried by a LoopJoint keep a clear
    error pointing to LoopJoint (the reaction would be wrong otherwise)."""

    def hand_closed(self):
        """The four-bar of SymPy's tutorial: the loop closed by hand with
        add_holonomic_constraints (no LoopJoint)."""
        model = four_bar()
        system = model.system
        j1, j2, j3 = model.joints
        loop = model.loop
        closed = System.from_newtonian(system.bodies[0])
        closed.add_bodies(*system.bodies[1:])
        closed.add_joints(j1, j2, j3)
        r = loop.child_point.pos_from(loop.parent_point).to_matrix(
            system.frame)
        closed.add_holonomic_constraints(r[0], r[1])
        closed.q_ind, closed.q_dep = system.q_ind, system.q_dep
        closed.u_ind, closed.u_dep = system.u_ind, system.u_dep
        return closed, model

    def test_loop_closed_by_hand_points_to_loop_joint(self):
        closed, model = self.hand_closed()
        for j in model.joints:
            with pytest.raises(ValueError, match=r'dependent speeds .*'
                               r'sympy_loads\.LoopJoint.*child_bodies'):
                joint_reactions(j, closed)

    def test_kanes_method_with_dependent_speeds(self):
        """A KanesMethod holds no joints: its dependent speeds are refused
        as before, the message saying so."""
        closed, model = self.hand_closed()
        closed.form_eoms(constraint_solver='CRAMER')
        kane = closed.eom_method
        with pytest.raises(ValueError, match=r'dependent speeds .*a '
                           r'KanesMethod holds no joints, so no '
                           r'sympy_loads\.LoopJoint'):
            joint_reactions(model.joints[0], kane)

    def test_loop_joint_besides_a_hand_written_constraint(self):
        """A LoopJoint's rows and one more constraint: the extra row is
        named; the LoopJoint's rows negated are recognised as its own."""
        model = four_bar()
        system, (j1, j2, _) = model.system, model.joints
        # a prescribed crank speed, written as a constraint
        system.add_nonholonomic_constraints(j1.speeds[0] - 1)
        with pytest.raises(ValueError, match=r'constraints \[.*u1\(t\).*\] '
                           r'that are not the rows of a sympy_loads'
                           r'\.LoopJoint'):
            joint_reactions(j2, system)
        negated = four_bar()
        rows = negated.system.holonomic_constraints
        negated.system.holonomic_constraints = -rows
        r = joint_reactions(negated.joints[1], negated.system)
        assert set(negated.loop.multipliers) <= r.force_components.atoms(
            sm.Function)

    def test_loop_rows_not_added(self):
        model = four_bar()
        system = model.system
        closed, _ = self.hand_closed()
        # the LoopJoint is a joint of the system, its rows are not
        system.holonomic_constraints = closed.holonomic_constraints
        with pytest.raises(ValueError, match=r"loop joint 'D' are not among "
                           r'the holonomic constraints.*add_holonomic_'
                           r'constraints'):
            joint_reactions(model.joints[0], system)
        with pytest.raises(ValueError, match="loop joint 'D'"):
            joint_reactions(model.loop, system)

    def test_loop_joint_of_no_system(self):
        model = four_bar()
        system = model.system
        kane = KanesMethod(system.frame, system.q, system.u,
                           kd_eqs=system.kdes, bodies=system.bodies)
        with pytest.raises(ValueError, match="loop joint 'D' is not part of "
                           r'the model.*multipliers'):
            joint_reactions(model.loop, kane)
        other = four_bar()
        with pytest.raises(ValueError, match="loop joint 'D' is not part"):
            joint_reactions(model.loop, other.system)
