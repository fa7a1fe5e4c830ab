/* test_counters.c — the Nsight Compute side of hardware counters
 * (core/eval/counters.c): the --counters modes, finding ncu, the parser of
 * `ncu --csv` output (on the log ncu 2025.3.1 wrote on an H100 for problem
 * 9's best kernel, tests/e2e/fake-ncu/ncu-p9-h100.csv, and on broken
 * inputs), and the text the analysis agent reads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eval/counters.h"
#include "util/fileio.h"
#include "kf_test.h"

static const char HDR[] = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
                          "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\","
                          "\"Metric Unit\",\"Metric Value\"\n";
#define ROW(id, kernel, metric, unit, value) \
    "\"" id "\",\"9\",\"w\",\"h\",\"" kernel "\",\"1\",\"7\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"0\",\"9.0\",\"S\",\"" \
    metric "\",\"" unit "\",\"" value "\"\n"

static void parse(const char *text, kf_counters *c)
{
    memset(c, 0, sizeof *c);
    kf_ncu_csv_parse(text, strlen(text), c);
}

KF_TEST(modes_parse_and_name)
{
    KF_CHECK_INT(kf_counters_mode_parse("auto"), KF_COUNTERS_AUTO);
    KF_CHECK_INT(kf_counters_mode_parse("off"), KF_COUNTERS_OFF);
    KF_CHECK_INT(kf_counters_mode_parse("ncu"), KF_COUNTERS_NCU);
    KF_CHECK_INT(kf_counters_mode_parse("on"), -1);
    KF_CHECK_INT(kf_counters_mode_parse(""), -1);
    KF_CHECK_INT(kf_counters_mode_parse(NULL), -1);
    KF_CHECK_STR(kf_counters_mode_name(KF_COUNTERS_NCU), "ncu");
    KF_CHECK_STR(kf_counters_mode_name(KF_COUNTERS_OFF), "off");
    KF_CHECK_STR(kf_counters_mode_name(KF_COUNTERS_AUTO), "auto");
}

KF_TEST(metric_list_names_what_the_agent_reads)
{
    const char *m = kf_ncu_metrics();
    KF_CHECK_CONTAINS(m, "sm__warps_active.avg.pct_of_peak_sustained_active");
    KF_CHECK_CONTAINS(m, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
    KF_CHECK_CONTAINS(m, "lts__throughput.avg.pct_of_peak_sustained_elapsed");
    KF_CHECK_CONTAINS(m, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
    KF_CHECK_CONTAINS(m, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active");
    KF_CHECK_CONTAINS(m, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio");
    KF_CHECK(!strchr(m, ' ') && m[strlen(m) - 1] != ',');
}

KF_TEST(find_ncu_honours_kforge_ncu_and_path)
{
    char dir[] = "/tmp/kf-ncu-XXXXXX";
    KF_CHECK(mkdtemp(dir) != NULL);
    char exe[256];
    snprintf(exe, sizeof exe, "%s/ncu", dir);
    KF_CHECK_INT(kf_test_write_file(exe, "#!/bin/sh\n"), 0);
    chmod(exe, 0755);
    setenv("KFORGE_NCU", exe, 1);
    char *f = kf_ncu_find();
    KF_CHECK_STR(f, exe);
    free(f);
    setenv("KFORGE_NCU", "", 1);   /* "" = none, whatever PATH holds */
    setenv("PATH", dir, 1);
    KF_CHECK(kf_ncu_find() == NULL);
    unsetenv("KFORGE_NCU");
    f = kf_ncu_find();
    KF_CHECK_STR(f, exe);
    free(f);
    chmod(exe, 0644);   /* not executable: not found on PATH */
    setenv("PATH", dir, 1);
    f = kf_ncu_find();
    KF_CHECK(f == NULL || strcmp(f, exe) != 0);
    free(f);
    unlink(exe);
    rmdir(dir);
}

KF_TEST(recorded_h100_log_of_problem_9)
{
    const char *src = getenv("KF_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/e2e/fake-ncu/ncu-p9-h100.csv", src ? src : ".");
    kf_error err = {0};
    char *text = kf_read_file(path, &err);
    KF_CHECK_MSG(text != NULL, "%s", err.msg);
    if (!text) return;
    kf_counters c;
    parse(text, &c);
    free(text);
    KF_CHECK_INT(c.state, KF_COUNTERS_COLLECTED);
    KF_CHECK_INT(c.n_kernels, 3);
    KF_CHECK_STR(c.k[0].kernel, "g0_a_to_bf16");
    KF_CHECK_STR(c.k[2].kernel, "g0_gemm_bf16_epilogue");
    KF_CHECK_INT(c.k[2].id, 2);
    /* "15,360" ns: the thousands separator is read */
    KF_CHECK_NEAR(kf_counters_get(&c.k[0], "gpu__time_duration.sum"), 15360, 0);
    KF_CHECK_NEAR(kf_counters_get(&c.k[2], "sm__warps_active.avg.pct_of_peak_sustained_active"), 12.4, 0.05);
    KF_CHECK_NEAR(kf_counters_get(&c.k[2], "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"),
                  49.87, 0.005);
    KF_CHECK_NEAR(kf_counters_get(&c.k[2], "launch__registers_per_thread"), 215, 0);
    /* "n/a" (the wgmma pipe on an mma.sync kernel) is no number: skipped */
    KF_CHECK(isnan(kf_counters_get(&c.k[2], "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active")));
    char *t = kf_counters_text(&c);
    KF_CHECK_CONTAINS(t, "kernel g0_gemm_bf16_epilogue: duration 455.6 us, occupancy 12.4%");
    KF_CHECK_CONTAINS(t, "tensor (mma.sync) 49.9%");
    KF_CHECK_CONTAINS(t, "top stalls (warps per issue): wait 2.66, long_scoreboard 1.46, math_pipe_throttle 0.95");
    free(t);
    kf_counters_free(&c);
    KF_CHECK_INT(c.n_kernels, 0);
}

