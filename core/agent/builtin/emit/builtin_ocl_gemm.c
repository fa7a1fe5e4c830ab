/*
 * builtin_ocl_gemm.c — the OpenCL GEMM kernel of a GEMM group: an output
 * tile of TS x TS per work-group of TS/VEC x TS/WPT work-items, each
 * work-item accumulating WPT rows (ly + TS/WPT * w) x VEC contiguous columns
 * in registers as WPT floatVEC vectors.  The k-depth TK of the staged tiles
 * is TS up to 32 and 16 above (a 128 x 128 tile with TK 16 needs 17 KiB of
 * __local memory, where TK = TS would need 130).  Explicit vectors let PoCL's CPU
 * device use its SIMD units directly (ts 8, wpt 8, vec 8 = one work-item per
 * work-group is its fastest form) and give GPUs vector loads.  A and B are
 * staged through __local k-major tiles (padded rows) with vector loads of VEC
 * floats from global memory, or read straight from global memory when the
 * point turns local-memory tiling off.  Edges load zeros and skip the
 * stores, so no size needs to be a multiple of the tile.  The group's map
 * ops run on each accumulator after the full K loop (the epilogue), before
 * the single store.
 */
#include <config.h>

#include "builtin_ocl_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Element `idx` of pointer variable `ptr` (fp16 storage aware). */
static void ld(char *buf, size_t n, int half, const char *ptr, const char *idx)
{
    if (half) snprintf(buf, n, "vload_half(%s, %s)", idx, ptr);
    else snprintf(buf, n, "%s[%s]", ptr, idx);
}

/* Loads the TS x TK slice of a row-major operand whose rows run along the
 * tile (A, or B when it is (N, K)) into tile[k][row]. */
static void load_rows(ocl_kernel *k, const char *tile, const char *ptr, int half, const char *rows,
                      const char *r0, int vec)
{
    char e[160];
    OCL_P(k, "        for (int c = tid; c < TS * TK / %d; c += CTS * RTS) {\n", vec);
    OCL_P(k, "            const int row = c / (TK / %d), kk = (c %% (TK / %d)) * %d;\n", vec, vec, vec);
    OCL_P(k, "            const int gr = %s + row, gk = k0 + kk;\n", r0);
    if (vec == 1) {
        ld(e, sizeof e, half, ptr, "(size_t)gr * K + gk");
        OCL_P(k, "            %s[kk][row] = (gr < %s && gk < K) ? %s : 0.0f;\n", tile, rows, e);
    } else {
        OCL_P(k, "            if (gr < %s && gk + %d <= K) {\n", rows, vec);
        OCL_P(k, "                const float%d v = %s%d(0, %s + (size_t)gr * K + gk);\n", vec,
              half ? "vload_half" : "vload", vec, ptr);
        for (int i = 0; i < vec; i++)
            OCL_P(k, "                %s[kk + %d][row] = v.s%d;\n", tile, i, i);
        OCL_P(k, "            } else {\n");
        ld(e, sizeof e, half, ptr, "(size_t)gr * K + gk + e");
        OCL_P(k, "                for (int e = 0; e < %d; e++)\n", vec);
        OCL_P(k, "                    %s[kk + e][row] = (gr < %s && gk + e < K) ? %s : 0.0f;\n", tile, rows, e);
        OCL_P(k, "            }\n");
    }
    OCL_P(k, "        }\n");
}

/* Loads the TK x TS slice of B stored (K, N) into Bs[k][col]. */
static void load_cols(ocl_kernel *k, const char *ptr, int half, int vec)
{
    char e[160];
    OCL_P(k, "        for (int c = tid; c < TK * TS / %d; c += CTS * RTS) {\n", vec);
    OCL_P(k, "            const int kk = c / (TS / %d), col = (c %% (TS / %d)) * %d;\n", vec, vec, vec);
    OCL_P(k, "            const int gk = k0 + kk, gc = n0 + col;\n");
    if (vec == 1) {
        ld(e, sizeof e, half, ptr, "(size_t)gk * N + gc");
        OCL_P(k, "            Bs[kk][col] = (gk < K && gc < N) ? %s : 0.0f;\n", e);
    } else {
        OCL_P(k, "            if (gk < K && gc + %d <= N) {\n", vec);
        OCL_P(k, "                const float%d v = %s%d(0, %s + (size_t)gk * N + gc);\n", vec,
              half ? "vload_half" : "vload", vec, ptr);
        for (int i = 0; i < vec; i++) OCL_P(k, "                Bs[kk][col + %d] = v.s%d;\n", i, i);
        OCL_P(k, "            } else {\n");
        ld(e, sizeof e, half, ptr, "(size_t)gk * N + gc + e");
        OCL_P(k, "                for (int e = 0; e < %d; e++)\n", vec);
        OCL_P(k, "                    Bs[kk][col + e] = (gk < K && gc + e < N) ? %s : 0.0f;\n", e);
        OCL_P(k, "            }\n");
    }
    OCL_P(k, "        }\n");
}

