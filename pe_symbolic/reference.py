r"""The mpmath oracle: the papers' formulas evaluated at ``dps`` significant digits.

Written directly from the papers, sharing no code with the symbolic layer (an oracle that
shares code with what it checks checks nothing): it imports neither SymPy nor
:mod:`pe_symbolic`'s symbolic modules. The one thing it shares with the numeric parser is
``pe_symbolic._hfconfig``, pure data about Hugging Face's config classes (a sparse
``config.json`` as the model's class holds it: its defaults, names and per-layer overrides),
which imports nothing of the package; no formula comes from there.

* Vaswani et al. (2017), section 3.5: :math:`PE_{(t,2i)} = \sin(t / b^{2i/d})`,
  :math:`PE_{(t,2i+1)} = \cos(t / b^{2i/d})`.
* tensor2tensor ``get_timing_signal_1d`` (min_timescale 1, max_timescale ``b``):
  timescale :math:`b^{i/\max(d/2-1,\,1)}`, signal ``concat(sin, cos)``.
* Su et al. (2021), RoFormer eq. (34): pair ``i`` of ``x`` rotated by :math:`m\theta_i`,
  :math:`\theta_i = b^{-2i/d}`.
* The RoPE family of Hugging Face transformers' ``modeling_rope_utils.py`` (``linear``,
  ``dynamic``, ``yarn``, ``longrope``, ``llama3``, ``proportional``), vLLM's ``ntk``
  (``NTKScalingRotaryEmbedding``: fixed NTK :math:`(b s)^{-2i/d} / s^{2/d}`, mixed NTK with
  ``mixed_b``; HF has no ``ntk`` type), and the multimodal position layouts of Qwen2-VL / Qwen3-VL
  (:func:`rope_frequencies`, :func:`mrope_axes`, and ``apply_rope(..., inv_freq=...,
  mrope_section=...)``), written again here from those published conventions.

Positions, ``x`` and ``base`` are taken as the exact binary numbers they are (a float64
``0.1`` is ``0.1000000000000000055...``); every evaluation runs in a local
``mpmath.workdps(dps)`` context and the global mpmath precision is left alone.

Results are NumPy object arrays of :class:`mpmath.mpf` with the same shapes as
:mod:`pe_symbolic.numeric` returns, so ``numeric - reference`` works after
``.astype(float)``-free comparisons (see :func:`to_float`).
"""

from __future__ import annotations

import math
import numbers

import mpmath
import numpy as np

from ._hfconfig import normalize

__all__ = ["apply_rope", "bailing_axes", "chatglm_rope", "fope_cos_sin", "frequency", "linear_multi_offsets",
           "llamacpp_rope_yarn", "mrope_axes", "openpangu_axes", "rope_frequencies", "sinusoidal_table", "to_float"]


# ----------------------------------------------------------------------------------------
# Argument checks. Written here again on purpose: the oracle imports nothing of the package
# but the pure-data config normalizer (an import-linter contract keeps it so), not even its
# argument checks.

_LAYOUTS = ("interleaved", "split")
_ORDERS = ("sin_cos", "cos_sin")
_SCHEDULES = ("vaswani", "tensor2tensor")


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    if isinstance(value, str) and value in allowed:
        return value
    raise ValueError(f"{name}={value!r} is not allowed; use one of {', '.join(map(repr, allowed))}")


def check_layout(layout: object) -> str:
    return _choice("layout", layout, _LAYOUTS)


def check_order(order: object) -> str:
    return _choice("order", order, _ORDERS)


def check_schedule(schedule: object) -> str:
    return _choice("schedule", schedule, _SCHEDULES)


def check_d(d: object, *, name: str = "d") -> int:
    if isinstance(d, bool) or not isinstance(d, numbers.Integral) or int(d) <= 0 or int(d) % 2:
        raise ValueError(f"{name}={d!r} must be a positive even integer")
    return int(d)


def check_base(base: object) -> object:
    if isinstance(base, bool) or not isinstance(base, numbers.Real) or not 1 < float(base) < math.inf:
        raise ValueError(f"base={base!r} must be a finite real number greater than 1")
    return base


def as_positions(positions: object, *, name: str = "positions") -> np.ndarray:
    arr = np.asarray(positions)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be real numbers (integer or floating dtype); got dtype {arr.dtype}")
    out = arr.astype(np.float64)
    if not (np.isfinite(out) & (np.abs(out) < 2.0**53)).all():
        raise ValueError(f"{name} must be finite real numbers with |position| < 2**53")
    return out


def _mpf_base(base: object) -> mpmath.mpf:
    check_base(base)
    try:
        return mpmath.mpf(float(base)) if not isinstance(base, int) else mpmath.mpf(base)
    except TypeError as exc:
        raise ValueError(f"base={base!r} must be a finite real number greater than 1") from exc


