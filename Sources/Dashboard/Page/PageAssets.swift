/// The gym-floor page: one HTML document with its CSS and JavaScript inline, so the first
/// render needs one request, nothing is built and nothing comes from a CDN.
///
/// The page speaks to `/events` (Server-Sent Events: `hello` replaces everything, `tile` and
/// `gateway` update one thing) and keeps its own state keyed by gateway and machine, so a
/// reconnect's `hello` simply replaces it. `EventSource` reconnects by itself. Sizes are in
/// `clamp()`/`vw` so the same page reads on a 1080p TV across a room and on a phone. Elements
/// carry `data-*` attributes (machine, gateway, state, field) that the browser test reads.
/// `window.dashboard` exposes what the test and the latency measurement need.
public enum PageAssets {
    public static func page(title: String) -> String {
        html.replacingOccurrences(of: "{{TITLE}}", with: escape(title))
            .replacingOccurrences(of: "{{SPARK_SECONDS}}", with: String(Dashboard.sparklineSeconds))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark">
<title>{{TITLE}}</title>
<style>
:root { --bg:#0d1117; --card:#161b22; --line:#30363d; --text:#e6edf3; --dim:#8b949e; --ok:#3fb950; --warn:#d29922; --bad:#f85149; --bike:#58a6ff; --rower:#bc8cff; }
* { box-sizing: border-box; }
html { font-size: clamp(14px, 0.95vw, 30px); }
body { margin: 0; background: var(--bg); color: var(--text); font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
header { display: flex; align-items: baseline; gap: 1rem; padding: 0.8rem 1.2rem; border-bottom: 1px solid var(--line); }
header h1 { margin: 0; font-size: 1.6rem; font-weight: 650; }
header .nav { color: var(--bike); font-size: 1.1rem; }
header .clock { margin-left: auto; font-variant-numeric: tabular-nums; color: var(--dim); font-size: 1.3rem; }
.live { font-size: 0.9rem; padding: 0.15rem 0.6rem; border-radius: 1rem; background: var(--bad); color: #000; }
.live.on { background: var(--ok); }
main { padding: 0.6rem 1.2rem 1.2rem; }
section.gateway { margin-top: 0.8rem; }
.strip { display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem 1.2rem; padding: 0.5rem 0.8rem; border-radius: 0.5rem; background: var(--card); border: 1px solid var(--line); color: var(--dim); font-size: 1rem; }
.strip .name { color: var(--text); font-weight: 650; font-size: 1.2rem; }
.strip b { color: var(--text); font-variant-numeric: tabular-nums; }
.dot { display: inline-block; width: 0.7rem; height: 0.7rem; border-radius: 50%; background: var(--bad); margin-right: 0.35rem; }
.dot.on { background: var(--ok); }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 21rem), 1fr)); gap: 0.8rem; margin-top: 0.8rem; }
.tile { background: var(--card); border: 1px solid var(--line); border-left: 0.4rem solid var(--bike); border-radius: 0.6rem; padding: 0.7rem 0.9rem; display: flex; flex-direction: column; gap: 0.35rem; }
.tile[data-type="rower"] { border-left-color: var(--rower); }
.tile[data-state="disconnected"], .tile.offline { opacity: 0.55; border-left-color: var(--bad); }
.tile .top { display: flex; align-items: center; gap: 0.5rem; }
.tile .name { font-weight: 650; font-size: 1.35rem; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.tile .name { flex-shrink: 0; max-width: 70%; }
.tile .kind { color: var(--dim); font-size: 0.9rem; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.tile .holder { color: var(--dim); font-size: 0.9rem; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.tile .holder.adopted { color: var(--warn); }
.pill { margin-left: auto; font-size: 0.85rem; padding: 0.1rem 0.55rem; border-radius: 1rem; background: var(--line); text-transform: uppercase; letter-spacing: 0.04em; white-space: nowrap; }
.pill.ready { background: var(--ok); color: #000; }
.pill.connecting, .pill.discovered { background: var(--warn); color: #000; }
.pill.disconnected, .pill.offline { background: var(--bad); color: #000; }
.main { display: flex; align-items: baseline; gap: 1rem; }
.big { font-size: 3.2rem; font-weight: 700; font-variant-numeric: tabular-nums; line-height: 1; }
.big small, .mid small, .cell small { font-size: 0.45em; color: var(--dim); font-weight: 500; margin-left: 0.2rem; }
.mid { font-size: 2rem; font-weight: 650; font-variant-numeric: tabular-nums; }
.cells { display: grid; grid-template-columns: repeat(3, 1fr); gap: 0.2rem 0.6rem; }
.cell { font-size: 1.25rem; font-variant-numeric: tabular-nums; }
.cell .label { display: block; font-size: 0.72rem; color: var(--dim); text-transform: uppercase; letter-spacing: 0.05em; }
svg.spark { width: 100%; height: 2.6rem; display: block; }
svg.spark polyline { fill: none; stroke: var(--bike); stroke-width: 2; vector-effect: non-scaling-stroke; }
.tile[data-type="rower"] svg.spark polyline { stroke: var(--rower); }
.empty { color: var(--dim); padding: 2rem 0; font-size: 1.3rem; }
@media (max-width: 600px) { html { font-size: 15px; } .big { font-size: 2.6rem; } header h1 { font-size: 1.3rem; } main { padding: 0.4rem 0.6rem; } }
</style>
</head>
<body>
<header><h1>{{TITLE}}</h1><span id="live" class="live">connecting</span><a class="nav" id="sessions-link" href="sessions">Last sessions</a><span class="clock" id="clock"></span></header>
<main id="floor"><div class="empty">Waiting for the gateway…</div></main>
<script>
"use strict";
(function () {
  const SPARK_SECONDS = {{SPARK_SECONDS}};
  const token = new URLSearchParams(location.search).get("token");
  if (token) document.getElementById("sessions-link").href = "sessions?token=" + encodeURIComponent(token);
  const dash = window.dashboard = { hellos: 0, firstRender: null, latencies: [], tiles: new Map(), gateways: new Map(), offset: 0 };
  const floor = document.getElementById("floor");
  const sections = new Map();
  const elements = new Map();
  const key = (t) => t.gateway + "\u0000" + t.name;
  const fmt = {
    int: (v) => v == null ? "–" : String(Math.round(v)),
    one: (v) => v == null ? "–" : v.toFixed(1),
    pace: (v) => v == null || v <= 0 ? "–" : Math.floor(v / 60) + ":" + String(Math.round(v % 60)).padStart(2, "0"),
    dist: (v) => v == null ? "–" : v < 1000 ? Math.round(v) + "<small>m</small>" : (v / 1000).toFixed(2) + "<small>km</small>",
    time: (s) => { if (s == null) return "–"; s = Math.max(0, Math.floor(s)); const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60; return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(r).padStart(2, "0"); },
  };
  const now = () => Date.now() / 1000 + dash.offset;
  function sessionSeconds(t) {
    const s = t.session; if (!s || s.state === "finished") return s ? s.elapsedMs / 1000 : null;
    const running = s.state === "started" || s.state === "resumed";
    return s.elapsedMs / 1000 + (running ? Math.max(0, now() - s.at) : 0);
  }
  function section(name) {
    let s = sections.get(name);
    if (s) return s;
    const el = document.createElement("section");
    el.className = "gateway"; el.dataset.gateway = name;
    el.innerHTML = '<div class="strip"><span class="name"><span class="dot"></span><span data-field="gateway"></span></span>' +
      '<span>upload queue <b data-field="pending">–</b> pending · <b data-field="uploaded">–</b> sent · <b data-field="dead">–</b> failed</span>' +
      '<span>last upload <b data-field="result">–</b></span>' +
      '<span data-field="reason"></span></div><div class="grid"></div>';
    el.querySelector('[data-field="gateway"]').textContent = name;
    const names = [...sections.keys(), name].sort();
    const next = sections.get(names[names.indexOf(name) + 1]);
    if (!sections.size) floor.textContent = "";
    floor.insertBefore(el, next ? next.el : null);
    s = { el, grid: el.querySelector(".grid") };
    sections.set(name, s);
    return s;
  }
  function renderGateway(g) {
    const s = section(g.name), q = (f) => s.el.querySelector('[data-field="' + f + '"]');
    s.el.dataset.online = g.online;
    s.el.querySelector(".dot").classList.toggle("on", g.online);
    const u = g.upload || {};
    q("pending").textContent = fmt.int(u.pending); q("uploaded").textContent = fmt.int(u.uploaded); q("dead").textContent = fmt.int(u.dead);
    q("result").textContent = u.result || "–";
    q("reason").textContent = g.online ? "" : "offline: " + (g.reason || "");
    for (const t of dash.tiles.values()) if (t.gateway === g.name) renderTile(t);
  }
  const TILE = '<div class="top"><span class="name" data-field="name"></span><span class="kind" data-field="kind"></span><span class="pill" data-field="state"></span></div>' +
    '<div class="holder" data-field="holder" hidden></div>' +
    '<div class="main"><span class="big" data-field="primary"></span><span class="mid" data-field="secondary"></span></div>' +
    '<div class="cells"><span class="cell"><span class="label">speed</span><span data-field="speed"></span></span>' +
    '<span class="cell"><span class="label">heart rate</span><span data-field="hr"></span></span>' +
    '<span class="cell"><span class="label">session</span><span data-field="time"></span></span>' +
    '<span class="cell"><span class="label">distance</span><span data-field="distance"></span></span>' +
    '<span class="cell"><span class="label">energy</span><span data-field="energy"></span></span>' +
    '<span class="cell"><span class="label" data-field="extra-label">power</span><span data-field="extra"></span></span></div>' +
    '<svg class="spark" viewBox="0 0 300 40" preserveAspectRatio="none"><polyline points=""/></svg>';
  function tileElement(t) {
    let e = elements.get(key(t));
    if (e) return e;
    const el = document.createElement("article");
    el.className = "tile"; el.dataset.machine = t.name; el.dataset.gateway = t.gateway; el.innerHTML = TILE;
    const f = {}; for (const x of el.querySelectorAll("[data-field]")) f[x.dataset.field] = x;
    e = { el, f, line: el.querySelector("polyline") };
    elements.set(key(t), e);
    const grid = section(t.gateway).grid;
    const after = [...grid.children].find((c) => c.dataset.machine > t.name);
    grid.insertBefore(el, after || null);
    return e;
  }
  // A tile of a gateway that is offline shows what it last knew, marked stale: its pill says
  // offline whatever state the gateway last reported.
  const gatewayOffline = (t) => { const g = dash.gateways.get(t.gateway); return !!g && !g.online; };
  function renderTile(t) {
    const { el, f, line } = tileElement(t);
    const rower = t.type === "rower", stale = gatewayOffline(t), shown = stale ? "offline" : t.state;
    el.dataset.type = t.type; el.dataset.state = t.state; el.dataset.shown = shown;
    el.classList.toggle("offline", stale);
    f.name.textContent = t.name; f.kind.textContent = (t.model || t.type);
    f.state.textContent = shown; f.state.className = "pill " + shown;
    // With the floor on: who holds the machine, and whose it is while a neighbour stands in.
    f.holder.hidden = !t.holder;
    f.holder.textContent = t.holder ? "held by " + t.holder + (t.adoptedFrom ? " · adopted from " + t.adoptedFrom : "") : "";
    f.holder.classList.toggle("adopted", !!t.adoptedFrom);
    f.primary.innerHTML = rower ? fmt.pace(t.pace) + "<small>/500m</small>" : fmt.int(t.power) + "<small>W</small>";
    f.secondary.innerHTML = rower ? fmt.int(t.strokeRate) + "<small>spm</small>" : fmt.int(t.cadence) + "<small>rpm</small>";
    f.speed.innerHTML = fmt.one(t.speed) + "<small>km/h</small>";
    f.hr.innerHTML = fmt.int(t.heartRate) + "<small>bpm</small>";
    f.distance.innerHTML = fmt.dist(t.distance);
    f.energy.innerHTML = fmt.int(t.energy) + "<small>kcal</small>";
    f["extra-label"].textContent = rower ? "power" : "cadence";
    f.extra.innerHTML = rower ? fmt.int(t.power) + "<small>W</small>" : fmt.int(t.cadence) + "<small>rpm</small>";
    f.time.textContent = fmt.time(sessionSeconds(t));
    const pts = t.spark || [], end = now(), max = Math.max(50, ...pts.map((p) => p.v));
    line.setAttribute("points", pts.map((p) => ((p.t - end + SPARK_SECONDS) / SPARK_SECONDS * 300).toFixed(1) + "," + (38 - p.v / max * 36).toFixed(1)).join(" "));
  }
  function renderAll() {
    floor.textContent = ""; sections.clear(); elements.clear();
    if (!dash.gateways.size && !dash.tiles.size) floor.innerHTML = '<div class="empty">Waiting for the gateway…</div>';
    for (const g of [...dash.gateways.values()].sort((a, b) => a.name < b.name ? -1 : 1)) section(g.name);
    for (const t of [...dash.tiles.values()].sort((a, b) => key(a) < key(b) ? -1 : 1)) renderTile(t);
    for (const g of dash.gateways.values()) renderGateway(g);
  }
  function onHello(e) {
    const s = JSON.parse(e.data);
    dash.offset = s.now - Date.now() / 1000;
    dash.gateways = new Map(s.gateways.map((g) => [g.name, g]));
    dash.tiles = new Map(s.tiles.map((t) => [key(t), t]));
    renderAll();
    dash.hellos += 1;
    if (dash.firstRender == null) {
      // What the first render showed, for the reload check: every tile, with its sparkline.
      dash.firstRender = performance.now();
      dash.firstRenderTiles = document.querySelectorAll("article.tile").length;
      dash.firstRenderSparks = [...document.querySelectorAll("article.tile polyline")].filter((p) => p.getAttribute("points")).length;
    }
  }
  function onTile(e) {
    const u = JSON.parse(e.data), t = u.tile, old = dash.tiles.get(key(t));
    t.spark = old ? old.spark : [];
    const p = u.point, last = t.spark[t.spark.length - 1];
    if (p && (!last || p.t > last.t)) {
      t.spark.push(p);
      while (t.spark.length && t.spark[0].t < p.t - SPARK_SECONDS) t.spark.shift();
    }
    dash.tiles.set(key(t), t);
    renderTile(t);
    if (dash.latencies.length < 100000) dash.latencies.push(Date.now() / 1000 - t.updated);
  }
  function onGateway(e) {
    const g = JSON.parse(e.data);
    dash.gateways.set(g.name, g);
    renderGateway(g);
  }
  function connect() {
    const source = new EventSource("events" + (token ? "?token=" + encodeURIComponent(token) : ""));
    const live = document.getElementById("live");
    source.addEventListener("hello", onHello);
    source.addEventListener("tile", onTile);
    source.addEventListener("gateway", onGateway);
    source.onopen = () => { live.textContent = "live"; live.classList.add("on"); };
    source.onerror = () => { live.textContent = "reconnecting"; live.classList.remove("on"); };
  }
  setInterval(() => {
    document.getElementById("clock").textContent = new Date().toLocaleTimeString();
    for (const t of dash.tiles.values()) { const e = elements.get(key(t)); if (e) e.f.time.textContent = fmt.time(sessionSeconds(t)); }
  }, 1000);
  connect();
})();
</script>
</body>
</html>
"""#
}
