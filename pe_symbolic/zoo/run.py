"""Running the work: each task in a process of its own, with a time and a memory limit; locally or on Ray.

A task is one group of configs (:mod:`pe_symbolic.zoo.group`): its RoPE inputs, its dtype
and the sweep's settings. Each runs in a fresh child process (``forkserver``: forked from a
server that imported the package once, so a child starts in milliseconds), which

* sets ``RLIMIT_AS`` to the memory limit before it computes (an allocation past it raises
  ``MemoryError`` there: an ``out of memory`` result, never the machine's swap);
* sends its result back through a pipe and exits.

The parent waits for at most ``jobs`` children at once; a child still running at its
deadline is killed (``timeout``), one that dies without a result (a signal, a native crash)
is a ``crashed`` result with its exit code. Nothing a task does stops the others.

:func:`run_local` is the process pool; :func:`run_ray` sends the same tasks to Ray (each Ray
task runs :func:`~pe_symbolic.zoo.run.run_isolated`, the same child process with the same limits), so a result
does not depend on where it was computed.

Each result is ``(task id, outcome, payload)``: ``("ok", card dict)``, ``("crashed", why)``,
``("timeout", why)`` or ``("out of memory", why)``.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import multiprocessing.connection as mpc
import os
import sys
import time
import types
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

__all__ = ["Result", "Task", "run_isolated", "run_local", "run_ray"]

Task = tuple[str, Mapping[str, Any]]
"""(task id, the task: what the work function takes)."""
Result = tuple[str, str, Any]
"""(task id, outcome, payload)."""

#: Modules the forkserver imports once, so a child starts with them loaded (and, ``_warm``, with the
#: caches of one tiny card's proofs filled).
PRELOAD = ["pe_symbolic.zoo.card", "pe_symbolic.zoo._warm"]


def _context() -> Any:
    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        return ctx
    return mp.get_context("spawn")  # pragma: no cover - Windows


@contextlib.contextmanager
def _without_main() -> Iterator[None]:
    """Start children without the caller's ``__main__``: the forkserver (and each child it forks) would
    otherwise run the calling script again before the task (multiprocessing's "safe importing of
    main" rule), so a script that calls :func:`pe_symbolic.cards` at its top level would start the
    sweep again in every child. The work function and the task are pickled by reference to
    importable modules, so nothing of ``__main__`` is needed there."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def _limit_memory(memory_mb: int | None) -> None:
    if memory_mb is None:
        return
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows: no RLIMIT_AS
        return
    limit = int(memory_mb) * 2**20
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _child(conn: Any, work: Callable[[Mapping[str, Any]], Any], task: Mapping[str, Any],
           memory_mb: int | None) -> None:
    """The child: limit the memory, compute, send ``(outcome, payload)``."""
    try:
        _limit_memory(memory_mb)
        out: tuple[str, Any] = ("ok", work(task))
    except MemoryError:
        out = ("out of memory", f"over the memory limit of {memory_mb} MiB (RLIMIT_AS)")
    except BaseException as exc:  # noqa: BLE001 - whatever it is, the parent gets a card saying so
        out = ("crashed", f"{type(exc).__name__}: {exc}")
    try:
        conn.send(out)
    except MemoryError:
        conn.send(("out of memory", f"over the memory limit of {memory_mb} MiB (RLIMIT_AS), sending the result"))
    finally:
        conn.close()


def _died(code: int | None) -> str:
    if code is not None and code < 0:
        import signal

        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the worker process died ({name}) without a result"
    return f"the worker process exited with status {code} without a result"


def run_local(tasks: Sequence[Task], work: Callable[[Mapping[str, Any]], Any], *, jobs: int = 1,
              timeout: float | None = None, memory_mb: int | None = None) -> Iterator[Result]:
    """Each task in a child process of its own, at most ``jobs`` at once; results as they come."""
    ctx = _context()
    pending = deque(tasks)
    running: dict[str, tuple[Any, Any, float]] = {}
    try:
        while pending or running:
            while pending and len(running) < jobs:
                tid, task = pending.popleft()
                recv, send = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(send, work, task, memory_mb), daemon=True)
                with _without_main():
                    proc.start()
                send.close()
                running[tid] = (proc, recv, time.monotonic() + timeout if timeout else float("inf"))
            now = time.monotonic()
            wait = min(d for _, _, d in running.values()) - now
            handles = [r for _, r, _ in running.values()] + [p.sentinel for p, _, _ in running.values()]
            mpc.wait(handles, timeout=None if wait == float("inf") else max(wait, 0.0))
            for tid in list(running):
                proc, recv, deadline = running[tid]
                got: tuple[str, Any] | None = None
                if recv.poll():
                    try:
                        got = recv.recv()
                    except (EOFError, OSError):
                        got = None
                    if got is None:
                        proc.join(5)
                        got = ("crashed", _died(proc.exitcode))
                    proc.join(5)
                    if proc.is_alive():  # pragma: no cover - sent, then hung on exit
                        proc.kill()
                elif not proc.is_alive():
                    got = ("crashed", _died(proc.exitcode))
                elif time.monotonic() >= deadline:
                    proc.kill()
                    proc.join(5)
                    got = ("timeout", f"over the time limit of {timeout:g} s (the worker was stopped)")
                if got is not None:
                    recv.close()
                    del running[tid]
                    yield tid, got[0], got[1]
    finally:
        for proc, recv, _ in running.values():  # interrupted (KeyboardInterrupt, a closed generator)
            proc.kill()
            proc.join(5)
            recv.close()


