r"""The audit's angle bound as Gappa scripts: a second, independent check of a rounding bound.

The audit (:mod:`pe_symbolic.audit.bounds`) bounds the angle a recipe forms,
:math:`\hat a = \mathrm{fl}_a(\hat t\,\mathrm{fl}_f(\theta))`, by
:math:`|\hat a - t\theta| \le \gamma\,|t\theta|` with
:math:`\gamma = (1+u_{pos})(1+u_f)(1+u_a) - 1`: the position rounded to the angle's dtype
(``u_pos = 0`` while integers are exact there), the inverse frequency correctly rounded to
its dtype (``u_f``), one rounding of the product (``u_a``). :func:`angle_script` states that
bound for every integer position ``1 <= t <= t_max`` and every ``theta`` in
``[theta_min, 1]`` as a Gappa goal, with Gappa's own model of IEEE rounding (round to
nearest even; ``float<p, emin>`` formats, subnormals included); :func:`run_gappa` asks Gappa
to prove it. A bound that is too tight is *not* proved (Gappa names the best interval it
found).

>>> print(angle_script("float32", "float32", 2**20, 1e-4, 2.4e-7))
@rf = float<ieee_32, ne>;
@ra = float<ieee_32, ne>;
th = rf(theta);
a = ra(t * th);
{ t in [1, 1048576] /\ @FIX(t, 0) /\ theta in [0.0001, 1] -> (a - t * theta) / (t * theta) in [-2.4e-07, 2.4e-07] }
"""

from __future__ import annotations

import math
import shutil
import subprocess
from dataclasses import dataclass

from .bounds import exact_integer_limit
from .emulate import UNIT_ROUNDOFF

__all__ = ["FORMATS", "GappaResult", "angle_gamma", "angle_script", "gappa_path", "rotation_script", "run_gappa"]

#: Gappa's name of each dtype's format (precision and smallest exponent: subnormals included).
FORMATS = {"float64": "ieee_64", "float32": "ieee_32", "float16": "11, -24", "bfloat16": "8, -133"}


def _fmt(dtype: str, name: str) -> str:
    if dtype not in FORMATS:
        raise ValueError(f"{name}={dtype!r} is not allowed; use one of {', '.join(map(repr, FORMATS))}")
    return f"float<{FORMATS[dtype]}, ne>"


def angle_gamma(angle_dtype: str, inv_freq_dtype: str, t_max: int) -> float:
    """The audit's relative angle bound :math:`\\gamma` for a product recipe (as
    ``pe_symbolic.audit.bounds.angle_bound`` forms it): the position's rounding to the
    angle dtype (only beyond its exact integers), the inverse frequency's rounding, the
    product's rounding.

    >>> f"{angle_gamma('float32', 'float32', 2**20):.4g}"
    '1.192e-07'
    """
    _fmt(angle_dtype, "angle_dtype"), _fmt(inv_freq_dtype, "inv_freq_dtype")
    if not isinstance(t_max, int) or t_max < 1:
        raise ValueError(f"t_max={t_max!r} must be a positive integer")
    u_p = UNIT_ROUNDOFF[angle_dtype] if t_max > exact_integer_limit(angle_dtype) else 0.0
    u_f, u_a = UNIT_ROUNDOFF[inv_freq_dtype], UNIT_ROUNDOFF[angle_dtype]
    return math.expm1(math.log1p(u_p) + math.log1p(u_f) + math.log1p(u_a)) * (1 + 1e-12)


