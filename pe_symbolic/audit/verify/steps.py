r"""The user's attention step, called as :func:`pe_symbolic.verify_attention`'s scenarios call it.

Two forms, each read back into NumPy (float64) after every call:

a plain function ``step(q, k, v, position_ids, cache) -> (result, cache)``
    ``q`` of shape ``(batch, q_heads, seq, head_dim)``, ``k`` and ``v`` of ``(batch, kv_heads,
    seq, head_dim)`` -- all *unrotated*, in the dtype checked, in the step's framework (NumPy,
    PyTorch or JAX) -- ``position_ids`` ``(batch, seq)`` int64, and ``cache``: ``None`` on a
    sequence's first call, then what the step returned last. When the step takes an
    ``attention_mask`` keyword it is given HF's 2-D mask ``(batch, cached + seq)`` (1 for a token,
    0 for a pad). ``result`` is the pre-softmax scores ``(batch, q_heads, seq, cached + seq)``,
    the attention output ``(batch, q_heads, seq, head_dim)`` (or ``(batch, seq, q_heads,
    head_dim)``, or ``(batch, seq, q_heads * head_dim)``), or a pair ``(output, weights)`` as
    HF's attention functions return it (weights: the softmax probabilities, or None); pass
    ``returns=`` where the shape cannot tell. The cache's keys are read from an HF ``Cache``
    (``cache.layers[0].keys``), a ``(keys, values)`` tuple, a dict with ``"k"`` / ``"keys"``,
    or a tensor of keys -- ``(batch, kv_heads, slots, head_dim)`` or ``(batch, slots, kv_heads,
    head_dim)``, a static cache's unused slots after the used ones -- else by ``cache_keys=``.
an HF attention module
    (transformers' ``LlamaAttention`` and the families that copy it: ``q_proj``, ``k_proj``,
    ``v_proj``, ``o_proj`` -- or Phi-3's fused ``qkv_proj``, GPT-NeoX's ``query_key_value`` and
    ``dense`` -- called with ``position_embeddings``, a 4-D ``attention_mask``, ``cache`` /
    ``past_key_values`` / ``layer_past`` and ``cache_position``), alone or as ``(module,
    rotary_emb)``. Its projections are replaced for the run (and put back after) by slices of
    ``hidden_states``, which then carries ``[q | k | v]`` (each head's side by side for
    GPT-NeoX): what the module rotates, stores and attends to is exactly the drawn ``q``,
    ``k``, ``v``; the output projection (and ``q_norm`` / ``k_norm`` where it has them) become
    the identity. The rotary module is the one given,
    else the ``*RotaryEmbedding`` class of the module's own modeling file, built from its
    config; the cache is a fresh ``DynamicCache`` per scenario (``new_cache=`` for another).

>>> import numpy as np
>>> def step(q, k, v, position_ids, cache):        # no RoPE at all: the adapter does not care
...     keys = k if cache is None else np.concatenate([cache[0], k], 2)
...     return q @ keys.transpose(0, 1, 3, 2), (keys, None)
>>> s = FunctionStep(step, "numpy", "float64", (2, 2), 4)
>>> res, cache = s.call(np.ones((1, 2, 3, 4)), np.ones((1, 2, 3, 4)), np.ones((1, 2, 3, 4)), np.arange(3)[None],
...                     None, np.ones((1, 3), np.int64), np.ones((1, 3, 3), bool))
>>> s.returns, res.scores.shape, res.keys.shape
('scores', (1, 2, 3, 3), (1, 2, 3, 4))
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["RETURNS", "FunctionStep", "HFModuleStep", "StepResult", "as_step", "is_hf_attention", "read_keys"]

#: What a step may return, as ``returns=`` names it.
RETURNS = ("scores", "weights", "output", "output+weights", "output+scores")


@dataclass
class StepResult:
    """One call's result, in float64 NumPy: ``scores`` (pre-softmax) or ``weights``
    (probabilities) ``(batch, q_heads, seq, slots)``, ``out`` ``(batch, q_heads, seq,
    head_dim)``, and the cache's ``keys`` ``(batch, kv_heads, slots, head_dim)`` (None where
    the step gave none)."""

    scores: np.ndarray | None = None
    weights: np.ndarray | None = None
    out: np.ndarray | None = None
    keys: np.ndarray | None = None


def _np(x: Any) -> np.ndarray:
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return x.detach().to(torch.float64).cpu().numpy()
    return np.asarray(x).astype(np.float64)


def _to(kind: str, x: np.ndarray, dtype: str | None) -> Any:
    """``x`` in framework ``kind``: floats in ``dtype``, integers as int64 (copies)."""
    if kind == "torch":
        import torch

        if dtype is None:
            return torch.tensor(np.ascontiguousarray(x), dtype=torch.int64)
        return torch.tensor(np.ascontiguousarray(x), dtype=torch.float64).to(getattr(torch, dtype))
    if kind == "jax":
        import jax.numpy as jnp

        return jnp.asarray(x, dtype=dtype or "int64")
    if dtype is None:
        return np.array(x, dtype=np.int64)
    if dtype == "bfloat16":
        import ml_dtypes

        return x.astype(ml_dtypes.bfloat16)
    return x.astype(dtype)


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(int(n) for n in getattr(x, "shape", ()))


def read_keys(cache: Any, layer_idx: int = 0) -> Any:
    """The keys a cache holds (a tensor / array), read from the forms the module notes list.

    >>> read_keys((np.zeros((1, 2, 3, 4)), None)).shape
    (1, 2, 3, 4)
    >>> read_keys({"v": 1})
    Traceback (most recent call last):
    ...
    ValueError: cannot read the keys from the step's cache (a dict with keys ['v']); accepted: an HF Cache (cache.layers[i].keys), a (keys, values) tuple, a dict with 'k', 'key', 'keys', 'k_cache' or 'key_cache', or a keys tensor -- or pass cache_keys=lambda cache: <its keys, (batch, kv_heads, slots, head_dim)>
    """
    layers = getattr(cache, "layers", None)
    if isinstance(layers, (list, tuple)) and layers and hasattr(layers[min(layer_idx, len(layers) - 1)], "keys"):
        return layers[layer_idx].keys
    kc = getattr(cache, "key_cache", None)
    if isinstance(kc, (list, tuple)) and kc:
        return kc[layer_idx]
    if isinstance(cache, Mapping):
        for name in ("k", "key", "keys", "k_cache", "key_cache"):
            if name in cache:
                return cache[name]
        what = f"a dict with keys {sorted(map(str, cache))!r}"
    elif isinstance(cache, (tuple, list)) and cache and len(_shape(cache[0])) == 4:
        return cache[0]
    elif len(_shape(cache)) == 4:
        return cache
    else:
        what = "None" if cache is None else f"a {type(cache).__name__}"
    raise ValueError(f"cannot read the keys from the step's cache ({what}); accepted: an HF Cache "
                     "(cache.layers[i].keys), a (keys, values) tuple, a dict with 'k', 'key', 'keys', 'k_cache' or "
                     "'key_cache', or a keys tensor -- or pass cache_keys=lambda cache: <its keys, (batch, kv_heads, "
                     "slots, head_dim)>")


class _Step:
    """What both forms share: deciding the result's form and the keys' layout on the first
    call, and reading them back."""

    def __init__(self, kind: str, dtype: str, heads: tuple[int, int], head_dim: int, returns: str | None = None,
                 cache_keys: Callable[[Any], Any] | None = None, layer_idx: int = 0) -> None:
        self.kind, self.dtype, self.heads, self.d = kind, dtype, heads, head_dim
        self.returns = returns
        self.cache_keys = cache_keys
        self.layer_idx = layer_idx
        self.out_layout: str | None = None  # "heads-first", "seq-first", "flat"
        self.keys_layout: str | None = None  # "heads-first", "seq-first"
        self.static: int | None = None  # a cache with more slots than used: its capacity
        self.protocol = ""
        self.notes: list[str] = []

    # -- the result ------------------------------------------------------------------------
    def _out(self, x: Any, b: int, s: int) -> np.ndarray:
        hq, d = self.heads[0], self.d
        shape = _shape(x)
        if self.out_layout is None:
            if shape == (b, hq, s, d):
                self.out_layout = "heads-first"
            elif shape == (b, s, hq, d):
                self.out_layout = "seq-first"
            elif shape == (b, s, hq * d):
                self.out_layout = "flat"
            else:
                raise ValueError(f"the step's output has shape {shape}; accepted: (batch, q_heads, seq, head_dim) = "
                                 f"{(b, hq, s, d)}, (batch, seq, q_heads, head_dim) or (batch, seq, q_heads * "
                                 "head_dim)")
        a = _np(x)
        if self.out_layout == "seq-first":
            a = a.transpose(0, 2, 1, 3)
        elif self.out_layout == "flat":
            a = a.reshape(b, s, hq, d).transpose(0, 2, 1, 3)
        if a.shape != (b, hq, s, d):
            raise ValueError(f"the step's output has shape {shape} on a call of {s} tokens; it gave {self.out_layout} "
                             "outputs before")
        return a

    def _square(self, x: Any, b: int, s: int, slots: int, what: str) -> np.ndarray:
        shape = _shape(x)
        if len(shape) != 4 or shape[:3] != (b, self.heads[0], s) or shape[3] < slots:
            raise ValueError(f"the step's {what} have shape {shape}; they must be (batch, q_heads, seq, slots) = "
                             f"{(b, self.heads[0], s, slots)} (slots: the keys cached so far, this call's included)")
        return _np(x)[..., :slots]

    def parse(self, result: Any, b: int, s: int, slots: int) -> StepResult:
        """The call's ``result`` as a :class:`StepResult` (its form decided on the first call)."""
        hq, d = self.heads[0], self.d
        if self.returns is None:
            if isinstance(result, (tuple, list)):
                if len(result) != 2:
                    raise ValueError(f"the step returned a result of {len(result)} parts; accepted: scores, the "
                                     "output, or (output, weights)")
                self.returns = "output+weights"
            else:
                shape = _shape(result)
                if len(shape) == 4 and shape[:3] == (b, hq, s) and shape[3] >= slots and shape[3] != d:
                    self.returns = "scores"
                elif shape and shape[-1] in (d, hq * d):
                    self.returns = "output"
                else:
                    raise ValueError(f"the step's result has shape {shape}; accepted: scores (batch, q_heads, seq, "
                                     f"slots) = {(b, hq, s, slots)}, the output (batch, q_heads, seq, head_dim) = "
                                     f"{(b, hq, s, d)}, or (output, weights); pass returns= to say which")
        r = self.returns
        if r in ("output+weights", "output+scores"):
            if not isinstance(result, (tuple, list)) or len(result) != 2:
                raise ValueError(f"returns={r!r}: the step must return (output, {r.split('+')[1]})")
            out = self._out(result[0], b, s)
            second = None if result[1] is None else self._square(result[1], b, s, slots, r.split("+")[1])
            return StepResult(out=out, **({"weights": second} if r == "output+weights" else {"scores": second}))
        if isinstance(result, (tuple, list)):
            raise ValueError(f"returns={r!r}: the step returned a {type(result).__name__}, not one tensor")
        if r == "output":
            return StepResult(out=self._out(result, b, s))
        return StepResult(**{r: self._square(result, b, s, slots, r)})

    # -- the cache -------------------------------------------------------------------------
    def keys(self, cache: Any, slots: int) -> np.ndarray:
        """The keys ``cache`` holds, ``(batch, kv_heads, rows, head_dim)`` (at most ``slots``
        rows of a static cache)."""
        raw = self.cache_keys(cache) if self.cache_keys is not None else read_keys(cache, self.layer_idx)
        shape = _shape(raw)
        hk, d = self.heads[1], self.d
        if len(shape) != 4 or shape[-1] != d:
            raise ValueError(f"the cache's keys have shape {shape}; they must be (batch, kv_heads, slots, head_dim) "
                             f"with head_dim {d}, or (batch, slots, kv_heads, head_dim)")
        if self.keys_layout is None:
            if shape[1] == hk and shape[2] != hk:
                self.keys_layout = "heads-first"
            elif shape[2] == hk and shape[1] != hk:
                self.keys_layout = "seq-first"
            elif shape[1] == hk:
                return _np(raw)  # one slot per head as yet: decided on a later call
            else:
                raise ValueError(f"the cache's keys have shape {shape}: no axis of the config's {hk} kv heads")
        a = _np(raw)
        if self.keys_layout == "seq-first":
            a = a.transpose(0, 2, 1, 3)
        if a.shape[2] > slots:
            self.static = a.shape[2]
            a = a[:, :, :slots]
        return a


