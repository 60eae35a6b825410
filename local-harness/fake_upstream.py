#!/usr/bin/env python3
"""A stand-in for the paid AI API on 127.0.0.1: checks the server-held key, answers with JSON.

POST <any path>  -> 200 {"upstream":"fake","path":...,"bytes":n, ...}   (401 without the right key)
                    answering like a flashcard generator: a body {"text": "...", "cards": n} gets
                    {"cards": [{"front", "back"}, ...]}, a body {"question": "..."} gets {"answer": "..."}.
Paths ending in /hang never answer (timeouts); /fail-503 and /fail-429 answer with that status.

Streaming: a body with "stream": true, or any body to a `:streamGenerateContent` path, is answered with
server-sent events (`text/event-stream`, chunked) in the dialect the path names, usage included as each
provider sends it:
  .../messages                       Anthropic: message_start (input usage) ... message_delta usage, message_stop
  ...:streamGenerateContent, ...gemini  Gemini: candidates chunks, usageMetadata on the last chunk
  anything else                      OpenAI chat: chat.completion.chunk deltas; the usage chunk only with
                                     "stream_options": {"include_usage": true}; then data: [DONE]
Knobs in the same body: "events" (8), "eventBytes" (extra text per event, 0), "intervalMs" (20),
"cutAfter" (close the connection after n events, before usage), "errorAfter" (a provider error event
after n events, then the end), "forever" (events until the client goes away).
  GET /control/streams   every stream: path, dialect, events, bytes, arrived (its request line was read)/
                         started (headers and body read and parsed)/firstEventAt/lastEventAt/closedAt
                         (epoch seconds), outcome (complete | cut | error_event | client_gone)

Control (no key needed; loopback only):
  POST /control/fail {"status": 503, "count": 1}   the next `count` calls answer `status` (0 = clear)
  GET  /control/stats                               calls answered, calls failed on purpose
Standard library only. Prints {"ready":true,"url":...} on stdout when listening.
"""
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def flashcards(body):
    """What a flashcard generator answers: one card per sentence of `text`, or a tutor answer."""
    try:
        request = json.loads(body) if body else {}
    except ValueError:
        request = {}
    if not isinstance(request, dict):
        request = {}
    if isinstance(request.get("question"), str):
        return {"answer": "A tutor's answer to: " + request["question"][:200] + " (fake upstream)"}
    text = request.get("text") if isinstance(request.get("text"), str) else ""
    sentences = [part.strip() for part in text.replace("?", ".").split(".") if part.strip()]
    wanted = request.get("cards") if isinstance(request.get("cards"), int) else 3
    cards = []
    for sentence in sentences[:max(0, min(wanted, 20))]:
        words = sentence.split()
        front = " ".join(words[:-1]) + " ____?" if len(words) > 1 else sentence + "?"
        cards.append({"front": front, "back": words[-1] if words else sentence})
    return {"cards": cards}


