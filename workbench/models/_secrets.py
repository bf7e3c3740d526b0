"""Kept for imports from earlier versions: the secrets policy lives in :mod:`workbench.secrets`."""

from workbench.secrets import MASK, is_secret_name, mask, scrub_text

__all__ = ["MASK", "is_secret_name", "mask", "scrub_text"]
