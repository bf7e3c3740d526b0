"""The server's tools as workbench tools: :class:`McpProxyTool`, and the connection's part that keeps them.

:class:`ProxyTools` lists the server's tools, registers a proxy per tool in the connection's
registry (skipping, with the reason, those it cannot use), follows the server's changes, and makes the
connection a tool source (``get_tool``, ``get_all_tool_specs``) that executors and the agent loop take
as it is. Mixed into :class:`~workbench.mcp.McpConnection`.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Optional, Sequence

import mcp.types as types
from mcp_types import LOG_LEVEL_META_KEY

from workbench.context import ToolContext
from workbench.mcp._convert import call_tool_result_to_value, is_result_wrapper, local_tool_name, mcp_tool_to_spec
from workbench.mcp._session import Session
from workbench.mcp._tasks import task_support
from workbench.mcp._url_elicitation import retry_after_url_elicitation
from workbench.spec import ToolSpec
from workbench.tools import BaseTool

__all__ = ["McpProxyTool", "ProxyTools"]

logger = logging.getLogger("workbench.mcp")

_PAGE_CAP = 100


def _fraction(progress: float, total: Optional[float]) -> float:
    if total:
        return progress / total
    return progress


class McpProxyTool(BaseTool):
    """A tool of an MCP server, callable like a local tool.

    Its spec comes from the server's tool list (``inputSchema`` → parameters, ``outputSchema`` →
    returns). It is an async tool: the executor awaits :meth:`invoke`, which sends ``tools/call``
    on the connection's loop and forwards the server's progress notifications to the call's
    ``ToolContext`` (so forms and executor listeners see them). ``isError`` results raise
    :class:`~workbench.mcp.McpToolError` with the server's message.
    """

    _supports_async = True
    removed = False  #: True once the server no longer lists this tool

    def __init__(self, connection: ProxyTools, mcp_tool: types.Tool, spec: ToolSpec) -> None:
        # no BaseTool.__init__: the spec is given, not declared by a subclass
        self.connection = connection
        self.mcp_tool = mcp_tool
        self.remote_name = mcp_tool.name
        self._unwrap = bool(mcp_tool.output_schema) and is_result_wrapper(mcp_tool.output_schema)
        self.__dict__["_wb_spec"] = spec
        self.__dict__["_wb_ctx"] = "tool_context"  # the executor then builds a ToolContext for progress

    @property
    def tool_type(self) -> str:
        return "mcp"

    def _call_target_is_async(self) -> bool:
        return True

    # -- calling ------------------------------------------------------------------------------------
    def invoke(self, arguments: dict[str, Any], context: Optional[ToolContext] = None) -> Any:
        """The coroutine the executor awaits."""
        return self._send(arguments, context)

    async def acall(self, *args: Any, **kwargs: Any) -> Any:
        """Call the server's tool from any event loop; returns the converted result."""
        return await self._send(self.spec.build_input(*args, **kwargs), None)

    async def _send(self, arguments: dict[str, Any], context: Optional[ToolContext]) -> Any:
        callback: Any = None
        if context is not None:

            async def callback(progress: float, total: Optional[float], message: Optional[str]) -> None:
                try:
                    context.report_progress(_fraction(progress, total), message)
                except Exception:  # noqa: BLE001 - a malformed progress value must not fail the call
                    logger.debug("ignored a progress notification", exc_info=True)

        connection = self.connection
        result = await connection._run_async(connection._call_tool(self.remote_name, arguments, callback))
        return call_tool_result_to_value(result, unwrap=self._unwrap, has_returns=bool(self.spec.returns))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call synchronously (blocks until the server answers; not from the connection's own thread)."""
        arguments = self.spec.build_input(*args, **kwargs)
        result = self.connection._run_sync(self.connection._call_tool(self.remote_name, arguments, None))
        return call_tool_result_to_value(result, unwrap=self._unwrap, has_returns=bool(self.spec.returns))

    @property
    def connected(self) -> bool:
        """False once the tool's connection was disconnected (or its session ended)."""
        return self.connection.connected

    def on_disconnect(self, callback: Callable[[], Any]) -> Callable[[], None]:
        """Call ``callback()`` once when the tool's connection ends (at once if it already has);
        returns an unsubscribe function. Forms use it to show a disconnected tool as such."""
        return self.connection.on_disconnect(callback)

    def get_display_properties(self) -> dict[str, str]:
        props = super().get_display_properties()
        props["Server"] = self.connection.label
        if self.remote_name != self.tool_name:
            props["Remote name"] = self.remote_name
        return props

    def __repr__(self) -> str:
        return f"<McpProxyTool {self.tool_name!r} of {self.connection.label}>"


class ProxyTools(Session):
    """The proxies of a connection's tools, registered in ``registry`` under ``prefix`` (it relies on the
    connection's task part for tools that run as tasks, and on its ``log_level``)."""

    registry: Any
    log_level: Optional[str]  # ClientFeatures
    _task_support: dict[str, str]  # TaskFeatures
    prefix: str
    replace: bool
    timeout: Optional[float]

    def _init_proxies(self) -> None:
        self.proxies: dict[str, McpProxyTool] = {}
        self.skipped: dict[str, str] = {}
        self._tools_lock = threading.RLock()

    async def _list_tools(self, cache_mode: str = "refresh") -> list[types.Tool]:
        client = self._require_client()
        tools: list[types.Tool] = []
        cursor = None
        for _ in range(_PAGE_CAP):
            page = await client.list_tools(cursor=cursor, cache_mode=cache_mode)  # type: ignore[arg-type]
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def _call_tool(
        self, name: str, arguments: dict[str, Any], progress: Any, as_task: Optional[bool] = None
    ) -> types.CallToolResult:
        if self._wants_task(name, as_task):  # type: ignore[attr-defined]  # execution.taskSupport (see _tasks.py)
            return await self._call_tool_as_task(name, arguments, progress)  # type: ignore[attr-defined]
        client = self._require_client()
        meta = {LOG_LEVEL_META_KEY: self.log_level} if self.log_level is not None else None
        return await retry_after_url_elicitation(  # a -32042 answer: the user's browser flow, then once more
            self,
            # RequestParamsMeta is an open TypedDict (PEP 728 extra_items), which mypy does not support yet
            lambda: client.call_tool(name, arguments, progress_callback=progress, meta=meta),  # type: ignore[arg-type]
        )

    def _register(self, mcp_tools: Sequence[types.Tool]) -> None:
        """Register a proxy per tool; on a name clash undo this batch and raise ``ValueError``."""
        self.skipped.update(self._tool_lists.rejected)  # listed by the server, but not as a valid MCP Tool
        added: list[str] = []
        try:
            for mcp_tool in mcp_tools:
                name = local_tool_name(mcp_tool.name, self.prefix)
                self._task_support[mcp_tool.name] = task_support(mcp_tool)
                reason = self._task_refusal(mcp_tool)  # type: ignore[attr-defined]  # TaskFeatures
                if reason is not None:  # listed with the reason, never a proxy that always fails
                    self.skipped[mcp_tool.name] = reason
                    continue
                try:
                    spec = mcp_tool_to_spec(mcp_tool, name, timeout=self.timeout)
                    proxy = McpProxyTool(self, mcp_tool, spec)
                    spec.validate_structure()
                except Exception as exc:  # noqa: BLE001 - an unusable schema: skip this tool, keep the others
                    self.skipped[mcp_tool.name] = f"{type(exc).__name__}: {exc}"
                    logger.warning("MCP server %s: skipped tool %r: %s", self.label, mcp_tool.name, exc)
                    continue
                current = self.proxies.get(name)
                replace = self.replace or (current is not None and self.registry.get(name) is current)
                try:
                    self.registry.register_tool(proxy, replace=replace)
                except ValueError as exc:
                    raise ValueError(
                        f"{exc} — connect(..., prefix='...') gives the server's tools distinct "
                        f"names, replace=True overwrites"
                    ) from None
                self.proxies[name] = proxy
                added.append(name)
        except BaseException:
            for name in added:
                if self.registry.get(name) is self.proxies.get(name):
                    self.registry.unregister(name)
                self.proxies.pop(name, None)
            raise

    @property
    def tools(self) -> list[str]:
        """Names (in the registry) of the server's tools."""
        with self._tools_lock:
            return list(self.proxies)

    def tool_listing(self) -> tuple[dict[str, "McpProxyTool"], dict[str, str]]:
        """The proxies by registered name and the skipped tools with their reasons, read together
        (a list_changed refresh may be re-registering them on the connection's thread)."""
        with self._tools_lock:
            return dict(self.proxies), dict(self.skipped)

    def list_mcp_tools(self, timeout: Optional[float] = 30.0, *, refresh: bool = False) -> list[types.Tool]:
        """The server's current tool list (MCP ``Tool`` objects); within the server's ``ttlMs``
        (2026-07-28 cache hints) from the client's cache unless ``refresh=True``."""
        return self._run_sync(self._list_tools("refresh" if refresh else "use"), timeout)

    def refresh(self, timeout: Optional[float] = 30.0) -> list[str]:
        """Fetch the tool list again: register new tools, update changed ones, drop removed ones
        (their proxies get ``removed = True``, so forms show them as removed). The server's
        ``notifications/tools/list_changed`` does this by itself."""
        self._apply_tools(self.list_mcp_tools(timeout, refresh=True))
        return self.tools

    def _apply_tools(self, mcp_tools: Sequence[types.Tool]) -> None:
        with self._tools_lock:
            names = {local_tool_name(t.name, self.prefix) for t in mcp_tools}
            for name in [n for n in self.proxies if n not in names]:
                proxy = self.proxies.pop(name)
                proxy.removed = True
                if self.registry.get(name) is proxy:
                    self.registry.unregister(name)
            self.skipped.clear()
            self._register(mcp_tools)

    def call_tool(
        self, name: str, arguments: Optional[dict[str, Any]] = None, *, as_task: Optional[bool] = None
    ) -> types.CallToolResult:
        """Send ``tools/call`` directly (no executor, no conversion): the raw ``CallToolResult``.
        ``name`` is the server's tool name (or the registered name of one of its proxies). A tool
        with ``execution.taskSupport: "required"`` runs as a task (created, polled, its result
        fetched); ``as_task=True`` does that for an ``"optional"`` one too."""
        proxy = self.proxies.get(name)
        remote = proxy.remote_name if proxy is not None else name
        return self._run_sync(self._call_tool(remote, dict(arguments or {}), None, as_task))

    def _unregister_all(self) -> None:
        """Take every proxy of this connection out of the registry (those another tool replaced stay)."""
        for name, proxy in list(self.proxies.items()):
            if self.registry.get(name) is proxy:
                self.registry.unregister(name)
        self.proxies.clear()

    # -- a tool source (workbench.protocols.ToolSource) ------------------------------------------------
    def get_tool(self, tool_name: str) -> McpProxyTool:
        """The proxy registered as ``tool_name``; ``KeyError`` naming the server's tools when there is none."""
        with self._tools_lock:
            proxy = self.proxies.get(tool_name)
            if proxy is None:
                raise KeyError(
                    f"no tool {tool_name!r} on MCP server {self.label}: it has "
                    f"{', '.join(sorted(self.proxies)) or 'no tools'}"
                )
            return proxy

    def get_all_tool_specs(self) -> list[ToolSpec]:
        """The specs of the server's tools (as registered), in the server's order."""
        with self._tools_lock:
            return [proxy.spec for proxy in self.proxies.values()]

    def list_tools(self) -> list[str]:
        """The registered names of the server's tools (as :attr:`tools`)."""
        return self.tools
