"""A build reads only files inside the folders it is given: links leaving them are skipped and
named, the recorded path is the one under the folder, and a link loop ends the walk."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core.cli.kb import main
from rse_core.errors import DocumentError, UnsupportedFormatError
from rse_core.kb import KBQueryParams, KnowledgeBase, build, query_kb
from rse_core.kb.sources import LEAVES_FOLDER, OutsideFolderError, SourceFile, collect_sources, is_inside
from tests.kb.support import HashingEmbedder, as_default_embedder, filler

SECRET = "api_key = 'SECRET-TOKEN-7731'"
QUERY = "api_key secret token quokka1 quokka2"  # words of the secret file, none of the marker


@pytest.fixture
def folder_with_outside_link(tmp_path):
    """docs/ holds one real note and notes.md, a link to ../elsewhere/secrets.toml."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secrets.toml").write_text(f"# Secrets\n\n{SECRET}\n" + filler("quokka", 3))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pumps.md").write_text("# Pumps\n\n" + filler("pump", 4))
    (docs / "notes.md").symlink_to(os.path.join("..", "elsewhere", "secrets.toml"))
    return docs


def test_a_link_leaving_the_folder_is_skipped_named_and_never_stored(folder_with_outside_link, tmp_path):
    docs = folder_with_outside_link
    report = build(tmp_path / "kb", [docs], embedder=HashingEmbedder())
    assert [entry.name for entry in report.added] == ["pumps.md"]
    assert [(link.path, link.reason) for link in report.not_read] == [(str(docs / "notes.md"), LEAVES_FOLDER)]
    kb = KnowledgeBase.open(tmp_path / "kb", HashingEmbedder())
    for params in (KBQueryParams(first_stage="bm25"), KBQueryParams(first_stage="dense")):
        result = query_kb(kb, [QUERY], None, params)
        assert "7731" not in json.dumps(result.to_dict()) and "quokka3" not in json.dumps(result.to_dict())
    stored = kb.store.read(next(iter(kb.documents)), 0, 10_000)
    assert all("SECRET" not in chunk.text for chunk in stored)
    catalog = (tmp_path / "kb" / "kb.json").read_text()
    assert "elsewhere" not in catalog and "secrets" not in catalog and "SECRET" not in catalog


