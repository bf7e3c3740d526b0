"""Pluggable scoring: what ``run_evals(..., scorers=[...])`` applies to each run.

A scorer is any callable ``scorer(case, transcript)`` with a ``name`` (a function's ``__name__``
will do) that returns one of:

* a bool, or a number from 0 to 1 (it passes at ``scorer.threshold`` or more, default 1.0);
* a ``(score, reason)`` pair, the reason one line saying why (or why not);
* ``None`` or ``(None, reason)``: the scorer does not apply to this case (not counted);
* a :class:`Score`; or an awaitable of any of these (an async scorer).

Built in, by name: ``"calls"`` (BFCL's rules on the calls, the default), ``"final_state"`` (BFCL's
multi-turn state check), and the factories :func:`text_contains`, :func:`text_matches` and
:func:`judge` (an LLM judge through ``workbench.models``, cached with the run's requests). Each
scorer is a column of ``report.results`` and ``report.summary()``; a case passes when every scorer
passes, unless ``pass_if=`` says otherwise (``"any"``, a scorer's name, or a function of the scores).
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from workbench.evals._scoring import Verdict
from workbench.protocols import CachingScorer, NamedScorer, Scorer, ThresholdScorer


@dataclass
class Score:
    """One scorer's verdict on one run: ``value`` (bool, 0–1, or ``None`` when it does not apply),
    ``passed``, the one-line ``reason``; ``verdict`` holds the ``calls`` scorer's detail."""

    value: Union[bool, float, None]
    passed: Optional[bool]
    reason: str = ""
    verdict: Optional[Verdict] = None


def as_score(raw: Any, threshold: float = 1.0, name: str = "scorer") -> Score:
    """A :class:`Score` from what a scorer returned."""
    if isinstance(raw, Score):
        return raw
    if isinstance(raw, Verdict):
        return Score(raw.passed, raw.passed, raw.reason, raw)
    reason = ""
    if isinstance(raw, tuple):
        if len(raw) != 2:
            raise TypeError(f"scorer {name!r} returned a tuple of {len(raw)}; a scorer returns (score, reason)")
        raw, reason = raw
    if raw is None:
        return Score(None, None, str(reason))
    if isinstance(raw, bool):
        return Score(raw, raw, str(reason))
    if isinstance(raw, (int, float)) and 0 <= raw <= 1:
        return Score(float(raw), float(raw) >= threshold, str(reason))
    raise TypeError(
        f"scorer {name!r} returned {raw!r:.80}; a scorer returns a bool, a number from 0 to 1, "
        "(score, reason), a Score or None"
    )


# -- built-in scorers -----------------------------------------------------------------------------------
class CallsScorer:
    """BFCL's rules on the model's calls against ``case.expect_calls`` (or ``expect_no_call``), then
    the case's ``check``; the scoring ``run_evals`` has always done. ``schemas`` maps a tool to its
    parameters schema (``run_evals`` gives the offered tools'); without them, the case's spec dicts."""

    name = "calls"
    threshold = 1.0

    def __call__(self, case: Any, transcript: Any, schemas: Optional[Mapping[str, Any]] = None) -> Any:
        if (
            "calls" not in getattr(case, "default_scorers", ("calls",))
            and not case.expected
            and not case.expect_no_call
        ):
            return None, "the case expects no particular calls"
        from types import SimpleNamespace

        from workbench.evals._jobs import _score

        if schemas is None:
            schemas = {s["name"]: s.get("parameters", {}) for s in case.tools or [] if isinstance(s, dict)}
        # one place scores calls: run_evals' own (it reads only the offer's schemas)
        return _score(case, transcript, SimpleNamespace(schemas=schemas))  # type: ignore[arg-type]


class FinalStateScorer:
    """BFCL's multi-turn checker: after each turn, every instance's state equals the ground truth's and
    the ground truth's results are among the model's (``None`` for a case that is not BFCL multi-turn)."""

    name = "final_state"
    threshold = 1.0

    def __call__(self, case: Any, transcript: Any) -> Any:
        from workbench.evals._bfcl_multi_turn import final_state_score

        return final_state_score(case, transcript)


class _TextScorer:
    threshold = 1.0

    def __init__(self, name: str, test: Callable[[str], bool], describe: str) -> None:
        self.name, self._test, self._describe = name, test, describe

    def __call__(self, case: Any, transcript: Any) -> Any:
        text = transcript.final_text or ""
        if self._test(text):
            return True, ""
        shown = text if len(text) <= 60 else text[:59] + "…"
        return False, f"the final answer {shown!r} {self._describe}"


