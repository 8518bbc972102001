/* Opening and loading a BPF object for a CLI command, and the type names bpftool prints.
 *
 * Loading goes through the loader (include/userbpf/loader.h) with the selected backend: userbpf's
 * bpf(), or the live kernel's with --kernel.  A failure is classified for the exit code: when the
 * verifier left a log, a program was rejected (EXIT_VERIFIER); anything else about the object
 * (unreadable, malformed, a map the backend refuses) is EXIT_OBJECT.  The loader's one-line
 * message goes to stderr, then the verifier log if any.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

int cli_split_spec(const char *spec, char **path, const char **sub)
{
	struct stat st;
	char *colon;

	*path = strdup(spec);
	*sub = NULL;
	if (!*path)
		return -ENOMEM;
	if (stat(spec, &st) == 0)
		return 0;
	colon = strrchr(*path, ':');
	if (colon && colon != *path) {
		*colon = '\0';
		*sub = colon + 1;
	}
	return 0;
}

int cli_load_object(const char *path, struct cli_load *l, struct userbpf_object **objp)
{
	struct userbpf_object_opts o;
	int err;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.bpf = cli_backend();
	o.btf_custom_path = cli.btf;
	o.errbuf = l->err;
	o.errbuf_size = sizeof(l->err);
	o.log_buf = l->log;
	o.log_size = l->log_size;
	o.log_level = l->log_level;
	l->err[0] = '\0';
	if (l->log && l->log_size)
		l->log[0] = '\0';
	err = userbpf_object_open_file(path, &o, objp);
	if (err) {
		if (!l->err[0])
			snprintf(l->err, sizeof(l->err), "%s: %s", path, strerror(-err));
		cli_err("%s", l->err);
		return EXIT_OBJECT;
	}
	if (l->prog) {
		struct userbpf_program *p = userbpf_object_find_program(*objp, l->prog);

		for (size_t i = 0; p && l->prog_only && i < userbpf_object_program_count(*objp); i++)
			userbpf_program_set_autoload(*objp, userbpf_object_program(*objp, i),
						     false);
		if (p)
			userbpf_program_set_autoload(*objp, p, true);
	}
	err = userbpf_object_load(*objp);
	if (!err)
		return EXIT_OK;
	cli_err("%s", l->err);
	userbpf_object_close(*objp);
	*objp = NULL;
	if (l->log && l->log[0]) {
		if (l->log_to_stderr)
			fputs(l->log, stderr);
		return EXIT_VERIFIER;
	}
	return EXIT_OBJECT;
}

int cli_load_simple(const char *path, const char *prog, struct userbpf_object **objp)
{
	static char log[64 * 1024];
	struct cli_load l = {.log = log, .log_size = sizeof(log), .log_to_stderr = true,
			     .prog = prog};

	return cli_load_object(path, &l, objp);
}

const char *cli_prog_type_name(unsigned int type)
{
	static const char *const names[] = {
	    [BPF_PROG_TYPE_SOCKET_FILTER] = "socket_filter",
	    [BPF_PROG_TYPE_KPROBE] = "kprobe",
	    [BPF_PROG_TYPE_SCHED_CLS] = "sched_cls",
	    [BPF_PROG_TYPE_SCHED_ACT] = "sched_act",
	    [BPF_PROG_TYPE_TRACEPOINT] = "tracepoint",
	    [BPF_PROG_TYPE_XDP] = "xdp",
	    [BPF_PROG_TYPE_PERF_EVENT] = "perf_event",
	    [BPF_PROG_TYPE_CGROUP_SKB] = "cgroup_skb",
	    [BPF_PROG_TYPE_CGROUP_SOCK] = "cgroup_sock",
	    [BPF_PROG_TYPE_CGROUP_SOCK_ADDR] = "cgroup_sock_addr",
	    [BPF_PROG_TYPE_CGROUP_DEVICE] = "cgroup_device",
	    [BPF_PROG_TYPE_CGROUP_SOCKOPT] = "cgroup_sockopt",
	    [BPF_PROG_TYPE_CGROUP_SYSCTL] = "cgroup_sysctl",
	    [BPF_PROG_TYPE_LWT_IN] = "lwt_in",
	    [BPF_PROG_TYPE_LWT_OUT] = "lwt_out",
	    [BPF_PROG_TYPE_LWT_XMIT] = "lwt_xmit",
	    [BPF_PROG_TYPE_SOCK_OPS] = "sock_ops",
	    [BPF_PROG_TYPE_SK_SKB] = "sk_skb",
	    [BPF_PROG_TYPE_SK_MSG] = "sk_msg",
	    [BPF_PROG_TYPE_RAW_TRACEPOINT] = "raw_tracepoint",
	    [BPF_PROG_TYPE_SK_LOOKUP] = "sk_lookup",
	    [BPF_PROG_TYPE_FLOW_DISSECTOR] = "flow_dissector",
	    /* (bpftool's names) */
	    [BPF_PROG_TYPE_SYSCALL] = "syscall",
	    [BPF_PROG_TYPE_TRACING] = "tracing",
	    [BPF_PROG_TYPE_LSM] = "lsm",
	    [BPF_PROG_TYPE_STRUCT_OPS] = "struct_ops",
	    [BPF_PROG_TYPE_EXT] = "ext",
	    [BPF_PROG_TYPE_SK_REUSEPORT] = "sk_reuseport",
	    [BPF_PROG_TYPE_LIRC_MODE2] = "lirc_mode2",
	    [BPF_PROG_TYPE_LWT_SEG6LOCAL] = "lwt_seg6local",
	    [BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE] = "raw_tracepoint_writable",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

