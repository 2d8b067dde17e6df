"""Private: rigid impacts inside :func:`sympy_loads.simulate` (see
:mod:`sympy_loads.impacts` for the law and the public class).

:func:`run` integrates from impact to impact: each :class:`Impact` becomes
an event (its gap crossing zero downwards) at which
:meth:`ImpactEngine.resolve` applies the jump of the speeds. The compiled
DOP853 stepping (:func:`.integrators.integrate`) locates it and goes on
from the new state with its last step size within one run; SciPy's
``solve_ivp`` (where the right-hand side calls Python) ends at it as a
terminal event and :func:`run` restarts it from the new state. The jump is
computed numerically from the model's generated functions: the mass matrix
``M`` (the unconstrained one where there are dependent speeds), the
velocity constraints ``K u + k = 0`` and, generated once per set of
impacts, each impact's gap, normal speed and impulse directions.

With dependent speeds the speeds are ``u = C u_i`` on the constraint
manifold, ``C = [I; -K_d^-1 K_i]`` (rows in ``model.u`` order), and the
constraint reactions drop out of the impulse equations projected on ``C``:

    (C^T M C) du_i = C^T w P,      w_law . C du_i = -(1 + e) v_n^-,

so ``P = -(1 + e) v_n^- / (w_law^T C (C^T M C)^-1 C^T w)`` and ``u+ = u-
+ C du_i``, which satisfies the velocity constraints exactly.
"""

import math
from typing import NamedTuple

import numpy as np
import sympy as sm
from sympy.physics.mechanics import find_dynamicsymbols

from .._errors import SimulationError
from .._numeric import eom_blocks
from .contact_problems import solve_impact
from .integrators import _EPS, Outcome, integrate
from .lcp import LCPError
from .numeric_model import _TIME
from .problem import format_state
from .unilateral import ContactCloses, LastingContacts

__all__ = []

# impacts per simulate() call beyond which the run stops (never hangs)
MAX_IMPACTS = 100_000
# sequential impulses at one instant (simultaneous contacts) per impact
MAX_SEQUENTIAL = 100
# rounds of sequential impulses per impact after which the closed contacts
# the impulses drive in join them without rebound (a row of touching balls
# with e < 1 passes the momentum to and fro, ever less; with e = 1 the
# sequence ends in n - 1 rounds, as Newton's cradle)
JOIN_AFTER = 10
# records of impacts resolved in compiled code per return to Python
KERNEL_RECORDS = 64


def _varies(expr):
    """Whether ``expr`` depends on the state or time (dynamicsymbols)."""
    return bool(find_dynamicsymbols(sm.sympify(expr)))


def _source(expr):
    """Where a value came from, for messages."""
    return ('at the start' if _varies(expr) else 'from the constants'
            if sm.sympify(expr).free_symbols else 'as given')


def impact_outputs(nm, impacts):
    """The output specification (:meth:`NumericModel.output_function`) of
    the impacts' gaps, normal speeds, restitution coefficients and impulse
    directions (then their radii), derived and generated once per model
    and list of impacts (kept with the model, :meth:`NumericModel.derived`:
    a sweep with new Impact objects per call does not keep them all);
    ``ValueError`` names an impact whose expressions contain unknown
    symbols."""
    return nm.derived(('impacts', tuple(impacts)),
                      lambda: _impact_outputs(nm, impacts))


def _impact_outputs(nm, impacts):
    kinematics = nm.kindiff
    known = set(nm.q) | set(nm.u) | set(nm.specified) | set(nm.friction)
    outputs = {}
    for i, impact in enumerate(impacts):
        gap = sm.sympify(impact.gap)
        speed = sm.sympify(impact.normal_speed).xreplace(kinematics)
        speed = speed.xreplace(nm.aux_zero)
        unknown = {s for s in find_dynamicsymbols(sm.Matrix([gap, speed]))
                   if s not in known}
        if unknown:
            raise ValueError(
                f'impacts[{i}] ({impact.name}): its gap or normal speed '
                f'contains {sorted(map(str, unknown))}, which are neither '
                f'coordinates, speeds nor specified inputs of the model.')
        for label, expr in (('restitution', impact.restitution),
                            ('radius', impact.radius)):
            expr = sm.sympify(expr).xreplace(kinematics)
            unknown = {s for s in find_dynamicsymbols(expr)
                       if s not in known}
            if unknown:
                raise ValueError(
                    f'impacts[{i}] ({impact.name}): its {label} {expr} '
                    f'contains {sorted(map(str, unknown))}, which are '
                    f'neither coordinates, speeds nor specified inputs of '
                    f"the model's equations (a function of time given in "
                    f"simulate()'s specified= must appear in the "
                    f'equations; give a constant {label} or one that '
                    f'depends on the state).')
        law, impulse = impact.impulse_directions(nm.u, kinematics)
        outputs[f'gap{i}'] = gap
        outputs[f'vn{i}'] = speed
        outputs[f'e{i}'] = sm.sympify(impact.restitution)
        outputs[f'law{i}'] = sm.ImmutableMatrix(law.T)
        outputs[f'impulse{i}'] = sm.ImmutableMatrix(impulse.T)
    # after every impact's block (the compiled stepping reads the blocks):
    # the radii, checked at the start, then the contact blocks
    for i, impact in enumerate(impacts):
        outputs[f'radius{i}'] = sm.sympify(impact.radius)
    for i, impact in enumerate(impacts):
        outputs.update(_contact_block(nm, i, impact))
    return nm.output_function(outputs)


