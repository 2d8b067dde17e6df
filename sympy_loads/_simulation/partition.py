"""Private: the engine's choice of independent coordinates and speeds
(generalized coordinate partitioning with re-selection, [Wehage1982]_,
[Haug1989]_ sec. 6.3).

A closed-loop model names its dependent coordinates ``q_d`` and speeds
``u_d``; :func:`sympy_loads.simulate` integrates the others and solves
these from the constraints at every evaluation. That choice is a
modelling convenience: the block ``Phi_qd`` of the constraint Jacobian
(or ``K_d`` of the velocity constraints) can turn singular where the
mechanism is regular, e.g. where two links of a closed chain line up, and
any other choice of dependent coordinates would do. So the engine picks
its own partition and changes it during the run:

* at the start it keeps the model's partition when both of its blocks
  are well conditioned (measures at least :data:`PARTITION_RATIO`, see
  below); otherwise, and whenever during the run a block's measure falls
  below the threshold, it factors the *full* Jacobians ``Phi_q`` (``nh x
  nq``) and ``K`` (``m x nu``) by QR with column pivoting
  (``scipy.linalg.qr(..., pivoting=True)``): the first pivot columns are
  the best conditioned dependent set [Haug1989]_;
* it changes to that set where its measure is at least
  :data:`PARTITION_GAIN` times the current one, and the integration goes
  on from the same physical state with a restarted integrator (as after
  an impact); the sign of ``det(Phi_qd)`` of the new block becomes the
  assembly branch followed;
* where no set is that much better, every set is about as ill
  conditioned: the full Jacobian itself is nearly rank deficient, and the
  *mechanism* is near a singular configuration, which no choice of
  coordinates removes. The partition is kept, the threshold is lowered
  :data:`PARTITION_GAIN`-fold (so that the run is not stopped at every
  step near it), and the run passes or stops there as before (a change of
  assembly branch is an error);
* a step that fails within the current partition (its block turned
  singular within one step, faster than the threshold could catch) makes
  the run stop at the step's start and take any better conditioned set
  there;
* once the engine has taken the partition over from the model (at the
  start or by a change), it keeps to the best conditioned sets: it looks
  again where the current blocks' measures have fallen
  :data:`PARTITION_LOOK` times below those of the best sets it last found,
  and changes where another set is :data:`PARTITION_HYSTERESIS` times
  better (the hysteresis keeps it from switching back and forth). The
  integrator's tolerance governs the independent coordinates and speeds
  only; the dependent ones carry their error amplified by the block's
  conditioning (and its rate of change), up to a hundredfold at the
  threshold :data:`PARTITION_RATIO`, so waiting for that threshold would
  cost one to two digits (the IFToMM A01 pendulum in natural coordinates,
  re-selected every quarter swing, against the same pendulum written with
  its angle). Where SciPy
  steps the integration step by step (``solve_ivp``'s methods), the
  tolerance is moreover tightened at each step by the dependent entries'
  sensitivity to the independent ones
  (:meth:`.problem.Problem.tolerance_factor`), so that the requested
  tolerance bounds the dependent coordinates and speeds too: the
  pendulum's dependent speed ``u_x = -y u_y / x`` changes about ten times
  faster with ``y`` than ``y`` itself near the end of a chart, which the
  block's conditioning does not show. A model's own
  partition is kept until it degrades to :data:`PARTITION_RATIO` (a model
  that never needs a change pays nothing).

A block's *measure* (:func:`block_measure`) is its smallest pivot over
the largest column norm of the full Jacobian where the partition was
chosen: about the sine of the angle between the block's columns where
they turn parallel (two links lining up), and the relative size of a
single dependent column where it vanishes (a knife edge's blade across
its dependent speed). The kernels compute it at every evaluation from the
factorizations they make anyway (:mod:`sympy_loads._numeric.rhs`).

The state layout stays ``[q (all; dependent entries only as Newton's
guesses), u_i]`` (:mod:`.problem`); a change of partition changes which
speeds ``u_i`` holds, so the samples of each stretch are read with the
partition of that stretch (:meth:`.problem.Problem.samples`).

.. [Wehage1982] R. A. Wehage, E. J. Haug, "Generalized coordinate
   partitioning for dimension reduction in analysis of constrained
   dynamic systems", J. Mech. Des. 104(1):247-255, 1982,
   doi:10.1115/1.3256318.
.. [Haug1989] E. J. Haug, Computer Aided Kinematics and Dynamics of
   Mechanical Systems, Vol. I: Basic Methods, Allyn and Bacon, 1989,
   sec. 6.3 (generalized coordinate partitioning, choosing the
   independent coordinates by pivoting on the constraint Jacobian).
"""

