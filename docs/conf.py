"""Sphinx configuration for the sympy_loads documentation."""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))

project = 'sympy_loads'
author = 'sympy_loads developers'
copyright = '2026, sympy_loads developers'
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                       'sympy_loads', '__init__.py')) as _init:
    release = version = re.search(r"__version__ = '([^']+)'",
                                  _init.read()).group(1)

extensions = [
    'sphinx.ext.autodoc',
    'sphinx.ext.mathjax',
    # MathJax copied into the built pages: formulas render offline
    'sphinx-mathjax-offline',
    'sphinx.ext.doctest',
    'sphinx.ext.intersphinx',
    'sphinx.ext.napoleon',
    'matplotlib.sphinxext.plot_directive',
    # [source] links on the API pages, to the package's code
    'sphinx.ext.viewcode',
    # a copy button on every code block, which leaves out the prompts and
    # the printed output: what it copies runs when pasted into Python
    'sphinx_copybutton',
]

# ">>> " and "... " (Python's prompts) are taken off the lines that carry
# them and every other line of such a block (what Python prints) is left
# out; a block without prompts (a shell command, a script) is copied
# whole. Sketches, formulas and printed output are ``text`` blocks and get
# no button (tests/test_docs_pages.py checks all of this on every page).
copybutton_prompt_text = r'>>> |\.\.\. '
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_remove_prompts = True
copybutton_selector = 'div:not(.highlight-text) > div.highlight pre'

# SymPy-style docstrings: NumPy-style sections underlined with "=====", plus
# SymPy's "Explanation" section, parsed by napoleon.
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_custom_sections = [('Explanation', 'notes_style')]
napoleon_use_rtype = False
# Parameter types are written as prose ("sympifiable, optional", "array_like
# of shape (m, n)", "ReferenceFrame"). Napoleon splits them into tokens and
# links the names below through the shipped inventories; words that are not
# names (shape, of, m, n) are shown as plain text by _plain_type_words.
napoleon_preprocess_types = True
_ME = 'sympy.physics.mechanics'
napoleon_type_aliases = {
    **{name: f':class:`~{_ME}.{name}`' for name in (
        'ReferenceFrame', 'Point', 'Vector', 'RigidBody', 'Particle',
        'KanesMethod', 'System', 'PinJoint', 'SphericalJoint',
        'PrismaticJoint', 'CylindricalJoint', 'PathwayBase', 'Force',
        'Torque', 'ActuatorBase', 'ForceActuator', 'TorqueActuator')},
    'Joint': f':class:`~{_ME}.joint.Joint`',
    'Expr': ':class:`~sympy.core.expr.Expr`',
    'Symbol': ':class:`~sympy.core.symbol.Symbol`',
    'Matrix': ':class:`~sympy.Matrix`',
    'sympifiable': ':func:`sympifiable <sympy.core.sympify.sympify>`',
    'ndarray': ':class:`~numpy.ndarray`',
    'array_like': ':term:`array_like`',
    'iterable': ':term:`iterable`',
    'sequence': ':term:`sequence`',
    'sequences': ':term:`sequences <sequence>`',
    'mapping': ':term:`mapping`',
    'mappings': ':term:`mappings <mapping>`',
    'callable': ':term:`callable`',
    'path-like': ':term:`path-like <path-like object>`',
    'Executor': ':class:`~concurrent.futures.Executor`',
}


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
    'pandas': 'https://pandas.pydata.org/docs/',
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

