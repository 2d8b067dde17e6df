"""Stability of the Whipple bicycle against forward speed: a parameter study
with :func:`~sympy_loads.simulate_many`.

Run ``python -m sympy_loads.examples.bicycle_stability [--speeds 25]
[--workers N] [--progress] [--kick 1e-6] [--duration 3] [--linear]
[--output DIR] [--no-plot]``: simulates the benchmark bicycle of Meijaard
et al. (2007) at ``--speeds`` forward speeds from 2 to 8 m/s, each kicked
in lean rate, fits the growth rate of the lean at each speed (the largest
real part of the eigenvalues), prints it beside the published linearized
equations' and saves ``bicycle_stability.png``. ``--workers N``
runs the speeds on a pool of ``N`` processes. Most of the run time is
SymPy forming the equations of motion once. ``--linear`` also computes the
eigenvalues at each speed with :func:`~sympy_loads.linearize` (the exact
linearization of the constrained equations) and prints them beside the
identified ones, with the weave and capsize speeds they give.

The model is the one of :mod:`sympy_loads.examples.bicycle` (SymPy's own
bicycle test with the benchmark parameters [Meijaard2007]_). Each case
differs only in the initial rear-wheel rate ``u3 = v/rR``; the cases run
with :func:`~sympy_loads.simulate_many`, which sends the prepared model to
each worker once.

How the growth rate is fitted: the lean, steer, lean rate and steer rate
sampled at equal steps are fitted by ``x_(k+1) = Phi x_k`` in the least-
squares sense; the eigenvalues ``ln(eig(Phi))/dt`` are those of the lateral
motion (weave pair, capsize, castering; see
:func:`sympy_loads.examples.bicycle.identify_eigenvalues`). The lean
follows the slowest of them: its growth rate is their largest real part
(positive: the lean grows; negative: it dies out, at the rate of its
magnitude). The reference is the
published linearized equations of the benchmark bicycle [Meijaard2007]_::

    M q'' + v C1 q' + (g K0 + v**2 K2) q = 0,    q = [lean, steer]

with their matrices ``M``, ``C1``, ``K0``, ``K2`` (:data:`MEIJAARD_MATRICES`);
the bicycle is self-stable between the weave speed (4.29 m/s) and the
capsize speed (6.02 m/s), where the largest real part is negative.

References
==========

.. [Meijaard2007] J. P. Meijaard, J. M. Papadopoulos, A. Ruina, A. L.
   Schwab, "Linearized dynamics equations for the balance and steer of a
   bicycle: a benchmark and review", Proc. R. Soc. A 463 (2007)
   1955-1982: Table 1 (parameters), the coefficient matrices of the
   benchmark bicycle, Table 2 (eigenvalues at 5 m/s, weave and capsize
   speeds). https://doi.org/10.1098/rspa.2007.1857
"""

import concurrent.futures
import time as _time
import types

import numpy as np
from scipy.optimize import brentq

from sympy_loads import Simulation, simulate_many
from sympy_loads.examples._report import (nonzero, one_line, parser,
                                          positive, save_figure)
from sympy_loads.examples._whipple import (MEIJAARD_CAPSIZE_SPEED,
                                           MEIJAARD_EIGENVALUES_5MS,
                                           MEIJAARD_WEAVE_SPEED,
                                           bicycle_initial_conditions)
from sympy_loads.examples.bicycle import (bicycle_model, classify,
                                          identify_eigenvalues,
                                          lateral_states)

#: Speeds (first, last [m/s] and how many), lean-rate kick [rad/s],
#: simulated time [s], samples per second, integrator tolerances. The kick
#: is small enough that the lean stays below 1e-2 rad even at 2 m/s, where
#: the weave grows as exp(2.7 t).
SETTINGS = {'first': 2.0, 'last': 8.0, 'speeds': 25, 'kick': 1e-6,
            'duration': 3.0, 'samples_per_second': 100, 'rtol': 1e-12,
            'atol': 1e-16}

