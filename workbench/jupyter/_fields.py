"""Form fields: one ``Field`` per (sub)schema, wrapping the ipywidgets that edit it.

A field knows three things the raw widget does not:

* whether the user **touched** it (typed, clicked, or ``set()`` was called) — an untouched optional
  field is *not set* and is omitted from the call, so ``not set``, ``""`` and ``null`` stay distinct;
* how to turn the widget's value into the right **JSON type** (``current()``) and back (``load()``);
* where its **error** goes (an inline message under the widget).

Value rules (``Field.get``):

* untouched, optional and not given a value by its parent → ``MISSING`` (omitted from the call);
* otherwise the value the widget shows (``current()``), where an empty, untouched text box, an
  unselected dropdown and an empty date picker are ``MISSING`` too (so a required field left
  empty is reported as *missing* rather than sent as ``""``);
* a string the user emptied on purpose (touched) is sent as ``""``.

Scalar fields live here; containers (object, list, mapping, tuple, variant, nullable) live in
``_containers.py``; which field a schema gets is decided by the table in ``_field_table.py``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
from typing import Any, Callable, Iterator, Optional

import ipywidgets as W

from workbench._html import escape as _e
from workbench.jupyter._schema_utils import constraint_text, json_types

__all__ = [
    "MISSING", "Field", "FieldContext", "FieldValueError", "StringField", "TextareaField", "EnumField",
    "ConstField", "IntField", "BoundedIntField", "FloatField", "BoundedFloatField", "BoolField", "DateField",
    "DateTimeField", "TimeField", "JSONField",
]

LABEL_WIDTH = "180px"
_HELP_STYLE = "color:#57606a;font-size:0.85em;margin-left:" + LABEL_WIDTH
_ERROR_STYLE = "color:#cf222e;font-size:0.9em;margin-left:" + LABEL_WIDTH


class _Missing:
    """The *not set* marker: the field is left out of the call."""

    _instance: Optional["_Missing"] = None

    def __new__(cls) -> "_Missing":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


class FieldValueError(ValueError):
    """A widget holds something that cannot be converted (invalid JSON, duplicate keys…)."""

    def __init__(self, field: "Field", message: str) -> None:
        self.field = field
        super().__init__(message)


class FieldContext:
    """What every field of one form shares: the root schema (for ``$defs``), the builder and the depth."""

    def __init__(self, root: dict, build: Callable[..., "Field"], depth: int = 0, refs: tuple = ()) -> None:
        self.root = root
        self.build = build
        self.depth = depth
        self.refs = refs  # the $refs being expanded above this field (to stop recursive models)

    def deeper(self) -> "FieldContext":
        return FieldContext(self.root, self.build, self.depth + 1, self.refs)

    def with_ref(self, ref: str) -> "FieldContext":
        return FieldContext(self.root, self.build, self.depth, self.refs + (ref,))


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class Field:
    """Base class. Subclasses implement ``build()`` (make ``self.input``), ``current()`` and ``_load()``."""

    rule = "?"  #: the name of the table row that built this field (set by the builder)
    container = False

    def __init__(self, schema: dict, ctx: FieldContext, name: Any, *, required: bool = False,
                 parent: Optional["Field"] = None) -> None:
        self.schema = schema
        self.ctx = ctx
        self.name = name  # str for properties, int for list items, None for a wrapper's inner field
        self.required = required
        self.parent = parent
        self.touched = False
        self.explicit = False  # given a value by its parent (e.g. the parent's default), so it is sent
        self._quiet = 0
        self.error_label = W.HTML(layout=W.Layout(display="none"))
        self.build()
        self.widget = self.layout()
        if "default" in schema:
            try:
                with self.quiet():
                    self._load(schema["default"])
            except (ValueError, TypeError, KeyError):
                pass  # a default the widget cannot show: leave it empty (the function's default still applies)

    # -- identity ------------------------------------------------------------------------------------
    @property
    def bare(self) -> bool:
        """A wrapper's inner field: no label of its own, transparent in paths."""
        return self.name is None

    @property
    def path(self) -> tuple:
        head = self.parent.path if self.parent is not None else ()
        return head if self.name is None else head + (self.name,)

    @property
    def path_text(self) -> str:
        text = ""
        for part in self.path:
            text += f"[{part}]" if isinstance(part, int) else ("." if text else "") + str(part)
        return text or "$"

    @property
    def label_text(self) -> str:
        if isinstance(self.name, int):
            return f"[{self.name}]"
        label = str(self.name)
        return label + " *" if self.required and not getattr(self.parent, "positional", False) else label

    @property
    def help_text(self) -> str:
        parts = []
        description = self.schema.get("description")
        if description:
            parts.append(str(description))
        constraints = constraint_text(self.schema)
        if constraints:
            parts.append(constraints)
        return " · ".join(parts)

    # -- widgets -------------------------------------------------------------------------------------
    def build(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def layout(self) -> W.Widget:
        """Label, input, help line and error line."""
        parts: list[W.Widget] = []
        if self.bare:
            parts.append(self.input)
        else:
            label = W.Label(self.label_text, layout=W.Layout(width=LABEL_WIDTH, min_width=LABEL_WIDTH))
            label.tooltip = str(self.schema.get("description") or "")
            parts.append(W.HBox([label, self.input]))
            if self.help_text:
                parts.append(W.HTML(f"<div style='{_HELP_STYLE}'>{_e(self.help_text)}</div>"))
        parts.append(self.error_label)
        return W.VBox(parts)

    def observe_value(self, widget: W.Widget, name: str = "value") -> None:
        widget.observe(self._on_widget_change, names=name)

    def _on_widget_change(self, change: Any = None) -> None:
        if self._quiet:
            return
        self.clear_error()
        self.mark_touched()

    @contextlib.contextmanager
    def quiet(self) -> Iterator[None]:
        """Change widgets without marking the field touched."""
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    # -- values --------------------------------------------------------------------------------------
    def mark_touched(self) -> None:
        self.touched = True
        if self.parent is not None:
            self.parent.mark_touched()

    @property
    def is_set(self) -> bool:
        return self.touched or self.required or self.explicit

    def get(self) -> Any:
        """The JSON value to send, or ``MISSING`` to omit the field."""
        if not self.is_set:
            return MISSING
        return self.current()

    def current(self) -> Any:  # pragma: no cover - abstract
        """The JSON value the widget shows (``MISSING`` when it shows nothing)."""
        raise NotImplementedError

    def load(self, value: Any) -> None:
        """Show ``value`` without marking the field touched (but it will be sent)."""
        with self.quiet():
            self._load(value)
        self.explicit = True

    def set(self, value: Any) -> None:
        """Set the value as a user would: the field becomes touched."""
        self.load(value)
        self.mark_touched()

    def _load(self, value: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- structure -----------------------------------------------------------------------------------
    def child(self, key: Any) -> Optional["Field"]:
        """The sub-field at ``key`` (property name or index), if any."""
        return None

    def children_fields(self) -> list["Field"]:
        return []

    def walk(self) -> Iterator["Field"]:
        yield self
        for sub in self.children_fields():
            yield from sub.walk()

    # -- errors --------------------------------------------------------------------------------------
    def show_error(self, message: str) -> None:
        previous = getattr(self, "_errors", [])
        self._errors = previous + [message]
        text = "<br>".join(_e(m) for m in self._errors)
        self.error_label.value = f"<div style='{_ERROR_STYLE}'>⚠ {text}</div>"
        self.error_label.layout.display = None

    def clear_error(self) -> None:
        self._errors = []
        self.error_label.value = ""
        self.error_label.layout.display = "none"

    @property
    def error(self) -> Optional[str]:
        errors = getattr(self, "_errors", [])
        return "; ".join(errors) if errors else None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.path_text!r} rule={self.rule!r} touched={self.touched}>"


def _require(value: Any, kinds: tuple, what: str) -> Any:
    if isinstance(value, bool) and bool not in kinds:
        raise TypeError(f"expected {what}, got a boolean")
    if not isinstance(value, kinds):
        raise TypeError(f"expected {what}, got {type(value).__name__} {value!r}")
    return value


# -- strings ---------------------------------------------------------------------------------------------
_PLACEHOLDERS = {
    "uuid": "e.g. 123e4567-e89b-12d3-a456-426614174000",
    "email": "name@example.com",
    "uri": "https://…",
    "url": "https://…",
    "path": "a/path/or/file.txt",
    "binary": "text (sent as UTF-8 bytes)",
    "ipv4": "e.g. 192.168.0.1",
    "duration": "e.g. P1DT2H or PT30S",
}


class StringField(Field):
    """``Text``; an empty, untouched box is *not set*; an emptied one sends ``""``."""

    def build(self) -> None:
        self.input = self._widget(placeholder=_PLACEHOLDERS.get(self.schema.get("format"), ""))
        self.observe_value(self.input)

    def _widget(self, **kw: Any) -> W.Widget:
        return W.Text(layout=W.Layout(width="360px"), **kw)

    def current(self) -> Any:
        value = self.input.value
        if value == "" and not (self.touched or self.explicit):
            return MISSING
        return value

    def _load(self, value: Any) -> None:
        if value is None:
            raise TypeError("a string field cannot show null")
        self.input.value = value if isinstance(value, str) else str(value)


class TextareaField(StringField):
    """Multi-line ``Textarea`` for long text (see ``is_long_text``)."""

    def _widget(self, **kw: Any) -> W.Widget:
        return W.Textarea(rows=4, layout=W.Layout(width="480px"), **kw)


class EnumField(Field):
    """``Dropdown`` over ``enum`` values (labels are the values; JSON for non-strings). No initial
    selection unless there is a default."""

    def build(self) -> None:
        self.options = list(self.schema.get("enum") or [])
        labels = [v if isinstance(v, str) else _json_text(v) for v in self.options]
        seen: dict[str, int] = {}
        unique = []
        for label in labels:  # Dropdown labels must be unique
            seen[label] = seen.get(label, 0) + 1
            unique.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
        self.input = W.Dropdown(options=unique, index=None, layout=W.Layout(width="240px"))
        self.observe_value(self.input, "index")

    def current(self) -> Any:
        index = self.input.index
        return MISSING if index is None else self.options[index]

    def _load(self, value: Any) -> None:
        for i, option in enumerate(self.options):
            if option == value and type(option) is type(value):
                self.input.index = i
                return
        raise ValueError(f"{value!r} is not one of {self.options!r}")


class ConstField(Field):
    """A fixed value (``const`` / a one-value ``Literal``): shown, not editable."""

    def build(self) -> None:
        self.input = W.HTML(f"<code>{_e(_json_text(self.schema.get('const')))}</code>")

    def current(self) -> Any:
        return self.schema.get("const")

    def _load(self, value: Any) -> None:
        if value != self.schema.get("const"):
            raise ValueError(f"{value!r} is not the constant {self.schema.get('const')!r}")


# -- numbers ---------------------------------------------------------------------------------------------
def _int_bounds(schema: dict) -> tuple[Optional[int], Optional[int]]:
    import math

    lo = schema.get("minimum")
    hi = schema.get("maximum")
    if isinstance(schema.get("exclusiveMinimum"), (int, float)):
        lo = math.floor(schema["exclusiveMinimum"]) + 1
    if isinstance(schema.get("exclusiveMaximum"), (int, float)):
        hi = math.ceil(schema["exclusiveMaximum"]) - 1
    lo = math.ceil(lo) if isinstance(lo, (int, float)) and not isinstance(lo, bool) else None
    hi = math.floor(hi) if isinstance(hi, (int, float)) and not isinstance(hi, bool) else None
    return lo, hi


def _float_bounds(schema: dict) -> tuple[Optional[float], Optional[float]]:
    lo = schema.get("minimum", schema.get("exclusiveMinimum"))
    hi = schema.get("maximum", schema.get("exclusiveMaximum"))
    ok = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)  # noqa: E731
    return (float(lo) if ok(lo) else None), (float(hi) if ok(hi) else None)


