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
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["split16", "interleaved16", "widen", "narrow"]


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
_I32 = ir.IntType(32)
_F32 = ir.FloatType()


def _c(v: int) -> ir.Constant:
    return ir.Constant(_I32, v)


def _sel(b, cond, x, y):
    return b.select(cond, x if isinstance(x, ir.Value) else _c(x), y if isinstance(y, ir.Value) else _c(y))


# The conversions as LLVM IR on 32-bit integers (numba's own integer arithmetic widens to
# 64 bits, which halves the vector width), branch-free so that the loops vectorise.


@intrinsic
def _bf16_to_f32(typingctx, u):  # pragma: no cover (compiled)
    """bfloat16 bits -> float32, exactly: the bits shifted left by 16."""
    sig = types.float32(types.uint16)

    def codegen(context, b, signature, args):
        return b.bitcast(b.shl(b.zext(args[0], _I32), _c(16)), _F32)

    return sig, codegen


@intrinsic
def _f32_to_bf16(typingctx, f):  # pragma: no cover (compiled)
    """float32 -> bfloat16 bits as ml_dtypes rounds: to nearest even; a NaN to ``0x7fc0`` with
    its sign (overflow to inf falls out of the carry)."""
    sig = types.uint16(types.float32)

    def codegen(context, b, signature, args):
        f = args[0]
        u = b.bitcast(f, _I32)
        hi = b.lshr(u, _c(16))
        r = b.lshr(b.add(b.add(u, _c(0x7FFF)), b.and_(hi, _c(1))), _c(16))
        nan = b.or_(b.and_(hi, _c(0x8000)), _c(0x7FC0))
        return b.trunc(b.select(b.fcmp_unordered("uno", f, f), nan, r), ir.IntType(16))

    return sig, codegen


@intrinsic
def _f16_to_f32(typingctx, u):  # pragma: no cover (compiled)
    """float16 bits -> float32, exactly (as NumPy's ``npy_halfbits_to_floatbits``)."""
    sig = types.float32(types.uint16)

    def codegen(context, b, signature, args):
        h = b.zext(args[0], _I32)
        s = b.shl(b.and_(h, _c(0x8000)), _c(16))
        e = b.and_(h, _c(0x7C00))
        m = b.and_(h, _c(0x3FF))
        normal = b.or_(s, b.add(b.shl(b.and_(h, _c(0x7FFF)), _c(13)), _c(0x38000000)))
        special = b.or_(s, b.or_(_c(0x7F800000), b.shl(m, _c(13))))
        if _F16C:  # vcvtph2ps, exact; a signalling NaN kept as it is (the hardware quiets it)
            hw = b.bitcast(b.fpext(b.bitcast(args[0], ir.HalfType()), _F32), _I32)
            r = _sel(b, b.icmp_unsigned("==", e, _c(0x7C00)), special, hw)
            return b.bitcast(r, _F32)
        sub = b.fmul(b.uitofp(m, _F32), ir.Constant(_F32, 2.0 ** -24))  # exact
        sub = b.or_(b.bitcast(sub, _I32), s)
        r = _sel(b, b.icmp_unsigned("==", e, _c(0x7C00)), special,
                 _sel(b, b.icmp_unsigned("==", e, _c(0)), sub, normal))
        return b.bitcast(r, _F32)

    return sig, codegen


