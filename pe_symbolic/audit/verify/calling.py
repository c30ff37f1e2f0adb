"""Calling a user's RoPE: which framework it is written for, and which protocol it follows.

:func:`detect_framework` reads the framework from the function itself -- an ``nn.Module``
(or a Flax module), the modules its code names (``torch.cat``, ``jnp.cos``, ``import
torch.nn.functional as F``), the tensors and functions in its closure and defaults, the
functions it calls -- and, where that says nothing or contradicts itself, *tries* the
frameworks that are importable on a small input. When it still cannot tell it raises an
error that names ``framework=``.

:func:`as_call` turns what the user passed into ``call(x, position_ids) -> x_rotated``:

- ``fn(x, position_ids)`` (given ``layer_type=`` when it takes it);
- Hugging Face's pair ``(rotary_emb, apply)``: ``rotary_emb(x, position_ids)`` returns
  ``(cos, sin)`` or one complex ``freqs_cis``; ``apply`` is two-tensor
  (``apply(q, k, cos, sin) -> (q, k)``, ``apply(xq, xk, freqs_cis)``) or one-tensor
  (``apply(x, cos, sin) -> x``, Gemma 3n / 4; ``apply(x, freqs_cis)``); when the tables
  cover fewer channels than the head (partial rotary split in the attention module, as
  GPT-NeoX, Phi, StableLM do), the first ``rotary_dim`` channels are rotated and the rest
  passed through, as the attention module does.

>>> import numpy as np
>>> detect_framework(lambda x, ids: np.cos(ids) * x)[0]
'numpy'
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import inspect
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

__all__ = ["FRAMEWORKS", "CallState", "PairCall", "as_call", "caller", "detect_framework", "interleave_halves",
           "one_torch_thread", "shares_storage"]

#: The frameworks verify_rope calls code in.
FRAMEWORKS: tuple[str, ...] = ("numpy", "torch", "jax")
_ROOTS = {"torch": "torch", "jax": "jax", "jaxlib": "jax", "flax": "jax", "numpy": "numpy", "ml_dtypes": "numpy"}


def _by_name(dotted: str) -> str | None:
    """The framework a module's dotted name says: its package (``torch.nn.functional``), or a
    part named after one (``pe_symbolic.torch``, ``mylib.jax.rope``)."""
    parts = dotted.split(".") if isinstance(dotted, str) else []
    if parts and parts[0] in _ROOTS:
        return _ROOTS[parts[0]]
    return next((_ROOTS[p] for p in parts[1:] if p in ("torch", "jax", "flax")), None)


def _root(obj: Any) -> str | None:
    """The framework an object belongs to (a module, a tensor, a function from it), or None."""
    if isinstance(obj, types.ModuleType):
        return _by_name(obj.__name__)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, (torch.Tensor, torch.nn.Module)):
        return "torch"
    jax = sys.modules.get("jax")
    if jax is not None and isinstance(obj, jax.Array):
        return "jax"
    if isinstance(obj, np.ndarray):
        return "numpy"
    mod = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", None) or ""
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, type)) or callable(obj):
        fw = _by_name(mod) if isinstance(mod, str) else None
        if fw is not None:
            return fw
        name = mod.split(".")[0] if isinstance(mod, str) else ""
        if name == "transformers" and torch is not None and isinstance(obj, type) and issubclass(obj, torch.nn.Module):
            return "torch"
    return None


def _what(v: Any) -> str:
    """``module numpy``, ``function torch.cat``, ``a numpy.ndarray``: what a name refers to."""
    if isinstance(v, types.ModuleType):
        return f"module {v.__name__}"
    if callable(v) and hasattr(v, "__name__"):
        return f"{getattr(v, '__module__', None) or '?'}.{v.__name__}"
    return f"a {type(v).__module__}.{type(v).__name__}"


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
    return names


def _signals(obj: Any, depth: int = 0, seen: set[int] | None = None) -> dict[str, list[str]]:
    """What ``obj`` says about its framework: framework -> the names that say it."""
    seen = set() if seen is None else seen
    out: dict[str, list[str]] = {}
    if id(obj) in seen or depth > 3:
        return out
    seen.add(id(obj))

    def add(fw: str | None, why: str) -> None:
        if fw is not None:
            out.setdefault(fw, []).append(why)

    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.nn.Module):
        add("torch", f"{type(obj).__name__} is a torch.nn.Module")
        return out
    flax = sys.modules.get("flax")
    if flax is not None and type(obj).__module__.startswith("flax"):
        add("jax", f"{type(obj).__name__} is a Flax module")
        return out
    if isinstance(obj, functools.partial):
        for v in (obj.func, *obj.args, *obj.keywords.values()):
            for fw, why in _signals(v, depth + 1, seen).items():
                out.setdefault(fw, []).extend(why)
        return out
    if isinstance(obj, types.MethodType):
        for fw, why in _signals(obj.__self__, depth + 1, seen).items():
            out.setdefault(fw, []).extend(why)
        obj = obj.__func__
    if not isinstance(obj, types.FunctionType):
        if callable(obj) and not isinstance(obj, type) and hasattr(type(obj), "__call__"):
            call = getattr(type(obj), "__call__", None)
            if isinstance(call, types.FunctionType):
                for fw, why in _signals(call, depth + 1, seen).items():
                    out.setdefault(fw, []).extend(why)
            for v in vars(obj).values() if hasattr(obj, "__dict__") else ():
                add(_root(v) if _root(v) != "numpy" or isinstance(v, np.ndarray) else None,
                    f"an attribute of type {type(v).__name__}")
        add(_root(obj) if not isinstance(obj, (types.FunctionType, type)) or _root(obj) != "numpy" else None,
            f"{getattr(obj, '__name__', type(obj).__name__)} comes from {getattr(obj, '__module__', '?')}")
        return out
    glb = obj.__globals__
    for name in sorted(_code_names(obj.__code__)):
        v = glb.get(name, getattr(glb.get("__builtins__"), name, None) if not isinstance(glb.get("__builtins__"), dict)
                    else glb["__builtins__"].get(name))
        if v is None:
            continue
        fw = _root(v)
        if fw is not None:
            add(fw, f"{obj.__name__} uses {name} ({_what(v)})")
        elif isinstance(v, types.FunctionType) and depth < 3:
            for fw2, why in _signals(v, depth + 1, seen).items():
                out.setdefault(fw2, []).extend(why)
    cells = [c.cell_contents for c in (obj.__closure__ or ()) if _cell_ok(c)]
    for v in cells + list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values()):
        fw = _root(v)
        if fw is not None and not isinstance(v, type):
            add(fw, f"{obj.__name__} holds a {type(v).__name__} from {fw}")
        elif isinstance(v, (types.FunctionType, types.MethodType, functools.partial)) or (
                torch is not None and isinstance(v, torch.nn.Module)):
            for fw2, why in _signals(v, depth + 1, seen).items():
                out.setdefault(fw2, []).extend(why)
    return out


def _cell_ok(cell: Any) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _importable(fw: str) -> bool:
    return fw == "numpy" or fw in sys.modules or importlib.util.find_spec(fw) is not None


def detect_framework(fn: Any, framework: str | None = None, *,
                     trial: Callable[[str], Exception | None] | None = None) -> tuple[str, str]:
    """The framework ``fn`` is written for, and how that was found.

    Parameters
    ----------
    fn : callable, tuple of callables, or mapping of them
        What the user passed to :func:`~pe_symbolic.verify_rope`.
    framework : {"numpy", "torch", "jax"}, optional
        Given by the user: taken as it is (checked).
    trial : callable, optional
        ``trial(framework)`` calls ``fn`` on a small input in that framework and returns
        the exception it raised (None when it ran): used when ``fn`` itself does not say.

    Returns
    -------
    (str, str)
        The framework and one sentence on how it was found.

    Raises
    ------
    ValueError
        A ``framework`` not allowed, or one that cannot be told (the message says what was
        tried and names ``framework=``).

    Examples
    --------
    >>> detect_framework(lambda x, ids: x, "jax")
    ('jax', 'given: framework=jax')
    """
    if framework is not None:
        if framework not in FRAMEWORKS:
            raise ValueError(f"framework={framework!r} is not allowed; use 'numpy', 'torch', 'jax' or None (detected)")
        return framework, f"given: framework={framework}"
    parts = list(fn) if isinstance(fn, tuple) else list(fn.values()) if isinstance(fn, Mapping) else [fn]
    found: dict[str, list[str]] = {}
    for part in parts:
        for fw, why in _signals(part).items():
            found.setdefault(fw, []).extend(why)
    strong = [fw for fw in ("torch", "jax") if fw in found]
    if len(strong) == 1:
        return strong[0], f"detected: {found[strong[0]][0]}"
    if not strong and "numpy" in found:
        return "numpy", f"detected: {found['numpy'][0]}"
    # nothing said, or torch and jax both: try the importable frameworks on a small input
    tried: list[str] = []
    if trial is not None:
        order = strong or [fw for fw in FRAMEWORKS if _importable(fw)]
        ok = []
        for fw in order:
            exc = trial(fw)
            if exc is None:
                ok.append(fw)
            else:
                tried.append(f"{fw}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:160])
        if ok:
            how = "ran on a small input in " + ", ".join(ok)
            return ok[0], f"tried: {how}" + (f" (not in {', '.join(t.split(':')[0] for t in tried)})" if tried else "")
    said = "; ".join(f"{fw}: {w[0]}" for fw, w in found.items()) or "it names no framework"
    raise ValueError("cannot tell which framework fn is written for (" + said
                     + ("; tried " + "; ".join(tried) if tried else "")
                     + "); pass framework='numpy', 'torch' or 'jax'")


# ---------------------------------------------------------------------------- protocols


_KEY_NAMES = frozenset({"k", "xk", "key", "keys", "key_states", "k_embed", "k_states"})


def _tensor_args(f: Any) -> int | None:
    """How many tensors ``apply`` takes before its tables: 2 (``q, k``: its second parameter
    is named like a key, or it needs four arguments) or 1 (``x``); None when its signature
    says nothing."""
    target = f.forward if hasattr(f, "forward") and not isinstance(f, types.FunctionType) else f
    try:
        params = [p for p in inspect.signature(target).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return None
    if not params:
        return None
    if len(params) >= 2 and params[1].name in _KEY_NAMES:
        return 2
    return 1 if sum(1 for p in params if p.default is p.empty) <= 3 else 2


def _tensor_args_required(f: Any) -> int:
    target = f.forward if hasattr(f, "forward") and not isinstance(f, types.FunctionType) else f
    try:
        return sum(1 for p in inspect.signature(target).parameters.values()
                   if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)
    except (TypeError, ValueError):
        return 3


def accepts_layer_type(f: Any) -> bool:
    """Whether ``f`` (or its ``forward``) takes ``layer_type=``."""
    target = getattr(f, "forward", f)
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "layer_type" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _cat(parts: list[Any], kind: str) -> Any:
    if kind == "torch":
        import torch

        return torch.cat(parts, -1)
    if kind == "jax":
        import jax.numpy as jnp

        return jnp.concatenate(parts, -1)
    return np.concatenate(parts, -1)


def _cat_heads(parts: list[Any], kind: str) -> Any:
    if kind == "torch":
        import torch

        return torch.cat(parts, 1)
    if kind == "jax":
        import jax.numpy as jnp

        return jnp.concatenate(parts, 1)
    return np.concatenate(parts, 1)


def shares_storage(a: Any, b: Any) -> bool:
    """Whether two outputs (torch tensors or NumPy arrays) share memory; JAX arrays never do."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.device != b.device or a.numel() == 0 or b.numel() == 0:
            return False
        try:
            sa, sb = a.untyped_storage(), b.untyped_storage()
            return sa.data_ptr() == sb.data_ptr() and sa.nbytes() > 0
        except (RuntimeError, NotImplementedError):  # a fake or functional tensor (a trace): no storage
            return False
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.may_share_memory(a, b)) and bool(np.shares_memory(a, b, max_work=10**6))
    return False


