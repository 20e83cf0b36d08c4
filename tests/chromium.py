"""Headless Chromium (Debian's `chromium`), driven over the DevTools protocol on a pipe.

`--remote-debugging-pipe` makes Chromium read protocol commands from its file descriptor 3
and write answers and events to 4, as JSON messages ended by a NUL byte: the standard
library is all it takes (no websocket client, no driver). One browser serves a whole test
session; each page opens in a tab of its own and is measured there.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import time
from pathlib import Path
from typing import Any

BINARY = shutil.which("chromium") or "/usr/bin/chromium"
# The machine's network is closed: everything that would call out is switched off, and a
# fresh profile keeps one run from another.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
WIDTH, HEIGHT = 1280, 900  # the window a reader's laptop shows
TIMEOUT = 60.0  # seconds for one answer (a large page's screenshot included)
LAYOUT = Path(__file__).with_name("page_layout.js")


def available() -> bool:
    return Path(BINARY).is_file() and os.access(BINARY, os.X_OK)


class ChromiumError(RuntimeError):
    """The browser ended, or did not answer in time."""


class Chromium:
    """A running headless Chromium; `close()` ends it (its whole process group)."""

    def __init__(self, profile: Path, log: Path):
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()
        # Above 4, so that moving them to 3 and 4 in the child overwrites neither.
        ends = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (commands_read, answers_write)]
        output = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        argv = [BINARY, *FLAGS, f"--user-data-dir={profile}", "about:blank"]
        try:
            self.pid = os.posix_spawn(
                BINARY,
                argv,
                os.environ,
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_DUP2, output, 1),
                    (os.POSIX_SPAWN_DUP2, output, 2),
                    (os.POSIX_SPAWN_DUP2, ends[0], 3),
                    (os.POSIX_SPAWN_DUP2, ends[1], 4),
                ],
                setsid=True,  # its own group: closing it ends its helpers too
            )
        finally:
            for fd in (commands_read, answers_write, *ends, output):
                os.close(fd)
        self._buffer = b""
        self._events: list[dict[str, Any]] = []
        self._next = 0

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if os.waitpid(self.pid, os.WNOHANG)[0]:
                break
            time.sleep(0.05)
        else:
            os.killpg(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self._commands)
        os.close(self._answers)

    # --- the protocol -----------------------------------------------------------------

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command; its result (ChromiumError for a protocol error)."""
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise ChromiumError(f"{method}: {answer['error']}")
                return answer["result"]
            self._events.append(answer)

    def wait_for(self, event: str, session: str) -> dict[str, Any]:
        """The next `event` of `session` (events that came before it are dropped)."""
        while True:
            while self._events:
                message = self._events.pop(0)
                if message.get("method") == event and message.get("sessionId") == session:
                    return message["params"]
            self._events.append(self._read())

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._answers], [], [], TIMEOUT)
            if not ready:
                raise ChromiumError(f"no answer in {TIMEOUT:.0f} s")
            chunk = os.read(self._answers, 1 << 20)
            if not chunk:
                raise ChromiumError("the browser ended")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    # --- a page ------------------------------------------------------------------------

    def measure(self, page: Path, screenshot: Path) -> dict[str, Any]:
        """Open `page` at the reader's window width, run the layout check on it
        (`page_layout.js`: its findings) and keep a full-page screenshot."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        try:
            self.call("Emulation.setDeviceMetricsOverride", session, width=WIDTH, height=HEIGHT,
                      deviceScaleFactor=1, mobile=False)  # fmt: skip
            self.call("Page.enable", session)
            self.call("Page.navigate", session, url=page.resolve().as_uri())
            self.wait_for("Page.loadEventFired", session)
            found = self.call("Runtime.evaluate", session, expression=LAYOUT.read_text(),
                              returnByValue=True)  # fmt: skip
            if "exceptionDetails" in found:
                raise ChromiumError(f"the layout check failed: {found['exceptionDetails']}")
            report = found["result"]["value"]
            shot = self.call("Page.captureScreenshot", session, format="png",
                             captureBeyondViewport=True,
                             clip={"x": 0, "y": 0, "width": report["width"],
                                   "height": report["height"], "scale": 1})  # fmt: skip
            screenshot.write_bytes(base64.b64decode(shot["data"]))
            return report
        finally:
            self.call("Target.closeTarget", targetId=target)
