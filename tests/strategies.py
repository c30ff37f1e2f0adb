"""Named hypothesis strategies for the numeric core and its oracle.

Sizes are kept small where the mpmath oracle has to evaluate every entry (it costs ~20 us an
entry at 50 digits); the fast paths of :mod:`pe_symbolic.numeric` switch on at 64 positions,
so ``position_runs`` draws runs at least that long and tests compare a few sampled rows.
Also helpers the tests of the compiled routes share: :func:`same_bits`, :func:`no_numba` and
:func:`sincos_destinations`; and :func:`budget`, the example budget of a property that earns
more examples than the profile gives, in CI only.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from unittest import mock

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

__all__ = [
    "budget",
    "BASES",
    "ROPE_TYPES",
    "LAYOUTS",
    "ORDERS",
    "SCHEDULES",
    "bases",
    "dims",
    "integer_positions",
    "no_numba",
    "layouts",
    "orders",
    "position_arrays",
    "position_runs",
    "real_positions",
    "rope_configs",
    "rope_inputs",
    "same_bits",
    "schedules",
    "shipped_config_case",
    "sincos_destinations",
]

LAYOUTS = ("interleaved", "split")
ORDERS = ("sin_cos", "cos_sin")
SCHEDULES = ("vaswani", "tensor2tensor")
#: 10000: Vaswani et al.; 500000: Llama 3 RoPE; 100 and 2: small bases stress low frequencies.
BASES = (10000.0, 500000.0, 100.0, 2.0)

#: The range the accuracy targets are stated for.
LIMIT = 2**24

layouts = st.sampled_from(LAYOUTS)
orders = st.sampled_from(ORDERS)
schedules = st.sampled_from(SCHEDULES)
bases = st.one_of(st.sampled_from(BASES), st.floats(1.5, 1e6))


def dims(max_d: int = 32) -> st.SearchStrategy[int]:
    """Even dimensions ``2..max_d`` (``d = 2`` is the degenerate one-pair case)."""
    return st.integers(1, max_d // 2).map(lambda h: 2 * h)


#: Integer positions, negative too, up to the 2**24 of the accuracy targets.
integer_positions = st.integers(-LIMIT + 1, LIMIT - 1)

#: Real positions (fractional ones matter for position interpolation), |t| < 2**24.
real_positions = st.one_of(
    integer_positions.map(float),
    st.floats(-LIMIT + 1, LIMIT - 1, allow_nan=False, allow_infinity=False),
    st.floats(-64, 64, allow_nan=False, allow_infinity=False),
)


def position_arrays(max_len: int = 6, elements=real_positions) -> st.SearchStrategy[np.ndarray]:
    """Small 1-D float64 arrays of positions (for entry-by-entry oracle checks)."""
    return hnp.arrays(np.float64, st.integers(1, max_len), elements=elements)


@st.composite
def position_runs(draw, min_len: int = 64, max_len: int = 300) -> np.ndarray:
    """Runs that take the fast paths: consecutive integers, or a uniform fractional grid."""
    n = draw(st.integers(min_len, max_len))
    start = draw(st.integers(-LIMIT + 1, LIMIT - 1 - max_len * 4))
    kind = draw(st.sampled_from(("consecutive", "grid")))
    if kind == "consecutive":
        return start + np.arange(n, dtype=np.float64)
    step = draw(st.sampled_from((0.25, 0.5, 0.125, 1.0 / 3.0)))
    return start + step * np.arange(n, dtype=np.float64)


@st.composite
def rope_inputs(draw, max_d: int = 16, max_seq: int = 5, dtype=np.float64):
    """``(x, positions)`` with x of shape (heads, seq, d), positions of shape (seq,)."""
    d = draw(dims(max_d))
    seq = draw(st.integers(1, max_seq))
    heads = draw(st.integers(1, 2))
    x = draw(
        hnp.arrays(
            dtype,
            (heads, seq, d),
            elements=st.floats(-4, 4, allow_nan=False, width=np.dtype(dtype).itemsize * 8),
        )
    )
    pos = draw(hnp.arrays(np.float64, (seq,), elements=real_positions))
    return x, pos


# ----------------------------------------------------------------------------------------
# comparing against the oracle (exact differences, in mpmath)

#: float64 unit roundoff.
U64 = 2.0**-53
#: float32 unit roundoff.
U32 = 2.0**-24


def abs_errors(num: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """``|num - ref|`` entry by entry, with ``ref`` an object array of mpf (exact difference)."""
    import mpmath

    num = np.asarray(num, dtype=np.float64)
    out = np.empty(num.shape)
    with mpmath.workdps(60):
        for idx in np.ndindex(num.shape):
            out[idx] = float(abs(mpmath.mpf(float(num[idx])) - ref[idx]))
    return out


def ulp_errors(num: np.ndarray, ref: np.ndarray, bits: int = 53) -> np.ndarray:
    """Error of every entry in units of the last place of the *true* value.

    ``ulp(x) = 2**(e - bits)`` for ``x = m * 2**e``, ``0.5 <= |m| < 1`` (at least the smallest
    subnormal); ``bits`` is 53 for float64 and 24 for float32. A true zero must be computed
    exactly (else ``inf``).
    """
    import mpmath

    min_exp = -1074 if bits == 53 else -149

    num = np.asarray(num, dtype=np.float64)
    out = np.empty(num.shape)
    with mpmath.workdps(60):
        for idx in np.ndindex(num.shape):
            r = ref[idx]
            diff = abs(mpmath.mpf(float(num[idx])) - r)
            if r == 0:
                out[idx] = 0.0 if diff == 0 else np.inf
                continue
            _, e = mpmath.frexp(r)
            # subnormal range: the ulp never drops below the smallest subnormal
            out[idx] = float(diff / mpmath.ldexp(1, max(int(e) - bits, min_exp)))
    return out


# ----------------------------------------------------------------------------------------
# model configs for the RoPE family (pe_symbolic.numeric.rope_frequencies)

#: Every rope_type the config reader knows.
ROPE_TYPES = ("default", "linear", "ntk", "dynamic", "yarn", "longrope", "llama3", "proportional", "telechat3-yarn")

#: Bases of real models: Llama 2 / Mistral, Llama 3, Qwen 2.5, gpt-oss, and a small one.
REAL_BASES = (10000.0, 500000.0, 1000000.0, 150000.0, 100.0)


@st.composite
def rope_configs(draw, rope_type: str | None = None) -> tuple[dict, int | None]:
    """``(config, seq_len)``: a valid model config of the given (or any) rope_type.

    Head dims, bases, factors and lengths cover the ranges real configs use; the rope
    fields sit in ``rope_parameters`` or in the older ``rope_scaling`` (``type`` for
    ``rope_type``), the head dim is given directly or as ``hidden_size / heads``.
    """
    kind = rope_type or draw(st.sampled_from(ROPE_TYPES))
    head = draw(st.sampled_from((8, 16, 32, 64, 96, 128, 256)))
    fracs = [f for f in (1.0, 0.75, 0.5, 0.25) if int(head * f) % 2 == 0 and int(head * f) >= 4]
    frac = draw(st.sampled_from(fracs))
    rotary = int(head * frac) if kind != "proportional" else head
    cfg: dict = {}
    if draw(st.booleans()):
        cfg["head_dim"] = head
    else:
        heads = draw(st.sampled_from((1, 4, 32)))
        cfg["hidden_size"], cfg["num_attention_heads"] = head * heads, heads
    cfg["rope_theta"] = draw(st.one_of(st.sampled_from(REAL_BASES), st.floats(2.0, 1e7)))
    rope: dict = {}
    if frac != 1.0:
        (rope if kind == "proportional" or draw(st.booleans()) else cfg)["partial_rotary_factor"] = frac
    factors = st.one_of(st.sampled_from((1.0, 2.0, 4.0, 8.0, 32.0, 40.0)), st.floats(1.0, 64.0))
    lengths = st.sampled_from((256, 2048, 4096, 8192, 32768))
    cfg["max_position_embeddings"] = draw(st.sampled_from((2048, 4096, 32768, 131072)))
    if kind in ("linear", "ntk", "dynamic", "yarn", "llama3", "telechat3-yarn"):
        rope["factor"] = draw(factors)
    if kind == "ntk" and draw(st.booleans()):  # vLLM's mixed NTK
        rope["mixed_b"] = draw(st.one_of(st.sampled_from((0.625, 1.0, 2.0)), st.floats(0.05, 4.0)))
    if kind in ("yarn", "llama3", "longrope", "telechat3-yarn"):
        rope["original_max_position_embeddings"] = draw(lengths)
    if kind == "telechat3-yarn":
        if draw(st.booleans()):
            rope["beta_fast"], rope["beta_slow"] = draw(st.sampled_from((32, 16.0))), draw(st.sampled_from((1, 2.0)))
        if draw(st.booleans()):
            rope["extrapolation_factor"] = draw(st.floats(0.0, 2.0))
        if draw(st.booleans()):
            rope["attn_factor"] = draw(st.floats(0.5, 2.0))
    if kind == "yarn":
        if draw(st.booleans()):
            rope["beta_fast"] = draw(st.sampled_from((32, 16.0, 64.0)))
            rope["beta_slow"] = draw(st.sampled_from((1, 0.5, 2.0)))
        rope["truncate"] = draw(st.booleans())
        extra = draw(st.sampled_from(("none", "mscale", "explicit")))
        if extra == "mscale":
            rope["mscale"] = draw(st.sampled_from((1.0, 0.707)))
            rope["mscale_all_dim"] = draw(st.sampled_from((1.0, 0.5)))
        elif extra == "explicit":
            rope["attention_factor"] = draw(st.floats(0.5, 2.0))
    if kind == "longrope":
        pos = st.floats(1.0, 80.0)
        rope["short_factor"] = draw(st.lists(pos, min_size=rotary // 2, max_size=rotary // 2))
        rope["long_factor"] = draw(st.lists(pos, min_size=rotary // 2, max_size=rotary // 2))
        if draw(st.booleans()):
            rope["factor"] = draw(factors)
    if kind == "llama3":
        low = draw(st.sampled_from((1.0, 0.5, 2.0)))
        rope["low_freq_factor"] = low
        rope["high_freq_factor"] = low + draw(st.sampled_from((3.0, 0.25, 6.0)))
    if kind == "proportional" and draw(st.booleans()):
        rope["factor"] = draw(factors)
    if draw(st.booleans()):
        rope["rope_type"] = kind
        cfg["rope_parameters"] = rope
    else:
        rope["type"] = kind
        cfg["rope_scaling"] = rope
    seq_len = draw(st.one_of(st.none(), st.integers(1, 4 * cfg["max_position_embeddings"])))
    return cfg, seq_len


def no_numba():
    """A loader for :class:`pe_symbolic.numeric._compiled.OptionalKernel` that fails as an
    import without the ``fast`` extra does (the tests of the fallback routes)."""
    raise ModuleNotFoundError("no numba")


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape, dtype and bytes (NaN payloads and signed zeros included): how the tests
    compare a compiled route with the NumPy route it must reproduce."""
    def raw(v):
        return np.ascontiguousarray(v).view(np.uint8)

    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(raw(a), raw(b))


