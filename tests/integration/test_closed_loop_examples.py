"""The four-bar and slider-crank examples, built from SymPy joints closed by
a :class:`~sympy_loads.LoopJoint`: their motion, the force in every joint
(``joint_reactions`` of the tree joints, the loop joint's multipliers, as
outputs of ``simulate``) and the slider-crank with Coulomb friction in the
piston's guide, against the independent body-coordinate model of
``tests/_planar_reference.py`` (absolute coordinates, Lagrange multipliers,
integrated by SciPy at rtol 1e-11; its own checks are in
``tests/test_planar_reference.py``).

Tolerances: the library and the reference both run at rtol 1e-11 (atol
1e-12); measured, the coordinates agree to 1e-9 (rad, m), the crank speed
to 2e-8 rad/s with friction (the kinks of mu |N| where N changes sign are
not events of the library's run) and the forces, algebraic in the state, to
1e-9 of the largest force; the issue asks for 1e-6 (of the largest
reaction; in radians and rad/s for the crank angle and speed over 1 s).
The works of the example's smooth powers (motor, spring-damper, bearing)
are integrated from their samples by Simpson's rule, far below 1e-6; the
friction's power has kinks (at the dead centres and where N changes sign),
where Simpson's rule errs by about 1e-5 J at 2001 samples, so the energy
lost is compared with the reference's friction work (integrated with the
motion) and the friction power sample by sample.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from sympy_loads import simulate
from sympy_loads.examples import four_bar, slider_crank
from sympy_loads.examples._report import joint_force_outputs, work

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _planar_reference as reference  # noqa: E402

TIGHT = dict(rtol=1e-11, atol=1e-12)


def _forces(result, name):
    out = result.outputs
    return np.column_stack([out[f'F_{name}_x'], out[f'F_{name}_y']])


def _agree(forces, expected, label):
    scale = max(np.max(np.abs(f)) for f in expected.values())
    for name, f in forces.items():
        error = np.max(np.abs(f - expected[name]))
        assert error <= 1e-6*scale, (label, name, error, scale)


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_four_bar_forces_in_every_pin_match_the_body_coordinate_model(
        backend):
    model = four_bar.build_model()
    t = np.linspace(0.0, 2.0, 101)
    outputs = joint_force_outputs(four_bar.joint_forces(model),
                                  model.frames[0])
    result = simulate(model.system, (0.0, 2.0),
                      four_bar.initial_conditions(model),
                      four_bar.constants_of(model), t_eval=t,
                      outputs=outputs, backend=backend, **TIGHT)
    ref_model, initial = reference.four_bar()
    ref = ref_model.simulate(t, *initial())
    np.testing.assert_allclose(result.q, reference.four_bar_angles(ref.q),
                               atol=1e-7)
    # P1 ground on crank, P2 crank on coupler, P3 coupler on rocker, P4
    # (the loop joint) ground on rocker: the reference's pins, same sense
    _agree({name: _forces(result, name) for name in ref.reaction},
           ref.reaction, 'four-bar')


def _slider_crank_run(mu, duration, samples, backend='auto'):
    model = slider_crank.build_model(friction=mu)
    t = np.linspace(0.0, duration, samples)
    outputs = joint_force_outputs(slider_crank.joint_forces(model),
                                  model.frame)
    outputs.update(energy=model.energy, motor=model.motor_power,
                   damper=model.damper_power, bearing=model.bearing_power)
    options = {}
    if mu:
        outputs['friction'] = model.friction_power
        options['joint_friction'] = [model.friction]
    result = simulate(model.system, (0.0, duration),
                      slider_crank.initial_conditions(model),
                      slider_crank.constants_of(model), t_eval=t,
                      specified={model.torque: slider_crank.motor_torque()},
                      outputs=outputs, backend=backend, **options, **TIGHT)
    ref_model, initial = reference.slider_crank(mu=mu or 0.0)
    ref = ref_model.simulate(t, *initial())
    return result, ref


def _slider_crank_forces(result, ref):
    """The example's joints against the reference's: O ground on crank, P
    (the loop joint) crank on rod, S slider on rod (the reference's S is
    rod on slider), piston: the guide's normal force along N.y."""
    ours = {name: _forces(result, name) for name in ('O', 'P', 'S')}
    ours['piston'] = _forces(result, 'piston')
    expected = {'O': ref.reaction['O'], 'P': ref.reaction['P'],
                'S': -ref.reaction['S'],
                'piston': np.column_stack([0*ref.t,
                                           ref.reaction['guide'][:, 0]])}
    return ours, expected


@pytest.mark.parametrize('backend', ['compiled', 'numpy'])
def test_slider_crank_forces_in_every_joint_match_the_body_coordinate_model(
        backend):
    result, ref = _slider_crank_run(None, 1.0, 201, backend)
    np.testing.assert_allclose(
        result.q, reference.slider_crank_coordinates(ref.q), atol=1e-7)
    _agree(*_slider_crank_forces(result, ref), 'slider-crank')


def test_slider_crank_with_piston_friction_matches_the_reference():
    """Coulomb friction mu = 0.3 in the piston's guide (JointFriction on the
    PrismaticJoint of a loop closed by a LoopJoint): crank angle and speed
    over 1 s, the joint forces, and the energy lost (work of motor,
    spring-damper and bearing minus the energy change) equal to minus the
    reference's friction work, and the friction's power."""
    result, ref = _slider_crank_run(0.3, 1.0, 2001)
    assert np.max(np.abs(result.q[:, 0] - ref.q[:, 2])) <= 1e-6
    assert np.max(np.abs(result.u[:, 0] - ref.qd[:, 2])) <= 1e-6
    _agree(*_slider_crank_forces(result, ref), 'slider-crank, friction')
    out = result.outputs
    works = {name: work(out[name], result.t)
             for name in ('motor', 'damper', 'bearing')}
    lost = (works['motor'] + works['damper'] + works['bearing']
            - (out['energy'] - out['energy'][0]))
    scale = np.max(np.abs(works['motor']))
    assert np.max(np.abs(lost + ref.work['friction'])) <= 1e-6*scale
    assert ref.work['friction'][-1] < -1.0     # friction matters here
    # the friction's power -f |v| against the reference's F v
    power = ref.reaction['guide'][:, 2]*ref.qd[:, 6]
    assert np.max(np.abs(out['friction'] - power)) <= (
        1e-6*np.max(np.abs(power)))


def test_slider_crank_example_prints_the_friction_energy_balance(capsys):
    _, table = slider_crank.main(['--duration', '1', '--no-plot',
                                  '--friction', '0.3'])
    out = capsys.readouterr().out
    assert 'friction 0.3 in the guide' in out
    rows = {label: float(value) for label, value in table}
    lost = rows['energy lost in the guide [J]']
    friction = rows['work of the guide friction [J]']
    assert friction < -1.0
    # Simpson's rule at 1000 samples per second on the example's rtol
    assert abs(lost + friction) <= 1e-4*abs(friction)
    assert rows['energy balance error (relative)'] <= 1e-4
