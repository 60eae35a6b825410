#!/usr/bin/env python3
"""A stand-in for the paid AI API on 127.0.0.1: checks the server-held key, answers with JSON.

POST <any path>  -> 200 {"upstream":"fake","path":...,"bytes":n, ...}   (401 without the right key)
                    answering like a flashcard generator: a body {"text": "...", "cards": n} gets
                    {"cards": [{"front", "back"}, ...]}, a body {"question": "..."} gets {"answer": "..."}.
Paths ending in /hang never answer (timeouts); /fail-503 and /fail-429 answer with that status.

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

    def take_failure(self):
        with self.lock:
            if self.fail_count > 0 and self.fail_status:
                self.fail_count -= 1
                self.stats["failed_on_purpose"] += 1
                return self.fail_status
            self.stats["answered"] += 1
            return 0


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
