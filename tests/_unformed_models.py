"""Builders of ``System`` models whose equations are NOT formed (issue
38), shared by the tests (``tests/test_assembly.py``,
``tests/test_partitioning.py``) and the benchmarks
(``benchmarks/models.py`` re-exports them for
``benchmarks/bench_large_models.py`` and ``benchmarks/bench_chain.py``).

Every builder returns an :class:`UnformedModel`: the ``System`` (never
formed here), its ``constants`` (symbol -> float), its
``initial_conditions`` (coordinate or speed -> float; dependent ones are
guesses) and, where the model has them, its specified inputs as SymPy
expressions of time.

- :func:`pin_chain`: a chain of ``PinJoint``s (relative angles), as SymPy's
  joints tutorial writes it; uniform links (the benchmarks) or, with a
  ``seed``, random links with a spring-damper in every joint, planar or
  spatial (the tests);
- :func:`absolute_chain`: the planar chain written with absolute angles
  (``orient_axis`` in the ground frame, ``v2pt_theory``), of rigid links
  or particles;
- :func:`closed_chain`: :func:`absolute_chain` with its tip held on a
  horizontal line (a holonomic constraint);
- :func:`sled`: a Chaplygin sled on a spring and damper (a velocity
  constraint, a load holding the coordinates' rates, a specified input);
- :func:`rolling_disc`: a disc rolling without slipping on a plane, tied
  to a fixed point by a spring and a damper;
- :func:`n_four_bar`: IFToMM's benchmark A02, the N-four-bar, as
  ``PinJoint``s closed by :class:`sympy_loads.LoopJoint`s, with the
  benchmark's parameters and initial conditions, and
  :func:`n_four_bar_reference`, its exact one-degree-of-freedom motion.

References
==========

.. [A02] M. Gonzalez, D. Dopico, U. Lugris, J. Cuadrado, "A benchmarking
   system for MBS simulation software: problem standardization and
   performance measurement", Multibody System Dynamics 16:179-190, 2006;
   the IFToMM library of computational benchmark problems, A02 "N four-bar
   mechanism" (2N + 1 rods of 1 m and 1 kg, gravity 9.81 m/s^2 along -y,
   the rods vertical at the start with the x velocity of the tip B0 of
   the first one 1 m/s; N = 40).
"""

from dataclasses import dataclass, field

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp

__all__ = ['UnformedModel', 'pin_chain', 'absolute_chain', 'closed_chain',
           'sled', 'rolling_disc', 'n_four_bar', 'n_four_bar_reference']

TIME = me.dynamicsymbols._t


@dataclass
class UnformedModel:
    """A ``System`` whose equations are not formed, with the values a run
    needs; ``extra`` holds what a builder adds (symbols, points)."""

    system: me.System
    constants: dict
    initial_conditions: dict
    specified: dict = None
    n: int = None
    extra: dict = field(default_factory=dict)


