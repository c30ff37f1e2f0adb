"""The entry point: :func:`pe_symbolic.verify_rope` puts the parts together (see the package notes)."""

from __future__ import annotations

import math
import os
import time
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ...numeric.config import parse_rope_config
from ...numeric.describe import describe
from ..symbolic_trace import TraceError
from .calling import PairCall, as_call, caller, detect_framework, interleave_halves, one_torch_thread, to_framework
from .conventions import IN_SPLIT_OUT, LAYOUTS, infer, model_convention, model_dtype, model_heads, submodule_layout
from .diagnose import diagnose
from .geometry import Oracle
from .probe import EPS, draw_plan, gamma, run_plan, summary
from .report import VerifyReport, worst
from .trace import TracedProof, pairs_text, prove_structure, traced_frequencies

__all__ = ["verify_rope"]


def verify_rope(
    fn: Any,
    config: Mapping[str, Any],
    *,
    layout: str | Mapping[str, str] | None = None,
    dtype: str | None = None,
    context: int | None = None,
    framework: str | None = None,
    layer_type: str | None = None,
    trace: bool = True,
    seed: int | None = None,
    length: int | None = None,
    allow_inplace: bool = False,
) -> VerifyReport:
    """Verify a user's RoPE implementation against a model config (see the package notes).

    Parameters
    ----------
    fn : callable, (callable, callable), or dict of them
        ``fn(x, position_ids) -> x_rotated`` with ``x`` of shape ``(batch, heads, seq,
        head_dim)`` and ``position_ids`` of shape ``(batch, seq)`` -- ``(3, batch, seq)``
        (t, h, w) for an M-RoPE config, ``(2, batch, seq)`` (h, w) for an axial one -- in
        NumPy, PyTorch or JAX; or HF's pair ``(rotary_emb, apply)``
        (:mod:`pe_symbolic.audit.verify.calling`: ``(cos, sin)`` or complex
        ``freqs_cis``, two-tensor or one-tensor ``apply``, partial rotary split as the
        attention module does). A dict maps either the config's layer types to functions
        (``{layer_type: fn}``), or entry points to functions (``{"prefill": f, "decode":
        g}``, or sub-modules ``{"mla": f, "indexer": g}``): each is checked, and their
        agreement reported; an entry named ``"decode"`` is called with one position per
        row. ``fn`` (or ``rotary_emb``) is given ``layer_type=`` when its signature takes it.
    config : Mapping
        The model's ``config.json`` as a dict (:func:`pe_symbolic.numeric.model_config`);
        for entry points with their own configs, a dict of configs by entry name.
    layout : {"split", "interleaved", "interleaved-in-split-out"} or dict, optional
        The pairing the model's weights expect (per entry name, as a dict). Default: the
        model type's convention (:mod:`pe_symbolic.audit.verify.conventions`: HF's layout
        as :func:`pe_symbolic.numeric.describe` gives it, and the per-model-type table),
        else ``"split"``.
    dtype : {"float32", "bfloat16", "float16", "float64"}, optional
        The dtype ``x`` is given to ``fn`` in. Default: the model's, the config's
        ``torch_dtype`` (or ``dtype``) where it names one of these, else float32; the report
        says which and why.
    context : int, optional
        Positions ``0 .. context - 1`` are tested (default: the config's
        ``max_position_embeddings``, else 4096; for HF's ``dynamic`` rule twice that, to
        test past the switch). The config's largest admitted position is tested too.
    framework : {"numpy", "torch", "jax"}, optional
        Detected by default (:func:`~pe_symbolic.audit.verify.calling.detect_framework`).
    layer_type : str, optional
        Check only this layer type of a per-layer-type config (default: every layer type
        with RoPE, one after the other).
    trace : bool, default True
        Trace ``fn`` symbolically to prove its structure; ``False``: test only (the verdict
        is then at best ``consistent (tested)``).
    seed : int, optional
        The seed of the randomized tests (default: drawn from the OS, and reported).
    length : int, optional
        The sequence length the implementation sees, for a length-dependent rule (HF's
        ``dynamic``, ``longrope``): every call is held to the oracle at this length.
        Default: ``max(position_ids) + 1`` of each call, as HF reads it.
    allow_inplace : bool, default False
        Accept a function that rotates the caller's ``x`` in place (some kernels do so on
        purpose): reported as a note instead of ``differs``.

    Returns
    -------
    VerifyReport

    Raises
    ------
    ValueError
        A bad ``dtype``, ``layout``, ``framework``, ``context``, ``seed``, ``length`` or
        ``layer_type``; a config the parser refuses (the message names the key, the value
        and what is allowed); a framework that cannot be told (the message names
        ``framework=``).
    TypeError
        ``fn`` is not callable (nor a pair or a dict of callables).

    Examples
    --------
    >>> import numpy as np
    >>> cfg = {"rope_theta": 10000.0, "head_dim": 4, "hidden_size": 16, "num_attention_heads": 4,
    ...        "max_position_embeddings": 512}
    >>> def wrong(x, position_ids):  # the minus on the wrong half
    ...     ang = position_ids[..., None] * np.array([1.0, 0.01])
    ...     c, s = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
    ...     return x * c[:, None] + np.concatenate([x[..., 2:], -x[..., :2]], -1) * s[:, None]
    >>> r = verify_rope(wrong, cfg, dtype="float64", seed=0)
    >>> r.verdict, r.structure["method"], r.structure["verdict"]
    ('differs', 'traced', 'refuted')
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a model's config.json as a dict); got {type(config).__name__}")
    dtype_why = ""
    if dtype is None:
        dtype, dtype_why = model_dtype(config)
    if dtype not in EPS:
        raise ValueError(f"dtype={dtype!r} is not allowed; use one of {', '.join(EPS)}")
    if not isinstance(allow_inplace, bool):
        raise TypeError(f"allow_inplace={allow_inplace!r} must be True or False")
    if not isinstance(trace, bool):
        raise TypeError(f"trace={trace!r} must be True or False")
    if context is not None and not (isinstance(context, int) and not isinstance(context, bool) and context >= 4):
        raise ValueError(f"context={context!r} is not allowed; use an integer >= 4")
    if context is not None and context > 2**31:
        raise ValueError(f"context={context!r} is not allowed; position_ids are tested in int32 too (up to 2**31)")
    if seed is not None and not (isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0):
        raise ValueError(f"seed={seed!r} is not allowed; use a non-negative integer or None (drawn)")
    if length is not None and not (isinstance(length, int) and not isinstance(length, bool) and length >= 1):
        raise ValueError(f"length={length!r} is not allowed; use a positive integer or None (max(position_ids) + 1)")
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a model's config.json as a dict); got {type(config).__name__}")
    parts = list(fn.values()) if isinstance(fn, Mapping) else [fn]
    for part in parts:
        if isinstance(part, tuple):
            if len(part) != 2 or not all(callable(f) for f in part):
                raise TypeError("fn as a tuple must be HF's pair (rotary_emb, apply_rotary_pos_emb)")
        elif not callable(part) and not isinstance(part, Mapping):
            raise TypeError(f"fn={part!r} is not callable (a function fn(x, position_ids), HF's pair (rotary_emb, "
                            "apply), or a dict of them by layer type or entry point)")
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    kw = dict(dtype=dtype, context=context, framework=framework, trace=trace, seed=seed, length=length,
              allow_inplace=allow_inplace, dtype_why=dtype_why)
    if isinstance(fn, Mapping):
        if not fn or not all(callable(f) or isinstance(f, (tuple, Mapping)) for f in fn.values()):
            raise TypeError("fn as a dict must map layer types or entry points to callables (or HF pairs)")
        per_entry_cfg = set(config) == set(fn) and all(isinstance(v, Mapping) for v in config.values())
        types = [] if per_entry_cfg else _layer_types(config)
        if not (types and set(fn) <= set(types) | {None}):
            return _entries(fn, config, per_entry_cfg, layout, layer_type, kw)
    if isinstance(layout, Mapping):
        raise ValueError("layout as a dict is for entry points (fn as a dict {name: fn}); pass one layout")
    return _by_layer_type(fn, config, layout, layer_type, kw)


def _check_layout(layout: Any) -> None:
    if layout is not None and layout not in (*LAYOUTS, IN_SPLIT_OUT):
        raise ValueError(f"layout={layout!r} is not allowed; use 'split', 'interleaved', '{IN_SPLIT_OUT}' or None "
                         "(the model type's convention)")


def _described(config: Mapping[str, Any]) -> Any:
    with warnings.catch_warnings():  # a key the parser does not know warns once, from parse_rope_config below
        warnings.simplefilter("ignore")
        try:
            return describe(config, quiet=True)
        except (ValueError, TypeError, KeyError):  # parse_rope_config below says what is wrong
            return None


def _layer_types(config: Mapping[str, Any]) -> list[str]:
    d = _described(config)
    return [lt for lt in d.layer_types_with_rope() if lt is not None] if d is not None else []


def _by_layer_type(fn: Any, config: Mapping[str, Any], layout: str | None, layer_type: str | None,
                   kw: dict[str, Any]) -> VerifyReport:
    _check_layout(layout)
    described = _described(config)
    if layer_type is None and described is not None:
        types = [lt for lt in described.layer_types_with_rope() if lt is not None]
        if types:
            subs = {lt: _verify_one(_pick(fn, lt), config, layer_type=lt, layout=layout, described=described,
                                    picked=isinstance(fn, Mapping), **kw) for lt in types}
            notes = [f"per-layer-type config: layer types {', '.join(map(repr, types))} checked one by one"]
            skipped = [e.layer_type for e in described.layers if e.spec is None]
            if skipped:
                notes.append("no RoPE (NoPE), not checked: " + ", ".join(map(repr, skipped)))
            return VerifyReport(worst(r.verdict for r in subs.values()), notes=notes, layers=subs)
    picked = isinstance(fn, Mapping)
    if picked:
        if layer_type is None:
            raise ValueError("fn is a dict by layer type, but the config has one rope entry for every layer; pass "
                             "a single fn")
        fn = _pick(fn, layer_type)
    return _verify_one(fn, config, layer_type=layer_type, layout=layout, described=described, picked=picked, **kw)


def _pick(fn: Any, layer_type: str) -> Any:
    if isinstance(fn, Mapping):
        if layer_type not in fn:
            raise ValueError(f"fn has no entry for layer_type={layer_type!r}; its keys are {sorted(fn)!r}")
        return fn[layer_type]
    return fn


def _entries(fns: Mapping[str, Any], config: Mapping[str, Any], per_entry_cfg: bool, layout: Any,
             layer_type: str | None, kw: dict[str, Any]) -> VerifyReport:
    """Several entry points (or sub-modules): each checked; their agreement reported."""
    if isinstance(layout, Mapping):
        unknown = set(layout) - set(fns)
        if unknown:
            raise ValueError(f"layout has entries {sorted(unknown)!r} that fn does not ({sorted(fns)!r})")
    reports: dict[str, VerifyReport] = {}
    for name, f in fns.items():
        cfg = config[name] if per_entry_cfg else config
        lay = layout.get(name) if isinstance(layout, Mapping) else layout
        if lay is None:
            sub = submodule_layout(cfg, str(name))
            lay = sub[0] if sub is not None else None
        if "indexer_rope_interleave" in cfg:  # read here (the indexer's layout): not a key the rope parser knows
            cfg = {k: v for k, v in cfg.items() if k != "indexer_rope_interleave"}
        reports[str(name)] = _by_layer_type(f, cfg, lay, layer_type, {**kw, "decode_only": str(name) == "decode"})
    agreement = _agreement(fns, config, per_entry_cfg, layout, layer_type, kw, reports)
    return VerifyReport(worst([r.verdict for r in reports.values()] + [agreement.pop("verdict", "verified")]),
                        entries=reports, agreement=agreement)


def _agreement(fns: Mapping[str, Any], config: Mapping[str, Any], per_entry_cfg: bool, layout: Any,
               layer_type: str | None, kw: dict[str, Any], reports: Mapping[str, VerifyReport]) -> dict[str, Any]:
    """Entry points with one config and layout must compute the same rotation: each run on the
    same inputs (decode-sized, one position per row), compared within the dtype's bound."""
    names = list(fns)
    if len(names) < 2:
        return {"summary": "one entry: nothing to compare"}
    config = {k: v for k, v in config.items() if k != "indexer_rope_interleave"}

    def layout_of(rep: VerifyReport) -> Any:
        return rep.structure.get("layout") or tuple(sorted((k, r.structure.get("layout")) for k, r in rep.layers.items()))

    same = not per_entry_cfg and len({str(layout_of(r)) for r in reports.values()}) == 1
    if not same:
        convs = "; ".join(f"{n}: {r.conventions.get('summary', r.verdict)}" for n, r in reports.items())
        return {"summary": f"each entry against its own config and layout ({convs})"}
    out: dict[str, Any] = {}
    spec = parse_rope_config(config, layer_type=layer_type or (_layer_types(config) or [None])[0])
    d = spec.head_dim
    rng = np.random.default_rng([kw["seed"], 7])
    ctx = kw["context"] or int(spec.max_position_embeddings or config.get("max_position_embeddings") or 4096)
    x = rng.standard_normal((3, 3, 1, d))
    ids = rng.integers(0, ctx, (3, 1))
    outs = {}
    for n in names:
        try:
            call, kind = _runner(fns[n], config, layer_type, kw["framework"], kw["dtype"], spec, layout)
            outs[n] = call(x, ids)
        except Exception as exc:  # noqa: BLE001 - the entry's own report says what it does
            out["why"] = out.get("why", []) + [f"{n}: not compared ({type(exc).__name__}: {exc})"[:200]]
    if len(outs) < 2:
        out["summary"] = "fewer than two entries could be compared"
        return out
    base = names[0]
    tol = 64 * EPS[kw["dtype"]] * max(1.0, float(np.abs(outs[base]).max()))
    worst_dev = 0.0
    for n in names[1:]:
        if n not in outs:
            continue
        dev = float(np.max(np.abs(outs[n] - outs[base])))
        worst_dev = max(worst_dev, dev)
        if not dev <= tol:
            b = np.unravel_index(int(np.argmax(np.abs(outs[n] - outs[base]))), x.shape)
            out.setdefault("why", []).append(
                f"{n} and {base} disagree at position {int(ids[b[0], 0])} (batch row {b[0]}, slot {b[3]}) by {dev:.3g} "
                f"(tolerance {tol:.3g}): one path differs from the other (scaling applied in one only?)")
    if out.get("why"):
        out["summary"] = f"the entries {', '.join(names)} do not agree"
        out["verdict"] = "differs"
    else:
        out["summary"] = (f"the entries {', '.join(names)} agree on the same inputs (3 rows, one position each, "
                          f"max difference {worst_dev:.3g}, tolerance {tol:.3g})")
    return out


