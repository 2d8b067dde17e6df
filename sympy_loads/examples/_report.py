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


def print_table(title, rows):
    """Print ``rows`` of (label, value) under ``title``."""
    width = max(len(label) for label, _ in rows)
    print(title)
    print('-'*(width + 18))
    for label, value in rows:
        print(f'{label:<{width}}  {value:>14}')


def parser(prog, description, duration, animate=False):
    """The command line shared by the examples; ``animate`` adds the
    ``--animate`` option."""
    result = argparse.ArgumentParser(prog=prog, description=description)
    result.add_argument('--duration', type=float, default=duration,
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
