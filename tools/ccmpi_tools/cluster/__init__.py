"""ccmpi-cluster: an emulated switched-Ethernet cluster on one Linux machine
(docs/cluster.md).

Modules: state (the state directory, its lock and configuration), netlink (namespaces,
bridges, veth cables, addresses and routes through pyroute2), shaping (the tc qdiscs of
every cable), lifecycle (up, down and the reaping of what crashed runs left), execute
(`exec`, the launch agent), check (measuring every cable against the rate) and cli (the
command line).
"""
