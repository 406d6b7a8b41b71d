#!/bin/sh
# check-dashboard.sh DASHBOARD.json...: each dashboard against Grafana's
# published dashboard schema (dashboard-schema.ts: @grafana/schema's types
# read as JSON), by the TypeScript compiler in strict mode, both at the
# versions package.json pins and package-lock.json locks, as
# scripts/npm-fetch.sh fetched them; run by Debian's nodejs. Every quirk
# of tsc that the check meets is here.
#
# Each dashboard becomes a TypeScript module whose line N is the JSON's
# line N: "const dashboard: ModrotDashboard = " before its first line, the
# import after its last. A fresh object literal gets tsc's excess property
# checks at every depth, so a key the schema lacks is an error, as is a
# value of another type or a required key left out. tsc's errors are
# printed with the dashboard's own path, line and column:
#   DASHBOARD.json(LINE,COLUMN): error TS....: what is wrong
# Exit 0 when every dashboard conforms; 1 when one does not; 2 when the
# check cannot run (no nodejs, the packages not fetched), saying why.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
lock=$here/package-lock.json
[ $# -gt 0 ] || { echo "usage: check-dashboard.sh DASHBOARD.json..." >&2; exit 2; }

node=$(command -v node || command -v nodejs || true)
[ -n "$node" ] || { echo "check-dashboard.sh: no nodejs (scripts/need-packages.sh nodejs)" >&2; exit 2; }
"$top/scripts/npm-fetch.sh" --check "$lock" || exit 2
modules=$("$top/scripts/npm-fetch.sh" --dir "$lock")/node_modules
tsc=$modules/typescript/bin/tsc
schema_version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$modules/@grafana/schema/package.json")
tsc_version=$(sed -n 's/^    "version": "\(.*\)",$/\1/p' "$modules/typescript/package.json")
[ -f "$tsc" ] || { echo "check-dashboard.sh: $tsc missing: the fetch in $modules is not whole" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/check-dashboard.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM
ln -s "$modules" "$work/node_modules"
cp "$here/dashboard-schema.ts" "$work/schema.ts"
# module (preserve) and moduleResolution (bundler) follow the package's
# "exports" map, as Grafana's own build does; skipLibCheck stays off, so a
# type of the package that does not resolve is an error rather than a
# silent any; no @types, no DOM.
cat > "$work/tsconfig.json" <<-'EOF'
	{
	  "compilerOptions": {
	    "strict": true,
	    "exactOptionalPropertyTypes": true,
	    "noEmit": true,
	    "skipLibCheck": false,
	    "target": "es2022",
	    "lib": ["es2022"],
	    "module": "preserve",
	    "moduleResolution": "bundler",
	    "types": []
	  },
	  "include": ["*.ts"]
	}
EOF

i=0
: > "$work/names"
for json in "$@"; do
	i=$((i + 1))
	# JSON first: TypeScript would also take comments and trailing commas
	"$node" -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$json" 2> "$work/err" || {
		echo "$json: not JSON: $(grep -m1 -E 'Error' "$work/err")"
		exit 1
	}
	{
		printf 'const dashboard: ModrotDashboard = '
		cat "$json"
		printf ';\nexport { dashboard };\nimport type { ModrotDashboard } from "./schema";\n'
	} > "$work/d$i.ts"
	printf 'd%s.ts\t%s\n' "$i" "$json" >> "$work/names"
done

status=0
(cd "$work" && exec timeout 300 "$node" "$tsc" -p . --pretty false) > "$work/out" 2>&1 || status=$?
# tsc's paths are the modules': give each error its dashboard's path
awk -F '\t' 'NR == FNR { name[$1] = $2; next }
	{ for (m in name) if (index($0, m "(") == 1) { $0 = name[m] substr($0, length(m) + 1); break } print }' \
	"$work/names" "$work/out"
case $status in
0)
	for json in "$@"; do
		echo "$json: conforms to Grafana's dashboard schema (@grafana/schema $schema_version, tsc $tsc_version --strict)"
	done
	;;
1 | 2) exit 1 ;;
124) echo "check-dashboard.sh: tsc ran past 300 s" >&2; exit 2 ;;
*) echo "check-dashboard.sh: tsc exited $status" >&2; exit 2 ;;
esac
