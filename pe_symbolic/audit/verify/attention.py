r"""The attention path, with its cache: :func:`pe_symbolic.verify_attention`.

:func:`~pe_symbolic.verify_rope` checks a rotation; a model runs more than that -- keys
rotated and stored, read back on the next call, attended to by a query rotated at its own
position, across a prefill, decode steps, a chunked prefill, a left-padded batch and packed
sequences. This year's RoPE bugs live there: keys stored already rotated and rotated again
(TensorRT-LLM, recurring), decode offsets, a cache extended without its offset, chunked
prefill reusing position ids, DeepSeek-V4's output rotated back at the wrong position.

:func:`pe_symbolic.verify_attention` runs the user's attention step through the scenarios of
:mod:`~pe_symbolic.audit.verify.scenarios` (calling it as
:mod:`~pe_symbolic.audit.verify.steps` says) and checks, with the bounds and the candidates
of :mod:`~pe_symbolic.audit.verify.attncheck`:

(a) what is stored in the cache -- each key rotated exactly once, at its own position;
(b) the pre-softmax scores against the oracle's (:mod:`pe_symbolic.reference`'s
    frequencies, through the double-double rotation of
    :func:`~pe_symbolic.audit.verify.probe.exact` -- never the code under test);
(c) the relative property itself -- the scores unchanged when every position is shifted by a
    common offset (theorem ``rope.relative``) -- the step against itself, no oracle;
(d) the output rotated back at the query's position where the config says so (DeepSeek-V4:
    :math:`R(-m) R(n) = R(n - m)`, theorem ``deepseek_v4.output_conjugate``), else the values
    passed through;

and, for a torch step, the same small scenario eager and through ``torch.compile``.

Why a second entry point and not ``verify_rope(..., cache=True)``: the step has another
calling convention (``q``, ``k``, ``v``, positions and a cache in; scores or an output and
the cache out), other checks and another report; one function with two protocols chosen by
a flag would make ``fn``'s meaning depend on it.

>>> import numpy as np
>>> cfg = {"rope_theta": 10000.0, "head_dim": 8, "num_attention_heads": 2, "num_key_value_heads": 1,
...        "max_position_embeddings": 4096}
>>> inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)
>>> def rope(x, ids):
...     ang = np.concatenate([ids[..., None] * inv] * 2, -1)[:, None]
...     return x * np.cos(ang) + np.concatenate([-x[..., 4:], x[..., :4]], -1) * np.sin(ang)
>>> def step(q, k, v, position_ids, cache):          # rotate, store, attend: scores out
...     k = rope(k, position_ids)
...     keys = k if cache is None else np.concatenate([cache[0], k], 2)
...     return rope(q, position_ids) @ np.repeat(keys, 2, 1).transpose(0, 1, 3, 2) / np.sqrt(8), (keys, None)
>>> r = verify_attention(step, cfg, dtype="float64", seed=0)
>>> r.verdict
'consistent (tested)'
>>> def twice(q, k, v, position_ids, cache):         # the cached keys rotated again on every call
...     keys = k if cache is None else np.concatenate([cache[0], k], 2)
...     n = keys.shape[2]
...     keys = rope(keys, np.arange(n)[None] + position_ids[:, -1:] - n + 1)
...     return rope(q, position_ids) @ np.repeat(keys, 2, 1).transpose(0, 1, 3, 2) / np.sqrt(8), (keys, None)
>>> r = verify_attention(twice, cfg, dtype="float64", seed=0)
>>> r.verdict, "rotated again by call 2" in r.cache["why"][1]
('differs', True)
"""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ...numeric.config import parse_rope_config
from ...numeric.describe import describe
from .attncheck import Ctx, Finding, Run, check_agree, check_cache, check_output, check_relative, check_scores
from .calling import detect_framework, interleave_halves, one_torch_thread
from .conventions import IN_SPLIT_OUT, LAYOUTS, model_convention, model_dtype, model_heads
from .geometry import Oracle
from .probe import EPS
from .report import AttentionReport
from .scenarios import Call, Scenario, draw_scenarios
from .steps import RETURNS, FunctionStep, HFModuleStep, StepResult, as_step, is_hf_attention

__all__ = ["verify_attention"]

