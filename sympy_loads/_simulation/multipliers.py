"""Private: the multipliers of the :class:`~sympy_loads.LoopJoint`\\ s of a
model, solved at a state from the unconstrained equations.

With dependent speeds the numeric model holds the *unconstrained*
equations ``M u' = F`` (every speed independent, see
:mod:`sympy_loads._equations`), and the motion satisfies

.. math::

   M \\dot{u} - F = B^T \\lambda

where ``B`` is the Jacobian, with respect to the speeds, of the velocity
rows of the loops' holonomic constraints (their time derivative, ``q'``
from the kinematic equations) and ``lambda`` the loops' multipliers
(:attr:`~sympy_loads.LoopJoint.multipliers`): the generalized constraint
force of a multiplier is its row of ``B`` times it, since each row's time
derivative is the component of the relative velocity (or angular
velocity) of the child that the multiplier's force (torque) acts along
(Kane and Levinson, "Dynamics: Theory and Applications", sec. 4.4,
noncontributing forces; the linearization of the model finds them the
same way). ``B`` is generated once per model and set of loops
(:meth:`NumericModel.derived`) as a function of the model's input vector.

At each evaluation ``lambda`` is the least-squares solution, then
checked: ``B`` must have full row rank (else the reaction is not
determined, the mechanism is statically indeterminate) and the residual
must be round-off (else the model has constraint forces that are not the
loops': a loop closed by hand, a nonholonomic constraint).
"""

import numpy as np
import sympy as sm
from sympy.physics.mechanics import dynamicsymbols

from .._errors import SimulationError
from .._numeric import eom_blocks
from .._numeric.codegen import CodegenError, generate
from .._joint_reactions import _loop_joints

__all__ = []

_TIME = dynamicsymbols._t

#: smallest singular value of ``B`` (its rows scaled to unit length, so
#: that force rows, in lengths, and torque rows, dimensionless, compare),
#: relative to its largest, below which the loops' rows count as dependent
#: (the reaction is not determined)
RANK_RATIO = 1e-9
#: largest residual of ``B^T lambda = M u' - F`` relative to the size of
#: the equations (``|M u'| + |F| + |M|``, maximum norms; the last is the
#: mass matrix times a unit acceleration) that counts as round-off
RESIDUAL_RATIO = 1e-7


def loop_multipliers(model):
    """``(loops, multipliers)``: the LoopJoints of ``model`` (a System;
    none for a KanesMethod) and their multipliers, in the order of
    ``model.joints`` and of each loop's rows."""
    loops = _loop_joints(model)
    symbols = [s for loop in loops for s in loop.multipliers]
    return loops, symbols


def _unit_rows(B):
    """``B`` (one matrix or a stack) with every row scaled to unit length
    (a zero row stays zero)."""
    norms = np.linalg.norm(B, axis=-1, keepdims=True)
    return B / np.where(norms > 0.0, norms, 1.0)


