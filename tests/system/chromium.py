# SPDX-License-Identifier: GPL-2.0-or-later
"""Headless Chromium driven through the DevTools protocol over a pipe
(--remote-debugging-pipe: commands on fd 3, replies on fd 4, each message
ended by a NUL byte), with nothing but Python's standard library: load a
page, collect console errors, exceptions and every network request, run a
script in it, take screenshots and print it to PDF."""
import base64
import fcntl
import json
import os
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import zlib

from harness import stop_at_exit

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio",
    "--remote-debugging-pipe",
]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, binary, timeout=60):
        self.profile = tempfile.mkdtemp(prefix="latscope-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        # the child's ends go to fds 3 and 4: move them clear of those first
        high_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
        high_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
        os.close(to_chrome_r)
        os.close(from_chrome_w)

        def child_fds():
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        # a session of its own: ended with its group at the test's exit if
        # close() is never reached
        self.proc = stop_at_exit(subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            pass_fds=(3, 4), preexec_fn=child_fds, start_new_session=True))
        os.close(high_r)
        os.close(high_w)
        self.timeout = timeout
        self.next_id = 0
        self.buffer = b""
        self.events = []
        self.session = None

    def _ours(self):
        """Pids of the processes running with this browser's own profile."""
        pids = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if f"--user-data-dir={self.profile}".encode() in f.read():
                        pids.append(int(entry))
            except OSError:
                pass
        return pids

    def close(self):
        try:
            self.send("Browser.close", session=False, wait=False)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        # /usr/bin/chromium is a script: the browser and its helpers are its
        # children, in the session started for them; end them by their pids
        deadline = time.monotonic() + 10
        while True:
            left = self._ours()
            if not left or time.monotonic() > deadline:
                break
            for pid in left:
                try:
                    os.kill(pid, signal.SIGTERM if time.monotonic() < deadline - 5 else signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.2)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        self.proc.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no reply from chromium")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=True, wait=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        if not wait:
            return None
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def open(self, url, width=1280, height=900, scale=1, mobile=False):
        """A new tab showing url, with console, log and network watched."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.send("Target.attachToTarget",
                             {"targetId": target["targetId"], "flatten": True}, session=False)
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": scale,
                   "mobile": mobile})
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        # let late console messages and requests arrive
        time.sleep(0.3)
        self.evaluate("1")

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def problems(self, page_url):
        """Console errors and warnings, exceptions, and requests other than the page."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                found.append(f"console {params['type']}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                found.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Log.entryAdded" and params["entry"].get("level") in ("error", "warning"):
                found.append(f"log {params['entry']['level']}: {params['entry'].get('text')} "
                             f"{params['entry'].get('url', '')}")
            elif method == "Network.requestWillBeSent":
                url = params["request"]["url"]
                if url != page_url:
                    found.append(f"request: {url}")
        return found

    def screenshot(self, clip=None):
        params = {"format": "png", "captureBeyondViewport": True}
        if clip:
            params["clip"] = {**clip, "scale": 1}
        return base64.b64decode(self.send("Page.captureScreenshot", params)["data"])

    def pdf(self):
        return base64.b64decode(self.send("Page.printToPDF", {"printBackground": True})["data"])


def png_pixels(data):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise ValueError("only 8-bit RGB and RGBA PNGs")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[x] = (line[x] + pred) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def ink(data, step=4):
    """Share of sampled pixels that are not white, and distinct colours seen."""
    width, height, channels, rows = png_pixels(data)
    inked = total = 0
    colours = set()
    for y in range(0, height, step):
        row = rows[y]
        for x in range(0, width, step):
            pixel = row[x * channels:x * channels + 3]
            total += 1
            if pixel != b"\xff\xff\xff":
                inked += 1
                colours.add(bytes(pixel))
    return inked / max(total, 1), len(colours)