def _aliased(qo: Any, ko: Any, found: list[str]) -> None:
    if not found and shares_storage(qo, ko):
        found.append("apply's q and k outputs share storage (one output buffer for both): q is overwritten by k")


class PairCall:
    """HF's pair ``(rotary_emb, apply)`` as ``call(x, position_ids)``; see the module notes.

    ``protocol`` says which form was found on the first real call (``decide``)."""

    def __init__(self, rotary_emb: Callable, apply: Callable, kind: str, head_dim: int, rotary_dim: int,
                 layer_type: str | None, heads: tuple[int, int] = (1, 1)) -> None:
        self.rotary_emb, self.apply, self.kind = rotary_emb, apply, kind
        self.d, self.r = head_dim, rotary_dim
        self.kw = {"layer_type": layer_type} if layer_type is not None and accepts_layer_type(rotary_emb) else {}
        self.split: bool | None = None
        self.seq_first = False  # apply takes (batch, seq, heads, head_dim) (Llama 4's, DeepSeek V2's complex form)
        self.protocol = ""
        self.heads = heads  # the config's (q heads, kv heads)
        self.k_read = False  # whether apply gave a k output (a two-tensor apply) on the last call
        self.aliasing: list[str] = []  # q and k outputs that share storage (said once)
        self.deciding = False  # decide() calls apply(x, x, ...) (one tensor's shape tells the layout)

    def kv_heads(self, h: int) -> int:
        """How many of ``h`` heads of a call are k heads (the last ones; the first are q heads):
        the config's ratio, at least one of each; 0 for one head (q = k = x, HF's own
        ``apply(x, x, cos, sin)``)."""
        if h < 2:
            return 0
        hq, hk = self.heads
        if h == hq + hk:
            return hk
        return max(1, min(h - 1, round(h * hk / (hq + hk))))

    def _apply(self, q: Any, k: Any, tables: Any) -> tuple[Any, Any]:
        """``(q_out, k_out)``: a two-tensor apply called once on ``(q, k)``; a one-tensor apply
        on each. ``k_out`` is None where a two-tensor apply returned one tensor."""
        n = _tensor_args(self.apply)
        if isinstance(tables, tuple) and len(tables) == 2:
            cos, sin = tables
            if n == 1:
                out, form = (self.apply(q, cos, sin), self.apply(k, cos, sin) if k is not q else None), \
                    "apply(x, cos, sin)"
            else:
                out, form = self.apply(q, k, cos, sin), "apply(q, k, cos, sin)"
        else:
            if n == 1 and _tensor_args_required(self.apply) <= 2:
                out, form = (self.apply(q, tables), self.apply(k, tables) if k is not q else None), \
                    "apply(x, freqs_cis)"
            else:
                out, form = self.apply(q, k, tables), "apply(xq, xk, freqs_cis)"
        self.protocol = self.protocol or form
        if isinstance(out, (tuple, list)):
            qo = out[0]
            ko = out[1] if len(out) > 1 else None
        else:
            qo, ko = out, None
        return qo, ko

    def _width(self, tables: Any) -> int | None:
        t = tables[0] if isinstance(tables, tuple) else tables
        shape = getattr(t, "shape", None)
        if not shape:
            return None
        w = int(shape[-1])
        return 2 * w if getattr(t, "dtype", None) is not None and "complex" in str(t.dtype) else w

    def _swap(self, x: Any) -> Any:
        if self.kind == "torch":
            return x.transpose(1, 2)
        if self.kind == "jax":
            import jax.numpy as jnp

            return jnp.swapaxes(x, 1, 2)
        return np.swapaxes(x, 1, 2)

    def _rotate(self, x: Any, tables: Any) -> Any:
        """``x``'s first heads as q, its last ``kv_heads`` as k, both rotated, and put
        back together (one head: ``apply(x, x, ...)``, its q output)."""
        h = int(x.shape[1])
        nk = 0 if self.deciding else self.kv_heads(h)
        sw = self._swap if self.seq_first else (lambda t: t)
        if not nk:
            return sw(self._apply(sw(x), sw(x), tables)[0])
        q, k = sw(x[:, : h - nk]), sw(x[:, h - nk:])
        qo, ko = self._apply(q, k, tables)
        if ko is None:
            raise ValueError("apply returned one tensor for (q, k): a two-tensor apply must return (q_rotated, "
                             "k_rotated)")
        qo, ko = sw(qo), sw(ko)
        self.k_read = True
        _aliased(qo, ko, self.aliasing)
        return _cat_heads([qo, ko], self.kind)

    def __call__(self, x: Any, ids: Any) -> Any:
        tables = self.rotary_emb(x, ids, **self.kw)
        if self.split is None:  # decided on a real call (see decide), the full head by default
            self.split = False
        if self.split:
            r = self.r
            return _cat([self._rotate(x[..., :r], tables), x[..., r:]], self.kind)
        return self._rotate(x, tables)

    def decide(self, x: Any, ids: Any) -> None:
        """On a real input ``x`` of shape ``(1, heads, seq, head_dim)`` with ``heads != seq``:
        whether ``apply`` takes ``(batch, heads, seq, head_dim)`` (HF's ``unsqueeze_dim=1``)
        or ``(batch, seq, heads, head_dim)`` (Llama 4's complex ``apply_rotary_emb``), and
        whether the tables cover fewer channels than the head while ``apply`` does not take
        the whole head -> rotate the first ``rotary_dim`` channels ourselves, as the
        attention module does."""
        tables = self.rotary_emb(x, ids, **self.kw)
        width = self._width(tables)
        errors = []
        self.deciding = True
        try:
            self._decide(x, tables, width, errors)
        finally:
            self.deciding = False

    def _decide(self, x: Any, tables: Any, width: int | None, errors: list[Exception]) -> None:
        for seq_first in (False, True):
            for split in ((False, True) if width is not None and width < self.d and width == self.r else (False,)):
                self.seq_first, self.split, self.protocol = seq_first, split, ""
                try:
                    out = self._rotate(x[..., : self.r] if split else x, tables)
                except Exception as exc:  # noqa: BLE001 - this form does not fit: try the next
                    errors.append(exc)
                    continue
                if tuple(getattr(out, "shape", ())) == tuple((x[..., : self.r] if split else x).shape):
                    if split:
                        self.protocol += f" on x[..., :{self.r}] (the rest passed through, as the attention module does)"
                    if seq_first:
                        self.protocol += " on (batch, seq, heads, head_dim)"
                    return
        if errors:
            raise errors[0]
        raise ValueError(f"apply returned no tensor of x's shape {tuple(x.shape)} in any form tried")


