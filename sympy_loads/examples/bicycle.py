"""The Whipple bicycle of Meijaard et al. (2007): its weave, capsize and
castering eigenvalues identified from a simulated lean kick.

The pitch is solved by :class:`~sympy_loads.HolonomicConstraintSolver`, the
kick simulated by :func:`~sympy_loads.simulate` (one holonomic and three
nonholonomic constraints), and the eigenvalues identified from the
simulated motion are printed beside those of Meijaard et al., Table 2.

Run ``python -m sympy_loads.examples.bicycle [--speed 5] [--kick 1e-4]
[--duration 3] [--output DIR] [--no-plot]``: prints the solved pitch, a
summary of the simulation and the identified eigenvalues beside those of
Meijaard et al., Table 2, and saves ``bicycle.png`` (lean and steer angles
and rates versus time). Most of its run time (seconds; the gallery of the
documentation gives a measured one) is SymPy forming the equations of
motion.

The model is the benchmark bicycle of [Meijaard2007]_ built as in SymPy's
own bicycle test (``sympy/physics/mechanics/tests/test_kane3.py``): four
rigid bodies (rear wheel, rear frame with rider, fork with handlebar, front
wheel), knife-edge wheels rolling without slip on level ground; yaw ``q1``,
lean (roll) ``q2``, steer ``q5`` and the pitch ``q4``, which the front
wheel's contact with the ground makes dependent (one holonomic
constraint); the speeds ``u1``, ``u4``, ``u6`` are dependent through the
three velocity constraints of the front contact (nonholonomic).

How the eigenvalues are obtained: a small roll-rate kick excites all four
lateral modes. The samples ``x_k`` of lean, steer, lean rate and steer rate,
``dt`` apart, are fitted in the least-squares sense by ``x_(k+1) = Phi
x_k``. For motion close to upright straight running, ``Phi =
exp(A dt)`` with ``A`` the lateral state matrix of the linearized
equations, so each eigenvalue ``mu`` of ``Phi`` gives an eigenvalue
``lambda = ln(mu)/dt``. Nothing is linearized symbolically: the numbers
come from the nonlinear simulation alone, and they differ from the
published ones by the kick's nonlinear effects (of the order of the kick
squared) and the integration error.

References
==========

.. [Meijaard2007] J. P. Meijaard, J. M. Papadopoulos, A. Ruina, A. L.
   Schwab, "Linearized dynamics equations for the balance and steer of a
   bicycle: a benchmark and review", Proc. R. Soc. A 463 (2007)
   1955-1982: Table 1 (parameters), Table 2 (eigenvalues at 5 m/s).
   https://doi.org/10.1098/rspa.2007.1857
"""

import functools
import time as _time
import types

import numpy as np

from sympy_loads import HolonomicConstraintSolver, simulate
from sympy_loads.examples._report import (nonzero, one_line, parser,
                                          positive, save_figure)
from sympy_loads.examples import _whipple
from sympy_loads.examples._whipple import (bicycle_initial_conditions,
                                           whipple_bicycle)

#: Forward speed [m/s], roll-rate kick [rad/s], simulated time [s] and
#: samples per second of the run; integrator tolerances.
SETTINGS = {'speed': 5.0, 'kick': 1e-4, 'duration': 3.0,
            'samples_per_second': 200, 'rtol': 1e-12, 'atol': 1e-16}

#: A leaned and steered configuration whose pitch the example solves for
#: (lean, steer) [rad].
LEANED = (0.1, 0.2)

#: The lateral states: lean, steer (coordinates), lean rate, steer rate
#: (speeds), by name.
LATERAL = (('q', 'q2'), ('q', 'q5'), ('u', 'u2'), ('u', 'u5'))

#: Meijaard et al. (2007), Table 2: the eigenvalues [1/s] of the benchmark
#: bicycle at 5 m/s (castering, the weave pair, capsize), as a NumPy array.
MEIJAARD_EIGENVALUES_5MS = _whipple.MEIJAARD_EIGENVALUES_5MS

#: Meijaard et al. (2007), Table 2: the weave speed [m/s], above which the
#: weave mode is stable.
MEIJAARD_WEAVE_SPEED = _whipple.MEIJAARD_WEAVE_SPEED

#: Meijaard et al. (2007), Table 2: the capsize speed [m/s], above which the
#: capsize mode grows.
MEIJAARD_CAPSIZE_SPEED = _whipple.MEIJAARD_CAPSIZE_SPEED

