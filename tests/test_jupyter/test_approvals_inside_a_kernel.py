"""Notebook-layer hardening (issue 14): approvals that cannot deadlock a kernel, and tools without a
docstring that get a form with a warning instead of a refusal.

The kernel situation is simulated two ways: code called inside a running asyncio loop on the
calling thread (what ipykernel does while it runs a cell; a widget click is then processed on that
same loop), and a real ipykernel driven through jupyter_client, clicking the buttons with comm
messages as a browser would. Timeouts here are deadlock guards, not performance assertions.
"""

from __future__ import annotations

import asyncio
import threading

import ipywidgets as W
import pytest

from tests.form_catalogue import ip, wb  # noqa: F401 - fixtures
from workbench import ToolSpecError, tool
from workbench.jupyter import PendingRun, ToolForm

GUARD = 10.0  # seconds before a test declares a deadlock
NO_DESCRIPTION = "no description: a model will not know when to call this tool"


@tool(permission="ask")
def delete_file(path: str) -> str:
    """Delete a file (asks first)."""
    return f"deleted {path}"


@tool
def sleeper(seconds: float = 0.3) -> str:
    """Sleep a while."""
    import time

    time.sleep(seconds)
    return "awake"


def _form(wb, fn) -> ToolForm:
    wb.registry.register_tool(fn, replace=True)
    return ToolForm(fn, wb)


def _in_loop_thread(coro_fn, form):
    """Run ``asyncio.run(coro_fn())`` in a thread (a fresh thread with its own running loop, like the
    kernel's); fail — and unblock the thread — when it does not end within GUARD seconds."""
    box: dict = {}

    def target():
        try:
            box["value"] = asyncio.run(coro_fn())
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(GUARD)
    if thread.is_alive():
        form.approval.deny()  # release the stuck call so the thread can end
        thread.join(GUARD)
        pytest.fail("the call deadlocked: it blocked the event loop the approval click needs")
    if "error" in box:
        raise box["error"]
    return box["value"]


async def _until(predicate) -> None:
    async def poll():
        while not predicate():
            await asyncio.sleep(0.005)

    await asyncio.wait_for(poll(), GUARD)


# -- item 1: ASK_USER approval from a cell -----------------------------------------------------------------
@pytest.mark.parametrize("button, status", [("approve_button", "success"), ("deny_button", "error")])
def test_run_in_a_running_loop_returns_a_pending_handle_and_the_click_decides(wb, button, status):
    form = _form(wb, delete_file)
    form.set_values({"path": "/tmp/a"})
    seen: dict = {}

    async def main():
        handle = form.run()  # a cell in the kernel: the loop runs on this thread
        seen["handle"] = handle
        seen["repr"] = repr(handle)
        seen["done_at_once"] = handle.done()
        await _until(lambda: form.approval.pending)  # the loop is free: the approver asks
        seen["visible"] = form.approval.widget.layout.display is None
        getattr(form.approval, button).click()  # what the button's comm message does, on the loop
        return await asyncio.wait_for(handle, GUARD)

    result = _in_loop_thread(main, form)
    handle = seen["handle"]
    assert isinstance(handle, PendingRun) and not seen["done_at_once"]
    assert "delete_file" in seen["repr"] and "Approve" in seen["repr"]
    assert seen["visible"]
    assert result.status == status and form.result is result and handle.result() is result
    assert handle.done() and status in repr(handle)
    assert wb.log.rows()[-1]["status"] == status and wb.log.rows()[-1]["tool_name"] == "delete_file"
    if status == "success":
        assert result.text == "deleted /tmp/a" and "deleted /tmp/a" in form.result_html.value
    else:
        assert "denied" in result.error
    assert form.approval.widget.layout.display == "none" and not form.running and not form.run_button.disabled


def test_a_sync_cell_inside_the_kernel_loop_does_not_block(ip, wb):
    """A plain (non-async) cell runs inside the kernel's running loop: ``form.run()`` there returns."""
    form = _form(wb, delete_file)
    form.set_values({"path": "/tmp/b"})
    ip.user_ns["form"] = form

    async def main():
        outcome = ip.run_cell("pending = form.run()\npending", store_history=False)
        assert outcome.success, outcome.error_in_exec
        await _until(lambda: form.approval.pending)
        form.approval.deny_button.click()
        return await asyncio.wait_for(ip.user_ns["pending"], GUARD), outcome.result

    result, shown = _in_loop_thread(main, form)
    assert isinstance(shown, PendingRun)
    assert result.status == "error" and "denied" in result.error
    assert form.approval.decisions == [False]


@pytest.mark.parametrize("button, status", [("approve_button", "success"), ("deny_button", "error")])
def test_run_async_is_awaitable_and_returns_the_result_after_the_click(wb, button, status):
    form = _form(wb, delete_file)
    form.set_values({"path": "/tmp/c"})

    async def main():
        task = asyncio.ensure_future(form.run_async())
        await _until(lambda: form.approval.pending)
        assert form.approval.widget.layout.display is None
        getattr(form.approval, button).click()
        return await asyncio.wait_for(task, GUARD)

    result = _in_loop_thread(main, form)
    assert result.status == status and form.result is result
    assert wb.log.rows()[-1]["status"] == status


