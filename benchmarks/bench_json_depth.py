"""The JSON depth check (``workbench._json_text.too_deep_at``) against ``json.loads`` of the same text.

A plain script: ``python benchmarks/bench_json_depth.py [--quick]``. For each payload it prints the
check's time and its ratio to ``json.loads`` of the same text, measured in the same run (medians over
rounds, the two sides alternating so a busy machine weighs on both alike):

* adversarial text of about 1 MiB — deep enough to be scanned, then an unterminated string full of
  escaped quotes or backslashes (the old scan restarted at every quote
  of an unterminated string: 16 KiB took 0.6 s, 64 KiB 8.8 s);
* ordinary JSON (an array of records, some nesting) of 1.25, 2.5, 5 and 10 MB: the time per MB
  stays flat when the check is linear.

``json.loads`` rejects the adversarial texts (unterminated string) almost at once, so their ratio is
large by construction; the number to read there is the check's absolute time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any, Callable

from workbench._json_text import MAX_JSON_DEPTH, too_deep_at

MIB = 1024 * 1024


def adversarial(size: int) -> dict[str, str]:
    """Texts the check must scan to the end: more than ``MAX_JSON_DEPTH`` brackets, never that deep
    before the quotes."""
    brackets = "[" * (MAX_JSON_DEPTH + 1)
    return {
        "escaped quotes": '\\"' * (size // 2) + brackets,
        "unterminated string": "[" * MAX_JSON_DEPTH + '"' + '\\"' * (size // 2) + "]" * MAX_JSON_DEPTH,
        "backslashes": '"' + "\\" * size + brackets,
        "many short strings": "[" * 60 + '"a",' * (size // 4) + "]" * 60 + brackets[:60],
        "bracket pairs, then deep": "[]" * (size // 2) + brackets,
        "strings, then deep": '"",' * (size // 3) + brackets,
    }


def ordinary(size: int) -> str:
    """A JSON array of records (strings with escapes and brackets, numbers, nested lists) of about ``size`` bytes."""
    record = {
        "id": 12345,
        "name": 'widget "deluxe" [v2]',
        "tags": ["a", "b", {"k": [1, 2, 3]}],
        "price": 19.99,
        "notes": "line one\nline two {not json}",
        "ok": True,
        "parent": None,
    }
    one = len(json.dumps(record)) + 2
    return json.dumps([record] * max(1, size // one))


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def timed(sides: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, run in sides.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, payloads up to 2.5 MB")
    args = parser.parse_args()
    rounds = 3 if args.quick else 7

    print(f"adversarial text, about 1 MiB (each scanned: more than {MAX_JSON_DEPTH} opening brackets)")
    print(f"  {'payload':<26}{'bytes':>10}{'check ms':>11}{'json.loads ms':>15}{'ratio':>9}")
    for name, text in adversarial(MIB).items():
        medians = timed({"check": lambda: too_deep_at(text), "loads": lambda: _loads(text)}, rounds)
        print(
            f"  {name:<26}{len(text):>10}{medians['check'] * 1e3:>11.2f}{medians['loads'] * 1e3:>15.2f}"
            f"{medians['check'] / medians['loads']:>9.1f}"
        )

    print("\nordinary JSON (an array of records; the check scans it: thousands of brackets)")
    print(f"  {'MB':>6}{'check ms':>11}{'json.loads ms':>15}{'ratio':>9}{'check ms/MB':>13}")
    sizes = [1_250_000, 2_500_000] if args.quick else [1_250_000, 2_500_000, 5_000_000, 10_000_000]
    for size in sizes:
        text = ordinary(size)
        medians = timed({"check": lambda: too_deep_at(text), "loads": lambda: json.loads(text)}, rounds)
        megabytes = len(text) / 1e6
        print(
            f"  {megabytes:>6.2f}{medians['check'] * 1e3:>11.1f}{medians['loads'] * 1e3:>15.1f}"
            f"{medians['check'] / medians['loads']:>9.2f}{medians['check'] * 1e3 / megabytes:>13.2f}"
        )


if __name__ == "__main__":
    main()
