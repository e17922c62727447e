#!/usr/bin/perl
# damage.pl - damage real recordings and check how usertrace reads them
# (doc/fuzzing.md).
#
#   fuzz/damage.pl [options] USERTRACE DIR...
#     --seed N      first seed (default 1); damage i uses seed N + i
#     --count K     damages per directory (default 20)
#     --kinds LIST  comma-separated subset of: bytes, header, trunc,
#                   zero, swap, bit (default all, in turn)
#     --tap         a TAP line per damage (make check); otherwise only
#                   the failures and a summary
#     --keep DIR    copy each failing damaged directory there
#
# Each DIR is a good recording (usertrace dump reads it with status 0).
# A damage picks one of its .dat files and, with a generator of its own
# seeded by the seed (the same damages on every machine), writes random
# bytes at a random place, cuts the file, overwrites its header page,
# zeroes a page, swaps two pages, or flips a bit.  Then dump, replay and
# report read the copy, and the check is:
#   - no crash, no sanitizer report;
#   - status 1 and a message naming the file and the damage
#     ("damaged" or "truncated"), from all three alike; status 0 only if
#     dump prints exactly what it printed for the good file (bytes no
#     reader looks at, such as a page's free end);
#   - every event of the good file's dump is in the damaged one's, but
#     for those in a hole: between the event before a "lost ?" line and
#     that line (the end of the thread, if it comes last), or in a thread
#     of a file left with no events, said;
#   - no event that the good file does not have.
use strict;
use warnings;
use File::Basename;
use File::Copy;
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use Getopt::Long;

my ($seed0, $count, $kinds, $tap, $keep) = (1, 20, 'bytes,header,trunc,zero,swap,bit', 0, '');
GetOptions('seed=i' => \$seed0, 'count=i' => \$count, 'kinds=s' => \$kinds,
	   'tap' => \$tap, 'keep=s' => \$keep) or die "usage: $0 [options] USERTRACE DIR...\n";
my $ut = shift @ARGV or die "usage: $0 [options] USERTRACE DIR...\n";
my @dirs = @ARGV or die "no recording given\n";
my @kinds = split /,/, $kinds;
make_path($keep) if $keep;
my $W = tempdir('usertrace-damage.XXXXXX', TMPDIR => 1, CLEANUP => 1);
# stopped: the scratch directory goes too
$SIG{INT} = $SIG{TERM} = $SIG{HUP} = sub { exit 1 };
my ($n, $failed, $same) = (0, 0, 0);
$ENV{USERTRACE_DEBUG_DIR} = '';

# Park and Miller's generator: the same numbers on every machine and perl
my $rng;
sub rnd {
	my ($max) = @_;
	$rng = ($rng * 48271) % 2147483647;
	return $max ? $rng % $max : 0;
}
sub seed { $rng = 1 + ($_[0] % 2147483646); rnd(0) for 1 .. 8; }

sub run {
	my ($out, $err, @cmd) = @_;
	my $pid = fork() // die "fork: $!";
	if (!$pid) {
		open(STDIN, '<', '/dev/null');
		open(STDOUT, '>', $out) or exit 127;
		open(STDERR, '>', $err) or exit 127;
		exec(@cmd) or exit 127;
	}
	waitpid($pid, 0);
	return $? & 127 ? 128 + ($? & 127) : $? >> 8;
}

