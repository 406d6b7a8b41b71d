# need_packages PACKAGE...: the Debian packages a test file runs must be
# installed before the suite starts (scripts/check.sh installs them up
# front): a test never installs anything mid-run, where another apt
# holding the dpkg lock would fail it. A missing package fails the file
# in one line that names it and the command that installs it.
need_packages() {
	local missing
	missing=$("$top_srcdir/scripts/need-packages.sh" --list "$@" | paste -sd' ' -)
	if [ -n "$missing" ]; then
		echo "not installed: $missing (scripts/check.sh installs it; or scripts/need-packages.sh $missing)" >&2
		return 1
	fi
}
