"""Seeded-bug detection table for :func:`pe_symbolic.verify_rope`: wrong implementations drawn
from the public bug classes of RoPE ports, and correct controls in several frameworks.

Each row is one implementation and the config it is checked against. A wrong one is
*caught* when the verdict is ``differs`` or ``out of bound``; its *cause is named* when the
report says the cause the row was seeded with (a pattern per row, matched against the
report's text). A control *passes* when the verdict is ``verified`` or ``consistent
(tested)``. The time is verify_rope's, per row, on this machine.

Run: ``python -m benchmarks.verify_seeded`` (``--only NAME`` for some rows, ``--markdown``
for the docs' table). The list is this benchmark's own; it is not the hidden sets.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: A small Llama-like config: 8 q heads, 2 kv heads (GQA), a 32-wide head, 16,384 positions.
BASE = {"model_type": "llama", "rope_theta": 10000.0, "head_dim": 32, "hidden_size": 256,
        "num_attention_heads": 8, "num_key_value_heads": 2, "max_position_embeddings": 16384,
        "torch_dtype": "float32"}


@dataclass
class Row:
    """One implementation: its name, bug class (``control`` for a correct one), the function,
    the config, the pattern its report must contain, and verify_rope's keywords."""

    name: str
    klass: str
    fn: Any
    config: dict
    cause: str = ""
    kw: dict | None = None
    entry: str = "rope"  # "attention": checked by verify_attention


def cfg(**changes: Any) -> dict:
    """:data:`BASE` with changes (None removes a key)."""
    out = dict(BASE, **changes)
    return {k: v for k, v in out.items() if v is not None}


# ---------------------------------------------------------------------------- a RoPE with knobs


def inv_freq(c: dict, *, base: float | None = None, denom: int | None = None, dtype: Any = np.float64) -> np.ndarray:
    r = int(c["head_dim"] * c.get("partial_rotary_factor", c.get("rotary_pct", 1.0)))
    theta = base if base is not None else c["rope_theta"]
    return (1.0 / theta ** (np.arange(0, r, 2, dtype=np.float64) / (denom or r))).astype(dtype)


