/*
 * ze_spirv.c — OpenCL C to validated SPIR-V with Debian's tools.
 *
 *   clang -cl-std=CL1.2 -target spir64 -Xclang -finclude-default-header
 *         -O2 -Xclang -disable-llvm-passes -emit-llvm -c kernel.cl -o kernel.bc
 *   llvm-spirv --spirv-max-version=1.0 kernel.bc -o kernel.spv
 *   spirv-val --target-env opencl1.2 kernel.spv
 *
 * The LLVM passes are left to the driver's compiler (IGC optimizes the
 * SPIR-V for the GPU): LLVM 15's optimizer emits `freeze`, which
 * llvm-spirv 15 cannot translate (seen on the built-in GEMM kernels).  The
 * module is SPIR-V 1.0, what OpenCL 1.2 consumers (and every Level Zero
 * driver) accept; llvm-spirv's default would pick up to 1.4.
 *
 * Why this path: it is what Debian packages and keeps (clang-15,
 * llvm-spirv-15 from the Khronos SPIRV-LLVM-Translator, spirv-tools); a
 * library route (libclc + the translator's C++ API) would tie the plugin to
 * one LLVM's C++ ABI.  The tools run as child processes in the worker's
 * work directory, before the sandbox closes exec; clang and llvm-spirv are
 * taken from the same LLVM major version (bitcode is only read by the same
 * or a newer LLVM).  KFORGE_CLANG, KFORGE_LLVM_SPIRV and KFORGE_SPIRV_VAL
 * name other binaries.
 */
#include "kfze.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SPIRV (64u << 20)

static const char *const BIN_DIRS[] = {"/usr/bin", "/usr/local/bin", NULL};

