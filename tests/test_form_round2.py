"""Notebook round 2 (#22), kernel side: what the form shows belongs to what was asked."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from workbench import tool
from workbench.jupyter import ToolForm


class Address(BaseModel):
    street: str
    zip: int


@tool
def person(age: Annotated[int, Field(ge=0, le=150)], count: int, name: str = "x", address: Address | None = None) -> str:
    """A person."""
    return f"{name} {age} {count}"


def test_every_invalid_field_is_reported_at_once():
    form = ToolForm(person)
    form.fields["age"].input.value = "200"
    form.fields["count"].input.value = "abc"
    result = form.run()
    assert result.status == "error"
    assert set(form.errors) == {"age", "count"}, form.errors
    assert "150" in form.errors["age"] and "abc" in form.errors["count"]
    assert "2 field errors" in form.summary.value


def test_a_field_that_does_not_parse_is_not_also_reported_missing():
    form = ToolForm(person)
    form.fields["count"].input.value = "abc"
    form.run()
    assert set(form.errors) == {"age", "count"}  # age: missing (required); count: not a number, once
    assert "missing" not in form.errors["count"].lower()
