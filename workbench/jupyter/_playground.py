"""``Playground``: chat with up to three models side by side, with the workbench's tools in the loop.

Top to bottom: the settings (a model picker per column, the system prompt, the tools offered, the
temperature, ``tool_choice``, the maximum of model turns, *auto* / *step* mode) · the prompt box
with **Send** (Ctrl/Cmd+Enter), **Stop** (Esc) and **New chat** · the columns, one conversation per model on the same prompts ·
**Save transcript** and **Save as eval case** (the prompt and the calls the user let run, edited
ones as edited, become a case of a ``*.evals.json`` suite: see :meth:`Playground.save_eval_case`).

Each Send runs ``workbench.agent.arun_agent`` once per column on the kernel's event loop (or, with
none running, on a background thread), so the kernel stays live while models answer and while a
step-mode call waits for its Approve / Deny. Calls go through the workbench's executor and log,
exactly as a form's do: permissions, approvals, timeouts and MCP proxy tools apply unchanged.

The parts, each with one job, talk through public methods: :class:`PlaygroundSettings` (what a
Send asks), :class:`ChatDriver` (runs and stops a Send), :class:`TurnGrid` (the conversations, laid
out turn by turn so columns line up), :class:`ApprovalFocus` (focus follows Approve / Deny) and
:class:`SaveBar` (transcripts and eval cases). New chat closes the widgets it clears.

Programmatic API (tests, scripts): ``send(prompt)`` returns a :class:`PlaygroundRun` (``await`` it,
or ``.result()`` where blocking is safe); ``transcripts``; ``pending`` (the cards waiting);
``card.form.set_values(...)``, ``card.approve()``, ``card.deny()``; ``select(*models)``;
``step_mode``; ``save_transcript(path)``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional, Sequence

import ipywidgets as W

from workbench._html import escape as _e
from workbench._styles import BANNER_STYLE, MUTED, WRAP
from workbench.jupyter._close import close_widgets
from workbench.jupyter._disclosure import Disclosure
from workbench.jupyter._keys import FormKeys
from workbench.jupyter._playground_card import ToolCallCard
from workbench.jupyter._playground_column import ChatColumn
from workbench.jupyter._playground_driver import ChatDriver, PlaygroundRun
from workbench.jupyter._playground_focus import ApprovalFocus
from workbench.jupyter._playground_grid import TurnGrid
from workbench.jupyter._playground_html import playground_summary_html
from workbench.jupyter._playground_saving import (
    DEFAULT_EVAL_PATH,
    DEFAULT_TRANSCRIPT_PATH,
    SaveBar,
)
from workbench.jupyter._playground_settings import (
    MAX_COLUMNS,
    TOOL_CHOICES,
    PlaygroundSettings,
)

__all__ = ["Playground", "PlaygroundRun", "MAX_COLUMNS", "TOOL_CHOICES", "DEFAULT_EVAL_PATH", "DEFAULT_TRANSCRIPT_PATH"]

_SECTION = "margin:2px 0;" + WRAP
_STATIC = Path(__file__).with_name("_static")


class PlaygroundKeys(FormKeys):
    """The prompt box's shortcuts (Ctrl/Cmd+Enter sends, Esc stops); it carries the playground's
    stylesheet (``_static/playground.css``; a card's form brings the forms' own)."""

    _css = _STATIC / "playground.css"


class Playground(W.VBox):
    """The model playground of a workbench (``workbench.playground(...)``).

    Args:
        models: the models offered in the pickers — ``Model`` objects or ``"provider:model"`` strings
            (built on first use, so a missing key shows in its column, not here). The first is picked.
        tools: the tools offered (a list of tools, a registry; default: the workbench's registry, read
            again at each Send so newly registered tools — an MCP server connected later — appear).
        system: the initial system prompt.
        log: where calls and runs are logged (default: the workbench's log).
        workbench: the ``Workbench`` whose executor runs the calls (default: the kernel's).
    """

    children: tuple  # VBox's trait, declared for mypy (ipywidgets has no type information)

    def __init__(
        self,
        models: Optional[Sequence[Any]] = None,
        *,
        tools: Any = None,
        system: Optional[str] = None,
        log: Any = None,
        workbench: Any = None,
    ) -> None:
        if workbench is None:
            from workbench.jupyter._workbench import get_workbench

            workbench = get_workbench()
        self.workbench = workbench
        self.execution_log = log if log is not None else workbench.log
        self._tool_source = tools
        if models is not None and (isinstance(models, str) or not isinstance(models, Sequence)):
            models = [models]
        self._columns: list[Optional[ChatColumn]] = [None] * MAX_COLUMNS
        self.settings = PlaygroundSettings(models or [], self._tool_map, system=system, on_models=self._sync_columns)
        self.driver = ChatDriver(self._busy, self._ended)
        self.grid = TurnGrid()
        self.saving = SaveBar(lambda: self.columns, self._tool_map)

        self.prompt = W.Textarea(placeholder="Ask the model…", rows=3, layout=W.Layout(width="auto"))
        self.prompt.add_class("workbench-prompt")
        self.send_button = W.Button(description="Send", button_style="primary", icon="paper-plane")
        self.send_button.add_class("workbench-send")
        self.stop_button = W.Button(
            description="Stop",
            icon="stop",
            disabled=True,
            tooltip="Stop the runs going on (calls still waiting are not run)",
        )
        self.stop_button.add_class("workbench-stop")
        self.new_button = W.Button(
            description="New chat",
            icon="eraser",
            tooltip="Start the conversations again (the cards and messages are cleared)",
        )
        self.new_button.add_class("workbench-new-chat")
        self.shortcuts = PlaygroundKeys(on_run=self._click_send, on_cancel=self.stop, layout=W.Layout(display="none"))
        self.status = W.HTML()
        self.status.add_class("workbench-playground-status")
        self.approval_focus = ApprovalFocus(lambda: self.pending, self.prompt)
        self.send_button.on_click(lambda _b: self._click_send())
        self.new_button.on_click(lambda _b: self.new_chat())
        self.stop_button.on_click(lambda _b: self.stop())

        # Ctrl/Cmd+Enter in the prompt sends, Esc stops (FormKeys listens on its nearest .workbench-form)
        prompt_box = W.VBox(
            [
                self.prompt,
                W.HBox(
                    [self.send_button, self.stop_button, self.new_button, self.status],
                    layout=W.Layout(flex_flow="row wrap", align_items="center"),
                ),
                self.shortcuts,
            ]
        )
        prompt_box.add_class("workbench-form")
        prompt_box.add_class("workbench-playground-prompt")
        super().__init__(
            [
                W.HTML(f"<div style='font-weight:600;font-size:1.1em;{_SECTION}'>Model playground</div>"),
                Disclosure(
                    self.settings,
                    "Settings: models, system prompt, tools, temperature, tool_choice, mode",
                    expanded=True,
                ),
                prompt_box,
                self.grid,
                self.saving,
            ],
            layout=W.Layout(width="100%"),
        )
        self.add_class("workbench-playground")
        self.settings.refresh_tools()
        self._sync_columns()

    # -- the settings' widgets, by their old names -----------------------------------------------------
    pickers = property(lambda self: self.settings.pickers, doc="The model pickers, left to right.")
    system = property(lambda self: self.settings.system, doc="The system prompt box.")
    tool_picker = property(lambda self: self.settings.tool_picker, doc="The tools offered (a selection).")
    tool_choice = property(lambda self: self.settings.tool_choice, doc="The ``tool_choice`` picker.")
    use_temperature = property(lambda self: self.settings.use_temperature, doc="Send a temperature or not.")
    temperature = property(lambda self: self.settings.temperature, doc="The temperature sent when ticked.")
    max_turns = property(lambda self: self.settings.max_turns, doc="The maximum of model turns of a run.")
    mode = property(lambda self: self.settings.mode, doc="*auto* or *step*.")
    save_path = property(lambda self: self.saving.save_path, doc="Where Save transcript writes.")
    save_button = property(lambda self: self.saving.save_button, doc="**Save transcript**.")
    eval_path = property(lambda self: self.saving.eval_path, doc="The suite Save as eval case adds to.")
    eval_button = property(lambda self: self.saving.eval_button, doc="**Save as eval case**.")
    save_message = property(lambda self: self.saving.message, doc="What was saved (or why not).")
    saved_paths = property(lambda self: self.saving.saved_paths, doc="The files the last Save transcript wrote.")
    columns_box = property(lambda self: self.grid, doc="The conversations (a :class:`TurnGrid`).")

    # -- settings ------------------------------------------------------------------------------------
    def _tool_map(self) -> dict[str, Any]:
        """name → tool of everything offered (the registry's tools now, or the list given)."""
        source = self._tool_source if self._tool_source is not None else self.workbench.registry
        if hasattr(source, "list_tools") and hasattr(source, "get_tool"):
            return {name: source.get_tool(name) for name in source.list_tools()}
        if isinstance(source, dict):
            source = list(source.values())
        return {tool.tool_name: tool for tool in source}

    def refresh_tools(self) -> None:
        """Read the offered tools again: new ones are selected, the selection of the others is kept."""
        self.settings.refresh_tools()

    @property
    def tools(self) -> list[Any]:
        """The tools the next Send offers (the picker's selection)."""
        return self.settings.tools

    @property
    def step_mode(self) -> bool:
        """True when each call waits for Approve / Deny in its card."""
        return self.settings.step_mode

    @step_mode.setter
    def step_mode(self, value: bool) -> None:
        self.settings.step_mode = value

    def select(self, *models: Any) -> "Playground":
        """Pick the models of the columns (up to three; a model not offered yet is added to the pickers)."""
        self.settings.pick(*models)
        self._sync_columns()
        return self

    def _sync_columns(self) -> None:
        """One column per picked model: a picker that names another model gets a fresh column (the old
        one is closed); the grid shows them left to right."""
        for i, model in enumerate(self.settings.picked()):
            column = self._columns[i]
            if column is not None and (model is None or column.label != self.pickers[i].value.strip()):
                column.close()
                self._columns[i] = column = None
            if model is not None and column is None:
                column = self._columns[i] = ChatColumn(model, self.workbench)
                column.on_card = self.approval_focus.watch
        self.grid.set_columns(self.columns)

    @property
    def columns(self) -> list[ChatColumn]:
        """The columns shown, left to right."""
        return [c for c in self._columns if c is not None]

    # -- state ---------------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True while a Send runs."""
        return self.driver.running

    @property
    def transcripts(self) -> list[Any]:
        """Each column's latest ``Transcript`` (``None`` for a column that has not run), left to right."""
        return [c.transcript for c in self.columns]

    @property
    def pending(self) -> list[ToolCallCard]:
        """The cards waiting for Approve / Deny, in every column."""
        return [card for c in self.columns for card in c.pending]

    @property
    def cards(self) -> list[ToolCallCard]:
        """Every tool card shown, column by column."""
        return [card for c in self.columns for card in c.cards.values()]

    async def next_pending(self, timeout: float = 30.0) -> ToolCallCard:
        """The first card waiting for Approve / Deny, once there is one — ``await`` it in a notebook
        after a step-mode Send. ``RuntimeError`` if the run ends without asking; ``TimeoutError``."""
        import asyncio

        deadline = time.monotonic() + timeout
        while not self.pending:
            if not self.running:
                raise RuntimeError("no call is waiting: the last Send has ended")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no call waited for a decision within {timeout} s")
            await asyncio.sleep(0.01)
        return self.pending[0]

    def new_chat(self) -> None:
        """Start every conversation again: calls still waiting are denied; the turns, cards, run counts,
        transcripts and the last save message go (their widgets are closed)."""
        for column in self.columns:
            column.clear()
        self.grid.clear()
        self.saving.reset()
        self.status.value = ""

    # -- sending -------------------------------------------------------------------------------------
    def send(self, prompt: Optional[str] = None) -> PlaygroundRun:
        """Send ``prompt`` (default: the prompt box's text) to every column's model; returns at once.

        Each column runs the agent loop on its conversation so far plus the prompt. ``ValueError`` for
        an empty prompt or no model picked; ``RuntimeError`` while the previous Send still runs."""
        text = self.prompt.value if prompt is None else prompt
        if not text.strip():
            raise ValueError("the prompt is empty: type something to send")
        if self.running:
            raise RuntimeError("the previous Send still runs: wait for it (or Approve / Deny its calls)")
        self.settings.refresh_tools()
        self._sync_columns()
        columns = self.columns
        if not columns:
            raise ValueError("no model picked: choose one in 'model 1' (or pass models=[...] to playground())")
        settings = self.settings.agent_settings(self.execution_log)
        self.prompt.value = ""
        self.grid.add_turn(text, columns)
        return self.driver.start(text, columns, settings)

    def stop(self) -> bool:
        """Stop the Send going on: each column's run ends with ``stopped_because="cancelled"`` (calls
        still waiting are not run). Returns False if nothing was running."""
        return self.driver.stop()

    def _busy(self, running: bool) -> None:
        self.stop_button.disabled = not running
        self.shortcuts.busy = running
        self.send_button.disabled = running
        self.saving.enable(not running and any(self.transcripts))
        if running:
            self.status.value = f"<span style='color:{MUTED}'>running…</span>"

    def _ended(self, error: Optional[BaseException]) -> None:
        self.status.value = (
            ""
            if error is None
            else (f"<span style='color:{MUTED}'>failed: {_e(type(error).__name__)}: {_e(error)}</span>")
        )

    def _click_send(self) -> None:
        try:
            self.send()
        except (ValueError, RuntimeError) as exc:
            self.status.value = f"<span style='{BANNER_STYLE}'>{_e(exc)}</span>"

    # -- saving --------------------------------------------------------------------------------------
    def save_transcript(self, path: "str | Path | None" = None) -> list[Path]:
        """Write each column's latest ``Transcript`` as JSON and return the paths: ``path`` itself for
        one column, ``<stem>-<n><suffix>`` for several. ``ValueError`` before any run."""
        return self.saving.save_transcript(path)

    def eval_case(self, case_id: Optional[str] = None, *, column: int = 0) -> Any:
        """The last Send of ``column`` as an :class:`~workbench.evals.EvalCase`: its prompt (the whole
        conversation when there was one before it) and, as expected calls, the calls that ran — edited
        ones as edited; denied ones are left out. No call ran: the case expects none. A call that gives
        a secret parameter (``SecretStr``) is refused with ``ValueError``: the case file would hold it."""
        return self.saving.eval_case(case_id, column=column)

    def save_eval_case(
        self, path: "str | Path | None" = None, case_id: Optional[str] = None, *, column: int = 0
    ) -> Path:
        """Add :meth:`eval_case` to the suite file at ``path`` (default: the *suite* box,
        ``playground.evals.json``), with the offered tools (their refs, or spec dicts for notebook tools).
        A case with the same id is replaced. Returns the path."""
        return self.saving.save_eval_case(path, case_id, column=column)

    def close(self) -> None:
        """Close the playground and every widget it shows (calls still waiting are denied)."""
        for column in self.columns:
            column.close()
        children = self.children
        super().close()
        close_widgets(*children)

    def _repr_mimebundle_(self, **kwargs: Any) -> Optional[dict]:
        """The live widget plus a static ``text/html`` picture (models, tools, mode, the conversations so
        far) for readers without the widget: GitHub, nbviewer, a saved notebook opened before it ran."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/html"] = playground_summary_html(self.columns, list(self.tool_picker.value), self.mode.value)
        return bundle

    def __repr__(self) -> str:
        return (
            f"<Playground models={[c.label for c in self.columns]!r} tools={list(self.tool_picker.value)!r} "
            f"mode={self.mode.value}>"
        )
