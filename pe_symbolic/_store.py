r"""The package's disk stores, vouched for at every level: where they live, how an entry is read
and written, and the digest that names an installation's entries.

Three stores keep what an earlier run found, under one root (:func:`cache_root`): Coq's
answers (``coq/``, :func:`pe_symbolic.proof.coq_export.check`), the search hints
(``hints/``, :mod:`pe_symbolic.theorems._hints`) and the numeric disk cache of verdicts and
lowered functions (``<key>/``, :mod:`pe_symbolic.numeric._diskcache`). An entry of the first
decides a Coq verdict without running Coq, and the last one's are executed on load, so an entry
is read only where no one but this user could have put it there.

**Vouched for at every level.** :func:`read_bytes` opens the root (a link naming the root is
followed: the root is where the user points), then each folder below it and the entry file
one name at a time, relative to the folder opened before (``openat``), never following a
symbolic link (``O_NOFOLLOW``), and checks what it opened (``fstat`` of the open descriptor,
so that nothing can be swapped between the check and the read): every folder from the root
down, and the entry, must be this user's (the effective user id), and writable by neither the
group nor others; the entry must be a regular file of at most ``max_bytes``. Anything else is a
miss, and the caller computes afresh. Names are single components (no ``/``, no ``..``).
Without POSIX user ids (Windows) the ownership and mode checks do not apply; links are still
refused (``lstat`` of each level).

**Never an error.** Every reader here returns ``None`` for anything it cannot use: a missing
or unreadable file, a spoiled path, a file over ``max_bytes``, JSON that does not parse or
nests deeper than ``max_depth`` (counted before parsing: a file ``[[[[...`` 200,000 levels
deep is refused without recursion; ``RecursionError`` is caught as well). Writers return
whether they wrote.

**Writing.** :func:`write_bytes` walks the same way, creating each missing folder with mode
0700 (whatever the umask: its mode is set on the open folder), removing the write bits of group
and others from a folder of this user's that has them (a folder an earlier version created
under a umask of 002: its entries are still checked one by one, and each names its own key),
and refusing to write below a level that is not this user's or is a link. A root named by
``$PE_SYMBOLIC_CACHE_DIR`` is never changed: if others may write it, nothing is read or written
there (``chmod go-w`` it); the default root is the package's own folder, and is tightened. The entry is written to a temporary file in its folder (mode 0600) and renamed over the
old one: a concurrent reader sees the old entry or the new one.

This module imports only the standard library (an import-linter contract in ``pyproject.toml``),
so that every floor of the package may use it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pathlib
import re
import stat
import sys
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["ENV", "MAX_BYTES", "MAX_DEPTH", "OFF", "cache_root", "dist_fingerprint", "installation_digest",
           "loads_bounded", "read_bytes", "read_json", "write_bytes", "write_json"]

#: Environment variable that moves the stores' root, or turns every store off.
ENV = "PE_SYMBOLIC_CACHE_DIR"
#: Values of :data:`ENV` that turn the stores off (compared stripped and lower-cased).
OFF = ("", "0", "off", "none")
#: Default bound on an entry's size in bytes.
MAX_BYTES = 1 << 20
#: Default bound on how deep an entry's JSON may nest (the stores' entries nest 5 levels at most).
MAX_DEPTH = 32

_POSIX_IDS = hasattr(os, "geteuid")
_AT = {os.open, os.mkdir, os.rename, os.unlink} <= os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")
_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def cache_root() -> pathlib.Path | None:
    """The stores' root folder, or ``None`` when :data:`ENV` turns the stores off.

    ``$PE_SYMBOLIC_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/pe_symbolic`` (Linux;
    ``~/.cache`` without it), ``~/Library/Caches/pe_symbolic`` (macOS),
    ``%LOCALAPPDATA%\\pe_symbolic`` (Windows).

    >>> import os
    >>> old = os.environ.get(ENV)
    >>> os.environ[ENV] = "off"
    >>> cache_root() is None
    True
    >>> os.environ[ENV] = "/tmp/pe-cache"
    >>> str(cache_root())
    '/tmp/pe-cache'
    >>> _ = os.environ.pop(ENV) if old is None else os.environ.__setitem__(ENV, old)
    """
    env = os.environ.get(ENV)
    if env is not None:
        return None if env.strip().lower() in OFF else pathlib.Path(env).expanduser()
    if sys.platform == "win32":
        root = os.environ.get("LOCALAPPDATA") or str(pathlib.Path.home() / "AppData" / "Local")
        return pathlib.Path(root) / "pe_symbolic"
    if sys.platform == "darwin":
        return pathlib.Path.home() / "Library" / "Caches" / "pe_symbolic"
    root = os.environ.get("XDG_CACHE_HOME") or str(pathlib.Path.home() / ".cache")
    return pathlib.Path(root) / "pe_symbolic"


# --- reading and writing ----------------------------------------------------------------------


def _names_ok(rel: Sequence[str]) -> bool:
    seps = {os.sep, os.altsep or os.sep, "/", "\0"}
    return bool(rel) and all(isinstance(p, str) and p not in ("", ".", "..") and not seps & set(p) for p in rel)


def _private(st: os.stat_result) -> bool:
    """This user's, and writable by neither the group nor others (always true without POSIX ids)."""
    return not _POSIX_IDS or (st.st_uid == os.geteuid() and not st.st_mode & 0o022)


