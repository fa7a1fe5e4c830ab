#!/usr/bin/env python3
"""Op semantics of torch_anchors.py against hand-written numpy formulas (CPU),
anchors_common.np_eval against torch_anchors on every problem, and the
--device cpu mode.  Run: python3 bench/anchors/test_torch_anchors.py"""
import math
import os
import sys
import unittest

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_anchors as ta  # noqa: E402

erf = np.vectorize(math.erf)


def run(graph, inputs, outputs=("y",)):
    """Evaluates a one-off problem graph on the CPU; inputs: name -> numpy array."""
    prob = {"name": "t", "dims": [], "presets": {}, "graph": graph, "outputs": list(outputs),
            "inputs": [{"name": k, "shape": list(v.shape)} for k, v in inputs.items()]}
    ys = ta.build(prob, "cpu")(*[torch.from_numpy(np.asarray(v, np.float32)) for v in inputs.values()])
    return [y.numpy().astype(np.float64) for y in ys]


class Semantics(unittest.TestCase):
    rng = np.random.default_rng(0)

    def close(self, got, want, tol=1e-5):
        self.assertEqual(got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)

    def x(self, *shape):
        return self.rng.standard_normal(shape).astype(np.float32)

    def test_gelu(self):
        x = self.x(7, 33) * 3
        xd = x.astype(np.float64)
        (y,) = run([{"out": "y", "op": "gelu", "in": ["x"]}], {"x": x})
        self.close(y, 0.5 * xd * (1 + erf(xd / math.sqrt(2))))
        (y,) = run([{"out": "y", "op": "gelu", "in": ["x"], "approximate": "tanh"}], {"x": x})
        self.close(y, 0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3))))

    def test_group_norm(self):
        x, w, b = self.x(5, 12, 9), self.x(12), self.x(12)
        (y,) = run([{"out": "y", "op": "group_norm", "in": ["x", "w", "b"], "groups": 3, "eps": 1e-5}],
                   {"x": x, "w": w, "b": b})
        g = x.astype(np.float64).reshape(5, 3, -1)   # groups of C/G contiguous channels
        n = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(5, 12, 9)
        self.close(y, n * w[None, :, None] + b[None, :, None])
        (y2,) = run([{"out": "y", "op": "group_norm", "in": ["x"], "groups": 3}], {"x": x})
        self.close(y2, n)

    def test_batch_norm_training(self):
        for x in (self.x(6, 4, 11) + 2, self.x(9, 5) * 3):
            xd = x.astype(np.float64)
            axes = (0, 2) if x.ndim == 3 else (0,)   # per channel over N (and L), biased variance
            want = (xd - xd.mean(axes, keepdims=True)) / np.sqrt(xd.var(axes, keepdims=True) + 1e-5)
            (y,) = run([{"out": "y", "op": "batch_norm", "in": ["x"], "training": True}], {"x": x})
            self.close(y, want)
            C = x.shape[1]
            w, b, rm, rv = self.x(C), self.x(C), self.x(C), np.abs(self.x(C)) + 0.5
            sh = (1, C, 1) if x.ndim == 3 else (1, C)
            (y,) = run([{"out": "y", "op": "batch_norm", "in": ["x", "w", "b", "rm", "rv"]}],
                       {"x": x, "w": w, "b": b, "rm": rm, "rv": rv})   # training (default): running stats unused
            self.close(y, want * w.reshape(sh) + b.reshape(sh))
            (y,) = run([{"out": "y", "op": "batch_norm", "in": ["x", "w", "b", "rm", "rv"], "training": False}],
                       {"x": x, "w": w, "b": b, "rm": rm, "rv": rv})
            self.close(y, (xd - rm.reshape(sh)) / np.sqrt(rv.reshape(sh) + 1e-5) * w.reshape(sh) + b.reshape(sh))
            self.assertRaises(ta.Unsupported, run,
                              [{"out": "y", "op": "batch_norm", "in": ["x"], "training": False}], {"x": x})

    def test_logsumexp_softmax(self):
        x = self.x(6, 40) * 5
        xd = x.astype(np.float64)
        lse = lambda d: np.log(np.exp(xd).sum(d))   # noqa: E731
        (y,) = run([{"out": "y", "op": "logsumexp", "in": ["x"], "dim": 1}], {"x": x})
        self.close(y, lse(1))
        (y,) = run([{"out": "y", "op": "logsumexp", "in": ["x"], "dim": -2, "keepdim": True}], {"x": x})
        self.close(y, lse(0)[None, :])
        (y,) = run([{"out": "y", "op": "softmax", "in": ["x"], "dim": 1}], {"x": x})
        self.close(y, np.exp(xd) / np.exp(xd).sum(1, keepdims=True))
        (y,) = run([{"out": "y", "op": "log_softmax", "in": ["x"], "dim": 0}], {"x": x})
        self.close(y, xd - lse(0)[None, :])

    def test_norms(self):
        x, w, b = self.x(3, 4, 8), self.x(4, 8), self.x(4, 8)
        xd = x.astype(np.float64)
        (y,) = run([{"out": "y", "op": "layer_norm", "in": ["x", "w", "b"], "normalized_dims": 2}],
                   {"x": x, "w": w, "b": b})
        m, v = xd.mean((1, 2), keepdims=True), xd.var((1, 2), keepdims=True)
        self.close(y, (xd - m) / np.sqrt(v + 1e-5) * w + b)
        (y,) = run([{"out": "y", "op": "rms_norm", "in": ["x", "w8"]}], {"x": x, "w8": w[0]})
        self.close(y, xd / np.sqrt((xd ** 2).mean(-1, keepdims=True) + 1.1920929e-07) * w[0])

    def test_matmul_linear_binary(self):
        a, bt, W, bias = self.x(5, 7), self.x(3, 7), self.x(3, 7), self.x(3)
        (y, z, m, p) = run([{"out": "y", "op": "matmul", "in": ["a", "bt"], "transpose_b": True},
                            {"out": "z", "op": "linear", "in": ["a", "W", "bias"]},
                            {"out": "s", "op": "sub", "in": [2.0, "z"]},
                            {"out": "m", "op": "maximum", "in": ["s", 0.5]},
                            {"out": "p", "op": "pow", "in": [2.0, "m"]}],
                           {"a": a, "bt": bt, "W": W, "bias": bias}, outputs=("y", "z", "m", "p"))
        ad = a.astype(np.float64)
        self.close(y, ad @ bt.T.astype(np.float64), 1e-4)
        self.close(z, ad @ W.T.astype(np.float64) + bias, 1e-4)
        self.close(m, np.maximum(2.0 - z, 0.5), 1e-4)
        self.close(p, 2.0 ** m, 1e-4)

    def test_elementwise_attrs(self):
        x = self.x(4, 50) * 4
        xd = x.astype(np.float64)
        cases = [({"op": "leaky_relu", "negative_slope": 0.1}, np.where(xd > 0, xd, 0.1 * xd)),
                 ({"op": "hardtanh", "min_val": -2.0, "max_val": 2.0}, np.clip(xd, -2, 2)),
                 ({"op": "clamp", "min": -0.5}, np.maximum(xd, -0.5)),
                 ({"op": "softplus", "beta": 2.0, "threshold": 3.0},
                  np.where(2 * xd > 3, xd, np.log1p(np.exp(2 * xd)) / 2)),
                 ({"op": "elu", "alpha": 0.5}, np.where(xd > 0, xd, 0.5 * np.expm1(xd))),
                 ({"op": "mish"}, xd * np.tanh(np.log1p(np.exp(xd)))),
                 ({"op": "swish"}, xd / (1 + np.exp(-xd))),
                 ({"op": "hardswish"}, xd * np.clip(xd + 3, 0, 6) / 6)]
        for attrs, want in cases:
            (y,) = run([dict(attrs, out="y", **{"in": ["x"]})], {"x": x})
            self.close(y, want, 1e-5)

    def test_pool_and_unsupported(self):
        x = self.x(2, 3, 10)
        (y,) = run([{"out": "y", "op": "avg_pool1d", "in": ["x"], "kernel_size": 3, "stride": 2, "padding": 1}],
                   {"x": x})
        xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1)))
        self.close(y, np.stack([xp[..., i:i + 3].sum(-1) / 3 for i in range(0, 10, 2)], -1))
        with self.assertRaisesRegex(ta.Unsupported, "conv2d"):
            run([{"out": "y", "op": "conv2d", "in": ["x"]}], {"x": x})

    def test_init(self):
        prob = {"inputs": [{"name": "W", "shape": ["N", 1000], "init": {"dist": "kaiming_uniform", "fan_in": "K"}},
                           {"name": "c", "shape": [], "init": {"dist": "constant", "value": 3}},
                           {"name": "n", "shape": [4000], "init": {"dist": "normal", "mean": 1.0, "std": 2.0}}]}
        W, c, n = ta.make_inputs(prob, {"N": 50, "K": 400}, "cpu")
        self.assertLessEqual(W.abs().max().item(), 1 / 20)
        self.assertGreater(W.abs().max().item(), 0.049)
        self.assertEqual((c.shape, c.item()), (torch.Size([]), 3.0))
        self.assertAlmostEqual(n.mean().item(), 1.0, delta=0.15)
        self.assertAlmostEqual(n.std().item(), 2.0, delta=0.15)
        self.assertTrue(torch.equal(W, ta.make_inputs(prob, {"N": 50, "K": 400}, "cpu")[0]))   # seeded

    def test_bench_fresh_inputs(self):
        """with fresh, every timed call sees new inputs, copied in after an untimed call on the old ones"""
        x = torch.zeros(8)
        seen, draws = [], []

        def fn(t):
            seen.append(t.sum().item())

        def fresh():
            draws.append(len(seen))
            return [torch.full((8,), float(len(draws)))]
        self.assertGreater(ta.bench(fn, [x], 3, 2, "cpu", fresh)["ms"], 0)
        # 2 warm-up calls, then per timed run: the draw, a call on the current inputs, the copy, the timed call
        self.assertEqual(draws, [2, 4, 6])
        self.assertEqual(seen, [0, 0, 0, 8, 8, 16, 16, 24])
        self.assertEqual(x.tolist(), [3.0] * 8)   # copied into the caller's tensor
        seen.clear()
        ta.bench(fn, [x], 3, 2, "cpu")   # the same inputs back to back
        self.assertEqual(seen, [24] * 5)
        with self.assertRaises(ta.Unsupported):
            ta.bench(fn, [x], 3, 2, "cuda", fresh)

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class NumpyCheck(unittest.TestCase):
    """anchors_common.np_eval (the check of ort_anchors.py) computes what
    torch_anchors.build computes, on every problem of problems/ at `small`."""

    def test_every_problem(self):
        from anchors_common import load, make_inputs_np, np_eval, problem_files
        files = problem_files([os.path.join(TOP, "problems")])
        self.assertGreaterEqual(len(files), 20)
        for path in files:
            prob, dims = load(path, "small")
            xs = make_inputs_np(prob, dims)
            with torch.no_grad():
                ys = ta.build(prob, "cpu")(*[torch.from_numpy(x) for x in xs])
            for name, y, r in zip(prob["outputs"], ys, np_eval(prob, xs)):
                y = y.double().numpy()
                self.assertEqual(y.shape, r.shape, "%s %s" % (prob["name"], name))
                err = np.linalg.norm(y - r) / max(np.linalg.norm(r), 1e-30)
                self.assertLess(err, 1e-5, "%s output %s: rel_l2 %g" % (prob["name"], name, err))


