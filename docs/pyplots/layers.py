"""The package's floors, read from the import-linter contract in pyproject.toml (so the picture
cannot disagree with the check): each floor may import only the floors below it; the oracle
stands apart and imports no SymPy and nothing of the package."""

import tomllib
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch

import pe_symbolic

ROOT = Path(pe_symbolic.__file__).resolve().parents[1]  # the checkout the docs are built from
contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
layers = next(c["layers"] for c in contracts if c["type"] == "layers" and "containers" not in c)
oracle = next(c for c in contracts if c["type"] == "forbidden" and "pe_symbolic.reference" in c["source_modules"])

WHAT = {
    "cli": "pe-derive, pe-audit: command-line tools",
    "zoo": "RoPE cards for a corpus of configs (pe.cards)",
    "audit": "the precision audit of framework recipes (pe.audit)",
    "numeric": "lower (the one door to lambdify), tables, RoPE, kernels",
    "torch | jax | engines": "RoPE on tensors (through numeric.lower); engines' RoPE as recipes",
    "theorems": "the registry: lemmas, foundation, chapters, family, precision",
    "proof": "the engine: claims, sound rules, checker, certificates",
    "encodings": "SymPy constructions: rot2, PE(t), T(k), R(m)",
    "_validate": "argument checks (imports neither SymPy nor NumPy)",
}

fig, ax = plt.subplots(figsize=(8.4, 0.62 * (len(layers) + 2)))
h, gap = 0.78, 0.22
top = (len(layers) + 1) * (h + gap)


def box(x, y, w, text, sub, color):
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.08",
                                fc=color, ec="0.35", lw=1))
    ax.text(x + 0.15, y + h / 2, text, va="center", ha="left", fontsize=10, family="monospace",
            weight="bold")
    ax.text(x + 2.7, y + h / 2, sub, va="center", ha="left", fontsize=8.5, color="0.2")


box(0, top, 7.4, "derivations/, docs/", "scripts and pages: the public API only", "#f2f2f2")
for q, name in enumerate(layers):
    y = top - (q + 1) * (h + gap)
    short = name.replace("pe_symbolic.", "")
    # a subpackage as a folder (torch/, numeric/), a module as its file (jax.py, _validate.py)
    label = " | ".join(part.strip() + ("/" if (ROOT / "pe_symbolic" / part.strip()).is_dir() else ".py")
                       for part in short.split("|"))
    box(0, y, 7.4, label, WHAT.get(short, ""),
        plt.cm.Blues(0.15 + 0.5 * q / max(len(layers) - 1, 1)))
ax.annotate("", (7.75, top - len(layers) * (h + gap) + h / 2), (7.75, top + h / 2),
            arrowprops=dict(arrowstyle="-|>", color="0.3", lw=1.5))
ax.text(7.9, top - len(layers) * (h + gap) / 2 + h / 2, "imports go\ndown only", rotation=90,
        va="center", ha="left", fontsize=9)

yo = top - len(layers) * (h + gap)
ax.add_patch(FancyBboxPatch((8.55, yo), 2.6, len(layers) * (h + gap) - gap,
                            boxstyle="round,pad=0.02,rounding_size=0.08", fc="#fff4e0", ec="0.35", lw=1))
ax.text(9.85, yo + len(layers) * (h + gap) - 0.55, "reference.py", ha="center", fontsize=10,
        family="monospace", weight="bold")
ax.text(9.85, yo + len(layers) * (h + gap) / 2 - 0.2,
        "the mpmath oracle,\nfrom the papers'\nformulas\n\nimports none of:\n"
        + "\n".join(m.removeprefix("pe_symbolic.") for m in oracle["forbidden_modules"]),
        ha="center", va="center", fontsize=8, color="0.2")

ax.set_xlim(-0.1, 11.3)
ax.set_ylim(yo - 0.1, top + h + 0.1)
ax.axis("off")
fig.tight_layout()
