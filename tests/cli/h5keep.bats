#!/usr/bin/env bats
# h5keep.bats - an HDF5 file comes back whole through compress and
# decompress: links, typed attributes, non-float, null, scalar and
# zero-size datasets; what cannot be kept is refused by name; messages a
# user can act on (a missing filter, a locked file, a string lr); the
# decompressed bytes do not depend on the clock; 1.0 files still read

bats_require_minimum_version 1.5.0

load helpers

PY=/usr/bin/python3

# tree FILE OUT - everything FILE holds, read by h5py (tests/h5tree.py)
tree() {
	"$PY" "$ROOT/tests/h5tree.py" "$1" > "$2"
}

# same_tree A B - the whole files agree: links, types, shapes, bytes
same_tree() {
	tree "$1" a.tree || return 1
	tree "$2" b.tree || return 1
	diff a.tree b.tree > ab.diff || { echo "$1 and $2 differ:"; head -20 ab.diff; return 1; }
}

# round FILE - compress and decompress FILE into back.h5, quietly
round() {
	run -0 --separate-stderr gtool compress -q -f "$1" -o r.gtz
	[ -z "$stderr" ] || { echo "compress: $stderr"; return 1; }
	run -0 --separate-stderr gtool decompress -q -f r.gtz -o back.h5
	[ -z "$stderr" ] || { echo "decompress: $stderr"; return 1; }
}

@test "h5keep: the rich file comes back whole, every link, type and byte" {
	"$PY" "$ROOT/tests/h5rich.py" rich.h5
	round rich.h5
	same_tree rich.h5 back.h5
	# and the check sees what it must: a changed attribute type is caught
	"$PY" -c 'import h5py, numpy as np, sys
with h5py.File(sys.argv[1], "a") as f:
    f.attrs["big"] = np.int64(5)' back.h5
	run -1 same_tree rich.h5 back.h5
}

@test "h5keep: a null dataspace next to other datasets; scalar and zero-size ones" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("e.h5", "w") as f:
    f.create_dataset("a", data=np.arange(4, dtype="f4"))
    f.create_dataset("e", data=h5py.Empty("f4"))
    f.create_dataset("s", data=np.float64(2.5))
    f.create_dataset("z", data=np.zeros((0, 3), dtype="f4"))'
	round e.h5
	run -0 --separate-stderr gtool ls --format csv r.gtz
	[[ $output == *"r.gtz,/e,f32,empty,0,0,"* ]]
	[[ $output == *"r.gtz,/s,f64,scalar,1,8,"* ]]
	[[ $output == *"r.gtz,/z,f32,0x3,0,0,"* ]]
	same_tree e.h5 back.h5
}

@test "h5keep: a hard link is both names to ls and stats, stored once, restored as a link" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("h.h5", "w") as f:
    f.create_dataset("a", data=np.linspace(-1, 1, 1000, dtype="f4"))
    f["b"] = f["a"]'
	run -0 --separate-stderr gtool stats --format csv -d /b h.h5
	b_row=$(printf '%s\n' "$output" | awk -F, '$2 == "/b"' | cut -d, -f3-)
	run -0 --separate-stderr gtool stats --format csv -d /a h.h5
	a_row=$(printf '%s\n' "$output" | awk -F, '$2 == "/a"' | cut -d, -f3-)
	[ -n "$a_row" ] && [ "$a_row" = "$b_row" ]
	round h.h5
	run -0 gtool ls --format csv r.gtz
	[[ $output == *"r.gtz,/a,f32,1000,1000,4000,"* && $output == *"r.gtz,/b,f32,1000,1000,4000,"* ]]
	run -0 gtool ls --records --format csv r.gtz
	[ "$(printf '%s\n' "$output" | grep -c ',tensor,')" -eq 1 ]
	[ "$(printf '%s\n' "$output" | grep -c ',link,.*,/b,')" -eq 1 ]
	run -0 --separate-stderr gtool error --format csv -d /b h.h5 r.gtz
	[[ $output == *"/b"* ]]
	same_tree h.h5 back.h5
	grep -qx 'hard /b = /a' b.tree
}

