from importlib import metadata

import pytest

from workbench import registry as registry_module


def pytest_report_header(config):
    """Record every resolved package version in the log (what `pip freeze` would print), so a
    failure on a fresh machine can be traced to the dependency version that changed."""
    versions = sorted({f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"]},
                      key=str.lower)
    return ["resolved packages: " + " ".join(versions)]


@pytest.fixture
def fresh_default_registry(monkeypatch):
    """An empty default registry for tests that use the class decorator."""
    monkeypatch.setattr(registry_module, "_DEFAULT", None)
    return registry_module.default_registry()
