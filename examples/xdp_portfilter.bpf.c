/* xdp_portfilter: drop IPv4 TCP and UDP packets whose destination port is in a hash map.
 *
 * Parsing uses direct packet access: every header is bounds-checked against data_end before it
 * is read, as the verifier requires.  The port map is keyed by the destination port in network
 * byte order (as it appears in the packet); its value is unused.  verdicts[] counts the
 * returned XDP actions, indexed by action (XDP_ABORTED .. XDP_REDIRECT).  Packets that are not
 * IPv4 TCP/UDP, or are too short to parse, pass.  IP options are honoured (ihl).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define XDP_ACTIONS (XDP_REDIRECT + 1)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u16);
	__type(value, __u8);
	__uint(max_entries, 1024);
} blocked_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, XDP_ACTIONS);
} verdicts SEC(".maps");

static __always_inline int count(__u32 action)
{
	__u64 *n = bpf_map_lookup_elem(&verdicts, &action);

	if (n)
		__sync_fetch_and_add(n, 1);
	return action;
}

SEC("xdp")
int xdp_portfilter(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	void *l4;
	__u16 dport;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return count(XDP_PASS);
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end || ip->ihl < 5)
		return count(XDP_PASS);
	/* One L4 pointer, bounds-checked on each path before use: recomputing it per protocol
	 * lets clang merge the paths into an access the verifier cannot tie to its check. */
	l4 = (void *)ip + ip->ihl * 4;
	if (ip->protocol == IPPROTO_TCP) {
		struct tcphdr *tcp = l4;

		if ((void *)(tcp + 1) > data_end)
			return count(XDP_PASS);
		dport = tcp->dest;
	} else if (ip->protocol == IPPROTO_UDP) {
		struct udphdr *udp = l4;

		if ((void *)(udp + 1) > data_end)
			return count(XDP_PASS);
		dport = udp->dest;
	} else {
		return count(XDP_PASS);
	}
	if (bpf_map_lookup_elem(&blocked_ports, &dport))
		return count(XDP_DROP);
	return count(XDP_PASS);
}

char _license[] SEC("license") = "GPL";
