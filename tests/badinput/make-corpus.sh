#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make-corpus.sh FIXTURES SRCDIR OUTDIR
#
# Builds insmod's bad-input corpus into OUTDIR: files that are not
# modules, or are modules this kernel must not be asked to load. Each
# name in OUTDIR matches a line of tests/badinput/manifest, which gives
# the exit status and the one-line message insmod must answer with.
# OUTDIR/good/ holds inputs that look odd but are fine (they must load).
#
# FIXTURES is $(top_builddir)/tests/fixtures/out (alpha.ko and friends);
# SRCDIR is $(top_srcdir)/tests/fixtures (mkfixtures.sh, src/), used to
# build modules with odd names. Only tools every Debian build host has:
# printf, head, dd, od, openssl, xz, zstd, gzip, objcopy, readelf, gcc.
set -eu

[ $# -eq 3 ] || { echo "usage: make-corpus.sh FIXTURES SRCDIR OUTDIR" >&2; exit 2; }
fixtures=$1
srcdir=$2
out=$3
cc=${CC:-gcc}
mkdir -p "$out" "$out/good"
rm -rf "${out:?}"/* 2>/dev/null || :
mkdir -p "$out/good"
tmp=$out/.work
mkdir -p "$tmp"

base=$fixtures/alpha.ko
[ -r "$base" ] || { echo "make-corpus.sh: no $base" >&2; exit 1; }

magic() { printf '~Module signature appended~\n'; }

# Deterministic bytes that look random: AES-CTR over zeros.
noise() { head -c "$1" /dev/zero | openssl enc -aes-128-ctr -nosalt \
	-K 6d6f64726f742d62616420696e707574 -iv 00000000000000000000000000000000; }

# Writes the bytes given as hex (e.g. "b700") at OFFSET of FILE.
poke() {
	file=$1 off=$2 hex=$3 esc=
	while [ -n "$hex" ]; do
		esc="$esc\\$(printf '%03o' "0x$(printf '%.2s' "$hex")")"
		hex=${hex#??}
	done
	# shellcheck disable=SC2059
	printf "$esc" | dd of="$file" bs=1 seek="$off" conv=notrunc status=none
}

# Little-endian unsigned integer of SIZE bytes at OFFSET.
peek() { od -An -tu"$3" -j"$2" -N"$3" "$1" | tr -d ' '; }

# Byte offset of section header INDEX of an ELF64 file.
shdr_offset() { echo $(( $(peek "$1" 40 8) + $2 * $(peek "$1" 58 2) )); }

# Index of the section called NAME.
section_index() {
	readelf -S -W "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\) .*/\1 \2/p' |
		awk -v n="$2" '$2 == n { print $1; exit }'
}

patched() { # patched NAME OFFSET HEX: a copy of alpha.ko with bytes changed
	cp "$base" "$out/$1"
	poke "$out/$1" "$2" "$3"
}

# A big-endian 32-bit number as hex.
be32() { printf '%08x' "$1"; }

