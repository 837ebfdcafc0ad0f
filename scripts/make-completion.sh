#!/usr/bin/env bash
# Writes the bash completion for dossier to stdout, from the binary itself: the commands from
# `dossier help`, each command's options and subcommands from `dossier COMMAND --help` (CLI11's
# layout), and the values of options that list them (`--format TEXT:{md,json}`). Run at build
# time (packaging/CMakeLists.txt), so the completion cannot drift from the command table.
# usage: scripts/make-completion.sh path/to/dossier > dossier.bash
set -euo pipefail
bin=$1
commands=$("$bin" help | awk '/^  [a-z]/ {print $1}')
[ -n "$commands" ] || { echo "make-completion: no commands in '$bin help'" >&2; exit 1; }

echo "# bash completion for dossier (generated from its --help by scripts/make-completion.sh)"
echo "_dossier() {"
echo '  local cur prev cmd'
echo '  cur=${COMP_WORDS[COMP_CWORD]}'
echo '  prev=${COMP_WORDS[COMP_CWORD-1]}'
echo '  cmd=${COMP_WORDS[1]}'
echo '  if [ "$COMP_CWORD" -eq 1 ]; then'
echo "    COMPREPLY=(\$(compgen -W \"$(echo $commands) --help --version\" -- \"\$cur\"))"
echo '    return'
echo '  fi'
echo '  case "$cmd" in'
for c in $commands; do
  help=$("$bin" "$c" --help 2>/dev/null || true)
  opts=$(printf '%s\n' "$help" | awk '/^Options:/ {o=1; next} /^[A-Z][a-z]*:/ {o=0} o && /^  -/' |
    { grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' || true; } | tr -d ' ,' | sort -u | tr '\n' ' ')
  # Commands that are tables of their own (note's subcommands, generate's generators).
  subs=$(printf '%s\n' "$help" | awk '/^(Subcommands|generators):/ {s=1; next} /^[A-Za-z][a-z]*:/ {s=0} s && /^  [a-z]/ {print $1}' |
    tr '\n' ' ')
  # A hand-written usage line ("usage: dossier generate NAME [--dossier DIR] ...") lists options too.
  if [ -z "$opts" ]; then
    opts=$(printf '%s\n' "$help" | { grep -i '^usage:' || true; } | { grep -oE -- '--[A-Za-z][A-Za-z0-9-]*' || true; } |
      sort -u | tr '\n' ' ')
  fi
  # Options whose values CLI11 lists: "--format TEXT:{md,json}".
  values=$(printf '%s\n' "$help" | grep -oE -- '--[A-Za-z0-9-]+ [A-Z]+:\{[^}]*\}' || true)
  echo "    $c)"
  if [ -n "$values" ]; then
    echo '      case "$prev" in'
    while IFS= read -r v; do
      name=${v%% *}
      list=$(echo "$v" | sed -E 's/.*\{(.*)\}/\1/; s/,/ /g')
      echo "        $name) COMPREPLY=(\$(compgen -W \"$list\" -- \"\$cur\")); return ;;"
    done <<<"$values"
    echo '      esac'
  fi
  echo "      COMPREPLY=(\$(compgen -W \"$opts$subs\" -- \"\$cur\"))"
  echo '      [ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))'
  echo '      ;;'
done
echo '  esac'
echo '}'
echo 'complete -F _dossier dossier'
