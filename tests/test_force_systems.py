"""Tests of sympy_loads.force_systems against seed 000's worked examples,
hand derivations and the transfer identities of Kane & Levinson."""

import pytest
import sympy as sm
import sympy.physics.mechanics as me
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.physics.mechanics import (Force, Point, ReferenceFrame, RigidBody,
                                     Torque, dynamicsymbols)
from sympy.physics.vector import Vector

from sympy_loads import (Couple, Replacement, are_equivalent, moment,
                         resultant)


def vectors_equal(a, b, frame):
    difference = (a - b).to_matrix(frame).applyfunc(sm.simplify)
    return difference == sm.zeros(3, 1)


@pytest.fixture
def two_bound_forces():
    """Seed 000, section "Moment": F1 through 2 n_x, F2 through 3 n_x."""
    N = ReferenceFrame('N')
    O = Point('O')
    P1 = O.locatenew('P1', 2 * N.x)
    P2 = O.locatenew('P2', 3 * N.x)
    F1 = 2 * N.x + 3 * N.y
    F2 = -4 * N.x + 5 * N.y
    return N, O, [Force(P1, F1), Force(P2, F2)]


class TestSeedExamples:

    def test_moment_about_p_direct_equals_transfer_from_q(
            self, two_bound_forces):
        N, O, loads = two_bound_forces
        P = O.locatenew('P', -5 * N.x)
        Q = O.locatenew('Q', 5 * N.y)
        # The seed's two computations, written out by hand.
        r_O_P1, r_O_P2, r_O_P, r_O_Q = 2 * N.x, 3 * N.x, -5 * N.x, 5 * N.y
        F1, F2 = 2 * N.x + 3 * N.y, -4 * N.x + 5 * N.y
        direct = (me.cross(r_O_P1 - r_O_P, F1)
                  + me.cross(r_O_P2 - r_O_P, F2))
        M_S_Q = (me.cross(r_O_P1 - r_O_Q, F1)
                 + me.cross(r_O_P2 - r_O_Q, F2))
        transferred = M_S_Q + me.cross(r_O_Q - r_O_P, F1 + F2)
        assert moment(loads, P) == direct == transferred == 61 * N.z
        assert moment(loads, Q) == M_S_Q
        assert (moment(loads, P)
                == moment(loads, Q) + Q.pos_from(P).cross(resultant(loads)))

    def test_resultant_of_two_bound_forces(self, two_bound_forces):
        N, _, loads = two_bound_forces
        assert resultant(loads) == -2 * N.x + 8 * N.y

    def test_four_wheel_car_replacement_at_body_center(self):
        l, w = sm.symbols('l, w')
        Ffl, Ffr, Frl, Frr = dynamicsymbols('F_fl, F_fr, F_rl, F_rr')
        afl, afr, arl, arr = dynamicsymbols('alpha_fl, alpha_fr, alpha_rl, '
                                            'alpha_rr')
        delta = dynamicsymbols('delta')
        B, W = ReferenceFrame('B'), ReferenceFrame('W')
        FR, FL = ReferenceFrame('F_R'), ReferenceFrame('F_L')
        RR, RL = ReferenceFrame('R_R'), ReferenceFrame('R_L')
        W.orient_axis(B, delta, B.z)
        FR.orient_axis(W, afr, W.z)
        FL.orient_axis(W, afl, W.z)
        RR.orient_axis(B, arr, B.z)
        RL.orient_axis(B, arl, B.z)
        Bo = Point('B_o')
        wheels = [Bo.locatenew('fl', l / 2 * B.x - w / 2 * B.y),
                  Bo.locatenew('fr', l / 2 * B.x + w / 2 * B.y),
                  Bo.locatenew('rl', -l / 2 * B.x - w / 2 * B.y),
                  Bo.locatenew('rr', -l / 2 * B.x + w / 2 * B.y)]
        forces = [Ffl * FL.x, Ffr * FR.x, Frl * RL.x, Frr * RR.x]
        loads = [(p, f) for p, f in zip(wheels, forces)]

        replacement = Replacement(loads, Bo, B)

        # The seed's expressions for the resultant and the torque.
        R = (Ffl * FL.x + Ffr * FR.x + Frl * RL.x + Frr * RR.x)
        T = (me.cross(l / 2 * B.x - w / 2 * B.y, Ffl * FL.x)
             + me.cross(l / 2 * B.x + w / 2 * B.y, Ffr * FR.x)
             + me.cross(-l / 2 * B.x - w / 2 * B.y, Frl * RL.x)
             + me.cross(-l / 2 * B.x + w / 2 * B.y, Frr * RR.x))
        assert replacement.force.point is Bo
        assert replacement.torque.frame is B
        assert vectors_equal(replacement.force.vector, R, B)
        assert vectors_equal(replacement.torque.vector, T, B)
        # A hand-derived component: the B.x resultant.
        expected_x = (Ffl * sm.cos(delta + afl) + Ffr * sm.cos(delta + afr)
                      + Frl * sm.cos(arl) + Frr * sm.cos(arr))
        assert sm.simplify(
            replacement.force.vector.dot(B.x) - expected_x) == 0
        # Only a yaw torque for planar tyre forces.
        assert replacement.torque.vector.dot(B.x) == 0
        assert replacement.torque.vector.dot(B.y) == 0
        assert are_equivalent(loads, replacement.to_loads())

    def test_motor_torque_pair_is_equal_and_opposite(self):
        T = dynamicsymbols('T')
        N, B = ReferenceFrame('N'), ReferenceFrame('B')
        Tm = T * N.z
        pair = [Torque(B, Tm), Torque(N, -Tm)]
        assert resultant(pair) == Vector(0)
        assert moment(pair, Point('O')) == Vector(0)
        assert are_equivalent(pair, [])


