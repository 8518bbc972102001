/* iter.c — BPF iterators that run: an iterator link (BPF_LINK_CREATE of an iter program) and
 * BPF_ITER_CREATE, whose fd reads what the program printed into its seq_file for each element of
 * the target (bpf_seq_printf(), bpf_seq_write()).
 *
 * userbpf's targets that run: task, every thread /proc shows by ascending id (the kernel walks
 * its id table), or the link's iter_info naming one thread (tid) or one process's threads (pid,
 * or a pidfd's process: its leader, then the others in the order they were made, as its thread
 * list keeps them); cgroup, a cgroup v2 cgroup (iter_info's fd or id, else the root) alone, its
 * descendants before or after their children, or its ancestors up (the css iterator's walks),
 * until the program returns 1; task_vma and task_file, the memory areas in address order and
 * the open files by fd of the tasks the same iter_info names (all: each process's leader)
 * (src/exec/task_vma.c); bpf_map and bpf_prog, every map or program of this process's userbpf
 * by id, as the kernel's struct bpf_map or bpf_prog (src/exec/object_view.c).  Then once more
 * with no element, as the kernel's seq_file stop does.  The other targets are verified only
 * (src/verifier/attach_btf.c).
 *
 * The output is made when the fd is (BPF_ITER_CREATE), not as it is read: the fd is a memfd
 * holding it, at offset 0.  The kernel runs the program as the reader reads, so its output
 * follows the tasks as they are then.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exec/current_task.h"
#include "exec/helpers.h"
#include "exec/seq_file.h"
#include "exec/current_cgroup.h"
#include "exec/iter_css.h"
#include "exec/iter_task.h"
#include "exec/object_view.h"
#include "exec/task_vma.h"
#include "map/map.h"
#include "prog/link.h"
#include "prog/run.h"

/* ---- the link ---- */

#define TASK_TID 1
#define TASK_PID 2
#define LINK_INFO_SIZE 16 /* the kernel's union bpf_iter_link_info */
enum { CG_SELF_ONLY = 1, CG_PRE, CG_POST, CG_UP }; /* enum bpf_cgroup_iter_order */

/* The cgroup a cgroup iterator's iter_info names (the kernel's bpf_iter_attach_cgroup()): by
 * directory fd or id (not both), else the root; *order checked.  Its id, or -errno. */
static s64 cgroup_target(const u8 *info, u32 *order)
{
	u32 fd;
	u64 id;

	memcpy(order, info, 4);
	memcpy(&fd, info + 4, 4);
	memcpy(&id, info + 8, 8);
	if (*order < CG_SELF_ONLY || *order > CG_UP || (fd && id))
		return -EINVAL;
	if (fd) {
		int err = cgroup_fd_id((int)fd, &id);

		if (err)
			return err;
		if (id & CGROUP_V1_ID)
			return -EOPNOTSUPP; /* (a v1 hierarchy's: userbpf has v2 cgroups only) */
	}
	if (!id)
		id = 1; /* the root (cgroup2's root directory is inode 1) */
	return cgroup_by_id(id) ? (s64)id : -ENOENT;
}

/* The process a pidfd refers to, from its fdinfo's "Pid:" line; -EBADF if fd is no pidfd. */
static int pidfd_pid(int fd)
{
	char path[64], line[128];
	FILE *f;
	int pid = -EBADF;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Pid:", 4)) {
			pid = atoi(line + 4);
			break;
		}
	if (f)
		fclose(f);
	return pid > 0 ? pid : -EBADF;
}

