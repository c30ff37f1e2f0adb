"""Planted entries in the package's three stores (Coq's answers, search hints, the numeric disk
cache) are ignored unless every folder from the cache root down to the entry, and the entry
itself, belongs to this user, no one else may write it, and nothing below the root is a
symbolic link; and a reader that promises "never an error" is never an error.

Each attack plants a well-formed entry -- the one the package itself would write, at the key
its own functions compute -- with one thing wrong along its path (issue 42, item 5). The
control plants the same entry correctly: it is read, so each attack test could fail.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
import sympy as sp

from pe_symbolic.numeric import _diskcache as D
from pe_symbolic.proof import Claim, Equation, coq_export
from pe_symbolic.proof.coq_export import check, coq_cache_dir, export_claim
from pe_symbolic.proof.engine import SEARCH_STRATEGIES
from pe_symbolic.theorems import _hints

from planting import ATTACKS, IDS, needs_posix, plant

HAS_COQ = shutil.which("coqtop") is not None


# --- Coq's answers ----------------------------------------------------------------------------

x = sp.Symbol("x", real=True)
FALSE_LEMMA = Claim("attack.false", "forall x, 1 + x = 2 + x", (Equation(1 + x, 2 + x),))


class CoqStarted(Exception):
    """Raised in place of starting Coq: the answer was not taken from the cache."""


def _coq_rel(key: str) -> tuple[str, ...]:
    return ("coq", key[:2], key + ".json")


def _coq_entry(key: str, **extra) -> bytes:
    return json.dumps({"defined": True, "key": key, "axioms": [], **extra}).encode()


@needs_posix
@pytest.mark.parametrize("where,how", [(None, "")] + ATTACKS, ids=["control"] + IDS)
def test_a_planted_coq_answer_is_refused_without_coq(tmp_path, monkeypatch, where, how):
    monkeypatch.setenv(coq_export.CACHE_ENV, str(tmp_path / "cache"))
    key = hashlib.sha256(b"a question").hexdigest()
    plant(tmp_path / "cache", _coq_rel(key), _coq_entry(key), where, how)
    hit = coq_export._cache_load(coq_cache_dir(), key)
    if where is None:
        assert hit is not None and hit["defined"] is True
    else:
        assert hit is None


def _false_key(exp) -> str:
    exe = shutil.which("coqtop")
    (lem,) = exp.lemmas
    return coq_export._cache_key(coq_export._coq_fingerprint(exe), coq_export.preamble(exe), "lemma",
                                 lem.text(tolerant=True, token=0))


def _no_coq(*args, **kwargs):
    raise CoqStarted


@pytest.mark.skipif(not HAS_COQ, reason="Coq (coqtop) is not installed: the lookup itself is tested above")
@needs_posix
@pytest.mark.parametrize("where,how", [(None, "")] + ATTACKS, ids=["control"] + IDS)
def test_a_planted_coq_answer_does_not_make_a_false_lemma_checked(tmp_path, monkeypatch, where, how):
    monkeypatch.setenv(coq_export.CACHE_ENV, str(tmp_path / "cache"))
    exp = export_claim(FALSE_LEMMA)
    key = _false_key(exp)  # the key is computable with the package's own function
    plant(tmp_path / "cache", _coq_rel(key), _coq_entry(key), where, how)
    monkeypatch.setattr(coq_export.subprocess, "Popen", _no_coq)
    if where is None:  # the control: this user's own private entry is believed (it is their store)
        assert [r.status for r in check([exp]).results] == ["checked"]
    else:
        with pytest.raises(CoqStarted):  # Coq is asked: the entry decided nothing
            check([exp])


@pytest.mark.skipif(not HAS_COQ, reason="Coq (coqtop) is not installed: the lookup itself is tested below")
@needs_posix
def test_a_deeply_nested_coq_answer_is_no_error(tmp_path, monkeypatch):
    monkeypatch.setenv(coq_export.CACHE_ENV, str(tmp_path / "cache"))
    exp = export_claim(FALSE_LEMMA)
    key = _false_key(exp)
    plant(tmp_path / "cache", _coq_rel(key), b'{"defined": true, "x": ' + b"[" * 200_000 + b"]" * 200_000 + b"}")
    monkeypatch.setattr(coq_export.subprocess, "Popen", _no_coq)
    with pytest.raises(CoqStarted):
        check([exp])


@needs_posix
def test_a_deeply_nested_coq_answer_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.setenv(coq_export.CACHE_ENV, str(tmp_path / "cache"))
    key = hashlib.sha256(b"a question").hexdigest()
    for deep in (b"[" * 200_000 + b"]" * 200_000, b'{"defined": true, "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"):
        plant(tmp_path / "cache", _coq_rel(key), deep)
        assert coq_export._cache_load(coq_cache_dir(), key) is None


# --- search hints -----------------------------------------------------------------------------


def _hint_rel(id: str, d: int | None) -> tuple[str, ...]:
    path = _hints._path(id, d)
    return path.relative_to(D.cache_dir()).parts


@needs_posix
@pytest.mark.parametrize("where,how", [(None, "")] + ATTACKS, ids=["control"] + IDS)
def test_a_planted_hint_is_refused(tmp_path, monkeypatch, where, how):
    monkeypatch.setenv("PE_SYMBOLIC_CACHE_DIR", str(tmp_path / "cache"))
    entry = json.dumps({"id": "rot2.det", "d": None, "hints": {"0": list(SEARCH_STRATEGIES[-1])}}).encode()
    plant(tmp_path / "cache", _hint_rel("rot2.det", None), entry, where, how)
    hints = _hints.load("rot2.det", None)
    assert hints == ({0: SEARCH_STRATEGIES[-1]} if where is None else {})


@needs_posix
def test_a_deeply_nested_hint_file_is_no_error(tmp_path, monkeypatch):
    from pe_symbolic import theorems
    from pe_symbolic.theorems import registry

    monkeypatch.setenv("PE_SYMBOLIC_CACHE_DIR", str(tmp_path / "cache"))
    rel = _hint_rel("rot2.det", None)
    for deep in (b"[" * 200_000 + b"]" * 200_000,
                 b'{"id": "rot2.det", "d": null, "hints": ' + b"{" * 1 + b'"0": ' + b"[" * 3000 + b"]" * 3000 + b"}}"):
        plant(tmp_path / "cache", rel, deep)
        assert _hints.load("rot2.det", None) == {}
        registry._prove_cached.cache_clear()
        assert theorems.get("rot2.det").prove().verdict == "proved"


# --- the numeric disk cache -------------------------------------------------------------------


def _disk_rel(name: str, args: tuple) -> tuple[str, ...]:
    return D._entry_path(name, args).relative_to(D.cache_dir()).parts


def _disk_entry(body: dict) -> bytes:
    return json.dumps({"sha256": D._checksum(body), "body": body}).encode()


@needs_posix
@pytest.mark.parametrize("where,how", [(None, "")] + ATTACKS, ids=["control"] + IDS)
def test_a_planted_verdict_and_function_are_refused(tmp_path, monkeypatch, where, how):
    monkeypatch.setenv(D.ENV, str(tmp_path / "cache"))
    # a verdict: "proved" for a claim that is not
    body = {"name": "verdict", "args": [repr("attack.false")], "value": "proved"}
    plant(tmp_path / "cache", _disk_rel("verdict", ("attack.false",)), _disk_entry(body), where, how)
    assert D.load_value("verdict", ("attack.false",)) == ("proved" if where is None else None)
    # a function: its source would run on load
    shutil.rmtree(tmp_path / "cache")
    for p in tmp_path.glob("elsewhere-*"):
        shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
    body = {"name": "planted", "args": [], "function": "f", "source": "def f(a):\n    return 42\n",
            "globals": {}, "doc": "", "claim_id": "attack.false", "expression": "", "ufunc": None}
    plant(tmp_path / "cache", _disk_rel("planted", ()), _disk_entry(body), where, how)
    fn = D.load("planted", ())
    if where is None:
        assert fn is not None and fn(0) == 42
    else:
        assert fn is None


@needs_posix
def test_a_deeply_nested_disk_entry_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.setenv(D.ENV, str(tmp_path / "cache"))
    rel = _disk_rel("verdict", ("attack.false",))
    for deep in (b"[" * 200_000 + b"]" * 200_000,
                 b'{"sha256": "0", "body": {"value": ' + b"[" * 3000 + b"]" * 3000 + b"}}"):
        plant(tmp_path / "cache", rel, deep)
        assert D.load_value("verdict", ("attack.false",)) is None