def pin_chain(n, *, spatial=False, seed=None, angle=0.3):
    """A chain of ``n`` rigid links joined by SymPy ``PinJoint``s, each
    turning relative to its parent (the way SymPy's joints tutorial writes
    it), under gravity ``g`` along ``-N.y``.

    Without ``seed``: uniform links of length ``l = 1/n`` m and mass
    ``m = 1/n`` kg (moment of inertia ``m l^2/12`` about the joint axis;
    one symbol each for all links), released at rest straight at ``angle`` from the vertical (the
    first relative angle ``angle``, the others 0). With ``seed``: random
    lengths, masses and principal moments, a torsional spring-damper
    (``k``, ``c``) in every joint and a random initial state; ``spatial``
    cycles the joint axes through the parent's x, y and z."""
    rng = None if seed is None else np.random.default_rng(seed)
    q = me.dynamicsymbols(f'q1:{n + 1}')
    u = me.dynamicsymbols(f'u1:{n + 1}')
    g, k, c = sm.symbols('g k c')
    if rng is None:     # one length and one mass, as benchmarks/ measured
        ls, ms = [sm.Symbol('l')] * n, [sm.Symbol('m')] * n
    else:
        ls, ms = sm.symbols(f'l1:{n + 1}'), sm.symbols(f'm1:{n + 1}')
    ground = me.RigidBody('ground')
    system = me.System.from_newtonian(ground)
    constants = {g: 9.81}
    parent = ground
    for i in range(n):
        A, G = me.ReferenceFrame(f'A{i + 1}'), me.Point(f'G{i + 1}')
        moments = ((0, 0, ms[i] * ls[i] ** 2 / 12) if rng is None
                   else tuple(rng.uniform(0.02, 0.1, 3)))
        body = me.RigidBody(f'link{i + 1}', masscenter=G, frame=A,
                            mass=ms[i], inertia=(me.inertia(A, *moments), G))
        axis = ([parent.frame.x, parent.frame.y, parent.frame.z][i % 3]
                if spatial else parent.frame.z)
        system.add_joints(me.PinJoint(
            f'J{i + 1}', parent, body, coordinates=q[i], speeds=u[i],
            parent_point=(-ls[i - 1] / 2 * parent.frame.y if i
                          else 0 * parent.frame.y),
            child_point=ls[i] / 2 * A.y, joint_axis=axis))
        if rng is None:
            constants.update({ls[i]: 1.0 / n, ms[i]: 1.0 / n})
        else:
            system.add_actuators(me.TorqueActuator(
                -k * q[i] - c * u[i], axis, body, parent))
            constants.update({ls[i]: float(rng.uniform(0.3, 0.8)),
                              ms[i]: float(rng.uniform(0.5, 2.0))})
        parent = body
    system.apply_uniform_gravity(-g * ground.frame.y)
    if rng is None:
        initial = {qi: (angle if i == 0 else 0.0) for i, qi in enumerate(q)}
        initial.update({ui: 0.0 for ui in u})
    else:
        constants.update({k: 2.0, c: 0.1})
        initial = {s: float(rng.uniform(-0.6, 0.6)) for s in q}
        initial.update({s: float(rng.uniform(-1.0, 1.0)) for s in u})
    return UnformedModel(system, constants, initial, n=n)


def absolute_chain(n, *, particles=False, seed=None, angle=0.3):
    """The planar chain of :func:`pin_chain` (uniform links, total length
    1 m and mass 1 kg) written with absolute angles: each link's frame
    oriented in the ground frame, its points located from the previous
    joint and their velocities by ``v2pt_theory``; a ``System`` of
    coordinates, speeds, bodies and loads. ``particles``: the mass of
    each link at its end. Released at rest straight at ``angle`` (the
    same motion as :func:`pin_chain` with ``q_abs,i = q_1 + ... + q_i``),
    or with ``seed`` from a gentle random shape (angles in [-0.3, 0.3]:
    a long chain of short links moving fast is chaotic, and integration
    errors of 1e-11 would grow past 1e-8 within a second)."""
    q = me.dynamicsymbols(f'q1:{n + 1}')
    u = me.dynamicsymbols(f'u1:{n + 1}')
    g, l, m = sm.symbols('g l m')
    N, O = me.ReferenceFrame('N'), me.Point('O')
    O.set_vel(N, 0)
    system = me.System(N, O)
    system.add_coordinates(*q)
    system.add_speeds(*u)
    system.add_kdes(*[qi.diff(TIME) - ui for qi, ui in zip(q, u)])
    joint = O
    for i in range(n):
        A = me.ReferenceFrame(f'L{i + 1}')
        A.orient_axis(N, N.z, q[i])
        A.set_ang_vel(N, u[i] * N.z)
        end = joint.locatenew(f'P{i + 1}', -l * A.y)
        end.v2pt_theory(joint, N, A)
        if particles:
            body = me.Particle(f'p{i + 1}', end, m)
        else:
            G = joint.locatenew(f'G{i + 1}', -l / 2 * A.y)
            G.v2pt_theory(joint, N, A)
            body = me.RigidBody(f'link{i + 1}', G, A, m,
                                (me.inertia(A, 0, 0, m * l ** 2 / 12), G))
        system.add_bodies(body)
        system.add_loads(me.Force(body.masscenter, -m * g * N.y))
        joint = end
    constants = {g: 9.81, l: 1.0 / n, m: 1.0 / n}
    if seed is None:
        initial = {s: angle for s in q}
    else:
        rng = np.random.default_rng(seed)
        initial = {s: float(rng.uniform(-0.3, 0.3)) for s in q}
    initial.update({s: 0.0 for s in u})
    return UnformedModel(system, constants, initial, n=n,
                         extra={'tip': joint})


