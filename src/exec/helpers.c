/* The table of the BPF helper functions userbpf provides, and which program types get which.
 *
 * One entry per helper, indexed by the kernel's number (enum bpf_func_id): the prototype the
 * verifier checks calls against (the kernel's argument and return types, gpl_only flag), the
 * implementation the interpreter and the JIT call, and the set of program types that may call it
 * (the kernel's <type>_func_proto() switches, as Linux 6.18 answers them for a privileged
 * loader).
 *
 * The implementations live in src/exec/helpers/, one file per family (maps, the current task,
 * probes, strings, skb, cgroups, sockets, tunnels, checksums, redirects, XDP, output to user
 * space, callbacks, a syscall program's own), declared in src/exec/helpers/impl.h.  Their
 * semantics are the kernel's, in user space; they run inside the read section the runner
 * holds.
 */
#include <unistd.h>

#include "exec/bpf_dynptr.h"
#include "exec/bpf_timer.h"
#include "map/map.h"
#include "prog/run.h"
#include "exec/helpers/impl.h"

#define TYPE_BIT(t) (1u << (t))
#define SKB_TYPES (TYPE_BIT(BPF_PROG_TYPE_SOCKET_FILTER) | TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS))
#define TRACING_TYPES                                                                            \
	(TYPE_BIT(BPF_PROG_TYPE_KPROBE) | TYPE_BIT(BPF_PROG_TYPE_TRACEPOINT) |                     \
	 TYPE_BIT(BPF_PROG_TYPE_RAW_TRACEPOINT))
#define ALL_TYPES (SKB_TYPES | TRACING_TYPES | TYPE_BIT(BPF_PROG_TYPE_XDP))

/* 0: no route's realm, no attach cookie; and the helpers of the cgroup hooks userbpf verifies
 * but never runs. */
static u64 h_zero(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return 0;
}

/* ---- the table ---- */

struct helper {
	struct bpf_func_proto proto;
	u32 types;	/* TYPE_BIT() of the program types that may call it */
};

#define ARGS(...) .arg_type = { __VA_ARGS__ }
/* bpf_sk_lookup_*()'s: ctx, the tuple (read only) and its size, netns_id, flags */
#define SK_LOOKUP_ARGS                                                                             \
	ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING

