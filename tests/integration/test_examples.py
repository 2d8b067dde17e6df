"""The examples run (short durations where they take one) and print the
numbers they promise: a closed mechanism and a consistent energy balance
(four-bar, slider-crank), Meijaard et al.'s eigenvalues (bicycle), the
requested restitution at the first impact (bouncing ball); the list of
examples and the animations."""

import os
import re

import numpy as np
import pytest

from sympy_loads.examples import four_bar, slider_crank


def _row(table, label):
    return float(dict(table)[label])


def test_four_bar_example_prints_summary_and_saves_plot(tmp_path, capsys):
    result, table = four_bar.main(['--duration', '2', '--output',
                                   str(tmp_path)])
    out = capsys.readouterr().out
    assert 'max |constraint residual|' in out
    assert 'energy balance error' in out
    assert os.path.getsize(tmp_path / 'four_bar.png') > 1000
    # the force in each of the four pins along the run, one figure
    assert os.path.getsize(tmp_path / 'four_bar_joint_forces.png') > 1000
    for pin in ('P1', 'P2', 'P3', 'P4'):
        assert _row(table, f'largest force in pin {pin} [N]') > 0
    assert result.t[-1] == 2.0
    assert _row(table, 'max |constraint residual| [m]') <= 1e-9
    # E(t) - E(0) equals the damper's work to the quadrature's accuracy
    assert _row(table, 'energy balance error (relative)') <= 1e-4
    assert _row(table, 'work of the damper [J]') < 0


def test_slider_crank_example_turns_the_crank(capsys):
    result, table = slider_crank.main(['--duration', '1', '--no-plot'])
    out = capsys.readouterr().out
    assert 'crank revolutions' in out and 'plot saved' not in out
    assert _row(table, 'max |constraint residual| [m]') <= 1e-9
    assert _row(table, 'energy balance error (relative)') <= 1e-4
    assert _row(table, 'crank revolutions') > 2
    # slider position from the closed form x = r cos(th) + sqrt(l^2 -
    # r^2 sin(th)^2) (REFERENCES.md) at every sample
    r, l = slider_crank.PARAMETERS['r'], slider_crank.PARAMETERS['l']
    theta = result.q[:, 0]
    exact = r*np.cos(theta) + np.sqrt(l**2 - (r*np.sin(theta))**2)
    np.testing.assert_allclose(result.q[:, 2], exact, atol=1e-12)


def test_four_bar_and_slider_crank_help_is_a_whole_sentence(capsys):
    for module in (four_bar, slider_crank):
        with pytest.raises(SystemExit):
            module.main(['--help'])
        out = ' '.join(capsys.readouterr().out.split())
        assert 'simulated with sympy_loads.simulate.' in out
        assert '--animate' in out


def test_four_bar_animation_is_a_gif_of_the_linkage(tmp_path):
    from PIL import Image
    result, _ = four_bar.main(['--duration', '1', '--no-plot', '--animate',
                               '--output', str(tmp_path)])
    gif = Image.open(tmp_path / 'four_bar.gif')
    assert gif.n_frames == 26            # 1 s at 25 frames per second
    assert gif.info['duration'] == 40    # ms per frame: real time


def test_slider_crank_animation_is_saved(tmp_path, capsys):
    from PIL import Image
    slider_crank.main(['--duration', '0.2', '--no-plot', '--animate',
                       '--output', str(tmp_path)])
    assert 'animation saved to' in capsys.readouterr().out
    # 0.2 s at a quarter of real time, 25 frames per second
    assert Image.open(tmp_path / 'slider_crank.gif').n_frames == 21


def test_examples_list_names_each_example_on_one_line(capsys):
    from sympy_loads.examples import __main__ as listing
    found = dict(listing.main([]))
    out = capsys.readouterr().out.splitlines()
    assert {'bicycle', 'bouncing_ball', 'car_replacement', 'four_bar',
            'slider_crank'} <= set(found)
    for name, description in found.items():
        assert description.endswith('.'), (name, description)
        assert sum(line.split()[0] == name for line in out[1:]) == 1
    assert found['bicycle'].startswith('The Whipple bicycle of Meijaard '
                                       'et al. (2007)')


def _float(text):
    return float(text.replace(' ', ''))


