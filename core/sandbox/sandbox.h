/*
 * sandbox.h — confinement of every process that compiles or runs candidate
 * code (the kforge-worker and what it starts).  Threat model and what each
 * layer stops: doc/sandbox.md.
 *
 * Layers, each reported by name in `kforge backends`, in every eval record
 * and in the diagnostics; the kernel may refuse any of them (containers), in
 * which case the evaluation goes on without it unless the mode is strict:
 *
 *   rlimits   memory (RLIMIT_DATA: private writable memory), CPU time, file
 *             size, open files, no core files                 [parent, pre-exec]
 *   env       an environment allow-list: no API keys, tokens or passwords
 *                                                             [parent, pre-exec]
 *   caps      no capabilities (bounding set and securebits locked) and
 *             no_new_privs: uid 0 is not root inside           [parent, pre-exec]
 *   pidns     a PID namespace of its own: the worker is its init, every
 *             descendant dies with it, no process outside is addressable
 *   netns     a network namespace of its own: no interface but a loopback
 *             that is down, no abstract sockets of the host
 *   landlock  reads only of system directories, writes only in the private
 *             work directory; no ptrace of, or signals to, processes outside
 *                                                             [worker, before compiling]
 *   seccomp   no sockets other than AF_UNIX, no ptrace / process_vm_* /
 *             pidfd_getfd, no mount, namespace, bpf, keyring, io_uring ...;
 *             once the candidate's code may run: no exec and no new
 *             processes (threads only)                        [worker]
 *
 * The parent also makes itself non-dumpable (PR_SET_DUMPABLE 0), so even a
 * process with its uid cannot read its memory or descriptors through /proc.
 */
#ifndef KF_SANDBOX_H
#define KF_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

typedef enum kf_sandbox_mode {
    KF_SANDBOX_AUTO = 0,      /* every layer the kernel grants (default) */
    KF_SANDBOX_STRICT,        /* refuse to evaluate unless every layer is active */
    KF_SANDBOX_OFF            /* no confinement beyond limits (debugging only) */
} kf_sandbox_mode;

/* Layer bits. */
#define KF_SB_RLIMITS  0x01u
#define KF_SB_ENV      0x02u
#define KF_SB_CAPS     0x04u
#define KF_SB_PIDNS    0x08u
#define KF_SB_NETNS    0x10u
#define KF_SB_LANDLOCK 0x20u
#define KF_SB_SECCOMP  0x40u
#define KF_SB_NOEXEC   0x80u       /* seccomp's second stage: no exec/fork */
#define KF_SB_ALL      0xffu

/* "auto", "strict", "off" -> mode; -1 for anything else. */
int kf_sandbox_mode_parse(const char *s);
const char *kf_sandbox_mode_name(kf_sandbox_mode m);

/* Writes "rlimits env caps pidns ..." for the bits set (or "none"). */
void kf_sandbox_layers_text(unsigned layers, char *buf, size_t n);
/* Same for the bits of KF_SB_ALL that are missing (or ""). */
void kf_sandbox_missing_text(unsigned layers, char *buf, size_t n);

/* Default memory limit of a worker: half the physical memory, at least
 * 2 GiB and at most 32 GiB (the shared buffers come on top). */
uint64_t kf_sandbox_default_mem(void);

/* What this machine grants, tested in a throw-away child (kforge backends).
 * Returns the layer bits; `why` gets the reasons for the missing ones.
 * Call it while the process has one thread (before loading plugins whose
 * drivers start threads): the child is a raw clone that allocates memory,
 * which deadlocks if another thread held an allocator lock at the clone. */
unsigned kf_sandbox_probe(char *why, size_t why_len);

/* ------------------------------------------------------------------ */
/* parent side                                                          */

/* Makes the calling process non-dumpable (once).  */
void kf_sandbox_protect_parent(void);

/* The allow-listed environment for a worker, from `env` (the process's
 * start-up environment): names on the list pass (PATH, LANG, LC_*, the
 * OpenCL / CUDA / PoCL / Level Zero driver variables, KFORGE_CC,
 * KFORGE_THREADS, OMP_*, the sanitizers' options), plus the names in
 * $KFORGE_SANDBOX_PASSENV (colon-separated); names that look like secrets
 * (containing KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL, AUTH) never pass.
 * HOME and TMPDIR are set to `work_dir`.  NULL-terminated, malloc'ed (free
 * with kf_sandbox_env_free).  NULL when out of memory. */
char **kf_sandbox_env(char *const *env, const char *work_dir);
void kf_sandbox_env_free(char **env);
/* Sets NAME=value in *env (grown as needed), or with `append` adds
 * ":value" to an existing value.  0 or -1 (out of memory). */
int kf_sandbox_env_set(char ***env, const char *name, const char *value, int append);
/* 1 when the variable name may reach a worker. */
int kf_sandbox_env_allowed(const char *name, size_t len);

/* Drops every capability and sets no_new_privs: for the forked child
 * before exec (async-signal-safe).  0 or -1. */
int kf_sandbox_drop_caps(void);

/* ------------------------------------------------------------------ */
/* worker side                                                          */

/* Landlock: read and execute under the system directories (and each path
 * in `extra_read`, colon-separated, may be NULL), read and write under
 * `work_dir`; the devices a driver needs.  0 or -1 with `why` set. */
int kf_sandbox_landlock(const char *work_dir, const char *extra_read, char *why, size_t why_len);

/* Seccomp, first stage (see above).  0 or -1 with `why` set. */
int kf_sandbox_seccomp_base(char *why, size_t why_len);
/* Seccomp, second stage: no execve/execveat, no fork/vfork, clone only
 * with CLONE_THREAD (clone3 answers ENOSYS so libc falls back to clone). */
int kf_sandbox_seccomp_noexec(char *why, size_t why_len);

#endif
