"""Benchmark the per-turn overhead of ``OpenAIModel.complete`` over calling the openai SDK directly.

Plain script (no pytest)::

    python benchmarks/bench_models.py [N]

A local scripted OpenAI-compatible server (tests/model_servers.py) runs in a subprocess and
answers every request with the same Chat Completions body (one tool call). Both sides send the
same request — the one ``OpenAIModel.prepare`` builds: a system and a user message, two tools —
over one SDK client each (same retries, same timeout, keep-alive):

* baseline: ``client.chat.completions.create(**request)`` (the SDK parses its ChatCompletion);
* workbench: ``model.complete(messages, tools=[add, greet])`` — builds the request with the
  provider exports, sends it, reads the calls back with ``parse_tool_calls``, masks secrets and
  returns a ModelTurn.

The work ``complete`` adds around the SDK call (building the request, reading the answer into a
ModelTurn) is also timed on its own, without the network. The two alternate in 20 rounds (so drift on a shared machine hits both); the figures are the
median time per turn over the rounds, and the median of the per-round ratios. Target: workbench ≤ 1.05 × baseline.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench import tool  # noqa: E402
from workbench.models import as_messages  # noqa: E402
from workbench.models.openai import OpenAIModel  # noqa: E402

SERVER = """
import time
from tests.model_servers import ModelServer, openai_chat
server = ModelServer().always(openai_chat(None, [("add", {"a": 1, "b": 2}, "call_1")]))
print(server.url, flush=True)
time.sleep(1e9)
"""


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def greet(name: str, excited: bool = False) -> str:
    """Greet someone by name."""
    return f"hello {name}"


def per_turn(fn, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def main(n: int = 2000) -> None:
    import openai

    server = subprocess.Popen([sys.executable, "-c", SERVER], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip() + "/v1"
        model = OpenAIModel("gpt-4.1-mini", base_url=url, api_key="sk-bench")
        client = openai.OpenAI(base_url=url, api_key="sk-bench", timeout=model.timeout, max_retries=model.max_retries)
        messages = as_messages("add 1 and 2", system="Be brief.")
        request, _ = model.prepare(messages, tools=[add, greet])

        def baseline():
            return client.chat.completions.create(**request)

        def workbench():
            return model.complete(messages, tools=[add, greet])

        assert workbench().tool_calls[0]["input"] == {"a": 1, "b": 2}
        assert baseline().choices[0].message.tool_calls[0].function.name == "add"
        per_turn(baseline, 200), per_turn(workbench, 200)  # warm up both
        rounds = 20
        size = max(1, n // rounds)
        base, ours = [], []
        for _ in range(rounds):
            base.append(per_turn(baseline, size))
            ours.append(per_turn(workbench, size))
        b, w = statistics.median(base), statistics.median(ours)
        paired = statistics.median(o / b_ for o, b_ in zip(ours, base))
        print(f"turns per side: {rounds * size} (in {rounds} alternating rounds)")
        print(f"openai SDK directly      : {b * 1e6:8.1f} µs/turn (median of rounds)")
        print(f"OpenAIModel.complete     : {w * 1e6:8.1f} µs/turn (median of rounds)")
        print(f"ratio workbench/baseline : {w / b:8.3f}  (median of paired rounds: {paired:.3f}; target ≤ 1.05)")
        # the work complete() does around the SDK call, without the network: build the request, read the answer
        answer = client.chat.completions.with_raw_response.create(**request).http_response.json()
        specs = [add.spec, greet.spec]
        build = per_turn(lambda: model.prepare(messages, tools=[add, greet]), 5000)
        read = per_turn(lambda: model._turn(request, answer, specs, 0.0), 5000)
        print(
            f"workbench work around the SDK call: {(build + read) * 1e6:.1f} µs/turn "
            f"(request {build * 1e6:.1f}, answer {read * 1e6:.1f}) = {(build + read) / b:.1%} of the baseline turn"
        )
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
