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
in body components for it). Each entry is a sum of products of the
kinematic quantities, which code generation evaluates once each: the
cost of an evaluation is that of the sums, about ``3 n^2`` products per
body for ``M``.

References
==========

.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, McGraw-Hill, 1985, sec. 4.11 (generalized inertia
   forces) and 4.1 (generalized active forces).
   https://hdl.handle.net/1813/638
"""

import symengine as se
import sympy as sm
from sympy.physics.mechanics import Force, RigidBody, dynamicsymbols

from .._numeric.codegen import to_symengine
from .._utils import _as_loads
from .kinematics import TreeKinematics, cross, dot, mat_vec

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
        from .tree import frame_parents, point_parents
        parts = []
        frames = frame_parents(self.frame)
        for child, parent in frames.items():
            if parent is not None:
                parts.append(sm.Matrix(parent.dcm(child)))
                parts += [m for m, _ in child.ang_vel_in(parent).args]
        points = self._points()
        for point, parent in point_parents(points, self.frame).items():
            vector = (point.vel(self.frame) if parent is None
                      else point.pos_from(parent))
            parts += [m for m, _ in vector.args]
        return parts

    def _points(self):
        points = [body.masscenter for body in self.bodies]
        points += [load.point for load in self.loads
                   if isinstance(load, Force)]
        return points

    def equations(self, plain, zero):
        """``(M, F)``: rows of ``M`` (lists) and ``F`` (list), SymEngine
        expressions of the plain symbols ``plain``, with the functions of
        time in ``zero`` set to zero."""
        kinematics = self._kinematics(plain, zero)
        n = len(self.u)
        mass = [[[] for _ in range(n)] for _ in range(n)]
        forcing = [[] for _ in range(n)]
        for body in self.bodies:
            self._add_body(kinematics, body, mass, forcing, plain, zero)
        for load in self.loads:
            if isinstance(load, Force):
                V = kinematics.point_motion(load.point).V
                vector = kinematics.vector(load.force, f'the force on '
                                           f'{load.point}')
            else:
                V = kinematics.frame_motion(load.frame).V
                vector = kinematics.vector(load.torque, f'the torque on '
                                           f'{load.frame}')
            for r, partial in V.items():
                forcing[r].append(dot(partial, vector))
        M = [[se.Add(*entry) for entry in row] for row in mass]
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

    def _add_body(self, kinematics, body, mass, forcing, plain, zero):
        m_sym = sm.sympify(body.mass)
        if m_sym.free_symbols & set(plain) or m_sym.has(
                *[s for s in plain if isinstance(s, sm.Function)]):
            raise ValueError(f'model: the mass of {body} varies; the '
                             f'assembled equations need a constant mass '
                             f'(call form_eoms() for this model).')
        m = to_symengine([m_sym])[0]
        point = kinematics.point_motion(body.masscenter)
        self._add_inertia(mass, forcing, point.V,
                          lambda x: [m * e for e in x],
                          [m * e for e in point.a])
        if isinstance(body, RigidBody):
            rotation = kinematics.rotation(body.frame)
            motion = kinematics.frame_motion(body.frame)
            inertia = kinematics._local(
                body.central_inertia.to_matrix(body.frame))
            I = [inertia[3 * i:3 * i + 3] for i in range(3)]
            w = _transpose_times(rotation, motion.v)
            alpha = _transpose_times(rotation, motion.a)
            W = {j: _transpose_times(rotation, v)
                 for j, v in motion.V.items()}
            Iw = mat_vec(I, w)
            rate = [x + y for x, y in zip(mat_vec(I, alpha), cross(w, Iw))]
            self._add_inertia(mass, forcing, W, lambda x: mat_vec(I, x),
                              rate)

    @staticmethod
    def _add_inertia(mass, forcing, V, weight, rate):
        """``M += V^T weight(V)``, ``F -= V^T rate``."""
        weighted = {j: weight(v) for j, v in V.items()}
        rate_terms = rate
        for r, Vr in V.items():
            forcing[r].append(-dot(Vr, rate_terms))
            for s, Ws in weighted.items():
                if s >= r:
                    value = dot(Vr, Ws)
                    mass[r][s].append(value)
                    if s != r:
                        mass[s][r].append(value)
