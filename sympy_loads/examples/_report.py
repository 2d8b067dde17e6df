"""Small helpers shared by the simulation examples (tables, argument
parsing, the residual plot and saving a figure)."""

import argparse
import os

import numpy as np


def print_table(title, rows):
    """Print ``rows`` of (label, value) under ``title``."""
    width = max(len(label) for label, _ in rows)
    print(title)
    print('-'*(width + 18))
    for label, value in rows:
        print(f'{label:<{width}}  {value:>14}')


def parser(prog, description, duration):
    """The command line shared by the examples."""
    result = argparse.ArgumentParser(prog=prog, description=description)
    result.add_argument('--duration', type=float, default=duration,
                        help=f'simulated time in seconds (default '
                             f'{duration:g})')
    result.add_argument('--output', default='.',
                        help='directory for the plot (default: .)')
    result.add_argument('--no-plot', action='store_true',
                        help='do not save the plot')
    return result


def plot_residual(axis, result):
    """Plot the constraint residual of ``result`` on a log scale."""
    axis.semilogy(result.t, np.maximum(result.constraint_residual, 1e-17))
    axis.set_ylabel('|constraint residual| [m]')
    axis.set_xlabel('time [s]')


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
