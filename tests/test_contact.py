"""Tests of sympy_loads.contact: HuntCrossleyContact and the damping models."""

import math
import warnings

import numpy as np
import pytest
import sympy as sm
from sympy.physics.mechanics import (Force, Point, ReferenceFrame, Torque,
                                     dynamicsymbols)

from sympy_loads import (DAMPING_MODELS, HuntCrossleyContact, Impact,
                         damping_from_restitution, effective_restitution,
                         hertz_stiffness, hysteresis_factor, moment,
                         resultant)
from sympy_loads._utils import _lambdify

t = dynamicsymbols._t


@pytest.fixture
def seed():
    """Seed 000's particle P at (x, y, z) over the plane z = 0 of N."""
    N = ReferenceFrame('N')
    x, y, z = dynamicsymbols('x y z', real=True)
    ux, uy, uz = dynamicsymbols('u_x u_y u_z', real=True)
    O = Point('O')
    O.set_vel(N, 0)
    P = O.locatenew('P', x * N.x + y * N.y + z * N.z)
    P.set_vel(N, ux * N.x + uy * N.y + uz * N.z)
    k, c, mu = sm.symbols('k c mu', positive=True)
    return dict(N=N, O=O, P=P, x=x, y=y, z=z, ux=ux, uy=uy, uz=uz, k=k, c=c,
                mu=mu)


def _contact(s, **kw):
    options = dict(stiffness=s['k'], damping=s['c'])
    options.update(kw)
    return HuntCrossleyContact(s['P'], s['O'], s['N'].z, s['N'], **options)


# -- seed 000's checks ------------------------------------------------------

class TestSeedChecks:

    def test_penetration_is_seed_expression(self, seed):
        """The textbook's (|z| - z)/2, written max(0, -z) so that it cannot
        come out negative in floating point (issue 35)."""
        z = seed['z']
        penetration = _contact(seed).penetration
        assert penetration == sm.Max(0, -z)
        for value in (-2, 0, sm.Rational(3, 7)):
            assert penetration.subs(z, value) == \
                ((sm.Abs(z) - z) / 2).subs(z, value)

    def test_zero_force_for_positive_height(self, seed):
        contact = _contact(seed, friction_coefficient=seed['mu'])
        above = {seed['z']: sm.Symbol('z', positive=True)}
        assert contact.penetration.xreplace(above) == 0
        assert contact.normal_force.xreplace(above) == 0
        for load in contact.to_loads():
            assert load.vector.xreplace(above) == 0

    def test_raw_spring_damper_force_for_negative_height(self, seed):
        # The seed's f = k z_p**(3/2) + c z_p**(3/2) zdot, with the rate
        # taken positive while compressing (d' = -u_z).
        contact = _contact(seed, clamped=False)
        zn = sm.Symbol('z', negative=True)
        zp = -zn
        expected = (seed['k'] * zp**sm.Rational(3, 2)
                    + seed['c'] * zp**sm.Rational(3, 2) * (-seed['uz']))
        got = contact.normal_force.xreplace({seed['z']: zn})
        assert sm.expand(got - expected) == 0
        assert contact.to_loads()[0].vector.xreplace({seed['z']: zn}) \
            .dot(seed['N'].z).expand() == expected.expand()

    def test_clamped_force_equals_seed_force_while_compressing(self, seed):
        contact = _contact(seed)
        d, w = sm.symbols('d w', positive=True)
        got = contact.normal_force.xreplace({seed['z']: -d, seed['uz']: -w})
        assert sm.simplify(got - d**sm.Rational(3, 2) * (seed['k']
                                                         + seed['c'] * w)) == 0

    def test_friction_vanishes_without_penetration(self, seed):
        contact = _contact(seed, friction_coefficient=seed['mu'])
        above = {seed['z']: sm.Symbol('z', positive=True)}
        F = contact.friction_force.xreplace(above)
        assert F.dot(seed['N'].x) == 0 and F.dot(seed['N'].y) == 0

    def test_friction_in_contact_is_coulomb(self, seed):
        # exact sign: F_t = -mu f v_t/|v_t| for nonzero slip
        N = seed['N']
        contact = _contact(seed, friction_coefficient=seed['mu'])
        vals = {seed['z']: -0.01, seed['uz']: -0.5, seed['ux']: 3.0,
                seed['uy']: -4.0, seed['k']: 1e5, seed['c']: 2e3,
                seed['mu']: 0.4}
        f = float(contact.normal_force.subs(vals))
        assert f == pytest.approx(0.01**1.5 * (1e5 + 2e3 * 0.5), rel=1e-12)
        F = contact.friction_force.subs(vals)
        assert float(F.dot(N.x)) == pytest.approx(-0.4 * f * 3 / 5,
                                                  rel=1e-12)
        assert float(F.dot(N.y)) == pytest.approx(0.4 * f * 4 / 5,
                                                  rel=1e-12)
        assert F.dot(N.z) == 0


