// FleetMesh station dashboard: the live picture from /api/v1/live on a Leaflet map, commands through /api/v1.
"use strict";

const SEPARATION_M = 5.0;      // FleetMesh's default horizontal separation
const VERTICAL_SEPARATION_M = 2.9;
const STEP_M_PER_DEG = 111320;

const state = {
  vehicles: new Map(),   // node → VehicleReport
  airspace: new Map(),   // node → AirspaceReport
  origin: null,
  selected: null,        // UAV number
  sortKey: "uavNumber",
  sortUp: true,
  wasStale: new Map(),
  conflicts: new Set(),
  history: new Map(),    // node → [{t, altitude, speed, battery}] of the last PLOT_SECONDS
  placingTarget: false,
};
const PLOT_SECONDS = 300;

const map = L.map("map", { zoomSnap: 0.25, attributionControl: false }).setView([0, 0], 3);
const layers = { grid: L.layerGroup().addTo(map), paths: L.layerGroup().addTo(map), rings: L.layerGroup().addTo(map) };
const markers = new Map();   // node → L.marker
let centred = false, gridDrawn = false;

// Shows every drone (and the mission origin) on the map.
function fitFleet() {
  const points = [...state.vehicles.values()].map((v) => [v.latitude, v.longitude]);
  if (state.origin) points.push([state.origin.latitude, state.origin.longitude]);
  if (points.length === 0) return;
  map.fitBounds(L.latLngBounds(points).pad(0.15), { maxZoom: 19 });
}

const FitControl = L.Control.extend({
  onAdd() {
    const b = L.DomUtil.create("button", "fit");
    b.textContent = "Fit fleet";
    b.title = "Show every drone";
    L.DomEvent.on(b, "click", (e) => { L.DomEvent.stop(e); fitFleet(); });
    return b;
  },
});
new FitControl({ position: "topleft" }).addTo(map);

function metresToLatLon(lat, lon, east, north) {
  return [lat + north / STEP_M_PER_DEG, lon + east / (STEP_M_PER_DEG * Math.cos(lat * Math.PI / 180))];
}

function horizontalMetres(a, b) {
  const dn = (b[0] - a[0]) * STEP_M_PER_DEG;
  const de = (b[1] - a[1]) * STEP_M_PER_DEG * Math.cos(a[0] * Math.PI / 180);
  return Math.hypot(dn, de);
}

// A metric grid around the mission origin (or the first vehicle): no tiles, the field has no internet.
function drawGrid(lat, lon) {
  layers.grid.clearLayers();
  const span = 300, step = 10;
  for (let d = -span; d <= span; d += step) {
    const major = d % 50 === 0;
    const style = { color: d === 0 ? "#7a9aaa" : major ? "#c3ccd4" : "#e2e7eb", weight: d === 0 ? 1.5 : 1, interactive: false };
    L.polyline([metresToLatLon(lat, lon, d, -span), metresToLatLon(lat, lon, d, span)], style).addTo(layers.grid);
    L.polyline([metresToLatLon(lat, lon, -span, d), metresToLatLon(lat, lon, span, d)], style).addTo(layers.grid);
    if (d !== 0 && major) {
      L.marker(metresToLatLon(lat, lon, d, 2), {
        icon: L.divIcon({ className: "grid-label", html: d + " m", iconSize: [44, 12] }), interactive: false,
      }).addTo(layers.grid);
    }
  }
}

function logEvent(text, kind, time) {
  const li = document.createElement("li");
  li.className = kind || "";
  li.textContent = (time ? new Date(time) : new Date()).toLocaleTimeString() + "  " + text;
  const list = document.getElementById("events");
  list.prepend(li);
  while (list.children.length > 200) list.lastChild.remove();
}

function label(v) { return v.uavNumber != null ? String(v.uavNumber) : v.name; }

// The station's own events (peers joining and lost, UAV numbers, leases, failsafes, commands), each shown once.
let lastEventSeq = 0;
function nodeEvent(e) {
  if (e.seq <= lastEventSeq) return;
  lastEventSeq = e.seq;
  const text = e.text.replace(/ \([0-9a-f]{8,32}\)/g, "");   // node ids beside names: the names say it
  logEvent((e.uavNumber != null ? `UAV ${e.uavNumber}: ` : "") + text, e.level, e.timeMs);
}

