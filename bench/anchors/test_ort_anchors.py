#!/usr/bin/env python3
"""ort_anchors.py: every problem of problems/ built as an ONNX graph and run
by ONNX Runtime matches the float64 numpy evaluation (anchors_common.np_eval,
itself checked against torch_anchors.py by test_torch_anchors.py); ops the
problems do not use yet; an op it cannot map is an error naming it; the
anchors file it writes (tool, version, device, threads, check).
Needs onnxruntime, onnx and numpy.  Run: python3 bench/anchors/test_ort_anchors.py"""
import json
import os
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import anchors_common as ac  # noqa: E402
import ort_anchors as oa  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def one_op(node, shapes, outputs=("y",), extra_nodes=()):
    """A one-off problem: inputs x0.. of SHAPES (normal), the node(s), its outputs."""
    names = ["x%d" % i for i in range(len(shapes))]
    return {"name": "t_" + node["op"], "dims": [], "presets": {"small": {}},
            "inputs": [{"name": n, "shape": list(s), "init": {"dist": "normal", "std": 2.0}}
                       for n, s in zip(names, shapes)],
            "graph": [dict(node, out="y")] + list(extra_nodes), "outputs": list(outputs)}


class Problems(unittest.TestCase):
    def test_every_problem_matches_numpy(self):
        files = ac.problem_files([os.path.join(TOP, "problems")])
        level2 = [f for f in files if "/level2/" in f]
        self.assertEqual(len(level2), 20)
        for path in files:
            prob, dims = ac.load(path, "small")
            c = oa.check(prob, dims, 1)
            self.assertTrue(c["ok"], "%s: %s" % (prob["name"], c.get("error")))

    def test_ops_beyond_level2(self):
        cases = [({"op": "gelu", "approximate": "tanh", "in": ["x0"]}, [(5, 40)]),
                 ({"op": "softplus", "beta": 2.0, "threshold": 3.0, "in": ["x0"]}, [(5, 40)]),
                 ({"op": "clamp", "min": -0.5, "in": ["x0"]}, [(5, 40)]),
                 ({"op": "elu", "alpha": 0.5, "in": ["x0"]}, [(5, 40)]),
                 ({"op": "selu", "in": ["x0"]}, [(5, 40)]),
                 ({"op": "hardswish", "in": ["x0"]}, [(5, 40)]),
                 ({"op": "rsqrt", "in": ["x0"]}, [(5, 40)]),
                 ({"op": "log_softmax", "dim": 0, "in": ["x0"]}, [(5, 40)]),
                 ({"op": "amin", "dim": -1, "keepdim": True, "in": ["x0"]}, [(3, 5, 40)]),
                 ({"op": "mean", "dim": 1, "in": ["x0"]}, [(3, 5, 40)]),
                 ({"op": "layer_norm", "normalized_dims": 2, "in": ["x0", "x1", "x2"]}, [(3, 5, 8), (5, 8), (5, 8)]),
                 ({"op": "layer_norm", "in": ["x0"]}, [(3, 5, 8)]),
                 ({"op": "rms_norm", "in": ["x0", "x1"]}, [(3, 8), (8,)]),
                 ({"op": "group_norm", "groups": 2, "in": ["x0", "x1", "x2"]}, [(3, 4, 6), (4,), (4,)]),
                 ({"op": "instance_norm", "in": ["x0"]}, [(3, 4, 6)]),
                 ({"op": "batch_norm", "in": ["x0", "x1", "x2"]}, [(6, 4, 5), (4,), (4,)]),
                 ({"op": "matmul", "transpose_b": True, "in": ["x0", "x1"]}, [(2, 3, 8), (2, 5, 8)]),
                 ({"op": "linear", "in": ["x0", "x1", "x2"]}, [(2, 3, 8), (5, 8), (5,)]),
                 ({"op": "pow", "in": [2.0, "x0"]}, [(5, 4)]),
                 ({"op": "maximum", "in": ["x0", 0.5]}, [(5, 4)])]
        for node, shapes in cases:
            prob = one_op(node, shapes)
            if node["op"] in ("rsqrt", "pow"):   # positive operands
                prob["inputs"][0]["init"] = {"dist": "uniform", "low": 0.5, "high": 2.0}
            c = oa.check(prob, {}, 1)
            self.assertTrue(c["ok"], "%s: %s" % (node, c.get("error")))

    def test_batch_norm_evaluation_mode(self):
        prob = one_op({"op": "batch_norm", "training": False, "in": ["x0", "x1", "x2", "x3", "x4"]},
                      [(6, 4), (4,), (4,), (4,), (4,)])
        prob["inputs"][4]["init"] = {"dist": "uniform", "low": 0.5, "high": 2.0}
        c = oa.check(prob, {}, 1)
        self.assertTrue(c["ok"], c.get("error"))

    def test_unsupported_op_is_named(self):
        prob = one_op({"op": "max_pool1d", "kernel_size": 2, "in": ["x0"]}, [(2, 8)])
        with self.assertRaisesRegex(ac.Unsupported, "op 'max_pool1d' \\(node y\\) is not supported by ort_anchors.py"):
            oa.build(prob, {})

    def test_a_wrong_graph_fails_the_check(self):
        prob, dims = ac.load(os.path.join(TOP, "problems/level2/30_Gemm_GroupNorm_Hardtanh.json"), "small")
        xs = ac.make_inputs_np(prob, dims)
        good = ac.np_eval(prob, xs)
        bad = dict(prob, graph=[dict(n, groups=8) if n["op"] == "group_norm" else n for n in prob["graph"]])
        self.assertFalse(ac.compare(prob, ac.np_eval(bad, xs), good)[0])
        self.assertTrue(ac.compare(prob, [g.astype(np.float32) for g in good], good)[0])


class AnchorsFile(unittest.TestCase):
    def test_file(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "a.json")
            bad = os.path.join(d, "pool.json")
            with open(bad, "w") as f:
                json.dump(one_op({"op": "max_pool1d", "kernel_size": 2, "in": ["x0"]}, [(2, 8)]), f)
            rc = oa.main([out, os.path.join(TOP, "problems/level2/45_Gemm_Sigmoid_LogSumExp.json"), bad,
                          "--preset", "small", "--threads", "1", "--reps", "3", "--warmup", "1"])
            with open(out) as f:
                r = json.load(f)
        self.assertEqual(rc, 1)   # one problem failed
        self.assertEqual((r["tool"], r["device"], r["threads"], r["preset"], r["version"], r["precision"]),
                         ("onnxruntime", "cpu", 1, "small", oa.ort.__version__, "fp32"))
        p = r["problems"]["45_Gemm_Sigmoid_LogSumExp"]
        self.assertGreater(p["eager_ms"], 0)
        self.assertLessEqual(p["eager_min_ms"], p["eager_ms"])
        self.assertTrue(p["check"]["ok"])
        self.assertEqual(p["check"]["preset"], "small")
        self.assertNotIn("compile_ms", p)
        self.assertIn("max_pool1d", r["problems"]["t_max_pool1d"]["error"])


if __name__ == "__main__":
    unittest.main(verbosity=1)
