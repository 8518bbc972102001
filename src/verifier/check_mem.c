/* Memory access: loads, stores and atomics through every pointer type, legacy packet loads, and
 * the memory arguments of helpers.
 *
 * Each access is proven in bounds for every value the pointer may hold: for map values the
 * fixed offset plus the variable part's [smin, umax] must stay inside value_size; for packets the
 * fixed offset must stay inside the range learnt from comparisons against data_end (the variable
 * part is shared with the pointer the comparison was made on, same id); for the stack the access
 * must be inside the frame's 512 bytes, aligned to its size, and the slot bookkeeping tracks
 * spilled registers (an 8-byte store of a register keeps its full state; a smaller aligned store
 * of a scalar keeps it as a partial spill), zeroes, and other written bytes.  As root in the
 * kernel, reading never-written stack is allowed (it yields an unknown scalar).
 * Context accesses are checked against the program type's layout (the kernel's is_valid_access
 * rules); loads of packet pointers from __sk_buff / xdp_md are recorded for rewriting.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "exec/helpers.h"
#include "map/map.h"
#include "prog/prog.h"
#include "verifier/dynptr.h"
#include "verifier/env.h"

#define PT_REGS_SIZE 168	/* struct pt_regs of x86-64, the kprobe context */
#define TP_CTX_MAX 8192		/* PERF_MAX_TRACE_SIZE (2048 before 6.x) */
#define RAW_TP_CTX_MAX (12 * 8)	/* MAX_BPF_FUNC_ARGS u64 arguments */

#define SKB_OFF(f) offsetof(struct __sk_buff, f)
#define SKB_END(f) (offsetof(struct __sk_buff, f) + sizeof(((struct __sk_buff *)0)->f))
/* The end of a pointer field (__bpf_md_ptr): 8 bytes on every build, where its member is an
 * i386 build's 4-byte pointer */
#define MD_PTR_END(type, f) (offsetof(type, f) + 8)
#define IN(off, lo, hi) ((off) >= (int)(lo) && (off) < (int)(hi))

bool may_access_pkt(const struct verifier_env *env, const struct bpf_func_proto *fn, bool write)
{
	switch (env->prog->type) {
	case BPF_PROG_TYPE_LWT_IN: /* read only */
	case BPF_PROG_TYPE_LWT_OUT:
	case BPF_PROG_TYPE_FLOW_DISSECTOR:
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_SK_REUSEPORT:
		if (write)
			return false;
		/* fallthrough */
	case BPF_PROG_TYPE_SCHED_CLS: /* read and write */
	case BPF_PROG_TYPE_SCHED_ACT:
	case BPF_PROG_TYPE_XDP:
	case BPF_PROG_TYPE_LWT_XMIT:
	case BPF_PROG_TYPE_SK_SKB:
	case BPF_PROG_TYPE_SK_MSG:
		return fn ? fn->pkt_access : true;
	case BPF_PROG_TYPE_CGROUP_SOCKOPT: /* the option's bytes: to any helper, too */
		return true;
	default: /* (sock_ops: its header is read only, and given to no helper) */
		return false;
	}
}

static bool narrow_ok(int off, int size, int size_default)
{
	return size <= size_default && (off & (size_default - 1)) + size <= size_default;
}

/* The kernel's bpf_skb_is_valid_access(). */
static bool skb_valid(int off, int size, bool write, u8 *ptr_type)
{
	if (off < 0 || off >= (int)sizeof(struct __sk_buff))
		return false;
	if (off % size != 0)
		return false;
	if (IN(off, SKB_OFF(cb[0]), SKB_END(cb[4]))) {
		if (off + size > (int)SKB_END(cb[4]))
			return false;
	} else if (IN(off, SKB_OFF(remote_ip6[0]), SKB_END(remote_ip6[3])) ||
		   IN(off, SKB_OFF(local_ip6[0]), SKB_END(local_ip6[3])) ||
		   IN(off, SKB_OFF(remote_ip4), SKB_END(remote_ip4)) ||
		   IN(off, SKB_OFF(local_ip4), SKB_END(local_ip4)) ||
		   IN(off, SKB_OFF(data), SKB_END(data)) ||
		   IN(off, SKB_OFF(data_meta), SKB_END(data_meta)) ||
		   IN(off, SKB_OFF(data_end), SKB_END(data_end))) {
		if (size != 4)
			return false;
	} else if (IN(off, SKB_OFF(flow_keys), MD_PTR_END(struct __sk_buff, flow_keys))) {
		return false;
	} else if (IN(off, SKB_OFF(tstamp), SKB_END(tstamp))) {
		if (size != 8)
			return false;
	} else if (IN(off, SKB_OFF(sk), MD_PTR_END(struct __sk_buff, sk))) {
		if (write || size != 8)
			return false;
		*ptr_type = PTR_TO_SOCK_COMMON_OR_NULL;
	} else if (IN(off, SKB_OFF(tstamp_type), SKB_END(tstamp_type))) {
		return false;
	} else if (IN(off, SKB_END(tstamp_type), SKB_OFF(hwtstamp))) {
		return false;
	} else if (IN(off, SKB_OFF(hwtstamp), SKB_END(hwtstamp))) {
		if (write || size != 8)
			return false;
	} else if (write) {
		if (size != 4)
			return false;
	} else if (!narrow_ok(off, size, 4)) {
		return false;
	}
	return true;
}

/* The kernel's bpf_sock_is_valid_access(): struct bpf_sock, its fields' sizes. */
static bool sock_valid(int off, int size)
{
	if (off < 0 || off >= (int)sizeof(struct bpf_sock) || off % size)
		return false;
	if (off == offsetof(struct bpf_sock, state) || off == offsetof(struct bpf_sock, family) ||
	    off == offsetof(struct bpf_sock, type) || off == offsetof(struct bpf_sock, protocol) ||
	    off == offsetof(struct bpf_sock, src_port) ||
	    off == offsetof(struct bpf_sock, rx_queue_mapping) ||
	    IN(off, offsetof(struct bpf_sock, src_ip4), offsetof(struct bpf_sock, src_ip4) + 4) ||
	    IN(off, offsetof(struct bpf_sock, src_ip6), offsetof(struct bpf_sock, src_ip6) + 16) ||
	    IN(off, offsetof(struct bpf_sock, dst_ip4), offsetof(struct bpf_sock, dst_ip4) + 4) ||
	    IN(off, offsetof(struct bpf_sock, dst_ip6), offsetof(struct bpf_sock, dst_ip6) + 16))
		return size <= 4 && !(size & (size - 1));
	if (IN(off, offsetof(struct bpf_sock, dst_port), offsetof(struct bpf_sock, dst_port) + 2))
		return size <= 2 || size == 4;
	if (IN(off, offsetof(struct bpf_sock, dst_port) + 2, offsetof(struct bpf_sock, dst_ip4)))
		return false;
	return size == 4;
}

/* The kernel's bpf_sock_common_is_valid_access(): struct bpf_sock through a sock_common
 * pointer, read only; type, protocol, mark and priority are a full socket's. */
static bool sock_common_valid(int off, int size)
{
	if (IN(off, offsetof(struct bpf_sock, type), offsetof(struct bpf_sock, priority) + 4))
		return false;
	return sock_valid(off, size);
}

/* The kernel's bpf_tcp_sock_is_valid_access(): struct bpf_tcp_sock, read only, whole fields
 * (its two byte counts 64 bits wide). */
static bool tcp_sock_valid(int off, int size)
{
	if (off < 0 || off >= (int)offsetof(struct bpf_tcp_sock, icsk_retransmits) + 4 || off % size)
		return false;
	if (off == offsetof(struct bpf_tcp_sock, bytes_received) ||
	    off == offsetof(struct bpf_tcp_sock, bytes_acked))
		return size == 8;
	return size == 4;
}

/* A cgroup sock program's ctx (the kernel's sock_filter_is_valid_access()): struct bpf_sock,
 * the socket being created, released or bound.  Its device, mark and priority are writable at
 * creation and release; its source address and port exist only after a bind (read only). */
static bool sock_ctx_valid(int off, int size, bool write, u32 attach_type)
{
	bool create = attach_type == BPF_CGROUP_INET_SOCK_CREATE ||
		      attach_type == BPF_CGROUP_INET_SOCK_RELEASE;

	if (!sock_valid(off, size))
		return false;
	if (off == offsetof(struct bpf_sock, bound_dev_if) ||
	    off == offsetof(struct bpf_sock, mark) || off == offsetof(struct bpf_sock, priority))
		return create;
	if (IN(off, offsetof(struct bpf_sock, src_ip4), offsetof(struct bpf_sock, src_ip4) + 4) &&
	    attach_type != BPF_CGROUP_INET4_POST_BIND)
		return false;
	if (IN(off, offsetof(struct bpf_sock, src_ip6), offsetof(struct bpf_sock, src_ip6) + 16) &&
	    attach_type != BPF_CGROUP_INET6_POST_BIND)
		return false;
	if (IN(off, offsetof(struct bpf_sock, src_port), offsetof(struct bpf_sock, src_port) + 4) &&
	    attach_type != BPF_CGROUP_INET4_POST_BIND && attach_type != BPF_CGROUP_INET6_POST_BIND)
		return false;
	return !write;
}

#define SA_OFF(f) offsetof(struct bpf_sock_addr, f)
#define SA_END(f) (offsetof(struct bpf_sock_addr, f) + sizeof(((struct bpf_sock_addr *)0)->f))

/* Whether the u64 access [off, off + 8) lies in the array field [lo, hi), 8-aligned (the
 * kernel's bpf_ctx_wide_access_ok()). */
static bool wide_ok(int off, int size, size_t lo, size_t hi)
{
	return size == 8 && off >= (int)lo && off + 8 <= (int)hi && !(off % 8);
}

