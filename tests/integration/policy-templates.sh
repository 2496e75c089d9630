#!/bin/sh
# Every template in contrib/policies passes `axgate policy check`, and
# allows and denies what contrib/policies/cases/templates.cases says.
. "$top_srcdir/tests/lib.sh"

dir="$top_srcdir/contrib/policies"
cases="$dir/cases/templates.cases"
ntemplates=$(ls "$dir"/*.yaml | wc -l)
ncases=$(grep -cv '^#' "$cases")
plan $((2 * ntemplates + ncases + 5))

for f in "$dir"/*.yaml; do
	out=$("$AXGATE" policy check "$f" 2>&1)
	is "$?" 0 "policy check $(basename "$f") ${out:+($out)}"
done

# Each template's axgate policy test cases (contrib/policies/tests).
for f in "$dir"/*.yaml; do
	t=$(basename "$f" .yaml)
	out=$("$AXGATE" policy test -p "$f" "$dir/tests/${t}_test.rego" 2>&1)
	rc=$?
	case $out in
	*" passed, 0 failed") ok "$rc" "policy test -p $t.yaml: $(echo "$out" | tail -1)" ;;
	*) ok 1 "policy test -p $t.yaml: $out" ;;
	esac
done
printf 'package t\ntest_wrong if {\n\tdata.axgate.connect.allow with input as {"host": "api.openai.com", "port": 22}\n}\n' >"${TMPDIR:-/tmp}/axg-wrong-$$_test.rego"
out=$("$AXGATE" policy test -p "$dir/codex.yaml" "${TMPDIR:-/tmp}/axg-wrong-$$_test.rego" 2>&1)
rc=$?
rm -f "${TMPDIR:-/tmp}/axg-wrong-$$_test.rego"
is "$rc:$(echo "$out" | tail -1)" "1:0 passed, 1 failed" "a test the policy does not satisfy fails"

while read -r template expect kind target method; do
	case $template in '#'* | '') continue ;; esac
	if [ "$template" = default ]; then
		pol=""
	else
		pol="-p $dir/$template.yaml"
	fi
	case $kind in
	connect) args="--connect $target" ;;
	http) args="--http $target --method ${method:-GET}" ;;
	address) args="--address $target" ;;
	esac
	# shellcheck disable=SC2086
	out=$("$AXGATE" policy explain $pol $args 2>&1)
	rc=$?
	if [ "$expect" = allow ]; then want=0; else want=1; fi
	is "$rc" "$want" "$template: $expect $kind $target ($(echo "$out" |
		sed -n 's/^reason: *//p'))"
done <"$cases"

out=$("$AXGATE" policy show-builtin)
like "$out" "package axgate.builtin" "show-builtin prints the built-in rules"
like "$out" "connect := deny_decision" "... and the entry points"

out=$("$AXGATE" policy explain -p "$dir/coding-agent.yaml" \
	--connect 'API.GitHub.COM.:443' --input)
like "$out" '"host":"api.github.com"' \
	"explain canonicalises the host as the proxy does"
out=$("$AXGATE" policy explain -p "$dir/coding-agent.yaml" \
	--connect 2130706433:443 --input)
like "$out" '"host":"127.0.0.1"' "... legacy IPv4 spellings too"
