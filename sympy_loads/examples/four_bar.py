"""Moore's four-bar linkage with gravity and a spring-damper, simulated with
:func:`sympy_loads.simulate`.

Run ``python -m sympy_loads.examples.four_bar [--duration 10] [--output DIR]
[--no-plot] [--animate]``: prints a summary table (constraint residual,
energy balance, the largest force in each pin) and saves ``four_bar.png``
(angles, energy and constraint residual versus time) and
``four_bar_joint_forces.png`` (the magnitude of the force in each pin
versus time, as Autodesk Inventor's output grapher plots it); with
``--animate`` also ``four_bar.gif``, the linkage moving in real time
(:func:`sympy_loads.animate`).

The linkage is the one of the holonomic-equations-of-motion chapter of
*Learn Multibody Dynamics* [Moore]_, built here from SymPy's ``System`` and
joints: crank A (length ``la``) turns about the fixed pivot P1 by ``q1``
(``PinJoint`` P1), coupler B (``lb``) and rocker C (``lc``) are oriented by
the relative angles ``q2`` and ``q3`` (``PinJoint`` P2 and P3), and the
loop closes on the fixed pivot P4 at ``ln`` along ``N.x`` with a
:class:`~sympy_loads.LoopJoint` (a pin that adds no coordinates, only its
two constraints and their multipliers, the force in that pin). Particles
of mass ``m`` sit at P2 and P3: the crank carries the one at P2 and the
coupler the one at P3 (rigid bodies with their whole mass at that point,
no rotational inertia); the rocker is massless. Gravity acts along
``-N.y``. ``q1``/``u1`` are independent, ``q2, q3``/``u2, u3`` dependent.
Added here: a translational spring-damper (stiffness ``k``, damping ``c``,
free length ``l0``) between the fixed pivot P1 and the joint P3 (acting on
the coupler).

References
==========

.. [Moore] J. K. Moore, Learn Multibody Dynamics, "Equations of Motion
   with Holonomic Constraints" (four-bar linkage: la = 0.8, lb = 2,
   lc = 1, ln = 2, m = 1, g = 9.81, q1 = 10 deg).
   https://moorepants.github.io/learn-multibody-dynamics/
"""

import time as _time
from types import SimpleNamespace

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import LoopJoint, SpringDamperActuator, animate, simulate
from sympy_loads.examples._report import (
    joint_force_outputs, largest_force_rows, one_line, parser,
    plot_joint_forces, plot_residual, print_table, save_animation_gif,
    save_figure, work)

#: Moore's numbers, plus the spring-damper added by this example.
PARAMETERS = {'la': 0.8, 'lb': 2.0, 'lc': 1.0, 'ln': 2.0, 'm': 1.0,
              'g': 9.81, 'k': 20.0, 'c': 0.5, 'l0': 2.5}
#: Legend entries of the pins in the joint-force figure.
JOINT_LABELS = {'P1': 'P1 (ground on crank)', 'P2': 'P2 (crank on coupler)',
                'P3': 'P3 (coupler on rocker)',
                'P4': 'P4, the loop joint (ground on rocker)'}


def _link(name, frame, mass):
    """A link of the linkage: a rigid body whose mass (possibly zero) sits
    at its mass center, with no rotational inertia."""
    center = me.Point(f'{name}_mass_center')
    return me.RigidBody(name, center, frame, mass,
                        (me.inertia(frame, 0, 0, 0), center))


