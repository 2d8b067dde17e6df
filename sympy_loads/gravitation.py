r"""Newtonian gravitational attraction between two bodies, with the
first-order gravitational (gravity-gradient) moment on rigid bodies.

Uniform gravity near the Earth's surface is SymPy's
:meth:`System.apply_uniform_gravity
<sympy.physics.mechanics.system.System.apply_uniform_gravity>` (or the
function ``sympy.physics.mechanics.gravity``); this module is for the general
inverse-square law, where the force depends on the distance between the
bodies and a rigid body also feels a moment about its mass center.

References
==========

.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, McGraw-Hill, 1985, sec. 2.3 (Eq. 2.3.6, force exerted by a
   particle on a body) and sec. 2.6 (Eq. 2.6.3, gravitational moment);
   example of sec. 4.1. https://hdl.handle.net/1813/638
.. [Moore] J. K. Moore, Learn Multibody Dynamics, "Force, Moment, and
   Torque", section "Gravity".
   https://moorepants.github.io/learn-multibody-dynamics/
"""

import sympy as sm
from sympy.physics.mechanics import Force, RigidBody, Torque
from sympy.physics.mechanics.actuator import ForceActuator
from sympy.physics.mechanics.pathway import LinearPathway

from ._utils import (_body_masscenter_and_frame, _is_zero_vector, _set_once,
                     _sympify_scalar)

__all__ = ['GravitationalAttraction']


