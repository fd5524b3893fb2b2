// Questions about areas on the Explore map (issue 23): a place chosen
// with "Find a place", the frames in view, a polygon drawn on the map or
// a ring around a clicked point, besides the selection of up to 50
// frames. A question that would read a dataset licensed per query shows
// its cost first (the server's quote, by the one price rule) and runs
// only when confirmed. A breakdown colours the map by its units; a
// coverage answer highlights the frames beyond its distance. Drawing is
// done here with MapLibre's GeoJSON sources: no drawing library.
"use strict";
(function () {
  const X = window.frameindexExplore;
  if (!X) return;
  const { map, root, hooks, call, el, fmt, status, errorText, answer } = X;
  const $ = (id) => document.getElementById(id);
  const csrf = (document.querySelector("input[name=csrf]") || {}).value || "";
  const choice = $("area-choice");
  if (!choice) return;
  const now = $("area-now");
  const ringKm = $("ring-km");
  // Breakdown classes: a sequential blue-green, apart from the
  // choropleth's warm colours.
  const UNIT_COLOURS = ["#ccece6", "#99d8c9", "#66c2a4", "#2ca25f", "#006d2c"];
  const BEYOND = "#c51b8a";

  let mode = "selection";
  let place = null; // a result of the place search
  let placeWithParent = false; // the name alone was ambiguous
  let ring = null; // [lon, lat]
  let vertices = []; // the polygon being drawn, [lon, lat] each
  let closed = false;

  function empty() {
    return { type: "FeatureCollection", features: [] };
  }
  map.on("load", () => {
    map.addSource("area", { type: "geojson", data: empty() });
    map.addLayer({ id: "area-fill", type: "fill", source: "area", filter: ["==", ["geometry-type"], "Polygon"], paint: { "fill-color": "#6a3d9a", "fill-opacity": 0.12 } });
    map.addLayer({ id: "area-line", type: "line", source: "area", filter: ["!=", ["geometry-type"], "Point"], paint: { "line-color": "#6a3d9a", "line-width": 2.5, "line-dasharray": [2, 1] } });
    map.addLayer({ id: "area-points", type: "circle", source: "area", filter: ["==", ["geometry-type"], "Point"], paint: { "circle-radius": 5, "circle-color": "#6a3d9a", "circle-stroke-color": "#fff", "circle-stroke-width": 1.5 } });
    map.addSource("beyond", { type: "geojson", data: empty() });
    map.addLayer({ id: "beyond-fill", type: "fill", source: "beyond", paint: { "fill-color": BEYOND, "fill-opacity": 0.6 } });
    show();
  });

  // circle is a ring of 96 points radiusKm (great circle) around c, for
  // drawing only: the server computes the ring it answers about.
  function circle(c, radiusKm) {
    const R = 6371.0088, d = radiusKm / R, p1 = (c[1] * Math.PI) / 180, l1 = (c[0] * Math.PI) / 180;
    const ring = [];
    for (let i = 0; i <= 96; i++) {
      const b = (2 * Math.PI * (i % 96)) / 96;
      const p2 = Math.asin(Math.sin(p1) * Math.cos(d) + Math.cos(p1) * Math.sin(d) * Math.cos(b));
      const l2 = l1 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(p1), Math.cos(d) - Math.sin(p1) * Math.sin(p2));
      ring.push([(l2 * 180) / Math.PI, (p2 * 180) / Math.PI]);
    }
    return ring;
  }
  function radius() {
    const r = Number(ringKm.value);
    return r > 0 && r <= 100 ? r : null;
  }
  function draw() {
    const src = map.getSource("area");
    if (!src) return;
    const fs = [];
    if (mode === "ring" && ring) {
      fs.push({ type: "Feature", geometry: { type: "Point", coordinates: ring }, properties: {} });
      if (radius()) fs.push({ type: "Feature", geometry: { type: "Polygon", coordinates: [circle(ring, radius())] }, properties: {} });
    }
    if (mode === "polygon") {
      for (const v of vertices) fs.push({ type: "Feature", geometry: { type: "Point", coordinates: v }, properties: {} });
      if (closed) fs.push({ type: "Feature", geometry: { type: "Polygon", coordinates: [vertices.concat([vertices[0]])] }, properties: {} });
      else if (vertices.length > 1) fs.push({ type: "Feature", geometry: { type: "LineString", coordinates: vertices }, properties: {} });
    }
    src.setData({ type: "FeatureCollection", features: fs });
  }

  // show says which area a question is about, next to the choice.
  function show() {
    $("ring-opts").hidden = mode !== "ring";
    $("draw-opts").hidden = mode !== "polygon";
    const placeRadio = choice.querySelector("input[value=place]");
    placeRadio.disabled = !place;
    $("area-place-name").textContent = place ? place.name + " (" + place.kind + (place.within ? ", " + place.within : "") + ")" : "choose one with Find a place";
    let text;
    switch (mode) {
      case "place":
        text = "Asking about " + place.name + " (" + place.kind + (place.within ? ", " + place.within : "") + ").";
        break;
      case "view":
        text = "Asking about the frames in view (frames at the edges count by the share inside).";
        break;
      case "polygon":
        text = closed ? "Asking about the shape drawn (" + vertices.length + " corners; frames at its edges count by the share inside)."
          : vertices.length ? "Drawing: " + vertices.length + " corner" + (vertices.length === 1 ? "" : "s") + ". Click to add corners (or press Enter on the map for its centre); double-click or Finish to close the shape."
            : "Click on the map to place the corners of a shape (or press Enter on the map for its centre); double-click or Finish to close it.";
        break;
      case "ring":
        text = ring ? "Asking about " + (radius() ? fmt(radius()) + " km" : "a ring") + " around " + ring[1].toFixed(4) + ", " + ring[0].toFixed(4) + " (frames at its edge count by the share inside)."
          : "Click on the map to place the ring's centre (or press Enter on the map for its centre).";
        break;
      default:
        text = "Asking about the selected frames; with none selected, about the place the question names (\u201cHow many people live in Dala?\u201d).";
    }
    now.textContent = text;
    reportLink();
    root.dataset.area = mode;
    map.doubleClickZoom[mode === "polygon" && !closed ? "disable" : "enable"]();
    draw();
  }
  // reportLink points "Report on this area" at the place report of the
  // chosen area (report.go reads the same members as a GET query; a
  // drawn shape goes as its GeoJSON, the selection as its frames' ids).
  const report = $("area-report");
  function reportLink() {
    let q = null;
    if (mode === "place" && place) q = "place=" + encodeURIComponent(place.name + (place.within && placeWithParent ? ", " + place.within : "")) + "&kind=" + encodeURIComponent(place.kind.toLowerCase());
    if (mode === "view") q = "bbox=" + hooks.area("", 0).bbox.join(",");
    if (mode === "ring" && ring && radius()) q = "around=" + ring.join(",") + "&radius=" + radius();
    if (mode === "polygon" && closed) q = "geometry=" + encodeURIComponent(JSON.stringify(hooks.area("", 0).geometry));
    if (mode === "selection" && X.selection && X.selection.size) q = "frames=" + Array.from(X.selection.keys()).join(",");
    report.hidden = !q;
    if (q) report.href = "report?" + q;
  }
  map.on("moveend", () => {
    if (mode === "view") reportLink();
  });
  hooks.selection = () => {
    if (mode === "selection") reportLink();
  };
  choice.addEventListener("change", (ev) => {
    if (ev.target.name !== "area") return;
    mode = ev.target.value;
    show();
  });
  ringKm.addEventListener("input", show);
  $("draw-finish").addEventListener("click", finish);
  $("draw-restart").addEventListener("click", () => {
    vertices = [];
    closed = false;
    show();
  });
  function finish() {
    if (vertices.length < 3) {
      status("A shape needs at least 3 corners.");
      return;
    }
    closed = true;
    show();
  }

  hooks.place = (p) => {
    if (!/^(state|lga|ward)$/i.test(p.kind)) return; // a town is a point
    place = p;
    placeWithParent = false;
    mode = "place";
    choice.querySelector("input[value=place]").checked = true;
    show();
  };
  hooks.click = (e) => {
    if (mode === "ring") {
      ring = [Number(e.lngLat.lng.toFixed(6)), Number(e.lngLat.lat.toFixed(6))];
      show();
      return true;
    }
    if (mode === "polygon") {
      if (closed) {
        vertices = [];
        closed = false;
      }
      const v = [Number(e.lngLat.lng.toFixed(6)), Number(e.lngLat.lat.toFixed(6))];
      // A double-click sends two clicks first: the same corner twice.
      const last = vertices[vertices.length - 1];
      if (!last || last[0] !== v[0] || last[1] !== v[1]) vertices.push(v);
      show();
      return true;
    }
    return false;
  };
  map.on("dblclick", (e) => {
    if (mode !== "polygon" || closed) return;
    e.preventDefault();
    finish();
  });

  // hooks.area: the question's area, null for the selection, undefined
  // (with a notice) when the chosen area is not complete.
  function notice(text) {
    answer.replaceChildren(el("p", { class: "notice", text: text }));
    return undefined;
  }
  hooks.area = (q, selected) => {
    switch (mode) {
      case "place": {
        const a = { place: place.name + (placeWithParent && place.within ? ", " + place.within : ""), kind: place.kind.toLowerCase() };
        return a;
      }
      case "view": {
        const b = map.getBounds();
        const c = (v, lo, hi) => Number(Math.min(hi, Math.max(lo, v)).toFixed(6));
        return { bbox: [c(b.getWest(), -180, 180), c(b.getSouth(), -90, 90), c(b.getEast(), -180, 180), c(b.getNorth(), -90, 90)] };
      }
      case "polygon":
        if (!closed) return notice("Finish drawing the shape first: at least 3 corners, then double-click or Finish.");
        return { geometry: { type: "Polygon", coordinates: [ccw(vertices).concat([ccw(vertices)[0]])] } };
      case "ring":
        if (!ring) return notice("Click on the map to place the ring's centre first.");
        if (!radius()) return notice("Give the ring a radius from 0.1 to 100 km.");
        return { around: ring, radiusKm: radius() };
    }
    if (selected === 0 && q) return { inQuestion: true };
    return null;
  };
  // ccw returns the corners anticlockwise (RFC 7946's outer rings).
  function ccw(vs) {
    let s = 0;
    for (let i = 0; i < vs.length; i++) {
      const a = vs[i], b = vs[(i + 1) % vs.length];
      s += (b[0] - a[0]) * (b[1] + a[1]);
    }
    return s > 0 ? vs.slice().reverse() : vs;
  }

  async function post(path, body) {
    return call(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, Accept: "application/json" },
      body: JSON.stringify(body),
    });
  }

  // hooks.before: an area question is quoted first; one that would
  // spend credits waits for the person's confirmation.
  hooks.before = async (body) => {
    clearOverlays();
    if (!body.area) return true;
    answer.replaceChildren(el("p", { class: "muted", text: "Working out what the question reads…" }));
    let r = await post("area/quote", body);
    if (!r.ok && r.status === 400 && mode === "place" && !placeWithParent && place.within) {
      // The name alone is ambiguous: name the place with its parent.
      placeWithParent = true;
      body.area = hooks.area("", 0);
      r = await post("area/quote", body);
    }
    if (!r.ok) {
      const hint = body.area.inQuestion && r.status === 400 ? "Select frames on the map, choose an area under Ask about, or name a place in the question. " : "";
      answer.replaceChildren(el("p", { class: "notice", text: hint + errorText(r) }));
      return false;
    }
    const qd = r.body.data;
    root.dataset.quoteCredits = String(qd.credits);
    // What the server resolved the area to, as the answer will say.
    now.textContent = "Asking about " + qd.area.name + " (" + qd.area.kind + (qd.area.parent ? ", " + qd.area.parent : "") + "): " +
      fmt(qd.area.frameCount) + (qd.area.frameCount === 1 ? " frame, " : " frames, ") + fmt(qd.area.km2) + " km².";
    if (!qd.credits) return true;
    const what = qd.reads.map((x) => x.name + " (" + x.dataset + ") on " + fmt(x.frames) + (x.frames === 1 ? " frame" : " frames") + ": " + fmt(x.credits) + (x.credits === 1 ? " credit" : " credits")).join("; ");
    return new Promise((resolve) => {
      const yes = el("button", { type: "button", id: "cost-confirm" }, "Ask and spend " + fmt(qd.credits) + (qd.credits === 1 ? " credit" : " credits"));
      const no = el("button", { type: "button", id: "cost-cancel", class: "secondary" }, "Cancel");
      yes.addEventListener("click", () => resolve(true));
      no.addEventListener("click", () => {
        answer.replaceChildren(el("p", { class: "muted", text: "Not asked: nothing was spent." }));
        resolve(false);
      });
      answer.replaceChildren(el("div", { class: "charged cost", id: "cost", role: "alertdialog", "aria-label": "Cost of the question" },
        el("p", { text: "This question reads " + what + " (about " + fmt(qd.area.frameCount) + " frames of " + qd.area.name + "), licensed per query." }),
        el("p", { class: "sel-actions" }, yes, no)));
      yes.focus();
    });
  };

  function clearOverlays() {
    for (const id of ["units-fill"]) if (map.getLayer(id)) map.removeLayer(id);
    if (map.getSource("units")) map.removeSource("units");
    const b = map.getSource("beyond");
    if (b) b.setData(empty());
    delete root.dataset.units;
    delete root.dataset.beyond;
    delete root.dataset.beyondShown;
  }

  // hooks.after: a breakdown colours its units, coverage highlights the
  // frames beyond its distance.
  hooks.after = async (a, body) => {
    X.last = a; // for the browser tests
    X.lastBody = body;
    const plan = a.plan || {};
    const groups = (a.result && a.result.groups) || [];
    if (plan.group && plan.group.measure && groups.length) colourUnits(plan.group.measure, groups);
    const d = plan.distance;
    if (body.area && d && d.km > 0 && d.op) await highlightBeyond(body, d);
  };

  // swatch is a legend's colour box (styled through the DOM: the page's
  // policy allows no style attribute).
  function swatch(colour) {
    const s = el("span", { class: "swatch", "aria-hidden": "true" });
    s.style.background = colour;
    return s;
  }
  function colourUnits(m, groups) {
    const vals = groups.filter((g) => typeof g.value === "number").map((g) => g.value).sort((x, y) => x - y);
    if (!vals.length) return;
    // Quantile classes of the units' figures.
    const cuts = [];
    for (let i = 1; i < UNIT_COLOURS.length; i++) cuts.push(vals[Math.min(vals.length - 1, Math.floor((i * vals.length) / UNIT_COLOURS.length))]);
    const cls = (v) => {
      let k = 0;
      while (k < cuts.length && v >= cuts[k] && cuts[k] !== cuts[k - 1]) k++;
      return Math.min(k, UNIT_COLOURS.length - 1);
    };
    const match = ["match", ["to-string", ["get", m.attribute]]];
    const seen = new Set();
    for (const g of groups) {
      if (typeof g.value !== "number" || seen.has(g.key)) continue;
      seen.add(g.key);
      match.push(g.key, UNIT_COLOURS[cls(g.value)]);
    }
    match.push("rgba(0,0,0,0)");
    map.addSource("units", { type: "vector", tiles: [location.origin + X.base + "tiles/" + encodeURIComponent(m.dataset) + "/{z}/{y}/{x}"], minzoom: 6, maxzoom: 9 });
    map.addLayer({
      id: "units-fill",
      type: "fill",
      source: "units",
      "source-layer": m.dataset,
      filter: ["in", ["to-string", ["get", m.attribute]], ["literal", Array.from(seen)]],
      paint: { "fill-color": match, "fill-opacity": 0.75 },
    }, map.getLayer("area-fill") ? "area-fill" : undefined);
    root.dataset.units = String(seen.size);
    const items = [];
    const bounds = [vals[0]].concat(cuts, [vals[vals.length - 1]]);
    for (let i = 0; i < UNIT_COLOURS.length; i++) {
      if (i > 0 && bounds[i] === bounds[i - 1]) continue;
      items.push(el("li", {}, swatch(UNIT_COLOURS[i]), el("span", { text: fmt(bounds[i]) + (i + 1 < bounds.length ? " to " + fmt(bounds[i + 1]) : "") })));
    }
    answer.append(el("div", { class: "legend", id: "units-legend" },
      el("p", { class: "legend-title", text: "The map colours each of the " + fmt(seen.size) + " units (" + m.attribute + " of " + m.dataset + ") by its figure, from zoom 6." }),
      el("ul", { "aria-label": "Legend of the units" }, ...items)));
    if (map.getZoom() < 6) map.easeTo({ zoom: 6 });
  }

  async function highlightBeyond(body, d) {
    const r = await post("area/beyond", body);
    if (!r.ok) {
      answer.append(el("p", { class: "notice", text: "The frames beyond " + fmt(d.km) + " km are not highlighted: " + errorText(r) }));
      return;
    }
    const b = r.body.data;
    const fs = b.boxes.map((x) => ({ type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [[[x[0], x[1]], [x[2], x[1]], [x[2], x[3]], [x[0], x[3]], [x[0], x[1]]]] } }));
    map.getSource("beyond").setData({ type: "FeatureCollection", features: fs });
    root.dataset.beyondShown = String(fs.length);
    root.dataset.beyond = String(b.frames);
    answer.append(el("p", { class: "legend", id: "beyond-note" },
      swatch(BEYOND), " ",
      fmt(b.frames) + (b.frames === 1 ? " frame lies" : " frames lie") + " more than " + fmt(b.km) + " km from the nearest feature of " + b.feature + (b.truncated ? "; the map highlights the first " + fmt(b.boxes.length) + "." : ": highlighted on the map.")));
  }
})();
