/* BPF_MAP_TYPE_QUEUE (FIFO) and BPF_MAP_TYPE_STACK (LIFO): values without keys.
 *
 * A ring of max_entries + 1 slots of value_size bytes (one slot stays free, so head == tail
 * means empty), as the kernel's.  Elements go in at head; a queue takes them out at tail, a
 * stack at head - 1.  bpf() maps the element commands as the kernel does: UPDATE pushes (flags
 * BPF_EXIST: when full, the oldest element is dropped to make room), LOOKUP peeks,
 * LOOKUP_AND_DELETE pops; the key must be NULL.  Programs call bpf_map_push_elem /
 * bpf_map_pop_elem / bpf_map_peek_elem, which reach the same ops with a NULL key.
 *
 * Concurrency: one spinlock for every operation, peeks included (there is no element a reader
 * could look at without it), as in the kernel.  A failed pop or peek zeroes the value, which the
 * verifier lets the program read afterwards.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"

#define QUEUE_STACK_CREATE_FLAG_MASK                                                             \
	(BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)
#define QUEUE_STACK_MAX_VALUE (4u << 20) /* the kernel's KMALLOC_MAX_SIZE on x86-64 */

struct queue_stack {
	struct bpf_map map;
	spinlock_t lock;
	u32 head, tail;		/* next slot to fill; oldest element */
	u32 size;		/* max_entries + 1 */
	u8 *elements;
};

static inline struct queue_stack *qs_of(struct bpf_map *map)
{
	return container_of(map, struct queue_stack, map);
}

static int qs_alloc_check(const union bpf_attr *attr)
{
	if (!attr->max_entries || attr->key_size || !attr->value_size ||
	    (attr->map_flags & ~QUEUE_STACK_CREATE_FLAG_MASK) ||
	    (attr->map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)) ==
		    (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG))
		return -EINVAL;
	if (attr->value_size > QUEUE_STACK_MAX_VALUE)
		return -E2BIG;
	return 0;
}

static int qs_alloc(const union bpf_attr *attr, int memfd, struct bpf_map **out)
{
	struct queue_stack *qs = calloc(1, sizeof(*qs));
	u64 size = (u64)attr->max_entries + 1;

	(void)memfd;
	if (!qs)
		return -ENOMEM;
	if (size * attr->value_size > SIZE_MAX ||
	    !(qs->elements = malloc((size_t)(size * attr->value_size)))) {
		free(qs);
		return -ENOMEM;
	}
	qs->size = (u32)size;
	*out = &qs->map;
	return 0;
}

static void qs_free(struct bpf_map *map)
{
	struct queue_stack *qs = qs_of(map);

	free(qs->elements);
	free(qs);
}

static u32 next_slot(const struct queue_stack *qs, u32 i)
{
	return i + 1 >= qs->size ? 0 : i + 1;
}

/* Copies the element a queue (or a stack) would give next into value, removing it with
 * delete; -ENOENT (value zeroed) when empty. */
static int qs_get(struct bpf_map *map, void *value, bool stack, bool delete)
{
	struct queue_stack *qs = qs_of(map);
	u32 vs = map->value_size, i;
	int err = 0;

	spin_lock(&qs->lock);
	if (qs->head == qs->tail) {
		memset(value, 0, vs);
		err = -ENOENT;
		goto out;
	}
	i = stack ? (qs->head ? qs->head - 1 : qs->size - 1) : qs->tail;
	memcpy(value, qs->elements + (size_t)i * vs, vs);
	if (delete) {
		if (stack)
			qs->head = i;
		else
			qs->tail = next_slot(qs, qs->tail);
	}
out:
	spin_unlock(&qs->lock);
	return err;
}

static int qs_push(struct bpf_map *map, const void *key, const void *value, u64 flags)
{
	struct queue_stack *qs = qs_of(map);

	(void)key;
	if ((flags & BPF_NOEXIST) || flags > BPF_EXIST)
		return -EINVAL;
	spin_lock(&qs->lock);
	if (next_slot(qs, qs->head) == qs->tail) {
		if (!(flags & BPF_EXIST)) {
			spin_unlock(&qs->lock);
			return -E2BIG;
		}
		qs->tail = next_slot(qs, qs->tail); /* drop the oldest */
	}
	memcpy(qs->elements + (size_t)qs->head * map->value_size, value, map->value_size);
	qs->head = next_slot(qs, qs->head);
	spin_unlock(&qs->lock);
	return 0;
}

static int queue_peek(struct bpf_map *map, const void *key, void *value)
{
	return qs_get(map, value, false, false);
}

static int stack_peek(struct bpf_map *map, const void *key, void *value)
{
	return qs_get(map, value, true, false);
}

static int queue_pop(struct bpf_map *map, const void *key, void *value, u64 flags)
{
	return flags ? -EINVAL : qs_get(map, value, false, true);
}

static int stack_pop(struct bpf_map *map, const void *key, void *value, u64 flags)
{
	return flags ? -EINVAL : qs_get(map, value, true, true);
}

/* No keys: delete and get_next_key are EINVAL, as the kernel answers. */
static int qs_delete(struct bpf_map *map, const void *key)
{
	return -EINVAL;
}

static int qs_get_next_key(struct bpf_map *map, const void *key, void *next_key)
{
	return -EINVAL;
}

static void *qs_lookup_ptr(struct bpf_map *map, const void *key)
{
	return NULL; /* (the verifier refuses bpf_map_lookup_elem on these maps) */
}

#define QUEUE_STACK_OPS(peek, pop)                                                               \
	.alloc_check = qs_alloc_check, .alloc = qs_alloc, .free = qs_free, .lookup = peek,       \
	.lookup_ptr = qs_lookup_ptr, .update = qs_push, .delete = qs_delete,                      \
	.get_next_key = qs_get_next_key, .lookup_and_delete = pop

const struct bpf_map_ops queue_map_ops = { QUEUE_STACK_OPS(queue_peek, queue_pop) };
const struct bpf_map_ops stack_map_ops = { QUEUE_STACK_OPS(stack_peek, stack_pop) };
