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
# command outlives its bound (a hang), when a rejected index (its
# "WARNING: .../INDEX ...: read as missing" line, corrupt or not matching
# its text file) gives another answer than the same directory without
# INDEX, or when an accepted index gives another answer than the intact
# one: the tools check each index against the text file depmod wrote
# beside it, so no flip that survives may change what they say. Prints one
# count line per index and every failure; exits 1 on a failure.
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

# The answer without the warnings that say an index was left out.
sub answer {
	my ($out) = @_;
	return join '', grep { !/: WARNING: .* read as missing \(run depmod\)$/ } split /^/, $out;
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
my @total = (0, 0, 0);
for my $index (@indexes) {
	my $path = "$dir/$index";
	my $orig = slurp($path);
	my $bits = 8 * length($orig);
	my ($irc, $isig, $intact) = run_once();

	rename($path, "$path.away") or die "$path: $!\n";
	my ($rc, $sig, $out) = run_once();
	rename("$path.away", $path) or die "$path: $!\n";
	my $why = crashed($rc, $sig, $out);
	die "without $index: $why\n$out" if $why;
	my $removed = answer($out);

	my ($flips, $rejected, $changed) = (0, 0, 0);
	for (my $bit = length($orig) % $stride; $bit < $bits; $bit += $stride) {
		my $copy = $orig;
		vec($copy, ($bit >> 3), 8) ^= 1 << ($bit & 7);
		spew($path, $copy);
		($rc, $sig, $out) = run_once();
		$flips++;
		my $what;
		if (($what = crashed($rc, $sig, $out))) {
		} elsif ($out =~ m{: WARNING: \S*/\Q$index\E .* read as missing}) {
			$rejected++;
			$what = "answer differs from the one without $index"
			    if answer($out) ne $removed;
		} elsif ($out ne $intact) {
			$changed++;
			$what = "accepted, and the answer differs from the intact one";
		}
		if ($what) {
			$failures++;
			printf "FAIL %s byte %d bit %d: %s\n%s", $index, $bit >> 3, $bit & 7, $what, $out
			    if $failures <= 20;
		}
	}
	spew($path, $orig);
	printf "%s: %d bits, %d flipped, %d rejected, %d accepted (%d with another answer), " .
	    "%d failures so far\n", $index, $bits, $flips, $rejected, $flips - $rejected, $changed,
	    $failures;
	$total[0] += $flips;
	$total[1] += $rejected;
	$total[2] += $changed;
}
printf "total: %d flips, %d rejected, %d accepted, %d accepted with another answer, " .
    "%d failures\n", $total[0], $total[1], $total[0] - $total[1], $total[2], $failures;
exit($failures ? 1 : 0);
