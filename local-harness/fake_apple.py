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
                               the same JWT checks), a base64 body. A receipt registered with /control/receipt
                               gets what was registered: 200 with a given receipt (base64), or a status (304,
                               400, 401, 404, 429, 5xx). Otherwise, once /control/receipt-signer has given the
                               fake a receipt signer (the test's simulated Apple CA), the fake acts as Apple:
                               it reads the receipt's app id, credential certificate and environment (DER
                               PKCS#7 as the simulated devices make them), and answers a RECEIPT it signs
                               itself: field 17 the risk metric of the key's physical device (/control/metric,
                               else how many keys were registered for that device with /control/key, at
                               least 1). The physical device is the one /control/key names, else the one the
                               simulated device wrote into the credential certificate ("simdevice:<id>;",
                               SimulatedDevice.physicalID). Field 19 not-before = now + a day, field 21 expiry =
                               now + 30 days. A RECEIPT the fake issued, exchanged again before its
                               not-before, answers 304. Anything else is 400.

Control (same port):
  POST /control/device   {"token": T, "device": D}              device token T belongs to physical device D
  POST /control/bits     {"device": D, "bit0": b, "bit1": b, "last_update_time": "2026-01"}  plant a state
                         {"device": D, "clear": true}           forget D's bits (never set again)
  POST /control/month    {"month": "2026-12"}                   the month updates are stamped with (default:
                                                                the real UTC month)
  POST /control/receipt  {"receipt": B64, "answer": B64}        the exchange of B64 answers 200 with answer
                         {"receipt": B64, "status": 304}        ... answers that status instead
  POST /control/receipt-signer {"key": PKCS8 PEM, "certificates": [B64 DER signer, B64 DER receipt CA]}
  POST /control/key      {"keyId": B64, "device": D}            the App Attest key keyId lives on physical device D
  POST /control/metric   {"device": D, "metric": 12}            the risk metric Apple reports for D's keys
  POST /control/clock    {"offset": seconds}                    shift the fake's clock (receipt times, 304)
  POST /control/status   {"devicecheck": 503, "exchange": 503}  answer every call to that API with the status
                         {"hang": 5}                            accept calls and answer after N seconds
                         {"down": true}                         close every API connection unanswered
  GET  /control/bits?device=D                                   the device's stored bits (or null)
  GET  /control/stats    counts: query, update, exchange requests, refusals by reason, transaction ids seen
  POST /control/reset    forget devices, bits, receipts, modes and counters

