#!/usr/bin/env python3
"""Drives the station dashboard in headless Chromium (Selenium): the page loads with nothing from beyond the station,
the drone appears on the map and in the list, a click on 'Take off' makes its altitude rise on the page and in the
plot, a path drawn by clicking the map is previewed (the station's plan as a solid line with its duration) and flown
to its last waypoint, a target placed on the map makes it fly there, a group 'Hover' to every drone in the list asks
for confirmation in the page and shows each drone's answer, a geofence drawn on the map (corners clicked, one removed,
one dragged) is uploaded and every drone flies it, the page fits a phone's 390 px width, and when the
test cuts the drone's link (after this prints READY) the station's event log on the page says the drone was lost.
Prints one JSON line of findings; exits 1 with the reason on the first failure.

With NAME and PASSWORD, the page must first ask for a login (the station has accounts), which the script fills in.

usage: dashboard_browser.py URL UAV SCREENSHOT_DIR [NAME PASSWORD]
"""
import json
import math
import os
import re
import sys
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from lab_browser import Browser

url, uav, shots = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
account = sys.argv[4:6] if len(sys.argv) >= 6 else None
browser = Browser(
    shots, "failure.png", extra=lambda d: {"events": d.find_element(By.ID, "events").text.splitlines()[:20]})
driver, findings, fail, wait_for = browser.driver, browser.findings, browser.fail, browser.wait_for
try:
    started = time.monotonic()
    driver.get(url + "/")
    if account:
        wait_for("the login dialog", 10, lambda: driver.find_element(By.ID, "login").is_displayed())
        driver.find_element(By.ID, "login-name").send_keys(account[0])
        driver.find_element(By.ID, "login-password").send_keys("wrong password")
        driver.find_element(By.ID, "login-submit").click()
        wait_for("the refusal in the dialog", 10,
                 lambda: "wrong name or password" in driver.find_element(By.ID, "login-error").text)
        driver.find_element(By.ID, "login-password").clear()
        driver.find_element(By.ID, "login-password").send_keys(account[1])
        driver.save_screenshot(os.path.join(shots, "0-login.png"))
        driver.find_element(By.ID, "login-submit").click()
        wait_for("the account in the header", 10, lambda: account[0] in driver.find_element(By.ID, "account").text)
        findings["account"] = driver.find_element(By.ID, "account-name").text
    wait_for(f"UAV {uav} in the vehicle list", 15,
             lambda: driver.find_elements(By.CSS_SELECTOR, f'#vehicles tr[data-uav="{uav}"]'))
    wait_for(f"UAV {uav} on the map", 5, lambda: driver.find_elements(By.CSS_SELECTOR, f".drone.uav-{uav}"))
    findings["firstPictureMs"] = round((time.monotonic() - started) * 1000)
    findings["live"] = driver.find_element(By.ID, "link").text
    driver.save_screenshot(os.path.join(shots, "1-fleet.png"))

    driver.find_element(By.CSS_SELECTOR, f'#vehicles tr[data-uav="{uav}"]').click()
    wait_for("the selected drone's panel", 5, lambda: driver.find_element(By.ID, "selected").is_displayed())
    alt_input = driver.find_element(By.ID, "takeoff-alt")
    alt_input.clear()
    alt_input.send_keys("6")
    driver.find_element(By.CSS_SELECTOR, 'button[data-cmd="takeoff"]').click()

    def altitude():
        return float(driver.find_element(By.CSS_SELECTOR, f'#vehicles tr[data-uav="{uav}"] td.alt').text)

    findings["altitudeRisenTo"] = wait_for("the altitude on the page to rise above 3 m", 30,
                                           lambda: altitude() if altitude() > 3 else None)
    wait_for("the takeoff's answer in the event log", 30,
             lambda: "completed" in driver.find_element(By.ID, "events").text)
    driver.save_screenshot(os.path.join(shots, "2-takeoff.png"))

    # This station now holds the drone's control lease: the map's badge, the list and the panel say "you".
    badge = f".drone.uav-{uav}.controlled-here .ctl.here"
    findings["controllerBadge"] = wait_for("the 'you' badge on the drone's marker", 5,
                                           lambda: (driver.find_elements(By.CSS_SELECTOR, badge) or [None])[0]
                                           and driver.find_element(By.CSS_SELECTOR, badge).text)
    findings["controllerCell"] = driver.find_element(By.CSS_SELECTOR, f'#vehicles tr[data-uav="{uav}"] td.ctl').text
    findings["controllerFacts"] = next((line for line in driver.find_element(By.ID, "sel-facts").text.splitlines()
                                        if "control" in line), "")
    driver.save_screenshot(os.path.join(shots, "2a-controller.png"))

    # The plot (Chart.js from Debian's libjs-chart.js) holds the drone's samples of the last minutes.
    findings["plotSamples"] = wait_for("samples in the plot", 10,
                                       lambda: int(driver.find_element(By.ID, "plot").get_attribute("data-samples") or 0)
                                       if int(driver.find_element(By.ID, "plot").get_attribute("data-samples") or 0) >= 5
                                       else None)

    # A path drawn on the map: two waypoints, 22 m east of the drone and then 18 m north of that, each a click at the
    # waypoint's place on the map (found with the page's own map projection); preview, then send: the drone flies it.
    def drone_position():
        return driver.execute_script(
            "const v = [...state.vehicles.values()].find((x) => x.uavNumber === Number(arguments[0]));"
            "return v ? [v.latitude, v.longitude, v.altitude, v.activity] : null;", uav)

    def metres_between(a, b):
        north = (b[0] - a[0]) * 111320
        east = (b[1] - a[1]) * 111320 * math.cos(math.radians(a[0]))
        return math.hypot(north, east)

    driver.find_element(By.ID, "draw-path").click()
    wait_for("the path tools", 5, lambda: driver.find_element(By.ID, "path-tools").is_displayed())
    findings["pathAltitudeDefault"] = float(driver.find_element(By.ID, "path-alt").get_attribute("value"))
    lat, lon = drone_position()[:2]
    per_lon = 111320 * math.cos(math.radians(lat))
    map_element = driver.find_element(By.ID, "map")

    def free_for_a_click(w):
        # No clickable marker within 40 px (a click on another drone's marker selects it instead of adding a
        # waypoint; the other drone's place depends on the fleet's homes), and the point well inside the map.
        return driver.execute_script("""
          const here = L.latLng(arguments[0], arguments[1]);
          const p = map.latLngToContainerPoint(here);
          let free = true;
          map.eachLayer((l) => {
            if (l.options.interactive === false) return;
            if (l instanceof L.Marker && p.distanceTo(map.latLngToContainerPoint(l.getLatLng())) < 40) free = false;
            if (l instanceof L.CircleMarker && p.distanceTo(map.latLngToContainerPoint(l.getLatLng())) < 20) free = false;
          });
          const s = map.getSize();
          return free && p.x > 30 && p.y > 30 && p.x < s.x - 30 && p.y < s.y - 30;
        """, w[0], w[1])

    # 22 m east (or west) of the drone, then 18 m north (or south) of that: the first of the four where both clicks
    # are free. The operator zooms so the path fits the map (at once, without Leaflet's animation).
    for east, north in [(1, 1), (-1, 1), (1, -1), (-1, -1)]:
        waypoints = [(lat, lon + east * 22 / per_lon), (lat + north * 18 / 111320, lon + east * 22 / per_lon)]
        driver.execute_script(
            "map.fitBounds(L.latLngBounds(arguments[0]).pad(0.3), { maxZoom: 19, animate: false });",
            [[lat, lon]] + [list(w) for w in waypoints])
        if all(free_for_a_click(w) for w in waypoints):
            break
    else:
        raise AssertionError("no free place on the map for a two-waypoint path beside the drone")
    size = map_element.size
    for w in waypoints:
        point = driver.execute_script("const p = map.latLngToContainerPoint(L.latLng(arguments[0], arguments[1]));"
                                      "return [p.x, p.y];", w[0], w[1])
        ActionChains(driver).move_to_element_with_offset(
            map_element, round(point[0] - size["width"] / 2), round(point[1] - size["height"] / 2)).click().perform()
    driver.save_screenshot(os.path.join(shots, "3-waypoints-clicked.png"))
    wait_for("two numbered waypoints on the map", 5,
             lambda: len(driver.find_elements(By.CSS_SELECTOR, ".waypoint")) == 2)
    clicked = driver.execute_script("return path.waypoints.map((w) => [w.lat, w.lng]);")
    findings["waypointClickErrorM"] = round(max(metres_between(c, w) for c, w in zip(clicked, waypoints)), 2)
    driver.find_element(By.ID, "path-preview").click()
    info = driver.find_element(By.ID, "path-info")
    findings["previewPoints"] = wait_for("the preview's points", 10,
                                         lambda: int(info.get_attribute("data-points") or 0))
    findings["previewDurationS"] = float(info.get_attribute("data-duration-s"))
    findings["previewText"] = info.text
    findings["previewLines"] = len(driver.find_elements(By.CSS_SELECTOR, "path.trajectory-preview"))
    driver.save_screenshot(os.path.join(shots, "3-trajectory-preview.png"))
    driver.find_element(By.ID, "path-send").click()
    wait_for("the drone following the trajectory", 10, lambda: drone_position()[3] == "followingTrajectory")
    wait_for("the drone 10 m along the path", 15, lambda: metres_between(drone_position(), [lat, lon]) > 10)
    driver.save_screenshot(os.path.join(shots, "3-trajectory-flying.png"))
    last = clicked[-1]
    wait_for("the drone near the last waypoint, hovering", findings["previewDurationS"] + 20,
             lambda: metres_between(drone_position(), last) < 3 and drone_position()[3] == "hovering")
    findings["trajectoryEndErrorM"] = round(metres_between(drone_position(), last), 2)
    wait_for("the trajectory's answer in the event log", 10,
             lambda: any("trajectory" in line and "completed" in line
                         for line in driver.find_element(By.ID, "events").text.splitlines()))
    driver.save_screenshot(os.path.join(shots, "3-trajectory.png"))

    # A target placed on the map, 20 m (or 40 m) from the drone where no marker lies under the click (a click on another
    # drone's marker selects that drone instead; the other drone's place depends on the fleet's homes): the drone
    # flies to it.
    driver.find_element(By.ID, "place-target").click()
    map_element = driver.find_element(By.ID, "map")
    here = drone_position()
    spot = None
    for east, north in [(-20, 0), (0, 20), (20, 0), (0, -20), (-20, 20), (20, 20), (-40, 0), (0, 40)]:
        lat_t = here[0] + north / 111320
        lon_t = here[1] + east / (111320 * math.cos(math.radians(here[0])))
        x, y, nearest, inside = driver.execute_script("""
          const p = map.latLngToContainerPoint(L.latLng(arguments[0], arguments[1]));
          let nearest = Infinity;
          map.eachLayer((l) => {
            if (l instanceof L.Marker) nearest = Math.min(nearest, p.distanceTo(map.latLngToContainerPoint(l.getLatLng())));
          });
          const s = map.getSize();
          return [p.x, p.y, nearest, p.x > 30 && p.y > 30 && p.x < s.x - 30 && p.y < s.y - 30];
        """, lat_t, lon_t)
        if inside and nearest > 40:
            spot = (x, y)
            break
    if spot is None:
        raise AssertionError("no free place on the map for the target within 40 m of the drone")
    size = map_element.size
    ActionChains(driver).move_to_element_with_offset(
        map_element, round(spot[0] - size["width"] / 2), round(spot[1] - size["height"] / 2)).click().perform()
    wait_for("the target's answer in the event log", 10,
             lambda: "sent to the mesh" in driver.find_element(By.ID, "events").text)
    wait_for("the drone flying to the target", 15,
             lambda: "flyingToTarget" in driver.find_element(By.CSS_SELECTOR, f'#vehicles tr[data-uav="{uav}"]').text)
    findings["targetMarker"] = len(driver.find_elements(By.CSS_SELECTOR, ".target-marker"))
    driver.save_screenshot(os.path.join(shots, "2b-target.png"))

    # A gamepad drives the drone over the live WebSocket at 100 Hz. Headless Chromium has no gamepad, so the page's
    # navigator.getGamepads answers a simulated one (Standard Gamepad mapping): right stick forward is north.
    driver.execute_script("""
      window.testPad = { id: "FleetMesh test pad (STANDARD GAMEPAD)", index: 0, connected: true, mapping: "standard",
                         axes: [0, 0, 0, 0], buttons: [], timestamp: performance.now() };
      navigator.getGamepads = () => [window.testPad];
      window.dispatchEvent(new Event("gamepadconnected"));
    """)

    def north_m():
        return driver.execute_script(
            f"const v = [...state.vehicles.values()].find((v) => v.uavNumber === {uav}); return v.latitude") * 111320

    start_north = north_m()
    driver.execute_script("window.testPad.axes[3] = -1;")
    driver.find_element(By.ID, "drive").click()
    wait_for("the page driving the drone", 5, lambda: "driving UAV" in driver.find_element(By.ID, "gamepad-state").text)
    # Where the Drive button sits in the side panel (scrolling aside), every 20 ms from now until the drone holds: the
    # rows and facts above it change text as the drone's activity and speed change, and must not move it.
    driver.execute_script("""
      const aside = document.querySelector("aside"), button = document.getElementById("drive");
      window.driveTops = new Set();
      window.driveSampler = setInterval(() => window.driveTops.add(
        Math.round(button.getBoundingClientRect().top - aside.getBoundingClientRect().top + aside.scrollTop)), 20);
    """)
    findings["drivenNorthM"] = round(wait_for("the drone 4 m further north on the page", 15,
                                              lambda: north_m() - start_north if north_m() - start_north > 4 else None), 2)
    driver.save_screenshot(os.path.join(shots, "2c-gamepad.png"))
    driver.execute_script("window.testPad.axes[3] = 0;")
    driver.find_element(By.ID, "drive").click()
    findings["manualSamples"] = int(
        wait_for("the end of manual control in the event log", 5,
                 lambda: [line for line in driver.find_element(By.ID, "events").text.splitlines()
                          if "manual control ended after" in line])[0].split("after ")[1].split(" ")[0])
    wait_for("the drone holding after the stick is released", 15,
             lambda: float(driver.find_element(By.CSS_SELECTOR, f'#vehicles tr[data-uav="{uav}"] td.speed').text) < 0.3)
    findings["driveButtonTops"] = driver.execute_script(
        "clearInterval(window.driveSampler); return [...window.driveTops];")

    # A group command at the same moment: every drone ticked ("all"), 'Hover' asks in the page first, then each drone
    # answers (accepted: scheduled), all starting at the moment the station chose.
    drones = len(driver.find_elements(By.CSS_SELECTOR, "#vehicles tbody tr"))
    driver.find_element(By.ID, "pick-all").click()
    wait_for("the group bar", 5, lambda: driver.find_element(By.ID, "group").is_displayed())
    driver.find_element(By.ID, "group-together").click()
    driver.find_element(By.CSS_SELECTOR, 'button[data-group="hover"]').click()
    if drones > 1:
        wait_for("the confirmation in the page", 5, lambda: driver.find_element(By.ID, "confirm").is_displayed())
        findings["groupConfirmation"] = driver.find_element(By.ID, "confirm-text").text
        driver.save_screenshot(os.path.join(shots, "4-group-confirm.png"))
        driver.find_element(By.ID, "confirm-ok").click()
    wait_for("the group's summary in the event log", 20,
             lambda: "group hover: " in driver.find_element(By.ID, "events").text
             and " of " in driver.find_element(By.ID, "events").text)
    lines = driver.find_element(By.ID, "events").text.splitlines()
    answered = [re.search(r"\bUAV (\d+) hover: (accepted|rejected|failed)", line) for line in lines]
    findings["groupAnswers"] = len({m.group(1) for m in answered if m})
    findings["groupSummary"] = next(line for line in lines if "group hover: " in line)
    findings["groupStart"] = next((line for line in lines if "every drone starts at" in line), None)
    findings["groupScheduled"] = len([line for line in lines if re.search(r"\bUAV \d+ hover: accepted \(scheduled\)", line)])
    driver.find_element(By.ID, "pick-all").click()

    # A geofence drawn on the page: five corners clicked around the drone, the fourth picked and removed, the third
    # dragged 5 m further out, floor and ceiling typed, uploaded: the answer shows, the fence in force is drawn, and
    # every drone flies it.
    def container_point(lat_lon):
        return driver.execute_script("const p = map.latLngToContainerPoint(L.latLng(arguments[0], arguments[1]));"
                                     "return [p.x, p.y];", lat_lon[0], lat_lon[1])

    def click_map(lat_lon):
        element = driver.find_element(By.ID, "map")
        point, size = container_point(lat_lon), element.size
        ActionChains(driver).move_to_element_with_offset(
            element, round(point[0] - size["width"] / 2), round(point[1] - size["height"] / 2)).click().perform()

    lat, lon = drone_position()[:2]
    per_lon = 111320 * math.cos(math.radians(lat))
    def at(east, north):
        return (lat + north / 111320, lon + east / per_lon)

    driver.find_element(By.ID, "fence-edit").click()
    wait_for("the geofence tools", 5, lambda: driver.find_element(By.ID, "fence-tools").is_displayed())
    clicked_corners = [at(-30, -30), at(30, -30), at(30, 30), at(0, 45), at(-30, 30)]
    driver.execute_script("map.fitBounds(L.latLngBounds(arguments[0]).pad(0.4), { maxZoom: 19, animate: false });",
                          [list(c) for c in clicked_corners])
    for c in clicked_corners:
        click_map(c)
    wait_for("five corners on the map", 5, lambda: len(driver.find_elements(By.CSS_SELECTOR, ".fence-corner")) == 5)
    # A click on a drone while drawing places a corner there (it used to select the drone instead, and a corner
    # clicked over another drone went missing); removed again at once (the new corner is the picked one).
    ActionChains(driver).move_to_element(
        driver.find_element(By.CSS_SELECTOR, f".drone.uav-{uav} > div")).click().perform()
    wait_for("a sixth corner, on the drone", 5, lambda: len(driver.find_elements(By.CSS_SELECTOR, ".fence-corner")) == 6)
    driver.find_element(By.ID, "fence-remove").click()
    wait_for("five corners again", 5, lambda: len(driver.find_elements(By.CSS_SELECTOR, ".fence-corner")) == 5)
    driver.find_elements(By.CSS_SELECTOR, ".fence-corner")[3].click()
    wait_for("the fourth corner picked", 5,
             lambda: "picked" in driver.find_elements(By.CSS_SELECTOR, ".fence-corner")[3].get_attribute("class"))
    driver.find_element(By.ID, "fence-remove").click()
    wait_for("four corners left", 5, lambda: len(driver.find_elements(By.CSS_SELECTOR, ".fence-corner")) == 4)
    start, goal = container_point(at(30, 30)), container_point(at(35, 35))
    dx, dy = goal[0] - start[0], goal[1] - start[1]
    # In ten steps, as a hand drags (the drag starts only after the first few pixels of movement).
    drag = ActionChains(driver).click_and_hold(driver.find_elements(By.CSS_SELECTOR, ".fence-corner")[2])
    done = (0, 0)
    for k in range(1, 11):
        step = (round(dx * k / 10), round(dy * k / 10))
        drag = drag.move_by_offset(step[0] - done[0], step[1] - done[1])
        done = step
    drag.release().perform()
    edited = wait_for("the dragged corner moved", 5, lambda: driver.execute_script(
        "return fence.corners.map((c) => [c.lat, c.lng]);") if metres_between(driver.execute_script(
            "return [fence.corners[2].lat, fence.corners[2].lng];"), at(30, 30)) > 2 else None)
    findings["fenceDragErrorM"] = round(metres_between(edited[2], at(35, 35)), 2)
    for field, value in (("fence-floor", "2"), ("fence-ceiling", "40")):
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    driver.save_screenshot(os.path.join(shots, "6-geofence-edit.png"))
    driver.find_element(By.ID, "fence-upload").click()
    findings["fenceAnswer"] = wait_for("the upload's answer", 10, lambda: driver.find_element(By.ID, "fence-info").text
                                       if "Uploaded" in driver.find_element(By.ID, "fence-info").text else None)
    state = driver.find_element(By.ID, "fence-state")
    wait_for("every drone flying the new fence", 10,
             lambda: int(state.get_attribute("data-drones") or 0) >= 2
             and state.get_attribute("data-adopted") == state.get_attribute("data-drones"))
    findings["fenceEpoch"] = int(state.get_attribute("data-epoch"))
    findings["fenceAdopted"] = int(state.get_attribute("data-adopted"))
    findings["fenceState"] = state.text
    findings["fencePolygons"] = len(driver.find_elements(By.CSS_SELECTOR, "path.geofence-in-force"))
    findings["fenceCorners"] = driver.execute_script("return state.geofence.inForce.corners;")
    driver.execute_script("document.getElementById('geofence').scrollIntoView();")
    driver.save_screenshot(os.path.join(shots, "6-geofence.png"))
    driver.find_element(By.CSS_SELECTOR, f'#vehicles tr[data-uav="{uav}"]').click()
    findings["fenceFact"] = driver.find_element(By.ID, "sel-facts").text.splitlines()[-1]

    # A phone's width (390 px): nothing may stick out to the right, with the path tools open.
    driver.set_window_size(390, 844)
    driver.find_element(By.ID, "draw-path").click()
    wait_for("the narrow layout", 5, lambda: driver.execute_script("return window.innerWidth") <= 400)
    driver.execute_script("map.invalidateSize();")
    overflow = driver.execute_script(
        "const w = document.documentElement.clientWidth;"
        "const out = [...document.querySelectorAll('header *, aside *')]"
        "  .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > w + 0.5)"
        "  .map((e) => e.id || e.className || e.tagName);"
        "return { width: w, scrollWidth: document.documentElement.scrollWidth, out };")
    findings["phone"] = overflow
    driver.save_screenshot(os.path.join(shots, "5-phone.png"))
    driver.execute_script("document.querySelector('aside').scrollIntoView();")
    driver.save_screenshot(os.path.join(shots, "5-phone-controls.png"))
    if overflow["out"] or overflow["scrollWidth"] > overflow["width"]:
        fail(f"the page overflows a 390 px screen: {overflow}")
    driver.find_element(By.ID, "path-cancel").click()
    # The same with the geofence tools open.
    driver.find_element(By.ID, "fence-edit").click()
    wait_for("the geofence tools", 5, lambda: driver.find_element(By.ID, "fence-tools").is_displayed())
    overflow = driver.execute_script(
        "const w = document.documentElement.clientWidth;"
        "const out = [...document.querySelectorAll('header *, aside *')]"
        "  .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > w + 0.5)"
        "  .map((e) => e.id || e.className || e.tagName);"
        "return { width: w, scrollWidth: document.documentElement.scrollWidth, out };")
    findings["phoneGeofence"] = overflow
    driver.execute_script("document.getElementById('map').scrollIntoView();")
    driver.save_screenshot(os.path.join(shots, "5-phone-geofence-map.png"))
    driver.execute_script("document.getElementById('geofence').scrollIntoView();")
    driver.save_screenshot(os.path.join(shots, "5-phone-geofence.png"))
    if overflow["out"] or overflow["scrollWidth"] > overflow["width"]:
        fail(f"the page overflows a 390 px screen with the geofence tools: {overflow}")
    driver.find_element(By.ID, "fence-cancel").click()
    driver.set_window_size(1280, 800)

    # The test cuts the drone's link now; the station's event log on the page must say it lost the drone.
    print("READY: cut the link", flush=True)
    wait_for("the station's 'lost' event in the page's log", 20,
             lambda: f"UAV {uav}: peer" in driver.find_element(By.ID, "events").text
             and "→ lost" in driver.find_element(By.ID, "events").text)
    findings["events"] = driver.find_element(By.ID, "events").text.splitlines()[:25]
    driver.save_screenshot(os.path.join(shots, "3-link-cut.png"))

    # Everything the page loaded came from the station: no CDN, fonts or tiles from elsewhere.
    network, foreign, _ = browser.network(url)
    findings["requests"] = len(network)
    if foreign:
        fail(f"the page loaded from beyond the station: {foreign}")
    # The 401s of the login (asked before logging in, and the wrong password on purpose) are expected.
    expected = ("/api/v1/session - Failed to load resource: the server responded with a status of 401",
                "/api/v1/login - Failed to load resource: the server responded with a status of 401")
    errors = [e["message"] for e in driver.get_log("browser")
              if e["level"] == "SEVERE" and not (account and any(x in e["message"] for x in expected))]
    if errors:
        fail(f"the browser console reports errors: {errors}")
    print(json.dumps(findings))
finally:
    driver.quit()
