r"""
Your RoPE, verified: from the matrix of a function to a proof
=============================================================

The RoPE bugs of real ports are rarely wrong mathematics; they are a function that does
something slightly different from the paper: a sign on the wrong half, halves not swapped,
the wrong pairing, positions off by one, a forgotten scaling, angles formed in float16. This
tutorial derives how :func:`pe_symbolic.verify_rope` catches each of them, step by step.

Run it yourself: ``python derivations/verify_rope.py [--plot]``. The exit status is 0 when
every check comes out as expected, 1 otherwise, 2 for a bad option or a missing package.
"""

# %%
# The tutorial helpers come from the package (:mod:`pe_symbolic.tutorial`). From a checkout,
# ``derivations/_common.py`` first puts that checkout's package on the path (or says in one
# line what to install); a downloaded copy of this script uses the installed package.
try:
    import _common  # noqa: F401
except ModuleNotFoundError:
    pass
from pe_symbolic.tutorial import Report, figure, parse_args, show

import numpy as np
import sympy as sp

import pe_symbolic as pe

parse_args(default_d=8)
rep = Report()
D = 8
CONFIG = {"rope_theta": 10000.0, "head_dim": D, "hidden_size": 4 * D, "num_attention_heads": 4,
          "max_position_embeddings": 4096}