def _runner(fn: Any, config: Mapping[str, Any], layer_type: str | None, framework: str | None, dtype: str, spec: Any,
            layout: Any) -> tuple[Callable, str]:
    kind = _detect(fn, framework, spec, dtype, layer_type)
    call, _ = as_call(fn, kind=kind, head_dim=spec.head_dim, rotary_dim=spec.rotary_dim, layer_type=layer_type)
    if isinstance(call, PairCall):
        _decide(call, kind, dtype, spec)
    return caller(call, kind, dtype), kind


def _trial(fn: Any, spec: Any, dtype: str, layer_type: str | None = None) -> Callable[[str], Exception | None]:
    def trial(fw: str) -> Exception | None:
        try:
            call, _ = as_call(fn, kind=fw, head_dim=spec.head_dim, rotary_dim=spec.rotary_dim, layer_type=layer_type)
            if isinstance(call, PairCall):
                _decide(call, fw, dtype, spec)
            axes = 3 if spec.mrope_section is not None else 2 if spec.rope_type == "axial" else 1
            ids = np.array([[0, 1]]) if axes == 1 else np.zeros((axes, 1, 2), dtype=np.int64)
            out = caller(call, fw, dtype)(np.ones((1, 1, 2, spec.head_dim)), ids)
            if out.shape != (1, 1, 2, spec.head_dim):
                return ValueError(f"returned shape {out.shape}")
        except Exception as exc:  # noqa: BLE001 - a framework that does not run fn
            return exc
        return None
    return trial


