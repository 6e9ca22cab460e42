"""Generate "bomb" PDFs: tiny files whose text extraction would take minutes and gigabytes.

Each one is built by hand (raw PDF objects, no compression) so the trick is visible:

- ``nested``: one page drawing a Form XObject that draws the next one ``fanout`` times, eight
  levels deep: the same line of text drawn 10^8 times from about 2 KB.
- ``wide``: the same trick, shallower and with a longer line: about 23 million characters from
  2 KB, enough to be a few seconds of extraction but tens of thousands of chunks to embed.
- ``shared``: 2,000 pages that all point at one content stream, which draws a nested XObject:
  each page is modest, the document is not.
- ``links``: 2,000 forms whose resources each list all 2,000 (none draws anything): merely
  opening the page walks that graph for transparency, 4 million entries, 11 s inside PyMuPDF.
- ``type3``, ``pattern``, ``annotation``: the nested forms reached another way PyMuPDF's text
  extraction runs content: a Type3 font's glyph procedure, a tiling pattern used as the fill
  colour, an annotation's appearance stream.

Run ``python tests/support/bomb_pdfs.py OUT_DIR`` to write them to a folder (for ``bench/``); tests
call :func:`bomb_pdfs` and never write a file.
"""

from __future__ import annotations

import sys
from pathlib import Path


def _pdf(objects: dict[int, bytes], root: int) -> bytes:
    """Serialise numbered objects into a PDF with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n"
    size = max(objects) + 1
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for number in range(1, size):
        out += b"%010d 00000 n \n" % offsets[number] if number in offsets else b"0000000000 65535 f \n"
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, root, xref)
    return bytes(out)


def _stream(content: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s >>\nstream\n" % (len(content), extra) + content + b"\nendstream"


def _form_chain(first: int, depth: int, fanout: int, line: bytes) -> tuple[dict[int, bytes], int]:
    """Objects ``first``... : a font, a text form, and ``depth`` forms each drawing the one below
    ``fanout`` times. Returns the objects and the number of the top form."""
    font = first
    objects = {font: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
    text = b"BT /F1 1 Tf 0 0 Td (" + line + b") Tj ET"
    objects[first + 1] = _stream(
        text, b"/Type /XObject /Subtype /Form /BBox [0 0 600 800] /Resources << /Font << /F1 %d 0 R >> >>" % font
    )
    for level in range(1, depth + 1):
        number = first + 1 + level
        body = b" ".join([b"/X Do"] * fanout)
        resources = b"/Resources << /XObject << /X %d 0 R >> >>" % (number - 1)
        objects[number] = _stream(body, b"/Type /XObject /Subtype /Form /BBox [0 0 600 800] " + resources)
    return objects, first + 1 + depth


def _document(page_count: int, depth: int, fanout: int, line: bytes) -> bytes:
    catalog, pages, content = 1, 2, 3
    objects, top = _form_chain(4, depth, fanout, line)
    first_page = top + 1
    kids = b" ".join(b"%d 0 R" % (first_page + i) for i in range(page_count))
    objects[catalog] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages
    objects[pages] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, page_count)
    objects[content] = _stream(b"/X Do")
    for i in range(page_count):
        objects[first_page + i] = (
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 600 800] /Contents %d 0 R "
            b"/Resources << /XObject << /X %d 0 R >> >> >>" % (pages, content, top)
        )
    return _pdf(objects, catalog)


def _indirect(kind: str, depth: int, fanout: int = 10) -> bytes:
    """One page reaching a chain of nested forms through a Type3 glyph, a pattern or an annotation."""
    objects, top = _form_chain(10, depth, fanout, b"hidden words ")
    objects[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[2] = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
    draw_top = b"/Resources << /XObject << /X %d 0 R >> >>" % top
    extra = b""
    if kind == "type3":
        objects[5] = _stream(b"0 0 d0 /X Do")
        objects[6] = (
            b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1 1] /FontMatrix [0.001 0 0 0.001 0 0] "
            b"/CharProcs << /a 5 0 R >> /Encoding << /Type /Encoding /Differences [97 /a] >> "
            b"/FirstChar 97 /LastChar 97 /Widths [1000] " + draw_top + b" >>"
        )
        content, resources = b"BT /T3 12 Tf 72 720 Td (aaaa) Tj ET", b"/Font << /T3 6 0 R >>"
    elif kind == "pattern":
        pattern = b"/Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 600 800] /XStep 600 /YStep 800 "
        objects[5] = _stream(b"/X Do", pattern + draw_top)
        content, resources = b"/Pattern cs /P0 scn 0 0 600 800 re f", b"/Pattern << /P0 5 0 R >>"
    else:  # annotation
        objects[5] = _stream(b"/X Do", b"/Type /XObject /Subtype /Form /BBox [0 0 600 800] " + draw_top)
        objects[6] = b"<< /Type /Annot /Subtype /Stamp /Rect [0 0 600 800] /AP << /N 5 0 R >> >>"
        content, resources = b"BT /F1 12 Tf 72 720 Td (visible) Tj ET", b"/Font << /F1 10 0 R >>"
        extra = b"/Annots [6 0 R]"
    objects[4] = _stream(content)
    objects[3] = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Contents 4 0 R /Resources << %s >> %s >>" % (
        resources,
        extra,
    )
    return _pdf(objects, 1)


def _links(count: int) -> bytes:
    """One page; ``count`` forms, each with its own resources naming one shared list of all of them."""
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Contents 4 0 R /Resources << /XObject 5 0 R >> >>",
        4: _stream(b"BT /F1 12 Tf 72 720 Td (one visible line) Tj ET"),
        5: b"<< " + b" ".join(b"/X%d %d 0 R" % (i, 10 + i) for i in range(count)) + b" >>",
    }
    for i in range(count):
        objects[10 + i] = _stream(
            b"0 0 m", b"/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources << /XObject 5 0 R >>"
        )
    return _pdf(objects, 1)


def bomb_pdfs() -> dict[str, bytes]:
    """Name -> bytes of each bomb PDF (see the module docstring)."""
    return {
        "nested": _document(1, depth=8, fanout=10, line=b"the same words again "),
        "wide": _document(1, depth=4, fanout=16, line=b"A" * 350),
        "shared": _document(2000, depth=3, fanout=10, line=b"shared page text " * 6),
        "links": _links(2000),
        "type3": _indirect("type3", depth=7),
        "pattern": _indirect("pattern", depth=7),
        "annotation": _indirect("annotation", depth=7),
    }


def small_indirect(kind: str) -> bytes:
    """The same construction three levels deep: honest enough to load (for tests)."""
    return _indirect(kind, depth=3)


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    folder.mkdir(parents=True, exist_ok=True)
    for bomb_name, data in bomb_pdfs().items():
        (folder / f"bomb_{bomb_name}.pdf").write_bytes(data)
        print(f"{folder / f'bomb_{bomb_name}.pdf'}: {len(data):,} bytes")
