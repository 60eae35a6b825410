#!/usr/bin/env python3
"""Loopback stand-ins for Google (OAuth token endpoint, Play Integrity decode and device recall) and Apple DeviceCheck.

Standard library only. One HTTP server on 127.0.0.1 serves:

  POST /token                                   Google's JWT-bearer token endpoint. The assertion's RS256
                                                signature is verified against the service account's public
                                                key (derived from the service-account JSON given at start),
                                                and its claims: kid = private_key_id, iss = client_email,
                                                scope has the playintegrity scope, aud = this endpoint's URL,
                                                exp - iat <= 3600, and (unless --no-clock-check) iat/exp
                                                around the real time. Answers {"access_token", "expires_in",
                                                "token_type"} or 400 invalid_grant.
  POST /v1/{package}:decodeIntegrityToken       Play Integrity decode. Needs "Authorization: Bearer <a token
                                                this server issued>" (else 401), then answers the verdict
                                                registered for the body's integrityToken (else 400
                                                INVALID_ARGUMENT), wrapped as {"tokenPayloadExternal": ...}.
                                                With an activity level set (below), a verdict that carries no
                                                deviceIntegrity.recentDeviceActivity answers that level. A
                                                token registered for a physical device (below) answers that
                                                device's deviceIntegrity.deviceRecall and activity level.
  POST /v1/{package}/deviceRecall:write         Play Integrity device recall write. Needs our bearer token like
                                                decode (else 401); body {"integrityToken": T, "newValues":
                                                {"bitFirst": bool, ...}}: T must be a token registered for a
                                                physical device with this package (else 400 INVALID_ARGUMENT).
                                                The bits given are stored on that device (a bit left out keeps
                                                its value; a set bit's write date is this month, UTC); answers {}.
  POST /v1/validate_device_token                Apple DeviceCheck. Needs "Authorization: Bearer <ES256 JWT>"
                                                whose signature verifies with the public half of the .p8 key
                                                given at start (kid, iss checked when configured), then 200
                                                for a registered device token, else 400.

Control (same port):
  POST /control/token       {"status": 401}             answer the token endpoint with this status (200 = normal)
                            {"expires_in": 3599}        lifetime of issued tokens
  POST /control/decode      {"status": 500}             answer every decode with this status (200 = normal)
                            {"hang": 30}                accept decodes and answer only after N seconds
  POST /control/verdict     {"token": T, "payload": {...}}     register a verdict (inner payload or a whole
                            {"token": T, "fixture": "decode_standard_pass_minimal.json"}  body); "status": N
                                                        makes that token answer with an error status instead
                            {"token": T, "fixture": F, "deviceActivityLevel": "LEVEL_4"}  the same verdict with
                                                        deviceIntegrity.recentDeviceActivity at that level
  POST /control/activity    {"level": "LEVEL_4"}        deviceActivityLevel for every verdict without its own
                            {"level": null}             none (the field stays absent: UNEVALUATED)
  Physical devices (device recall and activity per phone; one phone can mint tokens for many device IDs):
                            /control/verdict {..., "device": D}  the token was made on physical device D: its
                                                        decode carries D's deviceRecall (proto3 JSON: only true
                                                        bits, dates only for set bits) and D's activity level
  POST /control/device      {"device": D, "activity": "LEVEL_4", "recall": {"bitFirst": true}, "writeDates":
                            {"yyyymmFirst": 202401}}    set D's activity level (null: none) and recall bits
  POST /control/recall      {"enabled": false}          verdicts carry no deviceRecall (recall not turned on)
                            {"status": 500}             answer every write with this status (200 = normal)
                            {"hang": S}                 accept writes and answer only after S seconds
                            {"raw": {...}}              every device's deviceRecall is this value (bad shapes)
                            {"propagationSeconds": 30}  a write shows in verdicts only this long after it
                                                        (Google documents up to 30 s; 0 = at once)
  POST /control/devicecheck {"token": T, "valid": true} register a DeviceCheck device token; {"status": N} for all
                                                 requests; {"hang": S} waits S seconds before every answer
  GET  /control/stats       counts of requests per endpoint, decodes per token, recall writes per device
  GET  /control/device?device=D   D's recall bits, write dates and activity level
  POST /control/reset       forget modes, verdicts and counters (issued access tokens stay valid)

Usage: fake_google.py [--service-account SA.json] [--devicecheck-key KEY.p8 --devicecheck-key-id ID
       --devicecheck-team-id TEAM] [--fixtures DIR] [--port 0] [--no-clock-check]
Prints "LISTENING <port>" on stdout once it accepts connections.
"""
import argparse
import base64
import hashlib
import json
import os
import re
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PLAY_SCOPE = "https://www.googleapis.com/auth/playintegrity"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
DECODE_PATH = re.compile(r"^/v1/([A-Za-z0-9_.]+):decodeIntegrityToken$")
RECALL_WRITE_PATH = re.compile(r"^/v1/([A-Za-z0-9_.]+)/deviceRecall:write$")
RECALL_BITS = ("bitFirst", "bitSecond", "bitThird")
RECALL_DATES = {"bitFirst": "yyyymmFirst", "bitSecond": "yyyymmSecond", "bitThird": "yyyymmThird"}


