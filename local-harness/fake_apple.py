#!/usr/bin/env python3
"""Loopback stand-in for Apple's DeviceCheck two bits and App Attest receipt exchange.

Standard library only. One HTTP server on 127.0.0.1 serves:

  POST /v1/query_two_bits      Needs "Authorization: Bearer <ES256 JWT>" whose signature verifies with the
  POST /v1/update_two_bits     public half of the .p8 given at start (alg ES256, kid = --key-id and
                               iss = --team-id when given, integer iat; else 401). The body must be JSON with
                               a base64 device_token, a string transaction_id and an integer timestamp (ms)
                               (else 400), and the device token must belong to a physical device: registered
                               with /control/device, or a simulated iPhone's token, whose bytes begin
                               "simdc1:<device>:" (else 400: DeviceCheck tokens are per physical device and
                               ephemeral, so many tokens name one device). Query answers
                               200 {"bit0", "bit1", "last_update_time": "YYYY-MM"} or, for a device whose bits
                               were never set, 200 "Failed to find bit state". Update takes optional booleans
                               bit0 / bit1 (a bit not given keeps its value; a non-boolean is 400), stamps
                               last_update_time with the fake's month and answers 200 with an empty body.
  POST /v1/attestationData     App Attest receipt exchange. Needs "Authorization: <ES256 JWT>" (no scheme,
                               the same JWT checks), a base64 body; answers what /control/receipt registered
                               for that receipt: 200 with a new receipt (base64), or a status (304, 400, 401,
                               404, 429, 5xx). An unregistered receipt is 400.

The fake cannot sign receipts as Apple does: tests build RECEIPT receipts with their simulated Apple CA and
register them here.

Control (same port):
  POST /control/device   {"token": T, "device": D}              device token T belongs to physical device D
  POST /control/bits     {"device": D, "bit0": b, "bit1": b, "last_update_time": "2026-01"}  plant a state
                         {"device": D, "clear": true}           forget D's bits (never set again)
  POST /control/month    {"month": "2026-12"}                   the month updates are stamped with (default:
                                                                the real UTC month)
  POST /control/receipt  {"receipt": B64, "answer": B64}        the exchange of B64 answers 200 with answer
                         {"receipt": B64, "status": 304}        ... answers that status instead
  POST /control/status   {"devicecheck": 503, "exchange": 503}  answer every call to that API with the status
                         {"hang": 5}                            accept calls and answer after N seconds
                         {"down": true}                         close every API connection unanswered
  GET  /control/bits?device=D                                   the device's stored bits (or null)
  GET  /control/stats    counts: query, update, exchange requests, refusals by reason, transaction ids seen
  POST /control/reset    forget devices, bits, receipts, modes and counters

Usage: fake_apple.py --key KEY.p8 [--key-id ID] [--team-id TEAM] [--port 0]
Prints "LISTENING <port>" on stdout once it accepts connections; exits when its parent does.
"""
import argparse
import base64
import binascii
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_google import ec_public_from_pkcs8, es256_valid, split_jwt, watch_parent  # noqa: E402

MONTH = re.compile(r"^[0-9]{4}-(0[1-9]|1[0-2])$")
NEVER_SET = b"Failed to find bit state"


