"""Denk's derivation, Kazemnejad's four criteria and tensor2tensor's timing signal (seed 002).

Run ``python derivations/denk_kazemnejad.py [--d N] [--positions N]``. Exit status 1 if a
claim is not proved (or the uniqueness certificate does not hold).
"""

from __future__ import annotations

import math
import sys

import numpy as np
import sympy as sp

from _common import Report, even_d, heading, say, show
from pe_symbolic import numeric
from pe_symbolic.encodings import sinusoidal
from pe_symbolic.theorems.chapters import certificates, denk
from pe_symbolic.theorems.chapters.certificates import Certificate
from pe_symbolic.encodings.symbols import k, t


def _t2t_numpy(length: int, channels: int, min_timescale: float = 1.0, max_timescale: float = 1.0e4,
               start_index: int = 0) -> np.ndarray:
    """tensor2tensor's get_timing_signal_1d, line by line, in NumPy (without the batch axis)."""
    position = np.arange(length, dtype=np.float64) + start_index
    num_timescales = channels // 2
    log_timescale_increment = math.log(max_timescale / min_timescale) / max(num_timescales - 1, 1)
    inv_timescales = min_timescale * np.exp(np.arange(num_timescales, dtype=np.float64) * -log_timescale_increment)
    scaled_time = position[:, None] * inv_timescales[None, :]
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    return np.pad(signal, [[0, 0], [0, channels % 2]])


