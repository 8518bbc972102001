/* XDP for the light skeleton test (tests/preload/lskel_user.c): a threshold in .rodata, set
 * before load; packets per IP protocol in a hash map; bytes and short packets counted in .bss, a
 * checksum of the first bytes in .data, summed with the kernel's number iterator (a kfunc,
 * which a light skeleton resolves in the kernel's BTF at load time); and a typeless kernel
 * symbol's address (resolved from kallsyms) kept in .bss. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "iter_num.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} protos SEC(".maps");

extern const void bpf_prog_put __ksym;

const volatile __u32 min_len = 0;
__u64 ksym_addr = 0;
__u64 total_bytes = 0;
__u32 short_packets = 0;
__u32 head_sum = 1;

SEC("xdp") int xdp_lskel_counts(struct xdp_md *ctx)
{
	__u8 *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)data;
	struct iphdr *ip = (void *)(eth + 1);
	struct bpf_iter_num it;
	__u32 len = end - data, proto = 0, sum = 0;
	__u64 one = 1, *count;
	int *i;

	if (len < min_len) {
		short_packets++;
		return XDP_DROP;
	}
	total_bytes += len;
	if ((void *)(ip + 1) <= (void *)end && eth->h_proto == bpf_htons(ETH_P_IP))
		proto = ip->protocol;
	count = bpf_map_lookup_elem(&protos, &proto);
	if (count)
		__sync_fetch_and_add(count, 1);
	else
		bpf_map_update_elem(&protos, &proto, &one, BPF_NOEXIST);
	bpf_iter_num_new(&it, 0, 16);
	while ((i = bpf_iter_num_next(&it))) {
		__u32 k = *i;

		if (k >= 16 || data + k + 1 > end)
			break;
		sum = sum * 31 + data[k];
	}
	bpf_iter_num_destroy(&it);
	head_sum ^= sum;
	ksym_addr = (__u64)&bpf_prog_put;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
