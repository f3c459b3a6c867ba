#!/usr/bin/env bash
# Runs an MPI job on two "hosts": two network namespaces joined by a veth pair, one rank in each,
# talking TCP over 10.211.0.1 <-> 10.211.0.2 (addresses that exist only inside the namespaces this
# script makes, and removes again on exit).
#   tests/dist/two_hosts.sh PROGRAM ARGS...     (as root; 2 ranks, one per namespace)
# mpirun starts in the first namespace; Open MPI starts its daemon in the second through
# tests/dist/netns_agent.sh, which stands in for ssh (plm_rsh_agent). Shared memory between the
# ranks is impossible (other network namespaces look like other hosts to Open MPI), so every byte
# crosses the veth pair over TCP.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tag=ndrt$$
ns1=${tag}a ns2=${tag}b
cleanup() {
  ip netns del "$ns1" 2>/dev/null || true
  ip netns del "$ns2" 2>/dev/null || true
}
trap cleanup EXIT
if ! ip netns add "$ns1" 2>/tmp/$tag.err; then
  echo "two_hosts: cannot create network namespaces here ($(cat /tmp/$tag.err)); needs root and CAP_SYS_ADMIN" >&2
  rm -f /tmp/$tag.err
  exit 77
fi
rm -f /tmp/$tag.err
ip netns add "$ns2"
ip link add "${tag}x" type veth peer name "${tag}y"
ip link set "${tag}x" netns "$ns1"
ip link set "${tag}y" netns "$ns2"
ip -n "$ns1" addr add 10.211.0.1/24 dev "${tag}x"
ip -n "$ns2" addr add 10.211.0.2/24 dev "${tag}y"
for ns in "$ns1" "$ns2"; do
  ip -n "$ns" link set lo up
done
ip -n "$ns1" link set "${tag}x" up
ip -n "$ns2" link set "${tag}y" up
# The agent maps a host address to its namespace.
export NDRT_NETNS_MAP="10.211.0.1=$ns1 10.211.0.2=$ns2"
args=(--host 10.211.0.1:1,10.211.0.2:1 -np 2
      --mca plm_rsh_agent "$here/netns_agent.sh"
      --mca btl tcp,self --mca pml ob1
      --mca btl_tcp_if_include 10.211.0.0/24 --mca oob_tcp_if_include 10.211.0.0/24
      -x NDRT_NETNS_MAP)
# Pass the ndrt/Java/Python settings of this environment on to both ranks.
for v in $(env | grep -oE '^(NDRT_[A-Z0-9_]+|PYTHONPATH|JAVA_HOME|LD_LIBRARY_PATH)=' | tr -d =); do args+=(-x "$v"); done
ip netns exec "$ns1" "$root/packaging/mpirun.sh" "${args[@]}" "$@"
