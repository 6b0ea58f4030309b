#!/bin/bash
# install.sh - `meson install` into a DESTDIR installs one patrol config path everywhere: the
# patrol unit's ConditionPathExists and --config, the installed binary's default (patrol --help),
# README, docs/patrol.md, the man page and the example config agree; the installed units pass
# `systemd-analyze verify`; the patrol guide, example config, alert rules and Grafana board land
# where packages keep them (PREFIX/share/doc/mediascan, PREFIX/share/mediascan).
# Needs: BUILD (the build directory), SRC (the source tree). Exit 77 without systemd-analyze.
set -euo pipefail
: "${BUILD:?}" "${SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail()
{
	echo "FAIL: $*"
	fails=$((fails + 1))
}
ok()
{
	echo "ok: $*"
}

dest=$tmp/root
meson install -C "$BUILD" --no-rebuild --quiet --destdir "$dest" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "FAIL: meson install"; exit 1; }
prefix=$(meson introspect "$BUILD" --buildoptions |
	 python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
bin=$(find "$dest" -path '*/sbin/mediascan' -type f | head -n 1)
unit=$(find "$dest" -name mediascan-patrol.service | head -n 1)
[ -n "$bin" ] || { echo "FAIL: no installed sbin/mediascan under $dest"; exit 1; }
[ -n "$unit" ] || { echo "FAIL: no installed mediascan-patrol.service under $dest"; exit 1; }

# 1. The binary's default config path (patrol --help).
want=$("${bin}" patrol --help | sed -n 's/.*--config FILE.*(default \([^)]*\)).*/\1/p')
[ -n "$want" ] || { echo "FAIL: patrol --help names no default config"; exit 1; }
ok "installed binary's default config: $want"

# 2. The patrol unit reads that file.
cond=$(sed -n 's/^ConditionPathExists=//p' "$unit")
[ "$cond" = "$want" ] && ok "unit ConditionPathExists=$cond" ||
	fail "unit ConditionPathExists=$cond, binary default $want"
while read -r cfg; do
	[ "$cfg" = "$want" ] && ok "unit --config $cfg" || fail "unit --config $cfg, binary default $want"
done < <(grep -o -- '--config [^ ]*' "$unit" | cut -d' ' -f2)
[ "$(grep -c -- '--config ' "$unit")" = 2 ] || fail "unit: ExecStartPre and ExecStart should both pass --config"
grep -q "^ExecStart=$prefix/sbin/mediascan patrol" "$unit" ||
	fail "unit ExecStart is not $prefix/sbin/mediascan: $(grep ^ExecStart= "$unit")"

# 3. The docs name the same path and no other mediascan.conf.
man=$(find "$dest" -name mediascan.8 | head -n 1)
docs=("$SRC/README.md" "$dest$prefix/share/doc/mediascan/patrol.md"
      "$dest$prefix/share/doc/mediascan/examples/mediascan.conf.example" "$SRC/man/mediascan.8.scd")
[ -n "$man" ] && docs+=("$man")
for d in "${docs[@]}"; do
	[ -f "$d" ] || { fail "not installed: ${d#"$dest"}"; continue; }
	# roff (the built man page) writes "mediascan.\&conf"
	paths=$(sed 's/\\&//g' "$d" | grep -oP '[A-Za-z0-9_/.-]*/mediascan\.conf(?![.\w])' |
		grep '^/' | sort -u || :)
	if ! grep -qxF "$want" <<<"$paths"; then
		fail "${d#"$dest"} does not name $want"
	fi
	others=$(grep -vxF "$want" <<<"$paths" || :)
	[ -z "$others" ] && ok "${d#"$dest"} names $want only" ||
		fail "${d#"$dest"} names another config path: $others"
done

# 4. Data files where packages keep them.
for f in share/doc/mediascan/patrol.md share/doc/mediascan/examples/mediascan.conf.example \
	 share/mediascan/alerts.yml share/mediascan/grafana-mediascan.json; do
	[ -f "$dest$prefix/$f" ] && ok "installed $prefix/$f" || fail "not installed: $prefix/$f"
done
cmp -s "$SRC/docs/alerts.yml" "$dest$prefix/share/mediascan/alerts.yml" ||
	fail "installed alerts.yml differs from docs/alerts.yml"
# The example config is one patrol --check accepts (its target may be absent here: retried).
"$bin" patrol --check --config "$dest$prefix/share/doc/mediascan/examples/mediascan.conf.example" \
	>/dev/null 2>"$tmp/check.err" && ok "example config passes patrol --check" ||
	fail "example config: $(cat "$tmp/check.err")"

# 5. systemd-analyze verify on the installed units. The binary they name lives in the DESTDIR:
# the copies checked differ from the installed units only in that path. Documentation=
# man:mediascan(8) is looked up in the installed man page (MANPATH).
if command -v systemd-analyze >/dev/null; then
	udir=$(dirname "$unit")
	mkdir "$tmp/units"
	for u in mediascan-patrol.service mediascan@.service mediascan@.timer; do
		[ -f "$udir/$u" ] || { fail "not installed: $u"; continue; }
		sed "s|$prefix/sbin/mediascan|$bin|g" "$udir/$u" >"$tmp/units/$u"
	done
	cp "$tmp/units/mediascan@.service" "$tmp/units/mediascan@srv-data.service"
	cp "$tmp/units/mediascan@.timer" "$tmp/units/mediascan@srv-data.timer"
	if (cd "$tmp/units" && MANPATH=$dest$prefix/share/man: systemd-analyze verify \
	    --man="$([ -n "$man" ] && echo yes || echo no)" ./mediascan-patrol.service \
	    ./mediascan@srv-data.service ./mediascan@srv-data.timer) >"$tmp/verify.log" 2>&1 &&
	   ! grep -q . "$tmp/verify.log"; then
		ok "systemd-analyze verify accepts the installed units (no warning)"
	else
		cat "$tmp/verify.log"
		fail "systemd-analyze verify on the installed units"
	fi
else
	echo "skip: systemd-analyze missing: units not verified"
fi
[ "$fails" = 0 ] || { echo "$fails failed"; exit 1; }
echo "all agree"
