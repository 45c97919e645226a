#!/bin/sh
# run-examples.sh RESULT BUILD - libgtool as an outsider uses it: install
# into a temporary prefix, build each examples/*.c with nothing but
# `pkg-config --cflags --libs gtool` and run it, once against libgtool.so
# and once against libgtool.a (`pkg-config --static`); compile gtool.h
# alone as C and as C++; install with DESTDIR, uninstall, find no file left.
# Each is one test in make check's summary.
out=$1
build=$2
make=${MAKE:-make}
cc=${CC:-cc}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { passed=$((passed + 1)); }
bad() { echo "examples: $1"; failed=$((failed + 1)); }

prefix=$tmp/prefix
if ! $make --no-print-directory -s install BUILD="$build" PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "examples: make install failed"
	echo "0 1" >"$out"
	exit 1
fi
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cflags=$(pkg-config --cflags gtool) || bad "pkg-config --cflags gtool"
libs=$(pkg-config --libs gtool)
# the static link: the same flags with -lgtool pointed at the archive, so
# that libgtool.a (not the .so beside it) and its private dependencies link
slibs=$(pkg-config --static --libs gtool | sed 's/-lgtool\b/-l:libgtool.a/')

# a .gtz written by the installed gtool, for list_gtz
"$prefix/bin/gtool" compress -q samples/lstm_adamw.h5 -o "$tmp/trace.gtz" ||
	bad "gtool compress samples/lstm_adamw.h5"

# run_example NAME KIND: check its exit status and what it prints
run_example() {
	name=$1 kind=$2 exe=$tmp/$1-$2
	case $name in
	list_gtz) set -- "$tmp/trace.gtz" /step_000001/grad/head.bias ;;
	*) set -- ;;
	esac
	if ! LD_LIBRARY_PATH=$prefix/lib "$exe" "$@" >"$exe.out" 2>&1; then
		cat "$exe.out"
		bad "$name ($kind) failed"
		return
	fi
	case $name in
	compress_array) grep -q '^huffexp: .* bit-identical$' "$exe.out" ;;
	list_gtz) grep -q '^tensor /step_000001/grad/head.bias f32 \[76\]' "$exe.out" &&
		grep -q '^group /step_000001$' "$exe.out" && grep -q '^read 304 bytes' "$exe.out" ;;
	error_metrics) grep -q '^values 4096 ' "$exe.out" ;;
	esac || { cat "$exe.out"; bad "$name ($kind): unexpected output"; return; }
	ok
}

for src in examples/*.c; do
	name=$(basename "$src" .c)
	# shellcheck disable=SC2086 # pkg-config's flags are words
	if $cc -Wall -Wextra -Werror $cflags "$src" -o "$tmp/$name-shared" $libs; then
		if readelf -d "$tmp/$name-shared" | grep -q 'NEEDED.*libgtool\.so\.0'; then
			run_example "$name" shared
		else
			bad "$name (shared) does not need libgtool.so.0"
		fi
	else
		bad "$name: cannot build against the installed libgtool.so"
	fi
	# shellcheck disable=SC2086
	if $cc -Wall -Wextra -Werror $cflags "$src" -o "$tmp/$name-static" $slibs; then
		if readelf -d "$tmp/$name-static" | grep -q 'libgtool'; then
			bad "$name (static) still needs libgtool.so"
		else
			run_example "$name" static
		fi
	else
		bad "$name: cannot build against the installed libgtool.a (pkg-config --static)"
	fi
done

# the example program of man/libgtool.3, as printed
sed -n '/^\.SH EXAMPLES/,/^\.SH /p' man/libgtool.3 | sed -n '/^\.EX$/,/^\.EE$/p' |
	sed -e '1d' -e '$d' -e 's/\\e/\\/g' -e 's/\\-/-/g' >"$tmp/man3.c"
# shellcheck disable=SC2086
if $cc -Wall -Wextra -Werror $cflags "$tmp/man3.c" -o "$tmp/man3" $libs &&
	(cd "$tmp" && LD_LIBRARY_PATH=$prefix/lib ./man3 >man3.out) &&
	grep -q '^/v: 2 dims, 1000 values$' "$tmp/man3.out"; then
	ok
else
	bad "the example of libgtool(3) does not build or run"
fi

# gtool.h alone, as C and as C++; a C++ program links (extern "C")
hdr=$prefix/include/gtool.h
# shellcheck disable=SC2086
$cc -std=c99 -Wall -Wextra -Wpedantic -Werror $cflags -fsyntax-only -x c "$hdr" && ok ||
	bad "gtool.h does not compile alone as C"
# shellcheck disable=SC2086
g++ -std=c++11 -Wall -Wextra -Wpedantic -Werror $cflags -fsyntax-only -x c++ "$hdr" && ok ||
	bad "gtool.h does not compile alone as C++"
printf '#include <gtool.h>\n#include <cstring>\nint main() { return std::strcmp(gtool_version(), GTOOL_VERSION_STRING) != 0; }\n' >"$tmp/v.cc"
# shellcheck disable=SC2086
if g++ -Wall -Werror $cflags "$tmp/v.cc" -o "$tmp/v" $libs && LD_LIBRARY_PATH=$prefix/lib "$tmp/v"; then
	ok
else
	bad "a C++ program cannot link and run against libgtool"
fi

# make uninstall removes exactly what make install put there
dest=$tmp/dest
if $make --no-print-directory -s install BUILD="$build" DESTDIR="$dest" PREFIX=/usr/local >/dev/null 2>&1 &&
	$make --no-print-directory -s uninstall BUILD="$build" DESTDIR="$dest" PREFIX=/usr/local >/dev/null 2>&1; then
	left=$(find "$dest" ! -type d)
	[ -z "$left" ] && ok || bad "uninstall left: $left"
else
	bad "make install/uninstall with DESTDIR failed"
fi

echo "examples: $passed passed, $failed failed"
echo "$passed $failed" >"$out"
[ "$failed" -eq 0 ]
