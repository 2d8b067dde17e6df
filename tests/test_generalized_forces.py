"""Tests for sympy_loads.generalized_forces.

References: the worked examples of seed 001 (Moore, Learn Multibody
Dynamics, "Generalized Forces"), recomputed here step by step the way the
seed does, and SymPy's ``KanesMethod.kanes_equations`` for Fr and Fr*.
"""

import random

import pytest
import sympy as sm
from sympy.physics.mechanics import (Force, KanesMethod, LinearPathway,
                                     LinearSpring, Particle, Point,
                                     ReferenceFrame, RigidBody, Torque,
                                     TorqueActuator, cross, dot,
                                     dynamicsymbols, inertia, outer)
from sympy.physics.vector import Vector

from sympy_loads import (Replacement, generalized_active_forces,
                         generalized_inertia_forces, is_noncontributing,
                         nonholonomic_partial_velocities, partial_velocities)

t = dynamicsymbols._t
TOL = 1e-10


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def is_zero_vector(vector):
    if vector == 0:
        return True
    return all(sm.simplify(c) == 0
               for c in vector.to_matrix(vector.args[0][1]))


def random_values(*exprs, seed=1):
    """Random values for every derivative, function of time and symbol."""
    rng = random.Random(seed)
    atoms = set()
    for expr in exprs:
        expr = sm.Matrix(expr) if not isinstance(expr, sm.Basic) else expr
        atoms |= expr.atoms(sm.Derivative)
        atoms |= expr.atoms(sm.core.function.AppliedUndef)
        atoms |= expr.free_symbols - {t}
    return {a: rng.uniform(0.2, 1.3) for a in sorted(atoms, key=str,
                                                     reverse=True)}


def evaluate(matrix, values):
    # derivatives first (xreplace is top-down, but be explicit)
    derivs = {k: v for k, v in values.items() if isinstance(k, sm.Derivative)}
    rest = {k: v for k, v in values.items() if k not in derivs}
    return [complex(e.xreplace(derivs).xreplace(rest).evalf())
            for e in sm.Matrix(matrix)]


def assert_numerically_equal(a, b, seeds=(1, 2, 3)):
    assert sm.Matrix(a).shape == sm.Matrix(b).shape
    for seed in seeds:
        values = random_values(a, b, seed=seed)
        for x, y in zip(evaluate(a, values), evaluate(b, values)):
            assert abs(x - y) <= TOL * (1 + abs(y)), (x, y)


# ---------------------------------------------------------------------------
# seed 001: partial velocities of A and B
# ---------------------------------------------------------------------------

def seed_partial_velocity_model():
    L = sm.symbols('L')
    q1, q2, u1, u2 = dynamicsymbols('q1, q2, u1, u2')
    N, R = ReferenceFrame('N'), ReferenceFrame('R')
    R.orient_axis(N, q2, N.z)
    N_v_A = u1 * N.x
    N_w_R = u2 * N.z
    r_A_B = -L * R.x
    N_v_B = N_v_A + cross(N_w_R, r_A_B)
    # the same motion with points and frames
    R.set_ang_vel(N, N_w_R)
    A = Point('A')
    A.set_vel(N, N_v_A)
    B = A.locatenew('B', r_A_B)
    B.v2pt_theory(A, N, R)
    return locals()


def test_partial_velocities_of_A_and_B_match_seed():
    m = seed_partial_velocity_model()
    N, R, L, u1, u2 = m['N'], m['R'], m['L'], m['u1'], m['u2']
    (vA, vB, wR), (vA_vec, vB_vec) = (
        partial_velocities([m['A'], m['B'], R], [u1, u2], N),
        partial_velocities([m['N_v_A'], m['N_v_B']], [u1, u2], N))
    # the seed: N_v_A.diff(u1, N), N_v_A.diff(u2, N), ...
    assert vA == [N.x, Vector(0)]
    assert vA_vec == [N.x, Vector(0)]
    assert vB[0] == N.x and vB_vec[0] == N.x
    assert vB[1] == -L * R.y
    assert vB_vec[1] == m['N_v_B'].diff(u2, N)
    # expressed in N as the seed prints it: L sin(q2) n_x - L cos(q2) n_y
    q2 = m['q2']
    assert vB[1].express(N) == L * sm.sin(q2) * N.x - L * sm.cos(q2) * N.y
    assert wR == [Vector(0), N.z]


