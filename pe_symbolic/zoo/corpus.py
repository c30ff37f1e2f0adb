"""Reading a corpus of model configs: a folder, a JSON Lines file, a Parquet table, the shipped set.

Every reader yields :class:`Entry` objects in a stable order (a folder: sorted relative paths;
a file: line or row order), each with a ``source`` that names where it came from *relative to
the corpus* (so two sweeps of one corpus copied elsewhere name their configs alike), a
``name`` and the config as a dict -- or, for an entry that cannot be read as a JSON object,
``config = None`` and the reason in ``error`` (its card then says ``unreadable``; a bad entry
never stops the sweep).

An entry's ``key`` is a hash of its config (:func:`config_key`: SHA-256 of the canonical JSON,
keys sorted); a sweep's output is keyed by it, so a rerun skips the configs already done.

>>> entries = read_corpus([{"model_type": "llama", "rope_theta": 1e4, "head_dim": 8}])
>>> entries[0].source, entries[0].name, entries[0].key
('item 0', 'item 0', '7cdcf2c014f8a8d6')
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["NAME_COLUMNS", "SHIPPED", "Entry", "canonical_json", "config_key", "read_corpus"]

#: The corpus name that means the configs shipped with the package (:func:`pe_symbolic.numeric.model_configs`).
SHIPPED = "shipped"
#: Columns (JSON Lines keys) a config's name is taken from when ``name_column`` is not given, first found.
NAME_COLUMNS = ("name", "id", "model_id", "modelId", "repo_id")


@dataclass(frozen=True)
class Entry:
    """One config of a corpus."""

    source: str
    """Where it is, relative to the corpus: ``"org/model/config.json"``, ``"line 12"``, ``"row 12"``."""
    name: str
    """What the summary calls it: the name column, the folder of a ``config.json``, else the source."""
    config: dict[str, Any] | None
    """The config (``None``: unreadable, see ``error``)."""
    key: str
    """:func:`config_key` of the config (of the raw text when unreadable)."""
    error: str = ""


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys and no spaces: equal dicts give equal text.

    >>> canonical_json({"b": 1, "a": [1.0, {"d": None, "c": "x"}]})
    '{"a":[1.0,{"c":"x","d":null}],"b":1}'
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True)


def config_key(config: Any) -> str:
    """The first 16 hex digits of the SHA-256 of :func:`~pe_symbolic.zoo.corpus.canonical_json` (64 bits: no two configs of a
    corpus of millions collide but with odds of about 1e-8).

    >>> config_key({"rope_theta": 10000.0, "head_dim": 64}) == config_key({"head_dim": 64, "rope_theta": 10000.0})
    True
    """
    return hashlib.sha256(canonical_json(config).encode()).hexdigest()[:16]


def _text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]


def _parse(text: str) -> tuple[Any, str]:
    try:
        return json.loads(text), ""
    except (json.JSONDecodeError, RecursionError) as exc:
        return None, f"not JSON: {exc}"


def _unwrap(obj: Any, config_column: str, name_column: str | None) -> tuple[dict | None, str | None, str]:
    """(config, name or None, error) of one JSON value: a config, or an object with the config under
    ``config_column`` (a dict, or its JSON text) and the name under ``name_column``."""
    if not isinstance(obj, dict):
        return None, None, f"not a JSON object (a model config.json) but {type(obj).__name__}"
    name = None
    if config_column in obj:
        cols = [name_column] if name_column else list(NAME_COLUMNS)
        for c in cols:
            if isinstance(obj.get(c), str) and obj[c].strip():
                name = obj[c].strip()
                break
        cfg = obj[config_column]
        if isinstance(cfg, str):
            cfg, err = _parse(cfg)
            if err:
                return None, name, f"column {config_column!r}: {err}"
        if not isinstance(cfg, dict):
            return None, name, f"column {config_column!r} is not a JSON object (a model config.json) but " \
                               f"{type(cfg).__name__}"
        return cfg, name, ""
    return obj, None, ""


def _entry(source: str, default_name: str, raw: str | None, obj: Any, config_column: str,
           name_column: str | None, error: str = "") -> Entry:
    if error:
        return Entry(source, default_name, None, _text_key(raw or source), error)
    cfg, name, err = _unwrap(obj, config_column, name_column)
    if cfg is None:
        return Entry(source, name or default_name, None, _text_key(raw if raw is not None else repr(obj)), err)
    if name is None:
        own = cfg.get("_name_or_path")
        name = own.strip() if isinstance(own, str) and own.strip() and default_name == source else default_name
    return Entry(source, name, cfg, config_key(cfg))


def _folder(root: Path, pattern: str, config_column: str, name_column: str | None) -> Iterator[Entry]:
    files = sorted((p for p in root.rglob(pattern) if p.is_file()), key=lambda p: p.relative_to(root).as_posix())
    for p in files:
        rel = p.relative_to(root).as_posix()
        parent = p.parent.relative_to(root).as_posix()
        default = (parent if parent != "." else rel) if p.name == "config.json" else rel.rsplit(".", 1)[0]
        try:
            raw = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            yield _entry(rel, default, None, None, config_column, name_column, f"cannot be read: {exc}")
            continue
        obj, err = _parse(raw)
        yield _entry(rel, default, raw, obj, config_column, name_column, err)


def _jsonl(path: Path, config_column: str, name_column: str | None) -> Iterator[Entry]:
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            src = f"line {n}"
            obj, err = _parse(line)
            yield _entry(src, src, line, obj, config_column, name_column, err)


def _parquet(path: Path, config_column: str, name_column: str | None) -> Iterator[Entry]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(f"corpus={str(path)!r} is a Parquet table, which needs pyarrow: pip install "
                          "'pe_symbolic[parquet]' (or give a folder of config.json files or a JSON Lines file)") from None
    pf = pq.ParquetFile(path)
    names = pf.schema_arrow.names
    if config_column not in names:
        raise ValueError(f"config_column={config_column!r}: the table {str(path)!r} has no such column; its columns "
                         f"are {', '.join(map(repr, names))}")
    if name_column is not None and name_column not in names:
        raise ValueError(f"name_column={name_column!r}: the table {str(path)!r} has no such column; its columns "
                         f"are {', '.join(map(repr, names))}")
    name_col = name_column or next((c for c in NAME_COLUMNS if c in names), None)
    cols = [config_column] + ([name_col] if name_col else [])
    row = 0
    for batch in pf.iter_batches(columns=cols, batch_size=1024):
        data = batch.to_pydict()
        for i, value in enumerate(data[config_column]):
            src = f"row {row}"
            row += 1
            obj: Any = {config_column: value}
            if name_col:
                obj[name_col] = data[name_col][i]
            if value is None:
                own = data[name_col][i] if name_col else None
                name = own.strip() if isinstance(own, str) and own.strip() else src
                yield _entry(src, name, None, None, config_column, name_col, f"column {config_column!r} is null")
                continue
            yield _entry(src, src, value if isinstance(value, str) else None, obj, config_column, name_col)


def _shipped() -> Iterator[Entry]:
    from ..numeric import model_config, model_configs

    for name in sorted(model_configs()):
        cfg = model_config(name)
        yield Entry(f"shipped/{name}", name, cfg, config_key(cfg))


def _items(items: Iterable[Any], config_column: str, name_column: str | None) -> Iterator[Entry]:
    for n, obj in enumerate(items):
        src = f"item {n}"
        if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str):
            obj = {"name": obj[0], config_column: obj[1]}
        yield _entry(src, src, None, obj, config_column, name_column)


def read_corpus(corpus: str | os.PathLike | Iterable[Any], *, pattern: str = "config.json",
                config_column: str = "config", name_column: str | None = None) -> list[Entry]:
    """Every config of a corpus, in a stable order (see the module docstring).

    Parameters
    ----------
    corpus : str, path or iterable
        A folder (every file named ``pattern`` below it, at any depth), a JSON Lines file
        (``.jsonl`` / ``.ndjson``: one config per line), a Parquet table (``.parquet``/``.pq``;
        needs ``pyarrow``), ``"shipped"`` (the package's configs; a path of that name wins), or
        an iterable of config dicts or ``(name, config)`` pairs. A JSON Lines object or a row
        that holds its config under ``config_column`` (a dict or its JSON text) is unwrapped,
        its name taken from ``name_column``.
    pattern : str, default "config.json"
        The file names a folder is searched for (a glob, e.g. ``"*.json"``).
    config_column : str, default "config"
        The column (key) holding the config in a table or a wrapped line.
    name_column : str, optional
        The column holding the config's name (default: the first of ``NAME_COLUMNS``: name, id,
        model_id, modelId, repo_id).

    Returns
    -------
    list of Entry

    Raises
    ------
    ValueError
        No such corpus, an unknown file kind, or a missing column (the columns listed).
    ImportError
        A Parquet table without ``pyarrow`` (how to install it is said).

    Examples
    --------
    >>> [e.name for e in read_corpus("shipped")][:3]
    ['deepseek-v3', 'gemma-3-27b', 'gemma-3-4b']
    >>> read_corpus([("a", {"head_dim": 8}), 3])[1].error
    'not a JSON object (a model config.json) but int'
    """
    for label, value in (("config_column", config_column), ("pattern", pattern)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{label}={value!r} must be a non-empty string")
    if name_column is not None and (not isinstance(name_column, str) or not name_column):
        raise ValueError(f"name_column={name_column!r} must be a non-empty string or None")
    if isinstance(corpus, (str, os.PathLike)):
        path = Path(corpus)
        if path.is_dir():
            return list(_folder(path, pattern, config_column, name_column))
        if path.is_file():
            suffix = path.suffix.lower()
            if suffix in (".jsonl", ".ndjson"):
                return list(_jsonl(path, config_column, name_column))
            if suffix in (".parquet", ".pq"):
                return list(_parquet(path, config_column, name_column))
            raise ValueError(f"corpus={str(corpus)!r} is a file of an unknown kind ({suffix or 'no suffix'}): give a "
                             "folder of config.json files, a .jsonl / .ndjson file, a .parquet table or 'shipped'")
        if str(corpus) == SHIPPED:
            return list(_shipped())
        raise ValueError(f"corpus={str(corpus)!r} does not exist: give a folder of config.json files, a .jsonl / "
                         f".ndjson file, a .parquet table or {SHIPPED!r} (the package's configs)")
    if isinstance(corpus, Mapping):
        raise TypeError("corpus must be a path, 'shipped' or an iterable of configs; got one config (a mapping): "
                        "wrap it in a list")
    try:
        items = iter(corpus)
    except TypeError:
        raise TypeError(f"corpus must be a path, 'shipped' or an iterable of configs; got {type(corpus).__name__}") \
            from None
    return list(_items(items, config_column, name_column))
