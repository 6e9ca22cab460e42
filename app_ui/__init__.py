"""Streamlit-side helpers for the rse-explorer app: state, sidebar, caching, theme.

Everything that computes lives in ``rse_core``; this package only wires widgets to it.
"""
