#!/usr/bin/python3
"""torch_driver.py - the libtorch contenders of `make bench`.

Started by the C harness (tools/bench/torch.c) with /usr/bin/python3, where
Debian's python3-torch lives. Reads one command per line on stdin and
answers one line on stdout, so the harness can interleave these runs with
the other contenders':

  setup CONTENDER CASE KIND DATADIR k=v...  -> "ok" | "unavailable REASON"
  run CONTENDER                             -> "MS" (wall ms of one call) | "failed REASON"
  output CONTENDER PATH                     -> "ok" (output written as raw f32, C order)
  teardown CONTENDER                        -> "ok"

The first line it prints is "hello NOTE" or "unavailable REASON".
"""
import os
import sys
import time


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def blas_core():
    """The OpenBLAS kernel torch's BLAS uses, read from the loaded library."""
    try:
        import ctypes
        with open("/proc/self/maps") as f:
            libs = sorted({l.split()[-1] for l in f if "blas" in l and ".so" in l})
        for lib in libs:
            try:
                h = ctypes.CDLL(lib)
                h.openblas_get_corename.restype = ctypes.c_char_p
                return "%s (%s)" % (h.openblas_get_corename().decode(), os.path.basename(lib))
            except (OSError, AttributeError):
                continue
        return "not OpenBLAS: " + (", ".join(os.path.basename(l) for l in libs) or "no BLAS loaded")
    except OSError as e:
        return "unknown (%s)" % e


try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except Exception as e:  # noqa: BLE001 - any import failure means the contender is unavailable
    say("unavailable cannot import torch with %s: %s" % (sys.executable, str(e).splitlines()[0]))
    sys.exit(0)

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
torch.set_num_threads(threads)
torch.mm(torch.ones(64, 64), torch.ones(64, 64))  # loads the BLAS
say("hello torch %s, %d threads, BLAS kernel %s" % (torch.__version__, torch.get_num_threads(), blas_core()))

state = {}


def load(datadir, case, i, count):
    path = os.path.join(datadir, "%s_in%d.f32" % (case, i))
    a = np.fromfile(path, dtype=np.float32)
    if a.size != count:
        raise ValueError("%s holds %d floats, expected %d" % (path, a.size, count))
    return torch.from_numpy(a)


def setup(name, case, kind, datadir, p):
    g = lambda k: int(p[k])  # noqa: E731
    if kind == "pool":
        n, h, w, c = g("n"), g("h"), g("w"), g("c")
        x = load(datadir, case, 0, n * h * w * c).view(n, h, w, c).permute(0, 3, 1, 2)
        if name == "libtorch-nchw":
            x = x.contiguous()
        else:
            assert x.is_contiguous(memory_format=torch.channels_last)
        k, s, pad = g("k"), g("s"), g("p")
        fn = lambda: F.max_pool2d(x, k, s, pad)  # noqa: E731
        post = lambda o: o.permute(0, 2, 3, 1).contiguous()  # noqa: E731 - back to NHWC
    elif kind in ("vadd", "saxpy"):
        n = g("len")
        a, b = load(datadir, case, 0, n), load(datadir, case, 1, n)
        o = torch.empty(n)
        al = float(p.get("alpha", 1))
        fn = (lambda: torch.add(a, b, out=o)) if kind == "vadd" else (lambda: torch.add(b, a, alpha=al, out=o))
        post = lambda r: r  # noqa: E731
    elif kind == "sum":
        a = load(datadir, case, 0, g("len"))
        fn = lambda: torch.sum(a)  # noqa: E731
        post = lambda r: r.reshape(1)  # noqa: E731
    elif kind == "softmax":
        x = load(datadir, case, 0, g("rows") * g("cols")).view(g("rows"), g("cols"))
        fn = lambda: torch.softmax(x, 1)  # noqa: E731
        post = lambda r: r  # noqa: E731
    elif kind == "transpose":
        x = load(datadir, case, 0, g("rows") * g("cols")).view(g("rows"), g("cols"))
        o = torch.empty(g("cols"), g("rows"))
        fn = lambda: o.copy_(x.t())  # noqa: E731
        post = lambda r: r  # noqa: E731
    elif kind == "conv":
        n, ci, co, h, w, k = g("n"), g("ci"), g("co"), g("h"), g("w"), g("k")
        x = load(datadir, case, 0, n * ci * h * w).view(n, ci, h, w)
        wt = load(datadir, case, 1, co * ci * k * k).view(co, ci, k, k)
        pad = g("p")
        fn = lambda: F.conv2d(x, wt, padding=pad)  # noqa: E731
        post = lambda r: r  # noqa: E731
    elif kind == "matmul":
        n = g("rows")
        a = load(datadir, case, 0, n * n).view(n, n)
        b = load(datadir, case, 1, n * n).view(n, n)
        o = torch.empty(n, n)
        fn = lambda: torch.mm(a, b, out=o)  # noqa: E731
        post = lambda r: r  # noqa: E731
    else:
        return "unavailable no %s case in the torch driver" % kind
    state[name] = {"fn": fn, "post": post, "last": None}
    return "ok"


def main():
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd, name = words[0], words[1] if len(words) > 1 else ""
        try:
            if cmd == "setup":
                p = dict(w.split("=", 1) for w in words[5:])
                say(setup(name, words[2], words[3], words[4], p))
            elif cmd == "run":
                st = state[name]
                with torch.no_grad():
                    t0 = time.perf_counter()
                    st["last"] = st["fn"]()
                    t1 = time.perf_counter()
                say("%.6f" % ((t1 - t0) * 1e3))
            elif cmd == "output":
                st = state[name]
                st["post"](st["last"]).contiguous().numpy().astype(np.float32).tofile(words[2])
                say("ok")
            elif cmd == "teardown":
                state.pop(name, None)
                say("ok")
            else:
                say("failed unknown command %s" % cmd)
        except Exception as e:  # noqa: BLE001 - reported to the harness, which marks the contender
            say(("unavailable " if cmd == "setup" else "failed ") + ("%s: %s" % (type(e).__name__, e)).replace("\n", " "))


main()