int iter_link_create(struct bpf_prog *prog, const union bpf_attr *attr, struct bpf_link **out)
{
	const u8 *raw = (const u8 *)attr, *p;
	u8 info[LINK_INFO_SIZE] = { 0 };
	u32 ulen, kind = 0, id = 0, task[3];
	bool cgroup = !strcmp(prog->attach.name, "bpf_iter_cgroup");
	struct bpf_link *link;
	u64 uinfo;

	memcpy(&uinfo, raw + 16, 8); /* link_create.iter_info */
	memcpy(&ulen, raw + 24, 4);  /* link_create.iter_info_len */
	if (!uinfo != !ulen)
		return -EINVAL;
	bool maps = !strcmp(prog->attach.name, "bpf_iter_bpf_map") ||
		    !strcmp(prog->attach.name, "bpf_iter_bpf_prog");

	if (!cgroup && !maps && strcmp(prog->attach.name, "bpf_iter_task") &&
	    strcmp(prog->attach.name, "bpf_iter_task_vma") &&
	    strcmp(prog->attach.name, "bpf_iter_task_file"))
		return -EOPNOTSUPP; /* (the other targets are verified, not run) */
	p = (const u8 *)(uintptr_t)uinfo;
	for (u32 i = LINK_INFO_SIZE; p && i < ulen; i++)
		if (p[i])
			return -E2BIG;
	if (p)
		memcpy(info, p, ulen < LINK_INFO_SIZE ? ulen : LINK_INFO_SIZE);
	if (maps) {
		/* (the target takes no iter_info: the kernel ignores it) */
	} else if (cgroup) {
		s64 cg = cgroup_target(info, &kind);

		if (cg < 0)
			return (int)cg;
		id = (u32)cg;
	} else {
		/* the task's: tid, pid, pid_fd, one at most */
		memcpy(task, info, sizeof(task));
		if ((task[0] != 0) + (task[1] != 0) + (task[2] != 0) > 1)
			return -EINVAL;
		if (task[2]) {
			/* a pidfd: its process, as pid (-EBADF for any other fd) */
			int pid = pidfd_pid((int)task[2]);

			if (pid < 0)
				return pid;
			task[1] = (u32)pid;
		}
		kind = task[0] ? TASK_TID : task[1] ? TASK_PID : 0;
		id = task[0] ? task[0] : task[1];
	}
	link = calloc(1, sizeof(*link));
	if (!link)
		return -ENOMEM;
	link->type = BPF_LINK_TYPE_ITER;
	link->attach_type = BPF_TRACE_ITER;
	link->prog = prog;
	link->iter_kind = kind;
	link->iter_id = id;
	*out = link;
	return 0;
}

/* ---- BPF_ITER_CREATE ---- */

static u64 session_ids;

/* One run of the program on the ctx {meta, element, element2, element3}: its return value. */
static u64 run_ctx(const struct bpf_prog *prog, u64 *meta, u64 elem, u64 elem2, u64 elem3)
{
	u64 ctx[4] = { (uintptr_t)meta, elem, elem2, elem3 }, args[5] = { (uintptr_t)ctx }, r0;
	u32 duration;

	prog_repeat(prog, args, 1, &r0, &duration);
	return r0;
}

static u64 run_one(const struct bpf_prog *prog, u64 *meta, u64 elem)
{
	return run_ctx(prog, meta, elem, 0, 0);
}

/* Every thread the link shows, as the kernel's seq file walks them: one by its id; a process's
 * from its leader in the order they were made (its thread list); all by ascending id. */
static void walk_tasks(const struct bpf_link *link, u64 *meta, const struct iter_seq *seq)
{
	u64 it[3], t;

	if (link->iter_kind == TASK_TID) {
		t = current_task_by_pid((int)link->iter_id);
		if (t) {
			run_one(link->prog, meta, t);
			meta[2]++;
		}
		return;
	}
	if (link->iter_kind == TASK_PID) {
		/* (a thread's id is no process's) */
		t = current_task_by_pid((int)link->iter_id);
		if (!t || (u32)current_task_tgid(t) != link->iter_id)
			return;
		bpf_iter_task_new_kfunc((uintptr_t)it, t, 2 /* its process's threads */, 0, 0);
	} else {
		iter_task_new_by_tid((uintptr_t)it);
	}
	while ((t = bpf_iter_task_next_kfunc((uintptr_t)it, 0, 0, 0, 0)) && !seq->overflow) {
		run_one(link->prog, meta, t);
		meta[2]++;
	}
	bpf_iter_task_destroy_kfunc((uintptr_t)it, 0, 0, 0, 0);
}

/* The task_vma and task_file iterators' tasks (the kernel's task_seq_get_next() skipping the
 * threads that share their leader's files, as threads made by pthread_create() do): the one
 * thread of a tid link, a pid link's leader, or every process's leader by ascending id; each
 * one's memory areas in address order, the program run on {meta, task, vma}, or its open files
 * by fd, on {meta, task, fd, file}.  A task without an mm (a kernel thread) has no areas. */
static void walk_task_things(const struct bpf_link *link, u64 *meta, const struct iter_seq *seq,
			     bool files)
{
	u64 it[3], t = 0, vma, end;
	bool all = !link->iter_kind;
	int err;

	if (all) {
		iter_task_new_by_tid((uintptr_t)it);
	} else {
		t = current_task_by_pid((int)link->iter_id);
		if (!t || (link->iter_kind == TASK_PID &&
			   (u32)current_task_tgid(t) != link->iter_id))
			return;
	}
	task_walk_begin();
	while (!seq->overflow) {
		u32 tid, fd;

		if (all) {
			t = bpf_iter_task_next_kfunc((uintptr_t)it, 0, 0, 0, 0);
			if (!t)
				break;
			if (current_task_pid(t, &tid) || (int)tid != current_task_tgid(t))
				continue;
		}
		for (u64 at = 0; !seq->overflow && (!files || at <= UINT32_MAX);) {
			if (files) {
				u64 file = task_file_next(t, (u32)at, &fd, &err);

				if (!file)
					break;
				run_ctx(link->prog, meta, t, fd, file);
				at = (u64)fd + 1;
			} else {
				vma = task_vma_next(t, at, &end, &err);
				if (!vma)
					break;
				run_ctx(link->prog, meta, t, vma, 0);
				at = end;
			}
			task_vma_put();
			meta[2]++;
		}
		if (!all)
			break;
	}
	task_walk_end();
	if (all)
		bpf_iter_task_destroy_kfunc((uintptr_t)it, 0, 0, 0, 0);
}

