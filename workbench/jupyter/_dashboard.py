"""``Dashboard``: ``workbench.ui()`` — a searchable tool list, the selected tool's form, and the log.

The list shows each tool's name and the first line of its description (the full description is
the item's tooltip), so 15 tools stay readable where a tab strip cut their names off. The forms
are the dashboard's own ``ToolForm`` instances (built when a tool is first selected), so editing
the dashboard never edits the form under a ``%%tool`` cell. **Load into form** in the dashboard's
log selects the tool here and fills this form.

A catalog of hundreds of tools opens fast: the list is one HTML widget (never a widget per tool),
showing the first :data:`PAGE_SIZE` matches of the search (ranked by ``ToolRegistry.search``); the
descriptions come from ``catalog_description`` (a deferred ``@tool`` is not built to be listed); and
past :data:`EAGER_FORM_LIMIT` tools no form is built until a tool is selected.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

import ipywidgets as W

from workbench._html import escape as _e
from workbench.jupyter._clickable import ClickableHTML
from workbench.registry import catalog_description

__all__ = ["Dashboard", "first_line", "PAGE_SIZE", "EAGER_FORM_LIMIT"]

#: tools the list shows at once (the rest: "N more — refine the search")
PAGE_SIZE = 100
#: up to this many tools the first one's form is shown on opening; past it, none until one is selected
EAGER_FORM_LIMIT = 50


def first_line(text: Optional[str]) -> str:
    """The first non-empty line of a description."""
    for line in (text or "").strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


class Dashboard(W.VBox):
    """Tool list + form + log; the list follows the registry (registering, replacing or removing a tool).

    Widgets: ``search`` (filters the list by name or description), ``tool_list``, ``form_area``,
    ``log_table`` (this dashboard's own ``LogTable``). State: ``tool_names`` (every tool, in list
    order), ``visible_tools`` (those matching the search), ``selected``, ``form`` (the shown form),
    ``forms`` (the forms built so far, by tool name).

    The shown form always belongs to a tool the list shows: a search that hides the selected tool
    shows the first matching tool's form (or none, when nothing matches); once the tool the user
    picked matches again, its form comes back.
    """

    def __init__(self, workbench: Any) -> None:
        from workbench.jupyter._log_table import LogTable

        self.workbench = workbench
        self.forms: dict[str, Any] = {}
        self.selected: Optional[str] = None
        self._chosen: Optional[str] = None  # the tool the user picked last (shown again once it matches)
        self._order: list[str] = []  # list order: first registration wins, replacing a tool keeps its place
        self._refresh_lock = threading.RLock()
        # no side margins: at 100 % width the widget's margins pushed its right border out of the sidebar
        self.search = W.Text(
            placeholder="Search tools…", continuous_update=True, layout=W.Layout(width="100%", margin="2px 0")
        )
        self.tool_list = ClickableHTML()
        self.tool_list.add_class("workbench-tool-list-widget")
        self.count_label = W.HTML("")
        self.form_area = W.VBox([], layout=W.Layout(flex="1 1 auto", min_width="0"))
        self.log_table = LogTable(workbench.log, workbench=workbench)
        self.log_table.load_handler = self.select
        # a fixed width (never shrunk by a wide form beside it): the list keeps its width as forms open
        sidebar = W.VBox(
            [self.search, self.count_label, self.tool_list],
            layout=W.Layout(width="300px", flex="0 0 300px", margin="0 12px 0 0"),
        )
        self.search.observe(lambda _c: self._on_search(), names="value")
        self.tool_list.observe(self._on_click_tool, names="selected")
        super().__init__(
            [
                W.HBox([sidebar, self.form_area], layout=W.Layout(align_items="flex-start")),
                W.HTML("<h4 style='margin:12px 0 4px 0'>Execution log</h4>"),
                self.log_table,
            ]
        )
        self.add_class("workbench-dashboard")
        self.refresh()
        self._unsubscribe = workbench.registry.on_change(lambda event, name: self.refresh())

    # -- the list ------------------------------------------------------------------------------------
    @property
    def tool_names(self) -> list[str]:
        return list(self._order)

    @property
    def visible_tools(self) -> list[str]:
        """The tools matching the search text, best first (``ToolRegistry.search``); all, in list order,
        without one."""
        query = self.search.value.strip()
        if not query:
            return list(self._order)
        listed = set(self._order)
        return [name for name in self.workbench.registry.search(query) if name in listed]

    def _description(self, name: str) -> str:
        tool = self.workbench.registry.get(name)
        return catalog_description(tool) if tool is not None else ""

    def refresh(self) -> None:
        """Re-read the registry: update the list, rebuild the shown form if its tool was replaced."""
        with self._refresh_lock:
            names = self.workbench.registry.list_tools()
            self._order = [n for n in self._order if n in names] + [n for n in names if n not in self._order]
            for name in [n for n in self.forms if n not in names]:
                self.forms.pop(name)
            if self.selected not in self._order:
                self.selected = None
            self._draw_list()
            self._follow_search()

    def _on_search(self) -> None:
        with self._refresh_lock:
            self._draw_list()
            self._follow_search()

    def _follow_search(self) -> None:
        """Show the form of a tool the list shows: the one the user picked if it matches, else the
        selected one, else the first match; no form when nothing matches."""
        visible = self.visible_tools
        # a big catalog builds no form until one is picked (EAGER_FORM_LIMIT): a keystroke stays cheap
        first = visible[:1] if len(self._order) <= EAGER_FORM_LIMIT else []
        for target in (self._chosen, self.selected, *first):
            if target in visible:
                self._show(target)
                return
        self.selected = None
        if self.tool_list.selected:
            self.tool_list.selected = ""
        if not self._order:
            message = "No tools registered yet: define one with <code>%%tool</code> or <code>@tool</code>."
        elif visible:
            message = f"{len(visible)} of {len(self._order)} tools: search and select one to see its form."
        else:
            message = f"No tool matches {_e(repr(self.search.value.strip()))}: clear the search to see the forms."
        self.form_area.children = [W.HTML(f"<i class='workbench-no-form'>{message}</i>")]

    def _draw_list(self) -> None:
        visible = self.visible_tools
        items = []
        for name in visible[:PAGE_SIZE]:
            description = self._description(name)
            line = first_line(description) or "(no description)"
            items.append(
                f"<div class='workbench-tool-item' data-key='{_e(name)}' role='option' tabindex='0' "
                f"title='{_e(name + chr(10) + description.strip())}'>"
                f"<div class='workbench-tool-name'>{_e(name)}</div><div class='workbench-tool-desc'>{_e(line)}</div></div>"
            )
        if len(visible) > PAGE_SIZE:
            items.append(f"<div class='workbench-tool-empty'>{len(visible) - PAGE_SIZE} more — refine the search</div>")
        if not items:
            query = self.search.value.strip()
            items.append(
                f"<div class='workbench-tool-empty'>{'no tool matches ' + _e(repr(query)) if query else 'no tools'}</div>"
            )
        self.tool_list.value = f"<div class='workbench-tool-list' role='listbox'>{''.join(items)}</div>"
        total = len(self._order)
        shown = (
            f"{len(visible)} of {total} tools" if len(visible) != total else f"{total} tool{'s' if total != 1 else ''}"
        )
        self.count_label.value = f"<span class='workbench-log-message'>{_e(shown)}</span>"

    def _on_click_tool(self, change: dict) -> None:
        name = change["new"]
        if name and name != self.selected and name in self.workbench.registry:
            self.select(name)

    # -- forms ---------------------------------------------------------------------------------------
    def form_of(self, name: str) -> Any:
        """This dashboard's form of tool ``name`` (built on first use; rebuilt when the tool was replaced)."""
        from workbench.jupyter._form import ToolForm

        tool = self.workbench.registry.get_tool(name)
        form = self.forms.get(name)
        if form is None or form.tool is not tool:
            form = self.forms[name] = ToolForm(tool, self.workbench)
        return form

    def select(self, name: str) -> Any:
        """Show tool ``name``'s form (what clicking it in the list does); returns the form. A search that
        hides the tool is cleared, so the form shown is always of a tool the list shows."""
        with self._refresh_lock:
            if name not in self.workbench.registry:
                raise KeyError(f"no tool {name!r} in the dashboard; tools: {', '.join(self._order) or 'none'}")
            self._chosen = name
            if name not in self.visible_tools:
                self.search.value = ""  # redraws the list and shows the chosen tool's form
            return self._show(name)

    def _show(self, name: str) -> Any:
        with self._refresh_lock:
            try:
                widget = form = self.form_of(name)
            except Exception as exc:  # noqa: BLE001 - one broken tool must not break the dashboard
                form, widget = None, W.HTML(f"<i>{_e(f'cannot build the form of {name}: {exc}')}</i>")
            self.selected = name
            if self.tool_list.selected != name:
                self.tool_list.selected = name
            if list(self.form_area.children) != [widget]:
                self.form_area.children = [widget]
            return form

    @property
    def form(self) -> Any:
        """The form shown now (``None`` without tools)."""
        return self.forms.get(self.selected) if self.selected else None

    def load(self, name: str, values: dict) -> Any:
        """Select tool ``name`` and fill its form with ``values`` (what the log's **Load into form** does);
        values the form cannot take are left out (``fill_form``). Returns the form."""
        from workbench.jupyter._log_table import fill_form

        form = self.select(name)
        if form is None:
            raise ValueError(f"the form of {name} could not be built")
        fill_form(form, values)
        return form

    # -- lifecycle and display -----------------------------------------------------------------------
    def close(self) -> None:
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
            self._unsubscribe = None
        self.log_table.close()
        super().close()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget view plus a static ``text/html`` (tool list and log) and plain text for saved notebooks."""
        data = super()._repr_mimebundle_(**kwargs) or {}
        data = dict(data[0] if isinstance(data, tuple) else data)
        lines, items = [], []
        for name in self._order:
            line = first_line(self._description(name))
            lines.append(f"  {name} — {line}" if line else f"  {name}")
            items.append(f"<li><code>{_e(name)}</code> — {_e(line)}</li>")
        data["text/plain"] = "Tool Workbench dashboard\nTools:\n" + ("\n".join(lines) or "  (none)")
        data["text/html"] = (
            f"<div class='workbench-dashboard-static'><b>Tools</b><ul>{''.join(items) or '<li><i>none</i></li>'}</ul>"
            f"<b>Execution log</b>{self.log_table.static_html()}</div>"
        )
        return data
