"""The wire contract (docs/methods.md, "Wire"): framing detection and override, JSON-RPC 2.0 errors,
lifecycle, batches, id types, escaped method names and the message size limit. Raw pipes, no client library."""

import json
import time
import uuid

import pytest

from conftest import (
    INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, NOT_FOUND, NOT_INITIALIZED, PARSE_ERROR,
    encode, record, run_cli, same_id, vec,
)

CT = "application/vscode-jsonrpc; charset=utf8"


def init_msg(id=1):
    return {"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {"capabilities": {}}}


def assert_quiet(srv):
    """Nothing else arrives: a fresh request's answer is the very next message."""
    rid = f"quiet-{uuid.uuid4()}"
    srv.send({"jsonrpc": "2.0", "id": rid, "method": "index/status", "params": {}})
    m = srv.next_message()
    assert m.get("id") == rid, f"unexpected message before the answer to {rid}: {m}"


# -- framing ---------------------------------------------------------------------------------

@pytest.mark.parametrize("prefix", [b"", b"\n", b"  \r\n\t"])
def test_ndjson_detected_from_first_brace(spawn, prefix):
    srv = spawn("ndjson")
    srv.send_raw(prefix + encode(init_msg(), "ndjson"))
    r = srv.response(1)
    assert r["result"]["serverInfo"]["name"] == "kindred"
    r = srv.call("index/status", {})
    assert "result" in r
    for headers, line in srv.raw_frames:
        assert headers is None and line.endswith(b"\n") and line.count(b"\n") == 1
        assert line.startswith(b"{") or line.startswith(b"[")


def test_ndjson_detected_from_first_bracket(spawn):
    srv = spawn("ndjson")
    srv.send_raw(b"[" + json.dumps(init_msg(7)).encode() + b"]\n")
    m = srv.next_message()
    assert isinstance(m, list) and len(m) == 1 and m[0]["id"] == 7 and "result" in m[0]
    assert srv.raw_frames[0][0] is None


@pytest.mark.parametrize("content_type", [None, CT, "application/vscode-jsonrpc; charset=utf-8"])
def test_lsp_headers_detected(spawn, content_type):
    srv = spawn("lsp")
    srv.send(init_msg(), content_type=content_type)
    r = srv.response(1)
    assert r["result"]["serverInfo"]["name"] == "kindred"
    srv.send({"jsonrpc": "2.0", "id": 2, "method": "index/status", "params": {}}, content_type=content_type)
    assert "result" in srv.response(2)
    for headers, body in srv.raw_frames:
        assert headers is not None
        lengths = [h for h in headers if h.lower().startswith(b"content-length:")]
        assert lengths == [b"Content-Length: %d\r\n" % len(body)]
    assert srv.shutdown_and_exit() == 0


def test_lsp_header_order_and_case_and_split_writes(spawn):
    """Content-Type before Content-Length, lower-case names, and a message dribbled in byte by byte."""
    srv = spawn("lsp")
    body = json.dumps(init_msg()).encode()
    srv.send_raw(b"content-type: " + CT.encode() + b"\r\ncontent-length: %d\r\n\r\n" % len(body) + body)
    assert "result" in srv.response(1)
    body = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "index/status", "params": {}}).encode()
    data = b"Content-Length: %d\r\n\r\n" % len(body) + body
    for i in range(0, len(data), 7):
        srv.send_raw(data[i:i + 7])
        time.sleep(0.002)
    assert "result" in srv.response(2)


def test_lsp_utf8_length_counts_bytes(spawn):
    srv = spawn("lsp")
    srv.send(init_msg())
    srv.response(1)
    text = "café — naïve 東京 🐈"
    srv.send({"jsonrpc": "2.0", "id": 2, "method": "records/upsert",
              "params": {"owner": "ü", "records": [record("r", text=text, vector=vec(1))]}})
    assert srv.response(2)["result"]["results"][0]["status"] == "created"
    got = srv.result("records/get", {"owner": "ü", "id": "r"})
    assert got["record"]["text"] == text


def test_framing_flag_lsp_overrides_sniffing(spawn):
    srv = spawn("lsp", args=["--framing", "lsp"])
    # A line that sniffing would take as ndjson is, under --framing lsp, a header block without Content-Length.
    srv.send_raw(json.dumps(init_msg(5)).encode() + b"\r\n\r\n")
    err = srv.next_message()
    assert err["id"] is None and err["error"]["code"] == PARSE_ERROR
    srv.send(init_msg(6))
    assert "result" in srv.response(6)
    assert all(h is not None for h, _ in srv.raw_frames)


