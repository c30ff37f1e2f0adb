r"""Which research encodings are relative: each paper's encoding decided by the kernel.

Every entry states :math:`R_q(m)^{\mathsf T} R_k(n) = R_q(0)^{\mathsf T} R_k(n - m)` (scores depend on
:math:`n - m` only; :mod:`pe_symbolic.theorems.relative`) for one paper's construction, and is
registered with the verdict the paper leads one to expect:

==============================  ==========  ==================================================
theorem                         expected    encoding
==============================  ==========  ==================================================
``relative.rope_family``        proved      RoPE with any frequencies (every HF ``rope_type``)
``relative.mrope``              proved      M-RoPE / axial RoPE: pair ``i`` reads axis ``a(i)``
``relative.string``             proved      STRING: :math:`P\,\mathrm{RoPE}(r)\,P^{\mathsf T}`, ``P`` orthogonal
``relative.comrope``            proved      ComRoPE: commuting skew generators (their exponential)
``relative.pope``               proved      PoPE: phases :math:`m\theta`, key phase bias :math:`\delta`
``relative.vrope``              proved      VRoPE: each pair a fixed linear mix of :math:`(t, w, h)`
``relative.liere``              refuted     LieRE: non-commuting skew generators
``relative.fope``               refuted     FoPE: cos/sin replaced by Fourier mixtures
``relative.path_one_factor``    refuted     PaTH with one Householder factor per token
``relative.circle_rope_axial``  refuted     Circle-RoPE's circle projection under axial RoPE
``fope.padding``                proved      FoPE's padding of sin and cos with 1 doubles a
                                            padded pair's score; padding sin with 0 keeps it
==============================  ==========  ==================================================

The same encodings are decided by :func:`pe_symbolic.theorems.relative.is_relative`, which
the tests check gives each registered verdict.

>>> from pe_symbolic import theorems
>>> theorems.get("relative.pope").prove().verdict
'proved'
"""

from __future__ import annotations

import sympy as sp

from ...proof import Claim, Equation
from ..registry import theorem
from ..relative import FrequencyMap, Generators, PositionMap, positions

__all__ = ["ENCODINGS", "EXPECT", "IDS", "cayley", "fope_pair", "householder", "path_transport", "table"]

IDS = ("relative.rope_family", "relative.mrope", "relative.string", "relative.comrope", "relative.pope",
       "relative.vrope", "relative.liere", "relative.fope", "relative.path_one_factor",
       "relative.circle_rope_axial", "fope.padding")
EXPECT = {"relative.liere": "refuted", "relative.fope": "refuted", "relative.path_one_factor": "refuted",
          "relative.circle_rope_axial": "refuted"}

SRC_ROFORMER = "Su et al. (2021), RoFormer (arXiv:2104.09864), section 3.4"
SRC_MROPE = "Wang et al. (2024), Qwen2-VL (arXiv:2409.12191), section 2.1 (M-RoPE)"
SRC_STRING = ("Schenck et al. (2025), 'Learning the RoPEs: Better 2D and 3D Position Encodings with STRING' "
              "(arXiv:2502.02562): R(r) = P RoPE(r) P^T with P orthogonal")
SRC_COMROPE = ("Yu et al. (2025), 'ComRoPE: Scalable and Robust Rotary Position Embedding Parameterized by "
               "Trainable Commuting Angle Matrices' (arXiv:2506.03737)")
SRC_POPE = ("Gopalakrishnan, Csordas, Schmidhuber, Mozer (2025), 'Decoupling the What and Where With Polar "
            "Coordinate Positional Embeddings' (PoPE, arXiv:2509.10534)")
SRC_VROPE = "Liu et al. (2025), 'VRoPE: Rotary Position Embedding for Video Large Language Models' (arXiv:2502.11664)"
SRC_LIERE = ("Ostmeier et al. (2024), 'LieRE: Generalizing Rotary Position Encodings' (arXiv:2406.10322): "
             "R(x) = exp(sum_k x_k A_k) with learned skew A_k")
