#!/usr/bin/env bash
# Regenerates the custom Live Activity alert sounds in this folder.
#
#   HeroDown.caf        falling, urgent swoops: a hero is down, use a potion!
#   BossDefeated.caf    bright rising arpeggio
#   Victory.caf         triumphant major arpeggio and final chord
#   Defeat.caf          slow descending minor phrase
#   AdventureStart.caf  short two-note chime
#
# Requires sox with CAF support (Debian/Ubuntu: apt-get install sox libsox-fmt-all).
# Output: Core Audio Format, 16-bit linear PCM, mono, 22050 Hz, peaks at -3 dBFS.
# iOS plays custom notification sounds of up to 30 s; keep these short.
#
# To tweak a sound, edit its section below (notes, onsets, lengths, timbres)
# and run this script again.
set -euo pipefail

cd "$(dirname "$0")"

command -v sox >/dev/null || { echo "sox is not installed" >&2; exit 1; }
sox -h | grep -qw caf || { echo "this sox cannot write .caf (install libsox-fmt-all)" >&2; exit 1; }

SYNTH_RATE=44100   # rate used while synthesising
OUT_RATE=22050     # rate of the delivered files
PEAK_DB=-3         # normalisation target (dBFS)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# hz NOTE: note name (C4, F#5, Eb3; C4 = middle C) to frequency in Hz.
hz() {
  local letter=${1:0:1} rest=${1:1} semi acc=0
  case $letter in
    C) semi=0 ;; D) semi=2 ;; E) semi=4 ;; F) semi=5 ;;
    G) semi=7 ;; A) semi=9 ;; B) semi=11 ;;
    *) echo "bad note: $1" >&2; exit 1 ;;
  esac
  case $rest in
    \#*) acc=1;  rest=${rest:1} ;;
    b*)  acc=-1; rest=${rest:1} ;;
  esac
  awk -v m=$(( (rest + 1) * 12 + semi + acc )) 'BEGIN { printf "%.3f", 440 * 2 ^ ((m - 69) / 12) }'
}

# Timbres: partial frequency ratios and their weights.
#   soft    mellow, mostly fundamental
#   bright  more overtones, cuts through a phone speaker
#   bell    inharmonic partials of a small bell
timbre() {
  case $1 in
    soft)   RATIOS=(1 2 3);          WEIGHTS=(0.80 0.15 0.05) ;;
    bright) RATIOS=(1 2 3 4);        WEIGHTS=(0.55 0.25 0.12 0.08) ;;
    bell)   RATIOS=(1 2 2.76 5.40);  WEIGHTS=(0.60 0.22 0.12 0.06) ;;
    *) echo "bad timbre: $1" >&2; exit 1 ;;
  esac
}

# Envelopes (sox fade arguments for a note of length $1):
#   struck  5 ms attack, then decays over the whole note (plucks, bells)
#   held    10 ms attack, sustains, releases over the last 40 %
envelope() {
  local len=$1
  case $2 in
    struck) awk -v l="$len" 'BEGIN { printf "l 0.005 %s %.3f", l, l - 0.005 }' ;;
    held)   awk -v l="$len" 'BEGIN { printf "q 0.010 %s %.3f", l, l * 0.4 }' ;;
    *) echo "bad envelope: $2" >&2; exit 1 ;;
  esac
}

PARTS=()   # files to be mixed into the current sound
N=0

