#!/usr/bin/env bash
# Generates the inputs of the CLI benchmarks (BENCHMARKS.md, "CLI"):
#   $OUT/big.txt   1 GiB of valid multilingual UTF-8 (the lipsum corpus, repeated)
#   $OUT/tree/     10,000 small valid files in 100 directories
# Usage: scripts/cli-bench-inputs.sh [OUT_DIR]   (default: target/cli-bench)
# The inputs are generated, never committed.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/cli-bench}
corpus=${UTF8KIT_CORPUS:-../shared/corpus/lipsum}
mkdir -p "$out"

if [ ! -s "$out/big.txt" ]; then
  python3 - "$corpus" "$out/big.txt" <<'PY'
import glob, os, sys
corpus, target = sys.argv[1], sys.argv[2]
one = b"".join(open(f, "rb").read() for f in sorted(glob.glob(os.path.join(corpus, "*.utf8.txt"))))
size = 1 << 30
with open(target, "wb") as f:
    written = 0
    while written + len(one) <= size:
        f.write(one)
        written += len(one)
    # Fill the rest, cutting on a character boundary (never inside a sequence).
    rest = one[: size - written]
    while rest and (rest[-1] & 0xC0) == 0x80 or (rest and rest[-1] >= 0xC0):
        rest = rest[:-1]
    f.write(rest)
PY
fi

if [ ! -d "$out/tree" ]; then
  mkdir -p "$out/tree"
  files=("$corpus"/*.utf8.txt)
  for d in $(seq -w 0 99); do
    mkdir -p "$out/tree/d$d"
    for f in $(seq -w 0 99); do
      src=${files[$(( (10#$d * 100 + 10#$f) % ${#files[@]} ))]}
      # 1-8 KiB slices, cut on a line boundary so each file stays valid.
      head -n $(( (10#$f % 8) + 1 )) "$src" > "$out/tree/d$d/f$f.txt"
    done
  done
fi
ls -la "$out" && du -sh "$out/tree"
