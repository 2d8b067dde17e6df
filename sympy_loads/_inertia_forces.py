r"""Generalized inertia forces :math:`F_r^*`: the implementation of
:func:`~sympy_loads.generalized_inertia_forces` and its private helpers
(inertia loads of particles and rigid bodies, time derivatives and
accelerations with kinematic substitutions).

Private module: the public function is documented in, and imported from,
:mod:`sympy_loads.generalized_forces` (or the package ``sympy_loads``).
"""

from collections.abc import Iterable

import sympy as sm
from sympy.physics.mechanics import Particle, RigidBody, dynamicsymbols
from sympy.physics.vector import Vector
from sympy.physics.vector.frame import CoordinateSym

from ._partials import _measure_in, _project, _setup, _substitute
from ._utils import _check_type

__all__ = ['generalized_inertia_forces']


def _explicit_accelerations(point, frame):
    """Return the acceleration of ``point`` and the angular acceleration of
    its frame set explicitly with ``set_acc``/``set_ang_acc``, or None.

    SymPy keeps these in the private dicts ``Point._acc_dict`` and
    ``ReferenceFrame._ang_acc_dict``; ``Point.acc`` and
    ``ReferenceFrame.ang_acc_in`` otherwise differentiate the velocity. This
    is the only place the private attributes are read.
    """
    return getattr(point, '_acc_dict', {}).get(frame)


def _explicit_angular_acceleration(body_frame, frame):
    """See :func:`_explicit_accelerations` (reads ``_ang_acc_dict``)."""
    return getattr(body_frame, '_ang_acc_dict', {}).get(frame)


class _Kinematics:
    """Time derivatives in ``frame`` with the angular velocity of every
    component frame expressed in that frame once (cached)."""

    def __init__(self, frame, replacements):
        self.frame = frame
        self.replacements = replacements
        self._omega = {}

    def omega(self, component_frame):
        """^N omega^F as measure numbers in F (kinematic substitutions
        applied)."""
        if component_frame not in self._omega:
            omega = _substitute(component_frame.ang_vel_in(self.frame),
                                self.replacements)
            self._omega[component_frame] = sm.Matrix(
                _measure_in(omega, component_frame))
        return self._omega[component_frame]

    def dt(self, vector):
        """The time derivative of ``vector`` in ``frame`` (what
        ``Vector.dt`` computes: d/dt of each component's measure numbers
        plus omega^F x measure, here with omega^F expressed in F)."""
        if vector == 0:
            return Vector(0)
        if any(isinstance(symbol, CoordinateSym)
               for measure, _ in vector.args
               for symbol in measure.free_symbols):
            return _substitute(vector.dt(self.frame), self.replacements)
        t = dynamicsymbols._t
        components = []
        for measure, component_frame in vector.args:
            derivative = measure.diff(t)
            if component_frame != self.frame:
                omega = self.omega(component_frame)
                if any(omega):
                    derivative += omega.cross(measure)
            components.append((derivative, component_frame))
        return _substitute(Vector(components), self.replacements)

    def acceleration(self, point):
        acc = _explicit_accelerations(point, self.frame)
        if acc is None:
            vel = _substitute(point.vel(self.frame), self.replacements)
            return self.dt(vel)
        return _substitute(acc, self.replacements)

    def angular_acceleration(self, body_frame):
        alpha = _explicit_angular_acceleration(body_frame, self.frame)
        if alpha is None:
            return self.dt(self.omega_vector(body_frame))
        return _substitute(alpha, self.replacements)

    def omega_vector(self, body_frame):
        return _substitute(body_frame.ang_vel_in(self.frame),
                           self.replacements)


def _inertia_loads(body, kinematics):
    """Return [(mass center, R*), (body frame, T*)] of a Particle or
    RigidBody with R* = -m a and T* = -(alpha . I + omega x I . omega); T*
    is formed from measure numbers in the body frame."""
    if not isinstance(body, (Particle, RigidBody)):
        raise TypeError(f'bodies: {body!r} is not a Particle or RigidBody.')
    point = body.masscenter
    loads = [(point, -body.mass * kinematics.acceleration(point))]
    if isinstance(body, RigidBody):
        B = body.frame
        F = _expression_frame(body)
        omega = sm.Matrix(_measure_in(kinematics.omega_vector(B), F))
        alpha = sm.Matrix(_measure_in(kinematics.angular_acceleration(B), F))
        inertia = body.central_inertia.to_matrix(F)
        torque = -(inertia.T * alpha + omega.cross(inertia * omega))
        if F != B:
            # d(I . omega)/dt in N = I . alpha + (dI/dt in B) . omega
            # + omega x I . omega; the middle term vanishes when I is
            # constant in B (as KanesMethod, which also keeps it).
            rate = _substitute(body.central_inertia.dt(B),
                               kinematics.replacements)
            if rate != 0:
                torque -= rate.to_matrix(F) * omega
        loads.append((B, Vector([(torque, F)])))
    return loads


