"""The audit's angle bound re-checked by Gappa (skipped where Gappa is not installed)."""

from __future__ import annotations

import pytest

from pe_symbolic.audit.gappa import angle_gamma, angle_script, gappa_path, run_gappa

needs_gappa = pytest.mark.skipif(gappa_path() is None, reason="gappa is not installed")

CASES = [  # (angle dtype, inverse-frequency dtype, largest position)
    ("float32", "float32", 2**20),
    ("float32", "float32", 2**26),  # beyond float32's exact integers: the position rounds too
    ("float64", "float64", 2**40),
    ("float64", "float32", 2**20),
    ("bfloat16", "bfloat16", 2**8),
    ("float16", "float16", 2**11),
]


@needs_gappa
@pytest.mark.parametrize("angle, inv_freq, t_max", CASES)
def test_gappa_proves_the_audit_bound_and_rejects_half_of_it(angle: str, inv_freq: str, t_max: int) -> None:
    gamma = angle_gamma(angle, inv_freq, t_max)
    assert run_gappa(angle_script(angle, inv_freq, t_max, 1e-4, gamma)).proved
    too_tight = run_gappa(angle_script(angle, inv_freq, t_max, 1e-4, gamma / 2))
    assert not too_tight.proved and "best:" in too_tight.output


@needs_gappa
def test_the_absolute_bound_of_the_issue() -> None:
    """|fl(m fl(theta)) - m theta| <= 1/8 for integers m <= 2**20 in binary32; 1/64 is rejected."""
    script = ("@rnd = float<ieee_32, ne>;\nth = rnd(theta);\na = rnd(m * th);\n"
              "{ m in [1, 1048576] /\\ @FIX(m, 0) /\\ theta in [0.0001, 1] -> |a - m * theta| <= B }\n")
    assert run_gappa(script.replace("B", "0.125")).proved
    assert not run_gappa(script.replace("B", "0.015625")).proved


@pytest.mark.parametrize("kw, msg", [
    ({"angle_dtype": "float8"}, "angle_dtype='float8' is not allowed"),
    ({"t_max": 0}, "t_max=0 must be a positive integer"),
    ({"theta_min": 2.0}, "theta_min=2.0 must be in"),
    ({"gamma": 0.0}, "gamma=0.0 must be in"),
])
def test_bad_arguments_are_named(kw: dict, msg: str) -> None:
    args = {"angle_dtype": "float32", "inv_freq_dtype": "float32", "t_max": 16, "theta_min": 1e-4, "gamma": 1e-7}
    args.update(kw)
    with pytest.raises(ValueError, match=msg):
        angle_script(**args)
