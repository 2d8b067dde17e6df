"""Tests of sympy_loads.gravitation: Newton's law (equal and opposite,
inverse square), the first-order gravitational moment against direct
summation over discretized bodies, seed 003's rod, coincident mass centers,
and KanesMethod models (a two-body orbit, gravity-gradient libration)."""

import warnings

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp
from sympy.physics.mechanics import (Force, KanesMethod, Particle, Point,
                                     ReferenceFrame, RigidBody, Torque,
                                     dynamicsymbols, inertia)
from sympy.physics.mechanics.actuator import ForceActuator
from sympy.physics.mechanics.loads import gravity
from sympy.physics.mechanics.pathway import LinearPathway
from sympy.physics.vector import Vector

from sympy_loads import GravitationalAttraction, resultant

G = sm.Symbol('G')


def simplified(vector, frame):
    return vector.to_matrix(frame).applyfunc(sm.simplify)


@pytest.fixture
def two_particles_3d():
    N = ReferenceFrame('N')
    O = Point('O')
    xa = dynamicsymbols('x_a y_a z_a')
    xb = dynamicsymbols('x_b y_b z_b')
    m_a, m_b = sm.symbols('m_a m_b', positive=True)
    Pa = O.locatenew('Pa', xa[0] * N.x + xa[1] * N.y + xa[2] * N.z)
    Pb = O.locatenew('Pb', xb[0] * N.x + xb[1] * N.y + xb[2] * N.z)
    a, b = Particle('a', Pa, m_a), Particle('b', Pb, m_b)
    return N, a, b, xa, xb


class TestNewtonsLaw:

    def test_forces_are_equal_and_opposite_along_the_line_of_centers(
            self, two_particles_3d):
        N, a, b, _, _ = two_particles_3d
        loads = GravitationalAttraction(a, b).to_loads()
        assert [type(load) for load in loads] == [Force, Force]
        assert loads[0].point is a.masscenter
        assert loads[1].point is b.masscenter
        assert resultant(loads) == Vector(0)
        r = b.masscenter.pos_from(a.masscenter)
        # parallel to r, so their moment about any point cancels too
        assert simplified(loads[0].vector.cross(r), N) == sm.zeros(3, 1)
        # F_A points from A* towards B* (attraction)
        assert sm.simplify(loads[0].vector.dot(r)).is_positive is not False

    def test_magnitude_is_g_ma_mb_over_r_squared(self, two_particles_3d):
        N, a, b, xa, xb = two_particles_3d
        F = GravitationalAttraction(a, b).to_loads()[0].vector
        r2 = sum((xb[i] - xa[i])**2 for i in range(3))
        expected = (G * a.mass * b.mass)**2 / r2**2
        assert sm.simplify(F.dot(F) - expected) == 0
        # and towards b: F.r = G m_a m_b / r
        r = b.masscenter.pos_from(a.masscenter)
        assert sm.simplify(F.dot(r) - G * a.mass * b.mass / sm.sqrt(r2)) == 0

    def test_inverse_square_numerically(self):
        N = ReferenceFrame('N')
        O = Point('O')
        d = sm.Symbol('d', positive=True)
        sun, moon = Particle('sun', O, 7), Particle(
            'moon', O.locatenew('M', d * (2 * N.x - N.y + 2 * N.z) / 3), 3)
        attraction = GravitationalAttraction(sun, moon,
                                             gravitational_constant=5)
        magnitude = sm.lambdify(d, attraction.to_loads()[1].vector
                                .magnitude())
        for distance in (0.5, 1.0, 2.0, 4.0):
            assert magnitude(distance) == pytest.approx(
                5 * 7 * 3 / distance**2, rel=1e-14)
        assert magnitude(1.0) / magnitude(2.0) == pytest.approx(4, rel=1e-14)

    def test_force_scalar_follows_sympy_pathway_convention(
            self, two_particles_3d):
        N, a, b, _, _ = two_particles_3d
        attraction = GravitationalAttraction(a, b)
        length = attraction.pathway.length
        assert sm.simplify(attraction.force
                           + G * a.mass * b.mass / length**2) == 0
        # SymPy's own ForceActuator with that scalar gives the same loads
        sympy_loads = ForceActuator(attraction.force,
                                    LinearPathway(a.masscenter,
                                                  b.masscenter)).to_loads()
        for ours, theirs in zip(attraction.to_loads(), sympy_loads):
            assert ours.point is theirs.point
            assert simplified(ours.vector - theirs.vector, N) == sm.zeros(3, 1)

    def test_forces_are_minus_gradient_of_potential_energy(
            self, two_particles_3d):
        N, a, b, xa, xb = two_particles_3d
        attraction = GravitationalAttraction(a, b)
        V = attraction.potential_energy
        on_a, on_b = attraction.to_loads()
        for i, axis in enumerate((N.x, N.y, N.z)):
            assert sm.simplify(on_b.vector.dot(axis) + V.diff(xb[i])) == 0
            assert sm.simplify(on_a.vector.dot(axis) + V.diff(xa[i])) == 0

    def test_particles_get_no_torque(self, two_particles_3d):
        _, a, b, _, _ = two_particles_3d
        loads = GravitationalAttraction(a, b, moments=True).to_loads()
        assert len(loads) == 2


