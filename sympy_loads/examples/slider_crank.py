"""A motor-driven slider-crank with a spring-damper on the slider, simulated
with :func:`sympy_loads.simulate`.

Run ``python -m sympy_loads.examples.slider_crank [--duration 3]
[--friction MU] [--output DIR] [--no-plot] [--animate]``: prints a summary
table (revolutions, constraint residual, energy balance, the largest force
in each joint) and saves ``slider_crank.png`` (crank speed, slider position
and constraint residual versus time) and ``slider_crank_joint_forces.png``
(the magnitude of the force in each joint versus time, as Autodesk
Inventor's output grapher plots it); with ``--friction MU`` the piston's
guide has Coulomb friction of coefficient ``MU``
(:class:`~sympy_loads.JointFriction` on the prismatic joint) and the table
adds its energy balance, energy lost = work of the friction; with
``--animate`` also ``slider_crank.gif``, the mechanism moving in slow
motion (:func:`sympy_loads.animate`).

Mechanism (horizontal plane, no gravity)::

        N.y
         |      P (crank pin)
         |    r/ \\ l
         |   /q1  \\          spring-damper k, c (free length l0)
         O--------[S]--------------------- N.x
         |<-- x = q3 -->|     between O and the slider S

Built from SymPy's ``System`` and joints: the crank A (angle ``q1``,
``PinJoint`` O; length ``r``, uniform rod of mass ``mc``) is driven by a
motor torque ``T(t)`` (a specified input: soft start
``T0 (1 - exp(-t/tau))``) through SymPy's ``TorqueActuator`` and has a
bearing damper (``RotationalSpringDamperActuator``, damping ``cb``). The
slider (mass ``ms``, no rotational inertia) moves along ``N.x`` at
``x = q3`` (``PrismaticJoint`` ``piston``); the connecting rod B (length
``l``, mass ``mr``) turns on it at S (``PinJoint`` S, angle ``q2``: the
slider does not turn, so ``q2`` is the rod's absolute angle). The crank
pin P closes the loop: a :class:`~sympy_loads.LoopJoint` (crank on rod)
whose two constraints (the rod's end on the crank pin, along ``N.x`` and
``N.y``: the closure ``r cos q1 + l cos q2 = q3``, ``r sin q1 + l sin q2
= 0``) make ``q2, q3`` (and ``u2, u3``) dependent and whose multipliers are
the force the crank exerts on the rod. The slider
carries a ``SpringDamperActuator`` between the origin and the slider.
Energy balance::

    E(t) - E(0) = W_motor + W_damper + W_bearing (+ W_friction)

References
==========

.. [Autodesk] Autodesk Inventor, "Dynamic Simulation: Constraint
   Kinematics" (course module): the piston-crank example.
.. [Notes3D] Course notes "Three-Dimensional Generalized Forces": the
   translational and rotational spring-damper-actuators, friction in a
   joint from its reaction.
"""

import time as _time
from types import SimpleNamespace

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import (JointFriction, LoopJoint,
                         RotationalSpringDamperActuator, SpringDamperActuator,
                         animate, simulate)
from sympy_loads.examples._report import (
    joint_force_outputs, largest_force_rows, one_line, parser,
    plot_joint_forces, plot_residual, positive, print_table,
    save_animation_gif, save_figure, work)

#: Numbers of the example (SI units).
PARAMETERS = {'r': 0.1, 'l': 0.3, 'mc': 0.5, 'mr': 1.0, 'ms': 0.8,
              'k': 400.0, 'c': 5.0, 'l0': 0.3, 'cb': 0.02}
#: Legend entries of the joints in the joint-force figure.
JOINT_LABELS = {'O': 'crank pin O (ground on crank)',
                'piston': "piston's guide (normal force)",
                'S': 'pin S (slider on rod)',
                'P': 'crank pin P, the loop joint (crank on rod)'}
#: The motor's stall torque T0 [N m] and soft-start time constant tau [s].
MOTOR = {'T0': 2.0, 'tau': 0.2}


def _loads(slider_pathway, k, c, l0, q1, cb, A, N, torque):
    """Spring-damper on the slider, bearing damper and motor torque."""
    motor = me.TorqueActuator(torque, N.z, A, N)
    spring = SpringDamperActuator(slider_pathway, stiffness=k, damping=c,
                                  free_length=l0)
    bearing = RotationalSpringDamperActuator(q1, N.z, A, N, damping=cb)
    return [spring, bearing, motor]


def _body(name, frame, mass, izz):
    center = me.Point(f'{name}_mass_center')
    return me.RigidBody(name, center, frame, mass,
                        (me.inertia(frame, 0, 0, izz), center))


