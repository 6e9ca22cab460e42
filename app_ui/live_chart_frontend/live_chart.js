/*
 * One Plotly chart that lives as long as the page and is updated in place.
 *
 * Streamlit's own chart element gets a new identity whenever its figure changes, so every slider
 * move purged the chart and drew a new one (hidden, shown, laid out again). Here the server sends
 * the figure as an argument of this component; Plotly.react diffs it against what is drawn and
 * redraws only what changed, and the layout's uirevision keeps the reader's zoom between moves.
 *
 * Speaks Streamlit's component protocol (API version 1) by postMessage: componentReady once,
 * render messages in, setFrameHeight and setComponentValue (a clicked bar) out. Nothing from the
 * figure is put into the DOM by this script: Plotly draws the text and escapes it.
 */
"use strict";

(() => {
  const chart = document.getElementById("chart");
  const problem = document.getElementById("problem");
  let frameHeight = -1;
  let listening = false;
  let pending = null; // the newest render arguments not drawn yet
  let drawing = false;

  function post(type, fields) {
    window.parent.postMessage({ isStreamlitMessage: true, type, ...fields }, "*");
  }

  function setFrameHeight(height) {
    if (height !== frameHeight) {
      frameHeight = height;
      post("streamlit:setFrameHeight", { height });
    }
  }

  function showProblem(text) {
    problem.textContent = text;
    problem.hidden = false;
  }

  function onClick(event) {
    const point = event && event.points && event.points[0];
    if (!point) return;
    // "at" makes a second click on the same bar a new value, so it is not lost.
    const value = { x: point.x, curve: point.curveNumber, at: Date.now() };
    post("streamlit:setComponentValue", { value, dataType: "json" });
  }

  // The figures name the page's font (Source Sans), which Streamlit loads into the page, not into
  // this frame; the frame shares the page's origin, so the page's loaded faces are added here.
  function borrowPageFonts() {
    try {
      for (const face of window.parent.document.fonts) {
        if (face.status === "loaded" && !document.fonts.has(face)) document.fonts.add(face);
      }
    } catch (error) {
      // another origin, or faces this browser won't share: the figure's fallback fonts are used
    }
  }

  // With a fit, the chart is no taller than what is left of the first screen below its top
  // (never under fit.min pixels): on a 720-pixel projector the whole chart shows without scrolling,
  // on a large screen it keeps its full height. Measured in the page, which shares this origin.
  function fittedHeight(height, fit) {
    if (!fit) return height;
    try {
      const top = window.frameElement.getBoundingClientRect().top + window.parent.scrollY;
      const room = Math.floor(window.parent.innerHeight - top - (Number(fit.margin) || 0));
      return Math.max(Number(fit.min) || 0, Math.min(height, room));
    } catch (error) {
      return height; // not measurable here: the figure's own height
    }
  }

  let lastArgs = null;

  async function draw(args) {
    borrowPageFonts();
    lastArgs = args;
    const figure = JSON.parse(args.spec);
    const layout = figure.layout || {};
    const height = fittedHeight(Number(args.height) || Number(layout.height) || 450, args.fit);
    layout.height = height;
    chart.style.height = `${height}px`;
    setFrameHeight(height);
    await Plotly.react(chart, figure.data || [], layout, args.config || {});
    if (!listening) {
      chart.on("plotly_click", onClick);
      listening = true;
    }
  }

  // Render messages can come faster than Plotly draws (a held arrow key): draw the newest only.
  async function drawPending() {
    if (drawing) return;
    drawing = true;
    while (pending !== null) {
      const args = pending;
      pending = null;
      try {
        await draw(args);
        problem.hidden = true;
      } catch (error) {
        showProblem("The chart could not be drawn; the details are in the browser console.");
        console.error(error);
      }
    }
    drawing = false;
  }

  window.addEventListener("message", (event) => {
    const message = event.data;
    if (event.source !== window.parent || !message || message.type !== "streamlit:render") return;
    pending = message.args || {};
    drawPending();
  });

  // A resized window (a projector plugged in) fits the chart again.
  try {
    window.parent.addEventListener("resize", () => {
      if (lastArgs && lastArgs.fit && pending === null && !drawing) {
        pending = lastArgs;
        drawPending();
      }
    });
  } catch (error) {
    // another origin: the chart keeps the height it was drawn with
  }

  if (typeof Plotly === "undefined") {
    showProblem("The chart library did not load; reload the page.");
  }
  post("streamlit:componentReady", { apiVersion: 1 });
})();
