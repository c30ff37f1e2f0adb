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


@needs_gappa
@pytest.mark.parametrize("dtype, u", [("float64", 2.0**-53), ("float32", 2.0**-24), ("bfloat16", 2.0**-8),
                                      ("float16", 2.0**-11)])
def test_gappa_proves_the_rotation_rounding_bound_of_verify_rope_and_not_less(dtype: str, u: float) -> None:
    from pe_symbolic.audit.gappa import rotation_script

    assert run_gappa(rotation_script(dtype, 4, 1, 3 * u * 4 * (1 + 1e-9))).proved  # above its decimal rendering
    assert not run_gappa(rotation_script(dtype, 4, 1, 2 * u * 4)).proved


def test_rotation_script_names_a_bad_argument() -> None:
    from pe_symbolic.audit.gappa import rotation_script

    with pytest.raises(ValueError, match="x_max=-1"):
        rotation_script("float32", -1, 1, 1e-7)
    with pytest.raises(ValueError, match="dtype='int8'"):
        rotation_script("int8", 1, 1, 1e-7)
