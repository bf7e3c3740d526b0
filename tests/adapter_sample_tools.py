"""One tool of each framework workbench.adapters converts (CrewAI's are in tests/test_adapters/test_crewai_env.py,
which runs in its own environment): served by ``python -m workbench.mcp serve tests.adapter_sample_tools``
and used by tests/test_adapters/test_adapters.py."""

from __future__ import annotations

from typing import Optional

from agents import function_tool
from langchain_core.tools import tool as lc_tool
from llama_index.core.tools import FunctionTool
from pydantic_ai import RunContext, Tool
from smolagents import tool as sm_tool


@lc_tool
def lc_multiply(a: int, b: int) -> int:
    """Multiply two integers.

    Args:
        a: the first factor
        b: the second factor
    """
    return a * b


@function_tool
def oa_subtract(a: int, b: int) -> int:
    """Subtract b from a.

    Args:
        a: the number to subtract from
        b: the number to subtract
    """
    return a - b


def _pa_power(ctx: RunContext[None], base: int, exponent: int = 2) -> int:
    """Raise base to a power.

    Args:
        base: the base
        exponent: the exponent
    """
    return base**exponent


pa_power = Tool(_pa_power, name="pa_power")


@sm_tool
def sm_repeat(text: str, times: Optional[int] = None) -> str:
    """Repeat a text.

    Args:
        text: the text to repeat
        times: how many times (default once)
    """
    return text * (times or 1)


def _li_pad(text: str, width: int) -> str:
    """Pad a text with dots to a width."""
    return text.ljust(width, ".")


li_pad = FunctionTool.from_defaults(fn=_li_pad, name="li_pad")
