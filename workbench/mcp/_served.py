"""Resources, resource templates and prompts, declared beside tools with ``@resource`` / ``@prompt``.

A decorated function stays callable as before; the decorator adds what MCP says about it (URI or
name, title, description, MIME type) and, for a prompt's arguments and a template's parameters,
completion hooks. ``python -m workbench.mcp serve module.py`` (or ``build_server("module.py")``)
serves them beside the module's tools; the SDK's ``MCPServer`` machinery reads, renders and
validates them (``workbench.mcp._served_server``).

A completion hook (``complete={"arg": hook}``) is either a list of values (those starting with what
the user typed are offered) or a function ``hook(value)`` or ``hook(value, arguments)`` — the
arguments already filled in — returning values, sync or async.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import weakref
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

__all__ = ["COMPLETION_LIMIT", "Prompt", "Resource", "Served", "prompt", "resource", "served_in"]

#: MCP caps one ``completion/complete`` answer at 100 values
COMPLETION_LIMIT = 100

#: a completion hook: the values to offer, or a function of the typed value (and the other arguments)
Completer = Union[Sequence[str], Callable[..., Any]]


def _where(fn: Callable[..., Any]) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def _checker() -> Any:
    """One SDK server that decorated objects register into when declared, so the SDK's own checks
    (template variables vs. parameters, argument types…) fail at import, not on the first request."""
    global _CHECKER
    if _CHECKER is None:
        from mcp.server.mcpserver import MCPServer

        _CHECKER = sdk_server(
            MCPServer, "workbench-declarations", warn_on_duplicate_resources=False, warn_on_duplicate_prompts=False
        )
    return _CHECKER


def sdk_server(factory: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``factory(*args, **kwargs)`` — the SDK's ``MCPServer`` — with the root logger left as it was: its
    constructor gives the root logger an INFO handler (``logging.basicConfig``), which in a notebook
    would print every HTTP request of every later cell."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        return factory(*args, **kwargs)
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


_CHECKER: Any = None

#: what a completion hook completes, by kind
_ARGUMENTS_OF = {"prompt": "arguments", "resource": "URI template parameters"}


def _takes_arguments(hook: Callable[..., Any]) -> bool:
    """Whether a completion function accepts the other arguments as a second positional parameter."""
    try:
        params = list(inspect.signature(hook).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params)


class Served:
    """What ``@resource`` and ``@prompt`` return: the function (still callable) and its MCP description."""

    kind = "served"

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str],
        title: Optional[str],
        description: Optional[str],
        complete: Optional[Mapping[str, Completer]],
    ) -> None:
        if not callable(fn):
            raise TypeError(f"@{self.kind} decorates a function, not {type(fn).__name__}")
        from workbench._docstrings import parse_docstring

        doc = parse_docstring(fn)
        self.fn = fn
        self.name = name or fn.__name__
        self.title = title
        self.description = description or doc.description or self.name
        self.argument_docs = doc.params
        self.completions: dict[str, Completer] = {}
        self._servers: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.__name__ = getattr(fn, "__name__", self.name)
        self.__qualname__ = getattr(fn, "__qualname__", self.name)
        self.__module__ = getattr(fn, "__module__", __name__)
        self.register(_checker())
        for argument, hook in (complete or {}).items():
            self.completer(argument)(hook)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def arguments(self) -> list[str]:
        """The names a completion hook can be given for."""
        return []

    def register(self, server: Any) -> None:  # pragma: no cover - every kind overrides it
        raise NotImplementedError

    def completer(self, argument: str) -> Callable[[Completer], Completer]:
        """``@memo.completer("id")``: a completion hook for one argument (see the module docstring)."""
        names = self.arguments()

        def attach(hook: Completer) -> Completer:
            if argument not in names:
                shown = ", ".join(names) or "none"
                raise ValueError(
                    f"@{self.kind} {self.name!r} ({_where(self.fn)}): cannot complete {argument!r}, "
                    f"which is not one of its {_ARGUMENTS_OF[self.kind]} "
                    f"({shown})"
                )
            if isinstance(hook, str) or not (callable(hook) or isinstance(hook, (list, tuple))):
                raise TypeError(
                    f"@{self.kind} {self.name!r}: the completion of {argument!r} must be a list of "
                    f"strings or a function hook(value[, arguments]), not {type(hook).__name__}"
                )
            self.completions[argument] = hook
            return hook

        return attach

    async def complete(self, argument: str, value: str, arguments: Optional[Mapping[str, str]] = None) -> list[str]:
        """The values the hook of ``argument`` offers for ``value`` (none without a hook)."""
        hook = self.completions.get(argument)
        if hook is None:
            return []
        if isinstance(hook, (list, tuple)):
            found: Any = [item for item in hook if str(item).lower().startswith(value.lower())]
        else:
            function: Callable[..., Any] = hook  # type: ignore[assignment]  # not a list or tuple: a function
            call = (
                (lambda: function(value, dict(arguments or {})))
                if _takes_arguments(function)
                else (lambda: function(value))
            )
            if inspect.iscoroutinefunction(hook):
                found = await call()
            else:
                found = await asyncio.to_thread(call)
                if inspect.isawaitable(found):
                    found = await found
        if isinstance(found, str) or not isinstance(found, Iterable):
            raise TypeError(
                f"the completion hook of {argument!r} of {self.kind} {self.name!r} returned "
                f"{type(found).__name__}; expected a list of strings"
            )
        values = list(found)
        wrong = [v for v in values if not isinstance(v, str)]
        if wrong:
            raise TypeError(
                f"the completion hook of {argument!r} of {self.kind} {self.name!r} returned "
                f"{type(wrong[0]).__name__} {wrong[0]!r}; completion values are strings"
            )
        return values


class Resource(Served):
    """A resource (``memo://note``) or resource template (``memo://{id}``) declared with :func:`resource`."""

    kind = "resource"

    def __init__(
        self,
        fn: Callable[..., Any],
        uri: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = None,
        complete: Optional[Mapping[str, Completer]] = None,
    ) -> None:
        from mcp.shared.uri_template import InvalidUriTemplate, UriTemplate

        if not isinstance(uri, str) or not uri:
            raise ValueError(f"@resource on {_where(fn)}: the URI must be a non-empty string, got {uri!r}")
        try:
            self.parsed = UriTemplate.parse(uri)
        except InvalidUriTemplate as exc:
            raise ValueError(f"@resource({uri!r}) on {_where(fn)}: not a valid URI template: {exc}") from None
        self.uri = uri
        self.mime_type = mime_type
        super().__init__(fn, name=name, title=title, description=description, complete=complete)

    @property
    def is_template(self) -> bool:
        """Whether the URI has ``{parameters}`` (a resource template) or names one resource."""
        return bool(self.parsed.variable_names)

    def arguments(self) -> list[str]:
        return list(self.parsed.variable_names)

    def register(self, server: Any) -> None:
        """Add to an SDK ``MCPServer`` through its own ``resource`` decorator (its checks, its reading)."""
        try:
            server.resource(
                self.uri, name=self.name, title=self.title, description=self.description, mime_type=self.mime_type
            )(self.fn)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"@resource({self.uri!r}) on {_where(self.fn)}: {exc}") from None

    def matches(self, uri: str) -> bool:
        """Whether ``uri`` is this resource, or one this template describes."""
        return uri == self.uri if not self.is_template else self.parsed.match(uri) is not None

    def updated(self, uri: Optional[str] = None) -> None:
        """Tell the clients of every server serving this resource that it changed: a
        ``notifications/resources/updated`` to each session subscribed to ``uri`` (and on
        ``subscriptions/listen`` streams). A template needs the concrete ``uri``. Any thread."""
        if uri is None:
            if self.is_template:
                raise ValueError(
                    f"resource template {self.uri!r}: updated() needs the URI of the resource that "
                    f"changed, e.g. updated({self.parsed.expand({n: '1' for n in self.arguments()})!r})"
                )
            uri = self.uri
        elif not self.matches(uri):
            raise ValueError(
                f"resource {self.uri!r}: {uri!r} is not {'a URI of this template' if self.is_template else 'its URI'}"
            )
        for server in list(self._servers):
            server.resource_updated(uri)

    def __repr__(self) -> str:
        return f"<{'resource template' if self.is_template else 'resource'} {self.uri} ({_where(self.fn)})>"


