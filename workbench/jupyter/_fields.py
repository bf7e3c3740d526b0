"""Form fields: one ``Field`` per (sub)schema, wrapping the ipywidgets that edit it.

A field knows four things the raw widget does not:

* whether the user **touched** it (typed, clicked, or ``set()`` was called) — an untouched optional
  field is *not set* and is omitted from the call, so ``not set``, ``""`` and ``null`` stay distinct;
* how to turn the widget's value into the right **JSON type** (``current()``) and back (``load()``);
* how to **show its state**: a text box's placeholder says ``not set — default: 10`` (or ``"" (empty
  string)`` once emptied on purpose), other widgets get a muted *state* note, a nullable shows a
  ``null`` pill, and every optional field has a **clear** button that returns it to *not set*;
* where its **error** goes (an inline message under the widget), shown as soon as the value changes —
  each keystroke for text, on blur for numbers and JSON (``problems()``), not only when *Run* is pressed;
* its **label**: a real ``<label>`` (``FieldLabel``) for the control — clicking it focuses the field, it
  is the control's accessible name, and the help line and error line are the control's accessible
  description; the schema description is also its tooltip.

Value rules (``Field.get``):

* untouched, optional and not given a value by its parent → ``MISSING`` (omitted from the call);
* otherwise the value the widget shows (``current()``), where an empty, untouched text box shows its
  default (the placeholder) or nothing, and an empty number box, an unselected dropdown and an empty
  date picker are ``MISSING`` (so a required field left empty is reported as *missing*, never sent as
  ``0`` or ``""``);
* a string the user emptied on purpose (touched) is sent as ``""``.

Scalar fields live here; containers (object, list, mapping, tuple, variant, nullable) live in
``_containers.py``; which field a schema gets is decided by the table in ``_field_table.py``.
Every colour is a JupyterLab CSS variable (``--jp-*``), so the light and dark themes both work.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
from typing import Any, Callable, Iterator, Optional

import ipywidgets as W

from workbench._html import escape as _e
from workbench._json_text import loads as load_json
from workbench.jupyter._field_label import FieldLabel, field_marks
from workbench.jupyter._schema_utils import (
    constraint_text,
    expected_text,
    json_types,
    number_problem,
    number_text,
    parse_number,
    value_checker,
)
from workbench.jupyter._secret_input import SecretInput
from workbench.jupyter._widget_kit import LABEL_WIDTH, WidgetKit, show
from workbench.jupyter._widget_kit import LAYOUTS as KIT_LAYOUTS
from workbench.secrets import MASK, mask_values

__all__ = [
    "MISSING",
    "Field",
    "FieldContext",
    "FieldValueError",
    "StringField",
    "TextareaField",
    "PasswordField",
    "EnumField",
    "ConstField",
    "NumberField",
    "IntField",
    "FloatField",
    "BoolField",
    "DateField",
    "DateTimeField",
    "TimeField",
    "JSONField",
    "help_html",
    "missing_message",
    "not_set_text",
    "default_text",
    "LAYOUTS",
    "WIDTHS",
]

#: the form layouts a ``FieldContext`` knows (see ``_field_layout.arrange``)
LAYOUTS = ("auto", "full", "compact")
#: widget sizes (``W.Layout`` keywords) by kind, for the default layouts and the compact one (the table of
#: every shared layout kind is ``_widget_kit.LAYOUTS``)
WIDTHS = KIT_LAYOUTS
#: inline styles (HTML widget values take them as they are); colours are theme variables only
_HELP_STYLE = "color:var(--jp-ui-font-color2);font-size:0.85em;overflow-wrap:anywhere"
_ERROR_STYLE = "color:var(--jp-error-color1);font-size:0.9em;overflow-wrap:anywhere"
_STATE_STYLE = "color:var(--jp-ui-font-color2);font-style:italic;font-size:0.85em;padding:0 6px;white-space:nowrap"
_NULL_STYLE = (
    "font-family:var(--jp-code-font-family);font-size:0.85em;color:var(--jp-ui-font-color1);"
    "background:var(--jp-layout-color2);border:1px solid var(--jp-border-color1);border-radius:8px;"
    "padding:0 8px;margin:0 4px"
)


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
    """A widget holds something that cannot be converted (invalid JSON, a number that is not one…)."""

    def __init__(self, field: "Field", message: str) -> None:
        self.field = field
        super().__init__(message)


class FieldContext:
    """What every field of one form shares: the root schema (for ``$defs``), the builder, the depth,
    whether the form is compact (narrow labels, inputs that fill a grid column) and the form's
    ``WidgetKit`` (the layouts and styles its widgets share)."""

    def __init__(
        self,
        root: dict,
        build: Callable[..., "Field"],
        depth: int = 0,
        refs: tuple = (),
        *,
        compact: bool = False,
        kit: Optional[WidgetKit] = None,
    ) -> None:
        self.root = root
        self.build = build
        self.depth = depth
        self.refs = refs  # the $refs being expanded above this field (to stop recursive models)
        self.compact = compact
        self.kit = kit if kit is not None else WidgetKit(compact)

    def deeper(self) -> "FieldContext":
        return FieldContext(self.root, self.build, self.depth + 1, self.refs, compact=self.compact, kit=self.kit)

    def with_ref(self, ref: str) -> "FieldContext":
        return FieldContext(self.root, self.build, self.depth, self.refs + (ref,), compact=self.compact, kit=self.kit)

    def size(self, kind: str) -> W.Layout:
        """The form's shared ``W.Layout`` for a widget of ``kind`` (``label``, ``text``, ``number``, ``choice``,
        ``area``…): never change it in place (``show()`` swaps it)."""
        return self.kit.layout(kind)

    def make(self, cls: type, kind: str = "plain", *, hidden: bool = False, **kwargs: Any) -> Any:
        """A ``cls`` widget on the form's shared layout of ``kind`` and shared style (see ``WidgetKit``)."""
        return self.kit.make(cls, kind, hidden=hidden, **kwargs)

    @property
    def label_width(self) -> str:
        return KIT_LAYOUTS[self.compact]["label"]["width"]


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def help_html(text: str, indent: str = LABEL_WIDTH) -> str:
    """A field's help line (description · constraints), muted, under the input."""
    return f"<div style='{_HELP_STYLE};margin-left:{indent}'>{_e(text)}</div>"