# -- the force law ----------------------------------------------------------

class TestForceLaw:

    def test_clamping_removes_adhesion(self, seed):
        # strongly damped rebound: k + c d' < 0
        vals = {seed['z']: -0.01, seed['uz']: 2.0, seed['k']: 1e5,
                seed['c']: 1e5}
        raw = float(_contact(seed, clamped=False).normal_force.subs(vals))
        clamped = float(_contact(seed).normal_force.subs(vals))
        assert raw == pytest.approx(0.01**1.5 * (1e5 - 2e5), rel=1e-12)
        assert raw < 0 and clamped == 0

    def test_unclamped_adhesion_does_not_drive_the_slip(self, seed):
        # Raw (adhesive) normal force during a damped rebound with slip:
        # the friction uses the pressing part only, so it vanishes here
        # instead of pushing along the slip (mu * f_raw < 0).
        N = seed['N']
        contact = _contact(seed, clamped=False,
                           friction_coefficient=seed['mu'])
        vals = {seed['z']: -0.01, seed['uz']: 2.0, seed['ux']: 3.0,
                seed['uy']: 0.0, seed['k']: 1e5, seed['c']: 1e5,
                seed['mu']: 0.4}
        assert float(contact.normal_force.subs(vals)) < 0
        F = contact.friction_force.subs(vals)
        assert float(F.dot(N.x)) == 0.0 and float(F.dot(N.y)) == 0.0
        # While pressing, it is the same Coulomb force as when clamped.
        vals.update({seed['uz']: -0.5})
        f = 0.01**1.5 * (1e5 + 1e5 * 0.5)
        assert float(contact.friction_force.subs(vals).dot(N.x)) == \
            pytest.approx(-0.4 * f, rel=1e-12)

    def test_radius_offsets_gap(self, seed):
        R = sm.Symbol('R', positive=True)
        contact = _contact(seed, radius=R)
        h = seed['z'] - R
        assert contact.penetration == sm.Max(0, -h)

    def test_exponent(self, seed):
        contact = _contact(seed, exponent=1, damping=0)
        assert contact.normal_force.subs(seed['z'], -3) == 3 * seed['k']

    def test_no_nan_at_edges(self, seed):
        """Zero slip, zero penetration and both: finite, no warnings."""
        s = seed
        cases = {}
        for method, eps in [('exact', 0), ('tanh', 1e-3), ('atan', 1e-3),
                            ('algebraic', 1e-3)]:
            contact = _contact(s, friction_coefficient=s['mu'],
                               friction_regularization=eps,
                               friction_sign_method=method)
            args = (s['z'], s['ux'], s['uy'], s['uz'], s['k'], s['c'],
                    s['mu'])
            cases[method] = _lambdify(
                args, list(contact.force.to_matrix(s['N'])))
        states = [(0.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, -1.0),
                  (-0.01, 0.0, 0.0, -1.0), (-0.01, 0.0, 0.0, 0.0),
                  (0.2, 0.0, 0.0, 0.0), (-0.01, 1e-300, 0.0, 0.0)]
        with warnings.catch_warnings(), np.errstate(all='raise'):
            warnings.simplefilter('error')
            for f in cases.values():
                for z, ux, uy, uz in states:
                    F = np.array(f(z, ux, uy, uz, 1e5, 1e2, 0.5), float)
                    assert np.all(np.isfinite(F))
                    if ux == 0 and uy == 0:
                        assert F[0] == 0 and F[1] == 0
                    if z >= 0:
                        assert np.all(F == 0)
                # arrays too
                z = np.array([0.0, -0.01, 0.1])
                zero = np.zeros(3)
                F = f(z, zero, zero, zero, 1e5, 1e2, 0.5)
                assert np.all(np.isfinite(np.array(F, float)))

    def test_regularized_friction_magnitude(self, seed):
        s = seed
        eps = sm.Rational(1, 100)
        contact = _contact(s, friction_coefficient=s['mu'],
                           friction_regularization=eps)
        vals = {s['z']: -0.01, s['uz']: 0, s['ux']: 0.006, s['uy']: 0.008,
                s['k']: 1e5, s['c']: 0, s['mu']: 0.5}
        F = contact.friction_force.subs(vals)
        f = 1e5 * 0.01**1.5
        expected = 0.5 * f * math.tanh(0.01 / 0.01)
        assert float(F.magnitude()) == pytest.approx(expected, rel=1e-12)
        v = 0.006 * s['N'].x + 0.008 * s['N'].y
        assert float(F.dot(v)) < 0


