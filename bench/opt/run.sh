#!/bin/sh
# Runtime and compile time of dwarfsmith's -O2 from clang -O0 IR against clang-19 -O2
# (run time) and opt-19 -O2 | llc-19 -O2 (compile time of the same -O0 IR).
# Usage: bench/opt/run.sh [path/to/dwarfsmith]   (default: target/release/dwarfsmith)
# Prints, per program: median of 5 runs (s) of ours and clang's, their ratio, and the
# compile times; then the geometric means of the ratios.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ds=${1:-$here/../../target/release/dwarfsmith}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() {
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  printf "%.4f\n" "$(echo "$end - $start" | bc -l)"
}
printf "%-10s %9s %9s %7s %11s %11s %7s\n" program ours_s clang_s ratio ours_cc_s llvm_cc_s ratio
for p in sieve crc32 matmul quicksort; do
  clang-19 -O0 -Xclang -disable-O0-optnone -g -S -emit-llvm "$here/$p.c" -o "$work/$p.ll"
  cc_ours=$(for i in 1 2 3 4 5; do seconds "$ds" compile -O2 "$work/$p.ll" -o "$work/$p.o"; done | median)
  cc_llvm=$(for i in 1 2 3 4 5; do seconds sh -c "opt-19 -O2 '$work/$p.ll' | llc-19 -O2 -filetype=obj -relocation-model=pic -o '$work/$p.llc.o'"; done | median)
  gcc -O2 "$here/$p.driver.c" "$work/$p.o" -o "$work/$p.ours"
  clang-19 -O2 "$here/$p.driver.c" "$here/$p.c" -o "$work/$p.clang"
  [ "$("$work/$p.ours")" = "$("$work/$p.clang")" ] || { echo "$p: outputs differ"; exit 1; }
  ours=$(for i in 1 2 3 4 5; do seconds "$work/$p.ours"; done | median)
  clang=$(for i in 1 2 3 4 5; do seconds "$work/$p.clang"; done | median)
  printf "%-10s %9s %9s %7.2f %11s %11s %7.2f\n" "$p" "$ours" "$clang" \
    "$(echo "$ours / $clang" | bc -l)" "$cc_ours" "$cc_llvm" "$(echo "$cc_ours / $cc_llvm" | bc -l)"
done | tee "$work/table"
awk 'NR>0 {r+=log($4); c+=log($7); n++} END {printf "geomean run-time ratio %.2f, compile-time ratio %.2f\n", exp(r/n), exp(c/n)}' "$work/table"