@test "h5keep: soft and external links are kept as links" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("l.h5", "w") as f:
    f.create_dataset("g/x", data=np.ones(3, dtype="f4"))
    f["s"] = h5py.SoftLink("/g/x")
    f["g/dangling"] = h5py.SoftLink("nowhere")
    f["ext"] = h5py.ExternalLink("other.h5", "/y")'
	round l.h5
	same_tree l.h5 back.h5
	grep -qx 'soft /s -> /g/x' b.tree
	grep -qx 'soft /g/dangling -> nowhere' b.tree
	grep -qx 'external /ext -> other.h5:/y' b.tree
}

@test "h5keep: a uint64 above 2^63 and Keras layer_names keep their type and bytes" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("k.h5", "w") as f:
    f.attrs["layer_names"] = np.array([b"dense", b"dense_1"])
    f.attrs["big"] = np.uint64(2**63 + 5)
    f.create_dataset("w", data=np.ones(3, dtype="f4"))'
	round k.h5
	run -0 "$PY" -c 'import h5py, sys
f = h5py.File("back.h5", "r")
print(f.attrs["big"].dtype, int(f.attrs["big"]), f.attrs["layer_names"].dtype, list(f.attrs["layer_names"]))'
	[ "$output" = "uint64 9223372036854775813 |S7 [b'dense', b'dense_1']" ]
}

@test "h5keep: non-float datasets are listed with their type and stored whole" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("n.h5", "w") as f:
    f.create_dataset("w", data=np.ones(8, dtype="f4"))
    f.create_dataset("labels", data=np.arange(100, dtype="i8")).attrs["n"] = 100
    f.create_dataset("mask", data=np.array([True, False]))
    f.create_dataset("names", data=["a", "bc"], dtype=h5py.string_dtype())
    f.create_dataset("recs", data=np.zeros(2, dtype=[("i", "i4"), ("x", "f8")]))'
	run -0 --separate-stderr gtool ls --format csv n.h5
	[[ $output == *"n.h5,/labels,int64,100,100,"* && $output == *"n.h5,/mask,bool,2,2,"* ]]
	[[ $output == *"n.h5,/names,string,2,2,"* && $output == *"n.h5,/recs,compound,2,2,"* ]]
	round n.h5
	run -0 --separate-stderr gtool ls --format csv r.gtz
	[[ $output == *"r.gtz,/labels,int64,100,100,,zstd,"* ]]
	run -0 --separate-stderr gtool stats --format csv r.gtz
	[ "$(printf '%s\n' "$output" | grep -c '/labels')" -eq 0 ]
	same_tree n.h5 back.h5
}

@test "h5keep: what cannot be kept is an error by name, or with --lossy-metadata a warning" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("v.h5", "w") as f:
    f.create_dataset("w", data=np.ones(3, dtype="f4"))
    f.attrs.create("ragged", [np.array([1, 2], "i4"), np.array([3], "i4")], dtype=h5py.vlen_dtype("i4"))
    f.attrs["ok"] = 1
    r = f.create_dataset("rag", (2,), dtype=h5py.vlen_dtype("i4"))
    r[0] = [1, 2]
    f["rag2"] = r'
	run -1 --separate-stderr gtool compress v.h5 -o v.gtz
	[ "${stderr_lines[0]}" = "gtool compress: v.h5: attribute ragged of / is a variable-length sequence, which gtool cannot keep (--lossy-metadata to go on without it)" ]
	[ "${stderr_lines[1]}" = "gtool compress: v.h5: dataset /rag is a variable-length sequence, which gtool cannot keep (--lossy-metadata to go on without it)" ]
	[ "${stderr_lines[2]}" = "gtool compress: v.h5: link /rag2 names /rag, which gtool cannot keep (--lossy-metadata to go on without it)" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	[ ! -e v.gtz ]
	run -0 --separate-stderr gtool compress --lossy-metadata v.h5 -o v.gtz
	[ "${stderr_lines[0]}" = "gtool compress: warning: v.h5: attribute ragged of / is a variable-length sequence, which gtool cannot keep: not kept" ]
	[ "${stderr_lines[1]}" = "gtool compress: warning: v.h5: dataset /rag is a variable-length sequence, which gtool cannot keep: not kept" ]
	run -0 --separate-stderr gtool decompress -q v.gtz -o back.h5
	run -0 "$PY" -c 'import h5py; f = h5py.File("back.h5", "r"); print(sorted(f.attrs), sorted(f))'
	[ "$output" = "['ok'] ['w']" ]
}