def _point_cloud_moment(positions, masses, center, particle, GM):
    """Moment about ``center`` of the exact inverse-square forces exerted by
    a particle (G M = GM) at ``particle`` on point masses (the independent
    reference)."""
    d = particle - positions
    forces = GM * masses[:, None] * d / np.linalg.norm(d, axis=1)[:, None]**3
    return np.cross(positions - center, forces).sum(axis=0)


def _rod_and_particle(L_value, R_value, theta_value, phi_value):
    """Rod B (mass m, length L, along b_x) with mass center at distance R
    from a particle P; returns our moment on the rod as a numpy array."""
    N = ReferenceFrame('N')
    m, L, R, M = sm.symbols('m L R M', positive=True)
    theta, phi = sm.symbols('theta phi', real=True)
    B = N.orientnew('B', 'Axis', (theta, N.z))
    O = Point('O')
    rod = RigidBody('rod', O, B, m,
                    (inertia(B, 0, m * L**2 / 12, m * L**2 / 12), O))
    P = Particle('P', O.locatenew('P', R * (sm.cos(phi) * N.x
                                            + sm.sin(phi) * N.y)), M)
    loads = GravitationalAttraction(rod, P).to_loads()
    torques = [load for load in loads if isinstance(load, Torque)]
    assert len(torques) == 1 and torques[0].frame is B
    values = {m: 2.0, L: L_value, R: R_value, M: 3.0, G: 0.7,
              theta: theta_value, phi: phi_value}
    return np.array([float(c.xreplace(values))
                     for c in torques[0].vector.to_matrix(N)])