SRC_FOPE = ("Hua et al. (2024), 'Fourier Position Embedding: Enhancing Attention's Periodic Extension for Length "
            "Generalization' (FoPE, arXiv:2412.17739); SGLang rope_variant.py FourierRotaryEmbedding")
SRC_PATH = ("Yang et al. (2025), 'PaTH Attention: Position Encoding via Accumulating Householder Transformations' "
            "(arXiv:2505.16381)")
SRC_CIRCLE = ("Wang et al. (2025), 'Circle-RoPE: Cone-like Decoupled Rotary Positional Embedding for Large "
              "Vision-Language Models' (arXiv:2505.16416), circle image-token index projection")


def cayley(skew: sp.Matrix) -> sp.Matrix:
    r"""The Cayley transform :math:`(I - S)(I + S)^{-1}`: a rational orthogonal matrix for a
    rational skew :math:`S` (STRING's learned :math:`P`, parametrised the way its paper does).

    >>> P = cayley(sp.Matrix([[0, 1], [-1, 0]]))
    >>> sp.simplify(P.T * P)
    Matrix([
    [1, 0],
    [0, 1]])
    """
    eye = sp.eye(skew.shape[0])
    return sp.simplify((eye - skew) * (eye + skew).inv())


_S4 = sp.Matrix([[0, 1, 2, 0], [-1, 0, 1, 3], [-2, -1, 0, 1], [0, -3, -1, 0]]) / 4
_P4 = cayley(_S4)
_J = sp.Matrix([[0, -1], [1, 0]])


def _rot2(a: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])


def fope_pair(p: sp.Expr, thetas: tuple[sp.Expr, sp.Expr], cos_coef: tuple[sp.Expr, sp.Expr],
              sin_coef: tuple[sp.Expr, sp.Expr]) -> sp.Matrix:
    r"""One FoPE output pair at position ``p``: cos and sin replaced by
    :math:`c(p) = \sum_j C_j \cos(p\theta_j)`, :math:`s(p) = \sum_j S_j \sin(p\theta_j)`
    (SGLang's ``FourierRotaryEmbedding``: ``einsum("tD, Dd -> td", pos_cos, cos_coef)``).

    >>> m = sp.Symbol("m")
    >>> fope_pair(m, (1, 2), (1, 0), (1, 0))[1, 0]
    sin(m)
    """
    c = sum((cc * sp.cos(p * th) for cc, th in zip(cos_coef, thetas)), sp.Integer(0))
    s = sum((sc * sp.sin(p * th) for sc, th in zip(sin_coef, thetas)), sp.Integer(0))
    return sp.Matrix([[c, -s], [s, c]])


def householder(w: sp.Matrix) -> sp.Matrix:
    """``I - 2 w w^T / (w^T w)``, the reflection PaTH accumulates (``beta = 2``).

    >>> householder(sp.Matrix([1, 0]))
    Matrix([
    [-1, 0],
    [ 0, 1]])
    """
    w = sp.Matrix(w)
    return sp.eye(w.shape[0]) - 2 * w * w.T / (w.T * w)[0, 0]


#: PaTH's per-token vectors for the refutation (tokens 1, 2, 3).
PATH_TOKENS = (sp.Matrix([1, 0]), sp.Matrix([1, 1]), sp.Matrix([0, 1]))


def path_transport(p: int) -> sp.Matrix:
    """PaTH's position map at token ``p``: :math:`(H_p \\cdots H_1)^{\\mathsf T}` (so that
    :math:`R(m)^{\\mathsf T} R(n)` is the product of the factors between the two tokens)."""
    out = sp.eye(2)
    for t in range(1, int(p) + 1):
        out = householder(PATH_TOKENS[(t - 1) % len(PATH_TOKENS)]) * out
    return out.T