# -- kinematics of moving planes, spheres and reactions ----------------------

class TestKinematics:

    def test_moving_tilting_plane_rate_is_minus_gap_derivative(self):
        N = ReferenceFrame('N')
        q, y0, z = dynamicsymbols('q y_0 z')
        uq, uy0, uz = dynamicsymbols('u_q u_y0 u_z')
        B = N.orientnew('B', 'Axis', (q, N.x))
        B.set_ang_vel(N, uq * N.x)
        O = Point('O')
        O.set_vel(N, 0)
        A = O.locatenew('A', y0 * N.y)       # plane point, moves along n_y
        A.set_vel(N, uy0 * N.y)
        P = O.locatenew('P', z * N.z + 2 * N.y)
        P.set_vel(N, uz * N.z)
        R = sm.Rational(1, 10)
        contact = HuntCrossleyContact(P, A, B.z, N, stiffness=1, radius=R,
                                      plane_frame=B)
        gap = P.pos_from(A).dot(B.z) - R
        kin = {q.diff(t): uq, y0.diff(t): uy0, z.diff(t): uz}
        rate = -gap.diff(t).subs(kin)
        assert sm.simplify(contact.penetration_rate - rate) == 0
        # the contact point lies on the plane, under P along the normal
        C = contact.contact_point
        assert sm.simplify(C.pos_from(A).dot(B.z)) == 0
        assert sm.simplify(P.pos_from(C).cross(B.z).magnitude()) == 0
        # C's velocity is that of the plane's material point there
        vC = C.vel(N)
        vC_expected = A.vel(N) + B.ang_vel_in(N).cross(C.pos_from(A))
        assert sm.simplify((vC - vC_expected).to_matrix(N)) == sm.zeros(3, 1)

    def test_fixed_plane_takes_no_load_moving_plane_takes_reaction(self,
                                                                   seed):
        loads = _contact(seed, friction_coefficient=seed['mu']).to_loads()
        assert len(loads) == 1 and loads[0].point is seed['P']
        contact = _contact(seed, friction_coefficient=seed['mu'],
                           plane_frame=seed['N'])
        loads = contact.to_loads()
        assert len(loads) == 2
        assert loads[1].point is contact.contact_point
        assert resultant(loads) == 0

    def test_action_and_reaction_have_zero_moment_with_sphere_frame(self):
        N = ReferenceFrame('N')
        q, z, x = dynamicsymbols('q z x')
        w, uz, ux, wb = dynamicsymbols('w u_z u_x w_b')
        B = N.orientnew('B', 'Axis', (q, N.y))      # the ball
        B.set_ang_vel(N, w * N.y)
        G = N.orientnew('G', 'Axis', (x, N.z))      # a turntable
        G.set_ang_vel(N, wb * N.z)
        O = Point('O')
        O.set_vel(N, 0)
        P = O.locatenew('P', z * N.z + 3 * N.x)
        P.set_vel(N, uz * N.z + ux * N.x)
        mu = sm.Symbol('mu', positive=True)
        contact = HuntCrossleyContact(
            P, O, G.z, N, stiffness=1, damping=1, radius=1,
            friction_coefficient=mu, sphere_frame=B, plane_frame=G,
            friction_regularization=sm.Rational(1, 10))
        loads = contact.to_loads()
        assert [type(load) for load in loads] == [Force, Torque, Force]
        assert resultant(loads) == 0
        vals = {z: 0.5, ux: 1.0, uz: -1.0, w: 2.0, wb: 3.0, q: 1.0,
                x: 0.3, mu: 1.0}
        M = _lambdify(list(vals), moment(loads, O).to_matrix(N))
        reaction = _lambdify(list(vals), loads[2].vector.to_matrix(N))
        assert np.linalg.norm(M(*vals.values())) < 1e-14
        assert np.linalg.norm(reaction(*vals.values())) > 0.1
        # slip is at C: v_P + w x r_CP - (v of the turntable point at C)
        vals = {z: 0.5, ux: 1.0, uz: -1.0, w: 2.0, wb: 3.0, x: 0.0}
        slip = _lambdify(list(vals), contact.slip_velocity.to_matrix(N))
        # r_C/P = -z n_z; w n_y x (-z n_z) = -w z n_x; turntable at
        # (3, 0, 0): wb n_z x 3 n_x = 3 wb n_y
        np.testing.assert_allclose(np.ravel(slip(*vals.values())),
                                   [1 - 2 * 0.5, -9, 0], atol=1e-14)

    def test_between_spheres(self):
        N = ReferenceFrame('N')
        x1, y1, x2 = dynamicsymbols('x1 y1 x2')
        u1, v1, u2 = dynamicsymbols('u1 v1 u2')
        O = Point('O')
        O.set_vel(N, 0)
        P = O.locatenew('P', x1 * N.x + y1 * N.y)
        P.set_vel(N, u1 * N.x + v1 * N.y)
        Q = O.locatenew('Q', x2 * N.x)
        Q.set_vel(N, u2 * N.x)
        R1, R2 = sm.Rational(1, 2), sm.Rational(3, 2)
        contact = HuntCrossleyContact.between_spheres(
            P, Q, N, radius=R1, other_radius=R2, stiffness=10, damping=2)
        dist = sm.sqrt((x1 - x2)**2 + y1**2)
        gap = dist - R1 - R2
        vals = {x1: sm.Rational(17, 10), y1: sm.Rational(1, 5), x2: 0}
        assert sm.simplify((contact.penetration
                            - (sm.Abs(gap) - gap) / 2).subs(vals)) == 0
        kin = {x1.diff(t): u1, y1.diff(t): v1, x2.diff(t): u2}
        rate = -gap.diff(t).subs(kin)
        assert sm.simplify(contact.penetration_rate - rate) == 0
        # contact point on the surface of the other sphere
        C = contact.contact_point
        r = C.pos_from(Q)
        assert sm.simplify(r.dot(r).subs(vals)) == R2**2
        loads = contact.to_loads()
        assert len(loads) == 2 and resultant(loads) == 0
        # separated: no force at all
        far = {x1: 3, y1: 0, x2: 0}
        assert all(load.vector.subs(far) == 0 for load in loads)
        # Hertz stiffness for two spheres uses 1/R* = 1/R1 + 1/R2
        k = hertz_stiffness(R1, 200, sm.Rational(3, 10), other_radius=R2)
        expected = (sm.Rational(4, 3) * 200 / (2 * (1 - sm.Rational(9, 100)))
                    * sm.sqrt(R1 * R2 / (R1 + R2)))
        assert sm.simplify(k - expected) == 0