# ---------------------------------------------------------------------------------------------------
# Minimal DER reading (enough for PKCS#8 RSA and EC private keys)


def der_read(data, offset):
    """Returns (tag, value, next_offset) of the TLV at offset."""
    tag = data[offset]
    length = data[offset + 1]
    offset += 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(data[offset:offset + count], "big")
        offset += count
    return tag, data[offset:offset + length], offset + length


def der_children(value):
    out, offset = [], 0
    while offset < len(value):
        tag, child, offset = der_read(value, offset)
        out.append((tag, child))
    return out


def pem_body(text):
    lines = [line.strip() for line in text.strip().splitlines() if line.strip() and not line.startswith("-----")]
    return base64.b64decode("".join(lines))


def rsa_public_from_pkcs8(pem):
    """(n, e) from a PKCS#8 'BEGIN PRIVATE KEY' RSA key."""
    _, outer, _ = der_read(pem_body(pem), 0)
    fields = der_children(outer)  # version, algorithm, privateKey OCTET STRING
    _, rsa, _ = der_read(fields[2][1], 0)
    numbers = der_children(rsa)  # version, n, e, d, ...
    return int.from_bytes(numbers[1][1], "big"), int.from_bytes(numbers[2][1], "big")


# ---------------------------------------------------------------------------------------------------
# RS256 verification (RSASSA-PKCS1-v1_5 with SHA-256, RFC 8017 section 8.2.2)

SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")


def rs256_valid(n, e, message, signature):
    k = (n.bit_length() + 7) // 8
    if len(signature) != k:
        return False
    s = int.from_bytes(signature, "big")
    if s >= n:
        return False
    em = pow(s, e, n).to_bytes(k, "big")
    t = SHA256_DIGEST_INFO + hashlib.sha256(message).digest()
    expected = b"\x00\x01" + b"\xff" * (k - len(t) - 3) + b"\x00" + t
    return secrets.compare_digest(em, expected)


# ---------------------------------------------------------------------------------------------------
# ES256 verification on P-256 (FIPS 186-4), affine arithmetic; slow but fine for a test fake

P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
A = P - 3
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
     0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)


def ec_add(p1, p2):
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    if p1[0] == p2[0] and (p1[1] + p2[1]) % P == 0:
        return None
    if p1 == p2:
        slope = (3 * p1[0] * p1[0] + A) * pow(2 * p1[1], -1, P) % P
    else:
        slope = (p2[1] - p1[1]) * pow(p2[0] - p1[0], -1, P) % P
    x = (slope * slope - p1[0] - p2[0]) % P
    return x, (slope * (p1[0] - x) - p1[1]) % P


def ec_mul(k, point):
    result = None
    while k:
        if k & 1:
            result = ec_add(result, point)
        point = ec_add(point, point)
        k >>= 1
    return result


def ec_public_from_pkcs8(pem):
    """The public point of a PKCS#8 P-256 key (Apple's .p8)."""
    _, outer, _ = der_read(pem_body(pem), 0)
    fields = der_children(outer)
    _, ec_key, _ = der_read(fields[2][1], 0)
    d = int.from_bytes(der_children(ec_key)[1][1], "big")
    return ec_mul(d, G)


