#!/usr/bin/env python3
"""compare_loader.py - a refactor of the scenario loader keeps its behaviour.

usage: tools/compare_loader.py [-j N] [--replay OLD_FUZZ NEW_FUZZ] [--show N]
                               OLD_KSIM NEW_KSIM [FILE|DIR...]

Runs `ksim validate --resolved FILE` with both binaries on every file (default:
scenarios/*.json and tests/fuzz/regress/*/*; a directory stands for every
file in it) and compares standard output, standard error and exit status
byte for byte. Both run in the current directory with the path as given,
since the path is part of the messages.

A file that starts with override lines, as the scenario fuzzers read their
inputs (tests/fuzz/fuzz_input.h: up to four leading PATH=VALUE lines), is
also run the way those harnesses load it: its body written to a file of its
own (the same path for both binaries) and each line given as --set.

--replay runs the two builds' fuzz_scenario replay programs over the same
files (in batches) and compares their exit status and standard error: an
input that aborts one and not the other is a difference.

Prints one line per difference (the first --show of them with the two
outputs' first differing line), then the counts; exits 1 if anything
differs. Nothing is written outside a temporary directory.
"""
import argparse
import concurrent.futures
import glob
import os
import resource
import shutil
import subprocess
import sys
import tempfile

MAX_OVERRIDES = 4        # KS_FUZZ_MAX_OVERRIDES
TIMEOUT_S = 120
MEMORY_BYTES = 4 << 30   # per process: a world past this is not a loader's question
REPLAY_BATCH = 400


def split_overrides(data):
    """The leading --set lines of a fuzzer input and the rest (fuzz_input.c)."""
    sets = []
    pos = 0
    while len(sets) < MAX_OVERRIDES and pos < len(data):
        if data[pos:pos + 1] in (b"{", b" ", b"\t", b"\r", b"\n", b"="):
            break
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        line = data[pos:nl]
        if b"\0" in line or b"=" not in line:
            break
        sets.append(line)
        pos = nl + 1
    return sets, data[pos:]


def limit_child():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def run(cmd):
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TIMEOUT_S, preexec_fn=limit_child)
        return (p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired:
        return ("timeout", b"", b"")


def first_difference(a, b):
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else b"(end)"
        y = lb[i] if i < len(lb) else b"(end)"
        if x != y:
            return i + 1, x[:300], y[:300]
    return None


def compare(old, new, args):
    """None when both runs agree, else a description of how they differ."""
    a, b = run([old] + args), run([new] + args)
    if a == b:
        return None, a[0] == "timeout"
    what = []
    if a[0] != b[0]:
        what.append("exit %s before, %s after" % (a[0], b[0]))
    for name, x, y in (("stdout", a[1], b[1]), ("stderr", a[2], b[2])):
        d = first_difference(x, y)
        if d:
            what.append("%s differs from line %d:\n    before: %r\n    after:  %r" % ((name,) + d))
    return "; ".join(what), False


def check_file(path, old, new, split_dir, index):
    """[(mode, difference or None, timed out)] for one input file."""
    results = []
    diff, to = compare(old, new, ["validate", "--resolved", path])
    results.append(("plain", diff, to))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return results + [("split", "cannot read: %s" % e, False)]
    sets, body = split_overrides(data)
    if sets:
        body_path = os.path.join(split_dir, "%d-%s" % (index, os.path.basename(path)))
        with open(body_path, "wb") as f:
            f.write(body)
        args = ["validate", "--resolved"]
        for s in sets:
            args += ["--set", s]
        diff, to = compare(old, new, args + [body_path])
        results.append(("split", diff, to))
        os.unlink(body_path)
    return results


def expand(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, n) for n in os.listdir(p)
                            if not n.startswith(".") and os.path.isfile(os.path.join(p, n)))
        else:
            files.append(p)
    return files


def replay(old, new, files):
    """Differences between the two replay programs over the files, in batches."""
    diffs = []
    for i in range(0, len(files), REPLAY_BATCH):
        batch = files[i:i + REPLAY_BATCH]
        a, b = run([old] + batch), run([new] + batch)
        # the last line names the program; compare the rest
        strip = lambda r: (r[0], r[2].replace(old.encode(), b"X").replace(new.encode(), b"X"))
        if strip(a) != strip(b):
            diffs.append("replay batch %d (%s ...): exit %s before, %s after"
                         % (i // REPLAY_BATCH, batch[0], a[0], b[0]))
        elif a[0] != 0:
            diffs.append("replay batch %d (%s ...): both exit %s" % (i // REPLAY_BATCH, batch[0], a[0]))
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-j", type=int, default=2, help="processes at once (default 2)")
    ap.add_argument("--replay", nargs=2, metavar=("OLD_FUZZ", "NEW_FUZZ"))
    ap.add_argument("--show", type=int, default=20, help="differences shown in full")
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("files", nargs="*")
    o = ap.parse_args()
    root = os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    paths = o.files or (sorted(glob.glob(os.path.join(root, "scenarios", "*.json"))) +
                        sorted(glob.glob(os.path.join(root, "tests", "fuzz", "regress", "*", "*"))))
    files = expand(paths)
    split_dir = tempfile.mkdtemp(prefix="compare_loader.")
    counts = {"plain": 0, "split": 0}
    timeouts, differ = 0, []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=o.j) as ex:
            futs = [ex.submit(check_file, f, o.old, o.new, split_dir, i)
                    for i, f in enumerate(files)]
            for f, fut in zip(files, futs):
                for mode, diff, to in fut.result():
                    counts[mode] += 1
                    timeouts += to
                    if diff:
                        differ.append((f, mode, diff))
    finally:
        shutil.rmtree(split_dir, ignore_errors=True)
    for k, (f, mode, diff) in enumerate(differ):
        print("DIFF %s (%s): %s" % (f, mode, diff if k < o.show else diff.split("\n")[0]))
    replay_diffs = replay(o.replay[0], o.replay[1], files) if o.replay else []
    for d in replay_diffs:
        print("DIFF " + d)
    print("%d files: %d plain runs and %d runs with their --set lines compared, %d differ%s"
          % (len(files), counts["plain"], counts["split"], len(differ),
             ", %d timed out in both" % timeouts if timeouts else ""))
    if o.replay:
        print("replay: %d batches of at most %d files, %d differ or failed"
              % ((len(files) + REPLAY_BATCH - 1) // REPLAY_BATCH, REPLAY_BATCH, len(replay_diffs)))
    return 1 if differ or replay_diffs else 0


if __name__ == "__main__":
    sys.exit(main())
