"""``SaveAsTest``: a form's **Save as test** button and its message.

It writes the last finished call as a ``workbench.testing.ToolCase`` to ``<case folder>/<tool>.cases.json``
(``set_case_folder`` picks the folder once per kernel; default ``tool_cases/``) and shows the path written,
or why it could not. The form says when there is a call to save (``ready``).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench._html import display_status
from workbench._html import escape as _e
from workbench._styles import ERROR_BOX_STYLE, WARNING_STYLE, WRAP, status_colour
from workbench.jupyter._widget_kit import WidgetKit
from workbench.types import ToolResult

__all__ = ["SaveAsTest"]

TOOLTIP_IDLE = "Run a call first: Save as test writes the last finished call as a test case"
TOOLTIP_CANCELLED = "The last call was cancelled: it has no result to save as a test"
TOOLTIP_READY = "Save the last call as a test case in the kernel's case folder (set_case_folder)"


class SaveAsTest:
    """Widgets ``button`` and ``message``; ``saved_path``: the file last written.

    Args:
        tool_name: named in errors.
        registry: returns the registry the case's tool is found in.
    """

    def __init__(self, tool_name: str, registry: Callable[[], Any], kit: Optional[WidgetKit] = None) -> None:
        kit = kit or WidgetKit()
        self.tool_name = tool_name
        self._registry = registry
        self.button = W.Button(
            description="Save as test", icon="save", disabled=True, tooltip=TOOLTIP_IDLE, **kit.style(W.Button)
        )
        self.button.add_class("workbench-save-test")
        self.message = W.HTML(layout=W.Layout(display="none"), **kit.style(W.HTML))
        self.message.add_class("workbench-save-message")
        self.saved_path: Optional[Path] = None

    def ready(self, enabled: bool, *, cancelled: bool = False) -> None:
        """Enable the button (a finished call to save) or not; ``cancelled`` says why not."""
        self.button.disabled = not enabled
        self.button.tooltip = TOOLTIP_READY if enabled else TOOLTIP_CANCELLED if cancelled else TOOLTIP_IDLE
        self.message.layout.display = "none"
        self.message.value = ""

    def save(
        self,
        tool_use: Optional[dict],
        result: Optional[ToolResult],
        *,
        running: bool,
        secret_names: Any = (),
        expect: Optional[str] = None,
    ) -> Path:
        """Write the call ``tool_use`` → ``result`` as a case; ``RuntimeError`` says why it cannot."""
        from workbench.testing import ToolCase, save_case

        name = self.tool_name
        if running or result is None or tool_use is None or tool_use.get("toolUseId") != result.tool_use_id:
            raise RuntimeError(
                f"Nothing to save for '{name}': run a call first (Save as test writes the last finished call)"
            )
        if display_status(result) == "cancelled":
            raise RuntimeError(
                f"Nothing to save for '{name}': the last call was cancelled, so it has "
                "no result to expect (run it to the end first)"
            )
        if secret_names:
            names = ", ".join(sorted(secret_names))
            raise RuntimeError(
                f"Not saved: '{name}' has secret parameter(s) ({names}), which a case file "
                "would hold in clear; write that case by hand, with the secret from the environment"
            )
        case = ToolCase.from_result(tool_use, result, expect=expect)
        path = save_case(case, registry=self._registry())
        self.saved_path = path
        return path

    def click(self, save: Callable[[], Path]) -> None:
        """What the button does: ``save()``, then show the path written (and any warning) or the error —
        never raise."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                path = save()
            except Exception as exc:  # noqa: BLE001 - a button must not raise into the kernel
                self._show(
                    f"<div style='{ERROR_BOX_STYLE}'><b>Not saved</b>: {_e(f'{type(exc).__name__}: {exc}')}</div>"
                )
                return
        notes = "".join(
            f"<div style='{WARNING_STYLE};margin-top:2px'>{_e(w.message)}</div>"
            for w in caught
            if issubclass(w.category, UserWarning)
        )
        self._show(
            f"<div style='color:{status_colour('success')};{WRAP}'>Saved as test to "
            f"<code class='workbench-saved-path'>{_e(path)}</code></div>{notes}"
        )

    def _show(self, html: str) -> None:
        self.message.value = html
        self.message.layout.display = None
