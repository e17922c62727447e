#!/bin/bash
# description: the README's source tour names every source file of the tree in its folder's part (a header named as its .c file is, foo.h with foo.c), and only files and folders that exist
SUITE=source-tour
. "$(dirname "$0")/lib.sh"

R=$(cd "$(dirname "$0")/../.." && pwd)
cd "$R" || exit 1
# the tour: the code block of README.md's "## Source layout"
awk '/^## Source layout/ { on = 1; next } on && /^## / { exit } on' README.md |
	awk '/^```/ { n++; next } n == 1' > "$W/tour"
[ -s "$W/tour" ] && ok "README.md has a source tour" || not_ok "README.md has no source tour"

# part FOLDER: the tour's lines from FOLDER's line to the next folder's
part() {
	awk -v f="$1" '/^[a-z0-9_.]+(\/[a-z0-9_]+)*\/? / || /^[a-z0-9_.]+\/?$/ { on = (index($0, f) == 1) } on' "$W/tour"
}
missing=
n_files=0
while read -r path; do
	top=${path%%/*}
	case $path in
	include/usertrace/*) top=include/usertrace ;;
	esac
	[ "$top" = "$path" ] && top=$path
	base=${path##*/}
	n_files=$((n_files + 1))
	# a header goes with its .c file of the same name
	other=$base
	[[ $base == *.h ]] && [ -f "${path%.h}.c" ] && other=${base%.h}.c
	if ! part "$top" | grep -qw -- "${base//./\\.}" && ! part "$top" | grep -qw -- "${other//./\\.}"; then
		# a built-in event system's header: named by its system in events/'s line
		stem=${base%.h}
		if [[ $path == include/usertrace/events/* ]] && part "$top" | grep -q "events/" &&
		   part "$top" | grep -qw -- "$stem"; then
			continue
		fi
		missing="$missing $path"
	fi
done < <(git ls-files -- 'usertrace.c' 'include/usertrace/*' 'lib/*' 'arch/*' 'runtime/*' 'recorder/*' \
	'reader/*' 'output/*' 'export/*' 'tracefs/*' 'cli/*' 'utils/*' | grep -E '\.(c|h|S|def|cc)$')
if [ -z "$missing" ]; then
	ok "every one of the $n_files source files is named in its folder's part of the tour"
else
	not_ok "not in the tour:$missing"
fi

# the other way: a file the tour names exists
stale=
for name in $(grep -oE '\b[a-z0-9_-]+\.(c|h|S|def)\b' "$W/tour" | sort -u); do
	git ls-files | grep -q "/$name\$\|^$name\$" || grep -q "build/gen/$name" "$W/tour" || stale="$stale $name"
done
if [ -z "$stale" ]; then
	ok "every file the tour names exists"
else
	not_ok "the tour names files that do not exist:$stale"
fi
# and each folder it names
stale=
for d in $(grep -oE '^[a-z_.]+(/[a-z_0-9]+)*/' "$W/tour" | sort -u); do
	[ -d "$d" ] || stale="$stale $d"
done
[ -z "$stale" ] && ok "every folder the tour names exists" || not_ok "folders that do not exist:$stale"

echo "# $SUITE: $n tests"
