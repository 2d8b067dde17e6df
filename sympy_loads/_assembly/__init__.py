"""Private: the numeric model of a ``System`` whose equations of motion
have not been formed (``form_eoms()`` not called).

SymPy's ``form_eoms()`` forms Kane's equations symbolically; for a chain of
joints the velocity of a link written out in the inertial frame, and with
it the time of the derivation, doubles with each link. This package
derives what :mod:`sympy_loads._simulation` needs without that: the
kinematic tree is read from the frames and points (:mod:`.tree`), the motion
of each frame and point is composed link by link as shared SymEngine
expressions (:mod:`.kinematics`), and the mass matrix and forcing are the
sums of Kane's method over the bodies and loads (:mod:`.equations`),
which code generation evaluates with common subexpressions eliminated.
:func:`unformed_kanes_method` gives the rest of the model (coordinates,
speeds, kinematic equations, constraints) as a ``KanesMethod`` whose
``kanes_equations()`` is never called.
"""

from .model import UnformedKanesMethod, unformed_kanes_method
from .equations import Assembly

__all__ = ['Assembly', 'UnformedKanesMethod', 'unformed_kanes_method']
