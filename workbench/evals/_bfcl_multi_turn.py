"""BFCL's multi-turn categories: cases that run BFCL's executable API classes as real tools, and
scoring by the final state, as BFCL's multi-turn checker scores.

Each case runs against fresh instances of the classes its entry involves (``GorillaFileSystem``,
``TradingBot``, ``MathAPI``…, shipped in ``bfcl-eval``), loaded from the entry's ``initial_config``;
their methods are offered as tools (BFCL's function documents as their schemas) and every call runs
through the executor and the log. The user turns are asked in order, each turn running the loop until
the model answers without a call (BFCL's limit: 20 steps, then the run stops); the functions BFCL
holds out (``multi_turn_miss_func``) are offered from the turn BFCL adds them, which asks BFCL's
own "I have updated some more functions…" message.

Scoring (:func:`final_state_score`) restates ``bfcl_eval``'s ``multi_turn_checker``: the model's
calls and the ground truth are replayed turn by turn on two fresh sets of instances; after each turn
with expected calls, the model must have made a call, every instance's public state must equal the
ground truth's, and every result of the turn's ground-truth calls must be among the results of the
model's calls so far. One deliberate difference: a call the executor refused (unknown tool, arguments
that break the function's document) never ran, so it is not replayed; BFCL's checker would run it.
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Optional

from workbench.evals._case import EvalCase
from workbench.evals._turns import arun_turns, calls_by_turn, turns_started
from workbench.registry import ToolRegistry

#: the multi-turn categories :func:`~workbench.evals.load_bfcl` reads
MULTI_TURN_CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")

#: what BFCL asks in the turn that adds held-out functions (its turn has no message of its own)
ADDED_FUNCTIONS_PROMPT = "I have updated some more functions you can choose from. What about now?"

#: model steps a user turn may take: BFCL stops a turn after its 21st step with calls (its
#: MAXIMUM_STEP_LIMIT, 20, is checked after each step) and the run with it
STEP_LIMIT = 21

_DOC_FOLDER = "multi_turn_func_doc"


def _config() -> Any:
    from bfcl_eval.constants import executable_backend_config

    return executable_backend_config


@cache
def api_class(name: str) -> type:
    """BFCL's executable class ``name`` (``"GorillaFileSystem"``…), imported from ``bfcl-eval``."""
    config = _config()
    if name not in config.CLASS_FILE_PATH_MAPPING:
        raise ValueError(f"BFCL has no executable class {name!r}; known: {', '.join(config.CLASS_FILE_PATH_MAPPING)}")
    return getattr(importlib.import_module(config.CLASS_FILE_PATH_MAPPING[name]), name)


@cache
def function_docs(class_name: str) -> tuple[dict[str, Any], ...]:
    """BFCL's function documents of ``class_name``'s methods."""
    from workbench.evals._bfcl_data import _read_jsonl, bfcl_data_dir

    path = bfcl_data_dir() / _DOC_FOLDER / _config().MULTI_TURN_FUNC_DOC_FILE_MAPPING[class_name]
    return tuple(_read_jsonl(path))


@cache
def _spec(class_name: str, function: str, strict: bool = False) -> Any:
    """The tool spec of one of BFCL's functions: its document as the schema the model sees. Unless
    ``strict``, the executor passes any arguments object through, as BFCL calls its methods: the
    method itself refuses what it cannot take (a ``TypeError``, which the model gets as the result)."""
    from workbench.formats._bfcl_schema import bfcl_function_spec
    from workbench.spec import ToolSpec

    doc = next(d for d in function_docs(class_name) if d["name"] == function)
    spec = ToolSpec(**bfcl_function_spec(doc))
    if not strict:
        spec._input_validator = _as_bfcl_checks
    return spec


def _as_bfcl_checks(tool_name: str, raw: Any) -> dict:
    from workbench._errors import ToolInputError

    if type(raw) is not dict:
        raise ToolInputError(
            tool_name,
            [
                {
                    "path": "$",
                    "field": "",
                    "expected": "object",
                    "received": type(raw).__name__,
                    "message": f"the arguments must be a JSON object, not {type(raw).__name__}",
                }
            ],
        )
    return raw


@cache
def _public_methods(cls: type) -> tuple[str, ...]:
    return tuple(name for name, _ in inspect.getmembers(cls, inspect.isfunction) if not name.startswith("_"))


