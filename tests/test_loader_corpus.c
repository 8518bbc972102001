/* The verifier on clang-compiled programs, differentially: every object of tests/corpus/ (one
 * program each, written the way BPF programs are written in the field: packet parsers with
 * bounds checks, map lookups with NULL checks, bounded loops, helpers, global functions, legacy
 * packet loads, .rodata configuration) is loaded through the ELF loader into userbpf and into
 * the live kernel with log_level 1, and both must give the same verdict and the same log (map
 * addresses blanked), "processed N insns ... total_states ..." line included; then again with
 * log_level 2, every instruction's state, precision and stack-liveness lines included.
 *
 * Where the kernel's bpf() is unavailable only userbpf's side runs, and its verdict is checked
 * against the table.  A listed known difference is reported, not failed; it must still differ
 * (a known difference that has gone away fails, so the table stays true).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/loader.h"
#include "verifier_harness.h"

#define CORPUS(n) LOADER_OBJ_DIR "/tests/corpus/" n ".bpf.o"
#define LOG_SIZE (1u << 24)

struct corpus_case {
	const char *name;
	bool accept;		/* the kernel's verdict */
	const char *known;	/* a known difference of the level-1 logs: why */
	const char *known2;	/* ... of the level-2 logs */
	const char *kfunc;	/* calls kfuncs, this one among them: skipped without a kernel
				 * BTF that has it */
	bool btf;		/* needs the kernel's BTF otherwise (tp_btf): skipped without */
};



static const struct corpus_case corpus[] = {
	{ "xdp_udp_ports", true },
	{ "xdp_subprog_tail_call", true },
	{ "xdp_rate_array", true },
	{ "xdp_no_bounds", false },
	{ "tc_mark_vlan", true },
	{ "socket_byte_hist", true },
	{ "socket_global_funcs", true },
	{ "socket_global_unbounded", false },
	{ "xdp_global_chain", true },
	{ "socket_ld_abs", true },
	{ "socket_printk", true },
	{ "socket_rodata_cfg", true },
	{ "socket_core_reads", true },
	{ "xdp_core_parse", true },
	{ "socket_kconfig", true },
	{ "syscall_make_map", true },
	{ "syscall_copy_user", true, .kfunc = "bpf_copy_from_user_str" },
	{ "kprobe_open_procs", true },
	{ "kprobe_uninit_key", true },
	{ "kprobe_read_str", true },
	{ "tp_syscalls_hist", true },
	{ "tc_rewrite_global", true },
	{ "tc_stale_pkt_ptr", false },
	{ "xdp_ringbuf_events", true },
	{ "xdp_map_in_map", true },
	{ "xdp_bloom_seen", true },
	{ "xdp_loop_callbacks", true },
	{ "socket_global_mem_null", false },
	{ "socket_global_mem", true },
	{ "socket_global_mem_small", false },
	{ "xdp_global_mem_pkt", true },
	{ "socket_global_void_ptr", false },
	{ "socket_global_void_ret", false },
	{ "xdp_loop_ipv6_ext", true },
	{ "tc_foreach_global", true },
	{ "socket_loop_global_call", true },
	{ "socket_strncmp_http", true },
	{ "socket_strtol_parse", true },
	{ "raw_tp_syscall_hist", true },
	{ "raw_tp_current_task", true },
	{ "raw_tp_task_btf", true },
	{ "raw_tp_core_cast", true },
	{ "raw_tp_task_storage", true },
	{ "syscall_task_lookup", true },
	{ "raw_tp_cgrp_storage", true },
	{ "tp_btf_sched_switch", true, .kfunc = "bpf_task_acquire" },
	{ "iter_task_pids", true },
	{ "cgroup_skb_egress_policy", true },
	{ "cgroup_skb_storage_count", true },
	{ "flow_dissector_ports", true },
	{ "cgroup_connect4_redirect", true },
	{ "cgroup_skb_sk_bytes", true },
	{ "cgroup_dev_allowlist", true },
	{ "cgroup_getsockopt_clamp", true },
	{ "cgroup_sysctl_guard", true },
	{ "perf_event_samples", true },
	{ "kprobe_stack_counts", true },
	{ "sk_lookup_port_policy", true },
	{ "tc_action_mark", true },
	{ "cgroup_sock_policy", true },
	{ "cgroup_sock_bad_write", false },
	{ "tc_sk_lookup_guard", true },
	{ "sk_lookup_steer", true },
	{ "sockops_rtt_stats", true },
	{ "sk_skb_frame_parser", true },
	{ "sk_skb_stream_redirect", true },
	{ "sk_msg_cork_policy", true },
	{ "sk_reuseport_select", true },
	{ "xdp_cpu_steer", true },
	{ "xdp_xsk_redirect", true },
	{ "xdp_timer_count", true },
	{ "xdp_timer_ops", true },
	{ "xdp_dynptr_ops", true },
	{ "xdp_user_ringbuf", true },
	{ "xdp_dynptr_global", true },
	{ "xdp_dynptr_global_pkt", false },
	{ "xdp_dynptr_global_caller_pkt", false },
	{ "xdp_dynptr_global_uninit", false },
	{ "xdp_kfunc_dynptr", true, .kfunc = "bpf_dynptr_slice" },
	{ "xdp_iter_bytes", true, .kfunc = "bpf_iter_num_new" },
	{ "xdp_lskel_counts", true, .kfunc = "bpf_iter_num_new" },
	{ "xdp_string_kfuncs", true, .kfunc = "bpf_strnstr" }, /* (6.17 and later) */
	{ "socket_stream_printk", true, .kfunc = "bpf_stream_vprintk_impl" }, /* (6.18) */
	{ "socket_can_loop", true },
	{ "syscall_wq_ops", true, .kfunc = "bpf_wq_init" },
	{ "syscall_task_work", true, .kfunc = "bpf_task_work_schedule_signal_impl" }, /* (6.18) */
	{ "syscall_task_vma_iter", true, .kfunc = "bpf_iter_task_vma_new" },
	{ "syscall_css_task_iter", true, .kfunc = "bpf_iter_css_task_new" },
	{ "syscall_cpumask", true, .kfunc = "bpf_cpumask_populate" }, /* (6.16) */
	{ "tp_btf_kfree_skb_sock", true, .btf = true },
	{ "tp_btf_kfree_skb_sock_unchecked", false, .btf = true },
	{ "xdp_preempt_global", true, .kfunc = "bpf_preempt_disable" },
};

