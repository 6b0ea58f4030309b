#!/bin/bash
# queries.sh - the Grafana dashboard (docs/grafana-mediascan.json) and the alert rules
# (docs/alerts.yml) query only metrics that mediascan writes, and select only labels it writes
# or the scrape adds; every dashboard query is valid PromQL (promtool); every metric mediascan
# writes is on the dashboard and named in docs/patrol.md and the man page. The written metrics
# are taken from the real program: a patrol runs for a moment with a target that cannot be
# opened and its textfile's "# TYPE" lines are read.
# Exit 77 (skip) without jq or promtool (installed by scripts/deps).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../..
dash=$src/docs/grafana-mediascan.json
alerts=$src/docs/alerts.yml
MEDIASCAN=${MEDIASCAN:-$src/build/mediascan}
command -v jq >/dev/null || { echo "skip: jq is not installed"; exit 77; }
command -v promtool >/dev/null || { echo "skip: promtool is not installed"; exit 77; }
[ -x "$MEDIASCAN" ] || { echo "FAIL: no mediascan binary at $MEDIASCAN"; exit 1; }

# node_exporter's own metrics about the textfile collector, which the rules may also query.
node_metrics=(node_textfile_mtime_seconds node_textfile_scrape_error)
# Labels the scrape adds (instance, job) and node_textfile_mtime_seconds carries (file).
scrape_labels=(instance job file)

tmp=$(mktemp -d)
patrol=
cleanup()
{
	[ -z "$patrol" ] || kill -TERM "$patrol" 2>/dev/null || :
	[ -z "$patrol" ] || wait "$patrol" 2>/dev/null || :
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail()
{
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# 1. What mediascan writes: patrol's textfile.
cat >"$tmp/mediascan.conf" <<EOC
[global]
state_dir = $tmp/state
metrics_file = $tmp/mediascan.prom

[target absent]
path = $tmp/not-there
EOC
"$MEDIASCAN" patrol --config "$tmp/mediascan.conf" 2>"$tmp/patrol.err" &
patrol=$!
for _ in $(seq 150); do
	[ -s "$tmp/mediascan.prom" ] && break
	kill -0 "$patrol" 2>/dev/null || break
	sleep 0.2
done
if [ ! -s "$tmp/mediascan.prom" ]; then
	cat "$tmp/patrol.err"
	echo "FAIL: patrol wrote no metrics"
	exit 1
fi
kill -TERM "$patrol"
wait "$patrol" || :
patrol=
awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$tmp/mediascan.prom" | sort -u >"$tmp/written"
grep -qx mediascan_errors_open "$tmp/written" || fail "no mediascan_errors_open in the textfile"
echo "mediascan writes $(wc -l <"$tmp/written") metrics"
printf "%s\n" "${node_metrics[@]}" | cat - "$tmp/written" | sort -u >"$tmp/metrics"
# Labels: those of the file's samples, and those patrol/metrics.c prints (the file above has
# samples only of the metrics that need no scan), and the scrape's.
{
	grep -v '^#' "$tmp/mediascan.prom" | grep -oE '[{,][a-z_]+="' | tr -d '{,="'
	grep -oE '[{,][a-z_]+=\\"' "$src/patrol/metrics.c" | tr -d '{,=\\"'
	printf "%s\n" "${scrape_labels[@]}"
} | sort -u >"$tmp/labels"

# 2. Every query: NAME<TAB>EXPR, one line each.
jq -r '[paths(objects) as $p | getpath($p) | select(has("expr")) | .expr] | to_entries[]
	| "dashboard query \(.key + 1)\t\(.value | gsub("\n"; " "))"' "$dash" >"$tmp/exprs"
[ -s "$tmp/exprs" ] || fail "no query in $dash"
# Template variables: label_values(SELECTOR, LABEL) only.
jq -r '.templating.list[] | select(.type == "query")
	| "\(.name)\t\(.query | if type == "object" then .query else . end)"' "$dash" |
while IFS=$'\t' read -r name q; do
	if [[ $q =~ ^label_values\((.*),[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)\)$ ]]; then
		printf 'variable %s\t%s\n' "$name" "${BASH_REMATCH[1]}" >>"$tmp/exprs"
		printf 'variable %s\t%s\n' "$name" "${BASH_REMATCH[2]}" >>"$tmp/varlabels"
	else
		echo "FAIL: variable $name: not label_values(SELECTOR, LABEL): $q" >>"$tmp/varlabels"
	fi
done
[ ! -e "$tmp/varlabels" ] || while IFS=$'\t' read -r name l; do
	case $name in
	FAIL:*) fail "${name#FAIL: }" ;;
	*) grep -qx "$l" "$tmp/labels" || fail "$name: label $l is not one mediascan writes" ;;
	esac
