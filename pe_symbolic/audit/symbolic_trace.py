r"""Symbolic tracing of a user's RoPE function: its output as SymPy expressions of its inputs.

(The tracer only; what is proved from its output is :mod:`pe_symbolic.audit.verify.trace`, the
traced proof.)

:func:`trace_rope` runs ``fn(x, position_ids)`` with ``x`` made of SymPy symbols (and,
where the code allows it, the positions too) and returns what ``fn`` computes, entry by
entry, as exact expressions: nothing is read off floating-point numbers, so a zero is a
zero and a pairing is a pairing. :func:`pe_symbolic.verify_rope` then has the proof kernel
check that expression against :math:`R(\theta)x`.

How each framework is traced:

* **NumPy**: ``fn`` is called on NumPy object arrays whose entries are :class:`Traced`
  scalars (a thin wrapper of a SymPy expression). Arithmetic builds SymPy expressions;
  NumPy's ufuncs on object arrays call the method of the same name (``np.cos`` calls
  ``.cos()``), so ``np.cos``, ``np.sin``, ``np.exp``, ``np.sqrt`` work. Numbers fn computes
  from constants (its inverse-frequency ladder) enter as the exact binary value of the
  float fn computed.
* **PyTorch**: ``torch.fx.experimental.proxy_tensor.make_fx`` records the ATen graph of
  ``fn`` on *fake* tensors (no values, so no branch on a value can be recorded: a data
  dependent branch makes the trace fail instead of being silently specialised), and
  ``_interpret`` evaluates that graph: nodes that depend only on constants (fn's
  buffers, ``arange``) are run by torch itself, the others over object arrays of
  :class:`Traced`.
* **JAX**: ``jax.make_jaxpr`` records the jaxpr on abstract values (a Python branch on a
  value fails the trace), evaluated the same way (constants by JAX, the rest over SymPy).

A trace *fails* (:class:`TraceError`, and :func:`~pe_symbolic.verify_rope` falls back to
testing and says so) on anything it cannot follow exactly: a conversion of a traced value
to a float or an integer (``astype``, ``float()``, ``int()``), a comparison, ``==``,
``isin``, a truth value or a branch on one, indexing or a table lookup by a traced
position, an operation without a symbolic rule here, a cast from float to integer. A trace
therefore proves only branch-free code, at the shape it was traced at.

*Length-dependent code* (HF's ``dynamic`` and ``longrope`` read the sequence length as
``max(position_ids) + 1``) can be traced *at a stated length* (``length=``): the maximum
over the whole of ``position_ids`` -- and nothing else about the positions -- is then the
number ``length - 1``; what is proved holds for every position vector of that length. Casts between floating dtypes in a graph are exact
in the trace (the trace is the mathematics fn computes; how accurately it computes it is the
precision section's question); the dtypes of the angles fed to ``cos``/``sin`` are recorded.

>>> import numpy as np
>>> def rope(x, position_ids):
...     ang = position_ids[..., None] * np.array([1.0, 0.5])
...     c, s = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
...     return x * c[:, None] + np.concatenate([-x[..., 2:], x[..., :2]], -1) * s[:, None]
>>> tr = trace_rope(rope, "numpy", (1, 1, 1, 4), axes=1)
>>> tr.out[0, 0, 0, 0]
x_0_0_0_0*cos(m0_0_0) - x_0_0_0_2*sin(m0_0_0)
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

__all__ = ["TraceError", "Traced", "TraceResult", "exact_number", "trace_rope"]


class TraceError(Exception):
    """``fn`` cannot be traced symbolically (the message says why)."""


def exact_number(v: Any) -> sp.Expr:
    """The exact SymPy value of a Python or NumPy number (a float's binary value, not its
    decimal rendering).

    >>> exact_number(0.5), exact_number(np.float32(0.1))
    (1/2, 13421773/134217728)
    """
    if isinstance(v, Traced):
        return v.e
    if isinstance(v, (bool, np.bool_)):
        return sp.Integer(int(v))
    if isinstance(v, (int, np.integer)):
        return sp.Integer(int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if not np.isfinite(f):
            raise TraceError(f"fn computed a non-finite constant ({f})")
        return sp.Rational(*f.as_integer_ratio())
    if isinstance(v, (complex, np.complexfloating)):
        return exact_number(v.real) + sp.I * exact_number(v.imag)
    if isinstance(v, sp.Expr):
        return v
    shown = f"of shape {v.shape}" if isinstance(v, np.ndarray) else repr(v)[:60]
    raise TraceError(f"fn mixed a traced value with {type(v).__name__} {shown}")


class Traced:
    """A scalar of a symbolic trace: a SymPy expression that NumPy object arrays can carry.

    Arithmetic with numbers and other :class:`Traced` values builds the exact expression;
    ``cos``, ``sin``, ``exp``, ``sqrt``, ``log`` (what NumPy's ufuncs call on object
    arrays) apply SymPy's functions. Converting to a number, comparing or branching raises
    :class:`TraceError`: the value is unknown.

    >>> t = Traced(sp.Symbol("m"))
    >>> (2 * t + 1).cos()
    Traced(cos(2*m + 1))
    """

    __slots__ = ("e",)

    def __init__(self, e: sp.Expr) -> None:
        self.e = e

    def __repr__(self) -> str:
        return f"Traced({self.e})"

    def __hash__(self) -> int:  # a dict / set lookup by a traced value would silently miss
        return self._unknown("a dict or set lookup by it")

    def __str__(self) -> str:  # str(m) as a key would silently miss too
        return self._unknown("str() or format of it")

    def __format__(self, spec: str) -> str:
        return self._unknown("str() or format of it")

    def __add__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return Traced(self.e + exact_number(o))

    def __radd__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return Traced(exact_number(o) + self.e)

    def __sub__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return Traced(self.e - exact_number(o))

    def __rsub__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return Traced(exact_number(o) - self.e)

    def __mul__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return Traced(self.e * exact_number(o))

    def __rmul__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return Traced(exact_number(o) * self.e)

    def __truediv__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return Traced(self.e / exact_number(o))

    def __rtruediv__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return Traced(exact_number(o) / self.e)

    def __pow__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return Traced(self.e ** exact_number(o))

    def __rpow__(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return Traced(exact_number(o) ** self.e)

    def __neg__(self) -> Traced:
        return Traced(-self.e)

    def __pos__(self) -> Traced:
        return self

    def cos(self) -> Traced:
        return Traced(sp.cos(self.e))

    def sin(self) -> Traced:
        return Traced(sp.sin(self.e))

    def exp(self) -> Traced:
        return Traced(sp.exp(self.e))

    def sqrt(self) -> Traced:
        return Traced(sp.sqrt(self.e))

    def log(self) -> Traced:
        return Traced(sp.log(self.e))

    def conjugate(self) -> Traced:
        return Traced(sp.conjugate(self.e))

    def _unknown(self, what: str) -> Any:
        raise TraceError(f"fn needs the value of {self.e} ({what}): a data-dependent use, not branch-free")

    def __float__(self) -> float:
        return self._unknown("float(), or astype of it")

    def __int__(self) -> int:
        return self._unknown("int(), or a cast to an integer")

    def __index__(self) -> int:
        return self._unknown("an index: a table lookup by it")

    def __bool__(self) -> bool:
        return self._unknown("a truth value: a branch on it")

    def __complex__(self) -> complex:
        return self._unknown("complex()")

    def __lt__(self, o: Any) -> Any:
        return self._unknown("a comparison <")

    def __le__(self, o: Any) -> Any:
        return self._unknown("a comparison <=")

    def __gt__(self, o: Any) -> Any:
        return self._unknown("a comparison >")

    def __ge__(self, o: Any) -> Any:
        return self._unknown("a comparison >=")

    def __eq__(self, o: Any) -> Any:  # type: ignore[override]
        return self._unknown("a comparison ==, or isin")

    def __ne__(self, o: Any) -> Any:  # type: ignore[override]
        return self._unknown("a comparison !=")

    def __floordiv__(self, o: Any) -> Any:
        return self._unknown("//")

    __rfloordiv__ = __floordiv__

    def __mod__(self, o: Any) -> Any:
        return self._unknown("%")

    __rmod__ = __mod__

    def __abs__(self) -> Any:
        return self._unknown("abs()")

    def __round__(self, *_: Any) -> Any:
        return self._unknown("round()")


@dataclass
class TraceResult:
    """What :func:`trace_rope` found: ``out`` (object array of SymPy expressions, the shape of
    ``x``), the symbols of ``x`` and of the positions, how it was traced, and notes."""

    out: np.ndarray
    x: np.ndarray
    positions: np.ndarray
    how: str
    symbolic_positions: bool
    angle_dtypes: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    length: int | None = None
    """The sequence length the trace was pinned to (``max(position_ids) + 1``), or None."""
    length_used: bool = False
    """Whether ``fn`` read that length (took the maximum of ``position_ids``)."""

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of ``x`` the trace was taken at (what is proved holds at this shape)."""
        return tuple(self.x.shape)