class Prompt(Served):
    """A prompt declared with :func:`prompt`; its arguments are the function's parameters."""

    kind = "prompt"

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        complete: Optional[Mapping[str, Completer]] = None,
    ) -> None:
        self._declared: Any = None
        super().__init__(fn, name=name, title=title, description=description, complete=complete)

    def arguments(self) -> list[str]:
        return [argument.name for argument in (self._declared.arguments or [])] if self._declared else []

    def register(self, server: Any) -> None:
        """Add to an SDK ``MCPServer`` through its own ``prompt`` decorator; arguments get the
        descriptions of the docstring's Args section (the SDK reads only pydantic ``Field``s)."""
        try:
            server.prompt(name=self.name, title=self.title, description=self.description)(self.fn)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"@prompt {self.name!r} on {_where(self.fn)}: {exc}") from None
        declared = server._prompt_manager.get_prompt(self.name)
        for argument in declared.arguments or []:
            if argument.description is None:
                argument.description = self.argument_docs.get(argument.name)
        self._declared = declared

    def __repr__(self) -> str:
        return f"<prompt {self.name} ({_where(self.fn)})>"


def resource(
    uri: str,
    *,
    name: Optional[str] = None,
    title: Optional[str] = None,
    description: Optional[str] = None,
    mime_type: Optional[str] = None,
    complete: Optional[Mapping[str, Completer]] = None,
) -> Callable[[Callable[..., Any]], Resource]:
    """Declare a resource served beside the module's tools.

    ``uri`` without ``{…}`` names one resource, read by calling the function without arguments;
    with parameters (``"memo://{id}"``) it is a resource template and the function takes them.
    The function returns ``str`` (text), ``bytes`` (a blob) or anything JSON-serialisable (JSON
    text). ``mime_type`` defaults to ``text/plain``. ``complete`` maps template parameters to
    completion hooks. Tell subscribed clients of a change with ``the_resource.updated(uri)``.

    Example::

        @resource("memo://{id}", mime_type="application/json", complete={"id": lambda typed: list(MEMOS)})
        def memo(id: str) -> dict:
            '''One memo.'''
            return MEMOS[id]
    """
    if callable(uri):
        raise TypeError("@resource needs the URI: write @resource('scheme://path') above the function")

    def decorate(fn: Callable[..., Any]) -> Resource:
        return Resource(
            fn, uri, name=name, title=title, description=description, mime_type=mime_type, complete=complete
        )

    return decorate


def prompt(
    fn: Optional[Callable[..., Any]] = None,
    *,
    name: Optional[str] = None,
    title: Optional[str] = None,
    description: Optional[str] = None,
    complete: Optional[Mapping[str, Completer]] = None,
) -> Any:
    """Declare a prompt (``@prompt`` or ``@prompt(name=..., complete={...})``) served beside tools.

    Its arguments are the function's parameters (strings on the wire; described by the docstring's
    Args section). It returns a string (one user message), a message dict
    (``{"role": "user", "content": {"type": "image", "data": ..., "mimeType": "image/png"}}``),
    an MCP content block or the SDK's ``UserMessage``/``AssistantMessage``, or a list of those.
    """

    def decorate(function: Callable[..., Any]) -> Prompt:
        return Prompt(function, name=name, title=title, description=description, complete=complete)

    return decorate(fn) if fn is not None else decorate


def served_in(module: Any) -> list[Served]:
    """The resources and prompts a module declares (in definition order)."""
    return [obj for obj in vars(module).values() if isinstance(obj, Served)]