const char *cli_map_type_name(unsigned int type)
{
	static const char *const names[] = {
	    [BPF_MAP_TYPE_HASH] = "hash",
	    [BPF_MAP_TYPE_ARRAY] = "array",
	    [BPF_MAP_TYPE_PROG_ARRAY] = "prog_array",
	    [BPF_MAP_TYPE_PERF_EVENT_ARRAY] = "perf_event_array",
	    [BPF_MAP_TYPE_PERCPU_HASH] = "percpu_hash",
	    [BPF_MAP_TYPE_PERCPU_ARRAY] = "percpu_array",
	    [BPF_MAP_TYPE_LRU_HASH] = "lru_hash",
	    [BPF_MAP_TYPE_LRU_PERCPU_HASH] = "lru_percpu_hash",
	    [BPF_MAP_TYPE_LPM_TRIE] = "lpm_trie",
	    [BPF_MAP_TYPE_RINGBUF] = "ringbuf",
	    [BPF_MAP_TYPE_USER_RINGBUF] = "user_ringbuf",
	    [BPF_MAP_TYPE_DEVMAP] = "devmap",
	    [BPF_MAP_TYPE_DEVMAP_HASH] = "devmap_hash",
	    [BPF_MAP_TYPE_CPUMAP] = "cpumap",
	    [BPF_MAP_TYPE_XSKMAP] = "xskmap",
	    [BPF_MAP_TYPE_QUEUE] = "queue",
	    [BPF_MAP_TYPE_STACK] = "stack",
	    [BPF_MAP_TYPE_ARRAY_OF_MAPS] = "array_of_maps",
	    [BPF_MAP_TYPE_HASH_OF_MAPS] = "hash_of_maps",
	    [BPF_MAP_TYPE_BLOOM_FILTER] = "bloom_filter",
	    [BPF_MAP_TYPE_CGROUP_ARRAY] = "cgroup_array",
	    [BPF_MAP_TYPE_CGROUP_STORAGE] = "cgroup_storage",
	    [BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE] = "percpu_cgroup_storage",
	    [BPF_MAP_TYPE_SK_STORAGE] = "sk_storage",
	    [BPF_MAP_TYPE_TASK_STORAGE] = "task_storage",
	    [BPF_MAP_TYPE_CGRP_STORAGE] = "cgrp_storage",
	    [BPF_MAP_TYPE_STACK_TRACE] = "stack_trace",
	    [BPF_MAP_TYPE_SOCKMAP] = "sockmap",
	    [BPF_MAP_TYPE_SOCKHASH] = "sockhash",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}