// A periodic frame: predictions and origin; with `vehicles` (every second, and first) the whole fleet, so vehicles that
// left are removed and stale ones shown as such.
function render(picture) {
  for (const e of picture.events || []) nodeEvent(e);
  if (picture.vehicles) {
    const seen = new Set();
    for (const v of picture.vehicles) {
      if (v.role !== "drone") continue;
      seen.add(v.node);
      update(v, picture.time);
    }
    for (const node of [...state.vehicles.keys()]) {
      if (!seen.has(node)) {
        logEvent(`UAV ${label(state.vehicles.get(node))} left the picture`, "warning");
        state.vehicles.delete(node);
        state.wasStale.delete(node);
        markers.get(node)?.remove();
        markers.delete(node);
      }
    }
  }
  state.airspace = new Map(picture.airspace.map((a) => [a.node, a]));
  state.origin = picture.origin;
  if (!gridDrawn) {
    const first = state.origin || [...state.vehicles.values()][0];
    if (first) {
      drawGrid(first.latitude, first.longitude);
      gridDrawn = true;
    }
  }
  if (!centred && state.vehicles.size > 0) {
    fitFleet();
    centred = true;
  }
  drawPredictions();
  redraw();
}

// One vehicle's report, unless the page already has a newer sample of it (a periodic frame can carry an older one
// than the last pushed update).
function update(v, time) {
  const arrived = time - v.ageMs;
  const known = state.vehicles.get(v.node);
  if (known && known.arrivedAt > arrived) return;
  v.arrivedAt = arrived;
  remember(v, time);
  if (!known) logEvent(`UAV ${label(v)} (${v.name}) joined the picture`);
  const was = state.wasStale.get(v.node);
  if (was === false && v.stale) logEvent(`UAV ${label(v)} (${v.name}): no telemetry (stale)`, "warning");
  if (was === true && !v.stale) logEvent(`UAV ${label(v)} (${v.name}): telemetry again`);
  state.wasStale.set(v.node, v.stale);
  state.vehicles.set(v.node, v);
}

// Telemetry pushed as it arrived at the station (at this page's pace: the selected drone faster).
function pushed(message) {
  for (const u of message.updates) {
    if (u.vehicle.role === "drone") update(u.vehicle, u.time);
  }
  redraw();
}

// Vehicles, list, selection and plot are drawn once per animation frame, however many updates came in it.
let redrawQueued = false;
function redraw() {
  if (redrawQueued) return;
  redrawQueued = true;
  requestAnimationFrame(() => {
    redrawQueued = false;
    drawVehicles();
    drawList();
    drawSelected();
    drawPlot(false);
    // When the first picture with vehicles was on the page (ms since navigation start), for tests and benchmarks.
    if (window.firstPictureAt === undefined && state.vehicles.size > 0) window.firstPictureAt = performance.now();
  });
}

function drawVehicles() {
  for (const [node, v] of state.vehicles) {
    const selected = v.uavNumber === state.selected;
    const className = `drone uav-${label(v)}${selected ? " selected" : ""}${v.stale ? " stale" : ""}`;
    const icon = L.divIcon({ className, html: `<div title="${v.name}">${label(v)}</div>`, iconSize: [26, 26] });
    let m = markers.get(node);
    if (!m) {
      m = L.marker([v.latitude, v.longitude], { icon }).addTo(map);
      m.on("click", () => select(state.vehicles.get(node)?.uavNumber));
      markers.set(node, m);
    } else {
      m.setLatLng([v.latitude, v.longitude]);
      if (m.options.icon.options.className !== className) m.setIcon(icon);
    }
  }
}