def _close(fd: int | None) -> None:
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


def _open_folder(root: str | os.PathLike[str], folders: Sequence[str], *, create: bool) -> int | None:
    """A descriptor of ``root/folders...``, each level opened without following a link and
    checked (see the module notes); ``None`` where one fails. With ``create``: missing folders
    are made (0700), and this user's folders below the root, and the default root, lose their
    group and other write bits."""
    fd: int | None = None
    try:
        if create:
            try:
                os.makedirs(root, mode=0o700, exist_ok=True)
            except OSError:
                return None
        fd = os.open(root, _DIR)
        for name in (None, *folders):
            if name is not None:
                try:
                    nfd = os.open(name, _DIR | _NOFOLLOW, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise
                    try:
                        os.mkdir(name, 0o700, dir_fd=fd)
                    except FileExistsError:  # made meanwhile by another process: checked below
                        pass
                    nfd = os.open(name, _DIR | _NOFOLLOW, dir_fd=fd)
                    if not _POSIX_IDS or os.fstat(nfd).st_uid == os.geteuid():
                        os.fchmod(nfd, 0o700)  # (the umask may have taken bits away, never given)
                os.close(fd)
                fd = nfd
            st = os.fstat(fd)
            if not stat.S_ISDIR(st.st_mode):
                raise NotADirectoryError
            heal = name is not None or os.environ.get(ENV) is None  # (a root the user named is left as it is)
            if create and heal and _POSIX_IDS and st.st_uid == os.geteuid() and st.st_mode & 0o022:
                os.fchmod(fd, stat.S_IMODE(st.st_mode) & ~0o022)
                st = os.fstat(fd)
            if not _private(st):
                raise PermissionError
        return fd
    except (OSError, ValueError):  # (ValueError: a name with a NUL byte)
        _close(fd)
        return None


def _path_ok(root: str | os.PathLike[str], rel: Sequence[str]) -> bool:
    """Without ``openat`` (Windows): no level below the root is a link, and each is this user's."""
    p = pathlib.Path(root)
    try:
        if not _private(p.stat()):
            return False
        for name in rel:
            p = p / name
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode) or not _private(st):
                return False
        return True
    except (OSError, ValueError):
        return False


def read_bytes(root: str | os.PathLike[str] | None, rel: Sequence[str], *, max_bytes: int = MAX_BYTES) -> bytes | None:
    """The bytes of the entry ``root/rel[0]/.../rel[-1]``, or ``None`` when it is absent, over
    ``max_bytes``, or any level of its path is not vouched for (see the module notes).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     print(write_bytes(root, ("a", "b.txt"), b"hi"), read_bytes(root, ("a", "b.txt")),
    ...           read_bytes(root, ("..", "b.txt")))
    True b'hi' None
    """
    if root is None or not _names_ok(rel):
        return None
    if not _AT:
        if not _path_ok(root, rel):
            return None
        try:
            with open(pathlib.Path(root).joinpath(*rel), "rb") as fh:
                data = fh.read(max_bytes + 1)
        except OSError:
            return None
        return data if len(data) <= max_bytes else None
    folder = _open_folder(root, rel[:-1], create=False)
    if folder is None:
        return None
    fd: int | None = None
    try:
        fd = os.open(rel[-1], os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0),
                     dir_fd=folder)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _private(st) or st.st_size > max_bytes:
            return None
        chunks = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks) if size <= max_bytes else None
    except (OSError, ValueError):
        return None
    finally:
        _close(fd)
        _close(folder)


