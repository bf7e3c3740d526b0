"""The inspector's **Prompts** tab: a dropdown of the server's prompts and a form of the selected one's
arguments; its messages show below."""

from __future__ import annotations

from typing import Any, Optional

import ipywidgets as W

from workbench._styles import MUTED
from workbench.jupyter._mcp_render import icons_html, messages_html
from workbench.jupyter._mcp_tab import InspectorTab, local_name

__all__ = ["PromptsTab"]


class PromptsTab(InspectorTab):
    """``picker``, ``box`` (the shown ``form``), ``html`` (the prompt's messages) and ``icons``."""

    def __init__(self, inspector: Any) -> None:
        self.picker = W.Dropdown(description="Prompt", options=[])
        self.box = W.VBox()
        self.form: Any = None
        self.html = W.HTML()
        self.html.add_class("workbench-mcp-prompt")
        self.icons = W.HTML()
        self._prompts: dict[str, Any] = {}
        self.picker.observe(lambda change: self.show(change["new"]), names="value")
        super().__init__(inspector, [W.HBox([self.picker, self.icons]), self.box, self.html])

    def refresh(self, refresh: bool = False) -> None:
        """Redraw the list (``refresh=True``: past the connection's cache, from the server)."""
        if not self.supports("prompts"):
            self.html.value = f"<i style='color:{MUTED}'>This server has no prompts.</i>"
            return
        self._prompts = {p.name: p for p in self.connection.list_prompts(refresh=refresh)}
        current = self.picker.value
        self.picker.options = list(self._prompts)
        if current in self._prompts:
            self.show(current)

    def show(self, name: Optional[str]) -> None:
        """Show the form of prompt ``name``'s arguments."""
        prompt = self._prompts.get(name or "")
        self.icons.value = icons_html(getattr(prompt, "icons", None), 24, name or "")
        if prompt is None:
            self.box.children = ()
            return
        from workbench.jupyter._form import ToolForm
        from workbench.tools import tool

        arguments = list(prompt.arguments or [])

        def get_prompt(**values: Any) -> Any:
            result = self.connection.get_prompt(prompt.name, {k: str(v) for k, v in values.items()})
            self.html.value = messages_html(result)
            return [m.model_dump(mode="json", exclude_none=True) for m in result.messages]

        holder = tool(
            get_prompt,
            name=local_name("prompt_", prompt.name),
            description=prompt.description or f"The prompt {prompt.name}",
            parameters={
                "type": "object",
                "required": [a.name for a in arguments if a.required],
                "properties": {a.name: {"type": "string", "description": a.description or ""} for a in arguments},
            },
        )
        self.form = ToolForm(holder, self.workbench)
        self.box.children = (self.form,)
