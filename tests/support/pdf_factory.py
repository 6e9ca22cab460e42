"""Small PDFs made on the fly with PyMuPDF, so tests need no binary fixtures."""

from __future__ import annotations

import pymupdf


def make_pdf(pages: list[str], title: str = "") -> bytes:
    """A PDF with one page per string (an empty string gives an empty page)."""
    pdf = pymupdf.open()
    for text in pages:
        page = pdf.new_page(width=595, height=842)
        if text:
            page.insert_textbox(pymupdf.Rect(50, 50, 545, 800), text, fontsize=10)
    if title:
        pdf.set_metadata({"title": title})
    data = pdf.tobytes()
    pdf.close()
    return data


def make_encrypted_pdf(text: str = "secret text") -> bytes:
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), text)
    data = pdf.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="user")
    pdf.close()
    return data


def make_scanned_pdf(page_count: int = 2) -> bytes:
    """Pages holding only an image: what a scanner produces, with no text layer."""
    pdf = pymupdf.open()
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pixmap.set_rect(pixmap.irect, (200, 200, 200))
    for _ in range(page_count):
        page = pdf.new_page()
        page.insert_image(pymupdf.Rect(50, 50, 300, 300), pixmap=pixmap)
    data = pdf.tobytes()
    pdf.close()
    return data


UNICODE_FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/Library/Fonts/Arial Unicode.ttf",
    "C:/Windows/Fonts/arial.ttf",
)


def unicode_font_file() -> str | None:
    """A TrueType font with Hebrew, Arabic and ligature glyphs, if this machine has one."""
    from pathlib import Path

    return next((path for path in UNICODE_FONT_CANDIDATES if Path(path).is_file()), None)


def make_font_pdf(lines: list[str], fontname: str = "china-s", fontfile: str | None = None) -> bytes:
    """One page, one text line per string, drawn with a given font.

    ``fontname="china-s"`` (built into PyMuPDF) covers CJK; pass ``fontfile`` for other
    scripts. Lines are drawn left to right as given: for right-to-left text pass the visual
    order (the reversed string), as a real RTL layout stores it.
    """
    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    for number, line in enumerate(lines):
        page.insert_text((50, 72 + 20 * number), line, fontname=fontname, fontfile=fontfile, fontsize=10)
    data = pdf.tobytes()
    pdf.close()
    return data


def make_mixed_scan_pdf(pages: list[str | None]) -> bytes:
    """Pages with text (a string, may be empty) or holding only an image (``None``)."""
    pdf = pymupdf.open()
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pixmap.set_rect(pixmap.irect, (200, 200, 200))
    for text in pages:
        page = pdf.new_page(width=595, height=842)
        if text is None:
            page.insert_image(pymupdf.Rect(50, 50, 300, 300), pixmap=pixmap)
        elif text:
            page.insert_textbox(pymupdf.Rect(50, 50, 545, 800), text, fontsize=10)
    data = pdf.tobytes()
    pdf.close()
    return data


def make_ocr_layer_pdf(text: str) -> bytes:
    """A scanned page with an invisible OCR text layer (render mode 3), as ocrmypdf makes."""
    pdf = pymupdf.open()
    page = pdf.new_page()
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pixmap.set_rect(pixmap.irect, (200, 200, 200))
    page.insert_image(pymupdf.Rect(50, 50, 300, 300), pixmap=pixmap)
    page.insert_text((72, 72), text, render_mode=3)
    data = pdf.tobytes()
    pdf.close()
    return data


def make_pdf_with_javascript(text: str, script: str = "app.alert(1)") -> bytes:
    """A PDF whose catalog runs ``script`` on open (in a viewer that runs JavaScript)."""
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), text)
    action = pdf.get_new_xref()
    escaped = script.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    pdf.update_object(action, f"<</S/JavaScript/JS({escaped})>>")
    pdf.xref_set_key(pdf.pdf_catalog(), "OpenAction", f"{action} 0 R")
    data = pdf.tobytes()
    pdf.close()
    return data


def make_owner_only_encrypted_pdf(text: str = "readable text") -> bytes:
    """Encrypted with an owner password only: anyone may open it (permissions, not secrecy)."""
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), text)
    data = pdf.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="")
    pdf.close()
    return data


def make_encrypted_pdf_with(method: int, text: str = "secret text") -> bytes:
    """Like :func:`make_encrypted_pdf` with another method (``pymupdf.PDF_ENCRYPT_*``)."""
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), text)
    data = pdf.tobytes(encryption=method, owner_pw="owner", user_pw="user")
    pdf.close()
    return data


def make_sized_pdf(width: float, height: float, text: str = "A very large page.", pages: int = 1) -> bytes:
    """``pages`` pages of ``width`` x ``height`` points with a line of text each (a 14,400 pt
    square page is 3.5 KB yet gigabytes of pixels at the usual zoom)."""
    pdf = pymupdf.open()
    for number in range(pages):
        page = pdf.new_page(width=width, height=height)
        page.insert_text((36, 72), f"{text} Page {number + 1}.", fontsize=12)
    data = pdf.tobytes(garbage=3, deflate=True)
    pdf.close()
    return data


def make_stroke_heavy_pdf(strokes: int, pages: int = 1, text: str = "", width: float = 40) -> bytes:
    """Pages of text under ``strokes`` thick page-wide strokes each: a few bytes per stroke, costly
    to rasterise (the area each covers, at every zoom), cheap to extract text from."""
    pdf = pymupdf.open()
    for number in range(pages):
        page = pdf.new_page(width=595, height=842)
        if text:
            page.insert_textbox(pymupdf.Rect(50, 50, 545, 800), f"Page {number + 1}. {text}", fontsize=10)
        shape = page.new_shape()
        for stroke in range(strokes):
            x, y = (stroke * 37) % 595, (stroke * 53) % 842
            shape.draw_polyline([(x, 0), (595 - x, 842), (0, y), (595, 842 - y)])
            shape.finish(color=(0.1, 0.1, 0.1), width=width, closePath=False, lineCap=1, lineJoin=1)
        shape.commit()
    data = pdf.tobytes(deflate=True)
    pdf.close()
    return data