def _accepts(fn: Any, name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name for p in params)


def _takes_kwargs(fn: Any) -> bool:
    try:
        return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False


class FunctionStep(_Step):
    """``step(q, k, v, position_ids, cache[, attention_mask=]) -> (result, cache)``."""

    def __init__(self, fn: Callable, kind: str, dtype: str, heads: tuple[int, int], head_dim: int,
                 returns: str | None = None, cache_keys: Callable[[Any], Any] | None = None) -> None:
        super().__init__(kind, dtype, heads, head_dim, returns, cache_keys)
        self.fn = fn
        self.wants_mask = _accepts(fn, "attention_mask")
        self.protocol = ("step(q, k, v, position_ids, cache" + (", attention_mask=" if self.wants_mask else "")
                         + ") -> (result, cache)")

    def new_cache(self) -> Any:
        """The cache a sequence starts with: None."""
        return None

    def compiled(self, backend: str | None) -> FunctionStep:
        """The same step through ``torch.compile`` (raises where torch cannot)."""
        import torch

        fn = torch.compile(self.fn, backend=backend) if backend else torch.compile(self.fn)
        other = FunctionStep(fn, self.kind, self.dtype, self.heads, self.d, self.returns, self.cache_keys)
        other.wants_mask, other.out_layout, other.keys_layout = self.wants_mask, self.out_layout, self.keys_layout
        return other

    def call(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, ids: np.ndarray, cache: Any, mask2d: np.ndarray,
             allowed: np.ndarray) -> tuple[StepResult, Any]:
        """One call; ``allowed`` ``(batch, seq, slots)`` is not given to a plain function."""
        b, s = ids.shape
        slots = int(mask2d.shape[1])
        args = [_to(self.kind, a, self.dtype) for a in (q, k, v)] + [_to(self.kind, ids, None)]
        kw = {"attention_mask": _to(self.kind, mask2d, None)} if self.wants_mask else {}
        with _no_grad(self.kind):
            got = self.fn(*args, cache, **kw)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise ValueError(f"the step returned a {type(got).__name__}; it must return (result, cache): the scores "
                             "or the output, and the cache to pass to its next call")
        result, cache = got
        res = self.parse(result, b, s, slots)
        if cache is None:
            raise ValueError("the step returned cache=None: it must return the cache its next call continues from")
        res.keys = self.keys(cache, slots)
        return res, cache


