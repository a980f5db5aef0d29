"""What the dashboard's browser tests share: headless Chromium from Debian's packages (chromium, chromium-driver) driven
by Selenium, a findings report printed as one JSON line, and a failure that saves a screenshot and ends the script."""
import json
import os
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


class Browser:
    """Headless Chromium with a fresh profile, its network and console logs kept; `fail` and `wait_for` end the script
    with the findings so far (and `extra(driver)`'s, if given) on the first failure."""

    def __init__(self, shots, failure_shot, extra=None):
        os.makedirs(shots, exist_ok=True)
        self.shots, self.failure_shot, self.extra = shots, failure_shot, extra
        self.findings = {}
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--window-size=1280,800", f"--user-data-dir={tempfile.mkdtemp(prefix='fleetmesh-chromium-')}"]:
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)

    def fail(self, reason):
        try:
            self.driver.save_screenshot(os.path.join(self.shots, self.failure_shot))
            if self.extra:
                self.findings.update(self.extra(self.driver))
        except Exception:
            pass
        self.findings["failure"] = reason
        print(json.dumps(self.findings))
        sys.exit(1)

    def wait_for(self, what, timeout, check):
        """`check()`'s first truthy value within `timeout` seconds (exceptions count as not yet)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = check()
                if value:
                    return value
            except Exception:
                pass
            time.sleep(0.1)
        self.fail(f"timed out after {timeout} s waiting for {what}")

    def network(self, url):
        """What the page asked for since the last call, from Chromium's performance log: every http(s) and ws(s)
        request, the ones to anything but `url`'s host, and the status of each response (by URL). The browser's own
        pages (chrome://, the blank tab before the page) are not the page's requests."""
        host = url.split("://", 1)[1].split("/", 1)[0]
        requests, statuses = set(), {}
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                requests.add(message["params"]["request"]["url"])
            elif message.get("method") == "Network.webSocketCreated":
                requests.add(message["params"]["url"])
            elif message.get("method") == "Network.responseReceived":
                response = message["params"]["response"]
                statuses[response["url"]] = response["status"]
        network = sorted(r for r in requests if r.split("://", 1)[0] in ("http", "https", "ws", "wss"))
        foreign = [r for r in network if r.split("://", 1)[1].split("/", 1)[0] != host]
        return network, foreign, statuses
