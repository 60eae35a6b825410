#!/usr/bin/env python3
"""The module graph of docs/architecture.md, generated from Package.swift, and `--check` that it is current.

Package.swift declares its targets with `module(name, in: folder, [dependencies])` (a Swift target in
folder/name), `tests(name, [dependencies])`, and the plain `.target`, `.executableTarget`, `.systemLibrary`
and `.testTarget` calls. This reads the `targets: [...]` list of the `Package(...)` call with a small
scanner (comments and string literals are skipped when brackets are matched), and writes between the
markers `<!-- module-graph:begin -->` and `<!-- module-graph:end -->` of docs/architecture.md:

  - every module of the product (a path under Sources/), grouped by its layer folder (Sources/1-C ...
    Sources/7-Executables), with its kind and its direct dependencies;
  - the one-way rule: a module depends only on modules of its own or a lower-numbered folder, and never on
    what does not ship; every dependency that breaks it is listed in the block;
  - the tools (Tools/), separately, with their direct dependencies (test support marked);
  - a count of what is left out (test suites, Tests/Support).

`--check` (run by `make ref-check`, part of `make test`) writes nothing: it exits 1 with a diff when the
block differs from what this would write, and exits 1 when a dependency points upward.

Usage: module-graph.py [--check] [--package PATH] [--doc PATH]
  (defaults: Package.swift and docs/architecture.md of the repository this script is in)
"""
import argparse
import difflib
import os
import re
import sys

BEGIN = "<!-- module-graph:begin -->"
END = "<!-- module-graph:end -->"
CALLS = {"module", "tests", ".target", ".executableTarget", ".systemLibrary", ".testTarget"}
CALL = re.compile(r"(\.?[A-Za-z_][A-Za-z0-9_]*)\s*\(")
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
LAYER = re.compile(r"^(Sources/(\d+)-[^/]+)/")


class ManifestError(Exception):
    pass


def strip_comments(text):
    """The manifest with `//` and `/* */` comments blanked out (string literals kept as they are)."""
    out = []
    i = 0
    while i < len(text):
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
        elif text[i] == '"':
            match = STRING.match(text, i)
            if not match:
                raise ManifestError("unterminated string literal at offset %d" % i)
            out.append(match.group(0))
            i = match.end()
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def closing(text, start):
    """The index just past the bracket that closes the one at `start` (strings skipped)."""
    pairs = {"(": ")", "[": "]"}
    stack = [pairs[text[start]]]
    i = start + 1
    while i < len(text):
        char = text[i]
        if char == '"':
            i = STRING.match(text, i).end()
            continue
        if char in pairs:
            stack.append(pairs[char])
        elif char in ")]":
            if char != stack.pop():
                raise ManifestError("unbalanced %r at offset %d" % (char, i))
            if not stack:
                return i + 1
        i += 1
    raise ManifestError("unclosed %r at offset %d" % (text[start], start))


def top_level_calls(text):
    """(callee, arguments) for each call directly inside a bracketed list body."""
    i = 0
    while i < len(text):
        char = text[i]
        if char == '"':
            i = STRING.match(text, i).end()
            continue
        match = CALL.match(text, i)
        if match and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_.")):
            open_at = match.end() - 1
            end = closing(text, open_at)
            yield match.group(1), text[open_at + 1:end - 1]
            i = end
            continue
        if char in "([":
            i = closing(text, i)
            continue
        i += 1


def labelled(arguments, label):
    """Where the value of the argument `label:` starts, looking only at the list's own level."""
    pattern = re.compile(r"\b%s\s*:\s*" % label)
    i = 0
    while i < len(arguments):
        char = arguments[i]
        if char == '"':
            i = STRING.match(arguments, i).end()
            continue
        if char in "([":
            i = closing(arguments, i)
            continue
        match = pattern.match(arguments, i)
        if match and (i == 0 or not (arguments[i - 1].isalnum() or arguments[i - 1] == "_")):
            return match.end()
        i += 1
    return None


def string_argument(arguments, label):
    at = labelled(arguments, label)
    if at is None:
        return None
    match = STRING.match(arguments, at)
    return match.group(1) if match else None


def dependency_names(list_text):
    """The target names in a `[Target.Dependency]` literal: "Name", .target(name: "Name"), .product(...)."""
    names = []
    for callee, arguments in top_level_calls(list_text):
        name = string_argument(arguments, "name")
        if callee == ".product":
            names.append("%s (package %s)" % (name, string_argument(arguments, "package")))
        elif name:
            names.append(name)
    # Plain string literals at the list's top level (calls were consumed above; remove their text first).
    plain = re.sub(r"\.?[A-Za-z_]\w*\s*\((?:[^()]|\([^()]*\))*\)", "", list_text)
    names.extend(STRING.findall(plain))
    return names


def first_list(arguments, after=0):
    start = arguments.find("[", after)
    if start < 0:
        return ""
    return arguments[start + 1:closing(arguments, start) - 1]


