"""The four-wheel car of Moore's "Force, Moment, and Torque": its tyre
forces replaced by a force at the body center plus a couple.

Run with ``python -m sympy_loads.examples.car_replacement``: prints the
resultant and the torque of the couple symbolically and for one set of
numbers, and checks the replacement's equivalence and the transfer of the
moment to the front axle.

References
==========

.. [Moore] J. K. Moore, *Learn Multibody Dynamics*, "Force, Moment, and
   Torque", section "Equivalence and Replacement" (the car with four tyre
   forces, steering angle delta and slip angles alpha).
   https://moorepants.github.io/learn-multibody-dynamics/
"""

import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import Replacement, are_equivalent, moment, resultant
from sympy_loads.examples._report import ArgumentParser, one_line


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


def main(argv=None):
    """Print the replacement of the car's tyre forces and check it."""
    parser = ArgumentParser(
        prog='python -m sympy_loads.examples.car_replacement',
        description=one_line(__doc__))
    parser.parse_args(argv)
    loads, Bo, B, (l, w, forces, slips, delta) = build_car()
    car = Replacement(loads, Bo, B)
    R = car.force.vector.express(B).simplify()
    T = car.torque.vector.express(B).simplify()
    print('Resultant at B_o, B.x:', sm.trigsimp(R.dot(B.x)))
    print('Resultant at B_o, B.y:', sm.trigsimp(R.dot(B.y)))
    print('Torque of the couple, B.z:', sm.trigsimp(T.dot(B.z)))
    print('Replacement equivalent to the tyre forces:',
          are_equivalent(loads, car.to_loads()))
    values = {l: 2.6, w: 1.6, delta: 0.1}
    values.update(dict(zip(forces, (900.0, 1100.0, 950.0, 1050.0))))
    values.update(dict(zip(slips, (0.02, -0.03, 0.01, -0.01))))
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
    return car


if __name__ == '__main__':
    main()
