"""The documentation's front door stays complete: every runnable example is
in the gallery (with its picture made at build time) and in the API
reference, and every public name is in the API overview."""

import contextlib
import doctest
import importlib
import importlib.util
import io
import json
import pathlib
import re
import shlex
import shutil
import subprocess
import textwrap

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


# ---------------------------------------------------------------------------
# Copying code from the pages (issue 39): the copy button strips the
# prompts, and every block it is offered on runs as pasted.

RST_PAGES = sorted(DOCS.glob('*.rst')) + sorted(DOCS.glob('tutorials/*.rst'))
# languages whose blocks the copy button is not offered on (conf.py's
# copybutton_selector): sketches, formulas and printed output
NOT_COPYABLE = {'text', 'none'}
SHELL = {'bash', 'sh', 'shell', 'console'}
_DIRECTIVE = re.compile(r'^(\s*)\.\. ([\w-]+)::\s*(.*)$')


def _indented_body(lines, start, indent):
    """The lines after ``start`` that are blank or indented more than
    ``indent``, options (``:name: value``) and trailing blanks removed,
    dedented."""
    body, i = [], start
    while i < len(lines) and (not lines[i].strip()
                              or len(lines[i]) - len(lines[i].lstrip())
                              > indent):
        body.append(lines[i])
        i += 1
    options, option_indent = {}, None
    while body and (not body[0].strip()
                    or re.match(r'\s*:[\w-]+:', body[0])
                    or (option_indent is not None and len(body[0])
                        - len(body[0].lstrip()) > option_indent)):
        line = body.pop(0)
        match = re.match(r'(\s*):([\w-]+):\s*(.*)', line)
        if match:
            option_indent = len(match.group(1))
            options[match.group(2)] = match.group(3).strip()
        elif not line.strip():
            option_indent = None
    text = textwrap.dedent('\n'.join(body)).strip('\n')
    return text, options, i


def code_blocks(path):
    """``(line, language, text)`` of every literal block of the page that
    is shown as code: ``code-block``/``code``/``sourcecode`` (their
    language), ``doctest`` and ``testcode`` (Python), ``plot`` with its
    source shown, paragraphs ending in ``::`` (the default language,
    Python) and bare ``>>>`` paragraphs (doctest blocks)."""
    lines = path.read_text(encoding='utf-8').splitlines()
    blocks, i = [], 0
    while i < len(lines):
        line = lines[i]
        match = _DIRECTIVE.match(line)
        indent = len(line) - len(line.lstrip())
        if match and match.group(2) in ('code-block', 'code', 'sourcecode',
                                        'doctest', 'testcode', 'plot'):
            text, options, end = _indented_body(lines, i + 1, indent)
            kind = match.group(2)
            language = (match.group(3).strip() or 'python'
                        if kind in ('code-block', 'code', 'sourcecode')
                        else 'python')
            shown = not (kind == 'plot' and options.get(
                'include-source', 'true').lower() in ('false', 'no', '0'))
            if shown and text:
                blocks.append((i + 1, language, text))
            i = end
            continue
        if match:
            # any other directive: its body is not a literal block
            i = _indented_body(lines, i + 1, indent)[2]
            continue
        if line.rstrip().endswith('::') and not line.lstrip().startswith(
                '..'):
            text, _, end = _indented_body(lines, i + 1, indent)
            blocks.append((i + 1, 'python', text))
            i = end
            continue
        if line.lstrip().startswith('>>> ') and indent == 0:
            start = i
            while i < len(lines) and lines[i].strip():
                i += 1
            blocks.append((start + 1, 'python',
                           '\n'.join(lines[start:i])))
            continue
        i += 1
    return blocks