def b64decode_strict(text):
    if not isinstance(text, str) or not text:
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def simulated_device(token):
    """The physical device a simulated iPhone's token names (SimulatedDevice.deviceCheckToken), or None."""
    raw = b64decode_strict(token) or b""
    if not raw.startswith(b"simdc1:"):
        return None
    device, separator, _ = raw[len(b"simdc1:"):].partition(b":")
    if not separator or not device:
        return None
    try:
        return device.decode("ascii")
    except UnicodeDecodeError:
        return None


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.devices = {}  # device token -> physical device
        self.bits = {}  # physical device -> {"bit0", "bit1", "last_update_time"}
        self.receipts = {}  # base64 receipt (canonical) -> {"answer": b64} or {"status": n}
        self.month = None
        self.devicecheck_status = 200
        self.exchange_status = 200
        self.hang = 0
        self.down = False
        self.stats = {"query_requests": 0, "update_requests": 0, "exchange_requests": 0, "refusals": {},
                      "transaction_ids": 0}
        self.transactions = set()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    config = None
    state = None

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", content_type="text/plain"):
        data = json.dumps(body).encode() if not isinstance(body, bytes) else body
        if not isinstance(body, bytes):
            content_type = "application/json"
        self.send_response(status)
        if status != 304:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data) if status != 304 else 0))
        self.end_headers()
        if status != 304:
            self.wfile.write(data)

    def refuse(self, status, why, text):
        with self.state.lock:
            refusals = self.state.stats["refusals"]
            refusals[why] = refusals.get(why, 0) + 1
        self.reply(status, text.encode())

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        if self.path == "/control/stats":
            with self.state.lock:
                return self.reply(200, self.state.stats)
        if self.path.startswith("/control/bits?device="):
            from urllib.parse import unquote
            device = unquote(self.path.split("=", 1)[1])
            with self.state.lock:
                return self.reply(200, self.state.bits.get(device))
        self.reply(404, {"error": "not_found"})

    def do_POST(self):
        raw = self.body()
        if self.path == "/v1/query_two_bits":
            return self.two_bits(raw, update=False)
        if self.path == "/v1/update_two_bits":
            return self.two_bits(raw, update=True)
        if self.path == "/v1/attestationData":
            return self.exchange(raw)
        if self.path.startswith("/control/"):
            return self.control(self.path, raw)
        self.reply(404, {"error": "not_found"})

    # --- the JWT, as Apple checks it ----------------------------------------------------------------

    def jwt_valid(self, token):
        try:
            header, claims, signing_input, signature = split_jwt(token)
        except (ValueError, json.JSONDecodeError, UnicodeDecodeError):
            return False
        key_id, team_id = self.config["key_id"], self.config["team_id"]
        return (header.get("alg") == "ES256" and (not key_id or header.get("kid") == key_id)
                and (not team_id or claims.get("iss") == team_id) and isinstance(claims.get("iat"), int)
                and es256_valid(self.config["ec_public"], signing_input, signature))

    def wait_and_status(self, api):
        with self.state.lock:
            hang, down = self.state.hang, self.state.down
            status = self.state.devicecheck_status if api == "devicecheck" else self.state.exchange_status
        if hang:
            time.sleep(hang)
        if down:
            # Apple unreachable: the connection closes without an answer.
            self.close_connection = True
            return None
        return status

    # --- DeviceCheck two bits ---------------------------------------------------------------------

    def current_month(self):
        with self.state.lock:
            month = self.state.month
        return month or time.strftime("%Y-%m", time.gmtime())

    def two_bits(self, raw, update):
        with self.state.lock:
            self.state.stats["update_requests" if update else "query_requests"] += 1
        status = self.wait_and_status("devicecheck")
        if status is None:
            return
        if status != 200:
            return self.reply(status, b"forced by the fake")
        authorization = self.headers.get("Authorization") or ""
        if not authorization.startswith("Bearer ") or not self.jwt_valid(authorization[7:]):
            return self.refuse(401, "jwt", "Unable to verify authorization token")
        try:
            body = json.loads(raw)
            token, transaction, stamp = body["device_token"], body["transaction_id"], body["timestamp"]
            assert isinstance(transaction, str) and transaction and isinstance(stamp, int)
            assert not isinstance(stamp, bool) and b64decode_strict(token) is not None
            bits = {name: body[name] for name in ("bit0", "bit1") if name in body}
            assert all(isinstance(value, bool) for value in bits.values())
        except (json.JSONDecodeError, KeyError, TypeError, AssertionError):
            return self.refuse(400, "payload", "Missing or incorrectly formatted device token payload")
        with self.state.lock:
            device = self.state.devices.get(token) or simulated_device(token)
            if transaction not in self.state.transactions:
                self.state.transactions.add(transaction)
                self.state.stats["transaction_ids"] += 1
        if device is None:
            return self.refuse(400, "device_token", "Missing or incorrectly formatted device token payload")
        if update:
            month = self.current_month()
            with self.state.lock:
                stored = self.state.bits.get(device, {"bit0": False, "bit1": False})
                stored = dict(stored, **bits, last_update_time=month)
                self.state.bits[device] = stored
            return self.reply(200, b"")
        with self.state.lock:
            stored = self.state.bits.get(device)
        if stored is None:
            return self.reply(200, NEVER_SET)
        self.reply(200, stored)

    # --- App Attest receipt exchange ----------------------------------------------------------------

    def exchange(self, raw):
        with self.state.lock:
            self.state.stats["exchange_requests"] += 1
        status = self.wait_and_status("exchange")
        if status is None:
            return
        if status != 200:
            return self.reply(status, b"forced by the fake")
        authorization = self.headers.get("Authorization") or ""
        if not self.jwt_valid(authorization):
            return self.refuse(401, "jwt", "Unable to verify authorization token")
        receipt = b64decode_strict(raw.decode("ascii", "replace").strip())
        if receipt is None:
            return self.refuse(400, "receipt", "Invalid receipt")
        with self.state.lock:
            answer = self.state.receipts.get(base64.b64encode(receipt).decode())
        if answer is None:
            return self.refuse(400, "receipt_unknown", "Invalid receipt")
        if "status" in answer:
            return self.reply(answer["status"], b"")
        self.reply(200, answer["answer"].encode(), "application/octet-stream")

    # --- control ------------------------------------------------------------------------------------

    def control(self, path, raw):
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            return self.reply(400, {"error": "bad json"})
        with self.state.lock:
            if path == "/control/reset":
                self.state.reset()
            elif path == "/control/device":
                self.state.devices[body["token"]] = str(body["device"])
            elif path == "/control/bits":
                device = str(body["device"])
                if body.get("clear"):
                    self.state.bits.pop(device, None)
                else:
                    month = body.get("last_update_time", "")
                    if not MONTH.match(month):
                        return self.reply(400, {"error": "last_update_time must be YYYY-MM"})
                    self.state.bits[device] = {"bit0": bool(body.get("bit0")), "bit1": bool(body.get("bit1")),
                                               "last_update_time": month}
            elif path == "/control/month":
                month = body.get("month")
                if month is not None and not MONTH.match(month):
                    return self.reply(400, {"error": "month must be YYYY-MM"})
                self.state.month = month
            elif path == "/control/receipt":
                receipt = b64decode_strict(body.get("receipt"))
                if receipt is None:
                    return self.reply(400, {"error": "receipt must be base64"})
                key = base64.b64encode(receipt).decode()
                if "status" in body:
                    self.state.receipts[key] = {"status": int(body["status"])}
                else:
                    self.state.receipts[key] = {"answer": body["answer"]}
            elif path == "/control/status":
                self.state.devicecheck_status = int(body.get("devicecheck", self.state.devicecheck_status))
                self.state.exchange_status = int(body.get("exchange", self.state.exchange_status))
                self.state.hang = float(body.get("hang", self.state.hang))
                self.state.down = bool(body.get("down", self.state.down))
            else:
                return self.reply(404, {"error": "not_found"})
        self.reply(200, {"ok": True})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--key", required=True, help=".p8 (PKCS#8 P-256) whose public half verifies the JWTs")
    parser.add_argument("--key-id")
    parser.add_argument("--team-id")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    with open(args.key) as handle:
        public = ec_public_from_pkcs8(handle.read())
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    Handler.config = {"ec_public": public, "key_id": args.key_id, "team_id": args.team_id}
    Handler.state = State()
    watch_parent()
    print("LISTENING %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