def test_partial_velocity_of_vector_nonlinear_in_speeds_is_rejected():
    m = seed_partial_velocity_model()
    u1, u2, N = m['u1'], m['u2'], m['N']
    with pytest.raises(ValueError, match='not linear in the speeds'):
        partial_velocities([u1**2 * N.x], [u1, u2], N)
    P = Point('P')
    P.set_vel(N, sm.sin(u2) * N.y)
    with pytest.raises(ValueError, match='velocity of P'):
        partial_velocities([P], [u1, u2], N)


@pytest.mark.parametrize('items, speeds, error, match', [
    ([sm.Symbol('x')], None, TypeError, 'not a Point'),
    (None, 'u', TypeError, 'speeds'),
    (None, [], ValueError, 'at least one speed'),
])
def test_partial_velocities_bad_arguments(items, speeds, error, match):
    m = seed_partial_velocity_model()
    items = items if items is not None else [m['A']]
    speeds = speeds if speeds is not None else [m['u1'], m['u2']]
    with pytest.raises(error, match=match):
        partial_velocities(items, speeds, m['N'])
    with pytest.raises(TypeError, match='frame'):
        partial_velocities([m['A']], [m['u1']], m['A'])


# ---------------------------------------------------------------------------
# seed 001: the double pendulum's F1 and F2
# ---------------------------------------------------------------------------

def double_pendulum():
    q1, q2, u1, u2 = dynamicsymbols('q1, q2, u1, u2')
    L = sm.symbols('L')
    N, A, B = ReferenceFrame('N'), ReferenceFrame('A'), ReferenceFrame('B')
    A.orient_axis(N, q1, N.z)
    B.orient_axis(N, q2, N.z)
    O, P1, P2 = Point('O'), Point('P1'), Point('P2')
    O.set_vel(N, 0)
    P1.set_pos(O, -L * A.y)
    P2.set_pos(P1, -L * B.y)
    P1.v2pt_theory(O, N, A)
    P2.v2pt_theory(P1, N, B)
    repl = {q1.diff(): u1, q2.diff(): u2}
    T1, T2 = dynamicsymbols('T1, T2')
    m1, m2, g = sm.symbols('m1, m2, g')
    R1 = -m1 * g * N.y + T1 * A.y - T2 * B.y
    R2 = -m2 * g * N.y + T2 * B.y
    return locals()


def test_double_pendulum_F1_F2_match_seed_without_tensions():
    m = double_pendulum()
    N, u1, u2 = m['N'], m['u1'], m['u2']
    Fr = generalized_active_forces([(m['P1'], m['R1']), (m['P2'], m['R2'])],
                                   [u1, u2], N,
                                   kinematic_substitutions=m['repl'])
    # the seed's own computation
    N_v_P1 = m['P1'].vel(N).xreplace(m['repl'])
    N_v_P2 = m['P2'].vel(N).xreplace(m['repl'])
    F1 = (dot(N_v_P1.diff(u1, N), m['R1'])
          + dot(N_v_P2.diff(u1, N), m['R2']))
    F2 = (dot(N_v_P1.diff(u2, N), m['R1'])
          + dot(N_v_P2.diff(u2, N), m['R2']))
    assert sm.simplify(Fr - sm.Matrix([F1, F2])) == sm.zeros(2, 1)
    L, g, m1, m2, q1, q2 = (m[k] for k in ('L', 'g', 'm1', 'm2', 'q1', 'q2'))
    expected = sm.Matrix([-(m1 + m2) * g * L * sm.sin(q1),
                          -m2 * g * L * sm.sin(q2)])
    assert sm.simplify(Fr - expected) == sm.zeros(2, 1)
    # the tensions are absent
    assert not sm.simplify(Fr).has(m['T1'], m['T2'])


def test_double_pendulum_rod_tensions_are_noncontributing():
    m = double_pendulum()
    N, A, B = m['N'], m['A'], m['B']
    tensions = [(m['P1'], m['T1'] * A.y - m['T2'] * B.y),
                (m['P2'], m['T2'] * B.y)]
    speeds = [m['u1'], m['u2']]
    assert is_noncontributing(tensions, speeds, N,
                              kinematic_substitutions=m['repl'])
    gravity = [(m['P1'], -m['m1'] * m['g'] * N.y),
               (m['P2'], -m['m2'] * m['g'] * N.y)]
    assert not is_noncontributing(gravity, speeds, N,
                                  kinematic_substitutions=m['repl'])


