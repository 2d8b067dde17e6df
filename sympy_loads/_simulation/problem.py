"""Private: the right-hand side and state reconstruction of one
:func:`sympy_loads.simulate` call, on either back end.

The compiled back end evaluates the whole right-hand side in one call of
the generic kernel :func:`sympy_loads._numeric.rhs.rhs`. Whenever that
kernel reports a difficulty (Newton-Raphson not converged, a nearly
singular Jacobian, velocity-constraint block or mass matrix), the same
evaluation is repeated on the diagnosing path below, which solves the
dependent coordinates with the :class:`HolonomicConstraintSolver` (damped
Newton with its error analysis) and NumPy's linear algebra: it either
recovers or raises a :class:`SimulationError` naming the time and state.
The NumPy back end always takes that path.

The partition (which coordinates and speeds are integrated) is the
engine's: it starts with the model's and changes it where a dependent
block turns ill conditioned (:mod:`.partition`); ``problem.nm`` is the
model seen with the current partition (:class:`.partition.ModelView`).
"""

import math
import time

import numpy as np

from .arguments import ConstantInput
from .feedback import (feedback_values, has_feedback, is_state_feedback,
                       with_feedback)
from .partition import (PARTITION_FLOOR, PARTITION_GAIN,
                        PARTITION_HYSTERESIS, PARTITION_LOOK,
                        PARTITION_RATIO, ModelView, PartitionRecord,
                        block_measure, choice, choose, column_scale,
                        full_jacobians)
from .._constraint_errors import FULL_RANK_RATIO
from .._errors import ConstraintSolverError, SimulationError
from .._numeric import eom_blocks, numpy_kernels

__all__ = []

# the Newton kernels' status codes (sympy_loads._numeric), in words
_NEWTON_STATUS = {1: 'reached its iteration limit',
                  2: 'stalled (the residual no longer decreases: the '
                     'constraints may have no solution near the guess)',
                  3: 'met constraints that are not finite',
                  4: 'met coordinates that are not finite'}

# the relative step of the central differences of Problem.tolerance_factor
# (a weight needs two digits; Newton solves the dependent entries to about
# the rounding unit)
SENSITIVITY_STEP = 1e-6
# the most Problem.tolerance_factor tightens the integrator's tolerance
# (the partition's blocks keep the sensitivity within about PARTITION_LOOK
# of the best set's; a larger one is the mechanism's own)
SENSITIVITY_CAP = 100.0

# the kinds of run (joint friction, compiled stepping, impacts) whose
# kernels Problem.warm_up() has loaded in this process
_WARM = set()


def format_state(symbols, values):
    """``'x = 0.1, y = 2'``: a state for an error message."""
    if values is None:
        return '?'
    return ', '.join(f'{s.name} = {float(v):.10g}'
                     for s, v in zip(symbols, values))


