"""The README's code works as printed: its Python sessions run as doctests
(the output shown is what Python prints), and every example module it
names exists and has a command line."""

import doctest
import importlib
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / 'README.md'


def _blocks(language):
    text = README.read_text(encoding='utf-8')
    return re.findall(rf'```{language}\n(.*?)```', text, flags=re.DOTALL)


def test_readme_has_a_python_session():
    assert len(_blocks('pycon')) >= 1


@pytest.mark.parametrize('index', range(len(_blocks('pycon'))))
def test_readme_python_session_prints_what_it_shows(index):
    session = _blocks('pycon')[index]
    parser = doctest.DocTestParser()
    test = parser.get_doctest(session, {}, f'README.md[{index}]',
                              str(README), 0)
    assert test.examples, 'the session has no >>> examples'
    runner = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE)
    result = runner.run(test)
    assert result.failed == 0, f'{result.failed} README example(s) failed'


def test_readme_commands_name_existing_examples():
    commands = '\n'.join(_blocks('bash')) + README.read_text(
        encoding='utf-8')
    names = set(re.findall(r'python -m sympy_loads\.examples\.(\w+)',
                           commands))
    assert {'bicycle', 'four_bar', 'slider_crank', 'bouncing_ball',
            'car_replacement'} <= names
    for name in names:
        module = importlib.import_module(f'sympy_loads.examples.{name}')
        assert callable(module.main), name


def test_readme_install_command_installs_the_examples_extra():
    text = README.read_text(encoding='utf-8')
    assert 'python -m pip install ".[examples]"' in text
    assert 'python -m pip install -e ".[test]" && python -m pytest -q' in text


def test_readme_names_every_example():
    from sympy_loads.examples.__main__ import examples
    text = README.read_text(encoding='utf-8')
    for name, _ in examples():
        assert f'python -m sympy_loads.examples.{name}' in text, name


def test_python_requirement_agrees_with_pyproject_and_getting_started():
    """README, Getting started and pyproject's requires-python state the
    same lowest Python."""
    root = README.parent
    pyproject = (root / 'pyproject.toml').read_text(encoding='utf-8')
    lowest = re.search(r'requires-python = ">=(\d+\.\d+)"',
                       pyproject).group(1)
    text = README.read_text(encoding='utf-8')
    stated = set(re.findall(r'Python (\d+\.\d+)', text))
    assert stated == {lowest}, stated
    assert f'Python {lowest} or newer' in text
    guide = root / 'docs' / 'getting_started.rst'
    if guide.exists():
        assert f'Python {lowest} or newer' in guide.read_text(
            encoding='utf-8')
