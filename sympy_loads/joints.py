r"""Joints that close kinematic loops and carry their constraint force.

A tree of SymPy joints (``PinJoint``, ``PrismaticJoint``, ...) places every
body with its own coordinates. A closed mechanism (a four-bar, a
slider-crank) needs one more joint whose coordinates the tree has already
fixed: its conditions are holonomic constraints between coordinates that
exist. :class:`LoopJoint` writes those constraints from the joint's kind and
names the force each one carries, so that the reaction at every joint of
the loop can be computed (:func:`~sympy_loads.joint_reactions`), and joint
friction driven by it (:class:`~sympy_loads.JointFriction`).
"""

import warnings

import numpy as np
import sympy as sm
from scipy.optimize import least_squares
from sympy.physics.mechanics import dynamicsymbols, find_dynamicsymbols
from sympy.physics.mechanics.joint import Joint
from sympy.physics.vector import ReferenceFrame, Vector

from ._numeric.codegen import symengine_available, to_symengine
from ._utils import _check_type, _lambdify

__all__ = ['LoopJoint']

#: The kinds of loop joint and the components of the reaction each
#: transmits: (force x, y, z), (torque x, y, z) in :attr:`LoopJoint.axes`.
KINDS = {
    'pin': ((1, 1, 1), (1, 1, 0)),
    'spherical': ((1, 1, 1), (0, 0, 0)),
    'prismatic': ((1, 1, 0), (1, 1, 1)),
    'cylindrical': ((1, 1, 0), (1, 1, 0)),
    'weld': ((1, 1, 1), (1, 1, 1)),
}
_LABELS = ('Fx', 'Fy', 'Fz', 'Tx', 'Ty', 'Tz')
_AXIAL = ('pin', 'prismatic', 'cylindrical')

# a row is identically zero where its value at random points is below this
# fraction of the sum of its terms' magnitudes (round-off of a cancellation)
ZERO_TOLERANCE = 1e-10
# a row is redundant where it adds less than this fraction of the largest
# singular value to the rank of the loop's Jacobian on its manifold
RANK_TOLERANCE = 1e-8
# random points (and manifold points found from them) of the tests
SAMPLES = 3


def _components_in(vector, frame):
    """``vector.to_matrix(frame)``, summed as ``frame.dcm(F) * m`` over the
    vector's parts ``m`` in frames ``F`` with the products of entries
    written out: SymPy's ``to_matrix`` takes three dot products, each a
    product of three Matrices (about 10 ms per call for a link in
    IFToMM's N-four-bar at N = 40). ValueError where a frame of the
    vector is not oriented relative to ``frame``."""
    column = [sm.S.Zero] * 3
    for measures, other in vector.args:
        nonzero = [k for k in range(3) if measures[k] != 0]
        if other == frame:
            for k in nonzero:
                column[k] += measures[k]
            continue
        dcm = frame.dcm(other)
        for i in range(3):
            column[i] += sm.Add(*[dcm[i, k] * measures[k] for k in nonzero])
    return sm.Matrix(column)


def _constant_components(vector, frame, argname):
    """The components of ``vector`` in ``frame``, which must be constant
    (the vector fixed in the frame); ValueError otherwise."""
    try:
        matrix = _components_in(vector, frame)
    except ValueError as error:
        raise ValueError(f'{argname} cannot be expressed in {frame}: '
                         f'{error}') from None
    if find_dynamicsymbols(matrix):
        matrix = matrix.applyfunc(sm.trigsimp)
    if find_dynamicsymbols(matrix):
        raise ValueError(
            f'{argname} = {vector} is not fixed in {frame} (its components '
            f'there change with {sorted(map(str, find_dynamicsymbols(matrix)))}'
            f'); give an axis fixed in the body'
            + (', as child_axis' if 'child' in argname else '')
            + (', or a frame it is fixed in' if 'frame' in argname else '')
            + '.')
    norm = sm.sqrt(sum(c**2 for c in matrix))
    if norm == 0:
        raise ValueError(f'{argname} must not be the zero vector.')
    return (matrix / norm).applyfunc(sm.simplify)


