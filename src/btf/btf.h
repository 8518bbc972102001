/* BTF objects: what BPF_BTF_LOAD makes, and what BPF_PROG_LOAD's prog_btf_fd refers to.
 *
 * A struct btf is immutable once loaded: the validated type section (copied to a 4-byte-aligned
 * buffer so records can be read through struct pointers whatever the caller's alignment), the
 * string section, and an index of type records by id.  Id 0 is void and has no record
 * (btf_type_by_id(btf, 0) is NULL, like any id out of range).  Objects are fds ("bpf-btf" memfds,
 * OBJ_BTF); a program holding func/line info holds a reference.
 *
 * btf_check.c validates a blob with the kernel's rules and messages (btf_parse()); btf.c owns the
 * object, the fd and the bpf() command.
 */
#ifndef USERBPF_BTF_H
#define USERBPF_BTF_H

#include "userbpf.h" /* (<linux/bpf.h>, with the ids newer than it) */
#include <linux/btf.h>

#include "fd.h"
#include "util.h"

struct vlog;

/* The kernel's BTF_MAX_SIZE: larger blobs are E2BIG before anything else. */
#define BTF_MAX_SIZE (16 * 1024 * 1024)

struct btf {
	struct bpf_object obj;	   /* must stay first */
	void *data;		   /* the blob as loaded (BPF_OBJ_GET_INFO_BY_FD gives it back) */
	u32 data_size;
	struct btf_header hdr;	   /* the caller's header, fields past ours dropped (zero) */
	u32 *type_buf;		   /* the type section, aligned copy */
	char *strings;		   /* the string section (NUL first and last once valid) */
	u32 str_len;
	const struct btf_type **types; /* types[id] for 1 <= id < nr_types; types[0] NULL */
	u32 nr_types;		   /* ids in use, void included */
	u32 types_cap;
	u32 *resolved_ids;	   /* per id: the type a modifier/var/ptr resolves to */
	u32 *resolved_sizes;	   /* per id: arrays' total size */
};

static inline struct btf *btf_of(struct bpf_object *obj)
{
	return container_of(obj, struct btf, obj);
}

/* bpf(BPF_BTF_LOAD). */
int btf_load(union bpf_attr *attr, union bpf_attr *uattr, u32 usize);

/* The BTF behind fd with a reference taken, or NULL and *err (-EBADF, -EINVAL). */
struct btf *btf_get_by_fd(int fd, int *err);
void btf_put(struct btf *btf);

/* Type id's record, NULL for void (0) and ids out of range. */
static inline const struct btf_type *btf_type_by_id(const struct btf *btf, u32 id)
{
	return id && id < btf->nr_types ? btf->types[id] : NULL;
}

/* The string at off, NULL when off is outside the string section. */
static inline const char *btf_str_by_offset(const struct btf *btf, u32 off)
{
	return off < btf->str_len ? btf->strings + off : NULL;
}

/* btf_check.c: validates the blob now in btf->type_buf / strings (hdr filled from data of size
 * bytes) with the kernel's rules, logging to log.  0 or -errno; btf owns what it allocates. */
int btf_parse(struct btf *btf, const u8 *data, u32 size, struct vlog *log);
/* BPF_OBJ_GET_INFO_BY_FD of a BTF object (struct bpf_btf_info), btf.c. */
int btf_get_info(struct btf *btf, const union bpf_attr *attr, union bpf_attr *uattr);
void btf_free_data(struct btf *btf);

/* The kernel's btf_type_id_size(): the sized type *id stands for (a modifier or var followed
 * once), *id set to it and its size in *size; NULL when it has no size (void, func, fwd...). */
const struct btf_type *btf_type_id_size(const struct btf *btf, u32 *id, u32 *size);
/* The fields type id holds that the kernel treats specially in map values. */
#define BTF_SPECIAL_LOCK 1u	/* bpf_spin_lock, bpf_res_spin_lock */
#define BTF_SPECIAL_TIMER 2u	/* bpf_timer, bpf_wq, bpf_task_work */
#define BTF_SPECIAL_KPTR 4u	/* pointers tagged kptr, kptr_untrusted, percpu_kptr, uptr */
#define BTF_SPECIAL_OTHER 8u	/* list and rbtree heads and nodes, bpf_refcount */
u32 btf_special_fields(const struct btf *btf, u32 id);
/* The byte offset of the one member of the struct value_id is (modifiers skipped) that is a
 * struct called name (bpf_spin_lock, bpf_timer), align bytes aligned; -ENOENT without one,
 * -E2BIG with more than one (or a misplaced one), -EINVAL when value_id is not a struct. */
int btf_find_value_field(const struct btf *btf, u32 value_id, const char *name, u32 align);

/* A kptr field of a map value: a member that is a pointer tagged kptr (referenced) or
 * kptr_untrusted to a struct (pointee: its name). */
struct btf_kptr {
	u32 off;
	bool ref;
	const char *pointee;
};
/* The kptr fields among the members of the struct value_id, in offset order, into out (room for
 * max): how many; -E2BIG for more, -EINVAL for one not 8-aligned or not to a struct,
 * -EOPNOTSUPP for the kinds userbpf lacks (percpu_kptr, uptr, kptrs inside nested structs or
 * arrays). */
int btf_find_kptrs(const struct btf *btf, u32 value_id, struct btf_kptr *out, int max);

/* The type id skips modifiers (typedef, const, volatile, restrict, type tags) to. */
const struct btf_type *btf_skip_modifiers(const struct btf *btf, u32 id, u32 *res_id);
/* "STRUCT", "FWD", ...: the kernel's btf_type_str() of a kind ("UNKNOWN" for void). */
const char *btf_kind_str(u32 kind);

#endif
