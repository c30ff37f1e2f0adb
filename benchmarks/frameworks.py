"""Benchmarks of :mod:`pe_symbolic.torch` and :mod:`pe_symbolic.jax`, and of the first
numeric call with the disk cache cold and warm.

RoPE rows (one run, same machine, medians of warm calls; ratios against a copy of ``x``
and against Hugging Face's formula in the same run):

* ``copy``: ``x.clone()`` (torch) / a jitted ``x * 1`` (JAX): the memory floor of any
  out-of-place RoPE; ``copy compiled``: ``torch.compile`` of ``x.clone()``, the floor of
  any compiled one (inductor's own copy kernel; on a CPU it can cost more than the eager
  copy);
* ``HF``: Hugging Face's ``LlamaRotaryEmbedding.forward`` (float32 ``inv_freq @ position_ids``,
  ``cat``, ``cos``/``sin``, cast) and ``apply_rotary_pos_emb`` (``q * cos + rotate_half(q) *
  sin``), written inline; "apply" rows take the tables as given (computed once per
  forward, as in a model), "full" rows compute them too;
* ``pe_symbolic``: :func:`pe_symbolic.torch.apply_rope` with ``position_ids`` (full: the
  same ids every call, as every layer of a model passes them, so the table cache hits) and
  with ``cos_sin=`` from :func:`pe_symbolic.torch.rope_cos_sin` (apply); the batch's rows
  hold the same positions, so those tables are one row's, expanded; "apply, distinct rows":
  each row shifted by its index (a left-padded batch), tables of every row; "full, new ids":
  new positions every call (a cache miss each time), measured in a round of their own;
* each eager and ``torch.compile``-d (``fullgraph=True``), or ``jax.jit``-ted;
* "by shape": eager ``apply_rope(x, cos_sin=...)`` against HF's eager formula from a decoding
  step (one position) to a training batch.

The rows of a section are measured round robin (one call of each in turn), so that the load
of a shared machine falls on every row alike.

On a CUDA device (where one is present) every row is timed two ways: 20 back-to-back calls
between CUDA events ("launched": the host's launch time counts where it is longer than the
device's work) and the same 20 calls replayed as one CUDA graph ("graph": the device's time);
four inputs are taken in turn, so that ``x`` does not sit in the L2 cache.

Targets (issue 22): compiled ``apply_rope`` <= 1.2x a copy on CPU for (4, 8, 4096, 128)
float32 and bfloat16 (and on a GPU where one is lent); eager within 1.5x HF eager.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np


def _medians(fns: dict, repeat: int, sync=lambda r: r, calls: int = 1, clock=time.perf_counter) -> dict:
    """Median seconds of each function, measured round robin (one sample of each in turn,
    ``repeat`` rounds, after two warm-up rounds): on a shared machine the load then falls
    on every row alike, and the ratios of one run compare like with like. A sample is
    ``calls`` calls, the last one waited for (``sync``), divided by ``calls`` (on an
    accelerator: back-to-back launches, as a model makes them), timed by ``clock``
    (wall-clock by default; ``time.thread_time``: the CPU time of the measuring thread)."""
    for _ in range(2):
        for fn in fns.values():
            sync(fn())
    times: dict = {k: [] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            t0 = clock()
            for _ in range(calls - 1):
                fn()
            sync(fn())
            times[k].append((clock() - t0) / calls)
    return {k: statistics.median(v) for k, v in times.items()}


def _cuda_medians(torch, fns: dict, repeat: int, calls: int = 20) -> tuple[dict, dict]:
    """As :func:`_medians` on a CUDA device, two ways. ``launched``: ``calls`` back-to-back
    calls between two CUDA events, divided by ``calls`` (the host's launch time counts where
    it is longer than the device's work, as in a model run without graphs). ``graph``: the
    same ``calls`` calls captured once in a CUDA graph and replayed between two events: the
    device's time, as under CUDA graphs (vLLM, ``torch.compile(mode="reduce-overhead")``).
    A row the graph cannot capture (e.g. a copy from host memory in it) gets ``None``."""
    for _ in range(2):
        for fn in fns.values():
            fn()
    torch.cuda.synchronize()
    graphs: dict = {}
    for k, fn in fns.items():
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        try:
            with torch.cuda.stream(side):
                fn()
            torch.cuda.current_stream().wait_stream(side)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(calls):
                    fn()
            graphs[k] = g
        except Exception:  # noqa: BLE001 - not capturable: no graph row
            torch.cuda.synchronize()
            graphs[k] = None
    times: dict = {k: [] for k in fns}
    replays: dict = {k: [] for k in fns}

    def timed(run) -> float:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / calls

    for _ in range(repeat):
        for k, fn in fns.items():
            times[k].append(timed(lambda: [fn() for _ in range(calls)]))
            if graphs[k] is not None:
                replays[k].append(timed(graphs[k].replay))
    return ({k: statistics.median(v) for k, v in times.items()},
            {k: statistics.median(v) if v else None for k, v in replays.items()})


def _hf_inv_freq(torch, d: int, base: float, device="cpu"):
    """HF's default ``inv_freq``: ``1 / base ** (arange(0, d, 2) / d)`` in float32."""
    return 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64, device=device).float() / d))