def _basis(axis):
    """Columns ``(x, y, z)``: a right-handed orthonormal basis with ``z``
    along the unit column ``axis`` (a cyclic permutation of the frame's
    axes where ``axis`` is one of them)."""
    nonzero = [i for i in range(3) if axis[i] != 0]
    if len(nonzero) == 1:
        i = nonzero[0]
        s = sm.sign(axis[i])
        e = [sm.zeros(3, 1) for _ in range(3)]
        e[0][(i + 1) % 3] = 1
        e[1][(i + 2) % 3] = s
        e[2][i] = s
        return e
    helper = sm.Matrix([1, 0, 0]) if axis[0] == 0 else sm.Matrix([0, 0, 1])
    if axis[0] != 0 and axis[1] == 0 and axis[2] == 0:
        helper = sm.Matrix([0, 1, 0])
    x = axis.cross(helper)
    x = (x / sm.sqrt(sum(c**2 for c in x))).applyfunc(sm.simplify)
    y = axis.cross(x).applyfunc(sm.simplify)
    return [x, y, axis]


def _vector(column, frame):
    return sum((c * e for c, e in zip(column, frame)), Vector(0))


def _random_values(symbols, rng):
    """Values for ``symbols``: coordinates (functions of time) anywhere in
    a turn, constants in [0.5, 1.5] (lengths, masses: positive)."""
    return np.array([rng.uniform(-np.pi, np.pi)
                     if isinstance(s, sm.core.function.AppliedUndef)
                     else rng.uniform(0.5, 1.5) for s in symbols])


