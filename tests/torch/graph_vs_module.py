#!/usr/bin/env python3
"""graph_vs_module.py MODEL IMPORTED.json PRESET [--class N] [--inputs SPEC]
[--init-args JSON] — the imported graph,
computed in PyTorch from its JSON (bench/anchors/torch_anchors.py's build,
whose op semantics are tested against numpy), against the module itself on
the same inputs and parameters at PRESET's sizes.  Exit 0 when every output
matches (allclose 1e-5), 1 otherwise.  MODEL and the options are those given
to kforge import (a file, or pkg.module:NAME with --inputs)."""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "anchors"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import torch_anchors  # noqa: E402
import kforge_import  # noqa: E402


def main():
    model_py, prob_json, preset = sys.argv[1:4]
    opt = dict(zip(sys.argv[4::2], sys.argv[5::2]))
    prob = json.load(open(prob_json))
    dims = prob["presets"][preset]
    src = kforge_import.Source(model_py, opt.get("--class"), opt.get("--inputs"), opt.get("--init-args"))
    mod = src.load(dims)
    torch.manual_seed(7)
    model = mod.Model(*mod.get_init_inputs())
    xs = mod.get_inputs()
    named = {kforge_import.param_name(n): p for n, p in list(model.named_parameters()) + list(model.named_buffers())}
    args = list(xs) + [named[i["name"]] for i in prob["inputs"][len(xs):]]
    with torch.no_grad():
        ref = model(*xs)
        got = torch_anchors.build(prob, "cpu")(*args)
    ref = ref if isinstance(ref, tuple) else (ref,)
    bad = 0
    for name, r, g in zip(prob["outputs"], ref, got):
        same = r.shape == g.shape and torch.allclose(r, g, atol=1e-5, rtol=1e-5)
        print("%s: %s %s" % (name, list(g.shape), "same" if same else "DIFFERENT (max %g)" % (r - g).abs().max()))
        bad += not same
    return 1 if bad or len(ref) != len(got) else 0


if __name__ == "__main__":
    sys.exit(main())
