r"""Joint reaction forces: the implementation of
:func:`~sympy_loads.joint_reactions` and :class:`~sympy_loads.JointReaction`
with their private helpers (joint kinds, model parts, the joint frame, the
child and parent sides of a joint, the side a load acts on, and the
constraint forces of the loop joints closing a System).

Private module: the public names are documented in, and imported from,
:mod:`sympy_loads.joint_friction` (or the package ``sympy_loads``).
"""

import random
from collections import deque

import sympy as sm
from sympy.physics.mechanics import (CylindricalJoint, Force, KanesMethod,
                                     PinJoint, PrismaticJoint, ReferenceFrame,
                                     RigidBody, SphericalJoint, Torque,
                                     WeldJoint, dynamicsymbols)
from sympy.core.function import AppliedUndef
from sympy.physics.mechanics.body_base import BodyBase
from sympy.physics.mechanics.system import System
from sympy.physics.vector import Vector
from sympy.physics.mechanics import find_dynamicsymbols

from ._utils import _as_loads, _check_type, _kanes_parts
from .joints import LoopJoint

__all__ = ['joint_reactions', 'JointReaction']

# Joints JointFriction acts in (see _joint_kind).
_JOINT_TYPES = (PinJoint, PrismaticJoint, CylindricalJoint, SphericalJoint)
# Tree joints whose reaction joint_reactions computes.
_TREE_TYPES = _JOINT_TYPES + (WeldJoint,)

# Which reaction components an ideal joint transmits, in the joint frame
# (z along the joint axis): (force x, y, z), (torque x, y, z).
_CONSTRAINED = {
    PinJoint: ((1, 1, 1), (1, 1, 0)),
    PrismaticJoint: ((1, 1, 0), (1, 1, 1)),
    CylindricalJoint: ((1, 1, 0), (1, 1, 0)),
    SphericalJoint: ((1, 1, 1), (0, 0, 0)),
    WeldJoint: ((1, 1, 1), (1, 1, 1)),
}


def _is_loop_joint(joint):
    """True for a joint that closes a loop (a ``sympy_loads.LoopJoint``)."""
    return isinstance(joint, LoopJoint)


def _joint_kind(joint):
    for kind in _JOINT_TYPES:
        if type(joint) is kind or isinstance(joint, kind):
            return kind
    raise TypeError(
        f'joint must be a PinJoint, PrismaticJoint, CylindricalJoint or '
        f'SphericalJoint, not {type(joint).__name__} {joint!r}.')


def _reaction_kind(joint):
    """The tree joint class of ``joint``, or ``'loop'`` for a loop joint."""
    if _is_loop_joint(joint):
        return 'loop'
    for kind in _TREE_TYPES:
        if isinstance(joint, kind):
            return kind
    raise TypeError(
        f'joint must be a PinJoint, PrismaticJoint, CylindricalJoint, '
        f'SphericalJoint, WeldJoint or sympy_loads.LoopJoint, not '
        f'{type(joint).__name__} {joint!r}.')


def _same_row(row, rows):
    """True if ``row`` equals a row of ``rows`` or its negative."""
    for other in rows:
        if row == other or row == -other:
            return True
    for other in rows:
        if sm.expand(row - other) == 0 or sm.expand(row + other) == 0:
            return True
    return False


def _loop_joints(model):
    """The loop joints among ``model.joints`` (none for a KanesMethod)."""
    if not isinstance(model, System):
        return []
    return [j for j in model.joints if _is_loop_joint(j)]


def _numerically_same(row, rows, samples=2):
    """True if ``row`` equals a row of ``rows`` or its negative at
    ``samples`` random values of every symbol and function of time in
    them (rows written in another form, e.g. simplified, are the same
    constraint)."""
    generator = random.Random(0)
    for other in rows:
        names = (row.free_symbols | other.free_symbols
                 | row.atoms(AppliedUndef) | other.atoms(AppliedUndef))
        names.discard(dynamicsymbols._t)
        agree = {1.0: True, -1.0: True}
        for _ in range(samples):
            values = {s: sm.Float(generator.uniform(0.3, 1.3))
                      for s in names}
            a = complex(row.xreplace(values).evalf())
            b = complex(other.xreplace(values).evalf())
            size = max(1.0, abs(a), abs(b))
            for sign in agree:
                agree[sign] &= abs(a - sign * b) <= 1e-9 * size
        if any(agree.values()):
            return True
    return False


