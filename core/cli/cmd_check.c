/*
 * cmd_check.c — `kforge check PROBLEM.json [--preset P] [--json]`: validates
 * a problem (every preset), then prints for one preset its dims, inputs,
 * graph with shapes, outputs, tolerance, FLOPs, fewest bytes, arithmetic
 * intensity and the roofline floor on every device of every backend found.
 * Exit 0 ok, 2 bad input (message on stderr), 3 internal error.
 */
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common.h"
#include "util/error.h"
#include "util/fmt.h"
#include "eval/eval.h"
#include "problem/problem.h"
#include "problem/problem_internal.h"
#include "backend/registry.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kforge check PROBLEM.json [--preset P] [--json] [--trivial | --no-trivial]\n"
        "\n"
        "Validates a problem file (every preset), then shows one preset: dims, inputs,\n"
        "the graph with shapes, outputs, tolerance, FLOPs, fewest bytes moved,\n"
        "arithmetic intensity and the roofline floor on each device of each backend.\n"
        "\n"
        "  -p, --preset P   preset to show (default: small, else the first)\n"
        "      --json       print one JSON object instead of text\n"
        "      --trivial    test the trivial predictors even above 2e10 FLOPs (the reference\n"
        "                   is computed in double precision: minutes at kernelbench sizes)\n"
        "      --no-trivial do not test them\n"
        "  -h, --help       this help\n"
        "\n"
        "Exit status: 0 valid, 2 bad input (the error is on stderr).\n");
}

/* ------------------------------------------------------------ shared facts */

static const char *dist_name(kf_dist d)
{
    switch (d) {
    case KF_DIST_UNIFORM: return "uniform";
    case KF_DIST_NORMAL: return "normal";
    case KF_DIST_KAIMING_UNIFORM: return "kaiming_uniform";
    case KF_DIST_CONSTANT: return "constant";
    }
    return "?";
}

static int64_t fan_in_of(const kf_resolved *r, const kf_init *in)
{
    if (!in->fan_in_dim) return in->fan_in_value;
    for (int d = 0; d < r->problem->n_dims; d++)
        if (!strcmp(r->problem->dim_names[d], in->fan_in_dim)) return r->dims[d];
    return 0;
}

/* One device's roofline, filled from the eval part's definition. */
typedef struct dev_floor {
    kf_roofline rf;
    const char *bound;      /* "compute", "memory" or NULL when peaks unknown */
} dev_floor;

static dev_floor floor_of(const kf_resolved *r, const kf_device_info *dev)
{
    dev_floor f;
    kf_roofline_compute(r, dev, &f.rf);
    double c = dev->peak_flops > 0 ? r->flops / dev->peak_flops : 0;
    double m = dev->peak_bytes_per_s > 0 ? r->min_bytes / dev->peak_bytes_per_s : 0;
    f.bound = f.rf.floor_s <= 0 ? NULL : c >= m ? "compute" : "memory";
    return f;
}

/* ------------------------------------------------------------ trivial predictors */

#define MAX_TRIVIAL 32

/* Prints (or, with `js`, adds as "trivial_predictors") the predictors that
 * pass; a failure to compute the reference is a note, not an error. */
/* 1 --trivial, -1 --no-trivial, 0 by size (KF_TRIVIAL_MAX_FLOPS) */
static int trivial_mode;
#define KF_TRIVIAL_MAX_FLOPS 2e10