def test_run_async_under_ipython_autoawait(ip, wb):
    """``await form.run_async()`` as a cell; the click arrives on the loop running the cell."""
    from IPython.core.async_helpers import get_asyncio_loop

    form = _form(wb, delete_file)
    form.set_values({"path": "/tmp/d"})
    ip.user_ns["form"] = form
    outcome: dict = {}

    def click():
        if form.approval.asked.wait(GUARD):
            get_asyncio_loop().call_soon_threadsafe(form.approval.approve_button.click)
        if not finished.wait(GUARD):
            form.approval.deny()  # unblock a deadlocked cell; the assertions below then fail

    finished = threading.Event()
    clicker = threading.Thread(target=click, daemon=True)
    clicker.start()
    try:
        outcome["cell"] = ip.run_cell("result = await form.run_async()", store_history=False)
    finally:
        finished.set()
    clicker.join(GUARD)
    assert outcome["cell"].success, outcome["cell"].error_in_exec
    result = ip.user_ns["result"]
    assert result.status == "success" and result.text == "deleted /tmp/d"
    assert wb.log.rows()[-1]["status"] == "success"


def test_run_outside_a_loop_still_blocks_until_the_decision(wb):
    """Scripts and worker threads keep the synchronous contract: ``run()`` returns the ToolResult."""
    form = _form(wb, delete_file)
    form.set_values({"path": "/tmp/e"})
    threading.Thread(target=lambda: form.approval.asked.wait(GUARD) and form.approval.approve(), daemon=True).start()
    result = form.run()
    assert not isinstance(result, PendingRun) and result.status == "success"


def test_tools_without_approval_still_return_their_result_inside_a_loop(wb):
    form = _form(wb, sleeper)
    form.set_values({"seconds": 0.0})

    async def main():
        return form.run()

    result = _in_loop_thread(main, form)
    assert not isinstance(result, PendingRun) and result.text == "awake"


def test_blocking_waits_on_the_loop_the_call_needs_raise_instead_of_deadlocking(wb):
    form = _form(wb, delete_file)
    form.set_values({"path": "/tmp/f"})

    async def main():
        handle = form.run()
        with pytest.raises(RuntimeError, match="await"):
            form.wait(GUARD)
        with pytest.raises(RuntimeError, match="await"):
            handle.result(GUARD)
        await _until(lambda: form.approval.pending)
        form.approval.approve_button.click()
        return await asyncio.wait_for(handle, GUARD)

    assert _in_loop_thread(main, form).status == "success"


def test_the_pending_handle_displays_the_approval_prompt(wb):
    form = _form(wb, delete_file)
    form.set_values({"path": "/tmp/g"})

    async def main():
        handle = form.run()
        bundle = handle._repr_mimebundle_()
        await _until(lambda: form.approval.pending)
        form.approval.deny()
        await asyncio.wait_for(handle, GUARD)
        return bundle, handle._repr_mimebundle_()

    pending_bundle, done_bundle = _in_loop_thread(main, form)
    view = pending_bundle["application/vnd.jupyter.widget-view+json"]
    assert view["model_id"] == form.approval.widget.model_id  # the same Approve/Deny, shown in the cell
    assert "Approve" in pending_bundle["text/plain"]
    assert "application/vnd.jupyter.widget-view+json" not in done_bundle and "error" in done_bundle["text/plain"]


# -- item 1 against a real kernel ---------------------------------------------------------------------------
KERNEL_SETUP = '''
from workbench import tool
from workbench.jupyter import ToolForm, get_workbench

@tool(permission="ask")
def delete_file(path: str) -> str:
    """Delete a file (asks first)."""
    return f"deleted {path}"

wb = get_workbench()
wb.registry.register_tool(delete_file, replace=True)
form = ToolForm(delete_file, wb)
form.approval.widget.layout.observe(lambda change: change.new is None and print("ASKED", flush=True), "display")
print("IDS", form.approval.approve_button.model_id, form.approval.deny_button.model_id)
'''


class _Kernel:
    """A real ipykernel and a client that can run cells and click buttons (comm messages)."""

    def __init__(self) -> None:
        from jupyter_client.manager import start_new_kernel

        self.km, self.kc = start_new_kernel(kernel_name="python3", startup_timeout=60)

    def run(self, code: str, on_text=None) -> tuple[dict, str]:
        texts: list[str] = []
        results: list[dict] = []

        def hook(msg):
            kind = msg["msg_type"]
            if kind == "stream":
                texts.append(msg["content"]["text"])
                if on_text is not None:
                    on_text("".join(texts))
            elif kind == "execute_result":
                results.append(msg["content"]["data"])
            elif kind == "error":
                texts.append("\n".join(msg["content"]["traceback"]))

        reply = self.kc.execute_interactive(code, timeout=GUARD * 3, output_hook=hook, allow_stdin=False)
        return {"reply": reply["content"], "results": results}, "".join(texts)

    def value(self, expression: str) -> str:
        return self.run(f"print({expression})")[1].strip()

    def poll(self, expression: str, expected: str) -> str:
        """Re-evaluate ``expression`` in fresh cells (the kernel is idle between them) until it prints ``expected``."""
        import time

        deadline = time.monotonic() + GUARD * 3
        value = self.value(expression)
        while value != expected and time.monotonic() < deadline:
            time.sleep(0.02)
            value = self.value(expression)
        return value

    def click(self, model_id: str) -> None:
        msg = self.kc.session.msg(
            "comm_msg", {"comm_id": model_id, "data": {"method": "custom", "content": {"event": "click"}}}
        )
        self.kc.shell_channel.send(msg)

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def kernel():
    k = _Kernel()
    yield k
    k.close()


