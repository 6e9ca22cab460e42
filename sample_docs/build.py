#!/usr/bin/env python
"""Build the sample PDFs and fill the character offsets of their golden sets.

Usage (from anywhere):
    python sample_docs/build.py            # render src/*.md -> <slug>.pdf, rewrite <slug>.golden.json
    python sample_docs/build.py --check    # rebuild into a temp dir; exit 1 if anything committed differs
    python sample_docs/build.py employee_handbook   # only some documents (slugs), with or without --check

Source format and golden-set schema: see FORMAT.md next to this file.

Rendering uses PyMuPDF's ``Story`` (HTML + CSS layout) on US Letter pages: a title page, then the
body with a running footer "<short title> - page N" (N = physical page number, the title page
being page 1). The short title is the part of the ``# Title`` line before the first ":" (or the
whole title). Output is deterministic: fixed metadata dates, no random file id.
"""

from __future__ import annotations

import argparse
import html
import io
import json
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for _p in (str(HERE), str(REPO)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import pymupdf  # noqa: E402

from rse_core.evaluation.golden import PhraseError, locate_region  # noqa: E402

SRC_DIR = HERE / "src"
PAGE = pymupdf.paper_rect("letter")  # 612 x 792 pt
MARGIN_X = 66  # about 0.9 inch
MARGIN_TOP = 62
MARGIN_BOTTOM = 74  # leaves room for the footer
FOOTER_BASELINE = PAGE.height - 36
FIXED_DATE = "D:20250101000000Z"

CSS = """
body { font-family: serif; font-size: 11pt; line-height: 1.2; color: #111111; }
p { margin-top: 0; margin-bottom: 4pt; }
h2 { font-family: sans-serif; font-size: 15pt; font-weight: bold; color: #1f3a5f;
     margin-top: 14pt; margin-bottom: 5pt; }
h3 { font-family: sans-serif; font-size: 11.5pt; font-weight: bold; color: #1f3a5f;
     margin-top: 8pt; margin-bottom: 2pt; }
ul { margin-top: 0; margin-bottom: 6pt; padding-left: 18pt; }
li { margin-bottom: 2pt; }
table { width: 100%; border-collapse: collapse; margin-top: 4pt; margin-bottom: 10pt; font-size: 10pt; }
th { font-family: sans-serif; font-weight: bold; color: #1f3a5f;
     border: 0.6pt solid #7a8797; border-bottom: 1.5pt solid #1f3a5f; padding: 2pt 6pt; text-align: left; }
td { border: 0.6pt solid #7a8797; padding: 2pt 6pt; text-align: left; }
.num { text-align: right; }
.titlepage { margin-top: 190pt; }
.doctitle { font-family: sans-serif; font-size: 28pt; font-weight: bold; color: #1f3a5f;
            line-height: 1.2; margin-bottom: 18pt; }
.subtitle { font-size: 13pt; margin-bottom: 6pt; }
.pagebreak { page-break-before: always; }
"""

NUMERIC_CELL = re.compile(
    r"^[-+(]?\s*(?:[$\u20ac\u00a3]|USD|EUR|GBP)?\s*\d[\d,]*(?:\.\d+)?\s*"
    r"(?:%|pp|x|k|m|bn|million|billion)?\)?$",
    re.IGNORECASE,
)
EMPTY_CELL = {"", "-", "--", "n/a", "na", "nil"}
SEPARATOR_CELL = re.compile(r"^:?-{3,}:?$")


# --------------------------------------------------------------------------- parsing


@dataclass
class Block:
    kind: str  # "h2" | "h3" | "p" | "ul" | "table" | "pagebreak"
    text: str = ""
    items: list = field(default_factory=list)  # list items, or table rows (lists of cells)


@dataclass
class Source:
    slug: str
    title: str
    blocks: list

    @property
    def short_title(self) -> str:
        return self.title.split(":", 1)[0].strip()


def parse_source(path: Path) -> Source:
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith("# "):
        found = lines[0][:60] if lines else "(empty file)"
        raise SystemExit(f"{path}: first line must be '# Title', found {found!r}")
    title = lines[0][2:].strip()
    blocks: list[Block] = []
    para: list[str] = []
    cur: Block | None = None  # open list or table

    def flush() -> None:
        nonlocal para, cur
        if para:
            blocks.append(Block("p", " ".join(para)))
            para = []
        if cur is not None:
            blocks.append(cur)
            cur = None

    for lineno, raw in enumerate(lines[1:], start=2):
        line = raw.strip()
        if not line:
            flush()
        elif line == "<<<pagebreak>>>":
            flush()
            blocks.append(Block("pagebreak"))
        elif line.startswith("### "):
            flush()
            blocks.append(Block("h3", line[4:].strip()))
        elif line.startswith("## "):
            flush()
            blocks.append(Block("h2", line[3:].strip()))
        elif line.startswith("# "):
            raise SystemExit(f"{path}:{lineno}: '# ' is only allowed on the first line")
        elif line.startswith("- "):
            if para or (cur is not None and cur.kind != "ul"):
                flush()
            if cur is None:
                cur = Block("ul")
            cur.items.append(line[2:].strip())
        elif line.startswith("|"):
            if para or (cur is not None and cur.kind != "table"):
                flush()
            if cur is None:
                cur = Block("table")
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(SEPARATOR_CELL.match(c) for c in cells):
                continue  # tolerate Markdown "| --- | --- |" separator rows
            cur.items.append(cells)
        else:
            if cur is not None:
                flush()
            para.append(line)
    flush()
    for b in blocks:
        if b.kind == "table":
            width = len(b.items[0])
            for row in b.items:
                if len(row) != width:
                    raise SystemExit(f"{path}: table row has {len(row)} cells, header has {width}: {row}")
    return Source(slug=path.stem, title=title, blocks=blocks)


# --------------------------------------------------------------------------- HTML


def esc(text: str) -> str:
    return html.escape(text, quote=True)


def numeric_columns(rows: list[list[str]]) -> list[bool]:
    body = rows[1:]
    flags = []
    for col in range(len(rows[0])):
        cells = [r[col] for r in body if r[col].strip().lower() not in EMPTY_CELL]
        flags.append(bool(cells) and all(NUMERIC_CELL.match(c) for c in cells))
    return flags


def table_html(rows: list[list[str]]) -> str:
    num = numeric_columns(rows)
    out = ["<table>"]
    for i, row in enumerate(rows):
        tag = "th" if i == 0 else "td"
        cells = "".join(
            f'<{tag} class="num">{esc(c)}</{tag}>' if num[j] else f"<{tag}>{esc(c)}</{tag}>" for j, c in enumerate(row)
        )
        out.append(f"<tr>{cells}</tr>")
    out.append("</table>")
    return "\n".join(out)


def to_html(src: Source) -> str:
    blocks = list(src.blocks)
    # Title page: the title plus any paragraphs before the first heading / page break.
    subtitle = []
    while blocks and blocks[0].kind == "p":
        subtitle.append(blocks.pop(0).text)
    while blocks and blocks[0].kind == "pagebreak":
        blocks.pop(0)  # the body starts on a new page anyway
    out = ['<div class="titlepage">', f'<p class="doctitle">{esc(src.title)}</p>']
    out += [f'<p class="subtitle">{esc(t)}</p>' for t in subtitle]
    out.append("</div>")
    pending_break = True
    for b in blocks:
        if b.kind == "pagebreak":
            pending_break = True
            continue
        if pending_break:
            # An empty breaking div keeps the break independent of the next element's own CSS.
            out.append('<div class="pagebreak"></div>')
            pending_break = False
        if b.kind in ("h2", "h3"):
            out.append(f"<{b.kind}>{esc(b.text)}</{b.kind}>")
        elif b.kind == "p":
            out.append(f"<p>{esc(b.text)}</p>")
        elif b.kind == "ul":
            out.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in b.items) + "</ul>")
        elif b.kind == "table":
            out.append(table_html(b.items))
    return "<body>\n" + "\n".join(out) + "\n</body>"


