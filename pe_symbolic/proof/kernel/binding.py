r"""Certificate binding: JSON data in, a claim and its chains out, bound or refused.

A certificate (written by :func:`pe_symbolic.proof.render.certificate`) binds what it proves:
the symbol table (each name once, with its assumptions, every one of them used by the claim,
every fact in the kernel's facts whitelist), the equations, the relational assumptions, the
statement and, for a registered theorem, its id and ``d``. :func:`read` parses it (strict
JSON: a key given twice is an error, never "the last one wins"; a strict schema; every
expression through the whitelist reader :func:`~pe_symbolic.proof.kernel.reader.parse_srepr`)
and refuses (:class:`~pe_symbolic.proof.kernel.reader.CertificateError`) anything that does not
bind; :func:`bind_to_registry` compares a registered theorem's claim with the registry's own,
and a user's statement with the rendering of its own equations. The re-check that follows
(:func:`pe_symbolic.proof.certificates.recheck`) runs the checker and the gate on the claim as
rebuilt here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import sympy as sp
from sympy.core.assumptions import _assume_defined

from .claims import Claim, ClaimError, Equation, Step, render_statement
from .fragment import fact_problem, outside_fragment
from .points import admissible, certify, entries_admissible
from .reader import CertificateError, parse_srepr
from .rules import RULES

__all__ = ["CERTIFICATE_FORMAT", "MAX_BYTES", "MAX_D", "MAX_JSON_DEPTH", "SCHEMA", "Resolver", "bind_to_registry",
           "check_point", "load", "read"]

#: Format tag of the JSON certificates this version writes and reads.
CERTIFICATE_FORMAT = "pe_symbolic.certificate/2"

#: Largest certificate accepted (bytes of JSON).
MAX_BYTES = 16 * 2**20
#: Largest ``d`` a certificate of a registered theorem may name (the claim is rebuilt for it).
MAX_D = 256
#: Deepest nesting of the JSON document.
MAX_JSON_DEPTH = 12

#: The keys each object of a certificate may have (a strict schema: any other is an error).
SCHEMA: dict[str, frozenset[str]] = {
    "certificate": frozenset({"format", "sympy_version", "claim", "verdict", "elapsed_s", "parts", "extra"}),
    "claim": frozenset({"id", "registered", "d", "statement", "source", "symbols", "assumptions", "equations"}),
    "symbol": frozenset({"name", "assumptions"}),
    "equation": frozenset({"label", "lhs", "rhs"}),
    "part": frozenset({"verdict", "note", "counterexample", "point", "entries", "enclosures", "spot_check", "steps"}),
    "step": frozenset({"kind", "rule", "expr", "instance", "why"}),
}


def _keys(obj: Any, kind: str, where: str) -> None:
    if not isinstance(obj, Mapping):
        raise CertificateError(f"{where}: expected an object; got {type(obj).__name__}")
    unknown = sorted(str(k) for k in obj if k not in SCHEMA[kind])
    if unknown:
        raise CertificateError(f"{where}: unknown key {unknown[0]!r:.60} (a {kind} has "
                               f"{', '.join(sorted(SCHEMA[kind]))})")


def _json_depth(obj: Any) -> int:
    depth, frontier = 0, [obj]
    while frontier:
        depth += 1
        if depth > MAX_JSON_DEPTH:
            return depth
        nxt = []
        for x in frontier:
            if isinstance(x, dict):
                nxt.extend(x.values())
            elif isinstance(x, list):
                nxt.extend(x)
        frontier = nxt
    return depth

#: Rebuilds a registered claim: ``resolve(id, d) -> Claim`` (``LookupError`` if unknown).
Resolver = Callable[[str, "int | None"], Claim]


def load(data: Mapping[str, Any] | str | bytes, *, max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """The certificate as a JSON object, after size and syntax checks (nothing else)."""
    if isinstance(data, Mapping):
        return dict(data)
    if isinstance(data, bytes):
        if len(data) > max_bytes:
            raise CertificateError(f"certificate: {len(data)} bytes is larger than the limit of {max_bytes}")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CertificateError(f"certificate: not UTF-8 text ({exc})") from None
    if not isinstance(data, str):
        raise CertificateError(f"certificate: expected JSON text or a mapping; got {type(data).__name__}")
    if len(data) > max_bytes:
        raise CertificateError(f"certificate: {len(data)} characters is larger than the limit of {max_bytes}")
    try:
        obj = json.loads(data, object_pairs_hook=_no_duplicates)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise CertificateError(f"certificate: malformed JSON ({exc})") from None
    except ValueError as exc:  # an integer literal beyond Python's digit limit for conversions
        raise CertificateError(f"certificate: a JSON value that cannot be read ({exc})") from None
    if not isinstance(obj, dict):
        raise CertificateError(f"certificate: the top level must be a JSON object; got {type(obj).__name__}")
    if _json_depth(obj) > MAX_JSON_DEPTH:
        raise CertificateError(f"certificate: nested more than {MAX_JSON_DEPTH} levels deep")
    return obj


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when it gives one key twice (JSON's "the last one wins" would let a
    certificate say two things in one field)."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise CertificateError(f"certificate: the key {k!r:.60} is given twice in one object")
        out[k] = v
    return out


def _get(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, Mapping):
        raise CertificateError(f"{where}: expected an object; got {type(obj).__name__}")
    if key not in obj:
        raise CertificateError(f"{where}.{key}: missing")
    v = obj[key]
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise CertificateError(f"{where}.{key}: expected {names}; got {type(v).__name__} {v!r:.60}")
    return v


def _symbol_table(entries: list[Any]) -> dict[str, sp.Symbol]:
    table: dict[str, sp.Symbol] = {}
    if len(entries) > 10_000:
        raise CertificateError("claim.symbols: more than 10000 symbols")
    for q, e in enumerate(entries):
        where = f"claim.symbols[{q}]"
        _keys(e, "symbol", where)
        name = _get(e, "name", str, where)
        facts = _get(e, "assumptions", dict, where)
        if not 0 < len(name) <= 200:
            raise CertificateError(f"{where}.name: {name!r:.60} must have 1 to 200 characters")
        if name in table:
            raise CertificateError(f"{where}: the name {name!r} is declared twice")
        for k, v in facts.items():
            if k not in _assume_defined:
                raise CertificateError(f"{where}.assumptions: unknown assumption {k!r} for symbol {name!r}")
            if not isinstance(v, bool):
                raise CertificateError(f"{where}.assumptions.{k}: must be true or false; got {v!r:.30}")
        try:
            s = sp.Symbol(name, **facts)
        except Exception as exc:  # InconsistentAssumptions and friends
            raise CertificateError(f"{where}: inconsistent assumptions for {name!r} ({exc})") from None
        if {k: bool(v) for k, v in s.assumptions0.items()} != facts:
            raise CertificateError(
                f"{where}: the assumptions of {name!r} are not closed under SymPy's rules "
                f"(declared {sorted(k for k, v in facts.items() if v)}, implied {sorted(k for k, v in s.assumptions0.items() if v)})"
            )
        why = fact_problem(s)
        if why:
            raise CertificateError(f"{where}: {why}: outside the checked fragment's facts")
        table[name] = s
    return table


def _bind(expr: Any, table: Mapping[str, sp.Symbol], field: str, used: set[str]) -> Any:
    for s in expr.atoms(sp.Symbol):
        declared = table.get(s.name)
        if declared is None:
            raise CertificateError(f"{field}: symbol {s.name!r} is not in the certificate's symbol table")
        if declared != s:
            raise CertificateError(
                f"{field}: symbol {s.name!r} has assumptions {_facts(s)} but the symbol table declares {_facts(declared)}"
            )
        used.add(s.name)
    return expr


def _facts(s: sp.Symbol) -> str:
    return "{" + ", ".join(k for k, v in sorted(s.assumptions0.items()) if v) + "}"


def read(data: Mapping[str, Any] | str | bytes) -> tuple[Claim, list[list[Step]], dict[str, Any]]:
    """Parse and bind a certificate: ``(claim, chains, meta)``; nothing is checked yet.

    ``meta`` holds ``registered``, ``d``, the recorded verdicts and refuting points.
    Raises :class:`~pe_symbolic.proof.CertificateError` for anything malformed or unbound.
    """
    obj = load(data)
    _keys(obj, "certificate", "certificate")
    fmt = obj.get("format")
    if fmt != CERTIFICATE_FORMAT:
        raise CertificateError(f"format: {fmt!r:.60} is not supported; this version reads {CERTIFICATE_FORMAT!r}")
    c = _get(obj, "claim", dict, "certificate")
    _keys(c, "claim", "claim")
    cid = _get(c, "id", str, "claim")
    registered = _get(c, "registered", bool, "claim")
    d = c.get("d")
    if d is not None and (isinstance(d, bool) or not isinstance(d, int)):
        raise CertificateError(f"claim.d: expected an integer or null; got {d!r:.30}")
    if d is not None and not 2 <= d <= MAX_D:
        raise CertificateError(f"claim.d: {d} is outside what a certificate may name (2 to {MAX_D})")
    if len(cid) > 200:
        raise CertificateError("claim.id: longer than 200 characters")
    statement = _get(c, "statement", str, "claim")
    source = _get(c, "source", str, "claim")
    table = _symbol_table(_get(c, "symbols", list, "claim"))
    used: set[str] = set()
    assumptions = tuple(
        _bind(parse_srepr(a, field=f"claim.assumptions[{q}]"), table, f"claim.assumptions[{q}]", used)
        for q, a in enumerate(_get(c, "assumptions", list, "claim"))
    )
    eq_data = _get(c, "equations", list, "claim")
    if not eq_data:
        raise CertificateError("claim.equations: empty")
    equations = []
    if len(eq_data) > 10_000:
        raise CertificateError("claim.equations: more than 10000 equations")
    for q, e in enumerate(eq_data):
        where = f"claim.equations[{q}]"
        _keys(e, "equation", where)
        label = _get(e, "label", str, where)
        lhs = _bind(parse_srepr(_get(e, "lhs", str, where), field=f"{where}.lhs"), table, f"{where}.lhs", used)
        rhs = _bind(parse_srepr(_get(e, "rhs", str, where), field=f"{where}.rhs"), table, f"{where}.rhs", used)
        try:
            equations.append(Equation(lhs, rhs, label))
        except (ValueError, TypeError) as exc:
            raise CertificateError(f"{where}: {exc}") from None
    unused = sorted(set(table) - used)
    if unused:
        raise CertificateError(f"claim.symbols: declares {', '.join(map(repr, unused))}, which the claim does not use")
    try:
        claim = Claim(cid, statement, tuple(equations), assumptions, source)
    except (ClaimError, ValueError, TypeError) as exc:
        raise CertificateError(f"claim: {exc}") from None
    parts = _get(obj, "parts", list, "certificate")
    if len(parts) != len(equations):
        raise CertificateError(
            f"parts: {len(parts)} chain(s) for {len(equations)} equation(s); every equation needs its chain"
        )
    chains: list[list[Step]] = []
    verdicts: list[str] = []
    points: list[dict[sp.Symbol, Any] | None] = []
    entries: list[dict[sp.Indexed, Any]] = []
    for q, p in enumerate(parts):
        where = f"parts[{q}]"
        _keys(p, "part", where)
        verdict = _get(p, "verdict", str, where)
        if verdict not in ("proved", "refuted", "undecided"):
            raise CertificateError(f"{where}.verdict: {verdict!r:.30} is not proved, refuted or undecided")
        verdicts.append(verdict)
        steps = []
        for n, s in enumerate(_get(p, "steps", list, where)):
            sw = f"{where}.steps[{n}]"
            _keys(s, "step", sw)
            kind = _get(s, "kind", str, sw)
            rule = _get(s, "rule", str, sw)
            if kind not in ("start", "rule", "lemma", "reason"):
                raise CertificateError(f"{sw}.kind: {kind!r:.30} is not start, rule, lemma or reason")
            if kind == "rule" and rule not in RULES:
                raise CertificateError(f"{sw}.rule: {rule!r:.60} is not a known rule; known: {', '.join(RULES)}")
            if kind == "lemma" and not rule.startswith("lemma "):
                raise CertificateError(f"{sw}.rule: a lemma step must read 'lemma ID'; got {rule!r:.60}")
            if not rule.strip() or len(rule) > 2000:
                raise CertificateError(f"{sw}.rule: must be 1 to 2000 characters")
            expr = _bind(parse_srepr(_get(s, "expr", str, sw), field=f"{sw}.expr"), table, f"{sw}.expr", set())
            instance: dict[str, Any] = {}
            if "instance" in s:
                if kind != "lemma":
                    raise CertificateError(f"{sw}.instance: only a lemma step has an instance")
                inst = _get(s, "instance", dict, sw)
                for name, txt in inst.items():
                    instance[name] = _bind(parse_srepr(txt, field=f"{sw}.instance.{name}"), table,
                                           f"{sw}.instance.{name}", set())
            step_shape = expr.shape if isinstance(expr, sp.MatrixBase) else None
            eq_shape = equations[q].lhs.shape if equations[q].is_matrix else None
            if step_shape != eq_shape:
                raise CertificateError(
                    f"{sw}.expr: a {'scalar' if step_shape is None else 'x'.join(map(str, step_shape)) + ' matrix'} "
                    f"in the chain of a {'scalar' if eq_shape is None else 'x'.join(map(str, eq_shape)) + ' matrix'} "
                    "equation")
            why = s.get("why", "")
            if not isinstance(why, str) or len(why) > 2000:
                raise CertificateError(f"{sw}.why: must be text of at most 2000 characters")
            try:
                steps.append(Step(expr, rule, tuple(instance.items()), why))
            except (TypeError, ValueError) as exc:
                raise CertificateError(f"{sw}: {exc}") from None
        chains.append(steps)
        point = None
        if verdict == "refuted" and isinstance(p.get("point"), dict):
            point = {}
            for name, txt in p["point"].items():
                if name not in table:
                    raise CertificateError(f"{where}.point: {name!r:.60} is not a symbol of the claim")
                point[table[name]] = parse_srepr(txt, field=f"{where}.point.{name}")
        points.append(point)
        values: dict[sp.Indexed, Any] = {}
        if verdict == "refuted" and p.get("entries") is not None:
            raw = p["entries"]
            if not isinstance(raw, list) or len(raw) > 10_000:
                raise CertificateError(f"{where}.entries: expected a list of [entry, value] pairs")
            for n, pair in enumerate(raw):
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise CertificateError(f"{where}.entries[{n}]: expected [entry, value]")
                key = _bind(parse_srepr(pair[0], field=f"{where}.entries[{n}]"), table, f"{where}.entries[{n}]", set())
                if not isinstance(key, sp.Indexed) or not all(i.is_Integer for i in key.indices):
                    raise CertificateError(f"{where}.entries[{n}]: not a vector entry with integer indices")
                values[key] = parse_srepr(pair[1], field=f"{where}.entries[{n}] value")
        entries.append(values)
    meta = {"registered": registered, "d": d, "verdicts": verdicts, "points": points, "entries": entries}
    return claim, chains, meta


def _same_claim(cert: Claim, ref: Claim) -> str:
    if cert.statement != ref.statement:
        return "the statement differs"
    if cert.source != ref.source:
        return "the source differs"
    if len(cert.equations) != len(ref.equations):
        return f"{len(cert.equations)} equation(s) where the registry has {len(ref.equations)}"
    for q, (a, b) in enumerate(zip(cert.equations, ref.equations)):
        if a.label != b.label:
            return f"equation {q + 1}'s label differs"
        if a.lhs != b.lhs or a.rhs != b.rhs:
            return f"equation {q + 1} ({b.label or 'unlabelled'}) differs"
    if tuple(cert.assumptions) != tuple(ref.assumptions):
        return "the assumptions differ"
    return ""


def check_point(claim: Claim, eq: Equation, point: Mapping[sp.Symbol, Any],
                 entries: Mapping[sp.Indexed, Any]) -> tuple[dict[str, str], dict] | None:
    """The recorded refuting point, re-checked: exact numbers for every symbol (and entry),
    admissible, and disjoint enclosures of the two sides there, recomputed here."""
    labels = {a.base.label for x in (eq.lhs, eq.rhs) for a in _indexed(x)}
    wanted = set(claim.symbols) - labels
    if set(point) != wanted:
        return None  # a point is numbers, one for every symbol
    for v in [*point.values(), *entries.values()]:
        if not (isinstance(v, sp.Expr) and v.is_number and outside_fragment(v) == "" and not v.has(sp.Float)):
            return None
    if not admissible(point, claim.assumptions) or not entries_admissible(entries, point, claim.assumptions):
        return None
    enclosures = certify(eq.lhs, eq.rhs, point, entries)
    if enclosures is None:
        return None
    out = {s.name: sp.sstr(v) for s, v in sorted(point.items(), key=lambda kv: kv[0].name)}
    out.update({sp.sstr(a): sp.sstr(v) for a, v in entries.items()})
    return out, enclosures



def bind_to_registry(claim: Claim, meta: Mapping[str, Any], resolve: Resolver | None) -> None:
    """Refuse a certificate that is not bound to its claim (see the module notes)."""
    if meta["registered"]:
        if resolve is None:
            raise CertificateError(
                f"claim.registered: {claim.id!r} is a registered theorem; re-check it with "
                "pe_symbolic.theorems.recheck_certificate (or `pe-derive check`), which rebuilds the "
                "claim from the registry"
            )
        try:
            ref = resolve(claim.id, meta["d"])
        except (LookupError, ValueError) as exc:
            raise CertificateError(f"claim.id: {exc}") from None
        why = _same_claim(claim, ref)
        if why:
            where = claim.id if meta["d"] is None else f"{claim.id} (d={meta['d']})"
            raise CertificateError(f"claim: the certificate of {where} does not match the registry: {why}")
    else:
        expected = render_statement(claim.equations, claim.assumptions)
        if claim.statement != expected:
            raise CertificateError(
                f"claim.statement: {claim.statement!r:.200} is not the rendering of the certificate's own "
                f"equations ({expected!r:.200}); a user claim's statement must say exactly what was checked"
            )
        if resolve is not None:
            try:
                resolve(claim.id, None)
            except (LookupError, ValueError):
                pass
            else:
                raise CertificateError(
                    f"claim.id: {claim.id!r} is a registered theorem, but the certificate says it is not"
                )




def _indexed(e: Any) -> set:
    return set().union(*(x.atoms(sp.Indexed) for x in e)) if isinstance(e, sp.MatrixBase) else e.atoms(sp.Indexed)
