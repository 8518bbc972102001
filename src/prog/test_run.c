/* BPF_PROG_TEST_RUN: run a loaded program on a packet (and optional context) given in attr, and
 * hand back its return value, the packet as it left it, the context and the mean run time.
 *
 * Semantics are the kernel's (net/bpf/test_run.c), rebuilt for user space:
 *  - skb types: the packet is laid out as the kernel's build_skb() would (NET_SKB_PAD headroom,
 *    skb_shared_info tailroom, the same size limit); eth_type_trans() gives protocol and
 *    pkt_type (on the loopback device, whose address and broadcast address are all zeros); a socket filter sees the
 *    packet from its network header (the Ethernet header pulled), a tc program from its mac
 *    header, and after a socket filter the Ethernet header comes back zeroed in data_out.
 *    ctx_in may set only mark, priority, ingress_ifindex, ifindex, cb, tstamp, wire_len,
 *    gso_segs, gso_size and hwtstamp; ctx_out gets the kernel's fields back.
 *  - XDP: 256 bytes of headroom, metadata from ctx_in (data_meta..data), the packet beyond
 *    PAGE_SIZE - headroom - tailroom kept in "fragments" the program cannot see, as the kernel
 *    keeps it in page frags.
 *  - repeat 0 means 1; the program runs repeat times on the same packet; duration is the total
 *    time divided by the number of runs, saturated to u32.
 *  - data_out gets min(size, data_size_out) bytes (data_size_out 0: no limit) and ENOSPC when
 *    that cut the packet, after the copy; data_size_out, retval and duration are written back
 *    even then.
 * The read section (rcu_read_lock) is held only while the program runs: across a batch of
 * repeats (test_repeat()), as the kernel holds it across its whole loop.
 */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>

#include "exec/current_task.h"
#include "exec/interp.h"
#include "exec/jit.h"
#include "exec/rtnl.h"
#include "map/cgroup_storage.h"
#include "map/map.h"
#include "prog/prog.h"
#include "prog/link.h"
#include "prog/run.h"
#include "rcu.h"

#define TEST_PAGE_SIZE 4096u
/* skb layout of x86-64: NET_SKB_PAD + NET_IP_ALIGN headroom, SKB_DATA_ALIGN(sizeof(struct
 * skb_shared_info)) tailroom. */
#define SKB_HEADROOM 64u
#define SKB_TAILROOM 320u
#define XDP_HEADROOM 256u	/* XDP_PACKET_HEADROOM */
#define MAX_SKB_FRAGS 17u
#define GSO_LEGACY_MAX_SIZE 65536u
#define GSO_MAX_SEGS 65535u
#define LOOPBACK_IFINDEX 1

#ifndef BPF_F_TEST_SKB_CHECKSUM_COMPLETE
#define BPF_F_TEST_SKB_CHECKSUM_COMPLETE (1U << 2)
#endif

typedef int (*test_run_fn)(struct bpf_prog *prog, const union bpf_attr *attr,
			   union bpf_attr *uattr);

#define BPF_PROG_TYPE(type, run) [type] = run,
static const test_run_fn test_runs[] = {
#include "prog/prog_types.h"
};
#undef BPF_PROG_TYPE

/* ---- checksums (ones' complement, RFC 1071) ---- */

u32 csum_add_bytes(u32 sum, const u8 *p, u32 len, bool even)
{
	u64 s = sum;

	for (u32 i = 0; i < len; i++, even = !even)
		s += even ? (u32)p[i] << 8 : p[i];
	while (s >> 32)
		s = (s & 0xffffffffu) + (s >> 32);
	return (u32)s;
}

u16 csum_fold16(u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (u16)sum;
}

/* ---- running ---- */

/* LD_ABS/LD_IND: off >= 0 is relative to skb->data; SKF_NET_OFF and SKF_LL_OFF bases reach the
 * network and mac headers.  Bytes outside the packet end the program with 0. */
const void *run_skb_load_pkt(u64 ctx, s32 off, u32 size, void *buf)
{
	const struct run_skb *skb = run_skb_of((void *)(uintptr_t)ctx);
	const u8 *p;

	if (off >= 0) {
		if ((u32)off > skb->ctx.uapi.len || size > skb->ctx.uapi.len - (u32)off)
			return NULL;
		return skb->ctx.data + off;
	}
	if (off >= SKF_NET_OFF)
		p = skb->net + (off - SKF_NET_OFF);
	else if (off >= SKF_LL_OFF)
		p = skb->mac + (off - SKF_LL_OFF);
	else
		return NULL;
	if (p < skb->head || p > skb->tail || size > (size_t)(skb->tail - p))
		return NULL;
	return p;
}

/* Runs per read section in prog_repeat(): the kernel holds rcu_read_lock() across all of its
 * repeats (until need_resched()); a short batch keeps the section's cost out of the per-run
 * time while a writer in synchronize_rcu() still waits for a few runs at most. */
#define RUNS_PER_SECTION 32u