class LoopJoint(Joint):
    r"""A joint that closes a kinematic loop: holonomic constraints between
    two bodies already placed by a tree of joints, and the force they carry.

    Explanation
    ===========

    SymPy's joints build a tree: each adds the coordinates that place its
    child relative to its parent. The joint that closes a loop (the fourth
    pin of a four-bar, the pin between the connecting rod and the piston of
    a slider-crank) adds no coordinates; it adds constraints. A
    ``LoopJoint`` writes them from its ``kind``, with ``r`` the position of
    ``child_point`` from ``parent_point`` and
    :math:`(\hat{e}_x, \hat{e}_y, \hat{e}_z)` the unit vectors of
    :attr:`axes`, fixed in :attr:`frame` (:math:`\hat{e}_z` along
    ``joint_axis``)::

        kind          force rows            torque rows
        pin           e_x.r, e_y.r, e_z.r   e_x.(a x c), e_y.(a x c)
        spherical     e_x.r, e_y.r, e_z.r   -
        prismatic     e_x.r, e_y.r          e_k.theta, k = x, y, z
        cylindrical   e_x.r, e_y.r          e_x.(a x c), e_y.(a x c)
        weld          e_x.r, e_y.r, e_z.r   e_k.theta, k = x, y, z

    where ``a`` is the joint axis fixed in the parent, ``c`` the same axis
    fixed in the child (``child_axis``) and
    :math:`\bar{\theta} = \frac{1}{2} \sum_j \hat{p}_j \times \hat{c}_j`
    the small-rotation vector between the parent's and the child's
    interframes (axes :math:`\hat{p}_j`, :math:`\hat{c}_j`), zero when they
    coincide.

    The rows are written so that, on the constraint manifold, the time
    derivative of a force row is
    :math:`\hat{e}_k \cdot (\bar{v}^C - \bar{v}^{P'})` (``C`` the child
    point, ``P'`` the point of the parent at ``C``) and that of a torque
    row :math:`\hat{e}_k \cdot ({}^N\bar{\omega}^{child} -
    {}^N\bar{\omega}^{parent})`. The generalized constraint force of
    multiplier :math:`\lambda_i` is therefore the generalized active force
    of :math:`\lambda_i \hat{e}_k` [Kane1985]_: each of :attr:`multipliers`
    is the component along :math:`\hat{e}_k` of the **force the parent
    exerts on the child at** ``child_point`` (force rows) or of the
    **torque the parent exerts on the child** (torque rows). The parent
    takes the opposite force, at the same place, and the opposite torque::

             parent                 child
               \\   -F, -T   F, T    /
                o---------><--------o      F = sum lambda_k e_k at C
                        C (child_point)

    Rows that are identically zero for the model (the out-of-plane rows of
    a pin closing a planar loop) are dropped, and so are rows that are
    redundant on the loop's own configuration manifold (their gradients
    depend on the others': an overconstrained mechanism); :attr:`dropped`
    names both, and a redundant row is reported with a warning, since the
    reaction component along it is then indeterminate: it is taken as zero,
    as a multibody program that removes redundant constraints does
    [Autodesk]_.

    Build it after the joints that place ``parent`` and ``child``, add it
    to the ``System`` (it adds no coordinates, speeds or kinematic
    equations) and add its :attr:`holonomic_constraints`; choose dependent
    coordinates and speeds as for any constraint. ``add_joints`` does not
    add the constraints: a System holding a ``LoopJoint`` without any of
    them would move as an open chain, so :func:`~sympy_loads.simulate`
    and the other functions that take a System refuse it, naming the
    joint.

    Examples
    ========

    Moore's four-bar linkage [Moore]_ as a chain of pins closed on the
    ground by a ``LoopJoint``:

    >>> import sympy as sm
    >>> from sympy.physics.mechanics import (PinJoint, RigidBody, System,
    ...                                      dynamicsymbols)
    >>> from sympy_loads import LoopJoint
    >>> la, lb, lc, ln = sm.symbols('l_a l_b l_c l_n', positive=True)
    >>> q1, q2, q3 = dynamicsymbols('q1:4')
    >>> ground = RigidBody('N')
    >>> crank, coupler, rocker = (RigidBody(n) for n in ('A', 'B', 'C'))
    >>> N = ground.frame
    >>> system = System.from_newtonian(ground)
    >>> system.add_joints(
    ...     PinJoint('P1', ground, crank, coordinates=q1, joint_axis=N.z),
    ...     PinJoint('P2', crank, coupler, coordinates=q2,
    ...              parent_point=la*crank.x, joint_axis=N.z),
    ...     PinJoint('P3', coupler, rocker, coordinates=q3,
    ...              parent_point=lb*coupler.x, joint_axis=N.z))
    >>> loop = LoopJoint('P4', rocker, ground, parent_point=lc*rocker.x,
    ...                  child_point=ln*N.x, kind='pin', joint_axis=N.z)
    >>> loop.labels
    ('Fx', 'Fy')
    >>> loop.dropped
    {'Fz': 'identically zero', 'Tx': 'identically zero', 'Ty': 'identically zero'}
    >>> loop.multipliers.T
    Matrix([[lambda_P4_Fx(t), lambda_P4_Fy(t)]])
    >>> system.add_joints(loop)
    >>> system.add_holonomic_constraints(*loop.holonomic_constraints)
    >>> u1, u2, u3 = system.u
    >>> system.q_ind, system.q_dep = [q1], [q2, q3]
    >>> system.u_ind, system.u_dep = [u1], [u2, u3]
    >>> len(system.form_eoms())
    1

    The multipliers are the force the rocker exerts on the ground at P4,
    along the axes of the frame ``joint_axis`` is written in, the ground's:

    >>> loop.force
    lambda_P4_Fx(t)*N_frame.x + lambda_P4_Fy(t)*N_frame.y

    Parameters
    ==========

    name : str
        The joint's name (it names the multipliers).
    parent, child : Particle or RigidBody
        The two bodies the joint connects, already placed by other joints.
    parent_point, child_point : Point or Vector, optional
        The joint's point on each body: a point fixed in it or a vector
        from its mass center (SymPy's meaning; default the mass center).
        They coincide when the loop is closed (except along the axis of a
        prismatic or cylindrical joint).
    kind : str, optional
        ``'pin'`` (default), ``'spherical'``, ``'prismatic'``,
        ``'cylindrical'`` or ``'weld'``.
    joint_axis : Vector, optional
        The axis of a pin, prismatic or cylindrical joint, fixed in the
        parent (required for these kinds).
    child_axis : Vector, optional
        The same axis as fixed in the child (default ``joint_axis``, which
        must then be fixed in the child too, as the normal of the plane of
        a planar mechanism is).
    parent_interframe, child_interframe : ReferenceFrame, optional
        Frames fixed in the bodies (default their frames) that coincide in
        the assembled mechanism: the orientation a weld or prismatic joint
        keeps.
    frame : ReferenceFrame, optional
        The frame whose axes resolve the rows and the reaction components
        (:attr:`axes`). For a pin, prismatic or cylindrical joint the
        joint axis must be fixed in it (default: the frame ``joint_axis``
        is written in); for a spherical or weld joint, default the parent
        interframe. Resolve them in the ground's frame where the mechanism
        allows it (a planar one always does): see the Notes.

    Raises
    ======

    TypeError
        If an argument has the wrong type.
    ValueError
        If ``kind`` is unknown; ``joint_axis`` is missing for a pin,
        prismatic or cylindrical joint, given for another kind, or not fixed
        in its body; or the two points have no known relative position.

    Notes
    =====

    The multipliers are dynamicsymbols ``lambda_<name>_<label>(t)``, with
    labels ``Fx, Fy, Fz`` (force) and ``Tx, Ty, Tz`` (torque).
    :func:`~sympy_loads.simulate` evaluates them along a run (as
    ``outputs``, or through :func:`~sympy_loads.joint_reactions`) from the
    equations of motion.

    SymPy's own reduced equations (``System.form_eoms()``, which solves
    the velocity constraints for the dependent speeds by a symbolic LU
    decomposition) need rows resolved in a frame fixed in the ground:
    resolved in a moving frame, a row's derivative has terms that vanish
    only on the loop (the rate of the axes times ``r = 0``), and the LU
    can pivot on one of them, which gives wrong accelerations at every
    closed configuration. Give ``form_eoms(constraint_solver='CRAMER')``
    then. :func:`~sympy_loads.simulate` and :func:`~sympy_loads.linearize`
    do not use those equations, and are right in any frame.

    The rows also vanish on a second branch: a pin's or cylindrical
    joint's axes opposite (``c = -a``), a weld's or prismatic joint's
    frames half a turn apart. The assembly the constraint solver finds is
    the one near the initial guesses; give guesses on the intended branch
    (the rank test of the rows keeps to it).

    References
    ==========

    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, McGraw-Hill, 1985, sec. 4.1 (generalized active
       forces) and 5.9 (noncontributing forces brought into evidence).
       https://hdl.handle.net/1813/638
    .. [Autodesk] Autodesk Inventor, "Dynamic Simulation: Constraint
       Kinematics" (course module): redundant constraints, their detection
       by rank, and why the reactions are then not determined.
    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Equations of Motion
       with Holonomic Constraints" (the four-bar linkage).
       https://moorepants.github.io/learn-multibody-dynamics/
    """

    def __init__(self, name, parent, child, *, parent_point=None,
                 child_point=None, kind='pin', joint_axis=None,
                 child_axis=None, parent_interframe=None,
                 child_interframe=None, frame=None):
        _check_type('kind', kind, str)
        if kind not in KINDS:
            raise ValueError(f'kind must be one of {sorted(KINDS)}, not '
                             f'{kind!r}.')
        if kind in _AXIAL and joint_axis is None:
            raise ValueError(f'joint_axis is required for a {kind} '
                             f'LoopJoint.')
        if kind not in _AXIAL and (joint_axis is not None
                                   or child_axis is not None):
            raise ValueError(f'joint_axis and child_axis apply to a pin, '
                             f'prismatic or cylindrical LoopJoint, not a '
                             f'{kind} one.')
        for argname, value in (('joint_axis', joint_axis),
                               ('child_axis', child_axis)):
            if value is not None:
                _check_type(argname, value, Vector)
        super().__init__(name, parent, child, parent_point=parent_point,
                         child_point=child_point,
                         parent_interframe=parent_interframe,
                         child_interframe=child_interframe)
        self._kind = kind
        self._joint_axis = joint_axis
        self._child_axis = child_axis if child_axis is not None else (
            joint_axis)
        if frame is not None:
            _check_type('frame', frame, ReferenceFrame)
        self._frame = frame
        self._axes = self._frame_axes()
        self._branch = None
        rows = self._candidate_rows()
        kept, self._dropped = _select_rows(name, rows, self._branch)
        self._labels = tuple(label for label, _ in kept)
        self._holonomic = sm.Matrix([row for _, row in kept])
        self._multipliers = sm.Matrix([
            dynamicsymbols(f'lambda_{name}_{label}') for label in
            self._labels])

    # -- SymPy's Joint interface: no coordinates, no kinematics -------------

    def __str__(self):
        return (f'LoopJoint: {self.name}  parent: {self.parent}  '
                f'child: {self.child}')

    def _generate_coordinates(self, coordinates):
        return sm.Matrix()

    def _generate_speeds(self, speeds):
        return sm.Matrix()

    def _orient_frames(self):
        # the tree of joints has oriented both bodies already
        pass

    def _set_angular_velocity(self):
        pass

    def _set_linear_velocity(self):
        pass

    @property
    def kdes(self):
        """Kinematic differential equations: none (an empty Matrix)."""
        return sm.Matrix(1, 0, []).T

    # -- the joint's own quantities -----------------------------------------

    @property
    def kind(self):
        """``'pin'``, ``'spherical'``, ``'prismatic'``, ``'cylindrical'``
        or ``'weld'``."""
        return self._kind

    @property
    def joint_axis(self):
        """The joint axis fixed in the parent (None for a spherical or weld
        joint)."""
        return self._joint_axis

    @property
    def child_axis(self):
        """The joint axis fixed in the child (None for a spherical or weld
        joint)."""
        return self._child_axis

    @property
    def frame(self):
        """The frame the rows and the reaction components are resolved
        in (see the ``frame`` parameter)."""
        return self._frame

    @property
    def axes(self):
        r"""Unit vectors :math:`(\hat{e}_x, \hat{e}_y, \hat{e}_z)` fixed in
        :attr:`frame`, :math:`\hat{e}_z` along the joint axis (for a pin,
        prismatic or cylindrical joint): the directions of the reaction
        components."""
        return self._axes

    @property
    def labels(self):
        """The labels (``'Fx'``, ..., ``'Tz'``) of the kept rows, in the
        order of :attr:`holonomic_constraints` and :attr:`multipliers`."""
        return self._labels

    @property
    def dropped(self):
        """``{label: reason}``: the rows of the kind that were dropped,
        ``'identically zero'`` or ``'redundant'``."""
        return dict(self._dropped)

    @property
    def holonomic_constraints(self):
        """Column Matrix of the configuration constraints (zero when the
        loop is closed); add them with ``add_holonomic_constraints``."""
        return self._holonomic

    @property
    def multipliers(self):
        """Column Matrix of the constraint-force components (functions of
        time), one per row of :attr:`holonomic_constraints`: the force
        (``F`` labels) or torque (``T`` labels) the parent exerts on the
        child along :attr:`axes`."""
        return self._multipliers

    def _components(self, first):
        by_label = dict(zip(self._labels, self._multipliers))
        return sm.Matrix([by_label.get(label, sm.S.Zero)
                          for label in _LABELS[first:first + 3]])

    @property
    def force_components(self):
        """3x1 Matrix: the force on the child along :attr:`axes` (zero for a
        component the joint does not transmit or that was dropped)."""
        return self._components(0)

    @property
    def torque_components(self):
        """3x1 Matrix: the torque on the child along :attr:`axes`."""
        return self._components(3)

    @property
    def force(self):
        """The force the parent exerts on the child at ``child_point``."""
        return sum((c * e for c, e in zip(self.force_components,
                                          self._axes)), Vector(0))

    @property
    def torque(self):
        """The torque the parent exerts on the child."""
        return sum((c * e for c, e in zip(self.torque_components,
                                          self._axes)), Vector(0))

    # -- the constraints ----------------------------------------------------

    def _frame_axes(self):
        """The axes: those of ``frame`` (default the parent interframe)
        for a spherical or weld joint; for the others a basis of ``frame``
        (default the frame ``joint_axis`` is written in) around the joint
        axis, which must be fixed both in the parent and in ``frame``."""
        p = self.parent_interframe
        if self._kind not in _AXIAL:
            frame = self._frame or p
            self._frame = frame
            return (frame.x, frame.y, frame.z)
        # fixed in the parent (the rows' rates need it)
        _constant_components(self._joint_axis, p, 'joint_axis')
        frame = self._frame
        if frame is None:
            frame = (self._joint_axis.args[0][1] if self._joint_axis.args
                     else p)
        self._frame = frame
        axis = _constant_components(self._joint_axis, frame,
                                    'joint_axis (in frame)')
        return tuple(_vector(column, frame) for column in _basis(axis))

    def _candidate_rows(self):
        """``[(label, row)]`` of the kind's rows (see the class
        docstring)."""
        try:
            r = self.child_point.pos_from(self.parent_point)
        except ValueError:
            raise ValueError(
                f'LoopJoint {self.name!r}: the position of the child point '
                f'{self.child_point} from the parent point '
                f'{self.parent_point} is not known; build the LoopJoint '
                f'after the joints that place {self.parent} and '
                f'{self.child}.') from None
        forces, torques = KINDS[self._kind]
        # the axes are fixed in self._frame: the rows are dot products of
        # components there (see _components_in)
        frame = self._frame
        axes = [_components_in(e, frame) for e in self._axes]

        def dot(a, b):
            return sm.Add(*[a[i] * b[i] for i in range(3)])
        r = _components_in(r, frame)
        rows = [(label, dot(e, r)) for label, e, keep in
                zip(_LABELS[:3], axes, forces) if keep]
        if self._kind in ('pin', 'cylindrical'):
            c = _vector(_constant_components(
                self._child_axis, self.child_interframe,
                'child_axis' if self._child_axis is not self._joint_axis
                else 'joint_axis (as the child axis)'),
                self.child_interframe)
            c = _components_in(c, frame)
            tilt = axes[2].cross(c)
            rows += [(label, dot(e, tilt)) for label, e in
                     zip(_LABELS[3:5], axes[:2])]
            # the rows vanish with the axes opposite too: not this branch
            self._branch = dot(axes[2], c)
        elif self._kind in ('prismatic', 'weld'):
            p, c = self.parent_interframe, self.child_interframe
            theta = sum((pj.cross(cj) for pj, cj in
                         zip((p.x, p.y, p.z), (c.x, c.y, c.z))),
                        Vector(0)) / 2
            rows += [(label, e.dot(theta)) for label, e in
                     zip(_LABELS[3:], self._axes)]
            # theta vanishes after a half turn too: the trace of the
            # relative rotation, 1 + 2 cos(angle), exceeds 1 on this branch
            self._branch = sum((pj.dot(cj) for pj, cj in zip(
                (p.x, p.y, p.z), (c.x, c.y, c.z))), sm.S.Zero) - 1
        return rows


