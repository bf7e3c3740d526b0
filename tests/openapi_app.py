"""A small FastAPI app and a uvicorn server in a thread on a free 127.0.0.1 port, for the OpenAPI adapter's tests."""

from __future__ import annotations

import socket
import threading
import time
from typing import Optional

import uvicorn
from fastapi import Depends, FastAPI, Header, HTTPException
from fastapi.responses import PlainTextResponse
from fastapi.security import HTTPBasic, HTTPBasicCredentials
from pydantic import BaseModel

SECRET = "sk-test-9f8e7d6c5b4a"

app = FastAPI(title="Shop", version="1.0")


class Item(BaseModel):
    name: str
    price: float
    tags: list[str] = []


@app.get("/items/{item_id}", operation_id="get_item", summary="Get an item", tags=["items"])
def get_item(item_id: int, q: Optional[str] = None, limit: int = 10, x_trace: Optional[str] = Header(None)):
    """Reads one item; echoes the query and the trace header."""
    if item_id == 404:
        raise HTTPException(status_code=404, detail="no item 404")
    return {"item_id": item_id, "q": q, "limit": limit, "trace": x_trace}


@app.post("/items", operation_id="create_item", summary="Create an item", tags=["items"])
def create_item(item: Item, dry_run: bool = False):
    return {"created": item.model_dump(), "dry_run": dry_run}


@app.put("/items/{item_id}", operation_id="rename_item", tags=["items"])
def rename_item(item_id: int, item: Item, name: str = "query-default"):
    """A query parameter and a body property both called ``name``."""
    return {"item_id": item_id, "query_name": name, "body_name": item.name}


@app.get("/hello", operation_id="hello", response_class=PlainTextResponse, tags=["misc"])
def hello(who: str = "world") -> str:
    return f"hello {who}"


@app.get("/slow", operation_id="slow", tags=["misc"])
def slow(seconds: float = 2.0):
    time.sleep(seconds)
    return {"slept": seconds}


@app.get("/secure", operation_id="secure", tags=["misc"])
def secure(authorization: Optional[str] = Header(None)):
    if authorization != f"Bearer {SECRET}":
        raise HTTPException(status_code=401, detail="bad token")
    return {"ok": True}


@app.get("/basic", operation_id="basic", tags=["misc"])
def basic(credentials: HTTPBasicCredentials = Depends(HTTPBasic())):
    if (credentials.username, credentials.password) != ("ada", SECRET):
        raise HTTPException(status_code=401, detail="bad credentials")
    return {"user": credentials.username}


class ServerThread:
    """uvicorn serving ``app`` in a daemon thread on a free port of 127.0.0.1."""

    def __init__(self, application=app) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(application, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> "ServerThread":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