def main(argv: list[str] | None = None) -> int:
    d = even_d(argv, __doc__.splitlines()[0])
    rep = Report()

    heading("Denk: why T(k) exists and what it is")
    say("""Denk looks for a block Phi(k) = [[cos rk, sin rk], [-sin rk, cos rk]] with an unknown rate
        r such that Phi(k) (sin lambda t, cos lambda t) = (sin lambda(t+k), cos lambda(t+k)). The
        addition theorems turn the left side into (sin(lambda t + r k), cos(lambda t + r k)), so the
        residual has squared length 4 sin^2((r - lambda) k/2): t has dropped out, and the residual
        vanishes for every offset k exactly when r = lambda. With lambda_m = 10000^(-2m/d), T(k)
        depends on m, d and k only.""")
    show("Phi(k) with rate r", denk.denk_block(k, denk.rate))
    rep.prove("denk.r_equals_lambda")
    say("""The foundation theorem derives the same block without guessing its form: solving
        M p(t) = p(t + k) for an unknown 2x2 M gives exactly one solution, Denk's block.""")
    rep.prove("translation.derive")
    rep.prove("translation.independent", d)

    heading("The wavelengths: a geometric progression, and which end is reached")
    say(f"""Kazemnejad (and Vaswani et al.) say the wavelengths 'form a geometric progression from
        2 pi to 10000 * 2 pi'. The ratio is 10000^(2/d) and the first wavelength is 2 pi, but for
        even d the last pair is i = d/2 - 1, with wavelength 2 pi 10000^((d-2)/d): strictly less
        than 10000 * 2 pi, which is only the limit as d grows. For d = {d} the last wavelength is
        {float(denk.wavelength(d // 2 - 1, d, base=10000)):.6g}, against 10000 * 2 pi =
        {float(20000 * sp.pi):.6g}. tensor2tensor's schedule does reach 10000 * 2 pi.""")
    show(f"wavelengths for d = {d} (b = 10000)",
         sp.Matrix([[denk.wavelength(q, d, base=10000) for q in range(d // 2)]]))
    rep.prove("denk.wavelengths")
    rep.prove("denk.wavelengths", d)

    heading("Kazemnejad's four criteria")
    say("""1. A unique encoding for each time-step. No identity says this for all integers at once,
        so it is checked as a certificate for a stated range: the smallest distance between the
        encodings of any two positions 0 <= s < t < N, in float64 over all pairs and over offsets,
        confirmed with mpmath. It covers that range only; it is not a symbolic proof.""")
    rep.certificate(certificates.unique_encoding(256, d))
    rep.certificate(certificates.unique_encoding(256, 64))
    say("""2. The distance between time-steps is consistent across sentences: |PE(t+k) - PE(t)|^2 =
        sum_i 4 sin^2(omega_i k/2), which has no t in it.""")
    rep.prove("kazemnejad.distance_shift_invariant")
    rep.prove("kazemnejad.distance_shift_invariant", min(d, 8))
    say("""3. Bounded values: each entry's square is one minus the square of its partner, so every
        entry lies in [-1, 1] for every position, however large.""")
    rep.prove("kazemnejad.bounded")
    rep.prove("kazemnejad.bounded", d)
    say("""4. Deterministic: PE(t) is an expression in t (and d, b) alone, with no length, content or
        random symbol in it.""")
    rep.prove("video.length_free", d)
    say("""Kazemnejad adds that the similarity of neighbouring time-steps is symmetric and 'decays
        nicely'. Symmetric, and largest at offset 0: proved. Decaying: only roughly; the
        certificate measures where the strict decrease stops for this d.""")
    rep.prove("kernes.bonus_dot", d)
    rep.certificate(certificates.dot_decay(d, 256, 128), expect_holds=False)
    say("""Kazemnejad's closing remark, that only sin together with cos gives a linear map from
        PE(t) to PE(t+k), is the foundation claim about sine-only encodings:""")
    rep.prove("sine_only.no_translation")

    heading("tensor2tensor's get_timing_signal_1d")
    say("""Transcribed from its code: positions t + start_index, num_timescales = channels // 2,
        inverse timescales min_timescale * exp(-q log(max/min) / max(num_timescales - 1, 1)),
        concat(sin, cos) along channels, one zero column for odd channels. With min_timescale = 1
        and max_timescale = b it is the split (concatenated) layout with frequencies
        b^(-i/(d/2 - 1)). Its exponent i/(d/2 - 1) is d/(d-2) times Vaswani's 2i/d, so it is
        Vaswani's table for the base b^(d/(d-2)), permuted from interleaved to split. (As written,
        min_timescale = m != 1 gives timescales 1/m .. M/m^2, not m .. M.)""")
    show(f"one row, channels = {min(d, 6)}", denk.timing_signal_1d(t, min(d, 6)).T)
    show(f"channels = {min(d, 6) + 1} (odd)", denk.timing_signal_1d(t, min(d, 6) + 1).T)
    show("start_index = 5", denk.timing_signal_1d(t, min(d, 6), start_index=5).T)
    show("Vaswani's interleaved PE(t) for d = 4, base b^2 (compare after the permutation)",
         sinusoidal.encoding(t, 4, base=sp.Symbol("b", positive=True) ** 2).T)
    rep.prove("t2t.relation")
    rep.prove("t2t.relation", d)
    rep.prove("layout.permutation", min(d, 8))
    say("""A numeric cross-check, not a proof: tensor2tensor's code transcribed in NumPy (float64)
        against the package's numeric table with the tensor2tensor schedule and split layout.""")
    diffs = {}
    for start in (0, 7):
        ours = numeric.sinusoidal_table(np.arange(256) + start, d, layout="split", schedule="tensor2tensor")
        diffs[start] = float(np.abs(_t2t_numpy(256, d, start_index=start) - ours).max())
    rep.certificate(Certificate(
        id="t2t.numeric_agreement",
        statement="tensor2tensor's code (NumPy transcription) and pe_symbolic.numeric agree to 1e-12",
        range=f"256 positions from start_index 0 and 7, d={d}, base=10000, float64",
        holds=all(v <= 1e-12 for v in diffs.values()),
        values={f"max |difference|, start_index = {s_}": f"{v:.1e}" for s_, v in diffs.items()},
        method="float64 on both sides; agreement within a few ulp of the values",
    ))
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