def run_isolated(task: Mapping[str, Any], work: Callable[[Mapping[str, Any]], Any], *,
                 timeout: float | None = None, memory_mb: int | None = None) -> tuple[str, Any]:
    """One task in a child process with the limits: ``(outcome, payload)``."""
    for _, outcome, payload in run_local([("task", task)], work, jobs=1, timeout=timeout, memory_mb=memory_mb):
        return outcome, payload
    raise AssertionError("unreachable")  # pragma: no cover


def _ray_task(task: Mapping[str, Any], work: Callable[[Mapping[str, Any]], Any], timeout: float | None,
              memory_mb: int | None) -> tuple[str, Any]:
    return run_isolated(task, work, timeout=timeout, memory_mb=memory_mb)


def run_ray(tasks: Sequence[Task], work: Callable[[Mapping[str, Any]], Any], *, address: str | None = None,
            timeout: float | None = None, memory_mb: int | None = None,
            init: Mapping[str, Any] | None = None) -> Iterator[Result]:
    """The tasks as Ray tasks (one CPU each; Ray schedules them over the cluster), each running
    :func:`~pe_symbolic.zoo.run.run_isolated` with the same limits; results as they come.

    ``address``: the cluster (``"auto"``, ``"ray://host:10001"``, ...); ``None`` or ``""``:
    Ray's own choice (``RAY_ADDRESS``, else a local instance started here). A Ray already
    initialised in this process is used as it is.
    """
    try:
        import ray
    except ImportError:
        raise ImportError("--ray needs Ray, which is not installed: pip install 'pe_symbolic[ray]' (or leave out "
                          "--ray: a local process pool, --jobs N)") from None
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "ERROR", "log_to_driver": False}
        kwargs.update(init or {})
        ray.init(address=address or None, **kwargs)
    remote = ray.remote(num_cpus=1, max_retries=0)(_ray_task)
    refs = {remote.remote(task, work, timeout, memory_mb): tid for tid, task in tasks}
    while refs:
        done, _ = ray.wait(list(refs), num_returns=1)
        for ref in done:
            tid = refs.pop(ref)
            try:
                outcome, payload = ray.get(ref)
            except Exception as exc:  # noqa: BLE001 - a Ray worker lost, a task error: a card says so
                outcome, payload = "crashed", f"the Ray task failed: {type(exc).__name__}: {exc}"
            yield tid, outcome, payload


def default_jobs() -> int:
    """The CPUs this process may use (``os.sched_getaffinity`` where there is one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)
