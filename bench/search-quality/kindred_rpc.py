"""A `kindred serve` process over pipes (newline-delimited JSON-RPC 2.0), used the way an application would."""
import json
import subprocess
import time


class RpcError(Exception):
    def __init__(self, method, error):
        super().__init__(f"{method}: {error.get('code')} {error.get('message')}")
        self.code = error.get("code")
        self.error = error


class Server:
    def __init__(self, kindred, db, log_path, extra_args=(), env=None):
        self.log = open(log_path, "ab")
        self.p = subprocess.Popen([kindred, "serve", "--db", db, "--framing", "ndjson", *extra_args],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env)
        self.n = 0
        self.info = self.call("initialize", {"clientInfo": {"name": "bench-search-quality"}})

    def send(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params},
                                      separators=(",", ":")).encode() + b"\n")
        self.p.stdin.flush()
        return self.n

    def receive(self, want, method="?"):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"kindred serve closed its output (exit {self.p.poll()}); see {self.log.name}")
            m = json.loads(line)
            if m.get("id") == want and "method" not in m:
                if "error" in m:
                    raise RpcError(method, m["error"])
                return m["result"]

    def call(self, method, params):
        return self.receive(self.send(method, params), method)

    def timed_call(self, method, params):
        t0 = time.perf_counter()
        r = self.call(method, params)
        return r, time.perf_counter() - t0

    def upsert(self, owner, records, batch=500):
        for i in range(0, len(records), batch):
            res = self.call("records/upsert", {"owner": owner, "records": records[i:i + batch]})
            bad = [r for r in res["results"] if r["status"] not in ("created", "updated", "unchanged")]
            if bad:
                raise RuntimeError(f"records/upsert: {len(bad)} records not written, first {bad[0]}")

    def wait_indexed(self, owner, expected, timeout=3600, say=print):
        """Poll index/status until every searchable record has a vector in the index."""
        t0, last = time.time(), 0.0
        while True:
            st = self.call("index/status", {"owner": owner})
            pending = st.get("pendingEmbeddings", st.get("pending", 0)) or 0
            if pending == 0 and st.get("indexed", 0) >= min(expected, st.get("searchable", expected)):
                return st, time.time() - t0
            if time.time() - t0 > timeout:
                raise RuntimeError(f"index not ready after {timeout} s: {st}")
            if time.time() - last > 15:
                say(f"    waiting for embeddings: {st.get('indexed')} indexed, {pending} pending")
                last = time.time()
            time.sleep(0.5)

    def search(self, owner, text, mode, limit=10):
        return self.call("search/query", {"owner": owner, "text": text, "mode": mode, "limit": limit})

    def close(self):
        try:
            self.call("shutdown", {})
            self.p.stdin.write(b'{"jsonrpc":"2.0","method":"exit"}\n')
            self.p.stdin.flush()
            self.p.stdin.close()
            self.p.wait(timeout=120)
        except Exception:
            self.p.kill()
            self.p.wait()
        self.log.close()
