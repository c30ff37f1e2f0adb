"""Normalized dot product PE(128).PE(t) for d = 128, t = 0..256 (Kernes' 'bonus property', seed 000)."""

import matplotlib.pyplot as plt
import numpy as np

from pe_symbolic import numeric

d, t0 = 128, 128
t = np.arange(257)
pe = numeric.sinusoidal_table(t, d)
dots = pe @ pe[t0]
k = t - t0
closed = np.cos(np.outer(k, numeric.frequencies(d))).sum(axis=1)  # sum_i cos(w_i k), proved

fig, ax = plt.subplots(figsize=(8, 3.6))
ax.plot(t, dots / dots.max(), lw=1.6, label=r"$PE(128)\cdot PE(t)\,/\,\max$")
ax.plot(t, closed / (d / 2), "--", lw=1, color="k", label=r"$\frac{2}{d}\sum_i \cos(\omega_i (t - 128))$")
ax.axvline(t0, color="0.6", lw=0.8)
ax.set_xlabel("position t")
ax.set_ylabel("normalized dot product")
ax.set_xlim(0, 256)
ax.legend(loc="lower center", fontsize=9)
ax.set_title("similarity of positions depends on |t - 128| only (d = 128)")
fig.tight_layout()