#: Meijaard et al. (2007), Table 2, at 5 m/s, by mode.
MEIJAARD_TABLE_2 = {
    'weave': complex(MEIJAARD_EIGENVALUES_5MS[1]),
    'capsize': float(MEIJAARD_EIGENVALUES_5MS[3].real),
    'castering': float(MEIJAARD_EIGENVALUES_5MS[0].real),
}


def bicycle_model(steer_torque=False):
    """The Whipple bicycle with Meijaard's parameters, built once per
    process (and per ``steer_torque``): SymPy takes a few seconds to form
    its equations of motion, and :func:`~sympy_loads.simulate` keeps its
    generated code with the model.

    Parameters
    ==========

    steer_torque : bool, optional
        Whether a specified steer torque ``T_delta(t)`` acts between the
        rear frame and the fork (the input of Meijaard's linear model; it
        is ``model.steer_torque``, ``None`` without it).

    Returns
    =======

    types.SimpleNamespace
        ``kane`` (the ``KanesMethod``: independent coordinates yaw ``q1``,
        lean ``q2``, steer ``q5``, dependent pitch ``q4``; independent
        speeds lean rate ``u2``, rear wheel rate ``u3``, steer rate ``u5``),
        ``constants`` (Meijaard's Table 1 as ``{symbol: value}``), the
        coordinates by name (``yaw``, ``roll``, ``steer``, ``pitch``),
        ``rear_radius``, ``front_radius`` and ``steer_torque``; the model's
        code is in the private module ``sympy_loads.examples._whipple``.

    Examples
    ========

    >>> from sympy_loads.examples.bicycle import bicycle_model
    >>> model = bicycle_model()
    >>> model.kane.q.T
    Matrix([[q1(t), q2(t), q5(t), q4(t)]])
    >>> model.kane.u.T
    Matrix([[u2(t), u3(t), u5(t), u1(t), u4(t), u6(t)]])
    >>> bicycle_model() is model, model.steer_torque is None
    (True, True)
    """
    return _built_model(bool(steer_torque))


@functools.lru_cache(maxsize=2)
def _built_model(steer_torque):
    return whipple_bicycle(steer_torque=steer_torque)


def initial_conditions(model, speed, roll_rate=0.0, roll=0.0, steer=0.0):
    """Initial conditions of :func:`bicycle_model` riding straight at
    ``speed`` [m/s], as ``{symbol: value}`` for every coordinate and
    speed.

    Upright (or at the given ``roll`` and ``steer`` angles [rad]) with the
    lean rate ``roll_rate`` [rad/s] and the rear wheel turning at
    ``speed/rR``. The pitch ``q4 = 0`` and the dependent speeds
    (``u1 = u4 = 0``, ``u6 = speed/rF``) are starting guesses that
    :func:`~sympy_loads.simulate` and :func:`~sympy_loads.linearize`
    correct; upright straight running is a steady motion, the operating
    point of Meijaard's linear model.

    Examples
    ========

    >>> from sympy_loads.examples.bicycle import (bicycle_model,
    ...                                           initial_conditions)
    >>> model = bicycle_model()
    >>> start = initial_conditions(model, 5.0)
    >>> start[model.roll], start[model.kane.u[1]] * model.rear_radius
    (0.0, 5.0)
    """
    return bicycle_initial_conditions(model, speed, roll_rate=roll_rate,
                                      roll=roll, steer=steer)


def solve_pitch(model, lean=0.0, steer=0.0):
    """Pitch ``q4`` [rad] of the rear frame at the given lean and steer,
    solved from the holonomic constraint (the front wheel touches the
    ground) by :class:`~sympy_loads.HolonomicConstraintSolver`; returns
    ``(pitch, residual)``, the residual in metres.

    Examples
    ========

    Upright the pitch is zero by construction (to round-off: the Newton
    iteration stops within its tolerance, 1e-12); leaned and steered, the
    rear frame pitches a little:

    >>> from sympy_loads.examples.bicycle import bicycle_model, solve_pitch
    >>> pitch, residual = solve_pitch(bicycle_model(), lean=0.1, steer=0.2)
    >>> round(pitch, 9), residual < 1e-15
    (0.001821867, True)
    >>> pitch, residual = solve_pitch(bicycle_model())
    >>> abs(pitch) < 1e-12, residual < 1e-15
    (True, True)
    """
    solver = getattr(model, 'pitch_solver', None)
    if solver is None:
        solver = HolonomicConstraintSolver.from_kanes_method(
            model.kane, model.constants)
        model.pitch_solver = solver
    order = list(model.kane.q)
    q = np.zeros(len(order))
    q[order.index(model.roll)] = lean
    q[order.index(model.steer)] = steer
    q = solver.solve_positions(q)
    residual = float(np.max(np.abs(solver.residual(q))))
    return float(q[order.index(model.pitch)]), residual


