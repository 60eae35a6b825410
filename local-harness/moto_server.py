#!/usr/bin/env python3
"""moto's server mode, with each request handled atomically.

moto evaluates a conditional write (read the item, check the condition, write) without a lock, so two
threads can both pass `count < :limit` and both write: a race that real DynamoDB, which serialises
writes to one item, never allows. Race tests against plain `moto_server` therefore fail at random for
reasons that are moto's, not ours. This wrapper runs the same moto application (as `moto_server` does)
behind one lock, so every request is atomic, connections stay concurrent, and a race test measures
only the product's conditions.

In front of that lock sits the DynamoDB stand-in (ddb_standin.py, on by default), so this local DynamoDB
also refuses what DynamoDB refuses: a write to an item an ongoing TransactWriteItems holds
(TransactionConflictException), a transaction meeting another one or an item short of write capacity
(TransactionCanceledException with TransactionConflict / ThrottlingError), a single write over an item's
write capacity (ThrottlingException on an on-demand table); with optional in-region latencies. `--rules none`
(or DDB_STANDIN_RULES=none) turns the stand-in off: plain atomic moto, for comparison only. Its flags, their
DDB_STANDIN_* variables and its counters (GET /standin/stats, POST /standin/reset-stats) are in
local-harness/README.md. Requests that are not DynamoDB's (/moto-api/, Secrets Manager) pass straight through.

With --keep-alive the same application is served over HTTP/1.1 connections that stay open between
requests, as DynamoDB's endpoints do (werkzeug's development server closes every connection after one
answer, so each request pays a new connection and a new server thread). `make bench` uses it for the
streamed-route latency figures; the tests keep werkzeug's server.

Usage: moto_server.py -H 127.0.0.1 -p PORT [--keep-alive] [--rules dynamodb|none] [--txn-hold-ms MS]
           [--item-wcu WCU] [--item-burst-seconds S] [--throttle-error auto|ThrottlingException|
           ProvisionedThroughputExceededException] [--latency-ms KIND=MS ...]
"""
import argparse
import io
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import ddb_standin
from moto.server import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple
from werkzeug.test import Client


def warm_up(application):
    """Load the DynamoDB and Secrets Manager backends before the port opens.

    moto imports a service's backend on its first request, which takes seconds on a busy machine; under
    the lock every other request would queue behind it and time out. Readiness checks poll the port,
    so they see the server only once this is done.
    """
    client = Client(application)
    for service, target in (("dynamodb", "DynamoDB_20120810.ListTables"), ("secretsmanager", "secretsmanager.ListSecrets")):
        client.post(
            "/",
            data="{}",
            headers={
                "Content-Type": "application/x-amz-json-1.0",
                "X-Amz-Target": target,
                "Authorization": "AWS4-HMAC-SHA256 Credential=warmup/20260101/us-east-1/%s/aws4_request, "
                "SignedHeaders=host, Signature=0" % service,
            },
        )


def serve_keep_alive(host, port, application):
    """`application` (WSGI) behind http.server with persistent HTTP/1.1 connections and TCP_NODELAY."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args):
            pass

        def _serve(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            path, _, query = self.path.partition("?")
            environ = {
                "REQUEST_METHOD": self.command, "SCRIPT_NAME": "", "PATH_INFO": path, "QUERY_STRING": query,
                "SERVER_NAME": host, "SERVER_PORT": str(port), "SERVER_PROTOCOL": self.request_version,
                "REMOTE_ADDR": self.client_address[0], "CONTENT_LENGTH": str(len(body)),
                "CONTENT_TYPE": self.headers.get("Content-Type", ""), "wsgi.version": (1, 0),
                "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr,
                "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False,
            }
            for name, value in self.headers.items():
                key = "HTTP_" + name.upper().replace("-", "_")
                if key not in ("HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH"):
                    environ[key] = environ[key] + "," + value if key in environ else value
            answer = {}

            def start_response(status, headers, exc_info=None):
                answer["status"], answer["headers"] = status, headers
                return lambda data: None

            data = b"".join(application(environ, start_response))
            code, _, reason = answer["status"].partition(" ")
            self.send_response(int(code), reason)
            for name, value in answer["headers"]:
                if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _serve

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    server.serve_forever()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    parser.add_argument("--keep-alive", action="store_true", help="persistent HTTP/1.1 connections")
    ddb_standin.add_arguments(parser)
    args = parser.parse_args()
    config = ddb_standin.config_from(args, error=parser.error)
    os.environ.setdefault("MOTO_PORT", str(args.port))

    application = DomainDispatcherApplication(create_backend_app)
    warm_up(application)
    lock = threading.Lock()

    def serialised(environ, start_response):
        with lock:
            # Consume the whole answer inside the lock: the write happens while it is produced.
            return list(application(environ, start_response))

    # The stand-in's rules around the serialised app: its holds, waits and latencies are outside the lock.
    standin = ddb_standin.StandIn(serialised, config)
    print("moto_server: DynamoDB stand-in %s" % json.dumps(config.as_json(), sort_keys=True), file=sys.stderr,
          flush=True)
    if args.keep_alive:
        serve_keep_alive(args.host, args.port, standin)
    else:
        run_simple(args.host, args.port, standin, threaded=True)


if __name__ == "__main__":
    main()