def has_both_bounds(schema: dict) -> bool:
    lo, hi = _float_bounds(schema)
    return lo is not None and hi is not None


class IntField(Field):
    """``IntText``; starts at the lower bound when there is one, else 0. Sends an ``int``, never ``""``."""

    def build(self) -> None:
        lo, hi = _int_bounds(self.schema)
        start = lo if lo is not None else (hi if hi is not None and hi < 0 else 0)
        step = self.schema.get("multipleOf")
        kw: dict[str, Any] = {"value": start, "layout": W.Layout(width="180px")}
        if isinstance(step, int) and not isinstance(step, bool) and step > 0:
            kw["step"] = step
        self.input = self._widget(lo, hi, kw)
        self.observe_value(self.input)

    def _widget(self, lo: Optional[int], hi: Optional[int], kw: dict) -> W.Widget:
        return W.IntText(**kw)

    def current(self) -> Any:
        return int(self.input.value)

    def _load(self, value: Any) -> None:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        self.input.value = _require(value, (int,), "an integer")


class BoundedIntField(IntField):
    """``BoundedIntText`` when both bounds exist; values outside them are refused by ``set()``."""

    def _widget(self, lo: Optional[int], hi: Optional[int], kw: dict) -> W.Widget:
        return W.BoundedIntText(min=lo, max=hi, **kw)

    def _load(self, value: Any) -> None:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        value = _require(value, (int,), "an integer")
        if not self.input.min <= value <= self.input.max:
            raise ValueError(f"{value} is outside {self.input.min}..{self.input.max}")
        self.input.value = value


