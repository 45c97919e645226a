#!/usr/bin/env bats
# h5module.bats - the gtool binary loads its HDF5 support (gtool-hdf5.so)
# only for a command that opens or writes an HDF5 file, and says why when
# the module is missing

bats_require_minimum_version 1.5.0

load helpers

# loaded CMD... - the shared objects the dynamic loader opened for CMD
loaded() {
	LD_DEBUG=files "$@" 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\) .*generating link map.*/\1/p'
}

@test "h5module: .npy, raw and .gtz commands do not load libhdf5" {
	gtool compress -q "$SAMPLES/grads.npy" -o g.gtz
	run -0 loaded gtool ls "$SAMPLES/grads.npy"
	[[ $output == *libzstd* ]]
	[[ $output != *hdf5* ]]
	run -0 loaded gtool stats --dtype f32 "$SAMPLES/grads.f32"
	[[ $output != *hdf5* ]]
	run -0 loaded gtool decompress -q -f g.gtz -o g.npy
	[[ $output != *hdf5* ]]
	cmp <(tail -c 32768 g.npy) <(tail -c 32768 "$SAMPLES/grads.npy")
}

@test "h5module: an HDF5 input or output loads the module and libhdf5 once" {
	run -0 loaded gtool ls "$SAMPLES/mlp_sgd.h5"
	[ "$(grep -c 'gtool-hdf5\.so$' <<< "$output")" -eq 1 ]
	[ "$(grep -c 'libhdf5' <<< "$output")" -eq 1 ]
	gtool compress -q "$SAMPLES/grads.npy" -o g.gtz
	run -0 loaded gtool decompress -q g.gtz -o g.h5
	[[ $output == *gtool-hdf5.so* ]]
	run -0 h5ls g.h5
	[[ $output == *grads* ]]
}

@test "h5module: without its module gtool still reads .npy and says why it cannot read HDF5" {
	mkdir bin
	cp "$GTOOL_BUILD/gtool" bin/
	run -0 bin/gtool ls "$SAMPLES/grads.npy"
	[[ ${lines[1]} == *grads* ]]
	run -1 bin/gtool ls "$SAMPLES/mlp_sgd.h5"
	[ "$output" = "gtool ls: $SAMPLES/mlp_sgd.h5: cannot load gtool's HDF5 support: gtool-hdf5.so not found beside the gtool binary nor in ../lib/gtool/" ]
	run -1 bin/gtool compress -q "$SAMPLES/grads.npy" -o out.h5
	[ "$output" = "gtool compress: out.h5: cannot load gtool's HDF5 support: gtool-hdf5.so not found beside the gtool binary nor in ../lib/gtool/" ]
	[ ! -e out.h5 ]
}

@test "h5module: the module is found in ../lib/gtool/ from the binary, as make install puts it" {
	mkdir -p pfx/bin pfx/lib/gtool
	cp "$GTOOL_BUILD/gtool" pfx/bin/
	cp "$GTOOL_BUILD/gtool-hdf5.so" pfx/lib/gtool/
	run -0 pfx/bin/gtool ls "$SAMPLES/mlp_sgd.h5"
	[[ $output == *step_000001* ]]
	# a command name linked to the binary finds it the same way
	ln -s gtool pfx/bin/gtool-ls
	run -0 pfx/bin/gtool-ls "$SAMPLES/mlp_sgd.h5"
	[[ $output == *step_000001* ]]
}

@test "h5module: a module that is no gtool module is refused with the loader's reason" {
	mkdir bin
	cp "$GTOOL_BUILD/gtool" bin/
	yes 'not an ELF file' | head -c 4096 > bin/gtool-hdf5.so
	run -1 bin/gtool ls "$SAMPLES/mlp_sgd.h5"
	[ "$output" = "gtool ls: $SAMPLES/mlp_sgd.h5: cannot load gtool's HDF5 support: $PWD/bin/gtool-hdf5.so: invalid ELF header" ]
}