void prog_repeat(const struct bpf_prog *prog, const u64 args[5], u32 repeat, u64 *r0,
		 u32 *duration)
{
	jit_entry_fn fn = prog->jit ? jit_entry(prog->jit) : NULL;
	u64 start, spent;

	if (!repeat)
		repeat = 1;
	*r0 = 0;
	current_task_hold();
	start = prog_clock_ns();
	if (fn) {
		/* in locals: the program may write memory, the compiler would reload args[] */
		u64 a1 = args[0], a2 = args[1], a3 = args[2], a4 = args[3], a5 = args[4];
		struct jit_ret ret = { 0, 0 };

		for (u32 left = repeat; left;) {
			u32 n = left < RUNS_PER_SECTION ? left : RUNS_PER_SECTION;

			left -= n;
			rcu_read_lock();
			if (prog_stats_on()) { /* (looked at per batch: each run timed) */
				do {
					u64 t = prog_clock_ns();

					if (prog->has_tail_call)
						prog_run_reset_tail_calls();
					ret = fn(a1, a2, a3, a4, a5);
					prog_stats_add(prog, 1, prog_clock_ns() - t);
				} while (--n);
			} else {
				do {
					if (prog->has_tail_call)
						prog_run_reset_tail_calls();
					ret = fn(a1, a2, a3, a4, a5);
				} while (--n);
			}
			rcu_read_unlock();
		}
		*r0 = ret.r0; /* 0 after a run-time error, as interp_exec() leaves it */
	} else {
		for (u32 i = 0; i < repeat; i++) {
			rcu_read_lock();
			prog_exec(prog, args, r0);
			rcu_read_unlock();
		}
	}
	spent = (prog_clock_ns() - start) / repeat;
	current_task_release();
	*duration = spent > UINT32_MAX ? UINT32_MAX : (u32)spent;
}

/* The kernel's bpf_test_run() on a context: r1 = ctx, the other arguments zero, with fresh
 * storage for the program's cgroup storage maps kept through the repeats, and the sockets its
 * lookups found kept until the end; 0 or -ENOMEM. */
static int test_repeat(const struct bpf_prog *prog, void *ctx, u32 repeat, u32 *retval,
		       u32 *duration)
{
	u64 args[5] = { (uintptr_t)ctx }, r0;
	struct cgroup_storage_run storage;

	if (cgroup_storage_run_begin(prog, &storage))
		return -ENOMEM;
	prog_repeat(prog, args, repeat, &r0, duration);
	cgroup_storage_run_end(&storage);
	sock_lookup_run_end();
	*retval = (u32)r0;
	return 0;
}

/* The kernel's bpf_test_finish(): data_out cut to data_size_out, then data_size_out, retval,
 * duration.  frags_size: the last bytes of size, held in frags (XDP), which follow the linear
 * part in the same buffer here; a cut shortens the linear part and the frags follow it whole, as
 * the kernel copies them. */
static int test_finish(const union bpf_attr *attr, union bpf_attr *uattr, const void *data,
		       u32 size, u32 frags_size, u32 retval, u32 duration)
{
	u8 *data_out = u64_to_ptr(attr->test.data_out);
	u32 copy = size;
	int err = 0;

	if (attr->test.data_size_out && copy > attr->test.data_size_out) {
		copy = attr->test.data_size_out;
		err = -ENOSPC;
	}
	if (data_out) {
		/* the cut falls on the linear part: all of the frags still follow it */
		if (copy < frags_size)
			return -ENOSPC; /* the kernel's negative linear length; nothing written */
		memcpy(data_out, data, copy - frags_size);
		memcpy(data_out + copy - frags_size, (const u8 *)data + size - frags_size,
		       frags_size);
	}
	uattr->test.data_size_out = size;
	uattr->test.retval = retval;
	uattr->test.duration = duration;
	return err;
}

/* The kernel's bpf_ctx_init(): NULL when neither ctx_in nor ctx_out; a zeroed max_size buffer
 * with ctx_in copied in (bytes of ctx_in beyond max_size must be zero: E2BIG). */
static int ctx_init(const union bpf_attr *attr, u32 max_size, void **out)
{
	const u8 *in = u64_to_ptr(attr->test.ctx_in);
	u32 size = attr->test.ctx_size_in;
	u8 *ctx;

	*out = NULL;
	if (!in && !attr->test.ctx_out)
		return 0;
	if (in) {
		if (size > TEST_PAGE_SIZE)
			return -E2BIG;
		for (u32 i = max_size; i < size; i++)
			if (in[i])
				return -E2BIG;
	}
	ctx = calloc(1, max_size);
	if (!ctx)
		return -ENOMEM;
	if (in)
		memcpy(ctx, in, size < max_size ? size : max_size);
	*out = ctx;
	return 0;
}