def _hf_tables(torch, inv_freq, position_ids, dtype):
    """HF LlamaRotaryEmbedding.forward (default rope type), inline."""
    inv = inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
    pos = position_ids[:, None, :].float()
    freqs = (inv.float() @ pos.float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def _rotate_half(torch, x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def _hf_apply(torch, q, cos, sin):
    """HF apply_rotary_pos_emb (unsqueeze_dim=1), inline."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return (q * cos) + (_rotate_half(torch, q) * sin)


def _torch_rows(torch, device: str, shape, dtypes, repeat: int) -> None:
    import pe_symbolic.torch as PT
    from pe_symbolic.torch import _backend as PTB

    B, H, S, D = shape
    base = 500000.0
    ids = torch.arange(S, device=device)[None].expand(B, S).contiguous()
    # positions the table cache has not seen: a new offset each call (more than it holds)
    fresh = [ids + 1 + k for k in range(2 * PTB._CACHE_SIZE)]
    turn = iter(range(10**9))

    def new_ids():
        return fresh[next(turn) % len(fresh)]

    inv = _hf_inv_freq(torch, D, base, device)
    sync = (lambda r: (torch.cuda.synchronize(), r)[1]) if device == "cuda" else (lambda r: r)
    for dt in dtypes:
        # on a GPU, four inputs taken in turn: x (32-64 MiB) would otherwise sit in its L2 cache
        xs = [torch.randn(shape, device=device).to(dt) for _ in range(4 if device == "cuda" else 1)]
        x = xs[0]
        turn_x = iter(range(10**9))

        def nx():
            return xs[next(turn_x) % len(xs)]
        hc, hs = _hf_tables(torch, inv, ids, dt)
        tdt = torch.float32 if dt != torch.float64 else dt
        pc, ps = PT.rope_cos_sin(ids, D, base=base, dtype=tdt)
        shifted = ids + torch.arange(B, device=device)[:, None]  # a left-padded batch: rows differ
        dc, ds = PT.rope_cos_sin(shifted, D, base=base, dtype=tdt)
        compiled = {
            "copy": torch.compile(lambda x: x.clone(), fullgraph=True),
            "HF apply": torch.compile(lambda x, c, s: _hf_apply(torch, x, c, s), fullgraph=True),
            "HF full": torch.compile(lambda x, i: _hf_apply(torch, x, *_hf_tables(torch, inv, i, dt)), fullgraph=True),
            "pe_symbolic apply": torch.compile(lambda x, c, s: PT.apply_rope(x, cos_sin=(c, s)), fullgraph=True),
            "pe_symbolic apply, distinct rows": torch.compile(lambda x, c, s: PT.apply_rope(x, cos_sin=(c, s)),
                                                              fullgraph=True),
            "pe_symbolic full": torch.compile(lambda x, i: PT.apply_rope(x, i, base=base), fullgraph=True),
        }
        args = {"copy": (x,), "HF apply": (x, hc, hs), "HF full": (x, ids), "pe_symbolic apply": (x, pc, ps),
                "pe_symbolic apply, distinct rows": (x, dc, ds), "pe_symbolic full": (x, ids)}
        t_compile = {}
        for k, f in compiled.items():
            t0 = time.perf_counter()
            sync(f(*args[k]))
            t_compile[k] = time.perf_counter() - t0
        fns = {
            "copy": lambda: nx().clone(),
            "HF apply eager": lambda: _hf_apply(torch, nx(), hc, hs),
            "HF full eager": lambda: _hf_apply(torch, nx(), *_hf_tables(torch, inv, ids, dt)),
            "pe_symbolic apply eager": lambda: PT.apply_rope(nx(), cos_sin=(pc, ps)),
            "pe_symbolic apply, distinct rows eager": lambda: PT.apply_rope(nx(), cos_sin=(dc, ds)),
            "pe_symbolic full eager": lambda: PT.apply_rope(nx(), ids, base=base),
        }
        for k, f in compiled.items():
            fns[f"{k} compiled"] = lambda f=f, k=k: f(nx(), *args[k][1:])
        cf = compiled["pe_symbolic full"]
        # cache misses in a round of their own (they would evict the hits of the rows above)
        misses = {"copy": fns["copy"], "HF full eager": fns["HF full eager"],
                  "HF full compiled": fns["HF full compiled"],
                  "pe_symbolic full, new ids eager": lambda: PT.apply_rope(nx(), new_ids(), base=base),
                  "pe_symbolic full, new ids compiled": lambda: cf(nx(), new_ids())}
        PT.clear_cache()
        if device == "cuda":
            times, graph = _cuda_medians(torch, fns, repeat)
            again, graph_again = _cuda_medians(torch, misses, repeat)
        else:
            times, again, graph, graph_again = _medians(fns, repeat), _medians(misses, repeat), None, None
        PT.clear_cache()
        copy = times.pop("copy")
        name = str(dt).removeprefix("torch.")
        print(f"\n{device} {name} x{tuple(shape)} ({x.numel() * x.element_size() / 2**20:.0f} MiB), "
              f"torch {torch.__version__}, {torch.get_num_threads()} threads; copy {copy * 1e3:.3f} ms "
              f"(rows measured round robin, median of {repeat}"
              + (", each 20 calls between CUDA events; 'graph': the 20 calls replayed as one CUDA graph, "
                 "the device's time)" if device == "cuda" else ")"))
        print(f"{'row':<42} {'median':>10} {'/ copy':>8} {'/ HF same mode':>15}"
              + (f" {'graph':>10} {'/ copy':>8} {'/ HF':>6}" if graph is not None else ""))
        for group, ref, gr in ((times, copy, graph), (again, again.pop("copy"), graph_again)):
            gref = gr.pop("copy") if gr is not None else None
            for k, v in group.items():
                if group is again and k.startswith("HF"):
                    continue
                kind, mode = k.rsplit(" ", 1)
                hk = f"HF {kind.split(' ', 1)[1].split(',')[0]} {mode}" if kind.startswith("pe_symbolic") else k
                vs_hf = f"{v / group[hk]:>14.2f}x" if k != hk else f"{'-':>15}"
                line = f"{k:<42} {v * 1e3:>8.3f}ms {v / ref:>7.2f}x {vs_hf}"
                if gr is not None:
                    g, gh = gr[k], gr[hk]
                    line += (f" {g * 1e3:>8.3f}ms {g / gref:>7.2f}x " + (f"{g / gh:>5.2f}x" if gh and k != hk else "    -")
                             if g is not None else "  (not capturable in a CUDA graph)")
                print(line)
        print("compile (first call): " + ", ".join(f"{k} {v:.1f} s" for k, v in t_compile.items()))
        print("(full: tables from position_ids; the same ids each call hit pe_symbolic's table cache, "
              "as every layer of a model does; 'new ids': a miss each call, measured in a second round "
              "robin with its own copy and HF rows, against which its ratios are taken)")


#: Shapes of ``x`` a model rotates: decoding steps (one position), prompts, a training batch.
EAGER_SHAPES = ((1, 32, 1, 128), (8, 32, 1, 128), (1, 32, 128, 128), (1, 32, 1024, 128), (4, 8, 4096, 128))


def _eager_shapes(torch, shapes, repeat: int) -> None:
    """Eager ``apply_rope(x, cos_sin=...)`` against HF's eager formula, shape by shape (the
    tables given, as a model computes them once per forward): each sample is a run of calls
    (20 for x under 1 MiB, else one), the two rows taken in turn, ``repeat`` rounds."""
    import pe_symbolic.torch as PT

    print(f"\ncpu eager, by shape (torch {torch.__version__}; median of {repeat} rounds, HF and pe_symbolic in "
          f"turn; wall-clock with {torch.get_num_threads()} threads, and the CPU time of one thread doing the "
          "work alone: torch.set_num_threads(1), time.thread_time)")
    print(f"{'x shape':<20} {'dtype':<9} {'HF':>10} {'pe_symbolic':>12} {'/ HF':>6} {'HF 1 CPU':>10} {'pe 1 CPU':>10} "
          f"{'/ HF':>6}")
    for shape in shapes:
        B, H, S, D = shape
        ids = torch.arange(S)[None].expand(B, S).contiguous() + 7
        inv = _hf_inv_freq(torch, D, 500000.0)
        for dt in (torch.float32, torch.bfloat16):
            x = torch.randn(shape).to(dt)
            hc, hs = _hf_tables(torch, inv, ids, dt)
            pc, ps = PT.rope_cos_sin(ids, D, base=500000.0)
            calls = 20 if x.numel() * x.element_size() < 2**20 else 1
            fns = {"HF": lambda: _hf_apply(torch, x, hc, hs), "pe": lambda: PT.apply_rope(x, cos_sin=(pc, ps))}
            t = _medians(fns, repeat, calls=calls)
            threads = torch.get_num_threads()
            torch.set_num_threads(1)  # (the CPU time of the threads of a parallel region is not this thread's)
            try:
                c = _medians(fns, repeat, calls=calls, clock=time.thread_time)
            finally:
                torch.set_num_threads(threads)
            print(f"{str(shape):<20} {str(dt).removeprefix('torch.'):<9} {_us(t['HF']):>10} {_us(t['pe']):>12} "
                  f"{t['pe'] / t['HF']:>5.2f}x {_us(c['HF']):>10} {_us(c['pe']):>10} {c['pe'] / c['HF']:>5.2f}x")


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def bench_torch(quick: bool) -> None:
    print("\n## pe_symbolic.torch: RoPE against Hugging Face's formula and a copy")
    try:
        import torch
    except ImportError:
        print("torch not installed: section skipped (pip install 'pe_symbolic[torch]')")
        return
    shape = (1, 8, 1024, 128) if quick else (4, 8, 4096, 128)
    repeat = 3 if quick else 15
    _torch_rows(torch, "cpu", shape, (torch.float32, torch.bfloat16), repeat)
    _eager_shapes(torch, EAGER_SHAPES[:3] if quick else EAGER_SHAPES, 5 if quick else 15)
    print("\n## GPU")
    if torch.cuda.is_available():
        print(f"CUDA device: {torch.cuda.get_device_name()}")
        _torch_rows(torch, "cuda", shape, (torch.float32, torch.bfloat16), repeat)
    else:
        print("no CUDA here (torch.cuda.is_available() is False): GPU rows not measured")


#: Decoding: one position per sequence, (batch, heads, 1, head_dim) queries and
#: (batch, kv_heads, 1, head_dim) keys, every layer of llama-3.1-8b (32 layers, 32 / 8 heads).
DECODE_BATCHES = (1, 8)
DECODE_LAYERS = 32


def _decode_rows(torch, PT, cfg, B: int, dt, repeat: int) -> None:
    """One decode step's RoPE for ``B`` sequences, as a model calls it, against Hugging
    Face's eager path in the same run (rows measured round robin, median of ``repeat``
    rounds; a per-layer row's sample is 20 calls, a per-token row's one call).

    HF: ``LlamaRotaryEmbedding.forward`` once per token, ``apply_rotary_pos_emb(q, k, cos,
    sin)`` in every layer. pe_symbolic: the tables once per token and ``apply_rope((q, k),
    cos_sin=...)`` in every layer; or ``apply_rope((q, k), position_ids, config=cfg)`` in
    every layer (the tables of the step's positions computed by the first layer, looked up
    by the others). Each token takes the next position (new tables every step); the batch's
    rows sit at different positions (a left-padded batch)."""
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    heads, kv, d = cfg["num_attention_heads"], 8, 128
    hf_rope = LlamaRotaryEmbedding(LlamaConfig(**cfg))
    q = torch.randn(B, heads, 1, d).to(dt)
    k = torch.randn(B, kv, 1, d).to(dt)
    steps = [torch.arange(B)[:, None] + 4000 + s for s in range(64)]  # (B, 1) position_ids
    turn = iter(range(10**9))

    def ids():
        return steps[next(turn) % len(steps)]

    tdt = torch.float32 if dt != torch.float64 else dt  # pe_symbolic: float32 tables for 16-bit x
    module = getattr(PT, "RotaryEmbedding", None)
    pe_rope = module(cfg, dtype=tdt) if module is not None else None

    def pe_tables(i):
        return pe_rope(i) if pe_rope is not None else PT.rope_cos_sin(i, config=cfg, dtype=tdt)

    hc, hs = hf_rope(q, steps[0])
    pc, ps = pe_tables(steps[0])

    def hf_token():
        c, s = hf_rope(q, ids())
        for _ in range(DECODE_LAYERS):
            apply_rotary_pos_emb(q, k, c, s)

    def pe_token():
        cs = pe_tables(ids())
        for _ in range(DECODE_LAYERS):
            PT.apply_rope((q, k), cos_sin=cs)

    def pe_token_config():
        i = ids()
        for _ in range(DECODE_LAYERS):
            PT.apply_rope((q, k), i, config=cfg)

    rows = {  # name: (function, calls per sample)
        "HF tables (rotary_emb)": (lambda: hf_rope(q, ids()), 20),
        "HF apply_rotary_pos_emb (q, k)": (lambda: apply_rotary_pos_emb(q, k, hc, hs), 20),
        "HF per token": (hf_token, 1),
        ("pe_symbolic tables (RotaryEmbedding)" if pe_rope is not None else "pe_symbolic tables (rope_cos_sin)"):
            (lambda: pe_tables(ids()), 20),
        "pe_symbolic apply_rope((q, k), cos_sin=)": (lambda: PT.apply_rope((q, k), cos_sin=(pc, ps)), 20),
        "pe_symbolic apply_rope((q, k), ids, config=)": (lambda: PT.apply_rope((q, k), ids(), config=cfg), 20),
        "pe_symbolic per token, tables given": (pe_token, 1),
        "pe_symbolic per token, config= every call": (pe_token_config, 1),
    }
    for _ in range(2):
        for f, n in rows.values():
            for _ in range(n):
                f()
    wall: dict = {k: [] for k in rows}
    cpu: dict = {k: [] for k in rows}
    for _ in range(repeat):
        for name, (f, n) in rows.items():
            t0, c0 = time.perf_counter(), time.thread_time()
            for _ in range(n):
                f()
            cpu[name].append((time.thread_time() - c0) / n)
            wall[name].append((time.perf_counter() - t0) / n)
    wmed = {k: statistics.median(v) for k, v in wall.items()}
    cmed = {k: statistics.median(v) for k, v in cpu.items()}
    print(f"\ncpu {str(dt).removeprefix('torch.')} decode step, q ({B}, {heads}, 1, {d}), k ({B}, {kv}, 1, {d}), "
          f"{DECODE_LAYERS} layers (median of {repeat} rounds, rows round robin)")
    print(f"{'row':<48} {'wall':>10} {'/ HF token':>11} {'thread CPU':>11} {'/ HF token':>11}")
    for name in rows:
        w, c = wmed[name], cmed[name]
        token = "per token" in name
        print(f"{name:<48} {_us(w):>10} " + (f"{w / wmed['HF per token']:>10.2f}x" if token else f"{'':>11}")
              + f" {_us(c):>11} " + (f"{c / cmed['HF per token']:>10.2f}x" if token else ""))


def bench_decode(quick: bool) -> None:
    """Decoding at Hugging Face's cost: one thread, eager CPU, llama-3.1-8b (issue 35).

    Each sample is timed twice: wall-clock time, and the CPU time of the measuring thread
    (``time.thread_time``), which on a shared machine leaves out the time the thread waited
    for a core (a loaded 2-core VM moves wall-clock medians by 2-4x from run to run; the
    thread's CPU time much less). Targets: per token <= 1.0x HF with the tables given,
    <= 1.2x with ``config=`` on every call."""
    print("\n## pe_symbolic.torch: a decode step against Hugging Face's eager rotary embedding")
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError:
        print("torch and transformers needed: section skipped (pip install 'pe_symbolic[torch]' transformers)")
        return
    import pe_symbolic.torch as PT
    from pe_symbolic.numeric import model_config

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        cfg = model_config("llama-3.1-8b")
        print(f"torch {torch.__version__}, transformers {transformers.__version__}, 1 thread, eager")
        for B in DECODE_BATCHES:
            for dt in ((torch.float32,) if quick else (torch.float32, torch.bfloat16)):
                _decode_rows(torch, PT, cfg, B, dt, 5 if quick else 41)
    finally:
        torch.set_num_threads(threads)


def bench_jax(quick: bool) -> None:
    print("\n## pe_symbolic.jax: RoPE against Hugging Face's formula (jnp) and a copy")
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("JAX not installed: section skipped (pip install 'pe_symbolic[jax]')")
        return
    import pe_symbolic.jax as PJ

    B, H, S, D = shape = (1, 8, 1024, 128) if quick else (4, 8, 4096, 128)
    repeat = 3 if quick else 7
    base = 500000.0
    ids = jnp.asarray(np.broadcast_to(np.arange(S)[None], (B, S)).astype(np.int32))
    inv = 1.0 / (base ** (jnp.arange(0, D, 2).astype(jnp.float32) / D))

    def hf_tables(i, dt):
        freqs = (i[:, :, None].astype(jnp.float32) * inv[None, None, :])
        emb = jnp.concatenate((freqs, freqs), -1)
        return jnp.cos(emb).astype(dt), jnp.sin(emb).astype(dt)

    def hf_apply(q, c, s):
        c, s = c[:, None], s[:, None]
        rot = jnp.concatenate((-q[..., D // 2:], q[..., : D // 2]), -1)
        return q * c + rot * s

    def block(r):
        return jax.block_until_ready(r)

    print(f"jax {jax.__version__}, x64 {'on' if PJ.x64_enabled() else 'off (tables: NumPy core via pure_callback)'}")
    where = jax.default_backend()  # "cpu", "gpu", ...
    gpu = where != "cpu"
    for dt in (jnp.float32, jnp.bfloat16):
        # on an accelerator, four inputs taken in turn (x would otherwise sit in its cache)
        xs = [jnp.asarray(np.random.default_rng(k).standard_normal(shape, dtype=np.float32)).astype(dt)
              for k in range(4 if gpu else 1)]
        x = xs[0]
        turn = iter(range(10**9))
        hc, hs = hf_tables(ids, dt)
        pc, ps = PJ.rope_cos_sin(ids, D, base=base, dtype=jnp.float32)
        jf = {
            "copy": (jax.jit(lambda x: x * 1), (x,)),
            "HF apply": (jax.jit(hf_apply), (x, hc, hs)),
            "HF full": (jax.jit(lambda x, i: hf_apply(x, *hf_tables(i, x.dtype))), (x, ids)),
            "pe_symbolic apply": (jax.jit(lambda x, c, s: PJ.apply_rope(x, cos_sin=(c, s))), (x, pc, ps)),
            "pe_symbolic full": (jax.jit(lambda x, i: PJ.apply_rope(x, i, base=base)), (x, ids)),
        }
        for f, _ in jf.values():  # compiled once for every input (same shapes)
            f(*_)
        times = _medians({k: (lambda f=f, a=a: f(xs[next(turn) % len(xs)], *a[1:])) for k, (f, a) in jf.items()},
                         repeat, block, calls=20 if gpu else 1)
        copy = times.pop("copy")
        print(f"\n{where} {jnp.dtype(dt).name} x{shape}; copy (jit x*1) {copy * 1e3:.3f} ms"
              + (" (each sample 20 calls, the last waited for)" if gpu else ""))
        print(f"{'row (jax.jit)':<30} {'median':>10} {'/ copy':>8} {'/ HF same':>10}")
        for k, v in times.items():
            hf = times["HF " + k.split(" ", 1)[1]] if k.startswith("pe_symbolic") else v
            print(f"{k:<30} {v * 1e3:>8.3f}ms {v / copy:>7.2f}x {v / hf:>9.2f}x")


FIRST = textwrap.dedent("""
    import sys, time, json
    t0 = time.perf_counter()
    import pe_symbolic.numeric as N
    t1 = time.perf_counter()
    N.sinusoidal_table([0, 1, 2], 64)
    t2 = time.perf_counter()
    print(json.dumps({"framework": 0.0, "import": t1 - t0, "first": t2 - t1,
                      "sympy": "sympy" in sys.modules, "mpmath": "mpmath" in sys.modules}))
""")
FIRST_TORCH = textwrap.dedent("""
    import sys, time, json
    t0 = time.perf_counter()
    import torch
    t1 = time.perf_counter()
    import pe_symbolic.torch as PT
    t2 = time.perf_counter()
    ids = torch.arange(16)[None]
    PT.rope_cos_sin(ids, 128, base=500000.0)
    PT.apply_rope(torch.ones(1, 2, 16, 128), ids, base=500000.0)
    t3 = time.perf_counter()
    print(json.dumps({"framework": t1 - t0, "import": t2 - t1, "first": t3 - t2,
                      "sympy": "sympy" in sys.modules, "mpmath": "mpmath" in sys.modules}))
""")
BASELINE = "import time; t0 = time.perf_counter(); import numpy; print(time.perf_counter() - t0)"


def bench_first_call(quick: bool) -> None:
    """A first table in fresh processes, the disk cache empty (cold), then warm (median of
    several): ``import pe_symbolic.numeric`` + ``sinusoidal_table``, and, with torch,
    ``import pe_symbolic.torch`` + ``rope_cos_sin`` + ``apply_rope`` (the ``import torch``
    before it timed apart)."""
    print("\n## First numeric call: disk cache cold and warm (fresh processes)")
    runs = 3 if quick else 7
    # bytecode as an installed package has it (a checkout run with PYTHONDONTWRITEBYTECODE
    # would compile every module of the package in every process)
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run(script: str, cache: str) -> dict:
        env = dict(base_env, PE_SYMBOLIC_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    numpy_import = statistics.median(
        float(subprocess.run([sys.executable, "-c", BASELINE], capture_output=True, text=True, env=base_env,
                             check=True).stdout) for _ in range(runs))
    try:
        import torch  # noqa: F401

        scripts = {"pe_symbolic.numeric (sinusoidal_table)": FIRST,
                   "pe_symbolic.torch (rope_cos_sin + apply_rope)": FIRST_TORCH}
    except ImportError:
        scripts = {"pe_symbolic.numeric (sinusoidal_table)": FIRST}
    for name, script in scripts.items():
        with tempfile.TemporaryDirectory() as tmp:
            cold = run(script, tmp)
            warm = [run(script, tmp) for _ in range(runs)]
        wi = statistics.median(w["import"] for w in warm)
        wf = statistics.median(w["first"] for w in warm)
        fw = statistics.median(w["framework"] for w in warm)
        print(f"{name}:")
        print(f"  cold: import {cold['import'] * 1e3:.1f} ms + first call {cold['first'] * 1e3:.1f} ms "
              f"(proofs, lambdify, stored); SymPy imported: {cold['sympy']}")
        print(f"  warm (median of {runs}): import {wi * 1e3:.1f} ms + first call {wf * 1e3:.1f} ms = "
              f"{(wi + wf) * 1e3:.1f} ms after the framework's import"
              + (f" (import torch itself: {fw * 1e3:.0f} ms; in all {(fw + wi + wf) * 1e3:.0f} ms)" if fw else "")
              + f"; SymPy imported: {any(w['sympy'] for w in warm)}, mpmath: {any(w['mpmath'] for w in warm)}")
    print(f"(`import numpy` alone, median of {runs} fresh processes: {numpy_import * 1e3:.1f} ms; it is part "
          "of the import figures above)")
