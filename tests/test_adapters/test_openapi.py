"""OpenAPI documents in: a real FastAPI app under uvicorn on 127.0.0.1, its own /openapi.json imported by URL."""

from __future__ import annotations

import json

import anyio
import pytest

from tests.form_catalogue import wb  # noqa: F401 - fixture
from tests.openapi_app import SECRET, ServerThread
from workbench import SequentialExecutor, ToolRegistry
from workbench.adapters import from_openapi
from workbench.adapters.openapi import OpenApiTool
from workbench.log import ExecutionLog


@pytest.fixture(scope="module")
def shop():
    with ServerThread() as server:
        yield server


@pytest.fixture(scope="module")
def tools(shop):
    return {t.tool_name: t for t in from_openapi(shop.url + "/openapi.json", timeout=5)}


def _call(tools, name, arguments, **executor):
    return SequentialExecutor(**executor).run(
        [{"toolUseId": "u1", "name": name, "input": arguments}], ToolRegistry(list(tools.values()))
    )[0]


def test_one_tool_per_operation_named_by_operation_id(tools):
    assert sorted(tools) == ["basic", "create_item", "get_item", "hello", "rename_item", "secure", "slow"]
    get_item = tools["get_item"]
    assert isinstance(get_item, OpenApiTool) and (get_item.method, get_item.path) == ("GET", "/items/{item_id}")
    assert get_item.spec.description.startswith("Get an item\n\nReads one item")
    assert get_item.spec.parameters["required"] == ["item_id"]
    assert set(get_item.spec.parameters["properties"]) == {"item_id", "q", "limit", "x-trace"}
    assert get_item.locations["x-trace"] == ("header", "x-trace")


def test_path_query_and_header_parameters(tools):
    result = _call(tools, "get_item", {"item_id": 7, "q": "red", "limit": 2, "x-trace": "t-1"})
    assert result.status == "success", result.content
    assert result.content == [{"json": {"item_id": 7, "q": "red", "limit": 2, "trace": "t-1"}}]
    assert result.metadata["http_status"] == 200


def test_a_null_query_or_header_value_is_not_sent(tools):
    result = _call(tools, "get_item", {"item_id": 7, "q": None, "x-trace": None})
    assert result.content == [{"json": {"item_id": 7, "q": None, "limit": 10, "trace": None}}]


def test_a_json_body_is_merged_into_the_input_schema(tools):
    schema = tools["create_item"].spec.parameters
    assert schema["required"] == ["name", "price"]
    result = _call(tools, "create_item", {"name": "pen", "price": 1.5, "tags": ["a"], "dry_run": True})
    assert result.content == [{"json": {"created": {"name": "pen", "price": 1.5, "tags": ["a"]}, "dry_run": True}}]


def test_a_body_property_clashing_with_a_parameter_is_renamed(tools):
    rename = tools["rename_item"]
    assert rename.locations["name"] == ("query", "name")
    assert rename.locations["body_name"] == ("body", "name")
    result = _call(tools, "rename_item", {"item_id": 1, "name": "from-query", "body_name": "from-body", "price": 2})
    assert result.content[0]["json"] == {"item_id": 1, "query_name": "from-query", "body_name": "from-body"}


def test_the_result_value_is_the_response_body(tools):
    result = _call(tools, "get_item", {"item_id": 7})
    assert result.value == {"item_id": 7, "q": None, "limit": 10, "trace": None} == result.json
    assert repr(result).startswith("ToolResult('get_item', success")
    assert _call(tools, "hello", {"who": "you"}).value == "hello you"
    assert tools["hello"](who="me").value == "hello me"
    assert anyio.run(lambda: tools["hello"].acall(who="async")).value == "hello async"


def test_openapi_tools_do_not_pickle_their_credentials(shop):
    import pickle

    (secure,) = from_openapi(shop.url + "/openapi.json", include=["secure"], auth=SECRET)
    with pytest.raises(TypeError, match="OpenAPI tools do not pickle: they hold the credentials"):
        pickle.dumps(secure)


def test_a_text_body_is_a_text_block(tools):
    result = _call(tools, "hello", {"who": "you"})
    assert result.content == [{"text": "hello you"}]


def test_an_error_status_is_an_error_result_with_status_and_body(tools):
    missing = _call(tools, "get_item", {"item_id": 404})
    assert missing.status == "error"
    assert 'HTTP 404 Not Found: {"detail": "no item 404"}' in missing.metadata["error"]


def test_a_422_answer_is_an_error(tools):
    from workbench.adapters.openapi import OpenApiHttpError

    with pytest.raises(OpenApiHttpError, match="HTTP 422 Unprocessable") as raised:
        tools["get_item"](item_id="not-a-number")
    assert raised.value.status == 422 and raised.value.body["detail"][0]["loc"] == ["path", "item_id"]


