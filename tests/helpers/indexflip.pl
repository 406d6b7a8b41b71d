#!/usr/bin/perl
# indexflip.pl DIR STRIDE SECONDS INDEX... -- COMMAND...
#
# Flips single bits of each binary INDEX in the module directory DIR, one
# at a time, and runs COMMAND (a shell command: its output, with each
# tool's exit status as "status=N" lines) after each flip, with a time
# bound of SECONDS. Bits flipped: every STRIDE-th, starting at a phase
# that moves with the file's length (STRIDE 1: every bit).
#
# A flip is a failure when any status is 128 or more (a crash), when the
# command outlives its bound (a hang), or when a refused index (an
# "ERROR: .../INDEX is corrupt (run depmod)" line) gives more than that
# line and "status=1" from each tool. A flip the check accepts is a
# well-formed index: libkmod may answer otherwise from it (a key spelt
# otherwise), but reads it in bounds. Prints one count line per index and
# every failure; exits 1 on a failure.
use strict;
use warnings;

my ($dir, $stride, $seconds, @rest) = @ARGV;
my @indexes;
push @indexes, shift @rest while @rest && $rest[0] ne '--';
shift @rest;
my @command = @rest;
die "usage: indexflip.pl DIR STRIDE SECONDS INDEX... -- COMMAND...\n"
    unless defined $seconds && @indexes && @command;

sub run_once {
	my $pid = open(my $fh, '-|') // die "fork: $!\n";
	if (!$pid) {
		open(STDERR, '>&', \*STDOUT);
		exec('timeout', '-s', 'KILL', $seconds, @command) or exit 127;
	}
	local $/;
	my $out = <$fh> // '';
	close($fh);
	return ($? >> 8, $? & 127, $out);
}

sub crashed {
	my ($rc, $sig, $out) = @_;
	return "signal $sig" if $sig;
	return "hang (timeout)" if $rc == 124 || $rc == 137;
	return "exit $rc" if $rc >= 128;
	for ($out =~ /^status=(\d+)$/mg) {
		return "a tool exited $_" if $_ >= 128;
	}
	return;
}

sub slurp {
	open(my $fh, '<:raw', $_[0]) or die "$_[0]: $!\n";
	local $/;
	return scalar <$fh>;
}

sub spew {
	open(my $fh, '>:raw', $_[0]) or die "$_[0]: $!\n";
	print $fh $_[1];
	close($fh) or die "$_[0]: $!\n";
}

my $failures = 0;
my @total = (0, 0);
for my $index (@indexes) {
	my $path = "$dir/$index";
	my $orig = slurp($path);
	my $bits = 8 * length($orig);

	my ($flips, $refused) = (0, 0);
	for (my $bit = length($orig) % $stride; $bit < $bits; $bit += $stride) {
		my $copy = $orig;
		vec($copy, ($bit >> 3), 8) ^= 1 << ($bit & 7);
		spew($path, $copy);
		my ($rc, $sig, $out) = run_once();
		$flips++;
		my $what;
		if (($what = crashed($rc, $sig, $out))) {
		} elsif ($out =~ m{: ERROR: \S*/\Q$index\E is corrupt \(run depmod\)$}m) {
			$refused++;
			$what = "refused, but not in one line with exit 1"
			    if grep { !m{^(status=1|\S+: ERROR: \S*/\Q$index\E is corrupt \(run depmod\))$} }
			    split /\n/, $out;
		}
		if ($what) {
			$failures++;
			printf "FAIL %s byte %d bit %d: %s\n%s", $index, $bit >> 3, $bit & 7, $what, $out
			    if $failures <= 20;
		}
	}
	spew($path, $orig);
	printf "%s: %d bits, %d flipped, %d refused, %d accepted, %d failures so far\n", $index, $bits,
	    $flips, $refused, $flips - $refused, $failures;
	$total[0] += $flips;
	$total[1] += $refused;
}
printf "total: %d flips, %d refused, %d accepted, %d failures\n", $total[0], $total[1],
    $total[0] - $total[1], $failures;
exit($failures ? 1 : 0);
