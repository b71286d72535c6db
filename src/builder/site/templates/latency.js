// LeadGreen latency control: the lowest-energy configuration at any latency target, per GPU type and across them,
// for one model or two to four side by side. No framework, no request: it reads the JSON the page carries.
// The choice lives in the address (?target=75&models=a,b&rank=tokens) so it can be shared.
(function () {
  "use strict";
  var section = document.getElementById("latency");
  var source = document.getElementById("latency-data");
  if (!section || !source) return;
  var data = JSON.parse(source.textContent);
  var F = {};
  data.fields.forEach(function (name, i) { F[name] = i; });
  var gpus = Object.keys(data.gpus);
  var models = data.models;
  var number = document.getElementById("latency-target");
  var range = document.getElementById("latency-range");
  var boxes = Array.prototype.slice.call(section.querySelectorAll("#latency-models input[type=checkbox]"));
  var rank = document.getElementById("latency-rank");
  var note = document.getElementById("latency-note");
  var caption = document.getElementById("latency-caption");
  var head = section.querySelector("#latency-table thead tr");
  var body = section.querySelector("#latency-table tbody");

  var lows = [];
  models.forEach(function (m) {
    m[3].forEach(function (p) { lows.push(p[F.median_itl_ms]); });
  });
  var min = Math.min.apply(null, lows), max = Math.max.apply(null, lows);
  // The slider spans the measured latencies; the box takes any target above 0 and is answered as typed
  // (below the fastest configuration, none is that fast; above the slowest, every one qualifies).
  range.min = String(min);
  range.max = String(max);
  number.min = "0";

  function fixed(value, places) {
    return value.toLocaleString("en-US", {minimumFractionDigits: places, maximumFractionDigits: places});
  }
  function significant(value) {
    if (value === 0) return "0";
    var places = Math.max(3 - Math.floor(Math.log10(Math.abs(value))), 0);
    return fixed(value, places);
  }
  function el(name, attrs, text) {
    var node = document.createElement(name);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function link(text, href) {
    var a = el("a", {href: href}, text);
    return a;
  }

  // The configuration with the lowest energy per output token whose median ITL is at most target (first on a tie).
  function best(points, target, gpu) {
    var found = null;
    points.forEach(function (p) {
      if (p[F.median_itl_ms] > target || (gpu && p[F.gpu] !== gpu)) return;
      if (found === null || p[F.joules_per_output_token] < found[F.joules_per_output_token]) found = p;
    });
    return found;
  }

  function cell(td, p) {
    if (p === null) {
      td.appendChild(el("span", {"class": "none"}, "none this fast"));
      return;
    }
    td.appendChild(el("strong", {}, fixed(p[F.wh_per_million_output_tokens], 2)));
    if (p[F.joules_per_response] !== null) {
      var per = significant(p[F.joules_per_response]) + " J per response, " +
        fixed(p[F.wh_per_thousand_responses], 2) + " Wh per 1,000";
      td.appendChild(el("span", {"class": "per"}, per));
    }
    var how = el("span", {"class": "how"});
    how.appendChild(document.createTextNode(p[F.num_gpus] + " \u00d7 "));
    how.appendChild(link(p[F.gpu], data.gpus[p[F.gpu]]));
    how.appendChild(document.createTextNode(", " + p[F.max_num_seqs].toLocaleString("en-US") + " seqs, " +
      fixed(p[F.median_itl_ms], 1) + " ms"));
    td.appendChild(how);
  }

  function picked() {
    return boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
  }

  function rankValue(p) {
    if (p === null) return Infinity;
    if (rank && rank.value === "tokens") return p[F.joules_per_output_token];
    var j = p[F.joules_per_response];
    return j === null ? p[F.joules_per_output_token] : j;
  }

  function state() {
    var params = new URLSearchParams(window.location.search);
    var target = parseFloat(params.get("target"));
    if (!isFinite(target) || target <= 0) target = 100; // the middle of the three fixed targets
    number.value = String(target);
    range.value = String(target);
    var wanted = (params.get("models") || "").split(",").filter(Boolean).slice(0, 4);
    boxes.forEach(function (b) { b.checked = wanted.indexOf(b.value) >= 0; });
    if (rank && params.get("rank") === "tokens") rank.value = "tokens";
  }

  function remember(target) {
    var params = new URLSearchParams(window.location.search);
    params.set("target", String(target));
    var chosen = picked();
    if (chosen.length) params.set("models", chosen.join(",")); else params.delete("models");
    if (rank && rank.value === "tokens") params.set("rank", "tokens"); else params.delete("rank");
    window.history.replaceState(null, "", "?" + params.toString() + window.location.hash);
  }

  function render() {
    var target = parseFloat(number.value);
    if (!isFinite(target) || target <= 0) {  // the table keeps the last target, its caption says which
      note.textContent = "Type a latency target in ms, above 0.";
      return;
    }
    var chosen = picked();
    boxes.forEach(function (b) { b.disabled = !b.checked && chosen.length >= 4; });
    var shown = models.filter(function (m) { return !chosen.length || chosen.indexOf(m[0]) >= 0; });
    var rows = shown.map(function (m) {
      var across = best(m[3], target, null);
      return {model: m, across: across, per: gpus.map(function (g) { return best(m[3], target, g); })};
    });
    if (rank) rows.sort(function (a, b) { return rankValue(a.across) - rankValue(b.across); });

    head.textContent = "";
    head.appendChild(el("th", {scope: "col"}, "Model"));
    head.appendChild(el("th", {scope: "col"}, "Lowest on any GPU type"));
    gpus.forEach(function (g) {
      var th = el("th", {scope: "col"});
      th.appendChild(link(g, data.gpus[g]));
      head.appendChild(th);
    });
    body.textContent = "";
    rows.forEach(function (row) {
      var tr = el("tr", {"data-slug": row.model[0]});
      var th = el("th", {scope: "row"});
      th.appendChild(link(row.model[1], row.model[2]));
      tr.appendChild(th);
      var td = el("td", {"data-label": "Lowest on any GPU type"});
      cell(td, row.across);
      tr.appendChild(td);
      row.per.forEach(function (p, i) {
        var gtd = el("td", {"data-label": gpus[i], "data-gpu": gpus[i]});
        if (row.model[3].some(function (q) { return q[F.gpu] === gpus[i]; })) cell(gtd, p);
        else gtd.appendChild(el("span", {"class": "none"}, "not measured"));
        tr.appendChild(gtd);
      });
      body.appendChild(tr);
    });
    var by = !rank ? "" : rank.value === "tokens" ? " Ranked by energy per output token, lowest first." :
      " Ranked by energy per response, lowest first.";
    caption.textContent = "Under " + fixed(target, 1) + " ms median inter-token latency: Wh per million output " +
      "tokens, then energy per response; under each, the GPU setup, batch limit and median inter-token latency." + by;
    note.textContent = "Target " + fixed(target, 1) + " ms; measured latencies run from " + fixed(min, 1) +
      " to " + fixed(max, 1) + " ms." + (boxes.length && chosen.length === 1 ? " Pick one more model to compare." : "");
    remember(target);
  }

  state();
  number.addEventListener("input", function () { range.value = number.value; render(); });
  range.addEventListener("input", function () { number.value = range.value; render(); });
  boxes.forEach(function (b) { b.addEventListener("change", render); });
  if (rank) rank.addEventListener("change", render);
  section.hidden = false;
  render();
})();
