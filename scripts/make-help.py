#!/usr/bin/env python3
"""`make help` from the Makefile's own comments, and `--check` that every target has one.

A target is documented by a line `## name: what it does` (its first sentence or so, the rest may follow on
`## ` lines). `make help` prints those lines, one per target, in the Makefile's order; `--check` (run by
`make ref-check`, part of `make test`) fails when a target has none, so the help cannot drift from the
targets.
"""
import re
import sys

RULE = re.compile(r"^([a-z][a-z0-9-]*)(?:\s+[a-z][a-z0-9-]*)*\s*:(?!=)")
DOC = re.compile(r"^## ([a-z][a-z0-9-]*): (.*)$")


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read().splitlines()


def main(argv):
    check = "--check" in argv
    paths = [arg for arg in argv[1:] if not arg.startswith("--")] or ["Makefile"]
    lines = read(paths[0])
    targets = []
    for line in lines:
        match = RULE.match(line)
        if match:
            for name in line.split(":", 1)[0].split():
                if name not in targets:
                    targets.append(name)
    docs = {}
    for line in lines:
        match = DOC.match(line)
        if match and match.group(1) in targets and match.group(1) not in docs:
            docs[match.group(1)] = match.group(2)
    missing = [name for name in targets if name not in docs]
    if check:
        for name in missing:
            print("make-help: target %s has no `## %s: ...` line in the Makefile" % (name, name))
        if missing:
            return 1
        print("make-help: all %d targets are documented" % len(targets))
        return 0
    width = max(len(name) for name in docs)
    for name in targets:
        if name in docs:
            text = docs[name]
            print("make %-*s  %s" % (width, name, text if len(text) <= 100 else text[:97].rstrip() + "..."))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
