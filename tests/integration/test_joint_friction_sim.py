"""Joint friction in simulations: sympy_loads.joint_friction with simulate().

Each test compares a simulated quantity with a closed-form solution (stated
tolerance) or checks a physical law (energy never increases).
"""

import numpy as np
import pytest
import sympy as sm
from sympy.physics.mechanics import (CylindricalJoint, Force, KanesMethod,
                                     PinJoint, PrismaticJoint, RigidBody,
                                     SphericalJoint, System, dynamicsymbols,
                                     inertia)

from sympy_loads import JointFriction, joint_reactions, simulate

t = dynamicsymbols._t
m, g, L, I = sm.symbols('m g L I', positive=True)
G = 9.81


def incline(alpha, mu, regularization=0):
    """Block on a prismatic joint down a slope of angle alpha; gravity -y."""
    ground, block = RigidBody('ground'), RigidBody('block', mass=m)
    axis = np.cos(alpha) * ground.x - np.sin(alpha) * ground.y
    slide = PrismaticJoint('s', ground, block, joint_axis=axis)
    friction = JointFriction(slide, coefficient=mu,
                             regularization=regularization)
    system = System.from_newtonian(ground)
    system.add_bodies(block)
    system.add_joints(slide)
    system.add_actuators(friction)
    system.apply_uniform_gravity(-g * ground.y)
    system.form_eoms()
    return system, slide, friction


def test_block_on_incline_slides_at_textbook_acceleration():
    alpha, mu, v0 = 0.5, 0.3, 0.2
    system, slide, friction = incline(alpha, mu)
    x, v = slide.coordinates[0], slide.speeds[0]
    times = np.linspace(0, 1, 11)
    res = simulate(system, (0, 1), {x: 0.0, v: v0}, {m: 2.0, g: G},
                   joint_friction=[friction], t_eval=times)
    assert res.success
    acc = G * (np.sin(alpha) - mu * np.cos(alpha))
    np.testing.assert_allclose(res.u[:, 0], v0 + acc * times, atol=1e-8)
    np.testing.assert_allclose(res.q[:, 0], v0 * times + acc * times**2 / 2,
                               atol=1e-8)


def test_block_on_incline_sticks_when_tan_alpha_below_mu():
    # With tanh(v/eps) the block creeps at the speed where the friction
    # balances the weight: mu m g cos(a) tanh(v/eps) = m g sin(a).
    alpha, mu, eps = 0.2, 0.5, 1e-3
    assert np.tan(alpha) < mu
    system, slide, friction = incline(alpha, mu, regularization=eps)
    x, v = slide.coordinates[0], slide.speeds[0]
    res = simulate(system, (0, 1), {x: 0.0, v: 0.0}, {m: 1.0, g: G},
                   joint_friction=[friction], t_eval=np.linspace(0, 1, 21))
    creep = eps * np.arctanh(np.tan(alpha) / mu)
    assert np.all(np.abs(res.u[:, 0]) <= creep * (1 + 1e-4))
    np.testing.assert_allclose(res.u[-1, 0], creep, rtol=1e-4)
    assert res.q[-1, 0] < creep * 1.0  # moved less than 1 s of creep


def test_block_thrown_up_to_sticking_decelerates_then_stops():
    # Moving down a slope with tan(a) < mu: decelerates at
    # g (mu cos a - sin a) while |v| >> eps, then sticks.
    alpha, mu, eps, v0 = 0.2, 0.5, 1e-4, 1.0
    system, slide, friction = incline(alpha, mu, regularization=eps)
    x, v = slide.coordinates[0], slide.speeds[0]
    dec = G * (mu * np.cos(alpha) - np.sin(alpha))
    stop = v0 / dec
    times = np.linspace(0, 0.8 * stop, 5)
    res = simulate(system, (0, 1.5 * stop), {x: 0.0, v: v0},
                   {m: 1.0, g: G}, joint_friction=[friction],
                   t_eval=np.concatenate([times, [1.5 * stop]]))
    np.testing.assert_allclose(res.u[:-1, 0], v0 - dec * times, atol=1e-6)
    assert abs(res.u[-1, 0]) < eps