/* A cgroup sock_addr program's ctx (the kernel's sock_addr_is_valid_access()): struct
 * bpf_sock_addr, the address a socket binds, connects, sends to or receives from.  The IPv4 and
 * IPv6 addresses exist for their family's hooks only, the message source for sendmsg; they and
 * the port may be read narrow or (the IPv6 arrays) as u64s, and written whole; the family, type
 * and protocol are read only; sk is the socket, never NULL. */
static bool sock_addr_ctx_valid(int off, int size, bool write, u32 attach_type, u8 *ptr_type)
{
	u32 t = attach_type;
	bool v4 = t == BPF_CGROUP_INET4_BIND || t == BPF_CGROUP_INET4_CONNECT ||
		  t == BPF_CGROUP_INET4_GETPEERNAME || t == BPF_CGROUP_INET4_GETSOCKNAME ||
		  t == BPF_CGROUP_UDP4_SENDMSG || t == BPF_CGROUP_UDP4_RECVMSG;
	bool v6 = t == BPF_CGROUP_INET6_BIND || t == BPF_CGROUP_INET6_CONNECT ||
		  t == BPF_CGROUP_INET6_GETPEERNAME || t == BPF_CGROUP_INET6_GETSOCKNAME ||
		  t == BPF_CGROUP_UDP6_SENDMSG || t == BPF_CGROUP_UDP6_RECVMSG;
	bool ip4 = IN(off, SA_OFF(user_ip4), SA_END(user_ip4));
	bool ip6 = IN(off, SA_OFF(user_ip6), SA_END(user_ip6));
	bool src4 = IN(off, SA_OFF(msg_src_ip4), SA_END(msg_src_ip4));
	bool src6 = IN(off, SA_OFF(msg_src_ip6), SA_END(msg_src_ip6));

	if (off < 0 || off >= (int)sizeof(struct bpf_sock_addr) || off % size)
		return false;
	if ((ip4 && !v4) || (ip6 && !v6) || (src4 && t != BPF_CGROUP_UDP4_SENDMSG) ||
	    (src6 && t != BPF_CGROUP_UDP6_SENDMSG))
		return false;
	if (ip4 || ip6 || src4 || src6 || IN(off, SA_OFF(user_port), SA_END(user_port))) {
		if (wide_ok(off, size, SA_OFF(user_ip6), SA_END(user_ip6)) ||
		    wide_ok(off, size, SA_OFF(msg_src_ip6), SA_END(msg_src_ip6)))
			return true;
		return write ? size == 4 : narrow_ok(off, size, 4);
	}
	if (IN(off, SA_OFF(sk), MD_PTR_END(struct bpf_sock_addr, sk))) {
		*ptr_type = PTR_TO_SOCKET;
		return !write && size == 8;
	}
	if (IN(off, SA_OFF(user_family), SA_END(user_family)) ||
	    IN(off, SA_OFF(family), SA_END(family)) || IN(off, SA_OFF(type), SA_END(type)) ||
	    IN(off, SA_OFF(protocol), SA_END(protocol)))
		return !write && size == 4;
	return false;
}

#define SO_OFF(f) ((int)offsetof(struct bpf_sockopt, f))

/* A cgroup sockopt program's ctx (the kernel's cg_sockopt_is_valid_access()): struct
 * bpf_sockopt, the option being got or set.  sk is the socket; optval .. optval_end the option's
 * bytes, read and written as a packet is; level, optname and optlen read as u32s; a getsockopt
 * hook may read and write retval, a setsockopt one write level and optname; both write optlen. */
static bool sockopt_ctx_valid(int off, int size, bool write, u32 attach_type, u8 *ptr_type)
{
	bool get = attach_type == BPF_CGROUP_GETSOCKOPT;

	if (off < 0 || off >= (int)sizeof(struct bpf_sockopt) || off % size)
		return false;
	if (write) {
		if (off == SO_OFF(retval))
			return size == 4 && get;
		if (off == SO_OFF(optname) || off == SO_OFF(level))
			return size == 4 && !get;
		return off == SO_OFF(optlen) && size == 4;
	}
	if (off < SO_OFF(optval_end) + 8) { /* the three pointers, read whole */
		*ptr_type = off < SO_OFF(optval)	    ? PTR_TO_SOCKET
			    : off < SO_OFF(optval_end) ? PTR_TO_PACKET
						       : PTR_TO_PACKET_END;
		return size == 8;
	}
	if (off == SO_OFF(retval))
		return size == 4 && get;
	return size == 4;
}

#define MSG_OFF(f) ((int)offsetof(struct sk_msg_md, f))

/* An sk_msg program's ctx (the kernel's sk_msg_is_valid_access()): struct sk_msg_md, read
 * only, whole fields: the message's bytes (data .. data_end, a packet the program may write),
 * the socket (never NULL), its addresses and ports, the message's size.  The pointers are the
 * ctx's own, as a sockopt program's: nothing to convert. */
static bool sk_msg_ctx_valid(int off, int size, bool write, u8 *ptr_type)
{
	if (write || off < 0 || off % size)
		return false;
	if (off < MSG_OFF(family) || off == MSG_OFF(sk)) {
		*ptr_type = off == MSG_OFF(data)       ? PTR_TO_PACKET
			    : off == MSG_OFF(data_end) ? PTR_TO_PACKET_END
						       : PTR_TO_SOCKET;
		return size == 8;
	}
	return off < MSG_OFF(sk) && size == 4;
}

#define RP_OFF(f) ((int)offsetof(struct sk_reuseport_md, f))

/* An sk_reuseport program's ctx (the kernel's sk_reuseport_is_valid_access()): struct
 * sk_reuseport_md, read only: the packet (data .. data_end, read only), the listening socket and
 * the one migrating (maybe none) whole, hash whole, the other u32 fields narrow too, but
 * eth_protocol no narrower than the skb's 16-bit protocol. */
static bool sk_reuseport_ctx_valid(int off, int size, bool write, u8 *ptr_type)
{
	if (write || off < 0 || off >= (int)sizeof(struct sk_reuseport_md) || off % size)
		return false;
	if (off == RP_OFF(data) || off == RP_OFF(data_end) || off == RP_OFF(sk) ||
	    off == RP_OFF(migrating_sk)) {
		*ptr_type = off == RP_OFF(data)	      ? PTR_TO_PACKET
			    : off == RP_OFF(data_end) ? PTR_TO_PACKET_END
			    : off == RP_OFF(sk)	      ? PTR_TO_SOCKET
						      : PTR_TO_SOCK_COMMON_OR_NULL;
		return size == 8;
	}
	if (off == RP_OFF(hash))
		return size == 4;
	if (IN(off, RP_OFF(eth_protocol), RP_OFF(eth_protocol) + 4) && size < 2)
		return false;
	return IN(off, RP_OFF(len), RP_OFF(hash)) && narrow_ok(off, size, 4);
}

/* struct bpf_sock_ops as 6.18 has it (the system's uapi header may be older: its last field,
 * skb_hwtstamp, came in 6.2). */
#define SOCK_OPS_OFF(f) ((int)offsetof(struct bpf_sock_ops, f))
#define SOCK_OPS_HWTSTAMP (SOCK_OPS_OFF(skb_tcp_flags) + 4)
#define SOCK_OPS_SIZE (SOCK_OPS_HWTSTAMP + 8)

/* A sock_ops program's ctx (the kernel's sock_ops_is_valid_access()): struct bpf_sock_ops, the
 * TCP event and its socket.  Writes go to reply and sk_txhash only; the two byte counts and the
 * hardware timestamp are read whole as u64s, sk (a full socket or NULL) and the header's bounds
 * (skb_data, skb_data_end: packet pointers) as pointers, skb_tcp_flags narrow too, every other
 * field as a u32. */
static bool sock_ops_ctx_valid(int off, int size, bool write, u8 *ptr_type)
{
	if (off < 0 || off >= SOCK_OPS_SIZE || off % size)
		return false;
	if (write)
		return (off == SOCK_OPS_OFF(reply) || off == SOCK_OPS_OFF(sk_txhash)) && size == 4;
	if (IN(off, SOCK_OPS_OFF(bytes_received), SOCK_OPS_OFF(bytes_acked) + 8) ||
	    IN(off, SOCK_OPS_HWTSTAMP, SOCK_OPS_SIZE))
		return size == 8;
	if (IN(off, SOCK_OPS_OFF(sk), SOCK_OPS_OFF(skb_len))) {
		*ptr_type = off < SOCK_OPS_OFF(skb_data)       ? PTR_TO_SOCKET_OR_NULL
			    : off < SOCK_OPS_OFF(skb_data_end) ? PTR_TO_PACKET
							       : PTR_TO_PACKET_END;
		return size == 8;
	}
	if (off == SOCK_OPS_OFF(skb_tcp_flags))
		return narrow_ok(off, size, 4);
	return size == 4;
}

/* The kernel's bpf_xdp_sock_is_valid_access(): struct bpf_xdp_sock's queue_id, whole. */
static bool xdp_sock_valid(int off, int size)
{
	return off >= 0 && off < (int)sizeof(struct bpf_xdp_sock) && !(off % size) && size == 4;
}

/* Loads through a socket pointer (the kernel's check_sock_access()): a full socket's fields, or
 * a sock_common's. */