#: The coefficient matrices of the linearized equations of the benchmark
#: bicycle, Meijaard et al. (2007) (lean, steer; SI units, g = 9.81).
MEIJAARD_MATRICES = {
    'M': np.array([[80.81722, 2.31941332208709],
                   [2.31941332208709, 0.29784188199686]]),
    'C1': np.array([[0.0, 33.86641391492494],
                    [-0.85035641456978, 1.68540397397560]]),
    'K0': np.array([[-80.95, -2.59951685249872],
                    [-2.59951685249872, -0.80329488458618]]),
    'K2': np.array([[0.0, 76.59734589573222],
                    [0.0, 2.65431523794604]]),
}


def published_eigenvalues(speed, g=9.81):
    """Eigenvalues [1/s] of the published linearized equations
    ``M q'' + v C1 q' + (g K0 + v**2 K2) q = 0`` at ``speed`` [m/s],
    sorted by real part, then imaginary part.

    Examples
    ========

    They give Table 2 of Meijaard et al. (2007) at 5 m/s, a weave pair on
    the imaginary axis at the weave speed and a zero capsize eigenvalue at
    the capsize speed:

    >>> import numpy as np
    >>> from sympy_loads.examples.bicycle_stability import (
    ...     published_eigenvalues)
    >>> from sympy_loads.examples.bicycle import (MEIJAARD_EIGENVALUES_5MS,
    ...     MEIJAARD_WEAVE_SPEED, MEIJAARD_CAPSIZE_SPEED)
    >>> table = np.sort_complex(MEIJAARD_EIGENVALUES_5MS)
    >>> bool(np.abs(published_eigenvalues(5.0) - table).max() < 1e-12)
    True
    >>> [round(float(published_eigenvalues(v)[-1].real), 10) + 0.0
    ...  for v in (MEIJAARD_WEAVE_SPEED, MEIJAARD_CAPSIZE_SPEED)]
    [0.0, 0.0]
    """
    p = MEIJAARD_MATRICES
    inverse = np.linalg.inv(p['M'])
    A = np.block([[np.zeros((2, 2)), np.eye(2)],
                  [-inverse @ (g*p['K0'] + speed**2*p['K2']),
                   -inverse @ (speed*p['C1'])]])
    values = np.linalg.eigvals(A)
    return values[np.lexsort((values.imag, values.real))]


def growth_rate(eigenvalues):
    """The growth rate of the lean: the largest real part of the lateral
    eigenvalues (the slowest mode, which the lean follows in the end);
    negative where the lean dies out.

    Examples
    ========

    >>> from sympy_loads.examples.bicycle_stability import growth_rate
    >>> growth_rate([-14.1, -0.78 - 4.46j, -0.78 + 4.46j, -0.32])
    -0.32
    """
    return float(np.max(np.real(eigenvalues)))


def crossing(speeds, values):
    """The speed where ``values`` changes sign (None when it does not):
    the root, between the two speeds that bracket it, of the cubic through
    the (up to) four values around them.

    Examples
    ========

    >>> import numpy as np
    >>> from sympy_loads.examples.bicycle_stability import crossing
    >>> speeds = np.linspace(4.0, 5.0, 5)

    The root of ``20 - v**2`` is ``sqrt(20)``, found to the round-off of
    the cubic fit (its scaled Vandermonde matrix has a condition number of
    some 7e4: the coefficients, and so the root, carry errors up to some
    1e-11, which vary with the BLAS kernels):

    >>> root = crossing(speeds, 20.0 - speeds**2)
    >>> round(root, 6), bool(abs(root - np.sqrt(20)) < 1e-9)
    (4.472136, True)
    >>> crossing(speeds, speeds) is None
    True
    """
    speeds = np.asarray(speeds, dtype=float)
    values = np.asarray(values, dtype=float)
    for i in range(len(values) - 1):
        a, b = values[i], values[i + 1]
        if not (np.isfinite(a) and np.isfinite(b) and a*b <= 0 and a != b):
            continue
        near = slice(max(i - 1, 0), min(i + 3, len(values)))
        x, y = speeds[near], values[near]
        keep = np.isfinite(y)
        coefficients = np.polyfit(x[keep], y[keep], min(3, keep.sum() - 1))
        # the root of the fit in the bracket by Brent's method on the
        # polynomial's values (the eigenvalues of its companion matrix,
        # np.roots, lose digits when the fitted cubic term is round-off)
        low, high = speeds[i], speeds[i + 1]
        f_low, f_high = (np.polyval(coefficients, v) for v in (low, high))
        if f_low == 0:
            return float(low)
        if f_high == 0:
            return float(high)
        if f_low * f_high < 0:
            return float(brentq(lambda v: np.polyval(coefficients, v), low,
                                high, xtol=1e-15, rtol=4 * np.finfo(
                                    float).eps))
        return float(speeds[i] + (speeds[i + 1] - speeds[i])*a/(a - b))
    return None