def test_the_input_check_runs_before_any_request(tools):
    result = _call(tools, "create_item", {"name": "pen"})
    assert result.status == "error" and "price" in result.metadata["error"]


def test_a_request_past_its_timeout_is_an_error_result(shop):
    (slow,) = from_openapi(shop.url + "/openapi.json", include=["slow"], timeout=0.3)
    result = _call({"slow": slow}, "slow", {"seconds": 1.5})
    assert result.status == "error"
    assert "GET /slow: no answer within 0.3s" in result.metadata["error"]


def test_include_and_exclude(shop):
    url = shop.url + "/openapi.json"
    assert sorted(t.tool_name for t in from_openapi(url, include=["items"])) == [
        "create_item",
        "get_item",
        "rename_item",
    ]
    assert sorted(t.tool_name for t in from_openapi(url, include=["GET *"], exclude=["slow", "sec*", "basic"])) == [
        "get_item",
        "hello",
    ]
    assert [t.tool_name for t in from_openapi(url, include=["hello"], prefix="shop_")] == ["shop_hello"]


def test_secrets_in_headers_and_auth_reach_no_repr_log_or_error(shop):
    log = ExecutionLog()
    for kwargs in (dict(headers={"Authorization": f"Bearer {SECRET}"}), dict(auth=SECRET)):
        adapted = from_openapi(
            shop.url + "/openapi.json", include=["secure", "get_item", "slow"], timeout=0.3, **kwargs
        )
        tools = {t.tool_name: t for t in adapted}
        ok = _call(tools, "secure", {}, log=log)
        assert ok.content == [{"json": {"ok": True}}]
        failed = _call(tools, "get_item", {"item_id": 404}, log=log)
        timed_out = _call(tools, "slow", {"seconds": 1}, log=log)
        seen = [repr(t) for t in tools.values()] + [repr(r) for r in (ok, failed, timed_out)]
        seen += [json.dumps(r.model_dump(by_alias=True), default=str) for r in (ok, failed, timed_out)]
        seen += [str(t.get_display_properties()) for t in tools.values()]
        assert not any(SECRET in text for text in seen)
    assert not any(SECRET in json.dumps(row, default=str) for row in log.rows())
    wrong = {t.tool_name: t for t in from_openapi(shop.url + "/openapi.json", include=["secure"], auth="wrong")}
    assert "HTTP 401 Unauthorized" in _call(wrong, "secure", {}).metadata["error"]


def test_basic_auth_from_a_user_and_password_pair(shop):
    url = shop.url + "/openapi.json"
    (basic,) = from_openapi(url, include=["basic"], auth=("ada", SECRET))
    assert _call({"basic": basic}, "basic", {}).content == [{"json": {"user": "ada"}}]
    (wrong,) = from_openapi(url, include=["basic"], auth=("ada", "nope"))
    failed = _call({"basic": wrong}, "basic", {})
    assert "HTTP 401" in failed.metadata["error"] and SECRET not in repr(failed)


