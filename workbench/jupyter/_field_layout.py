"""How a form lays out its top-level fields (``ToolForm(tool, layout=…)``).

=========  ===========================================================================================
layout     what the user sees
=========  ===========================================================================================
``auto``   the default: ``full`` — except that a tool with more than ``COLLAPSE_OVER`` (12) parameters
           shows its required fields and puts the optional ones under a collapsed *Optional (N)*
           disclosure (one column, full-width labels), so a long form starts with what must be filled
``full``   one column, every field shown, in the schema's order
``compact`` narrower labels; scalar fields (text, numbers, choices, checkboxes, dates) in two columns —
           groups, lists, text areas and JSON boxes span both; optional fields under a collapsed
           *Optional (N)* disclosure
=========  ===========================================================================================

The disclosure's header is a real button (Tab reaches it, Enter or Space toggles it, screen readers hear
"expanded" / "collapsed"), not ipywidgets' Accordion header, which a keyboard cannot reach. It never
hides a problem: its title counts the optional fields that are set (*Optional (14)
· 2 set*) and it opens by itself when a field inside it shows an error (a Run that failed, a value typed
or loaded into it). Values are unaffected by the layout: ``form.values`` / ``set_values`` / ``errors``
read and write the same fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

import ipywidgets as W

from workbench.jupyter._disclosure import Disclosure
from workbench.jupyter._fields import LAYOUTS, Field, FieldContext
from workbench.jupyter._widget_kit import LAYOUTS as KIT_LAYOUTS

__all__ = [
    "COLLAPSE_OVER",
    "SPAN_BOTH",
    "FieldArrangement",
    "FieldMap",
    "OptionalSection",
    "arrange_fields",
    "resolve_layout",
]

#: in the ``auto`` layout, a tool with more parameters than this collapses its optional ones
COLLAPSE_OVER = 12
#: the grid area of a field that spans both columns (its shared layout is the kit's ``span-both``)
SPAN_BOTH = KIT_LAYOUTS[True]["span-both"]["grid_area"]


def resolve_layout(layout: str, count: int) -> tuple[bool, bool]:
    """``(compact, collapse_optional)`` for a layout name and a number of top-level fields."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(map(repr, LAYOUTS))}, got {layout!r}")
    if layout == "compact":
        return True, True
    return False, layout == "auto" and count > COLLAPSE_OVER


def _grid(fields: list[Field]) -> W.GridBox:
    """Two columns; a wide field (group, text area, JSON) spans both."""
    box = W.GridBox(
        [],
        layout=W.Layout(
            grid_template_columns="repeat(2, minmax(0, 1fr))", grid_gap="0 18px", width="100%", align_items="flex-start"
        ),
    )
    box.add_class("workbench-field-grid")
    _fill(box, fields)
    return box


def _fill(box: W.Box, fields: list[Field]) -> None:
    """Show ``fields`` in ``box`` (a grid: wide fields span both columns; a column: one under another)."""
    if isinstance(box, W.GridBox):
        for item in fields:
            if item.wide:
                # grid_area, not grid_column: ipywidgets applies the layout's traits in order and removing the
                # unset grid-area shorthand afterwards would wipe a grid-column
                item.widget.layout = item.ctx.size("span-both")  # a swap: the field's own layout is shared
    box.children = [f.widget for f in fields]


