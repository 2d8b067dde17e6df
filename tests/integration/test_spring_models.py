"""KanesMethod/System models built with the TSDA and RSDA of
sympy_loads.actuators: their equations of motion against hand derivations,
and energy conservation (conservative springs) or monotone energy loss
(dampers, friction) in numerical simulations with scipy's solve_ivp."""

import numpy as np
import pytest
import sympy as sm
from scipy.integrate import solve_ivp
from sympy.physics.mechanics import (KanesMethod, LinearPathway, Particle,
                                     PinJoint, Point, ReferenceFrame,
                                     RigidBody, System, dynamicsymbols,
                                     inertia)

from sympy_loads import (RotationalSpringDamperActuator, SlidingFriction,
                         SpringDamperActuator)

t = dynamicsymbols._t
m, g, k, c, l0, fF, eps = sm.symbols('m g k c l_0 f_F epsilon',
                                     positive=True)


def test_mass_on_tsda_has_textbook_equation_of_motion():
    # m x'' + c x' + k (x - l0) = 0 for a mass on a spring-damper
    x = dynamicsymbols('x', positive=True)
    u = dynamicsymbols('u')
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x)
    P.set_vel(N, u * N.x)
    tsda = SpringDamperActuator(LinearPathway(O, P), stiffness=k, damping=c,
                                free_length=l0)
    kane = KanesMethod(N, [x], [u], kd_eqs=[x.diff(t) - u])
    fr, frstar = kane.kanes_equations([Particle('block', P, m)],
                                      tsda.to_loads())
    eom = (fr + frstar)[0]
    assert sm.simplify(eom + m * u.diff(t) + c * u + k * (x - l0)) == 0


def test_pendulum_with_rsda_at_its_pin():
    # rod of mass m, length L about a pin: I q'' = -m g L/2 sin q
    #                                            - k (q - q0) - c q'
    L, q0 = sm.symbols('L q_0', positive=True)
    ground = RigidBody('ground')
    rod = RigidBody('rod', mass=m)
    rod.central_inertia = inertia(rod.frame, 0, 0, m * L**2 / 12)
    pin = PinJoint('pin', ground, rod, joint_axis=ground.frame.z,
                   child_point=L / 2 * rod.frame.y)
    q, u = pin.coordinates[0], pin.speeds[0]
    rsda = RotationalSpringDamperActuator.at_pin_joint(
        pin, stiffness=k, damping=c, free_angle=q0)
    system = System.from_newtonian(ground)
    system.add_joints(pin)
    system.apply_uniform_gravity(-g * ground.y)
    system.add_actuators(rsda)
    eom = system.form_eoms()[0]
    hand = (-(m * L**2 / 3) * u.diff(t) - m * g * L / 2 * sm.sin(q)
            - k * (q - q0) - c * u)
    assert sm.simplify(eom - hand) == 0


def _spring_pendulum(damping, friction=0):
    """A particle on a TSDA hung from a fixed point, in a vertical plane,
    with a second body (a disc) on a pin at the anchor carrying an RSDA.
    Returns (kane, energy, states) built symbolically."""
    x, y, th = dynamicsymbols('x y theta')
    ux, uy, w = dynamicsymbols('u_x u_y omega')
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    tsda = SpringDamperActuator(
        LinearPathway(O, P), stiffness=k, damping=damping, free_length=l0,
        friction=friction, regularization=eps)
    D = ReferenceFrame('D')
    D.orient_axis(N, N.z, th)
    D.set_ang_vel(N, w * N.z)
    I_D = sm.Symbol('I_D', positive=True)
    disc = RigidBody('disc', O, D, m, (inertia(D, 0, 0, I_D), O))
    rsda = RotationalSpringDamperActuator(
        th, N.z, D, N, stiffness=k, damping=damping, friction=friction,
        regularization=eps)
    loads = tsda.to_loads() + rsda.to_loads() + [(P, -m * g * N.y)]
    kane = KanesMethod(N, [x, y, th], [ux, uy, w],
                       kd_eqs=[x.diff(t) - ux, y.diff(t) - uy,
                               th.diff(t) - w])
    kane.kanes_equations([Particle('p', P, m), disc], loads)
    length = sm.sqrt(x**2 + y**2)
    energy = (m * (ux**2 + uy**2) / 2 + I_D * w**2 / 2 + m * g * y
              + k * (length - l0)**2 / 2 + k * th**2 / 2)
    return kane, energy, (x, y, th, ux, uy, w), I_D


