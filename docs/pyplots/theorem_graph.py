"""Which proofs cite which lemmas: the dependency graph of the registered theorems.

Drawn from the proof objects themselves (``Proof.lemmas``): an arrow from a theorem to each
claim its proof cites. Theorems that cite nothing and are cited by nothing are left out.
"""

import matplotlib.pyplot as plt

from pe_symbolic import theorems

edges = []
for th in theorems.all():
    for lemma in th.prove().lemmas:
        edges.append((th.id, lemma))
nodes = sorted({n for e in edges for n in e}, key=theorems.ids().index)


# levels: a lemma sits one level below the lowest theorem that cites it
def level(n, seen=()):
    cited = [b for a, b in edges if a == n]
    return 1 + max((level(b, seen + (n,)) for b in cited if b not in seen), default=-1)


levels = {n: level(n) for n in nodes}
top = max(levels.values())
rows = {lv: [n for n in nodes if levels[n] == lv] for lv in range(top + 1)}
pos = {}
for lv in range(top, -1, -1):  # top row first; then order each row under the theorems citing it
    ns = rows[lv]
    if lv < top:
        def under(n):
            xs = [pos[a][0] for a, b in edges if b == n and a in pos]
            return sum(xs) / len(xs) if xs else 2.0
        ns = sorted(ns, key=under)
    for q, n in enumerate(ns):
        pos[n] = ((q + 0.5) / len(ns), lv)

fig, ax = plt.subplots(figsize=(9.5, 1.6 + 1.25 * top))
for a, b in edges:
    (x0, y0), (x1, y1) = pos[a], pos[b]
    ax.annotate("", xy=(x1, y1 + 0.12), xytext=(x0, y0 - 0.12),
                arrowprops={"arrowstyle": "->", "color": "0.55", "lw": 0.9})
for n, (x, y) in pos.items():
    scope = theorems.get(n).scope
    color = {"lemma": "#e8f0fe", "every even d": "#e6f4ea"}.get(scope, "#fef7e0")
    ax.text(x, y, n, ha="center", va="center", fontsize=8,
            bbox={"boxstyle": "round,pad=0.3", "fc": color, "ec": "0.4", "lw": 0.6})
ax.set_xlim(-0.02, 1.02)
ax.set_ylim(-0.5, top + 0.5)
ax.axis("off")
ax.set_title("Proofs cite lemmas (arrow: cites); green: for every even d, blue: lemma", fontsize=9)
