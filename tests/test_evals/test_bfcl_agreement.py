"""The scorer agrees with BFCL's own AST checker (``bfcl-eval``) on BFCL's data.

For every case of each category, BFCL's ground truth (first acceptable value of each argument)
and perturbations of it — a wrong value, a missing required argument, an unexpected argument, a
wrong function name, the parallel calls in reverse order, ``[]`` for an optional list, lists sent
as Python tuples, arguments that are not an object — are scored by ``workbench.evals.score_calls``
and by BFCL as its runner scores them (output-format check, then ``ast_checker``; for the
irrelevance categories, "no call" as ``is_empty_output`` reads it), in the environment where
bfcl-eval is installed (see ``bfcl_python``). Every verdict must be the same but the one documented
difference: an irrelevance case answered by a call whose arguments are not an object fails here
(a call attempted is a call) and passes in BFCL (its format check drops the call).
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from workbench.evals import load_bfcl, score_calls
from workbench.evals._bfcl_data import _data_file, _read_jsonl, bfcl_data_dir

CATEGORIES = [
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "irrelevance",
    "live_irrelevance",
]
#: arguments that are not a JSON object, as a model may send them (text, a list, null)
NOT_OBJECTS = ["[]", "none", [], None]
#: (category kind, label) pairs where the verdicts differ on purpose (see the module docstring)
DOCUMENTED = {("irrelevance", "arguments not an object")}
HERE = Path(__file__).resolve().parents[1]


def _pick(value):
    """An answer's first acceptable value, inside objects (and lists of objects) too."""
    if isinstance(value, dict):
        return _first_values(value)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [_pick(v) for v in value]
    return value


def _first_values(arguments: dict) -> dict:
    return {
        k: _pick(v[0]) if isinstance(v, list) else v
        for k, v in arguments.items()
        if v != [] and not (isinstance(v, list) and v[0] == "")
    }


