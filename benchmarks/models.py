"""Benchmark models built with ordinary SymPy Mechanics (``KanesMethod``).

Each builder returns a :class:`types.SimpleNamespace` with at least ``kane``
(a ``KanesMethod`` after ``kanes_equations``), ``constants`` (symbol ->
float) and ``initial_conditions`` (coordinate or speed -> float), ready for
``sympy_loads.simulate``. The models are written from their published
descriptions; the check functions compare them with published numbers.

- :func:`andrews_squeezer`: Andrews' squeezing mechanism, seven rigid bodies,
  six holonomic constraints, one degree of freedom [HW]_ [IVP]_;
  :func:`check_andrews_against_published` checks its mass matrix and forcing
  against the published ones and :func:`andrews_textbook` integrates it the
  "textbook" way (SymPy ``lambdify`` + SciPy ``solve_ivp`` with ``fsolve``
  in the right-hand side), without sympy_loads.
- :func:`whipple_bicycle`: the Whipple bicycle with the benchmark parameters
  of Meijaard et al. [Meijaard2007]_, one holonomic and three nonholonomic
  constraints; :func:`check_bicycle_eigenvalues` checks the eigenvalues of its
  linearization against the published ones.
- :func:`planar_chain`: an n-link planar pendulum chain whose tip is held on
  a horizontal line (one holonomic constraint), formed.
- re-exported from ``tests/_unformed_models.py`` (Systems whose equations
  are not formed, shared with the tests): :func:`pin_chain`,
  :func:`absolute_chain`, :func:`closed_chain`, :func:`n_four_bar` (IFToMM
  A02) and :func:`n_four_bar_reference`.

References
==========

.. [HW] E. Hairer, G. Wanner, *Solving Ordinary Differential Equations II:
   Stiff and Differential-Algebraic Problems*, 2nd ed., Springer 1996,
   section VII.7 "Multibody systems", the seven body mechanism of
   Andrews and Schiehlen.
.. [IVP] F. Mazzia, C. Magherini, *Test Set for Initial Value Problem
   Solvers*, release 2.4, University of Bari, 2008, problem "Andrews'
   squeezing mechanism" (equations, parameters, initial values and the
   reference solution at t = 0.03).
.. [Meijaard2007] J. P. Meijaard, J. M. Papadopoulos, A. Ruina, A. L.
   Schwab, "Linearized dynamics equations for the balance and steer of a
   bicycle: a benchmark and review", Proc. R. Soc. A 463:1955-1982, 2007
   (parameters in Table 1, eigenvalues at 5 m/s and the weave and capsize
   speeds in Table 2).
"""

import time
import types

import os
import sys

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

# The Systems whose equations are not formed (chains, the IFToMM A02
# N-four-bar) are built once, in tests/_unformed_models.py, for the tests
# and the benchmarks alike.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, 'tests'))
from _unformed_models import (  # noqa: E402,F401
    absolute_chain, closed_chain, n_four_bar, n_four_bar_reference,
    pin_chain)

__all__ = ['andrews_squeezer', 'andrews_published_equations',
           'check_andrews_against_published', 'andrews_textbook',
           'andrews_textbook_setup',
           'whipple_bicycle', 'bicycle_initial_conditions',
           'bicycle_linearized_eigenvalues', 'bicycle_rhs',
           'check_bicycle_eigenvalues',
           'planar_chain', 'pin_chain', 'absolute_chain', 'closed_chain',
           'n_four_bar', 'n_four_bar_reference',
           'MEIJAARD_EIGENVALUES_5MS', 'MEIJAARD_WEAVE_SPEED',
           'MEIJAARD_CAPSIZE_SPEED']

_t = me.dynamicsymbols._t


def _rates_to_speeds(expr, coordinates, speeds):
    """Replace q' by u (the kinematic equations of all models are q' = u)."""
    return expr.xreplace({q.diff(_t): u for q, u in zip(coordinates, speeds)})


# ---------------------------------------------------------------------------
# Andrews' squeezing mechanism
# ---------------------------------------------------------------------------