/* The kernel's bpf_ctx_finish(): ctx_out cut to ctx_size_out (ENOSPC), ctx_size_out = size. */
static int ctx_finish(const union bpf_attr *attr, union bpf_attr *uattr, const void *ctx,
		      u32 size)
{
	void *out = u64_to_ptr(attr->test.ctx_out);
	u32 copy = size;
	int err = 0;

	if (!ctx || !out)
		return 0;
	if (copy > attr->test.ctx_size_out) {
		copy = attr->test.ctx_size_out;
		err = -ENOSPC;
	}
	memcpy(out, ctx, copy);
	uattr->test.ctx_size_out = size;
	return err;
}

/* ---- socket filters and tc ---- */

static bool zero_range(const void *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (((const u8 *)p)[i])
			return false;
	return true;
}

#define END(f) (offsetof(struct __sk_buff, f) + sizeof(((struct __sk_buff *)0)->f))

/* The __sk_buff fields ctx_in may set: everything else must be zero (EINVAL). */
static int skb_ctx_check(const struct __sk_buff *c, u32 len)
{
	if (!zero_range(c, 0, offsetof(struct __sk_buff, mark)) ||
	    !zero_range(c, END(mark), offsetof(struct __sk_buff, priority)) ||
	    !zero_range(c, END(ifindex), offsetof(struct __sk_buff, cb)) ||
	    !zero_range(c, END(cb), offsetof(struct __sk_buff, tstamp)) ||
	    !zero_range(c, END(gso_segs), offsetof(struct __sk_buff, gso_size)) ||
	    !zero_range(c, END(gso_size), offsetof(struct __sk_buff, hwtstamp)) ||
	    !zero_range(c, END(hwtstamp), sizeof(struct __sk_buff)))
		return -EINVAL;
	if (c->wire_len && (c->wire_len < len || c->wire_len > GSO_LEGACY_MAX_SIZE))
		return -EINVAL;
	if (c->gso_segs > GSO_MAX_SEGS)
		return -EINVAL;
	return 0;
}

/* eth_type_trans() on the loopback device: pkt_type from the destination address, protocol
 * from the type field (802.3 frames: raw 802.3 or 802.2 from the first payload bytes). */
static void eth_classify(const u8 *mac, u32 *pkt_type, u16 *proto_be)
{
	/* loopback's address and broadcast address are both all zeros, so a group address is
	 * never its broadcast address */
	static const u8 lo_addr[ETH_ALEN], lo_bcast[ETH_ALEN];
	u16 proto;

	if (mac[0] & 1)
		*pkt_type = memcmp(mac, lo_bcast, ETH_ALEN) ? PACKET_MULTICAST : PACKET_BROADCAST;
	else
		*pkt_type = memcmp(mac, lo_addr, ETH_ALEN) ? PACKET_OTHERHOST : PACKET_HOST;
	proto = (u16)(mac[12] << 8 | mac[13]);
	if (proto >= ETH_P_802_3_MIN)
		*proto_be = htons(proto);
	else if (mac[ETH_HLEN] == 0xff && mac[ETH_HLEN + 1] == 0xff)
		*proto_be = htons(ETH_P_802_3);
	else
		*proto_be = htons(ETH_P_802_2);
}

void run_skb_set_sock(struct run_skb *skb, u16 proto_be)
{
	struct bpf_sock *sk = &skb->sock.sk;
	u32 headlen = (u32)(skb->tail - skb->net);

	prog_sock_init(&skb->sock);
	sk->state = SK_CLOSE; /* sock_init_data()'s */
	sk->rx_queue_mapping = (u32)-1;
	if (proto_be == htons(ETH_P_IP) && headlen >= sizeof(struct iphdr)) {
		sk->family = AF_INET;
		memcpy(&sk->src_ip4, skb->net + offsetof(struct iphdr, saddr), 4);
		memcpy(&sk->dst_ip4, skb->net + offsetof(struct iphdr, daddr), 4);
	} else if (proto_be == htons(ETH_P_IPV6) && headlen >= sizeof(struct ip6_hdr)) {
		sk->family = AF_INET6;
		memcpy(sk->src_ip6, skb->net + offsetof(struct ip6_hdr, ip6_src), 16);
		memcpy(sk->dst_ip6, skb->net + offsetof(struct ip6_hdr, ip6_dst), 16);
	}
	skb->ctx.uapi.sk = sk;
	/* __sk_buff's own copies of the socket's fields (which cgroup skb programs read) */
	skb->ctx.uapi.family = sk->family;
	skb->ctx.uapi.remote_ip4 = sk->dst_ip4;
	skb->ctx.uapi.local_ip4 = sk->src_ip4;
	memcpy(skb->ctx.uapi.remote_ip6, sk->dst_ip6, sizeof(sk->dst_ip6));
	memcpy(skb->ctx.uapi.local_ip6, sk->src_ip6, sizeof(sk->src_ip6));
	skb->ctx.uapi.remote_port = (u32)sk->dst_port << 16; /* network order, in the high half */
	skb->ctx.uapi.local_port = sk->src_port;
}

