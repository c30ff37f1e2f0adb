"""The benchmark cases: tables, RoPE, cold start, peak memory, accuracy against the oracle.

Baselines (all measured in the same run, same machine):

* ``naive``: outer product, ``np.sin``, ``np.cos``, strided assignment (``out[:, 0::2] = sin``);
  the float32 naive recipe forms its angles in float32 (the common, inaccurate recipe).
* ``hand``: the fastest hand-written NumPy I could write for the same output: angle addition
  with plain float64 frequencies, ``exp(i w t0) * exp(i w j)`` as one broadcast complex
  multiply straight into a complex view of the output (float32: cast once).
* ``floor``: ``np.sin`` + ``np.cos`` over the T*d/2 precomputed angles into preallocated
  buffers (no angle formation, no interleaving): what any sin/cos-per-entry method pays.

Accurate mode is timed by route (``numpy``, and ``numba`` when the ``fast`` extra is
installed; the line above the table says which one runs by default) against naive float64
measured in the same run.

Medians are of warm calls: the frequencies and the fine table ``exp(i w j)``, ``j < B`` (both
constants of ``(d, base, schedule)``) are cached after the first call, and so is the coarse
table of the positions (one row per ``B`` positions: what every layer of a model at the same
positions finds ready); the "cold" row clears both caches before each call.

"alloc" rows allocate their output every call; "out=" rows write a preallocated buffer.
Ratios compare like with like (alloc with alloc, out= with out=).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from unittest import mock

import numpy as np

from pe_symbolic import numeric
from pe_symbolic.numeric import _accurate, _kernels, _rope_kernels

from . import frameworks


# ----------------------------------------------------------------------------------------
# timing


def median_time(fn, *, repeat: int, min_time: float = 0.0) -> float:
    """Median of ``repeat`` timed calls (after one warm-up call), in seconds."""
    fn()
    times = []
    t_start = time.perf_counter()
    while len(times) < repeat or (time.perf_counter() - t_start < min_time and len(times) < 50):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def ms(x: float) -> str:
    return f"{x * 1e3:9.3f} ms"


# ----------------------------------------------------------------------------------------
# what the ratios depend on


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cache(level: int) -> str:
    """Size of one core's cache of this level (Linux sysfs), or '?'."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for idx in sorted(os.listdir(base)):
            d = os.path.join(base, idx)
            with open(os.path.join(d, "level")) as f:
                lvl = int(f.read())
            with open(os.path.join(d, "type")) as f:
                kind = f.read().strip()
            if lvl == level and kind in ("Unified", "Data"):
                with open(os.path.join(d, "size")) as f:
                    return f.read().strip()
    except OSError:
        pass
    return "?"


def _numpy_simd() -> str:
    """NumPy's SIMD baseline and the dispatch targets this CPU runs (as numpy.show_runtime)."""
    try:
        from numpy._core._multiarray_umath import (
            __cpu_baseline__, __cpu_dispatch__, __cpu_features__)
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import (
            __cpu_baseline__, __cpu_dispatch__, __cpu_features__)
    found = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    missing = [f for f in __cpu_dispatch__ if not __cpu_features__.get(f)]
    return (f"baseline {','.join(__cpu_baseline__) or '-'}; dispatch found "
            f"{','.join(found) or '-'}; not found {','.join(missing) or '-'}")


def _libm_speed() -> str:
    """ns per element of np.sin on 2**20 reduced arguments: scalar libm calls (float64, ~5-25
    ns) or vectorised loops (~0.5 ns) decide what 'naive float64' costs."""
    x = np.random.default_rng(0).uniform(-0.78, 0.78, 1 << 20)
    out = {}
    for dt in (np.float64, np.float32):
        a = x.astype(dt)
        o = np.empty_like(a)
        out[np.dtype(dt).name] = median_time(lambda: np.sin(a, out=o), repeat=5) / a.size * 1e9
    return ", ".join(f"np.sin {k} {v:.2f} ns/element" for k, v in out.items())


def machine_header() -> str:
    """The lines every benchmark run starts with: what its ratios depend on."""
    libc = " ".join(platform.libc_ver()) or "?"
    return "\n".join([
        f"# CPU: {_cpu_model()}, {os.cpu_count()} CPUs, {platform.machine()}; "
        f"L1d {_cache(1)}, L2 {_cache(2)}, L3 {_cache(3)} per core/share",
        f"# Python {platform.python_version()}, NumPy {np.__version__} (SIMD {_numpy_simd()})",
        f"# libm: {libc} (NumPy's float64 sin/cos call it per element unless NumPy vectorises "
        f"them): {_libm_speed()}",
    ])


