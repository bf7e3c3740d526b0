"""Every tool-layer usage example of the five tool libraries whose API workbench also offers (the
sections below, one per library), run against workbench with only the import line changed (one
test per example)."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Optional

import pytest

from workbench import (
    BaseTool,
    ConcurrentExecutor,
    SequentialExecutor,
    ToolContext,
    ToolParam,
    ToolParameter,
    ToolPermission,
    ToolRegistry,
    ToolResponse,
    ToolReturn,
    ToolSpec,
    tool,
    update_tool_runtime_metadata,
)


def run_one(t, input, **kw):
    registry = ToolRegistry([t])
    return SequentialExecutor(**kw).run([{"toolUseId": "call_abc123", "name": t.tool_name, "input": input}], registry)[
        0
    ]


# ---------------------------------------------------------------- Spark (000)
def test_spark_simple_decorator():
    results = "stub results"

    @tool
    def search_web(query: str) -> str:
        """Search the web for information.

        Args:
            query: The search query

        Returns:
            Search results as a string
        """
        return results

    assert search_web.tool_name == "search_web"
    assert search_web.spec.description == "Search the web for information."
    assert search_web.spec.parameters["properties"]["query"] == {"type": "string", "description": "The search query"}
    assert search_web("x") == "stub results"
    assert run_one(search_web, {"query": "q"}).text == "stub results"


def test_spark_with_parameters():
    def search(query, max_results):
        return f"{query}:{max_results}"

    @tool(name="custom_search", description="Custom web search tool")
    def my_search(query: str, max_results: int = 10) -> str:
        """Search with custom settings."""
        return search(query, max_results)

    assert my_search.tool_name == "custom_search"
    assert my_search.spec.description == "Custom web search tool"
    assert my_search.spec.parameters["required"] == ["query"]
    assert my_search.spec.parameters["properties"]["max_results"] == {"type": "integer", "default": 10}
    assert run_one(my_search, {"query": "a"}).text == "a:10"


def test_spark_with_context_injection():
    @tool(context=True)
    def contextual_tool(query: str, tool_context: ToolContext) -> str:
        """Tool that accesses execution context."""
        agent = tool_context.invocation_state.get("agent")
        tool_id = tool_context.tool_use["toolUseId"]

        return f"Processed {query} with tool ID {tool_id} agent={agent}"

    assert "tool_context" not in contextual_tool.spec.parameters["properties"]
    result = run_one(contextual_tool, {"query": "q"}, invocation_state={"agent": "A"})
    assert result.text == "Processed q with tool ID call_abc123 agent=A"


def test_spark_custom_context_parameter_name():
    def process(query, ctx):
        return f"{query}/{ctx.tool_use['name']}"

    @tool(context="ctx")
    def my_tool(query: str, ctx: ToolContext) -> str:
        """Tool with custom context parameter name."""
        return process(query, ctx)

    assert list(my_tool.spec.parameters["properties"]) == ["query"]
    assert run_one(my_tool, {"query": "q"}).text == "q/my_tool"


def test_spark_async_tool():
    async def async_search_api(query):
        await asyncio.sleep(0)
        return query.upper()

    @tool
    async def async_search(query: str) -> str:
        """Async web search."""
        result = await async_search_api(query)
        return result

    assert async_search.supports_async
    assert asyncio.run(async_search("a")) == "A"  # direct call returns the coroutine
    assert run_one(async_search, {"query": "abc"}).text == "ABC"


def test_spark_example_with_full_documentation():
    @tool
    def calculate(operation: str, a: float, b: float, precision: Optional[int] = 2) -> float:
        """Perform a mathematical calculation.

        This tool supports basic arithmetic operations including addition,
        subtraction, multiplication, and division.

        Args:
            operation: The operation to perform (add, subtract, multiply, divide)
            a: First operand
            b: Second operand
            precision: Number of decimal places for result (default: 2)

        Returns:
            The result of the calculation rounded to specified precision

        Raises:
            ValueError: If operation is not supported
            ZeroDivisionError: If dividing by zero
        """
        if operation == "add":
            result = a + b
        elif operation == "subtract":
            result = a - b
        elif operation == "multiply":
            result = a * b
        elif operation == "divide":
            if b == 0:
                raise ZeroDivisionError("Cannot divide by zero")
            result = a / b
        else:
            raise ValueError(f"Unsupported operation: {operation}")

        return round(result, precision)

    spec = calculate.spec
    assert spec.description == (
        "Perform a mathematical calculation.\n\nThis tool supports basic arithmetic operations including addition,\n"
        "subtraction, multiplication, and division."
    )
    assert spec.parameters["properties"]["precision"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "default": 2,
        "description": "Number of decimal places for result (default: 2)",
    }
    assert spec.parameters["required"] == ["operation", "a", "b"]
    assert spec.returns == {"type": "number"}
    assert run_one(calculate, {"operation": "divide", "a": 1, "b": 3}).json == 0.33
    error = run_one(calculate, {"operation": "divide", "a": 1, "b": 0})
    assert error.status == "error" and error.metadata["error_type"] == "ZeroDivisionError"


def test_spark_tool_context_example():
    class Agent:
        def get_history(self):
            return ["h1"]

    @tool(context=True)
    def smart_tool(query: str, tool_context: ToolContext) -> str:
        # Access tool use metadata
        tool_id = tool_context.tool_use["toolUseId"]
        tool_name = tool_context.tool_use["name"]  # noqa: F841 - the seed as its framework's docs write it

        # Access agent if available
        agent = tool_context.invocation_state.get("agent")
        if agent:
            history = agent.get_history()
            assert history == ["h1"]

        return f"Processed {query} (ID: {tool_id})"

    assert (
        run_one(smart_tool, {"query": "q"}, invocation_state={"agent": Agent()}).text == "Processed q (ID: call_abc123)"
    )
    # ToolContext is also constructible as Spark's dataclass
    ctx = ToolContext(tool_use={"toolUseId": "x", "name": "smart_tool", "input": {}}, invocation_state={})
    assert smart_tool("q", tool_context=ctx) == "Processed q (ID: x)"


def test_spark_custom_basetool():
    class CustomTool(BaseTool):
        """Custom tool implementation."""

        @property
        def tool_name(self) -> str:
            return "custom_tool"

        @property
        def tool_spec(self) -> ToolSpec:
            return {
                "name": "custom_tool",
                "description": "A custom tool implementation",
                "parameters": {
                    "json": {
                        "type": "object",
                        "properties": {"input": {"type": "string", "description": "Input parameter"}},
                        "required": ["input"],
                    }
                },
            }

        @property
        def tool_type(self) -> str:
            return "custom"

        def __call__(self, input: str) -> str:
            return f"Processed: {input}"

    t = CustomTool()
    assert t.spec.parameters["required"] == ["input"]  # the {"json": ...} wrapper is unwrapped
    assert t.tool_type == "custom"
    assert run_one(t, {"input": "x"}).text == "Processed: x"
    bad = run_one(t, {"input": 3})
    assert bad.status == "error" and "input: expected string" in bad.error


def test_spark_decorated_function_tool_methods():
    @tool(context=True)
    def echo(text: str, tool_context: ToolContext) -> str:
        """Echo."""
        return text + tool_context.tool_use["toolUseId"]

    kwargs = echo.prepare_tool_kwargs({"toolUseId": "id1", "name": "echo", "input": {"text": "a"}}, {"k": 1})
    assert kwargs["text"] == "a" and kwargs["tool_context"].invocation_state == {"k": 1}
    assert echo(**kwargs) == "aid1"
    assert asyncio.run(echo.acall(**kwargs)) == "aid1"
    assert echo.tool_func.__name__ == "echo"


def test_spark_process_tools_example():
    @tool
    def search_tool(query: str) -> str:
        """Search."""
        return query

    @tool
    def calculator_tool(a: int, b: int) -> int:
        """Add."""
        return a + b

    registry = ToolRegistry()
    tool_names = registry.process_tools([search_tool, calculator_tool])
    assert tool_names == ["search_tool", "calculator_tool"]


def test_spark_register_tool_example():
    @tool
    def my_tool(input: str) -> str:
        return f"Processed: {input}"

    registry = ToolRegistry()
    registry.register_tool(my_tool)
    assert registry.get_tool("my_tool") is my_tool
    # the description falls back to a readable default-free empty docstring → validate() names it
    with pytest.raises(ValueError):
        registry.register_tool(my_tool)


def test_spark_register_tool_by_ref_example():
    registry = ToolRegistry()
    registry.register_tool_by_ref("tests.sample_tools:search_database")
    registry.register_tool_by_ref("tests.sample_tools:calculate", tool_name="calc")
    assert registry.list_tools() == ["search_database", "calc"]
    assert registry.get_tool_ref("calc") == "tests.sample_tools:calculate"
    assert registry.call("calc", {"a": 2, "b": 3}).json == 5


def test_spark_to_spec_dict_example():
    registry = ToolRegistry()
    registry.register_tool_by_ref("tests.sample_tools:search_database")
    spec = registry.to_spec_dict()
    assert spec["tools"][0]["name"] == "search_database"
    assert spec["tools"][0]["ref"] == "tests.sample_tools:search_database"
    assert spec["tools"][0]["spec"]["parameters"]["required"] == ["query"]
    with pytest.warns(UserWarning, match="not trusted"):
        again = ToolRegistry.from_spec_dict(spec)  # untrusted: round-trips, imports nothing
    assert again.to_spec_dict() == spec
    assert not again.get_tool("search_database").has_implementation
    trusted = ToolRegistry.from_spec_dict(spec, trust_refs=["tests"])
    assert trusted.to_spec_dict() == spec
    assert trusted.get_tool("search_database").has_implementation


def test_spark_toolspec_typeddict_example():
    tool_spec: ToolSpec = {
        "name": "search_database",
        "description": "Search the customer database",
        "parameters": {
            "json": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Search query"},
                    "limit": {"type": "integer", "description": "Maximum results"},
                },
                "required": ["query"],
            }
        },
    }
    ToolRegistry.validate_tool_spec(tool_spec)
    spec = ToolSpec.coerce(tool_spec)
    assert spec.param_names == ["query", "limit"]
    assert spec.check_inputs({"query": "x", "limit": 3}) == {"query": "x", "limit": 3}


def test_spark_tooluse_toolchoice_toolresult_examples():
    from workbench import ToolResult
    from workbench.providers import tool_choice_to_provider

    tool_use = {
        "toolUseId": "call_abc123",
        "name": "search_database",
        "input": {"query": "customer orders", "limit": 10},
    }
    assert tool_use["toolUseId"] == "call_abc123"
    for tool_choice in ({"auto": {}}, {"any": {}}, {"tool": {"name": "calculator"}}):
        assert tool_choice_to_provider(tool_choice, "anthropic")["type"] in ("auto", "any", "tool")
    tool_result = {
        "toolUseId": "call_abc123",
        "status": "success",
        "content": [{"text": "Found 5 matching records"}],
        "metadata": {"latency_ms": 245, "records_found": 5},
        "completed_at": "2025-01-15T10:30:00Z",
    }
    parsed = ToolResult.model_validate(tool_result)
    assert parsed.text == "Found 5 matching records"
    assert parsed.model_dump(by_alias=True, exclude_none=True) == tool_result


def test_spark_update_tool_runtime_metadata_example():
    tool_spec: ToolSpec = {
        "name": "data_processor",
        "description": "Process large datasets",
        "parameters": {"type": "object", "properties": {}},
    }

    update_tool_runtime_metadata(tool_spec, supports_async=True, long_running=True)
    assert tool_spec["x_spark"] == {"supports_async": True, "long_running": True}
    spec = ToolSpec.coerce(tool_spec)
    assert spec.supports_async and spec.long_running


def test_spark_complete_example():
    def perform_search(query, limit):
        return [query] * min(limit, 2)

    def enhanced_search(query, history):
        return f"{query} with {len(history)} history items"

    async def make_api_call(endpoint):
        await asyncio.sleep(0)
        return {"endpoint": endpoint}

    @tool
    def search_database(query: str, limit: int = 10) -> str:
        """Search the customer database.

        Args:
            query: Search query string
            limit: Maximum number of results to return

        Returns:
            Search results as formatted string
        """
        # Implementation
        results = perform_search(query, limit)
        return f"Found {len(results)} results: {results}"

    @tool(context=True)
    def contextual_search(query: str, tool_context: ToolContext) -> str:
        """Search with access to agent context.

        Args:
            query: Search query string
            tool_context: Execution context (injected automatically)
        """
        agent = tool_context.invocation_state.get("agent")
        # Use agent history to improve search
        history = agent.get_history() if agent else []
        return enhanced_search(query, history)

    @tool
    async def async_api_call(endpoint: str) -> dict:
        """Make an async API call.

        Args:
            endpoint: API endpoint to call

        Returns:
            API response as dictionary
        """
        response = await make_api_call(endpoint)
        return response

    # Create registry and register tools
    registry = ToolRegistry()
    registry.process_tools([search_database, contextual_search, async_api_call])
    results = ConcurrentExecutor().run(
        [
            {"toolUseId": "1", "name": "search_database", "input": {"query": "q"}},
            {"toolUseId": "2", "name": "contextual_search", "input": {"query": "q"}},
            {"toolUseId": "3", "name": "async_api_call", "input": {"endpoint": "/x"}},
        ],
        registry,
    )
    assert [r.status for r in results] == ["success"] * 3
    assert results[0].text == "Found 2 results: ['q', 'q']"
    assert results[1].text == "q with 0 history items"
    assert results[2].json == {"endpoint": "/x"}
    assert "tool_context" not in contextual_search.spec.parameters["properties"]


# ---------------------------------------------------------------- neurosurfer (001)
def test_neurosurfer_toolparam_and_toolreturn():
    p = ToolParam(name="query", type="string", description="SQL to execute", required=True)
    r = ToolReturn(type="object", description="Query results as a JSON object")
    assert (p.name, p.type, p.required) == ("query", "string", True)
    assert r.type == "object"


def test_neurosurfer_calculator_spec_validate():
    spec = ToolSpec(
        name="calculator",
        description="Performs arithmetic operations",
        when_to_use="Use when you must compute a numeric result",
        inputs=[
            ToolParam(name="operation", type="string", description="add|sub|mul|div", required=True),
            ToolParam(name="a", type="number", description="Left operand", required=True),
            ToolParam(name="b", type="number", description="Right operand", required=True),
        ],
        returns=ToolReturn(type="number", description="Result of the operation"),
    )
    spec.validate()
    assert spec.returns == {"type": "number", "description": "Result of the operation"}
    assert [p.name for p in spec.inputs] == ["operation", "a", "b"]
    assert spec.to_json()["when_to_use"] == "Use when you must compute a numeric result"


def test_neurosurfer_validate_failure_modes():
    bad_type = ToolSpec(name="calculator", description="d", inputs=[ToolParam(name="b", type="float", description="")])
    with pytest.raises(ValueError, match=r"calculator\.b has unsupported type 'float'"):
        bad_type.validate()
    dup = ToolSpec(
        name="t",
        description="d",
        inputs=[ToolParam(name="query", type="string"), ToolParam(name="query", type="string")],
    )
    with pytest.raises(ValueError, match="duplicate input 'query'"):
        dup.validate()
    # "str" is accepted as an alias for "string"
    ToolSpec(name="t", description="d", inputs=[ToolParam(name="q", type="str")]).validate()


def test_neurosurfer_check_inputs_strict():
    spec = ToolSpec(
        name="calc",
        description="d",
        inputs=[
            ToolParam(name="n", type="integer"),
            ToolParam(name="x", type="number"),
            ToolParam(name="opt", type="array", required=False),
        ],
    )
    assert spec.check_inputs({"n": 1, "x": 2}) == {"n": 1, "x": 2}
    for bad in (
        {"x": 1},
        {"n": 1, "x": 2, "extra": 1},
        {"n": True, "x": 1},
        {"n": 1, "x": False},
        {"n": 1.5, "x": 1},
        {"n": 1, "x": 1, "opt": {"a": 1}},
    ):
        with pytest.raises(ValueError):
            spec.check_inputs(bad)


def test_neurosurfer_echo_tool():
    class EchoTool(BaseTool):
        spec = ToolSpec(
            name="echo",
            description="Echoes text back to the caller.",
            when_to_use="Use for basic echo or smoke testing",
            inputs=[ToolParam(name="text", type="string", description="Text to echo", required=True)],
            returns=ToolReturn(type="string", description="The echoed text"),
        )

        def __call__(self, *, text: str, **kwargs) -> ToolResponse:
            return ToolResponse(final_answer=True, observation=text)

    tool_obj = EchoTool()
    raw_inputs = {"text": "hello"}
    validated = tool_obj.spec.check_inputs(raw_inputs)
    result = tool_obj(**validated)
    assert result == ToolResponse(final_answer=True, observation="hello")
    via_executor = run_one(tool_obj, raw_inputs)
    assert via_executor.text == "hello" and via_executor.metadata["final_answer"] is True

    # Strict input validation: Raises ValueError: wrong types
    with pytest.raises(ValueError, match="text: expected string"):
        EchoTool().spec.check_inputs({"text": 123})


def test_neurosurfer_spec_validated_at_construction():
    class Broken(BaseTool):
        spec = ToolSpec(name="bad name!", description="d", inputs=[ToolParam(name="q", type="string")])

        def __call__(self, **kwargs):
            return None

    with pytest.raises(ValueError, match="Invalid tool name"):
        Broken()


# ---------------------------------------------------------------- Allos (002)
def test_allos_basetool_class_attributes_and_class_decorator(fresh_default_registry):
    @tool
    class GetWeather(BaseTool):
        name = "get_weather"
        description = "Get the weather for a city."
        parameters = [
            ToolParameter(name="city", type="string", description="City name", required=True),
            ToolParameter(name="days", type="integer", description="Forecast days", required=False),
        ]
        permission = ToolPermission.ALWAYS_ALLOW

        def execute(self, **kwargs: Any) -> Dict[str, Any]:
            return {"city": kwargs["city"], "days": kwargs.get("days", 1)}

    assert isinstance(GetWeather, type)  # the class decorator returns the class
    registered = fresh_default_registry.get_tool("get_weather")
    assert isinstance(registered, GetWeather)
    assert registered.to_provider_format("openai")["function"]["parameters"]["required"] == ["city"]
    assert registered.to_provider_format("anthropic")["input_schema"]["properties"]["days"]["type"] == "integer"
    assert fresh_default_registry.call("get_weather", {"city": "Oslo"}).json == {"city": "Oslo", "days": 1}


def test_allos_tool_permission_values():
    assert ToolPermission.ALWAYS_ALLOW.value == "always_allow"
    assert ToolPermission.ALWAYS_DENY.value == "always_deny"
    assert ToolPermission.ASK_USER.value == "ask_user"

    class Dangerous(BaseTool):
        name = "rm"
        description = "Remove things."
        parameters: List[ToolParameter] = []
        permission = ToolPermission.ASK_USER

        def execute(self, **kwargs):
            return {"removed": True}

    registry = ToolRegistry([Dangerous()])
    assert registry.call("rm", {}).status == "error"  # no approver → denied
    assert SequentialExecutor(approver=lambda use, t: True).call(registry, "rm", {}).json == {"removed": True}


def test_allos_toolcall_ids_correlate():
    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    registry = ToolRegistry([ping])
    tool_call = {"id": "call_42", "name": "ping", "arguments": {}}
    result = SequentialExecutor().run([tool_call], registry)[0]
    assert result.tool_use_id == "call_42"


# ---------------------------------------------------------------- rdk (003)
def test_rdk_from_function_get_user():
    def get_user(user_id: str, include_email: bool = False) -> dict:
        """Fetch a user by ID."""
        ...

    spec = ToolSpec.from_function(get_user)
    assert spec.name == "get_user"
    assert spec.description == "Fetch a user by ID."
    # exactly rdk's documented schema, plus the default workbench keeps (docs/tools-and-schemas.md, "Behaviour worth knowing")
    assert spec.parameters == {
        "type": "object",
        "properties": {
            "user_id": {"type": "string"},
            "include_email": {"type": "boolean", "default": False},
        },
        "required": ["user_id"],
    }
    assert spec.returns == {"type": "object"}
    assert spec.param_names == ["user_id", "include_email"]
    assert spec.to_schema() == {
        "name": "get_user",
        "description": "Fetch a user by ID.",
        "parameters": spec.parameters,
        "returns": {"type": "object"},
    }
    assert spec.build_input("u1", include_email=True) == {"user_id": "u1", "include_email": True}


def test_rdk_type_mapping():
    def f(s: str, i: int, x: float, b: bool, l: list, d: dict) -> None:  # noqa: E741 - the schema's parameter names
        """Map."""

    props = ToolSpec.from_function(f).parameters["properties"]
    assert {k: v["type"] for k, v in props.items()} == {
        "s": "string",
        "i": "integer",
        "x": "number",
        "b": "boolean",
        "l": "array",
        "d": "object",
    }


def test_rdk_manual_schema_and_register_spec_synthetic():
    spec = ToolSpec(
        name="create_invoice",
        description="Create an invoice for a customer",
        parameters={
            "type": "object",
            "properties": {
                "customer_id": {"type": "string"},
                "amount": {"type": "number"},
                "currency": {"type": "string"},
            },
            "required": ["customer_id", "amount"],
        },
        returns={
            "type": "object",
            "properties": {
                "invoice_id": {"type": "string"},
                "status": {"type": "string"},
                "created_at": {"type": "string"},
            },
            "required": ["invoice_id", "status"],
        },
    )
    world = ToolRegistry(synthetic=True)
    world.register_spec(spec)
    result = world.call("create_invoice", {"customer_id": "c1", "amount": 99.99})
    assert result.status == "success" and result.metadata["synthetic"] is True
    import jsonschema

    jsonschema.validate(result.json, spec.returns)
    assert world.call("create_invoice", {"customer_id": "c1", "amount": 99.99}).json == result.json


def test_rdk_from_function_search_orders():
    def search_orders(customer_id: str, status: str = "all", limit: int = 20) -> list:
        """Search orders by customer and optional status filter."""
        ...

    spec = ToolSpec.from_function(search_orders)
    assert spec.to_schema() == {
        "name": "search_orders",
        "description": "Search orders by customer and optional status filter.",
        "parameters": {
            "type": "object",
            "properties": {
                "customer_id": {"type": "string"},
                "status": {"type": "string", "default": "all"},
                "limit": {"type": "integer", "default": 20},
            },
            "required": ["customer_id"],
        },
        "returns": {"type": "array"},
    }


# ---------------------------------------------------------------- locus (004)
def test_locus_decorator_usages():
    @tool
    def search(query: str) -> str:
        """Search the knowledge base."""
        return "results..."

    @tool(name="custom_name", description="Custom description")
    def my_tool(x: int) -> int:
        return x * 2

    @tool(idempotent=True)
    def book_flight(flight_id: str, customer_id: str) -> dict:
        """Book a flight — safe to mark idempotent because repeated
        calls with the same flight/customer would create duplicate
        bookings, which we never want."""
        return {"booked": flight_id}

    assert search.name == "search" and search.description == "Search the knowledge base."
    assert my_tool.name == "custom_name" and my_tool(4) == 8
    assert book_flight.idempotent
    assert book_flight.description.startswith("Book a flight")
    assert asyncio.run(my_tool.execute(x=3)) == 6
    assert my_tool.to_openai_schema() == {
        "type": "function",
        "function": {"name": "custom_name", "description": "Custom description", "parameters": my_tool.parameters},
    }


def test_locus_context_injection_execute():
    @tool
    def whoami(ctx: ToolContext) -> str:
        """Who am I."""
        return ctx.get_metadata("user", "nobody") + "/" + ctx.get_config("mode", "x")

    ctx = ToolContext(
        {"toolUseId": "1", "name": "whoami", "input": {}}, metadata={"user": "ada"}, tool_config={"mode": "m"}
    )
    assert asyncio.run(whoami.execute(ctx)) == "ada/m"
    assert whoami.spec.parameters["properties"] == {}


def test_locus_registry_methods():
    @tool
    def a1(x: int) -> int:
        """A."""
        return x

    @tool
    def b1(x: int) -> int:
        """B."""
        return x

    registry = ToolRegistry()
    registry.register(a1)
    registry.register_many([b1])
    assert "a1" in registry and len(registry) == 2 and list(registry) == [a1, b1]
    assert registry.get("zz") is None and registry.get("a1") is a1
    with pytest.raises(KeyError, match="Available"):
        registry.get_or_raise("zz")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(a1)
    assert registry.list_tools() == ["a1", "b1"]
    assert [s["function"]["name"] for s in registry.to_openai_schemas()] == ["a1", "b1"]
    assert registry.unregister("a1") is a1 and registry.unregister("a1") is None


def test_locus_executors_and_streaming():
    @tool
    async def nap(ms: int) -> int:
        """Sleep."""
        await asyncio.sleep(ms / 1000)
        return ms

    registry = ToolRegistry([nap])
    calls = [{"toolUseId": str(i), "name": "nap", "input": {"ms": ms}} for i, ms in enumerate([60, 10, 30])]

    async def main():
        in_order = await ConcurrentExecutor(max_concurrency=3).execute(calls, registry)
        streamed = [i async for i, _ in ConcurrentExecutor(max_concurrency=3).execute_streaming(calls, registry)]
        sequential = [i async for i, _ in SequentialExecutor().execute_streaming(calls, registry)]
        return [r.json for r in in_order], streamed, sequential

    values, streamed, sequential = asyncio.run(main())
    assert values == [60, 10, 30]
    assert streamed == [1, 2, 0]
    assert sequential == [0, 1, 2]


def test_locus_generate_schema_and_builtin():
    from pydantic import BaseModel

    from workbench.builtins import get_today_date
    from workbench.schema import generate_schema, pydantic_to_json_schema

    def lookup(city: str, days: int = 1) -> dict:
        """Look up the weather.

        Args:
            city: The city
        """

    schema = generate_schema(lookup)
    assert schema["type"] == "function"
    assert schema["function"]["name"] == "lookup"
    assert schema["function"]["parameters"]["properties"]["city"] == {"type": "string", "description": "The city"}

    class Point(BaseModel):
        x: int

    assert pydantic_to_json_schema(Point)["properties"]["x"]["type"] == "integer"
    today = get_today_date()
    assert len(today["next_7_days_by_weekday"]) == 7 and get_today_date.idempotent