/* Loads the object on one backend; returns 0 or the negative errno, the log in log. */
static int load(const char *name, userbpf_bpf_fn backend, char *log, unsigned int level)
{
	struct userbpf_object_opts o = {
		.sz = sizeof(o),
		.bpf = backend,
		.log_buf = log,
		.log_size = LOG_SIZE,
		.log_level = level,
	};
	struct userbpf_object *obj;
	int err;

	log[0] = 0;
	err = userbpf_object_open_file(name, &o, &obj);
	if (err)
		return err;
	err = userbpf_object_load(obj);
	userbpf_object_close(obj);
	return err;
}

/* The first line where the logs differ, for the message (u: userbpf's, k: the kernel's). */
/* TEST_VERBOSE: both level-2 logs to $TMPDIR/<name>.{kernel,userbpf}.log, for diff(1). */
static void dump_logs(const char *name, const char *klog, const char *ulog)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	const char *logs[2] = { klog, ulog }, *who[2] = { "kernel", "userbpf" };
	char path[512];

	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s.%s.log", dir, name, who[i]);
		f = fopen(path, "w");
		if (!f)
			continue;
		fputs(logs[i], f);
		fclose(f);
		fprintf(stderr, "  wrote %s\n", path);
	}
}

static void first_diff(const char *u, const char *k, char *out, size_t n)
{
	const char *u0 = u;
	int line = 1;

	while (*u && *u == *k) {
		line += *u == '\n';
		u++;
		k++;
	}
	while (u > u0 && u[-1] != '\n') {
		u--;
		k--;
	}
	snprintf(out, n, "line %d: kernel \"%.*s\" userbpf \"%.*s\"", line,
		 (int)strcspn(k, "\n"), k, (int)strcspn(u, "\n"), u);
}