def test_spring_and_driving_torque_contribute():
    m = double_pendulum()
    N, A, O, P2 = m['N'], m['A'], m['O'], m['P2']
    k, l0, T = sm.symbols('k l0 T')
    spring = LinearSpring(k, LinearPathway(O, P2), l0)
    speeds = [m['u1'], m['u2']]
    assert not is_noncontributing(spring, speeds, N,
                                  kinematic_substitutions=m['repl'])
    drive = TorqueActuator(T, N.z, A, N)
    assert not is_noncontributing(drive, speeds, N,
                                  kinematic_substitutions=m['repl'])
    # the drive torque's F1 is T exactly
    Fr = generalized_active_forces(drive, speeds, N,
                                   kinematic_substitutions=m['repl'])
    assert Fr == sm.Matrix([T, 0])


# ---------------------------------------------------------------------------
# seed 001: two thin rods, Fr and Fr*
# ---------------------------------------------------------------------------

def two_rods():
    m, g, k, L = sm.symbols('m, g, k, L')
    q1, q2, u1, u2 = dynamicsymbols('q1, q2, u1, u2')
    N, A, B = ReferenceFrame('N'), ReferenceFrame('A'), ReferenceFrame('B')
    A.orient_axis(N, q1, N.z)
    B.orient_axis(A, q2, A.x)
    A.set_ang_vel(N, u1 * N.z)
    B.set_ang_vel(A, u2 * A.x)
    O, Ao, Bo = Point('O'), Point('A_O'), Point('B_O')
    Ao.set_pos(O, L / 2 * A.x)
    Bo.set_pos(O, L * A.x)
    O.set_vel(N, 0)
    Ao.v2pt_theory(O, N, A)
    Bo.v2pt_theory(O, N, A)
    I = m * L**2 / 12
    I_A_Ao = I * outer(A.y, A.y) + I * outer(A.z, A.z)
    I_B_Bo = I * outer(B.x, B.x) + I * outer(B.z, B.z)
    return locals()


def test_two_rods_Fr_matches_seed():
    s = two_rods()
    N, A, B, u1, u2 = s['N'], s['A'], s['B'], s['u1'], s['u2']
    m, g, k, L, q1, q2 = (s[x] for x in ('m', 'g', 'k', 'L', 'q1', 'q2'))
    loads = [Force(s['Ao'], m * g * N.x), Force(s['Bo'], m * g * N.x),
             Torque(A, k * q1 * N.z - k * q2 * A.x), Torque(B, k * q2 * A.x)]
    Fr = generalized_active_forces(loads, [u1, u2], N)
    # the seed's computation, term by term
    Ao, Bo = s['Ao'], s['Bo']
    F1 = (Ao.vel(N).diff(u1, N).dot(m * g * N.x)
          + A.ang_vel_in(N).diff(u1, N).dot(k * q1 * N.z - k * q2 * A.x)
          + Bo.vel(N).diff(u1, N).dot(m * g * N.x)
          + B.ang_vel_in(N).diff(u1, N).dot(k * q2 * A.x))
    F2 = (Ao.vel(N).diff(u2, N).dot(m * g * N.x)
          + A.ang_vel_in(N).diff(u2, N).dot(k * q1 * N.z - k * q2 * A.x)
          + Bo.vel(N).diff(u2, N).dot(m * g * N.x)
          + B.ang_vel_in(N).diff(u2, N).dot(k * q2 * A.x))
    assert sm.simplify(Fr - sm.Matrix([F1, F2])) == sm.zeros(2, 1)
    # by hand: F1 = k q1 - 3/2 m g L sin(q1), F2 = k q2
    expected = sm.Matrix([k * q1 - sm.Rational(3, 2) * m * g * L * sm.sin(q1),
                          k * q2])
    assert sm.expand(Fr - expected) == sm.zeros(2, 1)