static int check_sock(struct verifier_env *env, const struct reg_state *reg, u32 regno, int off,
		      int size, bool write, int value_regno)
{
	if (write) {
		verbose(env, "R%u cannot write into %s\n", regno, reg_type_str(reg->type));
		return -EACCES;
	}
	if (reg->s.smin < 0) {
		verbose(env, "R%u min value is negative, either use unsigned index or do a if (index "
			     ">=0) check.\n", regno);
		return -EACCES;
	}
	if (reg->type == PTR_TO_SOCKET	    ? !sock_valid(off, size)
	    : reg->type == PTR_TO_TCP_SOCK ? !tcp_sock_valid(off, size)
	    : reg->type == PTR_TO_XDP_SOCK ? !xdp_sock_valid(off, size)
					   : !sock_common_valid(off, size)) {
		verbose(env, "R%u invalid %s access off=%d size=%d\n", regno,
			reg_type_str(reg->type), off, size);
		return -EACCES;
	}
	/* (the kernel's bpf_tcp_sock_is_valid_access() allows 4 bytes at the high half of
	 * bytes_received and bytes_acked, which its conversion then has no case for) */
	if (reg->type == PTR_TO_TCP_SOCK && (off == offsetof(struct bpf_tcp_sock, bytes_received) + 4 ||
					     off == offsetof(struct bpf_tcp_sock, bytes_acked) + 4))
		env->ctx_unconvertible = true;
	if (value_regno >= 0)
		mark_reg_unknown(&cur_regs(env)[value_regno]);
	return 0;
}

/* __sk_buff's data and data_end (and data_meta, with meta) load packet pointers: the type the
 * load gives and the field the JIT and interpreter convert; whether off is one of them. */
static bool skb_pkt_field(int off, bool meta, u8 *ptr_type, u8 *field)
{
	if (IN(off, SKB_OFF(data), SKB_END(data))) {
		*ptr_type = PTR_TO_PACKET;
		*field = 1;
	} else if (IN(off, SKB_OFF(data_end), SKB_END(data_end))) {
		*ptr_type = PTR_TO_PACKET_END;
		*field = 2;
	} else if (meta && IN(off, SKB_OFF(data_meta), SKB_END(data_meta))) {
		*ptr_type = PTR_TO_PACKET_META;
		*field = 3;
	} else {
		return false;
	}
	return true;
}

static bool ctx_valid(struct verifier_env *env, int off, int size, bool write, u8 *ptr_type,
		      u8 *field)
{
	u32 type = env->prog->type;

	*ptr_type = SCALAR_VALUE;
	*field = 0;
	switch (type) {
	case BPF_PROG_TYPE_SOCKET_FILTER:
		if (IN(off, SKB_OFF(tc_classid), SKB_END(tc_classid)) ||
		    IN(off, SKB_OFF(data), SKB_END(data)) ||
		    IN(off, SKB_OFF(data_meta), SKB_END(data_meta)) ||
		    IN(off, SKB_OFF(data_end), SKB_END(data_end)) ||
		    IN(off, SKB_OFF(family), SKB_END(local_port)) ||
		    IN(off, SKB_OFF(tstamp), SKB_END(tstamp)) ||
		    IN(off, SKB_OFF(wire_len), SKB_END(wire_len)) ||
		    IN(off, SKB_OFF(hwtstamp), SKB_END(hwtstamp)))
			return false;
		if (write && !IN(off, SKB_OFF(cb[0]), SKB_END(cb[4])))
			return false;
		return skb_valid(off, size, write, ptr_type);
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
		if (write && !IN(off, SKB_OFF(mark), SKB_END(mark)) &&
		    !IN(off, SKB_OFF(tc_index), SKB_END(tc_index)) &&
		    !IN(off, SKB_OFF(priority), SKB_END(priority)) &&
		    !IN(off, SKB_OFF(tc_classid), SKB_END(tc_classid)) &&
		    !IN(off, SKB_OFF(cb[0]), SKB_END(cb[4])) &&
		    !IN(off, SKB_OFF(tstamp), SKB_END(tstamp)) &&
		    !IN(off, SKB_OFF(queue_mapping), SKB_END(queue_mapping)))
			return false;
		if (skb_pkt_field(off, true, ptr_type, field)) {
			/* (a packet pointer) */
		} else if (IN(off, SKB_OFF(family), SKB_END(local_port))) {
			return false;
		} else if (off == SKB_OFF(tstamp_type)) {
			/* tc may read the u8 (its writes were refused above) */
			return size == 1;
		}
		return skb_valid(off, size, write, ptr_type);
	case BPF_PROG_TYPE_LWT_IN:
	case BPF_PROG_TYPE_LWT_OUT:
	case BPF_PROG_TYPE_LWT_XMIT:
		/* the kernel's lwt_is_valid_access(): no socket fields, no timestamps; mark,
		 * priority and cb[] writable */
		if (IN(off, SKB_OFF(tc_classid), SKB_END(tc_classid)) ||
		    IN(off, SKB_OFF(family), SKB_END(local_port)) ||
		    IN(off, SKB_OFF(data_meta), SKB_END(data_meta)) ||
		    IN(off, SKB_OFF(tstamp), SKB_END(tstamp)) ||
		    IN(off, SKB_OFF(wire_len), SKB_END(wire_len)) ||
		    IN(off, SKB_OFF(hwtstamp), SKB_END(hwtstamp)))
			return false;
		if (write && !IN(off, SKB_OFF(mark), SKB_END(mark)) &&
		    !IN(off, SKB_OFF(priority), SKB_END(priority)) &&
		    !IN(off, SKB_OFF(cb[0]), SKB_END(cb[4])))
			return false;
		skb_pkt_field(off, false, ptr_type, field);
		return skb_valid(off, size, write, ptr_type);
	case BPF_PROG_TYPE_CGROUP_SKB:
		/* the kernel's cg_skb_is_valid_access() for a loader with CAP_BPF: packet data
		 * (read only: mem_access()) and the socket's fields readable; mark,
		 * priority, cb[] and tstamp writable */
		if (IN(off, SKB_OFF(tc_classid), SKB_END(tc_classid)) ||
		    IN(off, SKB_OFF(data_meta), SKB_END(data_meta)) ||
		    IN(off, SKB_OFF(wire_len), SKB_END(wire_len)))
			return false;
		if (write && !IN(off, SKB_OFF(mark), SKB_END(mark)) &&
		    !IN(off, SKB_OFF(priority), SKB_END(priority)) &&
		    !IN(off, SKB_OFF(cb[0]), SKB_END(cb[4])) &&
		    !IN(off, SKB_OFF(tstamp), SKB_END(tstamp)))
			return false;
		skb_pkt_field(off, false, ptr_type, field);
		return skb_valid(off, size, write, ptr_type);
	case BPF_PROG_TYPE_SK_SKB:
		/* the kernel's sk_skb_is_valid_access(): a socket's stream data, the packet
		 * writable; no mark, class, metadata or timestamps; tc_index and priority
		 * writable */
		if (IN(off, SKB_OFF(tc_classid), SKB_END(tc_classid)) ||
		    IN(off, SKB_OFF(data_meta), SKB_END(data_meta)) ||
		    IN(off, SKB_OFF(tstamp), SKB_END(tstamp)) ||
		    IN(off, SKB_OFF(wire_len), SKB_END(wire_len)) ||
		    IN(off, SKB_OFF(hwtstamp), SKB_END(hwtstamp)) ||
		    IN(off, SKB_OFF(mark), SKB_END(mark)))
			return false;
		if (write && !IN(off, SKB_OFF(tc_index), SKB_END(tc_index)) &&
		    !IN(off, SKB_OFF(priority), SKB_END(priority)))
			return false;
		skb_pkt_field(off, false, ptr_type, field);
		return skb_valid(off, size, write, ptr_type);
	case BPF_PROG_TYPE_SK_MSG:
		return sk_msg_ctx_valid(off, size, write, ptr_type);
	case BPF_PROG_TYPE_SK_REUSEPORT:
		return sk_reuseport_ctx_valid(off, size, write, ptr_type);
	case BPF_PROG_TYPE_CGROUP_SOCK:
		return sock_ctx_valid(off, size, write, env->prog->expected_attach_type);
	case BPF_PROG_TYPE_SK_LOOKUP:
		/* the kernel's sk_lookup_is_valid_access(): struct bpf_sk_lookup read only: the
		 * selected socket (maybe none), the addresses and ports, narrow too; remote_port is
		 * 16 bits (also read as a u32 with its padding) */
		if (off < 0 || off >= (int)offsetof(struct bpf_sk_lookup, ingress_ifindex) + 4 ||
		    off % size || write)
			return false; /* (not the struct's tail padding either) */
		if (off < 8) {
			*ptr_type = PTR_TO_SOCKET_OR_NULL;
			return size == 8;
		}
		if (off >= (int)offsetof(struct bpf_sk_lookup, remote_port) &&
		    off < (int)offsetof(struct bpf_sk_lookup, local_ip4))
			return size == 4 || narrow_ok(off, size, 2);
		return narrow_ok(off, size, 4);
	case BPF_PROG_TYPE_CGROUP_SYSCTL:
		/* the kernel's sysctl_is_valid_access(): struct bpf_sysctl, whether the access
		 * writes (read only) and the file position (written whole), read narrow */
		if (off < 0 || off + size > (int)sizeof(struct bpf_sysctl) || off % size)
			return false;
		if (off < (int)offsetof(struct bpf_sysctl, file_pos))
			return !write && narrow_ok(off, size, 4);
		return write ? size == 4 : narrow_ok(off, size, 4);
	case BPF_PROG_TYPE_CGROUP_SOCKOPT:
		return sockopt_ctx_valid(off, size, write, env->prog->expected_attach_type, ptr_type);
	case BPF_PROG_TYPE_SOCK_OPS:
		return sock_ops_ctx_valid(off, size, write, ptr_type);
	case BPF_PROG_TYPE_SYSCALL:
		/* the kernel's syscall_prog_is_valid_access(): the caller's buffer, at most
		 * U16_MAX bytes, read and written at aligned offsets (the test run checks that
		 * ctx_size_in covers max_ctx_offset) */
		return off >= 0 && off < 0xffff && !(off % size);
	case BPF_PROG_TYPE_CGROUP_DEVICE:
		/* the kernel's cgroup_dev_is_valid_access(): struct bpf_cgroup_dev_ctx read
		 * only; access_type (the access in its low half, the device type in its high
		 * one) may be read narrow */
		if (write || off < 0 || off + size > (int)sizeof(struct bpf_cgroup_dev_ctx) ||
		    off % size)
			return false;
		if (off < (int)sizeof(u32))
			return narrow_ok(off, size, 4);
		return size == 4;
	case BPF_PROG_TYPE_CGROUP_SOCK_ADDR:
		return sock_addr_ctx_valid(off, size, write, env->prog->expected_attach_type,
					   ptr_type);
	case BPF_PROG_TYPE_FLOW_DISSECTOR:
		/* the kernel's flow_dissector_is_valid_access(): the packet's bounds and the
		 * keys to fill, read whole; nothing else, nothing written */
		if (off < 0 || off >= (int)sizeof(struct __sk_buff) || off % size || write)
			return false;
		if (off == SKB_OFF(flow_keys)) {
			*ptr_type = PTR_TO_FLOW_KEYS;
			return size == 8;
		}
		return skb_pkt_field(off, false, ptr_type, field) && size == 4;
	case BPF_PROG_TYPE_XDP:
		if (IN(off, offsetof(struct xdp_md, egress_ifindex),
		       offsetof(struct xdp_md, egress_ifindex) + 4) &&
		    env->prog->expected_attach_type != BPF_XDP_DEVMAP)
			return false;
		if (write)
			return false;
		if (off == offsetof(struct xdp_md, data)) {
			*ptr_type = PTR_TO_PACKET;
			*field = 1;
		} else if (off == offsetof(struct xdp_md, data_end)) {
			*ptr_type = PTR_TO_PACKET_END;
			*field = 2;
		} else if (off == offsetof(struct xdp_md, data_meta)) {
			*ptr_type = PTR_TO_PACKET_META;
			*field = 3;
		}
		if (off < 0 || off >= (int)sizeof(struct xdp_md) || off % size || size != 4)
			return false;
		return true;
	case BPF_PROG_TYPE_PERF_EVENT:
		/* the kernel's pe_prog_is_valid_access(): struct bpf_perf_event_data, read only:
		 * the registers as whole longs, sample_period and addr narrow too */
		if (off < 0 || off >= PT_REGS_SIZE + 16 || write || off % size)
			return false;
		return off < PT_REGS_SIZE ? size == 8 : narrow_ok(off, size, 8);
	case BPF_PROG_TYPE_KPROBE:
		if (off < 0 || off >= PT_REGS_SIZE || write || off % size || off + size > PT_REGS_SIZE)
			return false;
		return true;
	case BPF_PROG_TYPE_TRACEPOINT:
		/* the kernel's tp_prog_is_valid_access() compares off with sizeof(void *) as an
		 * unsigned number, so that reads at negative offsets (multiples of their size) pass
		 * it: 6.18 accepts them.  Safe here, where nothing runs a tracepoint program. */
		if ((size_t)off < 8 || off >= TP_CTX_MAX || write || off % size)
			return false;
		return true;
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		/* the tracepoint's arguments, a u64 each (the kernel's bpf_tracing_ctx_access()) */
		return off >= 0 && off < RAW_TP_CTX_MAX && !write && !(off % size);
	default:
		return false;
	}
}

