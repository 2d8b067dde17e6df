r"""Rigid impacts: Newton's law of restitution in generalized speeds.

Moore's chapter "Force, Moment, and Torque" (section "Collision") names two
ways to model a collision [Moore]_. The compliant one, a contact force that
grows with the penetration, is :class:`~sympy_loads.HuntCrossleyContact`.
The Newtonian one, in this module, keeps the bodies rigid and replaces the
collision by an instantaneous change of velocity: the normal speed of the
contact point after the impact is :math:`-e` times the one before,

.. math::

   v_n^+ = -e\, v_n^-, \qquad 0 \le e \le 1,

which, Moore notes, "can be extended to a multibody system" (he refers
to [Flores2022]_). In
generalized speeds [KaneLevinson]_ an impulse :math:`P` along the normal
:math:`\hat{n}` at the contact point changes the speeds by

.. math::

   M (u^+ - u^-) = P\, w, \qquad
   w_r = \frac{\partial v_n}{\partial u_r},

where :math:`M` is the mass matrix and :math:`w_r` is the normal
component of the contact point's partial velocity (relative to the plane's
material point there when the plane is a moving body, which takes the
equal and opposite impulse). Where the model has dependent speeds, the
impulse is taken in the independent ones with the constraint reactions
eliminated, so the jump satisfies the velocity constraints. :func:`simulate`
finds each impact with the integrator's event location, applies the jump
and continues the integration from the new state.

References
==========

.. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
   Torque", section "Collision".
   https://moorepants.github.io/learn-multibody-dynamics/
.. [Flores2022] P. Flores, "Contact mechanics for dynamical systems: a
   comprehensive review", Multibody Syst. Dyn. 54 (2022) 127-177.
   https://doi.org/10.1007/s11044-021-09803-y
.. [KaneLevinson] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, McGraw-Hill, 1985: generalized impulse and the change of
   the generalized momenta. https://hdl.handle.net/1813/638
"""

from dataclasses import dataclass

import numpy as np
import sympy as sm
from sympy.physics.mechanics import Particle, Point, ReferenceFrame, RigidBody

from ._utils import _check_type, _set_once, _sympify_scalar
from .contact import _check_plane, _frame_of, _plane_velocity

__all__ = ['ContactInterval', 'Impact', 'ImpactRecord']


