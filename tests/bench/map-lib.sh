# tests/bench/map-lib.sh - helpers of the mapping benchmarks (map-ext4.sh, map-xfs.sh):
# a population of small files and bad blocks picked inside file data. Sourced after lib.sh.

# populate DIR N : N files of 512 B .. 100 KB in DIR/dNNN/sN/fNNN (100 per directory, 10
# subdirectories per top directory), random content, fixed seed. Perl: no fork per file.
populate() {
	perl -e '
		my ($root, $n) = @ARGV;
		srand(1);
		my @sizes = (512, 2048, 4096, 8192, 16384, 40000, 100000);
		my $blob = join("", map { chr(int(rand(256))) } 1 .. 100000);
		mkdir "$root/pop";
		for (my $i = 0; $i < $n; $i++) {
			my $d = sprintf("%s/pop/d%03d", $root, int($i / 1000));
			my $s = sprintf("%s/s%d", $d, int($i / 100) % 10);
			mkdir $d unless -d $d;
			mkdir $s unless -d $s;
			my $sz = $sizes[int(rand(@sizes))];
			open(my $f, ">", sprintf("%s/f%03d", $s, $i % 100)) or die "$!";
			print $f substr($blob, int(rand(100000 - $sz + 1)), $sz);
			close($f);
		}' "$1" "$2"
	sync
}

# pick_blocks MNT N BS OUT : N distinct bad BS-byte blocks inside file data (one random
# block of each of N random files), as device block numbers, one a line, in OUT.
pick_blocks() {
	local mnt=$1 n=$2 bs=$3 out=$4
	find "$mnt/pop" -type f | shuf -n "$n" --random-source=<(yes) >"$BENCH_TMP/picked"
	# filefrag -v -b BS: "   0:        0..       3:      34816..     34819:      4:   last,eof"
	xargs -d '\n' filefrag -v -b"$bs" <"$BENCH_TMP/picked" 2>/dev/null | awk -v seed=7 '
		BEGIN { srand(seed) }
		/^ *0: / {
			line = $0
			sub(/^ *0: */, "", line)
			split(line, c, /:/)
			split(c[2], p, /\.\./)
			len = c[3] + 0
			if (len < 1)
				next
			printf "%d\n", p[1] + int(rand() * len)
		}' | sort -un | head -n "$n" >"$out"
}
