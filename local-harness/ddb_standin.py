"""A local DynamoDB that refuses what DynamoDB refuses: WSGI middleware around moto_server.py's serialised app.

moto applies every request it is given. Real DynamoDB does not: it refuses a write to an item that an ongoing
transaction holds, cancels a transaction that meets another one, and throttles an item that is written faster
than one partition allows. A design that only ever ran against moto never meets those answers, and one that
cannot live with them (a hot counter row updated by every request, with no retry) looks correct locally and
fails in the region. This middleware puts those rules in front of moto. Each rule below names the page of the
DynamoDB Developer Guide or API Reference it models; local-harness/README.md lists them with what is NOT
modelled.

Rules (`--rules dynamodb`, the default; `--rules none` turns every one of them off):

  1. Each request is applied atomically: moto_server.py's one lock around the moto application (the app given
     to `StandIn` is that serialised app; this module never calls it while holding a lock of its own), so a
     conditional write is judged against the item as it stands, as "Conditional writes" describes for
     concurrent writers of one item ("Working with items and attributes", Developer Guide,
     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html#WorkingWithItems.ConditionalUpdate).
  2. Transaction holds. A TransactWriteItems holds every item it names (Put, Update, Delete, ConditionCheck;
     an item is the table plus the values of the table's key attributes, read once per table from
     DescribeTable) for `--txn-hold-ms`, then is applied, then lets go. While an item is held, a PutItem /
     UpdateItem / DeleteItem on it is refused with TransactionConflictException, another TransactWriteItems or
     a TransactGetItems naming it is cancelled (TransactionCanceledException, reason TransactionConflict), and
     GetItem / Query / Scan go through (read-committed).
  3. Per-item write throughput. A token bucket per item refills at `--item-wcu` WCU per second and holds
     `--item-burst-seconds` of it. A write costs its size in KB rounded up (at least 1); a transactional write
     costs twice that per item; a write refused by its condition has still paid. Over the limit: single writes
     get the throttling error (ThrottlingException on an on-demand table, ProvisionedThroughputExceededException
     on a provisioned one, or what `--throttle-error` says), transactions are cancelled with ThrottlingError
     (ProvisionedThroughputExceeded) for the item(s) short of capacity. A refused request is never applied.
  4. In-region latency per request kind (`--latency-ms KIND=MS`), slept outside every lock, half on the way in
     and half on the way out.

Counters: GET /standin/stats (JSON), POST /standin/reset-stats. Everything that is not a DynamoDB request
(`X-Amz-Target: DynamoDB_20120810.<Op>`), such as /moto-api/ or Secrets Manager, goes straight to the app.
"""
import collections
import io
import json
import math
import os
import re
import threading
import time
import uuid
import zlib

TARGET_PREFIX = "DynamoDB_20120810."
ERROR_PREFIX = "com.amazonaws.dynamodb.v20120810#"
SINGLE_WRITES = ("PutItem", "UpdateItem", "DeleteItem")
TABLE_CHANGES = ("CreateTable", "DeleteTable", "UpdateTable")
LATENCY_KINDS = ("GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "TransactWriteItems",
                 "TransactGetItems", "default")
THROTTLE_ERRORS = ("auto", "ThrottlingException", "ProvisionedThroughputExceededException")
DEFAULTS = {"rules": "dynamodb", "txn_hold_ms": 25.0, "item_wcu": 1000.0, "item_burst_seconds": 1.0,
            "throttle_error": "auto"}
ENVIRONMENT = {"rules": "DDB_STANDIN_RULES", "txn_hold_ms": "DDB_STANDIN_TXN_HOLD_MS",
               "item_wcu": "DDB_STANDIN_ITEM_WCU", "item_burst_seconds": "DDB_STANDIN_ITEM_BURST_SECONDS",
               "throttle_error": "DDB_STANDIN_THROTTLE_ERROR", "latency": "DDB_STANDIN_LATENCY"}

# The service's own message strings for these answers (clients match on the codes; some log the text).
# "Transaction is ongoing for the item" and the cancellation message listing the codes: API Reference,
# TransactWriteItems, Errors, TransactionCanceledException ("Cancellation reason codes and possible error
# messages"), https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
CONFLICT_MESSAGE = "Transaction is ongoing for the item"
CANCELLED_MESSAGE = "Transaction cancelled, please refer cancellation reasons for specific reasons [%s]"
# First sentences of the documented throttling messages: ThrottlingError (on-demand) and
# ProvisionedThroughputExceeded (provisioned) in the same list; ProvisionedThroughputExceededException in
# "Error handling with DynamoDB", https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
THROTTLED_ON_DEMAND = "Throughput exceeds the current capacity of your table or index."
THROTTLED_PROVISIONED = "The level of configured provisioned throughput for the table was exceeded."
THROTTLED_PROVISIONED_EXCEPTION = ("You exceeded your maximum allowed provisioned throughput for a table or for "
                                   "one or more global secondary indexes.")


