/* A light skeleton user: bpftool's `gen skeleton -L` of tests/corpus/xdp_lskel_counts.bpf.c,
 * used as its users do.  The skeleton has no libbpf: it loads a syscall program that makes the
 * maps, loads the BTF and the XDP program (its kfunc found with bpf_btf_find_by_name_kind(), its
 * maps named by index in fd_array) and runs it with BPF_PROG_TEST_RUN; its global data are
 * mmap()ed maps.  It knows nothing of userbpf: tests/test_preload.c runs it with
 * LD_PRELOAD=libuserbpf-preload.so (and on the kernel where it may) and reads what it prints:
 * "backend: userbpf" or "backend: kernel" (what a map fd is), then what the runs left. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fd_kind.h"
#include "xdp_lskel_counts.lskel.h"

/* An Ethernet + IPv4 frame of len bytes carrying protocol proto. */
static void frame(unsigned char *p, unsigned len, unsigned char proto)
{
	struct ethhdr *eth = (struct ethhdr *)p;
	struct iphdr *ip = (struct iphdr *)(eth + 1);

	memset(p, 0, len);
	for (unsigned i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7 + proto);
	eth->h_proto = htons(ETH_P_IP);
	ip->ihl = 5;
	ip->version = 4;
	ip->protocol = proto;
}

int main(void)
{
	static const struct { unsigned len; unsigned char proto; } packets[] = {
		{ 64, IPPROTO_TCP }, { 40, IPPROTO_UDP }, { 128, IPPROTO_UDP }, { 90, IPPROTO_TCP },
		{ 60, IPPROTO_ICMP }, { 59, IPPROTO_TCP }, { 1500, IPPROTO_TCP },
	};
	static const unsigned protos[] = { IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_GRE };
	struct xdp_lskel_counts *skel = xdp_lskel_counts__open();
	unsigned char pkt[1500];

	if (!skel) {
		printf("FAIL open: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->min_len = 60; /* (before load: the program sees it as a constant) */
	if (xdp_lskel_counts__load(skel)) {
		printf("FAIL load: %s\n", strerror(errno));
		xdp_lskel_counts__destroy(skel);
		return 1;
	}
	printf("backend: %s\n", fd_kind(skel->maps.protos.map_fd));
	skel->data->head_sum = 0x5a5a0000; /* (the program reads what user space writes) */
	printf("verdicts:");
	for (size_t i = 0; i < sizeof(packets) / sizeof(packets[0]); i++) {
		union bpf_attr a;

		frame(pkt, packets[i].len, packets[i].proto);
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = skel->progs.xdp_lskel_counts.prog_fd;
		a.test.data_in = (long)pkt;
		a.test.data_size_in = packets[i].len;
		if (skel_sys_bpf(BPF_PROG_TEST_RUN, &a, sizeof(a))) {
			printf("\nFAIL test run %zu: %s\n", i, strerror(errno));
			return 1;
		}
		printf(" %u", a.test.retval);
	}
	printf("\n.bss: total_bytes %llu, short_packets %u; .data: head_sum %#x; .rodata: min_len %u\n",
	       (unsigned long long)skel->bss->total_bytes, skel->bss->short_packets,
	       skel->data->head_sum, skel->rodata->min_len);
	{
		unsigned long long addr = 0;
		char line[256], sym[128];
		FILE *fp = fopen("/proc/kallsyms", "r");

		while (fp && fgets(line, sizeof(line), fp))
			if (sscanf(line, "%llx %*s %127s", &addr, sym) == 2 &&
			    !strcmp(sym, "bpf_prog_put"))
				break;
		if (fp)
			fclose(fp);
		printf("ksym bpf_prog_put: %s\n", !skel->bss->ksym_addr ? "0"
						   : skel->bss->ksym_addr == addr ? "kallsyms'"
										  : "another address");
	}
	printf("protos:");
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		unsigned long long count = 0;
		union bpf_attr a;
		int err;

		memset(&a, 0, sizeof(a));
		a.map_fd = skel->maps.protos.map_fd;
		a.key = (long)&protos[i];
		a.value = (long)&count;
		err = skel_sys_bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a));
		printf(" %u:%s", protos[i], err ? strerror(errno) : "");
		if (!err)
			printf("%llu", count);
	}
	printf("\n");
	xdp_lskel_counts__destroy(skel);
	return 0;
}
