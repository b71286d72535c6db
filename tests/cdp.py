"""A small Chrome DevTools Protocol client for the browser test: stdlib only.

Chromium started with --remote-debugging-pipe reads commands on fd 3 and writes answers and
events on fd 4, as JSON messages each ended by a NUL byte: no websocket is needed.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--disable-gpu",
    "--no-sandbox",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--no-proxy-server",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
ERROR_LEVELS = {"error", "assert"}


class Browser:
    def __init__(self, executable: str, profile: Path, timeout: float = 30.0) -> None:
        self.timeout = timeout
        to_child, self._out = os.pipe()
        self._in, from_child = os.pipe()

        def child_fds() -> None:  # fds 3 and 4 in the child, whatever numbers the pipes got here
            r, w = (
                fcntl.fcntl(to_child, fcntl.F_DUPFD, 100),
                fcntl.fcntl(from_child, fcntl.F_DUPFD, 100),
            )
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=child_fds,
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def close(self) -> None:
        with contextlib.suppress(OSError, TimeoutError, RuntimeError):
            self.send("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._out)
        os.close(self._in)

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(
        self, method: str, params: dict | None = None, session: str | None = None
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method: str, session: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            event = self._receive(deadline)
            self.events.append(event)
            if event.get("method") == method and event.get("sessionId") == session:
                return event


class Page:
    """One tab: load a URL, evaluate expressions, take screenshots, list console errors."""

    def __init__(self, browser: Browser, width: int, height: int) -> None:
        self.browser = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.send(method)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def send(self, method: str, params: dict | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, self.session)

    def load(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.browser.wait_for("Page.loadEventFired", self.session)

    def evaluate(self, expression: str) -> Any:
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        result = self.send("Runtime.evaluate", params)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        size = self.send("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        data = self.send(
            "Page.captureScreenshot", {"format": "png", "clip": clip, "captureBeyondViewport": True}
        )
        path.write_bytes(base64.b64decode(data["data"]))
        return path

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and failed loads logged in this tab."""
        found = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            params = event.get("params", {})
            if event.get("method") == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append(
                    f"{details.get('text')} "
                    f"{details.get('exception', {}).get('description', '')}".strip()
                )
            elif (
                event.get("method") == "Runtime.consoleAPICalled"
                and params.get("type") in ERROR_LEVELS
            ):
                found.append(
                    " ".join(
                        str(a.get("value", a.get("description"))) for a in params.get("args", [])
                    )
                )
            elif (
                event.get("method") == "Log.entryAdded"
                and params.get("entry", {}).get("level") == "error"
            ):
                entry = params["entry"]
                found.append(f"{entry.get('text')} {entry.get('url', '')}".strip())
        return found
