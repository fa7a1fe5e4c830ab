/* blas_env.h — the OpenBLAS kernel set a process asks for when the user
 * named none. */
#ifndef KF_BLAS_ENV_H
#define KF_BLAS_ENV_H

/* The OPENBLAS_CORETYPE for the best ISA this CPU runs: "SkylakeX" with
 * AVX-512 (F, BW, VL, DQ), "Haswell" with AVX2 and FMA, else NULL (leave
 * OpenBLAS's own choice).  A static string; never fails. */
const char *kf_openblas_core_for_host(void);

/* Sets OPENBLAS_CORETYPE to kf_openblas_core_for_host() unless the user
 * set it (or the host has neither ISA).  OpenBLAS reads it once, when the
 * library loads: call before the first dlopen that brings it in.  Not
 * thread-safe (setenv): call before threads start. */
void kf_openblas_env_default(void);

#endif