class TestGravitationalMoment:

    @staticmethod
    def discretized_rod_moment(L, R, theta, phi, n=4000):
        s = (np.arange(n) + 0.5) / n * L - L / 2
        axis = np.array([np.cos(theta), np.sin(theta), 0.0])
        positions = s[:, None] * axis
        masses = np.full(n, 2.0 / n)
        particle = R * np.array([np.cos(phi), np.sin(phi), 0.0])
        return _point_cloud_moment(positions, masses, np.zeros(3), particle,
                                   0.7 * 3.0)

    @pytest.mark.parametrize('theta, phi', [(0.3, 0.0), (1.2, 2.5),
                                            (-0.7, -1.0)])
    def test_rod_moment_matches_direct_summation_for_distant_particle(
            self, theta, phi):
        L, R = 1.0, 100.0
        ours = _rod_and_particle(L, R, theta, phi)
        reference = self.discretized_rod_moment(L, R, theta, phi)
        assert abs(ours[2]) > 0
        # first-order model: relative error O((L/R)^2) = O(1e-4)
        np.testing.assert_allclose(ours, reference, rtol=1e-3,
                                   atol=1e-12 * abs(reference[2]))

    def test_rod_moment_error_shrinks_as_size_over_distance_squared(self):
        theta, phi = 0.9, 0.2
        errors = []
        for R in (10.0, 20.0, 40.0):
            ours = _rod_and_particle(1.0, R, theta, phi)[2]
            reference = self.discretized_rod_moment(1.0, R, theta, phi)[2]
            errors.append(abs(ours / reference - 1))
        assert errors[0] / errors[1] == pytest.approx(4, rel=0.05)
        assert errors[1] / errors[2] == pytest.approx(4, rel=0.05)

    def test_rigid_body_moment_matches_direct_summation_in_3d(self):
        rng = np.random.default_rng(7)
        # centrally symmetric point cloud (pairs +s, -s), so the octupole
        # term vanishes and the first-order moment is accurate to (size/R)^2
        half = rng.uniform(-1, 1, size=(200, 3)) * [1.0, 0.6, 0.3]
        pair_masses = rng.uniform(0.5, 1.5, size=200)
        s_body = np.vstack([half, -half])
        masses = np.concatenate([pair_masses, pair_masses])
        inertia_body = (np.eye(3) * (masses * (s_body**2).sum(1)).sum()
                        - (masses[:, None, None] * s_body[:, :, None]
                           * s_body[:, None, :]).sum(0))
        N = ReferenceFrame('N')
        angles = rng.uniform(-np.pi, np.pi, size=3)
        B = N.orientnew('B', 'Body', [sm.Float(a) for a in angles], 'XYZ')
        dyadic = sum((sm.Float(inertia_body[i, j]) * (bi | bj)
                      for i, bi in enumerate((B.x, B.y, B.z))
                      for j, bj in enumerate((B.x, B.y, B.z))),
                     start=sm.S.Zero * (B.x | B.x))
        O = Point('O')
        center = np.array([1.0, -2.0, 0.5])
        C = O.locatenew('C', sum(sm.Float(c) * e for c, e in
                                 zip(center, (N.x, N.y, N.z))))
        body = RigidBody('body', C, B, sm.Float(masses.sum()), (dyadic, C))
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        particle_position = center + 200.0 * direction
        P = Particle('P', O.locatenew('P', sum(
            sm.Float(c) * e for c, e in zip(particle_position,
                                           (N.x, N.y, N.z)))), 4.0)
        loads = GravitationalAttraction(P, body,
                                        gravitational_constant=0.5).to_loads()
        torque = [load for load in loads if isinstance(load, Torque)]
        assert len(torque) == 1 and torque[0].frame is B
        ours = np.array(torque[0].vector.to_matrix(N).evalf(),
                        dtype=float)[:, 0]
        dcm = np.array(N.dcm(B).evalf(), dtype=float)  # N components of b_i
        positions = center + s_body @ dcm.T
        reference = _point_cloud_moment(positions, masses, center,
                                        particle_position, 0.5 * 4.0)
        np.testing.assert_allclose(ours, reference,
                                   rtol=0, atol=1e-3 * np.abs(reference).max())

    def test_seed_003_rod_attracted_by_particle(self):
        # Kane & Levinson sec. 4.1: uniform rod B (mass m, length L) in the
        # plane, particle P (mass m) fixed in N; q1 = |P B*|, q2 = angle of
        # a1 (from P to B*) from n_x, q3 = angle of the rod from n_x.
        q1 = dynamicsymbols('q1', positive=True)
        q2, q3 = dynamicsymbols('q2:4')
        m, L = sm.symbols('m L', positive=True)
        N = ReferenceFrame('N')
        A = N.orientnew('A', 'Axis', (q2, N.z))
        B = N.orientnew('B', 'Axis', (q3, N.z))
        O = Point('O')
        Bstar = O.locatenew('B*', q1 * A.x)
        rod = RigidBody('B', Bstar, B, m,
                        (inertia(B, 0, m * L**2 / 12, m * L**2 / 12), Bstar))
        P = Particle('P', O, m)
        on_p, on_rod, torque = GravitationalAttraction(P, rod).to_loads()
        # R = -G m^2 / q1^2 a1 (Eq. 2.3.6), T = 3 G m / q1^3 a1 x I . a1
        assert on_rod.point is Bstar
        assert simplified(on_rod.vector + G * m**2 / q1**2 * A.x,
                          N) == sm.zeros(3, 1)
        assert simplified(on_p.vector + on_rod.vector, N) == sm.zeros(3, 1)
        T = -G * m**2 * L**2 / (4 * q1**3) * sm.sin(q3 - q2) * sm.cos(q3 - q2)
        assert torque.frame is B
        assert simplified(torque.vector - T * N.z, N) == sm.zeros(3, 1)

    def test_spherical_inertia_gets_no_moment(self):
        N = ReferenceFrame('N')
        O = Point('O')
        k, m, q = sm.symbols('k m q', positive=True)
        ball = RigidBody('ball', O, N, m, (inertia(N, k, k, k), O))
        moon = Particle('moon', O.locatenew('M', q * (N.x + 2 * N.y)), m)
        torque = GravitationalAttraction(ball, moon).to_loads()[2]
        assert simplified(torque.vector, N) == sm.zeros(3, 1)

    def test_moments_false_gives_forces_only(self):
        N = ReferenceFrame('N')
        O = Point('O')
        m, L = sm.symbols('m L', positive=True)
        rod = RigidBody('rod', O, N, m, (inertia(N, 0, 1, 1), O))
        P = Particle('P', O.locatenew('P', N.x + N.y), m)
        loads = GravitationalAttraction(rod, P, moments=False).to_loads()
        assert [type(load) for load in loads] == [Force, Force]