def _wrong(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7919
    if isinstance(value, str):
        return value + " zq wrong"
    if isinstance(value, list):
        return value + [value[0]] if value else ["zq wrong"]
    if isinstance(value, dict):
        return {**value, "zq_wrong": 1}
    return "zq wrong"


def _irrelevance_variants(case):
    """(label, ToolUse list) pairs for a case that expects no call."""
    yield "truth", []
    name = case.tools[0]["name"] if case.tools else "some_tool"  # a few live cases offer no function
    yield "a call", [{"toolUseId": "0", "name": name, "input": {}}]
    for arguments in NOT_OBJECTS:
        yield "arguments not an object", [{"toolUseId": "0", "name": name, "input": arguments}]


def _variants(case, raw_answer):
    """(label, ToolUse list) pairs: the ground truth and its perturbations."""
    if case.expect_no_call:
        yield from _irrelevance_variants(case)
        return
    truth = [
        {"toolUseId": str(i), "name": e.name, "input": _first_values(e.arguments)} for i, e in enumerate(case.expected)
    ]
    yield "truth", truth
    specs = {s["name"]: s["parameters"] for s in case.tools}
    first = truth[0]
    if first["input"]:
        key = next(iter(first["input"]))
        wrong = copy.deepcopy(truth)
        wrong[0]["input"][key] = _wrong(first["input"][key])
        yield "wrong value", wrong
    required = specs[first["name"]].get("required", [])
    if required and required[0] in first["input"]:
        missing = copy.deepcopy(truth)
        del missing[0]["input"][required[0]]
        yield "missing required", missing
    extra = copy.deepcopy(truth)
    extra[0]["input"]["zq_unexpected"] = 1
    yield "extra argument", extra
    other = copy.deepcopy(truth)
    other[0]["name"] = next((s for s in specs if s != first["name"]), first["name"] + "_other")
    yield "wrong function", other
    if len(truth) > 1:
        yield "reversed order", list(reversed(copy.deepcopy(truth)))
    optional_lists = [
        (i, k)
        for i, e in enumerate(case.expected)
        for k, v in e.arguments.items()
        if "" in v and (specs[e.name].get("properties", {}).get(k) or {}).get("type") == "array"
    ]
    if optional_lists:
        empty = copy.deepcopy(truth)
        for i, key in optional_lists:
            empty[i]["input"][key] = []
        yield "empty optional list", empty
    if any(isinstance(v, list) for use in truth for v in use["input"].values()):
        yield (
            "tuples",
            [
                {**use, "input": {k: tuple(v) if isinstance(v, list) else v for k, v in use["input"].items()}}
                for use in truth
            ],
        )
    for arguments in NOT_OBJECTS[:1]:
        yield "arguments not an object", [{**truth[0], "input": arguments}] + copy.deepcopy(truth[1:])


def _json_value(value):
    """``value`` as JSON for the BFCL side: a tuple as ``{"__tuple__": [...]}`` (bfcl_verdicts.py reads it back)."""
    if isinstance(value, tuple):
        return {"__tuple__": [_json_value(v) for v in value]}
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    return value


def _bfcl_output(uses):
    return [{use["name"]: _json_value(use["input"])} for use in uses]


@pytest.fixture(scope="module")
def bfcl_python():
    """A Python that can import bfcl-eval's checker: ``$BFCL_PYTHON``, the ``.venv-bfcl`` environment
    .ci/system-deps builds (bfcl-eval pins numpy 1.26 and a dozen model SDKs, so it gets its own), or this one."""
    import os
    import sys

    candidates = [os.environ.get("BFCL_PYTHON"), str(HERE.parent / ".venv-bfcl" / "bin" / "python"), sys.executable]
    probe = None
    for python in filter(None, candidates):
        if not Path(python).exists():
            continue
        probe = subprocess.run(
            [python, "-c", "import bfcl_eval.eval_checker.ast_eval.ast_checker"], capture_output=True, text=True
        )
        if probe.returncode == 0:
            return python
    pytest.fail(
        "bfcl-eval's checker cannot be imported: run .ci/system-deps (it builds the bfcl-eval "
        "environment) or set BFCL_PYTHON; last error: " + (probe.stderr[-500:] if probe else "no candidate exists")
    )


def _score_category(category):
    """(items for BFCL, our verdicts, labels) for every case and perturbation of ``category``."""
    suite = load_bfcl(category)
    raw = {row["id"]: row for row in _read_jsonl(_data_file(bfcl_data_dir(), category))}
    answers = (
        {}
        if "irrelevance" in category
        else {
            row["id"]: row["ground_truth"]
            for row in _read_jsonl(_data_file(bfcl_data_dir() / "possible_answer", category))
        }
    )
    items, ours, labels = [], [], []
    for case in suite:
        schemas = {s["name"]: s["parameters"] for s in case.tools}
        for label, uses in _variants(case, answers.get(case.id)):
            verdict = score_calls(uses, case.expected, schemas, order="any")
            ours.append(verdict.passed)
            labels.append((case.id, label, verdict.reason))
            items.append(
                {
                    "functions": raw[case.id]["function"],
                    "output": _bfcl_output(uses),
                    "answer": answers.get(case.id),
                    "category": category,
                }
            )
    return len(suite), items, ours, labels


@pytest.fixture(scope="module")
def verdicts(bfcl_python):
    """category → (number of cases, labels, our verdicts, BFCL's verdicts); BFCL runs once for all."""
    scored = {category: _score_category(category) for category in CATEGORIES}
    batch = [item for _, items, _, _ in scored.values() for item in items]
    done = subprocess.run(
        [bfcl_python, str(HERE / "bfcl_verdicts.py")],
        input=json.dumps(batch),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = iter(json.loads(done.stdout))
    return {
        category: (n, labels, ours, [next(theirs) for _ in items])
        for category, (n, items, ours, labels) in scored.items()
    }


@pytest.mark.parametrize("category", CATEGORIES)
def test_verdicts_agree_with_bfcl(category, verdicts):
    cases, labels, ours, theirs = verdicts[category]
    # at least 300 verdicts, or every case and perturbation of the small live_parallel* categories
    assert len(ours) >= min(300, 5 * cases), f"{category}: only {len(ours)} verdicts"
    kind = "irrelevance" if "irrelevance" in category else "ast"
    documented = [i for i in range(len(ours)) if (kind, labels[i][1]) in DOCUMENTED]
    disagreements = [
        (labels[i], ours[i], theirs[i]) for i in range(len(ours)) if ours[i] != theirs[i] and i not in documented
    ]
    assert not disagreements, f"{category}: {len(disagreements)}/{len(ours)} disagree, e.g. {disagreements[:5]}"
    # the documented difference is exactly that: we fail the call, BFCL counts it as none
    assert all((ours[i], theirs[i]) == (False, True) for i in documented), category
    # every ground truth passes, but for the few where BFCL's answer contradicts its own function
    # document (e.g. a required parameter missing from the answer) — BFCL fails those too (checked above)
    failed_truths = [labels[i] for i in range(len(ours)) if labels[i][1] == "truth" and not ours[i]]
    assert len(failed_truths) <= 0.01 * cases, f"{category}: ground truths failed: {failed_truths}"
    assert not all(ours), "no perturbation failed: the test cannot fail"
