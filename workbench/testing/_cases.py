"""``ToolCase``: one saved call of a tool and what its result must satisfy.

Expectations (``expect``):

* ``exact`` — the result value equals ``value`` (JSON comparison);
* ``subset`` — ``value`` is contained in the result value (objects may have more keys);
* ``schema`` — the call succeeds and its value validates against the tool's ``returns`` schema
  (the default for cases of synthetic, spec-only tools, whose values are generated);
* ``error`` — the call fails; ``error_type`` (e.g. ``"ZeroDivisionError"``, ``"ToolInputError"``)
  and ``message`` (a substring of the error message) narrow it down when given.

``ignore`` lists JSON pointers left out of ``exact``/``subset`` comparisons (timestamps, ids).

The *result value* of a call is its ``{"json": ...}`` content block when it has one, else its text
blocks joined by newlines, else the content blocks themselves (see :func:`result_value`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Optional, Sequence

from workbench.testing._json_diff import validate_pointer

__all__ = ["ToolCase", "EXPECTATIONS", "result_value", "content_value", "cases_from_log", "CaseFileError"]

EXPECTATIONS = ("exact", "subset", "schema", "error")
_ID = re.compile(r"^[A-Za-z0-9_.-][A-Za-z0-9_. -]{0,99}$")
#: keys of a case in a case file, in the order they are written
CASE_KEYS = ("id", "title", "tags", "input", "expect", "value", "error_type", "message", "ignore", "seed")


class CaseFileError(ValueError):
    """A case or case file that cannot be used; the message names the file, case and field."""


def content_value(blocks: Any) -> Any:
    """The value of a list of content blocks: the first JSON block's value, else the text blocks
    joined by newlines, else the blocks themselves."""
    if not isinstance(blocks, list):
        return blocks
    for block in blocks:
        if isinstance(block, dict) and "json" in block:
            return block["json"]
    texts = [b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]
    if texts:
        return "\n".join(texts)
    return blocks


def result_value(result: Any) -> Any:
    """The value a case compares: see :func:`content_value` (on a ``ToolResult`` or its dict)."""
    content = result.content if hasattr(result, "content") else (result or {}).get("content")
    return content_value(content)


def _jsonable(value: Any) -> Any:
    from workbench._content import to_jsonable

    return to_jsonable(value)


@dataclass
class ToolCase:
    """A saved call of ``tool`` with ``input`` and the expectation its result must meet.

    Args:
        tool: the tool's name.
        input: the call's input (a JSON object).
        expect: ``"exact"``, ``"subset"``, ``"schema"`` or ``"error"`` (see the module doc).
        value: the expected result value (``exact``/``subset``).
        error_type: the expected ``metadata.error_type`` of an ``error`` case (optional).
        message: a substring the error message must contain (optional, ``error`` cases).
        ignore: JSON pointers left out of the comparison (``*`` matches any key or index).
        id: the case's id, unique in its file (given when the case is saved if absent).
        title: a human title (optional).
        tags: free-form labels (optional).
        seed: the synthetic-value seed for a spec-only tool (the executor's ``seed``; 0 if absent).
    """

    tool: str
    input: dict[str, Any] = field(default_factory=dict)
    expect: str = "exact"
    value: Any = None
    error_type: Optional[str] = None
    message: Optional[str] = None
    ignore: list[str] = field(default_factory=list)
    id: Optional[str] = None
    title: Optional[str] = None
    tags: list[str] = field(default_factory=list)
    seed: Optional[int] = None

    def __post_init__(self) -> None:
        where = f"case {self.id!r} of tool {self.tool!r}" if self.id else f"a case of tool {self.tool!r}"
        if not isinstance(self.tool, str) or not self.tool:
            raise CaseFileError(f"A tool case needs a tool name (a non-empty string), got {self.tool!r}")
        if self.expect not in EXPECTATIONS:
            raise CaseFileError(f"{where}: expect must be one of {', '.join(EXPECTATIONS)}, got {self.expect!r}")
        if not isinstance(self.input, dict):
            raise CaseFileError(f"{where}: input must be a JSON object, got {type(self.input).__name__}")
        if self.id is not None and (not isinstance(self.id, str) or not _ID.match(self.id) or "::" in self.id):
            raise CaseFileError(
                f"{where}: id must be 1-100 letters, digits, spaces, '_', '.' or '-' "
                f"(and not start with a space), got {self.id!r}"
            )
        for name in ("error_type", "message", "title"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise CaseFileError(f"{where}: {name} must be a string, got {value!r}")
        if self.expect != "error" and (self.error_type is not None or self.message is not None):
            raise CaseFileError(f"{where}: error_type and message belong to expect='error' cases, not {self.expect!r}")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(self.seed, int)):
            raise CaseFileError(f"{where}: seed must be an integer, got {self.seed!r}")
        if isinstance(self.ignore, str) or not isinstance(self.ignore, (list, tuple)):
            raise CaseFileError(f"{where}: ignore must be a list of JSON pointers, got {self.ignore!r}")
        self.ignore = list(self.ignore)
        for pointer in self.ignore:
            try:
                validate_pointer(pointer)
            except ValueError as exc:
                raise CaseFileError(f"{where}: ignore: {exc}") from None
        if (
            isinstance(self.tags, str)
            or not isinstance(self.tags, (list, tuple))
            or not all(isinstance(t, str) for t in self.tags)
        ):
            raise CaseFileError(f"{where}: tags must be a list of strings, got {self.tags!r}")
        self.tags = list(self.tags)

    # -- construction ------------------------------------------------------------------------------
    @classmethod
    def from_result(
        cls,
        tool_use: Mapping[str, Any],
        result: Any,
        *,
        expect: Optional[str] = None,
        ignore: Sequence[str] = (),
        id: Optional[str] = None,
        title: Optional[str] = None,
        tags: Sequence[str] = (),
        seed: Optional[int] = None,
        message: Optional[str] = None,
    ) -> "ToolCase":
        """A case from a call and its result (a ``ToolResult``, its wire dict, or an execution-log row).

        ``expect`` defaults to ``"schema"`` for a synthetic result, ``"error"`` for a failed call
        (with its ``error_type``) and ``"exact"`` otherwise; ``exact``/``subset`` take the result
        value, ``error`` the error type (pass ``message=`` to check the message as well).
        """
        metadata = (result.metadata if hasattr(result, "metadata") else result.get("metadata")) or {}
        status = result.status if hasattr(result, "status") else result.get("status")
        name = (
            tool_use.get("name")
            or metadata.get("tool_name")
            or (result.get("tool_name") if isinstance(result, Mapping) else None)
        )
        if not isinstance(name, str) or not name:
            raise CaseFileError(f"a case needs its tool's name: neither the call nor its result names one ({name!r})")
        if expect is None:
            expect = "error" if status == "error" else "schema" if metadata.get("synthetic") else "exact"
        if expect not in EXPECTATIONS:
            raise CaseFileError(f"expect must be one of {', '.join(EXPECTATIONS)}, got {expect!r}")
        if status == "error" and expect in ("exact", "subset", "schema"):
            raise CaseFileError(
                f"The call of {name!r} failed ({metadata.get('error_type')}: {metadata.get('error')}): "
                f"save it with expect='error', not {expect!r}"
            )
        if status != "error" and expect == "error":
            raise CaseFileError(f"The call of {name!r} succeeded: it cannot be saved with expect='error'")
        value = None
        if expect in ("exact", "subset"):
            content = result.content if hasattr(result, "content") else result.get("content", result.get("output"))
            value = content_value(content)
        error_type = None
        if expect == "error":
            error_type = metadata.get("error_type") or (
                result.get("error_type") if isinstance(result, Mapping) else None
            )
        return cls(
            tool=name,
            input=_jsonable(dict(tool_use.get("input") or {})),
            expect=expect,
            value=value,
            error_type=error_type,
            message=message,
            ignore=list(ignore),
            id=id,
            title=title,
            tags=list(tags),
            seed=seed,
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], tool: Optional[str] = None, *, where: str = "case") -> "ToolCase":
        """A case from its case-file form (``tool`` comes from the file when the case has none)."""
        if not isinstance(data, Mapping):
            raise CaseFileError(f"{where}: a case must be a JSON object, got {type(data).__name__}")
        unknown = [k for k in data if k not in CASE_KEYS and k != "tool"]
        if unknown:
            raise CaseFileError(
                f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; a case has {', '.join(CASE_KEYS)}"
            )
        values = {k: data[k] for k in CASE_KEYS if k in data}
        values.setdefault("input", {})
        try:
            return cls(tool=data.get("tool", tool), **values)
        except CaseFileError as exc:
            raise CaseFileError(f"{where}: {exc}") from None

    def to_dict(self, *, with_tool: bool = False) -> dict[str, Any]:
        """The case-file form: keys in a fixed order, nested objects with sorted keys, empty fields left out."""
        out: dict[str, Any] = {"tool": self.tool} if with_tool else {}
        for key in CASE_KEYS:
            value = getattr(self, key)
            if key == "value" and self.expect not in ("exact", "subset"):
                continue
            if key != "value" and (value is None or value == [] and key in ("tags", "ignore")):
                continue
            out[key] = _sorted_keys(value) if key in ("input", "value") else value
        return out

    # -- helpers -----------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """``tool::id``, the case's pytest id."""
        return f"{self.tool}::{self.id or '?'}"

    def same_call(self, other: "ToolCase") -> bool:
        """Whether both cases check the same call the same way (ids and titles aside)."""
        return self.to_dict(with_tool=True) | {"id": None, "title": None} == other.to_dict(with_tool=True) | {
            "id": None,
            "title": None,
        }

    def with_id(self, case_id: str) -> "ToolCase":
        return replace(self, id=case_id)


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_keys(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted_keys(v) for v in value]
    return value


def cases_from_log(
    log: Any,
    *,
    tool: Optional[str] = None,
    status: Optional[str] = None,
    last: Optional[int] = None,
    ids: Optional[Iterable[int]] = None,
    expect: Optional[str] = None,
    registry: Any = None,
) -> list[ToolCase]:
    """Cases from execution-log rows: ``ids`` (row ids, in that order) or the rows the filters
    select (``tool``, ``status``, ``last``, as ``ExecutionLog.rows``). See :meth:`ToolCase.from_result`
    for the default expectation of each row.

    A row whose secret parameters the log stored as ``***`` (a ``SecretStr``: its tool's spec in
    ``registry``, default the default registry; any ``***`` argument when the tool is not there) is
    refused with a :class:`CaseFileError`: a case would hold the mask, not the secret."""
    if ids is not None:
        rows = [log.get(row_id) for row_id in ids]
        rows = [
            r for r in rows if (tool is None or r["tool_name"] == tool) and (status is None or r["status"] == status)
        ]
    else:
        rows = log.rows(tool=tool, status=status, last=last)
    cases = []
    for row in rows:
        if not row["tool_name"]:
            raise CaseFileError(f"Log row {row['id']} does not record which tool it called: it cannot become a case")
        tool_use = {"name": row["tool_name"], "input": row["input"] if isinstance(row["input"], dict) else {}}
        _refuse_masked(row, tool_use["input"], registry)
        result = {
            "status": row["status"],
            "content": row["output"],
            "metadata": row["metadata"] or {},
            "error_type": row["error_type"],
            "tool_name": row["tool_name"],
        }
        cases.append(ToolCase.from_result(tool_use, result, expect=expect))
    return cases


def _refuse_masked(row: Mapping[str, Any], tool_input: dict, registry: Any) -> None:
    from workbench.registry import as_tool_registry, default_registry  # the registry sits above the cases
    from workbench.secrets import MASK, masked_parameters

    try:
        names: Iterable[str] = (
            as_tool_registry(registry if registry is not None else default_registry())
            .get_tool(row["tool_name"])
            .spec.secret_parameters
        )
    except Exception:  # noqa: BLE001 - a tool no longer registered: any masked argument may be a secret
        names = [name for name, value in tool_input.items() if value == MASK]
    missing = masked_parameters(tool_input, names)
    if missing:
        raise CaseFileError(
            f"Log row {row['id']} of tool '{row['tool_name']}' cannot become a case: its secret "
            f"parameter(s) {', '.join(missing)} were not stored in the log (they show as {MASK}). "
            f"Leave the row out (ids=[...]) or write the case with ToolCase(...) and a test "
            f"secret of your own."
        )
