r"""The registry of named claims about positional encodings, and their proofs.

Each :class:`Theorem` builds its :class:`~pe_symbolic.proof.Claim` either for a **generic
pair** (``d=None``: one 2x2 block with a symbolic frequency :math:`\omega` or
:math:`\theta`; since T(k) and R(m) are block-diagonal and PE(t) is a stack of pairs, the
block statement covers every even ``d``) or **instantiated** for a concrete even ``d`` with
the papers' frequencies :math:`b^{-2i/d}` and a symbolic base ``b``.

>>> from pe_symbolic import theorems
>>> [th.id for th in theorems.all()][:3]
['translation.derive', 'translation.identity', 'translation.independent']
>>> theorems.get("rope.relative").prove().verdict
'proved'
>>> theorems.get("translation.identity").prove(d=4).verdict
'proved'
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._validate import check_d
from ..proof import Claim, Proof, Step, prove

__all__ = ["Theorem", "all", "get", "ids", "nearest", "register", "theorem"]

Built = Claim | tuple[Claim, Mapping[int, Sequence[Step]]]


@dataclass(frozen=True)
class Theorem:
    """A named claim with its source; :meth:`prove` checks it with the proof engine.

    Attributes
    ----------
    id : str
        Dotted identifier, e.g. ``"translation.identity"``.
    title : str
        One line for listings.
    source : str
        Where the claim comes from (paper, seed article and section).
    build : callable
        ``build(d)`` returns the claim (or ``(claim, chains)`` with hand-written chains)
        for ``d=None`` (generic) or a concrete even ``d``.
    concrete : bool
        Whether the claim can be instantiated for a concrete ``d``.
    expect : {"proved", "refuted"}
        The verdict the claim is registered for. ``"refuted"`` marks an *honest negative*:
        a claim people make (or a bug they ship) that the engine must refute, with the
        counterexample printed, e.g. keys cached under one RoPE base and queries under
        another. ``pe-derive`` treats a verdict equal to ``expect`` as success.
    """

    id: str
    title: str
    source: str
    build: Callable[[int | None], Built] = field(repr=False)
    concrete: bool = True
    expect: str = "proved"

    def __post_init__(self) -> None:
        if self.expect not in ("proved", "refuted"):
            raise ValueError(f"expect={self.expect!r} is not allowed; use 'proved' or 'refuted'")

    def claim(self, d: int | None = None) -> Claim:
        """The claim, generic (``d=None``) or instantiated for an even ``d``."""
        return _split(self._built(d))[0]

    def prove(self, d: int | None = None) -> Proof:
        """Prove the claim (results are cached per ``(id, d)``)."""
        return _prove_cached(self.id, self._check_d(d))

    def _check_d(self, d: int | None) -> int | None:
        if d is None:
            return None
        if not self.concrete:
            raise ValueError(f"d={d!r} is not allowed: theorem {self.id!r} has no concrete-d form")
        return check_d(d)

    def _built(self, d: int | None) -> Built:
        return self.build(self._check_d(d))


def _split(built: Built) -> tuple[Claim, Mapping[int, Sequence[Step]] | None]:
    if isinstance(built, Claim):
        return built, None
    return built


_REGISTRY: dict[str, Theorem] = {}


def register(theorem: Theorem) -> Theorem:
    """Add ``theorem`` to the registry (ids are unique, ignoring case)."""
    taken = {key.casefold(): key for key in _REGISTRY}
    if theorem.id.casefold() in taken:
        raise ValueError(f"theorem id {theorem.id!r} is already registered "
                         f"(as {taken[theorem.id.casefold()]!r}; ids are case-insensitive)")
    _REGISTRY[theorem.id] = theorem
    return theorem


def theorem(id: str, title: str, source: str, *, concrete: bool = True, expect: str = "proved"):
    """Decorator: register ``build(d)`` as the theorem ``id`` (see :class:`Theorem`)."""

    def deco(build: Callable[[int | None], Built]) -> Callable[[int | None], Built]:
        register(Theorem(id, title, source, build, concrete, expect))
        return build

    return deco


def all() -> list[Theorem]:  # noqa: A001 - the contract name
    """Every registered theorem, in registration order."""
    _load_extensions()
    return list(_REGISTRY.values())


def ids() -> list[str]:
    """The registered ids, in registration order."""
    return [th.id for th in all()]


def get(id: str) -> Theorem:
    """The theorem with this id (case-insensitive); a :class:`LookupError` names the nearest ids.

    >>> get("ROPE.Relative").id
    'rope.relative'
    >>> get("translation.identiy")
    Traceback (most recent call last):
    LookupError: unknown theorem id 'translation.identiy'; nearest: translation.identity, ...
    >>> get("kernes.b")
    Traceback (most recent call last):
    LookupError: unknown theorem id 'kernes.b'; nearest: kernes.binary, kernes.bonus_dot
    """
    _load_extensions()
    try:
        return _REGISTRY[id]
    except (KeyError, TypeError):
        pass
    if isinstance(id, str):
        folded = {key.casefold(): th for key, th in _REGISTRY.items()}
        if id.strip().casefold() in folded:
            return folded[id.strip().casefold()]
    near = nearest(str(id))
    hint = ", ".join(near) if near else "none (run `pe-derive list`)"
    if len(near) == _MAX_SUGGESTIONS:
        hint += ", ... (run `pe-derive list`)"
    raise LookupError(f"unknown theorem id {id!r}; nearest: {hint}")


_MAX_SUGGESTIONS = 24


def nearest(query: str, limit: int = _MAX_SUGGESTIONS) -> list[str]:
    """The registered ids a mistyped or partial ``query`` may mean, best first.

    Case is ignored. Ids that *start with* the query come first (``"rope"`` offers every
    ``rope.*`` id), then ids with a dotted part that starts with it (``"identity"``), then
    ids that contain it; only if none of those exists, the closest spellings
    (``difflib.get_close_matches``). Within each group, registration order.

    Parameters
    ----------
    query : str
        What the user typed.
    limit : int, optional
        At most this many ids (default 24).

    Returns
    -------
    list of str
        Registered ids; empty when nothing is close.

    Examples
    --------
    >>> {i for i in ids() if i.startswith("rope.")} <= set(nearest("rope"))
    True
    >>> nearest("identity")
    ['translation.identity']
    >>> nearest("tranlsation.group")[0]
    'translation.group'
    """
    _load_extensions()
    q = str(query).strip().casefold()
    folded = {key.casefold(): key for key in _REGISTRY}
    if not q:
        return []
    groups = (
        [k for f, k in folded.items() if f.startswith(q)],
        [k for f, k in folded.items() if any(part.startswith(q) for part in f.split("."))],
        [k for f, k in folded.items() if q in f],
    )
    out: list[str] = []
    for group in groups:
        out += [k for k in group if k not in out]
    if not out:
        out = [folded[f] for f in difflib.get_close_matches(q, list(folded), n=3, cutoff=0.6)]
    return out[:limit]


@functools.lru_cache(maxsize=256)
def _prove_cached(id: str, d: int | None) -> Proof:
    start = time.perf_counter()
    claim, chains = _split(get(id).build(d))  # building may solve (translation.derive)
    proof = prove(claim, chains=chains)
    # the reported time covers building the claim as well as proving it
    return dataclasses.replace(proof, elapsed=time.perf_counter() - start)


def _load_extensions() -> None:
    """Hook kept for callers of the registry: every theorem module registers on import of
    :mod:`pe_symbolic.theorems`, so there is nothing left to load."""
