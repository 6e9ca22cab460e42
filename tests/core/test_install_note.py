"""The install note is honest: PyPI's torch pin is the CUDA build, and the README gives the CPU-only
install (PyTorch's CPU index) and the sizes measured."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_gives_the_cpu_only_install_and_the_sizes():
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("### Install size", 1)[1].split("\n## ", 1)[0]
    assert "--index-url https://download.pytorch.org/whl/cpu" in section
    assert "nvidia-" in section and "CUDA" in section
    assert re.search(r"\d+(\.\d+)? GB for the app", section)


def test_requirements_do_not_claim_the_pin_is_the_cpu_build():
    requirements = (ROOT / "requirements.txt").read_text("utf-8")
    assert "torch==2.13.0" in requirements
    assert "the CPU build;" not in requirements and "CUDA build" in requirements
    assert "download.pytorch.org" not in requirements  # the index is named in the README only