@test "h5keep: a dataset of an unavailable filter plugin is named with HDF5_PLUGIN_PATH" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("z.h5", "w") as f:
    f.create_dataset("x", data=np.arange(1000, dtype="f4"), compression="lzf")
    f.create_dataset("ok", data=np.arange(10, dtype="f4"))'
	run -0 --separate-stderr gtool ls --format csv z.h5
	[[ $output == *"z.h5,/x,f32,1000,"* ]]
	run -1 --separate-stderr gtool compress z.h5 -o z.gtz
	[ "$stderr" = "gtool compress: z.h5: dataset /x uses HDF5 filter 32000 (lzf), which is not available: set HDF5_PLUGIN_PATH" ]
	[ ! -e z.gtz ]
	run -0 --separate-stderr gtool stats -d /ok z.h5
}

@test "h5keep: a file another program holds open for writing names HDF5_USE_FILE_LOCKING" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("lk.h5", "w") as f:
    f.create_dataset("x", data=np.ones(3, dtype="f4"))'
	"$PY" -c 'import h5py, time
f = h5py.File("lk.h5", "a")
open("ready", "w").close()
time.sleep(30)' &
	local writer=$!
	for _ in $(seq 100); do [ -e ready ] && break; sleep 0.1; done
	run -1 --separate-stderr gtool ls lk.h5
	kill "$writer"
	[ "$stderr" = "gtool ls: lk.h5: the file is locked: another program has it open for writing; wait for it to close the file, or set HDF5_USE_FILE_LOCKING=FALSE to read it anyway" ]
}

@test "h5keep: an lr attribute stored as a string is said to be a string" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("t.h5", "w") as f:
    f.attrs["optimizer"] = "sgd"
    g = f.create_group("step_000010")
    g.attrs["lr"] = "0.1"
    g.create_dataset("grad/w", data=np.ones(100, dtype="f4"))
    g.create_dataset("param/w", data=np.ones(100, dtype="f4"))'
	run -1 --separate-stderr gtool compress -c gcomp t.h5 -o t.gtz
	[ "$stderr" = "gtool compress: t.h5: attribute lr of /step_000010 is a string, expected a number" ]
}

@test "h5keep: decompress writes the same bytes at another time" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("t.h5", "w") as f:
    f.attrs["lr"] = 0.1
    f.create_dataset("step_000001/grad/w", data=np.arange(64, dtype="f4"))'
	run -0 gtool compress -q t.h5 -o r.gtz
	run -0 gtool decompress -q r.gtz -o one.h5
	sleep 1.1
	run -0 gtool decompress -q -T 1 r.gtz -o two.h5
	cmp one.h5 two.h5
}

@test "h5keep: a .gtz of format 1.0 still decodes" {
	run -0 --separate-stderr gtool decompress -q "$FIXTURES/v1_0.gtz" -o old.h5
	[ -z "$stderr" ]
	run -0 "$PY" -c 'import h5py, numpy as np
f = h5py.File("old.h5", "r")
w = f["step_000001/grad/w"][()]
b = f["step_000001/grad/b"][()]
ok = (w.dtype == np.float32 and w.tobytes() == (np.arange(100, dtype="f4") / 7).tobytes()
      and b.tobytes() == np.linspace(-1, 1, 10).astype("f8").tobytes())
print(ok, f.attrs["optimizer"], f.attrs["lr"], list(f.attrs["steps"]),
      f["step_000001"].attrs["step"], f["step_000001/grad/b"].attrs["unit"])'
	[ "$output" = "True adam 0.001 [1, 2, 3] 1 x" ]
}

