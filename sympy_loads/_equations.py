"""Private: the unconstrained equations of motion of a ``KanesMethod``.

``simulate()`` eliminates dependent speeds numerically (see
:mod:`sympy_loads._simulation.numeric_model`), so it needs Kane's
equations with *every* speed treated as independent::

    M(q, t) u' = F(q, u, t),    M_rs = sum_B m v_r . v_s + w_r . I . w_s

``KanesMethod`` keeps only the reduced equations, formed with the
symbolic inverse of the dependent block of the velocity constraints
(``KanesMethod._Ars``), which is larger by an order of magnitude and can
be 0/0 at legal states (a pivot that vanishes, such as a slider-crank at
crank angle 0). This module derives the unconstrained ones from the
model's bodies and loads:

* every body's mass-center velocity ``v`` and angular velocity ``w`` are
  expressed in one frame ``E`` (the body frame where it can be), and the
  generalized inertia force follows from the momenta ``p = m v`` and
  ``H = I w`` with the transport theorem, ``d^N p/dt = d(p_E)/dt +
  w^E x p_E`` [Kane1985]_;
* the partial velocities are the Jacobians of ``v_E`` and ``w_E`` with
  respect to ``u`` [Moore]_, and ``M = sum m Jv^T Jv + Jw^T I_E Jw``;
* every load contributes ``Jv^T F`` (a force) or ``Jw^T T`` (a torque)
  to ``Fr`` [KaneLevinson]_.

The vector algebra (``to_matrix``) is done by SymPy; the Jacobians and
time derivatives by SymEngine, which is much faster on expressions of
this size. A velocity that depends on a specified input ``s`` has the
time derivative ``... + (d/ds) s'``, with the rate ``s'`` an input of its
own. When a model does not fit this route (a body frame without an
orientation path, a mass that varies), a fresh unconstrained
``KanesMethod`` derives the equations instead, as it also does where
SymEngine is not installed.

References
==========

.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, McGraw-Hill, 1985, sec. 4.11 (generalized inertia
   forces) and 2.6 (transport theorem). https://hdl.handle.net/1813/638
.. [KaneLevinson] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, sec. 4.1 "Generalized Active Forces".
   https://hdl.handle.net/1813/638
.. [Moore] J. K. Moore, Learn Multibody Dynamics, "Generalized Forces".
   https://moorepants.github.io/learn-multibody-dynamics/
"""

import sympy as sm
from sympy.physics.mechanics import (Force, KanesMethod, RigidBody,
                                     dynamicsymbols)

from ._numeric.codegen import symengine_available, to_symengine
from ._utils import _as_loads, _kanes_parts

__all__ = []

_TIME = dynamicsymbols._t


class _Unsupported(Exception):
    """The fast route does not apply to this model."""


def unconstrained_equations(kane, plain, zero=None):
    """``(M, F)``: the unconstrained mass matrix (rows of lists) and
    forcing (list) of ``kane`` in the plain symbols ``plain`` (a mapping
    from ``q``, ``u``, specified inputs and time to Symbols), with the
    functions of time in ``zero`` (auxiliary speeds, the reactions they
    bring into evidence) set to zero. SymEngine expressions when
    SymEngine is installed, else SymPy ones."""
    zero = dict(zero or {})
    if symengine_available():
        try:
            return _fast(kane, plain, zero)
        except _Unsupported:
            pass
    return _from_kanes_method(kane, plain, zero)


def _from_kanes_method(kane, plain, zero=None):
    """A fresh ``KanesMethod`` with every speed independent (``zero``: as
    for :func:`unconstrained_equations`)."""
    zero = dict(zero or {})
    parts = _kanes_parts(kane)
    kd = [qd - expr for qd, expr in kane.kindiffdict().items()]
    unconstrained = KanesMethod(parts.frame, list(kane.q), list(kane.u),
                                kd_eqs=kd, u_auxiliary=parts.u_aux or None)
    unconstrained.kanes_equations(kane.bodies, kane.loads)
    n = len(kane.u)      # (the auxiliary equations' rows follow)
    mass = sm.Matrix(unconstrained.mass_matrix)[:n, :n].xreplace(
        zero).xreplace(plain)
    forcing = sm.Matrix(unconstrained.forcing)[:n, :].xreplace(
        zero).xreplace(plain)
    if symengine_available():
        mass = [to_symengine(list(mass.row(i))) for i in range(mass.rows)]
        return mass, to_symengine(list(forcing))
    return ([list(mass.row(i)) for i in range(mass.rows)], list(forcing))


def _frame_of(vector, default):
    """The frame of the first component of ``vector`` (``default`` for a
    zero vector)."""
    return vector.args[0][1] if vector.args else default


