#!/usr/bin/env python3
# make_npy.py - writes vadd_a.npy (f32 0..7), vadd_b.npy (f32 10*i) and
# block_sum_x.npy (f32 1..1000) with
# the standard library only (struct), so the example inputs do not depend on
# numpy or on cubevm. Format: .npy version 1.0 = magic "\x93NUMPY", version
# bytes 1 0, u16 little-endian header length, an ASCII dict padded with
# spaces and ended by "\n" so that the data starts at a multiple of 64, then
# the raw little-endian elements.
import struct


def write_npy(path, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    prefix = 10  # magic (6) + version (2) + header length (2)
    pad = 64 - (prefix + len(header) + 1) % 64
    header = header + " " * (pad % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00")
        f.write(struct.pack("<H", len(header)))
        f.write(header.encode("ascii"))
        f.write(struct.pack("<%df" % len(values), *values))


write_npy("vadd_a.npy", [float(i) for i in range(8)])
write_npy("vadd_b.npy", [10.0 * i for i in range(8)])
write_npy("block_sum_x.npy", [float(i) for i in range(1, 1001)])
