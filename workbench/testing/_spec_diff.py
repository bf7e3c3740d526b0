"""``spec_diff(old, new)``: what changed between two versions of tools, breaking or compatible for callers.

A caller (a model, an agent, a client) *sends* inputs that must validate against ``parameters``
and *receives* values shaped by ``returns``. A change is **breaking** when a call or a result that
was fine before may not be any more:

* inputs — tool removed, parameter removed or renamed, new required parameter, parameter made
  required, type narrowed (a type or a ``null``/union variant no longer accepted), enum value
  removed, constraint tightened (bounds, lengths, ``pattern``, ``format``, ``multipleOf``,
  ``uniqueItems``, extra keys refused), permission made stricter;
* results — the return type changed, a property callers read removed or made optional, a
  constraint loosened or an enum value added (callers may receive values they never saw).

Everything else is **compatible**: optional parameter added, description or title changed, default
changed, constraint loosened or type widened on inputs, tool added. A change the comparison cannot
classify (e.g. a ``not`` or ``if``/``then`` rewritten) is reported as breaking, saying so.

Each change has the tool, a JSON pointer into the tool's spec (through ``$ref``s, the pointer
follows the logical path: ``/parameters/properties/item/properties/qty/minimum``) and a one-line
explanation. A ``$ref`` that cannot be followed (see :mod:`workbench._refs`) is a ``ToolSpecError``.
Pure dict work: no jsonschema, no hypothesis.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from workbench._content import canonical_json as _canonical
from workbench._errors import ToolSpecError
from workbench._refs import RefError, follow
from workbench.testing._json_diff import format_pointer

__all__ = ["SpecChange", "SpecDiff", "spec_diff", "specs_of"]

_ANNOTATIONS = ("title", "description", "examples", "deprecated", "readOnly", "writeOnly", "$comment")
_LOWER = ("minLength", "minItems", "minProperties", "minContains")
_UPPER = ("maxLength", "maxItems", "maxProperties", "maxContains")
_HANDLED = frozenset(
    {
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "anyOf",
        "oneOf",
        "allOf",
        "minimum",
        "exclusiveMinimum",
        "maximum",
        "exclusiveMaximum",
        "pattern",
        "format",
        "multipleOf",
        "uniqueItems",
        "default",
        "$defs",
        "definitions",
        "$schema",
        "$id",
        *_ANNOTATIONS,
        *_LOWER,
        *_UPPER,
    }
)
_PERMISSION_RANK = {"always_allow": 0, "ask_user": 1, "always_deny": 2}
_NUMERIC = ("integer", "number")


@dataclass(frozen=True)
class SpecChange:
    """One change: ``tool``, ``pointer`` (JSON pointer into the tool's spec), ``kind`` (e.g.
    ``parameter-removed``), ``breaking`` and a one-line ``message``."""

    tool: str
    pointer: str
    kind: str
    breaking: bool
    message: str

    @property
    def severity(self) -> str:
        return "breaking" if self.breaking else "compatible"

    def line(self) -> str:
        return f"{'BREAKING' if self.breaking else 'compatible':<10} {self.tool}{self.pointer}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "pointer": self.pointer,
            "kind": self.kind,
            "severity": self.severity,
            "message": self.message,
        }


@dataclass
class SpecDiff:
    """The changes between two versions (breaking ones first)."""

    changes: list[SpecChange] = field(default_factory=list)

    @property
    def breaking(self) -> list[SpecChange]:
        return [c for c in self.changes if c.breaking]

    @property
    def compatible(self) -> list[SpecChange]:
        return [c for c in self.changes if not c.breaking]

    @property
    def is_breaking(self) -> bool:
        return any(c.breaking for c in self.changes)

    def __bool__(self) -> bool:
        return bool(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.changes)

    def summary(self) -> str:
        if not self.changes:
            return "no spec changes"
        return f"{len(self.breaking)} breaking, {len(self.compatible)} compatible change(s)"

    def text(self) -> str:
        """The summary line, then one line per change."""
        return "\n".join([self.summary()] + [c.line() for c in self.changes])

    __str__ = text

    def __repr__(self) -> str:
        return f"<SpecDiff: {self.summary()}>"

    def to_dataframe(self) -> Any:
        """One row per change: tool, severity, pointer, kind, message (pandas, imported here)."""
        import pandas as pd

        return pd.DataFrame(
            [c.to_dict() for c in self.changes], columns=["tool", "severity", "pointer", "kind", "message"]
        )

    def _repr_html_(self) -> str:
        from workbench.testing._report_html import spec_diff_html

        return spec_diff_html(self)


# -- inputs -----------------------------------------------------------------------------------------
def _spec_json(spec: Any) -> dict[str, Any]:
    from workbench.spec import ToolSpec

    data = ToolSpec.coerce(spec).to_json()
    data.pop("inputs", None)
    return data


def specs_of(source: Any) -> dict[str, dict[str, Any]]:
    """``{tool name: spec JSON}`` from a registry, tool, ``ToolSpec``, spec dict, ``{"tools": [...]}``
    spec-dict document, a ``.json`` file holding either, or a list of any of these."""
    from workbench.registry import ToolRegistry
    from workbench.spec import ToolSpec
    from workbench.tools import BaseTool

    if isinstance(source, ToolRegistry):
        return {tool.tool_name: _spec_json(tool.spec) for tool in source}
    if isinstance(source, BaseTool):
        return {source.tool_name: _spec_json(source.spec)}
    if isinstance(source, ToolSpec):
        return {source.name: _spec_json(source)}
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise ValueError(
                f"spec_diff: {str(path)!r} is not a file (expected a spec dict .json file, a registry, "
                "a tool or a spec)"
            )
        return specs_of(json.loads(path.read_text(encoding="utf-8")))
    if isinstance(source, dict) and isinstance(source.get("tools"), list):
        out: dict[str, dict[str, Any]] = {}
        for index, entry in enumerate(source["tools"]):
            if not isinstance(entry, dict):
                raise ValueError(f"spec_diff: tools[{index}] must be an object, got {type(entry).__name__}")
            data = entry.get("spec")
            if not isinstance(data, dict):
                continue  # a ref-only entry: its spec is not in the document
            name: Any = entry.get("name") or data.get("name")
            out[name] = _spec_json({**{k: v for k, v in data.items() if k != "inputs"}, "name": name})
        return out
    if isinstance(source, dict):
        data = _spec_json({k: v for k, v in source.items() if k != "inputs"})
        return {data["name"]: data}
    if isinstance(source, (list, tuple)):
        merged: dict[str, dict[str, Any]] = {}
        for item in source:
            merged.update(specs_of(item))
        return merged
    raise TypeError(
        f"spec_diff compares registries, tools, specs, spec dicts or .json files, got {type(source).__name__}"
    )


def spec_diff(old: Any, new: Any) -> SpecDiff:
    """Compare two versions of tools (each a registry, tool, ``ToolSpec``, spec dict, spec-dict
    document ``{"tools": [...]}``, ``.json`` file, or a list of those); see the module doc."""
    before, after = specs_of(old), specs_of(new)
    changes: list[SpecChange] = []
    removed = [n for n in before if n not in after]
    added = [n for n in after if n not in before]
    for name in list(removed):
        twin = next(
            (a for a in added if _canonical(_interface(after[a])) == _canonical(_interface(before[name]))), None
        )
        if twin is not None:
            changes.append(
                SpecChange(
                    name,
                    "",
                    "tool-renamed",
                    True,
                    f"tool renamed to '{twin}': calls by the old name fail (tool not found)",
                )
            )
            removed.remove(name)
            added.remove(twin)
    changes += [
        SpecChange(n, "", "tool-removed", True, "tool removed: calls to it fail (tool not found)") for n in removed
    ]
    changes += [SpecChange(n, "", "tool-added", False, "tool added") for n in added]
    for name in before:
        if name in after:
            changes += _ToolComparer(name, before[name], after[name]).run()
    changes.sort(key=lambda c: not c.breaking)  # stable: breaking first, each group in discovery order
    return SpecDiff(changes)


def _interface(spec: dict[str, Any]) -> Any:
    return [_strip(spec.get("parameters")), _strip(spec.get("returns"))]


def _strip(schema: Any) -> Any:
    """``schema`` without annotations (descriptions, titles, defaults), for equality checks."""
    if isinstance(schema, dict):
        return {k: _strip(v) for k, v in schema.items() if k not in _ANNOTATIONS and k != "default"}
    if isinstance(schema, list):
        return [_strip(v) for v in schema]
    return schema


def _show(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- per tool ---------------------------------------------------------------------------------------
class _ToolComparer:
    def __init__(self, tool: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        self.tool = tool
        self.old, self.new = old, new
        self.changes: list[SpecChange] = []
        self.seen: set[tuple[str, str, str]] = set()

    def add(self, path: list, kind: str, breaking: bool, message: str) -> None:
        self.changes.append(SpecChange(self.tool, format_pointer(path), kind, breaking, message))

    def run(self) -> list[SpecChange]:
        for key in ("description", "when_to_use"):
            if (self.old.get(key) or "") != (self.new.get(key) or ""):
                self.add([key], f"{key.replace('_', '-')}-changed", False, f"{key.replace('_', ' ')} changed")
        old_perm, new_perm = self.old.get("permission", "always_allow"), self.new.get("permission", "always_allow")
        if old_perm != new_perm:
            stricter = _PERMISSION_RANK.get(new_perm, 0) > _PERMISSION_RANK.get(old_perm, 0)
            self.add(
                ["permission"],
                "permission-changed",
                stricter,
                f"permission {old_perm} → {new_perm}"
                + (": calls that ran before now need approval or are refused" if stricter else ""),
            )
        for key in ("timeout", "idempotent", "long_running", "supports_async"):
            if self.old.get(key) != self.new.get(key):
                self.add([key], "runtime-changed", False, f"{key} {self.old.get(key)} → {self.new.get(key)}")
        old_params = self.old.get("parameters") or {"type": "object", "properties": {}}
        new_params = self.new.get("parameters") or {"type": "object", "properties": {}}
        _Schemas(self, old_params, new_params, "in").compare(old_params, new_params, ["parameters"], top=True)
        old_ret, new_ret = self.old.get("returns") or {}, self.new.get("returns") or {}
        _Schemas(self, old_ret, new_ret, "out").compare(old_ret, new_ret, ["returns"])
        return self.changes


class _Schemas:
    """Compares two schemas of one tool. ``direction``: ``in`` (what callers send: narrowing breaks)
    or ``out`` (what callers receive: widening breaks, and any change of type)."""

    def __init__(self, owner: _ToolComparer, old_root: Any, new_root: Any, direction: str) -> None:
        self.owner = owner
        self.roots = (old_root, new_root)
        self.direction = direction

    # -- helpers ---------------------------------------------------------------------------------
    def add(self, path: list, kind: str, breaking: bool, message: str) -> None:
        self.owner.add(path, kind, breaking, message)

    def narrowed(self, path: list, kind: str, message: str) -> None:
        """The set of allowed values shrank: breaking for inputs, compatible for results."""
        self.add(
            path,
            kind,
            self.direction == "in",
            message + (": calls that were valid may now be refused" if self.direction == "in" else ""),
        )

    def widened(self, path: list, kind: str, message: str) -> None:
        self.add(
            path,
            kind,
            self.direction == "out",
            message + (": callers may receive values they did not get before" if self.direction == "out" else ""),
        )

    def resolve(self, schema: Any, root: Any) -> tuple[Any, Optional[str]]:
        """A ``$ref`` chain followed (siblings merged over the target), with the last ref it came through;
        a ref that cannot be followed is a ``ToolSpecError`` naming the tool, the version and the ref."""
        try:
            return follow(schema, root)
        except RefError as exc:
            which = "old" if root is self.roots[0] else "new"
            part = "parameters" if self.direction == "in" else "returns"
            raise ToolSpecError(
                f"Tool '{self.owner.tool}': the {which} {part} schema cannot be compared: {exc}"
            ) from None

    # -- the walk --------------------------------------------------------------------------------
    def compare(self, old: Any, new: Any, path: list, top: bool = False) -> None:
        old, old_ref = self.resolve(old, self.roots[0])
        new, new_ref = self.resolve(new, self.roots[1])
        if old_ref is not None or new_ref is not None:  # a recursive model: compare each pair of refs once
            key = (self.direction, str(old_ref), str(new_ref))  # a shared definition is reported once
            if key in self.owner.seen:
                return
            self.owner.seen.add(key)
        if _canonical(old) == _canonical(new):
            return
        old_d = old if isinstance(old, dict) else ({} if old is True else {"not": {}})
        new_d = new if isinstance(new, dict) else ({} if new is True else {"not": {}})
        self.annotations(old_d, new_d, path)
        if self.branches(old_d, new_d, path):
            return
        if not self.types(old_d, new_d, path):
            return  # a different type altogether: its keywords cannot be compared one by one
        self.enum(old_d, new_d, path)
        self.bounds(old_d, new_d, path)
        self.text_rules(old_d, new_d, path)
        self.objects(old_d, new_d, path, top)
        self.arrays(old_d, new_d, path)
        self.others(old_d, new_d, path)

    def annotations(self, old: dict, new: dict, path: list) -> None:
        for key in ("description", "title"):
            if old.get(key) != new.get(key) and (key in old or key in new):
                self.add(path + [key], f"{key}-changed", False, f"{key} changed")
        if old.get("default", _MISSING) != new.get("default", _MISSING):
            before = _show(old["default"]) if "default" in old else "none"
            after = _show(new["default"]) if "default" in new else "none"
            self.add(
                path + ["default"],
                "default-changed",
                False,
                f"default {before} → {after} (callers that omit it get the new default)",
            )

    def branches(self, old: dict, new: dict, path: list) -> bool:
        """anyOf/oneOf (Optional, unions): pair the variants by type; True when nothing is left to compare."""
        key_old = "anyOf" if "anyOf" in old else "oneOf" if "oneOf" in old else None
        key_new = "anyOf" if "anyOf" in new else "oneOf" if "oneOf" in new else None
        if key_old is None and key_new is None:
            return False
        skip = (*_ANNOTATIONS, "default")
        old_branches = old[key_old] if key_old else [_without(old, skip)]
        new_branches = new[key_new] if key_new else [_without(new, skip)]
        label = "the parameter" if len(path) == 3 and path[0] == "parameters" else "it"
        remaining = list(range(len(new_branches)))
        for index, branch in enumerate(old_branches):
            resolved = self.resolve(branch, self.roots[0])[0]
            match = self.match_branch(resolved, [(j, new_branches[j]) for j in remaining])
            if match is None:
                if self.direction == "out":
                    self.add(
                        path + [key_old, index] if key_old else path,
                        "return-type-changed",
                        True,
                        f"return type changed: {_type_text(resolved)} is no longer returned",
                    )
                else:
                    self.narrowed(path, "type-narrowed", f"{label} no longer accepts {_type_text(resolved)}")
                continue
            remaining.remove(match)
            self.compare(branch, new_branches[match], path + [key_new, match] if key_new else path)
        for j in remaining:
            resolved = self.resolve(new_branches[j], self.roots[1])[0]
            where = path + [key_new, j] if key_new else path
            if self.direction == "out":
                self.add(
                    where, "return-type-changed", True, f"return type changed: it may now be {_type_text(resolved)}"
                )
            else:
                self.widened(where, "type-widened", f"{label} now also accepts {_type_text(resolved)}")
        if key_old and key_new:  # keywords beside both unions
            rest_old, rest_new = _without(old, (key_old, *skip)), _without(new, (key_new, *skip))
            if _canonical(rest_old) != _canonical(rest_new):
                self.compare(rest_old, rest_new, path)
        return True

    def match_branch(self, old_branch: Any, candidates: list[tuple[int, Any]]) -> Optional[int]:
        resolved = [(j, self.resolve(c, self.roots[1])[0]) for j, c in candidates]
        for j, cand in resolved:  # the same schema first
            if _canonical(_strip(cand)) == _canonical(_strip(old_branch)):
                return j
        old_types = _types(old_branch)
        for j, cand in resolved:  # then the same type (constraints may differ)
            if old_types is not None and _types(cand) == old_types:
                return j
        return None

    def types(self, old: dict, new: dict, path: list) -> bool:
        """Compare ``type``; False when the types have nothing in common (reported as one change)."""
        before, after = _types(old), _types(new)
        if before == after:
            return True
        if self.direction == "out":
            self.add(
                path + ["type"],
                "return-type-changed",
                True,
                f"return type changed from {_type_set_text(before)} to {_type_set_text(after)}",
            )
            return before is None or after is None or bool(before & after)
        lost = _uncovered(before, after)
        gained = _uncovered(after, before)
        if lost:
            self.narrowed(
                path + ["type"],
                "type-narrowed",
                f"type narrowed from {_type_set_text(before)} to {_type_set_text(after)}",
            )
        if gained and not lost:
            self.widened(
                path + ["type"],
                "type-widened",
                f"type widened from {_type_set_text(before)} to {_type_set_text(after)}",
            )
        numeric = set(_NUMERIC)
        return (
            before is None
            or after is None
            or bool(before & after)
            or (bool(before & numeric) and bool(after & numeric))
        )

    def enum(self, old: dict, new: dict, path: list) -> None:
        before, after = _allowed_values(old), _allowed_values(new)
        if before == after:
            return
        key = "enum" if "enum" in new or "enum" in old else "const"
        if after is not None and before is None:
            self.narrowed(path + [key], "enum-added", f"now limited to {_show(after)}")
            return
        if before is not None and after is None:
            self.widened(path + [key], "enum-removed", f"no longer limited to {_show(before)}")
            return
        if before is None or after is None:  # (both None are equal: returned above)
            return
        gone = [v for v in before if not any(_same(v, w) for w in after)]
        new_values = [v for v in after if not any(_same(v, w) for w in before)]
        if gone:
            self.narrowed(
                path + [key],
                "enum-value-removed",
                f"enum value{'s' if len(gone) > 1 else ''} {', '.join(_show(v) for v in gone)} removed",
            )
        if new_values:
            self.widened(
                path + [key],
                "enum-value-added",
                f"enum value{'s' if len(new_values) > 1 else ''} {', '.join(_show(v) for v in new_values)} added",
            )

    def bounds(self, old: dict, new: dict, path: list) -> None:
        for side, keys in (("lower", ("minimum", "exclusiveMinimum")), ("upper", ("maximum", "exclusiveMaximum"))):
            before, after = _bound(old, side), _bound(new, side)
            if before == after:
                continue
            key = next((k for k in keys if k in new), None) or next(k for k in keys if k in old)
            text = f"{_bound_text(before, side)} → {_bound_text(after, side)}"
            if _tighter(after, before, side):
                self.narrowed(path + [key], "constraint-tightened", f"{side} bound tightened ({text})")
            else:
                self.widened(path + [key], "constraint-loosened", f"{side} bound loosened ({text})")
        for key in _LOWER + _UPPER:
            before, after = old.get(key), new.get(key)
            if before == after:
                continue
            lower = key in _LOWER
            if before is None:
                tighter = True
            elif after is None:
                tighter = False
            else:
                tighter = after > before if lower else after < before
            text = f"{key} {_show(before) if before is not None else 'none'} → {_show(after) if after is not None else 'none'}"
            if tighter:
                self.narrowed(path + [key], "constraint-tightened", f"constraint tightened ({text})")
            else:
                self.widened(path + [key], "constraint-loosened", f"constraint loosened ({text})")
        before, after = old.get("multipleOf"), new.get("multipleOf")
        if before != after:
            text = f"multipleOf {_show(before) if before is not None else 'none'} → {_show(after) if after is not None else 'none'}"
            if after is None or (before is not None and _divides(after, before)):
                self.widened(path + ["multipleOf"], "constraint-loosened", f"constraint loosened ({text})")
            else:
                self.narrowed(path + ["multipleOf"], "constraint-tightened", f"constraint tightened ({text})")
        if bool(old.get("uniqueItems")) != bool(new.get("uniqueItems")):
            if new.get("uniqueItems"):
                self.narrowed(path + ["uniqueItems"], "constraint-tightened", "items must now be unique")
            else:
                self.widened(path + ["uniqueItems"], "constraint-loosened", "items no longer need to be unique")

    def text_rules(self, old: dict, new: dict, path: list) -> None:
        for key in ("pattern", "format"):
            before, after = old.get(key), new.get(key)
            if before == after:
                continue
            if after is None:
                self.widened(path + [key], "constraint-loosened", f"{key} {_show(before)} removed")
            elif before is None:
                self.narrowed(path + [key], "constraint-tightened", f"{key} {_show(after)} added")
            else:
                self.narrowed(
                    path + [key], "constraint-changed", f"{key} changed from {_show(before)} to {_show(after)}"
                )

    def objects(self, old: dict, new: dict, path: list, top: bool) -> None:
        old_props, new_props = old.get("properties") or {}, new.get("properties") or {}
        old_req, new_req = set(old.get("required") or ()), set(new.get("required") or ())
        if not (
            old_props
            or new_props
            or old_req
            or new_req
            or "additionalProperties" in old
            or "additionalProperties" in new
        ):
            return
        noun = "parameter" if top else "property"
        removed = [p for p in old_props if p not in new_props]
        added = [p for p in new_props if p not in old_props]
        for name in list(removed):  # a rename: one removed and one added with the same schema
            same = [
                a
                for a in added
                if _canonical(_strip(self.resolve(new_props[a], self.roots[1])[0]))
                == _canonical(_strip(self.resolve(old_props[name], self.roots[0])[0]))
                and (a in new_req) == (name in old_req)
            ]
            if len(same) == 1:
                self.add(
                    path + ["properties", name],
                    f"{noun}-renamed",
                    True,
                    f"{noun} '{name}' renamed to '{same[0]}'"
                    + (": calls that send it are refused (or it is ignored)" if self.direction == "in" else ""),
                )
                removed.remove(name)
                added.remove(same[0])
        for name in removed:
            if self.direction == "in":
                self.add(
                    path + ["properties", name],
                    f"{noun}-removed",
                    True,
                    f"{noun} '{name}' removed: calls that send it are refused (or it is ignored)",
                )
            else:
                self.add(
                    path + ["properties", name],
                    "property-removed",
                    True,
                    f"property '{name}' removed from the result: callers that read it break",
                )
        for name in added:
            required = name in new_req
            kind_text = _type_text(self.resolve(new_props[name], self.roots[1])[0])
            if self.direction == "in":
                if required:
                    self.add(
                        path + ["properties", name],
                        f"new-required-{noun}",
                        True,
                        f"new required {noun} '{name}' ({kind_text}): calls without it are refused",
                    )
                else:
                    self.add(
                        path + ["properties", name],
                        f"optional-{noun}-added",
                        False,
                        f"optional {noun} '{name}' ({kind_text}) added",
                    )
            else:
                self.add(
                    path + ["properties", name],
                    "property-added",
                    False,
                    f"property '{name}' ({kind_text}) added to the result",
                )
        for name in old_props:
            if name not in new_props:
                continue
            was, now = name in old_req, name in new_req
            if was != now:
                if self.direction == "in":
                    if now:
                        self.add(
                            path + ["required"],
                            f"{noun}-now-required",
                            True,
                            f"{noun} '{name}' is now required: calls without it are refused",
                        )
                    else:
                        self.add(path + ["required"], f"{noun}-now-optional", False, f"{noun} '{name}' is now optional")
                else:
                    self.add(
                        path + ["required"],
                        "property-now-optional" if was else "property-now-required",
                        was,
                        f"property '{name}' is {'no longer always' if was else 'now always'} in the result",
                    )
            self.compare(old_props[name], new_props[name], path + ["properties", name])
        for name in (new_req - old_req) - set(new_props) - set(old_props):
            self.narrowed(path + ["required"], "now-required", f"'{name}' is now required")
        before = _extra(old, top)
        after = _extra(new, top)
        if before == after:
            return
        if isinstance(before, dict) and isinstance(after, dict):
            self.compare(before, after, path + ["additionalProperties"])
        elif after is False:
            self.narrowed(path + ["additionalProperties"], "constraint-tightened", "extra keys are no longer accepted")
        elif before is False:
            self.widened(path + ["additionalProperties"], "constraint-loosened", "extra keys are now accepted")
        elif after is True:
            self.widened(
                path + ["additionalProperties"], "constraint-loosened", "extra keys of any type are now accepted"
            )
        else:
            self.narrowed(path + ["additionalProperties"], "constraint-tightened", "extra keys are now constrained")

    def arrays(self, old: dict, new: dict, path: list) -> None:
        if isinstance(old.get("items"), (dict, bool)) and isinstance(new.get("items"), (dict, bool)):
            self.compare(old["items"], new["items"], path + ["items"])
        elif "items" in old or "items" in new:
            if _canonical(old.get("items")) != _canonical(new.get("items")):
                self.add(
                    path + ["items"],
                    "items-changed",
                    True,
                    "array items changed in a way that cannot be classified" + self.unknown_tail(),
                )
        old_prefix, new_prefix = old.get("prefixItems") or [], new.get("prefixItems") or []
        for index, (a, b) in enumerate(zip(old_prefix, new_prefix)):
            self.compare(a, b, path + ["prefixItems", index])
        if len(old_prefix) != len(new_prefix) and not any(k in old or k in new for k in ("minItems", "maxItems")):
            self.add(
                path + ["prefixItems"],
                "tuple-changed",
                True,
                f"tuple length changed from {len(old_prefix)} to {len(new_prefix)}",
            )

    def others(self, old: dict, new: dict, path: list) -> None:
        old_all, new_all = old.get("allOf"), new.get("allOf")
        if old_all != new_all:
            if isinstance(old_all, list) and isinstance(new_all, list) and len(old_all) == len(new_all):
                for index, (a, b) in enumerate(zip(old_all, new_all)):
                    self.compare(a, b, path + ["allOf", index])
            else:
                self.add(path + ["allOf"], "schema-changed", True, "allOf changed" + self.unknown_tail())
        for key in sorted((set(old) | set(new)) - _HANDLED):
            if _canonical(old.get(key)) != _canonical(new.get(key)):
                self.add(path + [key], "schema-changed", True, f"'{key}' changed" + self.unknown_tail())

    def unknown_tail(self) -> str:
        return (
            ": cannot tell whether it narrows what callers may send"
            if self.direction == "in"
            else ": cannot tell whether callers still get what they expect"
        )


_MISSING = object()


def _without(schema: dict, keys: Iterable[str]) -> dict:
    drop = set(keys)
    return {k: v for k, v in schema.items() if k not in drop}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _types(schema: Any) -> Optional[frozenset[str]]:
    """The JSON types a schema admits (None: any), from ``type``, ``enum``/``const`` and unions."""
    if schema is False:
        return frozenset()
    if not isinstance(schema, dict):
        return None
    declared = schema.get("type")
    if isinstance(declared, str):
        return frozenset({declared})
    if isinstance(declared, list):
        return frozenset(declared)
    values = _allowed_values(schema)
    if values is not None:
        return frozenset(_json_type(v) for v in values)
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            found: set[str] = set()
            for branch in schema[key]:
                sub = _types(branch)
                if sub is None:
                    return None
                found |= sub
            return frozenset(found)
    if "properties" in schema or "additionalProperties" in schema:
        return frozenset({"object"})
    if "items" in schema or "prefixItems" in schema:
        return frozenset({"array"})
    return None


def _uncovered(these: Optional[frozenset[str]], by: Optional[frozenset[str]]) -> set[str]:
    """Types of ``these`` that ``by`` does not admit (``number`` admits ``integer``)."""
    if by is None:
        return set()
    if these is None:
        return {"any"}
    return {t for t in these if t not in by and not (t == "integer" and "number" in by)}


def _type_set_text(types: Optional[frozenset[str]]) -> str:
    if types is None:
        return "any"
    return " | ".join(sorted(types)) or "nothing"


def _type_text(schema: Any) -> str:
    values = _allowed_values(schema) if isinstance(schema, dict) else None
    if values is not None:
        return " | ".join(_show(v, 30) for v in values)
    return _type_set_text(_types(schema))


def _allowed_values(schema: dict) -> Optional[list]:
    if "enum" in schema and isinstance(schema["enum"], list):
        return list(schema["enum"])
    if "const" in schema:
        return [schema["const"]]
    return None


def _same(a: Any, b: Any) -> bool:
    return (
        type(a) is type(b)
        and a == b
        or (
            isinstance(a, (int, float))
            and isinstance(b, (int, float))
            and not isinstance(a, bool)
            and not isinstance(b, bool)
            and a == b
        )
    )


def _bound(schema: dict, side: str) -> Optional[tuple[float, bool]]:
    """(value, exclusive) of the effective lower/upper numeric bound, or None."""
    inclusive, exclusive = ("minimum", "exclusiveMinimum") if side == "lower" else ("maximum", "exclusiveMaximum")
    found: list[tuple[float, bool]] = []
    if isinstance(schema.get(inclusive), (int, float)) and not isinstance(schema.get(inclusive), bool):
        found.append((schema[inclusive], False))
    if isinstance(schema.get(exclusive), (int, float)) and not isinstance(schema.get(exclusive), bool):
        found.append((schema[exclusive], True))
    if not found:
        return None
    return max(found) if side == "lower" else min(found, key=lambda b: (b[0], not b[1]))


def _tighter(after: Optional[tuple[float, bool]], before: Optional[tuple[float, bool]], side: str) -> bool:
    if after is None:
        return False
    if before is None:
        return True
    if after[0] != before[0]:
        return after[0] > before[0] if side == "lower" else after[0] < before[0]
    return after[1] and not before[1]


def _bound_text(bound: Optional[tuple[float, bool]], side: str) -> str:
    if bound is None:
        return "none"
    symbol = (">" if bound[1] else "≥") if side == "lower" else ("<" if bound[1] else "≤")
    return f"{symbol} {_show(bound[0])}"


def _divides(a: Any, b: Any) -> bool:
    """Whether ``b`` is a multiple of ``a`` (so multipleOf ``a`` admits every multiple of ``b``)."""
    try:
        ratio = b / a
    except (TypeError, ZeroDivisionError):
        return False
    return abs(ratio - round(ratio)) < 1e-9


def _extra(schema: dict, top: bool) -> Any:
    """``additionalProperties`` as in effect: tool parameters are closed unless they say otherwise."""
    value = schema.get("additionalProperties", False if top else True)
    return True if value == {} else value
