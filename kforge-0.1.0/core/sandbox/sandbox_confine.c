/* sandbox_confine.c — the layers a worker puts on itself after exec:
 * Landlock (file system, ptrace and signal scoping) and the two seccomp
 * stages (sandbox.h).  Everything here runs in the worker, so it must
 * neither allocate much nor print: errors go back as text. */
#include "config.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sched.h>

#ifdef HAVE_LIBSECCOMP
#include <seccomp.h>
#endif

/* ------------------------------------------------------------------ */
/* Landlock (kernel uapi, defined here so that older headers build)      */

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH 1

#define LL_FS_EXECUTE (1ull << 0)
#define LL_FS_WRITE_FILE (1ull << 1)
#define LL_FS_READ_FILE (1ull << 2)
#define LL_FS_READ_DIR (1ull << 3)
#define LL_FS_REMOVE_DIR (1ull << 4)
#define LL_FS_REMOVE_FILE (1ull << 5)
#define LL_FS_MAKE_CHAR (1ull << 6)
#define LL_FS_MAKE_DIR (1ull << 7)
#define LL_FS_MAKE_REG (1ull << 8)
#define LL_FS_MAKE_SOCK (1ull << 9)
#define LL_FS_MAKE_FIFO (1ull << 10)
#define LL_FS_MAKE_BLOCK (1ull << 11)
#define LL_FS_MAKE_SYM (1ull << 12)
#define LL_FS_REFER (1ull << 13)      /* ABI 2 */
#define LL_FS_TRUNCATE (1ull << 14)   /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ull << 15)  /* ABI 5 */
#define LL_NET_BIND_TCP (1ull << 0)   /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ull << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ull << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ull << 1)

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct ll_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

#define LL_READ (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_WRITE_FILE (LL_FS_WRITE_FILE | LL_FS_TRUNCATE)
#define LL_ALL_V1 ((1ull << 13) - 1)

/* Read-only (and executable) for everyone: programs, libraries, headers,
 * driver files.  /etc only in the parts a compiler, the dynamic loader and
 * the OpenCL ICD loader read: never all of it (shadow, ssh keys). */
static const char *const read_roots[] = {
    "/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/opt",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/OpenCL",
    "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/os-release",
    "/etc/debian_version", "/etc/vulkan", "/etc/gcc", "/etc/environment",
    "/proc", "/sys",
};

/* Devices: read and write (and ioctl) on these files only. */
static const char *const dev_files[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
                                        "/dev/tty"};
static const char *const dev_globs[] = {"/dev/nvidia*", "/dev/dri", "/dev/accel", "/dev/kfd", "/dev/shm"};

static int ll_abi(void)
{
    long v = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
    return v < 0 ? -1 : (int)v;
}

/* Adds a rule for `path` (skipped when it does not exist). */
static int ll_allow(int rs, const char *path, uint64_t access, uint64_t handled)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat sb;
    if (fstat(fd, &sb) == 0 && !S_ISDIR(sb.st_mode))
        access &= LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV;
    struct ll_path_beneath pb = {access & handled, fd};
    long r = pb.allowed_access ? syscall(__NR_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0) : 0;
    int e = errno;
    close(fd);
    errno = e;
    return r == 0 ? 0 : -1;
}

int kf_sandbox_landlock(const char *work_dir, const char *extra_read, char *why, size_t why_len)
{
    int abi = ll_abi();
    if (abi < 1) {
        snprintf(why, why_len, "landlock: not available in this kernel (%s)",
                 errno == EOPNOTSUPP ? "disabled at boot" : strerror(errno));
        return -1;
    }
    struct ll_ruleset_attr attr = {0, 0, 0};
    size_t attr_size = sizeof attr.handled_access_fs;
    attr.handled_access_fs = LL_ALL_V1;
    if (abi >= 2) attr.handled_access_fs |= LL_FS_REFER;
    if (abi >= 3) attr.handled_access_fs |= LL_FS_TRUNCATE;
    if (abi >= 5) attr.handled_access_fs |= LL_FS_IOCTL_DEV;
    if (abi >= 4) {
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;  /* no TCP at all */
        attr_size = 2 * sizeof(uint64_t);
    }
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
        attr_size = sizeof attr;
    }
    int rs = (int)syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0);
    if (rs < 0) {
        snprintf(why, why_len, "landlock: cannot create a ruleset: %s", strerror(errno));
        return -1;
    }
    uint64_t h = attr.handled_access_fs;
    int bad = 0;
    for (size_t i = 0; i < sizeof read_roots / sizeof read_roots[0]; i++) bad |= ll_allow(rs, read_roots[i], LL_READ, h);
    for (size_t i = 0; i < sizeof dev_files / sizeof dev_files[0]; i++)
        bad |= ll_allow(rs, dev_files[i], LL_FS_READ_FILE | LL_WRITE_FILE | LL_FS_IOCTL_DEV, h);
    for (size_t i = 0; i < sizeof dev_globs / sizeof dev_globs[0]; i++) {
        glob_t g;
        if (glob(dev_globs[i], 0, NULL, &g) != 0) continue;
        for (size_t k = 0; k < g.gl_pathc; k++)
            bad |= ll_allow(rs, g.gl_pathv[k],
                            LL_READ | LL_WRITE_FILE | LL_FS_IOCTL_DEV | LL_FS_MAKE_REG | LL_FS_REMOVE_FILE, h);
        globfree(&g);
    }
    while (extra_read && *extra_read) {
        size_t k = strcspn(extra_read, ":");
        char p[4096];
        if (k > 0 && k < sizeof p) {
            memcpy(p, extra_read, k);
            p[k] = '\0';
            bad |= ll_allow(rs, p, LL_READ, h);
        }
        extra_read += k + (extra_read[k] == ':');
    }
    /* The private work directory: everything but device nodes. */
    uint64_t rw = (LL_ALL_V1 | LL_FS_REFER | LL_FS_TRUNCATE) & ~(LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK);
    if (ll_allow(rs, work_dir, rw, h) != 0) bad = 1;
    if (bad) {
        snprintf(why, why_len, "landlock: cannot add a rule: %s", strerror(errno));
        close(rs);
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(__NR_landlock_restrict_self, rs, 0) != 0) {
        snprintf(why, why_len, "landlock: cannot restrict the worker: %s", strerror(errno));
        close(rs);
        return -1;
    }
    close(rs);
    return 0;
}

