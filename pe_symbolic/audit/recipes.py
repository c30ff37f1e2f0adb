r"""Recipes as data: where each value of a RoPE or sinusoidal table lives, and where it is cast.

A :class:`Recipe` says, for one implementation, in which dtype the positions are held, how
the inverse frequencies are computed and held, in which dtype the angle ``t * theta`` is
formed, where ``cos`` / ``sin`` are evaluated and cached, and in which dtype the rotation
runs. The presets (:data:`PRESETS`) emulate the code real frameworks ship, each with a
one-line note on where that code is; ``Recipe(...)`` (or :meth:`Recipe.replace`) writes
your own.

Dtype names: ``"float64"``, ``"float32"``, ``"float16"``, ``"bfloat16"``, ``"tf32"`` (a
float32 value rounded to TF32's 11 significant bits, as a TF32 tensor-core matmul rounds its
inputs: positions above 2048 lose their last bits); positions may also be ``"int64"``
(exact); and ``"act"`` stands for the activation dtype the audit runs in (``--dtype``).

Inverse frequencies (``inv_freq``), with :math:`h = d/2` pairs and base :math:`b`:

===============  ======================================================================
``reciprocal``   ``1 / b ** (arange(0, d, 2) / d)`` (HF, vLLM, GPT-NeoX, torchtune, ...)
``pow``          ``b ** (-arange(0, d, 2) / d)``
``exp``          ``exp(arange(h) * -(ln b / (h - 1)))`` (tensor2tensor, fairseq schedule)
``exp2``         ``exp2(-(i / h) * log2 b)`` (MLX ``fast.rope``)
``divide``       the angle is ``t / b ** (2i / d)``, a division (DistilBERT; MaxText's RoPE
                 divides positions by timescales; plain ladders only; KerasHub's
                 ``RotaryEmbedding`` does not: it multiplies by ``reciprocal``)
``running``      the angle of pair ``i`` is ``t * s * s * ... * s`` (``i`` float products,
                 ``s = b ** (-2 / d)``), llama.cpp's ``theta *= theta_scale``
``exact``        the 40-digit frequencies, angles as double-doubles (pe_symbolic)
===============  ======================================================================

Scaled configs (``llama3``, ``yarn``, ...): the recipe's ladder times the exact scaling
ratio, one more rounding in ``inv_freq_dtype`` (``running``: divided by the ratio's
reciprocal, llama.cpp's ``freq_factors``).

Fast-math trigonometry (``trig="fast"``): a kernel compiled with ``--use_fast_math`` (or
calling ``__sinf`` / ``__cosf`` / ``__sincosf``, or Metal's ``fast::sin`` / ``fast::cos``)
does not evaluate IEEE ``sin`` / ``cos``: CUDA documents ``__sinf(x)``'s error as
``2**-21.41`` for ``|x| <= pi`` "and larger otherwise" -- the hardware reduces the argument
in float32, ``x * (1 / 2 pi)`` rounded to float32 and its fraction taken, so the reduced
angle's error grows with ``|x|`` (about ``|x| * 2**-23``: ``1e-2`` at an angle of 131,071
rad). The emulation reduces as the hardware does (float32 product by float32 ``1/(2 pi)``,
exact fraction) and evaluates the reduced angle's ``cos`` / ``sin`` in float64, rounded to
float32 (the intrinsic's own ``2**-21.41`` on the reduced range is not added). The bound
beside the measurement stays the IEEE trig's, so the audit places a fast-math kernel
against it: ``MEASURED > BOUND`` from the position where the reduction's error leaves it.

>>> r = PRESETS["flashinfer"].replace(name="flashinfer-fast", trig="fast")
>>> r.trig
'fast'

The bound is derived from that sequence: the reduction's error (about ``2 |x| u`` for the
float32 product by ``1 / (2 pi)``) and the intrinsic's own ``2**-21.41`` are part of the
fast kernel's angle and table bounds, so its bound is larger than the IEEE kernel's, and
measured within it (:func:`pe_symbolic.audit.rounding.rounding_sequence` lists every step).

The rotation's arithmetic (RoPE only):

* ``fma``: whether the compiler contracts ``x*cos - y*sin`` into a fused multiply-add,
  and which product it rounds first: ``"none"`` (both products rounded: separate torch
  kernels), ``"cos"`` (``fma(-y, sin, fl(x*cos))``: the ``cos`` products rounded, the
  ``sin`` products fused), ``"sin"`` (``fma(x, cos, fl(-y*sin))``), or ``"any"`` (a CUDA,
  Triton or ``-O3`` C kernel: the compiler may pick either or none; the bound is the
  worst of the three, the emulation runs ``"none"``). vLLM PR 57112: Triton 3.7 lowered
  ``x*cos - y*sin`` to ``FMA_F16(x, cos, MUL_F16(-y, sin))`` (``"sin"``), Triton 3.8 to
  ``FMA_F16(-y, sin, MUL_F16(x, cos))`` (``"cos"``).
* ``rounding``: ``"nearest"`` (round to nearest even, IEEE's default) or ``"truncate"``
  (round toward zero: an error up to one ulp instead of half: bf16 arithmetic that
  truncates, as some AMD paths do) for every rounding of the rotation (products, sums and
  the store to the activation dtype).

>>> PRESETS["vllm"].fma, PRESETS["hf"].fma
('any', 'none')

>>> PRESETS["hf"].angle_dtype
'float32'
>>> Recipe("mine", inv_freq="running", angle_dtype="float64")
Traceback (most recent call last):
ValueError: recipe 'mine': inv_freq='running' forms the angle as a running product in inv_freq_dtype='float32'; angle_dtype='float64' contradicts it (set both to the same dtype)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._validate import check_choice

__all__ = [
    "DTYPES",
    "INV_FREQ",
    "PRESETS",
    "TRIGS",
    "Recipe",
    "get_recipe",
    "preset_names",
]

#: Dtypes a recipe's fields may name (``"act"``: the audit's activation dtype).
DTYPES: tuple[str, ...] = ("float64", "float32", "float16", "bfloat16", "tf32", "act")
#: Dtypes positions may be held in.
POSITION_DTYPES: tuple[str, ...] = ("int64", *DTYPES)
#: Activation dtypes an audit runs in.
ACT_DTYPES: tuple[str, ...] = ("float64", "float32", "float16", "bfloat16")
#: How the inverse frequencies (or the angles) are computed.
INV_FREQ: tuple[str, ...] = ("reciprocal", "pow", "exp", "exp2", "divide", "running", "exact")
#: How ``cos`` / ``sin`` are evaluated: ``"ieee"`` (the library's, within an ulp or two) or
#: ``"fast"`` (CUDA's ``__sinf`` / ``__cosf``, Metal's ``fast::``: float32 range reduction).
TRIGS: tuple[str, ...] = ("ieee", "fast")
#: Fused multiply-add in the rotation: none, the ``cos`` products rounded (the ``sin`` ones
#: fused), the ``sin`` products rounded, or whichever the compiler picks.
FMAS: tuple[str, ...] = ("none", "cos", "sin", "any")
#: How the rotation's operations round: to nearest even, or toward zero.
ROUNDINGS: tuple[str, ...] = ("nearest", "truncate")
KINDS: tuple[str, ...] = ("rope", "sinusoidal")
ROTATIONS: tuple[str, ...] = ("act", "float32", "float64", "table")


@dataclass(frozen=True)
class Recipe:
    """Where each value of a positional-encoding implementation lives and where it is cast.

    Parameters
    ----------
    name : str
        Short name (the presets' names are what ``pe-audit --recipe`` takes).
    source : str
        One line: the file / function emulated and what it does with dtypes.
    kind : {"rope", "sinusoidal"}
        A RoPE (cos/sin tables applied by a rotation) or a sinusoidal table (added).
    layout : {"split", "interleaved"}
        Pair slots (RoPE ``rotate_half`` / GPT-J; sinusoidal ``concat`` / Vaswani).
    order : {"sin_cos", "cos_sin"}
        Sinusoidal only: which of sin / cos fills a pair's first slot.
    schedule : {"vaswani", "tensor2tensor"}
        Sinusoidal only: the frequency schedule (RoPE frequencies come from the config).
    inv_freq : str
        How the inverse frequencies are computed, one of ``INV_FREQ``.
    inv_freq_dtype : str
        The dtype they are computed in.
    inv_freq_storage : str, optional
        The dtype they are held in afterwards, when cast (``"act"``: cast with the model,
        as ``model.to(torch.bfloat16)`` does to a buffer, HF issue 25681).
    position_dtype : str
        The dtype positions are held in before the multiply (``"int64"``: exact).
    angle_dtype : str
        The dtype the product ``t * theta`` is rounded to.
    reduce : bool
        Reduce the angle modulo 2 pi in float64 before ``cos`` / ``sin`` (needs
        ``angle_dtype="float64"``).
    trig_dtype : str
        The dtype ``cos`` / ``sin`` are evaluated in (float16 / bfloat16: in float32, then
        rounded, as torch does).
    table_dtype : str
        The dtype the cos/sin table is held in when it is used.
    rotation_dtype : str, optional
        RoPE only: the dtype of the rotation's products and sum: ``"act"`` (every operation
        rounded to the activation dtype, ``q * cos + rotate_half(q) * sin``), ``"float32"``
        or ``"float64"`` (then one rounding to the activation dtype), ``"table"`` (the
        table's dtype). Default ``"act"``.
    trig : {"ieee", "fast"}
        How ``cos`` / ``sin`` are evaluated: the library's (default) or a fast-math
        intrinsic (``__sinf`` / ``__cosf``, Metal ``fast::``; needs ``trig_dtype="float32"``):
        see the module notes.
    fma : {"none", "cos", "sin", "any"}
        RoPE only: whether ``x*cos - y*sin`` is contracted into a fused multiply-add and
        which product is rounded first (see the module notes). Default ``"none"``.
    rounding : {"nearest", "truncate"}
        RoPE only: how the rotation's products, sums and store round. Default ``"nearest"``.
    """

    name: str
    source: str = ""
    kind: str = "rope"
    layout: str = "split"
    order: str = "sin_cos"
    schedule: str = "vaswani"
    inv_freq: str = "reciprocal"
    inv_freq_dtype: str = "float32"
    inv_freq_storage: str | None = None
    position_dtype: str = "float32"
    angle_dtype: str = "float32"
    reduce: bool = False
    trig_dtype: str = "float32"
    table_dtype: str = "act"
    rotation_dtype: str | None = None
    trig: str = "ieee"
    fma: str = "none"
    rounding: str = "nearest"

    def __post_init__(self) -> None:
        where = f"recipe {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"recipe name={self.name!r} must be a non-empty string")
        check_choice(f"{where}: kind", self.kind, KINDS)
        check_choice(f"{where}: layout", self.layout, ("split", "interleaved"))
        check_choice(f"{where}: order", self.order, ("sin_cos", "cos_sin"))
        check_choice(f"{where}: schedule", self.schedule, ("vaswani", "tensor2tensor"))
        check_choice(f"{where}: inv_freq", self.inv_freq, INV_FREQ)
        check_choice(f"{where}: inv_freq_dtype", self.inv_freq_dtype, DTYPES)
        if self.inv_freq_storage is not None:
            check_choice(f"{where}: inv_freq_storage", self.inv_freq_storage, DTYPES)
        check_choice(f"{where}: position_dtype", self.position_dtype, POSITION_DTYPES)
        check_choice(f"{where}: angle_dtype", self.angle_dtype, DTYPES)
        check_choice(f"{where}: trig_dtype", self.trig_dtype, DTYPES)
        check_choice(f"{where}: table_dtype", self.table_dtype, DTYPES)
        if not isinstance(self.reduce, bool):
            raise TypeError(f"{where}: reduce={self.reduce!r} must be True or False")
        if self.rotation_dtype is not None:
            check_choice(f"{where}: rotation_dtype", self.rotation_dtype, ROTATIONS)
        check_choice(f"{where}: trig", self.trig, TRIGS)
        check_choice(f"{where}: fma", self.fma, FMAS)
        check_choice(f"{where}: rounding", self.rounding, ROUNDINGS)
        if self.kind == "sinusoidal" and (self.fma != "none" or self.rounding != "nearest"):
            raise ValueError(f"{where}: fma={self.fma!r} / rounding={self.rounding!r} describe a RoPE "
                             "rotation; a sinusoidal table has none (omit them)")
        if self.trig == "fast" and self.trig_dtype != "float32":
            raise ValueError(f"{where}: trig='fast' is a float32 intrinsic (__sinf / __cosf, Metal fast::); "
                             f"trig_dtype={self.trig_dtype!r} contradicts it (use trig_dtype='float32')")
        if self.trig == "fast" and self.inv_freq == "exact":
            raise ValueError(f"{where}: trig='fast' with inv_freq='exact' (pe_symbolic's own tables, IEEE float64 "
                             "cos / sin) contradicts it")
        # contradictions
        if self.kind == "sinusoidal" and self.rotation_dtype is not None:
            raise ValueError(f"{where}: rotation_dtype={self.rotation_dtype!r} is for RoPE recipes; "
                             "a sinusoidal table has no rotation (omit it or use kind='rope')")
        if self.kind == "rope" and self.schedule != "vaswani":
            raise ValueError(f"{where}: schedule={self.schedule!r} is for sinusoidal tables; a RoPE "
                             "recipe takes its frequencies from the model config (omit schedule)")
        if self.inv_freq == "running" and self.angle_dtype != self.inv_freq_dtype:
            raise ValueError(
                f"{where}: inv_freq='running' forms the angle as a running product in "
                f"inv_freq_dtype={self.inv_freq_dtype!r}; angle_dtype={self.angle_dtype!r} contradicts it "
                "(set both to the same dtype)")
        if self.inv_freq == "exact" and (self.angle_dtype != "float64" or self.inv_freq_storage is not None):
            raise ValueError(
                f"{where}: inv_freq='exact' forms angles as double-doubles from 40-digit frequencies; "
                f"angle_dtype={self.angle_dtype!r} / inv_freq_storage={self.inv_freq_storage!r} contradict "
                "it (use angle_dtype='float64' and no storage cast)")
        if self.reduce and self.angle_dtype != "float64":
            raise ValueError(
                f"{where}: reduce=True reduces the angle modulo 2 pi in float64, but the angle is formed "
                f"in angle_dtype={self.angle_dtype!r}: the digits a reduction would keep are already lost "
                "(set angle_dtype='float64')")
        if self.inv_freq == "running" and self.inv_freq_dtype not in ("float32", "float64"):
            raise ValueError(f"{where}: inv_freq='running' is emulated in float32 or float64; got "
                             f"inv_freq_dtype={self.inv_freq_dtype!r}")
        if self.kind == "sinusoidal" and self.inv_freq == "running":
            raise ValueError(f"{where}: inv_freq='running' is llama.cpp's RoPE; no sinusoidal table "
                             "is built that way")

    @property
    def rotation(self) -> str:
        """The rotation dtype, with the default filled in (``"act"``; ``""`` for sinusoidal)."""
        if self.kind == "sinusoidal":
            return ""
        return self.rotation_dtype or "act"

    def replace(self, **changes: Any) -> Recipe:
        """A copy with some fields changed (checked again).

        >>> PRESETS["hf"].replace(name="hf-f64", angle_dtype="float64").angle_dtype
        'float64'
        """
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (JSON-ready)."""
        return dataclasses.asdict(self) | {"rotation_dtype": self.rotation or None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Recipe:
        """A recipe from a mapping of its fields; unknown keys are refused by name.

        >>> Recipe.from_dict({"name": "x", "angle_dtype": "float64"}).angle_dtype
        'float64'
        >>> Recipe.from_dict({"name": "x", "angel_dtype": "float64"})
        Traceback (most recent call last):
        ValueError: recipe field 'angel_dtype' is not known; use one of name, source, kind, layout, order, schedule, inv_freq, inv_freq_dtype, inv_freq_storage, position_dtype, angle_dtype, reduce, trig_dtype, table_dtype, rotation_dtype, trig, fma, rounding
        """
        names = [f.name for f in dataclasses.fields(cls)]
        for key in data:
            if key not in names:
                raise ValueError(f"recipe field {key!r} is not known; use one of {', '.join(names)}")
        return cls(**dict(data))


_HF = "transformers models/llama/modeling_llama.py LlamaRotaryEmbedding + modeling_rope_utils"
PRESETS: dict[str, Recipe] = {
    r.name: r
    for r in (
        Recipe(
            "hf",
            f"{_HF} (current, 5.x): inv_freq 1/b**(arange/d) float32; position_ids[..., None].float() * "
            "inv_freq, an elementwise float32 product (4.x: a matmul, one product per entry, the same "
            "rounding unless TF32 is on: see 'hf-tf32'), autocast disabled (PR 29285); cos/sin float32 "
            "times attention_scaling, .to(x.dtype); q*cos + rotate_half(q)*sin in x's dtype",
        ),
        Recipe(
            "hf-tf32",
            f"{_HF} 4.x: inv_freq_expanded.float() @ position_ids_expanded.float(), a float32 matmul; with "
            "TF32 enabled (torch.backends.cuda.matmul.allow_tf32 or set_float32_matmul_precision('high'), "
            "Ampere and later) the tensor cores round both inputs to TF32 (11 significant bits): positions "
            "above 2048 are rounded (2049 -> 2048), the product accumulates in float32; the rest as 'hf' "
            "(a B200 bug report on position ids above 2048)",
            inv_freq_storage="tf32", position_dtype="tf32",
        ),
        Recipe(
            "hf-autocast",
            f"{_HF} before PR 29285: the inv_freq @ position_ids matmul ran under bf16/fp16 autocast "
            "(positions and inv_freq cast to the autocast dtype, product rounded to it); cos/sin of "
            "that angle; rotation in x's dtype",
            inv_freq_storage="act", position_dtype="act", angle_dtype="act", trig_dtype="act",
        ),
        Recipe(
            "gpt-neox",
            "gpt-neox megatron/model/positional_embeddings.py RotaryEmbedding before PR 1041 (Sept 2023, "
            "'Pre-compute RoPE embeddings in fp32'): inv_freq buffer cast with the model (fp16/bf16), "
            "t = arange(seq).type_as(inv_freq), einsum in that dtype; bf16: emb.float().cos() then .bfloat16(); fp16: cos "
            "in fp16; rotation in x's dtype. Current gpt-neox (_prepare_cache) builds the cache in float32 "
            "and casts cos/sin to the precision: audit that as 'vllm'",
            inv_freq_storage="act", position_dtype="act", angle_dtype="act", trig_dtype="float32",
        ),
        Recipe(
            "vllm",
            "vllm (current) model_executor/layers/rotary_embedding base.py @04458da RotaryEmbedding: inv_freq "
            "1/b**(arange/d) float32, t float32, einsum, cos/sin float32 (llama3_rope.py @045d757 scales "
            "inv_freq in float32; yarn_scaling_rope.py @0cd5784 multiplies cos/sin by mscale in float32), the "
            "cache cast to the query's dtype (cache.to(dtype), forward_cuda / _match_cos_sin_cache_dtype); "
            "csrc/libtorch_stable/pos_encoding_kernels.cu @1051220 apply_token_rotary_embedding: cos_f, sin_f, "
            "x_f, y_f upcast to float, x_f * cos_f - y_f * sin_f in float32 (nvcc contracts one product into "
            "an FMA: fma='any'), static_cast<scalar_t> once",
            rotation_dtype="float32", fma="any",
        ),
        Recipe(
            "vllm-legacy",
            "vllm's earlier kernel (csrc/pos_encoding_kernels.cu before the float upcast): the cache as in "
            "'vllm' (cast to the model dtype), rotated in the model dtype (scalar_t x*cos - y*sin: every "
            "product and difference rounded to bf16 / fp16)",
        ),
        Recipe(
            "vllm-fp32",
            "vllm's kernel (csrc/libtorch_stable/pos_encoding_kernels.cu @1051220) with a float32 "
            "cos_sin_cache (the kernel reads the cache in whatever dtype it has, cache_t; a cache left in "
            "float32 -- RotaryEmbedding built with dtype=torch.float32 -- is read as float32): x and y "
            "upcast to float, x_f*cos_f - y_f*sin_f in float32 (FMA as nvcc picks), stored once in scalar_t; "
            "the cache built as in 'vllm'",
            table_dtype="float32", rotation_dtype="float32", fma="any",
        ),
        Recipe(
            "sglang",
            "sglang srt/layers/rotary_embedding.py RotaryEmbedding (vLLM's cache: inv_freq, t, cos/sin in "
            "float32) with forward_cuda calling sgl_kernel apply_rope_with_cos_sin_cache_inplace (FlashInfer's "
            "kernel: the float32 cos_sin_cache, q and k upcast to float32, rotated, stored in q's dtype)",
            table_dtype="float32", rotation_dtype="float32", fma="any",
        ),
        Recipe(
            "flashinfer",
            "flashinfer include/flashinfer/pos_enc.cuh, the on-the-fly path (apply_rope_pos_ids): freq = "
            "__powf(rope_rcp_theta, 2i/rotary_dim) in float32 (emulated as b**(-2i/d) rounded to float32: "
            "the reciprocal theta's own rounding is not), embed = float(pos) * freq, __sincosf in float32 "
            "(emulated with IEEE float32 sin/cos: the fast intrinsic's error is not), rotation in float32, "
            "stored in x's dtype",
            inv_freq="pow", table_dtype="float32", rotation_dtype="float32", fma="any",
        ),
        Recipe(
            "tensorrt-llm",
            "tensorrt_llm layers/functional.py RopeEmbeddingUtils.create_sinusoidal_positions: inv_freq = "
            "1/(theta ** (np.arange(0, dim, 2)/dim)) in float64 NumPy, .astype(float32); positions "
            "np.arange(num_pos, dtype=float32), einsum in float32, cos/sin float32 table; the fused "
            "attention kernel rotates in float32 and writes x's dtype",
            inv_freq_dtype="float64", inv_freq_storage="float32", table_dtype="float32", rotation_dtype="float32",
            fma="any",
        ),
        Recipe(
            "maxtext",
            "MaxText layers/embeddings.py RotaryEmbedding: fraction = 2*arange(half)/dims, timescale = "
            "min_timescale * (max_timescale/min_timescale) ** fraction in float32 (emulated as the float64 "
            "power rounded once to float32: jnp's float32 pow may differ by an ulp), sinusoid_inp = "
            "position / timescale (a division, float32), sin/cos float32, rotation in float32, cast to "
            "the activation dtype; plain ladders only",
            inv_freq="divide", table_dtype="float32", rotation_dtype="float32", fma="any",
        ),
        Recipe(
            "keras-hub",
            "keras_hub src/layers/modeling/rotary_embedding.py RotaryEmbedding: inverse_freq = 1.0 / "
            "(max_wavelength ** (arange(0, d, 2, float32) / d)) in float32 (a reciprocal, not MaxText's "
            "division by timescales), positions float32 (divided by scaling_factor), einsum in float32, "
            "cos/sin float32 cast to the layer's compute dtype, x*cos + rotate_half(x)*sin in that dtype "
            "(split halves); a linear factor is emulated on inv_freq (KerasHub rounds positions / factor)",
            fma="any",
        ),
        Recipe(
            "torchtune",
            "torchtune modules/position_embeddings.py RotaryPositionalEmbeddings (and Llama3ScaledRoPE): "
            "theta, seq_idx and cache float32; x.float() rotated in float32 (interleaved pairs), "
            "x_out.type_as(x)",
            layout="interleaved", table_dtype="float32", rotation_dtype="float32",
        ),
        Recipe(
            "flash-attn",
            "flash_attn layers/rotary.py RotaryEmbedding: inv_freq and t float32 ('we want fp32 here'), "
            "cos/sin float32 then .to(x dtype) in the cache; the Triton kernel loads x, cos, sin as "
            "float32 and stores once in x's dtype",
            rotation_dtype="float32", fma="any",
        ),
        Recipe(
            "liger",
            "liger_kernel ops/rope.py (Triton): takes HF's cos/sin (already in x's dtype) and rotates "
            "in the cos/sin dtype",
            rotation_dtype="table", fma="any",
        ),
        Recipe(
            "llama.cpp",
            "ggml ggml-cpu ops.cpp @1f08e2d ggml_compute_forward_rope: theta_scale = powf(base, -2.0f/n_dims), "
            "theta = (float)p, theta *= theta_scale per pair (float32 running product), theta/freq_factors "
            "(llama3: convert_hf_to_gguf.py writes the factors in float32); rope_yarn: theta_interp = "
            "freq_scale * theta_extrap, with YaRN's ramp theta = theta_interp*(1-ramp_mix) + "
            "theta_extrap*ramp_mix and mscale *= 1 + 0.1f*logf(1/freq_scale), cosf(theta)*mscale; "
            "rotate_pairs: x0*cos_theta - x1*sin_theta in float32 (an -O3 build may contract one product "
            "into an FMA: fma='any'), stored in dst's type",
            layout="interleaved", inv_freq="running", position_dtype="float32",
            table_dtype="float32", rotation_dtype="float32", fma="any",
        ),
        Recipe(
            "mlx",
            "mlx backend/metal/kernels/rope.metal (mx.fast.rope): inv_freq = exp2(-(i/h) * log2(base)) "
            "in float32, theta = float(pos) * inv_freq, cos/sin and rotation in float32, output in "
            "x's dtype (emulated with IEEE float32 cos/sin; Metal's fast:: variants are not)",
            inv_freq="exp2", table_dtype="float32", rotation_dtype="float32", fma="any",
        ),
        Recipe(
            "rotary-embedding-torch",
            "rotary_embedding_torch RotaryEmbedding.rotate_queries_or_keys(x) (lucidrains): positions "
            "get_seq_pos(n, dtype=x.dtype) = arange(n, dtype=x.dtype), held in x's dtype (bf16: 257 -> 256; "
            "fp16: >= 65520 -> inf), then forward(): t.type(freqs.dtype) and einsum with freqs "
            "1/theta**(arange/d) in float32, interleaved; apply_rotary_emb promotes x*freqs.cos() to "
            "float32 and casts the result back once. forward(t) given float32 positions is "
            "position_dtype='float32'. Assumes the module kept in float32 (mixed precision): freqs is an "
            "nn.Parameter even with learned_freq=False, so model.to(bfloat16) casts it too (then "
            "replace(inv_freq_storage='act', angle_dtype='act', trig_dtype='act', table_dtype='act', "
            "rotation_dtype='act'))",
            layout="interleaved", position_dtype="act", table_dtype="float32", rotation_dtype="float32",
        ),
        Recipe(
            "t2t",
            "tensor2tensor layers/common_attention.py get_timing_signal_1d: position float32, "
            "inv_timescales = exp(arange * -log_timescale_increment) float32, concat([sin, cos])",
            kind="sinusoidal", schedule="tensor2tensor", inv_freq="exp", table_dtype="act",
        ),
        Recipe(
            "fairseq",
            "fairseq modules/sinusoidal_positional_embedding.py get_embedding: exp(arange * -emb) "
            "float32, arange(num_embeddings).float() * emb, cat([sin, cos]) float32, then cast to the "
            "model dtype",
            kind="sinusoidal", schedule="tensor2tensor", inv_freq="exp", table_dtype="act",
        ),
        Recipe(
            "distilbert",
            "transformers models/distilbert modeling_distilbert.py create_sinusoidal_embeddings: "
            "pos / np.power(10000, 2*(j//2)/dim) in float64 NumPy, sin/cos float64, FloatTensor "
            "(float32) interleaved",
            kind="sinusoidal", layout="interleaved", inv_freq="divide", inv_freq_dtype="float64",
            position_dtype="float64", angle_dtype="float64", trig_dtype="float64", table_dtype="float32",
        ),
        Recipe(
            "pe_symbolic",
            "pe_symbolic.numeric.rope_cos_sin / apply_rope: 40-digit frequencies, double-double angles, "
            "cos/sin within 7u in float64, rounded once to the dtype; bf16/fp16 x rotated in float32 "
            "and rounded once",
            inv_freq="exact", inv_freq_dtype="float64", position_dtype="int64", angle_dtype="float64",
            trig_dtype="float64", table_dtype="float32", rotation_dtype="float32",
        ),
        *(Recipe(
            f"pe_symbolic-{fw}",
            f"pe_symbolic.{fw}.rope_cos_sin / apply_rope, run for real (pe_symbolic.audit.backends; "
            "emulated where the framework is absent): 40-digit frequencies rounded once to float64, "
            "the angle one float64 product of float64 positions, cos/sin float64, rounded once to "
            "float32 tables; bf16/fp16 x rotated in float32 and rounded once"
            + ("" if fw == "torch" else " (with x64; without it, JAX's default, the tables are the NumPy "
               "core's, through jax.pure_callback: the angle column reads 0, and the bound, its dominant "
               "term included, is the x64 route's, an upper bound for both)"),
            inv_freq="reciprocal", inv_freq_dtype="float64", position_dtype="int64", angle_dtype="float64",
            trig_dtype="float64", table_dtype="float32", rotation_dtype="float32",
        ) for fw in ("torch", "jax")),
    )
}


def preset_names() -> tuple[str, ...]:
    """The preset names, in the order ``pe-audit --list`` prints them.

    >>> preset_names()[:3]
    ('hf', 'hf-tf32', 'hf-autocast')
    """
    return tuple(PRESETS)


def get_recipe(recipe: str | Recipe | Mapping[str, Any]) -> Recipe:
    """A preset by name, a :class:`Recipe` as it is, or a recipe from a mapping of fields.

    >>> get_recipe("vllm").name
    'vllm'
    >>> get_recipe("hugginface")
    Traceback (most recent call last):
    ValueError: recipe='hugginface' is not allowed; use one of 'hf', 'hf-tf32', 'hf-autocast', 'gpt-neox', 'vllm', 'vllm-legacy', 'vllm-fp32', 'sglang', 'flashinfer', 'tensorrt-llm', 'maxtext', 'keras-hub', 'torchtune', 'flash-attn', 'liger', 'llama.cpp', 'mlx', 'rotary-embedding-torch', 't2t', 'fairseq', 'distilbert', 'pe_symbolic', 'pe_symbolic-torch', 'pe_symbolic-jax'
    """
    if isinstance(recipe, Recipe):
        return recipe
    if isinstance(recipe, Mapping):
        return Recipe.from_dict(recipe)
    return PRESETS[check_choice("recipe", recipe, tuple(PRESETS))]