def _contact_block(nm, i, impact):
    """The outputs of impact ``i`` beyond the frictionless ones: its
    friction coefficient, slip speeds, the tangential rows of its law and
    impulse directions (zeros without friction) and the bias ``d/dt`` of
    its normal and slip speeds with ``u' = 0`` (the output function's
    row holds zeros for ``u'``; coordinate rates come from the kinematic
    equations). A specified input's rate is not known here: it is taken
    as zero and :func:`bias_known` says so."""
    kinematics = nm.kindiff
    mu = sm.sympify(impact.friction_coefficient)
    speeds = [sm.sympify(e).xreplace(kinematics).xreplace(nm.aux_zero)
              for e in (impact.normal_speed,) + impact.tangential_speeds]
    law, impulse = impact.contact_directions(nm.u, kinematics)
    if mu.is_zero:
        speeds[1:] = [sm.S.Zero, sm.S.Zero]
        law[1:, :] = sm.zeros(2, len(nm.u))
        impulse[1:, :] = sm.zeros(2, len(nm.u))
    rates = sm.Matrix([e.diff(_TIME) for e in speeds])
    rates = rates.xreplace(_specified_rates_zero(nm, rates))
    return {f'mu{i}': mu,
            f'vt{i}': sm.ImmutableMatrix(speeds[1:]),
            f'lawt{i}': sm.ImmutableMatrix(law[1:, :].T.reshape(
                2 * len(nm.u), 1)),
            f'impt{i}': sm.ImmutableMatrix(impulse[1:, :].T.reshape(
                2 * len(nm.u), 1)),
            f'bias{i}': sm.ImmutableMatrix(rates)}


def _specified_rates_zero(nm, exprs):
    """``{d r/dt: 0}`` for the specified inputs ``r`` whose rates occur
    in ``exprs``."""
    return {d: sm.S.Zero for d in sm.Matrix(exprs).atoms(sm.Derivative)
            if d.expr in set(nm.specified)}


def bias_known(nm, impacts):
    """Per impact, whether its acceleration bias is exact: False where its
    normal or slip speed depends on a specified input, whose rate the
    generated function does not have."""
    specified = set(nm.specified)
    known = []
    for impact in impacts:
        exprs = (impact.normal_speed,) + impact.tangential_speeds
        known.append(not any(find_dynamicsymbols(sm.sympify(e))
                             & specified for e in exprs))
    return np.array(known, dtype=bool)


class ContactState(NamedTuple):
    """The contact data of the impacts of a run at one state
    (:meth:`ImpactEngine.contact_state`): arrays over the ``k`` impacts.

    ``gap`` (k,), ``vn`` (k,) normal speeds, ``vt`` (k, 2) slip speeds
    along the tangents, ``e`` (k,) restitution, ``mu`` (k,) friction
    coefficients, ``law`` (k, 3, nu) the rows ``d(relative speed)/du``
    for ``[n, t1, t2]``, ``impulse`` (k, 3, nu) the generalized impulse
    per unit impulse along them, ``bias`` (k, 3) the relative
    accelerations at ``u' = 0``: the relative acceleration is
    ``law @ u' + bias``."""
    gap: np.ndarray
    vn: np.ndarray
    vt: np.ndarray
    e: np.ndarray
    mu: np.ndarray
    law: np.ndarray
    impulse: np.ndarray
    bias: np.ndarray