def test_framing_flag_ndjson_overrides_sniffing(spawn):
    srv = spawn("ndjson", args=["--framing=ndjson"])
    body = json.dumps(init_msg(5)).encode()
    # Under --framing ndjson a header line is just malformed JSON, answered as ndjson.
    srv.send_raw(b"Content-Length: %d\n" % len(body))
    err = srv.next_message()
    assert err["id"] is None and err["error"]["code"] == PARSE_ERROR
    srv.send(init_msg(6))
    assert "result" in srv.response(6)


def test_framing_flag_auto_and_bad_value(spawn, tmp_path):
    srv = spawn("lsp", args=["--framing", "auto"])
    srv.send(init_msg())
    assert "result" in srv.response(1)
    p = run_cli("serve", "--db", tmp_path / "x.sqlite", "--framing", "xml", input="")
    assert p.returncode == 2
    assert "framing" in p.stderr and p.stdout == ""


# -- lifecycle -------------------------------------------------------------------------------

@pytest.mark.parametrize("framing", ["ndjson", "lsp"])
def test_lifecycle(spawn, framing):
    srv = spawn(framing)
    e = srv.error("index/status", {})
    assert e["code"] == NOT_INITIALIZED
    srv.notify("records/upsert", {"owner": "o", "records": [record("early", vector=vec(1))]})  # a notification: ignored
    srv.initialize()
    e = srv.error("initialize", {})
    assert e["code"] == INVALID_REQUEST
    assert srv.error("records/get", {"owner": "o", "id": "early"})["code"] == NOT_FOUND
    assert srv.result("shutdown") is None
    for method in ["index/status", "records/upsert", "shutdown"]:
        e = srv.error(method, {"owner": "o", "records": []})
        assert e["code"] == INVALID_REQUEST, method
    srv.notify("exit")
    assert srv.proc.wait(timeout=30) == 0


@pytest.mark.parametrize("params", ["null", '"x"', "5", "[1]", "[]"])
def test_lifecycle_decides_before_params(spawn, params):
    """Malformed params before initialize are -32002, after shutdown -32600: the state decides first."""
    srv = spawn("ndjson")
    srv.send_raw(b'{"jsonrpc":"2.0","id":"early","method":"index/status","params":%s}\n' % params.encode())
    assert srv.response("early")["error"]["code"] == NOT_INITIALIZED
    srv.initialize()
    srv.send_raw(b'{"jsonrpc":"2.0","id":"bad","method":"index/status","params":%s}\n' % params.encode())
    assert srv.response("bad")["error"]["code"] == INVALID_PARAMS
    assert srv.result("shutdown") is None
    srv.send_raw(b'{"jsonrpc":"2.0","id":"late","method":"records/upsert","params":%s}\n' % params.encode())
    assert srv.response("late")["error"]["code"] == INVALID_REQUEST
    srv.notify("exit")
    assert srv.proc.wait(timeout=30) == 0


def test_exit_without_shutdown_is_code_1(server):
    server.notify("exit")
    assert server.proc.wait(timeout=30) == 1


def test_end_of_input_finishes_acknowledged_work(spawn, db):
    srv = spawn()
    srv.initialize()
    srv.request_async("records/upsert", {"owner": "o", "records": [record(f"r{i}", vector=vec(i)) for i in range(500)]})
    srv.proc.stdin.close()
    assert srv.proc.wait(timeout=30) == 0
    srv2 = spawn(db_path=db)
    srv2.initialize()
    assert srv2.result("index/status", {"owner": "o"})["records"] == 500


# -- JSON-RPC errors -------------------------------------------------------------------------

@pytest.mark.parametrize("framing", ["ndjson", "lsp"])
def test_parse_error_then_keeps_serving(spawn, framing):
    srv = spawn(framing)
    srv.initialize()
    for bad in [b'{"jsonrpc": "2.0", "id": 3, "method": ', b"{not json}", b'{"a":1} trailing', b"\xff\xfe{}"]:
        srv.send_raw(encode(bad, framing))
        m = srv.next_message()
        assert m["jsonrpc"] == "2.0" and m["id"] is None and m["error"]["code"] == PARSE_ERROR, (bad, m)
        assert "result" not in m
        assert "result" in srv.call("index/status", {})


