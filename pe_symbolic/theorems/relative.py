r"""Is a position encoding relative? A proof, or a refuting :math:`(m, n, m', n')`.

An encoding turns a query at position :math:`m` by :math:`R_q(m)` and a key at position
:math:`n` by :math:`R_k(n)` (square matrices; positions may be vectors, as for images and
video). Its scores :math:`q^{\mathsf T} R_q(m)^{\mathsf T} R_k(n)\, k` depend on the positions only
through :math:`n - m` for every :math:`q, k` exactly when

.. math:: R_q(m)^{\mathsf T} R_k(n) = R_q(m')^{\mathsf T} R_k(n') \quad\text{whenever}\quad n - m = n' - m',

equivalently :math:`R_q(m)^{\mathsf T} R_k(n) = R_q(0)^{\mathsf T} R_k(n - m)` for all :math:`m, n`
(take :math:`m' = 0`; the converse applies it twice). :func:`~pe_symbolic.is_relative` asks the proof
kernel that equation with symbolic integer positions: ``proved`` covers every position;
``refuted`` comes with a point certified by disjoint interval enclosures, returned as the
witness :math:`(m, n, m', n') = (m, n, 0, n - m)` whose two sides differ.

An encoding is given as one of

* :class:`FrequencyMap` -- pair ``i`` turns by :math:`\theta_i\, p_{a(i)}` (1-D RoPE, its
  scalings, M-RoPE, axial 2-D RoPE, VRoPE's mixed axes through ``coefficients``);
* :class:`Generators` -- :math:`R(x) = \exp(\sum_k x_k A_k)` (LieRE, ComRoPE, STRING's
  :math:`P\,\mathrm{RoPE}\,P^{\mathsf T}`): unit-vector witnesses are tried first (exact
  exponentials of numeric matrices), then the symbolic exponential;
* :class:`PositionMap` -- any map from positions to matrices (``key`` for a separate key
  map, as in PoPE's phase bias); ``positions`` restricts it to a finite range searched for
  a witness (PaTH's product of per-token factors), which can refute but never prove.

Soundness first: an encoding relative only on a subset of its positions (two commuting
generators out of three) is refuted by the kernel, never reported relative; a witness is
only reported when the kernel certified it.

>>> import sympy as sp
>>> th = sp.symbols("theta_0 theta_1", positive=True)
>>> is_relative(FrequencyMap(th)).verdict
'relative'
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ..proof import Proof, check_identity

__all__ = ["FrequencyMap", "Generators", "PositionMap", "Relativity", "exp_scaled", "is_relative", "positions"]


def positions(name: str, dims: int) -> tuple[sp.Symbol, ...]:
    """``dims`` integer position symbols ``name_0, ...`` (one when ``dims == 1``: ``name``).

    >>> positions("m", 2)
    (m_0, m_1)
    """
    if dims == 1:
        return (sp.Symbol(name, integer=True),)
    return tuple(sp.Symbol(f"{name}_{k}", integer=True) for k in range(dims))


def _rot2(angle: sp.Expr) -> sp.Matrix:
    c, s = sp.cos(angle), sp.sin(angle)
    return sp.Matrix([[c, -s], [s, c]])


@dataclass(frozen=True)
class FrequencyMap:
    r"""Block rotations: pair ``i`` turns by :math:`\theta_i \sum_k c_{ik} p_k`.

    ``axes`` (pair ``i`` reads coordinate ``axes[i]``) or ``coefficients`` (a row of
    :math:`c_{ik}` per pair) say how a vector position feeds each pair; neither: 1-D.
    """

    thetas: Sequence[sp.Expr]
    axes: Sequence[int] | None = None
    coefficients: Sequence[Sequence[sp.Expr]] | None = None
    name: str = "frequency map"

    @property
    def dims(self) -> int:
        if self.coefficients is not None:
            return len(self.coefficients[0])
        return 1 if self.axes is None else max(self.axes) + 1

    def matrix(self, p: Sequence[sp.Expr]) -> sp.Matrix:
        blocks = []
        for i, th in enumerate(self.thetas):
            if self.coefficients is not None:
                arg = sum((sp.sympify(c) * x for c, x in zip(self.coefficients[i], p)), sp.Integer(0))
            else:
                arg = p[0 if self.axes is None else self.axes[i]]
            blocks.append(_rot2(sp.sympify(th) * arg))
        return sp.diag(*blocks)


@dataclass(frozen=True)
class Generators:
    r""":math:`R(x) = \exp(\sum_k x_k A_k)` for square generator matrices :math:`A_k`."""

    matrices: Sequence[sp.Matrix]
    name: str = "generators"

    @property
    def dims(self) -> int:
        return len(self.matrices)

    def exponent(self, p: Sequence[sp.Expr]) -> sp.Matrix:
        return sum((sp.sympify(x) * sp.Matrix(a) for x, a in zip(p, self.matrices)),
                   sp.zeros(*sp.Matrix(self.matrices[0]).shape))

    def matrix(self, p: Sequence[sp.Expr]) -> sp.Matrix:
        r""":math:`\exp(\sum_k p_k A_k)` for numeric ``p`` (SymPy's exact exponential); for
        symbolic ``p``, the product :math:`\prod_k \exp(p_k A_k)` of :func:`exp_scaled` factors,
        which equals it when the generators commute (:func:`~pe_symbolic.is_relative` checks that first)."""
        if all(sp.sympify(x).is_number for x in p):
            out = self.exponent(p).exp()
            return out.applyfunc(lambda e: sp.simplify(e.rewrite(sp.cos)) if e.has(sp.I) else e)
        out = sp.eye(sp.Matrix(self.matrices[0]).shape[0])
        for x, a in zip(p, self.matrices):
            out = out * exp_scaled(sp.Matrix(a), x)
        return out


def exp_scaled(a: sp.Matrix, x: sp.Expr) -> sp.Matrix:
    r""":math:`\exp(x A)` for a real diagonalizable :math:`A` with exact eigenvalues and a real
    symbol :math:`x`, by Sylvester's formula :math:`\sum_\lambda e^{\lambda x}
    \prod_{\mu \ne \lambda} (A - \mu I)/(\lambda - \mu)`, written with cos and sin (the
    imaginary parts of conjugate eigenvalues cancel in the expansion).

    >>> x = sp.Symbol("x", real=True)
    >>> exp_scaled(sp.Matrix([[0, -1], [1, 0]]), x)
    Matrix([
    [cos(x), -sin(x)],
    [sin(x),  cos(x)]])
    """
    return _exp_scaled(sp.ImmutableMatrix(a)).xreplace({_T: x})


_T = sp.Symbol("t_exp", real=True)


@functools.lru_cache(maxsize=64)
def _exp_scaled(a: sp.ImmutableMatrix) -> sp.Matrix:
    x = _T
    a = sp.Matrix(a)
    size = a.shape[0]
    eig = list(a.eigenvals())
    if sum(a.eigenvals().values()) != size or not a.is_diagonalizable():
        raise ValueError("exp_scaled needs a diagonalizable matrix with exact eigenvalues")
    out = sp.zeros(size)
    for lam in eig:
        cov = sp.eye(size)
        for mu in eig:
            if mu != lam:
                cov = cov * (a - mu * sp.eye(size)) / (lam - mu)
        re_, im_ = sp.re(lam), sp.im(lam)
        phase = sp.exp(re_ * x) * (sp.cos(im_ * x) + sp.I * sp.sin(im_ * x))
        out += (phase * cov).applyfunc(sp.expand)
    out = out.applyfunc(lambda e: sp.simplify(sp.expand(e)))
    if any(e.has(sp.I) for e in out):
        raise ValueError("exp_scaled: the imaginary parts did not cancel (a complex matrix?)")
    return out


@dataclass(frozen=True)
class PositionMap:
    """Any map ``fn(p) -> Matrix`` from a position (a tuple of ``dims`` entries) to a matrix.

    ``key`` maps key positions when they differ from query positions (default ``fn``);
    ``positions`` (an iterable of concrete positions, each a tuple) makes the search finite:
    witnesses are looked for among them, and nothing is proved.
    """

    fn: Callable[[Sequence[sp.Expr]], sp.Matrix]
    dims: int = 1
    key: Callable[[Sequence[sp.Expr]], sp.Matrix] | None = None
    positions: Sequence[Sequence[int]] | None = None
    name: str = "position map"

    def matrix(self, p: Sequence[sp.Expr]) -> sp.Matrix:
        return sp.Matrix(self.fn(tuple(p)))

    def key_matrix(self, p: Sequence[sp.Expr]) -> sp.Matrix:
        return sp.Matrix((self.key or self.fn)(tuple(p)))


@dataclass(frozen=True)
class Relativity:
    """What :func:`~pe_symbolic.is_relative` found.

    ``verdict`` is ``"relative"`` (proved), ``"not relative"`` (refuted: ``witness`` is
    ``(m, n, m', n')`` with ``n - m == n' - m'`` and the two score matrices certified
    different) or ``"undecided"`` (``reason`` says why).
    """

    verdict: str
    proof: Proof | None
    witness: tuple[tuple[sp.Expr, ...], ...] | None = None
    reason: str = ""
    method: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        out = f"{self.verdict} ({self.method})"
        if self.witness is not None:
            m, n, m2, n2 = self.witness
            out += f": R_q(m)^T R_k(n) != R_q(m')^T R_k(n') at m = {_p(m)}, n = {_p(n)}, m' = {_p(m2)}, n' = {_p(n2)}"
        elif self.reason:
            out += f": {self.reason}"
        return out


def _p(p: Sequence[sp.Expr]) -> str:
    return sp.sstr(p[0]) if len(p) == 1 else "(" + ", ".join(sp.sstr(x) for x in p) + ")"


def _sides(enc: Any, m: Sequence[sp.Expr], n: Sequence[sp.Expr]) -> tuple[sp.Matrix, sp.Matrix]:
    key = enc.key_matrix if isinstance(enc, PositionMap) else enc.matrix
    zero = tuple(sp.Integer(0) for _ in m)
    diff = tuple(b - a for a, b in zip(m, n))
    lhs = enc.matrix(m).T * key(n)
    rhs = enc.matrix(zero).T * key(diff)
    return lhs, rhs


def _witness(enc: Any, m, n, proof: Proof, method: str) -> Relativity:
    zero = tuple(sp.Integer(0) for _ in m)
    return Relativity("not relative", proof, (tuple(m), tuple(n), zero, tuple(b - a for a, b in zip(m, n))),
                      method=method)


def _concrete_search(enc: Any, candidates: Sequence[tuple[tuple, tuple]], timeout: float, method: str):
    for m, n in candidates:
        lhs, rhs = _sides(enc, m, n)
        proof = check_identity(lhs, rhs, timeout=timeout, id="relative.witness")
        if proof.verdict == "refuted":
            return _witness(enc, m, n, proof, method)
    return None


def _pair_search(enc: PositionMap, pts: Sequence[tuple], timeout: float) -> Relativity | None:
    """Two pairs of the given positions with equal offsets whose score matrices the kernel
    certifies different (no position needs to be 0, so maps undefined there are fine)."""
    by_offset: dict[tuple, list[tuple[tuple, tuple]]] = {}
    for a, b in itertools.product(pts, repeat=2):
        by_offset.setdefault(tuple(y - x for x, y in zip(a, b)), []).append((a, b))
    for pairs in by_offset.values():
        (a, b), rest = pairs[0], pairs[1:]
        first = enc.matrix(a).T * enc.key_matrix(b)
        for c, d in rest:
            proof = check_identity(first, enc.matrix(c).T * enc.key_matrix(d), timeout=timeout, id="relative.witness")
            if proof.verdict == "refuted":
                return Relativity("not relative", proof, (a, b, c, d), method=f"search over {len(pts)} positions")
    return None


def _unit_candidates(dims: int) -> list[tuple[tuple, tuple]]:
    units = [tuple(sp.Integer(int(k == j)) for k in range(dims)) for j in range(dims)]
    out = []
    for a, b in itertools.product(units, repeat=2):
        if a != b:
            out.append((a, b))
    out += [(u, tuple(2 * x for x in u)) for u in units]
    return out


def is_relative(encoding: FrequencyMap | Generators | PositionMap, *, timeout: float = 60.0) -> Relativity:
    r"""Decide whether ``encoding``'s scores depend on positions only through :math:`n - m`.

    Parameters
    ----------
    encoding : FrequencyMap, Generators or PositionMap
        The encoding (see the module notes).
    timeout : float, default 60
        Seconds each kernel check may take.

    Returns
    -------
    Relativity
        ``"relative"`` with the kernel's proof of
        :math:`R_q(m)^{\mathsf T} R_k(n) = R_q(0)^{\mathsf T} R_k(n - m)` for symbolic integer
        positions, ``"not relative"`` with a certified witness, or ``"undecided"``.

    Examples
    --------
    >>> import sympy as sp
    >>> J = sp.Matrix([[0, -1], [1, 0]])
    >>> is_relative(Generators([sp.diag(J, sp.zeros(2)), sp.diag(sp.zeros(2), J)])).verdict
    'relative'
    >>> a1 = sp.Matrix([[0, 0, 0], [0, 0, -1], [0, 1, 0]])
    >>> a2 = sp.Matrix([[0, 0, 1], [0, 0, 0], [-1, 0, 0]])
    >>> r = is_relative(Generators([a1, a2]))
    >>> r.verdict, r.witness
    ('not relative', ((1, 0), (0, 1), (0, 0), (-1, 1)))
    """
    if not isinstance(encoding, (FrequencyMap, Generators, PositionMap)):
        raise TypeError(f"encoding={encoding!r} must be a FrequencyMap, Generators or PositionMap")
    dims = encoding.dims
    method = "kernel, symbolic positions"
    if isinstance(encoding, Generators):
        shapes = {sp.Matrix(a).shape for a in encoding.matrices}
        if len(shapes) != 1 or any(r != c for r, c in shapes):
            raise ValueError(f"generators must be square matrices of one shape; got shapes {sorted(shapes)}")
        mats = [sp.Matrix(a) for a in encoding.matrices]
        commute = check_identity(sp.Matrix.vstack(*[a * b - b * a for a in mats for b in mats]),
                                 sp.zeros(len(mats) ** 2 * mats[0].shape[0], mats[0].shape[1]), timeout=timeout,
                                 id="relative.commute")
        if commute.verdict != "proved":
            found = _concrete_search(encoding, _unit_candidates(dims), timeout,
                                     "exact exponentials at unit positions")
            if found is not None:
                return found
            return Relativity("undecided", commute, reason="the generators do not commute and no unit-position "
                              "witness was found", method="generators")
        method = ("kernel: the generators commute (checked), so exp(sum x_k A_k) = prod exp(x_k A_k) "
                  "(exp(A + B) = exp(A) exp(B) for commuting A, B, cited); that product's relativity proved")
    if isinstance(encoding, PositionMap) and encoding.positions is not None:
        pts = [tuple(sp.Integer(x) for x in (p if isinstance(p, (tuple, list)) else (p,))) for p in encoding.positions]
        found = _pair_search(encoding, pts, timeout)
        if found is not None:
            return found
        return Relativity("undecided", None, reason=f"no witness among {len(pts)} positions; a finite search "
                          "proves nothing", method="finite search")
    m, n = positions("m", dims), positions("n", dims)
    if isinstance(encoding, Generators):  # real positions for the exponentials' closed forms
        m = tuple(sp.Symbol(str(v), integer=True) for v in m)
    try:
        lhs, rhs = _sides(encoding, m, n)
    except (NotImplementedError, ValueError) as exc:
        return Relativity("undecided", None, reason=f"the matrix could not be formed symbolically: {exc}",
                          method="symbolic")
    proof = check_identity(lhs, rhs, timeout=timeout, id="relative.homomorphism")
    if proof.verdict == "proved":
        return Relativity("relative", proof, method=method)
    if proof.verdict == "refuted":
        vals = {str(k): v for k, v in (proof.counterexample or {}).items()}
        try:
            mm = tuple(sp.Integer(vals[str(s)]) for s in m)
            nn = tuple(sp.Integer(vals[str(s)]) for s in n)
        except (KeyError, TypeError, ValueError):
            return Relativity("not relative", proof, reason="refuted at the kernel's point", method=method)
        return _witness(encoding, mm, nn, proof, method)
    notes = "; ".join(getattr(proof, "notes", ()) or ()) or "the kernel decided nothing"
    return Relativity("undecided", proof, reason=notes, method=method)
