"""OpenAPI tool call benchmark. A plain script: ``python benchmarks/bench_openapi_calls.py [--quick]``.

The cost of one call of an OpenAPI tool (``GET /hello`` of the tests' FastAPI app, served by uvicorn
in its own process on 127.0.0.1) through ``SequentialExecutor.run`` and as a direct ``tool(...)``
call — each a whole call: base_url check, deadline, size cap, on the tools' pooled client — against
the baseline measured in the same run: the same request with a plain pooled ``httpx.Client``. Every
number is a median over rounds (``time.perf_counter``), the sides measured in alternating rounds so a
busy machine weighs on all alike. (The server runs in another process: with a server thread in this
process every keep-alive request waited ~40 ms here, whatever the client.)
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench import SequentialExecutor, ToolRegistry  # noqa: E402 - after the path fix-up
from workbench.adapters import from_openapi  # noqa: E402


def start_server() -> tuple[subprocess.Popen, str]:
    """uvicorn serving tests/openapi_app.py in a child process, and its URL once it answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "tests.openapi_app:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(url + "/hello", timeout=1)
            return process, url
        except httpx.TransportError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError("the benchmark server did not start") from None
            time.sleep(0.1)


def per_call(fn: Callable[[], Any], calls: int) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args()
    rounds, calls = (3, 20) if args.quick else (7, 50)
    process, url = start_server()
    try:
        with httpx.Client() as client:
            (hello,) = from_openapi(url + "/openapi.json", include=["hello"])
            registry, executor = ToolRegistry([hello]), SequentialExecutor()
            uses = [{"toolUseId": f"u{i}", "name": "hello", "input": {"who": "x"}} for i in range(calls)]
            runs = {
                "httpx.Client().get (pooled) [baseline]": lambda: [
                    client.get(url + "/hello", params={"who": "x"}) for _ in range(calls)
                ],
                "SequentialExecutor().run([... hello ...])": lambda: executor.run(uses, registry),
                "hello(who='x')  (direct call)": lambda: [hello(who="x") for _ in range(calls)],
            }
            hello(who="warm-up")
            times: dict[str, list[float]] = {label: [] for label in runs}
            for _ in range(rounds):
                for label, run in runs.items():
                    times[label].append(per_call(run, calls))
    finally:
        process.terminate()
        process.wait(10)
    medians = {label: statistics.median(values) for label, values in times.items()}
    baseline = medians[next(iter(runs))]
    print(f"one OpenAPI call on 127.0.0.1, median of {rounds} rounds × {calls} calls")
    for label, seconds in medians.items():
        print(f"  {label:45s} {seconds * 1000:8.2f} ms/call  {seconds / baseline:6.2f}× baseline")


if __name__ == "__main__":
    main()