# Parameters [IVP] (SI units).
_ANDREWS_VALUES = dict(
    m1=.04325, m2=.00365, m3=.02373, m4=.00706, m5=.07050, m6=.00706,
    m7=.05498, xa=-.06934, ya=-.00227, xb=-.03635, yb=.03273, xc=.014,
    yc=.072, c0=4530.0, I1=2.194e-6, I2=4.410e-7, I3=5.255e-6, I4=5.667e-7,
    I5=1.169e-5, I6=5.667e-7, I7=1.912e-5, d=28e-3, da=11.5e-3, e=2e-2,
    ea=1.421e-2, rr=7e-3, ra=.92e-3, l0=.07785, ss=35e-3, sa=1.874e-2,
    sb=1.043e-2, sc=1.8e-2, sd=2e-2, ta=2.308e-2, tb=9.16e-3, u=4e-2,
    ua=1.228e-2, ub=4.49e-3, zf=2e-2, zt=4e-2, fa=1.421e-2, mom=33e-3)

# Initial values of (beta, Theta, gamma, Phi, delta, Omega, epsilon) [IVP];
# all speeds are zero.
_ANDREWS_Q0 = (-0.0617138900142764496358948458001, 0.0,
               0.455279819163070380255912382449,
               0.222668390165885884674473185609,
               0.487364979543842550225598953530,
               -0.222668390165885884674473185609,
               1.23054744454982119249735015568)

# Reference solution at t = 0.03 [IVP] (the test set's reference solution
# of the andrews problem, positions y1..y7 and velocities y8..y14).
_ANDREWS_REFERENCE_Q = (0.1581077119629904e+2, -0.1575637105984298e+2,
                        0.4082224013073101e-1, -0.5347301163226948e+0,
                        0.5244099658805304e+0, 0.5347301163226948e+0,
                        0.1048080741042263e+1)
_ANDREWS_REFERENCE_U = (0.1139920302151208e+4, -0.1424379294994111e+4,
                        0.1103291221937134e+2, 0.1929337464421385e+2,
                        0.5735699284790808e+0, -0.1929337464421385e+2,
                        0.3231791658026955e+0)