def write_bytes(root: str | os.PathLike[str] | None, rel: Sequence[str], data: bytes) -> bool:
    """Write ``data`` as the entry ``root/rel...`` (atomically, mode 0600); whether it was written.

    Nothing is written below a level that is not this user's, is writable by another user
    after its write bits were removed, or is a link (see the module notes).
    """
    if root is None or not _names_ok(rel):
        return False
    tmp = f".tmp-{os.getpid()}-{os.urandom(6).hex()}"
    if not _AT:
        try:
            folder_path = pathlib.Path(root).joinpath(*rel[:-1])
            folder_path.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not _path_ok(root, rel[:-1]):
                return False
            with open(folder_path / tmp, "xb") as fh:
                fh.write(data)
            os.replace(folder_path / tmp, folder_path / rel[-1])
            return True
        except OSError:
            try:
                (pathlib.Path(root).joinpath(*rel[:-1]) / tmp).unlink(missing_ok=True)
            except OSError:
                pass
            return False
    folder = _open_folder(root, rel[:-1], create=True)
    if folder is None:
        return False
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600,
                     dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.rename(tmp, rel[-1], src_dir_fd=folder, dst_dir_fd=folder)  # (POSIX: replaces)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=folder)
            except OSError:
                pass
            raise
        return True
    except OSError:
        return False
    finally:
        _close(folder)


# --- JSON, bounded ----------------------------------------------------------------------------

#: A JSON string, or an unterminated one up to the end: a match from every quote, so the
#: scan is linear (a pattern that can fail after a long scan would rescan from each quote).
_STRING = re.compile(rb'"(?:[^"\\]|\\.|\\\Z)*(?:"|\Z)', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def loads_bounded(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads(data)`` when ``data`` nests at most ``max_depth`` levels, else ``None``
    (also for anything that does not parse; never an error).

    >>> loads_bounded(b'{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> loads_bounded(b"[" * 100 + b"]" * 100) is None
    True
    >>> loads_bounded(b'{"a": ') is None
    True
    """
    try:
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        # the depth, counted without recursion: brackets outside strings
        brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
        depth = 0
        for c in brackets if len(brackets) > max_depth else ():
            depth += 1 if c in b"[{" else -1
            if depth > max_depth:
                return None
        value = json.loads(raw)
    except (ValueError, TypeError, RecursionError, MemoryError):
        return None
    # (a JSON document whose value is null reads as a miss too)
    return value


def read_json(root: str | os.PathLike[str] | None, rel: Sequence[str], *, max_bytes: int = MAX_BYTES,
              max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of the entry ``root/rel...`` (:func:`read_bytes`, :func:`loads_bounded`),
    or ``None``: never an error."""
    data = read_bytes(root, rel, max_bytes=max_bytes)
    return None if data is None else loads_bounded(data, max_depth=max_depth)


def write_json(root: str | os.PathLike[str] | None, rel: Sequence[str], value: Any) -> bool:
    """Write ``value`` as JSON (:func:`write_bytes`); whether it was written (never an error)."""
    try:
        data = json.dumps(value).encode("utf-8")
    except (TypeError, ValueError, RecursionError):
        return False
    return write_bytes(root, rel, data)


# --- the digest that names an installation's entries ------------------------------------------


def dist_fingerprint(name: str) -> bytes:
    """The installed version of ``name`` without importing it: the bytes of its version file
    (``sympy/release.py``, ``mpmath/__init__.py``), which hold ``__version__``
    (``importlib.metadata`` alone costs ~12 ms to import).

    >>> dist_fingerprint("no_such_distribution_here")
    b'absent'
    """
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None:
        return b"absent"
    folder = pathlib.Path(spec.origin).parent
    for fname in ("release.py", "__init__.py"):
        try:
            return (folder / fname).read_bytes()
        except OSError:
            continue
    return b"unreadable"


def installation_digest(parts: Iterable[str], *, dists: Iterable[str] = (), sources: Iterable[str] = ()) -> str:
    """A 32-digit hex digest over ``parts``, the package's version, Python's, the installed
    ``dists`` (:func:`dist_fingerprint`) and the size and modification time (as Python's own
    ``.pyc`` check) of the package's ``sources`` (files or folders of ``*.py``, relative to the
    package): what names one installation's entries in a store.

    >>> a = installation_digest(["format=1"], sources=["_store.py"])
    >>> len(a), a == installation_digest(["format=2"], sources=["_store.py"])
    (32, False)
    """
    # the package's version, read from the loaded package (importing the root here would make
    # this floor import every floor in the linter's eyes)
    version = getattr(sys.modules.get(__name__.split(".")[0]), "__version__", "?")
    pkg = pathlib.Path(__file__).resolve().parent
    h = hashlib.sha256()
    for part in (*parts, f"pe_symbolic={version}", f"python={sys.implementation.name}-{sys.version}"):
        h.update(part.encode() + b"\0")
    for dist in dists:
        h.update(dist.encode() + b"\0" + hashlib.sha256(dist_fingerprint(dist)).digest())
    files: list[pathlib.Path] = []
    for rel in sources:
        p = pkg / rel
        files.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    for f in files:
        h.update(str(f.relative_to(pkg)).encode() + b"\0")
        try:  # size and modification time, as Python's own .pyc check: any edit changes it
            st = f.stat()
            h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
        except OSError:
            h.update(b"unreadable")
    return h.hexdigest()[:32]
