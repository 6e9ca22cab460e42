"""The app's pages: one module each, with one ``render`` function that ``app.py`` routes to.

Pages are functions (not scripts) so every rerun goes through ``app.py``: the shared sidebar and
the cached computation run first, in one place. The folder is not called ``pages/``: that name
switches Streamlit to its legacy multipage mode, which bypasses ``st.navigation`` on reruns.
"""