class TestCoincidentMassCenters:

    def test_identically_coincident_is_an_error(self):
        O = Point('O')
        with pytest.raises(ValueError, match='coincide'):
            GravitationalAttraction(Particle('a', O, 1), Particle('b', O, 2))
        N = ReferenceFrame('N')
        q = dynamicsymbols('q')
        Q = O.locatenew('Q', q * N.x - q * N.x)
        with pytest.raises(ValueError, match='coincide'):
            GravitationalAttraction(Particle('a', O, 1), Particle('b', Q, 2))

    def test_softening_is_finite_and_zero_at_coincidence(self):
        N = ReferenceFrame('N')
        O = Point('O')
        q = dynamicsymbols('q')
        m, L = sm.symbols('m L', positive=True)
        B = N.orientnew('B', 'Axis', (sm.Rational(1, 3), N.z))
        rod = RigidBody('rod', O.locatenew('C', q * (N.x + N.y)), B, m,
                        (inertia(B, 0, m * L**2 / 12, m * L**2 / 12),
                         O.locatenew('C', q * (N.x + N.y))))
        P = Particle('P', O, 2 * m)
        attraction = GravitationalAttraction(P, rod, softening=0.1)
        vectors = sm.Matrix.hstack(*[load.vector.to_matrix(N)
                                     for load in attraction.to_loads()])
        x = sm.Symbol('x')
        f = sm.lambdify([x, G, m, L], vectors.xreplace({q: x}), cse=True)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            at_zero = f(0.0, 1.0, 1.0, 1.0)
        assert vectors.shape == (3, 3)
        assert np.all(at_zero == 0.0)
        # far away the softened law is Newton's to relative (eps/r)^2
        far = f(100.0, 1.0, 1.0, 1.0)
        r = 100.0 * np.sqrt(2)
        assert np.linalg.norm(far[:, 0]) == pytest.approx(2 / r**2,
                                                          rel=1e-6)

    def test_unconnected_points_are_accepted_until_loads_are_needed(self):
        a = Particle('a', Point('A'), 1)
        b = Particle('b', Point('B'), 1)
        attraction = GravitationalAttraction(a, b)
        with pytest.raises(ValueError, match='not known'):
            attraction.to_loads()


class TestConstruction:

    def test_repr_mirrors_constructor(self):
        O = Point('O')
        N = ReferenceFrame('N')
        a = Particle('a', O, 1)
        b = Particle('b', O.locatenew('B', N.x), 1)
        assert repr(GravitationalAttraction(a, b)) == (
            'GravitationalAttraction(a, b)')
        assert repr(GravitationalAttraction(
            a, b, gravitational_constant=4, moments=False,
            softening=2)) == (
            'GravitationalAttraction(a, b, gravitational_constant=4, '
            'moments=False, softening=2)')

    @pytest.mark.parametrize('kwargs, error, match', [
        (dict(gravitational_constant=-1), ValueError,
         'gravitational_constant must be positive'),
        (dict(gravitational_constant='G'), TypeError,
         'gravitational_constant'),
        (dict(moments=1), TypeError, 'moments must be a bool'),
        (dict(softening=-0.1), ValueError, 'softening must be nonnegative'),
    ])
    def test_invalid_parameters(self, kwargs, error, match):
        O = Point('O')
        a = Particle('a', O, 1)
        b = Particle('b', O.locatenew('B', ReferenceFrame('N').x), 1)
        with pytest.raises(error, match=match):
            GravitationalAttraction(a, b, **kwargs)

    def test_invalid_bodies(self):
        O = Point('O')
        a = Particle('a', O, 1)
        with pytest.raises(TypeError, match='body_b must be a Particle or '
                                            'RigidBody'):
            GravitationalAttraction(a, O)
        with pytest.raises(ValueError, match='two different bodies'):
            GravitationalAttraction(a, a)

    def test_attributes_are_immutable(self):
        O = Point('O')
        a = Particle('a', O, 1)
        b = Particle('b', O.locatenew('B', ReferenceFrame('N').x), 1)
        attraction = GravitationalAttraction(a, b)
        with pytest.raises(AttributeError):
            attraction.body_a = b
        with pytest.raises(AttributeError):
            attraction.force = 3
        with pytest.raises(AttributeError):
            attraction.gravitational_constant = 3


