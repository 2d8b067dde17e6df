"""The simulation examples run (short durations) and their summaries
report a closed mechanism and a consistent energy balance."""

import os

import numpy as np

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