/* Whether the kernel rewrites this program type's ctx loads (its verifier ops have a
 * convert_ctx_access): then its ctx is no memory a helper may be given bytes of. */
static bool ctx_loads_rewritten(u32 prog_type)
{
	switch (prog_type) {
	case BPF_PROG_TYPE_KPROBE:
	case BPF_PROG_TYPE_TRACEPOINT:
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
	case BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE:
	case BPF_PROG_TYPE_CGROUP_DEVICE:
	case BPF_PROG_TYPE_LIRC_MODE2:
	case BPF_PROG_TYPE_TRACING:
	case BPF_PROG_TYPE_LSM:
	case BPF_PROG_TYPE_EXT:
	case BPF_PROG_TYPE_STRUCT_OPS:
	case BPF_PROG_TYPE_SYSCALL:
		return false;
	default:
		return true;
	}
}

int check_ptr_off(struct verifier_env *env, const struct reg_state *reg, u32 regno, bool fixed_ok)
{
	if (reg->off < 0) {
		verbose(env, "negative offset %s ptr R%u off=%d disallowed\n",
			reg_type_str(reg->type), regno, reg->off);
		return -EACCES;
	}
	if (!fixed_ok && reg->off) {
		verbose(env, "dereference of modified %s ptr R%u off=%d disallowed\n",
			reg_type_str(reg->type), regno, reg->off);
		return -EACCES;
	}
	if (!scalar_is_const(&reg->s) || reg->s.var_off.value) {
		char tn[48];

		tnum_snprint(tn, sizeof(tn), reg->s.var_off);
		verbose(env, "variable %s access var_off=%s disallowed\n", reg_type_str(reg->type),
			tn);
		return -EACCES;
	}
	return 0;
}

static int check_ctx(struct verifier_env *env, const struct reg_state *reg, u32 regno, int off,
		     int size, bool write, int value_regno, bool sx)
{
	u8 ptr_type, field;
	int err = check_ptr_off(env, reg, regno, false);

	if (err)
		return err;
	if (env->prog->type == BPF_PROG_TYPE_TRACING) {
		struct reg_state *dst = !write && value_regno >= 0 ? &cur_regs(env)[value_regno]
								   : NULL;

		err = check_tracing_ctx(env, off, size, write, dst);
		if (!err && env->prog->max_ctx_offset < (u32)(off + size))
			env->prog->max_ctx_offset = (u32)(off + size);
		return err;
	}
	/* a field that loads a pointer cannot be sign-extended (the kernel's is_ldsx checks) */
	if (!ctx_valid(env, off, size, write, &ptr_type, &field) ||
	    (sx && ptr_type != SCALAR_VALUE)) {
		verbose(env, "invalid bpf_context access off=%d size=%d\n", off, size);
		return -EACCES;
	}
	if (field)
		env->aux[env->insn_idx].ctx_field = field;
	if (env->prog->max_ctx_offset < (u32)(off + size))
		env->prog->max_ctx_offset = (u32)(off + size);
	if (!write && value_regno >= 0) {
		struct reg_state *dst = &cur_regs(env)[value_regno];

		if (ptr_type == SCALAR_VALUE) {
			mark_reg_unknown(dst);
		} else {
			mark_ptr(dst, ptr_type);
			/* a maybe-NULL pointer gets the id its NULL check follows */
			if (reg_may_be_null(dst))
				dst->id = ++env->id_gen;
		}
	}
	return 0;
}

static int mem_access_msg(struct verifier_env *env, const struct reg_state *reg, u32 regno,
			  s64 off, int size, u32 mem_size, bool zero_ok)
{
	bool size_ok = size > 0 || (size == 0 && zero_ok);

	if (off >= 0 && size_ok && (u64)off + (u64)size <= mem_size)
		return 0;
	switch (reg->type) {
	case PTR_TO_MAP_VALUE:
		verbose(env, "invalid access to map value, value_size=%u off=%d size=%d\n", mem_size,
			(int)off, size);
		break;
	case PTR_TO_MAP_KEY:
		verbose(env, "invalid access to map key, key_size=%u off=%d size=%d\n", mem_size,
			(int)off, size);
		break;
	case PTR_TO_PACKET:
	case PTR_TO_PACKET_META:
	case PTR_TO_PACKET_END:
		verbose(env, "invalid access to packet, off=%d size=%d, R%u(id=%u,off=%d,r=%u)\n",
			(int)off, size, regno, reg->id, (int)off, mem_size);
		break;
	default:
		verbose(env, "invalid access to memory, mem_size=%u off=%d size=%d\n", mem_size,
			(int)off, size);
	}
	return -EACCES;
}

/* A value's bpf_spin_lock, bpf_timer, bpf_wq and bpf_task_work are their helpers' (kfuncs')
 * alone, its kptrs reached only by whole loads and stores of the program's own: an access of
 * size bytes at the register's off (direct: the program's load or store, else a helper's) that
 * touches one is checked against each touched, in offset order (the kernel's
 * check_map_access()). */
static int check_special_fields(struct verifier_env *env, const struct reg_state *reg, s32 off,
				int size, bool direct)
{
	const struct bpf_map *map = reg->map;
	u32 hole[MAP_MAX_HOLES][2], n = map_value_holes(map, hole);
	s64 lo = reg->s.smin + off, end = (s64)reg->s.umax + off + size;

	for (u32 i = 0; i < n; i++) {
		s64 p = hole[i][0];

		if (!(lo < p + (s64)hole[i][1] && p < end))
			continue;
		if (p != map->spin_lock_off && p != map->timer_off && p != map->wq_off &&
		    p != map->task_work_off) {
			if (!direct) {
				verbose(env, "kptr cannot be accessed indirectly by helper\n");
				return -EACCES;
			}
			if (!scalar_is_const(&reg->s)) {
				verbose(env, "kptr access cannot have variable offset\n");
				return -EACCES;
			}
			if (p != off + (s64)reg->s.var_off.value) {
				verbose(env, "kptr access misaligned expected=%u off=%llu\n", (u32)p,
					(unsigned long long)(off + (s64)reg->s.var_off.value));
				return -EACCES;
			}
			if (size != 8) {
				verbose(env, "kptr access size must be BPF_DW\n");
				return -EACCES;
			}
			continue;
		}
		verbose(env, "%s cannot be accessed directly by load/store\n",
			p == map->spin_lock_off ? "bpf_spin_lock"
			: p == map->timer_off	? "bpf_timer"
			: p == map->wq_off	? "bpf_wq"
						: "bpf_task_work");
		return -EACCES;
	}
	return 0;
}

/* BPF_F_RDONLY_PROG / BPF_F_WRONLY_PROG: what the program may do with the map's values (the
 * kernel's check_map_access_type()). */
