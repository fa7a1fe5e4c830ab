/*
 * Problem 56 (Matmul_Sigmoid_Sum): y (B,1) = sum over n of sigmoid(x @ W^T + b)
 * Launch 1: tiled GEMM + bias + sigmoid into scratch t (B,N).
 * Launch 2: one 256-wide work-group per row sums t[row, :] in __local memory.
 */
#define TS 64
#define TK 16
#define WPT 4

/* y (M,N) = EPILOGUE(x (M,K) @ W (N,K)^T): 64x64 tile per 16x16 work-group,
 * 4x4 outputs per work-item, __local k-major tiles, zero-padded edges. */
#define EPILOGUE(v, n) (1.0f / (1.0f + exp(-((v) + b[n]))))
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void gemm_sigmoid(__global const float *x, __global const float *W,
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

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void row_sum(__global const float *t, __global float *y, int N)
{
    __local float part[256];
    const int row = get_group_id(0), l = get_local_id(0);
    __global const float *r = t + (size_t)row * N;
    float s = 0.0f;
    for (int n = l; n < N; n += 256) s += r[n];
    part[l] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = 128; w > 0; w >>= 1) {
        if (l < w) part[l] += part[l + w];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) y[row] = part[0];
}
