/* TF32 mma.sync m16n8k8 through inline PTX in OpenCL C: C = A (MxK) * B^T (B is NxK)
 * 128x128 tile per work-group of 256 (8 warps 2x4), warp 64x32 as 4x4 mma tiles. */
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void gemm_tf32(__global const float *restrict A, __global const float *restrict Bm, __global float *restrict C,
               const int M, const int N, const int K)
{
    const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
    const int wm = warp >> 2, wn = warp & 3, gid = lane >> 2, tig = lane & 3;
    const int n0 = get_group_id(0) * 128, m0 = get_group_id(1) * 128;
    __local float As[128][36];
    __local float Bs[128][36];
    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int i = tid; i < 128 * 32; i += 256) {
            const int r = i >> 5, c = i & 31, gr = m0 + r, gk = k0 + c;
            float v = (gr < M && gk < K) ? A[(size_t)gr * K + gk] : 0.0f;
            uint t;
            asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(v));
            As[r][c] = as_float(t);
        }
        for (int i = tid; i < 128 * 32; i += 256) {
            const int r = i >> 5, c = i & 31, gn = n0 + r, gk = k0 + c;
            float v = (gn < N && gk < K) ? Bm[(size_t)gn * K + gk] : 0.0f;
            uint t;
            asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(v));
            Bs[r][c] = as_float(t);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int kk = 0; kk < 32; kk += 8) {
            uint a[4][4], b[4][2];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int r = wm * 64 + i * 16 + gid;
                a[i][0] = as_uint(As[r][kk + tig]);
                a[i][1] = as_uint(As[r + 8][kk + tig]);
                a[i][2] = as_uint(As[r][kk + tig + 4]);
                a[i][3] = as_uint(As[r + 8][kk + tig + 4]);
            }
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int c = wn * 32 + j * 8 + gid;
                b[j][0] = as_uint(Bs[c][kk + tig]);
                b[j][1] = as_uint(Bs[c][kk + tig + 4]);
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                                 : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
                                 : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int m = m0 + wm * 64 + i * 16 + gid + (e >> 1) * 8;
                const int n = n0 + wn * 32 + j * 8 + tig * 2 + (e & 1);
                if (m < M && n < N) C[(size_t)m * N + n] = acc[i][j][e];
            }
}

/* BF16 mma.sync m16n8k16, one warp per 16x8 tile, fragments from global
 * memory directly (a correctness probe, not a fast kernel). */
__kernel void gemm_bf16_probe(__global const float *restrict A, __global const float *restrict Bm,
                              __global float *restrict C, const int M, const int N, const int K)
{
    const int lane = get_local_id(0) & 31, gid = lane >> 2, tig = lane & 3;
    const int m0 = get_group_id(1) * 16, n0 = get_group_id(0) * 8;
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        uint a[4], b[2];
#define PK(d, lo, hi) asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo))
        PK(a[0], A[(size_t)(m0 + gid) * K + k0 + tig * 2], A[(size_t)(m0 + gid) * K + k0 + tig * 2 + 1]);
        PK(a[1], A[(size_t)(m0 + gid + 8) * K + k0 + tig * 2], A[(size_t)(m0 + gid + 8) * K + k0 + tig * 2 + 1]);
        PK(a[2], A[(size_t)(m0 + gid) * K + k0 + tig * 2 + 8], A[(size_t)(m0 + gid) * K + k0 + tig * 2 + 9]);
        PK(a[3], A[(size_t)(m0 + gid + 8) * K + k0 + tig * 2 + 8], A[(size_t)(m0 + gid + 8) * K + k0 + tig * 2 + 9]);
        PK(b[0], Bm[(size_t)(n0 + gid) * K + k0 + tig * 2], Bm[(size_t)(n0 + gid) * K + k0 + tig * 2 + 1]);
        PK(b[1], Bm[(size_t)(n0 + gid) * K + k0 + tig * 2 + 8], Bm[(size_t)(n0 + gid) * K + k0 + tig * 2 + 9]);
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    C[(size_t)(m0 + gid) * N + n0 + tig * 2] = c[0];
    C[(size_t)(m0 + gid) * N + n0 + tig * 2 + 1] = c[1];
    C[(size_t)(m0 + gid + 8) * N + n0 + tig * 2] = c[2];
    C[(size_t)(m0 + gid + 8) * N + n0 + tig * 2 + 1] = c[3];
}
