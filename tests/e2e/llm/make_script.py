#!/usr/bin/env python3
"""Writes the scripted model answers of the loop's end-to-end tests.

    make_script.py walk OUT.json    stub script (OpenAI wire format) for test_run_llm.sh
    make_script.py answer N [SEQ [DIR]]  answer N of a cmd-agent sequence: "resume" (the default),
                                    "crash" (test_run_resume.sh), "records" (test_run_records.sh),
                                    "sleepers" (test_run_confirm_baseline.sh),
                                    "stale DIR" (test_run_confirm_fails.sh: counters kept in DIR),
                                    "stretch DIR" (test_run_confirm_stretch.sh),
                                    "slowstep DIR" (test_run_timing_warning.sh)
    make_script.py wrong            a kernel that compiles but forgets the scale
    make_script.py slow             a correct kernel that sleeps 3 ms a call
    make_script.py case NAME OUT    stub script of one case of test_run_llm_server.sh
"""
import json
import sys

HEAD = '#include "kforge-cpu.h"\n#include <unistd.h>\n'
BODY = """void kf_kernel(const kf_cpu_args *a)
{
    const float *x = a->in[0];
    float *y = a->out[0];
    long n = (long)(a->dims[0] * a->dims[1]);
%s    for (long i = 0; i < n; i++) {
        float h = %s;
        y[i] = h > 0.0f ? h : 0.0f;
    }
}
"""

def cand(pre="", expr="2.0f * x[i]"):
    return HEAD + BODY % (pre, expr)

BROKEN = HEAD + "void kf_kernel(const kf_cpu_args *a) { this is not C; }\n"
WRONG = cand(expr="x[i]")                                  # forgets the scale
SLOW = cand(pre="    usleep(3000);\n")                      # correct, 3 ms per call
FAST = cand()                                               # correct
# correct, but slow on its first call in a process (the evaluation the test kills)
FIRST_SLOW = cand(pre="    static int first = 1;\n    if (first) { first = 0; sleep(4); }\n")

def counted(counter, sleep, expr):
    """A kernel that counts its loads in the file `counter` (the tests run with
    --sandbox off so that it may write it): ev is 1 in the first evaluation
    that loads it (its step), 2, 3 ... in later ones; each call runs the C
    statement `sleep` (ev and calls, the calls of this load, in scope) and
    stores relu(expr)."""
    pre = ('    static int ev = 0, calls = 0;   /* which evaluation this load is: 1 for its step */\n'
           '    if (!ev) {\n'
           '        FILE *f = fopen("%s", "r");\n'
           '        if (!f || fscanf(f, "%%d", &ev) != 1) ev = 0;\n'
           '        if (f) fclose(f);\n'
           '        ev++;\n'
           '        if ((f = fopen("%s", "w"))) { fprintf(f, "%%d\\n", ev); fclose(f); }\n'
           '    }\n'
           '    calls++;\n'
           '    %s\n') % (counter, counter, sleep)
    return HEAD.replace("<unistd.h>", "<stdio.h>\n#include <unistd.h>") + BODY % (pre, expr)

def stale(counter):
    """Correct in the first evaluation that loads it, wrong in every later
    one.  A kernel that passes its step and fails every re-evaluation of the
    final re-timing.  Each call sleeps 1 ms, so that two of them time alike
    (within the finalists' ratio) however loaded the machine: at a few
    microseconds a call, CI's load once timed one 3.8x the other and the
    final re-timing never ran."""
    return counted(counter, "usleep(1000);", "(ev == 1 ? 2.0f : 1.0f) * x[i]")

def stretched(counter):
    """Correct throughout, 1 ms a call, but 20 ms on about three calls of
    four in its first evaluation: its step falls in a "slow stretch", its median
    there about 20 ms and its fastest timed run about 1 ms; every later
    evaluation is 1 ms a call (test_run_confirm_stretch.sh)."""
    return counted(counter, "usleep(ev == 1 && ((unsigned)calls * 2654435761u >> 20) % 4 ? 20000 : 1000);",
                   "2.0f * x[i]")   # three calls of four by a hash of the count: no period the timed calls keep

SLOW2 = cand(pre="    usleep(2000);\n")                   # correct, 2 ms per call

def fenced(code, prose="Here is the kernel."):
    return "%s\n\n```c\n%s```\nIt computes y = relu(2x).\n" % (prose, code)