def disc_on_pin(F, Fz):
    """Disc of central inertia I on a pin (axis z) loaded at its center by
    a radial force F (along -y) and an axial force Fz (along -z)."""
    ground = RigidBody('ground')
    disc = RigidBody('disc', mass=m)
    disc.central_inertia = inertia(disc.frame, I, I, I)
    pin = PinJoint('p', ground, disc, joint_axis=ground.z)
    friction = JointFriction(pin, coefficient=0.2, radius=0.05,
                             end_coefficient=0.1, end_radius=0.03)
    system = System.from_newtonian(ground)
    system.add_bodies(disc)
    system.add_joints(pin)
    system.add_actuators(friction)
    system.add_loads(Force(disc.masscenter, -F * ground.y - Fz * ground.z))
    system.form_eoms()
    return system, pin, friction


def test_disc_with_radial_load_decelerates_at_mu_R_F_over_I():
    # The loads do no work, so only the friction slows the disc:
    # I u' = -(mu R F + mu_end R_end Fz) while u > 0.
    F, Fz = 40.0, 10.0
    system, pin, friction = disc_on_pin(F, Fz)
    q, u = pin.coordinates[0], pin.speeds[0]
    values = {m: 3.0, I: 0.02}
    rate = (0.2 * 0.05 * F + 0.1 * 0.03 * Fz) / values[I]
    times = np.linspace(0, 0.9 * 5.0 / rate, 7)
    res = simulate(system, (0, times[-1]), {q: 0.0, u: 5.0}, values,
                   joint_friction=[friction], t_eval=times,
                   outputs={'torque': friction.symbols[0]})
    np.testing.assert_allclose(res.u[:, 0], 5.0 - rate * times, atol=1e-8)
    np.testing.assert_allclose(res.outputs['torque'], rate * values[I],
                               rtol=1e-9)


def test_simulate_passes_constants_of_workless_loads_to_prepare():
    F, Fz = sm.symbols('F F_z', positive=True)
    system, pin, friction = disc_on_pin(F, Fz)
    q, u = pin.coordinates[0], pin.speeds[0]
    values = {m: 3.0, I: 0.02, F: 40.0, Fz: 10.0}
    res = simulate(system, (0, 0.1), {q: 0.0, u: 5.0}, values,
                   joint_friction=[friction], t_eval=[0.0, 0.1])
    rate = (0.2 * 0.05 * 40.0 + 0.1 * 0.03 * 10.0) / values[I]
    np.testing.assert_allclose(res.u[-1, 0], 5.0 - rate * 0.1, atol=1e-8)


def compound_pendulum(friction=None):
    ceiling = RigidBody('ceiling')
    bob = RigidBody('bob', mass=m)
    bob.central_inertia = inertia(bob.frame, 0, 0, I)
    pin = PinJoint('pin', ceiling, bob, child_point=L * bob.frame.x,
                   joint_axis=ceiling.z)
    system = System.from_newtonian(ceiling)
    system.add_bodies(bob)
    system.add_joints(pin)
    system.apply_uniform_gravity(-g * ceiling.y)
    actuators = []
    if friction is not None:
        actuators = [JointFriction(pin, **friction)]
        system.add_actuators(*actuators)
    system.form_eoms()
    return system, pin, actuators


