#!/usr/bin/python3
"""payloads.py GTOOL FILE.gtz - the SHA-256 of FILE's coded blocks: every
B record's payload in file order (what the codecs wrote, without the
container's headers, attributes and index), the offsets from
`GTOOL ls --records`.  tests/golden/gen-compress.sh and
tests/cli/golden.bats take it, one process per file (a tail and a head per
block took minutes over the golden list)."""
import hashlib
import subprocess
import sys


def main():
    gtool, path = sys.argv[1], sys.argv[2]
    rows = subprocess.run([gtool, "ls", "--records", "--format", "tsv", path],
                          check=True, capture_output=True, text=True).stdout.splitlines()
    col = {name: i for i, name in enumerate(rows[0].split("\t"))}
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for line in rows[1:]:
            r = line.split("\t")
            if r[col["record"]] != "block":
                continue
            f.seek(int(r[col["payload_offset"]]))
            n = int(r[col["payload_bytes"]])
            data = f.read(n)
            if len(data) != n:
                sys.exit("payloads.py: %s: a block's payload runs past the end" % path)
            digest.update(data)
    print(digest.hexdigest())


if __name__ == "__main__":
    main()
