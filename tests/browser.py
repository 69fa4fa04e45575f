"""Open a page in headless Chromium and report what a reader would meet: the console's errors and
warnings, uncaught exceptions, and the values of JavaScript expressions evaluated in the page.

Chromium is driven over ``--remote-debugging-pipe`` (the DevTools protocol as NUL-terminated JSON
messages on file descriptors 3 and 4), so no network port and no extra package is needed.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)


def chromium() -> str | None:
    """The Chromium executable, or None when it is not installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class PageVisit:
    """What happened while a page was open."""

    console: list[tuple[str, str]] = field(default_factory=list)  # (level, text)
    exceptions: list[str] = field(default_factory=list)
    values: dict[str, object] = field(default_factory=dict)

    def problems(self, ignore: tuple[str, ...] = ()) -> list[str]:
        """Console errors and warnings (those containing a string of ``ignore`` aside) and
        uncaught exceptions."""
        found = [f"{level}: {text}" for level, text in self.console if level in ("error", "warning", "assert")]
        found = [text for text in found if not any(part in text for part in ignore)]
        return found + [f"exception: {text}" for text in self.exceptions]


def _above(fd: int, lowest: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, lowest)
    os.close(fd)
    return moved


class _Pipe:
    def __init__(self, proc, write_fd: int, read_fd: int):
        self.proc, self.write_fd, self.read_fd = proc, write_fd, read_fd
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        return self.next_id

    def _read(self, deadline: float) -> dict | None:
        while b"\0" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self.read_fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30) -> dict:
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self._read(deadline)
            if message is None:
                raise TimeoutError(f"no answer from Chromium to {method}")
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (message := self._read(deadline)) is not None:
            if "method" in message:
                self.events.append(message)


def visit(
    path: str | os.PathLike,
    expressions: dict[str, str] | None = None,
    *,
    width: int = 1280,
    height: int = 900,
    settle: float = 3.0,
    screenshot: str | os.PathLike | None = None,
) -> PageVisit:
    """Open the file at ``path``, wait ``settle`` seconds after it loaded, evaluate each of
    ``expressions`` (name -> JavaScript expression with a JSON-able value) and return what was seen.
    With ``screenshot``, the window (``width`` x ``height``) is saved there as PNG."""
    executable = chromium()
    if executable is None:
        raise RuntimeError("Chromium is not installed (Debian package chromium)")
    to_browser_read, to_browser_write = os.pipe()
    from_browser_read, from_browser_write = os.pipe()
    # The child's ends well above 4, so that moving them to 3 and 4 overwrites neither.
    to_browser_read, from_browser_write = (_above(fd, 10) for fd in (to_browser_read, from_browser_write))
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    # Chromium reads commands from its descriptor 3 and writes to its descriptor 4: a shell
    # (bash: it takes descriptors above 9) moves the pipes' ends there before it starts Chromium.
    arrange = f'exec "$0" "$@" 3<&{to_browser_read} 4>&{from_browser_write}'
    proc = subprocess.Popen(
        ["bash", "-c", arrange, executable, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"]
        + ["about:blank"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        pass_fds=(to_browser_read, from_browser_write),
    )
    os.close(to_browser_read)
    os.close(from_browser_write)
    pipe = _Pipe(proc, to_browser_write, from_browser_read)
    seen = PageVisit()
    try:
        target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime.enable", "Log.enable", "Page.enable"):
            pipe.call(domain, session=session)
        pipe.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        pipe.call("Page.navigate", {"url": Path(path).resolve().as_uri()}, session=session)
        deadline = time.monotonic() + 60
        while not any(event["method"] == "Page.loadEventFired" for event in pipe.events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{path} did not finish loading within 60 s")
            pipe.drain(0.2)
        pipe.drain(settle)
        for name, expression in (expressions or {}).items():
            result = pipe.call(
                "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session
            )
            if "exceptionDetails" in result:
                seen.values[name] = RuntimeError(result["exceptionDetails"].get("text", "exception"))
            else:
                seen.values[name] = result["result"].get("value")
        if screenshot is not None:
            import base64

            shot = pipe.call("Page.captureScreenshot", {"format": "png"}, session)
            Path(screenshot).write_bytes(base64.b64decode(shot["data"]))
        pipe.drain(0.2)
    finally:
        for event in pipe.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.consoleAPICalled":
                text = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
                seen.console.append((params.get("type", "log"), text))
            elif event["method"] == "Log.entryAdded":
                entry = params.get("entry", {})
                seen.console.append((entry.get("level", "info"), entry.get("text", "")))
            elif event["method"] == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                seen.exceptions.append(
                    details.get("exception", {}).get("description") or details.get("text", "exception")
                )
        proc.kill()
        proc.wait()
        os.close(to_browser_write)
        os.close(from_browser_read)
        shutil.rmtree(profile, ignore_errors=True)
    return seen
