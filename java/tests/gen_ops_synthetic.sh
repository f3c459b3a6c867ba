#!/usr/bin/env bash
# bindings/gen_ops.py on a made-up registry with every attribute type, variadic inputs, required
# attributes after optional ones, 0/1/several outputs, Java keywords and odd names: the generated
# class must compile against ndrt.jar and have the expected overloads. An attribute type the
# generator does not know must stop it with a clear error (never drop an op silently).
#   gen_ops_synthetic.sh <python3> <gen_ops.py> <synthetic_ops.json> <javac> <javap> <ndrt.jar>
set -euo pipefail
py=$1 gen=$2 json=$3 javac=$4 javap=$5 jar=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$py" "$gen" --from-json "$json" --java "$work/src/org/ndrt/SyntheticOps.java" --java-class SyntheticOps
"$javac" -Xlint:all -Werror -Xdoclint:all,-missing -d "$work/classes" -cp "$jar" "$work/src/org/ndrt/SyntheticOps.java"
sig=$("$javap" -cp "$work/classes:$jar" org.ndrt.SyntheticOps)
echo "$sig"
expect() {
  grep -qF -- "$1" <<<"$sig" || { echo "FAIL: no '$1' in the generated class"; exit 1; }
}
expect "public static org.ndrt.Tensor concat(org.ndrt.Tensor[]);"
expect "public static org.ndrt.Tensor concat(org.ndrt.Tensor[], long);"
expect "public static org.ndrt.Tensor concat(org.ndrt.Tensor[], long, org.ndrt.Tensor);"
expect "public static org.ndrt.SyntheticOps\$BatchNormResult batchNorm(org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, double, double, boolean, org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor);"
expect "public static org.ndrt.Tensor randomNormal(long[]);"
expect "public static org.ndrt.Tensor randomNormal(long[], org.ndrt.DType, long, double, double, org.ndrt.Tensor);"
expect "public static org.ndrt.Tensor switch_(org.ndrt.Tensor, org.ndrt.Tensor, long, boolean, double, org.ndrt.Tensor);"
expect "public static org.ndrt.Tensor padTo(org.ndrt.Tensor, long, long[], org.ndrt.DType);"
expect "public static void sgdUpdate(org.ndrt.Tensor, org.ndrt.Tensor, double);"
expect "public static org.ndrt.SyntheticOps\$MaxPool2dResult maxPool2d(org.ndrt.Tensor, long[], long[], org.ndrt.Tensor, org.ndrt.Tensor);"
expect "public static org.ndrt.Tensor stack(org.ndrt.Tensor, org.ndrt.Tensor[], org.ndrt.Tensor);"
expect "public static org.ndrt.Tensor relu_(org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor);"
expect "public static org.ndrt.Tensor randomNormal(org.ndrt.SyntheticOps\$RandomNormalAttrs);"
expect "public static org.ndrt.Tensor randomNormal(org.ndrt.SyntheticOps\$RandomNormalAttrs, org.ndrt.Tensor);"
expect "public static void sgdUpdate(org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.SyntheticOps\$SgdUpdateAttrs);"
# trailing optional inputs: every form without them and with them; the full form takes them (null = left out)
expect "public static org.ndrt.Tensor weightedLoss(org.ndrt.Tensor, org.ndrt.Tensor);"
expect "public static org.ndrt.Tensor weightedLoss(org.ndrt.Tensor, org.ndrt.Tensor, long);"
expect "public static org.ndrt.Tensor weightedLoss(org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor);"
expect "public static org.ndrt.Tensor weightedLoss(org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, long);"
expect "public static org.ndrt.Tensor weightedLoss(org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, long, org.ndrt.Tensor);"
expect "public static org.ndrt.Tensor weightedLoss(org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.SyntheticOps\$WeightedLossAttrs);"
expect "public static org.ndrt.Tensor weightedLoss(org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.SyntheticOps\$WeightedLossAttrs, org.ndrt.Tensor);"
expect "public static org.ndrt.Tensor scaleBy(org.ndrt.Tensor);"
expect "public static org.ndrt.Tensor scaleBy(org.ndrt.Tensor, org.ndrt.Tensor, org.ndrt.Tensor);"
attrs=$("$javap" -cp "$work/classes:$jar" 'org.ndrt.SyntheticOps$RandomNormalAttrs' 'org.ndrt.SyntheticOps$SwitchAttrs')
echo "$attrs"
grep -qF 'public org.ndrt.SyntheticOps$RandomNormalAttrs(long[]);' <<<"$attrs" || { echo "FAIL: required attribute not in the constructor"; exit 1; }
grep -qF 'public org.ndrt.SyntheticOps$RandomNormalAttrs seed(long);' <<<"$attrs" || { echo "FAIL: no seed setter"; exit 1; }
grep -qF 'public org.ndrt.SyntheticOps$RandomNormalAttrs shape(long...);' <<<"$attrs" || { echo "FAIL: no shape setter"; exit 1; }
grep -qF 'public org.ndrt.SyntheticOps$SwitchAttrs default_(long);' <<<"$attrs" || { echo "FAIL: keyword attribute"; exit 1; }
if grep -qF "padTo(org.ndrt.Tensor, long);" <<<"$sig"; then echo "FAIL: an overload stops before a required attribute"; exit 1; fi
# an unknown attribute type stops the generator
sed 's/"type": "ints", "required": true/"type": "strings", "required": true/' "$json" > "$work/bad.json"
if "$py" "$gen" --from-json "$work/bad.json" --java "$work/bad/Ops.java" 2> "$work/err"; then
  echo "FAIL: the generator accepted an unknown attribute type"; exit 1
fi
grep -q "has type 'strings', which this generator does not know" "$work/err" || { cat "$work/err"; echo "FAIL: unclear error"; exit 1; }
# the shared part: the ndrt_exec attribute encoding
"$py" -B - "$gen" "$json" <<'PY'
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[1])))
import gen_ops as g
ops = {op.name: op for op in g.load_ops_json(sys.argv[2])}
assert g.encode_attrs(ops["random_normal"], [[2, 3], "f64", 7, 0.5]) == ([2, 2, 3, 2, 7], [0.5])
assert g.encode_attrs(ops["switch"], [4, False]) == ([4, 0], [])
assert g.snake_to_camel("max_pool2d") == "maxPool2d"
assert ops["weighted_loss"].n_optional == 2 and ops["weighted_loss"].n_required_inputs == 2
assert ops["scale_by"].n_optional == 1 and ops["concat"].n_optional == 0
try:
    g.op_from_json({"name": "bad", "inputs": [{"name": "a", "optional": True}, {"name": "b"}]})
    raise AssertionError("an optional input before a required one was accepted")
except g.GenError as e:
    assert "only trailing inputs" in str(e)
print("encode_attrs ok")
PY
echo "PASS"
