#!/usr/bin/env python3
"""`make ref-check`: every document a file in the repository points to is in the repository.

A reader with a fresh clone must be able to follow every reference. This walks Sources, Tools, Tests,
docs, local-harness, infra, scripts, fuzz, Clients and the top-level files (README.md, Makefile, Package.swift) and
fails, naming file and line, on:

  - any mention of `design.md`, or of a path outside the repository (`../shared/`, `/work/shared`): the
    contract lives in docs/api.md and docs/openapi.yaml;
  - a path with a `seeds/` segment that is not a file or folder of the repository (`fuzz/seeds` is one; the
    source documents the project started from are not);
  - a relative markdown link `[text](target)` whose target does not exist (anchors are not checked);
  - a path to a document (`docs/...`, `../x.md`, a backticked `x.md` or `x.yaml`) that resolves neither
    from the file's own folder, nor from the repository root, nor from docs/.

With --comments it checks instead that no Swift comment (`//`, `///`) in Sources, Tools, Tests and Clients points at
what a reader of the repository cannot open: an issue number (`issue 7`, `Issues 16 and 17`, `issue #7`), the
source documents the project started from (`the seed`, `seed's`, `seeds'`, `seed document`), a defect id of
theirs (`DEF-6`), `design.md`, or a bare `(section 10)` / `(§ 10)` with no document named. A comment states
the rule itself and links the doc section (`docs/gate.md, "What is released"`, `docs/api.md section 5`).
`release: seed`, `.seed` and a random generator's seed are names, not references, and pass.

Usage: check-refs.py [ROOT]                 (default: the repository this script is in)
       check-refs.py --comments [PATH ...]  (default: Sources, Tools, Tests and Clients of that repository; a PATH is a
                                            .swift file or a folder searched for them)
"""
import os
import re
import sys

SCANNED = ["Sources", "Tools", "Tests", "docs", "local-harness", "infra", "scripts", "fuzz", "Clients", "README.md",
           "Makefile", "Package.swift", ".ci"]
SKIPPED_DIRS = {".build", "build", ".state", "__pycache__", ".git", ".schemathesis", "Fixtures", "corpus"}
TEXT_SUFFIXES = (".swift", ".kt", ".md", ".py", ".sh", ".tf", ".tfvars", ".yaml", ".yml", ".txt", ".json", ".h", ".c",
                 ".modulemap", ".hcl", ".toml", ".cfg", ".ini")
TEXT_NAMES = {"Makefile", "Package.swift", "run", "README"}

OUTSIDE = re.compile(r"design\.md|\.\./shared/|/work/shared|shared/docs/|shared/seeds")
SEEDS = re.compile(r"[A-Za-z0-9_./-]*seeds/[A-Za-z0-9_.-]*")
MARKDOWN_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
DOC_PATH = re.compile(r"(?<![\w./@-])((?:\.\./)*(?:\./)?docs/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:md|yaml))")
RELATIVE_DOC = re.compile(r"(?<![\w./@-])((?:\.\./)+[A-Za-z0-9_./-]+\.(?:md|yaml))")
BACKTICKED_DOC = re.compile(r"`([A-Za-z0-9_./-]+\.(?:md|yaml))(?:#[^`]*)?`")

COMMENTED = ["Sources", "Tools", "Tests", "Clients"]
COMMENT_REFERENCES = [
    (re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE), "an issue number"),
    (re.compile(r"\bthe\s+seeds?\b|\bseeds?'s?(?=\s)|\bseed\s+documents?\b", re.IGNORECASE),
     "the seed documents"),
    (re.compile(r"\bDEF-\d+"), "a defect id of the seed documents"),
    (re.compile(r"design\.md"), "design.md"),
    (re.compile(r"\((?:section|§)\s*\d+\)"), "a section with no document named"),
]


def is_text(path):
    name = os.path.basename(path)
    return name.endswith(TEXT_SUFFIXES) or name in TEXT_NAMES


def files_under(root):
    for entry in SCANNED:
        path = os.path.join(root, entry)
        if os.path.isfile(path):
            yield path
        for folder, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            for name in sorted(names):
                full = os.path.join(folder, name)
                if is_text(full):
                    yield full


