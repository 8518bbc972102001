/* attach.c — BPF_PROG_ATTACH, BPF_PROG_DETACH, BPF_PROG_QUERY (attach.h): 6.18's
 * bpf_prog_attach(), bpf_prog_detach() and bpf_prog_query() in their order of checks. */
#include <errno.h>
#include <string.h>

#include "map/sockmap.h"
#include "prog/attach.h"
#include "prog/cgroup_attach.h"
#include "prog/netns_attach.h"
#include "prog/tcx_attach.h"

/* 6.18's attach types and flags past Debian 12's uapi header (enum bpf_attach_type) */
#define ATTACH_LSM_CGROUP 43u
#define ATTACH_TCX_INGRESS 46u
#define ATTACH_TCX_EGRESS 47u
#define ATTACH_NETKIT_PRIMARY 54u
#define ATTACH_NETKIT_PEER 55u
#define F_BEFORE (1u << 3)
#define F_AFTER (1u << 4)
#define F_ID (1u << 5)
#define F_PREORDER (1u << 6)
#define F_LINK (1u << 13)
#define ATTACH_MASK_BASE (BPF_F_ALLOW_OVERRIDE | BPF_F_ALLOW_MULTI | BPF_F_REPLACE | F_PREORDER)
#define ATTACH_MASK_MPROG (BPF_F_REPLACE | F_BEFORE | F_AFTER | F_ID | F_LINK)
#define ATTR_ATTACH_RELATIVE 20	/* relative_fd / relative_id */
#define ATTR_ATTACH_REVISION 24	/* expected_revision (u64) */

u32 attach_type_to_prog_type(u32 attach_type)
{
	switch (attach_type) {
	case BPF_CGROUP_INET_INGRESS:
	case BPF_CGROUP_INET_EGRESS:
		return BPF_PROG_TYPE_CGROUP_SKB;
	case BPF_CGROUP_INET_SOCK_CREATE:
	case BPF_CGROUP_INET_SOCK_RELEASE:
	case BPF_CGROUP_INET4_POST_BIND:
	case BPF_CGROUP_INET6_POST_BIND:
		return BPF_PROG_TYPE_CGROUP_SOCK;
	case BPF_CGROUP_SOCK_OPS:
		return BPF_PROG_TYPE_SOCK_OPS;
	case BPF_CGROUP_DEVICE:
		return BPF_PROG_TYPE_CGROUP_DEVICE;
	case BPF_SK_MSG_VERDICT:
		return BPF_PROG_TYPE_SK_MSG;
	case BPF_SK_SKB_STREAM_PARSER:
	case BPF_SK_SKB_STREAM_VERDICT:
	case BPF_SK_SKB_VERDICT:
		return BPF_PROG_TYPE_SK_SKB;
	case BPF_LIRC_MODE2:
		return BPF_PROG_TYPE_LIRC_MODE2;
	case BPF_FLOW_DISSECTOR:
		return BPF_PROG_TYPE_FLOW_DISSECTOR;
	case BPF_CGROUP_SYSCTL:
		return BPF_PROG_TYPE_CGROUP_SYSCTL;
	case BPF_CGROUP_GETSOCKOPT:
	case BPF_CGROUP_SETSOCKOPT:
		return BPF_PROG_TYPE_CGROUP_SOCKOPT;
	case BPF_TRACE_ITER:
	case BPF_TRACE_RAW_TP:
	case BPF_TRACE_FENTRY:
	case BPF_TRACE_FEXIT:
	case BPF_MODIFY_RETURN:
		return BPF_PROG_TYPE_TRACING;
	case BPF_LSM_MAC:
	case ATTACH_LSM_CGROUP:
		return BPF_PROG_TYPE_LSM;
	case BPF_SK_LOOKUP:
		return BPF_PROG_TYPE_SK_LOOKUP;
	case BPF_XDP:
		return BPF_PROG_TYPE_XDP;
	case ATTACH_TCX_INGRESS:
	case ATTACH_TCX_EGRESS:
	case ATTACH_NETKIT_PRIMARY:
	case ATTACH_NETKIT_PEER:
		return BPF_PROG_TYPE_SCHED_CLS;
	default:
		return sock_addr_hook(attach_type) != SA_HOOK_NONE ? BPF_PROG_TYPE_CGROUP_SOCK_ADDR
								   : BPF_PROG_TYPE_UNSPEC;
	}
}

