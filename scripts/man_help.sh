#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# man_help.sh: a man page made from a program's own --help, so that page and program never
# disagree (cmake/DevoMan.cmake runs it at build time). One page per command, as git has them:
#   man_help.sh [-n WHAT] -o FILE DEVO            devo(1): the commands of `devo --help`
#   man_help.sh -o FILE DEVO COMMAND              devo-COMMAND(1) from `devo COMMAND --help`
#   man_help.sh [-n WHAT] -o FILE PROG            PROG(1) (etc-gen)
# The help texts share one layout, which the awk below reads: "usage: " and the synopsis (a line
# indented by 7 is another form, a deeper one continues the form); headings at column 0 ending
# in ':'; items "  --opt ARG   text" with their text's continuation lines aligned under it, and
# lines deeper than that a table kept as it is (the presets of --algorithm). help2man, used
# before, ran a continued usage into DESCRIPTION and flattened those tables.
set -euo pipefail
what=
out=
while getopts n:o: opt; do
  case $opt in
  n) what=$OPTARG ;;
  o) out=$OPTARG ;;
  *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ] || [ -z "$out" ]; then
  echo "usage: man_help.sh [-n WHAT] -o FILE PROG [COMMAND]" >&2
  exit 2
fi
prog=$1
cmd=${2:-}
base=$(basename "$prog")
version=$("$prog" --version | head -n 1) # "devo 0.1.0"
# devo's commands, from its own list (serve is there only when it was built)
commands=$(if [ "$base" = devo ]; then
  "$prog" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
fi)
if [ -n "$cmd" ]; then
  page=$base-$cmd
  invocation="$base $cmd"
  help=$("$prog" "$cmd" --help)
  what=$(printf '%s\n' "$commands" | grep -qx -- "$cmd" &&
    "$prog" --help | sed -n "s/^  $cmd  *//p")
  if [ -z "$what" ]; then
    echo "man_help.sh: '$cmd' is not a command of $prog --help" >&2
    exit 1
  fi
else
  page=$base
  invocation=$base
  help=$("$prog" --help)
fi
# SEE ALSO: devo(1) and the commands this page names ("devo rank"); devo(1) names them all
see=
for c in $commands; do
  if [ -z "$cmd" ] || { [ "$c" != "$cmd" ] && grep -q "devo $c\b" <<<"$help"; }; then
    see="$see $base-$c"
  fi
done
case $page in
devo) see="$see etc-gen" ;;
devo-*) see="devo$see" ;;
esac
case $page in
devo-schedule) see="$see etc-gen" ;;
etc-gen) see="devo devo-schedule" ;;
esac
date=$(date -u ${SOURCE_DATE_EPOCH:+-d "@$SOURCE_DATE_EPOCH"} +"%B %Y")

tmp=$out.tmp
printf '%s\n' "$help" | awk -v page="$page" -v what="$what" -v version="$version" \
  -v date="$date" -v inv="$invocation" -v see="$see" -v top="$([ "$page" = devo ] && echo 1)" '