# --------------------------------------------------------------------------- PDF


def render_pdf(src: Source) -> bytes:
    story = pymupdf.Story(html=to_html(src), user_css=CSS)
    buf = io.BytesIO()
    writer = pymupdf.DocumentWriter(buf)
    where = pymupdf.Rect(MARGIN_X, MARGIN_TOP, PAGE.width - MARGIN_X, PAGE.height - MARGIN_BOTTOM)
    more = True
    while more:
        dev = writer.begin_page(PAGE)
        more, _ = story.place(where)
        story.draw(dev)
        writer.end_page()
    writer.close()

    doc = pymupdf.open("pdf", buf.getvalue())
    footer_font = pymupdf.Font("tiro")  # Times-Roman, base-14 (not embedded)
    for page in doc:
        if page.number == 0:
            continue
        label = f"{src.short_title} - page {page.number + 1}"
        size = 9
        width = footer_font.text_length(label, fontsize=size)
        page.draw_line(
            (MARGIN_X, FOOTER_BASELINE - 13),
            (PAGE.width - MARGIN_X, FOOTER_BASELINE - 13),
            color=(0.6, 0.6, 0.6),
            width=0.5,
        )
        page.insert_text(
            ((PAGE.width - width) / 2, FOOTER_BASELINE),
            label,
            fontname="tiro",
            fontsize=size,
            color=(0.3, 0.3, 0.3),
        )
    doc.set_metadata(
        {
            "title": src.title,
            "author": "rse-explorer sample documents (fictional)",
            "subject": "",
            "keywords": "",
            "creator": "rse-explorer sample_docs/build.py",
            "producer": "PyMuPDF",
            "creationDate": FIXED_DATE,
            "modDate": FIXED_DATE,
            "trapped": "",
        }
    )
    out = doc.tobytes(garbage=4, deflate=True, no_new_id=True)
    doc.close()
    return out