@intrinsic
def _f32_to_f16(typingctx, f):  # pragma: no cover (compiled)
    """float32 -> float16 bits as NumPy's ``npy_floatbits_to_halfbits`` (``astype``): to
    nearest even, subnormals included; a NaN keeps the top 10 bits of its payload (at least 1)."""
    sig = types.uint16(types.float32)

    def codegen(context, b, signature, args):
        u = b.bitcast(args[0], _I32)
        sgn = b.and_(b.lshr(u, _c(16)), _c(0x8000))
        fe = b.and_(u, _c(0x7F800000))
        fs = b.and_(u, _c(0x007FFFFF))
        # inf, NaN, overflow
        isnan = b.and_(b.icmp_unsigned("==", fe, _c(0x7F800000)), b.icmp_unsigned("!=", fs, _c(0)))
        p = b.lshr(fs, _c(13))
        p = _sel(b, b.icmp_unsigned(">", p, _c(1)), p, 1)
        if _F16C:  # the hardware conversion (vcvtps2ph, to nearest even); NaNs as NumPy has them
            hw = b.zext(b.bitcast(b.fptrunc(args[0], ir.HalfType()), ir.IntType(16)), _I32)
            nan = b.or_(sgn, b.add(_c(0x7C00), p))
            return b.trunc(b.select(isnan, nan, hw), ir.IntType(16))
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
        return b.trunc(b.add(sgn, r), ir.IntType(16))

    return sig, codegen


@intrinsic
def _f16_to_f32_hw(typingctx, u):  # pragma: no cover (compiled)
    """float16 bits -> float32 by vcvtph2ps: exact, but a signalling NaN comes out quiet,
    which is what the arithmetic it feeds does to it anyway (the same bits after it)."""
    sig = types.float32(types.uint16)

    def codegen(context, b, signature, args):
        return b.fpext(b.bitcast(args[0], ir.HalfType()), _F32)

    return sig, codegen


@intrinsic
def _f32_to_f16_hw(typingctx, f):  # pragma: no cover (compiled)
    """float32 -> float16 bits by vcvtps2ph (to nearest even): NumPy's bits for every input
    but a signalling NaN, which the arithmetic before it never produces."""
    sig = types.uint16(types.float32)

    def codegen(context, b, signature, args):
        return b.bitcast(b.fptrunc(args[0], ir.HalfType()), ir.IntType(16))

    return sig, codegen


#: The conversions of float16 inside the kernels, whose inputs to the rounding are results
#: of arithmetic (never signalling NaNs) and whose widened values only feed arithmetic.
_W16 = _f16_to_f32_hw if _F16C else _f16_to_f32
_N16 = _f32_to_f16_hw if _F16C else _f32_to_f16


@intrinsic
def _fma(typingctx, a, b, c):  # pragma: no cover (compiled)
    """``fl(a * b + c)`` in float32, rounded once (``llvm.fma``)."""
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.fma", [_F32], ir.FunctionType(_F32, [_F32] * 3))
        return builder.call(fn, args)

    return sig, codegen


@njit(inline="always", error_model="numpy")
def _add(p, q):  # pragma: no cover (compiled)
    """``p + q`` with NumPy's NaN: its loop returns ``p`` when both are NaN (x86 keeps the
    first operand's), where LLVM may swap the operands of an addition (it commutes)."""
    r = p + q
    return p if p != p else r


@njit(inline="always", error_model="numpy")
def _widen(u, f16):  # pragma: no cover (compiled)
    return _f16_to_f32(u) if f16 else _bf16_to_f32(u)


@njit(inline="always", error_model="numpy")
def _narrow(f, f16):  # pragma: no cover (compiled)
    return _f32_to_f16(f) if f16 else _f32_to_bf16(f)


@njit(inline="always", error_model="numpy")
def _widen_k(u, f16):  # pragma: no cover (compiled)
    return _W16(u) if f16 else _bf16_to_f32(u)


@njit(inline="always", error_model="numpy")
def _narrow_k(f, f16):  # pragma: no cover (compiled)
    return _N16(f) if f16 else _f32_to_bf16(f)


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