static const struct helper helpers[] = {
	[BPF_FUNC_map_lookup_elem] = { { h_map_lookup_elem, "bpf_map_lookup_elem", false, true,
					 RET_PTR_TO_MAP_VALUE_OR_NULL,
					 ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY) }, ALL_TYPES },
	[BPF_FUNC_map_update_elem] = { { h_map_update_elem, "bpf_map_update_elem", false, true,
					 RET_INTEGER,
					 ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY,
					      ARG_PTR_TO_MAP_VALUE, ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_map_delete_elem] = { { h_map_delete_elem, "bpf_map_delete_elem", false, true,
					 RET_INTEGER,
					 ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY) }, ALL_TYPES },
	[BPF_FUNC_redirect_map] = { { h_redirect_map, "bpf_redirect_map", false, false,
				      RET_INTEGER,
				      ARGS(ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_ANYTHING) },
				    TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_map_push_elem] = { { h_map_push_elem, "bpf_map_push_elem", false, true,
				       RET_INTEGER,
				       ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_VALUE, ARG_ANYTHING) },
				     ALL_TYPES },
	[BPF_FUNC_map_pop_elem] = { { h_map_pop_elem, "bpf_map_pop_elem", false, false,
				      RET_INTEGER,
				      ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_UNINIT_MAP_VALUE) },
				    ALL_TYPES },
	[BPF_FUNC_map_peek_elem] = { { h_map_peek_elem, "bpf_map_peek_elem", false, false,
				       RET_INTEGER,
				       ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_UNINIT_MAP_VALUE) },
				     ALL_TYPES },
	[BPF_FUNC_skb_change_tail] = { { h_skb_change_tail, "bpf_skb_change_tail", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING),
					 .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_change_head] = { { h_skb_change_head, "bpf_skb_change_head", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING),
					 .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_adjust_room] = { { h_skb_adjust_room, "bpf_skb_adjust_room", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING,
							   ARG_ANYTHING),
					 .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_change_proto] = { { h_skb_change_proto, "bpf_skb_change_proto", false, false,
					  RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING),
					  .changes_pkt_data = true },
					TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_csum_level] = { { h_csum_level, "bpf_csum_level", false, false, RET_INTEGER,
				    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) },
				  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_csum_update] = { { h_csum_update, "bpf_csum_update", false, false, RET_INTEGER,
				     ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) },
				   TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_redirect_neigh] = { { h_redirect_neigh, "bpf_redirect_neigh", false, false,
					RET_INTEGER, ARGS(ARG_ANYTHING, ARG_PTR_TO_MEM_OR_NULL,
							  ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING) },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_redirect_peer] = { { h_redirect_peer, "bpf_redirect_peer", false, false,
				       RET_INTEGER, ARGS(ARG_ANYTHING, ARG_ANYTHING) },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_check_mtu] = { { h_skb_check_mtu, "bpf_check_mtu", true, false, RET_INTEGER,
				   ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_INT, ARG_ANYTHING,
					ARG_ANYTHING) },
				 TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_fib_lookup] = { { h_skb_fib_lookup, "bpf_fib_lookup", true, false, RET_INTEGER,
				    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_WRITE_MEM, ARG_CONST_SIZE,
					 ARG_ANYTHING) },
				  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_set_tstamp] = { { h_skb_set_tstamp, "bpf_skb_set_tstamp", false, false,
					RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING) },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_current_cgroup_id] = { { h_get_current_cgroup_id,
					       "bpf_get_current_cgroup_id", false, false,
					       RET_INTEGER, ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_get_current_ancestor_cgroup_id] = { { h_get_current_ancestor_cgroup_id,
							"bpf_get_current_ancestor_cgroup_id", false,
							false, RET_INTEGER, ARGS(ARG_ANYTHING) },
						      ALL_TYPES },
	[BPF_FUNC_skb_cgroup_id] = { { h_skb_cgroup_id, "bpf_skb_cgroup_id", false, false,
				       RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_ancestor_cgroup_id] = { { h_skb_ancestor_cgroup_id,
						"bpf_skb_ancestor_cgroup_id", false, false,
						RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) },
					      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_netns_cookie] = { { h_get_netns_cookie, "bpf_get_netns_cookie", false,
					  false, RET_INTEGER, ARGS(ARG_PTR_TO_CTX_OR_NULL) },
					SKB_TYPES },
	[BPF_FUNC_skb_cgroup_classid] = { { h_cgroup_classid, "bpf_skb_cgroup_classid", false,
					    false, RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_ecn_set_ce] = { { h_skb_ecn_set_ce, "bpf_skb_ecn_set_ce", false, false,
					RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_clone_redirect] = { { h_clone_redirect, "bpf_clone_redirect", false, false,
					RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING),
					.changes_pkt_data = true },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_get_xfrm_state] = { { h_skb_get_xfrm_state, "bpf_skb_get_xfrm_state", false,
					    false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
						 ARG_CONST_SIZE, ARG_ANYTHING) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_current_task_under_cgroup] = { { h_current_task_under_cgroup,
						   "bpf_current_task_under_cgroup", false, false,
						   RET_INTEGER,
						   ARGS(ARG_CONST_MAP_PTR, ARG_ANYTHING) },
						 ALL_TYPES },
	[BPF_FUNC_skb_under_cgroup] = { { h_skb_under_cgroup, "bpf_skb_under_cgroup", false,
					  false, RET_INTEGER,
					  ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING) },
					TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	/* a per-CPU kernel variable's copy (a typed ksym's: exec/kernel_vars.h) */
	[BPF_FUNC_per_cpu_ptr] = { { h_per_cpu_ptr, "bpf_per_cpu_ptr", false, false,
				     RET_PTR_TO_MEM_OR_BTF_ID_OR_NULL,
				     ARGS(ARG_PTR_TO_PERCPU_BTF_ID, ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_this_cpu_ptr] = { { h_this_cpu_ptr, "bpf_this_cpu_ptr", false, false,
				      RET_PTR_TO_MEM_OR_BTF_ID, ARGS(ARG_PTR_TO_PERCPU_BTF_ID) },
				    ALL_TYPES },
	/* the cookie of the link the program runs from: these types' programs run from test
	 * runs only (their links never fire here), where the kernel's say 0 too; the
	 * trampoline kinds have their own (tracing_helpers) */
	[BPF_FUNC_get_attach_cookie] = { { h_zero, "bpf_get_attach_cookie", false, false,
					   RET_INTEGER, ARGS(ARG_PTR_TO_CTX) }, TRACING_TYPES },
	/* the address of the function a kprobe is on: 0, as the kernel's when no kprobe is
	 * running (userbpf attaches none); the verifier allows it in kprobes (the trampoline
	 * kinds have their own: tracing_func_ip_helper) */
	[BPF_FUNC_get_func_ip] = { { h_zero, "bpf_get_func_ip", true, false, RET_INTEGER,
				     ARGS(ARG_PTR_TO_CTX) }, TRACING_TYPES },
	[BPF_FUNC_get_stackid] = { { h_get_stackid, "bpf_get_stackid", true, false, RET_INTEGER,
				     ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING) },
				   TRACING_TYPES },
	[BPF_FUNC_get_branch_snapshot] = { { h_get_branch_snapshot, "bpf_get_branch_snapshot",
					     true, false, RET_INTEGER,
					     ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
						  ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_get_stack] = { { h_get_stack, "bpf_get_stack", true, false, RET_INTEGER,
				   ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					ARG_ANYTHING) },
				 TRACING_TYPES },
	/* (a base helper of 6.18's, with perfmon: every program type) */
	[BPF_FUNC_get_task_stack] = { { h_get_task_stack, "bpf_get_task_stack", false, false,
					RET_INTEGER,
					ARGS(ARG_PTR_TO_BTF_ID_TASK_NOT_NULL, ARG_PTR_TO_UNINIT_MEM,
					     ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING) },
				      ALL_TYPES },
	/* the socket lookups: tc's and cgroup skb's here, XDP's and sock_addr's in their own
	 * tables (the same prototypes, their own contexts) */
	[BPF_FUNC_sk_lookup_tcp] = { { h_sk_lookup_tcp, "bpf_sk_lookup_tcp", false, true,
				       RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_sk_lookup_udp] = { { h_sk_lookup_udp, "bpf_sk_lookup_udp", false, true,
				       RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skc_lookup_tcp] = { { h_skc_lookup_tcp, "bpf_skc_lookup_tcp", false, true,
					RET_PTR_TO_SOCK_COMMON_OR_NULL, ARGS(SK_LOOKUP_ARGS) },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_sk_release] = { { h_sk_release, "bpf_sk_release", false, false, RET_INTEGER,
				    ARGS(ARG_PTR_TO_SOCK_RELEASE) },
				  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) | TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_tcp_sock] = { { h_tcp_sock, "bpf_tcp_sock", false, false,
				  RET_PTR_TO_TCP_SOCK_OR_NULL, ARGS(ARG_PTR_TO_SOCK_COMMON) },
				TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_sk_assign] = { { h_sk_assign, "bpf_sk_assign", false, false, RET_INTEGER,
				   ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING) },
				 TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_listener_sock] = { { h_get_listener_sock, "bpf_get_listener_sock", false,
					   false, RET_PTR_TO_SOCKET_OR_NULL,
					   ARGS(ARG_PTR_TO_SOCK_COMMON) },
					 TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_sk_fullsock] = { { h_sk_fullsock, "bpf_sk_fullsock", false, false,
				     RET_PTR_TO_SOCKET_OR_NULL, ARGS(ARG_PTR_TO_SOCK_COMMON) },
				   TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	/* the cgroup of the socket, which a test run's is made in: the calling thread's, as the
	 * skb forms answer (their functions, which do not look at their first argument) */
	[BPF_FUNC_sk_cgroup_id] = { { h_skb_cgroup_id, "bpf_sk_cgroup_id", false, false,
				      RET_INTEGER, ARGS(ARG_PTR_TO_BTF_ID_SOCK_COMMON) }, 0 },
	[BPF_FUNC_sk_ancestor_cgroup_id] = { { h_skb_ancestor_cgroup_id, "bpf_sk_ancestor_cgroup_id",
					       false, false, RET_INTEGER,
					       ARGS(ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING) },
					     0 },
	[BPF_FUNC_sk_storage_get] = { { h_sk_storage_get, "bpf_sk_storage_get", false, false,
					RET_PTR_TO_MAP_VALUE_OR_NULL,
					ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_SOCK_COMMON,
					     ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING) },
				      TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_sk_storage_delete] = { { h_sk_storage_delete, "bpf_sk_storage_delete", false,
					   false, RET_INTEGER,
					   ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_SOCK_COMMON) },
					 TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	/* (base helpers in 6.18: every program type may keep values on a task) */
	[BPF_FUNC_task_storage_get] = { { h_task_storage_get, "bpf_task_storage_get", false, false,
					  RET_PTR_TO_MAP_VALUE_OR_NULL,
					  ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_TASK,
					       ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING) },
					ALL_TYPES },
	[BPF_FUNC_task_storage_delete] = { { h_task_storage_delete, "bpf_task_storage_delete",
					     false, false, RET_INTEGER,
					     ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_TASK) },
					   ALL_TYPES },
	[BPF_FUNC_cgrp_storage_get] = { { h_cgrp_storage_get, "bpf_cgrp_storage_get", false, false,
					  RET_PTR_TO_MAP_VALUE_OR_NULL,
					  ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_CGROUP,
					       ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING) },
					ALL_TYPES },
	[BPF_FUNC_cgrp_storage_delete] = { { h_cgrp_storage_delete, "bpf_cgrp_storage_delete",
					     false, false, RET_INTEGER,
					     ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_CGROUP) },
					   ALL_TYPES },
	[BPF_FUNC_get_local_storage] = { { h_get_local_storage, "bpf_get_local_storage", false,
					   false, RET_PTR_TO_MAP_VALUE,
					   ARGS(ARG_CONST_MAP_PTR, ARG_ANYTHING) },
					 TYPE_BIT(BPF_PROG_TYPE_CGROUP_SKB) |
						 TYPE_BIT(BPF_PROG_TYPE_CGROUP_SOCK) },
	[BPF_FUNC_send_signal] = { { h_send_signal, "bpf_send_signal", false, false, RET_INTEGER,
				     ARGS(ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_send_signal_thread] = { { h_send_signal_thread, "bpf_send_signal_thread", false,
					    false, RET_INTEGER, ARGS(ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_get_ns_current_pid_tgid] = { { h_get_ns_current_pid_tgid,
						 "bpf_get_ns_current_pid_tgid", false, false,
						 RET_INTEGER, ARGS(ARG_ANYTHING, ARG_ANYTHING,
								   ARG_PTR_TO_UNINIT_MEM,
								   ARG_CONST_SIZE) },
					       ALL_TYPES },
	[BPF_FUNC_skb_set_tunnel_key] = { { h_skb_set_tunnel_key, "bpf_skb_set_tunnel_key", false,
					    false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE,
						 ARG_ANYTHING) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_get_tunnel_key] = { { h_skb_get_tunnel_key, "bpf_skb_get_tunnel_key", false,
					    false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE,
						 ARG_ANYTHING) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_set_tunnel_opt] = { { h_skb_set_tunnel_opt, "bpf_skb_set_tunnel_opt", false,
					    false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_get_tunnel_opt] = { { h_skb_get_tunnel_opt, "bpf_skb_get_tunnel_opt", false,
					    false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM,
						 ARG_CONST_SIZE) },
					  TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_vlan_push] = { { h_skb_vlan_push, "bpf_skb_vlan_push", false, false,
				       RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING),
				       .changes_pkt_data = true },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_vlan_pop] = { { h_skb_vlan_pop, "bpf_skb_vlan_pop", false, false,
				      RET_INTEGER, ARGS(ARG_PTR_TO_CTX), .changes_pkt_data = true },
				    TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_hash_recalc] = { { h_get_hash_recalc, "bpf_get_hash_recalc", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_set_hash] = { { h_set_hash, "bpf_set_hash", false, false, RET_INTEGER,
				  ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) },
				TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_set_hash_invalid] = { { h_set_hash_invalid, "bpf_set_hash_invalid", false, false,
					  RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
					TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_change_type] = { { h_skb_change_type, "bpf_skb_change_type", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_skb_pull_data] = { { h_skb_pull_data, "bpf_skb_pull_data", false, false,
				       RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING),
				       .changes_pkt_data = true },
				     TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_socket_cookie] = { { h_get_socket_cookie, "bpf_get_socket_cookie", false,
					   false, RET_INTEGER, ARGS(ARG_PTR_TO_CTX) }, SKB_TYPES },
	[BPF_FUNC_get_socket_uid] = { { h_get_socket_uid, "bpf_get_socket_uid", false, false,
					RET_INTEGER, ARGS(ARG_PTR_TO_CTX) }, SKB_TYPES },
	/* (tc: the skb's; the other types: the current task's, without arguments) */
	[BPF_FUNC_get_cgroup_classid] = { { h_cgroup_classid, "bpf_get_cgroup_classid", false,
					    false, RET_INTEGER, ARGS(0) },
					  ALL_TYPES & ~TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_route_realm] = { { h_zero, "bpf_get_route_realm", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_jiffies64] = { { h_jiffies64, "bpf_jiffies64", false, false, RET_INTEGER,
				   ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_ktime_get_tai_ns] = { { h_ktime_get_tai_ns, "bpf_ktime_get_tai_ns", false,
					  false, RET_INTEGER, ARGS(0) }, ALL_TYPES },
	/* tracing programs' form; skb and XDP programs get theirs from bpf_helper_proto() */
	[BPF_FUNC_perf_event_output] = { { h_perf_event_output, "bpf_perf_event_output", true,
					   false, RET_INTEGER,
					   ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING,
						ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO) },
					 TRACING_TYPES },
	[BPF_FUNC_ringbuf_output] = { { h_ringbuf_output, "bpf_ringbuf_output", false, false,
					RET_INTEGER,
					ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MEM,
					     ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_ringbuf_reserve] = { { h_ringbuf_reserve, "bpf_ringbuf_reserve", false, false,
					 RET_PTR_TO_RINGBUF_MEM_OR_NULL,
					 ARGS(ARG_CONST_MAP_PTR, ARG_CONST_ALLOC_SIZE_OR_ZERO,
					      ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_ringbuf_submit] = { { h_ringbuf_submit, "bpf_ringbuf_submit", false, false,
					RET_VOID,
					ARGS(ARG_PTR_TO_RINGBUF_MEM_RELEASE, ARG_ANYTHING) },
				      ALL_TYPES },
	[BPF_FUNC_ringbuf_discard] = { { h_ringbuf_discard, "bpf_ringbuf_discard", false, false,
					 RET_VOID, ARGS(ARG_PTR_TO_RINGBUF_MEM_RELEASE,
							ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_spin_lock] = { { h_spin_lock, "bpf_spin_lock", false, false, RET_VOID,
				   ARGS(ARG_PTR_TO_SPIN_LOCK) }, ALL_TYPES },
	[BPF_FUNC_spin_unlock] = { { h_spin_unlock, "bpf_spin_unlock", false, false, RET_VOID,
				     ARGS(ARG_PTR_TO_SPIN_LOCK) }, ALL_TYPES },
	[BPF_FUNC_ringbuf_query] = { { h_ringbuf_query, "bpf_ringbuf_query", false, false,
				       RET_INTEGER, ARGS(ARG_CONST_MAP_PTR, ARG_ANYTHING) },
				     ALL_TYPES },
	[BPF_FUNC_map_lookup_percpu_elem] = { { h_map_lookup_percpu_elem,
						"bpf_map_lookup_percpu_elem", false, true,
						RET_PTR_TO_MAP_VALUE_OR_NULL,
						ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY,
						     ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_loop] = { { h_loop, "bpf_loop", false, false, RET_INTEGER,
			      ARGS(ARG_ANYTHING, ARG_PTR_TO_FUNC, ARG_PTR_TO_STACK_OR_NULL,
				   ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_for_each_map_elem] = { { h_for_each_map_elem, "bpf_for_each_map_elem", false,
					   false, RET_INTEGER,
					   ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_FUNC,
						ARG_PTR_TO_STACK_OR_NULL, ARG_ANYTHING) },
					 ALL_TYPES },
	[BPF_FUNC_timer_init] = { { bpf_timer_init_helper, "bpf_timer_init", true, false,
				    RET_INTEGER,
				    ARGS(ARG_PTR_TO_TIMER, ARG_CONST_MAP_PTR, ARG_ANYTHING) },
				  ALL_TYPES },
	[BPF_FUNC_timer_set_callback] = { { bpf_timer_set_callback_helper,
					    "bpf_timer_set_callback", true, false, RET_INTEGER,
					    ARGS(ARG_PTR_TO_TIMER, ARG_PTR_TO_FUNC) },
					  ALL_TYPES },
	[BPF_FUNC_timer_start] = { { bpf_timer_start_helper, "bpf_timer_start", true, false,
				     RET_INTEGER,
				     ARGS(ARG_PTR_TO_TIMER, ARG_ANYTHING, ARG_ANYTHING) },
				   ALL_TYPES },
	[BPF_FUNC_timer_cancel] = { { bpf_timer_cancel_helper, "bpf_timer_cancel", true, false,
				      RET_INTEGER, ARGS(ARG_PTR_TO_TIMER) },
				    ALL_TYPES },
	[BPF_FUNC_dynptr_from_mem] = { { bpf_dynptr_from_mem_helper, "bpf_dynptr_from_mem", false,
					 false, RET_INTEGER,
					 ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					      ARG_ANYTHING, ARG_PTR_TO_DYNPTR_LOCAL_UNINIT) },
				       ALL_TYPES },
	[BPF_FUNC_dynptr_read] = { { bpf_dynptr_read_helper, "bpf_dynptr_read", false, false,
				     RET_INTEGER,
				     ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					  ARG_PTR_TO_DYNPTR_RDONLY, ARG_ANYTHING, ARG_ANYTHING) },
				   ALL_TYPES },
	[BPF_FUNC_dynptr_write] = { { bpf_dynptr_write_helper, "bpf_dynptr_write", false, false,
				      RET_INTEGER,
				      ARGS(ARG_PTR_TO_DYNPTR_RDONLY, ARG_ANYTHING, ARG_PTR_TO_MEM,
					   ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING) },
				    ALL_TYPES },
	[BPF_FUNC_dynptr_data] = { { bpf_dynptr_data_helper, "bpf_dynptr_data", false, false,
				     RET_PTR_TO_DYNPTR_MEM_OR_NULL,
				     ARGS(ARG_PTR_TO_DYNPTR_RDONLY, ARG_ANYTHING,
					  ARG_CONST_ALLOC_SIZE_OR_ZERO) },
				   ALL_TYPES },
	[BPF_FUNC_ringbuf_reserve_dynptr] = { { bpf_ringbuf_reserve_dynptr_helper,
						"bpf_ringbuf_reserve_dynptr", false, false,
						RET_INTEGER,
						ARGS(ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_ANYTHING,
						     ARG_PTR_TO_DYNPTR_RINGBUF_UNINIT) },
					      ALL_TYPES },
	[BPF_FUNC_ringbuf_submit_dynptr] = { { bpf_ringbuf_submit_dynptr_helper,
					       "bpf_ringbuf_submit_dynptr", false, false, RET_VOID,
					       ARGS(ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE,
						    ARG_ANYTHING) },
					     ALL_TYPES },
	[BPF_FUNC_ringbuf_discard_dynptr] = { { bpf_ringbuf_discard_dynptr_helper,
						"bpf_ringbuf_discard_dynptr", false, false, RET_VOID,
						ARGS(ARG_PTR_TO_DYNPTR_RINGBUF_RELEASE,
						     ARG_ANYTHING) },
					      ALL_TYPES },
	[BPF_FUNC_user_ringbuf_drain] = { { h_user_ringbuf_drain, "bpf_user_ringbuf_drain", false,
					    false, RET_INTEGER,
					    ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_FUNC,
						 ARG_PTR_TO_STACK_OR_NULL, ARG_ANYTHING) },
					  ALL_TYPES },
	[BPF_FUNC_tail_call] = { { h_tail_call, "bpf_tail_call", false, false, RET_VOID,
				   ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING) },
				 ALL_TYPES },
	[BPF_FUNC_ktime_get_ns] = { { h_ktime_get_ns, "bpf_ktime_get_ns", false, false,
				      RET_INTEGER, ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_trace_printk] = { { h_trace_printk, "bpf_trace_printk", true, false,
				      RET_INTEGER, ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE) },
				    ALL_TYPES },
	[BPF_FUNC_get_prandom_u32] = { { h_get_prandom_u32, "bpf_get_prandom_u32", false, false,
					 RET_INTEGER, ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_get_smp_processor_id] = { { h_get_smp_processor_id,
					      "bpf_get_smp_processor_id", false, false,
					      RET_INTEGER, ARGS(0) }, ALL_TYPES },
	/* (neither takes the packet itself: pkt_access false, as the kernel's) */
	[BPF_FUNC_skb_store_bytes] = { { h_skb_store_bytes, "bpf_skb_store_bytes", false, false,
					 RET_INTEGER,
					 ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_MEM,
					      ARG_CONST_SIZE, ARG_ANYTHING), .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_get_current_pid_tgid] = { { h_get_current_pid_tgid,
					      "bpf_get_current_pid_tgid", false, false,
					      RET_INTEGER, ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_get_current_uid_gid] = { { h_get_current_uid_gid, "bpf_get_current_uid_gid",
					     false, false, RET_INTEGER, ARGS(0) },
					   ALL_TYPES },
	[BPF_FUNC_get_current_task] = { { h_get_current_task, "bpf_get_current_task", true, false,
					  RET_INTEGER, ARGS(0) }, ALL_TYPES },
	/* the same task, typed: the program reads its fields directly (btf_access.c) */
	/* (a base helper in 6.18: every program type) */
	[BPF_FUNC_kptr_xchg] = { { h_kptr_xchg, "bpf_kptr_xchg", false, false,
				   RET_PTR_TO_BTF_ID_KPTR_OR_NULL,
				   ARGS(ARG_KPTR_XCHG_DEST, ARG_PTR_TO_BTF_ID_KPTR_RELEASE) },
				 ALL_TYPES },
	[BPF_FUNC_get_current_task_btf] = { { h_get_current_task, "bpf_get_current_task_btf",
					      true, false, RET_PTR_TO_BTF_ID_TASK, ARGS(0) },
					    ALL_TYPES },
	/* (a base helper of 6.18's, with perfmon: every program type) */
	[BPF_FUNC_find_vma] = { { h_find_vma, "bpf_find_vma", false, false, RET_INTEGER,
				  ARGS(ARG_PTR_TO_BTF_ID_TASK_NOT_NULL, ARG_ANYTHING, ARG_PTR_TO_FUNC,
				       ARG_PTR_TO_STACK_OR_NULL, ARG_ANYTHING) },
				ALL_TYPES },
	[BPF_FUNC_get_current_comm] = { { h_get_current_comm, "bpf_get_current_comm", false,
					  false, RET_INTEGER,
					  ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE) },
					ALL_TYPES },
	[BPF_FUNC_skb_load_bytes] = { { h_skb_load_bytes, "bpf_skb_load_bytes", false, false,
					RET_INTEGER,
					ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
					     ARG_CONST_SIZE) }, SKB_TYPES },
	[BPF_FUNC_probe_read_user] = { { h_probe_read, "bpf_probe_read_user", true, false,
					 RET_INTEGER,
					 ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					      ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_probe_read_kernel] = { { h_probe_read_kernel, "bpf_probe_read_kernel", true,
					   false, RET_INTEGER,
					   ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
						ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_ktime_get_boot_ns] = { { h_ktime_get_boot_ns, "bpf_ktime_get_boot_ns", false,
					   false, RET_INTEGER, ARGS(0) }, ALL_TYPES },
	/* the legacy probe reads, and the string forms (tracing programs) */
	[BPF_FUNC_probe_read] = { { h_probe_read, "bpf_probe_read", true, false, RET_INTEGER,
				    ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					 ARG_ANYTHING) }, TRACING_TYPES },
	[BPF_FUNC_probe_read_str] = { { h_probe_read_str, "bpf_probe_read_str", true, false,
					RET_INTEGER,
					ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					     ARG_ANYTHING) }, TRACING_TYPES },
	[BPF_FUNC_probe_read_user_str] = { { h_probe_read_str, "bpf_probe_read_user_str", true,
					     false, RET_INTEGER,
					     ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
						  ARG_ANYTHING) }, ALL_TYPES },
	/* (a base helper in 6.18, which the verifier refuses to programs that are not
	 * sleepable) */
	[BPF_FUNC_copy_from_user] = { { h_copy_from_user, "bpf_copy_from_user", false, false,
					RET_INTEGER,
					ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
					     ARG_ANYTHING), .might_sleep = true }, ALL_TYPES },
	/* (the same, of a task's memory) */
	[BPF_FUNC_copy_from_user_task] = { { h_copy_from_user_task, "bpf_copy_from_user_task",
					     true, false, RET_INTEGER,
					     ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
						  ARG_ANYTHING, ARG_PTR_TO_BTF_ID_TASK_NOT_NULL,
						  ARG_ANYTHING), .might_sleep = true }, ALL_TYPES },
	[BPF_FUNC_probe_read_kernel_str] = { { h_probe_read_kernel_str,
					       "bpf_probe_read_kernel_str", true, false, RET_INTEGER,
					       ARGS(ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO,
						    ARG_ANYTHING) }, ALL_TYPES },
	[BPF_FUNC_get_numa_node_id] = { { h_get_numa_node_id, "bpf_get_numa_node_id", false,
					  false, RET_INTEGER, ARGS(0) }, ALL_TYPES },
	[BPF_FUNC_ktime_get_coarse_ns] = { { h_ktime_get_coarse_ns, "bpf_ktime_get_coarse_ns",
					     false, false, RET_INTEGER, ARGS(0) },
					   SKB_TYPES | TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_adjust_head] = { { h_xdp_adjust_head, "bpf_xdp_adjust_head", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING),
					 .changes_pkt_data = true }, TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_adjust_meta] = { { h_xdp_adjust_meta, "bpf_xdp_adjust_meta", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING),
					 .changes_pkt_data = true }, TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_adjust_tail] = { { h_xdp_adjust_tail, "bpf_xdp_adjust_tail", false, false,
					 RET_INTEGER, ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING),
					 .changes_pkt_data = true }, TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_get_buff_len] = { { h_xdp_get_buff_len, "bpf_xdp_get_buff_len", false,
					  false, RET_INTEGER, ARGS(ARG_PTR_TO_CTX) },
					TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_load_bytes] = { { h_xdp_load_bytes, "bpf_xdp_load_bytes", false, false,
					RET_INTEGER,
					ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
					     ARG_CONST_SIZE) }, TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_xdp_store_bytes] = { { h_xdp_store_bytes, "bpf_xdp_store_bytes", false, false,
					 RET_INTEGER,
					 ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_MEM,
					      ARG_CONST_SIZE) }, TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_skb_load_bytes_relative] = { { h_skb_load_bytes_relative,
						 "bpf_skb_load_bytes_relative", false, false,
						 RET_INTEGER,
						 ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING,
						      ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE,
						      ARG_ANYTHING) }, SKB_TYPES },
	[BPF_FUNC_strtol] = { { h_strtol, "bpf_strtol", false, false, RET_INTEGER,
				ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_ANYTHING, ARG_PTR_TO_LONG) },
			      ALL_TYPES },
	[BPF_FUNC_strtoul] = { { h_strtoul, "bpf_strtoul", false, false, RET_INTEGER,
				 ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_ANYTHING, ARG_PTR_TO_LONG) },
			       ALL_TYPES },
	[BPF_FUNC_snprintf] = { { h_snprintf, "bpf_snprintf", true, false, RET_INTEGER,
				  ARGS(ARG_PTR_TO_WRITE_MEM_OR_NULL, ARG_CONST_SIZE_OR_ZERO,
				       ARG_PTR_TO_CONST_STR, ARG_PTR_TO_MEM_OR_NULL,
				       ARG_CONST_SIZE_OR_ZERO) }, ALL_TYPES },
	[BPF_FUNC_trace_vprintk] = { { h_trace_vprintk, "bpf_trace_vprintk", true, false,
				       RET_INTEGER, ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE,
							 ARG_PTR_TO_MEM_OR_NULL,
							 ARG_CONST_SIZE_OR_ZERO) }, ALL_TYPES },
	[BPF_FUNC_strncmp] = { { h_strncmp, "bpf_strncmp", false, false, RET_INTEGER,
				 ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_PTR_TO_CONST_STR) },
			       ALL_TYPES },
	[BPF_FUNC_csum_diff] = { { h_csum_diff, "bpf_csum_diff", false, true, RET_INTEGER,
				   ARGS(ARG_PTR_TO_MEM_OR_NULL, ARG_CONST_SIZE_OR_ZERO,
					ARG_PTR_TO_MEM_OR_NULL, ARG_CONST_SIZE_OR_ZERO,
					ARG_ANYTHING) },
				 TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) | TYPE_BIT(BPF_PROG_TYPE_XDP) },
	[BPF_FUNC_l3_csum_replace] = { { h_l3_csum_replace, "bpf_l3_csum_replace", false, false,
					 RET_INTEGER,
					 ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING,
					      ARG_ANYTHING, ARG_ANYTHING),
					 .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
	[BPF_FUNC_l4_csum_replace] = { { h_l4_csum_replace, "bpf_l4_csum_replace", false, false,
					 RET_INTEGER,
					 ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING,
					      ARG_ANYTHING, ARG_ANYTHING),
					 .changes_pkt_data = true },
				       TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) },
};

