// FleetMesh station dashboard: flight review from the station's flight log (/api/v1/flights, docs/FLIGHTLOG.md).
// A flight picked in the list is drawn on the map (its drone's track bold, every other drone's thin), replayed with a
// time slider (every drone where it was at that moment), and plotted: altitude, speed, battery and the distance to
// the nearest other drone against the time since takeoff.
"use strict";

const review = {
  layer: L.layerGroup().addTo(map),
  predictions: L.layerGroup().addTo(map),   // each drone's prediction at the slider's time
  markers: new Map(),   // node → L.circleMarker at the slider's time
  track: null,          // FlightTrack
  chart: null,
  playing: null,        // the interval timer while playing
};

function reviewTime(ms) { return new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC"; }

async function loadFlights() {
  const list = document.querySelector("#flights tbody");
  const note = document.getElementById("flights-note");
  try {
    const r = await fetch("/api/v1/flights");
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || `the station answered ${r.status}`);
    list.replaceChildren(...body.slice().reverse().map((f) => {
      const row = document.createElement("tr");
      row.dataset.flight = f.flight;
      const cells = [
        f.flight, f.uavNumber ?? "–", reviewTime(f.startMs).slice(11, 19),
        `${Math.round(f.durationSeconds)} s${f.endMs == null ? " ✈" : ""}`, f.maxAltitudeMetres.toFixed(1),
        f.closestApproachMetres == null ? "–" : f.closestApproachMetres.toFixed(1),
      ];
      for (const c of cells) { const td = document.createElement("td"); td.textContent = c; row.append(td); }
      row.addEventListener("click", () => openFlight(f.flight));
      return row;
    }));
    note.textContent = body.length ? "" : "no flights recorded yet";
  } catch (e) {
    note.textContent = `flight log: ${e.message}`;
  }
}

async function openFlight(id) {
  stopReplay();
  const r = await fetch(`/api/v1/flights/${id}/track?maxPoints=1500`);
  const body = await r.json();
  const info = document.getElementById("replay-info");
  document.getElementById("replay").hidden = false;
  if (!r.ok) { info.textContent = body.error || `the station answered ${r.status}`; return; }
  review.track = body;
  const f = body.flight;
  info.textContent = `flight ${f.flight}: UAV ${f.uavNumber ?? "–"} (${f.name}), ${reviewTime(f.startMs)}, ` +
    `${Math.round(f.durationSeconds)} s, ${Math.round(f.distanceMetres)} m flown, max ${f.maxAltitudeMetres.toFixed(1)} m, ` +
    `battery −${f.batteryUsedPercent} %` +
    (f.closestApproachMetres == null ? "" : `, closest ${f.closestApproachMetres.toFixed(1)} m (UAV ${f.closestApproachUAV})`);
  document.querySelectorAll("#flights tr[data-flight]").forEach((row) =>
    row.classList.toggle("picked", Number(row.dataset.flight) === f.flight));
  review.layer.clearLayers();
  review.predictions.clearLayers();
  review.markers.clear();
  for (const v of body.vehicles) {
    const points = v.points.map((p) => [p.latitude, p.longitude]);
    if (points.length === 0) continue;
    L.polyline(points, {
      color: v.own ? "#d9480f" : "#5c7cfa", weight: v.own ? 4 : 2, opacity: v.own ? 0.9 : 0.6,
      dashArray: v.own ? null : "4 6", className: `replay-track${v.own ? " own" : ""}`,
    }).addTo(review.layer);
    const marker = L.circleMarker(points[0], {
      radius: v.own ? 7 : 5, color: v.own ? "#d9480f" : "#5c7cfa", fillOpacity: 0.9,
      className: `replay-drone${v.own ? " own" : ""}`,
    }).bindTooltip(v.uavNumber != null ? `UAV ${v.uavNumber}` : v.name).addTo(review.layer);
    review.markers.set(v.node, marker);
  }
  for (const p of body.plans) {
    L.polyline(p.path.map((w) => [w[0], w[1]]), {
      color: "#212529", weight: 2, dashArray: "2 6", className: "replay-plan",
    }).bindTooltip(`${p.kind}: planned ${p.plannedMetres.toFixed(0)} m, flown ${p.flownMetres.toFixed(0)} m, ` +
      `cross-track max ${p.maxCrossTrackMetres.toFixed(2)} m, RMS ${p.rmsCrossTrackMetres.toFixed(2)} m` +
      (p.actualSeconds == null ? "" : `, ${p.actualSeconds.toFixed(1)} s`) +
      (p.plannedSeconds == null ? "" : ` (planned ${p.plannedSeconds.toFixed(1)} s)`)).addTo(review.layer);
  }
  if (body.plans.length) {
    const worst = Math.max(...body.plans.map((p) => p.maxCrossTrackMetres));
    info.textContent += `; ${body.plans.length} commanded path${body.plans.length > 1 ? "s" : ""}, cross-track max ${worst.toFixed(2)} m`;
  }
  const own = body.vehicles[0].points;
  if (own.length) map.fitBounds(L.latLngBounds(own.map((p) => [p.latitude, p.longitude])).pad(0.3));
  const slider = document.getElementById("replay-time");
  const end = f.endMs ?? (own.length ? own[own.length - 1].timeMs : f.startMs);
  slider.min = f.startMs;
  slider.max = end;
  slider.value = f.startMs;
  drawReplayChart(own, f.startMs);
  showReplayAt(f.startMs);
}

