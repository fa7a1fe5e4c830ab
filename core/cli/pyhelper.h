/*
 * pyhelper.h — running kforge's Python helpers (`kforge import`, the
 * PyTorch export's self-test): which python3, where the helpers are, and
 * running one with its stdout captured.  Only these commands need Python;
 * nothing else in kforge does.
 */
#ifndef KF_CLI_PYHELPER_H
#define KF_CLI_PYHELPER_H

/* The Python interpreter: $KFORGE_PYTHON, else "python3" (found on PATH). */
const char *kf_py_interpreter(void);

/* The directory of the helpers, malloc'ed: $KFORGE_PYTHON_DIR; else, when
 * kforge runs from its build tree (BUILD/core/kforge beside
 * BUILD/config.status), the source tree's python/; else the installed
 * $(pkgdatadir)/python. */
char *kf_py_dir(void);

/* Runs `python3 DIR/SCRIPT ARGS...` (args NULL-terminated) with stderr
 * passed through; stdout is returned in *out (malloc'ed, may be NULL when
 * out is NULL: then stdout passes through too).  Returns the helper's exit
 * status (0..255), 127 when the interpreter cannot be run (message printed),
 * or -1 on a system error (message printed). */
int kf_py_run(const char *script, const char *const *args, char **out);

#endif
