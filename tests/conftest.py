"""Shared test configuration: hypothesis profiles and a clean mpmath context per test."""

from __future__ import annotations

import os

import mpmath
import pytest
from hypothesis import HealthCheck, settings

# "dev" keeps `make test` quick; "ci" (HYPOTHESIS_PROFILE=ci, used by .ci/run) runs at least
# 200 examples per property.
settings.register_profile("dev", max_examples=40, deadline=None)
settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# Under pytest-xdist (`make test`: one worker per core) a worker that compiles with
# torch.compile compiles in its own process: inductor's default pool of compile processes
# (one per core, each importing torch) would start in every worker and fight the other
# workers for the same cores. The generated kernels are the same; set before torch loads.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")

#: The terminal's size as the process that started the run sees it. An xdist worker's standard
#: streams are pipes, and GNU readline (imported by pytest's debugger) then sets COLUMNS=80
#: and LINES=24 in the worker's environment: output that wraps to the terminal (pe-audit's
#: table, pe-derive's proofs) would wrap otherwise than in a one-process run.
_TERMINAL = ("COLUMNS", "LINES")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # noqa: ANN001 - pytest-xdist's hook, in the controller
    node.workerinput["pe_terminal"] = {k: os.environ.get(k) for k in _TERMINAL}


def pytest_configure(config: pytest.Config) -> None:
    """In an xdist worker: the controller's COLUMNS and LINES (or none), see :data:`_TERMINAL`."""
    sent = getattr(config, "workerinput", {}).get("pe_terminal")
    for key, value in (sent or {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip tests marked ``slow`` unless PE_SLOW=1 (``make test-slow``)."""
    if os.environ.get("PE_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: run with `make test-slow` (PE_SLOW=1)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _reset_mpmath():
    """mpmath precision is global state: every test starts from the default 15 digits."""
    mpmath.mp.dps = 15
    yield
    mpmath.mp.dps = 15