def _fast(kane, plain, zeroed=None):
    zeroed = dict(zeroed or {})
    import symengine as se
    parts = _kanes_parts(kane)
    N = parts.frame
    q, u = list(kane.q), list(kane.u)
    qdot_map = kane.kindiffdict()
    specified = {plain[s] for s in plain
                 if s not in set(q) | set(u) and s != _TIME}
    qs = to_symengine([plain[s] for s in q])
    us = to_symengine([plain[s] for s in u])
    ts = to_symengine([plain[_TIME]])[0]
    qd = to_symengine([qdot_map[s.diff(_TIME)].xreplace(plain) for s in q])
    specified = set(to_symengine(list(specified)))
    # the plain symbols of the specified inputs whose rates are inputs too
    # (Derivative(s(t), t) in plain, see numeric_model._input_rates)
    with_rates = [s for s in plain if isinstance(s, sm.Derivative)]
    rates = dict(zip(to_symengine([plain[s.expr] for s in with_rates]),
                     to_symengine([plain[s] for s in with_rates])))
    nu = len(u)

    def components(vector, frame):
        """``vector`` in ``frame`` as SymEngine expressions of the plain
        symbols."""
        try:
            matrix = vector.to_matrix(frame)
        except ValueError:    # no orientation path between the frames
            raise _Unsupported from None
        matrix = matrix.xreplace(qdot_map).xreplace(zeroed).xreplace(plain)
        if matrix.atoms(sm.Derivative):
            raise _Unsupported
        return to_symengine(list(matrix))

    def rate(exprs):
        """Time derivative with ``u' = 0`` (through the specified
        inputs whose rates are inputs too)."""
        out = []
        for expr in exprs:
            inputs = expr.free_symbols & specified
            if any(s not in rates for s in inputs):
                raise _Unsupported
            value = expr.diff(ts)
            for qi, qdi in zip(qs, qd):
                value += expr.diff(qi) * qdi
            for s in inputs:
                value += expr.diff(s) * rates[s]
            out.append(value)
        return out

    def jacobian(exprs):
        return [[expr.diff(uj) for uj in us] for expr in exprs]

    def cross(a, b):
        return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0]]

    zero = se.Integer(0)
    mass_matrix = [[zero] * nu for _ in range(nu)]
    non_mass = [zero] * nu

    def add_body_part(jac, weight, momentum_rate):
        """``M += J^T W J`` and ``nonMM += J^T momentum_rate`` for the
        partial velocities ``J`` (3 x nu) and the 3x3 weight ``W`` (the
        mass times the identity, or the inertia matrix)."""
        weighted = [[sum((weight[i][k] * jac[k][s] for k in range(3)
                          if weight[i][k] != 0 and jac[k][s] != 0), zero)
                     for s in range(nu)] for i in range(3)]
        for r in range(nu):
            rows = [i for i in range(3) if jac[i][r] != 0]
            for i in rows:
                non_mass[r] += jac[i][r] * momentum_rate[i]
            for s in range(r, nu):
                value = sum((jac[i][r] * weighted[i][s] for i in rows
                             if weighted[i][s] != 0), zero)
                if value != 0:
                    mass_matrix[r][s] += value
                    if s != r:
                        mass_matrix[s][r] += value

    for body in kane.bodies:
        mass = body.mass
        if getattr(mass, 'free_symbols', set()) & set(plain):
            raise _Unsupported
        m = to_symengine([mass])[0]
        if isinstance(body, RigidBody):
            frames = [body.frame] + [d[1].args[0][1] for d in
                                     body.central_inertia.args
                                     if d[1].args]
            for E in frames:
                try:
                    w = components(body.frame.ang_vel_in(N), E)
                    v = components(body.masscenter.vel(N), E)
                    wE = components(E.ang_vel_in(N), E)
                    inertia = sm.Matrix(body.central_inertia.to_matrix(E))
                except _Unsupported:
                    continue
                break
            else:
                raise _Unsupported
            inertia = inertia.xreplace(qdot_map).xreplace(plain)
            I = [to_symengine(list(inertia.row(i))) for i in range(3)]
            H = [sum((I[i][k] * w[k] for k in range(3)), zero)
                 for i in range(3)]
            H_rate = [a + b for a, b in zip(rate(H), cross(wE, H))]
            add_body_part(jacobian(w), I, H_rate)
        else:
            E = _frame_of(body.masscenter.vel(N), N)
            v = components(body.masscenter.vel(N), E)
            wE = components(E.ang_vel_in(N), E)
        p_rate = [m * (a + b) for a, b in zip(rate(v), cross(wE, v))]
        add_body_part(jacobian(v), [[m if i == k else zero for k in
                                     range(3)] for i in range(3)], p_rate)

    active = [zero] * nu
    for load in _as_loads(list(kane.loads or [])):
        if isinstance(load, Force):
            E = _frame_of(load.force, N)
            jac = jacobian(components(load.point.vel(N), E))
            value = components(load.force, E)
        else:
            E = _frame_of(load.torque, N)
            jac = jacobian(components(load.frame.ang_vel_in(N), E))
            value = components(load.torque, E)
        for r in range(nu):
            for i in range(3):
                if jac[i][r] != 0 and value[i] != 0:
                    active[r] += jac[i][r] * value[i]
    forcing = [a - b for a, b in zip(active, non_mass)]
    return mass_matrix, forcing
