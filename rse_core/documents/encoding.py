"""Decode the bytes of a text upload and say which encoding was used.

A silent cp1252 fallback turned GBK or Shift-JIS text into indexed gibberish, and UTF-16 (full of
zero bytes) was refused as binary. The order here is what can be known for sure first: a
byte-order mark, then strict UTF-8, then a detector for what remains.
"""

from __future__ import annotations

import codecs

from rse_core.errors import UnsupportedFormatError

_BOMS = (  # UTF-32 first: its little-endian BOM starts with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_WIDE_ENCODINGS = ("utf_16", "utf_32")
_MULTIBYTE_ENCODINGS = (
    *_WIDE_ENCODINGS,
    "gb",  # gb2312, gbk, gb18030
    "big5",
    "cp932",
    "cp949",
    "cp950",
    "shift_jis",
    "euc_",
    "iso2022",
    "johab",
    "hz",
)


def decode_text(data: bytes, name: str) -> tuple[str, str]:
    """Decode a text file and say how: BOM, then UTF-8, then a detector; refuse binary data.

    Order: a byte-order mark settles UTF-8/16/32; then strict UTF-8 (most files); then
    ``charset-normalizer``, trusted for multi-byte encodings (GBK, Shift-JIS, Big5, EUC,
    BOM-less UTF-16), whose byte patterns it tells apart reliably. For single-byte text it often
    guesses wrongly on short files (cp1006 for French), so those are read as cp1252 (Windows
    Western, the usual legacy encoding), which is what the document then reports.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            label = encoding.replace("-sig", "")
            return data.decode(encoding, errors="replace"), label
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    sample = data[:4096]
    binary_bytes = sum(byte < 9 or 13 < byte < 32 for byte in sample)
    has_nul = b"\x00" in sample
    if has_nul or binary_bytes > len(sample) * 0.05:
        detected = _detect_encoding(data)
        if detected and detected.startswith(_WIDE_ENCODINGS):
            return data.decode(detected, errors="replace"), _encoding_label(detected)
        raise UnsupportedFormatError(
            f"{name} does not look like a text file (it contains binary data). "
            "If it is text, save it as UTF-8 and upload it again."
        )
    # Mostly UTF-8 with a few broken bytes (a damaged copy, a cut multi-byte character): keep the
    # UTF-8 and show each broken byte as U+FFFD.
    as_utf8 = data.decode("utf-8", errors="replace")
    broken = as_utf8.count("\ufffd")
    non_ascii = len(as_utf8) - len(as_utf8.encode("ascii", errors="ignore"))
    if non_ascii - broken > broken:
        return as_utf8, "utf-8"
    detected = _detect_encoding(data)
    if detected and detected.startswith(_MULTIBYTE_ENCODINGS):
        return data.decode(detected, errors="replace"), _encoding_label(detected)
    return data.decode("cp1252", errors="replace"), "cp1252"


def _detect_encoding(data: bytes) -> str | None:
    """charset-normalizer's best guess (a Python codec name), or ``None`` for binary data."""
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    return None if best is None else best.encoding


def _encoding_label(codec: str) -> str:
    return codecs.lookup(codec).name
