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

    def _initialize_kindiffeq_matrices(self, kdeqs, linear_solver='LU'):
        """The matrices of the kinematic equations ``k_ku u + k_kqdot q' +
        f_k = 0``, as SymPy 1.14's ``KanesMethod`` makes them, without its
        ``Matrix.jacobian``: differentiating each of ``n^2`` entries with
        respect to a ``q'`` takes seconds at 80 coordinates (IFToMM's
        N-four-bar at N = 40). Here ``q'`` and ``u`` become plain symbols
        and only the entries that contain them are differentiated.

        SymPy keeps these matrices in private attributes, which its other
        methods read; this method is the only place in the package that
        sets them, with the same names and meaning as SymPy's method
        (``tests/test_assembly_tree.py`` compares the two). Equations not
        linear in ``q'`` and ``u`` go to SymPy's method, which says so."""
        if not kdeqs or len(kdeqs) != len(self.q):
            return super()._initialize_kindiffeq_matrices(kdeqs,
                                                          linear_solver)
        qdot, u = list(self._qdot), list(self.u)     # private in SymPy 1.14
        names = [sm.Dummy() for _ in qdot + u]
        plain = dict(zip(qdot + u, names))
        rows = [sm.sympify(e).xreplace(plain) for e in kdeqs]
        n, m = len(rows), len(u)
        k_kqdot, k_ku = sm.zeros(n, n), sm.zeros(n, m)
        for i, row in enumerate(rows):
            for j, name in enumerate(names):
                if name in row.free_symbols:
                    entry = row.diff(name)
                    if entry.free_symbols & set(names):
                        # not linear: SymPy's method raises its error
                        return super()._initialize_kindiffeq_matrices(
                            kdeqs, linear_solver)
                    if j < n:
                        k_kqdot[i, j] = entry
                    else:
                        k_ku[i, j - n] = entry
        f_k = sm.Matrix(rows).xreplace(dict.fromkeys(names, 0))
        uaux_zero = dict.fromkeys(self._uaux, 0)     # private in SymPy 1.14
        self._f_k_implicit = f_k.xreplace(uaux_zero)
        self._k_ku_implicit = k_ku.xreplace(uaux_zero)
        self._k_kqdot_implicit = k_kqdot
        f_k_explicit = _kinematics_solver(k_kqdot, f_k)
        k_ku_explicit = _kinematics_solver(k_kqdot, k_ku)
        self._qdot_u_map = {
            qd: -(sm.Add(*[k_ku_explicit[i, j] * u[j] for j in range(m)
                           if k_ku_explicit[i, j] != 0]) + f_k_explicit[i])
            for i, qd in enumerate(qdot)}
        self._f_k = f_k_explicit.xreplace(uaux_zero)
        self._k_ku = k_ku_explicit.xreplace(uaux_zero)
        self._k_kqdot = sm.eye(len(qdot))


# System -> (fingerprint, UnformedKanesMethod), held weakly by the System
_MODELS = weakref.WeakKeyDictionary()


def _fingerprint(system):
    """What the unformed model is made from; compared with ``==``."""
    # (the nonholonomic constraints, not velocity_constraints, which SymPy
    # derives anew from the holonomic ones at each reading)
    return (tuple(system.q_ind), tuple(system.q_dep), tuple(system.u_ind),
            tuple(system.u_dep), tuple(system.kdes),
            tuple(system.holonomic_constraints),
            tuple(system.nonholonomic_constraints), tuple(system.bodies),
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
