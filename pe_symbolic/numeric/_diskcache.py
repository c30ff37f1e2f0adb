r"""The on-disk cache of :mod:`pe_symbolic.numeric.lower`: verdicts and lowered functions.

Why: proving the gating claims and lambdifying their formulas costs 0.5-2 s and imports
SymPy; a process that only wants a table should not pay that every time. What is stored:

* the verdict of each gating claim (``claim_verdict``);
* each *named* formula of :mod:`~pe_symbolic.numeric.lower` (``phasor_product``,
  ``rope_pair(modules)``, the frequency schedule for a ``d``, the RoPE family's formulas):
  the Python source ``lambdify`` generated, where each global name it uses comes from
  (a module, or an attribute of one), its claim id and its docstring. A formula is stored
  only after its claim is proved and ``lambdify`` ran, and is loaded back through the same
  loader on the cold path, so a cold and a warm process run the same code;
* the float64 values of frequencies (``frequency_dd`` of a schedule, ``config_dd`` of a
  parsed config): the 40-digit values rounded once, and the rest, as JSON floats (exact),
  so that a warm process does not import mpmath for a table.

**Key.** One hex digest (``cache_key()``) over: the package version, the installed
SymPy and mpmath (the bytes of their version files, found without importing them), the
Python version and implementation, ``FORMAT``, and the size and modification time
(as Python's own ``.pyc`` check) of every source file that decides a verdict or a formula:
``proof/**.py`` (the kernel and its rules: a change to what the kernel accepts changes the
key), ``theorems/**.py`` and ``encodings/**.py`` (the claims' statements and proofs),
``numeric/lower.py`` (the lowering) and ``numeric/_frequencies.py`` / ``numeric/_rope_plan.py``
(which formulas a config's frequencies take, for the stored frequency values). Any change
to any of these re-proves and re-lowers everything, which is coarse but never stale. Entries live in
``<cache dir>/<key>/`` as JSON files named by a digest of the formula's name and
arguments; the key's directory is created on first write. Directories of older keys are
left in place (two installations may share the cache); each holds about 50 KiB, and
deleting the cache directory is always safe.

**Location.** ``$PE_SYMBOLIC_CACHE_DIR`` if set (``""``, ``"0"``, ``"off"`` or ``"none"``:
no disk cache at all), else ``$XDG_CACHE_HOME/pe_symbolic`` (Linux; ``~/.cache`` without
it), ``~/Library/Caches/pe_symbolic`` (macOS), ``%LOCALAPPDATA%\pe_symbolic`` (Windows):
:func:`pe_symbolic._store.cache_root`, the root the search hints and Coq's answers share.

**Failure is never an error.** A directory that cannot be created or written, a file that
cannot be read, is truncated, fails its checksum or names a global that does not resolve:
the formula is proved and lowered in-process as if there were no cache (and, where
possible, the entry rewritten).

**Trust.** The stored source is executed on load, exactly as Python executes the bytecode
in ``__pycache__``: the cache directory must be as trusted as your site-packages. An entry
is read only when every folder from the cache's root down to it, and the entry file, belong to
the current user, are writable by neither group nor others, and none below the root is a
symbolic link (POSIX; each level opened without following links and checked on the open
descriptor, :mod:`pe_symbolic._store`); an entry is at most 8 MiB and nests a few levels at
most. The SHA-256 in each entry catches corruption, not tampering, and its name and arguments
must be the ones asked for (an entry renamed over another's is a miss); the globals it may
name are limited to the modules in ``ALLOWED_MODULES``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import pathlib
import sys
import types
from collections.abc import Callable
from typing import Any

from .. import _store

__all__ = ["ALLOWED_MODULES", "ENV", "FORMAT", "cache_dir", "cache_key", "load", "store"]

#: Environment variable that overrides the cache's location (or turns it off).
ENV = _store.ENV
#: Version of the entry format; part of the key.
FORMAT = 1
#: Where a stored function's globals may come from.
ALLOWED_MODULES = ("builtins", "math", "numpy", "mpmath", "torch", "jax", "jax.numpy",
                   "pe_symbolic.numeric.lower")
#: The sources whose hash is part of the key (relative to the package root).
_KEYED_SOURCES = ("proof", "theorems", "encodings", "numeric/lower.py", "numeric/_frequencies.py",
                  "numeric/_rope_plan.py")
#: Most bytes an entry may have (the frequencies of d = MAX_D, the largest, take about 800 KB).
_MAX_BYTES = 8 << 20


def cache_dir() -> pathlib.Path | None:
    """The cache's root directory, or ``None`` when ``$PE_SYMBOLIC_CACHE_DIR`` turns it off
    (:func:`pe_symbolic._store.cache_root`, the root of every store of the package).

    >>> import os
    >>> old = os.environ.get(ENV)
    >>> os.environ[ENV] = "off"
    >>> cache_dir() is None
    True
    >>> os.environ[ENV] = "/tmp/pe-cache"
    >>> str(cache_dir())
    '/tmp/pe-cache'
    >>> _ = os.environ.pop(ENV) if old is None else os.environ.__setitem__(ENV, old)
    """
    return _store.cache_root()


@functools.lru_cache(maxsize=1)
def cache_key() -> str:
    """The hex digest that names this installation's entries (see the module docstring).

    >>> len(cache_key())
    32
    """
    return _store.installation_digest([f"format={FORMAT}"], dists=("sympy", "mpmath"), sources=_KEYED_SOURCES)


def _entry_name(name: str, args: tuple) -> str:
    digest = hashlib.sha256(json.dumps([name, [repr(a) for a in args]]).encode()).hexdigest()[:32]
    return f"{name}-{digest}.json"


def _entry_path(name: str, args: tuple) -> pathlib.Path | None:
    root = cache_dir()
    return None if root is None else root / cache_key() / _entry_name(name, args)


def _checksum(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _read_body(name: str, args: tuple) -> dict[str, Any] | None:
    """The body of the stored entry ``name(*args)`` when its checksum, name and arguments match
    and every folder from the cache's root down to it, and the entry, are vouched for
    (:func:`pe_symbolic._store.read_json`); else ``None`` (never an error)."""
    root = cache_dir()
    if root is None:
        return None
    entry = _store.read_json(root, (cache_key(), _entry_name(name, args)), max_bytes=_MAX_BYTES)
    try:
        body = entry["body"]
        if (entry.get("sha256") != _checksum(body) or body.get("name") != name
                or body.get("args") != [repr(a) for a in args]):  # (an entry renamed to another's name)
            return None
        return body
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None


def load_value(name: str, args: tuple) -> Any:
    """A stored JSON value (e.g. a verdict), or ``None``."""
    body = _read_body(name, args)
    try:
        return None if body is None else body["value"]
    except (KeyError, TypeError):
        return None


def store_value(name: str, args: tuple, value: Any) -> None:
    """Store a JSON value; any failure is ignored."""
    _write(name, args, {"name": name, "args": [repr(a) for a in args], "value": value})


def _write(name: str, args: tuple, body: dict[str, Any]) -> None:
    root = cache_dir()
    if root is None:
        return
    try:
        text = json.dumps({"sha256": _checksum(body), "body": body})
    except (TypeError, ValueError):
        return
    _store.write_bytes(root, (cache_key(), _entry_name(name, args)), text.encode())


def describe_globals(fn: Callable[..., Any]) -> dict[str, list[str]] | None:
    """Where each global name of ``fn``'s code comes from, or ``None`` if one cannot be said.

    Each entry is ``[module]`` (the name is that module) or ``[module, attribute]``, with the
    module one of ``ALLOWED_MODULES``.
    """
    code = fn.__code__
    out: dict[str, list[str]] = {}
    g = fn.__globals__
    for name in code.co_names:
        if name not in g:
            continue  # a builtin (or an attribute name): resolved at call time as usual
        obj = g[name]
        if isinstance(obj, types.ModuleType):
            if obj.__name__ not in ALLOWED_MODULES:
                return None
            out[name] = [obj.__name__]
            continue
        for mod in ALLOWED_MODULES:
            m = sys.modules.get(mod)
            if m is not None and getattr(m, name, None) is obj:
                out[name] = [mod, name]
                break
        else:
            return None
    return out


def build(body: dict[str, Any]) -> Callable[..., Any] | None:
    """The function of a stored entry (its source executed with its globals), or ``None``."""
    ns: dict[str, Any] = {"__builtins__": __builtins__}
    try:
        for name, where in body["globals"].items():
            if where[0] not in ALLOWED_MODULES:
                return None
            mod = importlib.import_module(where[0])
            ns[name] = mod if len(where) == 1 else getattr(mod, where[1])
        code = compile(body["source"], f"<pe_symbolic lowered {body['name']}>", "exec")
        exec(code, ns)  # noqa: S102 - the cache's own generated source (see Trust above)
        fn = ns[body["function"]]
    except Exception:  # noqa: BLE001 - an unusable entry is a cache miss
        return None
    fn.__doc__ = body["doc"]
    fn.claim_id = body["claim_id"]  # type: ignore[attr-defined]
    fn.expression = body["expression"]  # type: ignore[attr-defined]
    fn.ufunc = None  # type: ignore[attr-defined]
    if body.get("ufunc"):
        import numpy as np

        fn.ufunc = getattr(np, body["ufunc"])  # type: ignore[attr-defined]
    return fn


def load(name: str, args: tuple) -> Callable[..., Any] | None:
    """The stored lowered function ``name(*args)``, or ``None`` (a miss, for any reason)."""
    body = _read_body(name, args)
    return None if body is None else build(body)


def entry_of(name: str, args: tuple, fn: Callable[..., Any]) -> dict[str, Any] | None:
    """The storable description of a lowered function, or ``None`` if it cannot be stored."""
    import inspect

    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        return None
    globs = describe_globals(fn)
    if globs is None:
        return None
    uf = getattr(fn, "ufunc", None)
    return {"name": name, "args": [repr(a) for a in args], "function": fn.__name__,
            "source": source, "globals": globs, "doc": fn.__doc__ or "",
            "claim_id": getattr(fn, "claim_id", ""), "expression": str(getattr(fn, "expression", "")),
            "ufunc": None if uf is None else uf.__name__}


def store(name: str, args: tuple, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Store ``fn`` (a freshly lowered function); return the function as a warm process
    would load it (so that cold and warm processes run the same code), or ``fn`` itself
    when it cannot be stored."""
    body = entry_of(name, args, fn)
    if body is None:
        return fn
    built = build(body)
    if built is None:
        return fn
    built.expression = getattr(fn, "expression", body["expression"])  # type: ignore[attr-defined]
    _write(name, args, body)
    return built
