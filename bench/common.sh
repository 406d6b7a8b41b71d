# Shared by the benchmarks: a built tree, hyperfine, and ratios from one run.
#   . bench/common.sh
#   bench_kernel NAME MODE [populate options]   -> creates $BENCH_TMP/NAME
#   bench_compare KERNEL "label=command" ...    -> table of means and ratios
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# The benchmarks' own tools (the build's come with setup.sh).
"$top/scripts/need-packages.sh" hyperfine ltrace jq bc busybox kmod
build=$("$top/scripts/setup.sh")
SIM=$build/tests/simkernel/simkernel
PRELOAD=$build/tests/simkernel/libsimkernel.so
# tmpfs: the simulated kernel creates a file per state change, and a disk
# would time its own writes instead of the tools.
BENCH_TMP=$(mktemp -d /dev/shm/modrot-bench.XXXXXX 2>/dev/null || mktemp -d "${TMPDIR:-/tmp}/modrot-bench.XXXXXX")
trap 'rm -rf "$BENCH_TMP"' EXIT
: "${BENCH_RUNS:=30}"

bench_kernel() {
	local name=$1 mode=$2
	shift 2
	"$SIM" create "$BENCH_TMP/$name" --mode "$mode"
	[ $# -eq 0 ] || "$SIM" populate "$BENCH_TMP/$name" "$@"
}

# Kernel-facing libc calls one command makes (ltrace counts calls through
# the tool's own PLT, so the simulated kernel's internal work is not
# counted): the figure behind "syscalls per module".
bench_kernel_calls() {
	local kernel=$1
	shift
	SIMKERNEL_DIR=$BENCH_TMP/$kernel LD_PRELOAD=$PRELOAD \
		ltrace -c -o "$BENCH_TMP/ltrace.out" "$@" >/dev/null 2>&1 || true
	awk '$NF ~ /^(open|open64|openat|read|write|close|stat|fstat|lstat|access|isatty|flock|delete_module|init_module|syscall|ioctl|readlink|opendir|readdir|getdents64)$/ { n += $4 }
		END { print n + 0 }' "$BENCH_TMP/ltrace.out"
}

# Like bench_compare, but each timed run starts from a fresh kernel made by
# the shell command PREPARE (not timed).
bench_compare_prepared() {
	local kernel=$1 prepare=$2
	shift 2
	local -a BENCH_HYPERFINE_ARGS=(--warmup 1 --runs "${BENCH_PREPARED_RUNS:-10}" --prepare "$prepare")
	bench_run "$kernel" "$@"
}

bench_table() {
	jq -r '.results as $r | $r[0].mean as $base |
		$r[] | [.command, (.mean * 1000 | . * 100 | round / 100), (.mean / $base | . * 100 | round / 100)] |
		@tsv' "$1" |
		awk -F'\t' 'BEGIN { printf "%-34s %10s %10s\n", "command", "mean ms", "x first" }
			{ printf "%-34s %10.2f %10.2f\n", $1, $2, $3 }'
}

# Runs each command under the simulated kernel (preloaded directly, so no
# wrapper process is timed) and prints mean times and ratios to the first.
bench_compare() {
	local kernel=$1
	shift
	local -a BENCH_HYPERFINE_ARGS=(-N --warmup 3 --runs "$BENCH_RUNS")
	bench_run "$kernel" "$@"
}

# bench_run KERNEL "label=command"...: hyperfine with the caller's
# BENCH_HYPERFINE_ARGS (a local array, seen here through bash's dynamic scope).
bench_run() {
	local kernel=$1
	shift
	local json=$BENCH_TMP/result.json
	local -a names=() cmds=()
	for spec in "$@"; do
		names+=(-n "${spec%%=*}")
		cmds+=("${spec#*=}")
	done
	SIMKERNEL_DIR=$BENCH_TMP/$kernel LD_PRELOAD=$PRELOAD \
		hyperfine "${BENCH_HYPERFINE_ARGS[@]}" --style none \
		--export-json "$json" "${names[@]}" "${cmds[@]}" >/dev/null 2>&1
	bench_table "$json"
}

# The spec (tests/helpers/modtree.sh) of N modules with the aliases
# benchalias-00000...: every tenth needs the one before it.
bench_aliased_spec() {
	local n=$1 i m line
	for ((i = 0; i < n; i++)); do
		m=$(printf 'bal%05d' "$i")
		line="kernel/bench/$m.ko | ko | $((500 + (i * 37) % 3000)) | alias=benchalias-$(printf '%05d' "$i") | +exports=${m}_fn"
		((i % 10 == 9)) && line="$line | +uses=$(printf 'bal%05d' $((i - 1)))_fn | depends=$(printf 'bal%05d' $((i - 1)))"
		echo "$line"
	done
}