def _detect(fn: Any, framework: str | None, spec: Any, dtype: str, layer_type: str | None = None) -> str:
    return detect_framework(fn, framework, trial=_trial(fn, spec, dtype, layer_type))[0]


def _table_width(call: PairCall, kind: str, dtype: str, spec: Any) -> int | None:
    """The width of the tables HF's rotary module gives on a small input (None when it fails)."""
    axes = 3 if spec.mrope_section is not None else 2 if spec.rope_type == "axial" else 1
    ids = np.array([[0, 1]]) if axes == 1 else np.zeros((axes, 1, 2), dtype=np.int64)
    try:
        x, ii = to_framework(np.ones((1, 3, 2, spec.head_dim)), ids, kind, dtype)
        return call._width(call.rotary_emb(x, ii, **call.kw))
    except Exception:  # noqa: BLE001
        return None


def _decide(call: PairCall, kind: str, dtype: str, spec: Any) -> None:
    axes = 3 if spec.mrope_section is not None else 2 if spec.rope_type == "axial" else 1
    ids = np.array([[0, 1]]) if axes == 1 else np.zeros((axes, 1, 2), dtype=np.int64)
    x, ii = to_framework(np.ones((1, 3, 2, spec.head_dim)), ids, kind, dtype)  # heads != seq: the layout shows
    if kind == "torch":
        import torch

        with torch.no_grad():
            call.decide(x, ii)
    else:
        call.decide(x, ii)