static void trivial_warnings(const kf_resolved *r, json_object *js)
{
    kf_trivial t[MAX_TRIVIAL];
    int n = 0;
    kf_error err = {0};
    if (trivial_mode < 0) return;
    if (trivial_mode == 0 && r->flops > KF_TRIVIAL_MAX_FLOPS) {
        if (!js) printf("trivial predictors  not tested at this size (a %.3g FLOP reference; --trivial tests them)\n",
                        r->flops);
        return;
    }
    if (kf_trivial_predictors(r, 1, t, MAX_TRIVIAL, &n, &err) != 0) {
        if (!js) printf("trivial predictors: not tested: %s\n", err.msg);
        return;
    }
    const kf_problem *p = r->problem;
    json_object *a = js ? json_object_new_array() : NULL;
    for (int i = 0; i < n; i++) {
        const char *out = kf_problem_value_name(p, p->outputs[t[i].output]);
        if (a) {
            json_object *e = json_object_new_object();
            json_object_object_add(e, "output", json_object_new_string(out));
            json_object_object_add(e, "predictor", json_object_new_string(t[i].predictor));
            json_object_object_add(e, "rel_l2", json_object_new_double(t[i].rel_l2));
            json_object_array_add(a, e);
        } else {
            fprintf(stderr,
                    "kforge: warning: output %s: the trivial predictor '%s' passes this problem's tolerance at "
                    "this preset (rel L2 %.3g): a kernel that skips the work cannot be told from a correct one; "
                    "change the inputs' distributions or tighten the tolerance\n",
                    out, t[i].predictor, t[i].rel_l2);
        }
    }
    if (a) json_object_object_add(js, "trivial_predictors", a);
    else if (!n) printf("trivial predictors  none passes (zero, mean, first row, column mean)\n");
}

/* ------------------------------------------------------------ text */

static void print_shape(FILE *f, const kf_shape *s)
{
    char buf[128];
    fputs(kf_shape_fmt(s, buf, sizeof buf), f);
}

static void print_init(const kf_resolved *r, const kf_init *in)
{
    switch (in->dist) {
    case KF_DIST_UNIFORM: printf("uniform [%g, %g)", in->a, in->b); break;
    case KF_DIST_NORMAL: printf("normal mean %g std %g", in->a, in->b); break;
    case KF_DIST_CONSTANT: printf("constant %g", in->a); break;
    case KF_DIST_KAIMING_UNIFORM: {
        int64_t fan = fan_in_of(r, in);
        double bound = fan > 0 ? 1.0 / sqrt((double)fan) : 0;
        if (in->fan_in_dim) printf("kaiming_uniform fan_in=%s=%lld: U(-%.6g, %.6g)", in->fan_in_dim, (long long)fan, bound, bound);
        else printf("kaiming_uniform fan_in=%lld: U(-%.6g, %.6g)", (long long)fan, bound, bound);
        break;
    }
    }
}

static void print_devices(const kf_resolved *r, kf_registry *reg, const char *reg_err)
{
    char a[64], b[64], t[64];
    printf("roofline floor  max(FLOPs / peak FLOP/s, bytes / peak bandwidth)\n");
    if (!reg) {
        printf("  note: no backends: %s\n", reg_err);
        return;
    }
    int shown = 0;
    for (int i = 0; i < reg->n_plugins; i++) {
        const kf_plugin *pl = &reg->plugins[i];
        if (pl->probe_status != 0 || pl->n_devices == 0) {
            printf("  %s: unavailable: %s\n", pl->name, pl->probe_why ? pl->probe_why : "no devices");
            continue;
        }
        for (int d = 0; d < pl->n_devices; d++) {
            const kf_device_info *dev = &pl->devices[d];
            dev_floor f = floor_of(r, dev);
            printf("  %s: %s (%s)  peak %s, %s  ", pl->name, dev->name, dev->kind,
                   dev->peak_flops > 0 ? kf_fmt_rate(dev->peak_flops, "FLOP", a, sizeof a) : "? FLOP/s",
                   dev->peak_bytes_per_s > 0 ? kf_fmt_rate(dev->peak_bytes_per_s, "B", b, sizeof b) : "? B/s");
            if (f.bound) printf("floor %s (%s-bound)\n", kf_fmt_time(f.rf.floor_s, t, sizeof t), f.bound);
            else printf("floor unknown (no peak rates)\n");
            shown++;
        }
    }
    if (reg->n_plugins == 0)
        printf("  note: no backend plugins found (searched: %s); set KFORGE_PLUGIN_PATH\n",
               reg->search_path && reg->search_path[0] ? reg->search_path : "nothing");
    else if (!shown)
        printf("  note: no backend has a usable device here\n");
}

