/* link.c — link objects (link.h): BPF_RAW_TRACEPOINT_OPEN, BPF_LINK_CREATE for tracing
 * programs, BPF_LINK_DETACH, a link's info; the kernel's bpf_raw_tp_link_attach() and
 * bpf_tracing_prog_attach() as 6.18 answers them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "map/map.h"
#include "map/sockmap.h"
#include "perf_event.h"
#include "prog/attach.h"
#include "prog/cgroup_attach.h"
#include "prog/link.h"
#include "prog/netns_attach.h"
#include "prog/tcx_attach.h"
#include "prog/xdp_attach.h"
#include "rcu.h"

/* The kernel's struct bpf_link_info (6.18): 64 bytes; the parts of it a tracing link fills. */
#define LINK_INFO_SIZE 64
#define LINK_INFO_TP_NAME 16		/* raw_tracepoint.tp_name (u64) */
#define LINK_INFO_TP_NAME_LEN 24	/* raw_tracepoint.tp_name_len */
#define LINK_INFO_RAW_TP_COOKIE 32	/* raw_tracepoint.cookie */
#define LINK_INFO_TRACING 16		/* tracing: attach_type, target_obj_id, target_btf_id */
#define LINK_INFO_TRACING_COOKIE 32	/* tracing.cookie */
#define LINK_INFO_ITER_TASK 32		/* iter.task: tid, pid; iter.cgroup: id, order */
#define LINK_INFO_CGROUP 16		/* cgroup: cgroup_id (u64), attach_type */
#define LINK_INFO_SOCKMAP 16		/* sockmap: map_id, attach_type */
#define LINK_INFO_NETNS 16		/* netns: netns_ino, attach_type */
#define LINK_INFO_TCX 16		/* tcx: ifindex, attach_type */
#define LINK_INFO_XDP 16		/* xdp: ifindex */
/* BPF_RAW_TRACEPOINT_OPEN's 6.10 field past our uapi header: raw_tracepoint.cookie */
#define ATTR_RAW_TP_COOKIE 16

static u32 next_link_id; /* ids handed out so far */

static void link_destroy(struct bpf_object *obj)
{
	struct bpf_link *link = link_of(obj);

	if (link->type == BPF_LINK_TYPE_TRACING)
		trampoline_unlink(link);
	if (link->type == BPF_LINK_TYPE_CGROUP)
		cgroup_link_release(link);
	if (link->type == LINK_TYPE_SOCKMAP)
		sockmap_link_release(link);
	if (link->type == BPF_LINK_TYPE_NETNS)
		netns_link_release(link);
	if (link->type == LINK_TYPE_TCX)
		tcx_link_release(link);
	if (link->type == BPF_LINK_TYPE_XDP)
		xdp_link_release(link);
	obj_put(&link->prog->obj);
	free(link);
}

/* Makes link (prog's reference its own) an fd: the fd, or -errno with link and the reference
 * gone. */
static int link_install(struct bpf_link *link)
{
	int memfd, err;

	link->obj.id = __atomic_add_fetch(&next_link_id, 1, __ATOMIC_RELAXED);
	link->obj.kind = OBJ_LINK;
	link->obj.access = OBJ_CAN_READ | OBJ_CAN_WRITE;
	link->obj.destroy = link_destroy;
	if (link->type == BPF_LINK_TYPE_TRACING) {
		err = trampoline_link(link);
		if (err) {
			link->type = 0; /* (not on the list) */
			goto fail;
		}
	}
	memfd = obj_memfd_create("bpf-link");
	if (memfd < 0) {
		err = memfd;
		goto fail;
	}
	err = obj_install(&link->obj, memfd); /* (closes memfd itself on failure) */
	if (err >= 0)
		return err;
fail:
	link_destroy(&link->obj);
	return err;
}

static struct bpf_link *link_new(struct bpf_prog *prog, u32 type, u64 cookie)
{
	struct bpf_link *link = calloc(1, sizeof(*link));