def frequency(i: int, d: int, *, base=10000, schedule: str = "vaswani", dps: int = 50) -> mpmath.mpf:
    r"""Angular frequency of pair ``i``: :math:`b^{-2i/d}` or :math:`b^{-i/\max(d/2-1,1)}`.

    >>> mpmath.nstr(frequency(1, 4, base=100), 40)
    '0.1'
    >>> float(frequency(2, 6, base=100, schedule="tensor2tensor"))
    0.01
    """
    d = check_d(d)
    schedule = check_schedule(schedule)
    with mpmath.workdps(dps + 10):
        b = _mpf_base(base)
        if schedule == "vaswani":
            w = mpmath.power(b, -mpmath.mpf(2 * i) / d)
        else:
            w = mpmath.power(b, -mpmath.mpf(i) / max(d // 2 - 1, 1))
    with mpmath.workdps(dps):
        return +w


def _slots(i: int, d: int, layout: str) -> tuple[int, int]:
    return (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)


def sinusoidal_table(
    positions,
    d: int,
    *,
    base=10000,
    layout: str = "interleaved",
    order: str = "sin_cos",
    schedule: str = "vaswani",
    dps: int = 50,
) -> np.ndarray:
    r"""The sinusoidal table at ``dps`` digits: object array of ``mpf``, ``positions.shape + (d,)``.

    Parameters
    ----------
    positions : array_like of real
        Finite, ``|t| < 2**53``; each float64 value is taken exactly.
    d : int
        Positive even dimension.
    base : int or float, default 10000
        Taken exactly (an int stays an int).
    layout, order, schedule : str
        As in :func:`pe_symbolic.numeric.sinusoidal_table`.
    dps : int, default 50
        Significant digits of the result (evaluated with 10 guard digits).

    Returns
    -------
    numpy.ndarray of mpmath.mpf

    Notes
    -----
    Entry ``(t, a_i)`` is :math:`\sin(t\,b^{-2i/d})` (``sin_cos``, Vaswani schedule), computed
    as written; no angle addition, no argument reduction of our own.

    Examples
    --------
    >>> tab = sinusoidal_table([1], 2)
    >>> tab.shape, mpmath.nstr(tab[0, 0], 40)
    ((1, 2), '0.8414709848078965066525023216302989996226')
    """
    d = check_d(d)
    layout = check_layout(layout)
    order = check_order(order)
    schedule = check_schedule(schedule)
    t = as_positions(positions)
    out = np.empty(t.shape + (d,), dtype=object)
    flat = out.reshape(-1, d)
    with mpmath.workdps(dps + 10):
        ws = [frequency(i, d, base=base, schedule=schedule, dps=dps + 10) for i in range(d // 2)]
        for row, tv in enumerate(t.ravel()):
            tm = mpmath.mpf(float(tv))
            for i, w in enumerate(ws):
                s, c = mpmath.sin(tm * w), mpmath.cos(tm * w)
                a, b2 = _slots(i, d, layout)
                first, second = (s, c) if order == "sin_cos" else (c, s)
                flat[row, a] = first
                flat[row, b2] = second
    with mpmath.workdps(dps):
        for idx in range(flat.size):
            flat.flat[idx] = +flat.flat[idx]
    return out


def apply_rope(
    x,
    positions,
    *,
    base=10000,
    layout: str = "split",
    rotary_dim: int | None = None,
    inv_freq=None,
    mrope_section=None,
    mrope_interleaved: bool = False,
    attention_factor=1,
    dps: int = 50,
) -> np.ndarray:
    r"""RoPE at ``dps`` digits: object array of ``mpf`` with ``x``'s shape.

    Parameters
    ----------
    x : array_like of real
        Shape ``(..., seq, d)``; values taken exactly.
    positions : array_like of real
        Broadcast against ``x.shape[:-1]``.
    base : int or float, default 10000
    layout : {"split", "interleaved"}
    rotary_dim : int, optional
        Even, ``<= d`` (default ``d``, or ``2 * len(inv_freq)``).
    inv_freq : sequence of real or mpf, optional
        The frequencies :math:`\theta_i` (taken exactly) instead of :math:`b^{-2i/r}`.
    mrope_section : three ints, optional
        M-RoPE: ``positions`` has a leading axis of 3 (t, h, w) and pair ``i`` turns with
        the position of its axis (:func:`mrope_axes`).
    mrope_interleaved : bool, default False
        Qwen3-VL's interleaved axis assignment instead of Qwen2-VL's contiguous sections.
    attention_factor : real, default 1
        Multiplies the rotated channels (HF scales cos and sin by it).
    dps : int, default 50

    Returns
    -------
    numpy.ndarray of mpmath.mpf

    Notes
    -----
    Pair ``i`` (slots ``(i, i + r/2)`` for ``"split"``, ``(2i, 2i+1)`` for ``"interleaved"``,
    ``r = rotary_dim``) is rotated by :math:`m\theta_i`,
    :math:`\theta_i = b^{-2i/r}` (RoFormer eq. 34); channels from ``r`` on pass through.

    Examples
    --------
    >>> y = apply_rope(np.array([1.0, 0.0]), 1)
    >>> [float(v) for v in y]
    [0.5403023058681398, 0.8414709848078965]
    """
    xa = np.asarray(x)
    if xa.dtype.kind not in "iuf" or xa.ndim == 0:
        raise TypeError(f"x must be a real array with at least one dimension; got dtype {xa.dtype}")
    layout = check_layout(layout)
    d = xa.shape[-1]
    if inv_freq is not None and rotary_dim is None:
        rotary_dim = 2 * len(inv_freq)
    r = d if rotary_dim is None else check_d(rotary_dim, name="rotary_dim")
    if r > d or r % 2:
        raise ValueError(f"rotary_dim={rotary_dim!r} must be a positive even integer <= d={d}")
    if inv_freq is not None and len(inv_freq) != r // 2:
        raise ValueError(f"inv_freq has {len(inv_freq)} entries; rotary_dim={r} needs {r // 2}")
    tp = as_positions(positions)
    axes = None
    if mrope_section is not None:
        axes = mrope_axes(mrope_section, interleaved=mrope_interleaved)
        if len(axes) != r // 2:
            raise ValueError(f"mrope_section={list(mrope_section)!r} sums to {len(axes)}; rotary_dim/2 = {r // 2}")
        if tp.ndim == 0 or tp.shape[0] != 3:
            raise ValueError(f"M-RoPE positions need a leading axis of 3 (t, h, w); got shape {tp.shape}")
        per_axis = tp
    else:
        per_axis = tp[None]
    lead = xa.shape[:-1]
    if per_axis.ndim - 1 < len(lead):  # align the position shape with the trailing axes of x
        per_axis = per_axis.reshape((per_axis.shape[0],) + (1,) * (len(lead) - per_axis.ndim + 1) + per_axis.shape[1:])
    try:
        t = np.broadcast_to(per_axis, (per_axis.shape[0],) + lead)
    except ValueError:
        raise ValueError(
            f"positions of shape {tp.shape} do not broadcast against x.shape[:-1] = "
            f"{xa.shape[:-1]}"
        ) from None
    out = np.empty(xa.shape, dtype=object)
    xf = xa.reshape(-1, d)
    tf = t.reshape(t.shape[0], -1)
    of = out.reshape(-1, d)
    with mpmath.workdps(dps + 10):
        if inv_freq is None:
            thetas = [frequency(i, r, base=base, dps=dps + 10) for i in range(r // 2)]
        else:
            thetas = [v if isinstance(v, mpmath.mpf) else mpmath.mpf(float(v)) for v in inv_freq]
        af = attention_factor if isinstance(attention_factor, mpmath.mpf) else mpmath.mpf(float(attention_factor))
        for row in range(xf.shape[0]):
            for j in range(r, d):
                of[row, j] = mpmath.mpf(float(xf[row, j]))
            for i, th in enumerate(thetas):
                m = mpmath.mpf(float(tf[0 if axes is None else axes[i], row]))
                a, b2 = _slots(i, r, layout)
                xa_, xb_ = mpmath.mpf(float(xf[row, a])), mpmath.mpf(float(xf[row, b2]))
                c, s = af * mpmath.cos(m * th), af * mpmath.sin(m * th)
                of[row, a] = xa_ * c - xb_ * s
                of[row, b2] = xa_ * s + xb_ * c
    with mpmath.workdps(dps):
        for idx in range(of.size):
            of.flat[idx] = +of.flat[idx]
    return out


def mrope_axes(sections, *, interleaved: bool = False) -> tuple[int, ...]:
    """Position axis (0 = t, 1 = h, 2 = w) of each frequency pair of M-RoPE.

    Qwen2-VL (``interleaved=False``) splits the frequencies into contiguous chunks of
    ``sections[0]``, ``sections[1]``, ``sections[2]`` pairs and takes chunk ``c``'s cos/sin
    from axis ``c``. Qwen3-VL (``interleaved=True``) starts from the t axis everywhere and
    overwrites pairs ``1, 4, 7, ...`` (below ``3 * sections[1]``) with h and pairs
    ``2, 5, 8, ...`` (below ``3 * sections[2]``) with w.

    >>> mrope_axes([1, 2, 1])
    (0, 1, 1, 2)
    >>> mrope_axes([2, 1, 1], interleaved=True)
    (0, 1, 2, 0)
    """
    secs = [int(v) for v in sections]
    if len(secs) != 3 or min(secs) < 0:
        raise ValueError(f"sections={list(sections)!r} must be three non-negative integers")
    total = sum(secs)
    if not interleaved:
        out: list[int] = []
        for axis, count in enumerate(secs):
            out.extend([axis] * count)
        return tuple(out)
    out = [0] * total
    for axis, offset in ((1, 1), (2, 2)):
        for j in range(offset, min(3 * secs[axis], total), 3):
            out[j] = axis
    return tuple(out)


# ----------------------------------------------------------------------------------------
# The RoPE family from a model config, HF transformers' conventions (written again here).

_TYPES = ("default", "linear", "ntk", "dynamic", "yarn", "longrope", "llama3", "proportional", "axial",
          "telechat3-yarn")
# Model types whose HF config keeps head_dim beside qk_rope_head_dim and rotates
# int(head_dim * partial_rotary_factor) (Mistral4Config, DeepseekV4Config, LongcatFlashConfig)
_KEEP_HEAD_DIM = ("mistral4", "deepseek_v4", "longcat_flash")
_OLD_NAMES = {"su": "longrope", "mrope": "default", "deepseek_yarn": "yarn", "deepseek_llama_scaling": "yarn",
              "xdrope": "dynamic"}


def _cfg_rope(config, layer_type):
    """(config, the rope dict for this layer) following HF's standardisation.

    The config is first read as the model's HF config class holds it
    (:func:`pe_symbolic._hfconfig.normalize`: the text part, the class's defaults for the keys a
    sparse config leaves out, attribute-map names, per-layer overrides); that step is data about
    HF's classes, shared with the numeric parser. Everything below it (which rope dict, which
    head dim, the formulas) is written here again."""
    cfg = normalize(config).for_layer_type(layer_type)
    rope = cfg.get("rope_parameters") or cfg.get("rope_scaling") or {}
    if cfg.get("model_type") == "deepseek_v4":
        rope = _deepseek_v4_rope(cfg, rope)
        # HF's DeepseekV4Attention: sliding layers use "main", compressed layers "compress"
        layer_type = {"sliding_attention": "main", "compressed_sparse_attention": "compress",
                      "heavily_compressed_attention": "compress"}.get(layer_type, layer_type)
    if "rope_local_base_freq" in cfg and not (rope and all(isinstance(v, dict) for v in rope.values())):
        full = dict(rope)
        full.setdefault("rope_theta", cfg.get("rope_theta", 10000.0))
        rope = {"full_attention": full,
                "sliding_attention": {"rope_type": "default", "rope_theta": cfg["rope_local_base_freq"]}}
    # a dict of dicts is per layer type; a null entry (HF 5.x) is a layer type without RoPE
    if rope and all(isinstance(v, dict) or v is None for v in rope.values()) and any(
            isinstance(v, dict) for v in rope.values()):
        if layer_type not in rope or rope[layer_type] is None:
            raise ValueError(f"layer_type={layer_type!r} must be one of {sorted(rope)}")
        rope = rope[layer_type]
    elif layer_type is not None:
        raise ValueError(f"layer_type={layer_type!r}: this config has no per-layer rope parameters")
    return cfg, rope


def _deepseek_v4_rope(cfg, rope):
    """DeepseekV4Config.__post_init__: the flat rope dict becomes ``compress`` (at
    ``compress_rope_theta``, YaRN's cos/sin factor pinned to 1), and ``main`` is plain RoPE at
    ``rope_theta``; both rotate ``partial_rotary_factor`` (or ``qk_rope_head_dim / head_dim``)."""
    if isinstance(rope.get("main"), dict) and isinstance(rope.get("compress"), dict):
        return {"main": rope["main"], "compress": rope["compress"]}
    if cfg.get("partial_rotary_factor") is not None:
        frac = cfg["partial_rotary_factor"]
    elif cfg.get("qk_rope_head_dim") is not None:
        frac = cfg["qk_rope_head_dim"] / cfg["head_dim"]
    else:
        frac = 64 / 512
    compress = dict(rope)
    compress["rope_theta"] = cfg.get("compress_rope_theta", 160000.0)
    compress["partial_rotary_factor"] = frac
    compress["rope_type"] = compress.pop("type", compress.get("rope_type", "default"))
    if compress["rope_type"] == "yarn":
        compress.setdefault("attention_factor", 1.0)
    return {"main": {"rope_type": "default", "rope_theta": cfg.get("rope_theta", 10000.0),
                     "partial_rotary_factor": frac},
            "compress": compress}


def rope_frequencies(config, *, seq_len=None, layer_type=None, yarn_length: str = "original",
                     dps: int = 50, layer=None):
    r"""Inverse frequencies and attention factor of a model config, at ``dps`` digits.

    Follows the published conventions of Hugging Face transformers' ``ROPE_INIT_FUNCTIONS``
    (plus vLLM's ``"ntk"``, fixed or mixed), evaluated in exact arithmetic with mpmath:
    the config's numbers are taken as the binary64 values they parse to.

    Parameters
    ----------
    config : dict
        A model's ``config.json`` (``rope_parameters`` or ``rope_scaling``; ``type`` or
        ``rope_type``; ``head_dim`` / ``qk_rope_head_dim`` or ``hidden_size //
        num_attention_heads``, and ``global_head_dim`` for the ``"full_attention"`` layers
        of a Gemma 4-style config; ``partial_rotary_factor`` or ``rotary_pct``;
        ``rope_theta`` or ``rotary_emb_base``).
    seq_len : int, optional
        Current length (``dynamic``, ``longrope``).
    layer_type : str, optional
        Entry of a per-layer-type config.
    yarn_length : {"original", "max"}
        The length YaRN's correction range uses.
    dps : int, default 50
    layer : int, optional
        Layer index into a ``layer_rope_theta`` list (Granite SWA: that layer's base; 0 is
        NoPE, refused; MuseSpark / MuseGlimmer keep the global base); for Molmo2, a layer
        outside ``rope_scaling_layers`` gets the unscaled ladder over ``head_dim``.

    Returns
    -------
    (numpy.ndarray of mpmath.mpf, mpmath.mpf)

    Examples
    --------
    >>> inv, af = rope_frequencies({"head_dim": 8, "rope_theta": 10000,
    ...                             "rope_scaling": {"rope_type": "linear", "factor": 4}})
    >>> [mpmath.nstr(v, 10) for v in inv], af
    (['0.25', '0.025', '0.0025', '0.00025'], mpf('1.0'))
    """
    cfg, rope = _cfg_rope(config, layer_type)
    kind = raw_kind = rope.get("rope_type", rope.get("type", "default")) or "default"
    kind = _OLD_NAMES.get(kind, kind)
    vllm_deepseek = raw_kind in ("deepseek_yarn", "deepseek_llama_scaling")  # vLLM DeepseekScalingRotaryEmbedding
    if kind == "default" and "mrope_section" not in rope and (
            cfg.get("model_type") in ("pixtral", "dinov3_vit", "eomt_dinov3", "sapiens2")
            or str(cfg.get("model_type", "")).endswith(
                ("_vision", "_vision_encoder", "_vision_model", "sam2_video", "sam3_tracker_video", "edgetam_video"))):
        kind = "axial"  # HF 5.23: these vision configs set default_rope_type = "axial"
    if kind not in _TYPES:
        raise ValueError(f"rope_type={kind!r} is not one of {_TYPES}")
    with mpmath.workdps(dps + 20):
        mpf = mpmath.mpf

        def num(v):
            return mpf(v) if isinstance(v, int) else mpf(float(v))

        base = num(rope.get("rope_theta", cfg.get("rope_theta", cfg.get("rotary_emb_base", 10000.0))))
        if layer is not None and cfg.get("rope_scaling_layers") is not None and str(
                cfg.get("model_type")).startswith("molmo2"):
            if layer not in cfg["rope_scaling_layers"]:
                # Molmo2RotaryEmbedding(scaled=False): compute_default_rope_parameters over head_dim
                kind, rope = "default", {"rope_theta": base}
        elif layer is not None:
            per_layer = cfg["layer_rope_theta"][layer]
            if not per_layer:
                raise ValueError(f"layer {layer} is NoPE (layer_rope_theta 0)")
            if not str(cfg.get("model_type", "")).startswith(("muse_spark", "muse_glimmer")):
                base = num(per_layer)  # GraniteSWAModel: rope_parameters with rope_theta = layer_rope_theta[i]
        frac = float(rope.get("partial_rotary_factor", cfg.get("partial_rotary_factor", cfg.get("rotary_pct", 1.0))))
        if layer_type == "full_attention" and cfg.get("global_head_dim") is not None:
            # Gemma 4 (HF Gemma4TextConfig): full-attention layers are wider; their head dim
            # overrides head_dim for every rope type of that layer type
            head = int(cfg["global_head_dim"])
        elif cfg.get("model_type") == "deepseek_v4":
            head = int(cfg["head_dim"])  # DeepseekV4Config: head_dim, of which the last int(head * frac) rotate
        elif (cfg.get("qk_rope_head_dim") is not None and cfg.get("head_dim") is not None
              and getattr(cfg, "head_dim_from", None) not in (None, "qk_rope_head_dim")):
            # the class keeps head_dim beside qk_rope_head_dim (HF 5.24 Dots3 / Dots3Note:
            # compute_default_rope_parameters reads config.head_dim), as the normalizer's table says
            head = int(cfg["head_dim"])
        elif cfg.get("qk_rope_head_dim") is not None and not (
                cfg.get("head_dim") is not None and cfg.get("model_type") in _KEEP_HEAD_DIM
                and any(x is not None for x in (rope.get("partial_rotary_factor"), cfg.get("partial_rotary_factor")))):
            head = int(cfg["qk_rope_head_dim"])  # DeepseekV3Config & co.: self.head_dim = self.qk_rope_head_dim
        elif cfg.get("head_dim") is not None:
            head = int(cfg["head_dim"])
        elif cfg.get("model_type") == "jetmoe" and cfg.get("kv_channels") is not None:
            head = int(cfg["kv_channels"])  # JetMoeConfig.attribute_map: head_dim -> kv_channels
        elif cfg.get("model_type") == "qwen2_vl_vision" and cfg.get("embed_dim") is not None:
            # Qwen2VLVisionRotaryEmbedding: embed_dim // num_heads (its hidden_size is the merger's output)
            head = int(cfg["embed_dim"]) // int(cfg["num_attention_heads"])
        else:
            head = int(cfg["hidden_size"]) // int(cfg["num_attention_heads"])
        # GPT-J's rotary_dim; else HF's int(head_dim * partial_rotary_factor), whose
        # torch.arange(0, dim, 2) has ceil(dim/2) entries when dim is odd
        # (MiniMax-M3-VL's text config carries rotary_dim = 64, which its rotary embedding never
        # reads: HF 5.24 MiniMaxM3VLRotaryEmbedding.compute_default_rope_parameters rotates
        # int(head_dim * partial_rotary_factor), and its apply takes rotary_dim = cos.shape[-1])
        gptj_dim = None if str(cfg.get("model_type")) in ("minimax_m3_vl", "minimax_m3_vl_text") else cfg.get("rotary_dim")
        dim = int(gptj_dim) if gptj_dim is not None else int(head * frac)
        pairs = (dim + 1) // 2
        max_pos = cfg.get("max_position_embeddings")
        orig = next((v for v in (cfg.get("original_max_position_embeddings"),
                                 rope.get("original_max_position_embeddings"), max_pos) if v is not None), None)
        one = mpf(1)
        attention = one

        def ladder(b, width, count):
            return [one / b ** (mpf(2 * j) / width) for j in range(count)]

        if kind == "default":
            inv = ladder(base, dim, pairs)
        elif kind == "axial" and cfg.get("model_type") == "pixtral":
            # PixtralVisionRotaryEmbedding: cat(inv_freq[0::2], inv_freq[1::2]) over head_dim
            full = ladder(base, head, head // 2)
            inv = full[0::2] + full[1::2]
        elif kind == "axial" and cfg.get("model_type") == "minimax_m3_vl_vision":
            # MiniMaxM3VLVisionRotaryEmbedding: spatial_dim = 2 * ((dim // 3) // 2), one ladder for t, h, w
            spatial = 2 * ((head // 3) // 2)
            inv = ladder(base, spatial, spatial // 2)
        elif kind == "axial":
            # Qwen2-VL / GLM-4V / Gemma 4 vision: base ** -(arange(0, spatial, 2) / spatial), spatial = head_dim // 2
            # (DINOv3's 1 / base ** arange(0, 1, 4 / head_dim) is the same ladder)
            spatial = head // 2
            inv = ladder(base, spatial, (spatial + 1) // 2)
        elif kind == "dynamic" and rope.get("alpha"):
            # Hunyuan DynamicNTKAlphaRotary: base * alpha ** (dim / (dim - 2)), dim = head_dim
            alpha = num(rope["alpha"])
            inv = ladder(base * alpha ** (mpf(head) / (head - 2)), head, head // 2)
        elif kind == "linear":
            inv = [v / num(rope["factor"]) for v in ladder(base, dim, pairs)]
        elif kind == "ntk" and rope.get("mixed_b") is not None:
            # vLLM NTKScalingRotaryEmbedding (kexue.fm/archives/9706): the base ladder over the
            # rotary dim divided by lambda_m = exp(a m^b), m = 1 .. dim/2, a = ln(factor) / (dim/2)^b
            factor, expo = num(rope["factor"]), num(rope["mixed_b"])
            a = mpmath.log(factor) / (mpf(dim) / 2) ** expo
            inv = [v / mpmath.exp(a * mpf(j + 1) ** expo) for j, v in enumerate(ladder(base, dim, dim // 2))]
        elif kind == "ntk":
            # vLLM NTKScalingRotaryEmbedding without mixed_b (fixed NTK; vllm/model_executor/layers/
            # rotary_embedding/ntk_scaling_rope.py): base * factor, then every inv_freq divided by
            # factor ** (2 / rotary_dim), i.e. (b s)^(-2i/d) / s^(2/d). HF has no "ntk" type.
            factor = num(rope["factor"])
            inv = [v / factor ** (mpf(2) / dim) for v in ladder(base * factor, dim, dim // 2)]
        elif kind == "dynamic":
            factor = num(rope["factor"])
            n = max(seq_len or 0, int(max_pos))
            grown = base * (factor * n / int(max_pos) - (factor - 1)) ** (mpf(dim) / (dim - 2))
            inv = ladder(grown, dim, pairs)  # HF: torch.arange(0, dim, 2), ceil(dim / 2) entries
        elif kind in ("yarn", "telechat3-yarn"):
            factor = num(rope["factor"])
            length = int(orig) if yarn_length == "original" else int(max_pos)

            def correction(rotations):
                return dim * mpmath.log(length / (rotations * 2 * mpmath.pi)) / (2 * mpmath.log(base))

            lo = correction(num(rope.get("beta_fast") or 32))
            hi = correction(num(rope.get("beta_slow") or 1))
            if vllm_deepseek or rope.get("truncate", True):
                lo, hi = mpmath.floor(lo), mpmath.ceil(hi)
            lo, hi = max(lo, mpf(0)), min(hi, mpf(dim - 1))
            if lo == hi:
                hi = hi + mpf("0.001")
            # vLLM's YaRN (telechat3-yarn): inv_freq_mask = (1 - ramp) * extrapolation_factor
            keep_scale = num(rope.get("extrapolation_factor", 1)) if kind == "telechat3-yarn" or vllm_deepseek else one
            inv = []
            for j, extrap in enumerate(ladder(base, dim, pairs)):
                ramp = min(max((j - lo) / (hi - lo), mpf(0)), one)  # 1: interpolate
                keep = (1 - ramp) * keep_scale
                inv.append(extrap / factor * (1 - keep) + extrap * keep)

            def get_mscale(scale, ms=one):
                return one if scale <= 1 else mpf("0.1") * ms * mpmath.log(scale) + 1

            if kind == "telechat3-yarn":
                # vLLM TeleChat3RoPEScaledRotaryEmbedding: get_mscale(s) = 0.07 ln s + 1, times attn_factor
                slope = mpf(7) / 100
                attention = (one if factor <= 1 else slope * mpmath.log(factor) + 1) * num(rope.get("attn_factor", 1))
            elif vllm_deepseek:
                # vLLM: yarn_get_mscale(s, mscale) / yarn_get_mscale(s, mscale_all_dim) * attn_factor, defaults 1, 0, 1
                attention = (get_mscale(factor, num(rope.get("mscale", 1))) /
                             get_mscale(factor, num(rope.get("mscale_all_dim", 0))) * num(rope.get("attn_factor", 1)))
            elif rope.get("attention_factor") is not None:
                attention = num(rope["attention_factor"])
            elif rope.get("mscale") and rope.get("mscale_all_dim"):
                attention = get_mscale(factor, num(rope["mscale"])) / get_mscale(factor, num(rope["mscale_all_dim"]))
            else:
                attention = get_mscale(factor)
        elif kind == "longrope":
            use_long = seq_len is not None and seq_len > int(orig)
            ext = rope["long_factor"] if use_long else rope["short_factor"]
            inv = [v / num(e) for v, e in zip(ladder(base, dim, pairs), ext)]
            factor = num(rope["factor"]) if rope.get("factor") is not None else mpf(int(max_pos)) / int(orig)
            if rope.get("short_mscale") is not None:
                # PhimoeRotaryEmbedding.forward: cos/sin times long_mscale if seq_len > original, else short
                attention = num(rope["long_mscale"] if use_long else rope["short_mscale"])
            elif rope.get("attention_factor") is not None:
                attention = num(rope["attention_factor"])
            elif factor > 1:
                attention = mpmath.sqrt(1 + mpmath.log(factor) / mpmath.log(int(orig)))
        elif kind == "llama3":
            factor = num(rope["factor"])
            low, high = num(rope["low_freq_factor"]), num(rope["high_freq_factor"])
            old = int(orig)
            inv = []
            for v in ladder(base, dim, pairs):
                wavelen = 2 * mpmath.pi / v
                if wavelen < old / high:
                    inv.append(v)
                elif wavelen > old / low:
                    inv.append(v / factor)
                elif high == low:
                    raise ValueError("llama3 with low_freq_factor == high_freq_factor: smooth factor 0/0")
                else:
                    smooth = (old / wavelen - low) / (high - low)
                    inv.append((1 - smooth) * v / factor + smooth * v)
        else:  # proportional
            factor = num(rope.get("factor", 1.0))
            angles = int(frac * head // 2)
            inv = [(one / base ** (mpf(2 * j) / head)) / factor for j in range(angles)]
            inv += [mpf(0)] * (head // 2 - angles)
    with mpmath.workdps(dps):
        out = np.empty(len(inv), dtype=object)
        for j, v in enumerate(inv):
            out[j] = +v
        return out, +attention


def to_float(arr: np.ndarray) -> np.ndarray:
    """Round an object array of ``mpf`` to float64 (nearest).

    >>> to_float(sinusoidal_table([0], 2))
    array([[0., 1.]])
    """
    return np.vectorize(float, otypes=[np.float64])(arr)


# ----------------------------------------------------------------------------------------
# Variants engines ship (issue 34), written again from the engines' published code: SGLang
# rope_variant.py FourierRotaryEmbedding (FoPE), vLLM openpangu_rope.py and bailing_mrope.py,
# THUDM modeling_chatglm.py (ChatGLM-6B), vLLM linear_scaling_rope.py, ggml ops.cpp rope_yarn.


def fope_cos_sin(position, inv_freq, cos_coef, sin_coef, head_dim: int, *, dps: int = 50):
    """FoPE's cos and sin rows (``head_dim // 2`` each) at ``position``, at ``dps`` digits.

    ``cos[d] = sum_D cos_coef[D][d] * cos(position * inv_freq[D])`` (likewise sin), then both
    padded with the value 1 up to ``head_dim // 2`` (``F.pad(..., value=1)``).

    >>> c, s = fope_cos_sin(0, [1.0], [[1.0]], [[1.0]], 4)
    >>> [float(v) for v in c], [float(v) for v in s]
    ([1.0, 1.0], [0.0, 1.0])
    """
    k = len(inv_freq)
    if head_dim % 2 or head_dim // 2 < k:
        raise ValueError(f"head_dim={head_dim} must be even with head_dim/2 >= {k}")
    with mpmath.workdps(dps + 10):
        p = mpmath.mpf(float(position))
        w = [mpmath.mpf(float(v)) for v in inv_freq]
        cos = [mpmath.fsum(mpmath.mpf(float(cos_coef[j][d])) * mpmath.cos(p * w[j]) for j in range(k)) for d in range(k)]
        sin = [mpmath.fsum(mpmath.mpf(float(sin_coef[j][d])) * mpmath.sin(p * w[j]) for j in range(k)) for d in range(k)]
        pad = [mpmath.mpf(1)] * (head_dim // 2 - k)
    with mpmath.workdps(dps):
        return [+v for v in cos + pad], [+v for v in sin + pad]


def openpangu_axes(sections) -> tuple[int, ...]:
    """Axis of each pair in openPangu's interleaved M-RoPE (vLLM get_mrope_interleaved_id_list).

    Three sections (t, h, w): one t pair is kept for the end; two sections (h, w) interleave.
    At each step the axes with pairs left, other than the previous step's (unless only it is
    left), compete; the lowest placed/total share wins, ties to the lower axis.

    >>> openpangu_axes([2, 3, 3])
    (0, 1, 2, 1, 2, 1, 2, 0)
    """
    secs = [int(v) for v in sections]
    if len(secs) == 3:
        total = {0: secs[0] - 1, 1: secs[1], 2: secs[2]}
    elif len(secs) == 2:
        total = {0: secs[0], 1: secs[1], 2: 0}
    else:
        raise ValueError(f"sections={list(sections)!r} must have two or three entries")
    done = {0: 0, 1: 0, 2: 0}
    seq: list[int] = []
    prev = None
    while sum(done.values()) < sum(total.values()):
        open_axes = [a for a in (0, 1, 2) if done[a] < total[a]]
        choices = [a for a in open_axes if a != prev] or open_axes
        pick = min(choices, key=lambda a: (done[a] * 1.0 / total[a], a))
        seq.append(pick)
        done[pick] += 1
        prev = pick
    if len(secs) == 3:
        seq.append(0)
    return tuple(seq)


def bailing_axes(sections) -> tuple[int, ...]:
    """Bailing M-RoPE: h on even and w on odd pairs of the first ``h + w``, then t.

    >>> bailing_axes([1, 2, 2])
    (1, 2, 1, 2, 0)
    """
    t, h, w = (int(v) for v in sections)
    if h != w:
        raise ValueError("Bailing M-RoPE needs equal h and w sections")
    return tuple(1 + (j % 2) for j in range(h + w)) + (0,) * t


def chatglm_rope(x, position, block_position, *, base=10000, dps: int = 50):
    """ChatGLM-6B: the first half of ``x`` (one head, 1-D) rotated at ``position``, the second
    at ``block_position``, each as rotate-half RoPE of dimension ``len(x) // 2``.

    >>> [round(float(v), 12) for v in chatglm_rope([1.0, 0.0, 1.0, 0.0], 0, 0)]
    [1.0, 0.0, 1.0, 0.0]
    """
    xs = list(x)
    half = len(xs) // 2
    if len(xs) % 4:
        raise ValueError("len(x) must be a multiple of 4")
    first = apply_rope(np.array(xs[:half], dtype=float), position, base=base, layout="split", dps=dps)
    second = apply_rope(np.array(xs[half:], dtype=float), block_position, base=base, layout="split", dps=dps)
    return list(first) + list(second)


def linear_multi_offsets(max_position: int, factors) -> dict:
    """vLLM multi-factor linear RoPE: factor -> first row of its block (blocks of
    ``len(range(ceil(L * s)))`` rows, concatenated in order).

    >>> linear_multi_offsets(10, [1.0, 2.5])
    {1.0: 0, 2.5: 10}
    """
    out, row = {}, 0
    for s in factors:
        out[float(s)] = row
        row += int(math.ceil(max_position * float(s)))
    return out


def llamacpp_rope_yarn(theta_extrap, freq_scale, low, high, pair, ext_factor, mscale=1.0, *, dps: int = 50):
    """ggml ``rope_yarn`` at ``dps`` digits: ``(theta, mscale)`` for ``pair`` (= i0 / 2).

    >>> t, m = llamacpp_rope_yarn(1.0, 0.25, 2, 5, 0, 0.0)
    >>> float(t), float(m)
    (0.25, 1.0)
    """
    with mpmath.workdps(dps + 10):
        te = mpmath.mpf(float(theta_extrap))
        fs = mpmath.mpf(float(freq_scale))
        ti = fs * te
        ms = mpmath.mpf(float(mscale))
        th = ti
        ext = mpmath.mpf(float(ext_factor))
        if ext != 0:
            y = (pair - mpmath.mpf(float(low))) / max(mpmath.mpf("0.001"), mpmath.mpf(float(high)) - float(low))
            ramp = (1 - min(mpmath.mpf(1), max(mpmath.mpf(0), y))) * ext
            th = ti * (1 - ramp) + te * ramp
            ms = ms * (1 + mpmath.mpf("0.1") * mpmath.log(1 / fs))
    with mpmath.workdps(dps):
        return +th, +ms
