r"""Joint reaction forces and Coulomb friction in joints driven by them.

Kane's method eliminates the forces a joint transmits (they are
noncontributing), so a friction law whose magnitude is a coefficient times
the joint's normal or radial load needs the reaction recovered first. This
module does that for SymPy's ``PinJoint``, ``PrismaticJoint``,
``CylindricalJoint`` and ``SphericalJoint``:

* :func:`joint_reactions` gives the force and torque the parent exerts on the
  child through the joint, symbolically, as functions of the state, the
  accelerations and the applied loads, resolved in the joint frame;
* :class:`JointFriction` is an actuator whose friction force/torque
  magnitudes are unknown ``dynamicsymbols``; :meth:`JointFriction.prepare`
  generates the numeric function giving them from the reaction, and
  ``simulate(..., joint_friction=[...])`` resolves the loop by relaxation, as
  the course notes "Three-Dimensional Generalized Forces" prescribe
  [Notes3D]_.

References
==========

.. [Notes3D] "Three-Dimensional Generalized Forces", course notes, sections
   "Axial Coulomb friction in cylindrical or prismatic joints", "Torsional
   Coulomb friction in revolute or cylindrical joints" and "Torsional Coulomb
   friction in spherical joint".
.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and Applications,
   McGraw-Hill, 1985, sec. 5.9 "Bringing noncontributing forces into
   evidence" (auxiliary generalized speeds). https://hdl.handle.net/1813/638
"""

import numpy as np
import sympy as sm
from sympy.physics.mechanics import (CylindricalJoint, Force, PinJoint,
                                     PrismaticJoint, SphericalJoint, Torque,
                                     dynamicsymbols)
from sympy.physics.mechanics.actuator import ActuatorBase
from sympy.physics.vector import Vector
from sympy.physics.mechanics import find_dynamicsymbols

from ._utils import (_equals, _is_default, _lambdify, _nonzero_norm,
                     _random_dependence, _set_once, _sympify_scalar,
                     euclidean_norm)
from .friction import _check_sign_method, _sign_over_speed, smooth_sign
# joint_reactions and JointReaction are implemented in ._joint_reactions and
# re-exported here.
from ._joint_reactions import (JointReaction, _is_loop_joint, _joint_kind,
                               _loop_joints, _model_parts, joint_reactions)

__all__ = ['joint_reactions', 'JointReaction', 'JointFriction']


def _friction_magnitudes(kind, force, omega, params, backend):
    """Friction magnitudes from the reaction force components ``force`` (in
    the joint frame) per the course notes "Three-Dimensional Generalized
    Forces"; ``omega`` are the components of the
    relative angular velocity in the same frame (spherical joint only).
    ``backend`` is ``sympy`` or ``numpy``."""
    mu, radius, end_mu, end_radius, alpha, preload = params
    sqrt, absolute = ((sm.sqrt, sm.Abs) if backend is sm
                      else (np.sqrt, np.abs))
    fx, fy, fz = force
    if kind is SphericalJoint:
        w2 = sum(w**2 for w in omega)
        f2 = fx**2 + fy**2 + fz**2
        if backend is sm:
            # Zero relative rotation: no axis, all load radial (0, not 0/0).
            axial = ((fx * omega[0] + fy * omega[1] + fz * omega[2])
                     / _nonzero_norm(euclidean_norm(*omega)))
            radial = sqrt(sm.Max(f2 - axial**2, 0))
        else:
            moving = w2 > 0
            wn = np.sqrt(np.where(moving, w2, 1.0))
            axial = np.where(moving, (fx * omega[0] + fy * omega[1]
                                      + fz * omega[2]) / wn, 0.0)
            radial = np.sqrt(np.maximum(f2 - axial**2, 0.0))
        return [mu * radius * (radial + alpha * absolute(axial) + preload)]
    normal = sqrt(fx**2 + fy**2) + preload
    if kind is PrismaticJoint:
        return [mu * normal]
    if kind is CylindricalJoint:
        return [mu * normal, mu * radius * normal]
    return [mu * radius * normal + end_mu * end_radius * absolute(fz)]