def _copied(conf, text):
    """What the copy button puts on the clipboard for ``text``
    (sphinx-copybutton's rule: with a prompt in the block and
    ``copybutton_only_copy_prompt_lines``, the lines that start with a
    prompt, without it, and the empty lines; otherwise the whole
    block)."""
    prompt = conf.copybutton_prompt_text
    if not conf.copybutton_prompt_is_regexp:
        prompt = re.escape(prompt)
    prompt = re.compile(prompt)
    lines = text.splitlines()
    if not any(prompt.match(line) for line in lines):
        return text
    kept = [line for line in lines if prompt.match(line) or not line.strip()
            or not conf.copybutton_only_copy_prompt_lines]
    return '\n'.join(prompt.sub('', line, count=1)
                     for line in kept).strip('\n')


def test_copy_button_strips_the_python_prompts(conf):
    assert 'sphinx_copybutton' in conf.extensions
    assert conf.copybutton_prompt_is_regexp
    prompt = re.compile(conf.copybutton_prompt_text)
    for line, code in [('>>> x = 1', 'x = 1'), ('... y = 2', 'y = 2')]:
        match = prompt.match(line)
        assert match and line[match.end():] == code
    # output lines (not prompts) are not copied
    assert conf.copybutton_only_copy_prompt_lines
    assert prompt.match('1.0') is None and prompt.match('...') is None
    assert _copied(conf, '>>> a = 1\n>>> a\n1\n>>> for i in [a]:\n'
                         '...     b = i\n') == (
        'a = 1\na\nfor i in [a]:\n    b = i')
    # sketches and printed output carry no copy button
    assert ':not(.highlight-text)' in conf.copybutton_selector
    # the extension is in the docs extra
    pyproject = (DOCS.parent / 'pyproject.toml').read_text()
    docs_extra = re.search(r'^docs = \[(.*?)\]\n', pyproject,
                           re.MULTILINE | re.DOTALL).group(1)
    assert '"sphinx-copybutton' in docs_extra


def test_the_page_parser_finds_every_kind_of_block():
    page = DOCS / 'tutorials' / 'closed_loop_simulation.rst'
    languages = {language for _, language, _ in code_blocks(page)}
    assert 'python' in languages
    assert len(code_blocks(page)) >= 5


def _example_help(name):
    module = importlib.import_module(f'sympy_loads.examples.{name}')
    output = io.StringIO()
    with contextlib.redirect_stdout(output), pytest.raises(SystemExit):
        module.main(['--help'])
    return output.getvalue()


def _check_shell(text, where):
    check = subprocess.run(['bash', '-n'], input=text, text=True,
                           capture_output=True)
    assert check.returncode == 0, f'{where}: {check.stderr}'
    for command in text.splitlines():
        command = command.split('#')[0].strip()
        assert not command.startswith('$'), f'{where}: a shell prompt'
        words = shlex.split(command)
        if words[:2] == ['python', '-m'] and words[2].startswith(
                'sympy_loads.examples.'):
            name = words[2].rsplit('.', 1)[1]
            options = _example_help(name)
            for word in words[3:]:
                assert not word.startswith('['), f'{where}: {command}'
                if word.startswith('--'):
                    assert word.split('=')[0] in options, (
                        f'{where}: {name} has no option {word}')


@pytest.mark.parametrize('page', RST_PAGES,
                         ids=[str(p.relative_to(DOCS)) for p in RST_PAGES])
def test_every_copyable_block_runs_as_pasted(page, conf):
    """Python blocks compile as the copy button copies them (doctests run
    with ``sphinx -b doctest``; here the copied text itself must be valid
    Python); shell blocks are valid shell and name only options the
    example has; anything else is marked ``text`` (no copy button)."""
    for line, language, text in code_blocks(page):
        where = f'{page.relative_to(DOCS)}:{line}'
        if language in NOT_COPYABLE:
            continue
        if language in SHELL:
            _check_shell(text, where)
            continue
        assert language in ('python', 'python3', 'pycon'), (
            f'{where}: a {language!r} block: mark it text or shell')
        compile(_copied(conf, text), where, 'exec')