def _is_held(row, held, exact):
    """True if the loop row ``row`` is among the holonomic constraints
    ``held`` (``exact``: the same as a set): by hash first (rows added
    from ``loop.holonomic_constraints`` are the same objects), then up to
    sign by :func:`_same_row`, then numerically
    (:func:`_numerically_same`)."""
    return (row in exact or -row in exact or _same_row(row, held)
            or _numerically_same(row, held))


def check_loops_closed(system, argname='model'):
    """Raise ValueError if none of the rows of a ``LoopJoint`` among
    ``system.joints`` is among its holonomic constraints: ``add_joints``
    adds the joint's bodies and none of its constraints, so without
    ``add_holonomic_constraints`` the loop would not be closed and the
    System would move as an open chain, silently. A part of the rows is
    accepted: a row that the others imply (a statically indeterminate
    mechanism) may be left out on purpose. Called before a System is
    simulated, linearized or solved; ``argname`` names it in the
    message."""
    loops = _loop_joints(system)
    held = list(system.holonomic_constraints) if loops else []
    exact = set(held)
    for loop in loops:
        rows = loop.holonomic_constraints
        # a row found by hash ends the search (the slower comparisons
        # only where none is: simulate() checks at every call)
        if rows and not any(r in exact or -r in exact for r in rows) \
                and not any(_is_held(r, held, exact) for r in rows):
            raise ValueError(
                f'{argname}: the loop joint {loop.name!r} is among the '
                f'System\'s joints, but none of the {len(rows)} rows of its '
                f'holonomic_constraints is among the System\'s holonomic '
                f'constraints, so the loop is not closed (the System would '
                f'move as an open chain); add them with '
                f'system.add_holonomic_constraints('
                f'*loop.holonomic_constraints) and choose the dependent '
                f'coordinates and speeds (system.q_dep, system.u_dep).')


def _check_loop_rows(loops, system):
    """Raise ValueError if a loop joint's rows are not all among the
    system's holonomic constraints (its multipliers would then be no
    constraint force of the equations)."""
    held = list(system.holonomic_constraints) if loops else []
    exact = set(held)
    for loop in loops:
        missing = [r for r in loop.holonomic_constraints
                   if not _is_held(r, held, exact)]
        if missing:
            raise ValueError(
                f'The constraints {missing} of the loop joint {loop.name!r} '
                f'are not among the holonomic constraints of the system, so '
                f'its multipliers {list(loop.multipliers)} are not its '
                f'constraint force; add them with '
                f'system.add_holonomic_constraints(*loop.holonomic_'
                f'constraints).')