static int executable(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

/* name in BIN_DIRS or $PATH -> full path in out. */
static int find_tool(const char *name, char *out, size_t n)
{
    if (strchr(name, '/')) {
        snprintf(out, n, "%s", name);
        return executable(out);
    }
    for (int i = 0; BIN_DIRS[i]; i++) {
        snprintf(out, n, "%s/%s", BIN_DIRS[i], name);
        if (executable(out)) return 1;
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t len = strcspn(path, ":");
        if (len) {
            snprintf(out, n, "%.*s/%s", (int)len, path, name);
            if (executable(out)) return 1;
        }
        path += len + (path[len] == ':');
    }
    return 0;
}

static struct {
    int looked;
    char clang[512], llvm_spirv[512], spirv_val[512];
    char text[1024];
} tools;

/* Finds the tools once: the env overrides, else the newest LLVM major with
 * both clang-N and llvm-spirv-N, else unsuffixed clang and llvm-spirv. */
static void look_for_tools(void)
{
    if (tools.looked) return;
    tools.looked = 1;
    const char *c = getenv("KFORGE_CLANG"), *l = getenv("KFORGE_LLVM_SPIRV"), *v = getenv("KFORGE_SPIRV_VAL");
    if (c && *c && !find_tool(c, tools.clang, sizeof tools.clang)) tools.clang[0] = '\0';
    if (l && *l && !find_tool(l, tools.llvm_spirv, sizeof tools.llvm_spirv)) tools.llvm_spirv[0] = '\0';
    if (!(c && *c) || !(l && *l)) {
        char cn[32], ln[32], cp[512], lp[512];
        for (int ver = 20; ver >= 11 && !(tools.clang[0] && tools.llvm_spirv[0]); ver--) {
            snprintf(cn, sizeof cn, "clang-%d", ver);
            snprintf(ln, sizeof ln, "llvm-spirv-%d", ver);
            if (find_tool(cn, cp, sizeof cp) && find_tool(ln, lp, sizeof lp)) {
                if (!(c && *c)) snprintf(tools.clang, sizeof tools.clang, "%s", cp);
                if (!(l && *l)) snprintf(tools.llvm_spirv, sizeof tools.llvm_spirv, "%s", lp);
            }
        }
        if (!(c && *c) && !tools.clang[0] && !find_tool("clang", tools.clang, sizeof tools.clang))
            tools.clang[0] = '\0';
        if (!(l && *l) && !tools.llvm_spirv[0] && !find_tool("llvm-spirv", tools.llvm_spirv, sizeof tools.llvm_spirv))
            tools.llvm_spirv[0] = '\0';
    }
    if (!find_tool(v && *v ? v : "spirv-val", tools.spirv_val, sizeof tools.spirv_val)) tools.spirv_val[0] = '\0';
    snprintf(tools.text, sizeof tools.text, "%s, %s, %s", tools.clang[0] ? tools.clang : "no clang",
             tools.llvm_spirv[0] ? tools.llvm_spirv : "no llvm-spirv",
             tools.spirv_val[0] ? tools.spirv_val : "no spirv-val");
}

const char *kfze_tools_text(void)
{
    look_for_tools();
    return tools.text;
}

static kf_status missing(char **log, const char *what, const char *pkg)
{
    return kf_hook_fail(log, KF_ERR_UNAVAILABLE,
                        "%s not found (looked in /usr/bin, /usr/local/bin and $PATH): install %s, or name it "
                        "with %s", what, pkg,
                        !strcmp(what, "spirv-val") ? "KFORGE_SPIRV_VAL"
                        : !strcmp(what, "clang") ? "KFORGE_CLANG" : "KFORGE_LLVM_SPIRV");
}

/* Reads a whole file (at most max bytes) into a malloc'ed buffer
 * (NUL-terminated, *n bytes without the NUL). */
static unsigned char *slurp(const char *path, size_t max, size_t *n)
{
    *n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return NULL;
    struct stat sb;
    unsigned char *b = NULL;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (size_t)sb.st_size <= max &&
        (b = malloc((size_t)sb.st_size + 1))) {
        size_t got = 0;
        while (got < (size_t)sb.st_size) {
            ssize_t r = read(fd, b + got, (size_t)sb.st_size - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        b[got] = '\0';
        *n = got;
    }
    close(fd);
    return b;
}

static int write_all(const char *path, const void *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return -1;
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { close(fd); return -1; }
        p += w;
        n -= (size_t)w;
    }
    return close(fd);
}

/* Runs argv in dir with stdout+stderr into dir/tool.log, appended to *log.
 * Returns the exit status (0 = success), or -1 when it could not run. */
static int run_tool(char *const argv[], const char *dir, char **log)
{
    char logpath[4200];
    snprintf(logpath, sizeof logpath, "%s/tool.log", dir);
    int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return -1;
    pid_t pid = fork();
    if (pid < 0) { close(fd); return -1; }
    if (pid == 0) {
        if (chdir(dir) != 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(126);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) dup2(nul, 0);
        execv(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    size_t n;
    unsigned char *text = slurp(logpath, 4u << 20, &n);
    if (text && n) {
        char *joined = kf_strf("%s%s", *log ? *log : "", (char *)text);
        if (joined) { free(*log); *log = joined; }
    }
    free(text);
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* The OpenCL build options clang takes the same way: -D NAME[=VALUE],
 * -cl-* (mad-enable, fast-relaxed-math, std=CLx.y ...), -w, -Werror. */
static int allowed_option(const char *o)
{
    return !strncmp(o, "-D", 2) || !strncmp(o, "-cl-", 4) || !strcmp(o, "-w") || !strcmp(o, "-Werror");
}

#define MAX_OPTS 48

kf_status kfze_spirv_validate(const unsigned char *spv, size_t n, const char *work_dir, char **log)
{
    look_for_tools();
    if (!tools.spirv_val[0]) return missing(log, "spirv-val", "spirv-tools (Debian: apt-get install spirv-tools)");
    if (n < 20 || spv[0] != 0x03 || spv[1] != 0x02 || spv[2] != 0x23 || spv[3] != 0x07)
        return kf_hook_fail(log, KF_ERR_COMPILE, "not a SPIR-V module: a module starts with the magic number "
                            "0x07230203 (little-endian) and has a 20-byte header; got %zu bytes", n);
    char path[4200];
    snprintf(path, sizeof path, "%s/kernel.spv", work_dir);
    if (write_all(path, spv, n) != 0)
        return kf_hook_fail(log, KF_ERR_INTERNAL, "cannot write %s: %s", path, strerror(errno));
    char *argv[] = {tools.spirv_val, (char *)"--target-env", (char *)"opencl1.2", (char *)"kernel.spv", NULL};
    int st = run_tool(argv, work_dir, log);
    if (st < 0) return kf_hook_fail(log, KF_ERR_INTERNAL, "cannot run %s: %s", tools.spirv_val, strerror(errno));
    if (st != 0) {
        char *m = kf_strf("spirv-val rejected the module (exit %d):\n%s", st, *log ? *log : "");
        if (m) { free(*log); *log = m; }
        return KF_ERR_COMPILE;
    }
    return KF_OK;
}

kf_status kfze_spirv_from_opencl(const kf_candidate_view *c, const char *work_dir, unsigned char **spv,
                                 size_t *n, char **log)
{
    *spv = NULL;
    *n = 0;
    look_for_tools();
    if (!tools.clang[0]) return missing(log, "clang", "clang-15 (Debian: apt-get install clang-15 llvm-spirv-15)");
    if (!tools.llvm_spirv[0]) return missing(log, "llvm-spirv", "llvm-spirv-15 (Debian: apt-get install llvm-spirv-15)");
    if (!work_dir || !*work_dir) return kf_hook_fail(log, KF_ERR_INTERNAL, "no work directory to compile in");

    /* the sources, concatenated in order, as clCreateProgramWithSource does */
    char path[4200];
    snprintf(path, sizeof path, "%s/kernel.cl", work_dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return kf_hook_fail(log, KF_ERR_INTERNAL, "cannot write %s: %s", path, strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) { close(fd); return KF_ERR_NOMEM; }
    for (int i = 0; i < c->n_sources; i++) {
        const kf_source *s = KF_AT(kf_source, c->sources, c->source_size, i);
        fprintf(f, "%s\n", s->text ? s->text : "");
    }
    if (fclose(f) != 0) return kf_hook_fail(log, KF_ERR_INTERNAL, "cannot write %s", path);

    char *argv[MAX_OPTS + 16];
    int na = 0, has_std = 0;
    argv[na++] = tools.clang;
    char *obuf = strdup(c->build_options ? c->build_options : "");
    if (!obuf) return KF_ERR_NOMEM;
    for (char *tok = strtok(obuf, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
        if (!allowed_option(tok)) {
            kf_hook_fail(log, KF_ERR_COMPILE, "build option '%s' is not one this backend passes to the "
                         "compiler: use -D NAME[=VALUE], -cl-* options (-cl-mad-enable, "
                         "-cl-fast-relaxed-math, -cl-std=CL1.2 ...), -w or -Werror", tok);
            free(obuf);
            return KF_ERR_COMPILE;
        }
        if (na >= MAX_OPTS) {
            free(obuf);
            return kf_hook_fail(log, KF_ERR_COMPILE, "more than %d build options", MAX_OPTS - 1);
        }
        if (!strncmp(tok, "-cl-std=", 8)) has_std = 1;
        argv[na++] = tok;
    }
    if (!has_std) argv[na++] = (char *)"-cl-std=CL1.2";
    argv[na++] = (char *)"-target";
    argv[na++] = (char *)"spir64";
    argv[na++] = (char *)"-Xclang";
    argv[na++] = (char *)"-finclude-default-header";
    argv[na++] = (char *)"-O2";
    argv[na++] = (char *)"-Xclang";
    argv[na++] = (char *)"-disable-llvm-passes";
    argv[na++] = (char *)"-emit-llvm";
    argv[na++] = (char *)"-c";
    argv[na++] = (char *)"kernel.cl";
    argv[na++] = (char *)"-o";
    argv[na++] = (char *)"kernel.bc";
    argv[na] = NULL;
    int st = run_tool(argv, work_dir, log);
    free(obuf);
    if (st < 0) return kf_hook_fail(log, KF_ERR_INTERNAL, "cannot run %s: %s", tools.clang, strerror(errno));
    if (st != 0) return KF_ERR_COMPILE;      /* the log is clang's diagnostics, verbatim */

    char *targv[] = {tools.llvm_spirv, (char *)"--spirv-max-version=1.0", (char *)"kernel.bc", (char *)"-o",
                     (char *)"kernel.spv", NULL};
    st = run_tool(targv, work_dir, log);
    if (st < 0) return kf_hook_fail(log, KF_ERR_INTERNAL, "cannot run %s: %s", tools.llvm_spirv, strerror(errno));
    if (st != 0) {
        char *m = kf_strf("llvm-spirv could not translate the bitcode (exit %d):\n%s", st, *log ? *log : "");
        if (m) { free(*log); *log = m; }
        return KF_ERR_COMPILE;
    }
    snprintf(path, sizeof path, "%s/kernel.spv", work_dir);
    unsigned char *b = slurp(path, MAX_SPIRV, n);
    if (!b) return kf_hook_fail(log, KF_ERR_INTERNAL, "llvm-spirv left no readable %s", path);
    kf_status vs = kfze_spirv_validate(b, *n, work_dir, log);
    if (vs != KF_OK) {
        free(b);
        *n = 0;
        return vs;
    }
    *spv = b;
    return KF_OK;
}

/* ------------------------------------------------------------------ */
/* reading a module: entry points and their parameters                  */

#define OP_ENTRY_POINT 15
#define OP_FUNCTION 54
#define OP_FUNCTION_PARAMETER 55
#define EXEC_KERNEL 6

static uint32_t word(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int kfze_spirv_entries(const unsigned char *spv, size_t n, kfze_entry *out, int max)
{
    if (n < 20 || n % 4 || word(spv) != 0x07230203u) return -1;
    size_t nw = n / 4;
    uint32_t ids[64];
    int found = 0;
    /* pass 1: OpEntryPoint Kernel %id "name" */
    for (size_t i = 5; i < nw;) {
        uint32_t w = word(spv + 4 * i), wc = w >> 16, op = w & 0xffff;
        if (wc == 0 || i + wc > nw) return -1;
        if (op == OP_ENTRY_POINT && wc >= 4 && word(spv + 4 * (i + 1)) == EXEC_KERNEL && found < max && found < 64) {
            ids[found] = word(spv + 4 * (i + 2));
            const char *name = (const char *)spv + 4 * (i + 3);
            size_t room = 4 * (wc - 3);
            size_t len = strnlen(name, room);
            if (len == room) return -1;
            snprintf(out[found].name, sizeof out[found].name, "%.*s", (int)len, name);
            out[found].n_params = 0;
            found++;
        }
        i += wc;
    }
    /* pass 2: the OpFunction of each and the OpFunctionParameters after it */
    int cur = -1;
    for (size_t i = 5; i < nw;) {
        uint32_t w = word(spv + 4 * i), wc = w >> 16, op = w & 0xffff;
        if (op == OP_FUNCTION && wc >= 5) {
            cur = -1;
            uint32_t id = word(spv + 4 * (i + 2));
            for (int k = 0; k < found; k++)
                if (ids[k] == id) cur = k;
        } else if (op == OP_FUNCTION_PARAMETER) {
            if (cur >= 0) out[cur].n_params++;
        } else {
            cur = -1;
        }
        i += wc;
    }
    return found;
}
