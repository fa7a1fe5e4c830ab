/*
 * compile.c — candidate sources -> shared object -> entry pointer.
 *
 * Every source and kforge-cpu.h are written into the request's work_dir;
 * the compiler ($KFORGE_CC, default "cc") runs there without a shell:
 *     CC -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -o cand-N.so
 *        <.c sources> <build_options split on blanks> -lm
 * Its stdout+stderr come back verbatim as diagnostics (also on success when
 * it printed warnings).  nm checks that the entry exists; the object is
 * dlopen'ed RTLD_NOW|RTLD_LOCAL at the first run (kf_cpu_load), not here;
 * each compile gets a fresh file name because dlopen returns an
 * already-loaded object for a name it has seen.
 */
#include "cpu_simd.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGV 256

const char *const kf_cpu_cflags[KF_CPU_N_CFLAGS] = {"-std=gnu11", "-O3", "-march=native", "-fopenmp",
                                                   "-fPIC", "-shared"};

int kf_cpu_run_capture(char *const argv[], const char *cwd, char **output)
{
    int fds[2], status;
    pid_t pid;
    char *buf = NULL;
    size_t len = 0, cap = 0;

    *output = NULL;
    if (pipe2(fds, O_CLOEXEC) != 0) {
        *output = kf_strf("cpu-simd: cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        *output = kf_strf("cpu-simd: cannot fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        /* the worker's memory limit also holds for the compiler (a macro
         * explosion takes cc1 to gigabytes) */
        const char *mem = getenv("KFORGE_SANDBOX_MEM");
        unsigned long long lim = mem ? strtoull(mem, NULL, 10) : 0;
        if (lim) {
            struct rlimit rl = {(rlim_t)lim, (rlim_t)lim};
            setrlimit(RLIMIT_DATA, &rl);
        }
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        if (cwd && chdir(cwd) != 0) {
            dprintf(STDERR_FILENO, "cpu-simd: cannot enter %s: %s\n", cwd, strerror(errno));
            _exit(KF_CPU_NOEXEC);
        }
        execvp(argv[0], argv);
        dprintf(STDERR_FILENO, "cpu-simd: cannot run '%s': %s (set KFORGE_CC to a C compiler)\n",
                argv[0], strerror(errno));
        _exit(KF_CPU_NOEXEC);
    }
    close(fds[1]);
    for (;;) {
        ssize_t n;
        if (cap - len < 4096) {
            char *nb = realloc(buf, cap = cap ? cap * 2 : 8192);
            if (!nb)
                break;
            buf = nb;
        }
        n = read(fds[0], buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            status = -1;
            break;
        }
    if (buf && len > 0) {
        buf[len] = '\0';
        *output = buf;
    } else {
        free(buf);
    }
    if (status == -1)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static int plain_name(const char *n)
{
    if (!n || !*n || n[0] == '.' || strchr(n, '/'))
        return 0;
    return 1;
}

static int write_file(const char *dir, const char *name, const char *text, char **diag)
{
    char *path = kf_strf("%s/%s", dir, name);
    FILE *f = path ? fopen(path, "w") : NULL;
    size_t n = strlen(text);
    int bad;
    if (!f) {
        *diag = kf_strf("cpu-simd: cannot write %s/%s: %s", dir, name, strerror(errno));
        free(path);
        return -1;
    }
    bad = fwrite(text, 1, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad)
        *diag = kf_strf("cpu-simd: writing %s failed (disk full?)", path);
    free(path);
    return bad ? -1 : 0;
}

/* Global functions the object defines, for the missing-entry message. */
static char *exported_functions(const char *so_path)
{
    char *argv[] = {"nm", "-D", "--defined-only", (char *)so_path, NULL};
    char *text = NULL, *list = NULL, *save = NULL;
    size_t used = 0;
    if (kf_cpu_run_capture(argv, NULL, &text) != 0 || !text) {
        free(text);
        return NULL;
    }
    list = calloc(1, 1024);
    for (char *line = strtok_r(text, "\n", &save); list && line;
         line = strtok_r(NULL, "\n", &save)) {
        char addr[64], type[8], name[256];
        if (sscanf(line, "%63s %7s %255s", addr, type, name) == 3 && !strcmp(type, "T") &&
            strcmp(name, "_init") && strcmp(name, "_fini") && used < 900)
            used += (size_t)snprintf(list + used, 1024 - used, "%s%s", used ? ", " : "", name);
    }
    free(text);
    if (list && !*list) {
        free(list);
        list = NULL;
    }
    return list;
}

/* Appends `more` to the diagnostics text *diag (either may be NULL). */
static void diag_append(char **diag, char *more)
{
    if (!more)
        return;
    if (!*diag) {
        *diag = more;
        return;
    }
    char *joined = kf_strf("%s%s%s", *diag, ends_with(*diag, "\n") ? "" : "\n", more);
    if (joined) {
        free(*diag);
        *diag = joined;
    }
    free(more);
}

/* 1 when the object defines the global function `entry`, 0 when not, -1
 * when nm could not tell. */
static int defines_function(const char *so_path, const char *entry)
{
    char *argv[] = {"nm", "-D", "--defined-only", (char *)so_path, NULL};
    char *text = NULL, *save = NULL;
    int found = 0;
    if (kf_cpu_run_capture(argv, NULL, &text) != 0 || !text) {
        free(text);
        return -1;
    }
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char addr[64], type[8], name[256];
        if (sscanf(line, "%63s %7s %255s", addr, type, name) == 3 && !strcmp(type, "T") &&
            !strcmp(name, entry))
            found = 1;
    }
    free(text);
    return found;
}

/* Compile time: the entry must exist.  The object itself is not loaded
 * here: its constructors are the candidate's code, and they run only at
 * the first call (kf_cpu_load), once the worker has closed exec and fork
 * behind it. */
static kf_status check_entry(kf_artifact *art, const char *entry, char **diag)
{
    art->entry_name = strdup(entry);
    if (!art->entry_name)
        return KF_ERR_NOMEM;
    if (defines_function(art->so_path, entry) != 0)
        return KF_OK;
    char *fns = exported_functions(art->so_path);
    diag_append(diag, kf_strf(
        "cpu-simd: the candidate defines no function '%s': define "
        "`void %s(const kf_cpu_args *a)` (not static) from kforge-cpu.h, or name the "
        "entry in candidate.json \"entry\" (functions it exports: %s)",
        entry, entry, fns ? fns : "none"));
    free(fns);
    return KF_ERR_COMPILE;
}

/* Unbound, a candidate's OpenMP threads were often left on one CPU when the
 * worker resumed after a stop: on the 2-core VM problem 9's AMX GEMM took
 * 3.7-5.3 ms or 7.2-12.5 ms run by run (median 4.6-5.1 ms, the slow runs
 * near the one-thread time, 7.4 ms); bound one to a CPU, 3.6-4.6 ms (median
 * 3.95-4.14; bench/results/xeon16-cpu-torch-2026-11-25f/study).
 * So where a candidate's threads cover every CPU the worker may use (the
 * default: KFORGE_THREADS unset), they are bound one to a CPU, in order
 * (OMP_PROC_BIND=close over the CPUs of the affinity mask), unless the user
 * set OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY.  Fewer threads stay
 * unbound: binding would pin every worker to the same first CPUs
 * (`kforge suite --jobs`).  Read by libgomp when dlopen loads it. */
static void default_binding(int threads)
{
    if (threads >= 2 && threads >= kf_cpu_cores() && !getenv("OMP_PROC_BIND") && !getenv("OMP_PLACES") &&
        !getenv("GOMP_CPU_AFFINITY"))
        setenv("OMP_PROC_BIND", "close", 0);
}

kf_status kf_cpu_load(kf_artifact *art, char **error)
{
    void *gomp;
    if (art->entry)
        return KF_OK;
    /* Idle OpenMP threads keep libgomp's own default (spin a while, then
     * sleep), as in the user's program.  The worker used to set
     * OMP_WAIT_POLICY=passive from 8 threads up: chosen before each timed run
     * got its lead-in (core/eval/eval_profile.c), when a run right after a
     * stop that landed on spinning threads stalled (16-core H100 host, problem
     * 9's AMX GEMM: median 3.4-7.2 ms against 1.2-1.4 ms sleeping).  With the
     * lead-in, spinning measures faster there: the suite's 19 best kernels
     * (bench/results/xeon16-cpu-torch-2026-11-28/study), two rounds
     * interleaved, geomean median 1.64 ms passive against 1.51 ms with
     * libgomp's default spin (GOMP_SPINCOUNT=300000), lower on 15 of 19; p90
     * 2.42 against 2.40 ms.  A wait policy the user sets reaches the worker
     * as it is. */
    default_binding(art->n_threads);
    art->handle = dlopen(art->so_path, RTLD_NOW | RTLD_LOCAL);
    if (!art->handle) {
        *error = kf_strf("cpu-simd: the compiled object does not load: %s", dlerror());
        return KF_ERR_RUNTIME;
    }
    /* libgomp cannot be unloaded while its thread pool idles: pin it. */
    if ((gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE)))
        dlclose(gomp);
    *(void **)&art->entry = dlsym(art->handle, art->entry_name);
    if (!art->entry) {
        *error = kf_strf("cpu-simd: the compiled object has no function '%s'", art->entry_name);
        return KF_ERR_RUNTIME;
    }
    /* the unit it names for the roofline (KF_CPU_USES), if any */
    const int *unit = dlsym(art->handle, "kf_cpu_unit");
    art->unit = unit && *unit >= KF_CPU_UNIT_FMA_FP32 && *unit <= KF_CPU_UNIT_I16 ? *unit : 0;
    return KF_OK;
}

static kf_status check_request(const kf_compile_request *req, char **diag)
{
    const kf_candidate_view *c = req ? req->candidate : NULL;
    int n_c = 0;
    if (!c || !req->problem || !req->work_dir) {
        *diag = kf_strf("cpu-simd: compile request without candidate, problem or work_dir");
        return KF_ERR_INVALID;
    }
    if (!c->backend || strcmp(c->backend, "cpu-simd") != 0) {
        *diag = kf_strf("cpu-simd: the candidate is for backend '%s', not cpu-simd",
                        c->backend ? c->backend : "(none)");
        return KF_ERR_INVALID;
    }
    for (int i = 0; i < c->n_sources; i++) {
        if (!plain_name(c->sources[i].name) || !strcmp(c->sources[i].name, "kforge-cpu.h")) {
            *diag = kf_strf("cpu-simd: source name '%s' is not allowed (plain file names only; "
                            "kforge-cpu.h is provided)", c->sources[i].name ? c->sources[i].name : "");
            return KF_ERR_INVALID;
        }
        n_c += ends_with(c->sources[i].name, ".c");
    }
    if (n_c == 0) {
        *diag = kf_strf("cpu-simd: the candidate has no .c source file");
        return KF_ERR_INVALID;
    }
    return KF_OK;
}

static kf_artifact *new_artifact(const kf_problem_view *p)
{
    kf_artifact *art = calloc(1, sizeof *art);
    if (!art)
        return NULL;
    art->n_in = p->n_inputs;
    art->n_out = p->n_outputs;
    art->n_scratch = p->n_scratch;
    art->n_dims = p->n_dims;
    art->n_threads = kf_cpu_threads();
    art->dims = calloc((size_t)p->n_dims + 1, sizeof *art->dims);
    if (!art->dims) {
        free(art);
        return NULL;
    }
    for (int d = 0; d < p->n_dims; d++)
        art->dims[d] = p->dim_values[d];
    return art;
}

kf_status kf_cpu_compile(const kf_compile_request *req, kf_artifact **out, char **diagnostics)
{
    static unsigned serial;
    const kf_candidate_view *c;
    char *argv[MAX_ARGV], *cc_words = NULL, *opt_words = NULL, *save = NULL, *text = NULL;
    kf_artifact *art = NULL;
    kf_status st;
    int n = 0, rc;

    *out = NULL;
    *diagnostics = NULL;
    if ((st = check_request(req, diagnostics)) != KF_OK)
        return st;
    c = req->candidate;
    if (write_file(req->work_dir, "kforge-cpu.h", kf_cpu_header_text, diagnostics))
        return KF_ERR_INTERNAL;
    for (int i = 0; i < c->n_sources; i++)
        if (write_file(req->work_dir, c->sources[i].name, c->sources[i].text, diagnostics))
            return KF_ERR_INTERNAL;
    if (!(art = new_artifact(req->problem)))
        return KF_ERR_NOMEM;
    art->so_path = kf_strf("%s/cand-%d-%u.so", req->work_dir, (int)getpid(), serial++);
    cc_words = strdup(kf_cpu_compiler());
    opt_words = strdup(c->build_options ? c->build_options : "");
    if (!art->so_path || !cc_words || !opt_words) {
        st = KF_ERR_NOMEM;
        goto done;
    }
    for (char *w = strtok_r(cc_words, " \t", &save); w && n < 16; w = strtok_r(NULL, " \t", &save))
        argv[n++] = w;
    for (int i = 0; i < KF_CPU_N_CFLAGS; i++)
        argv[n++] = (char *)kf_cpu_cflags[i];
    argv[n++] = (char *)"-o";
    argv[n++] = art->so_path;
    for (int i = 0; i < c->n_sources && n < MAX_ARGV - 64; i++)
        if (ends_with(c->sources[i].name, ".c"))
            argv[n++] = (char *)c->sources[i].name;
    for (char *w = strtok_r(opt_words, " \t\n", &save); w && n < MAX_ARGV - 2;
         w = strtok_r(NULL, " \t\n", &save))
        argv[n++] = w;
    /* the C library's maths: a candidate's object names what it uses
       instead of relying on the worker happening to have libm loaded */
    argv[n++] = (char *)"-lm";
    argv[n] = NULL;

    rc = kf_cpu_run_capture(argv, req->work_dir, &text);
    *diagnostics = text;
    if (rc == -1 || (rc == KF_CPU_NOEXEC && text && !strncmp(text, "cpu-simd: cannot", 16))) {
        st = KF_ERR_UNAVAILABLE;
    } else if (rc != 0) {
        if (!text)
            *diagnostics = kf_strf("cpu-simd: %s exited with status %d and printed nothing",
                                   argv[0], rc);
        st = KF_ERR_COMPILE;
    } else {
        st = check_entry(art, c->entry && *c->entry ? c->entry : "kf_kernel", diagnostics);
    }
done:
    free(cc_words);
    free(opt_words);
    if (st != KF_OK)
        kf_cpu_release(art);
    else
        *out = art;
    return st;
}