def lateral_states(result):
    """Lean, steer, lean rate and steer rate of ``result``, one row per
    state, one column per sample.

    Examples
    ========

    >>> from sympy_loads.examples.bicycle import lateral_states, run
    >>> x = lateral_states(run(duration=0.5).result)
    >>> x.shape
    (4, 101)
    >>> x[:, 0].tolist()        # upright, lean rate = the kick
    [0.0, 0.0, 0.0001, 0.0]
    """
    columns = []
    for kind, name in LATERAL:
        names = result.q_names if kind == 'q' else result.u_names
        values = result.q if kind == 'q' else result.u
        columns.append(values[:, names.index(name)])
    return np.array(columns)


def identify_eigenvalues(t, x):
    """Eigenvalues of the linear motion ``x' = A x`` that fits the samples
    ``x`` (one row per state) at the equally spaced times ``t``.

    The least-squares solution of ``x_(k+1) = Phi x_k`` is ``Phi``
    = ``X1 X0^+``; with ``Phi = exp(A dt)`` each eigenvalue ``mu`` of
    ``Phi`` gives ``lambda = ln(mu)/dt``. Returned sorted by real part,
    then imaginary part.

    Examples
    ========

    A damped oscillator ``x'' + 0.4 x' + 4 x = 0`` sampled from its exact
    solution:

    >>> import numpy as np
    >>> from scipy.linalg import expm
    >>> from sympy_loads.examples.bicycle import identify_eigenvalues
    >>> A = np.array([[0.0, 1.0], [-4.0, -0.4]])
    >>> t = np.linspace(0, 5, 501)
    >>> x = np.array([expm(A*ti) @ [1.0, 0.0] for ti in t]).T
    >>> np.round(identify_eigenvalues(t, x), 8)
    array([-0.2-1.98997487j, -0.2+1.98997487j])
    """
    t = np.asarray(t, dtype=float)
    dt = np.diff(t)
    if not np.allclose(dt, dt[0], rtol=1e-9, atol=0):
        raise ValueError('identify_eigenvalues(): the samples must be '
                         'equally spaced')
    x = np.asarray(x, dtype=float)
    phi = x[:, 1:] @ np.linalg.pinv(x[:, :-1])
    mu = np.linalg.eigvals(phi).astype(complex)
    lam = np.log(mu)/dt[0]
    return lam[np.lexsort((lam.imag, lam.real))]


def classify(eigenvalues):
    """Name the eigenvalues of the lateral motion: the complex pair is the
    weave (returned with its positive imaginary part), the most negative
    real one the castering, the remaining real one the capsize mode
    (returned in the order weave, capsize, castering, as in Table 2).

    Examples
    ========

    >>> from sympy_loads.examples.bicycle import classify
    >>> classify([-14.1, -0.78 - 4.46j, -0.78 + 4.46j, -0.32])
    {'weave': (-0.78+4.46j), 'capsize': -0.32, 'castering': -14.1}
    """
    eigenvalues = np.asarray(eigenvalues)
    pair = eigenvalues[np.abs(eigenvalues.imag) > 1e-6]
    real = np.sort(eigenvalues[np.abs(eigenvalues.imag) <= 1e-6].real)
    modes = {}
    if len(pair) == 2:
        modes['weave'] = complex(pair[np.argmax(pair.imag)])
    if len(real) == 2:
        modes['capsize'], modes['castering'] = float(real[1]), float(real[0])
    else:
        for i, value in enumerate(real):
            modes[f'real {i + 1}'] = float(value)
    return modes


