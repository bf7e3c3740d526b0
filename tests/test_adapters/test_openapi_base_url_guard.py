"""The OpenAPI adapter's requests stay under base_url, carry credentials nowhere else, end by their
timeout and stop at a size cap — each attack performed against real uvicorn servers on 127.0.0.1: the
API under ``/api`` and a recorder standing for another host, which must never see a credential."""

from __future__ import annotations

import json
import time

import pytest

from tests.openapi_app import ServerThread
from tests.openapi_hostile_app import KEY, TOKEN, api_app, document, recorder_app
from workbench import SequentialExecutor, ToolRegistry
from workbench.adapters import from_openapi
from workbench.adapters.openapi import OpenApiTool

CREDENTIALS = dict(headers={"X-Api-Key": KEY, "X-Client": "workbench-tests"}, auth=TOKEN)


@pytest.fixture(scope="module")
def api():
    with ServerThread(api_app()) as server:
        yield server


@pytest.fixture(scope="module")
def recorder():
    with ServerThread(recorder_app()) as server:
        yield server


@pytest.fixture(autouse=True)
def _fresh_records(api, recorder):
    api.server.config.app.state.seen.clear()
    recorder.server.config.app.state.seen.clear()


def _tools(api, *paths, **options) -> dict[str, OpenApiTool]:
    options = {**CREDENTIALS, "base_url": api.url + "/api", **options}
    return {t.path: t for t in from_openapi(document(*paths), **options)}


def _run(tool, arguments):
    (result,) = SequentialExecutor().run(
        [{"toolUseId": "u1", "name": tool.tool_name, "input": arguments}], ToolRegistry([tool])
    )
    return result


def _seen(server):
    return server.server.config.app.state.seen


def _no_credential_reached(recorder):
    sent = json.dumps(_seen(recorder))
    assert KEY not in sent and TOKEN not in sent


# -- item 1: a path key cannot take the request (and the credentials) to another host -------------------
def test_a_path_key_that_looks_like_a_url_stays_under_base_url(api, recorder):
    steal = f"/{recorder.url}/steal"  # "/http://127.0.0.1:<port>/steal"
    (tool,) = _tools(api, steal).values()
    result = _run(tool, {})
    assert _seen(recorder) == [], "the request went to the other host"
    _no_credential_reached(recorder)
    assert _seen(api) == [f"/api/{recorder.url}/steal"]
    assert result.status == "error" and "HTTP 404" in result.metadata["error"]


@pytest.mark.parametrize("path", ["/../admin", "/{x}/../../admin", "/./../admin"])
def test_a_path_key_resolving_outside_base_url_is_refused_at_import(api, path):
    with pytest.raises(ValueError) as refused:
        from_openapi(document(path), base_url=api.url + "/api", **CREDENTIALS)
    message = str(refused.value)
    assert f"path {path!r}" in message and "outside base_url" in message and api.url + "/api" in message
    assert KEY not in message and TOKEN not in message
    assert _seen(api) == []


@pytest.mark.parametrize(
    "base_url",
    [
        "ftp://127.0.0.1/api",
        "127.0.0.1:8000/api",
        "http:///api",
        "http://127.0.0.1/api?key=1",
        "http://127.0.0.1/api#x",
    ],
)
def test_a_base_url_that_is_not_a_plain_http_url_is_refused(base_url):
    with pytest.raises(ValueError, match=r"base_url .* an http\(s\) URL"):
        from_openapi(document("/hello"), base_url=base_url)


# -- item 2: a path parameter cannot walk up the API ------------------------------------------------------
@pytest.mark.parametrize("name", ["..", ".", "../..", "a/../../..", "..\\..", "x/./y"])
def test_a_dot_segment_path_value_is_refused(api, name):
    (tool,) = _tools(api, "/tenants/{tenant}/files/{name}").values()
    result = _run(tool, {"tenant": "acme", "name": name})
    assert result.status == "error"
    message = result.metadata["error"]
    assert "'name'" in message and "'.' or '..'" in message and tool.tool_name in message
    assert _seen(api) == [], "the request was sent"


