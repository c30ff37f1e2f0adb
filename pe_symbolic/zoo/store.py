"""The card file: JSON Lines, one card per config, written as the sweep goes and put in order at its end.

* :func:`~pe_symbolic.zoo.store.card_line` -- a card as one line: keys sorted, no spaces, strict JSON (a non-finite
  number is the string ``"inf"``), so equal cards are equal bytes;
* :class:`~pe_symbolic.zoo.store.CardWriter` -- appends each card as soon as it is known and flushes it (a sweep
  stopped midway leaves every finished card behind; a line cut short by the stop is ignored
  when read back);
* :func:`~pe_symbolic.zoo.store.load_cards` -- the cards of a file, in file order (the unreadable lines counted);
* :func:`~pe_symbolic.zoo.store.write_cards` -- the finished file, replaced in one step (``os.replace``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["CardWriter", "card_line", "load_cards", "write_cards"]


def card_line(card: Mapping[str, Any]) -> str:
    """One card as one line of JSON (keys sorted, no spaces), with its newline.

    >>> card_line({"status": "ok", "key": "ab", "bound": [{"angle": 0.5}]})
    '{"bound":[{"angle":0.5}],"key":"ab","status":"ok"}\\n'
    """
    return json.dumps(card, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"


def load_cards(path: str | os.PathLike) -> tuple[list[dict[str, Any]], int]:
    """(the cards of a card file in file order, how many lines were not cards) -- a line cut short
    by a stopped sweep is one of those. A missing file has no cards.

    Raises
    ------
    ValueError
        ``path`` is a folder.
    """
    p = Path(path)
    if not p.exists():
        return [], 0
    if p.is_dir():
        raise ValueError(f"{str(path)!r} is a folder, not a card file (JSON Lines)")
    cards, bad = [], 0
    with open(p, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                bad += 1
                continue
            if isinstance(obj, dict) and isinstance(obj.get("key"), str) and "source" in obj:
                cards.append(obj)
            else:
                bad += 1
    return cards, bad


class CardWriter:
    """Appends cards to a file as they come (``None``: keeps nothing), each line flushed."""

    def __init__(self, path: str | os.PathLike | None) -> None:
        self.path = None if path is None else Path(path)
        self._fh: Any = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ends_clean = True
            if self.path.exists() and self.path.stat().st_size:
                with open(self.path, "rb") as fh:
                    fh.seek(-1, os.SEEK_END)
                    ends_clean = fh.read(1) == b"\n"
            self._fh = open(self.path, "a", encoding="utf-8")
            if not ends_clean:  # a line cut short by a stopped sweep: the next card starts a line of its own
                self._fh.write("\n")

    def write(self, card: Mapping[str, Any]) -> None:
        if self._fh is not None:
            self._fh.write(card_line(card))
            self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> CardWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_cards(path: str | os.PathLike, cards: Iterable[Mapping[str, Any]]) -> None:
    """Write ``cards`` to ``path`` in this order, replacing the file in one step."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for c in cards:
            fh.write(card_line(c))
    os.replace(tmp, p)