// Every drone's predicted path and separation ring; a warning when two predictions come closer than the separation.
function drawPredictions() {
  layers.paths.clearLayers();
  layers.rings.clearLayers();
  const tracks = [];
  for (const [node, a] of state.airspace) {
    const v = state.vehicles.get(node);
    if (!v || a.points.length === 0) continue;
    const points = a.points.map((p) => [p[0], p[1]]);
    L.polyline([[v.latitude, v.longitude], ...points], { color: "#1565c0", weight: 2, opacity: 0.7, interactive: false })
      .addTo(layers.paths);
    tracks.push({ v, a });
  }
  for (const v of state.vehicles.values()) {
    if (v.altitude < 0.3) continue;
    L.circle([v.latitude, v.longitude], { radius: SEPARATION_M / 2, color: "#1565c0", weight: 1, fillOpacity: 0.05, interactive: false })
      .addTo(layers.rings);
  }
  const now = new Set();
  let worst = null;
  for (let i = 0; i < tracks.length; i++) {
    for (let j = i + 1; j < tracks.length; j++) {
      const [p, q] = [tracks[i], tracks[j]];
      const n = Math.min(p.a.points.length, q.a.points.length);
      for (let k = 0; k < n; k++) {
        const [a, b] = [p.a.points[k], q.a.points[k]];
        const d = horizontalMetres(a, b);
        if (d < SEPARATION_M && Math.abs(a[2] - b[2]) < VERTICAL_SEPARATION_M) {
          const key = `${label(p.v)}~${label(q.v)}`;
          now.add(key);
          const inSeconds = ((k + 1) * p.a.stepMs) / 1000;
          if (!worst || inSeconds < worst.inSeconds) worst = { key, d, inSeconds };
          if (!state.conflicts.has(key)) {
            logEvent(`UAV ${label(p.v)} and UAV ${label(q.v)} predicted ${d.toFixed(1)} m apart in ${inSeconds.toFixed(1)} s`, "warning");
          }
          break;
        }
      }
    }
  }
  state.conflicts = now;
  const banner = document.getElementById("warning");
  banner.hidden = !worst;
  if (worst) banner.textContent = `separation: UAV ${worst.key.replace("~", " & UAV ")} in ${worst.inSeconds.toFixed(1)} s`;
}

// The list keeps one row per drone and updates it in place (a row stays the same element while the drone exists).
const rows = new Map();   // node → tr
function drawList() {
  const sorted = [...state.vehicles.values()].sort((a, b) => {
    const [x, y] = [a[state.sortKey], b[state.sortKey]];
    const c = x < y ? -1 : x > y ? 1 : 0;
    return state.sortUp ? c : -c;
  });
  const body = document.querySelector("#vehicles tbody");
  for (const [node, tr] of rows) {
    if (!state.vehicles.has(node)) { tr.remove(); rows.delete(node); }
  }
  for (const v of sorted) {
    let tr = rows.get(v.node);
    if (!tr) {
      tr = document.createElement("tr");
      for (const cls of ["uav", "name", "activity", "alt", "speed", "battery"]) {
        const td = document.createElement("td");
        td.className = cls;
        tr.append(td);
      }
      const node = v.node;
      tr.addEventListener("click", () => select(state.vehicles.get(node)?.uavNumber));
      rows.set(v.node, tr);
    }
    tr.dataset.uav = label(v);
    tr.classList.toggle("selected", v.uavNumber === state.selected);
    tr.classList.toggle("stale", v.stale);
    const texts = [label(v), v.name, v.activity, v.altitude.toFixed(1), v.speed.toFixed(1), v.batteryPercent + " %"];
    tr.querySelectorAll("td").forEach((td, i) => { if (td.textContent !== texts[i]) td.textContent = texts[i]; });
    body.append(tr);   // moves it into sorted place
  }
  document.getElementById("count").textContent = `(${sorted.length})`;
}

// One sample per picture and vehicle (its arrival at the station), the last PLOT_SECONDS kept.
function remember(v, pictureTime) {
  const t = (pictureTime - v.ageMs) / 1000;
  let h = state.history.get(v.node);
  if (!h) state.history.set(v.node, (h = []));
  if (h.length && h[h.length - 1].t >= t - 0.001) return;
  h.push({ t, altitude: v.altitude, speed: v.speed, battery: v.batteryPercent });
  while (h.length && h[0].t < t - PLOT_SECONDS) h.shift();
}

