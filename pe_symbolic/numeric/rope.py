"""Rotary embeddings: cos/sin tables and ``apply_rope`` (see :mod:`pe_symbolic.numeric`).

The two functions are the shared front end's (:mod:`pe_symbolic.numeric._frontend`: every
argument check, shape rule and message, the same in :mod:`pe_symbolic.torch` and
:mod:`pe_symbolic.jax`), bound to the NumPy core's backend
(:mod:`pe_symbolic.numeric._numpy_backend`: the tables and the kernels).
"""

from __future__ import annotations

import numpy as np  # noqa: F401  (doctests)

from . import _frontend as F
from ._blocks import intercept
from ._numpy_backend import NUMPY, _PhasorBlocks  # noqa: F401  (_PhasorBlocks: tests/rope_reference_kernels.py)
from .config import model_config  # noqa: F401  (doctests)

__all__ = ["apply_rope", "rope_cos_sin"]

rope_cos_sin = F.public(NUMPY, F.rope_cos_sin, intercept=intercept("rope_cos_sin"), module=__name__, doc=r"""``(cos, sin)`` tables such that ``x*cos + rotate(x)*sin`` applies RoPE.

    Parameters
    ----------
    positions : array_like of real
        Token positions ``m``. For M-RoPE (a config with ``mrope_section``, or
        ``mrope_section=``): a leading axis of 3 (t, h, w), e.g. shape ``(3, seq)`` or
        ``(3, batch, seq)``; for an axial (2-D) config (Pixtral), of 2 (row, col).
    d : int, optional
        Rotary dimension (positive, even). Not needed with ``config`` or ``inv_freq``.
    base : float, default 10000.0
        :math:`\theta_i = b^{-2i/d}` (without ``config`` / ``inv_freq``).
    layout : {"split", "interleaved"}
        ``"split"`` (GPT-NeoX / HF Llama ``rotate_half``): ``cos = concat(cos mθ, cos mθ)``;
        ``"interleaved"`` (RoFormer / Meta / GPT-J): each entry repeated twice.
        With ``config`` of a model type whose HF attention rotates interleaved pairs
        (:func:`describe` names it: GPT-J, Cohere, GLM, DeepSeek-V3, ...), ``"split"``
        warns (:class:`ConfigLayoutWarning`): pass ``"interleaved"`` for HF's result.
    dtype : {numpy.float64, numpy.float32, numpy.float16, ml_dtypes.bfloat16}, optional
        Default float64. float16 / bfloat16: the float64 tables rounded once (correctly, not
        through float32), as in :func:`sinusoidal_table`.
    accurate : bool
        As in :func:`sinusoidal_table`.
    config : Mapping, optional
        A model config: frequencies, rotary dim, attention factor and M-RoPE sections as
        :func:`rope_frequencies` reads them (angles from the 40-digit frequencies).
        ChatGLM-6B's ``position_encoding_2d`` config (NumPy only): positions with a leading
        axis of 2 (token position, block position); the tables are the two blocks' side by
        side, each in split halves.
    inv_freq : array_like or RopeFrequencies, optional
        The frequencies themselves (taken as exact float64 values); a
        :class:`RopeFrequencies` also brings its attention factor.
    layer_type : str, optional
        Passed to :func:`rope_frequencies` with ``config``.
    seq_len : int, optional
        The current sequence length, for the config types that depend on it (``dynamic``,
        ``longrope``; see :func:`rope_frequencies`). Default: the largest position plus one
        (real positions: rounded down first; at least 1), the length HF's
        ``dynamic_rope_update`` uses (``torch.max(position_ids) + 1``: the maximum over every
        entry, the batch and, for M-RoPE ids of shape ``(3, ...)``, all three t/h/w axes).
        Pass it to override (e.g. to reproduce HF's ``dynamic`` state, which keeps the base
        of the longest length seen since the length last fell below
        ``max_position_embeddings``).
    mrope_section : three ints, optional
        M-RoPE pairs per axis (t, h, w), summing to ``d/2``; read from the config if it has
        one.
    mrope_interleaved : bool, default False
        Qwen3-VL's interleaved axis assignment instead of Qwen2-VL's contiguous sections.
    attention_factor : float, optional
        Multiplies both tables (HF's ``attention_scaling``). Default: the config's (or the
        :class:`RopeFrequencies`'), else 1.

    Returns
    -------
    cos, sin : numpy.ndarray
        Each of shape ``positions.shape + (d,)`` (for M-RoPE ``positions.shape[1:] + (d,)``).

    Examples
    --------
    >>> c, s = rope_cos_sin([0, 1], 4, base=100.0)
    >>> c.round(4)
    array([[1.    , 1.    , 1.    , 1.    ],
           [0.5403, 0.995 , 0.5403, 0.995 ]])
    >>> rope_cos_sin([1], 4, base=100.0, layout="interleaved")[1].round(4)
    array([[0.8415, 0.8415, 0.0998, 0.0998]])
    >>> c, s = rope_cos_sin([[0, 1], [0, 5], [0, 7]], config=model_config("qwen2-vl-7b"))
    >>> c.shape
    (2, 128)
    """)

