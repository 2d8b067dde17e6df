"""Private: the checks and conversions of :func:`sympy_loads.simulate`'s
arguments (each failure is a TypeError or ValueError naming the argument)."""

import inspect
import math

import numpy as np
import sympy as sm
from sympy.core.function import AppliedUndef
from sympy.physics.mechanics import dynamicsymbols, find_dynamicsymbols

from .._errors import SimulationError
from .._utils import _as_float, _real_array

_TIME = dynamicsymbols._t

__all__ = []


# integrators simulate() accepts: solve_ivp's and SciPy's odeint
METHODS = ('RK45', 'RK23', 'DOP853', 'Radau', 'BDF', 'LSODA', 'odeint')
# implicit integrators, which retry a failed evaluation with a smaller step
IMPLICIT_METHODS = ('Radau', 'BDF')


def _check_method(method):
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f'method must be one of {list(METHODS)}, not '
                         f'{method!r}.')
    return method


def _check_max_step(max_step):
    if isinstance(max_step, (int, float, np.floating, np.integer)) and \
            not isinstance(max_step, (bool, np.bool_)) and \
            max_step == math.inf:
        return math.inf
    value = _as_float('max_step', max_step)
    if value <= 0:
        raise ValueError(f'max_step must be positive (or inf for no '
                         f'limit), got {max_step!r}.')
    return value


def _check_t_span(t_span):
    try:
        t0, t1 = t_span
    except (TypeError, ValueError):
        raise ValueError(f't_span must be a pair (t0, tf), got '
                         f'{t_span!r}.') from None
    t0, t1 = _as_float('t_span[0]', t0), _as_float('t_span[1]', t1)
    if t1 == t0:
        raise ValueError(f't_span must have tf != t0, got {t_span!r}.')
    return t0, t1


def _check_t_eval(t_eval, t0, t1):
    if t_eval is None:
        return None
    t_eval = _real_array('t_eval', t_eval)
    if t_eval.ndim != 1:
        raise ValueError(f't_eval must be one-dimensional, got shape '
                         f'{t_eval.shape}.')
    lo, hi = min(t0, t1), max(t0, t1)
    if t_eval.size:
        # strictly monotonic in t_span's direction with both ends within
        # it means finite and within it (a NaN fails every comparison);
        # the checks in turn say what is wrong otherwise
        steps = t_eval[1:] - t_eval[:-1] if t1 > t0 else \
            t_eval[:-1] - t_eval[1:]
        first, last = t_eval[0], t_eval[-1]
        if (steps.size and not steps.min() > 0) or not (
                lo <= first <= hi and lo <= last <= hi):
            if not np.all(np.isfinite(t_eval)):
                raise ValueError(f't_eval must be finite, got {t_eval!r}.')
            if t_eval.min() < lo or t_eval.max() > hi:
                raise ValueError(f't_eval must lie within t_span = ({t0}, '
                                 f'{t1}).')
            raise ValueError('t_eval must be strictly monotonic in the '
                             'direction of t_span.')
    return t_eval


def _pack_constants(nm, constants, extra=()):
    """Return the constants vector in ``nm.constants`` order (+ ``extra``),
    the missing ones (collected for one ValueError) and the whole mapping of
    the user's constants as floats (loads that do no work, e.g. a reaction's
    load in joint friction, may need constants absent from the EOMs)."""
    if constants is None:
        constants = {}
    if not hasattr(constants, 'items'):
        raise TypeError(f'constants must be a mapping from SymPy symbols to '
                        f'numbers, not {type(constants).__name__}.')
    values = {}
    for key, value in constants.items():
        if not isinstance(key, sm.Symbol):
            if isinstance(key, sm.Expr) and key in nm.specified:
                raise TypeError(
                    f'constants: {key} is a specified input (a function of '
                    f'time); pass it with specified={{{key}: ...}}.')
            raise TypeError(f'constants: key {key!r} is not a SymPy Symbol.')
        if key == _TIME:
            raise ValueError(
                f'constants: {key} is the time of the equations of motion '
                f'(dynamicsymbols._t), not a constant; give the constant '
                f'another name.')
        values[key] = _as_float(_entry('constants', key), value)
    needed = list(nm.constants) + list(extra)
    # the numeric model names some constants only by name (those it meets
    # first in SymEngine expressions, e.g. a length in a position vector),
    # without the user's assumptions (real=True, positive=True): match by
    # name where the symbol itself is not a key
    by_name = {}
    for key, value in values.items():
        by_name.setdefault(key.name, []).append(value)
    packed, missing = [], []
    for symbol in needed:
        if symbol in values:
            packed.append(values[symbol])
        elif len(by_name.get(symbol.name, ())) == 1:
            packed.append(by_name[symbol.name][0])
        else:
            missing.append(symbol)
            packed.append(np.nan)
    return np.array(packed, dtype=float), missing, values


