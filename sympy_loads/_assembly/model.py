"""Private: the ``KanesMethod`` of an unformed ``System`` (its coordinates,
speeds, kinematic equations and constraints; never its equations)."""

import weakref

import sympy as sm
from sympy.physics.mechanics import KanesMethod

__all__ = []


def _no_symbolic_inverse(B_dep, B_ind):
    """The ``linear_solver`` given to ``KanesMethod`` for its ``_Ars``
    (``-B_dep^-1 B_ind``, used only by ``kanes_equations()``, which is
    never called here): zeros of the right shape instead of a symbolic
    inverse; the engine eliminates the dependent speeds numerically."""
    return sm.zeros(B_dep.cols, B_ind.cols)


def _kinematics_solver(A, b):
    """The ``kd_eqs_solver`` given to ``KanesMethod``: ``A^-1 b`` for the
    coefficients ``A`` of ``q'`` in the kinematic equations. A diagonal
    ``A`` (``q' = u``, as joints write them) is divided out, row by row;
    SymPy's symbolic LU of a 40 x 40 identity takes seconds. Any other
    ``A`` goes to that LU."""
    if A.is_diagonal():
        return sm.Matrix(b.rows, b.cols, lambda i, j: b[i, j] / A[i, i])
    return A.LUsolve(b)


class UnformedKanesMethod(KanesMethod):
    """A ``KanesMethod`` made from a ``System`` without forming its
    equations: it holds the coordinates, speeds, kinematic differential
    equations, constraints, bodies and loads; the numeric model assembles
    the equations of motion from the bodies and loads
    (:mod:`sympy_loads._assembly.equations`). ``kanes_equations()`` is
    refused: form the ``System``'s equations (``form_eoms()``) instead."""

    def kanes_equations(self, bodies=None, loads=None):
        raise TypeError('the equations of this model are assembled '
                        'numerically; call form_eoms() on the System for '
                        'symbolic ones.')


# System -> (fingerprint, UnformedKanesMethod), held weakly by the System
_MODELS = weakref.WeakKeyDictionary()


def _fingerprint(system):
    """What the unformed model is made from; compared with ``==``."""
    return (tuple(system.q_ind), tuple(system.q_dep), tuple(system.u_ind),
            tuple(system.u_dep), tuple(system.kdes),
            tuple(system.holonomic_constraints),
            tuple(system.velocity_constraints), tuple(system.bodies),
            tuple(system.loads), tuple(system.actuators),
            tuple(system.u_aux), system.frame)


def unformed_kanes_method(system):
    """The :class:`UnformedKanesMethod` of ``system`` (made once per
    content of the System and kept with it). ValueError for what the
    assembled equations do not cover (auxiliary speeds)."""
    fingerprint = _fingerprint(system)
    found = _MODELS.get(system)
    if found is not None and found[0] == fingerprint:
        return found[1]
    if not len(system.q) or not len(system.u):
        raise ValueError(
            'model: the System has no generalized coordinates or speeds; '
            'add them (add_coordinates and add_speeds, or joints) before '
            'simulate().')
    if len(system.u_aux):
        raise ValueError(
            'model: the System has auxiliary speeds (u_aux); simulate() '
            'assembles the equations of an unformed System without them. '
            'Call model.form_eoms() before simulate().')
    loads = tuple(system.loads) + tuple(
        load for actuator in system.actuators
        for load in actuator.to_loads())
    kane = UnformedKanesMethod(
        system.frame, q_ind=list(system.q_ind), u_ind=list(system.u_ind),
        kd_eqs=list(system.kdes), q_dependent=list(system.q_dep),
        u_dependent=list(system.u_dep),
        configuration_constraints=list(system.holonomic_constraints),
        velocity_constraints=list(system.velocity_constraints),
        forcelist=list(loads) or None, bodies=list(system.bodies),
        explicit_kinematics=False, kd_eqs_solver=_kinematics_solver,
        constraint_solver=_no_symbolic_inverse)
    _MODELS[system] = (fingerprint, kane)
    return kane
