"""Private: the numeric half of :class:`HolonomicConstraintSolver`.

:class:`ConstraintKinematics` is the base class of the public solver in
:mod:`sympy_loads.constraints`, which derives the symbolic quantities and
builds the numeric engine (``self._engine``) on which these methods run:
the input checks, the position, velocity and acceleration solves, the
kinematic analysis of a driven mechanism over time, the Jacobian, the
residual and the rank computation behind ``analyze`` [Autodesk]_. The
failure reports are in :mod:`sympy_loads._constraint_errors`.

References
==========

.. [Autodesk] Autodesk, "Dynamic Simulation: Constraint Kinematics",
   Section 4, Module 4 (2011), pages 2-14.
"""

import math

import numpy as np

from ._constraint_errors import (constraint_error, raise_position_failure,
                                 raise_singular)
from ._errors import ConstraintSolverError
from ._numeric import (BAD_INPUT as _BAD_INPUT, CONVERGED as _CONVERGED,
                       SINGULAR as _SINGULAR,
                       SINGULAR_RATIO as _SINGULAR_RATIO)
from ._utils import _real_array

__all__ = []

_FLOAT64 = np.dtype(np.float64)


class ConstraintKinematics:
    """Numeric solves on a constraint engine; the base class of
    :class:`~sympy_loads.constraints.HolonomicConstraintSolver`, which sets
    the attributes these methods and the failure reports read
    (``_engine``, ``_coordinates``, ``_dependent``, ``_dep_index``,
    ``_ind_index``, ``_single``, ``_tolerance``, ``_step_tolerance``) and
    the ``independent`` property."""

    #: Meaning of the status codes of :meth:`solve_positions`, by code.
    STATUS = ('converged', 'iteration limit reached',
              'stalled (the residual no longer decreases)',
              'constraints not finite', 'q not finite',
              'converged to a singular Jacobian')

    # -- input checks --------------------------------------------------------

    @staticmethod
    def _positive_float(name, value):
        if isinstance(value, bool) or not isinstance(
                value, (int, float, np.integer, np.floating)):
            raise TypeError(f'{name} must be a positive float, not '
                            f'{type(value).__name__} {value!r}.')
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f'{name} must be a positive finite number, '
                             f'got {value!r}.')
        return float(value)

    def _as_states(self, name, value, batch=None, check_finite=True):
        """Return ``value`` as a float array of shape (n,) or (m, n)."""
        if (type(value) is np.ndarray and value.dtype is _FLOAT64
                and value.flags.c_contiguous):
            array = value  # fast path for calls inside an ODE right side
        else:
            try:
                array = np.ascontiguousarray(_real_array(name, value))
            except ValueError:
                raise TypeError(
                    f'{name} must be an array of real numbers, not '
                    f'{type(value).__name__} {value!r}.') from None
        n = len(self._coordinates)
        if array.ndim not in (1, 2) or array.shape[-1] != n or (
                batch is not None and array.shape != batch):
            expected = (f'{batch}' if batch is not None else
                        f'({n},) or (m, {n})')
            raise constraint_error(
                f'{name} must have shape {expected} (one column per '
                f'coordinate {list(self._coordinates)}), got shape '
                f'{array.shape}.', coordinates=self._coordinates)
        if check_finite and not np.isfinite(array).all():
            rows = np.nonzero(~np.isfinite(array).reshape(-1, n).all(
                axis=1))[0]
            raise constraint_error(
                f'{name} contains NaN or inf values.',
                coordinates=self._coordinates, rows=rows)
        return array

    def _as_times(self, t, m):
        if m is None:
            if isinstance(t, float):   # also numpy.float64
                if t - t != 0.0:   # NaN or inf
                    raise constraint_error(f't must be finite, got {t}.')
                return float(t)
            if isinstance(t, (int, np.floating, np.integer)) and \
                    not isinstance(t, bool):
                t = float(t)
            else:
                t = _real_array('t', t)
                if t.ndim != 0:
                    raise constraint_error(
                        f't must be a scalar for a single configuration, got '
                        f'shape {t.shape}.')
                t = float(t)
            if not math.isfinite(t):
                raise constraint_error(f't must be finite, got {t}.')
            return t
        try:
            times = _real_array('t', t)
        except ValueError:
            raise TypeError(f't must be a real number or an array, not '
                            f'{t!r}.') from None
        if times.ndim == 0:
            times = np.full(m, float(times))
        if times.shape != (m,):
            raise constraint_error(
                f't must be a scalar or have shape ({m},) for a batch of {m} '
                f'configurations, got shape {times.shape}.')
        if not np.isfinite(times).all():
            raise constraint_error('t contains NaN or inf values.')
        return np.ascontiguousarray(times)

    # -- solves ------------------------------------------------------------

    def solve_positions(self, q, t=0.0, *, on_failure='raise',
                        return_status=False):
        r"""Solve :math:`\Phi(q, t) = 0` for the dependent coordinates.

        Explanation
        ===========

        Newton-Raphson iteration :math:`q_d \leftarrow q_d + \alpha\,
        \Delta q_d` with :math:`\Phi_{q_d}\, \Delta q_d = -\Phi` (least
        squares for a redundant set) and a backtracking line search
        choosing :math:`\alpha` [Autodesk]_. The
        independent entries of ``q`` are kept; its dependent entries are the
        starting guess. A batch of shape ``(m, n)`` is solved row by row in
        compiled code (or all rows at once in NumPy), each row from its own
        guess, in chunks of a few thousand rows so that the memory beyond
        the result stays bounded.

        The iteration stops early, as stalled, when the residual no longer
        decreases (no step reduces :math:`|\Phi|^2`, or three steps in a row
        reduce it by less than a fraction 1e-8): a configuration the
        mechanism cannot reach costs a few iterations, not
        ``max_iterations``.

        A batch in which some rows fail (a sweep over configurations, some
        of them unreachable) loses only those rows: with
        ``on_failure='nan'`` their dependent entries are NaN and the
        converged rows are returned; with the default
        ``on_failure='raise'`` the :class:`ConstraintSolverError` carries
        the same array as its ``solution`` attribute, with the status of
        every row in ``status``.

        Examples
        ========

        Moore's four-bar (``la = 1, lb = 4, lc = 3, ln = 5``) at
        ``q1 = 30 deg`` from guesses ``-75 deg`` and ``100 deg``:

        >>> import numpy as np
        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> q1, q2, q3 = sm.symbols('q1:4')
        >>> la, lb, lc, ln = 1, 4, 3, 5
        >>> loop = [la*sm.cos(q1) + lb*sm.cos(q1 + q2)
        ...         + lc*sm.cos(q1 + q2 + q3) - ln,
        ...         la*sm.sin(q1) + lb*sm.sin(q1 + q2)
        ...         + lc*sm.sin(q1 + q2 + q3)]
        >>> solver = HolonomicConstraintSolver(loop, [q1, q2, q3], [q2, q3])
        >>> q = solver.solve_positions(np.deg2rad([30, -75, 100]))
        >>> print(np.rad2deg(q[1:]).round(9).tolist())
        [-79.956117898, 108.613175852]

        A sweep in which one configuration cannot be assembled (a link of
        length 10 cannot close a loop whose other links reach at most 8):

        >>> long = HolonomicConstraintSolver(
        ...     [loop[0] + ln - 10, loop[1]], [q1, q2, q3], [q2, q3])
        >>> rows = np.deg2rad([[30, -75, 100], [0, -75, 100]])
        >>> Q, status = solver.solve_positions(rows, return_status=True)
        >>> status.tolist()
        [0, 0]
        >>> Q, status = long.solve_positions(rows, on_failure='nan',
        ...                                  return_status=True)
        >>> status.tolist(), bool(np.isnan(Q[:, 1:]).all())
        ([2, 2], True)

        Parameters
        ==========

        q : array_like, shape (n,) or (m, n)
            Coordinates in the order of ``coordinates``.
        t : float or array_like of shape (m,), optional
            Time (for driving constraints).
        on_failure : {'raise', 'nan'}, optional
            ``'raise'`` (default): a failed row raises
            :class:`ConstraintSolverError`. ``'nan'``: the dependent entries
            of failed rows are NaN and nothing is raised; rows of ``q`` that
            are not finite are then failed rows too (status 4).
        return_status : bool, optional
            Also return the status of each row (default False).

        Returns
        =======

        q : numpy.ndarray of the shape of ``q``
            The solved coordinates (NaN dependent entries in failed rows).
        status : int or numpy.ndarray of shape (m,)
            Only with ``return_status=True``; per row: 0 converged, 1
            iteration limit reached, 2 stalled (the residual no longer
            decreases: no solution near the guess), 3 the constraints
            evaluate to NaN or inf, 4 ``q`` not finite, 5 converged to a
            singular Jacobian (a toggle or locked configuration). The
            meanings are also in :attr:`STATUS`.

        Raises
        ======

        ConstraintSolverError
            With ``on_failure='raise'``: if the iteration does not converge
            (the error gives the residual reached, the iterations and the
            constraints involved), if the Jacobian with respect to the
            dependent coordinates is singular at the solution (a toggle or
            locked configuration; the error names the coordinates and
            constraints that lose rank), or if ``q`` is not finite; for a
            batch its ``rows`` are the failed rows, ``solution`` the result
            with NaN in them and ``status`` the status of every row. Also if
            ``q`` has the wrong shape or ``t`` is not finite.
        ValueError
            If ``on_failure`` is not ``'raise'`` or ``'nan'``.
        TypeError
            If ``q`` is not numeric.

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", page 3 (Newton-Raphson).
        """
        if on_failure != 'raise' and on_failure != 'nan':
            raise ValueError(f"on_failure must be 'raise' or 'nan', not "
                             f"{on_failure!r}.")
        if return_status is not False and return_status is not True:
            raise TypeError(f'return_status must be a bool, not '
                            f'{type(return_status).__name__} '
                            f'{return_status!r}.')
        raising = on_failure == 'raise'
        # a single float configuration goes straight to the kernels (which
        # copy it, so its layout does not matter, and check it is finite)
        single = (type(q) is np.ndarray and q.dtype is _FLOAT64
                  and q.shape == self._single)
        if not single:
            q = self._as_states('q', q, check_finite=False)
            single = q.ndim == 1
        if single:
            t = self._as_times(t, None)
            x, status, info = self._engine.newton(q, t)
            if status:
                if raising:
                    if status == _BAD_INPUT:     # the kernels check q
                        self._as_states('q', q)
                    raise_position_failure(self, x, t, status, *info)
                x[list(self._dep_index)] = np.nan
            return (x, status) if return_status else x
        q = self._as_states('q', q, check_finite=raising)
        # one time for all rows stays a float (no array of m copies)
        t = self._as_times(t, None if np.ndim(t) == 0 else q.shape[0])
        X, status, it, r, ratio = self._engine.newton_batch(q, t)
        status[(status == _CONVERGED) & (ratio < _SINGULAR_RATIO)] = _SINGULAR
        bad = np.nonzero(status != _CONVERGED)[0]
        if len(bad):
            row = bad[0]
            last = X[row].copy()       # the last iterate, for the report
            X[np.ix_(bad, self._dep_index)] = np.nan
            if raising:
                raise_position_failure(
                    self, last, t if np.ndim(t) == 0 else t[row], status[row],
                    it[row], r[row], ratio[row], rows=bad, solution=X,
                    status_array=status)
        return (X, status) if return_status else X

    def solve_velocities(self, q, qdot, t=0.0):
        r"""Solve :math:`\Phi_q \dot{q} = -\Phi_t` for the dependent
        velocities.

        Explanation
        ===========

        ``q`` must satisfy the constraints (see :meth:`solve_positions`).
        The independent entries of ``qdot`` are kept; its dependent entries
        are replaced by the solution of
        :math:`\Phi_{q_d} \dot{q}_d = -\Phi_t - \Phi_{q_i} \dot{q}_i`
        [Autodesk]_.

        Examples
        ========

        >>> import numpy as np
        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> x, y = sm.symbols('x y')
        >>> circle = HolonomicConstraintSolver([x**2 + y**2 - 25], [x, y],
        ...                                    [y])
        >>> circle.solve_velocities([3.0, 4.0], [1.0, 0.0])  # y' = -x x'/y
        array([ 1.  , -0.75])

        Parameters
        ==========

        q : array_like, shape (n,) or (m, n)
        qdot : array_like, same shape as ``q``
        t : float or array_like of shape (m,), optional

        Returns
        =======

        numpy.ndarray
            ``qdot`` with its dependent entries solved.

        Raises
        ======

        ConstraintSolverError
            If the Jacobian with respect to the dependent coordinates is
            singular, or for non-finite inputs or wrong shapes.

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", page 4 (velocities).
        """
        return self._solve_rates(q, qdot, None, t, False)

    def solve_accelerations(self, q, qdot, qddot, t=0.0):
        r"""Solve :math:`\Phi_q \ddot{q} = -(\Phi_q \dot{q})_q \dot{q}
        - 2 \Phi_{qt} \dot{q} - \Phi_{tt}` for the dependent accelerations.

        Explanation
        ===========

        ``q`` and ``qdot`` must satisfy the position and velocity
        constraints. The independent entries of ``qddot`` are kept; its
        dependent entries are solved [Autodesk]_.

        Examples
        ========

        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> x, y = sm.symbols('x y')
        >>> circle = HolonomicConstraintSolver([x**2 + y**2 - 25], [x, y],
        ...                                    [y])
        >>> # y'' = -(x'^2 + y'^2 + x x'')/y with x' = 1, y' = -3/4, x'' = 0
        >>> print(circle.solve_accelerations([3.0, 4.0], [1.0, -0.75],
        ...                                  [0.0, 0.0]).tolist())
        [0.0, -0.390625]

        Parameters
        ==========

        q, qdot, qddot : array_like, shape (n,) or (m, n)
        t : float or array_like of shape (m,), optional

        Returns
        =======

        numpy.ndarray
            ``qddot`` with its dependent entries solved.

        Raises
        ======

        ConstraintSolverError
            If the Jacobian with respect to the dependent coordinates is
            singular, or for non-finite inputs or wrong shapes.

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", pages 5 and 11-12 (accelerations).
        """
        return self._solve_rates(q, qdot, qddot, t, True)

    def _solve_rates(self, q, qdot, qddot, t, second):
        # Both back ends check single states for NaN/inf themselves.
        q = self._as_states('q', q, check_finite=False)
        qdot = self._as_states('qdot', qdot, q.shape, check_finite=False)
        qddot = (self._as_states('qddot', qddot, q.shape, check_finite=False)
                 if second else qdot)
        if q.ndim == 1:
            t = self._as_times(t, None)
            out, ratio = self._engine.rates(q, qdot, qddot, t, second)
            if ratio < _SINGULAR_RATIO:
                if ratio < 0.0:
                    for name, value in (('q', q), ('qdot', qdot),
                                        ('qddot', qddot)):
                        self._as_states(name, value)
                raise_singular(self, q, t, ratio)
            return out
        for name, value in (('q', q), ('qdot', qdot), ('qddot', qddot)):
            self._as_states(name, value)
        t = self._as_times(t, q.shape[0])
        out, ratio = self._engine.rates_batch(
            np.ascontiguousarray(q), np.ascontiguousarray(qdot),
            np.ascontiguousarray(qddot), t, second)
        bad = np.nonzero(ratio < _SINGULAR_RATIO)[0]
        if len(bad):
            raise_singular(self, q[bad[0]], t[bad[0]], ratio[bad[0]],
                           rows=bad)
        return out

    def solve_trajectory(self, q0, times):
        r"""Kinematic analysis of a fully driven mechanism over time.

        Explanation
        ===========

        For a mechanism whose coordinates are all fixed by kinematic and
        driving constraints (every coordinate dependent, mobility zero), as
        the Autodesk course module's piston-crank driven by
        :math:`\theta = \omega t`: solve
        positions, velocities and accelerations at each of ``times`` in
        turn. Each position solve starts from a second-order prediction
        :math:`q + \dot{q}\, \Delta t + \ddot{q}\, \Delta t^2/2` of the
        previous solution, so only the
        first needs a good guess, ``q0`` [Autodesk]_.

        Examples
        ========

        >>> import numpy as np
        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> theta, phi, x, t = sm.symbols('theta phi x t')
        >>> r, l, omega = 1.0, 3.0, 2.0
        >>> phis = [r*sm.cos(theta) + l*sm.cos(phi) - x,
        ...         r*sm.sin(theta) - l*sm.sin(phi),
        ...         theta - omega*t]                     # driving constraint
        >>> solver = HolonomicConstraintSolver(phis, [theta, phi, x],
        ...                                    [theta, phi, x], time=t)
        >>> q, qd, qdd = solver.solve_trajectory([0, 0, 4],
        ...                                      np.linspace(0, np.pi, 5))
        >>> q[:, 2].round(6)      # slider position
        array([4.      , 2.828427, 2.      , 2.828427, 4.      ])
        >>> print(qdd[0, 2].round(6))    # -r omega^2 (1 + r/l) at theta = 0
        -5.333333

        Parameters
        ==========

        q0 : array_like, shape (n,)
            Starting guess for the configuration at ``times[0]``.
        times : array_like, shape (k,)
            Increasing or decreasing times.

        Returns
        =======

        q, qdot, qddot : numpy.ndarray, each of shape (k, n)

        Raises
        ======

        ValueError
            If some coordinate is independent (not driven).
        ConstraintSolverError
            If a solve fails; the message gives the time.

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", pages 2-12.
        """
        if self._ind_index:
            raise ValueError(
                f'solve_trajectory needs a fully driven mechanism (every '
                f'coordinate dependent); {list(self.independent)} are '
                f'independent: add driving constraints for them.')
        q = self._as_states('q0', q0)
        if q.ndim != 1:
            raise ConstraintSolverError(
                f'q0 must have shape ({len(self._coordinates)},), got '
                f'{q.shape}.')
        try:
            times = np.asarray(times, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f'times must be an array of real numbers, not '
                            f'{times!r}.') from None
        if times.ndim != 1 or len(times) == 0:
            raise ConstraintSolverError(
                f'times must be a non-empty 1-D array, got shape '
                f'{times.shape}.')
        if not np.isfinite(times).all():
            raise ConstraintSolverError('times contains NaN or inf values.')
        n = len(self._coordinates)
        Q = np.empty((len(times), n))
        QD = np.empty_like(Q)
        QDD = np.empty_like(Q)
        zero = np.zeros(n)
        guess = q
        for k, t in enumerate(times):
            t = float(t)
            try:
                q = self.solve_positions(guess, t)
                qd = self.solve_velocities(q, zero, t)
                qdd = self.solve_accelerations(q, qd, zero, t)
            except ConstraintSolverError as error:
                raise ConstraintSolverError(
                    f'at t = {t} (sample {k}): {error}',
                    residual=error.residual, iterations=error.iterations,
                    constraints=error.constraints,
                    coordinates=error.coordinates, rows=(k,)) from error
            Q[k], QD[k], QDD[k] = q, qd, qdd
            if k + 1 < len(times):
                dt = times[k + 1] - t
                guess = q + qd * dt + 0.5 * qdd * dt * dt
        return Q, QD, QDD

    # -- Jacobian, residual and rank -----------------------------------------

    def jacobian(self, q, t=0.0):
        r"""Return the constraint Jacobian :math:`\Phi_q` at ``q``.

        Explanation
        ===========

        Entry :math:`(i, j)` is :math:`\partial \Phi_i / \partial q_j` over
        all coordinates [Autodesk]_.

        Examples
        ========

        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> x, y = sm.symbols('x y')
        >>> circle = HolonomicConstraintSolver([x**2 + y**2 - 25], [x, y],
        ...                                    [y])
        >>> circle.jacobian([3.0, 4.0])
        array([[6., 8.]])

        Parameters
        ==========

        q : array_like, shape (n,) or (m, n)
        t : float or array_like of shape (m,), optional

        Returns
        =======

        numpy.ndarray, shape (nc, n) or (m, nc, n)

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", page 7 (the Jacobian).
        """
        q = self._as_states('q', q)
        if q.ndim == 1:
            t = self._as_times(t, None)
            return self._engine.jacobian(q[None, :], np.array([t]))[0][0]
        return self._engine.jacobian(q, self._as_times(t, q.shape[0]))[0]

    def residual(self, q, t=0.0):
        r"""Return :math:`\Phi(q, t)`, shape (nc,) or (m, nc).

        Examples
        ========

        >>> import sympy as sm
        >>> from sympy_loads import HolonomicConstraintSolver
        >>> x, y = sm.symbols('x y')
        >>> circle = HolonomicConstraintSolver([x**2 + y**2 - 25], [x, y],
        ...                                    [y])
        >>> circle.residual([3.0, 4.5])
        array([4.25])

        References
        ==========

        .. [Autodesk] Autodesk, "Dynamic Simulation: Constraint
           Kinematics", page 2.
        """
        q = self._as_states('q', q)
        if q.ndim == 1:
            t = self._as_times(t, None)
            return self._engine.residual(q[None, :], np.array([t]))[0]
        return self._engine.residual(q, self._as_times(t, q.shape[0]))

    def _rank_analysis(self, q, t, rank_tolerance):
        """For :meth:`analyze`, after checking its arguments: the rank of
        ``Phi_q`` at ``q``, ``nq``, ``nc``, the redundant rows (those that do
        not raise the rank of the rows before them), the singular values
        and the rank of the dependent columns."""
        q = self._as_states('q', q)
        if q.ndim != 1:
            raise constraint_error(
                f'analyze takes one configuration of shape '
                f'({len(self._coordinates)},), got {q.shape}.')
        rank_tolerance = self._positive_float('rank_tolerance',
                                              rank_tolerance)
        J = self.jacobian(q, t)
        nc, n = J.shape
        if J.size == 0:
            s = np.zeros(0)
        else:
            s = np.linalg.svd(J, compute_uv=False)
        threshold = rank_tolerance * (s[0] if len(s) else 0.0)

        def rank_of(matrix):
            if matrix.size == 0:
                return 0
            values = np.linalg.svd(matrix, compute_uv=False)
            return int(np.sum(values > threshold))

        rank = int(np.sum(s > threshold)) if len(s) else 0
        redundant = []
        previous = 0
        for i in range(nc):
            current = rank_of(J[:i + 1])
            if current == previous:
                redundant.append(i)
            previous = current
        dependent_rank = rank_of(J[:, list(self._dep_index)])
        return rank, n, nc, redundant, s, dependent_rank