class ConstantInput:
    """A specified input given as a number: ``f(t) = value`` for every
    ``t`` (a right-hand side compiled whole holds it in its inputs)."""

    __slots__ = ('value',)

    def __init__(self, value):
        self.value = value

    def __call__(self, t):
        return self.value


class StateFeedback:
    """A specified input given as ``f(t, q, u)``."""

    __slots__ = ('function', 'symbol')

    def __init__(self, function, symbol):
        self.function = function
        self.symbol = symbol

    def __call__(self, t):
        """The placeholder where the state is not at hand."""
        return 0.0

    def at(self, t, q, u):
        value = self.function(t, np.array(q, dtype=float),
                              np.array(u, dtype=float))
        try:
            return _as_float(f'specified[{self.symbol}](t, q, u)', value)
        except ValueError as error:
            raise SimulationError(
                f'the specified input {self.symbol} is not finite at t = '
                f'{float(t):.10g}: {error}', time=t, q=q, u=u) from None


class CompiledFeedback(ConstantInput):
    """A specified input given as a SymPy expression of the state: it is
    compiled into the right-hand side (:func:`with_feedback`), so its slot
    in the input vector holds a placeholder, like a constant input's."""

    __slots__ = ('symbol', 'expression')

    def __init__(self, symbol, expression):
        super().__init__(0.0)
        self.symbol = symbol
        self.expression = expression


def evaluated_elsewhere(expression, allowed):
    """The terms of ``expression`` (an expression or matrix) that are not
    values at the time ``t``: functions evaluated at another argument
    (``theta(0)``, ``f(k)``; the functions of ``allowed`` excepted) and
    substitutions (``Subs``). The generated code would read the state in
    their place, or fail to compile them; as strings, sorted."""
    elsewhere = [f for f in expression.atoms(AppliedUndef)
                 if f not in allowed and f.args != (_TIME,)]
    elsewhere += list(expression.atoms(sm.Subs))
    return sorted(map(str, elsewhere))


def check_expression(nm, symbol, expression, constants=None):
    """``expression`` (a SymPy expression given for the specified input
    ``symbol``) in the model's symbols: its time derivatives of
    coordinates replaced by the kinematic equations, and its constants
    that are not the model's (a gain) replaced by their values in
    ``constants`` (matched by symbol, else by a unique name). Returns
    ``(expression, missing constants)``; ValueError naming what it may
    not contain."""
    if isinstance(expression, sm.MatrixBase) or not isinstance(
            expression, sm.Expr):
        raise TypeError(f'specified[{symbol}] must be a number, a callable '
                        f'f(t) or f(t, q, u), or a scalar SymPy expression, '
                        f'not {type(expression).__name__}.')
    expression = expression.xreplace(nm.kindiff)
    allowed = set(nm.q) | set(nm.u)
    unknown = [s for s in find_dynamicsymbols(expression)
               if s not in allowed]
    if unknown:
        raise ValueError(
            f'specified[{symbol}]: the expression contains '
            f'{sorted(map(str, unknown))}; a feedback expression may contain '
            f'the coordinates, speeds, time and constants of the model '
            f'(give other inputs as functions f(t, q, u)).')
    elsewhere = evaluated_elsewhere(expression, allowed)
    if elsewhere:
        raise ValueError(
            f'specified[{symbol}]: the expression contains {elsewhere}, not '
            f'a function of the time t only; a feedback expression may '
            f'contain the coordinates and speeds at the current time '
            f'(q(t), u(t)), time and constants (give a value at another '
            f'time as a constant).')
    names = {c.name for c in nm.constants}
    extra = [s for s in expression.free_symbols - {_TIME}
             if s.name not in names]
    if not extra:
        return expression, []
    constants = constants or {}
    by_name = {}
    for key, value in constants.items():
        by_name.setdefault(key.name, []).append(value)
    values, missing = {}, []
    for s in sorted(extra, key=sm.default_sort_key):
        if s in constants:
            values[s] = constants[s]
        elif len(by_name.get(s.name, ())) == 1:
            values[s] = by_name[s.name][0]
        else:
            missing.append(s)
    # a constant of the feedback only (a gain) is compiled in as its value
    # (the equations are generated once per set of values)
    return expression.xreplace({s: sm.Float(v) for s, v in
                                values.items()}), missing