class Problem:
    """Right-hand side and state reconstruction for one simulate() call."""

    def __init__(self, nm, constants, spec_functions, solver,
                 friction_functions, friction_options):
        # specified inputs given as SymPy expressions of the state are
        # compiled into the equations of motion (see .feedback)
        nm = with_feedback(nm, spec_functions)
        # the model with this run's partition (changed by reselect())
        self.nm = nm = ModelView(nm)
        self.c = np.asarray(constants, dtype=float)
        self.spec_functions = spec_functions
        # inputs that depend on the state, and callables f(t, q, u) among
        # them (which need the diagnosing path, see .feedback)
        self.feedback = has_feedback(spec_functions)
        self.state_feedback = is_state_feedback(spec_functions)
        self.solver = solver
        self.friction_functions = friction_functions
        # the stick-slip modes of exact-sign joint friction, if any
        # (:class:`.stick_slip.StickSlip` attaches itself here)
        self.stick_slip = None
        # the LoopJoints' multipliers (.multipliers.LoopMultipliers), set
        # by the Simulation when the friction or the outputs need them
        self.loops = None
        self.multiplier_values = None     # the last ones relax() used
        # what a stalled integration most likely meets (see watched())
        self.stall_hint = None
        self.n_friction = len(nm.friction)
        self.friction_values = np.zeros(self.n_friction)
        (self.friction_tolerance, self.friction_max_iterations,
         self.friction_relaxation) = friction_options
        self.nq, self.nu = len(nm.q), len(nm.u)
        self.t_span = (0.0, 1.0)      # set by simulate()
        self.partitioned = (nm.has_config_constraints
                            or nm.has_velocity_constraints)
        self.slices = nm.slices
        # length of the integrator's state (see pack())
        self.state_size = self.nq + (len(nm.u_ind_idx) if self.partitioned
                                     else self.nu)
        self.x = nm.pack(0.0, np.zeros(self.nq), np.zeros(self.nu), self.c,
                         np.zeros(len(nm.specified) + self.n_friction))
        self.compiled = nm.backend == 'compiled'
        self.kernel_seconds = 0.0
        # the part of kernel_seconds spent compiling every kernel at once
        # (logged by kernel_set itself)
        self.compile_seconds = 0.0
        # sign of det(Phi_qd) on the assembly branch followed (0: not
        # checked, e.g. a redundant constraint set), see set_branch()
        self.branch = 0.0
        # implicit integrators retry a failed evaluation with a smaller
        # step: the failure is kept here and raised only if they give up
        self.tolerant = False
        self.deferred = None
        self._failure_times = []
        # the engine's partition: (start time, partition, branch) of each
        # stretch of the run (samples() reads each with its own), the
        # changes made (SimulationResult.partitions), and the pivot ratio
        # of the dependent blocks below which the next change is looked
        # for (0: never; no dependent coordinates or speeds to choose)
        self.history = [(None, nm.partition, 0.0)]
        self.partitions = []
        self.threshold = PARTITION_RATIO if self.reselects else 0.0
        # whether the engine has taken the partition over from the model
        # (then it keeps to the best conditioned sets, see _gain())
        self.engine_chooses = False
        # the gain the next reselect() asks for (see better_elsewhere())
        self._next_gain = None
        opts = ([solver.tolerance, solver.step_tolerance,
                 solver.max_iterations, 0.0, 0.0, 1.0, 1.0] if solver else
                [1e-12, 1e-10, 50, 0.0, 0.0, 1.0, 1.0])
        if self.compiled:
            start = time.perf_counter()
            from .._numeric import kernel_set, newton, rhs
            # the first compiled use of the process compiles every kernel
            # where one is missing from the cache, announcing it
            self.compile_seconds = kernel_set.ensure_compiled()
            self._rhs = rhs
            # the kernels' fn: the model's, then the addresses of the
            # kernels they call (the view's own copy; a change of
            # partition updates its first two entries in place)
            nm.fn = rhs.with_calls(nm.fn)
            nh, nqd = int(nm.dims[2]), int(nm.dims[3])
            # the kernels' arguments, also packed into two arrays for the
            # integrator's calls (_opts, _info, ... are views into them)
            self._ints, self._floats, views = rhs.packed_layout(
                nm.dims, nm.idx, self.partitioned, nm.eom_size,
                newton.newton_work_size(nh, nqd), max(nqd, 1))
            self._opts, self._info = views['opts'], views['info']
            self._work, self._iwork = views['work'], views['iwork']
            self._opts[:] = opts
            self.kernel_seconds = time.perf_counter() - start
        else:
            self._opts = np.array(opts, dtype=float)

    @property
    def newton_tolerance(self):
        """The largest constraint residual Newton-Raphson accepts."""
        return float(self._opts[0])

    # state layout: [q (all), u (all)] if not partitioned, else
    # [q (all; dependent entries only as Newton guesses), u_ind]
    def pack(self, q, u):
        if self.partitioned:
            return np.concatenate([q, u[self.nm.u_ind_idx]])
        return np.concatenate([q, u])

    def specified(self, t, q=None, u=None):
        """The specified inputs at ``t``; those that depend on the state
        at ``(q, u)`` when given, else their placeholders (see
        :mod:`.feedback`)."""
        if q is None or not self.feedback:
            return [f(t) for f in self.spec_functions]
        return feedback_values(self, t, q, u)

    def set_branch(self, t, q):
        """Follow the assembly branch of the consistent ``q`` at ``t``:
        a later solution with the other sign of ``det(Phi_qd)`` has crossed
        a singular (toggle) configuration and is refused."""
        self.branch = self._branch_sign(t, q)
        self._opts[3] = self.branch
        start, partition, _ = self.history[-1]
        self.history[-1] = (start, partition, self.branch)

    # -- the partition -----------------------------------------------------

    @property
    def reselects(self):
        """Whether the engine may choose the partition (there are
        dependent coordinates or speeds)."""
        return bool(self.partitioned and (len(self.nm.q_dep_idx)
                                          or len(self.nm.u_dep_idx)))

    def _set_partition(self, partition, branch=None):
        """Integrate with ``partition`` from now on (its index arrays in
        the compiled kernels' arguments too)."""
        nm = self.nm
        nm.set(partition)
        if self.compiled:
            self._ints[6:6 + len(nm.idx)] = nm.idx
        if branch is not None:
            self.branch = branch
            self._opts[3] = branch
        if self.stick_slip is not None:
            independent = list(nm.u_ind_idx)
            self.stick_slip.state_index = [
                self.nq + independent.index(k) if k in independent else None
                for k in self.stick_slip.speeds]

    def assemble(self, t, q):
        """The consistent configuration at the start from the initial
        conditions ``q`` (the dependent entries are guesses), solved by the
        model's :class:`HolonomicConstraintSolver`; the engine's partition
        is chosen there (the model's where its blocks are well
        conditioned). Where the model's block is singular at the start, the
        engine starts with another partition, keeping the values of its
        independent coordinates (given or guessed)."""
        q = np.asarray(q, dtype=float)
        try:
            solved = np.asarray(self.solver.solve_positions(q, t),
                                dtype=float)
        except ConstraintSolverError:
            if not self.reselects:
                raise
            x = self.input_vector(t, q, np.zeros(self.nu))
            partition, _, _ = choose(self.nm.model, self.nm.partition, x)
            if partition.q_dep == self.nm.partition.q_dep:
                raise
            self._set_partition(partition)
            solved = self._engine_newton(t, q)
            if solved is None:
                raise
        self.choose_at_start(t, solved)
        return solved

    def choose_at_start(self, t, q):
        """Choose the partition at the consistent ``q`` at the start (the
        current one where its blocks are well conditioned there)."""
        if not self.reselects:
            return
        x = self.input_vector(t, q, np.zeros(self.nu))
        model = self.nm.model
        current = self.nm.partition
        # the scales of the measures: the largest columns of Phi_q and K
        J, K = full_jacobians(model, x)
        if J is not None:
            self._opts[5] = column_scale(J)
        if K is not None:
            self._opts[6] = column_scale(K)
        # (the kernels' measures, as during the run; a few microseconds)
        measures = (self.block_ratios(t, self.pack(q, np.zeros(self.nu)))
                    if self.compiled else self._block_ratios_at(x))
        if min(measures) >= PARTITION_RATIO:
            if current != self.history[0][1]:
                self._record(t, start=True)
                self._take_over(measures, measures, measures)
            return
        found = choice(model, current, x)
        if found.partition != current:
            self._set_partition(found.partition)
            self._opts[5:7] = found.scales
        if self.nm.partition != (tuple(int(i) for i in model.q_dep_idx),
                                 tuple(int(i) for i in model.u_dep_idx)):
            self._record(t, start=True)
            self._take_over(self.block_ratios(t, self.pack(q, np.zeros(
                self.nu))), found.measures, found.best)

    def _take_over(self, kernel, measures, best):
        """The engine has chosen a partition other than the model's (its
        blocks' measures ``kernel`` as the kernels compute them,
        ``measures`` as :func:`.partition.choice` does, where the best sets
        measure ``best``): from now on it keeps to the best conditioned
        sets (see :meth:`_gain`)."""
        self.engine_chooses = True
        self.threshold = self._next_threshold(kernel, measures, best)

    def _gain(self):
        """How many times better conditioned another set must be for a
        change of partition: while the model's own partition serves,
        :data:`.partition.PARTITION_GAIN` (where its blocks have
        degraded); once the engine has chosen another, only
        :data:`.partition.PARTITION_HYSTERESIS`, so that it keeps to the
        best conditioned sets and the error the integrator's tolerance
        governs in the independent coordinates reaches the dependent ones
        amplified no more than the best set allows."""
        return (PARTITION_HYSTERESIS if self.engine_chooses else
                PARTITION_GAIN)

    def _declined(self, t, y, found):
        """No set is :meth:`_gain` times better than the current one at
        the accepted state ``(t, y)`` (:class:`.partition.Choice`
        ``found``): the threshold of the next look."""
        if self.engine_chooses:
            self.threshold = self._next_threshold(
                self.block_ratios(t, y), found.measures, found.best)
        else:
            low = min(found.measures) / PARTITION_GAIN
            self.threshold = low if low >= PARTITION_FLOOR else 0.0

    def _record(self, t, start=False):
        """Record the current partition as taken at ``t`` (``start``: at
        the start, the run's first stretch)."""
        nm = self.nm
        if start:
            self.history[0] = (None, nm.partition, self.branch)
        else:
            self.history.append((float(t), nm.partition, self.branch))
        self.partitions.append(PartitionRecord(
            float(t), tuple(nm.q[i] for i in nm.q_ind_idx),
            tuple(nm.u[i] for i in nm.u_ind_idx)))

    def block_ratios(self, t, y):
        """The measures of the current dependent blocks ``(Phi_qd, K_d)``
        at the integrator state ``y`` (:func:`.partition.block_measure`,
        as the kernels compute them; zeros where the state cannot be
        corrected)."""
        if self.compiled:
            x = self.x.copy()
            status = self._rhs.inputs_packed(
                float(t), np.ascontiguousarray(y, dtype=float), x,
                self.nm.fn, self._ints, self._floats)
            if status:
                return 0.0, 0.0
            return float(self._info[4]), float(self._info[5])
        try:
            q, u = self.full_state(t, y)
        except SimulationError:
            return 0.0, 0.0
        return self._block_ratios_at(self.input_vector(t, q, u))

    def _block_ratios_at(self, x):
        """The measures of the current blocks ``(Phi_qd, K_d)`` at the
        input ``x`` (NumPy; over the scales of ``Phi_q`` and ``K`` where
        the partition was chosen, as in the kernels)."""
        nm = self.nm
        nh, nqd, m = int(nm.dims[2]), len(nm.q_dep_idx), len(nm.u_dep_idx)
        ratios = [1.0, 1.0]
        if nh and nqd:
            values = np.asarray(nm.functions['hol'](x), dtype=float)
            ratios[0] = block_measure(values[nh:].reshape(nh, nqd),
                                      range(nqd), float(self._opts[5]))
        if m:
            values = np.asarray(nm.functions['vel'](x), dtype=float)
            K = values[:m * self.nu].reshape(m, self.nu)
            ratios[1] = block_measure(K, nm.u_dep_idx,
                                      float(self._opts[6]))
        return tuple(ratios)

    def change_due(self, t, y):
        """Whether the run should stop at the accepted state ``(t, y)``
        for a change of partition: a dependent block's pivot ratio there
        is below the threshold and another partition is much better (see
        :meth:`reselect`; where none is, the threshold is lowered and the
        run goes on without stopping)."""
        if not self.threshold or min(
                self.block_ratios(t, y)) >= self.threshold:
            return False
        try:
            q, u = self.full_state(t, y)
        except SimulationError:
            return True      # reselect() then reports it
        current = self.nm.partition
        found = choice(self.nm.model, current, self.input_vector(t, q, u),
                       self._gain())
        if found.partition == current:
            self._declined(t, y, found)
            return False
        return True

    def better_elsewhere(self, t, y):
        """Whether a step that failed from the accepted state ``(t, y)``
        (a dependent block turned singular within it, faster than the
        threshold could catch) should stop there for a change of
        partition: any better conditioned partition exists there (the next
        :meth:`reselect` then takes it)."""
        if not self.threshold:
            return False
        try:
            q, u = self.full_state(t, y)
        except SimulationError:
            return False
        current = self.nm.partition
        partition, _, _ = choose(self.nm.model, current,
                                 self.input_vector(t, q, u), gain=1.0)
        if partition == current:
            return False
        self._next_gain = 1.0
        return True

    def tolerance_factor(self, t, y, rtol, atol):
        """How many times tighter than ``rtol, atol`` the integrator's
        tolerance must be at the accepted state ``(t, y)`` for the
        dependent coordinates and speeds to hold them too (at least 1, at
        most :data:`SENSITIVITY_CAP`; 1 where nothing is dependent or the
        state cannot be corrected).

        The dependent entries ``d`` follow the independent ones ``z`` (the
        state's independent coordinates and speeds) through
        ``S = dd/dz`` (``-Phi_d^-1 Phi_i`` for the coordinates; for the
        speeds also the velocity constraints' change with the
        coordinates, which dominates where the dependent speed's block
        degrades at speed: the IFToMM A01 pendulum's ``u_x = -y u_y/x``
        near the end of a chart). ``S`` is taken by central differences of
        the corrected state (:meth:`_samples`), and the factor is the largest
        ``sum_j |S_ij| w_j / w_i`` over the dependent entries ``i``, with
        the error weights ``w = atol + rtol |.|`` of each entry: the bound
        of a dependent entry's error where every independent entry's error
        is within its weight."""
        if not self.reselects:
            return 1.0
        nm = self.nm
        q_dep, u_dep = nm.q_dep_idx, nm.u_dep_idx
        n_qi = len(nm.q_ind_idx)
        z_index = np.concatenate([nm.q_ind_idx, self.nq + np.arange(
            self.state_size - self.nq)])
        y = np.asarray(y, dtype=float)
        z = y[z_index]
        delta = SENSITIVITY_STEP * np.maximum(1.0, np.abs(z))
        # the state and its shifts (+delta_j, -delta_j), corrected
        # together (the compiled kernels correct them in one call)
        n = len(z_index)
        shifted = np.repeat(y[:, None], 1 + 2 * n, axis=1)
        shifted[z_index, 1 + 2 * np.arange(n)] += delta
        shifted[z_index, 2 + 2 * np.arange(n)] -= delta
        try:
            q, u, _, _ = self._samples(np.full(1 + 2 * n, float(t)),
                                       shifted)
        except SimulationError:
            return 1.0
        d = np.concatenate([q[:, q_dep], u[:, u_dep]], axis=1)
        if not d.shape[1] or not n:
            return 1.0
        S = np.abs(d[1::2] - d[2::2]) / (2.0 * delta[:, None])
        # (an atol per state entry: the dependent speeds, not in the
        # state, take the smallest of the independent speeds')
        if np.ndim(atol):
            a = np.asarray(atol, dtype=float)
            a_ind = a[z_index]
            a_dep = np.concatenate([a[q_dep], np.full(
                len(u_dep), np.min(a_ind[n_qi:], initial=np.min(a)))])
        else:
            a_ind = a_dep = float(atol)
        w_dep = a_dep + rtol * np.abs(d[0])
        w_ind = a_ind + rtol * np.abs(z)
        factor = float(np.max((w_ind @ S) / w_dep))
        if not math.isfinite(factor):
            return 1.0
        return min(max(factor, 1.0), SENSITIVITY_CAP)

    @staticmethod
    def _next_threshold(kernel, measures, best):
        """The measure below which the next change of partition is looked
        for, after a choice whose blocks measure ``kernel`` as the kernels
        compute them (their pivots differ from the pivoted QR's of
        :func:`.partition.choice` for blocks of more than one column) and
        ``measures`` as :func:`.partition.choice` does, where the best
        conditioned sets measure ``best``: where the current blocks have
        fallen :data:`.partition.PARTITION_LOOK` times below the best sets
        (if those stay as they are), so that the dependent coordinates'
        sensitivity to the independent ones stays within about that factor
        of the best available set's; that factor below the current
        measures where these are already close to it (so that the run
        moves on), and 0 (never again) below
        :data:`.partition.PARTITION_FLOOR`."""
        if not min(kernel) > 0.0:       # (not measured: choice's units)
            kernel = measures
        low = min((k / m * b if m > 0.0 else 0.0)
                  for k, m, b in zip(kernel, measures, best)) / PARTITION_LOOK
        now = min(kernel)
        if not low * PARTITION_LOOK / PARTITION_HYSTERESIS <= now:
            low = now / PARTITION_LOOK
        return low if low >= PARTITION_FLOOR else 0.0

    def reselect(self, t, y):
        """Choose the partition again at the accepted state ``(t, y)``
        (:func:`.partition.choose`): the state in the new partition's
        layout, or None where no partition is much better (the threshold
        is then lowered, see :mod:`.partition`)."""
        q, u = self.full_state(t, y)
        x = self.input_vector(t, q, u)
        current = self.nm.partition
        gain, self._next_gain = self._next_gain or self._gain(), None
        found = choice(self.nm.model, current, x, gain)
        # the kernels measure on the scales the ratios were measured on
        self._opts[5:7] = found.scales
        if found.partition == current:
            self._declined(t, y, found)
            return None
        self._set_partition(found.partition)
        self._record(t)
        self.set_branch(t, q)
        y = self.pack(q, u)
        self._take_over(self.block_ratios(t, y), found.measures, found.best)
        return y

    def _engine_newton(self, t, q):
        """The dependent coordinates of the engine's partition solved by
        Newton-Raphson (the NumPy twin of the compiled kernel), or None
        (:attr:`_newton_failure` then says why)."""
        nm = self.nm
        x = self.input_vector(t, q, np.zeros(self.nu),
                              np.zeros(len(nm.specified) + self.n_friction))
        status, info = numpy_kernels.newton(
            nm.functions['hol'], x, nm.q_dep_idx + 1, int(nm.dims[2]),
            float(self._opts[0]), float(self._opts[1]), int(self._opts[2]))
        if status:
            self._newton_failure = (
                f'Newton-Raphson {_NEWTON_STATUS.get(int(status), "failed")}'
                f', largest residual {float(info[1]):.3g} after '
                f'{int(info[0])} iterations')
            return None
        return x[self.slices[0]].copy()

    def _uses_model_partition(self):
        nm = self.nm
        return np.array_equal(nm.q_dep_idx, nm.model.q_dep_idx)

    def _branch_sign(self, t, q):
        nm = self.nm
        nh, nqd = int(nm.dims[2]), int(nm.dims[3])
        if not nh or nh != nqd:
            return 0.0
        x = self.input_vector(t, q, np.zeros(self.nu),
                              np.zeros(len(nm.specified) + self.n_friction))
        jac = nm.functions['hol'](x)[nh:].reshape(nh, nqd)
        return float(np.sign(np.linalg.det(jac)))

    def input_vector(self, t, q, u, s=None):
        """The generated functions' input at ``(t, q, u)``; ``s`` (the
        specified inputs and friction magnitudes) defaults to the inputs
        at ``t`` and the current friction magnitudes."""
        if s is None:
            s = self.specified(t, q, u) + list(self.friction_values)
        x = self.x.copy()
        x[0] = t
        x[self.slices[0]] = q
        x[self.slices[1]] = u
        x[self.slices[3]] = s
        return x

    # -- the compiled path -------------------------------------------------

    def warm_up(self, t, y, impacts=False):
        """Call the compiled kernels once (numba loads them from its disk
        cache; on the first use of an installation
        :func:`._numeric.kernel_set.ensure_compiled`, called when the
        problem was made, has compiled them all). The kernels are the same
        for every model, with or without ``impacts``, so this is done once
        per process and kind of run."""
        kind = (bool(self.n_friction), self.steppable)
        if not self.compiled or kind in _WARM:
            return
        start = time.perf_counter()
        if not self.n_friction:
            self.fast_rhs()(t, y)
        self.samples(np.array([t]), np.asarray(y, dtype=float)[:, None])
        q, u = self.full_state(t, y)
        self._compiled_derivatives(self.input_vector(t, q, u))
        if self.steppable:
            from .._numeric import dop853
            dop853.load(self.state_size, *self.packed_arguments())
        self.kernel_seconds += time.perf_counter() - start
        _WARM.add(kind)

    def fast_rhs(self):
        """``f(t, y)`` for the integrator: one compiled call per
        evaluation, the diagnosing path where it reports a status."""
        if not self.compiled or self.n_friction or self.state_feedback:
            return self.rhs
        kernel, x, fn = self._rhs.rhs_packed, self.x, self.nm.fn
        ints, floats, size = self._ints, self._floats, self.state_size
        functions, s_slice, slow = self.spec_functions, self.slices[3], \
            self.rhs
        empty = np.empty

        def rhs(t, y):
            if functions:
                x[s_slice] = [f(t) for f in functions]
            ydot = empty(size)
            try:
                status = kernel(t, y, x, fn, ints, floats, ydot)
            except TypeError:    # not a contiguous float array
                status = kernel(float(t), np.ascontiguousarray(
                    y, dtype=float), x, fn, ints, floats, ydot)
            if status:
                return slow(t, y)
            return ydot
        return rhs

    @property
    def steppable(self):
        """Whether the right-hand side runs wholly in compiled code (no
        Python functions of specified inputs or joint friction), so that an
        integrator can step without returning to Python."""
        return (self.compiled and not self.n_friction
                and all(isinstance(f, ConstantInput)
                        for f in self.spec_functions))

    def packed_arguments(self):
        """``(ints, floats, x, fn)``: the compiled right-hand side's
        arguments after ``(t, y)`` (:func:`._numeric.rhs.rhs_packed`), the
        constant specified inputs in place in ``x``."""
        if self.spec_functions:
            self.x[self.slices[3]] = [f.value for f in self.spec_functions]
        return self._ints, self._floats, self.x, self.nm.fn

    def _compiled_derivatives(self, x):
        out = np.empty(self.nq + self.nu)
        status = self._rhs.derivatives(x, self.nm.fn, self.nm.dims,
                                       self.nm.idx, self.nm.eom_size, out)
        return None if status else out

    # -- the diagnosing (NumPy) path ---------------------------------------

    def solve_positions(self, t, q):
        if not self.nm.has_config_constraints:
            return q
        if not self._uses_model_partition():
            solved = self._engine_newton(t, q)
            if solved is None:
                raise SimulationError(
                    f'the holonomic constraints could not be solved at t = '
                    f'{float(t):.10g} ({format_state(self.nm.q, q)}) for '
                    f'the dependent coordinates '
                    f'{[self.nm.q[i].name for i in self.nm.q_dep_idx]} '
                    f'that the engine chose ({self._newton_failure}).'
                    f'{self._rank_note(t, q)}', time=t, q=q)
        else:
            try:
                solved = np.asarray(self.solver.solve_positions(q, t),
                                    dtype=float)
            except ConstraintSolverError as error:
                # (the solver's own report may already say what the
                # Jacobian of all coordinates does there)
                note = ('' if 'with respect to all coordinates' in
                        str(error) else self._rank_note(t, q))
                raise SimulationError(
                    f'the holonomic constraints could not be solved at t = '
                    f'{float(t):.10g} ({format_state(self.nm.q, q)}): '
                    f'{error}{note}', time=t, q=q) from error
        if self.branch and self._branch_sign(t, solved) != self.branch:
            dependent = [self.nm.q[i].name for i in self.nm.q_dep_idx]
            note = self._rank_note(t, q)
            what = ('the mechanism reached a singular (toggle) '
                    'configuration' if 'loses rank' in note else
                    f'the dependent coordinates {dependent} reached a '
                    f'singular configuration')
            raise SimulationError(
                f'{what} near t = {float(t):.10g}: the dependent '
                f'coordinates {dependent} only solve the constraints '
                f'on another assembly branch ({format_state(self.nm.q, q)} '
                f'gives {format_state(self.nm.q, solved)}; det(Phi_qd) '
                f'changed sign).{note}', time=t, q=q)
        return solved

    def _full_rank_ratio(self, t, q):
        """``(Phi_q, ratio)`` at ``q``: the Jacobian of the constraints
        with respect to all coordinates, and its singular value at the rank
        the dependent coordinates need over its largest (redundant
        constraints have zero singular values anywhere), None where that
        rank is 0 or the largest is 0; None altogether where ``Phi_q``
        cannot be evaluated or is not finite."""
        nm = self.nm
        try:
            J, _ = full_jacobians(nm.model, self.input_vector(
                t, q, np.zeros(self.nu),
                np.zeros(len(nm.specified) + self.n_friction)))
            values = np.linalg.svd(J, compute_uv=False)
        except (np.linalg.LinAlgError, ValueError):
            return None
        if not (values.size and np.all(np.isfinite(values))):
            return None
        rank = min(len(nm.q_dep_idx), values.size)
        ratio = (values[rank - 1] / values[0] if rank and values[0] > 0
                 else None)
        return J, ratio

    def _rank_note(self, t, q):
        """Where the current dependent block is singular at ``q``, what
        the full constraint Jacobian says there: the mechanism itself is
        singular (its rank is lost; no choice of coordinates helps), or
        only the coordinate choice is. Empty where the block is regular
        (the failure is another one, e.g. no solution at all)."""
        found = self._full_rank_ratio(t, q)
        if found is None:
            return ''
        J, ratio = found
        if block_measure(J, self.nm.q_dep_idx) >= PARTITION_RATIO:
            return ''
        ratio = 0.0 if ratio is None else ratio
        if ratio < FULL_RANK_RATIO:
            return (f' The Jacobian of the constraints with respect to '
                    f'all coordinates loses rank there (smallest/largest '
                    f'singular value {ratio:.2g}): the mechanism, not the '
                    f'choice of coordinates, is singular, and no choice of '
                    f'independent coordinates parametrizes the motion '
                    f'there.')
        return (f' The Jacobian of the constraints with respect to all '
                f'coordinates keeps its rank there (smallest/largest '
                f'singular value {ratio:.2g}): only the choice of '
                f'dependent coordinates is singular, and the engine could '
                f'not change it in time (a smaller max_step or rtol may '
                f'help).')

    def dependent_speeds(self, t, q, u, s):
        nm = self.nm
        if not nm.has_velocity_constraints:
            return u
        vel = nm.functions['vel'](self.input_vector(t, q, u, s))
        try:
            return numpy_kernels.dependent_speeds(
                vel, np.asarray(u, dtype=float), self.nu,
                len(nm.u_dep_idx), nm.u_ind_idx, nm.u_dep_idx)
        except np.linalg.LinAlgError:
            raise SimulationError(
                f'the velocity constraints are singular in the dependent '
                f'speeds {[str(nm.u[i]) for i in nm.u_dep_idx]} at t = '
                f'{float(t):.10g} ({format_state(nm.q, q)}).', time=t, q=q,
                u=u) from None

    def check_inputs(self, t, y):
        """Raise a :class:`SimulationError` naming the culprit when the
        integrator's state or a specified input is not finite."""
        nm = self.nm
        if not np.all(np.isfinite(y)):
            raise SimulationError(
                f'the integrator produced a state that is not finite at t '
                f'= {float(t):.10g}: {format_state(self.state_symbols, y)}.',
                time=t)
        values = self.specified(t)
        bad = [s for s, v in zip(nm.specified, values)
               if not math.isfinite(float(v))]
        if bad:
            raise SimulationError(
                f'the specified input {bad[0]} is not finite at t = '
                f'{float(t):.10g}: it returned '
                f'{values[nm.specified.index(bad[0])]!r} '
                f'({format_state(self.state_symbols, y)}).',
                time=t, q=np.asarray(y[:self.nq]))

    @property
    def state_symbols(self):
        if self.partitioned:
            return self.nm.q + [self.nm.u[i] for i in self.nm.u_ind_idx]
        return self.nm.q + self.nm.u

    def full_state(self, t, y):
        """The corrected ``(q, u)`` for the integrator state ``y``."""
        self.check_inputs(t, y)
        q = np.array(y[:self.nq], dtype=float)
        if self.partitioned:
            u = np.zeros(self.nu)
            u[self.nm.u_ind_idx] = y[self.nq:]
            q = self.solve_positions(t, q)
            s = self.specified(t) + list(self.friction_values)
            u = self.dependent_speeds(t, q, u, s)
        else:
            u = np.array(y[self.nq:], dtype=float)
        return q, u

    def solve_eom(self, t, q, u, s):
        """``(q', u')`` at a consistent state."""
        x = self.input_vector(t, q, u, s)
        if self.compiled:
            out = self._compiled_derivatives(x)
            if out is not None and np.all(np.isfinite(out)):
                return out[:self.nq], out[self.nq:]
        return self._eliminate(t, q, u, x)

    def derivatives_and_response(self, t, q, u, columns):
        """``(q', u', A)`` at a consistent state of a model without joint
        friction: the derivatives of :meth:`derivatives` and the change
        of all speeds per unit of the generalized forces ``columns`` (nu x
        r), ``A = C (C^T M C)^-1 C^T columns`` (``C`` with ``u = C u_i``
        on the velocity constraints), from one evaluation of the
        equations and one factorisation (the closed contacts of
        :mod:`.unilateral` need both at every step)."""
        x = self.input_vector(t, q, u, self.specified(t, q, u))
        return self._eliminate(t, q, u, x, columns)

    def _eliminate(self, t, q, u, x, columns=None):
        """:meth:`solve_eom`'s NumPy path at the input ``x``
        (:func:`._numeric.numpy_kernels.derivatives`), with the response
        to ``columns`` where they are given; a :class:`SimulationError`
        saying what is not finite or singular."""
        nm = self.nm
        with np.errstate(all='ignore'):     # non-finite values are reported
            e = nm.functions['eom'](x)
            vel = (nm.functions['vel'](x) if nm.has_velocity_constraints
                   else None)
        if not (np.all(np.isfinite(e)) and (
                vel is None or np.all(np.isfinite(vel)))):
            raise SimulationError(
                f'the equations of motion are not finite at t = '
                f'{float(t):.10g} ({format_state(nm.q, q)}; '
                f'{format_state(nm.u, u)}): {self._nonfinite_parts(e, vel)} '
                f'({self._nonfinite_cause(x, e)}).', time=t, q=q, u=u)
        try:
            with np.errstate(all='ignore'):
                out = numpy_kernels.derivatives(
                    e, vel, self.nq, self.nu, len(nm.u_dep_idx),
                    nm.kinematics_is_identity, nm.u_ind_idx, nm.u_dep_idx,
                    columns)
        except np.linalg.LinAlgError:
            out = None
        if out is None or not all(np.isfinite(a).all() for a in out):
            raise SimulationError(
                f'the mass matrix is singular at t = {float(t):.10g} '
                f'({format_state(nm.q, q)}; {format_state(nm.u, u)}).',
                time=t, q=q, u=u)
        return out

    def _nonfinite_cause(self, x, e):
        """Why the equations ``e`` are not finite at the input ``x``, as
        far as a fractional power tells (round-off or a negative base, see
        :meth:`.codegen.GeneratedFunction.explain_nonfinite`); else the
        question of a pole."""
        bad = [i for i in range(len(e)) if not np.isfinite(e[i])]
        names = {plain.name: str(symbol)
                 for symbol, plain in self.nm._plain.items()}
        try:
            causes = self.nm.functions['eom'].explain_nonfinite(
                x, bad[:8], names)
        except Exception:       # a diagnosis must not hide the error
            causes = []
        if not causes:
            return 'a load or constraint with a pole there?'
        kind, sentence = causes[0]
        return f'{kind}: {sentence}'

    def _nonfinite_parts(self, e, vel):
        """Which blocks of the generated equations are not finite."""
        _, mass, forcing, g, _ = eom_blocks(
            self.nq, self.nu, len(self.nm.u_dep_idx),
            self.nm.kinematics_is_identity)
        blocks = [('the kinematic differential equations', 0, mass),
                  ('the mass matrix', mass, forcing),
                  ('the forcing vector', forcing, g),
                  ('the time derivative of the velocity constraints',
                   g, len(e))]
        names = [name for name, a, b in blocks
                 if b > a and not np.all(np.isfinite(e[a:b]))]
        if vel is not None and not np.all(np.isfinite(vel)):
            names.append('the velocity constraints')
        return ', '.join(names) + (' is' if len(names) == 1 else ' are') \
            + ' not finite'

    def derivatives(self, t, q, u):
        """``q'``, ``u'`` and the joint-friction values at a consistent
        state (friction by relaxation, "Three-Dimensional Generalized
        Forces" course notes)."""
        spec = self.specified(t, q, u)
        if not self.n_friction:
            qdot, udot = self.solve_eom(t, q, u, spec)
            return qdot, udot, self.friction_values
        if self.stick_slip is not None:
            return self.stick_slip.derivatives(t, q, u)
        qdot, udot, f, _ = self.relax(
            t, q, u, lambda f: self.solve_eom(t, q, u, spec + list(f))
            + (None, (u, f)))
        return qdot, udot, f

    def multipliers(self, t, q, u, udot, slots):
        """The LoopJoints' multipliers at ``(t, q, u)`` with the
        accelerations ``udot`` and the friction slots ``slots`` (the
        values the equations were solved with), from the unconstrained
        equations (:class:`.multipliers.LoopMultipliers`)."""
        x = self.input_vector(t, q, u, self.specified(t, q, u)
                              + list(slots))
        try:
            return self.loops.solve(x, udot, self.nm.functions['eom'])
        except SimulationError as error:
            error.q, error.u = np.array(q, dtype=float), np.array(
                u, dtype=float)
            raise

    def relax(self, t, q, u, solve):
        """``(q', u', f, extra)``: the joint-friction magnitudes ``f`` by
        relaxation ("Three-Dimensional Generalized Forces" course notes),
        from the last ones: ``solve(f)`` gives ``(q', u', extra, used)``
        with the magnitudes ``f`` (``used``: the speeds and friction slots
        the equations were evaluated with), the joints' reactions then
        give new magnitudes (in a model closed by LoopJoints, from the
        multipliers solved from those equations), and ``f`` moves
        ``friction_relaxation`` of the way to them until they change by
        at most ``friction_tolerance`` (relative to ``max(1, |f|)``).
        :class:`SimulationError` where that takes more than
        ``friction_max_iterations``."""
        f = self.friction_values.copy()
        change = np.inf
        for _ in range(self.friction_max_iterations):
            qdot, udot, extra, used = solve(f)
            args = (q, u, udot, t)
            if self.loops is not None:
                self.multiplier_values = self.multipliers(
                    t, q, used[0], udot, used[1])
                args += (self.multiplier_values,)
            new = np.concatenate([
                np.atleast_1d(np.asarray(func(*args), dtype=float))
                for func in self.friction_functions])
            change = np.max(np.abs(new - f))
            f = f + self.friction_relaxation * (new - f)
            if change <= self.friction_tolerance * max(1.0,
                                                       np.max(np.abs(f))):
                self.friction_values = f
                return qdot, udot, f, extra
        raise SimulationError(
            f'the joint-friction iteration did not converge at t = '
            f'{float(t):.10g} after {self.friction_max_iterations} '
            f'iterations (last change {change:.3g} > friction_tolerance = '
            f'{self.friction_tolerance:g}; {format_state(self.nm.q, q)}; '
            f'{format_state(self.nm.u, u)}); try a smaller '
            f'friction_relaxation.', time=t, q=q, u=u)

    def rhs(self, t, y):
        try:
            return self._diagnosed_rhs(t, y)
        except Exception as error:
            if not (self.tolerant and isinstance(error, SimulationError)):
                raise
            # an implicit method's stage or Jacobian evaluation: NaN makes
            # SciPy's Radau/BDF reject the step and retry a smaller one
            self.deferred = error
            self._give_up_if_stuck(t, error)
            return np.full(len(y), np.nan)

    # failures an implicit method may meet within a window of STUCK_WINDOW
    # times the time span before it counts as stuck
    STUCK_FAILURES = 25
    STUCK_WINDOW = 1e-4
    # ... and evaluations it may spend without advancing STUCK_WINDOW
    STUCK_EVALUATIONS = 5000

    def watched(self, fun):
        """``fun`` for an implicit method, stopped when the method stops
        advancing: near a singular configuration the dependent speeds grow
        without bound and Radau or BDF creep towards it with ever smaller
        steps (DOP853 overshoots and stops at once). Also for any method
        when exact-sign joint friction may chatter where a joint sticks
        (:attr:`stall_hint` then explains)."""
        window = self.STUCK_WINDOW * abs(self.t_span[1] - self.t_span[0])
        direction = 1.0 if self.t_span[1] >= self.t_span[0] else -1.0
        state = {'count': 0, 'mark': -math.inf, 'front': -math.inf}

        def watched_fun(t, y):
            state['front'] = max(state['front'], direction * t)
            state['count'] += 1
            if state['count'] == self.STUCK_EVALUATIONS:
                if state['front'] - state['mark'] <= window:
                    self._diagnosed_rhs(t, y)     # raises if it can
                    raise SimulationError(
                        f'the integrator stopped advancing at t = '
                        f'{float(t):.10g} ({self.STUCK_EVALUATIONS} '
                        f'evaluations within {window:.3g} s; '
                        f'{format_state(self.state_symbols, y)}): '
                        + self._stall_reason(t, y), time=t)
                state['count'], state['mark'] = 0, state['front']
            return fun(t, y)
        return watched_fun

    def _stall_reason(self, t, y):
        """What a stalled integration most likely met: the stick-slip hint
        where there is one, a singular configuration of the mechanism
        where the Jacobian of the constraints with respect to *all*
        coordinates nearly loses rank at ``(t, y)`` (singular value ratio
        below the threshold of the constraint solver's own message, so
        that both say the same: no choice of coordinates removes it),
        else the general guess."""
        if self.stall_hint:
            return self.stall_hint
        general = 'a singular configuration or a discontinuity in the loads?'
        if not self.nm.has_config_constraints:
            return general
        try:
            q, _ = self.full_state(t, y)
            found = self._full_rank_ratio(t, q)
        except Exception:   # a failure report must not fail itself
            return general
        ratio = None if found is None else found[1]
        if ratio is None or not ratio < FULL_RANK_RATIO:
            return general
        return (f'the Jacobian of the constraints with respect to all '
                f'coordinates nearly loses rank there (singular value ratio '
                f'{ratio:.2g}): the mechanism itself is singular, which no '
                f'choice of independent coordinates removes.')

    def _give_up_if_stuck(self, t, error):
        """Raise ``error`` when the implicit method keeps failing at the
        same time: it is creeping towards a singular configuration with
        ever smaller steps (the explicit methods stop there at once)."""
        times = self._failure_times
        times.append(float(t))
        if len(times) > self.STUCK_FAILURES:
            del times[0]
            span = abs(self.t_span[1] - self.t_span[0])
            if max(times) - min(times) <= self.STUCK_WINDOW * span:
                raise error

    def _diagnosed_rhs(self, t, y):
        q, u = self.full_state(t, y)
        qdot, udot, _ = self.derivatives(t, q, u)
        if self.partitioned:
            ydot = np.concatenate([qdot, udot[self.nm.u_ind_idx]])
        else:
            ydot = np.concatenate([qdot, udot])
        if not np.all(np.isfinite(ydot)):
            raise SimulationError(
                f'the right-hand side is not finite at t = {float(t):.10g} '
                f'({format_state(self.nm.q, q)}; '
                f'{format_state(self.nm.u, u)}).', time=t, q=q, u=u)
        return ydot

    def jacobian(self, fun):
        """``jac(t, y)`` for the implicit integrators: forward
        differences over the independent entries of the state; the columns
        of the dependent coordinates are exactly zero.

        The dependent coordinates in a partitioned state are only Newton's
        starting guesses: the right-hand side does not depend on them, so
        their columns vanish. SciPy's own finite differences
        (``num_jac``) meet a zero column by enlarging the perturbation
        until it changes the result, and a guess moved by many radians lets
        Newton converge on another assembly branch; hence this Jacobian.
        The other columns are differences of a smooth function computed to
        the Newton tolerance (relative error about ``sqrt(eps)``), ample
        for the Newton iterations of Radau and BDF, which need only an
        approximate Jacobian.
        """
        root = math.sqrt(np.finfo(float).eps)

        def jac(t, y):
            # (the dependent coordinates of the partition in force)
            dependent = (set(self.nm.q_dep_idx) if self.partitioned
                         else set())
            columns = [j for j in range(self.state_size)
                       if j not in dependent]
            y = np.asarray(y, dtype=float)
            f0 = fun(t, y)
            J = np.zeros((len(y), len(y)))
            for j in columns:
                h = root * max(1.0, abs(y[j]))
                for step in (h, -h):
                    yj = y.copy()
                    yj[j] += step
                    column = (fun(t, yj) - f0) / step
                    if np.all(np.isfinite(column)):
                        J[:, j] = column
                        break
                else:
                    raise self.deferred or SimulationError(
                        f'the Jacobian of the right-hand side is not finite '
                        f'at t = {float(t):.10g} '
                        f'({format_state(self.state_symbols, y)}).', time=t)
            return J
        return jac

    # -- samples -----------------------------------------------------------

    def samples(self, times, states):
        """Corrected ``q, u`` and the configuration and velocity
        constraint residuals at the samples (``states`` has one column per
        sample, as ``solve_ivp``'s ``y``), each read with the partition in
        force at its time (a stretch starts at its change of partition)."""
        if len(self.history) == 1:
            return self._samples(times, states)
        times = np.asarray(times, dtype=float)
        states = np.asarray(states, dtype=float).reshape(
            self.state_size, len(times))
        stretch = self.stretches(times)
        n = len(times)
        q, u = np.empty((n, self.nq)), np.empty((n, self.nu))
        residual, velocity = np.empty(n), np.empty(n)
        current = (self.nm.partition, self.branch)
        try:
            for k, (_, partition, branch) in enumerate(self.history):
                rows = np.nonzero(stretch == k)[0]
                if not len(rows):
                    continue
                self._set_partition(partition, branch)
                q[rows], u[rows], residual[rows], velocity[rows] = \
                    self._samples(times[rows], states[:, rows])
        finally:
            self._set_partition(*current)
        return q, u, residual, velocity

    def stretches(self, times):
        """The index into :attr:`history` of the stretch of the run each
        of ``times`` belongs to (a stretch starts at its change)."""
        times = np.asarray(times, dtype=float)
        direction = 1.0 if self.t_span[1] >= self.t_span[0] else -1.0
        stretch = np.zeros(len(times), dtype=int)
        for k, (start, _, _) in enumerate(self.history[1:], 1):
            stretch[direction * (times - start) >= 0] = k
        return stretch

    def _samples(self, times, states):
        """:meth:`samples` with the current partition."""
        n = len(times)
        Y = np.ascontiguousarray(np.asarray(states, dtype=float).T)
        if self.compiled and not self.partitioned:
            # no dependent coordinates or speeds: the samples are the
            # state (the compiled correction would copy them unchanged)
            zeros = np.zeros(n)
            return (Y[:, :self.nq].copy(), Y[:, self.nq:].copy(), zeros,
                    zeros.copy())
        X = np.repeat(self.x[None, :], n, axis=0)
        X[:, 0] = times
        if self.spec_functions:
            X[:, self.slices[3]] = np.column_stack(
                [np.full(n, f.value) if isinstance(f, ConstantInput) else
                 [f(t) for t in times] for f in self.spec_functions]
                + [np.zeros(n)] * self.n_friction)
        if self.compiled and n:
            out = np.empty((n, self.nq + self.nu + 2))
            status = np.zeros(n, dtype=np.int64)
            self._rhs.states(Y, X, self.nm.fn, self.nm.dims, self.nm.idx,
                             self._opts, self.partitioned, out, status)
            q = out[:, :self.nq].copy()
            u = out[:, self.nq:self.nq + self.nu].copy()
            residual, velocity = out[:, -2].copy(), out[:, -1].copy()
            bad = np.nonzero(status)[0]
        else:
            q, u = np.empty((n, self.nq)), np.empty((n, self.nu))
            residual, velocity = np.zeros(n), np.zeros(n)
            bad = np.arange(n)
        for i in bad:             # the diagnosing path recovers or reports
            q[i], u[i] = self.full_state(times[i], Y[i])
            residual[i], velocity[i] = self.residuals(X[i], q[i], u[i])
        return q, u, residual, velocity

    def residuals(self, x, q, u):
        """Largest holonomic and velocity-constraint residuals."""
        nm = self.nm
        x = x.copy()
        x[self.slices[0]] = q
        x[self.slices[1]] = u
        nh, m = int(nm.dims[2]), len(nm.u_dep_idx)
        residual = velocity = 0.0
        if nh:
            residual = float(np.max(np.abs(nm.functions['hol'](x)[:nh])))
        if m:
            vel = nm.functions['vel'](x)
            K = vel[:m * self.nu].reshape(m, self.nu)
            velocity = float(np.max(np.abs(K @ u + vel[m * self.nu:])))
        return residual, velocity