class _Pinned:
    """The position symbols of a trace pinned to a length: their overall maximum is known."""

    def __init__(self, symbols: np.ndarray, length: int | None) -> None:
        self.symbols = frozenset(symbols.flat)
        self.length = length
        self.used = False

    def top(self, arr: Any, what: str) -> int:
        """``length - 1`` when ``arr`` holds exactly every position symbol (a cast or a
        reshape of ``position_ids``), else a :class:`TraceError`."""
        if self.length is None:
            raise TraceError(f"fn takes {what} of position_ids (its sequence length?) -- a data-dependent use; "
                             "pass the length it sees to trace it at that length")
        flat = [v.e if isinstance(v, Traced) else v for v in np.asarray(arr, dtype=object).flat]
        if not flat or any(not isinstance(e, sp.Symbol) or e not in self.symbols for e in flat) \
                or set(flat) != self.symbols:
            raise TraceError(f"fn takes {what} of something other than the whole of position_ids (a data-dependent "
                             "use of the positions)")
        self.used = True
        return self.length - 1


class _TracedArray(np.ndarray):
    """A NumPy object array of :class:`Traced` values as ``fn`` sees them in a trace.

    A cast to a float dtype is exact in the trace (as torch's and JAX's casts are: how
    accurately the float code holds a value is the tests' question); a cast to an integer
    is allowed only for integer expressions (positions) into int64 -- a narrower one may
    wrap, and ``x`` cast to an integer truncates: both fail the trace. NumPy functions keep
    the class (``concatenate``, ``where``, ``einsum``...). ``position_ids`` of a trace at a
    stated length (``_pin``) answer ``ids.max()`` / ``np.max(ids)`` over the whole array
    with ``length - 1``; a slice, a view or a result does not."""

    _pin: _Pinned | None = None
    _root = False

    def __array_finalize__(self, obj: Any) -> None:
        self._pin = getattr(obj, "_pin", None)
        self._root = False  # a view, a slice, a result: not the whole of position_ids

    def astype(self, dtype: Any, *args: Any, **kw: Any) -> np.ndarray:  # type: ignore[override]
        dt = np.dtype(dtype)
        flat = list(self.view(np.ndarray).flat)
        if dt.kind in "fcO":
            return np.array(self.view(np.ndarray), dtype=object, copy=True).view(_TracedArray)
        if dt.kind in "iu":
            if dt.itemsize < 8:
                raise TraceError(f"fn casts traced values to {dt.name} (a narrower integer may wrap)")
            if all(exact_number(v).is_integer for v in flat):
                return np.array(self.view(np.ndarray), dtype=object, copy=True).view(_TracedArray)
            raise TraceError(f"fn casts traced values to {dt.name} (truncates)")
        raise TraceError(f"fn casts traced values to {dt.name} (needs the value)")

    def max(self, axis: Any = None, out: Any = None, keepdims: bool = False, **kw: Any) -> Any:  # type: ignore[override]
        if self._root and self._pin is not None and axis is None and out is None and not keepdims and not kw:
            return np.int64(self._pin.top(self.view(np.ndarray), "the maximum"))
        return np.ndarray.max(self.view(np.ndarray), axis=axis, out=out, keepdims=keepdims, **kw)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func in (np.max, np.amax) and args and args[0] is self and len(args) == 1:
            return self.max(**kwargs)
        return _retype(super().__array_function__(func, types, args, kwargs))


