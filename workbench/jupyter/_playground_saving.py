"""``SaveBar``: the playground's way out — **Save transcript** (each column's last run as Transcript
JSON) and **Save as eval case** (the last prompt and the calls the user let run, edited ones as
edited, added to a ``*.evals.json`` suite), with the message saying what was written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench._html import escape as _e
from workbench._styles import BANNER_STYLE, WRAP
from workbench.jupyter._close import close_widgets
from workbench.jupyter._disclosure import Disclosure
from workbench.jupyter._playground_card import NOT_RUN_TYPES
from workbench.jupyter._render import json_html

__all__ = ["SaveBar", "eval_case_of", "DEFAULT_EVAL_PATH", "DEFAULT_TRANSCRIPT_PATH"]

#: where Save as eval case writes unless told otherwise
DEFAULT_EVAL_PATH = "playground.evals.json"
DEFAULT_TRANSCRIPT_PATH = "playground_transcript.json"
_SECTION = "margin:2px 0;" + WRAP


def eval_case_of(transcript: Any, case_id: Optional[str] = None) -> Any:
    """A run as an :class:`~workbench.evals.EvalCase`: its prompt (the whole conversation when there was
    one before it) and, as expected calls, the calls that ran — edited ones as edited; refused ones are
    left out. A call that gives a secret parameter is refused with ``ValueError``."""
    from workbench.evals import EvalCase
    from workbench.secrets import SecretCalls

    calls = [
        step.tool_use for step in transcript.tool_steps if step.result.metadata.get("error_type") not in NOT_RUN_TYPES
    ]
    secrets = SecretCalls.of(transcript.tools)
    for call in calls:  # a case file is kept in clear, next to the code: it cannot hold a secret
        given = sorted(secrets.names_of(call) & set(call.get("input") or {}))
        if given:
            raise ValueError(
                f"the call of {call['name']} gives the secret parameter(s) {', '.join(given)}: a case "
                "file would hold the secret in clear, so this conversation is not saved as a case"
            )
    expected = [
        {"name": call["name"], "arguments": {k: [v] for k, v in call["input"].items()}}
        for call in calls
        if isinstance(call.get("input"), dict)
    ]
    prompt = [m for m in transcript.prompt if m.get("role") != "system"]
    system = next((m["content"] for m in transcript.prompt if m.get("role") == "system"), None)
    question = (
        dict(prompt=prompt[0]["content"])
        if len(prompt) == 1 and isinstance(prompt[0].get("content"), str)
        else dict(messages=prompt)
    )
    names = [spec["name"] for spec in transcript.tools]
    return EvalCase(
        case_id or _case_id(question.get("prompt") or prompt[-1].get("content")),
        **question,
        system=system,
        tools=names or None,
        expect_calls=expected or None,
        expect_no_call=not expected,
    )


def _case_id(text: Any) -> str:
    """A readable case id from a prompt: its first words, lower case, joined by dashes."""
    words = re.findall(r"[a-z0-9]+", str(text or "case").lower())[:6]
    return "-".join(words) or "case"


class SaveBar(W.VBox):
    """The save controls and their message.

    Args:
        columns: gives the playground's columns now (each with ``label`` and ``transcript``).
        tool_map: gives the offered tools now (name → tool), written into a suite beside its case.
    """

    def __init__(self, columns: Callable[[], list], tool_map: Callable[[], dict[str, Any]]) -> None:
        self._columns = columns
        self._tool_map = tool_map
        self.saved_paths: list[Path] = []
        self.save_path = W.Text(value=DEFAULT_TRANSCRIPT_PATH, description="path", layout=W.Layout(width="360px"))
        self.save_path.add_class("workbench-save-path")
        self.save_button = W.Button(
            description="Save transcript",
            icon="save",
            disabled=True,
            tooltip="Write each column's last run as Transcript JSON",
            layout=W.Layout(width="auto"),
        )
        self.save_button.add_class("workbench-save-transcript")
        self.eval_path = W.Text(value=DEFAULT_EVAL_PATH, description="suite", layout=W.Layout(width="300px"))
        self.eval_path.add_class("workbench-eval-path")
        self.eval_button = W.Button(
            description="Save as eval case",
            icon="flask",
            disabled=True,
            tooltip="Add the last prompt and the calls you let run (as edited) to the suite file as an evaluation case",
            layout=W.Layout(width="auto"),
        )
        self.eval_button.add_class("workbench-save-eval")
        self.message = W.HTML()
        self.message.add_class("workbench-save-message")
        self.previews = W.VBox([])
        self.save_button.on_click(lambda _b: self._click_save())
        self.eval_button.on_click(lambda _b: self._click_save_eval())
        super().__init__(
            [
                W.HBox(
                    [self.save_path, self.save_button, self.eval_path, self.eval_button],
                    layout=W.Layout(flex_flow="row wrap"),
                ),
                self.message,
                self.previews,
            ]
        )
        self.add_class("workbench-playground-save")

    def enable(self, enabled: bool) -> None:
        """Let the buttons be pressed (there is a finished run to save) or not."""
        self.save_button.disabled = self.eval_button.disabled = not enabled

    def reset(self) -> None:
        """Forget what was saved (New chat): the message and previews go."""
        self.message.value = ""
        close_widgets(*self.previews.children)
        self.previews.children = ()
        self.saved_paths = []
        self.enable(False)

    def _ran(self) -> list:
        columns = [c for c in self._columns() if c.transcript is not None]
        if not columns:
            raise ValueError("nothing to save yet: Send a prompt first")
        return columns

    # -- transcripts ---------------------------------------------------------------------------------
    def save_transcript(self, path: "str | Path | None" = None) -> list[Path]:
        """Write each column's latest ``Transcript`` as JSON: ``path`` itself for one column,
        ``<stem>-<n><suffix>`` for several. ``ValueError`` before any run."""
        columns = self._ran()
        target = Path(path if path is not None else self.save_path.value or DEFAULT_TRANSCRIPT_PATH)
        paths = (
            [target]
            if len(columns) == 1
            else [target.with_name(f"{target.stem}-{i + 1}{target.suffix or '.json'}") for i in range(len(columns))]
        )
        for column, out in zip(columns, paths):
            out.parent.mkdir(parents=True, exist_ok=True)
            column.transcript.save(out)
        self.saved_paths = paths
        items = "".join(f"<li><code>{_e(p)}</code> — {_e(c.label)}</li>" for c, p in zip(columns, paths))
        self.message.value = f"<div style='{_SECTION}'>Saved:<ul style='margin:2px 0'>{items}</ul></div>"
        close_widgets(*self.previews.children)
        self.previews.children = [
            Disclosure(W.HTML(json_html(json.loads(p.read_text(encoding="utf-8")))), p.name) for p in paths
        ]
        return paths

    def _click_save(self) -> None:
        try:
            self.save_transcript()
        except (OSError, ValueError) as exc:
            self.message.value = f"<div style='{BANNER_STYLE}'>Not saved: {_e(exc)}</div>"

    # -- eval cases ----------------------------------------------------------------------------------
    def eval_case(self, case_id: Optional[str] = None, *, column: int = 0) -> Any:
        """The last Send of ``column`` as an ``EvalCase`` (see :func:`eval_case_of`)."""
        return eval_case_of(self._ran()[column].transcript, case_id)

    def save_eval_case(
        self, path: "str | Path | None" = None, case_id: Optional[str] = None, *, column: int = 0
    ) -> Path:
        """Add :meth:`eval_case` to the suite file at ``path`` (default: the *suite* box), with the offered
        tools. A case with the same id is replaced; without ``case_id`` a fresh one keeps both."""
        from workbench.evals import add_eval_case, load_evals

        target = Path(path if path is not None else self.eval_path.value or DEFAULT_EVAL_PATH)
        case = self.eval_case(case_id, column=column)
        if case_id is None and target.exists():
            taken = {c.id for c in load_evals(target).cases}
            base, number = case.id, 2
            while case.id in taken:
                case.id, number = f"{base}-{number}", number + 1
        tools = self._tool_map()
        add_eval_case(target, case, tools=[tools[n] for n in case.tools or [] if n in tools])
        self.message.value = (
            f"<div style='{_SECTION}'>Saved eval case <code>{_e(case.id)}</code> to <code>{_e(target)}</code></div>"
        )
        return target

    def _click_save_eval(self) -> None:
        try:
            self.save_eval_case()
        except (OSError, ValueError, TypeError) as exc:
            self.message.value = f"<div style='{BANNER_STYLE}'>Not saved: {_e(exc)}</div>"