def new_instances(initial_config: dict, involved_classes: list[str], long_context: bool = False) -> dict[str, Any]:
    """Fresh instances of ``involved_classes``, each loaded from its part of ``initial_config`` (as BFCL does)."""
    stateless = _config().STATELESS_CLASSES
    instances = {}
    for name in involved_classes:
        instance = api_class(name)()
        if name not in stateless:
            instance._load_scenario(copy.deepcopy(initial_config.get(name, {})), long_context=long_context)
        instances[name] = instance
    return instances


def _methods(instances: dict[str, Any]) -> dict[str, Any]:
    """Method name → bound method, over every instance (BFCL's classes share no method name)."""
    return {
        name: getattr(instance, name)
        for instance in instances.values()
        for name in _public_methods(type(instance))  # type: ignore[arg-type]  # a class is hashable; mypy reads type[Any] as not
    }


# -- cases -----------------------------------------------------------------------------------------------
@dataclass
class BFCLMultiTurnCase(EvalCase):
    """One entry of a BFCL multi-turn category. ``user_turns``: the messages of each user turn (the
    first is ``messages``); ``ground_truth``: BFCL's calls per turn (Python call text);
    ``held_out``: turn index → the functions offered from that turn on; ``long_context``: the
    instances load BFCL's long-context state. Arguments reach the methods as BFCL passes them
    (unchecked: a method refuses what it cannot take); ``strict_arguments=True`` has the executor
    check them against the function documents first. Scored by ``final_state`` by default."""

    user_turns: list[list[dict[str, Any]]] = field(default_factory=list)
    initial_config: dict[str, Any] = field(default_factory=dict)
    involved_classes: list[str] = field(default_factory=list)
    ground_truth: list[list[str]] = field(default_factory=list)
    held_out: dict[int, list[str]] = field(default_factory=dict)
    long_context: bool = False
    strict_arguments: bool = False

    default_scorers: ClassVar[tuple[str, ...]] = ("final_state",)

    def new_session(self) -> "BFCLSession":
        """Fresh instances and their methods as tools."""
        return BFCLSession(self)

    async def arun(
        self, model: Any, *, executor: Any = None, log: Any = None, tool_choice: Any = None, **params: Any
    ) -> Any:
        """Ask the user turns in order against a fresh session; the transcript of the whole conversation.
        The calls of one step run in order (a ``SequentialExecutor`` unless ``executor`` is given), as BFCL runs them."""
        session = self.new_session()
        return await arun_turns(
            model,
            self.user_turns,
            session.tools_for,
            executor=executor or _sequential(),
            log=log,
            step_limit=STEP_LIMIT,
            tool_choice=tool_choice,
            **params,
        )

    def expected_text(self) -> str:
        return json.dumps(self.ground_truth)


_SEQUENTIAL: list[Any] = []


def _sequential() -> Any:
    if not _SEQUENTIAL:
        from workbench.executor import SequentialExecutor

        _SEQUENTIAL.append(SequentialExecutor())
    return _SEQUENTIAL[0]


def _isolated(method: Any) -> Any:
    """``method`` called with a copy of its arguments: BFCL's methods keep the lists they are given
    (``post_tweet``'s ``mentions`` becomes the tweet's, which ``mention`` extends), and the call's
    input must stay what the model sent, in the transcript and the log."""
    from workbench._json_copy import copy_json

    def call(**arguments: Any) -> Any:
        return method(**copy_json(arguments))

    call.__name__ = call.__qualname__ = method.__name__
    call.__doc__ = method.__doc__
    return call


class BFCLSession:
    """One run's instances, their methods as tools, and the registry of each turn: it shows the model
    the functions offered so far, and runs a call of any of the case's functions — a held-out one
    too, before its turn, as BFCL's executor knows every method of the classes."""

    def __init__(self, case: BFCLMultiTurnCase) -> None:
        from workbench.tools import DecoratedFunctionTool

        self.case = case
        self.instances = new_instances(case.initial_config, case.involved_classes, case.long_context)
        self.tools = {
            doc["name"]: DecoratedFunctionTool(
                _isolated(getattr(instance, doc["name"])), _spec(name, doc["name"], case.strict_arguments)
            )
            for name, instance in self.instances.items()
            for doc in function_docs(name)
        }
        self._hidden = {f for names in case.held_out.values() for f in names}
        self._registries: dict[frozenset, Any] = {}

    def offered(self, turn: int) -> list[str]:
        """The functions shown in ``turn``: all but those held out until a later turn."""
        shown = {f for t, names in self.case.held_out.items() if t <= turn for f in names}
        return [name for name in self.tools if name not in self._hidden or name in shown]

    def tools_for(self, turn: int) -> Any:
        names = self.offered(turn)
        key = frozenset(names)
        if key not in self._registries:
            registry = _TurnRegistry([self.tools[n].spec for n in names])
            for tool in self.tools.values():
                registry.register_tool(tool)
            self._registries[key] = registry
        return self._registries[key]


