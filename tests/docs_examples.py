"""Run the Python examples of one Markdown file, as a reader would: ``python -m tests.docs_examples FILE``.

Every fenced ``python`` block runs, in order, in one namespace (a page's examples build on each other),
in the current directory. A block that shows output as ``#>`` lines — what ``print`` writes, one
``#>`` line per line — must print exactly that. A block preceded by a line
``<!-- not run: REASON -->`` is not run (it needs a provider's key or a cluster); the reason is printed.
Exits 1 naming the file, the block's line and what differed.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(
    r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.MULTILINE | re.DOTALL
)
NOT_RUN = re.compile(r"<!-- not run: (?P<reason>[^>]+?) -->\s*$")
PYTHON = frozenset({"python", "py", "python3"})


@dataclass
class Example:
    """One fenced Python block: where it starts, its code, the output it shows, and why it is not run."""

    line: int
    code: str
    expected: list[str]
    not_run: str | None


def examples(text: str) -> list[Example]:
    """The Python blocks of a Markdown text, in order."""
    found = []
    for match in FENCE.finditer(text):
        if match["lang"] not in PYTHON:
            continue
        indent = len(match["indent"])
        code = "\n".join(line[indent:] for line in match["body"].splitlines())
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        reason = NOT_RUN.search(before)
        shown = [line.lstrip() for line in code.splitlines() if line.lstrip().startswith("#>")]
        expected = [line[3:].rstrip() if line.startswith("#> ") else "" for line in shown]
        found.append(Example(text.count("\n", 0, match.start()) + 1, code, expected, reason and reason["reason"]))
    return found


def run(path: Path) -> list[str]:
    """Run the file's examples; the problems found (empty when every example ran and printed what it shows)."""
    namespace: dict = {"__name__": "__main__"}
    problems = []
    for example in examples(path.read_text(encoding="utf-8")):
        where = f"{path.name}:{example.line}"
        if example.not_run:
            print(f"{where}: not run ({example.not_run})")
            continue
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(example.code, where, "exec"), namespace)  # noqa: S102 - running the example is the point
        except Exception:  # noqa: BLE001 - reported as the example's failure, with its traceback
            problems.append(f"{where}: the example raised\n{traceback.format_exc()}")
            break  # later examples build on this one
        printed = out.getvalue().splitlines()
        if example.expected and [line.rstrip() for line in printed] != example.expected:
            problems.append(
                f"{where}: printed\n"
                + "\n".join(f"#> {line}" for line in printed)
                + "\nbut the example shows\n"
                + "\n".join(f"#> {line}" for line in example.expected)
            )
    return problems


if __name__ == "__main__":
    found = run(Path(sys.argv[1]))
    print("\n\n".join(found), file=sys.stderr)
    sys.exit(1 if found else 0)
