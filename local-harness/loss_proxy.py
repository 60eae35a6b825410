#!/usr/bin/env python3
"""A loopback HTTP proxy that loses answers on purpose.

It sits between the DynamoDB client and moto. Every request is forwarded and its answer read in full,
so the write has committed on the server; when a loss is armed for that operation, the proxy then
closes the client's connection instead of relaying the answer. The client sees a reset connection and
its real retry path sends the request again: exactly the "response lost after the write landed" case
of docs/dynamodb.md (own writes).

Usage: loss_proxy.py --listen PORT --upstream http://127.0.0.1:MOTO_PORT --control PORT
Control (HTTP on the control port):
  POST /arm?op=UpdateItem&count=1   lose the next `count` answers to that X-Amz-Target operation
  POST /arm?op=UpdateItem&count=1&match=TEXT
                                    ... only answers to requests whose body contains TEXT (e.g. a key),
                                    so one write of a call that makes several can be targeted
  POST /arm?op=UpdateItem&count=1&match=TEXT&skip=1
                                    ... letting the first `skip` matching answers through first
  GET  /stats                       JSON: {"forwarded": n, "lost": {"UpdateItem": n, ...}, "armed": {...}}
  POST /reset                       disarm everything and zero the counters
"""
import argparse
import http.client
import json
import socket
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
ARMED = {}
SKIP = {}
LOST = {}
FORWARDED = [0]


def take_loss(operation, body):
    """ARMED maps "op" or "op|match" to the answers still to lose."""
    text = body.decode("utf-8", "replace")
    with LOCK:
        for armed, left in ARMED.items():
            op, _, match = armed.partition("|")
            if op != operation or left <= 0 or (match and match not in text):
                continue
            if SKIP.get(armed, 0) > 0:
                SKIP[armed] -= 1
                return False
            ARMED[armed] = left - 1
            LOST[operation] = LOST.get(operation, 0) + 1
            return True
        return False


class ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream = None

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        operation = self.headers.get("X-Amz-Target", "").rsplit(".", 1)[-1]
        parsed = urllib.parse.urlsplit(self.upstream)
        connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        connection.request("POST", self.path, body=body, headers=headers)
        answer = connection.getresponse()
        payload = answer.read()
        connection.close()
        with LOCK:
            FORWARDED[0] += 1
        if take_loss(operation, body):
            # The write has landed upstream; drop the connection so the client never hears of it.
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("content-length", "connection", "transfer-encoding", "server", "date"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class ControlHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, document):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/stats":
            with LOCK:
                self.reply(200, {"forwarded": FORWARDED[0], "lost": dict(LOST), "armed": dict(ARMED)})
        else:
            self.reply(404, {"error": "not_found"})

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/arm" and query.get("op"):
            armed = query["op"] + ("|" + query["match"] if query.get("match") else "")
            with LOCK:
                ARMED[armed] = ARMED.get(armed, 0) + int(query.get("count", "1"))
                SKIP[armed] = int(query.get("skip", "0"))
            self.reply(200, {"armed": query["op"]})
        elif url.path == "/reset":
            with LOCK:
                ARMED.clear()
                SKIP.clear()
                LOST.clear()
                FORWARDED[0] = 0
            self.reply(200, {})
        else:
            self.reply(404, {"error": "not_found"})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--control", type=int, required=True)
    parser.add_argument("--upstream", required=True)
    args = parser.parse_args()
    ProxyHandler.upstream = args.upstream
    proxy = ThreadingHTTPServer(("127.0.0.1", args.listen), ProxyHandler)
    control = ThreadingHTTPServer(("127.0.0.1", args.control), ControlHandler)
    threading.Thread(target=control.serve_forever, daemon=True).start()
    proxy.serve_forever()


if __name__ == "__main__":
    main()