class _TurnRegistry(ToolRegistry):
    """Every tool of the session, but only the offered ones' specs shown to the model."""

    def __init__(self, offered: list) -> None:
        super().__init__()
        self.offered_specs = offered

    def get_all_tool_specs(self) -> list:
        return list(self.offered_specs)


# -- BFCL's call text ------------------------------------------------------------------------------------
def parse_call(text: str) -> tuple[str, list[Any], dict[str, Any]]:
    """``"cd(folder='document')"`` → ``("cd", [], {"folder": "document"})`` (literal arguments only)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError("not a call of a function by name")
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
    except (SyntaxError, ValueError) as exc:
        raise ValueError(f"BFCL call {text!r:.120} cannot be read: {exc}") from None
    return node.func.id, args, kwargs


def call_input(class_names: list[str], text: str) -> dict[str, Any]:
    """A ToolUse (``name``, ``input``) for BFCL's call text, positional arguments named by the method's signature."""
    name, args, kwargs = parse_call(text)
    cls = next((api_class(c) for c in class_names if name in _public_methods(api_class(c))), None)
    if args:
        if cls is None:
            raise ValueError(f"BFCL call {text!r:.120}: none of {class_names} has a method {name!r}")
        params = [p for p in inspect.signature(getattr(cls, name)).parameters if p != "self"]
        kwargs = {**dict(zip(params, args)), **kwargs}
    return {"name": name, "input": kwargs}


def call_text(call: dict[str, Any]) -> str:
    """A ToolUse as BFCL's call text (what its handlers make of a function-calling model's call)."""
    arguments = call.get("input") or {}
    return f"{call.get('name')}({','.join(f'{k}={v!r}' for k, v in arguments.items())})"


def result_text(value: Any) -> str:
    """A method's return value as BFCL's checker compares it: strings as they are, dicts as JSON
    (``str`` when JSON cannot hold them), anything else by ``str``."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except Exception:  # noqa: BLE001 - BFCL's own fallback (an mpf in a dict…)
            return str(value)
    return str(value)


