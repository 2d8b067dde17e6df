"""numba's on-disk cache of the generic kernels, checked before use.

The generic kernels (:mod:`.newton`, :mod:`.linalg`, :mod:`.rhs`) are
compiled by numba once per installation and kept on disk. That is the only
on-disk cache of the package: model-specific code is compiled in memory
(SymEngine's LLVM JIT, or ``lambdify``) and never written to disk. numba
keeps its cache in the first usable one of

1. ``$NUMBA_CACHE_DIR/<package folder>_<hash>/`` when that variable is set,
2. the ``__pycache__`` folder beside the kernels' source files
   (``sympy_loads/_numeric/__pycache__``),
3. the user-wide cache folder (``~/.cache/numba/...`` on Linux),

and its files are an index (``<module>.<kernel>-<line>.pyXY.nbi``) and one
data file per compiled signature (``....pyXY.<n>.nbc``), both pickles:
unpickling them runs code. Plain numba trusts whatever sits there, so a
directory another user can write to (a shared ``NUMBA_CACHE_DIR``, or one
that user created first under /tmp) lets that user run code in the
process, and a damaged file (truncated, garbage) makes every later import
fail with a raw ``UnpicklingError``.

:class:`CheckedFunctionCache` replaces numba's ``FunctionCache`` for the
kernels (:func:`.jit.jit` installs it) and adds:

* **trusted directories only.** A cache directory is used only if it is a
  real directory (not a symbolic link) owned by the current user and not
  writable by its group or by others; directories it has to create are
  created with mode 0700 (each missing component). An untrusted directory
  is refused with a ``RuntimeWarning`` naming it and the reason, and numba
  moves on to the next location; when none is usable the kernels are
  compiled in memory in every process (a few seconds), never loaded.
* **authenticated files.** Every index and data file is written as a magic
  line, an HMAC-SHA256 of the pickle and the pickle, keyed by 32 random
  bytes in ``sympy_loads-cache.key`` (mode 0600) in the same directory.
  A file is unpickled only after its HMAC has been checked, so a damaged
  file, a plain numba file, or one written by anybody without the key is
  never unpickled.
* **stamped with the whole package.** numba stamps an entry with its own
  source file only, but a kernel's machine code also holds the kernels it
  calls in other files (``dop853.advance`` calls :mod:`.rhs`, :mod:`.jump`,
  :mod:`.newton`, :mod:`.linalg`), so an edit there left stale machine
  code in use. The stamp here adds a digest of every module of this
  package (:func:`package_stamp`): any change recompiles every kernel.
* **rebuilt, not fatal.** Any problem reading an entry (a bad HMAC, an
  unreadable or incompatible pickle) is a cache miss: the damaged index is
  removed, the kernel compiled again and the entry saved anew.

The directory checks hold on POSIX systems; on Windows (no user ids or
POSIX modes) only the HMAC check applies.

numba's ``Dispatcher._cache``, ``FunctionCache``, ``IndexDataCacheFile`` and
the locator classes are internals of ``numba.core.caching`` (numba 0.62 -
0.68); this module is the one place that relies on them.
"""

import hashlib
import hmac
import os
import pickle
import secrets
import stat
import tempfile
import uuid
import warnings

from numba.core.caching import (CompileResultCacheImpl, FunctionCache,
                                IndexDataCacheFile, InTreeCacheLocator,
                                UserProvidedCacheLocator,
                                UserWideCacheLocator)

__all__ = []

MAGIC = b'sympy_loads kernel cache 1\n'
KEY_FILE = 'sympy_loads-cache.key'
_KEY_BYTES = 32
_MAC_BYTES = hashlib.sha256().digest_size
_POSIX = os.name == 'posix'
_keys = {}
_warned = set()


class DamagedEntry(Exception):
    """An index or data file whose magic line or HMAC does not match."""