static int check_map_access_type(struct verifier_env *env, const struct reg_state *reg, s32 off,
				 int size, bool write)
{
	const struct bpf_map *map = reg->map;

	if (write && (map->map_flags & BPF_F_RDONLY_PROG)) {
		verbose(env, "write into map forbidden, value_size=%u off=%d size=%d\n",
			map->value_size, off, size);
		return -EACCES;
	}
	if (!write && (map->map_flags & BPF_F_WRONLY_PROG)) {
		verbose(env, "read from map forbidden, value_size=%u off=%d size=%d\n",
			map->value_size, off, size);
		return -EACCES;
	}
	return 0;
}

static int mem_region(struct verifier_env *env, u32 regno, s32 off, int size, bool zero_ok,
		      bool direct);

int check_mem_region(struct verifier_env *env, u32 regno, s32 off, int size, bool write,
		     int value_regno, bool zero_ok)
{
	(void)write;
	(void)value_regno;
	return mem_region(env, regno, off, size, zero_ok, false);
}

/* check_mem_region() for the program's own load or store (direct) or a helper's access. */
static int mem_region(struct verifier_env *env, u32 regno, s32 off, int size, bool zero_ok,
		      bool direct)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	u32 mem_size = reg->type == PTR_TO_RINGBUF_MEM || reg_is_mem(reg) ? reg->mem_size
		       : reg->type == PTR_TO_MAP_KEY ? reg->map->key_size
						     : reg->map->value_size;
	s64 smin = reg->s.smin;
	int err;

	if (smin < 0 && (smin == SCALAR_S64_MIN || off + smin != (s64)(s32)(off + smin) ||
			 smin + off < 0)) {
		verbose(env, "R%u min value is negative, either use unsigned index or do a if (index "
			     ">=0) check.\n", regno);
		return -EACCES;
	}
	err = mem_access_msg(env, reg, regno, smin + off, size, mem_size, zero_ok);
	if (err) {
		verbose(env, "R%u min value is outside of the allowed memory range\n", regno);
		return err;
	}
	if (reg->s.umax >= BPF_MAX_VAR_OFF) {
		verbose(env, "R%u unbounded memory access, make sure to bounds check any such "
			     "access\n", regno);
		return -EACCES;
	}
	err = mem_access_msg(env, reg, regno, (s64)reg->s.umax + off, size, mem_size, zero_ok);
	if (err) {
		verbose(env, "R%u max value is outside of the allowed memory range\n", regno);
		return err;
	}
	if (reg->type == PTR_TO_MAP_VALUE)
		return check_special_fields(env, reg, off, size, direct);
	return 0;
}

static int check_packet(struct verifier_env *env, u32 regno, s32 off, int size, bool zero_ok)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	int err;

	if (reg->s.smin < 0) {
		verbose(env, "R%u min value is negative, either use unsigned index or do a if (index "
			     ">=0) check.\n", regno);
		return -EACCES;
	}
	/* a pointer known to be at or past the end gives no access, and no "invalid access" line */
	err = reg->range < 0 ? -EINVAL
			     : mem_access_msg(env, reg, regno, off, size, (u32)reg->range, zero_ok);
	if (err) {
		verbose(env, "R%u offset is outside of the packet\n", regno);
		return err;
	}
	return 0;
}

/* Stack. */

static struct func_state *stack_frame(struct verifier_env *env, const struct reg_state *reg)
{
	return env->cur->frame[reg->frameno];
}

/* Bounds of a stack access through reg (+off, size bytes); on success [*lo, *hi) in fp offsets. */
static int stack_bounds(struct verifier_env *env, u32 regno, s32 off, int size, const char *what,
			s64 *lo, s64 *hi)
{
	const struct reg_state *reg = &cur_regs(env)[regno];
	s64 min_off, max_off;
	int err = 0;

	if (scalar_is_const(&reg->s)) {
		min_off = (s64)reg->s.var_off.value + off;
		max_off = min_off + size;
	} else {
		if (reg->s.smax >= BPF_MAX_VAR_OFF || reg->s.smin <= -BPF_MAX_VAR_OFF) {
			verbose(env, "invalid unbounded variable-offset%s stack R%u\n", what, regno);
			return -EACCES;
		}
		min_off = reg->s.smin + off;
		max_off = reg->s.smax + off + size;
	}
	if (min_off < -MAX_BPF_STACK || min_off >= 0)
		err = -EACCES;
	else if (max_off > 0)
		err = -EINVAL;
	if (err) {
		if (scalar_is_const(&reg->s)) {
			verbose(env, "invalid%s stack R%u off=%d size=%d\n", what, regno, off, size);
		} else {
			char tn[48];

			tnum_snprint(tn, sizeof(tn), reg->s.var_off);
			verbose(env, "invalid variable-offset%s stack R%u var_off=%s off=%d size=%d\n",
				what, regno, tn, off, size);
		}
		return err;
	}
	*lo = min_off;
	*hi = max_off;
	return 0;
}

static int grow_for(struct verifier_env *env, struct func_state *f, s64 lo)
{
	u32 slots = (u32)((-lo + SLOT_SIZE - 1) / SLOT_SIZE);
	u32 depth = slots * SLOT_SIZE;
	struct subprog_info *sp = &env->subprog[f->subprogno];

	if (sp->stack_depth < depth)
		sp->stack_depth = depth;
	return grow_stack(f, slots);
}

static u8 *byte_type(struct func_state *f, s64 off)
{
	s64 slot = -off - 1;

	return &f->stack[slot / SLOT_SIZE].type[slot % SLOT_SIZE];
}

static bool is_spilled(const struct stack_slot *sl)
{
	return sl->type[SLOT_SIZE - 1] == STACK_SPILL;
}

static void scrub_slot(struct stack_slot *sl)
{
	if (is_spilled(sl) || sl->type[0] == STACK_SPILL)
		for (int j = 0; j < SLOT_SIZE; j++)
			if (sl->type[j] == STACK_SPILL)
				sl->type[j] = STACK_MISC;
	mark_reg_not_init(&sl->spilled);
}

/* A fixed-offset store of data into part of a spilled register's slot destroys the spill, and
 * every byte of the slot that was written before becomes misc, zeros included (the kernel's
 * scrub_spilled_slot()). */
static void scrub_spill_fixed(struct stack_slot *sl)
{
	/* (an iterator's slot likewise: its reference stays held, to leak) */
	if (!is_spilled(sl) && sl->type[0] != STACK_SPILL && sl->type[SLOT_SIZE - 1] != STACK_ITER)
		return;
	for (int j = 0; j < SLOT_SIZE; j++)
		if (sl->type[j] != STACK_INVALID)
			sl->type[j] = STACK_MISC;
	mark_reg_not_init(&sl->spilled);
}

/* The number of significant bits of a scalar's unsigned value (the kernel's get_reg_width). */
static int scalar_width(const struct scalar *s)
{
	return s->umax ? 64 - __builtin_clzll(s->umax) : 0;
}

/* Gives a scalar an id before it is copied, so the copy is linked to it (not constants). */
static void link_scalar(struct verifier_env *env, struct reg_state *reg)
{
	if (reg->type == SCALAR_VALUE && (reg->id & ID_ADD_CONST)) {
		reg->id = 0;
		reg->delta = 0;
	}
	if (reg->type == SCALAR_VALUE && !reg->id && !scalar_is_const(&reg->s))
		reg->id = ++env->id_gen;
}

static void save_spill(struct stack_slot *sl, const struct reg_state *reg, int size)
{
	int i;

	sl->spilled = *reg;
	for (i = SLOT_SIZE; i > SLOT_SIZE - size; i--)
		sl->type[i - 1] = STACK_SPILL;
	for (; i; i--)
		if (sl->type[i - 1] != STACK_ZERO && sl->type[i - 1] != STACK_INVALID)
			sl->type[i - 1] = STACK_MISC;
}

/* A read of a dynptr's byte at fp offset o, by a load or a helper, of an access of size bytes
 * from lo (6.18's check_stack_range_initialized() message). */
static int dynptr_read_err(struct verifier_env *env, u32 regno, s64 lo, s64 o, int size)
{
	const struct reg_state *reg = &cur_regs(env)[regno];

	if (scalar_is_const(&reg->s)) {
		verbose(env, "invalid read from stack R%u off %lld+%lld size %d\n", regno,
			(long long)lo, (long long)(o - lo), size);
	} else {
		char tn[48];

		tnum_snprint(tn, sizeof(tn), reg->s.var_off);
		verbose(env, "invalid read from stack R%u var_off %s+%lld size %d\n", regno, tn,
			(long long)(o - lo), size);
	}
	return -EACCES;
}