def verify_attention(
    attn: Any,
    config: Any = None,
    *,
    layout: str | None = None,
    dtype: str | None = None,
    layer_type: str | None = None,
    scale: float | None = None,
    derotate: bool | None = None,
    returns: str | None = None,
    cache_keys: Callable[[Any], Any] | None = None,
    new_cache: Callable[[], Any] | None = None,
    framework: str | None = None,
    compile: bool | str = True,  # noqa: A002 - the word users know (torch.compile)
    seed: int | None = None,
) -> AttentionReport:
    """Verify a user's attention step with its KV cache against a model config (see the module notes).

    A second entry point rather than ``verify_rope(..., cache=True)``: the step is called
    another way (``q``, ``k``, ``v``, positions and a cache in; scores or an output and the
    cache out), is checked another way (stored keys, scores, the relative property, the
    output) and reports another way; a flag that changed what ``fn`` means would make both
    harder to read.

    Parameters
    ----------
    attn : callable, torch module, or (module, rotary_emb)
        A plain step ``step(q, k, v, position_ids, cache) -> (result, cache)`` -- ``q``
        ``(batch, q_heads, seq, head_dim)``, ``k`` and ``v`` ``(batch, kv_heads, seq,
        head_dim)`` unrotated, ``position_ids`` ``(batch, seq)``, ``cache`` None on a
        sequence's first call, then what the step returned; ``result`` the pre-softmax scores
        ``(batch, q_heads, seq, cached + seq)``, the attention output, or ``(output,
        weights)``; an ``attention_mask=`` keyword, where the step takes one, gets HF's 2-D
        padding mask -- or an HF attention module (transformers' ``LlamaAttention`` and its
        copies), with or without its rotary module (:mod:`pe_symbolic.audit.verify.steps`).
    config : Mapping or an HF config, optional
        The model's ``config.json`` as a dict (an HF config object is read with
        ``to_dict()``; for a module, its own config by default).
    layout : {"split", "interleaved", "interleaved-in-split-out"}, optional
        The pairing (default: the model type's, as :func:`~pe_symbolic.verify_rope` reads it).
        For ``"interleaved-in-split-out"`` the step is given ``q`` and ``k`` with their rotary
        channels interleaved, and its keys and scores are held to the split layout (HF's
        ``apply_rotary_pos_emb_interleave``).
    dtype : {"float32", "bfloat16", "float16", "float64"}, optional
        The dtype ``q``, ``k``, ``v`` are given in (default: the config's ``torch_dtype``).
    layer_type : str, optional
        The rope entry of a per-layer-type config (default: the module's own, or the only one).
    scale : float, optional
        The softmax scale of the scores (default: the module's ``scaling``, else
        ``query_pre_attn_scalar ** -0.5`` where the config has it, else ``head_dim ** -0.5``).
    derotate : bool, optional
        Whether the output is rotated back at the query position (default: where the config
        says so -- :func:`pe_symbolic.numeric.describe`'s layout for DeepSeek-V4).
    returns : {"scores", "weights", "output", "output+weights", "output+scores"}, optional
        What a plain step's ``result`` is, where its shape cannot tell.
    cache_keys : callable, optional
        ``cache_keys(cache)`` -> the keys it holds, for a cache the default reader does not
        know (a paged cache, say).
    new_cache : callable, optional
        A fresh cache for an HF module (default ``DynamicCache``).
    framework : {"numpy", "torch", "jax"}, optional
        Detected by default.
    compile : bool or str, default True
        Run one small scenario through ``torch.compile`` too (a torch step) and compare it
        with the eager path; a string names the backend. It is skipped, and said so, where
        the step does not compile.
    seed : int, optional
        The seed of the drawn inputs (default: drawn from the OS, and reported).

    Returns
    -------
    AttentionReport
        ``consistent (tested)`` when every check passed (the path is tested, never traced:
        never ``verified``), else ``differs`` with where and the cause.

    Raises
    ------
    ValueError
        A bad ``dtype``, ``layout``, ``returns``, ``seed``, ``compile`` or ``layer_type``; an
        M-RoPE or axial config; a step whose first call fails or returns what is not accepted
        (the message says what it got and what is accepted).
    TypeError
        ``attn`` is not callable (nor an HF module or pair), or ``config`` is not a mapping.

    Examples
    --------
    See the module notes; the how-to (``docs/howto/verify.md``) has HF's Llama.
    """
    if not (callable(attn) or isinstance(attn, tuple)):
        raise TypeError(f"attn={attn!r} is not callable: pass step(q, k, v, position_ids, cache) -> (result, cache), "
                        "an HF attention module, or (module, rotary_emb)")
    cfg = _config_dict(attn, config)
    dtype_why = ""
    if dtype is None:
        dtype, dtype_why = model_dtype(cfg)
    if dtype not in EPS:
        raise ValueError(f"dtype={dtype!r} is not allowed; use one of {', '.join(EPS)}")
    if layout is not None and layout not in (*LAYOUTS, IN_SPLIT_OUT):
        raise ValueError(f"layout={layout!r} is not allowed; use 'split', 'interleaved', '{IN_SPLIT_OUT}' or None")
    if returns is not None and returns not in RETURNS:
        raise ValueError(f"returns={returns!r} is not allowed; use one of {', '.join(RETURNS)} or None (from the "
                         "result's shape)")
    if seed is not None and not (isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0):
        raise ValueError(f"seed={seed!r} is not allowed; use a non-negative integer or None (drawn)")
    if not (isinstance(compile, bool) or (isinstance(compile, str) and compile)):
        raise ValueError(f"compile={compile!r} is not allowed; use True, False or a torch.compile backend name")
    if derotate is not None and not isinstance(derotate, bool):
        raise TypeError(f"derotate={derotate!r} must be True, False or None (from the config)")
    if scale is not None and not (isinstance(scale, (int, float)) and not isinstance(scale, bool) and scale > 0):
        raise ValueError(f"scale={scale!r} is not allowed; use a positive number or None")
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    with one_torch_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _verify(attn, cfg, layout=layout, dtype=dtype, dtype_why=dtype_why, layer_type=layer_type, scale=scale,
                       derotate=derotate, returns=returns, cache_keys=cache_keys, new_cache=new_cache,
                       framework=framework, compile=compile, seed=seed)