def _execute(methods: dict[str, Any], name: str, args: list[Any], kwargs: dict[str, Any]) -> str:
    method = methods.get(name)
    try:
        if method is None:
            raise NameError(f"name '{name}' is not defined")
        value = method(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - as BFCL: the error is the call's result
        return f"Error during execution: {exc}"
    return result_text(value)


# -- scoring ---------------------------------------------------------------------------------------------
def _short(value: Any, limit: int = 70) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _state_difference(model: Any, truth: Any) -> Optional[str]:
    """Where ``model``'s public state first differs from ``truth``'s (BFCL compares every public
    attribute with ``==``), as ``path is X, expected Y``; None when it does not."""
    differing = [
        attr for attr in vars(truth) if not attr.startswith("_") and getattr(model, attr, None) != getattr(truth, attr)
    ]
    if not differing:
        return None
    more = f" (and {len(differing) - 1} more attributes)" if len(differing) > 1 else ""
    return (
        _first_difference(getattr(model, differing[0], None), getattr(truth, differing[0]), differing[0], set()) + more
    )


def _first_difference(model: Any, truth: Any, path: str, seen: set) -> str:
    """The first place below ``path`` where two unequal values differ (dicts by key, lists by item,
    objects by public attribute; a back-reference already walked is not walked again)."""
    if isinstance(truth, dict) and isinstance(model, dict):
        for key in truth:
            if key not in model:
                return f"{path}[{key!r}] is missing"
            if model[key] != truth[key]:
                return _first_difference(model[key], truth[key], f"{path}[{key!r}]", seen)
        extra = next(k for k in model if k not in truth)
        return f"{path}[{extra!r}] is unexpected ({_short(model[extra], 50)})"
    if isinstance(truth, (list, tuple)) and isinstance(model, (list, tuple)) and len(model) == len(truth):
        index = next(i for i, (a, b) in enumerate(zip(model, truth)) if a != b)
        return _first_difference(model[index], truth[index], f"{path}[{index}]", seen)
    if type(model) is type(truth) and hasattr(truth, "__dict__") and id(truth) not in seen:
        seen.add(id(truth))
        for attr, value in vars(truth).items():
            if not attr.startswith("_") and id(value) not in seen and getattr(model, attr, None) != value:
                return _first_difference(getattr(model, attr, None), value, f"{path}.{attr}", seen)
    if isinstance(truth, (list, tuple)) and isinstance(model, (list, tuple)):
        return f"{path} has {len(model)} items, expected {len(truth)}"
    return f"{path} is {_short(model)}, expected {_short(truth)}"


def final_state_score(case: Any, transcript: Any) -> tuple[Optional[bool], str]:
    """BFCL's multi-turn verdict on ``transcript`` (see the module's docstring), with a one-line
    reason (``"turn 2: GorillaFileSystem differs: …"``); ``None`` for a case that is not BFCL multi-turn."""
    from workbench._json_copy import copy_json

    if not isinstance(case, BFCLMultiTurnCase):
        return None, "not a BFCL multi-turn case"
    expected_turns = len(case.ground_truth)
    reached = turns_started(transcript)
    if reached < expected_turns:
        why = (
            "it took more than 20 steps"
            if transcript.stopped_because == "max_turns"
            else f"{transcript.stopped_because}: {transcript.error}"
            if transcript.error
            else transcript.stopped_because
        )
        return False, f"turn {reached - 1}: the run stopped ({why}) before turn {reached}"
    made = calls_by_turn(transcript)
    ran = calls_by_turn(transcript, ran_only=True)
    model = new_instances(case.initial_config, case.involved_classes, case.long_context)
    truth = new_instances(case.initial_config, case.involved_classes, case.long_context)
    model_methods, truth_methods = _methods(model), _methods(truth)
    results: Counter = Counter()
    for turn, expected in enumerate(case.ground_truth):
        for step in ran[turn]:
            for call in step:
                results[_execute(model_methods, str(call.get("name")), [], copy_json(call.get("input") or {}))] += 1
        truth_results = []
        for text in expected:
            name, args, kwargs = parse_call(text)
            truth_results.append((text, _execute(truth_methods, name, args, kwargs)))
        if not expected:
            continue
        if not made[turn]:
            return False, f"turn {turn}: no call made; expected {', '.join(expected)}"
        for class_name, instance in truth.items():
            difference = _state_difference(model[class_name], instance)
            if difference is not None:
                return False, f"turn {turn}: {class_name} differs: {difference}"
        missing = Counter(r for _, r in truth_results) - results
        if missing:
            text, result = next((t, r) for t, r in truth_results if r in missing)
            return False, f"turn {turn}: no call gave the result of {text} ({_short(result, 60)})"
    return True, ""


# -- loading ---------------------------------------------------------------------------------------------
def load_multi_turn(category: str, limit: Optional[int] = None) -> Any:
    """BFCL's multi-turn ``category`` as a suite of :class:`BFCLMultiTurnCase` (see ``load_bfcl``)."""
    from workbench.evals._bfcl_data import _data_file, _read_jsonl, bfcl_data_dir
    from workbench.evals._case import EvalSuite

    folder = bfcl_data_dir()
    answers = {row["id"]: row["ground_truth"] for row in _read_jsonl(_data_file(folder / "possible_answer", category))}
    cases: list[EvalCase] = []
    for row in _read_jsonl(_data_file(folder, category)):
        if limit is not None and len(cases) >= limit:
            break
        held_out = {int(turn): list(names) for turn, names in (row.get("missed_function") or {}).items()}
        turns = [
            [{"role": m["role"], "content": m["content"]} for m in turn]
            if turn or index not in held_out
            else [{"role": "user", "content": ADDED_FUNCTIONS_PROMPT}]
            for index, turn in enumerate(row["question"])
        ]
        cases.append(
            BFCLMultiTurnCase(
                id=row["id"],
                messages=turns[0],
                tags=(category,),
                user_turns=turns,
                initial_config=row.get("initial_config") or {},
                involved_classes=list(row["involved_classes"]),
                ground_truth=answers[row["id"]],
                held_out=held_out,
                long_context="long_context" in category,
            )
        )
    return EvalSuite(name=f"bfcl:{category}", cases=cases)
