"""``TurnGrid``: the playground's conversations laid out turn by turn, so side-by-side columns line up.

Row after row: the column headings (model, runs), then for each Send a *prompt row* spanning every
column (what was asked) and a *turn row* holding each column's cell for that Send. Each turn row is
as tall as its tallest cell, so the next prompt starts at the same height in every column; a column
that joined later shows a short note in the rows before it joined. Cleared turns are closed.
"""

from __future__ import annotations

from typing import Optional, Sequence

import ipywidgets as W

from workbench._styles import MUTED
from workbench.jupyter._close import close_widgets
from workbench.jupyter._playground_column import ChatColumn
from workbench.jupyter._playground_html import message_html

__all__ = ["TurnGrid", "Turn"]

_CELL = dict(flex="1 1 0", min_width="0", margin="0 4px")
_JOINED_LATER = (
    f"<div class='workbench-chat-placeholder' style='color:{MUTED};font-size:0.85em;padding:4px 0'>"
    "(not in this model's conversation)</div>"
)


class Turn:
    """One Send: its prompt row and its row of cells (one per column)."""

    def __init__(self, number: int, prompt: str) -> None:
        self.number = number
        self.prompt = prompt
        self.prompt_row = W.HTML(message_html("user", prompt))
        self.prompt_row.add_class("workbench-prompt-row")
        self.row = W.HBox([], layout=W.Layout(width="100%", align_items="stretch"))
        self.row.add_class("workbench-turn-row")
        self.placeholders: dict[int, W.HTML] = {}  # id(column) → the note of a column not in this Send

    def lay_out(self, columns: Sequence[ChatColumn]) -> None:
        """Put each column's cell of this Send in the row (a note for a column not in it)."""
        cells = []
        for column in columns:
            cell = column.cell(self.number)
            if cell is None:
                cell = self.placeholders.get(id(column))
                if cell is None:
                    cell = self.placeholders[id(column)] = W.HTML(_JOINED_LATER, layout=W.Layout(**_CELL))
                    cell.add_class("workbench-chat-cell")
            cells.append(cell)
        gone = [key for key in self.placeholders if key not in {id(c) for c in columns}]
        close_widgets(*(self.placeholders.pop(key) for key in gone))
        self.row.children = cells

    def close(self) -> None:
        """Close the prompt row, the row and the notes (the columns close their own cells)."""
        self.row.children = ()
        close_widgets(self.prompt_row, self.row, *self.placeholders.values())
        self.placeholders.clear()


class TurnGrid(W.VBox):
    """The conversations of a playground: headings, then a prompt row and a turn row per Send."""

    def __init__(self) -> None:
        self.columns: list[ChatColumn] = []
        self.turns: list[Turn] = []
        self.heads = W.HBox([], layout=W.Layout(width="100%"))
        self.heads.add_class("workbench-chat-heads")
        super().__init__([self.heads], layout=W.Layout(width="100%"))
        self.add_class("workbench-playground-columns")

    def set_columns(self, columns: Sequence[ChatColumn]) -> None:
        """Show ``columns`` (left to right) in the headings and in every turn row."""
        self.columns = list(columns)
        self.heads.children = [c.head for c in self.columns]
        for turn in self.turns:
            turn.lay_out(self.columns)

    def add_turn(self, prompt: str, columns: Optional[Sequence[ChatColumn]] = None) -> Turn:
        """A new Send of ``prompt`` to ``columns`` (default: all shown): each opens its cell for it."""
        turn = Turn(len(self.turns), prompt)
        for column in columns if columns is not None else self.columns:
            column.start_turn(turn.number)
        turn.lay_out(self.columns)
        self.turns.append(turn)
        self.children = (self.heads, *[w for t in self.turns for w in (t.prompt_row, t.row)])
        return turn

    def clear(self) -> None:
        """Drop every turn (closing its widgets); the headings stay."""
        turns, self.turns = self.turns, []
        self.children = (self.heads,)
        for turn in turns:
            turn.close()