ANALYSIS = ('The kernel sleeps.\n```json\n{"bottleneck": "launch", "text": "the entry sleeps 3 ms", '
            '"recommendations": [{"what": "remove the usleep", "why": "3 ms of idle time per call", '
            '"expected_gain": 100,}]}\n```\n')       # trailing comma: models write them
NO_MORE = '```json\n{"bottleneck": "memory", "text": "nothing left", "recommendations": []}\n```\n'

def walk(path):
    items = [
        {"content": fenced(BROKEN), "usage": [100, 50]},
        {"content": fenced(WRONG, "Fixed the syntax."), "usage": [120, 60]},
        {"content": fenced(SLOW, "Fixed the scale."), "usage": [130, 70]},
        {"content": ANALYSIS, "usage": [90, 40]},
        {"content": fenced(FAST, "Removed the sleep."), "usage": [140, 80]},
        {"content": NO_MORE, "usage": [90, 20]},
    ]
    with open(path, "w") as f:
        json.dump({"openai": items}, f)

SEQUENCES = {
    # killed before the first evaluation starts: evaluated on resume
    "resume": [fenced(FIRST_SLOW), ANALYSIS, fenced(FAST), NO_MORE],
    # killed while the first candidate runs: a crash, then its repair
    "crash": [fenced(FIRST_SLOW), fenced(FAST, "Fixed."), NO_MORE],
    # two correct kernels, the second faster, then nothing left to try
    "records": [fenced(SLOW), ANALYSIS, fenced(FAST, "Removed the sleep."), NO_MORE],
    # two correct kernels, both far slower than the op-by-op baseline (test_run_confirm_baseline.sh)
    "sleepers": [fenced(SLOW), ANALYSIS, fenced(SLOW2, "Shortened the sleep."), NO_MORE],
}

def cpp_fenced(code):
    return "Sure.\n\n```cpp\n%s```\n" % code

CASES = {
    # an answer without code, then a good one in a ```cpp fence
    "unusable": {"openai": [{"content": "I would write a loop over the elements.", "usage": [10, 5]},
                            {"content": cpp_fenced(FAST), "usage": [20, 30]}]},
    # cut by the length limit, then the continuation is refused (context overflow)
    "length": {"openai": [{"content": "Here it is:\n```c\n" + FAST[:120], "finish_reason": "length",
                           "usage": [1000, 50]},
                          {"status": 400, "error": {"message": "Requested tokens (3500) exceed context window of 6000"}}]},
    # the server says its context length
    "probe": {"get": {"/v1/models": {"object": "list", "data": [{"id": "stub-model", "max_model_len": 8000}]}},
              "openai": [{"content": fenced(FAST), "usage": [20, 30]}]},
    # llama.cpp's /props
    "props": {"get": {"/props": {"default_generation_settings": {"n_ctx": 6000}}},
              "openai": [{"content": fenced(FAST), "usage": [20, 30]}]},
    "retry": {"openai": [{"status": 503, "error": {"message": "loading model"}},
                         {"content": fenced(FAST), "usage": [20, 30]}]},
    "stall": {"openai": [{"fault": "stall", "seconds": 40}]},
    "auth": {"openai": [{"status": 401, "error": {"message": "Incorrect API key provided"}}]},
    "good": {"openai": [{"content": fenced(FAST), "usage": [20, 30]}]},
}

if __name__ == "__main__":
    if sys.argv[1] == "case":
        with open(sys.argv[3], "w") as f:
            json.dump(CASES[sys.argv[2]], f)
        sys.exit(0)
    if sys.argv[1] == "walk":
        walk(sys.argv[2])
    elif sys.argv[1] == "wrong":
        sys.stdout.write(WRONG)
    elif sys.argv[1] == "slow":
        sys.stdout.write(SLOW)
    else:
        n = int(sys.argv[2])
        name = sys.argv[3] if len(sys.argv) > 3 else "resume"
        if name == "stale":   # two such kernels, alike in speed (both finalists), then nothing left
            d = sys.argv[4]
            seq = [fenced(stale(d + "/first")), ANALYSIS, fenced(stale(d + "/second")), NO_MORE]
        elif name == "stretch":   # a 2 ms kernel, then one 1 ms but slow in its own step
            seq = [fenced(SLOW2), ANALYSIS, fenced(stretched(sys.argv[4] + "/stretched")), NO_MORE]
        elif name == "slowstep":   # that kernel alone: nothing to re-time it beside
            seq = [fenced(stretched(sys.argv[4] + "/only")), NO_MORE]
        else:
            seq = SEQUENCES[name]
        sys.stdout.write(seq[min(n, len(seq) - 1)])