# -- damping models ----------------------------------------------------------

class TestDampingModels:

    # chi at e = 1/2 from the table in REFERENCES.md, by hand
    TABLE = {'hunt-crossley': sm.Rational(3, 4),
             'herbert-mcwhannell': sm.Rational(1, 1),
             'lee-wang': sm.Rational(3, 8),
             'lankarani-nikravesh': sm.Rational(9, 16),
             'gonthier': sm.Rational(3, 2),
             'zhiying-qishao': sm.Rational(9, 16) * sm.E,
             'flores': sm.Rational(8, 5),
             'hu-guo': sm.Rational(3, 2)}

    def test_table_covers_all_models(self):
        assert set(self.TABLE) == set(DAMPING_MODELS)

    @pytest.mark.parametrize('model', DAMPING_MODELS)
    def test_factor_at_one_half(self, model):
        assert hysteresis_factor(sm.Rational(1, 2), model) == \
            self.TABLE[model]

    @pytest.mark.parametrize('model', DAMPING_MODELS)
    def test_elastic_impact_needs_no_damping(self, model):
        k, v0 = sm.symbols('k v0', positive=True)
        assert damping_from_restitution(k, 1, v0, model) == 0

    def test_damping_is_chi_k_over_v0(self):
        k, e, v0 = sm.symbols('k e v0', positive=True)
        c = damping_from_restitution(k, e, v0, 'hu-guo')
        assert sm.simplify(c - 3 * (1 - e) / (2 * e) * k / v0) == 0

    def test_from_restitution(self, seed):
        contact = HuntCrossleyContact.from_restitution(
            seed['P'], seed['O'], seed['N'].z, seed['N'], stiffness=10**6,
            restitution=sm.Rational(4, 5), impact_speed=2,
            model='lankarani-nikravesh', radius=1)
        assert contact.damping == sm.Rational(3, 4) * sm.Rational(9, 25) \
            * 10**6 / 2
        assert contact.radius == 1
        with pytest.raises(TypeError, match='damping'):
            HuntCrossleyContact.from_restitution(
                seed['P'], seed['O'], seed['N'].z, seed['N'], stiffness=1,
                restitution=0.5, impact_speed=1, damping=3)

    @pytest.mark.parametrize('chi', [0.0, 0.1, 0.5, 1.0, 1.5, 3.0, 10.0])
    def test_effective_restitution_solves_exact_relation(self, chi):
        e = effective_restitution(chi)
        assert 0 <= e <= 1
        assert math.log((1 + chi) / (1 - chi * e)) == pytest.approx(
            chi * (1 + e), abs=1e-12)

    def test_lowest_restitution_of_near_elastic_models(self):
        # REFERENCES.md: about 0.49 (Hunt-Crossley), 0.66 (Lankarani-N.)
        assert effective_restitution(1.5) == pytest.approx(0.49, abs=0.005)
        assert effective_restitution(0.75) == pytest.approx(0.66, abs=0.005)

    @pytest.mark.parametrize('model', ['gonthier', 'flores', 'hu-guo'])
    def test_full_range_models_reach_low_restitution(self, model):
        for e in (0.1, 0.3, 0.6, 0.9):
            chi = float(hysteresis_factor(e, model))
            assert abs(effective_restitution(chi) - e) < 0.05

    def test_errors(self):
        with pytest.raises(ValueError, match='model'):
            hysteresis_factor(0.5, 'nope')
        with pytest.raises(ValueError, match='restitution'):
            hysteresis_factor(1.5)
        with pytest.raises(ValueError, match='restitution'):
            hysteresis_factor(-0.1)
        with pytest.raises(ValueError, match='positive'):
            hysteresis_factor(0, 'gonthier')
        with pytest.raises(TypeError, match='restitution'):
            hysteresis_factor('half')
        with pytest.raises(ValueError, match='impact_speed'):
            damping_from_restitution(1, 0.5, 0)
        with pytest.raises(ValueError, match='stiffness'):
            damping_from_restitution(-1, 0.5, 1)
        with pytest.raises(ValueError, match='hysteresis_factor'):
            effective_restitution(-1)
        with pytest.raises(ValueError, match='radius'):
            hertz_stiffness(0, 1, 0.3)