void ocl_emit_batch_offsets(ocl_kernel *k, const kf_bt_gemm *gm, const char *batch_id)
{
    if (gm->batch <= 1) {
        OCL_P(k, "    const size_t a_off = 0, b_off = 0, c_off = 0;\n");
        return;
    }
    OCL_P(k, "    const int bt = %s;\n"
             "    size_t a_off = 0, b_off = 0;\n"
             "    int rem = bt, bc;\n", batch_id);
    for (int d = gm->n_batch_dims - 1; d >= 0; d--)
        OCL_P(k, "    bc = rem %% %" PRId64 "; rem /= %" PRId64 "; a_off += (size_t)bc * %" PRId64
              "; b_off += (size_t)bc * %" PRId64 ";\n", gm->batch_dims[d], gm->batch_dims[d],
              gm->a_bstride[d], gm->b_bstride[d]);
    OCL_P(k, "    const size_t c_off = (size_t)bt * M * N;\n");
}

void ocl_gen_gemm(ocl_gen *g, int gi)
{
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_bt_gemm *gm = &grp->gemm;
    const kf_problem *p = g->p;
    const kf_node *an = &p->nodes[grp->nodes[0]];
    int anchor_v = p->n_inputs + grp->nodes[0];
    const int TS = g->pt->knob[KO_TS], WPT = g->pt->knob[KO_WPT], RTS = TS / WPT, TK = TS <= 32 ? TS : 16;
    const int local_mem = g->pt->knob[KO_LOCAL_MEM];
    const int vec = g->pt->knob[KO_VEC], CTS = TS / vec;
    char vt[16], bc[16];   /* the accumulator type and its broadcast cast */
    if (vec == 1) { snprintf(vt, sizeof vt, "float"); bc[0] = 0; }
    else { snprintf(vt, sizeof vt, "float%d", vec); snprintf(bc, sizeof bc, "(float%d)", vec); }

    ocl_kernel kk;
    ocl_kernel *k = &kk;
    ocl_kernel_begin(k, g, gi, grp->n_nodes > 1 ? "gemm_epilogue" : "gemm");
    const char *A = ocl_buf_value(k, gm->a, 0);
    const char *B = ocl_buf_value(k, gm->b, 0);
    const char *bias = gm->bias >= 0 ? ocl_buf_value(k, gm->bias, 0) : NULL;
    int ha = g->half[gm->a], hb = g->half[gm->b];

    OCL_P(k, "    /* %s: C (%" PRId64 " x %" PRId64 ")%s = %s (%" PRId64 " x %" PRId64 ") * %s%s%s;\n"
          "     * a %dx%d tile per work-group of %dx%d work-items, each holding %d row%s x %d column%s\n"
          "     * in registers (%s accumulators), %s */\n",
          an->out, gm->M, gm->N, gm->batch > 1 ? " per batch" : "", kf_problem_value_name(p, gm->a), gm->M,
          gm->K, kf_problem_value_name(p, gm->b), gm->trans_b ? "^T" : "", bias ? " + bias" : "", TS, TS, CTS,
          RTS, WPT, WPT == 1 ? "" : "s", vec, vec == 1 ? "" : "s", vt,
          local_mem ? "A and B staged through __local tiles" : "operands read from global memory");
    OCL_P(k, "    const int M = %" PRId64 ", N = %" PRId64 ", K = %" PRId64 ";\n", gm->M, gm->N, gm->K);
    OCL_P(k, "    const int lx = get_local_id(0), ly = get_local_id(1);\n"
             "    const int n0 = get_group_id(0) * TS, m0 = get_group_id(1) * TS;\n");
    ocl_emit_batch_offsets(k, gm, "get_group_id(2)");
    OCL_P(k, "    __global const %s *A = %s + a_off;\n", ha ? "half" : "float", A);
    OCL_P(k, "    __global const %s *Bm = %s + b_off;\n", hb ? "half" : "float", B);
    OCL_P(k, "    %s acc[WPT];\n"
             "    for (int w = 0; w < WPT; w++) acc[w] = 0.0f;\n", vt);
    char e1[160], e2[160];
    if (local_mem) {
        k->barriers = 1;
        OCL_P(k, "    __local float As[TK][TS + 1];\n"
                 "    __local float Bs[TK][TS + %d];\n"
                 "    const int tid = ly * CTS + lx;\n"
                 "    for (int k0 = 0; k0 < (kf_ok ? K : 0); k0 += TK) {\n", vec);
        load_rows(k, "As", "A", ha, "M", "m0", vec);
        if (gm->trans_b) load_rows(k, "Bs", "Bm", hb, "N", "n0", vec);
        else load_cols(k, "Bm", hb, vec);
        OCL_P(k, "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                 "        for (int k = 0; k < TK; k++) {\n");
        if (vec == 1) OCL_P(k, "            const float bv = Bs[k][lx];\n");
        else OCL_P(k, "            const %s bv = vload%d(0, &Bs[k][lx * %d]);\n", vt, vec, vec);
        OCL_P(k, "            for (int w = 0; w < WPT; w++) acc[w] = mad(%s(As[k][ly + RTS * w]), bv, acc[w]);\n"
                 "        }\n"
                 "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                 "    }\n", bc);
    } else {
        ld(e1, sizeof e1, hb, "Bm", gm->trans_b ? "(size_t)min(nb + e, N - 1) * K + k" : "(size_t)k * N + min(nb + e, N - 1)");
        ld(e2, sizeof e2, ha, "A", "(size_t)mc * K + k");
        OCL_P(k, "    const int nb = n0 + lx * %d;   /* edge items compute on clamped indices, never store */\n"
                 "    for (int k = 0; k < K; k++) {\n"
                 "        float bk[%d];\n"
                 "        for (int e = 0; e < %d; e++) bk[e] = %s;\n"
                 "        const %s bv = %s;\n"
                 "        for (int w = 0; w < WPT; w++) {\n"
                 "            const int mc = min(m0 + ly + RTS * w, M - 1);\n"
                 "            acc[w] = mad(%s(%s), bv, acc[w]);\n"
                 "        }\n"
                 "    }\n", vec, vec, vec, e1, vt, vec == 1 ? "bk[0]" : (vec == 2 ? "vload2(0, bk)" : vec == 4 ? "vload4(0, bk)" : "vload8(0, bk)"),
              bc, e2);
    }
    OCL_P(k, "    for (int w = 0; w < WPT; w++) {\n"
             "        const int m = m0 + ly + RTS * w;\n"
             "        if (%sm >= M) continue;\n", local_mem ? "!kf_ok || " : "");
    if (vec == 1) OCL_P(k, "        float av[1] = {acc[w]};\n");
    else OCL_P(k, "        float av[%d];\n        vstore%d(acc[w], 0, av);\n", vec, vec);
    OCL_P(k, "        for (int e = 0; e < %d; e++) {\n"
             "            const int n = n0 + lx * %d + e;\n"
             "            if (n >= N) break;\n"
             "            const size_t idx = c_off + (size_t)m * N + n;\n", vec, vec);
    if (bias) {
        char *b = ocl_elem(k, gm->bias, "n");
        OCL_P(k, "            const float t_%s = av[e] + %s;\n", g->ident[anchor_v], b ? b : "0.0f");
        free(b);
    } else {
        OCL_P(k, "            const float t_%s = av[e];\n", g->ident[anchor_v]);
    }
    if (grp->n_nodes > 1) OCL_P(k, "            /* epilogue */\n");
    ocl_emit_tail(k, gi, 1, "idx", "n", "            ");
    OCL_P(k, "        }\n    }\n");

    kf_sb_printf(&g->src, "#define TS %d\n#define WPT %d\n#define RTS %d\n#define CTS %d\n#define TK %d\n", TS,
                    WPT, RTS, CTS, TK);
    int64_t global[3] = {(gm->N + TS - 1) / TS * CTS, (gm->M + TS - 1) / TS * RTS, gm->batch};
    int64_t local[3] = {CTS, RTS, 1};
    ocl_kernel_finish(k, gm->batch > 1 ? 3 : 2, global, local);
    kf_sb_puts(&g->src, "#undef TS\n#undef WPT\n#undef RTS\n#undef CTS\n#undef TK\n\n");
}
