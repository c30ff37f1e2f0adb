"""The one primitive: the 2x2 rotation ``rot2(theta)``, and block-diagonal placement.

T(k) (the translation matrix) and R(m) (RoPE) are block-diagonal matrices of ``rot2``
blocks; a *layout* decides which two slots of a ``d``-vector each block acts on.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from .._validate import check_d, check_layout
from .symbols import as_expr

__all__ = ["block_diagonal", "pair_slots", "rot2"]


def rot2(angle: sp.Expr) -> sp.ImmutableMatrix:
    r"""The counter-clockwise rotation by ``angle``.

    .. math:: \mathop{\mathrm{rot2}}(\theta) = \begin{pmatrix}\cos\theta & -\sin\theta\\
              \sin\theta & \cos\theta\end{pmatrix}

    >>> from pe_symbolic.encodings.symbols import theta
    >>> rot2(theta)
    Matrix([
    [cos(theta), -sin(theta)],
    [sin(theta),  cos(theta)]])
    """
    angle = as_expr(angle, "angle")
    c, s = sp.cos(angle), sp.sin(angle)
    return sp.ImmutableMatrix([[c, -s], [s, c]])


def pair_slots(pair: int, d: int, layout: str) -> tuple[int, int]:
    """The two slots that pair ``pair`` occupies in a ``d``-vector.

    ``"interleaved"`` -> ``(2i, 2i+1)``; ``"split"`` -> ``(i, i + d/2)``.

    >>> pair_slots(1, 8, "interleaved"), pair_slots(1, 8, "split")
    ((2, 3), (1, 5))
    """
    d = check_d(d)
    layout = check_layout(layout)
    if not 0 <= pair < d // 2:
        raise ValueError(f"pair={pair!r} must satisfy 0 <= pair < d/2 = {d // 2}")
    if layout == "interleaved":
        return 2 * pair, 2 * pair + 1
    return pair, pair + d // 2


def block_diagonal(blocks: Sequence[sp.MatrixBase], layout: str) -> sp.ImmutableMatrix:
    """Place 2x2 ``blocks`` (block ``i`` acting on pair ``i``) into a ``d x d`` matrix.

    >>> from pe_symbolic.encodings.symbols import theta
    >>> block_diagonal([rot2(theta), rot2(0)], "split")
    Matrix([
    [cos(theta), 0, -sin(theta), 0],
    [         0, 1,           0, 0],
    [sin(theta), 0,  cos(theta), 0],
    [         0, 0,           0, 1]])
    """
    layout = check_layout(layout)
    d = 2 * len(blocks)
    out = sp.zeros(d, d)
    for pair, block in enumerate(blocks):
        if block.shape != (2, 2):
            raise ValueError(f"blocks[{pair}] has shape {block.shape}; 2x2 blocks are required")
        a, c = pair_slots(pair, d, layout)
        slots = (a, c)
        for r in range(2):
            for col in range(2):
                out[slots[r], slots[col]] = block[r, col]
    return sp.ImmutableMatrix(out)