Usage: fake_apple.py --key KEY.p8 [--key-id ID] [--team-id TEAM] [--receipt-signer-dir DIR] [--port 0]
--receipt-signer-dir: a synthetic CA saved by `attestgate-demo ca` (receipt-signer.pem, receipt-signer-key.pem,
receipt-ca.pem): the receipt signer from the start (and after /control/reset), as /control/receipt-signer sets it.
Prints "LISTENING <port>" on stdout once it accepts connections; exits when its parent does.
"""
import argparse
import base64
import binascii
import json
import hashlib
import os
import re
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_google import (G, N, der_children, der_read, ec_mul, ec_public_from_pkcs8, es256_valid,  # noqa: E402
                         pem_body, split_jwt, watch_parent)

MONTH = re.compile(r"^[0-9]{4}-(0[1-9]|1[0-2])$")
NEVER_SET = b"Failed to find bit state"
# The simulated devices name their physical device in a private extension of the credential certificate.
SIMULATED_DEVICE = re.compile(rb"simdevice:([0-9A-Za-z_-]{1,64});")


def b64decode_strict(text):
    if not isinstance(text, str) or not text:
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


# --- RECEIPT receipts, signed as Apple signs them (DER PKCS#7, one signer, no signed attributes) -----


def tlv(tag, value):
    length = len(value)
    if length < 0x80:
        head = bytes([length])
    else:
        raw = length.to_bytes((length.bit_length() + 7) // 8, "big")
        head = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + head + value


def der_int(value):
    raw = value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big")
    return tlv(0x02, raw)


def oid(dotted):
    parts = [int(p) for p in dotted.split(".")]
    body = bytes([40 * parts[0] + parts[1]])
    for part in parts[2:]:
        chunk = [part & 0x7F]
        part >>= 7
        while part:
            chunk.insert(0, 0x80 | (part & 0x7F))
            part >>= 7
        body += bytes(chunk)
    return tlv(0x06, body)


def ec_private_from_pkcs8(pem):
    _, outer, _ = der_read(pem_body(pem), 0)
    _, ec_key, _ = der_read(der_children(outer)[2][1], 0)
    return int.from_bytes(der_children(ec_key)[1][1], "big")


def es256_sign_der(d, message):
    z = int.from_bytes(hashlib.sha256(message).digest(), "big")
    while True:
        k = secrets.randbelow(N - 1) + 1
        r = ec_mul(k, G)[0] % N
        s = pow(k, -1, N) * (z + r * d) % N
        if r and s:
            return tlv(0x30, der_int(r) + der_int(s))


def receipt_fields(receipt):
    """{field number: bytes} of a DER PKCS#7 receipt's content, or None."""
    try:
        _, content_info, _ = der_read(receipt, 0)
        explicit = der_children(content_info)[1][1]
        _, signed_data, _ = der_read(explicit, 0)
        encap = der_children(signed_data)[2][1]
        _, octets, _ = der_read(der_children(encap)[1][1], 0)
        _, attributes, _ = der_read(octets, 0)
        fields = {}
        for _, attribute in der_children(attributes):
            number, _, value = der_children(attribute)
            fields[int.from_bytes(number[1], "big")] = value[1]
        return fields
    except (IndexError, ValueError):
        return None


def credential_key_id(certificate):
    """SHA-256 of the credential certificate's X9.62 point: the App Attest key id."""
    _, cert, _ = der_read(certificate, 0)
    tbs = der_children(der_children(cert)[0][1])
    spki = tbs[6][1] if tbs[0][0] == 0xA0 else tbs[5][1]
    point = der_children(spki)[1][1][1:]
    return hashlib.sha256(point).digest()


def iso8601(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(seconds))