_TH = sp.symbols("theta_0:3", positive=True)
_DELTA = sp.Symbol("delta", real=True)
_FOPE_TH = (sp.Integer(1), sp.Rational(1, 3))
_FOPE_C = (sp.Integer(1), sp.Rational(1, 10))
_FOPE_S = (sp.Integer(1), sp.Rational(-1, 10))


def _circle(p: tuple) -> tuple[sp.Expr, sp.Expr]:
    """Circle-RoPE's projection of a centred grid point onto the circle of radius 1 through
    its angle (the spatial-origin angle of the paper's mixed-angle mapping, weight 1)."""
    x, y = (sp.sympify(v) for v in p)
    r = sp.sqrt(x**2 + y**2)
    return x / r, y / r


#: name -> the encoding :func:`~pe_symbolic.theorems.relative.is_relative` decides.
ENCODINGS = {
    "relative.rope_family": FrequencyMap(_TH, name="RoPE, any frequencies"),
    "relative.mrope": FrequencyMap(_TH, axes=(0, 1, 2), name="M-RoPE (t, h, w)"),
    "relative.string": PositionMap(lambda p: _P4 * sp.diag(_rot2(_TH[0] * p[0]), _rot2(_TH[1] * p[1])) * _P4.T,
                                   dims=2, name="STRING"),
    "relative.comrope": Generators([_P4 * sp.diag(_J, sp.zeros(2)) * _P4.T, _P4 * sp.diag(sp.zeros(2), 2 * _J) * _P4.T],
                                   name="ComRoPE"),
    "relative.pope": PositionMap(lambda p: _rot2(_TH[0] * p[0]), key=lambda p: _rot2(_TH[0] * p[0] + _DELTA),
                                 name="PoPE"),
    "relative.vrope": FrequencyMap(_TH, coefficients=((1, 0, 0), (0, 1, 1), (0, 1, -1)), name="VRoPE"),
    "relative.liere": Generators([sp.Matrix([[0, 0, 0], [0, 0, -1], [0, 1, 0]]),
                                  sp.Matrix([[0, 0, 1], [0, 0, 0], [-1, 0, 0]])], name="LieRE"),
    "relative.fope": PositionMap(lambda p: fope_pair(p[0], _FOPE_TH, _FOPE_C, _FOPE_S), name="FoPE"),
    "relative.path_one_factor": PositionMap(lambda p: path_transport(p[0]), positions=[(0,), (1,), (2,), (3,)],
                                            name="PaTH, one factor per token"),
    "relative.circle_rope_axial": PositionMap(
        lambda p: sp.diag(*(_rot2(t * x) for t, x in zip(_TH[:2], _circle(p)))), dims=2,
        positions=[(1, 0), (2, 0), (0, 1), (1, 1)], name="Circle-RoPE under axial RoPE"),
}


def _relative_claim(id: str, enc, statement: str, source: str, m=None, n=None) -> Claim:
    from ..relative import _sides

    dims = enc.dims
    m = positions("m", dims) if m is None else m
    n = positions("n", dims) if n is None else n
    lhs, rhs = _sides(enc, m, n)
    return Claim(id, statement, (Equation(sp.ImmutableMatrix(lhs), sp.ImmutableMatrix(rhs),
                                          "R_q(m)^T R_k(n) = R_q(0)^T R_k(n - m)"),), (), source)


_LATEX = r"R_q(m)^{\mathsf T} R_k(n) = R_q(0)^{\mathsf T} R_k(n - m)"


@theorem("relative.rope_family", "RoPE with any frequency vector is relative (is_relative: FrequencyMap)",
         SRC_ROFORMER, concrete=False, latex=_LATEX + r" \qquad R(m) = \bigoplus_i \mathrm{rot2}(m\theta_i)")
def _rope_family(d: int | None) -> Claim:
    return _relative_claim("relative.rope_family", ENCODINGS["relative.rope_family"],
                           "RoPE with three independent frequencies theta_i: R(m)^T R(n) = R(n - m) for every pair of "
                           "integer positions.", SRC_ROFORMER)