def test_two_rods_Frstar_matches_seed():
    s = two_rods()
    N, A, B, u1, u2 = s['N'], s['A'], s['B'], s['u1'], s['u2']
    m, Ao, Bo = s['m'], s['Ao'], s['Bo']
    bodies = [RigidBody('A', Ao, A, m, (s['I_A_Ao'], Ao)),
              RigidBody('B', Bo, B, m, (s['I_B_Bo'], Bo))]
    Frs = generalized_inertia_forces(bodies, [u1, u2], N)
    # the seed's computation
    Rs_Ao, Rs_Bo = -m * Ao.acc(N), -m * Bo.acc(N)
    wA, wB = A.ang_vel_in(N), B.ang_vel_in(N)
    Ts_A = -(A.ang_acc_in(N).dot(s['I_A_Ao'])
             + cross(wA, s['I_A_Ao']).dot(wA))
    Ts_B = -(B.ang_acc_in(N).dot(s['I_B_Bo'])
             + cross(wB, s['I_B_Bo']).dot(wB))
    seed = sm.Matrix([
        Ao.vel(N).diff(u, N).dot(Rs_Ao) + wA.diff(u, N).dot(Ts_A)
        + Bo.vel(N).diff(u, N).dot(Rs_Bo) + wB.diff(u, N).dot(Ts_B)
        for u in (u1, u2)])
    assert sm.simplify(Frs - seed) == sm.zeros(2, 1)
    # by hand: only rod B turns with u2 (about b_x = a_x, where I_xx = I);
    # F2* = -(I u2' + (w x I.w) . b_x) with w = u2 b_x + u1 (sin q2 b_y +
    # cos q2 b_z) and I_yy = 0: F2* = -I u2' - I sin(q2) cos(q2) u1^2
    L, q2 = s['L'], s['q2']
    I = m * L**2 / 12
    F2s = -I * u2.diff(t) - I * sm.sin(q2) * sm.cos(q2) * u1**2
    assert sm.simplify(Frs[1] - F2s) == 0


def test_replacement_gives_identical_Fr():
    s = two_rods()
    N, B, Bo, u1, u2, L = s['N'], s['B'], s['Bo'], s['u1'], s['u2'], s['L']
    F, G, H = sm.symbols('F G H')
    # three forces at points of rod B
    P1 = Bo.locatenew('P1', L / 2 * B.y)
    P2 = Bo.locatenew('P2', -L / 3 * B.z + L * B.y)
    P3 = Bo.locatenew('P3', L * B.x)
    for P in (P1, P2, P3):
        P.v2pt_theory(Bo, N, B)
    forces = [(P1, F * N.x + G * B.z), (P2, H * B.x - F * N.y),
              (P3, G * N.z)]
    replacement = Replacement(forces, Bo, B)
    Fr_forces = generalized_active_forces(forces, [u1, u2], N)
    Fr_repl = generalized_active_forces(replacement, [u1, u2], N)
    # identical functions of the state: compare at random points (simplify
    # of the difference is slow); the loads do contribute
    assert_numerically_equal(Fr_forces, Fr_repl, seeds=range(5))
    assert all(abs(x) > 1e-3 for x in evaluate(
        Fr_forces, random_values(Fr_forces)))


def test_internal_forces_of_one_rigid_body_are_noncontributing():
    s = two_rods()
    N, B, Bo, L = s['N'], s['B'], s['Bo'], s['L']
    S = dynamicsymbols('S')
    P1 = Bo.locatenew('P1', L / 2 * B.y + L * B.z)
    P2 = Bo.locatenew('P2', -L * B.x)
    P1.v2pt_theory(Bo, N, B)
    P2.v2pt_theory(Bo, N, B)
    d = P2.pos_from(P1)
    internal = [(P1, S * d), (P2, -S * d)]
    assert is_noncontributing(internal, [s['u1'], s['u2']], N)
    # equal and opposite but NOT along the line joining them: contributes
    assert not is_noncontributing([(P1, S * B.z), (P2, -S * B.z)],
                                  [s['u1'], s['u2']], N)


