"""The page view panel on Explore (AppTest): pages drawn, modes, a text upload, the clicked chunk."""

from __future__ import annotations

import html

from tests.support.apptest_support import html_text, new_app, no_problems, result_of


def test_explore_shows_the_segment_on_its_pages():
    at = new_app(docs="employee_handbook", q="What is the policy on working from home or working remotely?").run()
    no_problems(at)
    result = result_of(at)
    segment = result.segments[0]
    captions = [image.proto.imgs[0].caption for image in at.get("image")]
    assert f"Page {segment.first_page}" in captions
    page_html = html_text(at)
    assert "rse-thumbs" in page_html and page_html.count('<img alt="page ') == result.corpus.documents[0].page_count
    assert "found by their offsets" in "\n".join(c.value for c in at.caption)


def test_reflowed_and_exact_text_modes():
    at = new_app(docs="annual_report").run()
    at.radio(key="pv_mode").set_value("Exact text (as sent)").run()
    no_problems(at)
    segment = result_of(at).segments[0]

    assert html.escape(segment.text) in html_text(at)
    at.radio(key="pv_mode").set_value("Reflowed text").run()
    no_problems(at)
    assert "Line breaks of the PDF joined" in "\n".join(c.value for c in at.caption)


def test_clicked_chunk_can_be_shown():
    at = new_app(docs="annual_report").run()
    at.session_state["explore_selected_chunk"] = 3
    at.run()
    at.selectbox(key="pv_target").set_value("clicked").run()
    no_problems(at)
    chunk = result_of(at).corpus.chunks[3]
    assert f"Page {chunk.first_page}" in [image.proto.imgs[0].caption for image in at.get("image")]


def _segment_picker(at):
    return next(box for box in at.selectbox if box.label == "Show")


def test_the_segment_picker_is_set_again_when_its_labels_change():
    """The browser remembers a choice by its label: "S1" kept showing the old S1's pages after a
    new query unless the server sends the value again (``state.keep_choice`` with ``label``)."""
    at = new_app(penalty="0.35").run()
    before = _segment_picker(at).options
    at.run()  # nothing changed: the value is not sent again
    assert not _segment_picker(at).proto.set_value
    at.text_area(key="sb_query").set_value("audit fees paid to the auditor").run()
    no_problems(at)
    picker = _segment_picker(at)
    assert picker.value == 1 and picker.options[0] != before[0]  # still S1, now another S1
    assert picker.proto.set_value


def test_a_sample_s_pages_are_drawn_once_for_every_session_and_an_upload_s_stay_in_its_session(monkeypatch):
    """A class opening the same sample needs its pages drawn once; an upload's pages never
    go into the shared store."""
    from app_ui import worker_pool
    from app_ui.caching import shared_lru
    from app_ui.panels import page_images
    from tests.support.pdf_factory import make_pdf

    drawn: list[tuple[str, tuple[int, ...]]] = []
    original = worker_pool.render_pages

    def counting(document, pages, marks, zoom, **named):
        drawn.append((document.doc_id, tuple(pages)))
        return original(document, pages, marks, zoom, **named)

    monkeypatch.setattr(worker_pool, "render_pages", counting)
    query = "What is the policy on working from home or working remotely?"
    first = new_app(docs="employee_handbook", q=query, penalty="0.37").run()  # settings no other test draws
    no_problems(first)
    assert drawn
    drawn.clear()
    second = new_app(docs="employee_handbook", q=query, penalty="0.37").run()
    no_problems(second)
    assert drawn == []  # the second student's pages came from the first's
    assert html_text(second) == html_text(first)

    pdf = make_pdf(["Otters hold hands while they sleep so they do not drift apart. " * 4] * 3, title="Otter Notes")
    upload = new_app().run()
    upload.sidebar.file_uploader(key="sb_uploads").set_value([("otters.pdf", pdf, "application/pdf")]).run()
    no_problems(upload)
    corpus = result_of(upload).corpus
    own = next(document.doc_id for document in corpus.documents if document.name == "otters.pdf")
    upload.session_state["explore_selected_chunk"] = next(i for i, c in enumerate(corpus.chunks) if c.doc_id == own)
    upload.run()
    upload.selectbox(key="pv_target").set_value("clicked").run()  # the upload's page, in the page view
    no_problems(upload)
    assert any(doc_id == own for doc_id, _ in drawn)
    for kept in (page_images.THUMBS_KEPT, page_images.PAGES_KEPT):
        shared = shared_lru(f"_pv_images_{kept}", kept * 4)._data
        assert not [key for key in shared if key[0] == own]