@theorem("relative.mrope", "M-RoPE / axial RoPE (pair i reads axis a(i)) is relative in the position vector",
         SRC_MROPE, concrete=False, latex=_LATEX + r" \qquad m, n \in \mathbb{Z}^3")
def _mrope(d: int | None) -> Claim:
    return _relative_claim("relative.mrope", ENCODINGS["relative.mrope"],
                           "M-RoPE with pair i reading axis i of (t, h, w): R(m)^T R(n) = R(n - m) for position "
                           "vectors m, n.", SRC_MROPE)


@theorem("relative.string", "STRING: P RoPE(r) P^T (P orthogonal) is relative in 2-D positions",
         SRC_STRING, concrete=False, latex=_LATEX + r" \qquad R(r) = P\,\mathrm{RoPE}(r)\,P^{\mathsf T}")
def _string(d: int | None) -> Claim:
    return _relative_claim("relative.string", ENCODINGS["relative.string"],
                           "STRING with P the Cayley transform of a rational skew matrix (orthogonal) and axial RoPE "
                           "in 2-D: (P RoPE(m) P^T)^T P RoPE(n) P^T = P RoPE(n - m) P^T.", SRC_STRING)


@theorem("relative.comrope", "ComRoPE: exp(x1 A1 + x2 A2) with commuting skew A1, A2 is relative",
         SRC_COMROPE, concrete=False,
         latex=r"A_1 A_2 = A_2 A_1, \quad \frac{d}{dc} R \big|_{0} = A_k, \quad " + _LATEX)
def _comrope(d: int | None) -> Claim:
    enc = ENCODINGS["relative.comrope"]
    a1, a2 = (sp.Matrix(a) for a in enc.matrices)
    c = sp.Symbol("c", real=True)
    m, n = positions("m", 2), positions("n", 2)

    def closed(p):  # exp(p0 A1 + p1 A2) = P (rot2(p0) (+) rot2(2 p1)) P^T (the generators' blocks)
        return _P4 * sp.diag(_rot2(p[0]), _rot2(2 * p[1])) * _P4.T

    lhs = closed(m).T * closed(n)
    rhs = closed((0, 0)).T * closed((n[0] - m[0], n[1] - m[1]))
    return Claim("relative.comrope",
                 "ComRoPE with commuting skew generators A1 = P (J (+) 0) P^T, A2 = P (0 (+) 2J) P^T: they commute, "
                 "R(x) = P (rot2(x1) (+) rot2(2 x2)) P^T has derivative A1 (A2) in x1 (x2) at 0, and "
                 "R(m)^T R(n) = R(n - m).",
                 (Equation(sp.ImmutableMatrix(a1 * a2 - a2 * a1), sp.ImmutableMatrix(sp.zeros(4)),
                           "the generators commute"),
                  Equation(sp.ImmutableMatrix(sp.diff(closed((c, 0)), c).subs(c, 0)), sp.ImmutableMatrix(a1),
                           "d/dx1 R at 0 is A1"),
                  Equation(sp.ImmutableMatrix(sp.diff(closed((0, c)), c).subs(c, 0)), sp.ImmutableMatrix(a2),
                           "d/dx2 R at 0 is A2"),
                  Equation(sp.ImmutableMatrix(lhs), sp.ImmutableMatrix(rhs), "R(m)^T R(n) = R(n - m)")),
                 (), SRC_COMROPE)


@theorem("relative.pope", "PoPE: query phase m theta, key phase n theta + delta: scores depend on n - m",
         SRC_POPE, concrete=False, latex=_LATEX + r" \qquad R_q(m) = \mathrm{rot2}(m\theta),\ R_k(n) = "
         r"\mathrm{rot2}(n\theta + \delta)")
def _pope(d: int | None) -> Claim:
    return _relative_claim("relative.pope", ENCODINGS["relative.pope"],
                           "PoPE turns the (softplus) magnitude of a query at m by m theta and of a key at n by "
                           "n theta + delta (a learned phase bias): R_q(m)^T R_k(n) = rot2((n - m) theta + delta).",
                           SRC_POPE)