class JointFriction(ActuatorBase):
    r"""Coulomb friction in a joint, proportional to the joint's reaction.

    Explanation
    ===========

    The friction magnitudes follow the course notes "Three-Dimensional
    Generalized Forces" [Notes3D]_, with the reaction force
    :math:`(F_x, F_y, F_z)` on the child resolved in the joint frame
    (:math:`z` along the joint axis, see :func:`joint_reactions`) and
    :math:`F_p` an optional preload (a normal force, e.g. from a bearing
    fit):

    ================  ==================================================
    joint             friction force :math:`f` or torque :math:`T`
    ================  ==================================================
    PrismaticJoint    :math:`f = \mu (\sqrt{F_x^2 + F_y^2} + F_p)`
    PinJoint          :math:`T = \mu R (\sqrt{F_x^2 + F_y^2} + F_p)
                      + \mu_{end} R_{end} |F_z|` (thrust face)
    CylindricalJoint  :math:`f = \mu (\sqrt{F_x^2 + F_y^2} + F_p)`,
                      :math:`T = \mu R (\sqrt{F_x^2 + F_y^2} + F_p)`
    SphericalJoint    :math:`T = \mu R (F_{radial} + \alpha |F_{axial}|
                      + F_p)` with :math:`F_{axial} = \hat{u} \cdot
                      \bar{F}`, :math:`F_{radial} = \sqrt{|\bar{F}|^2 -
                      F_{axial}^2}`, :math:`\hat{u} = \bar{\omega}_{rel} /
                      |\bar{\omega}_{rel}|`
    ================  ==================================================

    Only the reaction *forces* enter, as in the course notes: the transverse
    reaction moments of prismatic and cylindrical joints (which a long
    guide carries as edge loads) are computed by :func:`joint_reactions`
    but not turned into friction; add them to the preload if they matter.

    The magnitudes :math:`f` and :math:`T` are the unknown
    ``dynamicsymbols`` in :attr:`symbols`, because the reaction itself
    depends on the friction. The loads oppose the relative motion of the
    child with respect to the parent, using the sign :math:`s` of
    :func:`~sympy_loads.smooth_sign` of the joint speed. With
    :math:`\hat{a}` the unit joint axis (the child moves at
    :math:`v \hat{a}` and rotates at :math:`w \hat{a}` relative to the
    parent), the child takes the force :math:`\bar{F}` at ``child_point``
    and the torque :math:`\bar{T}` on ``child.frame``, the parent
    :math:`-\bar{F}` at ``parent_point`` and :math:`-\bar{T}` on
    ``parent.frame``:

    .. math::

       \bar{F} = -f \, s(v) \, \hat{a}, \qquad
       \bar{T} = -T \, s(w) \, \hat{a}

    with :math:`v` the translation speed and :math:`w` the rotation speed of
    the joint (its generalized speeds). For a spherical joint the torque on
    the child is
    :math:`-T \, s(|\bar{\omega}_{rel}|) \,
    \bar{\omega}_{rel}/|\bar{\omega}_{rel}|`, :math:`\bar{\omega}_{rel}` the
    angular velocity of the child interframe in the parent interframe,
    written so that it is zero, not :math:`0/0`, at rest. The friction
    powers are :math:`-f \, s(v) \, v \le 0` and
    :math:`-T \, s(w) \, w \le 0`: friction never adds energy.

    With the exact sign (``regularization`` 0, the default) a joint
    sticks: ``simulate()`` integrates the motion in phases in which each
    prismatic, pin or cylindrical joint speed either slips in one direction
    or stays exactly zero, held by the friction force or torque :math:`h`
    that keeps it so. A joint whose speed reaches zero sticks if
    :math:`|h|` is within the friction limit and otherwise turns (the end
    of a swing); a sticking joint breaks away when :math:`|h|` reaches the
    limit [Pfeiffer1996]_, as in the stick-slip friction of Adams and
    Chrono. While it
    sticks its symbol gives :math:`h` (signed: the child takes
    :math:`-h \hat{a}`) rather than the limit. A ``regularization``
    :math:`\varepsilon > 0` replaces sticking by creep at speeds of order
    :math:`\varepsilon`. A spherical joint's friction is not switched,
    and no friction is in a run with impacts or backward in time: where
    such a joint would stick, the run stops with a ``SimulationError``
    that says so (a ``regularization`` then follows the motion).

    Since the reaction depends on :math:`f` and :math:`T`,
    ``simulate(..., joint_friction=[...])`` resolves the loop at every
    evaluation by relaxation starting from zero friction, as in the course
    notes;
    :meth:`prepare` gives it the numeric map from
    :math:`(q, u, \dot{u}, t)` to the magnitudes. In a ``System`` closed
    by a :class:`~sympy_loads.LoopJoint` the joint is one of the tree
    joints (not the ``LoopJoint``: TypeError); its reaction contains the
    loop's multipliers, which ``simulate()`` solves within the relaxation
    from the equations of motion with the current friction, and the
    stick-slip is the same (a joint whose speed is zero only through the
    geometry, such as a piston at a dead centre, where its friction cannot
    act on the motion, turns instead of sticking). Add the actuator to the
    model like any other (``System.add_actuators``, or its ``to_loads()``
    in the loads of a ``KanesMethod``). Units: :math:`f` is a force,
    :math:`T` a torque, :math:`R` a length.

    Examples
    ========

    >>> import sympy as sm
    >>> from sympy.physics.mechanics import PrismaticJoint, RigidBody
    >>> from sympy_loads import JointFriction
    >>> ground, block = RigidBody('ground'), RigidBody('block')
    >>> slider = PrismaticJoint('s', ground, block, joint_axis=ground.x)
    >>> friction = JointFriction(slider, coefficient=sm.Symbol('mu'))
    >>> friction
    JointFriction(PrismaticJoint: s  parent: ground  child: block, coefficient=mu)
    >>> friction.symbols
    (F_s_friction(t),)
    >>> friction.to_loads()
    [Force(point=block_masscenter, force=- F_s_friction(t)*sign(u_s(t))*ground_frame.x), Force(point=ground_masscenter, force=F_s_friction(t)*sign(u_s(t))*ground_frame.x)]

    Parameters
    ==========

    joint : PinJoint, PrismaticJoint, CylindricalJoint or SphericalJoint
    coefficient : sympifiable
        Coefficient of friction :math:`\mu` (nonnegative).
    radius : sympifiable, optional
        Friction radius :math:`R` of a pin, cylindrical or spherical joint
        (positive; required for those, not accepted for a prismatic joint).
    end_coefficient, end_radius : sympifiable, optional
        :math:`\mu_{end}` and :math:`R_{end}` of the thrust face of a pin
        joint (default 0: no thrust face).
    alpha : sympifiable, optional
        Weight :math:`\alpha` of the axial load of a spherical joint,
        :math:`0 \le \alpha \le 1` (default 1: axial and radial loads count
        alike).
    preload : sympifiable, optional
        Normal force :math:`F_p` added to the reaction (nonnegative,
        default 0).
    regularization : sympifiable, optional
        Regularization speed of :func:`~sympy_loads.smooth_sign` (default 0:
        exact sign).
    sign_method : str, optional
        Smooth sign used when ``regularization`` is not zero: the
        ``method`` of :func:`~sympy_loads.smooth_sign` (default
        ``'tanh'``).

    Raises
    ======

    TypeError
        If ``joint`` is not one of the four joint types (a ``LoopJoint``
        included: put the friction on a tree joint of the loop) or a
        parameter is not a scalar.
    ValueError
        If a parameter has the wrong sign, ``radius`` is missing or not
        applicable, or ``sign_method`` is unknown.

    References
    ==========

    .. [Notes3D] "Three-Dimensional Generalized Forces", course notes,
       "Axial Coulomb friction in cylindrical or prismatic joints",
       "Torsional Coulomb friction in revolute or cylindrical joints",
       "Torsional Coulomb friction in spherical joint".
    .. [Pfeiffer1996] F. Pfeiffer, C. Glocker, Multibody Dynamics with
       Unilateral Contacts, Wiley, 1996 (stick-slip transitions as
       events).
    """

    def __init__(self, joint, *, coefficient, radius=None, end_coefficient=0,
                 end_radius=0, alpha=1, preload=0, regularization=0,
                 sign_method='tanh'):
        if _is_loop_joint(joint):
            raise TypeError(
                f'joint: JointFriction in the LoopJoint {joint.name} is not '
                f'supported; put the friction on a tree joint of the loop '
                f'(a PinJoint, PrismaticJoint, CylindricalJoint or '
                f'SphericalJoint): its reaction contains the loop\'s '
                f'multipliers, and simulate() resolves it.')
        kind = _joint_kind(joint)
        _set_once(self, 'joint', joint)
        self._kind = kind
        _set_once(self, 'coefficient', _sympify_scalar(
            'coefficient', coefficient, nonnegative=True))
        if kind is PrismaticJoint:
            if radius is not None:
                raise ValueError('radius does not apply to a PrismaticJoint '
                                 '(axial friction only).')
        elif radius is None:
            raise ValueError(f'radius (the friction radius R) is required '
                             f'for a {kind.__name__}.')
        else:
            radius = _sympify_scalar('radius', radius, positive=True)
        _set_once(self, 'radius', radius)
        end_coefficient = _sympify_scalar('end_coefficient', end_coefficient,
                                          nonnegative=True)
        end_radius = _sympify_scalar('end_radius', end_radius,
                                     nonnegative=True)
        if kind is not PinJoint and not (_equals(end_coefficient, 0)
                                         and _equals(end_radius, 0)):
            raise ValueError('end_coefficient and end_radius (a thrust face) '
                             'apply to a PinJoint only.')
        _set_once(self, 'end_coefficient', end_coefficient)
        _set_once(self, 'end_radius', end_radius)
        alpha = _sympify_scalar('alpha', alpha, nonnegative=True)
        if (alpha - 1).is_positive:
            raise ValueError(f'alpha must be at most 1, got {alpha}.')
        if kind is not SphericalJoint and not _equals(alpha, 1):
            raise ValueError('alpha applies to a SphericalJoint only.')
        _set_once(self, 'alpha', alpha)
        _set_once(self, 'preload', _sympify_scalar('preload', preload,
                                                   nonnegative=True))
        _set_once(self, 'regularization', _sympify_scalar(
            'regularization', regularization, nonnegative=True))
        _set_once(self, 'sign_method', _check_sign_method(sign_method))
        name = joint.name
        if kind is PrismaticJoint:
            names = [f'F_{name}_friction']
        elif kind is CylindricalJoint:
            names = [f'F_{name}_friction', f'T_{name}_friction']
        else:
            names = [f'T_{name}_friction']
        self._symbols = tuple(dynamicsymbols(n) for n in names)

    joint = property(lambda self: self._joint, doc='The joint.')
    coefficient = property(lambda self: self._coefficient,
                           doc=r'Coefficient of friction :math:`\mu`.')
    radius = property(lambda self: self._radius,
                      doc='Friction radius :math:`R` (None for a '
                          'prismatic joint).')
    end_coefficient = property(lambda self: self._end_coefficient,
                               doc=r'Thrust-face coefficient '
                                   r':math:`\mu_{end}`.')
    end_radius = property(lambda self: self._end_radius,
                          doc='Thrust-face radius :math:`R_{end}`.')
    alpha = property(lambda self: self._alpha,
                     doc=r'Weight :math:`\alpha` of the axial load '
                         '(spherical joint).')
    preload = property(lambda self: self._preload,
                       doc='Preload normal force :math:`F_p`.')
    regularization = property(lambda self: self._regularization,
                              doc='Regularization speed of the sign.')
    sign_method = property(lambda self: self._sign_method,
                           doc='Smooth sign used for the speed.')

    @property
    def symbols(self):
        """Tuple of the unknown friction magnitudes (dynamicsymbols) in the
        loads: ``(f,)`` prismatic, ``(T,)`` pin or spherical, ``(f, T)``
        cylindrical."""
        return self._symbols

    def __repr__(self):
        args = [str(self.joint), f'coefficient={self.coefficient}']
        defaults = [('radius', None), ('end_coefficient', 0),
                    ('end_radius', 0), ('alpha', 1), ('preload', 0),
                    ('regularization', 0), ('sign_method', 'tanh')]
        for attr, default in defaults:
            value = getattr(self, attr)
            if not _is_default(value, default):
                args.append(f'{attr}={value!r}' if attr == 'sign_method'
                            else f'{attr}={value}')
        return f'{type(self).__name__}({", ".join(args)})'

    def _sign(self, speed):
        return smooth_sign(speed, self.regularization, self.sign_method)

    def _axis(self):
        return self.joint.joint_axis.normalize()

    def relative_angular_velocity(self):
        """Angular velocity of the child interframe in the parent interframe
        (a Vector in the joint speeds).

        Examples
        ========

        >>> from sympy.physics.mechanics import PinJoint, RigidBody
        >>> from sympy_loads import JointFriction
        >>> a, b = RigidBody('a'), RigidBody('b')
        >>> pin = PinJoint('p', a, b, joint_axis=a.z)
        >>> JointFriction(pin, coefficient=0.1,
        ...               radius=0.02).relative_angular_velocity()
        u_p(t)*a_frame.z
        """
        j = self.joint
        return j.child_interframe.ang_vel_in(j.parent_interframe)

    def to_loads(self):
        """Return the friction loads on the child and the parent.

        Examples
        ========

        >>> import sympy as sm
        >>> from sympy.physics.mechanics import PinJoint, RigidBody
        >>> from sympy_loads import JointFriction
        >>> a, b = RigidBody('a'), RigidBody('b')
        >>> pin = PinJoint('p', a, b, joint_axis=a.z)
        >>> JointFriction(pin, coefficient=0.1, radius=0.02,
        ...               regularization=0.01).to_loads()
        [Torque(frame=b_frame, torque=- T_p_friction(t)*tanh(100.0*u_p(t))*a_frame.z), Torque(frame=a_frame, torque=T_p_friction(t)*tanh(100.0*u_p(t))*a_frame.z)]
        """
        j = self.joint
        kind = self._kind
        loads = []
        if kind in (PrismaticJoint, CylindricalJoint):
            v = (j.speeds[0] if kind is PrismaticJoint
                 else j.translation_speed)
            force = -self._symbols[0] * self._sign(v) * self._axis()
            loads += [Force(j.child_point, force),
                      Force(j.parent_point, -force)]
        if kind in (PinJoint, CylindricalJoint):
            w = j.speeds[0] if kind is PinJoint else j.rotation_speed
            torque = -self._symbols[-1] * self._sign(w) * self._axis()
            loads += [Torque(j.child.frame, torque),
                      Torque(j.parent.frame, -torque)]
        if kind is SphericalJoint:
            omega = self.relative_angular_velocity()
            ci = j.child_interframe
            wm = omega.to_matrix(ci)
            norm = euclidean_norm(*wm)
            # s(|w|) w/|w|, finite (0) at rest with its derivative
            direction = _sign_over_speed(norm, self.regularization,
                                         self.sign_method)
            torque = -self._symbols[0] * direction * sum(
                (c * e for c, e in zip(wm, ci)), Vector(0))
            loads += [Torque(j.child.frame, torque),
                      Torque(j.parent.frame, -torque)]
        return loads

    def _stick_slip_speeds(self):
        """``(symbol, joint speed)`` pairs of the friction that uses the
        exact sign of one joint speed (``simulate()`` integrates their
        stick-slip), none for regularized or spherical-joint friction."""
        if not self.regularization.is_zero or self._kind is SphericalJoint:
            return []
        j = self.joint
        if self._kind is PrismaticJoint:
            speeds = [j.speeds[0]]
        elif self._kind is PinJoint:
            speeds = [j.speeds[0]]
        else:
            speeds = [j.translation_speed, j.rotation_speed]
        return list(zip(self._symbols, speeds))

    def _params(self):
        return (self.coefficient,
                0 if self.radius is None else self.radius,
                self.end_coefficient, self.end_radius, self.alpha,
                self.preload)

    def magnitudes(self, model, **options):
        """Return the friction magnitudes (a Matrix matching :attr:`symbols`)
        as expressions of the reaction of :func:`joint_reactions` (options are
        passed to it).

        Examples
        ========

        >>> import sympy as sm
        >>> from sympy.physics.mechanics import (PrismaticJoint, RigidBody,
        ...     System)
        >>> from sympy_loads import JointFriction
        >>> m, g, mu = sm.symbols('m g mu', positive=True)
        >>> ground, block = RigidBody('ground'), RigidBody('block', mass=m)
        >>> slider = PrismaticJoint('s', ground, block, joint_axis=ground.x)
        >>> friction = JointFriction(slider, coefficient=mu)
        >>> system = System.from_newtonian(ground)
        >>> system.add_bodies(block); system.add_joints(slider)
        >>> system.add_actuators(friction)
        >>> system.apply_uniform_gravity(-g * ground.y)
        >>> friction.magnitudes(system)
        Matrix([[g*m*mu]])
        """
        reaction = joint_reactions(self.joint, model, **options)
        force = list(reaction.force_components)
        omega = (list(self.relative_angular_velocity().to_matrix(
            self.joint.child_interframe))
            if self._kind is SphericalJoint else None)
        return sm.Matrix(_friction_magnitudes(
            self._kind, force, omega, self._params(), sm))

    def prepare(self, model, constants, **options):
        """Return ``f(q, u, udot, t, multipliers=None) -> ndarray``: the
        values of :attr:`symbols` from the joint reaction, for
        ``simulate()``.

        The reaction force of :func:`joint_reactions` (options are passed to
        it) is generated once as NumPy code (``cse=True``); ``q``, ``u`` and
        ``udot`` follow ``model.q`` and ``model.u``. In a ``System`` closed
        by LoopJoints (:class:`~sympy_loads.LoopJoint`) the reaction of a
        tree joint contains the loops' multipliers: ``multipliers`` are
        then their values, in the order of the loops in ``model.joints``
        and of each loop's :attr:`~sympy_loads.LoopJoint.multipliers`
        (``simulate()`` solves them from the equations of motion evaluated
        with the current friction, within the relaxation); a ValueError
        says when they are missing. Friction magnitudes that
        appear in the reaction (they cancel: friction of this joint acts
        along the directions it leaves free, that of other joints of the
        child side is internal to it) are checked to contribute nothing at
        random states and dropped.

        Examples
        ========

        >>> import sympy as sm
        >>> from sympy.physics.mechanics import (PrismaticJoint, RigidBody,
        ...     System)
        >>> from sympy_loads import JointFriction
        >>> m, g = sm.symbols('m g', positive=True)
        >>> ground, block = RigidBody('ground'), RigidBody('block', mass=m)
        >>> slider = PrismaticJoint('s', ground, block, joint_axis=ground.x)
        >>> friction = JointFriction(slider, coefficient=0.5)
        >>> system = System.from_newtonian(ground)
        >>> system.add_bodies(block); system.add_joints(slider)
        >>> system.add_actuators(friction)
        >>> system.apply_uniform_gravity(-g * ground.y)
        >>> f = friction.prepare(system, {m: 2.0, g: 9.81})
        >>> f([0.0], [1.0], [0.0], 0.0)
        array([9.81])

        Raises
        ======

        ValueError
            If a symbol of the reaction is missing from ``constants``, or the
            reaction depends on a time function other than the coordinates,
            speeds, their derivatives and friction magnitudes that cancel.
        """
        if not hasattr(constants, 'items'):
            raise TypeError(f'constants must be a mapping from symbols to '
                            f'numbers, not {type(constants).__name__}.')
        _, _, _, _, q, u, _ = _model_parts(model)
        reaction = joint_reactions(self.joint, model, **options)
        t = dynamicsymbols._t
        force = sm.Matrix(reaction.force_components)
        exprs = [force]
        if self._kind is SphericalJoint:
            exprs.append(self.relative_angular_velocity().to_matrix(
                self.joint.child_interframe))
        expr = sm.Matrix.vstack(*exprs)
        qs = [sm.Dummy(f'q{i}') for i in range(len(q))]
        us = [sm.Dummy(f'u{i}') for i in range(len(u))]
        uds = [sm.Dummy(f'ud{i}') for i in range(len(u))]
        # a closed loop's multipliers (in the reaction of a tree joint)
        multipliers = [s for loop in _loop_joints(model)
                       for s in loop.multipliers]
        lams = [sm.Dummy(f'lam{i}') for i in range(len(multipliers))]
        repl = {ui.diff(t): d for ui, d in zip(u, uds)}
        repl.update(zip(multipliers, lams))
        repl.update(zip(q, qs))
        repl.update(zip(u, us))
        expr = expr.xreplace(repl)
        params = [sm.sympify(p) for p in self._params()]
        free_params = set().union(*(p.free_symbols for p in params))
        extra = sorted(find_dynamicsymbols(expr) |
                       {f for f in find_dynamicsymbols(
                           sm.Matrix(params))}, key=str)
        if extra:
            expr = self._drop_cancelling(expr, extra)
        symbols = sorted((expr.free_symbols | free_params) - {t}
                         - set(qs) - set(us) - set(uds) - set(lams), key=str)
        missing = [s for s in symbols if s not in constants]
        if missing:
            raise ValueError(
                f'prepare(): missing constants {[str(s) for s in missing]} '
                f'(needed by the reaction or the friction parameters of '
                f'{self.joint.name}).'.replace("'", ''))
        values = [float(constants[s]) for s in symbols]
        numeric = _lambdify([qs, us, uds, t, lams, symbols], expr)
        param_func = _lambdify([symbols], sm.Matrix(params))
        kind = self._kind
        needs = [str(s) for s, d in zip(multipliers, lams) if expr.has(d)]
        name = self.joint.name

        def friction_magnitudes(q, u, udot, t, multipliers=None):
            if multipliers is None:
                if needs:
                    raise ValueError(
                        f'the reaction of {name} contains the multipliers '
                        f'{needs} of the LoopJoints of the model: pass '
                        f'their values (multipliers=...).'.replace("'", ''))
                multipliers = np.zeros(len(lams))
            out = np.asarray(numeric(q, u, udot, t, multipliers, values),
                             dtype=float).ravel()
            p = np.asarray(param_func(values), dtype=float).ravel()
            omega = out[3:6] if kind is SphericalJoint else None
            return np.array(_friction_magnitudes(kind, out[:3], omega, p, np),
                            dtype=float)

        return friction_magnitudes

    @staticmethod
    def _drop_cancelling(expr, extra):
        """Substitute zero for time functions ``extra`` after checking at
        random points that ``expr`` does not depend on them
        (:func:`._utils._random_dependence`)."""
        bad = _random_dependence(expr, extra)
        if bad:
            raise ValueError(
                f'The reaction of the joint depends on '
                f'{[str(extra[i]) for i in bad]}; prepare() supports '
                f'reactions that are functions of q, u, u\' and t only '
                f'(with friction magnitudes that cancel).'
                .replace("'", '').replace('u\\', "u'"))
        return expr.xreplace(dict.fromkeys(extra, 0))