/* Every map (or program) of this process's userbpf, by ascending id (the kernel's walks its
 * idr), each as the kernel's struct bpf_map (struct bpf_prog: object_view.c). */
static void walk_objects(const struct bpf_link *link, u64 *meta, const struct iter_seq *seq,
			 enum obj_kind kind)
{
	for (u32 id = obj_next_id(kind, 0); id && !seq->overflow; id = obj_next_id(kind, id)) {
		struct bpf_object *obj = obj_get_by_id(kind, id);
		u64 view = 0;

		if (obj && kind == OBJ_MAP)
			view = map_view_get(map_of(obj));
		else if (obj)
			view = prog_view_get(container_of(obj, struct bpf_prog, obj));

		if (view) {
			run_one(link->prog, meta, view);
			meta[2]++;
		}
		if (obj)
			obj_put(obj);
	}
}

/* The cgroups of the link's order from its cgroup (the open-coded css iterator's walks), until
 * the program returns non-zero (the kernel's cgroup iterator then stops). */
static void walk_cgroups(const struct bpf_link *link, u64 *meta, const struct iter_seq *seq)
{
	u64 start = cgroup_by_id(link->iter_id), it[3], c;

	if (!start)
		return;
	if (link->iter_kind == CG_SELF_ONLY) {
		run_one(link->prog, meta, start);
		meta[2]++;
		return;
	}
	bpf_iter_css_new_kfunc((uintptr_t)it, start, link->iter_kind, 0, 0);
	while ((c = bpf_iter_css_next_kfunc((uintptr_t)it, 0, 0, 0, 0)) && !seq->overflow) {
		u64 stop = run_one(link->prog, meta, c);

		meta[2]++;
		if (stop)
			break;
	}
	bpf_iter_css_destroy_kfunc((uintptr_t)it, 0, 0, 0, 0);
}

int iter_create(const union bpf_attr *attr)
{
	struct iter_seq *seq;
	struct bpf_object *obj;
	struct bpf_link *link;
	u64 meta[3];
	int err, fd = -1;

	if (attr->iter_create.flags)
		return -EINVAL;
	obj = obj_get_from_fd((int)attr->iter_create.link_fd, OBJ_LINK, &err);
	if (!obj)
		return err;
	link = link_of(obj);
	err = -EINVAL;
	if (link->type != BPF_LINK_TYPE_ITER)
		goto put;
	err = -ENOMEM;
	seq = seq_file_new();
	if (!seq)
		goto put;
	meta[0] = (uintptr_t)seq;
	meta[1] = __atomic_add_fetch(&session_ids, 1, __ATOMIC_RELAXED);
	meta[2] = 0;
	current_task_hold();
	if (!strcmp(link->prog->attach.name, "bpf_iter_cgroup"))
		walk_cgroups(link, meta, seq);
	else if (!strcmp(link->prog->attach.name, "bpf_iter_task_vma"))
		walk_task_things(link, meta, seq, false);
	else if (!strcmp(link->prog->attach.name, "bpf_iter_task_file"))
		walk_task_things(link, meta, seq, true);
	else if (!strcmp(link->prog->attach.name, "bpf_iter_bpf_map"))
		walk_objects(link, meta, seq, OBJ_MAP);
	else if (!strcmp(link->prog->attach.name, "bpf_iter_bpf_prog"))
		walk_objects(link, meta, seq, OBJ_PROG);
	else
		walk_tasks(link, meta, seq);
	/* the end, nothing: its seq_num is the last element's, as the kernel's stop sees it */
	if (meta[2])
		meta[2]--;
	run_one(link->prog, meta, 0);
	current_task_release();
	fd = memfd_create("bpf_iter", MFD_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	if (!err && seq->len && write(fd, seq->buf, seq->len) != (ssize_t)seq->len)
		err = -EIO;
	if (!err && lseek(fd, 0, SEEK_SET) < 0)
		err = -errno;
	if (err && fd >= 0)
		sys_close(fd);
	seq_file_free(seq);
put:
	obj_put(obj);
	return err ? err : fd;
}