@pytest.fixture(scope='module')
def orbit_model():
    """Two particles free in a plane under their mutual attraction."""
    q = dynamicsymbols('x1 y1 x2 y2')
    u = dynamicsymbols('u1:5')
    N = ReferenceFrame('N')
    O = Point('O')
    P1 = O.locatenew('P1', q[0] * N.x + q[1] * N.y)
    P2 = O.locatenew('P2', q[2] * N.x + q[3] * N.y)
    P1.set_vel(N, u[0] * N.x + u[1] * N.y)
    P2.set_vel(N, u[2] * N.x + u[3] * N.y)
    m1, m2 = sm.symbols('m1 m2', positive=True)
    a, b = Particle('a', P1, m1), Particle('b', P2, m2)
    attraction = GravitationalAttraction(a, b)
    kane = KanesMethod(N, q, u, kd_eqs=[qi.diff() - ui
                                        for qi, ui in zip(q, u)])
    kane.kanes_equations([a, b], attraction.to_loads())
    args = [*q, *u, G, m1, m2]
    rhs = sm.lambdify(args, kane.rhs(), cse=True)
    energy = sm.lambdify(args, a.kinetic_energy(N) + b.kinetic_energy(N)
                         + attraction.potential_energy, cse=True)
    momentum = sm.lambdify(args, (a.angular_momentum(O, N)
                                  + b.angular_momentum(O, N)).dot(N.z),
                           cse=True)
    return rhs, energy, momentum


class TestKanesMethodTwoBodyOrbit:
    """Two particles free in a plane under their mutual attraction."""

    G_value, m1, m2 = 1.0, 3.0, 1.0

    def initial_state(self, speed_factor):
        """Center-of-mass frame; b starts a distance 1 from a."""
        mu = self.G_value * (self.m1 + self.m2)
        v_rel = speed_factor * np.sqrt(mu)  # circular for factor 1
        M = self.m1 + self.m2
        x1, x2 = -self.m2 / M, self.m1 / M
        return np.array([x1, 0, x2, 0,
                         0, -self.m2 / M * v_rel, 0, self.m1 / M * v_rel])

    def integrate(self, rhs, y0, t_end, **kwargs):
        p = (self.G_value, self.m1, self.m2)
        return solve_ivp(lambda _t, y: rhs(*y, *p)[:, 0], (0, t_end), y0,
                         rtol=1e-11, atol=1e-12, method='DOP853', **kwargs)

    def kepler_period(self, y0):
        mu = self.G_value * (self.m1 + self.m2)
        r = np.hypot(y0[2] - y0[0], y0[3] - y0[1])
        v2 = (y0[6] - y0[4])**2 + (y0[7] - y0[5])**2
        a = -mu / (2 * (v2 / 2 - mu / r))
        return 2 * np.pi * np.sqrt(a**3 / mu)

    def test_elliptic_orbit_conserves_energy_and_angular_momentum(
            self, orbit_model):
        rhs, energy, momentum = orbit_model
        y0 = self.initial_state(1.2)  # eccentricity 0.44
        T = self.kepler_period(y0)
        sol = self.integrate(rhs, y0, 3 * T, dense_output=True)
        assert sol.success
        p = (self.G_value, self.m1, self.m2)
        samples = sol.sol(np.linspace(0, 3 * T, 301))
        E = energy(*samples, *p)
        H = momentum(*samples, *p)
        assert E[0] < 0  # bound orbit
        assert np.max(np.abs(E / E[0] - 1)) < 1e-8
        assert np.max(np.abs(H / H[0] - 1)) < 1e-8

    def test_orbit_closes_after_keplers_period(self, orbit_model):
        rhs, _, _ = orbit_model
        y0 = self.initial_state(1.2)
        T = self.kepler_period(y0)
        sol = self.integrate(rhs, y0, T)
        # relative position returns after T = 2 pi sqrt(a^3 / (G M))
        start = y0[2:4] - y0[0:2]
        end = sol.y[2:4, -1] - sol.y[0:2, -1]
        np.testing.assert_allclose(end, start, atol=1e-7)
        # and not before: at T/2 the bodies are at apoapsis, farther apart
        half = self.integrate(rhs, y0, T / 2)
        rel = half.y[2:4, -1] - half.y[0:2, -1]
        e = 1.2**2 - 1  # eccentricity for this start at periapsis
        assert np.linalg.norm(rel) == pytest.approx((1 + e) / (1 - e),
                                                    rel=1e-7)