@theorem("relative.vrope", "VRoPE: each pair turns by theta_i times a fixed linear mix of (t, w, h): relative",
         SRC_VROPE, concrete=False, latex=_LATEX + r" \qquad \text{angle}_i = \theta_i\, c_i \cdot (t, w, h)")
def _vrope(d: int | None) -> Claim:
    return _relative_claim("relative.vrope", ENCODINGS["relative.vrope"],
                           "VRoPE's index maps are linear in (t, w, h) (t; w + h; w - h): a homomorphism from "
                           "positions to rotations, so R(m)^T R(n) = R(n - m).", SRC_VROPE)


@theorem("relative.liere", "LieRE: exp of non-commuting skew generators is relative; refuted", SRC_LIERE,
         concrete=False, expect="refuted", latex=_LATEX + r" \qquad m = (1, 0),\ n = (0, 1)")
def _liere(d: int | None) -> Claim:
    enc = ENCODINGS["relative.liere"]
    one, zero = sp.Integer(1), sp.Integer(0)
    return _relative_claim("relative.liere", enc,
                           "LieRE with the generators of rotations about the x and y axes of R^3: at m = (1, 0), "
                           "n = (0, 1), exp(A1)^T exp(A2) = exp(A2 - A1) (false claim, registered to be refuted).",
                           SRC_LIERE, (one, zero), (zero, one))


@theorem("relative.fope", "FoPE: cos/sin replaced by Fourier mixtures is relative; refuted", SRC_FOPE,
         concrete=False, expect="refuted",
         latex=_LATEX + r" \qquad c(p) = \sum_j C_j \cos p\theta_j,\ s(p) = \sum_j S_j \sin p\theta_j")
def _fope(d: int | None) -> Claim:
    return _relative_claim("relative.fope", ENCODINGS["relative.fope"],
                           "One FoPE pair with frequencies (1, 1/3), cos coefficients (1, 1/10) and sin coefficients "
                           "(1, -1/10): [[c, -s], [s, c]](m)^T [[c, -s], [s, c]](n) depends on n - m only (false "
                           "claim, registered to be refuted).", SRC_FOPE)


@theorem("relative.path_one_factor", "PaTH, one Householder factor per token: the one-step transport is the same "
         "everywhere (H_1 = H_2); refuted", SRC_PATH, concrete=False, expect="refuted",
         latex=r"H_1 = H_2, \qquad H_t = I - 2\,\frac{w_t w_t^{\mathsf T}}{w_t^{\mathsf T} w_t}")
def _path(d: int | None) -> Claim:
    h1, h2 = householder(PATH_TOKENS[0]), householder(PATH_TOKENS[1])
    return Claim("relative.path_one_factor",
                 "PaTH multiplies one data-dependent Householder factor per token: the score of positions "
                 "(j, j + 1) carries H_{j+1}. A relative encoding needs H_1 = H_2 (equal offsets, equal transport); "
                 "with tokens w_1 = (1, 0), w_2 = (1, 1) they differ (false claim, registered to be refuted).",
                 (Equation(sp.ImmutableMatrix(h1), sp.ImmutableMatrix(h2), "H_1 = H_2"),), (), SRC_PATH)


@theorem("relative.circle_rope_axial", "Circle-RoPE's circle projection keeps axial RoPE relative in the grid "
         "offset; refuted", SRC_CIRCLE, concrete=False, expect="refuted",
         latex=r"R(g(1,0))^{\mathsf T} R(g(2,0)) = R(g(0,1))^{\mathsf T} R(g(1,1)), \qquad g(x, y) = "
         r"\frac{(x, y)}{\lVert (x, y) \rVert}")