static void print_text(const kf_resolved *r, kf_registry *reg, const char *reg_err)
{
    const kf_problem *p = r->problem;
    char a[64], b[64];
    printf("problem      %s", p->name);
    if (p->level) printf("  (level %d)", p->level);
    printf("\nfile         %s\n", p->path);
    if (p->description) printf("description  %s\n", p->description);
    printf("preset       %s  (presets:", p->preset_names[r->preset]);
    for (int i = 0; i < p->n_presets; i++) printf(" %s", p->preset_names[i]);
    printf(")\ndims        ");
    for (int d = 0; d < p->n_dims; d++) printf(" %s=%lld", p->dim_names[d], (long long)r->dims[d]);
    printf("\ninputs\n");
    for (int i = 0; i < p->n_inputs; i++) {
        printf("  %-8s ", p->inputs[i].name);
        print_shape(stdout, &r->shapes[i]);
        printf("  float32  ");
        print_init(r, &p->inputs[i].init);
        printf("\n");
    }
    printf("graph\n");
    char *g = kf_problem_describe(r);
    if (g) fputs(g, stdout);
    free(g);
    printf("outputs\n");
    for (int o = 0; o < p->n_outputs; o++) {
        printf("  %-8s ", kf_problem_value_name(p, p->outputs[o]));
        print_shape(stdout, &r->shapes[p->outputs[o]]);
        printf("\n");
    }
    printf("tolerance    atol %g  rtol %g  rel_l2 %g  rel_spread %g\n", p->atol, p->rtol, p->rel_l2, p->rel_spread);
    if (p->c_reference) printf("c_reference  yes (LLM agents only)\n");
    printf("FLOPs        %s (%.0f)\n", kf_fmt_count(r->flops, "FLOP", a, sizeof a), r->flops);
    printf("min bytes    %s (%.0f)\n", kf_fmt_count(r->min_bytes, "B", b, sizeof b), r->min_bytes);
    printf("intensity    %.3g FLOP/byte\n", r->min_bytes > 0 ? r->flops / r->min_bytes : 0.0);
    print_devices(r, reg, reg_err);
    trivial_warnings(r, NULL);
}

/* ------------------------------------------------------------ JSON */

static json_object *shape_json(const kf_shape *s)
{
    json_object *a = json_object_new_array();
    for (int i = 0; i < s->rank; i++) json_object_array_add(a, json_object_new_int64(s->d[i]));
    return a;
}

static json_object *init_json(const kf_resolved *r, const kf_init *in)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "dist", json_object_new_string(dist_name(in->dist)));
    switch (in->dist) {
    case KF_DIST_UNIFORM:
        json_object_object_add(o, "low", json_object_new_double(in->a));
        json_object_object_add(o, "high", json_object_new_double(in->b));
        break;
    case KF_DIST_NORMAL:
        json_object_object_add(o, "mean", json_object_new_double(in->a));
        json_object_object_add(o, "std", json_object_new_double(in->b));
        break;
    case KF_DIST_CONSTANT:
        json_object_object_add(o, "value", json_object_new_double(in->a));
        break;
    case KF_DIST_KAIMING_UNIFORM:
        json_object_object_add(o, "fan_in", in->fan_in_dim ? json_object_new_string(in->fan_in_dim)
                                                           : json_object_new_int64(in->fan_in_value));
        json_object_object_add(o, "fan_in_value", json_object_new_int64(fan_in_of(r, in)));
        break;
    }
    return o;
}