int test_run_skb(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr)
{
	const u8 *data_in = u64_to_ptr(attr->test.data_in);
	bool is_l2 = prog_type_is_tc(prog->type);
	u32 size = attr->test.data_size_in, retval = 0, duration = 0, wire_len = 0, out_len;
	size_t buf_size;
	u8 *out;
	struct __sk_buff *uctx;
	struct run_skb skb;
	u16 proto;
	u8 *buf;
	int err;

	if ((attr->test.flags & ~BPF_F_TEST_SKB_CHECKSUM_COMPLETE) || attr->test.cpu ||
	    attr->test.batch_size)
		return -EINVAL;
	if (size < ETH_HLEN)
		return -EINVAL;
	/* the packet must fit one page beside headroom and skb_shared_info */
	if (size > TEST_PAGE_SIZE - SKB_HEADROOM - SKB_TAILROOM)
		return -EINVAL;
	buf_size = SKB_HEADROOM + round_up(size, 64) + SKB_TAILROOM;
	buf = calloc(1, buf_size);
	if (!buf)
		return -ENOMEM;
	err = -EFAULT;
	if (!data_in)
		goto free_buf;
	memcpy(buf + SKB_HEADROOM, data_in, size);
	err = ctx_init(attr, sizeof(struct __sk_buff), (void **)&uctx);
	if (err)
		goto free_buf;

	memset(&skb, 0, sizeof(skb));
	skb.head = buf;
	skb.end = buf + buf_size;
	skb.can_grow = true;
	skb.mac = buf + SKB_HEADROOM;
	skb.net = skb.mac + ETH_HLEN;
	skb.tail = skb.mac + size;
	skb.ctx.uapi.ifindex = LOOPBACK_IFINDEX;
	err = -ENODEV;
	if (uctx && uctx->ifindex > 1 && !if_indextoname(uctx->ifindex, (char[IF_NAMESIZE]){ 0 }))
		goto free_ctx;
	if (uctx && uctx->ifindex > 1)
		skb.ctx.uapi.ifindex = uctx->ifindex;
	eth_classify(skb.mac, &skb.ctx.uapi.pkt_type, &proto);
	skb.ctx.uapi.protocol = proto;
	run_skb_set_sock(&skb, proto);
	err = -EINVAL;
	if (proto == htons(ETH_P_IP) && size - ETH_HLEN < sizeof(struct iphdr))
		goto free_ctx;
	if (proto == htons(ETH_P_IPV6) && size - ETH_HLEN < sizeof(struct ip6_hdr))
		goto free_ctx;

	skb.ctx.data = is_l2 ? skb.mac : skb.net;
	skb.ctx.data_end = skb.tail;
	skb.ctx.data_meta = skb.ctx.data;
	skb.ctx.uapi.len = (u32)(skb.ctx.data_end - skb.ctx.data);
	if (uctx) {
		err = skb_ctx_check(uctx, skb.ctx.uapi.len);
		if (err)
			goto free_ctx;
		skb.ctx.uapi.mark = uctx->mark;
		skb.ctx.uapi.priority = uctx->priority;
		skb.ctx.uapi.ingress_ifindex = uctx->ingress_ifindex;
		skb.ctx.uapi.tstamp = uctx->tstamp;
		memcpy(skb.ctx.uapi.cb, uctx->cb, sizeof(uctx->cb));
		wire_len = uctx->wire_len ? uctx->wire_len : skb.ctx.uapi.len;
		skb.ctx.uapi.gso_segs = uctx->gso_segs;
		skb.ctx.uapi.gso_size = uctx->gso_size;
		skb.ctx.uapi.hwtstamp = uctx->hwtstamp;
	}
	skb.ctx.uapi.wire_len = wire_len;
	if (attr->test.flags & BPF_F_TEST_SKB_CHECKSUM_COMPLETE) {
		skb.csum_complete = skb.csum_check = true;
		skb.csum = csum_add_bytes(0, skb.net, (u32)(skb.tail - skb.net), true);
	}

	err = test_repeat(prog, &skb.ctx, attr->test.repeat, &retval, &duration);
	buf = skb.head; /* a helper may have reallocated it */
	if (err)
		goto free_ctx;

	/* the kernel pushes an Ethernet header's worth of zeroes in front of what the program
	 * left (the pulled header, or before bytes bpf_skb_change_head() added) */
	if (!is_l2) {
		err = run_skb_room(&skb, ETH_HLEN, 0);
		buf = skb.head;
		if (err)
			goto free_ctx;
		memset(skb.ctx.data - ETH_HLEN, 0, ETH_HLEN);
	}
	if (skb.csum_check &&
	    csum_fold16(skb.csum) !=
		    csum_fold16(csum_add_bytes(0, skb.net, (u32)(skb.tail - skb.net), true))) {
		err = -EBADMSG;
		goto free_ctx;
	}
	if (uctx) {
		uctx->mark = skb.ctx.uapi.mark;
		uctx->priority = skb.ctx.uapi.priority;
		uctx->ingress_ifindex = skb.ctx.uapi.ingress_ifindex;
		uctx->ifindex = skb.ctx.uapi.ifindex;
		uctx->tstamp = skb.ctx.uapi.tstamp;
		memcpy(uctx->cb, skb.ctx.uapi.cb, sizeof(uctx->cb));
		uctx->wire_len = wire_len;
		uctx->gso_segs = skb.ctx.uapi.gso_segs;
		uctx->hwtstamp = skb.ctx.uapi.hwtstamp;
	}
	/* from skb->data as the kernel copies it: tc's data, the others' pushed mac header */
	out = is_l2 ? skb.ctx.data : skb.ctx.data - ETH_HLEN;
	out_len = (u32)(skb.tail - out);
	err = test_finish(attr, uattr, out, out_len, 0, retval, duration);
	if (!err)
		err = ctx_finish(attr, uattr, uctx, sizeof(struct __sk_buff));
free_ctx:
	sk_storage_free(&skb.sock.storage); /* the dummy socket goes */
	free(uctx);
free_buf:
	free(buf);
	return err;
}