// The selected drone's altitude, speed and battery over the last minutes (Chart.js), redrawn at most once a second.
let plot = null, plotDrawnAt = 0, plotNode = null;
function drawPlot(force) {
  const v = selectedVehicle();
  if (!v || typeof Chart === "undefined") return;
  const now = Date.now();
  if (!force && v.node === plotNode && now - plotDrawnAt < 1000) return;
  plotDrawnAt = now;
  plotNode = v.node;
  const h = state.history.get(v.node) || [];
  const last = h.length ? h[h.length - 1].t : 0;
  const series = (key) => h.map((p) => ({ x: p.t - last, y: p[key] }));
  if (!plot) {
    plot = new Chart(document.getElementById("plot"), {
      type: "line",
      data: { datasets: [
        { label: "altitude m", data: [], borderColor: "#1565c0", yAxisID: "y", pointRadius: 0, borderWidth: 1.5 },
        { label: "speed m/s", data: [], borderColor: "#2e7d32", yAxisID: "y", pointRadius: 0, borderWidth: 1.5 },
        { label: "battery %", data: [], borderColor: "#e65100", yAxisID: "battery", pointRadius: 0, borderWidth: 1.5 },
      ] },
      options: {
        animation: false, maintainAspectRatio: false, parsing: false, normalized: true,
        scales: {
          x: { type: "linear", min: -PLOT_SECONDS, max: 0, title: { display: true, text: "seconds ago" } },
          y: { type: "linear", position: "left", beginAtZero: true },
          battery: { type: "linear", position: "right", min: 0, max: 100, grid: { drawOnChartArea: false } },
        },
        plugins: { legend: { labels: { boxWidth: 12 } } },
      },
    });
  }
  plot.data.datasets[0].data = series("altitude");
  plot.data.datasets[1].data = series("speed");
  plot.data.datasets[2].data = series("battery");
  // The last minute at least, growing in 30 s steps to PLOT_SECONDS as the history fills.
  const span = h.length ? last - h[0].t : 0;
  plot.options.scales.x.min = -Math.min(PLOT_SECONDS, Math.max(60, Math.ceil(span / 30) * 30));
  plot.update("none");
  document.getElementById("plot").dataset.samples = String(h.length);
}

function selectedVehicle() {
  return [...state.vehicles.values()].find((v) => v.uavNumber === state.selected);
}

function drawSelected() {
  const v = selectedVehicle();
  document.getElementById("selected").hidden = !v;
  if (!v) return;
  document.getElementById("sel-uav").textContent = label(v);
  document.getElementById("sel-name").textContent = v.name;
  const a = state.airspace.get(v.node);
  document.getElementById("sel-facts").textContent =
    `${v.activity}${v.armed ? ", armed" : ""} · ${v.altitude.toFixed(1)} m · ${v.speed.toFixed(1)} m/s · heading ${v.heading.toFixed(0)}°\n` +
    `battery ${v.batteryPercent} % · telemetry ${v.ageMs} ms old${v.stale ? " (stale)" : ""}` +
    (v.linkQuality != null ? ` · autopilot link ${v.linkQuality} %` : "") +
    (a ? ` · prediction ${a.ageMs} ms old` : "");
}

function select(uav) {
  if (uav == null) return;
  if (driving && driving.uav !== uav) stopDriving("another drone selected");
  state.selected = uav;
  subscribe();
  drawVehicles();
  drawList();
  drawSelected();
  drawPlot(true);
}

async function command(uav, args) {
  const body = { args, timeoutMs: 60000, takeover: document.getElementById("takeover").checked };
  const text = args.join(" ");
  logEvent(`UAV ${uav} ${text}: sent`);
  try {
    const r = await post(`/api/v1/uavs/${uav}/commands`, body);
    const answer = await r.json();
    if (!r.ok) { logEvent(`UAV ${uav} ${text}: ${answer.error}`, "rejected"); return; }
    const parts = answer.answers.map((a) => `${a.answer}${a.reason ? " (" + a.reason + ")" : ""} ${a.afterMs} ms`);
    if (answer.timedOut) parts.push("no final answer (timed out)");
    const last = answer.answers[answer.answers.length - 1];
    logEvent(`UAV ${uav} ${answer.command}: ${parts.join(", ")}`, last ? last.answer : "failed");
  } catch (e) {
    logEvent(`UAV ${uav} ${text}: the station did not answer (${e})`, "failed");
  }
}

document.querySelectorAll("[data-cmd]").forEach((b) => b.addEventListener("click", () => {
  if (state.selected == null) return;
  const args = b.dataset.cmd.split(" ");
  if (args[0] === "takeoff") args.push(document.getElementById("takeoff-alt").value);
  command(state.selected, args);
}));

