r"""Search hints on disk: which strategy reached zero for each equation of a registered theorem.

Why: ``pe-derive all`` searches a chain for most equations, trying the engine's strategies in
order; for most equations the first strategies fail before one reaches zero (measured: about
as much time as the one that succeeds). A second run with the same code finds the same chain;
with the strategy that reached zero named, it tries that one first and skips the failures
(:class:`pe_symbolic.proof.engine.SearchHints`).

What is *not* stored: any expression, chain or verdict. A hint only orders the search; every
chain is found again and checked by the kernel, every verdict decided again, every spot check
evaluated again. A hint that is stale, damaged or forged costs at most one strategy tried
twice (the search then runs as without a hint) or, if it names another strategy that also
reaches zero, a different chain that the kernel checks like any other.

**Key.** A hex digest over the package's version, Python's, the installed SymPy (the bytes
of its ``release.py``, found without importing it), ``FORMAT``, the strategies the engine
knows, and the size and modification time of every source file under ``proof/``,
``theorems/`` and ``encodings/``: an edit there (a strategy, a rule, a claim) starts afresh,
so that a warm run prints what a cold one prints.

**Location.** The package's disk cache (see :mod:`pe_symbolic.numeric._diskcache`:
``$PE_SYMBOLIC_CACHE_DIR``, where ``""``, ``0``, ``off`` or ``none`` turns it off; else
``$XDG_CACHE_HOME/pe_symbolic`` or ``~/.cache/pe_symbolic`` on Linux), folder
``hints/<key>/``, one small JSON file (``*.hint``) per theorem and ``d``. An entry is read
only when it and its folder belong to the current user and no one else may write them
(POSIX). Failure is never an error: what cannot be read is no hint, what cannot be written
is not written.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import pathlib
import sys

__all__ = ["FORMAT", "hints_dir", "load", "store"]

#: Version of the entry format; part of the key.
FORMAT = 1
_ENV = "PE_SYMBOLIC_CACHE_DIR"
_OFF = ("", "0", "off", "none")
_KEYED = ("proof", "theorems", "encodings")
#: Most bytes an entry may have (a registered theorem's has a few hundred).
_MAX_BYTES = 1 << 20


def _root() -> pathlib.Path | None:
    env = os.environ.get(_ENV)
    if env is not None:
        return None if env.strip().lower() in _OFF else pathlib.Path(env).expanduser()
    if sys.platform == "win32":
        return pathlib.Path(os.environ.get("LOCALAPPDATA") or pathlib.Path.home() / "AppData" / "Local") / "pe_symbolic"
    if sys.platform == "darwin":
        return pathlib.Path.home() / "Library" / "Caches" / "pe_symbolic"
    return pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "pe_symbolic"


@functools.lru_cache(maxsize=1)
def _key() -> str:
    from ..proof.engine import SEARCH_STRATEGIES

    pkg = pathlib.Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    version = getattr(sys.modules.get("pe_symbolic"), "__version__", "?")
    for part in (f"format={FORMAT}", f"pe_symbolic={version}", f"python={sys.implementation.name}-{sys.version}",
                 f"strategies={SEARCH_STRATEGIES!r}"):
        h.update(part.encode() + b"\0")
    spec = importlib.util.find_spec("sympy")
    try:
        h.update(pathlib.Path(spec.origin).with_name("release.py").read_bytes() if spec and spec.origin else b"-")
    except OSError:
        h.update(b"unreadable")
    for rel in _KEYED:
        for f in sorted((pkg / rel).rglob("*.py")):
            h.update(str(f.relative_to(pkg)).encode() + b"\0")
            try:  # size and modification time, as Python's own .pyc check: any edit changes it
                st = f.stat()
                h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
            except OSError:
                h.update(b"unreadable")
    return h.hexdigest()[:32]


def hints_dir() -> pathlib.Path | None:
    """The folder of this installation's hints, or ``None`` when the disk cache is off.

    >>> import os
    >>> old = os.environ.get("PE_SYMBOLIC_CACHE_DIR")
    >>> os.environ["PE_SYMBOLIC_CACHE_DIR"] = "off"
    >>> hints_dir() is None
    True
    >>> os.environ["PE_SYMBOLIC_CACHE_DIR"] = "/tmp/pe-cache"
    >>> hints_dir().parent == __import__("pathlib").Path("/tmp/pe-cache/hints")
    True
    >>> _ = os.environ.pop("PE_SYMBOLIC_CACHE_DIR") if old is None else os.environ.__setitem__("PE_SYMBOLIC_CACHE_DIR", old)
    """
    root = _root()
    return None if root is None else root / "hints" / _key()


def _path(id: str, d: int | None) -> pathlib.Path | None:
    folder = hints_dir()
    if folder is None:
        return None
    digest = hashlib.sha256(json.dumps([id, d]).encode()).hexdigest()[:32]
    return folder / f"{digest}.hint"  # JSON; not *.json, which the numeric cache's entries are


def _private(path: pathlib.Path) -> bool:
    """Owned by this user and not writable by group or others (always true without POSIX ids)."""
    if not hasattr(os, "getuid"):
        return True
    st = path.stat()
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def load(id: str, d: int | None) -> dict[int, tuple[str, ...]]:
    """The stored hints of theorem ``id`` at ``d`` (``{equation index: strategy}``); empty
    when there are none or they cannot be read (never an error).

    >>> load("no.such.theorem", None)
    {}
    """
    path = _path(id, d)
    if path is None:
        return {}
    try:
        if not (_private(path) and _private(path.parent)) or path.stat().st_size > _MAX_BYTES:
            return {}
        entry = json.loads(path.read_text(encoding="utf-8"))
        if entry.get("id") != id or entry.get("d") != d:
            return {}
        out: dict[int, tuple[str, ...]] = {}
        for q, strategy in entry["hints"].items():
            if (not isinstance(strategy, list) or not all(isinstance(r, str) for r in strategy)
                    or not q.isdigit()):
                return {}
            out[int(q)] = tuple(strategy)
        return out
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def store(id: str, d: int | None, hints: dict[int, tuple[str, ...]]) -> None:
    """Store the hints of theorem ``id`` at ``d`` (atomically; any failure is ignored)."""
    path = _path(id, d)
    if path is None:
        return
    import tempfile  # (only to write: a warm run does not import it)

    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        text = json.dumps({"id": id, "d": d, "hints": {str(q): list(s) for q, s in sorted(hints.items())}})
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new one
        except BaseException:
            pathlib.Path(tmp).unlink(missing_ok=True)
            raise
    except (OSError, TypeError, ValueError):
        return
