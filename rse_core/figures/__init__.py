"""Figures: Plotly charts, page images and the HTML report (the ``figures`` extra).

No Streamlit here, so every figure works in a notebook too. :mod:`~rse_core.figures.style` and
:mod:`~rse_core.figures.page_view` need no Plotly; the chart modules import it at the top.
"""