def _retype(v: Any) -> Any:
    """NumPy results of object dtype as :class:`_TracedArray` (not pinned)."""
    if isinstance(v, np.ndarray) and v.dtype == object and not isinstance(v, _TracedArray):
        return v.view(_TracedArray)
    if isinstance(v, (list, tuple)):
        return type(v)(_retype(u) for u in v)
    return v


def _symbols(shape: tuple[int, ...], prefix: str, **assumptions: bool) -> np.ndarray:
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        out[idx] = sp.Symbol(prefix + "_".join(map(str, idx)), **assumptions)
    return out


def _wrap(a: np.ndarray) -> np.ndarray:
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(*a.shape):
        out[idx] = Traced(a[idx])
    return out


def _unwrap(a: Any, shape: tuple[int, ...]) -> np.ndarray:
    arr = np.asarray(a, dtype=object) if not isinstance(a, np.ndarray) else a
    if arr.shape != shape:
        raise TraceError(f"fn returned shape {arr.shape} for x of shape {shape}")
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        out[idx] = exact_number(arr[idx])
    return out


def trace_rope(call: Callable[[Any, Any], Any], framework: str, x_shape: tuple[int, ...], *, axes: int = 1,
               positions: np.ndarray | None = None, dtype: str = "float32",
               length: int | None = None) -> TraceResult:
    """Trace ``call(x, position_ids)`` with a symbolic ``x`` of shape ``x_shape``.

    Parameters
    ----------
    call : callable
        ``call(x, position_ids) -> x_rotated``.
    framework : {"numpy", "torch", "jax"}
        How to trace.
    x_shape : tuple of int
        ``(batch, heads, seq, head_dim)``.
    axes : int, default 1
        Position axes: 1 (``position_ids`` of shape ``(batch, seq)``), or 2 / 3 (axial,
        M-RoPE: ``(axes, batch, seq)``).
    positions : numpy.ndarray of int, optional
        Numeric ``position_ids``; without them the positions are the symbols
        ``m{axis}_{b}_{s}`` (integer, non-negative).
    dtype : str
        The dtype of ``x`` in the torch trace (its graph may depend on it).
    length : int, optional
        Symbolic positions only: the sequence length ``fn`` is told it sees -- the maximum
        over the whole of ``position_ids`` is ``length - 1`` (HF's ``dynamic`` and
        ``longrope`` read it so). Without it, taking that maximum fails the trace.

    Returns
    -------
    TraceResult

    Raises
    ------
    TraceError
        When ``fn`` cannot be followed exactly (the message says where).
    """
    b, h, s, d = x_shape
    ids_shape = (b, s) if axes == 1 else (axes, b, s)
    xs = _symbols(x_shape, "x_", real=True)
    if positions is None:
        ids = np.empty(ids_shape, dtype=object)
        for idx in np.ndindex(*ids_shape):
            k, bb, ss = (0, *idx) if axes == 1 else idx
            ids[idx] = sp.Symbol(f"m{k}_{bb}_{ss}", integer=True, nonnegative=True)
        symbolic = True
    else:
        ids = np.asarray(positions, dtype=np.int64)
        if ids.shape != ids_shape:
            raise ValueError(f"positions of shape {ids.shape}; the trace needs {ids_shape}")
        symbolic = False
    if length is not None and (not symbolic or isinstance(length, bool) or not isinstance(length, int) or length < 1):
        raise ValueError(f"length={length!r}: a positive integer, with symbolic positions only")
    pin = _Pinned(ids, length) if symbolic else _Pinned(np.empty(0, dtype=object), None)
    if framework == "numpy":
        res = _trace_numpy(call, xs, ids, symbolic, pin)
    elif framework == "torch":
        res = _trace_torch(call, xs, ids, symbolic, dtype, pin)
    elif framework == "jax":
        res = _trace_jax(call, xs, ids, symbolic, dtype, pin)
    else:
        raise TraceError(f"tracing {framework} code is not implemented (NumPy, PyTorch and JAX are)")
    res.length, res.length_used = length, pin.used
    return res


