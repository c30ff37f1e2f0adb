r"""Rotary position embeddings R(m) (Su et al., RoFormer, 2021), in both layouts.

RoPE rotates pair ``i`` of a query or key at position ``m`` by the angle
:math:`m\theta_i`, :math:`\theta_i = b^{-2i/d}`:
:math:`R(m) = \operatorname{diag}(\mathop{\mathrm{rot2}}(m\theta_0), \dots)`, the blocks placed by
the layout: ``"interleaved"`` (RoFormer, Meta Llama, GPT-J) or ``"split"`` (GPT-NeoX,
HF Llama's ``rotate_half``). The *efficient form* applies the same map elementwise:
:math:`x \odot \cos + \operatorname{rotate}(x) \odot \sin`.
"""

from __future__ import annotations

import sympy as sp

from . import symbols as S
from .._validate import check_d, check_layout
from .rot2 import block_diagonal, pair_slots, rot2
from .sinusoidal import frequencies
from .symbols import as_expr

__all__ = ["efficient_form", "rope_block", "rope_cos_sin", "rope_matrix", "rotate", "thetas"]


def thetas(d: int, *, base: float | sp.Expr = S.b) -> tuple[sp.Expr, ...]:
    r"""RoPE frequencies :math:`\theta_i = b^{-2i/d}` for ``i = 0 .. d/2 - 1``.

    >>> thetas(4, base=100)
    (1, 1/10)
    """
    return frequencies(d, base=base, schedule="vaswani")


def rope_block(m: sp.Expr, theta: sp.Expr) -> sp.ImmutableMatrix:
    """The rotation ``rot2(m*theta)`` that RoPE applies to one pair.

    >>> from pe_symbolic.encodings.symbols import m, theta
    >>> rope_block(m, theta)[0, 1]
    -sin(m*theta)
    """
    return rot2(as_expr(m, "m") * as_expr(theta, "theta"))


def rope_matrix(
    m: sp.Expr,
    d: int,
    *,
    base: float | sp.Expr = S.b,
    layout: str = "split",
    theta: tuple[sp.Expr, ...] | None = None,
) -> sp.ImmutableMatrix:
    """R(m): the ``d x d`` block-diagonal RoPE matrix for the given layout.

    ``theta`` overrides the frequencies (e.g. independent symbols).

    >>> from pe_symbolic.encodings.symbols import m
    >>> rope_matrix(m, 2)
    Matrix([
    [cos(m), -sin(m)],
    [sin(m),  cos(m)]])
    """
    ths = _thetas(d, base, theta)
    return block_diagonal([rope_block(m, th) for th in ths], layout)


def rotate(x: sp.MatrixBase, layout: str = "split") -> sp.ImmutableMatrix:
    """The companion vector of the efficient form: ``(-x_b, x_a)`` on every pair's slots.

    For ``"split"`` this is HF's ``rotate_half``: ``concat(-x[d/2:], x[:d/2])``.

    >>> from pe_symbolic.encodings.symbols import vector
    >>> rotate(vector("x", 4), "interleaved").T
    Matrix([[-x_1, x_0, -x_3, x_2]])
    >>> rotate(vector("x", 4), "split").T
    Matrix([[-x_2, -x_3, x_0, x_1]])
    """
    d = check_d(x.shape[0], name="len(x)")
    layout = check_layout(layout)
    out = [sp.S.Zero] * d
    for p in range(d // 2):
        a, c = pair_slots(p, d, layout)
        out[a], out[c] = -x[c], x[a]
    return sp.ImmutableMatrix(out)


def rope_cos_sin(
    m: sp.Expr,
    d: int,
    *,
    base: float | sp.Expr = S.b,
    layout: str = "split",
    theta: tuple[sp.Expr, ...] | None = None,
) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
    """The per-slot ``cos`` and ``sin`` columns of the efficient form (each pair's angle twice).

    >>> from pe_symbolic.encodings.symbols import m
    >>> c, s = rope_cos_sin(m, 4, base=100)
    >>> c.T
    Matrix([[cos(m), cos(m/10), cos(m), cos(m/10)]])
    """
    d = check_d(d)
    layout = check_layout(layout)
    ths = _thetas(d, base, theta)
    cos_, sin_ = [sp.S.Zero] * d, [sp.S.Zero] * d
    for p, th in enumerate(ths):
        for slot in pair_slots(p, d, layout):
            cos_[slot], sin_[slot] = sp.cos(m * th), sp.sin(m * th)
    return sp.ImmutableMatrix(cos_), sp.ImmutableMatrix(sin_)


def efficient_form(
    x: sp.MatrixBase,
    m: sp.Expr,
    *,
    base: float | sp.Expr = S.b,
    layout: str = "split",
    theta: tuple[sp.Expr, ...] | None = None,
) -> sp.ImmutableMatrix:
    r"""RoPE applied elementwise: :math:`x \odot \cos(m\theta) + \operatorname{rotate}(x) \odot \sin(m\theta)`.

    >>> from pe_symbolic.encodings.symbols import m, vector
    >>> efficient_form(vector("x", 2), m).T
    Matrix([[x_0*cos(m) - x_1*sin(m), x_0*sin(m) + x_1*cos(m)]])
    """
    d = check_d(x.shape[0], name="len(x)")
    c, s = rope_cos_sin(m, d, base=base, layout=layout, theta=theta)
    return sp.ImmutableMatrix(x.multiply_elementwise(c) + rotate(x, layout).multiply_elementwise(s))


def _thetas(d: int, base, theta) -> tuple[sp.Expr, ...]:
    d = check_d(d)
    if theta is None:
        return thetas(d, base=base)
    if len(theta) != d // 2:
        raise ValueError(f"theta has {len(theta)} entries; d={d} needs d/2 = {d // 2}")
    return tuple(as_expr(th, "theta") for th in theta)