def _joints(ground, crank, rod, slider, coordinates, speeds, r, l):
    """The crank pin O, the piston's prismatic joint, the pin S of the rod
    on the slider and the loop joint P (the crank pin, crank on rod);
    return them and the crank pin's point P."""
    N, A, B, C = ground.frame, crank.frame, rod.frame, slider.frame
    (q1, q2, q3), (u1, u2, u3) = coordinates, speeds
    crank_pin = me.PinJoint('O', ground, crank, q1, u1,
                            child_point=-r/2*A.x, joint_axis=N.z)
    piston = me.PrismaticJoint('piston', ground, slider, q3, u3,
                               joint_axis=N.x)
    # the slider does not turn: the rod's angle to it is its absolute angle
    rod_pin = me.PinJoint('S', slider, rod, q2, u2, child_point=l/2*B.x,
                          joint_axis=C.z)
    P = crank.masscenter.locatenew('P', r/2*A.x)
    P.v2pt_theory(crank.masscenter, N, A)
    # the axis written in the ground's frame: the loop's rows (and its
    # force components) are along N's axes, as the hand-written closure
    loop = LoopJoint('P', crank, rod, parent_point=P,
                     child_point=-l/2*B.x, kind='pin', joint_axis=N.z)
    return (crank_pin, piston, rod_pin, loop), P