apply_rope = F.public(NUMPY, F.apply_rope, intercept=intercept("apply_rope"), module=__name__, doc=r"""Rotate each pair of ``x[..., :rotary_dim]`` by the angle ``m * theta_i``.

    Parameters
    ----------
    x : numpy.ndarray (float64, float32, float16 or bfloat16), or a tuple of them
        Shape ``(..., seq, d)`` (any leading axes). A tuple ``(q, k)`` (or any number of
        arrays) is rotated with one frequency plan and one phasor source (positions
        checked and the coarse and fine phasor tables computed once; each array then
        multiplies out the phasors of its own blocks) and returned as a tuple.
    positions : array_like of real
        Broadcasts against ``x.shape[:-1]`` (typically shape ``(seq,)``). For M-RoPE, a
        leading axis of 3 (t, h, w) in front of that shape; for an axial (2-D) config
        (Pixtral's vision tower), a leading axis of 2 (row, col): the first half of the
        pairs turns by the row, the second by the column, as HF's
        ``PixtralVisionRotaryEmbedding``.
    base : float, default 10000.0
    layout : {"split", "interleaved"}
        Pair slots ``(i, i + r/2)`` (GPT-NeoX / HF Llama) or ``(2i, 2i+1)`` (RoFormer / GPT-J).
        ``"split"`` with ``config`` of a model type HF rotates in interleaved pairs warns, as
        in :func:`rope_cos_sin`.
    rotary_dim : int, optional
        Even, ``<= d``; only the first ``rotary_dim`` channels rotate (partial rotary), the
        rest pass through. Default: ``d`` (or what ``config`` / ``inv_freq`` say).
        Frequencies use ``rotary_dim``: :math:`\theta_i = b^{-2i/r}`.
    accurate : bool
        Use the accurate cos/sin tables (the rotation itself is then rounded once more).
    out : numpy.ndarray or tuple of them, optional
        Same shape and dtype as ``x``; may be ``x`` itself (in place).
    config, inv_freq, layer_type, seq_len, mrope_section, mrope_interleaved, attention_factor
        As in :func:`rope_cos_sin`: the frequencies of a model config (and its attention
        factor, which multiplies the rotated channels as HF's cos/sin scaling does), or a
        frequency vector; M-RoPE sections. ``seq_len`` defaults, for ``dynamic`` and
        ``longrope`` configs, to the largest entry of ``positions`` (or ``position_ids``) plus
        one, as HF's ``dynamic_rope_update`` takes ``max(position_ids) + 1`` (over the batch
        and, for M-RoPE, all three axes); pass it to override. ChatGLM-6B's
        ``position_encoding_2d`` config (NumPy only): block ``k`` of ``d/2`` channels turns by
        position axis ``k`` (positions of leading axis 2, or THUDM's ``position_ids`` of shape
        ``(batch, 2, seq)``), each block in split halves.
    position_ids : array_like of int or real, optional
        Hugging Face's layout instead of ``positions``: shape ``(batch, seq)`` for ``x`` of
        shape ``(batch, heads, seq, d)`` (M-RoPE: ``(3, batch, seq)``); the heads axis is
        inserted for you. Shape ``(seq,)`` (M-RoPE: ``(3, seq)``) is positions of that shape.
        The same rules in :mod:`pe_symbolic.torch` and :mod:`pe_symbolic.jax`. Positions (and
        ids) in a float type must be below where it stops holding every integer: ``2**24`` for
        float32, 2048 for float16, 256 for bfloat16 (16-bit ones are converted, exactly, with a
        warning); else a ``ValueError`` names the first position the type cannot hold.
    cos_sin : (numpy.ndarray, numpy.ndarray), optional
        Instead of positions: tables from :func:`rope_cos_sin` (same ``layout``; for 16-bit
        ``x`` float32 tables), broadcasting against ``x.shape[:-1] + (rotary_dim,)``; 3-D
        tables ``(batch, seq, rotary_dim)`` with 4-D ``x`` get the heads axis inserted. The
        rotation is the lowered pair formula on the tables' halves (the frameworks' way:
        ``accurate`` does not apply). Then no positions and no frequency keywords.
    check_finite : bool, default False
        Raise a ``ValueError`` naming the first NaN or infinite entry of ``x``. By default
        non-finite entries propagate as IEEE arithmetic has them (as every framework's
        RoPE does, and at no cost): a NaN or inf reaches both outputs of its pair, only
        those (an inf may turn into NaN where it meets a zero sine, e.g. at position 0).

    Returns
    -------
    numpy.ndarray or tuple
        Same shape and dtype as ``x`` (a tuple for a tuple).

    Warns
    -----
    ConfigLayoutWarning
        ``layout="split"`` (the default) with ``config`` (a mapping) of a model type whose HF
        attention rotates interleaved pairs (``describe(config).layout`` says "interleaved"):
        the message names the model type, HF's function and ``layout="interleaved"``. A
        :class:`RopeSpec` carries no model type and does not warn.

    Notes
    -----
    .. math:: (x_a, x_b) \mapsto (x_a\cos m\theta_i - x_b\sin m\theta_i,\;
              x_a\sin m\theta_i + x_b\cos m\theta_i)

    so :math:`\langle R(m)q, R(n)k\rangle` depends on ``n - m`` only. At ``m = 0`` it is the
    identity.

    Precision: float64 ``x``: cos/sin within 7u (u = 2**-53) and the rotation rounded once
    more. float32 ``x``: the float64 tables rounded once to float32, the rotation in float32
    (a few ulp32 of the pair's norm). float16 / bfloat16 ``x``: converted exactly to float32,
    rotated as float32, then rounded once to the input dtype: within half an ulp of that
    dtype plus the float32 error (about 2**-22 of the pair's norm), i.e. at most one ulp
    (bfloat16: 2**-8 relative) away from the correctly rounded rotation, where the naive
    recipe (tables cast to bfloat16, products and sum each rounded to bfloat16) is off by
    several.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0, 1.0, 0.0]])
    >>> apply_rope(x, [1], base=100.0, layout="interleaved").round(4)
    array([[0.5403, 0.8415, 0.995 , 0.0998]])
    >>> apply_rope(np.ones((2, 4), np.float32), [0, 0]).dtype
    dtype('float32')
    >>> import ml_dtypes  # bfloat16 arrays come from ml_dtypes
    >>> y = apply_rope(np.ones((1, 4), ml_dtypes.bfloat16), [1], base=100.0)
    >>> y.dtype == ml_dtypes.bfloat16, y.astype(np.float32)  # shown as float32: ml_dtypes 0.7 prints its dtype differently
    (True, array([[-0.30078125,  0.89453125,  1.3828125 ,  1.09375   ]], dtype=float32))
    >>> q, k = np.ones((2, 32, 5, 128)), np.ones((2, 8, 5, 128))
    >>> ids = np.arange(5)[None].repeat(2, axis=0)  # HF position_ids, (batch, seq)
    >>> qr, kr = apply_rope((q, k), position_ids=ids, config=model_config("llama-3.1-8b"))
    >>> qr.shape, kr.shape
    ((2, 32, 5, 128), (2, 8, 5, 128))
    """)

