"""Tests of the private helpers shared by several modules (_utils.py)."""

import sympy as sm
from sympy.physics.mechanics import KanesMethod, ReferenceFrame, dynamicsymbols

from sympy_loads._utils import _kanes_parts, _lambdify, _nonzero_norm


def test_kanes_parts_reads_the_partition_of_a_constrained_model():
    q1, q2, u1, u2 = dynamicsymbols('q1 q2 u1 u2')
    N = ReferenceFrame('N')
    kane = KanesMethod(N, [q1], [u1], kd_eqs=[q1.diff() - u1,
                                              q2.diff() - u2],
                       q_dependent=[q2], u_dependent=[u2],
                       configuration_constraints=[q1**2 - q2],
                       velocity_constraints=[2 * q1 * u1 - u2])
    parts = _kanes_parts(kane)
    assert parts.frame is N
    assert (parts.q_ind, parts.q_dep) == ([q1], [q2])
    assert (parts.u_ind, parts.u_dep) == ([u1], [u2])
    assert parts.holonomic_constraints == [q1**2 - q2]
    # k_nh u + f_nh = 0 is the velocity constraint, up to a factor
    residual = (parts.k_nh * sm.Matrix([u1, u2]) + parts.f_nh)[0]
    assert sm.simplify(residual / (2 * q1 * u1 - u2)).is_constant()


def test_kanes_parts_of_an_unconstrained_model_has_empty_constraints():
    q, u = dynamicsymbols('q u')
    parts = _kanes_parts(KanesMethod(ReferenceFrame('N'), [q], [u],
                                     kd_eqs=[q.diff() - u]))
    assert (parts.q_dep, parts.u_dep, parts.holonomic_constraints) == (
        [], [], [])
    assert parts.k_nh.shape == (0, 1) and parts.f_nh.shape == (0, 1)


def test_nonzero_norm_is_the_norm_away_from_rest_and_one_at_rest():
    x, y = sm.symbols('x y', real=True)
    norm = sm.sqrt(x**2 + y**2)
    direction_x = _lambdify((x, y), x / _nonzero_norm(norm))
    assert direction_x(0.0, 0.0) == 0.0
    assert abs(direction_x(3.0, 4.0) - 0.6) < 1e-15
