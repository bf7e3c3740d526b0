"""The package version has one source, ``workbench/_version.py``: pyproject reads it for the metadata."""

import importlib.metadata as metadata
import shutil
import subprocess
import sys
from pathlib import Path

import workbench

ROOT = Path(__file__).resolve().parents[2]


def test_version_is_the_installed_metadata_version():
    assert workbench.__version__ == metadata.version("tool-workbench")


def test_built_metadata_takes_the_version_from_the_package(tmp_path):
    # a copy of the project whose _version.py says another version: a build's metadata must follow it
    project = tmp_path / "project"
    (project / "workbench").mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(ROOT / "share", project / "share")
    (project / "workbench" / "__init__.py").write_text("")
    (project / "workbench" / "_version.py").write_text('__version__ = "9.8.7"\n')
    out = tmp_path / "out"
    out.mkdir()
    build = (
        "import sys\nfrom setuptools.build_meta import prepare_metadata_for_build_wheel\n"
        "print(prepare_metadata_for_build_wheel(sys.argv[1]))"
    )
    done = subprocess.run([sys.executable, "-c", build, str(out)], cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    dist_info = done.stdout.strip().splitlines()[-1]
    fields = (out / dist_info / "METADATA").read_text().splitlines()
    assert "Version: 9.8.7" in fields
