"""Every foundation theorem is proved, generically and for each concrete d the issue lists."""

from __future__ import annotations

import pytest
import sympy as sp

from pe_symbolic import theorems
from pe_symbolic.proof import check_chain
from pe_symbolic.proof.kernel import Context
from pe_symbolic.theorems.lemmas import IDS as LEMMAS

FOUNDATION = (
    "translation.derive",
    "translation.identity",
    "translation.independent",
    "translation.group",
    "sinusoidal.dot",
    "sine_only.no_translation",
    "rope.relative",
    "rope.efficient_form",
    "layout.permutation",
    "schedule.geometric",
)
DIMS = (None, 2, 4, 8, 16, 64)


def test_registry_holds_the_lemmas_then_the_foundation_theorems_in_order():
    ids = theorems.ids()
    assert ids[: len(LEMMAS) + len(FOUNDATION)] == [*LEMMAS, *FOUNDATION]  # chapters register after these
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("d", DIMS, ids=lambda d: "generic" if d is None else f"d{d}")
@pytest.mark.parametrize("id_", FOUNDATION)
def test_theorem_is_proved(id_, d):
    proof = theorems.get(id_).prove(d)
    bad = [(p.equation.label, p.verdict, p.note) for p in proof.parts if p.verdict != "proved"]
    assert proof.verdict == "proved", bad
    # the verdict stands on chains that re-check, not on the engine's word
    context = Context(proof.claim.assumptions, theorems.lemma)
    for part in proof.parts:
        assert check_chain(part.equation, part.steps, context) == (True, "")


@pytest.mark.slow
@pytest.mark.parametrize("id_", ["translation.identity", "translation.group", "layout.permutation"])
def test_theorem_is_proved_at_d128(id_):
    assert theorems.get(id_).prove(128).verdict == "proved"


def test_every_theorem_has_a_source_and_statement():
    for th in theorems.all():
        claim = th.claim()
        assert th.source and claim.statement and claim.id == th.id


def test_translation_matrix_is_free_of_t():
    from pe_symbolic.encodings.sinusoidal import translation_matrix
    from pe_symbolic.encodings.symbols import t, k

    for d in (2, 8, 64):
        T = translation_matrix(k, d)
        assert t not in T.free_symbols and k in T.free_symbols


def test_denk_solution_is_the_translation_block():
    """translation.derive solves for M; the solved M is what the rest of the package uses."""
    from pe_symbolic.encodings.sinusoidal import translation_block
    from pe_symbolic.encodings.symbols import k, omega

    claim = theorems.get("translation.derive").claim()
    solved = claim.equations[1].lhs
    assert solved == translation_block(k, omega)


def test_unknown_id_names_the_nearest_ids():
    with pytest.raises(LookupError, match="nearest: rope.relative"):
        theorems.get("rope.relatve")


def test_concrete_d_is_validated():
    th = theorems.get("translation.identity")
    for bad in (3, 0, -2, 2.5, "8"):
        with pytest.raises(ValueError, match="must be a positive even integer"):
            th.prove(bad)


def test_proofs_are_cached_per_id_and_d():
    th = theorems.get("rope.efficient_form")
    assert th.prove(4) is th.prove(4)
    assert th.prove(4) is not th.prove(8)


def test_symbolic_d_identity_of_layouts_uses_integer_index():
    """layout.permutation's generic form needs i integer: with i real it is not proved."""
    from pe_symbolic.proof import check_identity

    x = sp.Symbol("x", real=True)
    d = sp.Symbol("d", positive=True, even=True, integer=True)
    p = check_identity(sp.floor((2 * x + 1) / 2) + sp.Mod(2 * x + 1, 2) * d / 2, x + d / 2)
    assert p.verdict != "proved"