// The sample of `points` (time order) last at or before `t` (the first when `t` is before them all).
function sampleAt(points, t) {
  let low = 0, high = points.length - 1;
  if (high < 0) return null;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (points[mid].timeMs <= t) low = mid; else high = mid - 1;
  }
  return points[low];
}

function showReplayAt(t) {
  if (!review.track) return;
  for (const v of review.track.vehicles) {
    const p = sampleAt(v.points, t);
    const marker = review.markers.get(v.node);
    if (p && marker) marker.setLatLng([p.latitude, p.longitude]);
  }
  review.predictions.clearLayers();
  for (const v of review.track.vehicles) {
    let latest = null;
    for (const p of v.predictions) { if (p.timeMs <= t) latest = p; else break; }
    if (!latest || t - latest.timeMs > 1500 || latest.points.length < 2) continue;
    L.polyline(latest.points.map((w) => [w[0], w[1]]), {
      color: latest.avoiding ? "#c62828" : (v.own ? "#d9480f" : "#5c7cfa"), weight: 1.5, opacity: 0.8,
      className: "replay-prediction", interactive: false,
    }).addTo(review.predictions);
  }
  const own = sampleAt(review.track.vehicles[0].points, t);
  const seconds = (t - review.track.flight.startMs) / 1000;
  document.getElementById("replay-clock").textContent = own
    ? `+${seconds.toFixed(1)} s  ${own.altitude.toFixed(1)} m  ${own.speed.toFixed(1)} m/s  ${own.battery} %  ${own.activity}`
    : `+${seconds.toFixed(1)} s`;
}

function drawReplayChart(points, start) {
  const at = (key) => points.map((p) => ({ x: (p.timeMs - start) / 1000, y: p[key] ?? null }));
  const data = {
    datasets: [
      { label: "altitude m", data: at("altitude"), borderColor: "#d9480f", yAxisID: "m", pointRadius: 0 },
      { label: "speed m/s", data: at("speed"), borderColor: "#2b8a3e", yAxisID: "m", pointRadius: 0 },
      { label: "nearest drone m", data: at("nearest"), borderColor: "#5c7cfa", yAxisID: "m", pointRadius: 0, spanGaps: false },
      { label: "cross-track m", data: at("crossTrack"), borderColor: "#212529", yAxisID: "m", pointRadius: 0, spanGaps: false },
      { label: "battery %", data: at("battery"), borderColor: "#868e96", yAxisID: "pct", pointRadius: 0 },
    ],
  };
  if (review.chart) review.chart.destroy();
  review.chart = new Chart(document.getElementById("replay-plot"), {
    type: "line", data,
    options: {
      animation: false, parsing: false, responsive: true, maintainAspectRatio: false,
      scales: {
        x: { type: "linear", title: { display: true, text: "s since takeoff" } },
        m: { type: "linear", position: "left", beginAtZero: true },
        pct: { type: "linear", position: "right", min: 0, max: 100, grid: { drawOnChartArea: false } },
      },
      plugins: { legend: { labels: { boxWidth: 12 } } },
    },
  });
}

function stopReplay() {
  if (review.playing) clearInterval(review.playing);
  review.playing = null;
  document.getElementById("replay-play").textContent = "Play ×4";
}

document.getElementById("flights-refresh").addEventListener("click", loadFlights);
document.getElementById("replay-time").addEventListener("input", (e) => { stopReplay(); showReplayAt(Number(e.target.value)); });
document.getElementById("replay-play").addEventListener("click", () => {
  if (review.playing) return stopReplay();
  const slider = document.getElementById("replay-time");
  if (Number(slider.value) >= Number(slider.max)) slider.value = slider.min;
  document.getElementById("replay-play").textContent = "Pause";
  review.playing = setInterval(() => {
    const next = Math.min(Number(slider.max), Number(slider.value) + 400);   // 100 ms of page time = 400 ms flown
    slider.value = next;
    showReplayAt(next);
    if (next >= Number(slider.max)) stopReplay();
  }, 100);
});
document.getElementById("replay-close").addEventListener("click", () => {
  stopReplay();
  review.track = null;
  review.layer.clearLayers();
  review.predictions.clearLayers();
  review.markers.clear();
  document.getElementById("replay").hidden = true;
  document.querySelectorAll("#flights tr.picked").forEach((row) => row.classList.remove("picked"));
});
// app.js's start() calls loadFlights() once the page may read the API (after a login where accounts are configured).