def _verify_one(fn: Any, config: Mapping[str, Any], **kw: Any) -> VerifyReport:
    with one_torch_thread():
        return _verify_one_inner(fn, config, **kw)


def _verify_one_inner(fn: Any, config: Mapping[str, Any], *, layout: str | None, dtype: str, context: int | None,
                      framework: str | None, layer_type: str | None, trace: bool, seed: int, length: int | None,
                      described: Any = None, picked: bool = False, decode_only: bool = False,
                      allow_inplace: bool = False, dtype_why: str = "") -> VerifyReport:
    spec = parse_rope_config(config, layer_type=layer_type)
    heads = model_heads(config)
    conv_layout, direction, conv_why = model_convention(config, described.layout if described is not None else None)
    layout = layout or conv_layout
    oracle = Oracle(config, spec, "split" if layout == IN_SPLIT_OUT else layout, layer_type, direction)
    geo0 = oracle.at(None)
    top = int(spec.max_position_embeddings or config.get("max_position_embeddings") or 4096) - 1
    notes: list[str] = []
    if context is None:
        context = top + 1
        if oracle.switch is not None and spec.rope_type == "dynamic" and context <= oracle.switch:
            context = 2 * oracle.switch
            notes.append(f"dynamic NTK: positions up to {context - 1} (twice max_position_embeddings) to test past "
                         f"the switch at {oracle.switch}")
    if length is not None and not oracle.length_dependent:
        notes.append(f"length={length} is not used: rope_type {spec.rope_type!r} does not depend on the length")
        length = None
    kind, how_fw = detect_framework(fn, framework, trial=_trial(fn, spec, dtype, layer_type))
    call, given_lt = as_call(fn, kind=kind, head_dim=spec.head_dim, rotary_dim=spec.rotary_dim, layer_type=layer_type,
                             heads=heads)
    pair = call if isinstance(call, PairCall) else None
    if pair is not None:
        try:
            _decide(pair, kind, dtype, spec)
        except Exception as exc:  # noqa: BLE001 - the user's code (or transformers) refused a small input
            width = _table_width(pair, kind, dtype, spec)
            hint = ""
            if width is not None and width not in (spec.rotary_dim, spec.rotary_dim // 2):
                hint = (f" -- its rotary module gives tables {width} wide{f' for layer type {layer_type!r}' if layer_type else ''}"
                        f", where pe_symbolic reads head_dim {spec.head_dim} and rotary dim {spec.rotary_dim} from the "
                        "config (a per-layer head dim, per_layer_config or global_head_dim, not read?)")
            raise ValueError(f"fn (HF's pair) failed on x of shape (1, 3, 2, {spec.head_dim}) in {kind} {dtype}: "
                             f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}{hint}") from exc
    if layout == IN_SPLIT_OUT:  # fn(Q x) against the split layout, Q interleaving the halves
        inner = call

        def call(x: Any, ids: Any) -> Any:
            return inner(interleave_halves(x, geo0.r, kind), ids)
        call.pair = pair  # type: ignore[attr-defined]
    run = caller(call, kind, dtype)
    eps = EPS[dtype]
    notes.append(f"framework {kind} ({how_fw})" + (f"; HF's pair as {pair.protocol}" if pair is not None else ""))
    if dtype_why:
        notes.append(f"dtype {dtype}: {dtype_why} (pass dtype= to check another)")
    if layout == IN_SPLIT_OUT:
        notes.append(f"layout {IN_SPLIT_OUT!r} (HF's apply_rotary_pos_emb_interleave): fn(Q x) is checked against the "
                     "split layout, Q putting slot i at 2i and slot i + r/2 at 2i + 1")
    if direction == -1:
        notes.append(f"direction R(-theta): {conv_why}")
    elif layout != "split" and conv_why.startswith("model_type"):
        notes.append(f"layout {layout!r}: {conv_why}")
    if layer_type is not None and not given_lt and not picked:
        notes.append(f"layer type {layer_type!r}: fn takes no layer_type argument; it is called as it is")

    # 1. structure: the symbolic trace -------------------------------------------------------
    proofs: list[TracedProof] = []
    not_traced = ""
    t_trace = time.perf_counter()
    if trace:
        lengths: list[int | None] = [None]
        if oracle.length_dependent:
            sw = oracle.switch or context
            lengths = [length] if length is not None else sorted({min(sw, context), context})
        try:
            for L in lengths:
                proofs.append(prove_structure(call, kind, dtype, oracle.at(L), length=L, heads=2 if pair else 1,
                                              side_names=("q", "k") if pair else None))
                if not proofs[-1].proved:
                    break
        except TraceError as exc:
            proofs, not_traced = [], str(exc)
        except RecursionError:
            proofs, not_traced = [], "the trace recursed too deeply"
    else:
        not_traced = "trace=False"
    struct: dict[str, Any] = {"layout": layout, "rotary_dim": geo0.r, "head_dim": geo0.d,
                              "rotary_channels": getattr(spec, "rotary_channels", "leading")}
    if direction == -1:
        struct["direction"] = "R(-theta)"
    if geo0.n_axes > 1:
        struct["position_axes"] = (f"{geo0.kind}: position_ids of shape ({geo0.n_axes}, batch, seq) "
                                   f"({', '.join(geo0.axis_names)})")
    verdict = "verified"
    freq: dict[str, Any] = {}
    struct["seconds"] = round(time.perf_counter() - t_trace, 3)
    if proofs:
        tp = proofs[-1]
        struct.update(method="traced", traced_with=tp.how, verdict=tp.proof.verdict,
                      traced_shape=list(tp.shape))
        lens = [p.length for p in proofs if p.length is not None]
        at = f"at shape {tuple(tp.shape)}" + (f" and length{'s' if len(lens) > 1 else ''} "
                                                f"{', '.join(map(str, lens))}" if lens else "")
        if lens:
            struct["traced_lengths"] = lens
            if not any(p.length_used for p in proofs):
                struct["length_read"] = False
        if tp.proved:
            which = "the last " if struct["rotary_channels"] == "trailing" else ""
            struct["summary"] = (f"proved: fn(x, m) = A R(theta(m)) x with pairs {pairs_text(geo0.pairs)} ({layout}, "
                                 f"{which}{geo0.r} of {geo0.d} dims rotated) for every integer m, {at} -- traced: x "
                                 f"and m symbolic ({tp.how})")
            freq = _traced_frequencies(proofs, oracle, dtype, spec)
            if freq.get("why") and not freq.get("held_in"):
                verdict = "differs"
        else:
            struct["why"] = tp.why or [f"the kernel: {tp.proof.verdict}"]
            if layout == IN_SPLIT_OUT:
                struct["why"].append(f"layout {IN_SPLIT_OUT!r}: the rotation must read pairs (2i, 2i + 1) and write "
                                     "them to (i, i + r/2), as HF's apply_rotary_pos_emb_interleave does; plain "
                                     "rotate_half reads (i, i + r/2) (pass layout='split' if the weights are in that "
                                     "order)")
            if tp.proof.verdict == "refuted":
                struct["summary"] = f"differs from A R(theta(m)) x (refuted by the kernel, traced {at})"
                verdict = "differs"
            else:  # undecided (a time budget, a form outside the kernel): nothing proved, the tests decide
                struct["why"] = [f"the kernel: {tp.proof.verdict}"]
                struct["summary"] = (f"not proved: the kernel is {tp.proof.verdict} on the traced graph ({at}); its "
                                     "structure is tested below")
                verdict = "consistent (tested)"
    else:
        struct.update(method="tested", verdict="not proved", not_traced=not_traced)
        struct["summary"] = (f"not proved: fn was not traced ({not_traced}); its structure is tested below, not "
                             "proved" if not_traced != "trace=False" else
                             "not proved: trace=False; its structure is tested below, not proved")
        verdict = "consistent (tested)"

    # 2. the randomized cross-checks -----------------------------------------------------------
    angle_dtype = "float64" if dtype == "float64" else "float32"
    plan = draw_plan(seed=seed, context=context, top=top, axes=geo0.n_axes, switch=oracle.switch, length=length,
                     dtype=dtype, decode_only=decode_only, heads=heads, pair=pair is not None, head_dim=geo0.d)
    t_tests = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run_plan(run, oracle, plan, dtype, angle_dtype=angle_dtype,
                       kv_split=pair.kv_heads if pair is not None else None)
    tests: dict[str, Any] = {"seed": seed, "calls": res.calls, "positions": len(res.positions),
                             "summary": summary(res, dtype)}
    if plan.notes:
        tests["notes"] = plan.notes
    prec: dict[str, Any] = {"bound": res.bound_how, "context": context}
    if pair is not None:
        tests["sides"] = _sides(res, pair, heads)
    if res.failure is not None:
        v, why = diagnose(res, run, oracle, spec, config, dtype, angle_dtype)
        if pair is not None and res.failure.side is not None:
            for side, f in res.sides.items():
                if f is not None and f is not res.failure:
                    res.failure = f
                    _, why2 = diagnose(res, run, oracle, spec, config, dtype, angle_dtype)
                    why += why2
        graph_right = proofs and proofs[-1].proved and (not freq.get("why") or freq.get("held_in"))
        if graph_right and v == "differs" and res.failure.what == "oracle":
            why.insert(1, f"its float output departs from its traced graph (proved {at}): fn computes something else "
                          "on floats than on symbolic input, or at a shape, position or call the trace does not cover")
        tests["why"] = why
        tests["summary"] = f"FAILED -- {tests['summary']}"
        verdict = v if verdict != "differs" else "differs"
        if v == "out of bound":
            prec["summary"] = f"out of bound: {why[0]}"
            prec["first_position_out_of_bound"] = res.failure.position
        else:
            prec = {}
    else:
        tests["summary"] = "passed -- " + tests["summary"]
        prec["max_error"] = res.max_error
        prec["max_relative_error"] = res.max_rel_error
        bound_name = ("HF's recipe (angles formed in float32)" if res.beyond64 is not None else
                      "float64 angles (the tightest recipe)")
        prec["summary"] = (f"within the bound of {bound_name} at every tested position up to {max(res.positions)}: "
                           f"max error {res.max_rel_error:.3g} x max|x| of its row, at most {res.max_ratio:.3g} of "
                           f"the bound ({res.bound_how})")
        if res.beyond64 is not None:
            prec["beyond_float64_angle_bound_from"] = res.beyond64
            e, b = res.beyond64_err
            prec["why"] = [f"as accurate as HF's reference (its angles in float32); beyond the float64-angle bound from "
                           f"position {res.beyond64} (error {e:.3g} > {b:.3g}): forming the angles in float64 and "
                           "rounding the tables once would be tighter"]
    if pair is None:
        tests["sides"] = (f"q and k: one function for both, checked on q-shaped ({heads[0]} heads) and k-shaped "
                          f"({heads[1]} heads) inputs" if heads[1] != heads[0] else
                          f"q and k: one function for both, checked on the model's {heads[0]} heads")
    tests["summary"] += f"; {tests['sides'] if isinstance(tests['sides'], str) else tests['sides']['summary']}"
    state = getattr(run, "state", None)
    found = state.findings() if state is not None else []
    if found:
        inplace_only = allow_inplace and found == [state.inplace]
        if inplace_only:
            notes.append(f"{state.inplace}: accepted (allow_inplace=True)")
        else:
            tests.setdefault("why", []).extend(
                [w + ("; pass allow_inplace=True if it does so on purpose" if w == state.inplace else "")
                 for w in found if not (allow_inplace and w == state.inplace)])
            if not tests["summary"].startswith("FAILED"):
                tests["summary"] = "FAILED -- " + tests["summary"].removeprefix("passed -- ")
            verdict = "differs"
    # 3. what it does, read from its output (explains; proves nothing) --------------------------
    tests["seconds"] = round(time.perf_counter() - t_tests, 3)
    t_conv = time.perf_counter()
    read_to = min(context, 2**20)  # the reading's one call sees length read_to
    conv = infer(run, oracle.at(length or read_to), read_to, eps, dtype)
    conv["seconds"] = round(time.perf_counter() - t_conv, 3)
    if not freq:
        freq = {"method": "read from the float output (not traced)", "summary": "read from the float output: "
                + str(conv.get("frequencies") or conv.get("summary", ""))}
    report = VerifyReport(verdict, structure=struct, frequencies=freq, precision=prec, tests=tests,
                          conventions=conv, notes=notes)
    return report


def _traced_frequencies(proofs: list[TracedProof], oracle: Oracle, dtype: str, spec: Any) -> dict[str, Any]:
    """The traced angles against the oracle at each traced length."""
    why: list[str] = []
    out: dict[str, Any] = {"method": "traced: each pair's angle as an exact expression of m"}
    worst_rel, worst_u = 0.0, 0.0
    for tp in proofs:
        geo = oracle.at(tp.length)
        omegas, offsets, bad = traced_frequencies(tp, geo)
        at = f" at length {tp.length}" if tp.length is not None else ""
        if bad:
            why += [w + at for w in bad]
            break
        om = np.array(omegas) * geo.direction
        want = geo.want
        rel = np.abs(om - want) / np.maximum(np.abs(want), 1e-300)
        ftol = np.maximum(16 * EPS[dtype], gamma("float32", np.abs(want), 1))
        worst_rel = max(worst_rel, float(rel.max(initial=0.0)))
        worst_u = max(worst_u, float((rel / EPS["float32"]).max(initial=0.0)))
        offs = [o for o in offsets if o and math.isfinite(o)]
        if offs:
            p = int(np.argmax(np.abs(offsets)))
            why.append(f"at position 0 the rotation is not the identity: positions are offset by {offsets[p]:.6g} "
                       f"(pair {p}; off-by-one position_ids?)")
        badp = np.nonzero(rel > ftol)[0]
        coarse = bool(np.any(rel > gamma("float32", np.abs(want), 1)))  # not float32-accurate
        held = _held_in(om, want) if len(badp) or coarse else None
        if held == "float32":
            held = None
        if held is not None:  # the config's frequencies rounded to a narrower dtype: the tests judge that
            out["held_in"] = held
            out.setdefault("notes", []).append(
                f"its inverse frequencies are the config's rounded to {held}{at} (relative error up to "
                f"{rel.max():.3g}): a precision matter, judged by the tests against HF's bound")
            badp = badp[:0]
        if len(badp):
            p = int(badp[0])
            if want[p] == 0:
                why.append(f"pair {p}: inverse frequency {om[p]:.9g} where the config means 0 (this pair must not "
                           f"turn){at}")
            else:
                why.append(f"pair {p}: inverse frequency {om[p]:.9g} where the config means {want[p]:.9g}{at} "
                           f"({rel[p]:.3g} relative)")
            why += _freq_causes(om, want, spec, oracle, tp.length, ftol)
        amps = [float(a) for a in tp.amp]
        fac = geo.factor
        if amps and max(abs(a - fac) for a in amps) > 16 * EPS[dtype] * max(1.0, fac):
            a = amps[int(np.argmax([abs(a - fac) for a in amps]))]
            why.append(f"attention factor: the rotation is scaled by {a:.6g}, the config means {fac:.6g}{at} "
                       f"(rope_type {spec.rope_type!r}: mscale / attention_factor)")
        out["attention_factor"] = float(np.median(amps)) if amps else 1.0
        out["expected_attention_factor"] = fac
    out["max_relative_error"] = worst_rel
    if out.get("notes") and not why:
        out["why"] = out["notes"]  # shown, but not a difference: the verdict is the tests'
        out["summary"] = f"the config's, held in {out['held_in']} (traced exactly)"
        return out
    if why:
        out["why"] = why
        out["summary"] = "differ from the config's (traced exactly)"
    else:
        lens = [tp.length for tp in proofs if tp.length is not None]
        out["summary"] = (f"traced exactly: every pair's angle is m x its inverse frequency, within "
                          f"{worst_rel:.3g} relative ({worst_u:.3g} float32 roundoffs) of the oracle's"
                          + (f" at each traced length ({', '.join(map(str, lens))})" if lens else "")
                          + f"; attention factor {out.get('attention_factor', 1.0):.6g}")
    return out


def _held_in(om: np.ndarray, want: np.ndarray) -> str | None:
    """The narrowest dtype that holds every frequency of ``om`` (each a number of that dtype)
    within two of its units of the config's, or None."""
    from .probe import cast

    for dt in ("bfloat16", "float16", "float32"):  # every frequency a number of dt, near the config's
        if np.array_equal(cast(om, dt), om) and np.all(np.abs(om - want) <= 2 * EPS[dt] * np.abs(want) + 1e-300):
            return dt
    return None


def _freq_causes(om: np.ndarray, want: np.ndarray, spec: Any, oracle: Oracle, length: int | None,
                 ftol: np.ndarray) -> list[str]:
    """Which parameter reproduces the traced frequencies."""
    r = spec.rotary_dim
    i = np.arange(len(om), dtype=np.float64)
    theta = float(spec.rope_theta)
    cands: list[tuple[str, np.ndarray]] = [
        (f"its frequencies are the plain ladder of rope_theta = {theta:g}: the scaling (rope_type "
         f"{spec.rope_type!r}) is ignored", theta ** (-2 * i / r)),
        ("its frequencies are the ladder of base 10000: rope_theta fell back to 10000 (a config migration that "
         "lost it?)", 10000.0 ** (-2 * i / r))]
    if spec.head_dim != r:
        cands.append((f"the partial-rotary exponent uses head_dim = {spec.head_dim} instead of rotary_dim = {r}",
                      theta ** (-2 * i / spec.head_dim)))
    if spec.factor:
        cands += [(f"the factor {spec.factor:g} is applied the wrong way (multiplied, not divided)",
                   want * spec.factor**2), (f"the factor {spec.factor:g} is applied twice", want / spec.factor)]
    if oracle.length_dependent and oracle.switch is not None and length is not None:
        sw = oracle.switch
        other = oracle.at(sw) if length > sw else oracle.at(2 * sw)
        side = f"a length <= {sw}" if length > sw else f"a length > {sw}"
        cands.append((f"at length {length} its frequencies are those the config gives at {side}: the tables do not "
                      f"switch at {sw} (the length is not passed to the rope init, or not read from position_ids)",
                      other.want))
    if np.all(np.abs(om + want) <= ftol * np.abs(want) + 1e-300):
        return ["the rotation turns the wrong way (every sin has the opposite sign)"]
    out = [w for w, c in cands if len(c) == len(om) and np.all(np.abs(om - c) <= ftol * np.maximum(np.abs(c), 1e-300))]
    if not out and len(om) > 1 and om[0] > 0 and om[1] > 0:
        out.append(f"its effective base is {(om[0] / om[1]) ** (r / 2.0):.6g} where the config's frequencies start "
                   f"at ratio {(want[0] / want[1]) ** (r / 2.0):.6g}")
    return out


def _sides(res: Any, pair: PairCall, heads: tuple[int, int]) -> dict[str, Any]:
    """HF's pair: q's and k's verdict lines (each side held to the oracle on its own)."""
    out: dict[str, Any] = {}
    lines = []
    for side in ("q", "k"):
        f = res.sides.get(side)
        n = res.side_calls.get(side, 0)
        if f is None:
            line = f"{side}: passed ({n} calls)" if n else f"{side}: not checked"
        else:
            line = f"{side}: FAILED at position {f.position} in call {f.ncall} ({f.spec.label})"
        out[side] = line
        lines.append(line)
    checked = "q and k" if res.side_calls.get("k") else "q only (apply gave no k output)"
    out["summary"] = (f"{checked} checked, drawn independently ({heads[0]} q heads, {heads[1]} kv heads in the "
                      f"model's calls): " + "; ".join(lines))
    return out