def test_hertz_stiffness_of_steel_ball():
    # REFERENCES.md: 1.538e10 N/m^1.5
    k = hertz_stiffness(0.01, 210e9, 0.3)
    assert float(k) == pytest.approx(1.538e10, rel=5e-4)


@pytest.mark.parametrize('nu', [1, -1, 0.6])
def test_hertz_stiffness_rejects_impossible_poisson_ratio(nu):
    # nu = +-1 made E* = 1/0 (zoo); nu > 1/2 is no isotropic material
    with pytest.raises(ValueError, match='poisson_ratio'):
        hertz_stiffness(1, 1, nu)
    with pytest.raises(ValueError, match='other_poisson_ratio'):
        hertz_stiffness(1, 1, 0.3, other_poisson_ratio=nu)


def test_hertz_stiffness_at_incompressible_limit():
    # nu = 1/2, E = R = 1: E* = 1/(2 (1 - 1/4)) = 2/3, k = 4/3 * 2/3 = 8/9
    assert hertz_stiffness(1, 1, sm.Rational(1, 2)) == sm.Rational(8, 9)


# -- construction ------------------------------------------------------------

class TestConstruction:

    def test_repr_omits_defaults(self, seed):
        assert repr(_contact(seed)) == \
            'HuntCrossleyContact(P, O, N.z, N, stiffness=k, damping=c)'
        c = HuntCrossleyContact(seed['P'], seed['O'], seed['N'].z,
                                seed['N'], stiffness=2, exponent=1,
                                radius=3, friction_coefficient=0.5,
                                plane_frame=seed['N'], clamped=False,
                                friction_regularization=0.1,
                                friction_sign_method='atan')
        assert repr(c) == (
            "HuntCrossleyContact(P, O, N.z, N, stiffness=2, exponent=1, "
            "radius=3, friction_coefficient=0.500000000000000, "
            "plane_frame=N, clamped=False, "
            "friction_regularization=0.100000000000000, "
            "friction_sign_method='atan')")

    def test_attributes_are_immutable(self, seed):
        contact = _contact(seed)
        for name in ('stiffness', 'damping', 'point', 'normal', 'radius'):
            with pytest.raises(AttributeError, match=name):
                setattr(contact, name, 1)

    @pytest.mark.parametrize('kw, exc, match', [
        (dict(stiffness=-1), ValueError, 'stiffness'),
        (dict(stiffness='k'), TypeError, 'stiffness'),
        (dict(damping=-1), ValueError, 'damping'),
        (dict(exponent=0), ValueError, 'exponent'),
        (dict(radius=-1), ValueError, 'radius'),
        (dict(friction_coefficient=-0.1), ValueError,
         'friction_coefficient'),
        (dict(friction_regularization=-1), ValueError,
         'friction_regularization'),
        (dict(friction_sign_method='sigmoid'), ValueError,
         'friction_sign_method'),
        (dict(clamped=1), TypeError, 'clamped'),
        (dict(plane_frame=3), TypeError, 'plane_frame'),
        (dict(sphere_frame='B'), TypeError, 'sphere_frame'),
    ])
    def test_bad_parameters(self, seed, kw, exc, match):
        options = dict(stiffness=1)
        options.update(kw)
        with pytest.raises(exc, match=match):
            HuntCrossleyContact(seed['P'], seed['O'], seed['N'].z,
                                seed['N'], **options)

    def test_bad_geometry(self, seed):
        N, P, O = seed['N'], seed['P'], seed['O']
        with pytest.raises(TypeError, match='point'):
            HuntCrossleyContact(N, O, N.z, N, stiffness=1)
        with pytest.raises(TypeError, match='normal'):
            HuntCrossleyContact(P, O, 1, N, stiffness=1)
        with pytest.raises(ValueError, match='unit'):
            HuntCrossleyContact(P, O, 2 * N.z, N, stiffness=1)
        q = dynamicsymbols('q')
        B = N.orientnew('B', 'Axis', (q, N.x))
        with pytest.raises(ValueError, match='fixed in'):
            HuntCrossleyContact(P, O, B.z, N, stiffness=1)