def as_call(fn: Any, *, kind: str, head_dim: int, rotary_dim: int, layer_type: str | None,
            heads: tuple[int, int] = (1, 1)) -> tuple[Callable[[Any, Any], Any], bool]:
    """``fn`` as ``call(x, position_ids)``, and whether it was given ``layer_type=``.
    ``heads``: the config's (q heads, kv heads), for HF's pair (``PairCall.kv_heads``)."""
    if isinstance(fn, tuple):
        if len(fn) != 2 or not all(callable(f) for f in fn):
            raise TypeError("fn as a tuple must be HF's pair (rotary_emb, apply_rotary_pos_emb)")
        pc = PairCall(fn[0], fn[1], kind, head_dim, rotary_dim, layer_type, heads)
        return pc, bool(pc.kw)
    if not callable(fn):
        raise TypeError(f"fn={fn!r} is not callable (a function fn(x, position_ids), HF's pair (rotary_emb, apply), "
                        "or a dict of them by layer type or entry point)")
    if layer_type is not None and accepts_layer_type(fn):
        return (lambda x, ids: fn(x, ids, layer_type=layer_type)), True
    return fn, False


def interleave_halves(x: Any, r: int, kind: str) -> Any:
    """``Q x``: the first ``r`` channels of ``x`` with slot ``i`` moved to ``2i`` and slot
    ``i + r/2`` to ``2i + 1`` (the rest as they are), in ``x``'s own framework."""
    if kind == "torch":
        import torch

        stack = torch.stack
    elif kind == "jax":
        import jax.numpy as jnp

        stack = jnp.stack
    else:
        stack = np.stack
    h = r // 2
    inter = stack([x[..., :h], x[..., h:r]], -1).reshape(tuple(x.shape[:-1]) + (r,))
    return _cat([inter, x[..., r:]], kind) if r < x.shape[-1] else inter


