"""Open an HTML page in headless Chromium and report what a reader sees.

Talks the Chrome DevTools protocol over ``--remote-debugging-pipe`` (file descriptors
3 and 4, NUL-separated JSON), so it needs nothing but Debian's ``chromium``. Collects
console errors and uncaught exceptions, every table (title, body text, footnotes) and
every image (its natural width once loaded), and takes a full-page screenshot.

    python tests/browser.py results/default/report.html   # writes results/default/report.png
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DEADLINE_S = 60.0
# dup2 the pipe ends to fds 3 and 4, then exec the browser
LAUNCH = (
    "import os, sys; r, w = int(sys.argv[1]), int(sys.argv[2]); "
    "os.dup2(r, 3, inheritable=True); os.dup2(w, 4, inheritable=True); "
    "os.execv(sys.argv[3], sys.argv[3:])"
)

# What a reader sees: evaluated in the page once it has loaded.
READ_PAGE = """(() => JSON.stringify({
  tables: [...document.querySelectorAll('figure.table')].map(f => ({
    name: f.dataset.table,
    title: (f.querySelector('h3') || {}).innerText || '',
    cells: [...f.querySelectorAll('td')].map(td => td.innerText),
    footnotes: [...f.querySelectorAll('ol.footnotes li')].map(li => li.innerText),
    caption: (f.querySelector('figcaption') || {}).innerText || '',
    visible: f.getBoundingClientRect().height > 0,
  })),
  images: [...document.images].map(i => ({
    alt: i.alt, complete: i.complete, naturalWidth: i.naturalWidth,
  })),
  sections: [...document.querySelectorAll('section')].map(s => s.id),
  text: document.body.innerText,
}))()"""


@dataclass
class PageView:
    tables: list[dict[str, Any]]
    images: list[dict[str, Any]]
    sections: list[str]
    text: str
    errors: list[str] = field(default_factory=list)
    screenshot: Path | None = None


class _Pipe:
    """One Chromium process and its DevTools pipe."""

    def __init__(self, profile: str) -> None:
        if CHROMIUM is None:
            raise RuntimeError("chromium is not installed (apt: chromium)")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the browser reads fd 3 and writes fd 4: a small launcher puts the ends there
        r, w = to_browser_r, from_browser_w
        args = [
            "--headless",
            "--remote-debugging-pipe",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCH, str(r), str(w), CHROMIUM, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(r, w),
        )
        os.close(r)
        os.close(w)
        self._buf = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def send(
        self, method: str, params: dict | None = None, session: str | None = None
    ) -> dict:
        self._next += 1
        msg: dict[str, Any] = {
            "id": self._next,
            "method": method,
            "params": params or {},
        }
        if session:
            msg["sessionId"] = session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        reply = self._wait(lambda m: m.get("id") == self._next)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method: str) -> dict:
        return self._wait(lambda m: m.get("method") == method)

    def _wait(self, match: Any) -> dict:
        for i, m in enumerate(self.events):
            if match(m):
                return self.events.pop(i)
        deadline = time.monotonic() + DEADLINE_S
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                m = json.loads(raw)
                if match(m):
                    return m
                self.events.append(m)
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError(f"chromium did not answer within {DEADLINE_S:.0f} s")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


def _errors(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Runtime.exceptionThrown":
            out.append(str(p.get("exceptionDetails", {}).get("text")))
        elif m.get("method") == "Runtime.consoleAPICalled" and p.get("type") == "error":
            out.append(" ".join(str(a.get("value")) for a in p.get("args", [])))
        elif (
            m.get("method") == "Log.entryAdded"
            and p.get("entry", {}).get("level") == "error"
        ):
            out.append(str(p["entry"].get("text")))
    return out


def view(page: str | Path, screenshot: str | Path | None = None) -> PageView:
    """Load ``page`` (a local HTML file) and return what a reader sees."""
    url = Path(page).resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="cs-chromium-") as profile:
        pipe = _Pipe(profile)
        try:
            target = pipe.send("Target.createTarget", {"url": "about:blank"})[
                "targetId"
            ]
            session = pipe.send(
                "Target.attachToTarget", {"targetId": target, "flatten": True}
            )["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                pipe.send(f"{domain}.enable", session=session)
            pipe.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                session=session,
            )
            pipe.send("Page.navigate", {"url": url}, session=session)
            pipe.wait_event("Page.loadEventFired")
            res = pipe.send(
                "Runtime.evaluate",
                {"expression": READ_PAGE, "returnByValue": True},
                session=session,
            )
            seen = json.loads(res["result"]["value"])
            shot = None
            if screenshot is not None:
                data = pipe.send(
                    "Page.captureScreenshot",
                    {"format": "png", "captureBeyondViewport": True},
                    session=session,
                )["data"]
                shot = Path(screenshot)
                shot.write_bytes(base64.b64decode(data))
            errors = _errors(pipe.events)
        finally:
            pipe.close()
    return PageView(
        seen["tables"], seen["images"], seen["sections"], seen["text"], errors, shot
    )


if __name__ == "__main__":
    report = Path(sys.argv[1])
    v = view(report, report.with_suffix(".png"))
    print(
        f"{report}: {len(v.tables)} tables, {len(v.images)} images "
        f"({sum(i['naturalWidth'] > 0 for i in v.images)} loaded), "
        f"{len(v.errors)} console errors; screenshot {v.screenshot}"
    )
    sys.exit(1 if v.errors or any(i["naturalWidth"] == 0 for i in v.images) else 0)
