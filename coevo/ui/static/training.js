// Charts of a trainer's metrics.jsonl, drawn with Chart.js and refreshed by polling the UI's
// /api/training/<run> every few seconds while the trainer writes.
(function () {
  "use strict";
  const box = document.getElementById("charts");
  const status = document.getElementById("run-status");
  const source = box.dataset.source;
  const POLL_MS = 3000;
  const COLORS = ["#1f6feb", "#d97706", "#6e7781", "#1a7f37", "#8250df", "#cf222e", "#0a7ea4", "#bf8700"];
  const charts = {};
  let lastCount = -1;

  function color(i, alpha) {
    const hex = COLORS[i % COLORS.length];
    if (alpha === undefined) return hex;
    const n = parseInt(hex.slice(1), 16);
    return `rgba(${n >> 16},${(n >> 8) & 255},${n & 255},${alpha})`;
  }
  const num = (v) => (typeof v === "number" && isFinite(v) ? v : null);

  // series: [{label, points: Map(x -> y), low?: Map, high?: Map}]
  function lineData(series, xs, scale) {
    const datasets = [];
    series.forEach((s, i) => {
      const pick = (m) => xs.map((x) => (m.has(x) && m.get(x) !== null ? m.get(x) * scale : null));
      if (s.low && s.high) {
        datasets.push({ label: `${s.label} low`, data: pick(s.low), borderWidth: 0, pointRadius: 0, fill: false, band: true, spanGaps: true });
        datasets.push({ label: `${s.label} 95%`, data: pick(s.high), borderWidth: 0, pointRadius: 0, fill: "-1", backgroundColor: color(i, 0.15), band: true, spanGaps: true });
      }
      datasets.push({ label: s.label, data: pick(s.points), borderColor: color(i), backgroundColor: color(i), spanGaps: true, tension: 0.1 });
    });
    return { labels: xs, datasets };
  }

  function chart(id, title, type, data, options) {
    if (charts[id]) {
      charts[id].data = data;
      charts[id].update("none");
      return;
    }
    const wrap = document.createElement("div");
    wrap.className = "chart";
    wrap.id = `chart-${id}`;
    const h = document.createElement("h3");
    h.textContent = title;
    const inner = document.createElement("div");
    inner.className = "canvas-box";
    if (options && options.height) inner.style.height = options.height + "px";
    const canvas = document.createElement("canvas");
    inner.appendChild(canvas);
    wrap.append(h, inner);
    box.appendChild(wrap);
    charts[id] = new Chart(canvas, {
      type,
      data,
      options: Object.assign({
        animation: false,
        maintainAspectRatio: false,
        interaction: { mode: "index", intersect: false },
        plugins: { legend: { labels: { filter: (item, d) => !d.datasets[item.datasetIndex].band, boxWidth: 12 } } },
      }, (options && options.chart) || {}),
    });
  }

  function byKey(rows, key) {
    const groups = new Map();
    rows.forEach((r) => {
      const k = key(r);
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(r);
    });
    return groups;
  }
  const sortedNums = (values) => [...new Set(values)].sort((a, b) => a - b);

  function series(groups, x, field, withBand) {
    const out = [];
    groups.forEach((rows, label) => {
      const s = { label, points: new Map() };
      if (withBand) { s.low = new Map(); s.high = new Map(); }
      rows.forEach((r) => {
        s.points.set(x(r), num(r[field]));
        if (withBand && "ci95_low" in r) { s.low.set(x(r), num(r.ci95_low)); s.high.set(x(r), num(r.ci95_high)); }
      });
      out.push(s);
    });
    return out;
  }
  const pctAxis = { scales: { y: { min: 0, max: 100, title: { display: true, text: "%" } } } };

  function genenv(rows) {
    const epochs = rows.filter((r) => (r.kind || "epoch") === "epoch");
    const held = rows.filter((r) => r.kind === "heldout");
    const xsHeld = sortedNums(held.map((r) => r.epoch));
    if (held.length) {
      const groups = byKey(held, (r) => `${r.arm} · ${r.env}:${r.split}`);
      chart("heldout", "Held-out success by epoch (95% interval; epoch -1: the starting agent)", "line",
        lineData(series(groups, (r) => r.epoch, "success_rate", true), xsHeld, 100), { chart: pctAxis });
    }
    const xs = sortedNums(epochs.map((r) => r.epoch));
    const arms = byKey(epochs, (r) => r.arm);
    chart("success", "Training success by epoch and arm", "line", lineData(series(arms, (r) => r.epoch, "success_rate"), xs, 100), { chart: pctAxis });
    chart("inband", "In-band fraction by epoch", "line", lineData(series(arms, (r) => r.epoch, "in_band_fraction"), xs, 100), { chart: pctAxis });
    chart("renv", "Mean R_env by epoch", "line", lineData(series(arms, (r) => r.epoch, "mean_r_env"), xs, 1));
    const sizes = [];
    arms.forEach((rs, arm) => {
      sizes.push(...series(new Map([[`${arm} D_train`, rs]]), (r) => r.epoch, "d_train"));
      sizes.push(...series(new Map([[`${arm} D_env`, rs]]), (r) => r.epoch, "d_env"));
    });
    chart("sizes", "D_train and D_env sizes", "line", lineData(sizes, xs, 1));
    const withPi = epochs.filter((r) => r.pi_env && typeof r.pi_env === "object");
    if (withPi.length) {
      const last = withPi[withPi.length - 1];
      const families = last.pi_env.__family__ || {};
      chart("families", `π_env over families (${last.arm}, epoch ${last.epoch})`, "bar", {
        labels: Object.keys(families),
        datasets: [{ label: "probability", data: Object.values(families), backgroundColor: color(0) }],
      });
      const labels = [], values = [];
      Object.entries(last.pi_env).forEach(([family, knobs]) => {
        if (family === "__family__" || !knobs || typeof knobs !== "object") return;
        Object.entries(knobs).forEach(([knob, dist]) => {
          if (!dist || typeof dist !== "object") return;
          Object.entries(dist).forEach(([value, p]) => { labels.push(`${knob}=${value}`); values.push(num(p)); });
        });
      });
      if (labels.length) {
        chart("knobs", `π_env over knobs (${last.arm}, epoch ${last.epoch})`, "bar", {
          labels, datasets: [{ label: "probability", data: values, backgroundColor: color(1) }],
        }, { height: Math.max(260, 16 * labels.length), chart: { indexAxis: "y" } });
      }
    }
  }

  function agentevol(rows) {
    const stages = rows.filter((r) => r.kind === "stage");
    const held = rows.filter((r) => r.kind === "heldout");
    const order = [...new Set([...held, ...stages].map((r) => r.stage))];
    if (held.length) {
      const groups = byKey(held, (r) => `${r.env || ""}:${r.split || ""}`);
      chart("heldout", "Held-out success by stage (95% interval)", "line", lineData(series(groups, (r) => r.stage, "success_rate", true), order, 100), { chart: pctAxis });
    }
    const one = new Map([["agentevol", stages]]);
    chart("success", "Success by stage", "line", lineData(series(one, (r) => r.stage, "success_rate", true), order, 100), { chart: pctAxis });
    chart("explore", "Exploration success by stage", "line", lineData(series(one, (r) => r.stage, "explore_success_rate"), order, 100), { chart: pctAxis });
    chart("loss", "Training loss by stage", "line", lineData(series(one, (r) => r.stage, "train_loss"), order, 1));
  }

  function other(rows) {
    const keys = [...new Set(rows.flatMap((r) => Object.keys(r).filter((k) => num(r[k]) !== null)))];
    const xs = rows.map((_, i) => i);
    keys.slice(0, 12).forEach((k) => {
      const s = { label: k, points: new Map(rows.map((r, i) => [i, num(r[k])])) };
      chart(`k-${k}`, k, "line", lineData([s], xs, 1));
    });
  }

  async function poll() {
    try {
      const answer = await fetch(source, { cache: "no-store" });
      if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
      const doc = await answer.json();
      if (doc.rows.length !== lastCount) {
        lastCount = doc.rows.length;
        if (doc.kind === "genenv") genenv(doc.rows);
        else if (doc.kind === "agentevol") agentevol(doc.rows);
        else other(doc.rows);
      }
      const partial = doc.partial_line ? " · an incomplete line was left out" : "";
      status.textContent = `${doc.rows.length} rows · checked ${new Date().toLocaleTimeString()}${partial}`;
      status.dataset.rows = String(doc.rows.length);
    } catch (err) {
      status.textContent = `could not read the run: ${err.message}`;
    }
  }
  poll();
  setInterval(poll, POLL_MS);
})();