	if (!link)
		return NULL;
	link->type = type;
	link->attach_type = prog->expected_attach_type;
	link->prog = prog;
	link->cookie = cookie;
	return link;
}

/* The tracepoint name names, with the number of its arguments: the kernel's BTF has a typedef
 * btf_trace_<name> for each of its own; without that BTF any name is taken, with the most
 * arguments a tracepoint can have.  -ENOENT for none of that name. */
static int tracepoint_args(const char *name, u32 *nargs)
{
	const struct btf *btf = btf_vmlinux();
	const struct btf_type *t;
	char tname[160];
	u32 id;

	*nargs = ATTACH_MAX_ARGS;
	if (!btf)
		return 0;
	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf_find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	t = id ? btf_type_by_id(btf, id) : NULL;
	t = t ? btf_type_by_id(btf, t->type) : NULL;	/* the pointer */
	t = t ? btf_type_by_id(btf, t->type) : NULL;	/* the prototype */
	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_FUNC_PROTO || !BTF_INFO_VLEN(t->info))
		return -ENOENT;
	*nargs = BTF_INFO_VLEN(t->info) - 1; /* (void *__data first) */
	return 0;
}

/* The kernel's bpf_raw_tp_link_attach(): uname (a user string) for a raw tracepoint program,
 * none for a tracing one (its target is the one it was loaded for).  Takes over prog's
 * reference. */
static int raw_tp_link_attach(struct bpf_prog *prog, const char *uname, u64 cookie)
{
	char name[128];
	struct bpf_link *link;
	u32 nargs;
	int err = -EINVAL;

	switch (prog->type) {
	case BPF_PROG_TYPE_TRACING:
		if (uname)
			goto fail; /* (the target came with the load) */
		if (prog->expected_attach_type == BPF_TRACE_ITER)
			goto fail; /* (bpf_tracing_prog_attach()'s answer) */
		if (prog->expected_attach_type != BPF_TRACE_RAW_TP) {
			link = link_new(prog, BPF_LINK_TYPE_TRACING, 0);
			if (!link) {
				err = -ENOMEM;
				goto fail;
			}
			return link_install(link);
		}
		snprintf(name, sizeof(name), "%s", prog->attach.name);
		break;
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		if (!uname) {
			err = -EFAULT;
			goto fail;
		}
		snprintf(name, sizeof(name), "%s", uname); /* (127 bytes at most, as the kernel) */
		break;
	default:
		goto fail;
	}
	err = tracepoint_args(name, &nargs);
	if (err)
		goto fail;
	err = -EINVAL;
	if (prog->max_ctx_offset > nargs * 8)
		goto fail; /* (the program reads arguments the tracepoint has not) */
	link = link_new(prog, BPF_LINK_TYPE_RAW_TRACEPOINT, cookie);
	err = -ENOMEM;
	if (!link)
		goto fail;
	memcpy(link->tp_name, name, sizeof(name));
	return link_install(link);
fail:
	obj_put(&prog->obj);
	return err;
}

int raw_tracepoint_open(const union bpf_attr *attr)
{
	struct bpf_object *obj;
	u64 cookie;
	int err;

	memcpy(&cookie, (const u8 *)attr + ATTR_RAW_TP_COOKIE, sizeof(cookie));
	obj = obj_get_from_fd((int)attr->raw_tracepoint.prog_fd, OBJ_PROG, &err);
	if (!obj)
		return err;
	return raw_tp_link_attach(prog_of(obj), u64_to_ptr(attr->raw_tracepoint.name), cookie);
}

/* The kernel's attach_type_to_prog_type() for the tracing attach types (6.18). */
static bool tracing_attach_type(u32 attach_type)
{
	return attach_type == BPF_TRACE_RAW_TP || attach_type == BPF_TRACE_FENTRY ||
	       attach_type == BPF_TRACE_FEXIT || attach_type == BPF_MODIFY_RETURN ||
	       attach_type == BPF_TRACE_ITER;
}

