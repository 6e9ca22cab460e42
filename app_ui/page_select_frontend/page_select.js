/*
 * Rendered PDF pages a reader drags across to select a gold span; reports the drag's two ends.
 *
 * Each end is the page it fell on and its position as a fraction of that page's image (0-1 from
 * the top-left corner), so the server can map it to PDF points whatever the zoom, then through
 * the glyph map to a character offset. Nothing here knows the text: what was selected comes back
 * highlighted on the page images the server draws next. Images arrive as data: URIs of PNGs the
 * server rendered; nothing else from the arguments goes into the DOM (captions are set as text).
 *
 * Speaks Streamlit's component protocol (API version 1) by postMessage: componentReady once,
 * render messages in (pages, height), setFrameHeight and setComponentValue out.
 */
"use strict";

(() => {
  const box = document.getElementById("pages");
  let shownKey = null;
  let frameHeight = -1;
  let drag = null; // {page, x, y, element, band, startX, startY}

  function post(type, fields) {
    window.parent.postMessage({ isStreamlitMessage: true, type, ...fields }, "*");
  }

  function clamp(value) {
    return Math.min(1, Math.max(0, value));
  }

  function pointOn(image, page, clientX, clientY) {
    const rect = image.getBoundingClientRect();
    return { page, x: clamp((clientX - rect.left) / rect.width), y: clamp((clientY - rect.top) / rect.height) };
  }

  function pageUnder(clientX, clientY) {
    const element = document.elementFromPoint(clientX, clientY);
    const holder = element && element.closest ? element.closest(".page") : null;
    return holder ? { holder, image: holder.querySelector("img"), page: Number(holder.dataset.page) } : null;
  }

  function startDrag(event) {
    const under = pageUnder(event.clientX, event.clientY);
    if (!under || event.button !== 0) return;
    event.preventDefault();
    const band = document.createElement("div");
    band.className = "band";
    under.holder.appendChild(band);
    drag = { ...pointOn(under.image, under.page, event.clientX, event.clientY), under, band,
             startX: event.clientX, startY: event.clientY };
    moveDrag(event);
  }

  function moveDrag(event) {
    if (!drag) return;
    const rect = drag.under.image.getBoundingClientRect();
    const x0 = Math.min(drag.startX, event.clientX) - rect.left;
    const y0 = Math.min(drag.startY, event.clientY) - rect.top;
    drag.band.style.left = `${Math.max(0, x0)}px`;
    drag.band.style.top = `${Math.max(0, y0)}px`;
    drag.band.style.width = `${Math.min(rect.width, Math.abs(event.clientX - drag.startX))}px`;
    drag.band.style.height = `${Math.abs(event.clientY - drag.startY)}px`;
  }

  function endDrag(event) {
    if (!drag) return;
    const start = drag;
    drag = null;
    start.band.remove();
    if (Math.hypot(event.clientX - start.startX, event.clientY - start.startY) < 4) return; // a click
    const under = pageUnder(event.clientX, event.clientY) || start.under;
    const end = pointOn(under.image, under.page, event.clientX, event.clientY);
    const value = { a: { page: start.page, x: start.x, y: start.y }, b: end, at: Date.now() };
    post("streamlit:setComponentValue", { value, dataType: "json" });
  }

  function draw(args) {
    const pages = Array.isArray(args.pages) ? args.pages : [];
    const height = Number(args.height) || 760;
    const key = pages.map((p) => `${p.page}:${String(p.src || "").length}:${String(p.src || "").slice(-32)}`).join("|");
    if (key !== shownKey) {
      const scroll = box.scrollTop;
      box.replaceChildren();
      for (const shown of pages) {
        const src = String(shown.src || "");
        if (!src.startsWith("data:image/png;base64,")) continue;
        const holder = document.createElement("div");
        holder.className = "page";
        holder.dataset.page = String(Number(shown.page));
        const image = document.createElement("img");
        image.src = src;
        image.alt = `page ${Number(shown.page)}`;
        image.draggable = false;
        // Its size before it loads, so the box keeps its scroll position when new images come.
        const [width, height] = Array.isArray(shown.size) ? shown.size.map(Number) : [0, 0];
        if (width > 0 && height > 0) {
          image.width = width;
          image.height = height;
        }
        const caption = document.createElement("div");
        caption.className = "caption";
        caption.textContent = `Page ${Number(shown.page)}`;
        holder.append(image, caption);
        box.appendChild(holder);
      }
      box.scrollTop = scroll;
      shownKey = key;
    }
    box.style.height = `${height}px`;
    if (height + 4 !== frameHeight) {
      frameHeight = height + 4;
      post("streamlit:setFrameHeight", { height: frameHeight });
    }
  }

  box.addEventListener("mousedown", startDrag);
  window.addEventListener("mousemove", moveDrag);
  window.addEventListener("mouseup", endDrag);
  window.addEventListener("message", (event) => {
    const message = event.data;
    if (event.source !== window.parent || !message || message.type !== "streamlit:render") return;
    draw(message.args || {});
  });
  post("streamlit:componentReady", { apiVersion: 1 });
})();
