"""sympy_loads: loads, force systems, generalized forces and holonomic
constraint solving for :mod:`sympy.physics.mechanics`.

Each module adds its public names below; ``__all__`` is explicit.
"""

from .force_systems import (Couple, Replacement, are_equivalent, moment,
                            resultant)
from .friction import SIGN_METHODS, smooth_sign

__version__ = '0.1.0'

__all__ = [
    # force_systems
    'resultant', 'moment', 'Couple', 'Replacement', 'are_equivalent',
    # friction
    'smooth_sign', 'SIGN_METHODS',
]