def test_pendulum_reaction_along_a_simulation():
    # theta = q - pi/2 from the downward vertical. Hand derivation:
    # radial (rod tension) m (g cos(theta) + L theta'^2), tangential
    # I m g sin(theta) / (I + m L^2) (in -theta direction sign convention
    # of the joint frame: y component = m (g cos q - L q'')).
    system, pin, _ = compound_pendulum()
    q, u = pin.coordinates[0], pin.speeds[0]
    reaction = joint_reactions(pin, system)
    values = {m: 1.5, g: G, L: 0.8, I: 0.05}
    res = simulate(system, (0, 2), {q: np.pi / 2 + 1.0, u: 0.0}, values,
                   t_eval=np.linspace(0, 2, 41),
                   outputs={'radial': reaction.force_components[0],
                            'tangential': reaction.force_components[1]})
    theta, thetadot = res.q[:, 0] - np.pi / 2, res.u[:, 0]
    mv, Lv, Iv = values[m], values[L], values[I]
    np.testing.assert_allclose(
        res.outputs['radial'], mv * (G * np.cos(theta) + Lv * thetadot**2),
        rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(
        res.outputs['tangential'],
        -Iv * mv * G * np.sin(theta) / (Iv + mv * Lv**2), rtol=1e-9,
        atol=1e-9)


def pendulum_energy(res, values):
    theta, thetadot = res.q[:, 0] - np.pi / 2, res.u[:, 0]
    mv, Lv, Iv = values[m], values[L], values[I]
    return (0.5 * (Iv + mv * Lv**2) * thetadot**2
            - mv * G * Lv * np.cos(theta))


@pytest.mark.parametrize('options', [
    dict(regularization=0.05, sign_method='tanh'),
    dict(regularization=0.01, sign_method='algebraic', preload=2.0),
])
def test_pin_friction_never_adds_energy(options):
    system, pin, (friction,) = compound_pendulum(
        dict(coefficient=0.3, radius=0.05, **options))
    q, u = pin.coordinates[0], pin.speeds[0]
    values = {m: 1.5, g: G, L: 0.8, I: 0.05}
    res = simulate(system, (0, 4), {q: np.pi / 2 + 1.2, u: 0.0}, values,
                   joint_friction=[friction], t_eval=np.linspace(0, 4, 201),
                   outputs={'T': friction.symbols[0]})
    energy = pendulum_energy(res, values)
    assert np.all(np.diff(energy) <= 1e-9)
    assert energy[-1] < energy[0] - 0.05  # it does dissipate
    assert np.all(res.outputs['T'] > 0)


def test_spherical_joint_friction_never_adds_energy():
    ceiling = RigidBody('ceiling')
    bob = RigidBody('bob', mass=m)
    bob.central_inertia = inertia(bob.frame, I, I, I)
    ball = SphericalJoint('ball', ceiling, bob, child_point=L * bob.frame.z)
    friction = JointFriction(ball, coefficient=0.3, radius=0.05, alpha=0.5,
                             regularization=0.02)
    system = System.from_newtonian(ceiling)
    system.add_bodies(bob)
    system.add_joints(ball)
    system.add_actuators(friction)
    system.apply_uniform_gravity(-g * ceiling.z)
    system.form_eoms()
    values = {m: 1.0, g: G, L: 0.6, I: 0.01}
    N = ceiling.frame
    kinetic = bob.kinetic_energy(N)
    potential = values[m] * G * bob.masscenter.pos_from(
        ceiling.masscenter).dot(N.z)
    energy = (kinetic + potential).subs(values)
    res = simulate(system, (0, 2),
                   {**dict(zip(ball.coordinates, [0.6, 0.3, 0.0])),
                    **dict(zip(ball.speeds, [0.0, 1.0, 2.0]))},
                   values, joint_friction=[friction],
                   t_eval=np.linspace(0, 2, 81), outputs={'E': energy})
    assert res.success
    assert np.all(np.diff(res.outputs['E']) <= 1e-9)
    assert res.outputs['E'][-1] < res.outputs['E'][0] - 1e-3


def test_cylindrical_joint_friction_on_kanes_method_model():
    # A sleeve (KanesMethod model, not System) spinning and sliding on a
    # horizontal shaft under gravity: the radial load is m g, so the spin
    # and the slide both decelerate at constant rates mu R m g / I and
    # mu g.
    ground, sleeve = RigidBody('ground'), RigidBody('sleeve', mass=m)
    sleeve.central_inertia = inertia(sleeve.frame, I, I, I)
    cyl = CylindricalJoint('c', ground, sleeve, joint_axis=ground.x)
    mu, R = 0.25, 0.04
    friction = JointFriction(cyl, coefficient=mu, radius=R)
    # g as a number: it does no work, so it is not among the constants
    # of the equations of motion that simulate() hands to prepare().
    loads = [Force(sleeve.masscenter, -m * G * ground.y)]
    loads += friction.to_loads()
    kane = KanesMethod(ground.frame, cyl.coordinates, cyl.speeds,
                       kd_eqs=cyl.kdes, bodies=[sleeve], forcelist=loads)
    kane.kanes_equations()
    values = {m: 2.0, I: 0.003}
    times = np.linspace(0, 0.3, 7)
    res = simulate(kane, (0, 0.3),
                   {cyl.coordinates[0]: 0.0, cyl.coordinates[1]: 0.0,
                    cyl.rotation_speed: 30.0, cyl.translation_speed: 3.0},
                   values, joint_friction=[friction], t_eval=times)
    spin = list(kane.u).index(cyl.rotation_speed)
    slide = list(kane.u).index(cyl.translation_speed)
    np.testing.assert_allclose(
        res.u[:, spin],
        30.0 - mu * R * values[m] * G / values[I] * times, atol=1e-7)
    np.testing.assert_allclose(res.u[:, slide], 3.0 - mu * G * times,
                               atol=1e-7)


def test_relaxation_does_not_change_the_solution_and_failure_is_reported():
    from sympy_loads import SimulationError
    system, pin, (friction,) = compound_pendulum(
        dict(coefficient=0.3, radius=0.05, regularization=0.05))
    q, u = pin.coordinates[0], pin.speeds[0]
    values = {m: 1.5, g: G, L: 0.8, I: 0.05}
    x0 = {q: np.pi / 2 + 1.2, u: 0.0}
    times = np.linspace(0, 1, 5)
    full = simulate(system, (0, 1), x0, values, joint_friction=[friction],
                    t_eval=times)
    relaxed = simulate(system, (0, 1), x0, values, joint_friction=[friction],
                       t_eval=times, friction_relaxation=0.5)
    np.testing.assert_allclose(relaxed.q, full.q, atol=1e-7)
    # One relaxation step from zero friction cannot meet the tolerance.
    with pytest.raises(SimulationError, match='did not converge'):
        simulate(system, (0, 1), {q: np.pi / 2 + 1.2, u: 0.5}, values,
                 joint_friction=[friction], friction_max_iterations=1)


# -- stick-slip with the exact sign -------------------------------------------

EXACT = dict(rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('method', ['DOP853', 'LSODA', 'Radau', 'RK45'])
def test_block_on_incline_stops_and_sticks_with_the_exact_sign(method):
    """mu = 0.6 > tan(0.5): the block decelerates at g (mu cos a - sin a),
    stops at v0 / that (0.2163 s) and stays stopped, its speed exactly 0,
    the friction holding m g sin a (it was mu m g cos a while it slid).
    Integrating -F sign(v) across v = 0 used to chatter with steps of
    1e-11 s (over 100 s for this 1 s run, or a failure)."""
    alpha, mu, v0, mass = 0.5, 0.6, 0.1, 2.0
    system, slide, friction = incline(alpha, mu)
    x, v = slide.coordinates[0], slide.speeds[0]
    dec = G * (mu * np.cos(alpha) - np.sin(alpha))
    stop = v0 / dec
    times = np.linspace(0, 1, 41)
    res = simulate(system, (0, 1), {x: 0.0, v: v0}, {m: mass, g: G},
                   joint_friction=[friction], t_eval=times, method=method,
                   outputs={'F': friction.symbols[0]}, **EXACT)
    assert res.success
    slipping, stuck = times < stop, times > stop
    np.testing.assert_allclose(res.u[slipping, 0],
                               v0 - dec * times[slipping], atol=1e-8)
    assert np.all(res.u[stuck, 0] == 0.0)
    np.testing.assert_allclose(res.q[stuck, 0], v0 * stop - dec * stop**2 / 2,
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.outputs['F'][slipping],
                               mu * mass * G * np.cos(alpha), rtol=1e-9)
    np.testing.assert_allclose(res.outputs['F'][stuck],
                               mass * G * np.sin(alpha), rtol=1e-9)


def test_the_stop_is_a_sample_of_the_integrators_own_steps():
    """Without t_eval the samples are the integrator's steps, the switch
    of mode included: the time the block stops is sampled once, with its
    speed exactly 0, and the times increase."""
    alpha, mu, v0 = 0.5, 0.6, 0.1
    system, slide, friction = incline(alpha, mu)
    x, v = slide.coordinates[0], slide.speeds[0]
    stop = v0 / (G * (mu * np.cos(alpha) - np.sin(alpha)))
    res = simulate(system, (0, 1), {x: 0.0, v: v0}, {m: 2.0, g: G},
                   joint_friction=[friction], **EXACT)
    assert res.success
    [i] = np.nonzero(np.abs(res.t - stop) < 1e-9)[0]
    assert res.u[i, 0] == 0.0 and res.u[i - 1, 0] > 0.0
    assert np.all(np.diff(res.t) > 0)


def test_block_thrown_up_a_steep_slope_turns_back_and_slides_down():
    """mu = 0.3 < tan(0.5): thrown up the slope (v < 0 along the downhill
    axis) the block decelerates at g (sin a + mu cos a), turns at the top
    (where it cannot stick) and slides down at g (sin a - mu cos a)."""
    alpha, mu, v0 = 0.5, 0.3, -1.0
    system, slide, friction = incline(alpha, mu)
    x, v = slide.coordinates[0], slide.speeds[0]
    up = G * (np.sin(alpha) + mu * np.cos(alpha))
    down = G * (np.sin(alpha) - mu * np.cos(alpha))
    top = -v0 / up
    x_top = v0 * top + up * top**2 / 2
    times = np.linspace(0, 1, 21)
    res = simulate(system, (0, 1), {x: 0.0, v: v0}, {m: 1.0, g: G},
                   joint_friction=[friction], t_eval=times, **EXACT)
    assert res.success
    before, after = times <= top, times > top
    np.testing.assert_allclose(res.u[before, 0], v0 + up * times[before],
                               atol=1e-8)
    np.testing.assert_allclose(res.u[after, 0],
                               down * (times[after] - top), atol=1e-8)
    np.testing.assert_allclose(
        res.q[after, 0], x_top + down * (times[after] - top)**2 / 2,
        atol=1e-8)


def test_block_at_rest_breaks_away_when_the_push_exceeds_the_limit():
    """A block at rest on a slope it sticks to (mu = 0.6 > tan(0.5)),
    pushed downhill by P = 10 t: it stays put, the friction holding
    m g sin a + P, until that reaches mu m g cos a at t_b = 0.0925 s; then
    it slides with m v' = P - (mu m g cos a - m g sin a), v = 10 (t -
    t_b)**2 / (2 m)."""
    alpha, mu, mass, rate = 0.5, 0.6, 2.0, 10.0
    P = dynamicsymbols('P')
    ground, block = RigidBody('ground'), RigidBody('block', mass=m)
    axis = np.cos(alpha) * ground.x - np.sin(alpha) * ground.y
    slide = PrismaticJoint('s', ground, block, joint_axis=axis)
    friction = JointFriction(slide, coefficient=mu)
    system = System.from_newtonian(ground)
    system.add_bodies(block)
    system.add_joints(slide)
    system.add_actuators(friction)
    system.apply_uniform_gravity(-g * ground.y)
    system.add_loads(Force(block.masscenter, P * axis))
    system.form_eoms()
    x, v = slide.coordinates[0], slide.speeds[0]
    limit = mu * mass * G * np.cos(alpha)
    t_b = (limit - mass * G * np.sin(alpha)) / rate
    times = np.linspace(0, 0.3, 31)
    res = simulate(system, (0, 0.3), {x: 0.0, v: 0.0}, {m: mass, g: G},
                   joint_friction=[friction], t_eval=times,
                   specified={P: lambda t: rate * t},
                   outputs={'F': friction.symbols[0]}, **EXACT)
    assert res.success
    held, sliding = times < t_b, times > t_b
    assert np.all(res.u[held, 0] == 0.0) and np.all(res.q[held, 0] == 0.0)
    np.testing.assert_allclose(res.outputs['F'][held],
                               mass * G * np.sin(alpha) + rate * times[held],
                               rtol=1e-9)
    np.testing.assert_allclose(res.u[sliding, 0],
                               rate * (times[sliding] - t_b)**2 / (2 * mass),
                               atol=1e-8)
    np.testing.assert_allclose(res.outputs['F'][sliding], limit, rtol=1e-9)


def test_pendulum_with_exact_bearing_friction_swings_down_and_sticks():
    """A compound pendulum whose pin bearing has Coulomb friction (exact
    sign) reverses at the end of each swing while gravity beats the
    friction, and sticks for good at an angle where it cannot: there the
    speed is exactly 0 and the bearing holds the gravity torque m g L
    sin(theta), at most the limit mu R m g (the reaction at rest is m g).
    Energy never increases."""
    mu, radius = 0.6, 0.1
    system, pin, (friction,) = compound_pendulum(
        dict(coefficient=mu, radius=radius))
    q, u = pin.coordinates[0], pin.speeds[0]
    values = {m: 1.5, g: G, L: 0.8, I: 0.05}
    times = np.linspace(0, 10, 201)
    res = simulate(system, (0, 10), {q: np.pi / 2 + 1.2, u: 0.0}, values,
                   joint_friction=[friction], t_eval=times,
                   outputs={'T': friction.symbols[0]}, **EXACT)
    assert res.success
    energy = pendulum_energy(res, values)
    assert np.all(np.diff(energy) <= 1e-9)
    assert np.sum(np.diff(np.sign(res.u[:, 0])) != 0) >= 4   # it swings
    rest = times > 8.0
    assert np.all(res.u[rest, 0] == 0.0)
    theta = res.q[rest, 0] - np.pi / 2
    assert np.ptp(theta) == 0.0 and theta[0] != 0.0
    mv, Lv = values[m], values[L]
    np.testing.assert_allclose(np.abs(res.outputs['T'][rest]),
                               mv * G * Lv * abs(np.sin(theta[0])),
                               rtol=1e-9)
    assert mv * G * Lv * abs(np.sin(theta[0])) <= mu * radius * mv * G


def test_cylindrical_joint_stops_turning_and_sliding_at_their_own_times():
    """A rod on a horizontal cylindrical joint, spun at 5 rad/s and slid
    at 0.4 m/s: the radial reaction m g gives the torque mu R m g and the
    force mu m g, so it stops sliding at 0.4 / (mu g) = 0.136 s and turning
    at 5 I / (mu R m g) = 0.170 s, both between two samples, and stays at
    rest with no friction needed to hold it."""
    mu, radius = 0.3, 0.05
    ground = RigidBody('ground')
    rod = RigidBody('rod', mass=m)
    rod.central_inertia = inertia(rod.frame, I, I, I)
    joint = CylindricalJoint('c', ground, rod, joint_axis=ground.x)
    friction = JointFriction(joint, coefficient=mu, radius=radius)
    system = System.from_newtonian(ground)
    system.add_bodies(rod)
    system.add_joints(joint)
    system.add_actuators(friction)
    system.apply_uniform_gravity(-g * ground.y)
    system.form_eoms()
    (angle, shift), (spin, slip) = joint.coordinates, joint.speeds
    values = {m: 2.0, g: G, I: 0.01}
    times = np.linspace(0, 0.5, 6)
    res = simulate(system, (0, 0.5),
                   {angle: 0.0, shift: 0.0, spin: 5.0, slip: 0.4}, values,
                   joint_friction=[friction], t_eval=times,
                   outputs={'F': friction.symbols[0],
                            'T': friction.symbols[1]}, **EXACT)
    assert res.success
    torque_rate = mu * radius * values[m] * G / values[I]
    force_rate = mu * G
    stop_spin, stop_slip = 5.0 / torque_rate, 0.4 / force_rate
    assert 0.1 < stop_slip < stop_spin < 0.2
    spins, slips = list(joint.speeds).index(spin), list(joint.speeds).index(
        slip)
    np.testing.assert_allclose(res.u[:2, spins], 5.0 - torque_rate * times[:2],
                               atol=1e-8)
    np.testing.assert_allclose(res.u[:2, slips], 0.4 - force_rate * times[:2],
                               atol=1e-8)
    assert np.all(res.u[2:] == 0.0)
    np.testing.assert_allclose(res.q[-1, list(joint.coordinates).index(
        angle)], 5.0 * stop_spin / 2, atol=1e-8)
    np.testing.assert_allclose(res.q[-1, list(joint.coordinates).index(
        shift)], 0.4 * stop_slip / 2, atol=1e-8)
    np.testing.assert_allclose(res.outputs['F'][:2], mu * values[m] * G,
                               rtol=1e-9)
    assert np.all(res.outputs['F'][2:] == 0.0)
    assert np.all(res.outputs['T'][2:] == 0.0)


def test_coulomb_damped_oscillator_rests_where_friction_holds_the_spring():
    """A block on a horizontal slide tied to a spring (k = 4 m, omega = 2)
    with Coulomb friction mu m g: each half swing is simple harmonic about
    -+mu m g / k, the amplitude falling by 2 mu m g / k, until a turning
    point where the spring force is within the friction limit; there it
    stays. With mu = 0 it is the undamped x = sin(2 t) / 2 (a joint without
    friction and load is not held back by the stick-slip switching)."""
    k = sm.Symbol('k', positive=True)
    ground, block = RigidBody('ground'), RigidBody('block', mass=m)
    slide = PrismaticJoint('s', ground, block, joint_axis=ground.x)
    x, v = slide.coordinates[0], slide.speeds[0]
    times = np.linspace(0, 5, 11)
    for mu in (0.0, 0.05):
        friction = JointFriction(slide, coefficient=mu)
        system = System.from_newtonian(ground)
        system.add_bodies(block)
        system.add_joints(slide)
        system.add_actuators(friction)
        system.apply_uniform_gravity(-g * ground.y)
        system.add_loads(Force(block.masscenter, -k * x * ground.x))
        system.form_eoms()
        res = simulate(system, (0, 5), {x: 0.0, v: 1.0},
                       {m: 1.0, g: G, k: 4.0}, joint_friction=[friction],
                       t_eval=times, **EXACT)
        assert res.success
        if mu == 0.0:
            np.testing.assert_allclose(res.q[:, 0], np.sin(2 * times) / 2,
                                       atol=1e-8)
            continue
        delta = mu * G / 4.0
        centre, turn = -delta, -delta + np.hypot(delta, 0.5)
        while abs(turn) > delta:
            centre = np.copysign(delta, turn)
            turn = 2 * centre - turn
        assert np.all(res.u[-3:, 0] == 0.0)
        np.testing.assert_allclose(res.q[-3:, 0], turn, atol=1e-8)


def test_spherical_joint_sticking_with_the_exact_sign_stops_with_advice():
    """A ball joint with exact-sign friction is not switched to sticking
    (its holding torque is a vector): where the pendulum comes to rest the
    sign chatters. simulate() stops there promptly with a SimulationError
    that names the friction, says the joint sticks and how to get the
    motion (a regularization), instead of taking 1e-11 s steps for ever.
    The pendulum released from 0.36 rad swings through the bottom first
    (its speeds are large there) and comes to rest before 2 s."""
    from sympy_loads import SimulationError
    ceiling = RigidBody('ceiling')
    bob = RigidBody('bob', mass=m)
    bob.central_inertia = inertia(bob.frame, I, I, I)
    ball = SphericalJoint('ball', ceiling, bob, child_point=L * bob.frame.z)
    friction = JointFriction(ball, coefficient=0.6, radius=0.1)
    system = System.from_newtonian(ceiling)
    system.add_bodies(bob)
    system.add_joints(ball)
    system.add_actuators(friction)
    system.apply_uniform_gravity(-g * ceiling.z)
    system.form_eoms()
    values = {m: 1.0, g: G, L: 0.6, I: 0.01}
    start = {**dict(zip(ball.coordinates, [0.3, 0.2, 0.0])),
             **dict(zip(ball.speeds, [0.0, 0.0, 0.0]))}
    with pytest.raises(SimulationError, match=(
            r'T_ball_friction with the exact sign chatters where its joint '
            r'comes to rest and sticks.*regularization')) as error:
        simulate(system, (0, 2), start, values, joint_friction=[friction])
    assert 0.5 < error.value.time < 2.0
    # up to then the motion is that of the same run stopped before it
    res = simulate(system, (0, 0.4), start, values,
                   joint_friction=[friction], t_eval=[0.4])
    assert np.max(np.abs(res.u[-1])) > 0.5


def test_sticking_after_an_impact_stops_with_advice():
    """Runs with impacts are not switched to sticking: a block sliding
    down a slope it sticks to (mu = 0.6 > tan(0.5)) that rebounds from a
    stop 0.3 m down (e = 0.5) stops moving a little after the rebound;
    simulate() stops there promptly with the advice, instead of
    chattering for ever. Before the stop: deceleration g (mu cos a -
    sin a) from 1 m/s reaches the stop at 0.3 m at t = 0.332 s."""
    from sympy_loads import Impact, SimulationError
    alpha, mu = 0.5, 0.6
    system, slide, friction = incline(alpha, mu)
    x, v = slide.coordinates[0], slide.speeds[0]
    ground = slide.parent
    axis = np.cos(alpha) * ground.x - np.sin(alpha) * ground.y
    stop = ground.masscenter.locatenew('stop', 0.3 * axis)
    impact = Impact(slide.child.masscenter, stop, -axis, ground.frame,
                    restitution=0.5)
    dec = G * (mu * np.cos(alpha) - np.sin(alpha))
    hit = (1.0 - np.sqrt(1.0 - 2 * dec * 0.3)) / dec
    rebound = 0.5 * (1.0 - dec * hit)
    # back up the slope the block decelerates at g (mu cos a + sin a)
    rest = hit + rebound / (G * (mu * np.cos(alpha) + np.sin(alpha)))
    with pytest.raises(SimulationError, match='F_s_friction with the exact '
                       'sign chatters.*regularization') as error:
        simulate(system, (0, 2), {x: 0.0, v: 1.0}, {m: 1.0, g: G},
                 joint_friction=[friction], impacts=[impact])
    np.testing.assert_allclose(error.value.time, rest, atol=1e-4)
