"""Seeded builders of the generated models of the oracle suite
(``tests/test_oracles.py``, issue 35).

Each builder takes a seed (and the shape of the model) and returns a
:class:`Generated`: the model as a user writes it with
``sympy.physics.mechanics`` (a ``KanesMethod`` or a ``System`` with SymPy
joints), random constants in physically sane ranges, initial values, the
specified inputs as SymPy expressions of time, the constraints as written,
and, where the model has them, its energy and the power of its
non-conservative loads. Nothing here imports ``sympy_loads`` but
:func:`block_drop`, whose model has the library's Hunt-Crossley contact
as a load; the oracles use only SymPy's equations of the models, so they
share no code with the engine.

The models walk the edges named in issue 35: open chains of particles or
rigid bodies (1 to 4 links, planar or spatial, ``KanesMethod`` or
``System``), closed chains through configuration constraints with their
velocity constraints (a four-bar, a slider-crank, a pendulum in natural
coordinates, also with a moving support), velocity constraints (a
Chaplygin sled, with or without a prescribed side slip), specified inputs
inside the loads, the kinematic differential equations and the velocity
constraints, loads with ``Abs``, ``Max``, ``Heaviside`` and ``sign``,
symbols, points and frames named like the code generators' internals, and
models formed again after a change.
"""

from dataclasses import dataclass, field

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

__all__ = ['Generated', 'chain', 'four_bar', 'slider_crank',
           'circle_pendulum', 'sled', 'cart_at_prescribed_speed',
           'conveyor', 'relay_oscillator', 'named_line',
           'auxiliary_pendulum',
           'block_drop', 'reform', 'INTERNAL_NAMES']

TIME = me.dynamicsymbols._t

#: Names that code generators use for their own variables (SymPy's
#: lambdify and cse, SymEngine's LLVM code, our argument vectors) or that
#: SymPy's printers treat specially; models named with them must still be
#: compiled and run as any other.
INTERNAL_NAMES = ('_x', 'q', 'u', 'in1', 'x0', 'cse0', '_Dummy', 'x1',
                  'in2', 'cse1', 'y', '_t', 'c', 's')


@dataclass
class Generated:
    """One generated model and everything an oracle needs about it.

    ``q``/``u`` are all coordinates and speeds in the model's order (the
    independent ones first, as ``KanesMethod`` orders them);
    ``specified`` maps each specified input to a SymPy expression of time
    (and, for state feedback, of ``q`` and ``u``); ``holonomic`` are the
    configuration constraints f(q, t) = 0 and ``velocity`` the velocity
    constraints as written (both may contain the inputs); ``energy`` is
    T + V where the loads have a potential, and ``power`` the power of the
    other loads, so that dE/dt = power along every motion (None where the
    model has no such balance)."""

    name: str
    model: object
    frame: me.ReferenceFrame
    q: tuple
    u: tuple
    q_ind: tuple
    u_ind: tuple
    constants: dict
    initial: dict
    specified: dict = field(default_factory=dict)
    holonomic: tuple = ()
    velocity: tuple = ()
    energy: object = None
    power: object = None
    extra: dict = field(default_factory=dict)

    @property
    def kane(self):
        """The ``KanesMethod`` behind the model."""
        if isinstance(self.model, me.System):
            return self.model.eom_method
        return self.model

    @property
    def q_dep(self):
        return tuple(s for s in self.q if s not in self.q_ind)

    @property
    def u_dep(self):
        return tuple(s for s in self.u if s not in self.u_ind)


def _names(style, count, stem):
    """``count`` symbol names: ``stem1, stem2, ...`` or, for the
    'internal' style, names of the code generators' internals."""
    if style == 'internal':
        pool = {'q': ('q', 'x0', 'in1', '_x', 'cse0'),
                'u': ('u', 'x1', 'in2', '_Dummy', 'cse1'),
                'm': ('in1', 'x0', 'q', 'cse0', '_x'),
                'k': ('u', 'cse1', 'x1', '_Dummy', 'in2')}[stem]
        return list(pool[:count])
    return [f'{stem}{i + 1}' for i in range(count)]


def _uniform(rng, low, high):
    return float(rng.uniform(low, high))


# ---------------------------------------------------------------------------
# Open chains

def _chain_axes(rng, n, spatial, along_links=True):
    """Joint axes, as components in the parent's frame: all z (planar) or
    a random sequence of x, y and z, no two neighbours alike (spatial).
    Without ``along_links`` the links' own direction y is left out: a
    point mass turning about its link would not move (a singular mass
    matrix)."""
    if not spatial:
        return [(0.0, 0.0, 1.0)] * n
    axes, last = [], None
    for _ in range(n):
        choices = [i for i in range(3)
                   if i != last and (along_links or i != 1)]
        last = int(rng.choice(choices))
        axes.append(tuple(1.0 if i == last else 0.0 for i in range(3)))
    return axes


def _vector(frame, components):
    return sum((c * e for c, e in zip(components, frame)), sm.S(0) * frame.x)