@contextlib.contextmanager
def _no_grad(kind: str) -> Iterator[None]:
    if kind == "torch":
        import torch

        with torch.no_grad():
            yield
    else:
        yield


def _projections(obj: Any) -> str | None:
    """How an HF attention module projects: ``"qkv"`` (``q_proj``, ``k_proj``, ``v_proj``),
    ``"fused"`` (Phi-3's ``qkv_proj``: q, then k, then v), ``"per_head"`` (GPT-NeoX's
    ``query_key_value``: each head's q, k, v side by side), or None."""
    if all(hasattr(obj, n) for n in ("q_proj", "k_proj", "v_proj")):
        return "qkv"
    if hasattr(obj, "qkv_proj"):
        return "fused"
    if hasattr(obj, "query_key_value"):
        return "per_head"
    return None


def is_hf_attention(obj: Any) -> bool:
    """Whether ``obj`` is an HF-style attention module (a torch module with ``q_proj``,
    ``k_proj`` and ``v_proj``, Phi-3's fused ``qkv_proj`` or GPT-NeoX's ``query_key_value``)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.nn.Module) and _projections(obj) is not None


def _rotary_for(module: Any) -> Any:
    """The ``*RotaryEmbedding`` class of the module's modeling file, built from its config."""
    mod = sys.modules.get(type(module).__module__)
    cfg = getattr(module, "config", None)
    found = [v for n, v in vars(mod).items() if n.endswith("RotaryEmbedding") and "Vision" not in n
             and isinstance(v, type)] if mod is not None else []
    if not found or cfg is None:
        raise ValueError(f"no rotary module for {type(module).__name__}: its modeling file defines no "
                         "*RotaryEmbedding (or the module has no config); pass (module, rotary_emb)")
    return found[0](config=cfg)