class Impact:
    r"""A sphere (or point) striking a plane, with Newton's restitution law.

    Explanation
    ===========

    A sphere of ``radius`` :math:`R` (zero: a point) centered at ``point``
    :math:`P` meets a plane through ``plane_point`` :math:`O` with unit
    ``normal`` :math:`\hat{n}` pointing out of the plane, the geometry and
    conventions of :class:`~sympy_loads.HuntCrossleyContact`. The gap and
    the normal speed are

    .. math::

       h = \bar{r}^{P/O} \cdot \hat{n} - R, \qquad
       v_n = \left({}^N\bar{v}^{P} - {}^N\bar{v}^{C}\right) \cdot \hat{n},

    where :math:`C` is the plane's material point at the contact; :math:`v_n
    = \dot{h}` is negative while the sphere approaches. Passed to
    :func:`~sympy_loads.simulate` (``impacts=[...]``), the impact happens
    when :math:`h` reaches zero with :math:`v_n < 0`; the speeds then jump
    so that :math:`v_n^+ = -e v_n^-` (see the module documentation).

    With ``friction_coefficient`` :math:`\mu > 0` the impulse has a
    tangential part :math:`\bar{P}_t` in the contact plane (along
    :attr:`tangents`), bounded by Coulomb's law over the impact: the slip
    of the sphere's material point at the contact (its rotation enters
    with ``sphere_frame``) is stopped where an impulse inside the friction
    cone :math:`|\bar{P}_t| \le \mu P_n` can stop it, else the friction
    impulse opposes it, the slip direction followed through the impact as
    it changes. A slip that stops or reverses during the impact makes
    Newton's law of restitution create energy (Kane's paradox
    [KaneLevinson]_); a frictional impact therefore uses Stronge's
    energetic coefficient of restitution [Stronge2000]_ for a contact
    struck alone: :math:`e^2` is the ratio of the work of the normal
    impulse during restitution to that during compression, found by
    integrating the contact's velocities over the normal impulse. It
    equals Newton's and Poisson's coefficients when the slip keeps its
    direction or stops for good (a sphere, the falling rod of the tutorial
    "Impacts and contacts with friction"), and it never creates energy.
    Contacts struck at once, or struck while others are closed, are solved
    together as Pfeiffer and Glocker's linear complementarity problems of
    a compression and an expansion phase [PfeifferGlocker1996]_ (Poisson's
    law per contact: the expansion impulse is :math:`e` times the
    compression impulse). A frictionless impact (the default) is the
    Newtonian jump above.

    A plane without ``plane_frame`` is fixed in ``frame`` or moves with a
    prescribed motion of ``plane_point`` (a function of time) and takes no
    impulse. With ``plane_frame`` (a body, a frame, or a particle for a
    translating plane) the plane moves with the model's speeds and takes
    the equal and opposite impulse at :math:`C`.

    A contact that comes to rest *closes*: its gap is then held at zero
    by a normal force :math:`\lambda_N \ge 0` (with Coulomb friction
    where ``friction_coefficient`` is positive: sticking while
    :math:`|\lambda_T| < \mu \lambda_N`, else sliding against the slip)
    until :math:`\lambda_N` vanishes, where it opens again; its closed
    intervals and forces are in ``SimulationResult.contacts``
    (:class:`~sympy_loads.ContactInterval`). A contact comes to rest when

    * its impacts accumulate (a bouncing ball with :math:`e < 1` strikes
      infinitely often before it comes to rest): the approach speed
      :math:`-v_n^-` falls below ``rest_speed``, or, by default, below
      ``RELATIVE_REST_SPEED`` (:math:`10^{-4}`) times the largest
      approach speed of this impact in the run; that impact is plastic
      (:math:`e = 0`), shortening the run of bounces by the rest of the
      series (:math:`2 e v/(g (1 - e))` for a ball whose last approach
      speed is :math:`v`);
    * after an impact the contact point does not leave the plane (a
      plastic impact, or a rebound under ``RELATIVE_REST_SPEED`` times the
      approach speed) while the loads press it into the plane;
    * it rests on its plane at the start (closed, not moving along the
      normal) while the loads press it in, whatever the restitution.

    The plastic impact that ends an accumulation also stops the other
    contacts of that impact that would leave their planes slower than the
    same threshold (their normal and slip speeds brought to zero
    together): a rocking block whose impacts accumulate comes to rest on
    both corners.

    Which of the contacts touching their planes close, stick or slide is
    decided for all of them together (Pfeiffer and Glocker's linear
    complementarity problem). A contact that cannot be resolved (a
    complementarity problem without solution, e.g. Painleve's paradox)
    stops the run with a :class:`~sympy_loads.SimulationError` that names
    it and keeps the run up to that time in its ``result``.

    Without friction, contacts that close at the same instant (a rod
    falling flat on both ends) are struck at once, with one impulse each from the restitution
    law of every contact, when none of those impulses pulls; otherwise
    they are struck one after another, the fastest approach first, until
    none approaches. The second way depends on the order when
    :math:`e < 1`, as any sequential treatment of simultaneous impacts
    does [Flores2022]_. A ball striking a row of touching balls passes the
    impulse along the row that way (with :math:`e = 1` only the last ball
    leaves, as in Newton's cradle); where the impulses go to and fro
    without end (:math:`e < 1`), the closed contacts that they would drive
    into their planes join the impact without rebound after some rounds,
    so the row moves on together (at :math:`1/n` of the striker's speed
    for :math:`e = 0`).

    A restitution that depends on the state is evaluated at each impact,
    and one outside
    :math:`[0, 1]` there stops the run with a
    :class:`~sympy_loads.SimulationError` (the run up to it in its
    ``result``). Impacts are looked for inside each integration step, not
    only at its ends: a gap that dips below zero and returns within one
    step is found.

    Examples
    ========

    A ball of radius 0.1 dropped from a height of 1 onto the floor
    :math:`y = 0`, with :math:`e = 0.8`; each rebound reaches :math:`e^2`
    times the previous height:

    >>> import numpy as np
    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import Impact, simulate
    >>> y, v = me.dynamicsymbols('y v')
    >>> m, g = sm.symbols('m g')
    >>> N = me.ReferenceFrame('N')
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', y*N.y); P.set_vel(N, v*N.y)
    >>> kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v])
    >>> _ = kane.kanes_equations([me.Particle('ball', P, m)],
    ...                          [(P, -m*g*N.y)])
    >>> floor = Impact(P, O, N.y, N, restitution=0.8, radius=0.1)
    >>> floor.gap
    y(t) - 0.1
    >>> floor.normal_speed
    v(t)
    >>> res = simulate(kane, (0, 1), {y: 1.1, v: 0.0},
    ...                {m: 1.0, g: 9.81}, impacts=[floor])
    >>> len(res.impacts)
    1
    >>> hit = res.impacts[0]
    >>> print(f'{hit.time:.6f} {hit.normal_speed_before:.6f} '
    ...       f'{hit.normal_speed_after:.6f}')
    0.451524 -4.429447 3.543558
    >>> apex = hit.time + hit.normal_speed_after/9.81
    >>> res = simulate(kane, (0, 1), {y: 1.1, v: 0.0}, {m: 1.0, g: 9.81},
    ...                impacts=[floor], t_eval=[apex])
    >>> print(f'{res.q[0, 0] - 0.1:.10f}')      # e**2 = 0.64 of the drop
    0.6400000000

    Parameters
    ==========

    point : Point
        Center of the sphere (the point itself for ``radius=0``); its
        velocity in ``frame`` must be known.
    plane_point : Point
        A point of the plane (fixed in ``plane_frame`` if given).
    normal : Vector
        Unit normal of the plane, pointing towards the free side, fixed in
        ``plane_frame`` (or ``frame``).
    frame : ReferenceFrame
        The frame in which velocities are taken: the model's inertial
        frame.
    restitution : sympifiable
        Coefficient of restitution :math:`e`, in :math:`[0, 1]` (a symbol
        gets its value from ``simulate()``'s constants).
    friction_coefficient : sympifiable, optional
        Coulomb's coefficient :math:`\mu \ge 0` of the impulses and of
        the closed contact; default 0 (frictionless).
    radius : sympifiable, optional
        Sphere radius :math:`R \ge 0`; default 0 (a point).
    sphere_frame : ReferenceFrame or RigidBody, optional
        The frame (or body) the sphere is fixed in: its rotation enters the
        slip of the contact point and the friction impulse turns it.
        Default: the sphere translates with ``point``.
    plane_frame : ReferenceFrame, RigidBody or Particle, optional
        The body the plane is fixed in, which takes the equal and opposite
        impulse. Default: the plane does not rotate and takes no impulse.
    rest_speed : float, optional
        Approach speed (in the model's units) below which the impacts count
        as accumulating; default: relative, see above.
    name : str, optional
        A label for the records and messages; default ``'impact'`` with
        the point's name.

    Raises
    ======

    TypeError
        If an argument has the wrong type.
    ValueError
        If ``normal`` is not a unit vector fixed in the plane's frame (or
        its frame is not related to ``frame``), ``plane_point`` is not
        fixed in ``plane_frame`` (a body or particle), ``radius`` is
        negative, ``restitution`` is outside :math:`[0, 1]` or
        ``rest_speed`` is not positive. A symbolic ``radius`` or
        ``restitution`` is checked when :func:`~sympy_loads.simulate`
        has its value.

    Notes
    =====

    Between impacts with no contact closed the compiled integration runs
    as without contacts. A phase with a closed contact solves the contact
    forces of its modes at every evaluation in Python (about 0.1 ms per
    evaluation for a few contacts, against microseconds compiled; see the
    performance page), with implicit methods taking finite-difference
    Jacobians there. A spatial contact sliding in a turning direction
    follows the slip in its friction force, but its stop is watched along
    the slip direction at the start of the slide. Closed contacts are
    refused together with joint friction, and where a contact's speeds
    depend on a specified input (whose rate is not known).

    References
    ==========

    .. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
       Torque", section "Collision": the Newtonian method,
       :math:`m v^+ = -e m v^-`.
       https://moorepants.github.io/learn-multibody-dynamics/
    .. [Flores2022] P. Flores, "Contact mechanics for dynamical systems: a
       comprehensive review", Multibody Syst. Dyn. 54 (2022) 127-177.
       https://doi.org/10.1007/s11044-021-09803-y
    .. [KaneLevinson] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, McGraw-Hill, 1985: generalized impulse.
       https://hdl.handle.net/1813/638
    .. [Stronge2000] W. J. Stronge, Impact Mechanics, Cambridge University
       Press, 2000: the energetic coefficient of restitution and slip
       processes during an impact.
    .. [PfeifferGlocker1996] F. Pfeiffer, Ch. Glocker, Multibody Dynamics
       with Unilateral Contacts, Wiley, 1996.
    """

    #: Default threshold of accumulation, relative to the largest approach
    #: speed of the same impact in the run.
    RELATIVE_REST_SPEED = 1e-4

    def __init__(self, point, plane_point, normal, frame, *, restitution,
                 friction_coefficient=0, radius=0, sphere_frame=None,
                 plane_frame=None, rest_speed=None, name=None):
        _set_once(self, 'point', _check_type('point', point, Point))
        _set_once(self, 'plane_point', _check_type(
            'plane_point', plane_point, Point))
        _set_once(self, 'frame', _check_type('frame', frame, ReferenceFrame))
        # (a normal whose frames cannot be related to frame is named
        # there)
        stored, rotating = _check_plane(normal, frame, plane_frame)
        _set_once(self, 'normal', normal)
        _set_once(self, 'plane_frame', stored)
        e = _sympify_scalar('restitution', restitution, nonnegative=True)
        if e.is_number and e > 1:
            raise ValueError(f'restitution must be in [0, 1], got {e}.')
        _set_once(self, 'restitution', e)
        _set_once(self, 'friction_coefficient', _sympify_scalar(
            'friction_coefficient', friction_coefficient, nonnegative=True))
        _set_once(self, 'radius', _sympify_scalar('radius', radius,
                                                  nonnegative=True))
        _set_once(self, 'sphere_frame', _frame_of('sphere_frame',
                                                  sphere_frame))
        if rest_speed is not None:
            value = _sympify_scalar('rest_speed', rest_speed, positive=True)
            if not value.is_number or value <= 0:
                raise ValueError(f'rest_speed must be a positive number, '
                                 f'got {rest_speed!r}.')
            rest_speed = float(value)
        _set_once(self, 'rest_speed', rest_speed)
        if name is None:
            name = f'impact of {point.name}'
        _set_once(self, 'name', _check_type('name', name, str))
        try:
            height = point.pos_from(plane_point).dot(normal)
        except ValueError as error:
            raise ValueError(f'point and plane_point: the position of '
                             f'{point.name} from {plane_point.name} is not '
                             f'known ({error}).') from None
        self._gap = height - self.radius
        if stored is not None:
            _check_fixed_in(plane_point, plane_frame, frame)
        self._tangents = _tangents(normal, rotating or frame)
        try:
            contact = point.locatenew(f'{point.name}_contact',
                                      -height * normal)
            # the sphere's material point nearest the plane (-R n from
            # P) and the plane's at the contact C (P projected on it)
            v_sphere = point.vel(frame)
            if self.sphere_frame is not None:
                v_sphere = v_sphere + self.sphere_frame.ang_vel_in(
                    frame).cross(-self.radius * normal)
            v_plane = _plane_velocity(contact, plane_point, rotating,
                                      stored is not None, frame, point)
        except ValueError as error:
            raise ValueError(f'the velocity of {point.name} in {frame.name} '
                             f'or of the plane cannot be computed: '
                             f'{error}') from None
        directions = (normal,) + self._tangents
        relative = [(v_sphere - v_plane).dot(d) for d in directions]
        self._normal_speed = relative[0]
        self._tangential_speeds = tuple(relative[1:])
        # the part of the relative speeds through which the impulse acts
        # on the model: the plane takes the opposite impulse only if it is
        # a body of the model (plane_frame)
        self._impulse_speeds = (tuple(relative) if stored is not None else
                                tuple(v_sphere.dot(d) for d in directions))
        self._impulse_speed = self._impulse_speeds[0]

    point = property(lambda self: self._point,
                     doc='Center of the sphere (Point).')
    plane_point = property(lambda self: self._plane_point,
                           doc='A point of the plane (Point).')
    normal = property(lambda self: self._normal,
                      doc='Unit normal of the plane, out of it (Vector).')
    frame = property(lambda self: self._frame,
                     doc='Frame in which velocities are taken.')
    restitution = property(lambda self: self._restitution,
                           doc='Coefficient of restitution e.')
    friction_coefficient = property(
        lambda self: self._friction_coefficient,
        doc='Coefficient of friction mu of the impulses and of the closed '
            'contact.')
    radius = property(lambda self: self._radius,
                      doc='Sphere radius R.')
    sphere_frame = property(lambda self: self._sphere_frame,
                            doc='Frame the sphere is fixed in, or None (it '
                                'translates).')
    plane_frame = property(lambda self: self._plane_frame,
                           doc='Frame, body or particle the plane is fixed '
                               'in, or None.')
    rest_speed = property(lambda self: self._rest_speed,
                          doc='Absolute accumulation threshold, or None.')
    name = property(lambda self: self._name, doc='Label of the impact.')

    @property
    def gap(self):
        r"""Gap :math:`h = \bar{r}^{P/O} \cdot \hat{n} - R` (negative when
        the sphere penetrates the plane)."""
        return self._gap

    @property
    def normal_speed(self):
        r"""Normal speed :math:`v_n = \dot{h}` of the sphere relative to
        the plane (negative while approaching)."""
        return self._normal_speed

    @property
    def tangents(self):
        r"""The unit tangents :math:`(\hat{t}_1, \hat{t}_2)` of the
        contact plane along which the tangential impulses and forces are
        given: :math:`\hat{t}_1` is the basis vector of the plane's frame
        (``plane_frame``, else ``frame``) first in order among those
        perpendicular to the normal (else the least aligned with it, made
        perpendicular and normalised), and :math:`\hat{t}_2 = \hat{n}
        \times \hat{t}_1`."""
        return self._tangents

    @property
    def tangential_speeds(self):
        r"""Slip speeds :math:`(v_{t1}, v_{t2})`: the velocity of the
        sphere's material point at the contact C relative to the plane's
        material point there, along :attr:`tangents` (with
        ``sphere_frame`` the sphere's rotation enters it)."""
        return self._tangential_speeds

    def contact_directions(self, speeds, kinematics=None):
        r"""Return ``(law, impulse)``: 3 x n matrices whose rows, for the
        normal and the two :attr:`tangents`, are how the speeds
        ``speeds`` change the relative speeds of the contact
        (:math:`\partial v/\partial u_r`), and the generalized impulse per
        unit impulse along that direction (the partial velocities of the
        sphere's material point at the contact, minus the plane's when the
        plane is a body of the model). ``kinematics`` replaces coordinate
        derivatives first, as for :meth:`impulse_directions`.

        Examples
        ========

        A disc of radius ``R`` rolling on the floor ``y = 0``: its slip
        speed along :math:`\hat{t}_1 = \hat{n}_x` is
        :math:`v - R \omega`.

        >>> import sympy as sm
        >>> import sympy.physics.mechanics as me
        >>> from sympy_loads import Impact
        >>> x, y, th, v, w, vy = me.dynamicsymbols('x y theta v w v_y')
        >>> R = sm.symbols('R')
        >>> N = me.ReferenceFrame('N')
        >>> D = N.orientnew('D', 'Axis', (th, N.z)); D.set_ang_vel(N, w*N.z)
        >>> O = me.Point('O'); O.set_vel(N, 0)
        >>> P = O.locatenew('P', x*N.x + y*N.y); P.set_vel(N, v*N.x + vy*N.y)
        >>> floor = Impact(P, O, N.y, N, restitution=0, radius=R,
        ...                friction_coefficient=0.5, sphere_frame=D)
        >>> floor.tangents
        (N.x, - N.z)
        >>> law, impulse = floor.contact_directions([v, vy, w])
        >>> law
        Matrix([
        [0, 1, 0],
        [1, 0, R],
        [0, 0, 0]])
        """
        kinematics = kinematics or {}
        result = []
        for exprs in ((self._normal_speed,) + self._tangential_speeds,
                      self._impulse_speeds):
            exprs = [sm.sympify(e).xreplace(kinematics) for e in exprs]
            result.append(sm.Matrix([[e.diff(s) for s in speeds]
                                     for e in exprs]))
        return tuple(result)

    def impulse_directions(self, speeds, kinematics=None):
        r"""Return :math:`(\partial v_n/\partial u_r,\ \partial
        v_P/\partial u_r)`: how the speeds ``speeds`` change the normal
        speed, and the generalized impulse per unit normal impulse.

        Explanation
        ===========

        The first is the restitution law's row, the second the column of
        the generalized impulse :math:`P\, w` (the normal component of the
        partial velocities of the points the impulse acts on: the sphere's
        contact point, and with the opposite sign the plane's when the
        plane is a body of the model). They coincide unless the plane moves
        by a prescribed motion. ``kinematics`` (e.g. ``KanesMethod``'s
        ``kindiffdict()``) replaces coordinate derivatives first.

        Examples
        ========

        >>> import sympy.physics.mechanics as me
        >>> from sympy_loads import Impact
        >>> x, y, u, v = me.dynamicsymbols('x y u v')
        >>> N = me.ReferenceFrame('N')
        >>> O = me.Point('O'); O.set_vel(N, 0)
        >>> P = O.locatenew('P', x*N.x + y*N.y)
        >>> P.set_vel(N, u*N.x + v*N.y)
        >>> Impact(P, O, N.y, N, restitution=1).impulse_directions([u, v])
        (Matrix([[0, 1]]), Matrix([[0, 1]]))
        """
        kinematics = kinematics or {}
        rows = []
        for expr in (self._normal_speed, self._impulse_speed):
            expr = sm.sympify(expr).xreplace(kinematics)
            rows.append(sm.Matrix([[expr.diff(s) for s in speeds]]))
        return tuple(rows)

    def __repr__(self):
        parts = [f'{type(self).__name__}({self.point}, {self.plane_point}, '
                 f'{self.normal}, {self.frame}, '
                 f'restitution={self.restitution}']
        if not self.friction_coefficient.is_zero:
            parts.append(f'friction_coefficient={self.friction_coefficient}')
        if self.radius != 0:
            parts.append(f'radius={self.radius}')
        if self.sphere_frame is not None:
            parts.append(f'sphere_frame={self.sphere_frame}')
        if self.plane_frame is not None:
            parts.append(f'plane_frame={self.plane_frame}')
        if self.rest_speed is not None:
            parts.append(f'rest_speed={self.rest_speed}')
        return ', '.join(parts) + ')'