def test_real_kernel_form_run_returns_and_the_approve_click_finishes_the_call(kernel):
    out, text = kernel.run(KERNEL_SETUP)
    assert out["reply"]["status"] == "ok", text
    approve_id, _deny_id = text.split("IDS", 1)[1].split()
    out, text = kernel.run('form.set_values({"path": "/tmp/k1"})\npending = form.run()\npending')
    assert out["reply"]["status"] == "ok", text  # the cell ended (before the fix it never did)
    shown = out["results"][0]
    assert "Approve" in shown["text/plain"] and "application/vnd.jupyter.widget-view+json" in shown
    assert kernel.poll("form.approval.pending", "True") == "True"
    kernel.click(approve_id)
    assert kernel.poll("form.result is not None and form.result.status", "success") == "success"
    assert kernel.value("form.result.text") == "deleted /tmp/k1"
    assert kernel.value("pending.done(), pending.result() is form.result") == "True True"
    assert kernel.value("wb.log.rows()[-1]['status']") == "success"


def test_real_kernel_await_run_async_in_a_cell_gets_the_deny_click(kernel):
    out, text = kernel.run(KERNEL_SETUP)
    assert out["reply"]["status"] == "ok", text
    _approve_id, deny_id = text.split("IDS", 1)[1].split()
    clicked: list = []

    def on_text(so_far: str) -> None:
        if "ASKED" in so_far and not clicked:
            clicked.append(True)
            kernel.click(deny_id)  # arrives while the cell is still awaiting

    out, text = kernel.run(
        'form.set_values({"path": "/tmp/k2"})\nresult = await form.run_async()\nprint("STATUS", result.status)',
        on_text=on_text,
    )
    assert out["reply"]["status"] == "ok", text
    assert clicked and "STATUS error" in text
    assert "denied" in kernel.value("result.error")


# -- item 2: a tool without a docstring --------------------------------------------------------------------
def _visible_texts(widget) -> list[str]:
    """The text of every visible HTML/Label in a widget tree."""
    layout = getattr(widget, "layout", None)
    if layout is not None and layout.display == "none":
        return []
    texts = [widget.value] if isinstance(widget, (W.HTML, W.Label)) else []
    for child in getattr(widget, "children", ()) or ():
        texts.extend(_visible_texts(child))
    return texts


def _cell(ip, line: str, body: str):
    return ip.run_cell(f"%%tool {line}\n{body}".replace("%%tool \n", "%%tool\n"), store_history=False)


def test_tool_cell_without_docstring_registers_a_tool_whose_form_warns(ip, wb):
    outcome = _cell(ip, "", "def nodoc(x: int) -> int:\n    return x")
    assert outcome.success, outcome.error_in_exec
    made = wb.registry.get("nodoc")
    assert made is not None and ip.user_ns["nodoc"] is made and made(3) == 3
    form = outcome.result
    assert isinstance(form, ToolForm) and form.tool is made
    assert any(NO_DESCRIPTION in text for text in _visible_texts(form))
    with pytest.raises(ToolSpecError, match="description"):
        made.spec.validate()  # the strict lint still says so
    assert wb.call("nodoc", {"x": 2}).json == 2


def test_tool_cell_with_a_docstring_has_no_warning(ip, wb):
    outcome = _cell(ip, "", "def withdoc(x: int) -> int:\n    '''Identity.'''\n    return x")
    assert outcome.success, outcome.error_in_exec
    assert not any(NO_DESCRIPTION in text for text in _visible_texts(outcome.result))


def test_tool_cell_without_docstring_and_no_form_still_says_so(ip, wb, capsys):
    capsys.readouterr()
    outcome = _cell(ip, "--no-form", "def quiet(x: int) -> int:\n    return x")
    assert outcome.success, outcome.error_in_exec
    assert "quiet" in wb.registry
    assert NO_DESCRIPTION in capsys.readouterr().out


def test_decorated_tool_with_explicit_parameters_and_no_docstring_gets_a_warning_form(wb):
    @tool(parameters={"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]})
    def bare(x):
        return x

    form = _form(wb, bare)
    assert list(form.fields) == ["x"]
    assert any(NO_DESCRIPTION in text for text in _visible_texts(form))
    form.set_values({"x": 5})
    assert form.run().json == 5