def test_noncontributing_despite_cancelling_large_terms():
    """Terms of size 1e12 that cancel exactly (an identity only simplify
    sees) must not be mistaken for a contribution by round-off."""
    q, u = dynamicsymbols('q u')
    N = ReferenceFrame('N')
    P = Point('O').locatenew('P', q * N.x)
    P.set_vel(N, u * N.x)
    big = sm.Integer(10)**12
    identity = big * sm.sin(q + 1) - big * (sm.sin(q) * sm.cos(1)
                                            + sm.cos(q) * sm.sin(1))
    assert is_noncontributing([(P, identity * N.x)], [u], N)
    assert not is_noncontributing([(P, (identity + 1e-6) * N.x)], [u], N)


def test_smooth_tube_contact_is_noncontributing():
    # particle P slides in a smooth tube fixed in body B rotating about n_z
    q1, q2, u1, u2 = dynamicsymbols('q1 q2 u1 u2')
    C1, C2 = dynamicsymbols('C1 C2')
    N, B = ReferenceFrame('N'), ReferenceFrame('B')
    B.orient_axis(N, q1, N.z)
    B.set_ang_vel(N, u1 * N.z)
    O = Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', q2 * B.x)
    P.set_vel(B, u2 * B.x)
    P.v1pt_theory(O, N, B)
    BP = O.locatenew('BP', q2 * B.x)  # the point of B touching P
    BP.v2pt_theory(O, N, B)
    contact = C1 * B.y + C2 * B.z
    kin = {q1.diff(): u1, q2.diff(): u2}
    assert is_noncontributing([(P, contact), (BP, -contact)], [u1, u2], N,
                              kinematic_substitutions=kin)
    # alone, the force on P does work through the tube's rotation
    assert not is_noncontributing([(P, contact)], [u1, u2], N,
                                  kinematic_substitutions=kin)
    # a fixed smooth inclined plane: its normal force does no work
    x, u = dynamicsymbols('x u')
    theta = sm.symbols('theta')
    E = N.orientnew('E', 'Axis', (theta, N.z))
    Q = O.locatenew('Q', x * E.x)
    Q.set_vel(N, u * E.x)
    assert is_noncontributing([(Q, C1 * E.y)], [u], N)


# ---------------------------------------------------------------------------
# cross-checks against KanesMethod
# ---------------------------------------------------------------------------

def n_link_pendulum(n):
    q = dynamicsymbols(f'q1:{n + 1}')
    u = dynamicsymbols(f'u1:{n + 1}')
    m, L, g, k, c, Ixx, Iyy, Izz = sm.symbols('m L g k c Ixx Iyy Izz')
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    parent, joint = N, O
    bodies, loads = [], []
    for i in range(n):
        axis = parent.x if i % 2 == 0 else parent.z
        B = ReferenceFrame(f'B{i + 1}')
        B.orient_axis(parent, q[i], axis)  # angular velocity left as q'
        G = joint.locatenew(f'G{i + 1}', -L / 2 * B.y)
        G.v2pt_theory(joint, N, B)
        bodies.append(RigidBody(f'b{i + 1}', G, B, m,
                                (inertia(B, Ixx, Iyy, Izz), G)))
        loads.append((G, -m * g * N.y))
        loads.append(TorqueActuator(-k * q[i] - c * u[i], axis, B,
                                    N if parent is N else parent))
        nxt = joint.locatenew(f'P{i + 2}', -L * B.y)
        nxt.v2pt_theory(joint, N, B)
        parent, joint = B, nxt
    return q, u, N, bodies, loads


def flat(loads):
    out = []
    for load in loads:
        out.extend(load.to_loads() if hasattr(load, 'to_loads') else [load])
    return out


def test_n_link_3d_pendulum_with_springs_matches_kanes_method():
    q, u, N, bodies, loads = n_link_pendulum(3)
    kin = {qi.diff(): ui for qi, ui in zip(q, u)}
    Fr = generalized_active_forces(loads, u, N, kinematic_substitutions=kin)
    Frs = generalized_inertia_forces(bodies, u, N,
                                     kinematic_substitutions=kin)
    kane = KanesMethod(N, q, u, kd_eqs=[qi.diff() - ui
                                        for qi, ui in zip(q, u)])
    fr, frstar = kane.kanes_equations(bodies, flat(loads))
    assert_numerically_equal(Fr, fr)
    assert_numerically_equal(Frs, frstar)
    assert not Fr.has(*kin) and not Frs.has(*kin)