def evaluate_outputs(problem, output_spec, times, q, u, extra_values):
    """The requested outputs at every sample."""
    names, shapes, sizes, function, _, uses_udot, multipliers = output_spec
    if multipliers and not problem.n_friction:
        rows = _rows_with_multipliers(problem, multipliers, times, q, u,
                                      extra_values)
        return _split_outputs(function, rows, names, shapes, sizes)
    if multipliers:
        wanted = [problem.loops.symbols.index(s) for s in multipliers]
    rows = []
    # the derivatives at each sample with the partition of its stretch
    stretch = problem.stretches(times)
    current = (problem.nm.partition, problem.branch)
    try:
        for i, t in enumerate(times):
            udot = np.zeros(problem.nu)
            f = problem.friction_values
            lam = []
            if uses_udot or problem.n_friction or multipliers:
                if problem.stick_slip is not None:
                    problem.stick_slip.mode_at(t)
                if len(problem.history) > 1:
                    _, partition, branch = problem.history[stretch[i]]
                    problem._set_partition(partition, branch)
                _, udot, f = problem.derivatives(t, q[i], u[i])
                if multipliers:
                    # those relax() solved with the friction values that
                    # gave udot (holding forces included)
                    lam = problem.multiplier_values[wanted]
            x = problem.input_vector(
                t, q[i], u[i], problem.specified(t, q[i], u[i]) + list(f))
            rows.append(np.concatenate([x, extra_values, udot, lam]))
    finally:
        if len(problem.history) > 1:
            problem._set_partition(*current)
    return _split_outputs(function, rows, names, shapes, sizes)


