"""A loop with a redundant row (the Autodesk module's overconstrained
four-bar): the LoopJoint drops and names the row, the mechanism moves as
the planar four-bar it is, and its reactions are still determined, equal
to those of the four-bar without the redundancy."""

import warnings

import numpy as np
import pytest
import sympy as sm
from sympy.physics.mechanics import (PinJoint, RigidBody, SphericalJoint,
                                     System, dynamicsymbols, inertia)

from sympy_loads import LoopJoint, joint_reactions, simulate


def _four_bar(ball_at_p2):
    """Moore's four-bar with rods of mass: crank on the ground pin P1,
    rocker on the ground pin P4, coupler on the crank at P2 (a pin, or a
    ball joint that lets it tilt out of the plane) and the loop closed by a
    pin at P3 between coupler and rocker."""
    la, lb, lc, ln = 0.8, 2.0, 1.0, 2.0
    m, g = sm.symbols('m g', positive=True)
    ground = RigidBody('N')
    N = ground.frame
    A, B, C = (RigidBody(name, mass=m) for name in 'ABC')
    for body, length in ((A, la), (B, lb), (C, lc)):
        body.central_inertia = inertia(body.frame, m * length**2 / 100,
                                       m * length**2 / 12,
                                       m * length**2 / 12)
    system = System.from_newtonian(ground)
    q1, u1 = dynamicsymbols('q1 u1')
    P1 = PinJoint('P1', ground, A, q1, u1, child_point=-la / 2 * A.x,
                  joint_axis=N.z)
    if ball_at_p2:
        q2, u2 = dynamicsymbols('q2:5'), dynamicsymbols('u2:5')
        P2 = SphericalJoint('P2', A, B, q2, u2, parent_point=la / 2 * A.x,
                            child_point=-lb / 2 * B.x)
    else:
        q2, u2 = dynamicsymbols('q2'), dynamicsymbols('u2')
        P2 = PinJoint('P2', A, B, q2, u2, parent_point=la / 2 * A.x,
                      child_point=-lb / 2 * B.x, joint_axis=N.z)
    q5, u5 = dynamicsymbols('q5 u5')
    P4 = PinJoint('P4', ground, C, q5, u5, parent_point=ln * N.x,
                  child_point=lc / 2 * C.x, joint_axis=N.z)
    P3 = LoopJoint('P3', B, C, parent_point=lb / 2 * B.x,
                   child_point=-lc / 2 * C.x, joint_axis=B.z,
                   child_axis=C.z)
    system.add_joints(P1, P2, P4, P3)
    system.add_holonomic_constraints(*P3.holonomic_constraints)
    system.apply_uniform_gravity(-g * N.y)
    q, u = list(system.q), list(system.u)
    system.q_ind = [q1]
    system.q_dep = [c for c in q if c is not q1]
    system.u_ind = [u1]
    system.u_dep = [s for s in u if s is not u1]
    system.form_eoms()
    return system, (P1, P2, P4, P3), {m: 1.0, g: 9.81}


@pytest.fixture(scope='module')
def runs():
    out = {}
    for ball in (False, True):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            system, joints, constants = _four_bar(ball)
        loop = joints[-1]
        N = system.frame
        outputs = {}
        for joint in joints:
            reaction = joint_reactions(joint, system)
            outputs[joint.name] = sm.Matrix(
                [reaction.force.dot(e) for e in N] + [
                    reaction.torque.dot(N.z)])
        q1 = system.q[0]
        u1 = system.u[0]
        guesses = {c: 0.0 for c in system.q}
        # the planar assembly: coupler above the ground link
        guesses.update({q1: np.deg2rad(10), system.q[1]: np.deg2rad(5),
                        system.q[-1]: np.deg2rad(-150) + np.pi, u1: 0.0})
        result = simulate(system, (0.0, 1.0), guesses, constants,
                          t_eval=np.linspace(0, 1, 21), rtol=1e-11,
                          atol=1e-11, outputs=outputs)
        out[ball] = (result, loop, caught)
    return out


def test_the_redundant_row_is_dropped_and_named(runs):
    _, planar, caught = runs[False]
    assert planar.dropped == {'Fz': 'identically zero',
                              'Tx': 'identically zero',
                              'Ty': 'identically zero'}
    assert not caught
    _, ball, caught = runs[True]
    assert list(ball.dropped.values()) == ['redundant']
    assert len(ball.labels) == 4
    messages = [str(w.message) for w in caught]
    assert any("LoopJoint 'P3'" in m and 'redundant' in m
               for m in messages)


def test_moves_as_the_planar_four_bar(runs):
    planar, ball = runs[False][0], runs[True][0]
    assert planar.success and ball.success, (planar.message, ball.message)
    # both at rtol 1e-11 over 1 s
    np.testing.assert_allclose(ball.q[:, 0], planar.q[:, 0], atol=1e-7)
    np.testing.assert_allclose(ball.u[:, 0], planar.u[:, 0], atol=1e-6)


def test_reactions_are_determined_and_those_of_the_planar_four_bar(runs):
    """The in-plane forces at every joint are the planar four-bar's; the
    out-of-plane force and the torque about the normal are zero (ideal
    planar pins under planar loads)."""
    planar, ball = runs[False][0], runs[True][0]
    scale = max(np.max(np.abs(planar.outputs[name][:, :2]))
                for name in ('P1', 'P2', 'P3', 'P4'))
    assert scale > 1.0
    for name in ('P1', 'P2', 'P3', 'P4'):
        np.testing.assert_allclose(ball.outputs[name][:, :2],
                                   planar.outputs[name][:, :2],
                                   atol=1e-6 * scale, err_msg=name)
        np.testing.assert_allclose(ball.outputs[name][:, 2:], 0,
                                   atol=1e-6 * scale, err_msg=name)