import math
from typing import NamedTuple

import numpy as np
import scipy.linalg
import sympy as sm

from .._numeric.codegen import generate, symengine_available, to_symengine

__all__ = []

#: A dependent block (``Phi_qd`` or ``K_d``) counts as degraded below this
#: measure (smallest pivot over the full Jacobian's largest column norm):
#: the dependent rates are then amplified a hundredfold or more, and a few
#: more steps towards the singular configuration make the block singular.
#: The engine then chooses its partition again.
PARTITION_RATIO = 1e-2
#: A new partition is taken only where it improves the degraded block's
#: measure at least this many times (otherwise the full Jacobian is
#: itself nearly singular); after a declined change the threshold is
#: lowered as many times.
PARTITION_GAIN = 10.0
#: The engine changes to another dependent set where that set's measure
#: is at least this many times the current one's (and then looks again
#: where the current measures have fallen this many times below those of
#: the best sets): the dependent coordinates' and speeds' sensitivity to
#: the independent ones, which amplifies the integration error the
#: integrator's tolerance governs, then stays within this factor of the
#: best available set's.
PARTITION_HYSTERESIS = 1.15
#: ... and looks for one where the current measures have fallen this many
#: times (a little more than :data:`PARTITION_HYSTERESIS`, so that a
#: check made where they have just crossed it finds a set that much
#: better) below those of the best sets at the last choice.
PARTITION_LOOK = 1.3
#: Below this the threshold is not lowered further but switched off for
#: the rest of the run (the mechanism is at a singular configuration,
#: which the Newton solve's own checks handle).
PARTITION_FLOOR = 1e-6


class PartitionRecord(NamedTuple):
    """One change of the partition that :func:`~sympy_loads.simulate`
    integrates with (``SimulationResult.partitions``): from ``time`` on,
    the independent coordinates are ``coordinates`` and the independent
    speeds ``speeds`` (dynamic symbols, in ``model.q``/``model.u`` order);
    the others are solved from the constraints.

    Explanation
    ===========

    The engine changes the partition where a dependent block of the
    constraint Jacobians turns ill conditioned while the Jacobian with
    respect to all coordinates keeps its rank (generalized coordinate
    partitioning with re-selection, [Wehage1982]_, [Haug1989]_ sec. 6.3;
    see the tutorial "Simulating a closed-loop mechanism").

    Examples
    ========

    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import PartitionRecord
    >>> q2, q3, q5 = me.dynamicsymbols('q2 q3 q5')
    >>> u2, u3, u5 = me.dynamicsymbols('u2 u3 u5')
    >>> change = PartitionRecord(0.343, (q2, q3, q5), (u2, u3, u5))
    >>> change.time, [s.name for s in change.coordinates]
    (0.343, ['q2', 'q3', 'q5'])

    References
    ==========

    .. [Wehage1982] R. A. Wehage, E. J. Haug, "Generalized coordinate
       partitioning for dimension reduction in analysis of constrained
       dynamic systems", J. Mech. Des. 104(1):247-255, 1982,
       doi:10.1115/1.3256318.
    .. [Haug1989] E. J. Haug, Computer Aided Kinematics and Dynamics of
       Mechanical Systems, Vol. I: Basic Methods, Allyn and Bacon, 1989,
       sec. 6.3.
    """

    #: the time of the change
    time: float
    #: the independent coordinates from then on (model order)
    coordinates: tuple
    #: the independent speeds from then on (model order)
    speeds: tuple


