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
    'sphinx.ext.napoleon',
    'matplotlib.sphinxext.plot_directive',
]

# SymPy-style docstrings: NumPy-style sections underlined with "=====", plus
# SymPy's "Explanation" section, parsed by napoleon.
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_custom_sections = [('Explanation', 'notes_style')]
napoleon_use_rtype = False

# Every docstring cites its sources in its own References section, so the
# same citation label (e.g. [Moore]) appears in many docstrings; Sphinx would
# report those as duplicates or as unreferenced. They are intentional.
suppress_warnings = ['ref.citation']

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


import hashlib
import re

_CITATION = re.compile(r'^(\s*\.\. \[)([^\]]+)(\])', re.MULTILINE)


def _localize_citations(app, what, name, obj, options, lines):
    """Give the citations of each docstring labels of their own.

    SymPy-style docstrings each carry a References section (``.. [Moore]``);
    several docstrings on one API page would otherwise define the same label
    twice. The label and its references ``[Moore]_`` get a per-object prefix.
    """
    text = '\n'.join(lines)
    labels = set(match.group(2) for match in _CITATION.finditer(text))
    if not labels:
        return
    prefix = 'R' + hashlib.md5(name.encode()).hexdigest()[:8]
    for label in labels:
        new = f'{prefix}-{label}'
        text = text.replace(f'.. [{label}]', f'.. [{new}]')
        text = text.replace(f'[{label}]_', f'[{new}]_')
    lines[:] = text.split('\n')


def setup(app):
    app.connect('autodoc-process-docstring', _localize_citations)