def _andrews_parts():
    """Symbols, bodies, loads and constraints of the squeezing mechanism.

    Geometry (planar, every frame rotates about ``N.z``; ``e(a)`` and
    ``n(a)`` are the x and y unit vectors of a frame at absolute angle
    ``a``). Fixed points: ``O`` at the origin, ``A = (xa, ya)``,
    ``B = (xb, yb)``, ``C = (xc, yc)``. All seven rods meet at one point
    ``E``; each rod's end at ``E`` is a point of its own, and the six
    constraints put them together::

        body 1 (crank):   about O by beta;         mass centre O + ra e1
        body 2:           hinged to 1 at O + rr e1, angle beta + Theta;
                          mass centre at distance da, end E at distance d
                          (both along -e2)
        body 3:           about B by gamma;        E3 = B - ss n3
                          spring point D = B + sd e3 - sc n3
        body 5:           about A by delta;        hinge H5 = A + zt e5
        body 4:           hinged to 5 at H5, angle delta + Phi;
                          mass centre H5 - (e - ea) n4, E4 = H5 - e n4
        body 7:           about A by epsilon;      hinge H7 = A - u n7
        body 6:           hinged to 7 at H7, angle epsilon + Omega;
                          mass centre H7 + (zf - fa) e6, E6 = H7 + zf e6

    The spring of stiffness ``c0`` and free length ``l0`` acts between
    ``D`` and ``C``; the motor torque ``mom`` acts on the crank. The mass
    centres of the bodies 3, 5 and 7, which turn about fixed points, are at
    ``(sa, sb)``, ``(ta, tb)`` and ``(ua, ub)`` in their body frames: only
    their distances from the pivot enter the kinetic energy. The lengths
    are the ones named in [HW]_ and [IVP]_; the positions of the ``E``
    points are the ones that give the published constraints ``g1 ... g6``
    (``E3 = B + ss n3`` would not reproduce the published ``g1`` and
    ``g2``).
    """
    names = list(_ANDREWS_VALUES)
    p = types.SimpleNamespace(**{name: sm.Symbol(name)
                                 for name in names})
    q = me.dynamicsymbols('beta Theta gamma Phi delta Omega epsilon')
    u = me.dynamicsymbols('u_beta u_Theta u_gamma u_Phi u_delta u_Omega '
                          'u_epsilon')
    beta, Theta, gamma, Phi, delta, Omega, epsilon = q
    ub_, uT, ug, uP, ud, uO, ue = u

    N = me.ReferenceFrame('N')
    F1 = me.ReferenceFrame('F1')   # crank
    F2 = me.ReferenceFrame('F2')
    F3 = me.ReferenceFrame('F3')
    F4 = me.ReferenceFrame('F4')
    F5 = me.ReferenceFrame('F5')
    F6 = me.ReferenceFrame('F6')
    F7 = me.ReferenceFrame('F7')
    for frame, parent, angle, rate in ((F1, N, beta, ub_),
                                       (F2, F1, Theta, uT),
                                       (F3, N, gamma, ug),
                                       (F5, N, delta, ud),
                                       (F4, F5, Phi, uP),
                                       (F7, N, epsilon, ue),
                                       (F6, F7, Omega, uO)):
        frame.orient_axis(parent, parent.z, angle)
        frame.set_ang_vel(parent, rate*parent.z)

    O = me.Point('O')
    O.set_vel(N, 0)
    A = O.locatenew('A', p.xa*N.x + p.ya*N.y)
    B = O.locatenew('B', p.xb*N.x + p.yb*N.y)
    C = O.locatenew('C', p.xc*N.x + p.yc*N.y)
    for point in (A, B, C):
        point.set_vel(N, 0)

    def attach(name, base, offset, frame):
        point = base.locatenew(name, offset)
        point.v2pt_theory(base, N, frame)
        return point

    G1 = attach('G1', O, p.ra*F1.x, F1)
    H2 = attach('H2', O, p.rr*F1.x, F1)
    G2 = attach('G2', H2, -p.da*F2.x, F2)
    E2 = attach('E2', H2, -p.d*F2.x, F2)
    G3 = attach('G3', B, p.sa*F3.x + p.sb*F3.y, F3)
    E3 = attach('E3', B, -p.ss*F3.y, F3)
    D = attach('D', B, p.sd*F3.x - p.sc*F3.y, F3)
    G5 = attach('G5', A, p.ta*F5.x + p.tb*F5.y, F5)
    H5 = attach('H5', A, p.zt*F5.x, F5)
    G4 = attach('G4', H5, -(p.e - p.ea)*F4.y, F4)
    E4 = attach('E4', H5, -p.e*F4.y, F4)
    G7 = attach('G7', A, p.ua*F7.x + p.ub*F7.y, F7)
    H7 = attach('H7', A, -p.u*F7.y, F7)
    G6 = attach('G6', H7, (p.zf - p.fa)*F6.x, F6)
    E6 = attach('E6', H7, p.zf*F6.x, F6)

    masses = (p.m1, p.m2, p.m3, p.m4, p.m5, p.m6, p.m7)
    inertias = (p.I1, p.I2, p.I3, p.I4, p.I5, p.I6, p.I7)
    frames = (F1, F2, F3, F4, F5, F6, F7)
    centres = (G1, G2, G3, G4, G5, G6, G7)
    bodies = [me.RigidBody(f'body{i + 1}', centres[i], frames[i], masses[i],
                           (me.inertia(frames[i], 0, 0, inertias[i]),
                            centres[i]))
              for i in range(7)]

    # Spring D-C: force -c0 (L - l0)/L (D - C) on D [IVP].
    r = D.pos_from(C).express(N)
    length = sm.sqrt(r.dot(N.x)**2 + r.dot(N.y)**2)
    loads = [me.Force(D, -p.c0*(length - p.l0)/length*r),
             me.Torque(F1, p.mom*N.z)]

    gap = [E2.pos_from(E3), E2.pos_from(E4), E2.pos_from(E6)]
    config = [g.dot(axis) for g in gap for axis in (N.x, N.y)]
    velocity = [_rates_to_speeds(g.diff(_t), q, u) for g in config]
    return types.SimpleNamespace(params=p, q=q, u=u, N=N, bodies=bodies,
                                 loads=loads, configuration=config,
                                 velocity=velocity,
                                 points=dict(E2=E2, E3=E3, E4=E4, E6=E6,
                                             D=D))


