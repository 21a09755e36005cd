#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A hostile HTTP client, run as a process of its own by exporter-hostile:

    hostile_client.py PORT IDLE SLOW SECONDS REPORT

for SECONDS, keeps IDLE connections to 127.0.0.1:PORT open that never send
a byte, and SLOW slowloris connections that send a request line and then
one header line a second, never ending the headers. A connection the
server closes is opened again (an idle one a second later, a slow one at
once), so the pressure lasts. At the end, REPORT (JSON) says how many of
each were open, how many the server closed, and how long each slow one
lived."""
import json
import resource
import selectors
import socket
import sys
import time

port, nr_idle, nr_slow, seconds, report = (int(sys.argv[1]), int(sys.argv[2]),
                                           int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
# a descriptor per connection, and some to spare
need = nr_idle + nr_slow + 64
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft < need:
    resource.setrlimit(resource.RLIMIT_NOFILE, (need, max(hard, need)))

selector = selectors.DefaultSelector()
stats = {"idle_opened": 0, "idle_closed": 0, "slow_opened": 0, "slow_closed": 0,
         "slow_lifetimes": [], "connect_errors": 0}


class Conn:
    def __init__(self, slow):
        self.slow = slow
        self.sock = None
        self.opened = 0.0
        self.next_line = 0.0
        self.reopen_at = 0.0


def open_conn(conn, now):
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=2)
    except OSError:
        stats["connect_errors"] += 1
        conn.reopen_at = now + 1
        return
    sock.setblocking(False)
    conn.sock, conn.opened = sock, now
    if conn.slow:
        sock.send(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        conn.next_line = now + 1
        stats["slow_opened"] += 1
    else:
        stats["idle_opened"] += 1
    selector.register(sock, selectors.EVENT_READ, conn)


def closed_by_server(conn, now):
    selector.unregister(conn.sock)
    conn.sock.close()
    conn.sock = None
    if conn.slow:
        stats["slow_closed"] += 1
        stats["slow_lifetimes"].append(round(now - conn.opened, 3))
        conn.reopen_at = now
    else:
        stats["idle_closed"] += 1
        conn.reopen_at = now + 1


conns = [Conn(False) for _ in range(nr_idle)] + [Conn(True) for _ in range(nr_slow)]
began = time.monotonic()
for conn in conns:
    open_conn(conn, began)
while time.monotonic() - began < seconds:
    for key, _ in selector.select(timeout=0.1):
        conn = key.data
        try:
            data = conn.sock.recv(65536)
        except (ConnectionResetError, BlockingIOError):
            data = b"" if not isinstance(sys.exc_info()[1], BlockingIOError) else None
        if data == b"":
            closed_by_server(conn, time.monotonic())
    now = time.monotonic()
    for conn in conns:
        if conn.sock is None and now >= conn.reopen_at:
            open_conn(conn, now)
        elif conn.sock is not None and conn.slow and now >= conn.next_line:
            try:
                conn.sock.send(b"X-Slow: %d\r\n" % int(now))
            except OSError:
                closed_by_server(conn, now)
                continue
            conn.next_line = now + 1

stats["idle_open"] = sum(1 for c in conns if not c.slow and c.sock is not None)
stats["slow_open"] = sum(1 for c in conns if c.slow and c.sock is not None)
with open(report, "w") as f:
    json.dump(stats, f)