def test_invalid_requests(server):
    cases = [
        ({"jsonrpc": "1.0", "id": 1, "method": "index/status"}, 1),
        ({"id": 2, "method": "index/status"}, 2),
        ({"jsonrpc": "2.0", "id": 3, "method": 42}, 3),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "index/status"}, None),
        ("42", None),
    ]
    for msg, expected_id in cases:
        server.send(msg if isinstance(msg, dict) else msg)
        m = server.next_message()
        assert m["error"]["code"] == INVALID_REQUEST, (msg, m)
        assert same_id(m["id"], expected_id), (msg, m)


def test_unknown_method(server):
    e = server.error("records/frobnicate", {})
    assert e["code"] == METHOD_NOT_FOUND
    assert "records/frobnicate" in e["message"]
    server.notify("some/unknownNotification", {})
    server.notify("$/unknownThing", {})
    assert_quiet(server)


def test_client_responses_are_never_answered(server):
    server.send({"jsonrpc": "2.0", "id": 77, "result": None})
    server.send({"jsonrpc": "2.0", "id": 78})  # a response with no result member: treated as null
    server.send({"jsonrpc": "2.0", "id": 79, "error": {"code": -1, "message": "client side"}})
    assert_quiet(server)


# -- batches ---------------------------------------------------------------------------------

def test_batch_mixed(server):
    server.result("records/upsert", {"owner": "o", "records": [record("a", vector=vec(1))]})
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "records/get", "params": {"owner": "o", "id": "a"}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": "two", "method": "records/get", "params": {"owner": "o", "id": "missing"}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 12345}},
        {"jsonrpc": "2.0", "id": 3, "method": "nope/nope"},
        5,
        {"jsonrpc": "2.0", "id": 0, "method": "search/query", "params": {"owner": "o", "vector": vec(1)}},
        {"jsonrpc": "2.0", "id": 4, "method": "records/upsert",
         "params": {"owner": "o", "records": [record("b", vector=vec(2))]}},
    ]
    server.send(batch)
    m = server.next_message()
    assert isinstance(m, list), m
    assert [x["id"] for x in m] == [1, "two", 3, None, 0, 4]
    assert isinstance(m[0]["id"], int) and isinstance(m[1]["id"], str)
    assert m[0]["result"]["record"]["id"] == "a"
    assert m[1]["error"]["code"] == NOT_FOUND
    assert m[2]["error"]["code"] == METHOD_NOT_FOUND
    assert m[3]["error"]["code"] == INVALID_REQUEST
    assert m[4]["result"]["results"][0]["id"] == "a"
    assert m[5]["result"]["results"][0]["status"] == "created"
    assert_quiet(server)


def test_batch_of_notifications_gets_no_answer(server):
    server.send([{"jsonrpc": "2.0", "method": "initialized"}, {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}}])
    assert_quiet(server)


def test_empty_batch_is_one_invalid_request(server):
    server.send_raw(b"[]\n")
    m = server.next_message()
    assert isinstance(m, dict), f"an empty batch gets a single error object, not an array: {m}"
    assert m["id"] is None and m["error"]["code"] == INVALID_REQUEST
    assert_quiet(server)


def test_batch_before_initialize(spawn):
    srv = spawn()
    srv.send([init_msg(1), {"jsonrpc": "2.0", "id": 2, "method": "index/status", "params": {}}])
    m = srv.next_message()
    assert [x["id"] for x in m] == [1, 2]
    assert "result" in m[0]


# -- ids -------------------------------------------------------------------------------------

def test_ids_keep_their_json_type(server):
    ids = ["1", 1, 0, "0", str(uuid.uuid4()), -5, 2**53, "", "{\"x\":1}", 1.5]
    for i in ids:
        server.send({"jsonrpc": "2.0", "id": i, "method": "index/status", "params": {"owner": "o"}})
    got = [server.next_message() for _ in ids]
    for m in got:
        assert "result" in m, m
    want = sorted((type(i).__name__, json.dumps(i)) for i in ids)
    assert sorted((type(m["id"]).__name__, json.dumps(m["id"])) for m in got) == want


