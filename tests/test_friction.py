"""Tests of sympy_loads.friction: the scalar laws against the formulas of
seed 000 and Flores et al. (2023), their sign convention (friction never
adds energy), finite values at zero slip, and the argument checks."""

import math

import numpy as np
import pytest
import sympy as sm
from hypothesis import given, settings
from hypothesis import strategies as st

from sympy_loads import (coulomb_friction, friction_law, friction_magnitude,
                         smooth_sign, stribeck_friction, viscous_friction)

v = sm.Symbol('v', real=True)
N, mu_k, mu_s, v_s, c_v, eps = sm.symbols('N mu_k mu_s v_s c_v epsilon',
                                          positive=True)


class TestScalarLaws:

    def test_coulomb_is_seed_000_signum_form(self):
        # seed 000: Ff = -mu*Fn*sign(v)
        assert coulomb_friction(v, N, mu_k) == -mu_k * N * sm.sign(v)

    def test_coulomb_matches_seed_000_piecewise(self):
        # seed 000's Piecewise: mu Fn (v<0), -mu Fn (v>0), 0 (v=0)
        piecewise = sm.Piecewise((mu_k * N, v < 0), (-mu_k * N, v > 0),
                                 (0, True))
        law = coulomb_friction(v, N, mu_k)
        for value in (-3, -sm.Rational(1, 7), 0, sm.Rational(2, 5), 11):
            assert law.subs(v, value) == piecewise.subs(v, value)

    def test_viscous(self):
        assert viscous_friction(v, c_v) == -c_v * v

    def test_stribeck_formula(self):
        expected = (-(mu_k * N + (mu_s - mu_k) * N * sm.exp(-(v / v_s)**2))
                    * sm.sign(v) - c_v * v)
        law = stribeck_friction(v, N, mu_k, mu_s, v_s, viscous_coefficient=c_v)
        assert sm.simplify(law - expected) == 0

    def test_stribeck_general_exponent_uses_abs(self):
        law = stribeck_friction(v, N, mu_k, mu_s, v_s, exponent=1)
        expected = -(mu_k * N + (mu_s - mu_k) * N
                     * sm.exp(-sm.Abs(v) / v_s)) * sm.sign(v)
        assert sm.simplify(law - expected) == 0

    def test_stribeck_static_and_kinetic_limits(self):
        law = stribeck_friction(v, 10, 0.3, 0.5, 0.01)
        # just above zero slip: static level mu_s N = 5; far away: mu_k N = 3
        assert float(law.subs(v, 1e-9)) == pytest.approx(-5.0, rel=1e-12)
        assert float(law.subs(v, -1e-9)) == pytest.approx(5.0, rel=1e-12)
        assert float(law.subs(v, 1.0)) == pytest.approx(-3.0, rel=1e-12)

    def test_combined_law_reduces_to_parts(self):
        assert friction_law(v, N, kinetic_coefficient=mu_k) == \
            coulomb_friction(v, N, mu_k)
        assert friction_law(v, viscous_coefficient=c_v) == \
            viscous_friction(v, c_v)
        assert friction_law(v, N, kinetic_coefficient=mu_k,
                            viscous_coefficient=c_v) == \
            coulomb_friction(v, N, mu_k) + viscous_friction(v, c_v)

    @pytest.mark.parametrize('method, expected', [
        ('tanh', sm.tanh(v / eps)),
        ('atan', 2 / sm.pi * sm.atan(v / eps)),
        ('algebraic', v / sm.sqrt(v**2 + eps**2)),
        ('exact', sm.sign(v)),
    ])
    def test_regularized_sign_is_smooth_sign(self, method, expected):
        law = coulomb_friction(v, N, mu_k, regularization=eps,
                               sign_method=method)
        assert sm.simplify(law + mu_k * N * expected) == 0

    def test_friction_magnitude(self):
        s = sm.Symbol('s', nonnegative=True)
        assert friction_magnitude(
            s, N, kinetic_coefficient=mu_k, static_coefficient=mu_s,
            stribeck_speed=v_s, viscous_coefficient=c_v) == (
                mu_k * N + (mu_s - mu_k) * N * sm.exp(-s**2 / v_s**2)
                + c_v * s)


