"""Private: the kinematic tree of a model, read from SymPy's frames and
points without expanding anything in the inertial frame.

SymPy keeps how frames are oriented (``orient_axis``, the joints) and how
points are located (``locatenew``, ``set_pos``) as graphs of *relative*
quantities: a frame knows the frames it was oriented against, a point the
points it was located from. :func:`frame_parents` and
:func:`point_parents` turn those graphs into trees (breadth first from the
inertial frame, and from the points whose velocity in it is given), so
that :mod:`.kinematics` can compose the motion link by link: only
quantities between neighbours are ever asked of SymPy.
"""

from collections import deque

from sympy.physics.mechanics import Point, ReferenceFrame

__all__ = []


def _neighbours(item):
    """The frames a frame was oriented against, or the points a point was
    located from. SymPy 1.14 keeps these graphs only in private attributes
    (``ReferenceFrame._dcm_dict``, ``Point._pos_dict``); this function,
    :func:`relative_position` and :func:`velocity_is_given` are the only
    places in the package that read them."""
    if isinstance(item, ReferenceFrame):
        return list(item._dcm_dict)               # private in SymPy 1.14
    return list(item._pos_dict)                   # private in SymPy 1.14


def relative_position(point, neighbour):
    """The position of ``point`` from ``neighbour``, a point it was located
    from or that was located from it (:func:`_neighbours`), as stored by
    SymPy: ``point.pos_from(neighbour)`` without its search of the whole
    point graph, which SymPy 1.14 repeats at each call (0.7 s of the
    assembly of IFToMM's N-four-bar at N = 40, 360 points). Reads SymPy
    1.14's private ``Point._pos_dict``."""
    return point._pos_dict[neighbour]             # private in SymPy 1.14


def velocity_is_given(point, frame):
    """True when the velocity of ``point`` in ``frame`` was set
    (``set_vel``, ``v2pt_theory``, a joint), not left to be derived from
    positions. Reads SymPy 1.14's private ``Point._vel_dict``."""
    return frame in point._vel_dict               # private in SymPy 1.14


def _component(starts):
    """Every node reachable from ``starts`` in the graph of
    :func:`_neighbours`, in breadth-first order."""
    seen, order, queue = set(starts), list(starts), deque(starts)
    while queue:
        for other in _neighbours(queue.popleft()):
            if other not in seen:
                seen.add(other)
                order.append(other)
                queue.append(other)
    return order


def frame_parents(frame):
    """``{frame: parent}`` for every frame oriented, directly or through
    others, against the inertial ``frame`` (whose parent is None): the
    breadth-first tree of the orientation graph."""
    parents = {frame: None}
    queue = deque([frame])
    while queue:
        current = queue.popleft()
        for other in _neighbours(current):
            if other not in parents:
                parents[other] = current
                queue.append(other)
    return parents


def point_parents(points, frame):
    """``{point: parent}`` for the points ``points`` and every point they
    were located from: a point whose velocity in ``frame`` is given is a
    root (parent None); any other has as parent its neighbour on a shortest
    path to a root. ValueError names a point with no root in reach."""
    nodes = _component([p for p in points if isinstance(p, Point)])
    parents = {p: None for p in nodes if velocity_is_given(p, frame)}
    queue = deque(p for p in nodes if p in parents)
    while queue:
        current = queue.popleft()
        for other in _neighbours(current):
            if other not in parents:
                parents[other] = current
                queue.append(other)
    for point in points:
        if point not in parents:
            raise ValueError(
                f'model: the velocity of the point {point} in {frame} '
                f'cannot be found: neither it nor any point it is located '
                f'from has a velocity given in {frame} (set_vel); fix a '
                f'point with set_vel({frame}, 0).')
    return parents
