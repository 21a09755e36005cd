# SPDX-License-Identifier: GPL-2.0-or-later
"""A real Prometheus server for the tests: Debian's prometheus started on a
loopback port in 19000-19999 with its own storage in a temporary directory,
queried over its HTTP API and stopped by its pid. The monitor's end-to-end
test uses it as the exporter's tests do: start(targets) then query()."""
import json
import os
import random
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request

from harness import end_process, stop_at_exit

PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")


_handed_out = set()


def free_port():
    """A loopback port in 19000-19999 that nothing listens on now and that no
    earlier call handed out: a test takes several before it starts anything
    on them (a monitor's and two Prometheus servers' ports), and two alike
    would have one answer for the other."""
    for _ in range(200):
        port = random.randint(19000, 19999)
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port
    raise RuntimeError("no free port in 19000-19999")


class Server:
    """One Prometheus scraping `jobs` every second.

    jobs: a list of dicts {name, target, scheme?, ca_file?, server_name?,
    username?, password?}. native: start with --enable-feature=native-histograms.
    """

    def __init__(self, workdir, jobs, native):
        self.dir = os.path.join(workdir, "prometheus-native" if native else "prometheus")
        os.makedirs(self.dir)
        self.port = free_port()
        config = ["global:", "  scrape_interval: 1s", "  scrape_timeout: 1s",
                  "scrape_configs:"]
        for job in jobs:
            config += ["  - job_name: %s" % job["name"],
                       "    scheme: %s" % job.get("scheme", "http"),
                       "    static_configs:",
                       "      - targets: ['%s']" % job["target"]]
            if job.get("ca_file"):
                config += ["    tls_config:", "      ca_file: %s" % job["ca_file"],
                           "      server_name: %s" % job.get("server_name", "localhost")]
            if job.get("username"):
                config += ["    basic_auth:", "      username: %s" % job["username"],
                           "      password: %s" % job["password"]]
        self.config = os.path.join(self.dir, "prometheus.yml")
        with open(self.config, "w") as f:
            f.write("\n".join(config) + "\n")
        args = [PROMETHEUS, "--config.file=" + self.config,
                "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
                "--web.listen-address=127.0.0.1:%d" % self.port]
        if native:
            args.append("--enable-feature=native-histograms")
        self.log = open(os.path.join(self.dir, "prometheus.log"), "w")
        # ended at the test's exit if a check fails before stop()
        self.proc = stop_at_exit(subprocess.Popen(args, stdout=self.log,
                                                  stderr=subprocess.STDOUT))

    def query(self, expr, at=None):
        """The result of an instant query, now or at Unix time `at`."""
        args = {"query": expr}
        if at is not None:
            args["time"] = "%.3f" % at
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (self.port, urllib.parse.urlencode(args))
        with urllib.request.urlopen(url, timeout=5) as reply:
            doc = json.load(reply)
        if doc.get("status") != "success":
            raise RuntimeError("query %s: %s" % (expr, doc))
        return doc["data"]["result"]

    def targets(self):
        url = "http://127.0.0.1:%d/api/v1/targets" % self.port
        with urllib.request.urlopen(url, timeout=5) as reply:
            return json.load(reply)["data"]["activeTargets"]

    def wait_for(self, expr, predicate, timeout=30):
        """Poll a query until predicate(result) holds; returns the last result."""
        deadline = time.monotonic() + timeout
        result = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("prometheus exited %d: see %s" % (
                    self.proc.returncode, self.log.name))
            try:
                result = self.query(expr)
                if predicate(result):
                    return result
            except OSError:
                pass
            time.sleep(0.5)
        return result

    def stop(self):
        end_process(self.proc, timeout=20)
        self.log.close()