def parse(text):
    """Every target of the manifest: {name: {kind, path, dependencies, order}}."""
    text = strip_comments(text)
    package = re.search(r"\bPackage\s*\(", text)
    if not package:
        raise ManifestError("no Package(...) call")
    body = text[package.end():closing(text, package.end() - 1) - 1]
    at = labelled(body, "targets")
    if at is None or body[at] != "[":
        raise ManifestError("no `targets: [...]` in Package(...)")
    targets_text = body[at + 1:closing(body, at) - 1]
    targets = {}
    for callee, arguments in top_level_calls(targets_text):
        if callee not in CALLS:
            raise ManifestError("unknown target declaration %s(...): teach scripts/module-graph.py" % callee)
        if callee in ("module", "tests"):
            name_match = STRING.match(arguments.lstrip())
            if not name_match:
                raise ManifestError("%s(...) without a name literal first" % callee)
            name = name_match.group(1)
            if callee == "module":
                folder = string_argument(arguments, "in")
                if folder is None:
                    raise ManifestError("module(%r) without `in:`" % name)
                path, kind = "%s/%s" % (folder, name), "Swift"
            else:
                path, kind = "Tests/%s" % name, "tests"
            dependencies = dependency_names(first_list(arguments))
        else:
            name = string_argument(arguments, "name")
            if name is None:
                raise ManifestError("%s(...) without `name:`" % callee)
            path = string_argument(arguments, "path")
            kind = {".target": "C", ".executableTarget": "executable", ".systemLibrary": "system library",
                    ".testTarget": "tests"}[callee]
            if path is None:
                path = ("Tests/%s" if kind == "tests" else "Sources/%s") % name
            deps_at = labelled(arguments, "dependencies")
            dependencies = dependency_names(first_list(arguments, deps_at)) if deps_at is not None else []
        if name in targets:
            raise ManifestError("target %s declared twice" % name)
        targets[name] = {"kind": kind, "path": path.rstrip("/"), "dependencies": dependencies,
                         "order": len(targets)}
    return targets


def c_or_swift(root, target):
    """A plain `.target` is C when its folder holds C sources (or its path cannot be read), else Swift."""
    if target["kind"] != "C" or root is None:
        return target["kind"]
    folder = os.path.join(root, target["path"])
    for _, _, names in os.walk(folder):
        if any(name.endswith(".swift") for name in names):
            return "Swift"
    return "C"


def layer_of(path):
    """(number, folder) of the layer folder a product module's path lies in (at any depth below it)."""
    match = LAYER.match(path)
    return (int(match.group(2)), match.group(1)) if match else None