def untrusted(path):
    """The reason ``path`` must not be used as a cache directory, or None
    when it may: an existing directory, not a symbolic link, owned by the
    current user and not writable by group or others, in a parent directory
    owned by the current user or root and not writable by group or others
    either (so that nobody else can swap it; this refuses e.g.
    ``NUMBA_CACHE_DIR=/tmp`` or a shared, world-writable one)."""
    path = os.path.abspath(path)
    for where, owners in ((path, 'you'), (os.path.dirname(path),
                                          'you or root')):
        try:
            info = os.lstat(where)
        except OSError as error:
            return f'cannot be inspected ({error})'
        what = '' if where == path else f'is in {where}, which '
        if stat.S_ISLNK(info.st_mode):
            return f'{what}is a symbolic link'
        if not stat.S_ISDIR(info.st_mode):
            return f'{what}is not a directory'
        if not _POSIX:
            continue
        allowed = ((os.getuid(),) if where == path else (os.getuid(), 0))
        if info.st_uid not in allowed:
            return (f'{what}is owned by user id {info.st_uid}, not by '
                    f'{owners} (you are user id {os.getuid()})')
        if info.st_mode & 0o022:
            return (f'{what}is writable by its group or by others (mode '
                    f'{stat.S_IMODE(info.st_mode):04o})')
    return None


def make_private_directory(path):
    """Create the missing components of ``path``, each with mode 0700."""
    path = os.path.abspath(path)
    missing = []
    while not os.path.lexists(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for component in reversed(missing):
        try:
            os.mkdir(component, 0o700)
        except FileExistsError:
            pass


def _warn_once(path, reason):
    if path not in _warned:
        _warned.add(path)
        warnings.warn(
            f'sympy_loads: not using the numba cache directory {path}: it '
            f'{reason}. The compiled kernels are cached only in a directory '
            f'owned by you and writable by nobody else (set NUMBA_CACHE_DIR '
            f'to one); otherwise they are compiled again in every process.',
            RuntimeWarning, stacklevel=2)


def warn_uncached(name):
    """Warn (once) that no trusted cache location was found for kernel
    ``name``."""
    if None not in _warned:
        _warned.add(None)
        warnings.warn(
            f'sympy_loads: no trusted numba cache directory for the kernel '
            f'{name} (and the others of the package): they are compiled in '
            f'memory in every process (a few seconds). Set NUMBA_CACHE_DIR '
            f'to a directory owned by you and writable by nobody else.',
            RuntimeWarning, stacklevel=3)


class _TrustedLocatorMixin:
    """numba locators that create their directory 0700 and refuse one they
    cannot trust (numba then tries the next location). Refusing the
    directory the user chose (``NUMBA_CACHE_DIR``) warns; the fallbacks
    are refused quietly (e.g. a group-writable source tree), and
    :func:`.jit.jit` warns when no location is left."""

    explicit = False

    def ensure_cache_path(self):
        path = self.get_cache_path()
        make_private_directory(path)
        reason = untrusted(path)
        if reason is not None:
            if self.explicit:
                _warn_once(path, reason)
            raise OSError(f'untrusted cache directory {path}: {reason}')
        tempfile.TemporaryFile(dir=path).close()


class _UserProvidedLocator(_TrustedLocatorMixin, UserProvidedCacheLocator):
    explicit = True


class _InTreeLocator(_TrustedLocatorMixin, InTreeCacheLocator):
    pass


class _UserWideLocator(_TrustedLocatorMixin, UserWideCacheLocator):
    pass


class _CheckedImpl(CompileResultCacheImpl):
    _locator_classes = [_UserProvidedLocator, _InTreeLocator,
                        _UserWideLocator]


_PACKAGE_STAMP = []


def package_stamp(directory=os.path.dirname(os.path.abspath(__file__))):
    """SHA-256 of the names and contents of the ``.py`` files in
    ``directory`` (this package's by default, computed once per process):
    part of every kernel's cache stamp, so that an edit of any kernel
    invalidates the kernels that call it from other files."""
    default = directory == os.path.dirname(os.path.abspath(__file__))
    if default and _PACKAGE_STAMP:
        return _PACKAGE_STAMP[0]
    digest = hashlib.sha256()
    for name in sorted(os.listdir(directory)):
        if name.endswith('.py'):
            digest.update(name.encode() + b'\0')
            with open(os.path.join(directory, name), 'rb') as file:
                digest.update(file.read() + b'\0')
    stamp = digest.hexdigest()
    if default:
        _PACKAGE_STAMP.append(stamp)
    return stamp


def directory_key(path):
    """The HMAC key of the cache directory ``path`` (created on first use:
    32 random bytes in a file of mode 0600; a key file that is not a
    private regular file of 32 bytes is replaced, which invalidates the
    entries signed with it)."""
    key = _keys.get(path)
    if key is not None:
        return key
    keyfile = os.path.join(path, KEY_FILE)
    key = _read_key(keyfile)
    if key is None:
        tmp = f'{keyfile}.tmp.{uuid.uuid4().hex[:16]}'
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, 'wb') as f:
                f.write(secrets.token_bytes(_KEY_BYTES))
            try:
                os.link(tmp, keyfile)          # no clobbering a new key
            except FileExistsError:
                if _read_key(keyfile) is None:  # a bad one: replace it
                    os.replace(tmp, keyfile)
        finally:
            if os.path.lexists(tmp):
                os.unlink(tmp)
        key = _read_key(keyfile)
        if key is None:
            raise OSError(f'cannot create the cache key {keyfile}')
    _keys[path] = key
    return key


