"""Write the intersphinx inventories shipped in ``docs/_intersphinx/``.

The documentation links SymPy, NumPy, SciPy, Matplotlib, pandas and Python names
to their online documentation with ``sphinx.ext.intersphinx``. Its
inventories (``objects.inv``: name -> page and anchor) are shipped here so
that the build needs no network. This script regenerates them; nothing in
the build runs it.

``python.inv``, ``scipy.inv``
    Copies of the inventories of Debian's ``python3.11-doc`` and
    ``python-scipy-doc`` packages (the official Sphinx builds of the
    Python 3.11 and SciPy 1.10 documentation)::

        apt-get download python3.11-doc python-scipy-doc
        dpkg-deb -x python3.11-doc_*.deb ex; dpkg-deb -x python-scipy-doc_*.deb ex
        python make_inventories.py --python ex/usr/share/doc/python3.11/html/objects.inv \\
            --scipy ex/usr/share/doc/python-scipy-doc/html/objects.inv

``sympy.inv``
    Built with Sphinx from the pages of SymPy's own documentation sources
    (``doc/src`` of a SymPy checkout) that document the objects this
    project refers to (core, matrices, elementary functions, lambdify, and
    all of ``physics/vector`` and ``physics/mechanics``), against the
    installed SymPy: the pages keep their paths, so the anchors are those
    of https://docs.sympy.org/latest/::

        python make_inventories.py --sympy-doc-src /path/to/sympy/doc/src

``numpy.inv``, ``matplotlib.inv``, ``pandas.inv``
    Written from the short lists below, which follow the page layout of
    the NumPy, Matplotlib and pandas documentation
    (``reference/generated/<name>``, ``api/_as_gen/<name>`` and
    ``reference/api/<name>``). Add a name here when the documentation
    refers to one that is missing (``sphinx -n`` reports it) and run the
    script without arguments.
"""

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import zlib

HERE = pathlib.Path(__file__).resolve().parent

#: SymPy documentation pages (relative to ``doc/src``) built for the
#: inventory.
SYMPY_PAGES = [
    'modules/core.rst',
    'modules/functions/elementary.rst',
    'modules/matrices/matrices.rst',
    'modules/matrices/dense.rst',
    'modules/matrices/immutablematrices.rst',
    'modules/utilities/lambdify.rst',
    'modules/simplify/simplify.rst',
    'modules/physics/vector/api/*.rst',
    'modules/physics/mechanics/api/*.rst',
]

#: (name, role, page) of the NumPy objects referred to.
NUMPY = [
    ('numpy', 'py:module', 'reference/index.html#module-numpy'),
    ('numpy.ndarray', 'py:class', None),
    ('numpy.array', 'py:function', None),
    ('numpy.asarray', 'py:function', None),
    ('numpy.linspace', 'py:function', None),
    ('numpy.sign', 'py:data', None),
    ('numpy.tanh', 'py:data', None),
    ('numpy.arctan', 'py:data', None),
    ('numpy.linalg.solve', 'py:function', None),
    ('numpy.linalg.lstsq', 'py:function', None),
    ('numpy.linalg.svd', 'py:function', None),
    ('numpy.linalg.eig', 'py:function', None),
    ('numpy.linalg.eigvals', 'py:function', None),
    ('numpy.linalg.pinv', 'py:function', None),
    ('numpy.random.Generator', 'py:class', None),
    ('numpy.random.default_rng', 'py:function', None),
    ('array_like', 'std:term', 'glossary.html#term-array_like'),
]

#: (name, role) of the Matplotlib objects referred to.
MATPLOTLIB = [
    ('matplotlib.animation.Animation', 'py:class'),
    ('matplotlib.animation.FuncAnimation', 'py:class'),
    ('matplotlib.animation.PillowWriter', 'py:class'),
    ('matplotlib.axes.Axes', 'py:class'),
    ('matplotlib.pyplot.subplots', 'py:function'),
]

#: (name, role, page) of the pandas objects referred to (its
#: ``reference/api/<name>`` layout).
PANDAS = [
    ('pandas.DataFrame', 'py:class', None),
]


def write_inventory(path, project, version, entries):
    """Write a version 2 inventory of ``entries`` (name, role, uri)."""
    header = (f'# Sphinx inventory version 2\n# Project: {project}\n'
              f'# Version: {version}\n'
              f'# The remainder of this file is compressed using zlib.\n')
    body = ''.join(f'{name} {role} 1 {uri} -\n'
                   for name, role, uri in sorted(entries))
    with open(path, 'wb') as stream:
        stream.write(header.encode())
        stream.write(zlib.compress(body.encode()))