def run(speeds=None, workers=None, kick=SETTINGS['kick'],
        duration=SETTINGS['duration'], progress=False):
    """Simulate the bicycle at each speed and fit the growth rates; return a
    namespace with ``speeds``, ``results`` (one ``SimulationResult`` per
    speed), ``eigenvalues`` (identified, one array per speed; NaN for a
    failed case), ``modes`` (by name, per speed), ``growth`` (identified
    growth rate of the lean per speed), ``published`` (the published
    equations' growth rate per speed), ``weave_speed`` and
    ``capsize_speed`` (where the identified weave and capsize eigenvalues
    cross zero), ``timings``, ``workers``.

    Examples
    ========

    Three speeds, one in each regime (weave unstable, self-stable, capsize
    unstable), on a pool of two processes:

    >>> from sympy_loads.examples.bicycle_stability import run
    >>> study = run(speeds=[3.0, 5.0, 7.0], workers=2, duration=2.0)
    >>> [round(rate, 6) for rate in study.growth]
    [1.706756, -0.322866, 0.102682]
    >>> [round(rate, 6) for rate in study.published]
    [1.706756, -0.322866, 0.102682]
    """
    if speeds is None:
        speeds = np.linspace(SETTINGS['first'], SETTINGS['last'],
                             SETTINGS['speeds'])
    speeds = np.asarray(speeds, dtype=float)
    timings = {}
    start = _time.perf_counter()
    model = bicycle_model()
    timings['equations of motion (KanesMethod)'] = (_time.perf_counter()
                                                    - start)
    u3 = model.speed_symbol
    cases = [{u3: v/model.rear_radius} for v in speeds]
    initial = bicycle_initial_conditions(model, speeds[0], roll_rate=kick)
    t_eval = np.linspace(0.0, duration,
                         int(round(duration*SETTINGS['samples_per_second']))
                         + 1)
    options = dict(t_eval=t_eval, rtol=SETTINGS['rtol'],
                   atol=SETTINGS['atol'], progress=progress)
    start = _time.perf_counter()
    if workers:
        with concurrent.futures.ProcessPoolExecutor(workers) as pool:
            results = simulate_many(model.kane, (0.0, duration), initial,
                                    model.constants, cases, executor=pool,
                                    **options)
    else:
        results = simulate_many(model.kane, (0.0, duration), initial,
                                model.constants, cases, **options)
    timings['simulate_many()'] = _time.perf_counter() - start
    eigenvalues, modes = [], []
    for result in results:
        if result.success:
            values = identify_eigenvalues(result.t, lateral_states(result))
        else:
            values = np.full(4, np.nan)
        eigenvalues.append(values)
        modes.append(classify(values) if result.success else {})
    growth = [growth_rate(values) for values in eigenvalues]
    published = [growth_rate(published_eigenvalues(v)) for v in speeds]
    weave = [m['weave'].real if 'weave' in m else np.nan for m in modes]
    capsize = [m.get('capsize', np.nan) for m in modes]
    return types.SimpleNamespace(
        speeds=speeds, results=results, eigenvalues=eigenvalues,
        modes=modes, growth=growth, published=published,
        weave_speed=crossing(speeds, weave),
        capsize_speed=crossing(speeds, capsize), timings=timings,
        workers=workers, kick=kick, duration=duration)


