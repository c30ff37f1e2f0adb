r"""A whitelist parser for SymPy ``srepr`` text: certificates are data, never code.

``sympy.srepr`` writes an expression as nested constructor calls
(``Add(Symbol('x', real=True), Integer(1))``). Reading that back with ``sympify`` or
``eval`` would run whatever a certificate contains. :func:`parse_srepr` instead parses the
text with ``ast.parse`` (a parser: it runs nothing) and walks the tree, accepting only

* calls of the constructors in :data:`CONSTRUCTORS` (``Add``, ``Symbol``, ``sin``, ...), with
  positional arguments and, for ``Symbol`` the SymPy assumption keywords (``real=True``) and
  for ``Float`` a ``precision``;
* ``Function('f')(...)`` for an undefined function named by an identifier;
* the constants in :data:`CONSTANTS` (``pi``, ``E``, ``I``, ``oo``, ``zoo``, ``nan``, ``true``,
  ``false``), a minus sign in front of a number or ``oo``;
* integer, string and boolean literals, and lists and tuples of the above (matrix rows).

Anything else (an attribute, a name outside the lists, a lambda, a subscript, an operator,
a keyword that is not an assumption, an absurdly large number) is a :class:`CertificateError`
naming the field and quoting the offending text. Objects are rebuilt as written (SymPy's
automatic evaluation is off except for the canonical ordering of sums, products and powers),
so the parsed object is the one that was written, and building it
computes nothing costly (``Pow(Integer(10), Integer(10**9))`` is refused, not evaluated).

>>> parse_srepr("Add(Symbol('x', real=True), Integer(1))", field="lhs")
x + 1
>>> parse_srepr("__import__('os').system('echo hi')", field="steps[1].expr")
Traceback (most recent call last):
pe_symbolic.proof.kernel.reader.CertificateError: steps[1].expr: a call of something that is not a SymPy constructor: "__import__('os').system" in "__import__('os').system('echo hi')"
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

import sympy as sp
from sympy.core.assumptions import _assume_defined
from sympy.core.parameters import evaluate

__all__ = ["CONSTANTS", "CONSTRUCTORS", "CertificateError", "parse_srepr"]

#: Longest expression text accepted (characters).
MAX_TEXT = 1_000_000
#: Most tree nodes in one expression.
MAX_NODES = 100_000
#: Deepest nesting of calls and lists in one expression.
MAX_DEPTH = 300
#: Most arguments of one call (terms of a sum, factors of a product) or items of one list.
MAX_ARGS = 20_000
#: Most decimal digits in an integer literal.
MAX_DIGITS = 1000
#: Largest |exponent| of an integer power of a number.
MAX_INT_EXPONENT = 100_000
#: Most bits of any number built while reading (a power or product of numbers is refused
#: *before* it is computed when its result would be larger).
MAX_NUMBER_BITS = 8192
#: Most bits of a number raised to a non-integer power (root extraction grows with the size).
MAX_ROOT_BITS = 1024
#: Most entries of a matrix, and most rows or columns.
MAX_MATRIX_ENTRIES = 65_536
MAX_MATRIX_DIM = 256
#: Largest Float precision (bits).
MAX_PRECISION = 20_000
#: Largest |decimal exponent| of a Float literal.
MAX_FLOAT_EXPONENT = 10_000


class CertificateError(ValueError):
    """A certificate (or one field of it) that is malformed, tampered with, or not data."""


def _cls(name: str) -> Callable[..., Any]:
    from sympy.core.symbol import Str
    from sympy.functions.elementary.piecewise import ExprCondPair

    return {"Str": Str, "ExprCondPair": ExprCondPair}.get(name) or getattr(sp, name)


#: SymPy constructors a certificate may call, by the name ``srepr`` writes.
CONSTRUCTORS: dict[str, Callable[..., Any]] = {
    name: _cls(name) for name in (
        # numbers and symbols
        "Integer", "Rational", "Float", "Symbol", "Str", "Tuple",
        # arithmetic
        "Add", "Mul", "Pow", "Mod", "Abs", "sign", "re", "im", "conjugate", "arg", "floor",
        "ceiling", "Min", "Max", "factorial", "binomial", "gamma", "KroneckerDelta",
        # elementary functions
        "exp", "log", "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan",
        "acot", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sinc",
        # logic and relations
        "Equality", "Unequality", "StrictLessThan", "LessThan", "StrictGreaterThan",
        "GreaterThan", "And", "Or", "Not", "Piecewise", "ExprCondPair",
        # calculus
        "Derivative", "Integral", "Sum", "Product", "Lambda", "Limit", "Subs",
        # matrices and indices
        "ImmutableDenseMatrix", "MatrixSymbol", "MatMul", "MatAdd", "MatPow", "Transpose",
        "Determinant", "Trace", "Identity", "ZeroMatrix", "BlockMatrix", "BlockDiagMatrix",
        "Indexed", "IndexedBase", "Idx",
    )
}
#: ``MutableDenseMatrix`` is read as its immutable twin (the engine never mutates).
CONSTRUCTORS["MutableDenseMatrix"] = sp.ImmutableDenseMatrix

#: Bare names a certificate may use.
CONSTANTS: dict[str, sp.Basic] = {
    "pi": sp.pi, "E": sp.E, "I": sp.I, "oo": sp.oo, "zoo": sp.zoo, "nan": sp.nan,
    "true": sp.true, "false": sp.false, "EulerGamma": sp.EulerGamma, "GoldenRatio": sp.GoldenRatio,
    "Catalan": sp.Catalan,
}

_ASSUMPTIONS = frozenset(_assume_defined)
# ``srepr`` prints the arguments of a sum or product in printing order, not in the stored
# order, so these are rebuilt with SymPy's canonical ordering (evaluation on); so are the
# containers whose construction computes nothing (a Sum is not summed until ``doit``). Any other
# node present in ``srepr`` text was present in the original expression (an evaluated
# ``sin(0)`` prints as ``Integer(0)``), so it is rebuilt as written: evaluation off, which
# also keeps deliberately unevaluated objects (``sign(e, evaluate=False)``, ``Derivative``)
# unevaluated. ``Subs`` is a container too (it is never evaluated before ``doit``), but it
# stores a canonical copy of its expression with the variables renamed, whose products and
# sums must be ordered canonically for two equal ``Subs`` to compare equal.
_EVALUATED = frozenset({"Add", "Mul", "Pow", "Sum", "Product", "Integral", "Tuple", "Lambda", "Subs"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\Z")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")


def _excerpt(text: str, node: ast.AST | None = None) -> str:
    if node is not None and hasattr(node, "col_offset"):
        seg = ast.get_source_segment(text, node) or ""
        if seg:
            text = seg
    return text if len(text) <= 80 else text[:77] + "..."


class _Reader:
    def __init__(self, text: str, field: str) -> None:
        self.text, self.field, self.nodes = text, field, 0

    def fail(self, what: str, node: ast.AST | None = None) -> CertificateError:
        where = _excerpt(self.text, node)
        whole = _excerpt(self.text)
        tail = f' in "{whole}"' if where != whole else ""
        return CertificateError(f'{self.field}: {what}: "{where}"{tail}')

    def read(self, node: ast.AST) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.fail(f"more than {MAX_NODES} nodes")
        if isinstance(node, ast.Constant):
            return self.literal(node)
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            raise self.fail("a name that is not a SymPy constant", node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = node.operand
            if isinstance(inner, ast.Constant) and type(inner.value) in (int, float):
                return -self.literal(inner)
            if isinstance(inner, ast.Name) and inner.id == "oo":
                return sp.S.NegativeInfinity
            raise self.fail("a minus sign is allowed only before a number or oo", node)
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.read(e) for e in node.elts]
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.fail(f"{type(node).__name__} is not allowed", node)

    def literal(self, node: ast.Constant) -> Any:
        v = node.value
        if isinstance(v, bool) or isinstance(v, str):
            return v
        if isinstance(v, int):
            if len(str(abs(v))) > MAX_DIGITS:
                raise self.fail(f"an integer with more than {MAX_DIGITS} digits", node)
            return v
        raise self.fail(f"a {type(v).__name__} literal is not allowed", node)

    def call(self, node: ast.Call) -> Any:
        func = node.func
        # Function('f')(args): an undefined function applied to arguments
        if isinstance(func, ast.Call):
            if not (isinstance(func.func, ast.Name) and func.func.id == "Function" and len(func.args) == 1
                    and not func.keywords and isinstance(func.args[0], ast.Constant)
                    and isinstance(func.args[0].value, str) and _IDENT.match(func.args[0].value)):
                raise self.fail("a call of something that is not a SymPy constructor", func)
            if node.keywords:
                raise self.fail("keywords are not allowed here", node)
            f = sp.Function(func.args[0].value)
            return f(*[self.read(a) for a in node.args])
        if not isinstance(func, ast.Name):
            raise self.fail("a call of something that is not a SymPy constructor", func)
        name = func.id
        if name not in CONSTRUCTORS:
            raise self.fail(f"{name!r} is not an allowed SymPy constructor", func)
        args = [self.read(a) for a in node.args]
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise self.fail("** arguments are not allowed", node)
            if name == "Symbol" and kw.arg in _ASSUMPTIONS:
                if not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)):
                    raise self.fail(f"assumption {kw.arg} must be True or False", kw.value)
                kwargs[kw.arg] = kw.value.value
            elif name == "Float" and kw.arg == "precision":
                p = self.read(kw.value)
                if not (isinstance(p, int) and 1 <= p <= MAX_PRECISION):
                    raise self.fail(f"precision must be an integer in [1, {MAX_PRECISION}]", kw.value)
                kwargs["precision"] = p
            else:
                raise self.fail(f"keyword {kw.arg!r} is not allowed for {name}", node)
        return self.build(name, args, kwargs, node)

    def build(self, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        if name == "Symbol" or name == "Str":
            if len(args) != 1 or not isinstance(args[0], str) or not 0 < len(args[0]) <= 200:
                raise self.fail(f"{name} takes one name of 1 to 200 characters", node)
        elif name == "Integer":
            if len(args) != 1 or isinstance(args[0], bool) or not isinstance(args[0], int):
                raise self.fail("Integer takes one integer literal", node)
        elif name == "Rational":
            if len(args) != 2 or not all(isinstance(a, int) and not isinstance(a, bool) for a in args) \
                    or args[1] == 0:
                raise self.fail("Rational takes two integer literals, the second nonzero", node)
        elif name == "Float":
            if len(args) != 1 or not isinstance(args[0], str) or not _FLOAT.match(args[0]):
                raise self.fail("Float takes one finite decimal string", node)
            exponent = _FLOAT.match(args[0]).group(2)
            # the decimal-to-binary conversion of 1e1000000 is one long call the budget's timer
            # cannot interrupt: the exponent is bounded before anything is built
            if exponent is not None and abs(int(exponent[1:])) > MAX_FLOAT_EXPONENT:
                raise self.fail(f"a Float with a decimal exponent beyond {MAX_FLOAT_EXPONENT}", node)
        else:
            for a in args:
                if isinstance(a, (str, bool)) and name not in ("MatrixSymbol", "IndexedBase"):
                    raise self.fail(f"{name} does not take a literal {a!r}", node)
        if name == "Pow" and len(args) == 2:
            base, ex = args
            if (isinstance(ex, sp.Integer) and abs(int(ex)) > MAX_INT_EXPONENT and isinstance(base, sp.Number)
                    and abs(base) != 1 and base != 0):
                raise self.fail(f"an integer power beyond {MAX_INT_EXPONENT} of a number", node)
            if isinstance(base, sp.Rational) and abs(base) != 1 and base != 0:
                if isinstance(ex, sp.Integer) and _bits(base) * abs(int(ex)) > MAX_NUMBER_BITS:
                    raise self.fail(f"a power of a number with more than {MAX_NUMBER_BITS} bits", node)
                if isinstance(ex, sp.Rational) and not isinstance(ex, sp.Integer) and (
                        _bits(base) > MAX_ROOT_BITS or _bits(ex) > 64):
                    raise self.fail(f"a root of a number with more than {MAX_ROOT_BITS} bits", node)
            if isinstance(ex, sp.Rational) and _bits(ex) > MAX_NUMBER_BITS // 4:
                raise self.fail("an exponent with too many digits", node)
        if name == "Mul" and sum(_bits(a) for a in args if isinstance(a, sp.Basic)) > MAX_NUMBER_BITS:
            raise self.fail(f"a product of numbers with more than {MAX_NUMBER_BITS} bits", node)
        try:
            with evaluate(name in _EVALUATED):
                out = CONSTRUCTORS[name](*args, **kwargs)
            if _bits(out) > MAX_NUMBER_BITS:
                raise self.fail(f"a number with more than {MAX_NUMBER_BITS} bits", node)
            return out
        except CertificateError:
            raise
        except Exception as exc:  # any failure of a SymPy constructor is a malformed field
            raise self.fail(f"{name}(...) could not be built ({type(exc).__name__}: {exc})", node) from None


def _bounded(root: ast.AST, text: str, field: str) -> None:
    """Size limits checked on the syntax tree before anything is built: nodes, nesting depth,
    arguments per call, items per list, digits per integer literal, matrix shape."""
    nodes = 0
    stack: list[tuple[ast.AST, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise CertificateError(f"{field}: more than {MAX_NODES} nodes")
        if depth > MAX_DEPTH:
            raise CertificateError(f"{field}: nested more than {MAX_DEPTH} levels deep")
        if isinstance(node, ast.Call):
            if len(node.args) > MAX_ARGS:
                raise CertificateError(f"{field}: a call with more than {MAX_ARGS} arguments")
            if isinstance(node.func, ast.Name) and node.func.id in ("ImmutableDenseMatrix", "MutableDenseMatrix"):
                rows = node.args[0] if node.args else None
                if isinstance(rows, (ast.List, ast.Tuple)):
                    n_rows = len(rows.elts)
                    n_cols = max((len(r.elts) for r in rows.elts if isinstance(r, (ast.List, ast.Tuple))), default=1)
                    if n_rows > MAX_MATRIX_DIM or n_cols > MAX_MATRIX_DIM or n_rows * n_cols > MAX_MATRIX_ENTRIES:
                        raise CertificateError(
                            f"{field}: a {n_rows}x{n_cols} matrix is larger than allowed (at most "
                            f"{MAX_MATRIX_DIM} rows or columns and {MAX_MATRIX_ENTRIES} entries)")
            children = [node.func, *node.args, *(kw.value for kw in node.keywords)]
        elif isinstance(node, (ast.List, ast.Tuple)):
            if len(node.elts) > MAX_ARGS:
                raise CertificateError(f"{field}: a list with more than {MAX_ARGS} items")
            children = list(node.elts)
        elif isinstance(node, ast.UnaryOp):
            children = [node.operand]
        elif isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 4 * MAX_DIGITS:
                raise CertificateError(f"{field}: an integer with more than {MAX_DIGITS} digits")
            if isinstance(v, str) and len(v) > 200:
                raise CertificateError(f"{field}: a string of more than 200 characters")
            children = []
        else:
            children = []
        stack.extend((c, depth + 1) for c in children)


def _bits(x: sp.Basic) -> int:
    """Bits of an exact number (numerator and denominator); 0 for anything else."""
    if isinstance(x, sp.Rational):
        return int(x.p).bit_length() + int(x.q).bit_length()
    return 0


def parse_srepr(text: object, *, field: str = "expression") -> Any:
    """Parse SymPy ``srepr`` text into the object it describes, executing nothing.

    Parameters
    ----------
    text : str
        The ``srepr`` text (``sympy.srepr(expr)``).
    field : str
        Where the text comes from, used in error messages (``"equations[0].lhs"``).

    Returns
    -------
    sympy.Basic
        The expression; matrices come back as ``ImmutableDenseMatrix``.

    Raises
    ------
    CertificateError
        For anything outside the whitelist, with the field and the offending text.
    """
    if not isinstance(text, str):
        raise CertificateError(f"{field}: expected srepr text (a string); got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise CertificateError(f"{field}: text longer than {MAX_TEXT} characters")
    if text.count("(") + text.count("[") > MAX_NODES:  # before the parser builds a tree for it
        raise CertificateError(f"{field}: more than {MAX_NODES} calls and lists")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise CertificateError(f'{field}: not srepr text ({type(exc).__name__}): "{_excerpt(text)}"') from None
    _bounded(tree.body, text.strip(), field)
    reader = _Reader(text.strip(), field)
    try:
        out = reader.read(tree.body)
    except RecursionError:
        raise CertificateError(f"{field}: expression nested too deeply") from None
    if isinstance(out, (list, str, bool, int)):
        raise CertificateError(f'{field}: not a SymPy object: "{_excerpt(text)}"')
    if isinstance(out, sp.MatrixBase):
        return sp.ImmutableDenseMatrix(out)
    return out