def rolling_disc():
    """Rolling disc: yaw q1, lean q2, spin q3, contact point (q4, q5);
    speeds u1..u3 are the disc's angular velocity measure numbers in the
    lean frame (u != q'), u4, u5 the contact point's velocity (dependent)."""
    q = dynamicsymbols('q1:6')
    u = dynamicsymbols('u1:6')
    r, m, g = sm.symbols('r m g')
    N = ReferenceFrame('N')
    Y = N.orientnew('Y', 'Axis', (q[0], N.z))
    Lf = Y.orientnew('L', 'Axis', (q[1], Y.x))
    R = Lf.orientnew('R', 'Axis', (q[2], Lf.y))
    O = Point('O')
    O.set_vel(N, 0)
    C = O.locatenew('C', q[3] * N.x + q[4] * N.y)
    Dmc = C.locatenew('Dmc', r * Lf.z)
    Dmc.set_vel(N, Dmc.pos_from(O).dt(N))
    CP = Dmc.locatenew('CP', -r * Lf.z)   # the point of the disc touching
    CP.v2pt_theory(Dmc, N, R)
    w = R.ang_vel_in(N).to_matrix(Lf)
    kd = list(w - sm.Matrix(u[:3])) + [q[3].diff() - u[3],
                                        q[4].diff() - u[4]]
    qd = [qi.diff() for qi in q]
    sol = sm.solve(kd, qd, dict=True)[0]
    kin = {k: sm.simplify(v) for k, v in sol.items()}
    vc = [CP.vel(N).dot(N.x), CP.vel(N).dot(N.y)]
    I = m * r**2 / 4
    disc = RigidBody('disc', Dmc, R, m, (inertia(Lf, I, 2 * I, I), Dmc))
    return locals()


def test_rolling_disc_matches_kanes_method():
    d = rolling_disc()
    q, u, N, kin = d['q'], d['u'], d['N'], d['kin']
    vc = [e.xreplace(kin) for e in d['vc']]
    opts = dict(dependent_speeds=u[3:], velocity_constraints=vc,
                kinematic_substitutions=kin)
    gravity = [(d['Dmc'], -d['m'] * d['g'] * N.z)]
    Fr = generalized_active_forces(gravity, u[:3], N, **opts)
    Frs = generalized_inertia_forces([d['disc']], u[:3], N, **opts)
    kane = KanesMethod(N, q, u[:3], kd_eqs=d['kd'], u_dependent=u[3:],
                       velocity_constraints=d['vc'])
    fr, frstar = kane.kanes_equations([d['disc']], gravity)
    assert Fr.shape == (3, 1)
    assert_numerically_equal(Fr, fr)
    assert_numerically_equal(Frs, frstar)


def test_rolling_contact_is_noncontributing():
    d = rolling_disc()
    u, N, kin = d['u'], d['N'], d['kin']
    vc = d['vc']
    Fx, Fy, Fz = dynamicsymbols('F_x F_y F_z')
    contact = [(d['CP'], Fx * N.x + Fy * N.y + Fz * N.z)]
    opts = dict(dependent_speeds=u[3:], velocity_constraints=vc,
                kinematic_substitutions=kin)
    assert is_noncontributing(contact, u[:3], N, **opts)
    # the contact point's nonholonomic partial velocities vanish
    (v_cp,) = nonholonomic_partial_velocities([d['CP']], u[:3], u[3:], vc, N,
                                              kinematic_substitutions=kin)
    assert all(is_zero_vector(v) for v in v_cp)
    # a force at the disc center does contribute
    assert not is_noncontributing([(d['Dmc'], Fx * N.x)], u[:3], N, **opts)


def test_nonholonomic_partial_velocities_of_rolling_wheel():
    r = sm.symbols('r')
    q, u1, u2 = dynamicsymbols('q u1 u2')
    N, W = ReferenceFrame('N'), ReferenceFrame('W')
    W.orient_axis(N, q, N.z)
    W.set_ang_vel(N, u1 * N.z)
    C = Point('C')
    C.set_vel(N, u2 * N.x)
    P = C.locatenew('P', -r * N.y)
    P.v2pt_theory(C, N, W)
    (vC,), (vP,), (wW,) = nonholonomic_partial_velocities(
        [C, P, W], [u1], [u2], [u2 + r * u1], N)
    assert vC == -r * N.x
    assert is_zero_vector(vP)
    assert wW == N.z
    with pytest.raises(ValueError, match='equal'):
        nonholonomic_partial_velocities([C], [u1], [u2], [u2, u1], N)
    with pytest.raises(ValueError, match='at least one'):
        nonholonomic_partial_velocities([C], [u1], [], None, N)
    with pytest.raises(ValueError, match='linear'):
        nonholonomic_partial_velocities([C], [u1], [u2], [u2**2 + u1], N)