int link_create(const union bpf_attr *attr)
{
	struct bpf_object *obj;
	struct bpf_prog *prog;
	struct bpf_link *link;
	int err;

	obj = obj_get_from_fd((int)attr->link_create.prog_fd, OBJ_PROG, &err);
	if (!obj)
		return err;
	prog = prog_of(obj);
	if (cgroup_prog_type(prog->type) || prog->type == BPF_PROG_TYPE_SK_MSG ||
	    prog->type == BPF_PROG_TYPE_SK_SKB || prog->type == BPF_PROG_TYPE_FLOW_DISSECTOR ||
	    prog->type == BPF_PROG_TYPE_SK_LOOKUP || prog->type == BPF_PROG_TYPE_XDP ||
	    (prog->type == BPF_PROG_TYPE_SCHED_CLS &&
	     tcx_attach_type(attr->link_create.attach_type))) {
		u32 kind = cgroup_prog_type(prog->type) ? BPF_LINK_TYPE_CGROUP
			   : prog->type == BPF_PROG_TYPE_SK_MSG ? LINK_TYPE_SOCKMAP
			   : prog->type == BPF_PROG_TYPE_SK_SKB ? LINK_TYPE_SOCKMAP
			   : prog->type == BPF_PROG_TYPE_SCHED_CLS ? LINK_TYPE_TCX
			   : prog->type == BPF_PROG_TYPE_XDP ? BPF_LINK_TYPE_XDP
								   : BPF_LINK_TYPE_NETNS;

		err = prog_attach_check_attach_type(prog, attr->link_create.attach_type);
		if (err)
			goto fail;
		link = link_new(prog, kind, 0);
		err = -ENOMEM;
		if (!link)
			goto fail;
		link->attach_type = attr->link_create.attach_type;
		err = kind == BPF_LINK_TYPE_CGROUP ? cgroup_link_attach(link, attr)
		      : kind == LINK_TYPE_SOCKMAP  ? sockmap_link_attach(link, attr)
		      : kind == LINK_TYPE_TCX	   ? tcx_link_attach(link, attr)
		      : kind == BPF_LINK_TYPE_XDP  ? xdp_link_attach(link, attr)
						   : netns_link_attach(link, attr);
		if (err) {
			free(link);
			goto fail;
		}
		return link_install(link);
	}
	/* the attach type must be one of the program type's
	 * (bpf_prog_attach_check_attach_type()) */
	err = -EINVAL;
	if (tracing_attach_type(attr->link_create.attach_type) !=
	    (prog->type == BPF_PROG_TYPE_TRACING))
		goto fail;
	/* (the hooks of the other types are not in user space; those whose attach types are
	 * checked by program type alone are refused for another type's first) */
	err = prog->type == BPF_PROG_TYPE_KPROBE || prog->type == BPF_PROG_TYPE_TRACEPOINT ||
			      prog->type == BPF_PROG_TYPE_PERF_EVENT ||
			      prog->type == BPF_PROG_TYPE_EXT ||
			      !prog_attach_check_attach_type(prog, attr->link_create.attach_type)
		      ? -EOPNOTSUPP : -EINVAL;
	if (prog->type != BPF_PROG_TYPE_TRACING)
		goto fail;
	err = -EINVAL;
	if (attr->link_create.attach_type != prog->expected_attach_type)
		goto fail;
	if (prog->expected_attach_type == BPF_TRACE_RAW_TP)
		return raw_tp_link_attach(prog, NULL, attr->link_create.tracing.cookie);
	if (prog->expected_attach_type == BPF_TRACE_ITER) {
		err = iter_link_create(prog, attr, &link);
		if (err)
			goto fail;
		return link_install(link);
	}
	/* a fentry, fexit or fmod_ret program on the function it was loaded for: retargeting
	 * (a program fd and a BTF id) is for extension programs */
	if (attr->link_create.target_fd || attr->link_create.tracing.target_btf_id)
		goto fail;
	link = link_new(prog, BPF_LINK_TYPE_TRACING, attr->link_create.tracing.cookie);
	err = -ENOMEM;
	if (!link)
		goto fail;
	return link_install(link);
fail:
	obj_put(obj);
	return err;
}