def default_text(default: Any, limit: int = 60) -> str:
    """``default: 10`` — the default as JSON, shortened to ``limit`` characters."""
    text = _json_text(default)
    return "default: " + (text if len(text) <= limit else text[: limit - 1] + "…")


def not_set_text(default: Any) -> str:
    """``not set — default: 10`` / ``not set``: what an untouched optional field shows."""
    return "not set" if default is MISSING else f"not set — {default_text(default)}"


def missing_message(field: "Field") -> str:
    """``path: required field is missing (expected …)`` in the validator's words, made specific."""
    return f"{field.path_text}: required field is missing (expected {expected_text(field.schema, field.ctx.root)})"


class Field:
    """Base class. Subclasses implement ``build()`` (make ``self.input``), ``current()``, ``_load()`` and
    ``_reset_widget()`` (the empty widget)."""

    rule = "?"  #: the name of the table row that built this field (set by the builder)
    container = False
    input: Any  #: the field's control (a container's box), made by ``build()``
    #: a text box whose placeholder shows the field's state (else a muted state note does)
    text_like = False

    def __init__(
        self, schema: dict, ctx: FieldContext, name: Any, *, required: bool = False, parent: Optional["Field"] = None
    ) -> None:
        self.schema = schema
        self.ctx = ctx
        self.name = name  # str for properties, int for list items, None for a wrapper's inner field
        self.required = required
        self.parent = parent
        self.touched = False
        self.explicit = False  # given a value by its parent (e.g. the parent's default), so it is sent
        self.default: Any = MISSING  # the schema default the field shows while it is not set
        self._quiet = 0
        self._errors: list[str] = []
        self._watchers: list[Callable[["Field", str], Any]] = []
        self.label: Optional[FieldLabel] = None
        self.marks = field_marks()  # classes tying the label to its control, help line and error lines
        # Widgets a field may never show are not made up front: a required field has no state note and no
        # clear button, and the error line is made when an error first shows (a 300-item list's rows made
        # ~23 widgets each, and every widget is a model the page creates and renders)
        self._error_label: Optional[W.HTML] = None
        self.state_label: Optional[W.HTML] = None
        self.clear_button: Optional[W.Button] = None
        if self.clearable:
            self.state_label = ctx.make(W.HTML, hidden=True, classes=("workbench-field-state",))
            self.clear_button = ctx.make(
                W.Button,
                "clear",
                hidden=True,
                icon="times",
                tooltip="Clear: back to not set (left out of the call)",
                classes=("workbench-field-clear",),
            )
            self.clear_button.on_click(lambda _b: self.clear())
        self.build()
        self.widget = self.layout()
        self.widget.add_class("workbench-field")  # no message: the layouts make their box with it (field_box)
        if "default" in schema:
            try:
                with self.quiet():
                    self.show_default(schema["default"])
            except (ValueError, TypeError, KeyError):
                self.default = (
                    MISSING  # a default the widget cannot show: leave it empty (the function's default still applies)
                )
        self.refresh_state()

    # -- identity ------------------------------------------------------------------------------------
    @property
    def bare(self) -> bool:
        """A wrapper's inner field: no label of its own, transparent in paths."""
        return self.name is None

    @property
    def owner(self) -> "Field":
        """The field whose label this one is shown under: itself, or the wrapper around a bare field."""
        return self.parent.owner if self.bare and self.parent is not None else self

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
    def label_name(self) -> str:
        """The name the label shows (and the control's accessible name): ``price``, ``[0]``."""
        return f"[{self.name}]" if isinstance(self.name, int) else str(self.name)

    @property
    def marked_required(self) -> bool:
        """Shown with a ``*``: required, except a tuple's positions (all of them are)."""
        return self.required and not getattr(self.parent, "positional", False)

    @property
    def label_text(self) -> str:
        return self.label_name + " *" if self.marked_required else self.label_name

    def rename(self, name: Any) -> None:
        """A new name (a list row moved, a mapping key edited): the label follows."""
        self.name = name
        if self.label is not None:
            self.label.value = self.label_name

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

    @property
    def clearable(self) -> bool:
        """Optional fields with a label get a clear button (required ones and inner fields do not)."""
        return not self.required and not self.bare

    # -- widgets -------------------------------------------------------------------------------------
    def build(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def label_target(self) -> Optional[tuple[W.Widget, bool]]:
        """The widget the label names and whether it is a group (object, list…) rather than a control;
        None when there is nothing to focus (a constant)."""
        return self.input, False

    def label_widget(self, kind: str = "label") -> list[W.Widget]:
        """The label (``[]`` for a mapping row's value: the key box beside it is its label): a ``FieldLabel``
        tied to the control (``label_target``), the help line and the error lines by their classes."""
        if getattr(self.parent, "keyed", False):
            return []
        target = self.label_target()
        if target is not None:
            widget, group = target
            widget.add_class(self.marks["target"])  # no message when the input was made with it (input_classes)
        label = FieldLabel(
            value=self.label_name,
            required=self.marked_required,
            description=str(self.schema.get("description") or ""),
            help=self.marks["help"] if self.help_text else "",
            error=self.marks["error"],
            target=self.marks["target"] if target is not None else "",
            group=bool(target is not None and target[1]),
            layout=self.ctx.size(kind),
            _dom_classes=("workbench-field-label",),
        )
        self.label = label
        return [label]

    @property
    def input_classes(self) -> tuple[str, ...]:
        """The classes ``self.input`` is made with: the mark its label finds it by (``label_target``), so
        marking it later sends nothing."""
        return (self.marks["target"],)

    def row_extras(self) -> list[W.Widget]:
        """The state note and the clear button, for optional fields (shown after the input)."""
        return [self.state_label, self.clear_button] if self.state_label is not None else []

    def field_box(self, children: list[W.Widget]) -> W.VBox:
        """The field's outer box (``self.widget``): its rows, help line and, once one shows, its error line."""
        return self.ctx.make(W.VBox, classes=("workbench-field",), children=children)

    @property
    def error_label(self) -> W.HTML:
        """The field's error line (hidden while there is no error), made and put at the end of its box
        when first needed. A ``layout()`` that places it itself (a custom field's) gets it made there."""
        if self._error_label is None:
            # an inner field's errors describe its owner's control
            self._error_label = self.ctx.make(
                W.HTML, hidden=True, classes=("workbench-field-error", self.owner.marks["error"])
            )
            box = getattr(self, "widget", None)
            if box is not None:  # else: asked for by layout(), which places it
                box.children = (*box.children, self._error_label)
        return self._error_label

    def help_widget(self, indent: Optional[str] = None) -> list[W.Widget]:
        if not self.help_text:
            return []
        indent = self.ctx.label_width if indent is None else indent
        widget = self.ctx.make(
            W.HTML, value=help_html(self.help_text, indent), classes=("workbench-field-help", self.marks["help"])
        )
        return [widget]

    def layout(self) -> W.Widget:
        """Label, input, state and clear button; help line; error line."""
        if self.bare:
            return self.field_box([self.input])
        row = self.ctx.make(
            W.HBox, classes=("workbench-field-row",), children=[*self.label_widget(), self.input, *self.row_extras()]
        )
        return self.field_box([row, *self.help_widget(self.help_indent)])

    @property
    def help_indent(self) -> str:
        """Help and error lines line up with the input: after the label; flush under an inner field or
        a mapping row's value (no label of their own)."""
        return "0" if self.bare or getattr(self.parent, "keyed", False) else self.ctx.label_width

    @property
    def wide(self) -> bool:
        """Takes a form's full width in the compact layout's two columns (groups, text areas, JSON)."""
        return False

    def observe_value(self, widget: W.Widget, name: str = "value") -> None:
        widget.observe(self._on_widget_change, names=name)

    def _on_widget_change(self, change: Any = None) -> None:
        if self._quiet:
            return
        self.clear_error()
        self.mark_touched()
        self.check()

    def problems(self) -> list[str]:
        """What is wrong with what the widget shows now, as inline messages (``[]``: nothing). Checked as
        soon as the value changes — each keystroke in a text box, on blur in a number or JSON box — so the
        error appears and disappears while the user types, before *Run*."""
        return []

    def check(self) -> None:
        """Show ``problems()`` inline (the field's earlier error was cleared by the change)."""
        for message in self.problems():
            self.show_error(message)

    # -- watchers (the form layout: an "Optional (N)" disclosure counts set fields, opens on an error) --
    def watch(self, callback: Callable[["Field", str], Any]) -> None:
        """Call ``callback(field, event)`` when this field or one inside it changes: ``"state"`` (set,
        cleared, loaded) or ``"error"`` (an inline error was shown)."""
        self._watchers.append(callback)

    def _notify(self, event: str) -> None:
        field: Optional[Field] = self
        while field is not None:
            for callback in list(field._watchers):
                callback(self, event)
            field = field.parent

    @contextlib.contextmanager
    def quiet(self) -> Iterator[None]:
        """Change widgets without marking the field touched."""
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    # -- state ---------------------------------------------------------------------------------------
    def refresh_state(self) -> None:
        """Show *not set* / default / ``""`` / ``null`` as they are now (placeholder, note, clear button)."""
        if self.state_label is not None and self.clear_button is not None:
            note = self.state_note()
            self.state_label.value = f"<span style='{_STATE_STYLE}'>{_e(note)}</span>" if note else ""
            show(self.state_label, bool(note))
            show(self.clear_button, self.is_set)
        if self.text_like:
            self.input.placeholder = self.placeholder()

    def state_note(self) -> str:
        """The muted note after the input: ``not set — default: …`` while not set (text boxes say it in
        their placeholder instead)."""
        if self.is_set or self.text_like or not self.clearable:
            return ""
        return not_set_text(self.default)

    def placeholder(self) -> str:
        """A text box's placeholder: its state while empty."""
        if self.touched or self.explicit:
            return self.empty_text()
        owner = self.owner
        if not owner.is_set and (owner is self or getattr(owner, "inner", None) is self):
            return not_set_text(self.default)
        if self.default is not MISSING:
            return default_text(self.default)
        return self.hint()

    def hint(self) -> str:
        """What to type (a required, empty box)."""
        return ""

    def empty_text(self) -> str:
        """The placeholder of a box the user emptied."""
        return self.hint()

    # -- values --------------------------------------------------------------------------------------
    def mark_touched(self) -> None:
        self.touched = True
        self.refresh_state()
        if self.parent is not None:
            self.parent.mark_touched()
        else:
            self._notify("state")

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
        """Show ``value`` without marking the field touched (but it will be sent); what is wrong with it
        (out of bounds, too short…) is said inline at once, as if it was typed."""
        self.clear_error()
        with self.quiet():
            self._load(value)
        self.explicit = True
        self.refresh_state()
        self.check()
        if self.parent is None:
            self._notify("state")

    def set(self, value: Any) -> None:
        """Set the value as a user would: the field becomes touched."""
        self.load(value)
        self.mark_touched()

    def _load(self, value: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def show_default(self, value: Any) -> None:
        """Show the schema default while the field is not set (called quietly). Widgets show it as a
        value; text boxes (``text_like``) show it in their placeholder and keep the box empty."""
        self._load(value)
        self.default = value

    def clear(self) -> None:
        """Back to *not set*, as the form first showed it: the default (if any) shown, nothing sent."""
        with self.quiet():
            self._reset_widget()
            self.touched = self.explicit = False
            if self.default is not MISSING:
                try:
                    self.show_default(self.default)
                except (ValueError, TypeError, KeyError):
                    pass
        for sub in self.walk():
            sub.clear_error()
            sub.refresh_state()
        if self.parent is not None:
            self.parent.refresh_state()
        self._notify("state")

    def _reset_widget(self) -> None:  # pragma: no cover - abstract
        """Empty the widget (quietly), as ``build()`` made it."""
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
        self._errors = self._errors + [message]
        text = "<br>".join(_e(m) for m in self._errors)
        self.error_label.value = f"<div style='{_ERROR_STYLE};margin-left:{self.help_indent}'>⚠ {text}</div>"
        show(self.error_label, True)
        self._sync_invalid()
        self._notify("error")

    def clear_error(self) -> None:
        had = bool(self._errors)
        self._errors = []
        if self._error_label is not None:
            self._error_label.value = ""
            show(self._error_label, False)
        if had:
            self._sync_invalid()

    def _sync_invalid(self) -> None:
        """``aria-invalid`` on the owner's control while it or an inner field (no label of its own) shows an error."""
        owner = self.owner
        if owner.label is None:
            return
        stack, invalid = [owner], False
        while stack and not invalid:
            field = stack.pop()
            invalid = bool(field._errors)
            stack.extend(sub for sub in field.children_fields() if sub.bare)
        owner.label.invalid = invalid

    @property
    def error(self) -> Optional[str]:
        return "; ".join(self._errors) if self._errors else None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.path_text!r} rule={self.rule!r} touched={self.touched}>"


def _suffix(where: tuple) -> str:
    """``.qty``, ``[0]``: a place inside a field's value, as in its path."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in where)


def _require(value: Any, kinds: tuple, what: str) -> Any:
    if isinstance(value, bool) and bool not in kinds:
        raise TypeError(f"expected {what}, got a boolean")
    if not isinstance(value, kinds):
        raise TypeError(f"expected {what}, got {type(value).__name__} {value!r}")
    return value


class _TextBox(Field):
    """A field edited in a text box: the placeholder shows its state; an untouched empty box shows the
    default in the placeholder (``current()`` is then that default)."""

    text_like = True

    def show_default(self, value: Any) -> None:
        self._check_default(value)
        self.default = value

    def _check_default(self, value: Any) -> None:
        """Raise if ``value`` cannot be this field's value (the default is then ignored)."""

    def _reset_widget(self) -> None:
        self.input.value = ""

    def _shown_default(self) -> Any:
        """``default`` while the box is empty and untouched (it shows in the placeholder), else ``MISSING``."""
        return self.default if not (self.touched or self.explicit) else MISSING


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


class StringField(_TextBox):
    """``Text``; an empty, untouched box is *not set* (or its default); an emptied one sends ``""``.

    Checked as you type: the box syncs each keystroke (``continuous_update``) and what the schema says
    about the string (``minLength``, ``maxLength``, ``pattern``, ``format``) is checked at once with a
    compiled validator (microseconds: no debounce needed), in ``check_inputs``' own words.
    """

    def build(self) -> None:
        self.input = self._widget()
        self.observe_value(self.input)

    def _widget(self, **kw: Any) -> W.Widget:
        return self.ctx.make(W.Text, "text", continuous_update=True, **kw, classes=self.input_classes)

    def problems(self) -> list[str]:
        value = self.current()
        if value is MISSING:
            return []
        return [f"{self.path_text}: {text}" for _where, text in self.checker(value)]

    @property
    def checker(self) -> Callable[[Any], list[tuple[tuple, str]]]:
        """The compiled check of this field's schema (made on first use)."""
        if getattr(self, "_checker", None) is None:
            self._checker = value_checker(self.schema, self.ctx.root)
        return self._checker

    def hint(self) -> str:
        return _PLACEHOLDERS.get(str(self.schema.get("format")), "")

    def empty_text(self) -> str:
        return '"" (empty string)'

    def _check_default(self, value: Any) -> None:
        _require(value, (str,), "a string")

    def current(self) -> Any:
        value = self.input.value
        if value == "" and not (self.touched or self.explicit):
            return self._shown_default()
        return value

    def _load(self, value: Any) -> None:
        if value is None:
            raise TypeError("a string field cannot show null")
        self.input.value = value if isinstance(value, str) else str(value)


class TextareaField(StringField):
    """Multi-line ``Textarea`` for long text (see ``is_long_text``)."""

    def _widget(self, **kw: Any) -> W.Widget:
        return self.ctx.make(W.Textarea, "area", rows=4, continuous_update=True, **kw, classes=self.input_classes)

    @property
    def wide(self) -> bool:
        return True


class PasswordField(StringField):
    """A secret (``SecretStr``: ``format: "password"`` / ``writeOnly``) in a password box whose value is
    never saved with the notebook (``SecretInput``); the form masks it in everything it shows."""

    def _widget(self, **kw: Any) -> W.Widget:
        return self.ctx.make(SecretInput, "text", **kw, classes=self.input_classes)

    def hint(self) -> str:
        return "secret: not logged or saved"

    def problems(self) -> list[str]:
        value = self.current()
        return [mask_values(problem, [value]) for problem in super().problems()] if isinstance(value, str) else []

    def placeholder(self) -> str:
        if self.default is not MISSING and not (self.touched or self.explicit):
            return not_set_text(MASK) if not self.owner.is_set else default_text(MASK)
        return super().placeholder()


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
        self.input = self.ctx.make(W.Dropdown, "choice", options=unique, index=None, classes=self.input_classes)
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

    def _reset_widget(self) -> None:
        self.input.index = None


class ConstField(Field):
    """A fixed value (``const`` / a one-value ``Literal``): shown, not editable."""

    def build(self) -> None:
        self.input = self.ctx.make(W.HTML, value=f"<code>{_e(_json_text(self.schema.get('const')))}</code>")

    def label_target(self) -> None:
        return None  # nothing to focus or edit

    def current(self) -> Any:
        return self.schema.get("const")

    def _load(self, value: Any) -> None:
        if value != self.schema.get("const"):
            raise ValueError(f"{value!r} is not the constant {self.schema.get('const')!r}")

    def _reset_widget(self) -> None:
        pass


# -- numbers ---------------------------------------------------------------------------------------------
class NumberField(_TextBox):
    """A number typed as text and read with ``parse_number`` (JSON number grammar).

    Not ``IntText``/``FloatText``/``Bounded…``: those coerce in the browser — ``3.7`` becomes ``37``,
    ``1e3`` becomes ``13``, ``abc`` becomes ``0`` on blur and ``200`` is clamped to ``150`` — so what
    is sent is not what was typed and nobody is told. Here the text stays as typed; a text that is not
    a number is an inline error (``FieldValueError``: the form refuses to run), and bounds and
    ``multipleOf`` are checked on blur and reported, never clamped. An empty box is *missing*, never 0.
    """

    integer = False

    def build(self) -> None:
        # continuous_update=False: the value arrives (and is checked) on blur or Enter, not per keystroke
        # ("1" on the way to "150" is not an error worth flashing)
        self.input = self.ctx.make(W.Text, "number", continuous_update=False, classes=self.input_classes)
        self.observe_value(self.input)

    def hint(self) -> str:
        return "integer" if self.integer else "number"

    def problems(self) -> list[str]:
        problem = self.problem()
        return [problem] if problem else []

    def problem(self) -> Optional[str]:
        """What is wrong with the typed text (not a number, out of bounds…), as an inline message, or None."""
        text = self.input.value
        if not text.strip():
            return None
        try:
            value = parse_number(text, integer=self.integer)
        except ValueError as exc:
            return f"{self.path_text}: {exc}"
        wrong = number_problem(value, self.schema)
        return f"{self.path_text}: {wrong}, received {text.strip()}" if wrong else None

    def current(self) -> Any:
        text = self.input.value
        if not text.strip():
            return self._shown_default()
        try:
            return parse_number(text, integer=self.integer)
        except ValueError as exc:
            raise FieldValueError(self, f"{self.path_text}: {exc}") from None

    def _value(self, value: Any) -> Any:
        """``value`` as this field's number (``TypeError``/``ValueError`` if it is not one)."""
        if self.integer and isinstance(value, float) and value.is_integer():
            value = int(value)
        value = _require(value, (int,) if self.integer else (int, float), "an integer" if self.integer else "a number")
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{value} is not a JSON number")
        return value

    def _check_default(self, value: Any) -> None:
        self._value(value)

    def _load(self, value: Any) -> None:
        self.input.value = number_text(self._value(value))

    def load(self, value: Any) -> None:
        """Show ``value`` — out of bounds included, as a user could type it — with its problem inline."""
        super().load(value)


class IntField(NumberField):
    """An integer (JSON Schema ``integer``): ``3.0`` and ``1e3`` are whole numbers, ``3.7`` is refused."""

    integer = True


class FloatField(NumberField):
    """A number (JSON Schema ``number``)."""


class BoolField(Field):
    """``Checkbox``."""

    def build(self) -> None:
        # width auto: the default 300px pushed the state note and the clear button far from the box
        self.input = self.ctx.make(W.Checkbox, "checkbox", value=False, indent=False, classes=self.input_classes)
        self.observe_value(self.input)

    def current(self) -> Any:
        return bool(self.input.value)

    def _load(self, value: Any) -> None:
        self.input.value = _require(value, (bool,), "a boolean")

    def _reset_widget(self) -> None:
        self.input.value = False


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
        self.input = self.ctx.make(W.DatePicker, value=None, classes=self.input_classes)
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

    def _reset_widget(self) -> None:
        self.input.value = None


class DateTimeField(Field):
    """``NaiveDatetimePicker``; sends ISO 8601. An aware value is shown in its own offset and sent with it."""

    def build(self) -> None:
        self.tzinfo: Optional[_dt.tzinfo] = None
        self.input = self.ctx.make(W.NaiveDatetimePicker, value=None, classes=self.input_classes)
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

    def _reset_widget(self) -> None:
        self.tzinfo = None
        self.input.value = None


class TimeField(Field):
    """``TimePicker``; sends ``HH:MM:SS``."""

    def build(self) -> None:
        self.input = self.ctx.make(W.TimePicker, value=None, step=1, classes=self.input_classes)
        self.observe_value(self.input)

    def current(self) -> Any:
        value = self.input.value
        return MISSING if value is None else value.isoformat()

    def _load(self, value: Any) -> None:
        if not isinstance(value, _dt.time):
            value = _dt.time.fromisoformat(_require(value, (str,), "an ISO 8601 time"))
        self.input.value = value.replace(tzinfo=None)

    def _reset_widget(self) -> None:
        self.input.value = None


# -- JSON fallback ---------------------------------------------------------------------------------------
class JSONField(_TextBox):
    """A JSON ``Textarea``: free-form objects, ``Any``, and any schema no other widget fits.

    Empty → not set (or the default, shown in the placeholder). Text that is not JSON is an inline
    error — unless the schema admits a string (``Any`` or a string type), then it is sent as that string.
    """

    def build(self) -> None:
        # checked on blur: half-typed JSON ({"a": ) is not an error worth flashing at each keystroke
        self.input = self.ctx.make(W.Textarea, "area", rows=3, continuous_update=False, classes=self.input_classes)
        self.observe_value(self.input)

    @property
    def wide(self) -> bool:
        return True

    def hint(self) -> str:
        return 'JSON, e.g. {"key": "value"}'

    def problems(self) -> list[str]:
        try:
            value = self.current()
        except FieldValueError as exc:
            return [str(exc)]
        if value is MISSING:
            return []
        return [
            f"{self.path_text}{_suffix(where)}: {text}"
            for where, text in value_checker(self.schema, self.ctx.root)(value)
        ]

    def current(self) -> Any:
        text = self.input.value
        if not text.strip():
            return self._shown_default()
        try:
            return load_json(text)
        except json.JSONDecodeError as exc:  # (its too-deep error is one too)
            types = json_types(self.schema)
            if not types or "string" in types:
                return text
            raise FieldValueError(
                self, f"{self.path_text}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
            ) from None

    def _load(self, value: Any) -> None:
        pretty = isinstance(value, (dict, list)) and len(_json_text(value)) > 60
        self.input.value = json.dumps(value, ensure_ascii=False, indent=2 if pretty else None, default=str)