def test_the_cli_lists_the_skipped_link_in_text_and_json(folder_with_outside_link, tmp_path, monkeypatch, capsys):
    as_default_embedder(monkeypatch)
    docs = folder_with_outside_link
    assert main(["build", str(tmp_path / "kb"), str(docs), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"Not read: {docs / 'notes.md'}: {LEAVES_FOLDER}" in out and "elsewhere" not in out and "secrets" not in out
    assert main(["build", str(tmp_path / "kb2"), str(docs), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["not_read"] == [{"path": str(docs / "notes.md"), "reason": LEAVES_FOLDER}]
    assert [added["name"] for added in summary["added"]] == ["pumps.md"]
    assert main(["query", str(tmp_path / "kb"), "-q", QUERY, "--json", "--first-stage", "bm25"]) == 0
    assert "7731" not in capsys.readouterr().out


def test_links_inside_the_folder_are_followed_and_recorded_by_the_path_given(tmp_path):
    docs = tmp_path / "docs"
    (docs / "real").mkdir(parents=True)
    (docs / "real" / "pumps.md").write_text("# Pumps\n\n" + filler("pump", 3))
    (docs / "alias.md").symlink_to(os.path.join("real", "pumps.md"))
    (docs / "shelf").symlink_to("real", target_is_directory=True)
    sources = collect_sources([docs])
    # shelf/ is real/ again: each real folder is walked once, by its first name
    assert [source.path for source in sources.files] == [docs / "alias.md", docs / "real" / "pumps.md"]
    assert sources.skipped == ()
    report = build(tmp_path / "kb", [docs], embedder=HashingEmbedder())
    (entry,) = report.added  # the same bytes twice: stored once, by the first path given
    assert entry.path == str(docs / "alias.md")


def test_a_link_loop_and_a_broken_link_end_the_walk_and_are_named(tmp_path):
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "sub" / "a.md").write_text("# A\n\n" + filler("alpha", 2))
    (docs / "sub" / "again").symlink_to("..", target_is_directory=True)  # back to docs/: a cycle
    (docs / "self.md").symlink_to("self.md")  # a link to itself
    (docs / "gone.md").symlink_to("missing.md")
    (docs / "up").symlink_to("..", target_is_directory=True)  # leaves the folder
    sources = collect_sources([docs])
    assert [source.path for source in sources.files] == [docs / "sub" / "a.md"]
    assert {link.path for link in sources.skipped} == {str(docs / n) for n in ("self.md", "gone.md", "up")}


def test_a_file_swapped_for_an_outside_link_after_the_walk_is_refused_when_read(folder_with_outside_link, tmp_path):
    docs = folder_with_outside_link
    (pumps,) = collect_sources([docs]).files
    pumps.path.unlink()
    pumps.path.symlink_to(tmp_path / "elsewhere" / "secrets.toml")
    with pytest.raises(OutsideFolderError):
        pumps.read_bytes(1_000_000)
    with pytest.raises(UnsupportedFormatError, match=r"Nothing to add: notes\.md: a link to outside the folder"):
        build(tmp_path / "kb", collect_sources([docs]), embedder=HashingEmbedder())  # both files now lead outside
    assert not (tmp_path / "kb").exists()


def test_a_file_swapped_for_a_pipe_after_the_walk_is_refused_without_blocking(folder_with_outside_link):
    (pumps,) = collect_sources([folder_with_outside_link]).files
    pumps.path.unlink()
    os.mkfifo(pumps.path)
    with pytest.raises(DocumentError, match="not a regular file"):
        pumps.read_bytes(1_000_000)


def test_a_file_named_on_its_own_is_read_even_through_a_link(folder_with_outside_link):
    link = folder_with_outside_link / "notes.md"
    assert SECRET.encode() in SourceFile(link).read_bytes(1_000_000)


_NODES = ["a", "a/b", "c", "a/b/d"]  # folders under the root, and files/links are placed in them
_TARGETS = ["", "a", "a/b", "c", "a/b/d", "a/x.md", "c/y.md", "../outside", "../outside/z.md", "missing.md"]


@settings(max_examples=40, deadline=None)
@given(
    files=st.lists(st.tuples(st.sampled_from(["", *_NODES]), st.sampled_from(["x.md", "y.md", "z.txt"])), max_size=6),
    links=st.lists(
        st.tuples(st.sampled_from(["", *_NODES]), st.sampled_from(["l1", "l2.md", "l3.md"]), st.sampled_from(_TARGETS)),
        max_size=5,
    ),
)
def test_every_file_a_walk_yields_resolves_inside_the_folder_and_every_real_file_is_found(files, links):
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        root = base / "root"
        for node in _NODES:
            (root / node).mkdir(parents=True, exist_ok=True)
        (base / "outside").mkdir()
        (base / "outside" / "z.md").write_text("outside")
        for folder, name in files:
            (root / folder / name).write_text(name)
        leaving = set()
        for folder, name, target in links:
            link = root / folder / name
            if not os.path.lexists(link):  # the first link of a name is the one made
                link.symlink_to(os.path.relpath(root / target, link.parent))
                if target.startswith(".."):
                    leaving.add(str(link))
        sources = collect_sources([root])
        real_root = root.resolve()
        for source in sources.files:
            assert is_inside(source.path.resolve(), real_root)
            assert source.read_bytes(100) != b"outside"
        regular = {path for path in root.rglob("*") if path.is_file() and not path.is_symlink()}
        assert {p.resolve() for p in regular} <= {s.path.resolve() for s in sources.files}
        # a link is named by the path its folder was walked by: compare them by their real folder
        assert {_by_real_folder(path) for path in leaving} <= {_by_real_folder(link.path) for link in sources.skipped}


def _by_real_folder(path: str) -> str:
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