class TestKanesMethodLibration:

    def test_rod_pitch_equation_is_gravity_gradient_libration(self):
        # Rod spinning about n_z at its mass center, held at distance R from
        # a fixed particle; SymPy's uniform gravity() along n_z acts too
        # (it contributes nothing to this motion). Expected EOM:
        # theta'' = -(3 G M / R^3) sin(theta) cos(theta).
        theta = dynamicsymbols('theta')
        omega = dynamicsymbols('omega')
        m, L, R, M, g = sm.symbols('m L R M g', positive=True)
        N = ReferenceFrame('N')
        B = N.orientnew('B', 'Axis', (theta, N.z))
        B.set_ang_vel(N, omega * N.z)
        O = Point('O')
        O.set_vel(N, 0)
        C = O.locatenew('C', R * N.x)
        C.set_vel(N, 0)
        rod = RigidBody('rod', C, B, m,
                        (inertia(B, 0, m * L**2 / 12, m * L**2 / 12), C))
        P = Particle('P', O, M)
        loads = (GravitationalAttraction(rod, P).to_loads()
                 + gravity(-g * N.z, rod))
        kane = KanesMethod(N, [theta], [omega],
                           kd_eqs=[theta.diff() - omega])
        kane.kanes_equations([rod], loads)
        rhs = kane.rhs()
        expected = -3 * G * M / R**3 * sm.sin(theta) * sm.cos(theta)
        assert sm.simplify(rhs[1] - expected) == 0


def test_system_add_actuators_gives_newtons_radial_equation():
    """GravitationalAttraction is a SymPy actuator: System takes it
    directly. A particle on a line through a fixed attracting particle:
    r'' = -G M / r^2."""
    r = dynamicsymbols('r', positive=True)
    v = dynamicsymbols('v')
    m, M = sm.symbols('m M', positive=True)
    N = ReferenceFrame('N')
    O = Point('O')
    O.set_vel(N, 0)
    system = me.System(N, O)
    Q = O.locatenew('Q', r * N.x)
    Q.set_vel(N, v * N.x)
    sun, body = Particle('sun', O, M), Particle('body', Q, m)
    system.add_coordinates(r)
    system.add_speeds(v)
    system.add_kdes(r.diff() - v)
    system.add_bodies(body)
    system.add_actuators(GravitationalAttraction(sun, body))
    system.form_eoms()
    assert sm.simplify(system.rhs()[1] + G * M / r**2) == 0


def test_unconnected_mass_centers_give_a_public_value_error():
    # used to be the private _UnknownPosition subclass
    a = Particle('a', Point('A'), 1)
    b = Particle('b', Point('B'), 1)
    attraction = GravitationalAttraction(a, b)
    for compute in (attraction.to_loads, lambda: attraction.force,
                    lambda: attraction.potential_energy):
        with pytest.raises(ValueError) as info:
            compute()
        assert type(info.value) is ValueError
        assert 'position of B (mass center of b) relative to A' in str(
            info.value)


@pytest.mark.parametrize('name', ['gravitational_constant', 'softening'])
def test_nan_and_infinite_constants_are_rejected(name):
    O = Point('O')
    N = ReferenceFrame('N')
    a = Particle('a', O, 1)
    b = Particle('b', O.locatenew('B', N.x), 1)
    for bad in (float('nan'), float('inf')):
        with pytest.raises(ValueError, match=f'{name} must be finite'):
            GravitationalAttraction(a, b, **{name: bad})
