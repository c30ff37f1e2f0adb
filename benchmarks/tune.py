"""Measure what the numeric kernels' block sizes and memory patterns were chosen from:
``python -m benchmarks.tune``.

The kernels' results do not depend on these choices (the tests check it); only their speed
does. Every table below times its rows round-robin (medians of interleaved runs) next to the
floor it is compared with: a copy of x for RoPE, the naive float64 table for the accurate
route. Sections:

* ``passes``: what one NumPy call costs per element when its data sit in L2 (a 256 KiB
  block, repeated) against a copy streaming from memory. RoPE's split layout needs three
  calls per element; their sum against the copy bounds what any NumPy kernel can reach.
* ``split``: three ways to form ``x*[c, c] + swap(x)*[-s, s]`` in blocks, on precomputed
  tables (the kernel alone), over block shapes.
* ``rope``: ``apply_rope(out=)`` itself over the block sizes of
  :mod:`pe_symbolic.numeric._rope_kernels`; with the ``fast`` extra (numba) also the fused
  split kernel over its group of heads and table size.
* ``accurate``: the accurate route (:mod:`pe_symbolic.numeric._accurate`) over its block
  size, the reference route it reproduces, and naive float64.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from pe_symbolic import numeric
from pe_symbolic.numeric import _accurate, _kernels, _rope_kernels

from .run import machine_header, naive_table


def round_robin(fns: dict, rounds: int) -> dict[str, float]:
    """Median time of each function, timing them in turn ``rounds`` times (after a warm-up)."""
    for f in fns.values():
        f()
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def report(title: str, res: dict[str, float], base: str, unit: float = 1.0,
           unit_name: str = "") -> None:
    print(f"\n## {title}")
    for k, v in res.items():
        extra = f" {v / unit * 1e9:8.3f} {unit_name}" if unit_name else ""
        print(f"{k:>44} {v * 1e3:9.3f} ms {v / res[base]:7.3f}{extra}")


def tune_passes(rounds: int) -> None:
    rng = np.random.default_rng(0)
    h = 64
    blk = rng.standard_normal((8, 64, 2 * h), dtype=np.float32)  # 256 KiB, L2-resident
    tab = rng.standard_normal((64, 2 * h), dtype=np.float32)
    o, t = np.empty_like(blk), np.empty_like(blk)
    o4, rev = o.reshape(8, 64, 2, h), blk.reshape(8, 64, 2, h)[..., ::-1, :]
    reps = 200

    def rep(f):
        return lambda: [f() for _ in range(reps)]

    big = rng.standard_normal((4, 8, 4096, 128), dtype=np.float32)
    bo = np.empty_like(big)
    res = round_robin({
        "L2 copy": rep(lambda: np.copyto(o, blk)),
        "L2 multiply (table broadcast over heads)": rep(lambda: np.multiply(blk, tab, out=t)),
        "L2 add": rep(lambda: np.add(o, t, out=o)),
        "L2 copy, halves exchanged": rep(lambda: np.copyto(o4, rev)),
        "L2 multiply, halves exchanged": rep(lambda: np.multiply(rev, o4, out=t.reshape(o4.shape))),
    }, rounds)
    res = {k: v / reps for k, v in res.items()}
    res["memory copy (64 MiB, np.copyto)"] = round_robin(
        {"c": lambda: np.copyto(bo, big)}, rounds)["c"] * blk.size / big.size
    report("passes: one NumPy call over a 256 KiB float32 block (per block; ns per element)",
           res, "memory copy (64 MiB, np.copyto)", blk.size, "ns/el")


def tune_ops(rounds: int) -> None:
    """One NumPy call per element: float64/float32 multiply by size (out=), and one
    arithmetic pass over a large array against a copy of it."""
    rng = np.random.default_rng(2)
    res = {}
    for dt in (np.float64, np.float32):
        for n in (4096, 32768, 262144):
            a = rng.standard_normal(n).astype(dt)
            o = np.empty_like(a)
            reps = max(4, (1 << 22) // n)
            r = round_robin({
                "mul": lambda: [np.multiply(a, a, out=o) for _ in range(reps)],
                "mul scalar": lambda: [np.multiply(a, 1.5, out=o) for _ in range(reps)],
            }, rounds)
            for k, v in r.items():
                res[f"{np.dtype(dt).name} {k} n={n}"] = v / reps / n * 1e9
    big = rng.standard_normal(1 << 24).astype(np.float32)
    bo = np.empty_like(big)
    z = (rng.standard_normal(1 << 16) + 1j).astype(np.complex64)
    bc, oc = big.view(np.complex64).reshape(-1, 1 << 16), bo.view(np.complex64).reshape(-1, 1 << 16)
    r = round_robin({
        "64 MiB copy (np.copyto)": lambda: np.copyto(bo, big),
        "64 MiB x * 1.5 (one arithmetic pass)": lambda: np.multiply(big, 1.5, out=bo),
        "64 MiB complex64 x * table (interleaved RoPE)": lambda: np.multiply(bc, z, out=oc),
    }, rounds)
    for k, v in r.items():
        res[k] = v / big.size * 1e9
    print("\n## ops: ns per element of one NumPy call (out=)")
    for k, v in res.items():
        print(f"{k:>48} {v:8.3f} ns/el")


def tune_split_variants(rounds: int) -> None:
    rng = np.random.default_rng(1)
    A, H, S, D = 4, 8, 1024, 128
    h = D // 2
    x = rng.standard_normal((A, H, S, D), dtype=np.float32)
    out = np.empty_like(x)
    c = rng.standard_normal((S, h)).astype(np.float32)
    s = rng.standard_normal((S, h)).astype(np.float32)
    c2, s2, ssw = (np.concatenate(v, -1) for v in ((c, c), (s, -s), (-s, s)))
    xsw = x.reshape(A, H, S, 2, h)[..., ::-1, :]
    o5 = out.reshape(A, H, S, 2, h)

    def variant(kind, n, hb):
        tmp = np.empty((1, hb, n, D), np.float32)
        t5 = tmp.reshape(1, hb, n, 2, h)

        def f():
            for s0 in range(0, S, n):
                sl = slice(s0, s0 + n)
                cb, sb, wb = c2[sl], s2[sl], ssw[sl]
                for a in range(A):
                    for h0 in range(0, H, hb):
                        g = (slice(a, a + 1), slice(h0, h0 + hb), sl)
                        xb, ob = x[g], out[g]
                        if kind == "add swapped":  # x*[c,c] + swap(x*[s,-s]) (before #14)
                            np.multiply(xb, cb, out=ob)
                            np.multiply(xb, sb, out=tmp)
                            ob5 = o5[g]
                            np.add(ob5, t5[..., ::-1, :], out=ob5)
                        elif kind == "multiply swapped":  # swap(x)*[-s,s], then x*[c,c]
                            np.multiply(xsw[g], wb.reshape(n, 2, h), out=o5[g])
                            np.multiply(xb, cb, out=tmp)
                            np.add(ob, tmp, out=ob)
                        else:  # "copy swapped": the kernel's pattern
                            np.multiply(xb, cb, out=ob)
                            np.copyto(t5, xsw[g])
                            np.multiply(tmp, wb, out=tmp)
                            np.add(ob, tmp, out=ob)
        return f

    fns = {"copy": lambda: np.copyto(out, x)}
    for n, hb in ((64, 8), (128, 8), (256, 4), (256, 8), (512, 4)):
        for kind in ("add swapped", "multiply swapped", "copy swapped"):
            fns[f"{kind} rows={n} heads={hb}"] = variant(kind, n, hb)
    report(f"split: three kernels on precomputed tables, x{x.shape} float32, out=; ratio to "
           "the copy", round_robin(fns, rounds), "copy")


def tune_rope(shape, dtype, rounds: int) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    out = np.empty_like(x)
    pos = np.arange(shape[-2], dtype=np.float64)
    names = ("ROWS_BYTES", "BLOCK_BYTES", "INTERLEAVED_TABLE_BYTES", "INTERLEAVED_BLOCK_BYTES",
             "FUSED_TABLE_BYTES", "FUSED_GROUP")
    defaults = {k: getattr(_rope_kernels, k) for k in names}
    defaults["FUSED"] = False  # the NumPy split kernel unless a row asks for the fused one

    def rope(layout, **cfg):
        def f():
            for k, v in {**defaults, **cfg}.items():
                setattr(_rope_kernels, k, v)
            numeric.apply_rope(x, pos, layout=layout, out=out)
        return f

    fns = {"copy (np.copyto)": lambda: np.copyto(out, x)}
    for rows in (65536, 131072, 262144):
        for block in (262144, 524288, 1048576):
            fns[f"split rows={rows >> 10}K block={block >> 10}K"] = rope(
                "split", ROWS_BYTES=rows, BLOCK_BYTES=block)
    for table in (262144, 1048576, 4194304):
        fns[f"interleaved table={table >> 10}K"] = rope("interleaved",
                                                       INTERLEAVED_TABLE_BYTES=table)
    if _rope_kernels.split_route() == "numba":  # the fast extra: the fused kernel's knobs
        for group in (1, 2, 4):
            for table in (1048576, 2097152, 4194304):
                fns[f"split fused group={group} table={table >> 10}K"] = rope(
                    "split", FUSED=True, FUSED_GROUP=group, FUSED_TABLE_BYTES=table)
    res = round_robin(fns, rounds)
    for k, v in defaults.items():
        setattr(_rope_kernels, k, v)
    _rope_kernels.FUSED = None
    report(f"rope: apply_rope(out=) on x{shape} {np.dtype(dtype).name}; ratio to the copy",
           res, "copy (np.copyto)")


def _libm_sincos(x, y, o_sin, t1, o_cos, t3, t4):
    """``(sin, cos)(x + y)``: np.sin, np.cos of ``x`` and a first-order correction for ``y``
    (the signature of ``_accurate._kernel_sincos``)."""
    s = np.sin(x, out=o_sin)
    c = np.cos(x, out=o_cos)
    np.multiply(c, y, out=t1)
    np.multiply(s, y, out=t3)
    s += t1
    c -= t3
    return s, c


def tune_accurate(T: int, d: int, rounds: int) -> None:
    t = np.arange(T, dtype=np.float64)
    numeric.sinusoidal_table(t[:8], d)
    w_hi, w_lo = numeric._core._omega_dd(d, 10000.0, "vaswani")
    out = np.empty((T, d))
    fns = {"naive float64": lambda: naive_table(t, d, np.float64),
           "reference route (_kernels.sincos_dd)": lambda: _kernels.sincos_dd(t, w_hi, w_lo)}
    default = _accurate.CHUNK

    def acc(chunk):
        def f():
            _accurate.CHUNK = chunk
            numeric.sinusoidal_table(t, d, accurate=True, out=out)
        return f

    for chunk in (8192, 16384, 32768, 65536):
        fns[f"sinusoidal_table accurate, block={chunk >> 10}K"] = acc(chunk)

    def libm():
        # the library's sin/cos of the reduced angle's head plus a first-order correction for
        # its tail, in place of the fdlibm polynomials (not bitwise the reference; its
        # accuracy is the library's): is a libm-based route faster on this machine?
        kernel = _accurate._kernel_sincos
        _accurate.CHUNK, _accurate._kernel_sincos = default, _libm_sincos
        try:
            numeric.sinusoidal_table(t, d, accurate=True, out=out)
        finally:
            _accurate._kernel_sincos = kernel

    fns["reduction + np.sin/np.cos of the reduced angle"] = libm
    res = round_robin(fns, rounds)
    _accurate.CHUNK = default
    report(f"accurate: sinusoidal_table(arange({T}), {d}, accurate=True, out=); ratio to "
           "naive float64", res, "naive float64")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.tune",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", choices=("ops", "passes", "split", "rope", "accurate"))
    args = ap.parse_args(argv)
    print(machine_header())
    r = args.rounds
    if args.only in (None, "ops"):
        tune_ops(r)
    if args.only in (None, "passes"):
        tune_passes(r)
    if args.only in (None, "split"):
        tune_split_variants(r)
    if args.only in (None, "rope"):
        for dt in (np.float32, np.float64):
            tune_rope((4, 8, 2048, 128), dt, r)
    if args.only in (None, "accurate"):
        tune_accurate(2048, 512, r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
