#!/usr/bin/env python3
"""Checks run.py's process lifecycle (make run-check runs it after the session):

1. a second run on the same state folder refuses with a clear message naming the first one's pid;
2. SIGINT (what Ctrl-C sends) stops the first run and every process it started, bootstraps included.

Uses `--script 0` on a free port and a throw-away state folder. Exit 0 when both hold, 1 otherwise.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def descendants(pid):
    """Every process below `pid`, from /proc (children before grandchildren)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                parents.setdefault(int(fields[1]), []).append(int(entry))
            except (OSError, IndexError):
                continue
    found, queue = [], [pid]
    while queue:
        for child in parents.get(queue.pop(0), []):
            found.append(child)
            queue.append(child)
    return found


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def executable(pid):
    try:
        return os.path.basename(os.readlink("/proc/%d/exe" % pid))
    except OSError:
        return None


def main():
    state = tempfile.mkdtemp(prefix="attestgate-run-lifecycle-")
    command = [sys.executable, os.path.join(HERE, "run.py"), "--script", "0", "--port", "0", "--state-dir", state]
    command += sys.argv[1:]  # --bootstrap/--attestgate/--demo as make passes them
    failures = []
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        output = []
        deadline = time.time() + 60
        while time.time() < deadline:
            line = first.stdout.readline()
            if not line:
                break
            output.append(line)
            if line.startswith("Serving on"):
                break
        if not any(line.startswith("Serving on") for line in output):
            print("".join(output))
            print("lifecycle: the first run did not start serving")
            return 1
        started = descendants(first.pid)
        bootstraps = [pid for pid in started if executable(pid) == "bootstrap"]
        if len(bootstraps) < 1:
            failures.append("no bootstrap process below run.py")

        second = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if second.returncode != 1 or "already running (pid %d" % first.pid not in second.stderr:
            failures.append("second run: exit %d, %r" % (second.returncode, second.stderr.strip()))

        first.send_signal(signal.SIGINT)
        try:
            status = first.wait(timeout=20)
        except subprocess.TimeoutExpired:
            failures.append("SIGINT did not stop run.py within 20 s")
            status = None
        if status not in (0, None):
            failures.append("run.py exited %s after SIGINT" % status)
        time.sleep(0.5)
        left = [pid for pid in started if alive(pid)]
        if left:
            failures.append("still running after SIGINT: %s" % left)
            for pid in left:  # ours to clean up: started by the run under test
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
    finally:
        if first.poll() is None:
            first.kill()
        shutil.rmtree(state, ignore_errors=True)
    for failure in failures:
        print("lifecycle: FAIL %s" % failure)
    if not failures:
        print("lifecycle: a second run is refused by name; SIGINT stopped all %d processes (%d bootstraps)"
              % (len(started), len(bootstraps)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
