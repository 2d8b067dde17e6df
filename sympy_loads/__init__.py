"""sympy_loads: loads, force systems, generalized forces and holonomic
constraint solving for :mod:`sympy.physics.mechanics`.

Modules are imported in dependency order (force systems, loads,
generalized forces, constraints, simulation); ``__all__`` is explicit.
"""

from .force_systems import (Couple, Replacement, are_equivalent, moment,
                            resultant)
from .friction import (SIGN_METHODS, SlidingFriction, coulomb_friction,
                       friction_law, friction_magnitude,
                       sliding_friction_force, smooth_sign,
                       stribeck_friction, viscous_friction)
from .actuators import (RotationalSpringDamperActuator,
                        SpringDamperActuator)
from .aerodynamics import AerodynamicDrag
from .gravitation import GravitationalAttraction
from .contact import (DAMPING_MODELS, HuntCrossleyContact,
                      damping_from_restitution, effective_restitution,
                      hertz_stiffness, hysteresis_factor)
from .generalized_forces import (generalized_active_forces,
                                 generalized_inertia_forces,
                                 is_noncontributing,
                                 nonholonomic_partial_velocities,
                                 partial_velocities)
from .joints import LoopJoint
from .joint_friction import JointFriction, JointReaction, joint_reactions
from .constraints import (ConstraintAnalysis, ConstraintSolverError,
                          HolonomicConstraintSolver)
from .impacts import ContactInterval, Impact, ImpactRecord
from .simulation import (PartitionRecord, Simulation, SimulationError,
                         SimulationResult, simulate)
from .linear import EquilibriumError, LinearModel, equilibrium, linearize
from .parameter_study import results_table, simulate_many
from .animation import animate, point_positions, save_gif

__version__ = '0.1.0'

__all__ = [
    # force_systems
    'resultant', 'moment', 'Couple', 'Replacement', 'are_equivalent',
    # actuators
    'SpringDamperActuator', 'RotationalSpringDamperActuator',
    # friction
    'smooth_sign', 'SIGN_METHODS', 'coulomb_friction', 'viscous_friction',
    'stribeck_friction', 'friction_law', 'friction_magnitude',
    'sliding_friction_force', 'SlidingFriction',
    # generalized_forces
    'partial_velocities', 'nonholonomic_partial_velocities',
    'generalized_active_forces', 'generalized_inertia_forces',
    'is_noncontributing',
    # aerodynamics
    'AerodynamicDrag',
    # gravitation
    'GravitationalAttraction',
    # contact
    'HuntCrossleyContact', 'damping_from_restitution', 'hysteresis_factor',
    'effective_restitution', 'hertz_stiffness', 'DAMPING_MODELS',
    # joints
    'LoopJoint',
    # joint_friction
    'joint_reactions', 'JointReaction', 'JointFriction',
    # constraints
    'HolonomicConstraintSolver', 'ConstraintAnalysis', 'ConstraintSolverError',
    # impacts
    'ContactInterval', 'Impact', 'ImpactRecord',
    # simulation
    'simulate', 'Simulation', 'SimulationResult', 'SimulationError',
    'PartitionRecord',
    # linear
    'linearize', 'equilibrium', 'LinearModel', 'EquilibriumError',
    # parameter_study
    'simulate_many', 'results_table',
    # animation
    'point_positions', 'animate', 'save_gif',
]