def chain(seed, n=2, body='particle', spatial=False, formulation='kane',
          damping=False, names='plain', loads=()):
    """A pendulum chain of ``n`` links hanging from a fixed pin, each
    turning about its own joint axis (``N.z`` for a planar chain, a random
    sequence of x, y, z for a spatial one), links of point masses at their ends
    (``body='particle'``) or of rigid bodies with random inertia
    (``'rigid'``), under gravity ``-g N.y`` with torsional springs
    ``k_i q_i`` at the joints (and dampers ``c_i u_i`` where ``damping``).
    ``loads`` adds non-smooth terms to the first joint's torque: any of
    'abs', 'max', 'heaviside', 'sign'. ``formulation='system'`` builds the
    same chain with ``System`` and ``PinJoint``s (rigid bodies only)."""
    rng = np.random.default_rng(seed)
    qn, un = _names(names, n, 'q'), _names(names, n, 'u')
    q = [me.dynamicsymbols(s) for s in qn]
    u = [me.dynamicsymbols(s) for s in un]
    masses = sm.symbols(_names(names, n, 'm'))
    k = sm.symbols(_names(names, n, 'k'))
    lengths = sm.symbols([f'l{i + 1}' for i in range(n)])
    g = sm.Symbol('g')
    c = sm.symbols([f'c{i + 1}' for i in range(n)])
    axes = _chain_axes(rng, n, spatial, along_links=body == 'rigid')
    constants = {g: 9.81}
    for i in range(n):
        constants[masses[i]] = _uniform(rng, 0.5, 2.0)
        constants[lengths[i]] = _uniform(rng, 0.4, 1.2)
        constants[k[i]] = _uniform(rng, 0.0, 5.0)
        if damping:
            constants[c[i]] = _uniform(rng, 0.05, 0.5)
    frame_names = (['q', 'u', 't', 'in1', '_Dummy'] if names == 'internal'
                   else [f'A{i + 1}' for i in range(n)])
    point_names = (['t', 'x0', 'cse0', '_x', 'in2'] if names == 'internal'
                   else [f'P{i + 1}' for i in range(n)])
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    inertia_values = []
    for i in range(n):
        moments = rng.uniform(0.02, 0.1, size=3)
        moments[2] = min(moments[2], moments[0] + moments[1])  # triangle
        inertia_values.append(tuple(float(v) for v in moments))
    extra_torque = _nonsmooth_torque(loads, q[0], u[0], constants, rng)
    if formulation == 'system':
        return _chain_system(seed, n, body, spatial, damping, names, q, u,
                             masses, k, lengths, g, c, axes, constants,
                             inertia_values, frame_names, point_names,
                             extra_torque, loads, rng)
    frames, points, bodies, potential = [], [], [], 0
    parent, start = N, O
    for i in range(n):
        A = me.ReferenceFrame(frame_names[i])
        axis = _vector(parent, axes[i])
        A.orient_axis(parent, axis, q[i])
        A.set_ang_vel(parent, u[i] * axis.normalize())
        P = start.locatenew(point_names[i], -lengths[i] * A.y)
        P.v2pt_theory(start, N, A)
        if body == 'particle':
            bodies.append(me.Particle(f'b{i}', P, masses[i]))
            potential += masses[i] * g * P.pos_from(O).dot(N.y)
        else:
            G = start.locatenew(f'G{i}', -lengths[i] / 2 * A.y)
            G.v2pt_theory(start, N, A)
            inertia = me.inertia(A, *[sm.Float(v) for v in
                                      inertia_values[i]])
            bodies.append(me.RigidBody(f'b{i}', G, A, masses[i],
                                       (inertia, G)))
            potential += masses[i] * g * G.pos_from(O).dot(N.y)
        frames.append((parent, A, axis.normalize()))
        parent, start = A, P
        points.append(P)
    loads_list, power = [], sm.S(0)
    for i, body_ in enumerate(bodies):
        point = body_.masscenter
        loads_list.append((point, -masses[i] * g * N.y))
    for i, (par, A, axis) in enumerate(frames):
        torque = -k[i] * q[i] - (c[i] * u[i] if damping else 0)
        if i == 0:
            torque += extra_torque
        loads_list.append((A, torque * axis))
        loads_list.append((par, -torque * axis))
        potential += k[i] * q[i] ** 2 / 2
        if damping:
            power += -c[i] * u[i] ** 2
    kane = me.KanesMethod(N, q, u,
                          kd_eqs=[q[i].diff() - u[i] for i in range(n)])
    kane.kanes_equations(bodies, loads_list)
    energy = sum(b.kinetic_energy(N) for b in bodies) + potential
    initial = {s: _uniform(rng, -0.6, 0.6) for s in q}
    initial.update({s: _uniform(rng, -1.0, 1.0) for s in u})
    smooth = not loads
    return Generated(
        name=f'chain{n}-{body}-{"spatial" if spatial else "planar"}-kane'
             f'-{seed}', model=kane, frame=N, q=tuple(q), u=tuple(u),
        q_ind=tuple(q), u_ind=tuple(u), constants=constants,
        initial=initial, energy=energy if smooth else None,
        power=power if smooth else None,
        extra=dict(bodies=bodies, loads=loads_list, g=g, masses=masses,
                   lengths=lengths, first_axis=frames[0]))


def _nonsmooth_torque(kinds, q1, u1, constants, rng):
    """A torque on the first joint with the functions of ``kinds``, each
    switching at an angle the chain may pass (so the integrators meet the
    switch) but away from 0, where the linearization tests sit."""
    torque = sm.S(0)
    for kind in kinds:
        a = sm.Symbol(f'a_{kind}')
        b = sm.Symbol(f'b_{kind}')
        constants[a] = _uniform(rng, 0.5, 2.0)
        constants[b] = _uniform(rng, 0.2, 0.4)
        if kind == 'abs':
            torque += -a * sm.Abs(q1 - b) * u1
        elif kind == 'max':
            torque += -a * sm.Max(0, q1 - b)
        elif kind == 'heaviside':
            torque += -a * sm.Heaviside(q1 - b) * (q1 - b)
        elif kind == 'sign':
            torque += -a * sm.sign(q1 + b) * q1 ** 2
        else:
            raise ValueError(kind)
    return torque


