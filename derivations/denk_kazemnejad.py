r"""
Denk's derivation, Kazemnejad's four criteria and tensor2tensor's timing signal
===============================================================================

Three texts of seed 002: Denk's derivation of why a translation matrix :math:`T(k)` exists,
Kazemnejad's four criteria for a good positional encoding (and his remarks on the
wavelengths and on decay), and the code of tensor2tensor's ``get_timing_signal_1d``. Each
claim is checked: by a proof where it is an identity, by a numeric certificate for a stated
range where it is about numbers.

Run it yourself: ``python derivations/denk_kazemnejad.py [--d N] [--plot]``. The exit status is 0 when
every result is the expected one (claims proved, certificates as expected), 1 otherwise, 2
for a bad option or a missing package.
"""

# %%
# The tutorial helpers come from the package (:mod:`pe_symbolic.tutorial`). From a checkout,
# ``derivations/_common.py`` first puts that checkout's package on the path (or says in one
# line what to install); a downloaded copy of this script uses the installed package.
try:
    import _common  # noqa: F401
except ModuleNotFoundError:
    pass
from pe_symbolic.tutorial import Report, figure, heading, parse_args, say, show

import math

import numpy as np
import sympy as sp

from pe_symbolic import numeric
from pe_symbolic.encodings import sinusoidal
from pe_symbolic.encodings.symbols import k, t
from pe_symbolic.theorems.chapters import certificates, denk
from pe_symbolic.theorems.chapters.certificates import Certificate


def t2t_numpy(length: int, channels: int, min_timescale: float = 1.0, max_timescale: float = 1.0e4,
              start_index: int = 0) -> np.ndarray:
    """tensor2tensor's get_timing_signal_1d, line by line, in NumPy (without the batch axis)."""
    position = np.arange(length, dtype=np.float64) + start_index
    num_timescales = channels // 2
    log_timescale_increment = math.log(max_timescale / min_timescale) / max(num_timescales - 1, 1)
    inv_timescales = min_timescale * np.exp(np.arange(num_timescales, dtype=np.float64) * -log_timescale_increment)
    scaled_time = position[:, None] * inv_timescales[None, :]
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    return np.pad(signal, [[0, 0], [0, channels % 2]])


d = parse_args(default_d=8).d
rep = Report()

# %%
# Denk: why T(k) exists and what it is
# ------------------------------------
# Denk looks for a block
# :math:`\Phi(k) = \begin{pmatrix}\cos rk & \sin rk\\ -\sin rk & \cos rk\end{pmatrix}` with an
# unknown rate :math:`r` such that
# :math:`\Phi(k)\,(\sin\lambda t, \cos\lambda t) = (\sin\lambda(t+k), \cos\lambda(t+k))`. The
# addition theorems turn the left side into :math:`(\sin(\lambda t + rk), \cos(\lambda t + rk))`,
# so the residual has squared length :math:`4\sin^2((r - \lambda)k/2)`: :math:`t` has dropped
# out, and the residual vanishes for every offset :math:`k` exactly when :math:`r = \lambda`
# (:claim:`denk.r_equals_lambda`). With :math:`\lambda_m = 10000^{-2m/d}`, :math:`T(k)` depends
# on :math:`m`, :math:`d` and :math:`k` only.
heading("Denk: why T(k) exists and what it is")
show("Phi(k) with rate r", denk.denk_block(k, denk.rate))
rep.prove("denk.r_equals_lambda")

# %%
# The foundation theorem derives the same block without guessing its form: solving
# :math:`M p(t) = p(t + k)` for an unknown :math:`2\times 2` matrix :math:`M` gives exactly one
# solution, Denk's block (:claim:`translation.derive`, :claim:`translation.independent`).
rep.prove("translation.derive")
rep.prove("translation.independent", d)

# %%
# The wavelengths: a geometric progression, and which end is reached
# ------------------------------------------------------------------
# Kazemnejad (and Vaswani et al.) say the wavelengths "form a geometric progression from
# :math:`2\pi` to :math:`10000 \cdot 2\pi`". The ratio is :math:`10000^{2/d}` and the first
# wavelength is :math:`2\pi`, but for even :math:`d` the last pair is :math:`i = d/2 - 1`, with
# wavelength :math:`2\pi\, 10000^{(d-2)/d}`: strictly less than :math:`10000 \cdot 2\pi`, which
# is only the limit as :math:`d` grows (:claim:`denk.wavelengths`). tensor2tensor's schedule
# does reach :math:`10000 \cdot 2\pi`.
heading("The wavelengths: a geometric progression, and which end is reached")
say(f"""For d = {d} the last wavelength is {float(denk.wavelength(d // 2 - 1, d, base=10000)):.6g},
    against 10000 * 2 pi = {float(20000 * sp.pi):.6g}.""")
