"""Agent-loop benchmarks (issue 19). A plain script: ``python benchmarks/bench_agent.py [--runs N] [--quick]``.

1. ``--runs`` agent runs (default 1,000) of 3 model turns each (two turns calling a tool, then an
   answer), at concurrency 32: ``arun_agent`` under ``asyncio.gather`` with a semaphore, against
   ``ScriptedModel`` and against a local OpenAI-wire HTTP server through the real ``openai`` SDK
   (``OpenAIModel``). Prints runs/s and errors (a run that did not end with ``end_turn`` or whose
   tool calls failed; must be 0).
2. The loop's overhead per model turn: the same number of turns made by calling the model directly
   (``model.acomplete``, same concurrency), and the same tool calls made through the executor
   directly; overhead per turn = (agent time − model time − executor time) / turns.

Every number is measured in this run (``time.perf_counter``); ratios compare numbers from the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Awaitable, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.model_servers' wire-format builders

from workbench import ConcurrentExecutor, tool  # noqa: E402
from workbench.agent import arun_agent  # noqa: E402
from workbench.models import ModelTurn, ScriptedModel, as_messages  # noqa: E402

CONCURRENCY = 32
TURNS = 3
ROUNDS = 5


@tool
async def lookup(key: str) -> str:
    """Look a key up."""
    return key.upper()


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


TOOLS = [lookup, add]
CALLS = [("lookup", {"key": "abc"}), ("add", {"a": 1, "b": 2})]


def script() -> list:
    return [
        ModelTurn(tool_calls=[{"toolUseId": f"c{i}", "name": name, "input": args}], stop_reason="tool_use")
        for i, (name, args) in enumerate(CALLS)
    ] + ["ABC and 3"]


async def gathered(
    n: int,
    one: Callable[[int], Awaitable[Any]],
    concurrency: int = CONCURRENCY,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, list]:
    """Run ``one(i)`` for i < n, at most ``concurrency`` at a time; (seconds by ``clock``, results)."""
    semaphore = asyncio.Semaphore(concurrency)

    async def limited(i: int) -> Any:
        async with semaphore:
            return await one(i)

    t0 = clock()
    results = await asyncio.gather(*(limited(i) for i in range(n)))
    return clock() - t0, results


def errors_of(transcripts: list) -> int:
    return sum(
        1
        for t in transcripts
        if t.stopped_because != "end_turn" or len(t.tool_steps) != 2 or not all(s.ok for s in t.tool_steps)
    )


async def bench_model(label: str, n: int, make_model: Callable[[], Any], executor: ConcurrentExecutor) -> dict:
    """n agent runs (``make_model()`` gives each its model); then the same turns straight to the model,
    and the same calls straight to the executor."""
    specs = [t.spec for t in TOOLS]
    prompt = as_messages("look up abc and add 1 and 2")

    async def agent_run(i: int) -> Any:
        return await arun_agent(make_model(), prompt, tools=TOOLS, executor=executor)

    conversation: list = []  # a run's messages: turn k is sent what the loop sends it, messages[:1 + 2k]

    async def model_only(i: int) -> None:
        model = make_model()
        for turn in range(TURNS):
            await model.acomplete(conversation[: 1 + 2 * turn], tools=specs)

    async def executor_only(i: int) -> None:
        for turn, (name, args) in enumerate(CALLS):
            await executor.execute([{"toolUseId": f"c{turn}", "name": name, "input": args}], TOOLS)

    _, warm = await gathered(min(n, 64), agent_run)  # warm up: imports, thread pool, connections
    conversation.extend(warm[0].messages)
    agent_s, transcripts = await gathered(n, agent_run)
    model_s, _ = await gathered(n, model_only)
    # one run at a time, in CPU time of this process (the server's threads included; best of rounds):
    # what the loop adds to each turn, robust to other processes sharing the cores
    sequential = max(20, n // 10)
    best = {"agent": float("inf"), "model": float("inf"), "executor": float("inf")}
    for _ in range(ROUNDS):
        for key, one in (("agent", agent_run), ("model", model_only), ("executor", executor_only)):
            best[key] = min(best[key], (await gathered(sequential, one, 1, time.process_time))[0])
    turns = sequential * TURNS
    return {
        "label": label,
        "runs": n,
        "runs_per_s": n / agent_s,
        "errors": errors_of(transcripts),
        "throughput_vs_model": model_s / agent_s,
        "agent_us_per_turn": best["agent"] / turns * 1e6,
        "model_us_per_turn": best["model"] / turns * 1e6,
        "executor_us_per_turn": best["executor"] / turns * 1e6,
        "overhead_us_per_turn": (best["agent"] - best["model"] - best["executor"]) / turns * 1e6,
    }


# -- a local OpenAI-wire server answering by the conversation so far ------------------------------------------
class OpenAIWireServer:
    """Chat Completions on 127.0.0.1: a request with k tool results gets the (k+1)-th scripted turn
    (a call of lookup, a call of add, then the answer), so concurrent runs each get their own script."""

    def __init__(self) -> None:
        from tests.model_servers import openai_chat

        replies = [
            json.dumps(openai_chat(tool_calls=[(name, args, f"call_{i}")])).encode()
            for i, (name, args) in enumerate(CALLS)
        ] + [json.dumps(openai_chat(text="ABC and 3")).encode()]
        self.requests = 0

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms delayed-ACK stall

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                answered = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
                payload = replies[min(answered, len(replies) - 1)]
                server.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        server = self
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


async def main_async(n: int) -> list[dict]:
    executor = ConcurrentExecutor(max_concurrency=8)
    rows = [await bench_model("ScriptedModel", n, lambda: ScriptedModel(script()), executor)]
    try:
        import openai  # noqa: F401

        from workbench.models.openai import OpenAIModel
    except ImportError:
        print("openai is not installed: the OpenAI-wire benchmark is skipped")
        return rows
    server = OpenAIWireServer()
    try:
        model = OpenAIModel("gpt-4.1-mini", base_url=server.url + "/v1", api_key="sk-bench", max_retries=0)
        rows.append(await bench_model("OpenAIModel (openai SDK, local server)", n, lambda: model, executor))
    finally:
        server.close()
    executor.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="100 runs")
    args = parser.parse_args()
    n = 100 if args.quick else args.runs
    rows = asyncio.run(main_async(n))
    print(f"\nAgent loop: {n:,} runs × {TURNS} turns (2 tool calls each), concurrency {CONCURRENCY}\n")
    header = f"{'model':<42}{'runs/s':>9}{'errors':>8}{'turns/s vs model alone':>24}"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['label']:<42}{r['runs_per_s']:>9,.0f}{r['errors']:>8}{r['throughput_vs_model']:>24.2f}")
    print(f"\nCPU time per model turn, one run at a time (best of {ROUNDS}):\n")
    header = (
        f"{'model':<42}{'agent µs':>10}{'model µs':>10}{'executor µs':>13}{'loop overhead µs':>18}"
        f"{'overhead / model':>18}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['label']:<42}{r['agent_us_per_turn']:>10,.0f}{r['model_us_per_turn']:>10,.0f}"
            f"{r['executor_us_per_turn']:>13,.0f}{r['overhead_us_per_turn']:>18,.0f}"
            f"{r['overhead_us_per_turn'] / r['model_us_per_turn']:>18.2f}"
        )
    print(
        "\nloop overhead = agent time − the same turns straight to the model (model.acomplete) − the same "
        "tool calls straight to the executor (executor.execute), per turn"
    )
    if any(r["errors"] for r in rows):
        sys.exit("errors: a run did not end with end_turn or a tool call failed")


if __name__ == "__main__":
    main()
