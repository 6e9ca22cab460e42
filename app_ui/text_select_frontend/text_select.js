/*
 * A document's text the reader selects a gold span in; reports the selection's character offsets.
 *
 * The text is one text node (set with textContent: nothing from it is ever parsed as HTML), so a
 * DOM Range's offsets are positions in that string. They are UTF-16 code units; Python counts code
 * points, so each offset is converted (a character outside the BMP is two units here, one there).
 * The offsets sent are into the document's text: the shown piece's own offset is added.
 *
 * Speaks Streamlit's component protocol (API version 1) by postMessage: componentReady once,
 * render messages in (text, offset, height), setFrameHeight and setComponentValue out.
 */
"use strict";

(() => {
  const box = document.getElementById("text");
  let shown = { text: null, offset: 0 };
  let frameHeight = -1;

  function post(type, fields) {
    window.parent.postMessage({ isStreamlitMessage: true, type, ...fields }, "*");
  }

  function codePoints(text, units) {
    let count = 0;
    for (let index = 0; index < units; index += 1) {
      const code = text.charCodeAt(index);
      if (code >= 0xd800 && code <= 0xdbff && index + 1 < units) index += 1; // a surrogate pair: one character
      count += 1;
    }
    return count;
  }

  function offsetIn(node, offset) {
    // A boundary on the <pre> itself (selecting to its end) rather than in its text node.
    if (node === box) return offset === 0 ? 0 : (box.textContent || "").length;
    return node === box.firstChild ? offset : null;
  }

  function report() {
    const selection = window.getSelection();
    if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return;
    const range = selection.getRangeAt(0);
    const start = offsetIn(range.startContainer, range.startOffset);
    const end = offsetIn(range.endContainer, range.endOffset);
    if (start === null || end === null || end <= start) return;
    const text = shown.text;
    const value = {
      start: shown.offset + codePoints(text, start),
      end: shown.offset + codePoints(text, end),
      at: Date.now(),
    };
    post("streamlit:setComponentValue", { value, dataType: "json" });
  }

  function draw(args) {
    const text = String(args.text || "");
    const height = Number(args.height) || 360;
    if (text !== shown.text) {
      box.textContent = text;
      box.scrollTop = 0;
    }
    shown = { text, offset: Number(args.offset) || 0 };
    box.style.height = `${height}px`;
    if (height + 4 !== frameHeight) {
      frameHeight = height + 4;
      post("streamlit:setFrameHeight", { height: frameHeight });
    }
  }

  box.addEventListener("mouseup", () => setTimeout(report, 0));
  box.addEventListener("keyup", () => setTimeout(report, 0));
  window.addEventListener("message", (event) => {
    const message = event.data;
    if (event.source !== window.parent || !message || message.type !== "streamlit:render") return;
    draw(message.args || {});
  });
  post("streamlit:componentReady", { apiVersion: 1 });
})();