TEST(verifier_corpus)
{
	char *ulog = malloc(LOG_SIZE), *klog = malloc(LOG_SIZE);
	bool kernel = kernel_bpf_available();
	int agree = 0, known = 0, agree2 = 0;

	CHECK(ulog && klog);
	if (!ulog || !klog)
		goto out;
	for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		const struct corpus_case *c = &corpus[i];
		char path[512], where[600];
		int uerr, kerr;

		if (c->kfunc && (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), c->kfunc))) {
			printf("  %s skipped: no kernel BTF with %s()\n", c->name, c->kfunc);
			continue;
		}
		if (c->btf && !btf_vmlinux()) {
			printf("  %s skipped: no kernel BTF\n", c->name);
			continue;
		}
		snprintf(path, sizeof(path), CORPUS("%s"), c->name);
		uerr = load(path, NULL, ulog, 1);
		if (uerr == -ENOENT || uerr == -ENOEXEC || uerr == -EBADMSG) {
			test_fail(__FILE__, __LINE__, "%s: cannot open %s (%d)", c->name, path, uerr);
			continue;
		}
		if ((uerr == 0) != c->accept)
			test_fail(__FILE__, __LINE__, "%s: userbpf %s (%d), the kernel %s", c->name,
				  uerr ? "rejects" : "accepts", uerr, c->accept ? "accepts" : "rejects");
		if (!kernel)
			continue;
		kerr = load(path, backend_kernel.bpf, klog, 1);
		if ((kerr == 0) != c->accept)
			test_fail(__FILE__, __LINE__, "%s: table says %s, the kernel %s (%d)", c->name,
				  c->accept ? "accept" : "reject", kerr ? "rejects" : "accepts", kerr);
		vlog_blank_addrs(ulog);
		vlog_blank_addrs(klog);
		bool same = uerr == kerr && !strcmp(ulog, klog);

		if (same && !c->known) {
			agree++;
		} else {
			first_diff(ulog, klog, where, sizeof(where));
			if (!c->known) {
				test_fail(__FILE__, __LINE__,
					  "%s: logs differ (errno kernel %d userbpf %d): %s", c->name,
					  kerr, uerr, where);
			} else if (same) {
				test_fail(__FILE__, __LINE__,
					  "%s: listed as a known difference but agrees", c->name);
			} else {
				known++;
				printf("  known difference %s: %s (%s)\n", c->name, c->known, where);
			}
		}
		/* level 2 */
		uerr = load(path, NULL, ulog, 2);
		kerr = load(path, backend_kernel.bpf, klog, 2);
		vlog_blank_addrs(ulog);
		vlog_blank_addrs(klog);
		same = uerr == kerr && !strcmp(ulog, klog);
		if (same && !c->known2) {
			agree2++;
			continue;
		}
		first_diff(ulog, klog, where, sizeof(where));
		if (getenv("TEST_VERBOSE"))
			dump_logs(c->name, klog, ulog);
		if (!c->known2)
			test_fail(__FILE__, __LINE__, "%s: level-2 logs differ: %s", c->name, where);
		else if (same)
			test_fail(__FILE__, __LINE__, "%s: level 2 listed as a known difference but "
				  "agrees", c->name);
		else
			printf("  known difference %s at level 2: %s (%s)\n", c->name, c->known2,
			       where);
	}
	if (kernel)
		printf("verifier corpus (clang-compiled programs): %zu programs, %d identical level-1 "
		       "logs with the kernel (%d known differences), %d identical level-2 logs\n",
		       sizeof(corpus) / sizeof(corpus[0]), agree, known, agree2);
	else
		printf("verifier corpus: kernel bpf() unavailable (%s): verdicts only\n",
		       kernel_bpf_unavailable_reason());
out:
	free(ulog);
	free(klog);
}
