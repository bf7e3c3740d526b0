"""The HTTP side of OpenAPI tools: every request confined to ``base_url``, one deadline for the whole
call and a cap on the response size.

The confinement rule lives in :meth:`BaseUrl.contains` and is applied to every URL an OpenAPI tool
could reach: each path template when the document is imported, each request URL before it is sent,
and — through an ``httpx`` request hook — every follow-up request (redirects, ``httpx.Auth`` flows)
before it is sent. A URL is under ``base_url`` when its scheme, host and port are the base's and its
path is the base's path or below it, with no ``.``/``..`` segment left (httpx removes literal dot
segments; an encoded one — ``%2E%2E``, ``..%2F`` — would be removed by many servers after decoding).
Redirects are followed only under ``base_url``: any other is refused before it is sent, so the
configured credentials (``headers=`` and ``auth=``, whatever their names) never reach another host.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import os
import re
import threading
from typing import Any, Mapping, Optional
from urllib.parse import quote

from workbench.adapters._common import require
from workbench.secrets import mask_url

__all__ = ["BaseUrl", "HttpAnswer", "OpenApiSender", "OpenApiUrlError", "path_segment"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_SEGMENT_SPLIT = re.compile(r"[/\\]")  # "\" too: some servers (IIS) take it for "/"
_DOT_SEGMENTS = frozenset({".", ".."})
DEFAULT_MAX_RESPONSE_BYTES = 10 * 2**20


class OpenApiUrlError(ValueError):
    """A request of an OpenAPI tool would leave its ``base_url``; it was not sent."""


class OpenApiResponseTooLarge(ValueError):
    """An answer's body is larger than the tools' ``max_response_bytes``; it was not read further."""


class BaseUrl:
    """``base_url`` parsed once: what every request URL of the tools must stay under."""

    def __init__(self, text: str) -> None:
        httpx = require("httpx", "openapi", "from_openapi")
        expected = (
            "base_url must be an http(s) URL with a host and no query or fragment (e.g. 'https://api.example/v1')"
        )
        try:
            url = httpx.URL(str(text))
        except (httpx.InvalidURL, TypeError) as exc:
            raise ValueError(f"{expected}; got {mask_url(str(text))!r}: {exc}") from None
        if url.scheme not in _DEFAULT_PORTS or not url.host or url.query or url.fragment or "#" in str(text):
            raise ValueError(f"{expected}; got {mask_url(str(text))!r}")
        self.url = str(url).rstrip("/")
        self.origin = (url.scheme, url.host, url.port or _DEFAULT_PORTS[url.scheme])
        self.prefix = url.path.rstrip("/")  # "" for a base at the host's root

    def join(self, path: str) -> str:
        """The URL of ``path`` (a path template with its values filled in, starting with ``/``)."""
        return self.url + (path if path.startswith("/") else "/" + path)

    def contains(self, url: Any) -> bool:
        """True when ``url`` (an ``httpx.URL``) is under this base: same scheme, host and port; the
        base's path or below it; no dot segment, literal or percent-encoded."""
        if (url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)) != self.origin:
            return False
        path = url.path  # decoded: "%2e%2e" is "..", "a%2Fb" is "a/b"
        if any(part in _DOT_SEGMENTS for part in _SEGMENT_SPLIT.split(path)):
            return False
        return not self.prefix or path == self.prefix or path.startswith(self.prefix + "/")

    def check_template(self, path: str) -> None:
        """``ValueError`` unless the path template ``path`` resolves under this base (each ``{name}``
        filled with a plain value)."""
        httpx = require("httpx", "openapi", "from_openapi")
        filled = re.sub(r"\{[^{}]*\}", "x", path)
        try:
            url = httpx.URL(self.join(filled))
        except httpx.InvalidURL as exc:
            raise ValueError(
                f"The OpenAPI path {path!r} is not a valid URL path under base_url {self}: {exc}"
            ) from None
        if not self.contains(url):
            raise ValueError(
                f"The OpenAPI path {path!r} resolves to {mask_url(str(url))}, outside base_url {self}: "
                "every request of an OpenAPI tool must stay under base_url (scheme, host, port and "
                "path), so this document is refused"
            )

    def __str__(self) -> str:
        return mask_url(self.url)


def path_segment(tool: str, name: str, value: Any) -> str:
    """``value`` as one percent-encoded path segment; ``ValueError`` for a value that would walk the
    path (a ``/``- or ``\\``-separated part that is ``.`` or ``..``)."""
    text = str(value)
    if any(part in _DOT_SEGMENTS for part in _SEGMENT_SPLIT.split(text)):
        raise ValueError(
            f"{tool}: the path parameter {name!r} is {text!r}: a value that is (or has a part "
            "that is) '.' or '..' would walk up the URL path, so it is refused"
        )
    return quote(text, safe="")


class HttpAnswer:
    """A complete answer: status, reason, headers and the (decoded) body bytes."""

    __slots__ = ("status", "reason", "headers", "content", "encoding")

    def __init__(self, status: int, reason: str, headers: Any, content: bytes, encoding: Optional[str]) -> None:
        self.status, self.reason, self.headers, self.content, self.encoding = status, reason, headers, content, encoding

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    def body(self) -> tuple[Any, bool]:
        """The body as JSON (``True``) when it says it is JSON and parses, else as text (``False``)."""
        if "json" in self.content_type and self.content:
            try:
                return json.loads(self.content), True
            except ValueError:
                pass
        return self.content.decode(self.encoding or "utf-8", errors="replace"), False


@functools.lru_cache(maxsize=1)
def _ssl_context() -> Any:
    """One verifying SSL context for every OpenAPI request: httpx makes one per client otherwise (even
    for plain http), loading the CA bundle each time — tens of ms a call."""
    import httpx

    return httpx.create_ssl_context()


