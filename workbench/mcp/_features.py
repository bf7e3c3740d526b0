"""What an MCP client asks of the server beyond tools — the MCP Inspector's client side — as methods of
:class:`~workbench.mcp.McpConnection`: the server's capabilities, ping, resources (and their
subscriptions), prompts, completions and the server's logging level.

What the server asks of the client and tells it (sampling, elicitation, roots, notifications, the
protocol record) is :class:`~workbench.mcp._server_requests.ServerRequests`, which this part extends.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

import mcp.types as types

from workbench.mcp._eras import ResourceSubscriptions, probe
from workbench.mcp._server_requests import ELICITATION_ROW, SAMPLING_ROW, ServerRequests, legacy
from workbench.protocols import LogSink

if TYPE_CHECKING:  # pragma: no cover
    from mcp.client import Client

__all__ = ["ClientFeatures", "LOG_LEVELS", "SAMPLING_ROW", "ELICITATION_ROW"]

logger = logging.getLogger("workbench.mcp")

#: MCP log levels, least to most severe (``logging/setLevel``)
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_PAGE_CAP = 100


def _reference(ref: str) -> types.PromptReference | types.ResourceTemplateReference:
    kind, _, target = ref.partition(":")
    if kind == "prompt" and target:
        return types.PromptReference(type="ref/prompt", name=target)
    if kind == "resource" and target:
        return types.ResourceTemplateReference(type="ref/resource", uri=target)
    raise ValueError(f"complete(ref={ref!r}): expected 'prompt:<prompt name>' or 'resource:<uri template>'")


#: list field -> the server capability that offers it (``ServerCapabilities`` attribute)
_LIST_CAPABILITY = {"resources": "resources", "resource_templates": "resources", "prompts": "prompts"}


def _offers(capabilities: Optional[types.ServerCapabilities], field: str) -> bool:
    """Whether the server declared the capability behind a list (``resources``, ``prompts``…)."""
    return capabilities is not None and getattr(capabilities, _LIST_CAPABILITY[field], None) is not None


class ClientFeatures(ServerRequests):
    """The server's capabilities, ping, resources, prompts, completions and logging level.

    Mixed into :class:`~workbench.mcp.McpConnection`; relies on its ``_run_sync``,
    ``_require_client`` and ``label``.
    """

    def _init_features(
        self,
        *,
        sampling: Any = None,
        elicitation: Any = None,
        roots: Optional[Sequence[Any]] = None,
        log: Optional[LogSink] = None,
    ) -> None:
        self._init_requests(sampling=sampling, elicitation=elicitation, roots=roots, log=log)
        self.log_level: Optional[str] = None  # sent with each tool call on 2026-07-28 connections
        self._subscriptions = ResourceSubscriptions(lambda: getattr(self, "label", "?"))
        self._subscribed: set[str] = set()  # the URIs the server was asked to report

    # -- server ----------------------------------------------------------------------------------
    @property
    def server_capabilities(self) -> Optional[types.ServerCapabilities]:
        """What the server said it supports."""
        return getattr(self, "_capabilities", None)

    @property
    def instructions(self) -> Optional[str]:
        """The server's instructions for models (from the handshake)."""
        return getattr(self, "_instructions", None)

    def ping(self, timeout: Optional[float] = 30.0) -> float:
        """Send ``ping`` (``server/discover`` on protocol 2026-07-28, which has no ping); the round trip
        in seconds."""

        async def go() -> float:
            import time

            start = time.perf_counter()
            await probe(self._require_client())  # type: ignore[attr-defined]
            return time.perf_counter() - start

        return self._run_sync(go(), timeout)  # type: ignore[attr-defined]

    # -- resources ---------------------------------------------------------------------------------
    def _paged(self, method: str, field: str, timeout: Optional[float], refresh: bool = False) -> list:
        if not _offers(self.server_capabilities, field):
            return []  # as MCP Inspector: a server without the capability has nothing to list
        # the SDK's response cache serves a cursor-less first page while the server's ttlMs lasts
        # (2026-07-28 cache hints, see _cache.py); refresh=True fetches it again and re-caches it
        cache_mode = "refresh" if refresh else "use"

        async def go() -> list:
            client: "Client" = self._require_client()  # type: ignore[attr-defined]
            items: list = []
            cursor = None
            for _ in range(_PAGE_CAP):
                page = await getattr(client, method)(cursor=cursor, cache_mode=cache_mode)
                items.extend(getattr(page, field))
                cursor = page.next_cursor
                if not cursor:
                    break
            return items

        return self._run_sync(go(), timeout)  # type: ignore[attr-defined]

    def list_resources(self, timeout: Optional[float] = 30.0, *, refresh: bool = False) -> list[types.Resource]:
        """The server's resources (every page); ``[]`` when the server has no ``resources`` capability;
        within the server's ``ttlMs`` from the client's cache unless ``refresh=True``."""
        return self._paged("list_resources", "resources", timeout, refresh)

    def list_resource_templates(
        self, timeout: Optional[float] = 30.0, *, refresh: bool = False
    ) -> list[types.ResourceTemplate]:
        """The server's resource templates (every page; ``[]`` without the ``resources`` capability;
        cached as :meth:`list_resources`)."""
        return self._paged("list_resource_templates", "resource_templates", timeout, refresh)

    def read_resource(self, uri: str, timeout: Optional[float] = 30.0) -> types.ReadResourceResult:
        """``resources/read``: the contents (``TextResourceContents`` / ``BlobResourceContents``)."""
        return self._run_sync(self._require_client().read_resource(str(uri)), timeout)  # type: ignore[attr-defined]

    def subscribe_resource(
        self, uri: str, callback: Optional[Callable[[str], Any]] = None, timeout: Optional[float] = 30.0
    ) -> Callable[[], None]:
        """Ask the server to report changes of ``uri`` — ``resources/subscribe``, or a
        ``subscriptions/listen`` stream on protocol 2026-07-28 — and run ``callback(uri)`` on each
        ``notifications/resources/updated`` for it (all updates also land in :attr:`notifications`).
        Returns a function that unsubscribes. A server that does not offer subscriptions raises, and
        nothing stays registered."""
        uri = str(uri)
        if uri not in self._subscribed:
            client = self._require_client()  # type: ignore[attr-defined]
            self._run_sync(self._subscriptions.subscribe(client, uri), timeout)  # type: ignore[attr-defined]
            self._subscribed.add(uri)
        if callback is not None:
            self._resource_listeners.setdefault(uri, []).append(callback)

        def unsubscribe() -> None:
            current = self._resource_listeners.get(uri, [])
            if callback is not None and callback in current:
                current.remove(callback)
            if not current:
                self._resource_listeners.pop(uri, None)
                if uri in self._subscribed:
                    self._subscribed.discard(uri)
                    if getattr(self, "connected", False):
                        client = self._require_client()  # type: ignore[attr-defined]
                        self._run_sync(self._subscriptions.unsubscribe(client, uri), timeout)  # type: ignore[attr-defined]

        return unsubscribe

    # -- prompts and completions --------------------------------------------------------------------
    def list_prompts(self, timeout: Optional[float] = 30.0, *, refresh: bool = False) -> list[types.Prompt]:
        """The server's prompts (every page; ``[]`` without the ``prompts`` capability; cached as
        :meth:`list_resources`)."""
        return self._paged("list_prompts", "prompts", timeout, refresh)

    def get_prompt(
        self, name: str, arguments: Optional[dict[str, str]] = None, timeout: Optional[float] = 30.0
    ) -> types.GetPromptResult:
        """``prompts/get``: the prompt's messages for ``arguments`` (string values, as MCP wants)."""
        bad = {k: v for k, v in (arguments or {}).items() if not isinstance(v, str)}
        if bad:
            raise TypeError(
                f"get_prompt({name!r}): prompt arguments are strings, got "
                + ", ".join(f"{k}={v!r}" for k, v in bad.items())
            )
        return self._run_sync(self._require_client().get_prompt(name, arguments or None), timeout)  # type: ignore[attr-defined]

    def complete(
        self,
        ref: str,
        argument: str,
        value: str = "",
        context: Optional[dict[str, str]] = None,
        timeout: Optional[float] = 30.0,
    ) -> list[str]:
        """``completion/complete``: suggested values of a prompt's or resource template's argument.
        ``ref`` is ``"prompt:<name>"`` or ``"resource:<uri template>"``."""
        reference = _reference(ref)
        result = self._run_sync(  # type: ignore[attr-defined]
            self._require_client().complete(  # type: ignore[attr-defined]
                reference, {"name": argument, "value": value}, context_arguments=context
            ),
            timeout,
        )
        return list(result.completion.values)

    # -- logging --------------------------------------------------------------------------------------
    def set_logging_level(self, level: str, timeout: Optional[float] = 30.0) -> None:
        """The least severe level of the log messages the server should send. On protocol
        2026-07-28 connections the level travels with each tool call (``_meta``
        ``io.modelcontextprotocol/logLevel``, how that protocol opts in to log messages); before
        it, ``logging/setLevel`` sets it for the session."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if level not in LOG_LEVELS:
            raise ValueError(f"set_logging_level({level!r}): expected one of {', '.join(LOG_LEVELS)}")
        if getattr(self, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS:
            self.log_level = level
            return
        client = self._require_client()  # type: ignore[attr-defined]
        self._run_sync(legacy(lambda: client.set_logging_level(level)), timeout)  # type: ignore[attr-defined]
