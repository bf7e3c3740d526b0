"""The workbench magics: ``%%tool``, ``%tools``, ``%tool_log``, ``%tool_call``, ``%tool_spec`` and ``%tool_case``.

Usage errors (bad options, a cell without a function, a syntax error, arguments that do not parse)
raise IPython's ``UsageError``, which the notebook shows as one line — no traceback wall. An exception
raised by the cell's own code keeps its normal traceback. ``%tool_call`` of an unknown tool is not a
usage error: like any failing call it returns an error ``ToolResult`` (and is logged), so "Run All"
goes on. Every log view — ``%tool_log``, the live ``LogTable`` — lists the newest call first.
"""

from __future__ import annotations

import ast
import json
import shlex
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments

from workbench._errors import ToolSpecError
from workbench._html import escape as _e
from workbench._json_text import loads as load_json
from workbench._styles import MUTED, WRAP, status_colour
from workbench.jupyter._form import NO_DESCRIPTION_WARNING
from workbench.types import Permission, ToolResult

__all__ = [
    "WorkbenchMagics",
    "parse_call_arguments",
    "defined_functions",
    "MAGIC_NAMES",
    "CallResult",
    "SavedCase",
    "CaseRunView",
    "case_run_html",
]

MAGIC_NAMES = {"cell": ("tool",), "line": ("tools", "tool_log", "tool_call", "tool_spec", "tool_case")}


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def defined_functions(source: str) -> list[str]:
    """Names of the public top-level functions ``source`` defines, in order (a redefinition keeps
    its last position). ``SyntaxError`` if it does not parse."""
    tree = ast.parse(source)
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            if node.name in names:
                names.remove(node.name)
            names.append(node.name)
    return names


def parse_call_arguments(text: str) -> dict[str, Any]:
    """``{"a": 1}`` (a JSON object) or ``a=1 b="x y" c=[1,2]`` (each value JSON when it parses,
    else the text) → a dict. ``UsageError`` when neither form fits."""
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            value = load_json(text)
        except ValueError as exc:
            raise UsageError(f"%tool_call: the arguments are not valid JSON ({exc})") from None
        if not isinstance(value, dict):
            raise UsageError('%tool_call: the JSON arguments must be an object, e.g. {"a": 1}')
        return value
    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"%tool_call: cannot split the arguments ({exc})") from None
    out: dict[str, Any] = {}
    for token in tokens:
        key, eq, raw = token.partition("=")
        if not eq or not key:
            raise UsageError(f"%tool_call: expected key=value, got {token!r} (or pass one JSON object)")
        try:
            out[key] = load_json(raw)
        except ValueError:
            out[key] = raw
    return out


def _parse(magic: Any, line: str, label: str) -> Any:
    """Parse a magic's options with POSIX quoting (``--description 'Two words.'``)."""
    try:
        argv = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"{label}: cannot split the options ({exc})") from None
    return magic.parser.parse_args(argv)  # MagicArgumentParser raises UsageError


def _json_view(data: Any) -> "JSONView":
    return JSONView(data)


class JSONView(dict):
    """A dict shown as indented JSON (plain text) and as a JSON tree (JupyterLab)."""

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(json.dumps(self, indent=2, ensure_ascii=False, default=repr))

    def _repr_json_(self) -> Any:
        return dict(self), {"expanded": True}

    def __repr__(self) -> str:
        return json.dumps(self, indent=2, ensure_ascii=False, default=repr)


class CallResult(ToolResult):
    """The ``ToolResult`` that ``%tool_call`` returns: the same data, shown with the form's result view
    when the tool returned a DataFrame or Series (a table, not its plain-text dump)."""

    @classmethod
    def of(cls, result: ToolResult) -> "CallResult":
        return cls.model_construct(**{name: getattr(result, name) for name in ToolResult.model_fields})

    def _repr_html_(self) -> str:
        from workbench.jupyter._render import _is_frame, result_area_html

        if self.status == "success" and _is_frame(self.value):
            return result_area_html(self)
        return super()._repr_html_()


