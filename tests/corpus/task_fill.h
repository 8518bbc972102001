/* The task report (task_report.h) read from a task pointer directly (t->real_parent->tgid):
 * shared by the corpus programs whose task pointer the verifier types, however they got it.
 * BPF programs only. */
#ifndef CORPUS_TASK_FILL_H
#define CORPUS_TASK_FILL_H

#include "task_report.h"
#include "task_types.h"

static __attribute__((always_inline)) void fill_report(struct report *r, struct task_struct *t)
{
	struct task_struct *p;
	const struct cred *cred = t->cred;

	r->pid = t->pid;
	r->tgid = t->tgid;
	__builtin_memcpy(r->comm, t->comm, sizeof(r->comm));
	r->ppid = t->real_parent->tgid;
	r->gppid = t->real_parent->real_parent->tgid;
	__builtin_memcpy(r->parent_comm, t->real_parent->comm, sizeof(r->parent_comm));
	r->parent_is_real_parent = t->parent == t->real_parent;
	r->leader_pid = t->group_leader->pid;
	r->uid = cred->uid.val;
	r->gid = cred->gid.val;
	r->euid = cred->euid.val;
	r->egid = cred->egid.val;
	r->has_mm = t->mm != 0;
	p = t;
	for (int i = 0; i < 32; i++) {
		if (p->pid == 1) {
			r->levels_to_init = i;
			r->init_parent_pid = p->real_parent->pid;
			__builtin_memcpy(r->init_parent_comm, p->real_parent->comm,
					 sizeof(r->init_parent_comm));
			break;
		}
		p = p->real_parent;
	}
}

#endif