static int stack_write(struct verifier_env *env, u32 regno, s32 off, int size, int value_regno,
		       const struct bpf_insn *insn)
{
	const struct reg_state *ptr = &cur_regs(env)[regno];
	struct func_state *f = stack_frame(env, ptr);
	struct reg_state *val = value_regno >= 0 ? &cur_regs(env)[value_regno] : NULL;
	/* without a value register: BPF_ST (imm is the value) or an atomic's write (imm is the
	 * operation, the value unknown) */
	bool is_st = insn && BPF_CLASS(insn->code) == BPF_ST;
	s64 lo, hi;
	bool zero_kept = false;
	int err = stack_bounds(env, regno, off, size, " write to", &lo, &hi);

	if (err)
		return err;
	err = grow_for(env, f, lo);
	if (err)
		return err;
	/* a store into a dynptr destroys it, or is refused (dynptr.c) */
	for (s64 o = lo; o < hi; o++) {
		err = destroy_dynptr_slot(env, f, (int)((-o - 1) / SLOT_SIZE));
		if (err)
			return err;
	}
	forget_buf_slices(env, f->frameno, lo, hi);
	/* (by index, in whichever frame: the state line shows the current frame's slot of that
	 * index, as 6.18's mark_stack_slot_scratched() makes it) */
	for (s64 o = lo; o < hi; o++)
		env->scratched_slots |= 1ull << ((-o - 1) / SLOT_SIZE);
	if (!scalar_is_const(&ptr->s)) {
		bool zero = val ? reg_is_const(val) && val->s.var_off.value == 0
				: is_st && insn->imm == 0;

		for (s64 o = lo; o < hi; o++) {
			struct stack_slot *sl = &f->stack[(-o - 1) / SLOT_SIZE];
			u8 *t = byte_type(f, o);

			if (is_spilled(sl))
				scrub_slot(sl);
			*t = zero && *t == STACK_ZERO ? STACK_ZERO : STACK_MISC;
			if (*t == STACK_ZERO)
				zero_kept = true;
		}
		/* STACK_ZERO depends on the value being 0 */
		return zero_kept && val ? mark_precise_reg(env, (u32)value_regno) : 0;
	}
	struct stack_slot *sl = &f->stack[(-lo - 1) / SLOT_SIZE];
	bool aligned = lo % SLOT_SIZE == 0;
	u16 spill_flag = (u16)(HIST_STACK | f->frameno << 6 | (u32)((-lo - 1) / SLOT_SIZE));

	if (aligned && size == SLOT_SIZE)
		sl_mark_write(env, f->frameno, (u32)((-lo - 1) / SLOT_SIZE));

	if (val && aligned && val->type == SCALAR_VALUE) {
		/* A value that fits the store is linked to its spill (a shared id), so that a
		 * check on either refines both, as in 6.18. */
		bool fits = scalar_width(&val->s) <= size * 8;

		if (fits)
			link_scalar(env, val);
		save_spill(sl, val, size);
		/* a narrowing spill breaks the link (and its constant offset) */
		if (!fits) {
			sl->spilled.id = 0;
			sl->spilled.delta = 0;
		}
		return hist_push(env, spill_flag, NULL, 0);
	} else if (!val && aligned && BPF_CLASS(insn->code) == BPF_ST) {
		struct reg_state k;

		mark_reg_const(&k, (u64)(s64)insn->imm);
		save_spill(sl, &k, size);
		return hist_push(env, spill_flag, NULL, 0);
	} else if (val && val->type != SCALAR_VALUE) {
		if (size != SLOT_SIZE) {
			verbose(env, "invalid size of register spill\n");
			return -EACCES;
		}
		if (f != cur_frame(env) && val->type == PTR_TO_STACK) {
			verbose(env, "cannot spill pointers to stack into stack frame of the caller\n");
			return -EINVAL;
		}
		save_spill(sl, val, size);
		return hist_push(env, spill_flag, NULL, 0);
	} else {
		u8 type = STACK_MISC;

		scrub_spill_fixed(sl);
		if ((val && reg_is_const(val) && val->s.var_off.value == 0) ||
		    (!val && is_st && insn->imm == 0))
			type = STACK_ZERO;
		for (s64 o = lo; o < hi; o++)
			*byte_type(f, o) = type;
		/* not a spill: STACK_ZERO depends on the value being 0 */
		if (type == STACK_ZERO && val)
			return mark_precise_reg(env, (u32)value_regno);
	}
	return 0;
}

static int stack_read(struct verifier_env *env, u32 regno, s32 off, int size, int dst_regno,
		      const struct bpf_insn *insn)
{
	const struct reg_state *ptr = &cur_regs(env)[regno];
	struct func_state *f = stack_frame(env, ptr);
	struct reg_state *dst = dst_regno >= 0 ? &cur_regs(env)[dst_regno] : NULL;
	s64 lo, hi;
	int err = stack_bounds(env, regno, off, size, " read from", &lo, &hi);

	if (err)
		return err;
	err = grow_for(env, f, lo);
	if (err)
		return err;
	if (!scalar_is_const(&ptr->s)) {
		/* A read into no register is refused at a variable offset (it could not say
		 * whether a pointer went where).  The kernel reads an atomic's operand that way
		 * first, fetch or not, so no atomic takes a variable-offset stack pointer. */
		if (!dst || (insn && BPF_MODE(insn->code) == BPF_ATOMIC)) {
			char tn[48];

			tnum_snprint(tn, sizeof(tn), ptr->s.var_off);
			verbose(env, "variable offset stack pointer cannot be passed into helper "
				"function; var_off=%s off=%d size=%d\n", tn, off, size);
			return -EACCES;
		}
		for (s64 o = lo; o < hi; o++) {
			if (*byte_type(f, o) == STACK_DYNPTR)
				return dynptr_read_err(env, regno, lo, o, size);
			err = sl_mark_read(env, f->frameno, (u32)((-o - 1) / SLOT_SIZE));
			if (err)
				return err;
		}
		/* zeros all the way make a zero; the slots up to the first other byte show in
		 * the state line, by index whatever the frame (the kernel's mark_reg_stack_read()) */
		s64 o = lo;

		for (; o < hi; o++) {
			u32 spi = (u32)((-o - 1) / SLOT_SIZE);

			if (spi < 64)
				env->scratched_slots |= 1ull << spi;
			if (*byte_type(f, o) != STACK_ZERO)
				break;
		}
		if (o == hi)
			mark_reg_const(dst, 0);
		else
			mark_reg_unknown(dst);
		return 0;
	}
	struct stack_slot *sl = &f->stack[(-lo - 1) / SLOT_SIZE];
	s64 slot = -lo - 1;
	u16 fill_flag = (u16)(HIST_STACK | f->frameno << 6 | (u32)(slot / SLOT_SIZE));

	err = sl_mark_read(env, f->frameno, (u32)(slot / SLOT_SIZE));
	if (err)
		return err;

	/* 6.18 shows the slot a load reads in the load's state line: its index, in whichever frame
	 * it is (the kernel marks slots scratched by index alone) */
	if (dst)
		env->scratched_slots |= 1ull << ((-lo - 1) / SLOT_SIZE);

	if (is_spilled(sl)) {
		int spill_size = 1;

		for (int i = SLOT_SIZE - 1; i > 0 && sl->type[i - 1] == STACK_SPILL; i--)
			spill_size++;
		if (size != SLOT_SIZE || spill_size != SLOT_SIZE) {
			if (sl->spilled.type != SCALAR_VALUE) {
				verbose(env, "invalid size of register fill\n");
				return -EACCES;
			}
			if (!dst)
				return 0;
			if (size <= spill_size && lo % SLOT_SIZE == 0) {
				/* a 32-bit fill of a 32-bit spill stays linked to it; a fill that
				 * drops bits of the value is a new value */
				if (size == 4 && spill_size == 4 && scalar_width(&sl->spilled.s) <= 32)
					link_scalar(env, &sl->spilled);
				*dst = sl->spilled;
				if (scalar_width(&sl->spilled.s) > size * 8)
					dst->id = 0;
				return hist_push(env, fill_flag, NULL, 0);
			}
			int spill_cnt = 0, zero_cnt = 0;

			for (int i = 0; i < size; i++) {
				u8 t = sl->type[(slot - i) % SLOT_SIZE];

				spill_cnt += t == STACK_SPILL;
				zero_cnt += t == STACK_ZERO;
			}
			if (spill_cnt == size && reg_is_const(&sl->spilled) &&
			    sl->spilled.s.var_off.value == 0) {
				mark_reg_const(dst, 0);
				return hist_push(env, fill_flag, NULL, 0);
			}
			if (zero_cnt == size)
				mark_reg_const(dst, 0);
			else
				mark_reg_unknown(dst);
			return 0;
		}
		if (dst)
			*dst = sl->spilled;
		return hist_push(env, fill_flag, NULL, 0);
	}
	for (s64 o = lo; o < hi; o++) {
		if (*byte_type(f, o) == STACK_DYNPTR || *byte_type(f, o) == STACK_ITER) {
			verbose(env, "invalid read from stack off %lld+%lld size %d\n", (long long)lo,
				(long long)(o - lo), size);
			return -EACCES;
		}
	}
	if (dst) {
		int zeros = 0;

		for (s64 o = lo; o < hi; o++)
			zeros += *byte_type(f, o) == STACK_ZERO;
		if (zeros == size)
			mark_reg_const(dst, 0);
		else
			mark_reg_unknown(dst);
	}
	return 0;
}

/* Alignment, checked before the access itself.  x86 has efficient unaligned access, so only the
 * stack (whose slot tracking needs it) is always strict; any other pointer, or a scalar, is
 * checked for an atomic (the kernel's strict_alignment_once) or under BPF_F_STRICT_ALIGNMENT
 * (cancelled by BPF_F_ANY_ALIGNMENT).  Packets are checked as if NET_IP_ALIGN were 2, as the
 * kernel does for every architecture. */
int check_alignment(struct verifier_env *env, const struct reg_state *reg, s32 off, int size,
		    bool strict_once)
{
	u32 flags = env->prog->prog_flags;
	bool strict = strict_once ||
		      ((flags & BPF_F_STRICT_ALIGNMENT) && !(flags & BPF_F_ANY_ALIGNMENT));
	const char *what = "";
	int ip_align = 0;

	switch (reg->type) {
	case PTR_TO_PACKET:
	case PTR_TO_PACKET_META:
		ip_align = 2;
		break;
	case PTR_TO_MAP_VALUE:
		what = "value ";
		break;
	case PTR_TO_MAP_KEY:
		what = "key ";
		break;
	case PTR_TO_CTX:
		what = "context ";
		break;
	case PTR_TO_SOCK_COMMON:
		what = "sock_common ";
		break;
	case PTR_TO_SOCKET:
		what = "sock ";
		break;
	case PTR_TO_TCP_SOCK:
		what = "tcp_sock ";
		break;
	case PTR_TO_XDP_SOCK:
		what = "xdp_sock ";
		break;
	case PTR_TO_FLOW_KEYS:
		what = "flow keys ";
		break;
	case PTR_TO_STACK:
		what = "stack ";
		strict = true;
		break;
	default:
		break;
	}
	if (!strict || size == 1)
		return 0;
	struct tnum t = tnum_add(reg->s.var_off,
				 tnum_const((u64)(s64)(ip_align + reg->off + off)));

	if (!tnum_is_aligned(t, (u64)size)) {
		char tn[48];

		if (scalar_is_const(&reg->s))
			snprintf(tn, sizeof(tn), "%lld", (long long)reg->s.var_off.value);
		else
			tnum_snprint(tn, sizeof(tn), reg->s.var_off);
		if (ip_align)
			verbose(env, "misaligned packet access off %d+%s+%d+%d size %d\n", ip_align,
				tn, reg->off, off, size);
		else
			verbose(env, "misaligned %saccess off %s+%d+%d size %d\n", what, tn,
				reg->off, off, size);
		return -EACCES;
	}
	return 0;
}