@test "h5keep: an unknown record is refused as needing a newer gtool" {
	run -0 gtool ls --records --format csv "$FIXTURES/v1_0.gtz"
	at=$(printf '%s\n' "$output" | awk -F, '$3 == "index" { print $2 }')
	[ -n "$at" ]
	"$PY" -c 'import sys, zlib
data = open(sys.argv[1], "rb").read()
at = int(sys.argv[2])
rec = b"X\x00" + zlib.crc32(b"X\x00").to_bytes(4, "little")
open("x.gtz", "wb").write(data[:at] + rec + data[at:])' "$FIXTURES/v1_0.gtz" "$at"
	run -1 --separate-stderr gtool decompress x.gtz -o x.h5
	[ "$stderr" = "gtool decompress: x.gtz: offset $at: unknown record 'X': the file needs a newer gtool (this one reads format 1.5)" ]
	[ ! -e x.h5 ]
}

@test "h5keep: a name over 64 KiB is named, cut short, in the message" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("long.h5", "w") as f:
    f.create_dataset("a" * 70000, data=np.ones(3, dtype="f4"))'
	run -1 --separate-stderr gtool compress long.h5 -o long.gtz
	[ "$stderr" = "gtool compress: long.h5: dataset /$(printf 'a%.0s' $(seq 47))... is 70001 bytes long, over the 65535 a .gtz name may have" ]
	[ ! -e long.gtz ]
}

@test "h5keep: a raw or .npy output says what it leaves out" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("one.h5", "w") as f:
    f.create_dataset("w", data=np.arange(8, dtype="f4"))
    f.create_dataset("labels", data=np.arange(3))
    f["s"] = h5py.SoftLink("/w")'
	run -0 --separate-stderr gtool compress -q one.h5 -o one.gtz
	run -0 --separate-stderr gtool decompress one.gtz -o w.npy
	[ "$stderr" = "gtool decompress: warning: one.gtz: 2 links and non-float datasets left out: w.npy holds one float tensor" ]
	run -0 "$PY" -c 'import numpy as np; print(np.load("w.npy").tolist())'
	[ "$output" = "[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]" ]
}

@test "h5keep: a stored type of pointers (a vlen sequence) is refused, not written" {
	# a hand-made 1.1 file: one D record of a vlen int type, whose 32
	# bytes would be read as pointers if it were written as they are
	"$PY" -c 'import struct, zlib, h5py
def uv(n):
    out = b""
    while True:
        b = n & 0x7f
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out
def s(x):
    return uv(len(x)) + x
def rec(tag, body):
    head = tag + uv(len(body))
    return head + body + struct.pack("<I", zlib.crc32(head + body))
tid = h5py.h5t.vlen_create(h5py.h5t.NATIVE_INT32).encode()
data = struct.pack("<QQQQ", 4, 0x4141414141414141, 4, 0x4242424242424242)
frame = struct.pack("<I", 0xFD2FB528) + bytes([0x20, len(data), 0x01, 0x01, 0x00]) + data
body = s(b"/v") + s(b"vlen") + uv(len(tid)) + tid + bytes([1, 1]) + uv(2) + bytes([0])
body += uv(0) + uv(len(data)) + struct.pack("<I", zlib.crc32(data)) + uv(len(frame))
head = b"\x89GTZ" + struct.pack("<HHI", 1, 1, 0)
out = head + struct.pack("<I", zlib.crc32(head)) + rec(b"D", body) + frame
idx = len(out)
out += rec(b"I", uv(0)) + rec(b"Z", uv(idx) + uv(0))
open("v.gtz", "wb").write(out)'
	run -0 --separate-stderr gtool ls --format csv v.gtz
	[[ $output == *"v.gtz,/v,vlen,2,2,"* ]]
	run -1 --separate-stderr gtool decompress v.gtz -o v.h5
	[ "$stderr" = "gtool decompress: v.h5: dataset /v: its stored type or bytes are bad" ]
	[ ! -e v.h5 ]
}
