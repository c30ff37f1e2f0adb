"""Time budgets: no check may hang a user's session or CI.

:func:`deadline` bounds the wall time of a block. In the main thread of a POSIX process the
budget is enforced by a real-time interval timer whose signal handler raises
:class:`BudgetExceeded` wherever the computation is (inside SymPy included, between two
bytecodes; a single long C call finishes first). Elsewhere (another thread, or Windows) it is
cooperative: :func:`check`, called between every rewrite, strategy and sample, raises once the
deadline has passed.

:class:`BudgetExceeded` derives from :class:`BaseException`, like :class:`KeyboardInterrupt`,
so that SymPy's ``except Exception`` blocks cannot swallow it; if one ever did, the timer
fires again every 50 ms until the block is left.

Budgets nest: an inner block never extends an outer one.

>>> import time
>>> with deadline(0.05):
...     try:
...         while True:
...             time.sleep(0.001)
...     except BudgetExceeded as exc:
...         print(type(exc).__name__)
BudgetExceeded
"""

from __future__ import annotations

import gc
import math
import signal
import threading
import time
from typing import Any

__all__ = ["BudgetExceeded", "check", "deadline", "interruptible", "remaining"]

_REARM = 0.05


class BudgetExceeded(BaseException):
    """The time budget of a check ran out (a :class:`BaseException`, see the module notes)."""


_local = threading.local()


class _Entry(float):
    """A deadline on the stack: a float compared by value, removed by identity."""


def _stack() -> list[float]:
    st = getattr(_local, "stack", None)
    if st is None:
        st = _local.stack = []
    return st


def remaining() -> float:
    """Seconds left in the innermost budget (``inf`` outside any budget)."""
    st = _stack()
    return (min(st) - time.monotonic()) if st else math.inf


def check() -> None:
    """Raise :class:`BudgetExceeded` if the innermost budget has run out (cooperative)."""
    if remaining() <= 0:
        raise BudgetExceeded("time budget exceeded")


def interruptible() -> bool:
    """Whether a budget here interrupts the computation wherever it is (the main thread of a
    POSIX process); elsewhere it is only checked between steps (see the module notes)."""
    return _can_signal()


def _can_signal() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _in_gc_callback(frame: Any) -> bool:
    """Whether ``frame`` runs (inside) a garbage-collector callback, where an exception
    could only be reported as "ignored" (and the budget would be lost there)."""
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    callbacks.discard(None)
    while callbacks and frame is not None:
        if frame.f_code in callbacks:
            return True
        frame = frame.f_back
    return False


def _handler(signum: int, frame: Any) -> None:
    if remaining() <= 0:
        signal.setitimer(signal.ITIMER_REAL, _REARM)  # again, should anyone swallow this one
        if getattr(_local, "leaving", 0) or _in_this_module(frame) or _in_gc_callback(frame):
            return  # raise on the next tick, back in the budgeted code (never while leaving a budget)
        raise BudgetExceeded("time budget exceeded")
    _arm()


def _in_this_module(frame: Any) -> bool:
    return frame is not None and frame.f_code.co_filename == __file__


def _arm() -> None:
    left = remaining()
    if math.isfinite(left):
        signal.setitimer(signal.ITIMER_REAL, max(left, 1e-4))


class deadline:
    """Run the block with a wall-time budget of ``seconds`` (``None``: no new budget).

    Raises :class:`BudgetExceeded` from inside the block when the budget runs out. Leaving the
    block always restores the state before it (the stack of budgets, the timer and the signal
    handler), even when the timer fires while it is being left: the handler never raises in
    this module's own code, it re-arms and raises once the caller's code runs again.
    """

    def __init__(self, seconds: float | None) -> None:
        if seconds is not None and not (
            isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds > 0
            and math.isfinite(seconds)
        ):
            raise ValueError(f"timeout={seconds!r} must be a positive number of seconds")
        self.seconds = seconds
        self.entry: _Entry | None = None
        self.use_signal = False
        self.previous: Any = None

    def __enter__(self) -> None:
        if self.seconds is None:
            return
        st = _stack()
        self.entry = _Entry(time.monotonic() + float(self.seconds))
        self.use_signal = _can_signal()
        st.append(self.entry)
        if self.use_signal:
            self.previous = signal.signal(signal.SIGALRM, _handler)
            _arm()

    def __exit__(self, *exc: object) -> None:
        if self.entry is None:
            return
        _local.leaving = getattr(_local, "leaving", 0) + 1
        try:
            if self.use_signal:
                signal.setitimer(signal.ITIMER_REAL, 0)
            st = _stack()
            for q in range(len(st) - 1, -1, -1):
                if st[q] is self.entry:
                    del st[q]
                    break
            if self.use_signal:
                signal.signal(signal.SIGALRM, self.previous if self.previous is not None else signal.SIG_DFL)
                if st:
                    _arm()
        finally:
            _local.leaving -= 1
            self.entry = None