@pytest.mark.parametrize('model, lowest_valid, floor', [
    ('hunt-crossley', 0.75, 0.488), ('herbert-mcwhannell', 0.61, 0.488),
    ('lee-wang', 0.91, 0.663), ('lankarani-nikravesh', 0.80, 0.663),
    ('zhiying-qishao', 0.24, 0.179), ('gonthier', 0.01, 0.0),
    ('flores', 0.01, 0.0), ('hu-guo', 0.01, 0.0)])
def test_documented_validity_ranges(model, lowest_valid, floor):
    """The ranges listed in hysteresis_factor's docstring and the damping
    models tutorial: |e_eff - e| < 0.05 exactly on [lowest_valid, 1]."""
    grid = np.round(np.arange(0.01, 1.0001, 0.01), 2)
    error = np.array([effective_restitution(float(hysteresis_factor(e,
                                                                   model)))
                      - e for e in grid])
    valid = grid[np.abs(error) < 0.05]
    assert valid.min() == pytest.approx(lowest_valid)
    assert valid.size == grid.size - round(lowest_valid * 100) + 1
    e0 = 0 if floor else 1e-12
    assert effective_restitution(float(hysteresis_factor(e0, model))) == \
        pytest.approx(floor, abs=5e-4)


def test_stribeck_friction_magnitude(seed):
    s = seed
    mus, vs = sm.Rational(6, 10), sm.Rational(1, 10)
    contact = _contact(s, friction_coefficient=s['mu'],
                       static_coefficient=mus, stribeck_speed=vs)
    vals = {s['z']: -0.01, s['uz']: 0, s['ux']: 0.06, s['uy']: 0.08,
            s['k']: 1e5, s['c']: 0, s['mu']: 0.4}
    f = 1e5 * 0.01**1.5
    expected = 0.4 * f + (0.6 - 0.4) * f * math.exp(-(0.1 / 0.1)**2)
    F = contact.friction_force.subs(vals)
    assert float(F.magnitude()) == pytest.approx(expected, rel=1e-12)
    assert float(F.dot(0.06 * s['N'].x + 0.08 * s['N'].y)) < 0
    assert "static_coefficient=3/5, stribeck_speed=1/10" in repr(contact)
    with pytest.raises(ValueError, match='go together'):
        _contact(s, static_coefficient=mus)
    # finite at zero slip
    f0 = _lambdify((s['z'], s['ux'], s['uy']),
                   list(contact.force.subs({s['k']: 1e5, s['c']: 0,
                                            s['mu']: 0.4, s['uz']: 0})
                        .to_matrix(s['N'])))
    with np.errstate(all='raise'):
        assert np.allclose(np.array(f0(-0.01, 0.0, 0.0), float),
                           [0, 0, f])