def _config_dict(attn: Any, config: Any) -> dict[str, Any]:
    if config is None:
        module = attn[0] if isinstance(attn, tuple) and attn else attn
        config = getattr(module, "config", None)
        if config is None:
            raise TypeError("config is required (the model's config.json as a dict) unless attn is an HF module "
                            "with a config")
    if not isinstance(config, Mapping) and callable(getattr(config, "to_dict", None)):
        config = config.to_dict()
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a model's config.json as a dict) or an HF config; got "
                        f"{type(config).__name__}")
    return dict(config)


def _layer_type(attn: Any, cfg: Mapping[str, Any], described: Any, layer_type: str | None) -> str | None:
    types = [t for t in described.layer_types_with_rope() if t is not None] if described is not None else []
    if layer_type is not None:
        if types and layer_type not in types:
            raise ValueError(f"layer_type={layer_type!r} is not one of the config's layer types with RoPE {types!r}")
        return layer_type
    if not types:
        return None
    module = attn[0] if isinstance(attn, tuple) else attn
    own = getattr(module, "attention_type", None) or getattr(module, "layer_type", None)
    lts = cfg.get("layer_types")
    idx = getattr(module, "layer_idx", None)
    if own is None and isinstance(lts, list) and isinstance(idx, int) and 0 <= idx < len(lts):
        own = lts[idx]
    if own in types:
        return own
    if len(types) == 1:
        return types[0]
    raise ValueError(f"the config has one rope entry per layer type ({', '.join(map(repr, types))}); pass "
                     "layer_type= for the layer this step is")


def _derotates(described: Any) -> tuple[bool, str]:
    text = getattr(described, "layout", "") or ""
    said = [part.strip() for part in text.split(";") if "rotated back" in part]
    if said:
        return True, f"describe(config) says so ({said[0]})"
    return False, ""


def _small_s(heads: tuple[int, int], d: int) -> int:
    return next(s for s in (5, 3, 7, 9, 11, 13) if s not in (*heads, d))


def _first_call(step: Any, heads: tuple[int, int], d: int, dtype: str, feed: Callable) -> None:
    """A first call on a fresh cache of a length unlike the heads and head_dim: the result's
    form and the keys' layout are decided on it."""
    s = _small_s(heads, d)
    rng = np.random.default_rng(0)
    q = rng.standard_normal((1, heads[0], s, d))
    k, v = rng.standard_normal((2, 1, heads[1], s, d))
    ids = np.arange(s)[None]
    step.call(feed(q), feed(k), v, ids, step.new_cache(), np.ones((1, s), np.int64), np.tril(np.ones((s, s), bool))[None])