struct bpf_prog *prog_get_type(int fd, u32 type, int *err)
{
	struct bpf_object *obj = obj_get_from_fd(fd, OBJ_PROG, err);

	if (obj && prog_of(obj)->type != type) {
		obj_put(obj);
		*err = -EINVAL;
		return NULL;
	}
	return obj ? prog_of(obj) : NULL;
}

bool tcx_attach_type(u32 attach_type)
{
	return attach_type == ATTACH_TCX_INGRESS || attach_type == ATTACH_TCX_EGRESS;
}

int prog_attach_check_attach_type(const struct bpf_prog *prog, u32 attach_type)
{
	switch (prog->type) {
	case BPF_PROG_TYPE_CGROUP_SOCK:
	case BPF_PROG_TYPE_CGROUP_SOCK_ADDR:
	case BPF_PROG_TYPE_CGROUP_SOCKOPT:
	case BPF_PROG_TYPE_SK_LOOKUP:
		return attach_type == prog->expected_attach_type ? 0 : -EINVAL;
	case BPF_PROG_TYPE_SCHED_CLS:
		return attach_type == ATTACH_TCX_INGRESS || attach_type == ATTACH_TCX_EGRESS ||
			       attach_type == ATTACH_NETKIT_PRIMARY ||
			       attach_type == ATTACH_NETKIT_PEER
		       ? 0 : -EINVAL;
	case BPF_PROG_TYPE_CGROUP_SKB:
		/* one loaded for ingress may go on egress, and the other way, unless its exit
		 * values say egress */
		if (attach_type_to_prog_type(attach_type) != prog->type)
			return -EINVAL;
		return prog->enforce_expected_attach_type &&
			       prog->expected_attach_type != attach_type
		       ? -EINVAL : 0;
	case BPF_PROG_TYPE_EXT:
		return 0;
	default:
		return attach_type_to_prog_type(attach_type) == prog->type ? 0 : -EINVAL;
	}
}

/* Program types whose attach commands take the cgroup flags (is_cgroup_prog_type()). */
static bool cgroup_flags_type(u32 ptype)
{
	return cgroup_prog_type(ptype) || ptype == BPF_PROG_TYPE_LSM;
}

int prog_attach(const union bpf_attr *attr)
{
	u32 ptype = attach_type_to_prog_type(attr->attach_type), flags = attr->attach_flags;
	const u8 *raw = (const u8 *)attr;
	struct bpf_object *obj;
	struct bpf_prog *prog;
	u32 relative;
	u64 revision;
	int err;

	memcpy(&relative, raw + ATTR_ATTACH_RELATIVE, sizeof(relative));
	memcpy(&revision, raw + ATTR_ATTACH_REVISION, sizeof(revision));
	if (ptype == BPF_PROG_TYPE_UNSPEC)
		return -EINVAL;
	if (ptype == BPF_PROG_TYPE_SCHED_CLS) { /* (bpf_mprog_supported()) */
		if (flags & ~ATTACH_MASK_MPROG)
			return -EINVAL;
	} else if (cgroup_flags_type(ptype)) {
		if (flags & ~(ATTACH_MASK_BASE | ATTACH_MASK_MPROG))
			return -EINVAL;
	} else if ((flags & ~ATTACH_MASK_BASE) || relative || revision) {
		return -EINVAL;
	}
	obj = obj_get_from_fd((int)attr->attach_bpf_fd, OBJ_PROG, &err);
	if (!obj)
		return err;
	prog = prog_of(obj);
	err = -EINVAL;
	if (prog->type != ptype || prog_attach_check_attach_type(prog, attr->attach_type))
		goto out;
	if (cgroup_prog_type(ptype))
		err = cgroup_prog_attach(attr, prog);
	else if (ptype == BPF_PROG_TYPE_SK_MSG || ptype == BPF_PROG_TYPE_SK_SKB)
		err = sockmap_prog_attach(attr, prog);
	else if (ptype == BPF_PROG_TYPE_FLOW_DISSECTOR)
		err = netns_prog_attach(attr, prog);
	else if (tcx_attach_type(attr->attach_type))
		err = tcx_prog_attach(attr, prog);
	else if (ptype == BPF_PROG_TYPE_LIRC_MODE2 || ptype == BPF_PROG_TYPE_SCHED_CLS ||
		 (ptype == BPF_PROG_TYPE_LSM && prog->expected_attach_type == ATTACH_LSM_CGROUP))
		err = -EOPNOTSUPP; /* (its target is not in userbpf) */
	else
		err = -EINVAL; /* (no BPF_PROG_ATTACH for the type: links only, or nothing) */
out:
	if (err)
		obj_put(obj);
	return err;
}