def rope(x, position_ids, *, sign=1.0, offset=0, angle_dtype=np.float64):
    """Hugging Face's ``rotate_half`` RoPE; the keywords break it the way real ports do."""
    inv = 10000.0 ** (-np.arange(0, D, 2) / D)
    ang = (position_ids + offset).astype(angle_dtype)[..., None] * inv.astype(angle_dtype)
    emb = np.concatenate([ang, ang], -1).astype(np.float64)
    cos, sin = np.cos(emb)[:, None], np.sin(emb)[:, None]
    x1, x2 = x[..., : D // 2], x[..., D // 2:]
    return (x * cos + sign * np.concatenate([-x2, x1], -1) * sin).astype(x.dtype)


# %%
# A linear function is its matrix
# -------------------------------
# RoPE is linear in :math:`x`, so applying the function to the basis vectors
# :math:`e_0, \dots, e_{d-1}` at a position :math:`m` gives its matrix :math:`M(m)` column by
# column -- whatever framework or tricks it uses inside. At :math:`m = 1`, rounded:
basis = np.eye(D)[None, :, None, :]  # (1, heads = d, seq = 1, d): one basis vector per head
M1 = rope(basis, np.array([[1]]))[0, :, 0, :].T
show("M(1) of the function", sp.Matrix(np.round(M1, 3)))

# %%
# The pattern, proved
# -------------------
# Which slots :math:`M` mixes, and with which signs, is read from it; written with symbolic
# :math:`\cos\theta_p, \sin\theta_p` it must be :math:`R(\theta)` of the split layout, pairs
# :math:`(i, i + d/2)`. The proof kernel decides it (:func:`pe_symbolic.check_identity`): the
# pattern of the correct function is :math:`R(\theta)`; halves not swapped give a diagonal
# matrix, which is refuted.
theta = sp.symbols(f"theta0:{D // 2}", real=True)
R = sp.eye(D).as_mutable()
for p in range(D // 2):
    a, b = p, p + D // 2
    R[a, a], R[a, b], R[b, a], R[b, b] = sp.cos(theta[p]), -sp.sin(theta[p]), sp.sin(theta[p]), sp.cos(theta[p])
R = sp.ImmutableMatrix(R)
not_swapped = sp.diag(*[sp.cos(theta[p % (D // 2)]) + (1 if p >= D // 2 else -1) * sp.sin(theta[p % (D // 2)])
                        for p in range(D)])
print("pattern of the correct function = R(theta):", pe.check_identity(R, R).verdict)
print("halves not swapped = R(theta):", pe.check_identity(not_swapped, R).verdict)

# %%
# Better than its matrix: the function as an expression
# -----------------------------------------------------
# Reading :math:`M(m)` from numbers takes for granted what we want to check (that the function
# is linear, and that an entry within 64 roundoffs of :math:`\cos\theta_p` *is*
# :math:`\cos\theta_p`). Tracing takes nothing for granted: the function runs on NumPy object
# arrays of SymPy symbols, :math:`x_j` and the position :math:`m` (torch code through
# ``torch.fx``), and its output *is* an expression -- here slots 0 and :math:`d/2` of one row:
from pe_symbolic.audit.symbolic_trace import trace_rope


def rope_traceable(x, position_ids, *, square=0.0):
    """The same RoPE, with position_ids used as they come (no cast to float), so that the
    positions can be symbols too; ``square`` adds a term no basis vector shows."""
    inv = 10000.0 ** (-np.arange(0, D, 2) / D)
    ang = position_ids[..., None] * inv
    emb = np.concatenate([ang, ang], -1)
    cos, sin = np.cos(emb)[:, None], np.sin(emb)[:, None]
    x1, x2 = x[..., : D // 2], x[..., D // 2:]
    return x * cos + np.concatenate([-x2, x1], -1) * sin + square * (x * x - x)


traced = trace_rope(rope_traceable, "numpy", (1, 1, 1, D))
show("fn(x, m), slots 0 and d/2, traced", sp.Matrix([traced.out[0, 0, 0, 0], traced.out[0, 0, 0, D // 2]]))

# %%
# The kernel then checks the traced output against :math:`A\,R(\hat\theta(m))\,x` for
# *every* integer :math:`m` (the angles :math:`\hat\theta_p(m)` are read off the trace; their
# frequencies and offsets are checked against the config next). A function that is right on
# basis vectors but not linear -- :math:`x^2 = x` on :math:`e_j` -- reads as :math:`R(\theta)`
# from basis vectors alone. Untraced (``trace=False``) its structure is not proved, and the
# randomized tests catch it (linearity is tested before any matrix is read numerically);
# traced, the kernel refutes it:
nonlinear = lambda x, ids: rope_traceable(x, ids, square=0.5)  # noqa: E731
read = pe.verify_rope(nonlinear, CONFIG, trace=False)
traced_report = pe.verify_rope(nonlinear, CONFIG)
print("read numerically:", read.structure["verdict"], "| traced:", traced_report.structure["verdict"])
print(traced_report.to_text())
rep.check("verify.traced_correct", pe.verify_rope(rope_traceable, CONFIG).structure["method"] == "traced")
rep.check("verify.nonlinear_untraced_is_not_proved", read.structure["verdict"] != "proved")
rep.check("verify.nonlinear_untraced_fails_the_linearity_test", read.verdict == "differs"
          and "not linear in x" in read.to_text())
rep.check("verify.nonlinear_traced_is_refuted", traced_report.structure["verdict"] == "refuted")

# %%
# Frequencies, unwrapped
# ----------------------
# The angle of pair :math:`p`, :math:`\operatorname{atan2}(M_{ba}, M_{aa})`, is
# :math:`m\theta_p` modulo :math:`2\pi`. Read at :math:`m = 0, 1, 2, 4, 8, \dots` and unwrapped
# step by step it gives the function's own :math:`\theta_p` to a precision that grows with
# :math:`m`, and the angle at :math:`m = 0` (which must be 0). A sign flip gives
# :math:`-\theta_p`; an off-by-one position gives an angle at 0.
cases = {
    "correct": rope,
    "sign flip": lambda x, ids: rope(x, ids, sign=-1.0),
    "positions off by one": lambda x, ids: rope(x, ids, offset=1),
    "angles in float16": lambda x, ids: rope(x, ids, angle_dtype=np.float16),
}
reports = {name: pe.verify_rope(fn, CONFIG) for name, fn in cases.items()}
for name, report in reports.items():
    print(f"--- {name}")
    print(report.to_text())

rep.check("verify.correct", reports["correct"].verdict == "verified")
for name in ("sign flip", "positions off by one", "angles in float16"):
    rep.check(f"verify.{name.replace(' ', '_')}", reports[name].verdict != "verified")

# %%
# Precision at long context
# -------------------------
# The right rotation can still be too inaccurate: angles formed in float32 lose digits as the
# position grows. The bound it is held to (tables rounded once, one product and one
# difference in the dtype, angles in float64) is proved by Gappa where Gappa is installed. The figure draws, against the exact rotation (mpmath, 30 digits), the error
# of the correct function in float32 with angles formed in float64, and with angles formed in
# float32 as Hugging Face's Llama does.
fig = figure(figsize=(5.0, 3.2))
if fig is not None:
    import mpmath

    pos = np.unique(np.logspace(0, 17, 60, base=2).astype(np.int64))
    x = np.ones((len(pos), D), dtype=np.float32)
    inv = [mpmath.mpf(10000) ** (-mpmath.mpf(2 * i) / D) for i in range(D // 2)]
    exact = np.array([[float(mpmath.cos(int(m) * inv[0]) - mpmath.sin(int(m) * inv[0]))] for m in pos])
    ax = fig.subplots()
    for label, dtype in (("angles in float64", np.float64), ("angles in float32", np.float32)):
        out = rope(x[None, None], pos[None, :], angle_dtype=dtype)[0, 0, :, :1].astype(np.float64)
        ax.loglog(pos, np.abs(out - exact)[:, 0] + 1e-12, label=label)
    ax.set_xlabel("position m")
    ax.set_ylabel("|error| of slot 0")
    ax.legend()
    fig.tight_layout()

# %%
# Summary
# -------
rep.finish()
