/* impl.h — the helper implementations, by family (one file each in src/exec/helpers/), for the
 * table of prototypes in src/exec/helpers.c.  Every helper takes and returns u64 registers
 * (bpf_helper_fn); pointers arrive as integers (PTR()).
 */
#ifndef USERBPF_HELPERS_IMPL_H
#define USERBPF_HELPERS_IMPL_H

#include <time.h>

#include "exec/helpers.h"

#define PTR(x) ((void *)(uintptr_t)(x))

/* Shared by the families: the time of clock clk in ns (task.c); copies that fail instead of
 * faulting on a bad address, the string one up to its NUL (probe.c: bytes copied with the NUL,
 * or -EFAULT), and which addresses the kernel's copy_from_kernel_nofault_allowed() would let
 * through (probe.c). */
u64 clock_ns(clockid_t clk);
bool copy_nofault(void *dst, const void *src, size_t size);
bool nofault_allowed(u64 addr);

/* x86-64's highest user address (TASK_SIZE_MAX): user copies end at or below it. */
#define USER_PTR_MAX 0x00007ffffffff000ull
/* copy_from_user() (probe.c): 0, or -EFAULT with the bytes from the first unreadable one on
 * zeroed. */
int copy_from_user_emul(u8 *dst, u64 src, u32 n);
int copy_str_nofault(char *dst, const char *src, size_t size);

#define HELPER(name) u64 name(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)

/* map.c */
HELPER(h_map_lookup_elem);
HELPER(h_map_update_elem);
HELPER(h_map_delete_elem);
HELPER(h_map_push_elem);
HELPER(h_map_pop_elem);
HELPER(h_map_peek_elem);
HELPER(h_redirect_map);
HELPER(h_spin_lock);
HELPER(h_spin_unlock);
HELPER(h_map_lookup_percpu_elem);

/* string.c: a bpf_snprintf() format with nargs u64 arguments into out (out_size bytes, NUL
 * included; NULL/0: nothing written): the output's length (as if unlimited), or -errno. */
int bprintf_format(char *out, size_t out_size, const char *fmt, u32 fmt_size, const u64 *args,
		   int nargs);

/* seq.c */
HELPER(h_seq_printf);
HELPER(h_seq_write);

/* func_args.c */
HELPER(h_get_func_arg);
HELPER(h_get_func_ret);
HELPER(h_get_func_arg_cnt);
HELPER(h_get_func_ip_tracing);
HELPER(h_get_attach_cookie_tracing);

/* percpu.c */
HELPER(h_per_cpu_ptr);
HELPER(h_this_cpu_ptr);

/* task.c */
HELPER(h_ktime_get_ns);
HELPER(h_ktime_get_tai_ns);
HELPER(h_jiffies64);
HELPER(h_get_numa_node_id);
HELPER(h_ktime_get_coarse_ns);
HELPER(h_ktime_get_boot_ns);
HELPER(h_get_prandom_u32);
HELPER(h_get_smp_processor_id);
HELPER(h_get_current_pid_tgid);
HELPER(h_get_current_uid_gid);
HELPER(h_strtol);
HELPER(h_strtoul);
HELPER(h_strncmp);
HELPER(h_get_current_comm);
HELPER(h_get_current_task);
HELPER(h_find_vma);
HELPER(h_kptr_xchg);
HELPER(h_task_storage_get);
HELPER(h_task_storage_delete);
HELPER(h_cgrp_storage_get);
HELPER(h_cgrp_storage_delete);
HELPER(h_get_stackid);
HELPER(h_get_stack);
HELPER(h_get_task_stack);
HELPER(h_read_branch_records);
HELPER(h_perf_prog_read_value);
HELPER(h_copy_from_user_task);
HELPER(h_get_branch_snapshot);
HELPER(h_send_signal);
HELPER(h_send_signal_thread);
HELPER(h_get_ns_current_pid_tgid);

/* syscall.c */
HELPER(h_sys_bpf);
HELPER(h_sys_close);
HELPER(h_btf_find_by_name_kind);
HELPER(h_kallsyms_lookup_name);

