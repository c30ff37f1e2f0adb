"""Run one check in this process and send the result back.

Used by :func:`pe_symbolic.proof.engine.prove`, :func:`pe_symbolic.proof.engine.check_identity`
and :func:`pe_symbolic.proof.certificates.recheck` when they are called from a thread other than the main thread, where a time budget cannot
interrupt a long computation: the check then runs here, in a fresh interpreter (``python -m
pe_symbolic.proof._child``) that the caller kills when the budget runs out. The task and its
arguments arrive pickled on standard input from the parent process (the caller's own objects,
never data from elsewhere); the :class:`~pe_symbolic.proof.result.Proof` goes back pickled on
standard output, or the clear error the call raised (a ``ClaimError``, a ``TypeError``), to be
raised again in the caller. A fresh interpreter, not ``multiprocessing``: that would re-import
the caller's ``__main__`` module in the child.
"""

from __future__ import annotations

import pickle
import sys


def main() -> None:  # pragma: no cover - runs in the child process
    from .certificates import recheck
    from .engine import check_identity, prove

    task, args = pickle.load(sys.stdin.buffer)
    try:
        if task == "prove":
            claim, chains, spot_points, timeout, lemmas = args
            result = ("ok", prove(claim, chains=chains, spot_points=spot_points, timeout=timeout, lemmas=lemmas))
        elif task == "check_identity":
            lhs, rhs, assumptions, steps, timeout, cid = args
            result = ("ok", check_identity(lhs, rhs, assumptions, steps=steps, timeout=timeout, id=cid))
        elif task == "recheck":
            data, resolve, lemmas, timeout = args
            result = ("ok", recheck(data, resolve=resolve, lemmas=lemmas, timeout=timeout))
        else:
            result = ("error", f"unknown task {task!r}")
    except (TypeError, ValueError) as exc:  # the call's own clear errors (ClaimError is a ValueError)
        try:
            pickle.dumps(exc)
            result = ("raise", exc)
        except Exception:  # noqa: BLE001 - an error that does not pickle is reported as text
            result = ("error", f"{type(exc).__name__}: {exc}")
    except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
        result = ("error", f"{type(exc).__name__}: {exc}")
    pickle.dump(result, sys.stdout.buffer)
    sys.stdout.buffer.flush()


if __name__ == "__main__":  # pragma: no cover
    main()
