#!/usr/bin/env python3
"""make ddb-standin-check: the DynamoDB stand-in (ddb_standin.py, inside moto_server.py) refuses what it should.

Starts moto_server.py on free 127.0.0.1 ports (and stops it), makes a PK/SK table (on-demand, as infra/
makes ours) and checks each rule through boto3, in DynamoDB's error shapes as botocore parses them:

  server A, rules on (hold 800 ms and GetItem latency 300 ms from DDB_STANDIN_* variables, --item-wcu 20
  as a flag over DDB_STANDIN_ITEM_WCU=7):
    config   flags win over the variables, the variables over the defaults
    (a)      an UpdateItem on an item a running transaction holds: TransactionConflictException; a GetItem
             meanwhile is answered (read-committed) with the value from before the transaction
    (b)      an overlapping TransactWriteItems: TransactionCanceledException, TransactionConflict for the held
             item and None for the other; a TransactGetItems of a held item: cancelled the same way
    (c)      after the hold both succeed, and nothing refused was applied
    (g)      latency is slept outside the lock: 4 GetItems of 300 ms in parallel take about 300 ms, not 1.2 s
    (d)      throughput: past 20 WCU/s on one item, ThrottlingException (throttlingReasons
             TableWriteKeyRangeThroughputExceeded) while another item's writes pass; nothing throttled is
             applied; a transactional write costs 2 per KB, a standard one 1; a write refused by its
             condition still costs; a BatchWriteItem entry over capacity comes back in UnprocessedItems; a
             transaction over an item's capacity is cancelled with ThrottlingError; on a provisioned table
             the single write's error is ProvisionedThroughputExceededException
  server C, --rules none (same flags and variables):
    (e)      the same requests: nothing refused, no hold, no latency
  server B (defaults) and server C, the CONTROL (f):
    (f)      the old ceiling pattern without retries (8 threads x 10: reserve with UpdateItem ADD on
             AI_BUDGET#day/TOTAL under a condition, 20 ms, settle with TransactWriteItems [Put RETURN#id /
             CEILING if new, Update TOTAL ADD cost -x]): under the stand-in some reservations get
             TransactionConflictException and some settles are cancelled; with --rules none, none are

Prints one line per check (PASS | ... or FAIL | ...) and `N passed, N failed`; exits 1 when any failed.
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = "standin-check"
STANDIN_VARIABLES = ("DDB_STANDIN_RULES", "DDB_STANDIN_TXN_HOLD_MS", "DDB_STANDIN_ITEM_WCU",
                     "DDB_STANDIN_ITEM_BURST_SECONDS", "DDB_STANDIN_THROTTLE_ERROR", "DDB_STANDIN_LATENCY")
HOLD = 0.8  # server A's and C's --txn-hold-ms, in seconds
GET_LATENCY = 0.3

passed = 0
failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print("%s | %s%s" % ("PASS" if ok else "FAIL", name, (" | " + detail) if detail else ""), flush=True)
    return ok


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """moto_server.py on a free port, with its own flags and DDB_STANDIN_* variables."""

    def __init__(self, name, flags=(), variables=None):
        self.name = name
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.log = tempfile.NamedTemporaryFile(prefix="standin-%s." % name, suffix=".log", delete=False)
        env = {k: v for k, v in os.environ.items() if k not in STANDIN_VARIABLES}
        env.update(variables or {})
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "moto_server.py"), "-H", "127.0.0.1", "-p", str(self.port)]
            + list(flags), stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(self.url + "/moto-api/", timeout=2).read()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("moto_server.py (%s) did not start:\n%s" % (name, self.output()))
                time.sleep(0.1)
        self.client = boto3.client(
            "dynamodb", endpoint_url=self.url, region_name="us-east-1", aws_access_key_id="testing",
            aws_secret_access_key="testing",
            config=Config(retries={"total_max_attempts": 1}, max_pool_connections=32, connect_timeout=10,
                          read_timeout=60))
        self.client.create_table(
            TableName=TABLE, BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                  {"AttributeName": "SK", "AttributeType": "S"}])

    def output(self):
        try:
            with open(self.log.name, encoding="utf-8", errors="replace") as handle:
                return handle.read()[-4000:]
        except OSError:
            return ""

    def stats(self):
        return json.load(urllib.request.urlopen(self.url + "/standin/stats", timeout=10))

    def reset(self):
        request = urllib.request.Request(self.url + "/standin/reset-stats", data=b"", method="POST")
        urllib.request.urlopen(request, timeout=10).read()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass


# ---- requests ---------------------------------------------------------------------------------------------
def key(pk, sk="S"):
    return {"PK": {"S": pk}, "SK": {"S": sk}}


def outcome(call, *args, **kwargs):
    """("ok", answer) or (error code, the parsed error response)."""
    try:
        return "ok", call(*args, **kwargs)
    except ClientError as error:
        return error.response["Error"]["Code"], error.response


def add(client, pk, amount=1, **extra):
    return outcome(client.update_item, TableName=TABLE, Key=key(pk), UpdateExpression="ADD n :v",
                   ExpressionAttributeValues={":v": {"N": str(amount)}}, **extra)


def update_action(pk, amount=1):
    return {"Update": {"TableName": TABLE, "Key": key(pk), "UpdateExpression": "ADD n :v",
                       "ExpressionAttributeValues": {":v": {"N": str(amount)}}}}


def put_action(pk, padding=0):
    item = dict(key(pk), pad={"S": "x" * padding}) if padding else key(pk)
    return {"Put": {"TableName": TABLE, "Item": item}}


def transact(client, actions):
    return outcome(client.transact_write_items, TransactItems=actions)


def reasons(response):
    return [reason.get("Code") for reason in response.get("CancellationReasons", [])]


def value(client, pk):
    item = client.get_item(TableName=TABLE, Key=key(pk), ConsistentRead=True).get("Item")
    return None if item is None else int(item.get("n", {"N": "0"})["N"])


def wcu(stats, pk):
    return stats["wcuByItem"].get("%s:PK=%s,SK=S" % (TABLE, pk))


def in_background(function, *args, **kwargs):
    box = {}

    def run():
        started = time.monotonic()
        box["result"] = function(*args, **kwargs)
        box["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run)
    thread.start()
    return thread, box


# ---- the checks -------------------------------------------------------------------------------------------
def check_config(server):
    config = server.stats()["config"]
    check("config | --item-wcu flag over DDB_STANDIN_ITEM_WCU, variables over defaults",
          config["itemWcu"] == 20 and config["txnHoldMs"] == HOLD * 1000 and config["latencyMs"] == {"GetItem": 300}
          and config["rules"] == "dynamodb" and config["itemBurstSeconds"] == 1.0, json.dumps(config))


def holds(server, rules):
    """(a), (b), (c) with rules on; the same requests for (e) with rules off."""
    client, tag = server.client, uuid.uuid4().hex[:6]
    a1, a2, a3 = "A1-" + tag, "A2-" + tag, "A3-" + tag
    client.put_item(TableName=TABLE, Item=dict(key(a1), n={"N": "0"}))
    server.reset()
    first, first_box = in_background(transact, client, [update_action(a1), update_action(a2)])
    time.sleep(0.1)
    started = time.monotonic()
    single = add(client, a1)
    second = transact(client, [update_action(a3), update_action(a1)])
    get_items = outcome(client.transact_get_items, TransactItems=[{"Get": {"TableName": TABLE, "Key": key(a2)}}])
    read, read_box = in_background(lambda: client.get_item(TableName=TABLE, Key=key(a1))["Item"]["n"]["N"])
    within = time.monotonic() - started
    read.join()
    first.join()
    label = "rules on" if rules else "--rules none"
    if rules:
        timely = within < HOLD - 0.2  # the probes ran while the first transaction held its items
        check("(a) hold | UpdateItem on a held item: TransactionConflictException, HTTP 400",
              single[0] == "TransactionConflictException" and timely
              and single[1]["ResponseMetadata"]["HTTPStatusCode"] == 400
              and single[1]["Error"]["Message"] == "Transaction is ongoing for the item",
              "got %s, probes took %.2f s of the %.1f s hold" % (single[0], within, HOLD))
        check("(a) hold | GetItem during the hold is answered, with the value from before (read-committed)",
              read_box.get("result") == "0", "n=%s" % read_box.get("result"))
        check("(b) hold | overlapping TransactWriteItems cancelled: [None, TransactionConflict]",
              second[0] == "TransactionCanceledException" and reasons(second[1]) == ["None", "TransactionConflict"]
              and "[None, TransactionConflict]" in second[1]["Error"]["Message"]
              and second[1]["CancellationReasons"][1].get("Message") == "Transaction is ongoing for the item",
              "got %s %s | %s" % (second[0], reasons(second[1]) if second[0] != "ok" else "",
                                  second[1].get("Error", {}).get("Message", "")))
        check("(b) hold | TransactGetItems of a held item cancelled: [TransactionConflict]",
              get_items[0] == "TransactionCanceledException" and reasons(get_items[1]) == ["TransactionConflict"],
              "got %s" % get_items[0])
        check("(a) hold | the holding transaction itself succeeds, after its hold",
              first_box["result"][0] == "ok" and first_box["seconds"] >= HOLD - 0.05,
              "%s after %.2f s" % (first_box["result"][0], first_box["seconds"]))
        after_single = add(client, a1)
        after_second = transact(client, [update_action(a3), update_action(a1)])
        stats = server.stats()
        check("(c) after the hold | the UpdateItem and the transaction both succeed",
              after_single[0] == "ok" and after_second[0] == "ok", "%s, %s" % (after_single[0], after_second[0]))
        check("(c) after the hold | refused requests were not applied (n: %s=3, %s=1, %s=1)" % (a1, a2, a3),
              (value(client, a1), value(client, a2), value(client, a3)) == (3, 1, 1),
              "n = %s, %s, %s" % (value(client, a1), value(client, a2), value(client, a3)))
        check("(c) counters | conflicts 1, cancelledConflict 2, holding 0",
              stats["conflicts"] == 1 and stats["cancelledConflict"] == 2 and stats["holding"] == 0,
              "conflicts %s, cancelledConflict %s, holding %s" % (stats["conflicts"], stats["cancelledConflict"],
                                                                  stats["holding"]))
    else:
        stats = server.stats()
        check("(e) %s | UpdateItem, overlapping transaction and TransactGetItems all answered" % label,
              single[0] == "ok" and second[0] == "ok" and get_items[0] == "ok" and first_box["result"][0] == "ok",
              "%s, %s, %s, %s" % (single[0], second[0], get_items[0], first_box["result"][0]))
        check("(e) %s | no hold and no latency (transaction %.2f s)" % (label, first_box["seconds"]),
              first_box["seconds"] < HOLD / 2)
        check("(e) %s | counters: nothing refused" % label,
              stats["conflicts"] == 0 and stats["cancelledConflict"] == 0 and stats["throttled"] == 0
              and stats["transactions"] == 2 and stats["writes"] == 1,
              json.dumps({k: stats[k] for k in ("conflicts", "cancelledConflict", "throttled", "transactions",
                                                "writes")}))


def latency_outside_the_lock(server):
    client = server.client
    started = time.monotonic()
    threads = [in_background(client.get_item, TableName=TABLE, Key=key("L-%d" % n))[0] for n in range(4)]
    for thread in threads:
        thread.join()
    took = time.monotonic() - started
    single_started = time.monotonic()
    client.get_item(TableName=TABLE, Key=key("L-0"))
    single = time.monotonic() - single_started
    check("(g) latency | one GetItem takes its 300 ms, 4 in parallel about the same (not serialised)",
          single >= GET_LATENCY - 0.01 and took < 2 * GET_LATENCY, "one %.2f s, four %.2f s" % (single, took))


def hammer(client, hot, cold):
    """8 threads x 10 UpdateItem ADD on `hot` as fast as they go; one thread 10 on `cold`, 50 ms apart."""
    outcomes, lock = [], threading.Lock()

    def hot_writer():
        for _ in range(10):
            result = add(client, hot)
            with lock:
                outcomes.append(("hot", result))

    def cold_writer():
        for _ in range(10):
            result = add(client, cold)
            with lock:
                outcomes.append(("cold", result))
            time.sleep(0.05)

    started = time.monotonic()
    threads = [threading.Thread(target=hot_writer) for _ in range(8)] + [threading.Thread(target=cold_writer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes, time.monotonic() - started


def throughput(server, rules):
    """(d) with rules on (20 WCU per item per second, 20 in the bucket); the same writes for (e)."""
    client, tag = server.client, uuid.uuid4().hex[:6]
    hot, cold = "T1-" + tag, "T2-" + tag
    server.reset()
    outcomes, took = hammer(client, hot, cold)
    hot_ok = sum(1 for which, (code, _) in outcomes if which == "hot" and code == "ok")
    hot_codes = sorted({code for which, (code, _) in outcomes if which == "hot" and code != "ok"})
    cold_ok = sum(1 for which, (code, _) in outcomes if which == "cold" and code == "ok")
    if not rules:
        stats = server.stats()
        check("(e) --rules none | 80 writes to one item in %.2f s: none throttled" % took,
              hot_ok == 80 and cold_ok == 10 and value(client, hot) == 80 and stats["throttled"] == 0,
              "hot ok %d, errors %s" % (hot_ok, hot_codes))
        return
    throttled = [response for which, (code, response) in outcomes if which == "hot" and code != "ok"]
    budget = 20 + 20 * took + 1
    first = throttled[0] if throttled else {}
    shape = first.get("throttlingReasons") or []
    check("(d) throughput | 80 writes to one item in %.2f s: %d applied (at most %.0f), the rest ThrottlingException"
          % (took, hot_ok, budget),
          throttled and hot_codes == ["ThrottlingException"] and hot_ok <= budget
          and first["ResponseMetadata"]["HTTPStatusCode"] == 400
          and shape[:1] and shape[0].get("reason") == "TableWriteKeyRangeThroughputExceeded"
          and shape[0].get("resource", "").endswith(":table/" + TABLE),
          "errors %s, reasons %s" % (hot_codes, shape))
    check("(d) throughput | another item's 10 writes meanwhile all pass", cold_ok == 10, "%d of 10" % cold_ok)
    check("(d) throughput | throttled writes were not applied (n == writes answered ok)",
          value(client, hot) == hot_ok, "n=%s, ok=%d" % (value(client, hot), hot_ok))
    stats = server.stats()
    check("(d) counters | throttled counts the refusals", stats["throttled"] == 80 - hot_ok,
          "throttled %s, refused %d" % (stats["throttled"], 80 - hot_ok))

    # Costs: 1 WCU per KB (rounded up) for a standard write, 2 per KB per item for a transactional one.
    small, small_txn, big, big_txn = ("C1-" + tag, "C2-" + tag, "C3-" + tag, "C4-" + tag)
    server.reset()
    client.put_item(TableName=TABLE, Item=key(small))
    transact(client, [put_action(small_txn)])
    client.put_item(TableName=TABLE, Item=dict(key(big), pad={"S": "x" * 1500}))
    transact(client, [put_action(big_txn, 1500)])
    stats = server.stats()
    costs = [wcu(stats, pk) for pk in (small, small_txn, big, big_txn)]
    check("(d) cost | standard write 1 WCU, transactional 2; a 1.5 KB item 2 and 4", costs == [1, 2, 2, 4],
          "WCU %s" % costs)
    refused = outcome(client.put_item, TableName=TABLE, Item=key(small), ConditionExpression="attribute_not_exists(PK)")
    check("(d) cost | a write refused by its condition still consumes capacity",
          refused[0] == "ConditionalCheckFailedException" and wcu(server.stats(), small) == 2,
          "%s, WCU now %s" % (refused[0], wcu(server.stats(), small)))

    # A drained item: a BatchWriteItem's entry for it comes back unprocessed while the other entry is written;
    # a transaction over its capacity is cancelled with ThrottlingError for it and None for the other item.
    drained, other, batched = "X1-" + tag, "X2-" + tag, "X3-" + tag
    for _ in range(200):
        if add(client, drained)[0] == "ThrottlingException":
            break
    # 15 KB items: 15 WCU in the batch, 30 in the transaction, so each needs 0.7 s / 1.5 s of refill that a
    # loaded machine does not reach between these requests.
    batch = outcome(client.batch_write_item, RequestItems={TABLE: [
        {"PutRequest": {"Item": dict(key(drained), pad={"S": "x" * 15000})}}, {"PutRequest": {"Item": key(batched)}}]})
    unprocessed = batch[1].get("UnprocessedItems", {}).get(TABLE, []) if batch[0] == "ok" else []
    cancelled = transact(client, [update_action(other), put_action(drained, 15000)])
    check("(d) throughput | BatchWriteItem: the drained item's entry in UnprocessedItems, the other written",
          batch[0] == "ok" and [entry["PutRequest"]["Item"]["PK"]["S"] for entry in unprocessed] == [drained]
          and value(client, batched) == 0, "%s, unprocessed %d" % (batch[0], len(unprocessed)))
    check("(d) throughput | a transaction on a drained item: cancelled [None, ThrottlingError], not applied",
          cancelled[0] == "TransactionCanceledException" and reasons(cancelled[1]) == ["None", "ThrottlingError"]
          and value(client, other) is None,
          "got %s %s" % (cancelled[0], reasons(cancelled[1]) if cancelled[0] != "ok" else ""))


def provisioned(server):
    """(d) on a provisioned table the same refusal is ProvisionedThroughputExceededException (--throttle-error auto)."""
    client, name = server.client, TABLE + "-provisioned"
    client.create_table(
        TableName=name, ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}])
    result = ("ok", {})
    for _ in range(200):
        result = outcome(client.put_item, TableName=name, Item=key("P1"))
        if result[0] != "ok":
            break
    shape = result[1].get("ThrottlingReasons") or []
    check("(d) throughput | on a provisioned table: ProvisionedThroughputExceededException (ThrottlingReasons)",
          result[0] == "ProvisionedThroughputExceededException" and shape[:1]
          and shape[0].get("reason") == "TableWriteKeyRangeThroughputExceeded", "got %s %s" % (result[0], shape))


def ceiling_control(server, label, expect_refusals):
    """(f) the naive ceiling: reserve (conditional ADD on TOTAL), 20 ms, settle (TransactWriteItems), no retry."""
    client = server.client
    day = "AI_BUDGET#%s" % uuid.uuid4().hex[:8]
    total = {"PK": {"S": day}, "SK": {"S": "TOTAL"}}
    server.reset()
    tallies, lock = {"reserved": 0, "reserveConflict": 0, "settled": 0, "settleCancelled": 0, "other": []}, \
        threading.Lock()

    def worker():
        for _ in range(10):
            reserve = outcome(client.update_item, TableName=TABLE, Key=total,
                              UpdateExpression="ADD calls :one, cost :w",
                              ConditionExpression="attribute_not_exists(calls) OR calls < :limit",
                              ExpressionAttributeValues={":one": {"N": "1"}, ":w": {"N": "100"},
                                                         ":limit": {"N": "1000000"}})
            with lock:
                if reserve[0] == "ok":
                    tallies["reserved"] += 1
                elif reserve[0] == "TransactionConflictException":
                    tallies["reserveConflict"] += 1
                else:
                    tallies["other"].append("reserve " + reserve[0])
            if reserve[0] != "ok":
                continue
            time.sleep(0.02)
            settle = transact(client, [
                {"Put": {"TableName": TABLE, "Item": {"PK": {"S": "RETURN#%s" % uuid.uuid4()},
                                                       "SK": {"S": "CEILING"}},
                         "ConditionExpression": "attribute_not_exists(PK)"}},
                {"Update": {"TableName": TABLE, "Key": total, "UpdateExpression": "ADD cost :back",
                            "ExpressionAttributeValues": {":back": {"N": "-40"}}}}])
            with lock:
                if settle[0] == "ok":
                    tallies["settled"] += 1
                elif settle[0] == "TransactionCanceledException" and "TransactionConflict" in reasons(settle[1]):
                    tallies["settleCancelled"] += 1
                else:
                    tallies["other"].append("settle " + settle[0])

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    row = client.get_item(TableName=TABLE, Key=total, ConsistentRead=True).get("Item", {})
    calls, cost = int(row.get("calls", {"N": "0"})["N"]), int(row.get("cost", {"N": "0"})["N"])
    consistent = calls == tallies["reserved"] and cost == 100 * tallies["reserved"] - 40 * tallies["settled"]
    stats = server.stats()
    summary = "reserved %d, reservation conflicts %d, settled %d, settles cancelled %d, other %s | TOTAL calls %d cost %d" \
        % (tallies["reserved"], tallies["reserveConflict"], tallies["settled"], tallies["settleCancelled"],
           sorted(set(tallies["other"])) or "none", calls, cost)
    if expect_refusals:
        check("(f) CONTROL %s | the naive ceiling fails: reservations get TransactionConflictException and "
              "settles are cancelled" % label,
              tallies["reserveConflict"] > 0 and tallies["settleCancelled"] > 0 and not tallies["other"], summary)
        check("(f) CONTROL %s | counters agree (conflicts, cancelledConflict)" % label,
              stats["conflicts"] == tallies["reserveConflict"]
              and stats["cancelledConflict"] == tallies["settleCancelled"],
              "conflicts %s, cancelledConflict %s" % (stats["conflicts"], stats["cancelledConflict"]))
    else:
        check("(f) CONTROL %s | the same run refuses nothing" % label,
              tallies["reserveConflict"] == 0 and tallies["settleCancelled"] == 0 and not tallies["other"]
              and tallies["reserved"] == 80 and tallies["settled"] == 80, summary)
    check("(f) CONTROL %s | TOTAL holds exactly what was answered ok (nothing refused was applied)" % label,
          consistent, summary)


def main():
    hold_env = {"DDB_STANDIN_TXN_HOLD_MS": str(int(HOLD * 1000)), "DDB_STANDIN_ITEM_WCU": "7",
                "DDB_STANDIN_LATENCY": "GetItem=%d" % int(GET_LATENCY * 1000)}
    servers = []
    try:
        print("== server A: rules on (hold %.0f ms, 20 WCU per item, GetItem 300 ms)" % (HOLD * 1000), flush=True)
        a = Server("rules", ["--item-wcu", "20"], hold_env)
        servers.append(a)
        check_config(a)
        holds(a, rules=True)
        latency_outside_the_lock(a)
        throughput(a, rules=True)
        provisioned(a)
        print("== server C: --rules none (same flags and variables)", flush=True)
        c = Server("none", ["--item-wcu", "20", "--rules", "none"], hold_env)
        servers.append(c)
        holds(c, rules=False)
        throughput(c, rules=False)
        print("== server B: the defaults (hold 25 ms, 1000 WCU per item, no latency)", flush=True)
        b = Server("defaults")
        servers.append(b)
        ceiling_control(b, "stand-in defaults", expect_refusals=True)
        ceiling_control(c, "--rules none", expect_refusals=False)
    except Exception as problem:  # a server that did not start, a request that could not be sent
        check("the self-test ran to its end", False, "%s: %s" % (type(problem).__name__, problem))
    finally:
        for server in servers:
            server.stop()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