def _specified_functions(nm, specified, t0, constants=None):
    """Return a list of callables of t (in ``nm.specified`` order; state
    feedback as the types of :mod:`.feedback`), the missing inputs and
    the missing constants of feedback expressions (``constants``: the
    run's, as floats)."""
    specified = {} if specified is None else specified
    if not hasattr(specified, 'items'):
        raise TypeError(f'specified must be a mapping from time functions '
                        f'to numbers, callables f(t) or f(t, q, u), or SymPy '
                        f'expressions of the state, not '
                        f'{type(specified).__name__}.')
    functions, missing, missing_constants = [], [], []
    given = {}
    for symbol in nm.specified:
        if symbol not in specified:
            # the rate of an input (after the inputs in nm.specified) is
            # derived from the input's value where not given
            if isinstance(symbol, sm.Derivative):
                if symbol.expr in given:
                    functions.append(_rate_function(
                        nm, symbol.expr, given[symbol.expr]))
                continue      # (the input itself is reported missing)
            missing.append(symbol)
            continue
        value = specified[symbol]
        if isinstance(value, sm.Basic) and not isinstance(value, sm.Number):
            expression, lacking = check_expression(nm, symbol, value,
                                                   constants)
            missing_constants += [s for s in lacking
                                  if s not in missing_constants]
            functions.append(CompiledFeedback(symbol, expression))
        elif callable(value) and _takes_state(symbol, value):
            functions.append(StateFeedback(value, symbol))
        elif callable(value):
            check = value(t0)
            _as_float(f'specified[{symbol}]({t0})', check)
            functions.append(value)
        else:
            number = _as_float(_entry('specified', symbol), value)
            functions.append(ConstantInput(number))
        given[symbol] = functions[-1]
        _check_velocity_input(nm, symbol, functions[-1])
    check_specified_keys(nm, specified)
    return functions, missing, missing_constants


def _check_velocity_input(nm, symbol, function):
    """ValueError where the input ``symbol``, in the model's velocity
    constraints, is given as ``function`` that the constraints cannot
    take: a callable ``f(t, q, u)`` (the constraint kernels solve the
    dependent speeds before the state is known) or an expression of
    the speeds (the constraints would no longer be linear in them)."""
    if symbol not in nm.velocity_inputs:
        return
    if isinstance(function, StateFeedback):
        raise ValueError(
            f'specified[{symbol}]: {symbol} appears in the velocity '
            f'constraints, which cannot take a callable f(t, q, u); give '
            f'a callable f(t), a number, or a SymPy expression of the '
            f'coordinates and time.')
    if isinstance(function, CompiledFeedback):
        speeds = sorted(str(s) for s in find_dynamicsymbols(
            function.expression) if s in set(nm.u))
        if speeds:
            raise ValueError(
                f'specified[{symbol}]: {symbol} appears in the velocity '
                f'constraints, which must stay linear in the speeds; its '
                f'expression contains the speeds {speeds}. Give an '
                f'expression of the coordinates and time.')


