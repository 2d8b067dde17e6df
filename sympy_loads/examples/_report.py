"""Small helpers shared by the simulation examples (tables, quadrature,
argument parsing)."""

import argparse

import numpy as np


def cumulative_trapezoid(values, t):
    """Running integral of ``values`` over ``t`` (trapezoidal rule)."""
    values = np.asarray(values, dtype=float)
    steps = np.diff(t)*(values[1:] + values[:-1])/2
    return np.concatenate([[0.0], np.cumsum(steps)])


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