def linear_study(speeds, model=None):
    """The lateral eigenvalues at each speed from
    :func:`~sympy_loads.linearize` (the linearization of the constrained
    equations about upright straight running; its states are the yaw,
    lean and steer angles and the lean rate, wheel rate and steer rate,
    of which yaw and wheel rate decouple there): a namespace with
    ``speeds``, ``eigenvalues`` (lean/steer block, sorted by real part,
    one array per speed), ``growth`` (their largest real part),
    ``weave_speed`` and ``capsize_speed`` (the exact crossings, by Brent's
    method on the linearization) and ``seconds`` (first linearization
    with the set-up, then all the others).

    Examples
    ========

    >>> from sympy_loads.examples.bicycle_stability import (linear_study,
    ...     published_eigenvalues)
    >>> linear = linear_study([3.0, 5.0, 7.0])
    >>> [round(rate, 9) for rate in linear.growth]
    [1.706756057, -0.322866429, 0.102681706]
    >>> round(linear.weave_speed, 10), round(linear.capsize_speed, 10)
    (4.2923825363, 6.0242620154)
    """
    model = bicycle_model() if model is None else model
    speeds = np.asarray(speeds, dtype=float)
    start = _time.perf_counter()
    simulation = Simulation(model.kane)

    def lateral(v):
        lin = simulation.linearize(bicycle_initial_conditions(model, v),
                                   model.constants)
        names = [str(s) for s in lin.states]
        rows = [names.index(n) for n in ('q2(t)', 'q5(t)', 'u2(t)',
                                         'u5(t)')]
        values = np.linalg.eigvals(lin.A[np.ix_(rows, rows)])
        return values[np.lexsort((values.imag, values.real))]
    eigenvalues = [lateral(speeds[0])]
    first = _time.perf_counter() - start
    start = _time.perf_counter()
    eigenvalues += [lateral(v) for v in speeds[1:]]
    rest = _time.perf_counter() - start

    def weave(v):
        values = lateral(v)
        return values[np.argmax(values.imag)].real

    def capsize(v):
        values = lateral(v)
        return np.max(values[values.imag == 0].real)
    return types.SimpleNamespace(
        speeds=speeds, eigenvalues=eigenvalues,
        growth=[growth_rate(values) for values in eigenvalues],
        weave_speed=brentq(weave, 3.0, 5.0, xtol=1e-14),
        capsize_speed=brentq(capsize, 5.0, 7.0, xtol=1e-14),
        seconds={'first linearize() (set-up included)': first,
                 f'{len(speeds) - 1} further operating points': rest})


def _speed(value):
    return 'not reached' if value is None else f'{value:.4f} m/s'


