"""A loopback HTTP server that speaks the embedding wire formats Kindred calls (OpenAI-compatible
`/embeddings`, Ollama `/api/embed`, Gemini `:batchEmbedContents`) and the chat completions of
OpenAI-compatible servers, with failures scripted per request: 429 with Retry-After, 500, a slow
answer, a malformed body, vectors of the wrong dimension, the wrong count.

Vectors are bags of hashed words (so texts that share words are near), L2-normalisation left to Kindred.
"""

import hashlib
import http.server
import json
import re
import threading
import time

WORD = re.compile(r"[a-z]+")


def bag_vector(text, dim):
    v = [0.0] * dim
    for w in WORD.findall(text.lower()):
        if len(w) < 3:
            continue
        h = int.from_bytes(hashlib.sha256(w.encode()).digest()[:4], "little")
        v[h % dim] += 1.0
    if not any(v):
        v[0] = 1.0
    return v


class Provider:
    """Runs the server on 127.0.0.1 at a free port; `script` holds failures for the next requests."""

    def __init__(self, dim=16):
        self.dim = dim
        self.script = []  # per-request actions, consumed in order; empty → answer normally
        self.requests = []  # (path, headers dict, parsed body)
        self.lock = threading.Lock()
        self.down = False  # every request answers 503 while set
        self.delay = 0.0  # seconds every embedding answer takes
        self.chat_answer = None  # question -> answer, for /chat/completions (see `chat`)
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(n)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                with outer.lock:
                    outer.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    action = outer.script.pop(0) if outer.script else ("down" if outer.down else None)
                outer.answer(self, action, body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def embedding_requests(self):
        with self.lock:
            return [r for r in self.requests if "chat" not in r[0]]

    # -- answers ------------------------------------------------------------------------------

    @staticmethod
    def send(h, status, payload, headers=()):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def answer(self, h, action, body):
        kind = action[0] if isinstance(action, tuple) else action
        if kind == "429":
            return self.send(h, 429, {"error": {"message": "rate limited"}}, [("Retry-After", str(action[1]))])
        if kind in ("500", "down"):
            return self.send(h, 500 if kind == "500" else 503, {"error": {"message": "provider trouble"}})
        if kind == "401":
            return self.send(h, 401, {"error": {"message": "invalid key " + h.headers.get("Authorization", "")}})
        if kind == "slow":
            time.sleep(action[1])
        if self.delay:
            time.sleep(self.delay)
        if kind == "malformed":
            return self.send(h, 200, b'{"data": [{"embedding": [0.1, ')
        texts = self.texts(h.path, body)
        if h.path.endswith("/chat/completions"):
            return self.chat(h, body)
        dim = self.dim + 3 if kind == "wrongdim" else self.dim
        vectors = [bag_vector(t, dim) for t in texts]
        if kind == "wrongcount":
            vectors = vectors[:-1] if len(vectors) > 1 else vectors + vectors
        if h.path.endswith("/embeddings"):
            data = [{"object": "embedding", "index": i, "embedding": v} for i, v in reversed(list(enumerate(vectors)))]
            chars = sum(len(t) for t in texts)
            return self.send(h, 200, {"object": "list", "data": data, "model": body.get("model"),
                                      "usage": {"prompt_tokens": chars // 4 + 1, "total_tokens": chars // 4 + 1}})
        if h.path.endswith("/api/embed"):
            return self.send(h, 200, {"model": body.get("model"), "embeddings": vectors, "prompt_eval_count": len(texts)})
        if h.path.endswith(":batchEmbedContents"):
            return self.send(h, 200, {"embeddings": [{"values": v} for v in vectors]})
        return self.send(h, 404, {"error": {"message": "no route " + h.path}})

    @staticmethod
    def texts(path, body):
        if not isinstance(body, dict):
            return []
        if path.endswith(":batchEmbedContents"):
            return [r["content"]["parts"][0]["text"] for r in body.get("requests", [])]
        inp = body.get("input", [])
        return [inp] if isinstance(inp, str) else list(inp)

    def chat(self, h, body):
        """An OpenAI-compatible chat completion: the user message is a judge question as JSON;
        `self.chat_answer(question)` gives the answer (a dict, or a str sent as the content as it is)."""
        try:
            question = json.loads(body["messages"][-1]["content"])
        except (KeyError, IndexError, TypeError, ValueError):
            return self.send(h, 400, {"error": {"message": "the user message is not a JSON question"}})
        if self.chat_answer is None:
            return self.send(h, 404, {"error": {"message": "chat is not scripted"}})
        answer = self.chat_answer(question)
        content = answer if isinstance(answer, str) else json.dumps(answer)
        chars = sum(len(m.get("content", "")) for m in body.get("messages", []))
        return self.send(h, 200, {"id": "chatcmpl-1", "object": "chat.completion", "model": body.get("model"),
                                  "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                               "finish_reason": "stop"}],
                                  "usage": {"prompt_tokens": chars // 4 + 1, "completion_tokens": 12,
                                            "total_tokens": chars // 4 + 13}})
