"""PyMuPDF, imported without its optional add-ons.

The add-ons load onnxruntime, whose telemetry makes a DNS lookup at import: loading a PDF must
not touch the network, and every module that opens a PDF imports PyMuPDF through here.
"""

from __future__ import annotations

import sys

# Optional add-ons that ``import pymupdf`` pulls in when installed. Plain text extraction never uses
# them, they cost ~1.5 s of import, and pymupdf.layout loads onnxruntime, whose telemetry looks up
# and contacts a Microsoft host: this library must run offline.
_PYMUPDF_ADDONS = ("pymupdf.layout", "pymupdf4llm")


def import_pymupdf():
    """``pymupdf`` without its layout and LLM add-ons (and so without onnxruntime).

    If pymupdf is not imported yet, the add-ons are marked as unavailable in ``sys.modules``
    (pymupdf itself treats a failed import of them as "not installed"); ``get_text("text")``
    gives the same text either way (tested). If onnxruntime is loaded anyway, its telemetry is
    switched off.
    """
    if "pymupdf" not in sys.modules:
        for name in _PYMUPDF_ADDONS:
            sys.modules.setdefault(name, None)  # type: ignore[arg-type]
    import pymupdf

    onnxruntime = sys.modules.get("onnxruntime")
    if onnxruntime is not None and hasattr(onnxruntime, "disable_telemetry_events"):
        onnxruntime.disable_telemetry_events()
    return pymupdf