class CentralDifference:
    r"""The rate of a specified input given as a callable ``f(t)``, by
    the central difference ``(f(t + h) - f(t - h)) / (2 h)`` with ``h =
    STEP max(1, |t|)`` and ``STEP = eps**(1/3)`` (6.1e-6).

    Its error is at most ``h**2/6 max|f'''| + eps max|f| / h`` (the
    truncation error of the central difference plus the round-off of the
    two evaluations): ``6e-12 |f'''| + 3.7e-11 |f|`` for ``|t| <= 1``,
    far below the integration tolerances, for an ``f`` smooth within
    ``h`` of ``t``. ``f`` is called at ``t +- h``, just outside the time
    span at its ends."""

    __slots__ = ('function',)
    STEP = np.finfo(float).eps ** (1 / 3)

    def __init__(self, function):
        self.function = function

    def __call__(self, t):
        h = self.STEP * max(1.0, abs(t))
        return (float(self.function(t + h))
                - float(self.function(t - h))) / (2 * h)


def _rate_function(nm, symbol, function):
    """The function of the rate of the input ``symbol`` (given as
    ``function``, already checked) where the user gives none: 0 for a
    number, the central difference of a callable ``f(t)``
    (:class:`CentralDifference`), the total time derivative of an
    expression (compiled); ValueError for a callable ``f(t, q, u)`` and
    an expression of the speeds, whose rates need the accelerations."""
    rate = symbol.diff(_TIME)
    if isinstance(function, StateFeedback):
        raise ValueError(
            f'specified[{symbol}]: the equations need the time derivative '
            f'of {symbol} (it appears in the velocity constraints, the '
            f'kinematic equations or a velocity), which a callable f(t, q, '
            f'u) does not give; give {symbol} as a SymPy expression of the '
            f'coordinates and time, or give its rate as specified[{rate}].')
    if isinstance(function, CompiledFeedback):
        value = sm.diff(function.expression, _TIME).xreplace(nm.kindiff)
        other = sorted(str(s) for s in find_dynamicsymbols(value)
                       if s not in set(nm.q) | set(nm.u))
        if other:
            raise ValueError(
                f'specified[{symbol}]: the equations need the time '
                f'derivative of {symbol}, which contains {other}: give '
                f'{symbol} as an expression of the coordinates and time '
                f'only, or give its rate as specified[{rate}].')
        return CompiledFeedback(rate, value)
    if isinstance(function, ConstantInput):
        return ConstantInput(0.0)
    return CentralDifference(function)


def check_specified_keys(nm, specified):
    """ValueError naming the keys of ``specified`` that are not specified
    inputs of the model's equations."""
    unknown = [k for k in specified if k not in nm.specified]
    reactions = [k for k in unknown if k in getattr(nm, 'reactions', ())]
    if reactions:
        raise ValueError(
            f'specified: {sorted(map(str, reactions))} are reactions '
            f'brought into evidence by the auxiliary speeds '
            f'{[str(s) for s in nm.u_aux]} (u_auxiliary): they are computed '
            f'from the auxiliary equations, not given; ask for them with '
            f'outputs={{name: reaction}}.')
    if unknown:
        raise ValueError(
            f'specified: {sorted(map(str, unknown))} do not appear in the '
            f'equations of motion; the specified inputs are '
            f'{[str(s) for s in nm.specified]}.')