def _tangents(normal, plane_frame):
    """``(t1, t2)``: unit tangents of the plane with unit ``normal``,
    fixed in ``plane_frame`` (see :attr:`Impact.tangents`)."""
    axes = list(plane_frame)
    cosines = [sm.simplify(normal.dot(axis)) for axis in axes]
    for axis, cosine in zip(axes, cosines):
        if cosine == 0:
            t1 = axis
            break
    else:
        # no axis is perpendicular: the least aligned one, made so
        def alignment(item):
            value = abs(item[1])
            return float(value) if value.is_number else 0.5
        axis, cosine = min(zip(axes, cosines), key=alignment)
        t1 = (axis - cosine * normal) / sm.sqrt(1 - cosine**2)
    return t1, normal.cross(t1)


def _check_fixed_in(plane_point, plane_frame, frame):
    """``ValueError`` unless ``plane_point`` is fixed in ``plane_frame`` (a
    rigid body, a particle or a frame): its position from the body's mass
    center (the particle's point) must not change in the body's frame (in
    ``frame`` for a particle, whose plane translates). A bare frame has no
    point to compare with; the velocity of the plane point is then
    trusted."""
    if isinstance(plane_frame, RigidBody):
        anchor, body_frame = plane_frame.masscenter, plane_frame.frame
    elif isinstance(plane_frame, Particle):
        anchor, body_frame = plane_frame.point, frame
    else:
        return
    try:
        offset = plane_point.pos_from(anchor)
        moving = offset.dt(body_frame)
    except ValueError as error:
        raise ValueError(
            f'plane_point {plane_point.name} must be fixed in plane_frame '
            f'{plane_frame.name}, but its position from {anchor.name} is '
            f'not known ({error}).') from None
    if moving != 0 and any(sm.simplify(moving.dot(axis)) != 0
                           for axis in body_frame):
        raise ValueError(
            f'plane_point {plane_point.name} must be fixed in plane_frame '
            f'{plane_frame.name} (it takes the impulse there): its '
            f'position from {anchor.name}, {offset}, changes in '
            f'{body_frame.name}.')