def text_contains(*texts: str, case_sensitive: bool = False, name: str = "text_contains") -> _TextScorer:
    """Passes when the model's final answer contains every one of ``texts``."""
    if not texts or not all(isinstance(t, str) and t for t in texts):
        raise ValueError("text_contains needs one or more non-empty strings")
    fold = (lambda s: s) if case_sensitive else str.casefold
    wanted = [fold(t) for t in texts]

    def test(text: str) -> bool:
        return all(w in fold(text) for w in wanted)

    return _TextScorer(name, test, f"does not contain {' and '.join(map(repr, texts))}")


def text_matches(pattern: str, flags: int = 0, *, name: str = "text_matches") -> _TextScorer:
    """Passes when the regular expression ``pattern`` is found in the model's final answer."""
    try:
        compiled = re.compile(pattern, flags)
    except (re.error, TypeError) as exc:
        raise ValueError(f"text_matches: {pattern!r} is not a regular expression: {exc}") from None
    return _TextScorer(name, lambda text: compiled.search(text) is not None, f"does not match {pattern!r}")


JUDGE_PROMPT = """You grade one run of an AI assistant that can call tools.

Rubric:
{rubric}

The conversation:
{conversation}

Answer with a JSON object only: {{"score": <a number from 0 to 1>, "reason": "<one line>"}}"""


class Judge:
    """An LLM judge: asks ``model`` to grade the run by ``rubric``; passes at ``threshold``. Its
    requests go through ``workbench.models`` and, in ``run_evals(cache=...)``, through the run's
    request cache like the evaluated model's."""

    def __init__(self, model: Any, rubric: str, *, threshold: float = 0.5, name: str = "judge", **params: Any) -> None:
        if not isinstance(rubric, str) or not rubric.strip():
            raise ValueError("judge needs a rubric: what a good run does, in words")
        if not 0 <= threshold <= 1:
            raise ValueError(f"judge: threshold must be from 0 to 1, got {threshold!r}")
        self.model, self.rubric, self.threshold, self.name, self.params = model, rubric, threshold, name, params

    def cached(self, cache: Any) -> "Judge":
        """This judge with its model's answers kept in (and read from) ``cache``."""
        from workbench.evals._cache import CachedModel
        from workbench.models import get

        model = get(self.model)
        copy = Judge(
            model if isinstance(model, CachedModel) else CachedModel(model, cache),
            self.rubric,
            threshold=self.threshold,
            name=self.name,
            **self.params,
        )
        return copy

    async def __call__(self, case: Any, transcript: Any) -> Any:
        from workbench.models import ModelError, get

        prompt = JUDGE_PROMPT.format(rubric=self.rubric, conversation=_conversation(transcript))
        try:
            turn = await get(self.model).acomplete([{"role": "user", "content": prompt}], **self.params)
        except ModelError as exc:
            return 0.0, f"the judge failed: {exc}"
        return _grade(turn.text)


def judge(model: Any, rubric: str, *, threshold: float = 0.5, name: str = "judge", **params: Any) -> Judge:
    """An LLM judge scorer: ``model`` (a model string or :class:`~workbench.models.Model`) grades
    each run from 0 to 1 by ``rubric``; the run passes at ``threshold`` or more."""
    return Judge(model, rubric, threshold=threshold, name=name, **params)


_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def _grade(text: str) -> tuple[float, str]:
    found = _JSON_OBJECT.search(text or "")
    try:
        data: Any = json.loads(found.group(0)) if found else None
        score = float(data["score"])
    except (ValueError, TypeError, KeyError):
        return 0.0, f"the judge's answer is not a grade: {text[:80]!r}"
    reason = " ".join(str(data.get("reason", "")).split())
    return min(1.0, max(0.0, score)), reason


def _conversation(transcript: Any) -> str:
    lines = []
    for message in transcript.messages:
        role = message.get("role")
        if role in ("user", "system") or (role == "assistant" and message.get("content")):
            lines.append(f"{role}: {message.get('content')}")
        for call in message.get("tool_calls") or []:
            lines.append(f"assistant called {call.get('name')}({json.dumps(call.get('input'), default=str)})")
        for result in message.get("results") or []:
            content = result.get("content") or []
            text = next((b.get("text") for b in content if isinstance(b, dict) and "text" in b), "")
            lines.append(f"tool result ({result.get('status')}): {str(text)[:500]}")
    return "\n".join(lines)


#: the scorers run_evals knows by name
BUILT_IN: dict[str, Callable[[], Any]] = {"calls": CallsScorer, "final_state": FinalStateScorer}


