#!/usr/bin/env python3
"""The dashboard benchmark's clients, run on the station's lab host by `fleetmesh-bench dashboard`.

  dashboard-bench.py clients N URL SECONDS   N WebSocket clients on URL/api/v1/live for SECONDS; prints one JSON line:
      the delay of every telemetry sample from its arrival at the station to its arrival in a client (each sample
      counted once per client, the first picture it is in), pictures and bytes received per client.
  dashboard-bench.py page URL EXPECTED RUNS  headless Chromium loads URL RUNS times (a fresh profile each); prints
      one JSON line: milliseconds from navigation start to EXPECTED vehicles listed on the page, for each run.

The station and the clients share this machine's clock, so a sample's arrival at the station (the picture's `time`
minus the vehicle's `ageMs`) and its arrival in the client are comparable.
"""
import json
import sys
import tempfile
import threading
import time


def clients(n, url, seconds):
    import websocket  # websocket-client, installed with Selenium

    ws_url = url.replace("http://", "ws://").rstrip("/") + "/api/v1/live"
    delays, pictures, sizes = [], [0] * n, [0] * n
    lock = threading.Lock()
    deadline = time.time() + seconds

    def run(i):
        ws = websocket.create_connection(ws_url, timeout=5)
        seen = set()
        try:
            while time.time() < deadline:
                try:
                    text = ws.recv()
                except websocket.WebSocketTimeoutException:
                    continue
                now_ms = time.time() * 1000
                picture = json.loads(text)
                if picture.get("type") != "picture":
                    continue
                mine = []
                for v in picture["vehicles"]:
                    if v.get("role") != "drone":
                        continue
                    arrived = picture["time"] - v["ageMs"]
                    key = (v["node"], round(arrived / 5))  # one sample: same node, same arrival (±5 ms)
                    if key in seen:
                        continue
                    seen.add(key)
                    mine.append(now_ms - arrived)
                with lock:
                    pictures[i] += 1
                    sizes[i] += len(text)
                    if pictures[i] > 2:  # the first pictures carry samples that waited before the client came
                        delays.extend(mine)
        finally:
            ws.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"delaysMs": delays, "pictures": pictures, "bytes": sizes, "seconds": seconds}))


def page(url, expected, runs):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    times = []
    for _ in range(runs):
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--window-size=1280,800", f"--user-data-dir={tempfile.mkdtemp(prefix='fleetmesh-bench-')}"]:
            options.add_argument(arg)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        try:
            driver.get("about:blank")
            driver.execute_script("window.location = arguments[0]", url + "/")
            start = time.monotonic()
            while time.monotonic() - start < 20:
                try:
                    if len(driver.find_elements(By.CSS_SELECTOR, "#vehicles tbody tr")) >= expected:
                        break
                except Exception:
                    pass
                time.sleep(0.005)
            # The page's own clock: navigation start to the first picture's render (the poll above only notices).
            times.append(driver.execute_script("return window.firstPictureAt ?? null"))
        finally:
            driver.quit()
    print(json.dumps({"firstPictureMs": times}))


if sys.argv[1] == "clients":
    clients(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
elif sys.argv[1] == "page":
    page(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
else:
    sys.exit(f"usage: {sys.argv[0]} clients N URL SECONDS | page URL EXPECTED RUNS")
