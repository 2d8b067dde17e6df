"""A model's velocity constraints must contain the time derivatives of its
configuration constraints (issue 35, item 4): where they do not (left out,
or mistyped), the motion is not held to the constraints' velocities, and
the engine, which solves the dependent speeds from the velocity
constraints only, integrated such a model as a success (the pendulum
below, its velocity constraint left out: energy from -8.5 J to +425 J in
3 s, ``|x u_x + y u_y|`` up to 25, ``success=True``). ``Simulation`` now
refuses it when it is made, naming the configuration constraint; every
consistent form (derived by SymPy's ``System``, scaled, time dependent,
correct only on the constraints) is accepted and runs right.

Model: a particle of mass m on a massless rod of length L pinned at O,
in the natural coordinates (x, y) of the particle, ``x**2 + y**2 - L**2 =
0``, y dependent, under gravity along -N.y. Reference: energy
conservation and the constraint's velocity ``x u_x + y u_y = 0``.
"""

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import Simulation, simulate
from sympy_loads._simulation import constraint_consistency
from sympy_loads._simulation.constraint_consistency import (
    check_velocity_constraints)

_t = me.dynamicsymbols._t
BACKENDS = ['compiled', 'numpy']

x, y = me.dynamicsymbols('x y')
ux, uy = me.dynamicsymbols('u_x u_y')
m, g, L, a = sm.symbols('m g L a')
CONSTANTS = {m: 1.0, g: 9.81, L: 1.0, a: 0.1}
# released at rest 30 degrees from the lowest point
START = {x: 0.5, y: -np.sqrt(0.75), ux: 0.0, uy: 0.0}


def _frame():
    N = me.ReferenceFrame('N')
    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    return N, P


def pendulum(velocity_constraints, radius=L):
    """The natural-coordinate pendulum as a ``KanesMethod`` with
    ``velocity_constraints`` (``None``: none, u_y independent too) and the
    configuration constraint ``x**2 + y**2 - radius**2``."""
    N, P = _frame()
    options = dict(q_dependent=[y],
                   configuration_constraints=[x**2 + y**2 - radius**2])
    if velocity_constraints is None:
        speeds = [ux, uy]
    else:
        speeds = [ux]
        options.update(u_dependent=[uy],
                       velocity_constraints=velocity_constraints)
    kane = me.KanesMethod(N, [x], speeds,
                          kd_eqs=[x.diff(_t) - ux, y.diff(_t) - uy],
                          **options)
    kane.kanes_equations([me.Particle('p', P, m)],
                         [(P, -m * g * N.y)])
    return kane


def pendulum_system(velocity_constraints=None):
    """The same pendulum as a ``System``; its velocity constraints are
    derived from the holonomic one unless ``velocity_constraints`` is
    given."""
    N, P = _frame()
    system = me.System(N)
    system.add_coordinates(x, y, independent=[True, False])
    system.add_speeds(ux, uy, independent=[True, False])
    system.add_kdes(x.diff(_t) - ux, y.diff(_t) - uy)
    system.add_holonomic_constraints(x**2 + y**2 - L**2)
    if velocity_constraints is not None:
        system.velocity_constraints = velocity_constraints
    system.add_bodies(me.Particle('p', P, m))
    system.add_loads(me.Force(P, -m * g * N.y))
    system.form_eoms()
    return system


def _energy(result):
    q, u = result.q, result.u
    return 0.5 * (u[:, 0]**2 + u[:, 1]**2) + 9.81 * q[:, 1]


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('case, given', [
    ('missing', None),
    ('mistyped', [x * ux - y * uy]),
    ('another row', [ux + uy]),
])
def test_a_configuration_constraint_without_its_velocity_constraint_is_refused(
        backend, case, given):
    """Before, the model without the constraint's velocity ran to
    success (see the module documentation); the mistyped one ran until its
    dependent block turned singular."""
    kane = pendulum(given)
    with pytest.raises(ValueError) as info:
        Simulation(kane, backend=backend)
    message = str(info.value)
    assert 'L**2 + x(t)**2 + y(t)**2' in message     # the row, as printed
    assert 'row 0' in message
    assert 'time derivative' in message
    # what was expected: d/dt of the row with the kinematic equations
    assert '2*u_x(t)*x(t) + 2*u_y(t)*y(t)' in message
    with pytest.raises(ValueError, match='time derivative'):
        simulate(kane, (0.0, 3.0), START, CONSTANTS, backend=backend)


def test_a_system_with_wrong_velocity_constraints_is_refused():
    system = pendulum_system([x * ux - y * uy])
    with pytest.raises(ValueError, match=r'(?s)row 0.*time derivative'):
        Simulation(system)


def test_a_time_dependent_constraint_needs_its_time_part_too():
    """The rod's length L + a sin(t) changes with time: velocity
    constraints without the radius' rate a cos(t) are refused."""
    radius = L + a * sm.sin(_t)
    kane = pendulum([x * ux + y * uy], radius=radius)
    with pytest.raises(ValueError, match='time derivative'):
        Simulation(kane, backend='numpy')


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('case', [
    'derived by System', 'scaled', 'only on the constraints'])
