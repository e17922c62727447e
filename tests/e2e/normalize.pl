#!/usr/bin/perl
# normalize.pl - make replay output comparable between runs: thread ids
# become T1, T2, ... in order of appearance, and the context-switch
# banners (which depend on the CPUs the threads happened to share) go.
# The TASK/PID column loses its centring, which depends on the tid's length,
# and so do the tasks of a wake or switch line.
use strict;
use warnings;

my (%tid, $n);
my @lines = <STDIN>;
for (my $i = 0; $i < @lines; $i++) {
	if ($lines[$i] =~ /^ -{42}$/ && $i + 2 < @lines && $lines[$i + 2] =~ /^ -{42}$/) {
		$i += 2;
		$i++ if $i + 1 < @lines && $lines[$i + 1] eq "\n";
		next;
	}
	my $l = $lines[$i];
	$l =~ s{\b([A-Za-z_][\w.]*)-(\d+)\b}{$1 . "-" . ($tid{$2} //= "T" . ++$n)}ge;
	# the tasks of a wake or switch line ("PID:PRIO:STATE   + [CPU] PID:PRIO:STATE comm"),
	# their "%7d" alignment with them
	$l =~ s{ +(\d+):( *-?\d+):([RSDTtXZPI]\+?) }{" " . ($tid{$1} //= "T" . ++$n) . ":$2:$3 "}ge
		if $l =~ / (?:  \+|==>) \[\d{3}\] /;
	# the funcgraph-proc column is centred on the length of the real tid
	$l =~ s{^ *(\S+-T\d+) *\| }{$1 | };
	print $l;
}