class Config:
    """The stand-in's settings (flags win over DDB_STANDIN_* variables, which win over the defaults)."""

    def __init__(self, rules="dynamodb", txn_hold_ms=25.0, item_wcu=1000.0, item_burst_seconds=1.0,
                 throttle_error="auto", latency_ms=None):
        self.rules = rules
        self.txn_hold_ms = float(txn_hold_ms)
        self.item_wcu = float(item_wcu)
        self.item_burst_seconds = float(item_burst_seconds)
        self.throttle_error = throttle_error
        self.latency_ms = dict(latency_ms or {})

    @property
    def enabled(self):
        return self.rules != "none"

    def latency(self, op):
        """Seconds of modelled in-region latency for `op` (0 with --rules none)."""
        if not self.enabled:
            return 0.0
        if op == "TransactWriteItems":
            # The hold is the transaction's time in the region unless its latency is set: then the answer
            # comes no sooner than that after the request left, and no sooner than the hold either.
            return max(self.latency_ms.get(op, 0.0), self.txn_hold_ms) / 1000.0
        return self.latency_ms.get(op, self.latency_ms.get("default", 0.0)) / 1000.0

    def as_json(self):
        return {"rules": self.rules, "txnHoldMs": self.txn_hold_ms, "itemWcu": self.item_wcu,
                "itemBurstSeconds": self.item_burst_seconds, "throttleError": self.throttle_error,
                "latencyMs": dict(sorted(self.latency_ms.items()))}


def parse_latency(text, source):
    """`KIND=MS[,KIND=MS...]` -> {kind: ms}. Kinds: LATENCY_KINDS or any other DynamoDB operation name."""
    result = {}
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        kind, equals, value = part.partition("=")
        kind = kind.strip()
        try:
            ms = float(value)
        except ValueError:
            ms = -1.0
        if not equals or not re.fullmatch(r"[A-Za-z]+", kind) or ms < 0:
            raise ValueError("%s: %r is not KIND=MS (kinds: %s, or another operation name)"
                             % (source, part, ", ".join(LATENCY_KINDS)))
        result[kind] = ms
    return result


def add_arguments(parser):
    """The stand-in's flags, on moto_server.py's parser."""
    group = parser.add_argument_group("DynamoDB stand-in (local-harness/ddb_standin.py; env DDB_STANDIN_*)")
    group.add_argument("--rules", choices=("dynamodb", "none"), default=None,
                       help="dynamodb (default): holds, throughput, latency; none: plain atomic moto")
    group.add_argument("--txn-hold-ms", type=float, default=None, metavar="MS",
                       help="how long a TransactWriteItems holds its items (default 25)")
    group.add_argument("--item-wcu", type=float, default=None, metavar="WCU",
                       help="write capacity units per second one item can take (default 1000)")
    group.add_argument("--item-burst-seconds", type=float, default=None, metavar="S",
                       help="seconds of --item-wcu an idle item can spend at once (default 1.0)")
    group.add_argument("--throttle-error", choices=THROTTLE_ERRORS, default=None,
                       help="auto (default): ThrottlingException on on-demand tables, "
                            "ProvisionedThroughputExceededException on provisioned ones")
    group.add_argument("--latency-ms", action="append", default=[], metavar="KIND=MS",
                       help="in-region latency of a request kind (repeatable; kinds: %s)" % ", ".join(LATENCY_KINDS))


