r"""See a simulated mechanism move: point trajectories and matplotlib
animations of a :class:`~sympy_loads.SimulationResult`.

Explanation
===========

Moore's *Learn Multibody Dynamics* animates its four-bar linkage with
matplotlib: the positions of a few points are evaluated along the
simulated trajectory and drawn, frame after frame, as a polyline. The
functions here do the same for any result of :func:`~sympy_loads.simulate`:

- :func:`point_positions` evaluates the positions of points (relative to an
  origin, in the coordinates of a reference frame) at every sample;
- :func:`animate` draws them as a ``matplotlib.animation.FuncAnimation``;
- :func:`save_gif` writes the animation as an animated GIF with pillow
  (which matplotlib already depends on).

Only :func:`animate` and :func:`save_gif` need matplotlib; it is imported
when they are called.

References
==========

.. [Moore] J. K. Moore, *Learn Multibody Dynamics*, "Equations of Motion
   with Holonomic Constraints" (the animated four-bar linkage).
   https://moorepants.github.io/learn-multibody-dynamics/
"""

import math
import numbers

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

from ._utils import _lambdify

__all__ = ['point_positions', 'animate', 'save_gif']

_AXES = ('x', 'y', 'z')


def _chains(points):
    """``points`` as a list of chains (lists of Points)."""
    if isinstance(points, me.Point):
        raise TypeError(f'points must be a sequence of Points (or of '
                        f'sequences of Points), not the Point {points}')
    points = list(points)
    if not points:
        raise ValueError('points must not be empty')
    if all(isinstance(p, me.Point) for p in points):
        return [points]
    chains = []
    for chain in points:
        if isinstance(chain, me.Point):
            chains.append([chain])
            continue
        chain = list(chain)
        if not chain or not all(isinstance(p, me.Point) for p in chain):
            raise TypeError(f'points must be a sequence of Points or of '
                            f'sequences of Points, got {chain!r}')
        chains.append(chain)
    return chains


def _check_axes(axes):
    axes = tuple(axes)
    if len(axes) not in (2, 3) or any(a not in _AXES for a in axes):
        raise ValueError(f"axes must be two or three of 'x', 'y', 'z', got "
                         f"{axes!r}")
    return axes


