/* test_util.c — core/util: the one strbuf, number formatting, file I/O
 * (atomic writes, mkdir -p, refusing non-regular files) and the error
 * model's kinds and exit codes. */
#include "kf_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/base64.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/fmt.h"
#include "util/sha256.h"
#include "util/strbuf.h"

KF_TEST(strbuf_grows_and_takes)
{
    kf_sb b = {0};
    char *empty = kf_sb_take(&b);
    KF_CHECK_STR(empty, "");
    free(empty);
    for (int i = 0; i < 1000; i++) kf_sb_printf(&b, "%d,", i);
    kf_sb_puts(&b, "end");
    kf_sb_append(&b, "xyz", 2);
    KF_CHECK(!b.oom);
    KF_CHECK_INT(b.len, strlen(b.s));
    KF_CHECK(!strncmp(b.s, "0,1,2,", 6));
    KF_CHECK(b.len > 5 && !strcmp(b.s + b.len - 5, "endxy"));
    char *s = kf_sb_take(&b);
    KF_CHECK(s && b.s == NULL && b.len == 0);
    free(s);
    kf_sb_puts(&b, "again");
    KF_CHECK_STR(b.s, "again");
    kf_sb_free(&b);
    KF_CHECK(b.s == NULL);
}

KF_TEST(fmt_numbers_for_people)
{
    char buf[64];
    KF_CHECK_STR(kf_fmt_time(1.5e-3, buf, sizeof buf), "1.5 ms");
    KF_CHECK_STR(kf_fmt_time(1.234e-3, buf, sizeof buf), "1.23 ms");
    KF_CHECK_STR(kf_fmt_time(4.2e-8, buf, sizeof buf), "42 ns");
    KF_CHECK_STR(kf_fmt_time(2.0, buf, sizeof buf), "2 s");
    KF_CHECK_STR(kf_fmt_duration(0, buf, sizeof buf), "-");
    KF_CHECK_STR(kf_fmt_duration(-1, buf, sizeof buf), "-");
    KF_CHECK_STR(kf_fmt_count(1.5e9, "FLOP", buf, sizeof buf), "1.5 GFLOP");
    KF_CHECK_CONTAINS(kf_fmt_rate(2e12, "FLOP", buf, sizeof buf), "TFLOP/s");
    char tiny[4];
    kf_fmt_count(1.5e9, "FLOP", tiny, sizeof tiny);     /* truncated, still a string */
    KF_CHECK_INT(strlen(tiny), 3);
}

KF_TEST(fileio_atomic_write_and_read_back)
{
    char *dir = kf_test_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/a/b/c", dir);
    kf_error err = {0};
    KF_CHECK_INT(kf_mkdir_p_mode(path, 0700, &err), 0);
    KF_CHECK_INT(kf_mkdir_p(path, &err), 0);              /* exists: fine */
    struct stat sb;
    KF_CHECK(stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && (sb.st_mode & 077) == 0);
    snprintf(path, sizeof path, "%s/a/b/c/f.txt", dir);
    KF_CHECK_INT(kf_write_file_atomic_mode(path, "hello\n", 0600, &err), 0);
    KF_CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    KF_CHECK_INT(kf_write_file_atomic(path, "second", &err), 0);
    char *text = kf_read_file(path, &err);
    KF_CHECK_STR(text, "second");
    free(text);
}

