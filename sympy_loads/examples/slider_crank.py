"""A motor-driven slider-crank with a spring-damper on the slider, simulated
with :func:`sympy_loads.simulate`.

Run ``python -m sympy_loads.examples.slider_crank [--duration 3]
[--output DIR] [--no-plot] [--animate]``: prints a summary table
(revolutions, constraint residual, energy balance) and saves
``slider_crank.png`` (crank speed, slider position and constraint residual
versus time); with ``--animate`` also ``slider_crank.gif``, the mechanism
moving in slow motion (:func:`sympy_loads.animate`).

Mechanism (horizontal plane, no gravity)::

        N.y
         |      P (crank pin)
         |    r/ \\ l
         |   /q1  \\          spring-damper k, c (free length l0)
         O--------[S]--------------------- N.x
         |<-- x = q3 -->|     between O and the slider S

The crank A (angle ``q1``, length ``r``, uniform rod of mass ``mc``) is
driven by a motor torque ``T(t)`` (a specified input: soft start
``T0 (1 - exp(-t/tau))``) through SymPy's ``TorqueActuator`` and has a
bearing damper (``RotationalSpringDamperActuator``, damping ``cb``). The
connecting rod B (absolute angle ``q2``, length ``l``, mass ``mr``) joins
the crank pin to the slider (mass ``ms``) at ``x = q3``. The loop
closure ``r cos q1 + l cos q2 - q3 = 0``, ``r sin q1 + l sin q2 = 0`` makes
``q2, q3`` (and ``u2, u3``) dependent. The slider carries a
``SpringDamperActuator`` between the origin and the slider. Energy balance::

    E(t) - E(0) = W_motor - W_damper - W_bearing

References
==========

.. [Autodesk] Autodesk Inventor, "Dynamic Simulation: Constraint
   Kinematics" (course module): the piston-crank example.
.. [Notes3D] Course notes "Three-Dimensional Generalized Forces": the
   translational and rotational spring-damper-actuators.
"""

import time as _time
from types import SimpleNamespace

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import (RotationalSpringDamperActuator, SpringDamperActuator,
                         animate, save_gif, simulate)
from sympy_loads.examples._report import (one_line, parser, plot_residual,
                                          print_table, save_figure, work)

#: Numbers of the example (SI units).
PARAMETERS = {'r': 0.1, 'l': 0.3, 'mc': 0.5, 'mr': 1.0, 'ms': 0.8,
              'k': 400.0, 'c': 5.0, 'l0': 0.3, 'cb': 0.02}
#: The motor's stall torque T0 [N m] and soft-start time constant tau [s].
MOTOR = {'T0': 2.0, 'tau': 0.2}


def _loads(slider_pathway, k, c, l0, q1, cb, A, N, torque):
    """Spring-damper on the slider, bearing damper and motor torque."""
    motor = me.TorqueActuator(torque, N.z, A, N)
    spring = SpringDamperActuator(slider_pathway, stiffness=k, damping=c,
                                  free_length=l0)
    bearing = RotationalSpringDamperActuator(q1, N.z, A, N, damping=cb)
    return spring.to_loads() + bearing.to_loads() + motor.to_loads()


