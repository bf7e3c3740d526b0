"""The old name of :mod:`workbench.models._sdk_model` (what every model reached through its provider's
SDK shares), kept so the import works: the very same module."""

from __future__ import annotations

import sys

import workbench.models._sdk_model as _sdk_model

sys.modules[__name__] = _sdk_model