/* Helpers whose implementation depends on the program type (the kernel's <type>_func_proto()
 * returns a different proto for the same id). */
/* XDP's socket lookups (the kernel's bpf_xdp_sk_lookup_*()) and a cgroup sock_addr
 * program's (bpf_sock_addr_sk_lookup_*(), which takes no packet), by helper id. */
static const struct helper xdp_lookup_helpers[] = {
	[BPF_FUNC_sk_lookup_tcp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_xdp_sk_lookup_tcp, "bpf_sk_lookup_tcp", false, true,
		  RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
	[BPF_FUNC_sk_lookup_udp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_xdp_sk_lookup_udp, "bpf_sk_lookup_udp", false, true,
		  RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
	[BPF_FUNC_skc_lookup_tcp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_xdp_skc_lookup_tcp, "bpf_skc_lookup_tcp", false, true,
		  RET_PTR_TO_SOCK_COMMON_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
};
static const struct helper sa_lookup_helpers[] = {
	[BPF_FUNC_sk_lookup_tcp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_sa_sk_lookup_tcp, "bpf_sk_lookup_tcp", false, false,
		  RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
	[BPF_FUNC_sk_lookup_udp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_sa_sk_lookup_udp, "bpf_sk_lookup_udp", false, false,
		  RET_PTR_TO_SOCKET_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
	[BPF_FUNC_skc_lookup_tcp - BPF_FUNC_sk_lookup_tcp] = {
		{ h_sa_skc_lookup_tcp, "bpf_skc_lookup_tcp", false, false,
		  RET_PTR_TO_SOCK_COMMON_OR_NULL, ARGS(SK_LOOKUP_ARGS) }, 0 },
};

/* Which of the lookup tables' entries func_id is (-1: none). */
static int lookup_index(u32 func_id)
{
	return func_id == BPF_FUNC_sk_lookup_tcp || func_id == BPF_FUNC_sk_lookup_udp ||
			       func_id == BPF_FUNC_skc_lookup_tcp
		       ? (int)(func_id - BPF_FUNC_sk_lookup_tcp)
		       : -1;
}

static const struct helper sk_lookup_assign_helper = {
	{ h_sk_lookup_assign, "bpf_sk_assign", false, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_SOCKET_OR_NULL, ARG_ANYTHING) }, 0 };
static const struct helper xdp_redirect_helper = {
	{ h_xdp_redirect, "bpf_redirect", false, false, RET_INTEGER,
	  ARGS(ARG_ANYTHING, ARG_ANYTHING) }, TYPE_BIT(BPF_PROG_TYPE_XDP) };
static const struct helper tc_classid_helper = {
	{ h_cgroup_classid, "bpf_get_cgroup_classid", false, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX) },
	TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) };
static const struct helper xdp_check_mtu_helper = {
	{ h_xdp_check_mtu, "bpf_check_mtu", true, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_INT, ARG_ANYTHING, ARG_ANYTHING) },
	TYPE_BIT(BPF_PROG_TYPE_XDP) };
static const struct helper xdp_fib_lookup_helper = {
	{ h_xdp_fib_lookup, "bpf_fib_lookup", true, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_WRITE_MEM, ARG_CONST_SIZE, ARG_ANYTHING) },
	TYPE_BIT(BPF_PROG_TYPE_XDP) };