def numpy_entries():
    for name, role, page in NUMPY:
        yield name, role, page or f'reference/generated/{name}.html#{name}'


def pandas_entries():
    for name, role, page in PANDAS:
        yield name, role, page or f'reference/api/{name}.html#{name}'


def matplotlib_entries():
    for name, role in MATPLOTLIB:
        yield name, role, f'api/_as_gen/{name}.html#{name}'


_SYMPY_CONF = '''
extensions = ['sphinx.ext.autodoc', 'sphinx.ext.mathjax']
project = 'SymPy'
import sympy
version = release = sympy.__version__
exclude_patterns = ['_build']
suppress_warnings = ['*']
'''


def build_sympy(doc_src, out):
    """Build the chosen pages of SymPy's documentation and copy the
    inventory to ``out``."""
    doc_src = pathlib.Path(doc_src)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        pages = []
        for pattern in SYMPY_PAGES:
            for page in sorted(doc_src.glob(pattern)):
                target = tmp/page.relative_to(doc_src)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(page, target)
                pages.append(page.relative_to(doc_src).with_suffix(''))
        (tmp/'conf.py').write_text(_SYMPY_CONF)
        (tmp/'index.rst').write_text(
            'SymPy\n=====\n\n.. toctree::\n\n'
            + ''.join(f'   {p.as_posix()}\n' for p in pages))
        subprocess.run([sys.executable, '-m', 'sphinx', '-q', '-b', 'html',
                        str(tmp), str(tmp/'_build')], check=True,
                       stderr=subprocess.DEVNULL)
        entries = with_public_names(tmp/'_build'/'objects.inv')
    import sympy
    write_inventory(out, 'SymPy', sympy.__version__, entries)


def with_public_names(path):
    """The py entries of the inventory at ``path``, plus the names under
    which SymPy exports the same objects (``sympy.physics.mechanics.
    KanesMethod`` for ``sympy.physics.mechanics.kane.KanesMethod``,
    ``sympy.Matrix``, ...), pointing to the same anchors."""
    import importlib

    from sphinx.util.inventory import InventoryFile

    with open(path, 'rb') as stream:
        inventory = InventoryFile.load(stream, '', lambda base, uri: uri)
    entries = {}
    for role, items in inventory.items():
        if not role.startswith('py:'):
            continue
        for name, item in items.items():
            uri = item[2] if isinstance(item, tuple) else item.uri
            entries[(name, role)] = uri
    namespaces = [importlib.import_module(name) for name in
                  ('sympy', 'sympy.physics.vector',
                   'sympy.physics.mechanics')]
    for (name, role), uri in list(entries.items()):
        if role not in ('py:class', 'py:function', 'py:data',
                        'py:attribute'):
            continue
        short = name.rsplit('.', 1)[-1]
        module_name, _, attribute = name.rpartition('.')
        try:
            target = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError):
            continue
        alias_role = 'py:class' if isinstance(target, type) else role
        for namespace in namespaces:
            if getattr(namespace, short, None) is target:
                entries.setdefault(
                    (f'{namespace.__name__}.{short}', alias_role), uri)
    return [(name, role, uri) for (name, role), uri in entries.items()]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--sympy-doc-src', help="SymPy's doc/src folder")
    parser.add_argument('--python', help="Python's objects.inv to copy")
    parser.add_argument('--scipy', help="SciPy's objects.inv to copy")
    args = parser.parse_args(argv)
    write_inventory(HERE/'numpy.inv', 'NumPy', 'stable', numpy_entries())
    write_inventory(HERE/'matplotlib.inv', 'Matplotlib', 'stable',
                    matplotlib_entries())
    write_inventory(HERE/'pandas.inv', 'pandas', 'stable', pandas_entries())
    if args.python:
        shutil.copy(args.python, HERE/'python.inv')
    if args.scipy:
        shutil.copy(args.scipy, HERE/'scipy.inv')
    if args.sympy_doc_src:
        build_sympy(args.sympy_doc_src, HERE/'sympy.inv')
    print('wrote', ', '.join(sorted(os.listdir(HERE))))


if __name__ == '__main__':
    main()
