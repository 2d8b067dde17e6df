"""The private pipeline behind :class:`sympy_loads.Simulation`, in the order
data flows through it:

* :mod:`.arguments`: checks of the arguments, constants and initial
  conditions packed for the numeric model;
* :mod:`.numeric_model`: the generated functions of one ``KanesMethod``
  (:class:`~.numeric_model.NumericModel`) and of its outputs, after
  :mod:`.constraint_consistency` has checked that its velocity constraints
  contain the time derivatives of its configuration constraints;
* :mod:`.problem`: one run's numeric problem (state layout, coordinate
  partitioning, the right-hand side and its diagnosing path);
* :mod:`.integrators`: the integrators (compiled DOP853 stepping, SciPy's);
* :mod:`.impacts` and :mod:`.stick_slip`: runs in phases, between impacts
  or switches of joint friction;
* :mod:`.workers`: the parts of a parameter study that run in workers;
* :mod:`.linearization`: linear models and equilibria about an operating
  point, differentiating piecewise-smooth loads (``Abs``, ``Max``,
  ``Heaviside``, ...) where they are smooth (:mod:`.piecewise_smooth`);
  :mod:`.feedback`: the variants of a numeric model with state-feedback
  expressions compiled in.

Nothing here is public API.
"""