def build_model():
    """Return a namespace with the ``System`` of the four-bar
    (``system``), its ``KanesMethod`` (``kane``, the system's
    ``eom_method``), the joints (``joints``: the pins P1, P2, P3 and the
    loop joint P4), its symbols and the energy expressions (``kinetic``,
    ``potential``, ``energy``, ``damper_power``)."""
    q1, q2, q3 = me.dynamicsymbols('q1, q2, q3')
    u1, u2, u3 = me.dynamicsymbols('u1, u2, u3')
    la, lb, lc, ln = sm.symbols('l_a, l_b, l_c, l_n')
    m, g, k, c, l0 = sm.symbols('m, g, k, c, l_0')
    t = me.dynamicsymbols._t

    ground = me.RigidBody('ground')
    N = ground.frame
    A, B, C = sm.symbols('A B C', cls=me.ReferenceFrame)
    # the crank's mass center is P2, the coupler's P3, the rocker's P4
    crank, coupler, rocker = (_link('crank', A, m), _link('coupler', B, m),
                              _link('rocker', C, 0))
    pins = [me.PinJoint('P1', ground, crank, q1, u1, child_point=-la*A.x,
                        joint_axis=N.z),
            me.PinJoint('P2', crank, coupler, q2, u2, child_point=-lb*B.x,
                        joint_axis=A.z),
            me.PinJoint('P3', coupler, rocker, q3, u3,
                        child_point=-lc*C.x, joint_axis=B.z)]
    loop = LoopJoint('P4', ground, rocker, parent_point=ln*N.x,
                     child_point=rocker.masscenter, kind='pin',
                     joint_axis=N.z)

    system = me.System.from_newtonian(ground)
    system.add_bodies(crank, coupler, rocker)
    system.add_joints(*pins, loop)
    system.add_holonomic_constraints(*loop.holonomic_constraints)
    system.q_ind, system.q_dep = [q1], [q2, q3]
    system.u_ind, system.u_dep = [u1], [u2, u3]
    system.apply_uniform_gravity(-g*N.y)
    P1, P2, P3, P4 = (ground.masscenter, crank.masscenter,
                      coupler.masscenter, rocker.masscenter)
    pathway = me.LinearPathway(P1, P3)
    system.add_actuators(SpringDamperActuator(pathway, stiffness=k,
                                              damping=c, free_length=l0))
    system.form_eoms()

    qdot_to_u = {q1.diff(t): u1, q2.diff(t): u2, q3.diff(t): u3}
    kinetic = sum(b.kinetic_energy(N) for b in (crank, coupler))
    kinetic = kinetic.xreplace(qdot_to_u)
    potential = (m*g*(P2.pos_from(P1).dot(N.y) + P3.pos_from(P1).dot(N.y))
                 + k*(pathway.length - l0)**2/2)
    damper_power = -c*pathway.extension_velocity.xreplace(qdot_to_u)**2
    symbols = dict(la=la, lb=lb, lc=lc, ln=ln, m=m, g=g, k=k, c=c, l0=l0)
    return SimpleNamespace(
        system=system, kane=system.eom_method, joints=(*pins, loop),
        loop=loop, q=(q1, q2, q3), u=(u1, u2, u3), symbols=symbols,
        fh=sm.Matrix(loop.holonomic_constraints), kinetic=kinetic,
        potential=potential, energy=kinetic + potential,
        damper_power=damper_power, frames=(N, A, B, C),
        points=(P1, P2, P3, P4))


def constants_of(model, **overrides):
    """Map the model's symbols to :data:`PARAMETERS` (with overrides)."""
    values = dict(PARAMETERS, **overrides)
    return {model.symbols[name]: value for name, value in values.items()}


def initial_conditions(model, q1_deg=10.0):
    """Moore's start: q1 = 10 deg at rest; q2, q3 are the guesses of the
    elbow-up assembly (solved for by :func:`simulate`)."""
    q1, q2, q3 = model.q
    u1, u2, u3 = model.u
    return {q1: np.deg2rad(q1_deg), q2: np.deg2rad(5.0),
            q3: np.deg2rad(-150.0), u1: 0.0}


def joint_forces(model):
    """``{joint name: force Vector}``: the force the parent exerts on the
    child in each pin (:func:`~sympy_loads.joint_reactions` of the tree
    pins P1, P2, P3, the multipliers of the loop joint P4). They contain
    the loop's multipliers, which :func:`simulate` evaluates along the
    run. The massless rocker is a two-force member: P3 and P4 carry the
    same force, in opposite senses on it."""
    from sympy_loads import joint_reactions
    forces = {j.name: joint_reactions(j, model.system).force
              for j in model.joints[:-1]}
    forces[model.loop.name] = model.loop.force
    return forces


def run(duration=10.0, samples_per_second=200, reactions=True,
        **overrides):
    """Simulate the four-bar and return ``(model, result, table)``;
    ``table`` is a list of (label, value) rows of the summary. With
    ``reactions`` the outputs also hold the force in every pin
    (:func:`joint_forces`, components ``F_<pin>_x``, ``F_<pin>_y`` along
    ``N.x``, ``N.y``)."""
    model = build_model()
    constants = constants_of(model, **overrides)
    t_eval = np.linspace(0.0, duration,
                         int(round(duration*samples_per_second)) + 1)
    outputs = {'energy': model.energy, 'damper_power': model.damper_power}
    if reactions:
        outputs.update(joint_force_outputs(joint_forces(model),
                                           model.frames[0]))
    start = _time.perf_counter()
    result = simulate(model.system, (0.0, duration),
                      initial_conditions(model), constants, t_eval=t_eval,
                      outputs=outputs)
    wall = _time.perf_counter() - start
    table = summary(result, wall)
    if reactions:
        table += largest_force_rows(result, model.joints, 'pin')
    return model, result, table


