#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Test helper: signs a module the way the kernel's scripts/sign-file does,
# with the openssl command line only, so that tests need no kernel tree.
#
#   sign-module.sh KEY.pem CERT.pem IN.ko OUT.ko [--keyid]
#   sign-module.sh --make-ca DIR [CN]
#
# The first form writes OUT.ko = IN.ko, a detached PKCS#7 (CMS) signature
# in DER (SHA-256, no signed attributes, no certificates; the signer named
# by issuer and serial, or by subject key identifier with --keyid as
# sign-file -k does), the 12-byte struct module_signature and the magic.
# The second writes DIR/key.pem, DIR/cert.pem and DIR/cert.der: a
# self-signed RSA-2048 signing certificate with a subject key identifier,
# shaped like the kernel's certs/x509.genkey (CN defaults to
# "modrot test signer").
set -eu

usage() {
	echo "usage: sign-module.sh KEY.pem CERT.pem IN.ko OUT.ko [--keyid]" >&2
	echo "       sign-module.sh --make-ca DIR [CN]" >&2
	exit 2
}

# The system's openssl.cnf may add extensions of its own; only ours count.
OPENSSL_CONF=/dev/null
export OPENSSL_CONF

make_ca() {
	dir=$1
	cn=${2:-modrot test signer}
	mkdir -p "$dir"
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 36500 -sha256 \
		-subj "/CN=$cn" \
		-addext "basicConstraints=critical,CA:FALSE" \
		-addext "keyUsage=digitalSignature" \
		-addext "subjectKeyIdentifier=hash" \
		-keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
	openssl x509 -in "$dir/cert.pem" -outform DER -out "$dir/cert.der"
}

# The four bytes of a number, big-endian, as escapes for printf %b.
be32() {
	printf '\\0%03o\\0%03o\\0%03o\\0%03o' \
		$(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255))
}

sign() {
	key=$1 cert=$2 in=$3 out=$4 keyid=$5
	sig=$(mktemp)
	trap 'rm -f "$sig"' EXIT
	# Detached is openssl cms's default; -binary keeps line ends as they
	# are; -noattr and -nocerts are sign-file's CMS_NOATTR and CMS_NOCERTS.
	# shellcheck disable=SC2086 # $keyid is -keyid or must vanish
	openssl cms -sign -binary -noattr -nocerts -outform DER -md sha256 \
		$keyid -signer "$cert" -inkey "$key" -in "$in" -out "$sig"
	sig_len=$(wc -c <"$sig")
	{
		cat "$in" "$sig"
		# algo, hash, id_type = PKEY_ID_PKCS7, signer_len, key_id_len, pad[3]
		printf '\000\000\002\000\000\000\000\000'
		printf '%b' "$(be32 "$sig_len")"
		printf '~Module signature appended~\n'
	} >"$out"
}

case ${1:-} in
--make-ca)
	if [ $# -lt 2 ] || [ $# -gt 3 ]; then
		usage
	fi
	shift
	make_ca "$@"
	;;
-*)
	usage
	;;
*)
	[ $# -eq 4 ] || [ $# -eq 5 ] || usage
	keyid=
	if [ $# -eq 5 ]; then
		[ "$5" = --keyid ] || usage
		keyid=-keyid
	fi
	sign "$1" "$2" "$3" "$4" "$keyid"
	;;
esac
