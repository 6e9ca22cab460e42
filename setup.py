"""The packages: rse_core's folders, and the data packages pyproject.toml maps from other folders.

setuptools' ``find`` discovers only folders under rse_core, so the data packages of
``[tool.setuptools.package-data]`` (``sample_docs/`` installed as ``rse_core.data.samples``...)
are added here. Only their data files are installed, never the scripts beside them
(``sample_docs/build.py`` and ``embed.py`` build the samples; the wheel does not need them).
"""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

SETUPTOOLS = tomllib.loads(Path(__file__).with_name("pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
DATA_PACKAGES = tuple(SETUPTOOLS["package-data"])


class BuildPyDataOnly(build_py):
    """build_py, installing no module from a data package's folder."""

    def find_package_modules(self, package, package_dir):
        return [] if package in DATA_PACKAGES else super().find_package_modules(package, package_dir)


setup(packages=[*find_packages(include=["rse_core*"]), *DATA_PACKAGES], cmdclass={"build_py": BuildPyDataOnly})