@pytest.mark.parametrize('options', [
    dict(friction_regularization=0.01),
    dict(friction_regularization=0.01, friction_sign_method='atan',
         static_coefficient=0.6, stribeck_speed=0.05),
    dict()])
def test_friction_force_and_jacobian_finite_at_zero_slip(seed, options):
    """Force and Jacobian w.r.t. (x, y, z, u_x, u_y, u_z) lambdify (NumPy)
    and are finite, without warnings, at exactly zero slip while penetrating
    and at a sliding state, where the Jacobian matches central finite
    differences (step 1e-7, abs. tolerance 1e-4 on entries up to ~1e5)."""
    s = seed
    contact = _contact(s, friction_coefficient=0.4, **options)
    states = [s['x'], s['y'], s['z'], s['ux'], s['uy'], s['uz']]
    # plain symbols: SymPy 1.14 leaves d Abs(z(t))/d z(t) (penetration and
    # clamp) as an unevaluated Derivative(z(t), z(t))
    variables = sm.symbols('x y z u_x u_y u_z', real=True)
    force = contact.to_loads()[0].vector.to_matrix(s['N']).xreplace(
        dict(zip(states, variables))).subs({s['k']: 1e4, s['c']: 10.0})
    J_sym = force.jacobian(variables)
    assert not J_sym.has(sm.DiracDelta, sm.Derivative)
    f = _lambdify([variables], force)
    jac = _lambdify([variables], J_sym)
    h = 1e-7
    for state in ([0.1, 0.2, -0.01, 0.0, 0.0, -0.3],
                  [0.1, 0.2, -0.01, 0.2, -0.1, -0.3]):
        x0 = np.array(state)
        with np.errstate(all='raise'):
            J = np.asarray(jac(x0), dtype=float)
            fd = np.column_stack([
                (np.asarray(f(x0 + h * e), dtype=float)
                 - np.asarray(f(x0 - h * e), dtype=float)).ravel() / (2 * h)
                for e in np.eye(6)])
        assert np.all(np.isfinite(J))
        if not options and state[3] == 0:
            # exact Coulomb: no derivative w.r.t. the slip at rest
            fd[:2, 3:5] = J[:2, 3:5] = 0
        np.testing.assert_allclose(J, fd, rtol=0, atol=1e-4)


# -- non-finite parameters, float unit normals, moving plane points -----------

@pytest.mark.parametrize('bad', [math.nan, math.inf, -math.inf, sm.oo,
                                 sm.zoo, sm.nan])
def test_hertz_stiffness_rejects_nan_and_infinity(bad):
    # poisson_ratio = inf passed the range check and gave k == 0
    with pytest.raises(ValueError, match='poisson_ratio must be finite'):
        hertz_stiffness(0.1, 2e11, poisson_ratio=bad)
    with pytest.raises(ValueError, match='youngs_modulus must be finite'):
        hertz_stiffness(0.1, bad, 0.3)
    with pytest.raises(ValueError, match='radius must be finite'):
        hertz_stiffness(bad, 2e11, 0.3)


@pytest.mark.parametrize('name', ['stiffness', 'damping', 'exponent',
                                  'radius', 'friction_coefficient'])
def test_contact_rejects_nan_and_infinite_parameters(seed, name):
    for bad in (math.nan, math.inf):
        options = dict(stiffness=1)
        options[name] = bad
        with pytest.raises(ValueError, match=f'{name} must be finite'):
            HuntCrossleyContact(seed['P'], seed['O'], seed['N'].z,
                                seed['N'], **options)