/* A load at a constant offset from a frozen BPF_F_RDONLY_PROG single-element array (global
 * .rodata) reads a constant, as the kernel's bpf_map_direct_read(): nothing can write it any
 * more, neither the program nor user space (no writable mapping can exist). */
static bool rdonly_map_read(const struct reg_state *reg, s32 off, int size, bool sx, u64 *val)
{
	const struct bpf_map *m = reg->map;
	u32 key = 0;
	const u8 *p;

	if (!m || m->map_type != BPF_MAP_TYPE_ARRAY || m->max_entries != 1 ||
	    !(m->map_flags & BPF_F_RDONLY_PROG) || !__atomic_load_n(&m->frozen, __ATOMIC_ACQUIRE) ||
	    !scalar_is_const(&reg->s) || !m->ops->lookup_ptr)
		return false;
	off += (s32)reg->s.var_off.value;
	p = m->ops->lookup_ptr((struct bpf_map *)m, &key);
	if (!p || off < 0 || (u64)off + (u64)size > m->value_size)
		return false;
	switch (size) {
	case 1: {
		u8 b;

		memcpy(&b, p + off, 1);
		*val = sx ? (u64)(s64)(s8)b : b;
		return true;
	}
	case 2: {
		u16 h;

		memcpy(&h, p + off, 2);
		*val = sx ? (u64)(s64)(s16)h : h;
		return true;
	}
	case 4: {
		u32 w;

		memcpy(&w, p + off, 4);
		*val = sx ? (u64)(s64)(s32)w : w;
		return true;
	}
	case 8:
		memcpy(val, p + off, 8);
		return true;
	}
	return false;
}

/* check_mem_access: regno + off, size bytes; value_regno receives a load (or is stored), -1
 * for none. */
static int mem_access(struct verifier_env *env, u32 regno, s32 off, int size, bool write,
		      int value_regno, bool sx, const struct bpf_insn *insn)
{
	struct reg_state *reg = &cur_regs(env)[regno];
	int err = check_alignment(env, reg, off, size,
				  insn && BPF_MODE(insn->code) == BPF_ATOMIC &&
					  BPF_CLASS(insn->code) == BPF_STX);

	if (err)
		return err;
	off += reg->off;
	switch (reg->type) {
	case PTR_TO_MAP_VALUE: {
		const struct map_kptr *k = NULL;

		err = check_map_access_type(env, reg, off, size, write);
		if (!err)
			err = mem_region(env, regno, off, size, false, true);
		if (!err && scalar_is_const(&reg->s))
			k = map_kptr_at(reg->map, off + (s64)reg->s.var_off.value);
		if (!err && k && insn) {
			err = check_map_kptr_access(env, value_regno, insn, k);
		} else if (!err && !write && value_regno >= 0) {
			u64 v;

			if (rdonly_map_read(reg, off, size, sx, &v))
				mark_reg_const(&cur_regs(env)[value_regno], v);
			else
				mark_reg_unknown(&cur_regs(env)[value_regno]);
		}
		break;
	}
	case PTR_TO_RDONLY_MEM:
	case PTR_TO_RDONLY_UNTRUSTED_MEM:
		if (write) {
			verbose(env, "R%u cannot write into %s\n", regno, reg_type_str(reg->type));
			return -EACCES;
		}
		/* memory of unknown size: any offset, read by a probe load (6.18) */
		if (reg->type == PTR_TO_RDONLY_UNTRUSTED_MEM) {
			if (value_regno >= 0)
				mark_reg_unknown(&cur_regs(env)[value_regno]);
			break;
		}
		/* fall through */
	case PTR_TO_RINGBUF_MEM:
	case PTR_TO_MEM:
		err = check_mem_region(env, regno, off, size, write, value_regno, false);
		if (!err && !write && value_regno >= 0)
			mark_reg_unknown(&cur_regs(env)[value_regno]);
		break;
	case PTR_TO_MAP_KEY: /* a for_each callback's view of the element's key */
		if (write) {
			verbose(env, "write to change key R%u not allowed\n", regno);
			return -EACCES;
		}
		err = check_mem_region(env, regno, off, size, write, value_regno, false);
		if (!err && value_regno >= 0)
			mark_reg_unknown(&cur_regs(env)[value_regno]);
		break;
	case PTR_TO_CTX:
		err = check_ctx(env, reg, regno, off, size, write, value_regno, sx);
		break;
	case PTR_TO_SOCK_COMMON:
	case PTR_TO_SOCKET:
	case PTR_TO_TCP_SOCK:
	case PTR_TO_XDP_SOCK:
		err = check_sock(env, reg, regno, off, size, write, value_regno);
		break;
	case PTR_TO_FLOW_KEYS:
		/* (the kernel's check for a pointer stored into the keys only binds loaders
		 * without CAP_PERFMON) */
		if (off < 0 || (u64)off + (u64)size > sizeof(struct bpf_flow_keys)) {
			verbose(env, "invalid access to flow keys off=%d size=%d\n", off, size);
			return -EACCES;
		}
		if (!write && value_regno >= 0)
			mark_reg_unknown(&cur_regs(env)[value_regno]);
		break;
	case PTR_TO_BTF_ID_TRUSTED:
	case PTR_TO_BTF_ID_RCU:
	case PTR_TO_BTF_ID_UNTRUSTED:
	case PTR_TO_BTF_ID:
	case PTR_TO_PERCPU_BTF_ID:
		err = check_btf_access(env, regno, off, size, write, value_regno);
		break;
	case PTR_TO_STACK:
		err = write ? stack_write(env, regno, off, size, value_regno, insn)
			    : stack_read(env, regno, off, size, value_regno, insn);
		break;
	case PTR_TO_PACKET:
	case PTR_TO_PACKET_META:
		/* (reads need no permission: a program reads what it was given) */
		if (write && reg->type == PTR_TO_PACKET && !may_access_pkt(env, NULL, true)) {
			verbose(env, "cannot write into packet\n");
			return -EACCES;
		}
		err = check_packet(env, regno, off, size, false);
		if (!err && !write && value_regno >= 0)
			mark_reg_unknown(&cur_regs(env)[value_regno]);
		break;
	default:
		verbose(env, "R%u invalid mem access '%s'\n", regno, reg_type_str(reg->type));
		return -EACCES;
	}
	if (!err && !write && value_regno >= 0 && size < 8) {
		struct reg_state *dst = &cur_regs(env)[value_regno];

		if (dst->type == SCALAR_VALUE) {
			/* a stack fill keeps the id stack_read() gave it (kept only where the
			 * value fits the load, so the truncation does not change it) */
			if (sx) {
				scalar_sext(&dst->s, size);
				dst->id = 0;
			} else {
				scalar_trunc(&dst->s, size);
			}
		}
	}
	return err;
}

int check_stack_store(struct verifier_env *env, u32 regno, s32 off, int size,
		      const struct bpf_insn *insn)
{
	return mem_access(env, regno, off, size, true, -1, false, insn);
}

static const int size_bytes[4] = { 4, 2, 1, 8 };

static bool is_mem_or_btf_type(u8 type)
{
	return is_btf_ptr_type(type) || type == PTR_TO_MEM || type == PTR_TO_RDONLY_MEM ||
	       type == PTR_TO_RDONLY_UNTRUSTED_MEM;
}

/* Whether loads through a pointer of this type are probe loads (they may fault). */
static bool is_probe_type(u8 type)
{
	return is_btf_ptr_type(type) || type == PTR_TO_RDONLY_UNTRUSTED_MEM;
}

/* The pointer type an access insn is rewritten for: a ctx access's conversion, a kernel
 * object's BPF_PROBE_MEM load.  One insn may not take two kinds that need different code; a
 * load that took a kernel object's pointer of two trust levels, or one and plain memory, is a
 * probe load (the kernel's save_aux_ptr_type()). */
static int save_ptr_type(struct verifier_env *env, u8 type, bool load)
{
	u8 *prev = &env->aux[env->insn_idx].ptr_type;

	if (*prev == NOT_INIT) {
		*prev = type;
	} else if (*prev != type && (*prev == PTR_TO_CTX || type == PTR_TO_CTX ||
				     is_probe_type(*prev) || is_probe_type(type))) {
		if (load && is_mem_or_btf_type(*prev) && is_mem_or_btf_type(type)) {
			*prev = PTR_TO_BTF_ID_UNTRUSTED;
			return 0;
		}
		verbose(env, "same insn cannot be used with different pointers\n");
		return -EINVAL;
	}
	return 0;
}

