/* CO-RE, the way tracing and networking code uses it: local views of kernel types marked
 * preserve_access_index (fields the kernel has elsewhere, fields it lacks, a renamed field in an
 * old flavor, a bitfield struct, a ctx struct with one member), bpf_core_read.h's queries
 * (offsets, sizes, existence, enum values, the kernel's type id), a ctx read at a relocated
 * offset and bitfields read through relocated shifts.  Every answer goes into the array "out",
 * so a loader that relocates like libbpf leaves the same values there; a subprogram relocates
 * too, and an access the kernel cannot satisfy sits behind an existence check (poisoned, dead). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

struct task_struct {
	int pid;
	int tgid;
	char comm[16];
	unsigned int flags;
	int userbpf_no_such_field;
} __attribute__((preserve_access_index));

/* before 5.14 the task's state was "state" */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

struct iphdr {
	__u8 ihl : 4, version : 4;
	__u8 tos;
	__u16 tot_len;
} __attribute__((preserve_access_index));

struct __sk_buff___one {
	__u32 protocol;
} __attribute__((preserve_access_index));

struct userbpf_absent {
	int x;
};

enum bpf_map_type___mine {
	BPF_MAP_TYPE_ARENA___mine = 1000,
	BPF_MAP_TYPE_USERBPF_NONE___mine = 1001,
};

#include "out_array.h"

/* an IPv4 header's first bytes: version 4, ihl 5, tos 0x10 */
const volatile __u8 hdr_bytes[8] = { 0x45, 0x10, 0x00, 0x54 };

static __attribute__((noinline)) int iphdr_size(void)
{
	return bpf_core_type_size(struct iphdr);
}

SEC("socket") int socket_core_reads(struct __sk_buff *skb)
{
	const struct iphdr *ip = (const void *)hdr_bytes;
	struct task_struct *t = 0;

	put(0, bpf_core_field_offset(t->tgid));
	put(1, bpf_core_field_size(t->comm));
	put(2, bpf_core_field_exists(t->userbpf_no_such_field));
	if (bpf_core_field_exists(t->userbpf_no_such_field))
		put(3, bpf_core_field_offset(t->userbpf_no_such_field)); /* poisoned, dead */
	put(4, bpf_core_field_exists(((struct task_struct___old *)0)->state));
	put(5, bpf_core_type_exists(struct userbpf_absent));
	put(6, bpf_core_type_size(struct task_struct));
	put(7, bpf_core_enum_value_exists(enum bpf_map_type___mine, BPF_MAP_TYPE_ARENA___mine));
	put(8, bpf_core_enum_value(enum bpf_map_type___mine, BPF_MAP_TYPE_ARENA___mine));
	put(9, bpf_core_enum_value_exists(enum bpf_map_type___mine,
					  BPF_MAP_TYPE_USERBPF_NONE___mine));
	put(10, bpf_core_type_id_kernel(struct task_struct));
	put(11, ((struct __sk_buff___one *)skb)->protocol);
	put(12, BPF_CORE_READ_BITFIELD(ip, version));
	put(13, BPF_CORE_READ_BITFIELD(ip, ihl));
	put(14, iphdr_size());
	put(15, bpf_core_field_offset(t->comm[3]));
	return 0;
}

char _license[] SEC("license") = "GPL";