class LoopMultipliers:
    """``B`` of the LoopJoints ``loops`` of the numeric model ``nm`` and
    the solution of the multipliers at a state (see the module)."""

    def __init__(self, nm, loops):
        self.symbols = [s for loop in loops for s in loop.multipliers]
        # for the messages: 'D.Fx' per row
        self.rows = [f'{loop.name}.{label}' for loop in loops
                     for label in loop.labels]
        self.loop_names = [loop.name for loop in loops]
        self.nq, self.nu = len(nm.q), len(nm.u)
        self.blocks = eom_blocks(self.nq, self.nu, len(nm.u_dep_idx),
                                 nm.kinematics_is_identity)
        phi = sm.Matrix.vstack(*[sm.Matrix(loop.holonomic_constraints)
                                 for loop in loops])
        qdot = sm.Matrix([nm.kindiff[s.diff(_TIME)] for s in nm.q])
        rate = phi.jacobian(nm.q) * qdot + phi.diff(_TIME)
        B = rate.jacobian(nm.u)
        flat = [e.xreplace(nm._plain) for e in B]
        unknown = set().union(*(e.free_symbols for e in flat)) - set(
            nm.inputs())
        if unknown:
            raise ValueError(
                f'the holonomic constraints of the LoopJoints '
                f'{", ".join(self.loop_names)} contain '
                f'{", ".join(sorted(map(str, unknown)))}, '
                f'which the equations of motion do not; add the loops\' '
                f'constraints to the model (add_holonomic_constraints) '
                f'before form_eoms().')
        kind = 'llvm' if nm.backend == 'compiled' else 'numpy'
        try:
            self.jacobian = generate(nm.inputs(), flat, kind, 'multipliers')
        except CodegenError:
            self.jacobian = generate(nm.inputs(), flat, 'numpy',
                                     'multipliers')

    def solve(self, x, udot, eom):
        """``lambda`` at the input vector ``x`` with the accelerations
        ``udot``; ``eom`` is the model's ``eom`` function.
        :class:`SimulationError` where ``B`` loses rank or the residual is
        not round-off. (One sample: the relaxation of joint friction
        calls it at every iteration, so it avoids the batch's overhead.)"""
        _, mass, forcing, g0, _ = self.blocks
        nu = self.nu
        e = eom(x)
        M = e[mass:forcing].reshape(nu, nu)
        F = e[forcing:g0]
        Mud = M @ udot
        lhs = Mud - F
        B = self.jacobian(x).reshape(len(self.symbols), nu)
        sigma = np.linalg.svd(_unit_rows(B), compute_uv=False)
        if len(self.symbols) > nu or not sigma[-1] > RANK_RATIO * sigma[0]:
            raise SimulationError(self._rank_message(B, x[0]),
                                  time=float(x[0]))
        lam = np.linalg.solve(B @ B.T, B @ lhs)
        residual = np.max(np.abs(B.T @ lam - lhs), initial=0.0)
        scale = (np.max(np.abs(Mud), initial=0.0)
                 + np.max(np.abs(F), initial=0.0)
                 + np.max(np.abs(M), initial=0.0))
        if not residual <= RESIDUAL_RATIO * scale:
            raise self._unbalanced(residual, scale, x[0])
        return lam

    def solve_many(self, X, eom, vel=None, udot=None):
        """``(lambda, udot)`` at the input vectors ``X`` (one row per
        sample, evaluated as one batch): with the accelerations ``udot``,
        or without them those of the constrained equations, solved here
        from ``[[M, K^T], [K, 0]] [u', mu] = [F, -g]`` with the velocity
        constraints ``K`` of the model's ``vel`` function (no choice of
        dependent speeds needed). Checked as :meth:`solve`."""
        _, mass, forcing, g0, end = self.blocks
        nu, n = self.nu, len(X)
        E = np.asarray(eom(X), dtype=float).reshape(n, -1)
        M = E[:, mass:forcing].reshape(n, nu, nu)
        F = E[:, forcing:g0]
        if udot is None:
            m = end - g0
            K = np.asarray(vel(X), dtype=float).reshape(n, -1)[
                :, :m * nu].reshape(n, m, nu)
            A = np.zeros((n, nu + m, nu + m))
            A[:, :nu, :nu] = M
            A[:, :nu, nu:] = np.transpose(K, (0, 2, 1))
            A[:, nu:, :nu] = K
            rhs = np.concatenate([F, -E[:, g0:end]], axis=1)
            udot = np.linalg.solve(A, rhs[:, :, None])[:, :nu, 0]
        lhs = np.einsum('kij,kj->ki', M, udot) - F
        B = np.asarray(self.jacobian(X), dtype=float).reshape(
            n, len(self.symbols), nu)
        # one SVD of B with unit rows, B = D B_u, B_u = U S V^T (D the row
        # lengths), for the rank check and the least-squares solution of
        # B^T lambda = lhs: lambda = D^-1 U S^-1 V^T lhs
        lengths = np.linalg.norm(B, axis=-1)
        U, sigma, Vt = np.linalg.svd(_unit_rows(B), full_matrices=False)
        bad = ~(sigma[:, -1] > RANK_RATIO * sigma[:, 0])
        if len(self.symbols) > nu:      # more rows than speeds
            bad[:] = True
        if bad.any():
            k = int(np.argmax(bad))
            raise SimulationError(self._rank_message(B[k], X[k, 0]),
                                  time=float(X[k, 0]))
        lam = np.einsum('kij,kj->ki', U, np.einsum(
            'kij,kj->ki', Vt, lhs) / sigma) / lengths
        residual = np.max(np.abs(np.einsum('kji,kj->ki', B, lam) - lhs),
                          axis=1, initial=0.0)
        # (the mass matrix times a unit acceleration: at rest without loads
        # every term is round-off, and so is the residual)
        scale = (np.max(np.abs(lhs + F), axis=1, initial=0.0)
                 + np.max(np.abs(F), axis=1, initial=0.0)
                 + np.max(np.abs(M), axis=(1, 2), initial=0.0))
        bad = ~(residual <= RESIDUAL_RATIO * scale)
        if bad.any():
            k = int(np.argmax(bad))
            raise self._unbalanced(residual[k], scale[k], X[k, 0])
        return lam, udot

    def _unbalanced(self, residual, scale, t):
        """The error of a residual that is not round-off."""
        t = float(t)
        return SimulationError(
            f'the multipliers of the LoopJoints '
            f'{", ".join(self.loop_names)} do not balance the equations '
            f'of motion at t = {t:.10g} (residual {residual:.3g} of '
            f'{scale:.3g}): the model has constraint forces that are '
            f'not its LoopJoints\' (a loop closed by hand with '
            f'add_holonomic_constraints, a nonholonomic constraint); '
            f'close every loop with a LoopJoint to have its reaction.',
            time=t)

    def _rank_message(self, B, t):
        n = len(self.symbols)
        U, sigma, _ = np.linalg.svd(_unit_rows(B), full_matrices=True)
        rank = int(np.sum(sigma > RANK_RATIO * sigma[0])) if len(sigma) \
            else 0
        # the combinations of rows that B^T maps to nothing
        null = U[:, rank:n]
        weight = np.max(np.abs(null), axis=1) if null.size else np.ones(n)
        rows = [r for r, w in zip(self.rows, weight) if w > 1e-8]
        t = float(t)
        return (f'the reactions of the LoopJoints '
                f'{", ".join(self.loop_names)} are not determined at t = '
                f'{t:.10g}: the rows {", ".join(rows)} of their '
                f'constraints are dependent (rank {rank} of {n}), so the '
                f'mechanism is statically indeterminate and no unique '
                f'multipliers exist. Remove the redundant rows (a LoopJoint '
                f'of a kind that constrains less, e.g. spherical instead of '
                f'pin).')