/* ------------------------------------------------------------------ */
/* seccomp                                                              */

#ifdef HAVE_LIBSECCOMP
static int deny(scmp_filter_ctx f, int err, const char *name)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) return 0;   /* not on this architecture */
    return seccomp_rule_add(f, SCMP_ACT_ERRNO(err), nr, 0);
}

static int load(scmp_filter_ctx f, int rc, const char *stage, char *why, size_t why_len)
{
    if (rc == 0) rc = seccomp_load(f);
    if (rc != 0) snprintf(why, why_len, "seccomp (%s): %s", stage, strerror(-rc));
    seccomp_release(f);
    return rc == 0 ? 0 : -1;
}
#endif

int kf_sandbox_seccomp_base(char *why, size_t why_len)
{
#ifdef HAVE_LIBSECCOMP
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
    if (!f) {
        snprintf(why, why_len, "seccomp: cannot create a filter");
        return -1;
    }
    static const char *const eperm[] = {
        "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
        "mount", "umount2", "pivot_root", "chroot", "setns", "unshare", "move_mount", "open_tree",
        "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
        "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
        "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
        "swapon", "swapoff", "acct", "quotactl", "syslog", "open_by_handle_at", "name_to_handle_at",
        "clock_settime", "settimeofday", "adjtimex", "clock_adjtime", "fanotify_init", "iopl", "ioperm",
        "vhangup", "lookup_dcookie", "tkill"};
    int rc = 0;
    for (size_t i = 0; i < sizeof eperm / sizeof eperm[0] && rc == 0; i++) rc = deny(f, EPERM, eperm[i]);
    /* io_uring performs system calls this filter would never see */
    if (!rc) rc = deny(f, ENOSYS, "io_uring_setup");
    if (!rc) rc = deny(f, ENOSYS, "io_uring_enter");
    if (!rc) rc = deny(f, ENOSYS, "io_uring_register");
    /* sockets: AF_UNIX only (the control channel, driver daemons) */
    if (!rc) rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1, SCMP_A0_32(SCMP_CMP_NE, AF_UNIX));
    if (!rc) rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socketpair), 1, SCMP_A0_32(SCMP_CMP_NE, AF_UNIX));
    /* signals: to itself only (also what a PID namespace gives) */
    uint32_t self = (uint32_t)getpid();
    if (!rc) rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kill), 1, SCMP_A0_32(SCMP_CMP_NE, self));
    if (!rc) rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(tgkill), 1, SCMP_A0_32(SCMP_CMP_NE, self));
    if (!rc) rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(rt_sigqueueinfo), 1, SCMP_A0_32(SCMP_CMP_NE, self));
    if (!rc) rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(rt_tgsigqueueinfo), 1, SCMP_A0_32(SCMP_CMP_NE, self));
    if (!rc) rc = deny(f, EPERM, "pidfd_send_signal");
    if (!rc) rc = deny(f, EPERM, "pidfd_open");
    return load(f, rc, "base", why, why_len);
#else
    snprintf(why, why_len, "seccomp: kforge was built without libseccomp");
    return -1;
#endif
}

int kf_sandbox_seccomp_noexec(char *why, size_t why_len)
{
#ifdef HAVE_LIBSECCOMP
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
    if (!f) {
        snprintf(why, why_len, "seccomp: cannot create a filter");
        return -1;
    }
    int rc = 0;
    static const char *const eperm[] = {"execve", "execveat", "fork", "vfork"};
    for (size_t i = 0; i < sizeof eperm / sizeof eperm[0] && rc == 0; i++) rc = deny(f, EPERM, eperm[i]);
    /* threads only: clone must carry CLONE_THREAD; clone3's flags live in
     * memory a filter cannot read, so it answers ENOSYS (libc then uses clone) */
    if (!rc) rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                   SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    if (!rc) rc = deny(f, ENOSYS, "clone3");
    return load(f, rc, "no exec", why, why_len);
#else
    snprintf(why, why_len, "seccomp: kforge was built without libseccomp");
    return -1;
#endif
}
