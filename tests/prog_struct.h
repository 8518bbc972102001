/* prog_struct.h — userbpf's own struct bpf_prog behind a program fd of this process, for the
 * tests (and the soundness run) that look at what a load recorded. */
#ifndef USERBPF_TESTS_PROG_STRUCT_H
#define USERBPF_TESTS_PROG_STRUCT_H

#include "fd.h"
#include "prog/prog.h"
#include "rcu.h"

/* The program fd names (the fd keeps it alive), or NULL when fd is no program of userbpf's. */
static inline struct bpf_prog *prog_struct_of_fd(int fd)
{
	struct bpf_object *obj;
	int err;

	rcu_read_lock();
	obj = obj_from_fd(fd, OBJ_PROG, &err);
	rcu_read_unlock();
	return obj ? prog_of(obj) : NULL;
}

#endif
