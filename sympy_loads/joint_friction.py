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
   evidence" (auxiliary generalized speeds).
"""

from collections import deque

import numpy as np
import sympy as sm
from sympy.physics.mechanics import (CylindricalJoint, Force, KanesMethod,
                                     PinJoint, PrismaticJoint, ReferenceFrame,
                                     RigidBody,
                                     SphericalJoint, Torque, dynamicsymbols)
from sympy.physics.mechanics.actuator import ActuatorBase
from sympy.physics.mechanics.body_base import BodyBase
from sympy.physics.mechanics.system import System
from sympy.physics.vector import Vector
from sympy.physics.mechanics import find_dynamicsymbols

from ._utils import (_as_loads, _check_type, _kanes_parts, _lambdify,
                     _nonzero_norm, _set_once, _sympify_scalar,
                     euclidean_norm)
from .friction import _check_sign_method, _sign_over_speed, smooth_sign

__all__ = ['joint_reactions', 'JointReaction', 'JointFriction']

_JOINT_TYPES = (PinJoint, PrismaticJoint, CylindricalJoint, SphericalJoint)

# Which reaction components an ideal joint transmits, in the joint frame
# (z along the joint axis): (force x, y, z), (torque x, y, z).
_CONSTRAINED = {
    PinJoint: ((1, 1, 1), (1, 1, 0)),
    PrismaticJoint: ((1, 1, 0), (1, 1, 1)),
    CylindricalJoint: ((1, 1, 0), (1, 1, 0)),
    SphericalJoint: ((1, 1, 1), (0, 0, 0)),
}


def _joint_kind(joint):
    for kind in _JOINT_TYPES:
        if type(joint) is kind or isinstance(joint, kind):
            return kind
    raise TypeError(
        f'joint must be a PinJoint, PrismaticJoint, CylindricalJoint or '
        f'SphericalJoint, not {type(joint).__name__} {joint!r}.')


def _dependent_speeds(model):
    """Dependent speeds of a ``System`` or ``KanesMethod``."""
    if isinstance(model, System):
        return list(model.u_dep)
    return _kanes_parts(model).u_dep


def _model_parts(model, frame=None):
    """Return ``(frame, bodies, loads, joints, q, u, qdot_map)`` of a
    ``System`` or ``KanesMethod``."""
    if isinstance(model, System):
        loads = list(model.loads)
        for actuator in model.actuators:
            loads.extend(actuator.to_loads())
        q, u = list(model.q), list(model.u)
        kdes = sm.Matrix(model.kdes)
        qdots = [qi.diff(dynamicsymbols._t) for qi in q]
        if len(kdes):
            A, b = sm.linear_eq_to_matrix(kdes, qdots)
            qdot_map = dict(zip(qdots, A.LUsolve(b)))
        else:
            qdot_map = {}
        return (model.frame if frame is None else frame, list(model.bodies),
                _as_loads(loads), list(model.joints), q, u, qdot_map)
    if isinstance(model, KanesMethod):
        loads = model.loads if model.loads is not None else []
        return (_kanes_parts(model).frame if frame is None else frame,
                list(model.bodies or []), _as_loads(list(loads)), [],
                list(model.q), list(model.u), dict(model.kindiffdict()))
    raise TypeError(
        f'model must be a sympy.physics.mechanics System or KanesMethod, '
        f'not {type(model).__name__}.')


def _axis_basis(joint):
    """Unit vectors ``(e_x, e_y, e_z)`` fixed in ``joint.child_interframe``
    with ``e_z`` along the joint axis (the child interframe's own axes for a
    spherical joint)."""
    frame = joint.child_interframe
    if isinstance(joint, SphericalJoint):
        return frame.x, frame.y, frame.z
    # The axis is stored in the parent interframe; the child interframe is
    # rotated about (or translated along) it, so its components are the
    # same in both.
    a = joint.joint_axis.to_matrix(joint.parent_interframe)
    a = (a / sm.sqrt(sum(c**2 for c in a))).applyfunc(sm.simplify)
    nonzero = [i for i in range(3) if a[i] != 0]
    if len(nonzero) == 1:
        # Along a coordinate axis: cyclic permutation, right-handed.
        i = nonzero[0]
        s = sm.sign(a[i])
        e = [sm.zeros(3, 1) for _ in range(3)]
        e[0][(i + 1) % 3] = 1
        e[1][(i + 2) % 3] = s
        e[2][i] = s
    else:
        z = a
        helper = sm.Matrix([1, 0, 0]) if a[0] == 0 else sm.Matrix([0, 0, 1])
        if a[0] != 0 and a[1] == 0 and a[2] == 0:
            helper = sm.Matrix([0, 1, 0])
        x = z.cross(helper)
        x = x / sm.sqrt(sum(c**2 for c in x))
        y = z.cross(x)
        e = [x.applyfunc(sm.simplify), y.applyfunc(sm.simplify), z]
    return tuple(sum((c * v for c, v in zip(col, frame)), Vector(0))
                 for col in e)


def _joint_graph_side(joint, joints):
    """Bodies reachable from ``joint.child`` through ``joints`` other than
    ``joint``; ``None`` if ``joint.parent`` is reachable (closed loop)."""
    side = {joint.child}
    queue = deque([joint.child])
    others = [j for j in joints if j is not joint]
    while queue:
        body = queue.popleft()
        for j in others:
            for a, b in ((j.parent, j.child), (j.child, j.parent)):
                if a is body and b not in side:
                    if b is joint.parent:
                        return None
                    side.add(b)
                    queue.append(b)
    return side


def _kinematic_side(joint, bodies, frame):
    """Bodies whose velocity in ``frame`` depends on the joint's speeds: in a
    tree built with SymPy joints these are the child and its descendants."""
    speeds = set(joint.speeds)
    side = {joint.child}
    for body in bodies:
        exprs = [body.masscenter.vel(frame)]
        if isinstance(body, RigidBody):
            exprs.append(body.frame.ang_vel_in(frame))
        for vec in exprs:
            if vec != 0 and any(
                    speeds & set(find_dynamicsymbols(c))
                    for c in vec.to_matrix(frame)):
                side.add(body)
                break
    return side


def _fixed_in(point_or_frame, body):
    """True if the point/frame is fixed in ``body`` (position from the mass
    center, or angular velocity, constant in the body frame)."""
    try:
        if isinstance(point_or_frame, ReferenceFrame):
            if not isinstance(body, RigidBody):
                return False
            w = point_or_frame.ang_vel_in(body.frame)
            return all(sm.simplify(c) == 0 for c in w.to_matrix(body.frame))
        r = point_or_frame.pos_from(body.masscenter)
    except ValueError:
        return False
    if not isinstance(body, RigidBody):
        return r == 0
    rdot = r.dt(body.frame)
    return rdot == 0 or all(sm.simplify(c) == 0
                            for c in rdot.to_matrix(body.frame))


def _load_side(load, child_side, parent_side, joints):
    """Return True if ``load`` acts on the child side, False if on the parent
    side; raise ValueError if that cannot be decided."""
    where = load.location
    for body in child_side | parent_side:
        if where is body.masscenter or (isinstance(body, RigidBody)
                                        and where is body.frame):
            return body in child_side
    for j in joints:
        if where is j.child_point or where is j.child_interframe:
            return j.child in child_side
        if where is j.parent_point or where is j.parent_interframe:
            return j.parent in child_side
    on_child = any(_fixed_in(where, b) for b in child_side)
    on_parent = any(_fixed_in(where, b) for b in parent_side)
    if on_child != on_parent:
        return on_child
    raise ValueError(
        f'Cannot tell on which side of the joint the load {load} acts '
        f'(its point or frame is fixed in '
        f'{"bodies on both sides" if on_child else "no body"}); pass the '
        f'loads acting on the child side as child_loads.')


class JointReaction:
    r"""Reaction force and torque transmitted by a joint, as returned by
    :func:`joint_reactions`.

    Explanation
    ===========

    ``force`` is the force the parent exerts on the child, applied at
    ``joint.child_point``; ``torque`` is the torque of the couple that
    accompanies it (the moment about ``joint.child_point``). The parent takes
    ``-force`` and ``-torque``. Both are also given as components in the
    joint frame, whose unit vectors ``axes``
    :math:`(\hat{e}_x, \hat{e}_y, \hat{e}_z)` are fixed in
    ``joint.child_interframe`` with :math:`\hat{e}_z` along the joint axis:

    .. math::

       \bar{R} = \sum_{k = x, y, z} R_k \hat{e}_k, \qquad
       \bar{T} = \sum_{k = x, y, z} T_k \hat{e}_k

    with :math:`R_k` the ``force_components`` and :math:`T_k` the
    ``torque_components``: :math:`\bar{R}` (``force``) and :math:`\bar{T}`
    (``torque``) act from the parent on the child, :math:`-\bar{R}` and
    :math:`-\bar{T}` from the child on the parent.

    Components the joint leaves free (the axial force of a prismatic joint,
    the axial torque of a pin joint, ...) are zero: an ideal joint does not
    transmit them.

    Instances are made by :func:`joint_reactions`, which computes the
    components.

    Examples
    ========

    A block on a horizontal slider under gravity: the slider pushes it up
    with :math:`m g` (along the joint frame's first axis, ``block.y``
    here), and transmits nothing along the slider axis:

    >>> import sympy as sm
    >>> from sympy.physics.mechanics import PrismaticJoint, RigidBody, System
    >>> from sympy_loads import joint_reactions
    >>> m, g = sm.symbols('m g', positive=True)
    >>> ground, block = RigidBody('ground'), RigidBody('block', mass=m)
    >>> slider = PrismaticJoint('s', ground, block, joint_axis=ground.x)
    >>> system = System.from_newtonian(ground)
    >>> system.add_bodies(block); system.add_joints(slider)
    >>> system.apply_uniform_gravity(-g * ground.y)
    >>> reaction = joint_reactions(slider, system)
    >>> reaction
    JointReaction(PrismaticJoint: s  parent: ground  child: block, force_components=[g*m, 0, 0], torque_components=[0, 0, 0])
    >>> reaction.axes
    (block_frame.y, block_frame.z, block_frame.x)
    >>> reaction.force
    g*m*block_frame.y

    Parameters
    ==========

    joint : Joint
        The joint that transmits the reaction.
    axes : tuple of three Vectors
        Unit vectors of the joint frame, :math:`\hat{e}_z` along the joint
        axis.
    force_components, torque_components : 3x1 Matrix
        The reaction force and torque on the child along ``axes``.

    References
    ==========

    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, McGraw-Hill, 1985, section 4.5 (bringing noncontributing
       forces into evidence).
    """

    def __init__(self, joint, axes, force_components, torque_components):
        self._joint = joint
        self._axes = tuple(axes)
        self._force_components = sm.ImmutableMatrix(force_components)
        self._torque_components = sm.ImmutableMatrix(torque_components)

    @property
    def joint(self):
        """The joint."""
        return self._joint

    @property
    def axes(self):
        r"""Unit vectors :math:`(\hat{e}_x, \hat{e}_y, \hat{e}_z)` of the
        joint frame, fixed in the child interframe, :math:`\hat{e}_z` along
        the joint axis."""
        return self._axes

    @property
    def force_components(self):
        """3x1 Matrix: the reaction force on the child along ``axes``."""
        return self._force_components

    @property
    def torque_components(self):
        """3x1 Matrix: the reaction torque on the child along ``axes``."""
        return self._torque_components

    @property
    def force(self):
        """The reaction force on the child (Vector), at the child point."""
        return sum((c * e for c, e in zip(self._force_components,
                                          self._axes)), Vector(0))

    @property
    def torque(self):
        """The reaction torque on the child (Vector)."""
        return sum((c * e for c, e in zip(self._torque_components,
                                          self._axes)), Vector(0))

    def to_loads(self):
        """Return the reaction as loads on the child (``Force`` at
        ``joint.child_point``, ``Torque`` on the child frame) and the equal
        and opposite loads on the parent.

        Examples
        ========

        >>> import sympy as sm
        >>> from sympy.physics.mechanics import (PrismaticJoint, RigidBody,
        ...                                      System)
        >>> from sympy_loads import joint_reactions
        >>> m, g = sm.symbols('m g', positive=True)
        >>> ground, block = RigidBody('ground'), RigidBody('block', mass=m)
        >>> slider = PrismaticJoint('s', ground, block, joint_axis=ground.x)
        >>> system = System.from_newtonian(ground)
        >>> system.add_bodies(block); system.add_joints(slider)
        >>> system.apply_uniform_gravity(-g * ground.y)
        >>> joint_reactions(slider, system).to_loads()[:2]
        [Force(point=block_masscenter, force=g*m*block_frame.y), Force(point=ground_masscenter, force=- g*m*block_frame.y)]
        """
        j = self._joint
        force, torque = self.force, self.torque
        return [Force(j.child_point, force), Force(j.parent_point, -force),
                Torque(j.child.frame, torque), Torque(j.parent.frame, -torque)]

    def __repr__(self):
        return (f'{type(self).__name__}({self._joint}, force_components='
                f'{list(self._force_components)}, torque_components='
                f'{list(self._torque_components)})')


def joint_reactions(joint, model, *, frame=None, child_bodies=None,
                    child_loads=None):
    r"""Return the force and torque a joint transmits, symbolically.

    Explanation
    ===========

    Kane's method leaves the joint reactions out of the equations of motion.
    They are brought into evidence with auxiliary generalized speeds
    [Kane1985]_: the child side of the joint is given six fictitious speeds,
    a translation :math:`v \hat{e}_k` and a rotation :math:`w \hat{e}_k`
    about ``joint.child_point``, that the joint forbids. The partial
    velocities of every point of the child side for these speeds are
    :math:`\hat{e}_k` and :math:`\hat{e}_k \times \bar{r}`, so the
    auxiliary Kane's equations
    :math:`F_{aux} + F^*_{aux} + \hat{e}_k \cdot (\text{reaction}) = 0`
    read (the speeds are then set to zero)

    .. math::

       \bar{R} &= \sum_{\text{child side}} m \bar{a}^G
                  - \sum \bar{F}_{applied} \\
       \bar{T}_P &= \sum_{\text{child side}} \left(\bar{r}^{G/P} \times
                    m \bar{a}^G + \breve{I} \cdot \bar{\alpha}
                    + \bar{\omega} \times \breve{I} \cdot \bar{\omega}
                    \right)
                    - \sum \left(\bar{r}^{Q/P} \times \bar{F}_{applied}
                    + \bar{T}_{applied}\right)

    i.e. Newton-Euler for the child side, with P = ``joint.child_point``,
    G the mass center, :math:`\breve{I}` the central inertia dyadic,
    :math:`\bar{\omega}` and :math:`\bar{\alpha}` the angular velocity and
    acceleration of each body, and Q the point of each applied force.
    This is what ``KanesMethod(..., u_auxiliary=...)`` computes once the
    auxiliary speeds have been added to the velocities by hand; here they are
    formed directly so the user's model is left untouched. Accelerations are
    written with the speeds' derivatives :math:`\dot{u}` and :math:`\dot{q}`
    is replaced by the kinematic differential equations, so the result is a
    function of :math:`q, u, \dot{u}, t`, the constants and the applied
    loads. Evaluate it along a solution (:math:`\dot{u}` from the equations
    of motion) to get the reaction.

    The child side is found from ``model.joints`` when ``model`` is a
    ``System`` (the joint must cut the system in two: no closed loop through
    it); otherwise it is the set of bodies whose velocity depends on the
    joint's speeds (the child and its descendants in a tree of SymPy joints).
    Loads are assigned to a side by their point or frame.

    Closed kinematic loops and other constraints are outside this method:
    their constraint forces are not loads of the model, so a reaction is
    only computed when they do not act on the child side (a ``ValueError``
    asks for ``child_bodies`` when the model has dependent speeds).

    Examples
    ========

    A pendulum of mass :math:`m` on a pin; the rod tension is
    :math:`m (g \cos\theta + L \dot{\theta}^2)` [Notes3D]_:

    >>> import sympy as sm
    >>> from sympy.physics.mechanics import (PinJoint, RigidBody, System,
    ...     inertia)
    >>> from sympy_loads import joint_reactions
    >>> m, g, L = sm.symbols('m g L', positive=True)
    >>> ceiling = RigidBody('ceiling')
    >>> bob = RigidBody('bob', mass=m)
    >>> bob.central_inertia = inertia(bob.frame, 0, 0, 0)  # a point mass
    >>> pin = PinJoint('pin', ceiling, bob, child_point=L * bob.frame.x,
    ...                joint_axis=ceiling.z)
    >>> system = System.from_newtonian(ceiling)
    >>> system.add_bodies(bob); system.add_joints(pin)
    >>> system.apply_uniform_gravity(-g * ceiling.y)
    >>> reaction = joint_reactions(pin, system)
    >>> reaction.axes
    (bob_frame.x, bob_frame.y, bob_frame.z)
    >>> reaction.force_components
    Matrix([
    [             L*m*u_pin(t)**2 + g*m*sin(q_pin(t))],
    [-L*m*Derivative(u_pin(t), t) + g*m*cos(q_pin(t))],
    [                                               0]])
    >>> reaction.torque_components.T
    Matrix([[0, 0, 0]])

    ``bob.x`` points from the bob to the pin
    (``child_point=L * bob.frame.x``), so with
    :math:`\theta = q_{pin} - \pi/2` from the downward vertical the first
    component is the tension :math:`m (g \cos\theta + L \dot{\theta}^2)`.
    The second is zero along the motion
    (:math:`\dot{u} = g \cos(q)/L` for a point mass).

    Parameters
    ==========

    joint : PinJoint, PrismaticJoint, CylindricalJoint or SphericalJoint
    model : System or KanesMethod
        The model the joint belongs to: its bodies, loads (and actuators),
        and kinematic differential equations are used.
    frame : ReferenceFrame, optional
        Inertial frame; defaults to the model's.
    child_bodies : iterable of bodies, optional
        The bodies on the child side, overriding the automatic choice.
    child_loads : iterable of loads, optional
        The applied loads acting on the child side, overriding the automatic
        assignment (needed when a load's point is fixed in no body or in
        bodies on both sides).

    Returns
    =======

    JointReaction

    Raises
    ======

    TypeError
        If ``joint`` or ``model`` has the wrong type.
    ValueError
        If the joint closes a kinematic loop of ``model.joints`` or the
        model has dependent speeds, and ``child_bodies`` is not given; or if
        a load cannot be assigned to a side.

    References
    ==========

    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, McGraw-Hill, 1985, sec. 5.9.
    .. [Notes3D] "Three-Dimensional Generalized Forces", course notes:
       joint friction is computed from the constraint (reaction) forces.
    """
    kind = _joint_kind(joint)
    N, bodies, loads, joints, q, u, qdot_map = _model_parts(model, frame)
    if child_bodies is None and _dependent_speeds(model):
        raise ValueError(
            f'The model has dependent speeds {_dependent_speeds(model)} '
            f'(constraints, e.g. a closed loop): the constraint forces they '
            f'imply are not loads of the model, so the reaction of {joint} '
            f'is only defined if none acts on its child side; pass '
            f'child_bodies to state which bodies that is.')
    if child_bodies is not None:
        child_side = set(child_bodies)
        for b in child_side:
            _check_type('child_bodies', b, BodyBase, 'Particle or RigidBody')
    elif joint in joints:
        child_side = _joint_graph_side(joint, joints)
        if child_side is None:
            raise ValueError(
                f'{joint} closes a kinematic loop of the system, so its '
                f'child side is not defined by the joints; pass '
                f'child_bodies.')
    else:
        child_side = _kinematic_side(joint, bodies, N)
    child_side &= set(bodies) | {joint.child}
    parent_side = (set(bodies) | {joint.parent}) - child_side
    all_joints = list(joints) + ([joint] if joint not in joints else [])
    if child_loads is not None:
        applied = _as_loads(child_loads, 'child_loads')
    else:
        applied = [ld for ld in loads
                   if _load_side(ld, child_side, parent_side, all_joints)]

    P = joint.child_point
    R = Vector(0)
    T = Vector(0)
    for body in child_side:
        G = body.masscenter
        ma = body.mass * G.acc(N)
        r = G.pos_from(P)
        R += ma
        T += r.cross(ma)
        if isinstance(body, RigidBody):
            w = body.frame.ang_vel_in(N)
            alpha = body.frame.ang_acc_in(N)
            I = body.central_inertia
            T += I.dot(alpha) + w.cross(I.dot(w))
    for load in applied:
        if isinstance(load, Force):
            R -= load.force
            T -= load.point.pos_from(P).cross(load.force)
        else:
            T -= load.torque
    axes = _axis_basis(joint)
    ci = joint.child_interframe
    Rm, Tm = R.to_matrix(ci), T.to_matrix(ci)
    cf, ct = _CONSTRAINED[kind]
    comps = []
    for vec, mask in ((Rm, cf), (Tm, ct)):
        col = []
        for e, keep in zip(axes, mask):
            if keep:
                c = (e.to_matrix(ci).T * vec)[0]
                col.append(c.xreplace(qdot_map))
            else:
                col.append(sm.S.Zero)
        comps.append(col)
    return JointReaction(joint, axes, comps[0], comps[1])



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

    Since the reaction depends on :math:`f` and :math:`T`,
    ``simulate(..., joint_friction=[...])`` resolves the loop at every
    evaluation by relaxation starting from zero friction, as in the course
    notes;
    :meth:`prepare` gives it the numeric map from
    :math:`(q, u, \dot{u}, t)` to the magnitudes. Add the actuator to the
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
        If ``joint`` is not one of the four joint types or a parameter is not
        a scalar.
    ValueError
        If a parameter has the wrong sign, ``radius`` is missing or not
        applicable, or ``sign_method`` is unknown.

    References
    ==========

    .. [Notes3D] "Three-Dimensional Generalized Forces", course notes,
       "Axial Coulomb friction in cylindrical or prismatic joints",
       "Torsional Coulomb friction in revolute or cylindrical joints",
       "Torsional Coulomb friction in spherical joint".
    """

    def __init__(self, joint, *, coefficient, radius=None, end_coefficient=0,
                 end_radius=0, alpha=1, preload=0, regularization=0,
                 sign_method='tanh'):
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
        if kind is not PinJoint and (end_coefficient != 0 or end_radius != 0):
            raise ValueError('end_coefficient and end_radius (a thrust face) '
                             'apply to a PinJoint only.')
        _set_once(self, 'end_coefficient', end_coefficient)
        _set_once(self, 'end_radius', end_radius)
        alpha = _sympify_scalar('alpha', alpha, nonnegative=True)
        if (alpha - 1).is_positive:
            raise ValueError(f'alpha must be at most 1, got {alpha}.')
        if kind is not SphericalJoint and alpha != 1:
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
            if value != default:
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
        """Return ``f(q, u, udot, t) -> ndarray``: the values of
        :attr:`symbols` from the joint reaction, for ``simulate()``.

        The reaction force of :func:`joint_reactions` (options are passed to
        it) is generated once as NumPy code (``cse=True``); ``q``, ``u`` and
        ``udot`` follow ``model.q`` and ``model.u``. Friction magnitudes that
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
        repl = {ui.diff(t): d for ui, d in zip(u, uds)}
        repl.update(zip(q, qs))
        repl.update(zip(u, us))
        expr = expr.xreplace(repl)
        params = [sm.sympify(p) for p in self._params()]
        free_params = set().union(*(p.free_symbols for p in params))
        extra = sorted(find_dynamicsymbols(expr) |
                       {f for f in find_dynamicsymbols(
                           sm.Matrix(params))}, key=str)
        if extra:
            expr = self._drop_cancelling(expr, extra, qs + us + uds + [t])
        symbols = sorted((expr.free_symbols | free_params) - {t}
                         - set(qs) - set(us) - set(uds), key=str)
        missing = [s for s in symbols if s not in constants]
        if missing:
            raise ValueError(
                f'prepare(): missing constants {[str(s) for s in missing]} '
                f'(needed by the reaction or the friction parameters of '
                f'{self.joint.name}).'.replace("'", ''))
        values = [float(constants[s]) for s in symbols]
        numeric = _lambdify([qs, us, uds, t, symbols], expr)
        param_func = _lambdify([symbols], sm.Matrix(params))
        kind = self._kind

        def friction_magnitudes(q, u, udot, t):
            out = np.asarray(numeric(q, u, udot, t, values),
                             dtype=float).ravel()
            p = np.asarray(param_func(values), dtype=float).ravel()
            omega = out[3:6] if kind is SphericalJoint else None
            return np.array(_friction_magnitudes(kind, out[:3], omega, p, np),
                            dtype=float)

        return friction_magnitudes

    @staticmethod
    def _drop_cancelling(expr, extra, args, samples=3, seed=0):
        """Substitute zero for time functions ``extra`` after checking at
        random points that ``expr`` does not depend on them."""
        rng = np.random.default_rng(seed)
        dummies = [sm.Dummy() for _ in extra]
        expr = expr.xreplace(dict(zip(extra, dummies)))
        others = sorted(expr.free_symbols - set(args) - set(dummies),
                        key=str)
        grad = expr.jacobian(dummies)
        func = _lambdify([args, others, dummies], grad)
        for _ in range(samples):
            x = rng.uniform(0.5, 1.5, len(args))
            c = rng.uniform(0.5, 1.5, len(others))
            d = rng.uniform(0.5, 1.5, len(dummies))
            g = np.asarray(func(x, c, d), dtype=float)
            bad = np.nonzero(np.any(np.abs(g) > 1e-9 * (1 + np.abs(g).max()),
                                    axis=0))[0]
            if len(bad):
                raise ValueError(
                    f'The reaction of the joint depends on '
                    f'{[str(extra[i]) for i in bad]}; prepare() supports '
                    f'reactions that are functions of q, u, u\' and t only '
                    f'(with friction magnitudes that cancel).'
                    .replace("'", '').replace('u\\', "u'"))
        return expr.xreplace(dict.fromkeys(dummies, 0))