html_theme = 'furo'
html_title = f'sympy_loads {release}'
html_static_path = ['_static']
# signatures that break between parameters only, tables and code blocks
# that fit a phone's screen
html_css_files = ['sympy_loads.css']
html_favicon = '_static/favicon.svg'
exclude_patterns = ['_build', '_generated', '_intersphinx']
# Every cross-reference must resolve (CI builds with -n -W); what truly
# cannot link is listed here with the reason.
nitpicky = True
nitpick_ignore = []


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
    """Prefix the docstring's citation labels, and on a page that already
    lists a reference under the same label (an API page whose module
    docstring and functions cite the same book), drop the repeated entry
    and link the citations to the first one: each reference is printed
    once per page."""
    text = '\n'.join(lines)
    prefix = name.replace('.', '-')
    first = _PAGE_LABELS.setdefault(app.env.docname, {})
    for label in set(match.group(2) for match in _CITATION.finditer(text)):
        if label in first:
            text = _without_entry(text, label)
            text = text.replace(f'[{label}]_', f'[{first[label]}]_')
        else:
            first[label] = f'{prefix}{_SEPARATOR}{label}'
            text = text.replace(f'.. [{label}]', f'.. [{first[label]}]')
            text = text.replace(f'[{label}]_', f'[{first[label]}]_')
    lines[:] = _without_empty_references(text.split('\n'))


#: docname -> {label: unique label of its first entry on that page}
_PAGE_LABELS = {}


def _forget_page_labels(app, env, docname):
    _PAGE_LABELS.pop(docname, None)


def _without_entry(text, label):
    """``text`` without the citation entry ``.. [label] ...`` (its first
    line and the more indented lines that continue it)."""
    lines = text.split('\n')
    out, skip_indent = [], None
    for line in lines:
        if skip_indent is not None:
            if line.strip() and len(line) - len(line.lstrip()) > skip_indent:
                continue
            skip_indent = None
        match = _CITATION.match(line)
        if match and match.group(2) == label:
            skip_indent = len(match.group(1)) - len(match.group(1).lstrip())
            continue
        out.append(line)
    return '\n'.join(out)


def _without_empty_references(lines):
    """Drop a References heading (napoleon's rubric) left with no entry."""
    out = []
    for i, line in enumerate(lines):
        if line.strip() == '.. rubric:: References':
            rest = lines[i + 1:]
            following = next((item for item in rest if item.strip()), '')
            indent = len(line) - len(line.lstrip())
            if not following.strip().startswith('.. [') or (
                    len(following) - len(following.lstrip()) < indent):
                continue
        out.append(line)
    return out


def _page_citations(app, docname, source):
    source[0] = _prefixed(source[0], docname.replace('/', '-'))


def _show_short_labels(app, doctree):
    """Show ``[Moore]`` where the unique label is ``prefix:Moore``."""
    from docutils import nodes
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


#: The gallery: every ``python -m sympy_loads.examples.<name>``, run with
#: these options when the docs build (and only when its picture is
#: missing: delete ``_generated/gallery/`` to remake them all). The
#: command's wall time is kept in ``_generated/gallery/times.json`` and
#: shown on the gallery page with the machine it was measured on.
GALLERY = {
    'four_bar': ['--animate'],
    'slider_crank': ['--animate'],
    'bouncing_ball': [],
    'falling_rod': ['--animate'],
    'rocking_block': ['--animate'],
    'vibrating_table': ['--animate'],
    'woodpecker': ['--animate'],
    'bicycle': [],
    'bicycle_stability': [],
    'car_replacement': [],
}


def _cpu_name():
    try:
        with open('/proc/cpuinfo') as stream:
            for line in stream:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or platform.machine()


