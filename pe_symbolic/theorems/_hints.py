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
only when every folder from the cache's root down to it, and the entry itself, belong to the
current user, no one else may write them and none below the root is a link; it is at most
1 MiB and nests a few levels at most (:mod:`pe_symbolic._store`, which the disk cache and
Coq's answers read through too). Failure is never an error: what cannot be read is no hint,
what cannot be written is not written.
"""

from __future__ import annotations

import functools
import hashlib
import json
import pathlib

from .. import _store

__all__ = ["FORMAT", "hints_dir", "load", "store"]

#: Version of the entry format; part of the key.
FORMAT = 1
_KEYED = ("proof", "theorems", "encodings")
#: Most bytes an entry may have (a registered theorem's has a few hundred).
_MAX_BYTES = 1 << 20


@functools.lru_cache(maxsize=1)
def _key() -> str:
    from ..proof.engine import SEARCH_STRATEGIES

    return _store.installation_digest([f"format={FORMAT}", f"strategies={SEARCH_STRATEGIES!r}"], dists=("sympy",),
                                      sources=_KEYED)


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
    root = _store.cache_root()
    return None if root is None else root / "hints" / _key()


def _name(id: str, d: int | None) -> str:
    digest = hashlib.sha256(json.dumps([id, d]).encode()).hexdigest()[:32]
    return f"{digest}.hint"  # JSON; not *.json, which the numeric cache's entries are


def _path(id: str, d: int | None) -> pathlib.Path | None:
    folder = hints_dir()
    return None if folder is None else folder / _name(id, d)


def load(id: str, d: int | None) -> dict[int, tuple[str, ...]]:
    """The stored hints of theorem ``id`` at ``d`` (``{equation index: strategy}``); empty
    when there are none or they cannot be read (never an error).

    >>> load("no.such.theorem", None)
    {}
    """
    root = _store.cache_root()
    if root is None:
        return {}
    entry = _store.read_json(root, ("hints", _key(), _name(id, d)), max_bytes=_MAX_BYTES)
    try:
        if not isinstance(entry, dict) or entry.get("id") != id or entry.get("d") != d:
            return {}
        out: dict[int, tuple[str, ...]] = {}
        for q, strategy in entry["hints"].items():
            if (not isinstance(strategy, list) or not all(isinstance(r, str) for r in strategy)
                    or not (q.isascii() and q.isdigit())):
                return {}
            out[int(q)] = tuple(strategy)
        return out
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return {}


def store(id: str, d: int | None, hints: dict[int, tuple[str, ...]]) -> None:
    """Store the hints of theorem ``id`` at ``d`` (atomically; any failure is ignored)."""
    root = _store.cache_root()
    if root is not None:
        _store.write_json(root, ("hints", _key(), _name(id, d)),
                          {"id": id, "d": d, "hints": {str(q): list(s) for q, s in sorted(hints.items())}})
