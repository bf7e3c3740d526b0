"""``load_bfcl``: the Berkeley Function Calling Leaderboard's data as an evaluation suite.

The data ships inside the ``bfcl-eval`` package (``bfcl_eval/data``); it is read as files, so
nothing of the leaderboard's model handlers is imported. Function documents become spec-only tools
(BFCL's type dialect normalised to JSON Schema, names made provider-safe as BFCL does for
OpenAI-style models), questions become cases with BFCL's possible answers as ``expect_calls``, and
the irrelevance categories become ``expect_no_call`` cases. The multi-turn categories become
``BFCLMultiTurnCase`` objects that run BFCL's executable classes.
"""

from __future__ import annotations

from typing import Any, Optional

from workbench.evals._bfcl_data import _data_file, _read_jsonl, bfcl_data_dir
from workbench.evals._case import EvalCase, EvalSuite
from workbench.formats._bfcl_schema import bfcl_function_spec, safe_tool_name

#: the categories load_bfcl reads (single-turn AST and relevance categories, and the multi-turn ones)
BFCL_CATEGORIES = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)

#: BFCL categories load_bfcl does not read (by name prefix), and why
UNSUPPORTED_CATEGORIES: dict[str, str] = {
    "simple_java": "its answers are Java call syntax checked against Java types; workbench scores JSON tool calls",
    "simple_javascript": "its answers are JavaScript call syntax checked against JavaScript types; workbench "
    "scores JSON tool calls",
    "live_relevance": "it has no expected answer: BFCL only asks that some call be made, which says nothing of "
    "the call; use live_simple or live_multiple",
    "web_search": "its WebSearchAPI searches the live web (an online search service with a key), which an "
    "offline, repeatable evaluation cannot reach",
    "memory": "its memory backends need BFCL's prerequisite conversations run first and, for the vector "
    "backend, an embedding model",
    "format_sensitivity": "BFCL does not score it (it varies the prompt format of other categories)",
    "multi_turn_composite": "BFCL has not released its data",
}


def _messages(question: Any) -> list[dict[str, Any]]:
    """BFCL's ``question`` (a list of turns, each a list of messages) → one message list (first turn)."""
    turn = question[0] if question and isinstance(question[0], list) else question
    return [{"role": m["role"], "content": m["content"]} for m in turn]


def _expected(ground_truth: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"name": safe_tool_name(name), "arguments": arguments}
        for call in ground_truth
        for name, arguments in call.items()
    ]


def load_bfcl(category: str, limit: Optional[int] = None) -> EvalSuite:
    """BFCL's ``category`` (one of :data:`BFCL_CATEGORIES`) as a suite of its first ``limit`` entries.

    Single-turn: each case offers its own function documents as spec-only tools (``case.tools`` holds
    their spec dicts). Multi-turn (``multi_turn_base``, ``_miss_func``, ``_miss_param``,
    ``_long_context``): each case runs fresh instances of BFCL's executable classes as real tools,
    asks the user turns in order and is scored by ``final_state``. A category BFCL has but this
    does not support (:data:`UNSUPPORTED_CATEGORIES`) raises ``ValueError`` saying why."""
    if category not in BFCL_CATEGORIES:
        prefix = max((p for p in UNSUPPORTED_CATEGORIES if category.startswith(p)), key=len, default=None)
        if prefix is not None:
            why = UNSUPPORTED_CATEGORIES[prefix]
            raise ValueError(
                f"BFCL category {category!r} is not supported: {why}. Supported: {', '.join(BFCL_CATEGORIES)}"
            )
        raise ValueError(f"unknown BFCL category {category!r}; known: {', '.join(BFCL_CATEGORIES)}")
    if category.startswith("multi_turn_"):
        from workbench.evals._bfcl_multi_turn import load_multi_turn

        return load_multi_turn(category, limit)
    folder = bfcl_data_dir()
    answers: dict[str, Any] = {}
    answer_folder = folder / "possible_answer"
    if "irrelevance" not in category:
        answers = {row["id"]: row["ground_truth"] for row in _read_jsonl(_data_file(answer_folder, category))}
    cases: list[Any] = []
    for row in _read_jsonl(_data_file(folder, category)):
        if limit is not None and len(cases) >= limit:
            break
        specs = [bfcl_function_spec(doc) for doc in row["function"]]
        common = dict(id=row["id"], messages=_messages(row["question"]), tools=specs, tags=(category,))
        if "irrelevance" in category:
            cases.append(EvalCase(**common, expect_no_call=True))
        else:
            cases.append(EvalCase(**common, expect_calls=_expected(answers[row["id"]])))
    return EvalSuite(name=f"bfcl:{category}", cases=cases)