class HFModuleStep(_Step):
    """An HF attention module with its cache (see the module notes)."""

    def __init__(self, module: Any, rotary_emb: Any, dtype: str, heads: tuple[int, int], head_dim: int,
                 new_cache: Callable[[], Any] | None = None, cache_keys: Callable[[Any], Any] | None = None,
                 layer_type: str | None = None) -> None:
        super().__init__("torch", dtype, heads, head_dim, "output+weights", cache_keys,
                         int(getattr(module, "layer_idx", 0) or 0))
        self.module = module
        self.target = module  # what is called (the compiled module, after compiled())
        self.rotary = rotary_emb if rotary_emb is not None else _rotary_for(module)
        if rotary_emb is None:
            self.notes.append(f"rotary module: {type(self.rotary).__name__} of {type(module).__module__}, built from "
                              "the module's config")
        self.rot_kw = {"layer_type": layer_type} if layer_type is not None and _accepts(
            getattr(self.rotary, "forward", self.rotary), "layer_type") else {}
        self.new_cache_fn = new_cache
        fwd = getattr(module, "forward", module)
        self.proj = _projections(module)
        if self.proj == "per_head" and heads[0] != heads[1]:
            raise ValueError(f"{type(module).__name__}'s query_key_value holds each head's q, k and v side by side: it "
                             f"needs as many kv heads as q heads (the config has {heads[0]} and {heads[1]})")
        self.cache_arg = next((n for n in ("cache", "past_key_values", "layer_past") if _accepts(fwd, n)),
                              "past_key_values")
        self.kwargs_ok = _takes_kwargs(fwd)
        self.wants_ids = _accepts(fwd, "position_ids")
        self.scale = getattr(module, "scaling", None)
        self.protocol = (f"{type(module).__name__}(hidden_states, position_embeddings, attention_mask (4-D), "
                         f"{self.cache_arg}=" + "{cache}" + (", cache_position" if self.kwargs_ok else "") + ")")

    def new_cache(self) -> Any:
        """A fresh cache: ``new_cache()``, else HF's ``DynamicCache`` for the module's config."""
        if self.new_cache_fn is not None:
            return self.new_cache_fn()
        from transformers import DynamicCache

        try:
            return DynamicCache(config=self.module.config)
        except TypeError:  # an older transformers
            return DynamicCache()

    def compiled(self, backend: str | None) -> HFModuleStep:
        """The same module through ``torch.compile``."""
        import torch

        other = HFModuleStep.__new__(HFModuleStep)
        other.__dict__.update(self.__dict__)
        other.notes = []
        other.target = torch.compile(self.module, backend=backend) if backend else torch.compile(self.module)
        return other

    @contextlib.contextmanager
    def fed(self) -> Iterator[None]:
        """The module with its projections replaced by slices of ``hidden_states`` (put back
        after)."""
        import torch

        hq, hk = self.heads
        d = self.d

        class Slice(torch.nn.Module):
            def __init__(self, a: int, b: int) -> None:
                super().__init__()
                self.a, self.b = a, b

            def forward(self, x: Any) -> Any:
                return x[..., self.a: self.b].contiguous()

        if self.proj == "qkv":
            repl = {"q_proj": Slice(0, hq * d), "k_proj": Slice(hq * d, (hq + hk) * d),
                    "v_proj": Slice((hq + hk) * d, (hq + 2 * hk) * d)}
        else:
            repl = {"qkv_proj" if self.proj == "fused" else "query_key_value": torch.nn.Identity()}
        repl["o_proj" if hasattr(self.module, "o_proj") or not hasattr(self.module, "dense") else "dense"] = \
            torch.nn.Identity()
        for norm in ("q_norm", "k_norm"):
            if isinstance(getattr(self.module, norm, None), torch.nn.Module):
                repl[norm] = torch.nn.Identity()
                note = f"{norm} replaced by the identity (q and k are given as they reach the rotation)"
                if note not in self.notes:
                    self.notes.append(note)
        saved = {n: getattr(self.module, n) for n in repl if hasattr(self.module, n)}
        try:
            for n, m in repl.items():
                setattr(self.module, n, m)
            yield
        finally:
            for n, m in saved.items():
                setattr(self.module, n, m)

    def call(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, ids: np.ndarray, cache: Any, mask2d: np.ndarray,
             allowed: np.ndarray) -> tuple[StepResult, Any]:
        """One call of the module (inside :meth:`fed`)."""
        import torch

        b, s = ids.shape
        slots = int(mask2d.shape[1])
        dt = getattr(torch, self.dtype)
        if self.proj == "per_head":  # (b, s, heads, 3 d): each head's q, k, v side by side
            parts = np.concatenate([np.swapaxes(a, 1, 2) for a in (q, k, v)], -1).reshape(b, s, -1)
        else:
            parts = np.concatenate([np.swapaxes(a, 1, 2).reshape(b, s, -1) for a in (q, k, v)], -1)
        hidden = _to("torch", parts, self.dtype)
        pos = _to("torch", ids, None)
        mask = torch.zeros((b, 1, s, slots), dtype=dt)
        mask.masked_fill_(~torch.from_numpy(allowed)[:, None], torch.finfo(dt).min)
        kw: dict[str, Any] = {self.cache_arg: cache}
        if self.kwargs_ok:
            kw["cache_position"] = torch.arange(slots - s, slots)
        if self.wants_ids:
            kw["position_ids"] = pos
        with torch.no_grad():
            pe = self.rotary(hidden, pos, **self.rot_kw)
            got = self.target(hidden, position_embeddings=pe, attention_mask=mask, **kw)
        res = self.parse(got if isinstance(got, (tuple, list)) and len(got) == 2 else (got, None), b, s, slots)
        res.keys = self.keys(cache, slots)
        return res, cache


