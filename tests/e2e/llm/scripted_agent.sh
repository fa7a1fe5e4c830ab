# tests/e2e/llm/scripted_agent.sh — sourced by the e2e run tests: writes an
# agent command (kforge run --agent cmd:PATH) that answers each call from
# make_script.py, counting its calls in a file.
#   scripted_agent PATH CALLS ARGS...
# PATH: the script to write; CALLS: the file that counts the calls (the
# call's number goes to make_script.py as `answer N`); ARGS: make_script.py's
# words after N (a sequence name, a state directory).  Needs $PYTHON3 and
# $KF_SRCDIR.
scripted_agent() {
    local path=$1 calls=$2 args
    shift 2
    args=$(printf ' %q' "$@")
    cat >"$path" <<AG
#!/bin/sh
cat >/dev/null
c=\$(cat "$calls" 2>/dev/null || echo 0)
echo \$((c + 1)) >"$calls"
exec "$PYTHON3" "$KF_SRCDIR/tests/e2e/llm/make_script.py" answer \$c$args
AG
    chmod +x "$path"
}
