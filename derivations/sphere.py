r"""
"Thinking out loud": the sphere, the printed tables, the exponent, ALiBi
========================================================================

A blog post (seed 004) thinks aloud about the sinusoidal encoding: every position lies on
a sphere, its exponent ``k/n_embed`` is Vaswani's :math:`2i/d`, it prints the tables of a
short sequence, and it mentions ALiBi. This script checks each statement, and every
printed number against the exact value -- one of them is the float32 value, not the exact
one, and the script shows why.

Run it yourself: ``python derivations/sphere.py [--d N] [--seed PATH] [--plot]``. If the seed text is
found (``--seed``, or ``$PE_SEEDS/004_*.txt``, or ``/work/shared/seeds/004_*.txt``) its
printed tables are compared with the transcription in
``pe_symbolic.theorems.chapters.sphere``. The exit status is 0 when every result is the
expected one, 1 otherwise, 2 for a bad option or a missing package.
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

import glob
import os
import re

import numpy as np
import sympy as sp

from pe_symbolic import numeric
from pe_symbolic.encodings import sinusoidal
from pe_symbolic.encodings.symbols import t
from pe_symbolic.theorems.chapters import sphere


def seed_path(given: str | None) -> str | None:
    """The seed text: ``--seed``, else the first ``004_*.txt`` under $PE_SEEDS or /work/shared/seeds."""
    if given:
        return given
    for root in (os.environ.get("PE_SEEDS"), "/work/shared/seeds"):
        if root:
            hits = sorted(glob.glob(os.path.join(root, "004_*.txt")))
            if hits:
                return hits[0]
    return None


def seed_tables(path: str) -> dict[str, list[list[str]]]:
    """The radians and encodings tensors as printed in the seed text."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    out = {}
    for name in ("radians", "encodings"):
        match = re.search(name + r"=tensor\((\[\[.*?\]\])\)", text, flags=re.S)
        if match is None:
            raise ValueError(f"no '{name}=tensor(...)' in {path}")
        out[name] = sphere.parse_printed(match.group(1), sphere.EMBEDDING_DIM)
    return out


args = parse_args(default_d=8, extra=lambda ap: ap.add_argument(
    "--seed", default=None, metavar="PATH", help="path of the seed text 004_*.txt (optional)"))
d = args.d
rep = Report()

# %%
# The post's encoding and the sphere
# ----------------------------------
# The post defines :math:`p_{i,k} = \sin(i / 10000^{k/n})` for even :math:`k` and
# :math:`\cos(i / 10000^{(k-1)/n})` for odd :math:`k`. Each even-odd pair is
# :math:`(\sin, \cos)` of one angle, so its squared length is 1, and :math:`|p_i|^2 = n/2`:
# every position's encoding lies on the sphere of radius :math:`\sqrt{n/2}` about the origin
# (radius 2 for :math:`n = 8`, the printed norms; :claim:`sphere.radius`).
heading("The post's encoding and the sphere")
show("the post's p_t for n = 4", sphere.post_encoding(t, 4).T)
rep.prove("sphere.radius")
rep.prove("sphere.radius", 8)
if d != 8:
    rep.prove("sphere.radius", d)

