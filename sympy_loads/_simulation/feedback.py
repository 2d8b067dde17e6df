"""Private: state feedback in :func:`sympy_loads.simulate` (specified inputs
that depend on the state).

A specified input may be given as

* a number or a callable ``f(t)`` (:class:`.arguments.ConstantInput` or
  the callable itself): its value goes into the input vector of the
  generated functions before each evaluation;
* a callable ``f(t, q, u)`` (:class:`.arguments.StateFeedback`), called
  with the full ``q`` and ``u`` in the model's order once the dependent
  coordinates and speeds are solved: such a run takes the right-hand
  side's diagnosing path (:class:`.problem.Problem`), which solves them
  first, in place of the single compiled call (that call solves them
  inside the kernel, after the specified values are set);
* a SymPy expression of the coordinates, speeds, time and constants
  (:class:`.arguments.CompiledFeedback`): it is substituted into the
  model's equations of motion, which are generated again for that set of
  expressions (once; kept with the numeric model, see
  :func:`with_feedback`), so the run stays wholly compiled, stepping
  included. Constants of the expression that the equations do not have
  (gains) are substituted by the run's values first, so another value of
  a gain generates the equations again (milliseconds to a second, then
  kept: the last ``OUTPUT_CACHE_SIZE`` variants, in the model's cache
  that the variants share). Where SymEngine cannot compile the
  expressions (a ``Heaviside`` relay), the variant is generated wholly on
  NumPy, with a ``RuntimeWarning``, as a model's own equations are.

A specified input inside the velocity constraints may be given as an
expression of the coordinates and time: it is substituted into the
velocity constraints as well (not as a callable ``f(t, q, u)``, see
:func:`.arguments._check_velocity_input`). Where the state is not at
hand, a feedback input's slot in the input vector holds a placeholder
(0.0), which no generated function of the variant reads; outputs and the
right-hand side read its value at the state (:func:`feedback_values`).
The rate of an input (an input of its own where the equations need it,
see :func:`.arguments._rate_function`) given by an expression is
substituted the same way.
"""

import warnings

import numpy as np
import sympy as sm

from .arguments import CompiledFeedback, StateFeedback
from .._numeric.codegen import (CodegenError, generate, symengine_available,
                               to_symengine)

__all__ = []


def with_feedback(nm, spec_functions):
    """``nm`` itself, or where some specified inputs are
    :class:`CompiledFeedback`, its variant with their expressions
    substituted into the equations of motion (generated once per set of
    expressions and kept with ``nm``,
    :meth:`.numeric_model.NumericModel.derived`). The variant has the same
    input vector as ``nm``, so everything else made for ``nm`` serves it
    too (on ``nm``'s back end it shares ``nm``'s caches; on NumPy, where
    SymEngine cannot compile the expressions, it has its own)."""
    slots = {i: f for i, f in enumerate(spec_functions)
             if isinstance(f, CompiledFeedback)}
    if not slots:
        return nm
    key = ('feedback',) + tuple((i, f.expression)
                                for i, f in sorted(slots.items()))
    return nm.variant(key, lambda: _variant(nm, slots))


