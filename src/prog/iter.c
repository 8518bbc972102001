/* iter.c — BPF iterators that run: an iterator link (BPF_LINK_CREATE of an iter program) and
 * BPF_ITER_CREATE, whose fd reads what the program printed into its seq_file for each element of
 * the target (bpf_seq_printf(), bpf_seq_write()).
 *
 * userbpf's one target that runs is task: every thread /proc shows, ascending ids (the kernel
 * walks its tasks by id too), then once more with task NULL, as the kernel's seq_file stop does;
 * the link's iter_info may name one thread (tid) or one process's threads (pid).  The other
 * targets are verified only (src/verifier/attach_btf.c).
 *
 * The output is made when the fd is (BPF_ITER_CREATE), not as it is read: the fd is a memfd
 * holding it, at offset 0.  The kernel runs the program as the reader reads, so its output
 * follows the tasks as they are then.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exec/current_task.h"
#include "exec/helpers.h"
#include "exec/seq_file.h"
#include "exec/iter_task.h"
#include "prog/link.h"
#include "prog/run.h"

/* ---- the link ---- */

#define TASK_TID 1
#define TASK_PID 2

int iter_link_create(struct bpf_prog *prog, const union bpf_attr *attr, struct bpf_link **out)
{
	const u8 *raw = (const u8 *)attr;
	u64 uinfo;
	u32 ulen, info[3] = { 0, 0, 0 };
	struct bpf_link *link;

	memcpy(&uinfo, raw + 16, 8); /* link_create.iter_info */
	memcpy(&ulen, raw + 24, 4);  /* link_create.iter_info_len */
	if (!uinfo != !ulen)
		return -EINVAL;
	if (strcmp(prog->attach.name, "bpf_iter_task"))
		return -EOPNOTSUPP; /* (the other targets are verified, not run) */
	if (uinfo) {
		/* union bpf_iter_link_info's task: tid, pid, pid_fd (the rest must be 0) */
		const u8 *p = (const u8 *)(uintptr_t)uinfo;

		for (u32 i = 12; i < ulen; i++)
			if (p[i])
				return -E2BIG;
		memcpy(info, p, ulen < 12 ? ulen : 12);
		if ((info[0] != 0) + (info[1] != 0) + (info[2] != 0) > 1)
			return -EINVAL;
		if (info[2])
			return -EOPNOTSUPP; /* (a pidfd: not followed here) */
	}
	link = calloc(1, sizeof(*link));
	if (!link)
		return -ENOMEM;
	link->type = BPF_LINK_TYPE_ITER;
	link->attach_type = BPF_TRACE_ITER;
	link->prog = prog;
	link->iter_kind = info[0] ? TASK_TID : info[1] ? TASK_PID : 0;
	link->iter_id = info[0] ? info[0] : info[1];
	*out = link;
	return 0;
}

/* ---- BPF_ITER_CREATE ---- */

static u64 session_ids;

/* One run of the program on the ctx {meta, task}. */
static void run_one(const struct bpf_prog *prog, u64 *meta, u64 task)
{
	u64 ctx[2] = { (uintptr_t)meta, task }, args[5] = { (uintptr_t)ctx }, r0;
	u32 duration;

	prog_repeat(prog, args, 1, &r0, &duration);
}

/* Whether the link shows task t (its pid filters). */
static bool shown(const struct bpf_link *link, u64 t)
{
	u32 tid;

	if (!link->iter_kind)
		return true;
	if (current_task_pid(t, &tid))
		return false;
	return link->iter_kind == TASK_TID ? tid == link->iter_id
					   : (u32)current_task_tgid(t) == link->iter_id;
}

int iter_create(const union bpf_attr *attr)
{
	struct iter_seq *seq;
	struct bpf_object *obj;
	struct bpf_link *link;
	u64 it[3], meta[3], t;
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
	bpf_iter_task_new_kfunc((uintptr_t)it, 0, 1 /* every thread */, 0, 0);
	while ((t = bpf_iter_task_next_kfunc((uintptr_t)it, 0, 0, 0, 0)) && !seq->overflow) {
		if (t == current_task_idle() || !shown(link, t))
			continue; /* (the kernel's walk starts at id 1) */
		run_one(link->prog, meta, t);
		meta[2]++;
	}
	bpf_iter_task_destroy_kfunc((uintptr_t)it, 0, 0, 0, 0);
	/* the end, no task: its seq_num is the last element's, as the kernel's stop sees it */
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