def sign_receipt(signer, content):
    certificates = signer["certificates"]
    _, cert, _ = der_read(certificates[0], 0)
    tbs = der_children(der_children(cert)[0][1])
    serial, issuer = (tbs[1], tbs[3]) if tbs[0][0] == 0xA0 else (tbs[0], tbs[2])
    sha256 = tlv(0x30, oid("2.16.840.1.101.3.4.2.1") + b"\x05\x00")
    signer_info = tlv(0x30, der_int(1) + tlv(0x30, tlv(0x30, issuer[1]) + tlv(0x02, serial[1])) + sha256
                      + tlv(0x30, oid("1.2.840.10045.4.3.2")) + tlv(0x04, es256_sign_der(signer["d"], content)))
    signed_data = tlv(0x30, der_int(1) + tlv(0x31, sha256)
                      + tlv(0x30, oid("1.2.840.113549.1.7.1") + tlv(0xA0, tlv(0x04, content)))
                      + tlv(0xA0, b"".join(certificates)) + tlv(0x31, signer_info))
    return tlv(0x30, oid("1.2.840.113549.1.7.2") + tlv(0xA0, signed_data))


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
    default_signer = None  # from --receipt-signer-dir

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.devices = {}  # device token -> physical device
        self.bits = {}  # physical device -> {"bit0", "bit1", "last_update_time"}
        self.receipts = {}  # base64 receipt (canonical) -> {"answer": b64} or {"status": n}
        self.signer = State.default_signer  # {"d": int, "certificates": [DER]}
        self.key_devices = {}  # key id (hex) -> physical device
        self.metrics = {}  # physical device -> risk metric
        self.issued = {}  # base64 RECEIPT the fake signed -> its not-before (epoch seconds)
        self.clock_offset = 0
        self.month = None
        self.devicecheck_status = 200
        self.exchange_status = 200
        self.hang = 0
        self.down = False
        self.stats = {"query_requests": 0, "update_requests": 0, "exchange_requests": 0, "refusals": {},
                      "transaction_ids": 0, "receipts_issued": 0, "not_modified": 0}
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
        key = base64.b64encode(receipt).decode()
        with self.state.lock:
            answer = self.state.receipts.get(key)
            signer = self.state.signer
            not_before = self.state.issued.get(key)
            now = time.time() + self.state.clock_offset
        if answer is not None:
            if "status" in answer:
                return self.reply(answer["status"], b"")
            return self.reply(200, answer["answer"].encode(), "application/octet-stream")
        fields = receipt_fields(receipt) if signer else None
        if fields is None or 2 not in fields or 3 not in fields:
            return self.refuse(400, "receipt_unknown", "Invalid receipt")
        if not_before is not None and now < not_before:
            with self.state.lock:
                self.state.stats["not_modified"] += 1
            return self.reply(304)
        try:
            key_id = credential_key_id(fields[3]).hex()
        except (IndexError, ValueError):
            return self.refuse(400, "receipt_certificate", "Invalid receipt")
        marked = SIMULATED_DEVICE.search(fields[3])
        with self.state.lock:
            device = self.state.key_devices.get(key_id) or (marked.group(1).decode() if marked else None)
            metric = self.state.metrics.get(device) if device is not None else None
            if metric is None:
                metric = max(1, sum(1 for d in self.state.key_devices.values() if d == device))
        issued_at = int(now)
        content = tlv(0x31, b"".join(
            tlv(0x30, der_int(number) + der_int(1) + tlv(0x04, value)) for number, value in [
                (2, fields[2]), (3, fields[3]), (4, "\ufffd\ufffd".encode()), (5, b"fake-apple-receipt-token"),
                (6, b"RECEIPT"), (7, fields.get(7, b"production")), (12, iso8601(issued_at).encode()),
                (17, str(metric).encode()), (19, iso8601(issued_at + 86400).encode()),
                (21, iso8601(issued_at + 30 * 86400).encode()),
            ]))
        issued = sign_receipt(signer, content)
        with self.state.lock:
            self.state.issued[base64.b64encode(issued).decode()] = issued_at + 86400
            self.state.stats["receipts_issued"] += 1
        self.reply(200, base64.b64encode(issued), "application/octet-stream")

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
            elif path == "/control/receipt-signer":
                certificates = [b64decode_strict(c) for c in body.get("certificates") or []]
                if not certificates or any(c is None for c in certificates):
                    return self.reply(400, {"error": "certificates must be base64 DER"})
                self.state.signer = {"d": ec_private_from_pkcs8(body["key"]), "certificates": certificates}
            elif path == "/control/key":
                key_id = b64decode_strict(body.get("keyId"))
                if key_id is None:
                    return self.reply(400, {"error": "keyId must be base64"})
                self.state.key_devices[key_id.hex()] = str(body["device"])
            elif path == "/control/metric":
                self.state.metrics[str(body["device"])] = int(body["metric"])
            elif path == "/control/clock":
                self.state.clock_offset = float(body.get("offset", 0))
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
    parser.add_argument("--receipt-signer-dir", help="a saved synthetic CA whose receipt signer signs RECEIPTs")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.receipt_signer_dir:
        def read(name):
            with open(os.path.join(args.receipt_signer_dir, name)) as handle:
                return handle.read()
        State.default_signer = {"d": ec_private_from_pkcs8(read("receipt-signer-key.pem")),
                                "certificates": [pem_body(read("receipt-signer.pem")),
                                                 pem_body(read("receipt-ca.pem"))]}
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
