#!/bin/bash
# callgraph.sh BUILD_DIR [LIBRARY_DIR...] - no call circle between the files of one module. The
# file-level call graph of each library is read from its object files: file A calls file B when
# A's object needs (nm: U) a symbol that B's object defines (T, D, B, R: functions and the ops
# tables that carry them). Any cycle in that graph fails the test and is printed, e.g.
# "executor.c -> recheck.c -> executor.c". Static functions stay inside their file and do not
# count. LIBRARY_DIR names the object folder of a library under BUILD_DIR (default: the modules
# that keep their files one-directional).
# Exit 77 (skip) when nm or the objects are not there.
set -uo pipefail
build=${1:?usage: callgraph.sh BUILD_DIR [LIBRARY_DIR...]}
shift
nm=$(command -v nm) || { echo "skip: no nm"; exit 77; }
libs=("$@")
[ ${#libs[@]} -gt 0 ] || libs=(kernel/libkio.a.p stack/libstack.a.p klog/libklog.a.p libscan.a.p
	pass/libpass.a.p report/libreport.a.p run/librun.a.p patrol/libpatrol.a.p cli/libcli.a.p)
fails=0

for lib in "${libs[@]}"; do
	dir=$build/$lib
	objs=("$dir"/*.o)
	if [ ! -e "${objs[0]}" ]; then
		echo "skip: no objects in $dir"
		exit 77
	fi
	# "file kind symbol" for every defined (D) or needed (U) global symbol of each object.
	out=$(for o in "${objs[@]}"; do
		f=$(basename "$o" .o)
		f=${f#mediascan_}
		"$nm" "$o" | awk -v f="$f" '
			$1 == "U" { print f, "U", $2; next }
			NF == 3 && $2 ~ /^[TDBRC]$/ { print f, "D", $3 }'
	done | awk -v lib="$lib" '
		$2 == "D" { def[$3] = $1; next }
		{ use[++n] = $1 " " $3 }
		END {
			for (i = 1; i <= n; i++) {
				split(use[i], p, " ")
				if ((p[2] in def) && def[p[2]] != p[1])
					edge[p[1] " " def[p[2]]] = 1
			}
			for (e in edge) {
				split(e, p, " ")
				node[p[1]] = 1; node[p[2]] = 1
				adj[p[1]] = adj[p[1]] " " p[2]
			}
			# A cycle through each edge a -> b: b reaches a (breadth first, for the path).
			for (e in edge) {
				split(e, p, " ")
				a = p[1]; b = p[2]
				delete prev; delete seen
				q[1] = b; qh = 1; qt = 1; seen[b] = 1; found = 0
				while (qh <= qt && !found) {
					u = q[qh++]
					m = split(adj[u], nx, " ")
					for (k = 1; k <= m; k++) {
						v = nx[k]
						if (v in seen)
							continue
						seen[v] = 1; prev[v] = u; q[++qt] = v
						if (v == a) { found = 1; break }
					}
				}
				if (b == a || !found)
					continue
				path = a
				for (v = a; v != b; v = prev[v])
					path = prev[v] " -> " path
				cyc[a " -> " path] = 1
			}
			for (c in cyc)
				print "FAIL: " lib ": call circle " c
		}' | sort)
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
		fails=$((fails + $(wc -l <<<"$out")))
	else
		echo "ok: $lib: no call circle between its files"
	fi
done
[ $fails -eq 0 ] || exit 1
exit 0