class TestResultantAndMoment:

    def test_torques_add_nothing_to_resultant(self):
        N = ReferenceFrame('N')
        assert resultant([(N, 5 * N.z)]) == Vector(0)

    def test_couple_torque_adds_to_moment(self, two_bound_forces):
        N, O, loads = two_bound_forces
        assert moment(loads + [(N, N.z)], O) == moment(loads, O) + N.z

    def test_accepts_actuators_and_bodies(self):
        N = ReferenceFrame('N')
        O = Point('O')
        A = O.locatenew('A', 3 * N.x)
        k = sm.Symbol('k')
        spring = me.LinearSpring(k, me.LinearPathway(O, A))
        # Equal and opposite forces along the spring: zero resultant and
        # zero moment (they share a line of action).
        assert resultant(spring) == Vector(0)
        assert moment(spring, O) == Vector(0)
        body = RigidBody('b', masscenter=A, frame=N)
        assert resultant([(body, N.y)]) == N.y
        assert moment([(body, N.y)], O) == 3 * N.z

    def test_empty_set(self):
        assert resultant([]) == Vector(0)
        assert moment([], Point('O')) == Vector(0)

    @pytest.mark.parametrize('bad', [3, 'force', (1, 2), [(Point('P'), 3)]])
    def test_non_load_raises_type_error(self, bad):
        with pytest.raises(TypeError, match='loads'):
            resultant(bad)

    def test_non_point_raises_type_error(self, two_bound_forces):
        N, _, loads = two_bound_forces
        with pytest.raises(TypeError, match='point must be a Point'):
            moment(loads, N)

    def test_unconnected_point_raises_value_error(self, two_bound_forces):
        _, _, loads = two_bound_forces
        with pytest.raises(ValueError, match='position of the force point'):
            moment(loads, Point('Elsewhere'))


