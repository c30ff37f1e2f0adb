r"""The proved formulas lowered to PyTorch: RoPE and sinusoidal tables on tensors.

Tensors in, tensors out, on the input's device and in its dtype (float64, float32,
float16, bfloat16); differentiable in ``x``; usable under ``torch.compile(fullgraph=True)``
(no graph break in :func:`apply_rope`, :func:`rope_cos_sin` or :func:`sinusoidal_table`).

**Where the formulas come from.** The same proved claims as the NumPy core, through the
same door (:mod:`pe_symbolic.numeric.lower`, ``modules="torch"``): the rotation of a pair
``(x_a c - x_b s, x_a s + x_b c)`` (:func:`~pe_symbolic.numeric.lower.rope_pair`, claim
``rope.efficient_form``), the table entries ``(cos(m*theta), sin(m*theta))``
(:func:`~pe_symbolic.numeric.lower.rope_angle_cos_sin`) and ``(sin(omega*t),
cos(omega*t))`` (:func:`~pe_symbolic.numeric.lower.sinusoidal_pair`, claim
``translation.identity``). The frequencies are the NumPy core's: 40-digit values of the
proved schedule (or of a model config's rope type, :func:`pe_symbolic.numeric.rope_frequencies`),
rounded once to float64.

**Precision.** Angles are never formed in float32: positions (any integer or float dtype)
and frequencies are float64, the angle ``m * theta`` is one float64 product, its cosine and
sine are float64, and the table is rounded once to its dtype (float16 / bfloat16 correctly,
by rounding to odd in float32 first, not twice). The angle's error is at most
``2**-52 * |m * theta|`` (the product and the frequency each rounded once): 2.3e-10 rad at
``m * theta = 1e6``, far inside the ``1e-7`` rad of the precision audit. ``x`` in float16 /
bfloat16 is rotated in float32 and rounded once back, as the NumPy core does. (The NumPy
core's default tables are more accurate still in float64, within 7 ulp absolute at any
position; in float32 and below the two agree to the last bit almost everywhere and within
one ulp always.)

**Performance.** In eager mode on the CPU, :func:`apply_rope` rotates an ``x`` of more than
2**22 elements in blocks of 2**16 elements shared among ``torch.get_num_threads()`` worker
threads: the same operations on the same values as the whole-tensor formula (the same
bits), with cache-sized float32 temporaries instead of x-sized ones (fresh pages from the
kernel at that size). A smaller ``x`` is rotated by whole-tensor operations, whose
temporaries the heap usually reuses: up to 2**18 elements (a decoding step, a short prompt)
at full width, ``x * [c, c] + roll(x) * [-s, s]`` (the two products of each slot and their
sum: the bits of the lowered pair formula, in four operations instead of seven), above that
by the lowered pair formula on the halves. With ``requires_grad``, under ``torch.compile``
and on other devices it is one graph of whole-tensor operations (which ``torch.compile``
fuses into one pass over ``x``).

A call that repeats an earlier call's shapes, dtypes, devices, keywords and config -- every
layer of a decoding step -- skips the argument checks that call passed (the fast path of the
shared front end, :mod:`pe_symbolic.numeric._frontend`); anything changed is checked in full,
with the same messages. :class:`RotaryEmbedding` is Hugging Face's ``rotary_emb`` /
``apply_rotary_pos_emb`` pair as one object built from a config.

The tables :func:`apply_rope` computes from CPU ``position_ids`` (float64 cosines and sines
of ``positions x d/2`` entries, and their full-width forms) are kept in a small cache (the
last eight, at most 256 MiB: positions, frequencies, dtype, device, inference mode), compared
against the positions' *values* on every call (a bitwise comparison of the small positions
tensor), so a model that applies RoPE with the same ``position_ids`` in every layer computes
them once, and a hit gives the bits a recomputation gives; :func:`clear_cache` frees it.
(:func:`rope_cos_sin`'s tables, which its caller keeps, are computed every call.) Under ``torch.compile`` the tables of
CPU positions are one opaque operation (``torch.ops.pe_symbolic.rope_tables``) that looks
them up in the same cache and returns a copy the graph owns. On an accelerator the tables
are computed every call, as a cache check there would make the host wait for the device;
under ``torch.compile`` by the same operation, once per call (traced, inductor fused their
float64 cosines and sines into the rotation and recomputed them for every head). Passing
``cos_sin=`` from :func:`rope_cos_sin` (Hugging Face's ``rotary_emb`` /
``apply_rotary_pos_emb`` split) skips the lookup.

torch is optional: ``pip install 'pe_symbolic[torch]'``; this package imports without it (a
function called without it says so).

The package: this module is the public API (the shared front end's functions bound to the torch
backend, and :class:`RotaryEmbedding`); :mod:`~pe_symbolic.torch._backend` is that backend
(tables, their cache, the compiled table operation), :mod:`~pe_symbolic.torch._rotate` the eager
rotations, :mod:`~pe_symbolic.torch._runtime` torch itself and the host-side planning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._hfconfig import hf_table
from ..numeric import _frontend as F
from ._backend import _B, clear_cache

# The shipped table of HF's config-class defaults is read now, not on first use: a model
# compiled (torch.compile, fullgraph) before any eager call would otherwise read the file while
# dynamo traces, which it refuses (importlib.resources is marked not traceable). 315 kB of
# JSON, a few milliseconds.
hf_table()

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["RotaryEmbedding", "apply_rope", "clear_cache", "rope_cos_sin", "sinusoidal_table"]


# ----------------------------------------------------------------------------------------
# public functions: the shared front end's, bound to this backend


rope_cos_sin = F.public(_B, F.rope_cos_sin, r"""``(cos, sin)`` tables, as :func:`pe_symbolic.numeric.rope_cos_sin`, as tensors.

    Parameters
    ----------
    positions : torch.Tensor or array_like
        Token positions (any integer or float dtype; formed in float64; a tensor's values are
        used as they are, exact below 2**53; array_like positions are checked like the
        NumPy API's: finite, ``|t| < 2**53``). Hugging Face
        ``position_ids`` of shape ``(batch, seq)`` give tables of shape
        ``(batch, seq, d)``, which :func:`apply_rope` takes as ``cos_sin=``. M-RoPE: a
        leading axis of 3; an axial config: of 2 (row, col).
    d : int, optional
        Rotary dimension (even); not needed with ``config`` or ``inv_freq``.
    base, layout, config, inv_freq, layer_type, seq_len, mrope_section, mrope_interleaved, attention_factor
        As in :func:`pe_symbolic.numeric.rope_cos_sin`. ``seq_len`` (``dynamic`` /
        ``longrope`` configs) defaults to ``max(positions) + 1``; under ``torch.compile``
        pass it.
    dtype : torch.dtype, optional
        float64, float32, float16 or bfloat16 (default: ``torch.get_default_dtype()``):
        the float64 tables rounded once.
    device : torch.device or str, optional
        Default: the positions' device (CPU for array_like positions).

    Returns
    -------
    cos, sin : torch.Tensor
        Shape ``positions.shape + (d,)`` (M-RoPE: ``positions.shape[1:] + (d,)``). When
        every row of eager CPU positions is the same (the batch axis: the first, after
        M-RoPE's), as in training or a batch without padding, the tables are one row's,
        expanded over the batch: a read-only view (writing into it raises; ``.contiguous()``
        copies), ``batch`` times less memory, and less for a compiled :func:`apply_rope` to
        read.

    Examples
    --------
    >>> import torch
    >>> c, s = rope_cos_sin(torch.arange(2), 4, base=100.0, dtype=torch.float64)
    >>> c
    tensor([[1.0000, 1.0000, 1.0000, 1.0000],
            [0.5403, 0.9950, 0.5403, 0.9950]], dtype=torch.float64)
    >>> rope_cos_sin(torch.tensor([1]), 4, base=100.0, layout="interleaved")[1]
    tensor([[0.8415, 0.8415, 0.0998, 0.0998]])
    >>> c, s = rope_cos_sin(torch.arange(6).expand(3, 6), 8)  # three equal rows
    >>> c.shape, c.stride()
    (torch.Size([3, 6, 8]), (0, 8, 1))
    """)

apply_rope = F.public(_B, F.apply_rope, r"""Rotate each pair of ``x[..., :rotary_dim]`` by ``m * theta_i``: RoPE on tensors.

    Parameters
    ----------
    x : torch.Tensor or tuple of torch.Tensor
        float64, float32, float16 or bfloat16, shape ``(..., seq, d)``; Hugging Face's
        ``(batch, heads, seq, d)`` with ``position_ids``. A tuple ``(q, k)`` is rotated with
        one set of tables and returned as a tuple.
    position_ids : torch.Tensor, optional
        Hugging Face's ``(batch, seq)`` (M-RoPE: ``(3, batch, seq)``; an axial config:
        ``(2, batch, seq)``, row and column); the heads axis is inserted. ``(seq,)`` (M-RoPE:
        ``(3, seq)``) is positions of that shape. Any integer or float dtype. The same rules
        as :func:`pe_symbolic.numeric.apply_rope` and :func:`pe_symbolic.jax.apply_rope`.
    positions : torch.Tensor or array_like, optional
        Instead of ``position_ids``: positions broadcasting against ``x.shape[:-1]``.
    cos_sin : (torch.Tensor, torch.Tensor), optional
        Tables from :func:`rope_cos_sin` (same ``layout``), broadcasting against
        ``x.shape[:-1] + (rotary_dim,)``; 3-D tables ``(batch, seq, rotary_dim)`` (from
        ``position_ids``) with 4-D ``x`` get the heads axis inserted, as Hugging Face's
        ``apply_rotary_pos_emb`` does. Computed once per forward, used by every layer.
        Then no positions and no frequency keywords.
    base, layout, rotary_dim, config, inv_freq, layer_type, seq_len, mrope_section, mrope_interleaved, attention_factor
        As in :func:`pe_symbolic.numeric.apply_rope`. Under ``torch.compile`` these are
        constants of the graph (a config dict is guarded on); pass ``inv_freq`` as a list or
        NumPy array there (a tensor is read on the host), and ``seq_len`` for ``dynamic`` /
        ``longrope`` configs.

    Returns
    -------
    torch.Tensor or tuple
        Same shape, dtype and device as ``x``; differentiable in ``x``.

    Raises
    ------
    TypeError
        ``x`` not a tensor or not float64/float32/float16/bfloat16; ``cos_sin`` tables of
        another dtype.
    ValueError
        Positions that do not broadcast against ``x``, an odd head dim, both or neither of
        ``positions`` / ``position_ids`` / ``cos_sin``, and the checks of the NumPy API.

    Notes
    -----
    Calls that repeat an earlier call's shapes, dtypes, devices, keywords and config (every
    layer of a decoding step) skip the argument checks that call passed (the fast path of
    :mod:`pe_symbolic.numeric._frontend`); anything new is checked in full.

    float32 / float64 ``x``: tables in that dtype, the lowered pair formula in that dtype.
    float16 / bfloat16 ``x``: converted exactly to float32, rotated with float32 tables,
    rounded once back (as :func:`pe_symbolic.numeric.apply_rope`; HF rotates in the 16-bit
    dtype with 16-bit tables, several ulp off).

    Examples
    --------
    >>> import torch
    >>> x = torch.tensor([[1.0, 0.0, 1.0, 0.0]], dtype=torch.float64)
    >>> apply_rope(x, positions=[1], base=100.0, layout="interleaved")
    tensor([[0.5403, 0.8415, 0.9950, 0.0998]], dtype=torch.float64)
    >>> q, k = torch.ones(2, 32, 5, 128), torch.ones(2, 8, 5, 128)
    >>> ids = torch.arange(5)[None].expand(2, 5)
    >>> from pe_symbolic.numeric import model_config
    >>> qr, kr = apply_rope((q, k), ids, config=model_config("llama-3.1-8b"))
    >>> qr.shape, kr.shape, qr.dtype
    (torch.Size([2, 32, 5, 128]), torch.Size([2, 8, 5, 128]), torch.float32)
    """)

sinusoidal_table = F.public(_B, F.sinusoidal_table, r"""The sinusoidal encoding PE(t), as :func:`pe_symbolic.numeric.sinusoidal_table`, as a tensor.

    Parameters
    ----------
    positions : torch.Tensor or array_like
        Any shape, integer or float dtype (formed in float64).
    d, base, layout, order, schedule
        As in :func:`pe_symbolic.numeric.sinusoidal_table`.
    dtype : torch.dtype, optional
        float64, float32, float16 or bfloat16 (default ``torch.get_default_dtype()``):
        the float64 table rounded once.
    device : torch.device or str, optional
        Default: the positions' device (CPU for array_like positions).

    Returns
    -------
    torch.Tensor
        Shape ``positions.shape + (d,)``.

    Examples
    --------
    >>> import torch
    >>> sinusoidal_table(torch.arange(2), 4, base=100.0, dtype=torch.float64)
    tensor([[0.0000, 1.0000, 0.0000, 1.0000],
            [0.8415, 0.5403, 0.0998, 0.9950]], dtype=torch.float64)
    """)


class RotaryEmbedding:
    r"""RoPE for one model, planned once: ``(cos, sin)`` per forward, the rotation per layer.

    Hugging Face's ``rotary_emb`` and ``apply_rotary_pos_emb``, as an object built once
    from a config: calling it gives the tables of ``position_ids``
    (:func:`rope_cos_sin` with its keywords), :meth:`apply` rotates ``q`` and ``k`` with
    them (:func:`apply_rope` with ``cos_sin=``). Its calls take the fast path after the
    first (the checks of the first call are not repeated while shapes, dtypes, devices and
    the config stay the same); a changed one is checked in full.

    Parameters
    ----------
    config : Mapping, optional
        The model's config (``config.json`` as a dict). Every other keyword is one of
        :func:`rope_cos_sin`'s (``d``, ``base``, ``layout``, ``dtype``,
        ``device``, ``inv_freq``, ``layer_type``, ``mrope_section``, ...). ``dtype``:
        the tables' (default ``torch.get_default_dtype()``; float32 for 16-bit activations:
        they then rotate in float32, rounded once).

    Examples
    --------
    >>> import torch
    >>> from pe_symbolic.numeric import model_config
    >>> rope = RotaryEmbedding(model_config("llama-3.1-8b"), dtype=torch.float32)
    >>> ids = torch.tensor([[41]])                       # one decoding step, (batch, seq)
    >>> cos, sin = rope(ids)                             # once per step
    >>> q, k = torch.ones(1, 32, 1, 128), torch.ones(1, 8, 1, 128)
    >>> q_rot, k_rot = rope.apply((q, k), (cos, sin))    # in every layer
    >>> q_rot.shape, torch.equal(q_rot, apply_rope(q, ids, config=model_config("llama-3.1-8b")))
    (torch.Size([1, 32, 1, 128]), True)
    """

    def __init__(self, config: Mapping[str, Any] | None = None, **keywords: Any) -> None:
        import inspect

        inspect.signature(rope_cos_sin).bind(None, config=config, **keywords)  # an unknown keyword: now
        self.config = config
        self.keywords = keywords
        self.layout = keywords.get("layout", "split")

    def __call__(self, position_ids: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """``(cos, sin)`` of ``position_ids`` (:func:`rope_cos_sin`)."""
        return rope_cos_sin(position_ids, config=self.config, **self.keywords)

    def apply(self, x: Any, cos_sin: tuple[torch.Tensor, torch.Tensor]) -> Any:
        """``x`` (a tensor, or a tuple ``(q, k)``) rotated with the tables of :meth:`__call__`."""
        return apply_rope(x, cos_sin=cos_sin, layout=self.layout)

    def __repr__(self) -> str:
        kw = "".join(f", {k}={v!r}" for k, v in self.keywords.items())
        cfg = self.config
        if isinstance(cfg, Mapping):  # (a config.json can hold a hundred keys: named, not printed)
            mt = cfg.get("model_type")
            what = f"config=<{len(cfg)} keys{f', model_type {mt!r}' if mt else ''}>"
        else:
            what = f"config={cfg!r}"
        return f"RotaryEmbedding({what}{kw})"
