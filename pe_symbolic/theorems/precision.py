r"""Why a RoPE / sinusoidal table is wrong in low precision: the angle error bound, proved.

The standard model of floating-point arithmetic (Higham, *Accuracy and Stability of
Numerical Algorithms*, 2nd ed., section 2.2): a rounding to a format of unit roundoff
:math:`u` multiplies the exact value by :math:`1 + \delta` with :math:`|\delta| \le u`
(no underflow or overflow). A recipe forms the angle of pair ``i`` at position ``t`` as

.. math:: \hat a = t(1+\delta_p)\,\theta_i(1+\delta_\theta)\,(1+\delta_m)\,(1+\delta_c)

(position held in its dtype, the inverse frequency as computed, the product rounded, the
angle cast to the dtype of ``cos`` / ``sin``), and llama.cpp's running product multiplies
by :math:`\hat s = s(1+\varepsilon_s)` once per pair, each product rounded.

**How an inequality is stated here.** The engine proves equations. A real
:math:`\delta` with :math:`|\delta| \le u` is written :math:`\delta = a - b`,
:math:`u = a + b + s` with *nonnegative* symbols :math:`a, b, s` (every such pair arises:
:math:`a = \max(\delta, 0)`, :math:`b = \max(-\delta, 0)`, :math:`s = u - |\delta|`), and
":math:`y \ge 0`" is the equation :math:`|y| = y`, which SymPy decides from the symbols'
signs once :math:`y` is expanded into monomials with nonnegative coefficients. So
:math:`|D| \le \Gamma` is the pair :math:`|\Gamma - D| = \Gamma - D` and
:math:`|\Gamma + D| = \Gamma + D`. Nothing numeric is involved.

>>> from pe_symbolic import theorems
>>> theorems.get("precision.angle").prove().verdict
'proved'
"""

from __future__ import annotations

import sympy as sp

from ..proof import Claim, Equation
from ._derive import at
from .registry import theorem

__all__ = ["IDS"]

IDS = ("precision.compose", "precision.angle", "precision.running_product")

SRC = ("Higham (2002), Accuracy and Stability of Numerical Algorithms, 2nd ed., section 2.2 "
       "(standard model) and lemma 3.1; pe_symbolic issue 12")


def _rounding(name: str) -> tuple[sp.Expr, sp.Expr]:
    """``(delta, u)`` for a rounding error ``|delta| <= u``: ``(a - b, a + b + s)``."""
    a = sp.Symbol(f"a_{name}", nonnegative=True)
    b = sp.Symbol(f"b_{name}", nonnegative=True)
    s = sp.Symbol(f"s_{name}", nonnegative=True)
    return a - b, a + b + s


def _nonneg(y: sp.Expr, label: str) -> Equation:
    """``y >= 0`` stated as ``|y| = y``."""
    return Equation(sp.Abs(y), y, label)


@theorem("precision.compose",
         "two relative errors compose: |(1+alpha)(1+beta) - 1| <= (1+A)(1+B) - 1 for |alpha| <= A, |beta| <= B",
         SRC, concrete=False,
         latex=(r"\lvert \alpha \rvert \le A,\ \lvert \beta \rvert \le B \implies \bigl\lvert (1 + \alpha)(1 +"
                r" \beta) - 1 \bigr\rvert \le (1 + A)(1 + B) - 1"))
def _compose(d: int | None) -> Claim:
    al, A = _rounding("alpha")
    be, B = _rounding("beta")
    D = (1 + al) * (1 + be) - 1
    G = (1 + A) * (1 + B) - 1
    return Claim(
        "precision.compose",
        "If |alpha| <= A and |beta| <= B then |(1+alpha)(1+beta) - 1| <= (1+A)(1+B) - 1 "
        "(Higham's lemma 3.1 for two factors): a value carrying relative error alpha, rounded or "
        "multiplied by a factor carrying beta, carries at most (1+A)(1+B) - 1. Written with "
        "alpha = a_alpha - b_alpha, A = a_alpha + b_alpha + s_alpha (likewise beta), all six "
        "symbols nonnegative; each inequality y >= 0 as |y| = y.",
        (
            _nonneg(G - D, "(1+A)(1+B) - 1 - ((1+alpha)(1+beta) - 1) >= 0"),
            _nonneg(G + D, "(1+A)(1+B) - 1 + ((1+alpha)(1+beta) - 1) >= 0"),
        ),
        (), SRC,
    )


@theorem("precision.angle",
         "angle of a recipe: |a_hat - t theta| <= ((1+u_p)(1+u_theta)(1+u_m)(1+u_c) - 1)|t theta|"
         " = (u_p + u_theta + u_m + u_c)|t theta| + O(u^2)",
         SRC, concrete=False,
         latex=(r"\hat a = t\theta\,(1 + \delta_p)(1 + \delta_\theta)(1 + \delta_m)(1 + \delta_c), \ \ \lvert"
                r" \delta_\kappa \rvert \le u_\kappa \implies \lvert \hat a - t\theta \rvert \le \Gamma\, \lvert"
                r" t\theta \rvert \\"
                r" \Gamma = (1 + u_p)(1 + u_\theta)(1 + u_m)(1 + u_c) - 1 = u_p + u_\theta + u_m + u_c + O(u^2)"))
