"""Small helpers shared by the simulation examples (tables, argument
parsing, the residual plot and saving a figure).

Figures and tables of all examples label quantities the same way: a
capitalised name followed by the SI unit in brackets, e.g.
``crank speed [rad/s]``.
"""

import argparse
import os
import re

import numpy as np

#: The default tolerance of the Newton-Raphson position solve of
#: :class:`sympy_loads.HolonomicConstraintSolver`, which :func:`simulate`
#: uses: the constraint residual of every sample is at or below it.
NEWTON_TOLERANCE = 1e-12


def one_line(doc):
    """The first paragraph of the docstring ``doc`` on one line (the
    examples' one-line description, for ``--help`` and the list of
    examples).

    Examples
    ========

    >>> from sympy_loads.examples._report import one_line
    >>> one_line('''A pendulum, simulated with
    ...     :func:`~sympy_loads.simulate`.
    ...
    ...     Details.''')
    'A pendulum, simulated with sympy_loads.simulate.'
    """
    paragraph = doc.strip().split('\n\n')[0]
    paragraph = re.sub(r':\w+:`~?([^`]+)`', r'\1', paragraph)
    paragraph = paragraph.replace('``', '')
    return ' '.join(paragraph.split())


def work(power, t):
    """The work ``W(t)`` of ``power`` sampled at the times ``t`` (from 0 at
    ``t[0]``), by Simpson's rule.

    The examples' energy balance ``E(t) - E(0) - W(t)`` is meant to show
    the integration error of the simulation; Simpson's rule (error of
    order ``dt^4``) keeps the quadrature's own error well below it at the
    examples' sampling, where the trapezoid rule (order ``dt^2``) would
    mostly measure itself.

    Examples
    ========

    >>> import numpy as np
    >>> from sympy_loads.examples._report import work
    >>> t = np.linspace(0, np.pi, 201)
    >>> float(abs(work(np.sin(t), t)[-1] - 2.0)) < 1e-8
    True
    """
    from scipy.integrate import cumulative_simpson, cumulative_trapezoid
    power, t = np.asarray(power, dtype=float), np.asarray(t, dtype=float)
    if len(t) < 3:
        return cumulative_trapezoid(power, t, initial=0)
    return cumulative_simpson(power, x=t, initial=0)


