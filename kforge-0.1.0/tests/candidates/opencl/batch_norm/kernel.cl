/*
 * Problem 33 (Gemm_Scale_BatchNorm), BatchNorm1d in training mode:
 *   h = (x @ W^T + b) * scale; y = (h - mean_b(h)) / sqrt(var_b(h) + 1e-5)
 * Launch 1: tiled GEMM, bias and scale fused, into scratch h (B,N).
 * Launch 2: per-column batch mean and biased variance (two passes, one
 *           work-item per column: neighbouring work-items read neighbouring
 *           columns, so the loads coalesce) into scratch stats (2N).
 * Launch 3: normalise every element.
 */
#define TS 64
#define TK 16
#define WPT 4

/* y (M,N) = EPILOGUE(x (M,K) @ W (N,K)^T): 64x64 tile per 16x16 work-group,
 * 4x4 outputs per work-item, __local k-major tiles, zero-padded edges. */
#define EPILOGUE(v, n) (((v) + b[n]) * scale[n])
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void gemm_scale(__global const float *x, __global const float *W,
    __global const float *b, __global const float *scale, __global float *y, int M, int K, int N)
{
    __local float xs[TK][TS + 1];
    __local float ws[TK][TS + 1];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int t = ly * 16 + lx;
    const int n0 = get_group_id(0) * TS, m0 = get_group_id(1) * TS;
    float acc[WPT][WPT];
    for (int i = 0; i < WPT; i++)
        for (int j = 0; j < WPT; j++) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int r = 0; r < (TS * TK) / 256; r++) {
            int e = t + 256 * r;
            int row = e / TK, k = e % TK;
            int gm = m0 + row, gn = n0 + row, gk = k0 + k;
            xs[k][row] = (gm < M && gk < K) ? x[(size_t)gm * K + gk] : 0.0f;
            ws[k][row] = (gn < N && gk < K) ? W[(size_t)gn * K + gk] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TK; k++) {
            float a[WPT], w[WPT];
            for (int i = 0; i < WPT; i++) a[i] = xs[k][ly + 16 * i];
            for (int j = 0; j < WPT; j++) w[j] = ws[k][lx + 16 * j];
            for (int i = 0; i < WPT; i++)
                for (int j = 0; j < WPT; j++) acc[i][j] = mad(a[i], w[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < WPT; i++) {
        int m = m0 + ly + 16 * i;
        if (m >= M) continue;
        for (int j = 0; j < WPT; j++) {
            int n = n0 + lx + 16 * j;
            if (n < N) y[(size_t)m * N + n] = EPILOGUE(acc[i][j], n);
        }
    }
}
#undef EPILOGUE

__kernel void column_stats(__global const float *h, __global float *stats, int B, int N)
{
    const int n = get_global_id(0);
    if (n >= N) return;
    float s = 0.0f;
    for (int r = 0; r < B; r++) s += h[(size_t)r * N + n];
    const float mean = s / B;
    float q = 0.0f;
    for (int r = 0; r < B; r++) { float d = h[(size_t)r * N + n] - mean; q += d * d; }
    stats[n] = mean;
    stats[N + n] = rsqrt(q / B + 1e-5f);
}

__kernel void batch_normalise(__global const float *h, __global const float *stats,
                              __global float *y, int B, int N)
{
    const int n = get_global_id(0), r = get_global_id(1);
    if (n < N && r < B) {
        size_t i = (size_t)r * N + n;
        y[i] = (h[i] - stats[n]) * stats[N + n];
    }
}