class TestCouple:

    def test_is_a_sympy_torque(self):
        N = ReferenceFrame('N')
        couple = Couple(N, 2 * N.z)
        assert isinstance(couple, Torque)
        assert couple.frame is N and couple.vector == 2 * N.z
        assert repr(couple) == 'Couple(N, 2*N.z)'

    def test_from_simple_couple(self):
        N = ReferenceFrame('N')
        O = Point('O')
        a, F = sm.symbols('a F')
        A = O.locatenew('A', a * N.x)
        couple = Couple.from_forces(N, [(O, -F * N.y), (A, F * N.y)])
        assert couple.vector == a * F * N.z

    def test_from_forces_with_nonzero_resultant_raises(self):
        N = ReferenceFrame('N')
        O = Point('O')
        with pytest.raises(ValueError, match=r'resultant is N.x'):
            Couple.from_forces(N, [(O, N.x)])

    def test_from_forces_decides_zero_resultant_symbolically(self):
        q = dynamicsymbols('q')
        N, B = ReferenceFrame('N'), ReferenceFrame('B')
        B.orient_axis(N, q, N.z)
        O = Point('O')
        A = O.locatenew('A', B.y)
        # N.x and -(cos q B.x - sin q B.y) = -N.x cancel only after
        # expressing. By hand: B.y x (-N.x) = cos(q) N.z.
        couple = Couple.from_forces(
            B, [(O, N.x), (A, -sm.cos(q) * B.x + sm.sin(q) * B.y)])
        assert sm.simplify(couple.vector.dot(N.z) - sm.cos(q)) == 0

    def test_bad_torque_type(self):
        with pytest.raises(TypeError):
            Couple(ReferenceFrame('N'), 3)

    def test_bad_frame_type_names_the_argument(self):
        with pytest.raises(TypeError, match='frame must be a ReferenceFrame'):
            Couple('N', ReferenceFrame('N').z)

    def test_couple_on_a_rigid_body_acts_on_its_frame(self):
        body = RigidBody('B')
        assert Couple(body, body.frame.z).frame is body.frame


class TestReplacement:

    def test_repr_mirrors_constructor_and_attributes_are_fixed(self):
        N = ReferenceFrame('N')
        O = Point('O')
        P = O.locatenew('P', N.x)
        replacement = Replacement([(P, 2 * N.y)], O, N)
        assert repr(replacement) == (
            'Replacement([Force(point=P, force=2*N.y)], O, N)')
        # the moment about O of 2 N.y at N.x is 2 N.z
        assert replacement.torque.vector == 2 * N.z
        with pytest.raises(AttributeError):
            replacement.point = P

    def test_to_matrix_is_seed_004_generalized_force(self):
        # A force F (global) at s' (local) on a body rotated by q: the torque
        # about the local origin in local directions is s' x A^T F.
        q, Fx, Fy, sx, sy = sm.symbols('q F_x F_y s_x s_y')
        N, B = ReferenceFrame('N'), ReferenceFrame('B')
        B.orient_axis(N, q, N.z)
        O = Point('O')
        P = O.locatenew('P', sx * B.x + sy * B.y)
        Q = Replacement([(P, Fx * N.x + Fy * N.y)], O, B).to_matrix(N, B)
        A = sm.Matrix([[sm.cos(q), -sm.sin(q), 0],
                       [sm.sin(q), sm.cos(q), 0], [0, 0, 1]])
        F_local = A.T * sm.Matrix([Fx, Fy, 0])
        torque = sm.Matrix([sx, sy, 0]).cross(F_local)
        expected = sm.Matrix.vstack(sm.Matrix([Fx, Fy, 0]), torque)
        assert (Q - expected).applyfunc(sm.simplify) == sm.zeros(6, 1)

    def test_attributes_are_read_only(self, two_bound_forces):
        N, O, loads = two_bound_forces
        replacement = Replacement(loads, O, N)
        with pytest.raises(AttributeError):
            replacement.force = None

    def test_accepts_rigid_body_as_frame(self, two_bound_forces):
        N, O, loads = two_bound_forces
        body = RigidBody('b', masscenter=O, frame=N)
        assert Replacement(loads, O, body).torque.frame is N

    def test_bad_point(self, two_bound_forces):
        N, O, loads = two_bound_forces
        with pytest.raises(TypeError, match='point'):
            Replacement(loads, N, N)
        with pytest.raises(TypeError, match='frame'):
            Replacement(loads, O, O)


