/* ADVERSARIAL (timeout): never terminates (the loop has a side effect, so it cannot be optimised away)
 * Problem 12_Gemm_Multiply_LeakyReLU. */
__kernel void gemm_mul_leaky(__global const float *x, __global const float *W,
                             __global const float *b, __global float *y, int B, int K, int N)
{
    const int n = get_global_id(0), m = get_global_id(1);
    if (n >= N || m >= B) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += x[(size_t)m * K + k] * W[(size_t)n * K + k];
    float v = (acc + b[n]) * 2.0f;
    y[(size_t)m * N + n] = v > 0.0f ? v : 0.1f * v;
    if (x[0] >= 0.0f)
        for (;;) ((volatile __global float *)y)[(size_t)m * N + n] += 1.0f;
}
