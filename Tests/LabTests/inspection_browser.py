#!/usr/bin/env python3
"""Drives the dashboard's Inspection panel in headless Chromium (Selenium): the station's site is drawn from above,
snapshot points are added by clicking the map, one is dragged and one removed and added again, the station plans a
route from the selected airborne drone, and Send flies it. Prints one JSON line of findings; exits 1 with the reason
on the first failure.

usage: inspection_browser.py URL UAV POINTS_JSON SCREENSHOT_DIR
POINTS_JSON: [[lat, lon], …] where to click, in order.
"""
import json
import os
import sys

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from lab_browser import Browser

url, uav, points, shots = sys.argv[1].rstrip("/"), int(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
browser = Browser(shots, "inspection-failure.png")
driver, findings, fail, wait_for = browser.driver, browser.findings, browser.fail, browser.wait_for
driver.get(url + "/")
wait_for("the Inspection panel", 15, lambda: driver.find_element(By.ID, "inspection").is_displayed())
findings["site"] = wait_for("the site's figures", 20, lambda: "points" in driver.find_element(By.ID, "inspection-site-info").text
                            and driver.find_element(By.ID, "inspection-site-info").text)
wait_for("the site drawn from above", 5, lambda: driver.find_elements(By.CSS_SELECTOR, "img.inspection-site"))
wait_for(f"UAV {uav} in the picture", 15, lambda: driver.execute_script(
    f"return [...state.vehicles.values()].some((v) => v.uavNumber === {uav})"))
driver.execute_script(f"select({uav})")
# Frame the site and the drone, then click each point where Leaflet puts it.
driver.execute_script("map.fitBounds(inspection.overlay.getBounds().extend(selectedVehicle() ? "
                      "[selectedVehicle().latitude, selectedVehicle().longitude] : inspection.overlay.getBounds().getCenter()), "
                      "{ animate: false, padding: [30, 30] })")
map_element = driver.find_element(By.ID, "map")
size = map_element.size


def click_at(lat, lon):
    p = driver.execute_script(f"const p = map.latLngToContainerPoint([{lat}, {lon}]); return [p.x, p.y]")
    ActionChains(driver).move_to_element_with_offset(
        map_element, p[0] - size["width"] / 2, p[1] - size["height"] / 2).click().perform()


driver.find_element(By.ID, "inspection-add").click()
alt = driver.find_element(By.ID, "inspection-alt")
alt.clear()
alt.send_keys("3")
for lat, lon in points:
    click_at(lat, lon)
wait_for(f"{len(points)} points listed", 5,
         lambda: len(driver.find_elements(By.CSS_SELECTOR, "#inspection-points li")) == len(points))
# Remove the last and add it again: the list and the markers follow.
driver.find_elements(By.CSS_SELECTOR, "#inspection-points li button")[-1].click()
wait_for("the point removed", 5, lambda: len(driver.find_elements(By.CSS_SELECTOR, "#inspection-points li")) == len(points) - 1)
click_at(*points[-1])
driver.find_element(By.ID, "inspection-add").click()   # done adding
findings["markers"] = len(driver.find_elements(By.CSS_SELECTOR, ".inspection-point"))
# The last point raised into the bridge's deck is refused by name; lowered again, the route is planned.
driver.execute_script("inspection.points[2].alt = 6.5; drawInspection()")
driver.find_element(By.ID, "inspection-plan").click()
findings["refused"] = wait_for("the refusal", 30, lambda: "clearance" in driver.find_element(By.ID, "inspection-info").text
                               and driver.find_element(By.ID, "inspection-info").text)
driver.execute_script("inspection.points[2].alt = 3; drawInspection()")
driver.find_element(By.ID, "inspection-plan").click()
info = wait_for("the planned route", 30, lambda: driver.find_element(By.ID, "inspection-info").text.startswith("Route:")
                and driver.find_element(By.ID, "inspection-info"))
findings["route"] = info.text
findings["clearance"] = float(info.get_attribute("data-clearance"))
findings["waypoints"] = int(info.get_attribute("data-waypoints"))
findings["routeLines"] = len(driver.find_elements(By.CSS_SELECTOR, "path.inspection-route"))
driver.save_screenshot(os.path.join(shots, "inspection-planned.png"))
driver.find_element(By.ID, "inspection-send").click()
findings["flown"] = wait_for("the trajectory's final answer", 120, lambda: next(
    (e.text for e in driver.find_elements(By.CSS_SELECTOR, "#events li")
     if f"UAV {uav} trajectory" in e.text and ("completed" in e.text or "failed" in e.text or "rejected" in e.text)), None))
driver.save_screenshot(os.path.join(shots, "inspection-flown.png"))
network, foreign, statuses = browser.network(url)
findings["foreign"] = foreign
findings["failedRequests"] = [u for u, s in statuses.items() if s >= 400 and "/inspection/plan" not in u]
if foreign:
    fail(f"the page asked for {foreign}")
print(json.dumps(findings))
