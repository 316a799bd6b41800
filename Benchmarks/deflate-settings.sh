#!/usr/bin/env bash
# What zlib's settings cost a stored payload (or a state, or a tick's events):
# instructions (callgrind) and bytes per input, for a copy of a stream primed
# with the store's dictionary and one deflate, as PresetDeflate does.
#
#   bash Benchmarks/deflate-settings.sh [payload|game] [INPUT...]
#   SETTINGS="13,4,6 12,4,3" bash Benchmarks/deflate-settings.sh   (window bits, memLevel, level)
#
# The dictionary is read from the Swift source (StoredPayload's or
# StoredGameText's `dictionaryV1`). Without inputs, the payloads are the push
# policy's four golden updates. Each figure is a run of 21 rounds minus a run
# of one, divided by the extra deflates, so the start-up cancels out. Needs
# gcc, zlib's headers and valgrind (Debian's 3.19 reads gcc's DWARF).
set -euo pipefail
cd "$(dirname "$0")/.."

kind=${1:-payload}
[ $# -gt 0 ] && shift
case "$kind" in
    payload) source_file=Sources/Store/StoredPayload.swift ;;
    game) source_file=Sources/Store/StoredGameText.swift ;;
    *) echo "deflate-settings.sh: the dictionary is 'payload' or 'game', not '$kind'" >&2; exit 2 ;;
esac
inputs=("$@")
if [ ${#inputs[@]} -eq 0 ]; then
    [ "$kind" = payload ] || { echo "deflate-settings.sh: name the states or events to deflate" >&2; exit 2; }
    golden=Tests/PushPolicyTests/Golden
    inputs=("$golden/update-low.json" "$golden/update-high-hero-down.json" "$golden/update-demoted.json"
            "$golden/follower-channel-update.json")
fi
for input in "${inputs[@]}"; do [ -r "$input" ] || { echo "deflate-settings.sh: cannot read $input" >&2; exit 2; }; done
read -r -a settings <<< "${SETTINGS:-13,4,6 13,4,1 12,3,6 12,3,4 12,4,3 12,3,3 12,3,2 12,3,1 11,3,3}"
for setting in "${settings[@]}"; do
    # zlib's ranges for raw deflate: window bits 9-15, memLevel 1-9, level 0-9.
    [[ $setting =~ ^(9|1[0-5]),[1-9],[0-9]$ ]] ||
        { echo "deflate-settings.sh: '$setting' is not WINDOW_BITS,MEM_LEVEL,LEVEL (9-15, 1-9, 0-9)" >&2; exit 2; }
done
for tool in gcc valgrind; do command -v "$tool" >/dev/null || { echo "deflate-settings.sh: $tool is not installed" >&2; exit 2; }; done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The literal between `dictionaryV1: [UInt8] = Array(("""` and `"""`, as Swift
# reads a multi-line string: the closing delimiter's indentation taken off each line.
python3 - "$source_file" "$work/dictionary" <<'PY'
import sys
source = open(sys.argv[1]).read()
body = source.split('dictionaryV1: [UInt8] = Array(("""', 1)[1].split('"""', 1)[0]
lines = body.split("\n")[1:]
indent = len(lines[-1])
open(sys.argv[2], "w").write("\n".join(line[indent:] for line in lines[:-1]))
PY
gcc -O2 -o "$work/deflate-loop" Benchmarks/DeflateLoop/deflate-loop.c -lz

instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/deflate-loop" "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo "$kind dictionary, $(wc -c < "$work/dictionary") bytes; ${#inputs[@]} inputs"
printf '%-24s %10s %10s %22s\n' "window, memLevel, level" "bytes in" "bytes out" "instructions an input"
for setting in "${settings[@]}"; do
    IFS=, read -r window memory level <<< "$setting"
    read -r bytes_in bytes_out < <("$work/deflate-loop" "$window" "$memory" "$level" 1 "$work/dictionary" "${inputs[@]}")
    short=$(instructions "$window" "$memory" "$level" 1 "$work/dictionary" "${inputs[@]}")
    long=$(instructions "$window" "$memory" "$level" 21 "$work/dictionary" "${inputs[@]}")
    printf '%-24s %10d %10d %22d\n' "$((1 << window)) B, $memory, $level" "$bytes_in" "$bytes_out" \
        $(( (long - short) / (20 * ${#inputs[@]}) ))
done
