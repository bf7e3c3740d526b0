"""The JupyterLab settings default the package installs (issue 22, defect 1): widget state saved with the
notebook, so a saved notebook reopened before running shows its forms and log tables. The browser test
(tests/browser/test_saved_notebook.py) shows the effect; this one that the wheel ships the file."""

from __future__ import annotations

import json
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_DIR = "share/jupyter/lab/settings/overrides.d"  # under sys.prefix: JupyterLab's app_settings_dir


def test_the_wheel_installs_the_save_widget_state_default():
    data_files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    assert data_files[SETTINGS_DIR] == [f"{SETTINGS_DIR}/tool-workbench.json"]
    settings = json.loads((ROOT / SETTINGS_DIR / "tool-workbench.json").read_text())
    assert settings == {"@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True}}
