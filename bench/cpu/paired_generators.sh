#!/bin/bash
# bench/cpu/paired_generators.sh — two builds of kforge (two `make dist`
# tarballs: OLD and NEW) on one machine, and the kernels their built-in
# agents write for the same search-space points timed side by side through
# NEW's `kforge profile` (the suite's own measurement), rounds interleaved.
#
#   OLD=old.tar.gz NEW=new.tar.gz [SUITE=RUN_DIRS] bash bench/cpu/paired_generators.sh PROBLEM...
#
# For each problem, the point is the best kernel's of NEW's run of it under
# $SUITE/runs/<problem name> (a `kforge suite` report directory; without
# SUITE, NEW runs the problem itself, $ITER steps, default 4).  OLD writes
# the kernel at that point in one step (`--agent builtin:POINT`), so the
# pair differs only in what the generators emit.  ROUNDS rounds (default 3)
# of REPS timed runs each (default 40); PRESET (default cpu).  Prints a line
# per kernel and round: median, minimum, p90 (ms), and the minor page faults
# of the profile's processes (the worker's and the parent's: the parent's
# work is the same for both kernels).  Needs json-c and libseccomp where the tarballs build
# (bench/gpu/run_gpu_suite.sh's environment: run it through MODE=exec).
set -u
die() { echo "paired_generators.sh: $*" >&2; exit 2; }
[ -f "${OLD:-}" ] && [ -f "${NEW:-}" ] || die "OLD and NEW must name two kforge tarballs"
[ $# -ge 1 ] || die "name at least one problem file"
top=$PWD work=${WORK:-/tmp/paired} rounds=${ROUNDS:-3} reps=${REPS:-40} preset=${PRESET:-cpu}
mkdir -p "$work"
build() {   # build TARBALL PREFIX
    local d; d=$(mktemp -d "$work/src.XXXX")
    tar xzf "$1" -C "$d" && cd "$d"/kforge-* &&
        ./configure -q --disable-levelzero --prefix="$2" >"$work/$(basename "$2").log" 2>&1 &&
        make -j"$(nproc)" >>"$work/$(basename "$2").log" 2>&1 && make install >>"$work/$(basename "$2").log" 2>&1
}
if [ ! -x "$work/old/bin/kforge" ] || [ ! -x "$work/new/bin/kforge" ]; then
    build "$OLD" "$work/old" & po=$!
    build "$NEW" "$work/new" & pn=$!
    wait $po || { tail -20 "$work/old.log"; die "OLD did not build"; }
    wait $pn || { tail -20 "$work/new.log"; die "NEW did not build"; }
fi
cd "$top" || exit 1
kf() {   # kf old|new ARGS...
    KFORGE_PLUGIN_PATH=$work/$1/lib/kforge/plugins "$work/$1/bin/kforge" "${@:2}"
}
point_of() {   # the builtin point of a run's best kernel
    python3 - "$1" <<'EOF'
import json, sys
d = sys.argv[1]
best = json.load(open(d + "/result.json"))["best"]["dir"]
notes = json.load(open(d + "/" + best + "/candidate.json"))["notes"]
print(notes.split("builtin point: ", 1)[1])
EOF
}
profile() {   # profile CANDIDATE -> "median min p90 faults" (ms; minor faults of kforge and its worker)
    python3 - "$work/new/bin/kforge" "$p" "$preset" "$reps" "$1" <<'EOF'
import json, resource, subprocess, sys
kforge, prob, preset, reps, cand = sys.argv[1:]
out = subprocess.run([kforge, "profile", "--backend", "cpu-simd", "--problem", prob, "--preset", preset,
                      "--reps", reps, "--json", cand], capture_output=True, text=True).stdout
flt = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
try:
    t = json.loads(out)["timing"]
    print("%.3f %.3f %.3f %d" % (t["median_s"] * 1e3, t["min_s"] * 1e3, t["p90_s"] * 1e3, flt))
except Exception:
    print("- - - %d" % flt)
EOF
}
for p in "$@"; do
    name=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$p") || die "$p: not a problem"
    run=${SUITE:+$SUITE/runs/$name}
    if [ -z "$run" ] || [ ! -f "$run/result.json" ]; then
        run=$work/runs/$name
        rm -rf "$run"
        kf new run "$p" --backend cpu-simd --preset "$preset" --max-iterations "${ITER:-4}" --out "$run" >/dev/null 2>&1
    fi
    pt=$(point_of "$run") || { echo "$name: no best kernel in $run"; continue; }
    newc=$run/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["best"]["dir"])' "$run/result.json")
    oldr=$work/old-runs/$name
    rm -rf "$oldr"
    kf old run "$p" --backend cpu-simd --preset "$preset" --agent "builtin:$pt" --max-iterations 1 --no-baseline \
        --out "$oldr" >/dev/null 2>&1
    oldc=$oldr/steps/0001-0/candidate
    [ -f "$oldc/kernel.c" ] || { echo "$name: OLD wrote no kernel at $pt"; continue; }
    echo "== $name at $pt"
    for r in $(seq "$rounds"); do
        for v in old new; do
            c=$oldc; [ $v = new ] && c=$newc
            line=$(KFORGE_PLUGIN_PATH=$work/new/lib/kforge/plugins profile "$c")
            printf '%-40s round %d %s  median %s min %s p90 %s ms  faults %s\n' "$name" "$r" "$v" $line
        done
    done
done
