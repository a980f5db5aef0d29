#!/usr/bin/env python3
"""The dashboard's offline map layers in headless Chromium (Selenium).

'write' makes a tiny XYZ tile folder (solid-colour 256x256 PNGs, a darker edge on each, for the zooms 14-17 around
LAT LON) and a GeoJSON outline 40 m around that point, as a station's [dashboard] tiles and overlays would name them.

'browse' loads the page: the drone appears, the station's tiles are drawn under the grid (every /tiles/ request answered
200, the images 256 px wide), the overlay's outline is an SVG path in the overlay pane around the drone, the layer
control lists the grid, the tiles and the overlay by name, unticking the overlay removes its path, and nothing was
asked of anything but the station. Prints one JSON line of findings; exits 1 with the reason on the first failure.

usage: dashboard_tiles.py write DIR LAT LON
       dashboard_tiles.py browse URL UAV OVERLAY_NAME SCREENSHOT_DIR
"""
import json
import math
import os
import struct
import sys
import zlib


def png(width, height, colour, edge):
    """A PNG of one colour with a one-pixel `edge` colour on its right and bottom sides."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    row = b"\x00" + bytes(colour) * (width - 1) + bytes(edge)
    last = b"\x00" + bytes(edge) * width
    raw = row * (height - 1) + last
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def tile_of(lat, lon, z):
    n = 2 ** z
    x = int((lon + 180.0) / 360.0 * n)
    y = int((1.0 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2.0 * n)
    return x, y


def write(folder, lat, lon):
    shades = [((222, 235, 214), (196, 214, 186)), ((214, 226, 240), (186, 200, 222))]
    count = 0
    for z in range(14, 18):
        cx, cy = tile_of(lat, lon, z)
        for x in range(cx - 4, cx + 5):
            os.makedirs(os.path.join(folder, "tiles", str(z), str(x)), exist_ok=True)
            for y in range(cy - 4, cy + 5):
                colour, edge = shades[(x + y) % 2]
                with open(os.path.join(folder, "tiles", str(z), str(x), f"{y}.png"), "wb") as f:
                    f.write(png(256, 256, colour, edge))
                count += 1
    d_lat = 40 / 111320
    d_lon = 40 / (111320 * math.cos(math.radians(lat)))
    ring = [[lon - d_lon, lat - d_lat], [lon + d_lon, lat - d_lat], [lon + d_lon, lat + d_lat],
            [lon - d_lon, lat + d_lat], [lon - d_lon, lat - d_lat]]
    outline = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"name": "site"}, "geometry": {"type": "Polygon", "coordinates": [ring]}}]}
    with open(os.path.join(folder, "site.geojson"), "w") as f:
        json.dump(outline, f)
    print(json.dumps({"tiles": count, "centre17": tile_of(lat, lon, 17)}))


def browse(url, uav, overlay_name, shots):
    from selenium.webdriver.common.by import By

    from lab_browser import Browser

    browser = Browser(shots, "6-tiles-failure.png")
    driver, findings, fail, wait_for = browser.driver, browser.findings, browser.fail, browser.wait_for
    try:
        driver.get(url + "/")
        wait_for(f"UAV {uav} on the map", 15, lambda: driver.find_elements(By.CSS_SELECTOR, f".drone.uav-{uav}"))

        def tiles():
            return driver.execute_script("""
                const imgs = [...document.querySelectorAll('.offline-tiles img.leaflet-tile')];
                const done = imgs.filter((i) => i.complete && i.classList.contains('leaflet-tile-loaded'));
                return imgs.length > 0 && done.length === imgs.length
                  ? imgs.map((i) => ({ src: new URL(i.src).pathname, width: i.naturalWidth })) : null;""")
        loaded = wait_for("the station's tiles drawn under the grid", 10, tiles)
        findings["tiles"] = len(loaded)
        findings["tileZooms"] = sorted({int(t["src"].split("/")[2]) for t in loaded})
        if any(t["width"] != 256 or not t["src"].startswith("/tiles/") for t in loaded):
            fail(f"a tile is not a 256 px image from /tiles/: {loaded}")

        def outline():
            return driver.execute_script("""
                const paths = [...document.querySelectorAll('.leaflet-pane path.overlay-0')];
                const drone = document.querySelector('.drone.uav-""" + uav + """').getBoundingClientRect();
                return paths.map((p) => {
                  const r = p.getBoundingClientRect();
                  const cx = drone.left + drone.width / 2, cy = drone.top + drone.height / 2;
                  return { d: (p.getAttribute('d') || '').length, width: r.width, height: r.height,
                           aroundDrone: r.left < cx && cx < r.right && r.top < cy && cy < r.bottom };
                });""")
        paths = wait_for("the overlay's outline", 10, outline)
        findings["overlayPaths"] = paths
        if not (len(paths) == 1 and paths[0]["d"] > 10 and paths[0]["aroundDrone"] and paths[0]["width"] > 50):
            fail(f"the overlay's outline is not drawn around the drone: {paths}")
        if not driver.execute_script("return !!document.querySelector('.leaflet-overlays-pane path.overlay-0')"):
            fail("the overlay's path is not in the map's overlay pane")

        # The layer control lists the grid, the tiles and the overlay; open it for the screenshot.
        driver.execute_script(
            "document.querySelector('.leaflet-control-layers').classList.add('leaflet-control-layers-expanded')")
        labels = driver.execute_script(
            "return [...document.querySelectorAll('.leaflet-control-layers-overlays label')]"
            ".map((l) => l.textContent.trim())")
        findings["layerControl"] = labels
        if labels != ["Metric grid", "Tiles", overlay_name]:
            fail(f"the layer control lists {labels}")
        findings["attribution"] = driver.execute_script(
            "const a = document.querySelector('.leaflet-control-attribution'); return a ? a.textContent : null")
        driver.save_screenshot(os.path.join(shots, "6-tiles-overlay.png"))

        # Unticking the overlay takes its outline off the map.
        boxes = driver.find_elements(By.CSS_SELECTOR, ".leaflet-control-layers-overlays input")
        boxes[2].click()
        wait_for("the overlay's outline gone once unticked", 5,
                 lambda: not driver.find_elements(By.CSS_SELECTOR, "path.overlay-0"))
        findings["overlayUnticked"] = True

        # Every request went to the station, and every tile it was asked for it had.
        network, foreign, statuses = browser.network(url)
        tile_status = {u: st for u, st in statuses.items() if "/tiles/" in u}
        findings["requests"] = len(network)
        findings["tileRequests"] = len(tile_status)
        if foreign:
            fail(f"the page loaded from beyond the station: {foreign}")
        if not tile_status or any(s != 200 for s in tile_status.values()):
            fail(f"tile answers other than 200: {sorted(tile_status.items())[:10]}")
        errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        if errors:
            fail(f"the browser console reports errors: {errors}")
        print(json.dumps(findings))
    finally:
        driver.quit()


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "write":
        write(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    elif len(sys.argv) == 6 and sys.argv[1] == "browse":
        browse(sys.argv[2].rstrip("/"), sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        sys.exit(__doc__)