def _rows_with_multipliers(problem, multipliers, times, q, u, extra_values):
    """The output function's rows ``[x, extra, u', lambda]`` of a run
    without joint friction, the accelerations and the LoopJoints'
    multipliers solved for all samples as one batch
    (:meth:`.multipliers.LoopMultipliers.solve_many`)."""
    n = len(times)
    X = np.array([problem.input_vector(t, q[i], u[i], problem.specified(
        t, q[i], u[i])) for i, t in enumerate(times)]).reshape(
            n, len(problem.x))
    functions = problem.nm.functions
    try:
        lam, udot = problem.loops.solve_many(X, functions['eom'],
                                             functions['vel'])
    except SimulationError as error:
        k = int(np.argmin(np.abs(np.asarray(times) - error.time)))
        error.q, error.u = q[k].copy(), u[k].copy()
        raise
    wanted = [problem.loops.symbols.index(s) for s in multipliers]
    extra = np.repeat(np.asarray(extra_values, dtype=float)[None, :], n,
                      axis=0)
    return np.concatenate([X, extra, udot, lam[:, wanted]], axis=1)


def _split_outputs(function, rows, names, shapes, sizes):
    """The outputs by name from the rows of the output function."""
    values = (function(np.array(rows)) if len(rows) else
              np.zeros((0, sum(sizes))))
    result, start = {}, 0
    for name, shape, size in zip(names, shapes, sizes):
        block = values[:, start:start + size]
        result[name] = block[:, 0].copy() if shape is None else block.copy()
        start += size
    return result
