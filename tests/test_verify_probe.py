"""The randomized cross-checks (pe_symbolic.audit.verify.probe) and the report's words."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from pe_symbolic.audit.verify.geometry import Oracle, switch_length
from pe_symbolic.audit.verify.probe import DENSE_CAP, draw_plan, exact
from pe_symbolic.audit.verify.report import VERDICTS, VerifyReport, worst
from pe_symbolic.numeric.config import parse_rope_config


def _positions(plan):
    return set().union(*(set(np.unique(c.ids).tolist()) for c in plan.calls))


def test_the_plan_covers_what_issue_32_asks_for():
    plan = draw_plan(seed=5, context=4096, top=131071, axes=1, switch=None, length=None, dtype="float32")
    pos = _positions(plan)
    assert set(range(4096)) <= pos and 131071 in pos and 4095 in pos  # every position, the largest admitted one
    assert sum(1 for p in pos if 4096 <= p < 131071) >= 64  # spread beyond the context, up to what is admitted
    shapes = {(c.batch, c.heads, c.seq) for c in plan.calls}
    assert any(b >= 3 and h >= 3 for b, h, _ in shapes)
    assert any(s == 1 for *_, s in shapes) and any(s > 64 for *_, s in shapes)
    assert {str(c.ids.dtype) for c in plan.calls} == {"int32", "int64"}
    kinds = [c.kind for c in plan.calls]
    assert kinds[:2] == ["first", "again"] and kinds[-1] == "repeat" and kinds.count("decode") == 48
    assert {c.scale for c in plan.calls if c.kind == "linearity"} >= {1e-3, 1e3}
    assert len(plan.calls) > 60  # a counter that drifts after 50 calls is met


def test_the_plan_is_drawn_per_seed_and_repeats_for_the_same_seed():
    a = draw_plan(seed=1, context=4096, top=4095, axes=1, switch=None, length=None, dtype="float32")
    b = draw_plan(seed=1, context=4096, top=4095, axes=1, switch=None, length=None, dtype="float32")
    c = draw_plan(seed=2, context=4096, top=4095, axes=1, switch=None, length=None, dtype="float32")
    assert all(np.array_equal(x.ids, y.ids) for x, y in zip(a.calls, b.calls))
    assert _positions(a) != _positions(c) or any(not np.array_equal(x.ids, y.ids) for x, y in zip(a.calls, c.calls))


def test_a_large_context_is_dense_to_the_cap_and_sampled_beyond():
    plan = draw_plan(seed=3, context=2**20, top=2**20 - 1, axes=1, switch=None, length=None, dtype="bfloat16")
    pos = _positions(plan)
    assert set(range(DENSE_CAP)) <= pos and 2**20 - 1 in pos and len(pos) < DENSE_CAP + 4000


def test_a_length_dependent_rule_is_tested_on_each_side_of_its_switch_in_order():
    cfg = {"head_dim": 8, "rope_theta": 10000.0, "max_position_embeddings": 512,
           "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
    spec = parse_rope_config(cfg)
    plan = draw_plan(seed=4, context=1024, top=511, axes=1, switch=switch_length(spec), length=None,
                     dtype="float32")
    lengths = [c.length for c in plan.calls if c.kind not in ("first", "again", "repeat")]
    assert lengths == sorted(lengths) and min(lengths) <= 512 < max(lengths)
    assert all(c.length == int(c.ids.max()) + 1 for c in plan.calls)
    stated = draw_plan(seed=4, context=1024, top=511, axes=1, switch=512, length=700, dtype="float32")
    assert {c.length for c in stated.calls} == {700}


@pytest.mark.parametrize("layout", ["split", "interleaved"])
def test_the_vectorized_oracle_is_the_30_digit_oracle(layout):
    cfg = {"head_dim": 8, "rope_theta": 500000.0, "max_position_embeddings": 2**20,
           "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}}
    geo = Oracle(cfg, parse_rope_config(cfg), layout, None).at()
    rng = np.random.default_rng(0)
    ids = np.array([[0, 1, 4095, 2**20 - 1, 123457]])
    x = rng.standard_normal((1, 1, ids.shape[1], 8))
    got = exact(x, ids, geo)
    with mpmath.workdps(40):
        for s in range(ids.shape[1]):
            for p, (a, b) in enumerate(geo.pairs):
                th = mpmath.mpf(int(ids[0, s])) * geo.inv_exact[p]
                c, sn = mpmath.cos(th) * geo.factor_exact, mpmath.sin(th) * geo.factor_exact
                want_a = mpmath.mpf(x[0, 0, s, a]) * c - mpmath.mpf(x[0, 0, s, b]) * sn
                assert abs(float(want_a) - got[0, 0, s, a]) < 4e-15 * max(1.0, abs(float(want_a)))


def test_the_verdicts_are_the_four_words_and_the_worst_wins():
    assert VERDICTS == ("verified", "consistent (tested)", "out of bound", "differs")
    assert worst(["verified", "out of bound", "consistent (tested)"]) == "out of bound"
    assert worst([]) == "verified"
    with pytest.raises(ValueError, match="verdict='proved'"):
        VerifyReport("proved")
    rep = VerifyReport("consistent (tested)", tests={"summary": "passed -- seed 1: ..."}, notes=["n"])
    assert rep.to_text().splitlines()[0] == "verify_rope: CONSISTENT (TESTED)"
    assert "**tests**: passed" in rep.to_markdown() and '"verdict": "consistent (tested)"' in rep.to_json()
