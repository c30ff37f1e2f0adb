"""The one door from proved SymPy expressions to numeric code (``sympy.lambdify``).

Rules (nothing else in the package calls ``lambdify``):

* **Only proved claims are lowered.** :func:`lower` asks the theorem registry for the
  claim's proof and refuses, with a :class:`ValueError` naming the claim id and its
  verdict, anything that is not ``"proved"``. Verdicts are cached per claim id.
* **Element formulas, never matrices of entries.** The expression is a scalar (or a small
  tuple of scalars) in broadcastable arguments; NumPy broadcasting does the rest. A whole
  ``T x d`` symbolic matrix is hopeless to lambdify (35 s for 65k entries, measured).
* ``modules="numpy"`` and ``cse=True`` by default; ``modules="mpmath"`` is allowed for the
  high-precision constants (the double-double frequencies of :mod:`pe_symbolic.numeric`),
  evaluated in a local :func:`mpmath.workdps` context; ``modules="torch"`` and
  ``modules="jax"`` for :mod:`pe_symbolic.torch` and :mod:`pe_symbolic.jax` (the same
  expressions, printed for those frameworks).
* **Printer gaps closed here, for every target but mpmath**: irrational constants
  (``sqrt(2)``, ``log(10)``, ``pi``) are printed as Python float literals (their float64
  values: torch's ``sqrt`` rejects a Python int, and NumPy's ``sqrt(2)`` is a float64 scalar
  that promotes float32 arrays to float64, while a Python float keeps the array's dtype);
  ``KroneckerDelta``, ``Max`` and ``Min`` (torch: against a constant too) are given
  implementations for each framework (``_TARGET_FUNCTIONS``).
* **Cached** (:func:`functools.lru_cache`) per (claim id, expression, arguments, modules);
  nothing is lambdified at import time. Each generated function's ``__doc__`` names its
  claim and expression.
* **Cached on disk**, the named formulas (``phasor_product``, ``rope_product``,
  ``rope_pair``, ``rope_angle_cos_sin``, ``sinusoidal_pair``, the schedule of
  ``frequency_constants``, ``family_formula``) and the verdicts of their claims: a warm
  process neither imports SymPy nor proves anything for them (see
  :mod:`pe_symbolic.numeric._diskcache` for the key, the location and
  ``$PE_SYMBOLIC_CACHE_DIR``).
* **The evaluation form may differ from the proof form** (``proof_form=``): the equality
  of the two is itself checked with :func:`pe_symbolic.check_identity` and must be proved.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import _diskcache

if TYPE_CHECKING:  # SymPy is imported on first lowering, not by a warm numeric call
    import sympy as sp

__all__ = [
    "FAMILY_FORMULAS",
    "NotProvedError",
    "claim_verdict",
    "family_formula",
    "frequency_constants",
    "lower",
    "phasor_product",
    "rope_angle_cos_sin",
    "rope_pair",
    "rope_product",
    "sinusoidal_pair",
]

#: The targets :func:`lower` prints for.
MODULES = ("numpy", "mpmath", "torch", "jax")

#: Claim ids whose proofs gate the numeric core (see :mod:`pe_symbolic.theorems`).
TRANSLATION_CLAIM = "translation.identity"
ROPE_CLAIM = "rope.efficient_form"
SCHEDULE_CLAIM = "schedule.geometric"


class NotProvedError(ValueError):
    """Raised when asked to lower an expression whose claim is not proved."""


@functools.lru_cache(maxsize=None)
def claim_verdict(claim_id: str) -> str:
    """The verdict of the registry's proof of ``claim_id`` (cached per process).

    Raises :class:`LookupError` for an unknown id (from the registry).

    >>> claim_verdict("translation.identity")
    'proved'
    """
    if _diskcache.load_value("verdict", (claim_id,)) == "proved":
        return "proved"
    from .. import theorems

    th = theorems.get(claim_id)
    verdict = str(th.prove().verdict)
    if verdict == "proved":  # only proofs are stored: an undecided run (a budget) is retried
        _diskcache.store_value("verdict", (claim_id,), verdict)
    return verdict


def _require_proved(claim_id: str) -> None:
    verdict = claim_verdict(claim_id)
    if verdict != "proved":
        raise NotProvedError(
            f"claim {claim_id!r} has verdict {verdict!r}; only proved claims are lowered"
        )


def _check_free_symbols(expr: Any, args: tuple[sp.Symbol, ...], claim_id: str) -> None:
    from ..encodings.symbols import as_expr

    free = set()
    for e in expr if isinstance(expr, tuple) else (expr,):
        free |= as_expr(e, "expr").free_symbols
    missing = free - set(args)
    if missing:
        names = ", ".join(sorted(str(s) for s in missing))
        raise ValueError(
            f"lowering for claim {claim_id!r}: symbol(s) {names} of the expression are "
            f"missing from args {tuple(str(a) for a in args)}"
        )


def lower(
    claim_id: str,
    expr: sp.Expr | tuple[sp.Expr, ...],
    args: Sequence[sp.Symbol],
    *,
    modules: str = "numpy",
    proof_form: sp.Expr | tuple[sp.Expr, ...] | None = None,
    meaning: Mapping[sp.Symbol, sp.Expr] | None = None,
) -> Callable[..., Any]:
    """Lambdify ``expr`` (an element formula of the proved claim ``claim_id``).

    Parameters
    ----------
    claim_id : str
        Registry id of the claim the formula comes from; it must be proved.
    expr : sympy.Expr or tuple of sympy.Expr
        The evaluation form (broadcastable scalar formula(s)).
    args : sequence of sympy.Symbol
        Argument order of the generated function; must cover ``expr``'s free symbols.
    modules : {"numpy", "mpmath", "torch", "jax"}
        Target namespace (torch and JAX imported when the function is built).
    proof_form : sympy.Expr or tuple, optional
        The form the claim was proved in, if different: ``expr == proof_form`` (after
        substituting ``meaning``) is proved first with :func:`pe_symbolic.check_identity`,
        and the lowering is refused if that is not proved.
    meaning : mapping, optional
        What each argument stands for in the proof form's terms (e.g. a complex argument
        ``z`` for ``cos(omega*t) + I*sin(omega*t)``).

    Returns
    -------
    callable
        ``f(*args)`` evaluating ``expr``, with NumPy broadcasting. ``f.__doc__`` names the claim and the expression;
        ``f.claim_id`` and ``f.expression`` record them, and ``f.ufunc`` is the NumPy ufunc
        when the whole expression is one binary product of the two arguments (so callers
        can pass ``out=``), else ``None``.

    Raises
    ------
    NotProvedError
        If the claim (or the evaluation/proof-form equality) is not proved.

    Examples
    --------
    >>> import numpy as np
    >>> import sympy as sp
    >>> from pe_symbolic.encodings.symbols import t, omega
    >>> f = lower("translation.identity", sp.sin(omega * t), (t, omega))
    >>> print(f.__doc__.splitlines()[0])
    Lowered from claim 'translation.identity' (modules='numpy').
    >>> f(np.array([0.0, 1.0]), 2.0)
    array([0.        , 0.90929743])
    """
    if modules not in MODULES:
        raise ValueError(f"modules={modules!r} is not allowed; use one of {', '.join(map(repr, MODULES))}")
    args_t = tuple(args)
    if isinstance(expr, list):
        expr = tuple(expr)
    if isinstance(proof_form, list):
        proof_form = tuple(proof_form)
    mean = None if meaning is None else tuple(sorted(meaning.items(), key=lambda kv: str(kv[0])))
    return _lower_cached(claim_id, expr, args_t, modules, proof_form, mean)


def _as_matrix(e):
    import sympy as sp

    return sp.Matrix(e) if isinstance(e, tuple) else e


# ----------------------------------------------------------------------------------------
# the printers' gaps, closed for every target but mpmath


def _kronecker_numpy(i, j):
    import numpy as np

    return np.equal(i, j).astype(np.int8)  # int8: adds to float32 without promoting to float64


def _max_numpy(*a):
    import numpy as np

    return functools.reduce(np.maximum, a)


def _min_numpy(*a):
    import numpy as np

    return functools.reduce(np.minimum, a)


def _torch_pair(a, b):
    """``(a, b)`` with a plain number turned into a tensor like the other operand."""
    import torch

    if isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
        b = torch.as_tensor(b, dtype=a.dtype, device=a.device)
    elif isinstance(b, torch.Tensor) and not isinstance(a, torch.Tensor):
        a = torch.as_tensor(a, dtype=b.dtype, device=b.device)
    return a, b


def _kronecker_torch(i, j):
    import torch

    eq = i == j
    return torch.where(eq, 1, 0) if isinstance(eq, torch.Tensor) else int(bool(eq))


def _max_torch(*a):
    import torch

    def two(u, v):
        if not isinstance(u, torch.Tensor) and not isinstance(v, torch.Tensor):
            return max(u, v)
        return torch.maximum(*_torch_pair(u, v))

    return functools.reduce(two, a)


def _min_torch(*a):
    import torch

    def two(u, v):
        if not isinstance(u, torch.Tensor) and not isinstance(v, torch.Tensor):
            return min(u, v)
        return torch.minimum(*_torch_pair(u, v))

    return functools.reduce(two, a)


def _kronecker_jax(i, j):
    import jax.numpy as jnp

    return jnp.where(jnp.equal(i, j), 1, 0)


def _max_jax(*a):
    import jax.numpy as jnp

    return functools.reduce(jnp.maximum, a)


def _min_jax(*a):
    import jax.numpy as jnp

    return functools.reduce(jnp.minimum, a)


#: SymPy functions that the target's printer has no (working) translation for, and what
#: this module gives them (found while planning: KroneckerDelta in every backend; torch's
#: Max / Min against a plain number).
_TARGET_FUNCTIONS: dict[str, dict[str, Callable[..., Any]]] = {
    "numpy": {"KroneckerDelta": _kronecker_numpy, "Max": _max_numpy, "Min": _min_numpy},
    "torch": {"KroneckerDelta": _kronecker_torch, "Max": _max_torch, "Min": _min_torch},
    "jax": {"KroneckerDelta": _kronecker_jax, "Max": _max_jax, "Min": _min_jax},
}


def _float_constants(expr):
    """``expr`` with every irrational number (``sqrt(2)``, ``log(10)``, ``pi``) replaced by
    its float64 value, so that the printers write a Python float literal."""
    import sympy as sp

    def one(e):
        reps = {}
        for sub in sp.preorder_traversal(e):
            if isinstance(sub, sp.Basic) and sub.is_number and not sub.is_Rational \
                    and not sub.is_Float and sub.free_symbols == set() and sub.is_real:
                reps[sub] = sp.Float(float(sub.evalf(30)), 17)
        return e.xreplace(reps) if reps else e

    return tuple(one(e) for e in expr) if isinstance(expr, tuple) else one(expr)


def _printer_for(modules):
    """The printer ``lambdify`` would pick for ``modules``, made to print the functions of
    :data:`_TARGET_FUNCTIONS` as calls of those names (the stock printers write
    ``KroneckerDelta`` as ``(1 if a == b else 0)`` and ``Max`` as Python's ``max``, which
    fail on arrays)."""
    if modules == "torch":
        from sympy.printing.pytorch import TorchPrinter as Base
    elif modules == "jax":
        from sympy.printing.numpy import JaxPrinter as Base
    else:
        from sympy.printing.numpy import NumPyPrinter as Base

    def call(name):
        return lambda self, e: f"{name}({', '.join(self._print(a) for a in e.args)})"

    printer_cls = type(f"Lowered{Base.__name__}", (Base,), {
        f"_print_{name}": call(name) for name in _TARGET_FUNCTIONS[modules]})
    names = {k: k for k in _TARGET_FUNCTIONS[modules]}
    return printer_cls({"fully_qualified_modules": False, "inline": True,
                        "allow_unknown_functions": True, "user_functions": names})


def _lambdify_for(args, expr, modules):
    import sympy as sp

    if modules == "mpmath":
        return sp.lambdify(args, expr, modules=modules, cse=True, docstring_limit=0)
    if modules in ("torch", "jax"):
        importlib.import_module("jax.numpy" if modules == "jax" else "torch")
    target = [_TARGET_FUNCTIONS[modules], modules]
    return sp.lambdify(args, _float_constants(expr), modules=target, cse=True, docstring_limit=0,
                       printer=_printer_for(modules))


@functools.lru_cache(maxsize=256)
def _lower_cached(claim_id, expr, args, modules, proof_form, meaning):
    _require_proved(claim_id)
    _check_free_symbols(expr, args, claim_id)
    if proof_form is not None:
        from ..proof import check_identity

        lhs = _as_matrix(expr)
        if meaning:
            lhs = lhs.subs(dict(meaning))
        verdict = str(check_identity(lhs, _as_matrix(proof_form)).verdict)
        if verdict != "proved":
            raise NotProvedError(
                f"claim {claim_id!r}: the evaluation form {expr} equals the proof form "
                f"{proof_form} has verdict {verdict!r}; refusing to lower it"
            )
    fn = _lambdify_for(args, expr, modules)
    where = "".join(f"  {k} = {v}\n" for k, v in (meaning or ()))
    fn.__doc__ = (
        f"Lowered from claim {claim_id!r} (modules={modules!r}).\n\n"
        f"Expression: {expr}\nArguments: {', '.join(str(a) for a in args)}\n"
        + (f"where\n{where}" if where else "")
        + (f"Proved equal to the proof form: {proof_form}\n" if proof_form is not None else "")
    )
    fn.claim_id = claim_id  # type: ignore[attr-defined]
    fn.expression = expr  # type: ignore[attr-defined]
    fn.ufunc = _ufunc_of(expr, args, modules)  # type: ignore[attr-defined]
    return fn


def _ufunc_of(expr, args, modules):
    """``numpy.multiply`` if ``expr`` is exactly ``args[0] * args[1]``, else ``None``."""
    import sympy as sp

    if modules != "numpy" or len(args) != 2 or not isinstance(expr, sp.Mul):
        return None
    if sorted(expr.args, key=str) != sorted(args, key=str):
        return None
    import numpy as np

    return np.multiply


# ----------------------------------------------------------------------------------------
# the element formulas of the numeric core (and of the torch / JAX backends)


def _named(name: str, claim_id: str, args: tuple, make: Callable[[], Callable[..., Any]]) -> Callable[..., Any]:
    """A named formula: its claim checked (a cached verdict), then the function from the
    disk cache, else ``make()`` (which lowers it) stored there."""
    _require_proved(claim_id)
    key = (*args, claim_id)
    fn = _diskcache.load(name, key)
    if fn is not None and getattr(fn, "claim_id", None) == claim_id:
        return fn
    return _diskcache.store(name, key, make())


def _check_modules(modules: str) -> str:
    if modules not in MODULES or modules == "mpmath":
        from .._validate import check_choice

        return check_choice("modules", modules, ("numpy", "torch", "jax"))
    return modules


@functools.lru_cache(maxsize=None)
def phasor_product() -> Callable[..., Any]:
    r"""The translation theorem in complex form: ``z0 * zj``.

    With :math:`z_0 = \cos\omega t + i\sin\omega t` and
    :math:`z_j = \cos\omega k + i\sin\omega k`, the product is (proved here)
    :math:`T(k)\,\mathrm{pair}(t)` for the ``cos_sin`` order written as ``first + i*second``,
    which the proved claim ``translation.identity`` equates with :math:`\mathrm{pair}(t+k)`.
    This is the one complex multiply of the angle-addition tables.

    >>> f = phasor_product()
    >>> f.claim_id, f.ufunc.__name__
    ('translation.identity', 'multiply')
    >>> complex(f(1j, 1j))  # e^{i pi/2} e^{i pi/2} = e^{i pi}
    (-1+0j)
    """

    def make():
        import sympy as sp

        from ..encodings import sinusoidal
        from ..encodings.symbols import k, omega, t

        z0, zj = sp.symbols("z_0 z_j")
        moved = sinusoidal.translation_block(k, omega, "cos_sin") * sinusoidal.pair(t, omega, "cos_sin")
        return lower(
            TRANSLATION_CLAIM,
            z0 * zj,
            (z0, zj),
            proof_form=moved[0] + sp.I * moved[1],
            meaning={
                z0: sp.cos(omega * t) + sp.I * sp.sin(omega * t),
                zj: sp.cos(omega * k) + sp.I * sp.sin(omega * k),
            },
        )

    return _named("phasor_product", TRANSLATION_CLAIM, (), make)


@functools.lru_cache(maxsize=None)
def rope_product() -> Callable[..., Any]:
    r"""RoPE on one pair in complex form: ``zx * w``.

    With :math:`z_x = x_a + i x_b` and :math:`w = \cos m\theta + i\sin m\theta`, the product
    is (proved here) ``R(m) (x_a, x_b)`` written as ``first + i*second``: the rotation of the
    proved claim ``rope.efficient_form``. Interleaved RoPE is this multiply on a complex view.

    >>> rope_product().claim_id
    'rope.efficient_form'
    """

    def make():
        import sympy as sp

        from ..encodings import rope
        from ..encodings.symbols import m, theta

        zx, w = sp.symbols("z_x w")
        xa, xb = sp.symbols("x_a x_b", real=True)
        rotated = rope.rope_block(m, theta) * sp.Matrix([xa, xb])
        return lower(
            ROPE_CLAIM,
            zx * w,
            (zx, w),
            proof_form=rotated[0] + sp.I * rotated[1],
            meaning={zx: xa + sp.I * xb, w: sp.cos(m * theta) + sp.I * sp.sin(m * theta)},
        )

    return _named("rope_product", ROPE_CLAIM, (), make)


@functools.lru_cache(maxsize=None)
def rope_pair(modules: str = "numpy") -> Callable[..., Any]:
    r"""RoPE on one pair in real form: ``(x_a c - x_b s, x_a s + x_b c)``.

    The element formula of ``rope.efficient_form`` with :math:`c = \cos m\theta`,
    :math:`s = \sin m\theta` (proved equal to ``rope_block(m, theta) @ (x_a, x_b)``). The
    split-layout kernel of :mod:`pe_symbolic.numeric` evaluates it at full width (halves
    swapped as blocks); its tests check it against this function. ``modules="torch"`` /
    ``"jax"``: the same expression for :mod:`pe_symbolic.torch` / :mod:`pe_symbolic.jax`,
    which rotate with it.

    >>> rope_pair()(1.0, 0.0, 0.0, 1.0)  # (1, 0) rotated by pi/2
    (0.0, 1.0)
    """
    modules = _check_modules(modules)

    def make():
        import sympy as sp

        from ..encodings import rope
        from ..encodings.symbols import m, theta

        xa, xb, c, s = sp.symbols("x_a x_b c s", real=True)
        rotated = rope.rope_block(m, theta) * sp.Matrix([xa, xb])
        return lower(
            ROPE_CLAIM,
            (xa * c - xb * s, xa * s + xb * c),
            (xa, xb, c, s),
            modules=modules,
            proof_form=(rotated[0], rotated[1]),
            meaning={c: sp.cos(m * theta), s: sp.sin(m * theta)},
        )

    return _named("rope_pair", ROPE_CLAIM, (modules,), make)


@functools.lru_cache(maxsize=None)
def rope_angle_cos_sin(modules: str = "numpy") -> Callable[..., Any]:
    r"""RoPE's table entries ``(cos(m*theta), sin(m*theta))``: the ``c`` and ``s`` of
    :func:`rope_pair`, entries of ``rope_block(m, theta)`` of the proved claim
    ``rope.efficient_form``.

    :mod:`pe_symbolic.torch` and :mod:`pe_symbolic.jax` evaluate it on float64 positions
    and frequencies (the angle ``m*theta`` is formed in float64, never in float32), then
    round the values once to the table's dtype.

    >>> c, s = rope_angle_cos_sin()(2.0, 0.5)
    >>> round(float(c), 6), round(float(s), 6)
    (0.540302, 0.841471)
    """
    modules = _check_modules(modules)

    def make():
        from ..encodings import rope
        from ..encodings.symbols import m, theta

        block = rope.rope_block(m, theta)
        return lower(ROPE_CLAIM, (block[0, 0], block[1, 0]), (m, theta), modules=modules)

    return _named("rope_angle_cos_sin", ROPE_CLAIM, (modules,), make)


@functools.lru_cache(maxsize=None)
def sinusoidal_pair(modules: str = "numpy") -> Callable[..., Any]:
    r"""The two entries ``(sin(omega*t), cos(omega*t))`` of pair ``i`` of PE(t)
    (:func:`pe_symbolic.encodings.sinusoidal.pair`, ``sin_cos`` order), the encoding of the
    proved claim ``translation.identity``.

    :mod:`pe_symbolic.torch` and :mod:`pe_symbolic.jax` evaluate it on float64 positions
    and frequencies, then round once to the table's dtype.

    >>> s, c = sinusoidal_pair()(1.0, 0.5)
    >>> round(float(s), 6), round(float(c), 6)
    (0.479426, 0.877583)
    """
    modules = _check_modules(modules)

    def make():
        from ..encodings import sinusoidal
        from ..encodings.symbols import omega, t

        pair = sinusoidal.pair(t, omega, "sin_cos")
        return lower(TRANSLATION_CLAIM, (pair[0], pair[1]), (t, omega), modules=modules)

    return _named("sinusoidal_pair", TRANSLATION_CLAIM, (modules,), make)


@functools.lru_cache(maxsize=128)
def frequency_constants(d: int, base: float, schedule: str, dps: int = 40) -> tuple[Any, ...]:
    """The ``d/2`` frequencies as ``dps``-digit mpmath numbers, lowered from the SymPy schedule.

    The schedule expression is :func:`pe_symbolic.encodings.sinusoidal.frequency` with a symbolic pair
    index ``i`` and base ``b`` (concrete ``d``), lowered with ``modules="mpmath"`` under the
    claim ``schedule.geometric`` (which is about exactly these expressions) and evaluated in
    a local ``workdps(dps)`` context.

    >>> [float(w) for w in frequency_constants(4, 100.0, "vaswani")]
    [1.0, 0.1]
    """
    import mpmath

    def make():
        from ..encodings import sinusoidal
        from ..encodings.symbols import b, i

        expr = sinusoidal.frequency(i, d, base=b, schedule=schedule)
        return lower(SCHEDULE_CLAIM, expr, (i, b), modules="mpmath")

    fn = _named("schedule", SCHEDULE_CLAIM, (d, schedule), make)
    with mpmath.workdps(dps):
        mb = mpmath.mpf(base)
        return tuple(+fn(mpmath.mpf(p), mb) for p in range(d // 2))


def frequency_dd(d: int, base: float, schedule: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The frequencies of :func:`frequency_constants` as double-doubles: ``(hi, lo)``, each a
    tuple of ``d/2`` floats (``hi`` the 40-digit value rounded once, ``lo`` the rest).

    Stored in the disk cache beside the formulas (same key: the schedule's claim, its
    source, the SymPy and mpmath versions), so that a warm process neither imports mpmath
    nor evaluates the schedule for them; the claim's verdict is checked either way.

    >>> frequency_dd(4, 100.0, "vaswani")
    ((1.0, 0.1), (0.0, -5.551115123125783e-18))
    """
    _require_proved(SCHEDULE_CLAIM)
    key = (int(d), float(base), str(schedule))
    stored = _diskcache.load_value("frequency_dd", key)
    if (isinstance(stored, list) and len(stored) == 2
            and all(isinstance(v, list) and len(v) == d // 2 and all(type(f) is float for f in v) for v in stored)):
        return tuple(stored[0]), tuple(stored[1])
    values = frequency_constants(d, base, schedule)
    hi = tuple(float(v) for v in values)
    lo = tuple(float(v - float(v)) for v in values)
    _diskcache.store_value("frequency_dd", key, [list(hi), list(lo)])
    return hi, lo


# ----------------------------------------------------------------------------------------
# the RoPE family's element formulas (pe_symbolic.numeric.config)

#: Each formula of the RoPE family that :mod:`pe_symbolic.numeric.config` evaluates, with
#: the claim that gates it (the claim is *about* that expression).
FAMILY_FORMULAS: dict[str, str] = {
    "default": SCHEDULE_CLAIM,
    "linear": "linear.interpolation",
    "ntk": "ntk.derive",
    "ntk_mixed": "ntk_mixed.endpoints",
    "dynamic": "dynamic.continuity",
    "yarn_correction_dim": "yarn.correction_dim",
    "yarn_ramp": "yarn.blend",
    "yarn": "yarn.blend",
    "yarn_mscale": "yarn.attention_factor",
    "longrope": "longrope.relative",
    "longrope_attention": "longrope.relative",
    "llama3": "llama3.continuity",
    "proportional": "proportional.relative",
}


@functools.lru_cache(maxsize=None)
def family_formula(name: str) -> Callable[..., Any]:
    r"""One element formula of the RoPE family, lowered to mpmath under its proved claim.

    The expressions are those of :mod:`pe_symbolic.encodings.family` with symbolic
    arguments; the caller evaluates them in a local :func:`mpmath.workdps` context (the
    numeric config reader uses 40 digits, then rounds once to float64).

    ``ntk`` is the static NTK-aware ladder :math:`b' = b s^{d/(d-2)}` (pair 0 kept), which
    the config reader uses for Hunyuan's fixed ``alpha`` only; a config's ``"ntk"`` is vLLM's
    ``NTKScalingRotaryEmbedding`` and reads ``ntk_mixed`` (``beta = 1`` without ``mixed_b``:
    vLLM's fixed NTK :math:`(b s)^{-2i/d} / s^{2/d}`, the third equation of its claim).

    =========================  =====================================  ========================
    name                       arguments                              claim
    =========================  =====================================  ========================
    ``default``                ``i, d, b``                            ``schedule.geometric``
    ``linear``                 ``i, d, b, s``                         ``linear.interpolation``
    ``ntk``                    ``i, d, b, s``                         ``ntk.derive``
    ``ntk_mixed``              ``i, d, b, s, beta`` (``mixed_b``)     ``ntk_mixed.endpoints``
    ``dynamic``                ``i, d, b, s, n, L``                   ``dynamic.continuity``
    ``yarn_correction_dim``    ``r, d, b, L``                         ``yarn.correction_dim``
    ``yarn_ramp``              ``x, low, high``                       ``yarn.blend``
    ``yarn``                   ``i, d, b, s, gamma``                  ``yarn.blend``
    ``yarn_mscale``            ``s, mu``                              ``yarn.attention_factor``
    ``longrope``               ``i, d, b, lambda``                    ``longrope.relative``
    ``longrope_attention``     ``s, L``                               ``longrope.relative``
    ``llama3``                 ``i, d, b, s, L, low, high``           ``llama3.continuity``
    ``proportional``           ``i, D, b, s`` (for ``i`` < angles)    ``proportional.relative``
    =========================  =====================================  ========================

    >>> import mpmath
    >>> f = family_formula("linear")
    >>> f.claim_id
    'linear.interpolation'
    >>> with mpmath.workdps(40):
    ...     print(mpmath.nstr(f(1, 4, 100, 8), 20))
    0.0125
    """
    if name not in FAMILY_FORMULAS:
        from .._validate import check_choice

        check_choice("name", name, tuple(FAMILY_FORMULAS))

    def make():
        import sympy as sp

        from ..encodings import family as F
        from ..encodings.symbols import b, d, i, n

        s, L = F.s, F.L
        r, x, lam, mu, beta = sp.symbols("r x lambda mu beta", positive=True)
        low, high, gamma = sp.symbols("low high gamma", real=True)
        lo_f, hi_f = sp.symbols("l h", positive=True)
        theta = F.default_theta(i, d, base=b)
        table: dict[str, tuple[Any, tuple[sp.Symbol, ...]]] = {
            "default": (theta, (i, d, b)),
            "linear": (F.linear(theta, s), (i, d, b, s)),
            "ntk": (F.default_theta(i, d, base=F.ntk_base(b, s, d)), (i, d, b, s)),
            # vLLM's mixed NTK: theta_i / lambda_i with lambda_i = exp(a (i+1)^beta) > 0 (the claim is
            # about lambda; relative as any positive per-pair rescaling, longrope.relative)
            "ntk_mixed": (F.longrope_theta(theta, F.ntk_mixed_factor(i, d, s, beta)), (i, d, b, s, beta)),
            "dynamic": (F.default_theta(i, d, base=F.dynamic_base(b, s, n, L, d)), (i, d, b, s, n, L)),
            "yarn_correction_dim": (F.yarn_correction_dim(r, d, b, L), (r, d, b, L)),
            "yarn_ramp": (F.yarn_ramp(x, low, high), (x, low, high)),
            "yarn": (F.yarn_theta(theta, s, gamma), (i, d, b, s, gamma)),
            "yarn_mscale": (F.yarn_mscale(s, mu), (s, mu)),
            "longrope": (F.longrope_theta(theta, lam), (i, d, b, lam)),
            "longrope_attention": (F.longrope_attention_factor(s, L), (s, L)),
            "llama3": (F.llama3_theta(theta, s, L, lo_f, hi_f), (i, d, b, s, L, lo_f, hi_f)),
            "proportional": (theta / s, (i, d, b, s)),
        }
        expr, args = table[name]
        return lower(FAMILY_FORMULAS[name], expr, args, modules="mpmath")

    return _named("family", FAMILY_FORMULAS[name], (name,), make)
