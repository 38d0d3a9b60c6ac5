#!/usr/bin/env bash
# The cross-language test kit (test/kit/README.md): makes kit.txt,
# malformed.txt and hashes.txt from a throwaway cluster of the PostgreSQL
# that PG_CONFIG names (default Debian's 15), with sbf installed there, and
# compares them with the committed files: any change of bytes or answers
# fails.  Checks on the way that the server refuses every malformed value
# with SQLSTATE 22P03 and that its element hash equals hashes.txt's.
#   bash test/kit/generate.sh            compare (the test; exit 1 on a difference)
#   bash test/kit/generate.sh --update   write the files into test/kit
#   --install   first build sbf and install it into that PostgreSQL, holding
#               /var/lock/sbf-pg15.lock for the install and the run when it
#               is Debian's 15 (without it, sbf must be installed there
#               already: test/run_all.sh's kit suite reuses its install)
# Ends with one line "kit: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
kit=$root/test/kit
pg15=/usr/lib/postgresql/15/bin/pg_config
export PG_CONFIG=${PG_CONFIG:-$pg15}
update=0 install=0
for a in "$@"; do
	case $a in
		--update) update=1 ;;
		--install) install=1 ;;
		--inside) ;;
		*) echo "usage: $0 [--update] [--install]" >&2; exit 2 ;;
	esac
done

# ---- inside the cluster: every file into $KIT_OUT ----
if [ "${1:-}" = --inside ] || [ "${2:-}" = --inside ] || [ "${3:-}" = --inside ]; then
	out=${KIT_OUT:?}
	psql=(psql -X -q -v ON_ERROR_STOP=1)
	"${psql[@]}" -c 'CREATE EXTENSION sbf' || exit 1
	{
		echo "# kit.txt: values of every stored form of sbf's scalablebloom and sbf_hashset,"
		echo "# with the answers of the server that wrote this file (test/kit/README.md)."
		echo "# Made by test/kit/generate.sh; do not edit."
		"${psql[@]}" -At <<SQL || exit 1
CREATE TEMP TABLE corpus1 (id int, what text, kind text, spec jsonb, val text,
	c1 text, c2 text, c3 text, c4 text);
CREATE TEMP TABLE corpus23 (id int, what text, kind text, spec jsonb, val text,
	c1 text, c2 text, c3 text, c4 text, c5 text);
\copy corpus1 FROM '$root/test/t/data/format1_values.tsv'
\copy corpus23 FROM '$root/test/t/data/format23_values.tsv'
CREATE TEMP TABLE corpus4 (id int, what text, kind text, spec jsonb, val text);
\copy corpus4 FROM '$kit/format4_values.tsv'
CREATE TEMP TABLE corpus5 (id int, what text, kind text, spec jsonb, val text);
\copy corpus5 FROM '$kit/format5_values.tsv'
\i $kit/kit_cases.sql
\i $kit/kit_emit.sql
SQL
	} > "$out/kit.txt" || exit 1
	grep -E '^(value|hashset) ' "$out/kit.txt" | tr ' ' '\t' > "$out/values.tsv"
	grep -E '^hash ' "$out/hashes.txt" | tr ' ' '\t' > "$out/hashes.tsv"
	{
		echo "# malformed.txt: values every reader must refuse (the server refuses each"
		echo "# with SQLSTATE 22P03); made by test/kit/generate.sh from kit.txt's values."
		"${psql[@]}" -At <<SQL || exit 1
CREATE TEMP TABLE kitval (rec text, name text, hex text);
\copy kitval FROM '$out/values.tsv'
CREATE TEMP TABLE kithash (rec text, typ text, elem text, u64 text);
\copy kithash FROM '$out/hashes.tsv'
\i $kit/kit_malformed.sql
SQL
	} > "$out/malformed.txt" || exit 1
	exit 0
fi

# ---- outside: build the hash program, run the cluster, compare ----
work=$(mktemp -d /tmp/sbf-kit.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
result() {
	if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "ok   $2"
	else failed=$((failed + 1)); echo "FAIL $2"; fi
}
finish() {
	echo "kit: $passed passed, $failed failed, 0 skipped"
	[ "$failed" -eq 0 ]
	exit
}

make -s -C "$kit" kit_hashes > "$work/make.log" 2>&1 || { cat "$work/make.log"; result 1 "build test/kit/kit_hashes"; finish; }
"$kit/kit_hashes" > "$work/hashes.txt" || { result 1 "kit_hashes"; finish; }

run_cluster() {
	KIT_OUT=$work bash test/pg_tmp.sh bash "$kit/generate.sh" --inside
}
if [ "$install" = 1 ]; then
	inst() {
		{ make -s -j2 PG_CONFIG="$PG_CONFIG" && make -s install PG_CONFIG="$PG_CONFIG"; } > "$work/install.log" 2>&1 ||
			{ cat "$work/install.log" >&2; return 1; }
		run_cluster
	}
	export -f inst run_cluster
	export work kit
	if [ "$PG_CONFIG" = "$pg15" ]; then
		flock /var/lock/sbf-pg15.lock bash -c inst > "$work/gen.log" 2>&1
	else
		bash -c inst > "$work/gen.log" 2>&1
	fi
else
	run_cluster > "$work/gen.log" 2>&1
fi
rc=$?
[ "$rc" = 0 ] || { tail -n 40 "$work/gen.log"; result 1 "generate the kit from $("$PG_CONFIG" --version)"; finish; }
result 0 "generate the kit from $("$PG_CONFIG" --version) (every malformed value refused with 22P03, the server's hash equals hashes.txt's)"

for f in kit.txt malformed.txt hashes.txt; do
	if [ "$update" = 1 ]; then
		cp "$work/$f" "$kit/$f"
		echo "     wrote test/kit/$f ($(wc -l < "$kit/$f") lines, $(wc -c < "$kit/$f") bytes)"
	elif cmp -s "$work/$f" "$kit/$f"; then
		result 0 "test/kit/$f is what the server writes"
	else
		diff -u "$kit/$f" "$work/$f" | cut -c1-200 | head -n 40
		result 1 "test/kit/$f differs from what the server writes (bash test/kit/generate.sh --update, after checking why)"
	fi
done
finish
