#!/usr/bin/env bash
# CLI throughput against the library in memory and against `cat` (BENCHMARKS.md, "CLI").
# Usage: scripts/cli-bench.sh [INPUT_DIR]   (inputs from scripts/cli-bench-inputs.sh)
# Prints medians of 7 runs, interleaved, warm page cache.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/cli-bench}
[ -s "$dir/big.txt" ] || scripts/cli-bench-inputs.sh "$dir" > /dev/null
cargo build --release -q -p utf8kit-cli -p utf8kit-bench
bin=target/release/utf8kit
runs=7

# Median wall time in seconds of a command (run $runs times, interleaved by the caller).
declare -A samples
time_one() { # name command...
  local name=$1; shift
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null
  end=$(date +%s.%N)
  samples[$name]+="$(echo "$end - $start" | bc) "
}
median() { tr ' ' '\n' <<< "${samples[$1]}" | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

big_bytes=$(stat -c %s "$dir/big.txt")
tree_bytes=$(find "$dir/tree" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
tree_files=$(find "$dir/tree" -type f | wc -l)
cat "$dir/big.txt" > /dev/null   # warm the cache
for _ in $(seq $runs); do
  time_one cat_big cat "$dir/big.txt"
  time_one cli_big "$bin" validate "$dir/big.txt"
  time_one cat_tree sh -c "find '$dir/tree' -type f -print0 | xargs -0 cat"
  time_one cli_tree "$bin" validate "$dir/tree"
  time_one cli_tree_j1 "$bin" validate -j 1 "$dir/tree"
done

gbs() { echo "scale=2; $1 / $2 / 1000000000" | bc; }
echo "big.txt: $big_bytes bytes; tree: $tree_files files, $tree_bytes bytes; medians of $runs"
for name in cat_big cli_big; do printf '%-12s %8.3f s  %6s GB/s\n' $name "$(median $name)" "$(gbs $big_bytes "$(median $name)")"; done
for name in cat_tree cli_tree cli_tree_j1; do printf '%-12s %8.3f s  %6s GB/s\n' $name "$(median $name)" "$(gbs $tree_bytes "$(median $name)")"; done
echo "library in memory:"
target/release/in_memory "$dir/big.txt"
target/release/in_memory "$dir/tree"
echo "CPU use of the tree run (user+sys over wall; 2.0 = both cores busy):"
/usr/bin/time -f '%e s wall, %U s user, %S s sys, %P CPU' "$bin" validate "$dir/tree" 2>&1 >/dev/null | tail -1
