"""One palette for every page, so segments, top-k and gap chunks look the same everywhere.

The colours come from :data:`rse_core.figures.style.PALETTE` (the charts use the same ones). Pages put
document text inside these classes only after ``html.escape``.
"""

from __future__ import annotations

from pathlib import Path

from rse_core.figures.style import PALETTE

from .chart_warmup import CSS as CHART_WARMUP_CSS

ICON = Path(__file__).resolve().parent / "icon.png"  # the page icon, served by the app itself

SEGMENT = PALETTE.segment
TOP_K = PALETTE.top_k
GAP = PALETTE.gap
GAP_FILL = PALETTE.gap_fill

CSS = f"""
<style>
/* Wide pages: the chart and the text beside it need the room more than the margins do. */
[data-testid="stMainBlockContainer"] {{ padding-left: 2.5rem; padding-right: 2.5rem; padding-top: 2rem; }}
/* Page titles and headline numbers a size smaller than Streamlit's, so a 720-pixel screen keeps room for the
   chart. */
[data-testid="stMainBlockContainer"] h1 {{ font-size: 2.25rem; padding-top: 0.25rem; padding-bottom: 0.5rem; }}
[data-testid="stMetricValue"] {{ font-size: 1.75rem; }}
/* Plotly measures its text (getBoundingClientRect) many times per redraw; containment keeps each
   measurement from laying out the whole page again. */
[data-testid="stPlotlyChart"] {{ contain: layout paint style; }}
{CHART_WARMUP_CSS}
/* During a long run (an upload being embedded) Streamlit fades every stale element to 1/3 over a
   second: 60 repaints a second of the whole page, which a browser without GPU pays in CPU, taken
   from the embedding on a small machine. Three steps instead of a smooth fade look much the same. */
[data-stale="true"], [data-stale="true"] * {{ transition-timing-function: steps(3, end) !important; }}
/* A progress bar eases to each new value, repainting while the model embeds on the same cores
   (an upload embedded in ~1.5 s without progress updates, ~1.75 s with them). It jumps instead. */
[data-testid="stProgress"] * {{ transition: none !important; animation: none !important; }}
.rse-chip {{ display: inline-block; padding: 0 0.45em; border-radius: 0.35em; font-size: 0.85em;
             font-weight: 600; color: white; margin-right: 0.3em; line-height: 1.5; white-space: nowrap; }}
.rse-chip.segment {{ background: {SEGMENT}; }}
.rse-chip.topk {{ background: {TOP_K}; }}
.rse-chip.gap {{ background: {GAP_FILL}; color: #713f12; outline: 1.5px solid {GAP}; }}
.rse-chip.both {{ background: #334155; border-left: 0.45em solid {SEGMENT}; border-right: 0.45em solid {TOP_K}; }}
.rse-chip.window {{ background: {PALETTE.window}; }}
.rse-chip.padding {{ background: {PALETTE.padding_fill}; color: #713f12; outline: 1.5px dashed {GAP}; }}
.rse-chip.gold {{ background: {PALETTE.gold}; }}
.rse-chip.muted {{ background: #e2e8f0; color: #334155; }}
.rse-text {{ white-space: pre-wrap; font-family: inherit; font-size: 0.95em;
            line-height: 1.5; border-left: 4px solid {SEGMENT}; padding: 0.4em 0.8em;
            background: #f8fafc; margin: 0.25em 0 0.5em 0; overflow-wrap: anywhere; }}
.rse-text .boundary {{ display: inline-block; color: #64748b; background: #e2e8f0; border-radius: 0.3em;
                      font-family: ui-monospace, monospace; font-size: 0.7em; line-height: 1.3;
                      padding: 0 0.3em; margin: 0 0.2em; vertical-align: 0.15em; user-select: none; }}
.rse-text .gap-chunk {{ background: #fde68a; border-bottom: 2px dotted {GAP}; }}
.rse-text .padding-chunk {{ background: {PALETTE.padding_fill}; border-bottom: 2px dashed {GAP}; }}
.rse-text .selected-chunk {{ background: #dbeafe; border-bottom: 2px solid #1e3a8a; }}
.rse-text .gap-chunk.selected-chunk {{ background: #fde68a; }}
.rse-segment-head {{ font-size: 1.0em; margin-top: 0.6em; }}
.rse-segment-head .meta {{ color: #475569; }}
.rse-gap-note {{ font-size: 0.9em; color: #713f12; background: #fffbeb; border-left: 4px solid {GAP};
                padding: 0.3em 0.7em; margin: 0 0 0.4em 0; }}
.rse-query {{ font-size: 1.1em; margin: 0 0 0.4em 0; }}
.rse-query q {{ font-style: italic; }}
.rse-legend {{ font-size: 0.9em; color: #334155; margin: 0.2em 0 0.4em 0; }}
.rse-stop {{ font-size: 1.0em; color: #1e293b; margin: 0.2em 0 0.6em 0; }}
.rse-chunk-list {{ font-size: 0.92em; line-height: 1.6; }}
</style>
"""
