/* Per-cgroup traffic accounting in cgroup storage: packets and bytes under the storage's spin
 * lock (shared by the cgroup's CPUs), and a per-CPU count of the packets over a size limit,
 * which are dropped (0); the rest pass (1).  The storage needs no lookup and no NULL check:
 * bpf_get_local_storage() always has the attached cgroup's. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct counters {
	struct bpf_spin_lock lock;
	__u64 packets;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, struct counters);
} cg_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE);
	__type(key, __u64);
	__type(value, __u64);
} cg_oversize SEC(".maps");

SEC("cgroup_skb/ingress") int cgroup_skb_storage_count(struct __sk_buff *skb)
{
	struct counters *c = bpf_get_local_storage(&cg_counters, 0);
	__u64 *oversize = bpf_get_local_storage(&cg_oversize, 0);

	bpf_spin_lock(&c->lock);
	c->packets++;
	c->bytes += skb->len;
	bpf_spin_unlock(&c->lock);
	if (skb->len > 1000) {
		(*oversize)++;
		return 0;
	}
	return 1;
}
char _license[] SEC("license") = "GPL";
