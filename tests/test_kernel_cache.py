"""Tests of the on-disk cache of the generic numba kernels
(sympy_loads/_numeric/kernel_cache.py): private directories, authenticated
files, damaged entries rebuilt, untrusted directories refused. Each test
compiles a small kernel into a fresh cache directory (``NUMBA_CACHE_DIR``
set through numba's configuration for the test)."""

import importlib.util
import os
import pickle
import stat
import sys
import textwrap
import warnings

import numpy as np
import pytest

numba = pytest.importorskip('numba')
if os.name != 'posix':
    pytest.skip('the directory checks need POSIX user ids and modes',
                allow_module_level=True)

from numba.core import config  # noqa: E402

from sympy_loads._numeric import kernel_cache  # noqa: E402
from sympy_loads._numeric.jit import jit  # noqa: E402

KERNEL = textwrap.dedent('''
    from sympy_loads._numeric.jit import jit

    @jit
    def axpy(a, x, y):
        return a * x + y
''')


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh NUMBA_CACHE_DIR (numba reads it through config.CACHE_DIR)."""
    directory = tmp_path / 'numba-cache'
    monkeypatch.setattr(config, 'CACHE_DIR', str(directory))
    monkeypatch.setattr(kernel_cache, '_warned', set())
    return directory


_loaded = [0]


def load_kernel(source_dir):
    """Import a fresh copy of the module with the ``axpy`` kernel (a new
    dispatcher, as in a new process)."""
    path = source_dir / 'kernel_module.py'
    if not path.exists():
        path.write_text(KERNEL)
    _loaded[0] += 1
    name = f'_sympy_loads_cache_test_{_loaded[0]}'
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.axpy


def entry_files(cache_dir):
    [folder] = [p for p in cache_dir.iterdir() if p.is_dir()]
    return folder, sorted(folder.glob('*.nbi')), sorted(folder.glob('*.nbc'))


def hits_and_misses(kernel):
    return (sum(kernel.stats.cache_hits.values()),
            sum(kernel.stats.cache_misses.values()))


def test_entries_are_private_and_sealed(tmp_path, cache_dir):
    kernel = load_kernel(tmp_path)
    assert kernel(2.0, 3.0, 1.0) == 7.0
    folder, index, data = entry_files(cache_dir)
    assert len(index) == 1 and len(data) == 1
    # created 0700 (the cache root and the kernels' folder), key 0600
    for directory in (cache_dir, folder):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    key = folder / kernel_cache.KEY_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert key.stat().st_size == 32
    for path in index + data:
        assert path.read_bytes().startswith(kernel_cache.MAGIC)
    # a new process loads the entry instead of compiling
    again = load_kernel(tmp_path)
    assert again(2.0, 3.0, 1.0) == 7.0
    assert hits_and_misses(again) == (1, 0)


@pytest.mark.parametrize('damage', ['garbage index', 'garbage data',
                                    'truncated data', 'empty index'])
def test_damaged_entries_are_rebuilt(tmp_path, cache_dir, damage):
    """Garbage .nbi/.nbc files next to the kernel made every later run
    fail with a raw UnpicklingError; now they are a cache miss, and the
    entry is written anew."""
    load_kernel(tmp_path)(1.0, 1.0, 1.0)
    folder, [index], [data] = entry_files(cache_dir)
    if damage == 'garbage index':
        index.write_bytes(os.urandom(200))
    elif damage == 'garbage data':
        data.write_bytes(os.urandom(5000))
    elif damage == 'truncated data':
        data.write_bytes(data.read_bytes()[:100])
    else:
        index.write_bytes(b'')
    kernel = load_kernel(tmp_path)
    assert kernel(2.0, 3.0, 1.0) == 7.0
    assert hits_and_misses(kernel) == (0, 1)
    # rebuilt: the next process loads it again
    again = load_kernel(tmp_path)
    assert again(2.0, 3.0, 1.0) == 7.0
    assert hits_and_misses(again) == (1, 0)


def test_a_planted_pickle_is_never_unpickled(tmp_path, cache_dir):
    """An index in numba's own format (what another user could plant in a
    shared cache) whose unpickling would create a file: it fails the HMAC
    check and is never unpickled."""
    load_kernel(tmp_path)(1.0, 1.0, 1.0)
    folder, [index], [data] = entry_files(cache_dir)
    marker = tmp_path / 'code-ran'

    class Payload:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    for path in (index, data):
        with open(path, 'wb') as f:
            pickle.dump(numba.__version__, f, protocol=-1)
            f.write(pickle.dumps(Payload()))
    kernel = load_kernel(tmp_path)
    assert kernel(2.0, 3.0, 1.0) == 7.0
    assert not marker.exists()


def test_an_entry_signed_with_another_key_is_rebuilt(tmp_path, cache_dir):
    load_kernel(tmp_path)(1.0, 1.0, 1.0)
    folder, _, _ = entry_files(cache_dir)
    key = folder / kernel_cache.KEY_FILE
    key.write_bytes(os.urandom(32))
    kernel_cache._keys.clear()
    kernel = load_kernel(tmp_path)
    assert kernel(2.0, 3.0, 1.0) == 7.0
    assert hits_and_misses(kernel) == (0, 1)


@pytest.mark.parametrize('mode', [0o777, 0o775, 0o1777])
def test_a_directory_others_can_write_is_refused(tmp_path, cache_dir, mode):
    """A shared NUMBA_CACHE_DIR (or one created first by another user under
    /tmp) is refused with a warning naming it; the kernel still runs."""
    cache_dir.mkdir(mode=0o700)
    os.chmod(cache_dir, mode)
    with pytest.warns(RuntimeWarning, match='not using the numba cache '
                                            'directory.*writable by its'):
        kernel = load_kernel(tmp_path)
    assert kernel(2.0, 3.0, 1.0) == 7.0
    assert not any(cache_dir.rglob('*.nbi'))


def test_directory_checks(tmp_path):
    private = tmp_path / 'private'
    kernel_cache.make_private_directory(private / 'a' / 'b')
    for path in (private, private / 'a', private / 'a' / 'b'):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700
    assert kernel_cache.untrusted(private / 'a' / 'b') is None
    os.chmod(private / 'a' / 'b', 0o770)
    assert 'writable by its group' in kernel_cache.untrusted(
        private / 'a' / 'b')
    os.chmod(private / 'a' / 'b', 0o700)
    os.chmod(private / 'a', 0o777)
    assert 'which is writable' in kernel_cache.untrusted(private / 'a' / 'b')
    (tmp_path / 'link').symlink_to(private)
    assert 'symbolic link' in kernel_cache.untrusted(tmp_path / 'link')
    if os.getuid() == 0:
        os.chown(private, 12345, -1)
        assert 'owned by user id 12345' in kernel_cache.untrusted(private)


def test_the_package_kernels_use_the_checked_cache():
    from sympy_loads._numeric import linalg, newton
    for kernel in (newton.newton, newton.newton_batch, linalg.qr_solve):
        assert isinstance(kernel._cache, kernel_cache.CheckedFunctionCache)


def test_garbage_next_to_a_package_kernel_does_not_break_it(cache_dir):
    """The real dense LU solve, compiled into a cache directory whose
    index and data files at its names are garbage."""
    from sympy_loads._numeric import linalg
    fresh = jit(linalg.lu_solve.py_func)
    folder = fresh._cache.cache_path
    base = fresh._cache._impl.filename_base
    with open(os.path.join(folder, base + '.nbi'), 'wb') as f:
        f.write(os.urandom(300))
    with open(os.path.join(folder, base + '.1.nbc'), 'wb') as f:
        f.write(os.urandom(300))
    A = np.array([[2.0, 0.0], [0.0, 4.0]])
    x = np.zeros(2)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        fresh(A, 2, np.array([0, 1]), np.array([2.0, 2.0]), x)
    np.testing.assert_allclose(x, [1.0, 0.5])
    with open(os.path.join(folder, base + '.nbi'), 'rb') as f:
        assert f.read().startswith(kernel_cache.MAGIC)


def test_changed_numba_internals_fall_back_to_numbas_own_cache(
        tmp_path, cache_dir, monkeypatch):
    """A numba whose FunctionCache no longer takes what the checked cache
    gives it: the kernel still compiles, runs and is cached by numba's
    own ``cache=True``, with one RuntimeWarning naming the problem."""
    from sympy_loads._numeric import jit as jit_module

    class Changed:
        def __init__(self, py_func):
            raise AttributeError("'FunctionCache' has no attribute "
                                 "'_cache_path'")
    monkeypatch.setattr(jit_module, 'CheckedFunctionCache', Changed)
    monkeypatch.setattr(jit_module, '_warned', [])
    with pytest.warns(RuntimeWarning, match=r"checked kernel cache does not "
                                            r"work with numba .*_cache_path"):
        kernel = load_kernel(tmp_path)
    assert kernel(2.0, 3.0, 1.0) == 7.0
    assert hits_and_misses(kernel) == (0, 1)
    # numba's own cache: a second dispatcher loads it, and warns no more
    with warnings.catch_warnings():
        warnings.simplefilter('error', RuntimeWarning)
        again = load_kernel(tmp_path)
    assert again(2.0, 3.0, 1.0) == 7.0
    assert hits_and_misses(again) == (1, 0)


def test_missing_numba_internals_fall_back_to_numbas_own_cache(
        tmp_path, cache_dir, monkeypatch):
    """``numba.core.caching`` without the classes the checked cache
    subclasses (the import fails): numba's own cache, one warning."""
    from sympy_loads._numeric import jit as jit_module
    monkeypatch.setattr(jit_module, 'CheckedFunctionCache', None)
    monkeypatch.setattr(jit_module, '_CACHE_PROBLEM', 'ImportError: cannot '
                        "import name 'IndexDataCacheFile'", raising=False)
    monkeypatch.setattr(jit_module, '_warned', [])
    with pytest.warns(RuntimeWarning, match='IndexDataCacheFile'):
        kernel = load_kernel(tmp_path)
    assert kernel(1.0, 1.0, 1.0) == 2.0