class ImpactEngine:
    """Event functions and jumps for the impacts of one simulate() call.

    ``spec`` is the output specification of :func:`impact_outputs`,
    ``extra`` the values of its extra constants, ``tolerance`` the gap
    below which a contact counts as closed at an event."""

    def __init__(self, problem, impacts, spec, extra, tolerance):
        self.problem = problem
        self.impacts = list(impacts)
        self.function = spec.function
        self.extra = np.asarray(extra, dtype=float)
        self.tolerance = tolerance
        nm = problem.nm
        self.nq, self.nu = problem.nq, problem.nu
        k = len(self.impacts)
        self.offsets = np.zeros(k)
        self.records = []
        self.largest = np.zeros(k)         # largest approach speed so far
        self.count = np.zeros(k, dtype=int)
        self._memo = (None, None)
        self._start = None        # (t, q, u, values) of check_start()
        self._rest = np.array([math.nan if impact.rest_speed is None else
                               float(impact.rest_speed)
                               for impact in self.impacts])
        self._relative = np.array([impact.RELATIVE_REST_SPEED
                                   for impact in self.impacts])
        # the input of the impacts' output function: x, the extra
        # constants, zeros for the speeds' derivatives
        self._row = np.concatenate([problem.x, self.extra,
                                    np.zeros(self.nu)])
        _, mass, forcing, _, _ = eom_blocks(
            self.nq, self.nu, len(nm.u_dep_idx), nm.kinematics_is_identity)
        self._mass = slice(mass, forcing)
        k = len(self.impacts)
        #: (k, 2) bool, the tangent rows in use (set by check_start)
        self.tangent_mask = np.zeros((k, 2), dtype=bool)
        #: (k,) bool, whether the acceleration bias is exact (no
        #: specified input in the contact's speeds)
        self.bias_known = bias_known(nm, self.impacts)
        self.frictional = False

    def check_start(self, t, q, u):
        """``ValueError`` for a restitution coefficient outside [0, 1] or
        an initial state that penetrates a plane. The impacts' values at
        the consistent start ``(t, q, u)`` are kept for :func:`run`'s first
        :meth:`resolve`."""
        self.tangent_mask = self._find_tangent_mask(t, q, u)
        # friction needs the impacts resolved here, not in compiled code
        self.frictional = bool(self.tangent_mask.any())
        values = self.values(t, q, u)
        self._start = (t, q, u, values)
        gap, _, e, _, _ = values
        k = len(self.impacts)
        radii = self._last[k * (3 + 2 * self.nu):k * (4 + 2 * self.nu)]
        for i, impact in enumerate(self.impacts):
            # a value that depends on the state is checked where it is
            # used (the restitution at each impact, _check_restitution)
            if not radii[i] >= 0.0:
                raise ValueError(
                    f'impacts[{i}] ({impact.name}): the radius '
                    f'{impact.radius} must be nonnegative, got '
                    f'{radii[i]:g} {_source(impact.radius)}.')
            if not 0.0 <= e[i] <= 1.0 and not _varies(impact.restitution):
                raise ValueError(
                    f'impacts[{i}] ({impact.name}): the restitution '
                    f'{impact.restitution} must be in [0, 1], got '
                    f'{e[i]:g} {_source(impact.restitution)}.')
            if not gap[i] >= -self.tolerance:
                raise ValueError(
                    f'impacts[{i}] ({impact.name}): the initial state '
                    f'penetrates the plane (gap {gap[i]:.6g} < 0 at t = '
                    f'{t:g}; {format_state(self.problem.nm.q, q)}).')

    # -- evaluation ------------------------------------------------------

    def state(self, t, y):
        """The consistent ``q, u`` of the integrator state ``y``."""
        problem = self.problem
        y = np.asarray(y, dtype=float)
        if not problem.partitioned:
            if not np.isfinite(y).all():
                problem.check_inputs(t, y)          # raises, naming it
            return y[:self.nq].copy(), y[self.nq:].copy()
        q, u, _, _ = problem.samples(np.array([t]), y[:, None])
        return q[0], u[0]

    def values(self, t, q, u):
        """``(gap, vn, e, law, impulse)``: arrays over the impacts (the
        last two of shape (k, nu))."""
        x = self.problem.input_vector(t, q, u)
        row = self._row
        row[:x.size] = x
        out = self._last = self.function(row)
        k, nu = len(self.impacts), self.nu
        per = 3 + 2 * nu
        block = out[:k * per].reshape(k, per)
        return (block[:, 0], block[:, 1], block[:, 2],
                block[:, 3:3 + nu], block[:, 3 + nu:])

    def contact_state(self, t, q, u):
        """The :class:`ContactState` of every impact at the consistent
        state ``(t, q, u)``."""
        gap, vn, e, law_n, impulse_n = self.values(t, q, u)
        k, nu = len(self.impacts), self.nu
        start = k * (4 + 2 * nu)
        block = self._last[start:start + k * (6 + 4 * nu)].reshape(
            k, 6 + 4 * nu)
        law = np.empty((k, 3, nu))
        impulse = np.empty((k, 3, nu))
        law[:, 0], impulse[:, 0] = law_n, impulse_n
        law[:, 1:] = block[:, 3:3 + 2 * nu].reshape(k, nu, 2).transpose(
            0, 2, 1)
        impulse[:, 1:] = block[:, 3 + 2 * nu:3 + 4 * nu].reshape(
            k, nu, 2).transpose(0, 2, 1)
        return ContactState(gap=gap.copy(), vn=vn.copy(),
                            vt=block[:, 1:3].copy(), e=e.copy(),
                            mu=block[:, 0].copy(), law=law,
                            impulse=impulse, bias=block[:, 3 + 4 * nu:].copy())

    def mass_basis(self, t, q, u):
        """``(M, C)``: the mass matrix (all speeds; the unconstrained one
        where there are dependent speeds) and ``C`` with ``u = C u_i`` on
        the velocity constraints, at the consistent state ``(t, q, u)``."""
        nm = self.problem.nm
        x = self.problem.input_vector(t, q, u)
        mass = np.asarray(nm.functions['eom'](x), dtype=float)[
            self._mass].reshape(self.nu, self.nu)
        return mass, self._speed_basis(x)

    def _find_tangent_mask(self, t, q, u):
        """(k, 2) bool: the tangent rows of the impacts' laws that are not
        identically zero (at three random states about ``(q, u)``), none
        where the friction coefficient is zero."""
        rng = np.random.default_rng(20261126)
        k = len(self.impacts)
        mask = np.zeros((k, 2), dtype=bool)
        mu = self.contact_state(t, q, u).mu
        for _ in range(3):
            state = self.contact_state(
                t, q + rng.uniform(-1, 1, q.shape),
                u + rng.uniform(-1, 1, u.shape))
            scale = 1e-12 * max(1.0, float(np.max(np.abs(state.law[:, 0]))))
            mask |= np.max(np.abs(state.law[:, 1:]), axis=2) > scale
        mask &= (mu != 0)[:, None]
        return mask

    def _values_of_state(self, t, y):
        key = (float(t), np.asarray(y, dtype=float).tobytes())
        if self._memo[0] != key:
            q, u = self.state(t, y)
            self._memo = (key, self.values(t, q, u))
        return self._memo[1]

    def event_values(self, t, y):
        """``(gaps, normal speeds)`` at the integrator state ``(t, y)``,
        the gaps plus the offsets set at the last restart: the terminal
        events of :func:`.integrators._ivp_with_impacts` (each gap
        crossing zero downwards)."""
        values = self._values_of_state(t, y)
        return values[0] + self.offsets, values[1]

    def kernel_arguments(self, t, y):
        """``(impact, row, out, g, k, per)`` for the compiled DOP853
        (:func:`._numeric.dop853.advance`): the address and data pointer
        of the impacts' output function, its input row (the extra
        constants in place), its output, ``g = [gaps at (t, y) plus
        offsets, offsets, normal speeds]``, the number of impacts and
        outputs per impact."""
        function, k = self.function, len(self.impacts)
        row = self._row.copy()
        return (np.array([function.address, function.data],
                         dtype=np.int64), row, np.empty(function.n_out),
                self.kernel_gaps(t, y), k, 3 + 2 * self.nu)

    def kernel_limits(self):
        """``limits`` of :func:`._numeric.dop853.strike`: the contact
        tolerance, then per impact its rest speed (NaN for none), relative
        rest speed, largest approach speed so far and impacts so far."""
        return np.concatenate([[self.tolerance], self._rest,
                               self._relative, self.largest, self.count])

    def kernel_records(self):
        """A buffer for the records of the impacts resolved in compiled
        code, one row per impact: ``[t, index, normal speed before, after,
        impulse, u before (nu), u after (nu)]``; no more rows than impacts
        left before :data:`MAX_IMPACTS` (the next one is Python's, which
        stops the run)."""
        rows = max(0, min(KERNEL_RECORDS, MAX_IMPACTS - len(self.records)))
        return np.empty((rows, 5 + 2 * self.nu))

    def absorb(self, records, n, limits, g):
        """Take the first ``n`` rows of ``records``, the counts and
        largest speeds in ``limits`` and the offsets in ``g`` from the
        compiled stepping; returns the buffer for its next records."""
        k, nu = len(self.impacts), self.nu
        self.records.extend(
            (row[0], int(row[1]), row[2], row[3], row[4],
             tuple(row[5:5 + nu]), tuple(row[5 + nu:5 + 2 * nu]))
            + ((0.0, 0.0),) * 3
            for row in records[:n].tolist())
        self.largest[:] = limits[1 + 2 * k:1 + 3 * k]
        self.count[:] = limits[1 + 3 * k:1 + 4 * k]
        self.offsets = g[k:2 * k].copy()
        return self.kernel_records()

    def kernel_gaps(self, t, y):
        """``g = [gaps at (t, y) plus offsets, offsets, normal speeds]``
        (see :meth:`kernel_arguments`)."""
        values = self._values_of_state(t, y)
        return np.concatenate([values[0] + self.offsets, self.offsets,
                               values[1]])

    # -- the jump --------------------------------------------------------

    def _speed_basis(self, x):
        """``C`` with ``u = C u_i`` on the velocity constraints."""
        nm, nu = self.problem.nm, self.nu
        m = len(nm.u_dep_idx)
        if not m:
            return np.eye(nu)
        vel = nm.functions['vel'](x)
        K = np.asarray(vel[:m * nu], dtype=float).reshape(m, nu)
        basis = np.zeros((nu, len(nm.u_ind_idx)))
        basis[nm.u_ind_idx] = np.eye(len(nm.u_ind_idx))
        basis[nm.u_dep_idx] = -np.linalg.solve(K[:, nm.u_dep_idx],
                                               K[:, nm.u_ind_idx])
        return basis

    def jump(self, t, q, u, indices, vn, e, law, impulse):
        """``(u+, P)``: the speeds after the impacts ``indices``, struck at
        once, and their impulses (None if the simultaneous solution needs
        a negative, pulling impulse); ``vn``, ``e``, ``law`` and
        ``impulse`` are those of :meth:`values` for the same ``indices``.
        """
        nm = self.problem.nm
        x = self.problem.input_vector(t, q, u)
        name = self.impacts[indices[0]].name
        try:
            mass = np.asarray(nm.functions['eom'](x), dtype=float)[
                self._mass].reshape(self.nu, self.nu)
            basis = self._speed_basis(x)
            reduced = basis.T @ mass @ basis
            Z = np.linalg.solve(reduced, basis.T @ impulse.T)
        except np.linalg.LinAlgError:
            raise SimulationError(
                f'the impact {name!r} at t = {t:.10g} cannot be resolved: '
                f'the mass matrix or the velocity constraints are singular '
                f'there ({format_state(nm.q, q)}).',
                time=t, q=q, u=u) from None
        D = (basis.T @ law.T).T @ Z        # normal speed change per impulse
        if len(indices) == 1:
            scale = float(np.linalg.norm(basis.T @ law[0])
                          * np.linalg.norm(Z))
            if not D[0, 0] > 1e-12 * scale or not math.isfinite(D[0, 0]):
                raise SimulationError(
                    f'the impact {name!r} at t = {t:.10g} cannot change '
                    f'the normal speed: the contact point cannot move along '
                    f'the normal ({format_state(nm.q, q)}; it is held by '
                    f'the constraints, or the plane takes no impulse but '
                    f'moves with the speeds).', time=t, q=q, u=u)
        try:
            P = np.linalg.solve(D, -(1.0 + e) * vn)
        except np.linalg.LinAlgError:
            return None, None
        if len(indices) > 1 and not np.all(P >= 0):
            return None, None
        return u + basis @ (Z @ P), P

    def response(self, t, q, u, state, rows):
        """``(A, G)`` at the consistent state ``(t, q, u)`` with the
        :class:`ContactState` ``state``: the change of all speeds per unit
        impulse (or force) along the contact ``rows`` (indices into the
        ``k x 3`` stack of ``[n, t1, t2]``), ``A = C (C^T M C)^-1 C^T
        W^T`` (nu x r), and the Delassus matrix ``G = R A`` of the
        relative speeds of those rows. A singular mass matrix or velocity
        constraints stop the run (kept) with a :class:`SimulationError`."""
        mass, basis = self.mass_basis(t, q, u)
        impulse = state.impulse.reshape(-1, self.nu)[rows]
        law = state.law.reshape(-1, self.nu)[rows]
        try:
            # (C is the identity without dependent speeds)
            A = (np.linalg.solve(mass, impulse.T)
                 if basis.shape[1] == self.nu else
                 basis @ np.linalg.solve(basis.T @ mass @ basis,
                                         basis.T @ impulse.T))
        except np.linalg.LinAlgError:
            names = ', '.join(sorted({repr(self.impacts[r // 3].name)
                                      for r in rows}))
            raise SimulationError(
                f'the contacts {names} at t = {t:.10g} cannot be resolved: '
                f'the mass matrix or the velocity constraints are singular '
                f'there ({format_state(self.problem.nm.q, q)}); the '
                f'simulation up to this time is in the error\'s result.',
                time=t, q=q, u=u, keeps_run=True) from None
        return A, law @ A

    def free_response(self, t, q, u, state, rows):
        """``(q', u'_free, A, G)`` at the consistent state ``(t, q, u)``:
        the derivatives without contact forces
        (:meth:`.problem.Problem.derivatives`) and :meth:`response`,
        from one evaluation of the equations of motion and one
        factorisation of the mass matrix where there is no joint
        friction (whose relaxation evaluates them several times; a closed
        contact refuses it, see :mod:`.unilateral`)."""
        problem = self.problem
        if problem.n_friction:
            qdot, udot, _ = problem.derivatives(t, q, u)
            return (qdot, udot) + self.response(t, q, u, state, rows)
        impulse = state.impulse.reshape(-1, self.nu)[rows]
        qdot, udot, A = problem.derivatives_and_response(t, q, u,
                                                         impulse.T)
        law = state.law.reshape(-1, self.nu)[rows]
        return qdot, udot, A, law @ A

    def frictional_jump(self, t, q, u, group, e=None):
        """``(u+, P, tangential)`` of the contacts ``group`` struck at once
        with Coulomb friction (:func:`.contact_problems.solve_impact`:
        Stronge's energetic restitution for one contact, Poisson's for
        several): ``P`` the normal impulses, ``tangential`` per contact
        ``(impulse, slip before, slip after)`` along the tangents. ``e``
        (per contact of ``group``) replaces their restitution (the
        lasting contacts' plastic impacts)."""
        state = self.contact_state(t, q, u)
        rows, layout, slots = [], [], []
        for i in group:
            tangents = [1 + r for r in range(2) if self.tangent_mask[i, r]]
            first = len(rows)
            rows += [(i, 0)] + [(i, r) for r in tangents]
            layout.append((first, tuple(range(first + 1, len(rows)))))
            slots.append(tangents)
        speeds = np.array([state.vn[i] if r == 0 else state.vt[i, r - 1]
                           for i, r in rows])
        response, delassus = self.response(t, q, u, state,
                                           [3 * i + r for i, r in rows])
        try:
            solution = solve_impact(delassus, speeds, layout,
                                    state.e[group] if e is None else e,
                                    state.mu[group])
        except LCPError as error:
            names = ', '.join(repr(self.impacts[i].name) for i in group)
            raise SimulationError(
                f'the frictional impact at t = {t:.10g} of {names} cannot '
                f'be resolved: {error} ({format_state(self.problem.nm.q, q)}'
                f'); the simulation up to this time is in the error\'s '
                f'result.', time=t, q=q, u=u, keeps_run=True) from None
        impulses = np.asarray(solution.P, dtype=float)
        u_new = u + response @ impulses
        after = self.contact_state(t, q, u_new).vt
        tangential = []
        for (normal, _), i, tangents in zip(layout, group, slots):
            part = np.zeros(2)
            for n_r, r in enumerate(tangents):
                part[r - 1] = impulses[normal + 1 + n_r]
            tangential.append((tuple(part.tolist()),
                               tuple(state.vt[i].tolist()),
                               tuple(after[i].tolist())))
        return u_new, impulses[[normal for normal, _ in layout]], tangential

    def resolve(self, t, y, span):
        """Apply every impact due at ``t`` (a closed contact that
        approaches); return the new integrator state. Contacts due at the
        same instant are struck at once when that needs no pulling impulse,
        else one after another, the fastest first, until none approaches;
        where that sequence goes on past :data:`JOIN_AFTER` rounds per
        impact (touching bodies passing the momentum to and fro), the
        closed contacts that the impulses would drive into their planes
        join them without rebound (a row of touching balls with e = 0
        moves on at 1/n). Raises a :class:`SimulationError` when the impacts
        accumulate, when a contact rests on its plane at the start while
        the loads press it in, or when a restitution is outside [0, 1] at
        an impact."""
        start, self._start = self._start, None
        at_start = start is not None and start[0] == t
        if at_start:
            # the start: check_start() has the consistent state and values
            _, q, u, values = start
        else:
            q, u = self.state(t, y)
            values = self.values(t, q, u)
        k = len(self.impacts)
        struck = {}
        if at_start:
            self._check_resting(t, q, u, values, span)
        for round_ in range(MAX_SEQUENTIAL * k):
            gap, vn, e, law, impulse = values
            # (as Python numbers: nothing is due in most calls, e.g. at
            # the start, and this test is then all the work)
            floor = 1e-12 * max(1.0, *self.largest.tolist())
            due = [(speed, i) for i, (distance, speed) in
                   enumerate(zip(gap.tolist(), vn.tolist()))
                   if distance <= self.tolerance and speed < -floor]
            if not due:
                break
            due.sort()
            for speed, i in due:
                # (the impulses of one instant are one impact)
                if i not in struck:
                    self._check_accumulation(t, q, u, i, -speed)
                self._check_restitution(t, q, u, i, e[i])
            # the contacts due all at once if no contact pulls, else the
            # fastest alone; where that goes on and on (touching bodies
            # that pass the momentum to and fro, ever less), the closed
            # contacts it would drive in join without rebound
            u_new = None
            closed = ([i for i, distance in enumerate(gap.tolist())
                       if distance <= self.tolerance]
                      if round_ >= JOIN_AFTER * k else [])
            if len(closed) > 1:
                group, u_new, P, e = self._at_once(
                    t, q, u, [i for _, i in due], closed, values, floor)
            elif len(due) > 1:
                group = [i for _, i in due]
                u_new, P = self.jump(t, q, u, group, vn[group], e[group],
                                     law[group], impulse[group])
            friction = None
            if self.frictional:
                # friction couples the contacts: every closed contact that
                # approaches or rests takes part, solved at once
                group = [i for i, (distance, speed) in enumerate(zip(
                    gap.tolist(), vn.tolist()))
                    if distance <= self.tolerance and speed <= floor]
                u_new, P, friction = self.frictional_jump(t, q, u, group)
            if u_new is None:
                group = [due[0][1]]
                u_new, P = self.jump(t, q, u, group, vn[group], e[group],
                                     law[group], impulse[group])
            if u_new is None:
                raise self._accumulated(t, q, u, group[0], 'its impulse '
                                        'cannot be found')
            values = self.values(t, q, u_new)    # also the next round's
            after = values[1]
            for n_i, (i, impulse_i) in enumerate(zip(group, P)):
                tangential = ((0.0, 0.0),) * 3 if friction is None else \
                    friction[n_i]
                if friction is not None and vn[i] >= -floor and \
                        impulse_i == 0.0 and not any(tangential[0]):
                    continue        # a resting contact that took nothing
                self.records.append((float(t), i, float(vn[i]),
                                     float(after[i]), float(impulse_i),
                                     tuple(u), tuple(u_new)) + tangential)
                self.count[i] += 1
                self.largest[i] = max(self.largest[i], -vn[i])
                struck[i] = (-vn[i], float(after[i]))
            u = u_new
        else:
            raise SimulationError(
                f'the simultaneous impacts at t = {t:.10g} did not resolve '
                f'after {MAX_SEQUENTIAL * k} impulses applied one after '
                f'another ({format_state(self.problem.nm.q, q)}).',
                time=t, q=q, u=u)
        for i, (approach, after) in struck.items():
            if after <= self.impacts[i].RELATIVE_REST_SPEED * approach \
                    and self._pressing(t, q, u, i, span):
                # the contact point does not leave the plane after it:
                # the contact closes
                raise ContactCloses(t, q, u, i)
        return self._restart(t, q, u, values)

    def _at_once(self, t, q, u, group, closed, values, floor):
        """``(group, u+, P, e)``: the contacts ``group`` struck at once
        and, added to them with restitution 0 (their normal speed after is
        zero), the other ``closed`` contacts that the impulses would drive
        into their planes; ``u+`` None where that needs a pulling
        impulse. ``e`` is the restitution used per impact."""
        gap, vn, e, law, impulse = values
        e = e.copy()
        group = list(group)
        for _ in range(len(closed)):
            u_new, P = self.jump(t, q, u, group, vn[group], e[group],
                                 law[group], impulse[group])
            if u_new is None:
                return group, None, None, values[2]
            after = self.values(t, q, u_new)[1]
            joining = [i for i in closed if i not in group
                       and after[i] < -floor]
            if not joining:
                return group, u_new, P, e
            for i in joining:
                e[i] = 0.0
            group += joining
        return group, None, None, values[2]

    def _check_restitution(self, t, q, u, i, e):
        """A :class:`SimulationError` (the run up to ``t`` kept) where
        impact ``i``'s restitution, which may depend on the state, is
        outside [0, 1] at its impact."""
        if not 0.0 <= e <= 1.0:
            impact = self.impacts[i]
            error = SimulationError(
                f'impacts[{i}] ({impact.name}): its restitution '
                f'{impact.restitution} is {e:.6g} at the impact at t = '
                f'{t:.10g}, outside [0, 1] '
                f'({format_state(self.problem.nm.q, q)}); the simulation '
                f'up to this time is in the error\'s result.',
                time=t, q=q, u=u, keeps_run=True)
            raise error

    def _check_resting(self, t, q, u, values, span):
        """A :class:`SimulationError` for a contact that rests on its
        plane at the start (closed, neither approaching nor leaving) while
        the loads press it in: with any restitution it would chatter in
        ever smaller impacts, as a plastic impact stops."""
        gap, vn = values[0], values[1]
        floor = 1e-12 * max(1.0, *self.largest.tolist())
        for i in range(len(self.impacts)):
            if gap[i] <= self.tolerance and abs(vn[i]) <= floor and \
                    self._pressing(t, q, u, i, span):
                # resting on the plane at the start, pressed into it by
                # the loads: the contact closes
                raise ContactCloses(t, q, u, i)

    def _restart(self, t, q, u, values):
        """The integrator state at ``(t, q, u)``, where the integration
        restarts; each gap's offset lifts it just above zero there."""
        tiny = 64 * _EPS * max(1.0, max(map(abs, q.tolist()), default=0.0))
        self.offsets = np.maximum(0.0, -values[0]) + tiny
        y = self.problem.pack(q, u)
        self._memo = ((float(t), y.tobytes()), values)   # the next start
        return y

    def _check_accumulation(self, t, q, u, i, approach):
        """:class:`.unilateral.ContactCloses` where impact ``i``'s impacts
        accumulate (:meth:`accumulating`): the contact comes to rest; a
        :class:`SimulationError` past :data:`MAX_IMPACTS` impacts."""
        if len(self.records) >= MAX_IMPACTS:
            raise self._accumulated(t, q, u, i, f'{MAX_IMPACTS} impacts '
                                    f'in one run is the limit')
        if self.accumulating(i, approach):
            raise ContactCloses(t, q, u, i)

    def accumulating(self, i, approach):
        """The reason why impact ``i``'s impacts count as accumulating at
        the approach speed ``approach`` (below its ``rest_speed``, or below
        ``RELATIVE_REST_SPEED`` times its largest so far), or ''."""
        impact = self.impacts[i]
        if impact.rest_speed is not None:
            if approach <= impact.rest_speed:
                return (f'the approach speed {approach:.3g} is below its '
                        f'rest_speed {impact.rest_speed:.3g}')
        elif self.count[i] and approach <= (impact.RELATIVE_REST_SPEED
                                            * self.largest[i]):
            return (f'the approach speed {approach:.3g} is below '
                    f'{impact.RELATIVE_REST_SPEED:g} times its largest, '
                    f'{self.largest[i]:.6g}')
        return ''

    def _accumulated(self, t, q, u, i, reason):
        """The :class:`SimulationError` (the run kept) of an impact that
        cannot go on: past :data:`MAX_IMPACTS`, or without an impulse."""
        impact = self.impacts[i]
        error = SimulationError(
            f'the impacts stop at t = {t:.10g}: {impact.name!r} '
            f'(impacts[{i}]) has struck {int(self.count[i])} '
            f'time{"s" if self.count[i] != 1 else ""} '
            f'({len(self.records)} impacts in all) and {reason}; the '
            f'simulation up to this time is in the error\'s result.',
            time=t, q=q, u=u, keeps_run=True)
        return error

    def _pressing(self, t, q, u, i, span):
        """Whether the normal acceleration of impact ``i``'s contact point
        is negative (into the plane) at the consistent state ``(q, u)``:
        the normal speed differentiated along the motion."""
        qdot, udot, _ = self.problem.derivatives(t, q, u)
        h = 1e-6 * span
        ahead = self.values(t + h, q + h * qdot, u + h * udot)[1][i]
        behind = self.values(t - h, q - h * qdot, u - h * udot)[1][i]
        acceleration = (ahead - behind) / (2 * h)
        scale = max(1.0, float(np.max(np.abs(udot), initial=0.0)))
        return acceleration < -1e-9 * scale

    def result_records(self):
        """The :class:`~sympy_loads.ImpactRecord` of every impact."""
        from ..impacts import ImpactRecord
        return tuple(
            ImpactRecord(time=t, index=i, name=self.impacts[i].name,
                         normal_speed_before=before,
                         normal_speed_after=after, impulse=P,
                         u_before=ub, u_after=ua, tangential_impulse=Pt,
                         tangential_speed_before=vb,
                         tangential_speed_after=va)
            for t, i, before, after, P, ub, ua, Pt, vb, va in self.records)


def contact_intervals(engine):
    """The :class:`~sympy_loads.ContactInterval` of every closed interval
    of the run, in time order (each contact's forces at the run's samples
    in it)."""
    from ..impacts import ContactInterval
    contacts = getattr(engine, 'contacts', None)
    if contacts is None:
        return ()
    intervals = []
    for j, start, end, chunks in sorted(contacts.intervals,
                                        key=lambda item: item[1:3]):
        parts = list(zip(*chunks)) if chunks else [()] * 5
        def joined(part, shape):
            return (np.concatenate(part) if part else np.zeros(shape))
        t = joined(parts[0], (0,))
        intervals.append(ContactInterval(
            index=j, name=engine.impacts[j].name, start=start, end=end, t=t,
            normal_force=joined(parts[1], (0,)),
            tangential_force=joined(parts[2], (0, 2)),
            sticking=joined(parts[3], (0,)).astype(bool),
            gap_drift=float(np.max(joined(parts[4], (0,)), initial=0.0))))
    return tuple(intervals)


def run(engine, fun, t_span, y0, *, method, t_eval, rtol, atol, max_step,
        jac):
    """Integrate over ``t_span`` from impact to impact. Returns the fields
    of ``solve_ivp``'s result that :func:`simulate` uses (the samples of
    all segments; without ``t_eval`` an impact time appears twice, before
    and after the jump) and ``error``: the :class:`SimulationError` that
    stopped the run early, or None.

    Where a contact comes to rest (:class:`.unilateral.ContactCloses`) the
    run goes on in phases with closed contacts
    (:class:`.unilateral.LastingContacts`, the right-hand side in Python)
    until every contact is open again; the phases without a closed contact
    are integrated as before (the compiled stepping where it applies)."""
    t0, t1 = t_span
    span = abs(t1 - t0)
    times, states = [], []
    stats = {'nfev': 0, 'njev': 0, 'nlu': 0}
    t, y = t0, np.asarray(y0, dtype=float)
    step = None       # the compiled DOP853 goes on with its last step
    success, status, message, error = True, 0, '', None
    contacts = engine.contacts = LastingContacts(engine, span)
    options = dict(method=method, rtol=rtol, atol=atol, max_step=max_step)
    try:
        y = _resolve(engine, contacts, t, y, span)
        first = True
        while True:
            sample_times = None
            if t_eval is not None:
                sample_times = t_eval[t_eval >= t] if first else \
                    t_eval[t_eval > t]
            if t >= t1:
                if t_eval is None:
                    times.append(np.array([t]))
                    states.append(y[:, None])
                break
            if contacts.modes:
                solution, event = contacts.integrate(t, t1, y, sample_times,
                                                     options)
                step = None
            else:
                solution = integrate(
                    fun, (t, t1), y, t_eval=sample_times, jac=jac,
                    impacts=engine, problem=engine.problem, first_step=step,
                    resolve=None if engine.frictional else
                    (lambda t, y: engine.resolve(t, y, span)),
                    **options)
                step = solution.next_step
            times.append(np.asarray(solution.t, dtype=float))
            states.append(np.asarray(solution.y, dtype=float).reshape(
                len(y), len(times[-1])))
            for key in stats:
                stats[key] += int(getattr(solution, key))
            if isinstance(solution.error, ContactCloses):
                closing = solution.error
                t, first = closing.t, False
                y = contacts.settle(closing.t, closing.q, closing.u)
                _reopen(engine, contacts, t, y)
                continue
            if solution.error is not None:
                raise solution.error      # the samples reached are kept
            if solution.status != 1:
                success = bool(solution.success)
                status, message = int(solution.status), solution.message
                break
            if contacts.modes:
                t_hit, y_hit = _event_state(solution)
                q, u = engine.state(t_hit, y_hit)
                y = contacts.settle(t_hit, q, u, event)
                _reopen(engine, contacts, t_hit, y)
            else:
                t_hit, y_hit = _event_state(solution)
                y = _resolve(engine, contacts, t_hit, y_hit, span)
            t, first = t_hit, False
    except Exception as exc:
        if not getattr(exc, 'keeps_run', False):
            raise
        error, success, status = exc, False, -1
        message = str(exc)
        if not times:
            # stopped at the start: the result holds the start
            times.append(np.array([t0], dtype=float))
            states.append(np.asarray(y0, dtype=float)[:, None])
    contacts.finish(t1 if success else getattr(error, 'time', None) or t)
    if not message:
        message = 'The solver successfully reached the end of the ' \
            'integration interval.'
    n = len(y0)
    return Outcome(
        t=np.concatenate(times) if times else np.zeros(0),
        y=np.hstack(states) if states else np.zeros((n, 0)),
        success=success, status=status, message=message, error=error,
        **stats)


def _event_state(solution):
    """``(t, y)`` of the terminal event that ended ``solution``."""
    hits = [(float(te[0]), i) for i, te in enumerate(solution.t_events)
            if len(te)]
    t_hit, i = min(hits)
    return t_hit, solution.y_events[i][0]


def _resolve(engine, contacts, t, y, span):
    """The state after the impacts at ``(t, y)`` of the phase without
    closed contacts (:meth:`ImpactEngine.resolve`), or after the contacts
    that come to rest there have closed."""
    try:
        return engine.resolve(t, y, span)
    except ContactCloses as closing:
        y = contacts.settle(closing.t, closing.q, closing.u)
        _reopen(engine, contacts, t, y)
        return y


def _reopen(engine, contacts, t, y):
    """Where every contact is open after a transition at ``t``, the gaps'
    offsets of the phase without closed contacts (as after an impact)."""
    if not contacts.modes:
        q, u = engine.state(t, y)
        engine._restart(t, q, u, engine.values(t, q, u))
