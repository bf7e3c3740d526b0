import os
from importlib import metadata

import pytest
from hypothesis import settings

# CI runs the property tests and fuzzers derandomized (the same examples every run, so a red CI is a
# regression, never a lucky draw); locally they explore new examples each run.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

from workbench import registry as registry_module  # noqa: E402 - after the hypothesis profile is chosen


def pytest_report_header(config):
    """Record every resolved package version in the log (what `pip freeze` would print), so a
    failure on a fresh machine can be traced to the dependency version that changed."""
    versions = sorted(
        {f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"]}, key=str.lower
    )
    return ["resolved packages: " + " ".join(versions)]


@pytest.fixture
def fresh_default_registry(monkeypatch):
    """An empty default registry for tests that use the class decorator."""
    monkeypatch.setattr(registry_module, "_DEFAULT", None)
    return registry_module.default_registry()