def andrews_squeezer():
    r"""Andrews' squeezing mechanism as a ``KanesMethod`` [HW]_ [IVP]_.

    Explanation
    ===========

    Seven rigid bodies in the plane, coordinates ``y = (beta, Theta, gamma,
    Phi, delta, Omega, epsilon)`` (the crank angle ``beta`` and six angles
    that close the three loops), six holonomic constraints (the ends of the
    bodies 2, 3, 4 and 6 coincide), one degree of freedom, driven by the
    constant torque ``mom`` on the crank and loaded by a stiff spring. The
    bodies, points and loads are those of :func:`_andrews_parts`; the
    kinetic energy reproduces the published mass matrix exactly (see
    :func:`check_andrews_against_published`).

    ``beta`` and its rate are independent; the six other angles and rates
    are dependent, with the configuration constraints ``g1 ... g6`` of
    [IVP]_ and their time derivatives as velocity constraints. The speeds
    are the angular rates, ``u_i = q_i'``.

    Returns
    =======

    types.SimpleNamespace
        ``kane``; ``constants`` (symbol -> value); ``initial_conditions``
        (the published initial values, zero speeds); ``coordinates`` (the
        seven angles in the published order, which is also ``kane.q``'s);
        ``speeds``; ``reference`` (the published positions at ``t = 0.03``,
        an array in ``coordinates`` order) and ``reference_speeds`` (the
        published rates at ``t = 0.03``); ``t_final = 0.03``;
        ``configuration_constraints``, ``velocity_constraints``;
        ``bodies`` and ``loads``; ``timings`` (``'kanes_equations'``:
        seconds).
    """
    parts = _andrews_parts()
    q, u = parts.q, parts.u
    kane = me.KanesMethod(
        parts.N, q_ind=q[:1], u_ind=u[:1],
        kd_eqs=[qi.diff(_t) - ui for qi, ui in zip(q, u)],
        q_dependent=q[1:], configuration_constraints=parts.configuration,
        u_dependent=u[1:], velocity_constraints=parts.velocity)
    start = time.perf_counter()
    kane.kanes_equations(parts.bodies, parts.loads)
    kanes_seconds = time.perf_counter() - start
    constants = {getattr(parts.params, name): value
                 for name, value in _ANDREWS_VALUES.items()}
    ic = {qi: value for qi, value in zip(q, _ANDREWS_Q0)}
    ic.update({ui: 0.0 for ui in u})
    return types.SimpleNamespace(
        kane=kane, constants=constants, initial_conditions=ic,
        coordinates=tuple(q), speeds=tuple(u),
        reference=np.array(_ANDREWS_REFERENCE_Q),
        reference_speeds=np.array(_ANDREWS_REFERENCE_U), t_final=0.03,
        configuration_constraints=list(parts.configuration),
        velocity_constraints=list(parts.velocity),
        bodies=parts.bodies, loads=parts.loads, params=parts.params,
        timings={'kanes_equations': kanes_seconds})


