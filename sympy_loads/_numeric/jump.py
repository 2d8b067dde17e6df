"""The jump of the speeds at a rigid impact, compiled by numba once per
installation (see :mod:`sympy_loads._simulation.impacts` for the law and
the Python version, which handles every case this one hands back).

The law has one formulation, below, and two implementations: this one,
which the compiled DOP853 stepping applies without leaving numba, and
``ImpactEngine.jump`` in Python, its reference, which also serves the
NumPy back end, every SciPy method and contacts struck at once (a system
of impulses this kernel does not solve). ``tests/test_impact_law.py``
checks that both give the same jump. The event location has the same
pair: the compiled ``dop853.first_closing``/``dip_theta`` with Brent's
method in the stepping, and their Python references ``_first_closing``/
``_dip_time`` with SciPy's ``brentq`` in :mod:`.._simulation.integrators`,
sharing their constants (``SCAN_POINTS``, ``DIP_ITERATIONS``,
``INVERSE_PHI``).

One contact struck alone, at the consistent state in ``x`` (the input
vector of :mod:`.rhs`). With ``u = C u_i`` on the velocity constraints,
``C = [I; Z]``, ``Z = -K_d^-1 K_i`` (the identity without dependent
speeds), the impulse ``P`` along the impulse direction ``w`` (the partial
velocities of the contact point along the normal, minus the plane's
where it moves with the speeds) changes the independent speeds by
``du_i = (C^T M C)^-1 C^T w P`` [Kane1985]_, and Newton's law ``v_n^+ =
-e v_n^-`` along the law's direction ``l`` (``v_n = l . u``) sets

    P = -(1 + e) v_n^- / (l^T C (C^T M C)^-1 C^T w).

.. [Kane1985] T. R. Kane, D. A. Levinson, Dynamics: Theory and
   Applications, 1985, sec. 6.1 and 7.2 (nonholonomic partial velocities;
   generalized impulses).
"""

import math

import numpy as np
from numba import types

from . import OK
from .jit import call, jit
from .linalg import lu_factor, lu_solve
from .rhs import eom_blocks, speed_basis

__all__ = []

# the argument types of impact_jump(), which the stepping's strike() calls
# with by address (.dop853.with_calls)
_V, _I = types.float64[::1], types.int64[::1]
IMPACT_JUMP_TYPES = (_V, _I, _I, _I, types.int64, _V, _V, types.float64,
                     types.float64, _V)


@jit
def impact_jump(x, fn, dims, idx, eom_size, law, w, e, vn, du):
    """The speed change ``du`` (all ``nu`` speeds, into ``du``) of one
    impact at the consistent state in ``x``, with the law's and the
    impulse's directions ``law`` and ``w``, the restitution ``e`` and the
    normal speed before ``vn``; returns the impulse ``P``, or NaN where
    the jump is not determined here: a singular mass matrix or velocity
    constraints, or a contact point that cannot move along the normal (the
    Python version then reports it)."""
    nq, nu, nqd, m = dims[0], dims[1], dims[3], dims[4]
    ni = nu - m
    values = np.empty(eom_size)
    call(fn[4], fn[5], values, x)
    _, mass, forcing, _, _ = eom_blocks(nq, nu, m, dims[5] != 0)
    M = values[mass:forcing].reshape((nu, nu))
    # C (nu x ni): the independent speeds' rows are the identity
    C = np.zeros((nu, ni))
    uind = idx[nqd:nqd + ni]
    for k in range(ni):
        C[uind[k], k] = 1.0
    if m > 0:
        udep = idx[nqd + ni:nqd + nu]
        Kd = np.empty((m, m))
        permd = np.empty(m, dtype=np.int64)
        Z = np.empty((m, ni))
        if speed_basis(x, fn, idx, nu, m, nqd, Kd, permd, Z) != OK:
            return np.nan
        for j in range(m):
            for k in range(ni):
                C[udep[j], k] = Z[j, k]
    MC = np.empty((nu, ni))
    for a in range(nu):
        for k in range(ni):
            total = 0.0
            for j in range(nu):
                total += M[a, j] * C[j, k]
            MC[a, k] = total
    reduced = np.empty((ni, ni))
    b = np.empty(ni)
    l_reduced = np.empty(ni)
    for k1 in range(ni):
        b[k1] = 0.0
        l_reduced[k1] = 0.0
        for a in range(nu):
            b[k1] += C[a, k1] * w[a]
            l_reduced[k1] += C[a, k1] * law[a]
        for k2 in range(ni):
            total = 0.0
            for a in range(nu):
                total += C[a, k1] * MC[a, k2]
            reduced[k1, k2] = total
    perm = np.empty(ni, dtype=np.int64)
    if not lu_factor(reduced, ni, perm) > 0.0:
        return np.nan
    z = np.empty(ni)
    lu_solve(reduced, ni, perm, b, z)
    change, norm_l, norm_z = 0.0, 0.0, 0.0
    for k in range(ni):
        change += l_reduced[k] * z[k]
        norm_l += l_reduced[k] * l_reduced[k]
        norm_z += z[k] * z[k]
    # the normal speed's change per unit impulse must be positive
    if not (change > 1e-12 * math.sqrt(norm_l * norm_z)
            and math.isfinite(change)):
        return np.nan
    P = -(1.0 + e) * vn / change
    for a in range(nu):
        total = 0.0
        for k in range(ni):
            total += C[a, k] * z[k]
        du[a] = total * P
    return P