static const struct helper pe_get_stackid_helper = {
	{ h_get_stackid, "bpf_get_stackid", false, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING) }, TYPE_BIT(BPF_PROG_TYPE_PERF_EVENT) };
static const struct helper pe_read_branch_records_helper = {
	{ h_read_branch_records, "bpf_read_branch_records", true, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_WRITE_MEM_OR_NULL, ARG_CONST_SIZE_OR_ZERO,
	       ARG_ANYTHING) }, TYPE_BIT(BPF_PROG_TYPE_PERF_EVENT) };
static const struct helper pe_prog_read_value_helper = {
	{ h_perf_prog_read_value, "bpf_perf_prog_read_value", true, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE) },
	TYPE_BIT(BPF_PROG_TYPE_PERF_EVENT) };
static const struct helper cg_sock_sk_storage_get_helper = {
	{ h_sk_storage_get, "bpf_sk_storage_get", false, false, RET_PTR_TO_MAP_VALUE_OR_NULL,
	  ARGS(ARG_CONST_MAP_PTR, ARG_PTR_TO_CTX, ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING) },
	TYPE_BIT(BPF_PROG_TYPE_CGROUP_SOCK) };
static const struct helper flow_dissector_load_bytes_helper = {
	{ h_flow_dissector_load_bytes, "bpf_skb_load_bytes", false, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE) },
	TYPE_BIT(BPF_PROG_TYPE_FLOW_DISSECTOR) };