// A target for the selected drone (loc-broadcaster's picture: the drone flies to it, or follows it): placed by a click
// in target mode, moved by dragging its marker.
let targetMarker = null;
async function sendTarget(uav, latlng) {
  const v = selectedVehicle();
  const altitude = Math.max(v ? v.altitude : 0, Number(document.getElementById("takeoff-alt").value) || 10);
  const follow = document.getElementById("target-follow").checked;
  const where = `${latlng.lat.toFixed(6)}, ${latlng.lng.toFixed(6)}, ${altitude.toFixed(1)} m`;
  logEvent(`UAV ${uav} target ${where}: sent`);
  const r = await post("/api/v1/targets", {
    latitude: Number(latlng.lat.toFixed(7)), longitude: Number(latlng.lng.toFixed(7)), altitude, uav, follow,
  });
  const answer = await r.json().catch(() => ({}));
  logEvent(`UAV ${uav} target ${where}: ${r.ok ? "sent to the mesh" : answer.error}`, r.ok ? "completed" : "rejected");
}

function placeTarget(latlng) {
  const uav = state.selected;
  if (!targetMarker) {
    const icon = L.divIcon({ className: "target-marker", html: "<div></div>", iconSize: [24, 24], iconAnchor: [12, 12] });
    targetMarker = L.marker(latlng, { icon, draggable: true, title: "target" }).addTo(map);
    targetMarker.on("dragend", () => { if (state.selected != null) sendTarget(state.selected, targetMarker.getLatLng()); });
  } else {
    targetMarker.setLatLng(latlng);
  }
  sendTarget(uav, latlng);
}

document.getElementById("place-target").addEventListener("click", () => {
  state.placingTarget = !state.placingTarget;
  document.getElementById("place-target").setAttribute("aria-pressed", String(state.placingTarget));
  document.getElementById("map-hint").textContent = state.placingTarget
    ? "Click the map to place the target (drag it to move it)." : "Click the map to send the drone there.";
});

map.on("click", (e) => {
  const v = selectedVehicle();
  if (!v || session.role !== "operator") return;
  if (state.placingTarget) { placeTarget(e.latlng); return; }
  const alt = Math.max(v.altitude, 5).toFixed(1);
  command(v.uavNumber, ["goto", e.latlng.lat.toFixed(7), e.latlng.lng.toFixed(7), alt]);
});

document.querySelectorAll("th[data-sort]").forEach((th) => th.addEventListener("click", () => {
  const key = th.dataset.sort;
  state.sortUp = state.sortKey === key ? !state.sortUp : true;
  state.sortKey = key;
  drawList();
}));

// The live WebSocket (null while reconnecting). The selected drone is watched: the station sends it at 20 Hz, the rest
// at its default pace.
let live = null;
function subscribe() {
  if (live && live.readyState === WebSocket.OPEN) {
    live.send(JSON.stringify({ type: "subscribe", watch: state.selected != null ? [state.selected] : [], watchHz: 20 }));
  }
}

function connect(delay) {
  const badge = document.getElementById("link");
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/v1/live");
  ws.onopen = () => {
    badge.textContent = "live";
    badge.className = "badge ok";
    delay = 500;
    live = ws;
    subscribe();
  };
  ws.onmessage = (m) => {
    const message = JSON.parse(m.data);
    if (message.type === "picture") render(message);
    else if (message.type === "vehicles") pushed(message);
    else if (message.type === "events") message.events.forEach(nodeEvent);
    else if (message.type === "error") logEvent(`station: ${message.error}`, "rejected");
  };
  ws.onclose = () => {
    if (live === ws) live = null;
    badge.textContent = "reconnecting…";
    badge.className = "badge bad";
    setTimeout(() => connect(Math.min(delay * 2, 5000)), delay);
  };
}

// Manual control from a gamepad (Standard Gamepad mapping, mode 2: left stick yaw and climb, right stick roll and
// pitch) at 100 Hz over the live WebSocket, to the selected drone. The drone holds position when the samples stop:
// Drive pressed again, another drone selected, the gamepad gone, the page hidden or the connection lost.
const DRIVE_HZ = 100, DEAD_ZONE = 0.08;
let driving = null;   // { uav, timer, sent }

function gamepad() {
  return [...(navigator.getGamepads ? navigator.getGamepads() : [])].find((g) => g && g.connected) || null;
}