class Partition(NamedTuple):
    """Which coordinates and speeds are dependent (indices into
    ``model.q`` and ``model.u``, ascending)."""

    q_dep: tuple
    u_dep: tuple


class ModelView:
    """A :class:`.numeric_model.NumericModel` seen with one run's
    partition: the partition's index arrays (``q_dep_idx``, ``q_ind_idx``,
    ``u_ind_idx``, ``u_dep_idx``, ``idx``), its ``hol`` function (in
    ``functions`` and the address table ``fn``, which is updated in place
    so that the compiled right-hand side's arguments stay valid); every
    other attribute is the model's."""

    def __init__(self, nm):
        self._nm = nm
        self.functions = dict(nm.functions)
        self.fn = np.array(nm.fn, dtype=np.int64)
        self.set(Partition(tuple(int(i) for i in nm.q_dep_idx),
                           tuple(int(i) for i in nm.u_dep_idx)))

    def __getattr__(self, name):
        if name == '_nm':      # (not yet set: unpickling)
            raise AttributeError(name)
        return getattr(self._nm, name)

    @property
    def model(self):
        """The numeric model itself."""
        return self._nm

    @property
    def partition(self):
        return Partition(tuple(int(i) for i in self.q_dep_idx),
                         tuple(int(i) for i in self.u_dep_idx))

    def set(self, partition):
        nm = self._nm
        nq, nu = len(nm.q), len(nm.u)
        self.q_dep_idx = np.array(partition.q_dep, dtype=int)
        self.u_dep_idx = np.array(partition.u_dep, dtype=int)
        self.q_ind_idx = np.array([i for i in range(nq)
                                   if i not in partition.q_dep], dtype=int)
        self.u_ind_idx = np.array([i for i in range(nu)
                                   if i not in partition.u_dep], dtype=int)
        self.idx = np.concatenate([self.q_dep_idx + 1, self.u_ind_idx,
                                   self.u_dep_idx]).astype(np.int64)
        if len(nm.f_h):
            hol = hol_function(nm, partition.q_dep)
            self.functions['hol'] = hol
            self.fn[0], self.fn[1] = hol.address or 0, hol.data


def hol_function(nm, dependent):
    """``[Phi (nh), dPhi/dq_d (nh x len(dependent))]`` of ``nm`` as a
    generated function of its input vector (the model's own ``hol`` for
    its own dependent set; others generated once per model and set, on
    the model's back end). ``dependent`` lists indices into ``nm.q``."""
    dependent = tuple(int(i) for i in dependent)
    if dependent == tuple(int(i) for i in nm.q_dep_idx):
        return nm.functions['hol']

    def build():
        plain = nm._plain
        phi = list(sm.Matrix(nm.f_h).xreplace(plain))
        columns = [plain[nm.q[i]] for i in dependent]
        if symengine_available():
            phi, columns = to_symengine(phi), to_symengine(columns)
        outputs = phi + [e.diff(s) for e in phi for s in columns]
        kind = 'llvm' if nm.backend == 'compiled' else 'numpy'
        return generate(nm.inputs(), outputs, kind, 'hol', graph='auto')
    # kept with the model (NumericModel.derived), as its other functions
    return nm.derived(('hol', dependent), build)


def column_scale(matrix):
    """The largest column norm of ``matrix`` (1.0 for an empty one, or
    where it is zero or not finite: a NaN scale would silence the
    kernels' check of the measures)."""
    matrix = np.asarray(matrix, dtype=float)
    if matrix.size == 0:
        return 1.0
    scale = float(np.sqrt((matrix * matrix).sum(axis=0).max()))
    return scale if math.isfinite(scale) and scale > 0.0 else 1.0