/* ---- XDP ---- */

/* Number of rx queues of a device in use (the kernel's real_num_rx_queues; 0: no such device),
 * as the calling thread's namespace has it: its channels (ethtool), which most devices with
 * queues report; else sysfs's queue list, for a device sysfs shows under the same name and
 * index (sysfs shows the namespace it was mounted in); else the queues routing netlink says it
 * has. */
static u32 rx_queues(unsigned ifindex)
{
	char name[IF_NAMESIZE], path[64 + IF_NAMESIZE], idx[16] = { 0 };
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;
	struct rtnl_link link;
	u32 n = 0;
	FILE *f;
	int fd;

	if (!if_indextoname(ifindex, name) || rtnl_link_get(ifindex, &link))
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, sizeof(ifr.ifr_name) - 1);
	ifr.ifr_data = (void *)&ch;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		if (!ioctl(fd, SIOCETHTOOL, &ifr))
			n = ch.rx_count + ch.combined_count;
		close(fd);
	}
	if (n)
		return n;
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", name);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(idx, sizeof(idx), f))
			idx[0] = 0;
		fclose(f);
	}
	if (strtoul(idx, NULL, 10) != ifindex)
		return link.num_rx_queues ? link.num_rx_queues : 1;
	for (;;) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-%u", name, n);
		if (access(path, F_OK))
			break;
		n++;
	}
	return n ? n : 1;
}

int test_run_xdp(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr)
{
	const u8 *data_in = u64_to_ptr(attr->test.data_in);
	u32 size_in = attr->test.data_size_in, headroom = XDP_HEADROOM, meta = 0, linear, max_linear;
	u32 retval = 0, duration = 0, frags_size, size;
	struct xdp_md *uctx;
	struct xdp_ctx xdp;
	u8 *buf;
	int err;

	if (prog->expected_attach_type == BPF_XDP_DEVMAP ||
	    prog->expected_attach_type == BPF_XDP_CPUMAP)
		return -EINVAL;
	/* BPF_F_TEST_XDP_LIVE_FRAMES sends frames out of a device: none here. */
	if (attr->test.flags & ~BPF_F_TEST_XDP_LIVE_FRAMES)
		return -EINVAL;
	if (attr->test.flags & BPF_F_TEST_XDP_LIVE_FRAMES)
		return -EOPNOTSUPP;
	if (attr->test.batch_size)
		return -EINVAL;
	err = ctx_init(attr, sizeof(struct xdp_md), (void **)&uctx);
	if (err)
		return err;
	linear = size_in;
	err = -EINVAL;
	if (uctx) {
		/* no user data before the metadata; metadata a multiple of 4, below 256 bytes */
		if (uctx->data_meta || uctx->data_end > size_in || uctx->data > uctx->data_end)
			goto free_ctx;
		meta = uctx->data;
		if ((meta & 3) || meta > XDP_META_MAX || meta > headroom - XDP_FRAME_SIZE)
			goto free_ctx;
		headroom -= meta;
		linear = uctx->data_end;
	}
	max_linear = TEST_PAGE_SIZE - headroom - SKB_TAILROOM;
	if (linear > max_linear)
		linear = max_linear;
	if (size_in - meta < ETH_HLEN)
		goto free_ctx;
	/* size_in - linear bytes go to page-sized frags, at most MAX_SKB_FRAGS */
	frags_size = size_in - linear;
	err = -ENOMEM;
	if (frags_size > MAX_SKB_FRAGS * TEST_PAGE_SIZE)
		goto free_ctx;
	/* (a page more: the last frag may grow into its page's tailroom) */
	buf = calloc(1, headroom + max_linear + frags_size + SKB_TAILROOM +
			    (frags_size ? XDP_FRAG_SIZE : 0));
	if (!buf)
		goto free_ctx;
	err = -EFAULT;
	if (!data_in)
		goto free_buf;
	memcpy(buf + headroom, data_in, size_in);

	memset(&xdp, 0, sizeof(xdp));
	xdp.data_meta = buf + headroom;
	xdp.data = xdp.data_meta + meta;
	xdp.data_end = buf + headroom + linear;
	xdp.hard_start = buf;
	xdp.hard_end = buf + headroom + max_linear; /* page end minus skb_shared_info */
	xdp.frags = xdp.data_end;
	xdp.frags_size = frags_size;
	xdp.nr_frags = (frags_size + XDP_FRAG_SIZE - 1) / XDP_FRAG_SIZE;
	xdp.uapi.ingress_ifindex = LOOPBACK_IFINDEX;
	if (uctx) {
		err = -EINVAL;
		if (uctx->egress_ifindex)
			goto free_buf;
		if (!uctx->ingress_ifindex && uctx->rx_queue_index)
			goto free_buf;
		if (uctx->ingress_ifindex) {
			u32 nq = rx_queues(uctx->ingress_ifindex);

			err = -ENODEV;
			if (!nq)
				goto free_buf;
			err = -EINVAL;
			if (uctx->rx_queue_index >= nq)
				goto free_buf;
			xdp.uapi.ingress_ifindex = uctx->ingress_ifindex;
			xdp.uapi.rx_queue_index = uctx->rx_queue_index;
		}
	}

	err = test_repeat(prog, &xdp, attr->test.repeat, &retval, &duration);
	if (err)
		goto free_buf;

	if (uctx) {
		uctx->data = (u32)(xdp.data - xdp.data_meta);
		uctx->data_end = (u32)(xdp.data_end - xdp.data_meta);
	}
	/* frags follow the linear part in buf (bpf_xdp_adjust_tail may have resized them; the
	 * linear part ends where they begin, as only the frags move when there are any) */
	size = (u32)(xdp.data_end - xdp.data_meta) + xdp.frags_size;
	err = test_finish(attr, uattr, xdp.data_meta, size, xdp.frags_size, retval, duration);
	if (!err)
		err = ctx_finish(attr, uattr, uctx, sizeof(struct xdp_md));
free_buf:
	free(buf);
free_ctx:
	free(uctx);
	return err;
}