done <"$tmp/varlabels"
# Alert rules: "expr: X" on one line, or "expr: |" and the lines indented under it.
awk '
	function flush() { if (e != "") printf "alert rule %s\t%s\n", name, e; e = ""; blk = 0 }
	blk && (match($0, /^ */) && RLENGTH > ind || $0 ~ /^ *$/) { e = e " " $0; next }
	blk { flush() }
	/^ *- alert: / { flush(); name = $3 }
	/^ *expr: *[|>][-+]? *$/ { blk = 1; match($0, /^ */); ind = RLENGTH; next }
	/^ *expr: / { flush(); sub(/^ *expr: */, ""); print "alert rule " name "\t" $0 }
	END { flush() }' "$alerts" >>"$tmp/exprs"
grep -q '^alert rule' "$tmp/exprs" || fail "no alert rule expr in $alerts"

# 3. Dashboard queries are PromQL (Grafana's variables replaced as it would expand them).
{
	echo "groups:"
	echo "  - name: dashboard"
	echo "    rules:"
	n=0
	grep -v '^alert rule' "$tmp/exprs" | cut -f2 | while IFS= read -r e; do
		n=$((n + 1))
		e=$(sed -E 's/\$__[a-z_]+/5m/g; s/\$\{?[A-Za-z_]+\}?/.*/g' <<<"$e")
		printf "      - record: dashboard:query_%d\n        expr: '%s'\n" "$n" "${e//\'/\'\'}"
	done
} >"$tmp/dashboard-rules.yml"
out=$(promtool check rules "$tmp/dashboard-rules.yml" 2>&1) ||
	fail "dashboard queries are not valid PromQL: $out"

# 4. Names: strings, ranges, variables and label matchers out; what is left that is not a
# keyword, a number or a function call is a metric name.
while IFS=$'\t' read -r where e; do
	bare=$(sed -E -e 's/"([^"\\]|\\.)*"//g' -e "s/'([^'\\\\]|\\\\.)*'//g" -e 's/`[^`]*`//g' \
		-e 's/\[[^]]*\]//g' -e 's/\$\{[^}]*\}//g; s/\$[A-Za-z_][A-Za-z0-9_]*//g' <<<"$e")
	for l in $( { grep -oE '\{[^}]*\}' <<<"$bare" |
			grep -oE '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*(=~|!~|!=|=)' || :
		      grep -oE '\b(by|without|on|ignoring|group_left|group_right)[[:space:]]*\([^)]*\)' \
			<<<"$bare" | sed -E 's/^[a-z_]+[[:space:]]*\(//; s/\)$//' | tr ',' '\n' || :
		    } | grep -oE '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*' | sed -E 's/[[:space:]]+//g' | sort -u); do
		grep -qx "$l" "$tmp/labels" || fail "$where: label $l is not one mediascan writes: $e"
	done
	bare=$(sed -E -e 's/\{[^}]*\}//g' \
		-e 's/\b(by|without|on|ignoring|group_left|group_right)[[:space:]]*\([^)]*\)//g' <<<"$bare")
	names=$(grep -oE '[A-Za-z_:][A-Za-z0-9_:]*[[:space:]]*\(?|[0-9][A-Za-z0-9_.]*' <<<"$bare" |
		grep -vE '\($|^[0-9]' | sed -E 's/[[:space:]]+$//' |
		grep -viE '^(and|or|unless|bool|offset|by|without|on|ignoring|group_left|group_right|inf|nan)$' |
		sort -u || :)
	[ -n "$names" ] || fail "$where: no metric found in: $e"
	for m in $names; do
		echo "$m" >>"$tmp/used"
		grep -qx "$m" "$tmp/metrics" || fail "$where: $m is not a metric mediascan writes: $e"
	done
done <"$tmp/exprs"
echo "checked $(wc -l <"$tmp/exprs") queries, $(sort -u "$tmp/used" | wc -l) metrics"

# 5. The dashboard shows every metric mediascan writes.
for m in $(cat "$tmp/written"); do
	grep -v '^alert rule' "$tmp/exprs" | grep -qE "(^|[^A-Za-z0-9_:])$m([^A-Za-z0-9_:]|$)" ||
		fail "the dashboard does not show $m"
done

# 6. The dashboard imports: a Prometheus data source variable every query uses, host and target.
jq -e '(.schemaVersion | type == "number") and (.panels | length > 0)
	and ([.templating.list[] | select(.type == "datasource" and .query == "prometheus")
		| .name] == ["datasource"])
	and ([.templating.list[].name] | contains(["instance", "target"]))
	and ([.panels[] | select(.type != "row") | .datasource.uid] | unique == ["${datasource}"])
	and ([.panels[].targets[]?.datasource.uid] | unique == ["${datasource}"])
	and ([.panels[].id] | length == (unique | length))' "$dash" >/dev/null ||
	fail "$dash: no schemaVersion, panels, the datasource/instance/target variables or unique ids"

# 7. The docs name every metric mediascan writes.
for doc in docs/patrol.md man/mediascan.8.scd; do
	for m in $(cat "$tmp/written"); do
		grep -qE "(^|[^A-Za-z0-9_:])$m([^A-Za-z0-9_:]|\$)" "$src/$doc" || fail "$doc does not name $m"
	done
done

[ "$fails" = 0 ] || { echo "$fails failures"; exit 1; }
echo "ok"