def test_bicycle_prints_meijaard_eigenvalues(tmp_path, capsys):
    from sympy_loads.examples import bicycle
    from sympy_loads.examples._whipple import MEIJAARD_EIGENVALUES_5MS
    run = bicycle.main(['--output', str(tmp_path)])
    out = capsys.readouterr().out
    assert os.path.getsize(tmp_path / 'bicycle.png') > 1000
    number = r'(-?\d+\.\d+)'
    weave = re.search(rf'weave\s+{number} \+/- {number}i', out)
    capsize = re.search(rf'capsize\s+{number}', out)
    castering = re.search(rf'castering\s+{number}', out)
    assert weave and capsize and castering, out
    # Meijaard et al. (2007), Table 2, at 5 m/s (14 digits)
    castering_ref, weave_ref, _, capsize_ref = MEIJAARD_EIGENVALUES_5MS
    assert abs(float(weave.group(1)) - weave_ref.real) <= 1e-8
    assert abs(float(weave.group(2)) - weave_ref.imag) <= 1e-8
    assert abs(float(capsize.group(1)) - capsize_ref.real) <= 1e-8
    assert abs(float(castering.group(1)) - castering_ref.real) <= 1e-8
    # the published numbers are printed beside them
    assert '-0.775341882 +/- 4.464867714i' in out
    assert '-0.322866429' in out and '-14.078389693' in out
    assert max(run.errors.values()) <= 1e-8
    assert 'least-squares fit x(k+1) = Phi x(k)' in out
    # the mechanism stays assembled and the wheels keep rolling
    assert np.max(run.result.constraint_residual) <= 1e-12
    assert np.max(run.result.velocity_residual) <= 1e-12


def test_bicycle_pitch_matches_an_independent_root(capsys):
    """The pitch HolonomicConstraintSolver finds at lean 0.1 rad and steer
    0.2 rad is the root of the front contact's height, found by SciPy's
    brentq on the lambdified constraint."""
    import sympy as sm
    from scipy.optimize import brentq
    from sympy_loads.examples import bicycle
    from sympy_loads.examples._whipple import whipple_bicycle
    model = whipple_bicycle()
    pitch, residual = bicycle.solve_pitch(model, *bicycle.LEANED)
    q = list(model.kane.q)
    height = sm.lambdify(model.pitch, model.configuration_constraints[0]
                         .xreplace(model.constants)
                         .xreplace({model.yaw: 0.0,
                                    model.roll: bicycle.LEANED[0],
                                    model.steer: bicycle.LEANED[1]}))
    root = brentq(height, -0.3, 0.3, xtol=1e-15)
    assert abs(pitch - root) <= 1e-12
    assert residual <= 1e-12
    assert q[3] == model.pitch
    upright, _ = bicycle.solve_pitch(model)
    assert abs(upright) <= 1e-14


def test_bicycle_identification_recovers_a_known_linear_system():
    from scipy.linalg import expm
    from sympy_loads.examples import bicycle
    A = np.array([[0.0, 1.0], [-4.0, -0.4]])   # eigenvalues -0.2 +/- 1.99i
    t = np.linspace(0.0, 5.0, 501)
    x = np.array([expm(A*ti) @ [1.0, 0.0] for ti in t]).T
    found = bicycle.identify_eigenvalues(t, x)
    expected = np.sort_complex(np.linalg.eigvals(A))
    np.testing.assert_allclose(np.sort_complex(found), expected,
                               atol=1e-10)


def test_bouncing_ball_first_restitution_is_the_requested_one(tmp_path,
                                                               capsys):
    from sympy_loads.examples import bouncing_ball
    result = bouncing_ball.main(['--duration', '1.5', '--output',
                                 str(tmp_path)])
    out = capsys.readouterr().out
    first = re.search(r'^\s+1\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$', out,
                      flags=re.MULTILINE)
    assert first, out
    speed, measured, predicted, height = map(float, first.groups())
    par = bouncing_ball.PARAMETERS
    # free fall of the lowest point from h0: v0 = sqrt(2 g h0)
    assert abs(speed - np.sqrt(2*par['g']*par['h0'])) <= 1e-4
    assert predicted == 0.8
    # gravity during the ~1 ms contact lowers it a little
    assert abs(measured - par['e']) <= 1e-3
    # rebound height from the rebound speed: (e v0)^2/(2 g)
    assert abs(height - (measured*speed)**2/(2*par['g'])) <= 2e-3
    assert f"dropped from {par['h0']} m" in out
    assert 'N/m^1.5' in out and 'N s/m^2.5' in out
    # the plot starts at the drop height
    assert abs(result['y'][1, 0] - par['R'] - par['h0']) <= 1e-12
    assert os.path.getsize(tmp_path / 'bouncing_ball.png') > 1000


def test_bouncing_ball_uses_only_public_api():
    import inspect
    from sympy_loads.examples import bouncing_ball
    assert 'sympy_loads._' not in inspect.getsource(bouncing_ball)
