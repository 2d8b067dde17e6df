"""Private: the ``KanesMethod`` of an unformed ``System`` (its coordinates,
speeds, kinematic equations and constraints; never its equations)."""

import weakref

import sympy as sm
from sympy.physics.mechanics import KanesMethod, dynamicsymbols
from sympy.solvers.solveset import linear_eq_to_matrix

from .._utils import _internal_prefix

try:
    import symengine as _symengine
except ImportError:  # pragma: no cover - symengine is a run-time dependency
    _symengine = None

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


def _partial_derivatives(rows, symbols):
    """``{(i, j): d rows[i] / d symbols[j]}`` for the entries that are not
    zero (``rows``: SymPy expressions, ``symbols``: SymPy symbols).
    Through SymEngine, which differentiates the rows of IFToMM's
    N-four-bar at N = 40 (240 entries) in 0.05 s against 0.65 s for
    SymPy's ``diff``; a row SymEngine cannot convert goes to SymPy."""
    found = {}
    for i, row in enumerate(rows):
        free = row.free_symbols
        present = [(j, s) for j, s in enumerate(symbols) if s in free]
        if not present:
            continue
        try:
            converted = _symengine.sympify(row)
        except (AttributeError, TypeError, ValueError,
                NotImplementedError):     # (no SymEngine: AttributeError)
            converted = None
        for j, s in present:
            if converted is None:
                entry = row.diff(s)
            else:
                entry = sm.sympify(
                    converted.diff(_symengine.sympify(s))._sympy_())
            if entry != 0:
                found[i, j] = entry
    return found


class UnformedKanesMethod(KanesMethod):
    """A ``KanesMethod`` made from a ``System`` without forming its
    equations: it holds the coordinates, speeds, kinematic differential
    equations, constraints, bodies and loads; the numeric model assembles
    the equations of motion from the bodies and loads
    (:mod:`sympy_loads._assembly.equations`). ``kanes_equations()`` is
    refused: form the ``System``'s equations (``form_eoms()``) instead.

    One departure from ``KanesMethod``'s arguments: ``velocity_constraints``
    are the constraints *besides* the time derivatives of the
    ``configuration_constraints``, which this class derives itself (see
    :meth:`_initialize_constraint_matrices`); a ``System`` whose velocity
    constraints were set explicitly passes them all and
    ``derive_holonomic=False``."""

    def __init__(self, *args, derive_holonomic=True, **kwargs):
        self._derive_holonomic = derive_holonomic
        super().__init__(*args, **kwargs)

    @property
    def derives_holonomic_rates(self):
        """True where the velocity constraints of the holonomic constraints
        are derived here from them (and so agree with them)."""
        return self._derive_holonomic

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

    def _initialize_constraint_matrices(self, config, vel, acc,
                                        linear_solver='LU'):
        """The matrices of the constraints, as SymPy 1.14's ``KanesMethod``
        makes them (``f_h = 0``; ``k_nh u + f_nh = 0``), without its
        symbolic time derivatives. The velocity form of each holonomic
        constraint ``f(q, t)`` is ``(df/dq) q' + df/dt`` with ``q'`` from
        the kinematic equations (``q' = -k_ku u - f_k``): the partial
        derivatives are taken with respect to plain symbols. SymPy's
        ``Matrix.diff`` in time of the holonomic constraints, then its
        ``linear_eq_to_matrix`` and the time derivative of ``k_nh`` for the
        acceleration constraints, took about 2 s of the 8 s to the first
        result of IFToMM's N-four-bar at N = 40.

        The acceleration constraints are not formed: the numeric model
        derives them as code from ``k_nh`` and ``f_nh``
        (``_simulation.numeric_model``), and SymPy reads ``_k_dnh`` and
        ``_f_dnh`` only in ``kanes_equations()`` and ``to_linearizer()``,
        which this class refuses or cannot reach (no ``Fr``); they are
        ``None``. SymPy keeps these matrices in private attributes; this
        method and :meth:`_initialize_kindiffeq_matrices` are the only
        places in the package that set them
        (``tests/test_assembly_tree.py`` compares them with SymPy's)."""
        if acc:
            raise ValueError('the acceleration constraints of an unformed '
                             'System are derived, not given.')
        config = list(config or [])
        if len(self._qdep) != len(config):      # private in SymPy 1.14
            raise ValueError('There must be an equal number of dependent '
                             'coordinates and configuration constraints.')
        self._f_h = sm.Matrix(config) if config else sm.Matrix()
        n = len(self.u)
        k_rows, f_rows = [], []
        if self._derive_holonomic and config:
            k_rows, f_rows = self._holonomic_velocity_rows(config)
        vel = list(vel or [])
        if vel:
            vel = [sm.sympify(v).xreplace(self._qdot_u_map) for v in vel]
            k_given, f_given = linear_eq_to_matrix(vel, list(self.u))
            k_rows += [list(k_given.row(i)) for i in range(len(vel))]
            f_rows += [-f_given[i] for i in range(len(vel))]
        if len(f_rows) != len(self._udep):      # private in SymPy 1.14
            raise ValueError('There must be an equal number of dependent '
                             'speeds and velocity constraints.')
        self._k_dnh = self._f_dnh = None        # not formed (see above)
        if f_rows:
            self._k_nh = sm.Matrix(len(f_rows), n, lambda i, j:
                                   k_rows[i][j])
            self._f_nh = sm.Matrix(f_rows)
            p = n - len(f_rows)
            self._Ars = -linear_solver(self._k_nh[:, p:], self._k_nh[:, :p])
        else:
            self._k_nh = self._f_nh = self._Ars = sm.Matrix()

    def _holonomic_velocity_rows(self, config):
        """The rows of ``k_nh`` and ``f_nh`` of the holonomic constraints
        ``config`` (see :meth:`_initialize_constraint_matrices`)."""
        time = dynamicsymbols._t
        q = list(self.q)
        config = [sm.sympify(c) for c in config]
        # plain symbols under a prefix no symbol of the constraints has
        # (named ones: SymEngine before 0.14 gives a SymPy Dummy back as
        # another Dummy, which would stay in the rows)
        prefix = _internal_prefix(set().union(*(c.free_symbols
                                                for c in config)))
        names = [sm.Symbol(f'{prefix}q{i}') for i in range(len(q))]
        rows = [c.xreplace(dict(zip(q, names))) for c in config]
        partials = _partial_derivatives(rows, names)
        # q'_j = sum_k rate[j][k] u_k + rest[j]
        rate = [{k: -self._k_ku[j, k] for k in range(len(self.u))
                 if self._k_ku[j, k] != 0} for j in range(len(q))]
        rest = [-self._f_k[j] for j in range(len(q))]
        back = dict(zip(names, q))
        k_rows = [[sm.S.Zero] * len(self.u) for _ in rows]
        f_rows = [row.diff(time) if time in row.free_symbols else sm.S.Zero
                  for row in rows]
        for (i, j), partial in partials.items():
            partial = partial.xreplace(back)
            for k, coefficient in rate[j].items():
                k_rows[i][k] += partial * coefficient
            if rest[j] != 0:
                f_rows[i] += partial * rest[j]
        f_rows = [f.xreplace(back) for f in f_rows]
        return k_rows, f_rows


