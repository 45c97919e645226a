"""gtool in a PyTorch training loop: tensors to and from gtool, a trace
writer (TraceWriter) and a DistributedDataParallel communication hook
(ddp_comm_hook)."""

import numpy as np
import torch

from ._lib import Error


def to_torch(a, dtype=None):
    """A torch tensor of the array a from gtool (sharing its memory);
    dtype="bf16" reads uint16 values as bfloat16 bit patterns."""
    if dtype == "bf16":
        if a.dtype != np.uint16:
            raise Error("bf16 needs uint16 bit patterns, not %s" % a.dtype.name, -10)
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)