class GravitationalAttraction(ForceActuator):
    r"""Mutual Newtonian attraction of two bodies, with the gravitational
    moment on each rigid body.

    Explanation
    ===========

    With :math:`\bar{r}` the position of B* (mass center of ``body_b``)
    relative to A* (mass center of ``body_a``) and :math:`r = |\bar{r}|`,
    the bodies attract each other with equal and opposite forces at their
    mass centers [Kane1985]_:

    .. math::

       \bar{F}_A = \frac{G m_A m_B}{r^3} \bar{r} \quad
       \text{(on } A^*\text{, towards } B^*\text{)}, \qquad
       \bar{F}_B = -\bar{F}_A \quad
       \text{(on } B^*\text{, towards } A^*\text{)}

    ::

        A* o--> F_A           F_B <--o B*
           |-------------- r ------->|

    As a SymPy ``ForceActuator`` on the ``LinearPathway`` from A* to B*,
    ``force`` is the expansile-positive scalar :math:`-G m_A m_B / r^2`
    (negative: the pathway is pulled shorter).

    For a ``RigidBody`` (and ``moments=True``) the other body, treated as a
    particle, also exerts a moment about the body's mass center. To first
    order in (body size / r) it is (Kane & Levinson, Eq. 2.6.3):

    .. math::

       \bar{M}_A = \frac{3 G m_B}{r^3} \hat{r} \times
       (\breve{I}_A \cdot \hat{r}), \qquad \hat{r} = \bar{r}/r

    with :math:`\breve{I}_A` the central inertia dyadic of A, and likewise
    for B with :math:`m_A` and :math:`\breve{I}_B`; it is applied as a
    ``Torque`` on the body's frame. It turns a body's axis of least inertia
    towards the other body. The moment is zero for an inertia dyadic with
    equal principal moments.

    Notes
    =====

    - Accuracy: the forces are exact for particles and spherically
      symmetric bodies. With ``moments=True`` the pair is the first-order
      model of the cited text: the moments are correct to first order, but
      the matching second-order force correction is not included, so total
      energy and angular momentum of a simulation are conserved only up to
      terms of relative order (size / r)^2. ``potential_energy`` is the
      point-mass potential :math:`-G m_A m_B / r`.
    - Coincident mass centers: Newton's law is singular at :math:`r = 0`.
      Construction and ``to_loads()`` raise ``ValueError`` when the position
      of B* relative to A* is identically zero. A numeric state with
      :math:`r = 0` evaluates to inf/NaN with the default ``softening=0``
      (physically the bodies would have collided first: add a contact
      model). A positive ``softening`` length :math:`\varepsilon` replaces
      :math:`r^2` by :math:`r^2 + \varepsilon^2` in the denominators
      (Plummer softening [Aarseth2003]_): forces and moments are then finite
      everywhere and zero at :math:`r = 0`, and differ from Newton's law by
      relative order :math:`(\varepsilon / r)^2`.

    Examples
    ========

    Two particles a distance q apart along n_x:

    >>> from sympy import symbols
    >>> from sympy.physics.mechanics import (Particle, Point, ReferenceFrame,
    ...                                      dynamicsymbols)
    >>> from sympy_loads import GravitationalAttraction
    >>> q = dynamicsymbols('q', positive=True)
    >>> m1, m2 = symbols('m1 m2', positive=True)
    >>> N = ReferenceFrame('N')
    >>> O = Point('O')
    >>> a = Particle('a', O, m1)
    >>> b = Particle('b', O.locatenew('B', q*N.x), m2)
    >>> attraction = GravitationalAttraction(a, b)
    >>> attraction
    GravitationalAttraction(a, b)
    >>> attraction.force
    -G*m1*m2/q(t)**2
    >>> on_a, on_b = attraction.to_loads()
    >>> on_a
    Force(point=O, force=G*m1*m2/q(t)**2*N.x)
    >>> on_b
    Force(point=B, force=- G*m1*m2/q(t)**2*N.x)

    The example of Kane and Levinson, *Dynamics: Theory and Applications*,
    sec. 4.1: a uniform rod B (mass m, length L, along b_x)
    attracted by a particle P of mass m a distance q1 away along n_x; the
    moment about the rod's mass center turns the rod towards P:

    >>> from sympy.physics.mechanics import RigidBody, inertia
    >>> m, L, q1, q3 = symbols('m L q1 q3', positive=True)
    >>> B = N.orientnew('B', 'Axis', (q3, N.z))
    >>> rod = RigidBody('rod', O.locatenew('Bo', q1*N.x), B, m,
    ...                 (inertia(B, 0, m*L**2/12, m*L**2/12), O))
    >>> P = Particle('P', O, m)
    >>> torque = GravitationalAttraction(rod, P).to_loads()[2]
    >>> torque.frame
    B
    >>> torque.vector.express(N).simplify()
    - G*L**2*m**2*sin(2*q3)/(8*q1**3)*N.z

    Parameters
    ==========

    body_a, body_b : Particle or RigidBody
        The two bodies; their mass centers must be connected by positions.
    gravitational_constant : Expr, optional
        G; the default is ``Symbol('G')``. Positive.
    moments : bool, optional
        Apply the first-order gravitational moment to each rigid body
        (default True). Particles never receive a moment.
    softening : Expr, optional
        Plummer softening length :math:`\varepsilon \ge 0` (default 0:
        Newton's law).

    Raises
    ======

    TypeError
        If a body is not a Particle/RigidBody, ``moments`` is not a bool or
        a constant is not a scalar expression.
    ValueError
        If both bodies are the same object, ``gravitational_constant`` is
        not positive, ``softening`` is negative, or the mass centers
        coincide identically (or have no known relative position when the
        loads are computed).

    References
    ==========

    .. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
       Applications, McGraw-Hill, 1985, Eqs. (2.3.6) and (2.6.3); the rod
       example of sec. 4.1. https://hdl.handle.net/1813/638
    .. [Aarseth2003] S. J. Aarseth, Gravitational N-Body Simulations,
       Cambridge University Press, 2003, sec. 2 (softened potential
       -G m / sqrt(r^2 + eps^2)). https://doi.org/10.1017/CBO9780511535246
    """

    def __init__(self, body_a, body_b, *,
                 gravitational_constant=sm.Symbol('G'), moments=True,
                 softening=0):
        point_a, _ = _body_masscenter_and_frame(body_a, 'body_a')
        point_b, _ = _body_masscenter_and_frame(body_b, 'body_b')
        if body_a is body_b:
            raise ValueError(
                f'body_a and body_b must be two different bodies, got '
                f'{body_a} twice.')
        _set_once(self, 'body_a', body_a)
        _set_once(self, 'body_b', body_b)
        _set_once(self, 'gravitational_constant', _sympify_scalar(
            'gravitational_constant', gravitational_constant, positive=True))
        if not isinstance(moments, bool):
            raise TypeError(
                f'moments must be a bool, not {type(moments).__name__} '
                f'{moments!r}.')
        _set_once(self, 'moments', moments)
        _set_once(self, 'softening', _sympify_scalar(
            'softening', softening, nonnegative=True))
        self.pathway = LinearPathway(point_a, point_b)
        try:
            point_b.pos_from(point_a)
        except ValueError:
            pass  # the user may connect the points after construction
        else:
            self._separation()   # coincident mass centers fail here

    body_a = property(lambda self: self._body_a,
                      doc='The first body (Particle or RigidBody).')
    body_b = property(lambda self: self._body_b,
                      doc='The second body (Particle or RigidBody).')
    gravitational_constant = property(
        lambda self: self._gravitational_constant,
        doc='The gravitational constant G.')
    moments = property(lambda self: self._moments,
                       doc='Whether rigid bodies receive the gravitational '
                           'moment.')
    softening = property(lambda self: self._softening,
                         doc='The Plummer softening length (0 for none).')

    @property
    def force(self):
        r"""Expansile-positive scalar along the pathway:
        :math:`-G m_A m_B r / (r^2 + \varepsilon^2)^{3/2}`, i.e.
        :math:`-G m_A m_B / r^2` without softening."""
        r = self._separation()
        r2 = r.dot(r)
        return (-self._mu() * sm.sqrt(r2)
                / (r2 + self.softening**2)**sm.Rational(3, 2))

    @force.setter
    def force(self, force):
        raise AttributeError("Can't set computed attribute force.")

    @property
    def potential_energy(self):
        r"""Point-mass potential energy
        :math:`-G m_A m_B / \sqrt{r^2 + \varepsilon^2}` (its negative
        gradient gives the forces; see Notes for the moments)."""
        r = self._separation()
        r2 = r.dot(r)
        return -self._mu() / sm.sqrt(r2 + self.softening**2)

    def _mu(self):
        return (self.gravitational_constant * self.body_a.mass
                * self.body_b.mass)

    def _separation(self):
        """Position of B* relative to A*, checked to be nonzero.

        The check simplifies the components the first time only (they may
        be large); later calls compare with the exact zero vector.
        """
        point_a, point_b = self.pathway.attachments
        try:
            r = point_b.pos_from(point_a)
        except ValueError:
            raise ValueError(
                f'GravitationalAttraction: the position of {point_b} (mass '
                f'center of {self.body_b}) relative to {point_a} (mass '
                f'center of {self.body_a}) is not known; connect the mass '
                f'centers with set_pos or locatenew.') from None
        checked = getattr(self, '_separation_checked', False)
        if r == 0 or (not checked and _is_zero_vector(r)):
            raise ValueError(
                f'GravitationalAttraction: the mass centers {point_a} of '
                f'{self.body_a} and {point_b} of {self.body_b} coincide; '
                f'the inverse-square law is singular there.')
        self._separation_checked = True
        return r

    def _moment_on(self, body, other_mass, r, denominator):
        """First-order moment (Kane & Levinson 2.6.3) on rigid ``body``:
        3 G m r x (I . r) / r^5, with r^5 softened to ``denominator``."""
        inertia = body.central_inertia
        return (3 * self.gravitational_constant * other_mass
                * r.cross(inertia.dot(r)) / denominator)

    def to_loads(self):
        """Return the two forces and, for rigid bodies with
        ``moments=True``, the torques on their frames.

        The forces come first (on A*, then on B*), then the torque on A's
        frame and the torque on B's frame where they apply.

        Examples
        ========

        >>> from sympy import symbols
        >>> from sympy.physics.mechanics import (Particle, Point,
        ...                                      ReferenceFrame)
        >>> from sympy_loads import GravitationalAttraction
        >>> N, O = ReferenceFrame('N'), Point('O')
        >>> sun = Particle('sun', O, 10)
        >>> moon = Particle('moon', O.locatenew('M', 3*N.x + 4*N.y), 1)
        >>> GravitationalAttraction(sun, moon, gravitational_constant=25
        ...                         ).to_loads()[1]
        Force(point=M, force=- 6*N.x - 8*N.y)
        """
        r = self._separation()
        r2 = r.dot(r) + self.softening**2
        point_a, point_b = self.pathway.attachments
        on_a = self._mu() * r / r2**sm.Rational(3, 2)
        loads = [Force(point_a, on_a), Force(point_b, -on_a)]
        if self.moments:
            r5 = r2**sm.Rational(5, 2)
            if isinstance(self.body_a, RigidBody):
                loads.append(Torque(self.body_a.frame, self._moment_on(
                    self.body_a, self.body_b.mass, r, r5)))
            if isinstance(self.body_b, RigidBody):
                loads.append(Torque(self.body_b.frame, self._moment_on(
                    self.body_b, self.body_a.mass, r, r5)))
        return loads

    def __repr__(self):
        text = f'{type(self).__name__}({self.body_a}, {self.body_b}'
        if self.gravitational_constant != sm.Symbol('G'):
            text += f', gravitational_constant={self.gravitational_constant}'
        if not self.moments:
            text += ', moments=False'
        if self.softening != 0:
            text += f', softening={self.softening}'
        return text + ')'