def andrews_published_equations(params, coordinates, speeds):
    r"""The published ``M(y)``, ``f(y, y')`` and ``g(y)`` of [IVP]_.

    The equations of motion of [HW]_ and [IVP]_ are ``M(y) y'' = f(y, y')
    - G(y)^T lambda``, ``g(y) = 0`` with ``G = dg/dy``; ``y'`` is replaced
    here by the speeds.
    Transcribed from the problem description of the test set [IVP]_.
    """
    p = params
    beta, Theta, gamma, Phi, delta, Omega, epsilon = coordinates
    bp, Tp, gp, Pp, dp, Op, ep = speeds
    cos, sin = sm.cos, sm.sin
    M = sm.zeros(7, 7)
    M[0, 0] = (p.m1*p.ra**2 + p.m2*(p.rr**2 - 2*p.da*p.rr*cos(Theta)
                                   + p.da**2) + p.I1 + p.I2)
    M[1, 0] = M[0, 1] = p.m2*(p.da**2 - p.da*p.rr*cos(Theta)) + p.I2
    M[1, 1] = p.m2*p.da**2 + p.I2
    M[2, 2] = p.m3*(p.sa**2 + p.sb**2) + p.I3
    M[3, 3] = p.m4*(p.e - p.ea)**2 + p.I4
    M[4, 3] = M[3, 4] = (p.m4*((p.e - p.ea)**2 + p.zt*(p.e - p.ea)*sin(Phi))
                         + p.I4)
    M[4, 4] = (p.m4*(p.zt**2 + 2*p.zt*(p.e - p.ea)*sin(Phi)
                     + (p.e - p.ea)**2) + p.m5*(p.ta**2 + p.tb**2)
               + p.I4 + p.I5)
    M[5, 5] = p.m6*(p.zf - p.fa)**2 + p.I6
    M[6, 5] = M[5, 6] = (p.m6*((p.zf - p.fa)**2
                               - p.u*(p.zf - p.fa)*sin(Omega)) + p.I6)
    M[6, 6] = (p.m6*((p.zf - p.fa)**2 - 2*p.u*(p.zf - p.fa)*sin(Omega)
                     + p.u**2) + p.m7*(p.ua**2 + p.ub**2) + p.I6 + p.I7)
    xd = p.sd*cos(gamma) + p.sc*sin(gamma) + p.xb
    yd = p.sd*sin(gamma) - p.sc*cos(gamma) + p.yb
    length = sm.sqrt((xd - p.xc)**2 + (yd - p.yc)**2)
    force = -p.c0*(length - p.l0)/length
    fx, fy = force*(xd - p.xc), force*(yd - p.yc)
    f = sm.Matrix([
        p.mom - p.m2*p.da*p.rr*Tp*(Tp + 2*bp)*sin(Theta),
        p.m2*p.da*p.rr*bp**2*sin(Theta),
        fx*(p.sc*cos(gamma) - p.sd*sin(gamma))
        + fy*(p.sd*cos(gamma) + p.sc*sin(gamma)),
        p.m4*p.zt*(p.e - p.ea)*dp**2*cos(Phi),
        -p.m4*p.zt*(p.e - p.ea)*Pp*(Pp + 2*dp)*cos(Phi),
        -p.m6*p.u*(p.zf - p.fa)*ep**2*cos(Omega),
        p.m6*p.u*(p.zf - p.fa)*Op*(Op + 2*ep)*cos(Omega)])
    crank = (p.rr*cos(beta) - p.d*cos(beta + Theta),
             p.rr*sin(beta) - p.d*sin(beta + Theta))
    g = sm.Matrix([
        crank[0] - p.ss*sin(gamma) - p.xb,
        crank[1] + p.ss*cos(gamma) - p.yb,
        crank[0] - p.e*sin(Phi + delta) - p.zt*cos(delta) - p.xa,
        crank[1] + p.e*cos(Phi + delta) - p.zt*sin(delta) - p.ya,
        crank[0] - p.zf*cos(Omega + epsilon) - p.u*sin(epsilon) - p.xa,
        crank[1] - p.zf*sin(Omega + epsilon) + p.u*cos(epsilon) - p.ya])
    return M, f, g


def check_andrews_against_published(samples=10, seed=0, tolerance=1e-10):
    r"""Check the ``KanesMethod`` model against the published equations.

    Builds a second ``KanesMethod`` on the same bodies and loads with all
    seven coordinates and speeds independent (no constraints) and compares,
    at ``samples`` random states (angles in [-pi, pi], rates in [-50, 50]),
    its mass matrix and forcing with the published ``M`` and ``f``, and the
    model's configuration constraints with the published ``g`` and the
    velocity constraints with ``G(y) y'`` [IVP]_. Differences are relative
    to each published entry (to 1e-12 times the largest entry for entries
    that vanish). Raises ``AssertionError`` on a mismatch and
    returns the largest relative differences
    ``{'M': ..., 'f': ..., 'g': ..., 'G': ...}``.
    """
    parts = _andrews_parts()
    q, u = parts.q, parts.u
    free = me.KanesMethod(parts.N, q_ind=q, u_ind=u,
                          kd_eqs=[qi.diff(_t) - ui for qi, ui in zip(q, u)])
    free.kanes_equations(parts.bodies, parts.loads)
    M_pub, f_pub, g_pub = andrews_published_equations(parts.params, q, u)
    G_pub = g_pub.jacobian(q)*sm.Matrix(u)
    values = {getattr(parts.params, k): v for k, v in _ANDREWS_VALUES.items()}
    qs, us = sm.symbols('q0:7'), sm.symbols('w0:7')
    subs = dict(zip(q, qs)) | dict(zip(u, us))

    def numeric(expr):
        expr = sm.Matrix(expr).xreplace(subs).xreplace(values)
        return sm.lambdify([qs, us], expr, 'numpy')

    pairs = {'M': (free.mass_matrix, M_pub), 'f': (free.forcing, f_pub),
             'g': (sm.Matrix(parts.configuration), g_pub),
             'G': (sm.Matrix(parts.velocity), G_pub)}
    functions = {k: (numeric(a), numeric(b)) for k, (a, b) in pairs.items()}
    rng = np.random.default_rng(seed)
    worst = dict.fromkeys(pairs, 0.0)
    for _ in range(samples):
        qv = rng.uniform(-np.pi, np.pi, 7)
        uv = rng.uniform(-50, 50, 7)
        for key, (ours, published) in functions.items():
            a = np.asarray(ours(qv, uv), dtype=float)
            b = np.asarray(published(qv, uv), dtype=float)
            floor = 1e-12*max(np.max(np.abs(b)), 1e-300)
            error = np.abs(a - b)/np.maximum(np.abs(b), floor)
            worst[key] = max(worst[key], float(np.max(error)))
    for key, value in worst.items():
        assert value <= tolerance, (
            f'Andrews model: {key} differs from the published one by '
            f'{value:.2e} (relative)')
    return worst


