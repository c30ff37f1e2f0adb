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
it), ``~/Library/Caches/pe_symbolic`` (macOS), ``%LOCALAPPDATA%\pe_symbolic`` (Windows).

**Failure is never an error.** A directory that cannot be created or written, a file that
cannot be read, is truncated, fails its checksum or names a global that does not resolve:
the formula is proved and lowered in-process as if there were no cache (and, where
possible, the entry rewritten).

**Trust.** The stored source is executed on load, exactly as Python executes the bytecode
in ``__pycache__``: the cache directory must be as trusted as your site-packages. An entry
is read only when the file and its folder belong to the current user and neither is
writable by group or others (POSIX); the SHA-256 in each entry catches corruption, not
tampering; the globals it may name are limited to the modules in ``ALLOWED_MODULES``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import pathlib
import sys
import types
from collections.abc import Callable
from typing import Any

__all__ = ["ALLOWED_MODULES", "ENV", "FORMAT", "cache_dir", "cache_key", "load", "store"]

#: Environment variable that overrides the cache's location (or turns it off).
ENV = "PE_SYMBOLIC_CACHE_DIR"
#: Version of the entry format; part of the key.
FORMAT = 1
#: Where a stored function's globals may come from.
ALLOWED_MODULES = ("builtins", "math", "numpy", "mpmath", "torch", "jax", "jax.numpy",
                   "pe_symbolic.numeric.lower")
_OFF = ("", "0", "off", "none")
#: The sources whose hash is part of the key (relative to the package root).
_KEYED_SOURCES = ("proof", "theorems", "encodings", "numeric/lower.py", "numeric/_frequencies.py",
                  "numeric/_rope_plan.py")


def cache_dir() -> pathlib.Path | None:
    """The cache's root directory, or ``None`` when ``$PE_SYMBOLIC_CACHE_DIR`` turns it off.

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
    env = os.environ.get(ENV)
    if env is not None:
        return None if env.strip().lower() in _OFF else pathlib.Path(env).expanduser()
    if sys.platform == "win32":
        root = os.environ.get("LOCALAPPDATA") or str(pathlib.Path.home() / "AppData" / "Local")
        return pathlib.Path(root) / "pe_symbolic"
    if sys.platform == "darwin":
        return pathlib.Path.home() / "Library" / "Caches" / "pe_symbolic"
    root = os.environ.get("XDG_CACHE_HOME") or str(pathlib.Path.home() / ".cache")
    return pathlib.Path(root) / "pe_symbolic"


def _dist_fingerprint(name: str) -> bytes:
    """The installed version of ``name`` without importing it: the bytes of its version
    file (``sympy/release.py``, ``mpmath/__init__.py``), which hold ``__version__``
    (:mod:`importlib.metadata` alone costs ~12 ms to import)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None:
        return b"absent"
    root = pathlib.Path(spec.origin).parent
    for fname in ("release.py", "__init__.py"):
        try:
            return (root / fname).read_bytes()
        except OSError:
            continue
    return b"unreadable"


@functools.lru_cache(maxsize=1)
def cache_key() -> str:
    """The hex digest that names this installation's entries (see the module docstring).

    >>> len(cache_key())
    32
    """
    # the package's version (read from the loaded package: importing the root here would
    # make the numeric floor import every floor in the linter's eyes)
    __version__ = getattr(sys.modules.get(__name__.split(".")[0]), "__version__", "?")
    pkg = pathlib.Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for part in (f"format={FORMAT}", f"pe_symbolic={__version__}",
                 f"python={sys.implementation.name}-{sys.version}"):
        h.update(part.encode() + b"\0")
    for dist in ("sympy", "mpmath"):
        h.update(dist.encode() + b"\0" + hashlib.sha256(_dist_fingerprint(dist)).digest())
    files: list[pathlib.Path] = []
    for rel in _KEYED_SOURCES:
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


def _entry_path(name: str, args: tuple) -> pathlib.Path | None:
    root = cache_dir()
    if root is None:
        return None
    digest = hashlib.sha256(json.dumps([name, [repr(a) for a in args]]).encode()).hexdigest()[:32]
    return root / cache_key() / f"{name}-{digest}.json"


def _checksum(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _read_body(name: str, args: tuple) -> dict[str, Any] | None:
    """The body of the stored entry ``name(*args)`` when its checksum and name match, and its
    file and folder belong to this user and no one else may write them; else ``None``."""
    path = _entry_path(name, args)
    if path is None:
        return None
    try:
        if not (_private(path) and _private(path.parent)):
            return None
        entry = json.loads(path.read_text())
        body = entry["body"]
        if entry.get("sha256") != _checksum(body) or body.get("name") != name:
            return None
        return body
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _private(path: pathlib.Path) -> bool:
    """Owned by this user and not writable by group or others (always true without POSIX ids)."""
    if not hasattr(os, "getuid"):
        return True
    st = path.stat()
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


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
    path = _entry_path(name, args)
    if path is None:
        return
    import tempfile  # (only to write: a warm process does not import it)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"sha256": _checksum(body), "body": body})
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(text)
            os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new one
        except BaseException:
            pathlib.Path(tmp).unlink(missing_ok=True)
            raise
    except (OSError, TypeError, ValueError):
        return


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
