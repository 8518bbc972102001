/* Links: a program attached to a hook, owned through a file descriptor (the kernel's struct
 * bpf_link).  Closing the link's last fd detaches the program.
 *
 * userbpf has eight kinds: the tracing ones, a raw tracepoint link (BPF_RAW_TRACEPOINT_OPEN of
 * a raw tracepoint or tp_btf program), a tracing link (a fentry, fexit or fmod_ret program on
 * the function it was loaded for) and an iterator link (iter.c), which BPF_ITER_CREATE runs;
 * a cgroup link (cgroup_attach.c), a cgroup program on a cgroup's list, a netns link
 * (netns_attach.c), a flow dissector or socket lookup program on a network namespace, an XDP
 * link (xdp_attach.c) and a tcx link (tcx_attach.c), an XDP or tc program on a device, and a
 * sockmap link
 * (map/sockmap.c), an sk_msg or sk_skb program on a socket map, which
 * BPF_LINK_UPDATE may give another program and BPF_LINK_DETACH take off.  No kernel tracepoint,
 * function, cgroup hook, packet or socket fires in user space, so a
 * program attached to one never runs, but for the kernel's BPF test functions, which
 * BPF_PROG_TEST_RUN of a tracing program calls (trampoline.c): there the programs attached to
 * them run around them as the kernel's trampolines run them.
 */
#ifndef USERBPF_PROG_LINK_H
#define USERBPF_PROG_LINK_H

#include "fd.h"
#include "prog/prog.h"

struct bpf_link {
	struct bpf_object obj;		/* must stay first */
	u32 type;			/* enum bpf_link_type: RAW_TRACEPOINT, TRACING,
					 * ITER, CGROUP, NETNS, XDP, TCX, SOCKMAP */
	u32 attach_type;		/* the program's expected_attach_type (CGROUP,
					 * NETNS, XDP, TCX, SOCKMAP: the link's) */
	struct bpf_prog *prog;		/* a reference (CGROUP: BPF_LINK_UPDATE may swap it) */
	u64 cookie;			/* bpf_get_attach_cookie()'s */
	char tp_name[128];		/* RAW_TRACEPOINT: the tracepoint */
	u32 iter_kind, iter_id;		/* ITER: the tasks shown (iter.c: all, a tid's, a pid's) */
	struct bpf_link *next;		/* TRACING: on the attachments list (trampoline.c) */
	struct cg_bpf *cg;		/* CGROUP: the cgroup's (cgroup_attach.c); NULL once
					 * detached */
	u64 cg_id;			/* CGROUP: its id */
	struct bpf_map *map;		/* SOCKMAP: the socket map (held as an fd holds it); NULL
					 * once detached */
	struct netns_bpf *netns;	/* NETNS: the namespace's (netns_attach.c); NULL once
					 * detached */
	u64 netns_ino;			/* NETNS: its inode */
	struct tcx_entry *tcx;		/* TCX: the device's programs (tcx_attach.c); NULL once
					 * detached */
	u32 tcx_ifindex;		/* TCX: the device */
	struct xdp_dev *xdp;		/* XDP: the device's (xdp_attach.c); NULL once detached */
	u32 xdp_ifindex;		/* XDP: the device */
};

/* enum bpf_link_type values past Debian 12's uapi header */
#define LINK_TYPE_TCX 11u
#define LINK_TYPE_SOCKMAP 14u

static inline struct bpf_link *link_of(struct bpf_object *obj)
{
	return container_of(obj, struct bpf_link, obj);
}

/* BPF_RAW_TRACEPOINT_OPEN, BPF_LINK_CREATE, BPF_LINK_DETACH: the new link's fd, 0 or -errno. */
int raw_tracepoint_open(const union bpf_attr *attr);
int link_create(const union bpf_attr *attr);
int link_detach(const union bpf_attr *attr);
/* BPF_LINK_UPDATE: a cgroup link's new program; the other kinds cannot change theirs (EINVAL,
 * once the fds are checked). */
int link_update(const union bpf_attr *attr);
/* BPF_TASK_FD_QUERY: what a thread's fd is attached to (a raw tracepoint link's tracepoint);
 * results in uattr. */
int task_fd_query(const union bpf_attr *attr, union bpf_attr *uattr);
/* BPF_OBJ_GET_INFO_BY_FD of a link (struct bpf_link_info). */
int link_get_info(struct bpf_link *link, const union bpf_attr *attr, union bpf_attr *uattr);

/* iter.c: an iterator link for prog (BPF_LINK_CREATE's iter_info checked), into *out; and
 * BPF_ITER_CREATE: the fd of what the program printed over its target. */
int iter_link_create(struct bpf_prog *prog, const union bpf_attr *attr, struct bpf_link **out);
int iter_create(const union bpf_attr *attr);

/* trampoline.c: a tracing link joins its function's attachments (-EBUSY when the program is
 * already there, -E2BIG past the kernel's 38 a function may have); leaves them when it goes. */
int trampoline_link(struct bpf_link *link);
void trampoline_unlink(struct bpf_link *link);
/* BPF_PROG_TEST_RUN's calls of the kernel's test functions (bpf_prog_test_run_tracing()):
 * bpf_fentry_test1() to 10() with the kernel's arguments, 0 if every one returned what it
 * should, else -EFAULT; bpf_modify_return_test() and _test2(): their results added up, with the
 * number of them that had their side effect in the upper 16 bits. */
int trampoline_run_fentry_tests(void);
u32 trampoline_run_modify_return_tests(void);

#endif