def andrews_textbook_setup(model=None):
    r"""Set up the textbook integration of the squeezer (see
    :func:`andrews_textbook`): returns ``(setup_seconds, run)`` where
    ``run(t_final=0.03, rtol=1e-10, atol=1e-10, method='DOP853')`` integrates
    and returns ``(run_seconds, final_positions, info)``."""
    from scipy.integrate import solve_ivp
    from scipy.optimize import fsolve

    model = model if model is not None else andrews_squeezer()
    kane = model.kane
    q, u = list(model.coordinates), list(model.speeds)
    symbols = sorted(model.constants, key=sm.default_sort_key)
    c = np.array([model.constants[s] for s in symbols])
    qd = q[1:]

    start = time.perf_counter()
    g = sm.Matrix(model.configuration_constraints)
    residual = sm.lambdify([q, symbols], g, cse=True)
    jacobian = sm.lambdify([q, symbols], g.jacobian(qd), cse=True)
    velocity = sm.Matrix(model.velocity_constraints)
    A = sm.lambdify([q, symbols], velocity.jacobian(u), cse=True)
    eom = sm.lambdify([q, u, symbols], [kane.mass_matrix, kane.forcing],
                      cse=True)
    setup = time.perf_counter() - start

    def solve_dependent(y):
        qv = np.array(y[:7])

        def fun(x):
            qv[1:] = x
            return np.asarray(residual(qv, c), dtype=float).ravel()

        def fprime(x):
            qv[1:] = x
            return np.asarray(jacobian(qv, c), dtype=float)

        qv[1:] = fsolve(fun, y[1:7], fprime=fprime)
        uv = np.zeros(7)
        uv[0] = y[7]
        a = np.asarray(A(qv, c), dtype=float)
        uv[1:] = np.linalg.solve(a[:, 1:], -a[:, 0]*uv[0])
        return qv, uv

    def rhs(t, y):
        qv, uv = solve_dependent(y)
        mass, forcing = eom(qv, uv, c)
        udot = np.linalg.solve(np.asarray(mass, dtype=float),
                               np.asarray(forcing, dtype=float).ravel())
        return np.concatenate([uv, udot[:1]])

    ic = model.initial_conditions
    y0 = np.array([ic[qi] for qi in q] + [ic[u[0]]])

    def run(t_final=0.03, rtol=1e-10, atol=1e-10, method='DOP853'):
        start = time.perf_counter()
        y = y0.copy()
        y[:7], _ = solve_dependent(y)
        sol = solve_ivp(rhs, (0.0, t_final), y, method=method, rtol=rtol,
                        atol=atol)
        seconds = time.perf_counter() - start
        q_final, u_final = solve_dependent(sol.y[:, -1])
        info = dict(sol=sol, nfev=sol.nfev, success=sol.success,
                    u_final=u_final,
                    residual=float(np.max(np.abs(residual(q_final, c)))))
        return seconds, q_final, info

    return setup, run


