/*
 * cmd_backends.c — `kforge backends [--json] [--measure]`: every plugin found
 * on the search path with its devices, every file that was skipped and why,
 * and the directories scanned (--measure: the peaks measured again, the
 * larger kept).  Exit 0 when at least one plugin loaded (even if some files
 * were skipped), 2 when none did.
 */
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox/sandbox.h"
#include "commands.h"
#include "common.h"
#include "util/error.h"
#include "backend/registry.h"
#include "agent/builtin/emit/emit.h"

#ifndef KF_PLUGINDIR
#define KF_PLUGINDIR "/usr/local/lib/kforge/plugins"
#endif

static const struct { uint32_t bit; const char *name; } cap_names[] = {
    {KF_CAP_KERNEL_PLAN, "kernel-plan"},
    {KF_CAP_HOST_ENTRY, "host-entry"},
    {KF_CAP_DEVICE_TIMER, "device-timer"},
    {KF_CAP_HOST_MEMORY, "host-memory"},
    {KF_CAP_CUDA_DRIVER, "cuda-driver"},
};
#define N_CAPS (sizeof cap_names / sizeof cap_names[0])

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kforge backends [--json] [--measure]\n"
        "\n"
        "Lists the backend plugins found on the search path (each directory of\n"
        "KFORGE_PLUGIN_PATH, then %s), their devices with peak\n"
        "rates, every file that was skipped and why, and the directories scanned.\n"
        "\n"
        "  --json     one JSON object {plugins, skipped, search_path}\n"
        "  --measure  measure the peaks again (a listing shows the cached ones) and\n"
        "             keep the larger of the cached and the new value of each:\n"
        "             peaks are upper bounds, and a busy machine measures low\n"
        "             (run, suite and profile measure again themselves)\n"
        "  -h, --help this text\n"
        "\n"
        "Exit status: 0 at least one plugin loaded, 2 none found or bad usage.\n",
        KF_PLUGINDIR);
}

static const char *or_unknown(const char *s) { return s && s[0] ? s : "?"; }

/* Names of the capability bits, unknown bits in hex. */
static void caps_text(uint32_t caps, char *buf, size_t n)
{
    buf[0] = '\0';
    size_t len = 0;
    for (size_t i = 0; i < N_CAPS; i++) {
        if (!(caps & cap_names[i].bit)) continue;
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? " " : "", cap_names[i].name);
        caps &= ~cap_names[i].bit;
    }
    if (caps) len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s0x%x", len ? " " : "", (unsigned)caps);
    if (len == 0) snprintf(buf, n, "none");
}

static const char *dir_origin(const char *dir)
{
    if (strcmp(dir, KF_PLUGINDIR) == 0) return "built-in plugin directory";
    const char *env = getenv("KFORGE_PLUGIN_PATH");
    size_t len = strlen(dir);
    for (const char *p = env; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if (n == len && strncmp(p, dir, n) == 0) return "KFORGE_PLUGIN_PATH";
        p = colon ? colon + 1 : NULL;
    }
    return "the build tree kforge runs from";
}

