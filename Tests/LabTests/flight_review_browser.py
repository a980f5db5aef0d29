#!/usr/bin/env python3
"""Drives the dashboard's flight review in headless Chromium (Selenium): the station's flight log lists the flight,
a click draws its track on the map with a marker per drone and plots altitude, speed, battery and the nearest drone,
the time slider moves the drone's marker along its track, and the page asks nothing from beyond the station.
Prints one JSON line of findings; exits 1 with the reason on the first failure.

usage: flight_review_browser.py URL FLIGHT SCREENSHOT_DIR
"""
import json
import os
import sys

from selenium.webdriver.common.by import By

from lab_browser import Browser

url, flight, shots = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
browser = Browser(shots, "flight-review-failure.png")
driver, findings, fail, wait_for = browser.driver, browser.findings, browser.fail, browser.wait_for
driver.get(url + "/")
row = wait_for(f"flight {flight} in the Flights list", 15,
               lambda: driver.find_elements(By.CSS_SELECTOR, f'#flights tr[data-flight="{flight}"]'))
findings["row"] = row[0].text
row[0].click()
wait_for("the replay panel", 10, lambda: driver.find_element(By.ID, "replay").is_displayed())
findings["info"] = wait_for("the flight's figures", 10,
                            lambda: driver.find_element(By.ID, "replay-info").text.startswith(f"flight {flight}")
                            and driver.find_element(By.ID, "replay-info").text)
wait_for("the drone's track on the map", 5, lambda: driver.find_elements(By.CSS_SELECTOR, "path.replay-track.own"))
findings["plannedPaths"] = len(driver.find_elements(By.CSS_SELECTOR, "path.replay-plan"))
findings["plotted"] = wait_for("the plot", 5, lambda: driver.execute_script(
    "return review.chart && review.chart.data.datasets.map((d) => [d.label, d.data.length])"))
driver.execute_script(
    "const s = document.getElementById('replay-time'); s.value = (Number(s.min) + Number(s.max)) / 2;"
    " s.dispatchEvent(new Event('input'))")
findings["predictionsMidFlight"] = len(driver.find_elements(By.CSS_SELECTOR, "path.replay-prediction"))
driver.execute_script(
    "const s = document.getElementById('replay-time'); s.value = s.min; s.dispatchEvent(new Event('input'))")
start = driver.execute_script("return review.markers.values().next().value.getLatLng()")
driver.execute_script(
    "const s = document.getElementById('replay-time'); s.value = s.max; s.dispatchEvent(new Event('input'))")
end = driver.execute_script("return review.markers.values().next().value.getLatLng()")
findings["markerMovedDegrees"] = abs(end["lat"] - start["lat"]) + abs(end["lng"] - start["lng"])
findings["replayEnd"] = [end["lat"], end["lng"]]
findings["liveMarker"] = driver.execute_script(
    "const m = markers.values().next().value; return m ? [m.getLatLng().lat, m.getLatLng().lng] : null")
findings["clock"] = driver.find_element(By.ID, "replay-clock").text
driver.save_screenshot(os.path.join(shots, "flight-review.png"))
network, foreign, statuses = browser.network(url)
findings["foreign"] = foreign
findings["failedRequests"] = [u for u, s in statuses.items() if s >= 400]
if foreign:
    fail(f"the page asked for {foreign}")
print(json.dumps(findings))