def _shown_path(path: Path) -> str:
    """``path`` relative to the working directory when it is inside it, else relative to the case
    folder (outputs stay the same wherever the folder is, e.g. a temporary one)."""
    from workbench.testing import case_folder

    target = Path(path).resolve()
    for base in (Path.cwd().resolve(), Path(case_folder()).resolve()):
        if target.is_relative_to(base):
            return target.relative_to(base).as_posix()
    return str(path)


@dataclass
class SavedCase:
    """What ``%tool_case save`` returns: the case and the file it was written to (``path``)."""

    case: Any
    path: Path

    def __repr__(self) -> str:
        return f"saved {self.case.name} (expect {self.case.expect}) to {_shown_path(self.path)}"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


#: status → (display status for the colour, highlighted row?)
_RUN_STATUS = {
    "pass": ("success", False),
    "fail": ("error", True),
    "error": ("error", True),
    "updated": ("cancelled", False),
}
_FAIL_ROW = (
    "background:color-mix(in srgb, var(--jp-error-color1, firebrick) 12%, transparent);"
    "border-left:3px solid var(--jp-error-color1, firebrick)"
)
_CELL = "padding:2px 8px;text-align:left;vertical-align:top;border-bottom:1px solid var(--jp-border-color2, silver)"


def _ms(value: Any) -> str:
    try:
        return f"{float(value):.1f} ms"
    except (TypeError, ValueError):
        return ""


