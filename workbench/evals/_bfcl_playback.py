"""``BFCLPlayback``: an offline model that plays back calls for BFCL multi-turn cases, turn by turn.

By default it plays BFCL's ground truth (each turn's calls in one step, which the executor runs in
order), so a run of it scores 100% — a check of the set-up, and the baseline the multi-turn benchmark
times. Other outputs (``{case id: [turn][step] -> [{"name", "input"}]}``) play a model's answers
again. The model finds the case from the conversation's user messages — in ``run_evals``, from the job's
case first, as entries of two categories may share user turns (``multi_turn_base_12`` and
``multi_turn_miss_func_12`` open alike) — so one instance serves a whole suite (cases run
concurrently, each conversation answered on its own).
"""

from __future__ import annotations

import json
from typing import Any, Optional, Sequence

from workbench.evals._jobs import conversation_case
from workbench.models import Model, ModelError, ModelTurn
from workbench.models._base import conversation_key

Steps = list[list[list[dict[str, Any]]]]


class BFCLPlayback(Model):
    """Plays ``outputs`` (default: the ground truth) for the BFCL multi-turn ``cases``; after a turn's
    last step it answers ``"Done."`` without a call."""

    provider = "replay"

    def __init__(
        self, cases: Sequence[Any], outputs: Optional[dict[str, Steps]] = None, *, name: str = "bfcl-ground-truth"
    ) -> None:
        from workbench.evals._bfcl_multi_turn import call_input

        self.name = name
        self.outputs: dict[str, Steps] = {}
        self._by_turns: dict[tuple[str, ...], list[str]] = {}
        for case in cases:
            if outputs is not None and case.id in outputs:
                self.outputs[case.id] = outputs[case.id]
            else:
                self.outputs[case.id] = [
                    [[call_input(case.involved_classes, text) for text in turn]] if turn else []
                    for turn in case.ground_truth
                ]
            users = [
                str(next((m.get("content") for m in turn if m.get("role") == "user"), "")) for turn in case.user_turns
            ]
            for k in range(1, len(users) + 1):
                self._by_turns.setdefault(tuple(users[:k]), []).append(case.id)

    def _answer(self, case_id: str, turn: int, step: int) -> Optional[list[dict[str, Any]]]:
        turns = self.outputs[case_id]
        steps = turns[turn] if turn < len(turns) else []
        return steps[step] if step < len(steps) else None

    async def acomplete(
        self, messages: Sequence[dict], *, tools: Any = None, tool_choice: Any = None, **params: Any
    ) -> ModelTurn:
        users = [str(m.get("content")) for m in messages if m.get("role") == "user"]
        after_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
        step = sum(1 for m in messages[after_user + 1 :] if m.get("role") == "assistant")
        candidates = self._by_turns.get(tuple(users), [])
        job_case = conversation_case(conversation_key.get())
        if job_case in candidates:  # run_evals names the case: user turns alone may fit several
            candidates = [job_case]
        answers = {json.dumps(self._answer(c, len(users) - 1, step), sort_keys=True) for c in candidates}
        if len(answers) != 1:
            why = (
                "no case of this model has these user turns"
                if not candidates
                else f"cases {candidates} share these user turns but not their answers"
            )
            raise ModelError(
                f"BFCLPlayback '{self.name}': {why}", kind="replay_mismatch", provider=self.provider, model=self.name
            )
        calls = json.loads(answers.pop())
        if not calls:
            return ModelTurn(text="Done.", stop_reason="end_turn", model=self.id)
        # without ids: the agent loop gives each call its toolUseId
        return ModelTurn(
            tool_calls=[{"name": c["name"], "input": c.get("input") or {}} for c in calls],  # type: ignore[typeddict-item]
            stop_reason="tool_use",
            model=self.id,
        )
