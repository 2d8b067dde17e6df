"""The examples' command lines refuse bad options with a one-line message
(exit status 2), before any model is built."""

import pytest

from sympy_loads.examples import (bicycle, bicycle_stability, bouncing_ball,
                                  car_replacement, falling_rod, four_bar,
                                  rocking_block, slider_crank,
                                  vibrating_table, woodpecker)


@pytest.mark.parametrize('module, argv, message', [
    (four_bar, ['--duration', '-1'],
     'argument --duration: must be positive, got -1'),
    (four_bar, ['--duration', 'abc'],
     "argument --duration: must be a number, got 'abc'"),
    (slider_crank, ['--duration', 'nan'],
     'argument --duration: must be finite, got nan'),
    (bouncing_ball, ['--duration', '0'],
     'argument --duration: must be positive, got 0'),
    (bicycle, ['--speed', '0'], 'argument --speed: must be positive, got 0'),
    (bicycle, ['--kick', '0'], 'argument --kick: must not be zero, got 0'),
    (bicycle_stability, ['--speeds', '0'],
     'argument --speeds: must be positive, got 0'),
    (bicycle_stability, ['--workers', '-2'],
     'argument --workers: must be positive, got -2'),
    (car_replacement, ['--bogus'], 'unrecognized arguments: --bogus'),
    (falling_rod, ['--duration', '0'],
     'argument --duration: must be positive, got 0'),
    (rocking_block, ['--duration', 'inf'],
     'argument --duration: must be finite, got inf'),
    (vibrating_table, ['--duration', '-3'],
     'argument --duration: must be positive, got -3'),
    (woodpecker, ['--duration', 'x'],
     "argument --duration: must be a number, got 'x'"),
])
def test_bad_option_is_one_line(module, argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        module.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1, err
    assert err.startswith(f'python -m {module.__name__}: error: ')
    assert message in err