static const struct helper tc_redirect_helper = {
	{ h_redirect, "bpf_redirect", false, false, RET_INTEGER,
	  ARGS(ARG_ANYTHING, ARG_ANYTHING) }, TYPE_BIT(BPF_PROG_TYPE_SCHED_CLS) };

static const struct helper skb_event_output_helper = {
	{ h_skb_event_output, "bpf_perf_event_output", true, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM,
	       ARG_CONST_SIZE_OR_ZERO) },
	SKB_TYPES };
static const struct helper xdp_event_output_helper = {
	{ h_xdp_event_output, "bpf_perf_event_output", true, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM,
	       ARG_CONST_SIZE_OR_ZERO) },
	TYPE_BIT(BPF_PROG_TYPE_XDP) };

/* LWT programs (the kernel's lwt_out_func_proto(), lwt_in_... and lwt_xmit_...): the base
 * helpers of a socket filter without its socket ones, some skb ones, and for transmit programs
 * most of tc's packet and tunnel helpers. */
static const struct bpf_func_proto *lwt_helper_proto(u32 func_id, u32 prog_type)
{
	bool xmit = prog_type == BPF_PROG_TYPE_LWT_XMIT;

	switch (func_id) {
	case BPF_FUNC_skb_load_bytes:
	case BPF_FUNC_skb_pull_data:
	case BPF_FUNC_csum_diff:
	case BPF_FUNC_get_route_realm:
	case BPF_FUNC_get_hash_recalc:
	case BPF_FUNC_skb_under_cgroup:
		return &helpers[func_id].proto;
	case BPF_FUNC_get_cgroup_classid:
		return &tc_classid_helper.proto;
	case BPF_FUNC_skb_load_bytes_relative:
	case BPF_FUNC_get_socket_cookie:
	case BPF_FUNC_get_socket_uid:
	case BPF_FUNC_get_netns_cookie:
		return NULL;
	case BPF_FUNC_redirect:
		return xmit ? &tc_redirect_helper.proto : NULL;
	case BPF_FUNC_skb_get_tunnel_key:
	case BPF_FUNC_skb_set_tunnel_key:
	case BPF_FUNC_skb_get_tunnel_opt:
	case BPF_FUNC_skb_set_tunnel_opt:
	case BPF_FUNC_clone_redirect:
	case BPF_FUNC_skb_change_tail:
	case BPF_FUNC_skb_change_head:
	case BPF_FUNC_skb_store_bytes:
	case BPF_FUNC_csum_level:
	case BPF_FUNC_csum_update:
	case BPF_FUNC_l3_csum_replace:
	case BPF_FUNC_l4_csum_replace:
	case BPF_FUNC_set_hash_invalid:
		return xmit ? &helpers[func_id].proto : NULL;
	default:
		return bpf_helper_proto(func_id, BPF_PROG_TYPE_SOCKET_FILTER);
	}
}

/* The base helpers (the kernel's bpf_base_func_proto()): those every program type here has. */
static const struct bpf_func_proto *base_helper_proto(u32 func_id)
{
	return func_id < ARRAY_SIZE(helpers) && helpers[func_id].proto.func &&
			       (helpers[func_id].types & ALL_TYPES) == ALL_TYPES
		       ? &helpers[func_id].proto
		       : NULL;
}

/* A cgroup sock program's helpers (the kernel's sock_filter_func_proto()): the base ones that
 * every type here has, the current task's, and the socket's forms of get_socket_cookie and
 * get_netns_cookie, which take the ctx as the skb forms do, and the data form of
 * perf_event_output, with the tracing form's arguments.  The kernel has no BPF_PROG_TEST_RUN
 * for the type and userbpf no hook to attach it to, so the programs are verified, never run:
 * what matters is each prototype.  A sock_addr program (the kernel's sock_addr_func_proto()) has
 * the same but for the socket storage helpers, which take its ctx->sk (a cgroup sock program's
 * get takes the ctx, the socket itself, and it has no delete). */
static const struct bpf_func_proto *cgroup_sock_helper_proto(u32 func_id, u32 prog_type)
{
	bool sock_addr = prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR;

	if (sock_addr && lookup_index(func_id) >= 0)
		return &sa_lookup_helpers[lookup_index(func_id)].proto;
	switch (func_id) {
	case BPF_FUNC_sk_release:
		return sock_addr ? &helpers[func_id].proto : NULL;
	case BPF_FUNC_sk_storage_get:
		return sock_addr ? &helpers[func_id].proto : &cg_sock_sk_storage_get_helper.proto;
	case BPF_FUNC_sk_storage_delete:
		return sock_addr ? &helpers[func_id].proto : NULL;
	case BPF_FUNC_get_socket_cookie:
	case BPF_FUNC_get_netns_cookie:
	case BPF_FUNC_perf_event_output:
	case BPF_FUNC_get_current_uid_gid:
	case BPF_FUNC_get_current_comm:
	case BPF_FUNC_get_cgroup_classid:
	case BPF_FUNC_ktime_get_coarse_ns:
	case BPF_FUNC_get_local_storage:
		return &helpers[func_id].proto;
	default:
		return base_helper_proto(func_id);
	}
}

/* A cgroup device program's (the kernel's cgroup_dev_func_proto()): the cgroup hooks' common
 * ones (the storage, the current task's) and the data form of perf_event_output, then the base
 * ones.  Verified only, as cgroup sock programs. */
static const struct bpf_func_proto *cgroup_dev_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_perf_event_output:
	case BPF_FUNC_get_current_uid_gid:
	case BPF_FUNC_get_current_comm:
	case BPF_FUNC_get_cgroup_classid:
	case BPF_FUNC_get_local_storage:
		return &helpers[func_id].proto;
	default:
		return base_helper_proto(func_id);
	}
}

/* A cgroup sysctl program's own helpers (the sysctl's name and values), which never run here. */
static const struct helper sysctl_helpers[] = {
	{ { h_zero, "bpf_sysctl_get_name", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_WRITE_MEM, ARG_CONST_SIZE, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_sysctl_get_current_value", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE) }, 0 },
	{ { h_zero, "bpf_sysctl_get_new_value", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE) }, 0 },
	{ { h_zero, "bpf_sysctl_set_new_value", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE) }, 0 },
};

/* A cgroup sysctl program's (the kernel's sysctl_func_proto()): its own four, the coarse clock,
 * and a device program's.  Verified only. */
