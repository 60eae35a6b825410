#!/usr/bin/env python3
"""Writes the release link's symbol ordering file: the code and data of `bootstrap` that a cold start reaches
from exec to its first GET /next, in the order first reached (docs/performance-archive.md, "Init order").

The release link (Package.swift, `shippedLinkSettings`) passes the file to lld as `--symbol-ordering-file`:
those functions, and the `.rodata`, `.data` and `.bss` objects, then sit together at the start of their
sections, so a cold start faults in a few dozen pages of code instead of one 64 KB window in every corner
of a 12 MB `.text`. The file only orders: a name that is no longer in the binary is skipped
(`--no-warn-symbol-ordering`), and `scripts/link-check.sh` (`--check`) fails when the order is not applied
or too few of its names are left (then run `make init-order` again and commit the file).

How: the binary runs under valgrind's lackey, which traces every instruction, load and store, against a
one-shot Runtime API on a free loopback port; when the GET /next arrives the process is stopped with
SIGTERM, so what runs after /next is not in the file. Each traced address is mapped to the symbol that holds
it. Needs valgrind (`make init-order` installs it); the build and `make test` only read the file.

Usage: scripts/init-order.py BINARY OUTPUT | scripts/init-order.py --check BINARY ORDER_FILE
"""

import bisect
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile


def environment(port, key_file):
    """The cold-start configuration `make bench` measures (local-harness/bench.py), nothing else."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "AWS_LAMBDA_RUNTIME_API": "127.0.0.1:%d" % port,
        "ATTESTGATE_ENV": "development",
        "TABLE_NAME": "attestgate-init-order",
        "AWS_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "LOG_LEVEL": "error",
        "UPSTREAM_API_KEY_FILE": key_file,
        "UPSTREAM_URL": "http://127.0.0.1:9",
        "DYNAMODB_ENDPOINT": "http://127.0.0.1:9",
        "GATE_MODE": "off",
        "AI_DAILY_CALL_CEILING": "0",
    }


def record(binary, work):
    """Runs `binary` under lackey until its first GET /next; returns the memory trace's path."""
    # valgrind's DWARF reader gives up on the DWARF 5 that lld writes; the symbol table is all it needs.
    stripped = os.path.join(work, "bootstrap")
    subprocess.run(["objcopy", "--strip-debug", binary, stripped], check=True)
    key_file = os.path.join(work, "upstream-key")
    with open(key_file, "w") as handle:
        handle.write("0" * 32 + "\n")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(120)
    trace = os.path.join(work, "trace.txt")
    process = subprocess.Popen(
        ["valgrind", "--tool=lackey", "--trace-mem=yes", "--log-file=" + trace, stripped],
        env=environment(listener.getsockname()[1], key_file), stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        connection, _ = listener.accept()
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = connection.recv(4096)
            if not chunk:
                break
            request += chunk
        if not request.startswith(b"GET /2018-06-01/runtime/invocation/next "):
            sys.exit("init-order: the first request was not GET /next: %r" % request[:80])
        # valgrind writes the rest of the trace and exits on the fatal signal.
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=120)
        connection.close()
    except socket.timeout:
        process.kill()
        sys.exit("init-order: no GET /next within 120 s:\n" + process.stderr.read().decode(errors="replace"))
    return trace, stripped


def layout(binary):
    """The binary's entry point, its sections (start, end, name) and its symbols sorted by address."""
    header = subprocess.run(["readelf", "-hSW", binary], capture_output=True, text=True, check=True).stdout
    entry = int(re.search(r"Entry point address:\s+0x([0-9a-f]+)", header).group(1), 16)
    sections = []
    for match in re.finditer(r"\]\s+(\S+)\s+(PROGBITS|NOBITS)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", header):
        start, size = int(match.group(3), 16), int(match.group(4), 16)
        if start and size:
            sections.append((start, start + size, match.group(1)))
    symbols = []
    listing = subprocess.run(["nm", "-S", "-n", binary], capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tTbBdDrR":
            symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    return entry, sections, symbols


# The sections whose order changes how many pages a cold start faults in: code, and data read or written
# before /next that relocation does not write anyway (every page of .data.rel.ro holds a relocation).
ORDERED = {".text", ".rodata", ".data", ".bss"}


def symbols_in_order(trace, binary):
    """The binary's symbols that code, loads and stores reach before /next, in the order first reached."""
    entry, sections, symbols = layout(binary)
    starts = [symbol[0] for symbol in symbols]
    base, order, seen = None, [], set()
    with open(trace) as handle:
        for line in handle:
            if line[:1] not in ("I", " ") or "," not in line:
                continue
            address = int(line[3:].split(",", 1)[0], 16)
            if base is None:
                # The first instruction outside valgrind's loader area is the binary's entry point: that
                # fixes where valgrind placed the position-independent binary.
                if line[0] != "I" or address >= 0x4000000:
                    continue
                base = address - entry
                if base % 4096:
                    sys.exit("init-order: cannot place the binary (entry at %#x)" % address)
            offset = address - base
            index = bisect.bisect_right(starts, offset) - 1
            if index < 0:
                continue
            start, size, name = symbols[index]
            if not start <= offset < start + max(size, 1) or name in seen:
                continue
            section = next((s[2] for s in sections if s[0] <= offset < s[1]), None)
            if section in ORDERED:
                seen.add(name)
                order.append(name)
    if base is None:
        sys.exit("init-order: the trace never reached the binary")
    return order


def check(binary, order_file):
    """link-check's part: the release link applied the order, and the file still names the binary's code.

    Applied: 90 % of the file's functions that are in the binary lie within a span of under half of .text
    (unordered, they spread over all of it). Stale: under 80 % of the file's names are still symbols of the
    binary (renamed or removed code)."""
    with open(order_file) as handle:
        names = [line.strip() for line in handle if line.strip()]
    _, sections, symbols = layout(binary)
    by_name = {symbol[2]: symbol[0] for symbol in symbols}
    text = next(s for s in sections if s[2] == ".text")
    present = [name for name in names if name in by_name]
    code = sorted(by_name[name] for name in present if text[0] <= by_name[name] < text[1])
    if len(present) < 0.8 * len(names):
        sys.exit("init-order: only %d of the %d names in %s are symbols of %s: stale, run make init-order"
                 % (len(present), len(names), order_file, binary))
    keep = int(len(code) * 0.9)
    span = min(code[i + keep] - code[i] for i in range(len(code) - keep))
    if span >= (text[1] - text[0]) / 2:
        sys.exit("init-order: the release link did not apply %s: 90 %% of its %d functions span %.1f of %.1f MB"
                 " of .text" % (order_file, len(code), span / 1e6, (text[1] - text[0]) / 1e6))
    print("init-order: %d of %d names of %s in the binary; 90 %% of its %d functions within %.1f of %.1f MB of"
          " .text" % (len(present), len(names), order_file, len(code), span / 1e6, (text[1] - text[0]) / 1e6))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    binary, target = sys.argv[1], sys.argv[2]
    if shutil.which("valgrind") is None:
        sys.exit("init-order: needs valgrind (make init-order installs it)")
    work = tempfile.mkdtemp(prefix="attestgate-init-order-")
    try:
        trace, stripped = record(os.path.abspath(binary), work)
        order = symbols_in_order(trace, stripped)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if len(order) < 200:
        sys.exit("init-order: only %d symbols recorded; is %s a release bootstrap?" % (len(order), binary))
    with open(target, "w") as handle:
        handle.write("\n".join(order) + "\n")
    print("init-order: %d symbols of %s reached before the first GET /next -> %s" % (len(order), binary, target))


if __name__ == "__main__":
    main()