def resolve_scorers(scorers: Any, cases: Sequence[Any], cache: Any = None) -> list[Scorer]:
    """The scorer objects for ``run_evals``: names looked up, default from the cases, names unique,
    judges given the run's cache."""
    if scorers is None:
        names: list[str] = []
        for case in cases:
            for name in getattr(case, "default_scorers", ("calls",)):
                if name not in names:
                    names.append(name)
        scorers = names or ["calls"]
    if isinstance(scorers, (str, bytes)) or callable(scorers):
        scorers = [scorers]
    out = []
    for item in scorers:
        if isinstance(item, str):
            if item not in BUILT_IN:
                raise ValueError(
                    f"unknown scorer {item!r}; built in: {', '.join(BUILT_IN)} "
                    "(or pass text_contains(...), text_matches(...), judge(...) or your own callable)"
                )
            item = BUILT_IN[item]()
        elif not isinstance(item, Scorer):
            raise TypeError(f"a scorer is a callable (case, transcript) -> score, or a built-in name; got {item!r:.80}")
        if cache is not None and isinstance(item, CachingScorer):
            item = item.cached(cache)
        out.append(item)
    names = [scorer_name(s) for s in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"two scorers are named {twice[0]!r}: give one a name= (each scorer is a results column)")
    return out


def scorer_name(scorer: Scorer) -> str:
    """The results column of ``scorer``: its ``name``, a function's ``__name__``, else its class's name."""
    named = scorer.name if isinstance(scorer, NamedScorer) else None
    return str(named or getattr(scorer, "__name__", None) or type(scorer).__name__)


def scorer_threshold(scorer: Scorer) -> float:
    """The score at which ``scorer`` passes: its ``threshold``, else 1.0."""
    return float(scorer.threshold) if isinstance(scorer, ThresholdScorer) else 1.0


async def apply_scorers(
    scorers: Sequence[Scorer], case: Any, transcript: Any, schemas: Mapping[str, Any]
) -> dict[str, Score]:
    """Every scorer's :class:`Score` of one run, by scorer name."""
    out = {}
    for scorer in scorers:
        name = scorer_name(scorer)
        try:
            raw = scorer(case, transcript, schemas) if isinstance(scorer, CallsScorer) else scorer(case, transcript)
            if inspect.isawaitable(raw):
                raw = await raw
            score = as_score(raw, scorer_threshold(scorer), name)
        except Exception as exc:  # noqa: BLE001 - a broken scorer fails its column, named, not the run
            score = Score(False, False, f"scorer raised {type(exc).__name__}: {exc}")
        out[name] = score
    return out


PassIf = Union[str, Callable[[dict], bool]]


def case_passed(scores: dict[str, Score], pass_if: PassIf = "all") -> bool:
    """Whether a run passes: every applicable scorer passes (``"all"``), one does (``"any"``), the
    named scorer does, or ``pass_if(scores)`` says so."""
    applicable = [s.passed for s in scores.values() if s.passed is not None]
    if callable(pass_if):
        return bool(pass_if(scores))
    if pass_if == "all":
        return bool(applicable) and all(applicable)
    if pass_if == "any":
        return any(applicable)
    if pass_if in scores:
        return bool(scores[pass_if].passed)
    raise ValueError(
        f"pass_if must be 'all', 'any', a scorer's name ({', '.join(scores)}) or a function; got {pass_if!r}"
    )


def combined_verdict(transcript: Any, scores: dict[str, Score], pass_if: PassIf = "all") -> Verdict:
    """The run's row verdict: passed by ``pass_if``, the failing scorers' reasons (named when there
    are several scorers), the ``calls`` scorer's counts. A model error fails the run whatever the scores."""
    calls = scores.get("calls")
    base = calls.verdict if calls is not None and calls.verdict is not None else Verdict(False)
    counts: dict[str, Any] = dict(
        true_positives=base.true_positives,
        false_positives=base.false_positives,
        false_negatives=base.false_negatives,
        arguments_ok=base.arguments_ok,
    )
    if transcript.stopped_because == "model_error":
        return Verdict(False, f"model error: {transcript.error}", "model_error", **counts)
    passed = case_passed(scores, pass_if)
    failing = [(name, s) for name, s in scores.items() if s.passed is False]
    if len(scores) == 1:
        reason = next(iter(scores.values())).reason
    else:
        reason = "; ".join(f"{name}: {s.reason}" if s.reason else name for name, s in failing)
    if calls is not None and calls.passed is False and base.error_type:
        error_type = base.error_type
    else:
        error_type = failing[0][0] if failing and not passed else ""
    return Verdict(passed, reason, error_type, **counts)
