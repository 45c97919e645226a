/* gtool.h - the public header of libgtool: codecs on memory buffers */
#ifndef GTOOL_H
#define GTOOL_H

/*
 * libgtool is gtool's codec library.  It works on memory buffers only: no
 * file I/O, no printing, no exit, no global mutable state.  Link with
 * -lgtool -lzstd -lz -lm -pthread.
 */
#include "gt_error.h"
#include "gt_float.h"
#include "gt_codec.h"
#include "gt_bitio.h"
#include "gt_huff.h"
#include "gt_optim.h"

#endif