def test_string_and_number_ids_are_distinct_in_flight(server):
    """Two requests in flight with ids 1 and "1": each answered once, with its own result."""
    server.result("records/upsert", {"owner": "o", "records": [record("x", vector=vec(1)), record("y", vector=vec(2))]})
    server.send({"jsonrpc": "2.0", "id": 1, "method": "records/get", "params": {"owner": "o", "id": "x"}})
    server.send({"jsonrpc": "2.0", "id": "1", "method": "records/get", "params": {"owner": "o", "id": "y"}})
    a = server.response(1)
    b = server.response("1")
    assert a["result"]["record"]["id"] == "x"
    assert b["result"]["record"]["id"] == "y"


def test_escaped_slash_in_method_names(server):
    server.send_raw(b'{"jsonrpc":"2.0","id":"u1","method":"records\\/upsert","params":{"owner":"o","records":'
                    + json.dumps([record("e", vector=vec(3))]).encode() + b"}}\n")
    assert server.response("u1")["result"]["results"][0]["status"] == "created"
    server.send_raw(b'{"jsonrpc":"2.0","id":"g1","method":"records\\u002Fget","params":{"owner":"o","id":"e"}}\n')
    assert server.response("g1")["result"]["record"]["id"] == "e"
    server.send_raw(b'{"jsonrpc":"2.0","method":"$\\/cancelRequest","params":{"id":"nothing"}}\n')
    assert_quiet(server)


# -- limits ----------------------------------------------------------------------------------

@pytest.mark.parametrize("framing", ["ndjson", "lsp"])
def test_message_over_limit_is_refused_and_stream_resyncs(spawn, framing):
    srv = spawn(framing, args=["--set", "rpc.maxMessageBytes=1000"])
    srv.initialize()
    big = {"jsonrpc": "2.0", "id": 50, "method": "records/upsert",
           "params": {"owner": "o", "records": [record("big", text="x" * 5000)]}}
    srv.send(big)
    m = srv.next_message()
    assert "error" in m and m["id"] is None, m
    assert m["error"]["code"] == INVALID_REQUEST
    assert m["error"]["data"]["limit"] == 1000
    assert srv.result("index/status", {"owner": "o"})["records"] == 0
    # Dribbled in pieces, with the next message right behind it in the same write.
    data = encode(big, framing)
    follow = encode({"jsonrpc": "2.0", "id": 51, "method": "index/status", "params": {}}, framing)
    srv.send_raw(data[:700])
    time.sleep(0.05)
    srv.send_raw(data[700:3000])
    time.sleep(0.05)
    srv.send_raw(data[3000:] + follow)
    m = srv.next_message()
    assert "error" in m and m["id"] is None, m
    assert srv.response(51)["result"]["records"] == 0
    small = {"jsonrpc": "2.0", "id": 52, "method": "records/upsert",
             "params": {"owner": "o", "records": [record("small", text="y" * 100)]}}
    srv.send(small)
    assert srv.response(52)["result"]["results"][0]["status"] == "created"


def test_invalid_params_names_the_field(server):
    e = server.error("records/get", {"owner": "o"})
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "id"
    e = server.error("records/get", {"owner": 5, "id": "x"})
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "owner"
    e = server.error("search/query", {"owner": "o", "text": "x", "mode": "fuzzy"})
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "mode"
    e = server.error("search/query", {"owner": "o", "text": "x", "filters": {"colour": "red"}})
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "filters.colour"
    e = server.error("records/get", [1, 2])
    assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "params"


@pytest.mark.parametrize("framing", ["ndjson", "lsp"])
def test_large_message_read_time_is_linear(spawn, framing):
    """Reading a message must take time proportional to its size: 8x the bytes may not cost 25x the time."""
    srv = spawn(framing)
    srv.initialize()

    def timed(size, id):
        # A long owner (a key every strictness level accepts): the message is read and parsed whole.
        msg = '{"jsonrpc":"2.0","id":%d,"method":"index/status","params":{"owner":"%s"}}' % (id, "x" * size)
        t = time.monotonic()
        srv.send(msg)
        r = srv.response(id, timeout=300)
        assert "result" in r or r["error"]["data"]["field"] == "owner", r
        return time.monotonic() - t

    timed(1 << 20, 100)  # warm up
    small = min(timed(4 << 20, 101), timed(4 << 20, 102))
    # The least of two, like the small one: one slow read on a busy machine is not a slope.
    large = min(timed(32 << 20, 103), timed(32 << 20, 104))
    assert large < max(25 * small, 1.0), f"{framing}: 4 MiB in {small:.2f}s but 32 MiB in {large:.2f}s"


# -- hostile input ---------------------------------------------------------------------------

