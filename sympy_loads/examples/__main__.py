"""List the runnable examples: ``python -m sympy_loads.examples``.

Each example is a module of this package run as
``python -m sympy_loads.examples.<name>`` (``--help`` tells its options);
the list gives its name and the first sentence of its description.
"""

import importlib
import pkgutil
import re
import sys

import sympy_loads.examples as _package


def first_sentence(doc):
    """The first sentence of the docstring ``doc``, on one line, without
    reStructuredText markup.

    Examples
    ========

    >>> from sympy_loads.examples.__main__ import first_sentence
    >>> first_sentence('''The bicycle of Meijaard et al. (2007). More.''')
    'The bicycle of Meijaard et al. (2007).'
    """
    from sympy_loads.examples._report import one_line
    text = one_line(doc or '')
    end = re.search(r'(?<!\bal)(?<!e\.g)(?<!i\.e)\.(\s|$)', text)
    return text if end is None else text[:end.start() + 1]


def examples():
    """``[(name, description)]`` of the examples, sorted by name.

    Examples
    ========

    >>> from sympy_loads.examples.__main__ import examples
    >>> dict(examples())['four_bar']
    "Moore's four-bar linkage with gravity and a spring-damper, simulated with sympy_loads.simulate."
    """
    found = []
    for info in pkgutil.iter_modules(_package.__path__):
        if info.name.startswith('_'):
            continue
        module = importlib.import_module(f'{_package.__name__}.{info.name}')
        found.append((info.name, first_sentence(module.__doc__)))
    return sorted(found)


def main(argv=None):
    """Print the list of examples; returns it.

    Examples
    ========

    >>> from sympy_loads.examples.__main__ import main
    >>> _ = main()        # doctest: +ELLIPSIS
    Examples (run one with: python -m sympy_loads.examples.<name> [--help]):
      bicycle          The Whipple bicycle of Meijaard et al. (2007): ...
    ...
      four_bar         Moore's four-bar linkage with gravity and a ...
    ...
    """
    listing = examples()
    print('Examples (run one with: python -m sympy_loads.examples.<name> '
          '[--help]):')
    width = max(len(name) for name, _ in listing)
    for name, description in listing:
        print(f'  {name:<{width}}  {description}')
    return listing


if __name__ == '__main__':
    main(sys.argv[1:])
