r"""The proof engine: claims, sound rules, the checker, the sampler, certificates, renderings.

Modules, each importing only those above it in this list (an import-linter contract):

* :mod:`~pe_symbolic.proof.kernel.claims`: :class:`~pe_symbolic.proof.Claim`, :class:`~pe_symbolic.proof.Equation`, :class:`~pe_symbolic.proof.Step` (what is claimed);
* :mod:`~pe_symbolic.proof.kernel.rules`: the rewrite rules a chain may cite, and why each is sound;
* :mod:`~pe_symbolic.proof.kernel.budget`: time budgets (every check has one);
* :mod:`~pe_symbolic.proof.kernel`: the checker: :func:`~pe_symbolic.proof.check_chain`, :func:`~pe_symbolic.proof.check_transition`;
* :mod:`~pe_symbolic.proof.sampler`: points satisfying every assumption; refutation;
* :mod:`~pe_symbolic.proof.kernel.reader`: the whitelist parser of ``srepr`` text (certificates are data);
* :mod:`~pe_symbolic.proof.render`: text, LaTeX, MyST and the JSON certificate;
* :mod:`~pe_symbolic.proof.coq`, :mod:`~pe_symbolic.proof.coq_tactics`, :mod:`~pe_symbolic.proof.coq_export`:
  the second kernel's door: claims printed as Coq lemmas (the trusted printer), their
  generated scripts, and the per-lemma Coq check;
* :mod:`~pe_symbolic.proof.result`: :class:`~pe_symbolic.proof.Proof`, :class:`~pe_symbolic.proof.PartProof`;
* :mod:`~pe_symbolic.proof.certificates`: reading, binding and re-checking certificates;
* :mod:`~pe_symbolic.proof.engine`: :func:`~pe_symbolic.proof.prove`, :func:`~pe_symbolic.check_identity` (search, check, refute).

What the verdicts mean is stated in :mod:`pe_symbolic.proof.engine`; the checker's rules in
:mod:`pe_symbolic.proof.kernel`; which rewrites are allowed, and why, in
:mod:`pe_symbolic.proof.kernel.rules`.
"""

from __future__ import annotations

from .kernel.budget import BudgetExceeded
from .certificates import recheck, recheck_certificate
from .kernel.claims import DIFFERENCE, LHS, Claim, ClaimError, Equation, Step, Verdict
from .engine import DEFAULT_TIMEOUT, check_identity, prove, prove_equation
from .kernel.checker import check_chain, check_transition, reduce_to_zero
from .render import CERTIFICATE_FORMAT, certificate
from .result import PartProof, Proof
from .kernel.rules import RULES, apply_rule, is_zero
from .sampler import SpotCheck
from .kernel.reader import CertificateError, parse_srepr

__all__ = [
    "CERTIFICATE_FORMAT",
    "DEFAULT_TIMEOUT",
    "DIFFERENCE",
    "LHS",
    "RULES",
    "BudgetExceeded",
    "CertificateError",
    "Claim",
    "ClaimError",
    "Equation",
    "PartProof",
    "Proof",
    "SpotCheck",
    "Step",
    "Verdict",
    "apply_rule",
    "certificate",
    "check_chain",
    "check_identity",
    "check_transition",
    "is_zero",
    "parse_srepr",
    "prove",
    "prove_equation",
    "recheck",
    "recheck_certificate",
    "reduce_to_zero",
]
