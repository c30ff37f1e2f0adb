"""The audit report: a table for the terminal, JSON for CI, a plot for the eye."""

from __future__ import annotations

import json
import math
import textwrap
from dataclasses import dataclass, field
from typing import Any

from .._display import Panel, Section, ShowsItself, Table
from .measure import METRICS, RecipeAudit

__all__ = ["AuditReport"]

#: The claims whose proofs the angle bound rests on.
BOUND_CLAIMS = ("precision.angle", "precision.running_product")
#: A cos/sin table error from which the table is called meaningless in :meth:`AuditReport.headlines`
#: (values in [-1, 1] off by half their range's quarter: the angle is off by about 30 degrees or more).
MEANINGLESS = 0.5


def _e(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "INF" if x > 0 else "-INF"
    return f"{x:.2e}"


@dataclass(repr=False)
class AuditReport(ShowsItself):
    """What :func:`pe_symbolic.audit` returns: one :class:`~pe_symbolic.audit.measure.RecipeAudit`
    per (recipe, dtype), the tolerance verdict and the proved bound's claim ids.

    Attributes
    ----------
    target : str
        The model config or table audited, in one line.
    context : int
        Positions ``0 .. context-1``.
    results : list of RecipeAudit
    metric : {"angle", "table", "output", "score"}
        What ``tol`` bounds.
    tol : float or None
    seconds : float
        Wall time of the whole audit.
    bound_verdicts : dict
        ``{claim id: verdict}`` of the proved angle bound.
    """

    target: str
    context: int
    results: list[RecipeAudit]
    metric: str = "angle"
    tol: float | None = None
    seconds: float = 0.0
    bound_verdicts: dict[str, str] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """True when no ``tol`` was given, or every result's ``metric`` is within it (or not
        measured: a sinusoidal table has no ``output``) and every measured value of every
        result is finite (an ``inf`` or NaN anywhere, e.g. float16 positions >= 65520, fails
        any tolerance)."""
        if self.tol is None:
            return True
        return all(r.finite and not (r.measured(self.metric) > self.tol) for r in self.results)

    @property
    def finite(self) -> bool:
        """Whether every measured value of every result was finite."""
        return all(r.finite for r in self.results)

    @property
    def exit_code(self) -> int:
        """0 when :attr:`passed`, else 1 (what ``pe-audit`` exits with)."""
        return 0 if self.passed else 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of everything measured."""
        return {
            "target": self.target, "context": self.context, "metric": self.metric, "tol": self.tol,
            "passed": self.passed, "finite": self.finite, "seconds": self.seconds,
            "bound_claims": self.bound_verdicts, "results": [r.to_dict() for r in self.results],
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The report as strict JSON.

        A NaN number means *not measured* (a sinusoidal table has no ``output``) and is
        written as ``null``; an infinite one (a measurement that was not finite, or a bound
        where an overflow leaves none) as the string ``"inf"`` (``"-inf"``), which no
        numeric comparison mistakes for a pass. Where a value was not finite, the result's
        ``"finite"`` is ``false``, its ``"nonfinite"`` says where it first happened (position,
        pair or offset, ``"nan"`` / ``"inf"``, band, why) and, with a tolerance,
        ``"passed"`` is ``false``.
        """
        return json.dumps(_json_safe(self.to_dict()), indent=indent, allow_nan=False)

    def headlines(self) -> list[str]:
        """Where each result stops being usable, one sentence per result that does: tables
        meaningless by a position (the first value not finite, or the worst position of the
        first band whose cos/sin table is off by ``MEANINGLESS`` or more), and the first
        positions that collide in their dtype (two positions, one table row); or one sentence
        saying that no result does any of this within the context.

        >>> import pe_symbolic as pe
        >>> pe.audit("llama-3.1-8b", "hf-autocast", dtype="bfloat16", context=4096).headlines()[0]
        'hf-autocast (bfloat16): tables meaningless in bfloat16 by position 642 (the cos/sin table is off by 2 there; positions held in bfloat16 dominates); positions collide from 257 (256 and 257 are one bfloat16 number)'
        """
        out = []
        for r in self.results:
            causes: list[tuple[int, str]] = []
            nf = r.nonfinite
            if nf:
                firsts = {m: v for m, v in nf.items() if m != "score"} or nf
                m, v = min(firsts.items(), key=lambda kv: kv[1]["position"])
                at = v["position"] + (v.get("offset") or 0 if m == "score" else 0)
                causes.append((at, f"{m} is {'NaN' if v['value'] == 'nan' else 'inf'} from there: {v['why']}"))
            bad = next((bd for bd in r.bands if math.isfinite(bd.measured.get("table", 0.0))
                        and bd.measured.get("table", 0.0) >= MEANINGLESS), None)
            if bad is not None:
                pos = bad.worst.get("table", (bad.start, 0))[0]
                causes.append((pos, f"the cos/sin table is off by {bad.measured['table']:.2g} there; "
                                    f"{bad.dominant or 'the angle'} dominates"))
            rep = r.representability
            collide = ""
            if rep.get("within_context"):
                a, b = rep["first_collision"]
                collide = f"positions collide from {rep['first_inexact']:,} ({a:,} and {b:,} are one {rep['dtype']} number)"
            if not causes and not collide:
                continue
            text = f"{r.recipe.name} ({r.dtype}): "
            if causes:
                at, why = min(causes)
                text += f"tables meaningless in {r.dtype} by position {at:,} ({why})" + ("; " if collide else "")
            out.append(text + collide)
        if not out and self.results:
            worst = max(self.results, key=lambda r: r.measured("table"))
            out.append(f"no table is meaningless within the context: the largest cos/sin table error is "
                       f"{worst.measured('table'):.2e} ({worst.recipe.name}, {worst.dtype}); positions are exact in "
                       "every recipe's dtypes")
        return out

    def to_text(self, width: int | None = None, *, wide: bool = True) -> str:
        """The table: one row per (recipe, dtype), each measurement with its bound beside it.

        Parameters
        ----------
        width : int, optional
            Fit the text to this many columns (``pe-audit`` passes 100, or with ``--wide`` the
            terminal's width, ``COLUMNS`` where set): prose wraps, and a table wider than
            ``width`` is split into several, each repeating the recipe and dtype. ``None``
            (default): one table, as wide as it needs.
        wide : bool, default True
            Every column (each metric's bound, the seconds, the dominant term, the first inexact
            position). ``False``: the short table ``pe-audit`` prints by default (the angle
            with its proved bound, the table, output and score errors, the seconds: 100
            columns or fewer), the dominant term under it, and the ``headlines()``.

        Examples
        --------
        >>> import pe_symbolic as pe
        >>> rep = pe.audit("llama-3.1-8b", "hf", dtype="bfloat16", context=4096)
        >>> max(len(line) for line in rep.to_text(width=80).splitlines()) <= 80
        True
        >>> max(len(line) for line in rep.to_text(width=100, wide=False).splitlines()) <= 100
        True
        """
        intro = [
            f"pe-audit  {self.target}",
            f"context {self.context:,} positions (0 .. {self.context - 1:,}); errors are maxima over the "
            "context; 'bound' is the proved angle bound ("
            + ", ".join(f"{k}: {v}" for k, v in self.bound_verdicts.items())
            + ") and the bounds derived from it",
        ]
        if not wide:
            intro += [f"headline: {h}" for h in self.headlines()]
        # the model's name (a path) is never broken; its description wraps, as the prose does
        title = intro[0]
        cut = title.rfind(" (")
        if width and len(title) > width and cut > len("pe-audit  "):
            title_lines = [title[:cut]] + textwrap.wrap(title[cut + 1:], width, initial_indent="  ",
                                                         subsequent_indent="  ", break_long_words=False)
        else:
            title_lines = [title]
        lines = title_lines + [x for para in intro[1:] for x in (
            textwrap.wrap(para, width, break_long_words=False, break_on_hyphens=False,
                          subsequent_indent="  " if para.startswith("headline") else "") if width else [para])]
        key = [("recipe", 0, "<"), ("dtype", 0, "<")]
        groups: list[list[tuple[str, int, str]]] = []
        if wide:
            groups.append([("backend", 0, "<")])  # short table: said under it when not numpy
        for m in METRICS:
            groups.append([(m, 9, ">"), ("bound", 10, ">")] if wide or m == "angle" else [(m, 9, ">")])
        groups += [[("s", 6, ">")]]
        if wide:
            groups += [[("dominant (angle)", 0, "<")], [("first inexact (inf) pos", 0, "<")]]
        rows = []
        for r in self.results:
            rep = r.representability
            inexact = (f"{rep['first_inexact']:,} ({rep['dtype']})" if rep.get("within_context")
                       else "none in context")
            if rep.get("overflow_within_context"):
                inexact += f"; inf from {rep['first_overflow']:,} ({rep['overflow_dtype']})"
            if not r.within_bounds:
                inexact += "  MEASURED > BOUND"
            cells = {"recipe": r.recipe.name, "dtype": r.dtype, "backend": r.backend, "s": f"{r.seconds:.2f}",
                     "dominant (angle)": r.dominant[:33], "first inexact (inf) pos": inexact}
            for m in METRICS:
                cells[m], cells[f"bound {m}"] = _e(r.measured(m)), _e(r.bound(m))
            rows.append(cells)

        def cell(col: tuple[str, int, str], group: list, row: dict | None) -> str:
            name, w, align = col
            text = name if row is None else row[f"bound {group[0][0]}" if name == "bound" else name]
            w = w or max([len(name)] + [len(x[name]) for x in rows]) + (2 if col in key else 0)
            return f"{text:{align}{w}}"

        def group_text(g: list, row: dict | None) -> str:  # groups are two spaces apart
            return "  " + "".join(cell(c, g, row) for c in g)

        key_w = sum(len(cell(c, [c], None)) for c in key)
        chunks: list[list[list[tuple[str, int, str]]]] = [[]]
        used = key_w
        for g in groups:
            gw = len(group_text(g, None))
            if width and chunks[-1] and used + gw > width:
                chunks.append([])
                used = key_w
            chunks[-1].append(g)
            used += gw
        for n, chunk in enumerate(chunks):
            head = "".join(cell(c, [c], None) for c in key) + "".join(group_text(g, None) for g in chunk)
            lines += ["", head.rstrip(), "-" * len(head.rstrip())]
            for row in rows:
                line = "".join(cell(c, [c], row) for c in key) + "".join(group_text(g, row) for g in chunk)
                lines.append(line.rstrip())
        if not wide:
            for r in self.results:
                on = "" if r.backend == "numpy" else f", {r.backend}"
                why = (f"{r.recipe.name} ({r.dtype}{on}): the angle bound is dominated by {r.dominant}"
                       + ("  MEASURED > BOUND" if not r.within_bounds else ""))
                lines += textwrap.wrap(why, width, initial_indent="  ", subsequent_indent="    ",
                                       break_long_words=False) if width else ["  " + why]
        bad = [r for r in self.results if not r.finite]
        if bad:
            lines += ["", "NON-FINITE values (INF in the table: an inf or NaN was produced, the error is unbounded):"]
            for r in bad:
                for m, v in r.nonfinite.items():
                    at = f"offset {v['offset']}" if m == "score" else f"pair {v['pair']}"
                    lines.append(f"  {r.recipe.name} ({r.dtype}): {m} is {'NaN' if v['value'] == 'nan' else 'inf'} "
                                 f"from position {v['position']:,} ({at}, band {v['band'][0]:,} .. "
                                 f"{v['band'][1] - 1:,}); {v['why']}")
        if self.tol is not None:
            lines += ["", f"tolerance: {self.metric} <= {self.tol:g}: {'PASS' if self.passed else 'FAIL'}"]
            for r in self.results:
                got = r.measured(self.metric)
                if not r.finite and not got > self.tol:
                    lines.append(f"  {r.recipe.name} ({r.dtype}): non-finite values (see above) fail any "
                                 "tolerance" + (f"; smallest fix: {r.fix.label} (verified by re-running the "
                                                "audit)" if r.fix is not None else ""))
                elif got > self.tol:
                    if r.fix is not None:
                        lines.append(f"  {r.recipe.name} ({r.dtype}): {self.metric} {got:.2e} > {self.tol:g}; "
                                     f"smallest fix: {r.fix.label} -> {r.fix.measured:.2e} "
                                     f"(verified by re-running the audit)")
                    else:
                        lines.append(f"  {r.recipe.name} ({r.dtype}): {self.metric} {got:.2e} > {self.tol:g}; "
                                     "no candidate change meets it")
        notes = [f"  {r.recipe.name} ({r.dtype}, {r.backend}): {r.note}" for r in self.results if r.note]
        if notes:
            lines += ["", "notes:"] + notes
        lines += ["", f"audited in {self.seconds:.1f} s"]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def _panel(self) -> Panel:
        """The report at a glance (Jupyter): the verdict badge (the tolerance's PASS / FAIL, else
        whether every measurement is within its proved bound), the headlines, each error beside
        its bound (one row per metric for up to three (recipe, dtype) results, else one row per
        result), the rest folded."""
        if any(not r.finite for r in self.results):
            verdict = "fail: non-finite values"
        elif self.tol is not None:
            verdict = f"{'pass' if self.passed else 'fail'}: {self.metric} <= {self.tol:g}"
        else:
            verdict = "within bounds" if all(r.within_bounds for r in self.results) else "bound exceeded"
        if len(self.results) <= 3:
            # a few (recipe, dtype) rows: one row per metric, measured beside bound per recipe,
            # narrow enough for a notebook's or a page's column
            header = ["metric"]
            for r in self.results:
                on = "" if r.backend == "numpy" else f", {r.backend}"
                header += [f"{r.recipe.name} ({r.dtype}{on})", "bound"]
            rows = [tuple([m] + [c for r in self.results for c in (_e(r.measured(m)), _e(r.bound(m)))])
                    for m in METRICS]
            rows.append(tuple(["seconds"] + [c for r in self.results for c in (f"{r.seconds:.2f}", "")]))
        else:
            header = ["recipe", "dtype", "backend"]
            for m in METRICS:
                header += [m, "bound"]
            header += ["s"]
            rows = []
            for r in self.results:
                row = [r.recipe.name, r.dtype, r.backend]
                for m in METRICS:
                    row += [_e(r.measured(m)), _e(r.bound(m))]
                rows.append((*row, f"{r.seconds:.2f}"))
        claims = ", ".join(f"{k}: {v}" for k, v in self.bound_verdicts.items())
        table = Table(tuple(header), tuple(rows), notes=(f"bounds proved ({claims}) and derived from the angle bound",))
        detail = Table(("recipe", "dtype", "dominant (angle)", "first inexact (inf) pos"), tuple(
            (r.recipe.name, r.dtype, r.dominant,
             f"{r.representability['first_inexact']:,} ({r.representability['dtype']})"
             if r.representability.get("within_context") else "none in context") for r in self.results))
        summary = (f"context {self.context:,} positions (0 .. {self.context - 1:,}); errors are maxima over the "
                   f"context; audited in {self.seconds:.1f} s",) + tuple(self.headlines())
        text = self.to_text()
        return Panel(f"pe-audit  {self.target}", verdict=verdict, summary=summary, tables=(table,),
                     sections=(Section("where the error comes from", detail),
                               Section("the whole report as text", text, columns=True)))

    def plot(self, path: str, metric: str = "angle") -> None:
        """Max error of ``metric`` per band against position, one curve per (recipe, dtype),
        the bound dashed, a dotted vertical line where the values stop being finite (needs
        matplotlib: ``pip install pe_symbolic[plot]``)."""
        try:
            import matplotlib

            matplotlib.use("Agg", force=False)
            import matplotlib.pyplot as plt
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("plotting needs matplotlib: pip install 'pe_symbolic[plot]'") from exc
        fig, ax = plt.subplots(figsize=(8, 4.8))
        for r in self.results:
            # non-finite measurements (and the bound's inf there) are not drawn: a dotted
            # vertical line marks the first position that is not finite
            bands = [b for b in r.bands if metric in b.measured]
            xs = [b.stop if math.isfinite(b.measured[metric]) else math.nan for b in bands]
            ys = [max(b.measured[metric], 1e-18) if math.isfinite(b.measured[metric]) else math.nan for b in bands]
            (line,) = ax.loglog(xs, ys, marker="o", ms=3, label=f"{r.recipe.name} {r.dtype}")
            bs = [max(b.bound.get(metric, math.nan), 1e-18) for b in bands]
            bs = [v if math.isfinite(v) else math.nan for v in bs]
            ax.loglog([b.stop for b in bands], bs, ls="--", lw=0.8, color=line.get_color())
            nf = r.nonfinite.get(metric)
            if nf is not None:
                ax.axvline(max(nf["position"], 1), ls=":", lw=1.0, color=line.get_color(),
                           label=f"{r.recipe.name} {r.dtype}: {nf['value']} from {nf['position']:,}")
        ax.set_xlabel("position (end of band)")
        ax.set_ylabel(f"max {metric} error" + (" (rad)" if metric == "angle" else ""))
        ax.set_title(f"{self.target.split(' (')[0]}: {metric} error (dashed: bound)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)


def _json_safe(x: Any) -> Any:
    """NaN (not measured) -> None, +-inf (not finite) -> "inf" / "-inf", recursively.

    >>> _json_safe({"a": [float("nan"), float("inf"), -float("inf"), 1.5]})
    {'a': [None, 'inf', '-inf', 1.5]}
    """
    if isinstance(x, float):
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    return x