def _evaluator(symbols, exprs, jacobian_rows=0):
    """``f(values) -> ndarray``: ``exprs`` at values of ``symbols``,
    followed by the Jacobian (row by row) of the first ``jacobian_rows``
    of them with respect to the coordinates among ``symbols``; evaluated
    by SymEngine's interpreter where it is installed (fast to set up for
    the large expressions of a spatial chain), else by NumPy code from
    SymPy. One function for all, since setting one up costs more than
    evaluating it."""
    plain = [sm.Dummy() for _ in symbols]
    column = sm.Matrix(exprs).xreplace(dict(zip(symbols, plain)))
    coords = [p for s, p in zip(symbols, plain)
              if isinstance(s, sm.core.function.AppliedUndef)]
    if symengine_available():
        import symengine as se
        entries = to_symengine(list(column))
        args = to_symengine(plain)
        xs = to_symengine(coords)
        entries += [e.diff(x) for e in entries[:jacobian_rows] for x in xs]
        function = se.Lambdify(args, entries, backend='lambda', real=True)
    else:
        entries = list(column)
        if jacobian_rows:
            entries += list(column[:jacobian_rows, :].jacobian(coords))
        function = _lambdify([plain], sm.Matrix(entries))

    def evaluate(values):
        with np.errstate(all='ignore'):
            return np.asarray(function(np.asarray(values, dtype=float)),
                              dtype=float).ravel()
    return evaluate


