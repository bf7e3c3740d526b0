"""``PlaygroundSettings``: what a Send asks — the models of the columns, system prompt, tools offered,
``tool_choice``, temperature, maximum of model turns, and *auto* / *step* mode.

It holds no conversation: the playground reads :meth:`PlaygroundSettings.agent_settings` at each Send
and :meth:`PlaygroundSettings.picked` to know which models get a column.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import ipywidgets as W

from workbench.jupyter._playground_column import model_label

__all__ = ["PlaygroundSettings", "MAX_COLUMNS", "TOOL_CHOICES"]

#: models side by side at most
MAX_COLUMNS = 3
#: the tool_choice picker's fixed entries → what the agent loop gets (a tool's name → ``{"tool": {"name": …}}``)
TOOL_CHOICES: dict[str, Any] = {"auto": None, "any": "any", "none": "none"}


class PlaygroundSettings(W.VBox):
    """The settings panel.

    Args:
        models: the models offered in the pickers (``Model`` objects or ``"provider:model"`` strings);
            the first is picked.
        tool_source: a callable giving the tools offered now (name → tool).
        system: the initial system prompt.
        on_models: called when the picked models change (a picker set to an offered model or cleared).
    """

    def __init__(
        self,
        models: Sequence[Any],
        tool_source: Callable[[], dict[str, Any]],
        *,
        system: Optional[str] = None,
        on_models: Optional[Callable[[], None]] = None,
    ) -> None:
        self._tool_source = tool_source
        self._on_models = on_models
        self.models: dict[str, Any] = {model_label(m): m for m in models}
        labels = list(self.models)
        self.pickers = [
            W.Combobox(
                options=labels,
                value=labels[0] if labels and i == 0 else "",
                placeholder="provider:model" if i == 0 else "(compare with…)",
                ensure_option=False,
                description=f"model {i + 1}",
                layout=W.Layout(flex="1 1 0", min_width="0"),
            )
            for i in range(MAX_COLUMNS)
        ]
        for picker in self.pickers:
            picker.add_class("workbench-model-picker")
            picker.observe(self._on_pick, names="value")
        self.system = W.Textarea(
            value=system or "",
            placeholder="system prompt (optional)",
            rows=2,
            description="system",
            layout=W.Layout(width="auto"),
        )
        self.system.add_class("workbench-system-prompt")
        self.tool_picker = W.SelectMultiple(
            options=[], rows=4, description="tools", layout=W.Layout(flex="1 1 0", min_width="0")
        )
        self.tool_picker.add_class("workbench-tool-picker")
        self.tool_choice = W.Dropdown(
            options=list(TOOL_CHOICES), value="auto", description="tool_choice", layout=W.Layout(width="auto")
        )
        self.tool_choice.add_class("workbench-tool-choice")
        self.use_temperature = W.Checkbox(
            value=False, description="temperature", indent=False, layout=W.Layout(width="auto")
        )
        self.temperature = W.FloatSlider(
            value=1.0, min=0.0, max=2.0, step=0.1, disabled=True, readout_format=".1f", layout=W.Layout(width="200px")
        )
        self.use_temperature.observe(lambda c: setattr(self.temperature, "disabled", not c["new"]), names="value")
        self.max_turns = W.BoundedIntText(
            value=10, min=1, max=100, description="max turns", layout=W.Layout(width="160px")
        )
        self.mode = W.ToggleButtons(
            options=[("auto", "auto"), ("step", "step")],
            value="auto",
            tooltips=[
                "Run the model's calls at once",
                "Ask before each call: edit its arguments, then Approve or Deny",
            ],
        )
        self.mode.add_class("workbench-mode")
        super().__init__(
            [
                W.HBox(self.pickers, layout=W.Layout(width="100%")),
                self.system,
                W.HBox(
                    [
                        self.tool_picker,
                        W.VBox(
                            [
                                self.tool_choice,
                                W.HBox([self.use_temperature, self.temperature]),
                                self.max_turns,
                                self.mode,
                            ]
                        ),
                    ],
                    layout=W.Layout(width="100%"),
                ),
            ]
        )
        self.add_class("workbench-playground-settings")

    # -- models --------------------------------------------------------------------------------------
    def pick(self, *models: Any) -> None:
        """Set the pickers to ``models`` (a model not offered yet is added to them), the rest cleared."""
        if not 1 <= len(models) <= MAX_COLUMNS:
            raise ValueError(f"the playground compares 1 to {MAX_COLUMNS} models; got {len(models)}")
        for model in models:
            self.models.setdefault(model_label(model), model)
        labels = list(self.models)
        for i, picker in enumerate(self.pickers):
            picker.options = labels
            picker.value = model_label(models[i]) if i < len(models) else ""

    def picked(self) -> list[Optional[Any]]:
        """Per picker: its model (or the ``"provider:model"`` text typed), ``None`` when empty."""
        labels = [picker.value.strip() for picker in self.pickers]
        return [self.models.get(label, label) if label else None for label in labels]

    def _on_pick(self, change: dict) -> None:
        value = change["new"]
        if self._on_models is not None and (not value or value in self.models):  # free text waits for Send
            self._on_models()

    # -- tools ---------------------------------------------------------------------------------------
    def refresh_tools(self) -> None:
        """Read the offered tools again: new ones are selected, the selection of the others is kept."""
        names = list(self._tool_source())
        known = set(self.tool_picker.options)
        selected = [n for n in names if n in set(self.tool_picker.value) or n not in known]
        self.tool_picker.options = names
        self.tool_picker.value = tuple(selected)
        choice = self.tool_choice.value
        self.tool_choice.options = [*TOOL_CHOICES, *names]
        self.tool_choice.value = choice if choice in self.tool_choice.options else "auto"

    @property
    def tools(self) -> list[Any]:
        """The tools the next Send offers (the picker's selection)."""
        available = self._tool_source()
        return [available[n] for n in self.tool_picker.value if n in available]

    # -- the rest ------------------------------------------------------------------------------------
    @property
    def step_mode(self) -> bool:
        """True when each call waits for Approve / Deny in its card."""
        return self.mode.value == "step"

    @step_mode.setter
    def step_mode(self, value: bool) -> None:
        self.mode.value = "step" if value else "auto"

    def tool_choice_value(self) -> Any:
        """What the agent loop gets as ``tool_choice``."""
        choice = self.tool_choice.value
        return TOOL_CHOICES[choice] if choice in TOOL_CHOICES else {"tool": {"name": choice}}

    def agent_settings(self, log: Any) -> dict[str, Any]:
        """The keyword arguments of each column's run (``ChatColumn.arun``)."""
        params = {"temperature": self.temperature.value} if self.use_temperature.value else {}
        return dict(
            tools=self.tools,
            system=self.system.value or None,
            tool_choice=self.tool_choice_value(),
            step=self.step_mode,
            log=log,
            max_turns=self.max_turns.value,
            params=params,
        )