static int check_atomic(struct verifier_env *env, const struct bpf_insn *insn)
{
	struct reg_state *regs = cur_regs(env);
	int size = size_bytes[BPF_SIZE(insn->code) >> 3];
	int load_reg = -1, err;

	switch (insn->imm) {
	case BPF_ADD: case BPF_ADD | BPF_FETCH:
	case BPF_AND: case BPF_AND | BPF_FETCH:
	case BPF_OR: case BPF_OR | BPF_FETCH:
	case BPF_XOR: case BPF_XOR | BPF_FETCH:
	case BPF_XCHG: case BPF_CMPXCHG:
		break;
	default:
		verbose(env, "BPF_ATOMIC uses invalid atomic opcode %02x\n", insn->imm);
		return -EINVAL;
	}
	if (BPF_SIZE(insn->code) != BPF_W && BPF_SIZE(insn->code) != BPF_DW) {
		verbose(env, "invalid atomic operand size\n");
		return -EINVAL;
	}
	err = check_reg_arg_read(env, insn->src_reg);
	if (err)
		return err;
	err = check_reg_arg_read(env, insn->dst_reg);
	if (err)
		return err;
	if (insn->imm == BPF_CMPXCHG) {
		err = check_reg_arg_read(env, BPF_REG_0);
		if (err)
			return err;
	}
	u8 t = regs[insn->dst_reg].type;

	if (t == PTR_TO_CTX || t == PTR_TO_PACKET || t == PTR_TO_PACKET_META ||
	    t == PTR_TO_FLOW_KEYS || t == PTR_TO_SOCK_COMMON || t == PTR_TO_SOCKET ||
	    t == PTR_TO_TCP_SOCK || t == PTR_TO_XDP_SOCK) {
		verbose(env, "BPF_ATOMIC stores into R%u %s is not allowed\n", insn->dst_reg,
			reg_type_str(t));
		return -EACCES;
	}
	if (insn->imm & BPF_FETCH) {
		load_reg = insn->imm == BPF_CMPXCHG ? BPF_REG_0 : insn->src_reg;
		err = check_reg_arg_write(env, (u32)load_reg);
		if (err)
			return err;
	}
	/* the loaded value is the old memory content, as a fill would load it (a spilled pointer
	 * comes back as that pointer, as in the kernel); the stored one is unknown (the kernel's
	 * value_regno -1): not modelled through the src register, which may be dst itself */
	err = mem_access(env, insn->dst_reg, insn->off, size, false, load_reg, false, insn);
	if (err)
		return err;
	return mem_access(env, insn->dst_reg, insn->off, size, true, -1, false, insn);
}

int check_mem_insn(struct verifier_env *env, const struct bpf_insn *insn)
{
	struct reg_state *regs = cur_regs(env);
	u8 cls = BPF_CLASS(insn->code);
	int size = size_bytes[BPF_SIZE(insn->code) >> 3];
	int err;

	if (cls == BPF_LDX) {
		err = check_reg_arg_read(env, insn->src_reg);
		if (err)
			return err;
		err = check_reg_arg_write(env, insn->dst_reg);
		if (err)
			return err;
		u8 t = regs[insn->src_reg].type;

		err = mem_access(env, insn->src_reg, insn->off, size, false, insn->dst_reg,
				 BPF_MODE(insn->code) == BPF_MEMSX, insn);
		return err ? err : save_ptr_type(env, t, true);
	}
	if (cls == BPF_STX) {
		if (BPF_MODE(insn->code) == BPF_ATOMIC)
			return check_atomic(env, insn);
		if (BPF_MODE(insn->code) != BPF_MEM || insn->imm != 0) {
			verbose(env, "BPF_STX uses reserved fields\n");
			return -EINVAL;
		}
		err = check_reg_arg_read(env, insn->src_reg);
		if (err)
			return err;
		err = check_reg_arg_read(env, insn->dst_reg);
		if (err)
			return err;
		u8 t = regs[insn->dst_reg].type;

		err = mem_access(env, insn->dst_reg, insn->off, size, true, insn->src_reg, false,
				 insn);
		return err ? err : save_ptr_type(env, t, false);
	}
	/* BPF_ST */
	if (BPF_MODE(insn->code) != BPF_MEM || insn->src_reg != 0) {
		verbose(env, "BPF_ST uses reserved fields\n");
		return -EINVAL;
	}
	err = check_reg_arg_read(env, insn->dst_reg);
	if (err)
		return err;
	u8 t = regs[insn->dst_reg].type;

	err = mem_access(env, insn->dst_reg, insn->off, size, true, -1, false, insn);
	return err ? err : save_ptr_type(env, t, false);
}

int check_ld_abs(struct verifier_env *env, const struct bpf_insn *insn)
{
	struct reg_state *regs = cur_regs(env);
	u32 type = env->prog->type;
	int err;

	if (type != BPF_PROG_TYPE_SOCKET_FILTER && !prog_type_is_tc(type)) {
		verbose(env, "BPF_LD_[ABS|IND] instructions not allowed for this program type\n");
		return -EINVAL;
	}
	if (insn->dst_reg != BPF_REG_0 || insn->off != 0 || BPF_SIZE(insn->code) == BPF_DW ||
	    (BPF_MODE(insn->code) == BPF_ABS && insn->src_reg != BPF_REG_0)) {
		verbose(env, "BPF_LD_[ABS|IND] uses reserved fields\n");
		return -EINVAL;
	}
	err = check_reg_arg_read(env, BPF_REG_6);
	if (err)
		return err;
	if (regs[BPF_REG_6].type != PTR_TO_CTX) {
		verbose(env, "at the time of BPF_LD_ABS|IND R6 != pointer to skb\n");
		return -EINVAL;
	}
	if (BPF_MODE(insn->code) == BPF_IND) {
		err = check_reg_arg_read(env, insn->src_reg);
		if (err)
			return err;
	}
	err = check_ptr_off(env, &regs[BPF_REG_6], BPF_REG_6, false);
	if (err)
		return err;
	/* the load may end the program (a packet too short), where nothing may be held */
	err = check_resource_leak(env, "BPF_LD_[ABS|IND]", true);
	if (err)
		return err;
	for (int i = 0; i <= BPF_REG_5; i++) {
		mark_reg_not_init(&regs[i]);
		env->scratched[i] = true;
	}
	mark_reg_unknown(&regs[BPF_REG_0]);
	return 0;
}

/* Helper memory arguments: regno points at size bytes the helper reads (or writes). */
int check_helper_mem(struct verifier_env *env, u32 regno, int size, bool zero_ok, bool write,
		     bool bytewise)
{
	struct reg_state *reg = &cur_regs(env)[regno];
	s64 lo, hi;
	int err;

	switch (reg->type) {
	case PTR_TO_PACKET:
	case PTR_TO_PACKET_META:
		return check_packet(env, regno, reg->off, size, zero_ok);
	case PTR_TO_MAP_VALUE:
		err = check_map_access_type(env, reg, reg->off, size, write);
		return err ? err : check_mem_region(env, regno, reg->off, size, write, -1, zero_ok);
	case PTR_TO_RDONLY_MEM:
		if (write) {
			verbose(env, "R%u cannot write into %s\n", regno, reg_type_str(reg->type));
			return -EACCES;
		}
		/* fall through */
	case PTR_TO_RINGBUF_MEM:
	case PTR_TO_MEM:
		return check_mem_region(env, regno, reg->off, size, write, -1, zero_ok);
	case PTR_TO_MAP_KEY:
		if (write) {
			verbose(env, "R%u cannot write into %s\n", regno, reg_type_str(reg->type));
			return -EACCES;
		}
		return check_mem_region(env, regno, reg->off, size, write, -1, zero_ok);
	case PTR_TO_BTF_ID_TRUSTED:
		return check_btf_access(env, regno, reg->off, size, write, -1);
	case PTR_TO_STACK:
		if (size == 0 && !zero_ok) {
			verbose(env, "invalid zero-sized read\n");
			return -EACCES;
		}
		err = stack_bounds(env, regno, reg->off, size, write ? " write to" : " read from",
				   &lo, &hi);
		if (err)
			return err;
		struct func_state *f = stack_frame(env, reg);

		err = grow_for(env, f, lo);
		if (err)
			return err;
		/* a helper may not write a dynptr's bytes, nor read them */
		for (s64 o = lo; o < hi; o++) {
			if (*byte_type(f, o) != STACK_DYNPTR)
				continue;
			if (write && bytewise) {
				verbose(env, "potential write to dynptr at off=%lld disallowed\n",
					(long long)o);
				return -EACCES;
			}
			return dynptr_read_err(env, regno, lo, o, size);
		}
		if (write) {
			forget_buf_slices(env, f->frameno, lo, hi);
			for (s64 o = lo; o < hi; o++) {
				struct stack_slot *sl = &f->stack[(-o - 1) / SLOT_SIZE];

				/* the kernel writes helper memory byte by byte: each a fixed-offset
				 * store that shows its slot */
				scrub_spill_fixed(sl);
				*byte_type(f, o) = STACK_MISC;
				if (bytewise) /* (by index, whatever the frame) */
					env->scratched_slots |= 1ull << ((-o - 1) / SLOT_SIZE);
			}
			if (bytewise)
				return 0;
			/* checked as one range, the kernel's way counts as reading it too */
		}
		for (s64 o = lo; o < hi; o++) {
			err = sl_mark_read(env, f->frameno, (u32)((-o - 1) / SLOT_SIZE));
			if (err)
				return err;
		}
		return 0;
	case PTR_TO_CTX:
		/* a ctx whose loads the kernel does not rewrite (tracing types, cgroup device):
		 * the access is checked as a ctx load or store of its last byte */
		if (!ctx_loads_rewritten(env->prog->type)) {
			if (!size)
				return zero_ok ? 0 : -EACCES;
			return mem_access(env, regno, size - 1, 1, write, -1, false, NULL);
		}
		/* fall through */
	default:
		if (zero_ok && size == 0 && reg_is_const(reg) && reg->s.var_off.value == 0)
			return 0;
		verbose(env, "R%u type=%s expected=fp\n", regno, reg_type_str(reg->type));
		return -EACCES;
	}
}
