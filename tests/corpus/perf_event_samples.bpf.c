/* A sampling profiler's counter: per process, the samples taken and the period they stand for,
 * from the perf event's sample_period; the instruction pointer of the sample goes into a
 * histogram of 4 KiB pages (a bounded array). */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

struct counts {
	__u64 samples;
	__u64 period;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct counts);
} by_pid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u64);
} ip_pages SEC(".maps");

SEC("perf_event") int perf_event_samples(struct bpf_perf_event_data *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32, page = (ctx->regs.rip >> 12) & 0xff;
	struct counts *c = bpf_map_lookup_elem(&by_pid, &pid), fresh = { 1, ctx->sample_period };
	__u64 *n = bpf_map_lookup_elem(&ip_pages, &page);

	if (n)
		(*n)++;
	if (!c)
		return bpf_map_update_elem(&by_pid, &pid, &fresh, BPF_NOEXIST) ? 1 : 0;
	__sync_fetch_and_add(&c->samples, 1);
	__sync_fetch_and_add(&c->period, ctx->sample_period);
	return 0;
}
char _license[] SEC("license") = "GPL";
