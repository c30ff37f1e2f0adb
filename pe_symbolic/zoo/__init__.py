r"""A whole model zoo at once: a RoPE card for every config of a corpus, and the diff between two sweeps.

:func:`pe_symbolic.cards` (``pe-audit cards CORPUS``) reads a corpus (a folder of ``config.json`` files,
a JSON Lines file, a Parquet table, or the shipped configs; :mod:`~pe_symbolic.zoo.corpus`)
and writes one card per config (JSON Lines, keys sorted, no timings: two sweeps of one
corpus are equal byte for byte): the RoPE program per layer and sub-module, the usable
context, each engine's verdict and support, the audit's angle bound in the config's dtype
at its context, and what was refused and why (:mod:`~pe_symbolic.zoo.card`).

* **Work shared** (:mod:`~pe_symbolic.zoo.group`): configs are grouped by their RoPE inputs
  and dtype (fine-tunes of one base share a group); each group is computed once, and every
  card names its ``group`` (and ``program_id``, the hash of its RoPE program).
* **Resumable and safe** (:mod:`~pe_symbolic.zoo.store`, :mod:`~pe_symbolic.zoo.run`): each
  card is appended to ``out`` as soon as its group is done, keyed by the config's hash; a
  rerun reuses every card made with the same settings (and every finished group's work); each
  group runs in a process of its own under a time limit and an address-space limit, and one
  that crashes, runs out of time or memory gets cards saying so -- the sweep goes on.
* **One machine or many** (:mod:`~pe_symbolic.zoo.run`): a pool of ``jobs`` processes, or
  Ray tasks (``ray=``) on a cluster; the same function computes every card either way.
* **The diff of two sweeps** (:func:`pe_symbolic.diff_cards`, ``pe-audit cards --diff OLD NEW``).

>>> sweep = cards([("mini", {"model_type": "llama", "head_dim": 8, "rope_theta": 1e4,
...                          "max_position_embeddings": 64})], jobs=1, engines=["vllm"])
>>> c = sweep.cards[0]
>>> c["name"], c["status"], c["context"]["admitted"], c["engines"][0]["verdict"]
('mini', 'ok', 63, 'equal here (proved); elsewhere undecided')
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .card import PARTS, compute
from .corpus import Entry, canonical_json, read_corpus
from .diff import CardDiff, diff_cards
from .group import model_dtype, rope_inputs, signature
from .run import default_jobs, run_local, run_ray
from .store import CardWriter, load_cards, write_cards
from .summary import summary_html, summary_text

__all__ = ["SCHEMA", "CardDiff", "Sweep", "cards", "diff_cards", "read_corpus"]

#: The card format's version (a card says it: ``"card"``).
SCHEMA = 1
#: Outcomes a rerun with ``retry=True`` computes again.
FAILED = ("crashed", "timeout", "out of memory")
#: The fields of a card that are the config's own; the others are its group's.
IDENTITY = ("card", "key", "source", "name", "group", "made_with", "dtype_from")


@dataclass
class Sweep:
    """What :func:`pe_symbolic.cards` returns: the cards in corpus order and how they were made."""

    cards: list[dict[str, Any]]
    computed: int
    """Groups computed in this run."""
    resumed: int
    """Cards taken as they were from the output of an earlier run."""
    seconds: float
    out: str | None = None
    dropped: int = 0
    """Cards of the earlier output not kept (other settings, or configs no longer in the corpus)."""
    made_with: dict[str, Any] = field(default_factory=dict)

    @property
    def groups(self) -> int:
        """How many groups the cards fall in (an unreadable config is a group of its own)."""
        return len({c["group"] or c["key"] for c in self.cards})

    @property
    def failed(self) -> list[dict[str, Any]]:
        """The cards whose work crashed, ran out of time or of memory."""
        return [c for c in self.cards if c["status"] in FAILED]

    def summary(self, width: int = 100) -> str:
        """The summary table (one row per group), as ``pe-audit cards`` prints it."""
        return summary_text(self.cards, computed=self.computed, resumed=self.resumed, seconds=self.seconds,
                            width=width)

    def to_html(self) -> str:
        """The summary table as an HTML page."""
        return summary_html(self.cards, computed=self.computed, resumed=self.resumed, seconds=self.seconds)

    def __str__(self) -> str:
        return self.summary()


def _version() -> dict[str, Any]:
    from .._version import __version__
    from .._hfconfig import transformers_version

    return {"pe_symbolic": __version__, "hf_table": transformers_version()}


def _failed_body(status: str, error: str, dtype: str) -> dict[str, Any]:
    from .card import _EMPTY

    body: dict[str, Any] = {"status": status, "error": error, "dtype": dtype, "refused": [], "warnings": [],
                            "program_id": None}
    for part in PARTS:
        body.update(_EMPTY[part])
    return body


def _check_options(jobs: Any, timeout: Any, memory_mb: Any) -> int:
    if jobs is None:
        jobs = default_jobs()
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs={jobs!r} must be a positive integer (worker processes)")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or
                                not timeout > 0 or timeout != timeout):
        raise ValueError(f"timeout={timeout!r} must be a positive number of seconds, or None (no limit)")
    if memory_mb is not None and (isinstance(memory_mb, bool) or not isinstance(memory_mb, int) or memory_mb < 64):
        raise ValueError(f"memory_mb={memory_mb!r} must be an integer of MiB, at least 64, or None (no limit)")
    return jobs


def cards(corpus: str | os.PathLike | Iterable[Any], out: str | os.PathLike | None = None, *,
          jobs: int | None = None, ray: str | bool | None = None, timeout: float | None = 300.0,
          memory_mb: int | None = 4096, engines: Sequence[str] | None = None, generic: bool = False,
          measure: bool = False, retry: bool = False, pattern: str = "config.json", config_column: str = "config",
          name_column: str | None = None, progress: Callable[[int, int, int, int], None] | None = None,
          ray_init: Mapping[str, Any] | None = None,
          _work: Callable[[Mapping[str, Any]], Any] | None = None) -> Sweep:
    """A RoPE card for every config of ``corpus`` (see the module docstring).

    Parameters
    ----------
    corpus : str, path or iterable
        A folder of ``config.json`` files (any depth), a ``.jsonl`` file, a ``.parquet``
        table (needs ``pyarrow``), ``"shipped"``, or an iterable of configs or ``(name,
        config)`` pairs (:func:`~pe_symbolic.zoo.corpus.read_corpus`).
    out : str or path, optional
        The card file (JSON Lines). Cards are appended as they are made; at the end the file
        holds one card per config of the corpus, in corpus order. A card already there for
        the same config (key and source) made with the same settings is kept, not remade.
    jobs : int, optional
        Worker processes at once (default: the CPUs this process may use).
    ray : str or bool, optional
        Run the groups as Ray tasks: ``True`` or ``""`` (Ray's own choice: ``RAY_ADDRESS``,
        else a local instance) or a cluster address. Needs ``pip install 'pe_symbolic[ray]'``.
    timeout : float or None, default 300
        Seconds each group may take (``None``: no limit).
    memory_mb : int or None, default 4096
        The address space each worker may use, in MiB (``RLIMIT_AS``; ``None``: no limit).
    engines : sequence of str, optional
        The engines on each card (default: ``pe_symbolic.engines.DEFAULT_ENGINES``, the five as run by
        default).
    generic, measure : bool
        Also compare the engines for every value of the config's numbers; also measure the
        audit beside its bound (:func:`~pe_symbolic.zoo.card.rope_card`).
    retry : bool, default False
        Compute again the groups whose earlier cards say crashed, timeout or out of memory.
    pattern, config_column, name_column : str
        How the corpus is read (:func:`~pe_symbolic.zoo.corpus.read_corpus`).
    progress : callable, optional
        ``progress(configs done, configs, groups done, groups to compute)`` after each group.
    ray_init : mapping, optional
        Keywords for ``ray.init`` when this call starts Ray (``num_cpus=...``).

    Returns
    -------
    Sweep
        ``cards`` (dicts, corpus order), ``computed``, ``resumed``, ``summary()``,
        ``to_html()``, ``failed``.

    Raises
    ------
    ValueError, TypeError
        A corpus that cannot be read (the reason said), a bad option (named, with what is
        allowed), an unknown engine.
    ImportError
        ``ray`` without Ray installed, a Parquet corpus without ``pyarrow``.
    """
    from ..engines import DEFAULT_ENGINES, ENGINES

    jobs = _check_options(jobs, timeout, memory_mb)
    names = list(DEFAULT_ENGINES if engines is None else engines)
    bad = [e for e in names if e not in ENGINES]
    if bad:
        raise ValueError(f"engines={names!r}: {bad[0]!r} is not one of {', '.join(map(repr, ENGINES))}")
    start = time.perf_counter()
    entries = read_corpus(corpus, pattern=pattern, config_column=config_column, name_column=name_column)
    settings = {"engines": names, "generic": bool(generic), "measure": bool(measure)}
    made_with = {**_version(), "settings": settings}
    old, _ = load_cards(out) if out is not None else ([], 0)
    by_id = {(c["key"], c["source"]): c for c in old if c.get("made_with") == made_with}
    bodies: dict[str, dict[str, Any]] = {}
    for c in old:
        if c.get("made_with") == made_with and c.get("group") and not (retry and c["status"] in FAILED):
            bodies.setdefault(c["group"], {k: v for k, v in c.items() if k not in IDENTITY})

    done: list[dict[str, Any] | None] = [None] * len(entries)
    waiting: dict[str, list[int]] = {}
    tasks: list[tuple[str, dict[str, Any]]] = []
    resumed = 0
    writer = CardWriter(out)
    try:
        for i, e in enumerate(entries):
            prev = by_id.get((e.key, e.source))
            if prev is not None and prev.get("name") == e.name and not (retry and prev["status"] in FAILED):
                done[i] = prev
                resumed += 1
                continue
            if e.config is None:
                done[i] = _card(e, None, "", made_with, _failed_body("unreadable", e.error, "-"))
                writer.write(done[i])
                continue
            dtype, dtype_from = model_dtype(e.config)
            group = signature(e.config, dtype)
            if group in bodies:
                done[i] = _card(e, group, dtype_from, made_with, bodies[group])
                writer.write(done[i])
                continue
            if group not in waiting:
                waiting[group] = []
                tasks.append((group, {"config": rope_inputs(e.config), "dtype": dtype, **settings}))
            waiting[group].append(i)
        n_done = sum(c is not None for c in done)
        if progress is not None:
            progress(n_done, len(entries), 0, len(tasks))
        work = _work or compute
        if ray is not None and ray is not False:
            results = run_ray(tasks, work, address=None if ray is True else str(ray), timeout=timeout,
                              memory_mb=memory_mb, init=ray_init)
        else:
            results = run_local(tasks, work, jobs=jobs, timeout=timeout, memory_mb=memory_mb)
        dtypes = {g: t["dtype"] for g, t in tasks}
        for k, (group, outcome, payload) in enumerate(results, 1):
            body = payload if outcome == "ok" else _failed_body(outcome, str(payload), dtypes[group])
            bodies[group] = body
            for i in waiting[group]:
                e = entries[i]
                assert e.config is not None
                done[i] = _card(e, group, model_dtype(e.config)[1], made_with, body)
                writer.write(done[i])
            n_done += len(waiting[group])
            if progress is not None:
                progress(n_done, len(entries), k, len(tasks))
    finally:
        writer.close()
    final = [c for c in done if c is not None]
    if out is not None:
        write_cards(out, final)
    kept = {(c["key"], c["source"], canonical_json(c["made_with"])) for c in final}
    dropped = sum((c["key"], c["source"], canonical_json(c.get("made_with"))) not in kept for c in old)
    return Sweep(final, len(tasks), resumed, time.perf_counter() - start, None if out is None else str(out),
                 dropped, made_with)


def _card(e: Entry, group: str | None, dtype_from: str, made_with: Mapping[str, Any],
          body: Mapping[str, Any]) -> dict[str, Any]:
    card = {"card": SCHEMA, "key": e.key, "source": e.source, "name": e.name, "group": group,
            "made_with": dict(made_with), "dtype_from": dtype_from}
    card.update(body)
    return card
