"""Form benchmarks (issue #13). A plain script: ``python benchmarks/bench_form.py [--quick]``.

Targets: a 50-field form ≤ 60 ms to build and display; a form over a deep nested model (5 levels of
``BaseModel``, arrays of objects at some levels) ≤ 60 ms.

"Build and display" is measured without a frontend as what ``display(form)`` costs in a kernel: every
widget's comm is a recording comm that JSON-encodes each message it would send (the comm-open with the
widget's full state, and every state update made while the form is built), as the kernel's session
would; then the form's ``_repr_mimebundle_()`` (the display data). Widgets made for parts the first
paint does not show (a collapsed section, list rows not yet added) count only if they are built.

1. 50 fields of mixed types (str, int, float, bool, Literal, Optional[...], list[str], date, datetime…),
   half of them required.
2. A deep nested model: 5 levels of nested ``BaseModel``, with ``list[Item]`` at some levels.
3. Widgets and messages per form.
4. JSON → Form with a 300-item list of a model (#22 defect 4; target ≤ 1 s): the first page (20 rows, fewer
   for big rows) is built, the rest wait behind "show more"; the ratio is against building all 300 rows in
   the same run (``bench_large_list.py`` breaks it down: widgets, messages, page sizes).

Every number is a median measured in this run; nothing asserts on time.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import gc
import json
import statistics
import sys
import time
from typing import Any, Callable, Iterator, Literal, Optional

import comm
import ipywidgets as W
import pydantic
from comm.base_comm import BaseComm
from ipywidgets.widgets.widget import _instances
from pydantic import BaseModel

from workbench import tool
from workbench.jupyter import ToolForm

TARGET_MS = 60.0


class RecordingComm(BaseComm):
    """A comm that serialises what it would send (as a kernel's session does) and counts it."""

    messages = 0
    sent_bytes = 0

    def publish_msg(
        self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any
    ) -> None:
        text = json.dumps({"msg_type": msg_type, "data": data, "metadata": metadata}, default=str)
        RecordingComm.messages += 1
        RecordingComm.sent_bytes += len(text)


@contextlib.contextmanager
def recording() -> Iterator[None]:
    """Every widget made inside gets a ``RecordingComm``."""
    saved = comm.create_comm
    comm.create_comm = lambda *args, **kwargs: RecordingComm(*args, **kwargs)
    try:
        yield
    finally:
        comm.create_comm = saved


# -- the tools -----------------------------------------------------------------------------------------
_FIELD_TYPES = [  # (annotation, default or None for a required field)
    ("str", None),
    ("int", "3"),
    ("float", None),
    ("bool", "False"),
    ("Literal['a', 'b', 'c']", None),
    ("Optional[str]", "None"),
    ("int", None),
    ("list[str]", "[]"),
    ("dt.date", None),
    ("str", "'x'"),
    ("Optional[int]", None),
    ("float", "1.5"),
    ("dt.datetime", None),
    ("Literal[1, 2, 3]", "2"),
    ("bool", None),
    ("list[int]", None),
    ("Optional[float]", "None"),
    ("str", None),
    ("int", "0"),
    ("Literal['x', 'y']", "'x'"),
]


def fifty_field_tool(count: int = 50) -> Any:
    """A tool with ``count`` parameters cycling through ``_FIELD_TYPES`` (half required)."""
    params = []
    rows = [_FIELD_TYPES[i % len(_FIELD_TYPES)] for i in range(count)]
    required = [f"p{i}: {ann}" for i, (ann, default) in enumerate(rows) if default is None]
    optional = [f"p{i}: {ann} = {default}" for i, (ann, default) in enumerate(rows) if default is not None]
    params = required + optional
    namespace: dict[str, Any] = {"Optional": Optional, "Literal": Literal, "dt": dt}
    exec(
        f"def fifty({', '.join(params)}) -> dict:\n    '''A form with {count} fields.'''\n    return {{}}\n", namespace
    )
    return tool(namespace["fifty"])


class Level5(BaseModel):
    code: str
    weight: float = 1.0
    active: bool = True


class Level4(BaseModel):
    name: str
    leaf: Level5
    leaves: list[Level5] = []
    kind: Literal["a", "b"] = "a"


class Level3(BaseModel):
    title: str
    child: Level4
    count: int = 0
    tags: list[str] = []


class Level2(BaseModel):
    label: str
    child: Level3
    items: list[Level3] = []
    note: Optional[str] = None


class Level1(BaseModel):
    name: str
    child: Level2
    groups: list[Level2] = []
    when: Optional[dt.date] = None


def deep_tool() -> Any:
    @tool
    def deep(root: Level1, limit: int = 10) -> dict:
        """A form over a model nested 5 levels deep, with arrays of objects."""
        return {}

    return deep


# -- measuring -----------------------------------------------------------------------------------------
def build_and_display(tool_: Any) -> ToolForm:
    form = ToolForm(tool_)
    bundle = form._repr_mimebundle_()
    assert bundle and "application/vnd.jupyter.widget-view+json" in bundle
    return form


def measure(make: Callable[[], Any], rounds: int) -> tuple[float, int, int, int]:
    """(median ms to build and display a form, widgets made, messages sent, bytes sent) for a fresh tool each round."""
    timings, widgets, messages, sent = [], 0, 0, 0
    with recording():
        build_and_display(make())  # warm-up: imports, anywidget modules, compiled validators of one tool
        for _ in range(rounds):
            tool_ = make()
            tool_.spec  # the schema is the tool's cost, not the form's
            gc.collect()
            before = len(_instances)
            RecordingComm.messages = RecordingComm.sent_bytes = 0
            start = time.perf_counter()
            form = build_and_display(tool_)
            timings.append((time.perf_counter() - start) * 1e3)
            widgets, messages, sent = len(_instances) - before, RecordingComm.messages, RecordingComm.sent_bytes
            del form
            W.Widget.close_all()
    return statistics.median(timings), widgets, messages, sent


def report(name: str, ms: float, widgets: int, messages: int, sent: int) -> None:
    ratio = ms / TARGET_MS
    print(
        f"   {name:34s} {ms:7.1f} ms   target ≤ {TARGET_MS:.0f} ms   {ratio:5.2f}x   "
        f"{'met' if ms <= TARGET_MS else 'MISSED'}"
    )
    print(f"   {'':34s} {widgets:5d} widgets, {messages} messages, {sent / 1024:.0f} KiB sent")


class Item(BaseModel):
    sku: str
    qty: int
    note: str = ""


def list_tool() -> Any:
    @tool
    def order(items: list[Item]) -> int:
        """Order items."""
        return len(items)

    return order


LIST_TARGET_MS = 1000.0


def measure_json_to_form(count: int, rounds: int, build_all: bool = False) -> tuple[float, int]:
    """(median ms for JSON → Form with ``count`` items, messages sent); ``build_all`` also builds every row."""
    text = json.dumps({"items": [{"sku": f"s{i}", "qty": i} for i in range(count)]})
    timings, messages = [], 0
    with recording():
        for _ in range(rounds + 1):  # the first round warms up (imports, validators)
            form = build_and_display(list_tool())
            form.show_json()
            form.json_mode.editor.value = text
            gc.collect()
            RecordingComm.messages = 0
            start = time.perf_counter()
            assert form.show_form()
            if build_all:
                field = form.fields["items"]
                field.build_rows(count)
            timings.append((time.perf_counter() - start) * 1e3)
            messages = RecordingComm.messages
            W.Widget.close_all()
    return statistics.median(timings[1:]), messages


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run, noisier numbers)")
    options = parser.parse_args(argv)
    rounds = 5 if options.quick else 15
    print(
        f"workbench form benchmarks — Python {sys.version.split()[0]}, pydantic {pydantic.VERSION}, "
        f"ipywidgets {W.__version__}"
    )
    print(f"\n1. ToolForm with 50 mixed fields: build + display (median of {rounds})")
    report("50-field form", *measure(fifty_field_tool, rounds))
    print(f"\n2. ToolForm over a 5-level nested model with arrays of objects: build + display (median of {rounds})")
    report("deep nested form", *measure(deep_tool, rounds))
    list_rounds = 3 if options.quick else 7
    print(f"\n4. JSON → Form with a list of 300 model items (median of {list_rounds})")
    paged, paged_messages = measure_json_to_form(300, list_rounds)
    every, every_messages = measure_json_to_form(300, list_rounds, build_all=True)
    print(
        f"   {'300 items, first page built':34s} {paged:7.1f} ms   target ≤ {LIST_TARGET_MS:.0f} ms   "
        f"{paged / LIST_TARGET_MS:5.2f}x   {'met' if paged <= LIST_TARGET_MS else 'MISSED'}   {paged_messages} messages"
    )
    print(
        f"   {'300 items, every row built':34s} {every:7.1f} ms   ({paged / every:.2f}x of it)   {every_messages} messages"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