def angle_script(angle_dtype: str, inv_freq_dtype: str, t_max: int, theta_min: float, gamma: float) -> str:
    """A Gappa script whose goal is ``|fl(t fl(theta)) - t theta| <= gamma |t theta|``.

    Parameters
    ----------
    angle_dtype, inv_freq_dtype : str
        Where the product (and the position) and the inverse frequency are held:
        ``float64``, ``float32``, ``float16`` or ``bfloat16``.
    t_max : int
        Largest position (positions are the integers ``1 .. t_max``; 0 gives angle 0 exactly).
    theta_min : float
        Smallest inverse frequency (``theta`` ranges over ``[theta_min, 1]``).
    gamma : float
        The relative bound to prove.
    """
    ra, rf = _fmt(angle_dtype, "angle_dtype"), _fmt(inv_freq_dtype, "inv_freq_dtype")
    if not isinstance(t_max, int) or t_max < 1:
        raise ValueError(f"t_max={t_max!r} must be a positive integer")
    if not 0 < theta_min <= 1:
        raise ValueError(f"theta_min={theta_min!r} must be in (0, 1]")
    if not 0 < gamma < 1:
        raise ValueError(f"gamma={gamma!r} must be in (0, 1)")
    pos = "ra(t)" if t_max > exact_integer_limit(angle_dtype) else "t"
    return (f"@rf = {rf};\n@ra = {ra};\nth = rf(theta);\na = ra({pos} * th);\n"
            f"{{ t in [1, {t_max}] /\\ @FIX(t, 0) /\\ theta in [{theta_min!r}, 1] -> "
            f"(a - t * theta) / (t * theta) in [-{gamma!r}, {gamma!r}] }}\n")


def rotation_script(dtype: str, x_max: float, table_max: float, bound: float) -> str:
    """A Gappa script whose goal bounds one rotated coordinate computed in ``dtype``.

    The model: the tables rounded once, ``c = fl(C)``, ``s = fl(S)``, from the exact
    ``C = A cos(a)``, ``S = A sin(a)`` of the angle ``a`` the code formed; one product each and
    one difference, ``y = fl(fl(x_a c) - fl(x_b s))`` (what ``x * cos + rotate_half(x) * sin``
    computes); the goal is ``|y - (x_a C - x_b S)| <= bound`` for every ``|x_a|, |x_b| <=
    x_max`` and ``|C|, |S| <= table_max``.

    >>> print(rotation_script("float32", 1, 1, 1.8e-7))
    @rnd = float<ieee_32, ne>;
    c = rnd(C);
    s = rnd(S);
    y = rnd(rnd(xa * c) - rnd(xb * s));
    { xa in [-1, 1] /\\ xb in [-1, 1] /\\ C in [-1, 1] /\\ S in [-1, 1] -> y - (xa * C - xb * S) in [-1.8e-07, 1.8e-07] }
    """
    rnd = _fmt(dtype, "dtype")
    for name, v in (("x_max", x_max), ("table_max", table_max), ("bound", bound)):
        if not (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0):
            raise ValueError(f"{name}={v!r} must be a positive finite number")
    return (f"@rnd = {rnd};\nc = rnd(C);\ns = rnd(S);\ny = rnd(rnd(xa * c) - rnd(xb * s));\n"
            f"{{ xa in [-{x_max!r}, {x_max!r}] /\\ xb in [-{x_max!r}, {x_max!r}] /\\ C in [-{table_max!r}, "
            f"{table_max!r}] /\\ S in [-{table_max!r}, {table_max!r}] -> y - (xa * C - xb * S) in [-{bound!r}, "
            f"{bound!r}] }}\n")


def gappa_path() -> str | None:
    """Where ``gappa`` is (``None`` when it is not installed)."""
    return shutil.which("gappa")


@dataclass(frozen=True)
class GappaResult:
    """Whether Gappa proved the script's goal, and what it said (the best interval if not)."""

    proved: bool
    output: str


def run_gappa(script: str, *, timeout: float = 60.0) -> GappaResult:
    """Run Gappa on ``script``; ``proved`` only when Gappa exits 0 with no unsatisfied goal.

    Raises
    ------
    FileNotFoundError
        When Gappa is not installed.
    """
    exe = gappa_path()
    if exe is None:
        raise FileNotFoundError("gappa is not installed: apt-get install gappa")
    done = subprocess.run([exe], input=script, capture_output=True, text=True, timeout=timeout)
    out = (done.stdout + done.stderr).strip()
    return GappaResult(done.returncode == 0 and "not satisfied" not in out, out)
