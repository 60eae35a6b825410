#!/usr/bin/env python3
"""A stand-in for the paid AI API on 127.0.0.1: checks the server-held key, answers with JSON.

POST <any path>  -> 200 {"upstream":"fake","path":...,"bytes":n}   (401 without the right key)
Paths ending in /hang never answer (timeouts); /fail-503 and /fail-429 answer with that status.
Standard library only. Prints {"ready":true,"url":...} on stdout when listening.
"""
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def make_handler(key, header):
    expected = "Bearer " + key if header.lower() == "authorization" else key

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _json(self, status, value):
            data = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if self.headers.get(header) != expected:
                return self._json(401, {"error": "bad key"})
            if self.path.endswith("/hang"):
                time.sleep(3600)
                return None
            if self.path.endswith("/fail-503"):
                return self._json(503, {"error": "overloaded"})
            if self.path.endswith("/fail-429"):
                return self._json(429, {"error": "rate limited"})
            return self._json(200, {"upstream": "fake", "path": self.path, "bytes": len(body)})

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