def report(study):
    """The text the example prints.

    Examples
    ========

    >>> from sympy_loads.examples.bicycle_stability import report, run
    >>> print(report(run(speeds=[4.0, 4.5], duration=2.0)))
    ... # doctest: +ELLIPSIS
    Whipple bicycle, benchmark of Meijaard et al. (2007): 2 forward speeds, ...
    <BLANKLINE>
      speed [m/s]  growth rate of the lean [1/s]  published equations  difference
             4.00                       0.413253             0.413253 ...
             4.50                      -0.262842            -0.262842 ...
    <BLANKLINE>
                                        from simulate_many()    Meijaard et al.
    weave speed (lean stable above)               4.3056 m/s         4.2924 m/s
    capsize speed (lean unstable above)          not reached         6.0243 m/s
    ...
    """
    where = (f'on {study.workers} processes' if study.workers
             else 'in this process')
    lines = [
        f'Whipple bicycle, benchmark of Meijaard et al. (2007): '
        f'{len(study.speeds)} forward speeds, lean-rate kick '
        f'{study.kick:g} rad/s, {study.duration:g} s each, simulate_many() '
        f'{where}', '',
        f'  {"speed [m/s]":>11}  {"growth rate of the lean [1/s]":>29}  '
        f'{"published equations":>19}  {"difference":>10}']
    for v, rate, reference, result in zip(study.speeds, study.growth,
                                          study.published, study.results):
        if not result.success:
            lines.append(f'  {v:11.2f}  failed: {result.message}')
            continue
        lines.append(f'  {v:11.2f}  {rate:29.6f}  {reference:19.6f}  '
                     f'{abs(rate - reference):10.1e}')
    lines.append('')
    lines.append(f'{"":35} {"from simulate_many()":>20} '
                 f'{"Meijaard et al.":>18}')
    lines.append(f'{"weave speed (lean stable above)":<35} '
                 f'{_speed(study.weave_speed):>20} '
                 f'{MEIJAARD_WEAVE_SPEED:>14.4f} m/s')
    lines.append(f'{"capsize speed (lean unstable above)":<35} '
                 f'{_speed(study.capsize_speed):>20} '
                 f'{MEIJAARD_CAPSIZE_SPEED:>14.4f} m/s')
    lines.append('(roots of the cubic through the simulated speeds around '
                 'each crossing)')
    lines.append('')
    for name, seconds in study.timings.items():
        lines.append(f'{name}: {seconds:.2f} s')
    linear = getattr(study, 'linear', None)
    if linear is not None:
        lines += ['', 'with linearize() (the exact linearization of the '
                  'constrained equations):', '',
                  f'  {"speed [m/s]":>11}  {"growth rate, linearize()":>24}  '
                  f'{"simulate_many()":>15}  {"difference":>10}']
        for v, rate, identified in zip(linear.speeds, linear.growth,
                                       study.growth):
            lines.append(f'  {v:11.2f}  {rate:24.9f}  {identified:15.9f}  '
                         f'{abs(rate - identified):10.1e}')
        lines.append('')
        for name, value, published in (
                ('weave speed', linear.weave_speed, MEIJAARD_WEAVE_SPEED),
                ('capsize speed', linear.capsize_speed,
                 MEIJAARD_CAPSIZE_SPEED)):
            lines.append(f'{name} from linearize(): {value:.12f} m/s '
                         f'(Meijaard et al. {published:.12f}; difference '
                         f'{abs(value - published):.1e})')
        for name, seconds in linear.seconds.items():
            lines.append(f'{name}: {seconds:.3f} s')
    return '\n'.join(lines)


def plot(study, output_dir):
    """Save ``bicycle_stability.png`` (the figure of :func:`figure`) in
    ``output_dir`` and return its path.

    Examples
    ========

    >>> import os, tempfile
    >>> from sympy_loads.examples.bicycle_stability import plot, run
    >>> path = plot(run(speeds=[3.0, 5.0], duration=1.0), tempfile.mkdtemp())
    >>> os.path.basename(path), os.path.getsize(path) > 1000
    ('bicycle_stability.png', True)
    """
    import matplotlib
    matplotlib.use('Agg')
    return save_figure(figure(study), 'Whipple bicycle: lean stability '
                       'against speed', output_dir, 'bicycle_stability.png')


