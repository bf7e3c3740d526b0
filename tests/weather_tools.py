"""The weather tool and cases the evaluation tests share (one definition, many test files)."""

from __future__ import annotations

from workbench import tool
from workbench.evals import EvalCase


@tool
def get_weather(city: str, units: str = "metric") -> dict:
    """The weather in a city.

    Args:
        city: The city.
        units: metric or imperial.
    """
    return {"city": city, "temperature": 21}


#: a tools module's source, for tests that write a suite beside its tools (the pytest plugin, the CLI)
TOOLS_MODULE = '''
from workbench import tool

@tool
def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city}
'''

#: two cases a model answering "Paris" for both gets half right
PARIS_AND_ROME = [
    EvalCase(
        "paris", prompt="Weather in Paris?", expect_calls=[{"name": "get_weather", "arguments": {"city": ["Paris"]}}]
    ),
    EvalCase(
        "rome", prompt="Weather in Rome?", expect_calls=[{"name": "get_weather", "arguments": {"city": ["Rome"]}}]
    ),
]