# System -> (fingerprint, UnformedKanesMethod), held weakly by the System
_MODELS = weakref.WeakKeyDictionary()


def _explicit_velocity_constraints(system):
    """The velocity constraints set on ``system`` itself, or ``None`` where
    SymPy derives them from its holonomic and nonholonomic constraints at
    each reading of ``system.velocity_constraints``. SymPy 1.14 says which
    only through the private ``_vel_constrs``; this is the one place in
    the package that reads it."""
    return system._vel_constrs                  # private in SymPy 1.14


def _fingerprint(system):
    """What the unformed model is made from; compared with ``==``."""
    # (the nonholonomic constraints, not velocity_constraints, which SymPy
    # derives anew from the holonomic ones at each reading)
    explicit = _explicit_velocity_constraints(system)
    return (tuple(system.q_ind), tuple(system.q_dep), tuple(system.u_ind),
            tuple(system.u_dep), tuple(system.kdes),
            tuple(system.holonomic_constraints),
            tuple(system.nonholonomic_constraints),
            None if explicit is None else tuple(explicit),
            tuple(system.bodies),
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
    explicit = _explicit_velocity_constraints(system)
    kane = UnformedKanesMethod(
        system.frame, q_ind=list(system.q_ind), u_ind=list(system.u_ind),
        kd_eqs=list(system.kdes), q_dependent=list(system.q_dep),
        u_dependent=list(system.u_dep),
        configuration_constraints=list(system.holonomic_constraints),
        velocity_constraints=list(system.nonholonomic_constraints
                                  if explicit is None else explicit),
        forcelist=list(loads) or None, bodies=list(system.bodies),
        explicit_kinematics=False, kd_eqs_solver=_kinematics_solver,
        constraint_solver=_no_symbolic_inverse,
        derive_holonomic=explicit is None)
    _MODELS[system] = (fingerprint, kane)
    return kane
