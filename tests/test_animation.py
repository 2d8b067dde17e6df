"""Tests of sympy_loads.animation: point positions along a simulation
against the closed-form geometry, the frames of an animation and the GIF
written with pillow."""

import gc

import matplotlib
matplotlib.use('Agg')

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

from sympy_loads import animate, point_positions, save_gif, simulate


@pytest.fixture(scope='module')
def double_pendulum():
    """A double pendulum (absolute angles q1, q2, lengths L1 = 1, L2 =
    symbol L2) simulated for 1 s."""
    q1, q2, u1, u2 = me.dynamicsymbols('q1 q2 u1 u2')
    L2, g = sm.symbols('L2 g')
    N = me.ReferenceFrame('N')
    A = N.orientnew('A', 'Axis', (q1, N.z))
    B = N.orientnew('B', 'Axis', (q2, N.z))
    A.set_ang_vel(N, u1*N.z)
    B.set_ang_vel(N, u2*N.z)
    O = me.Point('O')
    O.set_vel(N, 0)
    P1 = O.locatenew('P1', -1*A.y)
    P1.v2pt_theory(O, N, A)
    P2 = P1.locatenew('P2', -L2*B.y)
    P2.v2pt_theory(P1, N, B)
    kane = me.KanesMethod(N, [q1, q2], [u1, u2],
                          kd_eqs=[q1.diff() - u1, q2.diff() - u2])
    kane.kanes_equations([me.Particle('p1', P1, 1), me.Particle('p2', P2, 1)],
                         [(P1, -g*N.y), (P2, -g*N.y)])
    result = simulate(kane, (0, 1), {q1: 0.5, q2: -0.3, u1: 0.0, u2: 0.0},
                      {L2: 0.7, g: 9.81}, t_eval=np.linspace(0, 1, 51))
    return dict(result=result, N=N, O=O, P1=P1, P2=P2, L2=L2)


class TestPointPositions:

    def test_positions_follow_the_closed_form_geometry(self, double_pendulum):
        d = double_pendulum
        res = d['result']
        xy = point_positions(res, [d['O'], d['P1'], d['P2']], d['N'])
        q1, q2 = res.q[:, 0], res.q[:, 1]
        x2 = np.sin(q1) + 0.7*np.sin(q2)
        y2 = -np.cos(q1) - 0.7*np.cos(q2)
        np.testing.assert_allclose(xy[:, 0], 0.0, atol=0)
        np.testing.assert_allclose(xy[:, 1, 0], np.sin(q1), atol=1e-14)
        np.testing.assert_allclose(xy[:, 2, 0], x2, atol=1e-14)
        np.testing.assert_allclose(xy[:, 2, 1], y2, atol=1e-14)

    def test_rod_lengths_are_constant(self, double_pendulum):
        d = double_pendulum
        xy = point_positions(d['result'], [d['O'], d['P1'], d['P2']], d['N'])
        rod1 = np.linalg.norm(xy[:, 1] - xy[:, 0], axis=1)
        rod2 = np.linalg.norm(xy[:, 2] - xy[:, 1], axis=1)
        np.testing.assert_allclose(rod1, 1.0, atol=1e-14)
        np.testing.assert_allclose(rod2, 0.7, atol=1e-14)

    def test_origin_axes_and_nested_chains(self, double_pendulum):
        d = double_pendulum
        res = d['result']
        xyz = point_positions(res, [[d['O'], d['P1']], [d['P2']]], d['N'],
                              origin=d['P1'], axes='xyz')
        assert xyz.shape == (51, 3, 3)
        np.testing.assert_allclose(xyz[:, 1], 0.0, atol=1e-15)
        np.testing.assert_allclose(xyz[:, :, 2], 0.0, atol=0)
        np.testing.assert_allclose(
            xyz[:, 2, 0], 0.7*np.sin(res.q[:, 1]), atol=1e-14)

    def test_constants_override_the_result_constants(self, double_pendulum):
        d = double_pendulum
        xy = point_positions(d['result'], [d['P1'], d['P2']], d['N'],
                             constants={d['L2']: 2.0})
        length = np.linalg.norm(xy[:, 1] - xy[:, 0], axis=1)
        np.testing.assert_allclose(length, 2.0, atol=1e-14)

    def test_unknown_symbol_is_named(self, double_pendulum):
        d = double_pendulum
        h = sm.Symbol('h')
        Q = d['O'].locatenew('Q', h*d['N'].x)
        with pytest.raises(ValueError, match=r'no value for h'):
            point_positions(d['result'], [d['O'], Q], d['N'])

    @pytest.mark.parametrize('points, frame, axes, error, match', [
        ('P1', 'N', ('x', 'y'), TypeError, 'sequence of Points'),
        (['P1'], None, ('x', 'y'), TypeError, 'ReferenceFrame'),
        (['P1'], 'N', ('x', 'w'), ValueError, 'axes'),
        ([], 'N', ('x', 'y'), ValueError, 'empty'),
    ])
    def test_bad_arguments(self, double_pendulum, points, frame, axes,
                           error, match):
        d = double_pendulum
        points = (d[points] if isinstance(points, str)
                  else [d[p] for p in points])
        frame = d[frame] if frame else 'N'
        with pytest.raises(error, match=match):
            point_positions(d['result'], points, frame, axes=axes)

    def test_result_must_come_from_simulate(self, double_pendulum):
        with pytest.raises(TypeError, match='SimulationResult'):
            point_positions(object(), [double_pendulum['O']],
                            double_pendulum['N'])


