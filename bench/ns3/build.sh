#!/bin/sh
# Build the ns-3 benchmark against Debian's libns3-dev (3.37). Needs: apt-get install
# libns3-dev libgsl-dev g++ pkg-config (ns-3's pkg-config files name libgsl paths).
set -e
cd "$(dirname "$0")"
MODULES="ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control"
if ! pkg-config --exists $MODULES 2>/dev/null; then
    echo "ns-3 not found (apt-get install libns3-dev libgsl-dev); ns-3 benchmark skipped" >&2
    exit 1
fi
# the set-up shared with `lossytcp crosscheck ns3`'s program, included by lossytcp-bench.cc
SHARED=../../python/lossytcp/ns3/lossytcp_ns3.h
[ lossytcp-bench -nt lossytcp-bench.cc ] && [ lossytcp-bench -nt "$SHARED" ] && exit 0
g++ -O2 -std=c++17 lossytcp-bench.cc -o lossytcp-bench $(pkg-config --cflags --libs $MODULES)
