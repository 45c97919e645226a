#!/usr/bin/env bats
# modules.bats - the gtool binary loads its HDF5 support (gtool-hdf5.so)
# only for a command that opens or writes an HDF5 file, and its .npz
# support (gtool-npz.so) only for an .npz archive, and says why when a
# module is missing

bats_require_minimum_version 1.5.0

load helpers

# loaded CMD... - the shared objects the dynamic loader opened for CMD
loaded() {
	LD_DEBUG=files "$@" 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\) .*generating link map.*/\1/p'
}

@test "modules: .npy, raw and .gtz commands load neither libhdf5 nor libzip" {
	gtool compress -q "$SAMPLES/grads.npy" -o g.gtz
	run -0 loaded gtool ls "$SAMPLES/grads.npy"
	[[ $output == *libzstd* ]]
	[[ $output != *hdf5* && $output != *libzip* && $output != *npz* ]]
	run -0 loaded gtool stats --dtype f32 "$SAMPLES/grads.f32"
	[[ $output != *hdf5* && $output != *libzip* ]]
	run -0 loaded gtool decompress -q -f g.gtz -o g.npy
	[[ $output != *hdf5* && $output != *libzip* ]]
	cmp <(tail -c 32768 g.npy) <(tail -c 32768 "$SAMPLES/grads.npy")
}

@test "modules: an .npz archive loads gtool-npz.so and libzip, not libhdf5" {
	/usr/bin/python3 -c 'import numpy as np; np.savez("a.npz", g=np.load("'"$SAMPLES"'/grads.npy"))'
	run -0 loaded gtool ls a.npz
	[ "$(grep -c 'gtool-npz\.so$' <<< "$output")" -eq 1 ]
	[[ $output == *libzip* && $output != *hdf5* ]]
	gtool compress -q a.npz -o a.gtz
	gtool decompress -q a.gtz -o back.npy
	cmp <(tail -c 32768 back.npy) <(tail -c 32768 "$SAMPLES/grads.npy")
}

@test "modules: an HDF5 input or output loads the module and libhdf5 once" {
	run -0 loaded gtool ls "$SAMPLES/mlp_sgd.h5"
	[ "$(grep -c 'gtool-hdf5\.so$' <<< "$output")" -eq 1 ]
	[ "$(grep -c 'libhdf5' <<< "$output")" -eq 1 ]
	gtool compress -q "$SAMPLES/grads.npy" -o g.gtz
	run -0 loaded gtool decompress -q g.gtz -o g.h5
	[[ $output == *gtool-hdf5.so* ]]
	run -0 h5ls g.h5
	[[ $output == *grads* ]]
}

@test "modules: without its module gtool still reads .npy and says why it cannot read HDF5" {
	mkdir bin
	cp "$GTOOL_BUILD/gtool" bin/
	run -0 bin/gtool ls "$SAMPLES/grads.npy"
	[[ ${lines[1]} == *grads* ]]
	run -1 bin/gtool ls "$SAMPLES/mlp_sgd.h5"
	[ "$output" = "gtool ls: $SAMPLES/mlp_sgd.h5: cannot load gtool's HDF5 support: gtool-hdf5.so not found beside the gtool binary nor in ../lib/gtool/" ]
	run -1 bin/gtool compress -q "$SAMPLES/grads.npy" -o out.h5
	[ "$output" = "gtool compress: out.h5: cannot load gtool's HDF5 support: gtool-hdf5.so not found beside the gtool binary nor in ../lib/gtool/" ]
	[ ! -e out.h5 ]
	/usr/bin/python3 -c 'import numpy as np; np.savez("a.npz", g=np.zeros(4, np.float32))'
	run -1 bin/gtool ls a.npz
	[ "$output" = "gtool ls: a.npz: cannot load gtool's .npz support: gtool-npz.so not found beside the gtool binary nor in ../lib/gtool/" ]
}

@test "modules: the module is found in ../lib/gtool/ from the binary, as make install puts it" {
	mkdir -p pfx/bin pfx/lib/gtool
	cp "$GTOOL_BUILD/gtool" pfx/bin/
	cp "$GTOOL_BUILD/gtool-hdf5.so" "$GTOOL_BUILD/gtool-npz.so" pfx/lib/gtool/
	run -0 pfx/bin/gtool ls "$SAMPLES/mlp_sgd.h5"
	[[ $output == *step_000001* ]]
	# a command name linked to the binary finds it the same way
	ln -s gtool pfx/bin/gtool-ls
	run -0 pfx/bin/gtool-ls "$SAMPLES/mlp_sgd.h5"
	[[ $output == *step_000001* ]]
	/usr/bin/python3 -c 'import numpy as np; np.savez("a.npz", g=np.zeros(4, np.float32))'
	run -0 pfx/bin/gtool ls a.npz
	[[ ${lines[1]} == "a.npz  g "* ]]
}

@test "modules: a module that is no gtool module is refused with the loader's reason" {
	mkdir bin
	cp "$GTOOL_BUILD/gtool" bin/
	yes 'not an ELF file' | head -c 4096 > bin/gtool-hdf5.so
	run -1 bin/gtool ls "$SAMPLES/mlp_sgd.h5"
	[ "$output" = "gtool ls: $SAMPLES/mlp_sgd.h5: cannot load gtool's HDF5 support: $PWD/bin/gtool-hdf5.so: invalid ELF header" ]
}
