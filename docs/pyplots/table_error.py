"""Error of float32 and float64 tables against the mpmath oracle as the position grows."""

import matplotlib.pyplot as plt
import numpy as np

from pe_symbolic import numeric, reference

d = 16
rng = np.random.default_rng(20260000)  # seeded: the same positions at every build
t = np.unique(np.round(10 ** rng.uniform(0, np.log10(2.0**24), 60)))
exact = reference.to_float(reference.sinusoidal_table(t, d, dps=30))
w64 = numeric.frequencies(d)
w32 = w64.astype(np.float32)


def naive(tt, w, dtype):
    ang = tt.astype(dtype)[:, None] * w.astype(dtype)[None, :]
    out = np.empty((tt.size, d), dtype)
    out[:, 0::2], out[:, 1::2] = np.sin(ang), np.cos(ang)
    return out


def err(table):
    return np.abs(table.astype(np.float64) - exact).max(axis=1)


curves = [
    ("naive float32: np.sin(float32(t) * w)", err(naive(t, w32, np.float32)), "C3", "o"),
    ("pe_symbolic float32", err(numeric.sinusoidal_table(t, d, dtype=np.float32)), "C1", "s"),
    ("naive float64: np.sin(t * w)", err(naive(t, w64, np.float64)), "C0", "^"),
    ("pe_symbolic float64", err(numeric.sinusoidal_table(t, d)), "C2", "D"),
]
FLOOR = 1e-19  # exact entries (error 0) are drawn on this line
fig, ax = plt.subplots(figsize=(8, 4.2))
for name, e, color, marker in curves:
    ax.loglog(t, np.maximum(e, FLOOR), marker, ms=3.5, color=color, label=name, ls="none")
ax.text(1.2, FLOOR * 2.5, "error 0 (row exact)", color="0.4", fontsize=8)
for eps, name in ((np.finfo(np.float32).eps / 2, "float32 u"), (np.finfo(np.float64).eps / 2, "float64 u")):
    ax.axhline(eps, color="0.6", lw=0.8, ls=":")
    ax.text(1.2, eps * 1.6, name, color="0.4", fontsize=8)
ax.set_xlabel("position t")
ax.set_ylabel("max |table - oracle| over the row")
ax.set_title(f"absolute error against mpmath at 30 digits (d = {d})")
ax.legend(fontsize=8, loc="upper left")
fig.tight_layout()