def _check_positive(name, value):
    """Refuse anything but a positive, finite real number."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not 0 < value < math.inf):
        raise ValueError(f'{name} must be a positive, finite number, got '
                         f'{value!r}')


def _check_result(result):
    for name in ('t', 'q', 'coordinates'):
        if not hasattr(result, name):
            raise TypeError(f'result must be a SimulationResult (from '
                            f'simulate()), got {type(result).__name__}')
    if not result.coordinates:
        raise ValueError('result has no coordinate symbols; it must come '
                         'from simulate()')


def point_positions(result, points, frame, *, origin=None, constants=None,
                    axes=('x', 'y')):
    r"""Positions of ``points`` at every sample of a simulation.

    Explanation
    ===========

    For every point ``P`` the measure numbers of the position vector
    ``P.pos_from(origin)`` along the unit vectors ``axes`` of ``frame`` are
    evaluated at the samples of ``result``: its coordinates, its times and
    its constants (``result.constants``; ``constants`` adds or overrides
    values). The points' positions must be known to SymPy
    (``locatenew``/``set_pos``) in terms of the model's coordinates.

    Examples
    ========

    A pendulum of length ``L = 2`` released from ``q = 0.5`` rad; its bob
    is at ``(L sin q, -L cos q)`` in the frame ``N``:

    >>> import numpy as np
    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import simulate, point_positions
    >>> q, u = me.dynamicsymbols('q u')
    >>> L, g = sm.symbols('L g')
    >>> N = me.ReferenceFrame('N')
    >>> A = N.orientnew('A', 'Axis', (q, N.z))
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', -L*A.y); _ = P.v2pt_theory(O, N, A)
    >>> kane = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff() - u])
    >>> _ = kane.kanes_equations([me.Particle('bob', P, 1)],
    ...                          [(P, -g*N.y)])
    >>> res = simulate(kane, (0, 1), {q: 0.5, u: 0.0}, {L: 2.0, g: 9.81},
    ...                t_eval=np.linspace(0, 1, 11))
    >>> xy = point_positions(res, [O, P], N)
    >>> xy.shape                       # samples, points, axes
    (11, 2, 2)
    >>> print(np.round(xy[0], 6))     # O, then P = (2 sin 0.5, -2 cos 0.5)
    [[ 0.        0.      ]
     [ 0.958851 -1.755165]]
    >>> bool(np.allclose(xy[:, 1, 0], 2*np.sin(res.q[:, 0])))
    True

    Parameters
    ==========

    result : SimulationResult
        A result of :func:`~sympy_loads.simulate`.
    points : sequence of Point, or sequence of sequences of Point
        The points; nested sequences are flattened in order.
    frame : ReferenceFrame
        The frame in whose coordinates the positions are measured.
    origin : Point, optional
        The point the positions are measured from (default: the first
        point).
    constants : mapping, optional
        Values of symbols in the positions that are not among
        ``result.constants``, or new values for those.
    axes : sequence of str, optional
        Two or three of ``'x'``, ``'y'``, ``'z'``: the unit vectors of
        ``frame`` to measure along (default ``('x', 'y')``).

    Returns
    =======

    ndarray, shape (m, n_points, len(axes))
        The coordinates of each point at each of the ``m`` samples.

    Raises
    ======

    TypeError
        If ``result`` is not a simulation result, ``frame`` not a
        ``ReferenceFrame``, or ``points`` not Points.
    ValueError
        If ``axes`` is invalid, or a position depends on a symbol with no
        value (the message names it).
    """
    _check_result(result)
    if not isinstance(frame, me.ReferenceFrame):
        raise TypeError(f'frame must be a ReferenceFrame, got {frame!r}')
    axes = _check_axes(axes)
    flat = [p for chain in _chains(points) for p in chain]
    origin = flat[0] if origin is None else origin
    if not isinstance(origin, me.Point):
        raise TypeError(f'origin must be a Point, got {origin!r}')
    values = {symbol: float(value) for symbol, value in
              getattr(result, 'constants', ())}
    for symbol, value in dict(constants or {}).items():
        if not isinstance(value, numbers.Real):
            raise TypeError(f'constants: the value of {symbol} must be a '
                            f'real number, got {value!r}')
        values[sm.sympify(symbol)] = float(value)
    t = me.dynamicsymbols._t
    coordinates = list(result.coordinates)
    exprs = []
    for point in flat:
        vector = point.pos_from(origin)
        exprs.extend(vector.dot(getattr(frame, a)).xreplace(values)
                     for a in axes)
    exprs = [sm.sympify(e) for e in exprs]
    known = set(coordinates) | {t}
    unknown = set()
    for expr in exprs:
        unknown |= {s for s in expr.free_symbols if s != t}
        unknown |= me.find_dynamicsymbols(expr) - known
    if unknown:
        names = ', '.join(sorted(str(s) for s in unknown))
        raise ValueError(f'point_positions(): no value for {names}; pass '
                         f'constants={{...}} or use coordinates of the '
                         f'model')
    function = _lambdify([t, coordinates], exprs)
    times = np.asarray(result.t, dtype=float)
    q = np.asarray(result.q, dtype=float)
    columns = function(times, list(q.T))
    m = times.shape[0]
    data = np.array([np.broadcast_to(np.asarray(c, dtype=float), (m,))
                     for c in columns])
    return data.T.reshape(m, len(flat), len(axes))


def animate(result, points, frame, *, origin=None, constants=None,
            axes=('x', 'y'), fps=25, speed=1.0, title=None, trace=None,
            figsize=(5, 5), limits=None, units=None, ground=(),
            sliders=()):
    r"""A matplotlib animation of ``points`` moving as in ``result``.

    Explanation
    ===========

    Each chain of points (``points`` is a sequence of Points, or of such
    sequences) is drawn as a polyline with a marker at every point, in the
    plane of the first two ``axes`` of ``frame``, as Moore's book draws
    its four-bar linkage. The frames of the animation are ``fps`` per
    second of playback; ``speed`` is simulated seconds per second of
    playback, and positions between samples are interpolated linearly, so
    sample ``result`` densely (``t_eval``). Points fixed to the ground
    (``ground``) are drawn as pivots, points that slide (``sliders``) as
    blocks on the line they slide along. The elapsed simulated time is shown
    above the axes, right of the title.

    Examples
    ========

    >>> import matplotlib
    >>> matplotlib.use('Agg')
    >>> import numpy as np
    >>> import sympy as sm
    >>> import sympy.physics.mechanics as me
    >>> from sympy_loads import simulate, animate
    >>> q, u = me.dynamicsymbols('q u')
    >>> N = me.ReferenceFrame('N')
    >>> A = N.orientnew('A', 'Axis', (q, N.z))
    >>> O = me.Point('O'); O.set_vel(N, 0)
    >>> P = O.locatenew('P', -A.y); _ = P.v2pt_theory(O, N, A)
    >>> kane = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff() - u])
    >>> _ = kane.kanes_equations([me.Particle('bob', P, 1)],
    ...                          [(P, -9.81*N.y)])
    >>> res = simulate(kane, (0, 2), {q: 1.0, u: 0.0}, {},
    ...                t_eval=np.linspace(0, 2, 201))
    >>> anim = animate(res, [O, P], N, fps=10, trace=P)
    >>> len(anim.frame_times)          # 2 s at 10 frames per second
    21
    >>> print(np.round(anim.positions[0], 6))     # O and P at t = 0
    [[ 0.        0.      ]
     [ 0.841471 -0.540302]]

    Saved as a GIF (see :func:`save_gif`):

    >>> import os, tempfile
    >>> from PIL import Image
    >>> from sympy_loads import save_gif
    >>> path = save_gif(anim, os.path.join(tempfile.mkdtemp(), 'p.gif'))
    >>> Image.open(path).n_frames
    21
    >>> import matplotlib.pyplot as plt; plt.close(anim.figure)

    Parameters
    ==========

    result : SimulationResult
        A result of :func:`~sympy_loads.simulate`.
    points : sequence of Point, or sequence of sequences of Point
        The chains to draw (see :func:`point_positions`).
    frame : ReferenceFrame
        The frame to draw in.
    origin : Point, optional
        Origin of the drawing (default: the first point).
    constants : mapping, optional
        Extra or overriding constant values (see :func:`point_positions`).
    axes : sequence of two str, optional
        The unit vectors of ``frame`` along the horizontal and vertical
        axes of the drawing (default ``('x', 'y')``).
    fps : float, optional
        Frames per second of playback (default 25).
    speed : float, optional
        Simulated seconds per second of playback (default 1, real time).
    title : str, optional
        Title of the axes.
    trace : Point, optional
        A point whose path so far is drawn as a thin line.
    figsize : (float, float), optional
        Size of the figure in inches.
    limits : ((float, float), (float, float)), optional
        Axis limits; default: the extent of the motion plus a margin.
    units : str, optional
        The unit of length, shown in the axis labels (e.g. ``'m'``).
    ground : sequence of Point, optional
        Points fixed to the ground (pivots), drawn as a pivot symbol at
        their place.
    sliders : sequence of Point, optional
        Points that slide (a slider block), drawn as a square block, with
        the path the point follows drawn as its guide.

    Returns
    =======

    matplotlib.animation.FuncAnimation
        The animation, with the extra attributes ``frame_times`` (the
        simulated time of each frame), ``positions`` (shape (frames,
        points, 2)) and ``figure``. Save it with :func:`save_gif` or
        ``anim.save(...)``; close ``anim.figure`` when done.

    Raises
    ======

    ValueError
        If ``fps`` or ``speed`` is not a positive, finite number, ``axes``
        are not two axes, or ``result`` has no samples.
    """
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation

    axes = _check_axes(axes)
    if len(axes) != 2:
        raise ValueError(f'animate() draws in a plane: give two axes, got '
                         f'{axes!r}')
    for name, value in (('fps', fps), ('speed', speed)):
        _check_positive(name, value)
    if len(np.asarray(result.t)) == 0:
        raise ValueError('result has no samples (result.t is empty, e.g. a '
                         'run stopped at its start): there is nothing to '
                         'animate')
    chains = _chains(points)
    flat = [p for chain in chains for p in chain]
    if trace is not None and not isinstance(trace, me.Point):
        raise TypeError(f'trace must be a Point, got {trace!r}')
    ground, sliders = list(ground), list(sliders)
    for name, group in (('ground', ground), ('sliders', sliders)):
        if not all(isinstance(p, me.Point) for p in group):
            raise TypeError(f'{name} must be a sequence of Points, got '
                            f'{group!r}')
    everything = (flat + ground + sliders
                  + ([trace] if trace is not None else []))
    xy = point_positions(result, [everything], frame, origin=origin
                         if origin is not None else flat[0],
                         constants=constants, axes=axes)
    times = np.asarray(result.t, dtype=float)
    step = float(speed)/float(fps)
    n_frames = int(np.floor((times[-1] - times[0])/step + 1e-9)) + 1
    frame_times = times[0] + step*np.arange(n_frames)
    flat_xy = xy.reshape(len(times), -1)
    frames_xy = np.column_stack([np.interp(frame_times, times, column)
                                 for column in flat_xy.T])
    frames_xy = frames_xy.reshape(n_frames, len(everything), 2)

    figure, ax = plt.subplots(figsize=figsize)
    if limits is None:
        low, high = xy.reshape(-1, 2).min(axis=0), xy.reshape(-1, 2).max(
            axis=0)
        margin = 0.1*max(float(np.max(high - low)), 1e-12)
        limits = ((low[0] - margin, high[0] + margin),
                  (low[1] - margin, high[1] + margin))
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    ax.set_aspect('equal')
    unit = f' [{units}]' if units else ''
    ax.set_xlabel(f'{frame}.{axes[0]}{unit}')
    ax.set_ylabel(f'{frame}.{axes[1]}{unit}')
    if title:
        ax.set_title(title, loc='left', fontsize='medium')
    # pivots: a triangle under each ground point, with a hatched base
    size = 0.04*max(limits[0][1] - limits[0][0], limits[1][1] - limits[1][0])
    first = len(flat)
    for x, y in xy[0, first:first + len(ground)]:
        ax.fill([x, x - size, x + size], [y, y - 1.5*size, y - 1.5*size],
                facecolor='0.85', edgecolor='k', lw=1, zorder=1)
        ax.plot([x - 1.6*size, x + 1.6*size], [y - 1.5*size] * 2, 'k-',
                lw=2, zorder=1)
    # sliders: the path each follows (its guide) under a moving block
    first += len(ground)
    for j in range(len(sliders)):
        ax.plot(xy[:, first + j, 0], xy[:, first + j, 1], '-', lw=3,
                color='0.75', zorder=0, solid_capstyle='butt')
    blocks = [ax.plot([], [], 's', markersize=16, markerfacecolor='0.6',
                      markeredgecolor='k', zorder=3)[0] for _ in sliders]
    lines = [ax.plot([], [], 'o-', lw=2, color=f'C{i}', zorder=4)[0]
             for i in range(len(chains))]
    path = ax.plot([], [], '-', lw=0.8, color='0.5')[0] if trace else None
    # the clock above the axes, right-aligned: never over the mechanism
    clock = ax.text(1.0, 1.01, '', transform=ax.transAxes, ha='right',
                    va='bottom', fontsize='medium', family='monospace')
    bounds = np.cumsum([0] + [len(chain) for chain in chains])
    figure.tight_layout()

    def draw(i):
        current = frames_xy[i]
        for line, start, stop in zip(lines, bounds[:-1], bounds[1:]):
            line.set_data(current[start:stop, 0], current[start:stop, 1])
        for j, block in enumerate(blocks):
            block.set_data(current[first + j:first + j + 1, 0],
                           current[first + j:first + j + 1, 1])
        if path is not None:
            path.set_data(frames_xy[:i + 1, -1, 0], frames_xy[:i + 1, -1, 1])
        clock.set_text(f't = {frame_times[i]:5.2f} s')
        return (blocks + lines + ([path] if path is not None else [])
                + [clock])

    anim = FuncAnimation(figure, draw, frames=n_frames,
                         interval=1000.0/float(fps), blit=False)
    anim.frame_times = frame_times
    anim.positions = frames_xy[:, :len(flat)]
    anim.figure = figure
    anim.fps = float(fps)
    # for save_gif(): draw only what moves on a background drawn once
    anim._sympy_loads_frames = (ax, draw, n_frames)
    return anim


def _blitted_frames(animation, dpi):
    """The frames of an animation made by :func:`animate` as pillow
    images, drawing the axes once and only the moving artists per frame;
    None if the figure's canvas cannot do that (not an Agg canvas)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    ax, draw, n_frames = animation._sympy_loads_frames
    figure = animation.figure
    canvas = figure.canvas
    if not isinstance(canvas, FigureCanvasAgg):
        return None
    moving = draw(0)
    old_dpi = figure.get_dpi()
    figure.set_dpi(dpi)
    for artist in moving:
        artist.set_animated(True)
    try:
        canvas.draw()
        background = canvas.copy_from_bbox(figure.bbox)
        images = []
        for i in range(n_frames):
            canvas.restore_region(background)
            for artist in draw(i):
                ax.draw_artist(artist)
            buffer = canvas.buffer_rgba()
            images.append(Image.frombuffer(
                'RGBA', (buffer.shape[1], buffer.shape[0]), bytes(buffer),
                'raw', 'RGBA', 0, 1).convert('RGB'))
    finally:
        for artist in moving:
            artist.set_animated(False)
        figure.set_dpi(old_dpi)
    # rendered (matplotlib warns about animations deleted unrendered)
    animation._draw_was_started = True
    return images


