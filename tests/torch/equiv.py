#!/usr/bin/env python3
"""equiv.py HAND.json IMPORTED.json OUT.json — is an imported problem the
hand-written one?  (No torch needed: JSON only.)

Both graphs are normalised: attributes equal to their FORMAT.md default are
dropped, a 0-d input drawn as a constant becomes that number in the nodes
that read it, a norm's weight and bias drawn as constants 1 and 0 are
dropped (FORMAT.md: absent means weight 1, bias 0), `swish` is `silu`, so
is x * sigmoid(x), linear without a bias is matmul with transpose_b, and
values, inputs and dims are renamed by order of first use.  Then dims,
inputs (shape and distribution), graph and outputs must be equal, and the
hand-written `kernelbench` preset must be the imported `file` preset.

On success writes OUT.json: the imported problem with the hand-written
presets (renamed to its dims), and prints one line: for each imported
input, the index of the hand-written input it is (or -1 for one folded into
a constant), for the reference check (ref_equiv).  Exit 0 same, 1 not (the
first difference on stderr)."""
import json
import sys

DEFAULTS = {"transpose_b": False, "approximate": "none", "negative_slope": 0.01, "min_val": -1.0,
            "max_val": 1.0, "beta": 1.0, "threshold": 20.0, "alpha": 1.0, "keepdim": False,
            "normalized_dims": 1, "training": True}
NORMS = {"group_norm", "layer_norm", "batch_norm"}


def norm(prob):
    ins = {i["name"]: i for i in prob["inputs"]}
    const0d = {n: float(i["init"]["value"]) for n, i in ins.items()
               if i["shape"] == [] and i["init"]["dist"] == "constant"}
    nodes = []
    for nd in prob["graph"]:
        nd = dict(nd)
        op = "silu" if nd["op"] == "swish" else nd["op"]
        nd["op"] = op
        args = [const0d.get(a, a) if isinstance(a, str) else float(a) for a in nd["in"]]
        if op in NORMS and len(args) >= 2:   # trailing weight 1 / bias 0 are the defaults
            def is_const(a, v):
                return isinstance(a, str) and a in ins and ins[a]["init"] == {"dist": "constant", "value": v}
            if op != "batch_norm" or len(args) <= 3:
                if len(args) == 3 and is_const(args[2], 0.0):
                    args = args[:2]
                if len(args) == 2 and is_const(args[1], 1.0):
                    args = args[:1]
        nd["in"] = args
        if op == "linear" and len(args) == 2:          # x @ W^T
            nd["op"], op = "matmul", "matmul"
            nd["transpose_b"] = True
        eps_default = 1.1920929e-07 if op == "rms_norm" else 1e-5
        for k, v in list(nd.items()):
            if k in ("out", "op", "in"):
                continue
            if (k in DEFAULTS and v == DEFAULTS[k]) or (k == "eps" and abs(v - eps_default) < 1e-12):
                del nd[k]
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                nd[k] = float(v)
        nodes.append(nd)
    # x * sigmoid(x) (sigmoid read only there) is silu(x)
    users = {}
    for nd in nodes:
        for a in nd["in"]:
            users[a] = users.get(a, 0) + 1
    byout = {nd["out"]: nd for nd in nodes}
    fused = []
    for nd in nodes:
        if nd["op"] == "mul" and all(isinstance(a, str) for a in nd["in"]):
            a, b = nd["in"]
            for x, s in ((a, b), (b, a)):
                sn = byout.get(s)
                if sn and sn["op"] == "sigmoid" and sn["in"] == [x] and users[s] == 1:
                    nd = {"out": nd["out"], "op": "silu", "in": [x]}
                    fused.append(s)
                    break
        nodes[nodes.index(byout[nd["out"]])] = nd
        byout[nd["out"]] = nd
    nodes = [nd for nd in nodes if nd["out"] not in fused]
    # rename by first use
    names, used_inputs = {}, []
    for nd in nodes:
        for a in nd["in"]:
            if isinstance(a, str) and a in ins and a not in names:
                names[a] = "in%d" % len(used_inputs)
                used_inputs.append(a)
        names[nd["out"]] = "v%d" % len(names)
    dims = []
    for a in used_inputs:
        for d in ins[a]["shape"]:
            if isinstance(d, str) and d not in dims:
                dims.append(d)
    dn = {d: "d%d" % i for i, d in enumerate(dims)}
    cin = []
    for a in used_inputs:
        init = dict(ins[a]["init"])
        if "fan_in" in init and isinstance(init["fan_in"], str):
            init["fan_in"] = dn[init["fan_in"]]
        init = {k: (float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v)
                for k, v in init.items()}
        if init["dist"] == "uniform":
            init.setdefault("low", 0.0)
            init.setdefault("high", 1.0)
        if init["dist"] == "normal":
            init.setdefault("mean", 0.0)
            init.setdefault("std", 1.0)
        cin.append({"shape": [dn.get(d, d) for d in ins[a]["shape"]], "init": init})
    cg = [dict(nd, out=names[nd["out"]], **{"in": [names.get(a, a) if isinstance(a, str) else a
                                                   for a in nd["in"]]}) for nd in nodes]
    outs = [names[o] for o in prob["outputs"]]
    return {"dims": len(dims), "inputs": cin, "graph": cg, "outputs": outs}, used_inputs, dims


def main():
    hand, imp = (json.load(open(p)) for p in sys.argv[1:3])
    nh, uh, dh = norm(hand)
    ni, ui, di = norm(imp)
    if len(dh) != len(hand["dims"]) or len(di) != len(imp["dims"]):
        sys.exit("a dim no input uses")
    for k in ("dims", "inputs", "graph", "outputs"):
        if nh[k] != ni[k]:
            a, b = nh[k], ni[k]
            if isinstance(a, list) and isinstance(b, list):
                for i, (x, y) in enumerate(zip(a, b)):
                    if x != y:
                        sys.stderr.write("%s[%d] differs:\n  hand:     %s\n  imported: %s\n" % (k, i, x, y))
                        break
                else:
                    sys.stderr.write("%s: %d vs %d entries\n" % (k, len(a), len(b)))
            else:
                sys.stderr.write("%s differs: hand %s, imported %s\n" % (k, a, b))
            return 1
    dmap = dict(zip(dh, di))   # hand dim -> imported dim
    kb = {dmap[d]: v for d, v in hand["presets"]["kernelbench"].items()}
    if kb != imp["presets"]["file"]:
        sys.stderr.write("kernelbench preset %s != the file's sizes %s\n" % (kb, imp["presets"]["file"]))
        return 1
    out = dict(imp)
    out["presets"] = {p: {dmap[d]: v for d, v in vals.items()} for p, vals in hand["presets"].items()}
    json.dump(out, open(sys.argv[3], "w"), indent=1)
    hidx = {n["name"]: i for i, n in enumerate(hand["inputs"])}
    perm = []
    for i in imp["inputs"]:
        n = i["name"]
        perm.append(hidx[uh[ui.index(n)]] if n in ui else -1)
    print(",".join(str(p) for p in perm))
    return 0


if __name__ == "__main__":
    sys.exit(main())