def closed_chain(n, angle=0.6):
    """:func:`absolute_chain` with the tip of its last link held on the
    line ``y = -h`` (a holonomic constraint; the last angle and speed
    dependent), released at rest from the straight chain at ``angle``
    (which fixes ``h = n l cos(angle)``). The partition is singular where
    the last link is vertical, which the released chain reaches sooner
    the more links it has (after about 0.74 s for n = 8, 0.27 s for
    n = 32, from 0.6 rad)."""
    model = absolute_chain(n)
    system = model.system
    q, u = list(system.q), list(system.u)
    h = sm.Symbol('h')
    l = next(s for s in model.constants if s.name == 'l')
    system.add_holonomic_constraints(h - l * sum(sm.cos(qi) for qi in q))
    system.q_ind, system.q_dep = q[:-1], q[-1:]
    system.u_ind, system.u_dep = u[:-1], u[-1:]
    model.initial_conditions = {**{qi: angle for qi in q},
                                **{ui: 0.0 for ui in u}}
    model.constants[h] = model.constants[l] * n * float(np.cos(angle))
    return model


def sled(slip):
    """A Chaplygin sled (knife edge at (x, y) heading theta, mass centre
    a ahead; the edge's lateral speed prescribed, zero or the specified
    input s(t): a velocity constraint) tied to the origin by a spring and
    a damper (the damper's force holds the coordinates' rates)."""
    x, y, th = me.dynamicsymbols('x y theta')
    ux, uy, w = me.dynamicsymbols('u_x u_y omega')
    s = me.dynamicsymbols('s')
    m, inertia, a, k, c, l0 = sm.symbols('m I a k c l0')
    N, B = me.ReferenceFrame('N'), me.ReferenceFrame('B')
    B.orient_axis(N, N.z, th)
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    G = P.locatenew('G', a * B.x)
    G.v2pt_theory(P, N, B)
    system = me.System(N, O)
    system.add_coordinates(x, y, th)
    system.add_speeds(ux, w)
    system.add_speeds(uy, independent=False)
    system.add_kdes(x.diff() - ux, y.diff() - uy, th.diff() - w)
    system.add_nonholonomic_constraints(
        -sm.sin(th) * ux + sm.cos(th) * uy - (s if slip else 0))
    system.add_bodies(me.RigidBody('sled', G, B, m,
                                   (me.inertia(B, 0, 0, inertia), G)))
    path = me.LinearPathway(O, G)
    system.add_actuators(me.LinearSpring(k, path, l0),
                         me.LinearDamper(c, path))
    constants = {m: 1.3, inertia: 0.12, a: 0.3, k: 4.0, c: 0.4, l0: 0.5}
    initial = {x: 0.8, y: -0.2, th: 0.4, ux: 0.5, w: 1.5, uy: 0.0}
    specified = {s: 0.2 * sm.sin(3 * TIME)} if slip else None
    return UnformedModel(system, constants, initial, specified)