static const struct bpf_func_proto *cgroup_sysctl_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_sysctl_get_name:
	case BPF_FUNC_sysctl_get_current_value:
	case BPF_FUNC_sysctl_get_new_value:
	case BPF_FUNC_sysctl_set_new_value:
		return &sysctl_helpers[func_id - BPF_FUNC_sysctl_get_name].proto;
	case BPF_FUNC_ktime_get_coarse_ns:
		return &helpers[func_id].proto;
	default:
		return cgroup_dev_helper_proto(func_id);
	}
}

/* A cgroup sockopt program's (the kernel's cg_sockopt_func_proto()): a device program's, the
 * netns cookie of its ctx, and the socket storage and TCP view of its ctx->sk.  Verified only
 * too. */
static const struct bpf_func_proto *cgroup_sockopt_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_get_netns_cookie:
	case BPF_FUNC_sk_storage_get:
	case BPF_FUNC_sk_storage_delete:
	case BPF_FUNC_tcp_sock:
		return &helpers[func_id].proto;
	default:
		return cgroup_dev_helper_proto(func_id);
	}
}

/* A flow dissector's (the kernel's flow_dissector_func_proto()): its own skb_load_bytes, and the
 * networking types' base helpers (bpf_sk_base_func_proto()): the ones every type here has, the
 * coarse clock, and the current task's classid (tc's other form of it aside). */
static const struct bpf_func_proto *flow_dissector_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_skb_load_bytes:
		return &flow_dissector_load_bytes_helper.proto;
	case BPF_FUNC_ktime_get_coarse_ns:
	case BPF_FUNC_get_cgroup_classid:
		return &helpers[func_id].proto;
	default:
		return base_helper_proto(func_id);
	}
}

static const struct helper syscall_helpers[] = {
	{ { h_sys_bpf, "bpf_sys_bpf", false, false, RET_INTEGER,
	    ARGS(ARG_ANYTHING, ARG_PTR_TO_MEM, ARG_CONST_SIZE) }, 0 },
	{ { h_sys_close, "bpf_sys_close", false, false, RET_INTEGER, ARGS(ARG_ANYTHING) }, 0 },
	{ { h_btf_find_by_name_kind, "bpf_btf_find_by_name_kind", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_ANYTHING, ARG_ANYTHING) }, 0 },
	{ { h_kallsyms_lookup_name, "bpf_kallsyms_lookup_name", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING, ARG_PTR_TO_LONG) }, 0 },
};

/* A sock_ops program's own helpers (the socket's options, its callbacks, socket maps, TCP
 * header options), which never run here. */
static const struct helper sock_ops_helpers[] = {
	{ { h_zero, "bpf_setsockopt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_MEM, ARG_CONST_SIZE) }, 0 },
	{ { h_zero, "bpf_getsockopt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
		 ARG_CONST_SIZE) }, 0 },
	{ { h_zero, "bpf_sock_ops_cb_flags_set", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_sock_map_update", false, true, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_sock_hash_update", false, true, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_load_hdr_opt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_WRITE_MEM, ARG_CONST_SIZE, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_store_hdr_opt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_ANYTHING) }, 0 },
	{ { h_zero, "bpf_reserve_hdr_opt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING) }, 0 },
};

/* bpf_bind(ctx, addr, addr_len): a sock_addr program binds the socket at its connect hooks;
 * verified only, as the program never runs here. */
static const struct helper sa_bind_helper = {
	{ h_zero, "bpf_bind", false, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_MEM, ARG_CONST_SIZE) }, 0 };

/* A cgroup sockopt program's setsockopt and getsockopt (the kernel's bpf_sk_setsockopt()...):
 * on a socket, its ctx->sk, not on the ctx. */
static const struct helper sk_sockopt_helpers[] = {
	{ { h_zero, "bpf_setsockopt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_MEM,
		 ARG_CONST_SIZE) }, 0 },
	{ { h_zero, "bpf_getsockopt", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
		 ARG_CONST_SIZE) }, 0 },
};

/* A sock_ops program's (the kernel's sock_ops_func_proto()): the cgroup hooks' common ones,
 * its own, the socket's cookies, storage and TCP view, the data form of perf_event_output, then
 * the networking base ones (as a flow dissector's).  Verified only: the kernel has no test run
 * for it either. */
static const struct bpf_func_proto *sock_ops_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_setsockopt:
		return &sock_ops_helpers[0].proto;
	case BPF_FUNC_getsockopt:
		return &sock_ops_helpers[1].proto;
	case BPF_FUNC_sock_ops_cb_flags_set:
		return &sock_ops_helpers[2].proto;
	case BPF_FUNC_sock_map_update:
		return &sock_ops_helpers[3].proto;
	case BPF_FUNC_sock_hash_update:
		return &sock_ops_helpers[4].proto;
	case BPF_FUNC_load_hdr_opt:
	case BPF_FUNC_store_hdr_opt:
	case BPF_FUNC_reserve_hdr_opt:
		return &sock_ops_helpers[5 + func_id - BPF_FUNC_load_hdr_opt].proto;
	case BPF_FUNC_get_local_storage:
	case BPF_FUNC_get_socket_cookie:
	case BPF_FUNC_get_netns_cookie:
	case BPF_FUNC_perf_event_output:
	case BPF_FUNC_sk_storage_get:
	case BPF_FUNC_sk_storage_delete:
	case BPF_FUNC_tcp_sock:
		return &helpers[func_id].proto;
	case BPF_FUNC_skb_load_bytes:
		return NULL;
	default:
		return flow_dissector_helper_proto(func_id);
	}
}

/* Socket map programs' own: an sk_skb program redirects a socket's stream data to a socket of
 * a map, an sk_msg program a message, and works on the message's bytes.  Verified only: the
 * kernel has no test run for either type, and userbpf no socket data to run them on. */
enum { SK_REDIRECT_MAP, SK_REDIRECT_HASH, MSG_REDIRECT_MAP, MSG_REDIRECT_HASH, MSG_APPLY_BYTES,
       MSG_CORK_BYTES, MSG_PULL_DATA, MSG_PUSH_DATA, MSG_POP_DATA };
static const struct helper sockmap_prog_helpers[] = {
	[SK_REDIRECT_MAP] = { { h_zero, "bpf_sk_redirect_map", false, false, RET_INTEGER,
				ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING,
				     ARG_ANYTHING) }, 0 },
	[SK_REDIRECT_HASH] = { { h_zero, "bpf_sk_redirect_hash", false, false, RET_INTEGER,
				 ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY,
				      ARG_ANYTHING) }, 0 },
	[MSG_REDIRECT_MAP] = { { h_zero, "bpf_msg_redirect_map", false, false, RET_INTEGER,
				 ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING,
				      ARG_ANYTHING) }, 0 },
	[MSG_REDIRECT_HASH] = { { h_zero, "bpf_msg_redirect_hash", false, false, RET_INTEGER,
				  ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY,
				       ARG_ANYTHING) }, 0 },
	[MSG_APPLY_BYTES] = { { h_zero, "bpf_msg_apply_bytes", false, false, RET_INTEGER,
				ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) }, 0 },
	[MSG_CORK_BYTES] = { { h_zero, "bpf_msg_cork_bytes", false, false, RET_INTEGER,
			       ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING) }, 0 },
	/* (these three move the message's bytes) */
	[MSG_PULL_DATA] = { { h_zero, "bpf_msg_pull_data", false, false, RET_INTEGER,
			      ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING),
			      .changes_pkt_data = true }, 0 },
	[MSG_PUSH_DATA] = { { h_zero, "bpf_msg_push_data", false, false, RET_INTEGER,
			      ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING),
			      .changes_pkt_data = true }, 0 },
	[MSG_POP_DATA] = { { h_zero, "bpf_msg_pop_data", false, false, RET_INTEGER,
			     ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING),
			     .changes_pkt_data = true }, 0 },
};

/* An sk_skb program's (the kernel's sk_skb_func_proto()): a tc program's packet helpers, the
 * socket's cookie and owner, redirection, the skb form of perf_event_output, the socket
 * lookups, then the networking base ones (as a flow dissector's). */
static const struct bpf_func_proto *sk_skb_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_skb_store_bytes:
	case BPF_FUNC_skb_load_bytes:
	case BPF_FUNC_skb_pull_data:
	case BPF_FUNC_skb_change_tail:
	case BPF_FUNC_skb_change_head:
	case BPF_FUNC_skb_adjust_room:
	case BPF_FUNC_get_socket_cookie:
	case BPF_FUNC_get_socket_uid:
	case BPF_FUNC_sk_lookup_tcp:
	case BPF_FUNC_sk_lookup_udp:
	case BPF_FUNC_skc_lookup_tcp:
	case BPF_FUNC_sk_release:
		return &helpers[func_id].proto;
	case BPF_FUNC_sk_redirect_map:
		return &sockmap_prog_helpers[SK_REDIRECT_MAP].proto;
	case BPF_FUNC_sk_redirect_hash:
		return &sockmap_prog_helpers[SK_REDIRECT_HASH].proto;
	case BPF_FUNC_perf_event_output:
		return &skb_event_output_helper.proto;
	default:
		return flow_dissector_helper_proto(func_id);
	}
}

/* An sk_msg program's (the kernel's sk_msg_func_proto()): its message helpers, the data form of
 * perf_event_output, the current task's ids, socket storage, the netns cookie, then the
 * networking base ones. */