# Appends a struct module_signature (algo hash id_type signer_len
# key_id_len pad[3] sig_len, big-endian) and the magic.
sig_trailer() { # sig_trailer FILE ID_TYPE SIG_LEN
	hex=000000$(printf '%02x' "$2")0000000000$(be32 "$3")
	esc=
	while [ -n "$hex" ]; do
		esc="$esc\\$(printf '%03o' "0x$(printf '%.2s' "$hex")")"
		hex=${hex#??}
	done
	# shellcheck disable=SC2059
	printf "$esc" >> "$1"
	magic >> "$1"
}

# --- not modules at all --------------------------------------------------
: > "$out/empty.ko"
noise 4096 > "$out/random.ko"
printf 'this is not a kernel module\njust text\n' > "$out/text.ko"
# A PNG: signature, then an IHDR chunk and noise.
{ printf '\211PNG\r\n\032\n\000\000\000\015IHDR'; noise 200; } > "$out/picture.ko"
{ printf '\177ELF'; noise 1000; } > "$out/elf-magic-then-noise.ko"
mkdir "$out/directory.ko"
mkfifo "$out/fifo.ko"
ln -s does-not-exist.ko "$out/dangling-symlink.ko"
# Over insmod's 512 MiB limit, without taking the space.
truncate -s 600M "$out/huge-sparse.ko"

# --- truncated and inconsistent ELF --------------------------------------
size=$(wc -c < "$base")
head -c 10 "$base" > "$out/truncated-10.ko"
head -c 64 "$base" > "$out/truncated-64.ko"
head -c 500 "$base" > "$out/truncated-500.ko"
head -c $(( size / 2 )) "$base" > "$out/truncated-half.ko"
# All headers intact, the last byte of the file (inside .shstrtab's
# neighbourhood or the section table) gone.
head -c $(( size - 1 )) "$base" > "$out/truncated-last-byte.ko"
patched shoff-past-eof.ko 40 00000000ff000000      # e_shoff
patched shnum-huge.ko 60 ffff                       # e_shnum
# .data's sh_offset far past the end of the file
data=$(section_index "$base" .data)
patched section-past-eof.ko $(( $(shdr_offset "$base" "$data") + 24 )) 0000000100000000
# .data's sh_size larger than the file
patched section-too-long.ko $(( $(shdr_offset "$base" "$data") + 32 )) 0000100000000000

# --- ELF, but not for this kernel ----------------------------------------
objcopy -O elf32-i386 "$base" "$out/elf32-i386.ko"
objcopy -O elf32-x86-64 "$base" "$out/elf32-x32.ko"
patched machine-aarch64.ko 18 b700                  # e_machine = EM_AARCH64
patched machine-unknown.ko 18 3412                  # e_machine = 0x1234
patched type-exec.ko 16 0200                        # e_type = ET_EXEC
patched type-dyn.ko 16 0300                         # e_type = ET_DYN
patched type-core.ko 16 0400                        # e_type = ET_CORE
patched big-endian.ko 5 02                          # EI_DATA = ELFDATA2MSB
objcopy --remove-section .modinfo "$base" "$out/no-modinfo.ko"
objcopy --remove-section .gnu.linkonce.this_module \
	--remove-section .rela.gnu.linkonce.this_module "$base" "$out/no-this-module.ko"
# The symbol table's type changed to PROGBITS: "module has no symbols".
symtab=$(section_index "$base" .symtab)
patched no-symtab.ko $(( $(shdr_offset "$base" "$symtab") + 4 )) 01000000

# Modules with odd names, built as the fixtures are.
long=$(printf 'n%.0s' $(seq 60))
mkdir -p "$tmp/src"
cp "$srcdir"/src/* "$tmp/src/"
cat > "$tmp/fixtures.list" <<LIST
longname | plain.c | 100 | name=$long
noname   | plain.c | 100 | name=
LIST
# The 60-byte name does not fit struct module's name[56]: gcc says so.
sh "$srcdir/mkfixtures.sh" "$tmp" "$tmp/build" "$cc" 2>/dev/null
cp "$tmp/build/longname.ko" "$out/name-60-bytes.ko"
cp "$tmp/build/noname.ko" "$out/no-name.ko"

# Fixtures this kernel refuses for what they are or need.
cp "$fixtures/badmagic.ko" "$out/vermagic-other-release.ko"
cp "$fixtures/needsym.ko" "$out/unknown-symbol.ko"
cp "$fixtures/beta.ko" "$out/dependency-missing.ko"
cp "$fixtures/delta.ko" "$out/already-loaded.ko"

# --- ELF structure the kernel's elf_validity_check refuses ----------------
# Little-endian hex of VALUE in BYTES bytes, for poke.
le() {
	hex=$(printf "%0$(( $2 * 2 ))x" "$1") r=
	while [ -n "$hex" ]; do
		r=$r$(printf '%.2s' "${hex#"${hex%??}"}")
		hex=${hex%??}
	done
	echo "$r"
}
# Byte offset of field FIELD (sh_type 4, sh_offset 24, sh_size 32, sh_link
# 40, sh_info 44, sh_entsize 56, ...) of section NAME's header.
field() { echo $(( $(shdr_offset "$base" "$(section_index "$base" "$1")") + $2 )); }
section_value() { peek "$base" "$(field "$1" "$2")" "${3:-8}"; }
patched shentsize-40.ko 58 "$(le 40 2)"                      # e_shentsize
patched shnum-zero.ko 60 0000                                # e_shnum
patched shstrndx-out-of-range.ko 62 "$(le 65520 2)"          # e_shstrndx
patched section0-not-null.ko $(( $(peek "$base" 40 8) + 4 )) 01000000
patched shstrtab-empty.ko "$(field .shstrtab 32)" "$(le 0 8)"
patched shstrtab-unterminated.ko $(( $(section_value .shstrtab 24) + $(section_value .shstrtab 32) - 1 )) 78
patched section-name-out-of-range.ko "$(field .data 0)" ffffff00
patched symtab-entsize-16.ko "$(field .symtab 56)" "$(le 16 8)"
patched symtab-link-zero.ko "$(field .symtab 40)" "$(le 0 4)"
patched symtab-link-out-of-range.ko "$(field .symtab 40)" "$(le 999 4)"
patched symtab-link-not-strtab.ko "$(field .symtab 40)" "$(le "$(section_index "$base" .data)" 4)"
patched symtab-info-past-end.ko "$(field .symtab 44)" "$(le 999999 4)"
patched strtab-empty.ko "$(field .strtab 32)" "$(le 0 8)"
patched strtab-unterminated.ko $(( $(section_value .strtab 24) + $(section_value .strtab 32) - 1 )) 78
patched symbol-name-out-of-range.ko $(( $(section_value .symtab 24) + 24 )) ffffff7f
patched symbol-section-out-of-range.ko $(( $(section_value .symtab 24) + 24 + 6 )) "$(le 999 2)"
# A second SHT_SYMTAB: .comment's header made a copy of .symtab's (the
# heap overflow in preflight once), then one pointing elsewhere.
cp "$base" "$out/two-symtabs.ko"
dd if="$base" of="$out/two-symtabs.ko" bs=1 count=64 conv=notrunc status=none \
	skip="$(shdr_offset "$base" "$(section_index "$base" .symtab)")" \
	seek="$(shdr_offset "$base" "$(section_index "$base" .comment)")"
patched two-symtabs-apart.ko "$(field .comment 4)" 02000000
poke "$out/two-symtabs-apart.ko" "$(field .comment 40)" "$(le "$(section_index "$base" .strtab)" 4)"
poke "$out/two-symtabs-apart.ko" "$(field .comment 56)" "$(le 24 8)"
poke "$out/two-symtabs-apart.ko" "$(field .comment 32)" "$(le 24 8)"
patched rela-info-out-of-range.ko "$(field .rela.text 44)" "$(le 999 4)"
patched rela-link-out-of-range.ko "$(field .rela.text 40)" "$(le 999 4)"
patched rela-entsize-16.ko "$(field .rela.text 56)" "$(le 16 8)"
# Sections sharing bytes with each other and with the headers.
patched overlap-sections.ko "$(field .data 24)" "$(le "$(section_value .text 24)" 8)"
patched overlap-elf-header.ko "$(field .data 24)" "$(le 0 8)"
patched overlap-section-table.ko "$(field .modinfo 24)" "$(le "$(peek "$base" 40 8)" 8)"
# An offset that wraps around 64 bits when its size is added.
patched offset-wraps.ko "$(field .data 24)" "$(le 18446744073709551360 8)"
patched modinfo-unterminated.ko $(( $(section_value .modinfo 24) + $(section_value .modinfo 32) - 1 )) 78
patched modinfo-nobits.ko "$(field .modinfo 4)" 08000000
patched this-module-nobits.ko "$(field .gnu.linkonce.this_module 4)" 08000000
patched class-unknown.ko 4 03                               # EI_CLASS

# --- compression ---------------------------------------------------------
zstd -q -19 -c "$base" > "$tmp/alpha.zst"
xz --check=crc32 --lzma2=dict=1MiB -c "$base" > "$tmp/alpha.xz"
zlen=$(wc -c < "$tmp/alpha.zst")
xlen=$(wc -c < "$tmp/alpha.xz")
cp "$tmp/alpha.zst" "$out/zstd-corrupt.ko.zst"
poke "$out/zstd-corrupt.ko.zst" $(( zlen / 2 )) deadbeefdeadbeef
head -c $(( zlen / 2 )) "$tmp/alpha.zst" > "$out/zstd-truncated.ko.zst"
head -c 4 "$tmp/alpha.zst" > "$out/zstd-magic-only.ko.zst"
cp "$tmp/alpha.xz" "$out/xz-corrupt.ko.xz"
poke "$out/xz-corrupt.ko.xz" $(( xlen / 2 )) deadbeefdeadbeef
head -c $(( xlen / 2 )) "$tmp/alpha.xz" > "$out/xz-truncated.ko.xz"
head -c 12 "$tmp/alpha.xz" > "$out/xz-header-only.ko.xz"
gzip -9 -n -c "$base" > "$out/gzip.ko.gz"
noise 4096 | zstd -q -c > "$out/zstd-of-random.ko.zst"
printf 'not a module\n' | xz -c > "$out/xz-of-text.ko.xz"
: | zstd -q -c > "$out/zstd-of-nothing.ko.zst"
zstd -q -c "$out/truncated-500.ko" > "$out/zstd-of-truncated-elf.ko.zst"
xz -c "$out/machine-aarch64.ko" > "$out/xz-of-aarch64.ko.xz"
# Bombs: a few KiB that claim or inflate to more than any module.
truncate -s 600M "$tmp/zeros"
zstd -q -1 -c "$tmp/zeros" > "$out/zstd-bomb.ko.zst"
xz -0 -T1 -c "$tmp/zeros" > "$out/xz-bomb.ko.xz"
rm -f "$tmp/zeros"
xz -c "$out/two-symtabs.ko" > "$out/xz-of-two-symtabs.ko.xz"

# --- signatures (refused on a kernel that enforces them) -----------------
cp "$base" "$out/sig-magic-only.ko"
magic >> "$out/sig-magic-only.ko"
cp "$base" "$out/sig-length-past-start.ko"
sig_trailer "$out/sig-length-past-start.ko" 2 $(( size + 4096 ))
cp "$base" "$out/sig-garbage-pkcs7.ko"
noise 64 >> "$out/sig-garbage-pkcs7.ko"
sig_trailer "$out/sig-garbage-pkcs7.ko" 2 64
cp "$base" "$out/sig-not-pkcs7.ko"
noise 64 >> "$out/sig-not-pkcs7.ko"
sig_trailer "$out/sig-not-pkcs7.ko" 1 64
cp "$base" "$out/sig-zero-length.ko"
sig_trailer "$out/sig-zero-length.ko" 2 0
# Only 5 bytes of the 12-byte struct before the magic.
{ head -c 5 /dev/zero; magic; } > "$out/sig-struct-truncated.ko"
cp "$base" "$out/sig-unsigned.ko"

# --- good inputs that look odd -------------------------------------------
# Compression is told by magic, not by name.
cp "$fixtures/delta.ko" "$out/good/plain-named-zst.ko.zst"
cp "$fixtures/delta.ko.xz" "$out/good/xz-named-ko.ko"
cp "$fixtures/delta.ko.zst" "$out/good/zst-named-xz.ko.xz"
cp "$fixtures/delta.ko" "$out/good/no-extension"

rm -rf "$tmp"
