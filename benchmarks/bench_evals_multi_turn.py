"""BFCL multi-turn evaluation speed, offline: every entry of the four multi-turn categories run by
``run_evals`` with ``BFCLPlayback`` (BFCL's ground truth played back turn by turn, every call through
the executor into BFCL's executable classes) and scored by ``final_state`` (the replay on fresh
instances). Prints entries/s per category and overall, and the ratio to single-turn BFCL entries/s
(simple_python and multiple, the ground truth answered by an offline model, scored by ``calls``)
measured in the same run. Target: ≥ 50 multi-turn entries/s.

    python benchmarks/bench_evals_multi_turn.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.evals import load_bfcl, run_evals  # noqa: E402
from workbench.evals._bfcl_multi_turn import MULTI_TURN_CATEGORIES  # noqa: E402
from workbench.evals._bfcl_playback import BFCLPlayback  # noqa: E402
from workbench.models import ScriptedModel  # noqa: E402

SINGLE_TURN = ("simple_python", "multiple")


def _first_values(arguments: dict) -> dict:
    return {k: v[0] for k, v in arguments.items() if v and v[0] != ""}


def single_turn_model(suites) -> ScriptedModel:
    """Answers each single-turn case with its ground truth (the first acceptable value of each argument)."""
    answers = {}
    for suite in suites:
        for case in suite:
            answers[case.messages[-1]["content"]] = [
                {"name": e.name, "input": _first_values(e.arguments)} for e in case.expected
            ]

    def answer(messages, tools):
        return {"tool_calls": answers[messages[-1]["content"]]}

    return ScriptedModel([answer], repeat_last=True, name="bfcl-single-turn-truth")


def timed(suite, model, **options) -> tuple[float, float]:
    t0 = time.perf_counter()
    report = run_evals(suite, model, progress=False, **options)
    seconds = time.perf_counter() - t0
    return len(report.results) / seconds, float(report.results["passed"].mean())


def main() -> None:
    single = [load_bfcl(category) for category in SINGLE_TURN]
    model = single_turn_model(single)
    timed(single[0].cases[:20], model)  # warm-up: imports, first specs
    single_rates = [timed(suite, model) for suite in single]
    single_entries = sum(len(s) for s in single)
    single_rate = single_entries / sum(len(s) / rate for s, (rate, _) in zip(single, single_rates))
    print(f"single-turn ({', '.join(SINGLE_TURN)}): {single_entries} entries, {single_rate:.0f} entries/s")

    multi = [load_bfcl(category) for category in MULTI_TURN_CATEGORIES]
    timed(multi[0].cases[:10], BFCLPlayback(multi[0].cases[:10]))  # warm-up: BFCL's classes imported
    seconds = 0.0
    for suite in multi:
        rate, accuracy = timed(suite, BFCLPlayback(suite.cases))
        seconds += len(suite) / rate
        print(f"  {suite.name}: {len(suite)} entries, {rate:.0f} entries/s, accuracy {accuracy:.1%}")
    entries = sum(len(s) for s in multi)
    rate = entries / seconds
    print(
        f"multi-turn (4 categories): {entries} entries, {rate:.0f} entries/s "
        f"({'meets' if rate >= 50 else 'BELOW'} the 50 entries/s target); "
        f"ratio to single-turn: {rate / single_rate:.3f}"
    )


if __name__ == "__main__":
    main()