def _read_key(keyfile):
    try:
        info = os.lstat(keyfile)
        if (not stat.S_ISREG(info.st_mode) or info.st_size != _KEY_BYTES
                or (_POSIX and (info.st_uid != os.getuid()
                                or info.st_mode & 0o077))):
            return None
        with open(keyfile, 'rb') as f:
            key = f.read()
    except OSError:
        return None
    return key if len(key) == _KEY_BYTES else None


class CheckedIndexDataFile(IndexDataCacheFile):
    """numba's index and data files, each sealed with an HMAC checked
    before anything is unpickled (see the module documentation)."""

    def _seal(self, payload):
        mac = hmac.new(directory_key(self._cache_path), payload,
                       hashlib.sha256).digest()
        return MAGIC + mac + payload

    def _open_sealed(self, path):
        with open(path, 'rb') as f:
            blob = f.read()
        head = len(MAGIC)
        if blob[:head] != MAGIC or len(blob) < head + _MAC_BYTES:
            raise DamagedEntry(path)
        mac = blob[head:head + _MAC_BYTES]
        payload = blob[head + _MAC_BYTES:]
        expected = hmac.new(directory_key(self._cache_path), payload,
                            hashlib.sha256).digest()
        if not hmac.compare_digest(mac, expected):
            raise DamagedEntry(path)
        return payload

    def _load_index(self):
        try:
            payload = self._open_sealed(self._index_path)
        except FileNotFoundError:
            return {}
        version, stamp, overloads = pickle.loads(payload)
        if version != self._version or stamp != self._source_stamp:
            return {}          # another numba, or an edited source file
        return overloads

    def _save_index(self, overloads):
        payload = self._dump((self._version, self._source_stamp, overloads))
        with self._open_for_write(self._index_path) as f:
            f.write(self._seal(payload))

    def _load_data(self, name):
        return pickle.loads(self._open_sealed(self._data_path(name)))

    def _save_data(self, name, data):
        payload = self._dump(data)
        with self._open_for_write(self._data_path(name)) as f:
            f.write(self._seal(payload))

    def discard(self):
        """Remove the index (after a damaged entry): the next save starts
        a new one and overwrites the data files."""
        try:
            os.unlink(self._index_path)
        except OSError:
            pass


class CheckedFunctionCache(FunctionCache):
    """numba's ``FunctionCache`` in trusted directories only, with sealed
    files, and with any failure to load an entry treated as a miss."""

    _impl_class = _CheckedImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = CheckedIndexDataFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=(self._impl.locator.get_source_stamp(),
                          package_stamp()))

    def _usable(self):
        reason = untrusted(self._cache_path)
        if reason is not None:
            _warn_once(self._cache_path, reason)
            return False
        return True

    def load_overload(self, sig, target_context):
        if not self._usable():
            return None
        try:
            return super().load_overload(sig, target_context)
        except Exception:      # noqa: BLE001  a damaged entry is a miss
            self._cache_file.discard()
            return None

    def save_overload(self, sig, data):
        if not self._usable():
            return
        for _ in range(2):
            try:
                super().save_overload(sig, data)
                return
            except Exception:  # noqa: BLE001  e.g. a damaged index
                self._cache_file.discard()


def has_entry(dispatcher, signature):
    """Whether the checked cache of ``dispatcher`` holds an entry for the
    argument types ``signature`` on this machine (read from its index,
    nothing unpickled but the sealed index); None where that cannot be
    known (no checked cache, or no trusted directory: the kernels are then
    compiled in each process, as they are used)."""
    cache = getattr(dispatcher, '_cache', None)
    if not isinstance(cache, CheckedFunctionCache) or not cache._usable():
        return None
    try:
        key = cache._index_key(signature, dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:      # noqa: BLE001  a damaged index: a miss
        return False


def location(dispatcher):
    """The cache directory of ``dispatcher``, or None."""
    cache = getattr(dispatcher, '_cache', None)
    return getattr(cache, '_cache_path', None)
