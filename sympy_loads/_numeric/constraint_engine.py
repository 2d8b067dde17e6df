"""The numeric side of :class:`sympy_loads.HolonomicConstraintSolver`.

One :class:`ConstraintEngine` per solver: two generated functions of the
input vector ``x = [t, q (n), qdot (n), p]``,

* ``resjac``: ``[Phi (nc), Phi_qd (nc x nd)]`` (Newton-Raphson),
* ``rates``: ``[Phi_q (nc x n), Phi_t (nc), gamma (nc)]`` (velocity and
  acceleration solves, Jacobian, analysis),

and the kernels that use them: the compiled ones of :mod:`.newton` or
their NumPy twins, behind the same methods.
"""

import threading
import warnings

import numpy as np

from . import CONVERGED, SINGULAR, SINGULAR_RATIO, numpy_kernels
from .codegen import (CodegenError, GeneratedFunction, MiscompiledError,
                      generate)

__all__ = []

#: Rows solved together in a batch: large enough for NumPy's vectorized
#: kernels to run at full speed, small enough that a chunk's work arrays
#: take a few MB (some 700 bytes a row in NumPy for a small mechanism), so
#: a million-row batch does not multiply its memory.
CHUNK_ROWS = 4096


class ConstraintEngine:
    """Generated constraint functions plus the kernels that solve them.

    Parameters
    ==========

    inputs : list of Symbol
        ``[t, q_0 .. q_n-1, qd_0 .. qd_n-1, p_0 ..]``.
    resjac, rates : list of Expr
        The flat outputs described in the module documentation (or their
        :class:`.GeneratedFunction` objects, when unpickled).
    n, nc : int
    dependent, independent : sequence of int
        Indices into ``q``.
    p : array
        Values of the constants ``p``.
    options : (tol, step_tol, max_iterations)
    backend : {'compiled', 'numpy'}
    strict : bool
        With ``backend='compiled'`` requested explicitly, a model SymEngine
        cannot compile is an error; otherwise the NumPy back end serves it
        (with a warning).
    """

    def __init__(self, inputs, resjac, rates, n, nc, dependent, independent,
                 p, options, backend, strict=False):
        self.n, self.nc = n, nc
        self.dep = np.asarray(dependent, dtype=np.int64)
        self.ind = np.asarray(independent, dtype=np.int64)
        self.pos = self.dep + 1          # entries of x holding q_dep
        self.p = np.asarray(p, dtype=float)
        self.tol, self.step_tol, self.maxit = options
        self.n_in = 1 + 2 * n + len(self.p)
        if isinstance(resjac, GeneratedFunction):    # from a pickle
            self.resjac, self.rates_function = resjac, rates
        elif backend == 'compiled':
            try:
                self.resjac = generate(inputs, resjac, 'llvm', 'resjac',
                                       graph='auto')
                self.rates_function = generate(inputs, rates, 'llvm',
                                               'rates', graph='auto')
            except CodegenError as error:
                if strict and not isinstance(error, MiscompiledError):
                    raise ValueError(f"backend='compiled': {error}") \
                        from None
                warnings.warn(f'{error} Using the NumPy back end.',
                              RuntimeWarning, stacklevel=4)
                backend = 'numpy'
        if backend == 'numpy' and not isinstance(resjac, GeneratedFunction):
            self.resjac = generate(inputs, resjac, 'numpy', 'resjac')
            self.rates_function = generate(inputs, rates, 'numpy', 'rates')
        self.backend = backend
        self._x = self.pack(np.zeros(n), 0.0)
        self._coordinates = slice(1, 1 + n)     # q in the input vector
        self._kernels = self._newton_packed = None
        self._lock = threading.Lock()
        self._acquire, self._release = self._lock.acquire, self._lock.release
        if backend == 'compiled':
            from . import kernel_set, newton
            kernel_set.ensure_compiled()
            self._kernels = newton
            nd = len(self.dep)
            self._fn = newton.with_newton(self.resjac)
            self._ints = np.concatenate([self.pos, np.zeros(nd, np.int64)])
            self._buf = np.zeros(7 + newton.newton_work_size(nc, nd))
            self._buf[:4] = [nc, self.tol, self.step_tol, self.maxit]
            self._iwork = np.zeros(max(nd, 1), dtype=np.int64)
            self._rates_work = np.zeros(newton.rates_work_size(n, nc, nd))

    def with_parameters(self, p):
        """An engine of the same functions (shared, not generated again)
        with the constants ``p``, and work arrays of its own."""
        return ConstraintEngine(None, self.resjac, self.rates_function,
                                self.n, self.nc, self.dep, self.ind, p,
                                (self.tol, self.step_tol, self.maxit),
                                self.backend)

    @property
    def seconds(self):
        """Code generation time of the two functions."""
        return self.resjac.seconds + self.rates_function.seconds

    def __reduce__(self):
        # the generated functions pickle themselves (their expressions, and
        # the machine code for the compiled back end, see codegen); the
        # addresses and work arrays are made afresh where it is unpickled
        return (ConstraintEngine, (
            None, self.resjac, self.rates_function, self.n, self.nc,
            self.dep, self.ind, self.p,
            (self.tol, self.step_tol, self.maxit), self.backend))

    # -- input vectors -------------------------------------------------------

    def pack(self, q, t, qd=None):
        """The input vector (or rows, for 2-D ``q``)."""
        q = np.asarray(q, dtype=float)
        if q.ndim == 1:
            x = np.empty(self.n_in)
            x[0] = t
            x[1:1 + self.n] = q
            x[1 + self.n:1 + 2 * self.n] = 0.0 if qd is None else qd
            x[1 + 2 * self.n:] = self.p
            return x
        m = q.shape[0]
        X = np.empty((m, self.n_in))
        X[:, 0] = t
        X[:, 1:1 + self.n] = q
        X[:, 1 + self.n:1 + 2 * self.n] = 0.0 if qd is None else qd
        X[:, 1 + 2 * self.n:] = self.p
        return X

    # -- the solves -----------------------------------------------------------

    def newton(self, q, t):
        """``(q, status, info)``: status ``SINGULAR`` for a converged solve
        with a singular Jacobian; ``info`` is ``(iterations, residual,
        pivot_ratio)`` for a failed solve, None for a converged one.

        The work arrays belong to the engine, which every caller of one
        solver shares (threads of a parameter study included), and the
        kernels release the GIL, so a solve holds the engine's lock."""
        coordinates = self._coordinates
        self._acquire()      # (faster than a with statement)
        try:
            x = self._x
            x[0] = t
            x[coordinates] = q
            if self._kernels is None:
                status, info = numpy_kernels.newton(
                    self.resjac, x, self.pos, self.nc, self.tol,
                    self.step_tol, self.maxit)
                status = int(status)
                if status == CONVERGED and info[2] < SINGULAR_RATIO:
                    status = SINGULAR
            else:
                kernel = self._newton_packed
                if kernel is None:      # once per engine
                    from .jit import entry_point
                    kernel = self._newton_packed = entry_point(
                        self._kernels.newton_packed, self._fn, x,
                        self._ints, self._buf)
                status = kernel(self._fn, x, self._ints, self._buf)
                info = self._buf[4:7] if status else None
            if not status:
                return x[coordinates].copy(), status, None
            it, r, ratio = info.tolist()
            return x[coordinates].copy(), status, (int(it), r, ratio)
        finally:
            self._release()

    def newton_batch(self, Q, T):
        """``(q, status, iterations, residual, pivot_ratio)`` per row of
        ``Q`` (m, n) at the times ``T`` (a float or shape (m,)).

        The rows are solved in chunks of :data:`CHUNK_ROWS`, so the work
        arrays (the input rows, and in NumPy the function values and the
        SVDs of a whole chunk) stay bounded whatever ``m`` is; only the
        results take memory in proportion to ``m``."""
        m, n = Q.shape[0], self.n
        q = np.empty((m, n))
        status = np.empty(m, dtype=np.int64)
        iterations = np.empty(m, dtype=np.int64)
        residual = np.empty(m)
        ratio = np.empty(m)
        for start in range(0, m, CHUNK_ROWS):
            stop = min(m, start + CHUNK_ROWS)
            X = self.pack(Q[start:stop],
                          T if np.ndim(T) == 0 else T[start:stop])
            if self._kernels is not None:
                s, i = self._kernels.newton_batch(
                    self._fn, X, self.pos, self.nc, self.tol,
                    self.step_tol, self.maxit)
            else:
                s, i = numpy_kernels.newton_batch(
                    self.resjac, X, self.pos, self.nc, self.tol,
                    self.step_tol, self.maxit)
            q[start:stop] = X[:, 1:1 + n]
            status[start:stop] = s
            iterations[start:stop] = i[:, 0]
            residual[start:stop] = i[:, 1]
            ratio[start:stop] = i[:, 2]
        return q, status, iterations, residual, ratio

    def rates(self, q, qd, qdd, t, second):
        """``(rates, pivot_ratio)``; the ratio is -1 for non-finite
        input."""
        if self._kernels is None:
            out, ratio = self.rates_batch(q[None], qd[None], qdd[None],
                                          np.array([t]), second)
            return out[0], float(ratio[0])
        out = np.empty(self.n)
        with self._lock:      # the shared work arrays (see newton)
            x = self._x
            x[0] = t
            x[1:1 + self.n] = q
            x[1 + self.n:1 + 2 * self.n] = qd
            ratio = self._kernels.rates(
                self.rates_function.address, self.rates_function.data, x,
                self.n, self.nc, self.dep, self.ind, qdd if second else qd,
                second, out, self._rates_work, self._iwork)
        return out, float(ratio)

    def rates_batch(self, Q, QD, QDD, T, second):
        """``(rates, pivot_ratio)`` per row, in chunks of
        :data:`CHUNK_ROWS` like :meth:`newton_batch`."""
        m = Q.shape[0]
        out = np.empty((m, self.n))
        ratio = np.empty(m)
        KNOWN = QDD if second else QD
        for start in range(0, m, CHUNK_ROWS):
            stop = min(m, start + CHUNK_ROWS)
            X = self.pack(Q[start:stop],
                          T if np.ndim(T) == 0 else T[start:stop],
                          QD[start:stop])
            known = np.ascontiguousarray(KNOWN[start:stop], dtype=float)
            if self._kernels is not None:
                o, r = self._kernels.rates_batch(
                    self.rates_function.address, self.rates_function.data,
                    X, self.n, self.nc, self.dep, self.ind, known, second)
            else:
                o, r = numpy_kernels.rates_batch(
                    self.rates_function, X, self.n, self.nc, self.dep,
                    self.ind, known, second)
            out[start:stop] = o
            ratio[start:stop] = r
        return out, ratio

    # -- plain evaluations ----------------------------------------------------

    def residual(self, Q, T):
        """``Phi`` for rows ``Q``: shape (m, nc)."""
        if not Q.shape[0]:      # SymEngine refuses an empty batch
            return np.empty((0, self.nc))
        return self.resjac(self.pack(Q, T))[:, :self.nc]

    def jacobian(self, Q, T):
        """``Phi_q`` (m, nc, n) and ``Phi_t`` (m, nc) for rows ``Q``."""
        m, n, nc = Q.shape[0], self.n, self.nc
        if not m:               # SymEngine refuses an empty batch
            return np.empty((0, nc, n)), np.empty((0, nc))
        values = self.rates_function(self.pack(Q, T))
        return (values[:, :nc * n].reshape(m, nc, n),
                values[:, nc * n:nc * n + nc])