class Control:
    """Failures on demand, shared by every handler thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.fail_status = 0
        self.fail_count = 0
        self.stats = {"answered": 0, "failed_on_purpose": 0}
        self.streams = []

    def take_failure(self):
        with self.lock:
            if self.fail_count > 0 and self.fail_status:
                self.fail_count -= 1
                self.stats["failed_on_purpose"] += 1
                return self.fail_status
            self.stats["answered"] += 1
            return 0


def dialect_of(path):
    if path.rstrip("/").endswith("/messages"):
        return "anthropic"
    if "streamGenerateContent" in path or "gemini" in path:
        return "gemini"
    return "openai"


def number(request, name, default, low=0, high=10_000_000):
    value = request.get(name, default)
    return max(low, min(high, value)) if isinstance(value, int) and not isinstance(value, bool) else default


def sse_events(dialect, request, words, padding, usage):
    """The provider's events, one list entry per event: (bytes, is_text_delta)."""
    def event(data, name=None):
        head = b"event: %s\n" % name.encode() if name else b""
        return head + b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"

    out = []
    if dialect == "anthropic":
        out.append(event({"type": "message_start", "message": {"id": "msg_fake", "role": "assistant",
                                                               "usage": {"input_tokens": usage[0], "output_tokens": 1}}},
                         "message_start"))
        out.append(event({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                         "content_block_start"))
        for word in words:
            out.append(event({"type": "content_block_delta", "index": 0,
                              "delta": {"type": "text_delta", "text": word + padding}}, "content_block_delta"))
        out.append(event({"type": "content_block_stop", "index": 0}, "content_block_stop"))
        out.append(event({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                          "usage": {"output_tokens": usage[1]}}, "message_delta"))
        out.append(event({"type": "message_stop"}, "message_stop"))
    elif dialect == "gemini":
        for index, word in enumerate(words):
            chunk = {"candidates": [{"content": {"parts": [{"text": word + padding}], "role": "model"}, "index": 0}]}
            if index == len(words) - 1:
                chunk["candidates"][0]["finishReason"] = "STOP"
                chunk["usageMetadata"] = {"promptTokenCount": usage[0], "candidatesTokenCount": usage[1],
                                          "totalTokenCount": usage[0] + usage[1]}
            out.append(event(chunk))
    else:
        for word in words:
            out.append(event({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": "fake",
                              "choices": [{"index": 0, "delta": {"content": word + padding}, "finish_reason": None}]}))
        out.append(event({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": "fake",
                          "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
        options = request.get("stream_options")
        if isinstance(options, dict) and options.get("include_usage") is True:
            out.append(event({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": "fake", "choices": [],
                              "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                                        "total_tokens": usage[0] + usage[1]}}))
        out.append(b"data: [DONE]\n\n")
    return out


def error_event(dialect):
    if dialect == "anthropic":
        return b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    return b'data: {"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}\n\n'


def stream_answer(handler, control, body, request):
    """Server-sent events, chunked, one event per write, as they are produced."""
    dialect = dialect_of(handler.path)
    count = number(request, "events", 8, 1, 1_000_000)
    padding = "." * number(request, "eventBytes", 0, 0, 1_000_000)
    interval = number(request, "intervalMs", 20, 0, 60_000) / 1000.0
    cut_after = request.get("cutAfter") if isinstance(request.get("cutAfter"), int) else None
    error_after = request.get("errorAfter") if isinstance(request.get("errorAfter"), int) else None
    forever = request.get("forever") is True
    text = flashcards(body).get("answer") or "A streamed answer from the fake upstream"
    words = (text.split() * (count // max(1, len(text.split())) + 1))[:count]
    usage = (max(1, len(body) // 4), len(words))
    record = {"path": handler.path, "dialect": dialect, "events": 0, "bytes": 0, "arrived": handler.arrived_at,
              "started": time.time(),
              "firstEventAt": None, "lastEventAt": None, "closedAt": None, "outcome": "complete",
              "usage": {"input": usage[0], "output": usage[1]}}
    with control.lock:
        control.streams.append(record)
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()

    def send(data):
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        handler.wfile.flush()
        now = time.time()
        record["events"] += 1
        record["bytes"] += len(data)
        record["firstEventAt"] = record["firstEventAt"] or now
        record["lastEventAt"] = now

    events = sse_events(dialect, request, words, padding, usage)
    try:
        index = 0
        while True:
            if forever:
                data = sse_events(dialect, request, [words[index % len(words)]], padding, usage)[1 if dialect == "anthropic" else 0]
            elif index < len(events):
                data = events[index]
            else:
                break
            if cut_after is not None and index >= cut_after:
                record["outcome"] = "cut"
                handler.close_connection = True
                handler.connection.shutdown(2)
                return
            if error_after is not None and index >= error_after:
                send(error_event(dialect))
                record["outcome"] = "error_event"
                break
            send(data)
            index += 1
            if interval:
                time.sleep(interval)
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
    except OSError:
        record["outcome"] = "client_gone"
        handler.close_connection = True
    finally:
        record["closedAt"] = time.time()


def make_handler(key, header, control=None):
    expected = "Bearer " + key if header.lower() == "authorization" else key
    control = control or Control()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body are two writes: without TCP_NODELAY the body waits for the client's delayed ACK
        # (~40 ms per answer on Linux).
        disable_nagle_algorithm = True

        def log_message(self, *args):
            pass

        def parse_request(self):
            # When the request line was read, before the headers' parse: `make bench` counts the time from
            # here to `started` as the fake upstream's own (it is in its direct time to first byte too).
            self.arrived_at = time.time()
            return super().parse_request()

        def _json(self, status, value):
            data = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/control/stats":
                with control.lock:
                    return self._json(200, dict(control.stats))
            if self.path == "/control/streams":
                with control.lock:
                    return self._json(200, list(control.streams))
            return self._json(404, {"error": "not found"})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if self.path == "/control/fail":
                try:
                    order = json.loads(body)
                    with control.lock:
                        control.fail_status = int(order.get("status", 0))
                        control.fail_count = int(order.get("count", 1))
                except (ValueError, AttributeError, TypeError):
                    return self._json(400, {"error": "bad control body"})
                return self._json(200, {"ok": True})
            if self.headers.get(header) != expected:
                return self._json(401, {"error": "bad key"})
            if self.path.endswith("/hang"):
                time.sleep(3600)
                return None
            if self.path.endswith("/fail-503"):
                return self._json(503, {"error": "overloaded"})
            if self.path.endswith("/fail-429"):
                return self._json(429, {"error": "rate limited"})
            failure = control.take_failure()
            if failure:
                return self._json(failure, {"error": "failing on purpose (control)"})
            try:
                request = json.loads(body) if body else {}
            except ValueError:
                request = {}
            # Gemini streams by its method (`:streamGenerateContent?alt=sse`), not by a body field.
            if isinstance(request, dict) and (request.get("stream") is True or "streamGenerateContent" in self.path):
                return stream_answer(self, control, body, request)
            answer = {"upstream": "fake", "path": self.path, "bytes": len(body)}
            answer.update(flashcards(body))
            # The usage an OpenAI chat answer reports, so a route with a known dialect can settle its cost.
            answer["usage"] = {"prompt_tokens": max(1, len(body) // 4), "completion_tokens": 20,
                               "total_tokens": max(1, len(body) // 4) + 20}
            return self._json(200, answer)

    return Handler


def main(argv=None):
    parser = argparse.ArgumentParser(description="fake upstream AI API")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key-file", required=True)
    parser.add_argument("--auth-header", default="Authorization")
    args = parser.parse_args(argv)
    with open(args.key_file) as handle:
        key = handle.read().strip()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(key, args.auth_header))
    server.daemon_threads = True
    print(json.dumps({"ready": True, "url": "http://127.0.0.1:%d" % server.server_address[1]}), flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
