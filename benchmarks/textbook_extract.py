"""Build the textbook corpus (``tests/data/textbook_corpus.json``) from SymPy's own tests.

``python -m benchmarks.textbook_extract`` walks the simplification and elementary-function tests
of the installed SymPy (:data:`SOURCES`), and records every ``assert A == B`` the way the test
asserts it: when ``A`` is a simplifier applied to an expression (``trigsimp(e)``,
``e.rewrite(exp)``, ``sqrtdenest(e)``, ``expand_log(e)``, ...) the identity is ``e = B`` (what the
simplifier claims), a derivative ``e.diff(x)`` is recorded as ``Derivative(e, x) = B``, and any
other ``A`` (``tan(pi/12)``, ``KroneckerDelta(0, j)*KroneckerDelta(1, j)``) as ``A = B`` with
``A`` as SymPy builds it. Kept: both sides values built from the heads the issue names
(elementary, inverse and hyperbolic trigonometric functions, ``exp``/``log``, powers and
radicals, ``re``/``im``/``conjugate``, ``Abs``/``sign``, ``KroneckerDelta``, ``Piecewise``, ...);
dropped: ``force=True`` rewrites (false in general), ``XFAIL`` and ``slow`` tests, floats,
infinities, integrals, special functions, matrices, relations and sets.

Each identity is then **checked** before it is kept: one the kernel's certified refuter can
refute at an admissible point (SymPy's tests assert some rewrites that hold only on part of
the plane, or for symbols they forgot to declare) is dropped from the true set and listed as
``false_as_stated``; and it gets a **false mutant** (a changed constant, a flipped sign, a
changed argument), kept only when the refuter certifies it false.

Under load the SymPy tests are slow (each test runs under a wall-clock alarm, so a loaded
machine records fewer asserts): ``--modules 0,1 --raw A.json`` extracts some of
:data:`SOURCES` only (run several in parallel), ``--raw A.json,B.json --every K --out F``
builds a corpus from every K-th of what they recorded.

``--merge A.json,B.json --out F`` joins corpora built with different ``--every`` (the committed
corpus: every 4th of the simplification, hyperbolic, exponential, complexes and tensor-function
asserts, every 8th of the trigonometric ones; ``tests/data/textbook_corpus_large.json``: every
2nd and every 4th of the same recorded asserts, so it contains the committed one).

Run it again only to rebuild the corpus (the result is committed; it depends on the SymPy
version, recorded in the file). Test code of SymPy is run here, in this developer tool only;
the corpus is read back by the kernel's whitelist parser (:func:`~pe_symbolic.proof.kernel.reader.parse_srepr`).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import random
import signal
import sys
import textwrap
import time
from pathlib import Path

import sympy as sp

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "textbook_corpus.json"

#: The SymPy test modules the corpus is taken from.
SOURCES = (
    "sympy.simplify.tests.test_trigsimp",
    "sympy.simplify.tests.test_fu",
    "sympy.simplify.tests.test_simplify",
    "sympy.simplify.tests.test_sqrtdenest",
    "sympy.simplify.tests.test_powsimp",
    "sympy.simplify.tests.test_radsimp",
    "sympy.simplify.tests.test_ratsimp",
    "sympy.simplify.tests.test_rewrite",
    "sympy.functions.elementary.tests.test_trigonometric",
    "sympy.functions.elementary.tests.test_hyperbolic",
    "sympy.functions.elementary.tests.test_exponential",
    "sympy.functions.elementary.tests.test_complexes",
    "sympy.functions.special.tests.test_tensor_functions",
)

#: Functions whose first argument is the expression the asserted value equals.
SIMPLIFIERS = frozenset({
    "simplify", "trigsimp", "fu", "exptrigsimp", "expand_log", "logcombine", "sqrtdenest", "powsimp",
    "powdenest", "radsimp", "ratsimp", "expand", "expand_trig", "expand_complex", "expand_mul",
    "expand_multinomial", "expand_power_base", "expand_power_exp", "expand_func", "cancel", "together",
    "factor", "combsimp", "signsimp", "collect", "nsimplify_", "rad_rationalize_", "futrig", "hyper_as_trig_",
    "collect_const", "collect_sqrt", "denom_", "separatevars", "besselsimp_", "piecewise_fold", "unrad_",
    "TR0", "TR1", "TR2", "TR2i", "TR3", "TR4", "TR5", "TR6", "TR7", "TR8", "TR9", "TR10", "TR10i", "TR11",
    "TR12", "TR12i", "TR13", "TR14", "TR15", "TR16", "TR22", "TRmorrie", "TR111", "L_", "trig_split_",
    "_osborne_", "sqrt_biquadratic_denest_", "_sqrt_match_", "posify_", "rcollect", "simplify_logic_",
    "kroneckersimp", "nthroot_", "radsimp", "rad_rationalize_",
})
#: Methods whose object is the expression the asserted value equals.
METHODS = frozenset({"simplify", "trigsimp", "expand", "rewrite", "doit", "cancel", "together", "factor",
                     "powsimp", "radsimp", "ratsimp", "expand_trig", "expand_log", "expand_complex"})

#: Heads a kept identity may use (besides arithmetic, numbers, symbols and undefined functions).
HEADS = (
    sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc, sp.asin, sp.acos, sp.atan, sp.acot, sp.asec, sp.acsc,
    sp.atan2, sp.sinh, sp.cosh, sp.tanh, sp.coth, sp.sech, sp.csch, sp.asinh, sp.acosh, sp.atanh, sp.acoth,
    sp.asech, sp.acsch, sp.exp, sp.log, sp.Abs, sp.sign, sp.re, sp.im, sp.conjugate, sp.arg, sp.KroneckerDelta,
    sp.Piecewise, sp.Max, sp.Min, sp.Derivative, sp.Sum, sp.Product, sp.LambertW,
)
_ARITH = (sp.Add, sp.Mul, sp.Pow, sp.Symbol, sp.Rational, sp.Integer, sp.core.numbers.Pi,
          sp.core.numbers.Exp1, sp.core.numbers.ImaginaryUnit, sp.Tuple, sp.core.function.AppliedUndef,
          sp.functions.elementary.piecewise.ExprCondPair, sp.core.relational.Relational,
          sp.logic.boolalg.BooleanAtom, sp.logic.boolalg.BooleanFunction)
_ALLOWED = HEADS + _ARITH


def _kept(e: object) -> str:
    """'' when ``e`` is a value built from :data:`HEADS` and arithmetic, else why not."""
    if not isinstance(e, sp.Expr) or isinstance(e, sp.MatrixBase):
        return "not a scalar value"
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.Dummy):
            return "a Dummy"
        if isinstance(node, (sp.Float, sp.core.numbers.Infinity, sp.core.numbers.NegativeInfinity,
                             sp.core.numbers.ComplexInfinity, sp.core.numbers.NaN)):
            return type(node).__name__
        if not isinstance(node, _ALLOWED):
            return type(node).__name__
        if isinstance(node, sp.Symbol) and any(v is False and k in ("commutative",) for k, v in
                                               node.assumptions0.items()):
            return "non-commutative"
    return ""


def _unevaluated(fn):
    from sympy.core.parameters import evaluate

    with evaluate(False):
        return fn()


class _Timeout(Exception):
    pass


def _alarm(signum, frame):  # noqa: ARG001
    raise _Timeout()


class _Rewriter(ast.NodeTransformer):
    """``assert A == B`` -> ``__record(line, lambda: INPUT, lambda: B, 'how')``."""

    def visit_Assert(self, node: ast.Assert):  # noqa: N802
        t = node.test
        if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq)):
            return node
        a, b = t.left, t.comparators[0]
        how = "value"
        # a value as written (``tan(pi/12)``, ``KroneckerDelta(0, j)*KroneckerDelta(1, j)``): built
        # with SymPy's evaluation off, so the identity is the evaluation the test asserts
        src = ast.Call(ast.Name("__unevaluated", ast.Load()), [ast.Lambda(_noargs(), a)], [])
        if isinstance(a, ast.Call) and not isinstance(a.func, ast.Name):
            src = a
        if isinstance(a, ast.Call):
            kw = {k.arg: k.value for k in a.keywords}
            forced = any(isinstance(v, ast.Constant) and v.value is True for k, v in kw.items()
                         if k in ("force", "deep_force"))
            if forced:
                return ast.Pass()
            f = a.func
            if isinstance(f, ast.Name) and f.id in SIMPLIFIERS and a.args:
                src, how = a.args[0], f.id
            elif isinstance(f, ast.Attribute) and f.attr in METHODS:
                src, how = f.value, f.attr
            elif isinstance(f, ast.Attribute) and f.attr == "diff" and a.args:
                src = ast.Call(ast.Name("__Derivative", ast.Load()), [f.value, *a.args], [])
                how = "diff"
        call = ast.Expr(ast.Call(ast.Name("__record", ast.Load()), [
            ast.Constant(node.lineno), ast.Lambda(_noargs(), src), ast.Lambda(_noargs(), b),
            ast.Lambda(_noargs(), a), ast.Constant(how)], []))
        return ast.copy_location(call, node)


def _noargs() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                         defaults=[])


def extract(modules=SOURCES, per_test: int = 20) -> list[dict]:
    """Run the tests of ``modules`` with every ``assert A == B`` recorded (see the module notes)."""
    out: list[dict] = []
    seen: set = set()
    signal.signal(signal.SIGALRM, _alarm)
    for modname in modules:
        print(f"  {modname}: {len(out)} so far", file=sys.stderr, flush=True)
        mod = importlib.import_module(modname)
        short = modname.rsplit(".", 1)[-1]
        for name, fn in sorted(vars(mod).items()):
            if not (name.startswith("test_") and inspect.isfunction(fn)) or fn.__module__ != mod.__name__:
                continue
            try:
                src = textwrap.dedent(inspect.getsource(fn))
            except (OSError, TypeError):
                continue
            tree = ast.parse(src)
            fdef = tree.body[0]
            if not isinstance(fdef, ast.FunctionDef):
                continue
            decos = {ast.unparse(d) for d in fdef.decorator_list}
            if any("XFAIL" in d or "slow" in d or "skip" in d for d in decos):
                continue
            fdef.decorator_list = []
            first = fn.__code__.co_firstlineno
            tree = ast.fix_missing_locations(_Rewriter().visit(tree))
            records: list = []

            def record(line, src_fn, b_fn, a_fn, how, records=records):
                # the test's own alarm (per_test) is re-armed after this line's, not cancelled
                left = signal.alarm(0)
                t0 = time.monotonic()
                try:
                    signal.alarm(5 if not left else max(1, min(5, left)))
                    a, b, lhs = a_fn(), b_fn(), src_fn()
                    ok = bool(a == b)
                except _Timeout:
                    if left and time.monotonic() - t0 >= left:
                        raise
                    return
                except Exception:  # noqa: BLE001 - a test line we cannot reproduce is skipped
                    return
                finally:
                    signal.alarm(0)
                    if left:
                        signal.alarm(max(1, int(left - (time.monotonic() - t0))))
                if ok:
                    records.append((first + line - 1, how, lhs, b))

            env = dict(vars(mod))
            env["__record"] = record
            env["__Derivative"] = lambda e, *v: sp.Derivative(e, *v)
            env["__unevaluated"] = _unevaluated
            try:
                code = compile(tree, f"<{short}.{name}>", "exec")
                exec(code, env)  # noqa: S102 - SymPy's own test code, in this developer tool only
                signal.alarm(per_test)
                env[name]()
            except BaseException:  # noqa: BLE001 - the rest of a test that fails is skipped
                pass
            finally:
                signal.alarm(0)
            for line, how, lhs, rhs in records:
                lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
                if _kept(lhs) or _kept(rhs):
                    continue
                key = (sp.srepr(lhs), sp.srepr(rhs))
                if key in seen:
                    continue
                seen.add(key)
                out.append({"source": f"{short}.py:{line}", "how": how, "lhs": lhs, "rhs": rhs})
    return out


# ---------------------------------------------------------------------------- checking and mutants


def _refuted(lhs, rhs, points: int = 6) -> bool:
    from pe_symbolic.proof.sampler import refute

    symbols = sorted(lhs.free_symbols | rhs.free_symbols, key=lambda s: s.name)
    try:
        return refute(lhs, rhs, symbols, (), seed=7, points=points).counterexample is not None
    except Exception:  # noqa: BLE001
        return False


def _mutants(lhs: sp.Expr, rhs: sp.Expr, rng: random.Random):
    """Candidate false twins of ``lhs = rhs``: a changed constant, a flipped sign, a changed
    argument (in that order of preference)."""
    nums = [n for n in sp.preorder_traversal(rhs) if isinstance(n, sp.Rational) and n not in (0, 1, -1)]
    for n in nums[:2]:
        yield "constant", lhs, rhs.xreplace({n: n + 1})
    if rhs != 0:
        yield "sign", lhs, -rhs
    else:
        yield "constant", lhs, sp.Integer(1)
    apps = [n for n in sp.preorder_traversal(lhs) if isinstance(n, sp.Function) and n.args
            and n.args[0].free_symbols]
    for app in apps[:2]:
        yield "argument", lhs.xreplace({app: app.func(2 * app.args[0], *app.args[1:])}), rhs
    yield "constant", lhs, rhs + sp.Rational(1, 3)


def build(entries: list[dict]) -> dict:
    """Check each extracted identity and pair it with a certified false mutant."""
    rng = random.Random(0)
    true, false_as_stated = [], []
    signal.signal(signal.SIGALRM, _alarm)
    for q, e in enumerate(entries):
        lhs, rhs = e["lhs"], e["rhs"]
        try:
            signal.alarm(20)
            if _refuted(lhs, rhs):
                false_as_stated.append({"source": e["source"], "how": e["how"], "lhs": sp.srepr(lhs),
                                        "rhs": sp.srepr(rhs)})
                continue
            mutant = None
            for kind, ml, mr in _mutants(lhs, rhs, rng):
                if _kept(ml) or _kept(mr) or (ml == lhs and mr == rhs):
                    continue
                if _refuted(ml, mr):
                    mutant = {"kind": kind, "lhs": sp.srepr(ml), "rhs": sp.srepr(mr)}
                    break
        except _Timeout:
            continue
        finally:
            signal.alarm(0)
        row = {"id": f"t{len(true):04d}", "source": e["source"], "how": e["how"], "lhs": sp.srepr(lhs),
               "rhs": sp.srepr(rhs), "trivial": bool(lhs == rhs)}
        if mutant is not None:
            row["mutant"] = mutant
        true.append(row)
        if q % 50 == 0:
            print(f"  {q}/{len(entries)} checked", file=sys.stderr, flush=True)
    return {"sympy": sp.__version__, "sources": list(SOURCES), "identities": true,
            "false_as_stated": false_as_stated}


def merge(parts: list[Path]) -> dict:
    """One corpus from several built by :func:`build` (each with its own ``--every``): their
    identities in order, numbered again, duplicates (the same two sides) kept once."""
    identities, false_as_stated, every, seen = [], [], [], set()
    version = None
    for p in parts:
        data = json.loads(p.read_text(encoding="utf-8"))
        if version is not None and data["sympy"] != version:
            raise ValueError(f"{p}: built with SymPy {data['sympy']}, the others with {version}")
        version = data["sympy"]
        kinds = sorted({r["source"].split(":")[0] for r in data["identities"]})
        every.append({"every": data.get("every", 1), "tests": kinds})
        for r in data["identities"]:
            key = (r["lhs"], r["rhs"])
            if key in seen:
                continue
            seen.add(key)
            identities.append(dict(r, id=f"t{len(identities):04d}"))
        false_as_stated += data["false_as_stated"]
    return {"sympy": version, "sources": list(SOURCES), "identities": identities,
            "false_as_stated": false_as_stated, "every": every}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=CORPUS)
    ap.add_argument("--raw", type=Path, default=None,
                    help="keep the extracted entries here (srepr, JSON) and reuse them when the file exists")
    ap.add_argument("--every", type=int, default=1, help="check and keep every K-th extracted entry only")
    ap.add_argument("--modules", default=None,
                    help="comma-separated indices into SOURCES: extract only these, write --raw and stop "
                         "(several such runs in parallel; then --raw A,B,... builds from all of them)")
    ap.add_argument("--merge", default=None,
                    help="comma-separated corpora built by earlier runs (--out): write them to --out as one, in "
                         "that order, numbered again (t0000, ...); their --every values are kept per part")
    args = ap.parse_args(argv)
    if args.merge is not None:
        merged = merge([Path(p) for p in args.merge.split(",")])
        args.out.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"merged {len(merged['identities'])} true identities", file=sys.stderr)
        return 0
    raws = [Path(p) for p in str(args.raw).split(",")] if args.raw is not None else []
    if args.modules is not None:
        entries = extract(tuple(SOURCES[int(k)] for k in args.modules.split(",")))
        raws[0].write_text(json.dumps([dict(e, lhs=sp.srepr(e["lhs"]), rhs=sp.srepr(e["rhs"])) for e in entries]),
                           encoding="utf-8")
        print(f"extracted {len(entries)} identities", file=sys.stderr)
        return 0
    if raws and all(p.exists() for p in raws):
        from pe_symbolic.proof.kernel.reader import parse_srepr

        entries, seen = [], set()
        for p in raws:
            for e in json.loads(p.read_text(encoding="utf-8")):
                if (e["lhs"], e["rhs"]) in seen:
                    continue
                seen.add((e["lhs"], e["rhs"]))
                entries.append(dict(e, lhs=parse_srepr(e["lhs"], field="lhs"), rhs=parse_srepr(e["rhs"], field="rhs")))
    else:
        entries = extract()
        if raws:
            raws[0].write_text(json.dumps([dict(e, lhs=sp.srepr(e["lhs"]), rhs=sp.srepr(e["rhs"]))
                                           for e in entries]), encoding="utf-8")
    print(f"extracted {len(entries)} identities", file=sys.stderr)
    entries = entries[::args.every]
    data = build(entries)
    data["every"] = args.every
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    n = len(data["identities"])
    m = sum("mutant" in r for r in data["identities"])
    print(f"kept {n} true identities ({m} with a certified false mutant); "
          f"{len(data['false_as_stated'])} false as stated", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
