/*
 * Keyboard stepping for a presenter: arrow keys (and, when asked for, space, PageUp/PageDown,
 * Home/End) on the page send "next" / "prev" / "first" / "last" as this component's value.
 *
 * The frame shares the page's origin, so it listens on the page's document (a presenter's keys go
 * to the page, not to this invisible frame). One listener per page: a new frame replaces the old
 * one's. Keys typed into a field, or with a modifier, are left alone.
 * Speaks Streamlit's component protocol (API version 1) by postMessage.
 */
"use strict";

(() => {
  // Left and right always step; the keys that scroll a page (down, up, space, PageDown/PageUp,
  // Home/End, a clicker's keys) step only when the page asks for them (presenter mode, the Demo).
  const SIDEWAYS = { ArrowRight: "next", ArrowLeft: "prev" };
  const SCROLLING = {
    ArrowDown: "next", PageDown: "next", " ": "next", Spacebar: "next",
    ArrowUp: "prev", PageUp: "prev", Home: "first", End: "last",
  };
  let allKeys = false;
  const EDITABLE = new Set(["INPUT", "TEXTAREA", "SELECT"]);

  function post(type, fields) {
    window.parent.postMessage({ isStreamlitMessage: true, type, ...fields }, "*");
  }

  function onKey(event) {
    const action = SIDEWAYS[event.key] || (allKeys ? SCROLLING[event.key] : undefined);
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
  window.addEventListener("message", (event) => {
    const data = event.data || {};
    if (data.type === "streamlit:render" && data.args) allKeys = Boolean(data.args.all_keys);
  });
  post("streamlit:componentReady", { apiVersion: 1 });
  post("streamlit:setFrameHeight", { height: 0 });
})();