def _select_rows(name, rows, branch=None):
    """``(kept, dropped)``: the rows of ``rows`` (``[(label, expr)]``)
    that are neither identically zero nor redundant, and ``{label:
    reason}`` for the others (a warning names redundant ones).

    A row is identically zero where its values at :data:`SAMPLES` random
    points are all below :data:`ZERO_TOLERANCE` times ``1 +`` the largest
    value of any row there (the rows are lengths and direction cosines of
    the mechanism's size: a row that is not zero has values of that order
    at random points, one that cancels has round-off)."""
    exprs = [sm.sympify(expr) for _, expr in rows]
    symbols = sorted(set(find_dynamicsymbols(sm.Matrix(exprs))) | set(
        sm.Matrix(exprs).free_symbols) - {dynamicsymbols._t}, key=str)
    symbols.append(dynamicsymbols._t)
    rng = np.random.default_rng(0)
    points = [_random_values(symbols, rng) for _ in range(SAMPLES)]
    evaluate = _evaluator(symbols, exprs)
    values = np.array([evaluate(point) for point in points])
    if not np.all(np.isfinite(values)):
        raise ValueError(f'LoopJoint {name!r}: its constraints are not '
                         f'finite at random configurations.')
    scale = 1.0 + np.max(np.abs(values), initial=0.0)
    zero = np.all(np.abs(values) <= ZERO_TOLERANCE * scale, axis=0)
    dropped = {rows[i][0]: 'identically zero' for i in range(len(rows))
               if zero[i]}
    kept = [row for i, row in enumerate(rows) if not zero[i]]
    redundant = _redundant_rows(kept, symbols, rng, branch)
    if redundant:
        labels = [kept[i][0] for i in redundant]
        for i in redundant:
            dropped[kept[i][0]] = 'redundant'
        kept = [row for i, row in enumerate(kept) if i not in redundant]
        warnings.warn(
            f'LoopJoint {name!r}: the rows {labels} are redundant with '
            f'{[label for label, _ in kept]} on the loop (an '
            f'overconstrained mechanism); they are dropped, and the '
            f'reaction components along them are indeterminate and taken '
            f'as zero.', UserWarning, stacklevel=3)
    return kept, dropped


