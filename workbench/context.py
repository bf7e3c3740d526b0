"""``ToolContext``: what a running tool can see and report (its ``context`` parameter, hidden from the schema)."""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
from typing import Any, Callable, Coroutine, Iterator, Optional

from workbench._peer import (
    LOG_LEVELS,
    PEER_KEY,
    Elicitation,
    Messages,
    NobodyToAsk,
    Sampled,
    elicitation_schema,
    sampling_messages,
)
from workbench.secrets import mask, mask_arguments, secret_parameters
from workbench.types import ToolUse, utc_now_iso

__all__ = ["ToolContext", "Elicitation", "Sampled", "NobodyToAsk", "LOG_LEVELS"]

ProgressCallback = Callable[[float, Optional[str]], None]


class ToolContext:
    """Framework-provided data for one tool call.

    Declare a parameter annotated ``ToolContext`` (or use ``@tool(context=True)``)
    and the executor passes one in; it never appears in the tool's schema.

    Besides reporting progress and logging, a tool can ask whoever runs it: :meth:`elicit` (a form
    for the user) and :meth:`sample` (a model's answer) — the MCP client when the tool is served,
    the notebook's form and models in a notebook, the agent's model in an agent run (the *peer*,
    see ``workbench._peer``). Async tools ``await`` :meth:`aelicit` / :meth:`asample`.
    """

    __slots__ = (
        "tool_use",
        "invocation_state",
        "metadata",
        "tool_config",
        "logs",
        "entries",
        "peer",
        "_on_progress",
        "_on_log",
        "_cancel_event",
    )

    def __init__(
        self,
        tool_use: ToolUse,
        invocation_state: Optional[dict[str, Any]] = None,
        *,
        metadata: Optional[dict[str, Any]] = None,
        tool_config: Optional[dict[str, Any]] = None,
        on_progress: Optional[ProgressCallback] = None,
        on_log: Optional[Callable[[str], None]] = None,
        cancel_event: Optional[threading.Event] = None,
        peer: Any = None,
    ) -> None:
        self.tool_use = tool_use
        self.invocation_state = {} if invocation_state is None else invocation_state
        self.metadata = {} if metadata is None else metadata
        self.tool_config = {} if tool_config is None else tool_config
        self.logs: list[str] = []
        #: what the call's row in the execution log keeps (``metadata["logs"]``): each ``log`` line
        #: (``at``, ``level``, ``message``) and each question asked, with ``kind`` ``elicitation`` or
        #: ``sampling`` and what came back
        self.entries: list[dict[str, Any]] = []
        self.peer = peer if peer is not None else self.invocation_state.get(PEER_KEY)
        self._on_progress = on_progress
        self._on_log = on_log
        self._cancel_event = cancel_event

    # -- reporting ---------------------------------------------------------------------
    def report_progress(self, progress: float, message: Optional[str] = None) -> None:
        """Report progress between 0 and 1 (clamped); listeners get an ``in_progress`` result."""
        try:
            value = float(progress)
        except (TypeError, ValueError):
            raise ValueError(f"report_progress expects a number between 0 and 1, got {progress!r}") from None
        if math.isnan(value):
            raise ValueError("report_progress expects a number between 0 and 1, got NaN")
        value = 0.0 if value < 0.0 else 1.0 if value > 1.0 else value
        if self._on_progress is not None:
            self._on_progress(value, message)

    def log(self, level_or_message: Any, message: Any = None) -> None:
        """Log a line for this call: ``log(message)`` at ``info``, or ``log(level, message)`` with an MCP
        level (``debug``, ``info``, ``notice``, ``warning``, ``error``, ``critical``, ``alert``,
        ``emergency``). Kept in ``logs`` (as ``"[level] message"`` unless ``info``), shown live
        in forms, and sent to the client as a log notification when served."""
        if message is None:
            level, text = "info", str(level_or_message)
        else:
            level, text = str(level_or_message), str(message)
            if level not in LOG_LEVELS:
                raise ValueError(f"log({level_or_message!r}, ...): the level must be one of {', '.join(LOG_LEVELS)}")
        line = text if level == "info" else f"[{level}] {text}"
        self.logs.append(line)
        self.entries.append({"at": utc_now_iso(), "level": level, "message": text})
        if self._on_log is not None:
            self._on_log(line)
        if self.peer is not None:
            self.peer.log(level, text, self.tool_use.get("name", ""))

    # -- asking whoever runs the tool --------------------------------------------------------------
    def elicit(self, message: str, schema: Any) -> Elicitation:
        """Ask the user to fill a form (``schema``: a JSON Schema object of flat properties, or a
        pydantic model class) and wait for the answer (``.action``: accept / decline / cancel;
        ``.content``: the values). Raises ``NobodyToAsk`` where nobody can answer."""
        requested = elicitation_schema(schema)
        with self._noting("elicitation", str(message)) as entry:
            answer = self._wait(self._asking("elicit").elicit(str(message), requested, self._name))
            _note_elicitation(entry, answer, requested)
        return answer

    async def aelicit(self, message: str, schema: Any) -> Elicitation:
        """:meth:`elicit` for async tools."""
        requested = elicitation_schema(schema)
        with self._noting("elicitation", str(message)) as entry:
            answer = await self._await(self._asking("elicit").elicit(str(message), requested, self._name))
            _note_elicitation(entry, answer, requested)
        return answer

    def sample(
        self,
        messages: Messages,
        *,
        max_tokens: int = 1000,
        system: Optional[str] = None,
        temperature: Optional[float] = None,
        **options: Any,
    ) -> Sampled:
        """Ask a model: ``messages`` is a prompt string or a list of ``{"role", "content"}`` dicts.
        Returns the answer (``.text``, ``.model``). Other MCP sampling options (``stop_sequences``,
        ``model_preferences``…) pass through. Raises ``NobodyToAsk`` where no model can answer."""
        chat = sampling_messages(messages)
        opts = {"max_tokens": int(max_tokens), "system_prompt": system, "temperature": temperature, **options}
        with self._noting("sampling", _asked_text(chat)) as entry:
            answer = self._wait(self._asking("sample").sample(chat, opts, self._name))
            _note_sampled(entry, answer)
        return answer

    async def asample(
        self,
        messages: Messages,
        *,
        max_tokens: int = 1000,
        system: Optional[str] = None,
        temperature: Optional[float] = None,
        **options: Any,
    ) -> Sampled:
        """:meth:`sample` for async tools."""
        chat = sampling_messages(messages)
        opts = {"max_tokens": int(max_tokens), "system_prompt": system, "temperature": temperature, **options}
        with self._noting("sampling", _asked_text(chat)) as entry:
            answer = await self._await(self._asking("sample").sample(chat, opts, self._name))
            _note_sampled(entry, answer)
        return answer

    def release_stream(self) -> bool:
        """Served over streamable HTTP with resumption: close this call's event stream now — the client
        reconnects (after the server's ``retry``) and picks up the rest with ``Last-Event-ID``, so a
        long call need not hold a connection. True when a stream was released; elsewhere a no-op."""
        release = getattr(self.peer, "release_stream", None)
        return bool(release()) if release is not None else False

    @property
    def _name(self) -> str:
        return self.tool_use.get("name", "")

    @contextlib.contextmanager
    def _noting(self, kind: str, message: str) -> Iterator[dict[str, Any]]:
        """An entry for a question (kept even when asking fails: the log says who could not answer)."""
        entry: dict[str, Any] = {"at": utc_now_iso(), "level": "info", "kind": kind, "message": message}
        self.entries.append(entry)
        try:
            yield entry
        except BaseException as exc:
            entry.update(level="error", error=f"{type(exc).__name__}: {exc}")
            raise

    def _asking(self, what: str) -> Any:
        if self.peer is None:
            raise NobodyToAsk(
                f"Tool '{self._name}' called ToolContext.{what}() but nobody can answer here: it runs outside an MCP "
                "server, a notebook form and an agent run. Serve it (python -m workbench.mcp serve), try it in a "
                f"form, or give the executor a peer (invocation_state={{'{PEER_KEY}': peer}})."
            )
        return self.peer

    def _wait(self, question: Coroutine[Any, Any, Any]) -> Any:
        """Run a question from a sync tool (a worker thread) on the peer's loop and wait for the answer."""
        loop = getattr(self.peer, "loop", None)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not None:
            question.close()
            raise RuntimeError(
                f"Tool '{self._name}' asked with a blocking ToolContext method inside a running event "
                "loop: an async tool awaits aelicit() / asample()"
            )
        if loop is None:
            return asyncio.run(question)
        return asyncio.run_coroutine_threadsafe(question, loop).result()

    async def _await(self, question: Coroutine[Any, Any, Any]) -> Any:
        loop = getattr(self.peer, "loop", None)
        if loop is None or loop is asyncio.get_running_loop():
            return await question
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(question, loop))

    @property
    def cancelled(self) -> bool:
        """True once the call has been cancelled or timed out; long-running sync tools should poll it."""
        return self._cancel_event is not None and self._cancel_event.is_set()

    # -- metadata (locus names) ------------------------------------------------------------
    @property
    def invocation_metadata(self) -> dict[str, Any]:
        return self.metadata

    def get_metadata(self, key: str, default: Any = None) -> Any:
        """A value from ``metadata``."""
        return self.metadata.get(key, default)

    def get_config(self, key: str, default: Any = None) -> Any:
        """A value from ``tool_config``."""
        return self.tool_config.get(key, default)

    @property
    def tool_use_id(self) -> str:
        return self.tool_use["toolUseId"]

    def __repr__(self) -> str:
        return f"ToolContext(tool_use={self.tool_use!r})"


def _asked_text(messages: list[dict[str, Any]]) -> str:
    """What a sampling request asks, for the log: its last message's text (or its block's type)."""
    content = messages[-1]["content"]
    return str(content.get("text")) if content.get("type") == "text" else f"[{content.get('type')}]"


def _note_elicitation(entry: dict[str, Any], answer: Elicitation, schema: dict[str, Any]) -> None:
    """The user's answer on the log entry; fields the schema marks secret, or named as secrets, are ``***``."""
    entry["action"] = answer.action
    if answer.content:
        entry["content"] = mask(mask_arguments(dict(answer.content), secret_parameters(schema)))


def _note_sampled(entry: dict[str, Any], answer: Sampled) -> None:
    entry.update(model=answer.model, answer=answer.text)
