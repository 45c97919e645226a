#!/usr/bin/env bats
# ls.bats - `gtool ls`: datasets of every kind of file, steps of a trace

load helpers

@test "ls: every dataset of an HDF5 file, with the non-float one typed" {
	run -0 --separate-stderr gtool ls --format csv "$SAMPLES/dtypes.h5"
	[ -z "$stderr" ]
	[ "${lines[0]}" = "file,name,dtype,shape,values,bytes" ]
	[[ $output == *",/f32,f32,128x64,8192,32768"* ]]
	[[ $output == *",/f16,f16,128x64,8192,16384"* ]]
	[[ $output == *",/f64,f64,128x64,8192,65536"* ]]
	[[ $output == *",/labels,int64,"* ]]
}

@test "ls: a trace lists its steps with optimizer and hyper-parameters" {
	run -0 gtool ls "$SAMPLES/mlp_sgd.h5"
	[[ $output == *"/step_000001/grad/0.weight"* ]]
	[[ $output == *"optimizer"*"lr"* ]]
	run -0 gtool ls --steps --format csv "$SAMPLES/mlp_sgd.h5"
	[[ ${lines[0]} == file,step,group,optimizer,grads,lr,momentum,* ]]
	[[ ${lines[1]} == *,/step_000001,* ]]
	run -0 gtool ls --steps --format csv "$SAMPLES/cnn_adam.h5"
	[[ ${lines[1]} == *,adam,* ]]
}

@test "ls: raw and .npy files are one row" {
	run -0 gtool ls --format csv "$SAMPLES/grads.npy" "$SAMPLES/grads.f32"
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[1]} == *grads.npy,grads,f32,*,8192,32768 ]]
	[[ ${lines[2]} == *grads.f32,grads,f32,8192,8192,32768 ]]
}

@test "ls: json output" {
	run -0 gtool ls --format json "$SAMPLES/grads.npy"
	[[ $output == *'"name": "grads", "dtype": "f32"'* ]]
}

@test "ls: a missing file and a raw file of unknown dtype" {
	run -1 --separate-stderr gtool ls nope.npy
	[ "$stderr" = "gtool ls: nope.npy: No such file or directory" ]
	echo hello > notes.txt
	run -1 --separate-stderr gtool ls notes.txt
	[ "$stderr" = "gtool ls: notes.txt: cannot tell the dtype of 'notes.txt': use --dtype" ]
	run -0 gtool ls --dtype f16 --format csv notes.txt
	[ "${lines[1]}" = "notes.txt,notes,f16,3,3,6" ]
}