@njit(cache=True, nogil=True, error_model="numpy")
def split16(xf: np.ndarray, xoff: np.ndarray, xrow: int, of: np.ndarray, ooff: np.ndarray,
            orow: int, cs: np.ndarray, tidx: np.ndarray, trows: int, tstep: int, s0: int,
            m: int, h: int, g: int, f16: bool) -> None:  # pragma: no cover (compiled)
    """Split-layout RoPE of rows ``s0 .. s0 + m``; the arguments as for
    :func:`._rope_fused.split_rows`, with ``xf``, ``of`` the uint16 bits of ``x`` and ``out``,
    ``cs`` float32, ``f16`` float16 (else bfloat16)."""
    n = xoff.shape[0]
    if f16:
        for l0 in range(0, n, g):
            for i in range(m):
                for li in range(l0, min(n, l0 + g)):
                    xa = xoff[li] + (s0 + i) * xrow
                    oa = ooff[li] + (s0 + i) * orow
                    tb = (tidx[li] * trows + i * tstep) * 2 * h
                    xr = xf[xa : xa + 2 * h]
                    orr = of[oa : oa + 2 * h]
                    tr = cs[tb : tb + 2 * h]
                    for j in range(h):
                        a = _W16(xr[j])
                        b = _W16(xr[h + j])
                        cc = tr[j]
                        ss = tr[h + j]
                        orr[j] = _N16(_add(a * cc, b * -ss))
                        orr[h + j] = _N16(_add(b * cc, a * ss))
    else:
        for l0 in range(0, n, g):
            for i in range(m):
                for li in range(l0, min(n, l0 + g)):
                    xa = xoff[li] + (s0 + i) * xrow
                    oa = ooff[li] + (s0 + i) * orow
                    tb = (tidx[li] * trows + i * tstep) * 2 * h
                    xr = xf[xa : xa + 2 * h]
                    orr = of[oa : oa + 2 * h]
                    tr = cs[tb : tb + 2 * h]
                    for j in range(h):
                        a = _bf16_to_f32(xr[j])
                        b = _bf16_to_f32(xr[h + j])
                        cc = tr[j]
                        ss = tr[h + j]
                        orr[j] = _f32_to_bf16(_add(a * cc, b * -ss))
                        orr[h + j] = _f32_to_bf16(_add(b * cc, a * ss))


@njit(inline="always", error_model="numpy")
def _pairs(xr, orr, tr, h, f16, fma):  # pragma: no cover (compiled)
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
            re = a * cc if a != a else re
            im = a * ss if a != a else im
        else:
            re = a * cc - q
            im = _add(a * ss, r)
        orr[2 * j] = _narrow_k(re, f16)
        orr[2 * j + 1] = _narrow_k(im, f16)


@njit(cache=True, nogil=True, error_model="numpy")
def interleaved16(xf: np.ndarray, xoff: np.ndarray, xrow: int, of: np.ndarray, ooff: np.ndarray,
                  orow: int, cs: np.ndarray, tidx: np.ndarray, trows: int, tstep: int, s0: int,
                  m: int, h: int, g: int, f16: bool, fma: bool) -> None:  # pragma: no cover
    """Interleaved-layout RoPE (pairs ``(2j, 2j+1)``) of rows ``s0 .. s0 + m``; arguments as
    for :func:`split16` but table rows of ``3h``: cosines, sines, negated sines; ``fma``
    whether NumPy's complex multiply fuses (see the module notes)."""
    n = xoff.shape[0]
    for l0 in range(0, n, g):
        for i in range(m):
            for li in range(l0, min(n, l0 + g)):
                xa = xoff[li] + (s0 + i) * xrow
                oa = ooff[li] + (s0 + i) * orow
                tb = (tidx[li] * trows + i * tstep) * 3 * h
                xr = xf[xa : xa + 2 * h]
                orr = of[oa : oa + 2 * h]
                tr = cs[tb : tb + 3 * h]
                if f16:
                    if fma:
                        _pairs(xr, orr, tr, h, True, True)
                    else:
                        _pairs(xr, orr, tr, h, True, False)
                elif fma:
                    _pairs(xr, orr, tr, h, False, True)
                else:
                    _pairs(xr, orr, tr, h, False, False)
