# sql/new_objects.awk - the blocks of sql/objects/*.sql that an update
# script to VERSION must run (make passes -v version=VERSION):
#
#   awk -v version=0.4.0 -f sql/new_objects.awk sql/objects/*.sql
#
# A block starts at a line "-- Availability: V" (the object is new in V)
# or "-- Availability: V, changed W" (its definition changed in W: it is
# written with CREATE OR REPLACE) and runs to the next such line, the next
# section rule ("-- -----") or the end of its file.  Blocks whose V or W is
# VERSION are printed, each after a line naming its file, in the order of
# the install script: every object is written once, in sql/objects, and
# the update script is that text, never a copy kept by hand.

function marks(line,    rest) {
	rest = line
	sub(/^-- Availability: /, "", rest)
	# "0.4.0", "0.4.0 (note)", "0.2.0, changed 0.4.0", ...
	return rest ~ ("^" v "([^0-9.]|$)") || rest ~ ("changed " v "([^0-9.]|$)")
}

BEGIN {
	v = version
	gsub(/\./, "\\.", v)
	if (version == "") {
		print "new_objects.awk: no version (-v version=X.Y.Z)" > "/dev/stderr"
		exit 2
	}
}
FNR == 1 { inblock = 0 }
/^-- -----/ { inblock = 0 }
/^-- Availability: / {
	inblock = marks($0)
	if (inblock) {
		if (FILENAME != shown) {
			printf "\n-- (%s)\n", FILENAME
			shown = FILENAME
		}
		print ""
	}
}
inblock { print }