def sincos_destinations(n: int, h: int, dtype, dest: str) -> tuple[np.ndarray, np.ndarray]:
    """NaN-filled ``(sin, cos)`` destinations of shape ``(n, h)`` as the accurate route may be
    given them: ``"contiguous"`` arrays, the imaginary and real parts of a ``"complex"`` array,
    or the ``"interleaved slots"`` of one table (both strided)."""
    if dest == "contiguous":
        return np.full((n, h), np.nan, dtype), np.full((n, h), np.nan, dtype)
    if dest == "complex":
        z = np.full((n, h), np.nan, np.complex64 if dtype == np.float32 else np.complex128)
        return z.imag, z.real
    tab = np.full((n, 2 * h), np.nan, dtype)
    return tab[:, 0::2], tab[:, 1::2]


@contextlib.contextmanager
def calls_of(obj, name: str) -> Iterator[list[int]]:
    """Record the size of the first argument of every call of ``obj.name`` (which still runs)
    for the duration: which compiled kernel a route took."""
    real = getattr(obj, name)
    calls: list[int] = []

    def spy(*args):
        calls.append(args[0].size)
        return real(*args)

    with mock.patch.object(obj, name, spy):
        yield calls


def shipped_config_case(name: str, ids, stack):
    """A shipped model config as the backend tests run it: ``(config, spec, layer_type, ids,
    layout)``. Per-layer-type configs (Gemma 3) take ``layer_type="sliding_attention"``;
    ``ids`` (batch, seq) become (row, col) ids for an axial config (Pixtral) and three M-RoPE
    axes where the config has sections (``stack``: the array library's ``stack``); the layout
    is HF's for the model type (interleaved pairs for Llama 4, DeepSeek-V3 reads them so)."""
    import pe_symbolic.numeric as N

    cfg = N.model_config(name)
    try:
        spec, lt = N.parse_rope_config(cfg), None
    except ValueError:  # per-layer-type configs
        lt = "sliding_attention"
        spec = N.parse_rope_config(cfg, layer_type=lt)
    if spec.rope_type == "axial":
        ids = stack([ids // 7, ids % 7])
    elif spec.mrope_section is not None:
        ids = stack([ids, ids // 2, ids % 7])
    layout = "interleaved" if N.describe(cfg, quiet=True).layout.startswith("interleaved") else "split"
    return cfg, spec, lt, ids, layout


def budget(examples: int) -> int:
    """``max_examples`` for a property that earns a larger budget than the profile's (a fuzz of
    certificates or of the Coq printer): ``examples`` under CI's profile
    (``HYPOTHESIS_PROFILE=ci``, .ci/run and ``make test-slow``), at most the loaded profile's
    own budget otherwise (``make test``'s dev profile: 40), so that the quick local run stays
    quick and CI still searches as widely as the test asks."""
    if os.environ.get("HYPOTHESIS_PROFILE") == "ci":
        return examples
    return min(examples, settings.default.max_examples)