function esc(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); return s }
function raw(s) { s = esc(s); return s ~ /^[.\047]/ ? "\\&" s : s }
function text(s) { sub(/^ +/, "", s); return raw(s) }
function ind(s) { match(s, /^ */); return RLENGTH }
# a tag: option words bold; in devo(1) a command is its page, as git(1) shows them
function tag(s,   n, w, i, r) {
  if (top && in_cmds) return "\\fB" esc("devo-" s) "\\fR(1)"
  n = split(s, w, " ")
  for (i = 1; i <= n; ++i)
    r = r (i > 1 ? " " : "") (w[i] ~ /^-/ ? "\\fB" esc(w[i]) "\\fR" : esc(w[i]))
  return r
}
# an item "  HEAD  TEXT" (or HEAD TEXT with the text at the column of the others): sets ihead,
# itext and icol (the text column), else returns 0
function item(s,   k, t, c) {
  k = ind(s)
  if (k == 0 || k >= 8) return 0
  t = substr(s, k + 1)
  if (match(t, /[^ ]  +[^ ]/)) {
    ihead = substr(t, 1, RSTART); itext = substr(t, RSTART + RLENGTH - 1)
    icol = k + RSTART + RLENGTH - 2
    return 1
  }
  if (t !~ /^-/ || !D) return 0
  for (c = D - 1; c <= D + 1; ++c)
    if (c > k + 1 && substr(s, c, 1) == " " && substr(s, c + 1, 1) != " ") {
      ihead = substr(s, k + 1, c - k - 1); itext = substr(s, c + 1); icol = c
      return 1
    }
  return 0
}
function heading(i) {
  return L[i] ~ /^[^ ].*:$/ && (L[i] ~ /^[a-z]/ || (L[i + 1] ~ /^ +-/ && item(L[i + 1])))
}
function endpre() { if (pre) { print ".fi"; print ".RE"; pre = 0 } }
# NAME and SYNOPSIS: each form of the usage on one line, the words of the program bold
function head(   i, f, s, nf, F, T) {
  nf = 1; F[1] = substr(L[1], 8)
  for (i = 2; i <= n && L[i] != ""; ++i) {
    if (L[i] ~ /^       [^ ]/) F[++nf] = substr(L[i], 8)
    else if (L[i] ~ /^ /) { s = L[i]; sub(/^ +/, "", s); F[nf] = F[nf] " " s }
    else break
  }
  T = toupper(page); gsub(/-/, "\\-", T)
  printf ".TH %s 1 \"%s\" \"%s\" \"User Commands\"\n", T, date, version
  print ".\\\" made from " inv " --help by scripts/man_help.sh"
  print ".nh"; print ".ad l"
  print ".SH NAME"; print esc(page) " \\- " esc(what)
  print ".SH SYNOPSIS"
  for (f = 1; f <= nf; ++f) {
    print ".PP"
    s = F[f]
    if (index(s, inv " ") == 1 || s == inv) {
      print "\\fB" esc(inv) "\\fR"
      s = substr(s, length(inv) + 2)
    }
    if (s != "") print text(s)
  }
  return i
}
function seealso(   S, j) {
  if (split(see, S, " ") == 0) return
  print ".SH \"SEE ALSO\""
  for (j = 1; S[j] != ""; ++j) printf "\\fB%s\\fR(1)%s\n", esc(S[j]), S[j + 1] != "" ? "," : ""
}
{ L[++n] = $0 }
END {
  if (L[1] !~ /^usage: /) {
    print "man_help.sh: " page ": its --help does not start with usage:" > "/dev/stderr"
    exit 1
  }
  body = head()
  # D: the column where the items texts continue (the most frequent deep indentation)
  for (j = body; j <= n; ++j) if ((k = ind(L[j])) >= 8) cnt[k]++
  best = 0; for (k in cnt) if (cnt[k] > best) { best = cnt[k]; D = k + 0 }
  print ".SH DESCRIPTION"
  state = ""; insect = 0
  if (top) {
    print toupper(substr(what, 1, 1)) esc(substr(what, 2)) "."
    print "Each command has a page of its own, \\fBdevo\\-\\fR\\fICOMMAND\\fR(1), and its own"
    print "\\fB\\-\\-help\\fR (\\fBdevo help\\fR \\fICOMMAND\\fR is the same)."
  }
  for (i = body; i <= n; ++i) {
    s = L[i]
    if (s == "") { endpre(); state = ""; continue }
    k = ind(s)
    if (k == 0 && (s ~ /^Exit( codes)?: /)) {
      endpre(); print ".SH \"EXIT STATUS\""; sub(/^Exit( codes)?: /, "", s)
      print text(s); state = "prose"; insect = 1; continue
    }
    if (k == 0 && heading(i)) {
      endpre(); h = substr(s, 1, length(s) - 1)
      in_cmds = h == "commands"
      if (h == "options" || h == "commands") { print ".SH " toupper(h); insect = 1 }
      else {
        if (!insect) { print ".SH OPTIONS"; insect = 1 }
        print ".SS " esc(h)
      }
      state = ""; continue
    }
    if (k == 0) {
      endpre()
      if (state != "prose") print ".PP"
      print text(s); state = "prose"; continue
    }
    if (state == "item" && k >= (icol < D || !D ? icol : D)) {
      if (k > (icol > D ? icol : D)) { # a table under the item: as it is, less its indent
        if (!pre) { print ".RS"; print ".nf"; pre = 1; pind = k }
        print raw(sprintf("%" (k - pind) "s", "") substr(s, k + 1))
        continue
      }
      endpre(); print text(s); continue
    }
    endpre()
    if (item(s)) {
      if (!insect && ihead ~ /^-/) { print ".SH OPTIONS"; insect = 1 }
      print ".TP"; print tag(ihead); print text(itext)
      state = "item"; continue
    }
    if (state == "para" && k > pk) { print text(s); continue }
    print ".IP"; print text(s); state = "para"; pk = k
  }
  endpre()
  seealso()
}' >"$tmp"
mv "$tmp" "$out"