def case_run_html(frame: Any) -> str:
    """``run_cases``' DataFrame as an HTML table: failing rows (``fail``/``error``) highlighted, each
    diff in a collapsed ``<details>``; every value escaped, colours from the theme (``--jp-*``)."""
    counts = frame["status"].value_counts().to_dict() if len(frame) else {}
    summary = ", ".join(f"{counts[s]} {s}" for s in _RUN_STATUS if counts.get(s)) or "no cases"
    rows = []
    for record in frame.to_dict("records"):
        status = str(record.get("status", ""))
        display, failing = _RUN_STATUS.get(status, ("error", True))
        diff = str(record.get("diff") or "")
        message = _e(record.get("message") or "")
        if diff:
            message += (
                f"<details class='workbench-case-diff'><summary>diff</summary>"
                f"<pre style='margin:2px 0;white-space:pre-wrap;{WRAP}'>{_e(diff)}</pre></details>"
            )
        style = f" style='{_FAIL_ROW}'" if failing else ""
        rows.append(
            f"<tr class='workbench-case-row workbench-case-{_e(status)}'{style}>"
            f"<td style='{_CELL}'><code>{_e(record.get('case'))}</code></td>"
            f"<td style='{_CELL};color:{status_colour(display)}'><b>{_e(status)}</b></td>"
            f"<td style='{_CELL}'>{_e(record.get('expect'))}</td>"
            f"<td style='{_CELL};color:{MUTED};white-space:nowrap'>{_ms(record.get('duration_ms'))}</td>"
            f"<td style='{_CELL};{WRAP}'>{message}</td></tr>"
        )
    head = "".join(f"<th style='{_CELL}'>{name}</th>" for name in ("case", "status", "expect", "duration", "message"))
    body = "".join(rows) or f"<tr><td colspan=5 style='{_CELL}'><i>no cases</i></td></tr>"
    return (
        f"<table class='workbench-case-run' style='border-collapse:collapse'>"
        f"<caption style='text-align:left'>{_e(summary)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _case_run_text(frame: Any) -> str:
    lines = []
    for record in frame.to_dict("records"):
        line = f"{record['status']:<7} {record['case']} ({record['expect']}, {_ms(record['duration_ms'])})"
        if record.get("message"):
            line += f": {record['message']}"
        lines.append(line)
        if record.get("diff"):
            lines += ["    " + part for part in str(record["diff"]).splitlines()]
    return "\n".join(lines) or "no cases"


class CaseRunView:
    """What ``%tool_case run`` returns: ``run_cases``' DataFrame (``frame``; ``outcomes`` are its
    ``CaseOutcome`` objects) shown as a table with failing rows highlighted and each diff expandable."""

    def __init__(self, frame: Any) -> None:
        self.frame = frame

    @property
    def outcomes(self) -> list:
        return list(self.frame.attrs.get("outcomes", []))

    @property
    def ok(self) -> bool:
        """True when every case passed (or was updated)."""
        return bool(self.frame["status"].isin(["pass", "updated"]).all())

    def _repr_html_(self) -> str:
        return case_run_html(self.frame)

    def __repr__(self) -> str:
        return _case_run_text(self.frame)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


@magics_class
class WorkbenchMagics(Magics):
    """Magics bound to the kernel's ``Workbench``."""

    @property
    def workbench(self) -> Any:
        from workbench.jupyter._workbench import get_workbench

        return get_workbench()

    # -- %%tool ----------------------------------------------------------------------------------
    @magic_arguments()
    @argument("--name", default=None, help="tool name (only when the cell defines one function)")
    @argument("--description", default=None, help="tool description (only when the cell defines one function)")
    @argument("--long-running", action="store_true", help="mark the tool long-running")
    @argument("--idempotent", action="store_true", help="deduplicate identical calls within one run")
    @argument("--permission", default=None, help="allow | deny | ask")
    @argument("--timeout", default=None, type=float, help="per-call timeout in seconds")
    @argument("--no-form", action="store_true", help="do not show the tool's form")
    @cell_magic
    def tool(self, line: str, cell: str) -> Any:
        """Run the cell and register every public top-level function it defines as a tool.

        Re-running the cell replaces the earlier tools; the names are bound to the tool objects
        (still callable like the functions). The output is the tool's form (``--no-form``: none).
        A function without a docstring still becomes a tool (handy while prototyping); its form
        warns that a model will not know when to call it, and ``spec.validate()`` rejects it.
        """
        args = _parse(self.tool, line, "%%tool")
        shell = self.shell
        source = shell.transform_cell(cell) if shell is not None else cell
        try:
            tree = ast.parse(source)
            names = defined_functions(source)
        except SyntaxError as exc:
            where = f"line {exc.lineno}" if exc.lineno else "the cell"
            raise UsageError(f"%%tool: syntax error at {where}: {exc.msg}") from None
        if not names:
            raise UsageError(
                "%%tool: the cell defines no function — write `def my_tool(...):` with a docstring "
                "(names starting with '_' are helpers and are not registered)"
            )
        if len(names) > 1 and (args.name or args.description):
            raise UsageError(
                f"%%tool: --name/--description need a cell with exactly one function; "
                f"this one defines {len(names)} ({', '.join(names)})"
            )
        options: dict[str, Any] = {"long_running": args.long_running, "idempotent": args.idempotent}
        if args.permission is not None:
            try:
                options["permission"] = Permission.coerce(args.permission)
            except ValueError as exc:
                raise UsageError(f"%%tool: --permission: {exc}") from None
        if args.timeout is not None:
            if args.timeout <= 0:
                raise UsageError(f"%%tool: --timeout must be a positive number of seconds, got {args.timeout:g}")
            options["timeout"] = args.timeout

        # numbered as the running cell (the last one IPython cached), so a traceback says "Cell In[N]"
        if shell is not None:
            cached = getattr(shell.compile, "_filename_map", None) or {}
            number = next(reversed(cached.values()), shell.execution_count)
            filename = shell.compile.cache(source, number, raw_code=cell)
        else:
            filename = "<%%tool>"
        code = compile(tree, filename, "exec")
        namespace = shell.user_ns if shell is not None else {}
        exec(code, shell.user_global_ns if shell is not None else namespace, namespace)  # noqa: S102 - the user's cell

        tools = [self._make_tool(namespace[name], name, args, options) for name in names]
        workbench = self.workbench
        for made in tools:
            try:
                workbench.registry.register_tool(made, replace=True)
            except (ToolSpecError, ValueError) as exc:
                raise UsageError(f"%%tool: {_one_line(exc)}") from None
        for name, made in zip(names, tools):
            namespace[name] = made
        if args.no_form:
            for made in tools:
                if not (made.spec.description or "").strip():  # the form would show this warning
                    print(f"%%tool: '{made.tool_name}': {NO_DESCRIPTION_WARNING} (add a docstring or --description)")
            return None
        forms = [workbench.form(made) for made in tools]
        if len(forms) == 1:
            return forms[0]
        import ipywidgets as W

        return W.VBox(forms)

    def _make_tool(self, obj: Any, name: str, args: Any, options: dict) -> Any:
        from workbench.tools import BaseTool, DecoratedFunctionTool

        if isinstance(obj, BaseTool):
            return obj  # already decorated in the cell (@tool(...)): keep the user's options
        if not callable(obj):
            raise UsageError(f"%%tool: '{name}' is no longer a function after running the cell")
        try:
            return DecoratedFunctionTool.from_function(obj, name=args.name, description=args.description, **options)
        except (ToolSpecError, ValueError, TypeError) as exc:
            raise UsageError(f"%%tool: {_one_line(exc)}") from None

    # -- line magics -----------------------------------------------------------------------------
    @line_magic
    def tools(self, line: str = "") -> Any:
        """``%tools``: a table of the registered tools."""
        import pandas as pd

        columns = [
            "name",
            "description",
            "parameters",
            "returns",
            "async",
            "long_running",
            "idempotent",
            "permission",
            "timeout",
            "type",
        ]
        rows = []
        for item in self.workbench.registry:
            spec = item.spec
            params = ", ".join(f"{p.name}: {p.type}{'' if p.required else '?'}" for p in spec.inputs)
            returns = spec.returns.get("type", "any") if spec.returns else "any"
            rows.append(
                {
                    "name": spec.name,
                    "description": (spec.description or "").strip().splitlines()[0] if spec.description else "",
                    "parameters": params,
                    "returns": returns if isinstance(returns, str) else json.dumps(returns),
                    "async": bool(spec.supports_async),
                    "long_running": bool(spec.long_running),
                    "idempotent": bool(spec.idempotent),
                    "permission": Permission.coerce(item.permission).value,
                    "timeout": spec.timeout,
                    "type": item.tool_type,
                }
            )
        return pd.DataFrame(rows, columns=columns)

    @magic_arguments()
    @argument("--tool", default=None, help="only calls of this tool")
    @argument("--status", default=None, help="success | error")
    @argument("--last", default=None, type=int, help="only the last K calls")
    @line_magic
    def tool_log(self, line: str = "") -> Any:
        """``%tool_log [--tool N] [--status S] [--last K]``: the execution log as a DataFrame, newest call
        first (the order of the live log table; ``log.to_dataframe()`` is oldest first, for analysis)."""
        args = _parse(self.tool_log, line, "%tool_log")
        try:
            frame = self.workbench.log.to_dataframe(tool=args.tool, status=args.status, last=args.last)
        except ValueError as exc:
            raise UsageError(f"%tool_log: {_one_line(exc)}") from None
        return frame.iloc[::-1].reset_index(drop=True)

    @no_var_expand
    @line_magic
    def tool_call(self, line: str = "") -> Any:
        """``%tool_call NAME {json}`` or ``%tool_call NAME key=value …``: call a tool, return the ToolResult.

        Every failure of the call — an unknown tool included — is an error result (logged, shown, and
        "Run All" goes on); only a line that does not parse is a ``UsageError``."""
        text = line.strip()
        if not text:
            raise UsageError('usage: %tool_call NAME {"arg": value}  or  %tool_call NAME arg=value ...')
        parts = text.split(None, 1)
        name, rest = parts[0], parts[1] if len(parts) > 1 else ""
        return CallResult.of(self.workbench.call(name, parse_call_arguments(rest)))

    @magic_arguments()
    @argument("name", help="tool name")
    @argument(
        "--format", default=None, help="provider format: openai, openai-responses, anthropic, bedrock, gemini, mcp"
    )
    @line_magic
    def tool_spec(self, line: str = "") -> Any:
        """``%tool_spec NAME [--format PROVIDER]``: the tool's spec as JSON, or in a provider's format."""
        args = _parse(self.tool_spec, line, "%tool_spec")
        workbench = self.workbench
        item = workbench.registry.get(args.name)
        if item is None:
            raise UsageError(f"%tool_spec: {workbench.registry._not_found(args.name)}")
        if args.format is None:
            return _json_view(item.spec.to_json())
        try:
            from workbench.formats import to_provider_format
        except ImportError as exc:
            raise UsageError(f"%tool_spec: provider formats are unavailable ({_one_line(exc)})") from None
        try:
            return _json_view(to_provider_format(item.spec, args.format))
        except (ValueError, KeyError) as exc:
            raise UsageError(f"%tool_spec: {_one_line(exc)}") from None

    # -- %tool_case ------------------------------------------------------------------------------
    @magic_arguments()
    @argument("action", choices=("save", "run"), help="save: the last call as a test case; run: replay saved cases")
    @argument("path", nargs="?", default=None, help="run: a case file or folder (default: the case folder)")
    @argument(
        "--expect",
        default=None,
        choices=("exact", "subset", "schema", "error"),
        help="save: what the replayed result must satisfy (default: error for a failed call, "
        "schema for a synthetic one, else exact)",
    )
    @argument("--update", action="store_true", help="run: rewrite failing exact/subset expectations from the results")
    @argument(
        "--approve",
        action="store_true",
        help="run: approve the cases' calls of ask_user tools (by default they are refused: case files are data)",
    )
    @line_magic
    def tool_case(self, line: str = "") -> Any:
        """``%tool_case save [--expect exact|subset|schema|error]``: save the log's last call as a test case
        in ``<case folder>/<tool>.cases.json`` (``workbench.testing.set_case_folder``; default ``tool_cases/``).
        ``%tool_case run [PATH] [--update] [--approve]``: replay the cases of PATH (default: the case folder)
        and show the outcome table — failing rows highlighted, each diff expandable. Calls of ``ask_user``
        tools are refused unless ``--approve`` approves them."""
        args = _parse(self.tool_case, line, "%tool_case")
        if args.action == "save":
            if args.path is not None or args.update or args.approve:
                raise UsageError("%tool_case save takes only --expect (it saves the last call of the log)")
            return self._save_case(args.expect)
        if args.expect is not None:
            raise UsageError("%tool_case run: --expect is for save (the saved cases carry their expectations)")
        return self._run_cases(args.path, args.update, args.approve)

    def _save_case(self, expect: Optional[str]) -> SavedCase:
        from workbench.testing import CaseFileError, save_case

        workbench = self.workbench
        try:
            cases = workbench.log.to_cases(last=1, expect=expect)
        except (CaseFileError, ValueError) as exc:
            raise UsageError(f"%tool_case save: {_one_line(exc)}") from None
        if not cases:
            raise UsageError(
                "%tool_case save: the execution log is empty — call a tool first "
                "(a form, %tool_call or get_workbench().call)"
            )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                path = save_case(cases[0], registry=workbench.registry)
            except (CaseFileError, OSError) as exc:
                raise UsageError(f"%tool_case save: {_one_line(exc)}") from None
        for warning in caught:  # e.g. "tools": [] for a notebook tool: one line, with the path as shown below
            print("note:", str(warning.message).replace(str(path), _shown_path(path)))
        from workbench.testing import CaseFile

        stored = [c for c in CaseFile.load(path).cases if c.same_call(cases[0])]  # with the id the file gave it
        return SavedCase(stored[-1] if stored else cases[0], path)

    def _run_cases(self, path: Optional[str], update: bool, approve: bool = False) -> CaseRunView:
        from workbench.testing import CaseFileError, case_folder, run_cases

        source = path if path is not None else case_folder()
        try:
            frame = run_cases(
                source, registry=self.workbench.registry, update=update, approver=_approve_all if approve else None
            )
        except (CaseFileError, OSError) as exc:
            raise UsageError(f"%tool_case run: {_one_line(exc)}") from None
        return CaseRunView(frame)


def _approve_all(tool_use: Any, tool: Any) -> bool:
    return True


def load(ipython: Any) -> None:
    """Register the magics once per shell."""
    if getattr(ipython, "_workbench_magics", None) is not None:
        return
    magics = WorkbenchMagics(ipython)
    ipython.register_magics(magics)
    ipython._workbench_magics = magics


def unload(ipython: Any) -> None:
    """Remove the magics registered by ``load``."""
    magics: Optional[WorkbenchMagics] = getattr(ipython, "_workbench_magics", None)
    if magics is None:
        return
    table = ipython.magics_manager.magics
    for kind, names in MAGIC_NAMES.items():
        for name in names:
            bound = table[kind].get(name)
            if bound is not None and getattr(bound, "__self__", None) is magics:
                del table[kind][name]
    ipython.magics_manager.registry.pop(type(magics).__name__, None)
    ipython._workbench_magics = None
