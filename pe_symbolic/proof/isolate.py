"""Run a check in a fresh interpreter that is stopped when its time budget runs out.

A time budget interrupts a computation only in the main thread (a signal handler raises
there); a thread cannot be interrupted. So :func:`~pe_symbolic.proof.engine.prove`,
:func:`~pe_symbolic.proof.engine.check_identity` and
:func:`~pe_symbolic.proof.certificates.recheck`, called from another thread, run their work
here: in ``python -m pe_symbolic.proof._child``, killed when the budget (plus
:data:`CHILD_GRACE` to start it and send the result) runs out -- a bound that holds in any
thread. This module imports nothing of the package (the child does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["CHILD_GRACE", "run_in_child"]

#: Seconds a child process may take beyond the budget to start and to send its result.
CHILD_GRACE = 10.0


def run_in_child(task: str, args: tuple, timeout: float, unbuilt: Callable[[str], Any]) -> Any:
    """Run ``task`` (``"prove"`` or ``"check_identity"``, see :mod:`pe_symbolic.proof._child`) in a
    fresh interpreter, killed when the budget (plus a grace for starting it and sending the
    result) runs out: a bound that holds in any thread. ``unbuilt(note)`` is the answer when the
    child gives none."""
    import pickle
    import subprocess
    import sys

    try:
        data = pickle.dumps((task, args))
    except Exception as exc:  # noqa: BLE001 - a lambda, a local function, ...
        raise ValueError(
            "a check called from a thread other than the main thread runs in a child process to keep its "
            f"time budget; its arguments must be picklable ({type(exc).__name__}: {exc}); call it from the "
            "main thread, or pass module-level functions"
        ) from None
    proc = subprocess.Popen([sys.executable, "-m", "pe_symbolic.proof._child"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        out, _ = proc.communicate(data, timeout=timeout + CHILD_GRACE)
        try:
            status, value = pickle.loads(out)
        except Exception:  # noqa: BLE001 - a child that died says nothing readable
            status, value = "error", f"the child process ended without a result (exit status {proc.returncode})"
        if status == "ok":
            return value
        if status == "raise":  # a clear error of the call itself (a ClaimError, a bad argument)
            raise value
        note = f"the check failed in its child process: {value}"
    except subprocess.TimeoutExpired:
        note = (f"time budget of {timeout:g} s ran out (the check ran in a child process, as a thread "
                "cannot be interrupted); not decided")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return unbuilt(note)
