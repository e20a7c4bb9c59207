#!/usr/bin/env bash
#
# test/doclinks.sh - check the links between the repository's markdown pages
#
#   bash test/doclinks.sh            every tracked *.md file
#   bash test/doclinks.sh FILE...    those files
#
# For each link [text](target) outside fenced code, with a target that is
# not a URL: the file it names (relative to the page) must exist, and its
# #anchor, if any, must be the GitHub-style slug of a heading of that file
# (lowercased, punctuation other than '-' and '_' dropped, spaces turned
# into '-', a repeated slug numbered -1, -2, ...).  Prints each dead link
# as FILE:LINE: TARGET (reason) and exits 1 if there is one.  Needs bash,
# GNU sed and awk only; run from anywhere (make doccheck runs it).

set -uo pipefail
export LC_ALL=C.UTF-8

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

# the anchors of a markdown file, one per line
anchors() {
	awk '/^```/ { fence = !fence; next } !fence && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
		sed -e 's/\[\([^]]*\)\]([^)]*)/\1/g' -e 's/.*/\L&/' -e 's/[^[:alnum:] _-]//g' -e 's/ /-/g' |
		awk '{ n = seen[$0]++; print (n ? $0 "-" n : $0) }'
}

# "LINE<TAB>TARGET" for every link of a file, outside fenced code
links() {
	awk '/^```/ { fence = !fence; next }
	     !fence {
		line = $0
		gsub(/`[^`]*`/, "", line)          # no links inside inline code
		while (match(line, /\]\([^) ]+\)/)) {
			print NR "\t" substr(line, RSTART + 2, RLENGTH - 3)
			line = substr(line, RSTART + RLENGTH)
		}
	     }' "$1"
}

if [[ $# -gt 0 ]]; then
	files=("$@")
else
	mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.md' 2>/dev/null || find . -name '*.md' -not -path './.git/*')
fi

dead=0
checked=0
declare -A cache
for f in "${files[@]}"; do
	dir=$(dirname "$f")
	while IFS=$'\t' read -r line target; do
		case "$target" in
		http://* | https://* | mailto:* | ftp://*) continue ;;
		esac
		checked=$((checked + 1))
		path=${target%%#*}
		anchor=
		[[ $target == *#* ]] && anchor=${target#*#}
		if [[ -z $path ]]; then
			dest=$f
		else
			dest=$dir/$path
		fi
		if [[ ! -e $dest ]]; then
			echo "$f:$line: $target (no such file)"
			dead=$((dead + 1))
			continue
		fi
		[[ -z $anchor ]] && continue
		if [[ -d $dest || $dest != *.md ]]; then
			echo "$f:$line: $target (an anchor into a file that is not markdown)"
			dead=$((dead + 1))
			continue
		fi
		key=$(realpath -m "$dest")
		if [[ -z ${cache[$key]+x} ]]; then
			cache[$key]=$'\n'"$(anchors "$dest")"$'\n'
		fi
		if [[ ${cache[$key]} != *$'\n'"$anchor"$'\n'* ]]; then
			echo "$f:$line: $target (no heading with that anchor)"
			dead=$((dead + 1))
		fi
	done < <(links "$f")
done

echo "doclinks: ${#files[@]} files, $checked links, $dead dead"
[[ $dead -eq 0 ]]
