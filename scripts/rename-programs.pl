#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Renames modrot's programs in a man page source or a completion file, as
# --program-prefix or --program-transform-name renamed the programs:
#
#   rename-programs.pl man|completion OLD=NEW... < in > out
#
# man: the page's title line, every bold command (*rmmod*, so also the
# *rmmod*(8) references between pages) and the commands of example lines
# ("# rmmod alpha"). kmod's commands ("kmod's *rmmod*(8)") keep their names:
# they are kmod's, which stay installed beside prefixed ones.
#
# completion: the command each file binds (complete -F f rmmod, #compdef
# rmmod, complete -c rmmod), runs (command lsmod --help) and mentions, and
# the names of its functions (_rmmod, __rmmod_names): a prefixed rmmod's
# completion must not redefine the _rmmod of kmod's.
#
# Pairs whose two names are equal change nothing, so without a transform
# the output is the input.
use strict;
use warnings;

my $mode = shift @ARGV // '';
die "usage: $0 man|completion OLD=NEW...\n" unless $mode eq 'man' || $mode eq 'completion';

my @pairs;
for my $arg (@ARGV) {
	my ($old, $new) = split /=/, $arg, 2;
	die "$0: not OLD=NEW: $arg\n" unless defined $new && length $old && length $new;
	push @pairs, [$old, $new] if $old ne $new;
}
# Longest first, so that "modrot-metrics" is renamed before a shorter name
# it might contain.
@pairs = sort { length($b->[0]) <=> length($a->[0]) } @pairs;

# A command name as a word: not part of a longer name, path or identifier.
sub command_re { my $n = quotemeta shift; return qr/(?<![\w\/.-])$n(?![\w-])/; }
# An identifier made from a command name: _rmmod, __rmmod_names, _modrot_metrics.
sub ident { (my $n = shift) =~ s/\W/_/g; return $n; }

local $/;
my $text = <STDIN>;

if ($mode eq 'man') {
	for my $p (@pairs) {
		my ($old, $new) = @$p;
		my $q = quotemeta $old;
		$text =~ s/^$q(?=\(\d\))/$new/m;            # title line: rmmod(8) "modrot" ...
		$text =~ s/(?<!kmod's )(?<![\w*])\*$q(?=[\s*])/*$new/g; # bold command, references
		$text =~ s/^(\t*[#\$] )$q(?![\w-])/$1$new/mg; # example command lines
		$text =~ s/^$q - /$new - /m;                 # NAME section
	}
} else {
	# Identifiers first: a command renamed first would no longer match.
	for my $p (@pairs) {
		my ($old, $new) = map { ident($_) } @$p;
		$text =~ s/(?<![\w])(_+)\Q$old\E(?=_|\b)/$1$new/g;
	}
	for my $p (@pairs) {
		my ($old, $new) = @$p;
		my $re = command_re($old);
		$text =~ s/$re/$new/g;
	}
}
print $text;