KF_TEST(fileio_errors_say_what_and_whose)
{
    char *dir = kf_test_tmpdir();
    char path[4096];
    kf_error err = {0};
    snprintf(path, sizeof path, "%s/missing", dir);
    KF_CHECK(kf_read_file(path, &err) == NULL);
    KF_CHECK_INT(err.kind, KF_E_BAD_INPUT);
    KF_CHECK_INT(err.errnum, ENOENT);
    KF_CHECK_CONTAINS(err.msg, path);

    /* a path under a regular file */
    snprintf(path, sizeof path, "%s/file", dir);
    KF_CHECK_INT(kf_write_file_atomic(path, "x", &err), 0);
    snprintf(path, sizeof path, "%s/file/sub/dir", dir);
    kf_error_clear(&err);
    KF_CHECK_INT(kf_mkdir_p(path, &err), -1);
    KF_CHECK_INT(err.kind, KF_E_BAD_INPUT);
    KF_CHECK_INT(err.errnum, ENOTDIR);

    /* a FIFO is refused without blocking */
    snprintf(path, sizeof path, "%s/fifo", dir);
    KF_CHECK_INT(mkfifo(path, 0600), 0);
    kf_error_clear(&err);
    KF_CHECK(kf_read_file(path, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "not a regular file");
    /* a directory too */
    kf_error_clear(&err);
    KF_CHECK(kf_read_file(dir, &err) == NULL);
    KF_CHECK(err.kind != KF_E_NONE);
}

KF_TEST(error_kinds_and_exit_codes)
{
    kf_error err = {0};
    KF_CHECK_INT(kf_fail(&err, KF_E_CANDIDATE, "candidate %d failed", 3), -1);
    KF_CHECK_STR(err.msg, "candidate 3 failed");
    KF_CHECK_INT(err.code, 0);
    KF_CHECK_INT(kf_failc(&err, KF_E_IO, 42, "x"), -1);
    KF_CHECK_INT(err.code, 42);
    KF_CHECK_INT(kf_fail_errno(&err, EACCES, "denied"), -1);
    KF_CHECK_INT(err.kind, KF_E_IO);
    KF_CHECK_INT(kf_fail_errno(&err, ENOENT, "missing"), -1);
    KF_CHECK_INT(err.kind, KF_E_BAD_INPUT);
    KF_CHECK_INT(kf_fail(NULL, KF_E_INTERNAL, "no error object"), -1);
    kf_error_clear(&err);
    KF_CHECK_INT(err.kind, KF_E_NONE);
    KF_CHECK_INT(kf_exit_code(KF_E_NONE), 0);
    KF_CHECK_INT(kf_exit_code(KF_E_CANDIDATE), 1);
    KF_CHECK_INT(kf_exit_code(KF_E_BAD_INPUT), 2);
    KF_CHECK_INT(kf_exit_code(KF_E_UNAVAILABLE), 2);
    KF_CHECK_INT(kf_exit_code(KF_E_IO), 3);
    KF_CHECK_INT(kf_exit_code(KF_E_INTERNAL), 3);
    KF_CHECK_STR(kf_error_kind_name(KF_E_UNAVAILABLE), "unavailable");
    /* a message longer than the buffer is cut, still terminated */
    char big[3 * KF_ERROR_MAX];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    kf_fail(&err, KF_E_IO, "%s", big);
    KF_CHECK_INT(strlen(err.msg), KF_ERROR_MAX - 1);
}

KF_TEST(base64_round_trips_and_refuses_garbage)
{
    static const struct { const char *plain, *enc; } v[] = {
        {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="},
        {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};                /* RFC 4648, section 10 */
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char *e = kf_base64_encode(v[i].plain, strlen(v[i].plain));
        KF_CHECK_STR(e, v[i].enc);
        free(e);
        unsigned char *d;
        size_t n;
        KF_CHECK_INT(kf_base64_decode(v[i].enc, &d, &n), 0);
        KF_CHECK_INT(n, strlen(v[i].plain));
        KF_CHECK(memcmp(d, v[i].plain, n) == 0);
        free(d);
    }
    unsigned char all[256], *d;
    for (int i = 0; i < 256; i++) all[i] = (unsigned char)(255 - i);
    char *e = kf_base64_encode(all, sizeof all);
    size_t n;
    KF_CHECK_INT(kf_base64_decode(e, &d, &n), 0);
    KF_CHECK(n == sizeof all && memcmp(d, all, n) == 0);
    free(d);
    free(e);
    const char *bad[] = {"Zg=", "Zg=a", "Z===", "Zm9v!A==", "Zg==Zm8=", "Zm 9v"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        KF_CHECK_MSG(kf_base64_decode(bad[i], &d, &n) == -1, "'%s' decoded", bad[i]);
}

KF_TEST(sha256_known_vectors)
{
    char hex[65];
    kf_sha256_hex("", 0, hex);
    KF_CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    kf_sha256_hex("abc", 3, hex);
    KF_CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";   /* 448 bits: padding spills */
    kf_sha256_hex(two, strlen(two), hex);
    KF_CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* a million 'a' in uneven pieces */
    kf_sha256 s;
    unsigned char d[32];
    char a[1000];
    memset(a, 'a', sizeof a);
    kf_sha256_init(&s);
    for (int i = 0, k = 1; i < 1000000; i += k, k = k % 997 + 1)
        kf_sha256_update(&s, a, (size_t)(i + k <= 1000000 ? k : 1000000 - i));
    kf_sha256_final(&s, d);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
    KF_CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void) { return kf_test_main(); }