int link_detach(const union bpf_attr *attr)
{
	struct bpf_object *obj;
	int err;

	obj = obj_get_from_fd((int)attr->link_detach.link_fd, OBJ_LINK, &err);
	if (!obj)
		return err;
	/* (the tracing kinds have no detach in 6.18: only closing the last fd detaches them) */
	if (link_of(obj)->type == BPF_LINK_TYPE_CGROUP)
		err = cgroup_link_detach(link_of(obj));
	else if (link_of(obj)->type == LINK_TYPE_SOCKMAP)
		sockmap_link_release(link_of(obj)), err = 0;
	else if (link_of(obj)->type == BPF_LINK_TYPE_NETNS)
		netns_link_release(link_of(obj)), err = 0;
	else if (link_of(obj)->type == LINK_TYPE_TCX)
		tcx_link_release(link_of(obj)), err = 0;
	else if (link_of(obj)->type == BPF_LINK_TYPE_XDP)
		xdp_link_release(link_of(obj)), err = 0;
	else
		err = -EOPNOTSUPP;
	obj_put(obj);
	return err;
}

int link_update(const union bpf_attr *attr)
{
	struct bpf_object *link, *prog, *old = NULL;
	int err;

	if (attr->link_update.flags & ~BPF_F_REPLACE)
		return -EINVAL;
	link = obj_get_from_fd((int)attr->link_update.link_fd, OBJ_LINK, &err);
	if (!link)
		return err;
	prog = obj_get_from_fd((int)attr->link_update.new_prog_fd, OBJ_PROG, &err);
	if (!prog)
		goto out;
	if (attr->link_update.flags & BPF_F_REPLACE) {
		old = obj_get_from_fd((int)attr->link_update.old_prog_fd, OBJ_PROG, &err);
		if (!old)
			goto out;
	} else if (attr->link_update.old_prog_fd) {
		err = -EINVAL;
		goto out;
	}
	/* (only cgroup and sockmap links have an update_prog) */
	err = -EINVAL;
	if (link_of(link)->type == BPF_LINK_TYPE_CGROUP)
		err = cgroup_link_update(link_of(link), prog_of(prog), old ? prog_of(old) : NULL);
	else if (link_of(link)->type == LINK_TYPE_SOCKMAP)
		err = sockmap_link_update(link_of(link), prog_of(prog), old ? prog_of(old) : NULL);
	else if (link_of(link)->type == BPF_LINK_TYPE_NETNS)
		err = netns_link_update(link_of(link), prog_of(prog), old ? prog_of(old) : NULL);
	else if (link_of(link)->type == LINK_TYPE_TCX)
		err = tcx_link_update(link_of(link), prog_of(prog), old ? prog_of(old) : NULL);
	else if (link_of(link)->type == BPF_LINK_TYPE_XDP)
		err = xdp_link_update(link_of(link), prog_of(prog), old ? prog_of(old) : NULL);
	if (!err)
		prog = NULL; /* (the link's reference now) */
out:
	if (old)
		obj_put(old);
	if (prog)
		obj_put(prog);
	obj_put(link);
	return err;
}

/* A name the info carries by the caller's buffer (a raw tracepoint's, an iterator's target):
 * the buffer's address and size at LINK_INFO_TP_NAME and _LEN (both or neither), the size
 * needed written back there; the name copied, or cut with -ENOSPC (the kernel's
 * bpf_raw_tp_link_fill_link_info()). */