int prog_detach(const union bpf_attr *attr)
{
	u32 ptype = attach_type_to_prog_type(attr->attach_type), flags = attr->attach_flags;
	const u8 *raw = (const u8 *)attr;
	u32 relative;
	u64 revision;
	int err;

	memcpy(&relative, raw + ATTR_ATTACH_RELATIVE, sizeof(relative));
	memcpy(&revision, raw + ATTR_ATTACH_REVISION, sizeof(revision));
	if (ptype == BPF_PROG_TYPE_SCHED_CLS) {
		if (flags & ~ATTACH_MASK_MPROG)
			return -EINVAL;
		struct bpf_prog *prog = NULL;

		if (attr->attach_bpf_fd) {
			prog = prog_get_type((int)attr->attach_bpf_fd, ptype, &err);
			if (!prog)
				return err;
		}
		err = tcx_attach_type(attr->attach_type) ? tcx_prog_detach(attr, prog)
							 : -EOPNOTSUPP; /* (netkit) */
		if (prog)
			obj_put(&prog->obj);
		return err;
	}
	if (cgroup_flags_type(ptype)) {
		if (flags || relative)
			return -EINVAL;
		return cgroup_prog_detach(attr, ptype);
	}
	if (flags || relative || revision)
		return -EINVAL;
	switch (ptype) {
	case BPF_PROG_TYPE_SK_MSG:
	case BPF_PROG_TYPE_SK_SKB:
		return sockmap_prog_detach(attr, ptype);
	case BPF_PROG_TYPE_FLOW_DISSECTOR:
		return netns_prog_detach(attr, ptype);
	case BPF_PROG_TYPE_LIRC_MODE2:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

int prog_query(const union bpf_attr *attr, union bpf_attr *uattr)
{
	u32 t = attr->query.attach_type;

	if (attr->query.query_flags & ~BPF_F_QUERY_EFFECTIVE)
		return -EINVAL;
	if (t == ATTACH_LSM_CGROUP ||
	    (attach_type_to_prog_type(t) != BPF_PROG_TYPE_UNSPEC &&
	     cgroup_prog_type(attach_type_to_prog_type(t)))) {
		return cgroup_prog_query(attr, uattr);
	}
	switch (t) {
	case BPF_SK_SKB_STREAM_PARSER:
	case BPF_SK_SKB_STREAM_VERDICT:
	case BPF_SK_MSG_VERDICT:
	case BPF_SK_SKB_VERDICT:
		return sockmap_prog_query(attr, uattr);
	case BPF_FLOW_DISSECTOR:
	case BPF_SK_LOOKUP:
		return netns_prog_query(attr, uattr);
	case ATTACH_TCX_INGRESS:
	case ATTACH_TCX_EGRESS:
		return tcx_prog_query(attr, uattr);
	case BPF_LIRC_MODE2:
	case ATTACH_NETKIT_PRIMARY:
	case ATTACH_NETKIT_PEER:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}