def test_float_unit_normal_is_accepted(seed):
    # 1/sqrt(3) in floats squares to 1 + 2.2e-16: a unit vector to rounding
    N = seed['N']
    c = 1 / math.sqrt(3)
    normal = c * N.x + c * N.y + c * N.z
    contact = HuntCrossleyContact(seed['P'], seed['O'], normal, N,
                                  stiffness=1)
    assert contact.normal == normal
    # the height above the plane is x + y + z over sqrt(3)
    h = contact._gap.subs({seed['x']: 1, seed['y']: 2, seed['z']: 3})
    assert float(h) == pytest.approx(6 / math.sqrt(3), rel=1e-14)
    # exact and float non-unit normals are still refused
    with pytest.raises(ValueError, match='unit'):
        HuntCrossleyContact(seed['P'], seed['O'], 0.6 * N.x + 0.7 * N.y, N,
                            stiffness=1)
    with pytest.raises(ValueError, match='unit'):
        HuntCrossleyContact(seed['P'], seed['O'], (N.x + N.y) / 2, N,
                            stiffness=1)
    # an exact symbolic unit normal (fixed in N) is exact
    a = sm.Symbol('a', real=True)
    contact = HuntCrossleyContact(seed['P'], seed['O'],
                                  sm.cos(a) * N.x + sm.sin(a) * N.z, N,
                                  stiffness=1)
    assert contact.normal == sm.cos(a) * N.x + sm.sin(a) * N.z


def test_penetration_rate_follows_a_moving_plane_point():
    # The plane (normal N.z, no plane_frame) is carried by a prescribed
    # vertical motion s(t) of its point O; the penetration (s - z)^+ follows
    # it, so its rate while in contact is s' - u, not -u.
    N = ReferenceFrame('N')
    z, u, s = dynamicsymbols('z u s', real=True)
    Q = Point('Q')
    Q.set_vel(N, 0)
    O = Q.locatenew('O', s * N.z)
    P = Q.locatenew('P', z * N.z)
    P.set_vel(N, u * N.z)
    contact = HuntCrossleyContact(P, O, N.z, N, stiffness=1, damping=1)
    d = contact.penetration
    assert sm.simplify(contact.penetration_rate - (s.diff(t) - u)) == 0
    # d' of the penetration (inside contact, s > z) is the same rate
    ddt = d.diff(t).subs(z.diff(t), u)
    at = {s: 2, z: 1, s.diff(t): 0.5, u: -0.25}
    assert float(ddt.subs(at)) == pytest.approx(
        float(contact.penetration_rate.subs(at)), rel=1e-15)
    assert float(contact.penetration_rate.subs(at)) == 0.75
    # nothing was stored on O (SymPy's Point.vel would store its result)
    assert N not in O._vel_dict
    assert O.vel(N) == s.diff(t) * N.z


def test_plane_point_located_from_the_sphere_center_stays_fixed(seed):
    # O with no velocity of its own, P located from it: SymPy would derive
    # v_O = (u_z - z')N.z through P; the plane is fixed, the rate is -u_z.
    N = ReferenceFrame('N')
    z, uz = dynamicsymbols('z u_z', real=True)
    O = Point('O')
    P = O.locatenew('P', z * N.z)
    P.set_vel(N, uz * N.z)
    contact = HuntCrossleyContact(P, O, N.z, N, stiffness=1)
    assert contact.penetration_rate == -uz


def test_a_normal_in_a_frame_not_oriented_to_frame_is_named():
    """Issue 35: the normal's frame A has no orientation relative to N;
    the message says so (it was SymPy's bare 'No connecting ... path')."""
    N, A = ReferenceFrame('N'), ReferenceFrame('A')
    O = Point('O')
    O.set_vel(N, 0)
    z = dynamicsymbols('z')
    P = O.locatenew('P', z * N.z)
    P.set_vel(N, z.diff() * N.z)
    for plane_frame in (None, A):
        with pytest.raises(ValueError, match=r'normal A.z \(in the frame '
                           r'A\) cannot be related to the frame N'):
            HuntCrossleyContact(P, O, A.z, N, stiffness=1e4,
                                plane_frame=plane_frame)


def test_a_plane_frame_not_oriented_to_frame_is_named():
    """The normal N.z is in frame, but the plane's frame C has no
    orientation relative to N, so the normal's rate in C cannot be taken:
    both the contact and the impact say which normal and that plane_frame
    cannot be related (the contact gave SymPy's bare 'No connecting
    angular velocity path')."""
    N, C = ReferenceFrame('N'), ReferenceFrame('C')
    O = Point('O')
    O.set_vel(N, 0)
    z = dynamicsymbols('z')
    P = O.locatenew('P', z * N.z)
    P.set_vel(N, z.diff() * N.z)
    message = (r'normal N.z \(in the frame N\) cannot be related to the '
               r'frame N or to plane_frame')
    with pytest.raises(ValueError, match=message):
        HuntCrossleyContact(P, O, N.z, N, stiffness=1e4, plane_frame=C)
    with pytest.raises(ValueError, match=message):
        Impact(P, O, N.z, N, restitution=0.5, plane_frame=C)