def figure(study):
    """A matplotlib figure of the study: the real parts of the lateral
    eigenvalues (top) and the growth rate of the lean (bottom) against
    speed, identified from the simulations (markers) and from the
    published equations (lines), with Table 2 of Meijaard et al. and
    their weave and capsize speeds.

    Examples
    ========

    >>> from sympy_loads.examples.bicycle_stability import figure, run
    >>> fig = figure(run(speeds=[3.0, 5.0], duration=1.0))
    >>> [axis.get_ylabel() for axis in fig.axes]
    ['real parts of the eigenvalues [1/s]', 'growth rate of the lean [1/s]']
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt
    fine = np.linspace(min(study.speeds.min(), 2.0),
                       max(study.speeds.max(), 8.0), 400)
    reference = np.array([published_eigenvalues(v) for v in fine])
    identified = np.array(study.eigenvalues)
    table = np.asarray(MEIJAARD_EIGENVALUES_5MS)
    fig, axes = plt.subplots(2, 1, figsize=(7, 8), sharex=True)
    top, bottom = axes
    for j in range(4):
        top.plot(fine, reference[:, j].real, color='0.5', lw=1,
                 label='published equations' if j == 0 else None)
        top.plot(study.speeds, identified[:, j].real, 'o', ms=3,
                 color='C0', label='simulate_many()' if j == 0 else None)
    top.plot(np.full(len(table), 5.0), table.real, '*', ms=10, color='C2',
             label='Meijaard et al., Table 2 (5 m/s)')
    top.set_ylabel('real parts of the eigenvalues [1/s]')
    top.set_title('weave (pair), capsize and castering', fontsize='medium')
    bottom.plot(fine, reference.real.max(axis=1), color='k', lw=1.2,
                label='published equations')
    bottom.plot(study.speeds, study.growth, 'o', ms=5, mfc='none',
                color='C3', label='simulate_many()')
    bottom.plot([5.0], [table.real.max()], '*', ms=10, color='C2',
                label='Meijaard et al., Table 2 (5 m/s)')
    bottom.set_ylabel('growth rate of the lean [1/s]')
    bottom.set_title('largest real part: the lean grows where it is '
                     'positive, dies out where negative', fontsize='medium')
    bottom.set_xlabel('forward speed [m/s]')
    for axis in axes:
        axis.axhline(0.0, color='0.3', lw=0.8)
        for speed in (MEIJAARD_WEAVE_SPEED, MEIJAARD_CAPSIZE_SPEED):
            axis.axvline(speed, color='C2', ls='--', lw=1)
        axis.legend(loc='lower left', fontsize='small')
    for speed, name in ((MEIJAARD_WEAVE_SPEED, 'weave'),
                        (MEIJAARD_CAPSIZE_SPEED, 'capsize')):
        bottom.annotate(f' {name} speed {speed:.2f} m/s', (speed, 0.97),
                        xycoords=('data', 'axes fraction'), va='top',
                        fontsize='small', color='C2')
    return fig


def main(argv=None):
    """Command-line entry point; returns the namespace of :func:`run`.

    Examples
    ========

    >>> from sympy_loads.examples import bicycle_stability
    >>> study = bicycle_stability.main(['--speeds', '3', '--duration', '1',
    ...                                 '--no-plot'])
    ... # doctest: +ELLIPSIS
    Whipple bicycle, benchmark of Meijaard et al. (2007): 3 forward speeds...
    >>> study.speeds.tolist()
    [2.0, 5.0, 8.0]
    """
    options = parser('python -m sympy_loads.examples.bicycle_stability',
                     one_line(__doc__), SETTINGS['duration'])
    options.add_argument('--speeds', type=positive(int),
                         default=SETTINGS['speeds'],
                         help=f'number of forward speeds from '
                              f'{SETTINGS["first"]:g} to '
                              f'{SETTINGS["last"]:g} m/s (default '
                              f'{SETTINGS["speeds"]})')
    options.add_argument('--workers', type=positive(int), default=None,
                         help='run the speeds on a pool of this many '
                              'processes (default: in this process)')
    options.add_argument('--kick', type=nonzero, default=SETTINGS['kick'],
                         help=f'initial lean rate in rad/s (default '
                              f'{SETTINGS["kick"]:g})')
    options.add_argument('--progress', action='store_true',
                         help='show a progress bar (needs tqdm)')
    options.add_argument('--linear', action='store_true',
                         help='also compute the eigenvalues with '
                              'linearize() and compare')
    args = options.parse_args(argv)
    speeds = np.linspace(SETTINGS['first'], SETTINGS['last'], args.speeds)
    study = run(speeds, workers=args.workers, kick=args.kick,
                duration=args.duration, progress=args.progress)
    if args.linear:
        study.linear = linear_study(speeds)
    print(report(study))
    if not args.no_plot:
        print(f'plot saved to {plot(study, args.output)}')
    return study


if __name__ == '__main__':
    main()
