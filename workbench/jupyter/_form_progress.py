"""``FormProgress``: a running call's progress bar, its last message and the elapsed-time label.

The bar is hidden until a call runs and, after it, kept only if the call reported progress. The label
reads "elapsed 1.2 s" while a call runs (a ticker thread) and "took 35.1 ms" after it: the only timing
shown. Progress reports are throttled (``PROGRESS_INTERVAL``).
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from typing import Any, Optional

import ipywidgets as W

from workbench.jupyter._throttle import Throttle

__all__ = ["FormProgress", "PROGRESS_INTERVAL", "TICK_INTERVAL"]

#: minimum seconds between two progress-bar updates (≤ 20 updates/s)
PROGRESS_INTERVAL = 0.05
#: seconds between two elapsed-time label updates while a call runs
TICK_INTERVAL = 0.1
#: the progress bar's style for each display status of a finished call
_BAR_STYLES = {"success": "success", "cancelled": "warning"}


class FormProgress:
    """Widgets ``progress``, ``progress_label``, ``box`` (both) and ``elapsed``; ``history``: the values shown."""

    def __init__(self) -> None:
        self.elapsed = W.Label("")
        self.elapsed.add_class("workbench-elapsed")
        self.progress = W.FloatProgress(value=0.0, min=0.0, max=1.0, layout=W.Layout(width="300px"))
        self.progress_label = W.Label("")
        self.box = W.HBox([self.progress, self.progress_label], layout=W.Layout(display="none"))
        self.box.add_class("workbench-progress")
        self.history: list[float] = []
        self.lock = threading.RLock()  # the ticker never overwrites the final time written by finish()
        self._throttle = Throttle(self._show, PROGRESS_INTERVAL)
        self._t0 = 0.0

    def clear(self) -> None:
        """Nothing running, nothing shown."""
        self.box.layout.display = "none"
        self.progress.value = 0.0
        self.progress_label.value = ""
        self.elapsed.value = ""

    def start(self, done: concurrent.futures.Future) -> None:
        """A call starts: the bar shows, and the elapsed time ticks until ``done`` is."""
        self.history = []
        self.progress.value = 0.0
        self.progress.bar_style = "info"
        self.progress_label.value = ""
        self.box.layout.display = None
        self.elapsed.value = "elapsed 0.0 s"
        self._t0 = time.perf_counter()
        threading.Thread(target=self._tick, args=(done,), name="workbench-form-timer", daemon=True).start()

    def _tick(self, done: concurrent.futures.Future) -> None:
        while True:
            with self.lock:
                if done.done():
                    break
                self.elapsed.value = f"elapsed {time.perf_counter() - self._t0:.1f} s"
            try:
                done.result(timeout=TICK_INTERVAL)
            except concurrent.futures.TimeoutError:
                continue
            except Exception:  # noqa: BLE001
                break

    def report(self, value: float, message: Optional[str]) -> None:
        """A progress report of the call (throttled)."""
        self._throttle(value, message)

    def log(self, message: str) -> None:
        """A log line of the call: shown beside the bar."""
        self.progress_label.value = str(message)[:200]

    def _show(self, value: float, message: Optional[str]) -> None:
        self.box.layout.display = None
        self.progress.value = value
        self.history.append(value)
        if message:
            self.progress_label.value = str(message)[:200]

    def flush(self) -> None:
        """Show a throttled report still waiting."""
        self._throttle.flush()

    def finish(self, status: str, latency_ms: Any) -> None:
        """The call ended with display ``status``; call with ``lock`` held."""
        self._throttle.cancel()  # late reports of a cancelled call change nothing now
        ok, cancelled = status == "success", status == "cancelled"
        if ok:
            self.progress.value = 1.0
        self.progress.bar_style = _BAR_STYLES.get(status, "danger")
        if cancelled or not (self.history or self.progress_label.value):
            # no progress reported, or a cancelled call (the result says so): no bar left behind
            self.box.layout.display = "none"
        if cancelled:
            self.progress.value, self.progress_label.value = 0.0, ""
        if isinstance(latency_ms, (int, float)):
            self.elapsed.value = (
                f"took {latency_ms / 1000:.2f} s" if latency_ms >= 1000 else f"took {latency_ms:.1f} ms"
            )
        else:
            self.elapsed.value = ""