def _variant(nm, slots):
    """The variant of ``nm`` with the expressions of ``slots`` substituted
    into its equations of motion; on ``nm``'s back end, or wholly on NumPy
    (with a RuntimeWarning) where SymEngine cannot compile them, as
    :func:`sympy_loads.simulate` does for a model's own equations."""
    eom = nm.functions['eom']
    inputs = list(eom.inputs)
    use_se = symengine_available()
    convert = to_symengine if use_se else list
    by_name = {c.name: c for c in nm.constants}
    plain = nm._plain
    specified_plain = convert([plain[nm.specified[i]] for i in slots])
    expressions = []
    for f in slots.values():
        expr = f.expression.xreplace(nm.kindiff)
        expr = expr.xreplace({s: by_name[s.name] for s in expr.free_symbols
                              if s.name in by_name and s not in plain})
        expressions.append(expr.xreplace(plain))
    expressions = convert(expressions)
    substitution = dict(zip(specified_plain, expressions))
    # the equations of motion, and the velocity constraints where an input
    # in them is given as an expression (of the coordinates and time)
    substituted = {}
    for name in ('eom', 'vel'):
        old = nm.functions[name].outputs
        if name == 'vel' and not any(set(e.free_symbols)
                                     & set(specified_plain) for e in old):
            continue
        substituted[name] = [e.subs(substitution) if use_se else
                             sm.sympify(e).xreplace(substitution)
                             for e in old]
    variant = _sharing_copy(nm)
    if nm.backend == 'compiled':
        try:
            for name, outputs in substituted.items():
                variant.functions[name] = generate(inputs, outputs, 'llvm',
                                                   name)
        except CodegenError as error:
            names = ', '.join(f'specified[{f.symbol}]'
                              for f in slots.values())
            warnings.warn(f'{names}: {error} This run uses the NumPy back '
                          f'end.', RuntimeWarning, stacklevel=2)
            variant = _on_numpy(nm)
    if variant.backend == 'numpy':
        for name, outputs in substituted.items():
            variant.functions[name] = generate(inputs, outputs, 'numpy',
                                               name)
    try:
        values = generate(inputs, expressions, 'llvm' if variant.backend
                          == 'compiled' else 'numpy', 'feedback')
    except CodegenError:    # a miscompile: it is only called from Python
        values = generate(inputs, expressions, 'numpy', 'feedback')
    variant.fn = variant._addresses()
    variant.feedback_slots = np.array(list(slots), dtype=int)
    variant.feedback_function = values
    return variant


def _sharing_copy(nm):
    """A shallow copy of ``nm`` with its own table of functions, sharing
    everything else, its caches (:meth:`NumericModel.derived`, the
    outputs' functions) included: a variant has the same input vector,
    constraints and back end, so what was derived for ``nm`` serves it,
    and the caches' bound holds for ``nm`` and all its variants together.
    (``copy.copy`` would go through ``NumericModel.__getstate__``, which
    copies the caches for pickling: each variant would keep the earlier
    variants alive, without bound.)"""
    variant = object.__new__(type(nm))
    variant.__dict__.update(nm.__dict__)
    variant.functions = dict(nm.functions)
    return variant


def _on_numpy(nm):
    """A copy of ``nm`` whose functions are generated by NumPy, with its
    own (empty) caches: functions derived on the NumPy back end must not
    serve the compiled ``nm``."""
    variant = _sharing_copy(nm)
    variant.backend = 'numpy'
    variant.functions = {name: generate(f.inputs, f.outputs, 'numpy', name)
                         for name, f in nm.functions.items()}
    variant._derived, variant._outputs, variant._variants = {}, {}, {}
    return variant


def is_state_feedback(spec_functions):
    """Whether a specified input is a callable ``f(t, q, u)``."""
    return any(isinstance(f, StateFeedback) for f in spec_functions)


def feedback_values(problem, t, q, u):
    """The values of the specified inputs of ``problem`` at ``(t, q,
    u)``, feedback included."""
    values = [f.at(t, q, u) if isinstance(f, StateFeedback) else f(t)
              for f in problem.spec_functions]
    slots = getattr(problem.nm, 'feedback_slots', None)
    if slots is not None and len(slots):
        x = problem.x.copy()
        x[0] = t
        x[problem.slices[0]] = q
        x[problem.slices[1]] = u
        x[problem.slices[3]] = values + [0.0] * problem.n_friction
        computed = np.asarray(problem.nm.feedback_function(x),
                              dtype=float).ravel()
        for slot, value in zip(slots, computed):
            values[slot] = float(value)
    return values


def has_feedback(spec_functions):
    """Whether a specified input depends on the state."""
    return any(isinstance(f, (StateFeedback, CompiledFeedback))
               for f in spec_functions)
