/* replay_main.c — runs a libFuzzer target without libFuzzer: every file
 * named on the command line (a directory: every file in it) is passed to
 * LLVMFuzzerTestOneInput once.  Built with the normal compiler for the
 * regression test (tests/fuzz/test_fuzz_replay.sh), so the checked-in
 * corpora and crash inputs run in every `make check`, under ASan/UBSan in
 * CI.  Prints the number of inputs; exits 0 unless an input cannot be read
 * (a crash ends the process as it would under the fuzzer). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "replay: %s: cannot open\n", path); return -1; }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) { uint8_t *b = realloc(buf, cap *= 2); if (!b) { free(buf); buf = NULL; } else buf = b; }
    }
    fclose(f);
    if (!buf) return -1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int count = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) { fprintf(stderr, "replay: %s: missing\n", argv[i]); bad++; continue; }
        if (!S_ISDIR(st.st_mode)) { bad += run_file(argv[i]) != 0; count++; continue; }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            bad += run_file(path) != 0;
            count++;
        }
        if (d) closedir(d);
    }
    printf("%d inputs\n", count);
    return bad ? 2 : 0;
}
