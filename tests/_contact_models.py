"""Models shared by the tests of impacts and lasting contacts
(``test_rigid_impacts.py``, ``test_unilateral_contacts.py``), written
once here and imported by those modules."""

import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import Impact
from sympy_loads.examples import slider_crank

G = 9.81
ROD_MASS, ROD_LENGTH = 2.0, 1.2


def ball(restitution=0.8, radius=0.0, contact=None, table=None, mass=1.0):
    """A particle (mass ``m``) moving vertically under gravity ``g`` above
    the floor y = 0, or a table whose height is the expression ``table``
    of time, struck with the ``restitution`` and ``radius``; ``contact``,
    a function ``(P, O, N)`` giving a load with ``to_loads()``, adds a
    compliant contact. Returns ``(kane, impact, (y, v), {m: mass, g:
    G})``."""
    y, v = me.dynamicsymbols('y v')
    m, g = sm.symbols('m g')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', y * N.y)
    P.set_vel(N, v * N.y)
    loads = [(P, -m * g * N.y)]
    if contact is not None:
        loads += contact(P, O, N).to_loads()
    kane = me.KanesMethod(N, [y], [v], kd_eqs=[y.diff() - v])
    kane.kanes_equations([me.Particle('ball', P, m)], loads)
    plane = O if table is None else O.locatenew('T', table * N.y)
    impact = Impact(P, plane, N.y, N, restitution=restitution,
                    radius=radius, name='floor')
    return kane, impact, (y, v), {m: mass, g: G}


def two_ended_rod(e, mu=0.0, load=0.0, at=0.0):
    """A uniform planar rod (mass :data:`ROD_MASS`, length
    :data:`ROD_LENGTH`; centre x, y, angle theta) under gravity ``G``
    with an :class:`~sympy_loads.Impact` at each end (A at -L/2 along the
    rod, B at +L/2) on the floor y = 0, restitution ``e`` and friction
    coefficient ``mu``, and a vertical load ``load`` at ``at`` along the
    rod. Returns ``(kane, [impact A, impact B], (x, y, theta, v_x, v_y,
    omega))``."""
    x, y, th = me.dynamicsymbols('x y theta')
    vx, vy, w = me.dynamicsymbols('v_x v_y omega')
    m, L = ROD_MASS, ROD_LENGTH
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', (th, N.z))
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    Gc = O.locatenew('G', x * N.x + y * N.y)
    Gc.set_vel(N, vx * N.x + vy * N.y)
    ends = []
    for name, sign in (('A', -1), ('B', 1)):
        end = Gc.locatenew(name, sign * L / 2 * B.x)
        end.v2pt_theory(Gc, N, B)
        ends.append(Impact(end, O, N.y, N, restitution=e,
                           friction_coefficient=mu, name=name))
    loads = [(Gc, -m * G * N.y)]
    if load:
        Q = Gc.locatenew('Q', at * B.x)
        Q.v2pt_theory(Gc, N, B)
        loads.append((Q, -load * N.y))
    body = me.RigidBody('rod', Gc, B, m,
                        (me.inertia(B, 0, 0, m * L ** 2 / 12), Gc))
    kane = me.KanesMethod(N, [x, y, th], [vx, vy, w],
                          kd_eqs=[x.diff() - vx, y.diff() - vy,
                                  th.diff() - w])
    kane.kanes_equations([body], loads)
    return kane, ends, (x, y, th, vx, vy, w)


def slider_crank_with_stop(e):
    """The slider-crank of :mod:`sympy_loads.examples.slider_crank`
    (closed loop: dependent coordinates and speeds; springs and dampers
    off) with a stop at x = 0.37 that its slider strikes with the
    restitution ``e``. Returns ``(model, impact, constants, initial
    conditions)``."""
    model = slider_crank.build_model()
    O, _, S = model.points
    N = model.frame
    stop = O.locatenew('stop', 0.37 * N.x)
    impact = Impact(S, stop, -N.x, N, restitution=e, name='stop')
    q1, q2, q3 = model.q
    u1 = model.u[0]
    constants = slider_crank.constants_of(model, k=0.0, c=0.0, cb=0.0)
    return model, impact, constants, {q1: 2.0, q2: 0.0, q3: 0.25,
                                      u1: -8.0}
