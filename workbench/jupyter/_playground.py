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

Programmatic API (tests, scripts): ``send(prompt)`` returns a :class:`PlaygroundRun` (``await`` it,
or ``.result()`` where blocking is safe); ``transcripts``; ``pending`` (the cards waiting);
``card.form.set_values(...)``, ``card.approve()``, ``card.deny()``; ``select(*models)``;
``step_mode``; ``save_transcript(path)``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
import threading
import time
from pathlib import Path
from typing import Any, Optional, Sequence

import ipywidgets as W

from workbench._html import escape as _e
from workbench._styles import BANNER_STYLE, MUTED, WRAP
from workbench.jupyter._disclosure import Disclosure
from workbench.jupyter._keys import FormKeys
from workbench.jupyter._playground_card import ToolCallCard
from workbench.jupyter._playground_column import ChatColumn, model_label
from workbench.jupyter._playground_html import playground_summary_html
from workbench.jupyter._render import json_html

__all__ = ["Playground", "PlaygroundRun", "MAX_COLUMNS", "TOOL_CHOICES"]

#: models side by side at most
MAX_COLUMNS = 3
#: the tool_choice picker's fixed entries → what the agent loop gets (a tool's name → ``{"tool": {"name": …}}``)
TOOL_CHOICES: dict[str, Any] = {"auto": None, "any": "any", "none": "none"}
#: where Save as eval case writes unless told otherwise
DEFAULT_EVAL_PATH = "playground.evals.json"
#: calls whose result says the user did not let them run (not expected of the model)
_REFUSED_TYPES = frozenset({"DeniedByUser", "ReviewFailed", "PermissionDenied", "ToolPermissionError"})
DEFAULT_TRANSCRIPT_PATH = "playground_transcript.json"
_SECTION = "margin:2px 0;" + WRAP


