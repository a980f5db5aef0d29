// FleetMesh station dashboard: the live picture from /api/v1/live on a Leaflet map, commands through /api/v1.
"use strict";

const SEPARATION_M = 5.0;      // FleetMesh's default horizontal separation
const VERTICAL_SEPARATION_M = 2.9;
const MAX_INFLATION_M = 6.0;    // avoidance widens an uncertain prediction by at most this much
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
  picked: new Set(),     // nodes ticked in the list for group commands
  geofence: null,        // GeofenceReport: the fence in force and which one every node uses
};
const PLOT_SECONDS = 300;

const map = L.map("map", { zoomSnap: 0.25, attributionControl: false }).setView([0, 0], 3);
// Panes, bottom to top: the station's tiles (Leaflet's tile pane), the grid, the GeoJSON overlays, the fleet's drawings.
map.createPane("grid").style.zIndex = 350;
map.createPane("overlays").style.zIndex = 380;
const layers = {
  grid: L.layerGroup().addTo(map), paths: L.layerGroup().addTo(map), rings: L.layerGroup().addTo(map),
  drawing: L.layerGroup().addTo(map), fence: L.layerGroup().addTo(map), fenceEdit: L.layerGroup().addTo(map),
};
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

// A metric grid around the mission origin (or the first vehicle), over the station's tiles if it has a folder of them.
function drawGrid(lat, lon) {
  layers.grid.clearLayers();
  const span = 300, step = 10;
  for (let d = -span; d <= span; d += step) {
    const major = d % 50 === 0;
    const style = { color: d === 0 ? "#7a9aaa" : major ? "#c3ccd4" : "#e2e7eb", weight: d === 0 ? 1.5 : 1, interactive: false, pane: "grid" };
    L.polyline([metresToLatLon(lat, lon, d, -span), metresToLatLon(lat, lon, d, span)], style).addTo(layers.grid);
    L.polyline([metresToLatLon(lat, lon, -span, d), metresToLatLon(lat, lon, span, d)], style).addTo(layers.grid);
    if (d !== 0 && major) {
      L.marker(metresToLatLon(lat, lon, d, 2), {
        icon: L.divIcon({ className: "grid-label", html: d + " m", iconSize: [44, 12] }), interactive: false,
      }).addTo(layers.grid);
    }
  }
}

// The station's map layers (GET /api/v1/map): its offline tile folder under the grid (added once the map is where the
// fleet is, so no tile is asked for at the world view), its GeoJSON overlays over it, and a switcher for all of them.
const OVERLAY_COLOURS = ["#d9480f", "#5f3dc4", "#0b7285", "#c2255c", "#2b8a3e"];
const mapLayers = { tiles: null, tilesShown: false };

function escapeHTML(text) {
  const div = document.createElement("div");
  div.textContent = text;
  return div.innerHTML;
}

async function loadMapLayers() {
  const r = await fetch("/api/v1/map");
  if (!r.ok) return;
  const answer = await r.json();
  const switchable = { "Metric grid": layers.grid };
  if (answer.tiles) {
    // Beyond the folder's deepest zoom the map enlarges its tiles.
    mapLayers.tiles = L.tileLayer(answer.tiles.url, {
      maxNativeZoom: answer.tiles.maxZoom, maxZoom: 30, className: "offline-tiles",
    });
    switchable["Tiles"] = mapLayers.tiles;
    if (answer.tiles.attribution) {
      L.control.attribution({ prefix: false }).addAttribution(escapeHTML(answer.tiles.attribution)).addTo(map);
    }
  }
  answer.overlays.forEach((overlay, i) => {
    const color = OVERLAY_COLOURS[i % OVERLAY_COLOURS.length];
    // Leaflet gives each feature's path the GeoJSON layer's own options (pane, className) when it makes it.
    const layer = L.geoJSON(null, {
      pane: "overlays", className: `overlay overlay-${i}`, style: { color, weight: 2, fillOpacity: 0.04 },
      pointToLayer: (feature, latlng) => L.circleMarker(latlng, {
        radius: 5, pane: "overlays", className: `overlay overlay-${i}`,
      }),
    }).bindTooltip(escapeHTML(overlay.name), { sticky: true }).addTo(map);
    fetch(overlay.url).then((o) => o.ok ? o.json() : Promise.reject(new Error(`the station answered ${o.status}`)))
      .then((data) => layer.addData(data))
      .catch((e) => logEvent(`overlay ${overlay.name}: ${e.message}`, "warning"));
    switchable[escapeHTML(overlay.name)] = layer;
  });
  if (answer.tiles || answer.overlays.length > 0) L.control.layers(null, switchable, { position: "topright" }).addTo(map);
  showTiles();
}

