"""Tool transforms: ``derive(tool, name=, description=, args={...: Arg(...)})`` and ``with_description``."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import pickle

import pytest

from tests import transform_tools
from tests.form_catalogue import wb  # noqa: F401 - fixture
from tests.transform_tools import Speed, find, search
from workbench import (
    Arg,
    ConcurrentExecutor,
    DerivedTool,
    SequentialExecutor,
    ToolInputError,
    ToolRegistry,
    ToolSpecError,
    derive,
    make_tool_use,
    tool,
)
from workbench.providers import PROVIDERS, to_provider_format


def test_the_derived_spec_shows_the_new_names_descriptions_and_hides_hidden_args():
    assert isinstance(find, DerivedTool) and find.parent is search
    spec = find.spec
    assert (find.name, spec.name, spec.description) == ("find", "find", "Find items in the catalogue.")
    assert list(spec.parameters["properties"]) == ["query", "limit", "speed"]
    assert spec.parameters["properties"]["query"]["description"] == "What to look for."
    assert spec.parameters["required"] == ["query"]
    assert "api_key" not in str(spec.parameters)
    assert spec.param_names == ["query", "limit", "speed"]
    assert search.spec.param_names == ["q", "limit", "api_key", "speed"]  # the parent is unchanged


def test_a_call_through_the_executor_maps_names_back_and_gives_hidden_args_their_default():
    registry = ToolRegistry([find])
    [result] = SequentialExecutor().run([make_tool_use("find", {"query": "lamp", "speed": "fast"})], registry)
    assert result.status == "success", result
    assert result.json == {"q": "lamp", "limit": 5, "api_key": "k-1", "speed": "fast"}  # Speed converted by the parent


def test_a_caller_cannot_set_a_hidden_argument_nor_use_the_old_name():
    """The attack: passing the hidden argument (or the parent's name of a renamed one) by hand."""
    with pytest.raises(ToolInputError) as info:
        find.spec.check_inputs({"query": "x", "api_key": "stolen", "q": "y"})
    assert info.value.tool_name == "find"
    assert [e["field"] for e in info.value.errors] == ["api_key", "q"]
    assert all("unexpected field" in e["message"] for e in info.value.errors)
    [result] = SequentialExecutor().run(
        [make_tool_use("find", {"query": "x", "api_key": "stolen"})], ToolRegistry([find])
    )
    assert result.status == "error" and "stolen" not in str(result.json)


def test_validation_errors_use_the_derived_names_and_the_parents_constraints():
    with pytest.raises(ToolInputError) as info:
        find.spec.check_inputs({"limit": "many", "speed": "warp"})
    fields = [e["field"] for e in info.value.errors]
    assert fields == ["query", "limit", "speed"]
    assert info.value.errors[0]["message"].startswith("query: required field is missing")
    assert "Invalid input for tool 'find'" in str(info.value)
    assert find.spec.check_inputs({"query": "x"}) == {"query": "x", "limit": 5, "speed": Speed.SLOW}
    assert find.spec.check_inputs({"query": "x", "limit": "6"}, validation="lax")["limit"] == 6


def test_a_new_default_makes_an_argument_optional_and_reaches_the_parent():
    loose = derive(search, args={"q": Arg(default="everything")})
    assert "required" not in loose.spec.parameters
    assert loose.spec.parameters["properties"]["q"]["default"] == "everything"
    assert ToolRegistry([loose]).call("search", {}).json["q"] == "everything"
    assert loose() == {"q": "everything", "limit": 5, "api_key": "", "speed": "slow"}  # a direct call too


def test_a_hidden_argument_without_a_default_keeps_the_parents_own():
    plain = derive(search, args={"api_key": Arg(hide=True)})
    assert plain(q="a")["api_key"] == ""


def test_with_description_keeps_the_name_and_the_body():
    terse = search.with_description("Search.")
    assert (terse.name, terse.description) == ("search", "Search.")
    assert terse.spec.parameters == search.spec.parameters
    assert terse("lamp")["q"] == "lamp"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider_export_shows_the_derived_tool(provider):
    exported = str(to_provider_format(find, provider))
    assert "find" in exported and "query" in exported and "api_key" not in exported
    assert find.to_provider_format(provider) == to_provider_format(find.spec, provider)


def test_clear_errors_name_the_tool_and_the_argument():
    with pytest.raises(
        ToolSpecError,
        match=r"derive\(search\): the tool has no argument 'query' \(its arguments: q, limit, api_key, speed\)",
    ):
        derive(search, args={"query": Arg(name="q2")})
    with pytest.raises(ToolSpecError, match=r"derive\(search\): hidden argument 'q' needs a default"):
        derive(search, args={"q": Arg(hide=True)})
    with pytest.raises(ToolSpecError, match=r"derive\(search\): arguments 'q' and 'limit' would both be named 'n'"):
        derive(search, args={"q": Arg(name="n"), "limit": Arg(name="n")})
    with pytest.raises(ToolSpecError, match=r"arguments 'q' and 'limit' would both be named 'limit'"):
        derive(search, args={"q": Arg(name="limit")})
    with pytest.raises(ToolSpecError, match=r"the default of argument 'limit' must be a JSON value"):
        derive(search, args={"limit": Arg(default=object())})
    with pytest.raises(ToolSpecError, match=r"Invalid tool name 'a b'"):
        derive(search, name="a b")
    with pytest.raises(TypeError, match="derive\\(\\) needs a tool"):
        derive(len)


def test_an_async_parent_runs_awaited():
    @tool
    async def slow_echo(text: str) -> str:
        """Echo, later."""
        await asyncio.sleep(0)
        return text

    echo = derive(slow_echo, name="echo", args={"text": Arg(name="message")})
    assert echo.supports_async
    assert (
        asyncio.run(ConcurrentExecutor().execute([make_tool_use("echo", {"message": "hi"})], ToolRegistry([echo])))[
            0
        ].value
        == "hi"
    )
    assert asyncio.run(echo.acall(message="yo")) == "yo"


def test_a_process_pool_runs_a_derived_tool():
    assert pickle.loads(pickle.dumps(find)).spec == find.spec
    with concurrent.futures.ProcessPoolExecutor(1) as pool:
        [result] = ConcurrentExecutor(pool=pool).run([make_tool_use("find", {"query": "x"})], ToolRegistry([find]))
    assert result.status == "success", result
    assert result.json["api_key"] == "k-1"
    assert transform_tools.find is find and os.getpid()  # imported by reference in the worker


def test_a_derived_tool_is_served_over_mcp():
    from workbench.adapters import from_mcp_server
    from workbench.mcp import build_server

    served = build_server(ToolRegistry([find]))
    connection = from_mcp_server(served, registry=(registry := ToolRegistry()), connect_timeout=30)
    try:
        proxy = registry.get_tool("find")
        assert list(proxy.spec.parameters["properties"]) == ["query", "limit", "speed"]
        assert registry.call("find", {"query": "lamp"}).json["api_key"] == "k-1"
        refused = registry.call("find", {"query": "lamp", "api_key": "mine"})
        assert refused.status == "error"
    finally:
        connection.disconnect()


def test_a_form_shows_the_derived_arguments_and_runs_the_parent(wb):  # noqa: F811 - the fixture
    from workbench.jupyter import ToolForm

    wb.registry.register_tool(find, replace=True)
    form = ToolForm(find, wb)
    assert list(form.fields) == ["query", "limit", "speed"]
    form.set_values({"query": "lamp"})
    result = form.run()
    assert result.ok and result.json == {"q": "lamp", "limit": 5, "api_key": "k-1", "speed": "slow"}