class OptionalSection:
    """The *Optional (N)* disclosure (a ``Disclosure``: its header is a real button), collapsed at first.

    Fast path: its fields are built only when first needed — the section opened (a click, ``expand()``)
    or one of its fields read (``form.fields[name]``, ``set_values``, an error's path) — so the first
    paint of a long form does not wait for fields it does not show. Safe: an optional field nobody
    touched is *not set* and left out of the call, which is exactly what an unbuilt one gives
    (``FieldMap.built()``); its title counts from the schema until then.
    """

    def __init__(self, specs: list[tuple[str, Any]], make: Callable[[str, Any], Field], *, compact: bool) -> None:
        self.names = [name for name, _schema in specs]
        self._specs: Optional[list[tuple[str, Any]]] = specs
        self._make = make
        self.fields: list[Field] = []
        self.inner: W.Box = _grid([]) if compact else W.VBox([])
        # margins of 2px: flush under the header button
        body = W.VBox(
            [self.inner],
            layout=W.Layout(
                padding="6px 8px", border="1px solid var(--jp-border-color1)", border_top="0", margin="0 2px 4px 2px"
            ),
        )
        self.widget = Disclosure(body, self.title, layout=W.Layout(margin="4px 0"))
        self.widget.add_class("workbench-optional")
        self.widget.header.observe(lambda change: self.build() if change["new"] else None, names="expanded")

    @property
    def built(self) -> bool:
        return self._specs is None

    def build(self) -> list[Field]:
        """Build the section's fields (once) and show them in its body; returns them."""
        specs, self._specs = self._specs, None
        if specs is not None:
            self.fields = [self._make(name, schema) for name, schema in specs]
            for item in self.fields:
                item.watch(self._changed)
            _fill(self.inner, self.fields)
        return self.fields

    @property
    def title(self) -> str:
        """``Optional (14)``, or ``Optional (14) · 2 set`` once some are set."""
        count = sum(1 for f in self.fields if f.is_set)
        return f"Optional ({len(self.names)})" + (f" · {count} set" if count else "")

    @property
    def is_open(self) -> bool:
        return self.widget.is_open

    def expand(self) -> None:
        self.widget.expand()

    def collapse(self) -> None:
        self.widget.collapse()

    def _changed(self, _field: Field, event: str) -> None:
        self.widget.title = self.title
        if event == "error":
            self.expand()  # an error is never hidden in a collapsed section


class FieldMap(Mapping):
    """A form's top-level fields by parameter name, in schema order; the names of a not-yet-built
    *Optional* section are known (``in``, ``len``, iteration) and reading one builds that section."""

    def __init__(self, names: list[str]) -> None:
        self._names = names
        self._built: dict[str, Field] = {}
        self._lazy: dict[str, OptionalSection] = {}

    def add(self, fields: list[Field]) -> None:
        self._built.update((f.name, f) for f in fields)

    def defer(self, section: OptionalSection) -> None:
        self._lazy.update((name, section) for name in section.names)

    def __getitem__(self, name: str) -> Field:
        section = self._lazy.pop(name, None)
        if section is not None:
            self.add(section.build())
            for other in section.names:
                self._lazy.pop(other, None)
        return self._built[name]

    def __contains__(self, name: object) -> bool:
        return name in self._built or name in self._lazy

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def built(self) -> list[tuple[str, Field]]:
        """``(name, field)`` for the fields built so far, in schema order (an unbuilt one is *not set*)."""
        return [(name, self._built[name]) for name in self._names if name in self._built]


@dataclass
class FieldArrangement:
    """A form's top-level fields (by parameter name, in schema order) and the widgets that show them."""

    fields: FieldMap
    children: list[W.Widget]
    layout: str = "auto"
    compact: bool = False
    optional: Optional[OptionalSection] = None
    required_names: list[str] = field(default_factory=list)


def arrange_fields(params: dict, build: Callable[..., Field], layout: str = "auto") -> FieldArrangement:
    """Build the fields of a parameters schema and lay them out (see the module docstring).

    ``build`` is the field builder (``_field_table.build_field``). ``fields`` keeps the schema's order
    whatever the layout; ``children`` are what the form shows (empty for a tool without parameters).
    The fields of a collapsed *Optional* section are built when it is first opened or read.
    """
    params = params if isinstance(params, dict) else {}
    properties = params.get("properties") or {}
    properties = properties if isinstance(properties, dict) else {}
    compact, collapse = resolve_layout(layout, len(properties))
    ctx = FieldContext(params, build, compact=compact)
    required = set(params.get("required") or [])
    fields = FieldMap(list(properties))

    def make(name: str, schema: Any) -> Field:
        return build(schema, ctx, name, required=name in required)

    must_names = [name for name in properties if name in required]
    optional_specs = [(name, schema) for name, schema in properties.items() if name not in required]
    arrangement = FieldArrangement(fields, [], layout, compact, required_names=must_names)
    if not (collapse and optional_specs):
        shown = [make(name, schema) for name, schema in properties.items()]
        fields.add(shown)
        arrangement.children = [_grid(shown)] if compact and shown else [f.widget for f in shown]
        return arrangement
    must = [make(name, properties[name]) for name in must_names]
    fields.add(must)
    section = OptionalSection(optional_specs, make, compact=compact)
    fields.defer(section)
    head: list[Any] = ([_grid(must)] if compact else [f.widget for f in must]) if must else []
    arrangement.children = [*head, section.widget]
    arrangement.optional = section
    return arrangement