def block_measure(matrix, dependent, scale=None):
    """The measure of the dependent block ``matrix[:, dependent]``: its
    smallest pivot (QR with column pivoting) over ``scale``, by default
    the largest column norm of the whole ``matrix`` (1.0 for an empty
    block, 0.0 for one that is not finite). Unlike the block's own pivot
    ratio it falls where a block shrinks as a whole, e.g. a single
    dependent coordinate whose column vanishes; it is the kernels'
    measure (:mod:`sympy_loads._numeric.rhs`)."""
    matrix = np.asarray(matrix, dtype=float)
    block = matrix[:, list(dependent)]
    if block.size == 0:
        return 1.0
    if not np.all(np.isfinite(block)):
        return 0.0
    if scale is None:
        scale = column_scale(matrix)
    if not scale > 0.0:
        return 0.0
    R = scipy.linalg.qr(block, mode='r', pivoting=True)[0]
    pivots = np.abs(np.diag(R))
    if pivots.size < block.shape[1]:
        return 0.0
    return float(np.min(pivots) / scale)


def best_columns(matrix, count):
    """The ``count`` columns of ``matrix`` (rows >= count) that QR with
    column pivoting takes first, ascending: the best conditioned dependent
    set (Haug, sec. 6.3)."""
    if count == 0:
        return ()
    perm = scipy.linalg.qr(np.asarray(matrix, dtype=float), mode='r',
                           pivoting=True)[1]
    return tuple(sorted(int(i) for i in perm[:count]))


def full_jacobians(nm, x):
    """``(Phi_q (nh x nq) or None, K (m x nu) or None)`` at the input
    vector ``x``."""
    nq, nu = len(nm.q), len(nm.u)
    nh, m = len(nm.f_h), len(nm.u_dep_idx)
    J = K = None
    if nh:
        values = np.asarray(hol_function(nm, range(nq))(x), dtype=float)
        J = values[nh:].reshape(nh, nq)
    if m:
        values = np.asarray(nm.functions['vel'](x), dtype=float)
        K = values[:m * nu].reshape(m, nu)
    return J, K


class Choice(NamedTuple):
    """What :func:`choice` found at one state."""

    #: the partition to integrate with
    partition: Partition
    #: the measures ``(Phi_qd, K_d)`` of its blocks
    measures: tuple
    #: the largest column norms of the full ``Phi_q`` and ``K``
    scales: tuple
    #: the measures ``(Phi_qd, K_d)`` of the best conditioned sets
    best: tuple


def choice(nm, current, x, gain=PARTITION_GAIN):
    """The :class:`Choice` at the consistent input ``x``: the partition to
    integrate with, the measures of its blocks (:func:`block_measure`),
    the largest column norms of the full ``Phi_q`` and ``K`` (the kernels'
    scales of the measures) and the measures of the best conditioned sets
    of the full Jacobians. A block of ``current`` is replaced by the best
    conditioned set where that is at least ``gain`` times better
    (:data:`PARTITION_HYSTERESIS` during a run; after a step that failed
    in the current partition, any better set, ``gain = 1``); otherwise it
    is kept."""
    J, K = full_jacobians(nm, x)
    q_dep, u_dep = current.q_dep, current.u_dep
    measures, best_measures = [1.0, 1.0], [1.0, 1.0]
    for slot, (matrix, dep) in enumerate(((J, q_dep), (K, u_dep))):
        if matrix is None or not len(dep):
            continue
        now = block_measure(matrix, dep)
        measures[slot] = best_measures[slot] = now
        if not np.all(np.isfinite(matrix)):
            continue
        best = best_columns(matrix, len(dep))
        better = block_measure(matrix, best)
        best_measures[slot] = max(now, better)
        if best != tuple(dep) and better > gain * now:
            measures[slot] = better
            if slot == 0:
                q_dep = best
            else:
                u_dep = best
    scales = tuple(1.0 if matrix is None else column_scale(matrix)
                   for matrix in (J, K))
    return Choice(Partition(tuple(q_dep), tuple(u_dep)), tuple(measures),
                  scales, tuple(best_measures))


def choose(nm, current, x, gain=PARTITION_GAIN):
    """``(partition, measures, scales)`` of :func:`choice`."""
    found = choice(nm, current, x, gain)
    return found.partition, found.measures, found.scales