# --------------------------------------------------------------------------- golden sets

QUERY_KEYS = ["id", "query", "kind", "first_phrase", "last_phrase", "start_char", "end_char", "note"]
TOP_KEYS = ["schema", "document", "queries"]
KINDS = {"factoid", "broad", "gapped"}


def load_text(pdf_path: Path) -> str:
    try:
        from rse_core import load_document
    except ImportError as exc:  # pragma: no cover - depends on the rest of the repo
        raise SystemExit(f"cannot import rse_core.load_document ({exc}); run from the rse-explorer repo") from exc
    return load_document(str(pdf_path)).text


def ordered(d: dict, keys: list[str]) -> dict:
    out = {k: d[k] for k in keys if k in d}
    out.update({k: d[k] for k in sorted(d) if k not in out})
    return out


def fill_golden(golden_path: Path, pdf_path: Path, source_text: str) -> str:
    """Return the golden JSON text with offsets recomputed against ``pdf_path``."""
    data = json.loads(golden_path.read_text(encoding="utf-8"))
    text = load_text(pdf_path)
    # The source with its Markdown markers removed, for the "phrase is verbatim" check.
    plain = re.sub(r"(?m)^\s*(?:#{1,3}|-)\s+", "", source_text).replace("|", " ")
    source_words = " ".join(plain.split())
    errors = []
    seen = set()
    for q in data.get("queries", []):
        qid = q.get("id", "?")
        if qid in seen:
            errors.append(f"{golden_path.name} [{qid}]: duplicate query id")
        seen.add(qid)
        if q.get("kind") not in KINDS:
            errors.append(f"{golden_path.name} [{qid}]: kind must be one of {sorted(KINDS)}")
        for key in ("first_phrase", "last_phrase"):
            phrase = q.get(key, "")
            if len(phrase.split()) < 5:
                errors.append(f"{golden_path.name} [{qid}]: {key} needs at least five words: {phrase!r}")
            if " ".join(phrase.split()) not in source_words:
                errors.append(f"{golden_path.name} [{qid}]: {key} is not verbatim in the source: {phrase!r}")
        try:
            q["start_char"], q["end_char"] = locate_region(text, q["first_phrase"], q["last_phrase"])
        except PhraseError as exc:
            errors.append(f"{golden_path.name} [{qid}]: {exc}")
        except KeyError as exc:
            errors.append(f"{golden_path.name} [{qid}]: missing field {exc}")
    if errors:
        raise SystemExit("golden set errors:\n  " + "\n  ".join(errors))
    data["queries"] = [ordered(q, QUERY_KEYS) for q in data["queries"]]
    return json.dumps(ordered(data, TOP_KEYS), indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------- main


def write_if_changed(path: Path, data: bytes) -> None:
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)


def build_all(out_dir: Path, only: list[str] | None = None) -> dict[str, bytes]:
    """Render every source (or the slugs in ``only``) and fill its golden set into ``out_dir``.

    Files whose content is unchanged are not rewritten. Returns {filename: bytes}.
    """
    sources = sorted(SRC_DIR.glob("*.md"))
    if only:
        unknown = sorted(set(only) - {md.stem for md in sources})
        if unknown:
            raise SystemExit(f"no source src/<slug>.md for: {', '.join(unknown)}")
        sources = [md for md in sources if md.stem in only]
    if not sources:
        raise SystemExit(f"no sources in {SRC_DIR}")
    produced: dict[str, bytes] = {}
    for md in sources:
        src = parse_source(md)
        pdf_bytes = render_pdf(src)
        pdf_path = out_dir / f"{src.slug}.pdf"
        write_if_changed(pdf_path, pdf_bytes)
        produced[pdf_path.name] = pdf_bytes
        golden = HERE / f"{src.slug}.golden.json"
        if golden.exists():
            text = fill_golden(golden, pdf_path, md.read_text(encoding="utf-8")).encode("utf-8")
            write_if_changed(out_dir / golden.name, text)
            produced[golden.name] = text
        print(
            f"built {pdf_path.name}: {pymupdf.open(pdf_path).page_count} pages"
            + (f", {golden.name}" if golden.exists() else "")
        )
    return produced


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--check",
        action="store_true",
        help="rebuild into a temp dir and fail if committed PDFs or golden offsets differ",
    )
    ap.add_argument("slugs", nargs="*", metavar="SLUG", help="build only these documents (default: every src/*.md)")
    args = ap.parse_args(argv)
    if not args.check:
        build_all(HERE, args.slugs)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        produced = build_all(Path(tmp), args.slugs)
    stale = [
        name for name, data in produced.items() if not (HERE / name).exists() or (HERE / name).read_bytes() != data
    ]
    if stale:
        print("out of date (run python sample_docs/build.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    print("all sample documents are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