def np_rope(c: dict, **k: Any) -> Callable:
    """A NumPy RoPE of ``c`` (split halves by default) with a seeded bug ``k`` (see the rows)."""
    d = c["head_dim"]
    r = int(d * c.get("partial_rotary_factor", c.get("rotary_pct", 1.0)))
    inv = inv_freq(c, base=k.get("base"), denom=k.get("denom"))
    inv = inv * k.get("freq_scale", 1.0)

    def fn(x: np.ndarray, ids: np.ndarray) -> np.ndarray:
        pos = ids.astype(np.float64)
        if k.get("ignore_ids"):
            pos = np.broadcast_to(np.arange(ids.shape[-1], dtype=np.float64), ids.shape)
        if "clamp" in k:
            pos = np.minimum(pos, k["clamp"])
        if "wrap" in k:
            pos = pos % k["wrap"]
        if "ext" in k:
            pos = np.where(pos >= k["ext"], pos - k["ext"], pos)
        if k.get("offset"):
            pos = pos + k["offset"]
        if k.get("row0"):
            pos = np.broadcast_to(pos[:1], pos.shape)
        if "pos_dtype" in k:
            pos = _round(pos, k["pos_dtype"])
        ang = pos[..., None] * inv
        if "angle_dtype" in k:
            ang = _round(_round(pos, k["angle_dtype"])[..., None] * _round(inv, k["angle_dtype"]), k["angle_dtype"])
        ang = ang * k.get("times", 1)
        if k.get("interleaved"):
            emb = np.repeat(ang, 2, -1)
        else:
            emb = np.concatenate([ang, ang], -1)
        cos, sin = np.cos(emb), np.sin(emb)
        if k.get("sqrt_sin"):
            sin = np.sqrt(np.maximum(1 - cos * cos, 0))
        cos, sin = cos * k.get("mscale_cos", 1.0), sin * k.get("mscale_sin", 1.0)
        if "table_dtype" in k:
            cos, sin = _round(cos, k["table_dtype"]), _round(sin, k["table_dtype"])
        cos, sin = cos[:, None], sin[:, None]
        xr = x[..., :r].astype(np.float64) if not k.get("trailing") else x[..., d - r:].astype(np.float64)
        if k.get("interleaved"):
            rot = np.stack([-xr[..., 1::2], xr[..., ::2]], -1).reshape(xr.shape)
        elif k.get("no_swap"):
            rot = np.concatenate([-xr[..., : r // 2], xr[..., r // 2:]], -1)
        else:
            rot = np.concatenate([-xr[..., r // 2:], xr[..., : r // 2]], -1)
        sgn = k.get("sign", 1)
        y = xr * cos + sgn * rot * sin
        if "heads_upto" in k:
            y[:, k["heads_upto"]:] = xr[:, k["heads_upto"]:]
        out = np.concatenate([y, x[..., r:]], -1) if not k.get("trailing") else np.concatenate([x[..., : d - r], y], -1)
        return out.astype(x.dtype)
    return fn


def _round(v: np.ndarray, dt: str) -> np.ndarray:
    if dt == "bfloat16":
        import ml_dtypes

        return np.asarray(v, dtype=np.float64).astype(ml_dtypes.bfloat16).astype(np.float64)
    return np.asarray(v, dtype=np.float64).astype(dt).astype(np.float64)


def torch_tables(c: dict, ids: Any, **k: Any) -> tuple[Any, Any]:
    import torch

    inv = torch.from_numpy(inv_freq(c, base=k.get("base")))
    ang = ids[..., None].double() * inv
    emb = torch.cat([ang, ang], -1)
    return emb.cos().float(), emb.sin().float()


def rotate_half(x: Any) -> Any:
    import torch

    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], -1)


def torch_rope(c: dict, **k: Any) -> Callable:
    """A torch ``fn(x, ids)`` (HF's recipe) with a seeded bug ``k``."""
    import torch

    buf: dict = {}

    def fn(x: Any, ids: Any) -> Any:
        if "chunk" in k and x.shape[2] > k["chunk"]:
            n = k["chunk"]
            return torch.cat([fn(x[:, :, i:i + n], ids[:, :x[:, :, i:i + n].shape[2]]) for i in range(0, x.shape[2], n)], 2)
        if "decode_off" in k and x.shape[2] == 1:
            ids = ids + k["decode_off"]
        cos, sin = torch_tables(c, ids)
        cos, sin = cos[:, None].to(x.dtype), sin[:, None].to(x.dtype)
        y = x * cos + rotate_half(x) * sin
        if k.get("inplace"):
            x.copy_(y)
            return x
        if k.get("static"):
            o = buf.setdefault(tuple(x.shape), torch.empty_like(x))
            o.copy_(y)
            return o
        if k.get("twice"):
            y = y * cos + rotate_half(y) * sin
        if k.get("derotate"):
            y = y * cos - rotate_half(y) * sin
            y = y * cos - rotate_half(y) * sin
        return y
    return fn


def hf_pair(c: dict, **k: Any) -> tuple[Callable, Callable]:
    """A torch HF-style pair ``(rotary_emb, apply)`` with a seeded bug ``k`` on q or k."""
    import torch

    class Rotary(torch.nn.Module):
        def forward(self, x: Any, position_ids: Any) -> tuple[Any, Any]:
            cos, sin = torch_tables(c, position_ids)
            f = k.get("factor", 1.0)
            return (cos * f).to(x.dtype), (sin * f).to(x.dtype)

    def apply(q: Any, key: Any, cos: Any, sin: Any, unsqueeze_dim: int = 1) -> tuple[Any, Any]:
        cos, sin = cos.unsqueeze(unsqueeze_dim), sin.unsqueeze(unsqueeze_dim)
        qo = q * cos + rotate_half(q) * sin
        if k.get("k_sign"):
            ko = key * cos - rotate_half(key) * sin
        elif k.get("k_copy"):
            ko = key * cos + rotate_half(q[:, : key.shape[1]]) * sin
        elif k.get("k_interleaved"):
            rot = torch.stack([-key[..., 1::2], key[..., ::2]], -1).flatten(-2)
            h = key.shape[-1] // 2
            cs = torch.repeat_interleave(cos[..., :h], 2, -1)
            sn = torch.repeat_interleave(sin[..., :h], 2, -1)
            ko = key * cs + rot * sn
        elif k.get("k_none"):
            ko = key
        elif k.get("q_only_factor"):
            f = k["q_only_factor"]
            ko = key * (cos / f) + rotate_half(key) * (sin / f)
        else:
            ko = key * cos + rotate_half(key) * sin
        if k.get("aliased"):
            qo = qo.contiguous()
            ko = qo  # one output buffer for both
        return qo, ko
    return Rotary(), apply


def _hf(name: str) -> tuple[Any, Any, Any] | None:
    """transformers' rotary class, apply and config class for a model family (None if absent)."""
    try:
        import importlib

        mod = importlib.import_module(f"transformers.models.{name}.modeling_{name}")
        conf = importlib.import_module(f"transformers.models.{name}.configuration_{name}")
    except Exception:  # noqa: BLE001
        return None
    cls = next(v for n, v in vars(mod).items() if n.endswith("RotaryEmbedding") and isinstance(v, type)
               and v.__module__ == mod.__name__)
    ccls = next(v for n, v in vars(conf).items() if n.endswith("Config") and isinstance(v, type)
                and v.__module__ == conf.__name__)
    return cls, mod.apply_rotary_pos_emb, ccls


def hf_real(name: str, c: dict) -> tuple[Any, Any] | None:
    got = _hf(name)
    if got is None:
        return None
    cls, apply, ccls = got
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return cls(ccls(**c)), apply
        except Exception:  # noqa: BLE001 - this transformers does not build it: the row is left out
            return None


# ---------------------------------------------------------------------------- the rows


def rows() -> list[Row]:
    """Every row (the wrong ones, then the controls)."""
    c = BASE
    part = cfg(rotary_pct=0.5, model_type="gpt_neox", head_dim=32)
    llama3 = cfg(rope_theta=500000.0, max_position_embeddings=16384,
                 rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                               "original_max_position_embeddings": 2048})
    yarn = cfg(max_position_embeddings=16384, rope_scaling={"rope_type": "yarn", "factor": 4.0,
                                                            "original_max_position_embeddings": 4096})
    R: list[Row] = []

    def bug(name: str, klass: str, fn: Any, cause: str, config: dict | None = None, **kw: Any) -> None:
        R.append(Row(name, klass, fn, config or c, cause, kw or None))

    # pairing and direction
    bug("interleaved-for-split", "pairing", np_rope(c, interleaved=True), r"interleaved layout|pairs the slots")
    bug("halves-not-swapped", "pairing", np_rope(c, no_swap=True), r"halves are not swapped")
    bug("minus-on-wrong-half", "pairing", np_rope(c, sign=-1), r"wrong way")
    bug("split-for-interleaved", "pairing", np_rope(c), r"split layout|pairs the slots", layout="interleaved")
    # frequencies: denominators, exponent, base
    bug("exponent-over-head-dim", "exponent", np_rope(part, denom=32), r"head_dim = 32|exponent|partial", part)
    bug("exponent-over-d-minus-2", "denominator", np_rope(c, denom=30), r"effective base|inverse frequency")
    bug("theta-fell-back-10000", "denominator", np_rope(cfg(rope_theta=500000.0), base=10000.0), r"base 10000",
        cfg(rope_theta=500000.0))
    bug("theta-1e6-for-5e5", "denominator", np_rope(cfg(rope_theta=500000.0), base=1e6), r"effective base|inverse freq",
        cfg(rope_theta=500000.0))
    bug("freq-x2", "exponent", np_rope(c, freq_scale=2.0), r"inverse frequency|effective base")
    bug("llama3-scaling-ignored", "exponent", np_rope(llama3), r"scaling .*ignored", llama3)
    bug("off-by-one", "decode offsets", np_rope(c, offset=1), r"offset by [+]?1")
    bug("off-by-minus-one", "decode offsets", np_rope(c, offset=-1), r"offset by -1")
    # dtype of angles, tables, positions
    for dt in ("float16", "bfloat16"):
        bug(f"angles-in-{dt}", "dtype of angles", np_rope(c, angle_dtype=dt), rf"angles are formed in {dt}|held in {dt}")
        bug(f"positions-in-{dt}", "dtype of positions", np_rope(c, pos_dtype=dt), rf"positions are held in {dt}")
        bug(f"tables-in-{dt}", "dtype of tables", np_rope(c, table_dtype=dt), rf"tables are stored in {dt}|in {dt}")
    bug("bf16-model-angles-in-bf16", "dtype of angles", np_rope(cfg(torch_dtype="bfloat16"), angle_dtype="bfloat16"),
        r"angles are formed in bfloat16", cfg(torch_dtype="bfloat16"))
    # positions: ids ignored, clamped gathers, wraps, cache length and offset, chunked prefill
    bug("ids-ignored-arange", "decode offsets", np_rope(c, ignore_ids=True), r"ignores position_ids")
    for n in (2048, 4096, 8191):
        bug(f"table-clamped-{n}", "clamped gathers", np_rope(c, clamp=n - 1), rf"table of {n} rows, clamped")
    for n in (2048, 3000):
        bug(f"table-wraps-{n}", "cache length", np_rope(c, wrap=n), rf"p mod {n}|modulo")
    for kbits in (11, 12, 13):
        bug(f"positions-mod-2^{kbits}", "dtype of positions", np_rope(c, wrap=2**kbits), rf"2\^{kbits}|mod {2**kbits}")
    for n in (4096, 5000):
        bug(f"cache-extended-no-offset-{n}", "cache length and offset", np_rope(c, ext=n), r"without its offset")
    for n in (4096, 8192):
        bug(f"chunked-prefill-reused-ids-{n}", "chunked prefill", torch_rope(c, chunk=n), r"first chunk's position_ids")
    bug("decode-offset-plus-one", "decode offsets", torch_rope(c, decode_off=1), r"sequence of 1|offset")
    bug("batch-rows-row0-positions", "decode offsets", np_rope(c, row0=True), r"first row's positions|rows from")
    # rotation made twice, or undone
    bug("double-rotation", "double rotation", torch_rope(c, twice=True), r"twice|2 x")
    bug("double-rotation-np", "double rotation", np_rope(c, times=2), r"twice|2 x")
    bug("derotated", "de-rotation", torch_rope(c, derotate=True), r"wrong way")
    # heads and rows
    bug("heads-from-2-unrotated", "sub-module layout", np_rope(c, heads_upto=2), r"heads? (from )?2( on|\.\.)")
    bug("heads-from-1-unrotated", "sub-module layout", np_rope(c, heads_upto=1), r"heads? (from )?1( on|\.\.)")
    bug("trailing-rotary-channels", "sub-module layout", np_rope(part, trailing=True), r"trailing", part)
    bug("sqrt-sin", "pairing", np_rope(c, sqrt_sin=True), r"sqrt\(1 - cos\^2\)|lost its sign")
    # attention factor (mscale) placement
    bug("yarn-mscale-missing", "mscale placement", np_rope(yarn, freq_scale=1.0), r"scaled by 1|attention factor|ignored",
        yarn)
    # aliasing and state
    bug("in-place", "aliasing", torch_rope(c, inplace=True), r"in place")
    bug("static-output-buffer", "aliasing", torch_rope(c, static=True), r"shares storage")
    # HF pairs: bugs on k
    bug("k-minus-sin", "pairing (k)", hf_pair(c, k_sign=True), r"^\s*- k.*wrong way|k \(head .*wrong way")
    bug("k-copy-paste-q", "pairing (k)", hf_pair(c, k_copy=True), r"depends on q")
    bug("k-other-pairing", "pairing (k)", hf_pair(c, k_interleaved=True), r"k \(head.*(interleaved|pairs)|k: .*pairs")
    bug("k-unrotated", "pairing (k)", hf_pair(c, k_none=True), r"k \(head.*(mixed only|not rotated|first difference)"
        r"|k: .*not rotated")
    bug("q-k-one-buffer", "aliasing", hf_pair(c, aliased=True), r"share storage|depends on")
    R.extend(_config_rows())
    R.extend(_hf_bug_rows())
    att = attention_rows()
    R.extend(r for r in att if r.klass != "control")
    R.extend(controls())
    R.extend(r for r in att if r.klass == "control")
    return R


def _config_rows() -> list[Row]:
    """Bugs of one parameter against assorted configs (MHA, MQA, wider heads, other bases)."""
    out = []
    for i, (h, kv, d, theta) in enumerate([(4, 4, 64, 10000.0), (16, 1, 64, 1e6), (8, 8, 128, 500000.0),
                                          (12, 4, 48, 10000.0)]):
        c = cfg(num_attention_heads=h, num_key_value_heads=kv, head_dim=d, hidden_size=h * d, rope_theta=theta,
                max_position_embeddings=8192)
        out += [Row(f"cfg{i}-minus-wrong-half", "pairing", np_rope(c, sign=-1), c, r"wrong way"),
                Row(f"cfg{i}-halves-not-swapped", "pairing", np_rope(c, no_swap=True), c, r"halves are not swapped"),
                Row(f"cfg{i}-heads-half-unrotated", "sub-module layout", np_rope(c, heads_upto=max(1, h // 2)), c,
                    rf"heads? (from )?{max(1, h // 2)}( on|\.\.)"),
                Row(f"cfg{i}-k-minus-sin", "pairing (k)", hf_pair(c, k_sign=True), c, r"k \(head .*wrong way|k: .*wrong way"),
                Row(f"cfg{i}-clamped-1024", "clamped gathers", np_rope(c, clamp=1023), c, r"table of 1024 rows, clamped")]
    return out


def _hf_bug_rows() -> list[Row]:
    """transformers' own classes with a config that leaves out one key (a migration's loss)."""
    out = []
    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048, "rope_theta": 10000.0}
    c = cfg(max_position_embeddings=8192, rope_scaling=None, rope_parameters=yarn)
    got = hf_real("llama", cfg(max_position_embeddings=8192, rope_parameters={"rope_type": "default",
                                                                              "rope_theta": 10000.0}))
    if got is not None:
        out.append(Row("hf-llama-yarn-config-lost", "mscale placement", got, c, r"scaling .*ignored|attention factor"))
    yq = cfg(max_position_embeddings=8192, rope_parameters=yarn)
    from pe_symbolic.numeric.config import parse_rope_config

    f = float(getattr(parse_rope_config(yq), "attention_factor", None) or 0.1 * np.log(4.0) + 1.0)
    out.append(Row("yarn-mscale-on-q-only", "mscale placement", hf_pair(yq, factor=f, q_only_factor=f), yq,
                   r"one side only|k.*scaled by|attention factor"))
    return out


def controls() -> list[Row]:
    """Correct implementations, in NumPy, torch (functions, HF-style pairs, transformers' own
    classes) and JAX where installed."""
    c = BASE
    part = cfg(rotary_pct=0.5, model_type="gpt_neox")
    out = [Row("np-split", "control", np_rope(c), c),
           Row("np-interleaved (layout=interleaved)", "control", np_rope(c, interleaved=True), c, kw={"layout": "interleaved"}),
           Row("np-partial-neox", "control", np_rope(part), part),
           Row("np-float64", "control", np_rope(c), c, kw={"dtype": "float64"}),
           Row("np-bf16-config", "control", np_rope(cfg(torch_dtype="bfloat16")), cfg(torch_dtype="bfloat16")),
           Row("np-fp16-config", "control", np_rope(cfg(torch_dtype="float16")), cfg(torch_dtype="float16")),
           Row("torch-fn", "control", torch_rope(c), c),
           Row("torch-fn-bf16", "control", torch_rope(cfg(torch_dtype="bfloat16")), cfg(torch_dtype="bfloat16")),
           Row("torch-in-place (allow_inplace)", "control", torch_rope(c, inplace=True), c, kw={"allow_inplace": True}),
           Row("torch-pair", "control", hf_pair(c), c),
           Row("torch-chunked-right-offsets", "control", _chunked_right(c), c),
           Row("torch-polar-complex", "control", _polar(c), c, kw={"layout": "interleaved"})]
    for i, (h, kv, d, theta) in enumerate([(4, 4, 64, 10000.0), (16, 1, 64, 1e6), (8, 8, 128, 500000.0)]):
        cc = cfg(num_attention_heads=h, num_key_value_heads=kv, head_dim=d, hidden_size=h * d, rope_theta=theta,
                 max_position_embeddings=8192)
        out += [Row(f"cfg{i}-np", "control", np_rope(cc), cc), Row(f"cfg{i}-torch-pair", "control", hf_pair(cc), cc)]
    for name, extra in (("llama", {}), ("qwen2", {}),
                        ("llama", {"rope_parameters": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                                       "high_freq_factor": 4.0, "original_max_position_embeddings": 2048,
                                                       "rope_theta": 500000.0}}),
                        ("llama", {"rope_parameters": {"rope_type": "yarn", "factor": 4.0, "rope_theta": 10000.0,
                                                       "original_max_position_embeddings": 2048}})):
        cc = cfg(max_position_embeddings=8192, model_type=name, **extra)
        got = hf_real(name, cc)
        if got is not None:
            tag = extra.get("rope_parameters", {}).get("rope_type", "default")
            out.append(Row(f"transformers-{name}-{tag}", "control", got, cc))
    try:
        import jax  # noqa: F401
    except ImportError:
        pass
    else:
        out.append(Row("jax-fn", "control", _jax_rope(c), c))
    return out


def _chunked_right(c: dict) -> Callable:
    import torch

    base = torch_rope(c)

    def fn(x: Any, ids: Any) -> Any:
        n = 4096
        return torch.cat([base(x[:, :, i:i + n], ids[:, i:i + n]) for i in range(0, x.shape[2], n)], 2)
    return fn


def _polar(c: dict) -> Callable:
    import torch

    inv = torch.from_numpy(inv_freq(c))

    def fn(x: Any, ids: Any) -> Any:
        freqs = torch.polar(torch.ones(1, dtype=torch.float64), ids[..., None].double() * inv)[:, None]
        xc = torch.view_as_complex(x.double().reshape(*x.shape[:-1], -1, 2).contiguous())
        return torch.view_as_real(xc * freqs).flatten(-2).to(x.dtype)
    return fn


def _jax_rope(c: dict) -> Callable:  # pragma: no cover - where JAX is installed
    import jax.numpy as jnp

    inv = jnp.asarray(inv_freq(c), dtype=jnp.float32)

    def fn(x: Any, ids: Any) -> Any:
        ang = ids[..., None].astype(jnp.float32) * inv
        emb = jnp.concatenate([ang, ang], -1)
        cos, sin = jnp.cos(emb)[:, None], jnp.sin(emb)[:, None]
        h = x.shape[-1] // 2
        return (x * cos + jnp.concatenate([-x[..., h:], x[..., :h]], -1) * sin).astype(x.dtype)
    return fn


# ---------------------------------------------------------------------------- running


def run(selected: list[Row], seed: int = 11, verbose: bool = False) -> list[tuple[Row, str, bool, float, str]]:
    import pe_symbolic as pe

    out = []
    for row in selected:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                check = pe.verify_attention if row.entry == "attention" else pe.verify_rope
                rep = check(row.fn, row.config, seed=seed, **(row.kw or {}))
                verdict, text = rep.verdict, rep.to_text()
            except Exception as exc:  # noqa: BLE001 - a crash is a row's result, said
                verdict, text = "crash", f"{type(exc).__name__}: {exc}"
        dt = time.perf_counter() - t0
        named = bool(row.cause) and re.search(row.cause, text, flags=re.MULTILINE) is not None
        out.append((row, verdict, named, dt, text))
        if verbose:
            print(f"{row.name:40} {verdict:20} {'named' if named else '':6} {dt:6.1f}s", flush=True)
    return out


def table(results: list[tuple[Row, str, bool, float, str]], markdown: bool = False) -> str:
    wrong = [r for r in results if r[0].klass != "control"]
    ctrl = [r for r in results if r[0].klass == "control"]
    caught = [r for r in wrong if r[1] in ("differs", "out of bound")]
    named = [r for r in caught if r[2]]
    passed = [r for r in ctrl if r[1] in ("verified", "consistent (tested)")]
    lines = []
    head = ("| implementation | bug class | verdict | caught | cause named | s |", "|---|---|---|---|---|---|")
    if markdown:
        lines += list(head)
    for row, verdict, nm, dt, _ in results:
        if row.klass == "control":
            ok, cause = ("passed" if verdict in ("verified", "consistent (tested)") else "FALSE ALARM"), "-"
        else:
            ok = "caught" if verdict in ("differs", "out of bound") else "MISSED"
            cause = "named" if nm else "not named"
        cells = (row.name, row.klass, verdict, ok, cause, f"{dt:.1f}")
        lines.append("| " + " | ".join(cells) + " |" if markdown else
                     f"{cells[0]:40} {cells[1]:24} {cells[2]:20} {cells[3]:11} {cells[4]:9} {cells[5]:>6}")
    lines.append("")
    lines.append(f"wrong implementations: {len(wrong)}; caught {len(caught)}; cause named {len(named)} "
                 f"({100 * len(named) / max(1, len(caught)):.0f}% of the catches); controls: {len(ctrl)}, passed "
                 f"{len(passed)}; total {sum(r[3] for r in results):.0f} s, median "
                 f"{float(np.median([r[3] for r in results])):.1f} s per row")
    return "\n".join(lines)


def bench(repeat: int = 3) -> str:
    """The benchmark row: transformers' Llama pair at (1, 32, 8192, 128) with 8 kv heads
    (the model's heads and a prefill of all 8,192 positions in one call), float32 and
    bfloat16, median of ``repeat`` runs."""
    import os
    import statistics

    import pe_symbolic as pe

    c = cfg(rope_theta=500000.0, head_dim=128, hidden_size=4096, num_attention_heads=32, num_key_value_heads=8,
            max_position_embeddings=8192)
    pair = hf_real("llama", c)
    if pair is None:
        return "benchmark row: transformers' Llama is not installed"
    out = []
    for dt in ("float32", "bfloat16"):
        runs = []
        for k in range(repeat):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rep = pe.verify_rope(pair, c, seed=k, dtype=dt)
            runs.append((time.perf_counter() - t0, rep))
        med = statistics.median(t for t, _ in runs)
        rep = min(runs, key=lambda r: abs(r[0] - med))[1]
        out.append(f"verify (1, 32, 8192, 128) HF Llama pair, 8 kv heads, {dt}: {med:.1f} s median of {repeat} "
                   f"({rep.verdict}; trace {rep.structure['seconds']:.1f} s, {rep.tests['calls']} test calls "
                   f"{rep.tests['seconds']:.1f} s); {os.cpu_count()} CPUs")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.verify_seeded", description=__doc__.splitlines()[0])
    p.add_argument("--only", action="append", help="rows whose name contains this (repeatable)")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--markdown", action="store_true", help="the docs' table")
    p.add_argument("--show", action="store_true", help="print each report that is not 'caught, cause named'")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--bench", action="store_true", help="instead: the benchmark row, a (1, 32, 8192, 128) verify")
    p.add_argument("--attention-dtypes", action="store_true",
                   help="instead: verify_attention's step rows in float32, bfloat16 and float16 (controls, 4 seeds)")
    p.add_argument("--attention-families", action="store_true",
                   help="instead: transformers' attention modules as they ship, through verify_attention")
    args = p.parse_args(argv)
    if args.attention_families:
        print(attention_families())
        return 0
    if args.bench:
        print(bench())
        return 0
    if args.attention_dtypes:
        print(attention_dtypes())
        return 0
    selected = [r for r in rows() if not args.only or any(o in r.name for o in args.only)]
    res = run(selected, args.seed, args.verbose)
    print(table(res, args.markdown))
    if args.show:
        for row, verdict, nm, _, text in res:
            bad = (row.klass == "control") != (verdict in ("verified", "consistent (tested)")) or (
                row.klass != "control" and not nm)
            if bad:
                print(f"\n== {row.name} ({row.klass}; wanted /{row.cause}/) ==\n{text}")
    return 0



# ---------------------------------------------------------------------------- the attention path (verify_attention)

#: A small DeepSeek-V4-style config: the last 8 of 32 channels rotate (interleaved pairs), the output is rotated back
#: (checked at its compressed layers' rope entry, ``layer_type="compress"``, here at the same base as the main one).
V4 = {"model_type": "deepseek_v4", "head_dim": 32, "qk_rope_head_dim": 8, "hidden_size": 128, "num_attention_heads": 4,
      "num_key_value_heads": 1, "rope_theta": 10000.0, "compress_rope_theta": 10000.0, "max_position_embeddings": 4096,
      "torch_dtype": "float32"}


def attn_step(c: dict, bug: str = "", out: str = "scores") -> Callable:
    """A torch attention step ``step(q, k, v, position_ids, cache, attention_mask=None) -> (result, cache)``
    of config ``c`` (a dict cache: keys, values and the positions they were rotated at), with a seeded
    ``bug``; ``out``: ``"scores"``, ``"output"`` or ``"output+weights"``."""
    import torch

    d = c["head_dim"]
    hq, hk = c["num_attention_heads"], c.get("num_key_value_heads", c["num_attention_heads"])
    v4 = c.get("model_type") == "deepseek_v4"
    r = c.get("qk_rope_head_dim", d) if v4 else d
    inv = 1.0 / (c["rope_theta"] ** (torch.arange(0, r, 2, dtype=torch.float64) / r))

    def rope(x: Any, pos: Any, sign: int = 1) -> Any:
        ang = pos[..., None].double() * inv
        cos, sin = ang.cos().float()[:, None], (sign * ang.sin()).float()[:, None]
        if v4:  # interleaved pairs on the last r channels (HF's DeepSeek-V4)
            lead, t = x[..., : d - r], x[..., d - r:].float()
            a, b = t[..., 0::2], t[..., 1::2]
            rot = torch.stack([a * cos - b * sin, a * sin + b * cos], -1).flatten(-2)
            return torch.cat([lead, rot.to(x.dtype)], -1)
        emb_c, emb_s = torch.cat([cos, cos], -1).to(x.dtype), torch.cat([sin, sin], -1).to(x.dtype)
        h = d // 2
        return x * emb_c + torch.cat([-x[..., h:], x[..., :h]], -1) * emb_s

    def step(q: Any, k: Any, v: Any, position_ids: Any, cache: Any, attention_mask: Any = None) -> Any:
        s = q.shape[2]
        past = 0 if cache is None else cache["k"].shape[2]
        pos = position_ids
        if bug == "no-offset":
            pos = torch.arange(s)[None].expand_as(position_ids)
        elif bug == "decode-plus-one" and s == 1:
            pos = pos + 1
        elif bug == "chunk-reuse" and cache is not None and s > 1:
            pos = cache["first"][:, :s]
        elif bug == "pad-from-pad" and attention_mask is not None and bool((attention_mask == 0).any()):
            pos = torch.arange(past, past + s)[None].expand_as(position_ids)
        elif bug == "pack-no-reset":
            pos = position_ids[:, :1] + torch.arange(s)[None]
        kr, qr = rope(k, pos), rope(q, pos)
        vr = rope(v, pos) if v4 else v
        if cache is None:
            keys, vals, kpos, first = kr, vr, pos, pos
        else:
            old = rope(cache["k"], cache["pos"]) if bug == "again-stored" else cache["k"]
            keys, vals = torch.cat([old, kr], 2), torch.cat([cache["v"], vr], 2)
            kpos, first = torch.cat([cache["pos"], pos], 1), cache["first"]
        read = keys
        if bug == "again-on-read" and cache is not None:
            read = torch.cat([rope(cache["k"], cache["pos"]), kr], 2)
        g = hq // hk
        scores = qr.float() @ read.repeat_interleave(g, 1).float().transpose(-1, -2) / d ** 0.5
        new = {"k": keys, "v": vals, "pos": kpos, "first": first}
        if out == "scores":
            return scores.to(q.dtype), new
        n = keys.shape[2]
        allow = torch.arange(n)[None, :] <= torch.arange(past, past + s)[:, None]
        if attention_mask is not None:
            allow = allow[None] & attention_mask[:, None, :].bool()
        p = torch.softmax(scores.masked_fill(~allow[:, None] if allow.dim() == 3 else ~allow, float("-inf")), -1)
        o = (p @ vals.repeat_interleave(g, 1).float()).to(q.dtype)
        if v4 and bug != "derotation-missing":
            at = (position_ids // 4) * 4 if bug == "derotation-at-key" else position_ids
            o = rope(o, at, sign=-1)
        return (o, p.to(q.dtype)) if out == "output+weights" else o, new
    return step


def np_attn_step(c: dict) -> Callable:
    """A correct NumPy step that returns the attention output only (no scores, no weights)."""
    d = c["head_dim"]
    hq, hk = c["num_attention_heads"], c.get("num_key_value_heads", c["num_attention_heads"])
    inv = 1.0 / (c["rope_theta"] ** (np.arange(0, d, 2) / d))

    def rope(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
        ang = np.concatenate([pos[..., None] * inv] * 2, -1)[:, None]
        h = d // 2
        return (x * np.cos(ang) + np.concatenate([-x[..., h:], x[..., :h]], -1) * np.sin(ang)).astype(x.dtype)

    def step(q: np.ndarray, k: np.ndarray, v: np.ndarray, position_ids: np.ndarray, cache: Any,
             attention_mask: np.ndarray | None = None) -> Any:
        past = 0 if cache is None else cache[0].shape[2]
        keys = rope(k, position_ids) if cache is None else np.concatenate([cache[0], rope(k, position_ids)], 2)
        vals = v if cache is None else np.concatenate([cache[1], v], 2)
        g = hq // hk
        sc = rope(q, position_ids) @ np.repeat(keys, g, 1).transpose(0, 1, 3, 2) / np.sqrt(d)
        n, s = keys.shape[2], q.shape[2]
        allow = np.arange(n)[None, :] <= np.arange(past, past + s)[:, None]
        if attention_mask is not None:
            allow = allow[None, None] & attention_mask[:, None, None, :].astype(bool)
        sc = np.where(allow, sc, -np.inf)
        p = np.exp(sc - sc.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        return (p @ np.repeat(vals, g, 1)).astype(q.dtype), (keys, vals)
    return step


def read_rotating_step(c: dict) -> Callable:
    """A correct torch step that caches the keys unrotated and rotates them when it reads them."""
    import torch

    d = c["head_dim"]
    inv = 1.0 / (c["rope_theta"] ** (torch.arange(0, d, 2, dtype=torch.float64) / d))

    def rope(x: Any, pos: Any) -> Any:
        ang = torch.cat([pos[..., None].double() * inv] * 2, -1)
        h = d // 2
        return x * ang.cos().float()[:, None] + torch.cat([-x[..., h:], x[..., :h]], -1) * ang.sin().float()[:, None]

    def step(q: Any, k: Any, v: Any, position_ids: Any, cache: Any) -> Any:
        keys = k if cache is None else torch.cat([cache[0], k], 2)
        pos = position_ids if cache is None else torch.cat([cache[2], position_ids], 1)
        g = c["num_attention_heads"] // c["num_key_value_heads"]
        sc = rope(q, position_ids) @ rope(keys, pos).repeat_interleave(g, 1).transpose(-1, -2) / d ** 0.5
        return sc, (keys, None, pos)
    return step


def hf_attention(name: str, c: dict) -> Any:
    """transformers' attention module of a family (layer 0), built from its config class, or None."""
    try:
        import importlib

        mod = importlib.import_module(f"transformers.models.{name}.modeling_{name}")
        conf = importlib.import_module(f"transformers.models.{name}.configuration_{name}")
    except Exception:  # noqa: BLE001
        return None
    cls = next((v for n, v in vars(mod).items() if n.endswith("Attention") and isinstance(v, type)
                and v.__module__ == mod.__name__ and hasattr(v, "forward")), None)
    ccls = next(v for n, v in vars(conf).items() if n.endswith("Config") and isinstance(v, type)
                and v.__module__ == conf.__name__)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return cls(ccls(**c, num_hidden_layers=1), layer_idx=0) if cls is not None else None
        except Exception:  # noqa: BLE001 - this transformers does not build it: the row is left out
            return None


def attention_rows() -> list[Row]:
    """verify_attention's rows: the attention path's bugs, and correct controls."""
    def A(*a: Any, **k: Any) -> Row:  # noqa: N802
        return Row(*a, **k, entry="attention")

    c = cfg(max_position_embeddings=16384)
    v4kw = {"layer_type": "compress", "compile": False}
    kw = {"compile": False}
    R = [A("attn-keys-rotated-again-stored", "double rotation (cache)", attn_step(c, "again-stored"), c,
           r"rotated again by call", kw),
         A("attn-keys-rotated-again-on-read", "double rotation (cache)", attn_step(c, "again-on-read"), c,
           r"rotated again when read", kw),
         A("attn-decode-offset-plus-one", "decode offsets", attn_step(c, "decode-plus-one"), c,
           r"decode offset off by one", kw),
         A("attn-cache-extended-no-offset", "cache length and offset", attn_step(c, "no-offset"), c,
           r"without its offset", kw),
         A("attn-chunked-prefill-reused-ids", "chunked prefill", attn_step(c, "chunk-reuse"), c,
           r"reusing the first chunk's position_ids", kw),
         A("attn-left-pad-counted-from-pad", "left padding", attn_step(c, "pad-from-pad"), c,
           r"counted from the pad", kw),
         A("attn-packed-no-position-reset", "packed sequences", attn_step(c, "pack-no-reset"), c,
           r"without position reset", kw),
         A("attn-derotation-at-key-position", "de-rotation", attn_step(V4, "derotation-at-key", "output+weights"),
           V4, r"at a key's position instead of the query's", v4kw),
         A("attn-derotation-missing", "de-rotation", attn_step(V4, "derotation-missing", "output+weights"), V4,
           r"de-rotation missing", v4kw),
         A("attn-derotation-missing-output-only", "de-rotation", attn_step(V4, "derotation-missing", "output"), V4,
           r"de-rotation missing", v4kw),
         A("attn-torch-scores", "control", attn_step(c), c, kw=kw),
         A("attn-torch-output+weights", "control", attn_step(c, out="output+weights"), c, kw=kw),
         A("attn-numpy-output-only", "control", np_attn_step(c), c, kw=kw),
         A("attn-rotated-when-read", "control", read_rotating_step(c), c, kw=kw),
         A("attn-deepseek-v4-derotated", "control", attn_step(V4, out="output+weights"), V4, kw=v4kw),
         A("attn-deepseek-v4-output-only", "control", attn_step(V4, out="output"), V4, kw=v4kw)]
    hc = {k: v for k, v in cfg(max_position_embeddings=8192).items() if k not in ("model_type",)}
    llama = hf_attention("llama", hc)
    if llama is not None:
        R.append(A("attn-transformers-llama", "control", llama, hc, kw=kw))
        R.append(A("attn-transformers-llama (torch.compile)", "control", hf_attention("llama", hc), hc,
                   kw={"compile": True}))
    return R


def attention_dtypes(seeds: int = 4) -> str:
    """verify_attention's step rows in every dtype: the controls with ``seeds`` seeds each, the
    seeded bugs with one (false alarms and misses counted, the misses printed)."""
    import pe_symbolic as pe

    lines, alarms, runs, caught, named, bugs = [], 0, 0, 0, 0, 0
    for dt in ("float32", "bfloat16", "float16"):
        for row in attention_rows():
            if row.name.startswith("attn-transformers"):
                continue
            c = dict(row.config, torch_dtype=dt)
            fn = _rebuild(row, c)
            for seed in (range(seeds) if row.klass == "control" else (11,)):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    rep = pe.verify_attention(fn, c, seed=seed, **(row.kw or {}))
                if row.klass == "control":
                    runs += 1
                    if rep.verdict != "consistent (tested)":
                        alarms += 1
                        lines.append(f"FALSE ALARM {row.name} {dt} seed {seed}")
                else:
                    bugs += 1
                    ok = rep.verdict == "differs"
                    nm = ok and re.search(row.cause, rep.to_text(), flags=re.MULTILINE) is not None
                    caught, named = caught + ok, named + nm
                    if not nm:
                        lines.append(f"{'NOT NAMED' if ok else 'MISSED'} {row.name} {dt}")
    lines.append(f"attention path in float32, bfloat16, float16: controls {runs} runs ({seeds} seeds each), "
                 f"{alarms} false alarms; seeded bugs {bugs}, caught {caught}, cause named {named}")
    return "\n".join(lines)


def _rebuild(row: Row, c: dict) -> Callable:
    """The row's step built again for config ``c`` (another dtype)."""
    kind = {"attn-numpy-output-only": lambda: np_attn_step(c), "attn-rotated-when-read": lambda: read_rotating_step(c)}
    if row.name in kind:
        return kind[row.name]()
    bug = {"attn-keys-rotated-again-stored": "again-stored", "attn-keys-rotated-again-on-read": "again-on-read",
           "attn-decode-offset-plus-one": "decode-plus-one", "attn-cache-extended-no-offset": "no-offset",
           "attn-chunked-prefill-reused-ids": "chunk-reuse", "attn-left-pad-counted-from-pad": "pad-from-pad",
           "attn-packed-no-position-reset": "pack-no-reset", "attn-derotation-at-key-position": "derotation-at-key",
           "attn-derotation-missing": "derotation-missing",
           "attn-derotation-missing-output-only": "derotation-missing"}.get(row.name, "")
    out = ("output" if row.name.endswith("output-only") else "output+weights" if "derotation" in row.name
           or row.name.endswith(("output+weights", "derotated")) else "scores")
    return attn_step(c, bug, out)


def attention_families() -> str:
    """transformers' attention modules as they ship, through verify_attention (one line each)."""
    import importlib

    import pe_symbolic as pe

    try:
        import transformers
    except ImportError:
        return "attention families: transformers is not installed"
    small = {"hidden_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32,
             "max_position_embeddings": 4096, "num_hidden_layers": 2}
    rp = {"yarn": {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": 1024},
          "llama3": {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
                     "high_freq_factor": 4.0, "original_max_position_embeddings": 512},
          "dynamic": {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0},
          "linear": {"rope_type": "linear", "rope_theta": 10000.0, "factor": 2.0},
          "longrope": {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": [1.0] * 16,
                       "long_factor": [2.0] * 16, "original_max_position_embeddings": 1024}}
    cases: list[tuple[str, str, str, dict, int, str | None]] = [
        ("llama", "LlamaAttention", "LlamaConfig", {}, 0, None),
        ("llama", "LlamaAttention", "LlamaConfig", {}, 0, "sdpa"),
        ("llama", "LlamaAttention", "LlamaConfig", {"dtype": "bfloat16"}, 0, None)]
    cases += [("llama", "LlamaAttention", "LlamaConfig", {"rope_parameters": v}, 0, None) for v in rp.values()]
    cases += [("mistral", "MistralAttention", "MistralConfig", {}, 0, None),
              ("qwen2", "Qwen2Attention", "Qwen2Config", {}, 0, None),
              ("qwen3", "Qwen3Attention", "Qwen3Config", {}, 0, None),
              ("olmo2", "Olmo2Attention", "Olmo2Config", {}, 0, None),
              ("gemma2", "Gemma2Attention", "Gemma2Config", {}, 0, None),
              ("gemma3", "Gemma3Attention", "Gemma3TextConfig",
               {"layer_types": ["sliding_attention", "full_attention"],
                "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
                                    "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}}, 1, None),
              ("phi3", "Phi3Attention", "Phi3Config", {}, 0, None),
              ("gpt_neox", "GPTNeoXAttention", "GPTNeoXConfig", {"rotary_pct": 0.25, "num_key_value_heads": None,
                                                                 "head_dim": None}, 0, None),
              ("stablelm", "StableLmAttention", "StableLmConfig", {"partial_rotary_factor": 0.25,
                                                                   "num_key_value_heads": 4, "head_dim": None}, 0, None)]
    lines = []
    for fam, cls, ccls, extra, layer, impl in cases:
        kw = {k: v for k, v in {**small, **extra}.items() if v is not None}
        what = f"{fam} {extra.get('rope_parameters', {}).get('rope_type', '') if fam == 'llama' else ''}".strip()
        what += f" ({impl})" if impl else " (bfloat16)" if extra.get("dtype") else ""
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                c = getattr(transformers, ccls)(**kw)
                if impl:
                    c._attn_implementation = impl
                mod = importlib.import_module(f"transformers.models.{fam}.modeling_{fam}")
                verdict = pe.verify_attention(getattr(mod, cls)(c, layer_idx=layer), seed=3, compile=False).verdict
            except Exception as exc:  # noqa: BLE001 - a refusal or a crash is the row's result
                verdict = f"{type(exc).__name__}: {str(exc)[:160]}"
        lines.append(f"{what:28} {verdict:22} {time.perf_counter() - t0:5.1f} s")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