static json_object *node_json(const kf_resolved *r, int i)
{
    const kf_problem *p = r->problem;
    const kf_node *nd = &p->nodes[i];
    json_object *o = json_object_new_object();
    json_object_object_add(o, "out", json_object_new_string(nd->out));
    json_object_object_add(o, "op", json_object_new_string(kf_op_name(nd->op)));
    json_object *in = json_object_new_array();
    for (int k = 0; k < nd->n_in; k++)
        json_object_array_add(in, nd->in[k].is_scalar ? json_object_new_double(nd->in[k].scalar)
                                  : json_object_new_string(kf_problem_value_name(p, nd->in[k].value)));
    json_object_object_add(o, "in", in);
    json_object *attrs = json_object_new_object();
    kf_attr at[KF_OP_MAX_ATTRS];
    int na = kf_node_attrs(nd, at);
    for (int k = 0; k < na; k++) {
        json_object *v = NULL;
        switch (at[k].type) {
        case KF_ATTR_BOOL: v = json_object_new_boolean(at[k].num != 0); break;
        case KF_ATTR_INT: v = json_object_new_int64((int64_t)at[k].num); break;
        case KF_ATTR_NUM: v = json_object_new_double(at[k].num); break;
        case KF_ATTR_STR: v = json_object_new_string(at[k].str); break;
        case KF_ATTR_JSON: v = json_tokener_parse(at[k].str); break;   /* e.g. ["B",-1] */
        }
        json_object_object_add(attrs, at[k].key, v);
    }
    json_object_object_add(o, "attrs", attrs);
    json_object_object_add(o, "shape", shape_json(&r->shapes[p->n_inputs + i]));
    return o;
}

static json_object *devices_json(const kf_resolved *r, kf_registry *reg, const char *reg_err,
                                 json_object *root)
{
    json_object *devs = json_object_new_array();
    json_object *unavail = json_object_new_array();
    const char *note = NULL;
    char buf[KF_ERROR_MAX + 256];
    if (!reg) {
        snprintf(buf, sizeof buf, "no backends: %s", reg_err);
        note = buf;
    } else {
        for (int i = 0; i < reg->n_plugins; i++) {
            const kf_plugin *pl = &reg->plugins[i];
            if (pl->probe_status != 0 || pl->n_devices == 0) {
                json_object *u = json_object_new_object();
                json_object_object_add(u, "backend", json_object_new_string(pl->name));
                json_object_object_add(u, "why", json_object_new_string(pl->probe_why ? pl->probe_why : "no devices"));
                json_object_array_add(unavail, u);
                continue;
            }
            for (int d = 0; d < pl->n_devices; d++) {
                const kf_device_info *dev = &pl->devices[d];
                dev_floor f = floor_of(r, dev);
                json_object *o = json_object_new_object();
                json_object_object_add(o, "backend", json_object_new_string(pl->name));
                json_object_object_add(o, "device", json_object_new_string(dev->name));
                json_object_object_add(o, "kind", json_object_new_string(dev->kind));
                json_object_object_add(o, "peak_flops", json_object_new_double(dev->peak_flops));
                json_object_object_add(o, "peak_bytes_per_s", json_object_new_double(dev->peak_bytes_per_s));
                json_object_object_add(o, "floor_s", f.bound ? json_object_new_double(f.rf.floor_s) : NULL);
                json_object_object_add(o, "bound", f.bound ? json_object_new_string(f.bound) : NULL);
                json_object_array_add(devs, o);
            }
        }
        if (reg->n_plugins == 0) {
            snprintf(buf, sizeof buf, "no backend plugins found (searched: %s); set KFORGE_PLUGIN_PATH",
                     reg->search_path && reg->search_path[0] ? reg->search_path : "nothing");
            note = buf;
        } else if (json_object_array_length(devs) == 0) {
            note = "no backend has a usable device here";
        }
    }
    json_object_object_add(root, "unavailable", unavail);
    json_object_object_add(root, "note", note ? json_object_new_string(note) : NULL);
    return devs;
}