def _verify(attn: Any, cfg: dict[str, Any], *, layout: str | None, dtype: str, dtype_why: str, layer_type: str | None,
            scale: float | None, derotate: bool | None, returns: str | None, cache_keys: Any, new_cache: Any,
            framework: str | None, compile: bool | str, seed: int) -> AttentionReport:
    try:
        described = describe(cfg, quiet=True)
    except (ValueError, TypeError, KeyError):
        described = None  # parse_rope_config below says what is wrong
    lt = _layer_type(attn, cfg, described, layer_type)
    spec = parse_rope_config(cfg, layer_type=lt)
    if spec.mrope_section is not None or spec.rope_type == "axial":
        raise ValueError("verify_attention checks 1-axis RoPE; this config has "
                         + ("M-RoPE (mrope_section)" if spec.mrope_section is not None else "axial RoPE")
                         + " -- check its rotation with verify_rope")
    heads, d = model_heads(cfg), int(spec.head_dim)
    if heads[0] % heads[1]:
        raise ValueError(f"num_attention_heads={heads[0]} is not a multiple of num_key_value_heads={heads[1]}")
    conv_layout, direction, conv_why = model_convention(cfg, described.layout if described is not None else None)
    layout = layout or conv_layout
    oracle = Oracle(cfg, spec, "split" if layout == IN_SPLIT_OUT else layout, lt, direction)
    geo = oracle.at(oracle.switch if oracle.length_dependent else None)
    top = int(spec.max_position_embeddings or cfg.get("max_position_embeddings") or 4096) - 1
    why_derot = "given: derotate=" + str(derotate)
    if derotate is None:
        derotate, why_derot = _derotates(described)
    notes: list[str] = []
    hf = isinstance(attn, tuple) or is_hf_attention(attn)
    if hf:
        kind, how = "torch", "an HF attention module"
    else:
        kind, how = detect_framework(attn, framework, trial=_trial(attn, dtype, heads, d, returns, cache_keys))
    step = as_step(attn, kind=kind, dtype=dtype, heads=heads, head_dim=d, returns=returns, cache_keys=cache_keys,
                   new_cache=new_cache, layer_type=lt)
    if scale is None:
        own = getattr(step, "scale", None)
        qpas = cfg.get("query_pre_attn_scalar")
        scale, scale_why = ((float(own), "the module's scaling") if own else
                            (float(qpas) ** -0.5, "query_pre_attn_scalar ** -0.5") if qpas else
                            (d ** -0.5, "head_dim ** -0.5"))
    else:
        scale, scale_why = float(scale), "given"
    r = geo.r

    def feed(x: np.ndarray) -> np.ndarray:
        return interleave_halves(x, r, "numpy") if layout == IN_SPLIT_OUT else x

    scns = draw_scenarios(seed=seed, top=top, switch=oracle.switch, heads=heads, head_dim=d, dtype=dtype)
    cap = cfg.get("attn_logit_softcapping")
    cap = float(cap) if isinstance(cap, (int, float)) and not isinstance(cap, bool) and cap > 0 else None
    ctx = Ctx(geo, dtype, top, scale, bool(derotate), heads, cap)
    t0 = time.perf_counter()
    with (step.fed() if isinstance(step, HFModuleStep) else contextlib.nullcontext()):
        try:
            _first_call(step, heads, d, dtype, feed)
        except Exception as exc:
            hint = ""
            if kind == "torch" and not hf and hasattr(attn, "forward") and hasattr(attn, "parameters"):
                hint = (f" -- {type(attn).__name__} is a torch module without q_proj / k_proj / v_proj (nor qkv_proj, "
                        "query_key_value): it is called as a plain step; wrap it as step(q, k, v, position_ids, cache)")
            raise ValueError(f"the step failed on its first call ({_small_s(heads, d)} tokens from position 0, a fresh "
                             f"cache, {kind} {dtype}, called as {step.protocol}): {type(exc).__name__}: "
                             f"{str(exc).splitlines()[0] if str(exc) else ''}{hint}") from exc
        runs = {s.key: _run(step, s, s.v, feed) for s in scns}
        read_how = _probabilities(step, runs, ctx, feed, notes)
        seconds = time.perf_counter() - t0
        comp = _compiled(step, scns[0], ctx, feed, compile, kind) if compile else {"summary": "not run (compile=False)"}
    report = _report(runs, ctx, step, read_how, comp, seed, dtype, scale, scale_why, seconds)
    notes.insert(0, f"framework {kind} ({how}); called as {step.protocol}; dtype {dtype}"
                 + (f" ({dtype_why})" if dtype_why else ""))
    notes += step.notes
    if layout != "split" or direction == -1:
        notes.append(f"layout {layout!r}" + (", direction R(-theta)" if direction == -1 else "") + f": {conv_why}")
    if derotate:
        notes.append(f"output rotated back at the query position: {why_derot}")
    if lt is not None:
        notes.append(f"layer type {lt!r}")
    if cap:
        notes.append(f"scores soft-capped as the config says: {cap:g} tanh(s / {cap:g}) (attn_logit_softcapping)")
    if oracle.switch is not None:
        notes.append(f"rope_type {spec.rope_type!r} changes its tables at length {oracle.switch}: positions kept below "
                     "it (a cached key keeps the tables of the call that stored it)")
    if step.static:
        notes.append(f"the cache holds {step.static} slots (a static cache): its first slots are read")
    report.notes = notes + report.notes
    return report