def andrews_textbook(t_final=0.03, rtol=1e-10, atol=1e-10, model=None,
                     method='DOP853'):
    r"""The squeezer integrated the textbook way, with SymPy and SciPy only.

    Explanation
    ===========

    What a user of SymPy Mechanics does without sympy_loads, as in J. K.
    Moore, *Learn Multibody Dynamics*, chapter "Equations of Motion with
    Holonomic Constraints" (``fsolve`` on the configuration constraints
    inside the right-hand side) and the PyDy examples:

    1. ``sympy.lambdify(..., cse=True)`` the configuration constraints and
       their Jacobian with respect to the dependent coordinates, the
       velocity-constraint matrix, and the ``KanesMethod``'s own
       ``mass_matrix`` and ``forcing``, i.e. the *constrained* equations
       that ``KanesMethod`` forms (the row of the independent speed, with
       the dependent speeds eliminated symbolically, plus the time
       derivatives of the velocity constraints; solved together for all
       seven ``u'``). This is the usual practice, rather than eliminating
       the dependent speeds numerically from the unconstrained equations;
    2. ``scipy.integrate.solve_ivp`` on the state ``[q (all seven), u_beta]``
       whose right-hand side solves the dependent coordinates with
       ``scipy.optimize.fsolve`` (lambdified analytic Jacobian, default
       tolerance, starting from the dependent coordinates carried in the
       state), the dependent speeds from the velocity constraints, then
       ``M u' = F`` with ``numpy.linalg.solve``; ``q' = u`` for all seven
       coordinates.

    The ``KanesMethod`` is built beforehand (not timed, like the model that
    ``simulate()`` gets); the set-up time is the lambdify step.

    Returns
    =======

    (setup_seconds, run_seconds, final_positions, info)
        ``final_positions`` are the seven angles at ``t_final``, with the
        dependent ones solved by fsolve; ``info`` has the ``solve_ivp``
        result (``sol``), ``nfev``, ``u_final`` and the largest constraint
        residual at the final time (``residual``).
    """
    setup, run = andrews_textbook_setup(model)
    seconds, q_final, info = run(t_final, rtol, atol, method)
    return setup, seconds, q_final, info


from sympy_loads.examples._whipple import (  # noqa: E402,F401
    MEIJAARD_CAPSIZE_SPEED, MEIJAARD_EIGENVALUES_5MS, MEIJAARD_WEAVE_SPEED,
    bicycle_initial_conditions, bicycle_linearized_eigenvalues, bicycle_rhs,
    check_bicycle_eigenvalues, whipple_bicycle)


# ---------------------------------------------------------------------------
# Planar pendulum chain with its tip on a horizontal line
# ---------------------------------------------------------------------------

def planar_chain(n, angle=0.6):
    r"""An ``n``-link planar pendulum chain whose tip slides on a line,
    with its equations formed (``System.form_eoms()``, timed).

    Explanation
    ===========

    The model is :func:`closed_chain` of ``tests/_unformed_models.py``
    (the one builder the tests and benchmarks share): ``n`` uniform links
    (total length 1 m, mass 1 kg) hang from a fixed pivot ``O`` under
    gravity ``g`` (along ``-N.y``), connected by pin joints; the
    coordinates are the absolute angles ``q1 ... qn`` of the links from
    the downward vertical, the speeds ``ui = qi'``. The tip of the last
    link is held, without friction, on the horizontal line ``y = -h``::

        O
        |\ q1
        | \         y_tip = -l (cos q1 + ... + cos qn) = -h
        ...  \___ qn
        -----------*----------  y = -h

    ``qn`` and ``un`` are dependent. The initial configuration is the
    straight chain at ``angle`` from the vertical (which fixes ``h = n l
    cos(angle)``), at rest.

    The model's partition is singular where the last link is vertical
    (``sin qn = 0``), and the released chain whips its last link towards
    the vertical sooner the more links it has: from the default start
    (``angle = 0.6``) it reaches ``sin qn = 0`` after about 1.1, 0.74,
    0.46, 0.34 and 0.27 s for n = 4, 8, 16, 24 and 32 (total length 1 m).
    ``simulate()`` changes the partition there (``result.partitions``) and
    runs on; the benchmarks use 0.2 s, which the model's partition serves
    throughout.

    Returns
    =======

    types.SimpleNamespace
        ``kane`` (the formed ``KanesMethod``), ``system``, ``constants``,
        ``initial_conditions``, ``n``, ``timings`` (``'kanes_equations'``:
        the seconds of ``form_eoms()``).
    """
    if n < 2:
        raise ValueError('planar_chain needs n >= 2 links.')
    model = closed_chain(n, angle)
    start = time.perf_counter()
    model.system.form_eoms()
    seconds = time.perf_counter() - start
    return types.SimpleNamespace(
        kane=model.system.eom_method, system=model.system,
        constants=model.constants,
        initial_conditions=model.initial_conditions, n=n,
        timings={'kanes_equations': seconds})
