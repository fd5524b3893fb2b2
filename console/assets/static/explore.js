// The Explore map of frameindex's web application. Everything it draws
// comes from this server as vector tiles: the frames and choropleth from
// the API's OGC tile call, the country outline and boundary lines from
// the console's line tiles; MapLibre GL JS is vendored. Calls go
// to /console/explore/..., where the server answers them through the API
// on behalf of the signed-in person's organisation.
"use strict";
(function () {
  // No Explore key yet: the page is a form that mints one (a POST with the
  // page's CSRF token; a GET never mints). Send it at once.
  const start = document.getElementById("explore-start");
  if (start) {
    start.submit();
    return;
  }
  const root = document.getElementById("explore");
  if (!root || typeof maplibregl === "undefined") {
    return;
  }
  const cfg = JSON.parse(root.dataset.config);
  const base = "/console/explore/";
  const csrfInput = document.querySelector("input[name=csrf]");
  const csrf = csrfInput ? csrfInput.value : "";
  const MAX = cfg.max || 50;
  const COLOURS = ["#ffffb2", "#fed976", "#feb24c", "#fd8d3c", "#f03b20", "#bd0026"];
  const $ = (id) => document.getElementById(id);
  const statusEl = $("map-status");

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const k of kids) {
      if (k !== null && k !== undefined) e.append(k);
    }
    return e;
  }
  function fmt(n) {
    return typeof n === "number" ? n.toLocaleString("en-GB", { maximumFractionDigits: 2 }) : String(n);
  }
  function status(text) {
    statusEl.textContent = text || "";
  }

  // call fetches a JSON answer of the map's API; it returns {ok, status,
  // body} and never throws. A signed-out session (the sign-in page comes
  // back instead of JSON) is reported as such.
  async function call(path, opts) {
    let res;
    try {
      res = await fetch(base + path, Object.assign({ credentials: "same-origin", headers: { Accept: "application/json", "X-CSRF-Token": csrf } }, opts || {}));
    } catch (e) {
      return { ok: false, status: 0, body: { error: { code: "network", message: "The server could not be reached: " + e.message } } };
    }
    const ct = res.headers.get("Content-Type") || "";
    if (!ct.includes("json")) {
      return { ok: false, status: res.status, body: { error: { code: "signed_out", message: "Your session has ended: reload the page and sign in again." } } };
    }
    let body;
    try {
      body = await res.json();
    } catch (e) {
      body = { error: { code: "invalid", message: "The answer could not be read." } };
    }
    return { ok: res.ok, status: res.status, body: body };
  }
  function errorText(r) {
    const e = (r.body && r.body.error) || {};
    return (e.message || "The call failed") + (e.code ? " (" + e.code + ")" : "");
  }

  maplibregl.setWorkerUrl("/console/vendor/maplibre-gl/maplibre-gl-csp-worker.js?v=" + encodeURIComponent(root.dataset.vendor));
  let map;
  try {
    map = makeMap();
  } catch (e) {
    status("This browser cannot draw the map: it needs WebGL, which is switched off or unavailable here (" + e.message + ").");
    root.dataset.failed = "webgl";
    return;
  }
  function makeMap() {
    return new maplibregl.Map({
      container: "map",
      // The map's own calls carry the page's CSRF token, the proof of
      // origin for a browser that sends no Sec-Fetch-Site.
      transformRequest: (url) => (url.startsWith(location.origin + base) ? { url: url, headers: { "X-CSRF-Token": csrf } } : { url: url }),
      style: { version: 8, sources: {}, layers: [{ id: "background", type: "background", paint: { "background-color": "#e8eeec" } }] },
      center: cfg.center,
      zoom: cfg.zoom,
      minZoom: 4,
      maxZoom: 18,
      maxBounds: [[-4, -2], [22, 20]],
      boxZoom: false,
      dragRotate: false,
      pitchWithRotate: false,
      touchPitch: false,
      attributionControl: false,
      keyboard: true,
    });
  }
  map.touchZoomRotate.disableRotation();
  // The canvas is the map's focusable element (MapLibre's keyboard handler
  // listens there): name it and say what the keys do.
  const mapCanvas = map.getCanvas();
  mapCanvas.setAttribute("aria-label", "Map of frames. Arrow keys pan, plus and minus zoom, Enter shows the frame at the centre, Shift+Enter adds it to the selection, Escape clears the selection.");
  mapCanvas.setAttribute("aria-describedby", "map-help");
  mapCanvas.setAttribute("role", "application");
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }), "top-right");
  map.addControl(new maplibregl.ScaleControl({ unit: "metric" }), "bottom-right");
  window.frameindexMap = map; // for the browser tests
  // What explore-area.js (questions about areas) fills in: area(q)
  // returns the area a question is about (null: the selection), before
  // resolves false to stop a question, after sees its answer, click
  // returns true when it took a click of the map, place hears of a
  // place chosen from "Find a place".
  const hooks = {};

  let rateLimited = 0;
  map.on("error", (e) => {
    const s = e && e.error && e.error.status;
    if (s === 429) {
      rateLimited = Date.now();
      status("The request limit of your organisation's Explore key was reached: some tiles are missing. Wait a little; they fill in as you move the map.");
    } else if (s === 401) {
      status("Your Explore key was revoked or has expired: reload the page to get a new one.");
    } else if (s === 402) {
      status("Your organisation's credits do not cover this dataset's tiles.");
    }
  });

  const selection = new Map(); // frame id -> Feature (its polygon)
  let choropleth = null; // {dataset, attr}

  map.on("load", () => {
    // The outline and boundary lines are vector tiles of this server up
    // to zoom 9 (the frames' zoom: the lines lie on the frames' edges);
    // deeper zooms draw them larger. LGAs from zoom 7.
    const lines = (layer, minzoom) => ({
      type: "vector",
      tiles: [location.origin + base + "lines/" + layer + "/{z}/{y}/{x}"],
      minzoom: minzoom,
      maxzoom: 9,
    });
    map.addSource("outline", lines("outline", 0));
    map.addLayer({ id: "outline-fill", type: "fill", source: "outline", "source-layer": "outline", paint: { "fill-color": "#ffffff", "fill-opacity": 0.85 } });
    map.addSource("frames", {
      type: "vector",
      tiles: [location.origin + base + "tiles/frames/{z}/{y}/{x}"],
      // Zoom 9 tiles hold every frame as it is; deeper zooms draw them
      // larger (overzoom), so a close look costs one or two tiles, not
      // dozens (each tile is a metered API call).
      minzoom: 9,
      maxzoom: 9,
    });
    map.addLayer({
      id: "frames-line",
      type: "line",
      source: "frames",
      "source-layer": "frames",
      minzoom: 11,
      paint: { "line-color": "#7d8a93", "line-width": ["interpolate", ["linear"], ["zoom"], 11, 0.3, 15, 1] },
    });
    for (const level of cfg.boundaries) {
      map.addSource("b-" + level, lines(level, level === "lga" ? 7 : 4));
      map.addLayer({
        id: "b-" + level,
        type: "line",
        source: "b-" + level,
        "source-layer": level,
        minzoom: level === "lga" ? 7 : 0,
        paint: level === "state"
          ? { "line-color": "#37474f", "line-width": ["interpolate", ["linear"], ["zoom"], 5, 0.8, 10, 2] }
          : { "line-color": "#607d8b", "line-width": 0.6, "line-dasharray": [3, 2] },
      });
    }
    map.addLayer({ id: "outline-line", type: "line", source: "outline", "source-layer": "outline", paint: { "line-color": "#0b6e4f", "line-width": 1.6 } });
    map.addSource("selection", { type: "geojson", data: { type: "FeatureCollection", features: [] } });
    map.addLayer({ id: "selection-fill", type: "fill", source: "selection", paint: { "fill-color": "#1a5fb4", "fill-opacity": 0.3 } });
    map.addLayer({ id: "selection-line", type: "line", source: "selection", paint: { "line-color": "#1a5fb4", "line-width": 2 } });
    root.dataset.loaded = "true";
  });
  map.on("idle", () => {
    root.dataset.idle = String(Date.now());
    if (rateLimited && Date.now() - rateLimited > 15000) {
      rateLimited = 0;
      status("");
    }
  });

  // --- Choropleth -----------------------------------------------------
  const layerSel = $("layer");
  const legend = $("legend");
  function valueExpr(attr, perFrame) {
    const v = ["to-number", ["get", attr]];
    return perFrame ? ["/", v, ["to-number", ["coalesce", ["get", "frames"], 1]]] : v;
  }
  function removeChoropleth() {
    for (const id of ["choro-fill", "choro-line"]) {
      if (map.getLayer(id)) map.removeLayer(id);
    }
    if (map.getSource("choro")) map.removeSource("choro");
    choropleth = null;
    legend.replaceChildren();
  }
  async function setChoropleth(value) {
    removeChoropleth();
    if (!value) return;
    const [dataset, attr] = value.split("|");
    const meta = cfg.attrs.find((a) => a.dataset === dataset && a.name === attr) || { label: attr };
    legend.replaceChildren(el("p", { class: "muted", text: "Computing the colour steps…" }));
    const r = await call("breaks?dataset=" + encodeURIComponent(dataset) + "&attr=" + encodeURIComponent(attr));
    if (layerSel.value !== value) return; // changed meanwhile
    if (!r.ok) {
      legend.replaceChildren(el("p", { class: "notice", text: errorText(r) }));
      return;
    }
    const br = r.body.data;
    const steps = ["step", valueExpr(attr, br.perFrame), COLOURS[0]];
    br.breaks.forEach((b, i) => steps.push(b, COLOURS[Math.min(i + 1, COLOURS.length - 1)]));
    map.addSource("choro", { type: "vector", tiles: [location.origin + base + "tiles/" + encodeURIComponent(dataset) + "/{z}/{y}/{x}"], minzoom: 6, maxzoom: 9 });
    map.addLayer({
      id: "choro-fill",
      type: "fill",
      source: "choro",
      "source-layer": dataset,
      filter: ["==", ["typeof", ["get", attr]], "number"],
      paint: { "fill-color": steps, "fill-outline-color": steps, "fill-opacity": 0.78 },
    }, map.getLayer("b-state") ? "b-state" : map.getLayer("b-lga") ? "b-lga" : "outline-line");
    choropleth = { dataset: dataset, attr: attr };
    // The legend: one row per class.
    const unit = meta.unit ? " " + meta.unit : "";
    const items = [];
    const bounds = [br.min].concat(br.breaks, [br.max]);
    for (let i = 0; i + 1 < bounds.length; i++) {
      const from = i === 0 ? fmt(bounds[i]) : fmt(bounds[i]);
      const text = i + 2 === bounds.length ? from + " to " + fmt(bounds[i + 1]) : from + " to under " + fmt(bounds[i + 1]);
      items.push(el("li", {}, el("span", { class: "swatch sw" + Math.min(i, 5), "aria-hidden": "true" }), el("span", { text: text + unit })));
    }
    legend.replaceChildren(...[
      el("p", { class: "legend-title" }, el("strong", { text: meta.label + (meta.year ? " (" + meta.year + ")" : "") }),
        br.perFrame ? " per frame" : "", " — " + fmt(br.frames) + " frames record it; zoom 6 and over."),
      el("ul", { "aria-label": "Legend" }, ...items),
      meta.charged ? el("p", { class: "charged", text: "This dataset is licensed per query: each tile that shows it is charged as an API call." }) : null,
    ].filter(Boolean));
    if (map.getZoom() < 6) map.easeTo({ zoom: 6 });
  }
  layerSel.addEventListener("change", () => setChoropleth(layerSel.value));

  // --- Places ---------------------------------------------------------
  const placeForm = $("place-form");
  const placeInput = $("place");
  const results = $("place-results");
  function flyTo(bbox) {
    map.fitBounds([[bbox[0], bbox[1]], [bbox[2], bbox[3]]], { padding: 40, maxZoom: 13, duration: 1200 });
  }
  // The place's report (report.go): a state, LGA or ward by name, a town
  // as the ring of 5 km around its box's centre.
  function reportLink(p) {
    const kind = p.kind.toLowerCase();
    const q = kind === "town"
      ? "around=" + ((p.bbox[0] + p.bbox[2]) / 2).toFixed(5) + "," + ((p.bbox[1] + p.bbox[3]) / 2).toFixed(5) + "&radius=5"
      : "place=" + encodeURIComponent(kind === "lga" && p.within ? p.name + ", " + p.within : p.name) + "&kind=" + encodeURIComponent(kind);
    return el("a", { href: "report?" + q, class: "report-link", text: "Report" });
  }
  placeForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const q = placeInput.value.trim();
    if (q.length < 2) {
      results.replaceChildren(el("li", { class: "muted", text: "Type at least 2 characters." }));
      return;
    }
    results.replaceChildren(el("li", { class: "muted", text: "Searching…" }));
    const r = await call("places?q=" + encodeURIComponent(q));
    if (!r.ok) {
      results.replaceChildren(el("li", { class: "notice", text: errorText(r) }));
      return;
    }
    const list = r.body.data;
    if (!list.length) {
      results.replaceChildren(el("li", { class: "muted", text: "No place called “" + q + "” is recorded." }));
      return;
    }
    results.replaceChildren(...list.map((p) => {
      const b = el("button", { type: "button" }, el("strong", { text: p.name }), " ",
        el("span", { class: "kind", text: p.kind + (p.within ? ", " + p.within : "") + " · " + fmt(p.frames) + " frames" }));
      b.addEventListener("click", () => {
        flyTo(p.bbox);
        if (hooks.place) hooks.place(p);
        status("Showing " + p.name + " (" + p.kind + ").");
        mapCanvas.focus({ preventScroll: true });
      });
      return el("li", {}, b, " ", reportLink(p));
    }));
    if (list.length === 1 || list[0].name.toLowerCase() === q.toLowerCase()) {
      flyTo(list[0].bbox);
      if (hooks.place) hooks.place(list[0]);
      status("Showing " + list[0].name + " (" + list[0].kind + ").");
    }
  });
  placeInput.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") {
      placeInput.value = "";
      results.replaceChildren();
    }
  });

  // --- Selection ------------------------------------------------------
  const selEl = $("selection");
  function drawSelection() {
    const src = map.getSource("selection");
    if (src) src.setData({ type: "FeatureCollection", features: Array.from(selection.values()) });
    const n = selection.size;
    selEl.classList.toggle("full", n >= MAX);
    if (n === 0) {
      selEl.textContent = "No frames selected. Click, Shift+click or Shift+drag on the map; a question is about 1 to " + MAX + " frames.";
    } else if (n >= MAX) {
      selEl.textContent = n + " frames selected: that is the most a question can be about (" + MAX + "). Remove some with Shift+click to add others.";
    } else {
      selEl.textContent = n + (n === 1 ? " frame" : " frames") + " selected (up to " + MAX + ").";
    }
    root.dataset.selected = String(n);
    if (hooks.selection) hooks.selection();
  }
  function frameFeature(f) {
    return { type: "Feature", id: Number(f.id), geometry: f.geometry, properties: { id: String(f.id) } };
  }
  // addFrames adds frames to the selection up to MAX and says when some
  // did not fit.
  function addFrames(frames, truncated) {
    let left = 0;
    for (const f of frames) {
      if (selection.has(f.id)) continue;
      if (selection.size >= MAX) {
        left++;
        continue;
      }
      selection.set(f.id, frameFeature(f));
    }
    drawSelection();
    if (left > 0 || truncated) {
      status("The selection holds " + MAX + " frames, the most a question can be about: " + (truncated ? "more frames" : left + (left === 1 ? " frame" : " frames")) + " of the box were not added.");
    }
  }
  $("clear").addEventListener("click", () => {
    selection.clear();
    drawSelection();
    status("Selection cleared.");
  });

  // frameAt looks up the frame holding a point (the API's /v1/frames/at).
  async function frameAt(lngLat) {
    const r = await call("api/at?lat=" + lngLat.lat.toFixed(7) + "&lon=" + lngLat.lng.toFixed(7));
    if (r.status === 404) {
      status("There is no frame here: the point is outside the grid.");
      return null;
    }
    if (!r.ok) {
      status(errorText(r));
      return null;
    }
    return r.body.data;
  }

  // --- The frame panel (the data call) --------------------------------
  const info = $("frame-info");
  function renderValue(v) {
    if (v === null || v === undefined) return "—";
    if (typeof v === "object") return JSON.stringify(v);
    return fmt(v);
  }
  async function showFrame(frame) {
    info.replaceChildren(el("p", { class: "muted", text: "Reading frame " + frame.id + "…" }));
    const r = await call("api/data?ids=" + encodeURIComponent(frame.id));
    if (!r.ok) {
      info.replaceChildren(el("p", { class: "notice", text: errorText(r) }));
      return;
    }
    const d = r.body.data;
    const fr = (d.frames && d.frames[0]) || { datasets: [] };
    const bbox = fr.bbox || frame.bbox;
    const out = [el("dl", { class: "kv" },
      el("dt", { text: "Frame" }), el("dd", { id: "frame-id", text: String(fr.id || frame.id) }),
      el("dt", { text: "Bounding box" }), el("dd", { id: "frame-bbox", text: bbox ? bbox.map((x) => x.toFixed(5)).join(", ") : "—" }),
    )];
    if (d.charged && d.charged.length) {
      out.push(el("p", { class: "charged", id: "frame-charged", text: "Charged for this call: " + d.charged.join(", ") + " (per-query licence)." }));
    }
    if (d.leftOut && d.leftOut.length) {
      out.push(el("p", { class: "notice", id: "frame-leftout", text: "Left out: " + d.leftOut.map((l) => (l.id || l.dataset || "?") + (l.reason ? " (" + l.reason + ")" : "")).join("; ") }));
    }
    if (!fr.datasets.length) {
      out.push(el("p", { class: "muted", text: "No dataset your organisation reads records anything here." }));
    }
    for (const ds of fr.datasets) {
      const kv = el("dl", { class: "kv" });
      for (const [k, v] of Object.entries(ds.attributes || {})) {
        kv.append(el("dt", { text: k }), el("dd", { text: renderValue(v) }));
      }
      const n = ds.featureCount || (ds.features && ds.features.features ? ds.features.features.length : 0);
      if (n) kv.append(el("dt", { text: "features" }), el("dd", { text: fmt(n) }));
      out.push(el("div", { class: "ds", "data-dataset": ds.id }, el("h3", { text: (ds.name || ds.id) + " " }, el("span", { class: "muted", text: "(" + ds.id + ")" })), kv));
    }
    info.replaceChildren(...out);
    root.dataset.frame = String(fr.id || frame.id);
  }

  // A click shows the frame and selects it alone; Shift+click adds or
  // removes it.
  map.on("click", async (e) => {
    if (boxJustDrawn) return;
    if (hooks.click && hooks.click(e)) return;
    const frame = await frameAt(e.lngLat);
    if (!frame) return;
    if (e.originalEvent.shiftKey || $("add-mode").checked) {
      if (selection.has(frame.id)) {
        selection.delete(frame.id);
        drawSelection();
      } else {
        addFrames([frame]);
      }
      return;
    }
    selection.clear();
    addFrames([frame]);
    showFrame(frame);
  });

  // Shift+drag draws a box and selects the frames in it (the API's box
  // call, at most MAX frames).
  const canvas = map.getCanvasContainer();
  let boxStart = null;
  let boxEl = null;
  let boxJustDrawn = false;
  function mousePos(e) {
    const rect = canvas.getBoundingClientRect();
    return new maplibregl.Point(e.clientX - rect.left - canvas.clientLeft, e.clientY - rect.top - canvas.clientTop);
  }
  canvas.addEventListener("mousedown", (e) => {
    if (!e.shiftKey || e.button !== 0) return;
    map.dragPan.disable();
    boxStart = mousePos(e);
    e.preventDefault();
    document.addEventListener("mousemove", onBoxMove);
    document.addEventListener("mouseup", onBoxUp);
  }, true);
  function onBoxMove(e) {
    const p = mousePos(e);
    if (!boxEl) {
      boxEl = el("div", { class: "box-select" });
      canvas.append(boxEl);
    }
    const x0 = Math.min(boxStart.x, p.x), y0 = Math.min(boxStart.y, p.y);
    boxEl.style.left = x0 + "px";
    boxEl.style.top = y0 + "px";
    boxEl.style.width = Math.abs(p.x - boxStart.x) + "px";
    boxEl.style.height = Math.abs(p.y - boxStart.y) + "px";
  }
  async function onBoxUp(e) {
    document.removeEventListener("mousemove", onBoxMove);
    document.removeEventListener("mouseup", onBoxUp);
    map.dragPan.enable();
    const p = mousePos(e);
    const drawn = boxEl !== null && Math.abs(p.x - boxStart.x) > 3 && Math.abs(p.y - boxStart.y) > 3;
    if (boxEl) boxEl.remove();
    boxEl = null;
    if (!drawn) return;
    boxJustDrawn = true;
    setTimeout(() => { boxJustDrawn = false; }, 50);
    const a = map.unproject(boxStart), b = map.unproject(p);
    await selectBox(Math.min(a.lng, b.lng), Math.min(a.lat, b.lat), Math.max(a.lng, b.lng), Math.max(a.lat, b.lat));
  }
  async function selectBox(w, s, e, n) {
    const room = MAX - selection.size;
    if (room <= 0) {
      addFrames([], true);
      return;
    }
    const bbox = [w, s, e, n].map((v) => v.toFixed(6)).join(",");
    const r = await call("api/frames?bbox=" + bbox + "&limit=" + room);
    if (!r.ok) {
      status(errorText(r));
      return;
    }
    const fc = r.body.data;
    const frames = fc.features.map((f) => ({ id: String(f.id), geometry: f.geometry }));
    addFrames(frames, Boolean(fc.truncated));
    if (!fc.truncated) status(frames.length + " frames of the box added to the selection.");
  }
  $("select-view").addEventListener("click", () => {
    const b = map.getBounds();
    selectBox(b.getWest(), b.getSouth(), b.getEast(), b.getNorth());
  });

  // Keyboard: Enter shows the frame at the centre, Shift+Enter adds it,
  // Escape clears the selection.
  mapCanvas.addEventListener("keydown", async (e) => {
    if (e.key === "Escape") {
      selection.clear();
      drawSelection();
      status("Selection cleared.");
      return;
    }
    if (e.key !== "Enter") return;
    e.preventDefault();
    if (hooks.click && hooks.click({ lngLat: map.getCenter(), originalEvent: e })) return;
    const frame = await frameAt(map.getCenter());
    if (!frame) return;
    if (e.shiftKey || $("add-mode").checked) {
      addFrames([frame]);
      return;
    }
    selection.clear();
    addFrames([frame]);
    showFrame(frame);
  });

  // --- Questions ------------------------------------------------------
  const askForm = $("ask-form");
  const answer = $("answer");
  const question = $("question");
  question.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      askForm.requestSubmit();
    }
  });
  askForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    ask(question.value.trim());
  });
  async function ask(q) {
    const area = hooks.area ? hooks.area(q, selection.size) : null;
    if (area === undefined) return; // the area is not ready; said so
    if (!area && selection.size === 0) {
      answer.replaceChildren(el("p", { class: "notice", text: "Select 1 to " + MAX + " frames on the map first." }));
      return;
    }
    const body = area ? { area: area } : { frameIds: Array.from(selection.keys()).slice(0, MAX) };
    if (q) body.question = q;
    const format = askForm.querySelector("input[name=format]:checked").value;
    const register = askForm.querySelector("input[name=register]:checked").value;
    if (format) body.format = format;
    if (register) body.register = register;
    if (hooks.before && !(await hooks.before(body))) return;
    answer.replaceChildren(el("p", { class: "muted", text: "Asking…" }));
    $("ask").disabled = true;
    const r = await call("api/insight", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, Accept: "application/json" },
      body: JSON.stringify(body),
    });
    $("ask").disabled = false;
    if (!r.ok) {
      answer.replaceChildren(el("p", { class: "notice", text: errorText(r) }));
      return;
    }
    renderAnswer(r.body.data);
    if (hooks.after) hooks.after(r.body.data, body);
  }
  function renderNarrative(text) {
    const box = el("div", { class: "narrative" });
    let list = null;
    for (const line of text.split("\n")) {
      if (line.startsWith("## ")) {
        list = null;
        box.append(el("h4", { text: line.slice(3) }));
      } else if (line.startsWith("- ")) {
        if (!list) {
          list = el("ul");
          box.append(list);
        }
        list.append(el("li", { text: line.slice(2) }));
      } else if (line.trim()) {
        list = null;
        box.append(el("p", { text: line }));
      }
    }
    return box;
  }
  function renderAnswer(a) {
    const out = [el("p", { class: "headline", id: "answer-headline", text: a.headline })];
    if (a.detail) out.push(el("p", { text: a.detail }));
    if (a.narrative) out.push(renderNarrative(a.narrative));
    if (a.notice) out.push(el("p", { class: "notice", text: a.notice }));
    if (a.facets && a.facets.length) {
      const dl = el("dl", { class: "kv", id: "answer-facets" });
      for (const f of a.facets) dl.append(el("dt", { text: f.label }), el("dd", { text: f.value }));
      out.push(el("h3", { text: "Figures" }), dl);
    }
    if (a.table && a.table.columns) {
      const thead = el("thead", {}, el("tr", {}, ...a.table.columns.map((c) => el("th", { scope: "col", text: c }))));
      const tbody = el("tbody", {}, ...a.table.rows.map((row) => el("tr", {}, ...row.map((c) => el("td", { text: c })))));
      out.push(el("div", { class: "table-wrap", role: "region", "aria-label": "Table of the answer", tabindex: "0" }, el("table", {}, thead, tbody)));
    }
    if (a.sources && a.sources.length) {
      out.push(el("p", { class: "meta", text: "Sources: " + a.sources.map((s) => s.layerName + (s.label ? " — " + s.label : "") + " (" + s.layerId + ")").join("; ") }));
    }
    if (a.leftOut && a.leftOut.length) {
      out.push(el("p", { class: "notice", text: "Left out: " + a.leftOut.map((l) => (l.id || l.dataset || "?") + (l.reason ? " (" + l.reason + ")" : "")).join("; ") }));
    }
    if (a.followUps && a.followUps.length) {
      const ul = el("ul", { class: "followups", "aria-label": "Follow-up questions" });
      for (const f of a.followUps) {
        const b = el("button", { type: "button", class: "secondary" }, f);
        b.addEventListener("click", () => {
          question.value = f;
          ask(f);
        });
        ul.append(el("li", {}, b));
      }
      out.push(el("h3", { text: "Ask next" }), ul);
    }
    const meta = ["confidence: " + a.confidence, "engine: " + a.engine];
    if (a.model) meta.push("model: " + a.model);
    if (a.register) meta.push("register: " + a.register);
    if (a.format) meta.push("format: " + a.format);
    out.push(el("p", { class: "meta", id: "answer-meta", text: meta.join(" · ") }));
    answer.replaceChildren(...out);
  }

  drawSelection();
  window.frameindexExplore = { map: map, root: root, base: base, hooks: hooks, selection: selection, call: call, el: el, fmt: fmt, status: status, errorText: errorText, answer: answer, question: question };
})();