def summary(result, wall_time):
    """Rows (label, value) of the summary table: constraint residual and
    energy balance E(t) - E(0) - (work of the damper), relative to the
    energy.

    The damper's work is its power integrated over the samples by
    Simpson's rule (``cumulative_simpson`` of SciPy), whose
    error is far below the integrator's at 200 samples per second: the
    balance error measures the simulation (about ``rtol``), not the check.
    """
    energy = result.outputs['energy']
    dissipated = work(result.outputs['damper_power'], result.t)
    balance = energy - energy[0] - dissipated
    scale = max(np.max(np.abs(energy - energy[0])), abs(energy[0]), 1.0)
    return [
        ('simulated time [s]', f'{result.t[-1]:.3f}'),
        ('wall time [s]', f'{wall_time:.2f}'),
        ('RHS evaluations', f'{result.nfev}'),
        ('max |constraint residual| [m]',
         f'{np.max(result.constraint_residual):.2e}'),
        ('max |velocity residual| [m/s]',
         f'{np.max(result.velocity_residual):.2e}'),
        ('energy at start [J]', f'{energy[0]:.6f}'),
        ('energy at end [J]', f'{energy[-1]:.6f}'),
        ('work of the damper [J]', f'{dissipated[-1]:.6f}'),
        ('energy balance error (relative)',
         f'{np.max(np.abs(balance))/scale:.2e}'),
    ]


def plot(model, result, output_dir):
    """Save ``four_bar.png`` (angles, energy, constraint residual) in
    ``output_dir`` and return its path."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    for j, name in enumerate(result.q_names):
        axes[0].plot(result.t, np.rad2deg(result.q[:, j]), label=name)
    axes[0].set_ylabel('angle [deg]')
    # above the axes: the curves fill the whole plot
    axes[0].legend(ncol=3, loc='lower right', bbox_to_anchor=(1.0, 1.0),
                   frameon=False, fontsize='small')
    axes[1].plot(result.t, result.outputs['energy'])
    axes[1].set_ylabel('energy [J]')
    plot_residual(axes[2], result)
    return save_figure(fig, 'Four-bar linkage with gravity and a '
                       'spring-damper', output_dir, 'four_bar.png')


def save_animation(model, result, output_dir, fps=25, dpi=100):
    """Save ``four_bar.gif`` (the linkage P1-P2-P3-P4 moving in real time
    on its ground pivots P1 and P4, the path of the joint P3 traced) in
    ``output_dir``; return its path.

    Examples
    ========

    >>> import tempfile
    >>> from PIL import Image
    >>> from sympy_loads.examples import four_bar
    >>> model, result, _ = four_bar.run(duration=0.4)
    >>> path = four_bar.save_animation(model, result, tempfile.mkdtemp())
    >>> Image.open(path).n_frames       # 0.4 s at 25 frames per second
    11
    """
    
    import matplotlib
    matplotlib.use('Agg')
    N = model.frames[0]
    P1, P2, P3, P4 = model.points
    anim = animate(result, [P1, P2, P3, P4], N, fps=fps, trace=P3,
                   title='Four-bar linkage (Moore), gravity along -N.y',
                   figsize=(6, 5), units='m', ground=[P1, P4])
    return save_animation_gif(anim, output_dir, 'four_bar.gif', dpi)


def main(argv=None):
    """Command-line entry point; returns ``(result, table)``."""
    args = parser('python -m sympy_loads.examples.four_bar',
                  one_line(__doc__), 10.0, animate=True).parse_args(argv)
    model, result, table = run(args.duration)
    print_table('Four-bar linkage (Moore) with gravity and a spring-damper',
                table)
    if not args.no_plot:
        print(f'plot saved to {plot(model, result, args.output)}')
        path = plot_joint_forces(
            result, [j.name for j in model.joints],
            'Four-bar linkage: force in each pin', args.output,
            'four_bar_joint_forces.png', labels=JOINT_LABELS)
        print(f'plot saved to {path}')
    if args.animate:
        print(f'animation saved to '
              f'{save_animation(model, result, args.output)}')
    return result, table


if __name__ == '__main__':
    main()
