"""Fixtures shared by several test modules."""

from types import SimpleNamespace

import pytest
import sympy as sm
import sympy.physics.mechanics as me


def _line_particle(mass, force):
    """A particle of ``mass`` at ``P = O + x N.x`` with speed ``v``,
    loaded by ``force(x, v) N.x``; ``kanes_equations`` already formed.
    Returns a namespace with ``kane, x, v, N, O, P``."""
    x, v = me.dynamicsymbols('x v')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x)
    P.set_vel(N, v * N.x)
    kane = me.KanesMethod(N, [x], [v], kd_eqs=[x.diff() - v])
    kane.kanes_equations([me.Particle('p', P, mass)],
                         [(P, force(x, v) * N.x)])
    return SimpleNamespace(kane=kane, x=x, v=v, N=N, O=O, P=P)


@pytest.fixture(scope='session')
def line_particle():
    """``line_particle(mass, force)``: one particle on a line (see
    :func:`_line_particle`), the model of many small simulate() tests."""
    return _line_particle


def _cart_pendulum():
    """A cart (mass ``M``, position ``x``) with a pendulum bob (mass
    ``m``, length ``l``, angle ``theta`` from upright), pushed by the
    specified force ``F``. Returns ``(kane, (x, theta, v, omega), F,
    constants)``."""
    x, th, v, w, F = me.dynamicsymbols('x theta v omega F')
    m, M, l, g = sm.symbols('m M l g')
    N = me.ReferenceFrame('N')
    B = N.orientnew('B', 'Axis', (th, N.z))
    B.set_ang_vel(N, w * N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    C = O.locatenew('C', x * N.x)
    C.set_vel(N, v * N.x)
    P = C.locatenew('P', l * B.y)
    P.v2pt_theory(C, N, B)
    kane = me.KanesMethod(N, [x, th], [v, w],
                          kd_eqs=[x.diff() - v, th.diff() - w])
    kane.kanes_equations([me.Particle('cart', C, M),
                          me.Particle('bob', P, m)],
                         [(C, F * N.x - M * g * N.y), (P, -m * g * N.y)])
    constants = {m: 0.5, M: 2.0, l: 0.8, g: 9.81}
    return kane, (x, th, v, w), F, constants


@pytest.fixture(scope='session')
def cart_pendulum():
    """``cart_pendulum()``: the cart with an inverted pendulum (see
    :func:`_cart_pendulum`), the model of the linearization and
    state-feedback tests."""
    return _cart_pendulum


def _circle_particle():
    """A particle of unit mass on the unit circle, written in (x, y) with
    x**2 + y**2 = 1 (x independent, y dependent), under gravity ``-g N.y``
    and a specified force ``F N.x``. Its dependent block 2 y degrades as
    the particle passes x = 1, where the engine changes partition.
    Returns a namespace with ``kane, x, y, vx, vy, F, g``."""
    x, y, vx, vy, F = me.dynamicsymbols('x y v_x v_y F')
    g = sm.Symbol('g')
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, vx * N.x + vy * N.y)
    kane = me.KanesMethod(N, [x], [vx], q_dependent=[y], u_dependent=[vy],
                          kd_eqs=[x.diff() - vx, y.diff() - vy],
                          configuration_constraints=[x**2 + y**2 - 1],
                          velocity_constraints=[x * vx + y * vy])
    kane.kanes_equations([me.Particle('p', P, 1)], [(P, -g * N.y + F * N.x)])
    return SimpleNamespace(kane=kane, x=x, y=y, vx=vx, vy=vy, F=F, g=g)


@pytest.fixture(scope='session')
def circle_particle():
    """``circle_particle()``: a particle on a circle in (x, y), pushed by
    a specified force (see :func:`_circle_particle`)."""
    return _circle_particle


@pytest.fixture(scope='session')
def whipple_with_steer_torque():
    """The Whipple bicycle of Meijaard et al. (2007) with the steer torque
    ``T_delta`` as a specified input, and its prepared ``Simulation``
    (``.simulation``): its derivation takes seconds, so the linear and the
    state-feedback tests share one."""
    from sympy_loads import Simulation
    from sympy_loads.examples._whipple import whipple_bicycle
    model = whipple_bicycle(steer_torque=True)
    model.simulation = Simulation(model.kane)
    return model