# ---------------------------------------------------------------------------
# The examples' code on the pages (issue 39)

def _gallery_sections():
    """``{example name: its section of gallery.rst}``, by the section's
    ``python -m sympy_loads.examples.<name>`` line."""
    text = (DOCS / 'gallery.rst').read_text()
    parts = re.split(r'\n(?=[^\n]+\n-{3,}\n)', text)
    sections = {}
    for part in parts:
        found = re.search(r'python -m sympy_loads\.examples\.(\w+)', part)
        if found and re.match(r'[^\n]+\n-{3,}\n', part):
            sections[found.group(1)] = part
    return sections


@pytest.mark.parametrize('name', [name for name, _ in examples()])
def test_every_gallery_entry_shows_its_model_building_code(name):
    """Each entry includes, by ``:pyobject:``, a public function of its
    example module that exists in that file (a renamed function would
    otherwise leave an empty or stale block)."""
    section = _gallery_sections()[name]
    includes = re.findall(
        r'\.\. literalinclude:: \.\./sympy_loads/examples/(\w+)\.py\n'
        r'   :pyobject: (\w+)', section)
    assert (name, ) in [(file, ) for file, _ in includes], (
        f'the gallery entry of {name} includes no code of its module')
    module = importlib.import_module(f'sympy_loads.examples.{name}')
    for file, function in includes:
        source = (DOCS.parent / 'sympy_loads' / 'examples' / f'{file}.py')
        assert re.search(rf'^def {function}\(', source.read_text(),
                         re.MULTILINE), f'{file}.py has no {function}'
        if file == name:
            assert not function.startswith('_')
            assert callable(getattr(module, function))


@pytest.mark.parametrize('page', RST_PAGES,
                         ids=[str(p.relative_to(DOCS)) for p in RST_PAGES])
def test_pages_import_only_public_names(page):
    """What a page tells a reader to import is public: no module or name
    with a leading underscore of the package."""
    text = page.read_text(encoding='utf-8')
    private = re.findall(r'(?:from|import) sympy_loads[\w.]*\._\w+', text)
    private += re.findall(r'from sympy_loads[\w.]* import \(?\s*_\w+', text)
    assert not private, f'{page.name} imports {private}'


def test_the_bicycle_example_offers_what_the_stability_tutorial_needs():
    from sympy_loads.examples import _whipple, bicycle
    assert bicycle.MEIJAARD_EIGENVALUES_5MS is (
        _whipple.MEIJAARD_EIGENVALUES_5MS)
    assert (bicycle.MEIJAARD_WEAVE_SPEED, bicycle.MEIJAARD_CAPSIZE_SPEED) == (
        _whipple.MEIJAARD_WEAVE_SPEED, _whipple.MEIJAARD_CAPSIZE_SPEED)
    reference = (DOCS / 'api' / 'examples.rst').read_text()
    assert '.. automodule:: sympy_loads.examples.bicycle\n   :members:' in (
        reference)


# ---------------------------------------------------------------------------
# The front page and the navigation (issue 39)

INDEX = DOCS / 'index.rst'
EVIDENCE_HEADING = 'Checked against published results'


def _section(text, heading):
    start = text.index(f'\n{heading}\n') + 1
    rest = text[start + len(heading) + 1:]
    following = re.search(r'\n[^\n]+\n[-=~]{3,}\n', rest[1:])
    return rest if following is None else rest[:following.start() + 1]


