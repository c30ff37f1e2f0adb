"""One frequency pair (sin w t, cos w t) traces a closed curve: the unit circle (Kernes, guess 4)."""

import matplotlib.pyplot as plt
import numpy as np

from pe_symbolic import numeric

d, n = 128, 200
t = np.arange(n)
pe = numeric.sinusoidal_table(t, d)  # interleaved: pair i in columns 2i, 2i + 1
w = numeric.frequencies(d)

fig, axes = plt.subplots(1, 3, figsize=(9, 3.3))
for ax, i in zip(axes, (4, 16, 24)):
    s, c = pe[:, 2 * i], pe[:, 2 * i + 1]
    ax.plot(np.sin(np.linspace(0, 2 * np.pi, 400)), np.cos(np.linspace(0, 2 * np.pi, 400)),
            color="0.85", lw=1)
    sc = ax.scatter(s, c, c=t, cmap="viridis", s=9, zorder=3)
    ax.set_aspect("equal")
    ax.set_xlim(-1.15, 1.15)
    ax.set_ylim(-1.15, 1.15)
    ax.set_title(f"pair i = {i}, $\\omega_i$ = {w[i]:.3g}", fontsize=10)
    ax.set_xlabel(r"$\sin(\omega_i t)$")
axes[0].set_ylabel(r"$\cos(\omega_i t)$")
fig.colorbar(sc, ax=list(axes), fraction=0.02, pad=0.02, label="position t")
fig.suptitle(f"positions 0..{n - 1} on the circle: T(k) turns each pair by $\\omega_i k$", fontsize=11)