def _chain_system(seed, n, body, spatial, damping, names, q, u, masses, k,
                  lengths, g, c, axes, constants, inertia_values,
                  frame_names, point_names, extra_torque, loads, rng):
    """The chain of :func:`chain` with ``System`` and ``PinJoint``s."""
    ground = me.RigidBody('ground')
    system = me.System.from_newtonian(ground)
    N = ground.frame
    parent, bodies, potential, power = ground, [], 0, sm.S(0)
    for i in range(n):
        A = me.ReferenceFrame(frame_names[i])
        inertia = (me.inertia(A, *[sm.Float(v) for v in inertia_values[i]])
                   if body == 'rigid' else me.inertia(A, 0, 0, 0))
        center = me.Point(f'G{i}')
        child = me.RigidBody(f'b{i}', masscenter=center, frame=A,
                             mass=masses[i], inertia=(inertia, center))
        offset = (-lengths[i] / 2 if body == 'rigid' else -lengths[i])
        parent_point = ((-lengths[i - 1] / 2 if body == 'rigid' and i
                         else 0) * parent.frame.y)
        axis = _vector(parent.frame, axes[i])
        joint = me.PinJoint(f'J{i}', parent, child, coordinates=q[i],
                            speeds=u[i], parent_point=parent_point,
                            child_point=-offset * A.y, joint_axis=axis)
        system.add_joints(joint)
        bodies.append(child)
        torque = -k[i] * q[i] - (c[i] * u[i] if damping else 0)
        if i == 0:
            torque += extra_torque
        system.add_actuators(me.TorqueActuator(torque, axis.normalize(),
                                               child, parent))
        potential += k[i] * q[i] ** 2 / 2
        if damping:
            power += -c[i] * u[i] ** 2
        parent = child
    system.add_bodies(*[b for b in bodies if b not in system.bodies])
    system.apply_uniform_gravity(-g * N.y)
    for b in bodies:
        potential += b.mass * g * b.masscenter.pos_from(
            ground.masscenter).dot(N.y)
    system.form_eoms()
    energy = sum(b.kinetic_energy(N) for b in bodies) + potential
    initial = {s: _uniform(rng, -0.6, 0.6) for s in q}
    initial.update({s: _uniform(rng, -1.0, 1.0) for s in u})
    smooth = not loads
    kane = system.eom_method
    return Generated(
        name=f'chain{n}-{body}-{"spatial" if spatial else "planar"}-system'
             f'-{seed}', model=system, frame=N, q=tuple(kane.q),
        u=tuple(kane.u), q_ind=tuple(kane.q), u_ind=tuple(kane.u),
        constants=constants, initial=initial,
        energy=energy if smooth else None, power=power if smooth else None,
        extra=dict(bodies=bodies, g=g, masses=masses, lengths=lengths))


# ---------------------------------------------------------------------------
# Closed chains: configuration constraints with their velocity constraints

def _kane_constrained(N, q_ind, q_dep, u_ind, u_dep, kd_eqs, holonomic,
                      velocity, bodies, loads):
    kane = me.KanesMethod(N, q_ind, u_ind, kd_eqs=kd_eqs,
                          q_dependent=q_dep, u_dependent=u_dep,
                          configuration_constraints=holonomic or None,
                          velocity_constraints=velocity)
    kane.kanes_equations(bodies, loads)
    return kane


def _rate(expression, q, u):
    """The time derivative of ``expression`` with ``q' = u``."""
    return expression.diff(TIME).xreplace(
        {a.diff(TIME): b for a, b in zip(q, u)})


def _bar(name, frame, center, mass, length):
    """A slender bar along ``frame.x`` about ``center``."""
    return me.RigidBody(name, center, frame, mass,
                        (me.inertia(frame, 0, mass * length ** 2 / 12,
                                    mass * length ** 2 / 12), center))