def _expression_frame(body):
    """The frame whose measure numbers express the inertia torque of the
    rigid ``body``: its own frame when it is oriented relative to the frame
    its central inertia is given in, else that frame.

    A body frame may have only an angular velocity and no orientation (the
    wheels of SymPy's Whipple bicycle: ``WR.set_ang_vel(C, u3*C.y)``, their
    spin angle ignorable); ``KanesMethod`` accepts it, working with vectors
    and dyadics, which need angular velocities only. Measure numbers in the
    inertia's frame need no orientation of the body frame either.
    """
    B = body.frame
    frames = [B] + [frame for _, first, second in body.central_inertia.args
                    for frame in (first.args[0][1], second.args[0][1])]
    for frame in dict.fromkeys(frames):
        try:
            body.central_inertia.to_matrix(frame)
        except ValueError:         # no orientation path
            continue
        return frame
    raise ValueError(
        f'bodies: the central inertia of {body} is given in frames that '
        f'are not oriented relative to each other.')


def generalized_inertia_forces(bodies, speeds, frame, *,
                               dependent_speeds=None,
                               velocity_constraints=None,
                               kinematic_substitutions=None):
    r"""Return the generalized inertia forces :math:`F_r^*` of ``bodies``.

    Explanation
    ===========

    For a particle of mass m, :math:`(F_r^*)_P = \bar{v}^P_r \cdot
    \bar{R}^*` with :math:`\bar{R}^* = -m\,{}^N\bar{a}^P`; for a rigid body
    B with mass center :math:`B_o` and central inertia dyadic
    :math:`\breve{I}` [Moore]_:

    .. math::

       (F_r^*)_B = \bar{v}^{B_o}_r \cdot \bar{R}^*
                 + \bar{\omega}^B_r \cdot \bar{T}^*, \quad
       \bar{T}^* = -\left(\bar{\alpha}^B \cdot \breve{I}
                 + \bar{\omega}^B \times \breve{I} \cdot \bar{\omega}^B
                 \right)

    Masses and central inertias are taken as constant. The accelerations
    come from ``Point.acc`` and ``ReferenceFrame.ang_acc_in``; with
    ``kinematic_substitutions`` their :math:`\ddot{q}` and :math:`\dot{q}`
    are replaced by expressions in :math:`u` and :math:`\dot{u}`. With
    dependent speeds :math:`\tilde{F}_r^* = F_r^* + \sum_s F_s^* A_{sr}` is
    returned [Kane1985]_ (the dependent speeds and their derivatives are
    kept, as in ``KanesMethod``).

    Examples
    ========

    A particle of mass m on a string of length L swinging about O.

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import (Particle, Point, ReferenceFrame,
    ...                                      dynamicsymbols)
    >>> from sympy.physics.vector import vprint
    >>> from sympy_loads import generalized_inertia_forces
    >>> q, u = dynamicsymbols('q, u')
    >>> m, L = symbols('m, L')
    >>> N, A = ReferenceFrame('N'), ReferenceFrame('A')
    >>> A.orient_axis(N, q, N.z)
    >>> A.set_ang_vel(N, u*N.z)
    >>> O = Point('O')
    >>> O.set_vel(N, 0)
    >>> P = O.locatenew('P', -L*A.y)
    >>> _ = P.v2pt_theory(O, N, A)
    >>> vprint(generalized_inertia_forces([Particle('P', P, m)], [u], N))
    Matrix([[-L**2*m*u']])

    Parameters
    ==========

    bodies : iterable of Particle or RigidBody
        The bodies of the system.
    speeds, frame, dependent_speeds, velocity_constraints, kinematic_substitutions
        As in :func:`generalized_active_forces`.

    Returns
    =======

    Matrix
        Column of :math:`F_r^*` (or :math:`\tilde{F}_r^*`), not simplified.

    Raises
    ======

    TypeError
        If an item of ``bodies`` is not a Particle or RigidBody.
    ValueError
        As in :func:`generalized_active_forces`.

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Generalized Forces",
       section "Generalized Inertia Forces".
       https://moorepants.github.io/learn-multibody-dynamics/
    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, 1985, sec. 4.11. https://hdl.handle.net/1813/638
    """
    partials = _setup(speeds, frame, dependent_speeds, velocity_constraints,
                      kinematic_substitutions)
    if isinstance(bodies, (Particle, RigidBody)):
        bodies = [bodies]
    _check_type('bodies', bodies, Iterable, 'iterable of Particle or '
                'RigidBody')
    kinematics = _Kinematics(frame, partials.replacements)
    groups = []
    for body in bodies:
        groups.extend(_inertia_loads(body, kinematics))
    return _project(partials, groups)
