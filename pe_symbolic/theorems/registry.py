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
from ..proof import Claim, Proof, Step, prove, recheck

__all__ = ["DEFAULT_THEOREM_TIMEOUT", "Theorem", "all", "get", "ids", "recheck_certificate", "register", "theorem"]

#: Seconds a registered theorem's proof may take by default (``pe-derive --timeout``).
DEFAULT_THEOREM_TIMEOUT = 300.0

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

    def prove(self, d: int | None = None, *, timeout: float | None = DEFAULT_THEOREM_TIMEOUT) -> Proof:
        """Prove the claim within ``timeout`` seconds (results are cached per ``(id, d, timeout)``).

        The proof's ``extra`` records ``registered`` and ``d``, so its certificate binds this
        theorem: :func:`recheck_certificate` rebuilds the claim from the registry.
        """
        return _prove_cached(self.id, self._check_d(d), timeout)

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
    """Add ``theorem`` to the registry (ids are unique)."""
    if theorem.id in _REGISTRY:
        raise ValueError(f"theorem id {theorem.id!r} is already registered")
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
    """The theorem with this id; a :class:`LookupError` names the nearest ids otherwise.

    >>> get("translation.identiy")
    Traceback (most recent call last):
    LookupError: unknown theorem id 'translation.identiy'; nearest: translation.identity, ...
    """
    _load_extensions()
    try:
        return _REGISTRY[id]
    except KeyError:
        near = difflib.get_close_matches(str(id), list(_REGISTRY), n=3, cutoff=0.4)
        hint = ", ".join(near) if near else "none (run `pe-derive list`)"
        raise LookupError(f"unknown theorem id {id!r}; nearest: {hint}") from None


@functools.lru_cache(maxsize=256)
def _prove_cached(id: str, d: int | None, timeout: float | None) -> Proof:
    start = time.perf_counter()
    claim, chains = _split(get(id).build(d))  # building may solve (translation.derive)
    proof = prove(claim, chains=chains, timeout=timeout)
    # the reported time covers building the claim as well as proving it
    return dataclasses.replace(proof, elapsed=time.perf_counter() - start,
                               extra={**proof.extra, "registered": True, "d": d})


def _resolve(id: str, d: int | None) -> Claim:
    th = get(id)
    return th.claim(d)


def recheck_certificate(data: Any, *, timeout: float | None = 300.0) -> Proof:
    """Re-check a certificate against the registry; return the checked :class:`~pe_symbolic.proof.Proof`.

    A certificate of a registered theorem is refused (:class:`~pe_symbolic.proof.CertificateError`)
    unless its claim is exactly the one the registry builds for its id and ``d``; a user's
    claim is refused unless its statement renders its own equations, and may not borrow a
    registered id. See :func:`pe_symbolic.proof.certificates.recheck`.
    """
    return recheck(data, resolve=_resolve, timeout=timeout)


def _load_extensions() -> None:
    """Hook kept for callers of the registry: every theorem module registers on import of
    :mod:`pe_symbolic.theorems`, so there is nothing left to load."""