def four_bar(seed, body='particle', damping=False):
    """A crank-rocker four-bar linkage in the vertical plane: crank ``q1``
    (independent) about ``O``, coupler ``q2`` and rocker ``q3`` about
    ``B = O + l0 N.x`` (absolute angles), closed by two configuration
    constraints and their time derivatives as velocity constraints; point
    masses at the moving pins or three rigid bars; gravity, a torsional
    spring at the crank (and a damper where ``damping``). Lengths drawn so
    that the crank turns fully (Grashof)."""
    rng = np.random.default_rng(seed)
    q = me.dynamicsymbols('q1:4')
    u = me.dynamicsymbols('u1:4')
    l0, l1, l2, l3, g, k, c = sm.symbols('l0:4 g k c')
    m = sm.symbols('m1:4')
    constants = {l0: _uniform(rng, 1.0, 1.2), l1: _uniform(rng, 0.2, 0.35),
                 l2: _uniform(rng, 0.9, 1.1), l3: _uniform(rng, 0.7, 0.9),
                 g: 9.81, k: _uniform(rng, 0.0, 3.0)}
    constants.update({mi: _uniform(rng, 0.5, 2.0) for mi in m})
    if damping:
        constants[c] = _uniform(rng, 0.05, 0.3)
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    frames = []
    for i in range(3):
        A = N.orientnew(f'A{i + 1}', 'Axis', (q[i], N.z))
        A.set_ang_vel(N, u[i] * N.z)
        frames.append(A)
    P1 = O.locatenew('P1', l1 * frames[0].x)
    P1.v2pt_theory(O, N, frames[0])
    P2 = P1.locatenew('P2', l2 * frames[1].x)
    P2.v2pt_theory(P1, N, frames[1])
    B = O.locatenew('B', l0 * N.x)
    B.set_vel(N, 0)
    loop = P2.pos_from(B) - l3 * frames[2].x
    holonomic = [loop.dot(N.x), loop.dot(N.y)]
    velocity = [_rate(h, q, u) for h in holonomic]
    if body == 'particle':
        bodies = [me.Particle('p1', P1, m[0]), me.Particle('p2', P2, m[1])]
        heights = [(m[0], P1), (m[1], P2)]
    else:
        centers = [O.locatenew('G1', l1 / 2 * frames[0].x),
                   P1.locatenew('G2', l2 / 2 * frames[1].x),
                   B.locatenew('G3', l3 / 2 * frames[2].x)]
        for G, A, start in zip(centers, frames, (O, P1, B)):
            G.v2pt_theory(start, N, A)
        bodies = [_bar(f'bar{i + 1}', A, G, m[i], L) for i, (A, G, L) in
                  enumerate(zip(frames, centers, (l1, l2, l3)))]
        heights = [(m[i], centers[i]) for i in range(3)]
    loads = [(P, -mass * g * N.y) for mass, P in heights]
    torque = -k * q[0] - (c * u[0] if damping else 0)
    loads.append((frames[0], torque * N.z))
    kane = _kane_constrained(N, [q[0]], list(q[1:]), [u[0]], list(u[1:]),
                             [q[i].diff() - u[i] for i in range(3)],
                             holonomic, velocity, bodies, loads)
    energy = sum(b.kinetic_energy(N) for b in bodies) + sum(
        mass * g * P.pos_from(O).dot(N.y) for mass, P in heights) \
        + k * q[0] ** 2 / 2
    power = -c * u[0] ** 2 if damping else sm.S(0)
    # assembled on the upper branch by intersecting two circles
    v = {s: float(val) for s, val in constants.items()}
    angle = _uniform(rng, -np.pi, np.pi)
    p1 = v[l1] * np.array([np.cos(angle), np.sin(angle)])
    d_vec = np.array([v[l0], 0.0]) - p1
    d = np.hypot(*d_vec)
    alpha = np.arccos((v[l2] ** 2 + d ** 2 - v[l3] ** 2) / (2 * v[l2] * d))
    q2 = np.arctan2(d_vec[1], d_vec[0]) + alpha
    p2 = p1 + v[l2] * np.array([np.cos(q2), np.sin(q2)])
    q3 = np.arctan2(p2[1], p2[0] - v[l0])
    initial = {q[0]: angle, q[1]: q2 + 1e-3, q[2]: q3 - 1e-3,
               u[0]: _uniform(rng, -3.0, 3.0)}
    return Generated(
        name=f'four_bar-{body}-{seed}', model=kane, frame=N, q=tuple(q),
        u=tuple(u), q_ind=(q[0],), u_ind=(u[0],), constants=constants,
        initial=initial, holonomic=tuple(holonomic),
        velocity=tuple(velocity), energy=energy, power=power)


