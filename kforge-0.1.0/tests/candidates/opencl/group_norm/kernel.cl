/*
 * Problem 30 (Gemm_GroupNorm_Hardtanh):
 *   h = x @ W^T + b; y = hardtanh(group_norm(h, G groups, eps 1e-5), -2, 2)
 * Launch 1: tiled GEMM + bias into scratch h (B,N).
 * Launch 2: one 256-wide work-group per (row, group): mean, then biased
 * variance of the group's N/G contiguous channels (two passes, __local
 * reductions), then normalise and clamp.
 */
#define TS 64
#define TK 16
#define WPT 4

/* y (M,N) = EPILOGUE(x (M,K) @ W (N,K)^T): 64x64 tile per 16x16 work-group,
 * 4x4 outputs per work-item, __local k-major tiles, zero-padded edges. */
#define EPILOGUE(v, n) ((v) + b[n])
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void gemm_bias(__global const float *x, __global const float *W,
    __global const float *b, __global float *y, int M, int K, int N)
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

static float wg_sum(float v, __local float *part)
{
    const int l = get_local_id(0);
    part[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = 128; w > 0; w >>= 1) {
        if (l < w) part[l] += part[l + w];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float r = part[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void group_norm_hardtanh(__global const float *h, __global float *y, int N, int G, float eps)
{
    __local float part[256];
    const int row = get_group_id(1), g = get_group_id(0), l = get_local_id(0);
    const int C = N / G;
    __global const float *src = h + (size_t)row * N + (size_t)g * C;
    __global float *dst = y + (size_t)row * N + (size_t)g * C;
    float s = 0.0f;
    for (int c = l; c < C; c += 256) s += src[c];
    const float mean = wg_sum(s, part) / C;
    float q = 0.0f;
    for (int c = l; c < C; c += 256) { float d = src[c] - mean; q += d * d; }
    const float inv = rsqrt(wg_sum(q, part) / C + eps);
    for (int c = l; c < C; c += 256)
        dst[c] = clamp((src[c] - mean) * inv, -2.0f, 2.0f);
}
