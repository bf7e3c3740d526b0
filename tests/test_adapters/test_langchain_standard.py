"""langchain-tests' standard tool tests on ``workbench.adapters.to_langchain``.

``ToolsUnitTests`` (construction, name, input schema matching the example call) and
``ToolsIntegrationTests`` (``invoke``/``ainvoke`` with and without a ``ToolCall``, the ToolMessage
content types) — the latter needs no network: the tool runs locally, through a workbench executor.
"""

from __future__ import annotations

import pytest
from langchain_tests.integration_tests import ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from workbench import tool
from workbench.adapters import to_langchain
from workbench.log import ExecutionLog

pytestmark = pytest.mark.anyio  # the integration suite's async tests (anyio runs only those)

LOG = ExecutionLog()


@tool
def convert_temperature(celsius: float, unit: str = "fahrenheit") -> dict:
    """Convert a temperature in degrees Celsius.

    Args:
        celsius: the temperature in degrees Celsius
        unit: "fahrenheit" or "kelvin"
    """
    value = celsius * 9 / 5 + 32 if unit == "fahrenheit" else celsius + 273.15
    return {"value": round(value, 2), "unit": unit}


EXPORTED = to_langchain(convert_temperature, log=LOG)


class TestWorkbenchToolUnit(ToolsUnitTests):
    @property
    def tool_constructor(self):
        return EXPORTED

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"celsius": 100.0, "unit": "kelvin"}


class TestWorkbenchToolIntegration(ToolsIntegrationTests):
    @property
    def tool_constructor(self):
        return EXPORTED

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"celsius": 100.0, "unit": "kelvin"}


def test_the_standard_calls_ran_through_the_workbench_executor():
    # runs after the suites above (file order): each invoke/ainvoke left a success row
    rows = LOG.rows()
    assert rows and {r["tool_name"] for r in rows} == {"convert_temperature"}
    assert {r["status"] for r in rows} == {"success"}
