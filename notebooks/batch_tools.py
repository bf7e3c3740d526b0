"""Example tool for the batch tutorial (notebooks/07_batch_evaluation.ipynb).

It lives in a module (not a notebook cell) so that Dask workers import it by reference.
"""

from __future__ import annotations

from workbench import tool


@tool
def split_bill(total_cents: int, people: int, tip_percent: int = 0) -> dict:
    """Split a bill evenly: each person's share in cents, and the cents left over.

    Args:
        total_cents: the bill, in cents
        people: how many people share it
        tip_percent: a tip added to the bill, in percent
    """
    if total_cents < 0:
        raise ValueError(f"total_cents must be 0 or more, got {total_cents}")
    total = total_cents + total_cents * tip_percent // 100
    share, left_over = divmod(total, people)  # people=0 -> ZeroDivisionError
    return {"share": share, "left_over": left_over}
