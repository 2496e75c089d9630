#!/bin/sh
# axgate scan: exit statuses, text and JSON output, user rules.
. "$top_srcdir/tests/lib.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Synthetic, format-valid tokens built here from a fixed seed.
rand() { # rand N SEED: N alphanumerics
	awk -v n="$1" -v s="$2" 'BEGIN { a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
		x = s; for (i = 0; i < n; i++) { x = (x * 1103515245 + 12345) % 2147483648;
		printf "%s", substr(a, int(x / 65536) % 62 + 1, 1) } }'
}
ghp="ghp_$(rand 36 7)"
stripe="sk_live_$(rand 24 11)"

printf 'hello world\nnothing to see here\n' > "$tmp/clean.txt"
printf 'line one\nexport GITHUB_TOKEN=%s\n{"key": "%s"}\n' "$ghp" "$stripe" \
    > "$tmp/leaky.env"

out=$("$AXGATE" scan < "$tmp/clean.txt"); rc=$?
is "$rc" 0 "clean stdin exits 0"
is "$out" "" "and prints nothing"

out=$("$AXGATE" scan "$tmp/leaky.env"); rc=$?
is "$rc" 1 "a file with secrets exits 1"
like "$out" "$tmp/leaky.env:2:21: github-pat:" "names file, line, column and rule"
like "$out" "$tmp/leaky.env:3:10: stripe-secret-key:" "second finding"
case "$out" in *"$ghp"*|*"$stripe"*) ok 1 "output hides the secrets" ;;
*) ok 0 "output hides the secrets" ;; esac

out=$("$AXGATE" scan --format json - < "$tmp/leaky.env"); rc=$?
is "$rc" 1 "JSON from stdin exits 1"
like "$out" '"rule_id": "github-pat"' "JSON names the rule"
like "$out" '"count": 2' "JSON counts the findings"
like "$out" '"file": "(stdin)"' "stdin is named"
like "$out" '"truncated": false' "and says nothing was left out"

# More findings than one scan keeps: the first are listed and the user is
# told, in JSON too.
awk 'BEGIN { a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	x = 3; for (l = 0; l < 4200; l++) { printf "t%d ghp_", l;
	for (i = 0; i < 36; i++) { x = (x * 1103515245 + 12345) % 2147483648;
	printf "%s", substr(a, int(x / 65536) % 62 + 1, 1) } printf "\n" } }' \
    > "$tmp/many.txt"
out=$("$AXGATE" scan --format json "$tmp/many.txt" 2>"$tmp/many.err"); rc=$?
is "$rc" 1 "4,200 secrets: exit 1"
like "$out" '"count": 4096' "the first 4,096 are listed"
like "$out" '"truncated": true' "JSON says the list is cut"
like "$(cat "$tmp/many.err")" "many.txt: more than 4096 findings; only the first are listed" \
	"and so does stderr"

printf 'q=%s\n' "$(printf '%s' "$ghp" | sed 's/_/%5F/')" > "$tmp/enc.txt"
out=$("$AXGATE" scan "$tmp/enc.txt"); rc=$?
is "$rc" 1 "a percent-encoded secret is found"
like "$out" "encoded: escaped" "and marked as decoded"

"$AXGATE" scan "$tmp/clean.txt" "$tmp/missing" "$tmp/leaky.env" \
    > "$tmp/out" 2> "$tmp/err"; rc=$?
is "$rc" 2 "an unreadable file makes the exit status 2"
like "$(cat "$tmp/err")" "$tmp/missing" "and is named"
like "$(cat "$tmp/out")" "github-pat" "the other files are still scanned"

cat > "$tmp/bad.yaml" <<'YAML'
rules:
  - id: broken-rule
    keywords: [brk_]
    regex: 'brk_[a-z'
YAML
"$AXGATE" scan --rules "$tmp/bad.yaml" "$tmp/clean.txt" 2> "$tmp/err"; rc=$?
is "$rc" 2 "a bad rules file exits 2"
like "$(cat "$tmp/err")" "rule broken-rule: regex: missing terminating ]" \
    "naming the rule and the PCRE2 error"

cat > "$tmp/slow.yaml" <<'YAML'
rules:
  - id: slow-rule
    keywords: [aaa]
    regex: '(a|a)*b'
YAML
"$AXGATE" scan --rules "$tmp/slow.yaml" "$tmp/clean.txt" 2> "$tmp/err"; rc=$?
is "$rc" 2 "a catastrophic pattern is refused"
like "$(cat "$tmp/err")" "slow-rule: regex backtracks catastrophically" \
    "with the reason"

cp "$top_srcdir/tests/data/leaks/acme-rules.yaml" "$tmp/acme.yaml"
printf 'deploy acme_%s\n' "$(rand 32 5 | tr 'A-Z' 'a-z')" > "$tmp/acme.txt"
out=$("$AXGATE" scan --rules "$tmp/acme.yaml" "$tmp/acme.txt"); rc=$?
is "$rc" 1 "a user rule finds its token"
like "$out" "acme-token: ACME deploy token" "with its description"

n=$("$AXGATE" scan --list-rules | wc -l)
[ "$n" -ge 150 ]; ok $? "--list-rules lists at least 150 rules ($n)"

"$AXGATE" scan --format xml < /dev/null 2> "$tmp/err"; rc=$?
is "$rc" 2 "an unknown format exits 2"
"$AXGATE" scan --help 2> "$tmp/err"; rc=$?
is "$rc" 0 "--help exits 0"
like "$(cat "$tmp/err")" "usage: axgate scan" "and prints the synopsis"

done_testing
