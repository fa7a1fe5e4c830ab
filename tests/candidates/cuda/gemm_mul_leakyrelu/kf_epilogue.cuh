// kf_epilogue.cuh — the scale and leaky ReLU of gemm_mul_leakyrelu.
#pragma once
__device__ __forceinline__ float kf_epilogue(float v, float scale, float slope)
{
    v *= scale;
    return v > 0.0f ? v : v * slope;
}