def to_framework(x: np.ndarray, ids: np.ndarray, kind: str, dtype: str) -> tuple[Any, Any]:
    """``x`` (float64 values) in ``dtype`` and ``ids`` (int32 / int64) in framework ``kind``."""
    if kind == "torch":
        import torch

        # copies: a function that writes into its input must not write into the plan's arrays
        return torch.tensor(np.ascontiguousarray(x), dtype=torch.float64).to(getattr(torch, dtype)), torch.tensor(
            np.ascontiguousarray(ids))
    if kind == "jax":
        import jax.numpy as jnp

        return jnp.asarray(x, dtype=dtype), jnp.asarray(ids)
    if dtype == "bfloat16":
        import ml_dtypes

        return x.astype(ml_dtypes.bfloat16), ids.copy()
    return x.astype(dtype), ids.copy()


class CallState:
    """What the calls showed besides their values: the caller's input written into (an
    in-place rotation), an output that shares storage with the previous call's (one static
    buffer), q and k outputs in one buffer (:class:`PairCall`). Each is said once, with the
    call that showed it."""

    def __init__(self) -> None:
        self.calls = 0
        self.inplace: str | None = None
        self.ids_written: str | None = None
        self.shared: str | None = None
        self.prev: Any = None

    def findings(self) -> list[str]:
        """The sentences, in order (empty when nothing was seen)."""
        return [w for w in (self.inplace, self.ids_written, self.shared) if w]