def slider_crank(seed):
    """A slider-crank in the vertical plane: crank ``q1`` (a rigid bar,
    independent), connecting rod ``q2`` (a point mass at its middle) and
    a slider at ``x`` on ``N.x`` held by a spring, closed by two
    configuration constraints and their time derivatives."""
    rng = np.random.default_rng(seed)
    q1, q2, x = me.dynamicsymbols('q1 q2 x')
    u1, u2, ux = me.dynamicsymbols('u1 u2 u_x')
    l1, l2, m1, m2, m3, g, k = sm.symbols('l1 l2 m1 m2 m3 g k')
    constants = {l1: _uniform(rng, 0.1, 0.3), l2: _uniform(rng, 0.6, 1.0),
                 m1: _uniform(rng, 0.5, 2.0), m2: _uniform(rng, 0.2, 1.0),
                 m3: _uniform(rng, 0.5, 2.0), g: 9.81,
                 k: _uniform(rng, 1.0, 20.0)}
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (q1, N.z))
    A.set_ang_vel(N, u1 * N.z)
    R = N.orientnew('R', 'Axis', (q2, N.z))
    R.set_ang_vel(N, u2 * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P1 = O.locatenew('P1', l1 * A.x)
    P1.v2pt_theory(O, N, A)
    G2 = P1.locatenew('G2', l2 / 2 * R.x)
    G2.v2pt_theory(P1, N, R)
    S = O.locatenew('S', x * N.x)
    S.set_vel(N, ux * N.x)
    G1 = O.locatenew('G1', l1 / 2 * A.x)
    G1.v2pt_theory(O, N, A)
    end = P1.pos_from(O) + l2 * R.x
    holonomic = [end.dot(N.y), end.dot(N.x) - x]
    qs, us = (q1, q2, x), (u1, u2, ux)
    velocity = [_rate(h, qs, us) for h in holonomic]
    bodies = [_bar('crank', A, G1, m1, l1), me.Particle('rod', G2, m2),
              me.Particle('slider', S, m3)]
    loads = [(G1, -m1 * g * N.y), (G2, -m2 * g * N.y),
             (S, -m3 * g * N.y - k * x * N.x)]
    kane = _kane_constrained(N, [q1], [q2, x], [u1], [u2, ux],
                             [a.diff() - b for a, b in zip(qs, us)],
                             holonomic, velocity, bodies, loads)
    energy = (sum(b.kinetic_energy(N) for b in bodies)
              + g * (m1 * G1.pos_from(O).dot(N.y)
                     + m2 * G2.pos_from(O).dot(N.y)) + k * x ** 2 / 2)
    angle = _uniform(rng, -np.pi, np.pi)
    a, b = constants[l1], constants[l2]
    rod = np.arcsin(-a * np.sin(angle) / b)
    initial = {q1: angle, q2: rod + 1e-3,
               x: a * np.cos(angle) + b * np.cos(rod) - 1e-3,
               u1: _uniform(rng, -3.0, 3.0)}
    return Generated(
        name=f'slider_crank-{seed}', model=kane, frame=N, q=qs, u=us,
        q_ind=(q1,), u_ind=(u1,), constants=constants, initial=initial,
        holonomic=tuple(holonomic), velocity=tuple(velocity),
        energy=energy, power=sm.S(0))


def circle_pendulum(seed, independent='x', support=None,
                    formulation='kane', names='plain', mistyped=False):
    """A pendulum bob written as a point ``(x, y)`` at distance ``L``
    from its support ``(a(t), 0)``: the configuration constraint
    ``(x - a)**2 + y**2 - L**2 = 0`` and its time derivative as the
    velocity constraint, ``independent`` ('x' or 'y') the independent
    coordinate. ``support``: None (fixed, a = 0), 'explicit' (a = A
    sin(w t), time in the constraints) or 'specified' (a = s(t), a
    specified input given as A sin(w t): an input in the configuration
    and velocity constraints). ``mistyped``: the velocity constraint
    written with a wrong sign, ``(x - a) u_x - y u_y``, no longer the time
    derivative of the configuration constraint (a user's typo)."""
    rng = np.random.default_rng(seed)
    xn, yn = (('x0', 'in1') if names == 'internal' else ('x', 'y'))
    x, y = me.dynamicsymbols(f'{xn} {yn}')
    ux, uy = me.dynamicsymbols('u_x u_y')
    L, g, m = sm.symbols('L g m')
    amp, freq = sm.symbols('A omega')
    constants = {L: _uniform(rng, 0.5, 1.5), g: 9.81,
                 m: _uniform(rng, 0.5, 2.0)}
    specified = {}
    if support is None:
        a = sm.S(0)
    else:
        constants[amp] = _uniform(rng, 0.05, 0.2)
        constants[freq] = _uniform(rng, 1.0, 4.0)
        a = amp * sm.sin(freq * TIME)
        if support == 'specified':
            s = me.dynamicsymbols('s')
            specified = {s: a}
            a = s
    holonomic = [(x - a) ** 2 + y ** 2 - L ** 2]
    velocity = [((x - a) * (ux - a.diff(TIME))
                 + (-1 if mistyped else 1) * y * uy)]
    N = me.ReferenceFrame('t' if names == 'internal' else 'N')
    O = me.Point('_x' if names == 'internal' else 'O')
    O.set_vel(N, 0)
    P = O.locatenew('cse0' if names == 'internal' else 'P',
                    x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    (qi, ui), (qd, ud) = (((x, ux), (y, uy)) if independent == 'x'
                          else ((y, uy), (x, ux)))
    bob = me.Particle('bob', P, m)
    kd = [x.diff() - ux, y.diff() - uy]
    if formulation == 'kane':
        model = _kane_constrained(N, [qi], [qd], [ui], [ud], kd, holonomic,
                                  velocity, [bob], [(P, -m * g * N.y)])
    else:
        model = me.System(N, O)
        model.add_coordinates(qi)
        model.add_coordinates(qd, independent=False)
        model.add_speeds(ui)
        model.add_speeds(ud, independent=False)
        model.add_kdes(*kd)
        model.add_holonomic_constraints(*holonomic)
        model.add_bodies(bob)
        model.add_loads(me.Force(P, -m * g * N.y))
        model.form_eoms()
    angle = _uniform(rng, -1.2, 1.2)
    a0 = float(a.subs(specified).subs(constants).subs(TIME, 0))
    length = constants[L]
    start = {x: a0 + length * np.sin(angle), y: -length * np.cos(angle)}
    initial = {qi: start[qi], qd: start[qd] * (1 + 1e-3),
               ui: _uniform(rng, -1.0, 1.0)}
    conservative = support is None
    kane = model if formulation == 'kane' else model.eom_method
    return Generated(
        name=f'circle_pendulum-{independent}-{support}-{formulation}-'
             f'{names}-{seed}', model=model, frame=N, q=tuple(kane.q),
        u=tuple(kane.u), q_ind=(qi,), u_ind=(ui,), constants=constants,
        initial=initial, specified=specified, holonomic=tuple(holonomic),
        velocity=tuple(velocity),
        energy=(m * (ux ** 2 + uy ** 2) / 2 + m * g * y
                if conservative else None),
        power=sm.S(0) if conservative else None,
        extra=dict(L=L, g=g, x=x, y=y, ux=ux, uy=uy))


# ---------------------------------------------------------------------------
# Velocity (nonholonomic) constraints and specified inputs

def sled(seed, offset=True, slip=None, dependent='u_y', damping=False):
    """A Chaplygin sled: a knife edge at ``(x, y)`` heading ``theta``, its
    mass centre ``a`` ahead of the edge (``offset``, else at the edge),
    the lateral velocity of the edge prescribed,
    ``-sin(theta) u_x + cos(theta) u_y = s``: zero, or (``slip``) a
    specified input ``s(t)`` given as 'ramp' (b t) or 'sine' (b sin(w t)).
    ``dependent`` names the model's dependent speed. With ``damping`` a
    viscous torque ``-c omega`` acts."""
    rng = np.random.default_rng(seed)
    x, y, th = me.dynamicsymbols('x y theta')
    ux, uy, w = me.dynamicsymbols('u_x u_y omega')
    m, inertia, a, b, c, freq = sm.symbols('m I a b c w')
    constants = {m: _uniform(rng, 0.5, 2.0),
                 inertia: _uniform(rng, 0.05, 0.2)}
    if offset:
        constants[a] = _uniform(rng, 0.1, 0.5)
    if damping:
        constants[c] = _uniform(rng, 0.05, 0.2)
    specified = {}
    if slip is None:
        lateral = sm.S(0)
    else:
        s = me.dynamicsymbols('s')
        constants[b] = _uniform(rng, 0.2, 1.0)
        if slip == 'ramp':
            specified = {s: b * TIME}
        else:
            constants[freq] = _uniform(rng, 1.0, 3.0)
            specified = {s: b * sm.sin(freq * TIME)}
        lateral = s
    N = me.ReferenceFrame('N')
    B = me.ReferenceFrame('B')
    B.orient_axis(N, N.z, th)
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    G = P.locatenew('G', (a if offset else 0) * B.x)
    G.v2pt_theory(P, N, B)
    body = me.RigidBody('sled', G, B, m, (me.inertia(B, 0, 0, inertia), G))
    velocity = [-sm.sin(th) * ux + sm.cos(th) * uy - lateral]
    dep, ind = (uy, ux) if dependent == 'u_y' else (ux, uy)
    loads = [(B, -c * w * N.z)] if damping else []
    kane = me.KanesMethod(
        N, [x, y, th], [ind, w],
        kd_eqs=[x.diff() - ux, y.diff() - uy, th.diff() - w],
        u_dependent=[dep], velocity_constraints=velocity)
    kane.kanes_equations([body], loads)
    heading = _uniform(rng, -np.pi, np.pi)
    speed, turn = _uniform(rng, 0.5, 2.0), _uniform(rng, -2.0, 2.0)
    initial = {x: _uniform(rng, -1, 1), y: _uniform(rng, -1, 1),
               th: heading, w: turn}
    lateral0 = float(sm.S(lateral).subs(specified).subs(constants)
                     .subs(TIME, 0))
    # speed along the edge, the lateral speed as prescribed
    vx = speed * np.cos(heading) - lateral0 * np.sin(heading)
    vy = speed * np.sin(heading) + lateral0 * np.cos(heading)
    initial[ind] = vx if ind == ux else vy
    energy = body.kinetic_energy(N) if slip is None else None
    power = (-c * w ** 2 if damping else sm.S(0)) if slip is None else None
    return Generated(
        name=f'sled-{"offset" if offset else "centred"}-{slip}-'
             f'{dependent}-{seed}', model=kane, frame=N, q=(x, y, th),
        u=tuple(kane.u), q_ind=(x, y, th), u_ind=(ind, w),
        constants=constants, initial=initial, specified=specified,
        velocity=tuple(velocity), energy=energy, power=power,
        extra=dict(speed=speed, turn=turn, heading=heading, x=x, y=y,
                   theta=th, ux=ux, uy=uy, omega=w))


def cart_at_prescribed_speed(seed, profile='ramp'):
    """A cart (position ``x``, speed ``v``) carrying a pendulum (angle
    ``theta`` from hanging, rate ``omega``), driven at the prescribed
    speed ``v = s(t)`` through the velocity constraint ``v - s = 0``
    (``v`` dependent), ``s`` a specified input given as 'ramp' (b t) or
    'sine' (b sin(w t)). The cart's path is known in closed form,
    x(t) = x(0) + integral of s."""
    rng = np.random.default_rng(seed)
    x, th, v, w, s = me.dynamicsymbols('x theta v omega s')
    M, m, L, g, b, freq = sm.symbols('M m L g b w')
    constants = {M: _uniform(rng, 1.0, 3.0), m: _uniform(rng, 0.2, 1.0),
                 L: _uniform(rng, 0.5, 1.2), g: 9.81,
                 b: _uniform(rng, 0.5, 2.5)}
    if profile == 'ramp':
        specified = {s: b * TIME}
    else:
        constants[freq] = _uniform(rng, 1.0, 3.0)
        specified = {s: b * sm.sin(freq * TIME)}
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (th, N.z))
    A.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    C = O.locatenew('C', x * N.x)
    C.set_vel(N, v * N.x)
    P = C.locatenew('P', -L * A.y)
    P.v2pt_theory(C, N, A)
    kane = me.KanesMethod(N, [x, th], [w],
                          kd_eqs=[x.diff() - v, th.diff() - w],
                          u_dependent=[v], velocity_constraints=[v - s])
    kane.kanes_equations([me.Particle('cart', C, M),
                          me.Particle('bob', P, m)],
                         [(C, -M * g * N.y), (P, -m * g * N.y)])
    initial = {x: _uniform(rng, -1, 1), th: _uniform(rng, -0.3, 0.3),
               w: _uniform(rng, -0.5, 0.5)}
    return Generated(
        name=f'cart_at_prescribed_speed-{profile}-{seed}', model=kane,
        frame=N, q=(x, th), u=tuple(kane.u), q_ind=(x, th), u_ind=(w,),
        constants=constants, initial=initial, specified=specified,
        velocity=(v - s,), extra=dict(x=x, theta=th, v=v, omega=w, s=s))


def conveyor(seed):
    """A block on a conveyor belt running at ``s(t)`` (given as b sin(w
    t)): its position ``x``, its speed relative to the belt ``u``, so the
    kinematic differential equation holds the input, ``x' = u + s``; a
    spring to the ground and a damper on the slip."""
    rng = np.random.default_rng(seed)
    x, u, s = me.dynamicsymbols('x u s')
    m, k, c, b, freq = sm.symbols('m k c b w')
    constants = {m: _uniform(rng, 0.5, 2.0), k: _uniform(rng, 1.0, 10.0),
                 c: _uniform(rng, 0.1, 1.0), b: _uniform(rng, 0.2, 1.0),
                 freq: _uniform(rng, 1.0, 3.0)}
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x)
    P.set_vel(N, (u + s) * N.x)
    kane = me.KanesMethod(N, [x], [u], kd_eqs=[x.diff() - u - s])
    kane.kanes_equations([me.Particle('block', P, m)],
                         [(P, (-k * x - c * u) * N.x)])
    initial = {x: _uniform(rng, -0.5, 0.5), u: _uniform(rng, -0.5, 0.5)}
    return Generated(
        name=f'conveyor-{seed}', model=kane, frame=N, q=(x,), u=(u,),
        q_ind=(x,), u_ind=(u,), constants=constants, initial=initial,
        specified={s: b * sm.sin(freq * TIME)})