class PlaygroundRun:
    """One Send: the runs of every column on the same prompt.

    ``await run`` (or ``run.result()``, where blocking cannot deadlock) gives the list of
    ``Transcript`` (one per column, ``None`` for a column whose model could not be built).
    """

    def __init__(self, future: concurrent.futures.Future, loop_thread: Optional[int]) -> None:
        self._future = future
        self._loop_thread = loop_thread  # the thread whose event loop runs it (None: a thread of its own)

    def done(self) -> bool:
        """True once every column's run ended."""
        return self._future.done()

    def result(self, timeout: Optional[float] = None) -> list:
        """The transcripts; blocks until the runs end. ``RuntimeError`` on the thread whose event loop
        runs them (waiting there would deadlock: ``await`` the run instead)."""
        if not self._future.done() and self._loop_thread == threading.get_ident():
            raise RuntimeError("this run goes on on this thread's event loop: `await` it instead of .result()")
        return self._future.result(timeout=timeout)

    def __await__(self) -> Any:
        return asyncio.wrap_future(self._future).__await__()

    def __repr__(self) -> str:
        return f"<PlaygroundRun {'done' if self._future.done() else 'running'}>"


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

    def __init__(self, models: Optional[Sequence[Any]] = None, *, tools: Any = None, system: Optional[str] = None,
                 log: Any = None, workbench: Any = None) -> None:
        if workbench is None:
            from workbench.jupyter._workbench import get_workbench

            workbench = get_workbench()
        self.workbench = workbench
        self.execution_log = log if log is not None else workbench.log
        self._tool_source = tools
        if models is not None and (isinstance(models, str) or not isinstance(models, Sequence)):
            models = [models]
        self._models: dict[str, Any] = {model_label(m): m for m in (models or [])}
        self._columns: list[Optional[ChatColumn]] = [None] * MAX_COLUMNS
        self._runs: list[PlaygroundRun] = []
        self._tasks: set[Any] = set()
        self._running: Optional[tuple] = None  # (event loop, the column runs' tasks) of the Send going on
        self.running = False

        labels = list(self._models)
        self.pickers = [W.Combobox(options=labels, value=labels[0] if labels and i == 0 else "",
                                   placeholder="provider:model" if i == 0 else "(compare with…)",
                                   ensure_option=False, description=f"model {i + 1}",
                                   layout=W.Layout(flex="1 1 0", min_width="0"))
                        for i in range(MAX_COLUMNS)]
        for picker in self.pickers:
            picker.add_class("workbench-model-picker")
            picker.observe(self._on_pick, names="value")
        self.system = W.Textarea(value=system or "", placeholder="system prompt (optional)", rows=2,
                                 description="system", layout=W.Layout(width="auto"))
        self.system.add_class("workbench-system-prompt")
        self.tool_picker = W.SelectMultiple(options=[], rows=4, description="tools",
                                            layout=W.Layout(flex="1 1 0", min_width="0"))
        self.tool_picker.add_class("workbench-tool-picker")
        self.tool_choice = W.Dropdown(options=list(TOOL_CHOICES), value="auto", description="tool_choice",
                                      layout=W.Layout(width="auto"))
        self.tool_choice.add_class("workbench-tool-choice")
        self.use_temperature = W.Checkbox(value=False, description="temperature", indent=False,
                                          layout=W.Layout(width="auto"))
        self.temperature = W.FloatSlider(value=1.0, min=0.0, max=2.0, step=0.1, disabled=True, readout_format=".1f",
                                         layout=W.Layout(width="200px"))
        self.use_temperature.observe(lambda c: setattr(self.temperature, "disabled", not c["new"]), names="value")
        self.max_turns = W.BoundedIntText(value=10, min=1, max=100, description="max turns",
                                          layout=W.Layout(width="160px"))
        self.mode = W.ToggleButtons(options=[("auto", "auto"), ("step", "step")], value="auto",
                                    tooltips=["Run the model's calls at once",
                                              "Ask before each call: edit its arguments, then Approve or Deny"])
        self.mode.add_class("workbench-mode")
        self.prompt = W.Textarea(placeholder="Ask the model…", rows=3, layout=W.Layout(width="auto"))
        self.prompt.add_class("workbench-prompt")
        self.send_button = W.Button(description="Send", button_style="primary", icon="paper-plane")
        self.send_button.add_class("workbench-send")
        self.new_button = W.Button(description="New chat", icon="eraser", tooltip="Start the conversations again")
        self.stop_button = W.Button(description="Stop", icon="stop", disabled=True,
                                    tooltip="Stop the runs going on (calls still waiting are not run)")
        self.stop_button.add_class("workbench-stop")
        self.shortcuts = FormKeys(on_run=self._click_send, on_cancel=self.stop, layout=W.Layout(display="none"))
        self.status = W.HTML()
        self.status.add_class("workbench-playground-status")
        self.columns_box = W.HBox([], layout=W.Layout(align_items="flex-start", width="100%"))
        self.columns_box.add_class("workbench-playground-columns")
        self.save_path = W.Text(value=DEFAULT_TRANSCRIPT_PATH, description="path", layout=W.Layout(width="360px"))
        self.save_button = W.Button(description="Save transcript", icon="save", disabled=True,
                                    tooltip="Write each column's last run as Transcript JSON",
                                    layout=W.Layout(width="auto"))
        self.save_button.add_class("workbench-save-transcript")
        self.eval_path = W.Text(value=DEFAULT_EVAL_PATH, description="suite", layout=W.Layout(width="300px"))
        self.eval_path.add_class("workbench-eval-path")
        self.eval_button = W.Button(description="Save as eval case", icon="flask", disabled=True,
                                    tooltip="Add the last prompt and the calls you let run (as edited) to the "
                                            "suite file as an evaluation case", layout=W.Layout(width="auto"))
        self.eval_button.add_class("workbench-save-eval")
        self.save_message = W.HTML()
        self.save_message.add_class("workbench-save-message")
        self.saved_paths: list[Path] = []

        self.send_button.on_click(lambda _b: self._click_send())
        self.new_button.on_click(lambda _b: self.new_chat())
        self.stop_button.on_click(lambda _b: self.stop())
        self.save_button.on_click(lambda _b: self._click_save())
        self.eval_button.on_click(lambda _b: self._click_save_eval())

        settings = W.VBox([
            W.HBox(self.pickers, layout=W.Layout(width="100%")),
            self.system,
            W.HBox([self.tool_picker,
                    W.VBox([self.tool_choice, W.HBox([self.use_temperature, self.temperature]), self.max_turns,
                            self.mode])],
                   layout=W.Layout(width="100%")),
        ])
        # Ctrl/Cmd+Enter in the prompt sends, Esc stops (FormKeys listens on its nearest .workbench-form)
        prompt_box = W.VBox([self.prompt, W.HBox([self.send_button, self.stop_button, self.new_button, self.status]),
                             self.shortcuts])
        prompt_box.add_class("workbench-form")
        prompt_box.add_class("workbench-playground-prompt")
        super().__init__([
            W.HTML(f"<div style='font-weight:600;font-size:1.1em;{_SECTION}'>Model playground</div>"),
            Disclosure(settings, "Settings: models, system prompt, tools, temperature, tool_choice, mode", expanded=True),
            prompt_box,
            self.columns_box,
            W.HBox([self.save_path, self.save_button, self.eval_path, self.eval_button]),
            self.save_message,
        ], layout=W.Layout(width="100%"))
        self.add_class("workbench-playground")
        self.refresh_tools()
        self._sync_columns()

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
        names = list(self._tool_map())
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
        available = self._tool_map()
        return [available[n] for n in self.tool_picker.value if n in available]

    @property
    def step_mode(self) -> bool:
        """True when each call waits for Approve / Deny in its card."""
        return self.mode.value == "step"

    @step_mode.setter
    def step_mode(self, value: bool) -> None:
        self.mode.value = "step" if value else "auto"

    def select(self, *models: Any) -> "Playground":
        """Pick the models of the columns (up to three; a model not offered yet is added to the pickers)."""
        if not 1 <= len(models) <= MAX_COLUMNS:
            raise ValueError(f"the playground compares 1 to {MAX_COLUMNS} models; got {len(models)}")
        for model in models:
            self._models.setdefault(model_label(model), model)
        labels = list(self._models)
        for i, picker in enumerate(self.pickers):
            picker.options = labels
            picker.value = model_label(models[i]) if i < len(models) else ""
        self._sync_columns()
        return self

    def _on_pick(self, change: dict) -> None:
        value = change["new"]
        if not value or value in self._models:  # free text is taken at Send, not at every keystroke
            self._sync_columns()

    def _sync_columns(self) -> None:
        for i, picker in enumerate(self.pickers):
            label = picker.value.strip()
            column = self._columns[i]
            if not label:
                self._columns[i] = None
            elif column is None or column.label != label:
                self._columns[i] = ChatColumn(self._models.get(label, label), self.workbench)
        self.columns_box.children = [c for c in self._columns if c is not None]

    @property
    def columns(self) -> list[ChatColumn]:
        """The columns shown, left to right."""
        return [c for c in self._columns if c is not None]

    def _tool_choice(self) -> Any:
        choice = self.tool_choice.value
        return TOOL_CHOICES[choice] if choice in TOOL_CHOICES else {"tool": {"name": choice}}

    def _params(self) -> dict[str, Any]:
        return {"temperature": self.temperature.value} if self.use_temperature.value else {}

    # -- state ---------------------------------------------------------------------------------------
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
        deadline = time.monotonic() + timeout
        while not self.pending:
            if not self.running:
                raise RuntimeError("no call is waiting: the last Send has ended")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no call waited for a decision within {timeout} s")
            await asyncio.sleep(0.01)
        return self.pending[0]

    def new_chat(self) -> None:
        """Start every conversation again (calls still waiting are denied)."""
        for column in self.columns:
            column.clear()

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
        self.refresh_tools()
        self._sync_columns()
        columns = self.columns
        if not columns:
            raise ValueError("no model picked: choose one in 'model 1' (or pass models=[...] to playground())")
        settings = dict(tools=self.tools, system=self.system.value or None, tool_choice=self._tool_choice(),
                        step=self.step_mode, log=self.execution_log, max_turns=self.max_turns.value, params=self._params())
        self.prompt.value = ""
        self._busy(True)
        done: concurrent.futures.Future = concurrent.futures.Future()

        async def go() -> None:
            try:
                loop = asyncio.get_running_loop()
                runs = [loop.create_task(column.arun(text, **settings)) for column in columns]
                self._running = (loop, runs)
                transcripts = await asyncio.gather(*runs)
                self.status.value = ""
                done.set_result(list(transcripts))
            except BaseException as exc:  # noqa: BLE001 - handed to whoever awaits the run, and shown
                self.status.value = f"<span style='color:{MUTED}'>failed: {_e(type(exc).__name__)}: {_e(exc)}</span>"
                done.set_exception(exc)
            finally:
                self._running = None
                self._busy(False)

        try:
            loop: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            task = loop.create_task(go())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            run = PlaygroundRun(done, threading.get_ident())
        else:
            threading.Thread(target=lambda: asyncio.run(go()), name="workbench-playground", daemon=True).start()
            run = PlaygroundRun(done, None)
        self._runs.append(run)
        return run

    def stop(self) -> bool:
        """Stop the Send going on: each column's run ends with ``stopped_because="cancelled"`` (calls
        still waiting are not run). Returns False if nothing was running."""
        current = self._running
        if current is None:
            return False
        loop, runs = current
        for task in runs:
            loop.call_soon_threadsafe(task.cancel)
        return True

    def _busy(self, running: bool) -> None:
        self.running = running
        self.stop_button.disabled = not running
        self.shortcuts.busy = running
        self.send_button.disabled = running
        self.save_button.disabled = self.eval_button.disabled = running or not any(self.transcripts)
        if running:
            self.status.value = f"<span style='color:{MUTED}'>running…</span>"

    def _click_send(self) -> None:
        try:
            self.send()
        except (ValueError, RuntimeError) as exc:
            self.status.value = f"<span style='{BANNER_STYLE}'>{_e(exc)}</span>"

    # -- saving --------------------------------------------------------------------------------------
    def save_transcript(self, path: "str | Path | None" = None) -> list[Path]:
        """Write each column's latest ``Transcript`` as JSON and return the paths: ``path`` itself for
        one column, ``<stem>-<n><suffix>`` for several. ``ValueError`` before any run."""
        columns = [c for c in self.columns if c.transcript is not None]
        if not columns:
            raise ValueError("nothing to save yet: Send a prompt first")
        target = Path(path if path is not None else self.save_path.value or DEFAULT_TRANSCRIPT_PATH)
        paths = [target] if len(columns) == 1 else [
            target.with_name(f"{target.stem}-{i + 1}{target.suffix or '.json'}") for i in range(len(columns))]
        for column, out in zip(columns, paths):
            out.parent.mkdir(parents=True, exist_ok=True)
            column.transcript.save(out)
        self.saved_paths = paths
        self._show_saved(columns, paths)
        return paths

    def _show_saved(self, columns: list[ChatColumn], paths: list[Path]) -> None:
        items = "".join(f"<li><code>{_e(p)}</code> — {_e(c.label)}</li>" for c, p in zip(columns, paths))
        previews = [Disclosure(W.HTML(json_html(json.loads(p.read_text(encoding='utf-8')))), f"{p.name}")
                    for p in paths]
        self.save_message.value = f"<div style='{_SECTION}'>Saved:<ul style='margin:2px 0'>{items}</ul></div>"
        self.children = (*self.children[:-1], W.VBox([self.save_message, *previews]))

    def _click_save(self) -> None:
        try:
            self.save_transcript()
        except (OSError, ValueError) as exc:
            self.save_message.value = f"<div style='{BANNER_STYLE}'>Not saved: {_e(exc)}</div>"

    def eval_case(self, case_id: Optional[str] = None, *, column: int = 0) -> Any:
        """The last Send of ``column`` as an :class:`~workbench.evals.EvalCase`: its prompt (the whole
        conversation when there was one before it) and, as expected calls, the calls that ran — edited
        ones as edited; denied ones are left out. No call ran: the case expects none. A call that gives
        a secret parameter (``SecretStr``) is refused with ``ValueError``: the case file would hold it."""
        from workbench.evals import EvalCase

        columns = [c for c in self.columns if c.transcript is not None]
        if not columns:
            raise ValueError("nothing to save yet: Send a prompt first")
        transcript = columns[column].transcript
        calls = [step.tool_use for step in transcript.tool_steps
                 if step.result.metadata.get("error_type") not in _REFUSED_TYPES]
        from workbench.secrets import SecretCalls

        secrets = SecretCalls.of(transcript.tools)
        for call in calls:  # a case file is kept in clear, next to the code: it cannot hold a secret
            given = sorted(secrets.names_of(call) & set(call.get("input") or {}))
            if given:
                raise ValueError(f"the call of {call['name']} gives the secret parameter(s) {', '.join(given)}: a case "
                                 "file would hold the secret in clear, so this conversation is not saved as a case")
        expected = [{"name": call["name"], "arguments": {k: [v] for k, v in call["input"].items()}}
                    for call in calls if isinstance(call.get("input"), dict)]
        prompt = [m for m in transcript.prompt if m.get("role") != "system"]
        system = next((m["content"] for m in transcript.prompt if m.get("role") == "system"), None)
        question = dict(prompt=prompt[0]["content"]) if len(prompt) == 1 and isinstance(prompt[0].get("content"), str) \
            else dict(messages=prompt)
        names = [spec["name"] for spec in transcript.tools]
        return EvalCase(case_id or _case_id(question.get("prompt") or prompt[-1].get("content")), **question,
                        system=system, tools=names or None, expect_calls=expected or None,
                        expect_no_call=not expected)

    def save_eval_case(self, path: "str | Path | None" = None, case_id: Optional[str] = None, *,
                       column: int = 0) -> Path:
        """Add :meth:`eval_case` to the suite file at ``path`` (default: the *suite* box,
        ``playground.evals.json``), with the offered tools (their refs, or spec dicts for notebook tools).
        A case with the same id is replaced. Returns the path."""
        from workbench.evals import add_eval_case, load_evals

        target = Path(path if path is not None else self.eval_path.value or DEFAULT_EVAL_PATH)
        case = self.eval_case(case_id, column=column)
        if case_id is None and target.exists():  # a fresh id: saving twice keeps both cases
            taken = {c.id for c in load_evals(target).cases}
            base, number = case.id, 2
            while case.id in taken:
                case.id, number = f"{base}-{number}", number + 1
        tools = self._tool_map()
        add_eval_case(target, case, tools=[tools[n] for n in case.tools or [] if n in tools])
        self.save_message.value = (f"<div style='{_SECTION}'>Saved eval case <code>{_e(case.id)}</code> to "
                                   f"<code>{_e(target)}</code></div>")
        return target

    def _click_save_eval(self) -> None:
        try:
            self.save_eval_case()
        except (OSError, ValueError, TypeError) as exc:
            self.save_message.value = f"<div style='{BANNER_STYLE}'>Not saved: {_e(exc)}</div>"

    def _repr_mimebundle_(self, **kwargs: Any) -> Optional[dict]:
        """The live widget plus a static ``text/html`` picture (models, tools, mode, the conversations so
        far) for readers without the widget: GitHub, nbviewer, a saved notebook opened before it ran."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/html"] = playground_summary_html(self.columns, list(self.tool_picker.value), self.mode.value)
        return bundle

    def __repr__(self) -> str:
        return (f"<Playground models={[c.label for c in self.columns]!r} tools={list(self.tool_picker.value)!r} "
                f"mode={self.mode.value}>")


def _case_id(text: Any) -> str:
    """A readable case id from a prompt: its first words, lower case, joined by dashes."""
    words = re.findall(r"[a-z0-9]+", str(text or "case").lower())[:6]
    return "-".join(words) or "case"