# ----------------------------------------------------------------------------------------
# baselines


def naive_table(t, d, dtype, out=None, base=10000.0):
    dt = np.dtype(dtype)
    tt = np.asarray(t, dt)
    w = (dt.type(base) ** (-np.arange(0, d, 2, dtype=dt) / dt.type(d))).astype(dt)
    ang = np.outer(tt, w)
    if out is None:
        out = np.empty((tt.size, d), dt)
    out[:, 0::2] = np.sin(ang)
    out[:, 1::2] = np.cos(ang)
    return out


def hand_table(t, d, dtype, out=None, base=10000.0, B=64):
    """Angle addition, plain float64 frequencies, interleaved (cos, sin) = complex view."""
    T = t.size
    w = base ** (-np.arange(0, d, 2) / d)
    na = -(-T // B)
    C = np.exp(1j * np.outer(t[0] + B * np.arange(na, dtype=np.float64), w))
    F = np.exp(1j * np.outer(np.arange(B, dtype=np.float64), w))
    if out is None:
        out = np.empty((T, d), dtype)
    cdt = np.complex64 if np.dtype(dtype) == np.float32 else np.complex128
    z = out.view(cdt)
    full = (T // B) * B
    np.multiply(C[: T // B, None, :], F[None], out=z[:full].reshape(T // B, B, d // 2))
    if full < T:
        np.multiply(C[T // B], F[: T - full], out=z[full:])
    return out


def floor_sincos(ang, s, c):
    np.sin(ang, out=s)
    np.cos(ang, out=c)


def naive_rope_split(x, pos, base=10000.0):
    d = x.shape[-1]
    inv = (np.float32(base) ** (-np.arange(0, d, 2, dtype=np.float32) / np.float32(d)))
    freqs = np.outer(pos.astype(np.float32), inv)
    emb = np.concatenate([freqs, freqs], -1)
    cos, sin = np.cos(emb), np.sin(emb)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    rot = np.concatenate([-x2, x1], -1)
    return x * cos + rot * sin


def naive_rope_interleaved(x, pos, base=10000.0):
    d = x.shape[-1]
    inv = (np.float32(base) ** (-np.arange(0, d, 2, dtype=np.float32) / np.float32(d)))
    freqs = np.outer(pos.astype(np.float32), inv)
    cos = np.repeat(np.cos(freqs), 2, -1)
    sin = np.repeat(np.sin(freqs), 2, -1)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    rot = np.stack([-x2, x1], -1).reshape(x.shape)  # GPT-J rotate_every_two
    return x * cos + rot * sin


# ----------------------------------------------------------------------------------------
# sections


def bench_tables(quick: bool) -> None:
    cases = [(2048, 512)] if quick else [(2048, 512), (8192, 1024), (65536, 128)]
    repeat = 3 if quick else 15
    print("\n## Tables: sinusoidal_table(arange(T), d), interleaved sin_cos, vaswani")
    print("ratio = ours / baseline (lower is better). alloc: output allocated per call; "
          "out=: preallocated.")
    routes = _accurate_routes()
    hdr = f"{'case':>22} {'ours':>12} {'naive':>12} {'hand':>12} {'floor':>12} " \
          f"{'/naive':>7} {'/hand':>7} {'/floor':>7}"
    print(hdr)
    for T, d in cases:
        t = np.arange(T, dtype=np.float64)
        for dt in (np.float64, np.float32):
            name = np.dtype(dt).name
            numeric.sinusoidal_table(t[:8], d)  # frequency constants cached
            ang = np.outer(t.astype(dt), numeric.frequencies(d).astype(dt))
            s, c = np.empty_like(ang), np.empty_like(ang)
            floor = median_time(lambda: floor_sincos(ang, s, c), repeat=repeat)
            del ang, s, c
            for mode in ("alloc", "out="):
                buf = np.empty((T, d), dt)
                ob = buf if mode == "out=" else None
                ours = median_time(lambda: numeric.sinusoidal_table(t, d, dtype=dt, out=ob),
                                   repeat=repeat)
                naive = median_time(lambda: naive_table(t, d, dt, out=ob), repeat=repeat)
                hand = median_time(lambda: hand_table(t, d, dt, out=ob), repeat=repeat)
                label = f"({T},{d}) {name} {mode}"
                print(f"{label:>22} {ms(ours)} {ms(naive)} {ms(hand)} {ms(floor)} "
                      f"{ours / naive:7.3f} {ours / hand:7.3f} {ours / floor:7.3f}")
            cold = []
            for _ in range(3):
                _kernels._fine_table.cache_clear()
                _kernels._coarse_table.cache_clear()
                t0 = time.perf_counter()
                numeric.sinusoidal_table(t, d, dtype=dt)
                cold.append(time.perf_counter() - t0)
            label = f"({T},{d}) {name} cold"
            print(f"{label:>22} {ms(statistics.median(cold))}   (fine- and coarse-table caches "
                  "cleared before each call; alloc)")
            naive64 = median_time(lambda: naive_table(t, d, np.float64), repeat=repeat)
            for route in routes:
                with _forced(_accurate, route == "numba"):
                    acc = median_time(
                        lambda: numeric.sinusoidal_table(t, d, dtype=dt, accurate=True),
                        repeat=max(3, repeat // 2))
                label = f"({T},{d}) {name} accurate {route}"
                print(f"{label:>22} {ms(acc)}   vs naive float64 (alloc) {ms(naive64)}: "
                      f"{acc / naive64:6.3f}x")


def _accurate_routes() -> list[str]:
    """The routes of accurate mode to time (see :func:`_routes`)."""
    return _routes(_accurate, _accurate.LOOP, "accurate", "the compiled loop",
                   f"tables of >= {_accurate.FUSED_MIN_ENTRIES} entries",
                   lambda dt: numeric.sinusoidal_table(np.arange(4.0), 8, dtype=dt, accurate=True),
                   (np.float64, np.float32))


def _forced(module, fused: bool | None):
    """Force a module's compiled route (its switch ``FUSED``) for the duration."""
    return mock.patch.object(module, "FUSED", fused)


def _routes(module, kernel, label: str, what: str, size: str, first_call, dtypes) -> list[str]:
    """Say which route ``label`` takes for large calls, time what the compiled route's first
    use costs (``first_call(dtype)``, a small call, forced), and return the routes to time:
    ``["numpy"]``, plus ``"numba"`` when the ``fast`` extra (numba) is installed."""
    t0 = time.perf_counter()
    route = kernel.route(None)  # imports numba and the kernel's module, if there
    t1 = time.perf_counter()
    if route == "numpy":
        print(f"{label} route: numpy ({what} of the 'fast' extra is not in use: "
              f"{kernel.unavailable})")
        return ["numpy"]
    import numba

    firsts = []
    for dt in dtypes:
        with _forced(module, False):  # the NumPy route first: constants, lowering cached
            first_call(dt)
        with _forced(module, True):
            t2 = time.perf_counter()
            first_call(dt)
            firsts.append(f"{np.dtype(dt).name} {time.perf_counter() - t2:.3f} s")
    print(f"{label} route: numba {numba.__version__} (the 'fast' extra, one thread; for {size}; "
          f"rows for both routes below). First use in this process: import {t1 - t0:.3f} s, "
          f"first call {', '.join(firsts)} (compiled, or loaded from numba's on-disk cache)")
    return ["numpy", "numba"]


#: apply_rope's output modes in the rope section: a new array, a given ``out``, in place.
ROPE_MODES = ("alloc", "out=", "out=x")


def _rope_out(mode: str, x: np.ndarray, out: np.ndarray) -> np.ndarray | None:
    return {"alloc": None, "out=": out, "out=x": x}[mode]


def _copy_floors(name: str, x: np.ndarray, out: np.ndarray, repeat: int) -> dict[str, float]:
    """Time and print the floor of each of :data:`ROPE_MODES`: one copy of ``x``, into a new
    array (alloc) or into ``out`` (``out=``; in place, ``x`` is read once and written once as
    well, so ``out=x`` compares with it too)."""
    floor = {"alloc": median_time(lambda: x.copy(), repeat=repeat),
             "out=": median_time(lambda: np.copyto(out, x), repeat=repeat)}
    for mode, f in floor.items():
        print(f"{name:>8} {'floor (copy)':>12} {mode:>6} {ms(f)} {'':>12} {ms(f)} "
              f"{'':>7} {1.0:7.3f}")
    floor["out=x"] = floor["out="]
    return floor


def bench_rope(quick: bool) -> None:
    shape = (4, 8, 1024, 128) if quick else (4, 8, 4096, 128)
    repeat = 5 if quick else 15
    rng = np.random.default_rng(0)
    pos = np.arange(shape[-2], dtype=np.float64)
    print(f"\n## apply_rope on x{shape}, positions arange({shape[-2]})")
    print("naive: HF rotate_half / GPT-J rotate_every_two with float32 angles (allocates); "
          "floor: one copy of x, x.copy() (alloc) or np.copyto(out, x) (out=): x read once, "
          "the output written once; 'one pass': x * 1.5 (alloc) or np.multiply(x, 1.5, out=) "
          "(out=), the cheapest NumPy arithmetic over x (a copy is a memcpy, which no ufunc "
          "loop is). Ratios compare alloc with alloc, out= with out=; out=x (in place) with "
          "the out= copy.")
    routes = _split_routes()
    print(f"{'dtype':>8} {'layout':>12} {'mode':>6} {'ours':>12} {'naive':>12} {'floor':>12} "
          f"{'/naive':>7} {'/floor':>7}")
    for dt in (np.float32, np.float64):
        x = rng.standard_normal(shape, dtype=dt)
        out = np.empty_like(x)
        name = np.dtype(dt).name
        floor = _copy_floors(name, x, out, repeat)
        one = {"alloc": median_time(lambda: x * 1.5, repeat=repeat),
               "out=": median_time(lambda: np.multiply(x, 1.5, out=out), repeat=repeat)}
        for mode, f in one.items():
            print(f"{name:>8} {'one pass':>12} {mode:>6} {ms(f)} {'':>12} {ms(floor[mode])} "
                  f"{'':>7} {f / floor[mode]:7.3f}")
        rows = [("interleaved", "interleaved", naive_rope_interleaved, None)]
        rows += [(f"split {r}", "split", naive_rope_split, r == "numba") for r in routes]
        naive = {}
        for label, layout, naive_fn, fused in rows:
            if layout not in naive:
                naive[layout] = median_time(lambda: naive_fn(x, pos), repeat=repeat)
            for mode in ROPE_MODES:
                ob = _rope_out(mode, x, out)
                with _forced(_rope_kernels, fused):
                    ours = median_time(lambda: numeric.apply_rope(x, pos, layout=layout, out=ob),
                                       repeat=repeat)
                nv = naive[layout]
                print(f"{name:>8} {label:>12} {mode:>6} {ms(ours)} {ms(nv)} "
                      f"{ms(floor[mode])} {ours / nv:7.3f} {ours / floor[mode]:7.3f}")
        del x, out
    _bench_rope_16(shape, repeat, pos)
    _bench_rope_small(quick)


#: Small calls: a decode step (one token, 32 heads), a short chunk, a short prompt; the
#: fixed costs of a call (validation, planning, the phasors, the kernel's setup) dominate.
SMALL_SHAPES = ((1, 32, 1, 128), (1, 32, 16, 128), (1, 8, 512, 128))


def _bench_rope_small(quick: bool) -> None:
    """``apply_rope`` on small ``x`` (allocating), against the naive formula, whose float32
    angles cost few NumPy calls, and a copy. Positions from 4095 on (a decode step deep in a
    sequence)."""
    import ml_dtypes

    repeat = 51 if quick else 201
    print("\n## apply_rope, small calls (fixed costs per call; positions from 4095, allocating)")
    print("naive's temporaries come from the heap here: the sections above freed large arrays, "
          "which raised glibc's mmap threshold. In a fresh process each temporary over 128 KiB "
          "is mapped afresh and faults on every page (naive on (1, 8, 512, 128) float32: "
          "~4-5 ms there, ~0.7-0.8 ms here); ours allocates only its output.")
    print(f"{'dtype':>8} {'layout':>12} {'x shape':>16} {'ours':>10} {'naive':>10} {'copy':>10} "
          f"{'/naive':>7}")
    rng = np.random.default_rng(0)
    for dt in (np.float32, ml_dtypes.bfloat16):
        for layout, naive_fn in (("split", naive_rope_split),
                                 ("interleaved", naive_rope_interleaved)):
            for shape in SMALL_SHAPES:
                x = rng.standard_normal(shape, dtype=np.float32).astype(dt)
                pos = np.arange(shape[-2], dtype=np.float64) + 4095
                ours = median_time(lambda: numeric.apply_rope(x, pos, layout=layout), repeat=repeat)
                nv = median_time(lambda: naive_fn(x, pos), repeat=repeat)
                cp = median_time(lambda: x.copy(), repeat=repeat)
                print(f"{np.dtype(dt).name:>8} {layout:>12} {str(shape):>16} {ours * 1e6:7.1f} us "
                      f"{nv * 1e6:7.1f} us {cp * 1e6:7.1f} us {ours / nv:7.3f}")


def _bench_rope_16(shape, repeat: int, pos: np.ndarray) -> None:
    """bfloat16 / float16 x: both layouts by the NumPy route (through float32) and, with the
    ``fast`` extra, the compiled 16-bit kernels (``_rope_kernels.FUSED``), against a copy."""
    import ml_dtypes

    routes = ["numpy"]
    if _rope_kernels.HALF_KERNELS.route(None) == "numba":
        routes.append("numba")
    else:
        print(f"16-bit route: numpy (the compiled 16-bit kernels are not in use: "
              f"{_rope_kernels.HALF_KERNELS.unavailable})")

    # x of the float32 rows' bytes too: at the same shape 16-bit x is 32 MiB, which partly fits
    # a 32 MiB L3, so its copy (the floor) moved 2.5-4.0 ms between runs on the EPYC VM while
    # the compiled loops, compute-bound, did not; at 64 MiB the copy comes from memory
    big = (2 * shape[0],) + tuple(shape[1:])
    rng = np.random.default_rng(0)
    for shp, rts in ((shape, routes), (big, routes[1:])):
        if rts and shp is big:
            print(f"16-bit x of {shp} ({math.prod(shp) * 2 >> 20} MiB, the float32 rows' bytes), "
                  "compiled route only:")
        for dt in (ml_dtypes.bfloat16, np.float16) if rts else ():
            _bench_rope_16_rows(rng, shp, dt, rts, repeat, pos)


def _bench_rope_16_rows(rng, shape, dt, routes: list[str], repeat: int, pos: np.ndarray) -> None:
    """The rows of one 16-bit dtype and shape: its copy floors, then each layout and route."""
    x = rng.standard_normal(shape, dtype=np.float32).astype(dt)
    out = np.empty_like(x)
    name = np.dtype(dt).name
    floor = _copy_floors(name, x, out, repeat)
    for layout in ("interleaved", "split"):
        short = "inter" if layout == "interleaved" else layout
        for r in routes:
            for mode in ROPE_MODES:
                ob = _rope_out(mode, x, out)
                with _forced(_rope_kernels, r == "numba"):
                    ours = median_time(lambda: numeric.apply_rope(x, pos, layout=layout, out=ob),
                                       repeat=repeat)
                print(f"{name:>8} {short + ' ' + r:>12} {mode:>6} {ms(ours)} {'':>12} "
                      f"{ms(floor[mode])} {'':>7} {ours / floor[mode]:7.3f}")


def _split_routes() -> list[str]:
    """The routes of the split layout to time (see :func:`_routes`)."""
    return _routes(_rope_kernels, _rope_kernels.SPLIT_KERNEL, "split", "the fused kernel",
                   f"x of >= {_rope_kernels.FUSED_MIN_BYTES >> 20} MiB",
                   lambda dt: numeric.apply_rope(np.ones((1, 2, 4), dt), [0.0, 1.0]),
                   (np.float32, np.float64))


COLD = r"""
import time
t0 = time.perf_counter()
import numpy as np
from pe_symbolic import numeric
from pe_symbolic.numeric import lower  # noqa: F401
t1 = time.perf_counter()
numeric.sinusoidal_table(np.arange(4.0), 8)
t2 = time.perf_counter()
print(f"{t1 - t0:.4f} {t2 - t1:.4f}")
"""


def bench_cold_start(quick: bool) -> None:
    from pe_symbolic.numeric import lower
    print("\n## Lowering (lambdify) cold start")
    res = subprocess.run([sys.executable, "-c", COLD], capture_output=True, text=True,
                         check=True)
    imp, first = (float(v) for v in res.stdout.split())
    print(f"fresh process: import numeric+lower {imp * 1e3:.1f} ms; first table "
          f"(proof of the gating claim, lowering, 40-digit constants) {first * 1e3:.1f} ms")
    numeric.sinusoidal_table([0.0], 8)  # verdicts cached in this process
    lower._lower_cached.cache_clear()
    lower.frequency_constants.cache_clear()
    numeric._core._omega_dd.cache_clear()
    t0 = time.perf_counter()
    numeric.sinusoidal_table([0.0], 1024)
    t1 = time.perf_counter()
    print(f"verdict cached: lambdify + 512 constants at 40 digits (d=1024) {(t1 - t0) * 1e3:.1f} ms;"
          f" again (cached) ", end="")
    t0 = time.perf_counter()
    numeric.sinusoidal_table([0.0], 1024)
    print(f"{(time.perf_counter() - t0) * 1e3:.3f} ms")


def bench_memory(quick: bool) -> None:
    cases = [(2048, 512)] if quick else [(2048, 512), (8192, 1024), (65536, 128)]
    print("\n## Peak memory (tracemalloc) / output size, allocating calls")
    for T, d in cases:
        t = np.arange(T, dtype=np.float64)
        for dt in (np.float64, np.float32):
            numeric.sinusoidal_table(t[:8], d)
            size = T * d * np.dtype(dt).itemsize
            peaks = {}
            for name, fn in (
                ("ours", lambda: numeric.sinusoidal_table(t, d, dtype=dt)),
                ("ours accurate", lambda: numeric.sinusoidal_table(t, d, dtype=dt, accurate=True)),
                ("naive", lambda: naive_table(t, d, dt)),
            ):
                tracemalloc.start()
                fn()
                peaks[name] = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
            print(f"({T},{d}) {np.dtype(dt).name}: output {size / 2**20:7.1f} MiB; peak/output: "
                  + ", ".join(f"{k} {v / size:.3f}" for k, v in peaks.items()))


def bench_accuracy(quick: bool) -> None:
    import mpmath

    from pe_symbolic import reference

    rng = np.random.default_rng(42)
    d = 256 if quick else 1024
    n_runs = 3 if quick else 16
    rows_per_run = 2 if quick else 4
    T = 2048
    print(f"\n## Accuracy against the mpmath oracle (50 digits): d={d}, {n_runs} runs of "
          f"{T} consecutive positions below 2**24 (one ends at 2**24-1), "
          f"{rows_per_run} sampled rows each = {n_runs * rows_per_run * d} entries")
    starts = list(rng.integers(0, 2**24 - T, n_runs - 1)) + [2**24 - T]
    stats: dict[str, list[float]] = {}

    def ulp_err(num, ref, bits):
        out = 0.0
        with mpmath.workdps(60):
            for v, r in zip(np.ravel(num), np.ravel(ref)):
                diff = abs(mpmath.mpf(float(v)) - r)
                if r == 0:
                    out = max(out, 0.0 if diff == 0 else float("inf"))
                    continue
                e = int(mpmath.frexp(r)[1])
                out = max(out, float(diff / mpmath.ldexp(1, max(e - bits, -1074))))
        return out

    def abs_err(num, ref):
        with mpmath.workdps(60):
            return max(float(abs(mpmath.mpf(float(v)) - r)) for v, r in zip(np.ravel(num),
                                                                           np.ravel(ref)))

    for s0 in starts:
        t = s0 + np.arange(T, dtype=np.float64)
        rows = np.sort(rng.choice(T, rows_per_run, replace=False))
        if s0 == starts[-1]:
            rows[-1] = T - 1
        ref = reference.sinusoidal_table(t[rows], d)
        res = {
            "default f64": numeric.sinusoidal_table(t, d)[rows],
            "accurate f64": numeric.sinusoidal_table(t, d, accurate=True)[rows],
            "default f32": numeric.sinusoidal_table(t, d, dtype=np.float32)[rows],
            "accurate f32": numeric.sinusoidal_table(t, d, dtype=np.float32, accurate=True)[rows],
            "naive f64": naive_table(t, d, np.float64)[rows],
            "naive f32": naive_table(t, d, np.float32)[rows],
        }
        for k, v in res.items():
            bits = 24 if "f32" in k else 53
            stats.setdefault(k + " abs", []).append(abs_err(v, ref))
            stats.setdefault(k + " ulp", []).append(ulp_err(v, ref, bits))
    for k in ("default f64", "accurate f64", "default f32", "accurate f32", "naive f64",
              "naive f32"):
        unit = "ulp32" if "f32" in k else "ulp64"
        print(f"{k:>13}: max abs error {max(stats[k + ' abs']):.3e}   max {unit} error "
              f"{max(stats[k + ' ulp']):.4g}")

    # Hard cases for relative error: numerators of continued-fraction convergents of pi and
    # pi/2 make sin(t) or cos(t) tiny for the frequency-1 pair (and near-misses elsewhere).
    hard = np.array([3.0, 22, 333, 355, 103993, 104348, 208341, 312689, 833719, 1146408,
                     4272943, 5419351, 11, 344, 51819, 52174, 6565759, 2**24 - 1])
    dh = 64 if quick else 256
    print(f"near-zero stress: {hard.size} positions (pi and pi/2 convergents), d={dh}, both "
          "schedules, accurate mode")
    for schedule in ("vaswani", "tensor2tensor"):
        ref = reference.sinusoidal_table(hard, dh, schedule=schedule)
        for name, dt, bits in (("f64", np.float64, 53), ("f32", np.float32, 24)):
            num = numeric.sinusoidal_table(hard, dh, schedule=schedule, dtype=dt, accurate=True)
            smallest = min(abs(float(v)) for v in ref.ravel() if v != 0)
            print(f"  {schedule:>13} {name}: max ulp error {ulp_err(num, ref, bits):.4f} "
                  f"(smallest |entry| {smallest:.2e})")


def bench_proofs(quick: bool) -> None:
    """Proof time of every registered theorem: the generic form (for every even d, a lemma, or
    as stated), then instantiated for concrete d, block by block.

    The generic form of a foundation theorem is proved once for d = 2h with symbolic h, so its
    time does not depend on d; a concrete d checks its d/2 blocks (linear in d). Each (id, d)
    is proved once (the registry caches proofs); the lemmas are registered first, so the
    theorems that cite them find them proved.
    """
    from pe_symbolic import theorems

    dims = (64,) if quick else (64, 512, 4096)
    print(f"\n## Proofs: wall time per theorem (generic form, then d = {', '.join(map(str, dims))}; "
          "d > 64 for the theorems proved for every even d only)")
    print(f"{'id':>36} {'scope':>13} {'generic':>9} " + " ".join(f"{'d=' + str(d):>9}" for d in dims))
    for th in theorems.all():  # registration order: lemmas first, so citing them is a cache hit
        cells = []
        for d in (None, *dims):
            if d is not None and (not th.concrete or (d > 64 and th.scope != "every even d")):
                cells.append(f"{'-':>9}")
                continue
            t0 = time.perf_counter()
            verdict = th.prove(d).verdict
            dt = time.perf_counter() - t0
            cells.append(f"{dt:8.2f}s" if verdict == th.expect else f"{verdict:>9}")
        print(f"{th.id:>36} {th.scope:>13} " + " ".join(cells))


def bench_make_prove(quick: bool) -> None:
    """``make prove`` (``pe-derive all``) cold and warm, wall and CPU time
    (:mod:`benchmarks.prove`; ``python -m benchmarks.prove --baseline SRC`` compares with an
    older tree)."""
    from . import prove

    print()
    prove.main(["--repeat", "1" if quick else "3"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    ap.add_argument("--only", choices=("tables", "rope", "cold", "memory", "accuracy", "proofs", "prove",
                                       "torch", "decode", "jax", "firstcall"),
                    action="append", help="run this section (repeatable: --only torch --only jax)")
    args = ap.parse_args(argv)
    print(f"# pe_symbolic benchmarks ({'quick' if args.quick else 'full'})")
    print(machine_header())
    t0 = time.perf_counter()
    sections = {
        "tables": bench_tables,
        "rope": bench_rope,
        "cold": bench_cold_start,
        "memory": bench_memory,
        "accuracy": bench_accuracy,
        "proofs": bench_proofs,
        "prove": bench_make_prove,
        "torch": frameworks.bench_torch,
        "decode": frameworks.bench_decode,
        "jax": frameworks.bench_jax,
        "firstcall": frameworks.bench_first_call,
    }
    for name, fn in sections.items():
        if not args.only or name in args.only:
            fn(args.quick)
    print(f"\n(total {time.perf_counter() - t0:.1f} s)")
    return 0