def relay_oscillator(seed, law='sign', names='plain'):
    """A mass on a spring pushed by a specified force ``F`` given as a
    state-feedback expression with a switch: ``law`` 'sign' (-F0
    sign(x)), 'heaviside' (-F0 Heaviside(x)), 'abs' (-F0 |x| x) or 'max'
    (-F0 max(0, x)). With ``names='internal'`` the coordinate, speed and
    constants are named like code generators' internals."""
    rng = np.random.default_rng(seed)
    xn, vn = ('in1', 'cse0') if names == 'internal' else ('x', 'v')
    x, v, F = me.dynamicsymbols(f'{xn} {vn} F')
    mn, kn, fn = (('x0', '_x', '_Dummy') if names == 'internal'
                  else ('m', 'k', 'F0'))
    m, k, F0 = sm.symbols(f'{mn} {kn} {fn}')
    constants = {m: _uniform(rng, 0.5, 2.0), k: _uniform(rng, 2.0, 10.0),
                 F0: _uniform(rng, 0.5, 2.0)}
    law_expr = {'sign': -F0 * sm.sign(x), 'heaviside': -F0 * sm.Heaviside(x),
                'abs': -F0 * sm.Abs(x) * x, 'max': -F0 * sm.Max(0, x)}[law]
    N = me.ReferenceFrame('q' if names == 'internal' else 'N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('u' if names == 'internal' else 'P', x * N.x)
    P.set_vel(N, v * N.x)
    kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v])
    kane.kanes_equations([me.Particle('p', P, m)],
                         [(P, (-k * x + F) * N.x)])
    initial = {x: _uniform(rng, 0.3, 1.0), v: _uniform(rng, -1.0, 1.0)}
    return Generated(
        name=f'relay-{law}-{names}-{seed}', model=kane, frame=N, q=(x,),
        u=(v,), q_ind=(x,), u_ind=(v,), constants=constants,
        initial=initial, specified={F: law_expr}, extra=dict(F=F))