def run(speed=SETTINGS['speed'], kick=SETTINGS['kick'],
        duration=SETTINGS['duration'],
        samples_per_second=SETTINGS['samples_per_second']):
    """Build the bicycle, solve the pitch, simulate the kick and identify
    the eigenvalues; return a namespace with ``model``, ``result``,
    ``pitch`` (``{(lean, steer): (pitch, residual)}``), ``eigenvalues``
    (sorted), ``modes`` (mode name -> eigenvalue), ``errors`` (mode name
    -> distance to Table 2, at 5 m/s only), ``table`` (summary rows) and
    ``timings``.

    Examples
    ========

    One second of motion already gives the eigenvalues to about 1e-8:

    >>> from sympy_loads.examples.bicycle import MEIJAARD_TABLE_2, run
    >>> run_ = run(duration=1.0)
    >>> list(run_.modes)
    ['weave', 'capsize', 'castering']
    >>> max(run_.errors.values()) < 1e-7
    True
    >>> round(run_.modes['capsize'], 6), MEIJAARD_TABLE_2['capsize']
    (-0.322866, -0.32286642900409)
    """
    timings = {}
    start = _time.perf_counter()
    model = bicycle_model()
    timings['equations of motion (KanesMethod)'] = (_time.perf_counter()
                                                    - start)
    start = _time.perf_counter()
    pitch = {(0.0, 0.0): solve_pitch(model), LEANED: solve_pitch(model,
                                                                 *LEANED)}
    timings['pitch (HolonomicConstraintSolver)'] = (_time.perf_counter()
                                                    - start)
    t_eval = np.linspace(0.0, duration,
                         int(round(duration*samples_per_second)) + 1)
    initial = bicycle_initial_conditions(model, speed, roll_rate=kick)
    start = _time.perf_counter()
    result = simulate(model.kane, (0.0, duration), initial, model.constants,
                      t_eval=t_eval, rtol=SETTINGS['rtol'],
                      atol=SETTINGS['atol'])
    timings['simulate()'] = _time.perf_counter() - start
    if not result.success:
        raise RuntimeError(f'simulate() failed: {result.message}')
    eigenvalues = identify_eigenvalues(result.t, lateral_states(result))
    modes = classify(eigenvalues)
    errors = {}
    if abs(speed - 5.0) < 1e-12:
        errors = {name: abs(modes[name] - value)
                  for name, value in MEIJAARD_TABLE_2.items()
                  if name in modes}
    speed_index = result.u_names.index('u3')
    forward = result.u[:, speed_index]*model.rear_radius
    table = [
        ('forward speed [m/s]', f'{speed:g}'),
        ('lean-rate kick [rad/s]', f'{kick:g}'),
        ('simulated time [s]', f'{result.t[-1]:g}'),
        ('samples', f'{len(result.t)}'),
        ('RHS evaluations', f'{result.nfev}'),
        ('max |constraint residual| [m]',
         f'{np.max(result.constraint_residual):.2e}'),
        ('max |velocity residual| [m/s]',
         f'{np.max(result.velocity_residual):.2e}'),
        ('largest |lean| [rad]',
         f'{np.max(np.abs(lateral_states(result)[0])):.3e}'),
        ('change of forward speed [m/s]',
         f'{np.max(np.abs(forward - forward[0])):.1e}'),
    ]
    return types.SimpleNamespace(
        model=model, result=result, pitch=pitch, eigenvalues=eigenvalues,
        modes=modes, errors=errors, table=table, timings=timings,
        speed=speed, kick=kick)


def _format(value):
    value = complex(value)
    if abs(value.imag) < 1e-300:
        return f'{value.real:.9f}'
    return f'{value.real:.9f} +/- {abs(value.imag):.9f}i'