show(f"wavelengths for d = {d} (b = 10000)", sp.Matrix([[denk.wavelength(q, d, base=10000) for q in range(d // 2)]]))
rep.prove("denk.wavelengths")
rep.prove("denk.wavelengths", d)

# %%
# The figure draws both schedules for :math:`d = 64`: Vaswani's wavelengths stop one ratio
# short of :math:`10000 \cdot 2\pi`, tensor2tensor's (``num_timescales - 1`` steps) end on it.
fig = figure(figsize=(6.4, 3.2))
if fig is not None:
    ax = fig.subplots()
    pairs = np.arange(32)
    t2t_inv = np.exp(-pairs * math.log(1.0e4) / 31)  # get_timing_signal_1d's inv_timescales, 32 of them
    ax.semilogy(pairs, 2 * np.pi / numeric.frequencies(64), "o", ms=4, label="Vaswani: 2π·10000^(2i/d)")
    ax.semilogy(pairs, 2 * np.pi / t2t_inv, "x", ms=5, label="tensor2tensor: ends at 10000·2π")
    ax.axhline(2e4 * np.pi, color="k", lw=0.8, ls=":", label="10000·2π")
    ax.set_xlabel("pair i (d = 64)")
    ax.set_ylabel("wavelength")
    ax.legend(fontsize=8)
    fig.tight_layout()

# %%
# Kazemnejad's four criteria
# --------------------------
# **1. A unique encoding for each time-step.** No identity says this for all integers at
# once, so it is checked as a certificate for a stated range: the smallest distance between
# the encodings of any two positions :math:`0 \le s < t < N`, in float64 over all pairs and
# over offsets, confirmed with mpmath. It covers that range only; it is not a symbolic proof.
heading("Kazemnejad's four criteria")
rep.certificate(certificates.unique_encoding(256, d))
rep.certificate(certificates.unique_encoding(256, 64))

# %%
# **2. The distance between time-steps is consistent across sentences:**
# :math:`|PE(t+k) - PE(t)|^2 = \sum_i 4\sin^2(\omega_i k/2)`, which has no :math:`t` in it
# (:claim:`kazemnejad.distance_shift_invariant`).
rep.prove("kazemnejad.distance_shift_invariant")
rep.prove("kazemnejad.distance_shift_invariant", min(d, 8))

# %%
# **3. Bounded values:** each entry's square is one minus the square of its partner, so
# every entry lies in :math:`[-1, 1]` for every position, however large
# (:claim:`kazemnejad.bounded`).
rep.prove("kazemnejad.bounded")
rep.prove("kazemnejad.bounded", d)

# %%
# **4. Deterministic:** :math:`PE(t)` is an expression in :math:`t` (and :math:`d`, :math:`b`)
# alone, with no length, content or random symbol in it (:claim:`video.length_free`).
rep.prove("video.length_free", d)

# %%
# Kazemnejad adds that the similarity of neighbouring time-steps is symmetric and "decays
# nicely". Symmetric, and largest at offset 0: proved (:claim:`kernes.bonus_dot`). Decaying:
# only roughly; the certificate measures where the strict decrease stops for this
# :math:`d` -- it is expected to fail the strict reading.
rep.prove("kernes.bonus_dot", d)
rep.certificate(certificates.dot_decay(d, 256, 128), expect_holds=False)

# %%
# Kazemnejad's closing remark, that only sin together with cos gives a linear map from
# :math:`PE(t)` to :math:`PE(t+k)`, is the foundation claim about sine-only encodings
# (:claim:`sine_only.no_translation`).
rep.prove("sine_only.no_translation")

# %%
# tensor2tensor's get_timing_signal_1d
# ------------------------------------
# Transcribed from its code: positions ``t + start_index``, ``num_timescales = channels // 2``,
# inverse timescales ``min_timescale * exp(-q log(max/min) / max(num_timescales - 1, 1))``,
# ``concat(sin, cos)`` along channels, one zero column for odd channels. With
# ``min_timescale = 1`` and ``max_timescale = b`` it is the split (concatenated) layout with
# frequencies :math:`b^{-i/(d/2 - 1)}`. Its exponent :math:`i/(d/2 - 1)` is :math:`d/(d-2)`
# times Vaswani's :math:`2i/d`, so it is Vaswani's table for the base :math:`b^{d/(d-2)}`,
# permuted from interleaved to split (:claim:`t2t.relation`, :claim:`layout.permutation`).
# (As written, ``min_timescale = m != 1`` gives timescales :math:`1/m .. M/m^2`, not
# :math:`m .. M`.)
heading("tensor2tensor's get_timing_signal_1d")
show(f"one row, channels = {min(d, 6)}", denk.timing_signal_1d(t, min(d, 6)).T)
show(f"channels = {min(d, 6) + 1} (odd)", denk.timing_signal_1d(t, min(d, 6) + 1).T)
show("start_index = 5", denk.timing_signal_1d(t, min(d, 6), start_index=5).T)
show("Vaswani's interleaved PE(t) for d = 4, base b^2 (compare after the permutation)",
     sinusoidal.encoding(t, 4, base=sp.Symbol("b", positive=True) ** 2).T)
rep.prove("t2t.relation")
rep.prove("t2t.relation", d)
rep.prove("layout.permutation", min(d, 8))

# %%
# A numeric cross-check, not a proof: tensor2tensor's code transcribed in NumPy (float64)
# against the package's numeric table with the tensor2tensor schedule and split layout.
diffs = {}
for start in (0, 7):
    ours = numeric.sinusoidal_table(np.arange(256) + start, d, layout="split", schedule="tensor2tensor")
    diffs[start] = float(np.abs(t2t_numpy(256, d, start_index=start) - ours).max())
rep.certificate(Certificate(
    id="t2t.numeric_agreement",
    statement="tensor2tensor's code (NumPy transcription) and pe_symbolic.numeric agree to 1e-12",
    range=f"256 positions from start_index 0 and 7, d={d}, base=10000, float64",
    holds=all(v <= 1e-12 for v in diffs.values()),
    values={f"max |difference|, start_index = {s_}": f"{v:.1e}" for s_, v in diffs.items()},
    method="float64 on both sides; agreement within a few ulp of the values",
))

# %%
# Summary
# -------
rep.finish()
