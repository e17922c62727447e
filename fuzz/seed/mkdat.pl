#!/usr/bin/perl
# mkdat.pl - synthetic seeds of the data target: every record type of
# include/usertrace/record.h, lost and overwritten pages, time extends,
# a truncated file, both clocks, written per usertrace-data(5).
#   perl fuzz/seed/mkdat.pl fuzz/corpus/data
use strict;
use warnings;
no warnings 'portable';

my $out = shift // 'fuzz/corpus/data';
my $PAGE = 4096;

# records: [type, delta, payload bytes]
sub addr48 { my $v = shift; return pack('Vv', $v & 0xffffffff, $v >> 32); }
sub rec {
	my ($type, $delta, $payload) = @_;
	return pack('V', $type | ($delta << 4)) . ($payload // '');
}
sub entry        { rec(1, $_[0], addr48($_[1])) }
sub exit_        { rec(2, $_[0]) }
sub func         { rec(3, $_[0], addr48($_[1]) . addr48($_[2])) }
sub entry_parent { rec(4, $_[0], addr48($_[1]) . addr48($_[2])) }
sub depth        { rec(5, 0, pack('V', $_[0])) }
sub cpu          { rec(6, 0, pack('V', $_[0])) }
sub stack        { my $d = shift; rec(7, $d, pack('v', scalar @_) . join('', map { addr48($_) } @_)) }
sub data         { rec(8, $_[0], pack('v', length $_[1]) . $_[1]) }
sub ret          { rec(9, $_[0], addr48($_[1]) . pack('v', $_[2]) . addr48($_[3])) }
sub trace        { my $d = shift; rec(10, $d, pack('v', scalar @_) . join('', map { addr48($_) } @_)) }
sub extend       { my $d = shift; rec(15, $d & 0xfffffff, pack('V', $d >> 28)) }
# an event entry: u16 id, u8 flags, u8 preempt count, s32 pid, then the fields
sub event        { my ($d, $id, $pid, $fields) = @_;
		   my $e = pack('vCCl', $id, 0, 0, $pid) . $fields;
		   rec(11, $d, pack('v', length $e) . $e) }
# a record with a raw length, for entries shorter than the common fields
sub event_raw    { rec(11, $_[0], pack('v', length $_[1]) . $_[1]) }

# a data page: seq, ts, records, cpu, lost; entries counts the event records
sub page {
	my ($seq, $ts, $cpu, $lost, @recs) = @_;
	my $body = join('', @recs);
	my $entries = 0;
	for my $r (@recs) {
		my $t = unpack('V', $r) & 15;
		$entries++ if $t != 15 && $t != 7;
	}
	my $p = pack('QQVVVV', $seq, $ts, length $body, $entries, $cpu, $lost) . $body;
	return $p . ("\0" x ($PAGE - length $p));
}

sub header {
	my (%h) = @_;
	my $p = 'UTRBUF' . "\0\1" . pack('VVVVll', 1, $PAGE, $h{nr_pages} // 16, $h{mode} // 0,
					   $h{pid}, $h{tid});
	$p .= pack('a16', $h{comm} // 'syn');
	$p .= pack('QQQQVVQQ', $h{image} // 1, $h{head} // 0, $h{lost} // 0, $h{overrun} // 0,
		   2, 0, $h{tail} // 0, 0);
	$p .= "\0" x (2048 - length $p);
	# version 2: the extension at offset 2048 (compression 0: the pages as they are)
	$p .= 'UTDATX' . "\0\2" . pack('VlQQVV', 0, 0, $h{nr} // 0, $h{entries} // 0, 1, 0)
		if $h{ext};
	return $p . ("\0" x ($PAGE - length $p));
}

sub info {
	my (%i) = @_;
	my $s = "# usertrace data, see usertrace-data(5)\nversion=" . ($i{version} // 1) . "\n";
	$s .= "tracer=$i{tracer}\nclock=$i{clock}\n";
	$s .= "tsc0=1000000\nmono0=5000000000\ntsc1=4000000\nmono1=5001000000\n"
		if $i{clock} eq 'tsc';
	$s .= "nr_cpus=4\nbuffer_size=65536\nbuffer_mode=consumer\nexit_status=0\ncmdline=./syn\n";
	return $s;
}

sub pack_files {
	my ($name, @files) = @_;
	open(my $f, '>', "$out/$name") or die "$out/$name: $!";
	binmode $f;
	while (@files) {
		my ($fn, $bytes) = splice(@files, 0, 2);
		print $f "=== $fn\n$bytes\n";
	}
	close $f;
}

my $maps = "400000-401000 r-xp 00000000 08:01 1 /syn/prog\n" .
	   "7f0000000000-7f0000010000 r-xp 00000000 08:01 2 /syn/libfoo.so\n";
my $sym = "# usertrace sym 1\n# path /syn/prog\n# type 2\n# load 400000 0 1000 1000 5\n" .
	  "400100 20 main\n400200 40 parse\n400300 10 leaf\n400400 30 foo::bar()\t_ZN3foo3barEv\n# end 4\n";
# fnv1a of "/syn/prog", as reader/symtab.c names the symbol files
my $h;
{
	use bigint;
	$h = 0xcbf29ce484222325;
	for my $c (split //, '/syn/prog') {
		$h ^= ord $c;
		$h = ($h * 0x100000001b3) % (1 << 64);
	}
}
my $symname = substr('0' x 16 . $h->as_hex() =~ s/^0x//r, -16);

# thread 1: graph records of every kind over three pages, lost records
my $t1 = header(pid => 100, tid => 100, comm => 'syn', head => 2, lost => 9, nr_pages => 4) .
	page(0, 1000, 0, 0,
	     depth(0), entry_parent(10, 0x400100, 0x400050), entry(5, 0x400200), entry(3, 0x400300),
	     exit_(2), data(1, "hello marker\n"), trace(1, 0x400300, 0x400200, 0x400100),
	     ret(4, 0x400400, 2, 3), cpu(1), exit_(7), extend(1 << 30), entry(1, 0x400300),
	     exit_(1)) .
	page(1, 2000000000, 1, 5,
	     depth(1), entry(1, 0x7f0000000100), exit_(2), exit_(3), data(1, "two\0parts"),
	     trace(0), entry(1, 0x400999)) .
	page(2, 2000001000, 3, 0, depth(2), exit_(10), exit_(10), exit_(10));
# thread 2, a fork child: STACK of inherited frames, then returns
my $t2 = header(pid => 101, tid => 101, comm => "ch\tild\x7f", image => 2) .
	page(0, 1500, 2, 0, depth(0), stack(0, 0x400100, 0x400200), entry(2, 0x400300), exit_(1),
	     exit_(1), exit_(1), exit_(1));
# thread 3: the function tracer's records
my $t3 = header(pid => 100, tid => 102, comm => 'worker', overrun => 4, mode => 1) .
	page(7, 1200, 1, 0, func(1, 0x400200, 0x400105), func(2, 0x400300, 0x400210),
	     func(0xfffffff, 0x400400, 0)) ;

pack_files('syn-graph-mono', info => info(tracer => 'function_graph', clock => 'mono'),
	   '100.100.1.dat' => $t1, '101.101.2.dat' => $t2, 'maps.100.1.0' => $maps,
	   'maps.101.2.0' => $maps, "sym/$symname.sym" => $sym, 'sym/index' => "$symname /syn/prog\n");
pack_files('syn-graph-tsc', info => info(tracer => 'function_graph', clock => 'tsc'),
	   '100.100.1.dat' => $t1, '100.102.1.dat' => $t3, 'maps.100.1.0' => $maps,
	   "sym/$symname.sym" => $sym);
pack_files('syn-function', info => info(tracer => 'function', clock => 'mono'),
	   '100.102.1.dat' => $t3, 'maps.100.1.0' => $maps, "sym/$symname.sym" => $sym);
# a truncated file (a partial last page) and a header only
pack_files('syn-truncated', info => info(tracer => 'nop', clock => 'mono'),
	   '100.100.1.dat' => substr($t1, 0, 3 * $PAGE + 100),
	   '100.103.1.dat' => header(pid => 100, tid => 103, lost => 3));
# @args: choices of the harness
pack_files('syn-args', '@args' => "t=function_graph t=function O=funcgraph-proc O=sym-offset " .
	   "clock=counter tid=100 tid=101 s=self stat",
	   info => info(tracer => 'function_graph', clock => 'tsc'),
	   '100.100.1.dat' => $t1, '101.101.2.dat' => $t2, 'maps.100.1.0' => $maps,
	   "sym/$symname.sym" => $sym);
# version 2: pages stored by the harness in zstd chunks of 1, 64 and 2 pages
# (fuzz_data.c, "@zstd"), and a file with the extension but no compression
pack_files('syn-zstd', '@zstd' => "100.100.1.dat:1 101.101.2.dat 100.102.1.dat:2",
	   info => info(tracer => 'function_graph', clock => 'tsc', version => 2),
	   '100.100.1.dat' => $t1, '101.101.2.dat' => $t2, '100.102.1.dat' => $t3,
	   'maps.100.1.0' => $maps, "sym/$symname.sym" => $sym);
# events: a good one and one without fields; then one shorter than its
# common fields (corrupt), and one whose length passes the page's end
my $te1 = header(pid => 100, tid => 104, comm => 'ev') .
	page(0, 1300, 0, 0, depth(0), event(1, 1000, 104, pack('l', 7) . "path\0"),
	     event(2, 5, 104, ''), entry(1, 0x400100), event(1, 1001, 104, pack('Q', 9)), exit_(1)) .
	page(1, 1400, 0, 0, depth(0), event(1, 1000, 104, pack('l', 8)), event_raw(1, 'abc'));
my $te2 = header(pid => 100, tid => 105, comm => 'ev2') .
	page(0, 1300, 0, 0, depth(0), event(1, 1000, 105, 'x'), rec(11, 1, pack('v', 4000) . 'short'));
pack_files('syn-events', info => info(tracer => 'nop', clock => 'mono'),
	   '100.104.1.dat' => $te1, '100.105.1.dat' => $te2, 'maps.100.1.0' => $maps,
	   "sym/$symname.sym" => $sym);
pack_files('syn-v2-plain', info => info(tracer => 'function', clock => 'mono', version => 2),
	   '100.102.1.dat' => header(pid => 100, tid => 102, comm => 'worker', ext => 1, nr => 1,
				     entries => 3) . substr($t3, $PAGE));
# the mapping at the event's time: a library replaced by another after a
# dlopen ("# time"); after a loss, the open calls restated by DEPTH and
# STACK, or by two DEPTHs (more than 64 open)
my $maps1 = "# time 1700\n# a comment\n" . "400000-401000 r-xp 00000000 08:01 1 /syn/prog\n" .
	    "7f0000000000-7f0000010000 r-xp 00000000 08:01 3 /syn/libbar.so\n";
my $t4 = header(pid => 100, tid => 100, comm => 'syn', lost => 7, nr_pages => 4) .
	page(0, 1000, 0, 0, depth(0), entry(1, 0x400100), entry(1, 0x400200),
	     entry(1, 0x7f0000000100), exit_(1)) .
	page(1, 2000, 0, 3, depth(1), stack(0, 0x400100), entry(1, 0x7f0000000200), exit_(1),
	     exit_(1)) .
	page(2, 3000, 0, 4, depth(1), depth(70), exit_(1), exit_(1), entry(2, 0x400300), exit_(1));
pack_files('syn-loss-restated', info => info(tracer => 'function_graph', clock => 'mono', version => 2),
	   '100.100.1.dat' => $t4, 'maps.100.1.0' => $maps, 'maps.100.1.1' => $maps1,
	   "sym/$symname.sym" => $sym);
