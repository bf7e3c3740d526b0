"""OpenAPI adapter benchmark (issue #21). A plain script: ``python benchmarks/bench_openapi.py [--quick]``.

Adapting 1,000 OpenAPI operations: ``from_openapi(doc)`` on a generated OpenAPI 3.1 document of
500 paths × (GET with path, query and header parameters; POST with a ``$ref`` JSON body), printed
as the total time and the cost per operation, against the baseline measured in the same run:
``openapi-spec-validator``'s own ``validate(doc)`` (whose 3.1 meta-schema step from_openapi runs
faster, see ``workbench.adapters.openapi._spec_validator``); and its parts: ``validate="schema"``
(meta-schema check only) and ``validate=False`` (the conversion alone). Every number is a median over rounds
(``time.perf_counter``), the sides measured in alternating rounds so a busy machine weighs on all alike.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from typing import Any, Callable

from openapi_spec_validator import validate

from workbench.adapters import from_openapi


def document(paths: int) -> dict[str, Any]:
    """An OpenAPI 3.1 document with ``2 * paths`` operations."""
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "Generated", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {},
        "components": {
            "schemas": {
                "Item": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "name": {"type": "string"},
                        "price": {"type": "number", "minimum": 0},
                        "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}},
                    },
                },
                "Tag": {"type": "string", "maxLength": 20},
            }
        },
    }
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}
    for i in range(paths):
        doc["paths"][f"/things{i}/{{thing_id}}"] = {
            "get": {
                "operationId": f"get_thing_{i}",
                "summary": f"Get thing {i}",
                "parameters": [
                    {"name": "thing_id", "in": "path", "required": True, "schema": {"type": "integer"}},
                    {"name": "q", "in": "query", "schema": {"type": "string"}, "description": "a filter"},
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 10}},
                    {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": ok,
            },
            "post": {
                "operationId": f"update_thing_{i}",
                "description": f"Update thing {i}",
                "parameters": [{"name": "thing_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}},
                },
                "responses": ok,
            },
        }
    return doc


def median_seconds(fn: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args()
    rounds = 3 if args.quick else 7
    doc = document(500)
    operations = sum(len(item) for item in doc["paths"].values())
    assert len(from_openapi(doc)) == operations == 1000
    runs = {
        "openapi-spec-validator validate(doc) [baseline]": lambda: validate(doc),
        "from_openapi(doc)  (full check)": lambda: from_openapi(doc),
        "from_openapi(doc, validate='schema')": lambda: from_openapi(doc, validate="schema"),
        "from_openapi(doc, validate=False)  (conversion)": lambda: from_openapi(doc, validate=False),
    }
    rounds_of: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(rounds):  # alternating
        for label, run in runs.items():
            rounds_of[label].append(median_seconds(run, 1))
    medians = {label: statistics.median(times) for label, times in rounds_of.items()}
    baseline = medians[next(iter(runs))]
    print(f"adapting {operations:,} OpenAPI operations (median of {rounds} rounds)")
    for label, seconds in medians.items():
        print(
            f"  {label:<50} {seconds * 1e3:9.1f} ms  {seconds / operations * 1e6:9.1f} µs/operation"
            f"  {seconds / baseline:5.2f}x baseline"
        )


if __name__ == "__main__":
    main()
