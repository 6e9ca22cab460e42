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
