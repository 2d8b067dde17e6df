"""The documentation's front door stays complete: every runnable example is
in the gallery (with its picture made at build time) and in the API
reference, and every public name is in the API overview."""

import importlib.util
import pathlib
import pytest

import sympy_loads
from sympy_loads.examples.__main__ import examples

DOCS = pathlib.Path(__file__).resolve().parent.parent / 'docs'


@pytest.fixture(scope='module')
def conf():
    if not DOCS.exists():
        pytest.skip('the docs are not beside the tests')
    spec = importlib.util.spec_from_file_location('docs_conf',
                                                  DOCS / 'conf.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize('name', [name for name, _ in examples()])
def test_every_example_is_in_the_gallery_and_the_api_reference(name, conf):
    assert name in conf.GALLERY
    gallery = (DOCS / 'gallery.rst').read_text()
    assert f'python -m sympy_loads.examples.{name}' in gallery
    assert f':mod:`sympy_loads.examples.{name}`' in gallery
    assert f'|time {name}|' in gallery
    assert f'.. image:: /_generated/gallery/{name}.png' in gallery
    reference = (DOCS / 'api' / 'examples.rst').read_text()
    assert f'.. automodule:: sympy_loads.examples.{name}\n' in reference


def test_every_public_name_is_in_the_api_overview(conf):
    table = conf._api_overview_table()
    for name in sympy_loads.__all__:
        assert f'`~sympy_loads.{name}`' in table, name
    assert '\nOther\n' not in table, 'a public module is not in _API_GROUPS'
