// The enrichment page: uploads the site file as the request's body, polls
// the job every half second (the server updates its progress four times
// a second), shows the quote of per-query charges and releases the result
// when the person accepts it.
(function () {
  "use strict";
  var form = document.getElementById("enrich-form");
  if (!form) { return; }
  var csrf = form.elements.csrf.value;
  var el = function (id) { return document.getElementById(id); };
  var job = null;

  function showError(msg) {
    var e = el("enrich-error");
    e.textContent = msg;
    e.hidden = false;
  }

  function call(method, url, body, type) {
    var headers = { "X-CSRF-Token": csrf };
    if (type) { headers["Content-Type"] = type; }
    return fetch(url, { method: method, body: body, headers: headers, credentials: "same-origin" }).then(function (res) {
      return res.json().then(function (v) {
        if (v.error) { throw new Error(v.error.message); }
        return v;
      });
    });
  }

  function show(st) {
    job = st;
    el("enrich-job").hidden = false;
    var p = el("enrich-progress");
    p.value = st.state === "running" ? (st.percent || 0) : 100;
    var words = { running: "Enriching", quoted: "Enriched: accept the quote to release the result", ready: "Ready", failed: "Failed" };
    el("enrich-state").textContent = (words[st.state] || st.state) + ": " + st.sites.toLocaleString() + " sites" +
      (st.rowsWithNotes ? " (" + st.rowsWithNotes.toLocaleString() + " with figures missing; see enrich_note)" : "");
    var q = el("enrich-quote");
    if (st.quote && st.quote.length) {
      q.textContent = "Per-query charges: " + st.quote.map(function (l) { return l.dataset + " " + l.credits.toLocaleString() + " credits"; }).join(", ") +
        " — " + st.totalCredits.toLocaleString() + " credits in all" + (st.charged ? ", charged." : ".");
    } else if (st.state !== "running") {
      q.textContent = "Nothing to charge: no measure comes from a dataset licensed per query.";
    }
    el("enrich-run").hidden = st.state !== "quoted";
    var d = el("enrich-download");
    d.hidden = !st.download;
    if (st.download) { d.href = st.download; }
    if (st.error) { showError(st.error.message); }
    if (st.state === "running") { setTimeout(poll, 500); }
  }

  function poll() {
    call("GET", "/console/enrich/jobs/" + job.id).then(show, function (e) { showError(e.message); });
  }

  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    el("enrich-error").hidden = true;
    var file = el("enrich-file").files[0];
    if (!file) { return; }
    var q = new URLSearchParams({
      name: file.name, radius: el("enrich-radius").value, measures: el("enrich-measures").value,
      near: el("enrich-near").value, format: el("enrich-format").value
    });
    call("POST", "/console/enrich/jobs?" + q.toString(), file, "application/octet-stream").then(show, function (e) { showError(e.message); });
  });

  el("enrich-run").addEventListener("click", function () {
    call("POST", "/console/enrich/jobs/" + job.id + "/run", null, null).then(show, function (e) { showError(e.message); });
  });

  el("enrich-download").addEventListener("click", function () {
    setTimeout(function () { el("enrich-download").hidden = true; }, 0);
  });
}());
