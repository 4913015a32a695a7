#!/usr/bin/env bash
# What understanding a request costs (bench/router_cost.rs): the router's
# decision and the turn's language per request, over the English texts of
# data/routing_eval.json (ALL=1: every language's). BEFORE=<git revision>
# builds that revision's router with the same file (its language part cut
# out, as the language did not exist there) in a worktree under target/, and
# alternates the two, PAIRS times, each with ROUNDS rounds; medians of the
# rounds. No network. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
export ROUNDS=${ROUNDS:-15}

cargo build --release --quiet --example bench_router_cost
after=target/release/examples/bench_router_cost

before=""
if [ -n "${BEFORE:-}" ]; then
  tree=target/router-cost-before
  if [ ! -d "$tree" ]; then
    git worktree add --detach "$tree" "$BEFORE" >/dev/null
  fi
  # The same benchmark in the older tree, without the language part.
  sed '/language: begin/,/language: end/d' bench/router_cost.rs >"$tree/bench/router_cost.rs"
  if ! grep -q bench_router_cost "$tree/Cargo.toml"; then
    printf '\n[[example]]\nname = "bench_router_cost"\npath = "bench/router_cost.rs"\n' >>"$tree/Cargo.toml"
  fi
  (cd "$tree" && CARGO_TARGET_DIR=../router-cost-before-target \
    cargo build --release --quiet --example bench_router_cost)
  before=target/router-cost-before-target/release/examples/bench_router_cost
fi

for pair in $(seq 1 "$PAIRS"); do
  if [ -n "$before" ]; then
    # Both read this tree's eval set: the same texts.
    printf 'pair %s before: ' "$pair"; "$before" | tail -n1
  fi
  printf 'pair %s after:  ' "$pair"; "$after" | tail -n1
done
