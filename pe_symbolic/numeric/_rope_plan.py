"""Where RoPE's frequencies and positions come from: the seam between the public RoPE
functions and the kernels.

:func:`frequency_plan` turns the keyword arguments of :func:`pe_symbolic.numeric.rope_cos_sin`
and :func:`pe_symbolic.numeric.apply_rope` (a base, a model config, or a frequency vector; an
M-RoPE section layout; an attention factor) into a :class:`FrequencyPlan`: the frequencies as
a double-double ``(hi, lo)`` with their exact values, the rotary dimension, the position axis
of every pair and the factor that multiplies the tables. :func:`phasor_source` builds the
object the kernels read phasors from (``fill(start, stop, dest)``, ``block_rows()``, ``h``,
``mode``, ``B``): a plain :class:`~pe_symbolic.numeric._kernels.PhasorSource`, or, for M-RoPE
and attention factors, a thin wrapper around one per position axis. The kernels themselves
do not change.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_numeric_d as check_d
from ._core import _check_numeric_base, _omega_dd, _omega_exact, _source

__all__ = ["FrequencyPlan", "config_and_length", "frequency_plan", "phasor_source", "positions_error"]

DEFAULT_BASE = 10000.0

#: The config types whose frequencies depend on the current length.
_LENGTH_TYPES = ("dynamic", "longrope")


def config_and_length(config: Any, inv_freq: Any, layer_type: str | None, seq_len: Any,
                      positions_of: Callable[[], np.ndarray | None]) -> tuple[Any, Any]:
    """``(config, seq_len)`` for :func:`frequency_plan`: a config parsed once (a
    :class:`RopeSpec`), and for ``dynamic`` / ``longrope`` without ``seq_len`` the length HF's
    ``dynamic_rope_update`` uses, ``max(positions) + 1`` over every entry, real positions
    rounded down first, at least 1. ``positions_of()`` gives the positions as
    :func:`as_positions` returns them (called only for those types), or ``None`` when the
    caller reports a problem with them later. (Shared by the front end and the NumPy core's
    backend, below both.)"""
    from ._spec import RopeSpec
    from .config import parse_rope_config

    if config is None or inv_freq is not None or seq_len is not None:
        return config, seq_len
    spec = config if isinstance(config, RopeSpec) else parse_rope_config(config, layer_type=layer_type)
    if spec.rope_type not in _LENGTH_TYPES:
        return spec, None
    t = positions_of()
    if t is None or t.size == 0:
        return spec, None
    return spec, max(1, math.floor(float(t.max())) + 1)


@dataclass(frozen=True)
class FrequencyPlan:
    """Frequencies (double-double, and a function giving their 40-digit values, called only
    where they are needed), rotary dim, pair axes, attention factor."""

    w_hi: np.ndarray
    w_lo: np.ndarray
    exact_of: Callable[[], tuple]
    rotary_dim: int
    axes: tuple[int, ...] | None
    attention: float
    #: Position axes the positions carry (their leading axis): 3 for M-RoPE (t, h, w), 2 for
    #: axial 2-D RoPE (row, col), else 1 (no leading axis).
    n_axes: int = 1

    @property
    def w_exact(self) -> tuple:
        """The frequencies at 40 digits (mpmath numbers)."""
        return self.exact_of()


def positions_error(n_axes: int, shape: tuple[int, ...]) -> str | None:
    """Why positions of ``shape`` lack the leading axis a plan of ``n_axes`` position axes
    needs, or ``None``."""
    if n_axes == 1 or (len(shape) and shape[0] == n_axes):
        return None
    what = "M-RoPE positions need a leading axis of 3 (t, h, w)" if n_axes == 3 else \
        (f"axial (2-D) positions need a leading axis of {n_axes} (row, col), and openPangu's two-section M-RoPE "
         "one of 2 (h, w)")
    return f"{what}, e.g. shape ({n_axes}, seq) or ({n_axes}, batch, seq); got shape {tuple(shape)}"


@functools.lru_cache(maxsize=64)
def _config_dd(spec: Any, seq_key: Any, yarn_length: str) -> tuple[np.ndarray, np.ndarray, Callable[[], tuple], float]:
    """A config's frequencies as a double-double ``(hi, lo)``, a function giving their
    40-digit values, and the attention factor. ``hi``, ``lo`` and the factor are stored in
    the disk cache (keyed by the spec): a warm process imports no mpmath for them."""
    from . import _diskcache
    from ._frequencies import _exact_frequencies

    if (spec.rope_type == "axial" and spec.freq_dim is not None) or spec.xdrope_section is not None:
        if spec.rope_type == "axial":
            raise ValueError("rope_type 'axial' is HF's 2-D vision RoPE; for this model type its frequencies "
                             "(the ladder over head_dim/2) are placed by the model's own code, which differs "
                             "between models (H-W-H-W, H-H-W-W, per-axis splits of x), so config= does not "
                             "rotate with it (only Pixtral's is read); rope_frequencies(config) gives the "
                             "frequencies, inv_freq= and mrope_section= place them")
        n = len(spec.xdrope_section)
        raise ValueError(f"HunyuanVL's {n}-axis M-RoPE (xdrope_section {list(spec.xdrope_section)}) is not a "
                         "rotation of pairs: HF's HunYuanVLRotaryEmbedding lays section i over 2*section[i] "
                         f"channels of the full head dim, with position axis i, so the two channels of a pair "
                         "(i, i + d/2) take their angles from different axes (a rotation only where the axes "
                         "agree); the rotation lowered from the proved claim rope.efficient_form turns a pair by "
                         "one angle. For text (every axis the same position) pass inv_freq=rope_frequencies(config) "
                         "with the positions")

    if spec.fope:
        raise ValueError("FoPE (the config's fope_* keys, Intern-S1-Pro): each channel's cos and sin mix the kept "
                         "frequencies' cos and sin with coefficients from the checkpoint (cos_coef, sin_coef), which "
                         "config.json does not hold, and the channels past them are padded with cos = sin = 1; "
                         "config= does not rotate with it: pe_symbolic.numeric.fope_cos_sin(config, positions, "
                         "cos_coef, sin_coef, sin_pad=...) gives the tables, rope_frequencies(config) the kept "
                         "frequencies")
    if spec.position_blocks != 1:
        raise ValueError("ChatGLM-6B's 2-D RoPE (position_encoding_2d) turns two blocks of the head by two position "
                         "axes: pe_symbolic.numeric.apply_rope / rope_cos_sin take config= for it (positions with a "
                         "leading axis of 2); elsewhere rotate each block with inv_freq=rope_frequencies(config)")
    if spec.rotary_channels == "trailing":
        raise ValueError(f"DeepSeek-V4 (layer_type {spec.layer_type!r}) rotates the LAST {spec.rotary_dim} channels of "
                         f"each {spec.head_dim}-channel head in interleaved pairs, which config= does not place; rotate "
                         f"x[..., -{spec.rotary_dim}:] with inv_freq=rope_frequencies(config, layer_type=...) and "
                         "layout='interleaved' (HF then rotates the attention output's last channels back at the "
                         "query positions: negated positions)")

    def exact() -> tuple:
        return tuple(_exact_frequencies(spec, seq_key, yarn_length)[0])

    key = (repr(spec), seq_key, yarn_length)
    stored = _diskcache.load_value("config_dd", key)
    n = spec.pairs
    if (isinstance(stored, list) and len(stored) == 3 and type(stored[2]) is float
            and all(isinstance(v, list) and len(v) == n and all(type(f) is float for f in v) for v in stored[:2])):
        hi = np.array(stored[0], dtype=np.float64)
        lo = np.array(stored[1], dtype=np.float64)
        attn = stored[2]
    else:
        import mpmath

        from ._spec import DPS

        values, attn_exact = _exact_frequencies(spec, seq_key, yarn_length)
        with mpmath.workdps(DPS):
            hi = np.array([float(v) for v in values], dtype=np.float64)
            lo = np.array([float(v - float(v)) for v in values], dtype=np.float64)
        attn = float(attn_exact)
        _diskcache.store_value("config_dd", key, [hi.tolist(), lo.tolist(), attn])
    hi.flags.writeable = False
    lo.flags.writeable = False
    return hi, lo, exact, attn


def _as_inv_freq(inv_freq: object) -> tuple[np.ndarray, float | None]:
    from ._spec import RopeFrequencies

    attn = None
    if isinstance(inv_freq, RopeFrequencies):
        inv_freq, attn = inv_freq.inv_freq, float(inv_freq.attention_factor)
    arr = np.asarray(inv_freq)
    if arr.dtype.kind not in "iuf" or arr.ndim != 1 or arr.size == 0:
        raise TypeError(
            f"inv_freq must be a non-empty 1-D array of real numbers (or rope_frequencies(...)); "
            f"got dtype {arr.dtype} and shape {arr.shape}"
        )
    arr = arr.astype(np.float64)
    bad = ~(np.isfinite(arr) & (arr >= 0))
    if bad.any():
        q = int(np.argmax(bad))
        raise ValueError(f"inv_freq must be finite and >= 0; got {float(arr[q])!r} at index {q}")
    arr.flags.writeable = False
    return arr, attn


def frequency_plan(
    *,
    d: int | None,
    base: object,
    rotary_dim: int | None,
    config: Mapping[str, Any] | None,
    inv_freq: object,
    layer_type: str | None,
    seq_len: int | None,
    mrope_section: Sequence[int] | None,
    mrope_interleaved: bool,
    attention_factor: float | None,
) -> FrequencyPlan:
    """Resolve the frequency keywords of the RoPE functions into one :class:`FrequencyPlan`."""
    from ._frequencies import _check_seq_len, _seq_key
    from ._spec import RopeSpec
    from .config import parse_rope_config

    if config is not None and inv_freq is not None:
        raise ValueError("pass config= or inv_freq=, not both (inv_freq is what rope_frequencies(config) returns)")
    given = config is not None or inv_freq is not None
    if given and not (base == DEFAULT_BASE and not isinstance(base, bool)):
        raise ValueError(f"base={base!r} conflicts with {'config' if config is not None else 'inv_freq'}=: "
                         "the frequencies come from there; omit base")
    if not given and (layer_type is not None or seq_len is not None):
        raise ValueError("layer_type= and seq_len= need config=")
    if inv_freq is not None and (layer_type is not None or seq_len is not None):
        raise ValueError("layer_type= and seq_len= need config= (inv_freq is already resolved)")
    section = None if mrope_section is None else tuple(int(v) for v in mrope_section)
    rule = None
    n_axes, axes_2d = 1, None
    interleaved = mrope_interleaved
    if not isinstance(interleaved, bool):
        raise TypeError(f"mrope_interleaved={interleaved!r} must be True or False")
    if config is not None:
        spec = config if isinstance(config, RopeSpec) else parse_rope_config(config, layer_type=layer_type)
        hi, lo, exact, attn = _config_dd(spec, _seq_key(spec, _check_seq_len(seq_len)), "original")
        rd = spec.rotary_dim
        if spec.rope_type == "axial":
            # Pixtral (PixtralVisionRotaryEmbedding): its frequencies are the ladder's even
            # pairs then its odd pairs; positions (row, col): the first half of the pairs
            # turns by the row, the second by the column (split layout, rotate_half)
            if section is not None:
                raise ValueError("mrope_section= conflicts with an axial config (its two position axes "
                                 "take half of the pairs each)")
            if rd % 4:
                raise ValueError(f"an axial config needs a head dim divisible by 4; got {rd}")
            n_axes = 2
            axes_2d = (0,) * (rd // 4) + (1,) * (rd // 4)
        if spec.mrope_section is not None:
            if section is not None and section != spec.mrope_section:
                raise ValueError(f"mrope_section={list(section)!r} conflicts with the config's {list(spec.mrope_section)!r}")
            section, interleaved = spec.mrope_section, spec.mrope_interleaved or interleaved
            rule = spec.mrope_rule
        attention = float(attn)
    elif inv_freq is not None:
        hi, attn_given = _as_inv_freq(inv_freq)
        lo = np.zeros_like(hi)
        lo.flags.writeable = False
        exact = functools.partial(_exact_of, hi.tobytes())
        rd = 2 * hi.size
        attention = 1.0 if attn_given is None else attn_given
    else:
        if d is None:
            raise ValueError("d (the rotary dimension) is required unless config= or inv_freq= is given")
        rd = check_d(d) if rotary_dim is None else check_d(rotary_dim, name="rotary_dim")
        b = _check_numeric_base(base)
        hi, lo = _omega_dd(rd, b, "vaswani")
        exact = functools.partial(_omega_exact, rd, b, "vaswani")
        attention = 1.0
    if given and rotary_dim is not None and check_d(rotary_dim, name="rotary_dim") != rd:
        raise ValueError(f"rotary_dim={rotary_dim!r} conflicts with the {rd} rotated channels of "
                         f"{'config' if config is not None else 'inv_freq'}=")
    if given and d is not None and check_d(d) != rd:
        raise ValueError(f"d={d!r} conflicts with the {rd} rotated channels of "
                         f"{'config' if config is not None else 'inv_freq'}=")
    if attention_factor is not None:
        if isinstance(attention_factor, bool) or not np.isfinite(float(attention_factor)) or float(attention_factor) <= 0:
            raise ValueError(f"attention_factor={attention_factor!r} must be a finite number > 0")
        attention = float(attention_factor)
    axes = axes_2d
    if section is not None:
        n_axes = len(section) if rule == "openpangu" else 3  # openPangu: two sections (h, w) or three
        from ..encodings.family import mrope_axes  # (imports SymPy: only for M-RoPE)

        if rule is not None:
            from ._spec import mrope_rule_axes

            axes = mrope_rule_axes(rule, section)
        else:
            axes = mrope_axes(section, interleaved=interleaved)
        if len(axes) != rd // 2:
            raise ValueError(
                f"mrope_section={list(section)!r} sums to {len(axes)}; it must sum to rotary_dim/2 = {rd // 2}"
            )
    return FrequencyPlan(hi, lo, exact, rd, axes, attention, n_axes)


@functools.lru_cache(maxsize=64)
def _exact_of(buf: bytes) -> tuple:
    import mpmath

    return tuple(mpmath.mpf(float(v)) for v in np.frombuffer(buf))


class _AxesSource:
    """M-RoPE phasors: pair ``j`` from the positions of its axis, one source per axis."""

    mode = "axes"
    B = 1

    def __init__(self, sources: list[tuple[np.ndarray, Any]], h: int) -> None:
        self.sources = sources  # (pair indices, PhasorSource) per non-empty axis
        self.h = h

    def block_rows(self) -> int:
        return min(src.block_rows() for _, src in self.sources)

    def fill(self, start: int, stop: int, dest: np.ndarray) -> None:
        if stop <= start:
            return
        for idx, src in self.sources:
            tmp = np.empty((stop - start, idx.size), np.complex128)
            src.fill(start, stop, tmp)
            dest[:, idx] = tmp


class _ScaledSource:
    """Phasors times the attention factor (HF scales the cos and sin tables by it)."""

    mode = "scaled"
    B = 1

    def __init__(self, src: Any, factor: float) -> None:
        self.src, self.factor, self.h = src, factor, src.h

    def block_rows(self) -> int:
        return self.src.block_rows()

    def fill(self, start: int, stop: int, dest: np.ndarray) -> None:
        self.src.fill(start, stop, dest)
        dest *= self.factor


def phasor_source(plan: FrequencyPlan, t: np.ndarray, accurate: bool) -> Any:
    """The phasor source for positions ``t`` (shape ``(3,) + P`` for M-RoPE, else ``P``)."""
    if plan.axes is None:
        src = _source(t, plan.w_hi, plan.w_lo, accurate, swap=False, w_exact=plan.exact_of)
    else:
        axes = np.asarray(plan.axes)
        parts = []
        for a in range(plan.n_axes):
            idx = np.nonzero(axes == a)[0]
            if idx.size:
                exact = functools.partial(lambda idx: tuple(plan.w_exact[q] for q in idx), idx)
                parts.append((idx, _source(t[a], plan.w_hi[idx], plan.w_lo[idx], accurate, swap=False, w_exact=exact)))
        src = _AxesSource(parts, plan.rotary_dim // 2)
    if plan.attention != 1.0:
        src = _ScaledSource(src, plan.attention)
    return src