def _redundant_rows(kept, symbols, rng, branch=None):
    """Indices of the rows of ``kept`` whose gradients, with respect to the
    coordinates in them, depend on those of earlier rows at points of the
    rows' own manifold (found by least squares from random points, the
    constants random too, and ``branch`` positive there where given: the
    rows of an axis or an orientation also vanish with the axes opposite or
    the frames a half turn apart, where their rank drops); the largest rank
    found counts. Empty where no point of the manifold is found (nothing
    can be said)."""
    coords = [i for i, s in enumerate(symbols)
              if isinstance(s, sm.core.function.AppliedUndef)]
    if len(kept) < 2 or not coords:
        return []
    exprs = [e for _, e in kept]
    n = len(exprs)
    evaluate = _evaluator(symbols, exprs + ([] if branch is None
                                            else [branch]), n)
    start = n + (branch is not None)      # where the Jacobian starts

    def value(point):
        return evaluate(point)[:n]

    def jacobian(point):
        return evaluate(point)[start:]

    def side(point):
        return evaluate(point)[n:start]
    best = None
    for _ in range(4 * SAMPLES):
        point = _random_values(symbols, rng)

        def residual(z, point=point):
            point[coords] = z
            return value(point)

        def gradient(z, point=point):
            point[coords] = z
            return jacobian(point).reshape(len(kept), len(coords))
        try:
            # (the dogleg method reaches the manifold in some 8
            # evaluations where the default trust region takes 40)
            found = least_squares(residual, point[coords], jac=gradient,
                                  method='dogbox', xtol=1e-15, ftol=1e-15,
                                  gtol=1e-15)
        except (ValueError, np.linalg.LinAlgError):
            continue
        if not np.all(np.isfinite(found.fun)) or np.max(
                np.abs(found.fun)) > 1e-9:
            continue
        point[coords] = found.x
        if branch is not None and not side(point)[0] > 0:
            continue
        chosen = _independent_rows(gradient(found.x))
        if best is None or len(chosen) > len(best):
            best = chosen
        if len(best) == len(kept):
            return []
    if best is None:
        return []
    return [i for i in range(len(kept)) if i not in best]


def _independent_rows(J):
    """Indices of the rows of ``J`` kept in order where each raises the
    rank (relative tolerance :data:`RANK_TOLERANCE`)."""
    scale = np.linalg.norm(J, 2)
    if scale == 0:
        return []
    chosen = []
    for i in range(J.shape[0]):
        trial = J[chosen + [i]]
        s = np.linalg.svd(trial, compute_uv=False)
        if s[-1] > RANK_TOLERANCE * scale:
            chosen.append(i)
    return chosen