static int print_json(const kf_resolved *r, kf_registry *reg, const char *reg_err)
{
    const kf_problem *p = r->problem;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(p->name));
    json_object_object_add(o, "file", json_object_new_string(p->path));
    json_object_object_add(o, "level", p->level ? json_object_new_int(p->level) : NULL);
    json_object_object_add(o, "description", p->description ? json_object_new_string(p->description) : NULL);
    json_object_object_add(o, "preset", json_object_new_string(p->preset_names[r->preset]));
    json_object *presets = json_object_new_array();
    for (int i = 0; i < p->n_presets; i++) json_object_array_add(presets, json_object_new_string(p->preset_names[i]));
    json_object_object_add(o, "presets", presets);
    json_object *dims = json_object_new_object();
    for (int d = 0; d < p->n_dims; d++) json_object_object_add(dims, p->dim_names[d], json_object_new_int64(r->dims[d]));
    json_object_object_add(o, "dims", dims);
    json_object *inputs = json_object_new_array();
    for (int i = 0; i < p->n_inputs; i++) {
        json_object *in = json_object_new_object();
        json_object_object_add(in, "name", json_object_new_string(p->inputs[i].name));
        json_object_object_add(in, "shape", shape_json(&r->shapes[i]));
        json_object_object_add(in, "dtype", json_object_new_string("float32"));
        json_object_object_add(in, "init", init_json(r, &p->inputs[i].init));
        json_object_array_add(inputs, in);
    }
    json_object_object_add(o, "inputs", inputs);
    json_object *graph = json_object_new_array();
    for (int i = 0; i < p->n_nodes; i++) json_object_array_add(graph, node_json(r, i));
    json_object_object_add(o, "graph", graph);
    json_object *outs = json_object_new_array();
    for (int k = 0; k < p->n_outputs; k++) {
        json_object *out = json_object_new_object();
        json_object_object_add(out, "name", json_object_new_string(kf_problem_value_name(p, p->outputs[k])));
        json_object_object_add(out, "shape", shape_json(&r->shapes[p->outputs[k]]));
        json_object_array_add(outs, out);
    }
    json_object_object_add(o, "outputs", outs);
    json_object *tol = json_object_new_object();
    json_object_object_add(tol, "atol", json_object_new_double(p->atol));
    json_object_object_add(tol, "rtol", json_object_new_double(p->rtol));
    json_object_object_add(tol, "rel_l2", json_object_new_double(p->rel_l2));
    json_object_object_add(tol, "rel_spread", json_object_new_double(p->rel_spread));
    json_object_object_add(o, "tolerance", tol);
    json_object_object_add(o, "has_c_reference", json_object_new_boolean(p->c_reference != NULL));
    json_object_object_add(o, "flops", json_object_new_double(r->flops));
    json_object_object_add(o, "min_bytes", json_object_new_double(r->min_bytes));
    json_object_object_add(o, "arithmetic_intensity",
                           json_object_new_double(r->min_bytes > 0 ? r->flops / r->min_bytes : 0.0));
    json_object_object_add(o, "devices", devices_json(r, reg, reg_err, o));
    trivial_warnings(r, o);
    const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = s ? 0 : KF_EXIT_INTERNAL;
    if (s) printf("%s\n", s);
    json_object_put(o);
    return rc;
}

/* ------------------------------------------------------------ entry */

int kf_cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {
        {"preset", required_argument, NULL, 'p'},
        {"json", no_argument, NULL, 'j'},
        {"trivial", no_argument, NULL, 't'},
        {"no-trivial", no_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *preset = NULL;
    int as_json = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': preset = optarg; break;
        case 'j': as_json = 1; break;
        case 't': trivial_mode = 1; break;
        case 'n': trivial_mode = -1; break;
        case 'h': usage(stdout); return KF_EXIT_OK;
        default:
            if (optopt == 'p') kf_cli_error("check: option '%s' needs a preset name", argv[optind - 1]);
            else if (optopt) kf_cli_error("check: unknown option '-%c'", optopt);
            else kf_cli_error("check: unknown option '%s'", argv[optind - 1]);
            usage(stderr);
            return KF_EXIT_BAD_INPUT;
        }
    }
    if (argc - optind != 1) {
        kf_cli_error("check: %s", argc - optind == 0 ? "no problem file given"
                                                     : "give exactly one problem file");
        usage(stderr);
        return KF_EXIT_BAD_INPUT;
    }
    kf_problem *p = NULL;
    kf_resolved r;
    int rc = kf_cli_load_problem(argv[optind], preset, &p, &r);
    if (rc != 0) return rc;

    kf_error err = {0};
    kf_registry *reg = kf_registry_open(1, &err);
    if (as_json) rc = print_json(&r, reg, err.msg);
    else print_text(&r, reg, err.msg);
    if (fflush(stdout) != 0) rc = KF_EXIT_INTERNAL;
    kf_registry_close(reg);
    kf_resolved_free(&r);
    kf_problem_free(p);
    return rc;
}