def _simulate(kane, energy, states, I_D, values, t_end=8.0):
    constants = [m, g, k, c, l0, fF, eps, I_D]
    numbers = [values[s] for s in constants]
    # generated once, outside the right-hand side
    mass = sm.lambdify([states, constants], kane.mass_matrix_full, cse=True)
    forcing = sm.lambdify([states, constants], kane.forcing_full, cse=True)
    energy_f = sm.lambdify([states, constants], energy, cse=True)

    def rhs(_, z):
        return np.linalg.solve(mass(z, numbers),
                               np.asarray(forcing(z, numbers)).ravel())

    z0 = np.array([0.6, -1.3, 0.8, 0.4, 0.0, -1.5])
    times = np.linspace(0.0, t_end, 801)
    sol = solve_ivp(rhs, (0.0, t_end), z0, t_eval=times, method='DOP853',
                    rtol=1e-11, atol=1e-11)
    assert sol.success, sol.message
    return np.array([energy_f(z, numbers) for z in sol.y.T]), sol.y


VALUES = {m: 1.5, g: 9.81, k: 40.0, c: 0.0, l0: 1.0, fF: 0.0, eps: 1e-2,
          sm.Symbol('I_D', positive=True): 0.2}


def test_conservative_spring_model_conserves_energy():
    kane, energy, states, I_D = _spring_pendulum(damping=0)
    E, y = _simulate(kane, energy, states, I_D, VALUES)
    # Simbody's check is |E/E0 - 1| < 5e-3; with rtol = 1e-11 we demand 1e-8
    assert np.max(np.abs(E / E[0] - 1)) < 1e-8
    # the motion is not trivial: the spring length and the disc angle swing
    length = np.hypot(y[0], y[1])
    assert np.ptp(length) > 0.2 and np.ptp(y[2]) > 0.5


@pytest.mark.parametrize('damping, friction', [(c, 0), (0, fF), (c, fF)])
def test_damped_spring_model_loses_energy_monotonically(damping, friction):
    kane, energy, states, I_D = _spring_pendulum(damping, friction)
    values = dict(VALUES)
    values[c] = 0.8
    values[fF] = 0.5
    E, _ = _simulate(kane, energy, states, I_D, values)
    steps = np.diff(E)
    # never increases beyond the integration error (1e-9 of the energy)
    assert np.all(steps <= 1e-9 * abs(E[0]))
    # and dissipates a substantial part of the initial energy above rest
    E_rest = _rest_energy(values)
    assert (E[-1] - E_rest) < 0.7 * (E[0] - E_rest)


def _rest_energy(values):
    """Energy at static equilibrium: the particle hangs at y = -(l0 + mg/k),
    the disc at theta = 0."""
    stretch = values[m] * values[g] / values[k]
    y = -(values[l0] + stretch)
    return values[m] * values[g] * y + values[k] * stretch**2 / 2


def test_block_with_sliding_friction_loses_energy_monotonically():
    # a block on a spring sliding on the ground plane with smooth Coulomb +
    # Stribeck friction: energy never increases and it slows down
    x, y = dynamicsymbols('x y')
    ux, uy = dynamicsymbols('u_x u_y')
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    friction = SlidingFriction(P, N.z, N, normal_force=m * g,
                               kinetic_coefficient=0.3,
                               static_coefficient=0.5, stribeck_speed=0.05,
                               regularization=eps, sign_method='algebraic')
    spring = SpringDamperActuator(LinearPathway(O, P), stiffness=k,
                                  free_length=l0)
    kane = KanesMethod(N, [x, y], [ux, uy],
                       kd_eqs=[x.diff(t) - ux, y.diff(t) - uy])
    kane.kanes_equations([Particle('p', P, m)],
                         friction.to_loads() + spring.to_loads())
    states = [x, y, ux, uy]
    constants = [m, g, k, l0, eps]
    numbers = [2.0, 9.81, 20.0, 1.0, 1e-3]
    rhs_f = sm.lambdify([states, constants],
                        kane.mass_matrix_full.LUsolve(kane.forcing_full),
                        cse=True)
    energy = sm.lambdify(
        [states, constants],
        m * (ux**2 + uy**2) / 2 + k * (sm.sqrt(x**2 + y**2) - l0)**2 / 2,
        cse=True)
    sol = solve_ivp(lambda _, z: np.asarray(rhs_f(z, numbers)).ravel(),
                    (0, 5), [1.8, 0.2, 0.0, 1.0], method='LSODA',
                    t_eval=np.linspace(0, 5, 501), rtol=1e-9, atol=1e-9)
    assert sol.success
    E = np.array([energy(z, numbers) for z in sol.y.T])
    assert np.all(np.isfinite(E))
    assert np.all(np.diff(E) <= 1e-7 * E[0])
    assert E[-1] < 0.5 * E[0]
