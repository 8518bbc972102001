#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct val { __u64 cnt; __u32 pid; char comm[16]; };
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 1024); __type(key, __u32); __type(value, struct val); } procs SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 8); __type(key, __u32); __type(value, __u64); } hist SEC(".maps");
SEC("kprobe/do_sys_open") int kprobe_open_procs(void *ctx) {
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;
	struct val *v = bpf_map_lookup_elem(&procs, &pid);
	if (!v) {
		struct val nv = { .cnt = 1, .pid = pid };
		bpf_get_current_comm(nv.comm, sizeof(nv.comm));
		bpf_map_update_elem(&procs, &pid, &nv, BPF_NOEXIST);
	} else {
		v->cnt++;
	}
	__u64 t = bpf_ktime_get_ns();
	__u32 slot = 0;
	for (int i = 0; i < 7; i++) if (t >> (i * 8)) slot = i;
	__u64 *h = bpf_map_lookup_elem(&hist, &slot);
	if (h) __sync_fetch_and_add(h, 1);
	char fmt[] = "pid %d slot %d\n";
	bpf_trace_printk(fmt, sizeof(fmt), pid, slot);
	return 0;
}
char _license[] SEC("license") = "GPL";
