#!/bin/bash
# layering.sh BUILD_DIR - the build refuses an include that crosses a layer upward. For one
# source file of each library, its own compile command (from ninja) is run again with a header
# of a module above it forced in (-include HEADER): it must fail with "HEADER: No such file".
# Each forbidden header is tried in every spelling a source file could use: its plain name
# (fs.h) and its path from each folder above it up to the source root (mapping/fs/fs.h), so
# neither the library's include path nor an implicit include directory (the folder a library
# is built from, the source root) may reach it. The same command with a header of a module
# below must compile (so a failure is the include path's doing, not the method's). Output goes
# to /dev/null; the build tree is not touched.
# Exit 77 (skip) when ninja or the build's compile commands are not there.
set -uo pipefail
build=${1:?usage: layering.sh BUILD_DIR}
ninja=$(command -v ninja || command -v samu) || { echo "skip: no ninja"; exit 77; }
fails=0

# object  allowed-header  forbidden-headers (paths from the source root)...
checks=(
	"kernel/libkio.a.p/kio_io.c.o kio.h integrity/verify.h mapping/target/target.h
		stack/stack.h klog/klog.h mediascan/scan.h history/state.h pass/pass.h report/report.h"
	"integrity/libvfy.a.p/verify.c.o kio_dev.h mapping/target/target.h stack/stack.h
		mediascan/scan.h history/state.h pass/pass.h"
	"klog/libklog.a.p/klog_md.c.o kio.h mapping/fs/fs.h mapping/target/target.h stack/stack.h
		integrity/verify.h mediascan/scan.h pass/pass.h"
	"stack/libstack.a.p/stack.c.o kio.h mapping/fs/fs.h mapping/target/target.h klog/klog.h
		integrity/verify.h mediascan/scan.h pass/pass.h"
	"mapping/libmap.a.p/names_names.c.o kio.h stack/stack.h klog/klog.h integrity/verify.h
		mediascan/scan.h history/state.h pass/pass.h report/report.h"
	"libscan.a.p/mediascan_result.c.o verify.h mapping/target/target.h mapping/fs/fs.h
		stack/stack.h klog/klog.h history/state.h pass/pass.h report/report.h"
	"history/libhistory.a.p/passes.c.o scan.h mapping/target/target.h stack/stack.h pass/pass.h
		report/report.h"
	"pass/libpass.a.p/pass.c.o state.h report/report.h report/html.h run/run.h patrol/patrol.h
		cli/cli.h"
	"report/libreport.a.p/report.c.o pass.h run/run.h patrol/patrol.h patrol/config_file.h
		patrol/metrics.h cli/cli.h cli/report_cmd.h"
	"run/librun.a.p/scan.c.o report.h patrol/patrol.h patrol/config_file.h cli/cli.h
		cli/report_cmd.h"
	"patrol/libpatrol.a.p/patrol.c.o run.h cli/cli.h cli/report_cmd.h cli/status_cmd.h
		cli/map_cmd.h"
)

# Every spelling of header path $1: a/b/c.h gives c.h, b/c.h and a/b/c.h.
spellings()
{
	local p=$1
	while :; do
		printf '%s\n' "$p"
		[[ $p == */* ]] || break
		p=${p#*/}
	done | tac
}

# Print the compile command of object $1, with -include $2 and output to /dev/null.
cmd_for()
{
	local c
	c=$("$ninja" -C "$build" -t commands "$1" 2>/dev/null | grep -F -- "-o $1 " | tail -1)
	[ -n "$c" ] || return 1
	c=${c//-o $1 /-o /dev/null }
	c=${c//-MD -MQ $1 -MF $1.d/}
	printf '%s\n' "${c/ -c / -include $2 -c }"
}

for line in "${checks[@]}"; do
	read -r -d '' obj ok bad <<<"$line"
	bad=$(printf '%s\n' $bad)
	if ! c=$(cmd_for "$obj" "$ok"); then
		echo "skip: no compile command for $obj in $build"
		exit 77
	fi
	if ! (cd "$build" && eval "$c") >/dev/null 2>&1; then
		echo "FAIL: $obj does not compile with its allowed header $ok"
		fails=$((fails + 1))
		continue
	fi
	for path in $bad; do
		for h in $(spellings "$path"); do
			c=$(cmd_for "$obj" "$h")
			out=$(cd "$build" && eval "$c" 2>&1)
			if [ $? -eq 0 ] || ! grep -q "$h: No such file" <<<"$out"; then
				echo "FAIL: $obj compiles with $h (a module above it) on its include path"
				fails=$((fails + 1))
			else
				echo "ok: ${obj%%.a.p/*} refuses $h"
			fi
		done
	done
done
# A quoted include is looked up next to the including file first, whatever the include path:
# "../pass/pass.h" would cross any layer, so no source file may climb out of its folder.
src=$(cd "$(dirname "$0")/../.." && pwd)
for d in kernel integrity klog stack mapping mediascan history pass report run patrol cli; do
	if grep -rn --include='*.[ch]' '#include "\.\./' "$src/$d"; then
		echo "FAIL: an include climbs out of $d/"
		fails=$((fails + 1))
	fi
done

# A module's internal header (NAME_int.h: pass_int.h, state_int.h, ...) is shared by the files
# of its own module (top folder) only; the module's interface is its other headers.
while read -r h; do
	dir=${h%%/*}
	out=$(grep -rln --include='*.[ch]' "#include \"$(basename "$h")\"" "$src" |
		grep -v "^$src/build" | grep -v "^$src/$dir/" | tr '\n' ' ' || :)
	if [ -n "$out" ]; then
		echo "FAIL: $h is included outside $dir/: $out"
		fails=$((fails + 1))
	fi
done < <(cd "$src" && find */ -name '*_int.h' -not -path 'build*' -not -path 'tests/*')

[ "$fails" -eq 0 ] || { echo "$fails layering checks failed"; exit 1; }
echo "every library refuses the headers of the modules above it"
