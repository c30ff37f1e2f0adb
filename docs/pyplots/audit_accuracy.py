"""pe-audit of Llama-3.1-8B in bfloat16: error against position per recipe, bound dashed."""

import matplotlib.pyplot as plt

import pe_symbolic as pe

RECIPES = ["hf-autocast", "llama.cpp", "mlx", "hf", "torchtune", "pe_symbolic"]
report = pe.audit("llama-3.1-8b", recipe=RECIPES, dtype="bfloat16", context=2**18)

fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
FLOOR = 1e-9  # pe_symbolic's angles are double-doubles: error 0, drawn on this line
for ax, metric, unit in ((axes[0], "angle", " (rad)"), (axes[1], "output", "")):
    for r in report.results:
        xs = [b.stop for b in r.bands if metric in b.measured]
        ys = [max(b.measured[metric], FLOOR) for b in r.bands if metric in b.measured]
        (line,) = ax.loglog(xs, ys, marker="o", ms=3, label=r.recipe.name)
        ax.loglog(xs, [max(b.bound[metric], FLOOR) for b in r.bands if metric in b.measured],
                  ls="--", lw=0.8, color=line.get_color())
    ax.set_xlabel("position (end of band)")
    ax.set_ylabel(f"max {metric} error{unit}")
    ax.grid(True, which="both", alpha=0.3)
axes[0].text(1100, FLOOR * 2.5, "pe_symbolic: 0 (double-double angles, bound 1e-25)", fontsize=8, color="0.3")
axes[0].set_title("angle fed to cos/sin (dashed: proved bound)")
axes[1].set_title("rotated unit pair, bfloat16 (dashed: derived bound)")
axes[0].legend(fontsize=7)
fig.tight_layout()
