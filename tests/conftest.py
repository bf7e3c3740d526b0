import pytest

from workbench import registry as registry_module


@pytest.fixture
def fresh_default_registry(monkeypatch):
    """An empty default registry for tests that use the class decorator."""
    monkeypatch.setattr(registry_module, "_DEFAULT", None)
    return registry_module.default_registry()