@pytest.mark.parametrize("name", ["report.v1.txt", "...", "%2e%2e", ".hidden", "a..b"])
def test_ordinary_path_values_reach_their_operation(api, name):
    (tool,) = _tools(api, "/tenants/{tenant}/files/{name}").values()
    result = _run(tool, {"tenant": "acme", "name": name})
    assert result.status == "success", result.metadata
    assert result.value == {"tenant": "acme", "file": name}
    assert _seen(api)[0].startswith("/api/tenants/acme/files/")


def test_a_slash_in_a_path_value_stays_inside_its_segment(api):
    (tool,) = _tools(api, "/tenants/{tenant}/files/{name}").values()
    _run(tool, {"tenant": "acme", "name": "a/b"})
    assert _seen(api) == ["/api/tenants/acme/files/a%2Fb"]


# -- item 3: a redirect never takes the credentials elsewhere -----------------------------------------
@pytest.mark.parametrize("where", ["other-origin", "same-origin-outside-prefix"])
def test_a_redirect_outside_base_url_is_not_followed(api, recorder, where):
    target = recorder.url + "/steal" if where == "other-origin" else api.url + "/admin"
    (tool,) = _tools(api, "/go").values()
    result = _run(tool, {"to": target})
    _no_credential_reached(recorder)
    assert _seen(recorder) == [] and _seen(api) == ["/api/go"]
    assert result.status == "error"
    message = result.metadata["error"]
    assert "redirect" in message and "outside base_url" in message and target in message
    assert KEY not in message and TOKEN not in message


def test_a_redirect_to_a_secret_bearing_url_is_reported_masked(api, recorder):
    (tool,) = _tools(api, "/go").values()
    result = _run(tool, {"to": recorder.url + "/x?api_key=leaked-value-123"})
    assert "leaked-value-123" not in result.metadata["error"] and "api_key=***" in result.metadata["error"]


def test_a_redirect_under_base_url_is_followed(api):
    (tool,) = _tools(api, "/go").values()
    result = _run(tool, {"to": "/api/hello"})
    assert result.status == "success" and result.value == "hello"
    assert _seen(api) == ["/api/go", "/api/hello"]


# -- item 9: the timeout bounds the whole call; bodies have a size cap ----------------------------------
def test_a_slow_drip_body_ends_at_the_timeout(api):
    (tool,) = _tools(api, "/drip", timeout=1).values()
    started = time.monotonic()
    result = _run(tool, {"seconds": 30, "every": 0.1})
    elapsed = time.monotonic() - started
    assert result.status == "error" and "GET /drip: no answer within 1s" in result.metadata["error"]
    assert elapsed < 15, f"the call took {elapsed:.1f}s for a 30 s drip with timeout=1"


def test_a_drip_that_ends_in_time_is_an_answer(api):
    (tool,) = _tools(api, "/drip", timeout=20).values()
    assert _run(tool, {"seconds": 0.3, "every": 0.1}).status == "success"


@pytest.mark.parametrize("chunked", [False, True])
def test_a_body_over_the_size_cap_is_an_error(api, chunked):
    (tool,) = _tools(api, "/big", max_response_bytes=100_000).values()
    result = _run(tool, {"size": 100_001, "chunked": chunked})
    assert result.status == "error"
    assert "GET /big: the response is larger than max_response_bytes=100000" in result.metadata["error"]
    ok = _run(tool, {"size": 100_000, "chunked": chunked})
    assert ok.status == "success" and len(ok.value) == 99_998


def test_the_default_size_cap_is_ten_megabytes(api):
    (tool,) = _tools(api, "/big").values()
    assert "max_response_bytes=10485760" in _run(tool, {"size": 10 * 2**20 + 1, "chunked": True}).metadata["error"]


@pytest.mark.parametrize("bad", [0, -1, 1.5, "big"])
def test_a_bad_size_cap_or_timeout_is_refused(bad):
    with pytest.raises(ValueError, match="max_response_bytes= .* a positive whole number of bytes"):
        from_openapi(document("/hello"), base_url="http://127.0.0.1:1", max_response_bytes=bad)
    if bad != 1.5:
        with pytest.raises(ValueError, match="timeout= .* a positive number of seconds"):
            from_openapi(document("/hello"), base_url="http://127.0.0.1:1", timeout=bad)
