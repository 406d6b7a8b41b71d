#!/usr/bin/perl
# kmod34-compare.pl MODE KMOD.OUT KMOD.ERR MODROT.OUT MODROT.ERR
#
# The two runs of tests/helpers/kmod34-loop.sh over the same cases, one by
# kmod and one by modrot, case by case: standard output and exit status
# byte for byte; standard error byte for byte when MODE is "bytes", or, when
# MODE is "shape", its number of lines and the level word (FATAL, ERROR,
# WARNING or none) of each, which is what scripts and log filters read of
# kmod's messages (modrot's words are its own: modprobe.8, modinfo.8).
# Prints one line per differing case and "cases N identical M" last.
use strict;
use warnings;

my ($mode, @files) = @ARGV;
die "usage: kmod34-compare.pl bytes|shape KOUT KERR MOUT MERR\n"
    unless @files == 4 && $mode =~ /^(bytes|shape)$/;

sub blocks {
	my ($file) = @_;
	open(my $fh, '<', $file) or die "$file: $!\n";
	my (%b, @order, $cur);
	while (my $line = <$fh>) {
		if ($line =~ /^== (#\d+) ?(.*)$/) {
			$cur = $1;
			push @order, [$1, $2];
			$b{$cur} = '';
			next;
		}
		die "$file: output before the first case\n" unless defined $cur;
		$b{$cur} .= $line;
	}
	return (\%b, \@order);
}

sub shape {
	my ($text) = @_;
	my @words = map { /^[a-z]+: (FATAL|ERROR|WARNING): / ? $1 : '(none)' } split /\n/, $text;
	return scalar(@words) . ' ' . join(' ', @words);
}

my ($ko, $order) = blocks($files[0]);
my ($ke) = blocks($files[1]);
my ($mo, $morder) = blocks($files[2]);
my ($me) = blocks($files[3]);
die "the runs did not make the same cases\n" unless @$order == @$morder;
my ($cases, $same) = (0, 0);
for my $c (@$order) {
	my ($id, $what) = @$c;
	$cases++;
	my @why;
	my ($kx) = $ko->{$id} =~ /^exit (\d+)\n\z/m;
	my ($mx) = ($mo->{$id} // '') =~ /^exit (\d+)\n\z/m;
	if (($ko->{$id} // '') ne ($mo->{$id} // '')) {
		if (defined $kx && defined $mx && $kx ne $mx) {
			push @why, "exit status $mx, kmod's $kx";
		}
		(my $kt = $ko->{$id}) =~ s/^exit \d+\n\z//m;
		(my $mt = $mo->{$id} // '') =~ s/^exit \d+\n\z//m;
		push @why, 'stdout differs' if $kt ne $mt;
	}
	my ($kerr, $merr) = ($ke->{$id} // '', $me->{$id} // '');
	if ($mode eq 'bytes' ? $kerr ne $merr : shape($kerr) ne shape($merr)) {
		push @why, "stderr differs (kmod: \"" . join(' | ', split /\n/, $kerr) .
		    "\", modrot: \"" . join(' | ', split /\n/, $merr) . "\")";
	}
	if (@why) {
		print join('; ', @why), ": $what\n";
	} else {
		$same++;
	}
}
print "cases $cases identical $same\n";