def print_table(title, rows):
    """Print ``rows`` of (label, value) under ``title``."""
    width = max(len(label) for label, _ in rows)
    print(title)
    print('-'*(width + 18))
    for label, value in rows:
        print(f'{label:<{width}}  {value:>14}')


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are one line, e.g.
    ``python -m sympy_loads.examples.four_bar: error: argument --duration:
    must be positive, got -1 (see --help)``, without the usage block."""

    def error(self, message):
        self.exit(2, f'{self.prog}: error: {message} (see --help)\n')


def positive(kind=float):
    """An argparse ``type`` accepting a finite number above zero.

    Examples
    ========

    >>> from sympy_loads.examples._report import positive
    >>> positive()('2.5')
    2.5
    >>> positive(int)('0')
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be positive, got 0
    """
    def convert(text):
        value = _number(kind, text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f'must be positive, got {text}')
        return value
    return convert


def nonzero(text):
    """An argparse ``type`` accepting a finite number other than zero."""
    value = _number(float, text)
    if value == 0:
        raise argparse.ArgumentTypeError(f'must not be zero, got {text}')
    return value


def _number(kind, text):
    try:
        value = kind(text)
    except ValueError:
        name = 'a whole number' if kind is int else 'a number'
        raise argparse.ArgumentTypeError(
            f'must be {name}, got {text!r}') from None
    if not np.isfinite(value):
        raise argparse.ArgumentTypeError(f'must be finite, got {text}')
    return value


def parser(prog, description, duration, animate=False):
    """The command line shared by the examples; ``animate`` adds the
    ``--animate`` option. Bad values are refused with a one-line message
    (:class:`ArgumentParser`)."""
    result = ArgumentParser(prog=prog, description=description)
    result.add_argument('--duration', type=positive(), default=duration,
                        help=f'simulated time in seconds (default '
                             f'{duration:g})')
    result.add_argument('--output', default='.',
                        help='directory for the plot (default: .)')
    result.add_argument('--no-plot', action='store_true',
                        help='do not save the plot')
    if animate:
        result.add_argument('--animate', action='store_true',
                            help='also save an animation of the mechanism '
                                 'as a GIF (needs matplotlib and pillow)')
    return result


def plot_residual(axis, result, tolerance=NEWTON_TOLERANCE):
    """Plot the constraint residual of ``result`` on a log scale.

    Every sample is one dot, so a residual at round-off level shows as the
    scatter it is; samples whose residual is exactly zero cannot be drawn
    on a log scale and are counted in the legend instead. The dashed line
    is the Newton tolerance that every sample must meet.
    """
    residual = np.asarray(result.constraint_residual, dtype=float)
    positive = residual > 0
    zero = int(np.count_nonzero(~positive))
    label = 'residual at each sample'
    if zero:
        label += f' ({zero} of {len(residual)} exactly zero, not shown)'
    axis.semilogy(result.t[positive], residual[positive], '.',
                  markersize=2, label=label)
    axis.axhline(tolerance, color='C3', linestyle='--',
                 label=f'Newton tolerance {tolerance:g} m')
    largest = float(residual.max()) if len(residual) else 0.0
    axis.set_title(f'constraint residual (largest {largest:.1e} m)',
                   fontsize='medium')
    axis.set_ylim(top=1000*max(tolerance, largest))
    axis.set_ylabel('constraint residual [m]')
    axis.set_xlabel('time [s]')
    axis.legend(loc='upper right', fontsize='small')


def save_animation_gif(anim, output_dir, filename, dpi):
    """Save the animation ``anim`` as ``output_dir/filename`` (a GIF),
    close its figure and return the path."""
    import matplotlib.pyplot as plt
    from sympy_loads import save_gif
    os.makedirs(output_dir, exist_ok=True)
    path = save_gif(anim, os.path.join(output_dir, filename), dpi=dpi)
    plt.close(anim.figure)
    return path


def run_example(prog, doc, duration, run, report, plot, animation, argv):
    """The command line of an example that runs, prints a report, plots
    and animates: parse ``argv`` (``--duration``, ``--output``,
    ``--no-plot``, ``--animate``), call ``run(duration)`` for ``(model,
    result)``, print ``report(model, result)``, then the paths of
    ``plot(model, result, output_dir)`` and ``animation(model, result,
    output_dir)`` as asked; returns ``(model, result)``."""
    args = parser(prog, one_line(doc), duration,
                  animate=True).parse_args(argv)
    model, result = run(args.duration)
    print(report(model, result))
    if not args.no_plot:
        print(f'plot saved to {plot(model, result, args.output)}')
    if args.animate:
        print(f'animation saved to {animation(model, result, args.output)}')
    return model, result


def save_figure(fig, title, output_dir, filename):
    """Give ``fig`` its title, save it as ``output_dir/filename`` and close
    it; return the path."""
    import matplotlib.pyplot as plt
    fig.suptitle(title)
    fig.tight_layout()
    os.makedirs(output_dir, exist_ok=True)
    path = os.path.join(output_dir, filename)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def joint_force_outputs(forces, frame):
    """The ``outputs`` of :func:`sympy_loads.simulate` that give the joint
    forces along a run: ``{'F_<name>_x': ..., 'F_<name>_y': ...}``, the
    components along ``frame.x`` and ``frame.y`` of each force in
    ``forces`` (a dict from the joint's name to the force Vector the
    parent exerts on the child, e.g. ``joint_reactions(joint,
    system).force``)."""
    outputs = {}
    for name, force in forces.items():
        outputs[f'F_{name}_x'] = force.dot(frame.x)
        outputs[f'F_{name}_y'] = force.dot(frame.y)
    return outputs


def joint_force_magnitudes(result, names):
    """``{name: |F|}`` along ``result`` (arrays), from the outputs of
    :func:`joint_force_outputs` of a planar mechanism."""
    out = result.outputs
    return {name: np.hypot(out[f'F_{name}_x'], out[f'F_{name}_y'])
            for name in names}


def largest_force_rows(result, joints, noun='joint'):
    """Table rows ``(label, value)``: the largest force in each of
    ``joints`` along ``result`` (see :func:`joint_force_magnitudes`)."""
    names = [j.name for j in joints]
    return [(f'largest force in {noun} {name} [N]', f'{np.max(f):.4f}')
            for name, f in joint_force_magnitudes(result, names).items()]


def plot_joint_forces(result, names, title, output_dir, filename,
                      labels=None):
    """Save one figure of the magnitude of the force in each joint versus
    time (as Autodesk Inventor's output grapher shows joint forces) and
    return its path; ``labels`` (optional) maps a joint's name to its
    legend entry."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, axis = plt.subplots(figsize=(7, 4.5))
    styles = ['-', '--', '-.', ':']     # equal forces stay visible
    magnitudes = joint_force_magnitudes(result, names)
    for k, (name, magnitude) in enumerate(magnitudes.items()):
        axis.plot(result.t, magnitude, styles[k % len(styles)],
                  label=(labels or {}).get(name, name))
    axis.set_xlabel('time [s]')
    axis.set_ylabel('joint force |F| [N]')
    axis.legend(ncol=2, fontsize='small', loc='lower left',
                bbox_to_anchor=(0.0, 1.0), frameon=False)
    return save_figure(fig, title, output_dir, filename)
