"""Search hints (pe_symbolic.proof.engine.SearchHints, pe_symbolic.theorems._hints): they order
the search and nothing else -- a hint never makes a false claim proved, a stale or forged
one changes at most which checked chain is found, and a warm run finds what a cold one finds."""

from __future__ import annotations

import json
import os

import pytest
import sympy as sp

from pe_symbolic.proof import Claim, Equation
from pe_symbolic.proof.kernel.claims import DIFFERENCE
from pe_symbolic.proof.engine import SEARCH_STRATEGIES, SearchHints, prove
from pe_symbolic.theorems import _hints, registry

x = sp.Symbol("x", real=True)


def _claim(lhs, rhs) -> Claim:
    return Claim("hints.demo", f"{lhs} = {rhs}", (Equation(lhs, rhs),))


def test_the_hint_of_a_run_finds_the_chain_the_whole_search_finds():
    claim = _claim(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1))
    cold = SearchHints()
    first = prove(claim, hints=cold)
    assert first.verdict == "proved" and cold.found[0] in SEARCH_STRATEGIES
    assert SEARCH_STRATEGIES.index(cold.found[0]) > 0  # the hint skips at least one failing strategy
    warm = SearchHints(known=dict(cold.found))
    again = prove(claim, hints=warm)
    assert again.verdict == "proved" and again.parts[0].steps == first.parts[0].steps
    assert warm.found == cold.found


@pytest.mark.parametrize("hint", [("simplify",), ("no such rule",), ()])
def test_a_hint_that_names_no_strategy_is_ignored(hint):
    claim = _claim(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1))
    plain = prove(claim)
    hinted = prove(claim, hints=SearchHints(known={0: hint}))
    assert hinted.verdict == plain.verdict == "proved" and hinted.parts[0].steps == plain.parts[0].steps


def test_a_stale_hint_costs_one_try_and_finds_the_same_chain():
    claim = _claim(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1))
    plain = prove(claim)
    stale = ("expand",)  # a strategy that does not reach zero here
    assert stale in SEARCH_STRATEGIES
    hints = SearchHints(known={0: stale})
    hinted = prove(claim, hints=hints)
    assert hinted.parts[0].steps == plain.parts[0].steps and hints.found[0] != stale


def test_a_hint_to_another_strategy_that_reaches_zero_gives_a_checked_chain():
    claim = _claim((x + 1) ** 2, x ** 2 + 2 * x + 1)
    cold = SearchHints()
    assert prove(claim, hints=cold).verdict == "proved" and cold.found[0] == ("expand",)
    other = next(s for s in SEARCH_STRATEGIES[1:] if s[-1] == "expand")
    hinted = prove(claim, hints=SearchHints(known={0: other}))
    assert hinted.verdict == "proved"  # a different chain, checked by the kernel as any other
    assert all(step.rule in other or step.rule == DIFFERENCE for step in hinted.parts[0].steps)


@pytest.mark.parametrize("lhs,rhs", [(sp.sin(x) ** 2 - sp.cos(x) ** 2, sp.Integer(1)),
                                     (sp.sin(2 * x), 2 * sp.sin(x))])
def test_no_hint_makes_a_false_claim_proved(lhs, rhs):
    claim = _claim(lhs, rhs)
    for strategy in SEARCH_STRATEGIES:
        assert prove(claim, hints=SearchHints(known={0: strategy})).verdict == "refuted"


def test_hints_on_disk_round_trip_and_refuse_what_they_should(tmp_path, monkeypatch):
    monkeypatch.setenv("PE_SYMBOLIC_CACHE_DIR", str(tmp_path))
    assert _hints.load("rope.relative", None) == {}
    strategy = SEARCH_STRATEGIES[1]
    _hints.store("rope.relative", None, {0: strategy, 3: SEARCH_STRATEGIES[0]})
    assert _hints.load("rope.relative", None) == {0: strategy, 3: SEARCH_STRATEGIES[0]}
    assert _hints.load("rope.relative", 8) == {} and _hints.load("rope.efficient_form", None) == {}
    (path,) = [p for p in _hints.hints_dir().iterdir() if p.suffix == ".hint"]
    entry = json.loads(path.read_text())
    # an entry for another theorem copied over this one's name is no hint
    path.write_text(json.dumps({**entry, "id": "rope.efficient_form"}))
    assert _hints.load("rope.relative", None) == {}
    for bad in ("{", json.dumps({**entry, "hints": {"0": "expand"}}), json.dumps({**entry, "hints": {"x": []}})):
        path.write_text(bad)
        assert _hints.load("rope.relative", None) == {}
    path.write_text(json.dumps(entry))
    assert _hints.load("rope.relative", None) != {}
    if hasattr(os, "getuid"):  # a file others may write is not read
        path.chmod(0o666)
        assert _hints.load("rope.relative", None) == {}
        path.chmod(0o600)
        assert _hints.load("rope.relative", None) != {}


def test_the_cache_off_stores_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("PE_SYMBOLIC_CACHE_DIR", "off")
    assert _hints.hints_dir() is None
    _hints.store("rope.relative", None, {0: SEARCH_STRATEGIES[0]})
    assert _hints.load("rope.relative", None) == {}


def test_a_registered_theorem_proved_warm_prints_what_it_printed_cold(tmp_path, monkeypatch):
    from pe_symbolic.proof.render import render

    monkeypatch.setenv("PE_SYMBOLIC_CACHE_DIR", str(tmp_path))
    prove_uncached = registry._prove_cached.__wrapped__
    cold = prove_uncached("pair.dot", None, 300.0)
    assert _hints.load("pair.dot", None)  # the search's strategies were stored
    warm = prove_uncached("pair.dot", None, 300.0)
    assert warm.verdict == cold.verdict == "proved"
    assert [p.steps for p in warm.parts] == [p.steps for p in cold.parts]
    strip = lambda text: "\n".join(line for line in text.splitlines() if "PROVED in" not in line)  # noqa: E731
    assert strip(render(warm, "text")) == strip(render(cold, "text"))