/* probe.c */
HELPER(h_probe_read);
HELPER(h_probe_read_str);
HELPER(h_probe_read_kernel);
HELPER(h_probe_read_kernel_str);
HELPER(h_copy_from_user);

/* string.c */
HELPER(h_trace_printk);
HELPER(h_trace_vprintk);
HELPER(h_snprintf);

/* skb.c */
HELPER(h_skb_load_bytes);
HELPER(h_flow_dissector_load_bytes);
HELPER(h_skb_store_bytes);
HELPER(h_skb_load_bytes_relative);
HELPER(h_skb_pull_data);
HELPER(h_skb_change_tail);
HELPER(h_skb_change_head);
HELPER(h_skb_adjust_room);
HELPER(h_skb_change_proto);
HELPER(h_csum_level);
HELPER(h_csum_update);
HELPER(h_skb_vlan_push);
HELPER(h_skb_vlan_pop);
HELPER(h_get_hash_recalc);
HELPER(h_set_hash);
HELPER(h_set_hash_invalid);
HELPER(h_skb_change_type);
HELPER(h_skb_ecn_set_ce);

/* cgroup.c */
HELPER(h_current_task_under_cgroup);
HELPER(h_skb_under_cgroup);
HELPER(h_get_local_storage);
HELPER(h_get_current_cgroup_id);
HELPER(h_get_current_ancestor_cgroup_id);
HELPER(h_skb_cgroup_id);
HELPER(h_skb_ancestor_cgroup_id);
HELPER(h_cgroup_classid);

/* sock.c */
HELPER(h_sk_storage_get);
HELPER(h_sk_storage_delete);
HELPER(h_sk_release);
HELPER(h_sk_assign);
HELPER(h_sk_lookup_assign);
HELPER(h_get_listener_sock);
HELPER(h_sk_fullsock);
HELPER(h_tcp_sock);
HELPER(h_get_netns_cookie);
HELPER(h_get_socket_cookie);
HELPER(h_get_socket_uid);

/* sock.c: the socket lookups of each context (tc and socket filters, XDP, sock_addr) */
#define SK_LOOKUP_DECLS(prefix)                                                                  \
	HELPER(prefix##sk_lookup_tcp);                                                           \
	HELPER(prefix##sk_lookup_udp);                                                           \
	HELPER(prefix##skc_lookup_tcp)
SK_LOOKUP_DECLS(h_);
SK_LOOKUP_DECLS(h_xdp_);
SK_LOOKUP_DECLS(h_sa_);
#undef SK_LOOKUP_DECLS

/* tunnel.c */
HELPER(h_skb_set_tunnel_key);
HELPER(h_skb_get_tunnel_key);
HELPER(h_skb_set_tunnel_opt);
HELPER(h_skb_get_tunnel_opt);
HELPER(h_skb_get_xfrm_state);

/* csum.c */
HELPER(h_csum_diff);
HELPER(h_l3_csum_replace);
HELPER(h_l4_csum_replace);

/* redirect.c */
HELPER(h_redirect);
HELPER(h_skb_check_mtu);
HELPER(h_xdp_check_mtu);

/* fib.c */
HELPER(h_skb_fib_lookup);
HELPER(h_xdp_fib_lookup);
HELPER(h_skb_set_tstamp);
HELPER(h_redirect_neigh);
HELPER(h_redirect_peer);
HELPER(h_xdp_redirect);
HELPER(h_clone_redirect);

/* xdp.c */
HELPER(h_xdp_adjust_head);
HELPER(h_xdp_adjust_meta);
HELPER(h_xdp_adjust_tail);
HELPER(h_xdp_get_buff_len);
HELPER(h_xdp_load_bytes);
HELPER(h_xdp_store_bytes);

/* output.c */
HELPER(h_ringbuf_output);
HELPER(h_ringbuf_reserve);
HELPER(h_ringbuf_submit);
HELPER(h_ringbuf_discard);
HELPER(h_user_ringbuf_drain);
HELPER(h_ringbuf_query);
HELPER(h_perf_event_output);
HELPER(h_skb_event_output);
HELPER(h_xdp_event_output);

/* callback.c */
HELPER(h_loop);
HELPER(h_for_each_map_elem);
HELPER(h_tail_call);

#undef HELPER

#endif
