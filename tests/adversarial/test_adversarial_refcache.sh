#!/bin/sh
# Every adversarial candidate again with the reference cache forced on
# (KFORGE_REF_CACHE=1, eval/ref_cache.h): trial references read back from
# disk and the checked timed runs' inputs drawn from the secret seed pool
# instead of fresh random bits.  Each cheating class must get the same
# diagnosis as with fresh inputs.  A private cache directory, so the
# pool's secret and entries are this run's.
cache=$(mktemp -d) || exit 1
trap 'rm -rf "$cache"' EXIT
KFORGE_REF_CACHE=1 XDG_CACHE_HOME="$cache" "$KF_BUILDDIR/tests/adversarial/test_adversarial"
