/* build_options.c — the compiler options a candidate may ask for
 * (candidate.h).  An allow-list: options that run programs (-wrapper,
 * -B, -fplugin, -specs), read files into the output (@FILE, -include,
 * -imacros, -I), pass options on to other tools (-Wl, -Wa, -Wp, -Xlinker)
 * or choose outputs (-o, -M*) never reach a compiler. */
#include "candidate.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int ident(const char *s, size_t n)
{
    if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
    return 1;
}

/* [A-Za-z0-9_.,+-]* (values of -march=, -D..=, -std=) */
static int plain(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || strchr("_.,+-", s[i]))) return 0;
    return 1;
}

/* An absolute path of plain characters, no "..": where the linker looks
 * for a library (what it reads there is still under the sandbox). */
static int lib_path(const char *s, size_t n)
{
    if (!n || s[0] != '/' || strstr(s, "..")) return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || strchr("_.+-/", s[i]))) return 0;
    return 1;
}

static int word_allowed(const char *w, size_t n)
{
    char buf[128];
    if (n >= sizeof buf) return 0;
    memcpy(buf, w, n);
    buf[n] = '\0';
    if (!strcmp(buf, "-w") || !strcmp(buf, "-g") || !strcmp(buf, "-g0") || !strcmp(buf, "-Werror")) return 1;
    if (!strcmp(buf, "-Ofast") || (n == 3 && buf[1] == 'O' && strchr("0123sgz", buf[2])) || !strcmp(buf, "-O"))
        return 1;
    if (!strncmp(buf, "-D", 2) || !strncmp(buf, "-U", 2)) {
        const char *eq = strchr(buf + 2, '=');
        size_t k = eq ? (size_t)(eq - buf - 2) : n - 2;
        return ident(buf + 2, k) && (!eq || plain(eq + 1, strlen(eq + 1)));
    }
    if (!strncmp(buf, "-std=", 5)) return plain(buf + 5, n - 5);
    /* a library in the search path: -lopenblas, or by its file name where
       no unversioned link exists (-l:libopenblas.so.0: the OpenMP build of
       OpenBLAS without its -dev package); never a path */
    if (!strncmp(buf, "-l:", 3)) return n > 3 && plain(buf + 3, n - 3);
    if (!strncmp(buf, "-l", 2)) return n > 2 && plain(buf + 2, n - 2);
    /* a library directory and its run path (OpenBLAS's OpenMP build) */
    if (!strncmp(buf, "-L", 2)) return lib_path(buf + 2, n - 2);
    if (!strncmp(buf, "-Wl,-rpath,", 11)) return lib_path(buf + 11, n - 11);
    if (!strncmp(buf, "-cl-", 4)) return plain(buf + 4, n - 4);   /* OpenCL: -cl-fast-relaxed-math ... */
    if (!strncmp(buf, "-m", 2)) return plain(buf + 2, n - 2) || (!strncmp(buf, "-march=", 7) && plain(buf + 7, n - 7)) ||
                                       (!strncmp(buf, "-mtune=", 7) && plain(buf + 7, n - 7)) ||
                                       (!strncmp(buf, "-mprefer-vector-width=", 22) && plain(buf + 22, n - 22));
    if (!strncmp(buf, "-f", 2)) {
        static const char *const banned[] = {"-fplugin", "-fdump", "-fprofile", "-fauto-profile", "-fcallgraph-info",
                                             "-fstack-usage", "-fdiagnostics", "-fsave-optimization-record",
                                             "-frecord", "-fdebug-prefix-map", "-ffile-prefix-map",
                                             "-fmacro-prefix-map", "-fcompare-debug", "-flto", "-fopt-info",
                                             "-fsanitize", "-finstrument"};
        for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
            if (!strncmp(buf, banned[i], strlen(banned[i]))) return 0;
        const char *eq = strchr(buf, '=');
        return plain(buf + 2, eq ? (size_t)(eq - buf - 2) : n - 2) && (!eq || plain(eq + 1, strlen(eq + 1)));
    }
    if (!strncmp(buf, "-W", 2) && !strchr(buf, ',')) return plain(buf + 2, n - 2) || strchr(buf, '=') != NULL;
    return 0;
}

int kf_build_options_check(const char *opts, char *why, size_t why_len)
{
    for (const char *p = opts ? opts : ""; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        if (!*p) break;
        size_t n = strcspn(p, " \t\n");
        if (!word_allowed(p, n)) {
            snprintf(why, why_len,
                     "build option '%.*s' is not allowed (allowed: -O*, -D/-U NAME[=VALUE], -std=, -lLIB, -l:FILE, -L/DIR, "
                     "-Wl,-rpath,/DIR, -f*, -m*, -W*, -w, -g, -cl-*; nothing that runs a program, reads a file or passes options to another tool)",
                     (int)(n > 80 ? 80 : n), p);
            return -1;
        }
        p += n;
    }
    return 0;
}
