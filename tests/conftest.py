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
