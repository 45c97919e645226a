"""The reference for TraceWriter: dump_step() as samples/make_traces.py had
it before it switched to gtool.torch.TraceWriter, kept verbatim so that the
trace writer stays checked against an independent writer of the layout."""


def dump_step(h5file, step, model, optimizer):
    """Take one optimizer step and record it in gtool's HDF5 trace layout.

    Call it after loss.backward(), *instead of* optimizer.step():

        loss.backward()
        if step in steps_to_dump:
            dump_step(h5, step, model, optimizer)   # calls optimizer.step()
        else:
            optimizer.step()

    h5file    an h5py.File opened for writing ("w" or "a").
    step      the 1-based number of this optimizer step (the number of
              optimizer.step() calls including this one); Adam's bias
              correction uses t = step.
    model     the torch.nn.Module (its named_parameters() give the names).
    optimizer a torch.optim.SGD, Adam, AdamW, Adagrad or RMSprop (any
              optimizer works: every tensor-valued entry of
              optimizer.state[p] with p's shape is written, whatever its
              name) with a single param group.

    It writes, in group /step_NNNNNN (6 digits):
      grad/<name>            p.grad
      param/<name>           p before the step
      state/<buffer>/<name>  optimizer.state[p][buffer] before the step
                             (momentum_buffer, exp_avg, exp_avg_sq, sum,
                             square_avg, ...; absent buffers, e.g. SGD's
                             momentum_buffer or Adam's exp_avg before the
                             first step, are skipped; Adagrad's sum exists
                             from the constructor on, so its step 1 has it;
                             the scalar 'step' entry is skipped: it is the
                             step attribute minus 1)
      param_next/<name>      p after PyTorch's own optimizer.step()
    Datasets keep the tensor's dtype (float32/float16/float64; bfloat16 is
    stored as uint16 bit patterns with attribute dtype="bfloat16"),
    contiguous, no filter. Parameters without a gradient are skipped.

    Attributes: the first call puts the optimizer name (lower case) and its
    hyperparameters on the root group; every step group gets "step" and any
    hyperparameter whose value differs from the root's (e.g. a scheduled lr).
    Flags (nesterov, amsgrad, ...) are int64 0/1, numbers float64, betas a
    two-element float64 attribute, names variable-length UTF-8 strings.
    A reader takes a step's attribute from the step group, else from the root.
    """
    import sys
    import numpy as np
    import torch

    if len(optimizer.param_groups) != 1:
        raise ValueError("dump_step: only one optimizer param group is supported")
    group = optimizer.param_groups[0]

    def to_numpy(t):
        t = t.detach().cpu()
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(np.uint16).copy(), "bfloat16"
        return t.numpy().copy(), None

    def put(path, tensor):
        arr, tag = to_numpy(tensor)
        ds = h5file.create_dataset(path, data=arr, track_times=False)
        if tag is not None:
            ds.attrs["dtype"] = tag

    hyper = {}
    for key, val in group.items():
        if key == "params" or val is None:
            continue
        if isinstance(val, bool):  # flags (nesterov, amsgrad, maximize) as int 0/1
            hyper[key] = np.int64(val)
        elif isinstance(val, (int, float)):  # numbers as float64 (SGD's dampening=0 too)
            hyper[key] = np.float64(val)
        elif isinstance(val, (tuple, list)) and all(isinstance(v, (int, float)) for v in val):
            hyper[key] = np.asarray(val, dtype=np.float64)
    if "optimizer" not in h5file.attrs:
        h5file.attrs["optimizer"] = type(optimizer).__name__.lower()
        for key, val in hyper.items():
            h5file.attrs[key] = val

    named = [(n, p) for n, p in model.named_parameters() if p.grad is not None]
    g = h5file.create_group("step_%06d" % step)
    g.attrs["step"] = np.int64(step)
    for key, val in hyper.items():
        root = h5file.attrs.get(key)
        if root is None or np.shape(root) != np.shape(val) or np.any(root != val):
            g.attrs[key] = val

    for name, p in named:
        put("step_%06d/grad/%s" % (step, name), p.grad)
        put("step_%06d/param/%s" % (step, name), p)
        for buf, val in optimizer.state.get(p, {}).items():
            if buf == "step":  # Adam's/Adagrad's count of earlier steps: the step attribute
                n = float(val.item() if torch.is_tensor(val) else val)
                if n != step - 1:
                    print("dump_step: warning: optimizer state of %s has step %g, "
                          "expected %d (step - 1)" % (name, n, step - 1), file=sys.stderr)
                continue
            if not torch.is_tensor(val) or val.shape != p.shape:
                continue
            put("step_%06d/state/%s/%s" % (step, buf, name), val)

    optimizer.step()

    for name, p in named:
        put("step_%06d/param_next/%s" % (step, name), p)
