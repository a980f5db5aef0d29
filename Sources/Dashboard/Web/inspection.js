// FleetMesh station dashboard: inspection (/api/v1/inspection, docs/INSPECTION.md). The station's site is drawn from
// above, coloured by height; snapshot points are added by clicking the map (at the altitude and heading in the
// inputs), dragged to move them, removed from the list; the station plans a route through them that keeps the
// site's clearance from every point of the cloud, drawn on the map, and sends it to the selected drone as a
// `trajectory` command.
"use strict";

const inspection = {
  site: null,
  overlay: null,
  layer: L.layerGroup().addTo(map),
  points: [],     // { lat, lng, alt, heading }
  plan: null,     // the station's last answer
  adding: false,
};

function inspectionInfo(text, kind) {
  const info = document.getElementById("inspection-info");
  info.hidden = !text;
  info.textContent = text || "";
  info.className = "hint " + (kind || "");
}

// Blue (low) through green and yellow to red (high).
function heightColour(f) {
  const stops = [[33, 102, 172], [77, 175, 74], [255, 217, 47], [215, 48, 39]];
  const x = Math.min(0.999, Math.max(0, f)) * (stops.length - 1);
  const i = Math.floor(x), t = x - i;
  return stops[i].map((c, k) => Math.round(c + (stops[i + 1][k] - c) * t));
}

async function loadInspection() {
  const section = document.getElementById("inspection");
  // Only a station with a site has one to ask for (GET /api/v1/map says).
  const layers = await fetch("/api/v1/map").then((r) => r.ok ? r.json() : null).catch(() => null);
  if (!layers || !layers.inspection) { section.hidden = true; return; }
  const r = await fetch("/api/v1/inspection");
  if (r.status === 404) { section.hidden = true; return; }
  section.hidden = false;
  const body = await r.json().catch(() => ({ error: `the station answered ${r.status}` }));
  if (!r.ok) {
    document.getElementById("inspection-site-info").textContent = body.error;
    if (r.status === 409) setTimeout(loadInspection, 5000);   // the map origin may come later
    return;
  }
  inspection.site = body;
  document.getElementById("inspection-site-info").textContent =
    `${body.map.split("/").pop()}: ${body.points.toLocaleString()} points (${body.format}), ` +
    `${body.voxels.toLocaleString()} voxels at ${body.resolution} m; routes keep ${body.clearance} m from the cloud.`;
  drawSite();
}

// The site from above: one pixel per cell, placed on the map by its corners.
function drawSite() {
  const v = inspection.site.view;
  const canvas = document.createElement("canvas");
  canvas.width = v.columns;
  canvas.height = v.rows;
  const context = canvas.getContext("2d");
  const image = context.createImageData(v.columns, v.rows);
  const span = Math.max(1, (v.top - v.floor) * 10);
  for (let row = 0; row < v.rows; row++) {
    for (let column = 0; column < v.columns; column++) {
      const h = v.heights[row * v.columns + column];
      if (h < 0) continue;
      const [r, g, b] = heightColour(h / span);
      const o = ((v.rows - 1 - row) * v.columns + column) * 4;   // north at the top
      image.data.set([r, g, b, 220], o);
    }
  }
  context.putImageData(image, 0, 0);
  if (inspection.overlay) inspection.overlay.remove();
  const bounds = L.latLngBounds(v.corners.map((c) => [c[0], c[1]]));
  inspection.overlay = L.imageOverlay(canvas.toDataURL(), bounds, { opacity: 0.85, className: "inspection-site" });
  if (document.getElementById("inspection-show").checked) inspection.overlay.addTo(map);
  document.getElementById("inspection-legend").textContent =
    `height: blue ${v.floor.toFixed(1)} m … red ${v.top.toFixed(1)} m (cells of ${v.cell} m)`;
}

// The points as numbered, draggable markers and a list; the planned route as a line.
function drawInspection() {
  inspection.layer.clearLayers();
  inspection.points.forEach((p, i) => {
    const marker = L.marker([p.lat, p.lng], {
      draggable: session.role === "operator",
      icon: L.divIcon({ className: "inspection-point", html: `<div title="${p.alt} m, ${p.heading}°">${i + 1}</div>`, iconSize: [22, 22] }),
    }).addTo(inspection.layer);
    marker.on("dragend", () => {
      const at = marker.getLatLng();
      p.lat = at.lat;
      p.lng = at.lng;
      forgetPlan();
    });
  });
  if (inspection.plan) {
    const v = selectedVehicle();
    const start = inspection.plan.fromDrone && v ? [[v.latitude, v.longitude]] : [];
    L.polyline(start.concat(inspection.plan.waypoints.map((w) => [w[0], w[1]])), {
      color: "#00838f", weight: 3, interactive: false, className: "inspection-route",
    }).addTo(inspection.layer);
  }
  const list = document.getElementById("inspection-points");
  list.replaceChildren(...inspection.points.map((p, i) => {
    const item = document.createElement("li");
    item.textContent = `${p.alt} m, ${p.heading}°`;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "×";
    remove.title = `remove point ${i + 1}`;
    remove.addEventListener("click", () => { inspection.points.splice(i, 1); forgetPlan(); });
    item.append(remove);
    return item;
  }));
  document.getElementById("inspection-send").disabled = !inspection.plan;
}