def _angle(d: int | None) -> Claim:
    x = sp.Symbol("x", real=True)  # the exact angle t*theta
    roundings = [_rounding(n) for n in ("p", "theta", "m", "c")]
    deltas = [r[0] for r in roundings]
    us = [r[1] for r in roundings]
    factor = sp.Mul(*[1 + dl for dl in deltas])
    a_hat = x * factor
    D = factor - 1
    G = sp.Mul(*[1 + u for u in us]) - 1
    first = sum(deltas)
    second = sp.expand(factor - 1 - first)  # every product of two or more deltas
    u_first = sum(us)
    return Claim(
        "precision.angle",
        "First-order model of a recipe's angle (standard model of floating-point arithmetic): "
        "a_hat = t(1+delta_p) * theta(1+delta_theta) * (1+delta_m) * (1+delta_c), where delta_p is "
        "the rounding of the position into its dtype (0 while t is an exact integer there), "
        "delta_theta the relative error of the inverse frequency as the recipe computes and holds "
        "it, delta_m the rounding of the product t*theta in the angle's dtype and delta_c the cast "
        "of the angle to the dtype of cos/sin (0 if none), each |delta_k| <= u_k. With x = t*theta: "
        "(1) a_hat - x = x(delta_p + delta_theta + delta_m + delta_c) + x*(products of two or more "
        "deltas); (2) a_hat - x = x D, so |a_hat - x| = |x| |D|, with D = (1+delta_p)(1+delta_theta)(1+delta_m)"
        "(1+delta_c) - 1; (3) |D| <= Gamma = (1+u_p)(1+u_theta)(1+u_m)(1+u_c) - 1; (4) Gamma = "
        "u_p + u_theta + u_m + u_c + (products of two or more u's). Hence |a_hat - t theta| <= "
        "Gamma |t theta|, first order (u_p + u_theta + u_m + u_c)|t theta|, and the largest u_k "
        "names the cast that dominates. Each delta_k = a_k - b_k, u_k = a_k + b_k + s_k with "
        "nonnegative a_k, b_k, s_k; y >= 0 is written |y| = y.",
        (
            Equation(a_hat - x, x * first + x * second, "(1) the error, first order and the rest"),
            Equation(a_hat - x, x * D, "(2) a_hat - x = x D, so |a_hat - x| = |x| |D|"),
            _nonneg(G - D, "(3a) Gamma - D >= 0"),
            _nonneg(G + D, "(3b) Gamma + D >= 0, so |D| <= Gamma"),
            Equation(G, u_first + sp.expand(G - u_first), "(4) Gamma = u_p + u_theta + u_m + u_c + O(u^2)"),
        ),
        (), SRC,
    )


@theorem("precision.running_product",
         "running product (llama.cpp): after i products by s(1+eps_s), each rounded, the relative error "
         "is at most (1+u_p)((1+u_s)(1+u))^i - 1 = u_p + i(u_s + u) + O(u^2)",
         SRC, concrete=False,
         latex=(r"\hat\theta_i = p\, s^i\, (1 + \delta_p) \prod_{j=1}^{i} (1 + \varepsilon_s)(1 + \delta_j) \implies"
                r" \Bigl\lvert \frac{\hat\theta_i}{p\, s^i} - 1 \Bigr\rvert \le G_i = (1 + u_p)\bigl((1 + u_s)(1 +"
                r" u)\bigr)^i - 1 \\"
                r" G_0 = u_p, \qquad G_{i+1} = (1 + G_i)(1 + u_s)(1 + u) - 1, \qquad \frac{\partial G_i}{\partial"
                r" u_s}\Big|_{u_p = u_s = u = 0} = i"))
def _running(d: int | None) -> Claim:
    i = sp.Symbol("i", integer=True, nonnegative=True)
    up = sp.Symbol("u_p", nonnegative=True)
    us = sp.Symbol("u_s", nonnegative=True)
    u = sp.Symbol("u", nonnegative=True)
    G = (1 + up) * ((1 + us) * (1 + u)) ** i - 1
    G_next = (1 + up) * ((1 + us) * (1 + u)) ** (i + 1) - 1
    # one step: the relative error g so far, times s's error, times the product's rounding
    al, A = _rounding("run")
    be, B = _rounding("step")
    D_step = (1 + al) * (1 + be) - 1
    G_step = (1 + A) * (1 + B) - 1
    return Claim(
        "precision.running_product",
        "llama.cpp forms pair i's angle as theta_i = p * s * s * ... * s (i float32 products, "
        "s_hat = s(1+eps_s) = fl(b**(-2/d)), |eps_s| <= u_s, each product rounded, |delta_j| <= u, "
        "the position rounded, |delta_p| <= u_p), i.e. p s^i times (1+delta_p) prod_j (1+eps_s)"
        "(1+delta_j). Induction on i: base G_0 = u_p (1); step: if the relative error so far is "
        "within G_i then, by precision.compose applied twice (its inequalities are repeated "
        "here for the step, (3a) and (3b), with the error so far alpha, |alpha| <= A = G_i, and "
        "beta the step's), it is within (1+G_i)(1+u_s)(1+u) - 1, which is G_(i+1) (2). So the "
        "angle of pair i is within G_i = (1+u_p)((1+u_s)(1+u))^i - 1 of p*s^i, relative; its "
        "first-order coefficient of u_s (and of u) is i (4): the error grows linearly with the "
        "pair index, where a direct power has one rounding.",
        (
            Equation(at(G, {i: 0}), up, "(1) base: G_0 = u_p"),
            Equation((1 + G) * (1 + us) * (1 + u) - 1, G_next, "(2) step: (1+G_i)(1+u_s)(1+u) - 1 = G_(i+1)"),
            _nonneg(G_step - D_step, "(3a) one step of precision.compose: (1+A)(1+B) - 1 - D >= 0"),
            _nonneg(G_step + D_step, "(3b) and (1+A)(1+B) - 1 + D >= 0"),
            Equation(sp.diff(G, us).subs({up: 0, us: 0, u: 0}), i, "(4) dG_i/du_s at u = 0 is i"),
        ),
        (), SRC,
    )