def as_step(attn: Any, *, kind: str, dtype: str, heads: tuple[int, int], head_dim: int, returns: str | None,
            cache_keys: Callable[[Any], Any] | None, new_cache: Callable[[], Any] | None,
            layer_type: str | None) -> FunctionStep | HFModuleStep:
    """``attn`` (a plain step, an HF attention module, or ``(module, rotary_emb)``) as a step."""
    if isinstance(attn, tuple):
        if len(attn) != 2 or not is_hf_attention(attn[0]) or not callable(attn[1]):
            raise TypeError("attn as a tuple must be (HF attention module, rotary_emb): a torch module with q_proj, "
                            "k_proj and v_proj, and the rotary module that gives its position_embeddings")
        return HFModuleStep(attn[0], attn[1], dtype, heads, head_dim, new_cache, cache_keys, layer_type)
    if is_hf_attention(attn):
        if returns is not None:
            raise ValueError(f"returns={returns!r} is for a plain step; an HF attention module returns (output, "
                             "weights)")
        return HFModuleStep(attn, None, dtype, heads, head_dim, new_cache, cache_keys, layer_type)
    if not callable(attn):
        raise TypeError(f"attn={attn!r} is not callable: pass step(q, k, v, position_ids, cache) -> (result, cache), "
                        "an HF attention module, or (module, rotary_emb)")
    if new_cache is not None:
        raise ValueError("new_cache= is for an HF attention module; a plain step starts each sequence with cache=None")
    return FunctionStep(attn, kind, dtype, heads, head_dim, returns, cache_keys)

