/* Receive-side steering: IPv4 frames go to a CPU chosen by their source address (one of the
 * n_cpus entries of a CPU map, n_cpus a load-time setting), other frames stay on this CPU; a
 * CPU without an entry passes the frame here. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} cpus SEC(".maps");

const volatile __u32 n_cpus = 4;

SEC("xdp") int xdp_cpu_steer(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	__u32 h;

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) || !n_cpus)
		return XDP_PASS;
	h = ip->saddr * 2654435761u;
	return bpf_redirect_map(&cpus, (h >> 16) % n_cpus, XDP_PASS);
}
char _license[] SEC("license") = "GPL";
