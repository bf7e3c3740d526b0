"""``ChatColumn``: one model's conversation in the playground — its messages, tool cards and runs.

A column is not one box: the playground lays the conversations out turn by turn (see
``_playground_grid``), so a column owns a heading (:attr:`ChatColumn.head`: the model, its runs) and
one *cell* per Send it took part in (:meth:`ChatColumn.cell`). Each :meth:`ChatColumn.arun` is one
``arun_agent`` run on the conversation so far plus the new prompt, shown in that Send's cell. The
loop reports each step as it is appended (``on_step``): a model turn becomes a message (text, stop
reason, tokens, latency, and its raw request/response collapsed) followed by one
:class:`ToolCallCard` per call; a tool result lands in its card. In step mode the loop's ``review``
waits on the card's Approve / Deny.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Optional, cast

import ipywidgets as W

from workbench._html import details
from workbench._html import escape as _e
from workbench._styles import MUTED, WRAP
from workbench.jupyter._close import close_widgets
from workbench.jupyter._playground_card import ToolCallCard
from workbench.jupyter._playground_html import (
    error_html,
    message_html,
    turn_meta_html,
    usage_text,
)
from workbench.jupyter._render import json_html

__all__ = ["ChatColumn", "resolve_model"]

_OFFLINE = "<i>an offline model: nothing was sent over the network</i>"


def resolve_model(model: Any) -> Any:
    """A ``Model`` from a model or a ``"provider:model"`` string (``workbench.models.get``)."""
    from workbench.models import get

    return get(model)


def model_label(model: Any) -> str:
    """How a model is named in the pickers: its id, or the string given."""
    return model if isinstance(model, str) else getattr(model, "id", None) or repr(model)


class ChatColumn:
    """The conversation with one model.

    Attributes: ``label`` (the picker's text), ``model`` (resolved on the first run), ``transcripts``
    (one per run since the last New chat, oldest first), ``cards`` (toolUseId → :class:`ToolCallCard`),
    ``messages`` (the conversation carried into the next run), ``head`` (the column's heading widget),
    ``chat`` (the cell of the latest Send), ``on_card`` (called with each new card).
    """

    def __init__(self, model: Any, workbench: Any) -> None:
        self.label = model_label(model)
        self._model = model
        self.model: Any = None if isinstance(model, str) else model
        self.workbench = workbench
        self.transcripts: list[Any] = []
        self.cards: dict[str, ToolCallCard] = {}
        self.messages: list[dict] = []
        self.running = False
        self.on_card: Optional[Callable[[ToolCallCard], None]] = None
        self._cells: dict[int, W.VBox] = {}
        self._turn: Optional[int] = None
        self.title = W.HTML(
            f"<div class='workbench-chat-title' style='font-weight:600;{WRAP};"
            f"border-bottom:2px solid var(--jp-brand-color1, steelblue)'>{_e(self.label)}</div>"
        )
        self.totals = W.HTML()
        self.totals.add_class("workbench-chat-totals")
        self.head = W.VBox([self.title, self.totals], layout=W.Layout(flex="1 1 0", min_width="0", margin="0 4px"))
        self.head.add_class("workbench-chat-head")

    @property
    def transcript(self) -> Any:
        """The latest run's ``Transcript`` (``None`` before the first run)."""
        return self.transcripts[-1] if self.transcripts else None

    @property
    def pending(self) -> list[ToolCallCard]:
        """The cards waiting for Approve / Deny."""
        return [card for card in self.cards.values() if card.pending]

    def cell(self, turn: int) -> Optional[W.VBox]:
        """The box of Send number ``turn`` in this column (``None``: the column did not take part)."""
        return self._cells.get(turn)

    def start_turn(self, turn: int) -> W.VBox:
        """Open the cell of Send number ``turn``: what the next :meth:`arun` shows goes there."""
        cell = self._cells.get(turn)
        if cell is None:
            cell = self._cells[turn] = W.VBox([], layout=W.Layout(flex="1 1 0", min_width="0", margin="0 4px"))
            cell.add_class("workbench-chat-cell")
        self._turn = turn
        return cell

    @property
    def chat(self) -> Optional[W.VBox]:
        """The cell of the latest Send (``None`` before the first)."""
        return None if self._turn is None else self._cells[self._turn]

    @property
    def widgets(self) -> list[W.Widget]:
        """Every widget shown in the column's cells, Send after Send."""
        return [w for turn in sorted(self._cells) for w in self._cells[turn].children]

    def clear(self) -> None:
        """Start a new conversation: calls still waiting are denied, the cells, cards and run count go
        (their widgets closed), the transcripts too."""
        for card in self.pending:
            card.deny()
        close_widgets(*self._cells.values())
        self._cells.clear()
        self._turn = None
        self.cards = {}
        self.messages = []
        self.transcripts = []
        self.totals.value = ""

    def close(self) -> None:
        """Clear the column and close its heading (the column is gone from the playground)."""
        self.clear()
        close_widgets(self.head)

    def _append(self, *widgets: W.Widget) -> None:
        chat = self._cells.get(self._turn) if self._turn is not None else None
        if chat is None:  # a run without a Send (a script driving the column itself): a cell of its own
            chat = self.start_turn(max(self._cells, default=-1) + 1)
        chat.children = (*chat.children, *widgets)

    # -- running -------------------------------------------------------------------------------------
    async def arun(
        self,
        prompt: str,
        *,
        tools: list,
        system: Optional[str],
        tool_choice: Any,
        step: bool,
        log: Any,
        max_turns: int,
        params: dict[str, Any],
    ) -> Any:
        """One agent run on the conversation plus ``prompt``; returns its ``Transcript`` (``None`` if the
        model could not be built). A model error ends the run and is shown in the column."""
        from workbench.agent import arun_agent

        try:
            if self.model is None:
                self.model = resolve_model(self._model)
        except Exception as exc:  # noqa: BLE001 - an unknown provider or a missing SDK/key is shown, not raised
            self._append(W.HTML(error_html(f"cannot use {self.label}", str(exc))))
            return None
        self.running = True
        registry = {t.tool_name: t for t in tools}
        try:
            transcript = await arun_agent(
                self.model,
                [*self.messages, {"role": "user", "content": prompt}],
                tools=tools,
                system=system,
                executor=self.workbench.executor,
                log=log,
                max_turns=max_turns,
                tool_choice=tool_choice,
                review=self._review if step else None,
                approver=self._approve,
                on_step=lambda s: self._on_step(s, registry),
                **params,
            )
        finally:
            self.running = False
            for card in self.cards.values():  # the run ended: nothing waits any more
                if card.result is None:
                    card.show_stopped()
        self.transcripts.append(transcript)
        self.messages = [m for m in transcript.messages if m.get("role") != "system"]
        self._show_end(transcript)
        return transcript

    async def _review(self, tool_use: Any, tool: Any) -> Any:
        """The loop's ``review`` in step mode: the card's Approve / Deny (or edited input)."""
        card = self._card(cast(dict, tool_use), tool)  # a ToolUse is a plain dict at run time
        return await asyncio.wrap_future(card.ask())

    async def _approve(self, tool_use: dict, tool: Any) -> bool:
        """The approval an ``ASK_USER`` tool needs: yes at once if its card was approved in step mode,
        else its card asks (yes or no; the arguments are the model's)."""
        card = self._card(tool_use, tool)
        if card.decision is not None:
            return card.decision is not False
        return (await asyncio.wrap_future(card.ask(editable=False))) is not False

    def _card(self, tool_use: dict, tool: Any) -> ToolCallCard:
        use_id = tool_use.get("toolUseId", "")
        card = self.cards.get(use_id)
        if card is None:
            card = self.cards[use_id] = ToolCallCard(tool_use, tool, self.workbench)
            self._append(card)
            if self.on_card is not None:
                self.on_card(card)
        else:  # the review's call is the model's own (a step's shows its secrets as ***)
            card.remember(tool_use)
        return card

    def _on_step(self, step: Any, registry: dict[str, Any]) -> None:
        handler = _STEP_HANDLERS.get(getattr(step, "kind", None))
        if handler is not None:
            handler(self, step, registry)

    def _on_model_step(self, step: Any, registry: dict[str, Any]) -> None:
        turn = step.turn
        parts: list[W.Widget] = []
        if getattr(step, "error", None):
            parts.append(W.HTML(error_html(f"model error ({step.error_kind or 'unknown'})", step.error)))
        elif turn.text or not turn.tool_calls:
            parts.append(W.HTML(message_html("assistant", turn.text or "(no text)", who=turn.model or self.label)))
        parts.append(W.HTML(turn_meta_html(turn)))
        parts.append(_raw_turn(turn))
        self._append(*parts)
        for call in turn.tool_calls:  # the turn's tokens are in its footer above, not on its calls' cards
            self._card(call, registry.get(call.get("name")))

    def _on_tool_step(self, step: Any, registry: dict[str, Any]) -> None:
        result = step.result
        card = self.cards.get(result.tool_use_id)
        if card is None:  # a call the loop answered without a model turn we saw
            card = self._card(
                {"toolUseId": result.tool_use_id, "name": result.tool_name or "?", "input": {}},
                registry.get(result.tool_name),
            )
        card.show_result(result)

    def _show_end(self, transcript: Any) -> None:
        stopped = getattr(transcript, "stopped_because", None)
        if stopped not in (None, "end_turn", "model_error"):  # a model error is shown at its turn
            self._append(W.HTML(error_html("the run stopped", f"{stopped}: {transcript.error or ''}".rstrip(": "))))
        usage = getattr(transcript, "usage", None)
        turns = sum(1 for s in getattr(transcript, "steps", ()) if getattr(s, "kind", None) == "model")
        self.totals.value = (
            f"<div style='color:{MUTED};font-size:0.85em'>{len(self.transcripts)} run(s) · "
            f"last: {turns} model turn(s){' · ' + _e(usage_text(usage)) if usage_text(usage) else ''}"
            "</div>"
        )


_STEP_HANDLERS: dict[Any, Callable[[ChatColumn, Any, dict], None]] = {
    "model": ChatColumn._on_model_step,
    "tool": ChatColumn._on_tool_step,
}


def _raw_turn(turn: Any) -> W.HTML:
    """A model turn's raw request and response: a collapsed ``<details>`` (plain HTML rather than a
    ``Disclosure`` of widgets — every widget is saved with the notebook, and a chat has many turns)."""
    request = json_html(turn.request) if turn.request is not None else _OFFLINE
    response = json_html(turn.response) if turn.response is not None else json_html(turn.to_dict())
    section = W.HTML(details("Raw request / response", f"<b>Request</b>{request}<b>Response</b>{response}"))
    section.add_class("workbench-raw-turn")
    return section
