r"""The RoPE family that real models ship, as SymPy constructions.

RoPE with an **arbitrary frequency vector** :math:`\theta = (\theta_0, \dots, \theta_{d/2-1})`
is the common shape: pair ``i`` of a query or key at position ``m`` turns by
:math:`m\theta_i`. Every context-extension scaling of Hugging Face transformers'
``ROPE_INIT_FUNCTIONS`` is a function that produces :math:`\theta'` (and an *attention
factor* that multiplies the cos and sin tables) from the default ladder
:math:`\theta_i = b^{-2i/d}`. The names are the keys of a model's ``config.json``
(``rope_parameters`` in current transformers, ``rope_scaling`` in older releases):

==================  =====================================================================
symbol              config key
==================  =====================================================================
:math:`b`           ``rope_theta``
:math:`d`           rotary dimension ``int(head_dim * partial_rotary_factor)``
:math:`s`           ``factor``
:math:`L`           ``original_max_position_embeddings`` (``max_position_embeddings`` for
                    ``dynamic``)
==================  =====================================================================

Members (each a small function returning SymPy expressions; nothing here evaluates
numerically):

* :func:`default_theta`, :func:`linear` (position interpolation);
* :func:`ntk_base` (static NTK-aware), :func:`dynamic_base` (HF ``dynamic``),
  :func:`ntk_mixed_factor` (vLLM's ``ntk``: with ``mixed_b``, and at :math:`\beta = 1`
  without it);
* YaRN: :func:`yarn_correction_dim`, :func:`yarn_ramp`, :func:`yarn_theta`,
  :func:`yarn_mscale`, :func:`yarn_attention_factor`;
* LongRoPE: :func:`longrope_theta`, :func:`longrope_attention_factor`;
* Llama 3: :func:`llama3_smooth`, :func:`llama3_theta`;
* ``proportional``: :func:`proportional_thetas`;
* the rotations: :func:`rope_matrix` (any frequency vector), :func:`partial_rope_matrix`
  (partial rotary, both pairings), :func:`mrope_axes` and :func:`mrope_matrix` (Qwen2-VL /
  Qwen3-VL multimodal RoPE), :func:`axial_thetas` and :func:`axial_matrix` (2-D axial RoPE
  for images), :func:`xpos_zeta` and :func:`xpos_scale` (xPos),
  :func:`partial_layout_permutation`.

Gemma 3 needs no construction of its own: each layer type is RoPE with its own base (and
scaling), i.e. :func:`rope_matrix` with that layer type's frequency vector.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from . import symbols as S
from .._validate import check_d, check_layout
from .rot2 import block_diagonal, pair_slots, rot2
from .symbols import as_expr as _e

__all__ = [
    "L",
    "s",
    "axial_matrix",
    "axial_thetas",
    "default_theta",
    "dynamic_base",
    "linear",
    "llama3_smooth",
    "llama3_theta",
    "longrope_attention_factor",
    "longrope_theta",
    "mrope_axes",
    "mrope_matrix",
    "ntk_base",
    "ntk_mixed_factor",
    "partial_layout_permutation",
    "partial_rope_matrix",
    "proportional_thetas",
    "rope_matrix",
    "wavelength",
    "xpos_scale",
    "xpos_zeta",
    "yarn_attention_factor",
    "yarn_correction_dim",
    "yarn_mscale",
    "yarn_ramp",
    "yarn_theta",
]

s = sp.Symbol("s", positive=True)
"""The scaling ``factor`` (:math:`s \\ge 1` in every config; a relation, stated per claim)."""
L = sp.Symbol("L", positive=True)
"""A context length: ``original_max_position_embeddings`` (or ``max_position_embeddings``)."""

#: xPos's default decay scale :math:`\gamma` (torchscale's ``scale_base``).
XPOS_GAMMA = 512
#: Where pair ``i`` takes its position from, for M-RoPE: index 0, 1, 2 = t, h, w.
MROPE_AXES = ("t", "h", "w")


# ----------------------------------------------------------------------------------------
# frequency vectors


def default_theta(i: int | sp.Expr, d: int | sp.Expr, *, base: float | sp.Expr = S.b) -> sp.Expr:
    r"""The default ladder :math:`\theta_i = b^{-2i/d}` (HF ``rope_type="default"``).

    >>> from pe_symbolic.encodings.symbols import i, d
    >>> default_theta(i, d)
    b**(-2*i/d)
    >>> default_theta(1, 4, base=100)
    1/10
    """
    return _e(base) ** (-2 * _e(i) / _e(d))


def wavelength(theta: sp.Expr) -> sp.Expr:
    r"""The wavelength :math:`\lambda = 2\pi/\theta` of a pair of frequency ``theta``.

    >>> wavelength(sp.Integer(1))
    2*pi
    """
    return 2 * sp.pi / _e(theta)


def linear(theta: sp.Expr, factor: sp.Expr = s) -> sp.Expr:
    r"""Position interpolation (HF ``linear``): :math:`\theta_i / s`.

    >>> linear(sp.Symbol("theta"))
    theta/s
    """
    return _e(theta) / _e(factor)


def ntk_base(base: sp.Expr = S.b, factor: sp.Expr = s, d: int | sp.Expr = S.d) -> sp.Expr:
    r"""Static NTK-aware base :math:`b' = b\,s^{d/(d-2)}` (rotary-embedding-torch's
    ``theta_rescale_factor``; not an HF ``rope_type``, and not what a config's ``"ntk"``
    means: that is vLLM's fixed NTK, :func:`ntk_mixed_factor` at :math:`\beta = 1`).

    It is the base that keeps the highest frequency (pair 0) and divides the lowest
    (pair :math:`d/2-1`) by :math:`s` (theorem ``ntk.derive``). Needs :math:`d > 2`.

    >>> ntk_base()
    b*s**(d/(d - 2))
    >>> ntk_base(10000, 4, 8)
    40000*2**(2/3)
    """
    d = _e(d)
    return _e(base) * _e(factor) ** (d / (d - 2))


def ntk_mixed_factor(i: int | sp.Expr = S.i, d: int | sp.Expr = S.d, factor: sp.Expr = s,
                     mixed_b: sp.Expr = sp.Symbol("beta", positive=True)) -> sp.Expr:
    r"""vLLM's mixed NTK divisor :math:`\lambda_i = \exp\big(a\,(i+1)^{\beta}\big)`,
    :math:`a = \ln s / (d/2)^{\beta}` (Su, "NTK-RoPE-mixed", kexue.fm/archives/9706).

    vLLM's ``NTKScalingRotaryEmbedding`` with ``mixed_b`` = :math:`\beta` divides pair
    :math:`i` of the default ladder by it (:math:`\theta'_i = \theta_i/\lambda_i`, a
    per-pair rescaling like LongRoPE's): the last pair (:math:`i = d/2 - 1`) is divided by
    exactly :math:`s`, and :math:`\beta = 1` gives :math:`\lambda_i = s^{2(i+1)/d}`, vLLM's
    fixed NTK (``ntk`` without ``mixed_b``: base :math:`b s`, every frequency divided by
    :math:`s^{2/d}`; theorem ``ntk_mixed.endpoints``).

    >>> ntk_mixed_factor()
    exp((i + 1)**beta*log(s)/(d/2)**beta)
    >>> ntk_mixed_factor(3, 8, 4, 1)
    4
    """
    d, beta = _e(d), _e(mixed_b)
    return sp.exp(sp.log(_e(factor)) / (d / 2) ** beta * (_e(i) + 1) ** beta)


def dynamic_base(
    base: sp.Expr = S.b,
    factor: sp.Expr = s,
    seq_len: sp.Expr = S.n,
    max_len: sp.Expr = L,
    d: int | sp.Expr = S.d,
) -> sp.Expr:
    r"""HF ``dynamic`` NTK base :math:`b' = b\,(s n / L' - (s - 1))^{d/(d-2)}`.

    ``n`` is the current length, clamped below at :math:`L'` =
    ``max_position_embeddings`` by the caller (so :math:`b' = b` up to :math:`L'`).

    >>> from pe_symbolic.encodings.symbols import n
    >>> dynamic_base()
    b*(-s + 1 + n*s/L)**(d/(d - 2))
    """
    d = _e(d)
    factor = _e(factor)
    return _e(base) * (factor * _e(seq_len) / _e(max_len) - (factor - 1)) ** (d / (d - 2))


def yarn_correction_dim(r: sp.Expr, d: int | sp.Expr = S.d, base: sp.Expr = S.b,
                        length: sp.Expr = L) -> sp.Expr:
    r"""YaRN's correction dimension :math:`j(r) = \dfrac{d\,\ln\!\big(L/(2\pi r)\big)}{2\ln b}`.

    The (real) pair index whose wavelength :math:`2\pi b^{2j/d}` equals :math:`L/r`, i.e.
    the pair that turns :math:`r` times over the original context :math:`L` (theorem
    ``yarn.correction_dim``). HF evaluates it at ``r = beta_fast`` (default 32) for
    ``low`` and ``r = beta_slow`` (default 1) for ``high``.

    >>> yarn_correction_dim(sp.Symbol("r", positive=True))
    d*log(L/(2*pi*r))/(2*log(b))
    """
    return _e(d) * sp.log(_e(length) / (2 * sp.pi * _e(r))) / (2 * sp.log(_e(base)))


def yarn_ramp(i: sp.Expr, low: sp.Expr, high: sp.Expr) -> sp.Expr:
    r"""YaRN's ramp :math:`\gamma_i = \operatorname{clamp}\big((i - \mathrm{low})/(\mathrm{high} - \mathrm{low}), 0, 1\big)`.

    Exactly HF's ``linear_ramp_factor`` (the caller guards ``low == high``; HF adds 0.001
    to ``high`` then). For ``low < high`` it is the piecewise-linear function that is 0 up
    to ``low``, 1 from ``high`` on; when the clamped ``high`` ends up below ``low`` (tiny
    bases, long contexts) the clamp still decides, as in HF.

    >>> x, lo, hi = sp.symbols("x lo hi", real=True)
    >>> yarn_ramp(x, lo, hi)
    Min(1, Max(0, (-lo + x)/(hi - lo)))
    """
    i, low, high = _e(i), _e(low), _e(high)
    return sp.Min(sp.Max((i - low) / (high - low), 0), 1)


def yarn_theta(theta: sp.Expr, factor: sp.Expr = s, ramp: sp.Expr = sp.Symbol("gamma")) -> sp.Expr:
    r"""YaRN's blend :math:`\theta'_i = (\theta_i/s)\,\gamma_i + \theta_i\,(1 - \gamma_i)`.

    :math:`\gamma_i = 0` keeps the pair (extrapolation, high frequencies), :math:`\gamma_i = 1`
    interpolates it (:math:`\theta_i/s`, low frequencies). HF's code names
    :math:`1-\gamma_i` ``inv_freq_extrapolation_factor``.

    >>> yarn_theta(sp.Symbol("theta"))
    gamma*theta/s + theta*(1 - gamma)
    """
    theta, ramp = _e(theta), _e(ramp)
    return theta / _e(factor) * ramp + theta * (1 - ramp)


def yarn_mscale(factor: sp.Expr = s, mscale: sp.Expr = 1) -> sp.Expr:
    r"""YaRN's ``get_mscale``: :math:`0.1\,\mu\ln s + 1` for :math:`s > 1`, else 1.

    >>> yarn_mscale()
    Piecewise((1, s <= 1), (log(s)/10 + 1, True))
    """
    factor = _e(factor)
    return sp.Piecewise((1, factor <= 1), (sp.Rational(1, 10) * _e(mscale) * sp.log(factor) + 1, True))


def yarn_attention_factor(factor: sp.Expr = s, mscale: sp.Expr | None = None,
                          mscale_all_dim: sp.Expr | None = None) -> sp.Expr:
    r"""YaRN's attention factor (HF): :math:`0.1\ln s + 1`, or the ratio
    ``get_mscale(s, mscale) / get_mscale(s, mscale_all_dim)`` when both are given (and
    non-zero). An explicit ``attention_factor`` in the config replaces it.

    >>> yarn_attention_factor(4)
    log(4)/10 + 1
    >>> yarn_attention_factor(40, 1, 1)
    1
    """
    if mscale and mscale_all_dim:
        return yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all_dim)
    return yarn_mscale(factor)


def longrope_theta(theta: sp.Expr, rescale: sp.Expr) -> sp.Expr:
    r"""LongRoPE: :math:`\theta'_i = \theta_i / \lambda_i` with the per-pair factor
    :math:`\lambda_i` (``long_factor`` beyond :math:`L`, else ``short_factor``).

    >>> longrope_theta(sp.Symbol("theta"), sp.Symbol("lambda"))
    theta/lambda
    """
    return _e(theta) / _e(rescale)


def longrope_attention_factor(factor: sp.Expr = s, length: sp.Expr = L) -> sp.Expr:
    r"""LongRoPE's attention factor :math:`\sqrt{1 + \ln s / \ln L}` (1 for :math:`s \le 1`).

    >>> longrope_attention_factor()
    Piecewise((1, s <= 1), (sqrt(1 + log(s)/log(L)), True))
    """
    factor = _e(factor)
    return sp.Piecewise((1, factor <= 1), (sp.sqrt(1 + sp.log(factor) / sp.log(_e(length))), True))


def llama3_smooth(theta: sp.Expr, length: sp.Expr = L, low: sp.Expr = sp.Symbol("l"),
                  high: sp.Expr = sp.Symbol("h")) -> sp.Expr:
    r"""Llama 3's smoothing weight :math:`\sigma = (L/\lambda - \mathrm{low})/(\mathrm{high} - \mathrm{low})`,
    :math:`\lambda = 2\pi/\theta` (``low_freq_factor``, ``high_freq_factor``).

    >>> llama3_smooth(sp.Symbol("theta"))
    (L*theta/(2*pi) - l)/(h - l)
    """
    return (_e(length) / wavelength(theta) - _e(low)) / (_e(high) - _e(low))


def llama3_theta(theta: sp.Expr, factor: sp.Expr = s, length: sp.Expr = L,
                 low: sp.Expr = sp.Symbol("l"), high: sp.Expr = sp.Symbol("h")) -> sp.Expr:
    r"""Llama 3 scaling of one frequency, by its wavelength :math:`\lambda = 2\pi/\theta`:
    kept when :math:`\lambda < L/\mathrm{high}`, divided by :math:`s` when
    :math:`\lambda > L/\mathrm{low}`, else :math:`(1-\sigma)\,\theta/s + \sigma\,\theta`.

    >>> llama3_theta(sp.Symbol("theta", positive=True)).args[1]
    (theta/s, L/l < 2*pi/theta)
    """
    theta = _e(theta)
    lam = wavelength(theta)
    length, low, high = _e(length), _e(low), _e(high)
    sigma = llama3_smooth(theta, length, low, high)
    return sp.Piecewise(
        (theta, lam < length / high),
        (theta / _e(factor), lam > length / low),
        ((1 - sigma) * theta / _e(factor) + sigma * theta, True),
    )


def proportional_thetas(head_dim: int, rope_angles: int, *, base: sp.Expr = S.b,
                        factor: sp.Expr = 1) -> tuple[sp.Expr, ...]:
    r"""HF ``proportional``: :math:`\theta_i = b^{-2i/D}/s` for ``i < rope_angles``, 0 after.

    The ladder's denominator is the **head** dimension :math:`D` (not the rotary one); the
    remaining ``D/2 - rope_angles`` frequencies are zero, i.e. identity rotations.
    ``rope_angles = int(partial_rotary_factor * D // 2)``.

    >>> proportional_thetas(8, 2, base=10000)
    (1, 1/10, 0, 0)
    """
    head_dim = check_d(head_dim, name="head_dim")
    if not 0 <= rope_angles <= head_dim // 2:
        raise ValueError(f"rope_angles={rope_angles!r} must satisfy 0 <= rope_angles <= head_dim/2 = {head_dim // 2}")
    f = _e(factor)
    rot = tuple(default_theta(q, head_dim, base=base) / f for q in range(rope_angles))
    return rot + (sp.S.Zero,) * (head_dim // 2 - rope_angles)


# ----------------------------------------------------------------------------------------
# rotations


def rope_matrix(m: sp.Expr, thetas: Sequence[sp.Expr], *, layout: str = "split") -> sp.ImmutableMatrix:
    r""":math:`R_\theta(m)`: block-diagonal rotations by :math:`m\theta_i`, any frequency vector.

    >>> from pe_symbolic.encodings.symbols import m
    >>> rope_matrix(m, (1, 0), layout="interleaved")[2:, 2:]
    Matrix([
    [1, 0],
    [0, 1]])
    """
    layout = check_layout(layout)
    m = _e(m)
    return block_diagonal([rot2(m * _e(th)) for th in thetas], layout)


def partial_rope_matrix(m: sp.Expr, head_dim: int, thetas: Sequence[sp.Expr], *,
                        layout: str = "split") -> sp.ImmutableMatrix:
    r"""Partial rotary: the first :math:`r = 2\,\mathrm{len}(\theta)` channels rotate, the rest pass.

    The pairs live inside the rotated block: ``"split"`` (GPT-NeoX / HF ``rotate_half`` on
    ``x[..., :r]``) pairs ``(i, i + r/2)``; ``"interleaved"`` (GPT-J / GLM) pairs
    ``(2i, 2i+1)``. Channels ``r .. head_dim - 1`` are left alone (identity).

    >>> from pe_symbolic.encodings.symbols import m
    >>> partial_rope_matrix(m, 4, (1,)).shape
    (4, 4)
    """
    head_dim = check_d(head_dim, name="head_dim")
    r = 2 * len(thetas)
    if not 0 < r <= head_dim:
        raise ValueError(f"rotary dim 2*len(thetas)={r} must satisfy 0 < r <= head_dim={head_dim}")
    out = sp.eye(head_dim)
    out[:r, :r] = rope_matrix(m, thetas, layout=layout)
    return sp.ImmutableMatrix(out)


def mrope_axes(sections: Sequence[int], *, interleaved: bool = False) -> tuple[int, ...]:
    r"""Which position axis (0 = t, 1 = h, 2 = w) each frequency pair of M-RoPE uses.

    ``interleaved=False``: Qwen2-VL's contiguous sections (``mrope_section``, default
    ``[16, 24, 24]``): the first ``sections[0]`` pairs take t, the next ``sections[1]`` h,
    the last ``sections[2]`` w. ``interleaved=True``: Qwen3-VL (default ``[24, 20, 20]``):
    pairs cycle t, h, w, t, h, w, ... while h and w last (``3 * sections[1]`` and
    ``3 * sections[2]`` pairs), the rest take t.

    >>> mrope_axes((2, 1, 1))
    (0, 0, 1, 2)
    >>> mrope_axes((2, 1, 1), interleaved=True)
    (0, 1, 2, 0)
    """
    secs = tuple(int(v) for v in sections)
    if len(secs) != 3 or any(v < 0 for v in secs):
        raise ValueError(f"sections={tuple(sections)!r} must be three non-negative integers (t, h, w)")
    h = sum(secs)
    if not interleaved:
        return tuple(a for a, v in enumerate(secs) for _ in range(v))
    axes = [0] * h
    for a in (1, 2):
        for j in range(a, min(3 * secs[a], h), 3):
            axes[j] = a
    if tuple(axes.count(a) for a in range(3)) != secs:
        raise ValueError(
            f"sections={secs!r} cannot be interleaved: h and w take one pair in three, which "
            f"needs 3*sections[1] <= total + 1 and 3*sections[2] <= total (total = {h})"
        )
    return tuple(axes)


def mrope_matrix(p: Sequence[sp.Expr], thetas: Sequence[sp.Expr], sections: Sequence[int], *,
                 layout: str = "split", interleaved: bool = False) -> sp.ImmutableMatrix:
    r"""M-RoPE :math:`R(p)` for a position vector :math:`p = (t, h, w)`: pair ``j`` turns by
    :math:`p_{a(j)}\,\theta_j` with the axis :math:`a(j)` of :func:`mrope_axes`.

    >>> t, h, w = sp.symbols("t h w", real=True)
    >>> mrope_matrix((t, h, w), (1, 1, 1, 1), (2, 1, 1), layout="interleaved")[4, 4]
    cos(h)
    """
    axes = mrope_axes(sections, interleaved=interleaved)
    if len(axes) != len(thetas):
        raise ValueError(f"sections sum to {len(axes)} pairs; thetas has {len(thetas)}")
    p = tuple(_e(v) for v in p)
    return block_diagonal([rot2(p[a] * _e(th)) for a, th in zip(axes, thetas)], check_layout(layout))


def axial_thetas(d: int, *, base: sp.Expr = S.b) -> tuple[sp.Expr, ...]:
    r"""2-D axial frequencies (EVA-02, Qwen2-VL's vision tower): the ladder of dimension
    :math:`d/2`, :math:`b^{-4j/d}` for :math:`j < d/4`, used once for the row position and
    once for the column position (``d`` a multiple of 4).

    >>> axial_thetas(8, base=100)
    (1, 1/10, 1, 1/10)
    """
    d = check_d(d)
    if d % 4:
        raise ValueError(f"d={d!r} must be a multiple of 4 for 2-D axial RoPE (d/4 pairs per axis)")
    half = tuple(default_theta(j, d // 2, base=base) for j in range(d // 4))
    return half + half


def axial_matrix(p: Sequence[sp.Expr], d: int, *, base: sp.Expr = S.b, layout: str = "split",
                 thetas: Sequence[sp.Expr] | None = None) -> sp.ImmutableMatrix:
    r"""2-D axial RoPE :math:`R(p)` for :math:`p = (\mathrm{row}, \mathrm{col})`: the first
    :math:`d/4` pairs turn with the row position, the last :math:`d/4` with the column.

    >>> r, c = sp.symbols("r c", real=True)
    >>> axial_matrix((r, c), 4, layout="interleaved")[2, 2]
    cos(c)
    """
    ths = tuple(thetas) if thetas is not None else axial_thetas(d, base=base)
    if len(ths) != d // 2 or (d // 2) % 2:
        raise ValueError(f"2-D axial RoPE needs d/2 = {d // 2} frequencies split evenly; got {len(ths)}")
    q = d // 4
    p = tuple(_e(v) for v in p)
    return block_diagonal([rot2(p[0 if j < q else 1] * ths[j]) for j in range(d // 2)], check_layout(layout))


def xpos_zeta(i: int | sp.Expr, d: int | sp.Expr) -> sp.Expr:
    r"""xPos's per-pair base :math:`\zeta_i = (2i + 0.4d)/(1.4d)` (torchscale ``XPOS``).

    >>> xpos_zeta(0, 10)
    2/7
    """
    d = _e(d)
    return (2 * _e(i) + sp.Rational(2, 5) * d) / (sp.Rational(7, 5) * d)


def xpos_scale(x: sp.Expr, zetas: Sequence[sp.Expr], *, gamma: sp.Expr = XPOS_GAMMA,
               layout: str = "split") -> sp.ImmutableMatrix:
    r"""The diagonal xPos scaling :math:`\operatorname{diag}(\zeta_i^{x/\gamma})` on both slots
    of every pair. Queries use :math:`x = m - c`, keys :math:`x = -(n - c)`.

    >>> z = sp.Symbol("zeta", positive=True)
    >>> xpos_scale(sp.Symbol("x"), (z,), gamma=1)
    Matrix([
    [zeta**x,       0],
    [      0, zeta**x]])
    """
    layout = check_layout(layout)
    d = 2 * len(zetas)
    out = sp.zeros(d, d)
    for p, z in enumerate(zetas):
        for slot in pair_slots(p, d, layout):
            out[slot, slot] = _e(z) ** (_e(x) / _e(gamma))
    return sp.ImmutableMatrix(out)


def partial_layout_permutation(head_dim: int, rotary_dim: int) -> sp.ImmutableMatrix:
    r"""The permutation :math:`P` that sends the interleaved pairing of the first
    ``rotary_dim`` channels to the half-split one (slot :math:`2i \to i`,
    :math:`2i+1 \to i + r/2`) and fixes the pass-through channels.

    Applied to the rows of the q and k projections (per head) it turns a GPT-J / Meta-style
    checkpoint into a GPT-NeoX / HF-style one, which is what HF's Llama conversion script does.

    >>> partial_layout_permutation(6, 4)[:4, :4] * sp.Matrix([0, 1, 2, 3])
    Matrix([
    [0],
    [2],
    [1],
    [3]])
    """
    head_dim = check_d(head_dim, name="head_dim")
    r = check_d(rotary_dim, name="rotary_dim")
    if r > head_dim:
        raise ValueError(f"rotary_dim={rotary_dim!r} must be <= head_dim={head_dim}")
    out = sp.zeros(head_dim, head_dim)
    for src in range(head_dim):
        dst = (src // 2 + (src % 2) * r // 2) if src < r else src
        out[dst, src] = 1
    return sp.ImmutableMatrix(out)