class FloatField(Field):
    """``FloatText``; sends a ``float``."""

    def build(self) -> None:
        lo, hi = _float_bounds(self.schema)
        start = lo if lo is not None else (hi if hi is not None and hi < 0 else 0.0)
        self.input = self._widget(lo, hi, {"value": start, "layout": W.Layout(width="180px")})
        self.observe_value(self.input)

    def _widget(self, lo: Optional[float], hi: Optional[float], kw: dict) -> W.Widget:
        return W.FloatText(**kw)

    def current(self) -> Any:
        value = float(self.input.value)
        return value

    def _load(self, value: Any) -> None:
        self.input.value = float(_require(value, (int, float), "a number"))


class BoundedFloatField(FloatField):
    """``BoundedFloatText`` when both bounds exist."""

    def _widget(self, lo: Optional[float], hi: Optional[float], kw: dict) -> W.Widget:
        step = self.schema.get("multipleOf")
        if isinstance(step, (int, float)) and not isinstance(step, bool) and step > 0:
            kw["step"] = float(step)
        else:
            kw["step"] = (hi - lo) / 100 if hi is not None and lo is not None and hi > lo else 0.1  # type: ignore[operator]
        return W.BoundedFloatText(min=lo, max=hi, **kw)

    def _load(self, value: Any) -> None:
        value = float(_require(value, (int, float), "a number"))
        if not self.input.min <= value <= self.input.max:
            raise ValueError(f"{value} is outside {self.input.min}..{self.input.max}")
        self.input.value = value


