"""The dashboard and the MCP inspector over a catalog of 1,000 tools (issue #22): one list widget,
no form until a tool is selected (the dashboard), one form per selected tool (the inspector)."""

from __future__ import annotations

import pytest

from tests.catalog_tools import write_catalog
from tests.form_catalogue import wb  # noqa: F401 - fixture
from tests.mcp_servers import WAIT, serve_command
from workbench import tool
from workbench.jupyter import Dashboard, ToolForm
from workbench.jupyter._dashboard import PAGE_SIZE


@pytest.fixture
def form_count(monkeypatch):
    """How many ToolForms were built since the fixture started."""
    built = []
    real_init = ToolForm.__init__

    def counting_init(self, *args, **kwargs):
        built.append(self)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(ToolForm, "__init__", counting_init)
    return lambda: len(built)


def test_dashboard_over_1000_tools_builds_no_form_and_no_schema_until_one_is_selected(
    wb, tmp_path, monkeypatch, form_count
):
    monkeypatch.syspath_prepend(str(tmp_path))
    write_catalog(tmp_path, 1000, "catalog_ui_1000")
    wb.registry.process_tools(["catalog_ui_1000"])
    dashboard = Dashboard(wb)
    try:
        assert len(dashboard.tool_names) == 1000 and form_count() == 0 and dashboard.forms == {}
        assert all(item.__dict__["_wb_spec"] is None for item in wb.registry)  # listed without building schemas
        listing = dashboard.tool_list.value
        assert listing.count("class='workbench-tool-item'") == PAGE_SIZE and "900 more" in listing
        assert "Look up weather records, variant 0." in listing and "1000 tools" in dashboard.count_label.value

        dashboard.search.value = "invoice_tool_0009"
        assert dashboard.visible_tools == ["invoice_tool_0009"]
        dashboard.search.value = "payment variant"
        assert len(dashboard.visible_tools) == 125 and dashboard.visible_tools[0] == "payment_tool_0006"
        assert form_count() == 0

        dashboard.tool_list.selected = "payment_tool_0006"  # a click
        assert form_count() == 1 and list(dashboard.forms) == ["payment_tool_0006"]
        assert dashboard.form.spec.name == "payment_tool_0006"
        plain = dashboard._repr_mimebundle_()["text/plain"]  # the saved-notebook view, also without building specs
        assert "weather_tool_0000 — Look up weather records, variant 0." in plain
        assert sum(item.__dict__["_wb_spec"] is not None for item in wb.registry) == 1
    finally:
        dashboard.close()


def test_a_small_registry_still_opens_on_its_first_tool(wb, form_count):
    @tool
    def only(x: int) -> int:
        """The only tool."""
        return x

    wb.registry.register_tool(only)
    dashboard = Dashboard(wb)
    try:
        assert dashboard.selected == "only" and form_count() == 1
    finally:
        dashboard.close()


def test_inspector_over_a_1000_tool_server_builds_a_form_per_selected_tool_only(tmp_path, form_count):
    from workbench.jupyter._workbench import Workbench
    from workbench.mcp import inspect

    path = write_catalog(tmp_path, 1000, "catalog_inspect_1000")
    view = inspect(command=serve_command(str(path)), workbench=Workbench(), connect_timeout=max(WAIT, 60))
    try:
        assert len(view.tool_picker.options) == 1000
        assert form_count() <= 1 and len(view.tool_forms) <= 1  # the one shown, no form per tool
        view.tool_search.value = "ticket_tool_0011"
        assert view.tool_picker.options == ("ticket_tool_0011",)
        assert (
            view.tool_picker.value == "ticket_tool_0011"
            and view.tool_box.children[0].tool.tool_name == "ticket_tool_0011"
        )
        view.tool_search.value = "calendar"
        assert len(view.tool_picker.options) == 125
        view.tool_search.value = ""
        assert len(view.tool_picker.options) == 1000
        assert form_count() <= 3 and len(view.tool_forms) <= 3
    finally:
        view.connection.disconnect()
