#!/usr/bin/env bash
# Runs a Deeplearning4j program moved to ndrt with its imports only (org.ndrt.examples.dl4j.<Example>)
# for a few iterations: -Dndrt.mnist.maxExamples=384 caps every MNIST iterator the program makes at
# 384 examples, so each epoch is 3-6 minibatches and the evaluation covers 384 test digits.
#   dl4j_example.sh <java> <ndrt.library.path> <class path> <class>
# Passes when the program exits 0 within its time limit, its slf4j log shows the evaluation of the
# 384 test digits, and each deprecated Deeplearning4j form it uses was reported at most once.
set -euo pipefail
java=$1 libpath=$2 cp=$3 cls=$4
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
timeout 500 "$java" -Dndrt.library.path="$libpath" -Dndrt.mnist.maxExamples=384 -cp "$cp" "$cls" >"$log" 2>&1 || status=$?
cat "$log"
fail() { echo "dl4j_example: $cls: $*" >&2; exit 1; }
[ "$status" = 0 ] || fail "exited with status $status"
grep -q '# of examples:   384' "$log" || fail "no evaluation of the 384 test digits in its output"
grep -q ' Accuracy: ' "$log" || fail "no accuracy in its output"
dups=$(grep '^ndrt: .* is deprecated Deeplearning4j API' "$log" | sort | uniq -d)
[ -z "$dups" ] || fail "a deprecation warning was printed more than once: $dups"
echo "dl4j_example: $cls ran and evaluated 384 test digits"
