#!/bin/sh
# kernel/figures-report.sh FIGURES.real: the figures scenario's FIG lines
# as a table of ratios (times under TCG mean little; ratios of runs made
# one after the other in one boot do).  kernel/run.sh --figures calls it.
set -eu
[ -r "$1" ] || { echo "figures-report.sh: cannot read $1" >&2; exit 1; }
awk -F'\t' '
$1 == "FIG" { fig[$2] = $3 }
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "n/a" }
END {
	printf "Figures from the real kernel (%s CPUs, qemu TCG; %s modules per pass)\n\n", fig["cpus"], fig["modules"]
	print "Loading the bulk modules (centiseconds summed over the passes; A/B is time of A over time of B: above 1, B is faster):"
	printf "  %-10s %9s %9s %9s   %-9s %-9s %-9s\n", "init", "busybox", "-j1", "-j2", "bb/-j1", "bb/-j2", "-j1/-j2"
	for (d = 0; d <= 2000; d += 2000) {
		b = fig["load_cs_busybox_delay" d]; j1 = fig["load_cs_j1_delay" d]; j2 = fig["load_cs_j2_delay" d]
		if (b == "") continue
		printf "  %-10s %9s %9s %9s   %-9s %-9s %-9s\n", (d ? d " us" : "instant"), b, j1, j2,
			ratio(b, j1), ratio(b, j2), ratio(j1, j2)
	}
	print ""
	printf "lsmod, %s runs with %s modules live: modrot lsmod %s cs, busybox lsmod %s cs (modrot/busybox time %s)\n",
		fig["lsmod_runs"], fig["lsmod_lines"], fig["lsmod_cs"], fig["busybox_lsmod_cs"],
		ratio(fig["lsmod_cs"], fig["busybox_lsmod_cs"])
	print ""
	print "What one load/unload cycle leaves behind (bytes; vmalloc counts each area with its guard page; per-CPU is per CPU):"
	printf "  %-10s %8s %8s %9s %8s  %s\n", "module", "SIZE", "rotting", "vmalloc", "per-CPU", "load"
	n = split("delta alpha params pcpu512 pcpu1500 failinit", mods, " ")
	for (i = 1; i <= n; i++) {
		v = fig["cycle_" mods[i]]
		if (v == "") continue
		split(v, kv, " ")
		for (k in kv) { split(kv[k], p, "="); c[p[1]] = p[2] }
		printf "  %-10s %8s %8s %9s %8s  %s\n", mods[i], c["size"], c["rot"], c["vmalloc"], c["percpu"], c["load"]
	}
}' "$1"
