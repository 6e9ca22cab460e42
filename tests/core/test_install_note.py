"""The install note is honest: PyPI's torch pin is the CUDA build, the README gives the CPU-only
install (PyTorch's CPU index) and docs/install.md the sizes measured."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _section(path: Path) -> str:
    return path.read_text("utf-8").split("### Install size", 1)[1].split("\n## ", 1)[0]


def test_the_readme_gives_the_cpu_only_install_and_install_md_the_sizes():
    for path in (ROOT / "README.md", ROOT / "docs" / "install.md"):
        section = _section(path)
        assert "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in section, path
        assert "nvidia-" in section and "CUDA" in section, path
    assert re.search(r"\d+(\.\d+)? GB for the app", _section(ROOT / "docs" / "install.md"))


def test_requirements_do_not_claim_the_pin_is_the_cpu_build():
    requirements = (ROOT / "requirements.txt").read_text("utf-8")
    assert "torch==2.13.0" in requirements
    assert "the CPU build;" not in requirements and "CUDA build" in requirements
    assert "download.pytorch.org" not in requirements  # the index is named in the README only
