"""Private helpers shared by :mod:`sympy_loads.generalized_forces` and
``sympy_loads._inertia_forces``: argument checks, kinematic substitutions,
partial velocities (``_Partials``, built by ``_setup``) and the projection of
loads onto them (``_project``).

Nothing here is public; the functions that use these helpers are documented
in, and imported from, :mod:`sympy_loads.generalized_forces`.
"""

from collections.abc import Iterable

import sympy as sm
from sympy.physics.mechanics import Point, ReferenceFrame, dynamicsymbols
from sympy.physics.vector import Vector

from ._utils import _check_type


def _speed_list(name, speeds, allow_empty=False):
    """Return ``speeds`` as a list of distinct scalars (TypeError/ValueError
    naming ``name`` otherwise)."""
    if speeds is None:
        speeds = []
    if isinstance(speeds, (sm.Basic, Vector, str)) and not isinstance(
            speeds, sm.MatrixBase):
        raise TypeError(f'{name} must be an iterable of generalized speeds '
                        f'(e.g. a list of dynamicsymbols), not {speeds!r}.')
    if not isinstance(speeds, Iterable):
        raise TypeError(f'{name} must be an iterable of generalized speeds, '
                        f'not {type(speeds).__name__} {speeds!r}.')
    result = []
    for speed in speeds:
        if not isinstance(speed, sm.Expr) or speed.is_number:
            raise TypeError(f'{name}: {speed!r} is not a generalized speed; '
                            f'expected a SymPy symbol or dynamicsymbol.')
        result.append(speed)
    if len(set(result)) != len(result):
        raise ValueError(f'{name} contains repeated speeds: {result}.')
    if not result and not allow_empty:
        raise ValueError(f'{name} must contain at least one speed.')
    return result


def _kinematic_map(kinematic_substitutions):
    """Return the replacement dict {q': f(q, u), q'': d/dt f(q, u)} used on
    velocities (q') and accelerations (q' and q'')."""
    if not kinematic_substitutions:
        return {}
    if not isinstance(kinematic_substitutions, dict):
        raise TypeError('kinematic_substitutions must be a dict mapping the '
                        "coordinates' time derivatives to expressions in the "
                        f'speeds, not {type(kinematic_substitutions).__name__}.')
    qdot_map = {}
    for key, value in kinematic_substitutions.items():
        key = sm.sympify(key)
        if not isinstance(key, sm.Derivative):
            raise ValueError(f'kinematic_substitutions: the key {key} is not '
                             f"a time derivative q'(t).")
        qdot_map[key] = sm.sympify(value)
    t = dynamicsymbols._t
    full = dict(qdot_map)
    for key, value in qdot_map.items():
        full[key.diff(t)] = value.diff(t).xreplace(qdot_map)
    return full


def _substitute(vector, replacements):
    if not replacements or vector == 0:
        return vector
    return vector.xreplace(replacements)


def _linear_partials(vector, speeds, what):
    """Return the partial velocities of ``vector`` with respect to
    ``speeds``: its coefficients of the speeds, taken component frame by
    component frame (no re-expression). The speeds are swapped for plain
    symbols first, because differentiating with respect to a symbol is much
    faster than with respect to a function of time."""
    n = len(speeds)
    if vector == 0:
        return [Vector(0)] * n
    dummies = [sm.Dummy(f'u{r}') for r in range(n)]
    to_dummy = dict(zip(speeds, dummies))
    dummy_set = set(dummies)
    columns = [[] for _ in range(n)]
    for measure, component_frame in vector.args:
        if any(d.expr in to_dummy for d in measure.atoms(sm.Derivative)):
            # a speed's time derivative occurs: differentiate directly
            jac = measure.jacobian(speeds)
            nonlinear = jac.has(*speeds)
        else:
            plain = [entry.xreplace(to_dummy) for entry in measure]
            present = [entry.free_symbols & dummy_set for entry in plain]
            jac = sm.Matrix(3, n, lambda i, r: plain[i].diff(dummies[r])
                            if dummies[r] in present[i] else 0)
            nonlinear = any(entry.free_symbols & dummy_set for entry in jac)
        if nonlinear:
            raise ValueError(
                f'{what} is not linear in the speeds {list(speeds)}: '
                f'{vector}. Check kinematic_substitutions.')
        for r in range(n):
            col = jac[:, r]
            if any(col):
                columns[r].append((col, component_frame))
    return [Vector(col) for col in columns]


def _velocity_of(item, frame, replacements):
    """The velocity (Point), angular velocity (ReferenceFrame) or the vector
    itself, with the kinematic substitutions applied, and a description."""
    if isinstance(item, Point):
        try:
            vector = item.vel(frame)
        except ValueError as error:
            raise ValueError(f'the velocity of point {item} in {frame} is '
                             f'not known: {error}') from None
        what = f'the velocity of {item} in {frame}'
    elif isinstance(item, ReferenceFrame):
        vector = item.ang_vel_in(frame)
        what = f'the angular velocity of {item} in {frame}'
    elif isinstance(item, Vector) or item == 0:
        vector = Vector(0) if item == 0 else item
        what = f'the vector {item}'
    else:
        raise TypeError(f'items: {item!r} is not a Point, ReferenceFrame or '
                        f'Vector.')
    return _substitute(vector, replacements), what


