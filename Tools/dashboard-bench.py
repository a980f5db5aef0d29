#!/usr/bin/env python3
"""The dashboard benchmark's clients, run on the station's lab host by `fleetmesh-bench dashboard`.

  dashboard-bench.py clients N URL SECONDS [SUBSCRIBE]   N WebSocket clients on URL/api/v1/live for SECONDS, each
      first sending the JSON subscription SUBSCRIBE if given; prints one JSON line: the delay of every telemetry sample
      from its arrival at the station to its arrival in a client (each sample counted once per client, the first
      message it is in; pushed updates of watched and other vehicles, and samples first seen in a periodic picture,
      apart), messages and bytes received per client.
  dashboard-bench.py page URL EXPECTED RUNS  headless Chromium loads URL RUNS times (a fresh profile each); prints
      one JSON line: milliseconds from navigation start to EXPECTED vehicles listed on the page, for each run.

The station and the clients share this machine's clock, so a sample's arrival at the station (the picture's `time`
or update's `time` minus the vehicle's `ageMs`) and its arrival in the client are comparable.
"""
import json
import sys
import tempfile
import time


def client(job):
    """One WebSocket client (its own process, so that ten clients do not share one interpreter's lock)."""
    import websocket  # websocket-client, installed with Selenium

    ws_url, subscribe, start, deadline = job
    watched = set((subscribe or {}).get("watch", []))
    # Delays of samples first seen in a pushed update (the live path), apart for watched vehicles, and of samples first
    # seen in a periodic full picture (those the client's pace held back and a picture then carried).
    delays, watched_delays, picture_delays, messages, size = [], [], [], 0, 0
    ws = websocket.create_connection(ws_url, timeout=5)
    if subscribe:
        ws.send(json.dumps(subscribe))
    seen = set()
    try:
        while time.time() < deadline:
            try:
                text = ws.recv()
            except websocket.WebSocketTimeoutException:
                continue
            now_ms = time.time() * 1000
            message = json.loads(text)
            pushed = message["type"] == "vehicles"
            if message["type"] == "picture":
                samples = [(message["time"], v) for v in message.get("vehicles") or []]
            elif pushed:
                samples = [(u["time"], u["vehicle"]) for u in message["updates"]]
            else:
                samples = []
            messages += 1
            size += len(text)
            for t, v in samples:
                if v.get("role") != "drone":
                    continue
                arrived = t - v["ageMs"]
                key = (v["node"], round(arrived / 5))  # one sample: same node, same arrival (±5 ms)
                if key in seen:
                    continue
                seen.add(key)
                if now_ms / 1000 <= start + 1:  # the first second carries samples that waited for the client
                    continue
                if not pushed:
                    picture_delays.append(now_ms - arrived)
                elif v.get("uavNumber") in watched:
                    watched_delays.append(now_ms - arrived)
                else:
                    delays.append(now_ms - arrived)
    finally:
        ws.close()
    return delays, watched_delays, picture_delays, messages, size


def clients(n, url, seconds, subscribe=None):
    import multiprocessing

    ws_url = url.replace("http://", "ws://").rstrip("/") + "/api/v1/live"
    start = time.time()
    with multiprocessing.Pool(n) as pool:
        results = pool.map(client, [(ws_url, subscribe, start, start + seconds)] * n)
    print(json.dumps({"delaysMs": [d for r in results for d in r[0]],
                      "watchedDelaysMs": [d for r in results for d in r[1]],
                      "pictureDelaysMs": [d for r in results for d in r[2]],
                      "messages": [r[3] for r in results], "bytes": [r[4] for r in results], "seconds": seconds}))


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
    clients(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), json.loads(sys.argv[5]) if len(sys.argv) > 5 else None)
elif sys.argv[1] == "page":
    page(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
else:
    sys.exit(f"usage: {sys.argv[0]} clients N URL SECONDS [SUBSCRIBE] | page URL EXPECTED RUNS")