def rolling_disc():
    """A thin disc (mass ``m``, radius ``r``) rolling without slipping on
    the horizontal plane ``z = 0`` under gravity ``g`` along ``-N.z``,
    its centre tied to the fixed point ``(d, 0, r)`` by a spring (``k``,
    free length ``l0``) and a damper (``c``): SymPy's ``LinearDamper``
    on a ``LinearPathway``, whose force holds the rates of the
    coordinates (``x'``, ``y'``, the angles').

    Coordinates: the contact point ``(x, y)``, yaw ``q1`` about ``N.z``,
    lean ``q2`` about the yawed x axis, spin ``q3`` about the disc's axis;
    speeds ``u_i = q_i'``, ``u_x = x'``, ``u_y = y'``. Rolling is the two
    velocity constraints (nonholonomic) that the disc's material point at
    the contact does not slide: ``u_x``, ``u_y`` dependent. Started
    leaning 0.2 rad, spinning 8 rad/s and turning 0.5 rad/s, 0.4 m from
    the spring's anchor."""
    x, y, q1, q2, q3 = me.dynamicsymbols('x y q1:4')
    ux, uy, u1, u2, u3 = me.dynamicsymbols('u_x u_y u1:4')
    m, r, g, k, c, l0, d = sm.symbols('m r g k c l0 d')
    N = me.ReferenceFrame('N')
    Y = N.orientnew('Y', 'Axis', (q1, N.z))
    L = Y.orientnew('L', 'Axis', (q2, Y.x))
    R = L.orientnew('R', 'Axis', (q3, L.y))
    Y.set_ang_vel(N, u1 * N.z)
    L.set_ang_vel(N, u1 * N.z + u2 * Y.x)
    R.set_ang_vel(N, u1 * N.z + u2 * Y.x + u3 * L.y)
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)      # the contact, on the plane
    P.set_vel(N, ux * N.x + uy * N.y)
    C = P.locatenew('C', r * L.z)
    C.set_vel(N, P.vel(N) + L.ang_vel_in(N).cross(r * L.z))
    rolling = C.vel(N) - R.ang_vel_in(N).cross(r * L.z)
    system = me.System(N, O)
    system.add_coordinates(x, y, q1, q2, q3)
    system.add_speeds(u1, u2, u3)
    system.add_speeds(ux, uy, independent=False)
    system.add_kdes(*[s.diff(TIME) - v for s, v in
                      zip((x, y, q1, q2, q3), (ux, uy, u1, u2, u3))])
    system.add_nonholonomic_constraints(rolling.dot(N.x), rolling.dot(N.y))
    system.add_bodies(me.RigidBody(
        'disc', C, R, m, (me.inertia(L, m * r**2 / 4, m * r**2 / 2,
                                     m * r**2 / 4), C)))
    system.apply_uniform_gravity(-g * N.z)
    path = me.LinearPathway(O.locatenew('A', d * N.x + r * N.z), C)
    system.add_actuators(me.LinearSpring(k, path, l0),
                         me.LinearDamper(c, path))
    constants = {m: 1.0, r: 0.3, g: 9.81, k: 5.0, c: 0.5, l0: 0.3, d: 0.4}
    initial = {x: 0.0, y: 0.0, q1: 0.0, q2: 0.2, q3: 0.0,
               u1: 0.5, u2: 0.0, u3: 8.0, ux: 0.0, uy: 0.0}
    return UnformedModel(system, constants, initial)