def save_gif(animation, path, *, fps=None, dpi=80):
    r"""Save a matplotlib animation as an animated GIF with pillow.

    Examples
    ========

    >>> import os, tempfile
    >>> import matplotlib
    >>> matplotlib.use('Agg')
    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.animation import FuncAnimation
    >>> from sympy_loads import save_gif
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_xlim(-1, 3); _ = ax.set_ylim(-1, 3)
    >>> dot, = ax.plot([0], [0], 'o')
    >>> anim = FuncAnimation(fig, lambda i: dot.set_data([i], [i]),
    ...                      frames=3)
    >>> path = save_gif(anim, os.path.join(tempfile.mkdtemp(), 'dot.gif'),
    ...                 fps=5)
    >>> from PIL import Image
    >>> Image.open(path).n_frames
    3
    >>> plt.close(fig)

    Parameters
    ==========

    animation : matplotlib.animation.Animation
        For example the result of :func:`animate`.
    path : str or path-like
        The file to write (its folder must exist).
    fps : float, optional
        Frames per second (default: the ``fps`` given to :func:`animate`,
        else 25).
    dpi : float, optional
        Resolution (default 80).

    Returns
    =======

    str
        ``path``.

    Raises
    ======

    ValueError
        If ``fps`` or ``dpi`` is not a positive, finite number.
    """
    from matplotlib.animation import PillowWriter

    fps = fps if fps is not None else getattr(animation, 'fps', 25)
    _check_positive('fps', fps)
    _check_positive('dpi', dpi)
    images = None
    if hasattr(animation, '_sympy_loads_frames'):
        images = _blitted_frames(animation, dpi)
    if images is None:
        animation.save(str(path), writer=PillowWriter(fps=fps), dpi=dpi)
    else:
        from PIL import Image
        # one palette for all frames (quantizing each frame on its own
        # costs most of the time); the last frame has every colour
        palette = images[-1].quantize(colors=255)
        images = [image.quantize(palette=palette, dither=Image.Dither.NONE)
                  for image in images]
        images[0].save(str(path), save_all=True, append_images=images[1:],
                       duration=int(round(1000/fps)), loop=0)
    return str(path)