static const struct bpf_func_proto *sk_msg_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_msg_redirect_map:
		return &sockmap_prog_helpers[MSG_REDIRECT_MAP].proto;
	case BPF_FUNC_msg_redirect_hash:
		return &sockmap_prog_helpers[MSG_REDIRECT_HASH].proto;
	case BPF_FUNC_msg_apply_bytes:
		return &sockmap_prog_helpers[MSG_APPLY_BYTES].proto;
	case BPF_FUNC_msg_cork_bytes:
		return &sockmap_prog_helpers[MSG_CORK_BYTES].proto;
	case BPF_FUNC_msg_pull_data:
		return &sockmap_prog_helpers[MSG_PULL_DATA].proto;
	case BPF_FUNC_msg_push_data:
		return &sockmap_prog_helpers[MSG_PUSH_DATA].proto;
	case BPF_FUNC_msg_pop_data:
		return &sockmap_prog_helpers[MSG_POP_DATA].proto;
	case BPF_FUNC_perf_event_output:
	case BPF_FUNC_get_current_uid_gid:
	case BPF_FUNC_sk_storage_get:
	case BPF_FUNC_sk_storage_delete:
	case BPF_FUNC_get_netns_cookie:
		return &helpers[func_id].proto;
	case BPF_FUNC_skb_load_bytes:
		return NULL;
	default:
		return flow_dissector_helper_proto(func_id);
	}
}

/* An sk_reuseport program's own (the kernel's sk_reuseport_func_proto()): the socket it selects
 * from a reuseport array or a socket map, the packet's bytes, the listening socket's cookie.
 * Verified only: the kernel runs the type on its sockets' packets and has no test run for it. */
enum { RP_SELECT, RP_LOAD_BYTES, RP_LOAD_BYTES_RELATIVE, RP_SOCKET_COOKIE };
static const struct helper sk_reuseport_helpers[] = {
	[RP_SELECT] = { { h_zero, "bpf_sk_select_reuseport", false, false, RET_INTEGER,
			  ARGS(ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY,
			       ARG_ANYTHING) }, 0 },
	[RP_LOAD_BYTES] = { { h_zero, "bpf_skb_load_bytes", false, false, RET_INTEGER,
			      ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
				   ARG_CONST_SIZE) }, 0 },
	[RP_LOAD_BYTES_RELATIVE] = { { h_zero, "bpf_skb_load_bytes_relative", false, false,
				       RET_INTEGER,
				       ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM,
					    ARG_CONST_SIZE, ARG_ANYTHING) }, 0 },
	[RP_SOCKET_COOKIE] = { { h_zero, "bpf_get_socket_cookie", false, false, RET_INTEGER,
				 ARGS(ARG_PTR_TO_BTF_ID_SOCK_COMMON_OR_NULL) }, 0 },
};

static const struct bpf_func_proto *sk_reuseport_helper_proto(u32 func_id)
{
	switch (func_id) {
	case BPF_FUNC_sk_select_reuseport:
		return &sk_reuseport_helpers[RP_SELECT].proto;
	case BPF_FUNC_skb_load_bytes:
		return &sk_reuseport_helpers[RP_LOAD_BYTES].proto;
	case BPF_FUNC_skb_load_bytes_relative:
		return &sk_reuseport_helpers[RP_LOAD_BYTES_RELATIVE].proto;
	case BPF_FUNC_get_socket_cookie:
		return &sk_reuseport_helpers[RP_SOCKET_COOKIE].proto;
	case BPF_FUNC_ktime_get_coarse_ns:
	case BPF_FUNC_get_cgroup_classid: /* (the current task's, 6.18's base form) */
		return &helpers[func_id].proto;
	default:
		return base_helper_proto(func_id);
	}
}

/* A trampoline program's own (the kernel's tracing_prog_func_proto() for fentry, fexit and
 * fmod_ret: func_args.c), and its form of bpf_get_func_ip() (every tracing program has it; the
 * verifier refuses it to tp_btf ones).  The trampoline types only: bpf_helper_proto_attach(). */
static const struct helper tracing_helpers[] = {
	{ { h_get_func_arg, "bpf_get_func_arg", true, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_LONG) }, 0 },
	{ { h_get_func_ret, "bpf_get_func_ret", true, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX, ARG_PTR_TO_LONG) }, 0 },
	{ { h_get_func_arg_cnt, "bpf_get_func_arg_cnt", true, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX) }, 0 },
	{ { h_get_attach_cookie_tracing, "bpf_get_attach_cookie", false, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_CTX) }, 0 },
};
/* An iterator program's output (the kernel's bpf_seq_printf() and bpf_seq_write(): seq.c). */
static const struct helper iter_helpers[] = {
	{ { h_seq_printf, "bpf_seq_printf", true, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_BTF_ID_SEQ_FILE, ARG_PTR_TO_MEM, ARG_CONST_SIZE, ARG_PTR_TO_MEM_OR_NULL,
		 ARG_CONST_SIZE_OR_ZERO) }, 0 },
	{ { h_seq_write, "bpf_seq_write", true, false, RET_INTEGER,
	    ARGS(ARG_PTR_TO_BTF_ID_SEQ_FILE, ARG_PTR_TO_MEM, ARG_CONST_SIZE_OR_ZERO) }, 0 },
};
static const struct helper tracing_func_ip_helper = {
	{ h_get_func_ip_tracing, "bpf_get_func_ip", true, false, RET_INTEGER,
	  ARGS(ARG_PTR_TO_CTX) }, 0 };

static bool trampoline_attach(u32 expected_attach_type)
{
	return expected_attach_type == BPF_TRACE_FENTRY || expected_attach_type == BPF_TRACE_FEXIT ||
	       expected_attach_type == BPF_MODIFY_RETURN || expected_attach_type == UINT32_MAX;
}

