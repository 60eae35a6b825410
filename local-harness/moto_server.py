#!/usr/bin/env python3
"""moto's server mode, with each request handled atomically.

moto evaluates a conditional write (read the item, check the condition, write) without a lock, so two
threads can both pass `count < :limit` and both write: a race that real DynamoDB, which serialises
writes to one item, never allows. Race tests against plain `moto_server` therefore fail at random for
reasons that are moto's, not ours. This wrapper runs the same moto application (as `moto_server` does)
behind one lock, so every request is atomic, connections stay concurrent, and a race test measures
only the product's conditions.

Usage: moto_server.py -H 127.0.0.1 -p PORT
"""
import argparse
import os
import threading

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args()
    os.environ.setdefault("MOTO_PORT", str(args.port))

    application = DomainDispatcherApplication(create_backend_app)
    warm_up(application)
    lock = threading.Lock()

    def serialised(environ, start_response):
        with lock:
            # Consume the whole answer inside the lock: the write happens while it is produced.
            return list(application(environ, start_response))

    run_simple(args.host, args.port, serialised, threaded=True)


if __name__ == "__main__":
    main()