static int dir_exists(const char *dir)
{
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ------------------------------------------------------------------ */
/* text                                                                */

static void print_rate(const char *label, double v, int measured, const char *unit)
{
    int prec = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    if (v > 0)
        printf("%s%.*f %s (%s)", label, prec, v, unit, measured ? "measured" : "estimated");
    else
        printf("%s? %s (unknown)", label, unit);
}

static void print_plugin(kf_plugin *p)
{
    const kf_backend *be = p->be;
    char caps[256];
    caps_text(be->caps, caps, sizeof caps);
    printf("%s %s\n", p->name, or_unknown(be->version));
    printf("  plugin ABI %u.%u, language %s, caps: %s\n", (unsigned)be->abi_major,
           (unsigned)be->abi_minor, or_unknown(be->language), caps);
    printf("  file: %s\n", p->path);
    const kf_bt_emitter *em = kf_bt_emitter_of_plugin(p);
    char *guide = kf_plugin_guide_path(p, NULL);
    printf("  agents: builtin %s; llm guide %s\n", em ? em->what : "none (no emitter for this language)",
           guide ? guide : "none found");
    free(guide);
    const char *targets = kf_plugin_offline_targets(p);
    if (targets)
        printf("  compile only (kforge verify --compile-only --target T, no device needed): %s\n",
               *targets ? targets : "the plugin's default target");
    if (kf_plugin_probe(p) < 0) {
        printf("  not available here: %s\n", or_unknown(p->probe_why));
        return;
    }
    for (int d = 0; d < p->n_devices; d++) {
        const kf_device_info *dev = &p->devices[d];
        printf("  device %d: %s (%s)\n", d, or_unknown(dev->name), or_unknown(dev->kind));
        print_rate("    peak ", dev->peak_flops / 1e9, dev->peak_flops_measured, "GFLOP/s");
        print_rate(", ", dev->peak_bytes_per_s / 1e9, dev->peak_bw_measured, "GB/s");
        if (dev->peak_flops_bf16 > 0) printf(", bf16 %.0f GFLOP/s (measured)", dev->peak_flops_bf16 / 1e9);
        if (dev->peak_flops_amx_bf16 > 0) printf(", AMX bf16 %.0f GFLOP/s (measured)", dev->peak_flops_amx_bf16 / 1e9);
        if (dev->peak_flops_i16 > 0) printf(", int16 pairs %.0f GFLOP/s (measured)", dev->peak_flops_i16 / 1e9);
        putchar('\n');
        if (dev->detail[0]) printf("    %s\n", dev->detail);
    }
    if (p->peaks_remeasured)
        printf("  peaks: measured again, %d device%s raised (the larger of the cached and the new value is kept)\n",
               p->peaks_raised, p->peaks_raised == 1 ? "" : "s");
    else if (p->peaks_from_cache)
        printf("  peaks: cached (kforge backends --measure measures them again)\n");
}

/* The sandbox layers, probed once before any plugin is loaded: the probe
 * runs in a cloned child, which must not inherit threads that a driver
 * (PoCL, a BLAS) starts when it loads. */
static unsigned sb_layers;
static char sb_why[512];

static void print_text(kf_registry *reg)
{
    for (int i = 0; i < reg->n_plugins; i++) {
        if (i) putchar('\n');
        print_plugin(&reg->plugins[i]);
    }
    if (reg->n_skipped) {
        printf("%sskipped:\n", reg->n_plugins ? "\n" : "");
        for (int i = 0; i < reg->n_skipped; i++)
            printf("  %s: %s\n", reg->skipped[i].path, reg->skipped[i].reason);
    }
    char have[128], miss[128];
    unsigned layers = sb_layers;
    const char *why = sb_why;
    kf_sandbox_layers_text(layers, have, sizeof have);
    kf_sandbox_missing_text(layers, miss, sizeof miss);
    printf("%ssandbox for candidate code (doc/sandbox.md): %s\n", reg->n_plugins || reg->n_skipped ? "\n" : "", have);
    if (*miss) printf("  missing: %s (%s); --sandbox=strict refuses to evaluate here\n", miss, why);
    printf("\nsearch path:\n");
    char *dirs = strdup(reg->search_path ? reg->search_path : "");
    char *save = NULL;
    for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save))
        printf("  %s (%s%s)\n", d, dir_origin(d), dir_exists(d) ? "" : ", missing");
    free(dirs);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */

static json_object *jstr(const char *s) { return s ? json_object_new_string(s) : NULL; }

static json_object *device_json(int index, const kf_device_info *dev)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "index", json_object_new_int(index));
    json_object_object_add(o, "name", jstr(dev->name));
    json_object_object_add(o, "kind", jstr(dev->kind));
    json_object_object_add(o, "peak_gflops", json_object_new_double(dev->peak_flops / 1e9));
    json_object_object_add(o, "peak_gflops_measured", json_object_new_boolean(dev->peak_flops_measured));
    json_object_object_add(o, "peak_gbps", json_object_new_double(dev->peak_bytes_per_s / 1e9));
    json_object_object_add(o, "peak_gbps_measured", json_object_new_boolean(dev->peak_bw_measured));
    json_object_object_add(o, "cache_gbps", json_object_new_double(dev->cache_bytes_per_s / 1e9));
    json_object_object_add(o, "peak_gflops_bf16", json_object_new_double(dev->peak_flops_bf16 / 1e9));
    json_object_object_add(o, "peak_gflops_amx_bf16", json_object_new_double(dev->peak_flops_amx_bf16 / 1e9));
    json_object_object_add(o, "peak_gflops_i16", json_object_new_double(dev->peak_flops_i16 / 1e9));
    json_object_object_add(o, "cache_l1d_bytes", json_object_new_int64(dev->cache_l1d_bytes));
    json_object_object_add(o, "cache_l2_bytes", json_object_new_int64(dev->cache_l2_bytes));
    json_object_object_add(o, "cache_l3_bytes", json_object_new_int64(dev->cache_l3_bytes));
    json_object_object_add(o, "detail", jstr(dev->detail));
    return o;
}