def _trial(attn: Any, dtype: str, heads: tuple[int, int], d: int, returns: str | None,
           cache_keys: Any) -> Callable[[str], Exception | None]:
    def trial(fw: str) -> Exception | None:
        try:
            _first_call(FunctionStep(attn, fw, dtype, heads, d, returns, cache_keys), heads, d, dtype, lambda x: x)
        except Exception as exc:  # noqa: BLE001 - a framework that does not run the step
            return exc
        return None
    return trial


def _run(step: Any, scn: Scenario, v: np.ndarray, feed: Callable) -> Run:
    """The scenario's calls on a fresh cache (stops at an exception, which is kept)."""
    run = Run(scn, v=v)
    cache = step.new_cache()
    for ci, call in enumerate(scn.calls):
        s, e = call.start, call.stop
        try:
            res, cache = step.call(feed(scn.q[:, :, s:e]), feed(scn.k[:, :, s:e]), v[:, :, s:e], scn.ids[:, s:e], cache,
                                   scn.mask2d(e), scn.allowed(call))
        except Exception as exc:  # noqa: BLE001 - the step's failure is a finding
            run.error = f"{scn.label(ci)}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            break
        run.res.append(res)
        run.probs.append(res.weights)
    return run


def _read_pairs(ctx: Ctx, d: int) -> list[tuple[int, int]]:
    """Channel pairs that carry one key's probability each: the rotary pairs (a rotation keeps
    a pair's norm) and the other channels two by two."""
    pairs = list(ctx.geo.pairs)
    used = {c for pair in pairs for c in pair}
    rest = [c for c in range(d) if c not in used]
    return pairs + list(zip(rest[0::2], rest[1::2]))


def _probabilities(step: Any, runs: dict[str, Run], ctx: Ctx, feed: Callable, notes: list[str]) -> str:
    """Where the step gives an output but no weights: its probabilities, read by replaying each
    scenario with one-hot values -- key ``j``'s value the unit vector of the first channel of
    its own pair ``(a, b)``, so the norm of the output's pair is that key's probability, whether
    the values are rotated or the output rotated back (a rotation keeps the norm). Returns how
    they were had."""
    need = [r for r in runs.values() if r.res and r.res[0].out is not None and r.res[0].weights is None]
    if not need:
        got = next((r.res[0] for r in runs.values() if r.res), None)
        return "its weights" if got is not None and got.weights is not None else ""
    d = ctx.geo.d
    pairs = _read_pairs(ctx, d)
    if not pairs:
        notes.append("probabilities not read: the head has no pair of channels to carry them")
        return ""
    for run in need:
        scn = run.scn
        b, hk = scn.batch, ctx.heads[1]
        probs = [np.zeros((b, ctx.heads[0], c.seq, c.stop)) for c in scn.calls[: len(run.res)]]
        for lo in range(0, scn.slots, len(pairs)):
            block = range(lo, min(scn.slots, lo + len(pairs)))
            v = np.zeros((b, hk, scn.slots, d))
            for j in block:
                v[:, :, j, pairs[j - lo][0]] = 1.0
            rep = _run(step, scn, v, feed)
            if len(rep.res) < len(run.res) or any(r.out is None for r in rep.res):
                notes.append(f"{scn.name}: probabilities not read (a replay with one-hot values failed: {rep.error})")
                probs = []
                break
            for ci, call in enumerate(scn.calls[: len(run.res)]):
                for j in block:
                    if j < call.stop:
                        a, c = pairs[j - lo]
                        probs[ci][..., j] = np.hypot(rep.res[ci].out[..., a], rep.res[ci].out[..., c])
        if probs:
            run.probs = list(probs)
    return (f"read from its output: each scenario replayed with one-hot values, a key's probability the norm of its "
            f"own pair of output channels ({len(pairs)} pairs)")


