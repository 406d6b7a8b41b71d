#!/usr/bin/env bash
# The modrot.rot Ansible collection on a fleet of 20 simulated hosts (each
# its own kernel, reached by a local connection): how long gathering the
# rot facts takes, and reclaiming every host to a ceiling, with Ansible's
# default 5 forks and with one fork per host. Debian's ansible-core.
. "$(dirname "$0")/common.sh"
"$top/scripts/need-packages.sh" ansible-core
H=${BENCH_HOSTS:-20}
: "${BENCH_PREPARED_RUNS:=3}"

# Each host: 200 live modules, 100 rotting instances (a busy machine).
hosts=$(seq -f 'h%02g' 1 "$H" | tr '\n' ' ')
fresh="for h in $hosts; do rm -rf $BENCH_TMP/\$h && $SIM create $BENCH_TMP/\$h --mode rot && $SIM populate $BENCH_TMP/\$h --live 200 --rotting 100 --seed \${h#h}; done"
sh -c "$fresh"

{
	echo "[fleet]"
	for h in $hosts; do echo "$h modrot_kernel=$BENCH_TMP/$h"; done
	echo "[fleet:vars]"
	echo "ansible_connection=local"
	echo "ansible_python_interpreter=/usr/bin/python3"
	echo "modrot_env={\"SIMKERNEL_DIR\": \"{{ modrot_kernel }}\", \"LD_PRELOAD\": \"$PRELOAD\"}"
	echo "modrot_tools_dir=$build/tools"
} > "$BENCH_TMP/inventory"
for play in facts reap; do
	cat > "$BENCH_TMP/$play.yml" <<-PLAY
		- hosts: fleet
		  gather_facts: false
		  environment: "{{ modrot_env }}"
		  module_defaults:
		    group/modrot.rot.modrot:
		      tools_dir: "{{ modrot_tools_dir }}"
		  tasks:
		    - modrot.rot.$( [ $play = facts ] && echo 'modrot_facts:' || echo 'modrot_reap: {ceiling: 256K}')
	PLAY
done
: > "$BENCH_TMP/ansible.cfg"
export ANSIBLE_CONFIG=$BENCH_TMP/ansible.cfg ANSIBLE_COLLECTIONS_PATH=$top/ansible \
	ANSIBLE_HOME=$BENCH_TMP/ansible-home ANSIBLE_LOCAL_TEMP=$BENCH_TMP/ansible-tmp
play="ansible-playbook -i $BENCH_TMP/inventory"

echo "# $H hosts, each 200 live modules and 100 rotting instances; $(nproc) CPUs"
hyperfine --warmup 1 --runs "$BENCH_PREPARED_RUNS" --style none --export-json "$BENCH_TMP/facts.json" \
	-n "facts, 5 forks" "$play -f 5 $BENCH_TMP/facts.yml" \
	-n "facts, $H forks" "$play -f $H $BENCH_TMP/facts.yml" >/dev/null
bench_table "$BENCH_TMP/facts.json"
echo
hyperfine --runs "$BENCH_PREPARED_RUNS" --prepare "$fresh" --style none --export-json "$BENCH_TMP/reap.json" \
	-n "reap to 256K, 5 forks" "$play -f 5 $BENCH_TMP/reap.yml" \
	-n "reap to 256K, $H forks" "$play -f $H $BENCH_TMP/reap.yml" >/dev/null
bench_table "$BENCH_TMP/reap.json"
echo
echo "ceiling held on every host after the last run:"
for h in $hosts; do
	"$SIM" state "$BENCH_TMP/$h" | awk -v h="$h" '$1 == "rotting" { s += $3 } END { if (s > 262144) { print h " still " s; exit 1 } }'
	"$SIM" ledger "$BENCH_TMP/$h" --check > /dev/null
done && echo "yes, and every ledger checks"