def test_front_page_sells():
    """Three lines of what it does, an install line, a picture made by
    the gallery, the evidence, then the entry points, in that order."""
    text = INDEX.read_text()
    install = text.index('python -m pip install')
    code = text.index('.. doctest::')
    picture = re.search(r'\.\. (image|figure):: /_generated/gallery/(\w+)'
                        r'\.(png|gif)', text)
    assert picture, 'no picture from the gallery'
    evidence = text.index(f'\n{EVIDENCE_HEADING}\n')
    entry = text.index('\nWhere to go\n')
    assert install < code < evidence < entry
    assert picture.start() < evidence
    entries = _section(text, 'Where to go')
    for page in ('getting_started', 'gallery', 'api_overview'):
        assert f':doc:`{page}`' in entries
    # what it does, before anything else: at most three sentences
    pitch = text.split('\n\n')[1]
    assert pitch.count('. ') + 1 <= 4 and 'SymPy' in pitch
    # the picture is one the gallery's examples write
    spec = importlib.util.spec_from_file_location('docs_conf_index',
                                                  DOCS / 'conf.py')
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    assert any(picture.group(2).startswith(name) for name in conf.GALLERY)


def test_front_page_example_prints_what_it_shows():
    """The front page's code runs (as ``sphinx -b doctest`` runs it) and
    agrees with the closed form it prints beside."""
    text = INDEX.read_text()
    block = re.search(r'\.\. doctest::\n\n((?:   .*\n|\n)+)', text).group(1)
    session = textwrap.dedent(block)
    test = doctest.DocTestParser().get_doctest(session, {}, 'index.rst',
                                               str(INDEX), 0)
    assert len(test.examples) >= 5
    result = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE).run(test)
    assert result.failed == 0


def test_front_page_evidence_quotes_its_sources():
    """Every figure of the evidence is found, as written, in a file the
    same item names (a test, a benchmark, a tutorial, the README): no
    number on the front page that the project does not check."""
    evidence = _section(INDEX.read_text(), EVIDENCE_HEADING)
    items = re.split(r'\n(?=\* )', evidence.strip())
    items = [item for item in items if item.startswith('* ')]
    assert len(items) >= 4
    for required in ('Meijaard', 'IFToMM', 'KanesMethod.linearize'):
        assert required in evidence
    root = DOCS.parent
    for item in items:
        paths = re.findall(r'``([\w/.-]+\.(?:py|md|rst))``', item)
        paths += [f'docs/{doc}.rst'
                  for doc in re.findall(r':doc:`(?:[^`<]*<)?([\w/]+)>?`',
                                        item)]
        assert paths, f'an evidence item names no source: {item[:60]}'
        sources = ''.join((root / path).read_text() for path in paths)
        numbers = re.findall(r'(?<![\w.])(\d+(?:\.\d+)?e-\d+|\d+\.\d{4,})',
                             item)
        assert numbers, f'an evidence item has no figure: {item[:60]}'
        for number in numbers:
            assert number in sources, (number, paths)


TASK_GROUPS = ['Start here', 'Loads and force systems',
               'Constraints and simulation',
               'Contact, impacts and friction', 'Analysis and control',
               'API reference']


def _toctrees(text):
    """``{caption: [entries]}`` of the page's toctrees."""
    trees = {}
    for match in re.finditer(r'\.\. toctree::\n((?:   .*\n|\n)+)', text):
        body = match.group(1)
        caption = re.search(r':caption: (.*)', body).group(1).strip()
        trees[caption] = [line.strip() for line in body.splitlines()
                          if line.strip() and not line.strip().startswith(
                              ':')]
    return trees


def test_navigation_is_grouped_by_task():
    trees = _toctrees(INDEX.read_text())
    for group in TASK_GROUPS:
        assert group in trees, group
    # explanations apart from the guides, as in SymPy's documentation
    assert any('Explanation' in caption for caption in trees)
    entries = [entry for tree in trees.values() for entry in tree]
    pages = {str(path.relative_to(DOCS).with_suffix(''))
             for path in DOCS.glob('**/*.rst')
             if '_build' not in path.parts and '_generated' not in path.parts
             and path.name != 'index.rst'}
    assert sorted(entries) == sorted(set(entries)), 'a page listed twice'
    assert set(entries) == pages
    # no group is a long flat list
    assert max(len(tree) for caption, tree in trees.items()
               if caption != 'API reference') <= 6
    # the place the frictional-contacts tutorial goes (issue 37)
    contact = trees['Contact, impacts and friction']
    assert 'tutorials/contact' in contact
    assert 'tutorials/rigid_impacts' in contact


