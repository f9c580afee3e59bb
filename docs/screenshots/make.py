"""The card table's screenshots in docs/serving.md: each game's table at a laptop's size
(1280x800) and a phone's (390x844), some decisions into a match against greedy bots.

    python docs/screenshots/make.py   # needs Chromium, ChromeDriver and selenium

It starts ``arena serve`` on a fresh database of its own and writes ``GAME-WIDTH.png`` here.
"""

import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

HERE = pathlib.Path(__file__).parent
TABLES = [("vandtia", "vandtia/swedish/3", 0, 6), ("tractor", "tractor/deal/4", 0, 12),
          ("cherki", "cherki/standard/3", 0, 6)]
SIZES = [(1280, 800), (390, 844)]


def main() -> None:
    folder = tempfile.mkdtemp()
    server = subprocess.Popen([sys.executable, "-m", "arena", "--db",
                               f"sqlite:///{folder}/shots.db", "serve", "--port", "0"],
                              stderr=subprocess.PIPE, text=True)
    url = re.search(r"serving (http://\S+)", server.stderr.readline())[1]
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        for name, table, seat, decisions in TABLES:
            for width, height in SIZES:
                browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                    "width": width, "height": height, "deviceScaleFactor": 1,
                    "mobile": width < 500})
                browser.get(url + "play.html")
                browser.delete_all_cookies()  # a new visitor: its tables apart from the last
                browser.get(url + "play.html")
                browser.execute_script("localStorage.setItem('arena-speed', '0')")
                Select(browser.find_element(By.ID, "table-kind")).select_by_value(table)
                for field, value in (("seat", str(seat)), ("opponents", "greedy"),
                                     ("name", "Ada")):
                    box = browser.find_element(By.ID, field)
                    box.clear()
                    box.send_keys(value)
                browser.find_element(By.ID, "sit").click()
                for i in range(decisions + 1):
                    WebDriverWait(browser, 60).until(lambda b: b.execute_script(
                        "const d = document.getElementById('panel').dataset;"
                        "return d.turn === 'yours' || (d.status && d.status !== 'running')"))
                    buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button.action")
                    if i == decisions or not buttons:
                        break
                    buttons[(i * 7) % len(buttons)].click()
                    time.sleep(0.2)
                browser.save_screenshot(str(HERE / f"{name}-{width}.png"))
                print(HERE / f"{name}-{width}.png")
    finally:
        browser.quit()
        server.terminate()


if __name__ == "__main__":
    main()
