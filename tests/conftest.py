"""Fixtures shared by several test modules."""

from types import SimpleNamespace

import pytest
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