class _Partials:
    """Partial velocities with respect to ``speeds`` (independent then
    dependent), computed once per point/frame and reused."""

    def __init__(self, frame, speeds, dependent, constraints, replacements):
        self.frame = frame
        self.independent = speeds
        self.dependent = dependent
        self.speeds = speeds + dependent
        self.replacements = replacements
        self._cache = {}
        self.A = _constraint_matrix(constraints, speeds, dependent,
                                    replacements)

    def of(self, item):
        key = item
        if key not in self._cache:
            vector, what = _velocity_of(item, self.frame, self.replacements)
            self._cache[key] = _linear_partials(vector, self.speeds, what)
        return self._cache[key]

    def reduce(self, column):
        """Holonomic column over all speeds -> column over the independent
        speeds: F~ = F_ind + A^T F_dep."""
        if not self.dependent:
            return column
        p = len(self.independent)
        return column[:p, :] + self.A.T * column[p:, :]


def _constraint_matrix(constraints, independent, dependent, replacements):
    """Return A in u_dep = A u_ind + B from velocity constraints that are
    linear in the speeds (KanesMethod's ``_Ars``)."""
    if not dependent and not constraints:
        return None
    if constraints is None or isinstance(constraints, (sm.Basic, str)) and \
            not isinstance(constraints, sm.MatrixBase):
        raise TypeError('velocity_constraints must be an iterable of '
                        'expressions that vanish, one per dependent speed.')
    constraints = sm.Matrix(list(constraints))
    if len(constraints) != len(dependent):
        raise ValueError(
            f'velocity_constraints has {len(constraints)} entries but there '
            f'are {len(dependent)} dependent_speeds; they must be equal.')
    if replacements:
        constraints = constraints.xreplace(replacements)
    speeds = list(independent) + list(dependent)
    jac = constraints.jacobian(speeds)
    if jac.has(*speeds):
        raise ValueError('velocity_constraints must be linear in the speeds.')
    p = len(independent)
    B_ind, B_dep = jac[:, :p], jac[:, p:]
    return -B_dep.LUsolve(B_ind)


def _setup(speeds, frame, dependent_speeds, velocity_constraints,
           kinematic_substitutions):
    _check_type('frame', frame, ReferenceFrame)
    speeds = _speed_list('speeds', speeds)
    dependent = _speed_list('dependent_speeds', dependent_speeds,
                            allow_empty=True)
    if set(speeds) & set(dependent):
        raise ValueError('a speed cannot be both independent (speeds) and '
                         'in dependent_speeds.')
    if velocity_constraints is not None and not dependent:
        raise ValueError('velocity_constraints were given without '
                         'dependent_speeds.')
    replacements = _kinematic_map(kinematic_substitutions)
    return _Partials(frame, speeds, dependent, velocity_constraints,
                     replacements)


def _measure_in(vector, frame):
    """Return the 3x1 measure numbers of ``vector`` in ``frame`` (the sum of
    ``frame.dcm(F) * m`` over its components, without matrix overhead)."""
    total = [sm.S.Zero] * 3
    for measure, component_frame in vector.args:
        if component_frame == frame:
            for i in range(3):
                total[i] += measure[i]
            continue
        dcm = frame.dcm(component_frame)
        for i in range(3):
            total[i] += sm.Add(*[dcm[i, j] * measure[j] for j in range(3)
                                 if measure[j] != 0 and dcm[i, j] != 0])
    return total


class _Expressed:
    """A load vector and its measure numbers in every frame it has been
    dotted with (each frame's expression is computed once and reused)."""

    def __init__(self, vector):
        self.vector = vector
        self._cache = {}

    def dot(self, other):
        """``other . vector`` taken component frame by component frame."""
        terms = []
        for measure, component_frame in other.args:
            expressed = self._cache.get(component_frame)
            if expressed is None:
                expressed = _measure_in(self.vector, component_frame)
                self._cache[component_frame] = expressed
            terms.extend(measure[i] * expressed[i] for i in range(3)
                         if measure[i] != 0 and expressed[i] != 0)
        return sm.Add(*terms)


def _project(partials, groups):
    """Return the column sum over (item, vector) of v_r(item) . vector."""
    n = len(partials.speeds)
    column = [[] for _ in range(n)]
    for item, vector in groups:
        vector = _substitute(vector, partials.replacements)
        if vector == 0:
            continue
        expressed = _Expressed(vector)
        for r, partial in enumerate(partials.of(item)):
            if partial != 0:
                column[r].append(expressed.dot(partial))
    return partials.reduce(sm.Matrix([sm.Add(*terms) for terms in column]))