def test_consistent_velocity_constraints_are_accepted_and_run_right(
        backend, case):
    """Each consistent form runs, keeps the energy (to the integrator's
    tolerance: rtol 1e-10 over 3 s, a few swings) and the constraint's
    velocity (to the Newton tolerance). 'only on the constraints' adds
    (x**2 + y**2 - L**2) u_x, zero on the constraint but not off it: it is
    checked on the constraint, where it holds."""
    if case == 'derived by System':
        model = pendulum_system()
    elif case == 'scaled':
        model = pendulum([(x * ux + y * uy) / (3 * L)])
    else:
        model = pendulum([x * ux + y * uy + (x**2 + y**2 - L**2) * ux])
    result = simulate(model, (0.0, 3.0), START, CONSTANTS,
                      t_eval=np.linspace(0.0, 3.0, 31), rtol=1e-10,
                      atol=1e-12, backend=backend)
    assert result.success, result.message
    energy = _energy(result)
    assert energy[0] == pytest.approx(-9.81 * np.sqrt(0.75), abs=1e-9)
    assert np.max(np.abs(energy - energy[0])) < 1e-7
    q, u = result.q, result.u
    assert np.max(np.abs(q[:, 0] * u[:, 0] + q[:, 1] * u[:, 1])) < 1e-9


@pytest.mark.parametrize('backend', BACKENDS)
def test_a_time_dependent_constraint_with_its_time_part_runs(backend):
    """The rod's length L + a sin(t) with its velocity constraint
    x u_x + y u_y - (L + a sin t) a cos t = 0 (d/dt of the constraint
    over 2) is accepted, and the particle stays at the rod's length."""
    radius = L + a * sm.sin(_t)
    kane = pendulum([x * ux + y * uy - radius * radius.diff(_t)],
                    radius=radius)
    times = np.linspace(0.0, 2.0, 21)
    result = simulate(kane, (0.0, 2.0), START, CONSTANTS, t_eval=times,
                      rtol=1e-10, atol=1e-12, backend=backend)
    assert result.success, result.message
    q, u = result.q, result.u
    r = 1.0 + 0.1 * np.sin(times)
    assert np.max(np.abs(np.hypot(q[:, 0], q[:, 1]) - r)) < 1e-10
    assert np.max(np.abs(q[:, 0] * u[:, 0] + q[:, 1] * u[:, 1]
                         - r * 0.1 * np.cos(times))) < 1e-9


@pytest.fixture(params=['symengine', 'sympy'])
def check_path(request, monkeypatch):
    """The check's two paths: SymEngine where it imports, SymPy's
    lambdify where it does not."""
    if request.param == 'sympy':
        monkeypatch.setattr(constraint_consistency, 'symengine_available',
                            lambda: False)
    return request.param


@pytest.mark.parametrize('given, radius, refused', [
    (None, L, True),
    ([x * ux - y * uy], L, True),
    ([x * ux + y * uy], L + a * sm.sin(_t), True),
    ([(x * ux + y * uy) / (3 * L)], L, False),
    ([x * ux + y * uy + (x**2 + y**2 - L**2) * ux], L, False),
    ([x * ux + y * uy - (L + a * sm.sin(_t)) * a * sm.cos(_t)],
     L + a * sm.sin(_t), False),
])
def test_both_paths_of_the_check_agree(check_path, given, radius, refused):
    kane = pendulum(given, radius=radius)
    if refused:
        with pytest.raises(ValueError, match='time derivative'):
            Simulation(kane, backend='numpy')
    else:
        assert Simulation(kane, backend='numpy').coordinates == (x, y)


def test_specified_inputs_in_the_kinematics_get_values_too(check_path):
    """With x' = u_x + w(t) (a specified drift), the derivative of
    x**2 + y**2 - L**2 has the term 2 x w: the velocity constraint
    x (u_x + w) + y u_y = 0 holds it, x u_x + y u_y = 0 does not (the
    check itself; the numeric model decides separately whether it can
    simulate inputs inside velocity constraints)."""
    w = me.dynamicsymbols('w')
    kindiff = {x.diff(_t): ux + w, y.diff(_t): uy}
    plain = {_t: sm.Symbol('_t'), x: sm.Symbol('_q0'), y: sm.Symbol('_q1'),
             ux: sm.Symbol('_u0'), uy: sm.Symbol('_u1'), w: sm.Symbol('_s0')}
    f_h = sm.Matrix([x**2 + y**2 - L**2])
    right = sm.Matrix([[x, y]]), sm.Matrix([x * w])
    wrong = sm.Matrix([[x, y]]), sm.Matrix([0])
    check_velocity_constraints(f_h, *right, kindiff, [x, y], [ux, uy], plain)
    expected = r'2\*\(u_x\(t\) \+ w\(t\)\)\*x\(t\)'
    with pytest.raises(ValueError, match=expected):
        check_velocity_constraints(f_h, *wrong, kindiff, [x, y], [ux, uy],
                                   plain)