@pytest.mark.filterwarnings('ignore:Animation was deleted')
class TestAnimate:

    def test_frames_are_interpolated_at_the_frame_times(self,
                                                        double_pendulum):
        d = double_pendulum
        res = d['result']
        anim = animate(res, [d['O'], d['P1'], d['P2']], d['N'], fps=20,
                       speed=0.5, trace=d['P2'])
        try:
            # 1 s at half speed: 2 s of playback at 20 frames per second
            np.testing.assert_allclose(anim.frame_times,
                                       np.arange(41)*0.025, atol=1e-15)
            xy = point_positions(res, [d['O'], d['P1'], d['P2']], d['N'])
            # frame 4 falls on sample 5 (t = 0.1 s): no interpolation error
            np.testing.assert_allclose(anim.positions[4], xy[5],
                                       atol=1e-14)
        finally:
            matplotlib.pyplot.close(anim.figure)
            del anim             # never rendered: matplotlib warns here
            gc.collect()

    def test_animate_draws_in_a_plane_only(self, double_pendulum):
        d = double_pendulum
        with pytest.raises(ValueError, match='plane'):
            animate(d['result'], [d['O'], d['P1']], d['N'], axes='xyz')

    @pytest.mark.parametrize('name, value', [('fps', 0), ('speed', -1)])
    def test_bad_rates(self, double_pendulum, name, value):
        d = double_pendulum
        with pytest.raises(ValueError, match=name):
            animate(d['result'], [d['O'], d['P1']], d['N'], **{name: value})


def test_save_gif_writes_every_frame_at_the_frame_rate(double_pendulum,
                                                      tmp_path):
    from PIL import Image
    d = double_pendulum
    anim = animate(d['result'], [d['O'], d['P1'], d['P2']], d['N'], fps=10)
    try:
        path = save_gif(anim, tmp_path / 'pendulum.gif')
    finally:
        matplotlib.pyplot.close(anim.figure)
    gif = Image.open(path)
    assert gif.n_frames == 11                  # 1 s at 10 frames per second
    assert gif.info['duration'] == 100         # ms per frame
    assert gif.info['loop'] == 0               # repeats forever


@pytest.mark.filterwarnings('ignore:Animation was deleted without rendering')
def test_result_without_samples_is_refused(double_pendulum):
    """A result with no samples (a run stopped at its start): a ValueError
    saying so, not matplotlib's IndexError; its first sample alone still
    animates as one frame at the start configuration."""
    import dataclasses
    d = double_pendulum
    res = d['result']
    empty = dataclasses.replace(res, t=res.t[:0], q=res.q[:0], u=res.u[:0])
    with pytest.raises(ValueError, match='result has no samples'):
        animate(empty, [d['O'], d['P1']], d['N'])
    first = dataclasses.replace(res, t=res.t[:1], q=res.q[:1], u=res.u[:1])
    anim = animate(first, [d['O'], d['P1']], d['N'])
    try:
        np.testing.assert_allclose(anim.frame_times, [0.0])
        # P1 at -A.y with q1 = 0.5 from O
        np.testing.assert_allclose(anim.positions[0, 1],
                                   [np.sin(0.5), -np.cos(0.5)], atol=1e-14)
    finally:
        matplotlib.pyplot.close(anim.figure)
        del anim
        gc.collect()


@pytest.mark.filterwarnings('ignore:Animation was deleted without rendering')
@pytest.mark.parametrize('name, value', [
    ('fps', 0), ('fps', -1), ('fps', float('inf')), ('fps', float('nan')),
    ('fps', True), ('dpi', 0), ('dpi', -80)])
def test_save_gif_refuses_bad_rates_and_resolutions(double_pendulum,
                                                     tmp_path, name, value):
    """fps=0 raised ZeroDivisionError and fps=-1 OverflowError; now a
    ValueError naming the argument, before any file is written."""
    d = double_pendulum
    anim = animate(d['result'], [d['O'], d['P1']], d['N'], fps=10)
    try:
        with pytest.raises(ValueError, match=f'^{name} must be a positive, '
                           f'finite number'):
            save_gif(anim, tmp_path / 'bad.gif', **{name: value})
        assert not (tmp_path / 'bad.gif').exists()
    finally:
        matplotlib.pyplot.close(anim.figure)
        del anim
        gc.collect()


@pytest.mark.filterwarnings('ignore:Animation was deleted without rendering')
def test_ground_pivots_and_slider_blocks_are_drawn(double_pendulum):
    """``ground`` points get a pivot symbol where they are, ``sliders`` a
    block that moves with the point (over its path, drawn as the guide);
    the clock sits above the axes, clear of the mechanism."""
    import matplotlib.pyplot as plt
    d = double_pendulum
    chain = [d['O'], d['P1'], d['P2']]
    anim = animate(d['result'], chain, d['N'], fps=5, ground=[d['O']],
                   sliders=[d['P2']])
    ax = anim.figure.axes[0]
    assert len(ax.patches) == 1                     # the pivot's triangle
    anim._sympy_loads_frames[1](3)                  # draw frame 3
    blocks = [line for line in ax.lines if line.get_marker() == 's']
    assert len(blocks) == 1
    np.testing.assert_allclose(np.ravel(blocks[0].get_data()),
                               anim.positions[3, 2])
    clock = ax.texts[-1]
    assert clock.get_text() == 't =  0.60 s'
    assert clock.get_position()[1] > 1.0            # above the axes
    with pytest.raises(TypeError, match='ground must be a sequence of '
                                        'Points'):
        animate(d['result'], chain, d['N'], ground=[1.0])
    plt.close('all')