class TestZeroSlip:

    @pytest.mark.parametrize('method', ['tanh', 'atan', 'algebraic'])
    def test_smooth_law_is_finite_zero_at_rest_numerically(self, method):
        law = friction_law(v, 9.81, kinetic_coefficient=0.4,
                           static_coefficient=0.6, stribeck_speed=0.1,
                           viscous_coefficient=0.2, regularization=1e-3,
                           sign_method=method)
        f = sm.lambdify(v, law, modules='numpy', cse=True)
        values = f(np.array([0.0, -0.0]))
        assert np.all(np.isfinite(values))
        assert np.all(values == 0.0)

    def test_exact_law_is_zero_at_rest(self):
        law = friction_law(v, N, kinetic_coefficient=mu_k,
                           static_coefficient=mu_s, stribeck_speed=v_s)
        assert law.subs(v, 0) == 0
        f = sm.lambdify(v, law.subs({N: 2, mu_k: 0.3, mu_s: 0.5, v_s: 0.1}))
        assert f(0.0) == 0.0


@settings(max_examples=60, deadline=None)
@given(speed=st.floats(-1e3, 1e3, allow_nan=False),
       normal=st.floats(0, 1e4),
       kinetic=st.floats(0, 2),
       extra=st.floats(0, 1),
       stribeck=st.floats(1e-4, 10),
       viscous=st.floats(0, 100),
       epsilon=st.sampled_from([0, 1e-3, 0.1]),
       method=st.sampled_from(['tanh', 'atan', 'algebraic', 'exact']))
def test_friction_never_adds_energy(speed, normal, kinetic, extra, stribeck,
                                    viscous, epsilon, method):
    # power of the friction force on the sliding body, F v, is never > 0
    law = friction_law(speed, normal, kinetic_coefficient=kinetic,
                       static_coefficient=kinetic + extra,
                       stribeck_speed=stribeck, viscous_coefficient=viscous,
                       regularization=epsilon, sign_method=method)
    power = float(law) * speed
    assert math.isfinite(power)
    assert power <= 0.0


class TestArguments:

    @pytest.mark.parametrize('kwargs, match', [
        (dict(normal_force=-1), 'normal_force'),
        (dict(kinetic_coefficient=-0.1), 'kinetic_coefficient'),
        (dict(viscous_coefficient=-2), 'viscous_coefficient'),
        (dict(regularization=-1e-3), 'regularization'),
        (dict(static_coefficient=0.1, kinetic_coefficient=0.2,
              stribeck_speed=1), 'static_coefficient must be >='),
        (dict(static_coefficient=0.5), 'stribeck_speed'),
        (dict(stribeck_speed=0.5), 'static_coefficient'),
        (dict(static_coefficient=0.5, stribeck_speed=0), 'stribeck_speed'),
        (dict(static_coefficient=0.5, stribeck_speed=0.1, exponent=0),
         'exponent'),
        (dict(sign_method='sigmoid'), 'method'),
    ])
    def test_bad_values_raise_value_error(self, kwargs, match):
        with pytest.raises(ValueError, match=match):
            friction_law(v, **kwargs)

    @pytest.mark.parametrize('kwargs, match', [
        (dict(speed='fast'), 'speed'),
        (dict(speed=v, normal_force=[1, 2]), 'normal_force'),
        (dict(speed=v, kinetic_coefficient='mu'), 'kinetic_coefficient'),
    ])
    def test_bad_types_raise_type_error(self, kwargs, match):
        with pytest.raises(TypeError, match=match):
            friction_law(**kwargs)

    def test_smooth_sign_unchanged(self):
        assert smooth_sign(v, eps) == sm.tanh(v / eps)
        assert smooth_sign(v) == sm.sign(v)
        assert smooth_sign(v, eps, method='exact') == sm.sign(v)