class _SharedLoop:
    """One event loop in a daemon thread, where every OpenAPI sender's pooled ``httpx.AsyncClient``
    lives: a client's connections belong to one loop, and tools are called from many (each
    ``asyncio.run`` of an executor, a form's thread, a direct call)."""

    _lock = threading.Lock()
    _loop: Optional[asyncio.AbstractEventLoop] = None
    _thread: Optional[threading.Thread] = None
    _pid = 0

    @classmethod
    def get(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls._loop is None or cls._pid != os.getpid():  # a forked child has the loop but not its thread
                loop = asyncio.new_event_loop()
                cls._thread = threading.Thread(target=loop.run_forever, name="workbench-openapi", daemon=True)
                cls._thread.start()
                cls._loop, cls._pid = loop, os.getpid()
            return cls._loop

    @classmethod
    def submit(cls, coro: Any) -> concurrent.futures.Future:
        loop = cls.get()
        if threading.current_thread() is cls._thread:
            coro.close()
            raise RuntimeError(
                "an OpenAPI tool was called from inside its own request (e.g. from an httpx.Auth "
                "flow): that would wait for itself"
            )
        return asyncio.run_coroutine_threadsafe(coro, loop)


class OpenApiSender:
    """Sends the requests of one ``from_openapi`` call's tools, with its credentials, deadline and cap.

    Requests run on one shared background loop with a pooled ``httpx.AsyncClient`` per sender;
    :meth:`call` blocks for the answer, :meth:`acall` awaits it from any loop (cancelling the
    awaiting task cancels the request). ``timeout`` bounds the whole call — connecting, sending,
    waiting, redirects and reading the body — not each read.
    """

    def __init__(
        self, base: BaseUrl, headers: Optional[Mapping[str, str]], auth: Any, timeout: float, max_response_bytes: int
    ) -> None:
        if isinstance(auth, str):
            headers = {**(headers or {}), "Authorization": f"Bearer {auth}"}
            auth = None
        self.base = base
        self._headers = dict(headers or {})
        self._auth = auth
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self._client: Any = None
        self._client_loop: Any = None

    def __reduce__(self) -> Any:
        raise TypeError(
            "OpenAPI tools do not pickle: they hold the credentials given to from_openapi(); "
            "call from_openapi() again where they are needed"
        )

    def __repr__(self) -> str:
        return f"<OpenApiSender {self.base} timeout={self.timeout:g}s>"

    def call(self, label: str, method: str, url: str, **request: Any) -> HttpAnswer:
        """:meth:`send`, waited for in this thread."""
        future = _SharedLoop.submit(self.send(label, method, url, **request))
        try:
            return future.result()
        except BaseException:
            future.cancel()  # e.g. KeyboardInterrupt in a notebook: stop the request too
            raise

    async def acall(self, label: str, method: str, url: str, **request: Any) -> HttpAnswer:
        """:meth:`send`, awaited from any event loop."""
        return await asyncio.wrap_future(_SharedLoop.submit(self.send(label, method, url, **request)))

    def _pooled_client(self) -> Any:
        import httpx

        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            base = self.base

            async def confine(follow_up: Any) -> None:  # every request the client sends: redirects, auth flows
                if not base.contains(follow_up.url):
                    raise OpenApiUrlError(
                        f"the server's redirect to {mask_url(str(follow_up.url))} is outside "
                        f"base_url {base}; not followed (the credentials would go with it)"
                    )

            self._client = httpx.AsyncClient(
                headers=self._headers,
                auth=self._auth,
                timeout=self.timeout,
                follow_redirects=True,
                verify=_ssl_context(),
                event_hooks={"request": [confine]},
            )
            self._client_loop = loop
        return self._client

    async def send(self, label: str, method: str, url: str, **request: Any) -> HttpAnswer:
        """The complete answer to one request (run it on the shared loop: :meth:`call`/:meth:`acall`);
        ``OpenApiUrlError`` (nothing sent) for a URL — or a redirect — outside base_url,
        ``TimeoutError`` past the deadline, ``OpenApiResponseTooLarge`` over the cap,
        ``ConnectionError`` for a transport failure."""
        httpx = require("httpx", "openapi", "an OpenAPI tool")
        import anyio

        if not self.base.contains(httpx.URL(url)):
            raise OpenApiUrlError(f"{label}: the request URL {mask_url(url)} is outside base_url {self.base}; not sent")
        try:
            with anyio.fail_after(self.timeout):
                async with self._pooled_client().stream(method, url, **request) as response:
                    content = await self._read(label, response)
                    return HttpAnswer(
                        response.status_code, response.reason_phrase, response.headers, content, response.encoding
                    )
        except OpenApiUrlError as exc:
            raise OpenApiUrlError(f"{label}: {exc}") from None
        except (TimeoutError, httpx.TimeoutException):
            raise TimeoutError(f"{label}: no answer within {self.timeout:g}s") from None
        except httpx.HTTPError as exc:
            raise ConnectionError(f"{label}: {type(exc).__name__}: {exc}") from None

    async def _read(self, label: str, response: Any) -> bytes:
        cap = self.max_response_bytes
        too_large = (
            f"{label}: the response is larger than max_response_bytes={cap} bytes; not read further "
            "(raise it with from_openapi(..., max_response_bytes=N))"
        )
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > cap and not response.headers.get("content-encoding"):
            raise OpenApiResponseTooLarge(too_large)
        chunks, size = [], 0
        async for chunk in response.aiter_bytes():  # decoded: the cap bounds what is kept, also of a gzip body
            size += len(chunk)
            if size > cap:
                raise OpenApiResponseTooLarge(too_large)
            chunks.append(chunk)
        return b"".join(chunks)
