r"""The proof engine: the trusted kernel, and the search, certificates and renderings around it.

The trusted base is one subpackage, :mod:`pe_symbolic.proof.kernel` (fragment -- heads and
facts --, binders, evaluation, rules, enclosures, admissible points, the vacuity gate, the
checker, the certificate reader and binding, budgets): what ``proved`` and ``refuted`` rest on,
closed by an import contract. Around it, each importing only those below it in this list:

* :mod:`~pe_symbolic.proof.engine`: :func:`~pe_symbolic.proof.prove`, :func:`~pe_symbolic.check_identity` (search, check, refute);
* :mod:`~pe_symbolic.proof.certificates`: re-checking certificates (:func:`~pe_symbolic.proof.recheck`);
* :mod:`~pe_symbolic.proof.result`: :class:`~pe_symbolic.proof.Proof`, :class:`~pe_symbolic.proof.PartProof`;
* :mod:`~pe_symbolic.proof.coq_export`, :mod:`~pe_symbolic.proof.coq_tactics` (with
  :mod:`~pe_symbolic.proof.coq_refute`, :mod:`~pe_symbolic.proof.coq_analysis` and
  :mod:`~pe_symbolic.proof.coq_terms`), :mod:`~pe_symbolic.proof.coq` (with
  :mod:`~pe_symbolic.proof.coq_syntax`, :mod:`~pe_symbolic.proof.coq_heads` and
  :mod:`~pe_symbolic.proof.coq_preamble`): the second kernel's door: the per-lemma Coq check,
  the generated scripts, and the printer of claims as Coq lemmas (hygienic names);
* :mod:`~pe_symbolic.proof.render`: text, LaTeX, MyST, Markdown, HTML and the JSON certificate,
  one module a target;
* ``isolate``: a check run in a child process, for calls from other threads;
* :mod:`~pe_symbolic.proof.sampler`: candidate points (search; the kernel checks them).

The modules ``claims``, ``rules``, ``fragment``, ``evaluation``, ``enclosure``, ``budget`` and
``srepr`` of earlier versions live in the kernel only: ``pe_symbolic.proof.kernel.claims``, ...
(``srepr`` is :mod:`~pe_symbolic.proof.kernel.reader`). What the verdicts mean is stated in
:mod:`pe_symbolic.proof.engine`; what the kernel trusts, and its size, in
:mod:`pe_symbolic.proof.kernel`.
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