def config_from(args, environ=None, error=None):
    """Builds the Config from parsed flags and the environment; `error(message)` reports bad values."""
    environ = os.environ if environ is None else environ

    def fail(message):
        if error:
            error(message)
        raise ValueError(message)

    values = {}
    for name, default in DEFAULTS.items():
        flag = getattr(args, name, None)
        env_name = ENVIRONMENT[name]
        if flag is not None:
            values[name] = flag
        elif environ.get(env_name, "").strip():
            raw = environ[env_name].strip()
            if isinstance(default, float):
                try:
                    values[name] = float(raw)
                except ValueError:
                    fail("%s=%r is not a number" % (env_name, raw))
            else:
                values[name] = raw
        else:
            values[name] = default
    if values["rules"] not in ("dynamodb", "none"):
        fail("%s must be dynamodb or none, not %r" % (ENVIRONMENT["rules"], values["rules"]))
    if values["throttle_error"] not in THROTTLE_ERRORS:
        fail("%s must be one of %s" % (ENVIRONMENT["throttle_error"], ", ".join(THROTTLE_ERRORS)))
    if values["txn_hold_ms"] < 0 or values["item_wcu"] <= 0 or values["item_burst_seconds"] <= 0:
        fail("--txn-hold-ms must be >= 0, --item-wcu and --item-burst-seconds > 0")
    try:
        latency = parse_latency(environ.get(ENVIRONMENT["latency"], ""), ENVIRONMENT["latency"])
        for item in getattr(args, "latency_ms", None) or []:
            latency.update(parse_latency(item, "--latency-ms"))  # a flag wins over the variable, kind by kind
    except ValueError as problem:
        fail(str(problem))
    return Config(values["rules"], values["txn_hold_ms"], values["item_wcu"], values["item_burst_seconds"],
                  values["throttle_error"], latency)


# ---- item sizes -------------------------------------------------------------------------------------------
# "Item sizes and formats" (Developer Guide), https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html:
# an item's size is the sum of its attribute names' and values' lengths; strings count their UTF-8 bytes,
# numbers about one byte per two significant digits plus one, binaries their raw bytes, null and Boolean one
# byte, lists and maps 3 bytes plus their elements (and one byte per element).

def _number_size(text):
    digits = text.lstrip("+-").replace(".", "").split("e")[0].split("E")[0].strip("0")
    return (len(digits) + 1) // 2 + 1