def build_model(extra_loads=None):
    """Return a namespace with the ``KanesMethod`` (``kane``), symbols and
    the energy and power expressions of the slider-crank.

    ``extra_loads`` (optional) is a function ``extra_loads(points, frame)``
    of the points ``(O, P, S)`` and the frame ``N`` returning more loads
    for the equations of motion, e.g. the contact of a stop the slider
    strikes (:class:`~sympy_loads.HuntCrossleyContact`)."""
    q1, q2, q3 = me.dynamicsymbols('q1, q2, q3')
    u1, u2, u3 = me.dynamicsymbols('u1, u2, u3')
    T = me.dynamicsymbols('T')
    r, l, mc, mr, ms = sm.symbols('r, l, m_c, m_r, m_s')
    k, c, l0, cb = sm.symbols('k, c, l_0, c_b')
    t = me.dynamicsymbols._t

    N, A, B = sm.symbols('N A B', cls=me.ReferenceFrame)
    A.orient_axis(N, q1, N.z)
    B.orient_axis(N, q2, N.z)
    A.set_ang_vel(N, u1*N.z)
    B.set_ang_vel(N, u2*N.z)

    O = me.Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', r*A.x)
    P.v2pt_theory(O, N, A)
    Ac = O.locatenew('A_c', r/2*A.x)
    Ac.v2pt_theory(O, N, A)
    Bc = P.locatenew('B_c', l/2*B.x)
    Bc.v2pt_theory(P, N, B)
    S = O.locatenew('S', q3*N.x)
    S.set_vel(N, u3*N.x)

    closure = P.pos_from(O) + l*B.x - q3*N.x
    fh = sm.Matrix([closure.dot(N.x), closure.dot(N.y)])
    qdot_to_u = {q1.diff(t): u1, q2.diff(t): u2, q3.diff(t): u3}
    fhd = fh.diff(t).xreplace(qdot_to_u)

    crank = me.RigidBody('crank', Ac, A, mc,
                         (me.inertia(A, 0, 0, mc*r**2/12), Ac))
    rod = me.RigidBody('rod', Bc, B, mr,
                       (me.inertia(B, 0, 0, mr*l**2/12), Bc))
    slider = me.Particle('slider', S, ms)
    bodies = [crank, rod, slider]
    pathway = me.LinearPathway(O, S)
    loads = _loads(pathway, k, c, l0, q1, cb, A, N, T)
    if extra_loads is not None:
        loads = loads + list(extra_loads((O, P, S), N))

    kane = me.KanesMethod(
        N, [q1], [u1], kd_eqs=[q1.diff(t) - u1, q2.diff(t) - u2,
                               q3.diff(t) - u3],
        q_dependent=[q2, q3], u_dependent=[u2, u3],
        configuration_constraints=fh, velocity_constraints=fhd)
    kane.kanes_equations(bodies, loads)

    kinetic = sum(b.kinetic_energy(N) for b in bodies).xreplace(qdot_to_u)
    potential = k*(pathway.length - l0)**2/2
    rate = pathway.extension_velocity.xreplace(qdot_to_u)
    symbols = dict(r=r, l=l, mc=mc, mr=mr, ms=ms, k=k, c=c, l0=l0, cb=cb)
    return SimpleNamespace(
        kane=kane, q=(q1, q2, q3), u=(u1, u2, u3), torque=T,
        symbols=symbols, fh=fh, kinetic=kinetic, potential=potential,
        energy=kinetic + potential, motor_power=T*u1,
        damper_power=-c*rate**2, bearing_power=-cb*u1**2,
        frame=N, points=(O, P, S))


def constants_of(model, **overrides):
    """Map the model's symbols to :data:`PARAMETERS` (with overrides)."""
    values = dict(PARAMETERS, **overrides)
    return {model.symbols[name]: value for name, value in values.items()}


def motor_torque(T0=MOTOR['T0'], tau=MOTOR['tau']):
    """The motor torque ``T(t) = T0 (1 - exp(-t/tau))`` as a function."""
    return lambda t: T0*(1.0 - np.exp(-t/tau))


def initial_conditions(model):
    """Crank at 0.3 rad, at rest; rod angle and slider position are
    guesses, solved for by :func:`simulate`."""
    q1, q2, q3 = model.q
    u1, _, _ = model.u
    return {q1: 0.3, q2: 0.0, q3: 0.4, u1: 0.0}


def run(duration=3.0, samples_per_second=1000, **overrides):
    """Simulate and return ``(model, result, table)``."""
    model = build_model()
    t_eval = np.linspace(0.0, duration,
                         int(round(duration*samples_per_second)) + 1)
    start = _time.perf_counter()
    result = simulate(
        model.kane, (0.0, duration), initial_conditions(model),
        constants_of(model, **overrides), t_eval=t_eval,
        specified={model.torque: motor_torque()},
        outputs={'energy': model.energy, 'motor_power': model.motor_power,
                 'damper_power': model.damper_power,
                 'bearing_power': model.bearing_power})
    wall = _time.perf_counter() - start
    return model, result, summary(result, wall)