class CpuMode(unittest.TestCase):
    """--device cpu --threads N: wall-clock timing, threads set and recorded."""

    def test_cpu_file(self):
        import json
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "a.json")
            rc = ta.main([out, os.path.join(TOP, "problems/level2/12_Gemm_Multiply_LeakyReLU.json"), "--device", "cpu",
                          "--threads", "1", "--preset", "small", "--reps", "3", "--warmup", "1", "--no-compile"])
            self.assertEqual(rc, 0)
            self.assertEqual(torch.get_num_threads(), 1)
            with open(out) as f:
                r = json.load(f)
        self.assertEqual((r["tool"], r["device"], r["threads"], r["preset"], r["version"]),
                         ("pytorch", "cpu", 1, "small", torch.__version__))
        p = r["problems"]["12_Gemm_Multiply_LeakyReLU"]
        self.assertGreater(p["eager_ms"], 0)
        self.assertEqual(p["best_ms"], p["eager_ms"])
        self.assertLessEqual(p["eager_min_ms"], p["eager_ms"])
        self.assertNotIn("compile_ms", p)

    def test_threads_needs_cpu(self):
        with self.assertRaises(SystemExit):
            ta.main(["-", "x.json", "--device", "cuda", "--threads", "2"])


if __name__ == "__main__":
    unittest.main(verbosity=1)