def named_line(seed, names):
    """A damped spring-mass on a line pushed by the specified force
    ``F = A sin(3 t) + c x`` (time and state), with its coordinate, speed,
    input and constants named by ``names`` = (coordinate, speed, input,
    (mass, stiffness, damping)): names of Python keywords, of NumPy and
    SymPy objects, of the code generators' internals."""
    rng = np.random.default_rng(seed)
    xn, vn, fn, (mn, kn, cn) = names
    x, v, F = me.dynamicsymbols(f'{xn} {vn} {fn}')
    m, k, c, amp = sm.symbols(f'{mn} {kn} {cn} A_')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x)
    P.set_vel(N, v * N.x)
    kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v])
    kane.kanes_equations([me.Particle('p', P, m)],
                         [(P, (-k * x - c * v + F) * N.x)])
    constants = {m: _uniform(rng, 0.5, 2.0), k: _uniform(rng, 1.0, 10.0),
                 c: _uniform(rng, 0.1, 1.0), amp: _uniform(rng, 0.2, 1.0)}
    return Generated(
        name=f'named_line-{"-".join([xn, vn, fn, mn, kn, cn])}-{seed}',
        model=kane, frame=N, q=(x,), u=(v,), q_ind=(x,), u_ind=(v,),
        constants=constants,
        initial={x: _uniform(rng, -0.5, 0.5), v: _uniform(rng, -1, 1)},
        specified={F: amp * sm.sin(3 * TIME) + c * x})


def auxiliary_pendulum(seed, constrained=False):
    """A pendulum with SymPy's auxiliary speed ``u_a`` along its rod, to
    bring the rod's tension ``R`` (a dynamic symbol in the loads) into
    evidence through ``kane.auxiliary_eqs``: written with an angle
    (no constraints) or in natural coordinates ``(x, y)`` with the
    configuration constraint ``x**2 + y**2 - L**2`` (``constrained``)."""
    rng = np.random.default_rng(seed)
    m, g, L = sm.symbols('m g L')
    ua, R = me.dynamicsymbols('u_a R')
    constants = {m: _uniform(rng, 0.5, 2.0), g: 9.81,
                 L: _uniform(rng, 0.5, 1.5)}
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    angle = _uniform(rng, -1.0, 1.0)
    if not constrained:
        th, w = me.dynamicsymbols('theta omega')
        A = N.orientnew('A', 'Axis', (th, N.z))
        A.set_ang_vel(N, w * N.z)
        P = O.locatenew('P', -L * A.y)
        P.set_vel(N, L * w * A.x - ua * A.y)
        kane = me.KanesMethod(N, [th], [w], kd_eqs=[th.diff() - w],
                              u_auxiliary=[ua])
        q, u, q_ind, u_ind = (th,), (w,), (th,), (w,)
        holonomic, velocity = (), ()
        outward = -A.y
        initial = {th: angle, w: 0.0}
    else:
        x, y, ux, uy = me.dynamicsymbols('x y u_x u_y')
        P = O.locatenew('P', x * N.x + y * N.y)
        outward = (x * N.x + y * N.y) / L
        P.set_vel(N, ux * N.x + uy * N.y + ua * outward)
        holonomic = (x ** 2 + y ** 2 - L ** 2,)
        velocity = (x * ux + y * uy,)
        kane = me.KanesMethod(
            N, [x], [ux], kd_eqs=[x.diff() - ux, y.diff() - uy],
            q_dependent=[y], u_dependent=[uy],
            configuration_constraints=list(holonomic),
            velocity_constraints=list(velocity), u_auxiliary=[ua])
        q, u, q_ind, u_ind = (x, y), (ux, uy), (x,), (ux,)
        length = constants[L]
        initial = {x: length * np.sin(angle),
                   y: -length * np.cos(angle) * (1 + 1e-3), ux: 0.0}
    # R pulls the bob towards the pin
    kane.kanes_equations([me.Particle('bob', P, m)],
                         [(P, -m * g * N.y - R * outward)])
    return Generated(
        name=f'auxiliary_pendulum-{constrained}-{seed}', model=kane,
        frame=N, q=q, u=u, q_ind=q_ind, u_ind=u_ind, constants=constants,
        initial=initial, holonomic=holonomic, velocity=velocity,
        extra=dict(R=R, reactions=(R,)))