def _takes_state(symbol, function):
    """Whether the callable given for ``symbol`` is ``f(t, q, u)`` (True)
    or ``f(t)`` (False), by its signature; one that can be called with
    neither one nor three positional arguments is a TypeError. A callable
    without a signature (some builtins) is taken as ``f(t)``."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return False

    def takes(n):
        try:
            signature.bind(*range(n))
        except TypeError:
            return False
        return True
    if takes(1):
        return False
    if takes(3):
        return True
    raise TypeError(
        f'specified[{symbol}] must be a callable f(t) or f(t, q, u) (q, u: '
        f'all coordinates and speeds in model order), a number or a SymPy '
        f'expression of the state; {function!r} has the signature '
        f'{signature}.')


def _entry(mapping, key):
    """The name of ``mapping[key]`` (e.g. ``constants[m]``) for an error
    message, formatted only when one needs it (see
    :func:`._utils._as_float`)."""
    return lambda: f'{mapping}[{key}]'


def _initial_state(nm, initial_conditions, name='initial_conditions'):
    """Return full ``q0, u0`` (dependent entries are guesses; dependent
    speeds default to 0 and are solved for) and missing names; messages
    name the argument ``name`` (``operating_point``, ``guess``)."""
    nq, nu = len(nm.q), len(nm.u)
    if hasattr(initial_conditions, 'items'):
        q0, u0 = np.zeros(nq), np.zeros(nu)
        missing = []
        strings = [k for k in initial_conditions if isinstance(k, str)]
        if strings:
            raise TypeError(
                f'{name}: keys must be the model\'s coordinates '
                f'and speeds (functions of time such as '
                f'dynamicsymbols(\'q1\')), not strings {strings}; the model '
                f'has {[str(s) for s in nm.q + nm.u]}.')
        known = set(nm.q) | set(nm.u)
        unknown = [k for k in initial_conditions if k not in known]
        if unknown:
            raise ValueError(
                f'{name}: {sorted(map(str, unknown))} are not '
                f'coordinates or speeds of the model; they are '
                f'{[str(s) for s in nm.q + nm.u]}.')
        for i, s in enumerate(nm.q):
            if s in initial_conditions:
                q0[i] = _as_float(_entry(name, s),
                                  initial_conditions[s])
            else:
                missing.append(s)
        for i, s in enumerate(nm.u):
            if s in initial_conditions:
                u0[i] = _as_float(_entry(name, s),
                                  initial_conditions[s])
            elif i not in set(nm.u_dep_idx):
                missing.append(s)
        return q0, u0, missing
    try:
        values = _real_array(name, initial_conditions)
    except (TypeError, ValueError):
        raise TypeError(
            f'{name} must be a mapping from coordinates and speeds to '
            f'numbers, or an array of [q, u] in model order.'
        ) from None
    if values.shape != (nq + nu,):
        raise ValueError(
            f'{name} must have shape ({nq + nu},) (the '
            f'{nq} coordinates then the {nu} speeds in model order), got '
            f'shape {values.shape}.')
    if not np.all(np.isfinite(values)):
        raise ValueError(f'{name} must be finite.')
    return values[:nq].copy(), values[nq:].copy(), []


def _check_joint_friction(joint_friction):
    if joint_friction is None:
        return []
    if hasattr(joint_friction, 'prepare'):
        joint_friction = [joint_friction]
    items = list(joint_friction)
    for i, item in enumerate(items):
        if not (hasattr(item, 'symbols') and callable(
                getattr(item, 'prepare', None))):
            raise TypeError(
                f'joint_friction[{i}] must have .symbols and .prepare(model, '
                f'constants), not {type(item).__name__} {item!r}.')
    return items


def _check_impacts(impacts, method, t0, t1):
    """The list of :class:`~sympy_loads.Impact` of ``simulate()``'s
    ``impacts`` argument (empty for None); their frames are checked
    against the model's by :func:`_check_impact_frames`."""
    if impacts is None:
        return []
    from ..impacts import Impact
    if isinstance(impacts, Impact):
        raise TypeError('impacts must be a sequence of Impact objects; put '
                        'a single one in a list.')
    try:
        items = list(impacts)
    except TypeError:
        raise TypeError(f'impacts must be a sequence of Impact objects, not '
                        f'{type(impacts).__name__}.') from None
    for i, item in enumerate(items):
        if not isinstance(item, Impact):
            raise TypeError(f'impacts[{i}] must be an Impact, not '
                            f'{type(item).__name__} {item!r}.')
    if items and method == 'odeint':
        raise ValueError("impacts need the integrator's event location, "
                         "which method='odeint' does not have; use "
                         "method='LSODA' (the same integrator).")
    if items and not t1 > t0:
        raise ValueError(f'impacts need a forward time span (an impact '
                         f'with e < 1 is not reversible), got t_span = '
                         f'({t0}, {t1}).')
    return items


def _check_impact_frames(items, frame):
    """``ValueError`` for an impact whose frame is not ``frame``, the
    model's inertial frame."""
    for i, item in enumerate(items):
        # by name: a model and its impacts unpickled apart (in a worker of
        # simulate_many) hold equal copies of the frame, not the same one
        if item.frame != frame and item.frame.name != frame.name:
            raise ValueError(
                f'impacts[{i}]: its frame {item.frame} is not the '
                f"model's inertial frame {frame}; velocities must be taken "
                f'in the inertial frame.')
