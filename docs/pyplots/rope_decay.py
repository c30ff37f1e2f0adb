"""RoPE long-term decay: the bound (1/(d/2)) sum_j |S_j| against relative distance (RoFormer 3.4.3)."""

import matplotlib.pyplot as plt
import numpy as np

from pe_symbolic import numeric

d = 128
rel = np.arange(0, 1025)
theta = numeric.frequencies(d)  # theta_i = 10000**(-2i/d)
# S_j = sum_{k<j} exp(i m theta_k) for j = 1..d/2 (partial sums), bound = mean_j |S_j|
S = np.cumsum(np.exp(1j * np.outer(rel, theta)), axis=1)
bound = np.abs(S).mean(axis=1)

fig, ax = plt.subplots(figsize=(8, 3.6))
ax.plot(rel, bound, lw=1.2)
ax.set_xlabel("relative distance m = n - m'")
ax.set_ylabel(r"$\frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|$")
ax.set_xlim(0, rel[-1])
ax.set_ylim(0, None)
ax.set_title(f"upper bound of the RoPE score's magnitude decays with distance (d = {d}, base 10000)")
fig.tight_layout()