def value_size(value):
    if not isinstance(value, dict) or len(value) != 1:
        return len(json.dumps(value))
    (kind, inner), = value.items()
    if kind == "S":
        return len(inner.encode("utf-8"))
    if kind == "N":
        return _number_size(inner)
    if kind == "B":
        return len(inner) * 3 // 4
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(s.encode("utf-8")) for s in inner)
    if kind == "NS":
        return sum(_number_size(n) for n in inner)
    if kind == "BS":
        return sum(len(b) * 3 // 4 for b in inner)
    if kind == "L":
        return 3 + sum(value_size(element) + 1 for element in inner)
    if kind == "M":
        return 3 + sum(len(name.encode("utf-8")) + value_size(element) + 1 for name, element in inner.items())
    return len(json.dumps(inner))


def item_size(attributes):
    return sum(len(name.encode("utf-8")) + value_size(value) for name, value in (attributes or {}).items())


def write_units(size):
    """WCU of one standard write of an item of `size` bytes: KB rounded up, at least 1.

    "DynamoDB read and write operations", Capacity unit consumption for write operations (Developer Guide),
    https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html#write-operation-consumption:
    one write unit per 1 KB, sizes rounded up to the next 1 KB; transactional writes take 2 per 1 KB.
    """
    return max(1, int(math.ceil(size / 1024.0)))


class TableInfo:
    def __init__(self, key_names, billing_mode, arn):
        self.key_names = key_names
        self.billing_mode = billing_mode
        self.arn = arn


class Refused(Exception):
    """A request the rules refuse: the body and the error name of its HTTP 400 answer."""

    def __init__(self, body, error_type):
        super().__init__(error_type)
        self.body = body
        self.error_type = error_type


class StandIn:
    """WSGI middleware: the rules above in front of `app` (moto's application behind moto_server.py's lock)."""

    TOP_ITEMS = 20

    def __init__(self, app, config):
        self.app = app
        self.config = config
        self.state = threading.Lock()  # holds, buckets, sizes, counters; never held while calling the app
        self.holds = {}                # item -> the id of the transaction holding it
        self.buckets = {}              # item -> [tokens, time of the last refill]
        self.hot = ""                  # POST /standin/hot: a key fragment whose items refuse every write
        self.sizes = {}                # item -> the largest size (bytes) this stand-in saw written to it
        self.tables = {}               # (region, table) -> TableInfo
        self.tables_lock = threading.Lock()
        self._reset_counters()

    # ---- counters ---------------------------------------------------------------------------------------
    def _reset_counters(self):
        self.operations = collections.Counter()
        self.wcu_by_item = collections.Counter()
        self.counts = collections.Counter()

    def stats(self):
        with self.state:
            top = self.wcu_by_item.most_common(self.TOP_ITEMS)
            return {
                "rules": self.config.rules,
                "config": self.config.as_json(),
                "operations": dict(sorted(self.operations.items())),
                "writes": self.counts["writes"],
                "transactions": self.counts["transactions"],
                "conflicts": self.counts["conflicts"],
                "cancelledConflict": self.counts["cancelledConflict"],
                "cancelledThrottled": self.counts["cancelledThrottled"],
                "throttled": self.counts["throttled"],
                "batchUnprocessed": self.counts["batchUnprocessed"],
                "holding": len(self.holds),
                "wcuTotal": sum(self.wcu_by_item.values()),
                "wcuByItem": {describe(item): units for item, units in top},
            }

    # ---- WSGI -------------------------------------------------------------------------------------------
    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path.startswith("/standin/"):
            return self._control(environ, start_response, path)
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        if not target.startswith(TARGET_PREFIX):
            return self.app(environ, start_response)  # moto-api, Secrets Manager, anything else: as it is
        op = target[len(TARGET_PREFIX):]
        with self.state:
            self.operations[op] += 1
        handler = {"PutItem": self._single_write, "UpdateItem": self._single_write,
                   "DeleteItem": self._single_write, "TransactWriteItems": self._transact_write,
                   "TransactGetItems": self._transact_get, "BatchWriteItem": self._batch_write}.get(op)
        latency = self.config.latency(op)
        if op in TABLE_CHANGES:
            return self._table_change(environ, start_response, latency)
        if handler is None and latency == 0:
            return self.app(environ, start_response)
        body = _read_body(environ)
        environ = _with_body(environ, body)
        if handler is not None:
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                request = None
            if not isinstance(request, dict):
                handler = None  # moto answers the malformed request as it does
        if handler is None or not self.config.enabled:
            if handler is not None:
                self._count_unruled(op, request)
            time.sleep(latency / 2)
            answer = self._call(environ)
            time.sleep(latency / 2)
            return _replay(answer, start_response)
        return handler(op, request, environ, start_response, latency)

    def _control(self, environ, start_response, path):
        method = environ.get("REQUEST_METHOD", "GET")
        if path == "/standin/stats" and method == "GET":
            return _json_answer(start_response, "200 OK", self.stats())
        if path == "/standin/hot" and method == "POST":
            # Items whose key contains `pattern` refuse every write for throughput from now on, as a
            # partition heated by a client's own traffic does ({"pattern": ""} cools them again).
            try:
                pattern = json.loads(_read_body(environ) or b"{}").get("pattern", "")
            except (ValueError, AttributeError):
                pattern = None
            if not isinstance(pattern, str):
                return _json_answer(start_response, "400 Bad Request", {"error": "{\"pattern\": \"...\"}"})
            with self.state:
                self.hot = pattern
            return _json_answer(start_response, "200 OK", {"hot": pattern})
        if path == "/standin/reset-stats" and method == "POST":
            with self.state:
                self._reset_counters()
            return _json_answer(start_response, "200 OK", {"reset": True})
        return _json_answer(start_response, "404 Not Found",
                            {"error": "GET /standin/stats, POST /standin/reset-stats or POST /standin/hot"})

    def _count_unruled(self, op, request):
        with self.state:
            if op in SINGLE_WRITES:
                self.counts["writes"] += 1
            elif op == "TransactWriteItems":
                self.counts["transactions"] += 1

    def _table_change(self, environ, start_response, latency):
        """CreateTable / DeleteTable / UpdateTable: forget what was read of that table, before and after."""
        body = _read_body(environ)
        environ = _with_body(environ, body)
        try:
            name = json.loads(body or b"{}").get("TableName")
        except (ValueError, AttributeError):
            name = None
        time.sleep(latency / 2)
        self._forget_table(environ, name)
        answer = self._call(environ)
        self._forget_table(environ, name)
        time.sleep(latency / 2)
        return _replay(answer, start_response)

    def _forget_table(self, environ, name):
        with self.tables_lock:
            self.tables.pop((_region(environ), name), None)

    # ---- calling the app --------------------------------------------------------------------------------
    def _call(self, environ):
        captured = {}

        def start_response(status, headers, exc_info=None):
            captured["status"], captured["headers"] = status, list(headers)
            return lambda data: None

        result = self.app(environ, start_response)
        try:
            data = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        return captured.get("status", "500 Internal Server Error"), captured.get("headers", []), data

    def _table(self, environ, name):
        """Key attribute names, billing mode and ARN of a table: DescribeTable through the app, once."""
        region = _region(environ)
        with self.tables_lock:
            info = self.tables.get((region, name))
        if info is not None or not isinstance(name, str):
            return info
        body = json.dumps({"TableName": name}).encode()
        internal = _with_body(environ, body)
        internal["HTTP_X_AMZ_TARGET"] = TARGET_PREFIX + "DescribeTable"
        internal["REQUEST_METHOD"] = "POST"
        internal["PATH_INFO"] = "/"
        internal["QUERY_STRING"] = ""
        internal["CONTENT_TYPE"] = "application/x-amz-json-1.0"
        status, _, data = self._call(internal)
        if not status.startswith("200"):
            return None  # no such table: moto answers the request itself
        try:
            table = json.loads(data)["Table"]
            schema = sorted(table["KeySchema"], key=lambda element: element["KeyType"] != "HASH")
            key_names = tuple(element["AttributeName"] for element in schema)
            billing = (table.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")
            info = TableInfo(key_names, billing, table.get("TableArn", "arn:aws:dynamodb:%s:123456789012:table/%s"
                                                           % (region, name)))
        except (ValueError, KeyError, TypeError):
            return None
        with self.tables_lock:
            self.tables[(region, name)] = info
        return info

    def _item(self, environ, table_name, attributes):
        """(item identity, table info) of the item with these attributes (a Key, or a whole Item)."""
        info = self._table(environ, table_name)
        if info is None or not isinstance(attributes, dict):
            return None, None
        try:
            values = tuple((name, json.dumps(attributes[name], sort_keys=True)) for name in info.key_names)
        except KeyError:
            return None, None  # a key attribute is missing: moto's ValidationException
        return (_region(environ), table_name, values), info

    # ---- throughput -------------------------------------------------------------------------------------
    def _short(self, item, units, now):
        """Whether `item`'s bucket lacks `units` now (refilled first). Caller holds self.state."""
        if self.hot and any(self.hot in value for _, value in item[2]):
            return True  # a hot item (POST /standin/hot): its partition is past its throughput
        capacity = self.config.item_wcu * self.config.item_burst_seconds
        bucket = self.buckets.get(item)
        if bucket is None:
            bucket = self.buckets[item] = [capacity, now]
        else:
            bucket[0] = min(capacity, bucket[0] + (now - bucket[1]) * self.config.item_wcu)
            bucket[1] = now
        return bucket[0] < units

    def _spend(self, item, units):
        """Takes `units` from `item`'s bucket (checked by _short just before). Caller holds self.state."""
        self.buckets[item][0] -= units
        self.wcu_by_item[item] += units
        if len(self.buckets) > 50000:
            self._prune(time.monotonic())

    def _prune(self, now):
        full_after = self.config.item_burst_seconds
        for item in [item for item, (_, last) in self.buckets.items() if now - last > full_after]:
            del self.buckets[item]  # refilled to the brim by now: a new bucket is the same
        if len(self.sizes) > 200000:
            self.sizes.clear()

    def _size(self, item, request_size):
        """The write's item size: the larger of what this stand-in last saw written there and the request's.

        DynamoDB charges the larger of the item's size before and after the write (same page as write_units);
        the stand-in does not read the stored item, so "before" is the largest size it saw written to that
        item (PutItem / Put items, UpdateItem keys and values) and "after" is the request's own attributes.
        """
        return max(self.sizes.get(item, 0), request_size)

    def _throttle_error(self, info):
        """(exception name, cancellation code, message) for throughput refusals on this table.

        "Error handling with DynamoDB" (Developer Guide), https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html:
        ThrottlingException "for tables using on-demand mode ... for any data plane API operation if your
        request rate is too high"; ProvisionedThroughputExceededException for provisioned capacity. Both carry
        ThrottlingReasons; an item over its partition's limit is KeyRangeThroughputExceeded in either mode
        ("ThrottlingReason", API Reference, https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html).
        In a cancelled transaction the codes are ThrottlingError (on-demand) and ProvisionedThroughputExceeded
        (API_TransactWriteItems, Errors).
        """
        choice = self.config.throttle_error
        if choice == "auto":
            on_demand = info is None or info.billing_mode == "PAY_PER_REQUEST"
            choice = "ThrottlingException" if on_demand else "ProvisionedThroughputExceededException"
        if choice == "ThrottlingException":
            return choice, "ThrottlingError", THROTTLED_ON_DEMAND
        return choice, "ProvisionedThroughputExceeded", THROTTLED_PROVISIONED

    def _throttled(self, info):
        """The single-write throttling error. Its list of reasons is `throttlingReasons` on ThrottlingException
        and `ThrottlingReasons` on ProvisionedThroughputExceededException, as the DynamoDB 2012-08-10 service
        model spells the two members (botocore's data/dynamodb/2012-08-10/service-2.json)."""
        name, _, message = self._throttle_error(info)
        field = "throttlingReasons"
        if name == "ProvisionedThroughputExceededException":
            message, field = THROTTLED_PROVISIONED_EXCEPTION, "ThrottlingReasons"
        return Refused({"__type": ERROR_PREFIX + name, "message": message,
                        field: [{"reason": "TableWriteKeyRangeThroughputExceeded",
                                 "resource": info.arn if info else ""}]}, name)

    # ---- single writes ----------------------------------------------------------------------------------
    def _single_write(self, op, request, environ, start_response, latency):
        """PutItem / UpdateItem / DeleteItem.

        Refused with TransactionConflictException while a transaction holds the item: "Transaction conflict
        handling in DynamoDB" ("A PutItem, UpdateItem, or DeleteItem request for an item conflicts with an
        ongoing TransactWriteItems request that includes the same item ... the request fails with a
        TransactionConflictException"), in "Amazon DynamoDB Transactions: How it works" (Developer Guide),
        https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling
        Charged before it is applied, so a write that its condition refuses has paid too: "Capacity units
        consumed by conditional writes" in "Working with items and attributes" (Developer Guide),
        https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html#WorkingWithItems.ConditionalWrites.ReturnConsumedCapacity
        """
        attributes = request.get("Item") if op == "PutItem" else request.get("Key")
        item, info = self._item(environ, request.get("TableName"), attributes)
        time.sleep(latency / 2)
        if item is None:
            with self.state:
                self.counts["writes"] += 1
            answer = self._call(environ)
        else:
            if op == "PutItem":
                request_size = item_size(request.get("Item"))
            elif op == "UpdateItem":
                request_size = _update_size(request)
            else:
                request_size = item_size(request.get("Key"))
            try:
                with self.state:
                    self.counts["writes"] += 1
                    if item in self.holds:
                        self.counts["conflicts"] += 1
                        raise Refused({"__type": ERROR_PREFIX + "TransactionConflictException",
                                       "message": CONFLICT_MESSAGE}, "TransactionConflictException")
                    units = write_units(self._size(item, request_size))
                    if self._short(item, units, time.monotonic()):
                        self.counts["throttled"] += 1
                        raise self._throttled(info)
                    self._spend(item, units)
            except Refused as refused:
                time.sleep(latency / 2)
                return _error_answer(start_response, refused)
            answer = self._call(environ)
            if answer[0].startswith("200"):
                with self.state:
                    self._remember_size(op, item, request_size)
        time.sleep(latency / 2)
        return _replay(answer, start_response)

    def _remember_size(self, op, item, request_size):
        if op in ("PutItem", "Put"):
            self.sizes[item] = request_size
        elif op in ("UpdateItem", "Update"):
            self.sizes[item] = max(self.sizes.get(item, 0), request_size)
        elif op in ("DeleteItem", "Delete"):
            self.sizes.pop(item, None)

    # ---- transactions -----------------------------------------------------------------------------------
    def _transact_write(self, op, request, environ, start_response, latency):
        """TransactWriteItems: cancelled on a held item or an item short of capacity, else held, then applied.

        Holds: "Transaction conflict handling in DynamoDB" ("An item within a TransactWriteItems request is
        part of another ongoing TransactWriteItems request" -> TransactionCanceledException), same page as in
        _single_write. Cost: "DynamoDB performs two underlying reads or writes of every item in the
        transaction: one to prepare the transaction and one to commit the transaction", "Capacity management
        for transactions", https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling
        Cancellation reasons, one per action in order, `None` for the others: API Reference
        TransactWriteItems, https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
        A ConditionCheck is held and charged like a write of that item.
        """
        actions = self._transact_actions(environ, request.get("TransactItems"),
                                         ("Put", "Update", "Delete", "ConditionCheck"))
        # The hold is the transaction's time in the region; `latency` is at least the hold (Config.latency).
        hold = self.config.txn_hold_ms / 1000.0
        leg = max(0.0, latency - hold) / 2
        time.sleep(leg)
        if actions is None:  # not a transaction the rules can read (moto validates it)
            with self.state:
                self.counts["transactions"] += 1
            answer = self._call(environ)
            time.sleep(leg)
            return _replay(answer, start_response)
        token = uuid.uuid4().hex
        try:
            with self.state:
                self.counts["transactions"] += 1
                codes = [("TransactionConflict", CONFLICT_MESSAGE) if item in self.holds else None
                         for _, item, _, _ in actions]
                if any(codes):
                    self.counts["cancelledConflict"] += 1
                    raise _cancelled(codes)
                now = time.monotonic()
                units = [2 * write_units(self._size(item, size)) for _, item, _, size in actions]
                short = [self._short(item, need, now) for (_, item, _, _), need in zip(actions, units)]
                if any(short):
                    self.counts["cancelledThrottled"] += 1
                    self.counts["throttled"] += 1
                    codes = []
                    for (_, _, info, _), lacking in zip(actions, short):
                        _, code, message = self._throttle_error(info)
                        codes.append((code, message) if lacking else None)
                    raise _cancelled(codes)
                for (_, item, _, _), need in zip(actions, units):
                    self._spend(item, need)
                    self.holds[item] = token
        except Refused as refused:
            time.sleep(leg)
            return _error_answer(start_response, refused)
        try:
            time.sleep(hold)
            answer = self._call(environ)
        finally:
            with self.state:
                for _, item, _, _ in actions:
                    if self.holds.get(item) == token:
                        del self.holds[item]
        if answer[0].startswith("200"):
            with self.state:
                for kind, item, _, size in actions:
                    self._remember_size(kind, item, size)
        time.sleep(leg)
        return _replay(answer, start_response)

    def _transact_get(self, op, request, environ, start_response, latency):
        """TransactGetItems: cancelled (TransactionConflict) when an item it names is held by a transaction.

        "An item within a TransactGetItems request is part of an ongoing TransactWriteItems ... request",
        "Transaction conflict handling in DynamoDB", same page as in _single_write. (Single writes are
        instantaneous here, so the same conflict with an ongoing PutItem / UpdateItem / DeleteItem never arises.)
        """
        actions = self._transact_actions(environ, request.get("TransactItems"), ("Get",))
        time.sleep(latency / 2)
        if actions is not None:
            with self.state:
                codes = [("TransactionConflict", CONFLICT_MESSAGE) if item in self.holds else None
                         for _, item, _, _ in actions]
                if any(codes):
                    self.counts["cancelledConflict"] += 1
            if any(codes):
                time.sleep(latency / 2)
                return _error_answer(start_response, _cancelled(codes))
        answer = self._call(environ)
        time.sleep(latency / 2)
        return _replay(answer, start_response)

    def _transact_actions(self, environ, entries, kinds):
        """[(kind, item, table info, request size)] of a transaction, or None when the rules cannot read it
        (a malformed request, an unknown table, two actions on one item: moto gives its own answer)."""
        if not isinstance(entries, list) or not entries:
            return None
        actions = []
        for entry in entries:
            if not isinstance(entry, dict) or len(entry) != 1:
                return None
            (kind, action), = entry.items()
            if kind not in kinds or not isinstance(action, dict):
                return None
            attributes = action.get("Item") if kind == "Put" else action.get("Key")
            item, info = self._item(environ, action.get("TableName"), attributes)
            if item is None:
                return None
            if kind == "Put":
                size = item_size(action.get("Item"))
            elif kind == "Update":
                size = _update_size(action)
            else:
                size = item_size(action.get("Key"))
            actions.append((kind, item, info, size))
        if len({item for _, item, _, _ in actions}) != len(actions):
            return None
        return actions

    # ---- BatchWriteItem ---------------------------------------------------------------------------------
    def _batch_write(self, op, request, environ, start_response, latency):
        """BatchWriteItem: entries on a held item or short of capacity come back in UnprocessedItems.

        "BatchWriteItem" (API Reference), https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html:
        operations that fail because the table's throughput is exceeded are returned in UnprocessedItems, and
        when none of the items can be processed for throughput the request fails with
        ProvisionedThroughputExceededException (here: the table's throttling error, as for single writes).
        Each put or delete is charged as a single write ("Item sizes and formats"). What DynamoDB answers for
        an entry on an item an ongoing transaction holds is not documented; the stand-in returns it
        unprocessed too (the isolation table, "Isolation levels for DynamoDB transactions", makes each
        individual write of the batch serialisable with transactions).
        """
        requested = request.get("RequestItems")
        entries = []
        if isinstance(requested, dict):
            for table_name, writes in requested.items():
                for write in writes if isinstance(writes, list) else []:
                    if not isinstance(write, dict) or len(write) != 1:
                        entries = None
                        break
                    (kind, body), = write.items()
                    attributes = (body or {}).get("Item") if kind == "PutRequest" else (body or {}).get("Key")
                    item, info = self._item(environ, table_name, attributes)
                    if item is None:
                        entries = None
                        break
                    entries.append((table_name, write, kind, item, info, item_size(attributes)))
                if entries is None:
                    break
        time.sleep(latency / 2)
        if not entries:
            answer = self._call(environ)
            time.sleep(latency / 2)
            return _replay(answer, start_response)
        accepted, unprocessed, throttled, last_info = {}, {}, 0, None
        with self.state:
            now = time.monotonic()
            for table_name, write, kind, item, info, size in entries:
                units = write_units(self._size(item, size))
                if item in self.holds or self._short(item, units, now):
                    throttled += item not in self.holds
                    last_info = info
                    unprocessed.setdefault(table_name, []).append(write)
                    continue
                self._spend(item, units)
                accepted.setdefault(table_name, []).append(write)
            refused = len(entries) - sum(len(writes) for writes in accepted.values())
            self.counts["batchUnprocessed"] += refused
            self.counts["throttled"] += throttled
        if not accepted:
            time.sleep(latency / 2)
            if throttled == len(entries):
                return _error_answer(start_response, self._throttled(last_info))
            return _json_answer(start_response, "200 OK", {"UnprocessedItems": unprocessed}, dynamodb=True)
        reduced = dict(request, RequestItems=accepted)
        answer = self._call(_with_body(environ, json.dumps(reduced).encode()))
        status, headers, data = answer
        if status.startswith("200") and unprocessed:
            try:
                merged = json.loads(data)
                for table_name, writes in unprocessed.items():
                    merged.setdefault("UnprocessedItems", {}).setdefault(table_name, []).extend(writes)
                time.sleep(latency / 2)
                return _json_answer(start_response, status, merged, dynamodb=True)
            except ValueError:
                pass
        time.sleep(latency / 2)
        return _replay(answer, start_response)


# ---- helpers ----------------------------------------------------------------------------------------------
def describe(item):
    """`table:PK=value,SK=value` for the stats."""
    _, table, values = item
    shown = []
    for name, encoded in values:
        value = json.loads(encoded)
        inner = next(iter(value.values())) if isinstance(value, dict) and len(value) == 1 else value
        shown.append("%s=%s" % (name, inner))
    return "%s:%s" % (table, ",".join(shown))


def _update_size(action):
    """An UpdateItem's own attributes: its key, plus the names and values its expressions bring."""
    size = item_size(action.get("Key"))
    size += sum(value_size(value) for value in (action.get("ExpressionAttributeValues") or {}).values())
    size += sum(len(name.encode("utf-8")) for name in (action.get("ExpressionAttributeNames") or {}).values())
    return size


def _cancelled(codes):
    """TransactionCanceledException with one reason per action (None where the action had no error)."""
    reasons = [{"Code": code, "Message": message} if code else {"Code": "None"}
               for code, message in (entry or (None, None) for entry in codes)]
    message = CANCELLED_MESSAGE % ", ".join(reason["Code"] for reason in reasons)
    return Refused({"__type": ERROR_PREFIX + "TransactionCanceledException", "CancellationReasons": reasons,
                    "Message": message}, "TransactionCanceledException")


def _region(environ):
    match = re.search(r"Credential=[^/,]+/\d{8}/([^/,]+)/", environ.get("HTTP_AUTHORIZATION", ""))
    return match.group(1) if match else "us-east-1"


def _read_body(environ):
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    stream = environ.get("wsgi.input")
    return stream.read(length) if stream is not None and length > 0 else b""


def _with_body(environ, body):
    copy = dict(environ)
    copy["wsgi.input"] = io.BytesIO(body)
    copy["CONTENT_LENGTH"] = str(len(body))
    return copy


def _replay(answer, start_response):
    status, headers, data = answer
    start_response(status, headers)
    return [data]


def _json_answer(start_response, status, document, dynamodb=False, error_type=None):
    data = json.dumps(document).encode()
    headers = [("Content-Type", "application/x-amz-json-1.0" if dynamodb else "application/json"),
               ("Content-Length", str(len(data)))]
    if dynamodb:
        # DynamoDB's answer headers: a request id and the body's CRC32 (clients may check it).
        headers += [("x-amzn-RequestId", uuid.uuid4().hex.upper()),
                    ("x-amz-crc32", str(zlib.crc32(data) & 0xFFFFFFFF))]
    if error_type:
        headers.append(("X-Amzn-ErrorType", error_type))
    start_response(status, headers)
    return [data]


def _error_answer(start_response, refused):
    """HTTP 400 in the JSON 1.0 error shape: `__type` "com.amazonaws.dynamodb.v20120810#<Name>" and the message.

    "Error handling with DynamoDB", Error components (Developer Guide),
    https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html#Programming.Errors.Components
    """
    return _json_answer(start_response, "400 Bad Request", refused.body, dynamodb=True,
                        error_type=refused.error_type)