@dataclass(frozen=True, repr=False)
class ImpactRecord:
    """One impact of a :func:`~sympy_loads.simulate` run
    (``SimulationResult.impacts``).

    Examples
    ========

    >>> from sympy_loads import ImpactRecord
    >>> record = ImpactRecord(time=0.45, index=0, name='floor',
    ...                       normal_speed_before=-4.4,
    ...                       normal_speed_after=3.52, impulse=7.92,
    ...                       u_before=(-4.4,), u_after=(3.52,))
    >>> record
    ImpactRecord(time=0.45, name='floor', normal_speed_before=-4.4, normal_speed_after=3.52, impulse=7.92)
    >>> round(-record.normal_speed_after / record.normal_speed_before, 6)
    0.8

    Attributes
    ==========

    time : float
        Time of the impact.
    index : int
        Position of the impact in ``simulate()``'s ``impacts`` list.
    name : str
        The impact's name.
    normal_speed_before, normal_speed_after : float
        Normal speed :math:`v_n` of the contact point relative to the plane
        just before (negative) and just after the impact.
    impulse : float
        Magnitude :math:`P \\ge 0` of the normal impulse on the sphere.
    u_before, u_after : tuple of float
        All generalized speeds (in ``model.u`` order) before and after.
    tangential_impulse : tuple of float
        The friction impulse on the sphere along the impact's
        :attr:`~Impact.tangents` :math:`(\\hat{t}_1, \\hat{t}_2)`; zero
        without friction.
    tangential_speed_before, tangential_speed_after : tuple of float
        The slip speeds along the tangents before and after.
    """

    time: float
    index: int
    name: str
    normal_speed_before: float
    normal_speed_after: float
    impulse: float
    u_before: tuple
    u_after: tuple
    tangential_impulse: tuple = (0.0, 0.0)
    tangential_speed_before: tuple = (0.0, 0.0)
    tangential_speed_after: tuple = (0.0, 0.0)

    def __repr__(self):
        return (f'ImpactRecord(time={self.time:.10g}, name={self.name!r}, '
                f'normal_speed_before={self.normal_speed_before:.10g}, '
                f'normal_speed_after={self.normal_speed_after:.10g}, '
                f'impulse={self.impulse:.10g}'
                + (', tangential_impulse=({:.10g}, {:.10g})'.format(
                    *self.tangential_impulse)
                   if any(self.tangential_impulse) else '') + ')')

    @property
    def change(self):
        """``u_after - u_before`` as an array."""
        return np.subtract(self.u_after, self.u_before)