# ---------------------------------------------------------------------------- torch.compile


def _compiled(step: Any, base: Scenario, ctx: Ctx, feed: Callable, compile: bool | str, kind: str) -> dict[str, Any]:
    """One small scenario (a prefill of 5, 3 decode steps) eager and through ``torch.compile``."""
    if kind != "torch":
        return {"summary": f"not run: the step is {kind} code (torch.compile runs torch code)"}
    n = 8
    small = Scenario("compile", "compiled: prefill + decode", base.ids[:, :n], base.valid[:, :n], base.doc[:, :n],
                     [Call(0, 5, "prefill"), Call(5, 6, "decode"), Call(6, 7, "decode"), Call(7, 8, "decode")],
                     base.q[:, :, :n], base.k[:, :, :n], base.v[:, :, :n])
    backend = None if compile is True else str(compile)
    name = backend or "inductor"
    t0 = time.perf_counter()
    eager = _run(step, small, small.v, feed)
    try:
        cstep = step.compiled(backend)
    except Exception as exc:  # noqa: BLE001 - torch.compile unavailable
        return {"summary": f"not run: torch.compile ({name}) is not available: {type(exc).__name__}: {exc}"[:300]}
    comp = _run(cstep, small, small.v, feed)
    secs = time.perf_counter() - t0
    if comp.error is not None or eager.error is not None:
        return {"summary": f"not run: the step does not compile ({name}): {comp.error or eager.error}"[:400]}
    for r in (eager, comp):
        r.probs = [x.weights for x in r.res]
    r0 = comp.res[0]
    what = ", ".join(["keys"] + (["scores"] if r0.scores is not None else []) + (["weights"] if r0.weights is not None
                     else []) + (["outputs"] if r0.out is not None and r0.weights is not None else
                                 ["not the outputs: no weights to bound them"] if r0.out is not None else []))
    head = f"torch.compile ({name}): a prefill of 5 and 3 decode steps ({what}), {secs:.1f} s"
    diff = check_agree(ctx, small, eager.res, comp.res)
    if not diff:
        return {"summary": f"passed -- {head}: equal to the eager path within twice its bound (the eager path is held "
                           "to the oracle above)"}
    why = [f"compiled and eager disagree: {diff}"]
    for which, r in (("the compiled path", comp), ("the eager path", eager)):
        for check in (check_cache, check_scores, check_output):
            f = check(ctx, r)[1]
            if f is not None:
                why += [f"{which}, {f.check}: " + ln for ln in f.lines()]
                break
        else:
            why.append(f"{which}: held to the oracle, every check passed on this scenario")
    return {"summary": f"FAILED -- {head}", "why": why, "failed": True}


# ---------------------------------------------------------------------------- the report