def es256_valid(public, message, signature):
    if len(signature) != 64:
        return False
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    if not (1 <= r < N and 1 <= s < N):
        return False
    z = int.from_bytes(hashlib.sha256(message).digest(), "big")
    w = pow(s, -1, N)
    point = ec_add(ec_mul(z * w % N, G), ec_mul(r * w % N, public))
    return point is not None and point[0] % N == r


# ---------------------------------------------------------------------------------------------------
# JWT helpers


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def split_jwt(token):
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("not three segments")
    header = json.loads(b64url_decode(parts[0]))
    claims = json.loads(b64url_decode(parts[1]))
    return header, claims, (parts[0] + "." + parts[1]).encode(), b64url_decode(parts[2])


# ---------------------------------------------------------------------------------------------------


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.issued = set()
        self.reset()

    def reset(self):
        self.token_status = 200
        self.expires_in = 3599
        self.decode_status = 200
        self.decode_hang = 0
        self.verdicts = {}
        self.activity_level = None
        self.devicecheck_tokens = {}
        self.devicecheck_status = 200
        self.devicecheck_hang = 0
        # Physical devices: {id: {"bits": {bit: bool}, "dates": {bit: yyyymm}, "activity": level or None}}.
        self.devices = {}
        self.token_devices = {}
        self.recall_enabled = True
        self.recall_status = 200
        self.recall_hang = 0
        self.recall_raw = None
        self.recall_propagation = 0
        self.stats = {"token_requests": 0, "tokens_issued": 0, "token_refusals": {}, "decode_requests": 0,
                      "decodes_by_token": {}, "devicecheck_requests": 0, "recall_write_requests": 0,
                      "recall_writes_by_device": {}}

    def device(self, name):
        return self.devices.setdefault(name, {"bits": {bit: False for bit in RECALL_BITS}, "dates": {},
                                              "activity": None, "pending": []})

    def visible(self, name):
        """A device's state with the writes whose propagation time has passed applied."""
        device = self.device(name)
        now = time.time()
        while device["pending"] and device["pending"][0][0] <= now:
            _, values, month = device["pending"].pop(0)
            apply_recall(device, values, month)
        return device

    def recall_json(self, name):
        """A device's deviceRecall as proto3 JSON prints it: false bits and unset dates left out."""
        if self.recall_raw is not None:
            return self.recall_raw
        device = self.visible(name)
        values = {bit: True for bit in RECALL_BITS if device["bits"][bit]}
        dates = {RECALL_DATES[bit]: month for bit, month in device["dates"].items() if device["bits"][bit]}
        return {"values": values, "writeDates": dates}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    config = None
    state = None

    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode() if not isinstance(body, bytes) else body
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        if self.path == "/control/stats":
            with self.state.lock:
                return self.reply(200, self.state.stats)
        if self.path.startswith("/control/device?device="):
            from urllib.parse import unquote
            name = unquote(self.path.split("=", 1)[1])
            with self.state.lock:
                device = self.state.visible(name)
                return self.reply(200, {"bits": device["bits"], "dates": device["dates"],
                                        "activity": device["activity"]})
        self.reply(404, {"error": "not_found"})

    def do_POST(self):
        raw = self.body()
        path = self.path
        if path == "/token":
            return self.token(raw)
        match = DECODE_PATH.match(path)
        if match:
            return self.decode(match.group(1), raw)
        match = RECALL_WRITE_PATH.match(path)
        if match:
            return self.recall_write(match.group(1), raw)
        if path == "/v1/validate_device_token":
            return self.devicecheck(raw)
        if path.startswith("/control/"):
            return self.control(path, raw)
        self.reply(404, {"error": "not_found"})

    # --- Google OAuth token endpoint --------------------------------------------------------------

    def refuse_grant(self, why, description="Invalid JWT Signature."):
        with self.state.lock:
            refusals = self.state.stats["token_refusals"]
            refusals[why] = refusals.get(why, 0) + 1
        self.reply(400, {"error": "invalid_grant", "error_description": description})

    def token(self, raw):
        with self.state.lock:
            self.state.stats["token_requests"] += 1
            status, expires_in = self.state.token_status, self.state.expires_in
        if status != 200:
            return self.reply(status, {"error": "invalid_grant" if status < 500 else "internal_failure",
                                       "error_description": "forced by the test"})
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/x-www-form-urlencoded":
            return self.reply(400, {"error": "invalid_request", "error_description": "bad content type"})
        form = dict(pair.split("=", 1) for pair in raw.decode().split("&") if "=" in pair)
        from urllib.parse import unquote_plus
        form = {k: unquote_plus(v) for k, v in form.items()}
        if form.get("grant_type") != JWT_BEARER:
            return self.reply(400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type"})
        try:
            header, claims, signing_input, signature = split_jwt(form.get("assertion", ""))
        except (ValueError, json.JSONDecodeError, UnicodeDecodeError):
            return self.refuse_grant("malformed")
        sa = self.config["service_account"]
        if header.get("alg") != "RS256" or sa["private_key_id"] is None or header.get("kid") != sa["private_key_id"]:
            return self.refuse_grant("header")
        if not rs256_valid(*self.config["rsa_public"], signing_input, signature):
            return self.refuse_grant("signature")
        iat, exp = claims.get("iat"), claims.get("exp")
        clock_description = ("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable "
                             "timeframe. Check your iat and exp values in the JWT claim.")
        if not isinstance(iat, int) or not isinstance(exp, int) or exp <= iat or exp - iat > 3600:
            return self.refuse_grant("lifetime", clock_description)
        now = int(time.time())
        if self.config["clock_check"] and (iat > now + 300 or exp < now):
            return self.refuse_grant("clock", clock_description)
        if claims.get("iss") != sa["client_email"]:
            return self.refuse_grant("iss")
        if PLAY_SCOPE not in str(claims.get("scope", "")).split(" "):
            return self.refuse_grant("scope", "Invalid OAuth scope or ID token audience provided.")
        if claims.get("aud") != self.config["token_url"]:
            return self.refuse_grant("aud", "Invalid JWT: audience")
        access = "fake." + secrets.token_urlsafe(24)
        with self.state.lock:
            self.state.issued.add(access)
            self.state.stats["tokens_issued"] += 1
        self.reply(200, {"access_token": access, "expires_in": expires_in, "token_type": "Bearer"})

    # --- Play Integrity decode --------------------------------------------------------------------

    def google_error(self, status):
        names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
        self.reply(status, {"error": {"code": status, "message": "forced by the fake",
                                      "status": names.get(status, "UNKNOWN")}})

    def decode(self, package, raw):
        authorization = self.headers.get("Authorization") or ""
        with self.state.lock:
            self.state.stats["decode_requests"] += 1
            authorised = authorization.startswith("Bearer ") and authorization[7:] in self.state.issued
            status, hang = self.state.decode_status, self.state.decode_hang
        if hang:
            time.sleep(hang)
        if status != 200:
            return self.google_error(status)
        if not authorised:
            return self.google_error(401)
        try:
            token = json.loads(raw).get("integrityToken")
        except (json.JSONDecodeError, AttributeError):
            token = None
        with self.state.lock:
            if isinstance(token, str):
                counts = self.state.stats["decodes_by_token"]
                counts[token] = counts.get(token, 0) + 1
            verdict = self.state.verdicts.get(token) if isinstance(token, str) else None
            activity = self.state.activity_level
            device = self.state.token_devices.get(token) if isinstance(token, str) else None
            recall = None
            if device is not None:
                activity = self.state.device(device)["activity"] or activity
                if self.state.recall_enabled:
                    recall = self.state.recall_json(device)
        if verdict is None:
            return self.google_error(400)
        if "status" in verdict:
            return self.google_error(verdict["status"])
        body = with_activity(verdict["body"], activity) if activity is not None else verdict["body"]
        if recall is not None:
            body = with_recall(body, recall)
        self.reply(200, body)

    # --- Play Integrity device recall write -------------------------------------------------------

    def recall_write(self, package, raw):
        authorization = self.headers.get("Authorization") or ""
        with self.state.lock:
            self.state.stats["recall_write_requests"] += 1
            authorised = authorization.startswith("Bearer ") and authorization[7:] in self.state.issued
            status, hang = self.state.recall_status, self.state.recall_hang
        if hang:
            time.sleep(hang)
        if status != 200:
            return self.google_error(status)
        if not authorised:
            return self.google_error(401)
        try:
            body = json.loads(raw)
            token, values = body["integrityToken"], body["newValues"]
            assert isinstance(token, str) and isinstance(values, dict) and values
            assert all(bit in RECALL_BITS and isinstance(value, bool) for bit, value in values.items())
        except (json.JSONDecodeError, KeyError, TypeError, AssertionError):
            return self.google_error(400)
        with self.state.lock:
            device = self.state.token_devices.get(token)
            verdict = self.state.verdicts.get(token) or {}
            payload = (verdict.get("body") or {}).get("tokenPayloadExternal") or {}
            requested = (payload.get("requestDetails") or {}).get("requestPackageName")
            if device is None or requested != package:
                device = None
            else:
                state = self.state.visible(device)
                month = int(time.strftime("%Y%m", time.gmtime()))
                if self.state.recall_propagation > 0:
                    state["pending"].append((time.time() + self.state.recall_propagation, values, month))
                else:
                    apply_recall(state, values, month)
                writes = self.state.stats["recall_writes_by_device"]
                writes[device] = writes.get(device, 0) + 1
        if device is None:
            return self.google_error(400)
        self.reply(200, {})

    # --- Apple DeviceCheck ------------------------------------------------------------------------

    def devicecheck(self, raw):
        with self.state.lock:
            self.state.stats["devicecheck_requests"] += 1
            status, hang = self.state.devicecheck_status, self.state.devicecheck_hang
        if hang:
            time.sleep(hang)
        if status != 200:
            return self.reply(status, b"forced by the fake")
        public = self.config.get("ec_public")
        authorization = self.headers.get("Authorization") or ""
        if public is None or not authorization.startswith("Bearer "):
            return self.reply(401, b"Missing or badly formatted authorization token")
        try:
            header, claims, signing_input, signature = split_jwt(authorization[7:])
        except (ValueError, json.JSONDecodeError, UnicodeDecodeError):
            return self.reply(401, b"Missing or badly formatted authorization token")
        key_id, team_id = self.config.get("devicecheck_key_id"), self.config.get("devicecheck_team_id")
        if (header.get("alg") != "ES256" or (key_id and header.get("kid") != key_id)
                or (team_id and claims.get("iss") != team_id) or not isinstance(claims.get("iat"), int)
                or not es256_valid(public, signing_input, signature)):
            return self.reply(401, b"Unable to verify authorization token")
        try:
            body = json.loads(raw)
            token, transaction, stamp = body["device_token"], body["transaction_id"], body["timestamp"]
            assert isinstance(token, str) and isinstance(transaction, str) and isinstance(stamp, int)
        except (json.JSONDecodeError, KeyError, TypeError, AssertionError):
            return self.reply(400, b"Missing or incorrectly formatted device token payload")
        with self.state.lock:
            valid = self.state.devicecheck_tokens.get(token, False)
        if not valid:
            return self.reply(400, b"Missing or incorrectly formatted device token payload")
        self.reply(200, b"")

    # --- control ----------------------------------------------------------------------------------

    def control(self, path, raw):
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            return self.reply(400, {"error": "bad json"})
        with self.state.lock:
            if path == "/control/reset":
                self.state.reset()
            elif path == "/control/token":
                self.state.token_status = int(body.get("status", self.state.token_status))
                self.state.expires_in = int(body.get("expires_in", self.state.expires_in))
            elif path == "/control/decode":
                self.state.decode_status = int(body.get("status", 200))
                self.state.decode_hang = float(body.get("hang", 0))
            elif path == "/control/verdict":
                token = body["token"]
                if "status" in body:
                    self.state.verdicts[token] = {"status": int(body["status"])}
                else:
                    if "fixture" in body:
                        with open(self.config["fixtures"] + "/" + os_basename(body["fixture"])) as handle:
                            payload = json.load(handle)
                    else:
                        payload = body["payload"]
                    if "tokenPayloadExternal" not in payload:
                        payload = {"tokenPayloadExternal": payload}
                    if "deviceActivityLevel" in body:
                        payload = with_activity(payload, body["deviceActivityLevel"], replace=True)
                    self.state.verdicts[token] = {"body": payload}
                if "device" in body:
                    self.state.device(str(body["device"]))
                    self.state.token_devices[token] = str(body["device"])
            elif path == "/control/device":
                device = self.state.device(str(body["device"]))
                if "activity" in body:
                    device["activity"] = body["activity"]
                for bit, value in (body.get("recall") or {}).items():
                    if bit in RECALL_BITS:
                        device["bits"][bit] = bool(value)
                        if not value:
                            device["dates"].pop(bit, None)
                for bit, date_key in RECALL_DATES.items():
                    if date_key in (body.get("writeDates") or {}):
                        device["dates"][bit] = int(body["writeDates"][date_key])
            elif path == "/control/recall":
                if "enabled" in body:
                    self.state.recall_enabled = bool(body["enabled"])
                if "status" in body:
                    self.state.recall_status = int(body["status"])
                if "hang" in body:
                    self.state.recall_hang = float(body["hang"])
                if "raw" in body:
                    self.state.recall_raw = body["raw"]
                if "propagationSeconds" in body:
                    self.state.recall_propagation = float(body["propagationSeconds"])
            elif path == "/control/activity":
                self.state.activity_level = body.get("level")
            elif path == "/control/devicecheck":
                if "status" in body:
                    self.state.devicecheck_status = int(body["status"])
                if "hang" in body:
                    self.state.devicecheck_hang = float(body["hang"])
                if "token" in body:
                    self.state.devicecheck_tokens[body["token"]] = bool(body.get("valid", True))
            else:
                return self.reply(404, {"error": "not_found"})
        self.reply(200, {"ok": True})


def with_activity(body, level, replace=False):
    """A copy of a decode answer whose deviceIntegrity.recentDeviceActivity says `level` (Google's spelling;
    anything else is passed through so that tests can send unknown values). Without `replace`, a verdict
    that already carries recentDeviceActivity keeps its own."""
    body = json.loads(json.dumps(body))
    payload = body.get("tokenPayloadExternal")
    if not isinstance(payload, dict):
        return body
    device = payload.setdefault("deviceIntegrity", {})
    if not isinstance(device, dict) or ("recentDeviceActivity" in device and not replace):
        return body
    device["recentDeviceActivity"] = {"deviceActivityLevel": level}
    return body


def apply_recall(device, values, month):
    """Stores written bits on a device: a set bit gets this month as its write date, a cleared one none."""
    for bit, value in values.items():
        device["bits"][bit] = value
        if value:
            device["dates"][bit] = month
        else:
            device["dates"].pop(bit, None)


def with_recall(body, recall):
    """A copy of a decode answer whose deviceIntegrity.deviceRecall is `recall` (a registered payload that
    carries its own deviceRecall keeps it)."""
    body = json.loads(json.dumps(body))
    payload = body.get("tokenPayloadExternal")
    if not isinstance(payload, dict):
        return body
    device = payload.setdefault("deviceIntegrity", {})
    if isinstance(device, dict) and "deviceRecall" not in device:
        device["deviceRecall"] = recall
    return body


def watch_parent():
    """Exit as soon as the process that started us is gone (a crashed test run must not leave us holding
    its output pipes open, or the test runner waits for EOF forever)."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def os_basename(name):
    return name.replace("\\", "/").rsplit("/", 1)[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--service-account", help="service-account JSON whose key signs assertions (without it, "
                        "the token endpoint refuses every assertion)")
    parser.add_argument("--devicecheck-key", help=".p8 (PKCS#8 P-256) whose public half verifies DeviceCheck JWTs")
    parser.add_argument("--devicecheck-key-id")
    parser.add_argument("--devicecheck-team-id")
    parser.add_argument("--fixtures", default=".", help="folder of decode_*.json for /control/verdict fixture")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--no-clock-check", action="store_true", help="skip iat/exp against the real time")
    args = parser.parse_args()

    service_account, rsa_public = {"private_key_id": None, "client_email": None}, (3, 1)
    if args.service_account:
        with open(args.service_account) as handle:
            service_account = json.load(handle)
        rsa_public = rsa_public_from_pkcs8(service_account["private_key"])
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    config = {
        "service_account": service_account,
        "rsa_public": rsa_public,
        "token_url": "http://127.0.0.1:%d/token" % port,
        "clock_check": not args.no_clock_check,
        "fixtures": args.fixtures,
        "devicecheck_key_id": args.devicecheck_key_id,
        "devicecheck_team_id": args.devicecheck_team_id,
    }
    if args.devicecheck_key:
        with open(args.devicecheck_key) as handle:
            config["ec_public"] = ec_public_from_pkcs8(handle.read())
    Handler.config = config
    Handler.state = State()
    watch_parent()
    print("LISTENING %d" % port, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