def _make_gallery(app):
    """Run each example of :data:`GALLERY` whose picture is missing into
    ``_generated/gallery/`` (its own plotting and animation code, as a
    user runs it; what it prints goes to ``<name>.txt``) and write
    ``_generated/gallery_times.rst``: one substitution ``|time <name>|``
    per example."""
    import json
    import platform
    import subprocess
    import time
    folder = os.path.join(_HERE, '_generated', 'gallery')
    os.makedirs(folder, exist_ok=True)
    times_path = os.path.join(folder, 'times.json')
    times = {}
    if os.path.exists(times_path):
        with open(times_path) as stream:
            times = json.load(stream)
    environment = dict(os.environ, MPLBACKEND='Agg')
    environment['PYTHONPATH'] = os.pathsep.join(
        [os.path.join(_HERE, '..')]
        + environment.get('PYTHONPATH', '').split(os.pathsep))
    missing = [name for name in GALLERY
               if not (os.path.exists(os.path.join(folder, name + '.png'))
                       and name in times)]
    if missing:
        # not timed: a short run first, so that numba's one-off compilation
        # of the kernels (Getting started) is not counted in an example's
        # time
        subprocess.run([sys.executable, '-m', 'sympy_loads.examples.four_bar',
                        '--duration', '0.1', '--no-plot'], cwd=folder,
                       env=environment, capture_output=True, check=True)
    for name in missing:
        options = GALLERY[name]
        command = [sys.executable, '-m', f'sympy_loads.examples.{name}',
                   '--output', folder] + options
        start = time.perf_counter()
        run = subprocess.run(command, cwd=folder, env=environment,
                             capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if run.returncode:
            raise RuntimeError(f'{" ".join(command)} failed:\n{run.stderr}')
        # what it printed, without the line naming the saved files
        with open(os.path.join(folder, name + '.txt'), 'w') as stream:
            stream.write(''.join(
                line for line in run.stdout.splitlines(keepends=True)
                if not line.startswith(('plot saved', 'animation saved'))))
        times[name] = {
            'seconds': seconds,
            'command': ' '.join(['python -m', f'sympy_loads.examples.{name}']
                                + options),
            'machine': f'{_cpu_name()}, {os.cpu_count()} cores, '
                       f'Python {platform.python_version()}, '
                       f'{time.strftime("%Y-%m-%d")}'}
        with open(times_path, 'w') as stream:
            json.dump(times, stream, indent=1)
    lines = []
    for name in GALLERY:
        entry = times[name]
        lines.append(f'.. |time {name}| replace:: '
                     f'{entry["seconds"]:.0f} s on {entry["machine"]}')
    with open(os.path.join(_HERE, '_generated', 'gallery_times.rst'),
              'w') as stream:
        stream.write('\n'.join(lines) + '\n')


# Words of a prose parameter type that name no object ("shape (m, n)",
# "sequence of load", "two str"): napoleon's tokens that are not a dotted
# Python name, or a lowercase word that is not one of Python's types.
_NAME = re.compile(r'[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*')


def _public_candidates(target):
    """Where a reference to a public object is documented: the API pages
    document every name of ``sympy_loads.__all__`` as ``sympy_loads.<name>``
    (``sympy_loads.simulate``, not ``sympy_loads.simulation.simulate``), and
    docstrings refer to them by short name or by their module's path."""
    import sympy_loads
    parts = target.lstrip('~.').split('.')
    if parts[0] == 'sympy_loads':
        parts = parts[1:]
    for i, part in enumerate(parts):
        if part in sympy_loads.__all__:
            yield 'sympy_loads.' + '.'.join(parts[i:])
            return


def _missing_reference(app, env, node, contnode):
    if node.get('refdomain') != 'py':
        return None
    target = node['reftarget']
    domain = env.get_domain('py')
    for candidate in _public_candidates(target):
        if candidate == target:
            continue
        found = domain.resolve_xref(env, node['refdoc'], app.builder,
                                    node['reftype'], candidate, node,
                                    contnode)
        if found is not None:
            return found
    if node['reftype'] == 'class' and (
            not _NAME.fullmatch(target)
            or ('.' not in target and target[:1].islower())):
        return contnode          # a word of a prose type: plain text
    return None


# The API overview (api_overview.rst) is a table of every name of
# sympy_loads.__all__, grouped by task and written when the docs build, so
# a new public name appears there without anyone remembering to add it.
# Each name goes under the first group whose module exports it; a module
# not listed here puts its names under "Other".
_API_GROUPS = [
    ('Force systems', 'Resultants, moments, couples and replacements of '
     'sets of loads.', ['force_systems']),
    ('Loads', 'SymPy actuators and load builders that go straight into '
     '``KanesMethod`` or ``System``.',
     ['actuators', 'friction', 'contact', 'aerodynamics', 'gravitation']),
    ('Generalized forces', 'Partial velocities and generalized active and '
     'inertia forces, by hand.', ['generalized_forces']),
    ('Constraints', 'Solve holonomic constraints numerically.',
     ['constraints']),
    ('Simulation', 'Integrate the equations of motion of a ``KanesMethod`` '
     'or ``System``.', ['simulation', 'impacts', 'joints',
                          'joint_friction']),
    ('Linear analysis', 'Equilibria, linearized equations and eigenvalues.',
     ['linear']),
    ('Studies', 'Many simulations at once.', ['parameter_study']),
    ('Animation', 'Draw a simulated mechanism.', ['animation']),
]


def _first_sentence(text):
    text = ' '.join((text or '').strip().split('\n\n')[0].split())
    end = re.search(r'(?<!\be\.g)(?<!\bi\.e)(?<!\bal)\.(\s|$)', text)
    return text if end is None else text[:end.start() + 1]


def _comment_doc(source, name):
    """The ``#:`` comment above ``name = ...`` in ``source`` (how the
    package documents its constants, as autodoc reads them)."""
    lines = source.splitlines()
    for i, line in enumerate(lines):
        if re.match(rf'{name}\s*=', line):
            comment = []
            while i > 0 and lines[i - 1].lstrip().startswith('#:'):
                i -= 1
                comment.insert(0, lines[i].lstrip()[2:].strip())
            return ' '.join(comment)
    return ''


def _api_overview_table():
    """reStructuredText of the overview: one section per group, one table
    row per public name (a link and the first sentence of its
    docstring)."""
    import importlib
    import inspect

    import sympy_loads
    rows = {title: [] for title, _, _ in _API_GROUPS}
    rows['Other'] = []
    modules = []
    for title, _, names in _API_GROUPS:
        for name in names:
            try:
                modules.append((title, importlib.import_module(
                    f'sympy_loads.{name}')))
            except ImportError:
                pass
    for name in sympy_loads.__all__:
        obj = getattr(sympy_loads, name)
        group = next((title for title, module in modules
                      if getattr(module, name, None) is obj), 'Other')
        if inspect.isclass(obj):
            role, doc = 'class', inspect.getdoc(obj)
        elif callable(obj):
            role, doc = 'func', inspect.getdoc(obj)
        else:
            role = 'data'
            home = next(module for title, module in modules
                        if getattr(module, name, None) is obj)
            doc = _comment_doc(inspect.getsource(home), name)
        rows[group].append((role, name, _first_sentence(doc)))
    out = []
    for title, intro, _ in _API_GROUPS + [('Other', '', [])]:
        if not rows[title]:
            continue
        out += [title, '-'*len(title), '', intro, '',
                '.. list-table::', '   :widths: 30 70', '']
        for role, name, line in rows[title]:
            out += [f'   * - :{role}:`~sympy_loads.{name}`', f'     - {line}']
        out.append('')
    return '\n'.join(out)


def _write_api_overview(app):
    path = os.path.join(_HERE, '_generated', 'api_overview_table.rst')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = _api_overview_table()
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, 'w') as stream:
            stream.write(text)


def setup(app):
    app.connect('builder-inited', _write_api_overview)
    app.connect('missing-reference', _missing_reference, priority=900)
    app.connect('builder-inited', _make_gallery)
    app.connect('autodoc-process-docstring', _docstring_citations)
    app.connect('env-purge-doc', _forget_page_labels)
    app.connect('source-read', _page_citations)
    app.connect('doctree-read', _show_short_labels)
