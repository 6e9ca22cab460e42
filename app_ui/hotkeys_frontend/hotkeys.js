/*
 * Keyboard stepping for a presenter: arrow keys, space and PageUp/PageDown on the page send
 * "next" / "prev" (Home/End: "first" / "last") to the server as this component's value.
 *
 * The frame shares the page's origin, so it listens on the page's document (a presenter's keys go
 * to the page, not to this invisible frame). One listener per page: a new frame replaces the old
 * one's. Keys typed into a field, or with a modifier, are left alone.
 * Speaks Streamlit's component protocol (API version 1) by postMessage.
 */
"use strict";

(() => {
  const ACTIONS = {
    ArrowRight: "next", ArrowDown: "next", PageDown: "next", " ": "next", Spacebar: "next",
    ArrowLeft: "prev", ArrowUp: "prev", PageUp: "prev", Home: "first", End: "last",
  };
  const EDITABLE = new Set(["INPUT", "TEXTAREA", "SELECT"]);

  function post(type, fields) {
    window.parent.postMessage({ isStreamlitMessage: true, type, ...fields }, "*");
  }

  function onKey(event) {
    const action = ACTIONS[event.key];
    if (!action || event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return;
    const target = event.target;
    if (target && (EDITABLE.has(target.tagName) || target.isContentEditable)) return;
    if (target && target.getAttribute && target.getAttribute("role") === "slider") return;
    event.preventDefault();
    post("streamlit:setComponentValue", { value: { action, at: Date.now() }, dataType: "json" });
  }

  try {
    const page = window.parent;
    if (page.__rseHotkeys) page.document.removeEventListener("keydown", page.__rseHotkeys, true);
    page.__rseHotkeys = onKey;
    page.document.addEventListener("keydown", onKey, true);
  } catch (error) {
    // another origin: only keys pressed inside this frame would reach us, which a 0-px frame never gets
  }
  window.addEventListener("message", () => {}); // render messages carry nothing this component needs
  post("streamlit:componentReady", { apiVersion: 1 });
  post("streamlit:setFrameHeight", { height: 0 });
})();