@dataclass(frozen=True, repr=False)
class ContactInterval:
    r"""One interval during which an :class:`Impact`'s contact was closed
    in a :func:`~sympy_loads.simulate` run (``SimulationResult.contacts``).

    Explanation
    ===========

    A contact closes where it comes to rest on its plane (its impacts
    accumulate, a plastic impact leaves it there while the loads press it
    in, or it rests there at the start while pressed) and stays closed
    while its normal force :math:`\lambda_N` is positive; Coulomb
    friction acts while it is closed (sticking while :math:`|\lambda_T|
    < \mu \lambda_N`, else sliding against the slip). The forces are
    those the plane exerts on the sphere.

    Examples
    ========

    A ball dropped onto the floor with :math:`e = 0.5` comes to rest after
    its impacts accumulate (at :math:`\sqrt{2h/g}\,(1 + 2e/(1 - e))`,
    0.151 s for :math:`h = 0.0125`); then the floor carries its weight:

    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import Impact, simulate
    >>> y, v = me.dynamicsymbols('y v')
    >>> N = me.ReferenceFrame('N')
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', y*N.y); P.set_vel(N, v*N.y)
    >>> kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v])
    >>> _ = kane.kanes_equations([me.Particle('ball', P, 2.0)],
    ...                          [(P, -2.0*9.81*N.y)])
    >>> floor = Impact(P, O, N.y, N, restitution=0.5, name='floor')
    >>> res = simulate(kane, (0, 0.5), {y: 0.0125, v: 0.0}, {},
    ...                impacts=[floor])
    >>> interval, = res.contacts
    >>> interval.name, round(interval.start, 3), interval.end
    ('floor', 0.151, 0.5)
    >>> round(float(interval.normal_force[-1]), 9)       # m g
    19.62

    Attributes
    ==========

    index : int
        Position of the impact in ``simulate()``'s ``impacts`` list.
    name : str
        The impact's name.
    start, end : float
        When the contact closed and opened (the run's last time if it was
        still closed at the end).
    t : ndarray, shape (n,)
        The run's sample times in the interval.
    normal_force : ndarray, shape (n,)
        :math:`\lambda_N \ge 0` at those times.
    tangential_force : ndarray, shape (n, 2)
        The friction force along ``impact.tangents`` (zeros without
        friction).
    sticking : ndarray of bool, shape (n,)
        Whether the contact sticks (else it slides) at each sample.
    gap_drift : float
        The largest :math:`|h|` of the contact at the samples: the gap is
        held at zero at the acceleration level, so it drifts with the
        integrator's error.
    """

    index: int
    name: str
    start: float
    end: float
    t: np.ndarray
    normal_force: np.ndarray
    tangential_force: np.ndarray
    sticking: np.ndarray
    gap_drift: float = 0.0

    def __repr__(self):
        return (f'ContactInterval(name={self.name!r}, start='
                f'{self.start:.10g}, end={self.end:.10g}, '
                f'n_samples={len(self.t)})')
