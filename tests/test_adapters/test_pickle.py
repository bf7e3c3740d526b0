"""Adapted tools travel (Dask workers, process pools): pickled as the framework's own tool object and
adapted again where they are unpickled, with the runtime settings a user changed (they could not be
pickled at all: their call path is a closure)."""

from __future__ import annotations

import os
import pickle

import cloudpickle
import distributed
import pytest

from tests import adapter_sample_tools as samples
from workbench import Permission, SequentialExecutor, ToolRegistry
from workbench.adapters import adapt
from workbench.dask import DaskExecutor

#: (framework tool, arguments, what the call returns)
CASES = {
    "langchain": (samples.lc_multiply, {"a": 6, "b": 7}, 42),
    "openai-agents": (samples.oa_subtract, {"a": 9, "b": 4}, 5),
    "pydantic-ai": (samples.pa_power, {"base": 3}, 9),
    "smolagents": (samples.sm_repeat, {"text": "ab", "times": 2}, "abab"),
    "llamaindex": (samples.li_pad, {"text": "x", "width": 3}, "x.."),
}


def _adapted(framework: str):
    original, arguments, expected = CASES[framework]
    (adapted,) = adapt(original)
    return adapted, arguments, expected


def _value(tool, arguments):
    result = SequentialExecutor().run([{"name": tool.tool_name, "input": arguments}], ToolRegistry([tool]))[0]
    assert result.status == "success", result
    return result.value


@pytest.mark.parametrize("framework", sorted(CASES))
def test_an_adapted_tool_round_trips_through_cloudpickle_with_its_settings(framework):
    adapted, arguments, expected = _adapted(framework)
    adapted.spec.timeout = 12.5
    adapted.spec.permission = Permission.ASK_USER
    copy = pickle.loads(cloudpickle.dumps(adapted))
    assert type(copy) is type(adapted) and copy is not adapted and copy.framework == adapted.framework
    assert copy.tool_name == adapted.tool_name and copy.spec.parameters == adapted.spec.parameters
    assert copy.spec.description == adapted.spec.description
    assert copy.spec.timeout == 12.5 and copy.spec.permission == Permission.ASK_USER
    copy.spec.permission = Permission.ALWAYS_ALLOW
    assert _value(copy, arguments) == expected


def test_a_tool_whose_adapter_gave_no_recipe_says_it_cannot_be_pickled():
    from workbench.adapters._common import AdaptedTool, spec_of

    bare = AdaptedTool(
        spec_of("bare", "A tool.", {"type": "object", "properties": {}}, framework="example"),
        object(),
        "example",
        lambda arguments, call_id: 1,
    )
    with pytest.raises(TypeError, match="Tool 'bare' \\(a example tool\\) cannot be pickled"):
        cloudpickle.dumps(bare)


@pytest.fixture(scope="module")
def dask_executor():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            executor = DaskExecutor(client)
            yield executor
            executor.close()


def test_adapted_tools_run_on_dask_workers(dask_executor):
    tools = {framework: _adapted(framework) for framework in ("langchain", "pydantic-ai", "openai-agents")}
    registry = ToolRegistry([adapted for adapted, _, _ in tools.values()])
    uses = [{"name": adapted.tool_name, "input": arguments} for adapted, arguments, _ in tools.values()]
    results = dask_executor.run(uses, registry)
    assert [r.status for r in results] == ["success"] * 3, results
    assert [r.value for r in results] == [expected for _, _, expected in tools.values()]
    worker_pids = set(dask_executor.client.run(os.getpid).values())
    assert os.getpid() not in worker_pids  # they ran in another process: the tools were pickled to get there


RAN: list = []


def _attacker_code(*args):
    """What a crafted pickle makes the unpickling process call (here: note that it ran)."""
    RAN.append(args)
    raise ValueError("not a tool")


class _CraftedRecipe:
    """A pickle in the shape of an adapted tool's (its rebuild recipe), naming any importable function."""

    def __reduce__(self):
        from workbench.adapters._common import _rebuild_adapted

        return _rebuild_adapted, ((_attacker_code, ("rm -rf ~",), {}), "x", {})


def test_unpickling_an_adapted_tool_runs_code_and_the_security_page_says_so():
    import pickle
    from pathlib import Path

    crafted = pickle.dumps(_CraftedRecipe())
    with pytest.raises(ValueError, match="not a tool"):
        pickle.loads(crafted)
    assert RAN == [("rm -rf ~",)]  # the function ran before anything could check what it is
    page = (Path(__file__).resolve().parents[2] / "docs" / "security.md").read_text(encoding="utf-8")
    assert "**Unpickling an adapted tool runs code**" in page and "Unpickle only data you trust" in page
