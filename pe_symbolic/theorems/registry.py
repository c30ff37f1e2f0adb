r"""The registry of named claims, and how they are proved, cached and cited.

Each :class:`Theorem` builds its :class:`~pe_symbolic.proof.Claim` (and, where the proof
is written by hand, its chains) in its generic form (``d=None``: for every even ``d``, for one
pair, or as stated, see :attr:`Theorem.scope`) or instantiated for a concrete even ``d``.
:func:`lemma` is what a ``"lemma ID"`` step may use: the generic claim of a proved theorem,
refused when citing it would be circular.

>>> from pe_symbolic import theorems
>>> theorems.get("rope.relative").prove().verdict
'proved'
>>> theorems.get("translation.identity").prove(d=4).verdict
'proved'
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._validate import check_d
from ..proof import Claim, Proof, Step, prove, recheck
from ..proof.engine import SearchHints
from . import _hints
from ..proof.kernel import LemmaError

__all__ = ["DEFAULT_THEOREM_TIMEOUT", "Built", "Theorem", "all", "get", "ids", "lemma", "nearest", "recheck_certificate", "register",
           "theorem"]

#: What a theorem's generic form covers (see :class:`Theorem`).
SCOPES = ("every even d", "lemma", "as stated")

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
    scope : str
        What the generic form (``d=None``) covers, as printed in headers: ``"every even d"``
        (the foundation theorems, lifted pair by pair), ``"lemma"`` (one 2x2 block or one
        pair, cited by the others) or ``"as stated"`` (a claim that does not depend on d).
    latex : str
        The statement typeset by its author, in LaTeX math (amsmath, and what MathJax
        accepts): concise mathematics as a paper states it, saying no more than the
        equations that are checked; display lines separated by ``\\\\``. Carried by
        :meth:`claim` (and so by every proof and rendering of it) as
        :attr:`Claim.latex <pe_symbolic.proof.Claim.latex>` unless the built claim sets its
        own; display only: never checked, not part of certificates.
    """

    id: str
    title: str
    source: str
    build: Callable[[int | None], Built] = field(repr=False)
    concrete: bool = True
    expect: str = "proved"
    scope: str = "as stated"
    latex: str = ""

    def __post_init__(self) -> None:
        if self.expect not in ("proved", "refuted"):
            raise ValueError(f"expect={self.expect!r} is not allowed; use 'proved' or 'refuted'")
        if self.scope not in SCOPES:
            raise ValueError(f"scope={self.scope!r} is not allowed; use one of {', '.join(map(repr, SCOPES))}")
        if not isinstance(self.latex, str):
            raise TypeError(f"latex={self.latex!r} must be a string")

    def claim(self, d: int | None = None) -> Claim:
        r"""The claim, generic (``d=None``) or instantiated for an even ``d`` (built once),
        carrying the theorem's typeset statement (its ``latex``).

        >>> get("rope.relative").claim().latex.startswith(r"\langle R(m)\,q")
        True
        """
        return _built_cached(self.id, self._check_d(d))[0]

    def prove(self, d: int | None = None, *, timeout: float | None = DEFAULT_THEOREM_TIMEOUT,
              progress: Callable[[int, int], None] | None = None) -> Proof:
        """Prove the claim within ``timeout`` seconds (results are cached per ``(id, d, timeout)``).

        The proof's ``extra`` records ``registered`` and ``d``, so its certificate binds this
        theorem: :func:`recheck_certificate` rebuilds the claim from the registry.
        ``progress(done, total)`` is called after each part (not for a cached result).
        """
        d = self._check_d(d)
        key = (self.id, d, timeout)
        if progress is not None and key not in _DONE:
            _PROGRESS[key] = progress
        try:
            return _prove_cached(self.id, d, timeout)
        finally:
            _PROGRESS.pop(key, None)

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


def theorem(id: str, title: str, source: str, *, concrete: bool = True, expect: str = "proved",
            scope: str = "as stated", latex: str = ""):
    r"""Decorator: register ``build(d)`` as the theorem ``id`` (see :class:`Theorem`).

    ``latex`` is the statement typeset by its author (see :class:`Theorem`), e.g.
    ``latex=r"\det \mathrm{rot2}(a) = 1"``; every rendering of the theorem's proofs shows it.
    """

    def deco(build: Callable[[int | None], Built]) -> Callable[[int | None], Built]:
        register(Theorem(id, title, source, build, concrete, expect, scope, latex))
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


_IN_PROGRESS: list[str] = []  # ids whose generic form is being proved (a concrete d may cite it)


def lemma(id: str) -> Claim:
    """The generic claim of theorem ``id`` if it is proved: what a ``"lemma ID"`` step may use.

    Raises :class:`~pe_symbolic.proof.kernel.LemmaError` if it is not proved, or if citing it
    would be circular (a proof citing, directly or not, the claim it proves).
    """
    th = get(id)
    if th.id in _IN_PROGRESS:
        cycle = " -> ".join([*_IN_PROGRESS[_IN_PROGRESS.index(th.id):], th.id])
        raise LemmaError(f"citing {th.id!r} here is circular ({cycle})")
    proof = th.prove()
    if proof.verdict != "proved":
        raise LemmaError(f"{th.id!r} is {proof.verdict}, not proved")
    return proof.claim


@functools.lru_cache(maxsize=64)
def _built_cached(id: str, d: int | None) -> tuple[Claim, Mapping[int, Sequence[Step]] | None]:
    th = get(id)
    claim, chains = _split(th.build(d))
    if th.latex and not claim.latex:  # display only: certificates and the checker never read it
        # a copy with the theorem's statement typeset; ``dataclasses.replace`` would check the
        # whole claim a second time (the copy's equations and assumptions are the same
        # objects, checked when the claim was built; ``latex`` is a string, see Theorem)
        claim = copy.copy(claim)
        object.__setattr__(claim, "latex", th.latex)
    return claim, chains


_PROGRESS: dict[tuple[str, int | None, float | None], Callable[[int, int], None]] = {}
_DONE: set[tuple[str, int | None, float | None]] = set()


@functools.lru_cache(maxsize=256)
def _prove_cached(id: str, d: int | None, timeout: float | None) -> Proof:
    start = time.perf_counter()
    claim, chains = _built_cached(id, d)  # building may solve (translation.derive)
    _IN_PROGRESS.append(id if d is None else f"{id} (d={d})")
    # where the search starts: the strategy that reached zero for each equation in an earlier
    # run of the same code (on disk; only the order of the search, see theorems._hints)
    hints = SearchHints(_hints.load(id, d))
    try:
        proof = prove(claim, chains=chains, timeout=timeout, lemmas=lemma,
                      progress=_PROGRESS.get((id, d, timeout)), hints=hints)
    finally:
        _IN_PROGRESS.pop()
    if hints.found != hints.known and not any(p.verdict == "undecided" for p in proof.parts):
        _hints.store(id, d, hints.found)
    _DONE.add((id, d, timeout))
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
    return recheck(data, resolve=_resolve, lemmas=lemma, timeout=timeout)


def _load_extensions() -> None:
    """Hook kept for callers of the registry: every theorem module registers on import of
    :mod:`pe_symbolic.theorems`, so there is nothing left to load."""