class TestEquivalence:

    def test_different_moments_are_not_equivalent(self):
        N = ReferenceFrame('N')
        O = Point('O')
        assert not are_equivalent([(O, N.x)], [(O.locatenew('A', N.y), N.x)])

    def test_different_resultants_are_not_equivalent(self):
        N = ReferenceFrame('N')
        O = Point('O')
        assert not are_equivalent([(O, N.x)], [(O, 2 * N.x)])

    def test_couples_with_equal_torques_are_equivalent(self):
        N = ReferenceFrame('N')
        O = Point('O')
        A, B = O.locatenew('A', N.x), O.locatenew('B', 2 * N.y)
        simple = [(O, -N.y), (A, N.y)]                   # torque N.z
        other = [(O, N.x / 2), (B, -N.x / 2)]            # torque N.z
        assert are_equivalent(simple, other)
        assert are_equivalent(simple, Couple(N, N.z))


# Property tests: random sets of bound forces in a plane-and-space frame.

coordinate = st.integers(min_value=-20, max_value=20)
triple = st.tuples(coordinate, coordinate, coordinate)


def _build(points_and_forces):
    N = ReferenceFrame('N')
    O = Point('O')
    loads = []
    for i, (r, f) in enumerate(points_and_forces):
        P = O.locatenew(f'P{i}', r[0] * N.x + r[1] * N.y + r[2] * N.z)
        loads.append(Force(P, f[0] * N.x + f[1] * N.y + f[2] * N.z))
    return N, O, loads


force_sets = st.lists(st.tuples(triple, triple), min_size=1, max_size=5)


@settings(max_examples=40, deadline=None)
@given(force_sets, triple, triple)
def test_moment_transfer_identity(data, p, q):
    N, O, loads = _build(data)
    P = O.locatenew('P', p[0] * N.x + p[1] * N.y + p[2] * N.z)
    Q = O.locatenew('Q', q[0] * N.x + q[1] * N.y + q[2] * N.z)
    lhs = moment(loads, P)
    rhs = moment(loads, Q) + Q.pos_from(P).cross(resultant(loads))
    assert (lhs - rhs).to_matrix(N) == sm.zeros(3, 1)


@settings(max_examples=40, deadline=None)
@given(force_sets, triple, triple)
def test_replacement_is_equivalent_about_every_point(data, p, about):
    N, O, loads = _build(data)
    P = O.locatenew('P', p[0] * N.x + p[1] * N.y + p[2] * N.z)
    A = O.locatenew('A', about[0] * N.x + about[1] * N.y + about[2] * N.z)
    replaced = Replacement(loads, P, N).to_loads()
    assert (moment(loads, A) - moment(replaced, A)).to_matrix(N) == \
        sm.zeros(3, 1)
    assert resultant(loads) == resultant(replaced)
    assert are_equivalent(loads, replaced, point=A)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(triple, triple), min_size=1, max_size=4),
       triple, triple)
def test_couple_torque_same_about_every_point(data, a, b):
    N, O, loads = _build(data)
    # Balance the set with the negated forces at the origin: a couple.
    loads = loads + [Force(O, -resultant(loads))]
    A = O.locatenew('A', a[0] * N.x + a[1] * N.y + a[2] * N.z)
    B = O.locatenew('B', b[0] * N.x + b[1] * N.y + b[2] * N.z)
    assert resultant(loads) == Vector(0)
    assert (moment(loads, A) - moment(loads, B)).to_matrix(N) == \
        sm.zeros(3, 1)
    assert Couple.from_forces(N, loads).vector.to_matrix(N) == \
        moment(loads, A).to_matrix(N)
