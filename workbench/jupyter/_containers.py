"""Container fields: nested objects, editable lists, multi-selects, tuples, mappings, unions and nullables.

Each one builds its children through ``ctx.build`` (the table in ``_field_table.py``), so any schema
can nest in any other.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional

import ipywidgets as W

from workbench.jupyter._fields import (
    _NULL_STYLE,
    MISSING,
    Field,
    FieldValueError,
    _json_text,
    missing_message,
    not_set_text,
)
from workbench.jupyter._schema_utils import resolve, value_matches, variant_label
from workbench.jupyter._widget_kit import show

#: rows a loaded list builds at once (at most); the rest wait behind "show more"
ROWS_PAGE = 20
#: a page of big rows (a model's fields) has fewer rows: about this many widgets, each a model the page
#: creates and renders (300 items of a two-field model: 10 rows shown in about half a second)
PAGE_WIDGETS = 150
#: but never fewer rows than this
MIN_ROWS = 5

__all__ = [
    "ROWS_PAGE",
    "PAGE_WIDGETS",
    "MIN_ROWS",
    "ObjectField",
    "ListField",
    "MultiSelectField",
    "TupleField",
    "MappingField",
    "VariantField",
    "NullableField",
]


def _required_value(item: Field) -> Any:
    """A row's or position's value; an empty one is a *missing* error naming that row (never sent as null)."""
    value = item.get()
    if value is MISSING:
        raise FieldValueError(item, missing_message(item))
    return value


class _Container(Field):
    container = True

    @property
    def wide(self) -> bool:
        return True

    def label_target(self) -> Optional[tuple[W.Widget, bool]]:
        """A group: its box is ``role="group"``, named by the label; a click on the label focuses its first control."""
        return self.input, True

    def layout(self) -> W.Widget:
        """A header (label, selector or toggle, state, clear), the help line, the nested input, errors.
        An inner (bare) container keeps its header extras (e.g. a union's selector) on a line of their own."""
        parts: list[W.Widget] = []
        if not self.bare:
            header_parts = [*self.label_widget("group-label"), *self.header_extras(), *self.row_extras()]
            if header_parts:
                parts.append(self.ctx.make(W.HBox, classes=("workbench-field-row",), children=header_parts))
            parts += self.help_widget("16px")
        elif self.header_extras() and not getattr(self.parent, "hosts_inner_header", False):
            parts.append(self.ctx.make(W.HBox, children=self.header_extras()))
        parts.append(self.input)
        return self.field_box(parts)

    def header_extras(self) -> list[W.Widget]:
        return []


class ObjectField(_Container):
    """A nested group: one child field per property (pydantic models, dataclasses, TypedDicts)."""

    def build(self) -> None:
        props = self.schema.get("properties") or {}
        required = set(self.schema.get("required") or [])
        deeper = self.ctx.deeper()
        self.fields: dict[str, Field] = {
            key: self.ctx.build(sub, deeper, key, required=key in required, parent=self) for key, sub in props.items()
        }
        self.input = self.ctx.make(
            W.VBox, "indent", classes=self.input_classes, children=[f.widget for f in self.fields.values()]
        )

    def _reset_widget(self) -> None:
        for sub in self.fields.values():
            sub.clear()

    def current(self) -> Any:
        out = {}
        for key, sub in self.fields.items():
            value = sub.get()
            if value is not MISSING:
                out[key] = value
        return out

    def _load(self, value: Any) -> None:
        if not isinstance(value, dict):
            raise TypeError(f"expected an object, got {type(value).__name__}")
        unknown = set(value) - set(self.fields)
        if unknown:
            raise KeyError(f"unknown field(s) {', '.join(sorted(map(str, unknown)))} (known: {', '.join(self.fields)})")
        for key, sub in value.items():
            self.fields[key].load(sub)

    def child(self, key: Any) -> Optional[Field]:
        return self.fields.get(key) if isinstance(key, str) else None

    def children_fields(self) -> list[Field]:
        return list(self.fields.values())


class _Rows(_Container):
    """Shared add/remove-row machinery of lists and mappings."""

    def build(self) -> None:
        self.rows: list[Any] = []
        self._hold_redraw = False  # inside _batched(): one redraw at its end
        self._dropped: list[Any] = []  # rows gone from the list, their widgets closed at the next redraw
        self.rows_box = self.ctx.make(W.VBox, children=[])
        self.add_button = self.ctx.make(W.Button, "add", description="add", icon="plus", tooltip="Add an item")
        self.add_button.on_click(lambda _b: self.add_row(user=True))
        self.input = self.ctx.make(
            W.VBox, "indent", classes=self.input_classes, children=[self.rows_box, self.add_button]
        )

    def _remove_button(self, row: Any) -> W.Button:
        button = self.ctx.make(W.Button, "remove", icon="times", tooltip="Remove this item")
        button.on_click(lambda _b: self.remove_row(row))
        return button

    def add_row(self, value: Any = MISSING, *, user: bool = False) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def remove_row(self, row: Any) -> None:
        if row in self.rows:
            self.rows.remove(row)
            self._removed(row)

    def _removed(self, row: Any) -> None:
        """After ``row`` left the list: number the rest, redraw (closing its widgets), mark the field touched."""
        self._dropped.append(row)
        self._renumber()
        self._redraw()
        if not self._quiet:
            self.mark_touched()

    def _renumber(self) -> None:
        pass

    def _redraw(self) -> None:
        """Show the rows, then close the widgets of the rows gone since the last redraw: each widget is a
        model in the kernel and in the page until it is closed (a list loaded again and again, JSON → Form,
        kept every row it ever had), and closing them after the new rows are shown keeps the page from
        handling a close message per widget before it gets to those."""
        if self._hold_redraw:
            return
        self._show_rows()
        dropped, self._dropped = self._dropped, []
        for row in dropped:
            _close_tree(row.box)

    def _show_rows(self) -> None:
        self.rows_box.children = [r.box for r in self.rows]

    @contextlib.contextmanager
    def _batched(self) -> Iterator[None]:
        """Redraw once after adding many rows (not once per row: each redraw sends every row again), and let
        the widgets of the new rows send their changes (loaded values, placeholders) once each."""
        outermost = not self._hold_redraw
        self._hold_redraw = True
        try:
            with self.ctx.kit.batch():
                yield
        finally:
            if outermost:
                self._hold_redraw = False
                self._redraw()

    def clear_rows(self) -> None:
        self._dropped += self.rows
        self.rows = []
        self._redraw()

    def _reset_widget(self) -> None:
        self.clear_rows()


def _close_tree(widget: W.Widget) -> None:
    """Close ``widget`` and the widgets it shows (not layouts and styles: a form's fields share those)."""
    for child in getattr(widget, "children", ()):
        _close_tree(child)
    widget.close()


def _count_widgets(widget: W.Widget) -> int:
    """The widgets shown in ``widget``'s tree (itself and its children, recursively; shared layouts aside)."""
    return 1 + sum(_count_widgets(child) for child in getattr(widget, "children", ()))


class _ListRow:
    __slots__ = ("field", "box")
    field: Field
    box: Any  # W.HBox


class ListField(_Rows):
    """An editable list: one row per item (any item schema), with add and remove buttons.

    A loaded list builds a page of rows — :data:`ROWS_PAGE` (20), fewer when a row is big (a page makes
    about :data:`PAGE_WIDGETS` widgets, never fewer than :data:`MIN_ROWS` rows); the other items wait, as
    values, behind a "show more" button that builds the next page (building hundreds of rows of a model
    at once froze the form for a minute). Unbuilt items are still sent; a field path into one (an
    error) builds the rows up to it. An item the user adds goes after every loaded one and is shown at
    once, under "show more" (``tail``), without building the items between."""

    def build(self) -> None:
        self.item_schema = self.schema.get("items") if isinstance(self.schema.get("items"), dict) else {}
        super().build()
        self.pending: list[Any] = []  # the loaded items past the built rows, in order
        self._row_widgets: Optional[int] = None  # widgets the first row made (sizes the pages)
        self.tail: list[_ListRow] = []  # rows added by the user while loaded items wait: they follow those
        self.tail_box = self.ctx.make(W.VBox, children=[])
        self.more_button = self.ctx.make(
            W.Button,
            "more",
            hidden=True,
            description="show more",
            icon="angle-double-down",
            tooltip="Show the next items of this list",
            classes=("workbench-show-more",),
        )
        self.more_button.on_click(lambda _b: self._click_more())
        self.input.children = [self.rows_box, self.more_button, self.tail_box, self.add_button]

    @property
    def page_rows(self) -> int:
        """Rows a page builds: :data:`ROWS_PAGE`, fewer for rows of many widgets (known once one is built)."""
        if not self._row_widgets:
            return ROWS_PAGE
        return max(MIN_ROWS, min(ROWS_PAGE, PAGE_WIDGETS // self._row_widgets))

    def show_more(self, count: int = 0) -> None:
        """Build the next ``count`` (default: a page, ``page_rows``) waiting items."""
        built = 0
        try:
            with self._batched():
                while self.pending and built < (count or self.page_rows):
                    item = self.pending.pop(0)
                    try:
                        self.add_row(item)
                    except (TypeError, ValueError, KeyError):
                        self.pending.insert(0, item)  # still sent as it is; the validator names what is wrong
                        raise
                    built += 1
                if not self.pending and self.tail:  # every loaded item is built: the added rows follow them
                    self.rows, self.tail = self.rows + self.tail, []
        finally:
            self._update_more()

    def _click_more(self) -> None:
        """The button says it is working (the browser gets that at once) while the next page is built."""
        self.more_button.disabled = True
        self.more_button.description = "showing more…"
        try:
            self.show_more()
        finally:
            self.more_button.disabled = False

    def build_rows(self, count: int) -> None:
        """Build rows until ``count`` are (or every item is) built. ``TypeError``/``ValueError``/``KeyError``
        if an item cannot be shown in its row (it stays unbuilt, and is sent as it is)."""
        missing = min(count, len(self.rows) + len(self.pending)) - len(self.rows)
        if missing > 0:
            self.show_more(missing)

    def _update_more(self) -> None:
        if self.pending:
            self.more_button.description = f"show more ({len(self.pending)} more)"
        show(self.more_button, bool(self.pending))

    def clear_rows(self) -> None:
        self.pending = []
        self._dropped += self.tail
        self.tail = []
        super().clear_rows()
        self._update_more()

    def _show_rows(self) -> None:
        super()._show_rows()
        self.tail_box.children = [r.box for r in self.tail]

    def add_row(self, value: Any = MISSING, *, user: bool = False) -> Field:
        after = user and bool(self.pending)  # a new item goes after every loaded one (those stay unbuilt)
        index = len(self.rows) + (len(self.pending) + len(self.tail) if after else 0)
        row = _ListRow()
        item = self.ctx.build(self.item_schema, self.ctx.deeper(), index, required=True, parent=self)
        if value is not MISSING:
            item.load(value)
        elif user:
            item.touched = True  # a row the user added is meant to be sent (an empty string row sends "")
            item.refresh_state()
        row.field = item
        row.box = self.ctx.make(W.HBox, children=[item.widget, self._remove_button(row)])
        if self._row_widgets is None:
            self._row_widgets = _count_widgets(row.box)
        (self.tail if after else self.rows).append(row)
        self._redraw()
        if user and not self._quiet:
            self.mark_touched()
        return item

    def remove_row(self, row: Any) -> None:
        if row in self.tail:
            self.tail.remove(row)
            self._removed(row)
        else:
            super().remove_row(row)

    def _renumber(self) -> None:
        for i, row in enumerate(self.rows):
            row.field.rename(i)
        start = len(self.rows) + len(self.pending)
        for i, row in enumerate(self.tail):
            row.field.rename(start + i)

    def current(self) -> Any:
        return (
            [_required_value(row.field) for row in self.rows]
            + list(self.pending)
            + [_required_value(row.field) for row in self.tail]
        )

    def _load(self, value: Any) -> None:
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise TypeError(f"expected a list, got {type(value).__name__}")
        # one redraw: the new page replaces the old rows, whose widgets are closed after it (not before:
        # the page handles each close message before it gets to the new rows)
        with self._batched():
            self.clear_rows()
            self.pending = list(value)
            self.show_more()

    def child(self, key: Any) -> Optional[Field]:
        start = len(self.rows) + len(self.pending)
        if isinstance(key, int) and start <= key < start + len(self.tail) and self.pending:
            return self.tail[key - start].field
        if isinstance(key, int):
            try:
                self.build_rows(key + 1)
            except (TypeError, ValueError, KeyError):
                return None  # an item its row cannot show: a problem in it is shown on the list
        if isinstance(key, int) and 0 <= key < len(self.rows):
            return self.rows[key].field
        return None

    def children_fields(self) -> list[Field]:
        return [r.field for r in self.rows + self.tail]


class MultiSelectField(Field):
    """``SelectMultiple`` for a list of enum values (``list[Literal[...]]``, ``list[Enum]``, ``set[Enum]``).

    Values are sent in option order.
    """

    def build(self) -> None:
        items = resolve(self.schema.get("items") or {}, self.ctx.root)
        self.options = list(items.get("enum") or [])
        labels = [v if isinstance(v, str) else _json_text(v) for v in self.options]
        self.input = self.ctx.make(
            W.SelectMultiple,
            "choice",
            options=labels,
            value=(),
            rows=min(6, max(2, len(labels))),
            classes=self.input_classes,
        )
        self.observe_value(self.input, "index")

    def current(self) -> Any:
        return [self.options[i] for i in self.input.index]

    def _load(self, value: Any) -> None:
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise TypeError(f"expected a list, got {type(value).__name__}")
        indexes = []
        for item in value:
            matches = [i for i, o in enumerate(self.options) if o == item and type(o) is type(item)]
            if not matches:
                raise ValueError(f"{item!r} is not one of {self.options!r}")
            indexes.append(matches[0])
        self.input.index = tuple(sorted(set(indexes)))

    def _reset_widget(self) -> None:
        self.input.index = ()


class TupleField(_Container):
    """A fixed-length array (``tuple[int, str]``): one field per position."""

    positional = True

    def build(self) -> None:
        prefix = self.schema.get("prefixItems") or []
        deeper = self.ctx.deeper()
        self.items = [self.ctx.build(sub, deeper, i, required=True, parent=self) for i, sub in enumerate(prefix)]
        self.input = self.ctx.make(
            W.VBox, "indent", classes=self.input_classes, children=[f.widget for f in self.items]
        )

    def _reset_widget(self) -> None:
        for sub in self.items:
            sub.clear()

    def current(self) -> Any:
        """All positions empty → *missing* (nothing typed yet); some empty → an error naming the first."""
        if self.items and all(f.get() is MISSING for f in self.items):
            return MISSING
        return [_required_value(f) for f in self.items]

    def _load(self, value: Any) -> None:
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"expected a list, got {type(value).__name__}")
        if len(value) != len(self.items):
            raise ValueError(f"expected {len(self.items)} items, got {len(value)}")
        for sub, item in zip(self.items, value):
            sub.load(item)

    def child(self, key: Any) -> Optional[Field]:
        return self.items[key] if isinstance(key, int) and 0 <= key < len(self.items) else None

    def children_fields(self) -> list[Field]:
        return list(self.items)


class _MapRow:
    __slots__ = ("key", "field", "box")
    key: Any  # W.Text
    field: Field
    box: Any  # W.HBox


class MappingField(_Rows):
    """``dict[str, X]``: rows of *key* (Text) and *value* (the field for ``X``). The key box is the
    row's label: values show no label of their own (no ``*``, no label-wide gap)."""

    keyed = True

    def build(self) -> None:
        extra = self.schema.get("additionalProperties")
        self.value_schema = extra if isinstance(extra, dict) else {}
        super().build()

    def add_row(self, value: Any = MISSING, *, user: bool = False, key: str = "") -> Field:
        row = _MapRow()
        row.key = self.ctx.make(W.Text, "key", value=key, placeholder="key")
        row.field = self.ctx.build(self.value_schema, self.ctx.deeper(), key, required=True, parent=self)
        row.key.observe(lambda change, r=row: self._key_changed(r), names="value")
        if value is not MISSING:
            row.field.load(value)
        elif user:
            row.field.touched = True
            row.field.refresh_state()
        row.box = self.ctx.make(W.HBox, children=[row.key, row.field.widget, self._remove_button(row)])
        self.rows.append(row)
        self._redraw()
        if user and not self._quiet:
            self.mark_touched()
        return row.field

    def _key_changed(self, row: _MapRow) -> None:
        row.field.rename(row.key.value)
        if not self._quiet:
            self.mark_touched()

    def current(self) -> Any:
        out: dict[str, Any] = {}
        for row in self.rows:
            key = row.key.value
            if key == "":
                raise FieldValueError(self, f"{self.path_text}: a row has an empty key")
            if key in out:
                raise FieldValueError(self, f"{self.path_text}: duplicate key {key!r}")
            out[key] = _required_value(row.field)
        return out

    def _load(self, value: Any) -> None:
        if not isinstance(value, dict):
            raise TypeError(f"expected an object, got {type(value).__name__}")
        with self._batched():  # as ListField._load: the old rows are closed after the new ones show
            self.clear_rows()
            for key, item in value.items():
                self.add_row(item, key=str(key))

    def child(self, key: Any) -> Optional[Field]:
        return next((r.field for r in self.rows if r.key.value == key), None)

    def children_fields(self) -> list[Field]:
        return [r.field for r in self.rows]


class VariantField(_Container):
    """A union (``anyOf``/``oneOf``): a Dropdown picks the alternative, below it that alternative's field.

    The Dropdown is shown even when the union is the inner field of a nullable (``Optional[Union[A, B]]``,
    ``Union[int, str, None]``): there it sits on its own line under the *none* toggle.
    """

    def build(self) -> None:
        from workbench.jupyter._schema_utils import variants_of

        self.variants = variants_of(self.schema) or []
        labels = [variant_label(v, self.ctx.root) for v in self.variants]
        unique, seen = [], set()
        for i, label in enumerate(labels):
            unique.append(label if label not in seen else f"{label} #{i + 1}")
            seen.add(label)
        self.labels = unique
        self._built: dict[int, Field] = {}
        self.selector = self.ctx.make(
            W.Dropdown,
            "selector",
            options=self.labels,
            index=0,
            tooltip="Which alternative to send",
            classes=("workbench-variant-selector",),
        )
        self.slot = self.ctx.make(W.VBox, children=[self._variant(0).widget])
        self.selector.observe(self._switched, names="index")
        self.input = self.ctx.make(W.VBox, children=[self.slot])
        self.input.layout = self._slot_layout()

    def _slot_layout(self) -> W.Layout:
        """Indented under the selector, unless the alternative is a group with its own indent."""
        return self.ctx.size("plain" if self.selected.container else "indent")

    def header_extras(self) -> list[W.Widget]:
        return [self.selector]

    def label_target(self) -> Optional[tuple[W.Widget, bool]]:
        """The alternative selector: the label names it."""
        return self.selector, False

    def _variant(self, index: int) -> Field:
        if index not in self._built:
            self._built[index] = self.ctx.build(
                self.variants[index], self.ctx.deeper(), None, required=True, parent=self
            )
        return self._built[index]

    @property
    def selected(self) -> Field:
        return self._variant(self.selector.index or 0)

    def _switched(self, change: Any) -> None:
        self.slot.children = [self.selected.widget]
        self.input.layout = self._slot_layout()
        if not self._quiet:
            self.clear_error()
            self.mark_touched()

    def current(self) -> Any:
        return self.selected.current()

    def _load(self, value: Any) -> None:
        index = self._pick(value)
        self.selector.index = index
        self._variant(index).load(value)

    def show_default(self, value: Any) -> None:
        index = self._pick(value)
        self.selector.index = index
        self._variant(index).show_default(value)
        self._variant(index).refresh_state()
        self.default = value

    def _reset_widget(self) -> None:
        self.selector.index = 0
        for sub in self._built.values():
            sub.clear()

    def _pick(self, value: Any) -> int:
        for i, variant in enumerate(self.variants):
            if value_matches(value, variant, self.ctx.root):
                return i
        for i in range(len(self.variants)):  # no exact match: the first alternative that can show it
            try:
                probe = self.ctx.build(self.variants[i], self.ctx.deeper(), None, required=True, parent=None)
                with probe.quiet():
                    probe._load(value)
                return i
            except (TypeError, ValueError, KeyError):
                continue
        raise ValueError(f"{value!r} matches none of the alternatives ({', '.join(self.labels)})")

    def child(self, key: Any) -> Optional[Field]:
        return self.selected.child(key)

    def children_fields(self) -> list[Field]:
        return [self.selected]


class NullableField(_Container):
    """``X | None``: a *none* toggle next to the field for ``X``. A ticked toggle sends ``null``;
    unticking it means "I want a value" and sends what the field shows (an empty string included).

    The three states look different: *not set* is a muted ``not set — default: null`` note (or the
    inner box's placeholder), ``null`` is a ``null`` pill where the input was, a value is the input.
    An inner union's selector (``Optional[Union[A, B]]``) sits in this field's row, after *none*.
    """

    hosts_inner_header = True

    def __init__(self, schema: dict, ctx: Any, name: Any, *, inner: dict, **kw: Any) -> None:
        self.inner_schema = inner
        super().__init__(schema, ctx, name, **kw)

    def build(self) -> None:
        self.inner = self.ctx.build(self.inner_schema, self.ctx, None, required=True, parent=self)
        self.none_box = self.ctx.make(
            W.Checkbox,
            "none-toggle",
            value=False,
            description="none",
            indent=False,
            tooltip="Send null",
            classes=("workbench-none-toggle",),
        )
        self.none_box.observe(self._toggled, names="value")
        self.null_pill = self.ctx.make(
            W.HTML,
            hidden=True,
            value="<span style='" + _NULL_STYLE + "'>null</span>",
            tooltip="null will be sent",
            classes=("workbench-null",),
        )
        self.input = self.ctx.make(W.VBox, children=[self.inner.widget]) if self.inner.container else self.inner.widget

    def header_extras(self) -> list[W.Widget]:
        return [self.none_box, *self._inner_header(), self.null_pill]

    def label_target(self) -> Optional[tuple[W.Widget, bool]]:
        """The inner field's control (the box a value is typed in), not the *none* toggle."""
        return self.inner.label_target()

    @property
    def wide(self) -> bool:
        return self.inner.wide

    def _inner_header(self) -> list[W.Widget]:
        """The inner container's header widgets (a union's selector), shown in this row."""
        return self.inner.header_extras() if isinstance(self.inner, _Container) else []

    def layout(self) -> W.Widget:
        if self.inner.container or self.bare:
            return super().layout()
        row = self.ctx.make(
            W.HBox,
            classes=("workbench-field-row",),
            children=[*self.label_widget(), self.none_box, self.input, self.null_pill, *self.row_extras()],
        )
        return self.field_box([row, *self.help_widget(self.help_indent)])

    def _toggled(self, change: Any) -> None:
        for widget in (self.input, *self._inner_header()):
            show(widget, not self.none_box.value)
        if not self._quiet:
            self.clear_error()
            if not self.none_box.value:
                self.inner.touched = True  # the user asked for a value
            self.mark_touched()
        self.refresh_state()

    def refresh_state(self) -> None:
        super().refresh_state()
        none = bool(self.none_box.value)
        show(self.null_pill, none and self.is_set)
        if hasattr(self, "inner"):
            self.inner.refresh_state()  # a text box's placeholder says whether this field is set

    def state_note(self) -> str:
        if self.is_set or not self.clearable:
            return ""
        if not self.none_box.value and self.inner.text_like:
            return ""  # the inner box's placeholder says it
        return not_set_text(self.default)

    @property
    def is_none(self) -> bool:
        return bool(self.none_box.value)

    def current(self) -> Any:
        return None if self.none_box.value else self.inner.current()

    def _load(self, value: Any) -> None:
        if value is None:
            self.none_box.value = True
        else:
            self.inner.load(value)
            self.none_box.value = False

    def show_default(self, value: Any) -> None:
        if value is None:
            self.none_box.value = True
        else:
            self.inner.show_default(value)
            self.none_box.value = False
        self.default = value

    def _reset_widget(self) -> None:
        self.none_box.value = False
        self.inner.clear()

    def set_none(self) -> None:
        """Tick *none* as a user would (sends ``null``)."""
        self.none_box.value = True
        if self.none_box.value and not self.touched:
            self.mark_touched()

    def child(self, key: Any) -> Optional[Field]:
        return None if self.none_box.value else self.inner.child(key)

    def children_fields(self) -> list[Field]:
        return [self.inner]