const struct bpf_func_proto *bpf_helper_proto(u32 func_id, u32 prog_type)
{
	/* setsockopt and getsockopt: a sock_addr program's take its ctx, as sock_ops ones do; a
	 * sockopt program's its ctx->sk (at some hooks of each: bpf_helper_proto_attach()) */
	if (func_id == BPF_FUNC_bind && prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR)
		return &sa_bind_helper.proto;
	if ((func_id == BPF_FUNC_setsockopt || func_id == BPF_FUNC_getsockopt) &&
	    (prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR || prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT))
		return &(prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT
				 ? sk_sockopt_helpers
				 : sock_ops_helpers)[func_id == BPF_FUNC_getsockopt].proto;
	/* a sock_addr program has a cgroup sock program's and the socket lookups (the kernel's
	 * sock_addr_func_proto(), but for helpers userbpf does not have, which bind or configure
	 * sockets) */
	if (prog_type == BPF_PROG_TYPE_CGROUP_SOCK || prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR)
		return cgroup_sock_helper_proto(func_id, prog_type);
	if (prog_type == BPF_PROG_TYPE_FLOW_DISSECTOR)
		return flow_dissector_helper_proto(func_id);
	/* a socket lookup program's (the kernel's sk_lookup_func_proto()): the networking base
	 * ones, as a flow dissector's, the data form of perf_event_output, sk_release and its
	 * own sk_assign */
	if (prog_type == BPF_PROG_TYPE_SK_LOOKUP)
		return func_id == BPF_FUNC_sk_assign ? &sk_lookup_assign_helper.proto
		       : func_id == BPF_FUNC_perf_event_output || func_id == BPF_FUNC_sk_release
			       ? &helpers[func_id].proto
		       : func_id == BPF_FUNC_skb_load_bytes  ? NULL
							     : flow_dissector_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_CGROUP_DEVICE)
		return cgroup_dev_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT)
		return cgroup_sockopt_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_CGROUP_SYSCTL)
		return cgroup_sysctl_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_SOCK_OPS)
		return sock_ops_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_SK_SKB)
		return sk_skb_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_SK_MSG)
		return sk_msg_helper_proto(func_id);
	if (prog_type == BPF_PROG_TYPE_SK_REUSEPORT)
		return sk_reuseport_helper_proto(func_id);
	/* a syscall program's (the kernel's syscall_prog_func_proto()): bpf(), close(), the
	 * kernel BTF's and kallsyms' lookups, then the tracing helpers */
	if (prog_type == BPF_PROG_TYPE_SYSCALL) {
		switch (func_id) {
		case BPF_FUNC_sys_bpf:
			return &syscall_helpers[0].proto;
		case BPF_FUNC_sys_close:
			return &syscall_helpers[1].proto;
		case BPF_FUNC_btf_find_by_name_kind:
			return &syscall_helpers[2].proto;
		case BPF_FUNC_kallsyms_lookup_name:
			return &syscall_helpers[3].proto;
		case BPF_FUNC_get_attach_cookie:
			return NULL; /* (no trampoline, the kernel's condition) */
		}
		prog_type = BPF_PROG_TYPE_KPROBE;
	}
	/* a tracing program's (the kernel's tracing_prog_func_proto()) are a raw tracepoint's,
	 * but for its forms of the socket and XDP helpers, which take kernel BTF pointers (a
	 * struct sock, an xdp_buff) no program here can hold: not offered */
	if (prog_type == BPF_PROG_TYPE_TRACING) {
		if (func_id == BPF_FUNC_get_socket_cookie || func_id == BPF_FUNC_sk_storage_get ||
		    func_id == BPF_FUNC_sk_storage_delete || func_id == BPF_FUNC_xdp_get_buff_len)
			return NULL;
		if (func_id == BPF_FUNC_get_func_ip)
			return &tracing_func_ip_helper.proto;
		prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	}
	/* perf event programs have the tracing helpers of kprobes (the kernel's
	 * pe_prog_func_proto() falls back to bpf_tracing_func_proto()), but their own
	 * get_stackid, which is not GPL-only */
	if (prog_type == BPF_PROG_TYPE_PERF_EVENT && func_id == BPF_FUNC_get_stackid)
		return &pe_get_stackid_helper.proto;
	/* and the two of the sample's own (pe_prog_func_proto()'s) */
	if (prog_type == BPF_PROG_TYPE_PERF_EVENT && func_id == BPF_FUNC_read_branch_records)
		return &pe_read_branch_records_helper.proto;
	if (prog_type == BPF_PROG_TYPE_PERF_EVENT && func_id == BPF_FUNC_perf_prog_read_value)
		return &pe_prog_read_value_helper.proto;
	if (prog_type == BPF_PROG_TYPE_PERF_EVENT)
		prog_type = BPF_PROG_TYPE_KPROBE;
	if (prog_type_is_lwt(prog_type))
		return func_id < ARRAY_SIZE(helpers) ? lwt_helper_proto(func_id, prog_type) : NULL;
	/* cgroup skb programs have the socket filter's helpers (the kernel's cg_skb_func_proto()
	 * falls back to sk_filter_func_proto(); the ones it adds need cgroups or sockets) */
	if (prog_type == BPF_PROG_TYPE_CGROUP_SKB) {
		if (func_id == BPF_FUNC_skb_cgroup_id || func_id == BPF_FUNC_skb_ancestor_cgroup_id ||
		    func_id == BPF_FUNC_skb_ecn_set_ce || func_id == BPF_FUNC_get_local_storage ||
		    func_id == BPF_FUNC_sk_storage_get || func_id == BPF_FUNC_sk_storage_delete ||
		    func_id == BPF_FUNC_sk_fullsock || func_id == BPF_FUNC_sk_cgroup_id ||
		    func_id == BPF_FUNC_sk_ancestor_cgroup_id || lookup_index(func_id) >= 0 ||
		    func_id == BPF_FUNC_sk_release || func_id == BPF_FUNC_get_listener_sock ||
		    func_id == BPF_FUNC_tcp_sock)
			return &helpers[func_id].proto; /* (cg_skb_func_proto()'s own) */
		prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	}
	/* tc actions have the classifiers' (tc_cls_act_func_proto()) */
	if (prog_type == BPF_PROG_TYPE_SCHED_ACT)
		prog_type = BPF_PROG_TYPE_SCHED_CLS;
	if (func_id == BPF_FUNC_redirect && prog_type == BPF_PROG_TYPE_XDP)
		return &xdp_redirect_helper.proto;
	if (prog_type == BPF_PROG_TYPE_XDP && lookup_index(func_id) >= 0)
		return &xdp_lookup_helpers[lookup_index(func_id)].proto;
	if (func_id == BPF_FUNC_perf_event_output && prog_type == BPF_PROG_TYPE_XDP)
		return &xdp_event_output_helper.proto;
	if (func_id == BPF_FUNC_perf_event_output &&
	    (prog_type == BPF_PROG_TYPE_SOCKET_FILTER || prog_type == BPF_PROG_TYPE_SCHED_CLS))
		return &skb_event_output_helper.proto;
	if (func_id == BPF_FUNC_check_mtu && prog_type == BPF_PROG_TYPE_XDP)
		return &xdp_check_mtu_helper.proto;
	if (func_id == BPF_FUNC_fib_lookup && prog_type == BPF_PROG_TYPE_XDP)
		return &xdp_fib_lookup_helper.proto;
	if (func_id == BPF_FUNC_redirect && prog_type == BPF_PROG_TYPE_SCHED_CLS)
		return &tc_redirect_helper.proto;
	if (func_id == BPF_FUNC_get_cgroup_classid && prog_type == BPF_PROG_TYPE_SCHED_CLS)
		return &tc_classid_helper.proto;
	if (func_id >= ARRAY_SIZE(helpers) || !helpers[func_id].proto.func || prog_type >= 32 ||
	    !(helpers[func_id].types & TYPE_BIT(prog_type)))
		return NULL;
	return &helpers[func_id].proto;
}

/* bpf_get_retval(), bpf_set_retval(): the value the cgroup hook's syscall is to return.  Only the
 * cgroup hooks userbpf verifies but never runs have them (the kernel's cgroup_common_func_proto():
 * not at skb ingress and egress, sock_ops, nor at the sock_addr hooks that cannot refuse), so
 * they do nothing here (h_zero). */
static const struct helper get_retval_helper = {
	{ h_zero, "bpf_get_retval", false, false, RET_INTEGER, ARGS(0) }, 0 };
static const struct helper set_retval_helper = {
	{ h_zero, "bpf_set_retval", false, false, RET_INTEGER, ARGS(ARG_ANYTHING) }, 0 };

const struct bpf_func_proto *bpf_helper_proto_attach(u32 func_id, u32 prog_type,
						     u32 expected_attach_type)
{
	bool cgroup_hook = prog_type == BPF_PROG_TYPE_CGROUP_SOCK ||
			   prog_type == BPF_PROG_TYPE_CGROUP_DEVICE ||
			   prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT ||
			   prog_type == BPF_PROG_TYPE_CGROUP_SYSCTL ||
			   prog_type == BPF_PROG_TYPE_SOCK_OPS ||
			   prog_type == BPF_PROG_TYPE_CGROUP_SOCK_ADDR;

	/* (bind at the IPv4 and IPv6 connect hooks only; a sockopt program's set/getsockopt only
	 * at the setsockopt hook; a sock_addr program's at every hook, 6.18's) */
	if (func_id == BPF_FUNC_bind && expected_attach_type != UINT32_MAX &&
	    expected_attach_type != BPF_CGROUP_INET4_CONNECT &&
	    expected_attach_type != BPF_CGROUP_INET6_CONNECT)
		return NULL;
	if ((func_id == BPF_FUNC_setsockopt || func_id == BPF_FUNC_getsockopt) &&
	    expected_attach_type != UINT32_MAX && prog_type == BPF_PROG_TYPE_CGROUP_SOCKOPT &&
	    expected_attach_type != BPF_CGROUP_SETSOCKOPT)
		return NULL;
	if (prog_type == BPF_PROG_TYPE_TRACING &&
	    (expected_attach_type == BPF_TRACE_ITER || expected_attach_type == UINT32_MAX) &&
	    (func_id == BPF_FUNC_seq_printf || func_id == BPF_FUNC_seq_write))
		return &iter_helpers[func_id == BPF_FUNC_seq_write].proto;
	if (prog_type == BPF_PROG_TYPE_TRACING && trampoline_attach(expected_attach_type)) {
		switch (func_id) {
		case BPF_FUNC_get_func_arg:
			return &tracing_helpers[0].proto;
		case BPF_FUNC_get_func_ret:
			return &tracing_helpers[1].proto;
		case BPF_FUNC_get_func_arg_cnt:
			return &tracing_helpers[2].proto;
		case BPF_FUNC_get_attach_cookie:
			return &tracing_helpers[3].proto;
		}
	}
	if (func_id != BPF_FUNC_get_retval && func_id != BPF_FUNC_set_retval)
		return bpf_helper_proto(func_id, prog_type);
	/* the kernel decides by the attach type alone (a device program loaded for attach type
	 * 0, skb ingress, has neither, nor a sock_ops one for its own hook) */
	if (!cgroup_hook || expected_attach_type == BPF_CGROUP_INET_INGRESS ||
	    expected_attach_type == BPF_CGROUP_INET_EGRESS ||
	    expected_attach_type == BPF_CGROUP_SOCK_OPS ||
	    sock_addr_hook(expected_attach_type) == SA_HOOK_MUST_ALLOW)
		return NULL;
	return func_id == BPF_FUNC_get_retval ? &get_retval_helper.proto
					      : &set_retval_helper.proto;
}

/* The interpreter's table for one program type: what bpf_helper_proto() allows, nothing more,
 * so that even a program the verifier let through cannot reach another type's helpers. */
u32 helper_fns(u32 prog_type, bpf_helper_fn *fns, u32 n)
{
	u32 cnt = n < ARRAY_SIZE(helpers) ? n : ARRAY_SIZE(helpers);

	for (u32 id = 0; id < cnt; id++) {
		/* with the helpers some hooks of the type have (UINT32_MAX: an attach type
		 * none excludes): the verifier saw to the hook */
		const struct bpf_func_proto *p = bpf_helper_proto_attach(id, prog_type, UINT32_MAX);

		fns[id] = p ? p->func : NULL;
	}
	return cnt;
}