/* ---- raw tracepoints ---- */

#define RAW_TP_MAX_ARGS 12u /* MAX_BPF_FUNC_ARGS */

/* Runs fn's program once with ctx on CPU cpu: the thread is pinned there for the run, as the
 * kernel runs it there with an IPI (-ENXIO: not a CPU this thread can run on). */
static int run_on_cpu(const struct bpf_prog *prog, void *ctx, u32 cpu, u32 *retval)
{
	cpu_set_t old, one;
	u32 duration;
	int err = 0;

	if (cpu >= CPU_SETSIZE || cpu >= map_possible_cpus())
		return -ENXIO;
	if (sched_getaffinity(0, sizeof(old), &old))
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -ENXIO;
	err = test_repeat(prog, ctx, 1, retval, &duration);
	if (sched_setaffinity(0, sizeof(old), &old) && !err)
		err = -errno; /* (the run happened; only the restore failed) */
	return err;
}

/* The kernel's bpf_prog_test_run_raw_tp(): the program runs once on the ctx_in arguments (at
 * least as many bytes as it reads, at most 12 u64s; none: ctx is NULL), on the calling CPU or,
 * with BPF_F_TEST_RUN_ON_CPU, on attr->test.cpu; only retval comes back. */
int test_run_raw_tp(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 size = attr->test.ctx_size_in, cpu = attr->test.cpu, retval = 0, duration;
	u64 args[RAW_TP_MAX_ARGS];
	void *ctx = NULL;
	int err = 0;

	if (attr->test.data_in || attr->test.data_out || attr->test.ctx_out ||
	    attr->test.duration || attr->test.repeat || attr->test.batch_size)
		return -EINVAL;
	if (size < prog->max_ctx_offset || size > sizeof(args))
		return -EINVAL;
	if (!(attr->test.flags & BPF_F_TEST_RUN_ON_CPU) && cpu)
		return -EINVAL;
	if (size) {
		memcpy(args, u64_to_ptr(attr->test.ctx_in), size);
		ctx = args;
	}
	if (!(attr->test.flags & BPF_F_TEST_RUN_ON_CPU) || cpu == map_this_cpu())
		err = test_repeat(prog, ctx, 1, &retval, &duration);
	else
		err = run_on_cpu(prog, ctx, cpu, &retval);
	if (!err)
		uattr->test.retval = retval;
	return err;
}

/* The kernel's bpf_prog_test_run_tracing(): it calls its test functions, which run the fentry,
 * fexit and fmod_ret programs attached to them (src/prog/trampoline.c): the fentry ones with
 * their usual arguments (EFAULT if one returned something else, as an fmod_ret program can
 * make it), bpf_modify_return_test() and _test2() for fmod_ret.  tp_btf programs have no test
 * run (EFAULT, as the kernel's). */
int test_run_tracing(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 retval = 0;
	int err;

	if (attr->test.flags || attr->test.cpu || attr->test.batch_size)
		return -EINVAL;
	switch (prog->expected_attach_type) {
	case BPF_TRACE_FENTRY:
	case BPF_TRACE_FEXIT:
		err = trampoline_run_fentry_tests();
		if (err)
			return err;
		break;
	case BPF_MODIFY_RETURN:
		retval = trampoline_run_modify_return_tests();
		break;
	default:
		return -EFAULT;
	}
	uattr->test.retval = retval;
	return 0;
}