static json_object *plugin_json(kf_plugin *p)
{
    const kf_backend *be = p->be;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", jstr(p->name));
    json_object_object_add(o, "version", jstr(be->version));
    json_object_object_add(o, "abi_major", json_object_new_int((int)be->abi_major));
    json_object_object_add(o, "abi_minor", json_object_new_int((int)be->abi_minor));
    json_object *caps = json_object_new_array();
    for (size_t i = 0; i < N_CAPS; i++)
        if (be->caps & cap_names[i].bit) json_object_array_add(caps, json_object_new_string(cap_names[i].name));
    json_object_object_add(o, "caps", caps);
    json_object_object_add(o, "language", jstr(be->language));
    json_object_object_add(o, "file", jstr(p->path));
    const kf_bt_emitter *em = kf_bt_emitter_of_plugin(p);
    json_object_object_add(o, "builtin_emitter", em ? jstr(em->what) : NULL);
    char *guide = kf_plugin_guide_path(p, NULL);
    json_object_object_add(o, "llm_guide", guide ? jstr(guide) : NULL);
    free(guide);
    const char *targets = kf_plugin_offline_targets(p);
    json_object_object_add(o, "compile_only_targets", targets ? jstr(targets) : NULL);
    int n = kf_plugin_probe(p);
    json_object_object_add(o, "available", json_object_new_boolean(n >= 0));
    json_object_object_add(o, "why", n >= 0 ? NULL : jstr(or_unknown(p->probe_why)));
    json_object *devs = json_object_new_array();
    for (int d = 0; n >= 0 && d < p->n_devices; d++) json_object_array_add(devs, device_json(d, &p->devices[d]));
    json_object_object_add(o, "devices", devs);
    /* where the peaks came from: "cached", "measured" (now, no cache) or
       "remeasured" (--measure: the larger of the cached and the new) */
    json_object_object_add(o, "peaks", n < 0 ? NULL
                                       : jstr(p->peaks_remeasured ? "remeasured" : p->peaks_from_cache ? "cached" : "measured"));
    json_object_object_add(o, "peaks_raised", json_object_new_int(p->peaks_raised));
    return o;
}

static void print_json(kf_registry *reg)
{
    json_object *root = json_object_new_object();
    json_object *plugins = json_object_new_array();
    for (int i = 0; i < reg->n_plugins; i++) json_object_array_add(plugins, plugin_json(&reg->plugins[i]));
    json_object_object_add(root, "plugins", plugins);
    json_object *skipped = json_object_new_array();
    for (int i = 0; i < reg->n_skipped; i++) {
        json_object *s = json_object_new_object();
        json_object_object_add(s, "file", jstr(reg->skipped[i].path));
        json_object_object_add(s, "reason", jstr(reg->skipped[i].reason));
        json_object_array_add(skipped, s);
    }
    json_object_object_add(root, "skipped", skipped);
    json_object *path = json_object_new_array();
    char *dirs = strdup(reg->search_path ? reg->search_path : "");
    char *save = NULL;
    for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save))
        json_object_array_add(path, json_object_new_string(d));
    free(dirs);
    json_object_object_add(root, "search_path", path);
    char have[128], miss[128];
    const char *why = sb_why;
    unsigned layers = sb_layers;
    kf_sandbox_layers_text(layers, have, sizeof have);
    kf_sandbox_missing_text(layers, miss, sizeof miss);
    json_object *sb = json_object_new_object();
    json_object_object_add(sb, "layers", json_object_new_string(have));
    json_object_object_add(sb, "missing", json_object_new_string(miss));
    json_object_object_add(sb, "why", *why ? json_object_new_string(why) : NULL);
    json_object_object_add(root, "sandbox", sb);
    puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
}

/* ------------------------------------------------------------------ */

int kf_cmd_backends(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"measure", no_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, measure = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'm': measure = 1; break;
        case 'h': usage(stdout); return KF_EXIT_OK;
        default: usage(stderr); return KF_EXIT_BAD_INPUT;
        }
    }
    if (optind < argc) {
        kf_cli_error("backends: unexpected argument '%s' (try 'kforge backends --help')", argv[optind]);
        return KF_EXIT_BAD_INPUT;
    }

    kf_error err = {0};
    sb_layers = kf_sandbox_probe(sb_why, sizeof sb_why);
    kf_registry *reg = kf_registry_open(1, &err);
    if (!reg) {
        kf_cli_error("%s", err.msg);
        return KF_EXIT_INTERNAL;
    }
    for (int i = 0; measure && i < reg->n_plugins; i++) kf_plugin_remeasure_peaks(&reg->plugins[i]);
    if (json) print_json(reg);
    else print_text(reg);
    int status = KF_EXIT_OK;
    if (reg->n_plugins == 0) {
        kf_cli_error("no backend plugin found in %s: point KFORGE_PLUGIN_PATH at a directory holding "
                     "kf-<name>.so files (colon-separated), or install kforge's plugins",
                     reg->search_path ? reg->search_path : "(empty search path)");
        status = KF_EXIT_BAD_INPUT;
    }
    kf_registry_close(reg);
    return status;
}
