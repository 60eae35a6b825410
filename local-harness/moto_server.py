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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args()
    os.environ.setdefault("MOTO_PORT", str(args.port))

    application = DomainDispatcherApplication(create_backend_app)
    lock = threading.Lock()

    def serialised(environ, start_response):
        with lock:
            # Consume the whole answer inside the lock: the write happens while it is produced.
            return list(application(environ, start_response))

    run_simple(args.host, args.port, serialised, threaded=True)


if __name__ == "__main__":
    main()