def n_four_bar(n):
    """IFToMM A02, the N-four-bar [A02]_, as a ``System`` of ``PinJoint``s
    closed by ``LoopJoint``s; not formed.

    ``n + 1`` vertical rods (length ``L``, mass ``m``, uniform) are pinned
    to the ground 1 m apart (``PinJoint`` ``O_i``, absolute angle
    ``theta_i`` from ``N.x``); the horizontal rod ``i`` is pinned to the
    tip of rod ``i - 1`` (``PinJoint`` ``B_i``, angle ``psi_i`` relative
    to that rod) and closed on the tip of rod ``i`` by a pin
    :class:`~sympy_loads.LoopJoint` ``C_i`` (two constraints). The joint
    tree is two links deep whatever ``n``. Gravity ``g`` along ``-N.y``.
    ``theta_0`` and its speed are independent, the other ``2 n``
    coordinates and speeds dependent. The benchmark's start: every rod
    vertical (``theta_i = pi/2``, ``psi_i = -pi/2``: the horizontal rods
    horizontal), the tip ``B_0`` of the first rod moving at 1 m/s along
    ``+x`` (``theta_0' = -1`` rad/s). Every four-bar is a
    parallelogram, so every ``theta_i`` equals ``theta_0`` along the
    motion (:func:`n_four_bar_reference`); where they are 0 or pi every
    rod lies on the ground line, a singular configuration of the
    mechanism. ``extra``: ``theta`` (the ``theta_i``), ``loops`` (the
    LoopJoints), ``bodies``, ``L``."""
    from sympy_loads import LoopJoint
    th = me.dynamicsymbols(f'theta0:{n + 1}')
    ps = me.dynamicsymbols(f'psi1:{n + 1}')
    w = me.dynamicsymbols(f'omega0:{n + 1}')
    v = me.dynamicsymbols(f'nu1:{n + 1}')
    L, m, g = sm.symbols('L m g')
    ground = me.RigidBody('ground')
    N = ground.frame
    system = me.System.from_newtonian(ground)

    def rod(name):
        frame, centre = me.ReferenceFrame(f'{name}_frame'), me.Point(name)
        return me.RigidBody(name, centre, frame, m,
                            (me.inertia(frame, 0, 0, m * L**2 / 12), centre))

    rods = [rod(f'rod{i}') for i in range(n + 1)]
    bars = [rod(f'bar{i + 1}') for i in range(n)]
    joints, loops = [], []
    for i, body in enumerate(rods):
        joints.append(me.PinJoint(
            f'O{i}', ground, body, coordinates=th[i], speeds=w[i],
            parent_point=i * L * N.x, child_point=-L / 2 * body.frame.x,
            joint_axis=N.z))
    for i, bar in enumerate(bars):
        joints.append(me.PinJoint(
            f'B{i}', rods[i], bar, coordinates=ps[i], speeds=v[i],
            parent_point=L / 2 * rods[i].frame.x,
            child_point=-L / 2 * bar.frame.x, joint_axis=rods[i].frame.z))
    system.add_joints(*joints)
    for i, bar in enumerate(bars):
        loops.append(LoopJoint(
            f'C{i + 1}', bar, rods[i + 1], parent_point=L / 2 * bar.frame.x,
            child_point=L / 2 * rods[i + 1].frame.x, kind='pin',
            joint_axis=N.z))
    system.add_joints(*loops)
    for loop in loops:
        system.add_holonomic_constraints(*loop.holonomic_constraints)
    system.q_ind, system.q_dep = th[:1], [*th[1:], *ps]
    system.u_ind, system.u_dep = w[:1], [*w[1:], *v]
    system.apply_uniform_gravity(-g * N.y)
    initial = {**{s: np.pi / 2 for s in th}, **{s: -np.pi / 2 for s in ps},
               **{s: 0.0 for s in (*w, *v)}}
    initial[w[0]] = -1.0
    return UnformedModel(system, {L: 1.0, m: 1.0, g: 9.81}, initial, n=n,
                         extra={'theta': th, 'loops': loops,
                                'bodies': rods + bars, 'L': L})


def n_four_bar_reference(n, times, phi0=np.pi / 2, omega0=-1.0, g=9.81):
    """The A02 angle ``phi(t)`` of every vertical rod (L = m = 1), from the
    one-degree-of-freedom equation of the parallelogram mechanism:
    kinetic energy ``((n + 1)/3 + n) phi'^2/2`` (rods turning about their
    pivots, horizontal rods translating with their tips) and potential
    energy ``g ((n + 1)/2 + n) sin(phi)``; integrated by SciPy's DOP853 at
    rtol = atol = 1e-13."""
    k = g * ((n + 1) / 2 + n) / ((n + 1) / 3 + n)
    solution = solve_ivp(lambda t, y: [y[1], -k * np.cos(y[0])],
                         (times[0], times[-1]), [phi0, omega0],
                         t_eval=times, method='DOP853', rtol=1e-13,
                         atol=1e-13)
    return solution.y[0]