class BoolField(Field):
    """``Checkbox``."""

    def build(self) -> None:
        self.input = W.Checkbox(value=False, indent=False)
        self.observe_value(self.input)

    def current(self) -> Any:
        return bool(self.input.value)

    def _load(self, value: Any) -> None:
        self.input.value = _require(value, (bool,), "a boolean")


# -- dates and times -------------------------------------------------------------------------------------
def _parse_datetime(value: Any) -> _dt.datetime:
    if isinstance(value, _dt.datetime):
        return value
    if isinstance(value, _dt.date):
        return _dt.datetime(value.year, value.month, value.day)
    text = _require(value, (str,), "an ISO 8601 date-time")
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    return _dt.datetime.fromisoformat(text)


class DateField(Field):
    """``DatePicker``; sends ``YYYY-MM-DD``."""

    def build(self) -> None:
        self.input = W.DatePicker(value=None)
        self.observe_value(self.input)

    def current(self) -> Any:
        value = self.input.value
        return MISSING if value is None else value.isoformat()

    def _load(self, value: Any) -> None:
        if isinstance(value, _dt.datetime):
            value = value.date()
        elif not isinstance(value, _dt.date):
            value = _dt.date.fromisoformat(_require(value, (str,), "an ISO 8601 date"))
        self.input.value = value


class DateTimeField(Field):
    """``NaiveDatetimePicker``; sends ISO 8601. An aware value is shown in its own offset and sent with it."""

    def build(self) -> None:
        self.tzinfo: Optional[_dt.tzinfo] = None
        self.input = W.NaiveDatetimePicker(value=None)
        self.observe_value(self.input)

    def current(self) -> Any:
        value = self.input.value
        if value is None:
            return MISSING
        if self.tzinfo is not None:
            value = value.replace(tzinfo=self.tzinfo)
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text

    def _load(self, value: Any) -> None:
        parsed = _parse_datetime(value)
        self.tzinfo = parsed.tzinfo
        self.input.value = parsed.replace(tzinfo=None)


class TimeField(Field):
    """``TimePicker``; sends ``HH:MM:SS``."""

    def build(self) -> None:
        self.input = W.TimePicker(value=None, step=1)
        self.observe_value(self.input)

    def current(self) -> Any:
        value = self.input.value
        return MISSING if value is None else value.isoformat()

    def _load(self, value: Any) -> None:
        if not isinstance(value, _dt.time):
            value = _dt.time.fromisoformat(_require(value, (str,), "an ISO 8601 time"))
        self.input.value = value.replace(tzinfo=None)


# -- JSON fallback ---------------------------------------------------------------------------------------
class JSONField(Field):
    """A JSON ``Textarea``: free-form objects, ``Any``, and any schema no other widget fits.

    Empty → not set. Text that is not JSON is an inline error — unless the schema admits a string
    (``Any`` or a string type), then it is sent as that string.
    """

    def build(self) -> None:
        self.input = W.Textarea(placeholder="JSON, e.g. {\"key\": \"value\"}", rows=3, layout=W.Layout(width="480px"))
        self.observe_value(self.input)

    def current(self) -> Any:
        text = self.input.value
        if not text.strip():
            return MISSING
        try:
            return json.loads(text)
        except ValueError as exc:
            types = json_types(self.schema)
            if not types or "string" in types:
                return text
            raise FieldValueError(self, f"{self.path_text}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None

    def _load(self, value: Any) -> None:
        pretty = isinstance(value, (dict, list)) and len(_json_text(value)) > 60
        self.input.value = json.dumps(value, ensure_ascii=False, indent=2 if pretty else None, default=str)