def test_an_invalid_document_is_refused_naming_what_is_wrong():
    bad = {
        "openapi": "3.1.0",
        "info": {"title": "Bad", "version": "1"},
        "paths": {
            "/a": {"get": {"parameters": [{"name": "x", "in": "nowhere"}], "responses": {"200": {"description": "ok"}}}}
        },
    }
    with pytest.raises(
        ValueError,
        match=r"The OpenAPI document 'Bad' is invalid: 'nowhere' is not one of .*"
        r"\(at #/paths/~1a/get/parameters/0/in\)",
    ):
        from_openapi(bad, base_url="http://127.0.0.1:1")
    with pytest.raises(ValueError, match="'info' is a required property"):
        from_openapi({"openapi": "3.0.3", "paths": {}}, base_url="http://127.0.0.1:1")
    with pytest.raises(ValueError, match="version '2.0'.*OpenAPI 3.0 and 3.1"):
        from_openapi({"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {}})
    with pytest.raises(ValueError, match="needs base_url="):
        from_openapi({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}})


def test_a_3_0_document_from_a_file_with_refs(tmp_path, shop):
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "Refs", "version": "1"},
        "servers": [{"url": shop.url}],
        "paths": {
            "/items/{item_id}": {
                "parameters": [{"$ref": "#/components/parameters/ItemId"}],
                "get": {
                    "summary": "Get",
                    "parameters": [{"name": "q", "in": "query", "schema": {"type": "string", "nullable": True}}],
                    "responses": {"200": {"description": "ok"}},
                },
            },
            "/items": {
                "post": {
                    "requestBody": {"$ref": "#/components/requestBodies/NewItem"},
                    "responses": {"200": {"description": "ok"}},
                }
            },
        },
        "components": {
            "parameters": {
                "ItemId": {"name": "item_id", "in": "path", "required": True, "schema": {"type": "integer"}}
            },
            "requestBodies": {
                "NewItem": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}},
                }
            },
            "schemas": {
                "Item": {
                    "type": "object",
                    "required": ["name", "price"],
                    "properties": {
                        "name": {"type": "string"},
                        "price": {"type": "number"},
                        "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}},
                    },
                },
                "Tag": {"type": "string"},
            },
        },
    }
    import yaml

    (tmp_path / "refs.yaml").write_text(yaml.safe_dump(doc))
    assert sorted(t.tool_name for t in from_openapi(tmp_path / "refs.yaml")) == ["get_items_item_id", "post_items"]
    path = tmp_path / "refs.json"
    path.write_text(json.dumps(doc))
    tools = {t.tool_name: t for t in from_openapi(str(path))}
    assert sorted(tools) == ["get_items_item_id", "post_items"]
    get = tools["get_items_item_id"]
    assert get.spec.parameters["properties"]["q"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    post = tools["post_items"].spec.parameters
    assert post["properties"]["tags"] == {"type": "array", "items": {"$ref": "#/$defs/Tag"}}
    assert post["$defs"] == {"Tag": {"type": "string"}}
    assert _call(tools, "get_items_item_id", {"item_id": 5, "q": None}).content[0]["json"]["item_id"] == 5
    assert _call(tools, "post_items", {"name": "cup", "price": 3, "tags": ["x"]}).content[0]["json"]["created"] == {
        "name": "cup",
        "price": 3.0,
        "tags": ["x"],
    }


# -- forms, map and the project's MCP server on an OpenAPI tool -------------------------------------------
def test_openapi_tool_in_a_form(wb, shop):  # noqa: F811 - the fixture
    from workbench.jupyter import ToolForm

    wb.registry.process_tools(from_openapi(shop.url + "/openapi.json", include=["create_item"]))
    form = ToolForm(wb.registry.get_tool("create_item"), wb)
    form.set_values({"name": "lamp", "price": 9.5, "tags": ["home"], "dry_run": False})
    result = form.run()
    assert result.status == "success", result.content
    assert result.content[0]["json"]["created"] == {"name": "lamp", "price": 9.5, "tags": ["home"]}
    assert wb.log.rows()[-1]["tool_name"] == "create_item"


def test_openapi_tool_in_map(tools):
    frame = SequentialExecutor().map(tools["get_item"], [{"item_id": 1}, {"item_id": 404}], progress=False)
    assert list(frame["status"]) == ["success", "error"]


def test_openapi_tools_served_by_the_workbench_mcp_server(shop):
    from mcp.client import Client

    from workbench.mcp import build_server

    server = build_server(ToolRegistry(from_openapi(shop.url + "/openapi.json", include=["get_item", "hello"])))

    async def main():
        with anyio.fail_after(30):
            async with Client(server) as client:
                listed = sorted(t.name for t in (await client.list_tools()).tools)
                return (
                    listed,
                    await client.call_tool("get_item", {"item_id": 3, "q": "z"}),
                    await client.call_tool("get_item", {"item_id": 404}),
                )

    listed, ok, missing = anyio.run(main)
    assert listed == ["get_item", "hello"]
    assert not ok.is_error and json.loads(ok.content[0].text) == {"item_id": 3, "q": "z", "limit": 10, "trace": None}
    assert missing.is_error and "HTTP 404" in missing.content[0].text


@pytest.mark.parametrize(
    "broken",
    [
        {
            "paths": {
                "/a": {
                    "get": {
                        "parameters": [{"name": "x", "in": "query", "schema": 5}],
                        "responses": {"200": {"description": "ok"}},
                    }
                }
            }
        },
        {
            "paths": {
                "/a": {
                    "get": {
                        "responses": {
                            "200": {
                                "description": "ok",
                                "content": {"application/json": {"schema": {"type": "object", "properties": []}}},
                            }
                        }
                    }
                }
            }
        },
        {"paths": {"/a/{id}": {"get": {"responses": {"200": {"description": "ok"}}}}}},  # undeclared path parameter
        {
            "paths": {
                "/a": {
                    "get": {
                        "responses": {
                            "200": {
                                "description": "ok",
                                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Missing"}}},
                            }
                        }
                    }
                }
            }
        },
    ],
)
def test_the_faster_3_1_check_agrees_with_openapi_spec_validator(broken):
    from openapi_spec_validator import validate
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

    doc = {"openapi": "3.1.0", "info": {"title": "B", "version": "1"}, **broken}
    library_error = None
    try:
        validate(doc)
    except Exception as exc:  # noqa: BLE001 - compared below
        library_error = exc
    with pytest.raises(ValueError) as ours:
        from_openapi(doc, base_url="http://127.0.0.1:1")
    assert library_error is not None
    if isinstance(library_error, OpenAPIValidationError):
        assert library_error.message in str(ours.value)
    else:  # the library lets referencing's error out; we name the $ref
        assert "a $ref points nowhere: /components/schemas/Missing" in str(ours.value)