BAD_UTF8 = [b"\xff", b"\x80", b"\xc0\x80", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\xc3A"]


@pytest.mark.parametrize("framing", ["ndjson", "lsp"])
def test_invalid_utf8_in_strings_is_a_parse_error_with_its_offset(spawn, framing):
    srv = spawn(framing)
    srv.initialize()
    for bad in BAD_UTF8:
        for where in ("id", "owner", "key"):
            if where == "id":
                body = b'{"jsonrpc":"2.0","id":"x' + bad + b'","method":"index/status","params":{}}'
            elif where == "owner":
                body = b'{"jsonrpc":"2.0","id":9,"method":"records/get","params":{"owner":"al' + bad + b'ice","id":"a"}}'
            else:
                body = b'{"jsonrpc":"2.0","id":9,"method":"index/status","params":{"o' + bad + b'":1}}'
            srv.send_raw(encode(body, framing))
            m = srv.next_message()
            assert m["id"] is None and m["error"]["code"] == PARSE_ERROR, (bad, where, m)
            offset = body.index(bad)
            assert m["error"]["message"] == f"parse error: invalid UTF-8 at byte offset {offset}", m
        assert "result" in srv.call("index/status", {})


def test_distinct_invalid_ids_no_longer_collide(server):
    """Two owners that differ only in an invalid byte used to both become "\ufffd" and share records."""
    for bad in (b"\xff", b"\xfe"):
        server.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"records/upsert","params":{"owner":"' + bad
                        + b'","records":[{"id":"r","revision":1,"text":"x","vector":' + json.dumps(vec(1)).encode() + b'}]}}\n')
        m = server.next_message()
        assert m["id"] is None and m["error"]["code"] == PARSE_ERROR
    assert server.result("index/status", {})["records"] == 0


@pytest.mark.parametrize("escape", ["\\ud800", "\\udc00", "\\ud800\\u0041", "\\ud83d\\ud83d"])
def test_lone_surrogate_escapes_are_parse_errors(server, escape):
    server.send_raw(b'{"jsonrpc":"2.0","id":"s","method":"records/get","params":{"owner":"o","id":"a' + escape.encode() + b'"}}\n')
    m = server.next_message()
    assert m["id"] is None and m["error"]["code"] == PARSE_ERROR and "unpaired surrogate" in m["error"]["message"], m
    r = server.call("records/get", {"owner": "o", "id": "a\ud83d\ude00"})  # a proper pair is fine
    assert r["error"]["code"] == NOT_FOUND


def test_nul_escape_is_still_valid_json(server):
    # The wire accepts U+0000 inside strings; whether a field may hold it is up to the method.
    server.send_raw(b'{"jsonrpc":"2.0","id":"n\\u0000","method":"index/status","params":{}}\n')
    m = server.next_message()
    assert m["id"] == "n\x00" and "result" in m, m


LSP_BAD_HEADERS = [
    b"Content-Type: application/json\r\n\r\n",                  # no Content-Length
    b"Content-Length: -5\r\n\r\n",
    b"Content-Length: twelve\r\n\r\n",
    b"Content-Length: 99999999999999999999999999\r\n\r\n{}",      # overflows
    b"Content-Length: 10\r\nContent-Length: 12\r\n\r\n0123456789", # conflicting
    b"Content-Length 10\r\n\r\n0123456789",                       # no colon
    b'{"jsonrpc":"2.0","id":99,"method":"index/status"}\r\n',      # raw JSON, no header
    b"\x00\x01\x02\xff\xfe garbage \x7f\r\n",
    b"x" * 20000 + b"\r\n",                                         # over the 8 KiB header bound
]


def test_lsp_stream_resynchronises_after_every_kind_of_bad_header(spawn):
    srv = spawn("lsp")
    srv.initialize()
    for i, bad in enumerate(LSP_BAD_HEADERS):
        srv.send_raw(bad + b"\r\n")
        m = srv.next_message()
        assert m["id"] is None and m["error"]["code"] == PARSE_ERROR and "result" not in m, (bad[:60], m)
        # Header names are matched in any case on the resynchronising line.
        body = json.dumps({"jsonrpc": "2.0", "id": 100 + i, "method": "index/status", "params": {}}).encode()
        srv.send_raw(b"cOnTeNt-LeNgTh: %d\r\n\r\n" % len(body) + body)
        assert srv.response(100 + i)["result"]["records"] == 0
    assert_quiet(srv)  # one error per bad frame, nothing more
    assert srv.shutdown_and_exit() == 0


def _status_frame(id):
    body = json.dumps({"jsonrpc": "2.0", "id": id, "method": "index/status", "params": {}}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_lsp_recovers_when_the_next_header_follows_a_body_on_the_same_line(spawn):
    """Real LSP bodies end without a newline: after a bad header, the next `Content-Length:` is found
    where it starts, not only at a line start."""
    srv = spawn("lsp")
    srv.initialize()
    srv.send_raw(b'Content-Length: abc\r\n\r\n{"x":1}' + b"".join(_status_frame(i) for i in (11, 12, 13)))
    m = srv.next_message()
    assert m["id"] is None and m["error"]["code"] == PARSE_ERROR and "abc" in m["error"]["message"], m
    for i in (11, 12, 13):
        assert srv.response(i)["result"]["records"] == 0
    assert_quiet(srv)
    assert srv.shutdown_and_exit() == 0


@pytest.mark.parametrize("newline", [b"", b"\r\n", b"\n"])
def test_lsp_bad_header_then_frames_with_and_without_trailing_newlines(spawn, newline):
    srv = spawn("lsp")
    srv.initialize()
    for k, bad in enumerate(LSP_BAD_HEADERS):
        srv.send_raw(bad + newline + _status_frame(200 + k) + newline + _status_frame(300 + k))
        m = srv.next_message()
        assert m["id"] is None and m["error"]["code"] == PARSE_ERROR, (bad[:60], m)
        assert srv.response(200 + k)["result"]["records"] == 0
        assert srv.response(300 + k)["result"]["records"] == 0
    assert_quiet(srv)
    assert srv.shutdown_and_exit() == 0


def test_lsp_resync_header_split_across_writes(spawn):
    """The `Content-Length:` that ends a resync arrives a few bytes at a time."""
    srv = spawn("lsp")
    srv.initialize()
    stream = b"Content-Length: nope\r\n\r\n{}garbage" + _status_frame(21) + _status_frame(22)
    for cut in range(0, len(stream), 3):
        srv.send_raw(stream[cut:cut + 3])
        time.sleep(0.002)
    m = srv.next_message()
    assert m["id"] is None and m["error"]["code"] == PARSE_ERROR, m
    assert srv.response(21)["result"]["records"] == 0 and srv.response(22)["result"]["records"] == 0
    assert_quiet(srv)
    assert srv.shutdown_and_exit() == 0


def test_lsp_garbage_of_every_length_costs_one_error(spawn):
    """Bad header, then 0…300 bytes of garbage (with and without newlines), then a valid frame."""
    import random

    rng = random.Random(35)
    srv = spawn("lsp")
    srv.initialize()
    for n in list(range(0, 40)) + [64, 127, 128, 255, 300, 4096, 9000]:
        garbage = bytes(rng.choice(b"abcdefghij:{}[] \r\n\x00\xff-") for _ in range(n))
        assert b"content-length:" not in garbage.lower()
        srv.send_raw(b"Content-Length: x\r\n\r\n" + garbage + _status_frame(1000 + n))
        m = srv.next_message()
        assert m["id"] is None and m["error"]["code"] == PARSE_ERROR, (n, m)
        assert srv.response(1000 + n)["result"]["records"] == 0, n
    assert_quiet(srv)
    assert srv.shutdown_and_exit() == 0


def test_lsp_garbage_before_the_first_frame_and_in_one_write(spawn):
    srv = spawn("lsp")
    frames = b"".join(encode({"jsonrpc": "2.0", "id": i, "method": "initialize" if i == 1 else "index/status", "params": {}}, "lsp") + b"\r\n"
                      + (b"@@ junk line\r\n" if i % 2 else b"") for i in range(1, 8))
    srv.send_raw(b"\xde\xad\xbe\xef\r\n" + frames)
    got = [srv.next_message() for _ in range(7 + 5)]
    errors = [m for m in got if m.get("id") is None]
    assert len(errors) == 5 and all(m["error"]["code"] == PARSE_ERROR for m in errors)
    assert sorted(m["id"] for m in got if m.get("id") is not None) == list(range(1, 8))


def test_huge_content_length_is_answered_and_skipped(spawn):
    srv = spawn("lsp", args=["--set", "rpc.maxMessageBytes=1000"])
    srv.initialize()
    srv.send_raw(b"Content-Length: 5000\r\n\r\n" + b"y" * 5000)
    m = srv.next_message()
    assert m["id"] is None and m["error"]["code"] == INVALID_REQUEST and m["error"]["data"] == {"size": 5000, "limit": 1000}
    assert "result" in srv.call("index/status", {})


def test_a_length_above_the_limit_is_not_trusted(spawn):
    """`Content-Length: 999999999999` before a short body: refused, then the stream resynchronises
    on the next `Content-Length:` instead of skipping the declared bytes (which swallowed every later
    message on the connection)."""
    srv = spawn("lsp")
    srv.initialize()
    srv.send_raw(b"Content-Length: 999999999999\r\n\r\n" + encode({"jsonrpc": "2.0", "id": 1, "method": "index/status", "params": {}}, "lsp"))
    m = srv.next_message()
    assert m["id"] is None and m["error"]["code"] == INVALID_REQUEST and m["error"]["data"] == {"size": 999999999999, "limit": 67108864}, m
    assert "result" in srv.response(1)
    # The next request in a later write, as a client sends it after the answer.
    srv.send_raw(b"Content-Length: 999999999999\r\n\r\n")
    assert srv.next_message()["error"]["code"] == INVALID_REQUEST
    assert "result" in srv.call("index/status", {})


@pytest.mark.parametrize("framing", ["ndjson", "lsp"])
def test_numeric_ids_come_back_verbatim(spawn, framing):
    srv = spawn(framing)
    srv.initialize()
    ids = [b"12345678901234567890123", b"1.0", b"-0", b"1e3", b"1E+3", b"0.10", b"-1.5e-7", b"9007199254740993", b"1"]
    for raw in ids:
        srv.send_raw(encode(b'{"jsonrpc":"2.0","id":' + raw + b',"method":"index/status","params":{}}', framing))
    bodies = []
    for _ in ids:
        srv.next_message()
    bodies = [body for _, body in srv.raw_frames[-len(ids):]]
    for raw in ids:
        assert any(b.startswith(b'{"jsonrpc":"2.0","id":' + raw + b',"result":') for b in bodies), (raw, bodies)
    srv.send_raw(encode(b'{"jsonrpc":"2.0","id":"1","method":"index/status","params":{}}', framing))
    assert isinstance(srv.next_message()["id"], str)


def test_verbatim_ids_in_errors_and_batches(server):
    server.send_raw(b'[{"jsonrpc":"2.0","id":1.50,"method":"records/get","params":{"owner":"o","id":"nope"}},'
                    b'{"jsonrpc":"2.0","id":2E2,"method":"nope/nope"}]\n')
    server.next_message()
    line = server.raw_frames[-1][1]
    assert line.startswith(b'[{"jsonrpc":"2.0","id":1.50,"error":{"code":-32001'), line
    assert b'{"jsonrpc":"2.0","id":2E2,"error":{"code":-32601' in line, line


@pytest.mark.parametrize("params", [None, "x", 5, True, [1, 2], []])
def test_params_that_are_not_an_object_are_invalid_params(server, params):
    for method in ["index/status", "records/get", "search/query", "shutdown", "nope/nope"]:
        server.send({"jsonrpc": "2.0", "id": method, "method": method, "params": params})
        m = server.response(method)
        assert m["error"]["code"] == INVALID_PARAMS and m["error"]["data"]["field"] == "params", (method, m)
        assert "must be an object" in m["error"]["message"]
    assert "result" in server.call("index/status", {})


@pytest.mark.parametrize("token", [True, {"a": 1}, [1], 1.5, 1.0, 1e3])
def test_work_done_token_must_be_a_string_or_an_integer(server, token):
    for method in ["index/status", "index/rebuild", "records/get", "search/query", "patterns/refresh"]:
        e = server.error(method, {"owner": "o", "id": "a", "text": "x", "workDoneToken": token})
        assert e["code"] == INVALID_PARAMS and e["data"]["field"] == "workDoneToken", (method, e)
    assert "result" in server.call("index/status", {})


def test_work_done_token_string_or_integer_gets_progress(server):
    server.result("records/upsert", {"owner": "o", "records": [record("a", vector=vec(1))]})
    for token in ["tok", 7, -3]:
        r = server.call("index/rebuild", {"workDoneToken": token})
        assert "result" in r, r
        assert any(same_id(n["params"]["token"], token) for n in server.notifications if n["method"] == "$/progress"), token
