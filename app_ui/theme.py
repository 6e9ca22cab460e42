"""One palette for every page, so segments, top-k and gap chunks look the same everywhere."""

from __future__ import annotations

from rse_core.charts import PALETTE

SEGMENT = PALETTE.segment
TOP_K = PALETTE.top_k
GAP = PALETTE.gap

CSS = f"""
<style>
.rse-chip {{ display: inline-block; padding: 0 0.45em; border-radius: 0.35em; font-size: 0.85em;
             font-weight: 600; color: white; margin-right: 0.3em; }}
.rse-chip.segment {{ background: {SEGMENT}; }}
.rse-chip.topk {{ background: {TOP_K}; }}
.rse-chip.gap {{ background: {GAP}; }}
.rse-text {{ white-space: pre-wrap; font-family: ui-serif, Georgia, serif; font-size: 0.95em;
            line-height: 1.45; border-left: 4px solid {SEGMENT}; padding: 0.4em 0.8em;
            background: #f8fafc; }}
.rse-text .boundary {{ color: #94a3b8; font-family: ui-monospace, monospace; font-size: 0.75em;
                      user-select: none; }}
.rse-text .gap-chunk {{ background: #fef3c7; outline: 1px dashed {GAP}; }}
</style>
"""
