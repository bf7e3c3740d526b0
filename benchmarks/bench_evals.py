"""Evaluation overhead per case, against the local OpenAI-wire server with no latency.

Prints cases/s of ``run_evals`` (single-turn cases, ``OpenAIModel`` through the real ``openai`` SDK,
concurrency 32) against the baseline of the same requests sent straight through ``AsyncOpenAI`` at the
same concurrency, and the share of each case's time spent outside the model call. Target: ≥ 500 cases/s.

    python benchmarks/bench_evals.py [cases]
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.model_servers import openai_chat  # noqa: E402
from workbench import tool  # noqa: E402
from workbench.evals import EvalCase, run_evals  # noqa: E402
from workbench.models.openai import OpenAIModel  # noqa: E402

CONCURRENCY = 32


@tool
def get_weather(city: str, units: str = "metric") -> dict:
    """The weather in a city."""
    return {}


def serve(port_queue, body: bytes) -> None:
    """A 0-latency server in its own process (in this one it would share the GIL with what it measures)
    answering every request with ``body``."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    ThreadingHTTPServer.request_queue_size = 256  # 32 connections at once overflow the default 5
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    port_queue.put(httpd.server_address[1])
    httpd.serve_forever()


class Server:
    def __init__(self, reply: dict) -> None:
        import json
        import multiprocessing

        queue = multiprocessing.Queue()
        self.process = multiprocessing.Process(target=serve, args=(queue, json.dumps(reply).encode()), daemon=True)
        self.process.start()
        self.url = f"http://127.0.0.1:{queue.get(timeout=30)}"

    def close(self) -> None:
        self.process.terminate()


def main(count: int = 2000) -> None:
    reply = openai_chat(tool_calls=[("get_weather", {"city": "Paris"})])
    server = Server(reply)
    cases = [
        EvalCase(
            f"c{i}",
            prompt=f"Weather in Paris? ({i})",
            expect_calls=[{"name": "get_weather", "arguments": {"city": ["Paris"]}}],
        )
        for i in range(count)
    ]
    model = OpenAIModel("gpt-4.1-mini", base_url=server.url + "/v1", api_key="sk-bench-not-a-key")

    # baseline: the same requests straight through the SDK, same concurrency
    import openai

    request = model._build(cases[0].input_messages, [get_weather.spec], None, {}) if hasattr(model, "_build") else None

    async def baseline(n: int) -> float:
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-bench-not-a-key", max_retries=0)
        limit = asyncio.Semaphore(CONCURRENCY)

        async def one(i: int) -> None:
            async with limit:
                await client.chat.completions.create(
                    **{**request, "messages": [{"role": "user", "content": cases[i].prompt}]}
                )

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        seconds = time.perf_counter() - t0
        await client.close()
        return seconds

    def evals(n: int) -> tuple[float, object]:
        t0 = time.perf_counter()
        report = run_evals(cases[:n], model, tools=[get_weather], concurrency=CONCURRENCY, progress=False)
        return time.perf_counter() - t0, report

    # warm up both paths (imports, connections), then take the best of two rounds each
    asyncio.run(baseline(200))
    evals(200)
    sdk_seconds = min(asyncio.run(baseline(count)) for _ in range(2))
    eval_seconds, report = min((evals(count) for _ in range(2)), key=lambda pair: pair[0])
    server.close()
    assert report.results["passed"].all() and len(report.results) == count
    from workbench.models import ScriptedModel

    offline = ScriptedModel([{"tool_calls": [{"name": "get_weather", "input": {"city": "Paris"}}]}], repeat_last=True)
    run_evals(cases[:200], offline, tools=[get_weather], concurrency=CONCURRENCY, progress=False)
    t0 = time.perf_counter()
    run_evals(cases, offline, tools=[get_weather], concurrency=CONCURRENCY, progress=False)
    offline_rate = count / (time.perf_counter() - t0)
    sdk_rate, eval_rate = count / sdk_seconds, count / eval_seconds
    outside = max(0.0, 1 - sdk_seconds / eval_seconds)
    print(f"{count} single-turn cases, concurrency {CONCURRENCY}, local OpenAI-wire server (0 latency)")
    print(f"  SDK alone (AsyncOpenAI.create):   {sdk_rate:8.0f} requests/s")
    print(
        f"  run_evals (request + score + row): {eval_rate:8.0f} cases/s  ({eval_seconds / sdk_seconds:.2f}x the SDK's time)"
    )
    print(f"  share of a case's time outside the model call: {outside:.0%}")
    print(f"  run_evals with an offline model (no HTTP, the evaluation's own cost): {offline_rate:8.0f} cases/s")
    print(f"  target >= 500 cases/s: {'met' if eval_rate >= 500 else 'MISSED'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
