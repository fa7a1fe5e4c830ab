/*
 * Problem 9 (Matmul_Subtract_Multiply_ReLU): y = relu((x @ W^T + b - 2.0) * 1.5)
 * x (B,K), W (N,K), b (N), y (B,N), all row-major.
 *
 * Work-group 16x16 computes a 64x64 tile of y; each work-item a 4x4 block
 * (rows ly + 16*i, columns lx + 16*j).  K is walked in slices of 16 through
 * __local tiles stored k-major so the inner loop reads them without bank
 * conflicts.  Edges (B, N, K not multiples of the tile) load zeros and skip
 * the stores.
 */
#define TS 64
#define TK 16
#define WPT 4

__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void gemm_sub_mul_relu(__global const float *x, __global const float *W,
                       __global const float *b, __global float *y,
                       int B, int K, int N)
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
            xs[k][row] = (gm < B && gk < K) ? x[(size_t)gm * K + gk] : 0.0f;
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
        if (m >= B) continue;
        for (int j = 0; j < WPT; j++) {
            int n = n0 + lx + 16 * j;
            if (n < N) {
                float v = (acc[i][j] + b[n] - 2.0f) * 1.5f;
                y[(size_t)m * N + n] = fmax(v, 0.0f);
            }
        }
    }
}
