"""The four-wheel car of Moore's "Force, Moment, and Torque": its tyre
forces replaced by a force at the body center plus a couple.

Run with ``python -m sympy_loads.examples.car_replacement [--output DIR]
[--no-plot]``: prints the resultant and the torque of the couple
symbolically and for one set of numbers (:data:`NUMBERS`), checks the
replacement's equivalence and the transfer of the moment to the front
axle, and saves ``car_replacement.png`` (the tyre forces beside their
replacement, drawn to scale).

References
==========

.. [Moore] J. K. Moore, *Learn Multibody Dynamics*, "Force, Moment, and
   Torque", section "Equivalence and Replacement" (the car with four tyre
   forces, steering angle delta and slip angles alpha).
   https://moorepants.github.io/learn-multibody-dynamics/
"""

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import Replacement, are_equivalent, moment, resultant
from sympy_loads.examples._report import (ArgumentParser, one_line,
                                          save_figure)

#: The numbers of the printed example and its figure: length ``l`` and
#: width ``w`` [m], steering angle ``delta`` [rad], the tyre forces
#: (front left, front right, rear left, rear right) [N] and slip angles
#: [rad].
NUMBERS = {'l': 2.6, 'w': 1.6, 'delta': 0.1,
           'forces': (900.0, 1100.0, 950.0, 1050.0),
           'slips': (0.02, -0.03, 0.01, -0.01)}


def build_car():
    """Return ``(tyre_loads, body_center, body_frame, symbols)`` of the car."""
    l, w = sm.symbols('l, w')
    forces = me.dynamicsymbols('F_fl, F_fr, F_rl, F_rr')
    slips = me.dynamicsymbols('alpha_fl, alpha_fr, alpha_rl, alpha_rr')
    delta = me.dynamicsymbols('delta')
    B, W = me.ReferenceFrame('B'), me.ReferenceFrame('W')
    W.orient_axis(B, delta, B.z)
    tyre_frames = []
    for name, parent, slip in zip(('F_L', 'F_R', 'R_L', 'R_R'),
                                  (W, W, B, B), slips):
        frame = me.ReferenceFrame(name)
        frame.orient_axis(parent, slip, parent.z)
        tyre_frames.append(frame)
    Bo = me.Point('B_o')
    offsets = (l / 2 * B.x - w / 2 * B.y, l / 2 * B.x + w / 2 * B.y,
               -l / 2 * B.x - w / 2 * B.y, -l / 2 * B.x + w / 2 * B.y)
    loads = [(Bo.locatenew(f'wheel_{i}', r), F * frame.x)
             for i, (r, F, frame) in enumerate(zip(offsets, forces,
                                                   tyre_frames))]
    return loads, Bo, B, (l, w, forces, slips, delta)


def values_of(symbols, numbers=None):
    """Map the car's ``symbols`` (the last item of :func:`build_car`) to
    ``numbers`` (default :data:`NUMBERS`)."""
    numbers = dict(NUMBERS, **(numbers or {}))
    l, w, forces, slips, delta = symbols
    values = {l: numbers['l'], w: numbers['w'], delta: numbers['delta']}
    values.update(zip(forces, numbers['forces']))
    values.update(zip(slips, numbers['slips']))
    return values