# %%
# The figure shows the table of 64 positions for :math:`n = 64` (the post's layout: sin in
# the even columns, cos in the odd ones); every row has length :math:`\sqrt{32}`.
fig = figure(figsize=(6.4, 3.4))
if fig is not None:
    ax = fig.subplots()
    table = numeric.sinusoidal_table(np.arange(64), 64)
    image = ax.imshow(table, cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    fig.colorbar(image, ax=ax)
    norms = np.linalg.norm(table, axis=1)
    ax.set_title(f"row lengths from {norms.min():.6f} to {norms.max():.6f} (√32 = {np.sqrt(32):.6f})", fontsize=9)
    ax.set_xlabel("dimension k")
    ax.set_ylabel("position i")
    fig.tight_layout()

# %%
# The exponent k/n_embed is Vaswani's 2i/d
# ----------------------------------------
# With :math:`k = 2i` the post's exponent :math:`k/n_\text{embed}` is :math:`2i/d`; for odd
# :math:`k = 2i+1` it uses :math:`(k-1)/n = 2i/d`; and the code's ``((k >> 1) << 1)/n`` is
# :math:`2\lfloor k/2\rfloor/n`, the same. So the post's table is Vaswani's
# (:claim:`sphere.exponent`).
heading("The exponent k/n_embed is Vaswani's 2i/d")
show("the code's coefficients for n = 8", sphere.post_coefficients(8).T)
rep.prove("sphere.exponent")
rep.prove("sphere.exponent", d)

# %%
# The printed tables (context length 4, embedding dim 8)
# ------------------------------------------------------
# The post prints the radians and the encodings of four positions. First: are the numbers
# kept in the package the ones the post printed? (Only when the seed text is at hand.)
heading("The printed tables (context length 4, embedding dim 8)")
path = seed_path(args.seed)
if path is None:
    say("""The seed text was not found; the comparison below uses the transcription kept in
        pe_symbolic.theorems.chapters.sphere.""")
else:
    seed = seed_tables(path)
    same = (seed["radians"] == sphere.parse_printed(sphere.PRINTED_RADIANS, 8)
            and seed["encodings"] == sphere.parse_printed(sphere.PRINTED_ENCODINGS, 8))
    print(f"seed text: {path}")
    print(f"its printed tensors {'match' if same else 'DO NOT match'} the transcription in "
          "pe_symbolic.theorems.chapters.sphere, number for number.\n")
    rep.check("sphere.seed_transcription", same)

# %%
# Then every printed number against the exact value, and against the value the post's torch
# code computes in float32 (:claim:`sphere.tables`).
_, enc = sphere.exact_tables()
print("exact table (package PE, b = 10000), formatted like torch's output (%.4e):")
pkg = sp.Matrix.vstack(*[sinusoidal.encoding(p, 8, base=10000).T for p in range(4)])
for p in range(4):
    print("   [" + ", ".join(f"{float(sp.N(x, 30)):.4e}" for x in pkg.row(p)) + "]")
print()
bad = sphere.printed_digits_mismatches()
bad32 = sphere.printed_digits_mismatches("float32")
rad32, enc32 = sphere.float32_tables()
exception = ", ".join(f"{n}[{r}, {c}] printed {p}, exact rounds to {v}" for n, r, c, p, v in bad) or "none"
say(f"""Against the exact values, {64 - len(bad)} of the 64 printed numbers are the correctly rounded
    exact value; the exception is {exception}. That entry is sin(0.03) = {sp.N(enc[3, 4], 12)}...
    The post's torch code works in float32: the angle 3 * fl32(0.01) rounds to {rad32[3, 4]}
    = {sp.N(rad32[3, 4], 12)}..., whose sine is {sp.N(enc32[3, 4], 12)}... -> 2.9995e-02. With the
    float32 angles, {64 - len(bad32)} of 64 printed numbers are reproduced exactly. The proof
    below makes each of these statements.""")
rep.prove("sphere.tables", max_chars=120)

# %%
# ALiBi (Press et al.), mentioned in the post
# -------------------------------------------
# ALiBi adds :math:`m (j - i)` to the score of query :math:`i` and key :math:`j`: only the
# offset enters, so shifting both positions changes nothing, and the penalty grows linearly
# with distance (:claim:`alibi.offset_only`). The head slopes are :math:`2^{-8h/n}` for
# :math:`n` heads (a power of two): a geometric sequence from :math:`2^{-8/n}` to 1/256
# (:claim:`alibi.slopes`).
heading("ALiBi (Press et al.), mentioned in the post")
show("slopes for 8 heads", sp.Matrix([sphere.alibi_slopes(8)]))
rep.prove("alibi.offset_only")
rep.prove("alibi.slopes")

# %%
# Summary
# -------
rep.finish()
