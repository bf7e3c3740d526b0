"""Module-level tools used by the ref/reload tests."""

from workbench import tool


@tool
def search_database(query: str, limit: int = 10) -> str:
    """Search the customer database.

    Args:
        query: Search query string
        limit: Maximum number of results to return
    """
    return f"{query}:{limit}"


@tool
def calculate(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