def render(targets, root):
    product = {n: t for n, t in targets.items() if t["path"].startswith("Sources/")}
    tools = {n: t for n, t in targets.items() if t["path"].startswith("Tools/")}
    support = {n: t for n, t in targets.items() if t["path"].startswith("Tests/Support/")}
    clients = {n: t for n, t in targets.items() if t["path"].startswith("Clients/")}
    suites = {n: t for n, t in targets.items() if t["kind"] == "tests"}
    loose = [n for n, t in product.items() if layer_of(t["path"]) is None]
    if loose:
        raise ManifestError("product modules outside a numbered layer folder: %s" % ", ".join(sorted(loose)))

    def by_layer(name):
        return (layer_of(product[name]["path"])[0], product[name]["order"])

    lines = [BEGIN, "<!-- Generated from Package.swift by scripts/module-graph.py: do not edit by hand. -->", ""]
    edges = sum(len(t["dependencies"]) for t in product.values())
    lines.append("The product: %d modules in %d layer folders, %d direct dependencies; (n) after a dependency "
                 "is its layer folder's number." % (
                     len(product), len({layer_of(t["path"]) for t in product.values()}), edges))
    lines.append("")
    upward, same_layer = [], []
    current = None
    for name in sorted(product, key=by_layer):
        target = product[name]
        number, folder = layer_of(target["path"])
        if folder != current:
            if current is not None:
                lines.append("")
            lines.extend(["`%s`" % folder, "", "| module | kind | depends on (directly) |", "|---|---|---|"])
            current = folder
        shown = []
        for dependency in target["dependencies"]:
            other = product.get(dependency)
            if other is None and " (package " in dependency:
                shown.append("`%s`" % dependency)  # another package's product: outside the layers
                continue
            if other is None:
                upward.append((name, number, dependency, "does not ship (%s)" % targets.get(
                    dependency, {"path": "not a target of this package"})["path"]))
                shown.append("`%s` (not shipped)" % dependency)
                continue
            other_number = layer_of(other["path"])[0]
            if other_number > number:
                upward.append((name, number, dependency, "layer %d, `%s`" % (
                    other_number, layer_of(other["path"])[1])))
            elif other_number == number:
                same_layer.append((name, dependency))
            shown.append("`%s` (%d)" % (dependency, other_number))
        kind = c_or_swift(root, target)
        lines.append("| `%s` | %s | %s |" % (name, kind, ", ".join(shown) if shown else "nothing"))
    lines.append("")
    if upward:
        lines.append("**Upward dependencies: %d.** Each breaks the one-way rule (a module depends only on "
                     "modules of its own or a lower-numbered folder, and on nothing that does not ship):" %
                     len(upward))
        lines.append("")
        for name, number, dependency, where in upward:
            lines.append("- `%s` (layer %d) → `%s`: %s" % (name, number, dependency, where))
    else:
        lines.append("**One way:** every dependency points to a module of the same or a lower-numbered folder; "
                     "none points upward or to anything that does not ship.")
    lines.append("")
    if same_layer:
        grouped = {}
        for name, dependency in same_layer:
            grouped.setdefault(name, []).append("`%s`" % dependency)
        lines.append("Within one folder: %s." % "; ".join(
            "`%s` → %s" % (name, ", ".join(names)) for name, names in grouped.items()))
        lines.append("")
    reached, queue = set(), [n for n, t in product.items() if t["kind"] == "executable"]
    while queue:
        name = queue.pop()
        if name in reached or name not in product:
            continue
        reached.add(name)
        queue.extend(product[name]["dependencies"])
    unreached = sorted(set(product) - reached)
    executables = sorted(n for n, t in product.items() if t["kind"] == "executable")
    lines.append("Shipped executable%s: %s; %s." % (
        "" if len(executables) == 1 else "s", ", ".join("`%s`" % n for n in executables),
        "every product module is linked into it" if not unreached else
        "not linked into any: %s" % ", ".join("`%s`" % n for n in unreached)))
    lines.append("")
    lines.extend(["Tools (`Tools/`, never shipped; † test support from `Tests/Support/`; ‡ a client library's "
                  "sources from `Clients/`):", "",
                  "| tool | folder | depends on (directly) |", "|---|---|---|"])
    for name in sorted(tools, key=lambda n: tools[n]["order"]):
        shown = []
        for dependency in tools[name]["dependencies"]:
            shown.append("`%s`%s" % (dependency, "†" if dependency in support else "‡" if dependency in clients else ""))
        lines.append("| `%s` | `%s` | %s |" % (name, tools[name]["path"], ", ".join(shown) or "nothing"))
    lines.append("")
    if clients:
        lines.append("Client libraries compiled here too (`Clients/`, each a package of its own for apps, never "
                     "shipped in the zip): %s." % "; ".join(
                         "`%s` (`%s`, depends on %s)" % (name, clients[name]["path"], ", ".join(
                             "`%s`" % d for d in clients[name]["dependencies"]) or "nothing")
                         for name in sorted(clients, key=lambda n: clients[n]["order"])))
        lines.append("")
    lines.append("Not shown: %d test suites (`Tests/`) and %d test-support modules (`Tests/Support/`: %s)." % (
        len(suites), len(support), ", ".join("`%s`" % n for n in sorted(support, key=lambda n: support[n]["order"]))))
    lines.append(END)
    return "\n".join(lines) + "\n", upward


def split_doc(text, doc_path):
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < 0 or end < begin:
        raise ManifestError("%s has no %s ... %s block" % (doc_path, BEGIN, END))
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    return text[:begin], text[begin:line_end], text[line_end:]


def main(argv):
    here = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    parser = argparse.ArgumentParser(description="The module graph of docs/architecture.md from Package.swift.")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the block is stale")
    parser.add_argument("--package", default=os.path.join(here, "Package.swift"))
    parser.add_argument("--doc", default=os.path.join(here, "docs", "architecture.md"))
    args = parser.parse_args(argv[1:])
    try:
        with open(args.package, encoding="utf-8") as handle:
            targets = parse(handle.read())
        root = os.path.dirname(os.path.abspath(args.package))
        if not os.path.isdir(os.path.join(root, "Sources")):
            root = here  # a copy of the manifest elsewhere: the folders are the repository's
        block, upward = render(targets, root)
        with open(args.doc, encoding="utf-8") as handle:
            before, current, after = split_doc(handle.read(), args.doc)
    except (ManifestError, OSError) as error:
        print("module-graph: %s" % error)
        return 1
    relative = os.path.relpath(args.doc, here)
    if args.check:
        status = 0
        if current != block:
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(True), block.splitlines(True), relative + " (now)", relative + " (from "
                + os.path.relpath(args.package, here) + ")"))
            print("module-graph: %s's module graph differs from Package.swift: run scripts/module-graph.py to "
                  "regenerate" % relative)
            status = 1
        if upward:
            for name, number, dependency, where in upward:
                print("module-graph: %s (layer %d) depends upward on %s: %s" % (name, number, dependency, where))
            status = 1
        if status == 0:
            print("module-graph: %s matches Package.swift (%d targets), and every dependency points one way" % (
                relative, len(targets)))
        return status
    if current != block:
        with open(args.doc, "w", encoding="utf-8") as handle:
            handle.write(before + block + after)
        print("module-graph: wrote the module graph into %s" % relative)
    else:
        print("module-graph: %s is already current" % relative)
    if upward:
        print("module-graph: %d upward dependencies, listed in the block" % len(upward))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