sub slurp { local $/; open(my $f, '<', $_[0]) or return ''; my $s = <$f>; close($f); $s // '' }

sub result {
	my ($good, $what, $why, $dir) = @_;
	$n++;
	if ($good) {
		print "ok $n - damage: $what\n" if $tap;
		return;
	}
	$failed++;
	print "not ok $n - damage: $what: $why\n";
	if ($keep && $dir) {
		my $to = "$keep/damage-$n";
		system('cp', '-r', $dir, $to);
		print "# kept in $to\n";
	}
}

# one dump line: its thread, and the key it is compared by (the fields a
# hole cannot change: an EXIT's function and an ENTRY's caller come from
# the open calls, which a hole leaves unknown)
sub key {
	my ($l) = @_;
	my @f = split / /, $l, 7;
	return undef if @f < 5 || $f[0] eq '#';
	my ($tid, $type) = ($f[0], $f[3]);
	return [$tid, $type, $f[2], "@f[0..4]"] if $type eq 'exit' || $type eq 'lost' || $type eq 'depth';
	if ($type eq 'entry') {
		my ($fn) = split / /, $f[5] // '';
		return [$tid, $type, $f[2], "@f[0..4] $fn"];
	}
	return [$tid, $type, $f[2], $l];
}

sub events {
	my ($text) = @_;
	my @ev;
	for my $l (split /\n/, $text) {
		my $k = key($l);
		push @ev, $k if $k;
	}
	return @ev;
}

# the damages: each returns a description, or undef if the file cannot take it
sub damage {
	my ($path, $kind) = @_;
	my $size = -s $path;
	open(my $f, '+<', $path) or die "$path: $!";
	binmode($f);
	my $rand = sub { join '', map { chr(rnd(256)) } 1 .. $_[0] };
	my $desc;
	if ($kind eq 'bytes') {
		my ($len, $off) = (1 + rnd(64), rnd($size));
		seek($f, $off, 0);
		print $f $rand->($len);
		$desc = "$len random bytes at $off";
	} elsif ($kind eq 'header') {
		my ($len, $off) = rnd(4) ? (1 + rnd(64), rnd(4096)) : (4096, 0);
		seek($f, $off, 0);
		print $f $rand->($len);
		$desc = "$len random bytes at $off (header page)";
	} elsif ($kind eq 'trunc') {
		my $to = rnd($size);
		truncate($f, $to);
		$desc = "cut to $to bytes";
	} elsif ($kind eq 'zero') {
		my $pages = int($size / 4096) - 1;
		return undef if $pages < 1;
		my $off = 4096 * (1 + rnd($pages));
		seek($f, $off, 0);
		print $f "\0" x 4096;
		$desc = "bytes $off-" . ($off + 4095) . " zeroed";
	} elsif ($kind eq 'swap') {
		my $pages = int($size / 4096) - 1;
		return undef if $pages < 2;
		my $a = 1 + rnd($pages);
		my $b = 1 + rnd($pages - 1);
		$b++ if $b >= $a;
		my ($x, $y);
		seek($f, 4096 * $a, 0); read($f, $x, 4096);
		seek($f, 4096 * $b, 0); read($f, $y, 4096);
		seek($f, 4096 * $a, 0); print $f $y;
		seek($f, 4096 * $b, 0); print $f $x;
		$desc = "4096-byte blocks at " . 4096 * $a . " and " . 4096 * $b . " swapped";
	} elsif ($kind eq 'bit') {
		my ($off, $bit) = (rnd($size), rnd(8));
		my $c;
		seek($f, $off, 0); read($f, $c, 1);
		seek($f, $off, 0); print $f chr(ord($c) ^ (1 << $bit));
		$desc = "bit $bit of byte $off flipped";
	} else {
		die "unknown damage '$kind'\n";
	}
	close($f);
	return $desc;
}

my $seq = 0;
for my $dir (@dirs) {
	my $name = basename($dir);
	my @dats = sort glob("$dir/*.dat");
	die "$dir: no .dat file\n" unless @dats;
	my $ref = "$W/ref.out";
	my $st = run($ref, "$W/ref.err", $ut, 'dump', '-a', '-i', $dir);
	die "$dir: dump of the good recording: status $st\n" . slurp("$W/ref.err") if $st;
	my $good = slurp($ref);
	my @gev = grep { $_->[1] ne 'lost' && $_->[1] ne 'depth' } events($good);

	for my $i (0 .. $count - 1) {
		my $seed = $seed0 + $i;
		my $kind = $kinds[$i % @kinds];
		seed($seed * 7919 + $seq);
		my $copy = "$W/d";
		remove_tree($copy);
		system('cp', '-r', $dir, $copy) == 0 or die "cp $dir\n";
		my $dat = $dats[rnd(scalar @dats)];
		my $file = basename($dat);
		my $desc = damage("$copy/$file", $kind);
		my $what = "$name seed $seed: $file: " . ($desc // "$kind (too short)");
		next unless defined $desc;
		if (system('cmp', '-s', $dat, "$copy/$file") == 0) {
			$same++;
			next;
		}
		my %st;
		$st{dump} = run("$W/dump.out", "$W/dump.err", $ut, 'dump', '-a', '-i', $copy);
		$st{replay} = run("$W/replay.out", "$W/replay.err", $ut, 'replay', '-i', $copy);
		$st{report} = run("$W/report.out", "$W/report.err", $ut, 'report', '-i', $copy);
		my $err = slurp("$W/dump.err");
		my $out = slurp("$W/dump.out");
		my $all = join '', map { slurp("$W/$_.err") } qw(dump replay report);
		my @bad;
		for my $c (qw(dump replay report)) {
			push @bad, "$c crashed (status $st{$c})" if $st{$c} >= 128;
			push @bad, "$c: status $st{$c}" if $st{$c} != 0 && $st{$c} != 1;
		}
		push @bad, 'a sanitizer report' if $all =~ /AddressSanitizer|runtime error:|LeakSanitizer/;
		if (!@bad) {
			if ($st{dump} == 0 || $st{replay} == 0 || $st{report} == 0) {
				push @bad, "status $st{dump}/$st{replay}/$st{report} (dump/replay/report)"
					if $st{dump} + $st{replay} + $st{report};
				push @bad, 'status 0, but dump printed another trace' if $out ne $good;
			} elsif ($err !~ /\Q$file\E: [^\n]*(damaged|truncated)/) {
				push @bad, 'status 1, but no message names the file and its damage';
			}
		}
		if (!@bad && $st{dump} == 1) {
			# the events of the good file: all there but in the holes, and no others
			my @dev = events($out);
			my (%have, %holes, %last, %seen_tid);
			for my $e (@dev) {
				my ($tid, $type, $ts) = @$e;
				$seen_tid{$tid} = 1;
				if ($type eq 'lost') {
					push @{$holes{$tid}}, [$last{$tid} // 0, $ts, 0];
					next;
				}
				next if $type eq 'depth';
				$have{$e->[3]}++;
				$last{$tid} = $ts;
			}
			# a hole that ends the thread reaches to its end
			for my $tid (keys %holes) {
				my $h = $holes{$tid}[-1];
				$h->[2] = 1 if !defined $last{$tid} || $last{$tid} <= $h->[1] ||
					       !grep { $_->[0] eq $tid && $_->[1] ne 'lost' && $_->[2] > $h->[1] } @dev;
			}
			my ($missing, $outside, $extra) = (0, 0, 0);
			my $example = '';
			for my $e (@gev) {
				if ($have{$e->[3]}) {
					$have{$e->[3]}--;
					next;
				}
				$missing++;
				my ($tid, $ts) = ($e->[0], $e->[2]);
				next if !$seen_tid{$tid} && $err =~ /\Q$file\E: /;
				next if grep { $_->[0] <= $ts && ($_->[2] || $ts <= $_->[1]) } @{$holes{$tid} // []};
				$outside++;
				$example ||= "missing: $e->[3]";
			}
			for my $k (keys %have) {
				next unless $have{$k} > 0;
				$extra += $have{$k};
				$example ||= "not in the good trace: $k";
			}
			push @bad, "$outside of $missing missing events outside the holes" if $outside;
			push @bad, "$extra events the good file does not have" if $extra;
			push @bad, $example if $example;
		}
		my $msg = join '; ', @bad;
		if (@bad) {
			$msg .= "\n# " . join("\n# ", grep { length } split /\n/, $err);
		}
		result(!@bad, $what . ($st{dump} ? '' : ' (nothing read changed)'), $msg, $copy);
	}
	$seq++;
}
print "# damage: $n damages, $failed failed, $same left the file as it was\n";
exit($failed ? 1 : 0);
