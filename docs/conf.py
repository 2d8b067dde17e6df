"""Sphinx configuration for the sympy_loads documentation."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))

project = 'sympy_loads'
author = 'sympy_loads developers'
copyright = '2026, sympy_loads developers'

extensions = [
    'sphinx.ext.autodoc',
    'sphinx.ext.mathjax',
    # MathJax copied into the built pages: formulas render offline
    'sphinx-mathjax-offline',
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


autodoc_member_order = 'bysource'
autodoc_default_options = {'members': True, 'show-inheritance': True}

plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [('png', 90)]

# Links to SymPy, NumPy, SciPy, Matplotlib and Python names. The
# inventories are shipped in _intersphinx/ (make_inventories.py there says
# where each comes from), so the build needs no network; a missing file
# drops its project (its names are then printed as plain text).
_INVENTORIES = {
    'python': 'https://docs.python.org/3/',
    'sympy': 'https://docs.sympy.org/latest/',
    'numpy': 'https://numpy.org/doc/stable/',
    'scipy': 'https://docs.scipy.org/doc/scipy/',
    'matplotlib': 'https://matplotlib.org/stable/',
}
_HERE = os.path.dirname(os.path.abspath(__file__))
intersphinx_mapping = {
    name: (url, os.path.join(_HERE, '_intersphinx', f'{name}.inv'))
    for name, url in _INVENTORIES.items()
    if os.path.exists(os.path.join(_HERE, '_intersphinx', f'{name}.inv'))}
intersphinx_timeout = 1

doctest_global_setup = 'import sympy as sm\nimport sympy.physics.mechanics as me'
# as pytest's doctests (pyproject.toml): whitespace differences do not count
import doctest as _doctest
doctest_default_flags = (_doctest.ELLIPSIS | _doctest.NORMALIZE_WHITESPACE
                         | _doctest.IGNORE_EXCEPTION_DETAIL
                         | _doctest.DONT_ACCEPT_TRUE_FOR_1)

html_theme = 'alabaster'
exclude_patterns = ['_build', '_generated', '_intersphinx']
nitpicky = False


import re

from docutils import nodes

# Citations. SymPy-style docstrings each carry a References section
# (``.. [Moore] J. K. Moore, ...``) cited as ``[Moore]_``, so one API page
# (and the whole project, where Sphinx keeps citations) has the same label
# many times. Each docstring's and each page's labels are made unique by a
# prefix naming the object or page
# (``sympy_loads-SpringDamperActuator:Moore``), and the prefix is taken off
# again where the label is shown: readers see
# ``[Moore]``, linked to the reference of the docstring they are reading.
_CITATION = re.compile(r'^(\s*\.\. \[)([^\]#*][^\]]*)(\])', re.MULTILINE)
_SEPARATOR = ':'   # allowed in a citation label, unlike most signs

# With the labels unique, the only citation warning left is Sphinx's
# "Citation [X] is not referenced": a References section is the object's
# bibliography (SymPy's style), not every entry is cited in its text.
suppress_warnings = ['ref.citation']


def _prefixed(text, prefix):
    labels = set(match.group(2) for match in _CITATION.finditer(text))
    for label in labels:
        new = f'{prefix}{_SEPARATOR}{label}'
        text = text.replace(f'.. [{label}]', f'.. [{new}]')
        text = text.replace(f'[{label}]_', f'[{new}]_')
    return text


def _docstring_citations(app, what, name, obj, options, lines):
    text = _prefixed('\n'.join(lines), name.replace('.', '-'))
    lines[:] = text.split('\n')


def _page_citations(app, docname, source):
    source[0] = _prefixed(source[0], docname.replace('/', '-'))


def _show_short_labels(app, doctree):
    """Show ``[Moore]`` where the unique label is ``prefix:Moore``."""
    from sphinx.addnodes import pending_xref
    shown = [label for citation in doctree.findall(nodes.citation)
             for label in citation.findall(nodes.label)]
    shown += [ref for ref in doctree.findall(pending_xref)
              if ref.get('refdomain') == 'citation']
    shown += list(doctree.findall(nodes.citation_reference))
    for node in shown:
        for text in list(node.findall(nodes.Text)):
            if _SEPARATOR in text:
                text.parent.replace(text, nodes.Text(
                    re.sub(r'[^\[\]:]*' + _SEPARATOR, '', str(text))))


def _make_animations(app):
    """Write the four-bar animation shown in the closed-loop tutorial to
    ``_generated/four_bar.gif`` (once; delete it to remake it), with the
    example's own code: ``python -m sympy_loads.examples.four_bar
    --animate`` does the same."""
    path = os.path.join(_HERE, '_generated', 'four_bar.gif')
    if os.path.exists(path):
        return
    import matplotlib
    matplotlib.use('Agg')
    from sympy_loads.examples import four_bar
    model, result, _ = four_bar.run(duration=6.0, samples_per_second=100)
    four_bar.save_animation(model, result, os.path.dirname(path))


def setup(app):
    app.connect('builder-inited', _make_animations)
    app.connect('autodoc-process-docstring', _docstring_citations)
    app.connect('source-read', _page_citations)
    app.connect('doctree-read', _show_short_labels)
