"""Servers for the OpenAPI adapter's security tests: an API under ``/api`` that redirects, drips and
sends big bodies, and a "recorder" that stands for another host and records every request it gets.

Each app is served by :class:`tests.openapi_app.ServerThread` on its own 127.0.0.1 port, so the two
are different origins (same host, different port)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse

KEY = "wb-test-api-key-3c2b1a"  #: the API key a test configures in ``headers=``
TOKEN = "wb-test-bearer-7e6d5c"  #: the bearer token a test configures in ``auth=``


def recorder_app() -> FastAPI:
    """An app that answers 200 to anything and records ``(method, path, headers)`` in ``app.state.seen``."""
    app = FastAPI()
    app.state.seen = []

    @app.api_route("/{rest:path}", methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
    async def anything(rest: str, request: Request) -> Any:
        app.state.seen.append((request.method, request.url.path, dict(request.headers)))
        return {"recorded": request.url.path}

    return app


def api_app() -> FastAPI:
    """The API; ``app.state.seen`` records the raw path of every request it gets."""
    app = FastAPI()
    app.state.seen = []

    @app.middleware("http")
    async def record(request: Request, call_next: Any) -> Any:
        app.state.seen.append(request.scope.get("raw_path", b"").decode("latin-1"))
        return await call_next(request)

    @app.get("/api/tenants/{tenant}/files/{name}")
    async def read_file(tenant: str, name: str) -> Any:
        return {"tenant": tenant, "file": name}

    @app.get("/api/tenants/{tenant}")
    async def read_tenant(tenant: str) -> Any:
        return {"tenant": tenant, "billing": "private"}

    @app.get("/api/hello")
    async def hello() -> Any:
        return PlainTextResponse("hello")

    @app.get("/api/go")
    async def go(to: str) -> Any:
        return RedirectResponse(to, status_code=307)

    @app.get("/api/drip")
    async def drip(request: Request, seconds: float = 30.0, every: float = 0.1) -> Any:
        """A body of one byte every ``every`` seconds for ``seconds`` — each read is quick, the whole is slow."""

        async def trickle() -> Any:
            loop = asyncio.get_running_loop()
            end = loop.time() + seconds
            while loop.time() < end and not await request.is_disconnected():
                yield b" "
                await asyncio.sleep(every)
            yield b"{}"

        return StreamingResponse(trickle(), media_type="application/json")

    @app.get("/api/big")
    async def big(size: int, chunked: bool = False) -> Any:
        """``size`` bytes of JSON text: with a Content-Length, or streamed in chunks without one."""
        body = b'"' + b"x" * max(size - 2, 0) + b'"'
        if not chunked:
            return Response(body, media_type="application/json")

        async def chunks() -> Any:
            for start in range(0, len(body), 65536):
                yield body[start : start + 65536]

        return StreamingResponse(chunks(), media_type="application/json")

    @app.get("/admin")
    async def admin() -> Any:
        return JSONResponse({"admin": True})

    return app


def document(*paths: str) -> dict[str, Any]:
    """An OpenAPI 3.1 document with a GET operation for each path template (its ``{name}`` s
    declared as string path parameters; ``/go`` takes a ``to`` query parameter, ``/drip`` ``seconds``
    and ``every``, ``/big`` ``size`` and ``chunked``)."""
    queries = {"/go": ["to"], "/drip": ["seconds", "every"], "/big": ["size", "chunked"]}
    doc: dict[str, Any] = {"openapi": "3.1.0", "info": {"title": "Hostile", "version": "1"}, "paths": {}}
    for path in paths:
        names = [part[1:-1] for part in path.split("/") if part.startswith("{") and part.endswith("}")]
        parameters = [{"name": n, "in": "path", "required": True, "schema": {"type": "string"}} for n in names]
        parameters += [{"name": n, "in": "query", "schema": {}} for n in queries.get(path, [])]
        op_id = "op_" + "".join(c if c.isalnum() else "_" for c in path).strip("_")
        doc["paths"][path] = {
            "get": {"operationId": op_id, "parameters": parameters, "responses": {"200": {"description": "ok"}}}
        }
    return doc
