/* Isolation: tries to write outside its work directory and to read the
 * user's home, the run's own files and the system's secrets; reports each
 * result ("allowed" / "blocked") and aborts so the report reaches the
 * diagnostics.  Only its own work directory ($TMPDIR) may be written. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kforge-cpu.h"

static void try_open(const char *what, const char *path, int flags)
{
    int fd = open(path, flags, 0644);
    if (fd >= 0) {
        fprintf(stderr, "adversary %s: allowed (%s)\n", what, path);
        close(fd);
    } else {
        fprintf(stderr, "adversary %s: blocked (%s)\n", what, strerror(errno));
    }
}

void kf_kernel(const kf_cpu_args *a)
{
    (void)a;
    char here[4200];
    const char *tmp = getenv("TMPDIR");
    snprintf(here, sizeof here, "%s/own-file", tmp ? tmp : ".");
    try_open("write-own-work-dir", here, O_WRONLY | O_CREAT | O_TRUNC);
    try_open("write-tmp", "/tmp/kforge-adversary-escape", O_WRONLY | O_CREAT | O_TRUNC);
    try_open("write-etc", "/etc/kforge-adversary-escape", O_WRONLY | O_CREAT | O_TRUNC);
    try_open("read-shadow", "/etc/shadow", O_RDONLY);
    try_open("read-root-home", "/root", O_RDONLY | O_DIRECTORY);
    const char *target = getenv("KF_ADV_TARGET");   /* never passed by the sandbox */
    try_open("read-target", target ? target : "/nonexistent", O_RDONLY);
    /* the parent's directory as the test names it, written into the source by the test */
#ifdef KF_ADV_RUN_DIR
    try_open("read-run-dir", KF_ADV_RUN_DIR, O_RDONLY | O_DIRECTORY);
    try_open("write-run-dir", KF_ADV_RUN_DIR "/forged-result.json", O_WRONLY | O_CREAT | O_TRUNC);
#endif
    abort();
}