def _trace_numpy(call: Callable, xs: np.ndarray, ids: np.ndarray, symbolic: bool, pin: _Pinned) -> TraceResult:
    x_in = _wrap(xs).view(_TracedArray)
    if symbolic:
        ids_in = _wrap(ids).view(_TracedArray)
        ids_in._pin, ids_in._root = pin, True
    else:
        ids_in = ids.copy()
    try:
        with np.errstate(all="ignore"):
            out = call(x_in, ids_in)
    except TraceError:
        raise
    except Exception as exc:  # fn's own code refused object arrays: say which error
        raise TraceError(f"fn raised {type(exc).__name__} on object arrays: {exc}") from None
    return TraceResult(_unwrap(out, xs.shape), xs, ids, "NumPy object arrays of SymPy expressions", symbolic)


# ---------------------------------------------------------------------------------- torch


def _trace_torch(call: Callable, xs: np.ndarray, ids: np.ndarray, symbolic: bool, dtype: str,
                 pin: _Pinned) -> TraceResult:
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    tdtype = getattr(torch, dtype)

    def f(x: Any, position_ids: Any) -> Any:
        return call(x, position_ids)

    try:
        gm = make_fx(f, tracing_mode="fake", _allow_non_fake_inputs=True)(
            torch.zeros(xs.shape, dtype=tdtype), torch.zeros(ids.shape, dtype=torch.int64))
    except Exception as exc:
        raise TraceError(f"torch.fx (make_fx, fake tensors) could not trace fn: {type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
    angle_dtypes: list[str] = []
    ids_in = _wrap(ids) if symbolic else torch.from_numpy(ids)
    out = _interpret(gm, [_wrap(xs), ids_in], angle_dtypes, pin)
    if not isinstance(out, np.ndarray):
        if isinstance(out, torch.Tensor):
            raise TraceError("fn's output does not depend on x")
        raise TraceError(f"fn returned {type(out).__name__}, not a tensor")
    res = TraceResult(_unwrap(out, xs.shape), xs, ids, "torch.fx graph (make_fx on fake tensors), interpreted "
                      "over SymPy", symbolic, tuple(dict.fromkeys(angle_dtypes)))
    return res


# ---------------------------------------------------------------------------------- JAX


def _trace_jax(call: Callable, xs: np.ndarray, ids: np.ndarray, symbolic: bool, dtype: str,
               pin: _Pinned) -> TraceResult:
    import jax
    import jax.numpy as jnp

    try:
        closed = jax.make_jaxpr(call)(jnp.zeros(xs.shape, dtype=dtype), jnp.zeros(ids.shape, dtype=jnp.int32))
    except Exception as exc:
        raise TraceError(f"jax.make_jaxpr could not trace fn: {type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
    angle_dtypes: list[str] = []
    ids_in = _wrap(ids) if symbolic else jnp.asarray(ids, dtype=jnp.int32)
    outs = _interpret_jaxpr(closed.jaxpr, list(closed.consts), [_wrap(xs), ids_in], angle_dtypes, pin)
    if len(outs) != 1 or not isinstance(outs[0], np.ndarray):
        raise TraceError("fn's output is not one array that depends on x")
    return TraceResult(_unwrap(outs[0], xs.shape), xs, ids, "jaxpr (jax.make_jaxpr), interpreted over SymPy",
                       symbolic, tuple(dict.fromkeys(angle_dtypes)))


def _jax_is_float(dt: Any) -> bool:
    return np.issubdtype(np.dtype(dt), np.floating) or np.issubdtype(np.dtype(dt), np.complexfloating) \
        or "bfloat16" in str(dt)


def _interpret_jaxpr(jaxpr: Any, consts: list[Any], inputs: list[Any], angle_dtypes: list[str],
                     pin: _Pinned) -> list[Any]:
    try:
        from jax.extend.core import Literal
    except ImportError:  # older JAX
        from jax.core import Literal

    env: dict[Any, Any] = {}

    def read(v: Any) -> Any:
        return v.val if isinstance(v, Literal) else env[v]

    for var, val in zip(jaxpr.constvars, consts):
        env[var] = val
    for var, val in zip(jaxpr.invars, inputs):
        env[var] = val
    for eqn in jaxpr.eqns:
        args = [read(v) for v in eqn.invars]
        name = eqn.primitive.name
        if name in ("cos", "sin"):
            angle_dtypes.append(str(eqn.invars[0].aval.dtype))
        if not any(isinstance(a, Traced) or (isinstance(a, np.ndarray) and a.dtype == object) for a in args):
            out = eqn.primitive.bind(*args, **eqn.params)  # constants: JAX computes them as fn does
        elif name in ("pjit", "closed_call", "core_call", "jit", "remat", "checkpoint", "custom_jvp_call",
                      "custom_vjp_call"):
            inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr") or eqn.params.get("fun_jaxpr")
            if inner is None:
                raise TraceError(f"the jaxpr has {name} without an inner jaxpr")
            closed_consts = list(getattr(inner, "consts", []))
            out = _interpret_jaxpr(getattr(inner, "jaxpr", inner), closed_consts, args, angle_dtypes, pin)
        elif name in ("reduce_max", "argmax", "reduce_min", "argmin", "max", "min"):
            a = np.asarray(args[0], dtype=object)
            if name != "reduce_max" or tuple(eqn.params.get("axes", ())) != tuple(range(a.ndim)):
                raise TraceError(f"the jaxpr has {name} on traced values (a data-dependent use of the positions)")
            out = np.asarray(pin.top(a, "the maximum"), dtype=eqn.outvars[0].aval.dtype)
        else:
            rule = _JAX_RULES.get(name)
            if rule is None:
                raise TraceError(f"the jaxpr has {name} on traced values, which the symbolic interpreter does not know")
            if name == "convert_element_type":
                src, dst = eqn.invars[0].aval.dtype, eqn.params["new_dtype"]
                if _jax_is_float(src) and not _jax_is_float(dst):
                    raise TraceError(f"convert_element_type casts {src} to {dst} (truncates)")
                if np.issubdtype(np.dtype(src), np.complexfloating) and not np.issubdtype(np.dtype(dst),
                                                                                          np.complexfloating):
                    raise TraceError(f"convert_element_type casts {src} to {dst} (drops the imaginary part)")
            try:
                out = rule([_to_obj_jax(a) for a in args], eqn.params)
            except TraceError:
                raise
            except Exception as exc:
                raise TraceError(f"{name} on traced values: {type(exc).__name__}: {exc}") from None
        outs = out if eqn.primitive.multiple_results else [out]
        for var, val in zip(eqn.outvars, outs):
            env[var] = val
    return [read(v) for v in jaxpr.outvars]


def _to_obj_jax(v: Any) -> Any:
    if isinstance(v, Traced) or (isinstance(v, np.ndarray) and v.dtype == object):
        return v
    a = np.asarray(v)
    if a.dtype.kind == "f" or "bfloat16" in str(a.dtype):
        a = a.astype(np.float64)
    elif a.dtype.kind == "c":
        a = a.astype(np.complex128)
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(*a.shape):
        out[idx] = Traced(exact_number(a[idx].item()))
    return out


def _broadcast_in_dim(a: np.ndarray, shape: Sequence[int], dims: Sequence[int]) -> np.ndarray:
    a = np.asarray(a, dtype=object)
    full = [1] * len(shape)
    for i, d in enumerate(dims):
        full[d] = a.shape[i]
    return np.broadcast_to(a.reshape(full), tuple(shape)).copy()


def _jax_slice(a: np.ndarray, p: dict) -> np.ndarray:
    strides = p.get("strides") or (1,) * a.ndim
    return a[tuple(slice(s, e, st) for s, e, st in zip(p["start_indices"], p["limit_indices"], strides))]


def _dot_general(a: np.ndarray, b: np.ndarray, p: dict) -> np.ndarray:
    (lc, rc), (lb, rb) = p["dimension_numbers"]
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    la = [next(letters) for _ in range(a.ndim)]
    lb_ = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(lc, rc):
        lb_[j] = la[i]
    for i, j in zip(lb, rb):
        lb_[j] = la[i]
    batch = [la[i] for i in lb]
    free_a = [la[i] for i in range(a.ndim) if i not in lc and i not in lb]
    free_b = [lb_[j] for j in range(b.ndim) if j not in rc and j not in rb]
    spec = f"{''.join(la)},{''.join(lb_)}->{''.join(batch + free_a + free_b)}"
    return np.asarray(np.einsum(spec, a, b), dtype=object)


_JAX_RULES: dict[str, Callable[[list[Any], dict], Any]] = {
    "add": lambda a, p: a[0] + a[1], "sub": lambda a, p: a[0] - a[1], "mul": lambda a, p: a[0] * a[1],
    "div": lambda a, p: a[0] / a[1], "neg": lambda a, p: -a[0],
    "integer_pow": lambda a, p: a[0] ** int(p["y"]), "pow": lambda a, p: a[0] ** a[1],
    "cos": lambda a, p: _unary("cos")(a[0]), "sin": lambda a, p: _unary("sin")(a[0]),
    "exp": lambda a, p: _unary("exp")(a[0]), "sqrt": lambda a, p: _unary("sqrt")(a[0]),
    "conj": lambda a, p: _unary("conjugate")(a[0]),
    "convert_element_type": lambda a, p: np.array(a[0], dtype=object, copy=True),
    "copy": lambda a, p: np.array(a[0], dtype=object, copy=True),
    "copy_p": lambda a, p: np.array(a[0], dtype=object, copy=True),
    "concatenate": lambda a, p: np.concatenate([np.asarray(v, dtype=object) for v in a], axis=p["dimension"]),
    "stack": lambda a, p: np.stack([np.asarray(v, dtype=object) for v in a], axis=p["axis"]),
    "slice": lambda a, p: _jax_slice(a[0], p),
    "broadcast_in_dim": lambda a, p: _broadcast_in_dim(a[0], p["shape"], p["broadcast_dimensions"]),
    "reshape": lambda a, p: np.reshape(a[0], p["new_sizes"]),
    "squeeze": lambda a, p: np.squeeze(a[0], axis=tuple(p["dimensions"])),
    "expand_dims": lambda a, p: np.expand_dims(a[0], tuple(p["dimensions"])),
    "transpose": lambda a, p: np.transpose(a[0], p["permutation"]),
    "dot_general": lambda a, p: _dot_general(a[0], a[1], p),
    "reduce_sum": lambda a, p: np.sum(a[0], axis=tuple(p["axes"])),
}


def _is_sym(v: Any) -> bool:
    if isinstance(v, np.ndarray):
        return True
    if isinstance(v, (list, tuple)):
        return any(_is_sym(u) for u in v)
    return isinstance(v, Traced)


def _to_obj(v: Any) -> Any:
    """A concrete tensor or number as an object array of exact :class:`Traced` values."""
    import torch

    if isinstance(v, np.ndarray) or isinstance(v, Traced):
        return v
    if isinstance(v, torch.Tensor):
        if v.is_complex():
            a = v.detach().to(torch.complex128).cpu().numpy()
        elif v.is_floating_point():
            a = v.detach().to(torch.float64).cpu().numpy()
        else:
            a = v.detach().cpu().numpy()
        out = np.empty(a.shape, dtype=object)
        cache: dict[Any, Traced] = {}
        for idx in np.ndindex(*a.shape):
            key = a[idx].item()
            if key not in cache:
                cache[key] = Traced(exact_number(key))
            out[idx] = cache[key]
        return out
    return v


def _interpret(gm: Any, inputs: Sequence[Any], angle_dtypes: list[str], pin: _Pinned) -> Any:
    """Evaluate ``gm``'s graph: constant nodes by torch, the rest by the symbolic rules."""
    env: dict[Any, Any] = {}
    it = iter(inputs)

    def load(a: Any) -> Any:
        import torch.fx as fx

        if isinstance(a, fx.Node):
            return env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(load(u) for u in a)
        if isinstance(a, dict):
            return {k: load(v) for k, v in a.items()}
        return a

    result = None
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            env[node] = next(it)
        elif node.op == "get_attr":
            obj = gm
            for part in node.target.split("."):
                obj = getattr(obj, part)
            env[node] = obj
        elif node.op == "call_function":
            args, kwargs = load(node.args), load(node.kwargs)
            if node.target is operator.getitem:
                env[node] = args[0][args[1]]
                continue
            name = getattr(getattr(node.target, "overloadpacket", None), "__name__", None)
            if name in ("cos", "sin") and node.args and hasattr(node.args[0], "meta"):
                val = node.args[0].meta.get("val")
                if val is not None and hasattr(val, "dtype"):
                    angle_dtypes.append(str(val.dtype).replace("torch.", ""))
            if not _is_sym(args) and not _is_sym(kwargs):
                env[node] = node.target(*args, **kwargs)  # constants: torch computes them as fn does
                continue
            if name in _CASTS:
                _check_cast(node)
            if name in ("max", "amax", "aminmax", "min", "amin", "argmax", "argmin", "sort", "topk", "unique",
                        "_unique2"):
                a = _to_obj(args[0])
                if name == "max":
                    full = len(args) == 1 and not kwargs  # aten.max.default; max.dim gives (values, indices)
                elif name == "amax":
                    dims = args[1] if len(args) > 1 else kwargs.get("dim", [])
                    keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
                    full = (not dims or sorted(_np_dim(a, int(d)) for d in dims) == list(range(a.ndim))) and not keep
                else:
                    full = False
                if not full:
                    raise TraceError(f"the torch graph has {node.target} on traced values (a data-dependent use of "
                                     "the positions)")
                import torch

                env[node] = torch.tensor(pin.top(a, "the maximum"), dtype=node.meta["val"].dtype)
                continue
            rule = _RULES.get(name or "")
            if rule is None:
                raise TraceError(f"the torch graph has {node.target} on traced values, which the symbolic "
                                 "interpreter does not know")
            try:
                env[node] = rule(*args, **kwargs)
            except TraceError:
                raise
            except Exception as exc:
                raise TraceError(f"{node.target} on traced values: {type(exc).__name__}: {exc}") from None
        elif node.op == "output":
            out = load(node.args[0])
            result = out[0] if isinstance(out, (list, tuple)) else out
        else:
            raise TraceError(f"unexpected graph node {node.op} {node.target}")
    return result


_CASTS = frozenset({"_to_copy", "to", "_to_dtype", "type_as", "view"})


def _check_cast(node: Any) -> None:
    """A cast is exact in the trace only between real dtypes wide enough to be read as the
    same number (float to float: the rounding is the precision section's business), or
    from integer to anything; float to integer truncates and complex to real drops a part."""
    val = node.meta.get("val")
    src = getattr(node.args[0], "meta", {}).get("val") if node.args else None
    if val is None or src is None or not hasattr(val, "dtype") or not hasattr(src, "dtype"):
        raise TraceError(f"{node.target}: the graph does not record the dtypes of this cast")
    out, inp = val.dtype, src.dtype
    if out == inp:
        return
    if inp.is_complex and not out.is_complex:
        raise TraceError(f"{node.target} casts {inp} to {out} (drops the imaginary part)")
    if (inp.is_floating_point or inp.is_complex) and not (out.is_floating_point or out.is_complex):
        raise TraceError(f"{node.target} casts {inp} to {out} (truncates)")
    if not inp.is_floating_point and not inp.is_complex and out.itemsize < inp.itemsize \
            and not (out.is_floating_point or out.is_complex):
        raise TraceError(f"{node.target} casts {inp} to {out} (may wrap)")


def _np_dim(a: np.ndarray, dim: int) -> int:
    return dim + a.ndim if dim < 0 else dim


def _bin(f: Callable) -> Callable:
    def rule(a: Any, b: Any, *rest: Any, alpha: Any = None, **kw: Any) -> Any:
        if rest or kw.get("rounding_mode") is not None:
            raise TraceError(f"unsupported arguments {rest} {kw}")
        a, b = _to_obj(a), _to_obj(b)
        if alpha is not None and alpha != 1:
            b = b * exact_number(alpha) if not isinstance(b, np.ndarray) else b * Traced(exact_number(alpha))
        return f(a, b)
    return rule


def _unary(method: str) -> Callable:
    def rule(a: Any) -> Any:
        a = _to_obj(a)
        return np.vectorize(lambda v: getattr(v, method)(), otypes=[object])(a)
    return rule


def _identity(a: Any, *args: Any, **kw: Any) -> Any:
    a = _to_obj(a)
    return np.array(a, dtype=object, copy=True) if isinstance(a, np.ndarray) else a


def _slice(a: Any, dim: int = 0, start: Any = None, end: Any = None, step: int = 1) -> np.ndarray:
    a = _to_obj(a)
    dim = _np_dim(a, dim)
    n = a.shape[dim]
    idx = [slice(None)] * a.ndim
    start = 0 if start is None else max(-n, min(start, n))
    end = n if end is None else max(-n, min(end, n))
    idx[dim] = slice(start, end, step)
    return a[tuple(idx)]


def _view(a: Any, *args: Any, **kw: Any) -> Any:
    """torch's view ops (``alias``, ``detach``) share storage: a NumPy view, so that an
    in-place write through one is seen through the other."""
    a = _to_obj(a)
    return a.view() if isinstance(a, np.ndarray) else a


def _copy_into(dst: Any, src: Any) -> Any:
    """``dst.copy_(src)`` (an in-place write, e.g. Qwen3-VL's interleaved M-RoPE writing the
    h and w frequencies into strided slices of t's): into a traced array (a view of one:
    NumPy basic slicing keeps torch's aliasing), never into a constant tensor (whose other
    references the trace could not follow)."""
    if not (isinstance(dst, np.ndarray) and dst.dtype == object):
        raise TraceError("fn writes traced values in place into a constant tensor (copy_): the trace cannot follow "
                         "the tensor's other references")
    dst[...] = np.broadcast_to(_to_obj(src), dst.shape)
    return dst


def _expand(a: Any, size: Sequence[int], implicit: bool = False) -> np.ndarray:
    a = _to_obj(a)
    lead = len(size) - a.ndim
    shape = tuple(a.shape[i - lead] if (s == -1 and i >= lead) else s for i, s in enumerate(size))
    return np.broadcast_to(a, shape).copy()


def _split(a: Any, split: Any, dim: int = 0) -> list[np.ndarray]:
    a = _to_obj(a)
    dim = _np_dim(a, dim)
    n = a.shape[dim]
    sizes = [split] * ((n + split - 1) // split) if isinstance(split, int) else list(split)
    cuts = np.cumsum(sizes)[:-1]
    return list(np.split(a, cuts, axis=dim))


def _squeeze(a: Any, dim: Any = None) -> np.ndarray:
    a = _to_obj(a)
    if dim is None:
        return np.squeeze(a)
    dims = [dim] if isinstance(dim, int) else list(dim)
    dims = [_np_dim(a, d) for d in dims if a.shape[_np_dim(a, d)] == 1]
    return np.squeeze(a, axis=tuple(dims)) if dims else a


def _polar(r: Any, theta: Any) -> np.ndarray:
    r, theta = _to_obj(r), _to_obj(theta)
    return r * (np.vectorize(lambda v: v.cos(), otypes=[object])(theta)
                + np.vectorize(lambda v: v.sin(), otypes=[object])(theta) * Traced(sp.I))


def _view_as_complex(a: Any) -> np.ndarray:
    a = _to_obj(a)
    return a[..., 0] + a[..., 1] * Traced(sp.I)


def _view_as_real(a: Any) -> np.ndarray:
    a = _to_obj(a)

    def parts(v: Traced) -> tuple[Traced, Traced]:
        re, im = sp.expand(v.e).as_real_imag()
        return Traced(re), Traced(im)

    re = np.vectorize(lambda v: parts(v)[0], otypes=[object])(a)
    im = np.vectorize(lambda v: parts(v)[1], otypes=[object])(a)
    return np.stack([re, im], axis=-1)


def _sum(a: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> np.ndarray:
    a = _to_obj(a)
    axis = None if dim is None else tuple(_np_dim(a, d) for d in ([dim] if isinstance(dim, int) else dim))
    return np.sum(a, axis=axis, keepdims=keepdim)


def _full_like(value: Any) -> Callable:
    def rule(a: Any, *args: Any, **kw: Any) -> np.ndarray:
        a = _to_obj(a)
        v = value if value is not None else args[0]
        out = np.empty(a.shape, dtype=object)
        out.fill(Traced(exact_number(v)))
        return out
    return rule


def _repeat(a: Any, sizes: Sequence[int]) -> np.ndarray:
    a = _to_obj(a)
    lead = len(sizes) - a.ndim
    return np.tile(a.reshape((1,) * lead + a.shape), tuple(sizes))


_RULES: dict[str, Callable[..., Any]] = {
    "add": _bin(operator.add), "sub": _bin(operator.sub), "rsub": lambda a, b, alpha=1: _bin(operator.sub)(b, a, alpha=alpha),  # other - alpha * self
    "mul": _bin(operator.mul), "div": _bin(operator.truediv),
    "pow": _bin(operator.pow),
    "neg": lambda a: -_to_obj(a), "reciprocal": lambda a: 1 / _to_obj(a),
    "cos": _unary("cos"), "sin": _unary("sin"), "exp": _unary("exp"), "sqrt": _unary("sqrt"),
    # conj / _conj give the conjugate's *value* (a lazy conj bit is still the conjugate);
    # resolve_conj / resolve_neg materialise a value that is already that
    "conj": _unary("conjugate"), "_conj": _unary("conjugate"), "conj_physical": _unary("conjugate"),
    "resolve_conj": _identity, "resolve_neg": _identity,
    "_to_copy": _identity, "clone": _identity, "alias": _view, "detach": _view, "lift_fresh_copy": _identity,
    "copy_": lambda dst, src, non_blocking=False: _copy_into(dst, src),
    "contiguous": _identity, "to": _identity, "_to_dtype": _identity, "type_as": _identity,
    "unsqueeze": lambda a, dim: np.expand_dims(_to_obj(a), dim),
    "squeeze": _squeeze,
    "view": lambda a, shape: np.reshape(_to_obj(a), shape), "_unsafe_view": lambda a, shape: np.reshape(_to_obj(a), shape),
    "reshape": lambda a, shape: np.reshape(_to_obj(a), shape),
    "expand": _expand,
    "permute": lambda a, dims: np.transpose(_to_obj(a), dims),
    "transpose": lambda a, d0, d1: np.swapaxes(_to_obj(a), d0, d1),
    "t": lambda a: _to_obj(a).T,
    "slice": _slice,
    "select": lambda a, dim, index: _to_obj(a)[(slice(None),) * _np_dim(_to_obj(a), dim) + (index,)],  # a view
    "cat": lambda ts, dim=0: np.concatenate([_to_obj(t) for t in ts if _to_obj(t).shape != (0,)], axis=dim),
    "stack": lambda ts, dim=0: np.stack([_to_obj(t) for t in ts], axis=dim),
    "split": _split, "split_with_sizes": _split,
    "mm": lambda a, b: np.matmul(_to_obj(a), _to_obj(b)), "bmm": lambda a, b: np.matmul(_to_obj(a), _to_obj(b)),
    "matmul": lambda a, b: np.matmul(_to_obj(a), _to_obj(b)),
    "repeat_interleave": lambda a, repeats, dim=None, output_size=None: np.repeat(_to_obj(a), repeats, axis=dim),
    "repeat": _repeat,
    "sum": _sum,
    "zeros_like": _full_like(0), "ones_like": _full_like(1), "full_like": _full_like(None),
    "polar": _polar, "view_as_complex": _view_as_complex, "view_as_real": _view_as_real,
}
