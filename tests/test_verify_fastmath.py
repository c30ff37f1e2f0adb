"""Fast-math sin / cos (CUDA __sinf / __cosf, Metal fast::) placed against the bound, in the
audit's recipes and in verify_rope."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pe_symbolic as pe
from pe_symbolic.audit.emulate import fast_cos_sin
from pe_symbolic.audit.recipes import PRESETS, Recipe


def test_the_fast_intrinsics_error_grows_with_the_angle():
    # the float32 range reduction: small angles are as good as IEEE, large ones drift (~1e-2 at 131071)
    a = np.linspace(131000, 131071, 2001, dtype=np.float32)
    c, s = fast_cos_sin(a)
    far = max(np.abs(c - np.cos(a.astype(np.float64))).max(), np.abs(s - np.sin(a.astype(np.float64))).max())
    a = np.linspace(0.0, 3.0, 2001, dtype=np.float32)
    c, s = fast_cos_sin(a)
    near = max(np.abs(c - np.cos(a.astype(np.float64))).max(), np.abs(s - np.sin(a.astype(np.float64))).max())
    assert near < 2**-22 < 1e-3 < far < 3e-2, (near, far)


def test_a_recipe_with_fast_trig_gets_its_own_bound_beyond_the_ieee_one():
    cfg = {"rope_theta": 10000.0, "head_dim": 8, "hidden_size": 32, "num_attention_heads": 4,
           "max_position_embeddings": 131072}
    fast = PRESETS["flashinfer"].replace(name="flashinfer-fast", trig="fast")
    report = pe.audit(cfg, recipe=[PRESETS["flashinfer"], fast], dtype=["float32"], context=131072)
    ieee, fm = report.results
    # the bound is derived from the rounding sequence: the fast intrinsic's float32 reduction is
    # in it, so the fast kernel is within its own bound -- and beyond the IEEE kernel's
    assert ieee.within_bounds and fm.within_bounds
    assert fm.measured("table") > 2 * ieee.measured("table") and fm.measured("table") > 1e-3
    assert fm.measured("table") > ieee.bound("table") and fm.bound("table") < 4 * fm.measured("table")
    assert "fast-math reduction" in fm.dominant


def test_fast_trig_is_a_float32_intrinsic():
    with pytest.raises(ValueError, match="trig='fast' is a float32 intrinsic"):
        Recipe("x", trig="fast", trig_dtype="float64", angle_dtype="float64")
    with pytest.raises(ValueError, match="trig='sloppy' is not allowed"):
        Recipe("x", trig="sloppy")
    assert Recipe.from_dict({"name": "y", "trig": "fast"}).trig == "fast"


def test_verify_places_a_fast_math_kernel_against_the_bound_at_the_models_largest_position():
    cfg = {"rope_theta": 10000.0, "head_dim": 8, "hidden_size": 32, "num_attention_heads": 4,
           "max_position_embeddings": 131072}
    inv = (10000.0 ** (-np.arange(0, 8, 2) / 8)).astype(np.float32)

    def kernel(x, ids):  # angles in float32 as HF's, cos / sin by the fast intrinsic
        ang = (ids[..., None].astype(np.float32) * inv).astype(np.float32)
        c, s = fast_cos_sin(ang)
        c, s = np.concatenate([c, c], -1)[:, None], np.concatenate([s, s], -1)[:, None]
        return (x * c + np.concatenate([-x[..., 4:], x[..., :4]], -1) * s).astype(x.dtype)

    # not branch-free (np.asarray to float32 of a position): not proved; against HF's recipe the
    # fast intrinsic's error is of the size of HF's own float32 angles', so tested and said so;
    # the tighter float64-angle bound it leaves, from where -- the audit above places it
    report = pe.verify_rope(kernel, cfg, context=4096, seed=1)
    assert report.verdict == "consistent (tested)", report.to_text()
    assert "131071" in report.tests["summary"]  # the config's largest admitted positions, beyond the context
    assert report.precision["beyond_float64_angle_bound_from"] < 4096
    # angles and intrinsic in float16-sized error: well beyond HF's bound, named
    def coarse(x, ids):
        ang = ids[..., None].astype(np.float16).astype(np.float32) * inv
        c, s = fast_cos_sin(ang)
        c, s = np.concatenate([c, c], -1)[:, None], np.concatenate([s, s], -1)[:, None]
        return (x * c + np.concatenate([-x[..., 4:], x[..., :4]], -1) * s).astype(x.dtype)

    report = pe.verify_rope(coarse, cfg, context=4096, seed=1)
    assert report.verdict == "out of bound" and "float16" in report.to_text(), report.to_text()
    assert math.isfinite(float(report.precision["first_position_out_of_bound"]))
