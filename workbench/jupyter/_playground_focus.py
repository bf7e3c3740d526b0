"""``ApprovalFocus``: keyboard focus follows the decisions of a step-mode Send.

A card that starts waiting while no other waits gets the focus (on its **Approve**: Enter approves,
Tab reaches **Deny**, Shift+Tab the form's fields); after Approve or Deny the focus moves to the next
waiting card, or back to the prompt when none waits — never to the page body, which would send a
keyboard user back to the top of the notebook.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import ipywidgets as W

from workbench.jupyter._playground_card import ToolCallCard

__all__ = ["ApprovalFocus"]


class ApprovalFocus:
    """Moves focus between the waiting cards of a playground and its prompt.

    Args:
        pending: gives the cards waiting now, in the order they are shown.
        prompt: where focus goes when nothing waits.
    """

    def __init__(self, pending: Callable[[], list[ToolCallCard]], prompt: W.DOMWidget) -> None:
        self._pending = pending
        self._prompt = prompt
        self.target: Optional[W.DOMWidget] = None  # the last widget given focus (for tests and scripts)

    def watch(self, card: ToolCallCard) -> None:
        """Follow ``card``'s questions and decisions."""
        card.on_asked(self._asked)
        card.on_decided(self._decided)

    def _asked(self, card: ToolCallCard) -> None:
        if [c for c in self._pending() if c is not card]:
            return  # another call is being decided: this one gets the focus after it
        self._focus(card.approve_button)

    def _decided(self, _card: ToolCallCard) -> None:
        waiting = self._pending()
        self._focus(waiting[0].approve_button if waiting else self._prompt)

    def _focus(self, widget: Any) -> None:
        self.target = widget
        widget.focus()
