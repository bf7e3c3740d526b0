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

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench.jupyter._disclosure import Disclosure
from workbench.jupyter._fields import LAYOUTS, Field, FieldContext
from workbench.jupyter._widget_kit import LAYOUTS as KIT_LAYOUTS

__all__ = ["COLLAPSE_OVER", "SPAN_BOTH", "FieldArrangement", "OptionalSection", "arrange_fields", "resolve_layout"]

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
    for item in fields:
        if item.wide:
            # grid_area, not grid_column: ipywidgets applies the layout's traits in order and removing the
            # unset grid-area shorthand afterwards would wipe a grid-column
            item.widget.layout = item.ctx.size("span-both")  # a swap: the field's own layout is shared
    box = W.GridBox([f.widget for f in fields],
                    layout=W.Layout(grid_template_columns="repeat(2, minmax(0, 1fr))", grid_gap="0 18px",
                                    width="100%", align_items="flex-start"))
    box.add_class("workbench-field-grid")
    return box


class OptionalSection:
    """The *Optional (N)* disclosure (a ``Disclosure``: its header is a real button), collapsed at first."""

    def __init__(self, fields: list[Field], *, compact: bool) -> None:
        self.fields = fields
        inner: W.Widget = _grid(fields) if compact else W.VBox([f.widget for f in fields])
        # margins of 2px: flush under the header button
        body = W.VBox([inner], layout=W.Layout(padding="6px 8px", border="1px solid var(--jp-border-color1)",
                                               border_top="0", margin="0 2px 4px 2px"))
        self.widget = Disclosure(body, self.title, layout=W.Layout(margin="4px 0"))
        self.widget.add_class("workbench-optional")
        for item in fields:
            item.watch(self._changed)

    @property
    def title(self) -> str:
        """``Optional (14)``, or ``Optional (14) · 2 set`` once some are set."""
        count = sum(1 for f in self.fields if f.is_set)
        return f"Optional ({len(self.fields)})" + (f" · {count} set" if count else "")

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


@dataclass
class FieldArrangement:
    """A form's top-level fields (by parameter name, in schema order) and the widgets that show them."""

    fields: dict[str, Field]
    children: list[W.Widget]
    layout: str = "auto"
    compact: bool = False
    optional: Optional[OptionalSection] = None
    required_names: list[str] = field(default_factory=list)


def arrange_fields(params: dict, build: Callable[..., Field], layout: str = "auto") -> FieldArrangement:
    """Build the fields of a parameters schema and lay them out (see the module docstring).

    ``build`` is the field builder (``_field_table.build_field``). ``fields`` keeps the schema's order
    whatever the layout; ``children`` are what the form shows (empty for a tool without parameters).
    """
    params = params if isinstance(params, dict) else {}
    properties = params.get("properties") or {}
    properties = properties if isinstance(properties, dict) else {}
    compact, collapse = resolve_layout(layout, len(properties))
    ctx = FieldContext(params, build, compact=compact)
    required = set(params.get("required") or [])
    fields: dict[str, Field] = {name: build(sub, ctx, name, required=name in required) for name, sub in properties.items()}
    must = [f for f in fields.values() if f.required]
    optional = [f for f in fields.values() if not f.required]
    arrangement = FieldArrangement(fields, [], layout, compact, required_names=[f.name for f in must])
    if not (collapse and optional):
        shown = list(fields.values())
        arrangement.children = [_grid(shown)] if compact and shown else [f.widget for f in shown]
        return arrangement
    section = OptionalSection(optional, compact=compact)
    head: list[Any] = ([_grid(must)] if compact else [f.widget for f in must]) if must else []
    arrangement.children = [*head, section.widget]
    arrangement.optional = section
    return arrangement
