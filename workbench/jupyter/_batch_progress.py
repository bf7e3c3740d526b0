"""``BatchProgress``: the notebook progress display of ``executor.map``.

Shows done/total, rate, ETA and failures so far, with a Cancel button: a click (or ``cancel()``,
from any thread) stops the batch after the calls in flight; ``map`` still returns the finished rows.
While ``map`` blocks the cell the main shell cannot hear the click, so on ipykernel ≥ 7.4 the
button's messages are routed to a kernel subshell of their own for the batch's duration; on older
kernels the click waits for the cell, and the kernel's interrupt (■) is the way to stop — ``map``
catches it and returns the finished rows too.
"""

from __future__ import annotations

import concurrent.futures
import time
from typing import Any, Optional

import ipywidgets as W

__all__ = ["BatchProgress"]

_REFRESH_SECONDS = 0.1  # at most ten text updates a second (a quick tool finishes 100k calls a second)


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


class BatchProgress:
    """A progress bar, a status line and a Cancel button for one batch."""

    def __init__(self, total: int, done: int = 0, name: str = "", *, display: bool = True) -> None:
        self.total = total
        self.done = done
        self.failures = 0
        self.cancelled = False
        self._initial = done
        self._t0 = time.perf_counter()
        self._shown_at = 0.0
        self.bar = W.IntProgress(
            value=done, min=0, max=max(total, 1), description=name[:20], layout=W.Layout(width="40%")
        )
        self.label = W.HTML()
        self.cancel_button = W.Button(
            description="Cancel",
            icon="stop",
            button_style="warning",
            tooltip="Stop the pending calls; the finished rows are returned",
        )
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.widget = W.HBox([self.bar, self.label, self.cancel_button])
        self._refresh(force=True)
        self._subshell: Optional[tuple[Any, str]] = None
        if display:
            from IPython.display import display as show

            show(self.widget)
            self._route_clicks_to_a_subshell()

    def _route_clicks_to_a_subshell(self) -> None:
        """While ``map`` blocks the cell, the main shell hears no click. ipykernel ≥ 7.4 can route a
        comm's messages to a subshell (its own thread): the Cancel button's clicks go there, so Cancel
        works during a blocking batch. Best effort — without it, interrupting the kernel stops the batch."""
        try:
            from ipykernel.kernelbase import Kernel

            kernel = Kernel.instance() if Kernel.initialized() else None
            channel = getattr(kernel, "shell_channel_thread", None)
            comm = self.cancel_button.comm
            if channel is None or not hasattr(comm, "_reply_subshell_for"):
                return
            manager = channel.manager
            created: concurrent.futures.Future = concurrent.futures.Future()

            def create() -> None:
                try:
                    created.set_result(manager._create_subshell())
                except Exception as exc:  # noqa: BLE001
                    created.set_exception(exc)

            channel.io_loop.add_callback(create)
            subshell_id = created.result(timeout=5)
        except Exception:  # noqa: BLE001 - an older kernel: clicks wait for the cell
            return
        comm._reply_subshell_id = subshell_id
        self._subshell = (channel, subshell_id)

    def _drop_subshell(self) -> None:
        if self._subshell is None:
            return
        channel, subshell_id = self._subshell
        self._subshell = None
        try:
            del self.cancel_button.comm._reply_subshell_id
        except Exception:  # noqa: BLE001
            pass
        try:
            channel.io_loop.add_callback(channel.manager._delete_subshell, subshell_id)
        except Exception:  # noqa: BLE001
            pass

    def cancel(self) -> None:
        """Stop the batch after the calls in flight."""
        self.cancelled = True
        self.cancel_button.disabled = True
        self.cancel_button.description = "Cancelling…"

    def advance(self, count: int, failures: int) -> None:
        self.done += count
        self.failures += failures
        self._refresh()

    def text(self) -> str:
        """``done/total · rate · ETA · failures``."""
        elapsed = time.perf_counter() - self._t0
        ran = self.done - self._initial
        rate = ran / elapsed if elapsed > 0 and ran else 0.0
        left = self.total - self.done
        eta = _duration(left / rate) if rate else "?"
        return f"{self.done}/{self.total} · {rate:,.1f} calls/s · ETA {eta} · {self.failures} failed"

    def _refresh(self, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self._shown_at < _REFRESH_SECONDS and self.done < self.total:
            return
        self._shown_at = now
        self.bar.value = self.done
        self.label.value = self.text()
        if self.failures:
            self.bar.bar_style = "warning"

    def close(self) -> None:
        self._drop_subshell()
        self._refresh(force=True)
        self.bar.bar_style = "danger" if self.cancelled else ("warning" if self.failures else "success")
        self.cancel_button.disabled = True
        if self.cancelled:
            self.cancel_button.description = "Cancelled"