def report(run_):
    """The text the example prints.

    Examples
    ========

    >>> from sympy_loads.examples.bicycle import report, run
    >>> print(report(run(duration=1.0)))    # doctest: +ELLIPSIS
    Whipple bicycle, benchmark parameters of Meijaard et al. (2007)
    ...
      mode           identified from simulate()  Meijaard et al. (2007), Table 2  difference
      weave       -0.77534... +/- 4.46486...i    -0.775341882 +/- 4.464867714i ...
      capsize                      -0.32286...                     -0.322866429 ...
      castering                   -14.07838...                    -14.078389693 ...
    ...
    """
    lines = ['Whipple bicycle, benchmark parameters of Meijaard et al. '
             '(2007)', '']
    lines.append('Pitch q4 of the rear frame solved from the holonomic '
                 'constraint (front wheel on the ground) by '
                 'HolonomicConstraintSolver:')
    for (lean, steer), (pitch, residual) in run_.pitch.items():
        lines.append(f'  lean {lean:.1f} rad, steer {steer:.1f} rad: pitch '
                     f'{pitch: .12f} rad (constraint residual '
                     f'{residual:.1e} m)')
    lines.append('')
    width = max(len(label) for label, _ in run_.table)
    lines.append('simulate(): straight running, kicked in lean rate '
                 '(holonomic and nonholonomic constraints)')
    for label, value in run_.table:
        lines.append(f'  {label:<{width}}  {value:>12}')
    lines.append('')
    dt = run_.result.t[1] - run_.result.t[0]
    lines.append(
        f'Eigenvalues [1/s] identified from the simulated lean, steer, lean '
        f'rate and steer rate ({len(run_.result.t)} samples, '
        f'{dt:g} s apart): least-squares fit x(k+1) = Phi x(k), '
        f'lambda = ln(eig(Phi))/dt')
    header = f'  {"mode":<10} {"identified from simulate()":>30}'
    if run_.errors:
        header += (f' {"Meijaard et al. (2007), Table 2":>32} '
                   f'{"difference":>11}')
    lines.append(header)
    for name, value in run_.modes.items():
        line = f'  {name:<10} {_format(value):>30}'
        if name in run_.errors:
            line += (f' {_format(MEIJAARD_TABLE_2[name]):>32} '
                     f'{run_.errors[name]:>11.1e}')
        lines.append(line)
    if run_.errors:
        lines.append(f'  largest difference {max(run_.errors.values()):.1e} '
                     f'(nonlinear effects of the kick, of order kick^2, and '
                     f'integration error)')
    else:
        lines.append(f'  (Table 2 of Meijaard et al. gives the eigenvalues '
                     f'at 5 m/s; this run is at {run_.speed:g} m/s)')
    return '\n'.join(lines)


def plot(run_, output_dir):
    """Save ``bicycle.png`` (lean and steer angles and rates versus time)
    in ``output_dir`` and return its path.

    Examples
    ========

    >>> import os, tempfile
    >>> from sympy_loads.examples.bicycle import plot, run
    >>> path = plot(run(duration=0.5), tempfile.mkdtemp())
    >>> os.path.basename(path), os.path.getsize(path) > 1000
    ('bicycle.png', True)
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    result = run_.result
    x = lateral_states(result)
    fig, axes = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    axes[0].plot(result.t, 1e6*x[0], label='lean q2')
    axes[0].plot(result.t, 1e6*x[1], label='steer q5')
    axes[0].set_ylabel('angle [µrad]')
    axes[0].axhline(0, color='0.7', lw=0.8)
    axes[0].legend()
    axes[1].plot(result.t, 1e6*x[2], label="lean rate u2")
    axes[1].plot(result.t, 1e6*x[3], label="steer rate u5")
    axes[1].set_ylabel('angular speed [µrad/s]')
    axes[1].set_xlabel('time [s]')
    axes[1].axhline(0, color='0.7', lw=0.8)
    axes[1].legend()
    title = (f'Whipple bicycle at {run_.speed:g} m/s after a lean-rate kick '
             f'of {run_.kick:g} rad/s')
    return save_figure(fig, title, output_dir, 'bicycle.png')


def main(argv=None):
    """Command-line entry point; returns the namespace of :func:`run`.

    Examples
    ========

    >>> from sympy_loads.examples import bicycle
    >>> run_ = bicycle.main(['--duration', '1', '--no-plot'])
    ... # doctest: +ELLIPSIS
    Whipple bicycle, benchmark parameters of Meijaard et al. (2007)
    ...
      largest difference ... (nonlinear effects of the kick, ...)
    >>> float(run_.result.t[-1])
    1.0
    """
    options = parser('python -m sympy_loads.examples.bicycle',
                     one_line(__doc__), SETTINGS['duration'])
    options.add_argument('--speed', type=positive(),
                         default=SETTINGS['speed'],
                         help='forward speed in m/s (default 5; Meijaard '
                              'et al. give the eigenvalues at 5 m/s)')
    options.add_argument('--kick', type=nonzero, default=SETTINGS['kick'],
                         help='initial lean rate in rad/s (default 1e-4)')
    args = options.parse_args(argv)
    run_ = run(speed=args.speed, kick=args.kick, duration=args.duration)
    print(report(run_))
    if not args.no_plot:
        print(f'plot saved to {plot(run_, args.output)}')
    return run_


if __name__ == '__main__':
    main()