function showTiles() {
  if (!mapLayers.tiles || mapLayers.tilesShown || !gridDrawn) return;
  mapLayers.tiles.addTo(map);
  mapLayers.tilesShown = true;
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
  if (picture.geofence) showGeofence(picture.geofence);
  if (!gridDrawn) {
    const first = state.origin || [...state.vehicles.values()][0];
    if (first) {
      drawGrid(first.latitude, first.longitude);
      gridDrawn = true;
      if (!centred) fitFleet();   // the origin, before any drone is seen
    }
  }
  if (!centred && state.vehicles.size > 0) {
    fitFleet();
    centred = true;
  }
  showTiles();
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

// The station controlling a drone (its control lease, as the drone announces it): "you" for this station, else the
// station's name, each station in a colour of its own.
const CONTROLLER_COLOURS = ["#6a1b9a", "#ad1457", "#00838f", "#5d4037", "#283593", "#9e6c00"];
function controllerText(v) {
  return v.controller == null ? "" : v.controlledHere ? "you" : v.controller;
}
function controllerColour(v) {
  if (v.controlledHere) return "#2e7d32";
  let h = 0;
  for (const c of v.controllerNode || v.controller || "") h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return CONTROLLER_COLOURS[h % CONTROLLER_COLOURS.length];
}

function drawVehicles() {
  for (const [node, v] of state.vehicles) {
    const selected = v.uavNumber === state.selected;
    const ctl = controllerText(v);
    const className = `drone uav-${label(v)}${selected ? " selected" : ""}${v.stale ? " stale" : ""}` +
      (v.controlledHere ? " controlled-here" : v.controller != null ? " controlled" : "");
    const title = escapeHTML(v.name + (ctl ? ` · controlled by ${v.controlledHere ? "this station" : v.controller}` : ""));
    const badge = ctl
      ? `<span class="ctl${v.controlledHere ? " here" : ""}" style="background:${controllerColour(v)}">${escapeHTML(ctl.length > 10 ? ctl.slice(0, 9) + "…" : ctl)}</span>`
      : "";
    const icon = L.divIcon({ className, html: `<div title="${title}">${label(v)}</div>${badge}`, iconSize: [26, 26] });
    let m = markers.get(node);
    if (!m) {
      m = L.marker([v.latitude, v.longitude], { icon }).addTo(map);
      // While the map is being drawn on (a fence, a path, a target, snapshot points), a click on a drone is a click
      // on the map there: a corner placed over a drone must not select it instead.
      m.on("click", (e) => {
        const point = map.mouseEventToLatLng(e.originalEvent);
        if (mapClickHook && mapClickHook(point)) return;
        if (fence.editing || path.drawing || state.placingTarget) { mapClicked(point); return; }
        select(state.vehicles.get(node)?.uavNumber);
      });
      markers.set(node, m);
    } else {
      m.setLatLng([v.latitude, v.longitude]);
      if (m.options.icon.options.className !== className || m.options.icon.options.html !== icon.options.html) m.setIcon(icon);
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
    // A drone that does not avoid (taking off, landing, under a pilot's hands) is drawn dashed: the others keep away.
    const dash = a.avoiding === false ? "6 6" : null;
    L.polyline([[v.latitude, v.longitude], ...points], { color: "#1565c0", weight: 2, opacity: 0.7, dashArray: dash, interactive: false })
      .addTo(layers.paths);
    if (a.uncertaintyGrowth > 0) {
      // How far the others keep from the end of an uncertain prediction: half the separation, widened by its growth.
      const horizon = (a.points.length * a.stepMs + a.ageMs) / 1000;
      const radius = SEPARATION_M / 2 + Math.min(MAX_INFLATION_M, a.uncertaintyGrowth * horizon);
      const last = points[points.length - 1];
      L.circle(last, { radius, color: "#ef6c00", weight: 1, dashArray: "4 4", fillOpacity: 0.05, className: "uncertainty", interactive: false })
        .addTo(layers.rings);
    }
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
    if (!state.vehicles.has(node)) { tr.remove(); rows.delete(node); state.picked.delete(node); }
  }
  for (const v of sorted) {
    let tr = rows.get(v.node);
    if (!tr) {
      tr = document.createElement("tr");
      tr.append(pickCell(v.node));
      for (const cls of ["uav", "name", "activity", "alt", "speed", "battery", "ctl"]) {
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
    const texts = [label(v), v.name, v.activity, v.altitude.toFixed(1), v.speed.toFixed(1), v.batteryPercent + " %",
      controllerText(v) || "–"];
    tr.querySelectorAll("td:not(.pick)").forEach((td, i) => {
      if (td.textContent === texts[i]) return;
      td.textContent = texts[i];
      if (td.classList.contains("name") || td.classList.contains("activity")) td.title = texts[i];   // cut short with "…"
    });
    const ctlCell = tr.querySelector("td.ctl");
    ctlCell.classList.toggle("here", !!v.controlledHere);
    ctlCell.title = v.controller == null ? "no station controls it" : `controlled by ${v.controller}`;
    body.append(tr);   // moves it into sorted place
  }
  document.getElementById("count").textContent = `(${sorted.length})`;
  drawGroup();
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
    `battery ${v.batteryPercent} % · telemetry ${v.ageMs} ms old${v.stale ? " (stale)" : ""}\n` +
    // Always the same lines, each short: a line that wraps now and then would move the buttons below it under the
    // operator's pointer (and a test's click) between two telemetry updates.
    (v.linkQuality != null ? `autopilot link ${v.linkQuality} %` : "no autopilot link") +
    (a ? ` · prediction ${a.ageMs} ms old` : " · no prediction yet") +
    "\n" + (v.controller == null ? "no station controls it"
      : v.controlledHere ? `controlled by this station (${v.controller})` : `controlled by ${v.controller}`) +
    `\ngeofence: ${fenceOf(v.node)}`;
}

function select(uav) {
  if (uav == null) return;
  if (driving && driving.uav !== uav) stopDriving("another drone selected");
  if (path.uav != null && path.uav !== uav) endDrawing(true);
  state.selected = uav;
  subscribe();
  drawVehicles();
  drawList();
  drawSelected();
  drawPlot(true);
}

// Sends `args` to UAV `uav` and logs each answer with its timing; resolves to the final answer (or null).
async function command(uav, args, timeoutMs = 60000) {
  const body = { args, timeoutMs, takeover: document.getElementById("takeover").checked };
  const text = args[0] === "trajectory" ? `trajectory (${args.length - 1} waypoints)` : args.join(" ");
  logEvent(`UAV ${uav} ${text}: sent`);
  try {
    const r = await post(`/api/v1/uavs/${uav}/commands`, body);
    const answer = await r.json();
    if (!r.ok) { logEvent(`UAV ${uav} ${text}: ${answer.error}`, "rejected"); return null; }
    const parts = answer.answers.map((a) => `${a.answer}${a.reason ? " (" + a.reason + ")" : ""} ${a.afterMs} ms`);
    if (answer.timedOut) parts.push("no final answer (timed out)");
    const last = answer.answers[answer.answers.length - 1];
    logEvent(`UAV ${uav} ${answer.command}: ${parts.join(", ")}`, last ? last.answer : "failed");
    return last ? last.answer : null;
  } catch (e) {
    logEvent(`UAV ${uav} ${text}: the station did not answer (${e})`, "failed");
    return null;
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
  if (path.drawing) endDrawing(true);
  if (fence.editing) endFenceEditing();
  state.placingTarget = !state.placingTarget;
  document.getElementById("place-target").setAttribute("aria-pressed", String(state.placingTarget));
  document.getElementById("map-hint").textContent = state.placingTarget
    ? "Click the map to place the target (drag it to move it)." : "Click the map to send the drone there.";
});

// A click another part of the page takes first (inspection.js: adding snapshot points); true when it took it.
let mapClickHook = null;

function mapClicked(latlng) {
  if (mapClickHook && mapClickHook(latlng)) return;
  if (fence.editing) { addCorner(latlng); return; }
  const v = selectedVehicle();
  if (!v || session.role !== "operator") return;
  if (path.drawing) { addWaypoint(latlng); return; }
  if (state.placingTarget) { placeTarget(latlng); return; }
  const alt = Math.max(v.altitude, 5).toFixed(1);
  command(v.uavNumber, ["goto", latlng.lat.toFixed(7), latlng.lng.toFixed(7), alt]);
}

map.on("click", (e) => mapClicked(e.latlng));

// Drawing a trajectory for the selected drone: each map click adds a waypoint at the altitude in the path's input;
// "Preview" asks the station to plan it as the drone will (POST …/trajectory-preview) and draws the planned path;
// "Send" uploads it as a `trajectory` command.
const path = { drawing: false, uav: null, waypoints: [], preview: null, line: null, plan: null, markers: [] };

function startDrawing() {
  const v = selectedVehicle();
  if (!v || session.role !== "operator") return;
  if (fence.editing) endFenceEditing();
  if (state.placingTarget) document.getElementById("place-target").click();
  endDrawing(true);
  path.drawing = true;
  path.uav = v.uavNumber;
  document.getElementById("path-alt").value = v.altitude >= 1 ? v.altitude.toFixed(1) : "10";
  showPathTools();
}

// Leaves drawing mode; `discard` also removes the drawn path from the map.
function endDrawing(discard) {
  path.drawing = false;
  if (discard) {
    path.uav = null;
    path.waypoints = [];
    path.plan = null;
    layers.drawing.clearLayers();
    path.line = path.preview = null;
    path.markers = [];
    showPathInfo(null);
  }
  showPathTools();
}

function showPathTools() {
  document.getElementById("path-tools").hidden = !path.drawing;
  document.getElementById("draw-path").setAttribute("aria-pressed", String(path.drawing));
  document.getElementById("map-hint").textContent = path.drawing
    ? "Click the map to add a waypoint at the altitude above." : "Click the map to send the drone there.";
}

function showPathInfo(text, kind) {
  const info = document.getElementById("path-info");
  info.hidden = !text;
  info.textContent = text || "";
  info.className = "hint " + (kind || "");
}

function addWaypoint(latlng) {
  const alt = Number(document.getElementById("path-alt").value);
  if (!Number.isFinite(alt)) { showPathInfo("alt: a number of metres above home", "error"); return; }
  path.waypoints.push({ lat: latlng.lat, lng: latlng.lng, alt });
  drawPath();
}

// The drawn path: numbered markers and a dashed line from the drone; an older preview no longer applies.
function drawPath() {
  layers.drawing.clearLayers();
  path.preview = null;
  path.plan = null;
  path.markers = path.waypoints.map((w, i) => L.marker([w.lat, w.lng], {
    icon: L.divIcon({ className: "waypoint", html: `<div title="${w.alt.toFixed(1)} m">${i + 1}</div>`, iconSize: [22, 22] }),
    interactive: false,
  }).addTo(layers.drawing));
  const v = [...state.vehicles.values()].find((x) => x.uavNumber === path.uav);
  const corners = (v ? [[v.latitude, v.longitude]] : []).concat(path.waypoints.map((w) => [w.lat, w.lng]));
  path.line = L.polyline(corners, { color: "#6a1b9a", weight: 2, dashArray: "6 6", interactive: false, className: "trajectory-drawn" })
    .addTo(layers.drawing);
  const n = path.waypoints.length;
  showPathInfo(n ? `${n} waypoint${n === 1 ? "" : "s"}; Preview plans the flight.` : null);
}

function waypointTriples() {
  return path.waypoints.map((w) => [Number(w.lat.toFixed(7)), Number(w.lng.toFixed(7)), Number(w.alt.toFixed(1))]);
}

async function previewPath() {
  if (path.uav == null || path.waypoints.length === 0) { showPathInfo("Add a waypoint first (click the map).", "error"); return; }
  const asked = path.waypoints.length;
  const r = await post(`/api/v1/uavs/${path.uav}/trajectory-preview`, { waypoints: waypointTriples() });
  const answer = await r.json().catch(() => ({ error: `the station answered ${r.status}` }));
  if (path.waypoints.length !== asked) return;   // changed meanwhile: that preview no longer applies
  if (!r.ok) {
    showPathInfo(`Preview: ${answer.error}`, "error");
    logEvent(`UAV ${path.uav} trajectory preview: ${answer.error}`, "rejected");
    return;
  }
  if (path.preview) path.preview.remove();
  path.plan = answer;
  path.preview = L.polyline(answer.points.map((p) => [p[0], p[1]]), {
    color: "#6a1b9a", weight: 3, opacity: 0.9, interactive: false, className: "trajectory-preview",
  }).addTo(layers.drawing);
  const info = document.getElementById("path-info");
  showPathInfo(`Planned: ${answer.lengthM.toFixed(1)} m in ${answer.durationS.toFixed(1)} s, ` +
    `${answer.legs} leg${answer.legs === 1 ? "" : "s"} (${answer.points.length} points).`);
  info.dataset.points = String(answer.points.length);
  info.dataset.durationS = String(answer.durationS);
}

async function sendPath() {
  if (path.uav == null || path.waypoints.length === 0) { showPathInfo("Add a waypoint first (click the map).", "error"); return; }
  const uav = path.uav;
  const args = ["trajectory", ...waypointTriples().map((t) => t.join(","))];
  endDrawing(false);   // the path stays on the map while the drone flies it
  const flown = path.waypoints;
  // Answered when the drone is at the last waypoint: wait for the planned flight time and more (without a preview, the
  // longest wait the API allows).
  const timeoutMs = path.plan ? Math.min(600000, Math.round(path.plan.durationS * 1500) + 60000) : 600000;
  const final = await command(uav, args, timeoutMs);
  if (path.waypoints === flown && !path.drawing) endDrawing(true);
  if (final && final !== "completed") logEvent(`UAV ${uav} trajectory: ${final}`, final);
}

document.getElementById("draw-path").addEventListener("click", () => {
  if (path.drawing) endDrawing(true); else startDrawing();
});
document.getElementById("path-undo").addEventListener("click", () => { path.waypoints.pop(); drawPath(); });
document.getElementById("path-clear").addEventListener("click", () => { path.waypoints = []; drawPath(); });
document.getElementById("path-preview").addEventListener("click", () => previewPath());
document.getElementById("path-send").addEventListener("click", () => sendPath());
document.getElementById("path-cancel").addEventListener("click", () => endDrawing(true));

// Group commands: the drones ticked in the list, each sent the command at once, or ("at the same moment") one request
// that every drone starts together on its own clock; more than one drone asks first.
function pickCell(node) {
  const td = document.createElement("td");
  td.className = "pick";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.setAttribute("aria-label", "select for group commands");
  box.addEventListener("click", (e) => e.stopPropagation());   // ticking is not selecting the row
  box.addEventListener("change", () => {
    if (box.checked) state.picked.add(node); else state.picked.delete(node);
    drawGroup();
  });
  td.append(box);
  return td;
}

function pickedVehicles() {
  return [...state.picked].map((n) => state.vehicles.get(n)).filter((v) => v && v.uavNumber != null)
    .sort((a, b) => a.uavNumber - b.uavNumber);
}

function drawGroup() {
  for (const [node, tr] of rows) {
    const box = tr.querySelector("td.pick input");
    if (box && box.checked !== state.picked.has(node)) box.checked = state.picked.has(node);
  }
  const all = document.getElementById("pick-all");
  all.checked = state.vehicles.size > 0 && state.picked.size === state.vehicles.size;
  all.indeterminate = state.picked.size > 0 && state.picked.size < state.vehicles.size;
  const picked = pickedVehicles();
  document.getElementById("group").hidden = picked.length === 0;
  document.getElementById("group-count").textContent =
    `${picked.length} drone${picked.length === 1 ? "" : "s"}: UAV ${picked.map(label).join(", ")}`;
}

document.getElementById("pick-all").addEventListener("change", (e) => {
  state.picked = e.target.checked ? new Set(state.vehicles.keys()) : new Set();
  drawGroup();
});

// The page's own confirmation (a dialog rather than window.confirm): resolves true when the operator agrees.
function confirmInPage(text, ok = "Send to all of them") {
  const dialog = document.getElementById("confirm");
  document.getElementById("confirm-text").textContent = text;
  document.getElementById("confirm-ok").textContent = ok;
  dialog.returnValue = "";
  dialog.showModal();
  document.getElementById("confirm-cancel").focus();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true }));
}

const GROUP_LEAD_MS = 1500;

async function groupCommand(args) {
  if (session.role !== "operator") return;
  const targets = pickedVehicles();
  if (targets.length === 0) return;
  const numbers = targets.map((v) => v.uavNumber);
  const text = args.join(" ");
  const together = document.getElementById("group-together").checked;
  const how = together ? ` at the same moment (${GROUP_LEAD_MS / 1000} s after sending)` : "";
  if (targets.length > 1 && !(await confirmInPage(`Send "${text}" to ${targets.length} drones${how}: UAV ${numbers.join(", ")}?`))) {
    logEvent(`group ${text}: cancelled`);
    return;
  }
  const started = performance.now();
  logEvent(`group ${text} to UAV ${numbers.join(", ")}${how}: sent`);
  const finals = together ? await groupTogether(numbers, args, text) : await Promise.all(numbers.map((uav) => command(uav, args)));
  const done = finals.filter((f) => f === "completed").length;
  logEvent(`group ${text}: ${done} of ${numbers.length} completed in ${Math.round(performance.now() - started)} ms`,
    done === numbers.length ? "completed" : "failed");
}

// One group command that every drone starts at the same moment (POST /api/v1/group-commands); each drone's answers are
// logged as for one drone; resolves to their final answers.
async function groupTogether(numbers, args, text) {
  const body = { uavs: numbers, args, leadMs: GROUP_LEAD_MS, timeoutMs: 60000, takeover: document.getElementById("takeover").checked };
  try {
    const r = await post("/api/v1/group-commands", body);
    const answer = await r.json();
    if (!r.ok) { logEvent(`group ${text}: ${answer.error}`, "rejected"); return numbers.map(() => null); }
    const at = new Date(answer.startsAtMs);
    const hms = at.toLocaleTimeString([], { hour12: false }) + "." + String(at.getMilliseconds()).padStart(3, "0");
    logEvent(`group ${answer.command}: every drone starts at ${hms}`);
    return answer.commands.map((c) => {
      const parts = c.answers.map((a) => `${a.answer === "accepted" ? "accepted (scheduled)" : a.answer}` +
        `${a.reason ? " (" + a.reason + ")" : ""} ${a.afterMs} ms`);
      if (c.timedOut) parts.push("no final answer (timed out)");
      const last = c.answers[c.answers.length - 1];
      logEvent(`UAV ${c.uavNumber} ${c.command}: ${parts.join(", ")}`, last ? last.answer : "failed");
      return last ? last.answer : null;
    });
  } catch (e) {
    logEvent(`group ${text}: the station did not answer (${e})`, "failed");
    return numbers.map(() => null);
  }
}

document.querySelectorAll("[data-group]").forEach((b) => b.addEventListener("click", () => {
  const args = [b.dataset.group];
  if (args[0] === "takeoff") args.push(document.getElementById("group-alt").value);
  groupCommand(args);
}));

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

// The geofence: the one in force (GET /api/v1/geofence, and every full live frame) on the map with how many drones fly
// it; operators edit it on the map (click adds a corner after the picked one, drag moves one, "Remove corner" removes
// the picked or last one) and upload it (POST /api/v1/geofence), or clear it (POST /api/v1/geofence/clear).
const fence = { editing: false, corners: [], picked: -1 };

function fenceText(f) {
  if (!f.corners) return `no geofence (cleared by ${f.announcedBy})`;
  return `${f.corners.length} corners, ${f.floor.toFixed(1)}–${f.ceiling.toFixed(1)} m above home, from ${f.announcedBy}`;
}

// Which announcement one node flies, in words, for its facts.
function fenceOf(node) {
  const n = state.geofence?.nodes.find((x) => x.node === node);
  if (!n || n.epoch == null) return "its configured one (no announcement taken yet)";
  return n.current ? `the one in force (epoch ${n.epoch})` : `an older one (epoch ${n.epoch})`;
}

function showGeofence(report) {
  state.geofence = report;
  const f = report.inForce;
  const drones = report.nodes.filter((n) => n.role === "drone");
  const adopted = drones.filter((n) => n.current).length;
  const el = document.getElementById("fence-state");
  el.dataset.epoch = f ? String(f.epoch) : "";
  el.dataset.adopted = String(adopted);
  el.dataset.drones = String(drones.length);
  el.textContent = f
    ? `${fenceText(f)} (epoch ${f.epoch}); flown by ${adopted} of ${drones.length} drone${drones.length === 1 ? "" : "s"}`
    : "none announced: each drone flies its configured fence, if any";
  layers.fence.clearLayers();
  if (f && f.corners) {
    L.polygon(f.corners, {
      color: "#c62828", weight: 2, fillOpacity: 0.04, interactive: false, className: "geofence-in-force",
    }).addTo(layers.fence);
  }
}

function showFenceInfo(text, kind) {
  const info = document.getElementById("fence-info");
  info.hidden = !text;
  info.textContent = text || "";
  info.className = "hint " + (kind || "");
}

function startFenceEditing() {
  if (session.role !== "operator") return;
  if (path.drawing) endDrawing(true);
  if (state.placingTarget) document.getElementById("place-target").click();
  const f = state.geofence?.inForce;
  fence.corners = f && f.corners ? f.corners.map((c) => L.latLng(c[0], c[1])) : [];
  fence.picked = -1;
  if (f && f.corners) {
    document.getElementById("fence-floor").value = f.floor;
    document.getElementById("fence-ceiling").value = f.ceiling;
  }
  fence.editing = true;
  showFenceTools();
  drawFenceEdit();
}

function endFenceEditing() {
  fence.editing = false;
  fence.corners = [];
  fence.picked = -1;
  layers.fenceEdit.clearLayers();
  showFenceTools();
}

function showFenceTools() {
  document.getElementById("fence-tools").hidden = !fence.editing;
  document.getElementById("fence-edit").setAttribute("aria-pressed", String(fence.editing));
}

// The edited polygon (dashed) and a draggable marker per corner; the picked corner is filled.
function drawFenceEdit() {
  layers.fenceEdit.clearLayers();
  if (!fence.editing) return;
  L.polygon(fence.corners, {
    color: "#c62828", weight: 2, dashArray: "6 5", fillOpacity: 0.08, interactive: false, className: "geofence-edit",
  }).addTo(layers.fenceEdit);
  fence.corners.forEach((c, i) => {
    const icon = L.divIcon({
      className: `fence-corner${i === fence.picked ? " picked" : ""}`, html: `<div title="corner ${i + 1}"></div>`,
      iconSize: [22, 22], iconAnchor: [11, 11],
    });
    const m = L.marker(c, { icon, draggable: true, title: `corner ${i + 1}` }).addTo(layers.fenceEdit);
    m.on("click", (e) => { L.DomEvent.stopPropagation(e); fence.picked = i; drawFenceEdit(); });
    m.on("dragend", () => { fence.corners[i] = m.getLatLng(); fence.picked = i; drawFenceEdit(); });
  });
  const n = fence.corners.length;
  showFenceInfo(n < 3 ? `${n} corner${n === 1 ? "" : "s"}: a geofence needs at least 3.` : `${n} corners.`);
}

function addCorner(latlng) {
  const at = fence.picked >= 0 ? fence.picked + 1 : fence.corners.length;
  fence.corners.splice(at, 0, latlng);
  fence.picked = at;
  drawFenceEdit();
}

async function uploadFence() {
  const body = {
    corners: fence.corners.map((c) => [Number(c.lat.toFixed(7)), Number(c.lng.toFixed(7))]),
    floor: Number(document.getElementById("fence-floor").value),
    ceiling: Number(document.getElementById("fence-ceiling").value),
  };
  const r = await post("/api/v1/geofence", body);
  const answer = await r.json().catch(() => ({ error: `the station answered ${r.status}` }));
  if (!r.ok) {
    showFenceInfo(`Upload refused: ${answer.error}`, "error");
    logEvent(`geofence upload: ${answer.error}`, "rejected");
    return;
  }
  endFenceEditing();
  showGeofence(answer);
  showFenceInfo(`Uploaded: ${fenceText(answer.inForce)} (epoch ${answer.inForce.epoch}); the drones take it within seconds.`, "ok");
  logEvent(`geofence uploaded: ${fenceText(answer.inForce)}`, "completed");
}

async function clearFence() {
  if (!await confirmInPage("Clear the geofence? Every drone then flies without one, configured or not.", "Clear it")) return;
  const r = await post("/api/v1/geofence/clear", {});
  const answer = await r.json().catch(() => ({ error: `the station answered ${r.status}` }));
  if (!r.ok) { showFenceInfo(`Clear refused: ${answer.error}`, "error"); return; }
  endFenceEditing();
  showGeofence(answer);
  showFenceInfo("Cleared: no geofence.", "ok");
  logEvent("geofence cleared", "completed");
}

document.getElementById("fence-edit").addEventListener("click", () => {
  if (fence.editing) endFenceEditing(); else startFenceEditing();
});
document.getElementById("fence-remove").addEventListener("click", () => {
  if (fence.corners.length === 0) return;
  const i = fence.picked >= 0 ? fence.picked : fence.corners.length - 1;
  fence.corners.splice(i, 1);
  fence.picked = Math.min(i, fence.corners.length) - 1;
  drawFenceEdit();
});
document.getElementById("fence-upload").addEventListener("click", () => uploadFence());
document.getElementById("fence-cancel").addEventListener("click", () => { endFenceEditing(); showFenceInfo(null); });
document.getElementById("fence-clear").addEventListener("click", () => clearFence());

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
  loadMapLayers().catch((e) => logEvent(`map layers: ${e.message}`, "warning"));
  if (typeof loadFlights === "function") loadFlights();
  if (typeof loadInspection === "function") loadInspection();
  fetch("/api/v1/geofence").then((r) => r.json()).then(showGeofence).catch(() => {});
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