# tone ONSET LENGTH FROM TO TIMBRE ENVELOPE [EXTRA SOX EFFECTS...]
# Adds one tone starting ONSET seconds in. FROM and TO are note names;
# when they differ the pitch glides (exponentially) from FROM to TO.
tone() {
  local onset=$1 len=$2 from to env i synth=() mix=""
  from=$(hz "$3"); to=$(hz "$4"); timbre "$5"; env=$(envelope "$len" "$6")
  shift 6
  for i in "${!RATIOS[@]}"; do
    synth+=(sine "$(awk -v f="$from" -v t="$to" -v r="${RATIOS[$i]}" \
      'BEGIN { if (f == t) printf "%.3f", f * r; else printf "%.3f/%.3f", f * r, t * r }')")
    mix+="${mix:+,}$((i + 1))v${WEIGHTS[$i]}"
  done
  N=$((N + 1))
  # shellcheck disable=SC2086
  sox -n -r "$SYNTH_RATE" -e floating-point -b 32 "$WORK/part$N.wav" \
    synth "$len" "${synth[@]}" remix "$mix" fade $env "$@" pad "$onset"
  PARTS+=("$WORK/part$N.wav")
}

# note ONSET LENGTH NOTE TIMBRE ENVELOPE [EXTRA SOX EFFECTS...]: a tone at a fixed pitch.
note() { tone "$1" "$2" "$3" "$3" "${@:4}"; }

# render NAME REVERB: mixes the tones added since the last render into NAME.caf.
# REVERB is the sox reverberance (0 = dry); a short tail is added for it.
render() {
  local name=$1 reverb=$2 mixed="$WORK/$1-mix.wav"
  if [ "${#PARTS[@]}" -eq 1 ]; then
    cp "${PARTS[0]}" "$mixed"
  else
    sox -m "${PARTS[@]}" "$mixed"
  fi
  local tail=0 len fx=(highpass 120)
  if [ "$reverb" -gt 0 ]; then tail=0.3; fx+=(pad 0 "$tail" reverb "$reverb" 50 60 channels 1); fi
  len=$(awk -v d="$(soxi -D "$mixed")" -v t="$tail" 'BEGIN { printf "%.3f", d + t }')
  # Short fades at both ends so the sound never starts or stops with a click.
  sox "$mixed" -r "$OUT_RATE" -c 1 -e signed-integer -b 16 -t caf "$name.caf" \
    "${fx[@]}" fade q 0.003 "$len" 0.08 rate -v "$OUT_RATE" gain -n "$PEAK_DB"
  PARTS=()
  echo "wrote $name.caf"
}

# HeroDown: two quick falling swoops, then a longer drop of an octave.
tone 0.00 0.20 B5 E5 bright held
tone 0.26 0.20 B5 E5 bright held
tone 0.52 0.60 A5 A4 bright held tremolo 9 25
render HeroDown 15

# BossDefeated: G-C-E-G-C arpeggio racing upwards, landing on a bright C6/E6 dyad.
note 0.00 0.30 G4 bright struck
note 0.08 0.30 C5 bright struck
note 0.16 0.30 E5 bright struck
note 0.24 0.30 G5 bright struck
note 0.32 0.30 C6 bright struck
note 0.42 0.70 C6 bright struck
note 0.42 0.70 E6 bright struck
render BossDefeated 30

# Victory: C major arpeggio, a pick-up note, then a full sustained C major chord.
note 0.00 0.32 C5 bright struck
note 0.13 0.32 E5 bright struck
note 0.26 0.32 G5 bright struck
note 0.39 0.25 C6 bright struck
note 0.56 0.12 G5 bright held
note 0.72 1.45 C4 soft held tremolo 5 15
note 0.72 1.45 C5 bright held tremolo 5 15
note 0.72 1.45 E5 bright held tremolo 5 15
note 0.72 1.45 G5 bright held tremolo 5 15
note 0.72 1.45 C6 bright held tremolo 5 15
render Victory 40

# Defeat: slow G-Eb-C (C minor) descent; the last note sags and wobbles.
note 0.00 0.48 G4 soft held
note 0.48 0.48 Eb4 soft held
tone 0.96 1.05 C4 B3 soft held tremolo 6 35
render Defeat 30

# AdventureStart: two bell strikes a fifth apart.
note 0.00 0.90 E5 bell struck
note 0.14 1.00 B5 bell struck
render AdventureStart 25
