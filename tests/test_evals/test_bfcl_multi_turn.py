"""BFCL's multi-turn categories: every entry run through ``run_evals`` (BFCL's executable classes as
tools, through the executor), scored by ``final_state``, and the verdicts compared with bfcl-eval's own
``multi_turn_checker`` on the same model outputs.

The model (``BFCLPlayback``) plays back, per entry, the ground truth and perturbations of it: a call
dropped, two adjacent calls reordered, an argument changed, a stray call added, and the calls of each
turn one per step. BFCL's checker runs in the environment where bfcl-eval is installed (see
``bfcl_python`` in test_evals_bfcl_agreement.py), all entries in one subprocess.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from tests.test_evals.test_bfcl_agreement import bfcl_python  # noqa: F401 - the fixture
from workbench.evals import load_bfcl, run_evals
from workbench.evals._bfcl_data import _data_file, _read_jsonl, bfcl_data_dir
from workbench.evals._bfcl_multi_turn import MULTI_TURN_CATEGORIES, STEP_LIMIT, call_input, call_text
from workbench.evals._bfcl_playback import BFCLPlayback
from workbench.evals._turns import calls_by_turn

HERE = Path(__file__).resolve().parents[1]


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 3
    if isinstance(value, str):
        return value + "_zq"
    if isinstance(value, list):
        return value[:-1] if value else ["zq"]
    if isinstance(value, dict):
        return {**value, "zq": 1}
    return "zq"


def _last_with_calls(turns):
    return max((i for i, turn in enumerate(turns) if turn), default=None)


def perturbations(case):
    """(label, [turn][step] -> calls) for the ground truth and its perturbations."""
    truth = [[call_input(case.involved_classes, text) for text in turn] for turn in case.ground_truth]
    as_steps = lambda turns: [[calls] if calls else [] for calls in turns]  # noqa: E731 - one step per turn
    yield "truth", as_steps(truth)
    yield "one call per step", [[[call] for call in turn] for turn in truth]
    last = _last_with_calls(truth)
    dropped = copy.deepcopy(truth)
    dropped[last].pop()
    yield "drop a call", as_steps(dropped)
    reordered = copy.deepcopy(truth)
    pair = next(
        (
            (t, i)
            for t, turn in enumerate(truth)
            for i in range(len(turn) - 1)
            if turn[i]["name"] != turn[i + 1]["name"]
        ),
        None,
    )
    if pair is not None:
        t, i = pair
        reordered[t][i], reordered[t][i + 1] = reordered[t][i + 1], reordered[t][i]
        yield "reorder calls", as_steps(reordered)
    else:  # no two different calls in one turn: a turn's last call moves to the start of the next turn
        t = next((t for t in range(len(truth) - 1) if truth[t]), None)
        if t is not None:
            reordered[t + 1].insert(0, reordered[t].pop())
            yield "reorder calls", as_steps(reordered)
    changed = copy.deepcopy(truth)
    target = next((c for turn in reversed(changed) for c in turn if c["input"]), None)  # the latest call with one
    if target is not None:
        key = next(iter(target["input"]))
        target["input"][key] = _changed(target["input"][key])
        yield "change an argument", as_steps(changed)
    stray = copy.deepcopy(truth)
    stray[last].append(copy.deepcopy(stray[last][-1]))
    yield "add a stray call", as_steps(stray)


@pytest.fixture(scope="module")
def verdicts(bfcl_python):  # noqa: F811 - the fixture imported above
    """category → [(case id, label, our verdict, our reason, BFCL's verdict)]; BFCL runs once for all."""
    ours, batch = {}, []
    for category in MULTI_TURN_CATEGORIES:
        suite = load_bfcl(category)
        raw = {row["id"]: row for row in _read_jsonl(_data_file(bfcl_data_dir(), category))}
        outputs: dict[str, dict] = {}
        for case in suite:
            variants = list(perturbations(case))
            assert len(variants) == 6, f"{case.id}: only {[label for label, _ in variants]}"
            for label, steps in variants:
                outputs.setdefault(label, {})[case.id] = steps
        models = [BFCLPlayback(suite.cases, per_case, name=label) for label, per_case in outputs.items()]
        report = run_evals(suite, models, scorers=["final_state"], progress=False)
        assert len(report.results) == sum(len(o) for o in outputs.values()) and not report.interrupted
        rows = []
        answers = {case.id: case.ground_truth for case in suite}
        for row in report.results.itertuples():
            transcript = report.transcripts[row.run_id]
            output = [[[call_text(call) for call in step] for step in turn] for turn in calls_by_turn(transcript)]
            entry = {k: raw[row.case][k] for k in ("id", "initial_config", "involved_classes")}
            batch.append({"entry": entry, "output": output, "answer": answers[row.case], "category": category})
            rows.append((row.case, row.model.split(":", 1)[1], bool(row.passed), row.reason))
        ours[category] = rows
    done = subprocess.run(
        [bfcl_python, str(HERE / "bfcl_multi_turn_verdicts.py")],
        input=json.dumps(batch),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = iter(json.loads(done.stdout))
    return {category: [(*row[:3], row[3], next(theirs)) for row in rows] for category, rows in ours.items()}


@pytest.mark.parametrize("category", MULTI_TURN_CATEGORIES)
def test_final_state_agrees_with_bfcl_multi_turn_checker(category, verdicts):
    rows = verdicts[category]
    assert len({case for case, *_ in rows}) == 200, "every entry of the category is checked"
    disagreements = [row for row in rows if row[2] != row[4]]
    assert not disagreements, f"{category}: {len(disagreements)}/{len(rows)} disagree, e.g. {disagreements[:5]}"
    truths = [row for row in rows if row[1] == "truth"]
    assert all(ok for _, _, ok, _, _ in truths), [row for row in truths if not row[2]][:5]
    # one call per step passes too, but where a turn has more calls than BFCL lets a turn take steps
    long_turns = {case.id for case in load_bfcl(category) if any(len(turn) > STEP_LIMIT for turn in case.ground_truth)}
    stepwise = {row[0] for row in rows if row[1] == "one call per step" and not row[2]}
    assert stepwise == long_turns
    for label in ("drop a call", "change an argument", "add a stray call", "reorder calls"):
        failed = [row for row in rows if row[1] == label and not row[2]]
        assert failed, f"no {label!r} perturbation failed: the comparison cannot fail"
        assert all(reason.startswith("turn ") for *_, reason, _ in failed), failed[:3]


class _Recording(BFCLPlayback):
    """The playback, noting the tools offered in each request."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.offered: list[tuple[int, list[str]]] = []

    async def acomplete(self, messages, *, tools=None, tool_choice=None, **params):
        from workbench.models import tool_specs

        users = sum(1 for m in messages if m.get("role") == "user")
        self.offered.append((users - 1, [s.name for s in tool_specs(tools)]))
        return await super().acomplete(messages, tools=tools, tool_choice=tool_choice, **params)


def test_held_out_functions_are_offered_from_the_turn_bfcl_adds_them(tmp_path):
    from workbench import ExecutionLog

    [case] = [c for c in load_bfcl("multi_turn_miss_func", limit=1)]
    assert case.held_out == {3: ["sort"]}
    assert case.user_turns[3] == [
        {"role": "user", "content": "I have updated some more functions you can choose from. What about now?"}
    ]
    model = _Recording([case])
    log = ExecutionLog(tmp_path / "log.sqlite")
    report = run_evals([case], model, progress=False, log=log)
    assert report.results["passed"][0], report.results["reason"][0]
    assert all(("sort" in names) == (turn >= 3) for turn, names in model.offered)
    assert {turn for turn, _ in model.offered} == {0, 1, 2, 3, 4}
    # every call ran through the executor, into the log
    transcript = report.transcripts[report.results["run_id"][0]]
    names = [step.name for step in transcript.tool_steps]
    assert names == ["cd", "mkdir", "mv", "cd", "grep", "sort", "cd", "mv", "cd", "diff"]
    logged = [row for run_id in transcript.settings["turn_run_ids"] for row in log.rows_of_run(run_id)]
    assert [row["tool_name"] for row in logged] == names


def test_a_wrong_turn_is_named_with_what_differs():
    [case] = load_bfcl("multi_turn_base", limit=1)
    truth = [[[call_input(case.involved_classes, text) for text in turn]] for turn in case.ground_truth]
    wrong = copy.deepcopy(truth)
    wrong[0][0] = [call for call in wrong[0][0] if call["name"] != "mkdir"]  # a directory never made
    report = run_evals([case], [BFCLPlayback([case], {case.id: wrong}, name="wrong")], progress=False)
    row = report.results.iloc[0]
    assert not row["passed"] and not row["final_state"]
    assert row["reason"].startswith("turn 0: GorillaFileSystem differs: root.contents["), row["reason"]
    assert row["error_type"] == "final_state" and json.loads(row["expected"]) == case.ground_truth


def test_one_playback_serves_entries_whose_user_turns_coincide():
    """multi_turn_base_12 and multi_turn_miss_func_12 open with the same user message (miss_func holds
    ``cd`` out of it): one playback in one run answers each conversation with its own entry's calls."""
    base = next(c for c in load_bfcl("multi_turn_base") if c.id == "multi_turn_base_12")
    missing = next(c for c in load_bfcl("multi_turn_miss_func") if c.id == "multi_turn_miss_func_12")
    assert base.user_turns[0] == missing.user_turns[0] and base.ground_truth[0] != missing.ground_truth[0]
    report = run_evals([base, missing], BFCLPlayback([base, missing]), progress=False)
    assert report.results["passed"].all(), report.results["reason"].tolist()
    assert report.results["model_error"].isna().all()


def test_math_api_results_reach_the_model_as_numbers():
    suite = load_bfcl("multi_turn_base")
    case = next(c for c in suite if any("logarithm(" in t for turn in c.ground_truth for t in turn))
    report = run_evals([case], BFCLPlayback([case]), progress=False)
    transcript = report.transcripts[report.results["run_id"][0]]
    [step] = [s for s in transcript.tool_steps if s.name == "logarithm"]
    value = step.result.to_dict()["content"][-1]["json"]["result"]
    assert isinstance(value, float) and "mpf" not in step.result.text


@pytest.mark.parametrize(
    "category, why",
    [
        ("simple_java", "Java call syntax"),
        ("simple_javascript", "JavaScript call syntax"),
        ("live_relevance", "no expected answer"),
        ("web_search_base", "live web"),
        ("memory_kv", "memory backends"),
    ],
)
def test_unsupported_categories_say_why(category, why):
    with pytest.raises(ValueError, match=f"BFCL category '{category}' is not supported: .*{why}"):
        load_bfcl(category)
    with pytest.raises(ValueError, match="unknown BFCL category 'multi_turn_nonsense'"):
        load_bfcl("multi_turn_nonsense")
