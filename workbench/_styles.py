"""Inline styles of the form shell and the HTML reprs: every colour is a JupyterLab CSS variable.

Widget HTML takes inline styles as they are, so each piece carries its own. Colours come from the
theme (``--jp-*``), never a fixed hex value, so light, dark and high-contrast themes all work. A
status colour is the theme's colour mixed with the theme's own font colour (black in light themes,
white in dark ones): the mix is darker on a light page and lighter on a dark one, so the text stays
readable (WCAG contrast ≥ 4.5) in both. Fallbacks after the comma are named colours for front ends
without JupyterLab's variables.

Display statuses (also the CSS classes ``workbench-status-<name>``): ``success``, ``error``,
``cancelled`` (an error result whose ``error_type`` is ``CancelledError``) and ``in_progress``.
"""

from __future__ import annotations

__all__ = [
    "STATUS_COLOURS",
    "status_colour",
    "LEVEL_STATUS",
    "level_colour",
    "TEXT",
    "MUTED",
    "BORDER",
    "BADGE_STYLE",
    "WARNING_STYLE",
    "ERROR_BOX_STYLE",
    "BANNER_STYLE",
    "WRAP",
    "status_class",
]


def _readable(variable: str, fallback: str) -> str:
    """The theme colour ``variable`` pushed towards the theme's font colour (readable as text)."""
    return f"color-mix(in srgb, var({variable}, {fallback}) 65%, var(--jp-ui-font-color0, currentColor))"


#: text colour of each (display) status
STATUS_COLOURS: dict[str, str] = {
    "success": _readable("--jp-success-color1", "green"),
    "error": _readable("--jp-error-color1", "firebrick"),
    "cancelled": _readable("--jp-warn-color1", "darkorange"),
    "in_progress": _readable("--jp-info-color1", "teal"),
}

TEXT = "var(--jp-ui-font-color1, inherit)"
MUTED = "var(--jp-ui-font-color2, gray)"
BORDER = "var(--jp-border-color2, silver)"
#: long words (URLs, identifiers) wrap instead of scrolling the form sideways
WRAP = "overflow-wrap:anywhere;word-break:normal"

BADGE_STYLE = (
    "background:var(--jp-layout-color2, whitesmoke);color:var(--jp-ui-font-color1, black);"
    "border:1px solid var(--jp-border-color1, silver);border-radius:8px;padding:0 6px;margin-left:4px;"
    "font-size:0.8em;white-space:nowrap"
)
WARNING_STYLE = (
    f"color:{_readable('--jp-warn-color1', 'darkorange')};"
    "border:1px solid var(--jp-warn-color1, darkorange);border-radius:4px;padding:4px 8px;" + WRAP
)
ERROR_BOX_STYLE = (
    f"color:{STATUS_COLOURS['error']};border:1px solid var(--jp-error-color1, firebrick);"
    "border-radius:4px;padding:4px 8px;" + WRAP
)
BANNER_STYLE = (
    f"color:{STATUS_COLOURS['cancelled']};background:var(--jp-layout-color2, whitesmoke);"
    "border:1px solid var(--jp-warn-color1, darkorange);border-radius:4px;padding:4px 8px;margin:4px 0;" + WRAP
)


def status_colour(status: str) -> str:
    """The text colour of a display status (``MUTED`` for an unknown one)."""
    return STATUS_COLOURS.get(status, MUTED)


#: the status colour each MCP log level (``ToolContext.log``) is shown in
LEVEL_STATUS: dict[str, str] = {
    "debug": "",
    "info": "in_progress",
    "notice": "in_progress",
    "warning": "cancelled",
    "error": "error",
    "critical": "error",
    "alert": "error",
    "emergency": "error",
}


def level_colour(level: str) -> str:
    """The text colour of a log level (``MUTED`` for ``debug`` and unknown levels)."""
    return status_colour(LEVEL_STATUS.get(level, ""))


def status_class(status: str) -> str:
    """The CSS class of a display status: ``workbench-status-<status>``."""
    return f"workbench-status-{status}"
