"""Runnable end-to-end examples: ``python -m sympy_loads.examples.<name>``.

Nothing in the library imports this package.
"""