function forgetPlan() {
  inspection.plan = null;
  inspectionInfo(null);
  drawInspection();
}

function addInspectionPoint(latlng) {
  const alt = Number(document.getElementById("inspection-alt").value);
  const heading = Number(document.getElementById("inspection-heading").value);
  if (!Number.isFinite(alt) || !Number.isFinite(heading)) { inspectionInfo("alt and heading must be numbers", "error"); return; }
  inspection.points.push({ lat: latlng.lat, lng: latlng.lng, alt, heading });
  forgetPlan();
}

// Asks the station for a route; from the selected drone when it is in the air.
async function planInspection() {
  if (inspection.points.length === 0) { inspectionInfo("Add a point first (Add points, then click the map).", "error"); return; }
  const v = selectedVehicle();
  const fromDrone = !!(v && v.activity !== "landed" && v.altitude > 0.5);
  const body = { points: inspection.points.map((p) => ({ latitude: p.lat, longitude: p.lng, altitude: p.alt, heading: p.heading })) };
  if (fromDrone) body.start = { latitude: v.latitude, longitude: v.longitude, altitude: v.altitude };
  const asked = JSON.stringify(body.points);
  inspectionInfo("planning…");
  const r = await post("/api/v1/inspection/plan", body);
  const answer = await r.json().catch(() => ({ error: `the station answered ${r.status}` }));
  if (JSON.stringify(inspection.points.map((p) => ({ latitude: p.lat, longitude: p.lng, altitude: p.alt, heading: p.heading }))) !== asked) return;
  if (!r.ok) { inspection.plan = null; drawInspection(); inspectionInfo(answer.error, "error"); return; }
  inspection.plan = { ...answer, fromDrone, points: inspection.points.map((p) => ({ ...p })) };
  drawInspection();
  const info = document.getElementById("inspection-info");
  inspectionInfo(`Route: ${answer.lengthM.toFixed(1)} m, ${answer.durationS.toFixed(1)} s, ${answer.waypoints.length} waypoints, ` +
    `${answer.minimumClearanceM.toFixed(2)} m from the cloud at the closest (planned in ${Math.round(answer.planMs)} ms)` +
    (fromDrone ? ` from UAV ${v.uavNumber}.` : "; select an airborne drone to plan from where it is."));
  info.dataset.clearance = String(answer.minimumClearanceM);
  info.dataset.waypoints = String(answer.waypoints.length);
}

async function sendInspection() {
  const v = selectedVehicle();
  if (!inspection.plan || !v) { inspectionInfo("Plan, then select the drone to fly it.", "error"); return; }
  // A snapshot point's waypoint carries its heading and the hold: the drone turns and holds there.
  const stops = new Map(inspection.plan.snapshots.map((w, i) => [w, inspection.plan.points[i]]));
  const args = ["trajectory", ...inspection.plan.waypoints.map((w, i) => {
    const p = stops.get(i);
    return p ? [...w, ((p.heading % 360) + 360) % 360, inspection.plan.holdS].join(",") : w.join(",");
  })];
  const final = await command(v.uavNumber, args, Math.min(600000, Math.round(inspection.plan.durationS * 1500) + 60000));
  if (final && final !== "completed") logEvent(`UAV ${v.uavNumber} inspection route: ${final}`, final);
}

mapClickHook = (latlng) => {
  if (!inspection.adding || session.role !== "operator") return false;
  addInspectionPoint(latlng);
  return true;
};

document.getElementById("inspection-add").addEventListener("click", (e) => {
  inspection.adding = !inspection.adding;
  e.target.setAttribute("aria-pressed", String(inspection.adding));
  document.getElementById("map-hint").textContent = inspection.adding
    ? "Click the map to add a snapshot point at the altitude and heading in the Inspection panel."
    : "Click the map to send the drone there.";
});
document.getElementById("inspection-show").addEventListener("change", (e) => {
  if (!inspection.overlay) return;
  if (e.target.checked) inspection.overlay.addTo(map); else inspection.overlay.remove();
});
document.getElementById("inspection-plan").addEventListener("click", () => planInspection());
document.getElementById("inspection-send").addEventListener("click", () => sendInspection());
document.getElementById("inspection-clear").addEventListener("click", () => { inspection.points = []; forgetPlan(); });

// app.js's start() calls loadInspection() once the page may read the API (after a login where accounts are configured).
