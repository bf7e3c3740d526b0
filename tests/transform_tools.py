"""Module-level tools for tests/test_core/test_transforms.py (a process pool imports them by reference)."""

from __future__ import annotations

import enum

from workbench import Arg, derive, tool


class Speed(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


@tool
def search(q: str, limit: int = 5, api_key: str = "", speed: Speed = Speed.SLOW) -> dict:
    """Search the catalogue.

    Args:
        q: The query text.
        limit: How many hits, at most.
        api_key: The catalogue's key.
        speed: How hard to look.
    """
    return {"q": q, "limit": limit, "api_key": api_key, "speed": speed.value}


#: the derived tool a process pool runs
find = derive(
    search,
    name="find",
    description="Find items in the catalogue.",
    args={"q": Arg(name="query", description="What to look for."), "api_key": Arg(hide=True, default="k-1")},
)
