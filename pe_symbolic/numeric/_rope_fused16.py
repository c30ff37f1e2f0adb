"""RoPE of float16 / bfloat16 ``x`` as one compiled loop (the optional ``fast`` extra: numba).

Imported only by :mod:`pe_symbolic.numeric._rope_kernels`, which falls back to the NumPy
route (``x`` converted to float32, rotated there, rounded once back) when this module cannot
be imported. The kernels compute exactly what that route computes, element for element:

* each 16-bit value is widened to float32 exactly, by bit manipulation (bfloat16: the bits
  shifted left by 16; float16: exponent rebiased, subnormals scaled by ``2**-24``, inf and
  NaN payloads kept), as ``astype(np.float32)`` does;
* the rotation in float32 with the float32 tables, the same products and sums in the same
  order as the float32 kernels: split layout ``out_a = fl(fl(x_a c) + fl(x_b (-s)))`` and
  ``out_b = fl(fl(x_b c) + fl(x_a s))`` (:mod:`._rope_fused`); interleaved layout NumPy's
  complex multiply, which on CPUs with FMA computes ``fma(x_a, c, -fl(x_b s))`` and
  ``fma(x_a, s, fl(x_b c))`` and without it rounds each product (``fma`` chooses; the caller
  probes NumPy once to know which);
* one rounding back to the 16-bit dtype, as ``astype`` does: round to nearest even;
  bfloat16 as ml_dtypes (a NaN becomes ``0x7fc0`` with its sign), float16 as NumPy's
  ``npy_floatbits_to_halfbits`` (a NaN keeps the top 10 bits of its payload).

No ``fastmath`` (no reassociation, no contraction into fused multiply-adds other than the
explicit ``fma``) and no ``parallel``. Where two NaNs meet, the kernels pick the one NumPy's
loops return (LLVM may swap the operands of an addition: ``_add``; the interleaved table
holds ``-sin`` so that no negation flips a NaN's sign). On a CPU with F16C (numba compiling
for the host) float16 goes through vcvtph2ps / vcvtps2ph, whose bits are the integer route's
for every value the kernels convert (not for signalling NaNs, which arithmetic never
returns). Compiled on first use and cached on disk.

**Fast loops.** A row of ``x`` whose values are all finite, with a table that is all finite,
cannot meet a NaN operand: every product is finite or (a table past 1: an attention factor)
overflows to inf, so the only NaN a sum can make is ``inf - inf``, arithmetic's default NaN,
the same bits whichever operand comes first and the same as the NumPy route's (an FMA of
finite factors never makes one). Such rows take a loop without the NaN selects (``_add``,
the FMA layout's ``x_a != x_a``) and, for bfloat16, without the rounding's NaN case:
``(u + 0x7fff + ((u >> 16) & 1)) >> 16`` is ml_dtypes' bits for every finite value, for inf
and overflow (the carry) and for the default NaN (no payload below the quiet bit). The
check: once per call the table (``max(bits & 0x7fffffff) < 0x7f800000``), and each row of
``x`` before the row is written (``max(bits & 0x7fff)`` below ``0x7f80`` / ``0x7c00``, a
16-lane reduction), so that in place the row is read whole before it is overwritten; a row
that fails (or a call whose table does) takes the exact loop. (Infs alone would be safe
too; the check is on finiteness.) Where it pays (instructions a vector iteration of 8
pairs, loop control included; llvm-mca -mcpu=znver3 cycles): bfloat16 split (47 -> 31,
13.4 -> 8.8) and interleaved (FMA: 45 -> 24, 10.9 -> 5.7; without: 42 -> 25), float16
interleaved (FMA: 36 -> 26, 9.1 -> 6.2; without: 29 -> 27). Not float16 split: with F16C
its loop loses only the sum's select (19 -> 15 instructions, 5.1 cycles both) and the
check cost more (the kernel 3.48 -> 4.12 ms); it keeps the exact loop.

Measured on the 2-CPU AMD EPYC VM (Zen 3: AVX2, FMA, F16C; shared, so variants interleaved
in rounds), x of (4, 8, 4096, 128), ``out=``; before -> after, and the ratio to
``np.copyto(out, x)`` in the same run. The kernel alone (medians of 21): bfloat16 split
5.96 -> 5.39 ms (1.49x -> 1.35x), interleaved 6.37 -> 4.91 ms (1.59x -> 1.23x); float16
split 3.67 -> 3.62 ms (0.89x -> 0.88x), interleaved 5.06 -> 4.60 ms (1.23x -> 1.12x).
``apply_rope`` (medians of 15, two runs): bfloat16 split 1.75-1.84x -> 1.64-1.66x,
interleaved 1.79-1.88x -> 1.49-1.55x; float16 split 1.24-1.26x -> 1.18x, interleaved
1.49-1.52x -> 1.40-1.43x. With x in L2 (no memory bound), ns a row of 64 pairs: bfloat16
split 43 -> 36, interleaved 39 -> 29; float16 split 26, interleaved 39 -> 34. Dropped:
hand-written vector IR for the bfloat16 fast loops (each word of x two values, widened by a
shift and a mask, the table deinterleaved by shuffles; 16 pairs in 55 instructions) beat
LLVM's vectorisation of the plain loop by 3-5% with x in L2 and 1% from memory: not worth
its code.

The helpers (conversions, ``_add``) are intrinsics, a literal ``f16`` choosing the IR:
numba's ``inline="always"`` copies the callee's IR at each call, which, nested in the row
loops, cost seconds of compile time. Each kernel is compiled for one dtype, FMA model and
aliasing (:func:`kernel_for`), the first time a call needs it: a function taking them as
runtime flags compiled every branch, all eight row loops of the interleaved layout (7.4 s
cold). First use on a machine (numba's on-disk cache empty, a fresh process, numba's import
included): bfloat16 split 2.6 s, interleaved 2.1 s (with the probe of NumPy's complex
multiply, which compiles both FMA models), float16 0.9 s each once bfloat16's are there,
in place 0.7-1.0 s more; from the cache a few ms each.

In place (``out`` is ``x``) the kernels get two arrays on one buffer, LLVM's runtime overlap
check fails and every row took the scalar loop: 6.3-6.5x a copy. ``split16_inplace`` and
``interleaved16_inplace`` take ``out`` alone and copy each row of ``x`` into a row buffer
before the row is rotated into ``out`` (an L1-resident copy of 2h values): the loops
vectorise again, 1.7-1.8x a copy for bfloat16 (x of (4, 8, 4096, 128)), as out of place.
They are compiled the first time a call runs in place.

One difference from NumPy, older than the fast loops: where a table's sine alone is
NaN, the split kernel's NaN has the other sign (LLVM folds ``x_b * -s`` into ``-(x_b s)``);
no phasor source makes such a table.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ._rope_fused import row_views, table_rows

__all__ = ["split16", "interleaved16", "split16_inplace", "interleaved16_inplace", "kernel_for",
           "widen", "narrow", "table_rows"]


def _has_f16c() -> bool:
    """Whether the compiled code may use the F16C conversion (numba targets this host's CPU,
    and it has F16C); else every conversion is done with integer operations."""
    try:
        from llvmlite import binding
        from numba.core import config

        return (config.CPU_NAME is None and config.CPU_FEATURES is None
                and bool(binding.get_host_cpu_features().get("f16c")))
    except Exception:  # pragma: no cover
        return False


#: float32 -> float16 by the F16C instruction (same bits as the integer route, faster).
_F16C = _has_f16c()
_I16 = ir.IntType(16)
_I32 = ir.IntType(32)
_F32 = ir.FloatType()


def _c(v: int) -> ir.Constant:
    return ir.Constant(_I32, v)


def _sel(b, cond, x, y):
    return b.select(cond, x if isinstance(x, ir.Value) else _c(x), y if isinstance(y, ir.Value) else _c(y))


# The conversions as LLVM IR on 32-bit integers (numba's own integer arithmetic widens to
# 64 bits, which halves the vector width), branch-free so that the loops vectorise: builders
# of IR (``b`` an llvmlite IRBuilder), each the body of an intrinsic below.


def _ir_bf16_to_f32(b, u):
    """bfloat16 bits -> float32, exactly: the bits shifted left by 16."""
    return b.bitcast(b.shl(b.zext(u, _I32), _c(16)), _F32)


def _ir_f32_to_bf16(b, f):
    """float32 -> bfloat16 bits as ml_dtypes rounds: to nearest even; a NaN to ``0x7fc0`` with
    its sign (overflow to inf falls out of the carry)."""
    u = b.bitcast(f, _I32)
    hi = b.lshr(u, _c(16))
    r = b.lshr(b.add(b.add(u, _c(0x7FFF)), b.and_(hi, _c(1))), _c(16))
    nan = b.or_(b.and_(hi, _c(0x8000)), _c(0x7FC0))
    return b.trunc(b.select(b.fcmp_unordered("uno", f, f), nan, r), _I16)


def _ir_f32_to_bf16_fin(b, f):
    """float32 -> bfloat16 bits, to nearest even, without the NaN case: ml_dtypes' bits for
    every value but a NaN with payload bits below the top 7 (the only NaN the fast loops can
    meet, arithmetic's default NaN from ``inf - inf``, has none)."""
    u = b.bitcast(f, _I32)
    r = b.lshr(b.add(b.add(u, _c(0x7FFF)), b.and_(b.lshr(u, _c(16)), _c(1))), _c(16))
    return b.trunc(r, _I16)


def _ir_f16_to_f32(b, u):
    """float16 bits -> float32, exactly (as NumPy's ``npy_halfbits_to_floatbits``)."""
    h = b.zext(u, _I32)
    s = b.shl(b.and_(h, _c(0x8000)), _c(16))
    e = b.and_(h, _c(0x7C00))
    m = b.and_(h, _c(0x3FF))
    normal = b.or_(s, b.add(b.shl(b.and_(h, _c(0x7FFF)), _c(13)), _c(0x38000000)))
    special = b.or_(s, b.or_(_c(0x7F800000), b.shl(m, _c(13))))
    if _F16C:  # vcvtph2ps, exact; a signalling NaN kept as it is (the hardware quiets it)
        hw = b.bitcast(b.fpext(b.bitcast(u, ir.HalfType()), _F32), _I32)
        r = _sel(b, b.icmp_unsigned("==", e, _c(0x7C00)), special, hw)
        return b.bitcast(r, _F32)
    sub = b.fmul(b.uitofp(m, _F32), ir.Constant(_F32, 2.0 ** -24))  # exact
    sub = b.or_(b.bitcast(sub, _I32), s)
    r = _sel(b, b.icmp_unsigned("==", e, _c(0x7C00)), special,
             _sel(b, b.icmp_unsigned("==", e, _c(0)), sub, normal))
    return b.bitcast(r, _F32)


def _ir_f32_to_f16(b, f):
    """float32 -> float16 bits as NumPy's ``npy_floatbits_to_halfbits`` (``astype``): to
    nearest even, subnormals included; a NaN keeps the top 10 bits of its payload (at least 1)."""
    u = b.bitcast(f, _I32)
    sgn = b.and_(b.lshr(u, _c(16)), _c(0x8000))
    fe = b.and_(u, _c(0x7F800000))
    fs = b.and_(u, _c(0x007FFFFF))
    # inf, NaN, overflow
    isnan = b.and_(b.icmp_unsigned("==", fe, _c(0x7F800000)), b.icmp_unsigned("!=", fs, _c(0)))
    p = b.lshr(fs, _c(13))
    p = _sel(b, b.icmp_unsigned(">", p, _c(1)), p, 1)
    if _F16C:  # the hardware conversion (vcvtps2ph, to nearest even); NaNs as NumPy has them
        hw = b.zext(b.bitcast(b.fptrunc(f, ir.HalfType()), _I16), _I32)
        nan = b.or_(sgn, b.add(_c(0x7C00), p))
        return b.trunc(b.select(isnan, nan, hw), _I16)
    big = b.add(_c(0x7C00), _sel(b, isnan, p, 0))
    # subnormal or zero
    sh = b.sub(_c(113), b.lshr(fe, _c(23)))
    sh = _sel(b, b.icmp_signed("<", sh, _c(1)), 1, sh)
    sh = _sel(b, b.icmp_signed(">", sh, _c(24)), 24, sh)
    sig_ = b.lshr(b.add(_c(0x00800000), fs), sh)
    up = b.or_(b.icmp_unsigned("!=", b.and_(sig_, _c(0x3FFF)), _c(0x1000)),
               b.icmp_unsigned("!=", b.and_(u, _c(0x7FF)), _c(0)))
    sig_ = b.add(sig_, _sel(b, up, 0x1000, 0))
    small = _sel(b, b.icmp_unsigned(">=", fe, _c(0x33000000)), b.lshr(sig_, _c(13)), 0)
    # normal
    sn = b.add(fs, _sel(b, b.icmp_unsigned("!=", b.and_(fs, _c(0x3FFF)), _c(0x1000)), 0x1000, 0))
    normal = b.add(b.lshr(sn, _c(13)), b.lshr(b.sub(fe, _c(0x38000000)), _c(13)))
    r = _sel(b, b.icmp_unsigned(">=", fe, _c(0x47800000)), big,
             _sel(b, b.icmp_unsigned("<=", fe, _c(0x38000000)), small, normal))
    return b.trunc(b.add(sgn, r), _I16)


def _ir_f16_to_f32_hw(b, u):
    """float16 bits -> float32 by vcvtph2ps: exact, but a signalling NaN comes out quiet,
    which is what the arithmetic it feeds does to it anyway (the same bits after it)."""
    return b.fpext(b.bitcast(u, ir.HalfType()), _F32)


def _ir_f32_to_f16_hw(b, f):
    """float32 -> float16 bits by vcvtps2ph (to nearest even): NumPy's bits for every input
    but a signalling NaN, which the arithmetic before it never produces."""
    return b.bitcast(b.fptrunc(f, ir.HalfType()), _I16)


#: The conversions of float16 inside the kernels, whose inputs to the rounding are results
#: of arithmetic (never signalling NaNs) and whose widened values only feed arithmetic.
_IR_W16 = _ir_f16_to_f32_hw if _F16C else _ir_f16_to_f32
_IR_N16 = _ir_f32_to_f16_hw if _F16C else _ir_f32_to_f16


def _flag(ty) -> bool | None:
    """The value of a bool argument known at compile time (a literal, or an omitted default),
    else ``None``."""
    if isinstance(ty, types.Omitted):
        return bool(ty.value)
    if isinstance(ty, types.BooleanLiteral):
        return bool(ty.literal_value)
    return None


def _by_flag(res, arg, if_true, if_false):
    """An intrinsic ``(v, flag)`` of type ``res(arg)``: ``if_true``'s IR or ``if_false``'s,
    one of them where ``flag`` is known at compile time, both and a select where it is not.
    The kernels' helpers are intrinsics rather than inlined functions: numba's inlining
    copies a callee's IR at each call, which, nested, cost seconds of compile time."""

    def typer(typingctx, v, flag):
        def codegen(context, b, signature, args):
            known = _flag(signature.args[1])
            if known is not None:
                return (if_true if known else if_false)(b, args[0])
            return b.select(args[1], if_true(b, args[0]), if_false(b, args[0]))

        return res(arg, flag), codegen

    return typer


@intrinsic
def _widen(typingctx, u, f16):  # pragma: no cover (compiled)
    """16-bit bits -> float32, exactly (``f16``: float16, else bfloat16)."""
    return _by_flag(types.float32, types.uint16, _ir_f16_to_f32, _ir_bf16_to_f32)(
        typingctx, u, f16)


@intrinsic
def _narrow(typingctx, f, f16):  # pragma: no cover (compiled)
    """float32 -> 16-bit bits as ``astype`` rounds."""
    return _by_flag(types.uint16, types.float32, _ir_f32_to_f16, _ir_f32_to_bf16)(
        typingctx, f, f16)


@intrinsic
def _widen_k(typingctx, u, f16):  # pragma: no cover (compiled)
    """The kernels' widening (float16 by F16C where there is one)."""
    return _by_flag(types.float32, types.uint16, _IR_W16, _ir_bf16_to_f32)(typingctx, u, f16)


@intrinsic
def _narrow_k(typingctx, f, f16):  # pragma: no cover (compiled)
    """The kernels' rounding (float16 by F16C where there is one)."""
    return _by_flag(types.uint16, types.float32, _IR_N16, _ir_f32_to_bf16)(typingctx, f, f16)


@intrinsic
def _narrow_fin(typingctx, f, f16):  # pragma: no cover (compiled)
    """The rounding of the fast loops, whose results are never a NaN from a NaN operand:
    bfloat16 without the NaN select (float16 as :func:`_narrow_k`)."""
    return _by_flag(types.uint16, types.float32, _IR_N16, _ir_f32_to_bf16_fin)(
        typingctx, f, f16)


@intrinsic
def _add(typingctx, p, q):  # pragma: no cover (compiled)
    """``p + q`` with NumPy's NaN: its loop returns ``p`` when both are NaN (x86 keeps the
    first operand's), where LLVM may swap the operands of an addition (it commutes)."""
    sig = types.float32(types.float32, types.float32)

    def codegen(context, b, signature, args):
        p, q = args
        return b.select(b.fcmp_unordered("uno", p, p), p, b.fadd(p, q))

    return sig, codegen


@intrinsic
def _fma(typingctx, a, b, c):  # pragma: no cover (compiled)
    """``fl(a * b + c)`` in float32, rounded once (``llvm.fma``)."""
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.fma", [_F32], ir.FunctionType(_F32, [_F32] * 3))
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def _max_mag16(typingctx, m, u):  # pragma: no cover (compiled)
    """``max(m, u & 0x7fff)`` on uint16 (a reduction LLVM vectorises at 16 lanes)."""
    sig = types.uint16(types.uint16, types.uint16)

    def codegen(context, b, signature, args):
        v = b.and_(args[1], ir.Constant(_I16, 0x7FFF))
        return b.select(b.icmp_unsigned(">", v, args[0]), v, args[0])

    return sig, codegen


@intrinsic
def _max_mag32(typingctx, m, f):  # pragma: no cover (compiled)
    """``max(m, bits(f) & 0x7fffffff)`` on uint32, ``f`` a float32."""
    sig = types.uint32(types.uint32, types.float32)

    def codegen(context, b, signature, args):
        v = b.and_(b.bitcast(args[1], _I32), _c(0x7FFFFFFF))
        return b.select(b.icmp_unsigned(">", v, args[0]), v, args[0])

    return sig, codegen


@njit(cache=True, nogil=True, error_model="numpy")
def narrow_in_kernels(f: np.ndarray, out: np.ndarray, f16: bool) -> None:  # pragma: no cover
    """The rounding the kernels use (for tests: NumPy's bits for all but signalling NaNs)."""
    for k in range(f.shape[0]):
        out[k] = _narrow_k(f[k], f16)


@njit(cache=True, nogil=True, error_model="numpy")
def widen(u: np.ndarray, out: np.ndarray, f16: bool) -> None:  # pragma: no cover (compiled)
    """``out[k] = float32(u[k])`` for 1-D uint16 bits ``u`` (the kernels' conversion, for tests)."""
    for k in range(u.shape[0]):
        out[k] = _widen(u[k], f16)


@njit(cache=True, nogil=True, error_model="numpy")
def narrow(f: np.ndarray, out: np.ndarray, f16: bool) -> None:  # pragma: no cover (compiled)
    """``out[k]`` = the 16-bit bits of ``f[k]`` rounded once (the kernels' rounding, for tests)."""
    for k in range(f.shape[0]):
        out[k] = _narrow(f[k], f16)


@njit(inline="always", error_model="numpy")
def _finite_row(xr, f16):  # pragma: no cover (compiled)
    """Whether the 16-bit values ``xr`` are all finite: ``max(bits & 0x7fff)`` below the
    exponent field of inf (a reduction LLVM vectorises, 16 lanes)."""
    mx = np.uint16(0)
    for k in range(xr.shape[0]):
        mx = _max_mag16(mx, xr[k])
    return mx < (0x7C00 if f16 else 0x7F80)


@njit(inline="always", error_model="numpy")
def _finite_table(cs):  # pragma: no cover (compiled)
    """Whether the float32 table ``cs`` is all finite."""
    mx = np.uint32(0)
    for k in range(cs.shape[0]):
        mx = _max_mag32(mx, cs[k])
    return mx < 0x7F800000


@njit(inline="always", error_model="numpy")
def _halves(xr, orr, tr, h, f16, exact):  # pragma: no cover (compiled)
    """One row of the split layout: pairs ``(j, h + j)``, the table row ``h`` cosines then
    ``h`` sines. ``exact``: NumPy's NaNs for any input; else the fast loop, for finite ``x``
    and table only (see the module notes)."""
    for j in range(h):
        a = _widen_k(xr[j], f16)
        b = _widen_k(xr[h + j], f16)
        cc = tr[j]
        ss = tr[h + j]
        if exact:
            orr[j] = _narrow_k(_add(a * cc, b * -ss), f16)
            orr[h + j] = _narrow_k(_add(b * cc, a * ss), f16)
        else:
            orr[j] = _narrow_fin(a * cc + b * -ss, f16)
            orr[h + j] = _narrow_fin(b * cc + a * ss, f16)


@njit(inline="always", error_model="numpy")
def _split_rows(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h, g, f16,
                fin, row=None):  # pragma: no cover (compiled)
    """The loops of :func:`split16` (``f16`` a literal: a loop for each). ``fin``: the table
    is finite, so that a row of finite ``x`` may take the fast loop (bfloat16 only: for
    float16 it saves less than its check costs)."""
    n = xoff.shape[0]
    for l0 in range(0, n, g):
        for i in range(m):
            for li in range(l0, min(n, l0 + g)):
                xr, orr, tr = row_views(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep,
                                        s0 + i, i, li, h, 2 * h, row)
                if f16:
                    _halves(xr, orr, tr, h, True, True)
                elif fin and _finite_row(xr, False):  # (all of x's row read before any write)
                    _halves(xr, orr, tr, h, False, False)
                else:
                    _halves(xr, orr, tr, h, False, True)


@njit(inline="always", error_model="numpy")
def _pairs(xr, orr, tr, h, f16, fma, exact=True):  # pragma: no cover (compiled)
    """One row of the interleaved layout (``exact`` as for :func:`_halves`)."""
    for j in range(h):
        a = _widen_k(xr[2 * j], f16)
        b = _widen_k(xr[2 * j + 1], f16)
        cc = tr[j]
        ss = tr[h + j]
        q = b * ss
        r = b * cc
        if fma:  # NumPy's SIMD complex multiply with FMA: fmaddsub(a_re, w, a_im * swap(w)),
            # whose NaN is x_a's (quieted), else that of the product x_b s or x_b c as it is:
            # x_b (-s) from the table's -s, not -(x_b s), which would flip a NaN's sign
            re = _fma(a, cc, b * tr[2 * h + j])
            im = _fma(a, ss, r)
            if exact:
                re = a * cc if a != a else re
                im = a * ss if a != a else im
        else:
            re = a * cc - q
            im = _add(a * ss, r) if exact else a * ss + r
        if exact:
            orr[2 * j] = _narrow_k(re, f16)
            orr[2 * j + 1] = _narrow_k(im, f16)
        else:
            orr[2 * j] = _narrow_fin(re, f16)
            orr[2 * j + 1] = _narrow_fin(im, f16)


@njit(inline="always", error_model="numpy")
def _pair_rows(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h, g, f16, fma,
               fin, row=None):  # pragma: no cover (compiled)
    """The loops of :func:`interleaved16` (``f16``, ``fma`` literals: a loop for each);
    ``fin`` as for :func:`_split_rows` (both dtypes take the fast loop here)."""
    n = xoff.shape[0]
    for l0 in range(0, n, g):
        for i in range(m):
            for li in range(l0, min(n, l0 + g)):
                xr, orr, tr = row_views(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep,
                                        s0 + i, i, li, h, 3 * h, row)
                if fin and _finite_row(xr, f16):
                    _pairs(xr, orr, tr, h, f16, fma, False)
                else:
                    _pairs(xr, orr, tr, h, f16, fma, True)


# The kernels, one compiled function per dtype (and FMA model, and in place or not): numba
# compiles a function's every branch, so one function taking the dtype and FMA as flags
# compiled all eight row loops of the interleaved layout on first use (7.4 s cold on the
# EPYC VM); each specialisation below holds the one or two a call needs, and is compiled the
# first time a call needs it (numba caches closures by the values they close over).


def _specialised(layout: str, f16: bool, fma: bool, in_place: bool):
    """The compiled kernel of one layout, dtype, FMA model and aliasing (see the dispatchers
    :func:`split16`, :func:`interleaved16` and their ``_inplace`` variants)."""
    if layout == "split" and not in_place:
        def kernel(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h,
                   g):  # pragma: no cover (compiled)
            _split_rows(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h, g,
                        f16, (not f16) and _finite_table(cs))
    elif layout == "split":
        def kernel(of, ooff, orow, cs, tidx, trows, tstep, s0, m, h,
                   g):  # pragma: no cover (compiled)
            row = np.empty(2 * h, np.uint16)
            _split_rows(of, ooff, orow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h, g,
                        f16, (not f16) and _finite_table(cs), row)
    elif not in_place:
        def kernel(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h,
                   g):  # pragma: no cover (compiled)
            _pair_rows(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h, g,
                       f16, fma, _finite_table(cs))
    else:
        def kernel(of, ooff, orow, cs, tidx, trows, tstep, s0, m, h,
                   g):  # pragma: no cover (compiled)
            row = np.empty(2 * h, np.uint16)
            _pair_rows(of, ooff, orow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h, g,
                       f16, fma, _finite_table(cs), row)
    return njit(cache=True, nogil=True, error_model="numpy")(kernel)


_KERNELS: dict[tuple[str, bool, bool, bool], object] = {}


def kernel_for(layout: str, f16: bool, fma: bool = False, in_place: bool = False):
    """The compiled kernel for one case, made on first request (and compiled on first call)."""
    key = (layout, bool(f16), bool(fma) and layout == "interleaved", bool(in_place))
    if key not in _KERNELS:
        _KERNELS[key] = _specialised(*key)
    return _KERNELS[key]


def split16(xf: np.ndarray, xoff: np.ndarray, xrow: int, of: np.ndarray, ooff: np.ndarray,
            orow: int, cs: np.ndarray, tidx: np.ndarray, trows: int, tstep: int, s0: int,
            m: int, h: int, g: int, f16: bool) -> None:
    """Split-layout RoPE of rows ``s0 .. s0 + m``; the arguments as for
    :func:`._rope_fused.split_rows`, with ``xf``, ``of`` the uint16 bits of ``x`` and ``out``,
    ``cs`` float32, ``f16`` float16 (else bfloat16)."""
    kernel_for("split", f16)(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h, g)


def interleaved16(xf: np.ndarray, xoff: np.ndarray, xrow: int, of: np.ndarray, ooff: np.ndarray,
                  orow: int, cs: np.ndarray, tidx: np.ndarray, trows: int, tstep: int, s0: int,
                  m: int, h: int, g: int, f16: bool, fma: bool) -> None:
    """Interleaved-layout RoPE (pairs ``(2j, 2j+1)``) of rows ``s0 .. s0 + m``; arguments as
    for :func:`split16` but table rows of ``3h``: cosines, sines, negated sines; ``fma``
    whether NumPy's complex multiply fuses (see the module notes)."""
    kernel_for("interleaved", f16, fma)(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep,
                                        s0, m, h, g)


# In place (``out`` is ``x``; see the module notes): one array, each row of x copied into a
# row buffer before it is rotated into out, the same loops and arithmetic, so the same bits.


def split16_inplace(of: np.ndarray, ooff: np.ndarray, orow: int, cs: np.ndarray,
                    tidx: np.ndarray, trows: int, tstep: int, s0: int, m: int, h: int, g: int,
                    f16: bool) -> None:
    """:func:`split16` with ``x`` the array ``out`` itself (its bits ``of``)."""
    kernel_for("split", f16, in_place=True)(of, ooff, orow, cs, tidx, trows, tstep, s0, m, h, g)


def interleaved16_inplace(of: np.ndarray, ooff: np.ndarray, orow: int, cs: np.ndarray,
                          tidx: np.ndarray, trows: int, tstep: int, s0: int, m: int, h: int,
                          g: int, f16: bool, fma: bool) -> None:
    """:func:`interleaved16` with ``x`` the array ``out`` itself (its bits ``of``)."""
    kernel_for("interleaved", f16, fma, in_place=True)(of, ooff, orow, cs, tidx, trows, tstep,
                                                       s0, m, h, g)
