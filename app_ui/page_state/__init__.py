"""Each page's session state in one module: its keys, a typed view of its state, the one place
that creates its defaults, and the callbacks that change it.

Why: a page's state written from its drawing code, from helpers and from private initialisers
could not be read in one place, and a write after a widget was drawn raises in Streamlit. So a
view only reads (``read()`` gives a frozen dataclass) and draws; every write is here: an
``init()`` or another state function, run before the widget whose key it sets is drawn (or on a
key no widget owns, like a kept result), or a callback (``on_click=``/``on_change=``), which
Streamlit runs before the next run draws anything. Callbacks run inside the page fragment rerun only the
fragment; one that changes a control drawn outside it goes through
:func:`app_ui.page_state.reruns.reruns_app`.

Keys: each module's ``Keys`` names the page's widget and state keys (the strings are public:
browser tests and saved sessions use them). A page with panels drawn on several pages (answers,
judge, report, exports) has a ``PREFIX`` the panels derive their widget keys from
(``f"{prefix}_ask"``), so two pages never share a widget.

Besides one module per page, the app-wide state: ``sidebar_settings`` (what pages put in the
sidebar's controls, and the sidebar's own callbacks), ``page_request`` (the pages and the page one
page asks to open), ``presenter_mode`` (presenter mode's switch and link), ``uploads`` (an upload
change, the reading of a new file, the link's files); and ``steps`` (a step-through's step),
``once`` (events acted on once), ``component_values`` (a custom component's value checked),
``page_gold`` (the span dragged on a PDF's pages) and ``reruns`` (callbacks that rerun the whole app).

Imports: these modules stand below the app's helpers (they import ``keys``, ``state`` and
``samples``, never navigation, a widget helper, a panel or a view), so any helper may read a
page's keys and call its callbacks.
"""
