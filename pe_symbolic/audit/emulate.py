r"""Emulating a recipe in NumPy: every value rounded where the recipe rounds it.

Rounding model (what torch does on CPU and in its CUDA elementwise kernels): an operation
in float64 or float32 is the IEEE operation; an operation in float16 / bfloat16 is the
float32 operation on the (exactly converted) operands, rounded once to the dtype (for a
product of two float16 / bfloat16 numbers the float32 product is exact, so that is one
correct rounding). Conversions round to nearest even; float64 -> bfloat16 is rounded once,
correctly (``pe_symbolic.numeric._checks.round_to``). Values are carried as float32
arrays for dtypes up to float32 and float64 arrays for float64.

``pow`` is correctly rounded (as torch's float32 ``pow`` is; NumPy's is not always).
``cos`` / ``sin`` of float32 arguments are NumPy's float32 functions (within 1 ulp of the
float32 argument's true cosine; torch's Sleef / CUDA functions may differ by an ulp, which
``--backend torch`` measures), float64 ones NumPy's float64 functions.

``Emulation`` holds what is computed once per (config, recipe, activation dtype): the
exact frequencies, the recipe's frequencies and their exact relative errors, the unit
vectors; ``Emulation.chunk`` evaluates a block of positions, vectorised over
positions and pairs, and returns every measure at once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from .. import numeric
from ..numeric._checks import as_dtype, bfloat16, round_to
from .recipes import Recipe

__all__ = ["NOT_EVALUATED", "PRECISION", "UNIT_ROUNDOFF", "Emulation", "Target", "fast_cos_sin", "one_factor",
           "overflow_limit", "rnd", "rnd_toward_zero"]

#: Significant bits of each dtype (int64 positions are exact below 2**63).
PRECISION: dict[str, int] = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8, "tf32": 11, "int64": 63}
#: Unit roundoff ``2**-p`` of each dtype.
UNIT_ROUNDOFF: dict[str, float] = {k: 2.0 ** -v for k, v in PRECISION.items()}
UNIT_ROUNDOFF["int64"] = 0.0
#: Largest binary exponent of each floating dtype (its largest finite value is below ``2**(emax+1)``).
EMAX: dict[str, int] = {"float64": 1023, "float32": 127, "float16": 15, "bfloat16": 127, "tf32": 127}
#: What :attr:`Chunk.score` holds where a score is not evaluated (``m + offset`` beyond the
#: context); every evaluated error is ``>= 0`` or non-finite, never this.
NOT_EVALUATED = -1.0


def _bf16_from_f32(x: np.ndarray) -> np.ndarray:
    """float32 -> nearest-even bfloat16, kept in float32 (bit arithmetic, in place; a quiet NaN
    stays NaN, and no NaN ever reaches it here)."""
    b = np.array(x, dtype=np.float32, copy=True).view(np.uint32)
    r = b >> np.uint32(16)
    r &= np.uint32(1)
    r += np.uint32(0x7FFF)
    r += b
    r &= np.uint32(0xFFFF0000)
    return r.view(np.float32)


def _tf32_from_f32(x: np.ndarray) -> np.ndarray:
    """float32 -> nearest-even TF32 (10 explicit significand bits, float32's exponent), kept in
    float32: what a TF32 tensor-core matmul does to its float32 inputs."""
    b = np.array(x, dtype=np.float32, copy=True).view(np.uint32)
    r = b >> np.uint32(13)
    r &= np.uint32(1)
    r += np.uint32(0x0FFF)
    r += b
    r &= np.uint32(0xFFFFE000)
    return r.view(np.float32)


def rnd(x: Any, dt: str) -> np.ndarray:
    """Round ``x`` to dtype ``dt`` (a name of :data:`PRECISION`); float32 array for dtypes up to
    float32, float64 for float64 (int64: unchanged, float64).

    >>> rnd(np.array([1 + 2**-8 + 2**-30]), "bfloat16")
    array([1.0078125], dtype=float32)
    >>> rnd(np.array([257.0]), "bfloat16")
    array([256.], dtype=float32)
    >>> rnd(np.array([2049.0, 2051.0, 4097.0]), "tf32")  # TF32 keeps 11 significant bits
    array([2048., 2052., 4096.], dtype=float32)
    """
    a = np.asarray(x)
    if dt in ("float64", "int64"):
        return a.astype(np.float64, copy=False)
    if dt == "float32":
        return a.astype(np.float32, copy=False)
    if dt == "float16":
        return a.astype(np.float16).astype(np.float32)
    if dt == "bfloat16":
        if a.dtype == np.float64:
            return round_to(a, bfloat16()).astype(np.float32)
        return _bf16_from_f32(a.astype(np.float32, copy=False))
    if dt == "tf32":
        return _tf32_from_f32(a.astype(np.float32))
    raise ValueError(f"dtype {dt!r} is not one of {', '.join(PRECISION)}")


def rnd_toward_zero(x: Any, dt: str) -> np.ndarray:
    """Round float64 values ``x`` to ``dt`` (bfloat16, float16 or float32) toward zero, as
    ``rnd`` returns them (float32): the rounding of an arithmetic that truncates.

    >>> rnd_toward_zero(np.array([1 + 2**-8 + 2**-30, -(1 + 2**-7 - 2**-30)]), "bfloat16")
    array([ 1., -1.], dtype=float32)
    >>> rnd_toward_zero(np.array([2.0 - 2**-30]), "bfloat16")  # below a power of two: the smaller step
    array([1.9921875], dtype=float32)
    """
    if dt not in ("bfloat16", "float16", "float32"):
        raise ValueError(f"rounding toward zero is emulated for bfloat16, float16 and float32; got {dt!r}")
    a = np.asarray(x, np.float64)
    r = rnd(a, dt).astype(np.float64)
    away = np.abs(r) > np.abs(a)
    if away.any():
        m = np.abs(r)
        step = np.exp2(np.ceil(np.log2(np.where(m > 0, m, 1.0))) - PRECISION[dt])
        r = np.where(away, r - np.sign(r) * step, r)
    return r.astype(np.float32)


def overflow_limit(dt: str) -> int | None:
    """The smallest non-negative number that rounds to ``inf`` in ``dt`` (an integer: round to
    nearest even rounds ``max + ulp/2`` up, to ``inf``); ``None`` for ``int64``.

    >>> overflow_limit("float16")
    65520
    >>> overflow_limit("bfloat16") > 2**53, overflow_limit("int64")
    (True, None)
    """
    if dt == "int64":
        return None
    p = PRECISION[dt]
    return (2 ** (p + 1) - 1) * 2 ** (EMAX[dt] - p)


def _work(dt: str) -> type:
    return np.float64 if dt == "float64" else np.float32


def _op(f, a: np.ndarray, b: np.ndarray, dt: str) -> np.ndarray:
    w = _work(dt)
    r = f(np.asarray(a, w), np.asarray(b, w))
    return r if dt in ("float64", "float32") else rnd(r, dt)


def mul(a, b, dt):
    """``a * b`` rounded to ``dt`` (operands already in ``dt``)."""
    return _op(np.multiply, a, b, dt)


def add(a, b, dt):
    """``a + b`` rounded to ``dt``."""
    return _op(np.add, a, b, dt)


def sub(a, b, dt):
    """``a - b`` rounded to ``dt``."""
    return _op(np.subtract, a, b, dt)


def div(a, b, dt):
    """``a / b`` rounded to ``dt``."""
    return _op(np.divide, a, b, dt)


def _pow(a, b, dt):
    """``a ** b`` in ``dt``, correctly rounded as torch's float32 ``pow`` is (NumPy's float32
    ``power`` is not: it differs by an ulp at 13 of Llama's 64 frequencies): evaluated in
    float64, rounded to float32, then to ``dt``."""
    r = np.power(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return r if dt == "float64" else rnd(rnd(r, "float32"), dt)


def _pow_other(a, b, dt):
    """The other faithful ``pow``: where ``a ** b`` is not a number of ``dt``, the neighbour of
    the correctly rounded result on the other side of the exact value (float32 and below:
    the exact value taken as the float64 power, whose error is far below a float32 ulp)."""
    r = _pow(a, b, dt)
    if dt == "float64":
        return r
    ex = np.power(np.asarray(a, np.float64), np.asarray(b, np.float64))
    r64 = np.asarray(r, np.float64)
    toward = np.where(ex > r64, np.inf, -np.inf)
    if dt == "float32":
        other = np.nextafter(np.asarray(r, np.float32), toward.astype(np.float32)).astype(np.float64)
    else:
        m = np.abs(r64)
        e = np.floor(np.log2(np.where(m > 0, m, 1.0)))
        other = r64 + np.sign(ex - r64) * np.exp2(e - PRECISION[dt] + 1)
        other = rnd(other, dt).astype(np.float64)
    return rnd(np.where(r64 == ex, r64, other), dt)


#: float32(1 / (2 pi)), the constant a float32 range reduction multiplies by.
_INV_TWO_PI_F32 = np.float32(1 / (2 * math.pi))


def fast_cos_sin(a: Any) -> tuple[np.ndarray, np.ndarray]:
    """``cos`` / ``sin`` as a fast-math float32 intrinsic evaluates them (CUDA ``__cosf`` /
    ``__sinf``, Metal ``fast::``): the argument reduced in float32 -- ``a * fl32(1/(2 pi))``
    rounded to float32, its fraction (exact) -- then ``cos`` / ``sin`` of the reduced angle,
    rounded to float32. The reduced angle's error grows with ``|a|`` (see
    :mod:`pe_symbolic.audit.recipes`).

    >>> c, s = fast_cos_sin(np.array([131071.0], dtype=np.float32))
    >>> bool(abs(float(c[0]) - math.cos(131071.0)) > 1e-4)
    True
    """
    a = np.asarray(a, dtype=np.float32)
    turns = (a * _INV_TWO_PI_F32).astype(np.float32)
    frac = (turns - np.rint(turns)).astype(np.float64)  # exact (Sterbenz): the hardware's reduced argument
    r = 2 * np.pi * frac
    return np.cos(r).astype(np.float32), np.sin(r).astype(np.float32)


def _fn(f, a, dt):
    w = _work(dt)
    r = f(np.asarray(a, w))
    return r if dt in ("float64", "float32") else rnd(r, dt)


# ----------------------------------------------------------------------------------------
# what is audited: a RoPE config or a sinusoidal table


@dataclass(frozen=True)
class Target:
    """What the audit measures against: the exact frequencies and how to get exact tables.

    ``theta`` are the exact frequencies (mpmath, 40 digits), ``ladder`` the unscaled
    :math:`b^{-2i/d}` (the recipe's ladder is scaled by ``theta / ladder``), ``attention``
    the factor that multiplies the tables, ``base`` and ``rotary_dim`` as in the config.
    """

    kind: str
    name: str
    rotary_dim: int
    base: float
    theta: tuple
    ladder: tuple
    attention: float
    spec: Any = None  # numeric RopeSpec for RoPE targets
    schedule: str = "vaswani"
    config: Mapping[str, Any] | None = None
    layer_type: str | None = None
    seq_len: int | None = None

    @property
    def pairs(self) -> int:
        """Number of frequency pairs."""
        return self.rotary_dim // 2

    def exact_cos_sin(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Accurate ``af*cos(t*theta_i)``, ``af*sin(t*theta_i)``, shape (P, h), from the numeric
        core (within 7u; its own tests hold it to the oracle)."""
        h = self.pairs
        if self.kind == "rope":
            c, s = numeric.rope_cos_sin(t, config=self.spec, seq_len=self.seq_len)
            return c[:, :h], s[:, :h]
        tab = numeric.sinusoidal_table(t, self.rotary_dim, base=self.base, layout="split",
                                       order="cos_sin", schedule=self.schedule)
        return tab[:, :h], tab[:, h:]

    def describe(self) -> str:
        """One line for the report header."""
        if self.kind == "rope":
            sp = self.spec
            extra = f", factor {sp.factor:g}" if sp.factor else ""
            return (f"{self.name} ({sp.rope_type}{extra}, rope_theta {sp.rope_theta:g}, rotary dim "
                    f"{self.rotary_dim}, {self.pairs} pairs"
                    + (f", attention factor {self.attention:.6g}" if self.attention != 1 else "") + ")")
        return f"{self.name} (sinusoidal, d {self.rotary_dim}, base {self.base:g}, {self.schedule} schedule)"


def _mp_ladder(h: int, d: int, base: float, schedule: str = "vaswani") -> tuple:
    with mpmath.workdps(40):
        b = mpmath.mpf(base)
        if schedule == "vaswani":
            return tuple(+mpmath.power(b, -mpmath.mpf(2 * i) / d) for i in range(h))
        return tuple(+mpmath.power(b, -mpmath.mpf(i) / max(h - 1, 1)) for i in range(h))


def rope_target(config: Mapping[str, Any], name: str, *, seq_len: int | None = None,
                layer_type: str | None = None, factor: float | None = None) -> Target:
    """The :class:`Target` of a model config (any config :func:`~pe_symbolic.numeric.rope_frequencies` reads).

    ``factor`` picks one factor of vLLM's multi-factor linear RoPE (a ``linear`` rope dict whose
    ``factor`` is a list): that block of vLLM's cache is linear RoPE of that factor (theorem
    ``linear.multi_factor``), so the audit reads the config with the list replaced by it.
    """
    from ..numeric._frequencies import _exact_frequencies, _seq_key

    if layer_type is None and _is_deepseek_v4(config):
        raise ValueError(_trailing_refusal(name, None))  # before the parser asks for a layer type
    if factor is not None:
        config, name = one_factor(config, factor, layer_type=layer_type), f"{name} (factor {float(factor):g})"
    spec = numeric.parse_rope_config(config, layer_type=layer_type)
    if spec.rotary_channels == "trailing":
        raise ValueError(_trailing_refusal(name, spec))
    if spec.rope_type == "axial":
        raise ValueError(_axial_refusal(name, spec))
    if spec.mrope_section is not None:
        spec = _text_only(spec)
    theta, attn = _exact_frequencies(spec, _seq_key(spec, seq_len), "original")
    ladder = _mp_ladder(spec.pairs, spec.rotary_dim, spec.rope_theta)
    return Target("rope", name, spec.rotary_dim, spec.rope_theta, tuple(theta), ladder, float(attn),
                  spec=spec, config=config, layer_type=layer_type, seq_len=seq_len)


def one_factor(config: Mapping[str, Any], factor: float, *, layer_type: str | None = None) -> dict[str, Any]:
    """``config`` with its multi-factor linear ``factor`` list replaced by the one ``factor``.

    >>> cfg = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
    ...        "rope_scaling": {"rope_type": "linear", "factor": [1.0, 2.0, 4.0]}}
    >>> one_factor(cfg, 2)["rope_scaling"]
    {'rope_type': 'linear', 'factor': 2.0}
    >>> one_factor(cfg, 3)
    Traceback (most recent call last):
    ValueError: factor=3 is not one of config['rope_scaling']['factor'] = [1.0, 2.0, 4.0]
    >>> one_factor({**cfg, "rope_scaling": {"rope_type": "linear", "factor": 2.0}}, 2)
    Traceback (most recent call last):
    ValueError: factor=2 was given, but config['rope_scaling'] has no factor list ...
    """
    import copy

    chosen = numeric.parse_rope_config(config, layer_type=layer_type, factor=factor)  # checks factor, names it
    out = copy.deepcopy(dict(config))
    n = 0
    for holder in (out, out.get("text_config")):
        if not isinstance(holder, dict):
            continue
        for key in ("rope_parameters", "rope_scaling"):
            rope = holder.get(key)
            dicts = [rope] if isinstance(rope, dict) and "factor" in rope else \
                [v for v in rope.values() if isinstance(v, dict)] if isinstance(rope, dict) else []
            for d in dicts:
                if isinstance(d.get("factor"), (list, tuple)):
                    d["factor"] = float(factor)
                    n += 1
    if n == 0:  # the parser read a list this walk did not find: never audit another table
        raise ValueError(f"factor={factor!r}: the config's factor list was not found where pe-audit looks "
                         "(rope_parameters / rope_scaling, top level or text_config)")
    spec = numeric.parse_rope_config(out, layer_type=layer_type)
    if spec.factor != chosen.factor or spec.rope_type != chosen.rope_type:
        raise RuntimeError(f"factor={factor!r}: the rewritten config reads as factor {spec.factor} "
                           f"({spec.rope_type}), not {chosen.factor} ({chosen.rope_type}) -- please report this")
    return out


def _is_deepseek_v4(config: Mapping[str, Any]) -> bool:
    tc = config.get("text_config")
    return config.get("model_type") == "deepseek_v4" or (isinstance(tc, Mapping)
                                                          and tc.get("model_type") == "deepseek_v4")


def _axial_refusal(name: str, spec: Any) -> str:
    """Why :func:`~pe_symbolic.audit.audit` refuses an axial (2-D / 3-D position) RoPE, and what
    can be audited instead.

    >>> from pe_symbolic import numeric
    >>> spec = numeric.parse_rope_config(numeric.model_config("pixtral-12b-vision"))
    >>> print(_axial_refusal("pixtral-12b-vision", spec))  # doctest: +ELLIPSIS
    pe.audit does not support 'pixtral-12b-vision': its RoPE is axial (rope type 'axial', a vision tower's 2-D or 3-D patch positions, 32 frequencies over 64 rotary dims), and the audit's emulation and bounds are for one token position per row; ...
    """
    nfreq = spec.freq_dim // 2 if spec.freq_dim else spec.pairs
    return (f"pe.audit does not support {name!r}: its RoPE is axial (rope type 'axial', a vision tower's 2-D "
            f"or 3-D patch positions, {nfreq} frequencies over {spec.rotary_dim} rotary dims), and the audit's "
            "emulation and bounds are for one token position per row; its frequencies are those of a 1-D "
            f"RoPE with rope_theta {spec.rope_theta:g} and head_dim {2 * nfreq} (each axis turns by some or "
            "all of them): audit that config at the largest patch index an axis reaches (a bound over every "
            "frequency covers each axis'), or check an implementation with pe.verify_rope")


def _trailing_refusal(name: str, spec: Any) -> str:
    """Why :func:`~pe_symbolic.audit.audit` refuses a config whose RoPE sits on the trailing
    channels (DeepSeek-V4), and what can be audited instead."""
    if spec is None:
        what, r = "both of its RoPEs ('main' and 'compress') turn the LAST rotary_dim channels", "rotary_dim"
    else:
        what = f"its {spec.layer_type!r} RoPE turns the LAST {spec.rotary_dim} of the {spec.head_dim} channels"
        r = str(spec.rotary_dim)
    return (f"pe.audit does not support {name!r} (DeepSeek-V4, model_type 'deepseek_v4'): {what} of each head, "
            "in interleaved pairs, and the model rotates the attention output's last channels back by the conjugate "
            "rotation (-sin) at the query position. The audit's recipes emulate RoPE on the leading channels of q "
            "and k with no output rotation, so their output and score measurements would not be this model's. "
            f"Its frequencies are read (numeric.rope_frequencies(config, layer_type='main' or 'compress')): to audit "
            f"the angles and tables of one of them, audit a plain config with head_dim={r} and its rope dict "
            "(for 'compress': rope_theta = compress_rope_theta and attention_factor 1, as HF pins it)")


def _text_only(spec):
    """M-RoPE configs audited on text tokens (every axis at the same position): plain RoPE."""
    import dataclasses

    return dataclasses.replace(spec, mrope_section=None, mrope_interleaved=False, mrope_rule=None)


def sinusoidal_target(d: int, base: float, schedule: str, name: str) -> Target:
    """The :class:`Target` of a sinusoidal table of dimension ``d``."""
    h = d // 2
    ladder = _mp_ladder(h, d, base, schedule)
    return Target("sinusoidal", name, d, float(base), ladder, ladder, 1.0, schedule=schedule)


# ----------------------------------------------------------------------------------------
# the emulation


@dataclass
class Chunk:
    """Every measure of a block of positions, shape (P, h) (``score``: (P, offsets); a score
    not evaluated, its key beyond the context, is :data:`NOT_EVALUATED`). A value that
    overflowed on the way (an ``inf`` position or angle, ``cos(inf)``) is carried as the
    ``inf`` / NaN it produced, for :func:`~pe_symbolic.audit.measure.measure` to report."""

    t: np.ndarray
    angle: np.ndarray
    table: np.ndarray
    output: np.ndarray | None
    score: np.ndarray | None
    table_vec: np.ndarray | None = None
    """The table error as a vector, ``|C_hat - C|`` per (position, pair): where an input can
    make the output error largest."""
    score_aligned: np.ndarray | None = None
    """Per (query position, offset): ``mean_i |conj(C_hat_m) C_hat_n - conj(C_m) C_n|``, the
    score error of the tables alone with every pair's error lined up (``NOT_EVALUATED``
    where the key is beyond the context)."""


class Emulation:
    """A recipe emulated for one target and activation dtype (see the module docstring)."""

    def __init__(self, target: Target, recipe: Recipe, act: str, *, offsets: tuple[int, ...] = (1, 16, 256, 4096),
                 seed: int = 0) -> None:
        if recipe.kind != target.kind:
            raise ValueError(_kind_mismatch(recipe, target))
        self.target, self.recipe, self.act = target, recipe, act
        r = recipe
        self.dt = {f: (act if getattr(r, f) == "act" else getattr(r, f))
                   for f in ("inv_freq_dtype", "position_dtype", "angle_dtype", "trig_dtype", "table_dtype")}
        st = r.inv_freq_storage
        self.storage = None if st is None else (act if st == "act" else st)
        rot = r.rotation
        self.rotation = {"": "", "act": act, "table": self.dt["table_dtype"]}.get(rot, rot)
        if recipe.kind == "rope" and (recipe.fma in ("cos", "sin") or recipe.rounding == "truncate"):
            narrow = {"bfloat16", "float16", "float32"}
            if self.rotation not in narrow or (recipe.rounding == "truncate" and act not in narrow):
                raise ValueError(
                    f"recipe {recipe.name!r}: fma={recipe.fma!r} / rounding={recipe.rounding!r} are emulated for a "
                    f"rotation and activations in bfloat16, float16 or float32; the rotation here is in "
                    f"{self.rotation}, the activations in {act} (use fma='any', rounding='nearest')")
        self.h = target.pairs
        self.offsets = tuple(int(o) for o in offsets)
        with mpmath.workdps(40):
            self.theta_hi = np.array([float(v) for v in target.theta])
            self.theta_lo = np.array([float(v - float(v)) for v in target.theta])
            self.ratio = [v / lv if lv != 0 else mpmath.mpf(0) for v, lv in zip(target.theta, target.ladder)]
        self._frequencies(_pow)
        self.eps_bound, self.eps_step_bound = self._faithful_eps()
        rng = np.random.default_rng(seed)
        phi_q, phi_k = rng.uniform(0, 2 * np.pi, self.h), rng.uniform(0, 2 * np.pi, self.h)
        self.q = (rnd(np.cos(phi_q), act).astype(np.float64), rnd(np.sin(phi_q), act).astype(np.float64))
        self.k = (rnd(np.cos(phi_k), act).astype(np.float64), rnd(np.sin(phi_k), act).astype(np.float64))
        self.score_exact = self._exact_scores() if target.kind == "rope" else None

    # -- frequencies -----------------------------------------------------------------------
    def _faithful_eps(self) -> tuple[np.ndarray, float]:
        """The relative errors the bound assumes: the worst over a ``pow`` that is faithful
        rather than correctly rounded (torch's float32 ``pow`` on CPU -- Sleef's 1-ulp version --
        misses the correct rounding of ``1e6 ** (74/128)``; glibc's ``powf`` is within 1 ulp):
        the frequencies computed again with every inexact ``pow`` result moved to the other
        float next to the exact value, and each pair's (and the running step's) larger error
        kept. The emulated values themselves use the correctly rounded ``pow``."""
        eps = np.asarray(self.eps, np.float64)
        step = float(getattr(self, "eps_step", 0.0))
        if self.recipe.inv_freq not in ("reciprocal", "pow", "running"):
            return eps, step
        keep = dict(self.__dict__)
        try:
            self._frequencies(_pow_other)
            alt, alt_step = np.asarray(self.eps, np.float64), float(getattr(self, "eps_step", 0.0))
        finally:
            self.__dict__.clear()
            self.__dict__.update(keep)
        return np.maximum(eps, alt), max(step, alt_step)

    def _frequencies(self, pow_fn: Any) -> None:
        """The recipe's inverse frequencies and their exact relative errors ``eps`` (``pow_fn``:
        the ``pow`` the recipe's library computes)."""
        r, tg = self.recipe, self.target
        D = self.dt["inv_freq_dtype"]
        d, h, b = tg.rotary_dim, self.h, tg.base
        self.step = None  # running product: s
        self.factor = None  # running product: per-pair divisor (llama.cpp freq_factors)
        self.yarn = None  # running product with YaRN (llama.cpp rope_yarn): (freq_scale, ramp_mix per pair)
        # the attention factor as the recipe multiplies the tables by it (in the trig dtype)
        self.af = float(rnd(np.array(tg.attention), self.dt["trig_dtype"])[()]) if tg.attention != 1.0 else 1.0
        self.divisor = None  # divide: the divisor b**(2i/d)
        inv = None
        if r.inv_freq == "exact":
            self.inv = self.theta_hi.copy()
            self.eps = np.full(h, 2.0**-104)
            return
        ar = rnd(np.arange(0, d, 2, dtype=np.float64)[:h], D)
        bb = rnd(np.array(b), D)
        if r.inv_freq == "reciprocal":
            e = div(ar, rnd(np.array(float(d)), D), D)
            inv = div(rnd(np.array(1.0), D), pow_fn(np.broadcast_to(bb, e.shape), e, D), D)
        elif r.inv_freq == "pow":
            e = div(-ar, rnd(np.array(float(d)), D), D)
            inv = pow_fn(np.broadcast_to(bb, e.shape), e, D)
        elif r.inv_freq == "exp":
            if tg.kind == "sinusoidal" and tg.schedule == "tensor2tensor":
                inc = math.log(b) / max(h - 1, 1)
                idx = rnd(np.arange(h, dtype=np.float64), D)
            else:
                inc = math.log(b) / d
                idx = ar
            inv = _fn(np.exp, mul(idx, rnd(np.array(-inc), D), D), D)
        elif r.inv_freq == "exp2":
            frac = div(rnd(np.arange(h, dtype=np.float64), D), rnd(np.array(float(h)), D), D)
            inv = _fn(np.exp2, mul(-frac, rnd(np.array(math.log2(b)), D), D), D)
        elif r.inv_freq == "divide":
            if any(q != 1 for q in self.ratio):
                raise ValueError(f"recipe {r.name!r}: inv_freq='divide' (t / b**(2i/d)) is emulated for the "
                                 "plain ladder only; this config scales its frequencies (use another recipe)")
            e = div(2.0 * (np.arange(h, dtype=np.float64)), np.float64(d), "float64")
            self.divisor = rnd(np.power(np.float64(b), e), D)
            with mpmath.workdps(40):
                inv_exact = [1 / mpmath.mpf(float(p)) for p in self.divisor]
                self.inv = np.array([float(v) for v in inv_exact])
                self.eps = np.array([float(abs(v / t - 1)) for v, t in zip(inv_exact, tg.theta)])
            return
        elif r.inv_freq == "running":
            e = rnd(np.array(-2.0 / d), D)  # -2.0f/n_dims
            self.step = float(pow_fn(bb, e, D))
            with mpmath.workdps(40):
                s_exact = mpmath.power(mpmath.mpf(b), mpmath.mpf(-2) / d)
                self.eps_step = float(abs(mpmath.mpf(self.step) / s_exact - 1))
                factors = [1 / q if q != 0 else mpmath.mpf(0) for q in self.ratio]
                yarn = _llamacpp_yarn(tg, D) if any(q != 1 for q in self.ratio) else None
                if yarn is not None:  # rope_yarn: freq_scale and YaRN's ramp, no freq_factors
                    self.yarn = yarn[:2]
                    self.af = yarn[2]
                    self.eps_factor = np.zeros(h)
                elif any(q != 1 for q in self.ratio):
                    self.factor = rnd(np.array([float(f) for f in factors]), D).astype(np.float64)
                    self.eps_factor = np.array([float(abs((1 / mpmath.mpf(float(f))) / (1 / ff) - 1))
                                                if ff != 0 else 0.0 for f, ff in zip(self.factor, factors)])
                else:
                    self.eps_factor = np.zeros(h)
                # the running product's own frequency: s**i / factor (YaRN: s**i times the mixed ratio
                # fs * fl(1 - ramp_mix) + ramp_mix, exactly)
                if self.yarn is not None:
                    fs, rm = self.yarn
                    mix = [mpmath.mpf(fs) * mpmath.mpf(float(_f32(1 - np.float32(m)))) + mpmath.mpf(float(m))
                           for m in rm]
                else:
                    mix = [1 / mpmath.mpf(float(self.factor[i])) if self.factor is not None else mpmath.mpf(1)
                           for i in range(h)]
                self.inv = np.array([float(mpmath.mpf(self.step) ** i * mix[i]) for i in range(h)])
                self.eps = np.array([float(abs(mpmath.mpf(v) / t - 1)) if t != 0 else 0.0
                                     for v, t in zip(self.inv, tg.theta)])
            return
        assert inv is not None
        if tg.kind == "rope" and tg.spec.rope_type == "llama3":
            inv = _llama3(inv, tg.spec, D)
        elif r.inv_freq == "reciprocal" and _hf_yarn_applies(tg):
            inv = _hf_yarn(tg, D, pow_fn)
        elif any(q != 1 for q in self.ratio):  # scaled config: the ladder times the exact ratio
            ratio = rnd(np.array([float(q) for q in self.ratio]), D)
            inv = np.where(np.array([q == 1 for q in self.ratio]), inv, mul(inv, ratio, D))
        if self.storage is not None:
            inv = rnd(inv, self.storage)
        self.set_inv(inv)

    def set_inv(self, inv: Any) -> None:
        """Take ``inv`` as the recipe's inverse frequencies (their exact relative errors too)."""
        tg = self.target
        self.inv = np.asarray(inv, np.float64)
        with mpmath.workdps(40):
            self.eps = np.array([float(abs(mpmath.mpf(float(v)) / t - 1)) if t != 0 else (0.0 if v == 0 else 1.0)
                                 for v, t in zip(self.inv, tg.theta)])
        self.eps_bound = self.eps

    # -- angles ------------------------------------------------------------------------------
    def angles(self, t: np.ndarray) -> np.ndarray:
        """The recipe's angles for positions ``t`` (1-D), shape (P, h)."""
        r = self.recipe
        Da = self.dt["angle_dtype"]
        if r.inv_freq == "exact":
            p, e = _two_prod_dd(t, self.theta_hi, self.theta_lo)
            return p + e
        t1 = rnd(t, self.dt["position_dtype"])
        t2 = rnd(t1, Da)
        if r.inv_freq == "running":
            w = _work(Da)
            arr = np.empty((t.size, self.h), w)
            arr[:, 0] = t2
            arr[:, 1:] = w(self.step)
            np.multiply.accumulate(arr, axis=1, out=arr)
            if self.yarn is not None:  # rope_yarn: theta_interp*(1 - ramp_mix) + theta_extrap*ramp_mix
                fs, rm = self.yarn
                f32 = np.float32
                ti = (arr * w(fs)).astype(w)
                one_minus = (f32(1) - rm).astype(w)
                return ((ti * one_minus).astype(w) + (arr * rm.astype(w)).astype(w)).astype(w)
            if self.factor is not None:
                f = self.factor.astype(w)
                keep = self.factor == 1
                arr = np.where(keep, arr, np.divide(arr, np.where(f == 0, 1, f)))
            return arr
        if r.inv_freq == "divide":
            return div(t2[:, None], rnd(self.divisor, Da)[None, :], Da)
        return mul(t2[:, None], rnd(self.inv, Da)[None, :], Da)

    def exact_angles(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``t * theta`` as a double-double ``(p, e)``, relative error < 2**-100."""
        return _two_prod_dd(t, self.theta_hi, self.theta_lo)

    def fed(self, angles: np.ndarray) -> np.ndarray:
        """The angles as ``cos`` / ``sin`` receive them: reduced modulo 2 pi in float64 if the
        recipe says so (``np.remainder``: exact ``fmod`` by float64 2 pi), then converted to
        ``trig_dtype``."""
        x = angles
        if self.recipe.reduce:
            x = np.remainder(np.asarray(x, np.float64), 2 * np.pi)
        return rnd(x, self.dt["trig_dtype"])

    def angle_errors(self, angles: np.ndarray, p: np.ndarray, e: np.ndarray) -> np.ndarray:
        """``|fed angle - t*theta|`` (modulo 2 pi for reducing recipes), from the exact ``p + e``."""
        d = (np.asarray(self.fed(angles), np.float64) - p) - e
        if self.recipe.reduce:
            d -= 2 * np.pi * np.rint(d / (2 * np.pi))
        return np.abs(d)

    # -- tables -----------------------------------------------------------------------------
    def tables(self, t: np.ndarray, angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The recipe's cos and sin tables as used (in ``table_dtype``), shape (P, h)."""
        r, tg = self.recipe, self.target
        Dt, Dtab = self.dt["trig_dtype"], self.dt["table_dtype"]
        if r.inv_freq == "exact":  # pe_symbolic itself: its tables, rounded once
            dtype = np.dtype(Dtab)
            if tg.kind == "rope":
                c, s = numeric.rope_cos_sin(t, config=tg.spec, dtype=dtype, seq_len=tg.seq_len)
            else:
                tab = numeric.sinusoidal_table(t, tg.rotary_dim, base=tg.base, layout="split",
                                               order="cos_sin", schedule=tg.schedule, dtype=dtype)
                c, s = tab[:, : self.h], tab[:, self.h:]
            return c[:, : self.h].astype(np.float64), s[:, : self.h].astype(np.float64)
        x = self.fed(angles)
        if r.trig == "fast":
            c, s = fast_cos_sin(x)
        else:
            c, s = _fn(np.cos, x, Dt), _fn(np.sin, x, Dt)
        if self.af != 1.0:
            af = rnd(np.array(self.af), Dt)
            c, s = mul(c, af, Dt), mul(s, af, Dt)
        return rnd(c, Dtab), rnd(s, Dtab)

    # -- rotation ----------------------------------------------------------------------------
    def rotate(self, x: tuple[np.ndarray, np.ndarray], c: np.ndarray, s: np.ndarray,
               t: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The recipe's rotation of the pairs ``x = (xa, xb)`` by the tables ``c``, ``s`` (the
        arrays broadcast together: ``x`` each (h,) against (P, h) tables, or one array per
        candidate): the loads into the rotation dtype, the products (``fma``: the one rounded
        first, the other fused), the sum or difference, the store to the activation dtype,
        each rounded as ``recipe.rounding`` says.

        A fused product is exact in float64 (two operands of at most 24 bits); the fused sum
        is then rounded once from float64 (exact unless the two terms are 2**29 apart)."""
        R, act, r = self.rotation, self.act, self.recipe
        xa, xb = rnd(x[0], R), rnd(x[1], R)
        c, s = rnd(c, R), rnd(s, R)
        fma = r.fma if r.fma in ("cos", "sin") else "none"
        if r.rounding == "nearest" and fma == "none":
            oa = sub(mul(xa, c, R), mul(xb, s, R), R)
            ob = add(mul(xa, s, R), mul(xb, c, R), R)
        else:
            rd = rnd if r.rounding == "nearest" else rnd_toward_zero

            def fl(v: np.ndarray) -> np.ndarray:
                return rd(v, R).astype(np.float64)

            xa64, xb64, c64, s64 = (np.asarray(v, np.float64) for v in (xa, xb, c, s))
            ca, cb = xa64 * c64, xb64 * c64  # the cos products of the two outputs
            sa, sb = xb64 * s64, xa64 * s64  # the sin products
            if fma != "sin":
                ca, cb = fl(ca), fl(cb)
            if fma != "cos":
                sa, sb = fl(sa), fl(sb)
            oa, ob = rd(ca - sa, R), rd(cb + sb, R)
        if R == act:
            return oa, ob
        store = rnd if r.rounding == "nearest" else rnd_toward_zero
        return store(np.asarray(oa, np.float64), act), store(np.asarray(ob, np.float64), act)

    def rotate_pe_symbolic(self, x: tuple[np.ndarray, np.ndarray], t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """pe_symbolic's own apply_rope on the pair vectors at positions ``t`` (real code)."""
        tg, h = self.target, self.h
        dt = as_dtype(self.act)
        full = np.empty((t.size, tg.spec.head_dim), dt)
        full[:] = 0
        a = np.broadcast_to(x[0], (t.size, h)).astype(dt)
        b = np.broadcast_to(x[1], (t.size, h)).astype(dt)
        full[:, :h], full[:, h: 2 * h] = a, b
        out = numeric.apply_rope(full, t, config=tg.spec, seq_len=tg.seq_len)
        return out[:, :h].astype(np.float64), out[:, h: 2 * h].astype(np.float64)

    def _exact_scores(self) -> dict[int, float]:
        """``af**2 <q, R(D) k> / h`` for each offset D (q, k: unit pairs), from accurate tables
        (which carry the attention factor ``af`` once: one more factor here)."""
        c, s = self.target.exact_cos_sin(np.array(self.offsets, dtype=np.float64))
        qa, qb = self.q
        ka, kb = self.k
        vals = (c * (qa * ka + qb * kb) + s * (qb * ka - qa * kb)).sum(axis=1) / self.h
        return {o: float(v) * self.target.attention for o, v in zip(self.offsets, vals)}

    # -- one block of positions --------------------------------------------------------------
    def chunk(self, t: np.ndarray, *, context: int, scores: bool = True) -> Chunk:
        """Every measure for positions ``t`` (consecutive integers ``t0 .. t0 + P - 1``).

        Scores need the keys at ``m + offset``: they are evaluated for the positions of
        ``t`` whose ``m + offset`` is below ``context``.
        """
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is measured, not warned
            return self._chunk(t, context=context, scores=scores)

    def extended(self, t: np.ndarray, context: int, scores: bool = True) -> np.ndarray:
        """Positions ``t`` and, where scores are measured (RoPE), the keys' positions up to
        ``t[-1] + max(offsets)`` (below ``context``)."""
        if scores and self.target.kind == "rope" and self.offsets:
            last = min(int(t[-1]) + max(self.offsets), context - 1)
            if last > t[-1]:
                return np.concatenate([t, np.arange(t[-1] + 1, last + 1, dtype=np.float64)])
        return t

    def rotation_errors(self, P: int, q_rot: tuple[np.ndarray, np.ndarray], k_rot: tuple[np.ndarray, np.ndarray],
                        cx: np.ndarray, sx: np.ndarray, scores: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """The rotation's error at the first ``P`` positions (``q`` rotated by a recipe,
        against the exact tables ``cx``, ``sx``) and the scores' errors (``q`` at ``m`` with
        ``k`` at ``m + offset``, for every offset whose key was rotated; else
        :data:`NOT_EVALUATED`)."""
        (qa, qb), (ka, kb) = q_rot, k_rot
        ea = self.q[0] * cx - self.q[1] * sx
        eb = self.q[0] * sx + self.q[1] * cx
        out = np.hypot(qa[:P] - ea[:P], qb[:P] - eb[:P])
        score = None
        if scores and self.offsets:
            score = np.full((P, len(self.offsets)), NOT_EVALUATED)
            for j, o in enumerate(self.offsets):
                n = min(P, qa.shape[0] - o)
                if n > 0:
                    dot = (qa[:n] * ka[o: o + n] + qb[:n] * kb[o: o + n]).sum(axis=1) / self.h
                    score[:n, j] = np.abs(dot - self.score_exact[o])
        return out, score

    def _chunk(self, t: np.ndarray, *, context: int, scores: bool) -> Chunk:
        tg = self.target
        P = t.size
        ext = self.extended(t, context, scores)
        ang = self.angles(ext)
        p, e = self.exact_angles(ext)
        if self.recipe.inv_freq == "exact":
            angle_err = np.zeros((ext.size, self.h))
        else:
            angle_err = self.angle_errors(ang, p, e)
        c, s = self.tables(ext, ang)
        cx, sx = tg.exact_cos_sin(ext)
        table_err = np.maximum(np.abs(c - cx), np.abs(s - sx))
        out = score = None
        if tg.kind == "rope":
            if self.recipe.inv_freq == "exact":
                q_rot, k_rot = self.rotate_pe_symbolic(self.q, ext), self.rotate_pe_symbolic(self.k, ext)
            else:
                q_rot, k_rot = self.rotate(self.q, c, s, ext), self.rotate(self.k, c, s, ext)
            out, score = self.rotation_errors(P, q_rot, k_rot, cx, sx, scores)
            vec = np.hypot(c - cx, s - sx)[:P]
            aligned = self.aligned_scores(P, c, s, cx, sx) if scores else None
            return Chunk(t, angle_err[:P], table_err[:P], out, score, vec, aligned)
        elif scores:
            score = self.table_scores(P, c, s)
        return Chunk(t, angle_err[:P], table_err[:P], out, score)

    def aligned_scores(self, P: int, c: np.ndarray, s: np.ndarray, cx: np.ndarray, sx: np.ndarray) -> np.ndarray:
        """:attr:`Chunk.score_aligned` of the first ``P`` positions."""
        out = np.full((P, len(self.offsets)), NOT_EVALUATED)
        C_hat = np.asarray(c, np.float64) + 1j * np.asarray(s, np.float64)
        C = cx + 1j * sx
        for j, o in enumerate(self.offsets):
            n = min(P, C.shape[0] - o)
            if n > 0:
                w = np.conj(C_hat[:n]) * C_hat[o: o + n] - np.conj(C[:n]) * C[o: o + n]
                out[:n, j] = np.abs(w).mean(axis=1)
        return out

    def table_scores(self, P: int, c: np.ndarray, s: np.ndarray) -> np.ndarray | None:
        """The relative property of a sinusoidal table, ``PE(m).PE(m+D)/h = mean cos(w D)``:
        its error at the first ``P`` rows of the tables ``c``, ``s`` for every offset ``D``
        whose row is there (else :data:`NOT_EVALUATED`); ``None`` without offsets."""
        if not self.offsets:
            return None
        score = np.full((P, len(self.offsets)), NOT_EVALUATED)
        for j, o in enumerate(self.offsets):
            n = min(P, c.shape[0] - o)
            if n > 0:
                dot = (c[:n] * c[o: o + n] + s[:n] * s[o: o + n]).sum(axis=1) / self.h
                exact = float(self.target.exact_cos_sin(np.array([float(o)]))[0].sum() / self.h)
                score[:n, j] = np.abs(dot - exact)
        return score


def _kind_mismatch(recipe: Recipe, target: Target) -> str:
    """Why a recipe of one kind cannot be audited on a target of the other, and what is allowed."""
    if recipe.kind == "sinusoidal":
        what = (f"a RoPE config ({target.spec.rope_type} RoPE)" if target.spec is not None
                else "a RoPE config")
        return (f"recipe {recipe.name!r} builds a sinusoidal table (added to the embeddings, no "
                f"rotation); {target.name!r} is {what}. A sinusoidal recipe is audited on a "
                f"sinusoidal:D[:BASE] target (e.g. sinusoidal:{target.rotary_dim}:{target.base:g} for "
                "this config's rotary dim and base); a RoPE config takes a RoPE recipe "
                "(hf, vllm, llama.cpp, ...; see pe-audit --list)")
    return (f"recipe {recipe.name!r} is a RoPE recipe; {target.name!r} is a sinusoidal table: a RoPE "
            "recipe is audited on a model config (a shipped model name or a config.json), a "
            "sinusoidal:D target takes a sinusoidal recipe (t2t, fairseq, distilbert)")


def _llama3(inv: np.ndarray, spec: Any, D: str) -> np.ndarray:
    """HF's ``_compute_llama3_parameters`` on the recipe's ladder, every operation in ``D``
    (what HF, vLLM and torchtune compute in float32)."""
    w = _work(D)
    inv = np.asarray(inv, w)
    factor, lo, hi = w(spec.factor), w(spec.low_freq_factor), w(spec.high_freq_factor)
    old = w(spec.original_max_position_embeddings)
    low_wl, high_wl = w(float(old) / float(lo)), w(float(old) / float(hi))
    wavelen = rnd(w(2 * math.pi) / inv, D).astype(w)
    inv_l = np.where(wavelen > low_wl, rnd(inv / factor, D), inv).astype(w)
    smooth = rnd(rnd(rnd(old / wavelen, D) - lo, D) / rnd(np.array(hi - lo), D), D).astype(w)
    one_minus = rnd(w(1) - smooth, D).astype(w)
    smoothed = rnd(rnd(rnd(one_minus * inv_l, D) / factor, D) + rnd(smooth * inv_l, D), D).astype(w)
    medium = ~(wavelen < high_wl) & ~(wavelen > low_wl)
    return np.where(medium, smoothed, inv_l)


def _f32(x: Any) -> np.float32:
    return np.float32(x)


def _hf_yarn_applies(tg: Target) -> bool:
    """Whether ``tg`` is a YaRN config whose frequencies HF's ``_compute_yarn_parameters``
    computes (plain ``yarn``, no vLLM ``extrapolation_factor`` or DeepSeek ``mscale`` rule)."""
    sp = tg.spec
    return (tg.kind == "rope" and sp.rope_type == "yarn" and sp.factors is None and sp.extrapolation_factor == 1.0
            and sp.original_max_position_embeddings is not None and sp.factor is not None)


def _yarn_range(sp: Any) -> tuple[float, float]:
    """YaRN's correction range as HF (and vLLM) compute it, in float64."""
    dim, base = sp.rotary_dim, sp.rope_theta
    orig = sp.original_max_position_embeddings

    def corr(n: float) -> float:
        return (dim * math.log(orig / (n * 2 * math.pi))) / (2 * math.log(base))

    low, high = corr(sp.beta_fast or 32), corr(sp.beta_slow or 1)
    if sp.truncate is not False:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def _hf_yarn(tg: Target, D: str, pow_fn: Any) -> np.ndarray:
    """HF's ``_compute_yarn_parameters`` (transformers 5.25 ``modeling_rope_utils``; vLLM's
    ``YaRNScalingRotaryEmbedding._compute_inv_freq`` is the same), every operation in ``D``:
    ``pos = b ** (arange(0, d, 2) / d)``, ``extra = 1 / pos``, ``inter = 1 / (factor * pos)``,
    ``mask = 1 - clamp((arange(d/2) - low) / (high - low), 0, 1)``, ``inter * (1 - mask) +
    extra * mask``."""
    sp = tg.spec
    d, h = sp.rotary_dim, tg.pairs
    ar = rnd(np.arange(0, d, 2, dtype=np.float64)[:h], D)
    pos = pow_fn(np.broadcast_to(rnd(np.array(sp.rope_theta), D), (h,)), div(ar, rnd(np.array(float(d)), D), D), D)
    one = rnd(np.array(1.0), D)
    extra = div(one, pos, D)
    inter = div(one, mul(rnd(np.array(float(sp.factor)), D), pos, D), D)
    low, high = _yarn_range(sp)
    if low == high:
        high += 0.001
    lin = div(sub(rnd(np.arange(h, dtype=np.float64), D), rnd(np.array(float(low)), D), D),
              rnd(np.array(float(high - low)), D), D)
    mask = sub(one, np.clip(lin, 0, 1), D)
    return add(mul(inter, sub(one, mask, D), D), mul(extra, mask, D), D)


def _llamacpp_yarn(tg: Target, D: str) -> tuple[float, np.ndarray, float] | None:
    """llama.cpp's YaRN (``rope_yarn`` and ``ggml_rope_yarn_corr_dims``, ops.cpp @1f08e2d, in
    float32): ``freq_scale = 1 / factor``, ``ext_factor = 1``, the ramp ``1 - min(1, max(0,
    (i - low) / max(0.001, high - low)))`` with ``low = floor``, ``high = ceil`` of the
    correction dimensions (``logf``), and ``mscale = 1 + 0.1 logf(1 / freq_scale)``; ``None``
    where the config is not a plain YaRN one (llama.cpp's other scalings use freq_factors)."""
    if D != "float32" or not _hf_yarn_applies(tg) or tg.spec.attention_factor is not None \
            or tg.spec.mscale or tg.spec.mscale_all_dim:
        return None
    sp = tg.spec
    f = np.float32
    dims, base, orig = f(sp.rotary_dim), f(sp.rope_theta), f(sp.original_max_position_embeddings)

    def logf(x: np.float32) -> np.float32:
        return f(math.log(float(x)))

    def corr(n: float) -> np.float32:
        return f(f(dims * logf(f(orig / f(f(f(n) * f(2)) * f(math.pi))))) / f(f(2) * logf(base)))

    low = f(max(0.0, math.floor(float(corr(sp.beta_fast or 32)))))
    high = f(min(float(dims) - 1, math.ceil(float(corr(sp.beta_slow or 1)))))
    fs = f(f(1) / f(sp.factor))
    y = (np.arange(tg.pairs, dtype=np.float32) - low) / max(f(0.001), f(high - low))
    ramp = (f(1) - np.minimum(f(1), np.maximum(f(0), y.astype(np.float32)))).astype(np.float32)
    mscale = f(f(1) * f(f(1) + f(f(0.1) * logf(f(f(1) / fs)))))
    return float(fs), ramp, float(mscale)


def _two_prod_dd(t: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``t[:, None] * (hi + lo)`` as a double-double (Dekker; exact up to ``t*lo``'s rounding)."""
    t = np.asarray(t, np.float64)[:, None]
    p = t * hi
    c = 134217729.0
    th = c * t
    th = th - (th - t)
    tl = t - th
    wh = c * hi
    wh = wh - (wh - hi)
    wl = hi - wh
    e = ((th * wh - p) + th * wl + tl * wh) + tl * wl
    e += t * lo
    return p, e