def test_body_with_u_not_qdot_matches_kanes_method():
    """A top on a fixed point: body-fixed 1-2-3 angles, speeds are the
    angular velocity measure numbers in the body (u != q'), gravity and a
    torsion spring about n_z."""
    q = dynamicsymbols('q1:4')
    u = dynamicsymbols('u1:4')
    m, g, h, k, I1, I2, I3 = sm.symbols('m g h k I1 I2 I3')
    N = ReferenceFrame('N')
    B = N.orientnew('B', 'Body', q, '123')
    O = Point('O')
    O.set_vel(N, 0)
    G = O.locatenew('G', h * B.z)
    G.v2pt_theory(O, N, B)
    kd = list(B.ang_vel_in(N).to_matrix(B) - sm.Matrix(u))
    qd = [qi.diff() for qi in q]
    kin = sm.solve(kd, qd, dict=True)[0]
    top = RigidBody('top', G, B, m, (inertia(B, I1, I2, I3), G))
    loads = [(G, -m * g * N.z), (B, -k * q[0] * N.z), (N, k * q[0] * N.z)]
    Fr = generalized_active_forces(loads, u, N, kinematic_substitutions=kin)
    Frs = generalized_inertia_forces([top], u, N,
                                     kinematic_substitutions=kin)
    kane = KanesMethod(N, q, u, kd_eqs=kd)
    fr, frstar = kane.kanes_equations([top], loads)
    assert_numerically_equal(Fr, fr)
    assert_numerically_equal(Frs, frstar)
    assert not Frs.has(*qd)
    # particles as well: a point mass at the tip
    tip = Particle('tip', O.locatenew('T', 2 * h * B.z), m)
    tip.masscenter.v2pt_theory(O, N, B)
    Frs_tip = generalized_inertia_forces(tip, u, N,
                                         kinematic_substitutions=kin)
    kane = KanesMethod(N, q, u, kd_eqs=kd)
    _, frstar_tip = kane.kanes_equations([tip],
                                         [(tip.masscenter, -m * g * N.z)])
    assert_numerically_equal(Frs_tip, frstar_tip)


def test_explicit_accelerations_are_used():
    # a particle whose velocity and acceleration were set by hand
    u = dynamicsymbols('u')
    m, a = sm.symbols('m a')
    N = ReferenceFrame('N')
    P = Point('P')
    P.set_vel(N, u * N.x)
    P.set_acc(N, a * N.x)       # deliberately not u'
    Frs = generalized_inertia_forces([Particle('p', P, m)], [u], N)
    assert Frs == sm.Matrix([-m * a])


def test_bad_bodies_and_loads_raise():
    s = two_rods()
    with pytest.raises(TypeError, match='Particle or RigidBody'):
        generalized_inertia_forces([s['Ao']], [s['u1']], s['N'])
    with pytest.raises(TypeError, match='not a load'):
        generalized_active_forces([s['N'].x], [s['u1']], s['N'])
    with pytest.raises(ValueError, match='dependent_speeds'):
        generalized_active_forces([], [s['u1']], s['N'],
                                  velocity_constraints=[s['u2']])
    with pytest.raises(TypeError, match='kinematic_substitutions'):
        generalized_active_forces([], [s['u1']], s['N'],
                                  kinematic_substitutions=[1])


# ---------------------------------------------------------------------------
# SymPy's Whipple bicycle: wheel frames with angular velocities only
# ---------------------------------------------------------------------------

@pytest.fixture(scope='module')
def bicycle():
    from sympy_loads._utils import _kanes_parts
    from sympy_loads.examples._whipple import whipple_bicycle
    model = whipple_bicycle()
    parts = _kanes_parts(model.kane)
    options = dict(dependent_speeds=parts.u_dep,
                   velocity_constraints=model.velocity_constraints,
                   kinematic_substitutions=model.kane.kindiffdict())
    return model, parts, options