def _circle_claim(d: int | None) -> Claim:
    th = _TH[:2]

    def axial(p):
        x, y = _circle(p)
        return sp.diag(_rot2(th[0] * x), _rot2(th[1] * y))

    lhs = axial((1, 0)).T * axial((2, 0))
    rhs = axial((0, 1)).T * axial((1, 1))
    return Claim("relative.circle_rope_axial",
                 "Circle-RoPE projects a (centred) image-grid point onto a circle by its angle and feeds the circle "
                 "coordinates to axial RoPE. Axial RoPE is relative in the grid offset; the projection keeps that "
                 "only if the score of (1, 0) -> (2, 0) equals that of (0, 1) -> (1, 1) (both offset (1, 0)). "
                 "False claim, registered to be refuted.",
                 (Equation(sp.ImmutableMatrix(lhs), sp.ImmutableMatrix(rhs), "equal offsets, equal scores"),),
                 (), SRC_CIRCLE)


@theorem("fope.padding", "FoPE pads cos and sin with 1: a padded pair's score is doubled; sin padded with 0 keeps it",
         SRC_FOPE, concrete=False,
         latex=(r"\langle B q,\ B k \rangle = 2 \langle q, k \rangle, \quad B = \begin{pmatrix} 1 & -1 \\ 1 & 1 "
                r"\end{pmatrix} \qquad \langle I q,\ I k \rangle = \langle q, k \rangle"))
def _fope_padding(d: int | None) -> Claim:
    q0, q1, k0, k1 = sp.symbols("q_0 q_1 k_0 k_1", real=True)
    q, k = sp.Matrix([q0, q1]), sp.Matrix([k0, k1])
    ones = sp.Matrix([[1, -1], [1, 1]])  # cos = 1, sin = 1 in the rotation [[c, -s], [s, c]]
    keep = sp.Matrix([[1, 0], [0, 1]])  # cos = 1, sin = 0
    return Claim("fope.padding",
                 "SGLang's FourierRotaryEmbedding pads the cos and the sin tables with the value 1 beyond the "
                 "selected frequencies (F.pad(..., value=1)), so a padded pair is multiplied by B = [[1, -1], "
                 "[1, 1]] (cos = sin = 1) for every position: B^T B = 2 I and the pair's score <B q, B k> = "
                 "2 <q, k>, position-free but doubled (the padded channels act as NoPE channels with twice the "
                 "weight). Padding sin with 0 instead gives the identity: the score is <q, k>.",
                 (Equation(sp.ImmutableMatrix(ones.T * ones), sp.ImmutableMatrix(2 * sp.eye(2)), "B^T B = 2 I"),
                  Equation(((ones * q).T * (ones * k))[0, 0], 2 * (q.T * k)[0, 0], "<B q, B k> = 2 <q, k>"),
                  Equation(((keep * q).T * (keep * k))[0, 0], (q.T * k)[0, 0], "sin padded with 0: <q, k>")),
                 (), SRC_FOPE)


def table(*, width: int = 100) -> str:
    """The ``is_relative`` table: every registered encoding, the paper's expected answer, the
    registered theorem's verdict and :func:`~pe_symbolic.theorems.relative.is_relative`'s, with
    its witness or method (runs every check: about a minute).

    >>> print(table())  # doctest: +SKIP
    encoding                    expected  theorem  is_relative   how
    relative.rope_family        proved    proved   relative      kernel, symbolic positions
    ...
    """
    import textwrap

    from ..registry import get
    from ..relative import is_relative

    rows = [("encoding", "expected", "theorem", "is_relative", "how")]
    for id in IDS:
        want = "refuted" if EXPECT.get(id) == "refuted" else "proved"
        got = get(id).prove().verdict
        enc = ENCODINGS.get(id)
        rel = is_relative(enc) if enc is not None else None
        how = "" if rel is None else (str(rel).split(": ", 1)[1] if rel.witness is not None else rel.method)
        rows.append((id, want, got, "-" if rel is None else rel.verdict, how))
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    out = []
    for r in rows:
        head = "  ".join(c.ljust(w) for c, w in zip(r[:4], widths))
        out += textwrap.wrap(f"{head}  {r[4]}", width=width, subsequent_indent=" " * (sum(widths) + 8))
    return "\n".join(out)