def summary(result, wall_time):
    """Rows (label, value): revolutions, residuals, energy balance.

    The works are the powers integrated over the samples by Simpson's rule
    (``cumulative_simpson`` of SciPy), far more accurate than
    the integration at 1000 samples per second, so the energy balance
    error (relative to the motor's work) measures the simulation.
    """
    out = result.outputs
    energy = out['energy']
    motor = work(out['motor_power'], result.t)
    damper = work(out['damper_power'], result.t)
    bearing = work(out['bearing_power'], result.t)
    balance = energy - energy[0] - (motor + damper + bearing)
    scale = max(np.max(np.abs(motor)), 1e-12)
    revolutions = (result.q[-1, 0] - result.q[0, 0])/(2*np.pi)
    return [
        ('simulated time [s]', f'{result.t[-1]:.3f}'),
        ('wall time [s]', f'{wall_time:.2f}'),
        ('RHS evaluations', f'{result.nfev}'),
        ('crank revolutions', f'{revolutions:.2f}'),
        ('final crank speed [rad/s]', f'{result.u[-1, 0]:.3f}'),
        ('max |constraint residual| [m]',
         f'{np.max(result.constraint_residual):.2e}'),
        ('max |velocity residual| [m/s]',
         f'{np.max(result.velocity_residual):.2e}'),
        ('work of the motor [J]', f'{motor[-1]:.6f}'),
        ('work of the spring-damper [J]', f'{damper[-1]:.6f}'),
        ('work of the bearing [J]', f'{bearing[-1]:.6f}'),
        ('energy change [J]', f'{energy[-1] - energy[0]:.6f}'),
        ('energy balance error (relative)',
         f'{np.max(np.abs(balance))/scale:.2e}'),
    ]


def plot(model, result, output_dir):
    """Save ``slider_crank.png`` in ``output_dir`` and return its path."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    axes[0].plot(result.t, result.u[:, 0])
    axes[0].set_ylabel('crank speed u1 [rad/s]')
    axes[1].plot(result.t, result.q[:, 2])
    axes[1].set_ylabel('slider position q3 [m]')
    plot_residual(axes[2], result)
    return save_figure(fig, 'Motor-driven slider-crank with a '
                       'spring-damper', output_dir, 'slider_crank.png')


def save_animation(model, result, output_dir, fps=25, speed=0.25,
                   dpi=100):
    """Save ``slider_crank.gif`` (crank O-P on its ground pivot O, rod P-S
    and the slider block S on its guide, played at
    ``speed`` times real time) in ``output_dir``; return its path.

    Examples
    ========

    >>> import tempfile
    >>> from PIL import Image
    >>> from sympy_loads.examples import slider_crank
    >>> model, result, _ = slider_crank.run(duration=0.1)
    >>> path = slider_crank.save_animation(model, result,
    ...                                    tempfile.mkdtemp())
    >>> Image.open(path).n_frames       # 0.1 s, 4 x slower, 25 per second
    11
    """
    import os

    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    O, P, S = model.points
    anim = animate(result, [O, P, S], model.frame, fps=fps, speed=speed,
                   title=f'Slider-crank ({speed:g} x real time)',
                   figsize=(7, 3.4), units='m', ground=[O], sliders=[S])
    os.makedirs(output_dir, exist_ok=True)
    path = save_gif(anim, os.path.join(output_dir, 'slider_crank.gif'),
                    dpi=dpi)
    plt.close(anim.figure)
    return path


def main(argv=None):
    """Command-line entry point; returns ``(result, table)``."""
    args = parser('python -m sympy_loads.examples.slider_crank',
                  one_line(__doc__), 3.0, animate=True).parse_args(argv)
    model, result, table = run(args.duration)
    print_table('Motor-driven slider-crank with a spring-damper', table)
    if not args.no_plot:
        print(f'plot saved to {plot(model, result, args.output)}')
    if args.animate:
        print(f'animation saved to '
              f'{save_animation(model, result, args.output)}')
    return result, table


if __name__ == '__main__':
    main()