static int info_name(u8 *info, const char *name)
{
	u32 ulen, need = (u32)strlen(name) + 1;
	u64 ubuf;
	char *buf;

	memcpy(&ubuf, info + LINK_INFO_TP_NAME, 8);
	memcpy(&ulen, info + LINK_INFO_TP_NAME_LEN, 4);
	if (!ulen != !ubuf)
		return -EINVAL;
	memcpy(info + LINK_INFO_TP_NAME_LEN, &need, 4);
	if (!ubuf)
		return 0;
	buf = u64_to_ptr(ubuf);
	if (ulen < need) {
		memcpy(buf, name, ulen - 1);
		buf[ulen - 1] = 0;
		return -ENOSPC;
	}
	memcpy(buf, name, need);
	return 0;
}

int link_get_info(struct bpf_link *link, const union bpf_attr *attr, union bpf_attr *uattr)
{
	u8 *uinfo = u64_to_ptr(attr->info.info);
	u32 len = attr->info.info_len;
	u32 id = __atomic_load_n(&link->prog, __ATOMIC_ACQUIRE)->obj.id;
	u8 info[LINK_INFO_SIZE];
	int err = 0;

	if (len > LINK_INFO_SIZE) {
		if (!uinfo)
			return -EFAULT;
		for (u32 i = LINK_INFO_SIZE; i < len; i++)
			if (uinfo[i])
				return -E2BIG;
		len = LINK_INFO_SIZE;
	}
	memset(info, 0, sizeof(info));
	if (len && !uinfo)
		return -EFAULT;
	memcpy(info, uinfo ? uinfo : info, len);
	memcpy(info, &link->type, 4);
	memcpy(info + 4, &link->obj.id, 4);
	memcpy(info + 8, &id, 4);
	if (link->type == BPF_LINK_TYPE_RAW_TRACEPOINT) {
		err = info_name(info, link->tp_name);
		memcpy(info + LINK_INFO_RAW_TP_COOKIE, &link->cookie, 8);
	} else if (link->type == BPF_LINK_TYPE_ITER) {
		/* iter: the target's name, then the task's tid and pid or the cgroup's id and
		 * order */
		const char *target = link->prog->attach.name + strlen("bpf_iter_");
		u32 task[2] = { link->iter_kind == 1 ? link->iter_id : 0,
				link->iter_kind == 2 ? link->iter_id : 0 };
		u64 cgroup_id = link->iter_id;

		err = info_name(info, target);
		if (!strcmp(target, "cgroup")) {
			memcpy(info + LINK_INFO_ITER_TASK, &cgroup_id, 8);
			memcpy(info + LINK_INFO_ITER_TASK + 8, &link->iter_kind, 4);
		} else {
			memcpy(info + LINK_INFO_ITER_TASK, task, sizeof(task));
		}
	} else if (link->type == BPF_LINK_TYPE_XDP) {
		u32 ifindex = xdp_link_ifindex(link);

		memcpy(info + LINK_INFO_XDP, &ifindex, sizeof(ifindex));
	} else if (link->type == LINK_TYPE_TCX) {
		u32 tcx[2] = { tcx_link_ifindex(link), link->attach_type };

		memcpy(info + LINK_INFO_TCX, tcx, sizeof(tcx));
	} else if (link->type == BPF_LINK_TYPE_NETNS) {
		u32 netns[2] = { netns_link_ino(link), link->attach_type };

		memcpy(info + LINK_INFO_NETNS, netns, sizeof(netns));
	} else if (link->type == LINK_TYPE_SOCKMAP) {
		u32 sockmap[2] = { sockmap_link_map_id(link), link->attach_type };

		memcpy(info + LINK_INFO_SOCKMAP, sockmap, sizeof(sockmap));
	} else if (link->type == BPF_LINK_TYPE_CGROUP) {
		u64 cgroup_id = cgroup_link_cgroup_id(link);

		memcpy(info + LINK_INFO_CGROUP, &cgroup_id, 8);
		memcpy(info + LINK_INFO_CGROUP + 8, &link->attach_type, 4);
	} else {
		/* target_obj_id stays 0: the kernel's BTF is no BTF object of userbpf's */
		u32 tracing[3] = { link->attach_type, 0, link->prog->attach.btf_id };

		memcpy(info + LINK_INFO_TRACING, tracing, sizeof(tracing));
		memcpy(info + LINK_INFO_TRACING_COOKIE, &link->cookie, 8);
	}
	if (err)
		return err; /* (the info is not copied back then, as the kernel's) */
	if (len)
		memcpy(uinfo, info, len);
	memcpy(&uattr->info.info_len, &len, sizeof(len));
	return 0;
}

