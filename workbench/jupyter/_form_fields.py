"""``FieldArea``: a form's fields — built from the tool's parameters, read, filled and checked.

The form asks it for the values to send (``values``, ``collect()``), fills it (``set_values``, ``load``)
and has it check what it holds (``validate``), which marks each field in error and returns the
errors by field path. It knows nothing of running a call.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench._errors import ToolInputError
from workbench.jupyter._containers import ListField
from workbench.jupyter._field_layout import FieldMap, arrange_fields
from workbench.jupyter._fields import MISSING, Field, FieldValueError
from workbench.jupyter._widget_kit import close_tree
from workbench.secrets import MASK, mask_values, secret_values

__all__ = ["FieldArea", "parse_error_path"]

_PATH_TOKEN = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]")


def parse_error_path(path: str) -> list:
    """``"$.items[0].qty"`` → ``["items", 0, "qty"]``."""
    text = path[1:] if path.startswith("$") else "." + path if path and not path.startswith((".", "[")) else path
    return [name if name else int(index) for name, index in _PATH_TOKEN.findall(text)]


class FieldArea:
    """The fields of one tool's form.

    Args:
        spec: the tool's ``ToolSpec`` (``rebuild(spec)`` takes a new one).
        layout_name: ``"auto"``, ``"full"`` or ``"compact"``.
        check_inputs: the tool's input check in the mode its calls run in; raises ``ToolInputError``.
        builder: ``() -> field builder`` for the current tool (its widget table and declared types),
            asked again on every rebuild, since a reconnected tool may bring other types.
    """

    def __init__(
        self,
        spec: Any,
        layout_name: str,
        check_inputs: Callable[[dict[str, Any]], Any],
        builder: Callable[[], Callable[..., Any]],
    ) -> None:
        self.spec = spec
        self._builder = builder
        self.layout_name = layout_name
        self._check_inputs = check_inputs
        self.box = W.VBox([])
        self.fields: FieldMap = FieldMap([])
        self.arrangement: Any = None
        self.rebuild()

    def rebuild(self, spec: Any = None) -> None:
        """Build every field again at its default (of ``spec``'s parameters when given); the widgets of the
        fields replaced are closed, so a reset form does not leave them behind in the page and the notebook."""
        if spec is not None:
            self.spec = spec
        old = list(self.box.children)
        kits = {id(f.ctx.kit): f.ctx.kit for _name, f in self.fields.built()}
        build = self._builder()
        self.arrangement = arrange_fields(self.spec.parameters, build, self.layout_name)
        self.fields = self.arrangement.fields
        self.box.children = self.arrangement.children or [W.HTML("<i>This tool takes no parameters.</i>")]
        for widget in old:
            close_tree(widget)
        for kit in kits.values():
            kit.close()

    def field(self, path: str) -> Optional[Field]:
        """The field at ``path`` (``"item.qty"``, ``"items[0]"``, ``"$.a"``), or None."""
        parts = parse_error_path(path)
        if not parts or not isinstance(parts[0], str):
            return None
        found = self.fields.get(parts[0])
        for part in parts[1:]:
            if found is None:
                return None
            found = found.child(part)
        return found

    def deepest(self, parts: list) -> Optional[Field]:
        """The deepest built field along ``parts`` (where an error at that path is shown)."""
        if not parts or not isinstance(parts[0], str):
            return None
        found = self.fields.get(parts[0])
        for part in parts[1:]:
            if found is None:
                break
            deeper = found.child(part)
            if deeper is None:
                break
            found = deeper
        return found

    # -- values --------------------------------------------------------------------------------------
    def collect(self) -> tuple[dict[str, Any], list[dict]]:
        """The values the built fields hold, and the problems of those that hold nothing convertible."""
        values: dict[str, Any] = {}
        problems: list[dict] = []
        # only the fields built so far: an unbuilt one (a collapsed Optional section never opened) is not set
        for name, field in self.fields.built():
            try:
                value = field.get()
            except FieldValueError as exc:
                problems.append({"field": exc.field.path_text, "message": str(exc), "widget": exc.field, "name": name})
                continue
            if value is not MISSING:
                values[name] = value
        return values, problems

    @property
    def values(self) -> dict[str, Any]:
        """The input the fields hold (untouched optional fields omitted); ``ValueError`` if one is unconvertible."""
        values, problems = self.collect()
        if problems:
            raise ValueError("; ".join(p["message"] for p in problems))
        return values

    def set_values(self, values: dict[str, Any]) -> None:
        """Fill fields as a user would; unknown names raise ``KeyError`` naming the parameters."""
        unknown = [k for k in values if k not in self.fields]
        if unknown:
            raise KeyError(
                f"{self.spec.name} has no parameter(s) {', '.join(map(repr, unknown))}; "
                f"parameters: {', '.join(self.fields) or 'none'}"
            )
        for name, value in values.items():
            field = self.fields[name]
            if value is None and hasattr(field, "set_none"):
                field.set_none()
            else:
                field.set(value)

    def load(self, values: dict[str, Any]) -> None:
        """Make the fields hold exactly ``values``: the others go back to *not set* (JSON mode → form).
        A secret given as ``***`` (a logged input, the JSON editor) keeps what its field holds."""
        unknown = [k for k in values if k not in self.fields]
        if unknown:
            raise KeyError(f"{self.spec.name} has no parameter(s) {', '.join(map(repr, unknown))}")
        values = self.keep_secrets(values)
        for _name, field in self.fields.built():  # an unbuilt field is already not set
            field.clear()
        self.set_values(values)
        self.reveal_problems(values)

    def keep_secrets(self, values: dict[str, Any]) -> dict[str, Any]:
        """``values`` with each secret given as ``***`` replaced by what its field holds (left out if nothing):
        the mask is never sent as the secret."""
        masked = [name for name in self.spec.secret_parameters if values.get(name) == MASK]
        if not masked:
            return values
        built = dict(self.fields.built())
        values = {k: v for k, v in values.items() if k not in masked}
        for name in masked:
            field = built.get(name)
            try:
                held = field.get() if field is not None else MISSING
            except FieldValueError:
                held = MISSING
            if held is not MISSING:
                values[name] = held
        return values

    def reveal_problems(self, values: dict[str, Any]) -> None:
        """Build the list rows the tool's validator finds a problem in: a row not built yet (a long list
        shows a page) would hide it, and a value its row cannot show raises here, as a built row's does."""
        try:
            self._check_inputs(values)
        except ToolInputError as exc:
            for err in exc.errors:
                parts = parse_error_path(err.get("path") or "$")
                # only into what was loaded (reading a field of a collapsed section would build it)
                found = self.fields[parts[0]] if parts and parts[0] in values else None
                for part in parts[1:]:
                    if found is None:
                        break
                    if isinstance(found, ListField) and isinstance(part, int):
                        found.build_rows(part + 1)
                    found = found.child(part)
        except ValueError:  # e.g. a malformed schema: Run reports it
            pass

    # -- checking ------------------------------------------------------------------------------------
    def validate(self, given: Optional[dict[str, Any]] = None) -> tuple[dict[str, Any], dict[str, str]]:
        """Check what the fields hold; mark each field in error. Returns ``(values, errors by path)``.

        ``given``: values that go with the input but are not shown (a field left *not set* sends it)."""
        for _name, field in self.fields.built():  # an unbuilt field shows no error
            for sub in field.walk():
                sub.clear_error()
        values, problems = self.collect()
        if given:
            values = {**given, **values}
        errors: dict[str, str] = {}
        for problem in problems:
            problem["widget"].show_error(problem["message"])
            errors[problem["field"]] = problem["message"]
        # the fields that parsed are checked too, so every invalid field is reported at once; a
        # parameter whose field did not parse is left out of ``values``, so its "missing" is skipped
        unparsed = {problem["name"] for problem in problems}
        secrets = secret_values(values, self.spec.secret_parameters)
        try:
            self._check_inputs(values)
        except ToolInputError as exc:
            for err in exc.errors:
                key = err.get("field") or "$"
                path = parse_error_path(err.get("path") or "$")
                if path and path[0] in unparsed:
                    continue
                message = mask_values(err["message"], secrets)  # "received '…'" must not show a secret
                errors[key] = f"{errors[key]}; {message}" if key in errors else message
                target = self.deepest(path)
                if target is not None:
                    target.show_error(message)
        except ValueError as exc:  # e.g. a malformed schema (ToolSpecError)
            errors["$"] = str(exc)
        return values, errors
