"""Run one :func:`~pe_symbolic.proof.engine.prove` call in this process and send the result back.

Used by :func:`pe_symbolic.proof.engine.prove` when it is called from a thread other than the
main thread, where a time budget cannot interrupt a long computation: the check then runs here,
in a fresh interpreter (``python -m pe_symbolic.proof._child``) that the caller kills when the
budget runs out. The arguments arrive pickled on standard input from the parent process (this
package's own objects, never data from elsewhere); the :class:`~pe_symbolic.proof.result.Proof`
goes back pickled on standard output. A fresh interpreter, not ``multiprocessing``: that would
re-import the caller's ``__main__`` module in the child.
"""

from __future__ import annotations

import pickle
import sys


def main() -> None:  # pragma: no cover - runs in the child process
    from .engine import prove

    claim, chains, spot_points, timeout, lemmas = pickle.load(sys.stdin.buffer)
    try:
        result = ("ok", prove(claim, chains=chains, spot_points=spot_points, timeout=timeout, lemmas=lemmas))
    except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
        result = ("error", f"{type(exc).__name__}: {exc}")
    pickle.dump(result, sys.stdout.buffer)
    sys.stdout.buffer.flush()


if __name__ == "__main__":  # pragma: no cover
    main()