def _same(a: Any, b: Any) -> bool:
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(a, torch.Tensor):
        return bool(torch.equal(a, b)) or bool(torch.equal(torch.nan_to_num(a), torch.nan_to_num(b)))
    return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind == "f"))


def _copy(a: Any) -> Any:
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(a, torch.Tensor):
        return a.clone()
    return np.array(a, copy=True) if isinstance(a, np.ndarray) else a  # JAX arrays are immutable


def caller(call: Callable[[Any, Any], Any], kind: str, dtype: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``call`` as a function of NumPy arrays (``x`` float64 values, positions int32 / int64)
    returning float64: the arrays are converted to the framework and the dtype first.

    The returned function has ``state`` (:class:`CallState`): an input written into by the
    call, an output sharing storage with the previous call's (kept alive for the check)."""
    state = CallState()
    pair = call if isinstance(call, PairCall) else getattr(call, "pair", None)

    def run(x: np.ndarray, ids: np.ndarray) -> np.ndarray:
        xs, ii = to_framework(x, ids, kind, dtype)
        x0, i0 = (_copy(xs), _copy(ii)) if kind != "jax" else (None, None)
        state.calls += 1
        if kind == "torch":
            import torch

            with torch.no_grad():
                out = call(xs, ii)
        else:
            out = call(xs, ii)
        if isinstance(out, (tuple, list)):
            raise ValueError(f"fn returned a {type(out).__name__} of {len(out)}; it must return the rotated x "
                             "(pass HF's pair as (rotary_emb, apply_rotary_pos_emb))")
        if kind != "jax":
            if state.inplace is None and not _same(xs, x0):
                state.inplace = (f"it rotates the caller's x in place (call {state.calls}, x of shape "
                                 f"{tuple(x.shape)}: the input tensor is changed by the call)" +
                                 (" -- the output is x itself" if shares_storage(out, xs) else ""))
            if state.ids_written is None and not _same(ii, i0):
                state.ids_written = f"it writes into position_ids (call {state.calls}): the caller's ids are changed"
            if state.shared is None and state.prev is not None and shares_storage(out, state.prev) \
                    and not shares_storage(out, xs):
                state.shared = (f"its output shares storage with the previous call's (call {state.calls}): one static "
                                "output buffer, so q = f(q); k = f(k) leaves q equal to k")
            state.prev = out  # kept alive: a new output in its storage is then a reuse, not the allocator's
            if pair is not None and pair.aliasing and state.shared is None:
                state.shared = pair.aliasing[0]
        if kind == "torch":
            if out.is_complex():
                raise ValueError("fn returned a complex tensor; it must return the rotated x, real, x's shape")
            return out.detach().to(torch.float64).cpu().numpy()
        arr = np.asarray(out)
        if arr.dtype.kind == "c":
            raise ValueError("fn returned a complex array; it must return the rotated x, real, x's shape")
        return arr.astype(np.float64)
    run.state = state  # type: ignore[attr-defined]
    return run


@contextlib.contextmanager
def one_torch_thread() -> Iterator[None]:
    """The user's torch calls on one intra-op thread, restored afterwards: verify makes many
    small calls, and on a loaded machine a parallel region waits for a free core (measured on
    two shared cores: HF's rotary pair on a (3, 3, 64, 128) input, 4 ms on one thread, 330 ms
    on two). Elementwise results do not depend on the thread count."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(n)