/* ---- flow dissectors ---- */

/* The kernel's bpf_prog_test_run_flow_dissector(): the packet (an Ethernet frame of at most a
 * page) is dissected repeat times, each run with fresh keys as bpf_flow_dissect() sets them up
 * (n_proto from the frame, nhoff = thoff = ETH_HLEN, flags from ctx_in, the only field it may
 * set), and its nhoff and thoff clamped into the packet afterwards.  data_out gets the keys,
 * ctx_out the ctx_in given; no storage, no metadata, no skb for the helpers. */
int test_run_flow_dissector(struct bpf_prog *prog, const union bpf_attr *attr,
			    union bpf_attr *uattr)
{
	u32 size = attr->test.data_size_in, repeat = attr->test.repeat ? attr->test.repeat : 1;
	u32 flags = 0, retval = 0, duration, hlen;
	struct bpf_flow_keys keys, *uctx = NULL;
	struct skb_ctx ctx;
	u64 start, spent;
	u8 *data;
	int err;

	if (attr->test.flags || attr->test.cpu || attr->test.batch_size)
		return -EINVAL;
	if (size < ETH_HLEN || size > TEST_PAGE_SIZE)
		return -EINVAL;
	data = calloc(1, round_up(size, 64));
	if (!data)
		return -ENOMEM;
	err = -EFAULT;
	if (!attr->test.data_in)
		goto out;
	memcpy(data, u64_to_ptr(attr->test.data_in), size);
	err = ctx_init(attr, sizeof(struct bpf_flow_keys), (void **)&uctx);
	if (err)
		goto out;
	if (uctx) {
		err = -EINVAL;
		if (!zero_range(uctx, 0, offsetof(struct bpf_flow_keys, flags)) ||
		    !zero_range(uctx, offsetof(struct bpf_flow_keys, flow_label),
				sizeof(struct bpf_flow_keys)))
			goto out;
		flags = uctx->flags;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.uapi.flow_keys = &keys;
	ctx.data = data;
	ctx.data_end = data + size;
	hlen = size < 0xffff ? size : 0xffff;
	start = prog_clock_ns();
	for (u32 i = 0; i < repeat; i++) {
		u64 args[5] = { (uintptr_t)&ctx }, r0;

		memset(&keys, 0, sizeof(keys));
		memcpy(&keys.n_proto, data + 12, sizeof(keys.n_proto));
		keys.nhoff = keys.thoff = ETH_HLEN;
		keys.flags = flags;
		/* one run at a time, the whole loop timed once (not prog_repeat(): its clock
		 * would be read around every run) */
		rcu_read_lock();
		prog_exec(prog, args, &r0);
		rcu_read_unlock();
		retval = (u32)r0;
		/* the offsets stay inside the packet: nhoff in [ETH_HLEN, hlen], thoff in
		 * [nhoff, hlen] */
		keys.nhoff = keys.nhoff < ETH_HLEN ? ETH_HLEN : keys.nhoff > hlen ? hlen : keys.nhoff;
		keys.thoff = keys.thoff < keys.nhoff ? keys.nhoff
			     : keys.thoff > hlen    ? hlen
						    : keys.thoff;
	}
	spent = (prog_clock_ns() - start) / repeat;
	duration = spent > UINT32_MAX ? UINT32_MAX : (u32)spent;
	sock_lookup_run_end(); /* (the sockets of socket maps it looked up) */
	err = test_finish(attr, uattr, &keys, sizeof(keys), 0, retval, duration);
	if (!err)
		err = ctx_finish(attr, uattr, uctx, sizeof(struct bpf_flow_keys));
out:
	free(uctx);
	free(data);
	return err;
}

/* ---- socket lookups ---- */

/* The kernel's bpf_prog_test_run_sk_lookup(): the program looks a socket up for the connection
 * ctx_in describes (required; no socket selected in it, nothing set past local_port, an IPv4 or
 * IPv6 family: EAFNOSUPPORT, a 16-bit local port: ERANGE), repeat times; no packet in or out.
 * The ctx it reads holds what the kernel's conversions read: the 16-bit family, protocol and
 * remote port, the addresses of the family only (the other reads as 0), no ingress device and
 * no socket selected (bpf_sk_assign() selects one: ctx->sk).  retval: SK_PASS unless it
 * dropped; ctx_out: ctx_in with the selected socket's cookie (0: none; a program here has no
 * socket maps to select one from, so none). */
int test_run_sk_lookup(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 retval, duration;
	struct bpf_sk_lookup *uctx;
	struct sk_lookup_run run;
	struct bpf_sk_lookup *const ctx = &run.ctx;
	u64 args[5] = { (uintptr_t)&run }, r0, start, spent;
	u32 repeat;
	int err;

	if (attr->test.flags || attr->test.cpu || attr->test.batch_size)
		return -EINVAL;
	if (attr->test.data_in || attr->test.data_size_in || attr->test.data_out ||
	    attr->test.data_size_out)
		return -EINVAL;
	err = ctx_init(attr, sizeof(*uctx), (void **)&uctx);
	if (err)
		return err;
	err = -EINVAL;
	if (!uctx || uctx->cookie ||
	    !zero_range(uctx, offsetof(struct bpf_sk_lookup, ingress_ifindex), sizeof(*uctx)))
		goto out;
	err = -ERANGE;
	if (uctx->local_port > 0xffff)
		goto out;
	memset(&run, 0, sizeof(run));
	ctx->family = (u16)uctx->family;
	ctx->protocol = (u16)uctx->protocol;
	ctx->remote_port = uctx->remote_port;
	ctx->local_port = uctx->local_port;
	if (ctx->family == AF_INET) {
		ctx->remote_ip4 = uctx->remote_ip4;
		ctx->local_ip4 = uctx->local_ip4;
	} else if (ctx->family == AF_INET6) {
		memcpy(ctx->remote_ip6, uctx->remote_ip6, sizeof(ctx->remote_ip6));
		memcpy(ctx->local_ip6, uctx->local_ip6, sizeof(ctx->local_ip6));
	} else {
		err = -EAFNOSUPPORT;
		goto out;
	}
	repeat = attr->test.repeat ? attr->test.repeat : 1;
	start = prog_clock_ns();
	for (u32 i = 0; i < repeat; i++) {
		/* each run selects afresh; one run at a time, the loop timed once */
		ctx->sk = NULL;
		run.no_reuseport = false;
		rcu_read_lock();
		prog_exec(prog, args, &r0);
		rcu_read_unlock();
	}
	spent = (prog_clock_ns() - start) / repeat;
	duration = spent > UINT32_MAX ? UINT32_MAX : (u32)spent;
	retval = (u32)r0 == SK_DROP ? SK_DROP : SK_PASS;
	uctx->cookie = 0;
	if (ctx->sk) {
		const struct prog_sock *ps = prog_sock_of((uintptr_t)ctx->sk);

		uctx->cookie = ps->cookie;
		/* (a socket of a reuseport group needs NO_REUSEPORT: the group would choose) */
		err = -EOPNOTSUPP;
		if (ps->reuseport && !run.no_reuseport)
			goto out;
	}
	err = test_finish(attr, uattr, NULL, 0, 0, retval, duration);
	if (!err)
		err = ctx_finish(attr, uattr, uctx, sizeof(*uctx));
out:
	sock_lookup_run_end();
	free(uctx);
	return err;
}

/* ---- syscall programs ---- */

/* The kernel's bpf_prog_test_run_syscall(): one run on a copy of ctx_in (at least the bytes the
 * program reads, at most U16_MAX; none: ctx is NULL), which then goes back to ctx_in; no data,
 * no ctx_out, no repeat, duration or flags; only retval besides.  (The run is inside a read
 * section, as every run; bpf_sys_bpf() leaves it for its command.) */
int test_run_syscall(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 size = attr->test.ctx_size_in;
	void *ctx = NULL;
	u64 args[5], r0;

	if (attr->test.data_in || attr->test.data_out || attr->test.ctx_out ||
	    attr->test.duration || attr->test.repeat || attr->test.flags ||
	    attr->test.batch_size)
		return -EINVAL;
	if (size < prog->max_ctx_offset || size > 0xffff)
		return -EINVAL;
	if (size) {
		ctx = malloc(size);
		if (!ctx)
			return -ENOMEM;
		memcpy(ctx, u64_to_ptr(attr->test.ctx_in), size);
	}
	args[0] = (uintptr_t)ctx;
	rcu_read_lock();
	prog_exec(prog, args, &r0);
	rcu_read_unlock();
	uattr->test.retval = (u32)r0;
	if (size)
		memcpy(u64_to_ptr(attr->test.ctx_in), ctx, size);
	free(ctx);
	return 0;
}

/* ---- the command ---- */

int prog_test_run(union bpf_attr *attr, union bpf_attr *uattr, u32 usize)
{
	struct bpf_object *obj;
	struct bpf_prog *prog;
	test_run_fn run;
	int err;

	if ((attr->test.ctx_size_in && !attr->test.ctx_in) ||
	    (!attr->test.ctx_size_in && attr->test.ctx_in))
		return -EINVAL;
	if ((attr->test.ctx_size_out && !attr->test.ctx_out) ||
	    (!attr->test.ctx_size_out && attr->test.ctx_out))
		return -EINVAL;

	obj = obj_get_from_fd(attr->test.prog_fd, OBJ_PROG, &err);
	if (!obj)
		return err;
	prog = prog_of(obj);

	if (prog->type == USERBPF_PROG_TYPE_EXT)
		run = test_run_ext;
	else
		run = prog->type < ARRAY_SIZE(test_runs) ? test_runs[prog->type] : NULL;
	err = run ? run(prog, attr, uattr) : -ENOTSUPP;
	obj_put(obj);
	return err;
}
