"""``summarize(df)``: what a batch run (``executor.map``) gave — counts and duration percentiles.

In a notebook the summary also shows a small chart (duration histogram and status counts, through
pandas plotting and matplotlib, from the ``lab`` extra).
"""

from __future__ import annotations

from typing import Any

__all__ = ["BatchSummary", "summarize"]

PERCENTILES = (50, 90, 99)


class BatchSummary:
    """Counts by status and by error type, and duration percentiles (ms) of one batch result."""

    def __init__(self, df: Any) -> None:
        missing = [c for c in ("status", "error_type", "duration_ms") if c not in df.columns]
        if missing:
            raise ValueError(
                f"summarize: expected the DataFrame of executor.map (columns status, error_type, "
                f"duration_ms), missing {', '.join(missing)}"
            )
        self.df = df
        self.total = len(df)
        self.by_status: dict[str, int] = {str(k): int(v) for k, v in df["status"].value_counts().items()}
        errors = df.loc[df["status"] != "success", "error_type"].fillna("unknown")
        self.by_error_type: dict[str, int] = {str(k): int(v) for k, v in errors.value_counts().items()}
        durations = df["duration_ms"].dropna().astype(float)
        self.duration_ms: dict[str, float] = (
            {f"p{p}": float(durations.quantile(p / 100)) for p in PERCENTILES} if len(durations) else {}
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "by_status": self.by_status,
            "by_error_type": self.by_error_type,
            "duration_ms": self.duration_ms,
        }

    def __repr__(self) -> str:
        lines = [f"{self.total} calls: " + ", ".join(f"{n} {s}" for s, n in self.by_status.items())]
        if self.by_error_type:
            lines.append("errors: " + ", ".join(f"{n} {t}" for t, n in self.by_error_type.items()))
        if self.duration_ms:
            lines.append("duration ms: " + ", ".join(f"{k} {v:.3g}" for k, v in self.duration_ms.items()))
        return "\n".join(lines)

    def plot(self) -> Any:
        """A matplotlib figure: duration histogram and status counts."""
        import matplotlib.pyplot as plt

        fig, (left, right) = plt.subplots(1, 2, figsize=(8, 2.6))
        durations = self.df["duration_ms"].dropna().astype(float)
        if len(durations):
            durations.plot.hist(ax=left, bins=30, title="duration (ms)")
        left.set_ylabel("calls")
        self.df["status"].value_counts().plot.barh(ax=right, title="status")
        fig.tight_layout()
        plt.close(fig)  # shown by _repr_html_/display, not twice by the inline backend
        return fig

    def _repr_html_(self) -> str:
        import base64
        import io

        from workbench._html import pre

        text = pre(repr(self))
        try:
            buffer = io.BytesIO()
            self.plot().savefig(buffer, format="png", dpi=80)
        except ImportError:
            return text
        image = base64.b64encode(buffer.getvalue()).decode()
        return f'{text}<img alt="duration histogram and status counts" src="data:image/png;base64,{image}">'


def summarize(df: Any) -> BatchSummary:
    """Summarise the DataFrame of ``executor.map``: counts by status and error type, duration p50/p90/p99
    (``repr`` in a terminal; in a notebook also a duration histogram and status counts)."""
    return BatchSummary(df)
