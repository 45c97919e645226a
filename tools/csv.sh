# csv.sh - shell helpers the report scripts share (sourced, not run)
# shellcheck shell=sh

# tsv CSV - the CSV as tab-separated fields (RFC 4180 quotes undone: the
# options of a codec spec hold commas); the awk programs read this
tsv() {
	awk '{
		out = ""; q = 0
		for (i = 1; i <= length($0); i++) {
			ch = substr($0, i, 1)
			if (q && ch == "\"" && substr($0, i + 1, 1) == "\"") { out = out ch; i++ }
			else if (ch == "\"") q = !q
			else if (!q && ch == ",") out = out "\t"
			else out = out ch
		}
		print out
	}' "$1"
}