/* bpf_task_fd_query_copy(): name into the caller's buf (cut with -ENOSPC), its length into
 * buf_len, and the program's id, the fd's type and the probe's offset and address. */
static int fd_query_copy(const union bpf_attr *attr, union bpf_attr *uattr, u32 prog_id,
			 u32 fd_type, const char *name)
{
	char *ubuf = u64_to_ptr(attr->task_fd_query.buf);
	u32 len = name ? (u32)strlen(name) : 0, in_len = attr->task_fd_query.buf_len;
	u64 zero = 0;
	int err = 0;

	memcpy(&uattr->task_fd_query.buf_len, &len, sizeof(len));
	if (in_len && ubuf) {
		if (!len) {
			ubuf[0] = 0;
		} else if (in_len >= len + 1) {
			memcpy(ubuf, name, len + 1);
		} else {
			memcpy(ubuf, name, in_len - 1);
			ubuf[in_len - 1] = 0;
			err = -ENOSPC;
		}
	}
	memcpy(&uattr->task_fd_query.prog_id, &prog_id, sizeof(prog_id));
	memcpy(&uattr->task_fd_query.fd_type, &fd_type, sizeof(fd_type));
	memcpy(&uattr->task_fd_query.probe_offset, &zero, sizeof(zero));
	memcpy(&uattr->task_fd_query.probe_addr, &zero, sizeof(zero));
	return err;
}

int task_fd_query(const union bpf_attr *attr, union bpf_attr *uattr)
{
	s32 pid = (s32)attr->task_fd_query.pid;
	int fd = (int)attr->task_fd_query.fd, err;
	struct bpf_object *obj;
	char path[80];
	struct stat st;

	if (attr->task_fd_query.flags)
		return -EINVAL;
	/* the task: a thread of this process, whose fds may be userbpf's objects, or of another
	 * process, whose are not */
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (pid <= 0 || stat(path, &st))
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/self/task/%d", pid);
	if (stat(path, &st)) {
		/* another process's fd: a file, or none; EPERM where its fds are not ours to see
		 * (the kernel's answer here for a task this one may not trace) */
		char target[16];

		snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
		if (readlink(path, target, sizeof(target)) >= 0)
			return -ENOTSUPP;
		if (errno != EACCES && errno != EPERM) {
			snprintf(path, sizeof(path), "/proc/%d/cwd", pid);
			if (readlink(path, target, sizeof(target)) >= 0 ||
			    (errno != EACCES && errno != EPERM))
				return -EBADF;
		}
		return -EPERM;
	}
	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return -EBADF;
	obj = obj_get_from_fd(fd, OBJ_LINK, &err);
	if (obj) {
		struct bpf_link *link = link_of(obj);

		/* raw tracepoint links (tp_btf ones too) name their tracepoint; others nothing */
		err = link->type == BPF_LINK_TYPE_RAW_TRACEPOINT
			      ? fd_query_copy(attr, uattr, link->prog->obj.id,
					      BPF_FD_TYPE_RAW_TRACEPOINT, link->tp_name)
			      : -ENOTSUPP;
		obj_put(obj);
		return err;
	}
	rcu_read_lock();
	obj = perf_event_get(fd, &err);
	rcu_read_unlock();
	if (obj) {
		obj_put(obj);
		return -ENOENT; /* (a BPF output event: no program attached to it) */
	}
	return -ENOTSUPP;
}
