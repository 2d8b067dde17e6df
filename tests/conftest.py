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