def test_an_edit_anywhere_in_the_package_recompiles_the_kernels(
        tmp_path, cache_dir, monkeypatch):
    """A kernel's machine code holds the kernels it calls in other files
    (dop853.advance calls rhs, jump, newton), which numba's per-file stamp
    does not see: an edit of rhs.py left advance's stale code in use. The
    stamp covers every module of the package, so an edit anywhere in it
    is a cache miss for every kernel."""
    load_kernel(tmp_path)(1.0, 1.0, 1.0)
    again = load_kernel(tmp_path)
    assert again(2.0, 3.0, 1.0) == 7.0
    assert hits_and_misses(again) == (1, 0)
    monkeypatch.setattr(kernel_cache, '_PACKAGE_STAMP', ['another package'])
    edited = load_kernel(tmp_path)
    assert edited(2.0, 3.0, 1.0) == 7.0
    assert hits_and_misses(edited) == (0, 1)


def test_the_package_stamp_follows_every_file(tmp_path):
    (tmp_path / 'a.py').write_text('x = 1\n')
    (tmp_path / 'b.py').write_text('y = 2\n')
    (tmp_path / 'notes.txt').write_text('not a module\n')
    first = kernel_cache.package_stamp(str(tmp_path))
    assert kernel_cache.package_stamp(str(tmp_path)) == first
    (tmp_path / 'notes.txt').write_text('changed\n')
    assert kernel_cache.package_stamp(str(tmp_path)) == first
    (tmp_path / 'b.py').write_text('y = 3\n')
    assert kernel_cache.package_stamp(str(tmp_path)) != first