KF_TEST(quoted_commas_quotes_and_crlf)
{
    char text[4096];
    snprintf(text, sizeof text, "==PROF== Connected\r\n%s%s%s", HDR,
             ROW("0", "void k<float, 4>(float*, \"\"x\"\")", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "1,234.5"),
             ROW("1", "k2", "gpu__time_duration.sum", "ns", "2000"));
    kf_counters c;
    parse(text, &c);
    KF_CHECK_INT(c.state, KF_COUNTERS_COLLECTED);
    KF_CHECK_INT(c.n_kernels, 2);
    KF_CHECK_STR(c.k[0].kernel, "void k<float, 4>(float*, \"x\")");
    KF_CHECK_NEAR(c.k[0].m[0].value, 1234.5, 0);
    KF_CHECK_STR(c.k[0].m[0].unit, "%");
    KF_CHECK_NEAR(kf_counters_get(&c.k[1], "gpu__time_duration.sum"), 2000, 0);
    kf_counters_free(&c);
}

KF_TEST(no_header_or_no_numbers_is_unavailable_with_why)
{
    kf_counters c;
    parse("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n", &c);
    KF_CHECK_INT(c.state, KF_COUNTERS_UNAVAILABLE);
    KF_CHECK_CONTAINS(c.why, "no CSV header");
    char *t = kf_counters_text(&c);
    KF_CHECK_CONTAINS(t, "counters: unavailable (ncu's output has no CSV header");
    free(t);
    kf_counters_free(&c);

    char text[2048];
    snprintf(text, sizeof text, "%s%s", HDR, ROW("0", "k", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "n/a"));
    parse(text, &c);
    KF_CHECK_INT(c.state, KF_COUNTERS_UNAVAILABLE);
    KF_CHECK_CONTAINS(c.why, "profiled no kernel");
    kf_counters_free(&c);

    parse("", &c);
    KF_CHECK_INT(c.state, KF_COUNTERS_UNAVAILABLE);
    kf_counters_free(&c);
}

KF_TEST(short_rows_duplicates_and_limits)
{
    char *text = malloc(1 << 20);
    KF_CHECK(text != NULL);
    if (!text) return;
    size_t n = (size_t)snprintf(text, 1 << 20, "%s\"0\",\"9\"\n", HDR);   /* a short row: skipped */
    n += (size_t)snprintf(text + n, (1 << 20) - n, "%s%s",
                          ROW("0", "k", "gpu__time_duration.sum", "ns", "5"),
                          ROW("0", "k", "gpu__time_duration.sum", "ns", "7"));   /* the first value stays */
    for (int i = 0; i < KF_COUNTERS_MAX_KERNELS + 5; i++)
        for (int m = 0; m < KF_COUNTERS_MAX_METRICS + 5; m++)
            n += (size_t)snprintf(text + n, (1 << 20) - n,
                                  "\"%d\",\"9\",\"w\",\"h\",\"kern%d\",\"1\",\"7\",\"b\",\"g\",\"0\",\"9.0\",\"S\","
                                  "\"metric%d\",\"\",\"%d\"\n", i + 1, i, m, m);
    kf_counters c;
    memset(&c, 0, sizeof c);
    kf_ncu_csv_parse(text, n, &c);
    free(text);
    KF_CHECK_INT(c.state, KF_COUNTERS_COLLECTED);
    KF_CHECK_INT(c.n_kernels, KF_COUNTERS_MAX_KERNELS);
    KF_CHECK_NEAR(kf_counters_get(&c.k[0], "gpu__time_duration.sum"), 5, 0);
    KF_CHECK_INT(c.k[1].n, KF_COUNTERS_MAX_METRICS);
    kf_counters_free(&c);
}

KF_TEST(state_none_and_quiet_print_nothing)
{
    kf_counters c;
    memset(&c, 0, sizeof c);
    char *t = kf_counters_text(&c);
    KF_CHECK_STR(t, "");
    free(t);
    c.state = KF_COUNTERS_UNAVAILABLE;
    c.why = strdup("ncu not found");
    c.quiet = 1;
    t = kf_counters_text(&c);
    KF_CHECK_STR(t, "");
    free(t);
    c.quiet = 0;
    t = kf_counters_text(&c);
    KF_CHECK_STR(t, "counters: unavailable (ncu not found)\n");
    free(t);
    kf_counters_free(&c);
}

int main(void)
{
    return kf_test_main();
}
