"""Sphinx configuration for the sympy_loads documentation."""

import os
import sys

sys.path.insert(0, os.path.abspath('..'))

project = 'sympy_loads'
author = 'sympy_loads developers'
copyright = '2026, sympy_loads developers'

extensions = [
    'sphinx.ext.autodoc',
    'sphinx.ext.mathjax',
    'sphinx.ext.doctest',
    'sphinx.ext.intersphinx',
    'numpydoc',
    'matplotlib.sphinxext.plot_directive',
]

# SymPy-style docstrings ("Explanation" + "=====" underlines) parse with
# numpydoc; do not generate per-member tables that duplicate autodoc.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()

autodoc_member_order = 'bysource'
autodoc_default_options = {'members': True, 'show-inheritance': True}

plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [('png', 90)]

intersphinx_mapping = {}

doctest_global_setup = 'import sympy as sm\nimport sympy.physics.mechanics as me'

html_theme = 'alabaster'
exclude_patterns = ['_build']
nitpicky = False