# ---------------------------------------------------------------------------
# Smaller items of issue 39: phones, signatures, favicon, figures

def test_stylesheet_keeps_signatures_and_phones_in_shape(conf):
    """The stylesheet is loaded, keeps each parameter of a signature on
    one line (a default ``1e-12`` was broken after its minus sign) and,
    on a phone, wraps table cells and scrolls code inside its box."""
    assert conf.html_css_files, 'no stylesheet of the project'
    css = ''.join((DOCS / '_static' / name).read_text()
                  for name in conf.html_css_files)
    assert '_static' in conf.html_static_path
    rule = re.search(r'\.sig \.sig-param[^{]*\{([^}]*)\}', css)
    assert rule and 'white-space: nowrap' in rule.group(1)
    phone = re.search(r'@media \(max-width: (\d+)em\)', css)
    assert phone and int(phone.group(1))*16 >= 390
    assert 'overflow-wrap: anywhere' in css
    assert re.search(r'div\.highlight pre\s*\{[^}]*overflow-x: auto', css)
    assert re.search(r'div\.highlight pre\s*\{[^}]*white-space: pre-wrap',
                     css)
    # the API overview's tables (list-table with :widths:, which Sphinx
    # wraps in div.table-wrapper.colwidths-given) stack their two cells
    assert re.search(r'div\.colwidths-given > table td[^{]*\{[^}]*'
                     r'display: block', css)


def test_favicon(conf):
    path = DOCS / conf.html_favicon
    assert path.exists()
    assert path.read_text().lstrip().startswith('<svg')


def test_no_ascii_sketch_of_the_slider_crank():
    """The slider-crank of the constraint-kinematics guide is a drawn
    figure, not characters."""
    page = (DOCS / 'tutorials' / 'constraint_kinematics.rst').read_text()
    assert '|   r /  \\ l' not in page
    first_block = page.index('.. doctest::')
    assert page.index('.. plot::') < first_block


def test_copied_text_is_what_the_copy_button_copies(conf, tmp_path):
    """``_copied`` (the rule the checks above rely on) gives what
    sphinx-copybutton's own JavaScript gives, run by Node on every Python
    block of the front page and the stability tutorial."""
    node = shutil.which('node')
    spec = importlib.util.find_spec('sphinx_copybutton')
    if node is None or spec is None:
        pytest.skip('needs Node and sphinx-copybutton')
    funcs = (pathlib.Path(spec.origin).parent / '_static'
             / 'copybutton_funcs.js')
    (tmp_path / 'funcs.mjs').write_text(funcs.read_text())
    (tmp_path / 'copy.mjs').write_text(
        "import { formatCopyText } from './funcs.mjs';\n"
        "import fs from 'fs';\n"
        "const [text, prompt, regexp, only] = JSON.parse("
        "fs.readFileSync(0, 'utf8'));\n"
        "process.stdout.write(formatCopyText(text, prompt, regexp, only, "
        "true, true, '', ''));\n")
    pages = [DOCS / 'index.rst', DOCS / 'tutorials' / 'stability_control.rst']
    blocks = [text for page in pages
              for _, language, text in code_blocks(page)
              if language == 'python']
    assert len(blocks) >= 5
    for text in blocks:
        run = subprocess.run(
            [node, str(tmp_path / 'copy.mjs')], capture_output=True,
            text=True, check=True, input=json.dumps([
                text, conf.copybutton_prompt_text,
                conf.copybutton_prompt_is_regexp,
                conf.copybutton_only_copy_prompt_lines]))
        assert run.stdout.strip('\n') == _copied(conf, text)