def _lambdified_difference(a, b):
    """a - b as a NumPy function of one random value per atom."""
    exprs = list(sm.Matrix(a) - sm.Matrix(b))
    atoms = set().union(*(e.atoms(sm.Derivative) for e in exprs))
    atoms = sorted(atoms, key=str) + sorted(set().union(*(
        e.atoms(sm.core.function.AppliedUndef) for e in exprs)), key=str)
    dummies = {a: sm.Dummy() for a in atoms}
    plain = [e.xreplace(dummies) for e in exprs]
    symbols = sorted(set().union(*(e.free_symbols for e in plain)), key=str)
    scale = [e.xreplace(dummies) for e in sm.Matrix(b)]
    return (sm.lambdify(symbols, plain, 'numpy', cse=True),
            sm.lambdify(symbols, scale, 'numpy', cse=True), len(symbols))


def test_inertia_forces_of_the_whipple_bicycle_agree_with_kanes_method(
        bicycle):
    """The wheel frames WR, WF have angular velocities but no orientation
    (their spin angles are ignorable); this failed with "No connecting
    orientation path found between WR and C". F~r* must equal
    KanesMethod's at random states (dependent speeds and their rates
    kept in both)."""
    model, parts, options = bicycle
    ours = generalized_inertia_forces(model.bodies, parts.u_ind,
                                      parts.frame, **options)
    theirs = model.kane._frstar     # kanes_equations' Fr*, private
    difference, scale, n = _lambdified_difference(ours, theirs)
    rng = random.Random(7)
    for _ in range(3):
        values = [rng.uniform(0.2, 1.3) for _ in range(n)]
        d = [float(v) for v in difference(*values)]
        s = [abs(float(v)) for v in scale(*values)]
        assert max(abs(x) for x in d) <= 1e-10 * (1 + max(s)), (d, s)


def test_rolling_contact_on_the_bicycle_is_noncontributing(bicycle):
    """A general force at the front wheel's contact point: its F~r vanish
    identically (rolling without slip). This ran 19 minutes in simplify;
    the random high-precision evaluation decides it in seconds."""
    import time
    model, parts, options = bicycle
    Y = model.yaw_frame
    F1, F2, F3 = sm.symbols('F1:4')
    contact_force = (model.front_contact, F1 * Y.x + F2 * Y.y + F3 * Y.z)
    start = time.perf_counter()
    assert is_noncontributing([contact_force], parts.u_ind, parts.frame,
                              **options)
    assert time.perf_counter() - start < 30
    # the same force at the front wheel's center does contribute
    wheel_center = model.bodies[3].masscenter
    assert not is_noncontributing(
        [(wheel_center, F1 * Y.x + F2 * Y.y + F3 * Y.z)], parts.u_ind,
        parts.frame, **options)
    # a budget that is too small: it says it cannot decide
    with pytest.raises(RuntimeError, match='size_budget=1000'):
        is_noncontributing([contact_force], parts.u_ind, parts.frame,
                           size_budget=1000, **options)


def test_noncontributing_budget_and_option_checks():
    q, u = dynamicsymbols('q u')
    N = ReferenceFrame('N')
    P = Point('O').locatenew('P', q * N.x)
    P.set_vel(N, u * N.x)
    identity = sm.sin(q)**2 + sm.cos(q)**2 - 1
    assert is_noncontributing([(P, identity * N.x)], [u], N, points=8,
                              precision=50)
    with pytest.raises(RuntimeError, match='time_budget'):
        is_noncontributing([(P, identity * N.x)], [u], N, time_budget=1e-9)
    for name, bad, error in (('points', 0, ValueError),
                             ('precision', 10, ValueError),
                             ('size_budget', 1.5, TypeError),
                             ('time_budget', -1.0, ValueError),
                             ('time_budget', '1', TypeError)):
        with pytest.raises(error, match=name):
            is_noncontributing([(P, N.x)], [u], N, **{name: bad})
    # complex at every point (square root of a negative number): evaluated
    # in complex arithmetic, and still decided
    assert not is_noncontributing([(P, sm.sqrt(-1 - q**2) * N.x)], [u], N)