def _report(runs: dict[str, Run], ctx: Ctx, step: Any, read_how: str, comp: dict[str, Any], seed: int, dtype: str,
            scale: float, scale_why: str, seconds: float) -> AttentionReport:
    found: dict[str, list[Finding]] = {"cache": [], "scores": [], "output": [], "relative": []}
    counts = {"scores": 0, "output": 0, "relative": 0}
    statuses: dict[str, list[dict[str, Any]]] = {}
    errors = []
    for key, run in runs.items():
        if run.error:
            errors.append(f"{run.scn.name}: the step raised on {run.error}")
        st, f = check_cache(ctx, run)
        statuses[key] = st
        if f is not None:
            found["cache"].append(f)
        n, f = check_scores(ctx, run)
        counts["scores"] += n
        if f is not None:
            found["scores"].append(f)
        n, f = check_output(ctx, run)
        counts["output"] += n
        if f is not None:
            found["output"].append(f)
        if run.scn.base is not None and run.scn.base in runs:
            n, f = check_relative(ctx, runs[run.scn.base], run)
            counts["relative"] += n
            if f is not None:
                found["relative"].append(f)
    every = [s for st in statuses.values() for s in st]
    unrotated = bool(every) and all(s["ok"] or s["unrotated"] for s in every) and any(s["unrotated"] for s in every)
    calls = sum(len(r.res) for r in runs.values())
    n_scn = len(runs)
    sec: dict[str, dict[str, Any]] = {}

    def section(name: str, ok_text: str, not_run: str | None = None) -> None:
        fs = found[name]
        if fs:
            groups: dict[str | None, list[Finding]] = {}
            for f in fs:
                groups.setdefault(f.cause, []).append(f)
            why = []
            for g in groups.values():
                why += g[0].lines()
                if len(g) > 1:
                    why.append("the same cause in: " + "; ".join(f"{f.scn.name}, {f.scn.label(f.call)}" for f in g[1:]))
            sec[name] = {"summary": f"FAILED in {len(fs)} of {n_scn} scenarios -- {ok_text}", "why": why}
        elif not_run is not None:
            sec[name] = {"summary": f"not checked: {not_run}"}
        else:
            sec[name] = {"summary": f"passed -- {ok_text}"}

    if unrotated:
        found["cache"] = []
        section("cache", f"the keys are stored unrotated after each of {calls} calls (rotated when read, as some engines "
                         "do): (a) does not apply, the scores below check their rotation")
    else:
        section("cache", f"the keys stored after each of {calls} calls in {n_scn} scenarios, each against R(theta(n)) k "
                         "at its own position n (pads left out), within one rotation's rounding in " + dtype)
    what = ("pre-softmax scores" if any(r.res and r.res[0].scores is not None for r in runs.values()) else
            f"probabilities ({read_how}), as logarithms centred over the keys each query attends to")
    section("scores", f"{what} of {counts['scores']} calls against the oracle's s <R(theta(m)) q, R(theta(n)) k> "
                      f"(s = {scale:.6g}, {scale_why}) on every (query, key) pair attended (causal, real tokens, one "
                      "document)", None if counts["scores"] else
            "the step gives neither scores nor weights, and its probabilities could not be read from its output")
    shifts = sorted({r.scn.shift for r in runs.values() if r.scn.base is not None})
    section("relative", f"the scores{' and outputs' if counts['output'] else ''} of {counts['relative']} calls with "
                        f"every position shifted by {' and by '.join(map(str, shifts))} equal the unshifted ones "
                        "within the sum of their bounds: a function of n - m (the step against itself, no oracle; "
                        "RoPE has this property: theorem rope.relative)",
            None if counts["relative"] else "no shifted scenario ran" if not shifts else
            "the step gives no scores or probabilities to compare")
    out_ok = (("each query's output = R(-m) sum_j p_j R(n_j) v_j: the values rotated at their keys' positions, the "
               "sum rotated back at the query's (theorem deepseek_v4.output_conjugate)") if ctx.derotate else
              "each query's output = sum_j p_j v_j: the values not rotated, the output not rotated back")
    section("output", f"{out_ok}, with the step's own probabilities p, in {counts['output']} calls",
            None if counts["output"] else
            "the step returns scores only" if not any(r.res and r.res[0].out is not None for r in runs.values())
            else "its probabilities are not known (no weights, none read)")
    lines = []
    for key, run in runs.items():
        scn = run.scn
        bad = [name for name in ("cache", "scores", "output", "relative") if any(f.scn is scn for f in found[name])]
        kinds = ", ".join(f"{sum(c.kind == k for c in scn.calls)} {k}" for k in dict.fromkeys(c.kind for c in scn.calls))
        state = ("the step raised on " + run.error if run.error else
                 f"FAILED: {', '.join(bad)}" if bad else "passed")
        lines.append(f"{scn.name}: batch {scn.batch}, {scn.slots} slots, calls {kinds} -- {state}")
    verdict = "differs" if any(found.values()) or errors or comp.get("failed") else "consistent (tested)"
    scen = {"summary": f"seed {seed}: {n_scn} scenarios, {calls} calls in {dtype}, {seconds:.1f} s", "lines": lines}
    if errors:
        scen["why"] = errors
    return AttentionReport(verdict, cache=sec["cache"], scores=sec["scores"], relative=sec["relative"],
                           output=sec["output"], compile={k: v for k, v in comp.items() if k != "failed"},
                           scenarios=scen, seed=seed)
