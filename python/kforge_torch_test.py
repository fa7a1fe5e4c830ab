#!/usr/bin/env python3
"""Test written by `kforge export --to torch --model M.py`: compares the
exported kernel with the original module on fresh inputs.

    python3 test_PKG.py [--trials N] [--device cpu|cuda|cuda:N]

The module is built from PKG/model.py at the sizes the kernel was verified
for (the file's size constants set to the run's preset), with fresh
parameters and fresh get_inputs() for every trial; both outputs are
compared with the problem's tolerance (allclose with atol/rtol, and the
relative L2 error).  The module, its parameters and the inputs live on
--device (default: cuda for a CUDA kernel, else cpu; an OpenCL kernel takes
either); TF32 is off so the module computes in float32.  Exit 0 when every
trial passes, 1 otherwise."""
import argparse
import ast
import os
import sys
import types

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.basename(__file__)[len("test_"):-len(".py")]
sys.path.insert(0, HERE)
kernel = __import__(PKG)


def load_model_file(path, sizes):
    """Runs the model file with its module-level size constants set to `sizes`."""
    with open(path) as f:
        tree = ast.parse(f.read(), filename=path)
    for st in tree.body:
        if (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                and st.targets[0].id in sizes):
            st.value = ast.copy_location(ast.Constant(sizes[st.targets[0].id]), st.value)
    mod = types.ModuleType("kforge_exported_model")
    mod.__file__ = path
    exec(compile(tree, path, "exec"), mod.__dict__)
    return mod


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--device", default="cuda" if getattr(kernel, "KIND", "host-c") == "cuda" else "cpu")
    args = ap.parse_args(argv)
    dev = torch.device(args.device)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    spec = kernel.SPEC
    tol = spec["tolerance"]
    mod = load_model_file(os.path.join(HERE, PKG, spec.get("model", "model.py")), kernel.DIMS)
    passed = failed = 0
    for trial in range(args.trials):
        torch.manual_seed(1000 + trial)
        model = mod.Model(*mod.get_init_inputs()).to(dev)
        xs = [x.to(dev) for x in mod.get_inputs()]
        with torch.no_grad():
            ref = model(*xs)
            got = kernel.Module(model)(*xs)
        refs = ref if isinstance(ref, tuple) else (ref,)
        gots = got if isinstance(got, tuple) else (got,)
        ok = len(refs) == len(gots)
        notes = []
        for (name, _), r, g in zip(kernel.OUTPUTS, refs, gots):
            r64, g64 = r.double(), g.double()
            close = torch.allclose(g64, r64, atol=tol["atol"], rtol=tol["rtol"])
            rel_l2 = ((g64 - r64).norm() / max(r64.norm().item(), 1e-30)).item()
            worst = (g64 - r64).abs().max().item()
            notes.append("%s: max |err| %.3g, rel_l2 %.3g" % (name, worst, rel_l2))
            ok = ok and close and rel_l2 <= tol["rel_l2"] and bool(torch.isfinite(g64).all())
        ok = ok and all(g.device == xs[0].device for g in gots)
        print("%s %d - trial %d (seed %d, %s): %s" % ("ok" if ok else "not ok", trial + 1, trial + 1,
                                                      1000 + trial, dev, "; ".join(notes)))
        passed, failed = passed + ok, failed + (not ok)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