def resolves(root, source, target):
    """Whether `target` names a file or folder, from the source's folder, the root or docs/."""
    target = target.split("#", 1)[0].rstrip(".,;:")
    if not target:
        return True
    bases = [os.path.dirname(source), root, os.path.join(root, "docs")]
    for base in bases:
        candidate = os.path.normpath(os.path.join(base, target))
        inside = candidate == root or candidate.startswith(root + os.sep)
        if inside and os.path.exists(candidate):
            return True
    return False


def check_line(root, source, text):
    problems = []
    for match in OUTSIDE.finditer(text):
        problems.append("refers outside the repository: %r (cite docs/api.md or say it here)" % match.group(0))
    for match in SEEDS.finditer(text):
        token = match.group(0).rstrip(".,;:")
        if not resolves(root, source, token):
            problems.append("names %r, which is not in the repository" % token)
    targets = set()
    if source.endswith(".md"):
        for match in MARKDOWN_LINK.finditer(text):
            target = match.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            targets.add(target)
    for pattern in (DOC_PATH, RELATIVE_DOC, BACKTICKED_DOC):
        for match in pattern.finditer(text):
            targets.add(match.group(1))
    for target in sorted(targets):
        if "design.md" in target or "seeds/" in target or "{" in target or "*" in target:
            continue  # reported above, or a pattern rather than a path
        if not resolves(root, source, target):
            problems.append("links to %r, which does not exist" % target)
    return problems


def swift_comment(line):
    """The `//` comment of a Swift line (text after the first `//` outside a string literal), or None."""
    quote = None  # the closing delimiter of the string literal we are in: '"' or '"#', '"##', ...
    index = 0
    while index < len(line):
        if quote:
            if line[index] == "\\" and quote == '"':
                index += 2
                continue
            if line.startswith(quote, index):
                index += len(quote)
                quote = None
                continue
        elif line.startswith("//", index):
            return line[index:]
        elif line[index] in '#"':
            hashes = len(line[index:]) - len(line[index:].lstrip("#"))
            if line.startswith('"', index + hashes):
                quote = '"' + "#" * hashes
                index += hashes + (3 if line.startswith('"""', index + hashes) else 1)
                continue
        index += 1
    return None


def swift_files(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
        for folder, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            for name in sorted(names):
                if name.endswith(".swift"):
                    yield os.path.join(folder, name)


def check_comments(root, paths):
    """--comments: file:line for every Swift comment that refers to an issue, the seed or design.md."""
    paths = paths or [os.path.join(root, entry) for entry in COMMENTED]
    failures = 0
    checked = 0
    for path in swift_files(paths):
        with open(path, encoding="utf-8") as handle:
            lines = handle.readlines()
        checked += 1
        for number, line in enumerate(lines, 1):
            comment = swift_comment(line)
            if comment is None:
                continue
            for pattern, what in COMMENT_REFERENCES:
                for match in pattern.finditer(comment):
                    failures += 1
                    shown = os.path.relpath(path, root) if os.path.abspath(path).startswith(root + os.sep) else path
                    print("%s:%d: comment refers to %s: %r (state the rule and link the doc section)"
                          % (shown, number, what, match.group(0)))
    if failures:
        print("ref-check --comments: %d comments refer outside the repository in %d Swift files" % (failures, checked))
        return 1
    print("ref-check --comments: no comment in %d Swift files refers to an issue, the seed or design.md" % checked)
    return 0


def main(argv):
    default_root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    if len(argv) > 1 and argv[1] == "--comments":
        return check_comments(default_root, argv[2:])
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    myself = os.path.abspath(__file__)
    failures = 0
    checked = 0
    for path in files_under(root):
        if os.path.abspath(path) == myself:
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                lines = handle.readlines()
        except (UnicodeDecodeError, OSError):
            continue
        checked += 1
        for number, line in enumerate(lines, 1):
            for problem in check_line(root, path, line):
                failures += 1
                print("%s:%d: %s" % (os.path.relpath(path, root), number, problem))
    if failures:
        print("ref-check: %d unresolved references in %d files checked" % (failures, checked))
        return 1
    print("ref-check: every reference in %d files resolves inside the repository" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