def block_drop(seed):
    """A rigid block (half sizes ``a`` by ``b``) moving in the vertical
    plane x-z, tilted ``theta``, dropped onto the ground ``z = 0`` where
    its corner ``K`` meets it through
    :class:`~sympy_loads.HuntCrossleyContact` (the load is the model's;
    the oracles use only SymPy's equations of it). The block starts in
    free flight; only that corner touches the ground."""
    from sympy_loads import HuntCrossleyContact
    rng = np.random.default_rng(seed)
    x, z, th = me.dynamicsymbols('x z theta')
    ux, uz, w = me.dynamicsymbols('u_x u_z omega')
    m, g, a, b, k, c = sm.symbols('m g a b k c')
    constants = {m: _uniform(rng, 0.5, 2.0), g: 9.81,
                 a: _uniform(rng, 0.1, 0.3), b: _uniform(rng, 0.05, 0.15),
                 k: _uniform(rng, 1e4, 1e5), c: _uniform(rng, 0.1, 1.0)}
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', (th, N.y))
    B.set_ang_vel(N, w * N.y)
    O = me.Point('O')
    O.set_vel(N, 0)
    G = O.locatenew('G', x * N.x + z * N.z)
    G.set_vel(N, ux * N.x + uz * N.z)
    K = G.locatenew('K', a * B.x - b * B.z)
    K.v2pt_theory(G, N, B)
    inertia = m * (a ** 2 + b ** 2) / 3
    body = me.RigidBody('block', G, B, m,
                        (me.inertia(B, 0, inertia, 0), G))
    contact = HuntCrossleyContact(K, O, N.z, N, stiffness=k, damping=c)
    loads = [(G, -m * g * N.z)] + list(contact.to_loads())
    kane = me.KanesMethod(N, [x, z, th], [ux, uz, w],
                          kd_eqs=[x.diff() - ux, z.diff() - uz,
                                  th.diff() - w])
    kane.kanes_equations([body], loads)
    initial = {x: 0.0, z: _uniform(rng, 0.3, 0.4),
               th: _uniform(rng, 0.2, 0.5), ux: _uniform(rng, -0.5, 0.5),
               uz: 0.0, w: _uniform(rng, -1.0, 1.0)}
    return Generated(
        name=f'block_drop-{seed}', model=kane, frame=N, q=(x, z, th),
        u=(ux, uz, w), q_ind=(x, z, th), u_ind=(ux, uz, w),
        constants=constants, initial=initial)


# ---------------------------------------------------------------------------
# Models formed again after a change

def reform(generated, seed):
    """Change ``generated``'s loads and form its equations again in place
    (``kanes_equations`` on the same ``KanesMethod``, or ``form_eoms`` on
    the same ``System``): a constant torque ``T0`` joins the first joint
    and gravity turns to ``-g (N.y + N.x/2)``. Returns the new
    :class:`Generated` (same model object); its ``energy`` is None."""
    rng = np.random.default_rng(seed)
    T0 = sm.Symbol('T0')
    constants = dict(generated.constants)
    constants[T0] = _uniform(rng, 0.5, 2.0)
    extra = generated.extra
    N, g = generated.frame, extra['g']
    if isinstance(generated.model, me.System):
        system = generated.model
        first = extra['bodies'][0]
        ground = system.bodies[0]
        system.add_actuators(me.TorqueActuator(
            T0, first.frame.z, first, ground.frame))
        system.apply_uniform_gravity(-g * N.x / 2)
        system.form_eoms()
    else:
        kane = generated.model
        parent, frame, axis = extra['first_axis']
        loads = [(point, force + force.dot(N.y) / 2 * N.x
                  if isinstance(point, me.Point) else force)
                 for point, force in extra['loads']]
        loads += [(frame, T0 * axis), (parent, -T0 * axis)]
        kane.kanes_equations(extra['bodies'], loads)
    kane = generated.kane
    return Generated(
        name=generated.name + '-reformed', model=generated.model,
        frame=N, q=tuple(kane.q), u=tuple(kane.u), q_ind=generated.q_ind,
        u_ind=generated.u_ind, constants=constants,
        initial=generated.initial, specified=generated.specified,
        holonomic=generated.holonomic, velocity=generated.velocity,
        extra=extra)
