# tests/e2e/tap.sh — TAP helpers sourced by the end-to-end shell tests:
#   ok NAME                 passes the next case
#   no NAME [LINE...]       fails it, printing each LINE as a '# ' diagnostic
#   check NAME COMMAND...   ok when COMMAND succeeds, else no with the command
#   tap_exit                exits 0 when every case passed, else 1
n=0; fails=0
ok() { n=$((n+1)); echo "ok $n - $1"; }
no() { n=$((n+1)); fails=$((fails+1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else no "$name" "command: $*"; fi; }
tap_exit() { exit $([ $fails -eq 0 ] && echo 0 || echo 1); }