def build_model(extra_loads=None, friction=None):
    """Return a namespace with the ``System`` (``system``), its
    ``KanesMethod`` (``kane``, the system's ``eom_method``), the joints
    (``joints``: the crank pin O, the prismatic joint ``piston``, the pin S
    of the rod on the slider and the loop joint P), symbols and the energy and power expressions of the
    slider-crank.

    ``extra_loads`` (optional) is a function ``extra_loads(points, frame)``
    of the points ``(O, P, S)`` and the frame ``N`` returning more loads
    for the equations of motion, e.g. the contact of a stop the slider
    strikes (:class:`~sympy_loads.HuntCrossleyContact`). ``friction``
    (optional) is the Coulomb friction coefficient of the piston's guide:
    a :class:`~sympy_loads.JointFriction` on the prismatic joint (the
    namespace's ``friction``, to pass to :func:`simulate` as
    ``joint_friction=[model.friction]``), with its power
    ``friction_power``."""
    q1, q2, q3 = me.dynamicsymbols('q1, q2, q3')
    u1, u2, u3 = me.dynamicsymbols('u1, u2, u3')
    T = me.dynamicsymbols('T')
    r, l, mc, mr, ms = sm.symbols('r, l, m_c, m_r, m_s')
    k, c, l0, cb = sm.symbols('k, c, l_0, c_b')
    t = me.dynamicsymbols._t

    ground = me.RigidBody('ground')
    N = ground.frame
    A, B, C = sm.symbols('A B C', cls=me.ReferenceFrame)
    crank = _body('crank', A, mc, mc*r**2/12)
    rod = _body('rod', B, mr, mr*l**2/12)
    slider = _body('slider', C, ms, 0)
    joints, P = _joints(ground, crank, rod, slider, (q1, q2, q3),
                        (u1, u2, u3), r, l)
    O, S = ground.masscenter, slider.masscenter

    system = me.System.from_newtonian(ground)
    system.add_bodies(crank, rod, slider)
    system.add_joints(*joints)
    system.add_holonomic_constraints(*joints[-1].holonomic_constraints)
    system.q_ind, system.q_dep = [q1], [q2, q3]
    system.u_ind, system.u_dep = [u1], [u2, u3]
    pathway = me.LinearPathway(O, S)
    system.add_actuators(*_loads(pathway, k, c, l0, q1, cb, A, N, T))
    if extra_loads is not None:
        system.add_loads(*extra_loads((O, P, S), N))
    joint_friction, friction_power = None, sm.S.Zero
    if friction is not None:
        joint_friction = JointFriction(joints[1], coefficient=friction)
        system.add_actuators(joint_friction)
        friction_power = -joint_friction.symbols[0]*sm.Abs(u3)
    system.form_eoms()

    qdot_to_u = {q1.diff(t): u1, q2.diff(t): u2, q3.diff(t): u3}
    bodies = (crank, rod, slider)
    kinetic = sum(b.kinetic_energy(N) for b in bodies).xreplace(qdot_to_u)
    potential = k*(pathway.length - l0)**2/2
    rate = pathway.extension_velocity.xreplace(qdot_to_u)
    symbols = dict(r=r, l=l, mc=mc, mr=mr, ms=ms, k=k, c=c, l0=l0, cb=cb)
    return SimpleNamespace(
        system=system, kane=system.eom_method, joints=joints,
        loop=joints[-1], piston=joints[1], friction=joint_friction,
        q=(q1, q2, q3), u=(u1, u2, u3), torque=T, symbols=symbols,
        fh=sm.Matrix(joints[-1].holonomic_constraints), kinetic=kinetic,
        potential=potential, energy=kinetic + potential,
        motor_power=T*u1, damper_power=-c*rate**2,
        bearing_power=-cb*u1**2, friction_power=friction_power,
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


def joint_forces(model):
    """``{joint name: force Vector}``: the force the parent exerts on the
    child in the crank pin O, the rod's pin S (slider on rod) and the loop
    joint P (crank on rod), and the guide's normal force on the slider
    (``piston``): :func:`~sympy_loads.joint_reactions` of the tree joints,
    the multipliers of the loop joint. They contain the loop's
    multipliers, which :func:`simulate` evaluates along the run."""
    from sympy_loads import joint_reactions
    forces = {j.name: joint_reactions(j, model.system).force
              for j in model.joints[:-1]}
    forces[model.loop.name] = model.loop.force
    return forces


def run(duration=3.0, samples_per_second=1000, reactions=True,
        friction=None, **overrides):
    """Simulate and return ``(model, result, table)``. With ``reactions``
    the outputs also hold the force in every joint (:func:`joint_forces`,
    components ``F_<joint>_x``, ``F_<joint>_y`` along ``N.x``, ``N.y``);
    ``friction`` is the Coulomb coefficient of the piston's guide (the
    table then shows energy lost = work of the friction)."""
    model = build_model(friction=friction)
    t_eval = np.linspace(0.0, duration,
                         int(round(duration*samples_per_second)) + 1)
    outputs = {'energy': model.energy, 'motor_power': model.motor_power,
               'damper_power': model.damper_power,
               'bearing_power': model.bearing_power}
    options = {}
    if friction is not None:
        outputs['friction_power'] = model.friction_power
        options['joint_friction'] = [model.friction]
    if reactions:
        outputs.update(joint_force_outputs(joint_forces(model), model.frame))
    start = _time.perf_counter()
    result = simulate(
        model.system, (0.0, duration), initial_conditions(model),
        constants_of(model, **overrides), t_eval=t_eval,
        specified={model.torque: motor_torque()}, outputs=outputs,
        **options)
    wall = _time.perf_counter() - start
    table = summary(result, wall)
    if reactions:
        table += largest_force_rows(result, model.joints)
    return model, result, table


def summary(result, wall_time):
    """Rows (label, value): revolutions, residuals, energy balance (and,
    with friction in the guide, energy lost = work of the friction).

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
    friction = (work(out['friction_power'], result.t)
                if 'friction_power' in out else 0*motor)
    balance = energy - energy[0] - (motor + damper + bearing + friction)
    scale = max(np.max(np.abs(motor)), 1e-12)
    revolutions = (result.q[-1, 0] - result.q[0, 0])/(2*np.pi)
    rows = [
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
    if 'friction_power' in out:
        lost = motor + damper + bearing - (energy - energy[0])
        rows += [('energy lost in the guide [J]', f'{lost[-1]:.6f}'),
                 ('work of the guide friction [J]', f'{friction[-1]:.6f}')]
    return rows


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
    
    import matplotlib
    matplotlib.use('Agg')
    O, P, S = model.points
    anim = animate(result, [O, P, S], model.frame, fps=fps, speed=speed,
                   title=f'Slider-crank ({speed:g} x real time)',
                   figsize=(7, 3.4), units='m', ground=[O], sliders=[S])
    return save_animation_gif(anim, output_dir, 'slider_crank.gif', dpi)


def main(argv=None):
    """Command-line entry point; returns ``(result, table)``."""
    arguments = parser('python -m sympy_loads.examples.slider_crank',
                       one_line(__doc__), 3.0, animate=True)
    arguments.add_argument('--friction', type=positive(), default=None,
                           metavar='MU',
                           help='Coulomb friction coefficient of the '
                                "piston's guide (default: none)")
    args = arguments.parse_args(argv)
    model, result, table = run(args.duration, friction=args.friction)
    title = 'Motor-driven slider-crank with a spring-damper'
    if args.friction is not None:
        title += f' and friction {args.friction:g} in the guide'
    print_table(title, table)
    if not args.no_plot:
        print(f'plot saved to {plot(model, result, args.output)}')
        path = plot_joint_forces(
            result, [j.name for j in model.joints],
            'Slider-crank: force in each joint', args.output,
            'slider_crank_joint_forces.png', labels=JOINT_LABELS)
        print(f'plot saved to {path}')
    if args.animate:
        print(f'animation saved to '
              f'{save_animation(model, result, args.output)}')
    return result, table


if __name__ == '__main__':
    main()