function axis(value) {
  return Math.abs(value) < DEAD_ZONE ? 0 : Math.round(Math.max(-1, Math.min(1, value)) * 1000);
}

function showGamepad() {
  const g = gamepad();
  const text = driving ? `driving UAV ${driving.uav} · ${driving.sent} samples` : g ? `gamepad: ${g.id}` : "no gamepad";
  document.getElementById("gamepad-state").textContent = text;
  const button = document.getElementById("drive");
  button.setAttribute("aria-pressed", String(driving != null));
  button.textContent = driving ? "Stop driving" : "Drive with gamepad";
}

function stopDriving(why) {
  if (!driving) return;
  clearInterval(driving.timer);
  logEvent(`UAV ${driving.uav}: manual control ended after ${driving.sent} samples (${why}); the drone holds`);
  driving = null;
  showGamepad();
}

function startDriving() {
  const uav = state.selected;
  if (uav == null) return;
  if (!gamepad()) { logEvent("no gamepad: connect one and press a button on it first", "rejected"); return; }
  driving = { uav, sent: 0, timer: 0 };
  logEvent(`UAV ${uav}: manual control from ${gamepad().id} at ${DRIVE_HZ} Hz`);
  driving.timer = setInterval(() => {
    const g = gamepad();
    if (!g) return stopDriving("gamepad disconnected");
    if (document.hidden) return stopDriving("page hidden");
    if (!live || live.readyState !== WebSocket.OPEN) return stopDriving("connection lost");
    const a = g.axes;
    live.send(JSON.stringify({
      type: "manual", uav,
      axes: [-axis(a[3] || 0), axis(a[2] || 0), -axis(a[1] || 0), axis(a[0] || 0)],
      takeover: document.getElementById("takeover").checked,
    }));
    driving.sent += 1;
    if (driving.sent % 25 === 0) showGamepad();
  }, 1000 / DRIVE_HZ);
  showGamepad();
}

document.getElementById("drive").addEventListener("click", () => {
  if (driving) stopDriving("stopped"); else startDriving();
});
window.addEventListener("gamepadconnected", showGamepad);
window.addEventListener("gamepaddisconnected", showGamepad);

// Who this browser is: with accounts on the station, a login first (the session cookie is HttpOnly; the CSRF token the
// login answers goes with every state-changing request).
const session = { role: "operator", csrfToken: null };

async function post(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (session.csrfToken) headers["X-CSRF-Token"] = session.csrfToken;
  const r = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
  if (r.status === 401) showLogin("The session ended: log in again.");
  return r;
}

function useSession(s) {
  session.role = s.role;
  session.csrfToken = s.csrfToken || null;
  document.body.classList.toggle("viewer", s.role !== "operator");
  document.getElementById("account").hidden = !s.loginRequired;
  document.getElementById("account-name").textContent = s.loginRequired ? `${s.name} (${s.role})` : "";
}

function showLogin(message) {
  document.getElementById("login-error").textContent = message || "";
  const dialog = document.getElementById("login");
  if (!dialog.open) dialog.showModal();
  document.getElementById("login-name").focus();
}

document.getElementById("login-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = document.getElementById("login-name").value;
  const password = document.getElementById("login-password").value;
  const r = await fetch("/api/v1/login", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name, password }),
  });
  const answer = await r.json().catch(() => ({ error: `the station answered ${r.status}` }));
  if (!r.ok) { showLogin(answer.error); return; }
  document.getElementById("login-password").value = "";
  document.getElementById("login").close();
  useSession(answer);
  start();
});

document.getElementById("logout").addEventListener("click", async () => {
  await post("/api/v1/logout", {});
  location.reload();
});

let started = false;
function start() {
  if (started) return;
  started = true;
  fetch("/api/v1/status").then((r) => r.json()).then((s) => {
    if (s.node) document.getElementById("station").textContent = s.node.name;
  }).catch(() => {});
  // The last 100 events first, then the live picture (which carries the newer ones).
  fetch("/api/v1/events?after=0&limit=1000").then((r) => r.json()).then((page) => {
    for (const e of page.events.slice(-100)) nodeEvent(e);
  }).catch(() => {}).finally(() => connect(500));
}

fetch("/api/v1/session").then(async (r) => {
  if (r.status === 401) { showLogin(""); return; }
  useSession(await r.json());
  start();
}).catch(() => start());