def figure(numbers=None, scale=1/2000):
    """A matplotlib figure: the tyre forces (left) and their replacement,
    the resultant at ``B_o`` and the couple (right), with ``numbers``
    (default :data:`NUMBERS`) and ``scale`` metres of arrow per newton.

    Examples
    ========

    >>> import matplotlib
    >>> matplotlib.use('Agg')
    >>> from sympy_loads.examples.car_replacement import figure
    >>> fig = figure()
    >>> [axis.get_title() for axis in fig.axes]
    ['tyre forces', 'replacement: force at $B_o$ plus couple']
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle
    loads, Bo, B, symbols = build_car()
    values = values_of(symbols, numbers)
    length, width = values[symbols[0]], values[symbols[1]]

    def xy(vector):
        return np.array([float(vector.dot(e).xreplace(values))
                         for e in (B.x, B.y)])

    car = Replacement(loads, Bo, B)
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.6), sharey=True)
    for ax in axes:
        ax.add_patch(Rectangle((-length/2, -width/2), length, width,
                               fill=False, lw=1.5))
        ax.plot(0, 0, 'k.')
        ax.annotate('$B_o$', (0, 0), (0.05, -0.25))
        ax.set_aspect('equal')
        ax.set_xlim(-length/2 - 0.5, length/2 + 1.6)
        ax.set_ylim(-width/2 - 0.6, width/2 + 0.8)
        ax.set_xlabel('B.x [m]')
    axes[0].set_ylabel('B.y [m]')
    for point, force in loads:
        start = xy(point.pos_from(Bo))
        axes[0].add_patch(FancyArrowPatch(
            start, start + scale*xy(force), arrowstyle='-|>',
            mutation_scale=12, color='C0'))
    axes[0].set_title('tyre forces')
    R = xy(car.force.vector)
    T = float(car.torque.vector.dot(B.z).xreplace(values))
    axes[1].add_patch(FancyArrowPatch((0, 0), scale*R, arrowstyle='-|>',
                                      mutation_scale=12, color='C3'))
    ends = ((0.45, -0.35), (0.45, 0.35))
    axes[1].add_patch(FancyArrowPatch(
        *(ends if T > 0 else ends[::-1]),
        connectionstyle=f'arc3,rad={0.9 if T > 0 else -0.9}',
        arrowstyle='-|>', mutation_scale=12, color='C2'))
    axes[1].annotate(f'|R| = {np.hypot(*R):.0f} N', scale*R, (0.6, 0.9),
                     color='C3')
    axes[1].annotate(f'T = {T:.3g} N m about B.z', (0.9, 0),
                     (0.5, -width/2 - 0.45), color='C2')
    axes[1].set_title('replacement: force at $B_o$ plus couple')
    fig.tight_layout()
    return fig


def main(argv=None):
    """Print the replacement of the car's tyre forces and check it; save
    ``car_replacement.png`` unless ``--no-plot``."""
    parser = ArgumentParser(
        prog='python -m sympy_loads.examples.car_replacement',
        description=one_line(__doc__))
    parser.add_argument('--output', default='.',
                        help='directory for the plot (default: .)')
    parser.add_argument('--no-plot', action='store_true',
                        help='do not save the plot')
    args = parser.parse_args(argv)
    loads, Bo, B, (l, w, forces, slips, delta) = build_car()
    car = Replacement(loads, Bo, B)
    R = car.force.vector.express(B).simplify()
    T = car.torque.vector.express(B).simplify()
    print('Resultant at B_o, B.x:', sm.trigsimp(R.dot(B.x)))
    print('Resultant at B_o, B.y:', sm.trigsimp(R.dot(B.y)))
    print('Torque of the couple, B.z:', sm.trigsimp(T.dot(B.z)))
    print('Replacement equivalent to the tyre forces:',
          are_equivalent(loads, car.to_loads()))
    values = values_of((l, w, forces, slips, delta))
    R_num = [float(R.dot(e).xreplace(values)) for e in (B.x, B.y)]
    T_num = float(T.dot(B.z).xreplace(values))
    print(f'Numerically: R = ({R_num[0]:.2f}, {R_num[1]:.2f}) N, '
          f'T = {T_num:.2f} N m')
    # Moment about the front axle center, directly and by transfer.
    front = Bo.locatenew('front', l / 2 * B.x)
    direct = moment(loads, front)
    transferred = car.torque.vector + Bo.pos_from(front).cross(
        resultant(loads))
    difference = (direct - transferred).express(B).simplify()
    print('Moment about the front axle by transfer equals direct:',
          difference == 0)
    if not args.no_plot:
        import matplotlib
        matplotlib.use('Agg')
        path = save_figure(figure(), 'Car: tyre forces and their '
                           'replacement', args.output, 'car_replacement.png')
        print(f'plot saved to {path}')
    return car


if __name__ == '__main__':
    main()
