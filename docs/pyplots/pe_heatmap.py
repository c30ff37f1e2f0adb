"""The PE matrix as a heat map: rows are positions, columns the d dimensions (Kernes, seed 000)."""

import matplotlib.pyplot as plt
import numpy as np

from pe_symbolic import numeric

d, n = 128, 100
pe = numeric.sinusoidal_table(np.arange(n), d)  # interleaved, sin_cos, Vaswani frequencies

fig, ax = plt.subplots(figsize=(8, 4.2))
im = ax.imshow(pe, cmap="RdBu", vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
ax.set_xlabel("dimension j (pair i = j // 2; sine at even j, cosine at odd j)")
ax.set_ylabel("position t")
ax.set_title(f"PE(t) for t = 0..{n - 1}, d = {d}, base 10000")
fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
fig.tight_layout()
