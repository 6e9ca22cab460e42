"""A hostile PDF in a real browser: its HTML and script text must show as text, never run."""

from __future__ import annotations

from urllib.parse import urlencode, urlparse

from tests.support.pdf_factory import make_pdf

from .conftest import screenshot, wait_for_app

TIMEOUT = 120_000
SIDEBAR = "[data-testid='stSidebar']"
PAYLOAD_SCRIPT = "<script>alert('rse-xss-script')</script>"
PAYLOAD_IMAGE = "<img src=x onerror=alert('rse-xss-img')>"


def test_script_payload_in_a_pdf_renders_as_text(app_url, page):
    pdf = make_pdf(
        [
            f"Hostile heron handbook. {PAYLOAD_SCRIPT} Herons nest in tall reeds by the lake. " * 3,
            f"Heron chicks hatch in spring. {PAYLOAD_IMAGE} Heron parents feed chicks fish. " * 3,
        ],
        title="Heron <b>Handbook</b>",
    )
    page.set_viewport_size({"width": 1440, "height": 1400})
    page.goto(f"{app_url}/?q=Where+do+herons+nest%3F&scorer=bm25")
    wait_for_app(page, TIMEOUT)
    page.locator(f"{SIDEBAR} input[type='file']").set_input_files(
        files=[{"name": "<img src=x onerror=alert(1)>.pdf", "mimeType": "application/pdf", "buffer": pdf}]
    )
    page.wait_for_timeout(500)
    wait_for_app(page, TIMEOUT)
    page.locator(".rse-text", has_text="Herons nest").first.wait_for(timeout=TIMEOUT)
    page.wait_for_timeout(1000)  # give any injected handler time to fire

    assert page.dialogs == [], page.dialogs
    assert page.locator("img[src='x']").count() == 0
    # The title "Heron <b>Handbook</b>" is shown inside the app's own bold heading, escaped: no
    # <b> element holds "Handbook" alone (that would be the document's markup, injected).
    injected_bold = page.evaluate(
        "() => [...document.querySelectorAll('b')].filter(b => b.textContent.trim() === 'Handbook').length"
    )
    assert injected_bold == 0
    assert page.get_by_text("Heron <b>Handbook</b>").count() >= 1
    shown = page.locator("[data-testid='stMain']").inner_text()
    assert "<script>alert('rse-xss-script')</script>" in shown  # visible, as text
    injected = page.evaluate("() => [...document.scripts].some(s => s.textContent.includes('rse-xss'))")
    assert injected is False
    screenshot(page, "security_hostile_pdf")


def test_markdown_in_a_link_shows_as_text_never_as_a_link_or_image(app_url, page):
    """A shared link's text reaches the app's own notices as literal text: no phishing link, no image."""
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    phishing = "[Your session expired - sign in again](https://evil.example/login)"
    image = "![x](https://evil.example/p.png)"
    query = urlencode({"docs": f"annual_report,{phishing}", "preset": image, "maxlen": "inf", "scorer": "bm25"})
    page.set_viewport_size({"width": 1440, "height": 1100})
    page.goto(f"{app_url}/?{query}")
    wait_for_app(page, TIMEOUT)
    main = page.locator("[data-testid='stMain']")
    main.get_by_text("Ignored maxlen='inf' in the link").first.wait_for(timeout=TIMEOUT)

    anchors = page.evaluate(
        "() => [...document.querySelectorAll('a')].filter(a => a.href.includes('evil.example'))"
        ".map(a => a.parentElement.outerHTML)"
    )
    assert anchors == []
    assert page.locator("img[src*='evil.example']").count() == 0
    assert not [url for url in requested if urlparse(url).hostname == "evil.example"]
    shown = main.inner_text().replace("\u200b", "")  # md() puts a zero-width space after a URL scheme
    assert "'[Your session expired - sign in again](" in shown  # the link's text, literally
    assert "'![x](https://evil.example/p.png)'" in shown
    screenshot(page, "security_link_notices")