def _check_constraints_are_loops(joint, model, loops):
    """Raise ValueError if the model has dependent speeds or constraints
    that are not the rows of its loop joints: their constraint forces are
    no loads of the model, so the reaction of ``joint`` is undefined."""
    u_dep = _dependent_speeds(model)
    if isinstance(model, System):
        rows = [r for loop in loops for r in loop.holonomic_constraints]
        others = [h for h in model.holonomic_constraints
                  if not _same_row(h, rows)]
        others += list(model.nonholonomic_constraints)
        if not others:
            return
        what = (f'constraints {others} that are not the rows of a '
                f'sympy_loads.LoopJoint')
    elif not u_dep:
        return
    else:
        what = ('constraints (a KanesMethod holds no joints, so no '
                'sympy_loads.LoopJoint either)')
    raise ValueError(
        f'The model has dependent speeds {u_dep} from {what} (e.g. a '
        f'closed loop written with add_holonomic_constraints, or a '
        f'nonholonomic constraint): the constraint forces they imply are not '
        f'loads of the model, so the reaction of {joint} is only defined if '
        f'none acts on its child side. Close kinematic loops of a System '
        f'with sympy_loads.LoopJoint, whose multipliers carry the constraint '
        f'force, or pass child_bodies to state which bodies the child side '
        f'is.')


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
    spherical or weld joint)."""
    frame = joint.child_interframe
    if isinstance(joint, (SphericalJoint, WeldJoint)):
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


def _loop_loads(loops, child_side):
    """The constraint forces of the loop joints with exactly one end body on
    ``child_side``, as loads on that side: the loop's force and torque on
    its child, minus them on its parent, both at ``loop.child_point``."""
    loads = []
    for loop in loops:
        on_child = loop.child in child_side
        on_parent = loop.parent in child_side
        if on_child == on_parent:
            continue    # internal to one side
        sign = 1 if on_child else -1
        loads.append(Force(loop.child_point, sign * loop.force))
        if loop.torque != Vector(0):
            frame = (loop.child_interframe if on_child else
                     loop.parent_interframe)
            loads.append(Torque(frame, sign * loop.torque))
    return loads


def _side_resultants(child_side, applied, P, N):
    """``(R, T)``: the force and the moment about ``P`` the rest of the
    system exerts on ``child_side`` through the joint (Newton-Euler of the
    side minus its applied loads)."""
    R = Vector(0)
    T = Vector(0)
    for body in child_side:
        G = body.masscenter
        ma = body.mass * G.acc(N)
        R += ma
        T += G.pos_from(P).cross(ma)
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
    return R, T


class JointReaction:
    r"""Reaction force and torque transmitted by a joint, as returned by
    :func:`joint_reactions`.

    Explanation
    ===========

    ``force`` is the force the parent exerts on the child, applied at
    ``joint.child_point``; ``torque`` is the torque of the couple that
    accompanies it (the moment about ``joint.child_point``). The parent takes
    ``-force`` (at the place of ``joint.child_point``) and ``-torque``. Both
    are also given as components in the joint frame, whose unit vectors
    ``axes`` :math:`(\hat{e}_x, \hat{e}_y, \hat{e}_z)` are fixed in
    ``joint.child_interframe`` with :math:`\hat{e}_z` along the joint axis
    (the child interframe's own axes for a spherical or weld joint); for a
    :class:`~sympy_loads.LoopJoint` they are ``loop.axes``, fixed in the
    loop's parent (interframe), and the components are its multipliers:

    .. math::

       \bar{R} = \sum_{k = x, y, z} R_k \hat{e}_k, \qquad
       \bar{T} = \sum_{k = x, y, z} T_k \hat{e}_k

    with :math:`R_k` the ``force_components`` and :math:`T_k` the
    ``torque_components``: :math:`\bar{R}` (``force``) and :math:`\bar{T}`
    (``torque``) act from the parent on the child, :math:`-\bar{R}` and
    :math:`-\bar{T}` from the child on the parent.

    Components the joint leaves free (the axial force of a prismatic joint,
    the axial torque of a pin joint, ...) are zero: an ideal joint does not
    transmit them; so are a loop joint's rows it dropped.

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
        axis (fixed in the child interframe; in the parent for a loop
        joint).
    force_components, torque_components : 3x1 Matrix
        The reaction force and torque on the child along ``axes``.

    References
    ==========

    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, McGraw-Hill, 1985, section 4.5 (bringing noncontributing
       forces into evidence). https://hdl.handle.net/1813/638
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
        joint frame, fixed in the child interframe (in the parent for a
        loop joint), :math:`\hat{e}_z` along the joint axis."""
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
        and opposite loads on the parent: ``-force`` acts on the parent at the
        place of ``joint.child_point``, given as ``-force`` at
        ``joint.parent_point`` and the torque
        ``-torque - r x force``, ``r`` the position of the child point from
        the parent point (zero for a pin, spherical or weld joint; the
        travel along a prismatic or cylindrical joint's axis).

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
        # The parent takes -force at the place of the child point; moved to
        # the parent point (apart along a prismatic joint's axis) it brings
        # the couple -r x force.
        r = j.child_point.pos_from(j.parent_point)
        return [Force(j.child_point, force), Force(j.parent_point, -force),
                Torque(j.child.frame, torque),
                Torque(j.parent.frame, -torque - r.cross(force))]

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
    ``System`` (the joint must cut the tree of joints in two); otherwise it
    is the set of bodies whose velocity depends on the joint's speeds (the
    child and its descendants in a tree of SymPy joints). Loads are assigned
    to a side by their point or frame.

    **Closed loops.** A kinematic loop of a ``System`` closed by a
    :class:`~sympy_loads.LoopJoint` carries its constraint force: the
    multipliers :math:`\lambda` of the loop (``loop.multipliers``) are the
    components along ``loop.axes`` (fixed in the loop's parent) of the
    force :math:`\bar{F}_\lambda` (``loop.force``, at
    ``loop.child_point``) and torque :math:`\bar{T}_\lambda`
    (``loop.torque``) the loop's parent exerts on its child. The child side
    of a tree joint is then found over the tree joints only (loop joints
    left out of the graph), and every loop joint with exactly one end body
    on that side is one more load on it:

    .. math::

       \bar{F}_\lambda \text{ at } C \text{ and } \bar{T}_\lambda
       \text{ if the loop's child is on the side}, \qquad
       -\bar{F}_\lambda \text{ at } C \text{ and } -\bar{T}_\lambda
       \text{ if its parent is}

    with C the place of ``loop.child_point``; a loop with both ends on the
    side is internal to it. The reaction then contains the multipliers
    (``dynamicsymbols``) besides :math:`q, u, \dot{u}`: along a solution
    they are the constraint forces of the equations of motion
    (``simulate(..., outputs=...)`` evaluates them). The reaction of the
    loop joint itself is its multipliers,
    ``JointReaction(loop, loop.axes, loop.force_components,
    loop.torque_components)``.

    Any other constraint (a loop closed by hand with
    ``add_holonomic_constraints``, a nonholonomic constraint, the
    constraints of a ``KanesMethod``) has a constraint force that is not a
    load of the model, so the reaction is refused where the model has such
    constraints (dependent speeds), unless ``child_bodies`` states the side
    (then that force must not act on it). The system's holonomic
    constraints are compared with the rows of its loop joints, each equal
    or negated.

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

    A four-bar (Moore, *Learn Multibody Dynamics*: crank 1, coupler 4,
    rocker 3, ground 5) whose loop is closed by a
    :class:`~sympy_loads.LoopJoint` pin between coupler and rocker: the
    reaction at the crank's pin contains the loop's multipliers, and the
    loop's own reaction is its multipliers:

    >>> from sympy.physics.mechanics import dynamicsymbols
    >>> from sympy_loads import LoopJoint
    >>> q1, q2, q3, u1, u2, u3 = dynamicsymbols('q1:4 u1:4')
    >>> N = RigidBody('N')
    >>> crank, coupler, rocker = (RigidBody(name, mass=m) for name in
    ...                           ('crank', 'coupler', 'rocker'))
    >>> j1 = PinJoint('j1', N, crank, q1, u1, child_point=-crank.x / 2,
    ...               joint_axis=N.z)
    >>> j2 = PinJoint('j2', crank, coupler, q2, u2, parent_point=crank.x / 2,
    ...               child_point=-2 * coupler.x, joint_axis=crank.z)
    >>> j3 = PinJoint('j3', N, rocker, q3, u3, parent_point=5 * N.x,
    ...               child_point=-3 * rocker.x / 2, joint_axis=N.z)
    >>> loop = LoopJoint('D', coupler, rocker, parent_point=2 * coupler.x,
    ...                  child_point=3 * rocker.x / 2, kind='pin',
    ...                  joint_axis=coupler.z)
    >>> system = System.from_newtonian(N)
    >>> system.add_bodies(crank, coupler, rocker)
    >>> system.add_joints(j1, j2, j3, loop)
    >>> system.add_holonomic_constraints(*loop.holonomic_constraints)
    >>> system.apply_uniform_gravity(-g * N.y)
    >>> system.q_ind, system.q_dep = [q1], [q2, q3]
    >>> system.u_ind, system.u_dep = [u1], [u2, u3]
    >>> loop.multipliers.T
    Matrix([[lambda_D_Fx(t), lambda_D_Fy(t)]])
    >>> crank_pin = joint_reactions(j1, system)
    >>> sorted(crank_pin.force.free_dynamicsymbols(N.frame)
    ...        & set(loop.multipliers), key=str)
    [lambda_D_Fx(t), lambda_D_Fy(t)]
    >>> joint_reactions(loop, system).force
    lambda_D_Fx(t)*coupler_frame.x + lambda_D_Fy(t)*coupler_frame.y

    Parameters
    ==========

    joint : Joint
        A joint of ``model``: a tree joint (``PinJoint``,
        ``PrismaticJoint``, ``CylindricalJoint``, ``SphericalJoint``, or
        ``WeldJoint``, which transmits all six components), or a
        :class:`~sympy_loads.LoopJoint` of a ``System``.
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
        If the joint is not part of ``model`` (its coordinates are not the
        model's, a joint without coordinates or a loop joint is not among
        ``model.joints``); if, without ``child_bodies``, a tree joint closes
        a kinematic loop of the tree joints, the model has constraints that
        are not the rows of its loop joints (a loop closed by hand, a
        nonholonomic constraint, a ``KanesMethod`` with dependent speeds:
        the message names them and points to
        :class:`~sympy_loads.LoopJoint`), or the joint is a ``WeldJoint`` of
        a ``KanesMethod`` (no speeds to find its child side from); if a loop
        joint's rows are not among the system's holonomic constraints; or
        if a load cannot be assigned to a side.

    References
    ==========

    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, McGraw-Hill, 1985, sec. 5.9.
       https://hdl.handle.net/1813/638
    .. [Notes3D] "Three-Dimensional Generalized Forces", course notes:
       joint friction is computed from the constraint (reaction) forces.
    """
    kind = _reaction_kind(joint)
    if kind == 'loop':
        return _loop_reaction(joint, model)
    N, bodies, loads, joints, q, u, qdot_map = _model_parts(model, frame)
    _check_membership(joint, model, q, joints)
    loops = _loop_joints(model)
    _check_loop_rows(loops, model)
    if child_bodies is None:
        _check_constraints_are_loops(joint, model, loops)
    child_side = _child_side(joint, model, bodies, joints, N, child_bodies)
    parent_side = (set(bodies) | {joint.parent}) - child_side
    all_joints = list(joints) + ([joint] if joint not in joints else [])
    if child_loads is not None:
        applied = _as_loads(child_loads, 'child_loads')
    else:
        applied = [ld for ld in loads
                   if _load_side(ld, child_side, parent_side, all_joints)]
    applied += _loop_loads(loops, child_side)
    R, T = _side_resultants(child_side, applied, joint.child_point, N)
    axes = _axis_basis(joint)
    ci = joint.child_interframe
    Rm, Tm = R.to_matrix(ci), T.to_matrix(ci)
    cf, ct = _CONSTRAINED[kind]
    qdot_map = _with_second_derivatives(qdot_map)
    comps = []
    for vec, mask in ((Rm, cf), (Tm, ct)):
        col = []
        for e, keep in zip(axes, mask):
            if keep:
                c = (e.to_matrix(ci).T * vec)[0]
                col.append(c.xreplace(qdot_map[0]).xreplace(qdot_map[1]))
            else:
                col.append(sm.S.Zero)
        comps.append(col)
    return JointReaction(joint, axes, comps[0], comps[1])


def _with_second_derivatives(qdot_map):
    """``(second, first)``: the replacements of each q'' (by the time
    derivative of q' with q' replaced again) and of each q' by the
    kinematic differential equations. Velocities that SymPy computes from
    positions (a point on a prismatic joint's moving parent) bring q' and
    their accelerations q''."""
    t = dynamicsymbols._t
    second = {qd.diff(t): sm.diff(rhs, t).xreplace(qdot_map)
              for qd, rhs in qdot_map.items()}
    return second, qdot_map


def _loop_reaction(loop, model):
    """The reaction of a loop joint: its multipliers along its axes."""
    if not isinstance(model, System) or loop not in model.joints:
        raise ValueError(
            f'The loop joint {loop.name!r} is not part of the model: its '
            f'reaction is its multipliers {list(loop.multipliers)}, which are '
            f'the constraint force of a System that holds it; add it with '
            f'system.add_joints and its rows with '
            f'system.add_holonomic_constraints.')
    _check_loop_rows([loop], model)
    return JointReaction(loop, loop.axes, loop.force_components,
                         loop.torque_components)


def _check_membership(joint, model, q, joints):
    """Raise ValueError if ``joint`` is not part of ``model``."""
    foreign = [c for c in joint.coordinates if c not in q]
    listed = ('model.joints' if isinstance(model, System) else
              'the coordinates of the KanesMethod')
    if foreign:
        raise ValueError(
            f'joint {joint.name!r} is not part of the model: its '
            f'coordinates ({", ".join(map(str, foreign))}) are not among '
            f'the model\'s generalized coordinates '
            f'({", ".join(map(str, q))}); add the joint to {listed}, or '
            f'pass the model it belongs to.')
    if (not len(joint.coordinates) and isinstance(model, System)
            and joint not in joints):
        raise ValueError(
            f'joint {joint.name!r} is not part of the model: it is not '
            f'among model.joints; add it with add_joints, or pass the model '
            f'it belongs to.')


def _child_side(joint, model, bodies, joints, N, child_bodies):
    """The bodies on the child side of a tree joint: ``child_bodies`` if
    given, else those reached from its child through the other tree joints
    of a System (loop joints left out), else (a KanesMethod) the bodies
    whose velocity depends on the joint's speeds."""
    if child_bodies is not None:
        child_side = set(child_bodies)
        for b in child_side:
            _check_type('child_bodies', b, BodyBase, 'Particle or RigidBody')
    elif joint in joints:
        tree = [j for j in joints if not _is_loop_joint(j)]
        child_side = _joint_graph_side(joint, tree)
        if child_side is None:
            raise ValueError(
                f'{joint} closes a kinematic loop of the joints of the '
                f'system, so its child side is not defined by them; close '
                f'the loop with a sympy_loads.LoopJoint instead, or pass '
                f'child_bodies.')
    elif not len(joint.speeds):
        raise ValueError(
            f'{joint} has no speeds, so the bodies on its child side cannot '
            f'be found from the velocities of the KanesMethod; pass '
            f'child_bodies, or use a System holding the joint.')
    else:
        child_side = _kinematic_side(joint, bodies, N)
    return child_side & (set(bodies) | {joint.child})
